"""Writing a journal: creating it, appending one event (checked through the sidecar index, or
against a replay when its effect reaches back), a whole journal at once, a batch of many events
under one lock, corrections, and the reveal of sealed onsets at the close.

Nothing is ever rewritten: a correction or a reveal is a new event. Appends take an exclusive
file lock and are fsynced before they return.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from day60 import __version__
from day60.errors import InputError, pydantic_problem
from day60.events import EVENT_MODELS, FORMAT, KINDS, Header
from day60.journal import lock, reader
from day60.journal.index import BatchUpdate, Index, forget
from day60.journal.line import GENESIS, canonical, quote, sha256_hex, with_hash
from day60.journal.reader import Journal
from day60.journal.rules import check_new, check_rules, effective
from day60.journal.sealing import add_held, commitment, load_held
from day60.kinds import FIXERS
from day60.permissions import JUDGEMENTS, TOOLKIT, Actor, Facts, authorise, table
from day60.timeparse import RANGE_TEXT


def now_iso() -> str:
    return dt.datetime.now(dt.UTC).isoformat()


def create(path: str | Path, fields: dict[str, Any]) -> dict[str, Any]:
    """Write the header line of a new journal; refuses to overwrite, even when racing another
    writer for the same name (the header is written aside, then linked into place)."""
    from day60.clock import BusinessCalendar, to_utc_us
    from day60.files import check_output, write_atomic

    path = Path(path)
    if os.path.lexists(path):
        raise InputError("JOURNAL", f"{path} already exists", "choose a new file name; journals are never overwritten")
    check_output("JOURNAL", path)
    calendar = BusinessCalendar.from_dict(fields.get("calendar") or {})  # refuses a bad calendar, field named
    window = fields.get("window") or {}
    try:
        first = dt.datetime.fromisoformat(window["start"]).date() - dt.timedelta(days=60)
        last = dt.datetime.fromisoformat(window["end"]).date() + dt.timedelta(days=120)
    except (KeyError, TypeError, ValueError):
        first = last = None  # the header's own validation names the window's fault below
    if first is not None:  # holiday dates fixed now: a later holidays release cannot move a figure
        fields = {**fields, "calendar": calendar.with_resolved_holidays(first, last)}
    header = {"format": FORMAT, "toolkit": __version__, "created_at": now_iso(), **fields}
    try:  # validated with defaults filled in, so every header states them
        header = with_hash(Header.model_validate({**header, "hash": GENESIS}).model_dump(exclude={"hash"}))
    except ValidationError as exc:
        name, msg = pydantic_problem(exc)
        raise InputError(f"--{name.split('.')[0].replace('_', '-')}", msg, "see 'day60 new --help'") from exc
    w = header["window"]
    if to_utc_us(dt.datetime.fromisoformat(w["end"])) <= to_utc_us(dt.datetime.fromisoformat(w["start"])):
        raise InputError("--window-end", "is not after --window-start", "give a window that ends after it starts")
    aside = path.with_name(f".{path.name[:60]}.{secrets.token_hex(6)}.new")
    write_atomic(aside, canonical(header) + "\n", "JOURNAL")
    try:
        os.link(aside, path)  # fails if the name was taken meanwhile: never overwrites
    except FileExistsError as exc:
        raise InputError("JOURNAL", f"{path} already exists",
                         "choose a new file name; journals are never overwritten") from exc
    except OSError as exc:
        raise InputError("JOURNAL", f"cannot create {path} ({exc.strerror})", "choose another path") from exc
    finally:
        os.unlink(aside)
    return header


def build(path: str | Path, fields: dict[str, Any],
          events: list[tuple[str, str, dt.datetime | None, dict[str, Any]]], by: str | None = None,
          held: str | Path | None = None) -> Journal:
    """Write a whole journal at once (header and chained events), checking every event and
    the rules of fact before anything is written. For journals made from records, not live.

    With ``held``, every injected onset is sealed into that held file, as ``log --seal`` does,
    and revealed at the end, as ``reveal`` does at the close.
    """
    from day60.files import check_output, write_atomic

    path = Path(path)
    if held is not None:
        check_output("--seal", held, [("JOURNAL", path)])
    tmp = path.with_name(path.name + ".building")
    if tmp.exists():
        tmp.unlink()
    create(tmp, fields)
    try:
        journal = reader.read(tmp)
        lines, entries = [], []

        def add(kind: str, ident: str, at_iso: str | None, data: dict[str, Any]) -> dict[str, Any]:
            event = _event(journal, kind, ident, at_iso, by or journal.header["runner"], data)
            journal.events.append(event)
            journal.last_line = canonical(event)
            lines.append(journal.last_line)
            return event

        for kind, ident, at, data in events:
            data, at_iso = dict(data), at.isoformat() if at else None
            seal = held is not None and kind == "drift.onset" and data.get("source", "exercise") == "exercise"
            check_new(kind, data, seal)
            if seal:
                salt = secrets.token_hex(16)
                data["commitment"] = commitment(salt, ident, at_iso)
                entries.append({"id": ident, "at": at_iso, "salt": salt, "commitment": data["commitment"],
                                "seq": add(kind, ident, None, data)["seq"]})
            else:
                add(kind, ident, at_iso, data)
        for entry in entries:  # opened at the close, as the runner would
            add("reveal", entry["id"], now_iso(), {"target": entry["seq"], "at": entry["at"], "salt": entry["salt"]})
        check_rules(journal.events)
        if held is not None:
            write_atomic(held, json.dumps({"format": "day60.held/1", "journal": journal.header["hash"],
                                           "onsets": entries}, indent=2) + "\n", "--seal", mode=0o600)
        with tmp.open("a", encoding="utf-8") as fh:
            fh.writelines(line + "\n" for line in lines)
            fh.flush()
            os.fsync(fh.fileno())
        try:
            os.link(tmp, path)  # never over an existing file
        except FileExistsError as exc:
            raise InputError("JOURNAL", f"{path} already exists", "choose a new file name") from exc
    finally:
        if tmp.exists():
            tmp.unlink()
    return reader.read(path)


class Batch:
    """Events appended together (an import): chained in order into a spool file beside the journal,
    then copied onto the journal's end in one locked write. The caller builds each event's data
    from typed values; a test reads every imported journal back through ``read`` to hold them to
    the models. Each event is also replayed through the rules of fact on the state the sidecar
    index holds for its id (unless the caller replayed them already: ``checked``), so a batch
    that would break one writes nothing, and the index is left current for the next append (no
    full replay after a large import). Lines reach the spool a block at a time."""

    def __init__(self, journal: Journal, spool: Any, update: BatchUpdate, actor: Actor | None = None) -> None:
        self.journal = journal
        self.actor = actor or Actor(TOOLKIT)  # an import writes the supplier's records as the toolkit's lines
        self.spool = spool
        self.seq = journal.head["seq"]
        self.prev_line = journal.last_line
        self._prev = sha256_hex(journal.last_line)
        self._recorded_at = quote(now_iso())
        self._quoted: dict[str, str] = {}
        self.head_hash: str = journal.head["hash"]
        self.count = 0
        self.update = update  # the sidecar index (or one in memory), kept current through the batch
        self._block: list[str] = []  # lines not yet in the spool: written a block at a time
        self._held = 0  # characters in the block

    BLOCK_CHARS = 1 << 20  # a block of lines goes to the spool once it holds about a megabyte

    def flush(self) -> None:
        """The lines held in the block, written to the spool in one call."""
        if self._block:
            self.spool.write("".join(self._block))
            self._block.clear()
            self._held = 0

    def checked(self, ident: str, state: Any) -> None:
        """The caller replayed every event it adds for ``ident`` through the rules of fact, from an
        empty state, and ``state`` is what they left (an import checks each ticket so): the index
        takes that state instead of replaying them again, where it holds nothing for ``ident``."""
        self.update.checked(ident, state)

    def add(self, kind: str, ident: str, at: str, by: str, data: dict[str, Any]) -> None:
        """Append one event: the same bytes as ``canonical`` of the whole event (its keys in
        sorted order: at, by, data, hash, id, kind, prev, recorded_at, seq), built in pieces so
        that each value is encoded once."""
        if kind not in EVENT_MODELS:  # a kind is written unquoted below: only the closed set
            raise InputError("KIND", f"{kind!r} is not an event kind", "see 'day60 kinds'")
        grants = table().record.get(kind, {})
        if self.actor.role not in grants or grants[self.actor.role] != "any":  # the access list, as for an append
            authorise(self.actor, kind, ident, data, self.journal.header)
        self.seq += 1
        quoted = self._quoted.get(by) or self._quoted.setdefault(by, quote(by))
        head = f'{{"at":{quote(at)},"by":{quoted},"data":{canonical(data) if data else "{}"}'
        tail = (f',"id":{quote(ident)},"kind":"{kind}","prev":"{self._prev}","recorded_at":'
                f'{self._recorded_at},"seq":{self.seq}}}')
        own = sha256_hex(head + tail)
        line = f'{head},"hash":"{own}"{tail}'
        self._block.append(line + "\n")
        self._held += len(line) + 1
        if self._held >= self.BLOCK_CHARS:
            self.flush()
        self.prev_line = line
        self._prev = sha256_hex(line)
        self.head_hash = own
        self.count += 1
        self.update.add(self.seq, kind, ident, at, data)


@contextmanager
def batch(path: str | Path, read_with: Any = None, actor: Actor | None = None) -> Iterator[Batch]:
    """Append many events under one lock; on any error nothing reaches the journal. ``actor``: who
    writes them (an import: the toolkit), held to the access list line by line.

    ``read_with(path)`` reads the journal under the lock (``journal.read`` unless given; ``day60.reading.batch``
    gives the engine's, for a large journal): the journal never chooses a reader itself."""
    import tempfile

    path = Path(path)
    with lock.locked(path) as fd:
        journal = (read_with or reader.read)(path)
        if journal.partial is not None:
            raise InputError("JOURNAL", f"{path} ends with a partial line from an interrupted write",
                             f"run 'day60 verify --repair {path}' first")
        if any(e["kind"] == "exercise.close" for e in journal.events):
            raise InputError("JOURNAL", f"{path} is closed (exercise.close)", "import into an open journal")
        try:
            spool = tempfile.NamedTemporaryFile(  # noqa: SIM115 (closed by the with below)
                "w+", encoding="utf-8", dir=path.parent, prefix=f".{path.name[:60]}.", suffix=".batch")
        except OSError as exc:
            raise InputError("JOURNAL", f"cannot write beside {path} ({exc.strerror})",
                             "free some space or check the folder's permissions") from exc
        with spool:
            b = Batch(journal, spool, BatchUpdate.begin(path, fd), actor)
            try:
                yield b
                b.update.replay()  # the rules over what is left: a refusal here writes nothing
            except BaseException:
                b.update.abandon()
                raise
            try:
                b.flush()
                spool.flush()
                spool.seek(0)
                raw = spool.buffer
                while chunk := raw.read(1 << 20):
                    view = memoryview(chunk)
                    while view:
                        view = view[os.write(fd, view):]
                os.fsync(fd)
            except OSError as exc:
                b.update.abandon()
                raise InputError("JOURNAL", f"could not append to {path} ({exc.strerror}); it may now end with a "
                                 "partial line", f"free some space, then run 'day60 verify --repair {path}' and "
                                 "import again (a repeated import adds only what is missing)") from exc
            b.update.commit(b.seq, b.prev_line, fd)


def _event(journal: Journal, kind: str, ident: str, at: str | None, by: str, data: dict[str, Any]) -> dict[str, Any]:
    return new_event(len(journal.events) + 1, sha256_hex(journal.last_line), kind, ident, at, by, data)


def new_event(seq: int, prev: str, kind: str, ident: str, at: str | None, by: str,
              data: dict[str, Any]) -> dict[str, Any]:
    """One event, validated against its kind's model and hashed; ``prev`` is the last line's SHA-256."""
    if kind not in KINDS:
        raise InputError("KIND", f"{kind!r} is not an event kind", "see 'day60 kinds' for the list")
    event = {"seq": seq, "kind": kind, "id": ident, "at": at, "recorded_at": now_iso(),
             "by": by, "data": data, "prev": prev}
    event = with_hash(event)
    try:
        validated = EVENT_MODELS[kind].model_validate(event)
    except ValidationError as exc:
        raise event_problem(kind, exc) from exc
    if at is None and not (kind == "drift.onset" and data.get("commitment")):
        raise InputError("--at", "is missing", "give the instant; only a sealed drift.onset is logged without one")
    # Store the validated, typed data ("yes" becomes true, "2" becomes 2), then re-hash.
    event["data"] = validated.model_dump(mode="json", include={"data"}, exclude_none=True)["data"]
    return with_hash(event)


def event_problem(kind: str, exc: ValidationError) -> InputError:
    """Every missing and unknown --set field at once; otherwise the first fault, named."""
    from day60.events import allowed_fields

    errors = exc.errors()
    missing = [e["loc"][1] for e in errors if e["type"] == "missing" and e["loc"][:1] == ("data",)]
    unknown = [e["loc"][1] for e in errors if e["type"] == "extra_forbidden" and e["loc"][:1] == ("data",)]
    toolkit = table().toolkit_fields  # never offered: a person's request carrying one is refused
    allowed = ", ".join(f for f in allowed_fields(kind) if f not in toolkit)
    if missing or unknown:
        parts = []
        if missing:
            parts.append(f"{kind} needs {', '.join(f'--set {m}=...' for m in missing)}")
        if unknown:
            parts.append(f"{', '.join(str(u) for u in unknown)} {'is' if len(unknown) == 1 else 'are'} "
                         f"not a field of {kind}")
        wrong = [e for e in errors if e["type"] not in ("missing", "extra_forbidden")]
        others = []
        if wrong:  # and the fields given with a wrong value, so that one run fixes them all
            from day60.errors import _one_problem

            others = [_one_problem(e, "") for e in wrong]
            parts += [f"{n.replace('data.', '--set ')}: {m}" for n, m in others]
        names = ", ".join([*(f"--set {n}" for n in [*missing, *unknown]),
                           *(n.replace("data.", "--set ") for n, _ in others)])
        return InputError(names, "; ".join(parts), f"{kind} takes: {allowed} (see 'day60 kinds')")
    name, msg = pydantic_problem(exc)
    if name == "id":
        return InputError("--id", msg, "use visible characters only (no control, invisible or direction marks)")
    if name == "at":
        return InputError("--at", msg, "give a time " + RANGE_TEXT)
    return InputError(name.replace("data.", "--set "), msg.replace("data.", "--set "),
                      f"{kind} takes: {allowed} (see 'day60 kinds')")


def append(
    path: str | Path,
    kind: str,
    ident: str,
    at: dt.datetime | None,
    data: dict[str, Any] | None = None,
    by: str | None = None,
    seal: str | Path | None = None,
    elements: list[str] | None = None,
    actor: Actor | None = None,
    pressed_at: str | None = None,
    press_key: str | None = None,
) -> dict[str, Any]:
    """Validate and append one event; returns it as written. Nothing is written on refusal.

    ``actor``: who is writing it. Every front end that writes for a person names one, and the
    access list (``day60.permissions``) decides under the lock whether that role may write this
    line; the line's ``by`` (and a dispute's ``raised_by`` and ``organisation``) are then the
    actor's, never ``by``. Without an actor the caller is one of the toolkit's own commands
    (stamp, reveal, notice) or a program that holds the file itself. ``pressed_at``: the
    browser's time of a press sent late, written into the data after the access list has seen
    what the participant sent. ``press_key``: the key a page gave the press (each press its own),
    written beside it so that the press sent again after a lost answer is found, not written twice.

    With ``seal`` (drift.onset only) the journal receives a salted commitment and the clear
    instant goes to the runner's held file (mode 0600). ``elements``: report elements a deal
    adds (3.21.4), which a report.element may check though the journal's header does not name them.
    """
    path = Path(path)
    data = dict(data or {})
    if seal is not None:  # checked before anything: an existing held file, or a place for a new one
        from day60.files import check_output

        if os.path.lexists(seal):
            load_held(seal, "--seal")
        else:
            check_output("--seal", seal, [("JOURNAL", path)])
    if actor is not None and by is not None:
        raise InputError("--by", "is the actor's, given twice", "name the person in the actor alone")
    with lock.locked(path) as fd:
        if kind in FIXERS or kind in JUDGEMENTS or (kind == "resolve" and data.get("exclude")):
            # their effect reaches back (an exclusion names ids anywhere), or they name another line:
            # the whole journal is replayed
            event = _append_replayed(path, fd, kind, ident, at, data, by, actor, pressed_at, press_key)
            forget(path)
            return event
        return _append_indexed(path, fd, kind, ident, at, data, by, seal, elements, actor, pressed_at, press_key)


def _append_indexed(path: Path, fd: int, kind: str, ident: str, at: dt.datetime | None, data: dict[str, Any],
                    by: str | None, seal: str | Path | None, elements: list[str] | None = None,
                    actor: Actor | None = None, pressed_at: str | None = None,
                    press_key: str | None = None) -> dict[str, Any]:
    """An append that reads only the index's rows for its id: time independent of the journal's size."""
    idx = Index.open(path, fd)
    try:
        if actor is not None:  # what the actor may see of the id: its sign-off and its raise, never a seal
            known = idx.state_for(ident)
            by, data = authorise(actor, kind, ident, data, idx.header, seal=seal is not None,
                                 about=Facts(ident in known.safety, ident in known.raised))
        if pressed_at is not None:
            data["pressed_at"] = pressed_at
        if press_key is not None:
            data["press_key"] = press_key
        at_iso = at.isoformat() if at is not None else None
        held_entry = None
        if seal is not None:
            if kind != "drift.onset":
                raise InputError("--seal", f"only drift.onset can be sealed, not {kind}", "drop --seal")
            salt = secrets.token_hex(16)
            data["commitment"] = commitment(salt, ident, at_iso)
            held_entry = {"id": ident, "at": at_iso, "salt": salt, "commitment": data["commitment"]}
            at_iso = None
        event = new_event(idx.seq + 1, idx.prev, kind, ident, at_iso, by or idx.header["runner"], data)
        if kind == "report.element":
            _check_element(ident, idx.header, elements)
        # A sealed onset is checked against the rules with its clear instant, which only the runner sees;
        # the index keeps the state a later replay will see, with the onset sealed.
        for view in ([{**event, "at": held_entry["at"]}] if held_entry else []) + [event]:
            state = idx.state_for(ident)
            state.apply_at(effective([view])[0])
        check_new(kind, event["data"], held_entry is not None)
        if held_entry is not None:
            add_held(Path(seal), idx.header["hash"], {**held_entry, "seq": event["seq"]})
        line = canonical(event)
        lock.write_line(fd, line, path)
        idx.record(state, ident, line, fd)
    finally:
        idx.close()
    return event


def _append_replayed(path: Path, fd: int, kind: str, ident: str, at: dt.datetime | None, data: dict[str, Any],
                     by: str | None, actor: Actor | None = None, pressed_at: str | None = None,
                     press_key: str | None = None) -> dict[str, Any]:
    """A correction, a reveal or a judgement of a claim: checked against a replay of the whole
    journal with it applied."""
    journal = reader.read(path)
    if journal.partial is not None:
        raise InputError("JOURNAL", f"{path} ends with a partial line from an interrupted write",
                         f"run 'day60 verify --repair {path}' first")
    if actor is not None:
        by, data = authorise(actor, kind, ident, data, journal.header, lines=journal.events)
    if pressed_at is not None:
        data["pressed_at"] = pressed_at
    if press_key is not None:
        data["press_key"] = press_key
    event = _event(journal, kind, ident, at.isoformat() if at is not None else None, by or journal.header["runner"],
                   data)
    check_rules([*journal.events, event])
    check_new(kind, event["data"], False)
    lock.write_line(fd, canonical(event), path)
    return event


def _check_element(ident: str, header: dict[str, Any], elements: list[str] | None = None) -> None:
    """A report element is one of the published list, one the exercise's header adds, or one the
    deal adds (``elements``)."""
    import difflib

    from day60.resources import report_elements

    known = [el["id"] for el in report_elements()] + list(header.get("report_elements", [])) + list(elements or [])
    if ident not in known:
        close = difflib.get_close_matches(ident, known, n=1)
        hint = f"did you mean {close[0]!r}? " if close else ""
        raise InputError("--id", f"{ident[:60]!r} is not a report element of this exercise",
                         f"{hint}elements are: {', '.join(known)} (an exercise adds its own at 'day60 new'; a deal's "
                         "are taken with --sow DEAL.toml)")


def correct(path: str | Path, target: int, at: dt.datetime, reason: str, by: str | None = None,
            actor: Actor | None = None) -> dict[str, Any]:
    """Append a correction of event ``target``'s instant; the original line stays. ``actor`` as
    for ``append``."""
    try:
        return append(path, "correction", str(target), dt.datetime.now(dt.UTC),
                      {"target": target, "at": at.isoformat(), "reason": reason}, by, actor=actor)
    except InputError as exc:  # name the options a person typed, not the event's data fields
        names = {"--set target": "--seq", "--set reason": "--reason", "--set at": "--at", "--id": "--seq"}
        if exc.field in names:
            raise InputError(names[exc.field], exc.problem, exc.fix) from None
        raise


@dataclass
class Revealed:
    events: list[dict[str, Any]]  # the reveal events appended
    stray: list[str]  # held entries whose commitment the journal never received (a crash mid-seal)
    unheld: list[str]  # sealed onsets this held file cannot open


def reveal(path: str | Path, held_path: str | Path, by: str | None = None) -> Revealed:
    """Append a reveal event for every sealed onset the held file can open.

    Entries are matched to onsets by their commitment, not by seq, so a held entry left by a
    crash between the held file and the journal never blocks the others.
    """
    held = load_held(held_path)
    journal = reader.read(path)
    if held["journal"] != journal.header["hash"]:
        raise InputError("--held", "holds instants for another journal", "give this journal's held file")
    opened = {e["data"]["target"] for e in journal.events if e["kind"] == "reveal"}
    sealed = {e["data"]["commitment"]: e for e in journal.events
              if e["kind"] == "drift.onset" and e["at"] is None and e["seq"] not in opened}
    result = Revealed([], [], [])
    matched = set()
    for entry in held["onsets"]:
        onset = sealed.get(entry["commitment"])
        if onset is None:
            if not any(e["kind"] == "drift.onset" and e["data"].get("commitment") == entry["commitment"]
                       for e in journal.events):
                result.stray.append(f"{entry['id']} (held for seq {entry['seq']}, never written to the journal)")
            continue
        matched.add(entry["commitment"])
        result.events.append(append(path, "reveal", onset["id"], dt.datetime.now(dt.UTC),
                                    {"target": onset["seq"], "at": entry["at"], "salt": entry["salt"]}, by))
    result.unheld = [f"{e['id']} (seq {e['seq']})" for c, e in sealed.items() if c not in matched]
    return result

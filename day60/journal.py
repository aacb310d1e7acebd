"""The exercise journal: an append-only, hash-chained JSON Lines file.

Line 1 is the header; every later line is one event whose ``prev`` is the SHA-256 of the
previous line's bytes and whose ``hash`` is the SHA-256 of its own canonical JSON without
``hash``. Nothing is ever rewritten: a correction or a reveal is a new event, and the
*effective* view applies them. Appends take an exclusive file lock and are fsynced.
"""

from __future__ import annotations

import datetime as dt
import fcntl
import hashlib
import json
import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from day60 import __version__
from day60.errors import CheckFailed, InputError, pydantic_problem
from day60.events import EVENT_MODELS, KINDS, Header

GENESIS = "0" * 64
_SAFETY_REASON = ("every injection needs a written agreement, a named stop owner, a stop condition and a "
                  "rollback owner on call before it runs (charter 4.5.1)")


def canonical(obj: dict[str, Any]) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def sha256_hex(text: str | bytes) -> str:
    return hashlib.sha256(text.encode("utf-8") if isinstance(text, str) else text).hexdigest()


def _with_hash(obj: dict[str, Any]) -> dict[str, Any]:
    body = {k: v for k, v in obj.items() if k != "hash"}
    return {**body, "hash": sha256_hex(canonical(body))}


def commitment(salt: str, event_id: str, at_iso: str) -> str:
    """The salted SHA-256 that stands in for a sealed onset instant."""
    return sha256_hex(f"{salt}|{event_id}|{at_iso}")


# ----- reading ------------------------------------------------------------------------------


@dataclass
class Journal:
    path: Path
    header: dict[str, Any]
    events: list[dict[str, Any]]
    last_line: str  # the last complete line, without its newline: the next event chains to it
    sha256: str  # of every complete line, newlines included
    partial: str | None = None  # an incomplete last line (a crash mid-write), if any

    @property
    def tz(self) -> Any:
        from zoneinfo import ZoneInfo

        return ZoneInfo(self.header["calendar"]["timezone"])

    def calendar(self) -> Any:
        from day60.clock import BusinessCalendar

        return BusinessCalendar.from_dict(self.header["calendar"])


def _split(raw: bytes, path: Path) -> tuple[list[str], str | None]:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CheckFailed(f"{path}: byte {exc.start} is not UTF-8; the journal has been damaged") from exc
    parts = text.split("\n")
    del text
    partial = parts.pop() or None  # text after the last newline
    return parts, partial


def read(path: str | Path) -> Journal:
    """Read a journal and check its chain (cheaply); refuses a damaged file.

    A partial last line is kept aside in ``Journal.partial`` and everything before it is used.
    """
    path = Path(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError as exc:
        raise InputError("JOURNAL", f"no journal at {path}", "create one with 'day60 new'") from exc
    complete_digest = sha256_hex(raw[: raw.rfind(b"\n") + 1])
    lines, partial = _split(raw, path)
    del raw  # large journals: keep one copy of the text at a time
    if not lines:
        raise InputError("JOURNAL", f"{path} has no complete header line", "create the journal with 'day60 new'")
    try:
        header = json.loads(lines[0])
        # One parse for all events: the decoder then shares key strings between them.
        events = json.loads("[" + ",".join(lines[1:]) + "]")
    except json.JSONDecodeError as exc:
        raise CheckFailed(f"{path}: a line is not valid JSON ({exc.msg}); run 'day60 verify {path}'") from exc
    if not isinstance(header, dict) or header.get("format") != "day60.journal/1":
        raise InputError("JOURNAL", f"{path} is not a day60 journal", "give a file made by 'day60 new'")
    if len(events) != len(lines) - 1:
        raise CheckFailed(f"{path}: a line holds more or less than one event; run 'day60 verify {path}'")
    for i, event in enumerate(events):
        if not isinstance(event, dict) or event.get("prev") != sha256_hex(lines[i]):
            raise CheckFailed(f"{path}: line {i + 2} does not chain to line {i + 1}; run 'day60 verify {path}'")
    last = events[-1] if events else header
    if _with_hash(last)["hash"] != last.get("hash"):
        raise CheckFailed(f"{path}: line {len(lines)} has been altered; run 'day60 verify {path}'")
    return Journal(path, header, events, lines[-1], complete_digest, partial)


def read_header(path: str | Path) -> dict[str, Any]:
    """Only line 1, for commands that need the timezone before anything else."""
    path = Path(path)
    try:
        with path.open("rb") as fh:
            first = fh.readline()
        header = json.loads(first)
    except FileNotFoundError as exc:
        raise InputError("JOURNAL", f"no journal at {path}", "create one with 'day60 new'") from exc
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InputError("JOURNAL", f"{path} does not start with a day60 header", "check the path") from exc
    if not isinstance(header, dict) or header.get("format") != "day60.journal/1":
        raise InputError("JOURNAL", f"{path} is not a day60 journal", "give a file made by 'day60 new'")
    return header


# ----- the effective view -------------------------------------------------------------------


@dataclass
class Effective:
    """An event as metrics see it: corrections and reveals applied, originals kept."""

    seq: int
    kind: str
    id: str
    at: dt.datetime | None  # None while sealed
    data: dict[str, Any]
    original_at: str | None
    corrections: list[dict[str, Any]] = field(default_factory=list)
    sealed: bool = False
    revealed: bool = False


def effective(events: list[dict[str, Any]], skip: str | None = None) -> list[Effective]:
    """Every event except corrections and reveals, with their effect applied, in seq order.

    ``skip`` leaves out kinds starting with that prefix (metrics reads incidents in bulk).
    """
    out: dict[int, Effective] = {}
    for e in events:
        kind, data = e["kind"], e["data"]
        if skip and kind.startswith(skip):
            continue
        if kind in ("correction", "reveal") and data["target"] not in out:
            continue
        if kind == "correction":
            target = out[data["target"]]
            target.at = dt.datetime.fromisoformat(data["at"])
            target.corrections.append({"seq": e["seq"], "at": data["at"], "reason": data["reason"]})
        elif kind == "reveal":
            target = out[data["target"]]
            target.at = dt.datetime.fromisoformat(data["at"])
            target.sealed, target.revealed = False, True
        else:
            at = dt.datetime.fromisoformat(e["at"]) if e["at"] else None
            out[e["seq"]] = Effective(e["seq"], kind, e["id"], at, data, e["at"],
                                      sealed=at is None and "commitment" in data)
    return list(out.values())


# ----- rules --------------------------------------------------------------------------------


def _refuse(field_name: str, problem: str, fix: str) -> None:
    raise InputError(field_name, problem, fix)


def check_rules(events: list[dict[str, Any]]) -> None:
    """Replay the journal and refuse the first event that breaks a rule of fact.

    Rules: safety sign-off before any injection; no second onset, detection or close; no
    notice before its onset; no restore before the incident's clock starts; waits and change
    windows opened before they are closed; rollback steps after a decision; report elements
    after the report; nothing but corrections and reveals after the close.
    """
    raw_by_seq = {e["seq"]: e for e in events}
    for e in events:
        if e["kind"] == "correction":
            t = raw_by_seq.get(e["data"]["target"])
            if t is None or t["kind"] in ("correction", "reveal") or t["seq"] >= e["seq"]:
                _refuse("--seq", f"{e['data']['target']} is not an earlier event that carries a time",
                        "name the seq of the event to correct (see 'day60 show')")
            if t["at"] is None:
                _refuse("--seq", f"event {t['seq']} is sealed", "reveal it before correcting it")
        if e["kind"] == "reveal":
            t = raw_by_seq.get(e["data"]["target"])
            if t is None or t["kind"] != "drift.onset" or t["at"] is not None:
                _refuse("reveal", f"event {e['data']['target']} is not a sealed onset", "check the held file")
            if commitment(e["data"]["salt"], t["id"], e["data"]["at"]) != t["data"]["commitment"]:
                _refuse("reveal", f"the held instant for {t['id']} does not open its commitment",
                        "use the held file written when the onset was sealed")
    state = _State()
    for ev in effective(events):
        state.apply(ev)


class _State:
    def __init__(self) -> None:
        self.safety: set[str] = set()
        self.onsets: dict[str, Effective] = {}
        self.incidents: dict[str, dt.datetime] = {}
        self.detected: set[str] = set()
        self.open_windows: dict[tuple[str, str], dt.datetime] = {}
        self.criteria: set[str] = set()
        self.decisions: dict[str, dt.datetime] = {}
        self.reports: set[str] = set()
        self.closed = False

    def apply(self, ev: Effective) -> None:
        kind, ident, at, data = ev.kind, ev.id, ev.at, ev.data
        where = f"event {ev.seq} ({kind} {ident})"
        if self.closed:
            _refuse("KIND", f"{where} comes after exercise.close", "record it as a correction, or not at all")
        injected = data.get("source", "exercise") == "exercise"
        needs_sign_off = injected and (kind in ("drift.onset", "incident.detected") or (
            kind == "rollback.criterion-met" and data["kind"] == "production"))
        if needs_sign_off and ident not in self.safety:
            _refuse("id", f"{where} has no safety sign-off: {_SAFETY_REASON}",
                    f"log safety.agreed for {ident} first; until then its rubric lines read 'not exercised'")
        if kind == "safety.agreed":
            self.safety.add(ident)
        elif kind == "drift.onset":
            if ident in self.onsets:
                _refuse("id", f"drift {ident} already has an onset (event {self.onsets[ident].seq})",
                        "use a new id, or 'day60 correct' to change the instant")
            self.onsets[ident] = ev
        elif kind in ("drift.detected", "drift.notice"):
            onset = self.onsets.get(ident)
            if onset is None:
                _refuse("id", f"no drift.onset for {ident}", "log the onset first, or use drift.false-alert")
            if onset.at is not None and at is not None and at < onset.at:
                _refuse("--at", f"{where} is before its onset ({onset.at.isoformat()})", "check the instant")
        elif kind == "incident.detected":
            if ident in self.detected:
                _refuse("id", f"incident {ident} is already detected", "use a new id or 'day60 correct'")
            self.detected.add(ident)
            self._start_incident(ident, at)
        elif kind == "incident.partner-notice":
            self._start_incident(ident, at)
        elif kind.startswith("incident."):
            start = self.incidents.get(ident)
            if start is None:
                _refuse("id", f"no incident {ident} has been detected or notified",
                        "log incident.detected or incident.partner-notice first")
            if kind == "incident.restored" and at < start:
                _refuse("--at", f"{where} is before the incident's clock started ({start.isoformat()})",
                        "check the instant")
            for pause in ("wait", "change-window"):
                key = (ident, pause)
                if kind == f"incident.{pause}-start":
                    if key in self.open_windows:
                        _refuse("KIND", f"{where}: a {pause} is already open for {ident}", f"log {pause}-end first")
                    self.open_windows[key] = at
                elif kind == f"incident.{pause}-end":
                    opened = self.open_windows.pop(key, None)
                    if opened is None:
                        _refuse("KIND", f"{where} has no {pause}-start", f"log incident.{pause}-start first")
                    if at < opened:
                        _refuse("--at", f"{where} is before its {pause}-start ({opened.isoformat()})",
                                "check the instant")
        elif kind == "rollback.criterion-met":
            if ident in self.criteria:
                _refuse("id", f"rollback {ident} already met its criterion", "use a new id")
            self.criteria.add(ident)
        elif kind == "rollback.decision":
            if ident not in self.criteria:
                _refuse("id", f"rollback {ident} has no criterion-met", "log rollback.criterion-met first")
            if ident in self.decisions:
                _refuse("id", f"rollback {ident} already has a decision", "use 'day60 correct' to change it")
            self.decisions[ident] = at
        elif kind.startswith("rollback."):
            decided = self.decisions.get(ident)
            if decided is None:
                _refuse("id", f"rollback {ident} has no decision", "log rollback.decision first")
            if at < decided:
                _refuse("--at", f"{where} is before the decision ({decided.isoformat()})", "check the instant")
        elif kind == "report.received":
            self.reports.add(ident)
        elif kind == "report.element":
            period = data.get("period")
            if not self.reports or (period and period not in self.reports) or (not period and len(self.reports) > 1):
                _refuse("period", f"{where} names no received report",
                        "log report.received first, and set period=YYYY-MM when there are several")
        elif kind == "exercise.close":
            self.closed = True

    def _start_incident(self, ident: str, at: dt.datetime | None) -> None:
        if at is not None:
            self.incidents[ident] = min(at, self.incidents.get(ident, at))


# ----- writing ------------------------------------------------------------------------------


@contextmanager
def _locked(path: Path) -> Iterator[int]:
    fd = os.open(path, os.O_WRONLY | os.O_APPEND)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield fd
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


def _write_line(fd: int, line: str) -> None:
    data = (line + "\n").encode("utf-8")
    written = os.write(fd, data)
    if written != len(data):  # pragma: no cover - a short write on a regular file means a full disk
        raise OSError("short write to the journal")
    os.fsync(fd)


def now_iso() -> str:
    return dt.datetime.now(dt.UTC).isoformat()


def create(path: str | Path, fields: dict[str, Any]) -> dict[str, Any]:
    """Write the header line of a new journal; refuses to overwrite."""
    from day60.clock import BusinessCalendar, to_utc_us

    path = Path(path)
    if path.exists():
        raise InputError("JOURNAL", f"{path} already exists", "choose a new file name; journals are never overwritten")
    calendar = fields.get("calendar")
    BusinessCalendar.from_dict(calendar or {})  # refuses a bad calendar with its field named
    header = {"format": "day60.journal/1", "toolkit": __version__, "created_at": now_iso(), **fields}
    try:  # validated with defaults filled in, so every header states them
        header = _with_hash(Header.model_validate({**header, "hash": GENESIS}).model_dump(exclude={"hash"}))
    except ValidationError as exc:
        name, msg = pydantic_problem(exc)
        raise InputError(f"--{name.split('.')[0].replace('_', '-')}", msg, "see 'day60 new --help'") from exc
    w = header["window"]
    if to_utc_us(dt.datetime.fromisoformat(w["end"])) <= to_utc_us(dt.datetime.fromisoformat(w["start"])):
        raise InputError("--window-end", "is not after --window-start", "give a window that ends after it starts")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    try:
        _write_line(fd, canonical(header))
    finally:
        os.close(fd)
    return header


def build(path: str | Path, fields: dict[str, Any],
          events: list[tuple[str, str, dt.datetime | None, dict[str, Any]]], by: str | None = None) -> Journal:
    """Write a whole journal at once (header and chained events), checking every event and
    the rules of fact before anything is written. For journals made from records, not live."""
    path = Path(path)
    tmp = path.with_name(path.name + ".building")
    if tmp.exists():
        tmp.unlink()
    create(tmp, fields)
    try:
        journal = read(tmp)
        lines = []
        for kind, ident, at, data in events:
            event = _event(journal, kind, ident, at.isoformat() if at else None, by or journal.header["runner"],
                           dict(data))
            journal.events.append(event)
            journal.last_line = canonical(event)
            lines.append(journal.last_line)
        check_rules(journal.events)
        if path.exists():
            raise InputError("JOURNAL", f"{path} already exists", "choose a new file name")
        with tmp.open("a", encoding="utf-8") as fh:
            fh.writelines(line + "\n" for line in lines)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()
    return read(path)


def _event(journal: Journal, kind: str, ident: str, at: str | None, by: str, data: dict[str, Any]) -> dict[str, Any]:
    if kind not in KINDS:
        raise InputError("KIND", f"{kind!r} is not an event kind", "see 'day60 schema' for the list")
    event = {"seq": len(journal.events) + 1, "kind": kind, "id": ident, "at": at, "recorded_at": now_iso(),
             "by": by, "data": data, "prev": sha256_hex(journal.last_line)}
    event = _with_hash(event)
    try:
        validated = EVENT_MODELS[kind].model_validate(event)
    except ValidationError as exc:
        name, msg = pydantic_problem(exc)
        fix = "pass it with --set key=value" if name.startswith("data.") else "see 'day60 schema " + kind + "'"
        if name == "id":
            fix = "use printable characters only"
        raise InputError(name.replace("data.", "--set "), msg, fix) from exc
    # Store the validated, typed data ("yes" becomes true, "2" becomes 2), then re-hash.
    event["data"] = validated.model_dump(mode="json", include={"data"}, exclude_none=True)["data"]
    return _with_hash(event)


def append(
    path: str | Path,
    kind: str,
    ident: str,
    at: dt.datetime | None,
    data: dict[str, Any] | None = None,
    by: str | None = None,
    seal: str | Path | None = None,
) -> dict[str, Any]:
    """Validate and append one event; returns it as written. Nothing is written on refusal.

    With ``seal`` (drift.onset only) the journal receives a salted commitment and the clear
    instant goes to the runner's held file (mode 0600).
    """
    path = Path(path)
    data = dict(data or {})
    if not path.exists():
        raise InputError("JOURNAL", f"no journal at {path}", "create one with 'day60 new'")
    with _locked(path) as fd:
        journal = read(path)
        if journal.partial is not None:
            raise InputError("JOURNAL", f"{path} ends with a partial line from an interrupted write",
                             f"run 'day60 verify --repair {path}' first")
        at_iso = at.isoformat() if at is not None else None
        held_entry = None
        if seal is not None:
            if kind != "drift.onset":
                raise InputError("--seal", f"only drift.onset can be sealed, not {kind}", "drop --seal")
            salt = secrets.token_hex(16)
            data["commitment"] = commitment(salt, ident, at_iso)
            held_entry = {"id": ident, "at": at_iso, "salt": salt, "commitment": data["commitment"]}
            at_iso = None
        event = _event(journal, kind, ident, at_iso, by or journal.header["runner"], data)
        check_rules([*journal.events, event])
        if held_entry is not None:
            _add_held(Path(seal), journal.header["hash"], {**held_entry, "seq": event["seq"]})
        _write_line(fd, canonical(event))
    return event


def correct(path: str | Path, target: int, at: dt.datetime, reason: str, by: str | None = None) -> dict[str, Any]:
    """Append a correction of event ``target``'s instant; the original line stays."""
    return append(path, "correction", str(target), dt.datetime.now(dt.UTC),
                  {"target": target, "at": at.isoformat(), "reason": reason}, by)


# ----- held (sealed) instants ---------------------------------------------------------------


def _add_held(path: Path, journal_hash: str, entry: dict[str, Any]) -> None:
    if path.exists():
        held = load_held(path)
        if held["journal"] != journal_hash:
            raise InputError("--seal", f"{path} holds instants for another journal", "use a new held file")
    else:
        held = {"format": "day60.held/1", "journal": journal_hash, "onsets": []}
    held["onsets"].append(entry)
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        json.dump(held, fh, indent=2)
        fh.write("\n")
        fh.flush()
        os.fsync(fh.fileno())
    os.chmod(tmp, 0o600)
    os.replace(tmp, path)


def load_held(path: str | Path) -> dict[str, Any]:
    from day60.files import read_json

    held = read_json(path, "--held", "the held file written by --seal")
    if not isinstance(held, dict) or held.get("format") != "day60.held/1":
        raise InputError("--held", f"{path} is not a day60 held file", "give the file named with --seal")
    return held


def reveal(path: str | Path, held_path: str | Path, by: str | None = None) -> list[dict[str, Any]]:
    """Append a reveal event for every sealed onset the held file can open."""
    held = load_held(held_path)
    journal = read(path)
    if held["journal"] != journal.header["hash"]:
        raise InputError("--held", "holds instants for another journal", "give this journal's held file")
    opened = {e["data"]["target"] for e in journal.events if e["kind"] == "reveal"}
    written = []
    for entry in held["onsets"]:
        if entry["seq"] in opened:
            continue
        written.append(append(path, "reveal", entry["id"], dt.datetime.now(dt.UTC),
                              {"target": entry["seq"], "at": entry["at"], "salt": entry["salt"]}, by))
    return written


# ----- verification -------------------------------------------------------------------------


@dataclass
class VerifyReport:
    path: Path
    lines: int
    events: int
    problem: str | None  # the first bad line, named
    partial: bool
    sealed: int
    revealed: int
    corrections: int

    @property
    def ok(self) -> bool:
        return self.problem is None and not self.partial


def verify(path: str | Path) -> VerifyReport:
    """Check every line: canonical JSON, schema, hash, chain, reveals and rules of fact."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError as exc:
        raise InputError("JOURNAL", f"no journal at {path}", "check the path") from exc
    try:
        lines, partial = _split(raw, path)
    except CheckFailed as exc:
        return VerifyReport(path, 0, 0, str(exc), False, 0, 0, 0)
    report = VerifyReport(path, len(lines), max(len(lines) - 1, 0), None, partial is not None, 0, 0, 0)
    events: list[dict[str, Any]] = []
    for n, line in enumerate(lines, start=1):
        problem = _check_line(n, line, lines[n - 2] if n > 1 else None)
        if problem:
            report.problem = f"line {n}: {problem}"
            return report
        if n > 1:
            events.append(json.loads(line))
    if not lines:
        report.problem = "line 1: missing header"
        return report
    try:
        check_rules(events)
    except InputError as exc:
        report.problem = f"rules: {exc}"
        return report
    report.sealed = sum(1 for e in effective(events) if e.sealed)
    report.revealed = sum(1 for e in events if e["kind"] == "reveal")
    report.corrections = sum(1 for e in events if e["kind"] == "correction")
    return report


def _check_line(n: int, line: str, previous: str | None) -> str | None:
    try:
        obj = json.loads(line)
    except json.JSONDecodeError as exc:
        return f"not valid JSON ({exc.msg})"
    if not isinstance(obj, dict):
        return "not a JSON object"
    if canonical(obj) != line:
        return "not in canonical form (the line was edited)"
    if _with_hash(obj)["hash"] != obj.get("hash"):
        return "its hash does not match its content (the line was edited)"
    if previous is None:
        try:
            Header.model_validate(obj)
        except ValidationError as exc:
            name, msg = pydantic_problem(exc)
            return f"header field {name}: {msg}"
        return None
    if obj.get("seq") != n - 1:
        return f"seq is {obj.get('seq')!r}, expected {n - 1} (lines removed or reordered)"
    if obj.get("prev") != sha256_hex(previous):
        return "does not chain to the line before (a line was changed, removed or reordered)"
    model = EVENT_MODELS.get(obj.get("kind"))
    if model is None:
        return f"unknown kind {obj.get('kind')!r}"
    try:
        model.model_validate(obj)
    except ValidationError as exc:
        name, msg = pydantic_problem(exc)
        return f"{name}: {msg}"
    return None


def repair(path: str | Path) -> Path | None:
    """Move a partial last line to ``<journal>.partial``; returns that file, or None if none."""
    path = Path(path)
    with _locked(path):
        raw = path.read_bytes()
        cut = raw.rfind(b"\n") + 1
        if cut == len(raw):
            return None
        aside = path.with_name(path.name + ".partial")
        with aside.open("ab") as fh:
            fh.write(raw[cut:] + b"\n")
            fh.flush()
            os.fsync(fh.fileno())
        with path.open("r+b") as fh:
            fh.truncate(cut)
            fh.flush()
            os.fsync(fh.fileno())
    return aside

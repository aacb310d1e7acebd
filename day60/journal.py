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
import re
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from day60 import __version__
from day60.errors import InputError, pydantic_problem
from day60.events import EVENT_MODELS, FORMAT, KINDS, Header
from day60.timeparse import RANGE_TEXT

GENESIS = "0" * 64
_SAFETY_REASON = ("every injection needs a written agreement, a named stop owner, a stop condition and a "
                  "rollback owner on call before it runs (charter 4.5.1)")


_quote = json.encoder.encode_basestring  # a str as canonical JSON writes it (ensure_ascii=False)


_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)
# The same encoder's C core, made once: ``encode`` builds it again for every call, which costs as
# much as the encoding itself for an event's data. Same arguments as ``encode`` passes, but no
# check for circular references (an event is a tree parsed from text or built from typed values).
_C_CANONICAL = json.encoder.c_make_encoder and json.encoder.c_make_encoder(
    None, _CANONICAL.default, json.encoder.encode_basestring, None, ":", ",", True, False, True)


def canonical(obj: dict[str, Any]) -> str:
    """The one JSON form that is hashed: keys sorted, no spaces, text as written (not escaped)."""
    if _C_CANONICAL is not None and type(obj) is dict:
        return "".join(_C_CANONICAL(obj, 0))
    return _CANONICAL.encode(obj)


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
    # Set by ``engine.read`` only: the incident events then live in this table (``engine.Incidents``),
    # not in ``events``, and ``tail`` is the chain's head, which ``events`` alone cannot give.
    incidents: Any = None
    tail: dict[str, Any] | None = None

    @property
    def tz(self) -> Any:
        from zoneinfo import ZoneInfo

        return ZoneInfo(self.header["calendar"]["timezone"])

    def calendar(self) -> Any:
        from day60.clock import BusinessCalendar

        return BusinessCalendar.from_dict(self.header["calendar"])

    @property
    def head(self) -> dict[str, Any]:
        """The chain's head: the last event's seq and hash (seq 0 and the header's hash when empty).
        Printed by every report, it anchors the chain: ``verify --expect SEQ:HASH`` then detects a
        journal cut short or rewritten after it."""
        if self.tail is not None:
            return self.tail
        last = self.events[-1] if self.events else self.header
        return {"seq": len(self.events), "hash": last["hash"]}


def _loads_line(line: str) -> Any:
    """One line of JSON; NaN, Infinity and over-long integers are refused (ValueError)."""
    return json.loads(line, parse_constant=_no_constant)


def _no_constant(text: str) -> Any:
    raise ValueError(f"{text} is not a number JSON allows")


def _damaged(path: Path, line: int, problem: str) -> InputError:
    return InputError("JOURNAL", f"{path}: line {line}: {problem}",
                      f"run 'day60 verify {path}'; a journal is read only as 'day60' wrote it")


def parse_line(n: int, line: str) -> tuple[Any, str | None]:
    try:
        return _loads_line(line), None
    except RecursionError:
        return None, "is nested too deeply to be an event"
    except json.JSONDecodeError as exc:
        return None, f"is not valid JSON ({exc.msg})"
    except ValueError as exc:
        return None, f"holds a number that cannot be read ({str(exc)[:60]})"


def check_header(header: Any) -> str | None:
    """What is wrong with a header line, or None: its schema, window and calendar."""
    from day60.clock import BusinessCalendar

    if not isinstance(header, dict):
        return "is not a JSON object"
    try:
        Header.model_validate(header)
    except ValidationError as exc:
        name, msg = pydantic_problem(exc)
        return f"header field {name}: {msg}"
    w = header["window"]
    if dt.datetime.fromisoformat(w["end"]) <= dt.datetime.fromisoformat(w["start"]):
        return "header field window: the end is not after the start"
    try:
        BusinessCalendar.from_dict(header["calendar"])
    except InputError as exc:
        return f"header field {exc}"
    return None


def check_event(n: int, obj: Any, previous: str) -> str | None:
    """What is wrong with event line ``n`` (chain, seq, schema), or None. Cheap enough for every read."""
    if not isinstance(obj, dict):
        return "is not a JSON object"
    if obj.get("seq") != n - 1:
        return f"seq is {str(obj.get('seq'))[:20]!r}, expected {n - 1} (lines removed or reordered)"
    if obj.get("prev") != sha256_hex(previous):
        return "does not chain to the line before (a line was changed, removed or reordered)"
    return check_body(obj)


def check_body(obj: dict[str, Any]) -> str | None:
    """What is wrong with an event's kind, fields and time, or None (``check_event`` less the chain)."""
    model = EVENT_MODELS.get(obj.get("kind")) if isinstance(obj.get("kind"), str) else None
    if model is None:
        return f"unknown kind {str(obj.get('kind'))[:40]!r}"
    try:
        model.model_validate(obj)
    except ValidationError as exc:
        name, msg = pydantic_problem(exc)
        return f"{name}: {msg}"
    if obj["at"] is None and not (obj["kind"] == "drift.onset" and obj["data"].get("commitment")):
        return "at is null, which only a sealed drift.onset may be"
    return None


def read(path: str | Path) -> Journal:
    """Read a journal, checking every line as ``verify`` does (schema, chain, rules of fact), and
    refuse a damaged one naming its first bad line (exit 2): no figure comes from a bad journal.

    A partial last line is kept aside in ``Journal.partial`` and everything before it is used.
    The file is streamed and parsed a block of lines at a time, so only the events themselves
    are held, not the file's text as well.
    """
    from day60.files import MAX_JOURNAL_BYTES, open_regular

    path = Path(path)
    fd = open_regular(path, "JOURNAL", "a journal made by 'day60 new'", MAX_JOURNAL_BYTES)
    digest = hashlib.sha256()
    header: Any = None
    events: list[dict[str, Any]] = []
    block: list[str] = []
    previous = ""  # the line before the block: the first event of the block chains to it
    n = 0

    def decode(raw: bytes, line: int) -> str:
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            raise InputError("JOURNAL", f"{path}: line {line} is not UTF-8 text; the journal has been damaged",
                             f"run 'day60 verify {path}'") from None

    def take(lines: list[str], first: int, before: str) -> None:
        """Parse and check lines ``first``.. in one go (the decoder shares key strings)."""
        try:
            parsed = _loads_line("[" + ",".join(lines) + "]")
            if len(parsed) != len(lines):
                raise ValueError("a line holds more or less than one value")
        except (ValueError, RecursionError):
            parsed = []
            for k, line in enumerate(lines, start=first):
                obj, problem = parse_line(k, line)
                if problem:
                    raise _damaged(path, k, problem) from None
                parsed.append(obj)
        for k, event in enumerate(parsed, start=first):
            problem = check_event(k, event, lines[k - first - 1] if k > first else before)
            if problem:
                prior = header if k == 2 else events[-1] if k == first else parsed[k - first - 1]
                if problem.startswith("does not chain") and _with_hash(prior)["hash"] != prior.get("hash"):
                    raise _damaged(path, k - 1, "its hash does not match its content (the line was edited)")
                raise _damaged(path, k, problem)
            events.append(event)

    with os.fdopen(fd, "rb") as fh:
        rest = b""
        while chunk := fh.read(1 << 22):
            parts = (rest + chunk).split(b"\n")
            rest = parts.pop()
            for raw in parts:
                n += 1
                digest.update(raw)
                digest.update(b"\n")
                line = decode(raw, n)
                if n == 1:
                    header, problem = parse_line(1, line)
                    if problem is None and (not isinstance(header, dict) or header.get("format") != FORMAT):
                        raise InputError("JOURNAL", f"{path} is not a day60 journal", "give a file made by 'day60 new'")
                    problem = problem or check_header(header)
                    if problem:
                        raise _damaged(path, 1, problem)
                    previous = line
                    continue
                block.append(line)
                if len(block) >= 20_000:
                    take(block, n - len(block) + 1, previous)
                    previous, block = block[-1], []
    if n == 0:
        raise InputError("JOURNAL", f"{path} has no complete header line", "create the journal with 'day60 new'")
    partial = decode(rest, n + 1) if rest else None
    if block:
        take(block, n - len(block) + 1, previous)
        previous = block[-1]
    last = events[-1] if events else header
    if _with_hash(last)["hash"] != last.get("hash"):
        raise _damaged(path, n, "its hash does not match its content (the line was edited)")
    try:
        check_rules(events)
    except InputError as exc:
        raise _damaged(path, getattr(exc, "seq", 0) + 1, f"breaks a rule of fact: {exc.problem}") from None
    return Journal(path, header, events, previous, digest.hexdigest(), partial)


def read_header(path: str | Path) -> dict[str, Any]:
    """Only line 1, checked, for commands that need the timezone before anything else."""
    from day60.files import MAX_JOURNAL_BYTES, open_regular

    path = Path(path)
    fd = open_regular(path, "JOURNAL", "a journal made by 'day60 new'", MAX_JOURNAL_BYTES)
    with os.fdopen(fd, "rb") as fh:
        first = fh.readline(1_000_000)
    try:
        header, problem = parse_line(1, first.decode("utf-8"))
    except UnicodeDecodeError:
        header, problem = None, "is not UTF-8 text"
    if problem is None and (not isinstance(header, dict) or header.get("format") != FORMAT):
        raise InputError("JOURNAL", f"{path} is not a day60 journal", "give a file made by 'day60 new'")
    problem = problem or check_header(header)
    if problem:
        raise _damaged(path, 1, problem)
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


def check_rules(events: list[dict[str, Any]], elsewhere: dict[int, dict[str, Any]] | None = None,
                incidents_from: dict[str, int] | None = None) -> _State:
    """Replay the journal and refuse the first event that breaks a rule of fact.

    Rules: safety sign-off before any injection; no second onset, detection or close; no
    notice before its onset; no restore before the incident's clock starts; waits and change
    windows opened before they are closed; rollback steps after a decision; report elements
    after the report; nothing but corrections and reveals after the close.

    ``elsewhere`` holds events kept out of ``events`` (the engine's incident table) that a
    correction names: they are looked up as its target, never replayed; ``incidents_from``, the
    first seq of each incident kept out, so a resolve may exclude one logged before it.
    """
    _check_targets(events, {**(elsewhere or {}), **{e["seq"]: e for e in events}})
    state = _State()
    state.incidents_from = incidents_from or {}
    for ev in effective(events):
        state.apply_at(ev)
    return state


def _check_targets(events: list[dict[str, Any]], raw_by_seq: dict[int, dict[str, Any]]) -> None:
    """``_check_target`` for each event, a refusal marked with the event's seq."""
    for e in events:
        try:
            _check_target(e, raw_by_seq)
        except InputError as exc:
            exc.seq = e["seq"]  # type: ignore[attr-defined]
            raise


def _check_target(e: dict[str, Any], raw_by_seq: dict[int, dict[str, Any]]) -> None:
    """A correction names an earlier timed event; a reveal opens a sealed onset's commitment."""
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


_INJECTIONS = ("drift.onset", "incident.raised", "rollback.criterion-met")


@dataclass
class Ending:
    """How an incident's restores, ticket closures and re-opens stand, in the order logged.

    ``last``/``last_at``: the latest restore or re-open; ``closed_at``: the latest closure and
    ``closed_after`` whether it came after that restore or re-open. A closure after a restore leaves
    the incident restored; a re-open makes it live again.
    """

    last: str | None = None
    last_at: dt.datetime | None = None
    closed_at: dt.datetime | None = None
    closed_after: bool = False

    @property
    def state(self) -> str:
        if self.last == "restored":
            return "restored"
        return "closed" if self.closed_at is not None and self.closed_after else "live"

    def step(self, what: str, at: dt.datetime) -> None:
        if what == "ticket-closed":
            self.closed_at, self.closed_after = at, True
        else:
            self.last, self.last_at, self.closed_after = what, at, False


class _State:
    def __init__(self) -> None:
        self.safety: dict[str, dt.datetime] = {}
        self.started: set[str] = set()  # injections begun (onset, raised incident, production criterion)
        self.not_run: set[str] = set()
        self.onsets: dict[str, Effective] = {}
        self.raised: dict[str, dt.datetime | None] = {}
        self.incidents: dict[str, dt.datetime] = {}
        self.known_incidents: set[str] = set()
        self.detected: set[str] = set()
        self.open_windows: dict[tuple[str, str], dt.datetime] = {}
        self.endings: dict[str, Ending] = {}  # per incident: its restores, closures and re-opens so far
        self.criteria: dict[str, dt.datetime] = {}
        self.decisions: dict[str, dt.datetime] = {}
        self.reports: set[str] = set()
        self.disputes: dict[int, str | None] = {}
        self.incidents_from: dict[str, int] = {}  # incidents not replayed (the engine's): id -> first seq
        self.closed = False

    def _gate(self, ev: Effective, where: str) -> None:
        """Charter 4.5.1: an injection runs only under a written sign-off made before it."""
        kind, ident, at, data = ev.kind, ev.id, ev.at, ev.data
        injected = data.get("source", "exercise") == "exercise"
        gated = kind == "incident.raised" or (injected and (
            kind == "drift.onset"
            or (kind in ("incident.detected", "incident.partner-notice") and ident not in self.raised)
            or (kind == "rollback.criterion-met" and data["kind"] == "production")))
        if not gated:
            return
        if ident in self.not_run:
            _refuse("id", f"{where}: injection {ident} was recorded as not run", "use a new id for a new injection")
        signed = self.safety.get(ident)
        if signed is None:
            organic = " (a real incident, not one the exercise raised, is logged with --set source=organic)" \
                if kind.startswith("incident.") else " (a real drift is logged with --set source=organic)" \
                if kind == "drift.onset" else ""
            _refuse("id", f"{where} has no safety sign-off: {_SAFETY_REASON}",
                    f"log safety.agreed for {ident} first; until then its rubric lines read 'not exercised'"
                    + organic)
        if at is not None and not signed < at:
            _refuse("--at", f"{where} is not after its safety sign-off ({signed.isoformat()}): the written "
                            "agreement must come before the injection (charter 4.5.1)",
                    "check the instant of the injection or of the sign-off")
        if kind in _INJECTIONS:
            self.started.add(ident)

    def apply_at(self, ev: Effective) -> None:
        """``apply``, with a refusal marked with the event's seq (so a reader can name its line)."""
        try:
            self.apply(ev)
        except InputError as exc:
            exc.seq = ev.seq  # type: ignore[attr-defined]
            raise

    def apply(self, ev: Effective) -> None:
        kind, ident, at, data = ev.kind, ev.id, ev.at, ev.data
        where = f"event {ev.seq} ({kind} {ident})"
        if kind == "notice.sent":  # the notice comes after the figures too
            return
        if kind == "timestamp.token":  # a third party's clock over an earlier head: allowed after the close
            if data["covers_seq"] >= ev.seq:
                _refuse("--set covers_seq", f"{where} stamps seq {data['covers_seq']}, which is not before it",
                        "stamp the journal's head with 'day60 stamp'")
            return
        if kind == "dispute":  # disputes come after the figures: allowed after the close
            self.disputes[ev.seq] = None
            return
        if kind == "resolve":
            if data["target"] not in self.disputes:
                _refuse("--dispute", f"{data['target']} is not a dispute", "name the seq of a dispute event")
            if self.disputes[data["target"]] is not None:
                _refuse("--dispute", f"dispute {data['target']} is already resolved", "a dispute is resolved once")
            excluded = data.get("exclude") or []
            if excluded and data["outcome"] != "upheld":
                _refuse("--exclude", "only an upheld dispute grants an exclusion", "drop --exclude, or uphold it")
            unknown = [x for x in excluded if x not in self.onsets and x not in self.known_incidents
                       and x not in self.criteria and self.incidents_from.get(x, ev.seq) >= ev.seq]
            if unknown:
                _refuse("--exclude", f"{', '.join(u[:40] for u in unknown[:5])}: no drift, incident or rollback has "
                                     "that id", "name ids from 'day60 show'")
            self.disputes[data["target"]] = data["outcome"]
            return
        if self.closed:
            _refuse("KIND", f"{where} comes after exercise.close", "record it as a correction, or not at all")
        self._gate(ev, where)
        if kind == "safety.agreed":
            if ident in self.not_run:
                _refuse("id", f"{where}: injection {ident} was recorded as not run", "use a new id for a new injection")
            self.safety[ident] = at
        elif kind == "injection.not-run":
            # An injection that could not be made safe is recorded not run without a sign-off: a
            # sign-off would have to name owners and conditions that do not exist (charter 4.5.1).
            if ident in self.started:
                _refuse("id", f"injection {ident} has already begun", "log injection.stopped instead")
            self.not_run.add(ident)
        elif kind == "injection.stopped":
            if ident not in self.started:
                _refuse("id", f"injection {ident} has not begun", "log injection.not-run for one never started")
        elif kind == "drift.onset":
            if ident in self.onsets:
                _refuse("id", f"drift {ident} already has an onset (event {self.onsets[ident].seq})",
                        "use a new id, or 'day60 correct' to change the instant")
            self.onsets[ident] = ev
        elif kind in ("drift.detected", "drift.notice"):
            onset = self.onsets.get(ident)
            if onset is None:
                _refuse("id", f"no drift.onset for {ident}", "log the onset first, or use drift.false-alert")
            # A sealed onset's instant is the runner's secret: a notice logged before it cannot be
            # refused without revealing it, so metrics set such a notice aside instead.
            sealed = onset.sealed or onset.revealed
            if not sealed and onset.at is not None and at is not None and at < onset.at:
                _refuse("--at", f"{where} is before its onset ({onset.at.isoformat()})", "check the instant")
        elif kind == "incident.raised":
            if ident in self.known_incidents:
                _refuse("id", f"incident {ident} already exists", "raise a new incident under a new id")
            self.raised[ident] = at
            self.known_incidents.add(ident)
        elif kind in ("incident.detected", "incident.partner-notice"):
            if kind == "incident.detected":
                if ident in self.detected:
                    _refuse("id", f"incident {ident} is already detected", "use a new id or 'day60 correct'")
                self.detected.add(ident)
            raised = self.raised.get(ident)
            if raised is not None and at is not None and at < raised:
                _refuse("--at", f"{where} is before the incident was raised ({raised.isoformat()})",
                        "check the instant")
            if kind == "incident.partner-notice" and at is not None:
                ending = self.endings.get(ident)
                if ending is not None and ending.state == "restored" and at > ending.last_at:
                    _refuse("KIND", f"{where} comes after the incident was restored ({ending.last_at.isoformat()})",
                            f"if it relapsed, log incident.reopened for {ident} first; a notice of the original "
                            "fault is dated before the restore")
            self.known_incidents.add(ident)
            self._start_incident(ident, at)
        elif kind.startswith("incident."):
            if ident not in self.known_incidents:
                _refuse("id", f"no incident {ident} has been raised, detected or notified",
                        "log incident.raised, incident.detected or incident.partner-notice first")
            if kind == "incident.classified":
                return
            start = self.incidents.get(ident)
            if start is None:
                _refuse("id", f"incident {ident} has no clock yet: neither detected nor notified",
                        "log incident.detected or incident.partner-notice first")
            if kind in ("incident.restored", "incident.ticket-closed") and at < start:
                _refuse("--at", f"{where} is before the incident's clock started ({start.isoformat()})",
                        "check the instant")
            if kind in ("incident.restored", "incident.ticket-closed", "incident.reopened"):
                self._end_or_reopen(ident, kind, at, where)
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
            self.criteria[ident] = at
        elif kind == "rollback.decision":
            if ident not in self.criteria:
                _refuse("id", f"rollback {ident} has no criterion-met", "log rollback.criterion-met first")
            if ident in self.decisions:
                _refuse("id", f"rollback {ident} already has a decision", "use 'day60 correct' to change it")
            if at < self.criteria[ident]:
                _refuse("--at", f"{where} is before its criterion was met ({self.criteria[ident].isoformat()})",
                        "check the instant")
            self.decisions[ident] = at
        elif kind.startswith("rollback."):
            decided = self.decisions.get(ident)
            if decided is None:
                _refuse("id", f"rollback {ident} has no decision", "log rollback.decision first")
            if at < decided:
                _refuse("--at", f"{where} is before the decision ({decided.isoformat()})", "check the instant")
        elif kind == "report.received":
            if not re.fullmatch(r"[0-9]{4}-(0[1-9]|1[0-2])", ident):
                _refuse("--id", f"{where}: a report's id is the month it covers", "write it as YYYY-MM")
            self.reports.add(ident)
        elif kind == "report.element":
            period = data.get("period")
            if not self.reports or (period and period not in self.reports) or (not period and len(self.reports) > 1):
                _refuse("period", f"{where} names no received report",
                        "log report.received first, and set period=YYYY-MM when there are several")
        elif kind == "exercise.close":
            self.closed = True

    def _end_or_reopen(self, ident: str, kind: str, at: dt.datetime, where: str) -> None:
        """A restore, a ticket closure or a re-open (charter 3.19.4: the clock ends at the last
        confirmed restore). A second restore needs a re-open between; a re-open needs an end."""
        ending = self.endings.setdefault(ident, Ending())
        state = ending.state
        if kind == "incident.restored" and state == "restored":
            _refuse("KIND", f"{where}: incident {ident} is already restored ({ending.last_at.isoformat()})",
                    "if it relapsed, log incident.reopened first; to change the instant use 'day60 correct'")
        if kind == "incident.reopened":
            if state == "live":
                _refuse("KIND", f"{where}: incident {ident} is neither restored nor closed",
                        "an incident is re-opened only after a restore or a ticket closure")
            ended = ending.last_at if state == "restored" else ending.closed_at
            if at < ended:
                _refuse("--at", f"{where} is before the {state} it re-opens ({ended.isoformat()})", "check the instant")
        elif ending.last == "reopened" and at < ending.last_at:
            _refuse("--at", f"{where} is before the incident was re-opened ({ending.last_at.isoformat()})",
                    "check the instant")
        ending.step(kind.split(".")[1], at)

    def _start_incident(self, ident: str, at: dt.datetime | None) -> None:
        if at is not None:
            self.incidents[ident] = min(at, self.incidents.get(ident, at))


def check_new(kind: str, data: dict[str, Any], sealed: bool) -> None:
    """Requirements on an event being written now (older journals are still read as they are).

    An injected onset is held by the runner (charter 3.18.3), so it must be sealed, and it names
    the class it shifts so a notice can be checked against it (3.18.7); a new safety sign-off
    attests that no live personal data is exposed (4.5.1).
    """
    if kind == "drift.onset" and data.get("source", "exercise") == "exercise":
        if not sealed:
            _refuse("--seal", "an injected onset must be sealed: the runner holds the injection time, not the "
                              "shared journal (charter 3.18.3)",
                    "add --seal HELD.json (a real drift found in the records is logged with --set source=organic)")
        if not data.get("affected_class"):
            _refuse("--set affected_class", "an injected onset must name the input class it shifts",
                    "add --set affected_class=... (a notice counts only if it names this class)")
    if kind == "safety.agreed" and data.get("no_live_personal_data") is not True:
        _refuse("--set no_live_personal_data", "a sign-off must attest that no live personal data is exposed, "
                                               "exfiltrated or breached (charter 4.5.1)",
                "add --set no_live_personal_data=true, or do not run the injection")


# ----- writing ------------------------------------------------------------------------------


@contextmanager
def _locked(path: Path) -> Iterator[int]:
    """The journal opened for appending under an exclusive lock (regular files only)."""
    import stat

    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_NONBLOCK)
    except FileNotFoundError as exc:
        raise InputError("JOURNAL", f"no journal at {path}", "create one with 'day60 new'") from exc
    except OSError as exc:
        raise InputError("JOURNAL", f"cannot open {path} for appending ({exc.strerror})",
                         "give the path of a journal made by 'day60 new'") from exc
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise InputError("JOURNAL", f"{path} is not a regular file", "give the path of a journal")
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield fd
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


def _write_line(fd: int, line: str, path: Path | str = "the journal") -> None:
    data = memoryview((line + "\n").encode("utf-8"))
    try:
        while data:
            data = data[os.write(fd, data):]
        os.fsync(fd)
    except OSError as exc:
        raise InputError("JOURNAL", f"could not append to {path} ({exc.strerror}); it may now end with a "
                         "partial line", f"free some space, then run 'day60 verify --repair {path}'") from exc


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
        header = _with_hash(Header.model_validate({**header, "hash": GENESIS}).model_dump(exclude={"hash"}))
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
        journal = read(tmp)
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
    return read(path)


class Batch:
    """Events appended together (an import): chained in order into a spool file beside the journal,
    then copied onto the journal's end in one locked write. The caller builds each event's data
    from typed values; a test reads every imported journal back through ``read`` to hold them to
    the models."""

    def __init__(self, journal: Journal, spool: Any) -> None:
        self.journal = journal
        self.spool = spool
        self.seq = journal.head["seq"]
        self.prev_line = journal.last_line
        self._prev = sha256_hex(journal.last_line)
        self._recorded_at = _quote(now_iso())
        self._quoted: dict[str, str] = {}
        self.head_hash: str = journal.head["hash"]
        self.count = 0

    def add(self, kind: str, ident: str, at: str, by: str, data: dict[str, Any]) -> None:
        if kind not in EVENT_MODELS:  # a kind is written unquoted below: only the closed set
            raise InputError("KIND", f"{kind!r} is not an event kind", "see 'day60 kinds'")
        """Append one event: the same bytes as ``canonical`` of the whole event (its keys in
        sorted order: at, by, data, hash, id, kind, prev, recorded_at, seq), built in pieces so
        that each value is encoded once."""
        self.seq += 1
        quoted = self._quoted.get(by) or self._quoted.setdefault(by, _quote(by))
        head = f'{{"at":{_quote(at)},"by":{quoted},"data":{canonical(data) if data else "{}"}'
        tail = (f',"id":{_quote(ident)},"kind":"{kind}","prev":"{self._prev}","recorded_at":'
                f'{self._recorded_at},"seq":{self.seq}}}')
        own = sha256_hex(head + tail)
        line = f'{head},"hash":"{own}"{tail}'
        self.spool.write(line + "\n")
        self.prev_line = line
        self._prev = sha256_hex(line)
        self.head_hash = own
        self.count += 1


@contextmanager
def batch(path: str | Path, reader: Any = None) -> Iterator[Batch]:
    """Append many events under one lock; on any error nothing reaches the journal.

    ``reader(path)`` reads the journal under the lock (``read`` unless given; ``day60.reading.batch``
    gives the engine's, for a large journal): the journal never chooses a reader itself."""
    import tempfile

    path = Path(path)
    with _locked(path) as fd:
        journal = (reader or read)(path)
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
            b = Batch(journal, spool)
            yield b
            try:
                spool.flush()
                spool.seek(0)
                raw = spool.buffer
                while chunk := raw.read(1 << 20):
                    view = memoryview(chunk)
                    while view:
                        view = view[os.write(fd, view):]
                os.fsync(fd)
            except OSError as exc:
                raise InputError("JOURNAL", f"could not append to {path} ({exc.strerror}); it may now end with a "
                                 "partial line", f"free some space, then run 'day60 verify --repair {path}' and "
                                 "import again (a repeated import adds only what is missing)") from exc


def _event(journal: Journal, kind: str, ident: str, at: str | None, by: str, data: dict[str, Any]) -> dict[str, Any]:
    return _new_event(len(journal.events) + 1, sha256_hex(journal.last_line), kind, ident, at, by, data)


def _new_event(seq: int, prev: str, kind: str, ident: str, at: str | None, by: str,
               data: dict[str, Any]) -> dict[str, Any]:
    """One event, validated against its kind's model and hashed; ``prev`` is the last line's SHA-256."""
    if kind not in KINDS:
        raise InputError("KIND", f"{kind!r} is not an event kind", "see 'day60 kinds' for the list")
    event = {"seq": seq, "kind": kind, "id": ident, "at": at, "recorded_at": now_iso(),
             "by": by, "data": data, "prev": prev}
    event = _with_hash(event)
    try:
        validated = EVENT_MODELS[kind].model_validate(event)
    except ValidationError as exc:
        raise _event_problem(kind, exc) from exc
    if at is None and not (kind == "drift.onset" and data.get("commitment")):
        raise InputError("--at", "is missing", "give the instant; only a sealed drift.onset is logged without one")
    # Store the validated, typed data ("yes" becomes true, "2" becomes 2), then re-hash.
    event["data"] = validated.model_dump(mode="json", include={"data"}, exclude_none=True)["data"]
    return _with_hash(event)


def _event_problem(kind: str, exc: ValidationError) -> InputError:
    """Every missing and unknown --set field at once; otherwise the first fault, named."""
    from day60.events import allowed_fields

    errors = exc.errors()
    missing = [e["loc"][1] for e in errors if e["type"] == "missing" and e["loc"][:1] == ("data",)]
    unknown = [e["loc"][1] for e in errors if e["type"] == "extra_forbidden" and e["loc"][:1] == ("data",)]
    allowed = ", ".join(allowed_fields(kind))
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
) -> dict[str, Any]:
    """Validate and append one event; returns it as written. Nothing is written on refusal.

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
    with _locked(path) as fd:
        if kind in ("correction", "reveal") or (kind == "resolve" and data.get("exclude")):
            # their effect reaches back (an exclusion names ids anywhere): the whole journal is replayed
            event = _append_replayed(path, fd, kind, ident, at, data, by)
            from day60.index import forget

            forget(path)
            return event
        return _append_indexed(path, fd, kind, ident, at, data, by, seal, elements)


def _append_indexed(path: Path, fd: int, kind: str, ident: str, at: dt.datetime | None, data: dict[str, Any],
                    by: str | None, seal: str | Path | None, elements: list[str] | None = None) -> dict[str, Any]:
    """An append that reads only the index's rows for its id: time independent of the journal's size."""
    from day60.index import Index

    idx = Index.open(path, fd)
    try:
        at_iso = at.isoformat() if at is not None else None
        held_entry = None
        if seal is not None:
            if kind != "drift.onset":
                raise InputError("--seal", f"only drift.onset can be sealed, not {kind}", "drop --seal")
            salt = secrets.token_hex(16)
            data["commitment"] = commitment(salt, ident, at_iso)
            held_entry = {"id": ident, "at": at_iso, "salt": salt, "commitment": data["commitment"]}
            at_iso = None
        event = _new_event(idx.seq + 1, idx.prev, kind, ident, at_iso, by or idx.header["runner"], data)
        if kind == "report.element":
            _check_element(ident, idx.header, elements)
        # A sealed onset is checked against the rules with its clear instant, which only the runner sees;
        # the index keeps the state a later replay will see, with the onset sealed.
        for view in ([{**event, "at": held_entry["at"]}] if held_entry else []) + [event]:
            state = idx.state_for(ident)
            state.apply_at(effective([view])[0])
        check_new(kind, event["data"], held_entry is not None)
        if held_entry is not None:
            _add_held(Path(seal), idx.header["hash"], {**held_entry, "seq": event["seq"]})
        line = canonical(event)
        _write_line(fd, line, path)
        idx.record(state, ident, line, fd)
    finally:
        idx.close()
    return event


def _append_replayed(path: Path, fd: int, kind: str, ident: str, at: dt.datetime | None, data: dict[str, Any],
                     by: str | None) -> dict[str, Any]:
    """A correction or a reveal: checked against a replay of the whole journal with it applied."""
    journal = read(path)
    if journal.partial is not None:
        raise InputError("JOURNAL", f"{path} ends with a partial line from an interrupted write",
                         f"run 'day60 verify --repair {path}' first")
    event = _event(journal, kind, ident, at.isoformat() if at is not None else None, by or journal.header["runner"],
                   data)
    check_rules([*journal.events, event])
    check_new(kind, event["data"], False)
    _write_line(fd, canonical(event), path)
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


def correct(path: str | Path, target: int, at: dt.datetime, reason: str, by: str | None = None) -> dict[str, Any]:
    """Append a correction of event ``target``'s instant; the original line stays."""
    try:
        return append(path, "correction", str(target), dt.datetime.now(dt.UTC),
                      {"target": target, "at": at.isoformat(), "reason": reason}, by)
    except InputError as exc:  # name the options a person typed, not the event's data fields
        names = {"--set target": "--seq", "--set reason": "--reason", "--set at": "--at", "--id": "--seq"}
        if exc.field in names:
            raise InputError(names[exc.field], exc.problem, exc.fix) from None
        raise


# ----- held (sealed) instants ---------------------------------------------------------------


class _HeldOnset(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: str
    at: str
    salt: str = Field(pattern=r"^[0-9a-f]{32}$")
    commitment: str = Field(pattern=r"^[0-9a-f]{64}$")
    seq: int = Field(ge=1, le=10**12)


class _Held(BaseModel):
    model_config = ConfigDict(extra="forbid")
    format: Literal["day60.held/1"]
    journal: str = Field(pattern=r"^[0-9a-f]{64}$")
    onsets: list[_HeldOnset]


def _add_held(path: Path, journal_hash: str, entry: dict[str, Any]) -> None:
    """Keep a sealed onset's clear instant in the runner's held file (mode 0600).

    Written before the journal line: a crash between the two leaves a held entry whose
    commitment the journal never received, which ``reveal`` reports as stray and skips; the
    other order could lose the instant itself.
    """
    from day60.files import write_atomic

    if os.path.lexists(path):
        held = load_held(path, "--seal")
        if held["journal"] != journal_hash:
            raise InputError("--seal", f"{path} holds instants for another journal", "use a new held file")
    else:
        held = {"format": "day60.held/1", "journal": journal_hash, "onsets": []}
    held["onsets"].append(entry)
    write_atomic(path, json.dumps(held, indent=2) + "\n", "--seal", mode=0o600)


def load_held(path: str | Path, field: str = "--held") -> dict[str, Any]:
    from day60.files import read_json

    held = read_json(path, field, "the held file written by --seal")
    try:
        return _Held.model_validate(held).model_dump()
    except ValidationError as exc:
        name, msg = pydantic_problem(exc)
        raise InputError(field, f"{path} is not a day60 held file ({name}: {msg})",
                         "give the file named with --seal when the onsets were logged") from exc


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
    journal = read(path)
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
    head: dict[str, Any] | None = None

    @property
    def ok(self) -> bool:
        return self.problem is None and not self.partial


def verify(path: str | Path, expect: str | None = None) -> VerifyReport:
    """Check every line: canonical JSON, schema, hash, chain, reveals and rules of fact.

    ``expect`` ("SEQ:HASH", a head printed by an earlier report) also catches a journal cut
    short or rewritten after that report: the chain alone cannot, having no outside anchor.
    """
    return scan(path, expect).report


@dataclass
class Scan:
    """What a streamed check of a whole journal found, and what an append needs from it."""

    report: VerifyReport
    header: dict[str, Any] | None = None
    last_line: str | None = None
    state: _State | None = None  # the rules' state after the last event


def scan(path: str | Path, expect: str | None = None) -> Scan:
    """The journal streamed, never held whole: one pass checks each line against the one before
    it, keeping corrections and reveals (which change earlier events) aside; a second pass reads
    only the lines they name and checks them; a third replays the rules of fact with their
    effect applied, as ``check_rules`` does over a journal in memory."""
    path = Path(path)
    anchor = parse_head(expect) if expect else None
    report = VerifyReport(path, 0, 0, None, False, 0, 0, 0)
    found = Scan(report)
    first = _first_pass(path, anchor[0] if anchor else None)
    report.problem, report.partial = first.problem, first.partial
    if report.problem:
        return found
    found.header, found.last_line = first.header, first.last_line
    head, fixers, anchored = first.head, first.fixers, first.anchored
    report.lines, report.events, report.head = head["seq"] + 1, head["seq"], head
    targets = {e["data"]["target"] for e in fixers}
    by_seq = {obj["seq"]: obj for n, line in _stream(path, None) if n - 1 in targets
              for obj in [_loads_line(line)]}
    try:
        _check_targets(fixers, by_seq)
        found.state = _replay(path, fixers)
    except InputError as exc:
        report.problem = f"line {getattr(exc, 'seq', 0) + 1}: breaks a rule of fact: {exc.problem}"
        return found
    if anchor is not None:
        report.problem = anchor_problem(anchor, report.events, lambda _seq: anchored)
        if report.problem:
            return found
    revealed = {e["data"]["target"] for e in fixers if e["kind"] == "reveal"}
    report.sealed = len(first.sealed - revealed)
    report.revealed = sum(1 for e in fixers if e["kind"] == "reveal")
    report.corrections = sum(1 for e in fixers if e["kind"] == "correction")
    return found


@dataclass
class _Lines:
    """What the first pass over a run of lines found (picklable: a worker process returns it)."""

    problem: str | None = None
    partial: bool = False
    header: dict[str, Any] | None = None
    head: dict[str, Any] | None = None
    last_line: str | None = None
    fixers: list[dict[str, Any]] = field(default_factory=list)  # corrections and reveals, in seq order
    sealed: set[int] = field(default_factory=set)  # sealed onsets
    anchored: str | None = None


_PARALLEL_BYTES = 32 * 1024 * 1024  # below this one process is quicker than two


def _first_pass(path: Path, anchor_seq: int | None) -> _Lines:
    """Every line checked against the one before it. A large journal is cut in two at a line
    boundary and the halves are checked at once in two processes (the second half's first line
    is checked against the first half's last); the first problem in file order is reported."""
    try:
        size = os.stat(path).st_size if os.path.isfile(path) else 0
    except OSError:
        size = 0  # the single pass opens it and names what is wrong
    if size < _PARALLEL_BYTES or (os.cpu_count() or 1) < 2 or "fork" not in _start_methods():
        return _check_lines(path, 0, None, 1, None, anchor_seq)
    cut, lines_before, previous = _cut(path, size // 2)
    if cut is None:
        return _check_lines(path, 0, None, 1, None, anchor_seq)
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("fork")) as pool:
        second = pool.submit(_check_lines, path, cut, None, lines_before + 1, previous, anchor_seq)
        one = _check_lines(path, 0, cut, 1, None, anchor_seq)
        two = second.result()
    if one.problem or two.problem:
        return one if one.problem else two
    return _Lines(None, two.partial, one.header, two.head, two.last_line, one.fixers + two.fixers,
                  one.sealed | two.sealed, one.anchored or two.anchored)


def _start_methods() -> list[str]:
    import multiprocessing

    return multiprocessing.get_all_start_methods()


def _cut(path: Path, near: int) -> tuple[int | None, int, str]:
    """The start of the first line after byte ``near``, the number of lines before it, and the
    line just before it (the one the second half chains to)."""
    with path.open("rb") as fh:
        fh.seek(near)
        fh.readline()
        cut = fh.tell()
        if cut >= os.path.getsize(path):
            return None, 0, ""
        fh.seek(max(0, cut - 1_000_000))
        tail = fh.read(cut - fh.tell())
        fh.seek(0)
        count, left = 0, cut
        while left > 0:
            block = fh.read(min(1 << 22, left))
            count += block.count(b"\n")
            left -= len(block)
    previous = tail[:-1].rsplit(b"\n", 1)[-1]
    try:
        return cut, count, previous.decode("utf-8")
    except UnicodeDecodeError:
        return None, 0, ""  # a damaged line at the cut: let one pass find and name it


def _check_lines(path: Path, start: int, stop: int | None, first: int, previous: str | None,
                 anchor_seq: int | None) -> _Lines:
    out = _Lines()
    report = VerifyReport(path, 0, 0, None, False, 0, 0, 0)
    for n, line in _stream(path, report, start, stop, first):
        obj, problem = check_line(n, line, previous)
        if problem:
            out.problem = f"line {n}: {problem}"
            return out
        if n == 1:
            out.header = obj
        elif obj["kind"] in ("correction", "reveal"):
            out.fixers.append(obj)
        elif obj["kind"] == "drift.onset" and obj["at"] is None:
            out.sealed.add(obj["seq"])
        out.head = {"seq": n - 1, "hash": obj["hash"]}
        if anchor_seq == n - 1:
            out.anchored = obj["hash"]
        previous = line
    out.problem, out.partial, out.last_line = report.problem, report.partial, previous
    if out.problem is None and out.head is None and first == 1:
        out.problem = "line 1: missing header"
    return out


def _stream(path: Path, report: VerifyReport | None, start: int = 0, stop: int | None = None,
            first: int = 1) -> Iterator[tuple[int, str]]:
    """The journal's complete lines from byte ``start`` to ``stop`` (a line boundary), numbered
    from ``first``, read in blocks. With ``report``, a line that is not UTF-8 is recorded as its
    problem and a partial last line as ``partial``."""
    from day60.files import MAX_JOURNAL_BYTES, open_regular

    fd = open_regular(path, "JOURNAL", "a journal made by 'day60 new'", MAX_JOURNAL_BYTES)
    with os.fdopen(fd, "rb") as fh:
        fh.seek(start)
        left = None if stop is None else stop - start
        n, rest = first - 1, b""
        while block := fh.read(1 << 22 if left is None else min(1 << 22, left)):
            if left is not None:
                left -= len(block)
            parts = (rest + block).split(b"\n")
            rest = parts.pop()
            for raw in parts:
                n += 1
                try:
                    yield n, raw.decode("utf-8")
                except UnicodeDecodeError:
                    if report is not None:
                        report.problem = f"line {n}: is not UTF-8 text; the journal has been damaged"
                    return
        if rest and report is not None:
            report.partial = True


def _replay(path: Path, fixers: list[dict[str, Any]]) -> _State:
    """The rules of fact over the streamed journal, each event at its corrected or revealed time."""
    fixed: dict[int, tuple[str, str]] = {}
    for e in fixers:
        fixed[e["data"]["target"]] = (e["kind"], e["data"]["at"])
    state = _State()
    for n, line in _stream(path, None):
        if n == 1:
            continue
        e = _loads_line(line)
        kind = e["kind"]
        if kind in ("correction", "reveal"):
            continue
        fix = fixed.get(e["seq"])
        at_text = fix[1] if fix else e["at"]
        revealed = bool(fix and fix[0] == "reveal")
        at = dt.datetime.fromisoformat(at_text) if at_text else None
        state.apply_at(Effective(e["seq"], kind, e["id"], at, e["data"], e["at"],
                                 sealed=at is None and "commitment" in e["data"], revealed=revealed))
    return state


def anchor_problem(anchor: tuple[int, str], events: int, hash_at: Any) -> str | None:
    """What ``verify --expect SEQ:HASH`` finds wrong with a journal of ``events`` events, or None;
    ``hash_at(seq)`` gives the hash the journal holds at that seq."""
    seq, digest = anchor
    if seq > events:
        return f"the journal ends at seq {events}, but a report saw it reach seq {seq}: events were removed since"
    anchored = hash_at(seq)
    if anchored != digest:
        return (f"seq {seq} has hash {str(anchored)[:12]}..., but a report recorded {digest[:12]}...: "
                "the journal was rewritten since")
    return None


def parse_head(text: str) -> tuple[int, str]:
    """Read "SEQ:HASH" as printed by a report; InputError naming --expect otherwise."""
    seq, sep, digest = (text or "").strip().partition(":")
    if not sep or not seq.isascii() or not seq.isdigit() or len(seq) > 12 \
            or not re.fullmatch(r"[0-9a-f]{64}", digest):
        raise InputError("--expect", f"{text[:80]!r} is not SEQ:HASH",
                         "copy the journal head a report printed, e.g. 12:3f5c...(64 hex digits)")
    return int(seq), digest


def check_line(n: int, line: str, previous: str | None) -> tuple[Any, str | None]:
    """A line parsed, and what is wrong with it (canonical form, own hash, then as ``check_event``)."""
    obj, problem = parse_line(n, line)
    if problem:
        return obj, problem
    if not isinstance(obj, dict):
        return obj, "not a JSON object"
    if canonical(obj) != line:
        return obj, "not in canonical form (the line was edited)"
    if own_hash(line, obj) != obj.get("hash"):
        return obj, "its hash does not match its content (the line was edited)"
    if previous is None:
        return obj, check_header(obj)
    return obj, check_event(n, obj, previous)


def own_hash(line: str, obj: dict[str, Any]) -> str:
    """The SHA-256 of a canonical line without its "hash" member, taken by cutting the member out
    of the line (keys are sorted and no value after "hash" holds an object, so the last
    occurrence is the top-level one); anything unexpected falls back to re-encoding."""
    value = obj.get("hash")
    member = f',"hash":"{value}"' if isinstance(value, str) else None
    at = line.rfind(member) if member else -1
    if at < 0:
        return _with_hash(obj)["hash"]
    return sha256_hex(line[:at] + line[at + len(member):])


def repair(path: str | Path) -> Path | None:
    """Move a partial last line to ``<journal>.partial``; returns that file, or None if none."""
    path = Path(path)
    with _locked(path):
        with path.open("rb") as fh:
            raw = fh.read()
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

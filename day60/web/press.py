"""One press of a page or one JSON request, turned into an append through ``journal.append``.

The server's clock is the stamp: "now" is the instant the request arrived. A time typed is read
as ``day60 log`` reads ``--at``. A press a browser queued while it had lost the connection
arrives with two readings of the browser's own clock, when it was pressed and when it was sent;
the line's instant is the server's arrival time less the wait the browser measured (so a browser
clock that is wrong does not move it), and the browser's reading of the press is kept in the
line's data as ``pressed_at``, which marks the line "recorded late" wherever it is shown.

Who may do what is the only thing decided here, and the journal's rules decide everything else:
only the runner's page, on the machine holding the held file, seals an onset or reveals; only
the runner starts an injection, records one not run, resolves a dispute and closes the exercise;
a correction is made by the author of the line or the runner.

A page other than the runner's is never told, by a refusal any more than by a line, that a
sealed onset exists: what it may not do is refused from the lines it can see, and a refusal that
would name a sealed line is answered as if the line were not there.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from day60 import checklist, journal, timeparse
from day60.errors import InputError
from day60.web.room import Participant, Room

API_FIELDS = ("kind", "id", "at", "data", "seal", "pressed_at", "sent_at")
LONGEST_QUEUE = dt.timedelta(days=7)  # a press queued longer than this is refused, not guessed at


class Forbidden(InputError):
    """What this participant's page may not do (HTTP 403)."""


@dataclass
class Press:
    kind: str
    ident: str
    at: str | None = None  # typed; None: the server's stamp
    data: dict[str, Any] = field(default_factory=dict)
    seal: bool = False
    pressed_at: str | None = None  # the browser's clock at the press (a press sent late)
    sent_at: str | None = None  # the browser's clock when it was sent
    confirm: bool = False  # the person has seen the warnings and records it anyway
    end_pauses_at: str | None = None  # before a restore: end the open waits at this time ("" = now)


@dataclass
class Outcome:
    events: list[dict[str, Any]]  # the lines appended, in order
    warnings: list[str]
    when: dt.datetime | None = None
    held_at: str | None = None  # a sealed onset's instant: answered to the runner's page alone
    unconfirmed: bool = False  # warnings to confirm; nothing was written


def from_json(body: Any) -> Press:
    """A JSON request's fields, every wrong one named."""
    if not isinstance(body, dict):
        raise InputError("body", "must be a JSON object", f"send an object with {', '.join(API_FIELDS)}")
    unknown = sorted(set(body) - set(API_FIELDS))
    if unknown:
        raise InputError(", ".join(str(u)[:40] for u in unknown), "is not a field of an event request",
                         f"send only {', '.join(API_FIELDS)}")
    problems = []
    for name in ("kind", "id"):
        if not isinstance(body.get(name), str):
            problems.append(name)
    for name in ("at", "pressed_at", "sent_at"):
        if body.get(name) is not None and not isinstance(body[name], str):
            problems.append(name)
    data = body.get("data", {})
    if data is None:
        data = {}
    if not isinstance(data, dict) or not all(isinstance(k, str) for k in data):
        problems.append("data")
    if "seal" in body and not isinstance(body["seal"], bool):
        problems.append("seal")
    if problems:
        raise InputError(", ".join(problems), "is missing or of the wrong type",
                         "kind and id are text; at, pressed_at and sent_at are ISO 8601 text; data is an object "
                         "of fields as 'day60 kinds' lists them; seal is true or false")
    return Press(body["kind"], body["id"], body.get("at"), dict(data), bool(body.get("seal", False)),
                 body.get("pressed_at"), body.get("sent_at"))


def _browser_time(text: str, name: str) -> dt.datetime:
    try:
        value = timeparse.parse_iso(text)
    except ValueError as exc:
        raise InputError(name, f"{text[:40]!r} {exc}", "send the browser's clock as ISO 8601 with its offset") from None
    if value.tzinfo is None:
        raise InputError(name, "has no UTC offset", "send the browser's clock as ISO 8601 with its offset")
    return value


def instant(room: Room, press: Press, stamp: dt.datetime) -> tuple[dt.datetime, str | None, dt.datetime]:
    """The instant to record, the browser's own reading of a press sent late (or None), and what
    "now" meant for this press (the server's arrival time, less a late press's wait)."""
    late = None
    if (press.pressed_at is None) != (press.sent_at is None):
        raise InputError("pressed_at, sent_at", "a press sent late carries both readings of the browser's clock",
                         "send pressed_at and sent_at together, or neither")
    if press.pressed_at is not None:
        pressed = _browser_time(press.pressed_at, "pressed_at")
        sent = _browser_time(press.sent_at or "", "sent_at")
        waited = sent - pressed
        if not dt.timedelta(0) <= waited <= LONGEST_QUEUE:
            raise InputError("pressed_at", f"the browser says it waited {waited} to send this press",
                             "a queued press is sent within seven days of being made, and after it")
        late = pressed.astimezone(dt.UTC).isoformat()
        when = stamp - waited
    else:
        when = stamp
    now = when
    if press.at is not None and press.at.strip():
        when = timeparse.parse_instant(press.at, room.tz, "--at", now)
    return when, late, now


SIGNERS = ("runner", "stop owner", "rollback owner")  # who records a safety sign-off


RUNNER_ONLY = ("exercise.close", "injection.not-run", "reveal", "resolve")


def may_record(who: Participant, kind: str) -> bool:
    """Whether ``who`` records ``kind`` at all (the sign-off is its signers'; the close, a not-run
    injection and the decision on a dispute the runner's)."""
    if kind == "safety.agreed":
        return who.role in SIGNERS
    if kind in RUNNER_ONLY:
        return who.runner
    return True


BEGINS = ("drift.onset", "incident.detected", "incident.partner-notice", "rollback.criterion-met")


def starts_injection(kind: str, data: dict[str, Any]) -> bool:
    """Whether a line of ``kind`` with ``data`` starts an injection (the journal's safety gate
    applies to it): the sealed onset, the raised incident, the forced production rollback."""
    injected = data.get("source", "exercise") == "exercise"
    return kind == "incident.raised" or (injected and kind == "drift.onset") or (
        injected and kind == "rollback.criterion-met" and data.get("kind") == "production")


def allowed(room: Room, who: Participant, press: Press, local: bool, shown: list[dict[str, Any]]) -> None:
    """Refuse what this participant's page may not do (the journal's rules decide the rest), from
    ``shown``, the lines this participant may see in the view the press is decided on."""
    if press.seal:
        if not who.runner or not local:
            raise Forbidden("seal", "only the runner's page, on the machine that holds the held file, can record "
                                     "and seal an injected onset", "ask the runner to record it")
        if room.held is None:
            raise InputError("seal", "this server was started without a held file, so it cannot seal an onset",
                             "restart it with 'day60 serve JOURNAL --held FILE'")
        if press.pressed_at is not None:
            raise InputError("seal", "a sealed onset is never sent late: the browser's time of the press would be "
                                     "written to the shared journal beside the seal",
                             "type the time of the injection and record it again")
    if press.kind == "reveal":
        raise Forbidden("kind", "a reveal is made by the runner's reveal button, which reads the held file",
                         "use the runner's page on the machine that holds the held file")
    if press.kind == "exercise.close" and not who.runner:
        raise Forbidden("kind", "only the runner closes the exercise", "ask the runner")
    if not may_record(who, press.kind):
        who_may = "the runner, the stop owner or the rollback owner" if press.kind == "safety.agreed" else "the runner"
        raise Forbidden("kind", f"{press.kind} is recorded by {who_may}", f"ask {who_may}")
    if who.runner:
        return
    if starts_injection(press.kind, press.data):
        raise Forbidden("kind", f"{press.kind} starts an injection, which only the runner does",
                        "ask the runner; a real incident or rollback is recorded with source organic")
    # Under a signed-off injection's id, what begins a drift, an incident or a rollback is the
    # runner's until the runner has begun it: anyone else's would take the id (the runner's own start
    # is then refused as a second one) and choose its facts, such as an incident's severity. Decided
    # from the lines this page can see, never from the sealed onset it cannot.
    if press.kind in BEGINS and any(e["kind"] == "safety.agreed" and e["id"] == press.ident for e in shown):
        raised = any(e["kind"] == "incident.raised" and e["id"] == press.ident for e in shown)
        if not (press.kind.startswith("incident.") and raised):
            raise Forbidden("id", f"{press.ident[:60]} is the id of a signed-off injection, which only the runner "
                                  "starts", "give a real drift, incident or rollback an id of its own")


def record(room: Room, who: Participant, press: Press, stamp: dt.datetime, local: bool,
           warn_only: bool = False) -> Outcome:
    """Check and append one press (blocking: call it in a worker thread). ``warn_only``: stop before
    writing when there are warnings the person has not confirmed.

    Presses are decided one at a time, each on one view of the journal taken after looking at
    the file: a line another press, 'day60 log' or an import has just written is part of it. A
    view a moment old let a participant correct a line it did not write, begin an injection
    signed off a moment before, or hear from the journal's refusal that a sealed onset had
    just been written."""
    with room.pressing:
        room.refresh()
        return _record(room, who, press, stamp, local, warn_only)


def _record(room: Room, who: Participant, press: Press, stamp: dt.datetime, local: bool,
            warn_only: bool) -> Outcome:
    if room.problem:
        raise InputError("JOURNAL", f"{room.path} no longer verifies ({room.problem})",
                         f"stop the server and run 'day60 verify {room.path}'")
    events, shown = room.lines(who)  # one view for every decision below
    allowed(room, who, press, local, shown)
    written_by_us = sorted({"commitment", "pressed_at"} & set(press.data))
    if written_by_us:
        raise InputError(", ".join(f"data.{k}" for k in written_by_us), "is written by the toolkit itself",
                         "seal with \"seal\": true; a press sent late carries pressed_at and sent_at beside data")
    when, late, now = instant(room, press, stamp)
    data = dict(press.data)
    if late is not None:
        data["pressed_at"] = late
    held_at = None
    if who.runner and local and room.held is not None and room.held.exists():
        held_at = checklist.held_instants(journal.load_held(room.held), events)
    warned = checklist.warnings(room.header, press.kind, press.ident, when, timeparse.now(), held_at)
    if warned and warn_only and not press.confirm:
        return Outcome([], warned, when, unconfirmed=True)
    lines: list[tuple[str, dt.datetime, dict[str, Any]]] = []
    if press.kind == "incident.restored" and press.end_pauses_at is not None:
        for pause in checklist.open_pauses(events, press.ident):
            end = timeparse.parse_instant(press.end_pauses_at, room.tz, "pause end", now) \
                if press.end_pauses_at.strip() else now
            lines.append((f"incident.{pause}-end", end, {"pressed_at": late} if late else {}))
    if press.kind == "correction":
        data = _correction(room, who, data, stamp, events, shown)
    if lines:  # the ends and the restore are checked together: all of them are written, or none
        _check_together(events, press.ident, [*lines, (press.kind, when, data)])
    written = []
    try:
        for kind, at, fields in lines:
            written.append(journal.append(room.path, kind, press.ident, at, fields, who.by))
        written.append(journal.append(room.path, press.kind, press.ident, when, data, who.by,
                                      room.held if press.seal else None))
    except InputError as exc:
        room.failed(exc)
        raise
    finally:
        room.refresh()
    shown_held = when.isoformat() if written[-1]["at"] is None else None
    return Outcome(written, warned, when, shown_held)


def _check_together(events: list[dict[str, Any]], ident: str,
                    lines: list[tuple[str, dt.datetime, dict[str, Any]]]) -> None:
    """The journal's refusal of any of ``lines`` (appended in order to ``ident`` after ``events``),
    before any is written."""
    from pydantic import ValidationError

    from day60.events import DATA_MODELS

    candidates = []
    for seq, (kind, at, data) in enumerate(lines, start=len(events) + 1):
        try:
            typed = DATA_MODELS[kind].model_validate(data).model_dump(mode="json", exclude_none=True)
        except ValidationError as exc:
            raise journal.event_problem(kind, exc) from None
        candidates.append({"seq": seq, "kind": kind, "id": ident, "at": at.isoformat(), "data": typed})
    journal.check_rules([*events, *candidates])


def _correction(room: Room, who: Participant, data: dict[str, Any], stamp: dt.datetime,
                events: list[dict[str, Any]], shown: list[dict[str, Any]]) -> dict[str, Any]:
    """A correction's data with its instant read as typed; the author of the line or the runner
    alone corrects it. The target is read as the journal reads it (true, 1.0 and " 01 " all name
    seq 1), and must be a line of ``shown``: one this participant cannot see, whether sealed or
    written after the view was taken, is answered as the journal answers a seq it does not hold,
    so that the refusal tells nothing of it."""
    from pydantic import ValidationError

    from day60.events import DATA_MODELS

    try:
        target = DATA_MODELS["correction"].model_validate({**data, "at": stamp.isoformat()}).target  # type: ignore[attr-defined]
    except ValidationError as exc:
        raise journal.event_problem("correction", exc) from None
    line = next((e for e in shown if e["seq"] == target), None)
    if line is None:
        raise InputError("--seq", f"{target} is not an earlier event that carries a time",
                         "name the seq of the event to correct (see 'day60 show')")
    if not who.runner and line["by"] != who.by:
        raise Forbidden("--set target", f"line {line['seq']} was recorded by {line['by']}",
                         "ask its author or the runner to correct it")
    out = {**data, "target": target}
    if isinstance(data.get("at"), str) and data["at"].strip():
        out["at"] = timeparse.parse_instant(data["at"], room.tz, "--set at", stamp).isoformat()
    return out


def reveal(room: Room, who: Participant, local: bool) -> journal.Revealed:
    if not who.runner or not local or room.held is None:
        raise Forbidden("reveal", "only the runner's page, on the machine that holds the held file, can reveal",
                         "ask the runner")
    with room.pressing:
        try:
            return journal.reveal(room.path, room.held, who.by)
        finally:
            room.refresh()

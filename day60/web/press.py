"""One press of a page or one JSON request, turned into an append through ``journal.append``.

The server's clock is the stamp: "now" is the instant the request arrived. A time typed is read
as ``day60 log`` reads ``--at``. A press a browser queued while it had lost the connection
arrives with two readings of the browser's own clock, when it was pressed and when it was sent;
the line's instant is the server's arrival time less the wait the browser measured (so a browser
clock that is wrong does not move it), and the browser's reading of the press is kept in the
line's data as ``pressed_at``, which marks the line "recorded late" wherever it is shown.

Who may write what is the access list's (``day60.permissions``, the table in
``roles/permissions-v1.yaml``), asked with the participant as it joined, and the journal's rules
decide everything else; decided here is only what the transport adds: only the runner's page, on
the machine holding the held file, seals an onset or reveals.

A page other than the runner's is never told, by a refusal any more than by a line, that a
sealed onset exists: what it may not do is refused from the lines it can see, and a refusal that
would name a sealed line is answered as if the line were not there.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field, replace
from typing import Any

from day60 import checklist, journal, permissions, timeparse
from day60.errors import InputError
from day60.events import DATA_MODELS
from day60.web import words
from day60.web.room import Participant, Room

API_FIELDS = ("kind", "id", "at", "data", "seal", "pressed_at", "sent_at", "press_key")
KEY = re.compile(r"[A-Za-z0-9_-]{8,64}")
LONGEST_QUEUE = dt.timedelta(days=7)  # a press queued longer than this is refused, not guessed at


Forbidden = permissions.NotPermitted  # what this participant's page may not do (HTTP 403)


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
    key: str | None = None  # the page's key for this press: sent again, it is answered, not written again
    asked: str | None = None  # a close confirmed: the digest of what was still open when it was asked


@dataclass
class Outcome:
    events: list[dict[str, Any]]  # the lines appended, in order
    warnings: list[str]
    when: dt.datetime | None = None
    held_at: str | None = None  # a sealed onset's instant: answered to the runner's page alone
    unconfirmed: bool = False  # warnings to confirm; nothing was written
    replayed: bool = False  # the press had been recorded already (its answer was lost): nothing more written
    asked: str | None = None  # a close's question: the digest of what it lists as still open
    changed: list[str] = field(default_factory=list)  # a close confirmed: what changed since it was asked


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
    for name in ("at", "pressed_at", "sent_at", "press_key"):
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
                 body.get("pressed_at"), body.get("sent_at"), key=body.get("press_key"))


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


def may_record(who: Participant, kind: str) -> bool:
    """Whether ``who`` records ``kind`` at all, as the access list says (the page offers no step
    its role may not take)."""
    return permissions.may_record(who.role, kind)


def allowed(room: Room, who: Participant, press: Press, local: bool, events: list[dict[str, Any]]) -> None:
    """Refuse what this participant's page may not do: what the transport decides (a seal is made
    on the runner's own machine, into the held file, never sent late; a reveal is the runner's
    button), then the access list, decided from the lines this participant may see in ``events``
    (``journal.append`` asks it again under the journal's lock, and the rules of fact decide the rest)."""
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
    if press.kind == "reveal" and who.runner:
        raise Forbidden("kind", "a reveal is made by the runner's reveal button, which reads the held file",
                         "use the runner's page on the machine that holds the held file")
    if press.kind in DATA_MODELS:  # an unknown kind is named by the journal's own refusal
        permissions.authorise(who.actor, press.kind, press.ident, press.data, room.header, seal=press.seal,
                              lines=events)


def record(room: Room, who: Participant, press: Press, stamp: dt.datetime, local: bool,
           warn_only: bool = False) -> Outcome:
    """Check and append one press (blocking: call it in a worker thread). ``warn_only``: stop before
    writing when there are warnings the person has not confirmed.

    Presses are decided one at a time, each on one view of the journal taken after looking at
    the file: a line another press, 'day60 log' or an import has just written is part of it. A
    view a moment old let a participant correct a line it did not write, begin an injection
    signed off a moment before, or hear from the journal's refusal that a sealed onset had
    just been written."""
    if press.key is not None and not KEY.fullmatch(press.key):
        raise InputError("press_key", "is not a key a page makes", "send 8 to 64 letters, digits, - or _, or none")
    with room.pressing:
        room.refresh()
        if press.key is not None:
            # The same press sent again (its answer was lost to a dropped connection or a server
            # stopped mid-press, and the page queued it): answered from the lines it wrote.
            done = room.pressed(press.key, who.by)
            if done:
                return Outcome([room.as_seen(who, e) for e in done], [], None, replayed=True)
        return _record(room, who, press, stamp, local, warn_only)


def _record(room: Room, who: Participant, press: Press, stamp: dt.datetime, local: bool,
            warn_only: bool) -> Outcome:
    if room.problem:
        raise InputError("JOURNAL", f"{room.path} no longer verifies ({room.problem})",
                         f"stop the server and run 'day60 verify {room.path}'")
    events, view = room.lines(who)  # one view for every decision below (the access list takes what who may see)
    when, late, now = instant(room, press, stamp)
    data = dict(press.data)
    if press.kind == "correction":
        data = _correction(room, data, stamp)
    elif press.kind in ("accept", "reject", "resolve") and isinstance(data.get("target"), str) \
            and data["target"].strip().isdigit():
        # A page's form sends the seq as text: read as a number here, so that a page numbering
        # lines in its own view has it turned into the journal's seq (text was passed on as it
        # was, and the journal read it as its own seq: another line, after a sealed onset).
        data["target"] = int(data["target"].strip())
    # A page other than the runner's numbers lines as its own view does (room.renumbered): the
    # access list decides on that view, in its numbers, so no refusal names a journal seq; the line
    # named is then written under its journal seq.
    if press.kind in ("accept", "reject"):
        _not_judged(room, view, data.get("target"))
    allowed(room, who, replace(press, data=data), local, events if who.runner else view)
    named = data.get("target") if press.kind in ("correction", "accept", "reject", "resolve") else None
    if not who.runner and named is not None:
        data["target"] = room.journal_seq(named)
    ident = press.ident
    if press.kind == "correction" and isinstance(data.get("target"), int):
        # A correction's id is the journal's seq of the line it corrects, as 'day60 correct' writes
        # it, whatever the page sent (a page numbering lines in its own view sent its own number,
        # and the journal then read differently for each participant).
        ident = str(data["target"])
    held_at = None
    if who.runner and local and room.held is not None and room.held.exists():
        held_at = checklist.held_instants(journal.load_held(room.held), events)
    warned = checklist.warnings(room.header, press.kind, ident, when, timeparse.now(), held_at)
    fixed = next((e for e in events if e["seq"] == data.get("target")), None) if press.kind == "correction" else None
    if fixed is not None and isinstance(data.get("at"), str):
        # The question a press of the corrected line would be asked, of the time the correction gives
        # it (in the future, outside the window, before a sealed onset): the correction's own line is
        # stamped now, and was asked nothing.
        warned = checklist.warnings(room.header, fixed["kind"], fixed["id"], dt.datetime.fromisoformat(data["at"]),
                                    timeparse.now(), held_at)
    warned = repeated(view, press.kind, ident) + warned
    asked = None
    if warn_only and press.kind == "exercise.close":
        warned += closing(view, who)
        asked = str(view[-1]["seq"] if view else 0)
        if press.confirm and press.asked is not None and press.asked != asked:
            # Lines arrived between the question and "Close it": what is still open may have
            # changed, so the runner is asked again, told what is new, and nothing is written.
            since = int(press.asked) if press.asked.isdigit() else 0
            new = [f"new since you were asked: seq {e['seq']}, {words.kind_words(e['kind'])} {e['id']}"
                   f" by {e['by'] or 'the toolkit'}" for e in view if e["seq"] > since]
            return Outcome([], warned, when, unconfirmed=True, asked=asked, changed=new)
    if warned and warn_only and not press.confirm:
        return Outcome([], warned, when, unconfirmed=True, asked=asked)
    lines: list[tuple[str, dt.datetime, dict[str, Any]]] = []
    if press.kind == "incident.restored" and press.end_pauses_at is not None:
        for pause in checklist.open_pauses(events, press.ident):
            end = timeparse.parse_instant(press.end_pauses_at, room.tz, "pause end", now) \
                if press.end_pauses_at.strip() else now
            lines.append((f"incident.{pause}-end", end, {"pressed_at": late} if late else {}))
    if lines:  # the ends and the restore are checked together: all of them are written, or none
        _check_together(events, press.ident, [*lines, (press.kind, when, data)])
    written = []
    try:
        for kind, at, _fields in lines:
            written.append(journal.append(room.path, kind, ident, at, {}, actor=who.actor, pressed_at=late,
                                          press_key=press.key))
        written.append(journal.append(room.path, press.kind, ident, when, data,
                                      seal=room.held if press.seal else None, actor=who.actor, pressed_at=late,
                                      press_key=press.key))
    except InputError as exc:
        room.failed(exc)
        if not who.runner and named is not None and data["target"] != named:
            raise _in_own_numbers(exc, data["target"], named) from None
        raise
    finally:
        room.refresh()
    shown_held = when.isoformat() if written[-1]["at"] is None else None
    return Outcome([room.as_seen(who, e) for e in written], warned, when, shown_held)


def _not_judged(room: Room, view: list[dict[str, Any]], target: Any) -> None:
    """Refuse a judgement of a claim already judged, saying who judged it and when (the journal's
    own refusal says only that a claim is judged once)."""
    verdict = permissions.judgements(view).get(target) if isinstance(target, int) else None
    if verdict is None:
        return
    done = "accepted" if verdict["kind"] == "accept" else "rejected"
    when = words.shown_at(verdict["recorded_at"] or verdict["at"], room.tz)
    raise InputError("entry", f"{verdict['by'] or 'the toolkit'} already {done} this claim at {when} "
                              f"(seq {verdict['seq']})",
                     "nothing more to record: a claim is judged once")


def _in_own_numbers(exc: InputError, seq: int, number: Any) -> InputError:
    """The journal's refusal of a line naming ``seq``, told in the number the page knows it by."""
    import re

    def swap(text: str) -> str:
        return re.sub(rf"(?<![0-9]){seq}(?![0-9])", str(number), text)

    return type(exc)(exc.field, swap(exc.problem), swap(exc.fix))


# Milestones an id has once: a second line of the same kind for the same id is almost always two
# people pressing the same button, so it is confirmed first, naming the line already there.
ONCE = {"safety.agreed", "injection.stopped", "injection.not-run", "drift.onset", "drift.detected", "drift.notice",
        "drift.announced", "drift.told", "incident.raised", "incident.detected", "incident.partner-notice",
        "incident.communicated", "rollback.criterion-met", "rollback.decision", "rollback.serving",
        "rollback.smoke-pass", "rollback.requeue-complete", "rollback.data-restore", "exercise.close"}


def repeated(visible: list[dict[str, Any]], kind: str, ident: str) -> list[str]:
    """A warning naming the line that already records milestone ``kind`` for ``ident`` among the
    lines this participant may see (so a sealed line is never named), or none."""
    if kind not in ONCE:
        return []
    earlier = next((e for e in reversed(visible) if e["kind"] == kind and e["id"] == ident), None)
    if earlier is None:
        return []
    at = f" at {dt.datetime.fromisoformat(earlier['at']).replace(microsecond=0).isoformat()}" if earlier["at"] else ""
    return [f"seq {earlier['seq']} already records the {kind} for {ident}, by {earlier['by'] or 'the toolkit'}{at}: "
            "record it again only if this is a second, different one"]


def closing(visible: list[dict[str, Any]], who: Participant) -> list[str]:
    """What the runner confirms before the close: that it cannot be undone, and what is still open."""
    still = [item for items in checklist.status(visible, seals_hidden=not who.runner).values() for item in items]
    out = ["closing cannot be undone: after the close only corrections, disputes and the reveal can be recorded"]
    out += [f"still open: {item}" for item in still] or ["nothing is still open"]
    return out


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


def _correction(room: Room, data: dict[str, Any], stamp: dt.datetime) -> dict[str, Any]:
    """A correction's data with its target read as the journal reads it (true, 1.0 and " 01 " all
    name seq 1) and its instant read as typed. Whose line it may correct, and whether the line is
    one this participant can see (a sealed one is answered as a seq the journal does not hold, so
    the refusal tells nothing of it), the access list decides."""
    from pydantic import ValidationError

    try:
        target = DATA_MODELS["correction"].model_validate({**data, "at": stamp.isoformat()}).target  # type: ignore[attr-defined]
    except ValidationError as exc:
        raise journal.event_problem("correction", exc) from None
    out = {**data, "target": target}
    if isinstance(data.get("at"), str) and data["at"].strip():
        try:
            out["at"] = timeparse.parse_instant(data["at"], room.tz, "--set at", stamp).isoformat()
        except InputError as exc:
            if not exc.problem.endswith("is not a date and time"):
                raise
            # The right time is what a correction is: never "leave it empty", which the room offers
            # for a press's own time (stamped on arrival).
            raise InputError(exc.field, exc.problem, "type the right time, such as 2026-03-02 09:00 (read as "
                             f"{room.header['calendar']['timezone']} time), or with its offset") from None
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

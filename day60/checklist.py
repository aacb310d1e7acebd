"""What the live checklist offers next: open items of a journal, the steps that follow, the
fields each kind asks, and the warnings a person should see before a time is recorded.

Pure data from a journal; ``live`` (a terminal) and ``web`` (a browser) do the asking, and
``journal.append`` decides what is accepted. Nothing here refuses anything.
"""

from __future__ import annotations

import datetime as dt
import typing
from dataclasses import dataclass
from typing import Any

from day60.events import DATA_MODELS
from day60.journal import Effective, effective

# Written by the toolkit itself, never asked: a note is free text a script may add; the rest
# are a seal's commitment, a reveal's salt, a correction's target and a late press's own time.
_AUTOMATIC = {"note", "commitment", "period", "target", "salt", "pressed_at", "press_key"}
# Asked even though optional: injected or organic decides the safety gate and the seal; the class
# an onset shifts is what a notice must name; a partner notice may state the severity; a new
# sign-off must attest that no live personal data is touched; an element may not apply.
_ALWAYS_ASKED = {"source", "affected_class", "severity", "no_live_personal_data", "not_applicable"}
# Yes/no questions whose answer must be typed, never taken from a stray Enter: the attestation, and
# every yes/no a kind requires (an element present, covering its period, supported; a ticket closed
# resolved). A data field cannot be corrected afterwards (a correction moves an instant), so a
# stray Enter must not write a fact nobody stated.
ATTESTATIONS = {"no_live_personal_data"}
NOT_STATED = "not stated"
STARTS_CLOCK = ("incident.detected", "incident.partner-notice")
_ENDS_INCIDENT = {"incident.restored", "incident.withdrawn", "incident.excluded", "incident.ticket-closed"}
_STARTS_INCIDENT = {"incident.raised", *STARTS_CLOCK}
FUTURE_SLACK = dt.timedelta(minutes=1)  # clocks differ a little; beyond this a time is "in the future"


@dataclass(frozen=True)
class Step:
    label: str
    kind: str
    id: str | None  # None: ask for a new id
    group: str = "new"  # the heading the step is listed under: an id, "new" or "close"
    preset: tuple[tuple[str, Any], ...] = ()  # data fields the step itself fixes (source=organic)

    @property
    def data(self) -> dict[str, Any]:
        return dict(self.preset)


@dataclass(frozen=True)
class Ask:
    name: str
    kind: str  # "text" | "bool" | "choice"
    choices: tuple[str, ...] = ()
    help: str = ""
    required: bool = True
    attest: bool = False  # a yes/no that has no default: it is answered, never assumed


def fields_for(kind: str, preset: dict[str, Any] | None = None, claim: bool = False) -> list[Ask]:
    """The data fields a person supplies for ``kind``, from its model, less those the step fixes.
    ``claim``: the person records a claim of the measured party, which names what the access list
    requires of it (a detection names its class), asked as required."""
    from day60.permissions import table

    out = []
    preset = preset or {}
    claimed = table().claim_fields.get(kind, ()) if claim else ()
    for name, info in DATA_MODELS[kind].model_fields.items():
        if name in claimed and name not in preset:
            out.append(Ask(name, "text", help=info.description or "", required=True))
            continue
        if name in _AUTOMATIC or name in preset or (not info.is_required() and name not in _ALWAYS_ASKED):
            continue
        if kind == "drift.detected" and name == "affected_class":
            continue  # asked of a claim only: an auditor's record of a detection need not name it
        annotation, required, text = info.annotation, info.is_required(), info.description or ""
        inner = [a for a in typing.get_args(annotation) if a is not type(None)]
        if typing.get_origin(annotation) is not typing.Literal and len(inner) == 1:
            annotation = inner[0]  # "X | None": the optional X
        if typing.get_origin(annotation) is typing.Annotated:
            annotation = typing.get_args(annotation)[0]
        origin = typing.get_origin(annotation)
        if annotation is bool:
            out.append(Ask(name, "bool", help=text, required=required or name in ATTESTATIONS,
                           attest=required or name in ATTESTATIONS))
        elif annotation is int:
            choices = ("1", "2", "3", "4") if required else (NOT_STATED, "1", "2", "3", "4")  # never assumed
            out.append(Ask(name, "choice", choices, text, required))
        elif origin is typing.Literal:
            values = typing.get_args(annotation)  # the model's default is offered first
            ordered = sorted(values, key=lambda v: v != info.default)
            out.append(Ask(name, "choice", tuple(ordered), text, required))
        else:
            out.append(Ask(name, "text", help=text, required=required))
    return out


def _by_id(events: list[Effective]) -> dict[str, list[Effective]]:
    seen: dict[str, list[Effective]] = {}
    for e in events:
        seen.setdefault(e.id, []).append(e)
    return seen


def incident_state(evs: list[Effective]) -> str | None:
    """None (no incident), "live", "restored", "closed" (the ticket closed with no restore standing)
    or "ended" (withdrawn or excluded), as the journal's rules see the incident's events in order."""
    from day60.journal import Ending

    if not any(e.kind in _STARTS_INCIDENT for e in evs):
        return None
    ending = Ending()
    for e in evs:
        if e.kind in ("incident.withdrawn", "incident.excluded"):
            return "ended"
        if e.kind in ("incident.restored", "incident.ticket-closed", "incident.reopened") and e.at is not None:
            ending.step(e.kind.split(".")[1], e.at)
    return ending.state


def open_pauses(events: list[dict[str, Any]], ident: str) -> dict[str, Effective]:
    """The waits and change windows still open for incident ``ident``: "wait" or "change-window"
    to the event that opened it."""
    out: dict[str, Effective] = {}
    for e in effective(events):
        if e.id != ident:
            continue
        for pause in ("wait", "change-window"):
            if e.kind == f"incident.{pause}-start":
                out[pause] = e
            elif e.kind == f"incident.{pause}-end":
                out.pop(pause, None)
    return out


def status(events: list[dict[str, Any]], seals_hidden: bool = False, header: dict[str, Any] | None = None,
           now: dt.datetime | None = None) -> dict[str, list[str]]:
    """Open items by area, as short sentences, for the head of the live screen. ``seals_hidden``:
    the events are a view without the sealed onsets (a page other than the runner's), so a
    signed-off injection is not said to be "not started".

    What the figures will not count as recorded is said while it can still be put right:
    milestones out of order (a first communication before the incident's clock started, a drift
    detected after its written notice), a wait or change window still open at a restore (an end
    nobody recorded is not evidence), and, given the ``header``, a monthly report whose due date
    has passed (by ``now``) inside the window with no report received."""
    from day60.permissions import judgements

    eff = effective(events)
    judged = judgements(events)
    out: dict[str, list[str]] = {"injections": [], "drift": [], "incidents": [], "rollbacks": []}
    for ident, evs in _by_id(eff).items():
        out["drift"] += _drift_order(ident, evs)
        out["incidents"] += _incident_order(ident, evs)
        ks = {e.kind for e in evs}
        # A claim of the measured party settles nothing until it is accepted: the item stays open,
        # saying what is claimed and waits to be judged.
        settled = {e.kind for e in evs if not e.claim or judged.get(e.seq, {}).get("kind") == "accept"}
        claimed = {e.kind: e.seq for e in evs if e.claim and e.seq not in judged}
        if "safety.agreed" in ks and not ({"drift.onset", "incident.raised", "rollback.criterion-met",
                                           "injection.not-run", "injection.stopped"} & ks):
            out["injections"].append(f"{ident}: signed off" + (" (a sealed start shows on the runner's page only)"
                                                                if seals_hidden else ", not started"))
        if "drift.onset" in ks and "drift.notice" not in settled:
            notice = "no written notice yet" if "drift.notice" not in claimed else \
                f"written notice claimed by the supplier (seq {claimed['drift.notice']}), not yet accepted"
            detected = "" if "drift.detected" in settled else ", not detected" if "drift.detected" not in claimed \
                else f", detection claimed by the supplier (seq {claimed['drift.detected']}), not yet accepted"
            out["drift"].append(f"{ident}: {notice}{detected}")
        state = incident_state(evs)
        if state in ("live", "closed"):
            waits = [label for pause, label in (("wait", "waiting on partner"), ("change-window", "change window"))
                     if pause in _open_in(evs)]
            what = "not restored" if state == "live" else "ticket closed with no confirmed restore"
            out["incidents"].append(f"{ident}: {what}" + (f" ({', '.join(waits)} open)" if waits else ""))
        if state == "restored":
            for pause, label in (("wait", "wait on the partner"), ("change-window", "change window")):
                if pause in _open_in(evs):
                    out["incidents"].append(f"{ident}: restored with a {label} never ended: record when it ended "
                                            "(an end nobody recorded is not evidence, and leaves the restore a range)")
        if "rollback.criterion-met" in ks and "rollback.smoke-pass" not in ks:
            out["rollbacks"].append(f"{ident}: no smoke pass yet")
    if header is not None:
        out["reports"] = _overdue_reports(eff, header, now)
    return out


def _incident_order(ident: str, evs: list[Effective]) -> list[str]:
    """A first communication dated before the incident's clock started, said as out of order."""
    starts = [e.at for e in evs if e.kind in STARTS_CLOCK and e.at is not None]
    told = [e.at for e in evs if e.kind == "incident.communicated" and e.at is not None]
    if starts and told and min(told) < min(starts):
        return [f"{ident}: first communication ({min(told).isoformat()}) dated before its clock started "
                f"({min(starts).isoformat()}): out of order, correct whichever instant is wrong"]
    return []


def _drift_order(ident: str, evs: list[Effective]) -> list[str]:
    """A detection dated after the drift's first written notice, said as out of order."""
    found = [e.at for e in evs if e.kind == "drift.detected" and e.at is not None]
    notices = [e.at for e in evs if e.kind == "drift.notice" and e.at is not None]
    if found and notices and min(found) > min(notices):
        return [f"{ident}: detection ({min(found).isoformat()}) dated after its written notice "
                f"({min(notices).isoformat()}): out of order, correct whichever instant is wrong"]
    return []


def _overdue_reports(eff: list[Effective], header: dict[str, Any], now: dt.datetime | None) -> list[str]:
    """Reports due inside the window whose due date has wholly passed by ``now`` (or the window's
    end, if sooner) with none received: at the close each is judged, every element absent."""
    from day60.clock import BusinessCalendar
    from day60.due import due_within, report_due

    if header.get("records") == "supplier-reported":
        return []
    cal = BusinessCalendar.from_dict(header["calendar"])
    start = dt.datetime.fromisoformat(header["window"]["start"])
    end = dt.datetime.fromisoformat(header["window"]["end"])
    now = now or dt.datetime.now(dt.UTC)
    received = {e.id for e in eff if e.kind == "report.received"}
    return [f"{p}: report due {report_due(cal, p).isoformat()}, not received (at the close it is judged: every "
            "element absent, not delivered)" for p in due_within(cal, start, min(end, now)) if p not in received]


def _open_in(evs: list[Effective]) -> set[str]:
    opened: set[str] = set()
    for e in evs:
        for pause in ("wait", "change-window"):
            if e.kind == f"incident.{pause}-start":
                opened.add(pause)
            elif e.kind == f"incident.{pause}-end":
                opened.discard(pause)
    return opened


def sealed_onsets(events: list[dict[str, Any]]) -> list[Effective]:
    """Onsets still sealed (no reveal yet)."""
    return [e for e in effective(events) if e.sealed]


def next_steps(events: list[dict[str, Any]], header: dict[str, Any] | None = None) -> list[Step]:
    """Follow-ups for each open id first (grouped by id), then the steps that start something
    new, then the close. Within a group the step that ends an id for good comes last."""
    eff = effective(events)
    closed = any(e.kind == "exercise.close" for e in eff)
    if closed:
        return []
    steps: list[Step] = []
    for ident, evs in _by_id(eff).items():
        steps += _follow_ups(ident, evs)
    received = sorted({e.id for e in eff if e.kind == "report.received"})
    steps.append(Step("new: safety sign-off for an injection", "safety.agreed", None))
    steps += forced_rollbacks(eff)
    steps += [
        Step("new: an injection that could not be made safe: record it not run, with the reason",
             "injection.not-run", None),
        Step("new: incident the supplier detected (a real one)", "incident.detected", None,
             preset=(("source", "organic"),)),
        Step("new: incident notified by the partner", "incident.partner-notice", None),
        Step("new: drift found in the records (a real one, not injected)", "drift.onset", None,
             preset=(("source", "organic"),)),
        Step("new: supplier alert withdrawn as false", "drift.false-alert", None),
        Step("new: rollback rehearsal on a non-production copy (criterion met)", "rollback.criterion-met", None,
             preset=(("kind", "rehearsal"),)),
        Step("new: real production rollback (criterion met, organic)", "rollback.criterion-met", None,
             preset=(("kind", "production"), ("source", "organic"))),
        Step("new: monthly report received", "report.received", None),
    ]
    if received:
        steps.append(Step("new: monthly report element checked", "report.element", None))
    steps.append(Step("close the exercise", "exercise.close", "exercise", group="close"))
    return [s for s in steps if s.kind in DATA_MODELS]  # a kind this toolkit does not know is never offered


FORCED_ROLLBACK = "new: production rollback forced by the exercise"  # the runner's alone (see forced_rollbacks)


def forced_rollbacks(eff: list[Effective]) -> list[Step]:
    """The forced production rollback, offered where the runner looks for something new to start
    (it is otherwise only in its signed-off id's group, which drifts and incidents already begun
    push far down the list): its start under each signed-off injection not yet begun, or, with
    none waiting, the sign-off that comes first."""
    waiting = [ident for ident, evs in _by_id(eff).items() if "safety.agreed" in {e.kind for e in evs}
               and not {e.kind for e in evs} & (_BEGUN | {"injection.stopped", "injection.not-run"})]
    if not waiting:
        return [Step(f"{FORCED_ROLLBACK}: its safety sign-off first (then its start is offered here)",
                     "safety.agreed", None)]
    return [Step(f"{FORCED_ROLLBACK}, under {ident} (signed off, not started)", "rollback.criterion-met", ident,
                 preset=(("kind", "production"), ("source", "exercise"))) for ident in waiting]


_BEGUN = frozenset({"drift.onset", "incident.raised", "rollback.criterion-met", "incident.detected",
                    "incident.partner-notice"})


def _follow_ups(ident: str, evs: list[Effective]) -> list[Step]:
    ks = {e.kind for e in evs}
    out: list[Step] = []

    def add(label: str, kind: str, *preset: tuple[str, Any]) -> None:
        out.append(Step(f"{ident}: {label}", kind, ident, group=ident, preset=tuple(preset)))

    begun = _BEGUN & ks
    ended = {"injection.stopped", "injection.not-run"} & ks
    last: list[Step] = []
    if "safety.agreed" in ks and not begun and not ended:
        add("start the drift injection (onset, sealed)", "drift.onset", ("source", "exercise"))
        add("raise the incident (the exercise creates the fault)", "incident.raised")
        add("production rollback criterion met (forced by the exercise)", "rollback.criterion-met",
            ("kind", "production"), ("source", "exercise"))
        last.append(Step(f"{ident}: not run: the safety conditions were not met", "injection.not-run", ident,
                         group=ident))
    elif "safety.agreed" in ks and begun and not ended:
        last.append(Step(f"{ident}: injection stopped by its stop condition", "injection.stopped", ident,
                         group=ident))
    if "drift.onset" in ks and "drift.notice" not in ks:
        if "drift.detected" not in ks:
            add("supplier detected the drift", "drift.detected")
        add("written notice received", "drift.notice")
        if not {"drift.told", "drift.announced"} & ks:
            add("the supplier was told of this injection (excluded)", "drift.told")
            add("the partner announced this drift in advance (excluded)", "drift.announced")
    state = incident_state(evs)
    if state == "live":
        if "incident.detected" not in ks:
            add("supplier detected it (gives the severity)", "incident.detected")
        if "incident.partner-notice" not in ks:
            add("partner notified the supplier", "incident.partner-notice")
        if ks & set(STARTS_CLOCK):  # the restore clock has started
            if "incident.communicated" not in ks:
                add("first communication to the partner", "incident.communicated")
            opened = _open_in(evs)
            for pause, label in (("wait", "waiting on partner"), ("change-window", "agreed change window")):
                if pause in opened:
                    add(f"{label} ends", f"incident.{pause}-end")
                else:
                    add(f"{label} starts", f"incident.{pause}-start")
            add("restore confirmed by monitoring", "incident.restored")
            add("ticket closed in the supplier's records", "incident.ticket-closed")
    elif state == "closed":
        add("restore confirmed by monitoring", "incident.restored")
    if state in ("restored", "closed"):
        if state == "restored" and _last_end(evs) != "incident.ticket-closed":
            add("ticket closed in the supplier's records", "incident.ticket-closed")
        add("reopened (the fault came back, or the closure was wrong)", "incident.reopened")
    if state in ("live", "closed"):
        add("severity set or changed", "incident.classified")
        last.append(Step(f"{ident}: withdrawn as not reproducible", "incident.withdrawn", ident, group=ident))
        last.append(Step(f"{ident}: excluded from the figures (with the reason)", "incident.excluded", ident,
                         group=ident))
    if "rollback.criterion-met" in ks:
        order = ["rollback.decision", "rollback.serving", "rollback.smoke-pass", "rollback.requeue-complete"]
        labels = ["decision recorded", "previous release serving", "smoke set passed", "re-queue complete"]
        for kind, label in zip(order, labels, strict=True):
            if kind not in ks:
                add(label, kind)
                if kind == "rollback.decision":
                    break
        if "rollback.decision" in ks and "rollback.data-restore" not in ks:
            add("data restored as part of the rollback", "rollback.data-restore")
    return out + last


def claims_to_judge(events: list[dict[str, Any]]) -> list[Step]:
    """An accept and a reject step for every claim of the measured party not yet judged, the
    latest first (roles/permissions-v1.yaml: a claim counts once an auditor accepts it)."""
    from day60.permissions import claim_status, judgements

    judged = judgements(events)
    by_seq = {e["seq"]: e for e in events}
    out: list[Step] = []
    for e in reversed(events):
        if claim_status(e, judged) != "pending":
            continue
        named = e["data"].get("affected_class")
        if e["kind"] == "correction":  # named by the line it moves (its id is that line's seq)
            line = by_seq.get(e["data"]["target"])
            what = f"seq {e['seq']}: correction of seq {e['data']['target']}" + \
                (f" ({line['kind']} {line['id']})" if line else "") + f" by {e['by']}, to {e['data']['at']}"
        else:
            what = f"seq {e['seq']}: {e['kind']} {e['id']}" + (f" ({named})" if named else "") + \
                f" by {e['by']}, at {e['at']}"
        what += entered(e, e["data"]["at"] if e["kind"] == "correction" else e["at"])
        for kind in ("accept", "reject"):
            out.append(Step(f"{kind} {what}", kind, e["id"], group="claims to accept or reject",
                            preset=(("target", e["seq"]),)))
    return out


def entered(line: dict[str, Any], claimed: str | None) -> str:
    """When a claim was entered (its ``recorded_at``) beside the time it claims, and, when the two
    are more than a minute apart, by how much: a claim entered hours after the time it names reads
    as what it is, a backdated one, at the step that judges it."""
    if not line.get("recorded_at"):
        return ""
    recorded = dt.datetime.fromisoformat(line["recorded_at"])
    said = f", entered {recorded.replace(microsecond=0).isoformat()}"
    if not claimed:
        return said
    apart = (recorded - dt.datetime.fromisoformat(claimed)).total_seconds()
    if abs(apart) <= 60:
        return said
    return f"{said}: entered {int(abs(apart) // 60)} min {'after' if apart > 0 else 'before'} the time it claims"


def _last_end(evs: list[Effective]) -> str | None:
    ends = [e for e in evs if e.kind in _ENDS_INCIDENT]
    return max(ends, key=lambda e: e.seq).kind if ends else None


def element_choices(events: list[dict[str, Any]], header: dict[str, Any]) -> list[tuple[str, str]]:
    """The report elements this exercise requires, each with a word on whether it is checked yet:
    (id, label)."""
    from day60.resources import report_elements

    known = [(el["id"], el.get("what", "")) for el in report_elements()]
    known += [(ident, "added by this exercise") for ident in header.get("report_elements", [])]
    done: dict[str, set[str]] = {}
    for e in effective(events):
        if e.kind == "report.element":
            done.setdefault(e.id, set()).add(e.data.get("period") or "")
    out = []
    for ident, what in known:
        mark = " [checked]" if ident in done else ""
        out.append((ident, f"{ident}{mark}: {what}"[:110]))
    return out


def reports_received(events: list[dict[str, Any]]) -> list[str]:
    return sorted({e["id"] for e in events if e["kind"] == "report.received"})


# Lines whose instant is when they were written, not a moment of the exercise: they come after it
# as often as not (a dispute, a correction, a reveal after the close), so no window warning.
WRITTEN_AFTER = ("correction", "reveal", "dispute", "resolve", "notice.sent", "timestamp.token", "accept", "reject")


def _exactly(value: dt.datetime) -> str:
    """An instant as it was set: to the minute, the second or the microsecond, as it needs."""
    spec = "minutes" if not value.second and not value.microsecond else "seconds" if not value.microsecond \
        else "microseconds"
    return value.isoformat(timespec=spec)


def warnings(header: dict[str, Any], kind: str, ident: str, when: dt.datetime, now: dt.datetime,
             held: dict[str, str] | None = None, sealed: bool = False) -> list[str]:
    """What a person should confirm before ``when`` is recorded for ``kind`` on ``ident``: an
    instant in the future, one outside the exercise window, and (only for whoever holds the
    sealed instants: ``held`` maps an onset's id to its clear instant) a detection or notice
    earlier than the sealed onset. ``sealed``: the instant is being sealed, so no warning names
    it (it is said "the sealed instant").

    The instant is shown to the second, or to the microsecond when the second would mislead (it
    would read as inside the window, or the window itself is set to a fraction of a second); the
    window as it was set."""
    out = []
    window = header.get("window") or {}
    start, end = dt.datetime.fromisoformat(window["start"]), dt.datetime.fromisoformat(window["end"])
    whole = when.replace(microsecond=0)
    fine = bool(when.microsecond) and (start <= whole <= end or bool(start.microsecond or end.microsecond))
    shown = "the sealed instant" if sealed else when.isoformat(timespec="microseconds" if fine else "seconds")
    if when > now + FUTURE_SLACK:
        out.append(f"{shown} is in the future (it is now "
                   f"{now.astimezone(when.tzinfo).isoformat(timespec='seconds')})")
    # A sign-off or a not-run injection comes before the window; a report and the close may come after.
    outside_ok = kind in ("safety.agreed", "injection.not-run", "exercise.close", *WRITTEN_AFTER) or \
        kind.startswith("report.")
    if not outside_ok and not start <= when <= end:
        side = "before the exercise window opens" if when < start else "after the exercise window closes"
        out.append(f"{shown} is {side} ({_exactly(start)} to {_exactly(end)})")
    if held and kind in ("drift.detected", "drift.notice") and ident in held:
        onset = dt.datetime.fromisoformat(held[ident])
        if when < onset:
            out.append(f"{shown} is before the sealed onset of {ident} "
                       f"({onset.isoformat(timespec='seconds')}, held): the figures will set this {kind} aside")
    return out


def held_instants(held: dict[str, Any] | None, events: list[dict[str, Any]]) -> dict[str, str]:
    """id -> clear instant of each sealed onset of this journal the held file opens."""
    if not held:
        return {}
    commitments = {e["data"].get("commitment"): e["id"] for e in events if e["kind"] == "drift.onset"}
    return {commitments[o["commitment"]]: o["at"] for o in held.get("onsets", []) if o["commitment"] in commitments}

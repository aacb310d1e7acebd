"""The rules of fact: what the journal will accept given what it already holds, replayed over
the *effective* events (corrections and reveals applied, originals kept).

``State`` is the replay's memory; ``check_rules`` replays a whole journal, an append replays one
event on the state the index keeps for its id, and the engine checks the incident rules in SQL
against this module (its tests hold the two to the same verdicts).
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from typing import Any

from day60.errors import InputError
from day60.journal.sealing import commitment
from day60.kinds import CLOCK_KINDS, FIXERS, INJECTIONS
from day60.permissions import JUDGEMENTS, is_claim

_SAFETY_REASON = ("every injection needs a written agreement, a named stop owner, a stop condition and a "
                  "rollback owner on call before it runs (charter 4.5.1)")


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
    by: str | None = None  # who recorded it: a claim of the measured party is read apart

    @property
    def claim(self) -> bool:
        return self.by is not None and is_claim({"kind": self.kind, "by": self.by})


def effective(events: list[dict[str, Any]], skip: str | None = None) -> list[Effective]:
    """Every event except corrections and reveals, with their effect applied, in seq order.

    ``skip`` leaves out kinds starting with that prefix (metrics reads incidents in bulk).
    """
    out: dict[int, Effective] = {}
    for e in events:
        kind, data = e["kind"], e["data"]
        if skip and kind.startswith(skip):
            continue
        if kind in FIXERS and data["target"] not in out:
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
                                      sealed=at is None and "commitment" in data, by=e.get("by"))
    return list(out.values())


def refuse(field_name: str, problem: str, fix: str) -> None:
    raise InputError(field_name, problem, fix)


def check_rules(events: list[dict[str, Any]], elsewhere: dict[int, dict[str, Any]] | None = None,
                incidents_from: dict[str, int] | None = None) -> State:
    """Replay the journal and refuse the first event that breaks a rule of fact.

    Rules: safety sign-off before any injection; no second onset, detection or close; no
    notice before its onset; no restore before the incident's clock starts; waits and change
    windows opened before they are closed; rollback steps after a decision; report elements
    after the report; nothing but corrections and reveals after the close.

    ``elsewhere`` holds events kept out of ``events`` (the engine's incident table) that a
    correction names: they are looked up as its target, never replayed; ``incidents_from``, the
    first seq of each incident kept out, so a resolve may exclude one logged before it.
    """
    check_targets(events, {**(elsewhere or {}), **{e["seq"]: e for e in events}})
    state = State()
    state.incidents_from = incidents_from or {}
    for ev in effective(events):
        state.apply_at(ev)
    return state


def check_targets(events: list[dict[str, Any]], raw_by_seq: dict[int, dict[str, Any]]) -> None:
    """``_check_target`` for each event, a refusal marked with the event's seq."""
    for e in events:
        try:
            _check_target(e, raw_by_seq)
        except InputError as exc:
            exc.seq = e["seq"]  # type: ignore[attr-defined]
            raise


def _check_target(e: dict[str, Any], raw_by_seq: dict[int, dict[str, Any]]) -> None:
    """A correction names an earlier timed event; a reveal opens a sealed onset's commitment; an
    acceptance or a rejection names an earlier claim of the measured party."""
    if e["kind"] in JUDGEMENTS:
        t = raw_by_seq.get(e["data"]["target"])
        if t is None or t["seq"] >= e["seq"] or not is_claim(t):
            refuse("--seq", f"{e['data']['target']} is not an earlier claim of the measured party",
                    "name the seq of a line the supplier recorded (see 'day60 show'); the other lines count as "
                    "recorded")
    if e["kind"] == "correction":
        t = raw_by_seq.get(e["data"]["target"])
        if t is None or t["kind"] in FIXERS or t["seq"] >= e["seq"]:
            refuse("--seq", f"{e['data']['target']} is not an earlier event that carries a time",
                    "name the seq of the event to correct (see 'day60 show')")
        if t["at"] is None:
            refuse("--seq", f"event {t['seq']} is sealed", "reveal it before correcting it")
    if e["kind"] == "reveal":
        t = raw_by_seq.get(e["data"]["target"])
        if t is None or t["kind"] != "drift.onset" or t["at"] is not None:
            refuse("reveal", f"event {e['data']['target']} is not a sealed onset", "check the held file")
        if commitment(e["data"]["salt"], t["id"], e["data"]["at"]) != t["data"]["commitment"]:
            refuse("reveal", f"the held instant for {t['id']} does not open its commitment",
                    "use the held file written when the onset was sealed")


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


class State:
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
        self.judged: set[int] = set()  # claims accepted or rejected
        self.incidents_from: dict[str, int] = {}  # incidents not replayed (the engine's): id -> first seq
        self.closed = False

    def _gate(self, ev: Effective, where: str) -> None:
        """Charter 4.5.1: an injection runs only under a written sign-off made before it."""
        kind, ident, at, data = ev.kind, ev.id, ev.at, ev.data
        injected = data.get("source", "exercise") == "exercise"
        gated = kind == "incident.raised" or (injected and (
            kind == "drift.onset"
            or (kind in CLOCK_KINDS and ident not in self.raised)
            or (kind == "rollback.criterion-met" and data["kind"] == "production")))
        if not gated:
            return
        if ident in self.not_run:
            refuse("id", f"{where}: injection {ident} was recorded as not run", "use a new id for a new injection")
        signed = self.safety.get(ident)
        if signed is None:
            organic = " (a real incident, not one the exercise raised, is logged with --set source=organic)" \
                if kind.startswith("incident.") else " (a real drift is logged with --set source=organic)" \
                if kind == "drift.onset" else ""
            refuse("id", f"{where} has no safety sign-off: {_SAFETY_REASON}",
                    f"log safety.agreed for {ident} first; until then its rubric lines read 'not exercised'"
                    + organic)
        if at is not None and not signed < at:
            refuse("--at", f"{where} is not after its safety sign-off ({signed.isoformat()}): the written "
                            "agreement must come before the injection (charter 4.5.1)",
                    "check the instant of the injection or of the sign-off")
        if kind in INJECTIONS:
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
                refuse("--set covers_seq", f"{where} stamps seq {data['covers_seq']}, which is not before it",
                        "stamp the journal's head with 'day60 stamp'")
            return
        if kind in JUDGEMENTS:  # a claim is judged once, at the close as often as not
            if data["target"] in self.judged:
                refuse("--seq", f"claim {data['target']} is already accepted or rejected", "a claim is judged once")
            self.judged.add(data["target"])
            return
        if kind == "dispute":  # disputes come after the figures: allowed after the close
            self.disputes[ev.seq] = None
            return
        if kind == "resolve":
            if data["target"] not in self.disputes:
                refuse("--dispute", f"{data['target']} is not a dispute", "name the seq of a dispute event")
            if self.disputes[data["target"]] is not None:
                refuse("--dispute", f"dispute {data['target']} is already resolved", "a dispute is resolved once")
            excluded = data.get("exclude") or []
            if excluded and data["outcome"] != "upheld":
                refuse("--exclude", "only an upheld dispute grants an exclusion", "drop --exclude, or uphold it")
            unknown = [x for x in excluded if x not in self.onsets and x not in self.known_incidents
                       and x not in self.criteria and self.incidents_from.get(x, ev.seq) >= ev.seq]
            if unknown:
                refuse("--exclude", f"{', '.join(u[:40] for u in unknown[:5])}: no drift, incident or rollback has "
                                     "that id", "name ids from 'day60 show'")
            self.disputes[data["target"]] = data["outcome"]
            return
        if self.closed:
            refuse("KIND", f"{where} comes after exercise.close", "record it as a correction, or not at all")
        self._gate(ev, where)
        if kind == "safety.agreed":
            if ident in self.not_run:
                refuse("id", f"{where}: injection {ident} was recorded as not run", "use a new id for a new injection")
            self.safety[ident] = at
        elif kind == "injection.not-run":
            # An injection that could not be made safe is recorded not run without a sign-off: a
            # sign-off would have to name owners and conditions that do not exist (charter 4.5.1).
            if ident in self.started:
                refuse("id", f"injection {ident} has already begun", "log injection.stopped instead")
            self.not_run.add(ident)
        elif kind == "injection.stopped":
            if ident not in self.started:
                refuse("id", f"injection {ident} has not begun", "log injection.not-run for one never started")
        elif kind == "drift.onset":
            if ident in self.onsets:
                refuse("id", f"drift {ident} already has an onset (event {self.onsets[ident].seq})",
                        "use a new id, or 'day60 correct' to change the instant")
            self.onsets[ident] = ev
        elif kind in ("drift.detected", "drift.notice"):
            onset = self.onsets.get(ident)
            if onset is None:
                if ev.claim:  # refused, it would tell the measured party whether a sealed onset exists:
                    return    # recorded, and the figures count a claim of no drift as a false alert
                refuse("id", f"no drift.onset for {ident}", "log the onset first, or use drift.false-alert")
            # A sealed onset's instant is the runner's secret: a notice logged before it cannot be
            # refused without revealing it, so metrics set such a notice aside instead.
            sealed = onset.sealed or onset.revealed
            if not sealed and onset.at is not None and at is not None and at < onset.at:
                refuse("--at", f"{where} is before its onset ({onset.at.isoformat()})", "check the instant")
        elif kind == "incident.raised":
            if ident in self.known_incidents:
                refuse("id", f"incident {ident} already exists", "raise a new incident under a new id")
            self.raised[ident] = at
            self.known_incidents.add(ident)
        elif kind in CLOCK_KINDS:
            # A claim of the measured party takes no slot: a pending claim (perhaps a late one, to
            # shorten its clock) must not stop an auditor recording the detection it saw.
            if kind == "incident.detected" and not ev.claim:
                if ident in self.detected:
                    refuse("id", f"incident {ident} is already detected", "use a new id or 'day60 correct'")
                self.detected.add(ident)
            raised = self.raised.get(ident)
            if raised is not None and at is not None and at < raised:
                refuse("--at", f"{where} is before the incident was raised ({raised.isoformat()})",
                        "check the instant")
            if kind == "incident.partner-notice" and at is not None:
                ending = self.endings.get(ident)
                if ending is not None and ending.state == "restored" and at > ending.last_at:
                    refuse("KIND", f"{where} comes after the incident was restored ({ending.last_at.isoformat()})",
                            f"if it relapsed, log incident.reopened for {ident} first; a notice of the original "
                            "fault is dated before the restore")
            self.known_incidents.add(ident)
            self._start_incident(ident, at)
        elif kind.startswith("incident."):
            if ident not in self.known_incidents:
                refuse("id", f"no incident {ident} has been raised, detected or notified",
                        "log incident.raised, incident.detected or incident.partner-notice first")
            if kind == "incident.classified":
                return
            start = self.incidents.get(ident)
            if start is None:
                refuse("id", f"incident {ident} has no clock yet: neither detected nor notified",
                        "log incident.detected or incident.partner-notice first")
            if kind in ("incident.restored", "incident.ticket-closed") and at < start:
                refuse("--at", f"{where} is before the incident's clock started ({start.isoformat()})",
                        "check the instant")
            if kind in ("incident.restored", "incident.ticket-closed", "incident.reopened"):
                self._end_or_reopen(ident, kind, at, where)
            for pause in ("wait", "change-window"):
                key = (ident, pause)
                if kind == f"incident.{pause}-start":
                    if key in self.open_windows:
                        refuse("KIND", f"{where}: a {pause} is already open for {ident}", f"log {pause}-end first")
                    self.open_windows[key] = at
                elif kind == f"incident.{pause}-end":
                    opened = self.open_windows.pop(key, None)
                    if opened is None:
                        refuse("KIND", f"{where} has no {pause}-start", f"log incident.{pause}-start first")
                    if at < opened:
                        refuse("--at", f"{where} is before its {pause}-start ({opened.isoformat()})",
                                "check the instant")
        elif kind == "rollback.criterion-met":
            if ident in self.criteria:
                refuse("id", f"rollback {ident} already met its criterion", "use a new id")
            self.criteria[ident] = at
        elif kind == "rollback.decision":
            if ident not in self.criteria:
                refuse("id", f"rollback {ident} has no criterion-met", "log rollback.criterion-met first")
            if ident in self.decisions:
                refuse("id", f"rollback {ident} already has a decision", "use 'day60 correct' to change it")
            if at < self.criteria[ident]:
                refuse("--at", f"{where} is before its criterion was met ({self.criteria[ident].isoformat()})",
                        "check the instant")
            self.decisions[ident] = at
        elif kind.startswith("rollback."):
            decided = self.decisions.get(ident)
            if decided is None:
                refuse("id", f"rollback {ident} has no decision", "log rollback.decision first")
            if at < decided:
                refuse("--at", f"{where} is before the decision ({decided.isoformat()})", "check the instant")
        elif kind == "report.received":
            if not re.fullmatch(r"[0-9]{4}-(0[1-9]|1[0-2])", ident):
                refuse("--id", f"{where}: a report's id is the month it covers", "write it as YYYY-MM")
            self.reports.add(ident)
        elif kind == "report.element":
            period = data.get("period")
            if not self.reports or (period and period not in self.reports) or (not period and len(self.reports) > 1):
                refuse("period", f"{where} names no received report",
                        "log report.received first, and set period=YYYY-MM when there are several")
        elif kind == "exercise.close":
            self.closed = True

    def _end_or_reopen(self, ident: str, kind: str, at: dt.datetime, where: str) -> None:
        """A restore, a ticket closure or a re-open (charter 3.19.4: the clock ends at the last
        confirmed restore). A second restore needs a re-open between; a re-open needs an end."""
        ending = self.endings.setdefault(ident, Ending())
        state = ending.state
        if kind == "incident.restored" and state == "restored":
            refuse("KIND", f"{where}: incident {ident} is already restored ({ending.last_at.isoformat()})",
                    "if it relapsed, log incident.reopened first; to change the instant use 'day60 correct'")
        if kind == "incident.reopened":
            if state == "live":
                refuse("KIND", f"{where}: incident {ident} is neither restored nor closed",
                        "an incident is re-opened only after a restore or a ticket closure")
            ended = ending.last_at if state == "restored" else ending.closed_at
            if at < ended:
                refuse("--at", f"{where} is before the {state} it re-opens ({ended.isoformat()})", "check the instant")
        elif ending.last == "reopened" and at < ending.last_at:
            refuse("--at", f"{where} is before the incident was re-opened ({ending.last_at.isoformat()})",
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
            refuse("--seal", "an injected onset must be sealed: the runner holds the injection time, not the "
                              "shared journal (charter 3.18.3)",
                    "add --seal HELD.json (a real drift found in the records is logged with --set source=organic)")
        if not data.get("affected_class"):
            refuse("--set affected_class", "an injected onset must name the input class it shifts",
                    "add --set affected_class=... (a notice counts only if it names this class)")
    if kind == "safety.agreed" and data.get("no_live_personal_data") is not True:
        refuse("--set no_live_personal_data", "a sign-off must attest that no live personal data is exposed, "
                                               "exfiltrated or breached (charter 4.5.1)",
                "add --set no_live_personal_data=true, or do not run the injection")

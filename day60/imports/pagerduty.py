"""PagerDuty: incident log entries, with the incidents list for priority or urgency.

Log entries carry ISO 8601 times with offsets. ``trigger_log_entry`` is the alert: the
supplier's detection. ``acknowledge_log_entry`` is an engineer picking it up, which starts no
clock but shows whether anyone looked before it was resolved. ``resolve_log_entry`` is the
resolution; it is monitoring evidence when the integration or service resolved it (the alert
cleared), not when a person did or a timeout closed it, and either way an incident that an
integration or a timeout resolved is listed as a record to look at. ``annotate_log_entry`` is a
note (``channel.summary``, or ``channel.content``): the deal's runbook convention for waits,
notices, restores and withdrawals is read from notes with the map's [notes] patterns. An
incident the incidents list shows merged into another (``resolve_reason.type``) is withdrawn
or excluded where the map's [outcomes] names that type.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from day60.errors import InputError
from day60.imports import jsonstream, states
from day60.imports.books import Books
from day60.imports.records import (
    RowProblem,
    Settings,
    Ticket,
    Times,
    Unmatched,
    Unreadable,
    check_columns,
)

DESCRIPTION = ("log_entries JSON (trigger, acknowledge, resolve and annotate entries) and, for severity, the "
               "incidents JSON (priority.summary or urgency)")
MONITORING_AGENTS = ("service_reference", "integration_reference")
API_STATUSES = ("triggered", "acknowledged", "resolved")  # every status the REST API writes
TYPES = ("trigger_log_entry", "acknowledge_log_entry", "resolve_log_entry", "annotate_log_entry")
KEYS = ("severity",)
SEVERITY_FIELD = "priority"  # the field read for severity unless the map's [columns] names another
# The import run's note on incidents with a null priority (records.NoSeverity) adds their urgency:
# taking urgency for some incidents and priority for the rest would be a guess at how the two compare.
NO_SEVERITY_WORDS = ("their urgency ({values}) is not read as a severity; to judge every incident by its urgency "
                     "instead, map [columns] severity = \"urgency\" with a [severity] table for its values")
_LISTS = ("log_entries", "incidents")
# What the import reads of an incident's own record: two copies that agree on these give the same ticket.
_READ = ("status", "created_at", "resolved_at", "last_status_change_at", "urgency")
SUPERSEDED = "an earlier copy of an incident a later page holds again (its updated_at older): the latest is read"
SAME_COPY = "a copy of an incident another page holds again, the same in every field the import reads"
REPEATED_ENTRY = "a log entry another page holds again (the same id): read once"

# (at, type, the entry's agent, channel and summary, file index, item index, file key)
Entry = tuple[dt.datetime, str, dict[str, Any], int, int, str]


def _kind(p: Path) -> str:
    """Which answer a file is: the top-level key holding its list (streamed: read only as far as it)."""
    found = jsonstream.envelope(p, _LISTS)
    if not found:
        raise InputError("EXPORT", f"{p} is not an export the pagerduty format reads",
                         "it takes the REST API's JSON answers: log_entries and incidents, each list under its "
                         "own key ({\"log_entries\": [...]}, {\"incidents\": [...]})")
    return found


def _slim(e: dict[str, Any]) -> dict[str, Any]:
    """What the import reads of a log entry (who, by which channel, its note), held until its
    incident is read: a trigger's channel can carry the whole alert payload, which is not kept."""
    channel = e.get("channel")
    return {"agent": e.get("agent") if isinstance(e.get("agent"), dict) else None,
            "channel": {k: channel.get(k) for k in ("type", "summary", "content")} if isinstance(channel, dict)
            else channel, "summary": e.get("summary")}


def _stamp(inc: dict[str, Any], times: Times) -> dt.datetime | None:
    """When a copy of an incident was taken: its updated_at, or where the API gives none (captures
    before 2023-05-08), its last_status_change_at; None where it has neither as a time."""
    for name in ("updated_at", "last_status_change_at"):
        value = inc.get(name)
        if isinstance(value, str):
            try:
                return times.read(value, name)
            except RowProblem:
                return None
    return None


def _digest(inc: dict[str, Any]) -> bytes:
    """The fields the import reads of an incident, condensed: equal for copies that read the same."""
    reason, priority = inc.get("resolve_reason"), inc.get("priority")
    said = (tuple(inc.get(k) for k in _READ), "resolved_at" in inc,
            reason.get("type") if isinstance(reason, dict) else reason,
            priority.get("summary") if isinstance(priority, dict) else priority)
    return hashlib.blake2b(repr(said).encode("utf-8", "backslashreplace"), digest_size=8).digest()


def _latest(docs: list[tuple[Path, str]], times: Times) -> dict[str, tuple[int, int, bytes]]:
    """Pass one over the incidents pages: for each incident id, the copy that is the incident (file,
    item). Offset pages over a changing list repeat an incident: the copy with the latest stamp
    wins. Two copies that read the same are one, whichever is taken; two that differ where either
    has no time, or two latest copies of one time, are refused naming the id: which holds cannot be
    told, and a guess would move a figure."""
    best: dict[str, tuple[dt.datetime | None, int, int, bytes, tuple[int, int] | None]] = {}
    for f, (p, _key) in enumerate(docs):
        for i, inc in enumerate(jsonstream.records(p, "incidents")):
            if not isinstance(inc, dict) or inc.get("id") is None or isinstance(inc.get("id"), dict | list):
                continue
            ref, stamp, digest = str(inc["id"]), _stamp(inc, times), _digest(inc)
            held = best.get(ref)
            if held is None:
                best[ref] = (stamp, f, i, digest, None)
                continue
            when, hf, hi, hdigest, tie = held
            if digest == hdigest:  # the same ticket either way: the later-stamped (else later) copy
                if when is None or stamp is None or stamp >= when:
                    best[ref] = (stamp if stamp is not None else when, f, i, digest, tie)
            elif when is None or stamp is None:
                _twice(ref, docs, (hf, hi), (f, i), "one of them has neither updated_at nor last_status_change_at")
            elif stamp > when:
                best[ref] = (stamp, f, i, digest, None)
            elif stamp == when:
                best[ref] = (when, hf, hi, hdigest, tie or (f, i))
    for ref, (when, f, i, _d, tie) in best.items():
        if tie is not None:
            _twice(ref, docs, (f, i), tie, f"both were updated at {when.isoformat() if when else 'no time'}")
    return {ref: (f, i, digest) for ref, (_w, f, i, digest, _t) in best.items()}


def _twice(ref: str, docs: list[tuple[Path, str]], one: tuple[int, int], two: tuple[int, int], why: str) -> None:
    first, second = (f"{docs[f][0].name} item {i + 1}" for f, i in sorted((one, two)))
    raise InputError("EXPORT", f"incident {ref[:60]} is given twice with different contents ({first}, {second}) "
                               f"and {why}, so which copy is the latest cannot be told",
                     "export the incidents again in one pass (or leave out the page taken earlier); nothing was "
                     "written")


def read(paths: list[Path], settings: Settings, notes: list[str], books: Books) -> Iterator[Ticket | Unreadable
                                                                                          | Unmatched]:
    check_columns(settings, KEYS, "pagerduty")
    rules = states.rules("pagerduty", settings.states)
    times = Times(settings)
    docs: dict[str, list[tuple[Path, str]]] = {k: [] for k in _LISTS}
    for p in paths:
        docs[_kind(p)].append((p, books.key(p)))
    listed = bool(docs["incidents"])
    if not docs["log_entries"] and not listed:
        raise InputError("EXPORT", "no log_entries or incidents export was given",
                         "give the incident log entries JSON, and the incidents JSON")
    if not listed:
        notes.append("no incidents export was given: no priority or urgency, so every incident is unclassified "
                     "(judged at the strictest target), and no incident's own status is read")
    if not docs["log_entries"]:
        notes.append("no log_entries export was given: each incident's clock starts at its created_at, its end is "
                     "its own resolved_at, and no monitoring evidence can confirm a restore")
    names = [p.name for p, _key in docs["log_entries"]]
    by_incident: dict[str, list[Entry]] = {}
    seen: set[str] = set()  # log entry ids read: a page taken again repeats them
    for f, (p, key) in enumerate(docs["log_entries"]):
        for i, e in enumerate(jsonstream.records(p, "log_entries")):
            books.read(p)
            where = f"{p.name} item {i + 1}"
            inc = (e.get("incident") or {}).get("id") if isinstance(e, dict) and isinstance(e.get("incident"),
                                                                                              dict) else None
            if not isinstance(e, dict) or inc is None or isinstance(inc, dict | list) or \
                    not isinstance(e.get("type"), str):
                yield Unreadable(where, None, "is not a log entry with a type and an incident", key)
                continue
            ident = e.get("id")
            if isinstance(ident, str | int) and not isinstance(ident, bool):
                if str(ident) in seen:
                    books.skip(key, REPEATED_ENTRY)
                    continue
                seen.add(str(ident))
            if e["type"] not in TYPES:
                books.skip(key, f"a log entry of a type the import does not read (it reads {', '.join(TYPES)})")
                continue
            try:
                at = times.required(e.get("created_at"), "created_at")
            except RowProblem as exc:
                yield Unreadable(where, str(inc), str(exc), key)
                continue
            by_incident.setdefault(str(inc), []).append((at, e["type"], _slim(e), f, i, key))
    seen.clear()
    sev = settings.column("severity", SEVERITY_FIELD)
    if listed:  # the incidents are the list: log entries complete them
        latest = _latest(docs["incidents"], times)
        for f, (p, key) in enumerate(docs["incidents"]):
            for i, incident in enumerate(jsonstream.records(p, "incidents")):
                books.read(p)
                where = f"{p.name} item {i + 1}"
                if not isinstance(incident, dict) or incident.get("id") is None or \
                        isinstance(incident.get("id"), dict | list):
                    yield Unreadable(where, None, "is not an incident with an id", key)
                    continue
                ref = str(incident["id"])
                chosen = latest[ref]
                if chosen[:2] != (f, i):
                    books.skip(key, SAME_COPY if _digest(incident) == chosen[2] else SUPERSEDED)
                    continue
                items = by_incident.pop(ref, [])
                attached: dict[str, int] = {}
                for x in items:
                    attached[x[5]] = attached.get(x[5], 0) + 1
                try:
                    t = _ticket(ref, items, incident, where, times, settings, rules, sev)
                except RowProblem as exc:
                    yield Unreadable(where, ref, str(exc), key)
                    for other, n in attached.items():
                        books.add(other, "unreadable", n)
                    continue
                t.file, t.attached = key, attached
                if sev != "urgency" and isinstance(incident.get("urgency"), str):
                    t.severity_beside = incident["urgency"]  # named in the note where the priority is null
                yield t
        for ref, items in by_incident.items():  # entries of incidents the incidents export does not list
            counts: dict[str, int] = {}
            for x in items:
                counts[x[5]] = counts.get(x[5], 0) + 1
            for other, n in counts.items():
                yield Unmatched(other, ref, n, "log_entries")
        return
    for ref, items in by_incident.items():  # no incidents export: the log entries are the incidents
        items.sort(key=lambda x: x[0])
        first = items[0]
        where = f"{names[first[3]]} item {first[4] + 1}"
        try:
            t = _ticket(ref, items, None, where, times, settings, rules, sev)
        except RowProblem as exc:
            yield Unreadable(where, ref, str(exc), first[5], 1)
            for x in items[1:]:
                books.add(x[5], "unreadable")
            continue
        t.file = first[5]
        for x in items[1:]:
            t.attached[x[5]] = t.attached.get(x[5], 0) + 1
        yield t


def _ticket(ref: str, items: list[Entry], incident: dict[str, Any] | None,
            where: str, times: Times, settings: Settings, rules: states.Rules, sev: str) -> Ticket:
    """One incident from its log entries and, where the incidents export lists it, its own record:
    its status (``states.yaml``), created_at, resolved_at (or, in captures before 2023-05-08 that
    lack it, last_status_change_at) and resolve_reason."""
    items.sort(key=lambda x: x[0])
    trigger = next((x for x in items if x[1] == "trigger_log_entry"), None)
    resolves = [x for x in items if x[1] == "resolve_log_entry"]
    status = str((incident or {}).get("status") or "").strip()
    if status and status not in API_STATUSES and not rules.known(status):
        # read as open, a word nobody named would turn a resolved incident into an open one
        raise InputError("status", f"incident {ref} ({where}): {status!r} is not a PagerDuty status",
                         f"the API writes {', '.join(API_STATUSES)} (lower case); export the incidents from the API, "
                         "or name the word in the map's [states] resolved, closed, deleted or open")
    # Its own record's status decides; a record that states none (or no record) leaves it to the log.
    standing = rules.status(status) if status else ("resolved" if resolves else "open")
    t = Ticket(ref, where, _severity(incident, sev), None, state=status or ("resolved" if resolves else "open"),
               ack_known=bool(items))
    reason = (incident or {}).get("resolve_reason")
    reason_type = reason.get("type") if isinstance(reason, dict) and isinstance(reason.get("type"), str) else None
    found = settings.outcome("PagerDuty", ("resolve_reason", reason_type)) if reason_type else None
    if standing == states.DELETED:
        t.apart = (states.DELETED, f"status {status!r}, which the map's [states] deleted names")
        return t
    if not found and reason_type and rules.merged_by([reason_type]):
        t.apart = (states.MERGED, f"resolve_reason {reason_type!r}: merged into another incident, which carries it")
        return t
    if trigger is not None:
        t.detected, t.detected_label = trigger[0], f"PagerDuty trigger_log_entry ({_agent(trigger[2])})"
        created = _created(incident, times)
        if created is not None and created < trigger[0]:  # the two records disagree: the earlier starts it
            t.detected = created
            t.detected_label = (f"PagerDuty incident created_at, earlier than its trigger_log_entry "
                                f"({trigger[0].isoformat()})")
            t.notes.append(f"created_at {created.isoformat()} is before its trigger_log_entry "
                           f"{trigger[0].isoformat()}: the two records disagree; the clock starts at the earlier")
    elif incident is not None:
        t.detected = times.read(incident.get("created_at"), "created_at")
        t.detected_label = "PagerDuty incident created_at (no trigger_log_entry exported for it)"
    if t.detected is None:
        raise RowProblem("has no trigger_log_entry and no created_at, so its clock cannot start")
    t.acknowledged = next((x[0] for x in items if x[1] == "acknowledge_log_entry"), None)
    if resolves:
        resolve = resolves[-1]
        t.resolved = resolve[0]
        t.earlier = [(x[0], "resolved") for x in resolves[:-1]]
        said = resolve[2].get("channel")
        channel = str(said.get("type") or "") if isinstance(said, dict) else ""
        agent = _agent(resolve[2])
        if agent in MONITORING_AGENTS and channel != "timeout":
            t.check = f"resolved by the monitoring integration in PagerDuty ({agent}, channel {channel or 'n/a'})"
            t.auto_resolved = f"{agent}, channel {channel or 'n/a'}"
        else:
            t.notes.append(f"resolved by {agent or 'an unknown agent'} (channel {channel or 'n/a'}), not by "
                           "the monitoring integration")
            if channel == "timeout":
                t.auto_resolved = "an auto-resolve timeout"
    elif standing != "open" and incident is not None:
        # Resolved in its own record with no resolve_log_entry exported: a closure of the ticket at
        # the record's time, which is no monitoring evidence (who resolved it, and how, is in the log).
        own = times.read(incident.get("resolved_at"), "resolved_at")
        if own is None and incident.get("resolved_at") is None:
            own = times.read(incident.get("last_status_change_at"), "last_status_change_at")
            if own is not None:
                t.notes.append("resolved_at is not in the record (a capture before 2023-05-08): its end is "
                               "last_status_change_at, when it became resolved")
        t.resolved = own
        t.notes.append("resolved in its own record with no resolve_log_entry exported: a closure, not a confirmed "
                       "restore")
    if standing != "open":
        t.ended(f"status {status or 'resolved'}", standing == "resolved")
    if status and resolves and standing == "open":
        t.notes.append(f"its log has a resolve_log_entry, yet its own record's status is {status}")
    for at, kind, e, *_ in items:
        if kind == "annotate_log_entry":
            channel = e.get("channel") if isinstance(e.get("channel"), dict) else {}
            text = channel.get("summary") or channel.get("content") or e.get("summary")
            if isinstance(text, str) and text.strip():
                t.note_stream.append((at, text))
    if found:
        t.outcome = (found[0], found[1], t.resolved)
    return t


def _created(incident: dict[str, Any] | None, times: Times) -> dt.datetime | None:
    """The incident record's own created_at, where it has one that reads (else None: the trigger
    alone starts the clock, as without an incidents export)."""
    if incident is None:
        return None
    try:
        return times.read(incident.get("created_at"), "created_at")
    except RowProblem:
        return None


def _agent(entry: dict[str, Any]) -> str:
    agent = entry.get("agent")
    return str(agent.get("type")) if isinstance(agent, dict) and agent.get("type") else ""


def _severity(incident: dict[str, Any] | None, key: str) -> str | None:
    if incident is None:
        return None
    if key == "urgency":
        return str(incident.get("urgency") or "") or None
    priority = incident.get("priority")
    return str(priority.get("summary")) if isinstance(priority, dict) and priority.get("summary") else None

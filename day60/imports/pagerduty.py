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

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from day60.errors import InputError
from day60.imports import states
from day60.imports.books import Books
from day60.imports.records import (
    RowProblem,
    Settings,
    Ticket,
    Times,
    Unmatched,
    Unreadable,
    check_columns,
    peek,
    read_json_export,
)

DESCRIPTION = ("log_entries JSON (trigger, acknowledge, resolve and annotate entries) and, for severity, the "
               "incidents JSON (priority.summary or urgency)")
MONITORING_AGENTS = ("service_reference", "integration_reference")
TYPES = ("trigger_log_entry", "acknowledge_log_entry", "resolve_log_entry", "annotate_log_entry")
KEYS = ("severity",)


def read(paths: list[Path], settings: Settings, notes: list[str], books: Books) -> Iterator[Ticket | Unreadable
                                                                                          | Unmatched]:
    check_columns(settings, KEYS, "pagerduty")
    rules = states.rules("pagerduty", settings.states)
    times = Times(settings)
    entries: list[tuple[str, str, list[Any]]] = []
    records: list[tuple[str, str, dict[str, Any]]] = []  # (where, file, incident), in the files' order
    listed = False
    for p in paths:
        head = peek(p, "EXPORT")
        key = books.key(p)
        if '"log_entries"' in head:
            items = read_json_export(p, "EXPORT", "log_entries")
            books.read(p, len(items))
            entries.append((p.name, key, items))
        elif '"incidents"' in head:
            listed = True
            items = read_json_export(p, "EXPORT", "incidents")
            books.read(p, len(items))
            for i, inc in enumerate(items):
                where = f"{p.name} item {i + 1}"
                if not isinstance(inc, dict) or inc.get("id") is None or isinstance(inc.get("id"), dict | list):
                    yield Unreadable(where, None, "is not an incident with an id", key)
                    continue
                records.append((where, key, inc))
        else:
            raise InputError("EXPORT", f"{p} is not an export the pagerduty format reads",
                             "it takes the REST API's JSON answers: log_entries and incidents")
    if not entries and not listed:
        raise InputError("EXPORT", "no log_entries or incidents export was given",
                         "give the incident log entries JSON, and the incidents JSON")
    if not listed:
        notes.append("no incidents export was given: no priority or urgency, so every incident is unclassified "
                     "(judged at the strictest target), and no incident's own status is read")
    if not entries:
        notes.append("no log_entries export was given: each incident's clock starts at its created_at, its end is "
                     "its own resolved_at, and no monitoring evidence can confirm a restore")
    by_incident: dict[str, list[tuple[Any, str, dict[str, Any], str, str]]] = {}
    for name, key, items in entries:
        for i, e in enumerate(items):
            where = f"{name} item {i + 1}"
            inc = (e.get("incident") or {}).get("id") if isinstance(e, dict) and isinstance(e.get("incident"),
                                                                                              dict) else None
            if not isinstance(e, dict) or inc is None or not isinstance(e.get("type"), str):
                yield Unreadable(where, None, "is not a log entry with a type and an incident", key)
                continue
            if e["type"] not in TYPES:
                books.skip(key, f"a log entry of a type the import does not read (it reads {', '.join(TYPES)})")
                continue
            try:
                at = times.required(e.get("created_at"), "created_at")
            except RowProblem as exc:
                yield Unreadable(where, str(inc), str(exc), key)
                continue
            by_incident.setdefault(str(inc), []).append((at, e["type"], e, where, key))
    sev = settings.column("severity", "priority")
    if listed:  # the incidents are the list: log entries complete them
        for where, key, incident in records:
            ref = str(incident["id"])
            items = by_incident.pop(ref, [])
            attached: dict[str, int] = {}
            for x in items:
                attached[x[4]] = attached.get(x[4], 0) + 1
            try:
                t = _ticket(ref, items, incident, where, times, settings, rules, sev)
            except RowProblem as exc:
                yield Unreadable(where, ref, str(exc), key)
                for other, n in attached.items():
                    books.add(other, "unreadable", n)
                continue
            t.file, t.attached = key, attached
            yield t
        for ref, items in by_incident.items():  # entries of incidents the incidents export does not list
            counts: dict[str, int] = {}
            for x in items:
                counts[x[4]] = counts.get(x[4], 0) + 1
            for other, n in counts.items():
                yield Unmatched(other, ref, n, "log_entries")
        return
    for ref, items in by_incident.items():  # no incidents export: the log entries are the incidents
        items.sort(key=lambda x: x[0])
        first = items[0]
        try:
            t = _ticket(ref, items, None, first[3], times, settings, rules, sev)
        except RowProblem as exc:
            yield Unreadable(first[3], ref, str(exc), first[4], 1)
            for x in items[1:]:
                books.add(x[4], "unreadable")
            continue
        t.file = first[4]
        for x in items[1:]:
            t.attached[x[4]] = t.attached.get(x[4], 0) + 1
        yield t


def _ticket(ref: str, items: list[tuple[Any, str, dict[str, Any], str, str]], incident: dict[str, Any] | None,
            where: str, times: Times, settings: Settings, rules: states.Rules, sev: str) -> Ticket:
    """One incident from its log entries and, where the incidents export lists it, its own record:
    its status (``states.yaml``), created_at, resolved_at (or, in captures before 2023-05-08 that
    lack it, last_status_change_at) and resolve_reason."""
    items.sort(key=lambda x: x[0])
    trigger = next((x for x in items if x[1] == "trigger_log_entry"), None)
    resolves = [x for x in items if x[1] == "resolve_log_entry"]
    status = str((incident or {}).get("status") or "").strip()
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
    for at, kind, e, _where, _key in items:
        if kind == "annotate_log_entry":
            channel = e.get("channel") if isinstance(e.get("channel"), dict) else {}
            text = channel.get("summary") or channel.get("content") or e.get("summary")
            if isinstance(text, str) and text.strip():
                t.note_stream.append((at, text))
    if found:
        t.outcome = (found[0], found[1], t.resolved)
    return t


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

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
from day60.imports.records import (
    RowProblem,
    Settings,
    Ticket,
    Times,
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


def read(paths: list[Path], settings: Settings, notes: list[str]) -> Iterator[Ticket | Unreadable]:
    check_columns(settings, KEYS, "pagerduty")
    times = Times(settings)
    entries: list[tuple[str, list[Any]]] = []
    incidents: dict[str, dict[str, Any]] = {}
    for p in paths:
        head = peek(p, "EXPORT")
        if '"log_entries"' in head:
            entries.append((p.name, read_json_export(p, "EXPORT", "log_entries")))
        elif '"incidents"' in head:
            for inc in read_json_export(p, "EXPORT", "incidents"):
                if isinstance(inc, dict) and inc.get("id") is not None:
                    incidents[str(inc["id"])] = inc
        else:
            raise InputError("EXPORT", f"{p} is not an export the pagerduty format reads",
                             "it takes the REST API's JSON answers: log_entries and incidents")
    if not entries:
        raise InputError("EXPORT", "no log_entries export was given", "give the incident log entries JSON")
    if not incidents:
        notes.append("no incidents export was given: no priority or urgency, so every incident is unclassified "
                     "(judged at the strictest target)")
    by_incident: dict[str, list[tuple[Any, str, dict[str, Any], str]]] = {}
    for name, items in entries:
        for i, e in enumerate(items):
            where = f"{name} item {i + 1}"
            inc = (e.get("incident") or {}).get("id") if isinstance(e, dict) and isinstance(e.get("incident"),
                                                                                              dict) else None
            if not isinstance(e, dict) or inc is None or not isinstance(e.get("type"), str):
                yield Unreadable(where, None, "is not a log entry with a type and an incident")
                continue
            if e["type"] not in TYPES:
                continue
            try:
                at = times.required(e.get("created_at"), "created_at")
            except RowProblem as exc:
                yield Unreadable(where, str(inc), str(exc))
                continue
            by_incident.setdefault(str(inc), []).append((at, e["type"], e, where))
    key = settings.column("severity", "priority")
    for ref, items in by_incident.items():
        items.sort(key=lambda x: x[0])
        trigger = next((x for x in items if x[1] == "trigger_log_entry"), None)
        resolves = [x for x in items if x[1] == "resolve_log_entry"]
        where = (trigger or items[0])[3]
        if trigger is None:
            yield Unreadable(where, ref, "has no trigger_log_entry, so its clock cannot start")
            continue
        incident = incidents.get(ref)
        t = Ticket(ref, where, _severity(incident, key), None, detected=trigger[0],
                   detected_label=f"PagerDuty trigger_log_entry ({_agent(trigger[2])})",
                   state="resolved" if resolves else "open", ack_known=True)
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
        for at, kind, e, _where in items:
            if kind == "annotate_log_entry":
                channel = e.get("channel") if isinstance(e.get("channel"), dict) else {}
                text = channel.get("summary") or channel.get("content") or e.get("summary")
                if isinstance(text, str) and text.strip():
                    t.note_stream.append((at, text))
        reason = (incident or {}).get("resolve_reason")
        if isinstance(reason, dict) and isinstance(reason.get("type"), str):
            found = settings.outcome("PagerDuty", ("resolve_reason", reason["type"]))
            if found:
                t.outcome = (found[0], found[1], t.resolved)
        yield t


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

"""Zendesk: tickets, ticket_metrics and ticket_metric_events, as the Support API returns them.

Times are ISO 8601 in UTC. Pauses come from ``ticket_metric_events``: the
``requester_wait_time`` metric pauses while a ticket is pending (waiting on the requester, the
partner) and activates again when it leaves pending; ``agent_work_time`` also pauses for
on-hold, which is the supplier waiting on a third party: its own time, not excluded. The
resolution is ``ticket_metrics.solved_at`` (else the ``requester_wait_time`` fulfil), and the
vendor's own duration is ``full_resolution_time_in_minutes`` {calendar, business}.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from day60.errors import InputError
from day60.imports.records import (
    Pause,
    RowProblem,
    Settings,
    Ticket,
    Times,
    Unreadable,
    number,
    peek,
    read_json_export,
)

DESCRIPTION = ("tickets JSON, ticket_metrics JSON and ticket_metric_events JSON from the Support API "
               "(pending = waiting on the requester)")
_KEYS = ("tickets", "ticket_metrics", "ticket_metric_events")


def _kind(p: Path) -> str:
    head = peek(p, "EXPORT")
    found = [k for k in _KEYS if f'"{k}"' in head]
    if not found:
        raise InputError("EXPORT", f"{p} is not a tickets, ticket_metrics or ticket_metric_events export",
                         "give the Support API's JSON exports")
    return max(found, key=len)


def read(paths: list[Path], settings: Settings, notes: list[str]) -> Iterator[Ticket | Unreadable]:
    times = Times(settings)
    docs: dict[str, list[tuple[str, list[Any]]]] = {k: [] for k in _KEYS}
    for p in paths:
        kind = _kind(p)
        docs[kind].append((p.name, read_json_export(p, "EXPORT", kind)))
    if not docs["tickets"]:
        raise InputError("EXPORT", "no tickets export was given", "give the tickets JSON export")
    metrics: dict[str, dict[str, Any]] = {}
    for _name, items in docs["ticket_metrics"]:
        for m in items:
            if isinstance(m, dict) and "ticket_id" in m:
                metrics[str(m["ticket_id"])] = m
    events: dict[str, list[tuple[dt.datetime, str, str]]] = {}
    for name, items in docs["ticket_metric_events"]:
        for i, e in enumerate(items):
            if not isinstance(e, dict) or e.get("metric") not in ("requester_wait_time", "agent_work_time"):
                continue
            try:
                at = times.required(e.get("time"), "time")
            except RowProblem as exc:
                yield Unreadable(f"{name} item {i + 1}", str(e.get("ticket_id")), str(exc))
                continue
            events.setdefault(str(e.get("ticket_id")), []).append((at, e["metric"], str(e.get("type"))))
    if not docs["ticket_metric_events"]:
        notes.append("no ticket_metric_events export was given: pending intervals cannot be rebuilt, so no "
                     "waiting on the partner is excluded")
    for name, items in docs["tickets"]:
        for i, item in enumerate(items):
            where = f"{name} item {i + 1}"
            ref = str(item.get("id")) if isinstance(item, dict) else None
            try:
                if not isinstance(item, dict) or item.get("id") is None:
                    raise RowProblem("is not a ticket with an id")
                yield _ticket(item, where, times, settings, metrics.get(ref, {}), events.get(ref, []))
            except RowProblem as exc:
                yield Unreadable(where, ref, str(exc))


def _field(item: dict[str, Any], key: str) -> Any:
    """A ticket field, or a custom field written ``custom_field:ID``."""
    if key.startswith("custom_field:"):
        wanted = key.split(":", 1)[1]
        return next((f.get("value") for f in item.get("custom_fields") or [] if isinstance(f, dict)
                     and str(f.get("id")) == wanted), None)
    return item.get(key)


def _ticket(item: dict[str, Any], where: str, times: Times, settings: Settings, metric: dict[str, Any],
            events: list[tuple[dt.datetime, str, str]]) -> Ticket:
    col = settings.column
    severity = _field(item, col("severity", "priority"))
    t = Ticket(str(item["id"]), where, None if severity is None else str(severity),
               times.read(item.get("created_at"), "created_at"), state=str(item.get("status") or ""))
    if col("check"):
        check = _field(item, col("check"))
        t.check = str(check).strip() if check not in (None, "", False) else None
    events = sorted(events, key=lambda e: e[0])
    t.resolved = times.read(metric.get("solved_at"), "solved_at")
    if t.resolved is None:
        t.resolved = next((at for at, m, kind in events if m == "requester_wait_time" and kind == "fulfill"), None)
    if t.resolved is None and t.state == "closed":
        t.notes.append("closed without a solved time")
    waits = _intervals(events, "requester_wait_time")
    t.pauses = [Pause("wait", s, e, "pending: waiting on the requester") for s, e in waits]
    wait_starts = {s for s, _ in waits}
    t.pauses += [Pause("kept", s, e, "on-hold: the supplier waiting on a third party")
                 for s, e in _intervals(events, "agent_work_time") if s not in wait_starts]
    full = metric.get("full_resolution_time_in_minutes")
    if isinstance(full, dict):
        t.vendor_hours = number(_text(full.get("calendar")), "full_resolution_time_in_minutes.calendar", 1 / 60)
        t.vendor_business_hours = number(_text(full.get("business")), "full_resolution_time_in_minutes.business",
                                         1 / 60)
        t.vendor_label = "Zendesk full_resolution_time_in_minutes {calendar, business}"
    return t


def _text(value: Any) -> str | None:
    if isinstance(value, bool):
        raise RowProblem("a duration is true or false, not a number")
    return None if value is None else str(value)


def _intervals(events: list[tuple[dt.datetime, str, str]], metric: str) -> list[tuple[dt.datetime, dt.datetime | None]]:
    out: list[tuple[dt.datetime, dt.datetime | None]] = []
    paused = None
    for at, m, kind in events:
        if m != metric:
            continue
        if kind == "pause" and paused is None:
            paused = at
        elif kind in ("activate", "fulfill") and paused is not None:
            out.append((paused, at))
            paused = None
    if paused is not None:
        out.append((paused, None))
    return out

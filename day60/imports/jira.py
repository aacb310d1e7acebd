"""Jira Service Management: the issue CSV, the changelog JSON and the SLA JSON.

The CSV (``Issue key``, ``Created``, ``Resolved``, ``Priority``, ``Status``) holds times in the
exporting user's zone and date format (by default ``02/Mar/26 9:15 AM``), so the zone must be
stated. Status changes come from the changelog as the REST search returns it with
``expand=changelog`` (``issues[].key``, ``changelog.histories[].created`` and ``items[]`` with
``field`` "status", ``fromString``, ``toString``). "Waiting for customer" is time waiting on
the partner; other statuses are the supplier's time unless the map's [pauses] says otherwise.
The SLA JSON (the Service Management ``/request/{key}/sla`` answer per issue, keyed by issue
key) gives the vendor's own ``elapsedTime`` for reconciling; its cycles are not used as pauses.
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
    csv_rows,
    require_columns,
)

PAUSES = {"Waiting for customer": "wait", "Pending": "kept"}
CLOSED = ("Closed", "Canceled", "Cancelled", "Done")
SLA_NAME = "Time to resolution"
DATE_FORMAT = "%d/%b/%y %I:%M %p"
DESCRIPTION = ("issue CSV (Issue key, Created, Resolved, Priority, Status) with --zone, the changelog JSON "
               "(search with expand=changelog) and the SLA JSON (elapsedTime of 'Time to resolution')")


def _load_json(p: Path) -> tuple[str, Any]:
    from day60.files import loads_json, read_bytes
    from day60.imports.records import MAX_JSON_EXPORT_BYTES

    doc = loads_json(read_bytes(p, "EXPORT", "a JSON export", MAX_JSON_EXPORT_BYTES), "EXPORT", "a JSON export", str(p))
    if isinstance(doc, dict) and isinstance(doc.get("issues"), list):
        return "changelog", doc["issues"]
    if isinstance(doc, dict):
        return "sla", doc
    raise InputError("EXPORT", f"{p} is neither a changelog export ('issues') nor an SLA export (issue key to "
                               "its SLA answer)", "give the exports as the Jira APIs return them")


def read(paths: list[Path], settings: Settings, notes: list[str]) -> Iterator[Ticket | Unreadable]:
    csv_times = Times(Settings(settings.zone, settings.date_format or DATE_FORMAT), how="state the exporting "
                      "user's time zone with --zone (Jira writes CSV times in it, without an offset)")
    api_times = Times(settings)
    history: dict[str, list[tuple[dt.datetime, str]]] = {}
    sla: dict[str, Any] = {}
    issues = []
    for p in paths:
        if p.suffix.lower() == ".json":
            kind, doc = _load_json(p)
            if kind == "sla":
                sla.update(doc)
                continue
            for i, issue in enumerate(doc):
                yield from _history(issue, f"{p.name} issue {i + 1}", api_times, history)
        else:
            issues.append((p, *csv_rows(p, "EXPORT")))
    if not issues:
        raise InputError("EXPORT", "no issue CSV was given", "give the Jira Service Management CSV export")
    if not history:
        notes.append("no changelog export was given: status intervals cannot be rebuilt, so no waiting on the "
                     "partner and no change window is excluded")
    pauses_of = {**PAUSES, **settings.pauses}
    sev = settings.column("severity", "Priority")
    for p, header, rows in issues:
        require_columns(header, ["Issue key", "Created", "Resolved", "Status", sev], p, "EXPORT", "a Jira CSV export")
        for n, row in rows:
            where = f"{p.name} row {n}"
            if "\0problem" in row:
                yield Unreadable(where, None, row["\0problem"])
                continue
            try:
                yield _ticket(row, where, csv_times, settings, history, sla, pauses_of)
            except RowProblem as exc:
                yield Unreadable(where, row.get("Issue key"), str(exc))


def _history(issue: Any, where: str, times: Times, history: dict[str, list[tuple[dt.datetime, str]]]) \
        -> Iterator[Unreadable]:
    key = issue.get("key") if isinstance(issue, dict) else None
    histories = (issue.get("changelog") or {}).get("histories") if isinstance(issue, dict) else None
    if not isinstance(key, str) or not isinstance(histories, list):
        yield Unreadable(where, None, "is not an issue with a key and changelog.histories")
        return
    for h in histories:
        try:
            at = times.required(h.get("created") if isinstance(h, dict) else None, "created")
            items = h.get("items") if isinstance(h, dict) else None
            if not isinstance(items, list):
                raise RowProblem("a history entry has no items")
        except RowProblem as exc:
            yield Unreadable(where, key, str(exc))
            continue
        for item in items:
            if isinstance(item, dict) and item.get("field") == "status" and isinstance(item.get("toString"), str):
                history.setdefault(key.strip(), []).append((at, item["toString"]))


def _ticket(row: dict[str, str], where: str, times: Times, settings: Settings,
            history: dict[str, list[tuple[dt.datetime, str]]], sla: dict[str, Any],
            pauses_of: dict[str, str]) -> Ticket:
    col = settings.column
    key = row["Issue key"].strip()
    t = Ticket(key, where, row[col("severity", "Priority")], times.read(row["Created"], "Created"),
               resolved=times.read(row["Resolved"], "Resolved"), state=row["Status"].strip())
    if col("check"):
        if col("check") not in row:
            raise InputError("--map columns.check", f"the CSV has no column {col('check')!r}", "name a column it has")
        t.check = row[col("check")].strip() or None
    changes = sorted(history.get(key, []), key=lambda c: c[0])
    open_at, open_status = None, ""
    for at, status in changes:
        if open_at is not None:
            t.pauses.append(Pause(pauses_of[open_status], open_at, at, f"status: {open_status}"))
            open_at = None
        if status in pauses_of:
            open_at, open_status = at, status
        if status in CLOSED and t.resolved is None:
            t.closed = at
    if open_at is not None:
        t.pauses.append(Pause(pauses_of[open_status], open_at, None, f"status: {open_status}"))
    if t.state in CLOSED and t.resolved is None and t.closed is None:
        t.notes.append(f"{t.state} without a resolution, and the changelog gives no time for it")
    answer = sla.get(key)
    if answer is not None:
        t.vendor_business_hours, note = _elapsed(answer)
        t.vendor_label = f"Jira SLA '{SLA_NAME}' elapsedTime (on the SLA's own calendar)"
        if note:
            t.notes.append(note)
    return t


def _elapsed(answer: Any) -> tuple[float | None, str | None]:
    values = answer.get("values") if isinstance(answer, dict) else None
    metric = next((v for v in values or [] if isinstance(v, dict) and v.get("name") == SLA_NAME), None)
    if metric is None:
        return None, f"the SLA export has no '{SLA_NAME}' metric"
    millis = 0.0
    for cycle in metric.get("completedCycles") or []:
        value = ((cycle or {}).get("elapsedTime") or {}).get("millis")
        if not isinstance(value, int | float) or isinstance(value, bool) or value < 0:
            return None, "an SLA cycle's elapsedTime.millis is not a duration"
        millis += value
    ongoing = metric.get("ongoingCycle")
    note = None
    if isinstance(ongoing, dict):
        value = (ongoing.get("elapsedTime") or {}).get("millis")
        if isinstance(value, int | float) and not isinstance(value, bool) and value >= 0:
            millis += value
        note = "the SLA was still running at export" + (" (paused)" if ongoing.get("paused") else "")
    return millis / 3_600_000, note

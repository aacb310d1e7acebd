"""ServiceNow: the incident table export, with its sys_audit history for On Hold intervals.

A ServiceNow CSV holds no offset. Exported with raw values (``sysparm_display_value=false``) its
times are the database's UTC values and choices are codes; the default display-value CSV and
the Excel export hold the exporting user's zone and labels. Nothing in the file says which, so
the BPO states it: ``--mode raw`` or ``--mode display --zone ZONE``.

On Hold intervals come from sys_audit rows (``documentkey`` = the incident's ``sys_id``,
``fieldname`` state or hold_reason, ``newvalue``, ``sys_created_on``). Awaiting Caller is time
waiting on the partner; Awaiting Change is a change window; Awaiting Problem and Awaiting
Vendor are the supplier's own time and are not excluded.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from day60.clock import to_utc_us
from day60.errors import InputError
from day60.imports.records import (
    Pause,
    RowProblem,
    Settings,
    Ticket,
    Times,
    Unreadable,
    csv_rows,
    number,
    require_columns,
)

STATES = {"1": "New", "2": "In Progress", "3": "On Hold", "6": "Resolved", "7": "Closed", "8": "Canceled"}
HOLD_REASONS = {"1": "Awaiting Caller", "5": "Awaiting Change", "3": "Awaiting Problem", "4": "Awaiting Vendor"}
PAUSES = {"Awaiting Caller": "wait", "Awaiting Change": "change", "Awaiting Problem": "kept",
          "Awaiting Vendor": "kept"}
DESCRIPTION = ("incident table CSV (number, opened_at, resolved_at, closed_at, priority, state, hold_reason, "
               "sys_id, calendar_stc, business_stc) and its sys_audit CSV; --mode raw (UTC) or --mode display "
               "--zone ZONE")


def _label(value: str, table: dict[str, str]) -> str:
    value = (value or "").strip()
    return table.get(value, value)


def read(paths: list[Path], settings: Settings, notes: list[str]) -> Iterator[Ticket | Unreadable]:
    if settings.mode not in ("raw", "display"):
        raise InputError("--mode", "a ServiceNow export does not say whether its times are UTC database values "
                                   "or the exporting user's display times",
                         "say --mode raw (exported with raw values: UTC) or --mode display --zone ZONE (the default "
                         "CSV or Excel export, in the exporting user's time zone)")
    if settings.mode == "display" and settings.zone is None:
        raise InputError("--zone", "a display-value export holds times in the exporting user's time zone",
                         "give that zone, e.g. --zone Europe/London (the user's profile shows it)")
    times = Times(settings, utc=settings.mode == "raw")
    incidents, audits = [], []
    for p in paths:
        header, rows = csv_rows(p, "EXPORT")
        if "number" in header:
            incidents.append((p, header, rows))
        elif "documentkey" in header and "fieldname" in header:
            audits.append((p, header, rows))
        else:
            raise InputError("EXPORT", f"{p} is neither an incident export (a 'number' column) nor a sys_audit "
                                       "export ('documentkey' and 'fieldname')", "give the incident CSV and, "
                                       "optionally, its sys_audit CSV")
    if not incidents:
        raise InputError("EXPORT", "no incident export was given", "give the incident table's CSV export")
    history: dict[str, list[tuple[int, int, str, str, str]]] = {}
    for p, header, rows in audits:
        require_columns(header, ["documentkey", "fieldname", "newvalue", "sys_created_on"], p, "EXPORT",
                        "a sys_audit export")
        for n, row in rows:
            if "\0problem" in row:
                yield Unreadable(f"{p.name} row {n}", None, row["\0problem"])
                continue
            if row.get("tablename", "incident") != "incident" or row["fieldname"] not in ("state", "hold_reason"):
                continue
            try:
                at = times.read(row["sys_created_on"], "sys_created_on")
            except RowProblem as exc:
                yield Unreadable(f"{p.name} row {n}", row["documentkey"], str(exc))
                continue
            if at is None:
                yield Unreadable(f"{p.name} row {n}", row["documentkey"], "sys_created_on is empty")
                continue
            table = STATES if row["fieldname"] == "state" else HOLD_REASONS
            history.setdefault(row["documentkey"].strip(), []).append(
                (to_utc_us(at), n, row["fieldname"], _label(row.get("oldvalue", ""), table),
                 _label(row["newvalue"], table)))
    if not audits:
        notes.append("no sys_audit export was given: On Hold intervals cannot be rebuilt, so no waiting on the "
                     "partner and no change window is excluded")
    pauses_of = {**PAUSES, **settings.pauses}
    sev_col = settings.column("severity", "priority")
    for p, header, rows in incidents:
        needed = ["number", "opened_at", "state", sev_col]
        optional = [settings.column(k) for k in ("check", "detected", "partner_notice", "communicated")]
        require_columns(header, needed + [c for c in optional if c], p, "EXPORT", "an incident export")
        if audits and "sys_id" not in header:
            raise InputError("EXPORT", f"{p} lacks the sys_id column that joins it to sys_audit",
                             "export the incident table with its sys_id column")
        for n, row in rows:
            where = f"{p.name} row {n}"
            if "\0problem" in row:
                yield Unreadable(where, None, row["\0problem"])
                continue
            try:
                yield _ticket(row, where, times, settings, history, pauses_of, bool(audits))
            except RowProblem as exc:
                yield Unreadable(where, row.get("number"), str(exc))


def _ticket(row: dict[str, str], where: str, times: Times, settings: Settings,
            history: dict[str, list[tuple[int, int, str, str, str]]], pauses_of: dict[str, str],
            audited: bool) -> Ticket:
    col = settings.column
    state = _label(row["state"], STATES)
    t = Ticket(row["number"], where, row[col("severity", "priority")], times.read(row["opened_at"], "opened_at"),
               resolved=times.read(row.get("resolved_at"), "resolved_at"),
               closed=times.read(row.get("closed_at"), "closed_at"), state=state)
    for key in ("detected", "partner_notice", "communicated"):
        if col(key):
            setattr(t, key, times.read(row[col(key)], col(key)))
    if col("detected"):
        t.detected_label = f"the export's {col('detected')} column"
    if col("check"):
        t.check = row[col("check")].strip() or None
    t.vendor_hours = number(row.get("calendar_stc"), "calendar_stc", 1 / 3600)
    t.vendor_business_hours = number(row.get("business_stc"), "business_stc", 1 / 3600)
    t.vendor_label = "ServiceNow calendar_stc and business_stc (opened to resolved, on its own schedule)"
    if audited:
        t.pauses = _holds(history.get(row.get("sys_id", "").strip(), []), t, pauses_of)
    elif state == "On Hold":
        t.notes.append(f"on hold ({_label(row.get('hold_reason', ''), HOLD_REASONS) or 'no reason'}) at export; "
                       "its hold intervals need the sys_audit export")
    return t


def _holds(changes: list[tuple[int, int, str, str, str]], t: Ticket, pauses_of: dict[str, str]) -> list[Pause]:
    """On Hold intervals, one per hold reason, from the state and hold_reason audit trail."""
    import datetime as dt

    changes = sorted(changes)
    first_state = next((c for c in changes if c[2] == "state"), None)
    first_reason = next((c for c in changes if c[2] == "hold_reason"), None)
    state = first_state[3] if first_state else ""
    reason = first_reason[3] if first_reason else ""
    out: list[Pause] = []
    open_at, open_reason = (t.opened, reason) if state == "On Hold" and t.opened else (None, "")
    i = 0
    while i < len(changes):
        us = changes[i][0]
        while i < len(changes) and changes[i][0] == us:  # one update sets state and reason together
            if changes[i][2] == "state":
                state = changes[i][4]
            else:
                reason = changes[i][4]
            i += 1
        at = dt.datetime.fromtimestamp(us / 1_000_000, dt.UTC)
        if open_at is not None and (state != "On Hold" or reason != open_reason):
            out.append(_pause(open_at, at, open_reason, pauses_of))
            open_at = None
        if state == "On Hold" and open_at is None:
            open_at, open_reason = at, reason
    if open_at is not None:
        out.append(_pause(open_at, None, open_reason, pauses_of))
    return out


def _pause(start, end, reason: str, pauses_of: dict[str, str]) -> Pause:
    label = f"On Hold: {reason or 'no reason given'}"
    return Pause(pauses_of.get(reason, "kept"), start, end, label)

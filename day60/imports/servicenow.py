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

import datetime as dt
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb

from day60.clock import to_utc_us
from day60.errors import InputError
from day60.imports.records import (
    Pause,
    RowProblem,
    Settings,
    Ticket,
    Times,
    Unreadable,
    csv_header,
    number,
    require_columns,
)
from day60.timeparse import EARLIEST, LATEST

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


_EPOCH = dt.datetime(1970, 1, 1)
_EPOCH_UTC = _EPOCH.replace(tzinfo=dt.UTC)
_EARLIEST_US, _LATEST_US = to_utc_us(EARLIEST), to_utc_us(LATEST)
_SEP, _END = "\x1f", "\x1e"  # unit and record separators inside the aggregated history


def read(paths: list[Path], settings: Settings, notes: list[str]) -> Iterator[Ticket | Unreadable]:
    """The export's tickets, streamed. DuckDB reads the CSVs, parses their times in bulk and joins
    each incident to its sys_audit history (spilling to disk past its memory limit), so a year of
    tickets and their history never sit in Python's memory at once."""
    if settings.mode not in ("raw", "display"):
        raise InputError("--mode", "a ServiceNow export does not say whether its times are UTC database values "
                                   "or the exporting user's display times",
                         "say --mode raw (exported with raw values: UTC) or --mode display --zone ZONE (the default "
                         "CSV or Excel export, in the exporting user's time zone)")
    if settings.mode == "display" and settings.zone is None:
        raise InputError("--zone", "a display-value export holds times in the exporting user's time zone",
                         "give that zone, e.g. --zone Europe/London (the user's profile shows it)")
    times = Times(settings, utc=settings.mode == "raw")
    fmt = settings.date_format or "%Y-%m-%d %H:%M:%S"
    incidents, audits = [], []
    for p in paths:
        header = csv_header(p, "EXPORT")
        if "number" in header:
            incidents.append((p, header))
        elif "documentkey" in header and "fieldname" in header:
            require_columns(header, ["documentkey", "fieldname", "oldvalue", "newvalue", "sys_created_on"], p,
                            "EXPORT", "a sys_audit export")
            audits.append((p, header))
        else:
            raise InputError("EXPORT", f"{p} is neither an incident export (a 'number' column) nor a sys_audit "
                                       "export ('documentkey' and 'fieldname')", "give the incident CSV and, "
                                       "optionally, its sys_audit CSV")
    if not incidents:
        raise InputError("EXPORT", "no incident export was given", "give the incident table's CSV export")
    if not audits:
        notes.append("no sys_audit export was given: On Hold intervals cannot be rebuilt, so no waiting on the "
                     "partner and no change window is excluded")
    col = settings.column
    times_cols = ["opened_at", "resolved_at", "closed_at"] + [c for c in (col("detected"), col("partner_notice"),
                                                                          col("communicated")) if c]
    text_cols = ["number", col("severity", "priority"), "state", "hold_reason", "calendar_stc", "business_stc"] \
        + ([col("check")] if col("check") else [])
    for p, header in incidents:
        require_columns(header, ["number", "opened_at", "state", col("severity", "priority")]
                        + [c for c in times_cols[3:] + text_cols[6:]], p, "EXPORT", "an incident export")
        if audits and "sys_id" not in header:
            raise InputError("EXPORT", f"{p} lacks the sys_id column that joins it to sys_audit",
                             "export the incident table with its sys_id column")
    with tempfile.TemporaryDirectory(prefix="day60-import-") as spill:
        con = _connect(spill)
        try:
            yield from _audit_problems(con, audits, fmt)
            for p, header in incidents:
                yield from _incidents(con, p, header, audits, times_cols, text_cols, fmt, times, settings)
        except duckdb.Error as exc:
            raise InputError("EXPORT", f"the export cannot be read ({str(exc).splitlines()[0][:160]})",
                             "export it again as UTF-8 CSV") from None
        finally:
            con.close()


def _connect(spill: str) -> duckdb.DuckDBPyConnection:
    return duckdb.connect(config={"memory_limit": "1GB", "temp_directory": spill, "preserve_insertion_order": True})


def _lit(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _csv(p: Path, rejects: str) -> str:
    return (f"read_csv({_lit(str(p))}, all_varchar=true, header=true, delim=',', quote='\"', escape='\"', "
            f"store_rejects=true, rejects_table={_lit(rejects)}, rejects_scan={_lit(rejects + '_scan')})")


def _history_sql(audits: list[tuple[Path, list[str]]], fmt: str) -> str:
    parts = []
    for n, (p, header) in enumerate(audits):
        table = "tablename = 'incident' AND " if "tablename" in header else ""
        clean = "trim(replace(replace(coalesce({}, ''), chr(30), ' '), chr(31), ' '))"
        parts.append(f"SELECT trim(documentkey) AS k, epoch_us(try_strptime(trim(sys_created_on), {_lit(fmt)})) AS us, "
                     f"fieldname AS f, {clean.format('oldvalue')} AS o, {clean.format('newvalue')} AS n "
                     f"FROM {_csv(p, f'rej_audit_{n}')} WHERE {table}fieldname IN ('state', 'hold_reason')")
    return " UNION ALL ".join(parts)


def _audit_problems(con: duckdb.DuckDBPyConnection, audits: list[tuple[Path, list[str]]], fmt: str) \
        -> Iterator[Unreadable]:
    """Audit rows that cannot be read, each listed; the history is built from the rest."""
    if not audits:
        return
    con.execute(f"CREATE TEMP TABLE audit AS {_history_sql(audits, fmt)}")
    for n, (p, _header) in enumerate(audits):
        for line, message in con.execute(f"SELECT line, error_message FROM rej_audit_{n} ORDER BY line").fetchall():
            yield Unreadable(f"{p.name} line {line}", None, message.splitlines()[0][:200])
    bad = con.execute("SELECT k, count(*) FROM audit WHERE us IS NULL GROUP BY k ORDER BY k").fetchall()
    for key, count in bad:
        yield Unreadable(f"sys_audit rows for {key}", key, f"{count} row(s) with sys_created_on empty or not in the "
                                                           f"form {fmt}; those changes are left out")


def _incidents(con: duckdb.DuckDBPyConnection, p: Path, header: list[str], audits: list, times_cols: list[str],
               text_cols: list[str], fmt: str, times: Times, settings: Settings) -> Iterator[Ticket | Unreadable]:
    present_times = [c for c in times_cols if c in header]
    select = [f"{_ident(c)}" for c in text_cols if c in header] + \
        [f"{_ident(c)}, epoch_us(try_strptime(trim({_ident(c)}), {_lit(fmt)}))" for c in present_times]
    names = [c for c in text_cols if c in header] + [x for c in present_times for x in (c, c + "\0us")]
    history = ""
    if audits:
        history = ("LEFT JOIN (SELECT k, string_agg(concat_ws(chr(31), us, f, o, n), chr(30) ORDER BY us, f) AS h "
                   "FROM audit WHERE us IS NOT NULL GROUP BY k) h ON h.k = trim(i.sys_id)")
        select.append("h.h")
        names.append("\0history")
    cur = con.execute(f"SELECT {', '.join(select)} FROM {_csv(p, 'rej_incident')} i {history}")
    pauses_of = {**PAUSES, **settings.pauses}
    while rows := cur.fetchmany(20_000):
        for values in rows:
            row = dict(zip(names, values, strict=True))
            where = f"{p.name} {row['number']}"
            try:
                yield _ticket(row, where, times, settings, pauses_of, bool(audits), fmt)
            except RowProblem as exc:
                yield Unreadable(where, row["number"], str(exc))
    for line, message in con.execute("SELECT line, error_message FROM rej_incident ORDER BY line").fetchall():
        yield Unreadable(f"{p.name} line {line}", None, message.splitlines()[0][:200])
    con.execute("DROP TABLE IF EXISTS rej_incident; DROP TABLE IF EXISTS rej_incident_scan")


def _at(row: dict[str, Any], column: str | None, times: Times, fmt: str) -> dt.datetime | None:
    """A time DuckDB parsed (as naive microseconds), made aware here, with the row's own words
    when it could not be parsed."""
    if not column or column not in row:
        return None
    raw = (row[column] or "").strip()
    if not raw:
        return None
    us = row[column + "\0us"]
    if us is None:
        raise RowProblem(f"{column}: {raw[:40]!r} is not a date and time in the form {fmt}")
    if times.zone is dt.UTC and _EARLIEST_US <= us < _LATEST_US:  # raw values: UTC as written
        return _EPOCH_UTC + dt.timedelta(microseconds=us)
    return times.attach(_EPOCH + dt.timedelta(microseconds=us), raw, column)


def _ticket(row: dict[str, Any], where: str, times: Times, settings: Settings, pauses_of: dict[str, str],
            audited: bool, fmt: str) -> Ticket:
    col = settings.column
    state = _label(row["state"], STATES)
    t = Ticket(row["number"] or "", where, row[col("severity", "priority")], _at(row, "opened_at", times, fmt),
               resolved=_at(row, "resolved_at", times, fmt), closed=_at(row, "closed_at", times, fmt), state=state)
    for key in ("detected", "partner_notice", "communicated"):
        if col(key):
            setattr(t, key, _at(row, col(key), times, fmt))
    if col("detected"):
        t.detected_label = f"the export's {col('detected')} column"
    if col("check"):
        t.check = (row[col("check")] or "").strip() or None
    t.vendor_hours = number(row.get("calendar_stc"), "calendar_stc", 1 / 3600)
    t.vendor_business_hours = number(row.get("business_stc"), "business_stc", 1 / 3600)
    t.vendor_label = "ServiceNow calendar_stc and business_stc (opened to resolved, on its own schedule)"
    if audited:
        t.pauses = _holds(_changes(row["\0history"], times), t, pauses_of)
    elif state == "On Hold":
        t.notes.append(f"on hold ({_label(row.get('hold_reason') or '', HOLD_REASONS) or 'no reason'}) at export; "
                       "its hold intervals need the sys_audit export")
    return t


def _changes(history: str | None, times: Times) -> list[tuple[int, int, str, str, str]]:
    """The aggregated history as (UTC microseconds, order, field, old label, new label)."""
    out = []
    local = times.zone is not dt.UTC
    for n, entry in enumerate(history.split(_END) if history else ()):
        us, field, old, new = entry.split(_SEP)
        table = STATES if field == "state" else HOLD_REASONS
        if local:  # a display export: each local time must exist, and exist once
            naive = _EPOCH + dt.timedelta(microseconds=int(us))
            us = to_utc_us(times.attach(naive, naive.isoformat(sep=" "), "sys_created_on"))
        out.append((int(us), n, field, table.get(old, old), table.get(new, new)))
    return out


def _holds(changes: list[tuple[int, int, str, str, str]], t: Ticket, pauses_of: dict[str, str]) -> list[Pause]:
    """On Hold intervals, one per hold reason, from the state and hold_reason audit trail."""
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

"""ServiceNow: the incident table export and, beside it, the tables that complete it.

A ServiceNow CSV holds no offset. Exported with raw values (``sysparm_display_value=false``) its
times are the database's UTC values and choices are codes; the default display-value CSV and
the Excel export hold the exporting user's zone and labels. Nothing in the file says which, so
the BPO states it: ``--mode raw`` or ``--mode display --zone ZONE``.

The files it takes, told apart by their columns (each named in ``TABLES``):

- ``incident`` (``number``, ``opened_at``): the tickets. ``state`` 8 (Canceled) and the
  ``close_code`` values the map's [outcomes] names are withdrawals or exclusions;
  ``calendar_stc``/``business_stc`` are ServiceNow's own opened-to-resolved durations;
  ``reopen_count`` is its own count of re-opens; ``rfc`` names the change request that fixes it.
- ``sys_audit`` (``documentkey``, ``fieldname``): the history. On Hold intervals come from the
  state and hold_reason rows: Awaiting Caller is time waiting on the partner, Awaiting Change a
  change window, Awaiting Problem and Awaiting Vendor the supplier's own time (not excluded);
  a state moving to Resolved or Closed is a resolution and one moving back from them a re-open.
- ``change_request`` (``number``, ``start_date``, ``end_date``): the planned window of the change
  an incident's ``rfc`` names is an agreed change window when the change was approved
  (``approval`` approved; without that column, a state of Scheduled, Implement, Review or
  Closed).
- ``task_sla`` (``task``, ``sla``, ``stage``): the SLA records. The one the map's [sla] name
  names (or a ticket's only one) is the vendor's own clock for the reconciliation: its
  ``start_time``, ``end_time``, ``duration``, ``business_duration``, ``pause_duration`` and
  ``schedule``.
- ``sys_journal_field`` (``element_id``, ``element``, ``value``): work notes and comments, read
  with the map's [notes].

DuckDB reads the incident, audit and journal-field CSVs (streamed, spilling to disk), from the
file this process opened, never by name.
"""

from __future__ import annotations

import datetime as dt
import re
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from day60.clock import to_utc_us
from day60.errors import InputError
from day60.imports.records import (
    Held,
    Pause,
    RowProblem,
    Settings,
    Ticket,
    Times,
    Unreadable,
    VendorClock,
    check_columns,
    confirm,
    csv_header,
    csv_rows,
    number,
    refuse_twice,
    require_columns,
)
from day60.timeparse import EARLIEST, LATEST

if TYPE_CHECKING:  # DuckDB starts only when a ServiceNow export is read, not on every import of the package
    import duckdb

STATES = {"1": "New", "2": "In Progress", "3": "On Hold", "6": "Resolved", "7": "Closed", "8": "Canceled"}
ENDED = ("Resolved", "Closed", "Canceled")
HOLD_REASONS = {"1": "Awaiting Caller", "5": "Awaiting Change", "3": "Awaiting Problem", "4": "Awaiting Vendor"}
PAUSES = {"Awaiting Caller": "wait", "Awaiting Change": "change", "Awaiting Problem": "kept",
          "Awaiting Vendor": "kept"}
CHANGE_STATES = {"-5": "New", "-4": "Assess", "-3": "Authorize", "-2": "Scheduled", "-1": "Implement", "0": "Review",
                 "3": "Closed", "4": "Canceled"}
AGREED_CHANGE = ("Scheduled", "Implement", "Review", "Closed")
TABLES = {"incident": ("number", "opened_at"), "sys_audit": ("documentkey", "fieldname"),
          "change_request": ("number", "start_date", "end_date"), "task_sla": ("task", "sla", "stage"),
          "sys_journal_field": ("element_id", "element", "value")}
KEYS = ("severity", "detected", "partner_notice", "communicated", "acknowledged", "restored", "check", "outcome",
        "change", "resolved_by")
DESCRIPTION = ("incident table CSV (number, opened_at, resolved_at, closed_at, priority, state, close_code, "
               "calendar_stc, business_stc, reopen_count, rfc, sys_id) with its sys_audit, change_request, task_sla "
               "and sys_journal_field CSVs; --mode raw (UTC) or --mode display --zone ZONE")


def _label(value: str, table: dict[str, str]) -> str:
    value = (value or "").strip()
    return table.get(value, value)


_EPOCH = dt.datetime(1970, 1, 1)
_EPOCH_UTC = _EPOCH.replace(tzinfo=dt.UTC)
_EARLIEST_US, _LATEST_US = to_utc_us(EARLIEST), to_utc_us(LATEST)
_SEP, _END = "\x1f", "\x1e"  # unit and record separators inside the aggregated history


def kind_of(header: list[str], path: Path) -> str:
    """Which ServiceNow table an export is, from its columns; anything else is refused by name."""
    cols = set(header)
    for table in ("sys_audit", "task_sla", "sys_journal_field", "change_request", "incident"):
        if set(TABLES[table]) <= cols:
            return table
    takes = "; ".join(f"{t} ({', '.join(c)})" for t, c in TABLES.items())
    raise InputError("EXPORT", f"{path} is not an export the servicenow format reads", f"it takes: {takes}")


def read(paths: list[Path], settings: Settings, notes: list[str]) -> Iterator[Ticket | Unreadable]:
    """The export's tickets, streamed. DuckDB reads the CSVs, parses their times in bulk and joins
    each incident to its sys_audit history and its notes (spilling to disk past its memory
    limit), so a year of tickets and their history never sit in Python's memory at once."""
    if settings.mode not in ("raw", "display"):
        raise InputError("--mode", "a ServiceNow export does not say whether its times are UTC database values "
                                   "or the exporting user's display times",
                         "say --mode raw (exported with raw values: UTC) or --mode display --zone ZONE (the default "
                         "CSV or Excel export, in the exporting user's time zone)")
    if settings.mode == "display" and settings.zone is None:
        raise InputError("--zone", "a display-value export holds times in the exporting user's time zone",
                         "give that zone, e.g. --zone Europe/London (the user's profile shows it)")
    check_columns(settings, KEYS, "servicenow")
    times = Times(settings, utc=settings.mode == "raw")
    fmt = settings.date_format or "%Y-%m-%d %H:%M:%S"
    if "%z" in fmt:
        raise InputError("--date-format", "a ServiceNow export writes its times without an offset, so a format "
                                          "with %z cannot be its own", "leave %z out; --mode says how its times are "
                                                                       "read")
    files: dict[str, list[tuple[Path, list[str]]]] = {t: [] for t in TABLES}
    for p in paths:
        header = csv_header(p, "EXPORT", how=settings.files)
        files[kind_of(header, p)].append((p, header))
    if not files["incident"]:
        raise InputError("EXPORT", "no incident export was given", "give the incident table's CSV export")
    audits, journals = files["sys_audit"], files["sys_journal_field"]
    for p, header in audits:
        require_columns(header, ["documentkey", "fieldname", "oldvalue", "newvalue", "sys_created_on"], p,
                        "EXPORT", "a sys_audit export")
        refuse_twice(header, ["documentkey", "fieldname", "oldvalue", "newvalue", "sys_created_on"], p, "EXPORT")
    for p, header in journals:
        require_columns(header, ["element_id", "element", "value", "sys_created_on"], p, "EXPORT",
                        "a sys_journal_field export")
    if not audits:
        notes.append("no sys_audit export was given: On Hold intervals and re-opens cannot be rebuilt, so no "
                     "waiting on the partner and no change window is excluded")
    if settings.notes and not journals:
        notes.append("the map has [notes] but no sys_journal_field export was given: no work note was read")
    col = settings.column
    times_cols = ["opened_at", "resolved_at", "closed_at"] + [c for c in (
        col("detected"), col("partner_notice"), col("communicated"), col("acknowledged"), col("restored")) if c]
    text_cols = ["number", col("severity", "priority"), "state", "hold_reason", "calendar_stc", "business_stc",
                 "close_code", "reopen_count", col("change", "rfc"), "sys_id"] + \
        [c for c in (col("check"), col("outcome"), col("resolved_by")) if c]
    mapped = [c for k in KEYS if (c := col(k))]
    for p, header in files["incident"]:
        require_columns(header, ["number", "opened_at", "state", col("severity", "priority"), *mapped], p,
                        "EXPORT", "an incident export")
        refuse_twice(header, times_cols + text_cols, p, "EXPORT")
        if (audits or journals or (files["task_sla"] and settings.mode == "raw")) and "sys_id" not in header:
            raise InputError("EXPORT", f"{p} lacks the sys_id column that joins it to the other tables",
                             "export the incident table with its sys_id column")
    py_times = Times(Settings(settings.zone, fmt), utc=settings.mode == "raw")
    changes = _changes(files["change_request"], py_times, notes, settings)
    slas = _slas(files["task_sla"], py_times, settings)
    held = Held(settings.files)
    import duckdb

    with tempfile.TemporaryDirectory(prefix="day60-import-") as spill:
        con = _connect(spill)
        try:
            yield from _audit_problems(con, audits, fmt, held)
            _notes_table(con, journals, fmt, held)
            for p, header in files["incident"]:
                yield from _incidents(con, p, header, bool(audits), bool(journals), times_cols, text_cols, fmt,
                                      times, settings, held, changes, slas)
        except duckdb.Error as exc:
            for p in paths:  # a quote opened and not closed: name its row, as the Python reader finds it
                for _ in csv_rows(p, "EXPORT", how=settings.files)[1]:
                    pass
            raise InputError("EXPORT", f"the export cannot be read ({str(exc).splitlines()[0][:160]})",
                             "export it again as UTF-8 CSV") from None
        finally:
            con.close()
            held.close()


def _connect(spill: str) -> duckdb.DuckDBPyConnection:
    import duckdb

    return duckdb.connect(config={"memory_limit": "1GB", "temp_directory": spill, "preserve_insertion_order": True})


def _lit(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _csv(held: Held, p: Path, rejects: str) -> str:
    """DuckDB's reader of an export: the file this process holds (or its UTF-8 copy), in its delimiter."""
    path = held.path(p, "EXPORT")
    return (f"read_csv({_lit(path)}, all_varchar=true, header=true, delim={_lit(held.delimiters[path])}, "
            f"quote='\"', escape='\"', "
            f"store_rejects=true, rejects_table={_lit(rejects)}, rejects_scan={_lit(rejects + '_scan')})")


def _rejects(con: duckdb.DuckDBPyConnection, table: str, p: Path) -> Iterator[Unreadable]:
    """Rows DuckDB could not read. A quote opened and not closed swallows the rows after it, so
    it stops the import, naming the line; other rejects are listed and counted."""
    rows = con.execute(f"SELECT line, error_type, error_message FROM {table} ORDER BY line").fetchall()
    # DuckDB 1.x says INVALID UNICODE, 2.x INVALID ENCODING: a byte past what the encoding was found from
    quoting = [line for line, kind, _ in rows if str(kind) in ("UNQUOTED VALUE", "INVALID UNICODE",
                                                               "INVALID ENCODING")]
    if quoting:
        raise InputError("EXPORT", f"{p}: line {quoting[0]} has a quote opened and not closed (or bytes that are "
                                   "not UTF-8), so the rows after it cannot be told apart",
                         "fix that row and export again; nothing was written")
    # DuckDB stores one reject per fault, and a row can have several (one per extra column): each
    # row is listed once, with its faults, so the rows read and the rows unreadable count rows
    faults: dict[Any, list[str]] = {}
    for line, _kind, message in rows:
        said = str(message).splitlines()[0][:200]
        if said not in faults.setdefault(line, []):
            faults[line].append(said)
    for line, said in faults.items():
        yield Unreadable(f"{p.name} line {line}", None, "; ".join(said)[:400])


def _history_sql(audits: list[tuple[Path, list[str]]], fmt: str, held: Held) -> str:
    parts = []
    for n, (p, header) in enumerate(audits):
        table = "tablename = 'incident' AND " if "tablename" in header else ""
        clean = "trim(replace(replace(coalesce({}, ''), chr(30), ' '), chr(31), ' '))"
        parts.append(f"SELECT trim(documentkey) AS k, epoch_us(try_strptime(trim(sys_created_on), {_lit(fmt)})) AS us, "
                     f"fieldname AS f, {clean.format('oldvalue')} AS o, {clean.format('newvalue')} AS n "
                     f"FROM {_csv(held, p, f'rej_audit_{n}')} WHERE {table}fieldname IN "
                     "('state', 'hold_reason')")
    return " UNION ALL ".join(parts)


def _audit_problems(con: duckdb.DuckDBPyConnection, audits: list[tuple[Path, list[str]]], fmt: str, held: Held) \
        -> Iterator[Unreadable]:
    """Audit rows that cannot be read, each listed; the history is built from the rest."""
    if not audits:
        return
    con.execute(f"CREATE TEMP TABLE audit AS {_history_sql(audits, fmt, held)}")
    for n, (p, _header) in enumerate(audits):
        yield from _rejects(con, f"rej_audit_{n}", p)
    bad = con.execute("SELECT k, count(*) FROM audit WHERE us IS NULL GROUP BY k ORDER BY k").fetchall()
    for key, count in bad:
        yield Unreadable(f"sys_audit rows for {key}", key, f"{count} row(s) with sys_created_on empty or not in the "
                                                           f"form {fmt}; those changes are left out")


def _notes_table(con: duckdb.DuckDBPyConnection, journals: list[tuple[Path, list[str]]], fmt: str,
                 held: Held) -> None:
    if not journals:
        return
    parts = []
    for n, (p, header) in enumerate(journals):
        table = "name = 'incident' AND " if "name" in header else ""
        parts.append(f"SELECT trim(element_id) AS k, coalesce(trim(sys_created_on), '') AS raw, "
                     f"epoch_us(try_strptime(trim(sys_created_on), {_lit(fmt)})) AS us, "
                     "replace(replace(coalesce(value, ''), chr(30), ' '), chr(31), ' ') AS v "
                     f"FROM {_csv(held, p, f'rej_notes_{n}')} WHERE {table}element IN "
                     "('work_notes', 'comments')")
    con.execute(f"CREATE TEMP TABLE notes AS {' UNION ALL '.join(parts)}")
    for n, (p, _header) in enumerate(journals):
        list(_rejects(con, f"rej_notes_{n}", p))  # a quoting fault stops the import; other rejects are notes


def _incidents(con: duckdb.DuckDBPyConnection, p: Path, header: list[str], audited: bool, noted: bool,
               times_cols: list[str], text_cols: list[str], fmt: str, times: Times, settings: Settings, held: Held,
               changes: dict[str, list[tuple[str, Pause | None]]], slas: dict[str, list[dict[str, Any]]]) \
        -> Iterator[Ticket | Unreadable]:
    present_times = [c for c in dict.fromkeys(times_cols) if c in header]
    present_text = [c for c in dict.fromkeys(text_cols) if c in header and c not in present_times]
    select = [f"i.{_ident(c)}" for c in present_text] + \
        [f"i.{_ident(c)}, epoch_us(try_strptime(trim(i.{_ident(c)}), {_lit(fmt)}))" for c in present_times]
    names = present_text + [x for c in present_times for x in (c, c + "\0us")]
    joins = ""
    if audited:
        joins += ("LEFT JOIN (SELECT k, string_agg(concat_ws(chr(31), us, f, o, n), chr(30) ORDER BY us, f) AS h "
                  "FROM audit WHERE us IS NOT NULL GROUP BY k) h ON h.k = trim(i.sys_id) ")
        select.append("h.h")
        names.append("\0history")
    if noted:
        joins += ("LEFT JOIN (SELECT k, string_agg(concat_ws(chr(31), coalesce(CAST(us AS VARCHAR), ''), raw, v), "
                  "chr(30) ORDER BY us) AS t FROM notes GROUP BY k) nt ON nt.k = trim(i.sys_id) ")
        select.append("nt.t")
        names.append("\0notes")
    cur = con.execute(f"SELECT {', '.join(select)} FROM {_csv(held, p, 'rej_incident')} i {joins}")
    pauses_of = {**PAUSES, **settings.pauses}
    while rows := cur.fetchmany(20_000):
        for values in rows:
            row = dict(zip(names, values, strict=True))
            where = f"{p.name} {row['number']}"
            try:
                yield _ticket(row, where, times, settings, pauses_of, audited, fmt, changes, slas)
            except RowProblem as exc:
                yield Unreadable(where, row["number"], str(exc))
    yield from _rejects(con, "rej_incident", p)
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
            audited: bool, fmt: str, changes: dict[str, list[tuple[str, Pause | None]]],
            slas: dict[str, list[dict[str, Any]]]) -> Ticket:
    col = settings.column
    code = (row["state"] or "").strip()
    state = _label(code, STATES)
    t = Ticket(row["number"] or "", where, row[col("severity", "priority")], _at(row, "opened_at", times, fmt),
               closed=_at(row, "closed_at", times, fmt), state=state)
    resolved = _at(row, "resolved_at", times, fmt)
    if state in ("Resolved", "Closed") and resolved is not None:
        t.resolved = resolved
    elif resolved is not None:  # resolved once, and re-opened since: the history says when
        t.earlier.append((resolved, "Resolved, then re-opened"))
    if t.resolved is not None or state not in ENDED:
        t.closed = None  # closed_at counts only for a ticket closed with no resolution
    for key in ("detected", "partner_notice", "communicated", "acknowledged"):
        if col(key):
            setattr(t, key, _at(row, col(key), times, fmt))
    t.ack_known = bool(col("acknowledged"))
    if col("detected"):
        t.detected_label = f"the export's {col('detected')} column"
    confirm(t, _at(row, col("restored"), times, fmt) if col("restored") else None,
            row[col("check")] if col("check") else None, col("restored"))
    close_code = (row.get("close_code") or "").strip()
    found = settings.outcome("ServiceNow", ("state", state), ("state", code), ("close_code", close_code),
                             *([(col("outcome"), row.get(col("outcome")))] if col("outcome") else []))
    if found:
        t.outcome = (found[0], found[1], t.resolved or t.closed)
    elif state == "Canceled":
        t.notes.append("state Canceled, which the map's [outcomes] does not name: not counted as withdrawn "
                       "(add \"Canceled\" = \"withdrawn\" if the deal reads it so)")
    if col("resolved_by"):
        resolver = (row.get(col("resolved_by")) or "").strip()
        if resolver and resolver in settings.integrations:
            t.auto_resolved = f"{col('resolved_by')} {resolver!r}"
    reopens = (row.get("reopen_count") or "").strip()
    if reopens.isdigit() and int(reopens) > 0:
        t.reopen_count = int(reopens)
    t.vendor = _stc(row, t, resolved)
    if audited:
        history = _changes_of(row["\0history"], times)
        t.pauses = _holds(history, t, pauses_of)
        _reopens(history, t)
    elif state == "On Hold":
        t.notes.append(f"on hold ({_label(row.get('hold_reason') or '', HOLD_REASONS) or 'no reason'}) at export; "
                       "its hold intervals need the sys_audit export")
    if t.reopen_count and not t.reopens:
        t.notes.append(f"re-opened {t.reopen_count} time(s) (reopen_count); the sys_audit export gives the times")
    if row.get("\0notes"):
        t.note_stream += _notes_of(row["\0notes"], times)
    link = (row.get(col("change", "rfc")) or "").strip()
    for number_, pause in changes.get(link, []) if link else []:
        if pause is None:
            t.notes.append(f"change request {number_} is not approved or has no planned window: not excluded")
        else:
            t.pauses.append(pause)
    _sla(t, row, slas, settings)
    return t


def _stc(row: dict[str, Any], t: Ticket, resolved: dt.datetime | None) -> VendorClock | None:
    wall = number(row.get("calendar_stc"), "calendar_stc", 1 / 3600)
    business = number(row.get("business_stc"), "business_stc", 1 / 3600)
    if wall is None and business is None:
        return None
    return VendorClock("ServiceNow calendar_stc and business_stc (opened_at to resolved_at, not paused)", wall,
                       business, t.opened, resolved, 0.0 if wall is not None else None)


def _changes_of(history: str | None, times: Times) -> list[tuple[int, int, str, str, str]]:
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


def _notes_of(text: str, times: Times) -> list[tuple[dt.datetime | None, str]]:
    out: list[tuple[dt.datetime | None, str]] = []
    for entry in text.split(_END):
        us, raw, value = entry.split(_SEP, 2)
        if not us:  # no time, or one that is not one: the note is still read, and placed nowhere
            out.append((None, value))
            continue
        naive = _EPOCH + dt.timedelta(microseconds=int(us))
        at = naive.replace(tzinfo=dt.UTC) if times.zone is dt.UTC else times.attach(naive, raw, "sys_created_on")
        out.append((at, value))
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


def _reopens(changes: list[tuple[int, int, str, str, str]], t: Ticket) -> None:
    """Resolutions and re-opens from the state history: a state leaving Resolved or Closed for an
    open one is a re-open; the resolutions before the last re-open are the earlier ones."""
    resolutions, reopens = [], []
    for us, _n, field, old, new in sorted(changes):
        if field != "state":
            continue
        at = dt.datetime.fromtimestamp(us / 1_000_000, dt.UTC)
        if new in ("Resolved", "Closed") and old not in ("Resolved", "Closed"):
            resolutions.append(at)
        elif old in ("Resolved", "Closed") and new not in ENDED:
            reopens.append((at, f"state {old} to {new}"))
    if not reopens:
        return
    last = reopens[-1][0]
    t.earlier = [(at, "Resolved, then re-opened") for at in resolutions if at <= last]
    t.reopens = reopens


def _pause(start, end, reason: str, pauses_of: dict[str, str]) -> Pause:
    label = f"On Hold: {reason or 'no reason given'}"
    return Pause(pauses_of.get(reason, "kept"), start, end, label)


# ----- change requests and SLA records (read in Python: a few rows per incident) ------------


def _changes(files: list[tuple[Path, list[str]]], times: Times, notes: list[str], settings: Settings) \
        -> dict[str, list[tuple[str, Pause | None]]]:
    """Each change request under its sys_id and its number: its planned window as an agreed
    change window, or None when it was not approved or has no window."""
    out: dict[str, list[tuple[str, Pause | None]]] = {}
    for p, header in files:
        used = ["number", "start_date", "end_date"] + [c for c in ("sys_id", "state", "approval") if c in header]
        _, rows = csv_rows(p, "EXPORT", used=used, how=settings.files)
        for n, row in rows:
            if "\0problem" in row:
                notes.append(f"{p.name} row {n} was not read: " + row["\0problem"])
                continue
            number_ = row["number"].strip()
            approval = (row.get("approval") or "").strip().lower()
            state = _label(row.get("state") or "", CHANGE_STATES)
            agreed = approval == "approved" if "approval" in header else state in AGREED_CHANGE
            pause = None
            try:
                start, end = times.read(row["start_date"], "start_date"), times.read(row["end_date"], "end_date")
            except RowProblem as exc:
                notes.append(f"change request {number_}: {exc}")
                start = end = None
            if agreed and start is not None and end is not None and end > start:
                pause = Pause("change", start, end, f"change request {number_}: planned window (state {state or '?'}"
                                                    f", approval {approval or 'not exported'})")
            for key in filter(None, (number_, (row.get("sys_id") or "").strip())):
                out.setdefault(key, []).append((number_, pause))
    return out


_DURATION = re.compile(r"^\s*(?:(\d+)\s+Days?)?\s*(?:(\d+)\s+Hours?)?\s*(?:(\d+)\s+Minutes?)?\s*"
                       r"(?:(\d+)\s+Seconds?)?\s*$", re.IGNORECASE)


def duration_hours(text: str | None, column: str) -> float | None:
    """A ServiceNow duration as exported: raw ``1970-01-02 03:04:05`` (time since the epoch),
    whole seconds, or the display form ``1 Day 3 Hours 4 Minutes``."""
    raw = (text or "").strip()
    if not raw:
        return None
    if re.fullmatch(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}", raw):
        value = dt.datetime.strptime(raw, "%Y-%m-%d %H:%M:%S") - _EPOCH
        if value < dt.timedelta(0):
            raise RowProblem(f"{column}: {raw!r} is before 1970-01-01, not a duration")
        return value.total_seconds() / 3600
    if raw.isdigit():
        return number(raw, column, 1 / 3600)
    m = _DURATION.match(raw)
    if not m or not any(m.groups()):
        raise RowProblem(f"{column}: {raw[:30]!r} is not a duration")
    d, h, mi, s = (int(g or 0) for g in m.groups())
    return d * 24 + h + mi / 60 + s / 3600


def _slas(files: list[tuple[Path, list[str]]], times: Times, settings: Settings) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for p, header in files:
        wanted = ["task", "sla", "stage", "start_time", "end_time", "duration", "business_duration",
                  "pause_duration", "business_pause_duration", "schedule"]
        require_columns(header, ["task", "sla", "stage", "start_time", "end_time", "duration"], p, "EXPORT",
                        "a task_sla export")
        _, rows = csv_rows(p, "EXPORT", used=[c for c in wanted if c in header], how=settings.files)
        for n, row in rows:
            if "\0problem" in row:
                continue
            row = {**row, "\0where": f"{p.name} row {n}"}
            out.setdefault(row["task"].strip(), []).append(row)
    return out


def _sla(t: Ticket, row: dict[str, Any], slas: dict[str, list[dict[str, Any]]], settings: Settings) -> None:
    """The task_sla record the reconciliation compares with: the vendor's own SLA clock."""
    if not slas:
        return
    records = slas.get((row.get("sys_id") or "").strip(), []) + slas.get(t.ref.strip(), [])
    records = [r for r in records if r["stage"].strip().lower() not in ("cancelled", "canceled")]
    name = settings.sla.get("name")
    if name:
        records = [r for r in records if r["sla"].strip() == name]
    if not records:
        return
    if len(records) > 1:
        t.notes.append(f"{len(records)} task_sla records ({', '.join(sorted({r['sla'] for r in records})[:3])}): name "
                       "the one to compare with in the map's [sla] name")
        return
    r = records[0]
    times = Times(Settings(settings.zone, settings.date_format or "%Y-%m-%d %H:%M:%S"), utc=settings.mode == "raw")
    try:
        start, end = times.read(r["start_time"], "task_sla start_time"), times.read(r["end_time"], "task_sla end_time")
        wall = duration_hours(r.get("duration"), "task_sla duration")
        business = duration_hours(r.get("business_duration"), "task_sla business_duration")
        paused = duration_hours(r.get("pause_duration"), "task_sla pause_duration")
    except RowProblem as exc:
        t.notes.append("the task_sla record (" + r["\0where"] + f") was not read: {exc}")
        return
    if r["stage"].strip().lower() not in ("completed", "breached"):
        t.notes.append(f"the task_sla record is still {r['stage'].strip() or 'running'}: not compared")
        return
    t.vendor = VendorClock(f"ServiceNow task_sla '{r['sla'].strip()}' duration and business_duration", wall,
                           business, start, end, paused, (r.get("schedule") or "").strip() or None)

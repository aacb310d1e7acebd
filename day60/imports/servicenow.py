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
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from day60.clock import to_utc_us
from day60.errors import InputError
from day60.imports import states
from day60.imports.books import Books
from day60.imports.records import (
    Held,
    Pause,
    RowProblem,
    Settings,
    Ticket,
    Times,
    Unmatched,
    Unreadable,
    VendorClock,
    check_columns,
    confirm,
    csv_header,
    csv_rows,
    number,
    refuse_twice,
    require_columns,
    title_row,
)
from day60.timeparse import EARLIEST, LATEST

if TYPE_CHECKING:  # DuckDB starts only when a ServiceNow export is read, not on every import of the package
    import duckdb

STATES = {"1": "New", "2": "In Progress", "3": "On Hold", "6": "Resolved", "7": "Closed", "8": "Canceled"}
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
SEVERITY_FIELD = "priority"  # the field read for severity unless the map's [columns] names another
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


def kind_of(header: list[str], path: Path, found: Any = None) -> str:
    """Which ServiceNow table an export is, from its columns; anything else is refused by name
    (``found``, how the file was read, names a workbook's other sheets)."""
    cols = set(header)
    for table in ("sys_audit", "task_sla", "sys_journal_field", "change_request", "incident"):
        if set(TABLES[table]) <= cols:
            return table
    takes = "; ".join(f"{t} ({', '.join(c)})" for t, c in TABLES.items())
    raise InputError("EXPORT", f"{path} is not an export the servicenow format reads", f"it takes: {takes}"
                     + title_row(header, found))


@dataclass
class _Run:
    """What one ServiceNow import reads with: the settings, the books, the state rules, the tables
    read in Python (change requests, SLA records) and which of their records a ticket took."""

    settings: Settings
    books: Books
    rules: states.Rules
    times: Times
    fmt: str
    keys: dict[int, str] = field(default_factory=dict)  # DuckDB's file number (src) -> the books' key
    changes: dict[str, list[tuple[str, Pause | None, str, int]]] = field(default_factory=dict)
    slas: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    taken: set[Any] = field(default_factory=set)  # change and SLA records read into a ticket
    decimal: str | None = "."  # the incident file's decimal separator, from its delimiter (locales.decimal_of)


def read(paths: list[Path], settings: Settings, notes: list[str], books: Books) -> Iterator[Ticket | Unreadable
                                                                                               | Unmatched]:
    """The export's tickets, streamed. DuckDB reads the CSVs, parses their times in bulk and joins
    each incident to its sys_audit history and its notes (spilling to disk past its memory
    limit), so a year of tickets and their history never sit in Python's memory at once. Every
    row of every file is counted into ``books``."""
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
    from day60.imports.snow_shapes import Shapes  # label headers, JSON answers, the event log (snow_shapes)

    shapes = Shapes(paths, settings, notes, books)
    try:
        yield from _read(shapes, settings, notes, books, times, fmt)
    finally:
        shapes.close()


def _read(shapes: Any, settings: Settings, notes: list[str], books: Books, times: Times,
          fmt: str) -> Iterator[Ticket | Unreadable | Unmatched]:
    yield from shapes.problems
    files: dict[str, list[tuple[Path, list[str]]]] = {t: [] for t in TABLES}
    for p in shapes.paths:
        header = csv_header(p, "EXPORT", how=settings.files)
        files[kind_of(header, p, settings.files.found.get(str(p)))].append((p, header))
    if shapes.logs:
        if any(files.values()):
            raise InputError("EXPORT", f"{shapes.logs[0][0]} is an incident event log, which holds each ticket's "
                                       "history itself; it is read alone", "import the event log on its own")
        yield from shapes.read_logs(_Run(settings, books, states.rules("servicenow", settings.states), times, fmt),
                                    fmt, sys.modules[__name__])
        return
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
    text_cols = ["number", col("severity", SEVERITY_FIELD), "state", "incident_state", "sys_class_name", "hold_reason",
                 "calendar_stc", "business_stc", "close_code", "reopen_count", col("change", "rfc"), "sys_id"] + \
        [c for c in (col("check"), col("outcome"), col("resolved_by")) if c]
    mapped = [c for k in KEYS if (c := col(k))]
    for p, header in files["incident"]:
        require_columns(header, ["number", "opened_at", col("severity", SEVERITY_FIELD), *mapped], p,
                        "EXPORT", "an incident export", settings.files.found.get(str(p)))
        if "state" not in header and "incident_state" not in header:
            require_columns(header, ["state"], p, "EXPORT", "an incident export (or incident_state)")
        refuse_twice(header, times_cols + text_cols, p, "EXPORT")
        if (audits or journals or (files["task_sla"] and settings.mode == "raw")) and "sys_id" not in header:
            raise InputError("EXPORT", f"{p} lacks the sys_id column that joins it to the other tables",
                             "export the incident table with its sys_id column")
    py_times = Times(Settings(settings.zone, fmt), utc=settings.mode == "raw")
    run = _Run(settings, books, states.rules("servicenow", settings.states), times, fmt)
    yield from _changes(files["change_request"], py_times, run)
    yield from _slas(files["task_sla"], run)
    held = Held(settings.files)
    import duckdb

    with tempfile.TemporaryDirectory(prefix="day60-import-") as spill:
        con = _connect(spill)
        try:
            yield from _audit_problems(con, audits, fmt, held, run)
            yield from _notes_table(con, journals, fmt, held, run)
            for p, header in files["incident"]:
                yield from _incidents(con, p, header, bool(audits), bool(journals), times_cols, text_cols, run, held)
            yield from _unmatched(con, run, bool(audits), bool(journals), files["incident"], held)
        except duckdb.OutOfMemoryException as exc:  # a larger export than this limit was measured for
            raise InputError("EXPORT", f"reading the export's tables and pairing them needs more than the "
                                       f"{READ_MEMORY_LIMIT} of memory the import gives DuckDB for it "
                                       f"({str(exc).splitlines()[0][:120]})",
                             "import it in parts of under a million tickets each (the incidents opened in each "
                             "period, with their sys_audit rows); nothing was written") from None
        except duckdb.Error as exc:
            for p in shapes.paths:  # a quote opened and not closed: name its row, as the Python reader finds it
                for _ in csv_rows(p, "EXPORT", how=settings.files)[1]:
                    pass
            raise InputError("EXPORT", f"the export cannot be read ({str(exc).splitlines()[0][:160]})",
                             "export it again as UTF-8 CSV") from None
        finally:
            con.close()
            held.close()


def _unmatched(con: duckdb.DuckDBPyConnection, run: _Run, audited: bool, noted: bool,
               incidents: list[tuple[Path, list[str]]], held: Held) -> Iterator[Unmatched]:
    """History and notes for sys_ids no incident row holds, and SLA records for tasks no incident
    row is; change requests no incident names are counted apart. Which sys_ids the incident rows
    hold is found in SQL, by reading their sys_id column again (rows DuckDB rejected hold none),
    never as a set in Python's memory."""
    if audited or noted:
        ids = " UNION ALL ".join(f"SELECT trim(sys_id) AS k FROM {_csv(held, p, f'rej_ids_{n}')}"
                                 for n, (p, _header) in enumerate(incidents))
        con.execute(f"CREATE TEMP TABLE incident_ids AS SELECT DISTINCT k FROM ({ids}) WHERE coalesce(k, '') <> ''")
    for table, what, used in (("audit_n", "sys_audit", audited), ("notes_n", "sys_journal_field", noted)):
        if not used:
            continue
        for key, src, n in con.execute(f"SELECT k, src, n FROM {table} WHERE k IS NULL OR k NOT IN "
                                       "(SELECT k FROM incident_ids) ORDER BY k, src").fetchall():
            yield Unmatched(run.keys[src], key or "(no documentkey)", int(n), what)
    for task, records in run.slas.items():
        for r in records:
            if id(r) not in run.taken:
                yield Unmatched(r["\0file"], task or "(no task)", 1, "task_sla")
    for number_, entries in run.changes.items():
        for entry in entries:
            if entry[3] not in run.taken and entry[0] == number_:  # listed under its number and its sys_id: once
                run.books.skip(entry[2], "a change request no incident in the export names (rfc)")
                run.taken.add(entry[3])


# What DuckDB may hold while it reads and pairs the exports; past it, it spills to the import's
# temporary folder. Pairing 1,000,000 incidents with 4,000,000 audit rows (463 MiB of CSV) needs
# about 400 MB that DuckDB cannot spill (held to 300 or 400 MB it stops with "Out of Memory"; 512
# MB reads it). 1 GB left room for larger exports, but beside what the import itself holds it took
# a million tickets' import past 1 GiB (benchmarks/import_end_to_end.py, docs/benchmarks.md).
READ_MEMORY_LIMIT = "512MB"


def _connect(spill: str) -> duckdb.DuckDBPyConnection:
    from day60.engine import connect

    return connect(READ_MEMORY_LIMIT, spill)  # insertion order kept: DuckDB's default


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



def _booked(con: Any, table: str, rejects: str, files: list[tuple[Path, list[str]]], first: int,
            run: _Run) -> Iterator[Unreadable]:
    """The rows of ``files`` DuckDB could not read (each unreadable, with its row) and, for every
    file, how many rows its ``table`` holds, entered in the books as read."""
    for n, (p, _header) in enumerate(files):
        for item in _rejects(con, f"{rejects}_{n}", p, run.keys[first + n]):
            run.books.read(p)
            yield item
    for src, n in con.execute(f"SELECT src, count(*) FROM {table} GROUP BY src").fetchall():
        run.books.read(run.keys[src], int(n))

def _rejects(con: duckdb.DuckDBPyConnection, table: str, p: Path, key: str) -> Iterator[Unreadable]:
    """Rows DuckDB could not read. A quote opened and not closed swallows the rows after it, so
    it stops the import, naming the line; other rejects are listed and counted (as read, and
    unreadable, in the books under ``key``)."""
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
        yield Unreadable(f"{p.name} line {line}", None, "; ".join(said)[:400], key)


_CLEAN = "trim(replace(replace(coalesce({}, ''), chr(30), ' '), chr(31), ' '))"
_STATE_FIELDS = ("state", "incident_state")  # an incident's state, under either name (both move together)


def _history_sql(audits: list[tuple[Path, list[str]]], fmt: str, held: Held, run: _Run) -> str:
    """Every sys_audit row, its file numbered (``src``): the state (or incident_state) and
    hold_reason rows of the incident table with their values, every other row only counted."""
    parts = []
    for n, (p, header) in enumerate(audits):
        src = len(run.keys)
        run.keys[src] = run.books.key(p)
        table = "trim(coalesce(tablename, '')) = 'incident'" if "tablename" in header else "true"
        wanted = f"({table} AND trim(coalesce(fieldname, '')) IN ('state', 'incident_state', 'hold_reason'))"
        parts.append(f"SELECT {src} AS src, trim(documentkey) AS k, "
                     f"epoch_us(try_strptime(trim(sys_created_on), {_lit(fmt)})) AS us, "
                     "CASE WHEN trim(fieldname) = 'hold_reason' THEN 'hold_reason' ELSE 'state' END AS f, "
                     f"CASE WHEN {wanted} THEN {_CLEAN.format('oldvalue')} END AS o, "
                     f"CASE WHEN {wanted} THEN {_CLEAN.format('newvalue')} END AS n, "
                     f"{wanted} AS wanted, {table} AS incident_table "
                     f"FROM {_csv(held, p, f'rej_audit_{n}')}")
    return " UNION ALL ".join(parts)


def _audit_problems(con: duckdb.DuckDBPyConnection, audits: list[tuple[Path, list[str]]], fmt: str, held: Held,
                    run: _Run) -> Iterator[Unreadable]:
    """Every sys_audit row counted: those that cannot be read listed; rows of other tables and
    fields counted apart; the history (per sys_id, ``audit_n`` how many rows from each file) is
    built from the rest."""
    if not audits:
        return
    con.execute(f"CREATE TEMP TABLE audit AS {_history_sql(audits, fmt, held, run)}")
    first = len(run.keys) - len(audits)
    yield from _booked(con, "audit", "rej_audit", audits, first, run)
    for src, table, n in con.execute("SELECT src, incident_table, count(*) FROM audit WHERE NOT wanted "
                                     "GROUP BY src, incident_table").fetchall():
        run.books.skip(run.keys[src], "a sys_audit row of a field the import does not read (it reads state, "
                                      "incident_state and hold_reason)" if table else
                       "a sys_audit row of another table than incident", int(n))
    bad = con.execute("SELECT src, k, count(*) FROM audit WHERE wanted AND us IS NULL GROUP BY src, k "
                      "ORDER BY k, src").fetchall()
    for src, key, count in bad:
        yield Unreadable(f"sys_audit rows for {key}", key, f"{count} row(s) with sys_created_on empty or not in the "
                                                           f"form {fmt}; those changes are left out",
                         run.keys[src], int(count))
    con.execute("CREATE TEMP TABLE audit_n AS SELECT k, src, count(*) AS n FROM audit WHERE wanted AND us IS NOT NULL "
                "GROUP BY k, src")


def _notes_table(con: duckdb.DuckDBPyConnection, journals: list[tuple[Path, list[str]]], fmt: str,
                 held: Held, run: _Run) -> Iterator[Unreadable]:
    """Work notes and comments of incidents, every row counted as ``_audit_problems`` counts."""
    if not journals:
        return
    parts = []
    first = len(run.keys)
    for n, (p, header) in enumerate(journals):
        src = len(run.keys)
        run.keys[src] = run.books.key(p)
        table = "trim(coalesce(name, '')) = 'incident'" if "name" in header else "true"
        wanted = f"({table} AND trim(coalesce(element, '')) IN ('work_notes', 'comments'))"
        parts.append(f"SELECT {src} AS src, trim(element_id) AS k, coalesce(trim(sys_created_on), '') AS raw, "
                     f"epoch_us(try_strptime(trim(sys_created_on), {_lit(fmt)})) AS us, "
                     f"CASE WHEN {wanted} THEN replace(replace(coalesce(value, ''), chr(30), ' '), chr(31), ' ') END "
                     f"AS v, {wanted} AS wanted, {table} AS incident_table "
                     f"FROM {_csv(held, p, f'rej_notes_{n}')}")
    con.execute(f"CREATE TEMP TABLE notes AS {' UNION ALL '.join(parts)}")
    yield from _booked(con, "notes", "rej_notes", journals, first, run)
    for src, table, n in con.execute("SELECT src, incident_table, count(*) FROM notes WHERE NOT wanted "
                                     "GROUP BY src, incident_table").fetchall():
        run.books.skip(run.keys[src], "a sys_journal_field row that is neither a work note nor a comment" if table
                       else "a sys_journal_field row of another table than incident", int(n))
    con.execute("CREATE TEMP TABLE notes_n AS SELECT k, src, count(*) AS n FROM notes WHERE wanted GROUP BY k, src")


def _incidents(con: duckdb.DuckDBPyConnection, p: Path, header: list[str], audited: bool, noted: bool,
               times_cols: list[str], text_cols: list[str], run: _Run, held: Held) -> Iterator[Ticket | Unreadable]:
    fmt, times, settings = run.fmt, run.times, run.settings
    key = run.books.key(p)
    present_times = [c for c in dict.fromkeys(times_cols) if c in header]
    present_text = [c for c in dict.fromkeys(text_cols) if c in header and c not in present_times]
    select = [f"i.{_ident(c)}" for c in present_text] + \
        [f"i.{_ident(c)}, epoch_us(try_strptime(trim(i.{_ident(c)}), {_lit(fmt)}))" for c in present_times]
    names = present_text + [x for c in present_times for x in (c, c + "\0us")]
    joins = ""
    counted = "(SELECT k, string_agg(CAST(src AS VARCHAR) || ':' || CAST(n AS VARCHAR), ',') AS c FROM {} GROUP BY k)"
    if audited:
        # Aggregates with no ORDER BY, which DuckDB spills past its memory limit (an ordered one it
        # holds whole); each ticket's entries are put in order in Python (_changes_of, _notes_of).
        joins += ("LEFT JOIN (SELECT k, string_agg(concat_ws(chr(31), us, f, o, n), chr(30)) AS h "
                  "FROM (SELECT DISTINCT k, us, f, o, n FROM audit WHERE wanted AND us IS NOT NULL) GROUP BY k) h "
                  "ON h.k = trim(i.sys_id) "
                  f"LEFT JOIN {counted.format('audit_n')} ac ON ac.k = trim(i.sys_id) ")
        select += ["h.h", "ac.c"]
        names += ["\0history", "\0audit_n"]
    if noted:
        joins += ("LEFT JOIN (SELECT k, string_agg(concat_ws(chr(31), coalesce(CAST(us AS VARCHAR), ''), raw, v), "
                  "chr(30)) AS t FROM notes WHERE wanted GROUP BY k) nt ON nt.k = trim(i.sys_id) "
                  f"LEFT JOIN {counted.format('notes_n')} nc ON nc.k = trim(i.sys_id) ")
        select += ["nt.t", "nc.c"]
        names += ["\0notes", "\0notes_n"]
    cur = con.execute(f"SELECT {', '.join(select)} FROM {_csv(held, p, 'rej_incident')} i {joins}")
    pauses_of = {**PAUSES, **settings.pauses}
    from day60.imports.locales import decimal_of

    found = settings.files.found.get(str(p))
    run.decimal = decimal_of(found.delimiter) if found is not None and found.kind != "xlsx" else None
    while rows := cur.fetchmany(20_000):
        for values in rows:
            row = dict(zip(names, values, strict=True))
            run.books.read(p)
            where = f"{p.name} {row['number']}"
            attached = _attached(row, run)
            try:
                t = _ticket(row, where, times, settings, pauses_of, audited, fmt, run)
            except RowProblem as exc:
                yield Unreadable(where, row["number"], str(exc), key)
                for other, n in attached.items():
                    run.books.add(other, "unreadable", n)
                continue
            t.file, t.attached = key, attached
            yield t
    for item in _rejects(con, "rej_incident", p, key):
        run.books.read(p)
        yield item
    con.execute("DROP TABLE IF EXISTS rej_incident; DROP TABLE IF EXISTS rej_incident_scan")


def _attached(row: dict[str, Any], run: _Run) -> dict[str, int]:
    """The records of the other files this incident row takes: its sys_audit and sys_journal_field
    rows (as DuckDB counted them, per file), its task_sla rows and the change request its rfc
    names (the first incident to name one takes it): file -> records."""
    out: dict[str, int] = {}
    sys_id = (row.get("sys_id") or "").strip()
    for name in ("\0audit_n", "\0notes_n"):
        for part in filter(None, (row.get(name) or "").split(",")):
            src, n = part.split(":")
            out[run.keys[int(src)]] = out.get(run.keys[int(src)], 0) + int(n)
    name = run.settings.sla.get("name")
    for task in dict.fromkeys(filter(None, (sys_id, (row.get("number") or "").strip()))):
        for r in run.slas.get(task, []):
            if id(r) not in run.taken:
                run.taken.add(id(r))
                if name and r["sla"].strip() != name:  # not the SLA the map chose: never the vendor's figure
                    run.books.skip(r["\0file"], _other_sla(r["sla"], name))
                    continue
                out[r["\0file"]] = out.get(r["\0file"], 0) + 1
    link = (row.get(run.settings.column("change", "rfc")) or "").strip()
    for _number, _pause, file, rowid in run.changes.get(link, []) if link else []:
        if rowid not in run.taken:
            run.taken.add(rowid)
            out[file] = out.get(file, 0) + 1
    return out


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
        from day60.imports.snow_shapes import date_hint

        raise RowProblem(f"{column}: {raw[:40]!r} is not a date and time in the form {fmt}: {date_hint(raw)}")
    if times.zone is dt.UTC and _EARLIEST_US <= us < _LATEST_US:  # raw values: UTC as written
        return _EPOCH_UTC + dt.timedelta(microseconds=us)
    return times.attach(_EPOCH + dt.timedelta(microseconds=us), raw, column)


def _ticket(row: dict[str, Any], where: str, times: Times, settings: Settings, pauses_of: dict[str, str],
            audited: bool, fmt: str, run: _Run) -> Ticket:
    col = settings.column
    rules = run.rules
    code = (row.get("state") or "").strip() or (row.get("incident_state") or "").strip()
    if settings.mode == "raw":
        _refuse_labels(row, code, where, col("severity", SEVERITY_FIELD))
    state = _label(code, STATES)
    kind = (row.get("sys_class_name") or "").strip()
    t = Ticket(row["number"] or "", where, row[col("severity", SEVERITY_FIELD)], None, state=state)
    if kind and (kind not in rules.incident_classes or rules.excluded_kind(kind)):
        t.apart = (states.NOT_INCIDENT, f"sys_class_name {kind!r}")
        return t
    if code and not rules.known(code):
        _refuse_state(code, where, settings.mode, rules)
    t.opened, t.closed = _at(row, "opened_at", times, fmt), _at(row, "closed_at", times, fmt)
    standing = rules.status(code, state)
    if standing == states.DELETED:
        t.apart = (states.DELETED, f"state {state!r}, which the map's [states] deleted names")
        return t
    resolved = _at(row, "resolved_at", times, fmt)
    history = _changes_of(row["\0history"], times) if audited else []
    for _us, _n, name, before, after in history:  # a state the history moves through is read as the row's is
        for word in (before, after) if name == "state" else ():
            if word and not rules.known(word):
                _refuse_state(word, f"{where} (its sys_audit history)", settings.mode, rules)
    _current_state_is_the_historys(history, rules, standing, state, resolved)
    if standing == "resolved" and resolved is not None:
        t.resolved = resolved
    elif standing == "resolved":  # resolved_at empty: the history's move into Resolved, where it holds one
        t.resolved = _entered(history, rules, "resolved", t)
    elif resolved is not None:  # resolved once, and re-opened since: the history says when
        t.earlier.append((resolved, "Resolved, then re-opened"))
    if t.resolved is not None or standing == "open":
        t.closed = None  # closed_at counts only for a ticket closed with no resolution
    elif standing == "closed" and t.closed is None:
        t.closed = _entered(history, rules, "closed", t)
    if standing != "open":  # over in its records: with no time for it, over at a time not evidenced
        t.ended(f"state {state}" + (f" ({code})" if code != state else ""), standing == "resolved")
        if t.untimed is not None and audited:
            t.notes.append(f"no time for its end: resolved_at and closed_at are empty, and its state history holds "
                           f"no move into {state} (sys_audit rows of other fields, such as resolved_at itself, are "
                           "not read)")
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
    t.vendor = _stc(row, t, resolved, settings.mode == "display", run.decimal)
    if audited:
        t.pauses = _holds(history, t, pauses_of)
        _reopens(history, t, rules, standing == "open")
    elif state == "On Hold":
        t.notes.append(f"on hold ({_label(row.get('hold_reason') or '', HOLD_REASONS) or 'no reason'}) at export; "
                       "its hold intervals need the sys_audit export")
    if standing == "open":
        _open_again(t, f"state {state}" + (f" ({code})" if code != state else ""), audited)
    if t.reopen_count and not t.reopens:
        t.notes.append(f"re-opened {t.reopen_count} time(s) (reopen_count); the sys_audit export gives the times")
    if row.get("\0notes"):
        t.note_stream += _notes_of(row["\0notes"], times)
    link = (row.get(col("change", "rfc")) or "").strip()
    for number_, pause, _file, _rowid in run.changes.get(link, []) if link else []:
        if pause is None:
            t.notes.append(f"change request {number_} is not approved, has no planned window or could not be "
                           "read: not excluded")
        else:
            t.pauses.append(pause)
    _sla(t, row, run.slas, settings)
    return t


_CODE = re.compile(r"-?[0-9]+")  # a choice code, as a raw export writes state and priority


def _current_state_is_the_historys(history: list[tuple[int, int, str, str, str]], rules: states.Rules,
                                   standing: str, state: str, resolved: dt.datetime | None) -> None:
    """A row over now (Resolved, Closed) whose sys_audit history leaves it open after its resolution
    (a move out of Resolved dated later than ``resolved_at``, and none back) contradicts itself:
    the two exports were taken at different times, and which one holds cannot be told. The row is
    unreadable, with both named, rather than counted open or over on either file's word."""
    moves = sorted(c for c in history if c[2] == "state")
    if standing == "open" or not moves or resolved is None:
        return
    us, _n, _name, _old, new = moves[-1]
    at = dt.datetime.fromtimestamp(us / 1_000_000, dt.UTC)
    if rules.status(new) == "open" and at > resolved:
        raise RowProblem(f"its state now is {state!r}, resolved at {resolved.isoformat()}, but its sys_audit history "
                         f"moves it to {new!r} at {at.isoformat()} and never back: the incident table and sys_audit "
                         "disagree (exported at different times?); export both again together")


def _refuse_state(code: str, where: str, mode: str | None, rules: states.Rules) -> None:
    """A state the rules (states.yaml and the map's [states]) do not name: whether the ticket is
    over cannot be told, and reading it as open would turn a restore into an open incident with a
    re-open nobody recorded. Refused, naming the ticket, the value, the states known and the fix."""
    other = "export the table again with raw values (--mode raw: state as its choice code)" \
        if mode == "display" else "check that the export is the incident table's"
    known = ", ".join(sorted(rules.open | rules.resolved | rules.closed | rules.deleted))
    raise InputError("EXPORT", f"{where}: state {code[:40]!r} is none the import knows ({known}, as written), "
                               "so whether the ticket is over cannot be told",
                     f"name it in the map's [states] as resolved, closed or open (e.g. resolved = "
                     f"[{code[:40]!r}]), or {other}; nothing was written")


def _refuse_labels(row: dict[str, Any], code: str, where: str, severity: str | None) -> None:
    """Under ``--mode raw``, a state or priority that is not a choice code ("Resolved", "2 -
    High", a customised "Restored" or "P2 (High)") where a raw export writes its code (6, 2)
    shows a display-value export: its times are the exporting user's local times, and reading
    them as UTC would shift every clock by that zone's offset without a word. Refused, naming
    what was seen and the fix."""
    seen = []
    if code and not _CODE.fullmatch(code):
        seen.append(f"state {code[:40]!r}")
    priority = (row.get("priority") or "").strip() if severity == "priority" else ""
    if priority and not _CODE.fullmatch(priority):
        seen.append(f"priority {priority[:40]!r}")
    if seen:
        what = "is a label, not a choice code" if len(seen) == 1 else "are labels, not choice codes"
        raise InputError("--mode", f"{where}: {' and '.join(seen)} {what}, where an export with raw values writes "
                                   "codes (6 for Resolved, 2 for 2 - High), so this is a display-value export, whose "
                                   "times are the exporting user's local times: --mode raw would read them as UTC",
                         "say --mode display --zone ZONE (the exporting user's time zone, from their profile), or "
                         "export the table again with raw values; nothing was written")


def _stc(row: dict[str, Any], t: Ticket, resolved: dt.datetime | None, display: bool,
         decimal: str | None = ".") -> VendorClock | None:
    from day60.imports.locales import figure

    def seconds(name: str) -> str | None:
        raw = (row.get(name) or "").strip()
        # A display export writes a figure as its user sees it: 5,510,746 (seen in real exports),
        # 5.510.746 in a German locale: read as the file's locale writes it (``locales.figure``).
        return figure(raw, name, decimal) if display else raw

    wall = number(seconds("calendar_stc"), "calendar_stc", 1 / 3600)
    business = number(seconds("business_stc"), "business_stc", 1 / 3600)
    if wall is None and business is None:
        return None
    return VendorClock("ServiceNow calendar_stc and business_stc (opened_at to resolved_at, not paused)", wall,
                       business, t.opened, resolved, 0.0 if wall is not None else None)


def _changes_of(history: str | None, times: Times) -> list[tuple[int, int, str, str, str]]:
    """The aggregated history as (UTC microseconds, order, field, old label, new label), in the
    order of its times and then its fields' names (the aggregate comes in no order)."""
    out = []
    local = times.zone is not dt.UTC
    entries = [entry.split(_SEP) for entry in history.split(_END)] if history else []
    entries.sort(key=lambda e: (int(e[0]), e[1], e[2], e[3]))
    for n, (us, name, old, new) in enumerate(entries):
        table = STATES if name == "state" else HOLD_REASONS
        if local:  # a display export: each local time must exist, and exist once
            naive = _EPOCH + dt.timedelta(microseconds=int(us))
            us = to_utc_us(times.attach(naive, naive.isoformat(sep=" "), "sys_created_on"))
        out.append((int(us), n, name, table.get(old, old), table.get(new, new)))
    return out


def _notes_of(text: str, times: Times) -> list[tuple[dt.datetime | None, str]]:
    """The aggregated notes in the order of their times (those with none last; notes of one
    instant in the order of their text: the aggregate comes in no order)."""
    out: list[tuple[dt.datetime | None, str]] = []
    entries = [entry.split(_SEP, 2) for entry in text.split(_END)]
    entries.sort(key=lambda e: (e[0] == "", int(e[0] or 0), e[2], e[1]))
    for us, raw, value in entries:
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


def _entered(changes: list[tuple[int, int, str, str, str]], rules: states.Rules, standing: str,
             t: Ticket) -> dt.datetime | None:
    """Where the ticket's own end time is empty (``resolved_at``, or ``closed_at`` for a ticket
    closed with no resolution): the time its state history moves it into ``standing`` (resolved
    or closed) with no re-open after it, as the event log's rule reads the row from which it is
    so. The ticket's notes say where the time came from; None where the history holds no such move."""
    found = None
    for us, _n, name, old, new in sorted(changes):
        if name != "state":
            continue
        now = rules.status(new)
        if now == "open":
            found = None
        elif now == standing and rules.status(old) != standing:
            found = (dt.datetime.fromtimestamp(us / 1_000_000, dt.UTC), old, new)
    if found is None:
        return None
    at, old, new = found
    column = "resolved_at" if standing == "resolved" else "closed_at"
    t.notes.append(f"{column} is empty: {standing} at {at.isoformat()}, when its state history (the sys_audit rows, or "
                   f"the event log's) moves it from {old or 'no state'} to {new}, with no re-open after it")
    return at


def _reopens(changes: list[tuple[int, int, str, str, str]], t: Ticket, rules: states.Rules,
             still_open: bool = False) -> None:
    """Resolutions and re-opens from the state history (``states.yaml``): a state leaving a resolved
    one for an open one is a re-open; the resolutions before the last re-open are the earlier ones.
    A ticket whose state is open (``still_open``) keeps every resolution the history holds, and
    ``resolved_at`` where it is later than all of them (the history missing that one)."""
    resolutions, reopens = [], []
    for us, _n, name, old, new in sorted(changes):
        if name != "state":
            continue
        at = dt.datetime.fromtimestamp(us / 1_000_000, dt.UTC)
        if rules.status(new) == "resolved" and rules.status(old) != "resolved":
            resolutions.append(at)
        elif rules.status(old) == "resolved" and rules.status(new) == "open":
            reopens.append((at, f"state {old} to {new}"))
    if still_open:
        later = [at for at, _ in t.earlier if not resolutions or at > max(resolutions)]
        t.earlier = [(at, "Resolved, then re-opened") for at in sorted({*resolutions, *later})]
        t.reopens = reopens
        return
    if not reopens:
        return
    last = reopens[-1][0]
    t.earlier = [(at, "Resolved, then re-opened") for at in resolutions if at <= last]
    t.reopens = reopens


def _open_again(t: Ticket, words: str, audited: bool) -> None:
    """The ticket's state is open, so it is open now whatever its records say of a resolution
    before (``resolved_at`` kept after a re-open, or a move into Resolved in the history): the
    last such resolution was followed by a re-open. Where the history holds none after it, that
    re-open is written with its time not evidenced, dated at the resolution (the earliest it can
    have been), so the ticket stands open at the export and its clock runs on (charter 3.19.4)."""
    last = max((at for at, _ in t.earlier), default=None)
    if last is None or (t.reopens and max(at for at, _ in t.reopens) >= last):
        return
    where = "the sys_audit export holds no move out of Resolved after it" if audited else \
        "the sys_audit export would give its time"
    t.reopens.append((last, f"{words} at export after the resolution at {last.isoformat()}: re-opened at a time "
                            "not evidenced, dated at that resolution, the earliest it can have been"))
    t.notes.append(f"{words} at export, though resolved at {last.isoformat()}: open, re-opened at a time not "
                   f"evidenced ({where}), written at that resolution, the earliest it can have been")


def _pause(start, end, reason: str, pauses_of: dict[str, str]) -> Pause:
    label = sys.intern(f"On Hold: {reason or 'no reason given'}")  # one copy however many tickets list it
    return Pause(pauses_of.get(reason, "kept"), start, end, label)


# ----- change requests and SLA records (read in Python: a few rows per incident) ------------


def _changes(files: list[tuple[Path, list[str]]], times: Times, run: _Run) -> Iterator[Unreadable]:
    """Each change request, under its sys_id and its number, into ``run.changes``: its planned
    window as an agreed change window, or None when it was not approved, has no window or its
    window cannot be read (that row is also listed unreadable). Every row is counted."""
    for p, header in files:
        key = run.books.key(p)
        used = ["number", "start_date", "end_date"] + [c for c in ("sys_id", "state", "approval") if c in header]
        _, rows = csv_rows(p, "EXPORT", used=used, how=run.settings.files)
        for n, row in rows:
            run.books.read(p)
            if "\0problem" in row:
                yield Unreadable(f"{p.name} row {n}", None, row["\0problem"], key)
                continue
            number_ = row["number"].strip()
            approval = (row.get("approval") or "").strip().lower()
            state = _label(row.get("state") or "", CHANGE_STATES)
            agreed = approval == "approved" if "approval" in header else state in AGREED_CHANGE
            pause = None
            rowid = (key, n)
            try:
                start, end = times.read(row["start_date"], "start_date"), times.read(row["end_date"], "end_date")
            except RowProblem as exc:
                yield Unreadable(f"{p.name} row {n}", number_, f"change request {number_}: {exc}", key)
                run.taken.add(rowid)  # counted unreadable: no incident takes it
                start = end = None
            if agreed and start is not None and end is not None and end > start:
                pause = Pause("change", start, end, f"change request {number_}: planned window (state {state or '?'}"
                                                    f", approval {approval or 'not exported'})")
            for name in dict.fromkeys(filter(None, (number_, (row.get("sys_id") or "").strip()))):
                run.changes.setdefault(name, []).append((number_, pause, key, rowid))
            if not number_:  # under no name at all: no incident can name it
                run.books.skip(key, "a change request with no number")
                run.taken.add(rowid)


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


def _slas(files: list[tuple[Path, list[str]]], run: _Run) -> Iterator[Unreadable]:
    """The task_sla rows, by their task (a sys_id in a raw export, a number in a display one), into
    ``run.slas``; a row that cannot be read is listed. Every row is counted."""
    for p, header in files:
        key = run.books.key(p)
        wanted = ["task", "sla", "stage", "start_time", "end_time", "duration", "business_duration",
                  "pause_duration", "business_pause_duration", "schedule"]
        require_columns(header, ["task", "sla", "stage", "start_time", "end_time", "duration"], p, "EXPORT",
                        "a task_sla export")
        _, rows = csv_rows(p, "EXPORT", used=[c for c in wanted if c in header], how=run.settings.files)
        for n, row in rows:
            run.books.read(p)
            if "\0problem" in row:
                yield Unreadable(f"{p.name} row {n}", None, row["\0problem"], key)
                continue
            row = {**row, "\0where": f"{p.name} row {n}", "\0file": key}
            run.slas.setdefault(row["task"].strip(), []).append(row)


_SYS_ID = re.compile(r"[0-9a-f]{32}")


def _other_sla(sla: str, name: str) -> str:
    """Why a task_sla record the map's [sla] name did not choose is skipped (one reason for many
    records, so the books count them together)."""
    if _SYS_ID.fullmatch(name.strip()):  # the map already names the definition by its sys_id
        return (f"a task_sla record of another SLA definition than the one whose sys_id the map's [sla] name "
                f"gives ({name[:60]!r})")
    if _SYS_ID.fullmatch(sla.strip()):
        return (f"a task_sla record whose sla is a sys_id, not the name the map's [sla] name gives ({name[:60]!r}): "
                "a raw export names the SLA definition by its sys_id; export task_sla with display values, or "
                "write that definition's sys_id as [sla] name")
    return f"a task_sla record of another SLA than the map's [sla] name ({name[:60]!r})"


def _sla(t: Ticket, row: dict[str, Any], slas: dict[str, list[dict[str, Any]]], settings: Settings) -> None:
    """The vendor's own SLA clock the reconciliation compares with: the task_sla records of the SLA
    the map's [sla] name names (or the ticket's only SLA). A re-opened ticket has one record of
    that SLA per time it was open (ServiceNow attaches a new one when the start condition holds
    again): their durations add up, and the time between them is time the vendor's clock stood
    still. Cancelled records count for nothing."""
    if not slas:
        return
    sys_id = (row.get("sys_id") or "").strip()
    records = [r for task in dict.fromkeys(filter(None, (sys_id, t.ref.strip()))) for r in slas.get(task, [])]
    records = [r for r in records if r["stage"].strip().lower() not in ("cancelled", "canceled")]
    name = settings.sla.get("name")
    if name and records and not any(r["sla"].strip() == name for r in records):
        ids = 0 if _SYS_ID.fullmatch(name.strip()) else sum(bool(_SYS_ID.fullmatch(r["sla"].strip())) for r in records)
        t.vendor = None  # neither another SLA's record nor calendar_stc: the map chose this SLA
        t.notes.append(f"none of its {len(records)} task_sla record(s) is of the SLA the map's [sla] name gives "
                       f"({name[:60]!r}), so no vendor figure is compared"
                       + (f"; {ids} name their SLA by a sys_id, as a raw export does: export task_sla with display "
                          "values, or write the SLA definition's sys_id as [sla] name" if ids else ""))
        return
    if name:
        records = [r for r in records if r["sla"].strip() == name]
    if not records:
        return
    names = sorted({r["sla"].strip() for r in records})
    if len(names) > 1:
        t.notes.append(f"{len(records)} task_sla records of {len(names)} SLAs ({', '.join(names[:3])}): name the one "
                       "to compare with in the map's [sla] name")
        return
    times = Times(Settings(settings.zone, settings.date_format or "%Y-%m-%d %H:%M:%S"), utc=settings.mode == "raw")
    read = []
    for r in records:
        try:
            read.append((times.read(r["start_time"], "task_sla start_time"),
                         times.read(r["end_time"], "task_sla end_time"),
                         duration_hours(r.get("duration"), "task_sla duration"),
                         duration_hours(r.get("business_duration"), "task_sla business_duration"),
                         duration_hours(r.get("pause_duration"), "task_sla pause_duration")))
        except RowProblem as exc:
            t.notes.append("the task_sla record (" + r["\0where"] + f") was not read: {exc}; its SLA is not compared")
            return
    running = [r["stage"].strip() or "running" for r in records if r["stage"].strip().lower()
               not in ("completed", "breached")]
    if running:
        t.notes.append(f"a task_sla record of {names[0]!r} is still {running[0]}: not compared")
        return
    if len(read) == 1:
        start, end, wall, business, paused = read[0]
        t.vendor = VendorClock(f"ServiceNow task_sla '{names[0]}' duration and business_duration", wall, business,
                               start, end, paused, (records[0].get("schedule") or "").strip() or None)
        return
    read.sort(key=lambda x: (x[0] is None, x[0] or dt.datetime.min.replace(tzinfo=dt.UTC)))

    def total(i: int) -> float | None:
        values = [x[i] for x in read]
        return None if any(v is None for v in values) else sum(values)  # type: ignore[arg-type]

    spans = [(x[0], x[1]) for x in read]
    start = end = paused = None
    if all(a is not None and b is not None for a, b in spans):
        start, end = min(a for a, _ in spans), max(b for _, b in spans)  # type: ignore[type-var]
        covered = sum((hi - lo).total_seconds() for lo, hi in _union(spans)) / 3600  # type: ignore[arg-type]
        stood = (end - start).total_seconds() / 3600 - covered  # between the records: no SLA attached
        own = total(4)
        paused = None if own is None else own + stood
        if stood > 0:
            t.notes.append(f"{len(read)} task_sla records of {names[0]!r} summed (one per time it was open); the "
                           f"vendor's clock stood still {stood:.2f} h between them")
    schedules = sorted({(r.get("schedule") or "").strip() for r in records} - {""})
    t.vendor = VendorClock(f"ServiceNow task_sla '{names[0]}' duration and business_duration, its records summed",
                           total(2), total(3), start, end, paused, "; ".join(schedules) or None)


def _union(spans: list[tuple[Any, Any]]) -> list[tuple[Any, Any]]:
    """Intervals merged where they overlap (a record started again at the ticket's opening overlaps
    the first: the time both count is counted once here, so the sum exceeding it shows)."""
    out: list[list[Any]] = []
    for lo, hi in sorted(spans):
        if out and lo <= out[-1][1]:
            out[-1][1] = max(out[-1][1], hi)
        else:
            out.append([lo, hi])
    return [(lo, hi) for lo, hi in out]

"""Large journals read on DuckDB: the checks of ``journal.read``, done in bulk, and the incident
tables ``metrics`` groups, built where the data lies.

``read_fast`` succeeds only where it can show that ``journal.read`` would accept the journal and
see the same events; at the first doubt it raises ``Declined``, and ``day60.reading`` (the one
place that chooses a reader) hands the whole file to ``journal.read``, which then accepts it (more
slowly) or names its first bad line. So the engine never accepts a journal the reference refuses,
and every refusal carries the reference's own message. The engine never calls the reference
reader itself, and the journal never calls the engine: both sit below ``day60.reading``.

The fast path, in one parallel scan of the file, beside one pass over its bytes in a thread:

- every line is split exactly as written (the byte count and the line count are checked
  against the file, so no line is dropped, joined or trimmed on the way);
- every line's SHA-256 is chained to the line whose ``seq`` is one less, and the byte pass shows
  that line k of the file ends with ``:k}``, as only the line whose seq is k can, so the scan's
  lines (which DuckDB's threads finish in any order) are tied to their places in the file;
- an incident line counts only when it is exactly the canonical JSON the toolkit writes, rebuilt
  from the values DuckDB read (so no duplicate key, stray field, odd number or escape can read one
  way here and another way in Python), with its times, severities, sources and texts checked
  against the event models; texts outside plain printable ASCII go to the models themselves;
- every other line (drift, rollbacks, reports, corrections, reveals: few in any journal) is parsed
  and checked in Python exactly as ``journal.read`` does, and the rules of fact are replayed on them;
- the rules of fact for incidents (one detection, nothing before the clock starts, restores not
  before it, waits and change windows opened before they close) are checked per incident in SQL.

An incident raised by the exercise, or a detection or notice of its own, goes through the safety
gate with the injections, so a journal holding one is read by ``journal.read``; so is one whose
incidents go on past its close, or that ends in a partial line.

``verify_fast`` is ``journal.verify`` on the same fast path, with every line's own hash and
canonical form checked too. It hashes no line in the scan: a child process (``day60.hashchain``,
with hashlib, a little quicker a line than DuckDB's sha256) checks the chain and each line's own
hash beside it, once each, on members whose form the scan checks; the timestamp tokens come back
with the report from the lines parsed here, so ``verify`` need not read the file again to find
them.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import fcntl
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import weakref
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import UnionType
from typing import Annotated, Any, Literal, Union, get_args, get_origin

import numpy as np
import pandas as pd
from pydantic import TypeAdapter, ValidationError

from day60 import journal as jr
from day60.clock import to_utc_us
from day60.errors import InputError
from day60.events import DATA_MODELS, Ident, Instant, Text
from day60.kinds import CLOCK_KINDS, ENDING_KINDS, FIRST_KINDS, FIXERS, PAUSE_KINDS
from day60.timeparse import EARLIEST, LATEST

INCIDENT_KINDS = tuple(k for k in DATA_MODELS if k.startswith("incident."))
# The vendor's own clock on an imported ticket's event, which a reconciliation reads back: kept
# typed in the table ``vendor_clocks`` (an instant as epoch microseconds and its offset in seconds),
# one row per event that holds one, so no line is kept whole and no JSON is parsed twice.
VENDOR_COLUMNS = ("measure", "wall_ms", "business_ms", "paused_ms", "from_us", "from_off", "to_us", "to_off",
                  "schedule", "elapsed_ms", "waits_ms")
_VENDOR_MS = ("vendor_wall_ms", "vendor_business_ms", "vendor_paused_ms", "vendor_elapsed_ms", "vendor_waits_ms")


# DuckDB's share of memory (or 40% of this machine's, if less); past it, it spills to a private
# temporary folder, removed when done. Reading a journal for figures (and verify, which keeps
# nothing for later) gets 512 MB, so its memory stays near 0.7 GB however long the journal; once
# read, the tables the figures query are held to 256 MB, leaving the rest of a 1 GiB budget to the
# figures' own frames (benchmarks/metrics.py: 4.45M events; with 2 GB the read alone took 1.8 GiB).
# An import's batch adds its rows to those tables under the read's limit and leaves them held as a
# read does (``after``): with 2 GB there, a million tickets' import peaked at 1.8 GiB in its
# reconciliation, on top of what the import itself still held.
_RAM_MB = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") * 2 // 5 // 2**20
MEMORY_LIMIT = f"{min(2048, _RAM_MB)}MB"
READ_MEMORY_LIMIT = VERIFY_MEMORY_LIMIT = f"{min(512, _RAM_MB)}MB"
HELD_MEMORY_LIMIT = f"{min(256, _RAM_MB)}MB"


def connect(memory: str | None = None, spill: str | None = None) -> Any:
    """A DuckDB connection held to ``memory`` (else DuckDB's own share), spilling past it into the
    folder ``spill``, and with DuckDB's progress bar off: it draws on standard output once a query
    has run two seconds, which would put its bars into a command's JSON or table. Every connection
    the toolkit opens for work that may take that long is made here."""
    import duckdb

    config = {k: v for k, v in (("memory_limit", memory), ("temp_directory", spill)) if v is not None}
    con = duckdb.connect(config=config)
    con.execute("SET enable_progress_bar = false").fetchall()  # a setting of the connection, not of the database
    return con


_HEX64 = re.compile(r"[0-9a-f]{64}")


class Declined(Exception):
    """The fast path cannot show the journal is one ``journal.read`` accepts as it reads it."""


# ----- the incident data fields, from the event models ----------------------------------------

@dataclass
class _Field:
    name: str
    sql_type: str  # the type DuckDB reads it as
    text: bool = False  # a Text field: checked as the models check it
    instant: bool = False  # an Instant: accepted only in the form the toolkit writes
    bounds: tuple[int, int] | None = None
    choices: tuple[str, ...] = ()
    required_by: set[str] = field(default_factory=set)
    allowed_by: set[str] = field(default_factory=set)


def _schema(annotation: Any, metadata: list[Any]) -> dict[str, Any]:
    return TypeAdapter(Annotated[annotation, *metadata] if metadata else annotation).json_schema()


_TEXT_SCHEMAS = (TypeAdapter(Text).json_schema(), TypeAdapter(Text | None).json_schema())


def _shape(name: str, info: Any) -> _Field:
    """How the fast path reads and checks one data field. A field of a shape it does not know is a
    programming error: the module fails to import, so a new field type fails the tests, never a user."""
    ann = info.annotation
    if get_origin(ann) in (Union, UnionType):
        args = [a for a in get_args(ann) if a is not type(None)]
        ann = args[0] if len(args) == 1 else ann
    if _schema(info.annotation, info.metadata) in _TEXT_SCHEMAS:
        return _Field(name, "VARCHAR", text=True)
    if info.annotation in (Instant, Instant | None):
        return _Field(name, "VARCHAR", instant=True)
    if ann is bool:
        return _Field(name, "BOOLEAN")
    if ann is int:
        ge = next((m.ge for m in info.metadata if hasattr(m, "ge")), None)
        le = next((m.le for m in info.metadata if hasattr(m, "le")), None)
        if ge is not None and le is not None:
            return _Field(name, "UBIGINT", bounds=(ge, le))
    if get_origin(ann) is Literal and all(isinstance(a, str) for a in get_args(ann)):
        return _Field(name, "VARCHAR", choices=tuple(get_args(ann)))
    raise TypeError(f"{name}: the engine does not know how to check {info.annotation!r} {info.metadata!r}")


def _incident_fields() -> dict[str, _Field]:
    out: dict[str, _Field] = {}
    for kind in INCIDENT_KINDS:
        for name, info in DATA_MODELS[kind].model_fields.items():
            shaped = _shape(name, info)
            known = out.setdefault(name, shaped)
            if (known.sql_type, known.text, known.instant, known.bounds, known.choices) != \
                    (shaped.sql_type, shaped.text, shaped.instant, shaped.bounds, shaped.choices):
                raise TypeError(f"{name}: incident kinds disagree on its type")
            known.allowed_by.add(kind)
            if info.is_required():
                known.required_by.add(kind)
    return dict(sorted(out.items()))


FIELDS = _incident_fields()


def _q(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _in(values: Any) -> str:
    return "(" + ",".join(_q(v) for v in values) + ")"


def _render(f: _Field) -> str:
    value = f'j.data."{f.name}"'
    if f.sql_type == "BOOLEAN":
        shown = f"CASE WHEN {value} THEN 'true' ELSE 'false' END"
    elif f.sql_type == "UBIGINT":
        shown = f"CAST({value} AS VARCHAR)"
    else:
        shown = f"CAST(to_json({value}) AS VARCHAR)"
    return f"CASE WHEN {value} IS NOT NULL THEN '\"{f.name}\":' || {shown} END"


def _plain(value: str, ident: bool = False) -> str:
    """Plain printable ASCII with a visible character and within the length: valid for the models
    whatever else they say (no control, format or space-only text). NULL counts as plain."""
    if ident:
        return f"coalesce(regexp_full_match({value}, '[ -~]*[!-~][ -~]*') AND length({value}) <= 120, true)"
    return f"coalesce(regexp_full_match({value}, '[\\t\\n -~]*[!-~][\\t\\n -~]*') AND length({value}) <= 2000, true)"


_ISO = ("'[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]"
        "([.][0-9]{6})?[+-]([01][0-9]|2[0-3]):[0-5][0-9]'")


def _instant_ok(value: str, us: str | None = None) -> str:
    """The form the toolkit writes, a real date, and inside the accepted range (the local year too,
    as ``timeparse.in_range`` checks it first). ``us``: the instant already cast, if it is."""
    us = us or f"epoch_us(TRY_CAST({value} AS TIMESTAMPTZ))"
    return (f"(regexp_full_match({value}, {_ISO}) AND substr({value}, 1, 4) BETWEEN "
            f"'{EARLIEST.year:04d}' AND '{LATEST.year:04d}' AND {us} "
            f"BETWEEN {to_utc_us(EARLIEST)} AND {to_utc_us(LATEST) - 1})")


def _offset(value: str) -> str:
    """The UTC offset, in seconds, that an instant in the toolkit's form (its last six characters
    are +HH:MM or -HH:MM, which the scan checks) was written with."""
    tail = f"right({value}, 6)"
    return (f"(CASE WHEN substr({tail}, 1, 1) = '-' THEN -1 ELSE 1 END) * "
            f"(TRY_CAST(substr({tail}, 2, 2) AS INTEGER) * 3600 + TRY_CAST(substr({tail}, 5, 2) AS INTEGER) * 60)")


_VENDOR_STRUCT = (
    "{'measure': j.data.vendor_measure, 'wall_ms': j.data.vendor_wall_ms, 'business_ms': j.data.vendor_business_ms, "
    "'paused_ms': j.data.vendor_paused_ms, 'from_us': epoch_us(TRY_CAST(j.data.vendor_from AS TIMESTAMPTZ)), "
    f"'from_off': {_offset('j.data.vendor_from')}, 'to_us': epoch_us(TRY_CAST(j.data.vendor_to AS TIMESTAMPTZ)), "
    f"'to_off': {_offset('j.data.vendor_to')}, 'schedule': j.data.vendor_schedule, "
    "'elapsed_ms': j.data.vendor_elapsed_ms, 'waits_ms': j.data.vendor_waits_ms}")


def _scan_sql(path: Path, own_hashes: bool = False, keep_lines: bool = False) -> str:
    """The scan. For ``verify`` (``own_hashes``) it takes no SHA-256 at all: the chain and each
    line's own hash are checked with hashlib by ``day60.hashchain`` in a child process beside it
    (``_Chain``), on the members whose form (top-level, 64 hex digits) the scan and ``_others``
    check. For figures, where the chain alone is checked, the scan hashes each line once."""
    names = ",".join(f'"{n}":"{f.sql_type}"' for n, f in FIELDS.items())
    shape = ('{"seq":"UBIGINT","kind":"VARCHAR","id":"VARCHAR","at":"VARCHAR","recorded_at":"VARCHAR",'
             '"by":"VARCHAR","prev":"VARCHAR","hash":"VARCHAR","data":{' + names + '}}')
    data = "concat_ws(',', " + ", ".join(_render(f) for f in FIELDS.values()) + ")"
    canonical = ("concat('{\"at\":', to_json(j.at), ',\"by\":', to_json(j.by), ',\"data\":{', " + data
                 + ", '},\"hash\":', to_json(j.hash), ',\"id\":', to_json(j.id), ',\"kind\":', to_json(j.kind), "
                 "',\"prev\":', to_json(j.prev), ',\"recorded_at\":', to_json(j.recorded_at), ',\"seq\":', "
                 "CAST(j.seq AS VARCHAR), '}')")
    checks = [f"line = {canonical}", _instant_ok("j.at", "at_us"), _instant_ok("j.recorded_at"),
              "regexp_full_match(j.hash, '[0-9a-f]{64}')"]
    if own_hashes:  # the hashes themselves are the child's (``_Chain``); their form is checked here
        checks.append("regexp_full_match(j.prev, '[0-9a-f]{64}')")
    for f in FIELDS.values():
        value = f'j.data."{f.name}"'
        others = set(INCIDENT_KINDS) - f.allowed_by
        if others:
            checks.append(f"({value} IS NULL OR j.kind NOT IN {_in(sorted(others))})")
        if f.required_by:
            checks.append(f"({value} IS NOT NULL OR j.kind NOT IN {_in(sorted(f.required_by))})")
        if f.bounds:
            checks.append(f"({value} IS NULL OR {value} BETWEEN {f.bounds[0]} AND {f.bounds[1]})")
        if f.choices:
            checks.append(f"({value} IS NULL OR {value} IN {_in(f.choices)})")
        if f.instant:
            checks.append(f"({value} IS NULL OR {_instant_ok(value)})")
    texts = ["j.by"] + [f'j.data."{n}"' for n, f in FIELDS.items() if f.text]
    plain = " AND ".join(_plain(t) for t in texts)
    incident = f"j.kind IN {_in(INCIDENT_KINDS)}"
    source = ("read_csv(" + _q(str(path)) + ", header=false, columns={'line': 'VARCHAR'}, delim='\x01', "
              "quote='', escape='', new_line='\\n', auto_detect=false, strict_mode=true, max_line_size=1048576)")
    sources = get_args(DATA_MODELS["incident.detected"].model_fields["source"].annotation)
    kept = "\n       CASE WHEN incident THEN line END AS line," if keep_lines else ""  # every event asked for
    hashed = "" if own_hashes else (
        "unhex(sha256(line)) AS h,\n       "
        "CASE WHEN regexp_full_match(j.prev, '[0-9a-f]{64}') THEN unhex(j.prev) END AS prev,\n       ")
    return f"""
CREATE TYPE KIND AS ENUM {_in(INCIDENT_KINDS)};
CREATE TYPE SOURCE AS ENUM {_in(sources)};
CREATE TEMP TABLE lines AS
SELECT {hashed}CAST(strlen(line) AS INTEGER) AS bytes, TRY_CAST(j.seq AS BIGINT) AS seq,
       CASE WHEN incident THEN NULL ELSE line END AS other,{kept}
       CASE WHEN incident THEN CAST(j.kind AS KIND) END AS kind,
       CASE WHEN incident THEN j.id END AS id,
       CASE WHEN incident THEN at_us END AS at_us,
       CASE WHEN incident THEN TRY_CAST(j.data.severity AS UTINYINT) END AS severity,
       CASE WHEN incident THEN TRY_CAST(j.data.source AS SOURCE) END AS source,
       CASE WHEN incident THEN j.data.clock_start IS NOT NULL OR j.data."instant" IS NOT NULL END AS stand_in,
       CASE WHEN incident THEN regexp_matches(j.by, '{_claimant_pattern()}') END AS claimed,
       CASE WHEN incident THEN coalesce({' AND '.join(checks)}, false) END AS ok,
       CASE WHEN incident AND NOT ({plain}) THEN list_filter([{', '.join(texts)}], lambda x: x IS NOT NULL) END
         AS texts,
       CASE WHEN incident AND NOT {_plain("j.id", ident=True)} THEN j.id END AS odd_id,
       CASE WHEN incident AND j.data.vendor_measure IS NOT NULL THEN {_VENDOR_STRUCT} END AS vendor
FROM (SELECT line, j, coalesce({incident}, false) AS incident, epoch_us(TRY_CAST(j.at AS TIMESTAMPTZ)) AS at_us
      FROM (SELECT line, TRY(json_transform(line, '{shape}')) AS j FROM {source}))
"""


def _claimant_pattern() -> str:
    """A regular expression (RE2, in SQL quotes) for a ``by`` that names a role whose lines may be
    claims: an incident line of such a role is read by ``journal.read``, where claims are judged."""
    from day60.permissions import ALIASES, table

    roles = set(table().claimants())
    names = sorted(roles | {alias for alias, role in ALIASES.items() if role in roles})
    assert all(n.replace(" ", "").isalpha() for n in names)  # role names are words: nothing to escape
    return r"\((" + "|".join(names) + r")\)\s*$"


# ----- reading --------------------------------------------------------------------------------

_TEXT, _IDENT = TypeAdapter(list[Text]), TypeAdapter(list[Ident])


@dataclass
class Incidents:
    """The incident events of a journal, grouped in DuckDB for ``metrics`` (``read`` built the
    tables ``grouped``, one row per incident, and ``pauses``, its waits and change windows)."""

    con: Any
    targets: dict[int, dict[str, Any]]  # incident events a correction names, as raw events
    lowered: str | None = None  # the memory limit the read left the tables held to, as DuckDB shows it

    def grouped(self, until: int) -> pd.DataFrame:
        """One row per incident id (sorted): the first instant of each kind in FIRST_KINDS (epoch
        microseconds, NaN where none), severity, source, the first seq and how the incident stood
        at ``until`` (ENDING_COLUMNS); as ``metrics`` builds it."""
        columns = ", ".join(json.dumps(k) for k in (*FIRST_KINDS, "severity", "first_seq"))
        # the two texts as enums, which pandas holds as codes: as VARCHAR each row's would be a Python
        # string of its own (two of them, some 120 MB for a million incidents)
        frame = self._df(f"""
            SELECT g.id, {columns}, CAST(g.source AS SOURCE) AS source,
                   CAST(e.end_kind AS ENUM('restored', 'reopened')) AS end_kind,
                   CAST(e.final_restore AS DOUBLE) AS final_restore,
                   coalesce(e.reopens, 0) AS reopens,
                   CAST(CASE WHEN e.closed_seq > coalesce(e.ro_seq, -1) THEN e.closed_at END AS DOUBLE) AS closed_at,
                   coalesce(e.closed_seq > coalesce(e.ro_seq, -1) AND e.closed_stand_in, false) AS closed_untimed,
                   g.stand_in
            FROM grouped g LEFT JOIN (
              SELECT id,
                replace(CAST(arg_max(kind, seq) FILTER (WHERE kind IN ('incident.restored', 'incident.reopened'))
                             AS VARCHAR), 'incident.', '') AS end_kind,
                max(seq) FILTER (WHERE kind IN ('incident.restored', 'incident.reopened')) AS ro_seq,
                arg_max(at_us, seq) FILTER (WHERE kind = 'incident.restored') AS final_restore,
                count(*) FILTER (WHERE kind = 'incident.reopened') AS reopens,
                arg_max(at_us, seq) FILTER (WHERE kind = 'incident.ticket-closed') AS closed_at,
                arg_max(stand_in, seq) FILTER (WHERE kind = 'incident.ticket-closed') AS closed_stand_in,
                max(seq) FILTER (WHERE kind = 'incident.ticket-closed') AS closed_seq
              FROM incidents WHERE at_us <= {int(until)}
                AND kind IN ('incident.restored', 'incident.reopened', 'incident.ticket-closed')
              GROUP BY id) e USING (id)
            ORDER BY g.pos""")
        frame["reopens"] = frame["reopens"].astype(np.int64)
        frame["stand_in"] = frame["stand_in"].astype(bool)
        frame["closed_untimed"] = frame["closed_untimed"].astype(bool)
        return frame.set_index("id").rename_axis(None)

    def written(self, prefix: str) -> list[tuple[str, str, int, int]]:
        """(id, kind, instant as written in epoch microseconds, seq) of every incident event whose
        id starts with ``prefix``: what an import compares a later export with."""
        return self.con.execute("SELECT id, CAST(kind AS VARCHAR), written_us, seq FROM incidents "
                                "WHERE starts_with(id, ?) ORDER BY seq", [prefix]).fetchall()

    def query(self, sql: str) -> pd.DataFrame:
        """A read of the incident table, as a frame (what a reconciliation extracts in bulk)."""
        return self._df(sql)

    def count(self, kind: str) -> dict[str, int]:
        """How many events of ``kind`` each incident has (those that have any)."""
        return dict(self.con.execute("SELECT id, count(*) FROM incidents WHERE CAST(kind AS VARCHAR) = ? "
                                     "GROUP BY id", [kind]).fetchall())

    def _df(self, sql: str) -> pd.DataFrame:
        import duckdb

        try:
            try:
                return self.con.execute(sql).df()
            except duckdb.OutOfMemoryException:
                # a result held whole (one row an incident) outgrew the limit the read lowered it to:
                # a longer journal than HELD_MEMORY_LIMIT was sized for gets the room it had before
                if self.lowered is None or self.con.execute(
                        "SELECT current_setting('memory_limit')").fetchone()[0] != self.lowered:
                    raise
                self.con.execute(f"SET memory_limit = '{MEMORY_LIMIT}'").fetchall()
                self.lowered = None
                return self.con.execute(sql).df()
        except duckdb.Error as exc:  # out of memory, or of disk to spill to: nothing a person typed
            first = (str(exc).splitlines() or ["no reason given"])[0][:120]
            raise InputError("JOURNAL", f"the engine could not finish reading it ({first})",
                             "free memory, or disk space in the temporary folder, and run again") from None

    def pauses(self, rows: np.ndarray, start: np.ndarray, end: np.ndarray) -> dict[str, pd.DataFrame]:
        """As ``metrics.IncidentFrame.pauses``: the waits and change windows of the incidents at
        positions ``rows`` of ``grouped()``, paired in order, clipped to each clock and merged.
        (The rules of fact hold every start before its end, so the n-th pair is rows 2n-1 and 2n.)"""
        bounds = pd.DataFrame({"pos": rows.astype(np.int64), "k": np.arange(len(rows), dtype=np.int64),
                               "lo": start, "hi": end})
        self.con.register("bounds", bounds)
        try:
            self._df("""
                CREATE OR REPLACE TEMP TABLE kept AS
                WITH pairs AS (
                  SELECT pos, wait, min(at_us) FILTER (WHERE opens) AS s0, min(at_us) FILTER (WHERE NOT opens) AS e0
                  FROM pauses SEMI JOIN bounds USING (pos)
                  GROUP BY pos, wait, (r + 1) // 2)
                SELECT b.k AS id, CASE WHEN wait THEN 'wait' ELSE 'change' END AS type,
                       greatest(s0, lo) AS s, least(coalesce(e0, hi), hi) AS e, e0 IS NULL AS unended
                FROM pairs JOIN bounds b USING (pos)
                WHERE least(coalesce(e0, hi), hi) > greatest(s0, lo)""")
            merged = {name: self._merged(where) for name, where in
                      (("all", "true"), ("wait", "type = 'wait'"), ("change", "type = 'change'"),
                       ("ended", "NOT unended"))}
            merged["open"] = self._df("SELECT id, type, s, e FROM kept WHERE unended ORDER BY id, s")
            return merged
        finally:
            self.con.unregister("bounds")

    def _merged(self, where: str) -> pd.DataFrame:
        """Union of intervals per incident: overlapping or touching pauses count once."""
        return self._df(f"""
            WITH r AS (SELECT id, s, e, max(e) OVER (PARTITION BY id ORDER BY s, e
                                                     ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS reach
                       FROM kept WHERE {where}),
            g AS (SELECT *, sum(CASE WHEN reach IS NULL OR s > reach THEN 1 ELSE 0 END)
                            OVER (PARTITION BY id ORDER BY s, e ROWS UNBOUNDED PRECEDING) AS grp FROM r)
            SELECT id, min(s) AS s, max(e) AS e FROM g GROUP BY id, grp ORDER BY id, s""")


def read_fast(path: str | Path, locked: bool = False, events: bool = False) -> jr.Journal:
    """The journal for figures on the fast path: as ``journal.read`` gives it, except that the
    incident events are in ``incidents`` (an ``Incidents``), which ``metrics.compute`` reads, and
    not in ``events`` unless ``events`` asks for them too (a timeline or a table of every event):
    each incident line is then parsed once, after every check has passed, exactly as
    ``journal.read`` parses it. Raises ``Declined`` at the first doubt (``day60.reading`` then
    hands the file to ``journal.read``), or InputError for a header the reference refuses.
    ``locked``: the caller already holds a lock on the journal (an import appending to it holds the
    exclusive one, ``day60.reading`` the shared one)."""
    path = Path(path)
    header = jr.read_header(path)  # names a bad header as the reference does
    return _fast(path, header, locked=locked, events=events)


def verify_fast(path: str | Path, expect: str | None = None, locked: bool = False) -> jr.VerifyReport:
    """``journal.verify`` on the fast path: the checks of ``read``, and every line's own hash and
    canonical form too. Raises ``Declined`` at the first doubt (``day60.reading`` then runs
    ``journal.verify``, which names the first bad line, so a failed check reads the same either way).
    ``locked``: the caller already holds a lock on the journal (``day60.reading`` holds the shared one)."""
    path = Path(path)
    anchor = jr.parse_head(expect) if expect else None
    try:
        header = jr.read_header(path)
        with path.open("rb") as fh:
            first = fh.readline(1_000_000).rstrip(b"\n").decode("utf-8")
        if jr.check_line(1, first, None)[1]:
            raise Declined("the header line")
        journal = _fast(path, header, own_hashes=True, locked=locked, memory=VERIFY_MEMORY_LIMIT)
    except (InputError, UnicodeDecodeError) as exc:
        raise Declined(str(exc)) from None
    events = journal.tail["seq"]
    fixers = [e for e in journal.events if e["kind"] in FIXERS]
    revealed = {e["data"]["target"] for e in fixers if e["kind"] == "reveal"}
    sealed = {e["seq"] for e in journal.events if e["kind"] == "drift.onset" and e["at"] is None}
    report = jr.VerifyReport(path, events + 1, events, None, False, 0, 0, 0, journal.head)
    report.tokens = [e for e in journal.events if e["kind"] == "timestamp.token"]
    report.header_hash = header["hash"]
    if anchor is not None:
        report.problem = jr.anchor_problem(anchor, events, lambda seq: _hash_at(path, seq))
    if report.problem is None:  # as journal.verify: the counts come with a journal that passed
        report.sealed, report.revealed = len(sealed - revealed), len(revealed)
        report.corrections = sum(1 for e in fixers if e["kind"] == "correction")
    return report


def _hash_at(path: Path, seq: int) -> str:
    """The hash of the event at ``seq``, read back from the file; Declined where the file no longer
    holds that line, or holds another line there (it was cut or written over after the checks read
    it: ``day60.reading`` then names the change): never a fault on bytes the checks never saw."""
    try:
        line = _lines_at(path, os.path.getsize(path), {seq}).get(seq)
        event = json.loads(line) if line is not None else None
    except (OSError, ValueError, RecursionError):
        event = None
    if not isinstance(event, dict) or event.get("seq", 0 if seq == 0 else None) != seq \
            or not isinstance(event.get("hash"), str):
        raise Declined(f"line {seq + 1} is no longer in the file as the checks read it")
    return event["hash"]


def _fast(path: Path, header: dict[str, Any], own_hashes: bool = False, locked: bool = False,
          memory: str | None = None, events: bool = False) -> jr.Journal:
    import duckdb

    from day60.files import MAX_JOURNAL_BYTES, open_regular

    fd = open_regular(path, "JOURNAL", "a journal made by 'day60 new'", MAX_JOURNAL_BYTES)
    with os.fdopen(fd, "rb") as fh:
        if not locked:
            fcntl.flock(fh.fileno(), fcntl.LOCK_SH)  # an append waits until the file is read
        size = os.fstat(fh.fileno()).st_size
        chain = _Chain(fh.fileno(), size) if own_hashes else None
        facts = _FileFacts(fh.fileno(), size, digest=not own_hashes)
        spill = tempfile.mkdtemp(prefix="day60-engine-")
        con = None
        try:
            facts.start()
            con = connect(memory or READ_MEMORY_LIMIT, spill)
            try:
                # DuckDB opens the file this process holds open and locked (where the system
                # shows it), not whatever the name points to by then
                held = Path(f"/proc/self/fd/{fh.fileno()}")
                con.execute(_scan_sql(held if held.exists() else path, own_hashes, keep_lines=events)).fetchall()
            finally:
                facts.join()
            if chain is not None:
                facts.chained = chain.result()
            journal = _check(con, path, header, facts, every_event=events)
        except duckdb.Error as exc:  # not UTF-8, a line too long, no room to spill: the reference reads it
            _abandon(con, spill, chain)
            raise Declined(str(exc)) from None
        except BaseException:
            _abandon(con, spill, chain)
            raise
    weakref.finalize(journal.incidents, _close, con, spill, os.getpid())
    return journal


def _abandon(con: Any, spill: str, chain: _Chain | None) -> None:
    """A scan given up on: its connection closed, its spill folder removed, its child ended."""
    if chain is not None:
        chain.stop()
    if con is not None:
        con.close()
    shutil.rmtree(spill, ignore_errors=True)


class _Chain:
    """``hashchain.first_break`` in a child process beside the scan, for ``verify``: the chain and
    every line's own hash, with hashlib, on the descriptor this process holds (and has locked).

    The child is a new interpreter (``subprocess``, which starts it by fork and exec in C, so no
    thread of this process is copied into it: ``day60 serve`` calls verify from a process with a
    web server's threads), running ``hashchain.py`` alone, so it starts in a bare interpreter's
    time. A thread here measured level with the child on verify alone, but its loop would hold
    this process's GIL for seconds against every other thread (``day60 serve`` answers requests
    while a verify runs); the child holds none. Where no child can be started, or it gives no answer (killed,
    crashed, no interpreter to start), this process checks the chain itself after the scan: a
    failure costs time, never a check."""

    def __init__(self, fd: int, size: int) -> None:
        self.fd, self.size = fd, size
        self.proc: subprocess.Popen[bytes] | None = None
        if not sys.executable or (os.cpu_count() or 1) < 2:
            return
        from day60 import hashchain

        command = [*CHAIN_COMMAND, hashchain.__file__, str(fd), str(size), "1"]
        try:
            self.proc = subprocess.Popen(command, pass_fds=(fd,), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                         stderr=subprocess.DEVNULL, close_fds=True)
        except (OSError, ValueError):
            self.proc = None

    def result(self) -> tuple[int | None, int]:
        """As ``hashchain.first_break``: the first line that breaks the chain or its own hash (or None),
        and the complete lines read."""
        from day60 import hashchain

        answer = b""
        if self.proc is not None:
            try:
                answer, _ = self.proc.communicate()
            except OSError:
                answer = b""
            finally:
                self.stop()
        word, _, number = answer.decode("ascii", "replace").strip().partition(" ")
        if word in ("ok", "bad") and number.isdigit():
            return (int(number), int(number)) if word == "bad" else (None, int(number))
        return hashchain.first_break(self.fd, self.size, True)

    def stop(self) -> None:
        """End and reap the child, if it is still there."""
        proc, self.proc = self.proc, None
        if proc is None:
            return
        if proc.poll() is None:
            with contextlib.suppress(OSError):
                proc.kill()
        with contextlib.suppress(OSError):
            proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()


# The interpreter that runs ``hashchain.py`` for ``_Chain``: this one, isolated from the caller's
# environment and site packages (the script needs only the standard library).
CHAIN_COMMAND = [sys.executable, "-I", "-S"]


_INHERITED: list[Any] = []  # a forked child's copies of its parent's connections, never touched


def _close(con: Any, spill: str, owner: int) -> None:
    """Close a connection and delete its spill folder, in the process that opened them only.

    A child forked while a connection was open (``render.pdf_bytes_many`` forks to render on two
    cores) holds a copy of it, and the garbage collector may finalize that copy there. Closing or
    freeing it in the child acts on DuckDB's threads, which exist only in the parent (it crashed
    the child), and deleting the folder would take the parent's spill files from under it. The
    child keeps its copy referenced until it leaves (by ``os._exit``), and the parent closes its own."""
    if os.getpid() != owner:
        _INHERITED.append(con)
        return
    con.close()
    shutil.rmtree(spill, ignore_errors=True)


_POW10 = 10 ** np.arange(1, 9, dtype=np.int64)


class _FileFacts(threading.Thread):
    """One pass over the file's bytes beside the scan (hashlib and NumPy let go of the GIL): its
    SHA-256, its line count, its first and last lines, and whether each line k after the header
    ends with ':k}', as a line whose seq is k does. Every line the scan accepts ends with its own
    seq, so that ties it (in whatever order DuckDB's threads finish) to its place in the file."""

    TAIL = 16  # bytes kept from one chunk to the next: ':', up to eight digits and '}'

    def __init__(self, fd: int, size: int, digest: bool = True) -> None:
        super().__init__(daemon=True)
        self.fd, self.size = fd, size
        self.digest = hashlib.sha256() if digest else None  # verify reports no hash of the whole file
        self.chained: tuple[int | None, int] | None = None  # verify's: what ``_Chain`` found
        self.lines = 0
        self.in_order = size > 0
        self.first_line = self.last_line = b""
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            self._read()
        except BaseException as exc:  # reported by the reading thread
            self.error = exc

    def _read(self) -> None:
        offset, carry = 0, b""
        while offset < self.size:
            chunk = os.pread(self.fd, min(1 << 24, self.size - offset), offset)
            if not chunk:
                raise OSError("the journal shrank while it was read")
            if self.digest is not None:
                self.digest.update(chunk)
            if offset == 0:
                self.first_line = chunk.split(b"\n", 1)[0]
            buf = np.frombuffer(chunk, np.uint8)
            ends = np.flatnonzero(buf == ord("\n"))
            k = np.arange(self.lines, self.lines + len(ends), dtype=np.int64)
            early = ends < self.TAIL  # their tails began in the chunk before
            if early.any():
                joined = np.frombuffer(carry + chunk[:self.TAIL], np.uint8)
                self._check_tails(joined, ends[early] + len(carry), k[early])
            self._check_tails(buf, ends[~early], k[~early])
            self.lines += len(ends)
            offset += len(chunk)
            carry = (carry + chunk)[-self.TAIL:]
        self._last(offset)

    def _check_tails(self, buf: np.ndarray, p: np.ndarray, k: np.ndarray) -> None:
        """Whether each line numbered k (the header is 0), ending at p in buf, ends with ':k}'."""
        events = k >= 1
        p, k = p[events], k[events]
        if not len(p):
            return
        if (p < self.TAIL).any() or (k >= _POW10[-1]).any():
            self.in_order = False
            return
        # '}' last, the digits of k before it and ':' before them: no other number fits there, and
        # every line the scan accepts ends ',"seq":' and its own seq, so the two are the same line
        digits = 1 + np.searchsorted(_POW10, k, side="right")
        ok = (buf[p - 1] == ord("}")) & (buf[p - 2 - digits] == ord(":"))
        rest = k.copy()
        for i in range(int(digits.max())):
            ok &= (digits <= i) | (buf[p - 2 - i] == ord("0") + rest % 10)
            rest //= 10
        if not ok.all():
            self.in_order = False

    def _last(self, size: int) -> None:
        start = max(0, size - (1 << 20))
        tail = os.pread(self.fd, size - start, start)
        if not tail.endswith(b"\n"):
            self.in_order = False  # a partial last line: the reference keeps it aside
            return
        self.last_line = tail[:-1].rsplit(b"\n", 1)[-1]


def _check(con: Any, path: Path, header: dict[str, Any], facts: _FileFacts, every_event: bool = False) -> jr.Journal:
    if facts.error is not None or not facts.in_order:
        raise Declined("not every line is in its place as the toolkit writes it")
    # Every line but the header has a seq from 1 to the last; each chains to the line whose seq
    # is one less (the header's for seq 1). With as many lines as seqs, a repeated seq would leave
    # one without its predecessor, so the chain also shows that each seq appears once.
    lines, length, headers, low, high, bad_rows = con.execute("""
        SELECT count(*), sum(bytes + 1), count(*) FILTER (WHERE seq IS NULL), min(seq), max(seq),
               count(*) FILTER (WHERE kind IS NOT NULL AND NOT ok)
        FROM lines""").fetchall()[0]
    events = lines - 1
    if (lines, length) != (facts.lines, facts.size) or headers != 1 or bad_rows \
            or (events and (low, high) != (1, events)):
        raise Declined("a line is not as the toolkit writes it")
    if facts.chained is not None:
        # verify: the child chained each line of the file to the one before it, and line k of the
        # file ends with seq k (the file pass) in canonical form (the scan, ``_others``), so that
        # chains each seq to seq - 1
        if facts.chained != (None, facts.lines):
            raise Declined("a line does not chain to the one before, or its own hash is not its content")
    else:
        unchained = con.execute("""
            SELECT count(*) FROM lines l LEFT JOIN lines p ON coalesce(p.seq, 0) = l.seq - 1
            WHERE l.seq IS NOT NULL AND (l.prev IS NULL OR p.h IS NULL OR l.prev <> p.h)""").fetchall()[0][0]
        if unchained:
            raise Declined("a line does not chain to the one before")
    first = con.execute("SELECT other FROM lines WHERE seq IS NULL").fetchall()[0][0]
    if first is None or first.encode("utf-8") != facts.first_line:
        raise Declined("the header")
    _check_texts(con)
    others = _others(con, chained=True) if facts.chained is not None else _others(con)
    closes = [e["seq"] for e in others if e["kind"] == "exercise.close"]
    gated, after_close = con.execute(f"""
        SELECT count(*) FILTER (WHERE kind = 'incident.raised' OR (kind IN ('incident.detected',
                                'incident.partner-notice') AND coalesce(source, 'exercise') = 'exercise') OR claimed),
               count(*) FILTER (WHERE seq > {closes[0] if closes else events})
        FROM lines WHERE kind IS NOT NULL""").fetchall()[0]
    if gated or after_close:
        raise Declined("an exercise incident goes through the safety gate, a claim of the measured party is "
                       "judged, or incidents follow the close")
    targets = _targets(path, facts.size, others, con)
    excluded = sorted({x for e in others if e["kind"] == "resolve" for x in e["data"].get("exclude") or []})
    firsts = dict(con.execute("SELECT id, min(seq) FROM lines WHERE kind IS NOT NULL AND id IN (SELECT unnest(?)) "
                              "GROUP BY id", [excluded]).fetchall()) if excluded else {}
    try:
        jr.check_rules(others, targets, firsts)
    except InputError:
        raise Declined("a rule of fact") from None
    _incident_table(con, others)
    _group(con)
    _check_incident_rules(con)
    last = facts.last_line.decode("utf-8")
    last_obj = json.loads(last)
    if not events or jr.own_hash(last, last_obj) != last_obj.get("hash"):
        raise Declined("the last line's own hash, or no events")
    listed = _every_event(con, others, events) if every_event else others
    con.execute("DROP TABLE lines").fetchall()  # what figures need is now in ``incidents``
    journal = jr.Journal(path, header, listed, last, facts.digest.hexdigest() if facts.digest else "", None)
    journal.tail = {"seq": events, "hash": last_obj["hash"]}
    journal.incidents = Incidents(con, targets, _hold(con))
    return journal


def _hold(con: Any) -> str | None:
    """The tables the figures read, a third of what the checks (or a batch's rows going in) needed:
    held to HELD_MEMORY_LIMIT, DuckDB moves what does not fit to its spill folder and gives the
    rest back for the figures' own frames. Returns the limit as DuckDB shows it (``Incidents.lowered``),
    or None where it could not be lowered (nowhere to move them, a full disk: they stay as they were)."""
    import duckdb

    with contextlib.suppress(duckdb.Error):
        con.execute(f"SET memory_limit = '{HELD_MEMORY_LIMIT}'").fetchall()
        return con.execute("SELECT current_setting('memory_limit')").fetchone()[0]
    return None


def _every_event(con: Any, others: list[dict[str, Any]], count: int) -> list[dict[str, Any]]:
    """Every event in seq order: ``others`` as parsed already, and each incident line (every
    check on it has passed) parsed as ``journal.read`` parses a block of lines."""
    out: list[Any] = [None] * count
    for e in others:
        out[e["seq"] - 1] = e
    cursor = con.execute("SELECT seq, line FROM lines WHERE kind IS NOT NULL ORDER BY seq")
    while rows := cursor.fetchmany(50_000):
        parsed = jr.loads_line("[" + ",".join(line for _, line in rows) + "]")
        for (seq, _), event in zip(rows, parsed, strict=True):
            out[seq - 1] = event
    if any(e is None for e in out):  # the chain checks make this impossible; never a gap in a list
        raise Declined("an event is missing from the scan")
    return out


def _check_texts(con: Any) -> None:
    """Texts beyond plain ASCII, checked once per distinct value by the models' own validators."""
    checks = ((_TEXT, "SELECT DISTINCT unnest(texts) FROM lines WHERE texts IS NOT NULL"),
              (_IDENT, "SELECT DISTINCT odd_id FROM lines WHERE odd_id IS NOT NULL"))
    for adapter, sql in checks:
        values = [v for (v,) in con.execute(sql).fetchall()]
        if values:
            try:
                adapter.validate_python(values)
            except ValidationError:
                raise Declined("a text the models refuse") from None


def _others(con: Any, chained: bool = False) -> list[dict[str, Any]]:
    """Every event that is not an incident's, parsed and checked in Python as ``journal.read`` does
    (its place in the file is the seq its line ends with, which the file pass checked). With
    ``chained`` (verify) the child checked each line's ``prev`` member against the line before it
    in the file; here its form, a top-level string of 64 hex digits in a canonical line."""
    if chained:
        rows = con.execute("""
            SELECT seq, other, NULL FROM lines WHERE seq IS NOT NULL AND other IS NOT NULL ORDER BY seq""").fetchall()
    else:
        rows = con.execute("""
            SELECT l.seq, l.other, lower(hex(p.h)) FROM lines l JOIN lines p ON coalesce(p.seq, 0) = l.seq - 1
            WHERE l.seq IS NOT NULL AND l.other IS NOT NULL ORDER BY l.seq""").fetchall()
    events = []
    for seq, line, before in rows:
        obj, problem = jr.parse_line(seq + 1, line)
        if problem is None and isinstance(obj, dict):
            prev = obj.get("prev")
            chains = (isinstance(prev, str) and _HEX64.fullmatch(prev) is not None) if chained else prev == before
            placed = obj.get("seq") == seq and line.endswith(f',"seq":{seq}}}') and chains \
                and jr.canonical(obj) == line and jr.own_hash(line, obj) == obj.get("hash")
            problem = jr.check_body(obj) if placed else "out of place, or not as the toolkit writes it"
        if problem or not isinstance(obj, dict):
            raise Declined("an event the reference would refuse")
        events.append(obj)
    return events


def _targets(path: Path, size: int, events: list[dict[str, Any]], con: Any) -> dict[int, dict[str, Any]]:
    """Incident events that corrections name, read back from the file as written (the report
    shows the instant each correction replaced)."""
    wanted = {e["data"]["target"] for e in events if e["kind"] == "correction"}
    wanted = {seq for (seq,) in con.execute(
        f"SELECT seq FROM lines WHERE kind IS NOT NULL AND seq IN ({','.join(map(str, wanted))})").fetchall()} \
        if wanted else set()
    return {seq: json.loads(raw) for seq, raw in _lines_at(path, size, wanted).items()}


def _lines_at(path: Path, size: int, numbers: set[int]) -> dict[int, bytes]:
    """Lines numbered from 0 (the header), read from the first ``size`` bytes of the file."""
    found: dict[int, bytes] = {}
    n, offset, lines = 0, 0, jr.Lines()
    with path.open("rb") as fh:
        while numbers - found.keys() and offset < size:
            chunk = fh.read(min(1 << 24, size - offset))
            if not chunk:
                break  # the file is shorter than it was: what it holds is all there is
            offset += len(chunk)
            for raw in lines.feed(chunk):
                if n in numbers:
                    found[n] = raw
                n += 1
    return found


def _incident_table(con: Any, events: list[dict[str, Any]]) -> None:
    """The incident events with corrections applied (the last correction of an event wins)."""
    fixes = {e["data"]["target"]: to_utc_us(dt.datetime.fromisoformat(e["data"]["at"]))
             for e in events if e["kind"] == "correction"}
    frame = pd.DataFrame({"target": np.fromiter(fixes, dtype=np.int64, count=len(fixes)),
                          "fixed": np.fromiter(fixes.values(), dtype=np.int64, count=len(fixes))})
    con.register("fixes", frame)
    try:
        con.execute("""
            CREATE TEMP TABLE incidents AS
            SELECT l.seq, l.kind, l.id, coalesce(f.fixed, l.at_us) AS at_us, l.at_us AS written_us, l.severity,
                   l.source,
                   -- a closure whose time was not evidenced has one once a person corrects its instant
                   CASE WHEN f.fixed IS NOT NULL AND l.kind = 'incident.ticket-closed' THEN false ELSE l.stand_in END
                     AS stand_in
            FROM lines l LEFT JOIN fixes f ON f.target = l.seq
            WHERE l.kind IS NOT NULL""").fetchall()
        con.execute("CREATE TEMP TABLE vendor_clocks AS SELECT seq, id, vendor.* FROM lines "
                    "WHERE kind IS NOT NULL AND vendor IS NOT NULL").fetchall()
    finally:
        con.unregister("fixes")


_CLOCK, _ENDS, _PAUSES = _in(CLOCK_KINDS), _in(ENDING_KINDS), _in(PAUSE_KINDS)


def _group(con: Any) -> None:
    """``grouped``: one row per incident, numbered in id order (``pos``), with the first instant of
    each kind, severity, source, first seq, and what the rules of fact need; ``pauses``: each wait
    and change window edge with its incident's ``pos`` and its place ``r`` in that incident's
    waits (or change windows) in seq order."""
    firsts = ", ".join(f"CAST(min(at_us) FILTER (WHERE kind = {_q(k)}) AS DOUBLE) AS {json.dumps(k)}"
                       for k in FIRST_KINDS)
    con.execute(f"""
        CREATE TEMP TABLE grouped AS
        SELECT row_number() OVER (ORDER BY id) - 1 AS pos, * FROM (
          SELECT id, {firsts},
            CAST(coalesce(
              arg_max(severity, seq) FILTER (WHERE kind = 'incident.classified' AND severity IS NOT NULL),
              arg_min(severity, seq) FILTER (WHERE kind = 'incident.detected' AND severity IS NOT NULL),
              arg_min(severity, seq) FILTER (WHERE kind = 'incident.partner-notice' AND severity IS NOT NULL))
              AS DOUBLE) AS severity,
            CASE WHEN bool_or(kind = 'incident.raised' OR source = 'exercise') THEN 'exercise'
                 ELSE 'organic' END AS source,
            coalesce(bool_or(kind = 'incident.detected' AND stand_in), false) AS stand_in,
            min(seq) AS first_seq,
            count(*) FILTER (WHERE kind = 'incident.detected') AS detections,
            min(seq) FILTER (WHERE kind IN {_CLOCK}) AS clock_seq,
            max(seq) FILTER (WHERE kind IN {_CLOCK}) AS last_clock_seq,
            min(at_us) FILTER (WHERE kind IN {_CLOCK}) AS clock_at,
            min(seq) FILTER (WHERE kind IN {_ENDS}) AS end_seq,
            min(at_us) FILTER (WHERE kind IN {_ENDS}) AS end_at,
            count(*) FILTER (WHERE kind IN {_ENDS} OR kind = 'incident.reopened') AS endings,
            max(seq) FILTER (WHERE kind = 'incident.partner-notice') AS last_notice_seq,
            min(seq) FILTER (WHERE kind = 'incident.restored') AS restore_seq
          FROM incidents GROUP BY id)""").fetchall()
    con.execute(f"""
        CREATE TEMP TABLE pauses AS
        SELECT *, row_number() OVER (PARTITION BY pos, wait ORDER BY seq) AS r,
               lag(at_us) OVER (PARTITION BY pos, wait ORDER BY seq) AS before
        FROM (SELECT g.pos, i.seq, i.at_us, i.kind IN ('incident.wait-start', 'incident.wait-end') AS wait,
                     i.kind IN ('incident.wait-start', 'incident.change-window-start') AS opens
              FROM incidents i JOIN grouped g ON i.id = g.id WHERE i.kind IN {_PAUSES})""").fetchall()


def _check_incident_rules(con: Any) -> None:
    """``_State``'s incident rules, per incident in seq order with corrected times: one detection;
    nothing before the clock starts (the first event is a detection or a notice); no restore or
    closure before the clock as it stood then; waits and change windows each opened before they
    close, and not closed before they opened."""
    broken = con.execute("""
        SELECT count(*) FROM grouped
        WHERE detections > 1 OR clock_seq IS NULL OR clock_seq <> first_seq
           OR (end_seq IS NOT NULL AND last_clock_seq < end_seq AND end_at < clock_at)""").fetchall()[0][0]
    # where a detection or notice comes after a restore, the clock at each restore is a running minimum
    broken += con.execute(f"""
        WITH o AS (
          SELECT kind, at_us, min(CASE WHEN kind IN {_CLOCK} THEN at_us END)
                   OVER (PARTITION BY id ORDER BY seq ROWS UNBOUNDED PRECEDING) AS clock
          FROM incidents SEMI JOIN (SELECT id FROM grouped WHERE last_clock_seq > end_seq) USING (id))
        SELECT count(*) FROM o WHERE kind IN {_ENDS} AND at_us < clock""").fetchall()[0][0]
    broken += con.execute("""
        SELECT count(*) FROM pauses WHERE opens <> (r % 2 = 1) OR (NOT opens AND at_us < before)""").fetchall()[0][0]
    broken += _broken_endings(con)
    if broken:
        raise Declined("an incident breaks a rule of fact")


def _broken_endings(con: Any) -> int:
    """``journal.Ending``'s rules, for the incidents that have more than one restore, closure or
    re-open, or a partner notice after a restore (a single restore, the usual case, has none to
    break): a second restore only after a re-open; a re-open only after a restore or a closure and
    not before it; nothing before the re-open it follows; no partner notice dated after a restore
    that stands."""
    return con.execute("""
        WITH o AS (
          SELECT kind, at_us,
            last_value(CASE WHEN kind IN ('incident.restored', 'incident.reopened') THEN kind END IGNORE NULLS)
              OVER w AS last_kind,
            last_value(CASE WHEN kind IN ('incident.restored', 'incident.reopened') THEN seq END IGNORE NULLS)
              OVER w AS last_seq,
            last_value(CASE WHEN kind IN ('incident.restored', 'incident.reopened') THEN at_us END IGNORE NULLS)
              OVER w AS last_at,
            last_value(CASE WHEN kind = 'incident.ticket-closed' THEN seq END IGNORE NULLS) OVER w AS closed_seq,
            last_value(CASE WHEN kind = 'incident.ticket-closed' THEN at_us END IGNORE NULLS) OVER w AS closed_at
          FROM incidents SEMI JOIN (SELECT id FROM grouped
                                    WHERE endings > 1 OR last_notice_seq > restore_seq) USING (id)
          WINDOW w AS (PARTITION BY id ORDER BY seq ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)),
        s AS (
          SELECT *, CASE WHEN last_kind = 'incident.restored' THEN 'restored'
                         WHEN closed_seq IS NOT NULL AND (last_seq IS NULL OR closed_seq > last_seq) THEN 'closed'
                         ELSE 'live' END AS state
          FROM o)
        SELECT count(*) FROM s
        WHERE (kind = 'incident.restored' AND state = 'restored')
           OR (kind = 'incident.reopened'
               AND (state = 'live' OR at_us < CASE WHEN state = 'restored' THEN last_at ELSE closed_at END))
           OR (kind IN ('incident.restored', 'incident.ticket-closed') AND last_kind = 'incident.reopened'
               AND at_us < last_at)
           OR (kind = 'incident.partner-notice' AND state = 'restored' AND at_us > last_at)""").fetchall()[0][0]


# ----- a journal after a batch, without reading it again ------------------------------------


class Appended:
    """The incident events a batch appended, kept as the columns of the engine's tables (a few
    bytes an event, each ticket's id once), so that the figures after an import are worked from
    the journal as it stood plus exactly what was written, not by reading the file again."""

    _NONE = -(2**63)  # an absent instant or duration in the integer columns
    _EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
    _US = dt.timedelta(microseconds=1)

    def __init__(self) -> None:
        from array import array

        self.ids: list[str] = []
        self._kinds = {k: n for n, k in enumerate(INCIDENT_KINDS)}
        self.first, self.count = array("q"), array("q")  # per ticket: its first event's seq, its events
        self.kind, self.at = array("B"), array("q")  # per event
        # the events whose data says a severity, a source or a stand-in clock start: few, one a ticket
        self.m_event, self.m_severity, self.m_source, self.m_stand_in = array("q"), array("b"), array("b"), array("b")
        self.v_event, self.v_measure, self.v_schedule = array("q"), array("i"), array("i")
        self.v_ms = tuple(array("q") for _ in _VENDOR_MS)
        self.v_from, self.v_from_off, self.v_to, self.v_to_off = array("q"), array("i"), array("q"), array("i")
        self._texts: dict[str, int] = {}

    def ticket(self, ident: str, first_seq: int, events: list[tuple[str, dt.datetime, dict[str, Any]]],
               vendor_from: dt.datetime | None = None, vendor_to: dt.datetime | None = None) -> None:
        """A ticket's events as a batch wrote them, with seqs ``first_seq`` onwards (one after
        another: a batch numbers its lines in order). ``vendor_from``/``vendor_to``: the instants
        its vendor_from and vendor_to fields were written from, where it has them."""
        self.ids.append(ident)
        self.first.append(first_seq)
        self.count.append(len(events))
        kinds, at, epoch, us = self._kinds, self.at, self._EPOCH, self._US
        for kind, when, data in events:
            self.kind.append(kinds[kind])
            at.append((when - epoch) // us)  # an aware instant (every import time is) to epoch microseconds
            if data and ("severity" in data or "source" in data or "clock_start" in data or "instant" in data
                         or "vendor_measure" in data):
                self._mark(len(at) - 1, data, vendor_from, vendor_to)

    def _mark(self, event: int, data: dict[str, Any], vendor_from: dt.datetime | None,
              vendor_to: dt.datetime | None) -> None:
        if "severity" in data or "source" in data or "clock_start" in data or "instant" in data:
            severity, source = data.get("severity"), data.get("source")
            self.m_event.append(event)
            self.m_severity.append(-1 if severity is None else severity)
            self.m_source.append(0 if source is None else 1 if source == "organic" else 2)
            self.m_stand_in.append(data.get("clock_start") is not None or data.get("instant") is not None)
        if "vendor_measure" not in data:
            return
        self.v_event.append(event)
        self.v_measure.append(self._text(data["vendor_measure"]))
        self.v_schedule.append(self._text(data.get("vendor_schedule")))
        for column, name in zip(self.v_ms, _VENDOR_MS, strict=True):
            value = data.get(name)
            column.append(self._NONE if value is None else value)
        for us, off, when in ((self.v_from, self.v_from_off, vendor_from), (self.v_to, self.v_to_off, vendor_to)):
            us.append(self._NONE if when is None else to_utc_us(when))
            off.append(0 if when is None else int(when.utcoffset().total_seconds()))

    def _text(self, value: str | None) -> int:
        return -1 if value is None else self._texts.setdefault(value, len(self._texts))

    PART = 200_000  # tickets whose rows go into the tables at once (``frames``)

    def frames(self, tickets: int | None = None) -> Iterator[tuple[pd.DataFrame, pd.DataFrame]]:
        """The incident rows and the vendor-clock rows, as the tables hold them, ``tickets`` tickets'
        rows at a time (every ticket's at once if None). A million tickets' rows as frames hold
        about 400 MiB, which ``after`` would otherwise hold beside the tables they go into."""
        def ints(values: Any) -> np.ndarray:
            kind = {"q": np.int64, "i": np.int32, "b": np.int8}[values.typecode]
            return np.frombuffer(values, dtype=kind).astype(np.int64) if len(values) else np.zeros(0, dtype=np.int64)

        counts = ints(self.count)
        edges = np.concatenate(([0], np.cumsum(counts)))  # each ticket's first event, and the end
        firsts, at_us = ints(self.first), ints(self.at)
        kinds = np.frombuffer(self.kind, dtype=np.uint8) if len(self.kind) else np.zeros(0, dtype=np.uint8)
        marks = ints(self.m_event)  # in event order, as the events were added
        m_severity, m_source, m_stand_in = ints(self.m_severity), ints(self.m_source), ints(self.m_stand_in)
        clocks = ints(self.v_event)
        v_measure, v_schedule = ints(self.v_measure), ints(self.v_schedule)
        v_ms = [ints(column) for column in self.v_ms]
        v_from, v_from_off, v_to, v_to_off = (ints(c) for c in (self.v_from, self.v_from_off, self.v_to,
                                                                 self.v_to_off))
        texts = np.array([*self._texts, None], dtype=object)  # code -1 is the last: none
        kind_names = np.array(INCIDENT_KINDS, dtype=object)
        sources = np.array([None, "organic", "exercise"], dtype=object)
        n = len(counts)
        step = n if tickets is None else tickets
        for t0 in range(0, n, max(step, 1)):
            t1 = min(n, t0 + step)
            e0, e1 = int(edges[t0]), int(edges[t1])
            mine = counts[t0:t1]
            place = np.arange(e1 - e0) - np.repeat(edges[t0:t1] - e0, mine)  # each event's place in its ticket
            seq = np.repeat(firsts[t0:t1], mine) + place
            ids = np.repeat(np.array(self.ids[t0:t1], dtype=object), mine)  # each event's ticket id
            m0, m1 = np.searchsorted(marks, [e0, e1])
            marked = marks[m0:m1] - e0
            severity = np.full(e1 - e0, -1, dtype=np.int64)
            severity[marked] = m_severity[m0:m1]
            source = np.zeros(e1 - e0, dtype=np.int64)
            source[marked] = m_source[m0:m1]
            stand_in = np.zeros(e1 - e0, dtype=bool)
            stand_in[marked] = m_stand_in[m0:m1].astype(bool)
            events = pd.DataFrame({"seq": seq, "kind": kind_names[kinds[e0:e1]], "id": ids, "at_us": at_us[e0:e1],
                                   "severity": _masked(severity, severity < 0, "UInt8"), "source": sources[source],
                                   "stand_in": stand_in})
            v0, v1 = np.searchsorted(clocks, [e0, e1])
            at = clocks[v0:v1] - e0

            def nullable(raw: np.ndarray, lo: int = v0, hi: int = v1) -> Any:
                return _masked(raw[lo:hi], raw[lo:hi] == self._NONE, "Int64")

            vendor = pd.DataFrame({
                "seq": seq[at], "id": ids[at], "measure": texts[v_measure[v0:v1]],
                "wall_ms": nullable(v_ms[0]), "business_ms": nullable(v_ms[1]), "paused_ms": nullable(v_ms[2]),
                "elapsed_ms": nullable(v_ms[3]), "waits_ms": nullable(v_ms[4]), "from_us": nullable(v_from),
                "from_off": v_from_off[v0:v1], "to_us": nullable(v_to), "to_off": v_to_off[v0:v1],
                "schedule": texts[v_schedule[v0:v1]]})
            yield events, vendor


def _masked(values: np.ndarray, absent: np.ndarray, dtype: str) -> Any:
    out = pd.array(np.where(absent, 0, values), dtype=dtype)
    out[absent] = pd.NA
    return out


_TABLES = """
CREATE TEMP TABLE incidents (seq BIGINT, kind KIND, id VARCHAR, at_us BIGINT, written_us BIGINT, severity UTINYINT,
                             source SOURCE, stand_in BOOLEAN);
CREATE TEMP TABLE vendor_clocks (seq BIGINT, id VARCHAR, measure VARCHAR, wall_ms UBIGINT, business_ms UBIGINT,
                                 paused_ms UBIGINT, from_us BIGINT, from_off INTEGER, to_us BIGINT, to_off INTEGER,
                                 schedule VARCHAR, elapsed_ms UBIGINT, waits_ms UBIGINT);
"""


def after(journal: jr.Journal, appended: Appended, last_line: str, head: dict[str, Any]) -> jr.Journal:
    """The journal for figures as it stands once a batch has appended ``appended`` to ``journal``
    (as ``read`` gave it, under the batch's lock; ``last_line`` and ``head``: the batch's last line
    and head), without reading the file again. Read on the engine, ``journal``'s own tables take
    the new rows (so ``journal`` itself then stands for the later state); read by ``journal.read``,
    its incident events go into tables of their own first. Corrections and every other event stay
    as ``journal`` holds them: a batch appends incident events only, none of them corrected yet.
    ``sha256`` is left empty: the file's hash is not worked out again."""

    if journal.incidents is not None:
        held, others = journal.incidents, journal.events
        # rows go in and are grouped again under the tables' own limit (``_roomy``: the room a read
        # for figures has where that is too little), beside what the import still holds
        held.con.execute(f"SET memory_limit = '{HELD_MEMORY_LIMIT}'").fetchall()
        held.lowered = None
    else:
        spill = tempfile.mkdtemp(prefix="day60-engine-")
        con = connect(HELD_MEMORY_LIMIT, spill)
        sources = get_args(DATA_MODELS["incident.detected"].model_fields["source"].annotation)
        con.execute(f"CREATE TYPE KIND AS ENUM {_in(INCIDENT_KINDS)}; CREATE TYPE SOURCE AS ENUM {_in(sources)};"
                    + _TABLES)
        others = [e for e in journal.events if not e["kind"].startswith("incident.")]
        fixes = {e["data"]["target"]: e["data"]["at"] for e in others if e["kind"] == "correction"}
        targets = {e["seq"]: e for e in journal.events if e["seq"] in fixes and e["kind"].startswith("incident.")}
        held = Incidents(con, targets)
        weakref.finalize(held, _close, con, spill, os.getpid())
        frames = _reference_frames(journal.events, fixes)
        _roomy(con, lambda: _insert(con, *frames))
        del frames
    if len(appended.at) or journal.incidents is None:  # nothing new on the engine: its tables stand
        for events, vendor in appended.frames(Appended.PART):  # a part at a time: never every row as frames
            _roomy(held.con, lambda: _insert(held.con, events, vendor))  # noqa: B023 - called at once
        _roomy(held.con, lambda: (held.con.execute("DROP TABLE IF EXISTS grouped; DROP TABLE IF EXISTS pauses")
                                  .fetchall(), _group(held.con)))
    # the rows are in: the figures and the reconciliation then work under the limit a read for
    # figures leaves the tables (``_hold``), as 'day60 metrics' does, and not beside 2 GB of DuckDB
    # on top of what the import itself still holds
    held.lowered = _hold(held.con)
    out = jr.Journal(journal.path, journal.header, others, last_line, "", None)
    out.tail, out.incidents = head, held
    return out


def _roomy(con: Any, step: Callable[[], Any]) -> None:
    """``step`` under the limit ``con`` is held to; where DuckDB runs out of memory there (an
    import far larger than HELD_MEMORY_LIMIT was sized for), once more with READ_MEMORY_LIMIT, the
    room a read for figures has. A statement that failed changed nothing, so it can run again. A
    million tickets' import (2.7 million rows) fits in HELD_MEMORY_LIMIT, spilling, and with 512 MB
    it went past 1 GiB beside what the import itself still holds (docs/benchmarks.md)."""
    import duckdb

    try:
        step()
    except duckdb.OutOfMemoryException:
        con.execute(f"SET memory_limit = '{READ_MEMORY_LIMIT}'").fetchall()
        step()


def _insert(con: Any, events: pd.DataFrame, vendor: pd.DataFrame) -> None:
    con.register("new_events", events)
    con.register("new_vendor", vendor)
    try:
        con.execute("""
            INSERT INTO incidents SELECT seq, kind, id, at_us, coalesce(written_us, at_us), severity, source, stand_in
            FROM new_events""" if "written_us" in events else """
            INSERT INTO incidents SELECT seq, kind, id, at_us, at_us, severity, source, stand_in FROM new_events""")
        con.execute(f"INSERT INTO vendor_clocks SELECT seq, id, {', '.join(VENDOR_COLUMNS)} FROM new_vendor")
    finally:
        con.unregister("new_events")
        con.unregister("new_vendor")


def _reference_frames(events: list[dict[str, Any]], fixes: dict[int, str]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The incident events ``journal.read`` holds as dicts, as the tables' rows (corrections applied)."""
    rows, clocks = [], []

    def us(value: str | None) -> int | None:
        return None if value is None else to_utc_us(dt.datetime.fromisoformat(value))

    def off(value: str | None) -> int:
        return 0 if value is None else int(dt.datetime.fromisoformat(value).utcoffset().total_seconds())

    for e in events:
        if not e["kind"].startswith("incident."):
            continue
        d = e["data"]
        rows.append((e["seq"], e["kind"], e["id"], us(fixes.get(e["seq"], e["at"])), us(e["at"]), d.get("severity"),
                     d.get("source"), d.get("clock_start") is not None
                     or (d.get("instant") is not None and e["seq"] not in fixes)))
        if "vendor_measure" in d:
            clocks.append((e["seq"], e["id"], d["vendor_measure"], d.get("vendor_wall_ms"), d.get("vendor_business_ms"),
                           d.get("vendor_paused_ms"), us(d.get("vendor_from")), off(d.get("vendor_from")),
                           us(d.get("vendor_to")), off(d.get("vendor_to")), d.get("vendor_schedule"),
                           d.get("vendor_elapsed_ms"), d.get("vendor_waits_ms")))
    frame = pd.DataFrame(rows, columns=["seq", "kind", "id", "at_us", "written_us", "severity", "source", "stand_in"])
    for col in ("seq", "at_us", "written_us"):
        frame[col] = frame[col].astype(np.int64)
    frame["severity"] = frame["severity"].astype("UInt8")
    frame["stand_in"] = frame["stand_in"].astype(bool)
    vendor = pd.DataFrame(clocks, columns=["seq", "id", *VENDOR_COLUMNS])
    for col in ("seq", "from_off", "to_off"):
        vendor[col] = vendor[col].astype(np.int64)
    for col in ("wall_ms", "business_ms", "paused_ms", "from_us", "to_us", "elapsed_ms", "waits_ms"):
        vendor[col] = vendor[col].astype("Int64")
    return frame, vendor

"""What every vendor reader hands the normaliser: tickets, pauses and unreadable rows, plus the
settings a BPO states about its export (time zone, date format, severity map, column map).

A reader never guesses: a time without an offset is read only in a zone the BPO named, a local
time the clocks skipped or repeated is refused naming both candidates, and a vendor priority is
a deal severity only where the severity map says so.
"""

from __future__ import annotations

import csv
import datetime as dt
import re
import unicodedata
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from day60.errors import InputError
from day60.imports.tabular import MAX_EXPORT_BYTES, FileOptions, Layout, Table, open_table, sheet_hint, utf8_copy
from day60.timeparse import EARLIEST, LATEST, RANGE_TEXT, localize

FORMAT_NAMES = ("servicenow", "jira", "zendesk", "pagerduty", "csv")  # the import formats, as ids are prefixed
PAUSE_KINDS = ("wait", "change", "kept")  # on the partner; an agreed change window; the supplier's own time
SEVERITY_VALUES = ("1", "2", "3", "4", "unclassified", "skip")
OUTCOMES = ("withdrawn", "excluded")  # charter 3.19.5: counted apart, never in the restore figure
SLA_CALENDARS = ("24x7", "business")
MAX_JSON_EXPORT_BYTES = 512 * 1024 * 1024  # JSON exports (vendor APIs) are read whole
csv.field_size_limit(1024 * 1024)


class RowProblem(Exception):
    """One row of an export cannot be read; the import lists it and goes on."""


@dataclass
class Pause:
    kind: str  # one of PAUSE_KINDS
    start: dt.datetime
    end: dt.datetime | None  # None: still paused when the export was taken
    label: str  # the vendor's words, e.g. "On Hold: Awaiting Caller"


@dataclass
class VendorClock:
    """The vendor's own duration for a ticket, as its records give it, kept in the journal so a
    report can set it beside ours from the journal alone."""

    measure: str  # which of the vendor's fields, e.g. "ServiceNow calendar_stc / business_stc"
    wall_hours: float | None = None  # elapsed calendar (24x7) time, less the vendor's own pauses
    business_hours: float | None = None  # on the vendor's own business schedule
    start: dt.datetime | None = None  # when the vendor's clock started, where its records say
    end: dt.datetime | None = None  # when it stopped
    paused_hours: float | None = None  # calendar time its clock stood still between the two
    schedule: str | None = None  # the vendor's business schedule, where its records name it
    elapsed_hours: float | None = None  # its own figure for the whole span, not paused, beside a paused main one
    waits_hours: float | None = None  # its own total of time waiting on the partner


@dataclass
class Ticket:
    """One incident as the vendor's records hold it, times aware, nothing inferred."""

    ref: str  # the vendor's ticket id
    where: str  # the file and row it came from
    severity: str | None  # the vendor's priority or severity, as written
    opened: dt.datetime | None  # the ticket's creation
    detected: dt.datetime | None = None  # a separate detection time, where the export has one
    detected_label: str = ""
    partner_notice: dt.datetime | None = None
    communicated: dt.datetime | None = None
    resolved: dt.datetime | None = None  # the ticket's last resolution
    closed: dt.datetime | None = None  # closed with no resolution
    state: str = ""
    check: str | None = None  # the monitoring evidence that confirmed the restore
    restored: dt.datetime | None = None  # a monitoring-confirmed restore time of its own, where mapped
    pauses: list[Pause] = field(default_factory=list)
    earlier: list[tuple[dt.datetime, str]] = field(default_factory=list)  # resolutions before a re-open
    reopens: list[tuple[dt.datetime, str]] = field(default_factory=list)  # re-opens, with the vendor's words
    restores: list[tuple[dt.datetime, str]] = field(default_factory=list)  # further confirmed restores (notes)
    outcome: tuple[str, str, dt.datetime | None] | None = None  # (withdrawn|excluded, reason, when)
    acknowledged: dt.datetime | None = None
    ack_known: bool = False  # the export records acknowledgements, so a missing one means none
    auto_resolved: str | None = None  # an integration resolved it, in the vendor's words
    reopen_count: int | None = None  # the vendor's own count, where it keeps one
    vendor: VendorClock | None = None
    note_stream: list[tuple[dt.datetime | None, str]] = field(default_factory=list)  # notes, work notes
    notes: list[str] = field(default_factory=list)  # what the import says about the ticket
    # The records say it is over but hold no time for it: (the vendor's words, resolved or not).
    untimed: tuple[str, bool] | None = None
    distorted: list[str] = field(default_factory=list)  # why its records look distorted, beyond what every reader finds
    # Counted apart, never imported: (deleted | merged | not an incident, the vendor's words).
    apart: tuple[str, str] | None = None
    file: str = ""  # the export file its record came from (a key of the import's Books)
    attached: dict[str, int] = field(default_factory=dict)  # records of other files read into it, per file
    # Where its severity is empty, another field's value the import's note names (PagerDuty's urgency).
    severity_beside: str | None = None

    def ended(self, words: str, resolved: bool) -> None:
        """The vendor's records say the ticket is over (resolved, or closed without a resolution):
        where they give no time for its end, it is over at a time not evidenced, never open."""
        if self.resolved is None and self.closed is None:
            self.untimed = (words, resolved)

    def note_time(self) -> dt.datetime | None:
        """The latest instant the ticket's own records give (for a withdrawal with no time of its own)."""
        times = [t for t in (self.resolved, self.closed, self.restored) if t is not None]
        return max(times) if times else None


@dataclass
class Unreadable:
    where: str
    ref: str | None
    reason: str
    file: str = ""  # the export file (a key of the import's Books); "" for a record the format cannot place
    rows: int = 1  # records of that file it stands for (DuckDB's several rows of one ticket with a bad time)


@dataclass
class Unmatched:
    """Records of a file that completes the tickets (a history, metrics, log entries, SLA records)
    for a ticket the main export does not hold: counted and listed with the ticket's id."""

    file: str
    ref: str
    records: int
    what: str  # the vendor's name for what the records are, e.g. "sys_audit"


@dataclass
class Settings:
    """What the BPO states about its export, from options and the --map file."""

    zone: ZoneInfo | None = None
    date_format: str | None = None
    mode: str | None = None  # servicenow: raw (UTC database values) or display
    severity: dict[str, str] = field(default_factory=dict)
    columns: dict[str, str] = field(default_factory=dict)
    pauses: dict[str, str] = field(default_factory=dict)  # a vendor status or reason -> PAUSE_KINDS
    outcomes: dict[str, tuple[str, str | None]] = field(default_factory=dict)  # value -> (OUTCOMES, reason)
    notes: dict[str, Any] = field(default_factory=dict)  # clock event -> notes.Pattern
    sla: dict[str, str] = field(default_factory=dict)  # name, calendar
    agreed_changes: list[str] = field(default_factory=list)  # change statuses that mean agreed
    integrations: list[str] = field(default_factory=list)  # resolved_by values that are integrations
    files: FileOptions = field(default_factory=FileOptions)  # encoding, delimiter, sheet; what each file was read as
    states: dict[str, list[str]] = field(default_factory=dict)  # [states]: words the map adds to states.yaml

    def column(self, key: str, default: str | None = None) -> str | None:
        return self.columns.get(key, default)

    def outcome(self, vendor: str, *values: tuple[str, str | None]) -> tuple[str, str] | None:
        """The first of (field, vendor value) that the map's [outcomes] names: (kind, reason), the
        reason being the vendor's own value (and, for an exclusion, the contract's reason)."""
        for name, value in values:
            key = (value or "").strip()
            if key and key in self.outcomes:
                kind, why = self.outcomes[key]
                said = f"{vendor} {name} {key!r}"
                return kind, said if kind == "withdrawn" else f"{why} ({said})"
        return None


def check_columns(settings: Settings, keys: tuple[str, ...], fmt: str) -> None:
    """A [columns] key the format does not read is refused, never silently ignored; a restore
    time comes with the check that confirmed it (charter 3.19.4)."""
    unknown = sorted(set(settings.columns) - set(keys))
    if unknown:
        raise InputError(f"--map columns.{unknown[0]}", f"is not a column the {fmt} format reads",
                         f"[columns] takes: {', '.join(keys)}")
    if "restored" in settings.columns and "check" not in settings.columns:
        raise InputError("--map columns.restored", "names a restore time but no check column: a restore counts only "
                                                   "with the monitoring check that confirmed it",
                         "map check to the column naming that check (it may be the restored column itself, if a "
                         "time there is the monitoring's own confirmation)")


def confirm(t: Ticket, restored: dt.datetime | None, check: str | None, restored_column: str | None) -> None:
    """The monitoring-confirmed restore (charter 3.19.4): where the map names a restore column,
    its time with a check; where it names only a check, the check confirms the resolution."""
    check = (check or "").strip() or None
    if restored_column is None:
        t.check = check
    elif restored is not None and check:
        t.restored, t.check = restored, check
    elif restored is not None:
        t.notes.append(f"{restored_column} has a time but no check names the monitoring that confirmed it: not a "
                       "confirmed restore")
    elif check:
        t.notes.append(f"a check is named but {restored_column} holds no time: not a confirmed restore")


def zone(name: str, field_name: str) -> ZoneInfo:
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, TypeError) as exc:
        raise InputError(field_name, f"{str(name)[:60]!r} is not an IANA time zone",
                         "write a name such as Europe/London or America/New_York") from exc


def parse_severity_map(text: str, field_name: str = "--severity-map") -> dict[str, str]:
    """``P1=1,P2=2,P3=unclassified,P5=skip``: each vendor value to a deal severity, or left out."""
    out: dict[str, str] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        key, sep, value = part.rpartition("=")
        if not sep or not key.strip():
            raise InputError(field_name, f"{part[:40]!r} is not VENDOR=SEVERITY",
                             "write pairs such as 'P1=1,P2=2' (severity 1-4, unclassified or skip)")
        out[key.strip()] = value.strip()
    return check_severity_map(out, field_name)


def check_severity_map(table: dict[str, Any], field_name: str) -> dict[str, str]:
    bad = [f"{k}={v}" for k, v in table.items() if str(v) not in SEVERITY_VALUES]
    if bad:
        raise InputError(field_name, f"{', '.join(bad[:5])[:120]}: a deal severity is 1, 2, 3 or 4",
                         "map each vendor value to 1-4, 'unclassified' (judged at the strictest target) or "
                         "'skip' (not an incident under the deal, counted apart)")
    return {str(k): str(v) for k, v in table.items()}


STATE_WORDS = ("resolved", "closed", "open", "deleted", "merged", "not_incident")  # [states]: what the map adds
_SECTIONS: dict[str, tuple[str, ...] | None] = {
    "times": ("timezone", "format"), "columns": None, "pauses": None, "severity": None, "outcomes": None,
    "notes": None, "sla": ("name", "calendar"), "changes": ("agreed",), "integrations": ("names",),
    "file": ("encoding", "delimiter", "sheet"),
    "states": STATE_WORDS}
_LISTS = {("changes", "agreed"), ("integrations", "names"), *(("states", k) for k in STATE_WORDS)}


def load_map(path: Path) -> dict[str, Any]:
    """The --map TOML file: [times], [columns], [pauses], [severity], [outcomes], [notes], [sla],
    [changes], [integrations], [states], [file]; every key checked."""
    from day60.files import read_toml

    doc, _ = read_toml(path, "--map", "a column map (see 'day60 examples', import-*)")
    for key, value in doc.items():
        if key not in _SECTIONS:
            raise InputError(f"--map {key}", "is not a section of a map", f"sections are: {', '.join(_SECTIONS)}")
        if not isinstance(value, dict):
            raise InputError(f"--map {key}", "is not a table", f"write it as [{key}]")
        keys = _SECTIONS[key]
        for sub, item in value.items():
            if keys is not None and sub not in keys:
                raise InputError(f"--map {key}.{sub}", "is not a known key",
                                 f"[{key}] takes: {', '.join(sorted(keys))}")
            if (key, sub) in _LISTS:
                if not isinstance(item, list) or not all(isinstance(v, str) and v.strip() for v in item):
                    raise InputError(f"--map {key}.{sub}", "is not a list of texts", 'write it as ["A", "B"]')
                continue
            if not isinstance(item, str | int) or isinstance(item, bool):
                raise InputError(f"--map {key}.{sub}", "is not text", "write it in quotes")
    for sub, kind in doc.get("pauses", {}).items():
        if kind not in PAUSE_KINDS:
            raise InputError(f"--map pauses.{sub}", f"{str(kind)[:20]!r} is not a pause kind",
                             "write wait (waiting on you), change (an agreed change window) or kept (the "
                             "supplier's own time, not excluded)")
    standing = ("resolved", "closed", "open", "deleted")  # a word means one of these, never two
    seen: dict[str, str] = {}
    for sub in standing:
        for word in doc.get("states", {}).get(sub, []):
            if seen.setdefault(word.strip(), sub) != sub:
                raise InputError(f"--map states.{sub}", f"{word.strip()!r} is in states.{seen[word.strip()]} too",
                                 "a status means one thing: name it in one of resolved, closed, open, deleted")
    calendar = doc.get("sla", {}).get("calendar")
    if calendar is not None and calendar not in SLA_CALENDARS:
        raise InputError("--map sla.calendar", f"{str(calendar)[:20]!r} is not a calendar an SLA runs on",
                         "write \"24x7\" (the SLA counts every hour) or \"business\" (its own working hours)")
    return doc


def parse_outcomes(table: dict[str, Any]) -> dict[str, tuple[str, str | None]]:
    """[outcomes]: a vendor value -> "withdrawn", or "excluded: the contract's reason"."""
    out: dict[str, tuple[str, str | None]] = {}
    for value, meaning in table.items():
        text = str(meaning).strip()
        kind, _, why = text.partition(":")
        kind, why = kind.strip(), why.strip()
        if kind == "withdrawn" and not why:
            out[str(value).strip()] = ("withdrawn", None)
        elif kind == "excluded" and why:
            out[str(value).strip()] = ("excluded", why)
        else:
            raise InputError(f"--map outcomes.{str(value)[:40]}", f"{text[:40]!r} is not an outcome",
                             "write \"withdrawn\" (raised and withdrawn as not reproducible, charter 3.19.5) or "
                             "\"excluded: <the contract's reason, e.g. Retainer Schedule clause 10.2>\"")
    return out


# ----- time ---------------------------------------------------------------------------------

_OFFSET = re.compile(r"(Z|[+-][0-9]{2}:?[0-9]{2})$")
# A date with no time of day (ISO calendar or week date): fromisoformat would read it as midnight.
_DATE_ONLY = re.compile(r"[0-9]{4}-?(W[0-9]{2}(-?[0-9])?|[0-9]{2}-?[0-9]{2})")
_TIME_OF_DAY = ("%H", "%I", "%X", "%c")  # strptime directives that read an hour


def check_date_format(fmt: str | None, field_name: str) -> str | None:
    """A stated strptime format must read a time of day (a date alone is not an instant: read as
    midnight it would be a time nobody recorded), and an offset only as ``%z`` (a zone's
    abbreviation such as GMT or BST is read by strptime as no zone at all)."""
    if fmt is None:
        return None
    if not isinstance(fmt, str) or not fmt.strip() or len(fmt) > 60:
        raise InputError(field_name, "is not a strptime format", "write one such as '%d/%m/%Y %H:%M'")
    if not any(d in fmt for d in _TIME_OF_DAY):
        raise InputError(field_name, f"{fmt!r} reads no time of day (no %H or %I), so every time would be "
                                     "midnight, which nobody recorded", "give the format of the export's date and "
                                                                        "time, e.g. '%d/%m/%Y %H:%M'")
    if "%Z" in fmt:
        raise InputError(field_name, f"{fmt!r} reads a zone name (%Z), which strptime does not turn into an offset",
                         "use %z for an offset such as +0100, or state the zone with --zone and leave it out")
    try:
        dt.datetime.now().strftime(fmt)
    except ValueError as exc:
        raise InputError(field_name, f"{fmt!r} is not a strptime format ({exc})",
                         "write one such as '%d/%m/%Y %H:%M'") from None
    return fmt


class Times:
    """Reads an export's times: with an offset as written, without one only in a stated zone."""

    def __init__(self, settings: Settings, utc: bool = False, how: str = "") -> None:
        self.zone = dt.UTC if utc else settings.zone
        self.fmt = settings.date_format
        self.how = how  # how to state the zone, for the message

    def read(self, text: str | None, column: str) -> dt.datetime | None:
        if text is not None and not isinstance(text, str):  # a JSON number, true, a list: not a time as written
            raise RowProblem(f"{column}: {str(text)[:20]!r} is a {type(text).__name__}, not a date and time")
        raw = (text or "").strip()
        if not raw:
            return None
        if len(raw) > 40:
            raise RowProblem(f"{column}: {raw[:20]!r}... is not a date and time")
        if not raw.isascii():  # strptime reads Arabic-Indic or full-width digits as if they were ASCII
            raise RowProblem(f"{column}: {raw!r} holds characters other than ASCII (a digit that only looks like "
                             "one, or an unusual space), so it is not read as a date and time")
        if _DATE_ONLY.fullmatch(raw):
            raise RowProblem(f"{column}: {raw!r} is a date with no time of day; read as midnight it would be a "
                             "time nobody recorded")
        if self.fmt and ("%z" in self.fmt or not _OFFSET.search(raw)):
            try:
                value = dt.datetime.strptime(raw, self.fmt)
            except ValueError:
                raise RowProblem(f"{column}: {raw!r} does not match the date format {self.fmt!r}") from None
        else:
            try:
                value = dt.datetime.fromisoformat(raw.replace("Z", "+00:00") if raw.endswith("Z") else raw)
            except ValueError:
                hint = "" if self.fmt else "; state the export's date format in the map's [times] format"
                raise RowProblem(f"{column}: {raw!r} is not a date and time{hint}") from None
        return self.attach(value, raw, column)

    def required(self, text: str | None, column: str) -> dt.datetime:
        """``read``, for a time the record cannot do without: an empty one is the row's problem."""
        value = self.read(text, column)
        if value is None:
            raise RowProblem(f"{column} is empty")
        return value

    def attach(self, value: dt.datetime, raw: str, column: str) -> dt.datetime:
        """A parsed time made aware: as written when it has an offset, else in the stated zone."""
        if value.tzinfo is None:
            if self.zone is None:
                raise InputError("--zone", f"the export holds times without an offset ({column} {raw!r}) and no "
                                           "time zone was stated", self.how or "state the zone the export was "
                                           "written in with --zone (or [times] timezone in the map)")
            if not EARLIEST.year <= value.year <= LATEST.year:
                raise RowProblem(f"{column}: {raw!r} is not {RANGE_TEXT}")
            if self.zone is dt.UTC:
                value = value.replace(tzinfo=dt.UTC)
            else:
                try:
                    value = localize(value, self.zone, column)
                except InputError as exc:
                    raise RowProblem(f"{exc.field}: {exc.problem}; {exc.fix}") from None
        if not EARLIEST <= value < LATEST:
            raise RowProblem(f"{column}: {raw!r} is not {RANGE_TEXT}")
        return value


def number(text: str | None, column: str, scale: float = 1.0) -> float | None:
    """A vendor's duration (seconds, minutes or milliseconds, as ``scale`` converts to hours)."""
    raw = (text if isinstance(text, str) else "" if text is None else str(text)).strip()
    if not raw:
        return None
    try:
        value = float(raw)
    except ValueError:
        raise RowProblem(f"{column}: {raw[:20]!r} is not a number") from None
    if not 0 <= value < 1e12:
        raise RowProblem(f"{column}: {raw[:20]!r} is not a duration")
    return value * scale


# ----- files --------------------------------------------------------------------------------


def _table(path: Path, field_name: str, how: FileOptions | None,
           rename: Callable[[list[str]], tuple[list[str], str | None]] | None) -> Table:
    """The export as a table (CSV in its encoding and delimiter, or an XLSX sheet), its header
    translated by ``rename`` where the vendor wrote it in another language."""
    table = open_table(path, field_name, how)
    if rename is not None:
        table.header, language = rename(table.header)
        table.layout.headers = language or table.layout.headers
    return table


def csv_rows(path: Path, field_name: str, used: Iterable[str] = (), many: Iterable[str] = (),
             free: Iterable[str] = (), how: FileOptions | None = None,
             rename: Callable[[list[str]], tuple[list[str], str | None]] | None = None) \
        -> tuple[list[str], Iterator[tuple[int, dict[str, Any]]]]:
    """An export's header and its rows, streamed (row numbers as a spreadsheet shows them): a
    CSV in the encoding and delimiter found or stated in ``how``, or an XLSX sheet (``tabular``).

    ``used``: the columns the reader takes; one that the header holds twice is refused, since
    which of the two holds the value cannot be told, unless it is in ``many`` (a column Jira
    repeats, such as Comment), whose values come as a list. Quoting is read strictly: a quote
    opened and never closed swallows the rows after it, so it stops the import naming the row,
    as does a used cell (other than ``free`` text) running over several lines. A row with the
    wrong number of cells is ``{"\\0problem": reason}``, listed and counted."""
    table = _table(path, field_name, how, rename)
    header = table.header
    many, free = set(many), set(free)
    counts: dict[str, int] = {}
    for name in header:
        counts[name] = counts.get(name, 0) + 1
    twice = [c for c in dict.fromkeys(used) if counts.get(c, 0) > 1 and c not in many]
    if twice:
        table.close()
        raise InputError(field_name, f"{path} has the column {twice[0]!r} {counts[twice[0]]} times, so which "
                                     "one holds its value cannot be told", "export it once, or map another column")
    places = {name: [i for i, h in enumerate(header) if h == name] for name in many if name in counts}
    # a cell of a workbook holds its line breaks as its own: no quote can be left open there
    lined = [] if table.layout.kind == "xlsx" else \
        [c for c in dict.fromkeys(used) if c in counts and c not in free and c not in many]
    sheet = table.layout.kind == "xlsx"

    def rows() -> Iterator[tuple[int, dict[str, Any]]]:
        for n, row, first, line in table.rows:
            if not any(row):  # a blank line, or a row of empty cells
                continue
            if sheet and len(row) < len(header):  # a workbook leaves a row's empty last cells out
                row = row + [""] * (len(header) - len(row))
            if len(row) != len(header):
                yield n, {"\0problem": f"has {len(row)} cells, the header has {len(header)}"}
                continue
            out: dict[str, Any] = dict(zip(header, row, strict=True)) if not places else \
                {h: v for h, v in zip(header, row, strict=True) if h not in places}
            for name, at in places.items():
                out[name] = [row[i] for i in at if row[i].strip()]
            for name in lined:
                if "\n" in out[name] or "\r" in out[name]:
                    table.close()
                    raise InputError(field_name, f"{path}: row {n} (lines {first}-{line}): its {name!r} cell runs "
                                                 "over several lines, so a quote was opened and not closed where "
                                                 "it should be", "fix the quoting of that row and export again; "
                                                                 "nothing was written")
            yield n, out

    return header, rows()


def csv_header(path: Path, field_name: str, how: FileOptions | None = None,
               rename: Callable[[list[str]], tuple[list[str], str | None]] | None = None) -> list[str]:
    """Only the header row of an export (CSV or XLSX)."""
    table = _table(path, field_name, how, rename)
    table.close()
    return table.header


def refuse_twice(header: list[str], used: Iterable[str], path: Path, field_name: str) -> None:
    """A column the reader takes that the header holds twice is refused (see ``csv_rows``)."""
    twice = [c for c in dict.fromkeys(used) if header.count(c) > 1]
    if twice:
        raise InputError(field_name, f"{path} has the column {twice[0]!r} {header.count(twice[0])} times, so which "
                                     "one holds its value cannot be told", "export it once, or map another column")


class Held:
    """Export files held open while DuckDB reads them. DuckDB is given ``/proc/self/fd/N``, the
    file this process opened and checked, never the name: a ``*``, ``?`` or ``[`` in a file name
    is a name, not a pattern that could pull in a sibling file. A file that is not UTF-8 (or BOM)
    text, or is an XLSX workbook, is given as a UTF-8 copy in a folder of its own, written in
    bounded pieces (``tabular.utf8_copy``), so every encoding and delimiter reads alike."""

    def __init__(self, how: FileOptions | None = None) -> None:
        self.fds: list[int] = []
        self.how = how or FileOptions()
        self.delimiters: dict[str, str] = {}  # the path DuckDB is given -> its delimiter
        self.folder: str | None = None

    def path(self, path: Path, field_name: str) -> str:
        import os

        from day60.files import open_regular
        from day60.imports.tabular import UTF8, layout

        found = layout(path, field_name, self.how)
        if found.kind == "xlsx" or found.encoding not in UTF8:
            if self.folder is None:
                import tempfile

                self.folder = tempfile.mkdtemp(prefix="day60-export-")
            copy, delim = utf8_copy(path, field_name, self.how, self.folder)
            self.delimiters[copy] = delim
            return copy
        fd = open_regular(path, field_name, "a CSV export", MAX_EXPORT_BYTES)
        self.fds.append(fd)
        held = f"/proc/self/fd/{fd}"
        if not os.path.exists(held):
            if any(ch in str(path) for ch in "*?[{"):
                raise InputError(field_name, f"{path}: this system does not show open files under /proc, and the "
                                             "name holds a character DuckDB would read as a pattern",
                                 "rename the file without * ? [ {")
            held = str(path)
        self.delimiters[held] = found.delimiter or ","
        return held

    def close(self) -> None:
        import os
        import shutil

        for fd in self.fds:
            os.close(fd)
        self.fds.clear()
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)
            self.folder = None


def title_row(header: list[str], found: Layout | None = None) -> str:
    """What to say of a header that is not the export's: in a workbook of several sheets, which
    sheet was read and the others (``tabular.sheet_hint``); where the header row holds one cell
    only, it may be a title typed (often merged) above the column names, read as the header since
    the header is the first row that is not empty and no option skips rows; else nothing."""
    cells = [h for h in header if h.strip()]
    if len(cells) != 1:
        return sheet_hint(found)
    return sheet_hint(found) + (
        f"; the row read as its header (the first that is not empty) holds one cell only, {cells[0][:60]!r}: if "
        "that is a title above the column names, delete the title rows above them (and any merged cells) and "
        "import again")


def require_columns(header: list[str], needed: list[str], path: Path, field_name: str, what: str,
                    found: Layout | None = None) -> None:
    """Refused, naming the columns missing and the file's own, where ``header`` lacks any of
    ``needed``; ``found`` (how the file was read) names a workbook's other sheets."""
    missing = [c for c in needed if c not in header]
    if missing:
        raise InputError(field_name, f"{path} lacks column(s) {', '.join(missing)} of {what}",
                         f"export them (the file has: {', '.join(header[:12])}{'...' if len(header) > 12 else ''})"
                         + title_row(header, found))


def read_json_export(path: Path, field_name: str, key: str) -> list[Any]:
    """A vendor API's JSON export: the list under ``key`` (or a bare list)."""
    from day60.files import loads_json, read_bytes

    doc = loads_json(read_bytes(path, field_name, "a JSON export", MAX_JSON_EXPORT_BYTES), field_name,
                     "a JSON export", str(path))
    items = doc.get(key) if isinstance(doc, dict) else doc
    if not isinstance(items, list):
        raise InputError(field_name, f"{path} holds no {key!r} list", f"give the API's {key} export")
    return items


def clean(text: Any, limit: int = 200) -> str:
    """Vendor text for a journal field: control and invisible (format) characters become spaces,
    so that it always meets the journal's rule for text; nothing visible is left out."""
    value = str(text)
    if not value.isprintable():
        value = "".join(" " if unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp") else ch for ch in value)
    value = " ".join(value.split())
    if not value:
        return "(no visible text)"
    return value if len(value) <= limit else value[: limit - 1] + "…"


def peek(path: Path, field_name: str, size: int = 4096) -> str:
    """The first bytes of an export as text, to tell which export it is."""
    import os

    from day60.files import open_regular

    fd = open_regular(path, field_name, "an export", MAX_EXPORT_BYTES)
    try:
        return os.read(fd, size).decode("utf-8", "replace")
    finally:
        os.close(fd)


class NoSeverity:
    """Tickets imported whose own record holds no value in the severity field (an empty priority
    or severity cell, Zendesk's and PagerDuty's null ``priority``, or a CSV map naming no severity
    column): counted by the import run, whatever the format, and said in one note, since each
    enters the journal with no severity (the figures' ``none`` row, judged at the strictest target)."""

    SHOWN = 5  # ids named in the note; the rest are counted

    def __init__(self, field_name: str, why: str = "") -> None:
        self.field = field_name
        self.why = why  # said after the ids, e.g. that the map names no severity column
        self.refs: list[str] = []
        self.count = 0
        self.beside: dict[str, int] = {}  # another field's value on those tickets, e.g. PagerDuty's urgency

    def see(self, t: Ticket) -> None:
        if t.apart is not None or (t.severity or "").strip():
            return
        self.count += 1
        if len(self.refs) < self.SHOWN:
            self.refs.append(t.ref)
        beside = t.severity_beside
        if isinstance(beside, str) and beside.strip():
            self.beside[beside.strip()] = self.beside.get(beside.strip(), 0) + 1

    def note(self, beside_words: str = "") -> str | None:
        """'2 ticket(s) have no priority (201, 207): imported with no severity, ...', or None where
        every one had one. ``beside_words`` follows, where the tickets held ``beside`` values (told
        what they were)."""
        if not self.count:
            return None
        more = f" and {self.count - len(self.refs)} more" if self.count > len(self.refs) else ""
        text = (f"{self.count} ticket(s) have no {self.field} ({', '.join(self.refs)}{more}){self.why}: imported "
                "with no severity (none is guessed), each in the figures' 'none' row and, where judged, held to "
                "the strictest severity's target")
        if self.beside and beside_words:
            values = ", ".join(f"{v}: {n}" for v, n in sorted(self.beside.items()))
            text += f"; {beside_words.format(values=values)}"
        return text

"""What every vendor reader hands the normaliser: tickets, pauses and unreadable rows, plus the
settings a BPO states about its export (time zone, date format, severity map, column map).

A reader never guesses: a time without an offset is read only in a zone the BPO named, a local
time the clocks skipped or repeated is refused naming both candidates, and a vendor priority is
a deal severity only where the severity map says so.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from day60.errors import InputError
from day60.timeparse import EARLIEST, LATEST, RANGE_TEXT, localize

PAUSE_KINDS = ("wait", "change", "kept")  # on the partner; an agreed change window; the supplier's own time
SEVERITY_VALUES = ("1", "2", "3", "4", "unclassified", "skip")
MAX_EXPORT_BYTES = 64 * 1024 * 1024 * 1024  # a ticket export is streamed, never loaded whole
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
    resolved: dt.datetime | None = None
    closed: dt.datetime | None = None
    state: str = ""
    check: str | None = None  # the monitoring evidence that confirmed the restore
    pauses: list[Pause] = field(default_factory=list)
    vendor_hours: float | None = None  # the vendor's own elapsed duration, where exported
    vendor_business_hours: float | None = None
    vendor_label: str = ""
    notes: list[str] = field(default_factory=list)


@dataclass
class Unreadable:
    where: str
    ref: str | None
    reason: str


@dataclass
class Settings:
    """What the BPO states about its export, from options and the --map file."""

    zone: ZoneInfo | None = None
    date_format: str | None = None
    mode: str | None = None  # servicenow: raw (UTC database values) or display
    severity: dict[str, str] = field(default_factory=dict)
    columns: dict[str, str] = field(default_factory=dict)
    pauses: dict[str, str] = field(default_factory=dict)  # a vendor status or reason -> PAUSE_KINDS

    def column(self, key: str, default: str | None = None) -> str | None:
        return self.columns.get(key, default)


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


def load_map(path: Path) -> dict[str, Any]:
    """The --map TOML file: [times], [columns], [pauses], [severity]; every key checked."""
    from day60.files import read_toml

    doc, _ = read_toml(path, "--map", "a column map (see day60/imports/examples/)")
    allowed = {"times": {"timezone", "format"}, "columns": None, "pauses": None, "severity": None}
    for key, value in doc.items():
        if key not in allowed:
            raise InputError(f"--map {key}", "is not a section of a map", f"sections are: {', '.join(allowed)}")
        if not isinstance(value, dict):
            raise InputError(f"--map {key}", "is not a table", f"write it as [{key}]")
        keys = allowed[key]
        for sub, item in value.items():
            if keys is not None and sub not in keys:
                raise InputError(f"--map {key}.{sub}", "is not a known key",
                                 f"[{key}] takes: {', '.join(sorted(keys))}")
            if not isinstance(item, str | int) or isinstance(item, bool):
                raise InputError(f"--map {key}.{sub}", "is not text", "write it in quotes")
    for sub, kind in doc.get("pauses", {}).items():
        if kind not in PAUSE_KINDS:
            raise InputError(f"--map pauses.{sub}", f"{str(kind)[:20]!r} is not a pause kind",
                             "write wait (waiting on you), change (an agreed change window) or kept (the "
                             "supplier's own time, not excluded)")
    return doc


# ----- time ---------------------------------------------------------------------------------

_OFFSET = re.compile(r"(Z|[+-][0-9]{2}:?[0-9]{2})$")


class Times:
    """Reads an export's times: with an offset as written, without one only in a stated zone."""

    def __init__(self, settings: Settings, utc: bool = False, how: str = "") -> None:
        self.zone = dt.UTC if utc else settings.zone
        self.fmt = settings.date_format
        self.how = how  # how to state the zone, for the message

    def read(self, text: str | None, column: str) -> dt.datetime | None:
        raw = (text or "").strip()
        if not raw:
            return None
        if len(raw) > 40:
            raise RowProblem(f"{column}: {raw[:20]!r}... is not a date and time")
        if self.fmt and not _OFFSET.search(raw):
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


def csv_rows(path: Path, field_name: str) -> tuple[list[str], Iterator[tuple[int, dict[str, str]]]]:
    """An export's header and its rows, streamed (row numbers as a spreadsheet shows them); a row
    that cannot be read is ``{"\\0problem": reason}``."""
    from day60.files import open_regular

    fd = open_regular(path, field_name, "a CSV export", MAX_EXPORT_BYTES)
    fh = io.TextIOWrapper(io.FileIO(fd, "rb"), encoding="utf-8-sig", newline="", errors="strict")
    reader = csv.reader(fh)
    try:
        header = next(reader, None)
    except (UnicodeDecodeError, csv.Error) as exc:
        fh.close()
        raise InputError(field_name, f"{path} cannot be read as CSV ({str(exc)[:80]})",
                         "export it as UTF-8 CSV") from exc
    if not header:
        fh.close()
        raise InputError(field_name, f"{path} is empty", "give the export with its header row")
    header = [h.strip() for h in header]

    def rows() -> Iterator[tuple[int, dict[str, str]]]:
        with fh:
            n = 1
            while True:
                try:
                    row = next(reader)
                except StopIteration:
                    return
                except UnicodeDecodeError as exc:
                    raise InputError(field_name, f"{path}: after row {n} the file is not UTF-8 text",
                                     "export it as UTF-8 CSV") from exc
                except csv.Error as exc:
                    raise InputError(field_name, f"{path}: row {n + 1} cannot be read ({str(exc)[:80]})",
                                     "check the export for an unclosed quote") from exc
                n += 1
                if not any(row):  # a blank line, or a row of empty cells
                    continue
                if len(row) != len(header):
                    yield n, {"\0problem": f"has {len(row)} cells, the header has {len(header)}"}
                    continue
                yield n, dict(zip(header, row, strict=True))

    return header, rows()


def csv_header(path: Path, field_name: str) -> list[str]:
    """Only the header row of a CSV export."""
    from day60.files import open_regular

    fd = open_regular(path, field_name, "a CSV export", MAX_EXPORT_BYTES)
    with io.TextIOWrapper(io.FileIO(fd, "rb"), encoding="utf-8-sig", newline="", errors="strict") as fh:
        try:
            header = next(csv.reader(fh), None)
        except (UnicodeDecodeError, csv.Error) as exc:
            raise InputError(field_name, f"{path} cannot be read as CSV ({str(exc)[:80]})",
                             "export it as UTF-8 CSV") from exc
    if not header:
        raise InputError(field_name, f"{path} is empty", "give the export with its header row")
    return [h.strip() for h in header]


def require_columns(header: list[str], needed: list[str], path: Path, field_name: str, what: str) -> None:
    missing = [c for c in needed if c not in header]
    if missing:
        raise InputError(field_name, f"{path} lacks column(s) {', '.join(missing)} of {what}",
                         f"export them (the file has: {', '.join(header[:12])}{'...' if len(header) > 12 else ''})")


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

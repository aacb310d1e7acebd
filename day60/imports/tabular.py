"""An export read as the table a spreadsheet or a vendor's tool wrote: CSV in any encoding and
delimiter they write, or an XLSX workbook, with what it was read as said in the import's output.

CSV encoding, in this order: a byte-order mark (UTF-8, UTF-16 LE or BE, UTF-32); else the text
is strict UTF-8 where the first bytes outside ASCII (up to 1 MiB of them, looked for in the
first 64 MiB) are; else the Windows code page charset-normalizer finds for those bytes, among
the single-byte ANSI code pages Excel writes "CSV" in (cp1250 to cp1258, cp874), Windows-1252
chosen wherever it reads the bytes as the same text (a German export's ä and € are the same
bytes in cp1250 and cp1252; Latin-1 is never chosen, since it turns € and – into control
characters). A person may state it (``--encoding`` or the map's ``[file] encoding``); a stated
encoding that a byte-order mark contradicts is refused. A byte the chosen encoding cannot read,
found later in the file, stops the import naming the row and the fix.

Delimiter: sniffed from the header line only (outside quotes), among ``,`` ``;`` tab and ``|``:
the one it holds most; a tie refuses the import, asking for it to be stated (``--delimiter`` or
``[file] delimiter``).

XLSX: read with openpyxl in read-only mode (rows streamed from the sheet's XML, the sheet's
``<dimension>`` ignored, since ServiceNow's writer leaves it at A1); the first sheet unless one
is named (``--sheet`` or ``[file] sheet``); the header is the first row that is not empty. A date
cell is the wall-clock date and time it holds, with no zone (the zone stated for the export is
attached to it, as to a CSV's text); a cell formatted as a date alone stays a date, which the
import refuses as a time nobody recorded. Numbers are written as Excel's General format shows
them (102197, not 102197.0).
"""

from __future__ import annotations

import codecs
import csv
import datetime as dt
import io
import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from day60.errors import InputError

MAX_EXPORT_BYTES = 64 * 1024 * 1024 * 1024  # a ticket export is streamed, never loaded whole
DELIMITERS = {",": "comma", ";": "semicolon", "\t": "tab", "|": "pipe"}
CODE_PAGES = ("cp1252", "cp1250", "cp1251", "cp1253", "cp1254", "cp1255", "cp1256", "cp1257", "cp1258", "cp874")
UTF8 = ("utf-8", "utf-8-sig")
NAMES = {"utf-8": "UTF-8", "utf-8-sig": "UTF-8", "utf-16": "UTF-16", "utf-16-le": "UTF-16 LE", "utf-16-be": "UTF-16 BE",
         "utf-32": "UTF-32", **{cp: f"Windows-{cp[2:]}" for cp in CODE_PAGES}}
_BOMS = ((codecs.BOM_UTF32_LE, "utf-32", "UTF-32 LE"), (codecs.BOM_UTF32_BE, "utf-32", "UTF-32 BE"),
         (codecs.BOM_UTF8, "utf-8-sig", "UTF-8"), (codecs.BOM_UTF16_LE, "utf-16", "UTF-16 LE"),
         (codecs.BOM_UTF16_BE, "utf-16", "UTF-16 BE"))
_CHUNK = 1024 * 1024
_SCAN = 64 * _CHUNK  # how far to look for the first bytes outside ASCII
_EVIDENCE = _CHUNK  # how many bytes from there decide the encoding
_MAX_SHARED_STRINGS = 512 * 1024 * 1024  # an XLSX's shared strings are held in memory: bounded
ENCODING_FIX = "state the export's encoding with --encoding (or [file] encoding in the map), e.g. cp1252"


@dataclass
class Layout:
    """What one export file was read as: said in the import's output, table and JSON."""

    kind: str  # "csv" or "xlsx"
    encoding: str | None = None  # Python's codec name; None for a workbook
    encoding_from: str = ""  # how it was chosen
    delimiter: str | None = None
    delimiter_from: str = ""
    sheet: str | None = None
    sheet_from: str = ""  # "named" or "first sheet"
    sheets: int = 0
    sheet_names: list[str] = field(default_factory=list)  # every sheet of the workbook, in its order
    header_row: int = 1
    headers: str | None = None  # the language the headers were translated from, where they were

    def as_dict(self) -> dict[str, Any]:
        return dict(vars(self))

    def describe(self) -> str:
        if self.kind == "xlsx":
            of = f" (the first of {self.sheets})" if self.sheets > 1 and self.sheet_from != "named" else ""
            said = f"XLSX, sheet {self.sheet!r}{of}, header on row {self.header_row}"
        else:
            name = NAMES.get(self.encoding or "", self.encoding)
            said = (f"CSV, {name} ({self.encoding_from}), delimiter {DELIMITERS[self.delimiter or ',']} "
                    f"({self.delimiter_from})")
        if self.headers:
            said += f", headers in {self.headers} read as the vendor's English names"
        return said


@dataclass
class FileOptions:
    """What a person states about the export files (options, the map's [file]), and what each
    file was found to be, by path, as the readers read them."""

    encoding: str | None = None
    delimiter: str | None = None
    sheet: str | None = None
    date_format: str | None = None  # an XLSX date cell is written in it where it holds the whole value
    found: dict[str, Layout] = field(default_factory=dict)


def check_options(encoding: str | None, delimiter: str | None, sheet: str | None, date_format: str | None = None,
                  fields: tuple[str, str, str] = ("--encoding", "--delimiter", "--sheet")) -> FileOptions:
    """The stated encoding, delimiter and sheet, each checked; one InputError naming the fix."""
    if encoding is not None:
        try:
            info = codecs.lookup(str(encoding))
        except LookupError:
            info = None
        if info is None or not getattr(info, "_is_text_encoding", True) or len(str(encoding)) > 40:
            raise InputError(fields[0], f"{str(encoding)[:40]!r} is not a text encoding",
                             "write one such as utf-8, utf-16, cp1252 or cp1250")
        encoding = info.name
    if delimiter is not None:
        names = {name: d for d, name in DELIMITERS.items()}
        text = str(delimiter)
        text = {"\\t": "\t", "t": "\t"}.get(text, names.get(text.lower(), text))
        if text not in DELIMITERS:
            raise InputError(fields[1], f"{str(delimiter)[:20]!r} is not a delimiter a spreadsheet writes",
                             "write , or ; or tab or |")
        delimiter = text
    if sheet is not None and (not str(sheet).strip() or len(str(sheet)) > 100):
        raise InputError(fields[2], "is not a sheet name", "write the name of the workbook's sheet")
    return FileOptions(encoding, delimiter, None if sheet is None else str(sheet), date_format)


# ----- finding what a file is ---------------------------------------------------------------


def _open(path: Path, field_name: str) -> int:
    from day60.files import open_regular

    return open_regular(path, field_name, "an export", MAX_EXPORT_BYTES)


def _bom(head: bytes) -> tuple[str, str] | None:
    for mark, codec, name in _BOMS:
        if head.startswith(mark):
            return codec, name
    return None


def _scan(fd: int) -> tuple[bytes, bytes]:
    """The file's first bytes, and the first bytes outside ASCII with what follows them."""
    head = os.pread(fd, _CHUNK, 0)
    offset = 0
    while offset < _SCAN:
        chunk = head if offset == 0 else os.pread(fd, _CHUNK, offset)
        if not chunk:
            return head, b""
        if not chunk.isascii():
            start = next(i for i, b in enumerate(chunk) if b >= 0x80)
            start = max(0, chunk.rfind(b"\n", 0, start) + 1)  # from a line's start: never inside a character
            return head, os.pread(fd, _EVIDENCE, offset + start)
        offset += len(chunk)
    return head, b""


def _utf8(evidence: bytes) -> bool:
    try:
        codecs.getincrementaldecoder("utf-8")("strict").decode(evidence, final=False)
    except UnicodeDecodeError:
        return False
    return True


def _code_page(evidence: bytes, path: Path, field_name: str) -> tuple[str, str]:
    from charset_normalizer import from_bytes

    best = from_bytes(evidence, cp_isolation=list(CODE_PAGES)).best()
    if best is None:
        raise InputError(field_name, f"{path} is not UTF-8, and no Windows code page reads it as text",
                         ENCODING_FIX + "; nothing was written")
    chosen = codecs.lookup(best.encoding).name
    if chosen != "cp1252":
        try:
            if evidence.decode("cp1252") == evidence.decode(chosen):
                chosen = "cp1252"
        except UnicodeDecodeError:
            pass
    return chosen, "not UTF-8; detected among the Windows code pages"


def _delimiter(text: str, path: Path, field_name: str) -> tuple[str, str]:
    """The delimiter the header line (its first record, outside quotes) holds most."""
    counts = dict.fromkeys(DELIMITERS, 0)
    quoted = False
    for ch in text:
        if ch == '"':
            quoted = not quoted
        elif not quoted and ch in "\r\n":
            break
        elif not quoted and ch in counts:
            counts[ch] += 1
    ranked = sorted(counts.items(), key=lambda kv: -kv[1])  # stable: a tie names , ; tab | in that order
    if ranked[0][1] == 0:
        return ",", "the header line holds none of , ; tab |: one column"
    if ranked[0][1] == ranked[1][1]:
        raise InputError(field_name, f"{path}: its header line holds as many {DELIMITERS[ranked[0][0]]}s as "
                                     f"{DELIMITERS[ranked[1][0]]}s, so which one separates the columns cannot be "
                                     "told", "state it with --delimiter (or [file] delimiter in the map); nothing "
                                             "was written")
    return ranked[0][0], "sniffed from the header line"


def layout(path: Path, field_name: str, how: FileOptions | None = None) -> Layout:
    """What ``path`` is and how to read it, found once per import (kept in ``how.found``)."""
    how = how or FileOptions()
    key = str(path)
    if key in how.found:
        return how.found[key]
    fd = _open(path, field_name)
    try:
        head, evidence = _scan(fd)
    finally:
        os.close(fd)
    if head.startswith(b"PK\x03\x04"):
        found = Layout("xlsx")
    elif head.startswith(b"\xd0\xcf\x11\xe0"):
        raise InputError(field_name, f"{path} is an Excel 97-2003 workbook (.xls) or a password-protected one",
                         "save it from Excel as .xlsx (no password) or as CSV; nothing was written")
    else:
        found = _text_layout(path, field_name, how, head, evidence)
    how.found[key] = found
    return found


def _text_layout(path: Path, field_name: str, how: FileOptions, head: bytes, evidence: bytes) -> Layout:
    bom = _bom(head)
    if how.encoding:
        codec, said = how.encoding, "stated"
        if bom and not ((codec in UTF8 and bom[0] == "utf-8-sig") or codec.startswith(bom[0][:6])):
            raise InputError(field_name, f"{path} begins with a {bom[1]} byte-order mark, yet its encoding is stated "
                                         f"as {codec}", "leave --encoding out (or state the mark's encoding)")
        if bom and codec.startswith(("utf-16", "utf-32")):
            codec = bom[0]  # the mark says which byte order; the codec reads and drops it
        elif bom and codec in UTF8:
            codec = "utf-8-sig"
    elif bom:
        codec, said = bom[0], f"{bom[1]} byte-order mark"
    elif head.count(0) * 4 >= len(head) > 0:  # UTF-16 text of ASCII characters is half NUL bytes
        raise InputError(field_name, f"{path} is a quarter or more NUL bytes: it is UTF-16 text without a "
                                     "byte-order mark, or not text at all",
                         "save it from the spreadsheet again as CSV, or state the encoding with --encoding (e.g. "
                         "utf-16-le); nothing was written")
    elif not evidence:
        codec, said = "utf-8", "no byte outside ASCII in its first 64 MiB: read as UTF-8"
    elif _utf8(evidence):
        codec, said = "utf-8", "valid UTF-8"
    else:
        codec, said = _code_page(evidence, path, field_name)
    decoder = codecs.getincrementaldecoder(codec)("strict")
    try:
        text = decoder.decode(head, final=False)
    except UnicodeDecodeError:
        line = _bad_line(path, field_name, codec)
        raise InputError(field_name, f"{path}: line {line} is not {codec} text, read as {said}",
                         ENCODING_FIX + "; nothing was written") from None
    if how.delimiter:
        delim, delim_said = how.delimiter, "stated"
    else:
        delim, delim_said = _delimiter(text, path, field_name)
    return Layout("csv", codec, said, delim, delim_said)


# ----- reading rows -------------------------------------------------------------------------


@dataclass
class Table:
    """An export's rows: ``rows`` yields (row number as a spreadsheet shows it, cells, first and
    last line of the row in the file); ``close`` lets the file go."""

    layout: Layout
    header: list[str]
    rows: Iterator[tuple[int, list[str], int, int]]
    close: Callable[[], None]


def open_table(path: Path, field_name: str, how: FileOptions | None = None) -> Table:
    """``path`` as a table: its header (cells stripped) and its rows, streamed."""
    how = how or FileOptions()
    found = layout(path, field_name, how)
    if found.kind == "xlsx":
        return _xlsx_table(path, field_name, how, found)
    return _csv_table(path, field_name, found)


def _bad_line(path: Path, field_name: str, encoding: str) -> int:
    """The line of the first byte ``encoding`` cannot read, found again from the file's start in
    bounded pieces (a text reader fails at the piece it buffers, not at the byte)."""
    decoder = codecs.getincrementaldecoder(encoding)("strict")
    line = 1
    with io.FileIO(_open(path, field_name), "rb") as fh:
        while chunk := fh.read(_CHUNK):
            state = decoder.getstate()
            try:
                line += decoder.decode(chunk).count("\n")
            except UnicodeDecodeError as exc:  # its start counts the bytes held back from the last piece too
                before = codecs.getincrementaldecoder(encoding)("replace")
                before.setstate(state)
                return line + before.decode(chunk[: max(0, exc.start - len(state[0]))]).count("\n")
    return line


def _decode_problem(path: Path, field_name: str, found: Layout) -> str:
    how = "as stated" if found.encoding_from == "stated" else f"as found from its first bytes ({found.encoding_from})"
    line = _bad_line(path, field_name, found.encoding or "utf-8")
    return f"{path}: line {line} is not {found.encoding} text, read {how}"


def _csv_table(path: Path, field_name: str, found: Layout) -> Table:
    fh = io.TextIOWrapper(io.FileIO(_open(path, field_name), "rb"), encoding=found.encoding, newline="",
                          errors="strict")
    reader = csv.reader(fh, delimiter=found.delimiter or ",", strict=True)
    try:
        header = next(reader, None)
    except UnicodeDecodeError as exc:
        fh.close()
        raise InputError(field_name, _decode_problem(path, field_name, found), ENCODING_FIX + "; nothing was written") \
            from exc
    except csv.Error as exc:
        fh.close()
        raise InputError(field_name, f"{path} cannot be read as CSV ({str(exc)[:80]})",
                         "export it again as CSV; nothing was written") from exc
    if not header:
        fh.close()
        raise InputError(field_name, f"{path} is empty", "give the export with its header row")

    def rows() -> Iterator[tuple[int, list[str], int, int]]:
        with fh:
            n, line = 1, reader.line_num
            while True:
                try:
                    row = next(reader)
                except StopIteration:
                    return
                except UnicodeDecodeError as exc:
                    raise InputError(field_name, _decode_problem(path, field_name, found),
                                     ENCODING_FIX + "; nothing was written") from exc
                except csv.Error as exc:
                    big = _oversized(path, field_name, found, line + 1) if "field limit" in str(exc) else None
                    if big is not None:  # a cell that large, correctly quoted: too large, not misquoted
                        column = header[big[0]].strip() if big[0] < len(header) else f"column {big[0] + 1}"
                        raise InputError(field_name, f"{path}: row {n + 1} (from line {line + 1}) holds in its "
                                                     f"{column!r} cell (column {big[0] + 1}) {big[1]:,} characters, "
                                                     f"more than the {csv.field_size_limit():,} the import reads "
                                                     "in one cell",
                                         f"export without the {column!r} column (or with it cut short) and import "
                                         "again; nothing was written") from exc
                    raise InputError(field_name, f"{path}: row {n + 1} (from line {line + 1}) cannot be read "
                                                 f"({str(exc)[:80]}): a quote opened there is not closed as CSV "
                                                 "closes it, so the rows after it cannot be told apart",
                                     "fix the quoting of that row and export again; nothing was written") from exc
                first, line = line + 1, reader.line_num
                n += 1
                yield n, row, first, line

    return Table(found, [h.strip() for h in header], rows(), fh.close)


def _oversized(path: Path, field_name: str, found: Layout, first: int) -> tuple[int, int] | None:
    """The cell of the row starting at line ``first`` that is larger than the csv module's field
    limit, as (its column's index, its length), where its quotes close as CSV closes them; None
    where a quote opened in the row is never closed (the file ends inside it). Streamed in
    pieces: the cell is counted, never held."""
    limit, delimiter = csv.field_size_limit(), found.delimiter or ","
    with io.TextIOWrapper(io.FileIO(_open(path, field_name), "rb"), encoding=found.encoding, newline="",
                          errors="replace") as fh:
        for _ in range(first - 1):
            if not fh.readline(1 << 20):
                return None
        column, size, quoted, after_quote, big = 0, 0, False, False, None
        while piece := fh.read(1 << 16):
            for ch in piece:
                if quoted:
                    if ch == '"':
                        quoted, after_quote = False, True
                    else:
                        size += 1
                    continue
                if ch == '"':
                    if after_quote:  # a doubled quote inside a quoted cell
                        size += 1
                    quoted, after_quote = True, False
                    continue
                after_quote = False
                if ch == delimiter or ch in "\r\n":
                    if size > limit:
                        big = (column, size)
                    if big is not None or ch in "\r\n":
                        return big
                    column, size = column + 1, 0
                else:
                    size += 1
        return (column, size) if not quoted and size > limit else None


# ----- XLSX ---------------------------------------------------------------------------------


def _workbook(path: Path, field_name: str, fh: Any) -> Any:
    import zipfile

    import openpyxl

    try:
        with zipfile.ZipFile(fh) as z:
            names = {i.filename: i for i in z.infolist()}
    except (zipfile.BadZipFile, OSError, ValueError, EOFError) as exc:
        raise InputError(field_name, f"{path} is not an XLSX workbook (it begins as a zip archive but cannot be "
                                     f"opened: {str(exc)[:60]})", "save it from Excel as .xlsx or as CSV") from None
    if "xl/workbook.xml" not in names:
        raise InputError(field_name, f"{path} is a zip archive, not an XLSX workbook",
                         "give the XLSX or CSV export itself")
    strings = names.get("xl/sharedStrings.xml")
    if strings is not None and strings.file_size > _MAX_SHARED_STRINGS:
        raise InputError(field_name, f"{path}: its shared strings take {strings.file_size // 2**20} MiB, more than "
                                     f"the {_MAX_SHARED_STRINGS // 2**20} MiB held in memory",
                         "export it as CSV, which is streamed")
    fh.seek(0)
    try:
        return openpyxl.load_workbook(fh, read_only=True, data_only=True, keep_links=False)
    except Exception as exc:  # openpyxl raises many kinds on a damaged workbook: each is the file's fault
        raise InputError(field_name, f"{path} cannot be read as an XLSX workbook ({type(exc).__name__}: "
                                     f"{str(exc)[:60]})", "open it in Excel and save it again as .xlsx or CSV") \
            from None


_QUOTED = re.compile(r'"[^"]*"|\[[^\]]*\]|\\.')


def _has_time(number_format: str) -> bool:
    """Whether an Excel number format shows a time of day (an hour or a second)."""
    return bool(re.search(r"[hs]", _QUOTED.sub("", number_format or ""), re.IGNORECASE))


def cell_text(value: Any, number_format: str = "General", date_format: str | None = None) -> str:
    """A cell's value as the text a CSV of the sheet would hold, nothing invented: a date cell is
    its wall-clock time (rounded to Excel's millisecond), in ``date_format`` where that holds the
    whole value, else ``YYYY-MM-DD HH:MM:SS[.fff]``; a cell formatted as a date alone is the date."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() and abs(value) < 1e15 else repr(value)
    if isinstance(value, dt.datetime):
        value = value.replace(microsecond=0) + dt.timedelta(milliseconds=round(value.microsecond / 1000))
        if not _has_time(number_format) and value.time() == dt.time(0):
            return value.date().isoformat()
        if date_format:
            try:
                text = value.strftime(date_format)
                if dt.datetime.strptime(text, date_format) == value:
                    return text
            except ValueError:
                pass
        return value.isoformat(sep=" ", timespec="milliseconds" if value.microsecond else "seconds")
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, dt.time):
        return value.isoformat()
    if isinstance(value, dt.timedelta):
        seconds = value.total_seconds()
        return f"{int(seconds // 3600)}:{int(seconds % 3600 // 60):02d}:{seconds % 60:02.0f}"
    return str(value)


def sheet_hint(found: Layout | None) -> str:
    """For a refusal of a workbook's columns: which sheet was read and the workbook's other sheets,
    with ``--sheet`` as the fix (a summary or pivot sheet before the export's own is common, and
    the first sheet is read unless one is named); nothing for a CSV or a workbook of one sheet."""
    if found is None or found.kind != "xlsx" or len(found.sheet_names) < 2:
        return ""
    others = [n for n in found.sheet_names if n != found.sheet]
    listed = ", ".join(repr(n[:40]) for n in others[:10])
    listed += f" and {len(others) - 10} more" if len(others) > 10 else ""
    how = "named" if found.sheet_from == "named" else f"the first of the workbook's {len(found.sheet_names)}"
    return (f"; the sheet read was {found.sheet[:40]!r} ({how}), and the workbook has {listed} too: if the export "
            "is on another sheet, name it with --sheet NAME (or [file] sheet in the map)")


def _xlsx_table(path: Path, field_name: str, how: FileOptions, found: Layout) -> Table:
    fh = os.fdopen(_open(path, field_name), "rb")
    try:
        wb = _workbook(path, field_name, fh)
        names = list(wb.sheetnames)
        sheets = wb.worksheets
        if how.sheet is not None:
            if how.sheet not in names:
                raise InputError(field_name, f"{path} has no sheet {how.sheet!r}",
                                 f"name one of its sheets: {', '.join(repr(n) for n in names[:10])}")
            ws = wb[how.sheet]
        elif sheets:
            ws = sheets[0]
        else:
            raise InputError(field_name, f"{path} holds no worksheet", "give a workbook with the export's sheet")
        ws.reset_dimensions()  # ServiceNow writes <dimension ref="A1"/>: trusted, it would hide every row
    except BaseException:
        fh.close()
        raise
    found.sheet, found.sheets, found.sheet_names = ws.title, len(sheets), names
    found.sheet_from = "named" if how.sheet is not None else "first sheet"
    cells = _xlsx_rows(ws, path, field_name, how.date_format)
    header: list[str] | None = None
    for n, row in cells:
        if any(c.strip() for c in row):
            header, found.header_row = row, n
            break
    if header is None:
        wb.close()
        fh.close()
        raise InputError(field_name, f"{path}: sheet {ws.title!r} is empty", "give the export with its header row")

    def close() -> None:
        wb.close()
        fh.close()

    def rows() -> Iterator[tuple[int, list[str], int, int]]:
        try:
            for n, row in cells:
                yield n, row, n, n
        finally:
            close()

    return Table(found, [h.strip() for h in header], rows(), close)


def _xlsx_rows(ws: Any, path: Path, field_name: str, date_format: str | None) -> Iterator[tuple[int, list[str]]]:
    n = 0
    try:
        for n, row in enumerate(ws.iter_rows(), start=1):
            out = [cell_text(c.value, getattr(c, "number_format", "General"), date_format) for c in row]
            while out and out[-1] == "":
                out.pop()
            yield n, out
    except InputError:
        raise
    except Exception as exc:  # a damaged sheet, found as it is streamed
        raise InputError(field_name, f"{path}: sheet row {n + 1} cannot be read ({type(exc).__name__}: "
                                     f"{str(exc)[:60]})", "open it in Excel and save it again as .xlsx or CSV; "
                                                          "nothing was written") from None


# ----- for DuckDB: a UTF-8 file it can read -------------------------------------------------


def utf8_copy(path: Path, field_name: str, how: FileOptions, folder: str) -> tuple[str, str]:
    """A copy of ``path`` that DuckDB reads (UTF-8; an XLSX as comma-separated CSV from its
    header row), written to ``folder`` in bounded pieces; returns its path and delimiter."""
    found = layout(path, field_name, how)
    fd, out = _tempfile(folder)
    with os.fdopen(fd, "w", encoding="utf-8", newline="") as sink:
        if found.kind == "xlsx":
            table = open_table(path, field_name, how)
            writer = csv.writer(sink, lineterminator="\n")
            writer.writerow(table.header)
            width = len(table.header)
            for _n, row, _first, _last in table.rows:
                if any(c.strip() for c in row):
                    writer.writerow(row + [""] * (width - len(row)))
            return out, ","
        src = io.TextIOWrapper(io.FileIO(_open(path, field_name), "rb"), encoding=found.encoding, newline="",
                               errors="strict")
        with src:
            while True:
                try:
                    text = src.read(_CHUNK)
                except UnicodeDecodeError as exc:
                    raise InputError(field_name, _decode_problem(path, field_name, found),
                                     ENCODING_FIX + "; nothing was written") from exc
                if not text:
                    break
                sink.write(text)
    return out, found.delimiter or ","


def _tempfile(folder: str) -> tuple[int, str]:
    import tempfile

    return tempfile.mkstemp(suffix=".csv", dir=folder)

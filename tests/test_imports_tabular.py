"""Exports read as a spreadsheet or a vendor's tool wrote them (issue 36): CSV in any encoding and
delimiter a spreadsheet writes, XLSX, and Jira CSV in its user's language; what each file was
read as is said in the output; whatever cannot be read is refused with one line, exit 2, nothing
written.

The files in ``tests/data/imports/tabular`` are hand-written in the exact shapes of real exports
(each ``.source.txt`` names its sources). The rest are SYNTHETIC, written here in the shapes the
docstrings cite. Every figure is worked by hand in its test's docstring.
"""

import csv
import datetime as dt
import io
import json
import shutil
from pathlib import Path

import pytest

from tests.builders import make_journal
from tests.imports_common import events_of, imported, new_journal, per_ticket, refused, write

DATA = Path(__file__).parent / "data" / "imports" / "tabular"
DE_MAP = """\
[times]
timezone = "Europe/Berlin"
format = "%d.%m.%Y %H:%M"
[columns]
id = "Ticket-Nr."
severity = "Priorität"
opened = "Eröffnet"
resolved = "Gelöst"
closed = "Geschlossen"
state = "Status"
[severity]
Kritisch = 1
Hoch = 2
Mittel = 3
"""
EN_MAP = """\
[times]
timezone = "Europe/London"
format = "{fmt}"
[columns]
id = "Ticket ID"
severity = "Priority"
opened = "Opened"
resolved = "Resolved"
closed = "Closed"
state = "Status"
[severity]
Critical = 1
High = 2
Medium = 3
"""
SN_LABEL_MAP = """\
[times]
timezone = "Europe/Berlin"
{fmt}
[columns]
id = "Number"
severity = "Priority"
opened = "Opened"
resolved = "Resolved"
closed = "Closed"
state = "State"
[severity]
"1 - Critical" = 1
"2 - High" = 2
"3 - Moderate" = 3
"4 - Low" = 4
"""


def journal(tmp_path: Path, name: str, year: int = 2024) -> Path:
    """A journal whose window covers the year of the fixtures' tickets."""
    return make_journal(tmp_path / name, [], tier="T2", window=(f"{year}-01-01T09:00", f"{year}-12-18T17:30"),
                        synthetic=True)


def events(path: Path, ids: list[str]) -> dict[str, list[tuple[str, str, dict]]]:
    return {i: events_of(path, i) for i in ids}


def rows_of(path: Path, how=None) -> list[list[str]]:
    from day60.imports.tabular import open_table

    table = open_table(path, "EXPORT", how)
    return [table.header] + [row for _n, row, _a, _b in table.rows]


def copy(tmp_path: Path, name: str) -> Path:
    return Path(shutil.copy(DATA / name, tmp_path / name))


# ----- CSV: encodings and delimiters ------------------------------------------------------


def test_windows_1252_semicolons_read_as_their_utf8_original(run, tmp_path):
    """German Excel's "CSV (Trennzeichen-getrennt)" (excel_de_cp1252_semicolon.csv: Windows-1252,
    no BOM, ``;``, CRLF, a ``;`` inside a quoted cell) reads exactly as the same rows saved as
    UTF-8 with commas, and the output says how it was read.

    By hand, in Europe/Berlin (CET, +01:00, in early March 2024): T-1001 opened 04.03.2024 10:15
    (09:15 UTC), resolved 14:40 with no monitoring check (so closed, not restored); T-1002 opened
    05.03.2024 23:05, closed 09.03.2024 13:00 with no resolution; T-1003 opened 06.03.2024 11:00,
    still open. The cells hold € (0x80) and – (0x96), which Windows-1252 reads and Latin-1 would
    turn into control characters."""
    sheet = copy(tmp_path, "excel_de_cp1252_semicolon.csv")
    m = write(tmp_path, "de.toml", DE_MAP)
    j = journal(tmp_path, "cp1252.jsonl")
    out = imported(run, j, "csv", sheet, "--map", m)
    assert out["read"] == 3 and sorted(out["imported"]) == ["T-1001", "T-1002", "T-1003"]
    read_as = out["exports"][0]["read_as"]
    assert (read_as["kind"], read_as["encoding"], read_as["delimiter"]) == ("csv", "cp1252", ";")
    assert read_as["delimiter_from"] == "sniffed from the header line"
    original = tmp_path / "utf8.csv"
    with original.open("w", encoding="utf-8", newline="") as fh:
        csv.writer(fh).writerows(csv.reader(io.StringIO(sheet.read_bytes().decode("cp1252"), newline=""),
                                            delimiter=";"))
    j2 = journal(tmp_path, "utf8.jsonl")
    again = imported(run, j2, "csv", original, "--map", m)
    assert again["exports"][0]["read_as"]["encoding"] == "utf-8"
    ids = ["csv:T-1001", "csv:T-1002", "csv:T-1003"]
    assert events(j, ids) == events(j2, ids)
    got = events(j, ids)
    assert [(k, at) for k, at, _ in got["csv:T-1001"]] == [("incident.detected", "2024-03-04T10:15:00+01:00"),
                                                           ("incident.ticket-closed", "2024-03-04T14:40:00+01:00")]
    assert [(k, at) for k, at, _ in got["csv:T-1002"]] == [("incident.detected", "2024-03-05T23:05:00+01:00"),
                                                           ("incident.ticket-closed", "2024-03-09T13:00:00+01:00")]
    assert [(k, at) for k, at, _ in got["csv:T-1003"]] == [("incident.detected", "2024-03-06T11:00:00+01:00")]
    cells = rows_of(sheet)
    assert cells[3][1] == "Zugang für Müller (Büro Köln) – 50 € Lizenz"
    assert cells[2][1] == "Gehaltslauf fehlgeschlagen; Wiederholung ebenso"


def test_the_table_output_says_how_each_file_was_read(run, tmp_path):
    """The table printout names the encoding and the delimiter found for the file."""
    sheet = copy(tmp_path, "excel_de_cp1252_semicolon.csv")
    r = run("import", "csv", sheet, "--map", write(tmp_path, "de.toml", DE_MAP), "--journal",
            journal(tmp_path, "j.jsonl"))
    assert r.exit_code == 0, r.stderr
    assert ("read excel_de_cp1252_semicolon.csv as CSV, Windows-1252 (not UTF-8; detected among the Windows code "
            "pages), delimiter semicolon (sniffed from the header line)") in r.stdout


def test_excel_unicode_text_reads_as_its_utf8_csv_twin(run, tmp_path):
    """Excel's "Unicode Text (*.txt)" (UTF-16 LE with BOM FF FE, tab, CRLF) and its "CSV UTF-8"
    (BOM EF BB BF, comma, US dates m/d/yyyy) hold the same three tickets: they import alike.

    By hand, in Europe/London (GMT, so UTC, in early March 2024): T-1001 opened 4 March 10:15,
    resolved 14:40 (4 h 25 min later, not confirmed by a check: closed); T-1002 opened 5 March
    23:05, closed 9 March 13:00; T-1003 opened 6 March 11:00, open. The UTF-16 file's subject
    "Access for 王小明 (東京)" is read as written."""
    text16 = copy(tmp_path, "excel_unicode_text_utf16le_tab.txt")
    bom = copy(tmp_path, "excel_csv_utf8_bom.csv")
    j16, j8 = journal(tmp_path, "u16.jsonl"), journal(tmp_path, "u8.jsonl")
    out = imported(run, j16, "csv", text16, "--map", write(tmp_path, "a.toml", EN_MAP.format(fmt="%d/%m/%Y %H:%M")))
    read_as = out["exports"][0]["read_as"]
    assert (read_as["encoding"], read_as["encoding_from"], read_as["delimiter"]) == \
        ("utf-16", "UTF-16 LE byte-order mark", "\t")
    out8 = imported(run, j8, "csv", bom, "--map", write(tmp_path, "b.toml", EN_MAP.format(fmt="%m/%d/%Y %H:%M")))
    assert (out8["exports"][0]["read_as"]["encoding"], out8["exports"][0]["read_as"]["delimiter"]) == \
        ("utf-8-sig", ",")
    ids = ["csv:T-1001", "csv:T-1002", "csv:T-1003"]
    assert events(j16, ids) == events(j8, ids)
    assert [(k, at) for k, at, _ in events(j16, ids)["csv:T-1001"]] == [
        ("incident.detected", "2024-03-04T10:15:00+00:00"), ("incident.ticket-closed", "2024-03-04T14:40:00+00:00")]
    assert rows_of(text16)[3][1] == "Access for 王小明 (東京)"


def test_the_encoding_and_delimiter_can_be_stated_in_the_map(run, tmp_path):
    """``[file] encoding`` and ``delimiter`` in the map are used as stated (and said so); the
    same rows read as they do when found."""
    sheet = copy(tmp_path, "excel_de_cp1252_semicolon.csv")
    m = write(tmp_path, "de.toml", DE_MAP + '[file]\nencoding = "cp1252"\ndelimiter = ";"\n')
    out = imported(run, journal(tmp_path, "j.jsonl"), "csv", sheet, "--map", m)
    read_as = out["exports"][0]["read_as"]
    assert (read_as["encoding"], read_as["encoding_from"], read_as["delimiter"], read_as["delimiter_from"]) == \
        ("cp1252", "stated", ";", "stated")
    assert sorted(out["imported"]) == ["T-1001", "T-1002", "T-1003"]


def test_a_quoted_delimiter_in_the_header_is_not_counted(run, tmp_path):
    """The header ``Ticket;"Opened, local";Resolved`` has one comma, inside quotes, and two
    semicolons outside: the delimiter is ``;``, and the ticket opened 2 March 2026 10:00 London."""
    sheet = write(tmp_path, "q.csv", 'Ticket;"Opened, local";Resolved\nA;2026-03-02 10:00;\n')
    m = write(tmp_path, "m.toml", '[times]\ntimezone = "Europe/London"\n[columns]\nid = "Ticket"\n'
                                  'opened = "Opened, local"\n')
    j = new_journal(tmp_path)
    out = imported(run, j, "csv", sheet, "--map", m)
    assert out["exports"][0]["read_as"]["delimiter"] == ";" and out["imported"] == ["A"]
    assert events_of(j, "csv:A")[0][:2] == ("incident.detected", "2026-03-02T10:00:00+00:00")


# ----- ServiceNow through DuckDB: the same encodings and delimiters -------------------------

SN_INCIDENT = [["number", "sys_id", "opened_at", "resolved_at", "priority", "state", "short_description", "u_check"],
               ["INC1", "s1", "2026-03-02 09:00:00", "2026-03-02 12:00:00", "1", "6", "Störung – Drucker, 50 €",
                "Überwachung – OK"],
               ["INC2", "s2", "2026-03-03 09:00:00", "2026-03-03 10:00:00", "2", "6", "Zugang für Müller",
                "Überwachung – OK"]]
SN_AUDIT = [["documentkey", "fieldname", "oldvalue", "newvalue", "sys_created_on"],
            ["s1", "state", "2", "3", "2026-03-02 10:00:00"],
            ["s1", "hold_reason", "", "1", "2026-03-02 10:00:00"],
            ["s1", "state", "3", "2", "2026-03-02 10:30:00"]]


def _save(path: Path, rows: list[list[str]], encoding: str, delimiter: str, eol: str = "\r\n",
          bom: bytes = b"") -> Path:
    buf = io.StringIO()
    csv.writer(buf, delimiter=delimiter, lineterminator=eol).writerows(rows)
    path.write_bytes(bom + buf.getvalue().encode(encoding))
    return path


@pytest.mark.parametrize("variant", ["utf-8", "cp1252;", "utf-16\t"])
def test_servicenow_reads_every_encoding_and_delimiter_alike(run, tmp_path, variant):
    """ServiceNow's incident and sys_audit exports (raw values, UTC), as exported (UTF-8, commas),
    re-saved by a German Excel (Windows-1252, ``;``, CRLF: the shape of
    excel_de_cp1252_semicolon.csv) and saved as Excel's Unicode Text (UTF-16 LE with BOM, tab:
    excel_unicode_text_utf16le_tab.txt): DuckDB reads all three to the same figures.

    By hand: INC1 opened 09:00, On Hold awaiting caller 10:00-10:30 (a wait on the partner),
    resolved 12:00 with its check: 3.0 - 0.5 = 2.5 h; INC2 09:00 to 10:00: 1.0 h. The check's
    words "Überwachung – OK" come through whole (– is 0x96 in Windows-1252, a control character
    in Latin-1)."""
    encoding, delim = (variant[:-1], variant[-1]) if variant[-1] in ";\t" else (variant, ",")
    bom = b"\xff\xfe" if encoding == "utf-16" else b""
    codec = "utf-16-le" if encoding == "utf-16" else encoding
    inc = _save(tmp_path / "incident.csv", SN_INCIDENT, codec, delim, bom=bom)
    audit = _save(tmp_path / "sys_audit.csv", SN_AUDIT, codec, delim, bom=bom)
    j = new_journal(tmp_path)
    out = imported(run, j, "servicenow", inc, audit, "--mode", "raw", "--severity-map", "1=1,2=2", "--map",
                   write(tmp_path, "m.toml", '[columns]\ncheck = "u_check"\n'))
    assert sorted(out["imported"]) == ["INC1", "INC2"] and not out["unreadable"]
    # the audit export is all ASCII: read as UTF-8 whatever the code page that wrote it
    assert [(f["read_as"]["encoding"], f["read_as"]["delimiter"]) for f in out["exports"]] == \
        [(encoding, delim), ("utf-16" if encoding == "utf-16" else "utf-8", delim)]
    t = per_ticket(j)
    # the clock starts at the ticket's opening, standing in for a detection the export lacks, so
    # each restore is a lower bound (3.19.3), never a figure
    assert t.loc["servicenow:INC1", "restore_hours_at_least"] == pytest.approx(2.5)
    assert t.loc["servicenow:INC1", "waiting_on_partner_hours"] == pytest.approx(0.5)
    assert t.loc["servicenow:INC2", "restore_hours_at_least"] == pytest.approx(1.0)
    restored = [d for k, _, d in events_of(j, "servicenow:INC1") if k == "incident.restored"]
    assert restored[0]["check"] == "Überwachung – OK"


def test_servicenow_xlsx_with_field_names_reads_as_its_csv(run, tmp_path):
    """A ServiceNow XLSX exported with field names (``sysparm_export_column_header_label=false``;
    the structure of incident_export_labels.xlsx: date cells as Excel serials formatted
    ``yyyy-MM-dd HH:mm:ss``, no zone) is read through DuckDB as its display-value CSV is.

    By hand, in Europe/Berlin: INC1 opened 29 March 2026 00:30 CET (23:30 UTC the day before),
    resolved 04:30 CEST (02:30 UTC), after the clocks went forward at 02:00: 3.0 h, not the 4 h
    the wall clock shows."""
    import openpyxl

    rows = [["number", "opened_at", "resolved_at", "priority", "state", "u_check"],
            ["INC1", dt.datetime(2026, 3, 29, 0, 30), dt.datetime(2026, 3, 29, 4, 30), "1 - Critical", "Resolved",
             "SYNTHETIC monitor"]]
    wb = openpyxl.Workbook()
    ws = wb.active
    for row in rows:
        ws.append(row)
    for cell in (ws["B2"], ws["C2"]):
        cell.number_format = "yyyy-MM-dd HH:mm:ss"
    wb.save(tmp_path / "incident.xlsx")
    as_csv = write(tmp_path, "incident.csv", "number,opened_at,resolved_at,priority,state,u_check\n"
                   "INC1,2026-03-29 00:30:00,2026-03-29 04:30:00,1 - Critical,Resolved,SYNTHETIC monitor\n")
    args = ("--mode", "display", "--zone", "Europe/Berlin", "--severity-map", "1 - Critical=1", "--map",
            write(tmp_path, "m.toml", '[columns]\ncheck = "u_check"\n'))
    jx, jc = journal(tmp_path, "x.jsonl", 2026), journal(tmp_path, "c.jsonl", 2026)
    out = imported(run, jx, "servicenow", tmp_path / "incident.xlsx", *args)
    assert out["imported"] == ["INC1"] and out["exports"][0]["read_as"]["kind"] == "xlsx"
    imported(run, jc, "servicenow", as_csv, *args)
    assert events(jx, ["servicenow:INC1"]) == events(jc, ["servicenow:INC1"])
    # from the ticket's opening, a stand-in for the detection: at least 3.0 h
    assert per_ticket(jx).loc["servicenow:INC1", "restore_hours_at_least"] == pytest.approx(3.0)


# ----- XLSX ---------------------------------------------------------------------------------


def test_servicenow_xlsx_reads_as_its_label_csv(run, tmp_path):
    """ServiceNow's XLSX export (incident_export_labels.xlsx: Apache POI, label headers, inline
    strings, dates as numeric serials with numFmt ``yyyy-MM-dd HH:mm:ss``, ``<dimension ref="A1"/>``)
    reads through a column map as the same records' label CSV (incident_list_labels_display.csv,
    user format MM-dd-yyyy HH:mm:ss) does: all six rows, though the sheet says it has one.

    By hand, in Europe/Berlin: INC0010106 opened 31 March 2024 00:30 CET (23:30 UTC on the
    30th), resolved 04:30 CEST (02:30 UTC), across the change to summer time: 3 h, not 4 h.
    INC0010101 opened 4 March 10:15:00 CET, resolved 14:40:12."""
    book = copy(tmp_path, "incident_export_labels.xlsx")
    labels = copy(tmp_path, "incident_list_labels_display.csv")
    jx, jc = journal(tmp_path, "x.jsonl"), journal(tmp_path, "c.jsonl")
    out = imported(run, jx, "csv", book, "--map", write(tmp_path, "x.toml", SN_LABEL_MAP.format(fmt="")))
    assert out["read"] == 6 and len(out["imported"]) == 6
    read_as = out["exports"][0]["read_as"]
    assert (read_as["kind"], read_as["sheet"], read_as["header_row"], read_as["encoding"]) == \
        ("xlsx", "Page 1", 1, None)
    imported(run, jc, "csv", labels, "--map",
             write(tmp_path, "c.toml", SN_LABEL_MAP.format(fmt='format = "%m-%d-%Y %H:%M:%S"')))
    ids = [f"csv:INC001010{i}" for i in range(1, 7)]
    assert events(jx, ids) == events(jc, ids)
    assert [(k, at) for k, at, _ in events(jx, ids)["csv:INC0010106"]] == [
        ("incident.detected", "2024-03-31T00:30:00+01:00"), ("incident.ticket-closed", "2024-03-31T04:30:00+02:00")]
    assert [(k, at) for k, at, _ in events(jx, ids)["csv:INC0010101"]][:2] == [
        ("incident.detected", "2024-03-04T10:15:00+01:00"), ("incident.ticket-closed", "2024-03-04T14:40:12+01:00")]


def _workbook(path: Path) -> Path:
    """A SYNTHETIC workbook as a person keeps one: a notes sheet first, the tickets on a second
    sheet below two empty rows, a date-time cell, a date-only cell, a time typed as text, and a
    serial with floating-point noise (45355.500000001 days is 12:00:00.0000864)."""
    import openpyxl

    wb = openpyxl.Workbook()
    wb.active.title = "Notes"
    wb.active.append(["Note"])
    wb.active.append(["SYNTHETIC: tickets are on the next sheet"])
    ws = wb.create_sheet("Tickets")
    ws.append([])
    ws.append([])
    ws.append(["Ticket", "Opened", "Resolved"])
    ws.append(["T-1", dt.datetime(2024, 3, 4, 10, 15), 45355.500000001])
    ws.append(["T-2", dt.datetime(2024, 3, 5), None])
    ws.append(["T-3", "2024-03-06 11:00", None])
    ws["B4"].number_format = "dd/mm/yyyy hh:mm"
    ws["C4"].number_format = "dd/mm/yyyy hh:mm:ss"
    ws["B5"].number_format = "dd/mm/yyyy"
    wb.save(path)
    return path


def test_an_xlsx_sheet_is_read_honestly(run, tmp_path):
    """The sheet named with --sheet, its header found below two empty rows (row 3).

    By hand, in Europe/London (GMT in March 2024): T-1 opened 4 March 10:15, resolved at serial
    45355.500000001 = 4 March 12:00:00.0000864, read as Excel shows it, 12:00:00 (to its
    millisecond); T-2's opening is a date with no time (formatted dd/mm/yyyy), which is no instant:
    its row is unreadable, never midnight; T-3's opening, typed as text, is read as the text it is:
    6 March 11:00."""
    book = _workbook(tmp_path / "log.xlsx")
    m = write(tmp_path, "m.toml", '[times]\ntimezone = "Europe/London"\n[columns]\nid = "Ticket"\n'
                                  'opened = "Opened"\nresolved = "Resolved"\n')
    j = new_journal(tmp_path)
    out = imported(run, j, "csv", book, "--map", m, "--sheet", "Tickets")
    read_as = out["exports"][0]["read_as"]
    assert (read_as["sheet"], read_as["sheet_from"], read_as["sheets"], read_as["header_row"]) == \
        ("Tickets", "named", 2, 3)
    assert sorted(out["imported"]) == ["T-1", "T-3"]
    assert out["unreadable"][0]["ref"] == "T-2" and "a date with no time of day" in out["unreadable"][0]["reason"]
    assert out["unreadable"][0]["where"] == "log.xlsx row 5"
    assert [(k, at) for k, at, _ in events_of(j, "csv:T-1")] == [
        ("incident.detected", "2024-03-04T10:15:00+00:00"), ("incident.ticket-closed", "2024-03-04T12:00:00+00:00")]
    assert events_of(j, "csv:T-3")[0][:2] == ("incident.detected", "2024-03-06T11:00:00+00:00")


def test_an_xlsx_first_sheet_is_read_unless_told(run, tmp_path):
    """Without --sheet the first sheet (Notes) is read: it has none of the map's columns, and the
    refusal lists what it has."""
    book = _workbook(tmp_path / "log.xlsx")
    m = write(tmp_path, "m.toml", '[times]\ntimezone = "Europe/London"\n[columns]\nid = "Ticket"\n'
                                  'opened = "Opened"\n')
    line = refused(run, new_journal(tmp_path), "csv", book, "--map", m)
    assert "lacks column(s) Ticket, Opened" in line and "the file has: Note" in line


# ----- refusals: one line, exit 2, nothing written ------------------------------------------


def test_a_stated_encoding_the_bytes_are_not_is_refused(run, tmp_path):
    """--encoding utf-8 on the Windows-1252 file: its header's ä (0xE4) is not UTF-8."""
    sheet = copy(tmp_path, "excel_de_cp1252_semicolon.csv")
    line = refused(run, new_journal(tmp_path), "csv", sheet, "--map", write(tmp_path, "de.toml", DE_MAP),
                   "--encoding", "utf-8")
    assert "excel_de_cp1252_semicolon.csv: line 1 is not utf-8 text" in line and "--encoding" in line


def test_an_encoding_a_byte_order_mark_contradicts_is_refused(run, tmp_path):
    bom = copy(tmp_path, "excel_csv_utf8_bom.csv")
    line = refused(run, new_journal(tmp_path), "csv", bom, "--map",
                   write(tmp_path, "m.toml", EN_MAP.format(fmt="%m/%d/%Y %H:%M")), "--encoding", "cp1252")
    assert "excel_csv_utf8_bom.csv begins with a UTF-8 byte-order mark" in line and "cp1252" in line


@pytest.mark.parametrize("option, value, words", [("--encoding", "rot13", "is not a text encoding"),
                                                  ("--encoding", "no-such-codec", "is not a text encoding"),
                                                  ("--delimiter", ":", "is not a delimiter a spreadsheet writes"),
                                                  ("--sheet", "Nope", "has no sheet 'Nope'")])
def test_bad_statements_are_refused(run, tmp_path, option, value, words):
    book = _workbook(tmp_path / "log.xlsx")
    m = write(tmp_path, "m.toml", '[times]\ntimezone = "Europe/London"\n[columns]\nid = "Ticket"\nopened = "Opened"\n')
    line = refused(run, new_journal(tmp_path), "csv", book, "--map", m, option, value)
    assert option in line or "log.xlsx" in line
    assert words in line


def test_an_unknown_file_key_in_the_map_is_refused(run, tmp_path):
    sheet = write(tmp_path, "s.csv", "Ticket,Opened\nA,2026-03-02 10:00\n")
    m = write(tmp_path, "m.toml", '[file]\nquote = "\'"\n[columns]\nid = "Ticket"\nopened = "Opened"\n')
    line = refused(run, new_journal(tmp_path), "csv", sheet, "--map", m)
    assert "--map file.quote" in line and "[file] takes: delimiter, encoding, sheet" in line


def test_a_statement_about_tables_is_refused_for_a_json_format(run, tmp_path):
    """Zendesk's exports are JSON: an encoding stated for them is read by nothing, so refused."""
    tickets = write(tmp_path, "tickets.json", json.dumps({"tickets": []}))
    line = refused(run, new_journal(tmp_path), "zendesk", tickets, "--severity-map", "high=2", "--encoding", "cp1252")
    assert "--encoding" in line and "the zendesk format reads JSON" in line


def test_a_header_whose_delimiter_cannot_be_told_is_refused(run, tmp_path):
    """``Ticket;Opened,local`` holds one ``;`` and one ``,``: which separates cannot be told."""
    sheet = write(tmp_path, "s.csv", "Ticket;Opened,local\nA;2026-03-02 10:00\n")
    m = write(tmp_path, "m.toml", '[columns]\nid = "Ticket"\nopened = "Opened"\n')
    line = refused(run, new_journal(tmp_path), "csv", sheet, "--map", m)
    assert "as many commas as semicolons" in line and "--delimiter" in line


@pytest.mark.parametrize("content, words", [(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 600, "Excel 97-2003"),
                                            (None, "a zip archive, not an XLSX workbook"),
                                            (b"PK\x03\x04 not really a zip", "is not an XLSX workbook"),
                                            (b"T\0i\0c\0k\0e\0t\0\n\0" * 20, "UTF-16 text without a "
                                                                                     "byte-order mark")])
def test_files_no_encoding_or_workbook_reads_are_refused(run, tmp_path, content, words):
    path = tmp_path / "export.xlsx"
    if content is None:
        import zipfile

        with zipfile.ZipFile(path, "w") as z:
            z.writestr("word/document.xml", "<w/>")
    else:
        path.write_bytes(content)
    m = write(tmp_path, "m.toml", '[columns]\nid = "Ticket"\nopened = "Opened"\n')
    line = refused(run, new_journal(tmp_path), "csv", path, "--map", m)
    assert "export.xlsx" in line and words in line


def _late_byte(tmp_path: Path, header: str, first: str, last: str) -> tuple[Path, int]:
    """A UTF-8 export whose first bytes outside ASCII are UTF-8, then 1.2 MiB of blank lines,
    then a row holding é as Windows-1252 writes it (0xE9), past the bytes its encoding was
    found from. Returns the file and that row's number (header 1, first row 2, blank rows)."""
    blanks = 1_200_000
    path = tmp_path / "late.csv"
    path.write_bytes(f"{header}\n{first}\n".encode() + b"\n" * blanks + last.encode("cp1252") + b"\n")
    return path, 2 + blanks + 1


def test_a_byte_past_the_found_encoding_stops_the_import_naming_its_row(run, tmp_path):
    sheet, row = _late_byte(tmp_path, "Ticket,Opened,Note", "A,2026-03-02 10:00,café",
                            "B,2026-03-02 11:00,café")
    m = write(tmp_path, "m.toml", '[times]\ntimezone = "Europe/London"\n[columns]\nid = "Ticket"\n'
                                  'opened = "Opened"\nnote = "Note"\n')
    line = refused(run, new_journal(tmp_path), "csv", sheet, "--map", m)
    assert f"late.csv: line {row} is not utf-8 text" in line and "--encoding" in line


def test_a_byte_past_the_found_encoding_stops_servicenow_too(run, tmp_path):
    """DuckDB finds the byte in a column it reads (its reject INVALID ENCODING): the import stops
    naming the line. (A byte in a column the import does not read is never decoded.)"""
    sheet, row = _late_byte(tmp_path, "number,opened_at,priority,state,short_description",
                            "INC1,2026-03-02 10:00:00,1,2,café", "INCé2,2026-03-02 11:00:00,1,2,café")
    line = refused(run, new_journal(tmp_path), "servicenow", sheet, "--mode", "raw", "--severity-map", "1=1")
    assert f"line {row}" in line and "not UTF-8" in line


def test_read_as_is_said_for_tables_only(run, tmp_path):
    """Jira takes its issue CSV with its changelog JSON: the CSV's entry in ``exports`` says what
    it was read as; the JSON, which is no table, has no ``read_as``."""
    issues = write(tmp_path, "issues.csv", "Issue key,Created,Resolved,Priority,Status\n"
                                           "SUP-1,02/Mar/26 10:00 AM,,High,Open\n")
    changelog = write(tmp_path, "changelog.json", json.dumps({"issues": []}))
    out = imported(run, new_journal(tmp_path), "jira", issues, changelog, "--zone", "Europe/London",
                   "--severity-map", "High=2")
    entries = {f["file"]: f for f in out["exports"]}
    assert entries["issues.csv"]["read_as"]["encoding"] == "utf-8"
    assert "read_as" not in entries["changelog.json"]

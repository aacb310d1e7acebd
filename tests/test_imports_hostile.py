"""day60 import against exports a supplier's lawyer might hand over: every one is read exactly
as written or refused with one line and exit 2, the journal unchanged. All data SYNTHETIC."""

import json
import time

import pytest

from tests.imports_common import imported, new_journal, per_ticket, refused, write

MAP = """\
[times]
timezone = "Europe/London"
[columns]
id = "Ticket"
detected = "Detected"
restored = "Restored"
check = "Check"
note = "Note"
note_at = "Note at"
"""
SHEET = ("Ticket,Detected,Restored,Check,Note,Note at\n"
         "A,2026-03-02 10:00,2026-03-02 11:00,SYNTHETIC canary,,\n")


def test_glob_characters_in_a_file_name_are_a_name(run, tmp_path):
    """DuckDB reads ``in*.csv`` as a pattern; a sibling ``inzz.csv`` it would match is never read."""
    j = new_journal(tmp_path)
    head = "number,opened_at,resolved_at,priority,state,u_check\n"
    mine = write(tmp_path, "in*[1]?.csv", head + "INC1,2026-03-02 09:00:00,2026-03-02 10:00:00,1,6,SYNTHETIC ok\n")
    for sibling in ("inzz[1]x.csv", "in1.csv", "inA1B.csv"):
        write(tmp_path, sibling, head + "INC9,2026-03-02 09:00:00,2026-03-02 10:00:00,1,6,SYNTHETIC other\n")
    m = write(tmp_path, "map.toml", '[columns]\ncheck = "u_check"\n')
    out = imported(run, j, "servicenow", mine, "--mode", "raw", "--severity-map", "1=1", "--map", m)
    assert out["imported"] == ["INC1"] and out["read"] == 1


def test_glob_name_for_the_audit_too(run, tmp_path):
    j = new_journal(tmp_path)
    inc = write(tmp_path, "incident.csv", "number,sys_id,opened_at,resolved_at,priority,state\n"
                                          "INC1,s1,2026-03-02 09:00:00,2026-03-02 12:00:00,1,6\n")
    audit_head = "documentkey,fieldname,oldvalue,newvalue,sys_created_on\n"
    audit = write(tmp_path, "audit*.csv", audit_head + "s1,state,2,3,2026-03-02 10:00:00\n"
                                                       "s1,hold_reason,,1,2026-03-02 10:00:00\n"
                                                       "s1,state,3,2,2026-03-02 10:30:00\n")
    write(tmp_path, "audit-evil.csv", audit_head + "s1,state,2,3,2026-03-02 09:00:00\n"
                                                  "s1,hold_reason,,1,2026-03-02 09:00:00\n"
                                                  "s1,state,3,2,2026-03-02 11:59:00\n")
    imported(run, j, "servicenow", inc, audit, "--mode", "raw", "--severity-map", "1=1")
    assert per_ticket(j).loc["servicenow:INC1", "status"] == "unconfirmed"
    from tests.imports_common import events_of

    waits = [(k, at) for k, at, _ in events_of(j, "servicenow:INC1") if k.startswith("incident.wait")]
    assert waits == [("incident.wait-start", "2026-03-02T10:00:00+00:00"),
                     ("incident.wait-end", "2026-03-02T10:30:00+00:00")]


def test_bom_and_crlf(run, tmp_path):
    j = new_journal(tmp_path)
    sheet = tmp_path / "bom.csv"
    sheet.write_bytes(b"\xef\xbb\xbf" + SHEET.replace("\n", "\r\n").encode())
    out = imported(run, j, "csv", sheet, "--map", write(tmp_path, "map.toml", MAP))
    assert out["imported"] == ["A"]
    assert per_ticket(j).loc["csv:A", "restore_hours_at_least"] == pytest.approx(1.0)


def test_bom_and_crlf_on_the_duckdb_path(run, tmp_path):
    j = new_journal(tmp_path)
    inc = tmp_path / "incident.csv"
    inc.write_bytes(b"\xef\xbb\xbfnumber,opened_at,resolved_at,priority,state,u_check\r\n"
                    b"INC1,2026-03-02 09:00:00,2026-03-02 10:00:00,1,6,SYNTHETIC ok\r\n")
    m = write(tmp_path, "map.toml", '[columns]\ncheck = "u_check"\n')
    out = imported(run, j, "servicenow", inc, "--mode", "raw", "--severity-map", "1=1", "--map", m)
    assert out["imported"] == ["INC1"]
    assert per_ticket(j).loc["servicenow:INC1", "restore_hours_at_least"] == pytest.approx(1.0)


def test_a_huge_field_is_refused(run, tmp_path):
    j = new_journal(tmp_path)
    sheet = write(tmp_path, "huge.csv", SHEET + "B,2026-03-02 10:00,,," + "x" * (2 * 1024 * 1024) + ",\n")
    line = refused(run, j, "csv", sheet, "--map", write(tmp_path, "map.toml", MAP))
    assert "row 3" in line and "more than the 1,048,576 the import reads in one cell" in line


def test_naive_times_without_a_zone_are_refused(run, tmp_path):
    j = new_journal(tmp_path)
    m = write(tmp_path, "map.toml", MAP.replace('[times]\ntimezone = "Europe/London"\n', ""))
    line = refused(run, j, "csv", write(tmp_path, "t.csv", SHEET), "--map", m)
    assert "without an offset" in line


def test_a_time_in_the_spring_gap_is_named(run, tmp_path):
    """01:30 on 29 March 2026 does not exist in London; the row is listed, both candidates named."""
    j = new_journal(tmp_path)
    sheet = write(tmp_path, "dst.csv", SHEET + "B,2026-03-29 01:30,,,,\n")
    out = imported(run, j, "csv", sheet, "--map", write(tmp_path, "map.toml", MAP))
    bad = out["unreadable"][0]
    assert bad["ref"] == "B" and "does not exist" in bad["reason"] and "2026-03-29T02:30:00+01:00" in bad["reason"]


@pytest.mark.parametrize("ident", ["A\x00B", "A\u202eB", "\u200b", "A\nB"])
def test_ids_with_control_characters_are_listed_not_written(run, tmp_path, ident):
    j = new_journal(tmp_path)
    row = f'"{ident}",2026-03-02 10:00,2026-03-02 11:00,SYNTHETIC canary,,\n'
    sheet = tmp_path / "ids.csv"
    sheet.write_text(SHEET + row, encoding="utf-8")
    r = run("import", "csv", sheet, "--map", write(tmp_path, "map.toml", MAP), "--journal", j, "--format", "json")
    if "\n" in ident:  # an id cell over two lines is a broken quote: refused whole
        assert r.exit_code == 2 and "runs over several lines" in r.stderr
        return
    assert r.exit_code == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["imported"] == ["A"] and len(out["unreadable"]) == 1
    assert "control or invisible characters" in out["unreadable"][0]["reason"]


def test_catastrophic_patterns_are_refused(run, tmp_path):
    j = new_journal(tmp_path)
    sheet = write(tmp_path, "t.csv", SHEET)
    for pattern, words in (("(a+)+$", "repeats a group that itself repeats"), ("(\\\\w*)*x", "repeats a group"),
                           ("(a)\\\\1", "refers back to a group"), ("(", "is not a regular expression"),
                           ("(?P<when>x)", "names a group 'when'")):
        m = write(tmp_path, "map.toml", MAP + f'[notes]\nwait-start = "{pattern}"\n')
        line = refused(run, j, "csv", sheet, "--map", m)
        assert "--map notes.wait-start" in line and words in line, (pattern, line)
    m = write(tmp_path, "map.toml", MAP + '[notes]\nwaiting = "x"\n')
    assert "is not a clock event a note can stand for" in refused(run, j, "csv", sheet, "--map", m)


def test_a_slow_pattern_is_stopped_in_bounded_time(run, tmp_path):
    """Twenty alternatives that each match the same letter, in a row, with no repeat at all: 2^20
    ways to try on a note of that letter. The time limit stops the search and the import, naming
    the pattern, in well under a second."""
    j = new_journal(tmp_path)
    sheet = write(tmp_path, "t.csv", SHEET.replace(",,\n", f",{'x' * 5000},2026-03-02 10:30\n"))
    m = write(tmp_path, "map.toml", MAP + f'[notes]\nwait-start = "{"(x|x)" * 20}y"\n')
    began = time.monotonic()
    line = refused(run, j, "csv", sheet, "--map", m)
    assert time.monotonic() - began < 10
    assert "--map notes.wait-start" in line and "backtracks" in line


def test_duplicate_columns(run, tmp_path):
    j = new_journal(tmp_path)
    sheet = write(tmp_path, "dup.csv", "Ticket,Detected,Detected,Restored,Check,Note,Note at\n"
                                       "A,2026-03-02 10:00,2026-03-02 09:00,2026-03-02 11:00,SYNTHETIC,,\n")
    line = refused(run, j, "csv", sheet, "--map", write(tmp_path, "map.toml", MAP))
    assert "has the column 'Detected' 2 times" in line


def test_duplicate_columns_on_the_duckdb_path(run, tmp_path):
    j = new_journal(tmp_path)
    inc = write(tmp_path, "incident.csv", "number,opened_at,opened_at,resolved_at,priority,state\n"
                                          "INC1,2026-03-02 09:00:00,2026-03-02 08:00:00,2026-03-02 10:00:00,1,6\n")
    line = refused(run, j, "servicenow", inc, "--mode", "raw", "--severity-map", "1=1")
    assert "has the column 'opened_at' 2 times" in line


def test_a_quote_deep_in_a_large_servicenow_export(run, tmp_path):
    """Past DuckDB's sniffing sample, an unclosed quote is a rejected line: the import stops."""
    j = new_journal(tmp_path)
    rows = ["number,opened_at,resolved_at,priority,state"]
    rows += [f"INC{i},2026-03-02 09:00:00,2026-03-02 10:00:00,1,6" for i in range(4000)]
    rows[3000] = 'INC2999,"2026-03-02 09:00:00,2026-03-02 10:00:00,1,6'
    inc = write(tmp_path, "incident.csv", "\n".join(rows) + "\n")
    line = refused(run, j, "servicenow", inc, "--mode", "raw", "--severity-map", "1=1")
    assert "quote opened" in line


def test_json_with_a_bom_or_a_bad_shape(run, tmp_path):
    j = new_journal(tmp_path)
    bad = tmp_path / "tickets.json"
    bad.write_text('{"tickets": [{"id": {"nested": 1}, "created_at": "2026-03-02T10:00:00Z"}]}')
    assert "is not a ticket with an id" in refused(run, j, "zendesk", bad, "--severity-map", "x=1")  # nothing lands
    bad.write_text('{"tickets": [{"id": {"nested": 1}, "created_at": "2026-03-02T10:00:00Z"}, '
                   '{"id": 2, "created_at": "2026-03-02T10:00:00Z"}]}')
    out = imported(run, j, "zendesk", bad, "--severity-map", "x=1")
    assert out["unreadable"][0]["reason"] == "is not a ticket with an id"
    naive = write(tmp_path, "t2.json", '{"tickets": [{"id": 1, "created_at": "2026-03-02T10:00:00"}]}')
    assert "without an offset" in refused(run, j, "zendesk", naive, "--severity-map", "x=1")

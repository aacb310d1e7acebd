"""What an outside attack on ``day60 import`` (issue 36) found with real public exports, each
fixed and held here. Every export is a hand-written SYNTHETIC fixture in the real shape, its
source named in the test's docstring; the expected figures are worked by hand there.

Sources of the shapes:
- [UCI] the UCI "incident management process enriched event log" (CC BY 4.0), as copied in
  chinthan11shah/Incident-Management-System:incident_event_log.csv: a row per update, D-M-YYYY
  HH:MM, ``?`` for no value;
- [SNX] the ServiceNow Table API answer ({"result": [...]}, raw values, UTC);
- [JA] ActionableAgile/jira-to-analytics test/data/json/jira-issues-request.ts (Jira search answer);
- [PD] PagerDuty/api-schema reference/REST/openapiv3.json (the incidents and log_entries examples);
- [SNC] priya-roy/snow-assignment-group-predict incident.csv (a ServiceNow label CSV, quoted);
- [SNT] syndicalt/sn-scripts apis/DummyRecords.js (a Table API incident with calendar_stc);
- [ZD] facetoe/zenpy betamax recordings (Zendesk incremental export pages).
"""

import json

from tests.imports_common import events_of, imported, new_journal, refused, write

UCI_HEADER = ("number,incident_state,active,reassignment_count,reopen_count,sys_mod_count,made_sla,caller_id,"
              "opened_by,opened_at,sys_created_by,sys_created_at,sys_updated_by,sys_updated_at,contact_type,location,"
              "category,subcategory,u_symptom,cmdb_ci,impact,urgency,priority,assignment_group,assigned_to,knowledge,"
              "u_priority_confirmation,notify,problem_id,rfc,vendor,caused_by,closed_code,resolved_by,resolved_at,"
              "closed_at")
UCI_ARGS = ("--mode", "display", "--zone", "Europe/London", "--date-format", "%d-%m-%Y %H:%M",
            "--severity-map", "3 - Moderate=3")


def _uci(number: str, state: str, mods: int, opened: str, updated: str, resolved: str, closed: str) -> str:
    active = "FALSE" if state == "Closed" else "TRUE"
    return (f"{number},{state},{active},0,0,{mods},TRUE,Caller 1,Opened by  1,{opened},Created by 1,{opened},"
            f"Updated by 1,{updated},Phone,Location 1,Category 1,Subcategory 1,Symptom 1,?,2 - Medium,2 - Medium,"
            f"3 - Moderate,Group 1,?,TRUE,FALSE,Do Not Notify,?,?,?,?,code 1,Resolved by 1,{resolved},{closed}")


def _log(tmp_path, name: str, rows: list[str]):
    path = tmp_path / name
    path.write_bytes("\r\n".join([UCI_HEADER, *rows, ""]).encode("ascii"))
    return path


# INC0000135 of [UCI]: mods 0..7, two rows of mod 7 (Active, updated before the rest, and Closed).
UCI_135 = [_uci("INC0000135", state, mods, "02-03-2026 09:45", updated, "02-03-2026 16:17", "07-03-2026 17:00")
           for state, mods, updated in (("New", 0, "02-03-2026 09:45"), ("Active", 1, "02-03-2026 11:45"),
                                        ("Resolved", 5, "02-03-2026 15:27"), ("Resolved", 6, "02-03-2026 16:17"),
                                        ("Active", 7, "02-03-2026 09:27"), ("Closed", 7, "07-03-2026 17:00"))]


def test_event_log_rows_in_any_order_read_the_same(run, tmp_path):
    """[UCI] INC0000135 has two rows of sys_mod_count 7: Active updated 2/3 09:27 and Closed
    updated 7/3 17:00. Ordered by sys_mod_count and then the update's time, Closed (7/3 17:00)
    is the last row, in the file's order and after an Excel re-sort that reversed the rows alike.
    So the ticket is over: Closed, resolved_at 2/3 16:17 is its resolution (London is UTC in
    March), one closure at 16:17, never "In Progress" and open."""
    for name, rows in (("log.csv", UCI_135), ("reversed.csv", UCI_135[::-1])):
        j = new_journal(tmp_path, name + ".jsonl")
        out = imported(run, j, "servicenow", _log(tmp_path, name, rows), *UCI_ARGS)
        assert (out["files"][0]["read"], out["files"][0]["imported"]) == (6, 6)
        closed = [(a, d["resolved"]) for k, a, d in events_of(j, "servicenow:INC0000135")
                  if k == "incident.ticket-closed"]
        assert closed == [("2026-03-02T16:17:00+00:00", True)], name


def test_event_log_rows_tied_and_disagreeing_are_refused(run, tmp_path):
    """Two rows of one ticket with the same sys_mod_count (3) and the same update time (2/3
    10:00), one Resolved and one Active: which is the later update cannot be told, so the import
    is refused naming the ticket and both rows (rows 3 and 4 of the file, the header being row
    1). The same row given twice agrees with itself and is read: 3 rows, one ticket."""
    base = [_uci("INC0000700", "New", 0, "02-03-2026 09:00", "02-03-2026 09:00", "?", "?"),
            _uci("INC0000700", "Resolved", 3, "02-03-2026 09:00", "02-03-2026 10:00", "02-03-2026 10:00", "?")]
    tied = [*base, _uci("INC0000700", "Active", 3, "02-03-2026 09:00", "02-03-2026 10:00", "02-03-2026 10:00", "?")]
    j = new_journal(tmp_path)
    err = refused(run, j, "servicenow", _log(tmp_path, "tied.csv", tied), *UCI_ARGS)
    assert "INC0000700" in err and "row 3" in err and "row 4" in err and "sys_mod_count 3" in err
    out = imported(run, j, "servicenow", _log(tmp_path, "twice.csv", base + base[1:]), *UCI_ARGS)
    assert (out["files"][0]["read"], out["files"][0]["imported"]) == (3, 3)


def test_event_log_first_row_state_holds_from_its_update(run, tmp_path):
    """[UCI] INC0000093: its first row (mod 0, updated 29/2 08:56 in the real log; here 2/3
    08:56) is already Resolved, resolved_at is ?, and the second (mod 1, 5/3 10:00) Closed. A
    state the log first shows at a row holds from that row's update, the first row's as every
    later one's: resolved at 2/3 08:56 (resolved: true), not closed at closed_at 5/3 10:00 with
    no resolution.
    INC0000094: opened 2/3 09:00, its first row (09:30) Awaiting User Info, Active at 11:00,
    Resolved at 12:00 (resolved_at 12:00). The wait on the caller runs from the first row's
    update, 09:30, to 11:00 (1.5 h), not from the opening at 09:00: the same rule."""
    rows = [_uci("INC0000093", "Resolved", 0, "02-03-2026 08:56", "02-03-2026 08:56", "?", "05-03-2026 10:00"),
            _uci("INC0000093", "Closed", 1, "02-03-2026 08:56", "05-03-2026 10:00", "?", "05-03-2026 10:00"),
            _uci("INC0000094", "Awaiting User Info", 0, "02-03-2026 09:00", "02-03-2026 09:30", "?", "?"),
            _uci("INC0000094", "Active", 1, "02-03-2026 09:00", "02-03-2026 11:00", "?", "?"),
            _uci("INC0000094", "Resolved", 2, "02-03-2026 09:00", "02-03-2026 12:00", "02-03-2026 12:00", "?")]
    j = new_journal(tmp_path)
    imported(run, j, "servicenow", _log(tmp_path, "log.csv", rows), *UCI_ARGS)
    closed = [(a, d["resolved"]) for k, a, d in events_of(j, "servicenow:INC0000093") if k == "incident.ticket-closed"]
    assert closed == [("2026-03-02T08:56:00+00:00", True)]
    got = [(k, a) for k, a, _ in events_of(j, "servicenow:INC0000094")]
    assert got == [("incident.detected", "2026-03-02T09:00:00+00:00"),
                   ("incident.wait-start", "2026-03-02T09:30:00+00:00"),
                   ("incident.wait-end", "2026-03-02T11:00:00+00:00"),
                   ("incident.ticket-closed", "2026-03-02T12:00:00+00:00")]


def _snow(state: str, resolved: str) -> dict:
    return {"number": "INC0000060", "sys_id": "s0060", "sys_class_name": "incident", "priority": "3",
            "state": state, "opened_at": "2026-03-02 09:00:00", "resolved_at": resolved, "closed_at": "",
            "sys_updated_on": "2026-03-02 10:00:00"}


def test_servicenow_pages_same_time_disagreeing_are_refused(run, tmp_path):
    """[SNX] Table API pages: INC0000060 is Closed (7, resolved 10:00) in page_new.json and In
    Progress (2) in page_tie.json, both with sys_updated_on 2026-03-02 10:00:00. Which copy holds
    cannot be told (the order the files are named in is no evidence), so the import is refused
    naming the ticket and both places (record 1 of each file), in either order. The same copy
    in two pages is a repeat: read once, the other counted skipped (2 read, 1 imported, 1 skipped)."""
    new = write(tmp_path, "page_new.json", json.dumps({"result": [_snow("7", "2026-03-02 10:00:00")]}))
    tie = write(tmp_path, "page_tie.json", json.dumps({"result": [_snow("2", "")]}))
    j = new_journal(tmp_path)
    for files in ((new, tie), (tie, new)):
        err = refused(run, j, "servicenow", *files, "--mode", "raw", "--severity-map", "3=3")
        assert "INC0000060" in err and "page_new.json record 1" in err and "page_tie.json record 1" in err
    again = write(tmp_path, "page_again.json", json.dumps({"result": [_snow("7", "2026-03-02 10:00:00")]}))
    out = imported(run, j, "servicenow", new, again, "--mode", "raw", "--severity-map", "3=3")
    assert [(f["read"], f["imported"], f["skipped"]) for f in out["files"]] == [(1, 0, 1), (1, 1, 0)]


def _issue(status: str, category: str, resolved: str | None) -> dict:
    return {"id": "10033", "key": "UT-33", "fields": {
        "created": "2026-03-02T09:00:00.000+0000", "updated": "2026-03-02T12:00:00.000+0000",
        "resolutiondate": resolved, "status": {"name": status, "statusCategory": {"key": category}},
        "resolution": {"name": "Done"} if resolved else None, "priority": {"name": "Medium"},
        "issuetype": {"name": "Incident"}}, "changelog": {"histories": []}}


def test_jira_pages_same_time_disagreeing_are_refused(run, tmp_path):
    """[JA] Jira search answers: UT-33 is Done (resolved 12:00) in tie_a.json and Backlog in
    tie_b.json, both with fields.updated 2026-03-02T12:00:00.000+0000: refused naming UT-33 and
    both places (issue 1 of each file). The same copy in both answers is one ticket, resolved
    at 12:00 (its resolutiondate), the two records counted with it."""
    done = json.dumps({"issues": [_issue("Done", "done", "2026-03-02T12:00:00.000+0000")]})
    a = write(tmp_path, "tie_a.json", done)
    b = write(tmp_path, "tie_b.json", json.dumps({"issues": [_issue("Backlog", "new", None)]}))
    j = new_journal(tmp_path)
    err = refused(run, j, "jira", a, b, "--severity-map", "Medium=3")
    assert "UT-33" in err and "tie_a.json issue 1" in err and "tie_b.json issue 1" in err
    same = write(tmp_path, "same.json", done)
    imported(run, j, "jira", a, same, "--severity-map", "Medium=3")
    closed = [a for k, a, _ in events_of(j, "jira:UT-33") if k == "incident.ticket-closed"]
    assert closed == ["2026-03-02T12:00:00+00:00"]


def test_pagerduty_trigger_after_created_starts_at_the_earlier(run, tmp_path):
    """[PD] the vendor's own examples: incident PT4KHLK created_at 2015-10-06T21:30:42Z and
    resolved_at 21:38:23Z (status resolved), while the log entries' trigger_log_entry is dated
    2015-11-07T00:14:20Z, a month later (here moved to March 2026, same shape). The two records
    disagree; the clock starts at the earlier (created_at 21:30:42), the disagreement is said on
    the detection, and the closure at resolved_at 21:38:23 (no resolve_log_entry: a closure, not
    a confirmed restore) is after it, so the incident is imported, not refused."""
    incidents = {"incidents": [{"id": "PT4KHLK", "type": "incident", "status": "resolved",
                                "created_at": "2026-03-02T21:30:42Z", "resolved_at": "2026-03-02T21:38:23Z",
                                "last_status_change_at": "2026-03-02T21:38:23Z", "urgency": "high",
                                "priority": {"summary": "P2"}}], "limit": 1, "offset": 0, "more": False}
    log = {"log_entries": [{"id": "Q02JTSNZWHSEKV", "type": "trigger_log_entry", "created_at": "2026-03-09T00:14:20Z",
                            "agent": {"type": "user_reference"}, "channel": {"type": "web_trigger"},
                            "incident": {"id": "PT4KHLK", "type": "incident_reference"}}],
           "limit": 1, "offset": 0, "more": False}
    j = new_journal(tmp_path)
    imported(run, j, "pagerduty", write(tmp_path, "incidents.json", json.dumps(incidents)),
             write(tmp_path, "log_entries.json", json.dumps(log)), "--severity-map", "P2=2")
    got = [(k, a) for k, a, _ in events_of(j, "pagerduty:PT4KHLK")]
    assert got == [("incident.detected", "2026-03-02T21:30:42+00:00"),
                   ("incident.ticket-closed", "2026-03-02T21:38:23+00:00")]
    detected = events_of(j, "pagerduty:PT4KHLK")[0][2]
    assert "trigger_log_entry" in detected["note"] and "2026-03-09T00:14:20" in detected["note"]


def test_a_correctly_quoted_huge_cell_is_called_too_large(run, tmp_path):
    """[SNC] a ServiceNow field-name CSV, every cell quoted as the real export is, whose second
    row's short_description holds 2,200,002 characters ('x, ' 733,333 times, then 'xx' and a line
    break, all inside the quotes: 2,199,999 + 2 + 1). That is more than the 1,048,576 (1 MiB)
    the Python reader takes in one cell, and more than the 2 MiB line DuckDB (the servicenow
    reader) takes, but its quotes close: the refusal names the row (3, from line 3), the column
    (short_description, the 3rd), its size and the limit, and says nothing of quoting; for the
    servicenow and the csv format alike. A quote that is never closed is still called so."""
    cell = "x, " * 733_333 + "xx\n"  # 2,199,999 + 2 + 1 = 2,200,002 characters
    rows = ['"number","opened_at","short_description","priority","state"',
            '"INC0010001","2026-03-02 09:00:00","Printer","3 - Moderate","New"',
            f'"INC0010002","2026-03-02 10:00:00","{cell}","3 - Moderate","New"', ""]
    path = write(tmp_path, "incident.csv", "\n".join(rows))
    amap = write(tmp_path, "map.toml", '[times]\ntimezone = "UTC"\n[columns]\nid = "number"\nseverity = "priority"\n'
                                      'opened = "opened_at"\n[severity]\n"3 - Moderate" = 3\n')
    j = new_journal(tmp_path)
    for args in (("servicenow", path, "--mode", "display", "--zone", "UTC", "--severity-map", "3 - Moderate=3"),
                 ("csv", path, "--map", amap)):
        err = refused(run, j, *args)
        assert "row 3 (from line 3)" in err and "'short_description'" in err and "column 3" in err, err
        assert "2,200,002 characters" in err and "1,048,576" in err and "not closed" not in err, err
    bad = write(tmp_path, "open.csv", "\n".join([*rows[:2], '"INC0010002","2026-03-02 10:00:00","' + "y" * 2200000]))
    err = refused(run, j, "csv", bad, "--map", amap)
    assert "quote opened there is not closed" in err


def _jira(key: str, updated: str) -> dict:
    return {"id": key[-2:], "key": key, "fields": {
        "created": "2026-03-02T09:00:00.000+0000", "updated": updated, "resolutiondate": None,
        "status": {"name": "Open", "statusCategory": {"key": "new"}}, "resolution": None,
        "priority": {"name": "Medium"}, "issuetype": {"name": "Incident"}}}


def test_headline_counts_records_and_tickets_apart(run, tmp_path):
    """[JA] two search pages over a changing search: page 1 holds SUP-1 and SUP-2, page 2 SUP-2
    again (updated later) and SUP-3. Records read: 2 + 2 = 4 (the per-file table's sum); tickets:
    SUP-1, SUP-2, SUP-3 = 3. The headline says both, never 3 "records". An import refused for
    landing nothing says the records too: one page of two issues that are not objects (2
    records, 2 unreadable items)."""
    p1 = write(tmp_path, "page1.json", json.dumps({"issues": [_jira("SUP-1", "2026-03-02T10:00:00.000+0000"),
                                                              _jira("SUP-2", "2026-03-02T10:00:00.000+0000")]}))
    p2 = write(tmp_path, "page2.json", json.dumps({"issues": [_jira("SUP-2", "2026-03-02T11:00:00.000+0000"),
                                                              _jira("SUP-3", "2026-03-02T11:00:00.000+0000")]}))
    j = new_journal(tmp_path)
    r = run("import", "jira", p1, p2, "--journal", j, "--severity-map", "Medium=3")
    assert r.exit_code == 0, r.stderr
    head = r.stdout.splitlines()[0]
    assert "4 record(s) read from 2 file(s)" in head and "holding 3 ticket(s): 3 imported" in head, head
    err = refused(run, j, "jira", write(tmp_path, "bad.json", '{"issues": [7, null]}'), "--severity-map", "Medium=3")
    assert "2 record(s) read from 1 file(s), making 2 item(s)" in err


def test_event_log_without_its_date_format_names_the_flag(run, tmp_path):
    """[UCI] imported without --date-format: '02-03-2026 09:00' is not in ServiceNow's default
    form (%Y-%m-%d %H:%M:%S), so every row is unreadable and nothing lands. The one line says the
    reason in full, never cut before it: the flag --date-format, the forms among ServiceNow's
    user date formats that read the value ('%d-%m-%Y %H:%M' first: day 02, month 03; and
    '%m-%d-%Y %H:%M', which reads it as 3 February), and that the update is left out."""
    rows = [_uci("INC0000093", "Resolved", 0, "02-03-2026 08:56", "02-03-2026 08:56", "?", "?")]
    j = new_journal(tmp_path)
    err = refused(run, j, "servicenow", _log(tmp_path, "log.csv", rows), "--mode", "display", "--zone",
                  "Europe/London", "--severity-map", "3 - Moderate=3")
    assert "--date-format ('%d-%m-%Y %H:%M' or '%m-%d-%Y %H:%M' reads it)" in err, err
    assert "that update is left out of the history" in err and "…" not in err


def test_jira_csv_in_french_or_japanese_gets_the_documented_fix(run, tmp_path):
    """[JA] the issues of jira-to-analytics written as a Jira CSV whose header is French (Clé de
    ticket, État, Priorité, Création...) or Japanese (課題キー, ステータス, 優先度, 作成日...): the
    jira format reads English, Spanish and German headers only. The refusal says the header's
    language is the matter and gives the documented fix (Jira's language set to English, or the
    csv format with a map), never that Priority is missing when Priorité is there."""
    body = "\nSample Item 26,UT-26,10125,Bug,Test,Medium,,21/nov./15 7:03 AM,29/mars/16 7:19 AM,,In Progress,\n"
    j = new_journal(tmp_path)
    for name, header in (("fr.csv", "Résumé,Clé de ticket,ID de ticket,Type de ticket,État,Priorité,Résolution,"
                                    "Création,Mise à jour,Résolue,Catégorie d'état,Catégorie d'état modifiée"),
                         ("ja.csv", "要約,課題キー,課題 ID,課題タイプ,ステータス,優先度,解決状況,作成日,更新日,解決日,"
                                    "ステータスカテゴリー,ステータスカテゴリー変更日")):
        err = refused(run, j, "jira", write(tmp_path, name, header + body), "--zone", "UTC",
                      "--severity-map", "Medium=3")
        assert "not in a language the jira format reads" in err and "language set to English" in err, err
        assert "csv format and a map" in err and "lacks column" not in err


def test_a_title_row_above_the_header_is_named(run, tmp_path):
    """[UCI] saved as XLSX with a title typed in A1 and merged across A1:F1 above the column names
    (as a report is dressed before it is sent). The header is the sheet's first row that is not
    empty, here the title row, which holds one cell only: the refusal says it read that row as
    the header, quotes it, and says to delete the rows above the column names if it is a title;
    for the servicenow format and for csv with a map alike."""
    import openpyxl

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.append(["Incident event log export"])
    ws.merge_cells("A1:F1")
    ws.append(UCI_HEADER.split(","))
    ws.append(_uci("INC0000045", "New", 0, "02-03-2026 09:00", "02-03-2026 09:00", "?", "?").split(","))
    path = tmp_path / "log.xlsx"
    wb.save(path)
    amap = write(tmp_path, "map.toml", '[times]\ntimezone = "UTC"\nformat = "%d-%m-%Y %H:%M"\n[columns]\n'
                                      'id = "number"\nseverity = "priority"\nopened = "opened_at"\n'
                                      '[severity]\n"3 - Moderate" = 3\n')
    j = new_journal(tmp_path)
    for args in (("servicenow", path, *UCI_ARGS), ("csv", path, "--map", amap)):
        err = refused(run, j, *args)
        assert "'Incident event log export'" in err and "read as its header" in err, err
        assert "delete the title rows above them" in err


def test_json_with_a_byte_order_mark_and_files_given_twice(run, tmp_path):
    """[ZD] a tickets page saved by an editor as "UTF-8 with BOM" (EF BB BF first): read as the
    same page, one ticket (9001, solved) imported. The same page saved as UTF-16 (FF FE first):
    refused in one line saying UTF-16 and how to convert, never a parser's raw bytes. [JA] a Jira
    CSV given twice under two names (byte-identical): refused as one export under two names,
    naming both files, not as every ticket id appearing twice."""
    page = json.dumps({"tickets": [{"id": 9001, "created_at": "2026-03-02T13:00:00Z", "updated_at":
                                    "2026-03-02T15:00:00Z", "type": "incident", "priority": "high",
                                    "status": "solved", "tags": []}], "end_of_stream": True})
    bom = tmp_path / "bom.json"
    bom.write_bytes(b"\xef\xbb\xbf" + page.encode("utf-8"))
    j = new_journal(tmp_path)
    out = imported(run, j, "zendesk", bom, "--severity-map", "high=2")
    assert out["imported"] == ["9001"]
    utf16 = tmp_path / "utf16.json"
    utf16.write_bytes(page.encode("utf-16"))  # Python writes the byte-order mark FF FE first
    err = refused(run, j, "zendesk", utf16, "--severity-map", "high=2")
    assert "UTF-16" in err and "iconv" in err and "\\x" not in err
    sheet = ("Issue key,Issue id,Issue Type,Created,Resolved,Priority,Status\n"
             "UT-26,10125,Incident,02/Mar/26 9:00 AM,02/Mar/26 10:00 AM,Medium,Done\n")
    a, b = write(tmp_path, "issues.csv", sheet), write(tmp_path, "issues copy.csv", sheet)
    err = refused(run, j, "jira", a, b, "--zone", "UTC", "--severity-map", "Medium=3")
    assert "issues.csv and issues copy.csv are byte-identical" in err and "more than once" not in err


def test_vendor_figure_disagreeing_with_its_own_records_is_named_without_ours(run, tmp_path):
    """[SNT] the Table API incident INC0000060: opened_at 12:19:57 on 2 March, resolved_at 18:43:14
    on 3 March (here in March 2026, same times of day and gap), calendar_stc 102,197 s, which
    ServiceNow states is opened_at to resolved_at, not paused. Its own span is 1 day 6:23:17 =
    109,397 s = 30.39 h; its figure 102,197 s = 28.39 h: the vendor's records disagree with
    themselves by 7,200 s = 2.00 h. No monitoring confirmed the restore, so there is no figure of
    ours, and the --csv row says both: the note (no monitoring-confirmed restore) and the
    disagreement, as docs/imports.md promises for a vendor figure that is not its own clock's span."""
    record = {"number": "INC0000060", "sys_id": "s0060", "sys_class_name": "incident", "priority": "3",
              "state": "7", "opened_at": "2026-03-02 12:19:57", "resolved_at": "2026-03-03 18:43:14",
              "closed_at": "2026-03-03 23:46:44", "calendar_stc": "102197", "business_stc": "28800",
              "sys_updated_on": "2026-03-03 23:46:44"}
    j = new_journal(tmp_path)
    out = tmp_path / "reconciled.csv"
    imported(run, j, "servicenow", write(tmp_path, "incident.json", json.dumps({"result": [record]})),
             "--mode", "raw", "--severity-map", "3=3", "--csv", out)
    import csv

    row = next(csv.DictReader(out.open(encoding="utf-8")))
    assert row["note"].startswith("no monitoring-confirmed restore")
    assert "30.39 h - 0.00 h = 30.39 h" in row["reasons"] and "disagree with themselves by 2.00 h" in row["reasons"]

"""What an outside attack on ``day60 import`` (att36b: a BPO analyst with the docs and the vendors'
real export shapes) found in the ServiceNow, CSV and XLSX readers, each fixed and held here.

Every export is a hand-written SYNTHETIC file in a vendor's real shape: the attacker's own files,
copied byte for byte into tests/data/imports/ (each with a ``.source.txt`` naming the shape's
source), or written here in the same shape. Expected figures are worked by hand in each docstring.
The journal's window is 2026-03-02 09:00 to 2026-03-13 17:30, uk-office (London is UTC until 29
March 2026; weekdays 09:00-17:30).
"""

from pathlib import Path

import pytest

from tests.builders import make_journal
from tests.imports_common import events_of, figures_json, imported, new_journal, per_ticket, refused, write

DATA = Path(__file__).parent / "data" / "imports"
SN = DATA / "servicenow"


def test_servicenow_resolve_time_read_from_sys_audit(run, tmp_path):
    """att36b finding 1. INC0060001 (sys_id a6...01) is state 6 (Resolved) in an incident export
    with no resolved_at column; its sys_audit rows move state 1 -> 2 at 09:10 and 2 -> 6 at 12:00.
    The audit holds the time it entered Resolved, with no re-open after it, so it is resolved at
    12:00 (the event log's rule, read from sys_audit): one closure at 2026-03-03T12:00Z, resolved,
    no monitoring check (the map names none), so "closed with no monitoring check", 1 unconfirmed,
    0 not evidenced; never "closed, time not evidenced: the records hold no time". Both audit rows
    were read into it (imported 2).

    The same incident with an audit holding no state row of it (a row of another ticket only) has
    no time in any state row read: closed, time not evidenced, dated at its opening 09:00, and its
    note says the history holds no move into Resolved (the priority row is not read)."""
    j = new_journal(tmp_path)
    out = imported(run, j, "servicenow", SN / "att36b_incident_raw_no_resolved_at.csv",
                   SN / "att36b_sys_audit_raw_resolve.csv", "--mode", "raw", "--severity-map", "2=2")
    assert out["findings"]["closed_untimed"] == []
    assert {f["file"]: f["imported"] for f in out["files"]} == {"att36b_incident_raw_no_resolved_at.csv": 1,
                                                                 "att36b_sys_audit_raw_resolve.csv": 2}
    ends = [(k, a, d) for k, a, d in events_of(j, "servicenow:INC0060001") if k.startswith("incident.ticket")]
    assert ends == [("incident.ticket-closed", "2026-03-03T12:00:00+00:00", {"state": "Resolved", "resolved": True})]
    assert any("resolved_at is empty: resolved at 2026-03-03T12:00:00+00:00" in n["note"]
               and "In Progress to Resolved" in n["note"] for n in out["findings"]["notes"])
    s = figures_json(run, j)
    assert (s["unconfirmed"], s["not_evidenced"]) == (1, 0)

    other = write(tmp_path, "sys_audit_other.csv",
                  "sys_id,tablename,documentkey,fieldname,oldvalue,newvalue,sys_created_on,user\n"
                  "x9,incident,a6000000000000000000000000000001,priority,3,2,2026-03-03 09:30:00,synthetic.agent\n")
    j2 = new_journal(tmp_path, "other.jsonl")
    out = imported(run, j2, "servicenow", SN / "att36b_incident_raw_no_resolved_at.csv", other,
                   "--mode", "raw", "--severity-map", "2=2")
    assert [x["ticket"] for x in out["findings"]["closed_untimed"]] == ["INC0060001"]
    assert any("its state history holds no move into Resolved" in n["note"] for n in out["findings"]["notes"])
    ends = [(a, d.get("instant")) for k, a, d in events_of(j2, "servicenow:INC0060001")
            if k == "incident.ticket-closed"]
    assert ends == [("2026-03-03T09:00:00+00:00", "not-evidenced")]


def test_servicenow_resolve_time_from_sys_audit_after_a_reopen(run, tmp_path):
    """att36b finding 1, with a re-open: the audit moves INC0060001 to Resolved at 11:00, back to
    In Progress at 11:30 and to Resolved again at 12:00; resolved_at is not exported. The entry
    into Resolved with no re-open after it is 12:00: closed 11:00 (resolved), re-opened 11:30,
    closed 12:00 (resolved); 3 audit rows imported."""
    audit = write(tmp_path, "sys_audit.csv",
                  "sys_id,tablename,documentkey,fieldname,oldvalue,newvalue,sys_created_on,user\n"
                  "x1,incident,a6000000000000000000000000000001,state,2,6,2026-03-03 11:00:00,synthetic.agent\n"
                  "x2,incident,a6000000000000000000000000000001,state,6,2,2026-03-03 11:30:00,synthetic.caller\n"
                  "x3,incident,a6000000000000000000000000000001,state,2,6,2026-03-03 12:00:00,synthetic.agent\n")
    j = new_journal(tmp_path)
    out = imported(run, j, "servicenow", SN / "att36b_incident_raw_no_resolved_at.csv", audit,
                   "--mode", "raw", "--severity-map", "2=2")
    assert out["files"][1]["imported"] == 3
    got = [(k, a) for k, a, _ in events_of(j, "servicenow:INC0060001") if k != "incident.detected"]
    assert got == [("incident.ticket-closed", "2026-03-03T11:00:00+00:00"),
                   ("incident.reopened", "2026-03-03T11:30:00+00:00"),
                   ("incident.ticket-closed", "2026-03-03T12:00:00+00:00")]


def test_servicenow_open_state_decides_over_an_earlier_resolution(run, tmp_path):
    """att36b finding 2. INC0050001 is state 2 (In Progress), reopen_count 1, resolved_at 10:00
    (kept from the resolution before the re-open); INC0050002 is state 6 (Resolved) at 10:00. No
    sys_audit is given. The current state decides: INC0050001 is open at the close, its 10:00
    resolution a closure followed by a re-open whose time the records do not give (written at
    10:00, the earliest it can have been, and said to be not evidenced). So metrics reads 1 open at
    the close (INC0050001) and 1 closed with no monitoring check (INC0050002), never 2 closed."""
    j = new_journal(tmp_path)
    out = imported(run, j, "servicenow", SN / "att36b_incident_raw_reopened_state2.csv", "--mode", "raw",
                   "--severity-map", "2=2")
    got = [(k, a) for k, a, _ in events_of(j, "servicenow:INC0050001") if k != "incident.detected"]
    assert got == [("incident.ticket-closed", "2026-03-03T10:00:00+00:00"),
                   ("incident.reopened", "2026-03-03T10:00:00+00:00")]
    reason = next(d["reason"] for k, _, d in events_of(j, "servicenow:INC0050001") if k == "incident.reopened")
    assert "In Progress (2)" in reason and "not evidenced" in reason
    assert [x["ticket"] for x in out["findings"]["open"]] == ["INC0050001"]
    s = figures_json(run, j)
    assert (s["open"], s["unconfirmed"]) == (1, 1)


def test_servicenow_open_state_reopen_time_from_sys_audit(run, tmp_path):
    """att36b finding 2, with the history. The sys_audit moves INC0050001 (sys_id f1...01) to
    Resolved (6) at 10:00 and back to In Progress (2) at 10:45: closed 10:00, re-opened 10:45 (its
    own time, nothing not evidenced), open at the close. With a history that stops at the 10:00
    resolution (the 10:45 row not exported) the state still decides: re-opened at a time not
    evidenced, written at 10:00. INC0050002 has no audit rows: Resolved at its resolved_at 10:00."""
    head = "sys_id,tablename,documentkey,fieldname,oldvalue,newvalue,sys_created_on,user\n"
    rows = ["y1,incident,f1000000000000000000000000000001,state,2,6,2026-03-03 10:00:00,synthetic.agent\n",
            "y2,incident,f1000000000000000000000000000001,state,6,2,2026-03-03 10:45:00,synthetic.caller\n"]
    for name, audit, reopened in (("full", rows, "2026-03-03T10:45:00+00:00"),
                                  ("cut", rows[:1], "2026-03-03T10:00:00+00:00")):
        j = new_journal(tmp_path, name + ".jsonl")
        out = imported(run, j, "servicenow", SN / "att36b_incident_raw_reopened_state2.csv",
                       write(tmp_path, name + ".csv", head + "".join(audit)), "--mode", "raw", "--severity-map", "2=2")
        got = [(k, a) for k, a, _ in events_of(j, "servicenow:INC0050001") if k != "incident.detected"]
        assert got == [("incident.ticket-closed", "2026-03-03T10:00:00+00:00"), ("incident.reopened", reopened)], name
        reason = next(d["reason"] for k, _, d in events_of(j, "servicenow:INC0050001") if k == "incident.reopened")
        assert ("not evidenced" in reason) == (name == "cut"), reason
        assert [x["ticket"] for x in out["findings"]["open"]] == ["INC0050001"], name
        assert out["files"][1]["imported"] == len(audit)


TAB = DATA / "tabular"


def test_csv_sla_calendar_business_sets_the_sheets_hours_beside_our_business_hours(run, tmp_path):
    """att36b finding 4. The sheet (Excel "Unicode Text": UTF-16 LE, tab, CRLF) gives T-31's
    "Desk hours" 1.5 and T-32's 0.5, and the map says [sla] calendar = "business". By hand, in
    London (uk-office, Mon-Fri 09:00-17:30), the window 23 March to 3 April 2026:

    - T-31: detected Fri 27/03 16:00 GMT, restored Mon 30/03 10:00 BST (09:00 UTC), a wait on the
      client 09:15-09:45 BST: 65 h - 0.5 h = 64.5 h elapsed; business 1.5 (Fri 16:00-17:30) + 1.0
      (Mon 09:00-10:00) - 0.5 = 2.0 bh. The sheet's 1.5 is business hours: 1.5 bh beside our
      2.0 bh, a difference of +0.5 bh, never 1.5 beside our 64.5 elapsed hours (the false 63 h);
    - T-32: the client's report Wed 25/03 16:45 (earlier than the detection 17:00), restored Thu
      26/03 09:30: 16.75 h; 0.75 + 0.5 = 1.25 bh beside the sheet's 0.5 bh: +0.75 bh.

    The journal holds the sheet's figure as business milliseconds (1.5 h = 5,400,000 ms) and no
    24x7 figure."""
    j = make_journal(tmp_path / "dst.jsonl", [], tier="T2", window=("2026-03-23T09:00", "2026-04-03T17:30"),
                     synthetic=True)
    out = imported(run, j, "csv", TAB / "att36b_unicode_text_utf16le_dst.txt",
                   "--map", TAB / "att36b_spreadsheet_map_business.toml")
    rows = {r["ticket"]: r for r in out["reconcile"]["tickets"]}
    t31, t32 = rows["T-31"], rows["T-32"]
    assert (t31["vendor_hours"], t31["vendor_business_hours"]) == (None, pytest.approx(1.5))
    assert (t31["ours_hours"], t31["ours_business_hours"]) == (pytest.approx(64.5), pytest.approx(2.0))
    assert t31["difference_business_hours"] == pytest.approx(0.5) and t31["difference_hours"] is None
    assert t32["vendor_business_hours"] == pytest.approx(0.5)
    assert t32["difference_business_hours"] == pytest.approx(0.75)
    assert "business hours" in t31["vendor_measure"]
    closed = [d for k, _, d in events_of(j, "csv:T-31") if k == "incident.restored"]
    assert closed[0]["vendor_business_ms"] == 5_400_000 and "vendor_wall_ms" not in closed[0]


def test_csv_sla_keys_it_cannot_apply_are_refused(run, tmp_path):
    """att36b finding 4, the other half of "a key the format does not read is refused, never
    ignored": [sla] name (a sheet has no SLA records to choose from), and calendar = "business"
    beside a vendor_business_hours column (two business figures of one ticket)."""
    base = (TAB / "att36b_spreadsheet_map_business.toml").read_text(encoding="utf-8")
    j = new_journal(tmp_path)
    named = write(tmp_path, "named.toml", base + 'name = "P2 resolution"\n')
    line = refused(run, j, "csv", TAB / "att36b_unicode_text_utf16le_dst.txt", "--map", named)
    assert "--map sla.name" in line and "csv format" in line
    both = write(tmp_path, "both.toml", base.replace('vendor_hours = "Desk hours"',
                                                     'vendor_hours = "Desk hours"\nvendor_business_hours = "Comment"'))
    line = refused(run, j, "csv", TAB / "att36b_unicode_text_utf16le_dst.txt", "--map", both)
    assert "--map sla.calendar" in line and "vendor_business_hours" in line


def test_servicenow_task_sla_named_by_sys_id_is_skipped_not_swapped(run, tmp_path):
    """att36b finding 6. A raw task_sla export writes its `sla` reference as the SLA definition's
    sys_id (7d2b...c6), so the map's [sla] name "P2 resolution (24x7)" matches neither record. Both
    task_sla rows are skipped with the reason (a sys_id; the fix: display values, or the sys_id
    as [sla] name), and neither ticket takes a vendor figure from a record the map did not
    choose: not the task_sla rows, not calendar_stc. So nothing is reconciled, and each ticket's
    note says why.

    With the sys_id as [sla] name both records are the map's. By hand (raw glide_duration):
    INC0020001 4 h and 4 bh beside ours 09:00-13:00 on Tue 3/3 = 4.0 h, 4.0 bh: agree;
    INC0020002 "1970-01-02 02:00:00" = 26 h and "1970-01-01 09:00:00" = 9 bh beside ours Wed
    09:00 to Thu 11:00 = 26.0 h and 8.5 + 2.0 = 10.5 bh."""
    j = new_journal(tmp_path)
    out = imported(run, j, "servicenow", SN / "att36b_incident_raw.csv", SN / "att36b_task_sla_raw_sla_sysid.csv",
                   "--mode", "raw", "--map", SN / "att36b_map.toml")
    sla = next(f for f in out["files"] if f["file"] == "att36b_task_sla_raw_sla_sysid.csv")
    assert (sla["read"], sla["imported"], sla["skipped"]) == (2, 0, 2)
    (reason,) = sla["skipped_reasons"]
    assert "sys_id" in reason and "P2 resolution (24x7)" in reason and "display values" in reason
    assert out["reconcile"].get("tickets", []) == []
    notes = {n["ticket"]: n["note"] for n in out["findings"]["notes"] if n["ticket"]}
    assert all("no vendor figure is compared" in notes[t] for t in ("INC0020001", "INC0020002"))
    assert not any(k.startswith("vendor_") for _, _, d in events_of(j, "servicenow:INC0020002") for k in d)

    by_id = write(tmp_path, "by_id.toml", (SN / "att36b_map.toml").read_text(encoding="utf-8").replace(
        'name = "P2 resolution (24x7)"', 'name = "7d2b3d9a1b2c3d4e5f60718293a4b5c6"'))
    j2 = new_journal(tmp_path, "by_id.jsonl")
    out = imported(run, j2, "servicenow", SN / "att36b_incident_raw.csv", SN / "att36b_task_sla_raw_sla_sysid.csv",
                   "--mode", "raw", "--map", by_id)
    assert next(f for f in out["files"] if f["file"] == "att36b_task_sla_raw_sla_sysid.csv")["imported"] == 2
    rows = {r["ticket"]: r for r in out["reconcile"]["tickets"]}
    assert rows["INC0020001"]["agree"] is True
    r = rows["INC0020002"]
    assert (r["vendor_hours"], r["vendor_business_hours"]) == (pytest.approx(26.0), pytest.approx(9.0))
    assert (r["ours_hours"], r["ours_business_hours"]) == (pytest.approx(26.0), pytest.approx(10.5))


def test_servicenow_display_labels_under_mode_raw_are_refused(run, tmp_path):
    """att36b finding 7. A field-name export holding display values (priority "2 - High", state
    "Resolved", times in the exporting user's New York time) given with --mode raw: a raw export
    writes choice codes (2, 6), so the labels show the times are local, not UTC. Reading them as
    UTC would put INC0030002's 16:00-18:00 EST restore at 16:00-18:00 UTC, 1.5 business hours of
    uk-office, where it truly ran 21:00-23:00 UTC, outside them. Refused: exit 2, nothing written,
    one line naming the row, the labels and --mode display as the fix.

    With --mode display --zone America/New_York, by hand (EST = UTC-5): INC0030001 09:00-13:00
    = 14:00-18:00 UTC, 4.0 h and 3.5 bh (14:00-17:30); INC0030002 16:00-18:00 = 21:00-23:00 UTC,
    2.0 h and 0.0 bh."""
    args = ("servicenow", SN / "att36b_incident_fieldnames_display_newyork.csv", "--severity-map",
            "1 - Critical=1,2 - High=2", "--map", SN / "att36b_check_map.toml")
    j = new_journal(tmp_path)
    line = refused(run, j, *args, "--mode", "raw")
    assert "INC0030001" in line and "'Resolved'" in line and "'2 - High'" in line
    assert "UTC" in line and "--mode display --zone" in line
    imported(run, j, *args, "--mode", "display", "--zone", "America/New_York")
    assert [(k, a) for k, a, _ in events_of(j, "servicenow:INC0030002")] == [  # 21:00 and 23:00 UTC
        ("incident.detected", "2026-03-04T16:00:00-05:00"), ("incident.restored", "2026-03-04T18:00:00-05:00")]
    t = per_ticket(j)
    assert t.loc["servicenow:INC0030001", "restore_business_hours_at_least"] == pytest.approx(3.5)
    assert t.loc["servicenow:INC0030002", "restore_hours_at_least"] == pytest.approx(2.0)
    assert t.loc["servicenow:INC0030002", "restore_business_hours_at_least"] == pytest.approx(0.0)


def test_a_workbook_whose_first_sheet_is_not_the_export_names_its_sheets(run, tmp_path):
    """att36b finding 9. A ServiceNow XLSX whose first sheet is a "Summary" (a title row and a
    count by priority) and whose export is on "Page 1". The first sheet is read, so its title is
    the header and the import is refused; the refusal names the sheet it read, the workbook's
    other sheet and --sheet as the fix, in every format that reads a workbook (ServiceNow, Jira,
    csv): reading tables is shared. Nothing is written.

    With --sheet "Page 1", by hand (display values, Europe/London = UTC in March): INC0040001
    opened 3/3 09:00, resolved 12:30, its Restore check names the canary: restored 12:30, 3.5 h;
    INC0040002 opened 4/3 10:00, resolved 11:00 with no check: resolved, not a confirmed restore.
    Two rows read, two imported."""
    book, label_map = TAB / "att36b_servicenow_list_summary_sheet_first.xlsx", TAB / "att36b_servicenow_label_map.toml"
    j = new_journal(tmp_path)
    csv_map = write(tmp_path, "m.toml", '[columns]\nid = "Number"\nopened = "Opened"\n'
                                        '[times]\ntimezone = "Europe/London"\n')
    for args in (("servicenow", book, "--mode", "display", "--zone", "Europe/London", "--map", label_map),
                 ("jira", book, "--zone", "Europe/London", "--severity-map", "High=2"),
                 ("csv", book, "--map", csv_map)):
        line = refused(run, j, *args)
        assert "the sheet read was 'Summary' (the first of the workbook's 2)" in line, args[0]
        assert "the workbook has 'Page 1' too" in line and "--sheet NAME" in line, args[0]
    out = imported(run, j, "servicenow", book, "--sheet", "Page 1", "--mode", "display", "--zone", "Europe/London",
                   "--map", label_map)
    assert (out["files"][0]["read"], out["files"][0]["imported"]) == (2, 2)
    assert out["exports"][0]["read_as"]["sheet_names"] == ["Summary", "Page 1"]
    t = per_ticket(j)
    assert t.loc["servicenow:INC0040001", "restore_hours_at_least"] == pytest.approx(3.5)
    assert t.loc["servicenow:INC0040002", "status"] == "unconfirmed"

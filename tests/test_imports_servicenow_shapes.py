"""day60 import servicenow on the other shapes ServiceNow writes an incident export in: label
headers (CSV and XLSX), the JSON answers (JSONv2 ``records``, Table API ``result``; raw, display
and both) and the incident event log.

Every export here is SYNTHETIC (invented tickets) in the real shape, except the two UCI event-log
excerpts, which are real data under CC BY 4.0 (tests/data/imports/servicenow/*.source.txt).
Shapes, as research36 SHAPES.md records them:
- label CSV: ServiceNow docs, system-properties-display-value-header (column_header_label);
  every field double-quoted as the real exports in priya-roy/snow-assignment-group-predict@73e7c01
  are; the user date format MM-dd-yyyy HH:mm:ss of gastonstec/gtim-etl-inc@7d5e8e2;
- XLSX: 123-Destiny/Predictive-Intelligence@4851b99 (label header row, date cells as numbers with
  a yyyy-MM-dd HH:mm:ss format);
- JSON: the Table API answer of syndicalt/sn-scripts@4997874 and demisto/content (every scalar a
  string, references {link, value}, dates UTC); JSONv2 per ServiceNow's c_DataRetrievalAPI.md;
- event log: UCI dataset 498 (header, D/M/YYYY HH:MM, ``?`` for missing, a row per update).

Field meanings (ServiceNow docs): opened_at is the opening; resolved_at the last resolution;
closed_at the closure; state 6 Resolved, 7 Closed, 8 Canceled, 2 In Progress; a raw value is UTC,
a display value is in the exporting user's zone.
"""

import datetime as dt
import json
from pathlib import Path

import pytest

from tests.builders import make_journal
from tests.imports_common import events_of, imported, new_journal, per_ticket, refused, write

DATA = Path(__file__).parent / "data" / "imports" / "servicenow"
SEVERITY = "1 - Critical=1,2 - High=2,3 - Moderate=3,4 - Low=4,1=1,2=2,3=3,4=4"

LABELS = """\
"Number","Opened","Short description","Caller","Priority","State","Assignment group","Resolved","Closed",\
"Restored (monitoring)","Restore check","Task type","Updated"
"INC0030001","03-03-2026 10:15:00","SYNTHETIC claims queue stalled","SYNTHETIC caller","1 - Critical","Resolved",\
"SYNTHETIC ops","03-03-2026 12:00:00","","03-03-2026 12:45:00","SYNTHETIC canary three runs","Incident",\
"03-03-2026 12:45:00"
"INC0030002","03-04-2026 08:00:00","SYNTHETIC closed with no times","SYNTHETIC caller","2 - High","Closed",\
"SYNTHETIC ops","","","","","Incident","03-05-2026 08:00:00"
"INC0030003","03-04-2026 08:30:00","SYNTHETIC raised twice","SYNTHETIC caller","3 - Moderate","Canceled",\
"SYNTHETIC ops","","03-04-2026 09:00:00","","","Incident","03-04-2026 09:00:00"
"INC0030004","03-05-2026 16:00:00","SYNTHETIC still open","SYNTHETIC caller","4 - Low","In Progress",\
"SYNTHETIC ops","","","","","Incident","03-05-2026 16:30:00"
"CHG0040001","03-05-2026 09:00:00","SYNTHETIC a change in a task list","SYNTHETIC caller","4 - Low","New",\
"SYNTHETIC ops","","","","","Change Request","03-05-2026 09:00:00"
"""
LABEL_MAP = """\
[columns]
restored = "Restored (monitoring)"
check = "Restore check"
"""


def test_label_headers_csv(run, tmp_path):
    """A display-value CSV exported with column labels, the user in New York (EST, UTC-5 until
    8 March 2026), dates MM-dd-yyyy:

    - INC0030001: opened 10:15 EST = 15:15 UTC; the monitoring confirmed the restore at 12:45 EST =
      17:45 UTC: from the opening (standing in for a detection) 2.5 h; Resolved 12:00 EST is its
      closure as the vendor records it (17:00 UTC);
    - INC0030002: Closed, no Resolved, no Closed: over at a time not evidenced, dated at its opening
      08:00 EST = 13:00 UTC, resolved (Closed is over after a resolution);
    - INC0030003: Canceled, Closed 09:00 EST = 14:00 UTC: over with no resolution;
    - INC0030004: In Progress: open;
    - CHG0040001: Task type "Change Request" is no incident: counted apart.
    Five rows read: four imported, one skipped.
    """
    j = new_journal(tmp_path)
    out = imported(run, j, "servicenow", write(tmp_path, "incident_labels.csv", LABELS), "--mode", "display",
                   "--zone", "America/New_York", "--date-format", "%m-%d-%Y %H:%M:%S", "--severity-map", SEVERITY,
                   "--map", write(tmp_path, "map.toml", LABEL_MAP))
    assert out["files"][0]["read"] == 5 and out["files"][0]["imported"] == 4 and out["files"][0]["skipped"] == 1
    assert [s["ticket"] for s in out["skipped"]] == ["CHG0040001"]
    t = per_ticket(j)
    assert t.loc["servicenow:INC0030001", "restore_hours_at_least"] == pytest.approx(2.5)
    first = events_of(j, "servicenow:INC0030001")
    assert ("incident.detected", "2026-03-03T10:15:00-05:00") in [(k, a) for k, a, _ in first]
    assert ("incident.ticket-closed", "2026-03-03T12:00:00-05:00") in [(k, a) for k, a, _ in first]
    second = [e for e in events_of(j, "servicenow:INC0030002") if e[0] == "incident.ticket-closed"]
    assert second == [("incident.ticket-closed", "2026-03-04T08:00:00-05:00",
                       {**second[0][2], "instant": "not-evidenced", "resolved": True})]
    third = [e for e in events_of(j, "servicenow:INC0030003") if e[0] == "incident.ticket-closed"]
    assert third[0][1] == "2026-03-04T09:00:00-05:00" and third[0][2]["resolved"] is False
    assert [k for k, _, _ in events_of(j, "servicenow:INC0030004")] == ["incident.detected"]
    assert any("label headers read as ServiceNow's field names" in n["note"] for n in out["findings"]["notes"])


def test_label_headers_xlsx(run, tmp_path):
    """The Excel export: label headers, date cells numbers formatted yyyy-MM-dd HH:mm:ss, written in
    the user's zone (London, UTC in early March). INC0030021 opened 09:00, resolved 11:30 with no
    monitoring evidence: its closure at 11:30+00:00; INC0030022 In Progress: open."""
    from openpyxl import Workbook

    wb = Workbook()
    ws = wb.active
    ws.title = "Page 1"
    ws.append(["Number", "Opened", "Short description", "Priority", "State", "Resolved", "Updated"])
    rows = [("INC0030021", dt.datetime(2026, 3, 4, 9), "SYNTHETIC", "2 - High", "Resolved",
             dt.datetime(2026, 3, 4, 11, 30), dt.datetime(2026, 3, 4, 11, 30)),
            ("INC0030022", dt.datetime(2026, 3, 4, 10), "SYNTHETIC", "3 - Moderate", "In Progress", None,
             dt.datetime(2026, 3, 4, 10))]
    for row in rows:
        ws.append(list(row))
    for col in ("B", "F", "G"):
        for cell in ws[col][1:]:
            cell.number_format = "yyyy-mm-dd hh:mm:ss"
    path = tmp_path / "incident.xlsx"
    wb.save(path)
    j = new_journal(tmp_path)
    out = imported(run, j, "servicenow", path, "--mode", "display", "--zone", "Europe/London",
                   "--severity-map", SEVERITY)
    assert out["files"][0]["read"] == 2 and out["files"][0]["imported"] == 2
    closed = [e for e in events_of(j, "servicenow:INC0030021") if e[0] == "incident.ticket-closed"]
    assert closed[0][1] == "2026-03-04T11:30:00+00:00"
    assert [k for k, _, _ in events_of(j, "servicenow:INC0030022")] == ["incident.detected"]


def _ref(table: str, sys_id: str) -> dict:
    return {"link": f"https://example.service-now.com/api/now/table/{table}/{sys_id}", "value": sys_id}


def _record(number: str, state: str, opened: str, resolved: str, updated: str, **more) -> dict:
    return {"number": number, "sys_id": f"sid{number[-4:]}", "sys_class_name": "incident", "priority": "2",
            "state": state, "incident_state": state, "active": "false" if state in ("6", "7", "8") else "true",
            "opened_at": opened, "resolved_at": resolved, "closed_at": "", "reopen_count": "0",
            "assignment_group": _ref("sys_user_group", "287ebd7da9fe198100f92cc8d1d2154e"),
            "short_description": "SYNTHETIC", "sys_updated_on": updated, **more}


def test_table_api_pages_overlapping(run, tmp_path):
    """Two Table API pages (raw: UTC, codes) taken by offset while a ticket changed: INC0030011 is
    In Progress (2) on page 1, updated 10:00, and Resolved (6) on page 2, updated 12:00 with
    resolved_at 12:00. The later copy is the ticket: closed (resolved, no monitoring evidence) at
    12:00 UTC; the earlier copy is counted skipped on page 1, never dropped. INC0030012 (6,
    resolved 11:00) and INC0030013 (7 Closed, no resolved_at or closed_at: not evidenced). Page 1
    reads 2 (1 imported, 1 skipped), page 2 reads 2 (2 imported)."""
    one = {"result": [_record("INC0030011", "2", "2026-03-05 09:00:00", "", "2026-03-05 10:00:00"),
                      _record("INC0030012", "6", "2026-03-05 09:30:00", "2026-03-05 11:00:00",
                              "2026-03-05 11:00:00")]}
    two = {"result": [_record("INC0030011", "6", "2026-03-05 09:00:00", "2026-03-05 12:00:00",
                              "2026-03-05 12:00:00"),
                      _record("INC0030013", "7", "2026-03-05 08:00:00", "", "2026-03-06 08:00:00")]}
    j = new_journal(tmp_path)
    out = imported(run, j, "servicenow", write(tmp_path, "page1.json", json.dumps(one, indent=2)),
                   write(tmp_path, "page2.json", json.dumps(two, indent=2)), "--mode", "raw",
                   "--severity-map", SEVERITY)
    files = {f["file"]: f for f in out["files"]}
    assert (files["page1.json"]["read"], files["page1.json"]["imported"], files["page1.json"]["skipped"]) == (2, 1, 1)
    assert (files["page2.json"]["read"], files["page2.json"]["imported"]) == (2, 2)
    closed = [e for e in events_of(j, "servicenow:INC0030011") if e[0] == "incident.ticket-closed"]
    assert [(a, d["resolved"]) for _, a, d in closed] == [("2026-03-05T12:00:00+00:00", True)]
    untimed = [e for e in events_of(j, "servicenow:INC0030013") if e[0] == "incident.ticket-closed"]
    assert untimed[0][2]["instant"] == "not-evidenced"


def test_display_value_all_and_jsonv2_dv(run, tmp_path):
    """``sysparm_display_value=all``: each field a {display_value, value} pair. --mode raw reads
    the value (UTC, codes: opened 09:00 UTC, resolved 10:30 UTC, priority 1); --mode display reads
    the display value (a user in Berlin, UTC+1: 10:00 and 11:30 local, "1 - Critical"). Either way
    the closure is 10:30 UTC. JSONv2 with displayvalue=all writes dv_FIELD beside FIELD: read the same."""
    def pair(display: str, value: str) -> dict:
        return {"display_value": display, "value": value}

    answer = {"result": [{"number": pair("INC0030031", "INC0030031"), "sys_class_name": pair("Incident", "incident"),
                          "priority": pair("1 - Critical", "1"), "state": pair("Resolved", "6"),
                          "opened_at": pair("2026-03-06 10:00:00", "2026-03-06 09:00:00"),
                          "resolved_at": pair("2026-03-06 11:30:00", "2026-03-06 10:30:00"),
                          "calendar_stc": pair("5,400", "5400")}]}
    v2 = {"records": [{"number": "INC0030031", "sys_class_name": "incident", "priority": "1",
                       "dv_priority": "1 - Critical", "state": "6", "dv_state": "Resolved",
                       "opened_at": "2026-03-06 09:00:00", "dv_opened_at": "2026-03-06 10:00:00",
                       "resolved_at": "2026-03-06 10:30:00", "dv_resolved_at": "2026-03-06 11:30:00"}]}
    for name, doc in (("all.json", answer), ("v2.json", v2)):
        for mode in (("--mode", "raw"), ("--mode", "display", "--zone", "Europe/Berlin")):
            j = new_journal(tmp_path, f"{name}-{mode[1]}.jsonl")
            imported(run, j, "servicenow", write(tmp_path, name, json.dumps(doc)), *mode, "--severity-map", SEVERITY)
            closed = [e for e in events_of(j, "servicenow:INC0030031") if e[0] == "incident.ticket-closed"]
            at = dt.datetime.fromisoformat(closed[0][1])
            assert at == dt.datetime(2026, 3, 6, 10, 30, tzinfo=dt.UTC), (name, mode)


UCI_HEADER = ("number,incident_state,active,reassignment_count,reopen_count,sys_mod_count,made_sla,caller_id,"
              "opened_by,opened_at,sys_created_by,sys_created_at,sys_updated_by,sys_updated_at,contact_type,location,"
              "category,subcategory,u_symptom,cmdb_ci,impact,urgency,priority,assignment_group,assigned_to,knowledge,"
              "u_priority_confirmation,notify,problem_id,rfc,vendor,caused_by,closed_code,resolved_by,resolved_at,"
              "closed_at")


def _uci(number: str, state: str, reopens: int, mods: int, updated: str, resolved: str, closed: str) -> str:
    active = "false" if state == "Closed" else "true"
    return (f"{number},{state},{active},0,{reopens},{mods},true,Caller 1,Opened by  1,2/3/2026 09:00,Created by 1,"
            f"2/3/2026 09:00,Updated by 1,{updated},Phone,Location 1,Category 1,Subcategory 1,Symptom 1,?,"
            f"2 - Medium,2 - Medium,3 - Moderate,Group 1,?,true,false,Do Not Notify,?,?,?,?,code 1,Resolved by 1,"
            f"{resolved},{closed}")


EVENT_LOG = "\r\n".join([UCI_HEADER,
                         _uci("INC0000900", "New", 0, 0, "2/3/2026 09:10", "2/3/2026 14:00", "7/3/2026 14:00"),
                         _uci("INC0000900", "Active", 0, 2, "2/3/2026 11:00", "2/3/2026 14:00", "7/3/2026 14:00"),
                         _uci("INC0000900", "Awaiting User Info", 0, 1, "2/3/2026 10:00", "2/3/2026 14:00",
                              "7/3/2026 14:00"),
                         _uci("INC0000900", "Resolved", 0, 3, "2/3/2026 12:00", "2/3/2026 14:00", "7/3/2026 14:00"),
                         _uci("INC0000900", "Active", 1, 4, "2/3/2026 13:00", "2/3/2026 14:00", "7/3/2026 14:00"),
                         _uci("INC0000900", "Resolved", 1, 5, "2/3/2026 14:00", "2/3/2026 14:00", "7/3/2026 14:00"),
                         _uci("INC0000900", "Closed", 1, 6, "7/3/2026 14:00", "2/3/2026 14:00", "7/3/2026 14:00"),
                         _uci("INC0000901", "Closed", 0, 3, "6/3/2026 10:00", "?", "6/3/2026 10:00"), ""])


def test_event_log_history_is_the_ticket(run, tmp_path):
    """The event log (UCI shape: a row per update, D/M/YYYY HH:MM, ? for missing, CRLF), read in
    London (UTC in early March). INC0000900's seven rows, ordered by sys_mod_count (the file has
    mods 1 and 2 swapped): New 09:10, Awaiting User Info 10:00, Active 11:00, Resolved 12:00,
    Active again 13:00 (reopen_count 1), Resolved 14:00, Closed 7 March. Read so:
    - opened_at 09:00 stands in for the detection;
    - Awaiting User Info (the caller's turn, as Awaiting Caller) 10:00 to 11:00: a wait on the
      partner of 1.0 h;
    - resolved at 12:00, re-opened at 13:00 (Resolved to In Progress), resolved at 14:00 (resolved_at,
      the last resolution, as every row repeats it);
    - no monitoring evidence: closures, no restore figure.
    INC0000901: one row, Closed, resolved_at ? (missing): the log shows it over (Closed counts as
    resolved) from that row's own update, 6/3 10:00, so resolved then. Eight rows read, all
    imported (six of them INC0000900's history).
    """
    j = new_journal(tmp_path)
    path = tmp_path / "incident_event_log.csv"
    path.write_bytes(EVENT_LOG.encode("ascii"))
    out = imported(run, j, "servicenow", path, "--mode", "display", "--zone", "Europe/London",
                   "--date-format", "%d/%m/%Y %H:%M", "--severity-map", "3 - Moderate=3")
    assert (out["files"][0]["read"], out["files"][0]["imported"]) == (8, 8)
    got = [(k, a) for k, a, _ in events_of(j, "servicenow:INC0000900")]
    assert got == [("incident.detected", "2026-03-02T09:00:00+00:00"),
                   ("incident.wait-start", "2026-03-02T10:00:00+00:00"),
                   ("incident.wait-end", "2026-03-02T11:00:00+00:00"),
                   ("incident.ticket-closed", "2026-03-02T12:00:00+00:00"),
                   ("incident.reopened", "2026-03-02T13:00:00+00:00"),
                   ("incident.ticket-closed", "2026-03-02T14:00:00+00:00")]
    closed = [e for e in events_of(j, "servicenow:INC0000901") if e[0] == "incident.ticket-closed"]
    assert closed[0][1] == "2026-03-06T10:00:00+00:00" and closed[0][2]["resolved"] is True


@pytest.mark.parametrize("name, fmt", [("uci_incident_event_log_excerpt.csv", "%d/%m/%Y %H:%M"),
                                       ("uci_incident_event_log_excel_resaved_excerpt.csv", "%d-%m-%Y %H:%M")])
def test_real_uci_event_log(run, tmp_path, name, fmt):
    """The real UCI event log (CC BY 4.0; see the .source.txt), in its original and its re-saved
    form. Worked from the rows themselves (times as written, the zone stated as UTC):
    - INC0000045 (original): New, Resolved at 08:53 (mod 2), Resolved (mod 3, 11:29), Closed: no
      re-open; resolved_at 29/2/2016 11:29 is its closure;
    - INC0000093: Resolved already in its first row (mod 0, updated 29/2/2016 08:56), then Closed,
      with resolved_at ?: resolved at that first row's update, 29/2/2016 08:56, as a later row's
      change of state would be;
    - INC0000102 (re-saved): Awaiting User Info 29/2 20:09 to Active 3/3 17:29, and 7/3 11:50 to
      Resolved 14/3 08:13: two waits on the caller; re-opened 17/3 16:27 (Active, reopen_count 1);
      resolved 17/3 16:28 (resolved_at, the last resolution); closed 24/3.
    Every row is read and imported: 6 rows in the original excerpt, 19 in the re-saved one."""
    j = make_journal(tmp_path / "j.jsonl", [], tier="T2", window=("2016-02-29T00:00", "2016-03-31T17:00"),
                     synthetic=True)
    out = imported(run, j, "servicenow", DATA / name, "--mode", "display", "--zone", "UTC", "--date-format", fmt,
                   "--severity-map", "3 - Moderate=3,2 - High=2,4 - Low=4,1 - Critical=1")
    rows = {"uci_incident_event_log_excerpt.csv": 6}.get(name, 19)
    assert (out["files"][0]["read"], out["files"][0]["imported"]) == (rows, rows)
    if name.startswith("uci_incident_event_log_excerpt"):
        closed = [e for e in events_of(j, "servicenow:INC0000045") if e[0] == "incident.ticket-closed"]
        assert [a for _, a, _ in closed] == ["2016-02-29T11:29:00+00:00"]
        other = [e for e in events_of(j, "servicenow:INC0000093") if e[0] == "incident.ticket-closed"]
        assert other[0][1] == "2016-02-29T08:56:00+00:00" and other[0][2]["resolved"] is True
    else:
        got = [(k, a) for k, a, _ in events_of(j, "servicenow:INC0000102")]
        assert got == [("incident.detected", "2016-02-29T09:06:00+00:00"),
                       ("incident.wait-start", "2016-02-29T20:09:00+00:00"),
                       ("incident.wait-end", "2016-03-03T17:29:00+00:00"),
                       ("incident.wait-start", "2016-03-07T11:50:00+00:00"),
                       ("incident.wait-end", "2016-03-14T08:13:00+00:00"),
                       ("incident.ticket-closed", "2016-03-14T08:13:00+00:00"),
                       ("incident.reopened", "2016-03-17T16:27:00+00:00"),
                       ("incident.ticket-closed", "2016-03-17T16:28:00+00:00")]


def test_shapes_refused_in_one_line(run, tmp_path):
    """A JSON file with no records list, a truncated answer, and an event log given with another
    table: each refused in one line, nothing written."""
    j = new_journal(tmp_path)
    err = refused(run, j, "servicenow", write(tmp_path, "other.json", '{"incidents": []}'), "--mode", "raw",
                  "--severity-map", SEVERITY)
    assert "'records'" in err and "'result'" in err and "incidents" in err
    err = refused(run, j, "servicenow", write(tmp_path, "cut.json", '{"result": [{"number": "INC1", "sta'),
                  "--mode", "raw", "--severity-map", SEVERITY)
    assert "is not JSON" in err and "Traceback" not in err
    log = tmp_path / "log.csv"
    log.write_bytes(EVENT_LOG.encode("ascii"))
    err = refused(run, j, "servicenow", log, write(tmp_path, "incident.csv", LABELS), "--mode", "display", "--zone",
                  "UTC", "--date-format", "%d/%m/%Y %H:%M", "--severity-map", SEVERITY)
    assert "event log" in err

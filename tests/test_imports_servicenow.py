"""day60 import servicenow on a SYNTHETIC export set covering every clock fact of charter 3.19.

The files use ServiceNow's own table and column names (incident, sys_audit, change_request,
task_sla, sys_journal_field) and its raw value codes (incident state 6 Resolved, 8 Canceled;
change approval "approved"); the tickets are invented. Raw export: every time is UTC.
"""

import pytest

from tests.imports_common import (
    check_scenario,
    imported,
    new_journal,
    refused,
    reimport_adds_nothing,
    write,
)

INCIDENTS = """\
number,sys_id,short_description,opened_at,resolved_at,closed_at,priority,state,close_code,calendar_stc,business_stc,\
reopen_count,rfc,u_detected_at,u_partner_notice,u_restored_at,u_restore_check
INC0020001,s01,SYNTHETIC caller cancelled,2026-03-02 10:00:00,,2026-03-02 11:00:00,4,8,,,,0,,,,,
INC0020002,s02,SYNTHETIC restore confirmed after resolution,2026-03-02 09:00:00,2026-03-02 10:00:00,,1,6,\
Solution provided,3600,3600,0,,,,2026-03-02 11:30:00,SYNTHETIC intake canary three runs
INC0020003,s03,SYNTHETIC re-opened once,2026-03-03 09:00:00,2026-03-03 12:00:00,,1,6,Solution provided,10800,10800,\
1,,,,2026-03-03 12:00:00,SYNTHETIC intake canary
INC0020004,s04,SYNTHETIC detected before the ticket,2026-03-03 14:00:00,2026-03-03 15:00:00,,2,6,Solution provided,\
3600,3600,0,,2026-03-03 13:00:00,,2026-03-03 15:00:00,SYNTHETIC latency monitor
INC0020005,s05,SYNTHETIC partner notice only,2026-03-04 10:00:00,2026-03-04 11:00:00,,2,6,Solution provided,3600,\
3600,0,c02,,2026-03-04 09:30:00,2026-03-04 11:00:00,SYNTHETIC latency monitor
INC0020006,s06,SYNTHETIC fixed under a change,2026-03-04 13:00:00,2026-03-04 16:00:00,,3,6,Solution provided,10800,\
10800,0,c01,,,2026-03-04 16:00:00,SYNTHETIC queue monitor
INC0020007,s07,SYNTHETIC waited on the client,2026-03-05 09:00:00,2026-03-05 12:00:00,,3,6,Solution provided,,,0,,,,\
2026-03-05 12:00:00,SYNTHETIC queue monitor
INC0020008,s08,SYNTHETIC partner's own system,2026-03-05 13:00:00,2026-03-05 14:00:00,,4,6,Resolved by caller,3600,\
3600,0,,,,2026-03-05 14:00:00,SYNTHETIC queue monitor
"""
AUDIT = """\
sys_id,tablename,documentkey,fieldname,oldvalue,newvalue,sys_created_on,user
a1,incident,s03,state,1,2,2026-03-03 09:05:00,synthetic.agent
a2,incident,s03,state,2,6,2026-03-03 10:00:00,synthetic.agent
a3,incident,s03,state,6,2,2026-03-03 11:00:00,synthetic.caller
a4,incident,s03,state,2,6,2026-03-03 12:00:00,synthetic.agent
"""
CHANGES = """\
number,sys_id,short_description,type,state,approval,start_date,end_date,work_start,work_end
CHG0030001,c01,SYNTHETIC queue fix,normal,3,approved,2026-03-04 14:00:00,2026-03-04 15:00:00,2026-03-04 14:05:00,\
2026-03-04 14:50:00
CHG0030002,c02,SYNTHETIC rejected change,normal,4,rejected,2026-03-04 10:15:00,2026-03-04 10:45:00,,
"""
TASK_SLA = """\
task,sla,stage,has_breached,start_time,end_time,duration,business_duration,pause_duration,business_pause_duration,\
schedule
s07,SYNTHETIC P3 resolution (8 hours),completed,false,2026-03-05 09:00:00,2026-03-05 12:00:00,1970-01-01 03:00:00,\
1970-01-01 03:00:00,1970-01-01 00:00:00,1970-01-01 00:00:00,SYNTHETIC 8-5 weekdays
s07,SYNTHETIC P3 response (1 hour),completed,false,2026-03-05 09:00:00,2026-03-05 09:20:00,1970-01-01 00:20:00,\
1970-01-01 00:20:00,1970-01-01 00:00:00,1970-01-01 00:00:00,SYNTHETIC 8-5 weekdays
"""
NOTES = """\
sys_id,name,element,element_id,value,sys_created_on,sys_created_by
n1,incident,work_notes,s07,SYNTHETIC waiting on client for the failing batch,2026-03-05 10:00:00,synthetic.agent
n2,incident,comments,s07,"SYNTHETIC client replied, batch attached",2026-03-05 11:00:00,synthetic.caller
n3,incident,work_notes,s02,SYNTHETIC nothing the runbook reads,2026-03-02 09:30:00,synthetic.agent
"""
MAP = """\
# SYNTHETIC: this deal's ServiceNow fields and conventions.
[columns]
detected = "u_detected_at"
partner_notice = "u_partner_notice"
restored = "u_restored_at"
check = "u_restore_check"

[outcomes]
"Canceled" = "withdrawn"
"Not Solved (Not Reproducible)" = "withdrawn"
"Resolved by caller" = "excluded: Retainer Schedule clause 10.2 (the partner's own system; SYNTHETIC)"

[notes]
wait-start = "(?i)waiting on (the )?client"
wait-end = "(?i)client replied"

[sla]
name = "SYNTHETIC P3 resolution (8 hours)"

[severity]
"1" = 1
"2" = 2
"3" = 3
"4" = 4
"""
IDS = {k: f"INC002000{n}" for k, n in (("A", 1), ("B", 2), ("C", 3), ("D", 4), ("E", 5), ("F", 6), ("G", 7),
                                        ("K", 8))}


@pytest.fixture
def export(tmp_path):
    return [write(tmp_path, "incident.csv", INCIDENTS), write(tmp_path, "sys_audit.csv", AUDIT),
            write(tmp_path, "change_request.csv", CHANGES), write(tmp_path, "task_sla.csv", TASK_SLA),
            write(tmp_path, "sys_journal_field.csv", NOTES)]


def test_every_clock_fact(run, tmp_path, export):
    """The seven tickets of ``check_scenario``, from ServiceNow's own fields:

    - INC0020001 state 8 (Canceled) and INC0020008 close_code "Resolved by caller" are named in
      [outcomes]: withdrawn with "state 'Canceled'" as its reason, excluded with the contract's;
    - INC0020002: u_restored_at 11:30 is after resolved_at 10:00: 2.5 h;
    - INC0020003: sys_audit shows Resolved at 10:00 and back to In Progress at 11:00, the final
      restore at 12:00: 3.0 h, one re-open (reopen_count 1 agrees);
    - INC0020004: u_detected_at 13:00 before opened_at 14:00: 2.0 h;
    - INC0020005: only u_partner_notice 09:30: 1.5 h; its rfc CHG0030002 was rejected, so its window
      10:15-10:45 is not excluded;
    - INC0020006: rfc CHG0030001, approved, planned 14:00-15:00 (the planned window, not the work
      times 14:05-14:50): 3 - 1 = 2.0 h;
    - INC0020007: work notes at 10:00 ("waiting on client") and 11:00 ("client replied"): 2.0 h.
    """
    j = new_journal(tmp_path)
    args = ("servicenow", *export, "--mode", "raw", "--map", write(tmp_path, "map.toml", MAP))
    out = imported(run, j, *args)
    assert out["unreadable"] == [] and len(out["imported"]) == 8
    check_scenario(run, j, "servicenow", IDS)
    f = out["findings"]
    assert f["withdrawn"] == [{"ticket": "INC0020001", "reason": "ServiceNow state 'Canceled'"}]
    assert f["excluded"][0]["reason"].startswith("Retainer Schedule clause 10.2")
    assert "close_code 'Resolved by caller'" in f["excluded"][0]["reason"]
    assert [(x["ticket"], x["reopens"], x["vendor_count"]) for x in f["reopened"]] == [("INC0020003", 1, 1)]
    assert any(x["ticket"] == "INC0020003" and "re-opened 1 time(s)" in x["why"] for x in f["distorted"])
    assert "INC0020005" in f["clock_from_notice"]
    assert any("CHG0030002 is not approved" in n["note"] for n in f["notes"] if n["ticket"] == "INC0020005")
    assert {p["event"]: p["matched"] for p in out["note_patterns"]} == {"wait-start": 1, "wait-end": 1}
    reimport_adds_nothing(run, j, *args)


def test_reconciliation_on_the_vendors_clock(run, tmp_path, export):
    """Ours beside ServiceNow's own figures, each difference taken apart.

    calendar_stc/business_stc run from opened_at to resolved_at, unpaused:
    - INC0020002: theirs 3600 s = 1.0 h, ours 2.5 h: +1.5 h, all of it the end (our clock runs to
      the confirmed restore at 11:30, theirs to the resolution at 10:00);
    - INC0020003: theirs 10800 s = 3.0 h (09:00 to the last resolution 12:00), ours 3.0 h: agree,
      though it was re-opened: equal figures never read as a difference;
    - INC0020004: theirs 1.0 h, ours 2.0 h: the start, 1.0 h (detection 13:00, opening 14:00);
    - INC0020005: theirs 1.0 h, ours 1.5 h: the start, 0.5 h (notice 09:30, opening 10:00);
    - INC0020006: theirs 10800 s = 3.0 h, ours 2.0 h: -1.0 h, the change window ours excludes.
    task_sla (the [sla] name picks the resolution SLA of the two):
    - INC0020007: duration 3 h (09:00-12:00, paused 0), ours 2.0 h: -1.0 h, the wait on the client.
    INC0020008 is excluded, so it has no figure of ours to compare.
    """
    j = new_journal(tmp_path)
    out = imported(run, j, "servicenow", *export, "--mode", "raw", "--map", write(tmp_path, "map.toml", MAP))
    rec = out["reconcile"]
    rows = {r["ticket"]: r for r in rec["tickets"]}
    assert (rec["compared"], rec["agree"], rec["differ"], rec["not_compared"]) == (6, 1, 5, 1)
    assert rows["INC0020003"]["agree"] is True and rows["INC0020003"]["reasons"] == []
    assert rows["INC0020002"]["difference_hours"] == pytest.approx(1.5)
    assert rows["INC0020002"]["reasons"] == [
        "our clock ends at the monitoring-confirmed restore (charter 3.19.4), 1.50 h after the vendor's stopped "
        "(2026-03-02T10:00:00+00:00)"]
    assert rows["INC0020004"]["reasons"][0].startswith("our clock starts at the earlier of the supplier's detection")
    assert "1.00 h before the vendor's clock started" in rows["INC0020004"]["reasons"][0]
    assert "0.50 h before" in rows["INC0020005"]["reasons"][0]
    assert rows["INC0020006"]["difference_hours"] == pytest.approx(-1.0)
    assert "agreed change windows 1.00 h" in rows["INC0020006"]["reasons"][0]
    g = rows["INC0020007"]
    assert g["vendor_measure"].startswith("ServiceNow task_sla 'SYNTHETIC P3 resolution (8 hours)'")
    assert (g["vendor_hours"], g["ours_hours"]) == (pytest.approx(3.0), pytest.approx(2.0))
    assert "waits on you 1.00 h" in g["reasons"][0]
    assert rows["INC0020008"]["agree"] is None and "excluded" in rows["INC0020008"]["note"]
    assert all(not any("not explained" in reason for reason in r["reasons"]) for r in rec["tickets"])


def test_two_slas_and_no_name_is_said_not_guessed(run, tmp_path, export):
    j = new_journal(tmp_path)
    m = write(tmp_path, "map2.toml", MAP.replace('[sla]\nname = "SYNTHETIC P3 resolution (8 hours)"\n', ""))
    out = imported(run, j, "servicenow", *export, "--mode", "raw", "--map", m)
    notes = [n["note"] for n in out["findings"]["notes"] if n["ticket"] == "INC0020007"]
    assert any("2 task_sla records" in n and "[sla] name" in n for n in notes)
    rows = {r["ticket"]: r for r in out["reconcile"]["tickets"]}
    assert "INC0020007" not in rows  # no vendor clock of its own: nothing compared, and said so


def test_duplicate_number_is_refused(run, tmp_path):
    j = new_journal(tmp_path)
    lines = INCIDENTS.splitlines()
    export = write(tmp_path, "incident.csv", "\n".join([*lines, lines[2]]) + "\n")
    line = refused(run, j, "servicenow", export, "--mode", "raw", "--map", write(tmp_path, "map.toml", MAP))
    assert "1 ticket id(s) appear more than once: 'INC0020002'" in line


def test_stray_quote_is_refused_naming_the_line(run, tmp_path):
    """A quote opened in row 3 and never closed would swallow every row after it."""
    j = new_journal(tmp_path)
    lines = INCIDENTS.splitlines()
    lines[3] = lines[3].replace("SYNTHETIC re-opened once", '"SYNTHETIC re-opened once')
    export = write(tmp_path, "incident.csv", "\n".join(lines) + "\n")
    line = refused(run, j, "servicenow", export, "--mode", "raw", "--map", write(tmp_path, "map.toml", MAP))
    assert "quote opened" in line and "not closed" in line and "row 4" in line


def test_unknown_table_is_refused_by_name(run, tmp_path):
    j = new_journal(tmp_path)
    other = write(tmp_path, "problem.csv", "number,short_description,sys_id\nPRB1,SYNTHETIC,x\n")
    line = refused(run, j, "servicenow", write(tmp_path, "incident.csv", INCIDENTS), other, "--mode", "raw",
                   "--map", write(tmp_path, "map.toml", MAP))
    assert "problem.csv is not an export the servicenow format reads" in line
    for table in ("incident", "sys_audit", "change_request", "task_sla", "sys_journal_field"):
        assert table in line


def test_a_restore_column_without_its_check_is_refused(run, tmp_path):
    j = new_journal(tmp_path)
    m = write(tmp_path, "map3.toml", MAP.replace('check = "u_restore_check"\n', ""))
    line = refused(run, j, "servicenow", write(tmp_path, "incident.csv", INCIDENTS), "--mode", "raw", "--map", m)
    assert "--map columns.restored" in line and "no check column" in line


def test_a_key_the_format_does_not_read_is_refused(run, tmp_path):
    j = new_journal(tmp_path)
    m = write(tmp_path, "map4.toml", MAP.replace("[columns]\n", '[columns]\nrestore = "u_restored_at"\n'))
    line = refused(run, j, "servicenow", write(tmp_path, "incident.csv", INCIDENTS), "--mode", "raw", "--map", m)
    assert "--map columns.restore: is not a column the servicenow format reads" in line


def test_the_import_package_starts_duckdb_only_when_an_export_is_read():
    """Every command that reconciles (score, verify-report, comply...) imports day60.imports;
    the ServiceNow reader used to import DuckDB at the top, so each of those paid for starting it
    (about 60 ms of a cold run) without reading any export. A fresh process imports the package
    and lists, with ``python -X importtime``, every module it loaded."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    done = subprocess.run([sys.executable, "-X", "importtime", "-c", "import day60.imports, day60.assess"],
                          capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    imported = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines() if line.startswith("import")}
    assert "day60.imports.servicenow" in imported  # the list is really the modules
    assert "duckdb" not in imported

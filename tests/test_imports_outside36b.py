"""What an outside attack on ``day60 import`` (att36b: a BPO analyst with the docs and the vendors'
real export shapes) found in the ServiceNow, CSV and XLSX readers, each fixed and held here.

Every export is a hand-written SYNTHETIC file in a vendor's real shape: the attacker's own files,
copied byte for byte into tests/data/imports/ (each with a ``.source.txt`` naming the shape's
source), or written here in the same shape. Expected figures are worked by hand in each docstring.
The journal's window is 2026-03-02 09:00 to 2026-03-13 17:30, uk-office (London is UTC until 29
March 2026; weekdays 09:00-17:30).
"""

from pathlib import Path

from tests.imports_common import events_of, figures_json, imported, new_journal, write

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
    no time in any file read: closed, time not evidenced, dated at its opening 09:00."""
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

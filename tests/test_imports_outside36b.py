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

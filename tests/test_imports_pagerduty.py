"""day60 import pagerduty on a SYNTHETIC REST API export set covering every clock fact of
charter 3.19 that PagerDuty can carry.

PagerDuty's log entries (trigger_log_entry, acknowledge_log_entry, resolve_log_entry,
annotate_log_entry with its note in channel.summary) carry no field for waits, notices,
restores confirmed later or withdrawals: this deal writes them as notes, by a runbook
convention the map states as [notes] patterns. A trigger is always the supplier's detection, so
"partner notice only" is here a notice dated before the trigger.
"""

import json
from pathlib import Path

import pytest

from day60.imports import pagerduty
from tests.builders import make_journal
from tests.imports_common import (
    check_scenario,
    events_of,
    imported,
    new_journal,
    refused,
    reimport_adds_nothing,
    write,
)


def _entry(n, kind, incident, day, hm, agent="user_reference", channel="web_ui", note=None):
    e = {"id": f"RSYN{n:03d}", "type": kind, "created_at": f"2026-03-{day}T{hm}:00Z",
         "incident": {"id": incident, "type": "incident_reference"}, "agent": {"type": agent},
         "channel": {"type": channel}}
    if note is not None:
        e["channel"] = {"type": "note", "summary": note}
    return e


MON = "service_reference"
ENTRIES = {"log_entries": [
    _entry(1, "trigger_log_entry", "PA", "02", "10:00", MON, "api"),
    _entry(2, "annotate_log_entry", "PA", "02", "10:30", note="SYNTHETIC withdrawn: cannot reproduce"),
    _entry(3, "resolve_log_entry", "PA", "02", "11:00"),
    _entry(4, "trigger_log_entry", "PB", "02", "09:00", MON, "api"),
    _entry(5, "acknowledge_log_entry", "PB", "02", "09:05"),
    _entry(6, "resolve_log_entry", "PB", "02", "10:00"),
    _entry(7, "annotate_log_entry", "PB", "02", "11:30", note="SYNTHETIC monitoring confirmed restore: canary green"),
    _entry(8, "trigger_log_entry", "PC", "03", "09:00", MON, "api"),
    _entry(9, "acknowledge_log_entry", "PC", "03", "09:02"),
    _entry(10, "resolve_log_entry", "PC", "03", "10:00"),
    _entry(11, "annotate_log_entry", "PC", "03", "11:00", note="SYNTHETIC reopened: errors are back"),
    _entry(12, "annotate_log_entry", "PC", "03", "12:00", note="SYNTHETIC monitoring confirmed restore: canary green"),
    _entry(13, "trigger_log_entry", "PD", "03", "14:00", MON, "api"),
    _entry(14, "annotate_log_entry", "PD", "03", "14:10",
           note="SYNTHETIC first alert seen at 2026-03-03T13:00:00+00:00 on the standby monitor"),
    _entry(15, "resolve_log_entry", "PD", "03", "15:00", MON, "api"),
    _entry(16, "trigger_log_entry", "PE", "04", "10:00", MON, "api"),
    _entry(17, "annotate_log_entry", "PE", "04", "10:05",
           note="SYNTHETIC client reported it at 2026-03-04T09:30:00+00:00"),
    _entry(18, "resolve_log_entry", "PE", "04", "11:00", MON, "api"),
    _entry(19, "trigger_log_entry", "PF", "04", "13:00", MON, "api"),
    _entry(20, "annotate_log_entry", "PF", "04", "14:00", note="SYNTHETIC change window opened (CHG-9)"),
    _entry(21, "annotate_log_entry", "PF", "04", "15:00", note="SYNTHETIC change window closed"),
    _entry(22, "resolve_log_entry", "PF", "04", "16:00", MON, "api"),
    _entry(23, "trigger_log_entry", "PG", "05", "09:00", MON, "api"),
    _entry(24, "annotate_log_entry", "PG", "05", "10:00", note="SYNTHETIC waiting on client for logs"),
    _entry(25, "annotate_log_entry", "PG", "05", "11:00", note="SYNTHETIC client replied"),
    _entry(26, "resolve_log_entry", "PG", "05", "12:00", MON, "api"),
    _entry(27, "trigger_log_entry", "PK", "05", "13:00", MON, "api"),
    _entry(28, "annotate_log_entry", "PK", "05", "13:10",
           note="SYNTHETIC excluded: Retainer Schedule clause 10.2, the partner's maintenance"),
    _entry(29, "resolve_log_entry", "PK", "05", "14:00", MON, "api"),
]}
INCIDENTS = {"incidents": [{"id": i, "title": f"SYNTHETIC {i}", "urgency": "high", "priority": {"summary": p}}
                           for i, p in (("PA", "P4"), ("PB", "P1"), ("PC", "P1"), ("PD", "P2"), ("PE", "P2"),
                                        ("PF", "P3"), ("PG", "P3"), ("PK", "P4"))]}
MAP = """\
# SYNTHETIC: this deal's runbook convention for PagerDuty notes.
[notes]
detected = "first alert seen at (?P<at>\\\\S+)"
partner-notice = "client reported it at (?P<at>\\\\S+)"
wait-start = "(?i)waiting on (the )?client"
wait-end = "(?i)client replied"
change-window-start = "(?i)change window opened"
change-window-end = "(?i)change window closed"
restored = "(?i)monitoring confirmed restore"
reopened = "(?i)^SYNTHETIC reopened"
withdrawn = "(?i)withdrawn: cannot reproduce"
excluded = "excluded: (?P<reason>Retainer Schedule clause [0-9.]+)"

[severity]
P1 = 1
P2 = 2
P3 = 3
P4 = 4
"""
IDS = {k: f"P{k}" for k in "ABCDEFGK"}


@pytest.fixture
def export(tmp_path):
    return [write(tmp_path, "log_entries.json", json.dumps(ENTRIES)),
            write(tmp_path, "incidents.json", json.dumps(INCIDENTS))]


def test_every_clock_fact(run, tmp_path, export):
    """The seven tickets of ``check_scenario``, from PagerDuty's log and the deal's notes:

    - PA: a note "withdrawn: cannot reproduce" (withdrawn, the note its reason); PK: a note naming
      Retainer Schedule clause 10.2 (excluded, the clause its reason);
    - PB: resolved by a person at 10:00 (no monitoring evidence), the monitoring confirmed the
      restore in a note at 11:30: 2.5 h;
    - PC: resolved by a person 10:00, re-opened in a note 11:00, restore confirmed 12:00: 3.0 h;
    - PD: triggered 14:00, a note says the first alert was seen at 13:00: 2.0 h to the integration's
      resolve at 15:00;
    - PE: the client's report at 09:30, before the 10:00 trigger: 1.5 h;
    - PF: notes open and close a change window 14:00-15:00: 3 - 1 = 2.0 h;
    - PG: notes wait on the client 10:00-11:00: 2.0 h.
    """
    j = new_journal(tmp_path)
    args = ("pagerduty", *export, "--map", write(tmp_path, "map.toml", MAP))
    out = imported(run, j, *args)
    assert out["unreadable"] == [] and len(out["imported"]) == 8
    check_scenario(run, j, "pagerduty", IDS, notice_only=False)
    f = out["findings"]
    assert f["withdrawn"] == [{"ticket": "PA", "reason": "a note: SYNTHETIC withdrawn: cannot reproduce"}]
    assert f["excluded"] == [{"ticket": "PK", "reason": "a note: Retainer Schedule clause 10.2"}]
    distorted = {x["ticket"]: x["why"] for x in f["distorted"]}
    # Integration resolves are listed (the alert cleared by itself); PD..PG were never acknowledged.
    assert distorted["PD"] == ["resolved before anyone acknowledged it",
                               "resolved by an integration (service_reference, channel api)"]
    assert "re-opened 1 time(s)" in distorted["PC"]
    assert "PB" not in distorted
    assert all(p["matched"] >= 1 for p in out["note_patterns"])
    assert out["reconcile"]["compared"] == 0  # PagerDuty exports no duration of its own
    reimport_adds_nothing(run, j, *args)


def test_a_pattern_that_matches_nothing_is_said(run, tmp_path, export):
    j = new_journal(tmp_path)
    m = write(tmp_path, "map2.toml", MAP.replace('"(?i)change window opened"', '"(?i)maintenance begins"'))
    r = run("import", "pagerduty", *export, "--map", m, "--journal", j)
    assert r.exit_code == 0, r.stderr
    assert "note pattern change-window-start ('(?i)maintenance begins') matched no note" in r.stdout
    # PF's change-window end then closes nothing: said, and its 3.0 h clock stands.
    assert "ends a change that no note began" in r.stdout


# ----- the REST answers as PagerDuty pages them: streamed, overlapping pages read as one ----------
# Shape (research36 SHAPES.md 4; tests/data/imports/pagerduty/*.source.txt): PagerDuty's OpenAPI
# reference (github.com/PagerDuty/api-schema reference/REST/openapiv3.json @ 91a06fb, no LICENSE, so
# the files are HAND-WRITTEN with invented values in exactly its envelope): GET /incidents answers
# {"incidents": [...], "limit", "offset", "more", "total"} and GET /log_entries answers
# {"log_entries": [...], "limit", "offset", "more"}; offset pages over a changing list repeat a record.

DATA = Path(__file__).parent / "data" / "imports" / "pagerduty"
PD_WINDOW = ("2024-04-29T09:00", "2024-05-10T17:00")
SEV = ("--severity-map", "P1=1,P2=2")


def _pd_journal(tmp_path):
    return make_journal(tmp_path / "pd.jsonl", [], tier="T2", window=PD_WINDOW, synthetic=True)


def _page(doc, key, items, offset, more=True):
    """The answer ``doc`` holding ``items`` under ``key``, at ``offset``: the envelope as PagerDuty writes it."""
    return {**{k: v for k, v in doc.items() if k != key}, key: items, "offset": offset, "limit": len(items),
            "more": more}


def _log_pages(tmp_path):
    """log_entries.json (7 entries, in order R1201TRIG, ACK1, UNAK, ACK2, RSLV, R1190TRIG, R1190RSLV)
    taken as two offset pages whose window shifted: page 1 entries 1-5, page 2 entries 4-7, so
    R1201ACK2 and R1201RSLV are on both."""
    doc = json.loads((DATA / "log_entries.json").read_text())
    entries = doc["log_entries"]
    return [write(tmp_path, "log_entries_page1.json", json.dumps(_page(doc, "log_entries", entries[:5], 0))),
            write(tmp_path, "log_entries_page2.json", json.dumps(_page(doc, "log_entries", entries[3:], 5, False)))]


def _books(out):
    return {f["file"]: {k: f[k] for k in ("read", "imported", "skipped", "unreadable", "unmatched") if f[k] or
                        k == "read"} for f in out["files"]}


def test_overlapping_pages_one_incident_each_copy_counted(run, tmp_path):
    """incidents_page1.json (Q1AAAAAAAAAAA1 resolved, Q1AAAAAAAAAAA2 acknowledged) and
    incidents_page2.json (Q1AAAAAAAAAAA2 again, the same copy: updated_at 2024-05-03T01:14:00Z both,
    and Q1AAAAAAAAAAA3 triggered), with the log entries in two overlapping pages. By hand:

    - Q1AAAAAAAAAAA2 is one incident: the two copies read the same, so the later page's is read and
      page 1's is skipped as the same copy (read 2 = imported 1 + skipped 1 on page 1);
    - Q1AAAAAAAAAAA1: triggered 08:00:00 by the service (the detection), acknowledged 08:03:10 (no
      event: it starts no clock), resolved 09:12:30 by a user on the website: a closure (no
      monitoring evidence), not a restore;
    - Q1AAAAAAAAAAA2: no log entry: its clock at created_at 01:10 (3 May), open; Q1AAAAAAAAAAA3 at
      created_at 02:00, open;
    - log page 1 reads 5: TRIG, ACK1, ACK2 and RSLV go into Q1AAAAAAAAAAA1 (imported 4), UNAK is a
      type not read (skipped 1); log page 2 reads 4: ACK2 and RSLV again by id (skipped 2), the two
      entries of Q1AAAAAAAAAA90, which no incidents page lists (unmatched 2). 5 + 4 = 9 read =
      4 + 1 + 2 + 2, nothing dropped; every incident page's 2 = what landed.
    Given in either order, the same."""
    for n, order in enumerate(((0, 1), (1, 0))):
        pages = [DATA / "incidents_page1.json", DATA / "incidents_page2.json"]
        pages = [pages[k] for k in order]
        (tmp_path / str(n)).mkdir()
        j, logs = _pd_journal(tmp_path / str(n)), _log_pages(tmp_path / str(n))
        out = imported(run, j, "pagerduty", *logs, *pages, *SEV)
        assert sorted(out["imported"]) == ["Q1AAAAAAAAAAA1", "Q1AAAAAAAAAAA2", "Q1AAAAAAAAAAA3"]
        books = _books(out)
        assert books["log_entries_page1.json"] == {"read": 5, "imported": 4, "skipped": 1}
        assert books["log_entries_page2.json"] == {"read": 4, "skipped": 2, "unmatched": 2}
        first = "incidents_page1.json" if order == (0, 1) else "incidents_page2.json"
        second = "incidents_page2.json" if order == (0, 1) else "incidents_page1.json"
        assert books[first] == {"read": 2, "imported": 1, "skipped": 1}  # the earlier-given copy of A2
        assert books[second] == {"read": 2, "imported": 2}
        reasons = {r for f in out["files"] for r in f["skipped_reasons"]}
        assert pagerduty.SAME_COPY in reasons and pagerduty.REPEATED_ENTRY in reasons
        one = events_of(j, "pagerduty:Q1AAAAAAAAAAA1")
        assert [(k, a) for k, a, _ in one] == [("incident.detected", "2024-05-02T08:00:00+00:00"),
                                               ("incident.ticket-closed", "2024-05-02T09:12:30+00:00")]
        assert [(k, a) for k, a, _ in events_of(j, "pagerduty:Q1AAAAAAAAAAA2")] == \
            [("incident.detected", "2024-05-03T01:10:00+00:00")]
        assert [(k, a) for k, a, _ in events_of(j, "pagerduty:Q1AAAAAAAAAAA3")] == \
            [("incident.detected", "2024-05-03T02:00:00+00:00")]
        assert out["unmatched"] == [{"ticket": "Q1AAAAAAAAAA90", "records": 2, "what": "log_entries",
                                     "file": "log_entries_page2.json"}]


def _changed(name, ident, **fields):
    doc = json.loads((DATA / name).read_text())
    for inc in doc["incidents"]:
        if inc["id"] == ident:
            inc.update(fields)
    return doc


def test_the_latest_copy_wins_the_earlier_counted_superseded(run, tmp_path):
    """Page 2 taken later, after Q1AAAAAAAAAAA2 was resolved: its copy there says resolved,
    updated_at = last_status_change_at = resolved_at = 01:30:00Z (page 1's says acknowledged,
    updated 01:14:00Z). The later copy is the incident, whichever page comes first: closed at
    01:30 in its own record (no resolve_log_entry given), opened at created_at 01:10. Page 1's copy
    is skipped as superseded. A capture before 2023-05-08 has no updated_at: Q1AAAAAAAAAAA4's
    copies are ordered by last_status_change_at, the legacy page's (resolved, 10:40) over an
    earlier one (acknowledged, 10:20), so it ends at 10:40."""
    later = "2024-05-03T01:30:00Z"
    two = write(tmp_path, "incidents_page2.json", json.dumps(_changed(
        "incidents_page2.json", "Q1AAAAAAAAAAA2", status="resolved", updated_at=later, last_status_change_at=later,
        resolved_at=later)))
    legacy = json.loads((DATA / "incidents_page3_legacy_no_resolved_at.json").read_text())
    earlier = json.loads(json.dumps(legacy))
    earlier["incidents"][0].update(status="acknowledged", last_status_change_at="2023-04-20T10:20:00Z")
    early = write(tmp_path, "incidents_legacy_earlier.json", json.dumps(earlier))
    j = make_journal(tmp_path / "pd.jsonl", [], tier="T2", window=("2023-04-17T09:00", "2024-05-10T17:00"),
                     synthetic=True)
    out = imported(run, j, "pagerduty", two, DATA / "incidents_page1.json", early,
                   DATA / "incidents_page3_legacy_no_resolved_at.json", *SEV)
    books = _books(out)
    assert books["incidents_page1.json"] == {"read": 2, "imported": 1, "skipped": 1}
    assert books["incidents_legacy_earlier.json"] == {"read": 1, "skipped": 1}
    assert next(f for f in out["files"] if f["file"] == "incidents_page1.json")["skipped_reasons"] == \
        {pagerduty.SUPERSEDED: 1}
    ends = [(k, a, d.get("resolved")) for k, a, d in events_of(j, "pagerduty:Q1AAAAAAAAAAA2")]
    assert ends == [("incident.detected", "2024-05-03T01:10:00+00:00", None),
                    ("incident.ticket-closed", "2024-05-03T01:30:00+00:00", True)]
    assert events_of(j, "pagerduty:Q1AAAAAAAAAAA4")[-1][:2] == ("incident.ticket-closed", "2023-04-20T10:40:00+00:00")


def test_two_latest_copies_of_one_time_that_differ_are_refused(run, tmp_path):
    """Page 2's Q1AAAAAAAAAAA2 says resolved with page 1's updated_at (01:14:00Z): which is the
    incident cannot be told from the records, so nothing is guessed: refused naming the id and both
    places, nothing written."""
    two = write(tmp_path, "incidents_page2.json", json.dumps(_changed(
        "incidents_page2.json", "Q1AAAAAAAAAAA2", status="resolved", resolved_at="2024-05-03T01:14:00Z")))
    line = refused(run, _pd_journal(tmp_path), "pagerduty", DATA / "incidents_page1.json", two, *SEV)
    assert "incident Q1AAAAAAAAAAA2 is given twice with different contents (incidents_page1.json item 2, " \
        "incidents_page2.json item 1) and both were updated at 2024-05-03T01:14:00+00:00" in line


@pytest.mark.parametrize(("text", "said"), [
    ('{"incidents": [{"id": "Q1", "status": "resolved", "created_at": "2024-05-02T08:00:00Z"}, {"id": "Q2", "sta',
     "incidents.json is not JSON as a vendor API writes it"),
    ('{"incident": {"id": "Q1"}}', "incidents.json is not an export the pagerduty format reads"),
    ('{"incidents": {"Q1": {"id": "Q1"}}, "more": false}', "incidents.json is not an export the pagerduty format"),
    ('[{"id": "Q1"}]', "incidents.json is not an export the pagerduty format reads"),
    ('{"incidents": ["Q1", 7, null]}', "and not one ticket imported; 3 unreadable"),
])
def test_bad_answers_are_one_line_exit_2(run, tmp_path, text, said):
    """A page cut off mid-record, a wrong envelope (an object, a bare list), and an answer whose
    every record is not an object (each listed unreadable, so no ticket lands): one line naming
    the file or the records, exit 2, nothing written, no traceback."""
    line = refused(run, _pd_journal(tmp_path), "pagerduty", write(tmp_path, "incidents.json", text), *SEV)
    assert said in line and "Traceback" not in line


def test_a_non_object_record_is_listed_unreadable_and_counted(run, tmp_path):
    """incidents_page1.json with a string and a number slipped among its records: each listed
    unreadable with its place, the two incidents read; 4 read = 2 imported + 2 unreadable."""
    doc = json.loads((DATA / "incidents_page1.json").read_text())
    doc["incidents"][1:1] = ["Q1AAAAAAAAAAA9", 7]
    out = imported(run, _pd_journal(tmp_path), "pagerduty", write(tmp_path, "p.json", json.dumps(doc)), *SEV)
    assert _books(out)["p.json"] == {"read": 4, "imported": 2, "unreadable": 2}
    assert [u["where"] for u in out["unreadable"]] == ["p.json item 2", "p.json item 3"]


def test_an_answer_larger_than_the_old_cap_is_streamed(run, tmp_path, monkeypatch):
    """The answers used to be parsed whole (json.loads) under a 512 MiB cap. With that cap shrunk
    to 4 KiB and any parse of a whole answer failing, a 3,000-incident answer (about 1 MiB, the
    real shape: incidents_page1.json's first incident with new ids) and its log entries import:
    nothing parses a file whole."""
    from day60.imports import records

    base = json.loads((DATA / "incidents_page1.json").read_text())
    log = json.loads((DATA / "log_entries.json").read_text())["log_entries"]
    monkeypatch.setattr(records, "MAX_JSON_EXPORT_BYTES", 4096)
    real_loads = json.loads

    def whole(text, *a, **k):
        head = text[:60] if isinstance(text, str) else bytes(text[:60]).decode("utf-8", "replace")
        assert not (len(text) > 4096 and ('"incidents"' in head or '"log_entries"' in head)), "parsed whole"
        return real_loads(text, *a, **k)

    monkeypatch.setattr(json, "loads", whole)
    monkeypatch.setattr(json, "load", lambda fh, *a, **k: whole(fh.read(), *a, **k))
    one = base["incidents"][0]
    doc = {"incidents": [{**one, "id": f"QBIG{n:06d}"} for n in range(3000)], "limit": 3000, "offset": 0,
           "more": False, "total": None}
    text = json.dumps(doc, indent=1)
    assert len(text) > 1 << 20
    entries = {"log_entries": [{**e, "incident": {**e["incident"], "id": "QBIG000000"}} for e in log[:5]]}
    out = imported(run, _pd_journal(tmp_path), "pagerduty", write(tmp_path, "incidents.json", text),
                   write(tmp_path, "log_entries.json", json.dumps(entries, indent=1) + " " * 5000), *SEV)
    assert len(out["imported"]) == 3000
    assert _books(out)["log_entries.json"] == {"read": 5, "imported": 4, "skipped": 1}

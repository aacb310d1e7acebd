"""day60 import jira on a SYNTHETIC Jira Service Management export set covering every clock
fact of charter 3.19.

The CSV uses Jira's own column names (Issue key, Issue id, Issue Type, Resolution, Created,
Resolved, Comment repeated once per comment, "Custom field (...)" for custom fields, JSM's
Change start date and Change completion date); the changelog is the search answer with
expand=changelog and the SLA answers are /rest/servicedeskapi/request/{key}/sla answers. The
exporting user's zone is Europe/London (GMT in early March, so UTC).
"""

import json
from pathlib import Path

import pytest

from tests.imports_common import (
    check_scenario,
    figures_json,
    imported,
    new_journal,
    refused,
    reimport_adds_nothing,
    write,
)

CSV = """\
Issue key,Issue id,Issue Type,Summary,Priority,Status,Resolution,Created,Resolved,Custom field (Detected at),\
Custom field (Partner notified),Custom field (Service restored),Custom field (Restore check),\
Custom field (Change start date),Custom field (Change completion date),Comment,Comment
SUP-1,10001,Incident,SYNTHETIC could not reproduce,Low,Closed,Cannot Reproduce,02/Mar/26 10:00 AM,02/Mar/26 11:00 AM,\
,,,,,,,
SUP-2,10002,Incident,SYNTHETIC restore confirmed after resolution,Highest,Resolved,Done,02/Mar/26 9:00 AM,\
02/Mar/26 10:00 AM,,,02/Mar/26 11:30 AM,SYNTHETIC intake canary,,,,
SUP-3,10003,Incident,SYNTHETIC re-opened once,Highest,Resolved,Done,03/Mar/26 9:00 AM,03/Mar/26 12:00 PM,,,\
03/Mar/26 12:00 PM,SYNTHETIC intake canary,,,,
SUP-4,10004,Incident,SYNTHETIC detected before the ticket,High,Resolved,Done,03/Mar/26 2:00 PM,03/Mar/26 3:00 PM,\
03/Mar/26 1:00 PM,,03/Mar/26 3:00 PM,SYNTHETIC latency monitor,,,,
SUP-5,10005,Incident,SYNTHETIC partner notice only,High,Resolved,Done,04/Mar/26 10:00 AM,04/Mar/26 11:00 AM,,\
04/Mar/26 9:30 AM,04/Mar/26 11:00 AM,SYNTHETIC latency monitor,,,,
SUP-6,10006,Incident,SYNTHETIC fixed in a change window,Medium,Resolved,Done,04/Mar/26 1:00 PM,04/Mar/26 4:00 PM,,,\
04/Mar/26 4:00 PM,SYNTHETIC queue monitor,04/Mar/26 2:00 PM,04/Mar/26 3:00 PM,,
SUP-7,10007,Incident,SYNTHETIC waited on the client,Medium,Resolved,Done,05/Mar/26 9:00 AM,05/Mar/26 12:00 PM,,,\
05/Mar/26 12:00 PM,SYNTHETIC queue monitor,,,"05/Mar/26 10:00 AM;557058:synthetic;SYNTHETIC waiting on client for \
the batch","05/Mar/26 11:00 AM;557058:synthetic;SYNTHETIC client replied, batch attached"
SUP-8,10008,Incident,SYNTHETIC duplicate of another,Low,Resolved,Duplicate,05/Mar/26 1:00 PM,05/Mar/26 2:00 PM,,,\
05/Mar/26 2:00 PM,SYNTHETIC queue monitor,,,,
"""
CHANGELOG = {"note": "SYNTHETIC: the search API's answer with expand=changelog", "issues": [
    {"key": "SUP-3", "changelog": {"histories": [
        {"created": "2026-03-03T10:00:00.000+0000", "items": [
            {"field": "status", "fromString": "In Progress", "toString": "Resolved"},
            {"field": "resolution", "fromString": None, "toString": "Done"}]},
        {"created": "2026-03-03T11:00:00.000+0000", "items": [
            {"field": "status", "fromString": "Resolved", "toString": "In Progress"},
            {"field": "resolution", "fromString": "Done", "toString": None}]},
        {"created": "2026-03-03T12:00:00.000+0000", "items": [
            {"field": "status", "fromString": "In Progress", "toString": "Resolved"},
            {"field": "resolution", "fromString": None, "toString": "Done"}]}]}}]}

DATA = Path(__file__).parent / "data" / "imports" / "jira"


def _cycle(start, stop, millis):
    return {"startTime": {"iso8601": start, "epochMillis": None}, "stopTime": {"iso8601": stop},
            "breached": False, "goalDuration": {"millis": 14_400_000}, "elapsedTime": {"millis": millis}}


# SUP-2's raw answer, as the API returns it: the request named only in its links (by issue id).
SLA_RAW = {"size": 1, "start": 0, "limit": 50, "isLastPage": True, "values": [
    {"id": "1", "name": "Time to resolution", "completedCycles": [
        _cycle("2026-03-02T09:00:00+0000", "2026-03-02T10:00:00+0000", 3_600_000)],
     "_links": {"self": "https://synthetic.invalid/rest/servicedeskapi/request/10002/sla/1"}}],
    "_links": {"self": "https://synthetic.invalid/rest/servicedeskapi/request/10002/sla"}}
# SUP-3's answer keyed by issue key: two cycles, one before the re-open and one after.
SLA_KEYED = {"SUP-3": {"values": [{"id": "1", "name": "Time to resolution", "completedCycles": [
    _cycle("2026-03-03T09:00:00+0000", "2026-03-03T10:00:00+0000", 3_600_000),
    _cycle("2026-03-03T11:00:00+0000", "2026-03-03T12:00:00+0000", 3_600_000)]}]}}
MAP = """\
# SYNTHETIC: this deal's Jira Service Management fields and conventions.
[times]
timezone = "Europe/London"

[columns]
detected = "Custom field (Detected at)"
partner_notice = "Custom field (Partner notified)"
restored = "Custom field (Service restored)"
check = "Custom field (Restore check)"

[outcomes]
"Cannot Reproduce" = "withdrawn"
"Duplicate" = "excluded: Retainer Schedule clause 10.3 (duplicates; SYNTHETIC)"

[notes]
wait-start = "(?i)waiting on (the )?client"
wait-end = "(?i)client replied"

[sla]
name = "Time to resolution"
calendar = "24x7"

[severity]
Highest = 1
High = 2
Medium = 3
Low = 4
"""
IDS = {k: f"SUP-{n}" for k, n in (("A", 1), ("B", 2), ("C", 3), ("D", 4), ("E", 5), ("F", 6), ("G", 7), ("K", 8))}


@pytest.fixture
def export(tmp_path):
    return [write(tmp_path, "jira.csv", CSV), write(tmp_path, "changelog.json", json.dumps(CHANGELOG)),
            write(tmp_path, "sla-10002.json", json.dumps(SLA_RAW)), write(tmp_path, "sla.json", json.dumps(SLA_KEYED))]


def test_every_clock_fact(run, tmp_path, export):
    """The seven tickets of ``check_scenario``, from Jira's own fields:

    - SUP-1 Resolution "Cannot Reproduce" (withdrawn) and SUP-8 "Duplicate" (excluded);
    - SUP-2: Service restored 11:30 after Resolved 10:00: 2.5 h;
    - SUP-3: the changelog sets the resolution at 10:00, clears it at 11:00 (the re-open) and sets
      it again at 12:00, the restore confirmed at 12:00: 3.0 h;
    - SUP-4: Detected at 13:00, created 14:00: 2.0 h; SUP-5: only Partner notified 09:30: 1.5 h;
    - SUP-6: its Change start date 14:00 and Change completion date 15:00: 3 - 1 = 2.0 h;
    - SUP-7: two Comment columns, the comments at 10:00 and 11:00 read with [notes]: 2.0 h.
    """
    j = new_journal(tmp_path)
    args = ("jira", *export, "--map", write(tmp_path, "map.toml", MAP))
    out = imported(run, j, *args)
    assert out["unreadable"] == [] and len(out["imported"]) == 8
    check_scenario(run, j, "jira", IDS)
    f = out["findings"]
    assert f["withdrawn"] == [{"ticket": "SUP-1", "reason": "Jira Resolution 'Cannot Reproduce'"}]
    assert f["excluded"][0]["reason"] == "Retainer Schedule clause 10.3 (duplicates; SYNTHETIC) (Jira Resolution " \
                                         "'Duplicate')"
    assert [(x["ticket"], x["reopens"]) for x in f["reopened"]] == [("SUP-3", 1)]
    reimport_adds_nothing(run, j, *args)


def test_sla_compared_on_its_own_calendar(run, tmp_path, export):
    """A 24x7 SLA beside our calendar hours, never our business hours.

    - SUP-2 (the raw answer, found by its request link /request/10002/sla and the CSV's Issue id):
      elapsedTime 3,600,000 ms = 1.0 h, 09:00 to 10:00; ours 2.5 h: the end, 1.5 h;
    - SUP-3 (keyed): two cycles of 1 h each, 09:00-10:00 and 11:00-12:00: 2.0 h, its clock standing
      paused the hour between them (3 h span - 2 h); ours 3.0 h, re-opened once: -1.0 h of pause
      the charter does not take off, the re-open named.
    """
    j = new_journal(tmp_path)
    out = imported(run, j, "jira", *export, "--map", write(tmp_path, "map.toml", MAP))
    rows = {r["ticket"]: r for r in out["reconcile"]["tickets"]}
    assert set(rows) == {"SUP-2", "SUP-3"}
    b, c = rows["SUP-2"], rows["SUP-3"]
    assert (b["vendor_hours"], b["vendor_business_hours"]) == (pytest.approx(1.0), None)
    assert b["difference_hours"] == pytest.approx(1.5) and b["difference_business_hours"] is None
    assert len(b["reasons"]) == 1 and "1.50 h after the vendor's stopped" in b["reasons"][0]
    assert c["vendor_hours"] == pytest.approx(2.0) and c["difference_hours"] == pytest.approx(1.0)
    assert "re-opened 1 time(s)" in " ".join(c["reasons"])
    assert "the vendor's clock stood paused 1.00 h" in " ".join(c["reasons"])
    assert not any("not explained" in r for r in c["reasons"])


def test_equal_figures_agree(run, tmp_path, export):
    """SUP-2's SLA at 2.5 h (9,000,000 ms, 09:00 to 11:30): it agrees, and nothing says it differs."""
    answer = json.loads(json.dumps(SLA_RAW))
    answer["values"][0]["completedCycles"] = [_cycle("2026-03-02T09:00:00+0000", "2026-03-02T11:30:00+0000",
                                                     9_000_000)]
    export[2].write_text(json.dumps(answer))
    j = new_journal(tmp_path)
    out = imported(run, j, "jira", *export, "--map", write(tmp_path, "map.toml", MAP))
    rec = out["reconcile"]
    assert rec["agree"] == 1 and rows_of(rec)["SUP-2"]["agree"] is True and rows_of(rec)["SUP-2"]["reasons"] == []
    r = run("import", "jira", *export, "--map", write(tmp_path, "map.toml", MAP), "--journal", j)
    assert "1 agree, 1 differ" in r.stdout  # SUP-3 still differs; SUP-2 is counted with those that agree


def rows_of(rec):
    return {r["ticket"]: r for r in rec["tickets"]}


def test_sla_calendar_not_stated_is_said_not_guessed(run, tmp_path, export):
    j = new_journal(tmp_path)
    m = write(tmp_path, "map2.toml", MAP.replace('calendar = "24x7"\n', ""))
    out = imported(run, j, "jira", *export, "--map", m)
    assert "tickets" not in out["reconcile"]
    notes = " ".join(n["note"] for n in out["findings"]["notes"])
    assert "does not say whether it runs 24x7 or on business hours" in notes
    sev1 = figures_json(run, j)["by_severity"]["1"]
    assert sev1["count"] + sev1["ranged"] == 2  # the figures stand regardless


def test_business_calendar_sla_is_compared_with_business_hours(run, tmp_path, export):
    """With [sla] calendar = "business", SUP-2's 1.0 h is its business time: set beside our 2.5 bh
    (09:00-11:30 inside 09:00-17:30), the end explains 1.50 bh of it."""
    j = new_journal(tmp_path)
    m = write(tmp_path, "map3.toml", MAP.replace('calendar = "24x7"', 'calendar = "business"'))
    out = imported(run, j, "jira", *export, "--map", m)
    b = rows_of(out["reconcile"])["SUP-2"]
    assert (b["vendor_hours"], b["vendor_business_hours"]) == (None, pytest.approx(1.0))
    assert b["difference_business_hours"] == pytest.approx(1.5)
    assert "1.50 bh after the vendor's stopped" in b["reasons"][0]


def test_an_sla_answer_without_its_request_is_refused(run, tmp_path, export):
    answer = json.loads(json.dumps(SLA_RAW))
    answer.pop("_links")
    answer["values"][0].pop("_links")
    export[2].write_text(json.dumps(answer))
    line = refused(run, new_journal(tmp_path), "jira", *export, "--map", write(tmp_path, "map.toml", MAP))
    assert "sla-10002.json is an SLA answer whose links name no request" in line


def test_an_unknown_json_is_refused_by_name(run, tmp_path, export):
    other = write(tmp_path, "worklog.json", json.dumps({"worklogs": []}))
    line = refused(run, new_journal(tmp_path), "jira", *export, other, "--map", write(tmp_path, "map.toml", MAP))
    assert "worklog.json is not a JSON export the jira format reads" in line and "expand=changelog" in line


def test_duplicate_key_is_refused(run, tmp_path, export):
    lines = CSV.splitlines()
    export[0].write_text("\n".join([*lines, lines[3]]) + "\n")
    line = refused(run, new_journal(tmp_path), "jira", *export, "--map", write(tmp_path, "map.toml", MAP))
    assert "appear more than once: 'SUP-3' (jira.csv row 4, jira.csv row 10)" in line


def test_stray_quote_is_refused(run, tmp_path, export):
    export[0].write_text(CSV.replace("SYNTHETIC partner notice only", '"SYNTHETIC partner notice only'))
    line = refused(run, new_journal(tmp_path), "jira", *export, "--map", write(tmp_path, "map.toml", MAP))
    assert "quote" in line and "row 6" in line


def test_a_used_column_twice_is_refused(run, tmp_path, export):
    """Comment may repeat (each is a comment); Priority twice cannot say which is the severity."""
    lines = CSV.splitlines()
    lines[0] = lines[0].replace("Summary,", "Priority,")
    export[0].write_text("\n".join(lines) + "\n")
    line = refused(run, new_journal(tmp_path), "jira", *export, "--map", write(tmp_path, "map.toml", MAP))
    assert "has the column 'Priority' 2 times" in line


# ----- the REST search answer alone -----------------------------------------------------------
# Shape (research36 SHAPES.md 2b): {"expand", "startAt", "maxResults", "total", "issues": [{"id",
# "key", "fields": {"created", "updated", "resolutiondate", "statuscategorychangedate", "status":
# {"name", "statusCategory": {"key"}}, "resolution", "priority", "issuetype"}, "changelog":
# {"histories": [{"created", "items": [{"field", "fromString", "toString"}]}]}}]}; times with an
# offset written without a colon (airbytehq/airbyte@209afcb, real, MIT). Field meanings (Atlassian
# REST docs): resolutiondate the resolution, null while unresolved; statusCategory.key new,
# indeterminate or done whatever the language; statuscategorychangedate the entry into it.

def _issue(key, status, category, created, updated, resolved=None, resolution=None, changed=None, histories=()):
    cat = {"key": category, "name": {"done": "Listo", "indeterminate": "En curso"}.get(category, "Por hacer")}
    return {"expand": "operations,changelog", "id": str(10000 + int(key.split("-")[1])), "key": key,
            "self": f"https://example.atlassian.net/rest/api/2/issue/{key}",
            "fields": {"created": created, "updated": updated, "resolutiondate": resolved,
                       "statuscategorychangedate": changed, "status": {"name": status, "statusCategory": cat},
                       "resolution": None if resolution is None else {"name": resolution},
                       "priority": {"name": "Alta"}, "issuetype": {"name": "Incidente"}, "summary": "SYNTHETIC"},
            "changelog": {"startAt": 0, "maxResults": len(histories), "total": len(histories),
                          "histories": [{"id": str(n), "created": at, "items": [
                              {"field": "status", "fieldtype": "jira", "fromString": old, "toString": new}]}
                              for n, (at, old, new) in enumerate(histories)]}}


def test_rest_search_alone_in_spanish(run, tmp_path):
    """The search answer with expand=changelog and no CSV, a Spanish instance (statuses Resuelta,
    Cerrada, En curso; the category read from its key). Times are UTC (+0000).

    - SUP-201: Resuelta, category done, resolution Listo, resolutiondate 2 March 11:00: resolved at
      11:00 (no monitoring evidence: a closure); its changelog moves it to "Esperando al cliente"
      at 09:30 and back to "En curso" at 10:00, which the map's [pauses] calls a wait: 0.5 h.
    - SUP-202: Cerrada, category done, no resolution, entered the Done category 3 March 10:00: over
      with no resolution, at 10:00.
    - SUP-203: page 1 holds it En curso (updated 4 March 09:00); page 2 Resuelta (updated 12:00,
      resolutiondate 12:00). The later copy is the ticket (resolved at 12:00); the earlier is
      counted with it. Page 1 reads 2 (SUP-201, SUP-203), page 2 reads 2 (SUP-202, SUP-203): all imported.
    """
    t0 = "2026-03-02T{}:00.000+0000"
    one = {"expand": "schema,names", "startAt": 0, "maxResults": 2, "total": 3, "issues": [
        _issue("SUP-201", "Resuelta", "done", t0.format("09:00"), t0.format("11:00"), t0.format("11:00"), "Listo",
               t0.format("11:00"), [(t0.format("09:30"), "En curso", "Esperando al cliente"),
                                    (t0.format("10:00"), "Esperando al cliente", "En curso"),
                                    (t0.format("11:00"), "En curso", "Resuelta")]),
        _issue("SUP-203", "En curso", "indeterminate", "2026-03-04T08:00:00.000+0000",
               "2026-03-04T09:00:00.000+0000")]}
    two = {"expand": "schema,names", "startAt": 2, "maxResults": 2, "total": 3, "issues": [
        _issue("SUP-202", "Cerrada", "done", "2026-03-03T09:00:00.000+0000", "2026-03-03T10:00:00.000+0000",
               changed="2026-03-03T10:00:00.000+0000"),
        _issue("SUP-203", "Resuelta", "done", "2026-03-04T08:00:00.000+0000", "2026-03-04T12:00:00.000+0000",
               "2026-03-04T12:00:00.000+0000", "Listo", "2026-03-04T12:00:00.000+0000",
               [("2026-03-04T12:00:00.000+0000", "En curso", "Resuelta")])]}
    from tests.imports_common import events_of

    j = new_journal(tmp_path)
    out = imported(run, j, "jira", write(tmp_path, "search1.json", json.dumps(one)),
                   write(tmp_path, "search2.json", json.dumps(two)), "--map",
                   write(tmp_path, "map.toml", '[pauses]\n"Esperando al cliente" = "wait"\n[severity]\nAlta = 2\n'))
    assert {f["file"]: (f["read"], f["imported"]) for f in out["files"]} == {"search1.json": (2, 2),
                                                                           "search2.json": (2, 2)}
    first = [(k, a, d.get("resolved")) for k, a, d in events_of(j, "jira:SUP-201")]
    assert first == [("incident.detected", "2026-03-02T09:00:00+00:00", None),
                     ("incident.wait-start", "2026-03-02T09:30:00+00:00", None),
                     ("incident.wait-end", "2026-03-02T10:00:00+00:00", None),
                     ("incident.ticket-closed", "2026-03-02T11:00:00+00:00", True)]
    second = [(a, d["resolved"]) for k, a, d in events_of(j, "jira:SUP-202") if k == "incident.ticket-closed"]
    assert second == [("2026-03-03T10:00:00+00:00", False)]
    third = [a for k, a, _ in events_of(j, "jira:SUP-203") if k == "incident.ticket-closed"]
    assert third == ["2026-03-04T12:00:00+00:00"]


def test_real_airbyte_search_answer_alone(run, tmp_path):
    """The real Jira Cloud search answer recorded by Airbyte (MIT; .source.txt): one issue,
    TESTKEY13-1, status To Do (category key new), created 2022-06-09T16:29:31.871-0700, no
    resolution: an open ticket, its opening (standing in for a detection) at that instant."""
    from tests.builders import make_journal
    from tests.imports_common import events_of

    j = make_journal(tmp_path / "j.jsonl", [], tier="T2", window=("2022-06-01T09:00", "2022-12-30T17:00"),
                     synthetic=True)
    out = imported(run, j, "jira", DATA / "verbatim_airbyte_search_issues.json", "--severity-map", "Low=4")
    assert out["imported"] == ["TESTKEY13-1"]
    assert [(k, a) for k, a, _ in events_of(j, "jira:TESTKEY13-1")] == \
        [("incident.detected", "2022-06-09T16:29:31.871000-07:00")]


# ----- the search answer streamed --------------------------------------------------------------


def test_real_shape_search_pages_streamed_one_issue_per_key(run, tmp_path):
    """search_v2_changelog_page1.json and page2.json: the legacy offset search answer with
    expand=changelog, in exactly its envelope ({expand, startAt, maxResults, total, issues}),
    HAND-WRITTEN after Atlassian's REST model (see their .source.txt); page 2 repeats SUP-102 (the
    window shifted), the same copy (updated 2024-07-05T10:11:40.551+0100 both). Alone, no CSV. By
    hand, at the times as written, with their +0100 offset:

    - SUP-101: created 14:15:22.123 on 17 June; resolution Done, resolutiondate 18:40:05.310: a
      closure then (resolved, no monitoring evidence);
    - SUP-102, read once: resolved 4 July 08:00 (resolution set), re-opened 15:20 (resolution
      cleared), resolved again 5 July 10:10:12.777 (its resolutiondate); its histories, on both
      pages, are one history each;
    - SUP-103: Closed (category done), no resolution and no resolutiondate; the changelog moves it
      to Closed on 1 August 09:47:30: over with no resolution, then.
    Page 1 reads 2 (SUP-101, SUP-102), page 2 reads 2 (SUP-102, SUP-103): all imported, SUP-102's
    earlier copy counted with the ticket."""
    from tests.builders import make_journal
    from tests.imports_common import events_of

    j = make_journal(tmp_path / "j.jsonl", [], tier="T2", window=("2024-06-03T09:00", "2024-08-30T17:00"),
                     synthetic=True)
    out = imported(run, j, "jira", DATA / "search_v2_changelog_page1.json", DATA / "search_v2_changelog_page2.json",
                   "--severity-map", "High=1")
    assert sorted(out["imported"]) == ["SUP-101", "SUP-102", "SUP-103"]
    assert {f["file"]: (f["read"], f["imported"]) for f in out["files"]} == {
        "search_v2_changelog_page1.json": (2, 2), "search_v2_changelog_page2.json": (2, 2)}
    assert [(k, a, d.get("resolved")) for k, a, d in events_of(j, "jira:SUP-101")][-1] == \
        ("incident.ticket-closed", "2024-06-17T18:40:05.310000+01:00", True)
    two = [(k, a) for k, a, _ in events_of(j, "jira:SUP-102") if k != "incident.detected"]
    assert two == [("incident.ticket-closed", "2024-07-04T08:00:00+01:00"),
                   ("incident.reopened", "2024-07-04T15:20:00+01:00"),
                   ("incident.ticket-closed", "2024-07-05T10:10:12.777000+01:00")]
    assert [(k, a, d.get("resolved")) for k, a, d in events_of(j, "jira:SUP-103")][-1] == \
        ("incident.ticket-closed", "2024-08-01T09:47:30+01:00", False)


@pytest.mark.parametrize(("text", "said"), [
    ('{"expand": "schema,names", "startAt": 0, "issues": [{"key": "SUP-1", "fields": {"created": "2024-06-1',
     "search.json is not JSON as a vendor API writes it"),
    ('{"expand": "schema,names", "issues": {"SUP-1": {}}}', "search.json is not a JSON export the jira format reads"),
    ('{"issues": [7, "SUP-2", null]}', "and not one ticket imported; 3 unreadable"),
])
def test_bad_search_answers_are_one_line_exit_2(run, tmp_path, text, said):
    """A search answer cut off mid-issue, one whose issues are not a list, and one whose every
    issue is not an object (each listed unreadable, so no ticket lands): one line naming the file
    or the records, exit 2, nothing written, never a traceback."""
    line = refused(run, new_journal(tmp_path), "jira", write(tmp_path, "search.json", text), "--severity-map",
                   "High=1")
    assert said in line and "Traceback" not in line


def test_a_search_answer_larger_than_the_old_cap_is_streamed(run, tmp_path, monkeypatch):
    """The search answer used to be parsed whole under a 512 MiB cap. With the cap shrunk to 4 KiB
    and any whole parse of it failing, 2,000 copies of page 1's SUP-101 under new keys (about
    3 MiB, the real shape) import, each a ticket; a non-object issue among them is listed unreadable."""
    from day60.imports import records
    from tests.builders import make_journal

    page = json.loads((DATA / "search_v2_changelog_page1.json").read_text())
    monkeypatch.setattr(records, "MAX_JSON_EXPORT_BYTES", 4096)
    real_loads = json.loads

    def whole(text, *a, **k):
        head = text[:80] if isinstance(text, str) else bytes(text[:80]).decode("utf-8", "replace")
        assert not (len(text) > 4096 and '"issues"' in head), "the search answer was parsed whole"
        return real_loads(text, *a, **k)

    monkeypatch.setattr(json, "loads", whole)
    monkeypatch.setattr(json, "load", lambda fh, *a, **k: whole(fh.read(), *a, **k))
    one = page["issues"][0]
    page["issues"] = [{**one, "key": f"SUP-{5000 + n}", "id": str(50000 + n)} for n in range(2000)] + ["stray"]
    text = json.dumps({"issues": page.pop("issues"), **page}, indent=1)
    assert len(text) > 2 << 20
    j = make_journal(tmp_path / "j.jsonl", [], tier="T2", window=("2024-06-03T09:00", "2024-08-30T17:00"),
                     synthetic=True)
    out = imported(run, j, "jira", write(tmp_path, "search.json", text), "--severity-map", "High=1")
    assert len(out["imported"]) == 2000
    assert [(u["where"], u["reason"]) for u in out["unreadable"]] == \
        [("search.json issue 2001", "is not an issue with a key and its change histories")]

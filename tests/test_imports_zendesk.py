"""day60 import zendesk on a SYNTHETIC Support API export set covering every clock fact of
charter 3.19.

The files are shaped as the Support API answers them: ``tickets`` (custom_fields, tags),
``ticket_metrics`` (solved_at, reopens, full_resolution_time_in_minutes), ``ticket_metric_events``
(requester_wait_time, agent_work_time and reply_time with activate, pause and fulfill events)
and ``audits`` (Comment events). Times are UTC.
"""

import json

import pytest

from tests.imports_common import check_scenario, imported, new_journal, refused, reimport_adds_nothing, write

DAY = {"A": "02", "B": "02", "C": "03", "D": "03", "E": "04", "F": "04", "G": "05", "K": "05"}


def _t(day, hm):
    return f"2026-03-{day}T{hm}:00Z"


def _ticket(ident, created, priority, status, fields=(), tags=()):
    return {"id": ident, "subject": f"SYNTHETIC ticket {ident}", "created_at": created, "priority": priority,
            "status": status, "tags": list(tags),
            "custom_fields": [{"id": k, "value": v} for k, v in fields]}


TICKETS = {"tickets": [
    _ticket(201, _t("02", "10:00"), "low", "closed", [(1005, "not_reproducible")]),
    _ticket(202, _t("02", "09:00"), "urgent", "solved", [(1003, _t("02", "11:30")), (1004, "SYNTHETIC canary")]),
    _ticket(203, _t("03", "09:00"), "urgent", "solved", [(1003, _t("03", "12:00")), (1004, "SYNTHETIC canary")]),
    _ticket(204, _t("03", "14:00"), "high", "solved", [(1001, _t("03", "13:00")), (1003, _t("03", "15:00")),
                                                       (1004, "SYNTHETIC latency monitor")]),
    _ticket(205, _t("04", "10:00"), "high", "solved", [(1002, _t("04", "09:30")), (1003, _t("04", "11:00")),
                                                       (1004, "SYNTHETIC latency monitor")]),
    _ticket(206, _t("04", "13:00"), "normal", "solved", [(1003, _t("04", "16:00")), (1004, "SYNTHETIC queue")],
            tags=["change_hold"]),
    _ticket(207, _t("05", "09:00"), "normal", "solved", [(1003, _t("05", "12:00")), (1004, "SYNTHETIC queue")]),
    _ticket(208, _t("05", "13:00"), "low", "solved", [(1003, _t("05", "14:00")), (1004, "SYNTHETIC queue"),
                                                      (1005, "duplicate")]),
]}
METRICS = {"ticket_metrics": [
    {"ticket_id": 201, "solved_at": _t("02", "11:00"), "reopens": 0},
    {"ticket_id": 202, "solved_at": _t("02", "10:00"), "reopens": 0,
     "full_resolution_time_in_minutes": {"calendar": 60, "business": 60}},
    {"ticket_id": 203, "solved_at": _t("03", "12:00"), "reopens": 1,
     "full_resolution_time_in_minutes": {"calendar": 180, "business": 180}},
    {"ticket_id": 204, "solved_at": _t("03", "15:00"), "reopens": 0},
    {"ticket_id": 205, "solved_at": _t("04", "11:00"), "reopens": 0},
    {"ticket_id": 206, "solved_at": _t("04", "16:00"), "reopens": 0},
    {"ticket_id": 207, "solved_at": _t("05", "12:00"), "reopens": 0},
    {"ticket_id": 208, "solved_at": _t("05", "14:00"), "reopens": 0},
]}


def _ev(ticket, metric, kind, day, hm):  # one ticket_metric_event
    return {"ticket_id": ticket, "metric": metric, "instance_id": 1, "type": kind, "time": _t(day, hm)}


E = _ev
RW = "requester_wait_time"
EVENTS = {"ticket_metric_events": [
    E(202, "reply_time", "activate", "02", "09:00"), E(202, "reply_time", "fulfill", "02", "09:10"),
    E(202, RW, "activate", "02", "09:00"), E(202, RW, "fulfill", "02", "10:00"),
    # 203: solved at 10:00, re-opened at 11:00 (activated again), solved at 12:00
    E(203, RW, "activate", "03", "09:00"), E(203, RW, "fulfill", "03", "10:00"),
    E(203, RW, "activate", "03", "11:00"), E(203, RW, "fulfill", "03", "12:00"),
    # 204: a reply was due and never made before it was solved
    E(204, "reply_time", "activate", "03", "14:00"),
    E(204, RW, "activate", "03", "14:00"), E(204, RW, "fulfill", "03", "15:00"),
    # 206: on-hold 14:00-15:00 (agent_work_time pauses, requester_wait_time does not): tagged change_hold
    E(206, RW, "activate", "04", "13:00"), E(206, RW, "fulfill", "04", "16:00"),
    E(206, "agent_work_time", "activate", "04", "13:00"), E(206, "agent_work_time", "pause", "04", "14:00"),
    E(206, "agent_work_time", "activate", "04", "15:00"), E(206, "agent_work_time", "fulfill", "04", "16:00"),
]}
AUDITS = {"audits": [
    {"id": 1, "ticket_id": 207, "created_at": _t("05", "10:00"),
     "events": [{"id": 11, "type": "Comment", "body": "SYNTHETIC waiting on client for the batch", "public": False}]},
    {"id": 2, "ticket_id": 207, "created_at": _t("05", "11:00"),
     "events": [{"id": 12, "type": "Comment", "body": "SYNTHETIC client replied with the batch", "public": True}]},
]}
MAP = """\
# SYNTHETIC: this deal's Zendesk fields and conventions.
[columns]
detected = "custom_field:1001"
partner_notice = "custom_field:1002"
restored = "custom_field:1003"
check = "custom_field:1004"
outcome = "custom_field:1005"

[outcomes]
"not_reproducible" = "withdrawn"
"duplicate" = "excluded: Retainer Schedule clause 10.3 (duplicates; SYNTHETIC)"

[pauses]
"tag:change_hold" = "change"    # an on-hold ticket tagged change_hold waits on an agreed change

[notes]
wait-start = "(?i)waiting on (the )?client"
wait-end = "(?i)client replied"

[severity]
urgent = 1
high = 2
normal = 3
low = 4
"""
IDS = {k: str(n) for k, n in (("A", 201), ("B", 202), ("C", 203), ("D", 204), ("E", 205), ("F", 206), ("G", 207),
                               ("K", 208))}


@pytest.fixture
def export(tmp_path):
    return [write(tmp_path, "tickets.json", json.dumps(TICKETS)),
            write(tmp_path, "ticket_metrics.json", json.dumps(METRICS)),
            write(tmp_path, "ticket_metric_events.json", json.dumps(EVENTS)),
            write(tmp_path, "ticket_audits.json", json.dumps(AUDITS))]


def test_every_clock_fact(run, tmp_path, export):
    """The seven tickets of ``check_scenario``, from Zendesk's own fields:

    - 201 resolution code not_reproducible (withdrawn), 208 duplicate (excluded);
    - 202: restored (custom field) 11:30 after solved_at 10:00: 2.5 h;
    - 203: requester_wait_time fulfilled 10:00, activated again 11:00 (the re-open; reopens 1),
      fulfilled 12:00 and the restore confirmed then: 3.0 h, to the last resolution, not the first;
    - 204: detected 13:00, created 14:00: 2.0 h; 205: only the partner notice 09:30: 1.5 h;
    - 206: on-hold 14:00-15:00, and the ticket is tagged change_hold: a change hold, 3 - 1 = 2.0 h;
    - 207: comments at 10:00 and 11:00 read with [notes]: 2.0 h.
    """
    j = new_journal(tmp_path)
    args = ("zendesk", *export, "--map", write(tmp_path, "map.toml", MAP))
    out = imported(run, j, *args)
    assert out["unreadable"] == [] and len(out["imported"]) == 8
    check_scenario(run, j, "zendesk", IDS)
    f = out["findings"]
    assert f["withdrawn"] == [{"ticket": "201", "reason": "Zendesk custom_field:1005 'not_reproducible'"}]
    assert [(x["ticket"], x["reopens"], x["vendor_count"]) for x in f["reopened"]] == [("203", 1, 1)]
    distorted = {x["ticket"]: x["why"] for x in f["distorted"]}
    assert distorted["204"] == ["resolved before anyone acknowledged it"]
    assert "202" not in distorted  # replied at 09:10, before the 10:00 solve
    reimport_adds_nothing(run, j, *args)


def test_reconciliation(run, tmp_path, export):
    """full_resolution_time_in_minutes runs from created_at to the latest solve, unpaused:
    - 202: 60 min = 1.0 h beside ours 2.5 h: the end, 1.5 h (and the same in business hours);
    - 203: 180 min = 3.0 h beside ours 3.0 h: agree, re-open or not."""
    j = new_journal(tmp_path)
    out = imported(run, j, "zendesk", *export, "--map", write(tmp_path, "map.toml", MAP))
    rows = {r["ticket"]: r for r in out["reconcile"]["tickets"]}
    assert rows["203"]["agree"] is True
    assert rows["202"]["difference_hours"] == pytest.approx(1.5)
    assert rows["202"]["difference_business_hours"] == pytest.approx(1.5)
    assert len(rows["202"]["reasons"]) == 1 and "1.50 h after the vendor's stopped" in rows["202"]["reasons"][0]


def test_on_hold_without_the_tag_is_the_suppliers_time(run, tmp_path, export):
    """Without the change_hold tag, 206's on-hold hour is the supplier waiting on a third party:
    counted, so 3.0 h, and listed as a kept pause."""
    tickets = json.loads(json.dumps(TICKETS))
    tickets["tickets"][5]["tags"] = []
    export[0].write_text(json.dumps(tickets))
    j = new_journal(tmp_path)
    out = imported(run, j, "zendesk", *export, "--map", write(tmp_path, "map.toml", MAP))
    from tests.imports_common import per_ticket

    assert per_ticket(j).loc["zendesk:206", "restore_hours_at_least"] == pytest.approx(3.0)
    assert [x["ticket"] for x in out["findings"]["kept_pauses"]] == ["206"]


def test_a_ticket_twice_is_refused(run, tmp_path, export):
    """An incremental export can carry a ticket twice; which copy holds is not guessed."""
    tickets = json.loads(json.dumps(TICKETS))
    tickets["tickets"].append(dict(tickets["tickets"][1]))
    export[0].write_text(json.dumps(tickets))
    line = refused(run, new_journal(tmp_path), "zendesk", *export, "--map", write(tmp_path, "map.toml", MAP))
    assert "appear more than once: '202' (tickets.json item 2, tickets.json item 9)" in line


# ----- incremental exports: a ticket in several copies ---------------------------------------
# Shapes (research36 SHAPES.md 3, from facetoe/zenpy's recorded answers and Zendesk's docs):
# cursor-based {"tickets", "after_url", "after_cursor", "before_cursor", "end_of_stream"} and
# time-based {"tickets", "count", "end_of_stream", "next_page", "end_time"}; each ticket has
# updated_at (ISO 8601 UTC) and generated_timestamp (epoch seconds: when the copy was made, no
# update coming between). A deleted ticket keeps updated_at = created_at; only
# generated_timestamp moves.

def _copy(ident, created, updated, generated, status, **more):
    return {"id": ident, "created_at": created, "updated_at": updated, "generated_timestamp": generated,
            "type": "incident", "subject": f"SYNTHETIC {ident}", "priority": "high", "status": status, "tags": [],
            "custom_fields": [], **more}


def _epoch(day, hm):
    import datetime as dt

    return int(dt.datetime.fromisoformat(_t(day, hm).replace("Z", "+00:00")).timestamp())


def test_incremental_cursor_copies_latest_wins_history_kept(run, tmp_path):
    """Three cursor pages; 602 and 603 changed while the export ran.

    - 601: one copy, open: open.
    - 602: pending in the copy updated 3 March 10:00 and generated 10:20, solved in the copy
      updated 12:00. The later copy is the ticket. Between the copies: pending from 10:00 (the
      update that made it so) to at least 10:20 (the copy's generation; no update came between):
      a wait on the requester of at least 20 min. Its restore (custom field 1003, checked by 1004)
      at 12:00, from its opening at 09:00 (standing in for a detection): 3.0 h less 20 min
      = 2 h 40 min = 2.6667 h.
    - 603: solved (updated 4 March 10:00), then open (updated 11:00), then solved (updated 12:00):
      a re-open dated 11:00 (the latest it can have happened), the earlier solve at 10:00, its last
      solve ticket_metrics' solved_at 12:00.
    No copy is dropped: page 1 reads 3 and imports 3 (601, and the earlier copies of 602 and 603,
    counted with their tickets); page 2 reads 2, page 3 reads 1, all imported."""
    restored = [{"id": 1003, "value": _t("03", "12:00")}, {"id": 1004, "value": "SYNTHETIC canary"}]
    pages = [
        {"tickets": [_copy(601, _t("02", "09:00"), _t("02", "09:00"), _epoch("02", "09:01"), "open"),
                     _copy(602, _t("03", "09:00"), _t("03", "10:00"), _epoch("03", "10:20"), "pending"),
                     _copy(603, _t("04", "09:00"), _t("04", "10:00"), _epoch("04", "10:01"), "solved")],
         "after_url": "https://example.zendesk.com/api/v2/incremental/tickets/cursor.json?cursor=MTAw",
         "before_url": None, "after_cursor": "MTAw", "before_cursor": None, "end_of_stream": False},
        {"tickets": [_copy(603, _t("04", "09:00"), _t("04", "11:00"), _epoch("04", "11:01"), "open"),
                     _copy(602, _t("03", "09:00"), _t("03", "12:00"), _epoch("03", "12:05"), "solved",
                           custom_fields=restored)],
         "after_url": "https://example.zendesk.com/api/v2/incremental/tickets/cursor.json?cursor=MjAw",
         "before_url": None, "after_cursor": "MjAw", "before_cursor": None, "end_of_stream": False},
        {"tickets": [_copy(603, _t("04", "09:00"), _t("04", "12:00"), _epoch("04", "12:01"), "solved")],
         "after_url": None, "before_url": None, "after_cursor": None, "before_cursor": None, "end_of_stream": True},
    ]
    metrics = {"ticket_metrics": [{"ticket_id": 602, "solved_at": _t("03", "12:00"), "reopens": 0},
                                  {"ticket_id": 603, "solved_at": _t("04", "12:00"), "reopens": 1}]}
    files = [write(tmp_path, f"cursor_page{n + 1}.json", json.dumps(p, indent=2)) for n, p in enumerate(pages)]
    zmap = write(tmp_path, "map.toml", '[columns]\nrestored = "custom_field:1003"\ncheck = "custom_field:1004"\n'
                                       '[severity]\nhigh = 2\n')
    j = new_journal(tmp_path)
    out = imported(run, j, "zendesk", *files, write(tmp_path, "ticket_metrics.json", json.dumps(metrics)),
                   "--map", zmap)
    got = {f["file"]: (f["read"], f["imported"]) for f in out["files"]}
    assert got == {"cursor_page1.json": (3, 3), "cursor_page2.json": (2, 2), "cursor_page3.json": (1, 1),
                   "ticket_metrics.json": (2, 2)}
    assert sorted(out["imported"]) == ["601", "602", "603"]
    from tests.imports_common import events_of, per_ticket

    t = per_ticket(j)
    assert t.loc["zendesk:602", "restore_hours_at_least"] == pytest.approx(2 + 40 / 60)
    waits = [(k, a) for k, a, _ in events_of(j, "zendesk:602") if k.startswith("incident.wait")]
    assert waits == [("incident.wait-start", "2026-03-03T10:00:00+00:00"),
                     ("incident.wait-end", "2026-03-03T10:20:00+00:00")]
    kinds = [(k, a) for k, a, _ in events_of(j, "zendesk:603") if k in ("incident.reopened", "incident.ticket-closed")]
    assert kinds == [("incident.ticket-closed", "2026-03-04T10:00:00+00:00"),
                     ("incident.reopened", "2026-03-04T11:00:00+00:00"),
                     ("incident.ticket-closed", "2026-03-04T12:00:00+00:00")]


def test_incremental_time_based_repeats_the_end_time_second(run, tmp_path):
    """Time-based pages repeat every ticket of the end_time second: 701 (solved, updated 2 March
    10:00) is on both pages, the same copy; 702 is deleted, on both pages with updated_at equal to
    created_at and only generated_timestamp moved. 701 is one ticket, closed (solved, no monitoring
    evidence) at ticket_metrics' solved_at 10:00; 702 is counted apart as deleted, both copies with
    it. Page 1: read 2, imported 1, skipped 1; page 2 the same."""
    first = _copy(701, _t("02", "09:00"), _t("02", "10:00"), _epoch("02", "10:00"), "solved")
    gone = _copy(702, _t("02", "08:00"), _t("02", "08:00"), _epoch("02", "10:00"), "deleted")
    pages = [{"tickets": [gone, first], "count": 2, "end_of_stream": False, "end_time": _epoch("02", "10:00"),
              "next_page": "https://example.zendesk.com/api/v2/incremental/tickets.json?start_time=1772445600"},
             {"tickets": [first, {**gone, "generated_timestamp": _epoch("02", "10:30")}], "count": 2,
              "end_of_stream": True, "end_time": _epoch("02", "10:30"), "next_page": None}]
    files = [write(tmp_path, f"time_page{n + 1}.json", json.dumps(p)) for n, p in enumerate(pages)]
    j = new_journal(tmp_path)
    out = imported(run, j, "zendesk", *files, write(tmp_path, "ticket_metrics.json", json.dumps(
        {"ticket_metrics": [{"ticket_id": 701, "solved_at": _t("02", "10:00"), "reopens": 0}]})),
        "--severity-map", "high=2")
    got = {f["file"]: (f["read"], f["imported"], f["skipped"]) for f in out["files"]}
    assert got["time_page1.json"] == (2, 1, 1) and got["time_page2.json"] == (2, 1, 1)
    assert out["imported"] == ["701"] and [s["ticket"] for s in out["skipped"]] == ["702"]

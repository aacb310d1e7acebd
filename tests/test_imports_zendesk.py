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

"""Zendesk's own figures beside ours (issue 36): ticket_metrics states three for a solved ticket,
each {calendar, business} in minutes, and each is now set beside the figure of ours it matches,
every difference with its reasons (they were ignored but for full_resolution_time):

- requester_wait_time: the time the requester waited (new, open and on-hold), from created_at
  to the latest solve, less the time pending and any time solved before a re-open. It is the
  vendor's figure closest to the charter's restore time (elapsed, less waiting on the partner),
  so it is the main one, beside our restore hours;
- full_resolution_time: created_at to the latest solve, not paused: the vendor's clock's span,
  beside our clock's span (start to the monitoring-confirmed restore); full less requester wait
  is the time the vendor's main figure leaves out (its pause);
- agent_wait_time: the time pending (the agent waiting on the requester, the partner), beside
  our waits on you.

The tickets are in the real shapes (tests/data/imports/zendesk: the tickets of the incremental
export and the ticket_metrics answer); the values below are invented and worked by hand. UTC.
"""

import json
from pathlib import Path

import pytest

from tests.builders import make_journal
from tests.imports_common import events_of, imported, per_ticket, write

DATA = Path(__file__).parent / "data" / "imports" / "zendesk"
WINDOW = ("2024-03-01T09:00", "2024-10-31T17:00")
SEVERITY = "urgent=1,high=2,normal=3,low=4"


@pytest.fixture
def journal(tmp_path):
    return make_journal(tmp_path / "records.jsonl", [], tier="T2", window=WINDOW, synthetic=True)


def _ticket(ident, created):
    shape = json.loads((DATA / "incremental_tickets_cursor_page1.json").read_text())["tickets"][0]
    return {**shape, "id": ident, "created_at": created, "updated_at": created, "status": "solved",
            "custom_fields": [{"id": 900, "value": "SYNTHETIC intake canary"}]}


def _metrics(ticket, solved, full, requester, agent):
    shape = json.loads((DATA / "ticket_metrics_list.json").read_text())["ticket_metrics"][1]
    return {**shape, "ticket_id": ticket, "solved_at": solved, "reopens": 0,
            "full_resolution_time_in_minutes": {"calendar": full, "business": full},
            "requester_wait_time_in_minutes": {"calendar": requester, "business": requester},
            "agent_wait_time_in_minutes": {"calendar": agent, "business": agent}}


def _events(ticket, pending, resumed, solved):
    out = []
    for metric in ("requester_wait_time", "agent_work_time"):
        out += [{"ticket_id": ticket, "metric": metric, "instance_id": 1, "type": kind, "time": at}
                for kind, at in (("activate", "2024-05-07T09:00:00Z"), ("pause", pending), ("activate", resumed),
                                 ("fulfill", solved))]
    return out


def test_zendesk_requester_wait_agent_wait_and_full_resolution_beside_ours(run, tmp_path, journal):
    """Two tickets opened Tuesday 2024-05-07 09:00 UTC (10:00 in London: business hours, so the
    business figures equal the calendar ones; no detection field: the opening stands in), pending
    10:00 to 11:00 (a wait on you, from ticket_metric_events), the monitoring check named in custom
    field 900 confirming the restore at the solve. Ours = the clock less the wait.

    - 601 solved 13:00: ours 4 - 1 = 3.0 h. Zendesk: requester wait 180 min = 3.0 h (agrees),
      full resolution 240 min = 4.0 h beside our span 09:00-13:00 = 4.0 h, agent wait 60 min =
      1.0 h beside our 1.0 h wait: every figure agrees, no reason.
    - 602 solved 12:00: ours 3 - 1 = 2.0 h. Zendesk: requester wait 150 min = 2.5 h: -0.5 h; its
      pause is full less requester wait = 210 - 150 = 60 min = 1.0 h, as ours; its span, created to
      solved, is 3.0 h, so 3.0 - 1.0 = 2.0 h, not its 2.5 h: its records disagree with themselves
      by 0.5 h. Full resolution 210 min = 3.5 h beside our span 3.0 h: -0.5 h, the vendor's
      elapsed figure not being its own span. Agent wait 90 min = 1.5 h beside our 1.0 h: 0.5 h
      apart, ours counting only the waits inside our clock that the records name."""
    tickets = write(tmp_path, "tickets.json", json.dumps({"tickets": [_ticket(601, "2024-05-07T09:00:00Z"),
                                                                        _ticket(602, "2024-05-07T09:00:00Z")]}))
    metrics = write(tmp_path, "ticket_metrics.json", json.dumps({"ticket_metrics": [
        _metrics(601, "2024-05-07T13:00:00Z", 240, 180, 60), _metrics(602, "2024-05-07T12:00:00Z", 210, 150, 90)]}))
    events = write(tmp_path, "ticket_metric_events.json", json.dumps({"ticket_metric_events": [
        *_events(601, "2024-05-07T10:00:00Z", "2024-05-07T11:00:00Z", "2024-05-07T13:00:00Z"),
        *_events(602, "2024-05-07T10:00:00Z", "2024-05-07T11:00:00Z", "2024-05-07T12:00:00Z")]}))
    m = write(tmp_path, "map.toml", '[columns]\ncheck = "custom_field:900"\n')
    csv_out = tmp_path / "reconciled.csv"
    out = imported(run, journal, "zendesk", tickets, metrics, events, "--map", m, "--severity-map", SEVERITY,
                   "--csv", csv_out)
    t = per_ticket(journal)
    # a clock from the ticket's creation (no detection recorded) is a lower bound
    assert (t.loc["zendesk:601", "restore_hours_at_least"], t.loc["zendesk:602", "restore_hours_at_least"]) == \
        (pytest.approx(3.0), pytest.approx(2.0))
    rows = {r["ticket"]: r for r in out["reconcile"]["tickets"]}
    assert rows["601"]["vendor_measure"].startswith("Zendesk requester_wait_time_in_minutes")
    assert (rows["601"]["vendor_hours"], rows["601"]["agree"]) == (3.0, True)
    assert [(b["figure"], b["vendor_hours"], b["ours_hours"], b["reasons"]) for b in rows["601"]["beside"]] == [
        ("elapsed, start to stop, not paused", 4.0, pytest.approx(4.0), []),
        ("waiting on you", 1.0, pytest.approx(1.0), [])]
    r = rows["602"]
    assert (r["vendor_hours"], r["difference_hours"], r["agree"]) == (2.5, pytest.approx(-0.5), False)
    assert any("its records disagree with themselves by 0.50 h" in why for why in r["reasons"]), r["reasons"]
    elapsed, waits = r["beside"]
    assert (elapsed["vendor_hours"], elapsed["ours_hours"], elapsed["difference_hours"]) == \
        (3.5, pytest.approx(3.0), pytest.approx(-0.5))
    assert elapsed["reasons"] == ["the vendor's elapsed figure (3.50 h) is not its own clock's span (3.00 h, from "
                                  "2024-05-07T09:00:00+00:00 to 2024-05-07T12:00:00+00:00): its records disagree "
                                  "with themselves by 0.50 h"]
    assert (waits["vendor_hours"], waits["ours_hours"], waits["difference_hours"]) == \
        (1.5, pytest.approx(1.0), pytest.approx(-0.5))
    assert "0.50 h apart" in waits["reasons"][0]
    assert "waiting on you: theirs 1.50 h, ours 1.00 h" in csv_out.read_text()
    # The journal alone carries them (a report reconciles from it): 602's last resolution.
    last = [d for k, _a, d in events_of(journal, "zendesk:602") if "vendor_measure" in d][-1]
    assert (last["vendor_wall_ms"], last["vendor_paused_ms"], last["vendor_elapsed_ms"], last["vendor_waits_ms"]) == \
        (9_000_000, 3_600_000, 12_600_000, 5_400_000)


def test_zendesk_real_shape_metrics_of_a_reopened_ticket(run, journal):
    """ticket_metrics_list.json, ticket 502 (solved, re-opened once): requester wait 2815 min,
    full resolution 4255 min, agent wait 1440 min. In the journal: its main figure 2815 min =
    168,900,000 ms; the time it leaves out 4255 - 2815 = 1440 min = 86,400,000 ms; elapsed
    255,300,000 ms; waits 86,400,000 ms. No monitoring check is named, so there is no figure of
    ours: beside each, ours is none."""
    out = imported(run, journal, "zendesk", DATA / "incremental_tickets_cursor_page1.json",
                   DATA / "ticket_metrics_list.json", "--severity-map", SEVERITY)
    last = [d for k, _a, d in events_of(journal, "zendesk:502") if "vendor_measure" in d][-1]
    assert (last["vendor_wall_ms"], last["vendor_paused_ms"], last["vendor_elapsed_ms"], last["vendor_waits_ms"]) == \
        (168_900_000, 86_400_000, 255_300_000, 86_400_000)
    row = next(r for r in out["reconcile"]["tickets"] if r["ticket"] == "502")
    assert row["note"] == "no monitoring-confirmed restore, so no figure of ours"
    assert [(b["vendor_hours"], b["ours_hours"]) for b in row["beside"]] == [(4255 / 60, None), (24.0, None)]

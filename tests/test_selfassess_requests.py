"""The self-assessment's closing list, "ask your supplier for": every line that reads not
evidenced, or a figure known only as a range, is followed by the request for the record that would
settle it, the incidents of a ticket export included (their questions are never asked, so no "don't
know" asks for them). An outside attack (att36b, finding 10) found a restore line reading "not
evidenced: at least 6.00 hours (its detection time is a ticket's opening...)" and a list asking
only for drift alerts and a monthly report.

Calendar: the UK office; window and period in March 2026, GMT (so UTC). Expected lists are worked
by hand in each docstring.
"""

import json
from pathlib import Path

from day60 import journal as jr
from day60 import metrics as mx
from day60 import selfassess as sa
from day60.resources import data_dir
from tests.builders import make_journal

QS = sa.QuestionSet.load()
GAP = {g["id"]: g["request"] for g in QS.gaps}


def test_every_gap_has_a_rule_a_request_and_settles_a_line():
    """The data names the gaps; the code knows how to find each in the figures: the two lists are
    the same, and each gap names the rubric lines it settles and a request, never empty. A
    ``same_as`` names a question of the set (its item numbers left out)."""
    assert [g["id"] for g in QS.gaps] == list(sa.GAPS)
    keys = {".".join(p for p in q.key.split(".") if not p.isdigit())
            for q in sa.walk(QS, {"incidents.count": 1, "incidents.incident.1.waits": 1})}
    for g in QS.gaps:
        assert g["request"].strip() and set(g["lines"]) <= {"restore", "first-communication"}, g
        assert g.get("same_as") is None or g["same_as"] in keys, g


def _journal(tmp_path: Path) -> Path:
    return make_journal(tmp_path / "j.jsonl", [
        # G1: the ticket's opening stands in for its detection (severity 2), communicated, restored
        ("incident.detected", "G1", "2026-03-03T10:00", {"severity": 2, "source": "organic",
                                                         "clock_start": "ticket-opened"}),
        ("incident.communicated", "G1", "2026-03-03T10:30"),
        ("incident.restored", "G1", "2026-03-03T12:00", {"check": "probe"}),
        # G2: the partner's notice with no severity; closed with no monitoring check; no communication
        ("incident.partner-notice", "G2", "2026-03-04T10:00"),
        ("incident.ticket-closed", "G2", "2026-03-04T12:00", {"state": "Closed", "resolved": True}),
        # G3: communicated at 09:30, before its detection at 10:00 (out of order); restored
        ("incident.detected", "G3", "2026-03-05T10:00", {"severity": 1, "source": "organic"}),
        ("incident.communicated", "G3", "2026-03-05T09:30"),
        ("incident.restored", "G3", "2026-03-05T12:00", {"check": "probe"}),
        # G4: a wait on the partner from 10:30 that nobody ended; restored
        ("incident.detected", "G4", "2026-03-06T10:00", {"severity": 3, "source": "organic"}),
        ("incident.communicated", "G4", "2026-03-06T10:15"),
        ("incident.wait-start", "G4", "2026-03-06T10:30"),
        ("incident.restored", "G4", "2026-03-06T12:00", {"check": "probe"}),
        # G5: its records show it closed at no time they hold
        ("incident.detected", "G5", "2026-03-09T10:00", {"severity": 4, "source": "organic"}),
        ("incident.communicated", "G5", "2026-03-09T10:15"),
        ("incident.ticket-closed", "G5", "2026-03-09T10:00", {"state": "Closed", "resolved": True,
                                                             "instant": "not-evidenced"}),
        # G6: withdrawn (judged by no line), with no severity and no communication: asks for nothing
        ("incident.partner-notice", "G6", "2026-03-10T10:00"),
        ("incident.withdrawn", "G6", "2026-03-10T11:00", {"reason": "not reproducible"}),
    ], synthetic=True)


def test_each_gap_of_a_judged_incident_asks_for_its_record(tmp_path):
    """By hand, from the journal above: G1's detection is its ticket's opening (detection-stand-in);
    G3's communication is dated before its detection (out-of-order); G4 has a wait with no end
    (open-wait); G2 was closed with no monitoring check (unconfirmed); G5 closed at no recorded time
    (closed-untimed); G2 has no severity (no-severity) and no communication (no-communication).
    G6 is withdrawn: in no figure, so in no request. The gaps come in the data's order, each with
    its count and ids, after the answers' own requests (none here)."""
    table = mx.compute(jr.read(_journal(tmp_path))).tables["incidents"]
    assert sa.requests(QS, {}, table) == [
        f"{GAP['detection-stand-in']} (1 incident(s): G1)",
        f"{GAP['out-of-order']} (1 incident(s): G3)",
        f"{GAP['open-wait']} (1 incident(s): G4)",
        f"{GAP['unconfirmed']} (1 incident(s): G2)",
        f"{GAP['closed-untimed']} (1 incident(s): G5)",
        f"{GAP['no-severity']} (1 incident(s): G2)",
        f"{GAP['no-communication']} (1 incident(s): G2)",
    ]
    # a "don't know" already asking for the severity is not asked for twice
    asked = sa.requests(QS, {"incidents.count": 1, "incidents.incident.1.severity": None}, table)
    assert "the severity assigned to each incident" in asked
    assert not any(r.startswith(GAP["no-severity"]) for r in asked)
    # without the figures, the list is the answers' alone, as before
    assert sa.requests(QS, {}) == []


def test_many_incidents_are_counted_and_the_first_five_named(tmp_path):
    """Seven incidents detected (severity 2) and restored, none with a communication: one request,
    '(7 incident(s): N1, N2, N3, N4, N5 and 2 more)'."""
    events = []
    for n in range(1, 8):
        events += [("incident.detected", f"N{n}", f"2026-03-03T{9 + n:02d}:00", {"severity": 2, "source": "organic"}),
                   ("incident.restored", f"N{n}", f"2026-03-03T{9 + n:02d}:30", {"check": "probe"})]
    table = mx.compute(jr.read(make_journal(tmp_path / "j.jsonl", events))).tables["incidents"]
    assert sa.requests(QS, {}, table) == [f"{GAP['no-communication']} (7 incident(s): N1, N2, N3, N4, N5 and 2 more)"]


def test_the_attack_s_zendesk_ticket_asks_for_its_detection_and_communication(run, tmp_path):
    """att36b finding 10, its Zendesk ticket 301 (List Tickets shape, the attack's
    zd-tickets-301.json, with its ticket_metrics record, Ticket Metrics API shape): high (severity 2),
    opened Tue 3 Mar 09:00, solved 15:00, its restore confirmed by the map's check field
    ("SYNTHETIC canary passed"). The export holds no detection time, so the ticket's opening stands
    in and the restore is at least a range; nor any communication time. By hand the list asks,
    beyond the answers' own "don't know"s, for the detection (monitoring alert) time of zendesk:301
    and for its first communication; nothing about a restore check (it has one) or a severity."""
    tickets = {"tickets": [{"id": 301, "created_at": "2026-03-03T09:00:00Z", "updated_at": "2026-03-03T15:00:00Z",
                            "type": "incident", "subject": "SYNTHETIC", "priority": "high", "status": "solved",
                            "tags": [], "custom_fields": [{"id": 360001, "value": "SYNTHETIC canary passed"}]}],
               "next_page": None, "previous_page": None, "count": 1}
    metrics = {"ticket_metrics": [{"id": 31, "ticket_id": 301, "created_at": "2026-03-03T09:00:01Z",
                                   "solved_at": "2026-03-03T15:00:00Z",
                                   "full_resolution_time_in_minutes": {"calendar": 360, "business": 360}}]}
    files = {}
    for name, doc in (("tickets.json", tickets), ("metrics.json", metrics)):
        files[name] = tmp_path / name
        files[name].write_text(json.dumps(doc))
    (tmp_path / "map.toml").write_text('[columns]\ncheck = "custom_field:360001"\n[severity]\nurgent = 1\nhigh = 2\n'
                                       'normal = 3\nlow = 4\n')
    doc = json.loads((data_dir("selfassess") / "examples" / "synthetic-answers.json").read_text())
    raw = {k: v for k, v in doc["answers"].items() if not k.startswith("incidents.")}
    raw.update({"deal.start": "2026-03-01T00:00", "deal.end": "2026-04-01T00:00"})
    doc["answers"] = raw
    (tmp_path / "answers.json").write_text(json.dumps(doc))
    r = run("selfassess", "--answers", tmp_path / "answers.json", "--tickets", f"zendesk:{files['tickets.json']}",
            "--tickets", f"zendesk:{files['metrics.json']}", "--map", tmp_path / "map.toml",
            "--journal", tmp_path / "sa.jsonl", "--format", "json")
    assert r.exit_code == 0, r.output
    asked = json.loads(r.stdout)["ask_supplier_for"]
    assert f"{GAP['detection-stand-in']} (1 incident(s): zendesk:301)" in asked
    assert f"{GAP['no-communication']} (1 incident(s): zendesk:301)" in asked
    assert not any(a.startswith((GAP["unconfirmed"], GAP["no-severity"], GAP["closed-untimed"])) for a in asked)

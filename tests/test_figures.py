"""Figures that survive a supplier's dispute: one hand-worked journal per rule, and a property
test that every drift and incident lands in exactly one bucket.

Calendar: the UK office (Mon-Fri 09:00-17:30, England and Wales holidays); window Mon 2 March
09:00 to Fri 13 March 17:30 2026, all GMT. Expected figures are worked by hand in each docstring.
"""

import datetime as dt
import json

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from day60 import assess
from day60 import journal as jr
from day60 import metrics as mx
from day60.clock import BusinessCalendar
from day60.errors import InputError
from day60.resources import data_dir, example
from tests.budget import examples
from tests.builders import SIGN_OFF, make_journal
from tests.test_severity_rows import assert_rows_add_up

SOW = data_dir("clauses") / "examples" / "synthetic-sow.toml"
NOTE = {"affected_class": "scanned invoices", "evidence": "alert 4411"}
PASS = {"present": True, "covers_period": True, "supported": True}


def scored(path):
    return assess.score_journal(jr.read(path))


def line(result, ident):
    return next(x for x in result.result["lines"] if x["id"] == ident)


# ----- 1. partner-reported incidents and classification ---------------------------------------


def test_an_unclassified_incident_is_scored_at_the_strictest_target_not_dropped(tmp_path):
    """I1: the partner reports an outage Tue 3 Mar 10:00 without a severity; the supplier never
    logs it; restored 20:00: 10 h. At severity 1 (target 4 h, 60% from 8 h to 24 h) it earns 60%
    of the 25-point restore line: 15.0 (it would earn 22.5 at severity 2). Before this rule it
    was left out and the line read 25 of 25."""
    path = make_journal(tmp_path / "j.jsonl", [
        ("incident.partner-notice", "I1", "2026-03-03T10:00"),
        ("incident.restored", "I1", "2026-03-03T20:00", {"check": "intake canary"}),
    ])
    done = scored(path)
    inc = done.figures.summary["incidents"]
    assert inc["unclassified"] == 1 and inc["no_severity"]["count"] == 1
    assert inc["no_severity"]["max_hours"] == 10
    restore = line(done, "restore")
    [obs] = restore["figure"]["observations"]
    assert (obs["id"], obs["severity"], obs["value"]) == ("I1", 1, 10.0)
    assert restore["earned"] == pytest.approx(15.0)
    assert "no severity recorded" in obs["note"]


def test_a_partner_notice_carries_the_severity_and_classification_changes_it(tmp_path):
    """I3: notice Wed 4 Mar 10:00 at severity 3; the supplier reclassifies it severity 2 at 11:00
    (with a reason); restored 12:00, 2 h. It is a severity 2 incident: by_severity 2 counts 1,
    severity 3 counts none."""
    path = make_journal(tmp_path / "j.jsonl", [
        ("incident.partner-notice", "I3", "2026-03-04T10:00", {"severity": 3}),
        ("incident.classified", "I3", "2026-03-04T11:00", {"severity": 2, "reason": "payments affected"}),
        ("incident.restored", "I3", "2026-03-04T12:00", {"check": "probe"}),
    ])
    inc = mx.compute(jr.read(path)).summary["incidents"]
    assert inc["by_severity"]["2"]["count"] == 1 and inc["by_severity"]["2"]["max_hours"] == 2
    assert inc["by_severity"]["3"]["count"] == 0 and inc["unclassified"] == 0


# ----- 2. raising an incident is not detecting it --------------------------------------------


def test_the_restore_clock_starts_at_detection_not_at_the_raise(tmp_path):
    """Raised Tue 3 Mar 09:00 by the exercise; the supplier detects it 09:45 (severity 2);
    restored 11:45. The clock runs from detection: 2.0 h, not 2.75 h."""
    path = make_journal(tmp_path / "j.jsonl", [
        ("safety.agreed", "I1", "2026-03-01T10:00", SIGN_OFF),
        ("incident.raised", "I1", "2026-03-03T09:00"),
        ("incident.detected", "I1", "2026-03-03T09:45", {"severity": 2}),
        ("incident.restored", "I1", "2026-03-03T11:45", {"check": "probe"}),
    ])
    inc = mx.compute(jr.read(path)).summary["incidents"]
    assert inc["by_severity"]["2"]["max_hours"] == 2.0


def test_raise_needs_a_sign_off_and_a_detection_cannot_precede_it(tmp_path):
    path = make_journal(tmp_path / "j.jsonl", [])
    at = dt.datetime(2026, 3, 3, 9, tzinfo=dt.UTC)
    with pytest.raises(InputError, match="safety sign-off"):
        jr.append(path, "incident.raised", "I1", at)
    jr.append(path, "safety.agreed", "I1", at - dt.timedelta(days=1), SIGN_OFF)
    jr.append(path, "incident.raised", "I1", at)
    with pytest.raises(InputError, match="before the incident was raised"):
        jr.append(path, "incident.detected", "I1", at - dt.timedelta(minutes=5), {"severity": 2})


def test_a_raised_incident_never_detected_is_counted_and_earns_nothing(tmp_path):
    """Raised Tue 3 Mar 09:00, never detected or notified by the close: bucket "not detected";
    the restore line holds it as one observation worth nothing."""
    path = make_journal(tmp_path / "j.jsonl", [
        ("safety.agreed", "I1", "2026-03-01T10:00", SIGN_OFF),
        ("incident.raised", "I1", "2026-03-03T09:00"),
        ("exercise.close", "exercise", "2026-03-13T17:30"),
    ])
    done = scored(path)
    assert done.figures.summary["incidents"]["not_detected"] == 1
    restore = line(done, "restore")
    assert restore["earned"] == 0 and restore["figure"]["observations"][0]["note"].startswith("never detected")


# ----- 3. the window at both ends ------------------------------------------------------------


def test_the_window_is_enforced_at_both_ends(tmp_path):
    """D1 organic onset Sun 1 Mar and notice the same afternoon, both before the window: outside,
    counted apart (a drift notified in the window counts whole whenever its onset, as an incident
    restored in it does: issue 38). D2 onset Thu 12 Mar 10:00, notice Mon 16 Mar, after the close:
    not detected within the window, never scored. I1 reported Fri 27 Feb and restored Sat 28 Feb:
    outside. R1 criterion Sun 1 Mar: outside."""
    path = make_journal(tmp_path / "j.jsonl", [
        ("drift.onset", "D1", "2026-03-01T10:00", {"source": "organic"}),
        ("drift.notice", "D1", "2026-03-01T15:00", NOTE),
        ("drift.onset", "D2", "2026-03-12T10:00", {"source": "organic"}),
        ("drift.detected", "D2", "2026-03-16T09:00"),
        ("drift.notice", "D2", "2026-03-16T10:00", NOTE),
        ("incident.partner-notice", "I1", "2026-02-27T10:00", {"severity": 2}),
        ("incident.restored", "I1", "2026-02-28T10:00", {"check": "probe"}),
        ("rollback.criterion-met", "R1", "2026-03-01T10:00", {"kind": "rehearsal"}),
        ("rollback.decision", "R1", "2026-03-01T10:05"),
        ("exercise.close", "exercise", "2026-03-13T17:30"),
    ], tier="T2")
    s = mx.compute(jr.read(path)).summary
    obs = {o["id"]: o for o in s["drift"]["observations"]}
    assert obs["D1"]["status"] == "outside the window"
    assert obs["D2"]["status"] == mx.NOT_DETECTED and obs["D2"]["notice_hours"] is None
    assert obs["D2"]["detection_hours"] is None and "after the window closed" in obs["D2"]["reason"]
    assert s["drift"]["population"] == 1 and s["drift"]["outside_window"] == 1
    assert s["incidents"]["outside_the_window"] == 1 and s["incidents"]["by_severity"]["2"]["count"] == 0
    assert s["rollbacks"]["rehearsal"]["count"] == 0 and s["rollbacks"]["outside_window"]["ids"] == ["R1"]
    done = scored(path)
    assert line(done, "drift-detection")["earned"] == 0  # a detection four days after the close earns nothing


# ----- 4. one definition of detection ---------------------------------------------------------


def test_detection_is_judged_over_the_same_population_in_metrics_and_rubric(tmp_path):
    """D1 onset Tue 3 Mar 09:00, detected 11:00 (2 bh), notice 12:00. D2 onset 09:00, notice 14:00,
    no detection recorded. Metrics: detection count 1 of population 2, max not a number; D2 was
    found (it was notified) but its detection time was not disclosed, so it reads "not evidenced",
    never "not detected within the window" (3.18.2). Rubric: two observations, D1 full marks (2 bh
    is within 8); D2's notice, 5 bh after its onset, proves detection no later (issue 38): at most
    5 bh, within 8 too, so full marks: 10 x 2/2 = 10 (before: D2 nothing, 10 x 1/2 = 5)."""
    path = make_journal(tmp_path / "j.jsonl", [
        ("drift.onset", "D1", "2026-03-03T09:00", {"source": "organic", "affected_class": "scanned invoices"}),
        ("drift.detected", "D1", "2026-03-03T11:00"),
        ("drift.notice", "D1", "2026-03-03T12:00", NOTE),
        ("drift.onset", "D2", "2026-03-03T09:00", {"source": "organic", "affected_class": "scanned invoices"}),
        ("drift.notice", "D2", "2026-03-03T14:00", NOTE),
        ("exercise.close", "exercise", "2026-03-13T17:30"),
    ], tier="T2")
    done = scored(path)
    det = done.figures.summary["drift"]["summary"]["detection_business_hours"]
    assert (det["count"], det["population"], det["not_detected"], det["not_disclosed"], det["max"]) == \
        (1, 2, 0, 1, None)
    assert det["max_reason"] == "not evidenced: no detection time disclosed (1 of 2)"
    detection = line(done, "drift-detection")
    assert detection["figure"]["count"] == 2 and detection["earned"] == pytest.approx(10.0)
    assert det["not_disclosed_at_most"] == 5.0


# ----- 5 and 6. sealing and the safety gate -------------------------------------------------


def test_an_injected_onset_must_be_sealed_and_name_its_class(tmp_path):
    path = make_journal(tmp_path / "j.jsonl", [("safety.agreed", "D1", "2026-03-01T10:00", SIGN_OFF)])
    at = dt.datetime(2026, 3, 3, 9, tzinfo=dt.UTC)
    with pytest.raises(InputError, match="must be sealed"):
        jr.append(path, "drift.onset", "D1", at, {"affected_class": "invoices"})
    with pytest.raises(InputError, match="affected_class"):
        jr.append(path, "drift.onset", "D1", at, {}, seal=tmp_path / "held.json")
    jr.append(path, "drift.onset", "D9", at, {"source": "organic"})  # found in the records: no seal needed


def test_the_sign_off_must_come_before_the_injection(tmp_path):
    """Signed Thu 5 Mar, injected Tue 3 Mar: refused, sealed or not; an injected incident opened by a
    partner notice meets the same gate; a sign-off must attest no live personal data."""
    path = make_journal(tmp_path / "j.jsonl", [("safety.agreed", "D1", "2026-03-05T10:00", SIGN_OFF)])
    at = dt.datetime(2026, 3, 3, 9, tzinfo=dt.UTC)
    with pytest.raises(InputError, match="not after its safety sign-off"):
        jr.append(path, "drift.onset", "D1", at, {"affected_class": "x"}, seal=tmp_path / "held.json")
    assert not (tmp_path / "held.json").exists() or json.loads((tmp_path / "held.json").read_text())
    with pytest.raises(InputError, match="safety sign-off"):
        jr.append(path, "incident.partner-notice", "I1", at, {"source": "exercise"})
    with pytest.raises(InputError, match="no_live_personal_data"):
        jr.append(path, "safety.agreed", "D2", at, {k: v for k, v in SIGN_OFF.items()
                                                       if k != "no_live_personal_data"})


def test_an_injection_not_run_or_stopped_says_so_where_lines_are_not_exercised(tmp_path):
    """D1 not run (the stop owner was unavailable); I1 raised then stopped by its stop condition.
    The drift lines read "not exercised" naming D1's reason; I1 is reported stopped."""
    path = make_journal(tmp_path / "j.jsonl", [
        ("safety.agreed", "D1", "2026-03-01T10:00", SIGN_OFF),
        ("injection.not-run", "D1", "2026-03-03T09:00", {"reason": "stop owner unavailable"}),
        ("safety.agreed", "I1", "2026-03-01T10:00", SIGN_OFF),
        ("incident.raised", "I1", "2026-03-04T09:00"),
        ("injection.stopped", "I1", "2026-03-04T09:20", {"reason": "error rate above 5%"}),
    ])
    done = scored(path)
    notice = line(done, "drift-notice")
    assert notice["status"] == "not exercised" and "D1 not run: stop owner unavailable" in notice["reason"]
    assert done.figures.summary["injections"]["stopped"][0]["id"] == "I1"
    with pytest.raises(InputError, match="recorded as not run"):
        jr.append(path, "drift.onset", "D1", dt.datetime(2026, 3, 5, 9, tzinfo=dt.UTC),
                  {"affected_class": "x"}, seal=tmp_path / "held2.json")


# ----- 7. the tier check checks the tier -----------------------------------------------------


def test_a_t3_journal_without_its_injections_is_not_demonstrated(tmp_path, run):
    path = make_journal(tmp_path / "j.jsonl", [
        ("incident.detected", "I1", "2026-03-03T10:00", {"severity": 2, "source": "organic"}),
    ])
    check = scored(path).result["tier_check"]
    assert not check["met"]
    assert set(check["problems"]) == {
        "no drift was injected under safety sign-off with its onset in the window",
        "no incident was raised by the exercise under safety sign-off",
        "no rollback was forced on production in the window",
        "no monthly report was received and audited in the window"}
    r = run("score", path)
    assert "tier T3 (Announced injection), tier not demonstrated: no monthly report" in r.stdout


def test_t4_requires_an_unannounced_window(tmp_path):
    path = make_journal(tmp_path / "j.jsonl", [], tier="T4")
    problems = scored(path).result["tier_check"]["problems"]
    assert any("told the exercise window" in p for p in problems)
    path = make_journal(tmp_path / "k.jsonl", [], tier="T4", window_announced=False)
    assert not any("told the exercise window" in p for p in scored(path).result["tier_check"]["problems"])


# ----- 8. the worst case is never hidden ------------------------------------------------------


def test_comply_reports_the_population_and_the_drift_never_notified(tmp_path, run):
    """D1 notified after 3 bh; D2 never notified by the close. comply: a breach naming 1 of 2, the
    largest measured notice (3 bh) counted over n=1, not n=2."""
    path = make_journal(tmp_path / "j.jsonl", [
        ("drift.onset", "D1", "2026-03-03T09:00", {"source": "organic", "affected_class": "scanned invoices"}),
        ("drift.notice", "D1", "2026-03-03T12:00", NOTE),
        ("drift.onset", "D2", "2026-03-03T09:00", {"source": "organic", "affected_class": "scanned invoices"}),
        ("exercise.close", "exercise", "2026-03-13T17:30"),
    ])
    r = run("comply", path, "--sow", SOW, "--format", "json", "--parties-differ")
    row = next(x for x in json.loads(r.stdout)["checks"] if x["check"] == "drift-notice")
    assert row["status"] == "not met" and row["n"] == 1 and row["value"] == 3.0
    assert row["reason"] == "1 of 2 drift observation(s) not notified within the window"


# ----- 9. smaller holes ------------------------------------------------------------------------


def test_a_rollback_decision_before_its_criterion_is_refused(tmp_path):
    path = make_journal(tmp_path / "j.jsonl", [
        ("rollback.criterion-met", "R1", "2026-03-03T14:02", {"kind": "rehearsal"})])
    with pytest.raises(InputError, match="before its criterion was met"):
        jr.append(path, "rollback.decision", "R1", dt.datetime(2026, 3, 3, 13, 0, tzinfo=dt.UTC))


def test_false_alerts_cite_the_alerts(tmp_path):
    path = make_journal(tmp_path / "j.jsonl", [
        ("drift.onset", "D1", "2026-03-03T09:00", {"source": "organic", "affected_class": "scanned invoices"}),
        ("drift.notice", "D1", "2026-03-03T12:00", NOTE),
        ("drift.false-alert", "A1", "2026-03-04T09:00"),
        ("drift.false-alert", "A2", "2026-03-05T09:00"),
    ], tier="T2")
    assert line(scored(path), "false-alerts")["evidence"] == [3, 4]


def test_a_notice_naming_another_class_is_not_notice_of_the_drift(tmp_path):
    """Injected class "scanned invoices"; a notice Tue 10:00 names "claim forms" and does not count;
    the one at Wed 10:00 names the class: lead time 25 h."""
    path = make_journal(tmp_path / "j.jsonl", [
        ("drift.onset", "D1", "2026-03-03T09:00", {"source": "organic", "affected_class": "Scanned  invoices"}),
        ("drift.notice", "D1", "2026-03-03T10:00", {"affected_class": "claim forms", "evidence": "e"}),
        ("drift.notice", "D1", "2026-03-04T10:00", NOTE),
    ])
    [obs] = mx.compute(jr.read(path)).summary["drift"]["observations"]
    assert obs["notice_hours"] == 25 and "another class" in obs["reason"]


def test_every_report_in_the_window_is_judged_and_a_false_not_applicable_is_flagged(tmp_path):
    """Two reports. 2026-02 received Mon 2 Mar: all ten pass (10/10). 2026-03 received Tue 7 Apr
    (after the close, but its month overlaps the window, so it is judged): nine pass, and
    "incidents-by-severity" is marked not applicable though incident I1 started on 4 March: it
    fails, 9/10. Completeness earns 10 x (100 + 90) / 2 / 100 = 9.5. Timeliness: due the 5th
    business day of March (Fri 6 Mar) and of April (1, 2, then Good Friday 3 and Easter Monday 6
    are holidays, 7, 8, 9: Thu 9 Apr); both on time."""
    elements = [e["id"] for e in mx.default_report_elements()]
    events = [("incident.detected", "I1", "2026-03-04T10:00", {"severity": 3, "source": "organic"}),
              ("report.received", "2026-02", "2026-03-02T10:00")]
    events += [("report.element", el, "2026-03-02T11:00", {**PASS, "period": "2026-02"}) for el in elements]
    events.append(("report.received", "2026-03", "2026-04-07T10:00"))
    events += [("report.element", el, "2026-04-07T11:00",
                {**PASS, "period": "2026-03", **({"not_applicable": True} if el == "incidents-by-severity" else {})})
               for el in elements]
    done = scored(make_journal(tmp_path / "j.jsonl", events))
    periods = {p["period"]: p for p in done.figures.summary["report"]["periods"]}
    assert periods["2026-02"]["completeness_percent"] == 100 and periods["2026-03"]["completeness_percent"] == 90
    assert periods["2026-03"]["due"] == "2026-04-09"
    assert "journal shows 1 incident" in periods["2026-03"]["failing"][0]["reason"]
    assert line(done, "report-completeness")["earned"] == pytest.approx(9.5)
    assert line(done, "report-timeliness")["earned"] == 5


# ----- every drift and incident in exactly one bucket --------------------------------------------

CAL = BusinessCalendar.load(example("uk-office.toml"))
W0 = dt.datetime(2026, 3, 2, 9, tzinfo=dt.UTC)
W1 = dt.datetime(2026, 3, 13, 17, 30, tzinfo=dt.UTC)
minutes = st.integers(-3 * 24 * 60, 15 * 24 * 60)


def _after(draw, t: dt.datetime, most: int = 3000) -> dt.datetime:
    return t + dt.timedelta(minutes=draw(st.integers(0, most)))


def test_a_wait_opened_before_the_clock_counts_only_from_the_clock(tmp_path):
    """A wait on the partner opened an hour before the ticket was logged counts from the clock's
    start, never before it: detected Tue 3 Mar 10:00, wait 09:00-10:30, restored 11:00 (GMT, in
    business hours). Clock 10:00-11:00 = 1 h; the wait inside it 10:00-10:30 = 0.5 h; restore
    time 1 - 0.5 = 0.5 h, wall and business alike. Counting the wait from 09:00 would make it
    1.5 h and the restore time -0.5 h. (The bucket property test below draws such a wait about
    once in forty examples; no other test of the figures has one.)"""
    path = make_journal(tmp_path / "j.jsonl", [
        ("incident.detected", "I1", "2026-03-03T10:00", {"severity": 2, "source": "organic"}),
        ("incident.wait-start", "I1", "2026-03-03T09:00"),
        ("incident.wait-end", "I1", "2026-03-03T10:30"),
        ("incident.restored", "I1", "2026-03-03T11:00", {"check": "probe"}),
    ])
    figures = mx.compute(jr.read(path))
    row = figures.tables["incidents"].set_index("id").loc["I1"]
    assert row["status"] == "restored"
    assert row["waiting_on_partner_hours"] == pytest.approx(0.5)
    assert row["restore_hours"] == pytest.approx(0.5) and row["restore_business_hours"] == pytest.approx(0.5)
    assert figures.summary["incidents"]["by_severity"]["2"]["max_hours"] == pytest.approx(0.5)


@st.composite
def incident_events(draw, ident: str):
    """One incident as a tool would log it, within the rules of fact: its clock (detection, partner
    notice, or both; a detection may stand in with the ticket's opening), waits on the partner
    (some opening before the clock, some still open at the restore or ending after it), then an
    ending (restored, closed without a restore, withdrawn, excluded, or still open), re-opened and
    ended again or not."""
    t0 = W0 + dt.timedelta(minutes=draw(minutes))
    how = draw(st.sampled_from(["detected", "notice", "both", "raised", "raised+detected"]))
    events = []
    if how.startswith("raised"):
        events += [("safety.agreed", ident, W0 - dt.timedelta(days=5), SIGN_OFF), ("incident.raised", ident, t0, {})]
    severity = draw(st.none() | st.integers(1, 4))
    if how in ("notice", "both"):
        events.append(("incident.partner-notice", ident, t0, {} if severity is None else {"severity": severity}))
    if how in ("detected", "both", "raised+detected"):
        data = {"severity": severity or 2, "source": "organic" if how != "raised+detected" else "exercise"}
        if draw(st.integers(0, 3)) == 0:
            data["clock_start"] = "ticket-opened"
        events.append(("incident.detected", ident, t0 + dt.timedelta(minutes=draw(st.integers(0, 600))), data))
    if how == "raised":
        return events
    for _ in range(draw(st.integers(0, 2))):  # waits on the partner, one open at a time
        opened = t0 + dt.timedelta(minutes=draw(st.integers(-120, 4000)))
        events.append(("incident.wait-start", ident, opened, {}))
        if draw(st.integers(0, 3)) == 0:
            break  # never ended: open at the restore, if there is one
        events.append(("incident.wait-end", ident, _after(draw, opened), {}))
    end = draw(st.sampled_from(["restored", "closed", "withdrawn", "excluded", "open"]))
    later = t0 + dt.timedelta(minutes=draw(st.integers(601, 6000)))
    if end in ("withdrawn", "excluded"):
        return [*events, (f"incident.{end}", ident, later, {"reason": "r"})]
    for _ in range(draw(st.integers(0, 2)) if end != "open" else 0):
        if end == "restored":
            events.append(("incident.restored", ident, later, {"check": "probe"}))
        else:
            events.append(("incident.ticket-closed", ident, later, {"state": "Closed", "resolved": True}))
        if not draw(st.booleans()):
            return events
        later = _after(draw, later)
        events.append(("incident.reopened", ident, later, {"reason": "relapse"}))
        later = _after(draw, later)
        end = draw(st.sampled_from(["restored", "closed"]))
    if end == "restored":
        events.append(("incident.restored", ident, later, {"check": "probe"}))
    elif end == "closed":
        events.append(("incident.ticket-closed", ident, later, {"state": "Closed", "resolved": False}))
    return events


@st.composite
def drift_events(draw, ident: str):
    t0 = W0 + dt.timedelta(minutes=draw(minutes))
    events = [("drift.onset", ident, t0, {"source": "organic", "affected_class": "c"})]
    for kind in ("drift.detected", "drift.notice"):
        if draw(st.booleans()):
            data = {"affected_class": draw(st.sampled_from(["c", "other"])), "evidence": "e"} \
                if kind == "drift.notice" else {}
            events.append((kind, ident, t0 + dt.timedelta(minutes=draw(st.integers(0, 9000))), data))
    if draw(st.integers(0, 5)) == 0:
        events.append((draw(st.sampled_from(["drift.announced", "drift.told"])), ident, t0, {}))
    return events


@st.composite
def rollback_events(draw, ident: str):
    """A production rollback under a sign-off, or a rehearsal: criterion, and maybe a decision, serving,
    smoke pass and re-queue, each of which may fall after the window's end."""
    kind = draw(st.sampled_from(["production", "rehearsal"]))
    t0 = W0 + dt.timedelta(minutes=draw(minutes))
    events = [("safety.agreed", ident, W0 - dt.timedelta(days=5), SIGN_OFF)] if kind == "production" else []
    events.append(("rollback.criterion-met", ident, t0, {"kind": kind}))
    if draw(st.integers(0, 4)) == 0:
        return events  # never decided
    decided = _after(draw, t0, 120)
    events.append(("rollback.decision", ident, decided, {}))
    for step, data in (("serving", {}), ("smoke-pass", {"model_pin": "m", "prompt_version": "p",
                                                        "threshold_set": "t"}), ("requeue-complete", {})):
        if draw(st.integers(0, 3)):
            events.append((f"rollback.{step}", ident, _after(draw, decided, 600), data))
    return events


def _upheld(draw, events, line_id: str, ids: list[str]) -> list[str]:
    """An upheld dispute of ``line_id`` excluding some of ``ids`` (after the events, as disputes are)."""
    chosen = draw(st.lists(st.sampled_from(ids), unique=True, max_size=len(ids))) if ids else []
    if not chosen:
        return []
    at = W1 + dt.timedelta(days=1)
    events.append(("dispute", f"dispute-{line_id}", at, {"line": line_id, "reason": "r", "raised_by": "a",
                                                         "organisation": "o"}))
    events.append(("resolve", "r", at, {"target": len(events), "outcome": "upheld", "reason": "agreed",
                                        "exclude": chosen}))
    return chosen


# 60 in ci: at 30 the draw missed an incident restored before the window counted as restored in
# it (the lower bound of 'in the window' dropped), which 60 caught.
@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), n_inc=st.integers(0, 6), n_drift=st.integers(0, 5), n_rb=st.integers(0, 4),
       closed=st.booleans())
def test_every_drift_incident_and_rollback_lands_in_exactly_one_bucket(tmp_path_factory, data, n_inc, n_drift,
                                                                        n_rb, closed):
    """Whatever the events (re-opens, closures, waits, stand-in clocks, steps after the window,
    upheld exclusions), each drift, incident and rollback is in one bucket and the counts reconcile."""
    events = []
    for i in range(n_inc):
        events += data.draw(incident_events(f"I{i}"))
    for i in range(n_drift):
        events += data.draw(drift_events(f"D{i}"))
    for i in range(n_rb):
        events += data.draw(rollback_events(f"R{i}"))
    if closed:
        events.append(("exercise.close", "exercise", W1, {}))
    raised = sorted({e[1] for e in events if e[0].startswith("incident.")})
    gone = {"incident": _upheld(data.draw, events, "restore", raised),
            "rollback": _upheld(data.draw, events, "rollback-time", [f"R{i}" for i in range(n_rb)]),
            "drift": _upheld(data.draw, events, "drift-notice", [f"D{i}" for i in range(n_drift)])}
    path = tmp_path_factory.mktemp("b") / "j.jsonl"
    fields = {"partner": "p", "supplier": "s", "deployment": "d", "tier": "T3", "runner": "r",
              "calendar": CAL.to_dict(), "window": {"start": W0.isoformat(), "end": W1.isoformat()}}
    figures = mx.compute(jr.build(path, fields, events))
    drift, incidents, rollbacks = (figures.tables[k] for k in ("drift", "incidents", "rollbacks"))
    assert len(drift) == n_drift and set(drift["status"]) <= set(mx.DRIFT_BUCKETS)
    assert len(incidents) == len(raised) == n_inc and set(incidents["status"]) <= set(mx.INCIDENT_BUCKETS)
    assert len(rollbacks) == n_rb and set(rollbacks["status"]) <= {"in the window", "outside the window", "excluded"}
    d = figures.summary["drift"]
    assert d["notified"] + d["not_detected"] + d["sealed"] + d["open"] + d["outside_window"] + d["stopped"] \
        + d["excluded"]["announced"] + d["excluded"]["told"] + d["excluded"]["by_dispute"] + d["no_onset"] \
        + d["not_evidenced"] == n_drift
    assert set(drift.loc[drift["status"] == "excluded", "id"]) <= set(gone["drift"])
    i = figures.summary["incidents"]
    assert sum(i[b.replace(" ", "_")] for b in mx.INCIDENT_BUCKETS) == i["population"] == n_inc
    assert sum(b["count"] + b["ranged"] for b in i["by_severity"].values()) + i["no_severity"]["count"] \
        + i["no_severity"]["ranged"] == int(incidents["restored_in_window"].sum())
    # and every incident is in one severity row (1-4 or none) under its own bucket: the rows add up
    assert_rows_add_up(i)
    assert set(gone["incident"]) <= set(incidents.loc[incidents["status"].isin(["excluded", "withdrawn"]), "id"])
    assert i["reopened"] == int((incidents["reopens"] > 0).sum())
    assert i["started_before_window"] == int((incidents["restored_in_window"]
                                              & (incidents["start"] < pd.Timestamp(W0))).sum())
    done = incidents[incidents["restored_in_window"]]
    assert ((done["restored"] >= pd.Timestamp(W0)) & (done["restored"] <= pd.Timestamp(W1))).all()
    assert (done["restore_hours_at_least"] >= 0).all() and (done["waiting_on_partner_hours"] >= 0).all()
    # a figure only where nothing leaves it a range; a range never runs backwards
    assert (done["restore_hours"].isna() == done["restore_evidence"].notna()).all()
    most, least = done["restore_hours_at_most"], done["restore_hours_at_least"]
    assert (most.isna() | (most >= least)).all()
    assert (done["open_wait_hours"] <= done["waiting_on_partner_hours"] + done["change_window_hours"] + 1e-9).all()
    # an incident still unrestored at the window's end is never outside it, however early it started
    outside = incidents[incidents["status"] == "outside the window"]
    assert (outside["restored"].dropna() < pd.Timestamp(W0)).all()
    assert ((outside["start"] > pd.Timestamp(W1)) | (outside["start"] < pd.Timestamp(W0))).all()
    r = figures.summary["rollbacks"]
    assert r["production"]["count"] + r["rehearsal"]["count"] + r["outside_window"]["count"] \
        + r["excluded"]["count"] == n_rb
    assert set(r["excluded"]["ids"]) == set(gone["rollback"])
    for col in mx.ROLLBACK_TIMES:
        kept = rollbacks[col].dropna()
        assert (kept >= 0).all()
    for kind in ("production", "rehearsal"):
        mine = rollbacks[(rollbacks["kind"] == kind) & (rollbacks["status"] == "in the window")]
        assert r[kind]["rollback_minutes"]["count"] == int(mine["rollback_minutes"].notna().sum())

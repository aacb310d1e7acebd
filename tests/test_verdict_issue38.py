"""Issue 38: verdicts two audits from the charter alone read differently, most in the measured
party's favour. Each figure is worked by hand from the charter in the test's docstring (sections
named). The calendar is the UK office (Europe/London, Monday to Friday 09:00 to 17:30, England's
bank holidays); the window is Mon 2 Mar 09:00 to Fri 13 Mar 17:30 2026 (GMT throughout), unless a
test says otherwise."""

import json

import pytest

from day60 import journal as jr
from day60.resources import data_dir
from tests.builders import SIGN_OFF, make_journal
from tests.readings import ELEMENTS, PASS, SMOKE, line, rows, scored

SOW = data_dir("clauses") / "examples" / "synthetic-sow.toml"
ORGANIC = {"source": "organic"}
NOTE = {"affected_class": "scanned invoices", "evidence": "alert 1"}
CLOSE = ("exercise.close", "exercise", "2026-03-13T17:30")
NA = {**PASS, "not_applicable": True}


def comply_rows(run, path, *extra):
    r = run("comply", path, "--sow", SOW, "--format", "json", "--parties-differ", *extra)
    return r, {x["check"]: x for x in json.loads(r.stdout)["checks"]}


def report(period, at, overrides=None, elements_at=None):
    """A report received at ``at`` with every default element passing, except ``overrides``."""
    out = [("report.received", period, at)]
    out += [("report.element", el, elements_at or at, {**(overrides or {}).get(el, PASS), "period": period})
            for el in ELEMENTS]
    return out


# ----- 1. a report that never arrives is a breach, not "not run" (3.21.5, 3.21.6, 3.21.8, 3.1.8) -------


def test_a_monthly_report_that_never_arrives_is_a_breach(tmp_path, run):
    """T1. No report is ever received. February's report was due by the fifth business day of
    March: Mon 2 (1st), Tue 3, Wed 4, Thu 5, Fri 6 Mar (5th). The window (2 Mar 09:00 to 13 Mar
    17:30) holds the whole of 6 Mar, so by the close the report is overdue: every required
    element is absent (3.21.5: an element fails when simply absent), completeness 0 of 10 = 0%,
    and it was not delivered by its due date (3.21.6), so timeliness is 0 of 1. Both lines are
    scored: completeness 10 x 0 = 0, timeliness 5 x 0/1 = 0, score 0 of 100 (before: both lines
    read "not exercised" and the score "not run"). March's report is due in April, after the
    close, and January's was due on 6 Feb, before the window opened: neither is judged.
    comply, with the deal's added element (11 required): completeness 0.0 percent, not met;
    timeliness not met, the report not received by its due date; exit 1 (before: both not run,
    exit 0)."""
    path = make_journal(tmp_path / "j.jsonl", [CLOSE], tier="T1")
    done = scored(path)
    rep = done.figures.summary["report"]
    [period] = rep["periods"]
    assert (period["period"], period["due"], period["delivered"], period["on_time"]) == \
        ("2026-02", "2026-03-06", None, False)
    assert (period["required"], period["passing"], period["completeness_percent"]) == (10, 0, 0)
    assert period["failing"][0]["reason"] == "absent: no report for 2026-02 was received by the close (due 2026-03-06)"
    assert rep["missing"] == ["2026-02"] and rep["late"] == 1
    completeness, timeliness = line(done, "report-completeness"), line(done, "report-timeliness")
    assert (completeness["status"], completeness["earned"]) == ("scored", 0)
    assert (timeliness["status"], timeliness["earned"]) == ("scored", 0)
    assert timeliness["reason"] == "2026-02 not received by the close, due 2026-03-06"
    assert done.result["score"] == 0
    r, checks = comply_rows(run, path)
    assert (checks["report-completeness"]["status"], checks["report-completeness"]["value"],
            checks["report-completeness"]["n"]) == ("not met", 0.0, 11)
    assert checks["report-timeliness"]["status"] == "not met"
    assert checks["report-timeliness"]["reason"] == "2026-02 not received by the close (due 2026-03-06)"
    assert r.exit_code == 1


def test_a_report_not_yet_due_at_the_close_is_not_judged_missing(tmp_path, run):
    """Window Mon 2 Mar 09:00 to Fri 6 Mar 17:30: February's report is due on 6 Mar, and the
    window closes at 17:30 that day, before the due date ends, so a report delivered that evening
    would still be on time: it is not missing (not run, as before). Before the close of a window
    that does hold the whole due date, the missing report is not yet judged either: the exercise
    may still record it (provisional)."""
    short = make_journal(tmp_path / "a.jsonl", [("exercise.close", "exercise", "2026-03-06T17:30")], tier="T1",
                         window=("2026-03-02T09:00", "2026-03-06T17:30"))
    rep = scored(short).figures.summary["report"]
    assert rep["periods"] == [] and rep["missing"] == []
    open_ = make_journal(tmp_path / "b.jsonl", [], tier="T1")
    rep = scored(open_).figures.summary["report"]
    assert rep["periods"] == [] and rep["overdue_so_far"] == ["2026-02"]
    _, checks = comply_rows(run, open_)
    assert checks["report-timeliness"]["status"] == "not run"
    assert "2026-02 not received so far" in checks["report-timeliness"]["reason"]


# ----- 2. a ticket's opening is not the restore clock's start (3.19.3) ----------------------------------


def test_a_ticket_opening_standing_in_for_detection_is_not_a_measurement(tmp_path, run):
    """Severity 1 (target 4 h, slide end 8, cut-off 24), imported with no detection time: each
    detection instant is the ticket's opening (clock_start "ticket-opened"). The charter starts
    the clock at the supplier's detection or the partner's notice, never at the ticket (3.19.3),
    and a ticket is opened no earlier than the detection it records, so from the ticket the
    restore is only a lower bound. I1: ticket Tue 3 Mar 10:00, restored 13:00: at least 3 h,
    which cannot show the 4 h target met; first communication 10:30 is at least 0.5 h after a
    start no later than 10:00. I2: ticket Wed 4 Mar 10:00, restored 18:00: at least 8 h.
    Nothing bounds either from above, so neither earns a point: restore 0 of 25 and first
    communication 0 of 10 (before: I1 full marks and I2 0.6, 25 x 1.6 / 2 = 20; first
    communication 10 x 1 / 2 = 5). comply restore-sev1: I2's 8 h lower bound is already above
    the deal's 4 h: not met, exit 1, said as a lower bound. With I1 alone, 3 h is below 4 h but
    only as a lower bound: not run, not evidenced (before: met, 3.00 hours)."""
    stand_in = {"severity": 1, **ORGANIC, "clock_start": "ticket-opened"}
    i1 = [("incident.detected", "I1", "2026-03-03T10:00", stand_in),
          ("incident.communicated", "I1", "2026-03-03T10:30"),
          ("incident.restored", "I1", "2026-03-03T13:00", {"check": "probe"})]
    i2 = [("incident.detected", "I2", "2026-03-04T10:00", stand_in),
          ("incident.restored", "I2", "2026-03-04T18:00", {"check": "probe"})]
    path = make_journal(tmp_path / "j.jsonl", [*i1, *i2, CLOSE])
    done = scored(path)
    table = rows(done.figures.tables["incidents"])
    assert (table["I1"]["restore_hours"], table["I1"]["restore_hours_at_least"],
            table["I1"]["restore_hours_at_most"]) == (None, 3.0, None)
    assert "3.19.3" in table["I1"]["restore_evidence"]
    assert (table["I1"]["first_communication_hours"], table["I1"]["first_communication_hours_at_least"]) == \
        (None, 0.5)
    sev1 = done.figures.summary["incidents"]["by_severity"]["1"]
    assert (sev1["count"], sev1["ranged"]) == (0, 2)
    restore = line(done, "restore")
    assert restore["earned"] == 0
    assert "at least 3.00 hours" in restore["figure"]["observations"][0]["note"]
    assert line(done, "first-communication")["earned"] == 0
    r, checks = comply_rows(run, path)
    assert checks["restore-sev1"]["status"] == "not met" and r.exit_code == 1
    assert "I2 at least 8.00 hours" in checks["restore-sev1"]["reason"]
    alone = make_journal(tmp_path / "a.jsonl", [*i1, CLOSE])
    _, checks = comply_rows(run, alone)
    assert checks["restore-sev1"]["status"] == "not run"
    assert checks["restore-sev1"]["reason"].startswith("not evidenced: I1 at least 3.00 hours")


# ----- 4. a wait with no recorded end is not evidence of its end ---------------------------------------


def test_a_wait_with_no_recorded_end_leaves_the_restore_a_range(tmp_path, run):
    """I1, severity 1: detected Tue 3 Mar 08:00, a wait on the partner from 08:30 whose end nobody
    recorded, restored 18:00. The clock ran 10 h; the wait may have ended at once or only at the
    restore, so the restore lies between 10 - 9.5 = 0.5 h and 10 h, and no reading of the journal
    says where (before: the wait was taken to run to the restore, 0.5 h, full marks). The score
    earns what the journal proves, that the restore took at most 10 h: slide(10; target 4, slide
    end 8, cut-off 24) = 0.6, 25 x 0.6 = 15. comply restore-sev1 against 4 h: 0.5 h meets it and
    10 h does not, so the clause is neither met nor broken: not run, not evidenced (before: met).
    I2, severity 2 (target 8 h): detected Wed 4 Mar 10:00, a wait from 11:00 with no end, restored
    13:00: between 1 h and 3 h, within 8 h either way: full marks, and comply's restore-sev2 is met
    at most 3 h."""
    path = make_journal(tmp_path / "j.jsonl", [
        ("incident.detected", "I1", "2026-03-03T08:00", {"severity": 1, **ORGANIC}),
        ("incident.wait-start", "I1", "2026-03-03T08:30"),
        ("incident.restored", "I1", "2026-03-03T18:00", {"check": "probe"}),
        ("incident.detected", "I2", "2026-03-04T10:00", {"severity": 2, **ORGANIC}),
        ("incident.wait-start", "I2", "2026-03-04T11:00"),
        ("incident.restored", "I2", "2026-03-04T13:00", {"check": "probe"}),
        CLOSE])
    done = scored(path)
    table = rows(done.figures.tables["incidents"])
    assert (table["I1"]["restore_hours"], table["I1"]["restore_hours_at_least"],
            table["I1"]["restore_hours_at_most"]) == (None, 0.5, 10.0)
    assert (table["I1"]["restore_business_hours_at_least"], table["I1"]["restore_business_hours_at_most"]) == \
        (0.0, 8.5)
    assert "no recorded end" in table["I1"]["restore_evidence"]
    observations = {o["id"]: o for o in line(done, "restore")["figure"]["observations"]}
    assert observations["I1"]["share"] == pytest.approx(0.6) and observations["I2"]["share"] == 1
    assert "between 0.50 and 10.00 hours" in observations["I1"]["note"]
    assert line(done, "restore")["earned"] == pytest.approx(25 * 1.6 / 2)
    _, checks = comply_rows(run, path)
    assert checks["restore-sev1"]["status"] == "not run"
    assert checks["restore-sev1"]["reason"].startswith("not evidenced: I1 between 0.50 and 10.00 hours")
    assert (checks["restore-sev2"]["status"], checks["restore-sev2"]["value"]) == ("met", 3.0)


# ----- 5. a first communication before the clock started is out of order ------------------------------


def test_a_first_communication_before_the_clock_started_is_flagged_and_bounds_the_clock(tmp_path, run):
    """I1, severity 2: detected Wed 4 Mar 14:00, restored 16:00, and a first communication to the
    partner dated 10:05, 3 h 55 min before the detection (before: first communication -3.92 h,
    full marks, and restore 2 h, full marks). The supplier told the partner of the incident at
    10:05, so it knew of it then: its detection came no later (as a notice proves a drift's
    detection no later than itself), and the clock started at 10:05 at the latest. The row is
    flagged out of order; the restore is at least 16:00 - 10:05 = 5 h 55 min (5.92 h) with no
    upper bound, and the first communication at least 0: neither is measured, neither earns a
    point (restore 0 of 25, first communication 0 of 10). comply restore-sev2: 5.92 h is within
    the deal's 8 h, but nothing bounds the restore from above: not run, not evidenced."""
    path = make_journal(tmp_path / "j.jsonl", [
        ("incident.detected", "I1", "2026-03-04T14:00", {"severity": 2, **ORGANIC}),
        ("incident.communicated", "I1", "2026-03-04T10:05"),
        ("incident.restored", "I1", "2026-03-04T16:00", {"check": "probe"}),
        CLOSE])
    done = scored(path)
    row = rows(done.figures.tables["incidents"])["I1"]
    assert row["out_of_order"].startswith("the first communication (2026-03-04T10:05:00+00:00) is dated before "
                                          "the recorded clock start (2026-03-04T14:00:00+00:00)")
    assert (row["restore_hours"], row["restore_hours_at_least"], row["restore_hours_at_most"]) == \
        (None, pytest.approx(5 + 55 / 60), None)
    assert (row["first_communication_hours"], row["first_communication_hours_at_least"]) == (None, 0.0)
    assert done.figures.summary["incidents"]["out_of_order"] == 1
    assert line(done, "restore")["earned"] == 0 and line(done, "first-communication")["earned"] == 0
    assert "out of order" in line(done, "first-communication")["figure"]["observations"][0]["note"]
    _, checks = comply_rows(run, path)
    assert checks["restore-sev2"]["status"] == "not run"
    assert checks["restore-sev2"]["reason"].startswith("not evidenced: I1 at least 5.92 hours")


# ----- 6. a notice proves detection no later than itself (3.18.1, 3.18.2, 3.18.7) ---------------------


def test_a_notified_drift_without_a_detection_line_was_detected_by_its_notice(tmp_path):
    """T2, organic drifts, no drift.detected logged for either. D1: onset Tue 3 Mar 09:00, written
    notice 15:00 the same day: 6 business hours. D2: onset Tue 3 Mar 09:00, notice Thu 5 Mar 09:00:
    8.5 (Tue) + 8.5 (Wed) = 17 business hours. A written notice naming the class and its evidence
    cannot come before the supplier found the drift, so detection lead time is at most the notice
    lead time: D1 at most 6 bh, within the 8 bh target (share 1); D2 at most 17 bh: slide(17;
    target 8, slide end 24) = 1 - 0.4 x 9/16 = 0.775. Detection line: 10 x (1 + 0.775) / 2 =
    8.875 (before: 0, both read as if never detected). The detection time itself is still not
    disclosed, and the figures say so: no detection figure, at most the notice's."""
    onset = {**ORGANIC, "affected_class": "scanned invoices"}
    path = make_journal(tmp_path / "j.jsonl", [
        ("drift.onset", "D1", "2026-03-03T09:00", onset),
        ("drift.notice", "D1", "2026-03-03T15:00", NOTE),
        ("drift.onset", "D2", "2026-03-03T09:00", onset),
        ("drift.notice", "D2", "2026-03-05T09:00", NOTE),
        CLOSE], tier="T2")
    done = scored(path)
    table = rows(done.figures.tables["drift"])
    assert (table["D1"]["detection_business_hours"], table["D1"]["detection_business_hours_at_most"]) == (None, 6.0)
    assert table["D2"]["detection_business_hours_at_most"] == 17.0
    assert table["D2"]["detection_status"] == "not evidenced: no detection time disclosed"
    detection = line(done, "drift-detection")
    assert detection["earned"] == pytest.approx(8.875)
    observations = {o["id"]: o for o in detection["figure"]["observations"]}
    assert observations["D2"]["note"] == ("not evidenced: no detection time disclosed; at most 17.00 business hours "
                                          "(the written notice proves detection no later than itself)")
    assert line(done, "drift-notice")["earned"] == 15
    assert done.figures.summary["drift"]["summary"]["detection_business_hours"]["not_disclosed"] == 2


# ----- 3. "not applicable" against what the journal shows (3.21.5 with 3.19.2, 3.18.7, 3.20.6) ---------


def test_not_applicable_fails_where_the_journal_shows_the_element_applies(tmp_path):
    """February's report, received Thu 5 Mar, says "none" for drift timestamps and for the
    rollback rehearsal. D1 (organic) began on Fri 27 Feb and was notified on Tue 3 Mar, two days
    before the report went out: the drift belongs to February and the supplier knew of it, so
    the element applies (3.18.7: every drift observation's detection and notice times go in the
    monthly report). A rehearsal R1 ran on Thu 15 Jan, in the same quarter (3.20.6: one a
    quarter, its result recorded in the monthly report), so the rehearsal element applies to
    every report of the quarter from then on. February: 8 of 10 = 80% (before: 100%, only
    notices dated in February and rehearsals in February were looked at).
    March's report, received Tue 7 Apr, says "none" for incidents: I1 (severity 2) began on Thu 26
    Feb and was restored on Tue 3 Mar, in March: an incident closed in the month is what MTTR
    counts (3.19.2), so March had one to report. March: 9 of 10 = 90% (before: 100%, only
    incidents whose clock started in March were looked at)."""
    onset = {**ORGANIC, "affected_class": "scanned invoices"}
    events = [
        ("drift.onset", "D1", "2026-02-27T09:00", onset),
        ("drift.notice", "D1", "2026-03-03T10:00", NOTE),
        ("rollback.criterion-met", "R1", "2026-01-15T10:00", {"kind": "rehearsal"}),
        ("rollback.decision", "R1", "2026-01-15T10:05"),
        ("rollback.smoke-pass", "R1", "2026-01-15T10:30", SMOKE),
        ("incident.detected", "I1", "2026-02-26T10:00", {"severity": 2, **ORGANIC}),
        ("incident.restored", "I1", "2026-03-03T10:00", {"check": "probe"}),
        *report("2026-02", "2026-03-05T10:00", {"drift-timestamps": NA, "rollback-rehearsal": NA}),
        *report("2026-03", "2026-04-07T10:00", {"incidents-by-severity": NA}),
        CLOSE]
    periods = {p["period"]: p for p in scored(make_journal(tmp_path / "j.jsonl", events)).figures.summary[
        "report"]["periods"]}
    feb, mar = periods["2026-02"], periods["2026-03"]
    assert (feb["passing"], feb["completeness_percent"]) == (8, 80)
    reasons = {f["element"]: f["reason"] for f in feb["failing"]}
    assert reasons["drift-timestamps"] == ("marked not applicable, but the journal shows 1 drift(s) of 2026-02 the "
                                           "supplier had detected or notified by the report's delivery")
    assert reasons["rollback-rehearsal"] == ("marked not applicable, but the journal shows 1 rollback rehearsal(s) "
                                             "in the quarter up to the end of 2026-02")
    assert (mar["passing"], mar["completeness_percent"]) == (9, 90)
    assert {f["element"]: f["reason"] for f in mar["failing"]}["incidents-by-severity"] == (
        "marked not applicable, but the journal shows 1 incident(s) whose clock ran in 2026-03")


# ----- 7. a tier not demonstrated never meets the deal's floor (4.5, 9.9) -------------------------------


def _deal(tmp_path, **params):
    text = SOW.read_text()
    for key, value in params.items():
        text = "\n".join(f"{key} = {json.dumps(value)}" if x.startswith(f"{key} =") else x
                         for x in text.splitlines())
    out = tmp_path / "deal.toml"
    out.write_text(text)
    return out


def test_a_report_received_but_never_audited_does_not_demonstrate_the_records_audit(tmp_path, run):
    """T1 (records audit: the monthly report audited against its checklist). February's report
    arrives Wed 4 Mar, on time (due Fri 6 Mar), and not one of its elements is checked. Timeliness
    earns 5 x 1/1 = 5; completeness is not run (no element checked), so the score is 5 of 100.
    With a T1 deal whose floor is 5, the score reached the floor and the deal read "met" (before),
    though the audit the tier consists of never happened: the tier is not demonstrated, and
    neither score --sow nor comply may read it met."""
    path = make_journal(tmp_path / "j.jsonl", [("report.received", "2026-02", "2026-03-04T10:00"), CLOSE],
                        tier="T1")
    done = scored(path)
    assert done.result["score"] == 5
    check = done.result["tier_check"]
    assert not check["met"] and check["problems"] == [
        "no monthly report was audited: 2026-02 was received, but not every required element was checked"]
    deal = _deal(tmp_path, day60_tier="T1", day60_score_floor=5)
    shown = json.loads(run("score", path, "--sow", deal, "--parties-differ", "--format", "json").stdout)
    assert shown["deal_floor"]["verdict"] == "tier not demonstrated"
    r = run("comply", path, "--sow", deal, "--format", "json", "--parties-differ")
    row = next(x for x in json.loads(r.stdout)["checks"] if x["check"] == "day60-score")
    assert row["status"] == "tier not demonstrated"


# ----- 8. time to first token: one clock per distribution, and the wait behind a holding phrase (3.13) --


def _turn(speaker, start, end, **kw):
    return {"speaker": speaker, "start_ms": start, "end_ms": end, "text": "words", **kw}


def test_ttft_never_pools_two_clocks_and_reports_the_wait_behind_a_holding_phrase(run, tmp_path):
    """Each dialogue opens with the agent's greeting (reported apart). A, platform endpointing:
    replies 1400 - 1000 = 400 ms and 3500 - 3000 = 500 ms. B, voice-activity detection: 1900 -
    1000 = 900 and 4000 - 3000 = 1000 ms. The two clocks are not comparable (3.13.1), so no
    distribution pools them: platform p95 by nearest rank over 2 replies is rank ceil(1.9) = 2,
    500 ms; VAD's is 1000 ms; pooled, the four would read p95 1000 ms over 4 (before), which is
    neither. C, platform: a holding phrase at 1300 (300 ms after the caller's end at 1000) while a
    tool runs, the answer at 6000: the caller waited 5000 ms for it. The tool-call reply's time to
    first token is 300 ms, and the first substantive time, 5000 ms, is reported beside it (3.13.4,
    3.13.6: a filler must not hide the wait; before, a filler during a tool call had no first
    substantive time at all)."""
    a = [_turn("agent", 0, 500), _turn("caller", 600, 1000), _turn("agent", 1400, 2000),
         _turn("caller", 2100, 3000), _turn("agent", 3500, 4000)]
    b = [_turn("agent", 0, 500), _turn("caller", 600, 1000), _turn("agent", 1900, 2500),
         _turn("caller", 2600, 3000), _turn("agent", 4000, 4500)]
    c = [_turn("agent", 0, 500), _turn("caller", 600, 1000), _turn("agent", 1300, 1800, filler=True, tool_ms=4200),
         _turn("agent", 6000, 7000)]
    from day60 import voice

    r = voice.ttft([("A", {"endpointing": "platform", "turns": a}), ("B", {"endpointing": "vad", "turns": b}),
                    ("C", {"endpointing": "platform", "turns": c})])
    assert r["endpointing"] == ["platform", "vad"] and r["pooled"] is False
    assert r["replies"]["count"] == 0 and r["replies"]["p95"] is None and "not comparable" in r["replies"]["reason"]
    platform, vad = r["by_endpointing"]["platform"], r["by_endpointing"]["vad"]
    assert (platform["replies"]["count"], platform["replies"]["p95"]) == (2, 500)
    assert (vad["replies"]["count"], vad["replies"]["p95"]) == (2, 1000)
    assert (platform["tool_calls"]["count"], platform["tool_calls"]["p50"]) == (1, 300)
    assert platform["filler"]["first_substantive"]["max"] == 5000 and platform["filler"]["during_tool"] == 1
    paths = []
    for name, turns, source in (("a", a, "platform"), ("b", b, "vad")):
        paths.append(tmp_path / f"{name}.json")
        paths[-1].write_text(json.dumps({"endpointing": source, "turns": turns}))
    shown = run("voice", "ttft", *paths)
    assert shown.exit_code == 0 and "not pooled" in shown.stdout and "not comparable" in shown.stdout


# ----- 9. rounding never moves a figure across a line, and says why (3.1.5, 3.1.6) ---------------------


def test_comply_prints_a_breach_on_the_side_of_the_line_it_fell(tmp_path, run):
    """Field-level accuracy 94.96 percent (n=1,000) against the deal's floor of 95.0: not met,
    judged unrounded. To one decimal (3.1.5) it reads 95.0, on the floor (before: "95.0 percent
    (unrounded 94.96)"): two decimals put it below, 94.96 percent. A Day-60 score of 84.9951
    against a floor of 85 reads 85.00 to two decimals; 84.995 (three) is below it. Met figures
    keep their usual rounding: exception rate 39.96 percent under a 40.0 ceiling reads 40.0."""
    figures = tmp_path / "f.json"
    figures.write_text(json.dumps({"field-accuracy": {"value": 94.96, "n": 1000},
                                   "exception-rate": {"value": 39.96, "n": 1000},
                                   "day60-score": {"value": 84.9951, "n": 1}}))
    deal = _deal(tmp_path, day60_score_floor=85)
    r = run("comply", "--sow", deal, "--figures", figures, "--format", "json")
    checks = {x["check"]: x for x in json.loads(r.stdout)["checks"]}
    assert (checks["field-accuracy"]["status"], checks["field-accuracy"]["display"]) == ("not met", "94.96 percent")
    assert (checks["day60-score"]["status"], checks["day60-score"]["display"]) == ("not met", "84.995 points")
    assert (checks["exception-rate"]["status"], checks["exception-rate"]["display"]) == ("met", "40.0 percent")
    table = run("comply", "--sow", deal, "--figures", figures).stdout
    assert "95.0 percent" not in table and "unrounded" not in table.split("reason")[0]


def test_a_score_below_the_deals_floor_never_reads_as_the_floor(tmp_path, run):
    """T1. February's report, received Wed 4 Mar (on time), with the ten default elements passing
    and the deal's added element (sla-credits) absent: 10 of 11. Score: completeness 10 x 10/11 =
    9.0909... plus timeliness 5 = 14.0909... Against a T1 deal's floor of 14.1 it is not met. To
    one decimal it reads 14.1, the floor itself (before: "score 14.1 of 100 ... floor of 14.1:
    not met"); to two, 14.09, below it: the headline, the table and the PDF's cover say 14.09."""
    events = [*report("2026-02", "2026-03-04T10:00"),
              ("report.element", "sla-credits", "2026-03-04T10:30",
               {"present": False, "covers_period": False, "supported": False, "period": "2026-02"}), CLOSE]
    path = make_journal(tmp_path / "j.jsonl", events, tier="T1", report_elements=["sla-credits"])
    deal = _deal(tmp_path, day60_tier="T1", day60_score_floor=14.1)
    r = run("score", path, "--sow", deal, "--parties-differ", "--html", tmp_path / "s.html")
    assert r.exit_code == 0, r.output
    assert "score 14.09 of 100" in r.stdout and "14.1 of 100" not in r.stdout
    assert "floor of 14.1 at tier T1: not met" in r.stdout
    page = (tmp_path / "s.html").read_text()
    assert '<p class="score">14.09 <small>of 100</small>' in page


def test_compare_gives_rates_in_points_with_their_sample_sizes(tmp_path, run):
    """Old (T1): February's report on time, all 10 elements passing: 100%. New (T1): the same
    month's report a week late (Fri 13 Mar, due Fri 6 Mar) with one element absent: 9 of 10 =
    90%. Completeness moves -10.0 percentage points, each side over its 10 required elements
    (before: no sample size, "old no sample, new no sample"). Timeliness is a rate, reports on
    time over reports: 1 of 1 = 100% then 0 of 1 = 0%, -100.0 percentage points with n=1 a side
    (before: "-1.00 difference")."""
    old = make_journal(tmp_path / "old.jsonl", [*report("2026-02", "2026-03-04T10:00"), CLOSE], tier="T1")
    late = report("2026-02", "2026-03-13T10:00", {"incidents-by-severity":
                                                   {"present": False, "covers_period": False, "supported": False}})
    new = make_journal(tmp_path / "new.jsonl", [*late, CLOSE], tier="T1")
    result = json.loads(run("compare", old, new, "--format", "json").stdout)
    figures = {f["figure"]: f for f in result["figures"]}
    completeness, timeliness = figures["report-completeness"], figures["report-timeliness"]
    assert (completeness["change"], completeness["change_in"], completeness["n_old"], completeness["n_new"]) == \
        (pytest.approx(-10.0), "percentage points", 10, 10)
    assert (timeliness["old"], timeliness["new"], timeliness["unit"]) == (100.0, 0.0, "percent")
    assert (timeliness["change"], timeliness["change_in"], timeliness["n_old"], timeliness["n_new"]) == \
        (-100.0, "percentage points", 1, 1)
    table = run("compare", old, new).stdout
    assert "-100.0 percentage points" in table and "difference" not in table


def test_the_portfolio_prints_a_rollback_to_the_precision_its_clock_gives(tmp_path, run):
    """A T2 rehearsal: criterion 10:00, decision 10:05, serving 10:15, smoke pass 10:18:30: 13.5
    minutes from the decision. The portfolio printed "14 minutes" (before), a figure nobody
    measured; it reads 13.50 minutes."""
    path = make_journal(tmp_path / "j.jsonl", [
        ("rollback.criterion-met", "R1", "2026-03-04T10:00", {"kind": "rehearsal"}),
        ("rollback.decision", "R1", "2026-03-04T10:05"),
        ("rollback.serving", "R1", "2026-03-04T10:15"),
        ("rollback.smoke-pass", "R1", "2026-03-04T10:18:30", SMOKE), CLOSE], tier="T2")
    out = run("portfolio", path).stdout
    assert "13.50 minutes" in out and "14 minutes" not in out


# ----- 10. a reason must be true (3.1.8: not run, with the reason) -------------------------------------


def test_reasons_say_what_the_journal_shows(tmp_path):
    """T2 (records and rehearsal: drift and incidents from the supplier's records only). The
    journal holds one false alert (Wed 4 Mar) and no drift; and an incident I1 the exercise raised
    under sign-off, detected Tue 3 Mar 10:00 and restored 11:00. The drift lines are not exercised
    (no organic drift in the window), but no injection was ever refused a sign-off: the reason
    must not cite the safety rule (before: "an injection without safety sign-off is never run,
    charter 4.5.1" on the false-alert line of a records-only tier). The incident lines are not
    exercised because T2 does not score an incident the exercise raised, not because no clock
    started (before: "no incident in the journal had its clock start in the window", false: I1's
    did)."""
    path = make_journal(tmp_path / "j.jsonl", [
        ("drift.false-alert", "A1", "2026-03-04T10:00"),
        ("safety.agreed", "I1", "2026-03-02T09:10", SIGN_OFF),
        ("incident.raised", "I1", "2026-03-03T09:30"),
        ("incident.detected", "I1", "2026-03-03T10:00", {"severity": 2}),
        ("incident.restored", "I1", "2026-03-03T11:00", {"check": "probe"}),
        CLOSE], tier="T2")
    done = scored(path)
    alerts = line(done, "false-alerts")
    assert alerts["status"] == "not exercised"
    assert "safety" not in alerts["reason"] and "4.5.1" not in alerts["reason"]
    assert alerts["reason"] == ("no organic drift observation with its onset in the window, so the monitor's false "
                                "alerts are not judged alone (1 false alert in the window, counted)")
    restore = line(done, "restore")
    assert restore["status"] == "not exercised"
    assert restore["reason"] == ("no organic incident was judged in the window; 1 incident raised by the exercise "
                                 "is not scored at tier T2 (Records and rehearsal), which scores the supplier's "
                                 "records only")


# ----- where the charter is silent: readings that favour neither party (docs/figures.md) ---------------


def test_the_median_of_two_restores_is_their_midpoint(tmp_path):
    """Two severity 2 incidents restored in the window, in 2 h and 6 h. The charter asks for the
    median beside the mean (3.19.1) and fixes nearest rank only for percentiles of latency and time
    to first token (3.8.1, 3.13.2). Nearest rank gives the lower of two, 2 h, the reading most
    favourable to the supplier; the upper, 6 h, the most favourable to the partner; the midpoint,
    (2 + 6) / 2 = 4 h, favours neither, and is the median the word means. With three (2, 6 and
    7 h) the middle one, 6 h, is the median either way."""
    events = [("incident.detected", "I1", "2026-03-03T10:00", {"severity": 2, **ORGANIC}),
              ("incident.restored", "I1", "2026-03-03T12:00", {"check": "probe"}),
              ("incident.detected", "I2", "2026-03-04T10:00", {"severity": 2, **ORGANIC}),
              ("incident.restored", "I2", "2026-03-04T16:00", {"check": "probe"})]
    sev2 = scored(make_journal(tmp_path / "a.jsonl", [*events, CLOSE])).figures.summary["incidents"]["by_severity"]
    assert (sev2["2"]["median_hours"], sev2["2"]["median_rule"]) == (4.0, "midpoint of the two middle values")
    third = [("incident.detected", "I3", "2026-03-05T10:00", {"severity": 2, **ORGANIC}),
             ("incident.restored", "I3", "2026-03-05T17:00", {"check": "probe"})]
    sev2 = scored(make_journal(tmp_path / "b.jsonl", [*events, *third, CLOSE])).figures.summary["incidents"][
        "by_severity"]
    assert sev2["2"]["median_hours"] == 6.0


def test_a_drift_whose_onset_precedes_the_window_is_judged_as_an_incident_that_did(tmp_path):
    """T2, window Mon 2 Mar 09:00 to Fri 13 Mar 17:30. An incident whose clock started before the
    window and was restored in it counts whole (3.19.2); a drift was left out whenever its onset
    fell before the window, however late its notice came (before: "outside the window"). One rule
    for both: what ended in the window counts whole, what was still running at the close is
    judged, what ended before the window opened is apart. D1: onset Fri 27 Feb 09:00, notice Tue 3
    Mar 10:00: 8.5 (Fri) + 8.5 (Mon) + 1 (Tue) = 18 bh, notified in the window, counted whole.
    D2: onset Fri 27 Feb 09:00, never notified: not detected within the window, judged (0 on the
    notice line). D3: onset Wed 25 Feb, notified Thu 26 Feb: ended before the window: apart.
    Notice line: D1 18 bh within 24 (1), D2 nothing: 15 x 1/2 = 7.5."""
    onset = {**ORGANIC, "affected_class": "scanned invoices"}
    path = make_journal(tmp_path / "j.jsonl", [
        ("drift.onset", "D1", "2026-02-27T09:00", onset),
        ("drift.notice", "D1", "2026-03-03T10:00", NOTE),
        ("drift.onset", "D2", "2026-02-27T09:00", onset),
        ("drift.onset", "D3", "2026-02-25T09:00", onset),
        ("drift.notice", "D3", "2026-02-26T09:00", NOTE),
        CLOSE], tier="T2")
    done = scored(path)
    table = rows(done.figures.tables["drift"])
    assert {k: r["status"] for k, r in table.items()} == {"D1": "notified", "D2": "not detected within the window",
                                                         "D3": "outside the window"}
    assert table["D1"]["notice_business_hours"] == 18 and table["D1"]["started_before_window"]
    drift = done.figures.summary["drift"]
    assert (drift["population"], drift["started_before_window"], drift["outside_window"]) == (2, 2, 1)
    assert line(done, "drift-notice")["earned"] == pytest.approx(7.5)


def test_the_live_checklist_flags_what_the_figures_will_not_count(tmp_path):
    """The screen of 'live' and 'serve' says, while it can still be put right: I1's first
    communication (10:05) is dated before its detection (14:00), out of order; I2 was restored with
    its wait on the partner never ended; D1 was detected (12:00) after its written notice (11:00);
    and February's report, due Fri 6 Mar, has not been received by Mon 9 Mar."""
    import datetime as dt

    from day60 import checklist

    path = make_journal(tmp_path / "j.jsonl", [
        ("incident.detected", "I1", "2026-03-04T14:00", {"severity": 2, **ORGANIC}),
        ("incident.communicated", "I1", "2026-03-04T10:05"),
        ("incident.detected", "I2", "2026-03-05T10:00", {"severity": 2, **ORGANIC}),
        ("incident.wait-start", "I2", "2026-03-05T11:00"),
        ("incident.restored", "I2", "2026-03-05T12:00", {"check": "probe"}),
        ("drift.onset", "D1", "2026-03-03T09:00", {**ORGANIC, "affected_class": "scanned invoices"}),
        ("drift.notice", "D1", "2026-03-03T11:00", NOTE),
        ("drift.detected", "D1", "2026-03-03T12:00")], tier="T2")
    j = jr.read(path)
    shown = checklist.status(j.events, header=j.header, now=dt.datetime(2026, 3, 9, 12, tzinfo=dt.UTC))
    assert any(x.startswith("I1: first communication") and "out of order" in x for x in shown["incidents"])
    assert any(x.startswith("I2: restored with a wait on the partner never ended") for x in shown["incidents"])
    assert any(x.startswith("D1: detection") and "out of order" in x for x in shown["drift"])
    assert shown["reports"] == ["2026-02: report due 2026-03-06, not received (at the close it is judged: every "
                                "element absent, not delivered)"]
    early = checklist.status(j.events, header=j.header, now=dt.datetime(2026, 3, 6, 12, tzinfo=dt.UTC))
    assert early["reports"] == []  # the due date has not yet passed


# ----- further cases: the charter read again as the supplier's lawyer would ----------------------------


def test_a_detection_dated_after_its_notice_is_out_of_order_and_bounded_by_the_notice(tmp_path):
    """D1 (organic, T2): onset Tue 3 Mar 09:00, written notice 11:00 (2 bh), and a detection logged
    at 12:00, after the notice that reports it. A notice proves detection no later than itself
    (3.18.1), so the detection instant is out of order: flagged, set aside, and the detection lead
    time read as at most the notice's 2 bh (full marks, within 8). Before: detection 3 bh and a
    negative gap of -1 h between detection and notice, silently."""
    path = make_journal(tmp_path / "j.jsonl", [
        ("drift.onset", "D1", "2026-03-03T09:00", {**ORGANIC, "affected_class": "scanned invoices"}),
        ("drift.notice", "D1", "2026-03-03T11:00", NOTE),
        ("drift.detected", "D1", "2026-03-03T12:00"),
        CLOSE], tier="T2")
    done = scored(path)
    row = rows(done.figures.tables["drift"])["D1"]
    assert row["out_of_order"].startswith("the detection (2026-03-03T12:00:00+00:00, seq")
    assert (row["detection_business_hours"], row["detection_business_hours_at_most"], row["gap_hours"]) == \
        (None, 2.0, None)
    assert done.figures.summary["drift"]["out_of_order"] == 1
    assert line(done, "drift-detection")["earned"] == 10


def test_a_withdrawal_after_a_confirmed_restore_does_not_take_a_breach_out(tmp_path, run):
    """I1, severity 1: detected Tue 3 Mar 08:00, restored 18:00 with a monitoring check (10 h), then
    withdrawn on Wed 4 Mar as not reproducible. The check shows there was a fault to restore
    (3.19.4), so the withdrawal (3.19.5) is set aside and named. Restore: 10 h against 4 h (slide
    end 8, cut-off 24): 0.6 x 25 = 15; comply restore-sev1: 10 h, not met (before: "withdrawn",
    the line not exercised and the clause not run: a 10 h breach gone)."""
    path = make_journal(tmp_path / "j.jsonl", [
        ("incident.detected", "I1", "2026-03-03T08:00", {"severity": 1, **ORGANIC}),
        ("incident.restored", "I1", "2026-03-03T18:00", {"check": "probe"}),
        ("incident.withdrawn", "I1", "2026-03-04T10:00", {"reason": "not reproducible"}),
        CLOSE])
    done = scored(path)
    row = rows(done.figures.tables["incidents"])["I1"]
    assert (row["status"], row["restore_hours"]) == ("restored", 10.0)
    assert "set aside" in row["reason"]
    assert line(done, "restore")["earned"] == pytest.approx(15)
    r, checks = comply_rows(run, path)
    assert (checks["restore-sev1"]["status"], checks["restore-sev1"]["value"], r.exit_code) == ("not met", 10.0, 1)


def test_a_report_received_before_the_window_for_a_month_due_inside_it_is_judged(tmp_path):
    """February's report is due Fri 6 Mar, a day the window (2 to 13 Mar) holds whole, so it is
    judged wherever its receipt falls. It was received on Fri 27 Feb, before the window opened and
    before its month ended: judged (before: counted apart as received outside the window, so a
    period the window owes a verdict had none), its elements cannot cover the month (3.21.3): 0 of
    10, delivered on time; and it is not missing."""
    events = [*report("2026-02", "2026-02-27T10:00"), CLOSE]
    path = make_journal(tmp_path / "j.jsonl", events, tier="T1")
    rep = scored(path).figures.summary["report"]
    [period] = rep["periods"]
    assert (period["period"], period["completeness_percent"], period["on_time"]) == ("2026-02", 0, True)
    assert rep["outside_window"] == [] and rep["missing"] == []


def test_a_deal_that_makes_the_report_due_earlier_breaks_its_clause_when_none_comes(tmp_path, run):
    """A deal may set an earlier due day than the charter's fifth (report_due_business_day = 3).
    Window Mon 2 Mar 09:00 to Thu 5 Mar 17:30: February's report falls due under the deal on Wed 4
    Mar (the 3rd business day), wholly inside the window, and never comes. The charter's own due
    date, Fri 6 Mar, is after the close, so the figures judge nothing missing; the deal's clause is
    broken all the same: report-timeliness not met (before: not run)."""
    path = make_journal(tmp_path / "j.jsonl", [("exercise.close", "exercise", "2026-03-05T17:30")], tier="T3",
                        window=("2026-03-02T09:00", "2026-03-05T17:30"))
    deal = tmp_path / "deal.toml"
    deal.write_text(SOW.read_text().replace("[parameters]\n", "[parameters]\nreport_due_business_day = 3\n"))
    r = run("comply", path, "--sow", deal, "--format", "json", "--parties-differ")
    checks = {x["check"]: x for x in json.loads(r.stdout)["checks"]}
    assert checks["report-timeliness"]["status"] == "not met" and r.exit_code == 1
    assert checks["report-timeliness"]["reason"] == ("2026-02 not received by the close (due 2026-03-04, the deal's "
                                                     "business day 3)")


def test_a_drift_found_only_after_the_report_went_out_may_be_reported_as_none(tmp_path):
    """The boundary of the "not applicable" rule, read for the supplier: February's report,
    received Thu 5 Mar, says drifts "none". D1 began on Fri 27 Feb but was first detected on Mon 9
    Mar, after the report went out: the supplier could not report what it did not know (3.18.7 asks
    for the times of drifts it detected and notified), so "none" stands: 10 of 10."""
    onset = {**ORGANIC, "affected_class": "scanned invoices"}
    events = [("drift.onset", "D1", "2026-02-27T09:00", onset),
              ("drift.detected", "D1", "2026-03-09T10:00"),
              ("drift.notice", "D1", "2026-03-09T12:00", NOTE),
              *report("2026-02", "2026-03-05T10:00", {"drift-timestamps": NA}), CLOSE]
    [period] = scored(make_journal(tmp_path / "j.jsonl", events, tier="T2")).figures.summary["report"]["periods"]
    assert (period["completeness_percent"], period["not_applicable"]) == (100, 1)


def test_compare_counts_restores_known_only_as_a_range_beside_the_mean(tmp_path, run):
    """Old: I1 (severity 2) 2 h, measured. New: I1 2 h, and I2 (severity 2) whose clock starts at a
    ticket's opening: at least 3 h, in no mean. The mean is 2 h on both sides, but the new side's
    sample says one more restore is known only as a range, never dropped unsaid (3.1.2)."""
    i1 = [("incident.detected", "I1", "2026-03-03T10:00", {"severity": 2, **ORGANIC}),
          ("incident.restored", "I1", "2026-03-03T12:00", {"check": "probe"})]
    i2 = [("incident.detected", "I2", "2026-03-04T10:00", {"severity": 2, **ORGANIC, "clock_start": "ticket-opened"}),
          ("incident.restored", "I2", "2026-03-04T13:00", {"check": "probe"})]
    old = make_journal(tmp_path / "old.jsonl", [*i1, CLOSE], tier="T2")
    new = make_journal(tmp_path / "new.jsonl", [*i1, *i2, CLOSE], tier="T2")
    result = json.loads(run("compare", old, new, "--format", "json").stdout)
    row = next(f for f in result["figures"] if f["figure"] == "restore, severity 2 (mean)")
    assert (row["old"], row["new"], row["n_new"], row["new_ranged"]) == (2.0, 2.0, 1, 1)
    assert "new n=1 (+1 known only as a range, in no mean)" in run("compare", old, new).stdout


def test_a_floor_met_only_by_points_under_dispute_waits_for_the_dispute(tmp_path, run):
    """T1: February's report on time (5 of 5) with every element passing (the ten, and the deal's
    sla-credits: 11 of 11, 10 points): 15 of 100.
    The partner disputes the timeliness line (say, the delivery time), still open: the line keeps
    its 5 points and reads under dispute, the rest stands (8.4.3). Against a T1 floor of 12 the
    verdict turns on the dispute: without the line the score is 10, with it 15, so the floor
    lies between: "under dispute", in score --sow and in comply (before: met). Against a floor of
    9, met however the dispute ends (10 at the least)."""
    import datetime as dt

    credits = ("report.element", "sla-credits", "2026-03-04T10:00", {**PASS, "period": "2026-02"})
    path = make_journal(tmp_path / "j.jsonl", [*report("2026-02", "2026-03-04T10:00"), credits, CLOSE], tier="T1",
                        report_elements=["sla-credits"])
    jr.append(path, "dispute", "dispute-report-timeliness", dt.datetime(2026, 3, 14, 9, tzinfo=dt.UTC),
              {"line": "report-timeliness", "reason": "delivered later than logged", "raised_by": "P",
               "organisation": "Test partner"})
    deal = _deal(tmp_path, day60_tier="T1", day60_score_floor=12)
    shown = json.loads(run("score", path, "--sow", deal, "--parties-differ", "--format", "json").stdout)
    assert (shown["score"], shown["under_dispute_points"]) == (15, 5)
    assert shown["deal_floor"]["verdict"] == "under dispute"
    r = run("comply", path, "--sow", deal, "--format", "json", "--parties-differ")
    row = next(x for x in json.loads(r.stdout)["checks"] if x["check"] == "day60-score")
    assert row["status"] == "not run" and row["reason"].startswith("under dispute: the score between 10.00 and 15.00")
    deal = _deal(tmp_path, day60_tier="T1", day60_score_floor=9)
    shown = json.loads(run("score", path, "--sow", deal, "--parties-differ", "--format", "json").stdout)
    assert shown["deal_floor"]["verdict"] == "met"
    r = run("comply", path, "--sow", deal, "--format", "json", "--parties-differ")
    assert next(x for x in json.loads(r.stdout)["checks"] if x["check"] == "day60-score")["status"] == "met"


def test_comply_counts_business_hours_on_the_deals_calendar(tmp_path, run):
    """The deal defines its Business Hours on its own calendar; here, round the clock (24x7). The
    journal's calendar is the UK office's. D1 (organic): onset Fri 6 Mar 17:00, written notice Mon
    9 Mar 10:00. On the office calendar: 0.5 (Fri 17:00-17:30) + 1 (Mon 09:00-10:00) = 1.5 business
    hours, within the deal's 24; on the deal's: 65 hours (Fri 17:00 to Mon 10:00), well past 24.
    The clause is the deal's: not met, 65.00 (before: met on the journal's 1.5)."""
    path = make_journal(tmp_path / "j.jsonl", [
        ("drift.onset", "D1", "2026-03-06T17:00", {**ORGANIC, "affected_class": "scanned invoices"}),
        ("drift.notice", "D1", "2026-03-09T10:00", NOTE), CLOSE])
    text = SOW.read_text()
    start = text.index("[calendar]")
    end = text.index("# The documents")
    deal = tmp_path / "deal.toml"
    deal.write_text(text[:start] + '[calendar]\ntimezone = "Europe/London"\nhours = "24x7"\n\n' + text[end:])
    r = run("comply", path, "--sow", deal, "--format", "json", "--parties-differ")
    row = next(x for x in json.loads(r.stdout)["checks"] if x["check"] == "drift-notice")
    assert (row["status"], row["value"]) == ("not met", 65.0) and r.exit_code == 1
    assert "comply judges business hours" in r.stderr

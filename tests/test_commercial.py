"""What follows from comply's verdicts under the deal's commercial modules (issue 40, points 1, 2,
5 and 3): Service Credits, Critical Failures and termination, relief, the Hypercare Period and
Minimum Volumes, each worked by hand in the docstring on the shipped SYNTHETIC deal's numbers:

at_risk_percent 12; a Service Level missed within its Critical Level is credited 50 percent of its
Credit Weight, beyond it 100 percent; 5 percent of the At-Risk Amount per Deemed Severity 2
Incident; a Critical Failure at 3 misses in 6 months; termination at 3 Critical Failures in 12
months; volumes more than 15 percent over the forecast relieve latency and time to first token;
Go-Live 1 September 2026 with 20 Business Days of hypercare on the English calendar (ending
Tuesday 29 September), so the Credit Start Date is 1 October 2026. Weights: field-accuracy 15,
containment 10, latency 10, restore-sev1 15, report-completeness 5. These are invented numbers
that show the arithmetic; they are not results."""

import json

import pytest

from day60 import clauses, commercial
from day60.resources import data_dir

SOW = data_dir("clauses") / "examples" / "synthetic-sow.toml"
LIB = clauses.load_library()
DEAL = clauses.load_deal(SOW, LIB, {"drift_detection_business_hours"})
NOVEMBER = {"month": "2026-11", "charges": 100_000}


def follow(figures, period=NOVEMBER, deal=DEAL):
    rows = clauses.comply(LIB, deal, figures, "test figures")
    return {r["check"]: r for r in rows}, commercial.consequences(LIB, deal, rows, figures, period)


def credit(after, check):
    return next(x for x in after["credits"]["lines"] if x["check"] == check)


def test_credits_worked_by_hand():
    """Charges 100,000: At-Risk Amount 12 percent = 12,000.
    field-accuracy 93.0 (target 95, Critical Level 90): missed within it, 15 x 50% = 7.5% = 900.
    containment 40.0 (target 55, Critical Level 45): beyond it, 10 x 100% = 10% = 1,200.
    hallucinated-policy 0.5 (met) with 2 Deemed Severity 2 Incidents: 2 x 5% = 10% = 1,200.
    latency 20.0 seconds (met): nothing. Total 27.5% of the At-Risk Amount = 3,300, which is 3.3
    percent of the Monthly Charges, under the cap of 12,000."""
    rows, after = follow({"field-accuracy": {"value": 93.0, "n": 1200}, "containment": {"value": 40.0, "n": 800},
                          "hallucinated-policy": {"value": 0.5, "n": 900, "deemed": 2},
                          "latency": {"value": 20.0, "n": 5000}})
    c = after["credits"]
    assert (credit(after, "field-accuracy")["band"], credit(after, "field-accuracy")["percent_of_at_risk"]) == (
        "missed", 7.5)
    assert (credit(after, "containment")["band"], credit(after, "containment")["percent_of_at_risk"]) == (
        "beyond the Critical Level", 10.0)
    assert credit(after, "latency")["percent_of_at_risk"] == 0.0 and rows["latency"]["status"] == "met"
    assert c["deemed"] == [{"check": "hallucinated-policy", "count": 2, "each_percent": 5.0, "percent_of_at_risk": 10.0,
                            "note": None}]
    assert c["percent_of_at_risk"] == pytest.approx(27.5) and not c["capped"]
    assert c["percent_of_charges"] == pytest.approx(3.3)
    assert c["at_risk_amount"] == pytest.approx(12_000) and c["amount"] == pytest.approx(3_300)
    assert c["shown"] == {"at_risk_amount": "GBP 12,000.00", "amount": "GBP 3,300.00"}


def test_the_months_credits_never_pass_the_at_risk_amount():
    """Five weighted Service Levels all beyond their Critical Levels: 15 + 10 + 10 + 15 + 5 = 55%
    of the At-Risk Amount, plus 10 Deemed Severity 2 Incidents at 5% = 50%: 105%, capped at 100%
    (12,000 of charges of 100,000), the uncapped figure kept beside it."""
    _, after = follow({"field-accuracy": {"value": 80.0, "n": 1200}, "containment": {"value": 30.0, "n": 800},
                       "latency": {"value": 90.0, "n": 5000}, "restore-sev1": {"value": 9.0, "n": 3},
                       "report-completeness": {"value": 70.0, "n": 11},
                       "hallucinated-policy": {"value": 0.2, "n": 900, "deemed": 10}})
    c = after["credits"]
    assert c["uncapped_percent_of_at_risk"] == pytest.approx(105.0)
    assert c["percent_of_at_risk"] == 100.0 and c["capped"] and c["amount"] == pytest.approx(12_000)


def test_without_charges_the_credits_are_a_share_and_the_money_is_said_to_be_missing():
    """No charges given: 7.5% of the At-Risk Amount is 0.9 percent of the Monthly Charges (7.5 x
    12%), and comply says the amount needs the month's charges."""
    _, after = follow({"field-accuracy": {"value": 93.0, "n": 1200}}, period={"month": "2026-11"})
    assert after["credits"]["amount"] is None and after["credits"]["percent_of_charges"] == pytest.approx(0.9)
    assert any("give the month's Monthly Charges" in line for line in after["cannot"])


def test_critical_failures_and_termination_worked_by_hand():
    """Period June 2027: field-accuracy's months [96, 94, 96, 94.5, 96, 94.2] are January to June
    2027, all after the Credit Start Date (1 October 2026), and against a floor of 95 they hold
    three misses (January's 94, April's 94.5, June's 94.2) in the last six months: a Critical
    Failure by repetition, although 94.2 is within the Critical Level of 90. containment at 40.0 is
    below its Critical Level of 45: a second. With 1 Critical Failure in the months before, 3 in the
    termination period reach 3: the right to terminate arises. With none before, 2 do not; with
    nothing said of the months before, comply cannot tell and says what would settle it."""
    june = {"month": "2027-06", "charges": 100_000}
    figures = {"field-accuracy": {"value": 94.2, "n": 1200, "months": [96, 94, 96, 94.5, 96, 94.2]},
               "containment": {"value": 40.0, "n": 800}}
    _, after = follow(figures, period={**june, "critical_failures_before": 1})
    found = {(f["check"], f["kind"]) for f in after["critical_failures"]["found"]}
    assert found == {("field-accuracy", "missed repeatedly"), ("containment", "beyond its Critical Level")}
    assert after["critical_failures"]["termination"]["arises"] is True
    assert after["critical_failures"]["termination"]["count"] == 3
    _, after = follow(figures, period={**june, "critical_failures_before": 0})
    assert after["critical_failures"]["termination"]["arises"] is False
    _, after = follow(figures, period=june)
    assert after["critical_failures"]["termination"]["arises"] is None
    assert any("critical_failures_before" in line for line in after["cannot"])
    # Two misses in six months are not three: no Critical Failure by repetition.
    _, after = follow({"field-accuracy": {"value": 94.2, "n": 1200, "months": [96, 96, 96, 94.5, 96, 94.2]}},
                      period=june)
    assert after["critical_failures"]["found"] == []


def test_months_before_the_credit_start_date_count_towards_no_critical_failure():
    """Issue 40, finding 5 (clause 28.3: a period that ends before the Credit Start Date counts
    towards no Critical Failure). Go-Live 1 September 2026; hypercare ends 29 September; Credit
    Start Date 1 October 2026. Period November 2026, field-accuracy months [94.5, 96, 94.2] are
    September (hypercare), October and November: missed in September and November. September
    counts towards nothing, so the periods that count hold one miss (November), not three: no
    Critical Failure by repetition. Before, September was counted. Period October 2026 with months
    [94, 94, 94] would reach back to August, before the Go-Live Date: refused, exit 2."""
    figures = {"field-accuracy": {"value": 94.2, "n": 1200, "months": [94.5, 96, 94.2]}}
    _, after = follow(figures, period={**NOVEMBER, "critical_failures_before": 1})
    assert after["critical_failures"]["found"] == []
    assert after["critical_failures"]["termination"] == {"arises": False, "count": 1, "why": (
        "0 this period and 1 before it in the 12 months: 1 against 3")}
    # Three misses, every one on or after the Credit Start Date (January to March 2027): one.
    _, after = follow({"field-accuracy": {"value": 94.0, "n": 1200, "months": [94, 94, 94]}},
                      period={"month": "2027-03"})
    assert [f["kind"] for f in after["critical_failures"]["found"]] == ["missed repeatedly"]
    with pytest.raises(clauses.InputError, match="reaching back to 2026-08, before the Go-Live Date"):
        follow({"field-accuracy": {"value": 94.0, "n": 1200, "months": [94, 94, 94]}}, period={"month": "2026-10"})


def test_one_service_level_makes_at_most_one_critical_failure_in_a_period():
    """Finding 14: field accuracy at 80 (Critical Level 90) with months [94, 94, 80] in January to
    March 2027 meets both limbs of clause 23.1 (beyond its Critical Level, and missed 3 times in
    6 months), but it is one Service Level in one Measurement Period: one Critical Failure, naming
    both limbs. With 1 before, 2 against a termination count of 3: the right does not arise."""
    _, after = follow({"field-accuracy": {"value": 80.0, "n": 1200, "months": [94, 94, 80]}},
                      period={"month": "2027-03", "critical_failures_before": 1})
    [found] = after["critical_failures"]["found"]
    assert found["kind"] == "beyond its Critical Level; missed repeatedly"
    assert after["critical_failures"]["counted"] == 1 and after["critical_failures"]["termination"]["arises"] is False


def test_relief_agreed_removes_the_credit_claimed_does_not_and_volume_relief_is_computed():
    """restore-sev1 at 6 hours (target 4, Critical Level 8) is missed: 15 x 50% = 7.5%. With an
    Upstream Outage claimed and not yet agreed, the miss stands and so does its credit; agreed with
    the figure recomputed without the outage's Incidents (3 hours, within the 4-hour target), the
    credit is 0 and no Critical Failure counts. latency at 45 seconds is missed; 13,200 Documents
    against a forecast of 11,000 is 20 percent over, beyond the 15 percent tolerance, so the 550
    Documents above 12,650 (11,000 plus 15 percent) are a Relief Event; without the figure
    recomputed without them the miss stands (10 x 50% = 5%); recomputed at 28 seconds (under the
    30-second ceiling) it is relieved. The verdicts themselves are unchanged (not met)."""
    figures = {"restore-sev1": {"value": 6.0, "n": 2, "relief": {"event": "upstream-outage", "agreed": False}},
               "latency": {"value": 45.0, "n": 5000}}
    period = {**NOVEMBER, "documents": 13_200, "documents_forecast": 11_000}
    rows, after = follow(figures, period)
    assert rows["restore-sev1"]["status"] == rows["latency"]["status"] == "not met"
    assert credit(after, "restore-sev1")["percent_of_at_risk"] == 7.5
    assert credit(after, "latency")["percent_of_at_risk"] == 5.0
    relief = {r["check"]: r for r in after["relief"]}
    assert not relief["latency"]["applied"] and "20.0 percent over" in relief["latency"]["why"]
    assert "550 Documents above the forecast plus the tolerance" in relief["latency"]["why"]
    assert not relief["restore-sev1"]["applied"] and "until then the miss stands" in relief["restore-sev1"]["why"]
    figures["restore-sev1"]["relief"].update(agreed=True, recomputed=3.0)
    figures["latency"]["relief"] = {"event": "volume", "recomputed": 28.0}
    _, after = follow(figures, period)
    assert credit(after, "restore-sev1")["percent_of_at_risk"] == 0.0
    assert credit(after, "latency")["percent_of_at_risk"] == 0.0 and "relieved" in credit(after, "latency")["note"]
    # 12,000 submitted against 11,000 is 9.1 percent over: within the tolerance, no relief.
    _, after = follow(figures, {**NOVEMBER, "documents": 12_000, "documents_forecast": 11_000})
    assert credit(after, "latency")["percent_of_at_risk"] == 5.0  # 45 s is within the Critical Level of 60 s


def test_volume_relief_goes_only_as_far_as_the_excess_and_never_by_itself():
    """Finding 6: March 2027, 11,600 Documents against a forecast of 10,000 is 16 percent over (1
    point past the 15 percent tolerance). latency at 9,000 seconds (ceiling 30, Critical Level 60)
    and time to first token at 60 seconds (ceiling 1.5, Critical Level 3) are both beyond their
    Critical Levels. The excess relieves only the 100 Documents above 11,500, so with no recomputed
    figure nothing is relieved: latency 10 x 100% = 10%, time to first token 5 x 100% = 5%, 15%
    of an At-Risk Amount of 12,000 = 1,800, and two Critical Failures. A surge of Documents never
    relieves time to first token, which counts Contacts (Agent turns): its test needs
    period.contacts, and without it comply says so."""
    _, after = follow({"latency": {"value": 9000.0, "n": 5000}, "time-to-first-token": {"value": 60.0, "n": 5000}},
                      period={"month": "2027-03", "charges": 100_000, "documents": 11_600,
                              "documents_forecast": 10_000})
    assert after["credits"]["percent_of_at_risk"] == pytest.approx(15.0)
    assert after["credits"]["amount"] == pytest.approx(1_800)
    assert {f["check"] for f in after["critical_failures"]["found"]} == {"latency", "time-to-first-token"}
    assert any("give period.contacts and period.contacts_forecast" in line for line in after["cannot"])


def test_relief_is_held_to_the_relief_clause():
    """Finding 7: a volume claim on containment (not volume-sensitive), and an Exercise Event
    claimed in a figures file for restore-sev1 (only an Exercise Journal shows one), relieve
    nothing: containment at 30 (Critical Level 45) 10 x 100% = 10%, restore-sev1 at 9 hours
    (Critical Level 8) 15 x 100% = 15%, 25% in all, and two Critical Failures. A force majeure
    claim agreed for containment with no recomputed figure relieves nothing either (the clause
    leaves out only the affected Items); agreed as inseparable, containment is not judged this
    period: 15% left, for restore-sev1."""
    figures = {"containment": {"value": 30.0, "n": 800, "relief": {"event": "volume", "agreed": True}},
               "restore-sev1": {"value": 9.0, "n": 2, "relief": {"event": "exercise", "agreed": True}}}
    _, after = follow(figures, period={**NOVEMBER, "documents": 10_000, "documents_forecast": 10_000})
    assert after["credits"]["percent_of_at_risk"] == pytest.approx(25.0)
    assert len(after["critical_failures"]["found"]) == 2
    relief = {r["check"]: r for r in after["relief"]}
    assert "relieve only latency, time-to-first-token, not containment" in relief["containment"]["why"]
    assert "shown by the Exercise Journal" in relief["restore-sev1"]["why"]
    figures["containment"]["relief"] = {"event": "force-majeure", "agreed": True}
    _, after = follow(figures)
    assert after["credits"]["percent_of_at_risk"] == pytest.approx(25.0)
    figures["containment"]["relief"].update(inseparable=True, accepted_by="J. Ops (Partner)", accepted_on="2026-12-03")
    _, after = follow(figures)
    assert after["credits"]["percent_of_at_risk"] == pytest.approx(15.0)
    assert [f["check"] for f in after["critical_failures"]["found"]] == ["restore-sev1"]
    assert "accepted by J. Ops (Partner) on 2026-12-03" in {r["check"]: r for r in after["relief"]}[
        "containment"]["why"]


def test_no_credit_accrues_before_the_credit_start_date():
    """Go-Live 1 September 2026 plus 20 English Business Days ends the Hypercare Period on 29
    September; the Credit Start Date is 1 October 2026. September 2026 ends before it: the misses
    are reported and judged, but no credit accrues and no Critical Failure counts. October is on it."""
    assert commercial.credit_start(DEAL).isoformat() == "2026-10-01"
    figures = {"containment": {"value": 40.0, "n": 800}}
    rows, after = follow(figures, period={"month": "2026-09", "charges": 100_000, "critical_failures_before": 0})
    assert rows["containment"]["status"] == "not met" and after["hypercare"]["before_credit_start"]
    assert credit(after, "containment")["percent_of_at_risk"] == 0.0
    assert after["critical_failures"]["counted"] == 0 and "Rectification Plan" in after["critical_failures"]["note"]
    _, after = follow(figures, period={"month": "2026-10", "charges": 100_000})
    assert credit(after, "containment")["percent_of_at_risk"] == 10.0


def test_a_period_below_its_minimum_volume_is_not_judged():
    """containment's Minimum Volume is 200 Contacts: 180 Contacts at 40 percent is not judged (not
    run, the figure still shown), so it attracts no credit and no Critical Failure; 200 is judged."""
    rows, after = follow({"containment": {"value": 40.0, "n": 180}})
    row = rows["containment"]
    assert row["status"] == "not run" and row["value"] == 40.0 and "Minimum Volume of 200" in row["reason"]
    assert credit(after, "containment")["percent_of_at_risk"] == 0.0 and after["critical_failures"]["found"] == []
    rows, _ = follow({"containment": {"value": 40.0, "n": 200}})
    assert rows["containment"]["status"] == "not met"


def test_from_a_journal_exercise_events_are_relieved_and_late_drifts_are_deemed_incidents(run, tmp_path):
    """The demo's exercise: both drifts were injected (Exercise Events); the second was never
    notified by the close, so it is one Deemed Severity 2 Incident. drift-notice is relieved as an
    Exercise Event (judged by the Day-60 score, not credited), and its deemed incident, an Exercise
    Event, attracts no Deemed Incident Credit. The
    Severity 2 incident (INC-1) was raised by the exercise: relieved too. The period is the
    exercise window's month, October 2026, on or after the Credit Start Date."""
    from day60 import demo

    journal = tmp_path / "exercise.jsonl"
    demo.build_journal(journal)
    r = run("comply", journal, "--sow", SOW, "--format", "json", "--charges", "100000")
    assert r.exit_code == 1
    after = json.loads(r.stdout)["consequences"]
    relief = {x["check"]: x for x in after["relief"]}
    assert relief["drift-notice"]["applied"] and relief["drift-notice"]["event"] == "exercise"
    assert relief["restore-sev2"]["applied"]
    assert after["credits"]["deemed"] == [{"check": "drift-notice", "count": 1, "each_percent": 5.0,
                                           "percent_of_at_risk": 0.0,
                                           "note": "Exercise Events: they attract no Deemed Incident Credit"}]
    assert after["hypercare"] == {"credit_start": "2026-10-01", "month": "2026-10", "before_credit_start": False}


def _mixed_exercise(run, tmp_path):
    """A T3 exercise between the deal's parties, window 26 October to 6 November 2026: drift D1
    injected (sealed) on 27 October and notified on 3 November; drift D2, which arose of itself
    (source organic) on 28 October, never notified."""
    j, held = tmp_path / "ex.jsonl", tmp_path / "held.json"
    for args in (
        ("new", j, "--synthetic", "--partner", "Harbour Claims BPO (SYNTHETIC)", "--supplier",
         "Example AI Operations Ltd (SYNTHETIC)", "--deployment", "claims-intake", "--tier", "T3", "-c", "uk-office",
         "--window-start", "2026-10-26T09:00", "--window-end", "2026-11-06T17:30", "--runner", "J. Auditor"),
        ("log", j, "safety.agreed", "--id", "D1", "--at", "2026-10-23T10:00", "--set", "agreement=SOW annex B",
         "--set", "stop_owner=Kim Ode", "--set", "stop_condition=error rate above 5%", "--set",
         "rollback_owner=Lee Park", "--set", "no_live_personal_data=true"),
        ("log", j, "drift.onset", "--id", "D1", "--at", "2026-10-27T10:00", "--set", "affected_class=invoices",
         "--seal", held),
        ("log", j, "drift.notice", "--id", "D1", "--at", "2026-11-03T11:00", "--set", "affected_class=invoices",
         "--set", "evidence=alert 4411"),
        ("log", j, "drift.onset", "--id", "D2", "--at", "2026-10-28T10:00", "--set", "affected_class=claims",
         "--set", "source=organic"),
        ("log", j, "exercise.close", "--id", "exercise", "--at", "2026-11-06T17:30"),
        ("reveal", j, "--held", held)):
        assert run(*args).exit_code == 0, args
    return j


def test_exercise_events_attract_no_deemed_credit_and_a_deemed_credit_belongs_to_its_month(run, tmp_path):
    """Finding 8 (clauses 20.6 and 21.5: Exercise Events attract no Service Credit; 22.4: a Deemed
    Incident Credit is of the At-Risk Amount of the month the incident occurred). Both drifts are
    notified late or never (24 Business Hours allowed): two Deemed Severity 2 Incidents. D1 was
    injected, an Exercise Event: no credit. D2 arose of itself on 28 October: one Deemed Incident
    Credit of 5 percent, of October's At-Risk Amount, not of November's (the period is the month
    the window ends in, November 2026), so November's credits are 0 and October's 5 percent is
    listed apart. The drift notice figure is judged on D2 alone, which was never notified: still
    missed. Before, both were credited, 10 percent of November's At-Risk Amount (GBP 1,200)."""
    journal = _mixed_exercise(run, tmp_path)
    r = run("comply", journal, "--sow", SOW, "--format", "json", "--charges", "100000")
    assert r.exit_code == 1, r.output
    after = json.loads(r.stdout)["consequences"]
    assert after["credits"]["deemed"] == [{"check": "drift-notice", "count": 1, "each_percent": 5.0,
                                           "percent_of_at_risk": 0.0,
                                           "note": "Exercise Events: they attract no Deemed Incident Credit"}]
    assert after["credits"]["deemed_elsewhere"] == [{"check": "drift-notice", "count": 1, "month": "2026-10",
                                                     "percent_of_that_months_at_risk": 5.0}]
    assert after["credits"]["percent_of_at_risk"] == 0.0
    relief = {x["check"]: x for x in after["relief"]}["drift-notice"]
    assert relief["applied"] and "judged on the 1 event(s) that arose of themselves" in relief["why"]


def test_a_figure_without_its_sample_size_is_listed_not_passed_over():
    """Finding 9: restore-sev1 at 50 hours with no n (or n 0) is not judged (not run), and it was
    missing from "Not computed": now listed there, with the clause that treats such a figure in
    the Monthly Report as missed."""
    for figure in ({"value": 50.0}, {"value": 50.0, "n": 0}):
        rows, after = follow({"restore-sev1": figure}, period={"month": "2027-03"})
        assert rows["restore-sev1"]["status"] == "not run"
        assert any(line.startswith("restore-sev1: a figure with no Sample Size") and "clause 21.2" in line
                   for line in after["cannot"]), after["cannot"]


def test_without_a_month_the_credits_and_critical_failures_are_conditional():
    """Finding 11: field accuracy at 80 (Critical Level 90), no period.month: 15 x 100% = 15% of
    an At-Risk Amount of 12,000 = 1,800, and a Critical Failure, both only if the period ends on or
    after the Credit Start Date (1 October 2026), which comply cannot tell: marked conditional, and
    the termination right cannot be said to arise even with 2 before (3 against 3)."""
    _, after = follow({"field-accuracy": {"value": 80.0, "n": 1200}},
                      period={"charges": 100_000, "critical_failures_before": 2})
    assert after["credits"]["amount"] == pytest.approx(1_800)
    assert after["credits"]["conditional"] == "this period ends on or after the Credit Start Date (2026-10-01)"
    assert after["critical_failures"]["conditional"] and after["critical_failures"]["termination"]["arises"] is None


def test_charges_given_twice_must_agree(run, tmp_path):
    """Finding 13: period.charges 50,000 in the file and --charges 100000 on the command line:
    refused in one line naming both (exit 2), never silently one of them; the same amount twice is
    fine (field accuracy 93: 15 x 50% = 7.5% of 6,000 = GBP 450.00)."""
    path = tmp_path / "f.json"
    path.write_text(json.dumps({"period": {"month": "2026-11", "charges": 50_000},
                                "field-accuracy": {"value": 93.0, "n": 1200}}))
    r = run("comply", "--sow", SOW, "--figures", path, "--charges", "100000")
    assert r.exit_code == 2 and "period.charges is 50,000.00" in r.stderr and r.stderr.count("\n") == 1, r.output
    r = run("comply", "--sow", SOW, "--figures", path, "--charges", "50000")
    assert r.exit_code == 1 and "GBP 450.00 of an At-Risk Amount of GBP 6,000.00" in r.stdout


def test_the_table_prints_what_follows_and_a_deal_without_modules_prints_none(run, tmp_path):
    figures = tmp_path / "f.json"
    figures.write_text(json.dumps({"period": NOVEMBER, "containment": {"value": 40.0, "n": 800}}))
    r = run("comply", "--sow", SOW, "--figures", figures)
    assert r.exit_code == 1
    assert "Service Credits (clause 22):" in r.stdout and "Critical Failures (clause 23):" in r.stdout
    assert "GBP 1,200.00 of an At-Risk Amount of GBP 12,000.00" in r.stdout and "Not computed:" in r.stdout
    plain = tmp_path / "plain.toml"
    text = SOW.read_text()
    plain.write_text(text.replace(text[text.index("[modules]"):text.index("[parameters]")], ""))
    r = run("comply", "--sow", plain, "--figures", figures, "--format", "json")
    assert r.exit_code == 1 and "consequences" not in json.loads(r.stdout)
    r = run("comply", "--sow", plain, "--figures", figures, "--charges", "100000")
    assert "Service Credits" not in r.stdout
    # Finding 15: what the deal has no module for is said to be ignored, not silently dropped.
    assert "no commercial module, so --charges, period are ignored" in r.stderr


@pytest.mark.parametrize("figures, words", [
    ({"period": {"month": "2026-13"}}, "period.month '2026-13' is not YYYY-MM"),
    ({"period": {"charges": -5}}, "period.charges is -5"),
    ({"period": {"documents_forecast": 0}}, "period.documents_forecast is 0"),
    ({"period": {"volume": 10, "forecast": 9}}, "period.forecast is no longer read"),
    ({"latency": {"value": 5, "n": 900, "deemed": 4}}, "latency give(s) a deemed count, but no clause makes"),
    ({"field-accuracy": {"value": 99, "n": 900, "months": [94, 94, 94]}}, "months ends with 94, not this period's"),
    ({"period": {"mood": "good"}}, "period.mood is not a period field"),
    ({"latency": {"value": 9, "n": 9, "relief": {"event": "bad luck"}}}, "latency.relief is not"),
    ({"latency": {"value": 9, "n": 9, "deemed": 1.5}}, "latency.deemed is 1.5, not a whole count"),
    ({"period": [1, 2]}, "period is not"),
])
def test_bad_commercial_inputs_are_refused_in_one_line(run, tmp_path, figures, words):
    path = tmp_path / "f.json"
    path.write_text(json.dumps(figures))
    r = run("comply", "--sow", SOW, "--figures", path)
    assert r.exit_code == 2 and words in r.stderr and r.stderr.count("\n") == 1, r.output
    assert "Traceback" not in r.output


@pytest.mark.parametrize("charges", ["-1", "nan", "inf", "lots", "1e308"])
def test_bad_charges_are_refused_in_one_line(run, tmp_path, charges):
    path = tmp_path / "f.json"
    path.write_text("{}")
    r = run("comply", "--sow", SOW, "--figures", path, "--charges", charges)
    assert r.exit_code == 2 and "--charges" in r.stderr and r.stderr.count("\n") == 1, r.output


@pytest.mark.parametrize("edit, words", [
    (lambda t: t.replace("containment = { critical = 45.0,", "containment = { critical = 60.0,"),
     "service_levels.containment.critical 60 is not below the target 55"),
    (lambda t: t.replace("restore-sev1 = { critical = 8,", "restore-sev1 = { critical = 8, minimum_volume = 3,"),
     "takes no Minimum Volume"),
    (lambda t: t.replace("latency = { critical = 60,", "latency = { critical = 60, weight = 3,"),
     "service_levels.latency.weight is not a service level setting"),
    (lambda t: t.replace("[service_levels]", "[service_levels]\nfalse-containment = { critical = 5 }"),
     "is a reporting duty, not a Service Level"),
    (lambda t: t.replace('"service-credits", ', ""), "credit_weight needs the service-credits module"),
    (lambda t: t.replace('"critical-failures", ', ""), "credits_remedy is sole-except-critical"),
    (lambda t: t.replace("day60_opens_day = 50", "day60_opens_day = 80"), "the exercise cannot close before it opens"),
    (lambda t: t.replace('service_hours = "all-hours"', 'service_hours = "weekdays"'),
     "parameters.service_hours is 'weekdays', not one of all-hours, business-hours"),
    (lambda t: t.replace("go_live_date = 2026-09-01", 'go_live_date = "soon"'), "go_live_date is 'soon', not a date"),
    (lambda t: t.replace("go_live_date = 2026-09-01", "go_live_date = 2025-01-01"),
     "parameters.go_live_date 2025-01-01 is before deal.effective_date 2026-08-01"),
    (lambda t: t.replace('include = ["service-credits"', 'include = ["service-credit"'),
     "modules.include names unknown module 'service-credit'"),
])
def test_a_deals_commercial_tables_are_checked(run, tmp_path, edit, words):
    """Each mistake is named in the one line a bad deal file gets, exit 2, nothing written."""
    path = tmp_path / "deal.toml"
    path.write_text(edit(SOW.read_text()))
    r = run("clauses", "export", "--sow", path, "--md", tmp_path / "s.md")
    assert r.exit_code == 2 and words in r.stderr and r.stderr.count("\n") == 1, r.stderr
    assert not (tmp_path / "s.md").exists()


@pytest.mark.parametrize("edit, words, absent", [
    (lambda t: t.replace("termination_failures = 3", "termination_failures = 2.5"),
     "parameters.termination_failures is 2.5, not a whole number;", "of a whole number"),
    (lambda t: t.replace('include = ["service-credits"', 'include = ["service-credit"'),
     "did you mean service-credits?", "credit_weight needs"),
])
def test_a_deals_small_mistakes_read_as_one_plain_message(run, tmp_path, edit, words, absent):
    """Finding 25: "not a whole number of a whole number" reads "not a whole number"; a misspelt
    module says which was meant, and the eleven Credit Weights that need it are one follow-on
    line, not eleven problems."""
    path = tmp_path / "deal.toml"
    path.write_text(edit(SOW.read_text()))
    r = run("clauses", "export", "--sow", path, "--md", tmp_path / "s.md")
    assert r.exit_code == 2 and words in r.stderr and absent not in r.stderr, r.stderr


def test_small_messages_name_the_right_fix(run, tmp_path):
    """Finding 25: a period error's fix speaks of the period, not of figures; --charges 1e308 names
    the upper limit; --charges -0 prints GBP 0.00; 'clauses show reliefs' suggests relief; Credit
    Weights adding up to more than 100 percent are said to: the synthetic deal's weights add up to
    100 (not said); raising its two weights of 15 (field accuracy, restore-sev1) to 90 makes
    100 - 30 + 180 = 250."""
    path = tmp_path / "f.json"
    path.write_text(json.dumps({"period": {"month": "2026-13"}}))
    r = run("comply", "--sow", SOW, "--figures", path)
    assert r.exit_code == 2 and 'write period as {"month": "YYYY-MM"' in r.stderr
    path.write_text(json.dumps({"period": {"month": "2026-11"}, "field-accuracy": {"value": 99.0, "n": 1200}}))
    r = run("comply", "--sow", SOW, "--figures", path, "--charges", "1e308")
    assert r.exit_code == 2 and "from 0 to 1e15" in r.stderr
    r = run("comply", "--sow", SOW, "--figures", path, "--charges", "-0")
    assert "GBP 0.00 of an At-Risk Amount of GBP 0.00" in r.stdout and "-0.00" not in r.stdout
    r = run("clauses", "show", "reliefs")
    assert r.exit_code == 2 and "did you mean relief?" in r.stderr
    heavy = tmp_path / "heavy.toml"
    heavy.write_text(SOW.read_text().replace("credit_weight = 15 }", "credit_weight = 90 }"))
    r = run("clauses", "export", "--sow", heavy, "--md", tmp_path / "s.md")
    assert r.exit_code == 0 and "Credit Weights add up to 250 percent" in r.stderr
    assert "Credit Weights" not in run("clauses", "export", "--sow", SOW, "--md", tmp_path / "t.md").stderr


def test_a_draft_deal_missing_a_modules_values_says_so_instead_of_guessing(run, tmp_path):
    """comply reads a deal as a draft: with at_risk_percent unfilled there is no At-Risk Amount to
    share, so no credits are worked out, and the output says which value is missing (exit as the
    verdicts say, no traceback)."""
    deal = tmp_path / "draft.toml"
    deal.write_text("\n".join(line for line in SOW.read_text().splitlines() if not line.startswith("at_risk_percent")))
    figures = tmp_path / "f.json"
    figures.write_text(json.dumps({"containment": {"value": 40.0, "n": 800}}))
    r = run("comply", "--sow", deal, "--figures", figures, "--format", "json")
    assert r.exit_code == 1 and "Traceback" not in r.output
    after = json.loads(r.stdout)["consequences"]
    assert after["credits"] is None and "Service Credits: the deal leaves at_risk_percent unfilled" in after["cannot"]
    assert after["critical_failures"]["found"] == [{"check": "containment", "kind": "beyond its Critical Level",
                                                   "detail": "40.0 is below the Critical Level of 45"}]


def test_a_score_that_does_not_demonstrate_its_tier_says_what_the_clause_makes_of_it():
    """Finding 20: a Day-60 score of 80 (floor 70) whose journal does not show what tier T3
    requires (no Monthly Report received and audited in the window) reads "tier not demonstrated",
    neither met nor missed; clause 20.8 now says it is below the floor where the gap was the
    Provider's and re-run where it was the Partner's or the Auditor's, which comply cannot tell
    from the figure, so it says so under "Not computed" with the clause."""
    rows, after = follow({"day60-score": {"value": 80.0, "n": 1, "tier_not_demonstrated":
                                          "no monthly report was received and audited in the window"}})
    assert rows["day60-score"]["status"] == "tier not demonstrated"
    assert any(line.startswith("day60-score: tier not demonstrated") and "clause 20 treats the score as below its "
               "floor" in line for line in after["cannot"]), after["cannot"]


def test_weights_over_a_hundred_percent_are_noted(tmp_path):
    """``clauses.credit_weights_note``, what 'clauses export' prints: the shipped deal's weights are
    15 + 10 + 5 + 10 + 10 + 10 + 10 + 5 + 15 + 5 + 5 = 100 percent: no note. Both weights of 15
    (field-accuracy, restore-sev1) raised to 90: 100 - 30 + 180 = 250 percent, noted."""
    assert clauses.credit_weights_note(DEAL) is None
    heavy = tmp_path / "heavy.toml"
    heavy.write_text(SOW.read_text().replace("credit_weight = 15 }", "credit_weight = 90 }"))
    note = clauses.credit_weights_note(clauses.load_deal(heavy, LIB, {"drift_detection_business_hours"}))
    assert note.startswith("the Credit Weights add up to 250 percent of the At-Risk Amount; ")


def _incident_exercise(run, tmp_path, *logged):
    """A T3 exercise between the deal's parties, window Mon 26 October to Fri 6 November 2026 (GMT
    from 25 October, so UTC), closed at its end, holding the incident events ``logged``."""
    from day60 import journal as jr

    j = tmp_path / "ex.jsonl"
    for args in (
        ("new", j, "--synthetic", "--partner", "Harbour Claims BPO (SYNTHETIC)", "--supplier",
         "Example AI Operations Ltd (SYNTHETIC)", "--deployment", "claims-intake", "--tier", "T3", "-c", "uk-office",
         "--window-start", "2026-10-26T09:00", "--window-end", "2026-11-06T17:30", "--runner", "J. Auditor"),
        *(("log", j, *line) for line in logged),
        ("log", j, "exercise.close", "--id", "exercise", "--at", "2026-11-06T17:30")):
        assert run(*args).exit_code == 0, args
    r = run("comply", j, "--sow", SOW, "--format", "json", "--charges", "100000")
    assert r.exit_code == 1, r.output
    return json.loads(r.stdout), clauses.journal_figures(jr.read(j), DEAL)["restore-sev1"]["sources"]


SAFETY = ("--at", "2026-10-23T10:00", "--set", "agreement=SOW annex B", "--set", "stop_owner=Kim Ode", "--set",
          "stop_condition=error rate above 5%", "--set", "rollback_owner=Lee Park", "--set",
          "no_live_personal_data=true")


def test_an_organic_incident_with_no_severity_closed_unconfirmed_is_judged_beside_the_exercise(run, tmp_path):
    """att36b finding 3, follow-up. INC-A, an Exercise Event of severity 1, detected Tue 27 October
    10:00 and restored 12:00 (2 hours, within the 4 allowed). INC-B arose of itself (organic) with
    no severity on Wed 28 October 10:00, its ticket closed 11:00 with no monitoring check: held to
    severity 1's clause, a breach with no time to compare, so restore-sev1 is not met.

    By hand, the incidents restore-sev1 judges are INC-A and INC-B: sources exercise 1, organic 1;
    judged on INC-B alone, no restore time (organic_value none) and a breach. The relief leaves
    INC-A out and the miss stands: no restore time beyond the Critical Level of 8 hours, so the
    band is "missed", 50 percent of the Credit Weight of 15 = 7.5 percent of the At-Risk Amount
    (12 percent of 100,000 = 12,000): 900. Before the fix the split took only incidents with no
    severity that were restored or open (status "unclassified"), not INC-B: sources exercise 1,
    organic 0, so every event behind the figure read as an Exercise Event and the organic breach
    was relieved, credit 0."""
    out, sources = _incident_exercise(
        run, tmp_path, ("safety.agreed", "--id", "INC-A", *SAFETY),
        ("incident.detected", "--id", "INC-A", "--at", "2026-10-27T10:00", "--set", "severity=1"),
        ("incident.restored", "--id", "INC-A", "--at", "2026-10-27T12:00", "--set", "check=intake canary passed"),
        ("incident.detected", "--id", "INC-B", "--at", "2026-10-28T10:00", "--set", "source=organic"),
        ("incident.ticket-closed", "--id", "INC-B", "--at", "2026-10-28T11:00", "--set", "state=Closed", "--set",
         "resolved=true"))
    assert sources == {"exercise": 1, "organic": 1, "organic_value": None, "organic_breach": True}
    check = next(r for r in out["checks"] if r["check"] == "restore-sev1")
    assert check["status"] == "not met" and "with no severity closed with no monitoring check" in check["reason"]
    after = out["consequences"]
    relief = {x["check"]: x for x in after["relief"]}["restore-sev1"]
    assert relief["applied"] and relief["breach"] and relief["recomputed"] is None
    assert "judged on the 1 event(s) that arose of themselves, one of them a breach" in relief["why"]
    assert (credit(after, "restore-sev1")["band"], credit(after, "restore-sev1")["percent_of_at_risk"]) == (
        "missed", 7.5)
    assert after["credits"]["amount"] == pytest.approx(900)


def test_an_exercise_incident_never_detected_is_an_exercise_event_of_the_strictest_clause(run, tmp_path):
    """INC-C, raised by the exercise on Thu 29 October 10:00 and classed severity 2, is never
    detected or notified by the close: restore-sev1 judges it (every incident never detected is
    held to the strictest clause), so the figure is not met. INC-D arose of itself, severity 1,
    detected Fri 30 October 10:00 and restored 12:00: 2 hours, within the 4 allowed.

    By hand: sources exercise 1 (INC-C), organic 1 (INC-D); judged on INC-D alone, 2 hours and no
    breach, so the relief recomputes restore-sev1 as 2.0, met: no credit. Before, the split left
    out INC-C (status "not detected"): sources exercise 0, organic 1, no Exercise Event relief, and
    the Exercise Event's breach was credited, 7.5 percent of the At-Risk Amount (900)."""
    out, sources = _incident_exercise(
        run, tmp_path, ("safety.agreed", "--id", "INC-C", *SAFETY),
        ("incident.raised", "--id", "INC-C", "--at", "2026-10-29T10:00", "--set", "note=queue stalled on purpose"),
        ("incident.classified", "--id", "INC-C", "--at", "2026-10-29T10:05", "--set", "severity=2", "--set",
         "reason=runner's plan"),
        ("incident.detected", "--id", "INC-D", "--at", "2026-10-30T10:00", "--set", "severity=1", "--set",
         "source=organic"),
        ("incident.restored", "--id", "INC-D", "--at", "2026-10-30T12:00", "--set", "check=intake canary passed"))
    assert sources == {"exercise": 1, "organic": 1, "organic_value": 2.0, "organic_breach": False}
    check = next(r for r in out["checks"] if r["check"] == "restore-sev1")
    assert check["status"] == "not met" and "never detected" in check["reason"]
    after = out["consequences"]
    relief = {x["check"]: x for x in after["relief"]}["restore-sev1"]
    assert relief["applied"] and relief["recomputed"] == 2.0 and not relief["breach"]
    assert credit(after, "restore-sev1")["percent_of_at_risk"] == 0.0
    assert credit(after, "restore-sev1")["note"].startswith("relieved: ")

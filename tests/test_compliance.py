"""``day60.compliance``: what ``day60 comply`` decides, called from Python as the command calls it
(issue 41.5: the command parses, calls the library and prints).

The deal is the shipped SYNTHETIC one: at_risk_percent 12; a Service Level missed within its
Critical Level is credited 50 percent of its Credit Weight, beyond it 100 percent; 5 percent of the
At-Risk Amount per Deemed Severity 2 Incident; weights field-accuracy 15, containment 10, latency
10; Go-Live 1 September 2026 with 20 Business Days of hypercare, so the Credit Start Date is
1 October 2026. Invented numbers that show the arithmetic, not results."""

import json
import math

import pytest

from day60 import clauses, compliance
from day60.errors import InputError
from day60.resources import data_dir
from tests.builders import make_journal

SOW = data_dir("clauses") / "examples" / "synthetic-sow.toml"
LIB = clauses.load_library()
DEAL = clauses.load_deal(SOW, LIB, {"drift_detection_business_hours"})
FIGURES = {"field-accuracy": {"value": 93.0, "n": 1200}, "containment": {"value": 40.0, "n": 800},
           "hallucinated-policy": {"value": 0.5, "n": 900, "deemed": 2}, "latency": {"value": 20.0, "n": 5000}}


def _figures(tmp_path, data):
    path = tmp_path / "figures.json"
    path.write_text(json.dumps(data))
    return path


def test_a_figures_file_is_judged_counted_and_credited(tmp_path):
    """Charges 100,000 for November 2026: At-Risk Amount 12 percent = 12,000.
    field-accuracy 93.0 (floor 95, Critical Level 90): not met, missed within it, 15 x 50% = 7.5%.
    containment 40.0 (floor 55, Critical Level 45): not met, beyond it, 10 x 100% = 10%.
    hallucinated-policy 0.5 (met) with 2 Deemed Severity 2 Incidents: 2 x 5% = 10%.
    latency 20.0 seconds: met, no credit.
    Total 7.5 + 10 + 10 = 27.5% of 12,000 = 3,300, which is 3.3 percent of the charges.
    Counts: 2 met, 2 not met, every other check of the library not run (no figure); the run fails
    (exit 1 in the CLI) because two are not met."""
    path = _figures(tmp_path, {**FIGURES, "period": {"month": "2026-11"}})
    done = compliance.check(LIB, DEAL, figures=path, charges=100_000.0)
    everything = len(clauses.check_ids(LIB, DEAL))
    assert len(done.rows) == everything
    assert done.counts == {"met": 2, "not met": 2, "not run": everything - 4, "tier not demonstrated": 0,
                           "reported": 0, "reported, not triggered": 0, "triggered": 0}
    assert done.duties == 0 and done.failed
    assert done.period == {"month": "2026-11", "charges": 100_000.0}
    assert done.source == str(path) and done.synthetic and done.ignored == []
    lines = compliance.consequence_lines(done.consequences, "GBP")
    assert lines["credits"] == [
        "field-accuracy: missed, weight 15 x share 50 percent = 7.5 percent of the At-Risk Amount",
        "containment: beyond the Critical Level, weight 10 x share 100 percent = 10 percent of the At-Risk Amount",
        "hallucinated-policy: 2 Deemed Severity 2 Incident(s) x 5 percent = 10 percent of the At-Risk Amount",
        "total 27.5 percent of the At-Risk Amount, 3.3 percent of the Monthly Charges: GBP 3,300.00 of an At-Risk "
        "Amount of GBP 12,000.00"]
    assert "period 2026-11: on or after the Credit Start Date 2026-10-01" in lines["relief"]
    titles = compliance.consequence_titles(done.consequences)
    assert set(titles) == {"credits", "critical", "relief", "cannot"} and titles["cannot"] == "Not computed"


def test_charges_given_twice_must_agree(tmp_path):
    """The figures file says period.charges 100,000: --charges 100,000 is the same sum and is taken;
    --charges 90,000 contradicts it and is refused naming both sums."""
    path = _figures(tmp_path, {**FIGURES, "period": {"month": "2026-11", "charges": 100000}})
    assert compliance.check(LIB, DEAL, figures=path, charges=100_000.0).period["charges"] == 100_000.0
    with pytest.raises(InputError) as exc:
        compliance.check(LIB, DEAL, figures=path, charges=90_000.0)
    assert exc.value.field == "--charges" and "90,000.00" in exc.value.problem and "100,000.00" in exc.value.problem


def test_a_journals_period_is_the_month_its_window_ends_in(tmp_path):
    """A T3 journal whose window runs Mon 2 to Fri 13 March 2026 (London) is judged for March 2026,
    with the --charges given; March 2026 is before the Credit Start Date of 1 October 2026, so the
    hypercare line says so. The deal is SYNTHETIC, so the run is, though the journal is not."""
    path = make_journal(tmp_path / "j.jsonl", [("exercise.close", "close", "2026-03-13T17:30")])
    from day60 import reading

    done = compliance.check(LIB, DEAL, journal=reading.read(path), charges=50_000.0)
    assert done.period == {"month": "2026-03", "charges": 50_000.0}
    assert done.source == str(path) and done.synthetic
    assert done.consequences["hypercare"]["month"] == "2026-03"
    assert done.consequences["hypercare"]["before_credit_start"] is True
    assert compliance.journal_period({"tier": "T3"}) == {"month": None}


def test_what_a_deal_with_no_commercial_module_ignores_is_said():
    """Charges, a period beyond its month, relief claims and earlier months all feed only the
    commercial modules: each given one is named once; a figure's Deemed Severity 2 Incidents get
    their own note. A period holding only its month, and no charges, names nothing."""
    measured = {"field-accuracy": {"value": 93.0, "n": 1200, "months": [96.0, 93.0],
                                   "relief": {"event": "force-majeure"}},
                "hallucinated-policy": {"value": 0.5, "n": 900, "deemed": 2}}
    assert compliance.ignored(measured, {"month": "2026-11", "charges": 100}, 5.0) == [
        "the deal includes no commercial module, so --charges, period, relief claims, months are ignored: no "
        "Service Credit, Critical Failure or relief is worked out",
        "hallucinated-policy: 2 Deemed Severity 2 Incident(s), each a Severity 2 Incident under the schedule"]
    assert compliance.ignored({"latency": {"value": 20.0, "n": 5}}, {"month": "2026-11"}, None) == []
    assert compliance.ignored({}, {}, 1.0)[0].startswith("the deal includes no commercial module, so --charges is ")


def test_inputs_comply_cannot_run_on_are_refused_before_anything_is_read(tmp_path):
    """No deal file; neither or both sources of figures; charges below 0, above 1e15 or not a number.
    Minus zero charges are read as 0 (a credit is never shown as -0)."""
    fig, journal = tmp_path / "f.json", tmp_path / "j.jsonl"
    cases = [((None, None, fig, None), "--sow"), ((SOW, None, None, None), "--figures"),
             ((SOW, journal, fig, None), "--figures"), ((SOW, None, fig, -1.0), "--charges"),
             ((SOW, None, fig, 2e15), "--charges"), ((SOW, None, fig, math.nan), "--charges"),
             ((SOW, None, fig, math.inf), "--charges")]
    for (sow, j, f, charges), field in cases:
        with pytest.raises(InputError) as exc:
            compliance.check_inputs(sow, j, f, charges, {})
        assert exc.value.field == field, (sow, j, f, charges)
    zero = compliance.check_inputs(SOW, None, fig, -0.0, {})
    assert zero == 0 and math.copysign(1, zero) == 1
    assert compliance.check_inputs(SOW, None, fig, None, {}) is None
    with pytest.raises(InputError) as exc:  # an output may not replace an input
        compliance.check_inputs(SOW, None, fig, None, {"--html": SOW})
    assert exc.value.field == "--html"


def test_counts_name_every_status_and_duties_include_untriggered_reports():
    """Rows: met, not met, reported, reported not triggered, triggered: one each of those, zero of
    the rest; duties are the reported ones of both kinds, 1 + 1 = 2; one not met fails the run."""
    rows = [{"status": s} for s in ("met", "not met", "reported", "reported, not triggered", "triggered")]
    done = compliance.Compliance(rows, {}, "x", {}, None, False)
    assert done.counts == {"met": 1, "not met": 1, "not run": 0, "tier not demonstrated": 0, "reported": 1,
                           "reported, not triggered": 1, "triggered": 1}
    assert done.duties == 2 and done.failed
    assert not compliance.Compliance(rows[:1], {}, "x", {}, None, False).failed


def test_a_deals_calendar_is_compared_with_the_journals_as_defined():
    """``clauses.calendar_differs``, behind the note score and comply print: the SYNTHETIC deal's
    calendar (London, England's holidays, Mon-Fri 09:00-17:30) is the UK office's, so a header
    carrying it, even with the holiday dates it resolved for its window, does not differ; the same
    hours ending at 17:00 on Friday do; a deal with no calendar, or no deal, never does."""
    header = {"calendar": {**DEAL.calendar, "holidays": {**DEAL.calendar["holidays"],
                                                         "resolved": [{"date": "2026-04-03", "name": "Good Friday"}]}}}
    assert not clauses.calendar_differs(DEAL, header)
    short = {"calendar": {**DEAL.calendar, "hours": {**DEAL.calendar["hours"], "fri": ["09:00-17:00"]}}}
    assert clauses.calendar_differs(DEAL, short)
    assert not clauses.calendar_differs(None, short)
    assert not clauses.calendar_differs(DEAL.model_copy(update={"calendar": None}), short)


def test_the_clause_listing_names_duties_and_finds_parts_by_id():
    """``clauses.listing``, ``duties`` and ``part``, what 'clauses list' and 'clauses show' call:
    the listing holds every clause then every module, once each; false-containment is a reporting
    duty (its one check is reported, with no threshold and no parameter), drift-lead-time is not;
    'relief' is found as a module, 'reliefs' is refused suggesting relief, 'zzzz' with no suggestion."""
    rows = clauses.listing(LIB)
    assert [r["id"] for r in rows] == [*LIB.clauses, *LIB.parts]
    assert {r["kind"] for r in rows[:len(LIB.clauses)]} == {"measure"}
    duties = clauses.duties(LIB)
    assert "false-containment" in duties and "drift-lead-time" not in duties
    assert next(r for r in rows if r["id"] == "false-containment")["parameters"] == []
    assert isinstance(clauses.part(LIB, "relief"), clauses.Module)
    assert isinstance(clauses.part(LIB, "drift-lead-time"), clauses.Clause)
    for wrong, fix in (("reliefs", "did you mean relief? see 'day60 clauses list'"),
                       ("zzzz", "see 'day60 clauses list'")):
        with pytest.raises(InputError) as exc:
            clauses.part(LIB, wrong)
        assert exc.value.field == "ID" and exc.value.fix == fix

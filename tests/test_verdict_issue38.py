"""Issue 38: verdicts two audits from the charter alone read differently, most in the measured
party's favour. Each figure is worked by hand from the charter in the test's docstring (sections
named). The calendar is the UK office (Europe/London, Monday to Friday 09:00 to 17:30, England's
bank holidays); the window is Mon 2 Mar 09:00 to Fri 13 Mar 17:30 2026 (GMT throughout), unless a
test says otherwise."""

import json

import pytest

from day60 import assess, metrics
from day60 import journal as jr
from day60.resources import data_dir
from tests.builders import SIGN_OFF, make_journal

SOW = data_dir("clauses") / "examples" / "synthetic-sow.toml"
ORGANIC = {"source": "organic"}
NOTE = {"affected_class": "scanned invoices", "evidence": "alert 1"}
CLOSE = ("exercise.close", "exercise", "2026-03-13T17:30")
SMOKE = {"model_pin": "m", "prompt_version": "p", "threshold_set": "t"}
PASS = {"present": True, "covers_period": True, "supported": True}
NA = {**PASS, "not_applicable": True}
ELEMENTS = [e["id"] for e in metrics.default_report_elements()]


def scored(path, **kw):
    return assess.score_journal(jr.read(path), **kw)


def line(done, ident):
    return next(x for x in done.result["lines"] if x["id"] == ident)


def rows(table):
    return {r["id"]: r for r in metrics.records(table)}


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
    r, checks = comply_rows(run, open_)
    assert checks["report-timeliness"]["status"] == "not run"
    assert "2026-02 not received so far" in checks["report-timeliness"]["reason"]

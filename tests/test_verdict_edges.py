"""A hostile review of issue 24: each test is one step off the path its own tests walk, with the
figure worked by hand from the charter (sections named). The calendar is the UK office
(Europe/London, Monday to Friday 09:00 to 17:30, England's bank holidays); the window is Mon 2
Mar 09:00 to Fri 13 Mar 17:30 2026 (GMT throughout), unless a test says otherwise."""

import json

import pytest

from day60 import assess, metrics
from day60 import journal as jr
from day60.resources import data_dir
from tests.builders import make_journal

SOW = data_dir("clauses") / "examples" / "synthetic-sow.toml"
ORGANIC = {"source": "organic"}
NOTE = {"affected_class": "scanned invoices", "evidence": "alert 1"}
CLOSE = ("exercise.close", "exercise", "2026-03-13T17:30")
SMOKE = {"model_pin": "m", "prompt_version": "p", "threshold_set": "t"}
PASS = {"present": True, "covers_period": True, "supported": True}
ELEMENTS = [e["id"] for e in metrics.default_report_elements()]


def scored(path, **kw):
    return assess.score_journal(jr.read(path), **kw)


def line(done, ident):
    return next(x for x in done.result["lines"] if x["id"] == ident)


def rows(table):
    return {r["id"]: r for r in metrics.records(table)}


def comply_rows(run, path):
    r = run("comply", path, "--sow", SOW, "--format", "json", "--parties-differ")
    return r, {x["check"]: x for x in json.loads(r.stdout)["checks"]}


# ----- incidents live through the window, whenever their clock started (3.19.2, 3.19.4) ------------


def test_an_incident_open_through_the_window_is_judged_whenever_its_clock_started(tmp_path, run):
    """Severity 1 throughout. I1 detected Mon 2 Mar 08:59, a minute before the window, and never
    restored: down for the whole window, 248.5 h, so it is open at the close. I2 restored on Fri
    27 Feb, re-opened Tue 3 Mar 10:00 and never restored again: open too. I3 detected Wed 4 Mar
    10:00, restored 11:00: 1 h, full marks. I4 restored on 27 Feb and never re-opened, and I5
    whose ticket was closed on 27 Feb, ended before the window: counted apart. I6 detected 27 Feb
    and its ticket closed Wed 4 Mar with no monitoring check: unconfirmed, judged.
    Restore line: 25 x (0 + 0 + 1 + 0) / 4 = 6.25 (before: I1, I2 and I6 were "outside the
    window", the line read 25 of 25, and comply's severity 1 clause read met on I3's 1 h).
    comply restore-sev1: 2 still open and 1 unconfirmed: not met, exit 1."""
    path = make_journal(tmp_path / "j.jsonl", [
        ("incident.detected", "I1", "2026-03-02T08:59", {"severity": 1, **ORGANIC}),
        ("incident.detected", "I2", "2026-02-27T10:00", {"severity": 1, **ORGANIC}),
        ("incident.restored", "I2", "2026-02-27T11:00", {"check": "probe"}),
        ("incident.reopened", "I2", "2026-03-03T10:00", {"reason": "queue stalled again"}),
        ("incident.detected", "I3", "2026-03-04T10:00", {"severity": 1, **ORGANIC}),
        ("incident.restored", "I3", "2026-03-04T11:00", {"check": "probe"}),
        ("incident.detected", "I4", "2026-02-27T10:00", {"severity": 1, **ORGANIC}),
        ("incident.restored", "I4", "2026-02-27T11:00", {"check": "probe"}),
        ("incident.detected", "I5", "2026-02-26T10:00", {"severity": 1, **ORGANIC}),
        ("incident.ticket-closed", "I5", "2026-02-27T10:00", {"state": "Closed", "resolved": True}),
        ("incident.detected", "I6", "2026-02-27T10:00", {"severity": 1, **ORGANIC}),
        ("incident.ticket-closed", "I6", "2026-03-04T10:00", {"state": "Closed", "resolved": True}),
        CLOSE])
    done = scored(path)
    table = rows(done.figures.tables["incidents"])
    assert {k: r["status"] for k, r in table.items()} == {
        "I1": "open", "I2": "open", "I3": "restored", "I4": "outside the window", "I5": "outside the window",
        "I6": "unconfirmed"}
    assert "started before the window opened" in table["I1"]["reason"]
    assert line(done, "restore")["earned"] == pytest.approx(6.25)
    r, checks = comply_rows(run, path)
    assert (checks["restore-sev1"]["status"], r.exit_code) == ("not met", 1)
    assert "2 severity 1 incident(s) still open at the close" in checks["restore-sev1"]["reason"]

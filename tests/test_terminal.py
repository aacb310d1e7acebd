"""Terminal printouts say one reason once: figures stopped by the same missing data are named on
one line with that reason, never the same "not run" sentence line after line."""

from day60.display import merge_missing, stack_repeats
from tests.builders import SIGN_OFF, make_journal


def test_figures_stopped_by_one_reason_are_named_on_one_line():
    lines = [("notice lead time", "hours", "not run: no drift"), ("notice lead time", "business hours",
                                                                    "not run: no drift"),
             ("detection lead time", "hours", "not run: no drift")]
    assert merge_missing(lines) == [("notice lead time (hours and business hours) and detection lead time (hours)",
                                     "not run: no drift")]


def test_equal_figures_are_two_findings_and_are_never_merged():
    """Two lead times that both read 'mean 1.00 h' are two measurements; and a reason is merged only
    with the line right after it."""
    lines = [("a", None, "mean 1.00 h"), ("b", None, "mean 1.00 h"), ("c", None, "not run: x"),
             ("d", None, "mean 2.00 h"), ("e", None, "not run: x")]
    assert merge_missing(lines) == [("a", "mean 1.00 h"), ("b", "mean 1.00 h"), ("c", "not run: x"),
                                    ("d", "mean 2.00 h"), ("e", "not run: x")]


def test_table_rows_with_one_reason_become_one_row_naming_each():
    rows = [{"line": "a", "points": "8", "status": "not exercised", "reason": "no rollback"},
            {"line": "b", "points": "4", "status": "not exercised", "reason": "no rollback"},
            {"line": "c", "points": "4", "status": "scored", "reason": ""},
            {"line": "d", "points": "4", "status": "scored", "reason": ""}]
    assert stack_repeats(rows, ("status", "reason"), ("line", "points")) == [
        {"line": "a, b", "points": "8, 4", "status": "not exercised", "reason": "no rollback"},
        {"line": "c", "points": "4", "status": "scored", "reason": ""},
        {"line": "d", "points": "4", "status": "scored", "reason": ""}]


def test_metrics_of_an_empty_exercise_say_each_reason_once(run, tmp_path):
    """No drift, no rollback: the four lead times share one line and one reason; each kind of
    rollback has one line for its three steps (before: four and three lines repeating it)."""
    journal = make_journal(tmp_path / "empty.jsonl", [])
    r = run("metrics", journal)
    assert r.exit_code == 0, r.output
    out = r.stdout
    reason = "not run: no drift observation with its onset in the window"
    assert out.count(reason) == 1
    assert ("notice lead time (hours and business hours) and detection lead time (hours and business hours): "
            + reason) in out
    for kind in ("production", "rehearsal"):
        line = f"decision time, rollback time and re-queue completion: not run: no {kind} rollback reached this step"
        assert out.count(line) == 1, kind


def test_a_rehearsal_with_only_a_decision_keeps_its_figure_on_its_own_line(run, tmp_path):
    """A rehearsal decided in 5 minutes and never rolled back: the decision time stands alone, the
    two steps it never reached share their reason."""
    journal = make_journal(tmp_path / "r.jsonl", [
        ("safety.agreed", "R1", "2026-03-01T10:00", SIGN_OFF),
        ("rollback.criterion-met", "R1", "2026-03-06T10:00", {"kind": "rehearsal"}),
        ("rollback.decision", "R1", "2026-03-06T10:05")])
    out = run("metrics", journal).stdout
    assert "    decision time: mean 5.0 min (n=1, sum 5.0, max 5.0)" in out
    assert "    rollback time and re-queue completion: not run: no rehearsal rollback reached this step" in out


def test_the_score_table_gives_each_reason_one_row(run, tmp_path):
    """An empty exercise: eleven lines in five reasons, so five rows, each naming its lines and their
    points in order (drift 15, 10; false alerts 5, whose reason adds that no drift was observed to
    judge them beside; incidents 25, 10; rollback 8, 4, 4, 4; report 10, 5)."""
    journal = make_journal(tmp_path / "empty.jsonl", [])
    r = run("score", journal)
    assert r.exit_code == 0, r.output
    rows = [line for line in r.stdout.splitlines() if "   not exercised   " in line]  # the table's rows
    assert len(rows) == 5, rows
    assert rows[0].startswith("drift-notice, drift-detection ") and "15, 10 " in rows[0]
    assert rows[1].startswith("false-alerts ") and "0 false alerts in the window, counted" in rows[1]
    assert "rollback-time, rollback-decision, requeue, smoke-set" in rows[3] and "8, 4, 4, 4" in rows[3]
    assert r.stdout.count("no production rollback in the window") == 1

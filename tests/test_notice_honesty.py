"""What an outside attack on 'day60 notice' and 'day60 log' found at the end of issue 41's work
(a supplier's expert with the docs only): a notice sent a score that was still provisional as if
it were final, a notice went out of a journal with no score at all, and a field given twice to
--set was written with its second value, unseen."""

import json

from tests.builders import make_journal


def test_a_notice_of_a_score_that_may_still_change_says_provisional(run, tmp_path):
    """An exercise on the uk-office calendar, not closed: one incident I1 detected 10:00 and restored
    11:00 on 2026-03-02 (a Monday). rubric.provisional gives one reason, "the exercise has not been
    closed" (no sealed onset here). The notice's JSON carries exactly that list; its letter says
    PROVISIONAL and why. (Before: neither word, and the letter read "Score as computed now" alone.)"""
    journal = make_journal(tmp_path / "open.jsonl", [
        ("incident.detected", "I1", "2026-03-02T10:00", {"severity": 2, "source": "organic"}),
        ("incident.restored", "I1", "2026-03-02T11:00", {"check": "probe"})])
    out, page = tmp_path / "n.json", tmp_path / "n.html"
    r = run("notice", journal, "--to", "Test supplier", "--out", out, "--html", page)
    assert r.exit_code == 0, r.output
    assert json.loads(out.read_text())["provisional"] == ["the exercise has not been closed"]
    assert "PROVISIONAL:" in page.read_text() and "the exercise has not been closed" in page.read_text()


def test_a_journal_with_no_score_gets_no_notice_and_nothing_is_logged(run, tmp_path):
    """A journal of its header only: no rubric line can be scored, so the score is null. The notice
    is refused (exit 2, one line naming JOURNAL), no file is written and no notice.sent line is
    logged (before: exit 0, "score": null and a notice.sent at seq 1)."""
    journal = make_journal(tmp_path / "empty.jsonl", [])
    before = journal.read_bytes()
    out = tmp_path / "n.json"
    r = run("notice", journal, "--to", "Test supplier", "--out", out)
    assert r.exit_code == 2 and "JOURNAL" in r.stderr and "no score" in r.stderr, r.output
    assert not out.exists() and journal.read_bytes() == before


def test_a_field_given_twice_to_set_is_refused(run, tmp_path):
    """`--set severity=2 --set severity=3`: the severity decides which restore target applies, and the
    second value was written unseen. Refused, exit 2, naming the field and both values; the journal
    is unchanged."""
    journal = make_journal(tmp_path / "ex.jsonl", [])
    before = journal.read_bytes()
    r = run("log", journal, "incident.detected", "--id", "Q1", "--at", "2026-03-02T10:00+00:00",
            "--set", "severity=2", "--set", "severity=3", "--set", "source=organic")
    assert r.exit_code == 2 and "--set severity" in r.stderr and "given twice" in r.stderr, r.output
    assert "'2'" in r.stderr and "'3'" in r.stderr
    assert journal.read_bytes() == before

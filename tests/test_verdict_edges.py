"""A hostile review of issue 24: each test is one step off the path its own tests walk, with the
figure worked by hand from the charter (sections named). The calendar is the UK office
(Europe/London, Monday to Friday 09:00 to 17:30, England's bank holidays); the window is Mon 2
Mar 09:00 to Fri 13 Mar 17:30 2026 (GMT throughout), unless a test says otherwise."""

import datetime as dt
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


# ----- upheld disputes: the remedy belongs to the disputed line's section (8.4) ----------------------


def _dispute(path, line_id, exclude=None, outcome="upheld"):
    at = dt.datetime(2026, 3, 14, 9, tzinfo=dt.UTC)
    seq = jr.append(path, "dispute", f"dispute-{line_id}", at, {"line": line_id, "reason": "r", "raised_by": "A",
                                                               "organisation": "Supplier"})["seq"]
    data = {"target": seq, "outcome": outcome, "reason": "agreed"} | ({"exclude": exclude} if exclude else {})
    jr.append(path, "resolve", f"dispute-{seq}", at + dt.timedelta(hours=1), data)
    return seq


def test_an_exclusion_never_reaches_another_sections_figures(tmp_path, run):
    """Rehearsal R9: decision Wed 4 Mar 14:09, serving 18:21, smoke pass 18:26: 257 min, beyond the
    120-minute cut-off: the rollback-time line earns 0 of 8. I1 (sev 2) restored in 2 h: 25 of 25.
    A dispute of the restore line, upheld "excluding R9", must leave R9 in the rollback figures
    (before, R9 left them and rollback-time read "not exercised", so a slow rollback vanished on a
    dispute about another line). X1 is both an incident and a rollback: a restore dispute excluding
    X1 takes out the incident only. 'resolve' refuses the cross-section id outright."""
    path = make_journal(tmp_path / "j.jsonl", [
        ("rollback.criterion-met", "R9", "2026-03-04T14:02", {"kind": "rehearsal"}),
        ("rollback.decision", "R9", "2026-03-04T14:09"),
        ("rollback.serving", "R9", "2026-03-04T18:21"),
        ("rollback.smoke-pass", "R9", "2026-03-04T18:26", SMOKE),
        ("rollback.criterion-met", "X1", "2026-03-05T14:02", {"kind": "rehearsal"}),
        ("rollback.decision", "X1", "2026-03-05T14:09"),
        ("rollback.serving", "X1", "2026-03-05T14:21"),
        ("rollback.smoke-pass", "X1", "2026-03-05T14:26", SMOKE),
        ("incident.detected", "I1", "2026-03-03T10:00", {"severity": 2, **ORGANIC}),
        ("incident.restored", "I1", "2026-03-03T12:00", {"check": "probe"}),
        ("incident.detected", "X1", "2026-03-06T10:00", {"severity": 2, **ORGANIC}),
        CLOSE], tier="T2")
    logged = run("dispute", path, "--line", "restore", "--as", "supplier", "--by", "A", "--reason", "r")
    seq = int(logged.stdout.split()[1].rstrip(":"))
    r = run("resolve", path, "--dispute", seq, "--outcome", "upheld", "--exclude", "R9", "--reason", "agreed")
    assert r.exit_code == 2 and "--exclude: R9: the disputed line restore scores incident items" in r.stderr
    jr.append(path, "resolve", f"dispute-{seq}", dt.datetime(2026, 3, 14, 10, tzinfo=dt.UTC),
              {"target": seq, "outcome": "upheld", "reason": "agreed", "exclude": ["R9", "X1"]})
    done = scored(path)
    assert rows(done.figures.tables["rollbacks"])["R9"]["status"] == "in the window"
    assert rows(done.figures.tables["rollbacks"])["X1"]["status"] == "in the window"
    assert rows(done.figures.tables["incidents"])["X1"]["status"] == "excluded"
    rollback = line(done, "rollback-time")
    # R9 earns 0 (257 min > 120), X1 full marks (17 min <= 30): 8 x (0 + 1) / 2 = 4
    assert (rollback["status"], rollback["earned"]) == ("scored", pytest.approx(4.0))
    restore = line(done, "restore")
    assert restore["earned"] == 25 and "X1 excluded" in restore["reason"] and "R9 not excluded" in restore["reason"]
    [d] = done.figures.summary["disputes"]
    assert d["exclude_applied"] == ["X1"] and [x["id"] for x in d["exclude_not_applied"]] == ["R9"]


def test_a_sealed_onset_excluded_by_a_dispute_stays_sealed_until_revealed(tmp_path):
    """Injected D1 (onset sealed, never revealed) and organic D2 notified in 1 bh. A drift-notice
    dispute upheld excluding D1 before anyone has seen D1's onset: D1 stays sealed, the score stays
    PROVISIONAL ("1 sealed onset(s) not yet revealed") and the drift lines read not run (before,
    D1 read "excluded", the score was final and drift-notice earned 15 of 15 on D2 alone). Once
    revealed (onset Tue 3 Mar 09:00), the exclusion applies: D2 alone, 1 bh, full marks, 15."""
    path = make_journal(tmp_path / "j.jsonl", [
        ("safety.agreed", "D1", "2026-03-02T09:10", SIGN_OFF),
        ("drift.onset", "D1", "2026-03-03T09:00", {"affected_class": "scanned invoices"}),
        ("drift.notice", "D1", "2026-03-09T09:00", NOTE),
        ("drift.onset", "D2", "2026-03-03T09:00", {**ORGANIC, "affected_class": "scanned invoices"}),
        ("drift.notice", "D2", "2026-03-03T10:00", NOTE),
        CLOSE], reveal=False)
    _dispute(path, "drift-notice", ["D1"])
    done = scored(path)
    assert rows(done.figures.tables["drift"])["D1"]["status"] == "sealed"
    assert done.result["provisional"] == ["1 sealed onset(s) not yet revealed"]
    assert line(done, "drift-notice")["status"] == "not run" and "sealed" in line(done, "drift-notice")["reason"]
    jr.reveal(path, path.with_name(path.name + ".held.json"))
    done = scored(path)
    assert rows(done.figures.tables["drift"])["D1"]["status"] == "excluded" and done.result["provisional"] == []
    assert line(done, "drift-notice")["earned"] == 15


# ----- steps after the window, and "not applicable" against the whole journal (3.20, 3.21.5) ---------


def test_a_smoke_pass_after_the_window_earns_no_smoke_set_point(tmp_path):
    """Rehearsal R1: criterion Fri 13 Mar 16:00, decision 16:05, serving 17:00, smoke pass 18:00,
    half an hour after the window closed at 17:30. The step after the window does not count
    (3.20): rollback-time has no end in the window (0 of 8), and the smoke-set line earns 0 of 4
    (before, the late smoke pass earned it all: 4 of 4)."""
    path = make_journal(tmp_path / "j.jsonl", [
        ("rollback.criterion-met", "R1", "2026-03-13T16:00", {"kind": "rehearsal"}),
        ("rollback.decision", "R1", "2026-03-13T16:05"),
        ("rollback.serving", "R1", "2026-03-13T17:00"),
        ("rollback.smoke-pass", "R1", "2026-03-13T18:00", SMOKE),
        CLOSE], tier="T2")
    done = scored(path)
    smoke = line(done, "smoke-set")
    assert (smoke["earned"], smoke["reason"]) == (0.0, "no smoke pass recorded within the window for R1")
    assert line(done, "rollback-time")["earned"] == 0


def test_drift_timestamps_not_applicable_fails_when_a_drift_was_notified_that_month(tmp_path):
    """The February report, received Wed 4 Mar (in the window), marks drift-timestamps not
    applicable; the journal holds D1 (organic) with onset 20 Feb and notice 21 Feb, before the
    window, so D1 is "outside the window" for the lead time, but February did have a drift to
    report: the element fails, 9 of 10 = 90% (before, only drifts scored in the window were
    looked at, and the report read 100%)."""
    events = [("drift.onset", "D1", "2026-02-20T09:00", {**ORGANIC, "affected_class": "scanned invoices"}),
              ("drift.notice", "D1", "2026-02-21T12:00", NOTE),
              ("report.received", "2026-02", "2026-03-04T10:00")]
    events += [("report.element", el, "2026-03-04T11:00",
                {**PASS, **({"not_applicable": True} if el == "drift-timestamps" else {})}) for el in ELEMENTS]
    [period] = scored(make_journal(tmp_path / "j.jsonl", events)).figures.summary["report"]["periods"]
    assert period["completeness_percent"] == 90
    assert period["failing"] == [{"element": "drift-timestamps", "reason": "marked not applicable, but the journal "
                                                                            "shows 1 drift(s) of 2026-02 the supplier "
                                                                            "had detected or notified by the report's "
                                                                            "delivery"}]


# ----- comply never reads "met" while what is sealed or open may still break it ---------------------


def test_comply_is_not_met_or_met_while_an_onset_is_sealed_or_the_exercise_open(tmp_path, run):
    """D1 injected, its onset sealed and never revealed; D2 (organic) notified in 1 bh against the
    deal's 24. comply's drift-notice read "met" on D2 alone (before), though D1 may have been
    notified late or never: it is "not run, provisional" until the reveal. Before the close, I1
    (sev 1, detected Tue 3 Mar 10:00, not yet restored) is not yet a breach of the 4 h clause, nor
    a pass: not run. I2 (sev 2) restored after 9 h against the deal's 8 h is already broken
    whatever comes later: not met, exit 1. The score is provisional, so the Day-60 floor is not
    judged: not run."""
    path = make_journal(tmp_path / "j.jsonl", [
        ("safety.agreed", "D1", "2026-03-02T09:10", SIGN_OFF),
        ("drift.onset", "D1", "2026-03-03T09:00", {"affected_class": "scanned invoices"}),
        ("drift.onset", "D2", "2026-03-03T09:00", {**ORGANIC, "affected_class": "scanned invoices"}),
        ("drift.notice", "D2", "2026-03-03T10:00", NOTE),
        ("incident.detected", "I1", "2026-03-03T10:00", {"severity": 1, **ORGANIC}),
        ("incident.detected", "I2", "2026-03-04T10:00", {"severity": 2, **ORGANIC}),
        ("incident.restored", "I2", "2026-03-04T19:00", {"check": "probe"}),
    ], reveal=False)
    r, checks = comply_rows(run, path)
    assert (checks["drift-notice"]["status"], r.exit_code) == ("not run", 1)
    assert "1 injected onset(s) still sealed" in checks["drift-notice"]["reason"]
    assert checks["restore-sev1"]["status"] == "not run"
    assert checks["restore-sev1"]["reason"] == ("provisional: 1 severity 1 incident(s) still open so far; the "
                                                "exercise has not been closed")
    assert (checks["restore-sev2"]["status"], checks["restore-sev2"]["value"]) == ("not met", 9.0)
    assert checks["day60-score"]["status"] == "not run" and "PROVISIONAL" in checks["day60-score"]["reason"]
    shown = json.loads(run("score", path, "--sow", SOW, "--parties-differ", "--format", "json").stdout)
    assert shown["deal_floor"]["verdict"] == "not run" and "PROVISIONAL" in shown["deal_floor"]["reason"]
    jr.reveal(path, path.with_name(path.name + ".held.json"))
    jr.append(path, "exercise.close", "exercise", dt.datetime(2026, 3, 13, 17, 30, tzinfo=dt.UTC), {})
    r, checks = comply_rows(run, path)
    # revealed and closed: D1 never notified is a breach; I1 open at the close is a breach
    assert checks["drift-notice"]["status"] == "not met" and "1 of 2 drift observation(s)" in \
        checks["drift-notice"]["reason"]
    assert checks["restore-sev1"]["status"] == "not met"


def test_a_production_rollback_that_never_ended_breaks_the_rollback_clause(tmp_path, run):
    """R1 (production, under sign-off): decision Wed 4 Mar 14:09, and neither serving nor a smoke
    pass by the close: no rollback time at all, so the 30-minute clause is broken, not met. R2:
    decision Thu 5 Mar 14:09, serving 14:21, smoke pass 14:26: 17 min. Before, comply took the
    longest rollback that ended, R2's 17 min, and read "met", exit 0."""
    path = make_journal(tmp_path / "j.jsonl", [
        ("safety.agreed", "R1", "2026-03-02T09:10", SIGN_OFF),
        ("rollback.criterion-met", "R1", "2026-03-04T14:02", {"kind": "production"}),
        ("rollback.decision", "R1", "2026-03-04T14:09"),
        ("safety.agreed", "R2", "2026-03-02T09:10", SIGN_OFF),
        ("rollback.criterion-met", "R2", "2026-03-05T14:02", {"kind": "production"}),
        ("rollback.decision", "R2", "2026-03-05T14:09"),
        ("rollback.serving", "R2", "2026-03-05T14:21"),
        ("rollback.smoke-pass", "R2", "2026-03-05T14:26", SMOKE),
        CLOSE])
    r, checks = comply_rows(run, path)
    row = checks["rollback"]
    assert (row["status"], row["value"], r.exit_code) == ("not met", 17.0, 1)
    assert row["reason"] == "1 production rollback(s) decided in the window and not ended in it"


# ----- a self-assessment's "don't know", one place at a time (3.1.8, issue 24 point 17) --------------


def test_a_single_dont_know_is_never_printed_as_a_fact(tmp_path, run):
    """The shipped synthetic answers, with three answers changed to "don't know":
    - drift 1's notice time: a notice was sent (the question counts notices), so drift-1 is "not
      evidenced", never "not detected within the window"; its known detection (Wed 15 Jul 09:05,
      7.25 bh after Tue 14 Jul 10:20: 7 h 10 min to 17:30 and 5 min on Wednesday) still counts;
    - incident 1's restore time: the question counts incidents closed in the period, so
      incident-1 is "not evidenced", never "still open at the window's close", and its first
      communication (06:25 partner notice to 07:05, 40 min) is still judged;
    - the rehearsal's criterion time, the rehearsal being answered yes: no rollback can be logged,
      so all four rollback lines (and the tier check) read not evidenced, never "no rehearsal
      rollback in the window" or "no rollback was rehearsed".
    And with the report's delivery time unknown, completeness cannot be checked (an early report
    cannot cover its month): not evidenced, never "no monthly report was received"."""
    from pypdf import PdfReader

    from tests.test_selfassess import RAW, answers_file

    raw = dict(RAW, **{"drift.notice.1.notice": None, "incidents.incident.1.restored": None,
                       "rollbacks.rehearsal.criterion": None})
    r = run("selfassess", "--answers", answers_file(tmp_path, raw), "--format", "json", "--pdf", tmp_path / "s.pdf")
    assert r.exit_code == 0, r.output
    result = json.loads(r.stdout)
    lines = {x["id"]: x for x in result["lines"]}
    notice = {o["id"]: o for o in lines["drift-notice"]["figure"]["observations"]}
    assert notice["drift-1"]["note"] == "not evidenced: the records seen do not show when the written notice was sent"
    detection = {o["id"]: o for o in lines["drift-detection"]["figure"]["observations"]}
    assert detection["drift-1"]["value"] == pytest.approx(7.25)
    restore = {o["id"]: o for o in lines["restore"]["figure"]["observations"]}
    assert restore["incident-1"]["note"].startswith("not evidenced: the records seen do not show when a monitoring")
    comms = {o["id"]: o for o in lines["first-communication"]["figure"]["observations"]}
    assert comms["incident-1"]["value"] == pytest.approx(40 / 60)
    for ident in ("rollback-time", "rollback-decision", "requeue", "smoke-set"):
        assert lines[ident]["status"] == "not evidenced", ident
    problems = " ".join(result["tier_check"]["problems"])
    assert "not evidenced" in problems and "no rollback was rehearsed" not in problems
    text = " ".join(" ".join(p.extract_text().split()) for p in PdfReader(tmp_path / "s.pdf").pages)
    for words in ("drift-1 not detected", "drift-1: not detected", "still open at the window's close",
                  "1 open at the window's close",
                  "no rehearsal rollback", "no rollback was rehearsed"):
        assert words not in text, words
    raw = dict(RAW, **{"report.delivered": None})
    result = json.loads(run("selfassess", "--answers", answers_file(tmp_path, raw, "b.json"), "--format",
                            "json").stdout)
    completeness = next(x for x in result["lines"] if x["id"] == "report-completeness")
    assert completeness["status"] == "not evidenced" and "no monthly report" not in completeness["reason"]


def test_a_dispute_excluding_an_incident_the_contract_already_excludes_scores(tmp_path, run):
    """I1 (sev 2) restored in 2 h; I3 excluded under the contract ("outside the service"); I4
    withdrawn. A restore dispute upheld excluding all three: I1 leaves the line with the dispute's
    reason, I3 keeps the contract's and I4 stays withdrawn. With nothing left the restore line is
    not exercised. Before, scoring crashed (pandas: "Must have equal len keys and value") because
    the dispute's reasons were written over fewer rows than they were computed for."""
    path = make_journal(tmp_path / "j.jsonl", [
        ("incident.detected", "I1", "2026-03-03T10:00", {"severity": 2, **ORGANIC}),
        ("incident.restored", "I1", "2026-03-03T12:00", {"check": "probe"}),
        ("incident.partner-notice", "I3", "2026-03-04T10:00", {}),
        ("incident.excluded", "I3", "2026-03-04T11:00", {"reason": "outside the service"}),
        ("incident.partner-notice", "I4", "2026-03-05T10:00", {}),
        ("incident.withdrawn", "I4", "2026-03-05T11:00", {"reason": "not reproducible"}),
        CLOSE])
    _dispute(path, "restore", ["I1", "I3", "I4"])
    assert run("score", path).exit_code == 0
    table = rows(scored(path).figures.tables["incidents"])
    assert table["I1"]["status"] == "excluded" and "upheld dispute" in table["I1"]["reason"]
    assert table["I3"]["reason"] == "excluded under the contract: enters no figure (3.19.5)"
    assert table["I4"]["status"] == "withdrawn" and table["I4"]["reason"].startswith("withdrawn")


def test_two_disputes_of_one_line_one_upheld_one_open(tmp_path):
    """I1 (sev 2) restored in 1 h: full marks; I2 (sev 2) open at the close. Dispute A of the
    restore line upheld excluding I2, dispute B still open. The line reads "under dispute" (B), its
    25 points (I1 alone, 25 x 1) counted apart as under dispute, and its reason still names A's
    remedy (before, the open dispute hid it: "counted apart: 1 excluded" with no word of why).
    first-communication, in the same section, says whose exclusion took I2 out of it."""
    path = make_journal(tmp_path / "j.jsonl", [
        ("incident.detected", "I1", "2026-03-03T10:00", {"severity": 2, **ORGANIC}),
        ("incident.communicated", "I1", "2026-03-03T10:30"),
        ("incident.restored", "I1", "2026-03-03T11:00", {"check": "probe"}),
        ("incident.detected", "I2", "2026-03-04T10:00", {"severity": 2, **ORGANIC}),
        CLOSE])
    first = _dispute(path, "restore", ["I2"])
    jr.append(path, "dispute", "dispute-restore", dt.datetime(2026, 3, 14, 11, tzinfo=dt.UTC),
              {"line": "restore", "reason": "another", "raised_by": "B", "organisation": "Partner"})
    done = scored(path)
    restore = line(done, "restore")
    assert (restore["status"], restore["earned"], done.result["under_dispute_points"]) == ("under dispute", 25, 25)
    assert f"remedy applied: I2 excluded (seq {first + 1})" in restore["reason"]
    assert f"I2 excluded by the upheld dispute seq {first} of restore" in line(done, "first-communication")["reason"]


def test_a_telling_at_the_instant_of_the_notice_leaves_the_lead_time(tmp_path):
    """D1: onset Tue 3 Mar 09:00, notice Thu 5 Mar 09:00 (17 bh), the supplier told at 09:00 on
    the Thursday, the very instant of its notice: not before it, so the notice was not prompted by
    the telling and the lead time stands (3.18.4); the row says "at or after its notice"."""
    path = make_journal(tmp_path / "j.jsonl", [
        ("drift.onset", "D1", "2026-03-03T09:00", {**ORGANIC, "affected_class": "scanned invoices"}),
        ("drift.notice", "D1", "2026-03-05T09:00", NOTE), ("drift.told", "D1", "2026-03-05T09:00"), CLOSE], tier="T2")
    row = rows(scored(path).figures.tables["drift"])["D1"]
    assert (row["status"], row["notice_business_hours"]) == ("notified", 17)
    assert "at or after its notice (a debrief)" in row["reason"]

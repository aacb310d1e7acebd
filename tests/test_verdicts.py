"""Verdicts a supplier cannot flip: each rule one step off the main path, worked by hand from the
charter (sections named in each test). The calendar is the UK office (Europe/London, Monday to
Friday 09:00 to 17:30, England's bank holidays); the window is Mon 2 Mar 09:00 to Fri 13 Mar
17:30 2026 (GMT throughout), unless a test says otherwise."""

import datetime as dt
import json

import pytest
from pypdf import PdfReader

from day60 import clauses, demo
from day60 import journal as jr
from day60.resources import data_dir
from tests.builders import SIGN_OFF, make_journal
from tests.readings import ELEMENTS, PASS, SMOKE, figures, line, rows, scored

SOW = data_dir("clauses") / "examples" / "synthetic-sow.toml"
ORGANIC = {"source": "organic"}
NOTE = {"affected_class": "scanned invoices", "evidence": "alert 1"}
CLOSE = ("exercise.close", "exercise", "2026-03-13T17:30")


# ----- 1. the restore population: restored in the window (3.19.2, 3.19.7) ---------------------------


def test_an_incident_that_started_before_the_window_and_was_restored_in_it_counts_whole(tmp_path, run):
    """I1 (severity 1) detected Sun 1 Mar 18:00, restored Mon 2 Mar 10:00: 16 h, restored in the
    window, so it is in the severity 1 figure with its whole clock, and counted as started before.
    I2 detected and restored on 27 Feb is outside; I3 (severity 2) detected 27 Feb and never
    restored stands open through the window, so it is judged open (it earns nothing).
    Restore line: I1's 16 h against a 4 h target, slide end 8, cut-off 24, sits on the flat 60%,
    I3 earns 0: 25 x (0.6 + 0) / 2 = 7.5. comply: the longest severity 1 restore, 16 h, is above
    the deal's 4 h: not met, exit 1 (before, I1 vanished as "outside the window" and the clause
    read met)."""
    path = make_journal(tmp_path / "j.jsonl", [
        ("incident.detected", "I1", "2026-03-01T18:00", {"severity": 1, **ORGANIC}),
        ("incident.restored", "I1", "2026-03-02T10:00", {"check": "probe"}),
        ("incident.detected", "I2", "2026-02-27T10:00", {"severity": 1, **ORGANIC}),
        ("incident.restored", "I2", "2026-02-27T11:00", {"check": "probe"}),
        ("incident.detected", "I3", "2026-02-27T10:00", {"severity": 2, **ORGANIC}),
        CLOSE])
    done = scored(path)
    s = done.figures.summary["incidents"]
    sev1 = s["by_severity"]["1"]
    assert (sev1["count"], sev1["max_hours"], sev1["started_before_window"]) == (1, 16.0, 1)
    assert (s["restored"], s["outside_the_window"], s["open"], s["started_before_window"]) == (1, 1, 1, 1)
    table = rows(done.figures.tables["incidents"])
    assert table["I3"]["reason"] == "its clock started before the window opened and it was not restored by the close"
    assert line(done, "restore")["earned"] == pytest.approx(7.5)
    assert "started before the window opened" in line(done, "restore")["figure"]["observations"][0]["note"]
    r = run("comply", path, "--sow", SOW, "--format", "json", "--parties-differ")
    row = next(x for x in json.loads(r.stdout)["checks"] if x["check"] == "restore-sev1")
    assert (row["status"], row["value"], r.exit_code) == ("not met", 16.0, 1)


# ----- 2. rollback end: the later of serving and the smoke pass (3.20.1, 3.20.5) ---------------------


def test_rollback_time_runs_to_the_later_of_serving_and_the_smoke_pass(tmp_path):
    """R1: decision 14:09, smoke pass 14:20 logged before serving at 14:26: 17 min (to serving),
    not 11. R2: decision 10:00, smoke pass 10:12, no serving logged: 12 min, measured to the smoke
    pass as the formula (3.20.2) has it, and said so. R3: decision 11:00, serving 11:05, no smoke
    pass: not ended, no figure."""
    path = make_journal(tmp_path / "j.jsonl", [
        ("rollback.criterion-met", "R1", "2026-03-04T14:02", {"kind": "rehearsal"}),
        ("rollback.decision", "R1", "2026-03-04T14:09"),
        ("rollback.smoke-pass", "R1", "2026-03-04T14:20", SMOKE),
        ("rollback.serving", "R1", "2026-03-04T14:26"),
        ("rollback.criterion-met", "R2", "2026-03-05T09:55", {"kind": "rehearsal"}),
        ("rollback.decision", "R2", "2026-03-05T10:00"),
        ("rollback.smoke-pass", "R2", "2026-03-05T10:12", SMOKE),
        ("rollback.criterion-met", "R3", "2026-03-05T10:55", {"kind": "rehearsal"}),
        ("rollback.decision", "R3", "2026-03-05T11:00"),
        ("rollback.serving", "R3", "2026-03-05T11:05"),
    ], tier="T2")
    f = figures(path)
    table = rows(f.tables["rollbacks"])
    assert (table["R1"]["rollback_minutes"], table["R1"]["rollback_end"]) == (17, "serving")
    assert table["R2"]["rollback_minutes"] == 12 and "measured to the smoke pass" in table["R2"]["reason"]
    assert table["R3"]["rollback_minutes"] is None and table["R3"]["reason"].startswith("not ended")
    rehearsal = f.summary["rollbacks"]["rehearsal"]
    assert rehearsal["rollback_minutes"]["count"] == 2 and rehearsal["rollback_minutes"]["max"] == 17
    assert (rehearsal["serving_not_recorded"], rehearsal["ended_at_serving"]) == (1, 1)


# ----- 3, 4, 5. report elements (3.21.3 to 3.21.5) --------------------------------------------------


def test_not_applicable_is_checked_against_drifts_and_rollbacks_in_the_period(tmp_path):
    """March report received Tue 7 Apr. drift-timestamps and rollbacks are marked not applicable,
    but D1 was notified on 3 Mar and production rollback RB was met on 5 Mar: both fail. The other
    eight pass: 8 / 10 = 80%."""
    events = [("drift.onset", "D1", "2026-03-03T09:00", {**ORGANIC, "affected_class": "scanned invoices"}),
              ("drift.notice", "D1", "2026-03-03T12:00", NOTE),
              ("safety.agreed", "RB", "2026-03-02T09:10", SIGN_OFF),
              ("rollback.criterion-met", "RB", "2026-03-05T10:00", {"kind": "production"}),
              ("report.received", "2026-03", "2026-04-07T10:00")]
    events += [("report.element", el, "2026-04-07T11:00",
                {**PASS, **({"not_applicable": True} if el in ("drift-timestamps", "rollbacks") else {})})
               for el in ELEMENTS]
    [period] = figures(make_journal(tmp_path / "j.jsonl", events)).summary["report"]["periods"]
    assert period["completeness_percent"] == 80
    reasons = {f["element"]: f["reason"] for f in period["failing"]}
    assert "journal shows 1 drift(s) of 2026-03 the supplier had detected or notified" in reasons["drift-timestamps"]
    assert "journal shows 1 production rollback(s)" in reasons["rollbacks"]


def test_a_report_received_before_its_period_ended_cannot_cover_it(tmp_path):
    """The March report arrives Fri 13 Mar, eighteen days before March ends: every element that
    says it covers the period fails (3.21.3), so completeness is 0 of 10, and each says why."""
    events = [("report.received", "2026-03", "2026-03-13T10:00")]
    events += [("report.element", el, "2026-03-13T11:00", PASS) for el in ELEMENTS]
    [period] = figures(make_journal(tmp_path / "j.jsonl", events)).summary["report"]["periods"]
    assert period["completeness_percent"] == 0 and len(period["failing"]) == 10
    assert "before its period ended on 2026-03-31" in period["failing"][0]["reason"]


def test_the_deals_own_elements_join_the_denominator_and_can_be_logged(tmp_path, run):
    """The synthetic deal adds sla-credits. A February report with the ten defaults passing is
    10/10 on the journal alone, but 11 elements are required under the deal: unchecked, so not run.
    sla-credits can be logged with --sow though 'new' never named it; absent, it fails: 10/11."""
    events = [("report.received", "2026-02", "2026-03-04T10:00")]
    events += [("report.element", el, "2026-03-04T11:00", PASS) for el in ELEMENTS]
    path = make_journal(tmp_path / "j.jsonl", events)
    assert figures(path).summary["report"]["periods"][0]["completeness_percent"] == 100
    deal = clauses.load_deal(SOW, clauses.load_library(), draft=True)
    [period] = scored(path, deal_elements=list(deal.report_elements)).figures.summary["report"]["periods"]
    assert period["completeness_percent"] is None and period["unchecked"] == ["sla-credits"]
    refused = run("log", path, "report.element", "--id", "sla-credits", "--at", "2026-03-04T11:30",
                  "--set", "present=false", "--set", "covers_period=false", "--set", "supported=false")
    assert refused.exit_code == 2 and "--sow" in refused.stderr
    r = run("log", path, "report.element", "--id", "sla-credits", "--at", "2026-03-04T11:30", "--sow", SOW,
            "--set", "present=false", "--set", "covers_period=false", "--set", "supported=false")
    assert r.exit_code == 0, r.output
    [period] = scored(path, deal_elements=list(deal.report_elements)).figures.summary["report"]["periods"]
    assert (period["passing"], period["required"]) == (10, 11)
    assert period["completeness_percent"] == pytest.approx(100 * 10 / 11)


# ----- 6, 7, 8. drift exclusions by time, detection not disclosed, false alerts (3.18) ----------------


def test_announced_and_told_are_judged_by_time(tmp_path):
    """D1 announced at 10:00, an hour after its 09:00 onset: not in advance, so scored (notice
    12:00: 3 bh) and the late announcement named. D2 announced on 2 Mar, before its 3 Mar onset:
    excluded. D3 notified Wed 4 Mar 09:00 (8.5 bh after Tue 09:00) and told on 5 Mar, after its
    notice (a debrief): the lead time stands and the telling is named. D4 told at 11:00, before
    its 14:00 notice: excluded. D5, a scheduled change announced with no onset: still counted
    among the announced. So announced 2 (D2, D5), told 1 (D4), population 2 (D1, D3)."""
    onset = {**ORGANIC, "affected_class": "scanned invoices"}
    path = make_journal(tmp_path / "j.jsonl", [
        ("drift.onset", "D1", "2026-03-03T09:00", onset),
        ("drift.announced", "D1", "2026-03-03T10:00"),
        ("drift.notice", "D1", "2026-03-03T12:00", NOTE),
        ("drift.announced", "D2", "2026-03-02T15:00"),
        ("drift.onset", "D2", "2026-03-03T09:00", onset),
        ("drift.onset", "D3", "2026-03-03T09:00", onset),
        ("drift.notice", "D3", "2026-03-04T09:00", NOTE),
        ("drift.told", "D3", "2026-03-05T10:00"),
        ("drift.onset", "D4", "2026-03-03T09:00", onset),
        ("drift.told", "D4", "2026-03-03T11:00"),
        ("drift.notice", "D4", "2026-03-03T14:00", NOTE),
        ("drift.announced", "D5", "2026-03-02T10:00", {"reason": "scheduled format change"}),
        CLOSE], tier="T2")
    d = figures(path).summary["drift"]
    obs = {o["id"]: o for o in d["observations"]}
    assert {k: o["status"] for k, o in obs.items()} == {"D1": "notified", "D2": "announced", "D3": "notified",
                                                       "D4": "told", "D5": "announced"}
    assert d["excluded"] == {"announced": 2, "told": 1, "by_dispute": 0} and d["population"] == 2
    assert obs["D1"]["notice_business_hours"] == 3 and "not before the onset" in obs["D1"]["reason"]
    assert obs["D3"]["notice_business_hours"] == 8.5 and "after its notice (a debrief)" in obs["D3"]["reason"]
    assert {x["id"] for x in d["exclusions_not_applied"]} == {"D1", "D3"}


def test_false_alerts_outside_the_window_are_counted_apart(tmp_path):
    """One false alert on Sun 1 Mar (before the window), one on Wed 4 Mar. The line counts only the
    one in the window: 1 alert against a target of 0, slide end 2: 1 - 0.4 x 1/2 = 0.8 of 5 points."""
    path = make_journal(tmp_path / "j.jsonl", [
        ("drift.false-alert", "A1", "2026-03-01T10:00"), ("drift.false-alert", "A2", "2026-03-04T10:00"),
        ("drift.onset", "D1", "2026-03-03T09:00", {**ORGANIC, "affected_class": "scanned invoices"}),
        ("drift.notice", "D1", "2026-03-03T12:00", NOTE), CLOSE], tier="T2")
    done = scored(path)
    d = done.figures.summary["drift"]
    assert (d["false_alerts"], d["false_alerts_outside_window"]) == (1, 1)
    assert line(done, "false-alerts")["earned"] == pytest.approx(4.0)
    assert "1 false alert(s) outside the window" in line(done, "false-alerts")["reason"]


# ----- 9, 10, 11. withdrawn, open waits, re-opens (3.19.4, 3.19.5) ----------------------------------


def test_a_withdrawn_incident_enters_no_figure_not_even_first_communication(tmp_path):
    """I1 (sev 2) detected 10:00, communicated 10:30 (0.5 h), restored 12:00. I2 (sev 2) detected
    on 4 Mar 10:00, communicated 14:00 (4 h), then withdrawn. First communication: 0.5 h over 1
    incident (with I2 it would have read 2.25 h over 2)."""
    path = make_journal(tmp_path / "j.jsonl", [
        ("incident.detected", "I1", "2026-03-03T10:00", {"severity": 2, **ORGANIC}),
        ("incident.communicated", "I1", "2026-03-03T10:30"),
        ("incident.restored", "I1", "2026-03-03T12:00", {"check": "probe"}),
        ("incident.detected", "I2", "2026-03-04T10:00", {"severity": 2, **ORGANIC}),
        ("incident.communicated", "I2", "2026-03-04T14:00"),
        ("incident.withdrawn", "I2", "2026-03-04T15:00", {"reason": "not reproducible"}),
        CLOSE])
    sev2 = figures(path).summary["incidents"]["by_severity"]["2"]
    assert (sev2["first_communication_mean_hours"], sev2["first_communication_count"]) == (0.5, 1)
    assert (sev2["first_communication_population"], sev2["withdrawn"]) == (1, 1)


def test_a_wait_still_open_at_the_restore_is_counted_beside_the_figure(tmp_path):
    """I1 (sev 2) detected 10:00, wait on the partner from 11:00 with no end, restored 13:00. The
    rule (issue 38): an end nobody recorded is not evidence, so the restore is a range, from 3 h -
    2 h = 1 h (the wait run to the restore) to 3 h (no wait): no single figure, the severity's
    mean and maximum hold none of it, it is counted as not evidenced; waiting on partner 2 h at
    most, and one open wait of 2 h shown beside the figure. Within the 8 h target either way."""
    path = make_journal(tmp_path / "j.jsonl", [
        ("incident.detected", "I1", "2026-03-03T10:00", {"severity": 2, **ORGANIC}),
        ("incident.wait-start", "I1", "2026-03-03T11:00"),
        ("incident.restored", "I1", "2026-03-03T13:00", {"check": "probe"}),
        CLOSE])
    done = scored(path)
    sev2 = done.figures.summary["incidents"]["by_severity"]["2"]
    assert (sev2["max_hours"], sev2["ranged"], sev2["waiting_on_partner_hours"]) == (None, 1, 2.0)
    assert sev2["open_waits"] == {"count": 1, "hours": 2.0, "incidents": 1}
    observation = line(done, "restore")["figure"]["observations"][0]
    assert "between 1.00 and 3.00 hours" in observation["note"] and observation["share"] == 1


def test_a_reopened_incident_runs_to_its_last_restore(tmp_path):
    """I1 (sev 2) detected 10:00, restored 11:00, re-opened 12:00 (a relapse), restored again 14:00:
    the clock runs 10:00 to 14:00 = 4 h (the hour between the first restore and the re-open
    counts), with 1 re-open. I2 restored 10:00 (1 h after its 09:00 detection) in the window and
    re-opened only after the close: as the window closed it stood restored, 1 h, no re-open."""
    path = make_journal(tmp_path / "j.jsonl", [
        ("incident.detected", "I1", "2026-03-03T10:00", {"severity": 2, **ORGANIC}),
        ("incident.restored", "I1", "2026-03-03T11:00", {"check": "probe"}),
        ("incident.reopened", "I1", "2026-03-03T12:00", {"reason": "queue stalled again"}),
        ("incident.restored", "I1", "2026-03-03T14:00", {"check": "probe"}),
        ("incident.detected", "I2", "2026-03-12T09:00", {"severity": 2, **ORGANIC}),
        ("incident.restored", "I2", "2026-03-12T10:00", {"check": "probe"}),
    ])
    jr.append(path, "incident.reopened", "I2", dt.datetime(2026, 3, 13, 18, tzinfo=dt.UTC), {"reason": "late"})
    f = figures(path)
    table = rows(f.tables["incidents"])
    assert (table["I1"]["restore_hours"], table["I1"]["reopens"]) == (4.0, 1)
    assert table["I1"]["first_restore"].isoformat() == "2026-03-03T11:00:00+00:00"
    assert (table["I2"]["status"], table["I2"]["restore_hours"], table["I2"]["reopens"]) == ("restored", 1.0, 0)
    assert f.summary["incidents"]["by_severity"]["2"]["reopens"] == 1


# ----- 12, 14, 19. nothing exercised, tiers and the deal ---------------------------------------------


def test_nothing_exercised_reads_not_run_and_comply_does_not_fail_for_it(tmp_path, run):
    """A closed T3 journal with nothing in it: the score is not run with the reason (never 0 of
    100); comply reports the Day-60 score not run and exits 0, since nothing was measured. Its
    window, Mon 9 to Fri 13 Mar, holds no report's due date (February's was Fri 6 Mar), so no
    report was due in it either (one due and never received is a breach: issue 38)."""
    path = make_journal(tmp_path / "j.jsonl", [CLOSE], window=("2026-03-09T09:00", "2026-03-13T17:30"))
    r = run("score", path)
    assert r.exit_code == 0 and "0.0 of 100" not in r.stdout and "not run: no rubric line" in r.stdout
    r = run("comply", path, "--sow", SOW, "--format", "json", "--parties-differ")
    row = next(x for x in json.loads(r.stdout)["checks"] if x["check"] == "day60-score")
    assert row["status"] == "not run" and "no rubric line" in row["reason"] and r.exit_code == 0


def _deal(tmp_path, **params):
    text = SOW.read_text()
    for key, value in params.items():
        if value is None:
            text = "\n".join(x for x in text.splitlines() if not x.startswith(f"{key} ="))
        elif f"\n{key} =" in text:
            text = "\n".join(f"{key} = {json.dumps(value)}" if x.startswith(f"{key} =") else x
                             for x in text.splitlines())
        else:
            text += f"\n{key} = {json.dumps(value)}\n"
    out = tmp_path / "deal.toml"
    out.write_text(text)
    return out


def test_a_floor_the_tier_cannot_reach_is_refused(tmp_path, run):
    """At T1 only the two report lines score: 10 + 5 = 15 points at most, so a floor of 70 can
    never be met and the deal is refused when loaded; a floor of 15 is accepted."""
    r = run("clauses", "export", "--sow", _deal(tmp_path, day60_tier="T1"), "--md", tmp_path / "s.md")
    assert r.exit_code == 2 and "cannot be reached at tier T1" in r.stderr and "15 points at most" in r.stderr
    r = run("clauses", "export", "--sow", _deal(tmp_path, day60_tier="T1", day60_score_floor=15),
            "--md", tmp_path / "s.md")
    assert r.exit_code == 0, r.output


def test_the_day60_clause_says_only_what_its_tier_runs(tmp_path, run):
    """T1: no injection, no rollback, and no safety sentence for injections. T4: unannounced, so
    no notice of the window (and a notice period in the deal is refused as a contradiction)."""
    def clause(deal):
        schedule = clauses.schedule(clauses.load_library(), clauses.load_deal(deal, clauses.load_library()))
        return next(c["text"] for c in schedule["clauses"] if c["id"] == "day60-exercise")

    t1 = clause(_deal(tmp_path, day60_tier="T1", day60_score_floor=15))
    assert "nothing is injected or rolled back" in t1 and "injecting" not in t1 and "No injection" not in t1
    t3 = clause(_deal(tmp_path))
    assert "injecting a drift" in t3 and "10 Business Days of notice" in t3
    r = run("clauses", "export", "--sow", _deal(tmp_path, day60_tier="T4"), "--md", tmp_path / "x.md")
    assert r.exit_code == 2 and "day60_notice_business_days is set, but tier T4 is unannounced" in r.stderr
    t4 = clause(_deal(tmp_path, day60_tier="T4", day60_notice_business_days=None))
    assert "unannounced" in t4 and "notice before the exercise window" not in t4


def test_comply_reads_tier_not_demonstrated_never_met(tmp_path, run):
    """A T3 journal with only a fully passing February report: the report lines earn 15 points, but
    T3 requires an injected drift, a raised incident and a production rollback that it does not
    show. Even with the floor lowered to 10, comply reads the score 'tier not demonstrated', not met."""
    events = [("report.received", "2026-02", "2026-03-04T10:00")]
    events += [("report.element", el, "2026-03-04T11:00", PASS) for el in ELEMENTS]
    path = make_journal(tmp_path / "j.jsonl", [*events, CLOSE])
    deal = _deal(tmp_path, day60_score_floor=10)
    r = run("comply", path, "--sow", deal, "--format", "json", "--parties-differ")
    row = next(x for x in json.loads(r.stdout)["checks"] if x["check"] == "day60-score")
    assert row["status"] == "tier not demonstrated" and "no drift was injected" in row["reason"]
    r = run("score", path, "--sow", deal, "--format", "json", "--parties-differ")
    assert json.loads(r.stdout)["deal_floor"]["verdict"] == "tier not demonstrated"


def test_a_deal_of_other_parties_is_refused_unless_told(tmp_path, run):
    """The test journal's parties are 'Test partner' and 'Test supplier'; the deal names Harbour
    Claims BPO and Example AI Operations: score --sow and comply refuse (exit 2, nothing written);
    with --parties-differ they go on and every output says so."""
    path = make_journal(tmp_path / "j.jsonl", [CLOSE])
    for args in (["score", path, "--sow", SOW, "--pdf", tmp_path / "s.pdf"], ["comply", path, "--sow", SOW]):
        r = run(*args)
        assert r.exit_code == 2 and "name different parties" in r.stderr and "--parties-differ" in r.stderr
    assert not (tmp_path / "s.pdf").exists()
    r = run("score", path, "--sow", SOW, "--format", "json", "--parties-differ")
    assert "the deal's partner is" in json.loads(r.stdout)["deal"]["parties_differ"]


def test_score_with_the_deal_says_whether_the_floor_is_met_and_comply_counts_rehearsals(tmp_path, run):
    """The demo (parties as in the synthetic deal) scores 84.995 at T3 against the deal's floor of
    70: met, said on page 1. Its rehearsal RH-0928 is in the window and the deal asks for 1 a
    quarter: 1 >= 1, met (it read not run before)."""
    journal = tmp_path / "exercise.jsonl"
    demo.build_journal(journal)  # the demo's exercise journal, without the demo's documents
    r = run("score", journal, "--sow", SOW, "--format", "json", "--pdf", tmp_path / "s.pdf")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["deal_floor"] == {"floor": 70, "tier": "T3", "verdict": "met", "reason": None}
    page1 = " ".join(PdfReader(tmp_path / "s.pdf").pages[0].extract_text().split())
    assert "Against the deal's floor of 70 points at tier T3: met" in page1
    r = run("comply", journal, "--sow", SOW, "--format", "json")
    row = next(x for x in json.loads(r.stdout)["checks"] if x["check"] == "rollback-rehearsals")
    assert (row["status"], row["value"]) == ("met", 1)


# ----- 15. upheld disputes (8.4) -------------------------------------------------------------------


def test_an_upheld_exclusion_rescores_the_line_and_keeps_the_dispute(tmp_path, run):
    """I1 (sev 2) restored in 1 h (full marks) and I2 (sev 2) open at the close (nothing): restore
    line 25 x (1 + 0) / 2 = 12.5. The supplier disputes I2 ("a partner test"); upheld with I2
    excluded, the line is I1 alone: 25. Excluding is refused for a rejected dispute."""
    path = make_journal(tmp_path / "j.jsonl", [
        ("incident.detected", "I1", "2026-03-03T10:00", {"severity": 2, **ORGANIC}),
        ("incident.restored", "I1", "2026-03-03T11:00", {"check": "probe"}),
        ("incident.detected", "I2", "2026-03-04T10:00", {"severity": 2, **ORGANIC}),
        CLOSE])
    assert line(scored(path), "restore")["earned"] == pytest.approx(12.5)
    run("dispute", path, "--line", "restore", "--as", "supplier", "--by", "R. Supplier",
        "--reason", "I2 was a partner test")
    seq = figures(path).summary["disputes"][0]["seq"]
    assert run("resolve", path, "--dispute", seq, "--outcome", "upheld", "--exclude", "I2",
               "--reason", "partner confirms").exit_code == 0
    done = scored(path)
    restore = line(done, "restore")
    assert restore["earned"] == 25 and "I2 excluded" in restore["reason"]
    assert rows(done.figures.tables["incidents"])["I2"]["status"] == "excluded"
    assert done.result["disputes"][0]["outcome"] == "upheld"
    assert run("verify", path).exit_code == 0


# ----- 17, 18. what the reader is told ---------------------------------------------------------------


def test_a_score_before_the_close_or_with_a_sealed_onset_is_provisional(tmp_path, run):
    """Before the close, or with an onset still sealed, the score may change: PROVISIONAL on the
    table, the JSON and the PDF. After the reveal and the close, it is final."""
    path = make_journal(tmp_path / "j.jsonl", [
        ("safety.agreed", "D1", "2026-03-02T09:10", SIGN_OFF),
        ("drift.onset", "D1", "2026-03-03T09:00"),
        ("drift.notice", "D1", "2026-03-03T12:00", NOTE)], reveal=False)
    r = run("score", path, "--format", "json", "--pdf", tmp_path / "p.pdf")
    assert json.loads(r.stdout)["provisional"] == ["the exercise has not been closed", "1 sealed onset(s) not yet "
                                                                                       "revealed"]
    assert "PROVISIONAL" in run("score", path).stdout
    assert "PROVISIONAL" in PdfReader(tmp_path / "p.pdf").pages[0].extract_text()
    jr.reveal(path, path.with_name(path.name + ".held.json"))
    jr.append(path, "exercise.close", "exercise", dt.datetime(2026, 3, 13, 17, 30, tzinfo=dt.UTC), {})
    assert json.loads(run("score", path, "--format", "json").stdout)["provisional"] == []


def test_dont_know_is_never_stated_as_a_fact_in_the_self_assessment(tmp_path, run):
    """With every answer "don't know", the tier check says the records do not show a rehearsal,
    never that none happened, and the report has no exercise wording."""
    from tests.test_selfassess import all_dont_know, answers_file

    r = run("selfassess", "--answers", answers_file(tmp_path, all_dont_know()), "--format", "json",
            "--pdf", tmp_path / "s.pdf")
    result = json.loads(r.stdout)
    problems = " ".join(result["tier_check"]["problems"])
    assert "not evidenced: the records seen do not show whether a rollback was rehearsed" in problems
    assert "no rollback was rehearsed" not in problems
    text = " ".join(" ".join(p.extract_text().split()) for p in PdfReader(tmp_path / "s.pdf").pages)
    for words in ("no rollback was rehearsed", "on the days of the exercise", "injection"):
        assert words not in text, words


# ----- 20. per-incident rows ------------------------------------------------------------------------


def test_metrics_json_has_a_row_per_incident_and_csv_is_plain(tmp_path, run):
    """I1 (sev 3): partner notice Tue 3 Mar 09:30, detection 10:00: the clock starts at the notice
    (the earlier, 3.19.3), restored 11:30: 2 h. The JSON row says so; the CSV prints severity 3
    (not 3.0) and instants in ISO 8601 with their offset."""
    path = make_journal(tmp_path / "j.jsonl", [
        ("incident.partner-notice", "I1", "2026-03-03T09:30"),
        ("incident.detected", "I1", "2026-03-03T10:00", {"severity": 3, **ORGANIC}),
        ("incident.restored", "I1", "2026-03-03T11:30", {"check": "probe"}), CLOSE])
    [row] = json.loads(run("metrics", path, "--format", "json").stdout)["incidents"]["observations"]
    assert (row["id"], row["severity"], row["clock_basis"], row["start"], row["restored"], row["restore_hours"],
            row["status"]) == ("I1", 3, "partner notice", "2026-03-03T09:30:00+00:00", "2026-03-03T11:30:00+00:00",
                               2.0, "restored")
    assert run("metrics", path, "--format", "csv", "--out", tmp_path).exit_code == 0
    csv = (tmp_path / "j-incidents.csv").read_text().splitlines()
    assert csv[1].startswith("I1,3,organic,2026-03-03T09:30:00+00:00,partner notice,2026-03-03T11:30:00+00:00")

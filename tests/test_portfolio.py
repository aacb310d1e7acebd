"""Portfolio and compare on small synthetic journals, every figure worked out by hand.

Calendar uk-office: Europe/London (GMT until 29 March, BST after), Mon-Fri 09:00-17:30.
"""

import csv
import io
import json

import pytest
from pypdf import PdfReader

from day60.portfolio import words
from day60.portfolio.compare import _banner, _figure
from tests.builders import SIGN_OFF, make_journal

ORGANIC = {"source": "organic"}


def march(folder, name="march.jsonl", **header):
    # Drift: onset Mon 2 Mar 10:00, detected 11:00 (1 bh), notice 14:00 (4 bh).
    # Incident (severity 2): detected Tue 3 Mar 10:00, restored 12:30: 2.5 h.
    return make_journal(folder / name, [
        ("drift.onset", "d1", "2026-03-02T10:00", {**ORGANIC, "affected_class": "forms"}),
        ("drift.detected", "d1", "2026-03-02T11:00"),
        ("drift.notice", "d1", "2026-03-02T14:00", {"affected_class": "forms", "evidence": "SYNTHETIC"}),
        ("incident.detected", "i1", "2026-03-03T10:00", {"severity": 2, **ORGANIC}),
        ("incident.restored", "i1", "2026-03-03T12:30", {"check": "SYNTHETIC canary"}),
        ("exercise.close", "exercise", "2026-03-13T17:30"),
    ], synthetic=True, **header)


def april(folder, name="april.jsonl", **header):
    # Drift: onset Mon 13 Apr 10:00, notice Tue 14 Apr 10:00: 7.5 bh on Monday + 1 bh on Tuesday = 8.5 bh.
    # Incident (severity 2): detected Wed 15 Apr 10:00, restored 11:00: 1 h.
    return make_journal(folder / name, [
        ("drift.onset", "d1", "2026-04-13T10:00", {**ORGANIC, "affected_class": "forms"}),
        ("drift.notice", "d1", "2026-04-14T10:00", {"affected_class": "forms", "evidence": "SYNTHETIC"}),
        ("incident.detected", "i1", "2026-04-15T10:00", {"severity": 2, **ORGANIC}),
        ("incident.restored", "i1", "2026-04-15T11:00", {"check": "SYNTHETIC canary"}),
        ("exercise.close", "exercise", "2026-04-24T17:30"),
    ], window=("2026-04-13T09:00", "2026-04-24T17:30"), synthetic=True, **header)


@pytest.fixture
def folder(tmp_path):
    exercises = tmp_path / "exercises"
    exercises.mkdir()
    march(exercises)
    april(exercises)
    make_journal(exercises / "other.jsonl", [
        ("incident.detected", "i9", "2026-03-04T09:00", {"severity": 1, **ORGANIC}),
        ("incident.restored", "i9", "2026-03-04T15:00", {"check": "SYNTHETIC canary"}),  # 6 h: beyond 4 h
    ], tier="T2", supplier="Other supplier", records="supplier-reported", synthetic=True)
    return exercises


def test_portfolio_rows_grouped_by_supplier(run, folder):
    r = run("portfolio", folder, "--format", "json")
    assert r.exit_code == 0, r.output
    rows = json.loads(r.stdout)["exercises"]
    assert [(x["supplier"], x["exercise"]) for x in rows] == [
        ("Other supplier", "other.jsonl"), ("Test supplier", "march.jsonl"), ("Test supplier", "april.jsonl")]
    other, first, second = rows
    assert (other["supplier_exercises"], first["supplier_exercises"]) == (1, 2)
    assert (first["tier"], first["exercise_at_tier"], second["exercise_at_tier"]) == ("T3", 1, 2)
    assert first["drift_notice_mean_bh"] == pytest.approx(4.0) and second["drift_notice_mean_bh"] == pytest.approx(8.5)
    assert (first["drift_population"], first["drift_not_detected"]) == (1, 0)
    assert (first["incidents_judged"], first["restore_within_target"]) == (1, 1)  # 2.5 h within 8 h for S2
    assert (other["incidents_judged"], other["restore_within_target"]) == (1, 0)  # 6 h beyond 4 h for S1
    assert other["records"] == "supplier-reported" and other["tier"] == "T2"
    # Restore within target earns its 25 points; no first communication was logged, so that line's
    # 10 earn nothing: 25 of 35.
    assert (first["incident_earned"], first["incident_points"]) == (pytest.approx(25.0), 35.0)
    assert all(x["synthetic"] for x in rows)


def test_portfolio_csv_pdf_and_parquet(run, folder, tmp_path):
    r = run("portfolio", folder, "--format", "csv")
    assert r.exit_code == 0, r.output
    table = list(csv.DictReader(io.StringIO(r.stdout)))
    assert len(table) == 3 and table[1]["drift_notice_mean_bh"] == "4.0"
    assert table[0]["report_completeness_percent"] == ""  # no report: empty, never 0 or nan
    out, parquet = tmp_path / "p.pdf", tmp_path / "p.parquet"
    r = run("portfolio", folder, "--pdf", out, "--parquet", parquet)
    assert r.exit_code == 0, r.output
    text = " ".join(" ".join(p.extract_text().split()) for p in PdfReader(out).pages)
    assert "Day-60 portfolio" in text and "SYNTHETIC" in text and "Test supplier: score by exercise" in text
    assert "mean notice lead time" in text and "nan" not in text and "None" not in text
    # The same SQL over the Parquet file, as a firm would run it over shared storage.
    import duckdb

    from day60.portfolio.query import PORTFOLIO

    con = duckdb.connect()
    con.execute(f"CREATE VIEW exercises AS SELECT * FROM read_parquet('{parquet}')")
    assert [row[0] for row in con.execute(PORTFOLIO).fetchall()] == ["other.jsonl", "march.jsonl", "april.jsonl"]


def test_a_damaged_journal_is_listed_not_scored(run, folder):
    bad = folder / "bad.jsonl"
    lines = (folder / "march.jsonl").read_text().splitlines(keepends=True)
    bad.write_text("".join(lines[:2]) + lines[3])  # a line removed: the chain breaks
    r = run("portfolio", folder, "--format", "json")
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    assert len(out["exercises"]) == 3 and out["refused"][0]["path"].endswith("bad.jsonl")
    r = run("portfolio", bad)
    assert r.exit_code == 2 and "no journal could be read" in r.stderr


def test_a_copy_of_a_journal_is_one_exercise_not_two(run, folder, tmp_path):
    """A backup copy beside the original (or a folder named with one of its files) is the same
    exercise: the supplier's lawyer would say the portfolio counted March twice. The copy has the
    same SHA-256, so it is scored once, and listed as left out, naming the original: three
    exercises, as without the copy, and the table says so."""
    import shutil

    shutil.copy(folder / "march.jsonl", folder / "march-backup.jsonl")
    r = run("portfolio", folder, folder / "april.jsonl", "--format", "json")
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    assert sorted(x["exercise"] for x in out["exercises"]) == ["april.jsonl", "march-backup.jsonl", "other.jsonl"]
    [copy] = out["refused"]
    assert copy["path"].endswith("march.jsonl") and "the same journal as" in copy["problem"]
    assert copy["problem"].split("the same journal as ")[1].startswith(str(folder / "march-backup.jsonl"))
    r = run("portfolio", folder)
    assert "Test supplier: 2 exercise(s)" in r.stdout and "left out: " in r.stdout
    r = run("portfolio", folder / "missing")
    assert r.exit_code == 2


def test_score_all_counts_a_copy_once_and_lists_what_it_left_out(folder):
    """``rows.score_all``, what 'day60 portfolio' calls: four paths (March, its copy, a journal with
    a line removed, April) are two exercises scored and two left out (4 = 2 + 2): the copy names
    March, which came first, and the damaged journal names its problem. The callback is called once
    a path, 4 times. Only unreadable paths: refused, naming the first problem."""
    import shutil

    from day60.errors import InputError
    from day60.portfolio import rows

    shutil.copy(folder / "march.jsonl", folder / "march-copy.jsonl")
    bad = folder / "bad.jsonl"
    lines = (folder / "march.jsonl").read_text().splitlines(keepends=True)
    bad.write_text("".join(lines[:2]) + lines[3])
    calls = []
    scored, refused = rows.score_all([folder / "march.jsonl", folder / "march-copy.jsonl", bad,
                                      folder / "april.jsonl"], lambda: calls.append(1))
    assert [r["exercise"] for r in scored] == ["march.jsonl", "april.jsonl"] and len(calls) == 4
    assert [r["path"] for r in refused] == [str(folder / "march-copy.jsonl"), str(bad)]
    assert refused[0]["problem"].startswith(f"the same journal as {folder / 'march.jsonl'} (SHA-256 ")
    with pytest.raises(InputError) as exc:
        rows.score_all([bad])
    assert exc.value.field == "JOURNAL_OR_DIR" and "no journal could be read" in exc.value.problem


def test_compare_same_deployment_hand_worked(run, folder, tmp_path):
    r = run("compare", folder / "march.jsonl", folder / "april.jsonl", "--format", "json")
    assert r.exit_code == 0, r.output
    c = json.loads(r.stdout)
    assert c["banner"] == [] and c["score"]["change_points"] == pytest.approx(c["score"]["new"] - c["score"]["old"])
    figures = {f["figure"]: f for f in c["figures"]}
    notice = figures["drift-notice"]
    # A time changes in percent of the old figure: (8.5 - 4) / 4 = +112.5 %.
    assert (notice["old"], notice["new"]) == (pytest.approx(4.0), pytest.approx(8.5))
    assert notice["change"] == pytest.approx(112.5) and notice["change_in"] == "percent of the old figure"
    assert (notice["n_old"], notice["n_new"]) == (1, 1) and notice["target"] == 24.0
    restore = figures["restore, severity 2 (mean)"]
    assert restore["change"] == pytest.approx((1 - 2.5) / 2.5 * 100)
    # The detection lead time was measured in March only: April has no figure to compare.
    detection = figures["drift-detection"]
    assert detection["old"] == pytest.approx(1.0) and detection["new"] is None and detection["change"] is None
    r = run("compare", folder / "march.jsonl", folder / "april.jsonl", "--pdf", tmp_path / "c.pdf")
    assert r.exit_code == 0, r.output
    text = " ".join(" ".join(p.extract_text().split()) for p in PdfReader(tmp_path / "c.pdf").pages)
    assert "Day-60 comparison" in text and "+112.5 percent of the old figure" in text and "SYNTHETIC" in text


def test_a_rate_changes_in_percentage_points():
    f = _figure("report-completeness", "percent", 80.0, 90.0, 1, 1, 100.0)
    assert f["change"] == pytest.approx(10.0) and f["change_in"] == "percentage points"
    f = _figure("first-communication", "hours", 0.0, 1.0, 1, 1, 1.0)
    assert f["change"] is None and "old figure is zero" in f["change_in"]


def test_compare_banner_for_each_difference(run, tmp_path):
    base = march(tmp_path, "base.jsonl")
    t2 = march(tmp_path, "t2.jsonl", tier="T2")
    r = run("compare", base, t2, "--format", "json")
    c = json.loads(r.stdout)
    assert c["score"]["change_points"] is None and "different tiers" in c["score"]["note"]
    assert any("different tiers (T3 and T2)" in b for b in c["banner"])
    records = march(tmp_path, "records.jsonl", records="supplier-reported")
    c = json.loads(run("compare", base, records, "--format", "json").stdout)
    assert c["banner"] == ["their data sources differ (auditor-held and supplier-reported)"]
    us = make_journal(tmp_path / "us.jsonl", [("exercise.close", "exercise", "2026-03-13T17:30")],
                      calendar="us-office.toml", synthetic=True)
    c = json.loads(run("compare", base, us, "--format", "json").stdout)
    assert any("business calendars differ" in b for b in c["banner"])
    row = {"tier": "T3", "rubric": "day60 1.0.0", "calendar": "x", "records": "auditor-held", "deployment": "d",
           "supplier": "s", "synthetic": False}
    assert _banner(row, {**row, "rubric": "day60 1.1.0"}) == [
        "they were scored on different rubric versions (day60 1.0.0 and day60 1.1.0)"]
    assert _banner(row, {**row, "synthetic": True}) == ["one of them is SYNTHETIC data"]
    r = run("compare", base, base)
    assert r.exit_code == 2 and "same journal" in r.stderr
    r = run("compare", base, t2, "--format", "csv")
    assert r.exit_code == 2 and "--format" in r.stderr


# ----- rehearsals apart (charter 3.20.4), rates and samples (3.1.6), provisional and disputed --------------

SMOKE = {"model_pin": "SYNTHETIC model 1", "prompt_version": "SYNTHETIC prompts 1", "threshold_set": "SYNTHETIC t 1"}


def rollback(ident, kind, day, criterion, decision, serving, smoke, requeue):
    return [("rollback.criterion-met", ident, f"2026-03-{day}T{criterion}", {"kind": kind}),
            ("rollback.decision", ident, f"2026-03-{day}T{decision}"),
            ("rollback.serving", ident, f"2026-03-{day}T{serving}"),
            ("rollback.smoke-pass", ident, f"2026-03-{day}T{smoke}", SMOKE),
            ("rollback.requeue-complete", ident, f"2026-03-{day}T{requeue}")]


# RB-1, production, Tue 3 Mar: criterion 14:02, decision 14:09 (decision time 7 min), serving 14:21,
# smoke pass 14:26 (rollback time 17 min: the later of serving and the smoke pass), re-queue 15:40 (91 min).
PRODUCTION = [("safety.agreed", "RB-1", "2026-03-02T09:30", SIGN_OFF),
              *rollback("RB-1", "production", "03", "14:02", "14:09", "14:21", "14:26", "15:40")]
# RH-2, rehearsal, Wed 4 Mar: decision 10:10 (10 min after the criterion), serving 10:30, smoke pass 10:40
# (rollback time 30 min), re-queue 11:10 (60 min).
REHEARSAL_T3 = rollback("RH-2", "rehearsal", "04", "10:00", "10:10", "10:30", "10:40", "11:10")
# RH-1, rehearsal, Mon 2 Mar: decision 10:05 (5 min), serving 10:20, smoke 10:25 (20 min), re-queue 11:05 (60 min).
REHEARSAL_T2 = rollback("RH-1", "rehearsal", "02", "10:00", "10:05", "10:20", "10:25", "11:05")


@pytest.fixture
def rollbacks(tmp_path):
    folder = tmp_path / "rollbacks"
    folder.mkdir()
    return {"t2": make_journal(folder / "t2.jsonl", REHEARSAL_T2, tier="T2", synthetic=True),
            "t3": make_journal(folder / "t3.jsonl", PRODUCTION + REHEARSAL_T3, synthetic=True),
            "t3-rehearsal-only": make_journal(tmp_path / "only-rehearsal.jsonl", REHEARSAL_T3, synthetic=True),
            "t3-production-only": make_journal(tmp_path / "only-production.jsonl", PRODUCTION, synthetic=True),
            "folder": folder}


def test_portfolio_keeps_rehearsals_and_production_rollbacks_in_their_own_columns(run, rollbacks, tmp_path):
    """T2 scores rehearsals, T3 production rollbacks (rubric tiers); each kind has its own columns.

    t2.jsonl (T2): one rehearsal, RH-1: rollback time 20 min, decision 5, re-queue 60. All within
    the targets (30, 10, 90 min), smoke set restored: 8 + 4 + 4 + 4 = 20 of 20, in the rehearsal
    column; the production column holds no points ("not scored at T2") and no rollback.
    t3.jsonl (T3): RB-1 production: decision 7 (within 10: 4), rollback 17 (within 30: 8),
    re-queue 91 min, beyond the 90 target on the slide to 60% at 180: 1 - 0.4 x (91 - 90) / (180 - 90)
    = 0.99556 of 4 = 3.98222; smoke set 4. Production column: 19.98222 of 20. Its rehearsal RH-2
    (rollback time 30 min) is counted in the rehearsal column with no points ("not scored at T3").
    The old single column (a T2 rehearsal 20 min above a T3 production 17 min) is gone.
    """
    r = run("portfolio", rollbacks["folder"], "--format", "json")
    assert r.exit_code == 0, r.output
    t2, t3 = json.loads(r.stdout)["exercises"]
    assert "rollback_minutes_mean" not in t2 and "rollback_earned" not in t2
    assert (t2["rollback_scored_kind"], t3["rollback_scored_kind"]) == ("rehearsal", "production")
    assert (t2["rehearsal_rollback_earned"], t2["rehearsal_rollback_points"]) == (pytest.approx(20.0), 20.0)
    assert t2["production_rollback_earned"] is None and t2["production_rollback_points"] is None
    assert (t2["rehearsal_rollbacks"], t2["rehearsal_rollback_minutes_mean"]) == (1, pytest.approx(20.0))
    assert t2["production_rollbacks"] == 0 and t2["production_rollback_minutes_mean"] is None
    assert t3["production_rollback_earned"] == pytest.approx(4 + 8 + 4 * (1 - 0.4 * 1 / 90) + 4)
    assert t3["rehearsal_rollback_earned"] is None
    assert (t3["production_rollbacks"], t3["production_rollback_minutes_mean"]) == (1, pytest.approx(17.0))
    assert (t3["production_decision_minutes_mean"], t3["production_requeue_minutes_mean"]) == (7.0, 91.0)
    assert (t3["rehearsal_rollbacks"], t3["rehearsal_rollback_minutes_max"]) == (1, pytest.approx(30.0))
    r = run("portfolio", rollbacks["folder"])
    assert r.exit_code == 0, r.output
    t2_line = next(line for line in r.stdout.splitlines() if line.startswith("t2.jsonl"))
    t3_line = next(line for line in r.stdout.splitlines() if line.startswith("t3.jsonl"))
    assert "not scored at T2 (it scores rehearsals); no production rollback in the window" in t2_line
    assert "20.0 of 20; mean 20.00 minutes, max 20.00 minutes (1 rehearsal, 1 timed)" in t2_line
    assert "20.0 of 20; mean 17.00 minutes, max 17.00 minutes (1 production rollback, 1 timed)" in t3_line
    assert "not scored at T3 (it scores production rollbacks); mean 30.00 minutes" in t3_line
    r = run("portfolio", rollbacks["folder"], "--format", "csv")
    table = list(csv.DictReader(io.StringIO(r.stdout)))
    assert table[0]["production_rollback_earned"] == "" and table[0]["rehearsal_rollbacks"] == "1"
    assert table[1]["production_rollback_minutes_mean"] == "17.0" and table[1]["rehearsal_rollback_earned"] == ""
    out = tmp_path / "p.pdf"
    assert run("portfolio", rollbacks["folder"], "--pdf", out).exit_code == 0
    text = " ".join(" ".join(p.extract_text().split()) for p in PdfReader(out).pages)
    assert "Production rollbacks" in text and "Rehearsals" in text and "not scored at T2" in text


def test_compare_never_sets_a_rehearsal_against_a_production_rollback(run, rollbacks):
    """T2 (its rollback lines score RH-1, a rehearsal) against T3 (they score RB-1, production).

    rollback-time splits into a rehearsal row (old 20 min, new not scored) and a production row
    (old not scored, new 17 min); neither has a change. The kinds' own figures: T2 has no
    production rollback (only 1 rehearsal), so production rollback time is not compared; both have
    one rehearsal: 20 then 30 min, (30 - 20) / 20 = +50.0 percent of the old figure, n=1 each.
    """
    r = run("compare", rollbacks["t2"], rollbacks["t3"], "--format", "json")
    assert r.exit_code == 0, r.output
    c = json.loads(r.stdout)
    assert any("rehearsal rollback and the new one's a production rollback" in b for b in c["banner"])
    figures = {f["figure"]: f for f in c["figures"]}
    assert "rollback-time" not in figures
    rehearsal, production = figures["rollback-time (rehearsal)"], figures["rollback-time (production)"]
    assert (rehearsal["old"], rehearsal["new"], rehearsal["change"]) == (20.0, None, None)
    assert (production["old"], production["new"], production["change"]) == (None, 17.0, None)
    assert "not compared: only the old exercise scores a rehearsal rollback" in rehearsal["change_in"]
    assert (rehearsal["old_earned"], rehearsal["new_earned"]) == (8.0, None)
    apart = figures["production rollbacks: rollback time (mean)"]
    assert (apart["old"], apart["new"], apart["change"], apart["n_old"], apart["n_new"]) == (None, 17.0, None, 0, 1)
    assert apart["change_in"] == ("not compared: the old exercise has no production rollback in the window "
                                  "(it holds 1 rehearsal)")
    like = figures["rehearsals: rollback time (mean)"]
    assert (like["old"], like["new"], like["change"]) == (20.0, 30.0, pytest.approx(50.0))
    # Every rubric row named for a kind holds that kind only: T3 scores no rehearsal, T2 no production rollback.
    for f in c["figures"]:
        if f.get("line", "").startswith(("rollback", "requeue", "smoke")):
            assert f["new"] is None if f["figure"].endswith("(rehearsal)") else f["old"] is None, f["figure"]
            assert f["new_earned"] is None if f["figure"].endswith("(rehearsal)") else f["old_earned"] is None
    assert c["newly_exercised"] == [] and c["no_longer_exercised"] == []
    r = run("compare", rollbacks["t2"], rollbacks["t3"])
    assert r.exit_code == 0, r.output
    assert "+50.0 percent of the old figure" in r.stdout
    assert "not scored at T3 (it scores production rollbacks)" in r.stdout


def test_compare_says_when_one_side_has_only_the_other_kind(run, rollbacks):
    """Both T3, so both score production rollbacks: the old holds only a rehearsal (RH-2, 30 min),
    the new only a production rollback (RB-1, 17 min). rollback-time (production) is not compared:
    the old exercise has no production rollback (it holds 1 rehearsal). The rehearsal figures are
    not scored at T3 and are shown apart: the new exercise has no rehearsal (it holds 1 production
    rollback)."""
    r = run("compare", rollbacks["t3-rehearsal-only"], rollbacks["t3-production-only"], "--format", "json")
    assert r.exit_code == 0, r.output
    figures = {f["figure"]: f for f in json.loads(r.stdout)["figures"]}
    line = figures["rollback-time (production)"]
    assert (line["old"], line["new"], line["change"]) == (None, 17.0, None)
    assert line["change_in"] == ("not compared: the old exercise has no production rollback in the window "
                                 "(it holds 1 rehearsal)")
    apart = figures["rehearsals: rollback time (mean)"]
    assert (apart["old"], apart["new"], apart["change"]) == (30.0, None, None)
    assert apart["change_in"] == ("not compared: the new exercise has no rehearsal in the window "
                                  "(it holds 1 production rollback)")
    assert "production rollbacks: rollback time (mean)" not in figures  # the rubric's rows compare it


def test_compare_prints_rates_to_one_decimal_and_samples_in_words(run, folder):
    """Charter 3.1.6: a rate of 80 then 92.46 percent changes by +12.46 points, printed +12.5
    percentage points; the rates print 80.0% and 92.5%. A time of 4 then 8.5 hours changes by
    (8.5 - 4) / 4 = +112.5 percent of the old figure. Sample sizes read 'old n=14, new n=15', and a
    side with none says 'no sample': never a bare '/'."""
    f = _figure("report-completeness", "percent", 80.0, 92.46, 14, 15, 100.0)
    assert (words.value(f, "old"), words.value(f, "new"), words.target(f)) == ("80.0%", "92.5%", "100.0%")
    assert words.change(f) == "+12.5 percentage points" and words.sample(f) == "old n=14, new n=15"
    f = _figure("drift-notice", "business hours", 4.0, 8.5, 1, None, 24.0)
    assert words.change(f) == "+112.5 percent of the old figure" and words.sample(f) == "old n=1, new no sample"
    r = run("compare", folder / "march.jsonl", folder / "april.jsonl")
    assert r.exit_code == 0, r.output
    assert " / " not in r.stdout and " /\n" not in r.stdout
    notice = next(line for line in r.stdout.splitlines() if line.startswith("drift-notice"))
    assert "old n=1, new n=1" in notice and "+112.5 percent of the old figure" in notice


def _provisional_scorer(monkeypatch, reasons_by_window_end):
    """Stand in for the scorer's 'provisional' key (the list of reasons, empty when final)."""
    from day60 import rubric

    real = rubric.score

    def score(figures, header, *args, **kwargs):
        result = real(figures, header, *args, **kwargs)
        result["provisional"] = list(reasons_by_window_end.get(header["window"]["end"][:10], []))
        return result

    monkeypatch.setattr(rubric, "score", score)


def test_provisional_scores_and_points_under_dispute_are_marked_everywhere(run, folder, tmp_path, monkeypatch):
    """A provisional score says PROVISIONAL beside it in the portfolio (table, JSON, CSV, PDF trend,
    Parquet) and in compare (banner, table, JSON, PDF). A dispute of April's drift-notice puts that
    line's earned points under dispute: 8.5 business hours against the 24-hour target earns all
    15, so the headline reads '15.00 points under dispute' beside April's score."""
    reason = "taken before the exercise's close"
    _provisional_scorer(monkeypatch, {"2026-03-13": [reason]})  # march.jsonl's window ends 13 Mar
    r = run("dispute", folder / "april.jsonl", "--line", "drift-notice", "--as", "supplier", "--by", "R. Supplier",
            "--reason", "SYNTHETIC: the onset was a partner test")
    assert r.exit_code == 0, r.output
    rows = {x["exercise"]: x for x in json.loads(run("portfolio", folder, "--format", "json").stdout)["exercises"]}
    march_row, april_row = rows["march.jsonl"], rows["april.jsonl"]
    assert (march_row["provisional"], march_row["provisional_reasons"]) == (True, reason)
    assert (april_row["provisional"], april_row["provisional_reasons"]) == (False, None)
    assert april_row["under_dispute_points"] == pytest.approx(15.0) and march_row["under_dispute_points"] == 0
    table = run("portfolio", folder).stdout
    march_line = next(line for line in table.splitlines() if line.startswith("march.jsonl"))
    april_line = next(line for line in table.splitlines() if line.startswith("april.jsonl"))
    assert "PROVISIONAL" in march_line and "PROVISIONAL" not in april_line
    assert "(15.00 points under dispute)" in april_line
    assert f"PROVISIONAL: march.jsonl: {reason}" in table
    rows_csv = {x["exercise"]: x for x in csv.DictReader(io.StringIO(run("portfolio", folder, "--format",
                                                                             "csv").stdout))}
    assert rows_csv["march.jsonl"]["provisional"] == "True" and rows_csv["april.jsonl"]["provisional"] == "False"
    assert rows_csv["april.jsonl"]["under_dispute_points"] == "15.0"
    pdf, parquet = tmp_path / "p.pdf", tmp_path / "p.parquet"
    assert run("portfolio", folder, "--pdf", pdf, "--parquet", parquet).exit_code == 0
    text = " ".join(" ".join(p.extract_text().split()) for p in PdfReader(pdf).pages)
    assert f"march.jsonl ({reason})" in text and "15.00 points under dispute" in text
    assert "PROVISIONAL" in text.split("Test supplier: score by exercise")[1]  # beside the trend's point
    import duckdb

    got = dict(duckdb.connect().execute(f"SELECT exercise, provisional FROM read_parquet('{parquet}')").fetchall())
    assert got["march.jsonl"] is True and got["april.jsonl"] is False

    r = run("compare", folder / "march.jsonl", folder / "april.jsonl", "--format", "json")
    c = json.loads(r.stdout)
    assert c["score"]["old_provisional"] == [reason] and c["score"]["new_provisional"] == []
    assert c["score"]["new_under_dispute_points"] == pytest.approx(15.0)
    assert f"the old score is PROVISIONAL ({reason})" in c["banner"]
    assert c["score"]["note"].startswith("PROVISIONAL")
    r = run("compare", folder / "march.jsonl", folder / "april.jsonl")
    score_line = next(line for line in r.stdout.splitlines() if line.startswith("score "))
    assert " PROVISIONAL (tier T3) then " in score_line and "(15.00 points under dispute) (tier T3)" in score_line
    assert run("compare", folder / "march.jsonl", folder / "april.jsonl", "--pdf", tmp_path / "c.pdf").exit_code == 0
    text = " ".join(" ".join(p.extract_text().split()) for p in PdfReader(tmp_path / "c.pdf").pages)
    assert "PROVISIONAL" in text and "15.00 points under dispute" in text


def test_a_result_without_the_provisional_key_reads_as_final():
    """Until every scorer states the key, its absence is an empty list, and the row is final."""
    from day60.portfolio.rows import provisional

    assert provisional({}) == [] and provisional({"provisional": None}) == []
    assert provisional({"provisional": ["before the close"]}) == ["before the close"]
    assert words.score_cell(84.94, False, 0.0) == "84.9"
    assert words.score_cell(84.94, True, 4.0) == "84.9 PROVISIONAL (4.00 points under dispute)"


def test_a_rollback_outside_the_window_is_counted_apart_not_dropped(run, tmp_path):
    """RH-9's criterion was met on Fri 27 Feb, before the window opened on Mon 2 Mar: it is in
    neither kind's column (0 rehearsals, 0 production rollbacks) and the row counts it apart: 1."""
    path = make_journal(tmp_path / "apart.jsonl", [
        ("rollback.criterion-met", "RH-9", "2026-02-27T10:00", {"kind": "rehearsal"}),
        ("rollback.decision", "RH-9", "2026-02-27T10:05")], tier="T2", synthetic=True)
    r = run("portfolio", path, "--format", "json")
    assert r.exit_code == 0, r.output
    [row] = json.loads(r.stdout)["exercises"]
    assert (row["rehearsal_rollbacks"], row["production_rollbacks"], row["rollbacks_apart"]) == (0, 0, 1)
    assert "1 rollback(s) counted apart" in words.key_figures(row)


def test_trend_axes_have_round_ticks_and_points_sit_at_their_dates():
    """Ticks on a round step (a top of 1.2 gives 0, 0.5, 1, 1.5, never 0, 1, 1); exercises on 13 Mar,
    13 Apr and 13 Apr, values 4, 8 and 6: the top value 8 gives ticks 0, 2, 4, 6, 8, so y is 4/8 = 0.5
    and 8/8 = 1; x in proportion to the days (31 of 31: the two April points together at the right
    edge); one line from March to the first April point and none between the two April points."""
    from day60.display import nice_ticks, tick_label, trend_chart

    assert nice_ticks(1.2) == [0, 0.5, 1.0, 1.5] and [tick_label(t, nice_ticks(1.2)) for t in nice_ticks(1.2)] == \
        ["0.0", "0.5", "1.0", "1.5"]
    assert nice_ticks(100) == [0, 25, 50, 75, 100] and nice_ticks(8.5) == [0, 2.5, 5.0, 7.5, 10.0]
    points = [{"label": "2026-03-13", "value": 4.0, "series": "T3"}, {"label": "2026-04-13", "value": 8.0,
              "series": "T3"}, {"label": "2026-04-13", "value": 6.0, "series": "T3"}]
    c = trend_chart(points, None, width=310)
    assert [p["x"] for p in c["points"]] == [0, 310, 310]
    assert c["segments"] == [(0, 0.5, 310, 1.0)] and c["shared_dates"] == 1
    assert [t[1] for t in c["ticks"]] == ["0", "2", "4", "6", "8"]


def test_compare_says_when_both_sides_are_one_journal(run, folder, tmp_path):
    """Comparing a journal with a copy of itself (a slip of the wrong file name) shows no change on
    every line; the banner says the two are one journal, so no one reads it as an exercise that
    held steady. Two different exercises carry no such note."""
    import shutil

    shutil.copy(folder / "march.jsonl", tmp_path / "copy.jsonl")
    r = run("compare", folder / "march.jsonl", tmp_path / "copy.jsonl", "--format", "json")
    assert r.exit_code == 0, r.output
    assert any("same journal" in b for b in json.loads(r.stdout)["banner"])
    r = run("compare", folder / "march.jsonl", folder / "april.jsonl", "--format", "json")
    assert not any("same journal" in b for b in json.loads(r.stdout)["banner"])


def test_compare_prints_counted_alerts_as_whole_numbers(run, folder):
    """False alerts are counted: neither exercise raised one, so each side reads "0 alerts", the
    target "0 alerts" and the change "+0 alerts", never "0.00 alerts" as if a fraction could be raised."""
    r = run("compare", folder / "march.jsonl", folder / "april.jsonl")
    assert r.exit_code == 0, r.output
    row = next(line for line in r.stdout.splitlines() if line.startswith("false-alerts"))
    assert ".00 alert" not in row and row.split()[1:3] == ["0", "alerts"] and "+0 alerts" in row, row

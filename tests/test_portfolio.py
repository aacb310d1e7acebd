"""Portfolio and compare on small synthetic journals, every figure worked out by hand.

Calendar uk-office: Europe/London (GMT until 29 March, BST after), Mon-Fri 09:00-17:30.
"""

import csv
import io
import json

import pytest
from pypdf import PdfReader

from day60.portfolio.compare import _banner
from tests.builders import make_journal

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
    ], synthetic=True, **header)


def april(folder, name="april.jsonl", **header):
    # Drift: onset Mon 13 Apr 10:00, notice Tue 14 Apr 10:00: 7.5 bh on Monday + 1 bh on Tuesday = 8.5 bh.
    # Incident (severity 2): detected Wed 15 Apr 10:00, restored 11:00: 1 h.
    return make_journal(folder / name, [
        ("drift.onset", "d1", "2026-04-13T10:00", {**ORGANIC, "affected_class": "forms"}),
        ("drift.notice", "d1", "2026-04-14T10:00", {"affected_class": "forms", "evidence": "SYNTHETIC"}),
        ("incident.detected", "i1", "2026-04-15T10:00", {"severity": 2, **ORGANIC}),
        ("incident.restored", "i1", "2026-04-15T11:00", {"check": "SYNTHETIC canary"}),
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
    r = run("portfolio", folder / "missing")
    assert r.exit_code == 2


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
    assert "Day-60 comparison" in text and "+112.50 percent of the old figure" in text and "SYNTHETIC" in text


def test_a_rate_changes_in_percentage_points():
    from day60.portfolio.compare import _figure

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
    us = make_journal(tmp_path / "us.jsonl", [], calendar="us-office.toml", synthetic=True)
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

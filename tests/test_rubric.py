"""The rubric, its curve, the score, the PDF and the demo."""

import json
import math
from pathlib import Path

import pytest
import yaml
from pypdf import PdfReader

from day60 import journal as jr
from day60 import metrics as mx
from day60 import render, rubric
from day60.curve import slide
from day60.resources import data_dir
from tests import pdftext
from tests.builders import SIGN_OFF, make_journal

NOTE = {"affected_class": "a", "evidence": "e"}


# ----- the curve -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "share"),
    [
        (0, 1.0), (24, 1.0),           # at or within the target
        (36, 0.8), (48, 0.6),          # linear to 60% at the slide end
        (60, 0.6), (72, 0.6),          # flat at 60% up to and including the cut-off
        (72.0001, 0.0), (500, 0.0),    # nothing beyond the cut-off
        (None, 0.0), (math.nan, 0.0),  # nothing when it never happened
    ],
)
def test_curve_segments_and_boundaries(value, share):
    assert slide(value, 24, 48, 72) == pytest.approx(share)


def test_curve_unrounded_value_decides():
    assert slide(24.000001, 24, 48, 72) < 1.0
    assert slide(50, 0, 100) == pytest.approx(0.8)
    assert slide(10**9, 0, 100) == 0.6  # no cut-off: 60% for ever


# ----- the rubric files ----------------------------------------------------------------------


def test_every_shipped_rubric_sums_to_100():
    rubrics = [p for p in data_dir("rubric").glob("*.yaml") if "lines" in yaml.safe_load(p.read_text())]
    assert rubrics
    for path in rubrics:
        loaded = rubric.load(path)
        assert sum(line.points for line in loaded.lines) == 100, path.name


def test_rubric_defines_five_tiers_and_caps():
    r = rubric.load()
    assert list(r.tiers) == ["T1", "T2", "T3", "T4", "T5"]
    assert not r.tiers["T1"].production_change and not r.tiers["T2"].production_change
    assert all(r.tiers[t].production_change for t in ("T3", "T4", "T5"))


def test_bad_rubric_refused(run, tmp_path):
    bad = yaml.safe_load((data_dir("rubric") / "day60-v1.yaml").read_text())
    bad["lines"][0]["points"] = 16
    path = tmp_path / "r.yaml"
    path.write_text(yaml.safe_dump(bad))
    journal = make_journal(tmp_path / "j.jsonl", [])
    r = run("score", journal, "--rubric", path)
    assert r.exit_code == 2 and "sum to 101" in r.stderr


# ----- scoring -------------------------------------------------------------------------------


def score_of(path, **kw):
    j = jr.read(path)
    return rubric.score(mx.compute(j), j.header, rubric.load(), **kw)


def lines(result):
    return {line["id"]: line for line in result["lines"]}


def test_tier_t1_does_not_exercise_drift(tmp_path):
    path = make_journal(tmp_path / "j.jsonl", [], tier="T1")
    got = lines(score_of(path))
    assert got["drift-notice"]["status"] == "not exercised"
    assert got["drift-notice"]["earned"] == 0
    assert "tier T1" in got["drift-notice"]["reason"]


def test_nothing_recorded_is_not_exercised_never_assumed(tmp_path):
    """An empty journal exercises nothing: every line reads "not exercised" with its reason, and
    the score is not run with the reason, never 0 of 100 (charter 3.1.8, 4.5.1)."""
    result = score_of(make_journal(tmp_path / "j.jsonl", []))
    assert result["score"] is None and result["score_reason"].startswith("not run: no rubric line could be scored")
    for line in result["lines"]:
        assert line["status"] == "not exercised" and line["earned"] == 0 and line["reason"]
    assert "4.5.1" in lines(result)["drift-notice"]["reason"]


def test_drift_lines_hand_worked(tmp_path):
    # Onset Mon 09:00, detection Mon 13:00 (4 bh), notice Wed 13:00: 8.5 + 8.5 + 4 = 21 bh.
    path = make_journal(tmp_path / "j.jsonl", [
        ("safety.agreed", "D1", "2026-03-01T10:00", SIGN_OFF),
        ("drift.onset", "D1", "2026-03-02T09:00"),
        ("drift.detected", "D1", "2026-03-02T13:00"),
        ("drift.notice", "D1", "2026-03-04T13:00", NOTE),
        ("safety.agreed", "D2", "2026-03-01T10:00", SIGN_OFF),
        ("drift.onset", "D2", "2026-03-02T09:00"),
        ("drift.notice", "D2", "2026-03-09T13:00", NOTE),  # 5 x 8.5 + 4 = 46.5 bh
        ("exercise.close", "x", "2026-03-13T17:30"),
    ])
    got = lines(score_of(path))
    # D1 within 24 bh: 1; D2 at 46.5: 1 - 0.4 * 22.5 / 24 = 0.625. Mean x 15 points.
    assert got["drift-notice"]["earned"] == pytest.approx(15 * (1 + 0.625) / 2)
    # Detection: D1 4 bh within 8: 1; D2 has no detection time, but its notice proves detection
    # no later: at most 46.5 bh, past the slide end of 24 and within the cut-off of 48: 0.6.
    assert got["drift-detection"]["earned"] == pytest.approx(10 * (1 + 0.6) / 2)
    assert got["false-alerts"]["earned"] == 5  # none raised
    assert set(got["drift-notice"]["evidence"]) >= {2, 3, 4}


def test_open_window_drift_line_is_not_run_yet(tmp_path):
    path = make_journal(tmp_path / "j.jsonl", [("safety.agreed", "D1", "2026-03-01T10:00", SIGN_OFF),
                                               ("drift.onset", "D1", "2026-03-02T09:00")],
                        window=("2026-03-02T09:00", "2099-03-13T17:30"))
    line = lines(score_of(path))["drift-notice"]
    assert line["status"] == "not run" and "close the window" in line["reason"]


def test_deal_parameters_override_targets(tmp_path):
    path = make_journal(tmp_path / "j.jsonl", [
        ("safety.agreed", "D1", "2026-03-01T10:00", SIGN_OFF),
        ("drift.onset", "D1", "2026-03-02T09:00"),
        ("drift.notice", "D1", "2026-03-04T13:00", NOTE),  # 21 bh
    ])
    default = lines(score_of(path))["drift-notice"]
    strict = score_of(path, deal={"drift_notice_business_hours": 12})
    tight = lines(strict)["drift-notice"]
    assert default["earned"] == 15
    # 21 bh against 12, sliding to 60% at the rubric's 48: 1 - 0.4 * 9 / 36 = 0.9.
    assert tight["earned"] == pytest.approx(15 * 0.9)
    assert tight["target"]["source"] == "deal file" and strict["targets"] == "deal file"


def test_self_assessment_cap(tmp_path):
    path = make_journal(tmp_path / "j.jsonl", [], tier="T4")
    result = score_of(path, cap="T2")
    assert result["tier"] == "T2" and result["capped_from"] == "T4"


# ----- the score command, the PDF --------------------------------------------------------------


@pytest.fixture
def demo_dir(demo_folder):
    """The demo's folder, made once a run (tests/conftest.py) and only read here."""
    return demo_folder


def test_demo_writes_every_file_and_labels_it(demo_dir):
    for name in ("exercise.jsonl", "metrics.json", "score.json", "score.pdf", "score.html", "schedule.pdf",
                 "selfassess.pdf", "voice-bench.json", "drills.pdf"):
        assert (demo_dir / name).exists(), name
    header = json.loads((demo_dir / "exercise.jsonl").read_text().splitlines()[0])
    assert header["synthetic"] is True and "SYNTHETIC" in header["partner"]
    assert json.loads((demo_dir / "score.json").read_text())["synthetic"]
    assert "SYNTHETIC" in json.loads((demo_dir / "metrics.json").read_text())["synthetic"]


def test_demo_score_hand_worked(demo_dir):
    result = json.loads((demo_dir / "score.json").read_text())
    # drift-notice 7.5 (one of two notified in time), detection 5, one false alert 4, restore 25,
    # first communication 10, rollback time 8, decision 13 min (1 - 0.4 * 3/20), re-queue
    # 110 min (1 - 0.4 * 20/90), smoke set 4, report 10 of 11 pass (the ten defaults and the
    # deal's sla-credits; reviewer-minutes lacks its sample size): 10 x 10/11, on time 5.
    expected = 7.5 + 5 + 4 + 25 + 10 + 8 + 4 * 0.94 + 4 * (1 - 0.4 * 20 / 90) + 4 + 10 * 10 / 11 + 5
    assert result["score"] == pytest.approx(expected)
    assert result["tier"] == "T3"


def test_demo_pdf_text_pages_and_metadata(demo_dir):
    reader = PdfReader(demo_dir / "score.pdf")
    assert 3 <= len(reader.pages) <= 6
    texts = list(pdftext.page_texts(demo_dir / "score.pdf"))
    assert all("SYNTHETIC" in t for t in texts)  # on every page
    full = "\n".join(texts)
    result = json.loads((demo_dir / "score.json").read_text())
    assert f"{result['score']:.1f}" in full and "Tier T3" in full
    for line in result["lines"]:
        assert line["id"] in full
    assert f"page 1 of {len(reader.pages)}" in full
    assert result["journal_sha256"] in full.replace("\n", "")
    meta = reader.metadata
    assert "SYNTHETIC" in meta.title and "day60" in meta.author


def test_demo_refuses_a_folder_it_did_not_make(run, tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    r = run("demo", "--out", tmp_path)
    assert r.exit_code == 2 and "--out" in r.stderr
    assert [p.name for p in tmp_path.iterdir()] == ["notes.txt"]


def test_demo_reruns_in_its_own_folder(run, demo_copy):
    r = run("demo", "--out", demo_copy)
    assert r.exit_code == 0 and "SYNTHETIC demo" in r.stdout


def test_score_cli_json_is_unrounded_and_stable(run, demo_dir):
    first = run("score", demo_dir / "exercise.jsonl", "--format", "json")
    second = run("score", demo_dir / "exercise.jsonl", "--format", "json")
    assert first.exit_code == 0
    data = json.loads(first.stdout)
    again = json.loads(second.stdout)
    assert data.pop("provenance")["run_at"] and again.pop("provenance")  # only the run's time may differ
    assert data == again
    assert data["score"] == pytest.approx(sum(line["earned"] for line in data["lines"]))
    assert {"score", "tier", "rubric", "journal_sha256", "lines"} <= set(data)
    assert set(data["lines"][0]) >= {"id", "section", "points", "earned", "status", "figure", "target",
                                     "reason", "evidence"}


def test_score_cli_table_pdf_and_html(run, demo_dir, tmp_path):
    r = run("score", demo_dir / "exercise.jsonl", "--pdf", tmp_path / "s.pdf", "--html", tmp_path / "s.html")
    assert r.exit_code == 0, r.output
    assert "tier T3" in r.stdout and "SYNTHETIC" in r.stdout
    assert PdfReader(tmp_path / "s.pdf").pages
    assert "<svg" in (tmp_path / "s.html").read_text()


def test_score_cli_refusals(run, tmp_path, demo_dir):
    assert run("score", tmp_path / "missing.jsonl").exit_code == 2
    assert run("score", demo_dir / "exercise.jsonl", "--sow", tmp_path / "none.toml").exit_code == 2
    assert run("score", demo_dir / "exercise.jsonl", "--format", "yaml").exit_code == 2


# ----- safe rendering ------------------------------------------------------------------------

HOSTILE = '<img src="file:///etc/passwd"> & <script>x</script>'


def test_hostile_partner_name_prints_as_text(tmp_path):
    path = make_journal(tmp_path / "j.jsonl", [])
    lines_ = path.read_text().splitlines()
    # Build a journal whose partner is hostile, through the library (so it is valid).
    path2 = tmp_path / "h.jsonl"
    header = json.loads(lines_[0])
    jr.create(path2, {k: header[k] for k in ("supplier", "deployment", "tier", "runner", "calendar", "window")}
              | {"partner": HOSTILE})
    j = jr.read(path2)
    figures = mx.compute(j)
    page = render.score_html(j, figures, rubric.score(figures, j.header, rubric.load()))
    assert "&lt;img src=&#34;file:///etc/passwd&#34;&gt;" in page and "<script>" not in page
    render.pdf(page, tmp_path / "h.pdf")
    text = "".join(p.extract_text() for p in PdfReader(tmp_path / "h.pdf").pages)
    assert '<img src="file:///etc/passwd">' in text and "root:" not in text


@pytest.mark.parametrize("url", ["file:///etc/passwd", "http://127.0.0.1/x.png", "day60-asset:/../pyproject.toml",
                                 "data:text/plain,hi"])
def test_fetcher_serves_only_own_assets(url):
    fetcher = render._fetcher()
    with pytest.raises(ValueError):
        fetcher.fetch(url)
    assert fetcher.fetch("day60-asset:/report.css").status == 200


def test_injected_markup_cannot_read_files(tmp_path, monkeypatch):
    # Even markup that bypassed escaping could not read a file: the fetcher refuses it.
    asked = []
    original = render._fetcher

    def spy():
        inner = original()
        real = inner.fetch

        def fetch(url, headers=None):
            asked.append(url)
            return real(url, headers)

        inner.fetch = fetch
        return inner

    monkeypatch.setattr(render, "_fetcher", spy)
    secret = tmp_path / "secret.png"
    secret.write_bytes(b"not for the pdf")
    render.pdf(f'<p>x</p><img src="{Path(secret).as_uri()}">', tmp_path / "x.pdf")
    assert asked == [Path(secret).as_uri()]  # asked, refused, rendered without it

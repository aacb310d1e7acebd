"""Evidence that proves itself: a score report carries its inputs and verifies from them alone."""

import json

import pytest

from day60 import assess, render
from day60 import journal as jr
from day60.evidence.report import score_attachments
from day60.rubric import load


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    from day60 import demo

    folder = tmp_path_factory.mktemp("ev")
    files = demo.run(folder / "demo")
    return files


def test_the_demo_report_verifies_on_its_own(report, run, tmp_path):
    moved = tmp_path / "elsewhere.pdf"
    moved.write_bytes(report["pdf"].read_bytes())  # the PDF alone, away from its inputs
    r = run("verify-report", moved)
    assert r.exit_code == 0 and "verified" in r.stdout
    from pypdf import PdfReader

    names = set(PdfReader(moved).attachments)
    assert {"journal.jsonl", "rubric.yaml", "score.json"} <= names


def _rebuilt(tmp_path, journal_bytes=None, result_edit=None):
    """A report re-rendered from the demo's own inputs, one of them changed."""
    from day60 import demo

    path = tmp_path / "exercise.jsonl"
    j = demo.build_journal(path)
    published = load()
    done = assess.score_journal(j, published)
    from day60.display import jsonable

    recorded = jsonable(done.result)
    shown = dict(done.result)
    if result_edit:
        result_edit(shown)
    page = render.score_html(j, done.figures, shown)
    out = tmp_path / "report.pdf"
    scored = path.read_bytes() if journal_bytes is None else journal_bytes(path.read_bytes())
    render.pdf(page, out, attachments=score_attachments(scored, published.raw, None, recorded))
    return out


def test_one_changed_byte_of_the_embedded_journal_fails_naming_it(tmp_path, run):
    def flip(raw: bytes) -> bytes:
        i = raw.rindex(b"2026-10-07T14:41")  # the smoke pass of the production rollback
        return raw[:i] + b"2026-10-07T15:41" + raw[i + 16:]

    out = _rebuilt(tmp_path, journal_bytes=flip)
    r = run("verify-report", out)
    assert r.exit_code == 1 and "embedded journal has SHA-256" in r.stderr


def test_a_changed_printed_score_fails(tmp_path, run):
    out = _rebuilt(tmp_path, result_edit=lambda s: s.update(score=99.0))
    r = run("verify-report", out)
    assert r.exit_code == 1 and "the page shows 99.0 of 100" in r.stderr


def test_verify_report_refuses_what_is_not_a_report(tmp_path, run):
    plain = tmp_path / "plain.pdf"
    render.pdf("<p>hello</p>", plain)
    r = run("verify-report", plain)
    assert r.exit_code == 2 and "no embedded score" in r.stderr
    junk = tmp_path / "junk.pdf"
    junk.write_bytes(b"not a pdf at all")
    assert run("verify-report", junk).exit_code == 2


def test_every_score_output_says_where_it_came_from(report, run, tmp_path):
    r = run("score", report["journal"], "--format", "json")
    p = json.loads(r.stdout)["provenance"]
    assert p["toolkit"].startswith("day60 ") and p["inputs_sha256"]["journal"] == jr.read(report["journal"]).sha256
    assert p["packages"]["holidays"] and p["command"].startswith("day60 score")
    from pypdf import PdfReader

    text = " ".join(page.extract_text() for page in PdfReader(report["pdf"]).pages)
    assert "verify-report" in text and "9.9" in text


def test_a_disputed_line_reads_under_dispute_and_the_rest_stands(report, run, tmp_path):
    path = tmp_path / "ex.jsonl"
    path.write_bytes(report["journal"].read_bytes())
    before = json.loads(run("score", path, "--format", "json").stdout)
    r = run("dispute", path, "--line", "restore", "--by", "R. Supplier", "--organisation", "Example AI Operations",
            "--reason", "INC-2 was a partner test")
    assert r.exit_code == 0, r.output
    during = json.loads(run("score", path, "--format", "json").stdout)
    lines = {x["id"]: x for x in during["lines"]}
    assert lines["restore"]["status"] == "under dispute" and during["score"] == before["score"]
    assert during["under_dispute_points"] == lines["restore"]["earned"]
    assert all(x["status"] == y["status"] for x, y in zip(before["lines"], during["lines"], strict=True)
               if x["id"] != "restore")
    seq = during["disputes"][0]["seq"]
    refused = run("resolve", path, "--dispute", str(seq - 1), "--outcome", "upheld", "--reason", "x")
    assert refused.exit_code == 2 and "is not a dispute" in refused.stderr
    assert run("resolve", path, "--dispute", str(seq), "--outcome", "upheld", "--reason", "confirmed").exit_code == 0
    after = json.loads(run("score", path, "--format", "json").stdout)
    restore = next(x for x in after["lines"] if x["id"] == "restore")
    assert restore["status"] == "dispute upheld" and restore["earned"] == 0
    assert after["disputes"][0]["outcome"] == "upheld"  # nothing leaves the log
    assert run("resolve", path, "--dispute", str(seq), "--outcome", "rejected", "--reason", "again").exit_code == 2
    assert run("verify", path).exit_code == 0


def test_a_dispute_from_the_runners_own_organisation_is_a_self_dispute(run, tmp_path):
    from day60.resources import example

    path = tmp_path / "ex.jsonl"
    assert run("new", path, "--partner", "P", "--supplier", "S", "--deployment", "d", "--tier", "T3", "-c",
               example("uk-office.toml"), "--window-start", "2026-03-02T09:00", "--window-end", "2026-03-13T17:30",
               "--runner", "A. Auditor", "--runner-org", "Audit Co", "--conflict-statement",
               "No commercial tie to either party").exit_code == 0
    run("dispute", path, "--line", "drift-notice", "--by", "B. Colleague", "--organisation", "audit co",
        "--reason", "timing")
    score = json.loads(run("score", path, "--format", "json").stdout)
    assert score["disputes"][0]["self_dispute"] is True
    assert score["runner"] == {"name": "A. Auditor", "organisation": "Audit Co",
                               "conflict_statement": "No commercial tie to either party"}
    refused = run("dispute", path, "--line", "no-such-line", "--by", "x", "--organisation", "y", "--reason", "z")
    assert refused.exit_code == 2 and "is not a rubric line" in refused.stderr


def test_a_rescore_names_the_score_it_supersedes_and_never_overwrites_it(report, run, tmp_path):
    path = tmp_path / "ex.jsonl"
    path.write_bytes(report["journal"].read_bytes())
    first = tmp_path / "first.json"
    assert run("score", path, "--out", first).exit_code == 0
    original = first.read_bytes()
    r = run("score", path, "--out", first)
    assert r.exit_code == 2 and "never silently replaced" in r.stderr and first.read_bytes() == original
    run("dispute", path, "--line", "restore", "--by", "x", "--organisation", "Supplier", "--reason", "a test")
    seq = json.loads(run("score", path, "--format", "json").stdout)["disputes"][0]["seq"]
    run("resolve", path, "--dispute", str(seq), "--outcome", "upheld", "--reason", "the partner confirms")
    second = tmp_path / "second.json"
    pdf = tmp_path / "second.pdf"
    r = run("score", path, "--supersede", first, "--out", second, "--pdf", pdf)
    assert r.exit_code == 0, r.output
    import hashlib

    new = json.loads(second.read_text())
    assert new["supersedes"]["sha256"] == hashlib.sha256(original).hexdigest() and first.read_bytes() == original
    assert new["changelog"]["lines"] == [{"line": "restore", "was": {"earned": 25.0, "status": "scored"},
                                          "now": {"earned": 0.0, "status": "dispute upheld"}}]
    assert [b["reason"] for b in new["changelog"]["because"]] == ["a test", "the partner confirms"]
    assert run("verify-report", pdf).exit_code == 0
    assert run("score", path, "--supersede", tmp_path / "nope.json", "--out", tmp_path / "x.json").exit_code == 2

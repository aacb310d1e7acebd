"""verify-report checks everything it prints (issue 37, point 3), against a forger who holds a
genuine score report and the toolkit's own code: a rubric doctored under its published id and
version, a provenance block of free text or impossible dates, and a report handed over with a
journal head it was not scored from. And every output under the never-overwrite-evidence rule:
``clauses export`` refuses to replace a score report (point 5).

Each forgery is made as the forger would: the journal taken out of the genuine report, the
report's own data edited, and the PDF rendered again with ``day60.evidence.documents`` (the code
verify-report renders with), so its pages and its data agree with each other."""

import json

import pytest
import yaml
from pypdf import PdfReader
from typer.testing import CliRunner

from day60.cli import app
from day60.resources import data_dir

SOW = data_dir("clauses") / "examples" / "synthetic-sow.toml"


def _cli(*args, env=None):
    return CliRunner().invoke(app, [str(a) for a in args], env=env)




@pytest.fixture(scope="module")
def made(score_reports):
    """The demo's score report (shared by the evidence modules: tests/conftest.py, only read), its
    attachments and the journal head it records."""
    attached = {name: bodies[0] for name, bodies in PdfReader(score_reports["score"]).attachments.items()}
    return {**score_reports, "attached": attached,
            "head": json.loads(score_reports["json"].read_text())["journal_head"]}


def _forged(made, tmp_path, rubric_raw: bytes | None = None, edit=None):
    """The genuine report's journal scored again by the forger with the toolkit's own code, against
    ``rubric_raw`` (default: the embedded rubric), its provenance passed through ``edit``; returns
    the forged PDF's path and the score it prints."""
    from day60 import journal as jr
    from day60 import rubric
    from day60.evidence import documents as docs

    attached = made["attached"]
    path = tmp_path / "taken-out.jsonl"
    path.write_bytes(attached["journal.jsonl"])
    journal = jr.read(path)
    published = rubric.loads(rubric_raw or attached["rubric.yaml"], "the forger's rubric")
    recorded = json.loads(attached["score.json"])
    prov = recorded["provenance"]
    prov["inputs_sha256"]["rubric"] = published.sha256
    if edit is not None:
        edit(prov)
    done = docs.score_result(journal, published, None, prov)
    manifest = json.loads(attached["document.json"])
    document = docs.score_document(done, attached["journal.jsonl"], published.raw, None, None, manifest["title"],
                                   None, None, manifest["written_at"])
    raw, _pages = docs.pdf_bytes(document, note_fonts=False)
    forged = tmp_path / "forged.pdf"
    forged.write_bytes(raw)
    return forged, done.result["score"]


def _refused(r, *words):
    assert r.exit_code == 1, r.output
    assert "NOT verified" in r.stderr and "internal fault" not in r.output and "Traceback" not in r.output
    for word in words:
        assert word in r.stderr, (word, r.stderr)


def _doctored(made) -> bytes:
    """The published rubric with ten points moved from drift-notice (where the demo loses half) to
    restore (where it earns them all): same id, same version, same comments."""
    text = made["attached"]["rubric.yaml"].decode()
    body = yaml.safe_load(text)
    lines = {line["id"]: line for line in body["lines"]}
    old_notice, old_restore = lines["drift-notice"]["points"], lines["restore"]["points"]
    assert (old_notice, old_restore) == (15, 25)
    return text.replace("points: 15\n", "points: 5\n", 1).replace("points: 25\n", "points: 35\n", 1).encode()


# ----- the rubric -----------------------------------------------------------------------------------


def test_a_report_scored_against_a_doctored_rubric_under_its_published_name_is_refused(made, tmp_path):
    """The demo scores 85.0 under rubric day60 1.2.0; the doctored copy, still day60 1.2.0, scores
    it 90.0, and the forged report's pages, data and rubric all agree. The first round said
    "verified". The embedded rubric is held to the table of published rubrics (rubric/published.toml)
    and refused by name."""
    rubric_raw = _doctored(made)
    forged, score = _forged(made, tmp_path, rubric_raw)
    assert round(score, 1) == 90.0
    r = _cli("verify-report", forged)
    _refused(r, "the embedded rubric is refused", "names the published rubric day60 1.2.0",
             "but its bytes hash to", "it was changed")


def test_score_refuses_a_doctored_rubric_under_a_published_name(made, tmp_path):
    path = tmp_path / "doctored.yaml"
    path.write_bytes(_doctored(made))
    r = _cli("score", made["journal"], "--rubric", path, "--format", "json")
    assert r.exit_code == 2 and "names the published rubric day60 1.2.0" in r.stderr, r.output
    assert "give your own rubric an id of its own" in r.stderr


def test_a_rubric_under_a_version_never_published_is_refused(made, tmp_path):
    text = made["attached"]["rubric.yaml"].decode().replace("version: 1.2.0", "version: 1.2.1", 1)
    forged, _score = _forged(made, tmp_path, text.encode())
    _refused(_cli("verify-report", forged), "at version '1.2.1', which day60 never published")


def test_a_persons_own_rubric_is_said_to_be_unpublished(made, tmp_path):
    """A rubric with an id of its own is a person's own; the report verifies, and says whose it is."""
    text = made["attached"]["rubric.yaml"].decode().replace("id: day60\n", "id: acme-internal\n", 1)
    path = tmp_path / "own.yaml"
    path.write_text(text)
    pdf = tmp_path / "own.pdf"
    r = _cli("score", made["journal"], "--rubric", path, "--pdf", pdf)
    assert r.exit_code == 0, r.output
    r = _cli("verify-report", pdf)
    assert r.exit_code == 0, r.output
    assert "rubric 'acme-internal 1.2.0'" in r.stdout and "is not one day60 publishes" in r.stdout


def test_the_shipped_rubric_is_in_the_published_table():
    """A change to rubric/day60-v1.yaml must come with a new version and a row in the table."""
    from day60 import rubric

    assert rubric.standing(rubric.load())[0] == "published"


# ----- the provenance -------------------------------------------------------------------------------


@pytest.mark.parametrize("field, value, words", [
    ("toolkit", "INDEPENDENTLY CERTIFIED BY ACME AUDIT LLP", "toolkit reads 'INDEPENDENTLY CERTIFIED"),
    ("run_at", "1999-01-04T09:00:00+00:00", "run_at reads 1999-01-04T09:00:00+00:00, before the journal's first"),
    ("run_at", "2999-01-04T09:00:00+00:00", "later than now"),
    ("run_at", "4 January 1999", "not an instant as day60 writes one"),
    ("command", "day60 score ex.jsonl --pdf score.pdf INDEPENDENTLY CERTIFIED", "which 'day60 score' does not take"),
    ("command", "Certified by ACME Audit LLP", "not a 'day60 score' command line"),
    ("command", "day60 score ex.jsonl --out score.json", "without --pdf"),
    ("command", "day60 score ex.jsonl --pdf s.pdf --sow deal.toml", "with --sow, which the report's contents rule out"),
    ("charter", "Benchmark charter, certified compliant", "not the charter this toolkit encodes"),
    ("rubric", "day60 9.9 (certified)", "rubric reads 'day60 9.9 (certified)'"),
    ("toolkit_version", "0.1.0 certified", "toolkit_version is not a version number"),
    ("packages", {"holidays": "0.109", "tzdata": "2026.6", "python": "CERTIFIED"}, "packages is not"),
    ("source", {"commit": None, "dirty": None, "changed": [], "recorded": "CERTIFIED BUILD",
                "text": "CERTIFIED BUILD"}, "source is not a commit as day60 records one"),
    ("certified_by", "ACME Audit LLP", "field(s) day60 never writes there: certified_by"),
])
def test_free_text_or_an_impossible_date_in_the_provenance_is_refused(made, tmp_path, field, value, words):
    """The first round passed the recorded provenance through to the pages unread: a forger wrote
    "INDEPENDENTLY CERTIFIED BY ..." where the toolkit's name goes, or a run date of 1999, rendered
    the report again, and it verified. Every field is now typed and checked."""
    def edit(prov):
        prov[field] = value

    forged, _score = _forged(made, tmp_path, edit=edit)
    _refused(_cli("verify-report", forged), "its provenance is not as day60 writes it", words)


def test_the_forgers_untouched_rendering_still_verifies(made, tmp_path):
    """The control for the tests above: the same rendering with nothing edited verifies, so each
    refusal above is the edit's."""
    forged, score = _forged(made, tmp_path)
    assert round(score, 1) == 85.0
    r = _cli("verify-report", forged)
    assert r.exit_code == 0, r.output


# ----- the journal head and the parties ---------------------------------------------------------------


def test_verify_report_prints_the_verified_head_and_parties(made):
    head = made["head"]
    r = _cli("verify-report", made["score"])
    assert r.exit_code == 0, r.output
    assert f"journal head {head['seq']}:{head['hash']}" in r.stdout
    assert "parties: partner Harbour Claims BPO (SYNTHETIC); supplier Example AI Operations Ltd (SYNTHETIC)" in r.stdout
    assert "scored against rubric day60 1.2.0 as published" in r.stdout


def test_verify_report_expect_holds_the_report_to_the_head_handed_over(made):
    head = made["head"]
    r = _cli("verify-report", made["score"], "--expect", f"{head['seq']}:{head['hash']}")
    assert r.exit_code == 0 and "matches --expect" in r.stdout, r.output
    other = f"{head['seq'] - 1}:{head['hash']}"
    r = _cli("verify-report", made["score"], "--expect", other)
    _refused(r, f"its journal ends at head {head['seq']}:{head['hash']}, not at the head expected (--expect {other})")
    r = _cli("verify-report", made["score"], "--expect", "yesterday")
    assert r.exit_code == 2 and "--expect" in r.stderr and "is not SEQ:HASH" in r.stderr


# ----- clauses export never replaces evidence -----------------------------------------------------------


@pytest.mark.parametrize("option", ["--md", "--html", "--docx", "--pdf"])
def test_clauses_export_never_replaces_a_score_report(made, tmp_path, option):
    """The first round's guard recognised a signed PDF, not an unsigned score report: ``clauses
    export --md score.pdf`` wrote a Markdown schedule over it. Every output now refuses a report
    PDF (it embeds document.json), signed or not."""
    before = made["score"].read_bytes()
    r = _cli("clauses", "export", "--sow", SOW, option, made["score"])
    assert r.exit_code == 2, r.output
    assert "is a day60 report PDF" in r.stderr and "never overwritten" in r.stderr
    assert made["score"].read_bytes() == before


def test_a_notice_letter_is_recognised_as_evidence(made, tmp_path):
    from day60 import files

    journal = tmp_path / "ex.jsonl"
    journal.write_bytes(made["journal"].read_bytes())
    r = _cli("notice", journal, "--to", "Example AI Operations Ltd (SYNTHETIC)", "--out", tmp_path / "n.json",
             "--pdf", tmp_path / "n.pdf")
    assert r.exit_code == 0, r.output
    assert files.protected(tmp_path / "n.pdf") == files.PUBLISHED
    r = _cli("clauses", "export", "--sow", SOW, "--md", tmp_path / "n.pdf")
    assert r.exit_code == 2 and "never overwritten" in r.stderr

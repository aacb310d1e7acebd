"""verify-report against a forger: one test per forgery, each built the way an attacker would
(pypdf edits of a content stream, text objects added, incremental updates, attachments swapped
and re-hashed, signatures stripped, replaced and corrupted), each refused with the page or part
named. The reports are rendered once and shared; so is verify-report's re-rendering of each report
(tests/conftest.py, ``renders_once``)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from day60.cli import app
from day60.resources import data_dir
from tests import forge
from tests.conftest import made_once

SOW = data_dir("clauses") / "examples" / "synthetic-sow.toml"
DRILLS = data_dir("rubric") / "voice" / "examples" / "synthetic-drills.json"
ANSWERS = data_dir("selfassess") / "examples" / "synthetic-answers.json"


def _cli(*args, env=None):
    return CliRunner().invoke(app, [str(a) for a in args], env=env)




@pytest.fixture(scope="session")
def made(score_reports, tmp_path_factory):
    """The toolkit's own reports, written by its commands: a score and a signed score (shared by
    the evidence modules, tests/conftest.py), a schedule, a drills sheet and a self-assessment,
    rendered once a run however the module's tests are spread over the workers (``made_once``),
    and only read."""
    out = dict(score_reports)
    with made_once(tmp_path_factory, "forgery-shared") as (folder, ready):
        for name, args in [
            ("schedule", ["clauses", "export", "--sow", SOW, "--pdf", folder / "schedule.pdf"]),
            ("drills", ["voice", "drills", DRILLS, "--pdf", folder / "drills.pdf"]),
            ("selfassess", ["selfassess", "--answers", ANSWERS, "--pdf", folder / "selfassess.pdf"]),
        ]:
            if not ready:
                r = _cli(*args)
                assert r.exit_code == 0, (name, r.output)
            out[name] = folder / f"{name}.pdf"
    return out


def _verify(tmp_path, body: bytes, *extra):
    forged = tmp_path / "forged.pdf"
    forged.write_bytes(body)
    return _cli("verify-report", forged, *extra)


def _refused(r, *words):
    assert r.exit_code == 1, r.output
    assert "NOT verified" in r.stderr and "internal fault" not in r.output
    for word in words:
        assert word in r.stderr, (word, r.stderr)


@pytest.mark.parametrize("name", ["score", "signed", "schedule", "drills", "selfassess"])
def test_the_toolkits_own_reports_verify(made, name):
    r = _cli("verify-report", made[name])
    assert r.exit_code == 0, r.output
    assert "verified" in r.stdout
    assert ("signed by Common Name: Test Auditor" if name == "signed" else "not signed") in r.stdout


def test_the_drills_pdf_carries_its_data(made):
    from pypdf import PdfReader

    names = set(PdfReader(made["drills"]).attachments)
    assert names == {"observations.json", "drills.json", "document.json"}


# ----- printed figures ---------------------------------------------------------------------------


def test_an_edited_score_on_the_cover_is_named(made, tmp_path):
    """The demo scores 85.0 of 100; the forger redraws it 95.0 with the page's own font."""
    r = _verify(tmp_path, forge.swap_glyphs(made["score"].read_bytes(), 0, "85.0", "95.0"))
    _refused(r, "page 1 prints", "95.0 of 100", "where the embedded data renders", "85.0 of 100")


def test_edited_points_in_the_line_table_are_named(made, tmp_path):
    """drift-notice earned 7.50 of 15 (DRIFT-1 on time, DRIFT-2 never notified: 15 x 1/2)."""
    r = _verify(tmp_path, forge.swap_glyphs(made["score"].read_bytes(), 1, "7.50", "9.50"))
    _refused(r, "page 2 prints", "9.50", "7.50")


def test_an_edited_tier_is_named(made, tmp_path):
    r = _verify(tmp_path, forge.swap_glyphs(made["score"].read_bytes(), 0, "T3:", "T5:"))
    _refused(r, "page 1 prints", "T5:", "T3:")


def test_a_schedule_printing_59_where_its_clause_says_95_is_named(made, tmp_path):
    """The synthetic deal sets field accuracy at or above 95 percent (clause 1, page 4, after the
    definitions and the incorporated material)."""
    r = _verify(tmp_path, forge.swap_glyphs(made["schedule"].read_bytes(), 3, "95 percent", "59 percent"))
    _refused(r, "page 4 prints", "59 percent", "95 percent")


def test_an_invisible_score_drawn_first_is_named(made, tmp_path):
    """A visible 85.0 stays; an invisible '84.9 of 100' (text render mode 3) is drawn before it,
    where a reader taking the first score it finds would read it."""
    r = _verify(tmp_path, forge.add_text(made["score"].read_bytes(), 0, "84.9 of 100", invisible=True, first=True))
    _refused(r, "page 1 prints", "84.9 of 100", "word 1 of the page")


def test_the_same_edit_as_an_incremental_update_is_named_twice(made, tmp_path):
    body = forge.swap_glyphs(made["score"].read_bytes(), 0, "85.0", "95.0", incremental=True)
    assert body.startswith(made["score"].read_bytes())  # the toolkit's bytes kept, an update appended
    r = _verify(tmp_path, body)
    _refused(r, "page 1 prints", "95.0 of 100", "revision(s) 2 of 2 are incremental updates that are not signatures")


def test_an_incremental_update_appending_a_text_object_is_named(made, tmp_path):
    body = forge.add_text(made["schedule"].read_bytes(), 4, "Credits waived", incremental=True)
    r = _verify(tmp_path, body)
    _refused(r, "page 5 prints", "Credits waived", "incremental updates that are not signatures")


def test_an_annotation_laid_over_the_page_is_named(made, tmp_path):
    r = _verify(tmp_path, forge.annotate(made["score"].read_bytes(), 0, "95.0 of 100"))
    _refused(r, "page 1 carries a FreeText annotation", "not signatures")


def test_a_file_rewritten_whole_is_refused(made, tmp_path):
    """pypdf reads the report and writes it again, nothing changed on purpose: the words and the
    drawing are the same, but it is no longer the file the toolkit wrote."""
    r = _verify(tmp_path, forge.rewrite(made["drills"].read_bytes()))
    _refused(r, "its first revision is not byte for byte what the embedded data renders to")


def test_an_edited_drills_figure_is_named(made, tmp_path):
    from pypdf import PdfReader

    text = " ".join(PdfReader(made["drills"]).pages[0].extract_text().split())
    assert "Mean of the" in text
    mean = text.split("drill(s): ")[1].split(".")[0]  # the whole part of the printed mean
    forged = str(int(mean) - 1) if int(mean) > 10 else str(int(mean) + 10)
    r = _verify(tmp_path, forge.swap_glyphs(made["drills"].read_bytes(), 0, f": {mean}.", f": {forged}."))
    _refused(r, "page 1 prints", f"{forged}.")


# ----- the embedded data --------------------------------------------------------------------------


def _restore_later(event):
    if event["kind"] == "incident.restored" and event["id"] == "INC-1":
        event["at"] = event["at"].replace("T15:20", "T15:50")


def test_a_swapped_journal_rehashed_to_chain_with_the_same_points_is_caught(made, tmp_path):
    """The forger moves INC-1's restore from 15:20 to 15:50 and hashes the chain again. INC-1 is
    severity 2 (target 8 hours): its restore time goes from 2.80 h to 3.30 h, still within target,
    so the restore line keeps 25 of 25 and the score stays 85.0. The forger also makes the score
    JSON's journal hashes and head those of the new journal; only the figures are left as they
    were. verify-report computes the embedded journal again and finds INC-1's figure differs."""
    raw = made["score"].read_bytes()
    from pypdf import PdfReader

    attached = PdfReader(made["score"]).attachments
    journal = forge.rechain(attached["journal.jsonl"][0], _restore_later)
    from day60 import journal as jr

    path = tmp_path / "j.jsonl"
    path.write_bytes(journal)
    swapped = jr.read(path)  # the forged journal chains: the toolkit reads it without complaint
    score = json.loads(attached["score.json"][0])
    score["journal_sha256"] = swapped.sha256
    score["journal_head"] = swapped.head
    score["provenance"]["inputs_sha256"]["journal"] = swapped.sha256
    body = forge.replace_attachment(raw, "journal.jsonl", journal)
    body = forge.replace_attachment(body, "score.json", json.dumps(score, indent=2, sort_keys=True).encode())
    r = _verify(tmp_path, body)
    _refused(r, "the embedded score.json is not what its embedded inputs compute to", "lines[restore]", "INC-1",
             "2.8", "3.3")
    from day60.evidence.documents import score_result
    from day60.rubric import load

    fresh = score_result(swapped, load(), None, {}).result
    assert fresh["score"] == score["score"] and [x["earned"] for x in fresh["lines"]] == \
        [x["earned"] for x in score["lines"]]  # the same points: only the figures give it away


def test_a_swapped_journal_not_rehashed_into_the_data_is_caught(made, tmp_path):
    journal = forge.rechain(made["journal"].read_bytes(), _restore_later)
    r = _verify(tmp_path, forge.replace_attachment(made["score"].read_bytes(), "journal.jsonl", journal))
    _refused(r, "the provenance records the journal as", "but the embedded journal hashes to")


def test_an_edited_score_json_is_caught(made, tmp_path):
    from pypdf import PdfReader

    score = json.loads(PdfReader(made["score"]).attachments["score.json"][0])
    score["tier"] = "T5"
    r = _verify(tmp_path, forge.replace_attachment(made["score"].read_bytes(), "score.json",
                                                   json.dumps(score, indent=2, sort_keys=True).encode()))
    _refused(r, "tier reads \"T5\"; computed again it is \"T3\"")


def test_edited_answers_in_a_self_assessment_are_caught(made, tmp_path):
    from pypdf import PdfReader

    answers = json.loads(PdfReader(made["selfassess"]).attachments["answers.json"][0])
    answers["answers"]["drift.false_alerts"] = 0
    body = json.dumps(answers, indent=2).encode()
    r = _verify(tmp_path, forge.replace_attachment(made["selfassess"].read_bytes(), "answers.json", body))
    _refused(r, "the provenance records the answers as")


def test_a_report_without_its_manifest_is_not_verified(made, tmp_path):
    r = _verify(tmp_path, forge.remove_attachment(made["score"].read_bytes(), "document.json"))
    _refused(r, "carries no document.json")


# ----- signatures ---------------------------------------------------------------------------------


def test_a_signature_states_its_signer_and_fingerprint(made):
    from cryptography.hazmat.primitives.serialization import pkcs12

    _key, cert, _ = pkcs12.load_key_and_certificates((made["folder"] / "auditor.p12").read_bytes(), b"pw")
    from cryptography.hazmat.primitives import hashes

    fingerprint = cert.fingerprint(hashes.SHA256()).hex()
    r = _cli("verify-report", made["signed"])
    assert r.exit_code == 0
    assert f"signed by Common Name: Test Auditor (certificate SHA-256 {fingerprint}); the signature is intact and " \
           "covers every byte of the file" in r.stdout


def test_a_stripped_signature_is_named(made, tmp_path):
    stripped = forge.first_revision(made["signed"].read_bytes())
    r = _verify(tmp_path, stripped)
    _refused(r, "it was written to be signed by Common Name: Test Auditor", "the signature was removed")
    assert "not signed" in r.stdout


def test_a_replaced_signature_is_named(made, tmp_path):
    from day60.evidence import sign

    stripped = forge.first_revision(made["signed"].read_bytes())
    other = sign.load_signer(made["folder"] / "forger.p12", b"pw")
    r = _verify(tmp_path, sign.sign(stripped, other))
    _refused(r, "the signature is by certificate", other.fingerprint, "the signature was replaced")
    assert "signed by Common Name: Someone Else" in r.stdout


def test_a_corrupted_signature_is_tampering(made, tmp_path):
    r = _verify(tmp_path, forge.corrupt_signature(made["signed"].read_bytes(), "value"))
    _refused(r, "Test Auditor", "its cryptographic signature does not verify")
    r = _verify(tmp_path, forge.corrupt_signature(made["signed"].read_bytes(), "certificate"))
    _refused(r, "the signature in field 'day60-report'")
    assert "cannot be read" in r.stdout or "cannot be checked" in r.stderr


def test_a_countersignature_beside_the_recorded_one_is_stated_not_refused(made, tmp_path):
    from day60.evidence import sign

    other = sign.load_signer(made["folder"] / "forger.p12", b"pw")
    r = _verify(tmp_path, sign.sign(made["signed"].read_bytes(), other, field="countersignature"))
    assert r.exit_code == 0, r.output
    assert "signed by Common Name: Test Auditor" in r.stdout and "signed by Common Name: Someone Else" in r.stdout
    assert "not the signer recorded in it" in r.stdout
    assert "its own revision (2 of 3); 1 revision(s) came after it" in r.stdout


def test_an_update_after_the_signature_is_named(made, tmp_path):
    body = forge.add_text(made["signed"].read_bytes(), 0, "Approved", incremental=True)
    r = _verify(tmp_path, body)
    _refused(r, "page 1 prints", "Approved", "not signatures")


def test_a_signature_added_to_an_unsigned_report_is_stated(made, tmp_path):
    """Nothing was recorded to come; a signature added afterwards (a countersignature) changes no
    byte of the toolkit's revision, so the report verifies and says who added it."""
    from day60.evidence import sign

    other = sign.load_signer(made["folder"] / "forger.p12", b"pw")
    r = _verify(tmp_path, sign.sign(made["score"].read_bytes(), other))
    assert r.exit_code == 0, r.output
    assert "signed by Common Name: Someone Else" in r.stdout and "added after the toolkit wrote the report" in r.stdout


# ----- damaged files --------------------------------------------------------------------------------


@pytest.mark.parametrize("damage", ["truncated", "loop", "wrong types", "not a pdf", "empty", "signed, cut"])
def test_a_damaged_pdf_is_bad_input_naming_the_file(made, tmp_path, damage):
    raw = made["score"].read_bytes()
    body = {"truncated": raw[: len(raw) // 2], "loop": forge.LOOP, "wrong types": forge.WRONG_TYPES,
            "not a pdf": b"hello, this is text", "empty": b"",
            "signed, cut": made["signed"].read_bytes()[:-2000]}[damage]
    path = tmp_path / f"{damage}.pdf"
    path.write_bytes(body)
    r = _cli("verify-report", path)
    assert r.exit_code in (1, 2), r.output
    assert str(path) in r.stderr and "internal fault" not in r.output and "Traceback" not in r.output
    if damage != "signed, cut":  # a signed file cut short is also a broken signature: tampering
        assert r.exit_code == 2 and "is damaged or is not a PDF" in r.stderr


def test_the_pdf_libraries_never_write_to_the_terminal(made, tmp_path):
    """Run as a user runs it: a signed report (pyHanko logs a self-signed certificate) and a
    damaged one; stderr holds only day60's own lines."""
    damaged = tmp_path / "half.pdf"
    damaged.write_bytes(made["score"].read_bytes()[:30000])
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parent.parent))
    for path, code in ((made["signed"], 0), (damaged, 2), (made["folder"] / "missing.pdf", 2)):
        r = subprocess.run([sys.executable, "-m", "day60", "verify-report", str(path)], capture_output=True,
                           text=True, env=env)
        assert r.returncode == code, r.stderr
        for line in r.stderr.splitlines():
            assert line.startswith(("error:", str(path))), line

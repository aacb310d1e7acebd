"""verify-report states the deal a score was scored against, and --expect-deal holds it to the
deal the parties signed (attack 37, finding 2).

The forger's attack: the real deal sets a score floor of 90; a forged copy sets 80 and adds three
targets the rubric would otherwise take at their published defaults (drift_false_alerts 1,
rollback_decision_minutes 15, requeue_minutes 120). A report scored against the forged file
verified ("verified", "matches --expect") and never named the deal, so a reader holding the real
contract could not tell."""

import hashlib

import pytest
from typer.testing import CliRunner

from day60.cli import app
from day60.resources import data_dir

SOW = data_dir("clauses") / "examples" / "synthetic-sow.toml"


def _cli(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


@pytest.fixture(scope="module")
def forged(tmp_path_factory):
    from day60 import demo

    folder = tmp_path_factory.mktemp("deal")
    journal = folder / "exercise.jsonl"
    demo.build_journal(journal)
    text = SOW.read_text(encoding="utf-8")
    assert "\nday60_score_floor = 70\n" in text
    real = folder / "real-sow.toml"
    real.write_text(text.replace("\nday60_score_floor = 70\n", "\nday60_score_floor = 90\n"), encoding="utf-8")
    fake = folder / "forged-sow.toml"
    fake.write_text(text.replace("\nday60_score_floor = 70\n", "\nday60_score_floor = 80\n").replace(
        "[parameters]\n", "[parameters]\ndrift_false_alerts = 1\nrollback_decision_minutes = 15\n"
                          "requeue_minutes = 120\n"), encoding="utf-8")
    r = _cli("score", journal, "--sow", fake, "--pdf", folder / "forged.pdf")
    assert r.exit_code == 0, r.output
    return {"pdf": folder / "forged.pdf", "real": hashlib.sha256(real.read_bytes()).hexdigest(),
            "fake": hashlib.sha256(fake.read_bytes()).hexdigest(), "folder": folder, "journal": journal}


def test_verify_report_names_the_deal_and_expect_deal_refuses_another(forged):
    """Worked by hand from the forged file: floor 80; the rubric targets it sets, by name: the
    six the example deal already holds (drift_notice_business_hours 24, restore_sev1_hours 4,
    restore_sev2_hours 8, restore_sev3_business_hours 24, restore_sev4_business_hours 40,
    rollback_minutes 30), report_completeness_percent 100 (which the clause library fixes for
    every deal, charter 3.21) and the three the forger added: ten in all. --expect-deal with the real
    deal's SHA-256 fails (exit 1) naming both hashes; with the forged file's own, it verifies."""
    r = _cli("verify-report", forged["pdf"])
    assert r.exit_code == 0, r.output
    assert (f"scored against the deal deal.toml (given as --sow {forged['folder'] / 'forged-sow.toml'}), "
            f"SHA-256 {forged['fake']}; score floor 80; the rubric targets it sets: drift_false_alerts = 1, "
            "drift_notice_business_hours = 24, report_completeness_percent = 100, requeue_minutes = 120, "
            "restore_sev1_hours = 4, restore_sev2_hours = 8, "
            "restore_sev3_business_hours = 24, restore_sev4_business_hours = 40, rollback_decision_minutes = 15, "
            "rollback_minutes = 30") in r.stdout, r.stdout
    r = _cli("verify-report", forged["pdf"], "--expect-deal", forged["real"])
    assert r.exit_code == 1, r.output
    assert (f"its embedded deal hashes to {forged['fake']}, not to the deal expected (--expect-deal "
            f"{forged['real']})") in r.stderr and "NOT verified" in r.stderr
    r = _cli("verify-report", forged["pdf"], "--expect-deal", forged["fake"].upper())
    assert r.exit_code == 0 and "deal SHA-256 matches --expect-deal" in r.stdout, r.output


def test_expect_deal_bad_input_and_a_report_with_no_deal(forged):
    """A value that is no SHA-256 is bad input (exit 2, one line naming --expect-deal and the fix,
    no traceback). A report scored with no deal says so, and fails --expect-deal (exit 1)."""
    r = _cli("verify-report", forged["pdf"], "--expect-deal", "real-sow.toml")
    assert r.exit_code == 2 and r.stderr.count("\n") == 1 and r.stderr.startswith("error: --expect-deal: "), r.output
    assert "sha256sum" in r.stderr and "Traceback" not in r.output
    plain = forged["folder"] / "plain.pdf"
    assert _cli("score", forged["journal"], "--pdf", plain).exit_code == 0
    r = _cli("verify-report", plain, "--expect-deal", forged["real"])
    assert r.exit_code == 1 and "it carries no deal" in r.stderr, r.output
    assert "scored against no deal: every target is the rubric's published default" in r.stdout


def test_a_lookalike_rubric_is_named_by_code_point_and_its_targets_are_its_own(forged, tmp_path):
    """Attack 37, finding 7: a rubric whose id is "dаy60" (its second letter Cyrillic, U+0430) with
    the re-queue target eased from 90 to 120 minutes was reported as "not one day60 publishes" with
    the Cyrillic letter shown as is, and its targets were labelled "(rubric default)". Its standing
    now names U+0430 CYRILLIC SMALL LETTER A, and every target of a score against it reads "this
    rubric's own value", the score's targets "this rubric's own values", never "rubric default"."""
    import json

    from day60 import rubric
    from day60.resources import data_dir

    text = (data_dir("rubric") / "day60-v1.yaml").read_text(encoding="utf-8")
    assert "\nid: day60\n" in text and "target: 90" in text
    odd = text.replace("\nid: day60\n", "\nid: d\u0430y60\n").replace("target: 90", "target: 120")
    path = tmp_path / "own.yaml"
    path.write_text(odd, encoding="utf-8")
    state, words = rubric.standing(rubric.loads(path.read_bytes()))
    assert state == "unpublished" and "U+0430 CYRILLIC SMALL LETTER A" in words, words
    r = _cli("score", forged["journal"], "--rubric", path, "--format", "json")
    assert r.exit_code == 0, r.output
    assert "rubric default" not in r.stdout and "this rubric's own value" in r.stdout
    assert json.loads(r.stdout)["targets"].startswith("this rubric's own values")
    r = _cli("score", forged["journal"], "--rubric", path)
    assert "rubric default" not in r.stdout and "this rubric's own value" in r.stdout

"""The afternoon self-assessment: the interview through pipe input, the answers-file twin,
the T2 cap, "not evidenced", and the PDF."""

import json

import pytest
from pypdf import PdfReader

from day60 import selfassess as sa
from day60.interview import DONT_KNOW
from day60.resources import data_dir

EXAMPLE = data_dir("selfassess") / "examples" / "synthetic-answers.json"
QS = sa.QuestionSet.load()
RAW = json.loads(EXAMPLE.read_text())["answers"]
DOWN, ENTER, CTRL_C = "\x1b[B", "\r", "\x03"


def keys_for(q: sa.Question, raw) -> str:
    """The keystrokes a person types to give ``raw`` to question ``q``."""
    if q.type in ("choice", "yesno"):
        options = list(q.choices) if q.type == "choice" else ["yes", "no"]
        options.append(DONT_KNOW)
        value = DONT_KNOW if raw is None else ({True: "yes", False: "no"}.get(raw, raw) if q.type == "yesno" else raw)
        return DOWN * options.index(value) + ENTER
    return ("?" if raw is None else str(raw)) + ENTER


def script(raw_answers: dict, stop_after: int | None = None, extra: dict | None = None) -> str:
    """Keystrokes for the whole interview in the order the walker asks; ``extra`` types a
    refused answer first for some keys; ``stop_after`` presses Ctrl-C after that many answers."""
    typed, answers = [], {}
    while (q := sa.pending(QS, answers)) is not None:
        if stop_after is not None and len(answers) == stop_after:
            typed.append(CTRL_C)
            break
        if extra and q.key in extra:
            typed.append(keys_for(q, extra[q.key]))
        typed.append(keys_for(q, raw_answers[q.key]))
        answers[q.key] = sa.parse_answer(q, raw_answers[q.key], sa.tz_of(answers))
    return "".join(typed)


def test_walker_branches_on_counts_and_yes():
    base = {"deal.partner": "p"}
    keys = [q.key for q in sa.walk(QS, base)]
    assert "drift.count" in keys and not any(k.startswith("drift.notice.") for k in keys)
    keys = [q.key for q in sa.walk(QS, {**base, "drift.count": 2, "incidents.count": 1,
                                         "incidents.incident.1.waited": True})]
    assert "drift.notice.2.evidence" in keys and "drift.notice.3.onset" not in keys
    assert "incidents.incident.1.wait.end" in keys and "incidents.incident.1.partner_notice.at" not in keys
    assert sum(k.startswith("report.elements.") for k in keys) == 10


def test_count_beyond_limit_is_reported_not_hidden():
    answers = {"incidents.count": 9}
    keys = [q.key for q in sa.walk(QS, answers)]
    assert "incidents.incident.6.check" in keys and "incidents.incident.7.severity" not in keys
    assert "3 of 9" in sa.beyond_limit(QS, answers)[0]


def test_whole_interview_through_pipe_input_with_refusal_dont_know_and_resume(run, tmp_path, monkeypatch, pipe):
    monkeypatch.setattr("day60.cli.base._interactive", lambda: True)
    saved = tmp_path / "answers.json"
    refused = {"deal.start": "2026-03-29T01:30"}  # in the spring-forward gap: refused, asked again
    whole = script(RAW, extra=refused)
    first_sitting = script(RAW, stop_after=20, extra=refused)  # ends with Ctrl-C
    assert whole.startswith(first_sitting[:-1])
    pipe.send_text(first_sitting)
    r = run("selfassess", "--save", saved)
    assert r.exit_code == 0, r.output
    assert "not accepted: deal.start: 2026-03-29T01:30 does not exist in Europe/London" in r.stdout
    assert "[The deal and its calendar] question 1 of about" in r.stdout
    assert "stopped; 20 answer(s) saved" in r.stdout
    first = json.loads(saved.read_text())["answers"]
    assert len(first) == 20 and first["deal.start"] == "2026-07-01T00:00:00+01:00"
    # Second sitting: resume and type the rest, "don't know" answers included.
    pipe.send_text(whole[len(first_sitting) - 1:])
    r = run("selfassess", "--resume", saved, "--format", "json")
    assert r.exit_code == 0, r.output
    result = json.loads(r.stdout[r.stdout.index("{\n"):])
    final = json.loads(saved.read_text())["answers"]
    assert set(first.items()) <= set(final.items())
    assert final == sa.load_answers(EXAMPLE, QS).answers  # the same answers as the shipped file
    assert final["drift.notice.2.detected"] is None and final["report.elements.rollback-rehearsal"] is None
    assert result["tier"] == "T2"
    lines = {line["id"]: line for line in result["lines"]}
    assert lines["drift-detection"]["status"] == "not evidenced"


def test_interview_refuses_without_terminal_and_points_at_answers(run, tmp_path):
    r = run("selfassess")
    assert r.exit_code == 2 and "--answers" in r.stderr


def test_save_file_is_never_overwritten(run, tmp_path, monkeypatch):
    monkeypatch.setattr("day60.cli.base._interactive", lambda: True)
    saved = tmp_path / "a.json"
    saved.write_text("{}")
    r = run("selfassess", "--save", saved)
    assert r.exit_code == 2 and "--resume" in r.stderr and saved.read_text() == "{}"


def test_answers_file_twin_hand_worked(run):
    r = run("selfassess", "--answers", EXAMPLE, "--format", "json")
    assert r.exit_code == 0, r.output
    result = json.loads(r.stdout)
    lines = {line["id"]: line for line in result["lines"]}
    # drift-1 notice: Tue 14 Jul 10:20 -> Thu 16 Jul 14:30 = 7h10m + 8.5 h + 5.5 h = 21.17 bh (<= 24).
    assert lines["drift-notice"]["earned"] == 15
    # Three false alerts: 60% of 5 points.
    assert lines["false-alerts"]["earned"] == pytest.approx(3)
    # First communication: 40 min (full) and 1.75 h (1 - 0.4 * 0.75 / 3 = 0.9): mean 0.95 of 10.
    assert lines["first-communication"]["earned"] == pytest.approx(9.5)
    # Report due on the 5th business day of October 2026 (the 7th); delivered on the 8th.
    assert lines["report-timeliness"]["earned"] == 0
    assert lines["drift-detection"]["status"] == "not evidenced" and lines["drift-detection"]["earned"] == 0
    assert lines["report-completeness"]["status"] == "not evidenced"
    assert result["score"] == pytest.approx(sum(line["earned"] for line in result["lines"]))
    assert result["question_set_version"] == "1.0.0" and len(result["answers_sha256"]) == 64
    assert "for each drift, the timestamp of the supplier's internal alert" in result["ask_supplier_for"]
    assert result["tier"] == "T2" and result["tier_note"] == "self-assessment, T2 at most"


def test_t2_cap_scores_rehearsals_never_production(run, tmp_path):
    r = run("selfassess", "--answers", EXAMPLE, "--format", "json", "--journal", tmp_path / "j.jsonl")
    result = json.loads(r.stdout)
    header = json.loads((tmp_path / "j.jsonl").read_text().splitlines()[0])
    assert header["tier"] == "T2" and header["records"] == "supplier-reported"
    rollback = {line["id"]: line for line in result["lines"]}["rollback-time"]
    assert rollback["target"]["kind"] == "rehearsal"
    assert run("selfassess", "--answers", EXAMPLE, "--journal", tmp_path / "j.jsonl").exit_code == 2


@pytest.mark.parametrize(("key", "value", "field"), [
    ("deal.start", "2026-10-25T01:30", "deal.start"),   # happens twice in London
    ("drift.count", "two", "drift.count"),
    ("report.period", "Sept 2026", "report.period"),
    ("incidents.incident.1.severity", "3", "incidents.incident.1.severity"),
])
def test_bad_answers_refused_naming_the_question(run, tmp_path, key, value, field):
    doc = json.loads(EXAMPLE.read_text())
    doc["answers"][key] = value
    path = tmp_path / "a.json"
    path.write_text(json.dumps(doc))
    r = run("selfassess", "--answers", path)
    assert r.exit_code == 2 and f"error: {field}:" in r.stderr


def test_missing_and_stray_answers(run, tmp_path):
    doc = json.loads(EXAMPLE.read_text())
    del doc["answers"]["incidents.incident.2.check"]
    path = tmp_path / "a.json"
    path.write_text(json.dumps(doc))
    r = run("selfassess", "--answers", path)
    assert r.exit_code == 2 and "incidents.incident.2.check" in r.stderr and "has no answer" in r.stderr
    doc = json.loads(EXAMPLE.read_text())
    doc["answers"]["drift.notice.3.onset"] = "2026-07-01T10:00"
    path.write_text(json.dumps(doc))
    r = run("selfassess", "--answers", path)
    assert r.exit_code == 2 and "drift.notice.3.onset" in r.stderr


def test_contradictory_times_are_refused(run, tmp_path):
    doc = json.loads(EXAMPLE.read_text())
    doc["answers"]["drift.notice.1.notice"] = "2026-07-13T09:00"  # before its onset
    path = tmp_path / "a.json"
    path.write_text(json.dumps(doc))
    r = run("selfassess", "--answers", path)
    assert r.exit_code == 2 and "contradict" in r.stderr


def test_pdf_text(run, tmp_path):
    r = run("selfassess", "--answers", EXAMPLE, "--pdf", tmp_path / "s.pdf")
    assert r.exit_code == 0, r.output
    reader = PdfReader(tmp_path / "s.pdf")
    text = " ".join(" ".join(p.extract_text().split()) for p in reader.pages)
    assert "Day-60 self-assessment" in text and "T2 at most" in text and "Tier T2" in text
    assert "Ask your supplier for" in text and "not evidenced" in text
    assert "Answers SHA-256" in text and "Question set selfassess 1.0.0" in text
    assert all("SYNTHETIC" in p.extract_text() for p in reader.pages)

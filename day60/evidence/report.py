"""Reports that verify themselves: a score PDF carries the inputs it was computed from (PDF/A-3b
associated files), and ``verify`` recomputes it from them.

Embedded in a score report: the journal exactly as scored (its complete lines), the rubric file,
the deal file when one set the targets (relationship Source), and the score as JSON (relationship
Data). ``verify`` checks every embedded input against the hashes the JSON records and the page
prints, scores the embedded journal again with this toolkit, and compares every line.
"""

from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path
from typing import Any

from day60.errors import InputError

SCORE_JSON = "score.json"
SCHEDULE_JSON = "schedule.json"
SOURCES = {"journal": "journal.jsonl", "rubric": "rubric.yaml", "deal": "deal.toml", "answers": "answers.json"}


def score_attachments(journal_bytes: bytes, rubric_bytes: bytes, deal_bytes: bytes | None,
                      result: dict[str, Any]) -> list[tuple[str, bytes, str, str]]:
    """What a score report embeds: (name, bytes, description, relationship)."""
    out = [(SOURCES["journal"], journal_bytes, "the exercise journal, exactly the lines scored", "Source"),
           (SOURCES["rubric"], rubric_bytes, "the rubric the score was computed against", "Source")]
    if deal_bytes is not None:
        out.append((SOURCES["deal"], deal_bytes, "the deal file whose parameters set the targets", "Source"))
    body = json.dumps(result, indent=2, sort_keys=True, allow_nan=False).encode("utf-8")
    out.append((SCORE_JSON, body, "the score as data, unrounded", "Data"))
    return out


def selfassess_attachments(answers_bytes: bytes, result: dict[str, Any]) -> list[tuple[str, bytes, str, str]]:
    """What a self-assessment report embeds: the answers file and the score."""
    body = json.dumps(result, indent=2, sort_keys=True, allow_nan=False).encode("utf-8")
    return [(SOURCES["answers"], answers_bytes, "the answers file the assessment was scored from", "Source"),
            (SCORE_JSON, body, "the self-assessment score as data, unrounded", "Data")]


def schedule_attachments(deal_bytes: bytes, schedule: dict[str, Any]) -> list[tuple[str, bytes, str, str]]:
    """What a clause schedule embeds: the deal file and the schedule as data."""
    body = json.dumps(schedule, indent=2, sort_keys=True, default=str).encode("utf-8")
    return [(SOURCES["deal"], deal_bytes, "the deal file the schedule was filled from", "Source"),
            (SCHEDULE_JSON, body, "the schedule as data", "Data")]


def _sha(data: bytes) -> str:
    import hashlib

    return hashlib.sha256(data).hexdigest()


def verify(path: str | Path) -> list[str]:
    """Every difference between a score report and a fresh computation from its embedded inputs;
    an empty list means verified. Refuses (InputError) a file that is not a day60 score report."""
    import io

    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    from day60.files import read_bytes

    raw = read_bytes(path, "REPORT", "a PDF report written by day60", 512 * 1024 * 1024)
    try:
        reader = PdfReader(io.BytesIO(raw))
        embedded = {name: bodies[0] for name, bodies in reader.attachments.items()}
        text = " ".join(" ".join((page.extract_text() or "").split()) for page in reader.pages)
    except (PdfReadError, ValueError, KeyError, OSError) as exc:
        raise InputError("REPORT", f"{path} cannot be read as a PDF ({exc})", "give a report written by "
                                                                               "'day60 score --pdf'") from exc
    if SCHEDULE_JSON in embedded and SOURCES["deal"] in embedded:
        data, check = SCHEDULE_JSON, _verify_schedule
    elif SCORE_JSON in embedded and SOURCES["answers"] in embedded:
        data, check = SCORE_JSON, _verify_selfassess
    elif SCORE_JSON in embedded and SOURCES["journal"] in embedded:
        data, check = SCORE_JSON, _verify_score
    else:
        raise InputError("REPORT", f"{path} carries no embedded score and journal",
                         "give a report written by this toolkit with --pdf")
    try:
        recorded = json.loads(embedded[data])
    except (ValueError, UnicodeDecodeError):
        return [f"the embedded {data} is damaged"]
    return check(embedded, recorded, text)


def _verify_score(embedded: dict[str, bytes], recorded: dict[str, Any], text: str) -> list[str]:
    return _hashes(embedded, recorded, text) + _recompute(embedded, recorded, text)


def _compare_lines(fresh: dict[str, Any], recorded: dict[str, Any], text: str) -> list[str]:
    problems = []
    if fresh["score"] != recorded.get("score"):
        problems.append(f"the score recomputes to {fresh['score']!r}, but the report records "
                        f"{recorded.get('score')!r}")
    before = {line["id"]: line for line in recorded.get("lines", [])}
    for line in fresh["lines"]:
        old = before.get(line["id"])
        if old is None:
            problems.append(f"line {line['id']} is missing from the recorded score")
        elif (old.get("earned"), old.get("status")) != (line["earned"], line["status"]):
            problems.append(f"line {line['id']}: recorded {old.get('earned')!r} ({old.get('status')}), "
                            f"recomputed {line['earned']!r} ({line['status']})")
    shown = re.search(r"(\d+(?:\.\d)?) of 100", text)
    if fresh["score"] is None:
        if shown is not None:
            problems.append(f"the page shows {shown.group(1)} of 100, but the score recomputes to not run")
    elif shown is None or float(shown.group(1)) != round(fresh["score"], 1):
        problems.append(f"the page shows {shown.group(1) if shown else 'no score'} of 100, but the score "
                        f"recomputes to {fresh['score']:.1f}")
    return problems


def _verify_selfassess(embedded: dict[str, bytes], recorded: dict[str, Any], text: str) -> list[str]:
    """Score the embedded answers again and compare; the answers' hash against record and page."""
    from day60 import assess, selfassess

    with tempfile.TemporaryDirectory() as tmp:
        answers_path = Path(tmp) / SOURCES["answers"]
        answers_path.write_bytes(embedded[SOURCES["answers"]])
        try:
            qs = selfassess.QuestionSet.load()
            answers = selfassess.load_answers(answers_path, qs)
            fresh = assess.self_assess(qs, answers, Path(tmp) / "selfassess.jsonl").result
        except InputError as exc:
            return [f"the embedded answers cannot be scored again: {exc}"]
    problems = []
    printed = _printed(text, "Answers SHA-256")
    if recorded.get("answers_sha256") != answers.sha256:
        problems.append(f"the embedded answers hash to {answers.sha256[:16]}..., but the score records "
                        f"{str(recorded.get('answers_sha256'))[:16]}...")
    if printed != answers.sha256:
        problems.append(f"the page prints answers SHA-256 {str(printed)[:16]}..., but the embedded answers hash "
                        f"to {answers.sha256[:16]}...")
    return problems + _compare_lines(fresh, recorded, text)


def _verify_schedule(embedded: dict[str, bytes], recorded: dict[str, Any], text: str) -> list[str]:
    """Fill the schedule again from the embedded deal and compare it with the embedded schedule."""
    from day60 import clauses, rubric

    with tempfile.TemporaryDirectory() as tmp:
        deal_path = Path(tmp) / SOURCES["deal"]
        deal_path.write_bytes(embedded[SOURCES["deal"]])
        try:
            lib = clauses.load_library()
            draft = bool(recorded.get("draft"))
            deal = clauses.load_deal(deal_path, lib, rubric.parameter_ids(rubric.load()), draft=draft)
            fresh = json.loads(json.dumps(clauses.schedule(lib, deal, draft=draft), default=str))
        except InputError as exc:
            return [f"the embedded deal cannot be filled again: {exc}"]
    problems = []
    printed = _printed(text, "Deal file SHA-256")
    actual = _sha(embedded[SOURCES["deal"]])
    if printed != actual or recorded.get("sow_sha256") != actual:
        problems.append(f"the embedded deal file hashes to {actual[:16]}..., but the schedule records "
                        f"{str(recorded.get('sow_sha256'))[:16]}... and the page prints {str(printed)[:16]}...")
    for key in sorted(set(fresh) | set(recorded)):
        if fresh.get(key) != recorded.get(key):
            problems.append(f"the schedule's {key} differs from the one the embedded deal gives")
    return problems


def _hashes(embedded: dict[str, bytes], recorded: dict[str, Any], text: str) -> list[str]:
    problems = []
    printed = {"journal": _printed(text, "Journal SHA-256"), "rubric": _printed(text, "Rubric SHA-256")}
    expected = {"journal": recorded.get("journal_sha256"), "rubric": (recorded.get("rubric") or {}).get("sha256")}
    deal_sha = ((recorded.get("provenance") or {}).get("inputs_sha256") or {}).get("deal")
    if deal_sha:
        expected["deal"] = deal_sha
    for label, digest in expected.items():
        body = embedded.get(SOURCES[label])
        if body is None:
            problems.append(f"the {label} is not embedded")
            continue
        actual = _sha(body)
        if digest != actual:
            problems.append(f"the embedded {label} has SHA-256 {actual[:16]}..., but the score records "
                            f"{str(digest)[:16]}...")
        if label in printed and printed[label] != actual:
            problems.append(f"the page prints {label} SHA-256 {str(printed[label])[:16]}..., but the embedded "
                            f"{label} has {actual[:16]}...")
    return problems


def _printed(text: str, label: str) -> str | None:
    found = re.search(re.escape(label) + r"\s*([0-9a-f]{64})", text)
    return found.group(1) if found else None


def _recompute(embedded: dict[str, bytes], recorded: dict[str, Any], text: str) -> list[str]:
    """Score the embedded journal again and compare the score and every line with the record."""
    from day60 import assess, clauses, rubric
    from day60 import journal as jr

    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        journal_path = Path(tmp) / SOURCES["journal"]
        journal_path.write_bytes(embedded[SOURCES["journal"]])
        try:
            journal = jr.read(journal_path)
            published = rubric.loads(embedded.get(SOURCES["rubric"], b""))
            parameters = None
            if SOURCES["deal"] in embedded:
                deal_path = Path(tmp) / SOURCES["deal"]
                deal_path.write_bytes(embedded[SOURCES["deal"]])
                parameters = clauses.load_deal(deal_path, clauses.load_library(), rubric.parameter_ids(published),
                                               draft=True).parameters
            fresh = assess.score_journal(journal, published, parameters).result
        except InputError as exc:
            return [f"the embedded inputs cannot be scored again: {exc}"]
    return problems + _compare_lines(fresh, recorded, text)

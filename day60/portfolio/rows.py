"""One exercise, one row: the step that reads a journal, computes its figures and score, and
keeps what a portfolio shows. It reads one journal at a time and needs nothing from the others,
so it is the step a firm would spread over many machines (docs/scale.md); ``query`` then
works on the rows alone.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from day60.errors import InputError

SECTIONS = ("drift", "incident", "report")  # the rollback section is split by kind, below
KINDS = ("production", "rehearsal")
ROLLBACK_TIMES = ("decision", "rollback", "requeue")


@dataclass
class Scored:
    """An exercise read and scored: the row, and the parts ``compare`` looks into."""

    row: dict[str, Any]
    result: dict[str, Any]
    summary: dict[str, Any]


def journals(paths: list[Path]) -> list[Path]:
    """The journals named, and every ``*.jsonl`` under each folder named, once each, sorted."""
    out: dict[Path, None] = {}
    for p in paths:
        if p.is_dir():
            for found in sorted(p.rglob("*.jsonl")):
                out.setdefault(found, None)
        else:
            out.setdefault(p, None)
    if not out:
        raise InputError("JOURNAL_OR_DIR", "names no journal", "give journals, or folders holding *.jsonl files")
    return list(out)


def score(path: Path, published: Any = None) -> Scored:
    """Read one journal with every check, score it at its tier against a rubric's defaults (the
    published one unless given)."""
    from day60 import assess, reading, rubric

    published = published or rubric.load()
    journal = reading.read(path)
    done = assess.score_journal(journal, published)
    kind = published.tiers[done.result["tier"]].rollback_kind
    return Scored(row(path, journal, done.result, done.figures.summary, kind), done.result, done.figures.summary)


def score_all(paths: list[Path], advance: Any = None) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Every journal of ``paths`` scored (``score``): the rows, and the journals left out, each with
    its reason. A journal that cannot be read is left out with the problem; a copy of a journal
    already scored (the same SHA-256: a backup beside the original, one file named twice) is one
    exercise, counted once, and the copy is left out naming the first. ``advance()``, if given, is
    called after each journal. Refused when no journal could be read."""
    scored: list[dict[str, Any]] = []
    refused: list[dict[str, Any]] = []
    seen: dict[str, str] = {}  # journal SHA-256 -> the path it was first scored from
    for path in paths:
        try:
            found = score(path).row
        except InputError as exc:
            refused.append({"path": str(path), "problem": str(exc)})
        else:
            first = seen.setdefault(found["journal_sha256"], str(path))
            if first == str(path):
                scored.append(found)
            else:
                refused.append({"path": str(path), "problem": f"the same journal as {first} (SHA-256 "
                                f"{found['journal_sha256'][:12]}...): an exercise is counted once"})
        if advance is not None:
            advance()
    if not scored:
        raise InputError("JOURNAL_OR_DIR", f"no journal could be read ({refused[0]['problem'][:160]})",
                         "give journals made by 'day60 new' (see 'day60 verify')")
    return scored, refused


def provisional(result: dict[str, Any]) -> list[str]:
    """Why a score is provisional (taken before the close, a sealed onset not yet revealed):
    empty when it is final. Read with a default, so a result without the key reads as final only
    because nothing says otherwise; the scorer states the reasons."""
    reasons = result.get("provisional") or []
    return [str(r) for r in reasons] if isinstance(reasons, list | tuple) else [str(reasons)]


def calendar_id(calendar: dict[str, Any]) -> str:
    """The calendar's definition (zone, hours, holiday rule, closures), not the dates resolved
    for one window: two exercises on the same contract calendar share it."""
    plain = {k: v for k, v in calendar.items() if k != "holidays"}
    holidays = {k: v for k, v in (calendar.get("holidays") or {}).items() if k != "resolved"}
    text = json.dumps({**plain, "holidays": holidays}, sort_keys=True)
    return f"{calendar.get('timezone')} {hashlib.sha256(text.encode()).hexdigest()[:12]}"


def row(path: Path, journal: Any, result: dict[str, Any], summary: dict[str, Any],
        rollback_kind: str) -> dict[str, Any]:
    """One exercise's row. ``rollback_kind`` is the kind of rollback its tier's rollback lines
    score (production, rehearsal or none): the rollback section's points go to that kind's
    columns only, so rehearsal and production are never in one column (charter 3.20.4)."""
    header = journal.header
    reasons = provisional(result)
    lines = {line["id"]: line for line in result["lines"]}
    out: dict[str, Any] = {
        "exercise": path.name, "path": str(path), "journal_sha256": journal.sha256,
        "supplier": header["supplier"], "partner": header["partner"], "deployment": header["deployment"],
        "tier": result["tier"], "rubric": f"{result['rubric']['id']} {result['rubric']['version']}",
        "calendar": calendar_id(header["calendar"]), "records": header.get("records", "auditor-held"),
        "synthetic": bool(header.get("synthetic")),
        "window_start": header["window"]["start"], "window_end": header["window"]["end"],
        "score": result["score"],
        "provisional": bool(reasons), "provisional_reasons": "; ".join(reasons) or None,
        "under_dispute_points": float(result.get("under_dispute_points") or 0.0),
        "rollback_scored_kind": rollback_kind,
    }
    for section in SECTIONS:
        mine = [x for x in result["lines"] if x["section"] == section]
        out[f"{section}_earned"] = sum(x["earned"] for x in mine)
        out[f"{section}_points"] = sum(x["points"] for x in mine)
    notice = summary["drift"]["summary"]["notice_business_hours"]
    out["drift_population"] = summary["drift"]["population"]
    out["drift_notice_mean_bh"] = notice.get("mean")
    out["drift_not_detected"] = notice.get("not_detected", 0)
    incidents = summary["incidents"]
    out["incidents_restored"] = incidents["restored"]
    out["incidents_judged"] = sum(incidents[k] for k in ("restored", "unconfirmed", "open", "unclassified",
                                                        "not_detected"))
    restore = lines.get("restore", {})
    shares = [o["share"] for o in (restore.get("figure") or {}).get("observations", [])]
    out["restore_within_target"] = sum(1 for s in shares if s >= 1.0)
    section = [x for x in result["lines"] if x["section"] == "rollback"]
    for kind in KINDS:  # points only in the column of the kind the tier scores; the other is None
        mine = kind == rollback_kind
        out[f"{kind}_rollback_earned"] = sum(x["earned"] for x in section) if mine else None
        out[f"{kind}_rollback_points"] = sum(x["points"] for x in section) if mine else None
    # Rollbacks whose criterion was not met inside the window (or never recorded) are in no
    # column: counted here, so none goes unseen.
    out["rollbacks_apart"] = int(summary["rollbacks"]["outside_window"]["count"])
    for kind in KINDS:  # the charter's figures for each kind, whatever the tier scores (3.20.2)
        block = summary["rollbacks"][kind]
        out[f"{kind}_rollbacks"] = int(block["count"])
        for step in ROLLBACK_TIMES:
            times = block[f"{step}_minutes"]
            timed = int(times.get("count") or 0)
            out[f"{kind}_{step}_timed"] = timed
            out[f"{kind}_{step}_minutes_mean"] = times.get("mean") if timed else None
            out[f"{kind}_{step}_minutes_max"] = times.get("max") if timed else None
    report = lines.get("report-completeness", {})
    figure = report.get("figure") or {} if report.get("status") == "scored" else {}
    lowest = min((p for p in figure.get("periods", []) if p.get("completeness_percent") is not None),
                 key=lambda p: p["completeness_percent"], default=None)
    out["report_completeness_percent"] = figure.get("value")
    out["report_elements_passing"] = lowest["passing"] if lowest else None
    out["report_elements_required"] = lowest["required"] if lowest else None
    return out

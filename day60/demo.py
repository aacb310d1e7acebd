"""The newcomer's first run: a SYNTHETIC Day-60 exercise, its figures, its score and its PDF.

Every name, time and figure here is invented to show the toolkit working. It is labelled
SYNTHETIC in the journal header, in every output file and on every page.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

from day60 import assess, clauses, drills, rubric, selfassess, voice
from day60 import journal as jr
from day60.clock import BusinessCalendar
from day60.display import jsonable
from day60.errors import InputError
from day60.files import read_json
from day60.resources import data_dir, example
from day60.timeparse import localize

MARKER = ".day60-demo"
SOW = data_dir("clauses") / "examples" / "synthetic-sow.toml"
SIGN_OFF = {"agreement": "SYNTHETIC exercise plan v2, signed 2026-09-24", "stop_owner": "Priya Raman (partner ops)",
            "stop_condition": "any misrouted item reaching a customer, or intake error rate above 5%",
            "rollback_owner": "Tom Okafor (supplier on-call)", "no_live_personal_data": True}
SMOKE = {"model_pin": "extract-model 2026-07-14", "prompt_version": "claims-prompts v31",
         "threshold_set": "thresholds 2026-08 (auto 0.92 / review 0.60)"}
OK = {"present": True, "covers_period": True, "supported": True}


def _script() -> list[tuple[str, str, str, dict[str, Any]]]:
    """The exercise, in the order the auditor would have recorded it (local London times)."""
    return [
        ("rollback.criterion-met", "RH-0928", "2026-09-28T15:00", {"kind": "rehearsal"}),
        ("rollback.decision", "RH-0928", "2026-09-28T15:04", {}),
        ("rollback.serving", "RH-0928", "2026-09-28T15:19", {}),
        ("rollback.smoke-pass", "RH-0928", "2026-09-28T15:26", SMOKE),
        ("rollback.requeue-complete", "RH-0928", "2026-09-28T16:10", {}),
        ("safety.agreed", "DRIFT-1", "2026-09-25T11:00", SIGN_OFF),
        ("safety.agreed", "DRIFT-2", "2026-09-25T11:00", SIGN_OFF),
        ("safety.agreed", "INC-1", "2026-09-25T11:00", SIGN_OFF),
        ("safety.agreed", "RB-1", "2026-09-25T11:00", SIGN_OFF),
        ("drift.onset", "DRIFT-1", "2026-09-29T10:12",
         {"affected_class": "handwritten repair estimates (new garage template)"}),
        ("drift.detected", "DRIFT-1", "2026-09-30T09:40", {}),
        ("drift.notice", "DRIFT-1", "2026-09-30T15:05",
         {"affected_class": "handwritten repair estimates (new garage template)",
          "evidence": "field accuracy on the class fell from 96% to 81% over 412 items; dashboard export attached"}),
        ("drift.false-alert", "ALERT-77", "2026-10-01T11:20", {"note": "latency alert withdrawn after 20 minutes"}),
        ("incident.raised", "INC-1", "2026-10-01T09:50", {"note": "intake connector credentials revoked"}),
        ("incident.detected", "INC-1", "2026-10-01T10:07", {"severity": 2}),
        ("incident.communicated", "INC-1", "2026-10-01T10:31", {}),
        ("incident.wait-start", "INC-1", "2026-10-01T11:15", {"note": "waiting on partner to rotate an API key"}),
        ("incident.wait-end", "INC-1", "2026-10-01T13:40", {}),
        ("incident.restored", "INC-1", "2026-10-01T15:20", {"check": "intake canary passed three runs in a row"}),
        ("drift.onset", "DRIFT-2", "2026-10-05T14:00", {"affected_class": "claim forms photographed on phones"}),
        ("incident.partner-notice", "INC-2", "2026-10-06T01:58",
         {"severity": 1, "note": "partner night desk saw the queue stall"}),
        ("incident.detected", "INC-2", "2026-10-06T02:14", {"severity": 1, "source": "organic"}),
        ("incident.communicated", "INC-2", "2026-10-06T02:40", {}),
        ("incident.change-window-start", "INC-2", "2026-10-06T03:00", {"note": "agreed database failover window"}),
        ("incident.change-window-end", "INC-2", "2026-10-06T03:30", {}),
        ("incident.restored", "INC-2", "2026-10-06T05:05", {"check": "queue depth back under SLA for 15 minutes"}),
        ("incident.detected", "INC-3", "2026-10-06T10:00", {"severity": 3, "source": "organic"}),
        ("incident.withdrawn", "INC-3", "2026-10-06T11:30", {"reason": "not reproducible: a partner test batch"}),
        ("report.received", "2026-09", "2026-10-07T10:30", {}),
        ("rollback.criterion-met", "RB-1", "2026-10-07T14:02", {"kind": "production"}),
        ("rollback.decision", "RB-1", "2026-10-07T14:15", {}),
        ("rollback.serving", "RB-1", "2026-10-07T14:33", {}),
        ("rollback.smoke-pass", "RB-1", "2026-10-07T14:41", SMOKE),
        ("rollback.requeue-complete", "RB-1", "2026-10-07T16:05", {}),
        *[("report.element", el, "2026-10-07T16:30", OK) for el in (
            "accuracy-and-stp", "exception-rate", "threshold-changes", "cost-per-document", "drift-both-samples",
            "drift-timestamps", "incidents-by-severity", "rollback-rehearsal")],
        ("report.element", "reviewer-minutes", "2026-10-07T16:30",
         {**OK, "supported": False, "note": "mean given without the number of exceptions it covers"}),
        ("report.element", "rollbacks", "2026-10-07T16:30",
         {**OK, "not_applicable": True, "note": "states 'no rollbacks in September'"}),
        ("report.element", "sla-credits", "2026-10-07T16:30", {**OK, "note": "the element the synthetic deal adds"}),
        ("exercise.close", "exercise", "2026-10-09T17:30", {}),
    ]


def build_journal(path: Path, held: Path | None = None) -> jr.Journal:
    """The SYNTHETIC exercise; its injected onsets sealed into ``held`` (a temporary file when
    none is named) and revealed at the close."""
    cal = BusinessCalendar.load(example("uk-office.toml"))

    def at(text: str) -> dt.datetime:
        return localize(dt.datetime.fromisoformat(text), cal.tz)

    fields = {"partner": "Harbour Claims BPO (SYNTHETIC)", "supplier": "Example AI Operations Ltd (SYNTHETIC)",
              "deployment": "motor claims intake (SYNTHETIC)", "tier": "T3", "runner": "A. Auditor (SYNTHETIC)",
              "calendar": cal.to_dict(), "synthetic": True, "report_elements": ["sla-credits"],
              "window": {"start": at("2026-09-28T09:00").isoformat(), "end": at("2026-10-09T17:30").isoformat()}}
    script = [(k, i, at(t), d) for k, i, t, d in _script()]
    if held is not None:
        return jr.build(path, fields, script, held=held)
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        return jr.build(path, fields, script, held=Path(tmp) / "runner-held.json")


def prepare(out: Path) -> None:
    """Use ``out`` only if it is new, empty, or an earlier demo's folder (never a user's files)."""
    import os

    if os.path.lexists(out) and not os.path.isdir(out):
        raise InputError("--out", f"{out} is not a folder", "choose a new or empty folder")
    try:
        if os.path.isdir(out) and any(out.iterdir()) and not (out / MARKER).exists():
            raise InputError("--out", f"{out} holds files that are not an earlier demo's",
                             "choose a new or empty folder")
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError("--out", f"cannot use {out} ({exc.strerror})", "choose a new or empty folder") from exc
    for name in ("exercise.jsonl", "runner-held.json", "metrics.json", "score.json", "score.pdf", "score.html",
                 "synthetic-sow.toml", "schedule.pdf",
                 "selfassess.jsonl", "selfassess.pdf", "voice-bench.json", "drills.pdf"):
        (out / name).unlink(missing_ok=True)
    (out / MARKER).write_text("written by day60 demo; its contents are SYNTHETIC and replaced on each run\n")


def run(out: Path) -> dict[str, Path]:
    """Write the synthetic exercise and everything computed from it; returns the files."""
    prepare(out)
    from day60 import render
    from day60.evidence import documents
    from day60.evidence.provenance import provenance

    journal = build_journal(out / "exercise.jsonl", out / "runner-held.json")
    published = rubric.load()
    trace = provenance({"journal": journal.sha256, "rubric": published.sha256}, "day60 demo",
                       rubric=f"{published.id} {published.version}")
    done = documents.score_result(journal, published, None, trace)
    figures, result = done.figures, done.result
    files = {"journal": out / "exercise.jsonl", "held": out / "runner-held.json", "metrics": out / "metrics.json",
             "score": out / "score.json",
             "pdf": out / "score.pdf", "html": out / "score.html", "deal": out / "synthetic-sow.toml",
             "schedule": out / "schedule.pdf",
             "selfassess": out / "selfassess.pdf", "sa-journal": out / "selfassess.jsonl",
             "voice": out / "voice-bench.json", "drills": out / "drills.pdf"}
    note = {"synthetic": "SYNTHETIC: invented data demonstrating the toolkit; not a result"}
    files["metrics"].write_text(json.dumps({**note, **jsonable(figures.summary)}, indent=2, sort_keys=True) + "\n")
    files["score"].write_text(json.dumps({**note, **jsonable(result)}, indent=2, sort_keys=True) + "\n")
    pages = {"pdf": documents.score_document(done, files["journal"].read_bytes(), published.raw, None, None,
                                             "Day-60 exercise score (SYNTHETIC demo)")}
    files["html"].write_text(pages["pdf"].html, encoding="utf-8")
    library = clauses.load_library()
    files["deal"].write_bytes(SOW.read_bytes())  # the deal the schedule is filled from, to try comply on
    deal = clauses.load_deal(SOW, library, rubric.parameter_ids(published))
    pages["schedule"] = documents.schedule_document(clauses.schedule(library, deal), SOW.read_bytes())
    pages["selfassess"] = _self_assessment(out)
    pages["drills"] = _voice(files["voice"])
    # Every document is built first, then all are rendered at once (on two cores where there are two).
    rendered = render.pdf_bytes_many([(d.html, d.attachments, dt.datetime.fromisoformat(d.written_at))
                                      for d in pages.values()])
    for key, (body, _pages) in zip(pages, rendered, strict=True):
        files[key].write_bytes(body)
    return files


def _voice(bench: Path) -> Any:
    """The SYNTHETIC starter suite scored on its reference dialogues (written to ``bench``), and the
    SYNTHETIC drill call's document."""
    from day60.evidence import documents
    from day60.evidence.provenance import provenance
    from day60.files import loads_json, read_bytes

    suite = read_json(data_dir("rubric") / "voice" / "voice_starter.json", "suite", "a voice suite")
    artifact = voice.run_suite(suite, None, reference=True)
    bench.write_text(json.dumps(artifact, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    raw = read_bytes(data_dir("rubric") / "voice" / "examples" / "synthetic-drills.json", "observations",
                     "drill observations")
    call = drills.score_call(loads_json(raw, "observations", "drill observations"))
    call["provenance"] = provenance({"observations": raw}, "day60 demo",
                                    drill_rules=f"{call['rules']['id']} {call['rules']['version']}")
    return documents.drills_document(call, raw)


def _self_assessment(out: Path) -> Any:
    """The shipped SYNTHETIC answers file, scored as a BPO would see it: its document."""
    from day60.evidence import documents
    from day60.evidence.provenance import provenance

    qs = selfassess.QuestionSet.load()
    answers = data_dir("selfassess") / "examples" / "synthetic-answers.json"
    ans = selfassess.load_answers(answers, qs)
    done = assess.self_assess(qs, ans, out / "selfassess.jsonl")
    done.result["provenance"] = provenance({"answers": ans.sha256, "journal": done.journal.sha256}, "day60 demo",
                                           rubric=f"{done.result['rubric']['id']} {done.result['rubric']['version']}",
                                           question_set=f"{qs.id} {qs.version}")
    return documents.selfassess_document(done, answers.read_bytes(), (out / "selfassess.jsonl").read_bytes(), None,
                                         "Day-60 self-assessment (SYNTHETIC demo)")


def next_steps(out: Path) -> list[tuple[str, str]]:
    """The three commands a newcomer tries next on the demo's own files, and why."""
    import shlex

    journal = shlex.quote(str(out / "exercise.jsonl"))
    return [
        (f"day60 metrics {journal}", "the charter's figures behind the score, each with its count and exclusions"),
        (f"day60 verify-report {shlex.quote(str(out / 'score.pdf'))}",
         "the PDF carries its inputs: recompute it from them and compare"),
        (f"day60 comply {journal} --sow {shlex.quote(str(out / 'synthetic-sow.toml'))}",
         "the same figures against the synthetic deal's clauses: met, not met or not run"),
    ]


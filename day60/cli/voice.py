"""Voice episodes, suites, time to first token and live-call drills."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from day60.cli.base import (
    FORMAT_HELP,
    _check_compat,
    _check_format,
    _footer,
    _provenance,
    print_json,
    print_table,
    voice_app,
)


@voice_app.command("score")
def voice_score(
    dialogue: Path = typer.Argument(..., help="A dialogue: a JSON list of turns."),
    max_latency_ms: float = typer.Option(1200, "--max-latency-ms", help="Reply budget after the caller stops."),
    require: list[str] = typer.Option([], "--require", help="A keyword the agent must say; repeatable."),
    fmt: str = typer.Option("table", "--format", help=FORMAT_HELP),
    compat: str = typer.Option("day60", "--compat", metavar="day60|reference",
                               help="reference: reproduce the reference harness's coercions "
                                    "(docs/voice.md lists each)."),
) -> None:
    """Score one episode: latency, turn-taking, barge-in, content, and the verdict.

    Example: day60 voice score call.json --max-latency-ms 1000 --require refund --require "30 day"
    """
    from day60 import voice
    from day60.display import voice_basis

    _check_format(fmt)
    _check_compat(compat)
    result = voice.score_episode(voice.load_json(dialogue, "DIALOGUE"), max_latency_ms, require, compat=compat)
    if fmt == "json":
        print_json(result)
        return
    if result["pass_fail"]["voice"] is None:
        typer.echo(f"{result['raw']['note']} (neither a pass nor a fail)")
        return
    verdict = "pass" if result["pass_fail"]["voice"] else "fail"
    typer.echo(f"{verdict}: scalar {result['scalar']:.3f} (every sub-score must reach 0.75)")
    if not result["components"]:  # the reference's fail of an empty transcript: no sub-score to show
        typer.echo(f"no sub-score: {result['raw'].get('note') or 'the dialogue holds no turn'}")
        return
    floors = result["pass_fail"]
    basis = voice_basis(result["raw"])
    print_table([{"sub-score": k, "value": f"{v:.3f}", "floor met": "yes" if floors[f"{k}_floor"] else "no",
                  "counted over": basis[k]} for k, v in result["components"].items()])
    raw = result["raw"]
    if raw.get("keywords_missing"):
        typer.echo("missing keywords: " + ", ".join(raw["keywords_missing"]))


@voice_app.command("bench")
def voice_bench(
    suite: Path = typer.Argument(..., help="A voice suite (agent-learning.bench-suite.v1, control voice)."),
    submission: Path = typer.Option(None, "--submission", help="JSON {task_id: dialogue}."),
    reference: bool = typer.Option(False, "--reference", help="Score each task's own reference dialogue."),
    out: Path = typer.Option(..., "--out", help="Where to write the artifact JSON."),
    compat: str = typer.Option("day60", "--compat", metavar="day60|reference",
                               help="reference: reproduce the reference harness's coercions "
                                    "(docs/voice.md lists each)."),
) -> None:
    """Run a voice suite and write the artifact: per-task verdicts and an honest aggregate.

    Example: day60 voice bench rubric/voice/voice_starter.json --reference --out bench-voice.json
    """
    from day60 import display, files, voice
    from day60.errors import InputError

    files.check_outputs({"--out": out}, [("SUITE", suite), ("--submission", submission)])
    _check_compat(compat)
    if bool(submission) == reference:
        raise InputError("--submission", "give exactly one of --submission or --reference",
                         "pass a submission file, or --reference to score the suite's own dialogues")
    sub = voice.load_json(submission, "--submission") if submission else None
    artifact = voice.run_suite(voice.load_json(suite, "SUITE"), sub, reference, compat)
    artifact["provenance"] = _provenance({"suite": Path(suite), "submission": Path(submission) if submission else None})
    if artifact.get("synthetic"):
        typer.echo("SYNTHETIC: the suite's dialogues are invented, not recordings; this is not a result")
    files.write_atomic(out, json.dumps(display.jsonable(artifact), indent=2, sort_keys=True, allow_nan=False) + "\n",
                       "--out")
    a = artifact["aggregate"]
    typer.echo(f"{a['passed']} of {a['scored']} scored task(s) passed; {a['void']} void; wrote {out}")
    for row in artifact["per_task"]:
        typer.echo(f"  {row['task_id']}: {row['verdict']}" + (f" ({row['reason']})" if row.get("reason") else ""))
    if artifact["unknown_submission_keys"]:
        typer.echo("submission keys that name no task: " + ", ".join(artifact["unknown_submission_keys"]), err=True)


@voice_app.command("ttft")
def voice_ttft(
    dialogues: list[Path] = typer.Argument(..., help="One or more dialogue files (one contact each)."),
    fmt: str = typer.Option("table", "--format", help=FORMAT_HELP),
) -> None:
    """Time to first token (charter 3.13): p50, p95, p99 by nearest rank, mean, max, count.

    Example: day60 voice ttft calls/*.json
    """
    from day60 import voice
    from day60.display import num

    _check_format(fmt)
    result = voice.ttft([(str(p), voice.load_json(p, "DIALOGUE")) for p in dialogues])
    if fmt == "json":
        print_json(result)
        return
    typer.echo(f"{result['dialogues']} dialogue(s); caller end from: {', '.join(result['endpointing'])}")
    if not result["pooled"]:
        typer.echo(f"not pooled: {result['pooled_reason']}")
    table = []
    for source, part in result["by_endpointing"].items():  # one source's figures never mixed with another's
        rows = [("replies", part["replies"]), ("tool-call replies", part["tool_calls"]),
                ("filler replies", part["filler"]["ttft"]),
                ("first substantive", part["filler"]["first_substantive"])]
        table += [{"caller end from": source, "population": name, "n": d["count"], "p50": num(d["p50"], 0, "ms"),
                   "p95": num(d["p95"], 0, "ms"), "p99": num(d["p99"], 0, "ms"), "mean": num(d["mean"], 0, "ms"),
                   "max": num(d["max"], 0, "ms"), "note": d.get("reason", "")} for name, d in rows]
    print_table(table)
    filler = result["filler"]
    if filler["during_tool"] or filler["unanswered"]:
        typer.echo(f"holding phrases: {filler['during_tool']} while a tool ran (their wait to the answer is the "
                   f"first substantive time); {filler['unanswered']} never followed by an answer before the caller "
                   "spoke again")
    opened = [o for o in result["opening_turns"] if o["ms"] is not None]
    typer.echo(f"opening turns, reported apart: {len(result['opening_turns'])} ({len(opened)} after a caller turn)")
    ex = result["excluded"]
    typer.echo(f"excluded and counted: {ex['overlapping_replies']} replies that overlapped the caller, "
               f"{ex['continuations']} agent continuations (not replies)")


@voice_app.command("drills")
def voice_drills(
    observations: Path = typer.Argument(..., help="One call's drill observations (JSON)."),
    fmt: str = typer.Option("table", "--format", help=FORMAT_HELP),
    pdf: Path = typer.Option(None, "--pdf", help="Write the drill report as PDF."),
    html: Path = typer.Option(None, "--html", help="Write the same drill report as HTML, for a browser."),
) -> None:
    """Score a live call's recorded drill observations, fifteen drills, each 0 to 100.

    Example: day60 voice drills synthetic-drills.json --pdf drills.pdf
    (a SYNTHETIC call: day60 examples synthetic-drills --copy .)
    """
    from day60 import drills, files
    from day60.display import num, parts

    _check_format(fmt)
    files.check_outputs({"--pdf": pdf, "--html": html}, [("OBSERVATIONS", observations)])
    raw = files.read_bytes(observations, "OBSERVATIONS", "a voice JSON file")  # read once: scored, hashed, embedded
    result = drills.score_call(files.loads_json(raw, "OBSERVATIONS", "a voice JSON file", str(observations)))
    result["provenance"] = _provenance({"observations": raw},
                                       drill_rules=f"{result['rules']['id']} {result['rules']['version']}")
    if fmt == "json":
        print_json(result)
    else:
        call = result["call"]
        mark = "  SYNTHETIC" if result["synthetic"] else ""
        typer.echo(f"call {call.get('id', '?')}: {call.get('agent', '')}{mark}")
        print_table([{"drill": name, "status": d["status"], "score": num(d["score"], 1),
                      "built from": parts(d["parts"]), "notes": "; ".join(d["notes"])}
                     for name, d in result["drills"].items()])
        s = result["summary"]
        _footer(result["provenance"])
        zeros = s["unmeasured_as_zero"] and f" ({', '.join(s['unmeasured_as_zero'])} unmeasured, counted as zero)"
        typer.echo(f"mean of the {len(s['covers'])} scored drill(s){zeros or ''}: {num(s['mean_of_scored'], 1)}; "
                   f"not in that mean: {', '.join(s['not_covered']) or 'none'}")
    if pdf or html:
        from day60.evidence import documents

        document = documents.drills_document(result, raw)
        body, pages = documents.pdf_bytes(document) if pdf else (b"", 0)  # made before anything is written
        if html:
            files.write_atomic(html, document.html, "--html")
            typer.echo(f"wrote {html}", err=True)
        if pdf:
            files.write_atomic(pdf, body, "--pdf")
            typer.echo(f"wrote {pdf} ({pages} pages; verify it with 'day60 verify-report {pdf}')", err=True)

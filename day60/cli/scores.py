"""Scores and their documents: score, verify-report and the demo."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import typer

from day60.cli import base
from day60.cli.base import (
    FORMAT_HELP,
    _check_format,
    _footer,
    _provenance,
    _warn_calendar,
    _warn_partial,
    app,
    print_json,
    print_table,
)


@app.command()
def score(
    journal: Path = typer.Argument(..., help="The exercise journal."),
    rubric_file: Path = typer.Option(None, "--rubric", help="Rubric YAML (default: the shipped day60-v1)."),
    sow: Path = typer.Option(None, "--sow", help="Deal file whose [parameters] set the targets."),
    fmt: str = typer.Option("table", "--format", help=FORMAT_HELP),
    pdf: Path = typer.Option(None, "--pdf", help="Write the score report as PDF here."),
    html: Path = typer.Option(None, "--html", help="Write the same report as HTML here."),
    out: Path = typer.Option(None, "--out", help="Write the score as JSON here (a new file)."),
    supersede: Path = typer.Option(None, "--supersede", metavar="OLD",
                                   help="The earlier score of this journal that this one replaces: its score JSON "
                                        "or its score report PDF; it is named and embedded, never overwritten."),
    sign_with: Path = typer.Option(None, "--sign", metavar="KEY.p12",
                                   help="Sign the PDF with your own certificate; the passphrase comes from "
                                        "DAY60_SIGN_PASSPHRASE or a prompt, never a flag."),
    tsa: str = typer.Option(None, "--tsa", metavar="URL",
                            help="An RFC 3161 timestamp authority: with --sign the signature carries its "
                                 "timestamp (PAdES B-T), alone the PDF gets a document timestamp."),
    parties_differ: bool = typer.Option(False, "--parties-differ",
                                        help="Score with --sow although the deal names other parties than the "
                                             "journal; every output then says so."),
) -> None:
    """Score an exercise 0 to 100 against the published rubric, the tier beside it.

    Example: day60 score ex.jsonl --pdf score.pdf
    """
    from day60 import clauses, reading, rubric
    from day60.errors import InputError
    from day60.evidence import documents, sign, timestamp
    from day60.evidence import supersede as superseding

    _check_format(fmt)
    inputs = [("JOURNAL", journal), ("--rubric", rubric_file), ("--sow", sow), ("--supersede", supersede)]
    superseding.check_outputs({"--pdf": pdf, "--html": html, "--out": out}, inputs, supersede is not None)
    if tsa is not None:
        timestamp.check_url(tsa)
        if pdf is None:
            raise InputError("--tsa", "timestamps the PDF report", "add --pdf OUT")
    passphrase = _passphrase(sign_with, pdf)
    signer = sign.load_signer(sign_with, passphrase) if sign_with else None  # before any work: a bad key writes nothing
    published = rubric.load(rubric_file)
    deal = None
    if sow:  # the deal file is checked whole, then the rubric takes the targets it reads
        deal = clauses.load_deal(sow, clauses.load_library(), rubric.parameter_ids(published), draft=True)
    from day60.cli import progress

    with progress.stage(f"reading {journal.name}") as step:  # a spinner on stderr, at a terminal, if it is slow
        j = reading.read(journal, events=True)  # a large journal is checked on the engine, every event listed
        _warn_partial(j)
        _warn_calendar(deal, j)
        _parties(deal, j, parties_differ)
        old = superseding.load(supersede, j, published, deal) if supersede is not None else None
        provenance = _provenance({"journal": j.sha256, "rubric": published.sha256,
                                  "deal": deal.sha256 if deal else None}, rubric=f"{published.id} {published.version}")
        step("computing the figures and the score")
        done = documents.score_result(j, published, deal, provenance, old, str(supersede))
        step("writing the report")
        scored = reading.read_back(j, "scored") if pdf or html else None  # the bytes a report embeds
        documents.write_score(done, scored, published, deal, old, out, html, pdf, signer, tsa,
                              _wrote)  # nothing printed if it fails
    _emit_score(done.result, fmt)


def _wrote(path: Path, detail: str) -> None:
    typer.echo(f"wrote {path}{detail}", err=True)


def _parties(deal: Any, j: Any, allowed: bool) -> str | None:
    """``clauses.parties_allowed`` (refused unless told to go on), said loudly when allowed."""
    from day60 import clauses

    problem = clauses.parties_allowed(deal, j.header, allowed)
    if problem:
        typer.echo(f"warning: the deal and the journal name different parties: {problem}", err=True)
    return problem


def _passphrase(p12: Path | None, pdf: Path | None) -> bytes:
    """The signing passphrase, asked for before any work: from the environment, or a hidden prompt."""
    if p12 is None:
        return b""
    from day60.errors import InputError
    from day60.evidence.sign import PASSPHRASE_VARIABLE

    if pdf is None:
        raise InputError("--sign", "signs the PDF report", "add --pdf OUT")
    if PASSPHRASE_VARIABLE in os.environ:
        return os.environ[PASSPHRASE_VARIABLE].encode("utf-8")
    if not base._interactive():
        raise InputError("--sign", "needs the key's passphrase", f"set {PASSPHRASE_VARIABLE}, or run on a terminal "
                                                                  "to be asked for it")
    return typer.prompt("Passphrase for the signing key", hide_input=True, default="", show_default=False).encode()


def _emit_score(result: dict[str, Any], fmt: str) -> None:
    from day60.display import line_figure, num, plain_number, sided, stack_repeats

    if fmt == "json":
        print_json(result)
        return
    mark = "  SYNTHETIC" if result["synthetic"] else ""
    shown = "" if result["tier_check"]["met"] else ", tier not demonstrated: " + "; ".join(
        result["tier_check"]["problems"])
    if result.get("provisional"):
        typer.echo(f"PROVISIONAL: {'; '.join(result['provisional'])}")
    floor = result.get("deal_floor")
    # against the deal's floor, as many decimals as keep the score on its side of it (charter 3.1.5)
    figure = sided(result["score"], floor["floor"], "floor", 1) if floor else num(result["score"], 1)
    headline = f"{figure} of 100" if result["score"] is not None else result["score_reason"]
    disputed = f" ({num(result['under_dispute_points'], 1)} points under dispute)" \
        if result.get("under_dispute_points") else ""
    typer.echo(f"score {headline}{disputed}, tier {result['tier']} ({result['tier_name']}){shown}{mark}")
    if floor:
        typer.echo(f"against the deal's floor of {plain_number(floor['floor'])} at tier {floor['tier']}: "
                   f"{floor['verdict']}"
                   + (f" ({floor['reason']})" if floor.get("reason") else ""))
    typer.echo(f"rubric {result['rubric']['id']} {result['rubric']['version']}; targets: {result['targets']}")
    rows = [{"line": line["id"], "points": num(line["points"], 0), "earned": num(line["earned"], 2),
             "status": line["status"], "figure": line_figure(line), "reason": line["reason"] or ""}
            for line in result["lines"]]
    # lines in a row that were not run for one reason are one row: each line named, the reason said once
    print_table(stack_repeats(rows, ("status", "figure", "reason"), ("line", "points", "earned")))
    for d in result.get("disputes", []):
        state = f"resolved: {d['outcome']}" if d["outcome"] else "open: the line reads under dispute"
        self_ = " (a self-dispute)" if d["self_dispute"] else ""
        role = f"the {d['role']}" if d.get("role") else "a role not recorded"
        typer.echo(f"dispute seq {d['seq']} of {d['line']} by {d['raised_by']} as {role}, {d['organisation']}{self_}: "
                   f"{state}")
    head = result.get("journal_head")
    if head:
        typer.echo(f"journal head {head['seq']}:{head['hash']} (check later with 'day60 verify --expect')")
    if result.get("provenance"):
        _footer(result["provenance"])


@app.command()
def demo(out: Path = typer.Option(Path("day60-demo"), "--out", help="Folder for the demo's files.")) -> None:
    """Run a whole SYNTHETIC Day-60 exercise: journal, figures, score and PDF.

    Example: day60 demo --out /tmp/day60-demo
    """
    from day60 import demo as demo_run

    files = demo_run.run(out)
    result = json.loads(files["score"].read_text())
    from day60.display import num

    typer.echo(f"SYNTHETIC demo: invented data, not a result. Score {num(result['score'], 1)} of 100 at tier "
               f"{result['tier']}.")
    for label, path in files.items():
        typer.echo(f"  {label:10} {path}")
    typer.echo(f"\nOpen {files['pdf']} first: page 1 answers what the score is and why. Then try:")
    for command, why in demo_run.next_steps(out):
        typer.echo(f"  {command}\n      {why}")

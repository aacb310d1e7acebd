"""The afternoon self-assessment: the interview and its answers-file twin."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import typer

from day60.cli import base
from day60.cli.base import (
    FORMAT_HELP,
    _check_format,
    _provenance,
    app,
    print_json,
)
from day60.cli.scores import _emit_score, _write_documents


@app.command()
def selfassess(
    answers: Path = typer.Option(None, "--answers", help="Run from a saved or hand-written answers file."),
    save: Path = typer.Option(None, "--save", help="Where the interview saves answers after every question."),
    resume: Path = typer.Option(None, "--resume", help="Continue an interrupted interview from its answers file."),
    journal_out: Path = typer.Option(None, "--journal", help="Also keep the journal built from the answers."),
    fmt: str = typer.Option("table", "--format", help=FORMAT_HELP),
    pdf: Path = typer.Option(None, "--pdf", help="Write the self-assessment report as PDF."),
    html: Path = typer.Option(None, "--html", help="Write the same report as HTML."),
) -> None:
    """The afternoon self-assessment of your supplier, from its own records, capped at tier T2.

    On a terminal it interviews you; its non-interactive twin is --answers FILE.

    Example: day60 selfassess --answers selfassess/examples/synthetic-answers.json --pdf self.pdf
    """
    from day60 import files
    from day60 import selfassess as sa
    from day60.errors import InputError

    _check_format(fmt)
    files.check_outputs({"--pdf": pdf, "--html": html, "--journal": journal_out},
                        [("--answers", answers), ("--resume", resume), ("--save", save)])
    qs = sa.QuestionSet.load()
    if answers and (save or resume):
        raise InputError("--answers", "cannot be combined with --save or --resume", "use one way in")
    if answers:
        ans = sa.load_answers(answers, qs)
    else:
        if not base._interactive():
            raise InputError("selfassess", "needs a terminal for the interview",
                             "run it with --answers FILE (see selfassess/examples/)")
        if resume:
            ans = sa.load_answers(resume, qs, "--resume")
        else:
            target = save or Path("day60-selfassess-answers.json")
            if os.path.lexists(target):
                raise InputError("--save", f"{target} already exists", f"continue it with --resume {target}")
            ans = sa.Answers(target)
        from day60.interview import run_interview

        if not run_interview(qs, ans, typer.echo):
            return
    _selfassess_result(qs, ans, journal_out, fmt, pdf, html)


def _selfassess_result(qs: Any, ans: Any, journal_out: Path | None, fmt: str, pdf: Path | None,
                       html: Path | None) -> None:
    import tempfile

    from day60 import assess
    from day60.errors import InputError

    if journal_out and os.path.lexists(journal_out):
        raise InputError("--journal", f"{journal_out} already exists", "journals are never overwritten")
    with tempfile.TemporaryDirectory() as tmp:
        done = assess.self_assess(qs, ans, journal_out or Path(tmp) / "selfassess.jsonl")
        result = done.result
        result["provenance"] = _provenance({"answers": ans.sha256, "journal": done.journal.sha256},
                                           rubric=f"{result['rubric']['id']} {result['rubric']['version']}",
                                           question_set=f"{qs.id} {qs.version}")
        if fmt == "json":
            print_json(result)
        else:
            _emit_score(result, fmt)
            typer.echo(f"({result['tier_note']}: injected drift and production rollbacks need a production "
                       "change and cannot be scored here)")
            for note in result["not_assessed"]:
                typer.echo(f"not assessed: {note}")
            if result["ask_supplier_for"]:
                typer.echo("ask your supplier for:")
                for item in result["ask_supplier_for"]:
                    typer.echo(f"  - {item}")
        from day60.display import jsonable
        from day60.evidence.report import selfassess_attachments

        attachments = selfassess_attachments(Path(ans.path).read_bytes(), jsonable(result)) if pdf else None
        _write_documents(done.journal, done.figures, result, pdf, html, title="Day-60 self-assessment",
                         attachments=attachments)

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
from day60.cli.scores import _emit_score


@app.command()
def selfassess(
    answers: Path = typer.Option(None, "--answers", help="Run from a saved or hand-written answers file."),
    save: Path = typer.Option(None, "--save", help="Where the interview saves answers after every question."),
    resume: Path = typer.Option(None, "--resume", help="Continue an interrupted interview from its answers file."),
    journal_out: Path = typer.Option(None, "--journal", help="Also keep the journal built from the answers."),
    fmt: str = typer.Option("table", "--format", help=FORMAT_HELP),
    pdf: Path = typer.Option(None, "--pdf", help="Write the self-assessment report as PDF."),
    html: Path = typer.Option(None, "--html", help="Write the same report as HTML."),
    sow: Path = typer.Option(None, "--sow", help="The deal file: its targets, and its calendar if you answer "
                                                 "'deal' for the calendar."),
    tickets: list[str] = typer.Option(None, "--tickets", metavar="FORMAT:FILE",
                                      help="Take the incidents from a ticket export (repeat for each file of it); "
                                           "see 'day60 import --list-formats'."),
    map_path: Path = typer.Option(None, "--map", help="With --tickets: the export's map (see 'day60 import')."),
    severity_map: str = typer.Option(None, "--severity-map", metavar="VALUE=SEV,...",
                                     help="With --tickets: each vendor priority to a deal severity."),
    zone: str = typer.Option(None, "--zone", metavar="ZONE", help="With --tickets: the zone of times without an "
                                                                   "offset."),
    mode: str = typer.Option(None, "--mode", metavar="raw|display", help="With --tickets servicenow: its export "
                                                                          "mode."),
) -> None:
    """The afternoon self-assessment of your supplier, from its own records, capped at tier T2.

    On a terminal it interviews you; its non-interactive twin is --answers FILE.

    Example: day60 selfassess --answers synthetic-answers.json --pdf self.pdf
    (a complete SYNTHETIC answers file: day60 examples synthetic-answers --copy .)
    """
    from day60 import files
    from day60 import selfassess as sa
    from day60.errors import InputError

    _check_format(fmt)
    ticket_files = _ticket_files(tickets or [])
    files.check_outputs({"--pdf": pdf, "--html": html, "--journal": journal_out},
                        [("--answers", answers), ("--resume", resume), ("--save", save), ("--sow", sow),
                         ("--map", map_path), *(("--tickets", f) for f in ticket_files[1])])
    if not tickets and (map_path or severity_map or zone or mode):
        raise InputError("--map, --severity-map, --zone, --mode", "describe a ticket export, and none was given",
                         "add --tickets FORMAT:FILE, or drop them")
    qs = sa.QuestionSet.load()
    if answers and (save or resume):
        raise InputError("--answers", "cannot be combined with --save or --resume", "use one way in")
    deal = deal_calendar = None
    if sow:
        from day60 import clauses, rubric

        deal = clauses.load_deal(sow, clauses.load_library(), rubric.parameter_ids(rubric.load()), draft=True)
        deal_calendar = deal.calendar
    ticket_spec = None
    if tickets:
        from day60 import imports

        ticket_spec = sa.Tickets(ticket_files[0], ticket_files[1],
                                 imports.settings(map_path, severity_map, zone, mode, None))
    if answers:
        ans = sa.load_answers(answers, qs, deal_calendar=deal_calendar)
        sa.match_tickets(ans, ticket_spec)
    else:
        if not base._interactive():
            raise InputError("selfassess", "needs a terminal for the interview",
                             "run it with --answers FILE ('day60 examples synthetic-answers --copy .' gives a "
                             "complete one)")
        if resume:
            ans = sa.load_answers(resume, qs, "--resume", deal_calendar=deal_calendar)
            sa.match_tickets(ans, ticket_spec)
        else:
            target = save or Path("day60-selfassess-answers.json")
            if os.path.lexists(target):
                raise InputError("--save", f"{target} already exists", f"continue it with --resume {target}")
            ans = sa.Answers(target, deal_calendar=deal_calendar)
            if ticket_spec is not None:
                ans.answers[sa.TICKETS] = sa.tickets_record(ticket_spec)
        from day60.interview import run_interview

        if not run_interview(qs, ans, typer.echo):
            return
    _selfassess_result(qs, ans, journal_out, fmt, pdf, html, ticket_spec, deal)


def _ticket_files(specs: list[str]) -> tuple[str | None, list[Path]]:
    """``FORMAT:FILE`` options: one format, one or more files."""
    from day60.errors import InputError

    formats, paths = set(), []
    for spec in specs:
        fmt, sep, name = spec.partition(":")
        if not sep or not fmt or not name:
            raise InputError("--tickets", f"{spec[:60]!r} is not FORMAT:FILE", "write e.g. --tickets "
                                                                                "servicenow:incident.csv")
        formats.add(fmt)
        paths.append(Path(name))
    if len(formats) > 1:
        raise InputError("--tickets", f"mixes formats ({', '.join(sorted(formats))})", "give one export's files")
    return (formats.pop() if formats else None), paths


def _selfassess_result(qs: Any, ans: Any, journal_out: Path | None, fmt: str, pdf: Path | None,
                       html: Path | None, tickets: Any = None, deal: Any = None) -> None:
    import tempfile

    from day60 import assess, files, reading
    from day60 import journal as jr

    files.check_outputs({"--journal": journal_out}, new="journals are never overwritten")
    with tempfile.TemporaryDirectory() as tmp:  # built aside: a refusal half-way leaves no journal behind
        with jr.working_journal():  # no note naming a journal in a folder the user never sees
            done = assess.self_assess(qs, ans, Path(tmp) / "selfassess.jsonl", tickets,
                                      deal.parameters if deal else None)
        result = done.result
        result["provenance"] = _provenance({"answers": ans.sha256, "journal": done.journal.sha256,
                                            "deal": deal.sha256 if deal else None,
                                            **{f["file"]: f["sha256"] for f in
                                               (ans.answers.get("_tickets") or {}).get("files", [])}},
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
        # Everything is built in memory before anything is written, from one reading of the journal
        # assessed: a refusal on the way (the journal changed, a --journal that appeared meanwhile)
        # leaves no report or journal behind, and the journal kept is the one the report carries.
        from day60.files import write_atomic

        kept = reading.read_back(done.journal, "assessed") if (pdf or html or journal_out) else b""
        document = body = None
        if pdf or html:
            from day60.evidence import documents

            document = documents.selfassess_document(done, Path(ans.path).read_bytes(), kept,
                                                     deal.raw if deal else None, "Day-60 self-assessment")
            if pdf:
                body, pages = documents.pdf_bytes(document)
        if journal_out:  # linked into place: a file of that name that appeared meanwhile is never replaced
            write_atomic(journal_out, kept, "--journal", new=True)
            typer.echo(f"wrote {journal_out}", err=True)
        if html:
            write_atomic(html, document.html, "--html")
            typer.echo(f"wrote {html}", err=True)
        if pdf:
            write_atomic(pdf, body, "--pdf")
            typer.echo(f"wrote {pdf} ({pages} pages)", err=True)

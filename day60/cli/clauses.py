"""The clause library, the schedule export and compliance checks."""

from __future__ import annotations

from pathlib import Path

import typer

from day60.cli.base import (
    FORMAT_HELP,
    _check_format,
    _footer,
    _provenance,
    _rubric_ids,
    _warn_calendar,
    _warn_partial,
    app,
    clauses_app,
    print_json,
    print_table,
    write_page,
)


@clauses_app.command("list")
def clauses_list(fmt: str = typer.Option("table", "--format", help=FORMAT_HELP)) -> None:
    """Every clause with its charter section and typed parameters, then the commercial modules a
    deal may add (under [modules] include).

    Example: day60 clauses list --format json
    """
    from day60 import clauses

    _check_format(fmt)
    lib = clauses.load_library()
    rows = clauses.listing(lib)
    if fmt == "json":
        print_json(rows)
        return
    typer.echo(f"clause library {lib.id} {lib.version}: {len(lib.clauses)} clauses, {len(lib.parts)} modules")
    duties = clauses.duties(lib)
    print_table([{"id": r["id"], "section": r["section"] or r["kind"], "title": r["title"],
                  "parameters": ", ".join(p["id"] for p in r["parameters"])
                  or ("none (a reporting duty with no threshold)" if r["id"] in duties else "none")} for r in rows])


@clauses_app.command("show")
def clauses_show(clause_id: str = typer.Argument(..., help="A clause or module id from 'day60 clauses list'.")) -> None:
    """A clause's or module's text with its parameters as named blanks, and its definitions.

    Example: day60 clauses show drift-lead-time
    """
    from day60 import clauses

    lib = clauses.load_library()
    c = clauses.part(lib, clause_id)
    where = f"charter {c.section}; " if isinstance(c, clauses.Clause) else "commercial module; "
    typer.echo(f"{c.title} ({where}library {lib.id} {lib.version}; numbered as in a schedule holding every clause "
               "and module)\n")
    typer.echo(clauses.clause_text(lib, c, clauses.blanks(c), {}))
    typer.echo("")
    if isinstance(c, clauses.Module):
        for term in c.terms:
            typer.echo(f"defines {term}")
    else:
        for key, value in c.definitions.model_dump().items():
            typer.echo(f"{key}: {value}")
    typer.echo("\nparameters:" + ("" if c.parameters else " none"))
    for p in c.parameters:
        bounds = ", ".join(f"{k} {v:g}" for k, v in (("at least", p.min), ("at most", p.max)) if v is not None)
        fixed = f"; {p.fixed_note}" if p.fixed is not None else ""
        choices = f"; one of {', '.join(p.choices)}" if p.choices else ""
        typer.echo(f"  {p.id} ({p.unit}{'; ' + bounds if bounds else ''}{fixed}{choices}): {p.description}")
    if isinstance(c, clauses.Module):
        return
    typer.echo("checks:")
    for check in c.checks:
        typer.echo(f"  {check.figure}: " + (f"reported, in {clauses.TYPES[check.unit]}, with no threshold (a reporting "
                                            "duty)" if check.comparator == "report"
                                            else f"{check.comparator} {check.parameter}")
                   + f"; measured by the {check.measured_by}, each {clauses.PERIODS[check.period]}")
    if c.requires:
        typer.echo(f"stands or falls with: {', '.join(c.requires)}")


@clauses_app.command("export")
def clauses_export(
    sow: Path = typer.Option(..., "--sow", help="The deal file (TOML)."),
    pdf: Path = typer.Option(None, "--pdf", help="Write the schedule as PDF."),
    md: Path = typer.Option(None, "--md", help="Write the schedule as Markdown."),
    html: Path = typer.Option(None, "--html", help="Write the schedule as HTML."),
    docx: Path = typer.Option(None, "--docx", help="Write the schedule as an editable Word file."),
    draft: bool = typer.Option(False, "--draft", help="Allow unfilled parameters; watermark every page DRAFT."),
    sign_with: Path = typer.Option(None, "--sign", metavar="KEY.p12",
                                   help="Sign the PDF with your own certificate (passphrase from "
                                        "DAY60_SIGN_PASSPHRASE or a prompt)."),
    tsa: str = typer.Option(None, "--tsa", metavar="URL",
                            help="An RFC 3161 timestamp authority for the PDF (with --sign: PAdES B-T)."),
    force: bool = typer.Option(False, "--force", help="Replace a Word file that differs from a clean export (an "
                                                      "edited or negotiated copy) all the same."),
) -> None:
    """The clause schedule with the deal's values filled in. Prints Markdown when no file is named.
    A Word file already at --docx that is not a clean export of this deal (edited, with tracked
    changes, or not day60's) is kept unless --force: compare it first with 'day60 clauses diff'.

    Example: day60 clauses export --sow synthetic-sow.toml --pdf schedule.pdf
    (the SYNTHETIC deal: day60 examples synthetic-deal --copy .)
    """
    from day60 import clauses, files, render, wordread
    from day60.cli.scores import _passphrase
    from day60.errors import InputError
    from day60.evidence import documents, sign, timestamp

    files.check_outputs({"--pdf": pdf, "--md": md, "--html": html, "--docx": docx}, [("--sow", sow)])
    for option, path, endings in (("--pdf", pdf, (".pdf",)), ("--md", md, (".md", ".markdown")),
                                  ("--html", html, (".html", ".htm")), ("--docx", docx, (".docx",))):
        if path is not None and not path.name.casefold().endswith(endings):
            raise InputError(option, f"{path.name} does not end in {' or '.join(endings)}, so it would hold another "
                                     "format than its name says", f"name the {option[2:].upper()} file *{endings[0]}")
    if tsa is not None:
        timestamp.check_url(tsa)
        if pdf is None:
            raise InputError("--tsa", "timestamps the PDF schedule", "add --pdf OUT")
    signer = sign.load_signer(sign_with, _passphrase(sign_with, pdf)) if sign_with else None
    lib = clauses.load_library()
    deal = clauses.load_deal(sow, lib, _rubric_ids(), draft=draft)
    s = clauses.schedule(lib, deal, draft=draft)
    note = clauses.credit_weights_note(deal)
    if note:
        typer.echo(f"note: {note}", err=True)
    if not (pdf or md or html or docx):
        typer.echo(render.html("schedule.md.j2", {"s": s}))
        return
    if docx is not None:
        wordread.keep_an_edited_copy(lib, deal, s, docx, force)
    body = None
    document = documents.schedule_document(s, deal.raw, signer.identity() if signer else None, tsa)
    if pdf:  # built, signed and timestamped before anything is written
        raw, pages = documents.pdf_bytes(document)
        body = documents.finish(raw, signer, tsa)
    if docx:
        render.docx(s, docx, language=s["language"], written_at=document.written_at)
        typer.echo(f"wrote {docx}", err=True)
    if md:
        files.write_atomic(md, render.html("schedule.md.j2", {"s": s}), "--md")
        typer.echo(f"wrote {md}", err=True)
    if html:
        files.write_atomic(html, document.html, "--html")
        typer.echo(f"wrote {html}", err=True)
    if pdf:
        files.write_atomic(pdf, body, "--pdf")
        done_with = (f", signed by {signer.subject}" if signer else "") + (f", timestamped by {tsa}" if tsa else "")
        typer.echo(f"wrote {pdf} ({pages} pages{done_with})", err=True)


@clauses_app.command("diff")
def clauses_diff(
    docx: Path = typer.Argument(..., metavar="DOCX", help="A Word schedule exported with --docx, as edited."),
    sow: Path = typer.Option(..., "--sow", help="The deal file (TOML) to compare it with."),
    fmt: str = typer.Option("table", "--format", help=FORMAT_HELP),
) -> None:
    """How an edited Word schedule differs from a fresh export of a deal file, over the whole
    document: values changed (expected: the deal file's; found: the copy's property, with the
    deal-file line that carries it back, or "cannot read" where the text is not exactly a value the
    deal file accepts), properties added, the copy's record of its deal file, values and
    cross-references shown other than they should be, every paragraph and table cell reworded, gone
    or added, fields pointed elsewhere, hidden text. Exit 0 when the copy says what the deal file
    does, 1 when it differs.

    Example: day60 clauses diff --sow synthetic-sow.toml schedule-edited.docx
    """
    from day60 import clauses, wordread

    _check_format(fmt)
    lib = clauses.load_library()
    deal = clauses.load_deal(sow, lib, _rubric_ids(), draft=True)
    copy = wordread.read(docx)
    found = wordread.compare(lib, deal, clauses.schedule(lib, deal, draft=True), copy)
    if fmt == "json":
        print_json(found)
    else:
        for note in found["notes"]:
            typer.echo(f"note: {note}")
        diffs = found["differences"]
        typer.echo(f"{docx.name} against {sow.name}: " + (f"{len(diffs)} difference(s)" if diffs else
                                                            "no difference: the copy says what the deal file does"))
        print_table([{"difference": d["kind"], "what": d["name"] or "", "where": d["where"],
                      "expected": "" if d["expected"] is None else d["expected"],
                      "found": "" if d["found"] is None else d["found"], "to bring it back": d["bring_back"]}
                     for d in diffs])
    if found["differences"]:
        raise typer.Exit(1)


@app.command()
def comply(
    journal: Path = typer.Argument(None, help="An exercise journal supplying the Day-60 figures."),
    sow: Path = typer.Option(None, "--sow", help="The deal file (TOML)."),
    figures: Path = typer.Option(None, "--figures", help='JSON {"<check id>": {"value": x, "n": count}}.'),
    fmt: str = typer.Option("table", "--format", help=FORMAT_HELP),
    list_checks: bool = typer.Option(False, "--list-checks", help="List every check id, its clause, unit and "
                                                                   "threshold (the deal's, with --sow)."),
    parties_differ: bool = typer.Option(False, "--parties-differ",
                                        help="Check a journal against a deal naming other parties; the output "
                                             "says so."),
    pdf: Path = typer.Option(None, "--pdf", help="Also write the compliance table as a PDF, with its provenance."),
    html: Path = typer.Option(None, "--html", help="Also write the same compliance table as HTML, for a browser."),
    charges: float = typer.Option(None, "--charges", metavar="AMOUNT",
                                  help="The period's Monthly Charges, in the deal's currency: Service Credits "
                                       "are then given as money (else as a share of the charges)."),
) -> None:
    """Check measured figures against the deal's clauses: met, not met, not run, or reported. Exit 1 if any is not met.

    With the deal's commercial modules it also works out what follows: Service Credits, Critical
    Failures and whether the termination right arises, relief, and the Hypercare Period, saying
    what it cannot work out from the figures given.

    Example: day60 comply --sow deal.toml --figures measured.json --charges 85000
    """
    from day60 import clauses, compliance

    _check_format(fmt)
    lib = clauses.load_library()
    if list_checks:
        deal = clauses.load_deal(sow, lib, _rubric_ids(), draft=True) if sow else None
        listed = clauses.check_ids(lib, deal)
        if fmt == "json":
            print_json(listed)
        else:
            # A reported-only check (false-containment) has no deal parameter: "-", never "None".
            print_table([{**{k: "" if v is None else v for k, v in c.items()},
                          "parameter": "-" if c["parameter"] is None else c["parameter"]} for c in listed])
        return
    charges = compliance.check_inputs(sow, journal, figures, charges, {"--pdf": pdf, "--html": html})
    deal = clauses.load_deal(sow, lib, _rubric_ids(), draft=True)
    j = mismatch = None
    if figures:
        done = compliance.check(lib, deal, figures=figures, charges=charges)
    else:
        from day60 import reading
        from day60.cli import progress
        from day60.cli.scores import _parties

        with progress.stage(f"reading {journal.name}") as step:  # a spinner on stderr, at a terminal, if slow
            j = reading.read(journal)
            _warn_partial(j)
            _warn_calendar(deal, j)
            mismatch = _parties(deal, j, parties_differ)
            step("computing the figures")
            done = compliance.check(lib, deal, journal=j, charges=charges)
    for note in done.ignored:
        typer.echo(f"note: {note}", err=True)
    rows, after = done.rows, done.consequences
    trace = _provenance({"deal": Path(sow), "figures": Path(figures) if figures else None,
                         "journal": j.sha256 if j else None}, clause_library=f"{lib.id} {lib.version}")
    parties = {"parties_differ": mismatch} if mismatch else {}
    if parties and fmt != "json":
        typer.echo(f"WARNING: the deal and the journal name different parties: {mismatch}")
    if fmt == "json":
        print_json({"checks": [{k: r[k] for k in ("clause", "check", "status", "value", "display", "threshold", "n",
                                                  "reason")} for r in rows], "provenance": trace, **parties,
                    **({"consequences": after} if after else {}),
                    **({"synthetic": compliance.SYNTHETIC} if done.synthetic else {})})
    else:
        if done.synthetic:
            typer.echo(compliance.SYNTHETIC)
        counts = done.counts
        typer.echo(f"{len(rows)} check(s): {counts['met']} met, {counts['not met']} not met, "
                   f"{counts['not run']} not run, {counts['tier not demonstrated']} tier not demonstrated, "
                   f"{done.duties} reporting dut{'y' if done.duties == 1 else 'ies'} reported, "
                   f"{counts['triggered']} reporting trigger(s) reached (figures from {done.source})")
        from day60.display import threshold_words

        print_table([{"clause": r["clause"], "check": r["check"], "status": r["status"], "figure": r["display"],
                      "n": r["n"] if r["n"] is not None else "",
                      "threshold": threshold_words(r),
                      "reason": r["reason"] or ""} for r in rows])
        if after:
            _print_consequences(after, str(deal.deal.get("currency", "")))
        _footer(trace)
    if pdf is not None or html is not None:
        from day60 import render
        from day60.display import threshold_words as words

        currency = str(deal.deal.get("currency", ""))
        page = render.html("comply.html.j2", {
            "deal": deal.deal, "rows": [{**r, "threshold_words": words(r)} for r in rows], "counts": done.counts,
            "source": done.source, "synthetic": done.synthetic, "parties_differ": mismatch, "provenance": trace,
            "library": f"{lib.id} {lib.version}",
            "consequences": compliance.consequence_lines(after, currency) if after else None,
            "consequence_titles": compliance.consequence_titles(after) if after else None})
        write_page(page, pdf, html)
    if done.failed:
        raise typer.Exit(1)


def _print_consequences(after: dict, currency: str) -> None:
    from day60.compliance import consequence_lines, consequence_titles

    lines = consequence_lines(after, currency)
    for key, title in consequence_titles(after).items():
        if lines[key]:
            typer.echo(f"\n{title}:")
            for line in lines[key]:
                typer.echo(f"  - {line}")

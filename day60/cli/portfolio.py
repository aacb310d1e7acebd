"""Many exercises at once: ``day60 portfolio`` and ``day60 compare``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from day60.cli.base import _check_format, _footer, _provenance, app, print_json, print_table, write_page

ROLLBACK_COLUMNS = [f"{kind}_{name}" for kind in ("production", "rehearsal") for name in (
    "rollback_earned", "rollback_points", "rollbacks", "decision_timed", "decision_minutes_mean",
    "decision_minutes_max", "rollback_timed", "rollback_minutes_mean", "rollback_minutes_max", "requeue_timed",
    "requeue_minutes_mean", "requeue_minutes_max")]
COLUMNS = ["exercise", "supplier", "partner", "deployment", "tier", "rubric", "calendar", "records", "synthetic",
           "window_start", "window_end", "score", "provisional", "provisional_reasons", "under_dispute_points",
           "drift_earned", "drift_points", "incident_earned", "incident_points", "report_earned", "report_points",
           "rollback_scored_kind", *ROLLBACK_COLUMNS, "rollbacks_apart",
           "drift_population", "drift_notice_mean_bh", "drift_not_detected", "incidents_judged",
           "incidents_restored", "restore_within_target",
           "report_completeness_percent", "report_elements_passing", "report_elements_required",
           "supplier_exercises", "exercise_at_tier", "journal_sha256", "path"]


@app.command()
def portfolio(
    paths: list[Path] = typer.Argument(..., metavar="JOURNAL_OR_DIR...", help="Journals, or folders of them."),
    fmt: str = typer.Option("table", "--format", metavar="table|json|csv", help="How to print the rows."),
    pdf: Path = typer.Option(None, "--pdf", help="Write the portfolio, with each supplier's trends, as PDF."),
    html: Path = typer.Option(None, "--html", help="Write the same portfolio as HTML, for a browser."),
    parquet: Path = typer.Option(None, "--parquet", help="Also write the rows as Parquet, for shared storage."),
) -> None:
    """Many exercises at once: one row per exercise, grouped by supplier, each scored at its own tier.

    A journal that cannot be read is listed with the reason and has no row.

    Example: day60 portfolio exercises/ --pdf portfolio.pdf
    """
    from day60 import files
    from day60.portfolio import query, rows

    _check_format(fmt, ("table", "json", "csv"))
    found = rows.journals(paths)
    files.check_outputs({"--pdf": pdf, "--html": html, "--parquet": parquet}, [("JOURNAL", p) for p in found])
    from day60.cli import progress

    with progress.bar("scoring journals", total=len(found), unit="journals") as shown:  # stderr, a terminal only
        scored, refused = rows.score_all(found, shown.advance)
    table = query.portfolio(scored)
    trace = _provenance({r["path"]: r["journal_sha256"] for r in table})
    if parquet:
        query.to_parquet(table, parquet)
        typer.echo(f"wrote {parquet}", err=True)
    if pdf or html:
        from day60 import render

        write_page(render.portfolio_html(table, refused, trace), pdf, html)
    if fmt == "json":
        print_json({"exercises": table, "refused": refused, "provenance": trace})
    elif fmt == "csv":
        _csv(table)
    else:
        _print_portfolio(table, refused)
        _footer(trace)


def _csv(table: list[dict[str, Any]]) -> None:
    import csv
    import sys

    from day60.display import csv_cell

    writer = csv.DictWriter(sys.stdout, COLUMNS, extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    for row in table:
        writer.writerow({k: "" if row.get(k) is None else csv_cell(row[k]) for k in COLUMNS})


def _print_portfolio(table: list[dict[str, Any]], refused: list[dict[str, Any]]) -> None:
    from day60.portfolio import words

    supplier = None
    for row in table:
        if row["supplier"] != supplier:
            supplier = row["supplier"]
            mine = [r for r in table if r["supplier"] == supplier]
            typer.echo(f"\n{supplier}: {len(mine)} exercise(s)")
            print_table([{"exercise": r["exercise"], "deployment": r["deployment"], "tier": r["tier"],
                          "window": f"{r['window_start'][:10]} to {r['window_end'][:10]}",
                          "score": words.row_score(r) + (" SYNTHETIC" if r["synthetic"] else ""),
                          "production rollbacks": f"{words.rollback_points(r, 'production')}; "
                                                  f"{words.rollback_figure(r, 'production')}",
                          "rehearsals": f"{words.rollback_points(r, 'rehearsal')}; "
                                        f"{words.rollback_figure(r, 'rehearsal')}",
                          "other key figures": words.key_figures(r)} for r in mine])
    for row in table:
        if row["provisional"]:
            typer.echo(f"PROVISIONAL: {row['exercise']}: {row['provisional_reasons']}")
    typer.echo("\nScores are comparable only at the same tier (charter 4.5); each is on the rubric's defaults. "
               "Production rollbacks and rehearsals are counted and scored apart (charter 3.20.4).")
    for item in refused:
        typer.echo(f"left out: {item['path']}: {item['problem']}")


@app.command()
def compare(
    old: Path = typer.Argument(..., metavar="OLD", help="The earlier exercise's journal."),
    new: Path = typer.Argument(..., metavar="NEW", help="The later exercise's journal."),
    fmt: str = typer.Option("table", "--format", metavar="table|json", help="How to print the comparison."),
    pdf: Path = typer.Option(None, "--pdf", help="Write the comparison as PDF."),
    html: Path = typer.Option(None, "--html", help="Write the same comparison as HTML, for a browser."),
    old_rubric: Path = typer.Option(None, "--old-rubric", help="The rubric OLD was scored on, if not the current."),
    new_rubric: Path = typer.Option(None, "--new-rubric", help="The rubric NEW is scored on, if not the current."),
) -> None:
    """Two exercises of one deployment side by side: each figure old and new, its target and change.

    Rates change in percentage points, times in percent (charter 3.1.6); scores from different
    tiers are never subtracted (charter 4.5), and a banner says what else differs.

    Example: day60 compare march.jsonl june.jsonl --pdf compare.pdf
    """
    from day60 import files, rubric
    from day60.errors import InputError
    from day60.portfolio import rows
    from day60.portfolio.compare import compare as side_by_side

    _check_format(fmt)
    if old.resolve() == new.resolve():
        raise InputError("NEW", "is the same journal as OLD", "give two exercises")
    files.check_outputs({"--pdf": pdf, "--html": html}, [("OLD", old), ("NEW", new), ("--old-rubric", old_rubric),
                                                         ("--new-rubric", new_rubric)])
    result = side_by_side(rows.score(old, rubric.load(old_rubric)), rows.score(new, rubric.load(new_rubric)))
    result["provenance"] = _provenance({"old": result["old"]["journal_sha256"], "new": result["new"]["journal_sha256"]})
    if pdf or html:
        from day60 import render

        write_page(render.compare_html(result, result["provenance"]), pdf, html)
    if fmt == "json":
        print_json(result)
        return
    _print_compare(result)
    _footer(result["provenance"])


def _print_compare(c: dict[str, Any]) -> None:
    from day60.portfolio import words

    for text in c["banner"]:
        typer.echo(f"note: {text}")
    typer.echo(words.score_line(c))
    print_table([{"figure": f["figure"], "old": words.value(f, "old"), "new": words.value(f, "new"),
                  "target": words.target(f), "change": words.change(f), "sample": words.sample(f),
                  "points": words.points(f)} for f in c["figures"]])
    typer.echo(f"newly exercised: {', '.join(c['newly_exercised']) or 'none'}; no longer exercised: "
               f"{', '.join(c['no_longer_exercised']) or 'none'}")

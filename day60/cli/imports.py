"""Supplier records in: ``day60 import``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from day60.cli.base import FORMAT_HELP, _check_format, _footer, _provenance, app, print_json, print_table

SHOWN = 20  # rows of each list a table prints; --format json and --csv carry them all
RECONCILE_COLUMNS = ["ticket", "ours_hours", "vendor_hours", "difference_hours", "ours_business_hours",
                     "vendor_business_hours", "difference_business_hours", "agree", "reopens", "clock_start",
                     "vendor_measure", "reasons", "note", "beside"]
# How a file --csv wrote begins: the only existing file --csv replaces (files.check_outputs, own=).
RECONCILE_HEAD = (",".join(RECONCILE_COLUMNS[:4]) + ",").encode()


@app.command("import")
def import_(
    fmt: str = typer.Argument(None, metavar="FORMAT", help="servicenow, jira, zendesk, pagerduty or csv."),
    exports: list[Path] = typer.Argument(None, metavar="EXPORT...", help="The vendor's export files."),
    journal: Path = typer.Option(None, "--journal", help="The journal to append to (made by 'day60 new')."),
    map_path: Path = typer.Option(None, "--map", help="A TOML map: [times], [columns], [pauses], [severity], "
                                                      "[outcomes], [notes], [sla], [changes], [integrations]."),
    severity_map: str = typer.Option(None, "--severity-map", metavar="VALUE=SEV,...",
                                     help="Each vendor priority to a deal severity 1-4, unclassified or skip."),
    zone: str = typer.Option(None, "--zone", metavar="ZONE", help="IANA zone of times written without an offset."),
    mode: str = typer.Option(None, "--mode", metavar="raw|display",
                             help="ServiceNow: raw (UTC database values) or display (the user's zone)."),
    date_format: str = typer.Option(None, "--date-format", metavar="STRPTIME",
                                    help="How the export writes times that are not ISO 8601."),
    encoding: str = typer.Option(None, "--encoding", metavar="CODEC",
                                 help="The CSV's encoding (e.g. cp1252, utf-16), where the one found is not it."),
    delimiter: str = typer.Option(None, "--delimiter", metavar=", ; tab |",
                                  help="The CSV's delimiter, where the header line does not tell it."),
    sheet: str = typer.Option(None, "--sheet", metavar="NAME", help="An XLSX workbook's sheet (default: the first)."),
    csv_out: Path = typer.Option(None, "--csv", help="Write the per-ticket reconciliation with the vendor's "
                                                     "own durations, and the reasons they differ, as CSV."),
    list_formats: bool = typer.Option(False, "--list-formats", help="List the formats and what each reads."),
    out_format: str = typer.Option("table", "--format", help=FORMAT_HELP),
) -> None:
    """Append a supplier's ticket export to a journal as organic incidents.

    Every readable ticket becomes incident events; every record of every file lands in one
    counted bucket (imported, skipped, unreadable, unmatched, in conflict), never dropped;
    re-importing the same export adds nothing. A repeated ticket id, a broken quote, or an
    export in which no ticket can be imported refuses the whole import (exit 2), nothing written.
    CSV is read in the encoding and delimiter found (said in the output) or stated; XLSX from its
    first sheet or --sheet.

    Example: day60 import servicenow incident.csv sys_audit.csv --journal deal.jsonl --mode raw
    --severity-map '1=1,2=2,3=3,4=4,5=skip'
    """
    from day60 import files, imports
    from day60.errors import InputError

    _check_format(out_format)
    if list_formats:
        rows = imports.list_formats()
        print_json(rows) if out_format == "json" else print_table(rows)
        return
    missing = [name for name, value in (("FORMAT", fmt), ("EXPORT", exports), ("--journal", journal)) if not value]
    if missing:
        raise InputError(", ".join(missing), "missing", "give the format, the export file(s) and --journal "
                                                         "(see 'day60 import --list-formats')")
    imports.check_mode(fmt, mode)
    inputs = [("EXPORT", p) for p in exports] + [("--journal", journal), ("--map", map_path)]
    files.check_outputs({"--csv": csv_out}, inputs, own={"--csv": RECONCILE_HEAD})
    config = imports.settings(map_path, severity_map, zone, mode, date_format, encoding, delimiter, sheet)
    from day60.cli import progress

    with progress.bar("importing tickets", unit="records read") as shown:  # on stderr, at a terminal only
        done = imports.run_import(fmt, list(exports), journal, config, progress.import_callback(shown))
    result = done.as_dict()
    result["provenance"] = _provenance({f["file"]: f["sha256"] for f in result["exports"]},
                                       journal_head=f"{result['head']['seq']}:{result['head']['hash']}",
                                       state_rules=result["states"])  # which states.yaml read the states
    if csv_out:
        _write_reconcile(csv_out, done.reconciliation.rows())
    if out_format == "json":
        from day60.imports.spool import Streamed

        rec = done.reconciliation  # every ticket's row, built as it is written: a year's rows are never held
        result["reconcile"] = {**rec.summary, "tickets": Streamed(rec.n, rec.rows)} if rec.n else dict(rec.summary)
        print_json(result)
        return
    _print_result(result, done.reconciliation.shown(SHOWN))
    _footer(result["provenance"])


def _write_reconcile(path: Path, rows: Any) -> None:
    """Every ticket's row to ``path`` as CSV, streamed (a year of tickets is never held as text)."""
    import csv
    import io

    from day60.display import csv_cell
    from day60.files import write_atomic

    columns = RECONCILE_COLUMNS

    def cell(row: dict[str, Any], k: str) -> str:
        if k == "reasons":
            return csv_cell("; ".join(row[k]))
        if k == "beside":
            return csv_cell(beside_text(row[k]))
        return "" if row.get(k) is None else csv_cell(row[k])

    def chunks() -> Any:
        buf = io.StringIO()
        writer = csv.DictWriter(buf, columns, extrasaction="ignore", lineterminator="\n")
        writer.writeheader()
        for n, row in enumerate(rows, start=1):
            writer.writerow({k: cell(row, k) for k in columns})
            if n % 10_000 == 0:
                yield buf.getvalue()
                buf.seek(0)
                buf.truncate()
        yield buf.getvalue()

    write_atomic(path, chunks(), "--csv")


def beside_text(entries: list[dict[str, Any]]) -> str:
    """The vendor's further figures beside ours, in one cell: "waiting on you: theirs 24.00 h, ours
    1.00 h (reasons)"."""
    def hours(value: float | None) -> str:
        return "none" if value is None else f"{value:.2f} h"

    return "; ".join(f"{e['figure']}: theirs {e['vendor_hours']:.2f} h, ours {hours(e['ours_hours'])}"
                     + (f" ({'; '.join(e['reasons'])})" if e["reasons"] else "") for e in entries)


def _listed(title: str, items: list[dict[str, Any]], line: Any) -> None:
    if not items:
        return
    typer.echo(f"{title}: {len(items)}")
    for item in items[:SHOWN]:
        typer.echo(f"  - {line(item)}")
    if len(items) > SHOWN:
        typer.echo(f"  ... and {len(items) - SHOWN} more (all of them with --format json)")


def _read_as(exports: list[dict[str, Any]]) -> None:
    """What each table export was read as: encoding and delimiter, or the workbook's sheet."""
    from day60.imports.tabular import Layout

    for f in exports:
        if "read_as" in f:
            typer.echo(f"read {f['file']} as {Layout(**f['read_as']).describe()}")


def _print_result(r: dict[str, Any], shown: list[dict[str, Any]]) -> None:
    from day60 import imports
    from day60.display import num

    counted = imports.totals(r)
    records, tickets = counted["records"], counted["tickets"]
    typer.echo(f"{r['format']} export: {records} record(s) read from {len(r['files'])} file(s) (each file's in the "
               f"table below), holding {tickets} ticket(s): {len(r['imported'])} imported, "
               f"{len(r['extended'])} with new events added, {len(r['unchanged'])} already in the journal, "
               f"{len(r['skipped'])} left out, {len(r['conflicts'])} in conflict; besides them "
               f"{len(r['unreadable'])} row(s) unreadable, {len(r['unmatched'])} record group(s) for tickets the "
               "export does not hold")
    typer.echo(f"{r['events']} event(s) appended to {r['journal']} (head {r['head']['seq']}:{r['head']['hash']})")
    _read_as(r["exports"])
    typer.echo("every record of every file, in one bucket (read = imported + skipped + unreadable + unmatched + in "
               "conflict):")
    print_table([{"file": b["file"], "read": b["read"], "imported": b["imported"], "skipped": b["skipped"],
                  "unreadable": b["unreadable"], "unmatched": b["unmatched"], "in conflict": b["conflicts"]}
                 for b in r["files"]])
    for b in r["files"]:
        for why, n in list(b["skipped_reasons"].items())[:SHOWN]:
            typer.echo(f"  {b['file']}: {n} skipped: {why}")
    _listed("unreadable rows, not imported", r["unreadable"],
            lambda u: f"{u['where']}{' (' + u['ref'] + ')' if u['ref'] else ''}: {u['reason']}")
    _listed("in conflict with the journal, not imported", r["conflicts"],
            lambda c: f"{c['ticket']} ({c['where']}): {c['reason']}; correct the journal with 'day60 correct', "
                      "or import into a new journal")
    _listed("left out, counted apart and never scored (deleted, merged, not an incident, or the severity map's "
            "skip)", r["skipped"], lambda s: f"{s['ticket']} ({s['where']}): {s['reason']}")
    _listed("records for tickets the export does not hold (unmatched)", r["unmatched"],
            lambda u: f"{u['ticket']}: {u['records']} record(s) of {u['what']} in {u['file']}")
    f = r["findings"]
    _listed("withdrawn (raised and withdrawn as not reproducible): counted apart, in no figure (charter 3.19.5)",
            f["withdrawn"], lambda x: f"{x['ticket']}: {x['reason']}")
    _listed("excluded under the contract: counted apart, in no figure (charter 3.19.5)", f["excluded"],
            lambda x: f"{x['ticket']}: {x['reason']}")
    _listed("resolved with no monitoring evidence: not counted as restored (charter 3.19.4)",
            f["resolved_unconfirmed"], lambda x: f"{x['ticket']} ({x['state']}) at {x['at']}")
    _listed("closed without a resolution", f["closed_unresolved"],
            lambda x: f"{x['ticket']} ({x['state']}) at {x['at']}")
    _listed("closed, time not evidenced: the records say it is over but hold no time for it, so its restore reads "
            "not evidenced (never open)", f["closed_untimed"],
            lambda x: f"{x['ticket']} ({x['state']}), not before {x['not_before']}")
    _listed("neither restored nor closed in the export", f["open"], lambda x: f"{x['ticket']} ({x['state']})")
    _listed("re-opened: the clock runs to the last confirmed restore (charter 3.19.4)", f["reopened"],
            lambda x: f"{x['ticket']}: {x['reopens']} re-open(s) in the records"
                      + (f" ({x['vendor_count']} by the vendor's own count)" if x["vendor_count"] else "")
                      + (f", last confirmed restore {x['last_restore']}" if x["last_restore"]
                         else ", no confirmed restore since"))
    _listed("records that look distorted: look at them before relying on their figures", f["distorted"],
            lambda x: f"{x['ticket']}: {'; '.join(x['why'])}")
    kept = counted["in_journal"]
    if f["clock_from_opening"]:
        typer.echo(f"clock started at the ticket's opening, standing in for a detection time the export lacks: "
                   f"{len(f['clock_from_opening'])} of {kept} ticket(s) in the journal, each marked so (charter "
                   "3.19.3 starts the clock at the earlier of detection and your notice; map a detection column "
                   "to use it)")
    if f["clock_from_notice"]:
        typer.echo(f"clock started at your notice, the export holding no detection time: "
                   f"{len(f['clock_from_notice'])} of {kept} ticket(s) (no detection is assumed)")
    _listed("on hold for the supplier's own reasons: counted, not excluded", f["kept_pauses"],
            lambda x: f"{x['ticket']} {x['label']} from {x['start']} ({num(x['hours'], 2, unit='h')})")
    for p in r["note_patterns"]:
        if not p["matched"]:
            typer.echo(f"note pattern {p['event']} ({p['pattern'][:60]!r}) matched no note: check it against the "
                       "export's notes")
    _listed("notes", f["notes"], lambda x: (f"{x['ticket']}: " if x["ticket"] else "") + x["note"])
    rec = r["reconcile"]
    if "reason" in rec:
        typer.echo(f"reconciliation: not run ({rec.get('reason')})")
        return
    largest = rec["largest"]
    typer.echo(f"\nour restore figure beside the vendor's own, on the vendor's clock (agreeing within "
               f"{rec['tolerance_seconds']} s): {rec['compared']} compared, {rec['agree']} agree, "
               f"{rec['differ']} differ"
               + (f", largest difference {num(largest['hours'], 2, unit='h')} ({largest['ticket']})" if largest else "")
               + (f"; {rec['not_compared']} not compared" if rec["not_compared"] else ""))
    typer.echo("ours: the earlier of detection and your notice to the last confirmed restore, less waits on you and "
               "agreed change windows; theirs: " + "; ".join(rec["measures"]))
    rows = shown  # the first of the tickets that differ or were not compared; --csv and json carry all

    def hours(value: float | None, unit: str, absent: str) -> str:
        return absent if value is None else num(value, 2, unit=unit)

    print_table([{"ticket": t["ticket"], "ours": hours(t["ours_hours"], "h", "-"),
                  "theirs": hours(t["vendor_hours"], "h", "-"),
                  "ours (business)": hours(t["ours_business_hours"], "bh", "-"),
                  "theirs (business)": hours(t["vendor_business_hours"], "bh", "-"),
                  "why": "; ".join(filter(None, ["; ".join(t["reasons"]) or t["note"] or "",
                                                 beside_text(t["beside"])]))} for t in rows[:SHOWN]])
    listed = rec["differ"] + rec["not_compared"]
    if listed > SHOWN:
        typer.echo(f"... and {listed - SHOWN} more (all of them with --csv or --format json)")

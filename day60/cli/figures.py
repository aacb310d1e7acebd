"""The charter figures of a journal, as a table, JSON or CSV."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer

from day60.cli.base import (
    _check_format,
    _footer,
    _provenance,
    _warn_partial,
    app,
    print_json,
    print_table,
)


@app.command()
def metrics(
    journal: Path = typer.Argument(..., help="The exercise journal."),
    fmt: str = typer.Option("table", "--format", metavar="table|json|csv",
                            help="table (rounded), json (unrounded) or csv (one file a table)."),
    out: Path = typer.Option(None, "--out", metavar="FOLDER",
                             help="Existing folder for the csv files (default: the current folder)."),
) -> None:
    """Charter figures from a journal: drift lead time, time to restore, rollback, report completeness.

    Example: day60 metrics ex.jsonl --format json
    """
    from day60 import files, reading
    from day60 import metrics as mx
    from day60.errors import InputError

    _check_format(fmt, ("table", "json", "csv"))
    targets: dict[str, Path] = {}
    if fmt == "csv":
        stem = Path(journal).stem  # one file a table, and what the csv files came from
        targets = files.folder_outputs(out or Path("."), {**{name: f"{stem}-{name}.csv" for name in mx.TABLES},
                                                          "provenance": f"{stem}-provenance.json"},
                                       "--out", [("JOURNAL", journal)])
    elif out:
        raise InputError("--out", "is only for --format csv", "drop --out, or add --format csv")
    from day60.cli import progress

    with progress.stage(f"reading {Path(journal).name}") as step:  # a spinner on stderr, at a terminal, if slow
        j = reading.read(journal)
        _warn_partial(j)
        step("computing the figures")
        figures = mx.compute(j)
    j.incidents = None  # the engine's tables (if it read the journal): closed now, their memory back for the output
    trace = _provenance({"journal": j.sha256})
    synthetic = {"synthetic": "SYNTHETIC: invented data, not a result"} if j.header.get("synthetic") else {}
    if fmt == "json":
        from day60.jsonrows import Rows

        # one row an incident, encoded in bulk and written a slice at a time (print_json)
        rows = Rows(figures.tables["incidents"], list(mx.INCIDENT_ROW))
        summary = {**figures.summary, "incidents": {**figures.summary["incidents"], "observations": rows}}
        print_json({**synthetic, **summary, "head": j.head, "provenance": trace})
    elif fmt == "csv":
        from day60.display import csv_frame

        for name, table in figures.tables.items():
            files.write_atomic(targets[name], csv_frame(mx.plain_table(table)).to_csv(index=False), "--out")
            typer.echo(f"wrote {targets[name]} ({len(table)} {'row' if len(table) == 1 else 'rows'})", err=True)
        files.write_atomic(targets["provenance"], json.dumps({**synthetic, "provenance": trace,
                                                               "files": [targets[n].name for n in mx.TABLES]},
                                                              indent=2, sort_keys=True) + "\n", "--out")
        typer.echo(f"wrote {targets['provenance']}", err=True)
    else:
        if synthetic:
            typer.echo("SYNTHETIC: invented data, not a result\n")
        _print_metrics(figures.summary, figures)
        typer.echo(f"\njournal {j.sha256[:16]}..., head {j.head['seq']}:{j.head['hash']}")
        _footer(trace)


def _false_claims(d: dict[str, Any]) -> str:
    """The supplier's own claims among the false alerts (wrong, early, repeated, rejected: charter
    3.18.4), and those still waiting for an auditor's acceptance, which move no figure yet."""
    fc = d.get("false_claims") or {}
    parts = [f"{len(fc[k])} {k.replace('_', ' ')}" for k in ("no_drift", "early", "wrong_class", "repeated",
                                                                "rejected") if fc.get(k)]
    return f" (of them the supplier's own claims: {', '.join(parts)})" if parts else ""


def _print_metrics(s: dict[str, Any], figures: Any) -> None:
    from day60 import metrics as mx
    from day60.display import merge_missing, num, percent, stat

    w = s["window"]
    typer.echo(f"window {w['start']} to {w['end']}: {num(w['hours'])} h, {num(w['business_hours'])} business h"
               + ("" if w["closed"] else " (not closed)"))
    d = s["drift"]
    typer.echo(f"\nDRIFT LEAD TIME (charter 3.18): {d['population']} observation(s) with the onset in the window: "
               f"{d['notified']} notified, {d['not_detected']} not detected within the window; counted apart: "
               f"{d['sealed']} sealed, {d['open']} open, {d['outside_window']} outside the window, {d['stopped']} "
               f"stopped, {d['excluded']['announced']} announced, {d['excluded']['told']} told; "
               f"false alerts {d['false_alerts']}{_false_claims(d)}")
    c = s.get("claims") or {}
    if c.get("listed"):
        pending = [x["seq"] for x in c["listed"] if x["status"] == "pending"]
        typer.echo("CLAIMS (the supplier's, and the stop owner's stops; roles/permissions-v1.yaml): "
                   f"{c['accepted']} accepted, {c['rejected']} rejected, {c['pending']} awaiting an auditor's "
                   "acceptance, which count in no figure yet"
                   + (f" (seq {', '.join(map(str, pending[:10]))}{', ...' if len(pending) > 10 else ''}; "
                      "'day60 accept')" if pending else ""))
    def lead(o: dict[str, Any], key: str, unit: str) -> str:
        # A scored drift with no time has the charter's words, not "not run": it was not detected.
        if o[key] is None and o["status"] in ("notified", "not detected within the window"):
            return "not detected"
        return num(o[key], unit=unit)

    print_table([{"id": o["id"], "status": o["status"], "detection": lead(o, "detection_hours", "h"),
                  "detection (business)": lead(o, "detection_business_hours", "bh"),
                  "notice": lead(o, "notice_hours", "h"),
                  "notice (business)": lead(o, "notice_business_hours", "bh"),
                  "note": o["reason"] or ""} for o in d["observations"]])
    leads = [(f"{label} lead time", words, stat(d["summary"][key], unit))
             for key, label, words, unit in (("notice_hours", "notice", "hours", "h"),
                                             ("notice_business_hours", "notice", "business hours", "bh"),
                                             ("detection_hours", "detection", "hours", "h"),
                                             ("detection_business_hours", "detection", "business hours", "bh"))]
    for label, text in merge_missing(leads):  # one reason, said once, for the figures it stops
        typer.echo(f"  {label}: {text}")
    i = s["incidents"]
    none = i["no_severity"]
    # restored and open here count the incidents with no severity too (the JSON's 'unclassified'
    # bucket): every count below is a column of the table, each incident in one row of it
    typer.echo(f"\nTIME TO RESTORE (charter 3.19): {i['population']} incident(s): "
               f"{i['restored'] + none['restored']} restored, "
               f"{i['unconfirmed']} closed with no monitoring check confirming a restore, "
               f"{i['not_evidenced']} not evidenced (closed at a time the records do not show), "
               f"{i['open'] + none['open']} open at the close, {i['not_detected']} raised "
               f"but never detected; counted apart: {i['withdrawn']} withdrawn, {i['excluded']} excluded, "
               f"{i['outside_the_window']} outside the window. {none['population']} of them without a severity "
               "(row 'none'; where judged, held to the strictest severity's target)")
    rows = [(sev, b) for sev, b in i["by_severity"].items()] + [("none", i["no_severity"])]
    # every incident in one row and, within it, one bucket: each column adds up to the line above
    print_table([{"severity": sev, "incidents": str(b["population"]),
                  "restored": str(b["count"]) + (f" (+{b['ranged']} as a range)"
                                                                   if b.get("ranged") else ""),
                  "mean": num(b["mean_hours"], unit="h"),
                  "median": num(b["median_hours"], unit="h"), "max": num(b["max_hours"], unit="h"),
                  "mean (business)": num(b["mean_business_hours"], unit="bh"),
                  "waiting on partner": num(b["waiting_on_partner_hours"], unit="h"),
                  "change windows": num(b["change_window_hours"], unit="h"),
                  "first comms mean": num(b["first_communication_mean_hours"], unit="h")
                  + f" (n={b['first_communication_count']})",
                  "open/unconfirmed/not evidenced/not detected":
                      f"{b['open']}/{b['unconfirmed']}/{b['not_evidenced']}/{b['not_detected']}",
                  "withdrawn/excluded/outside the window":
                      f"{b['withdrawn']}/{b['excluded']}/{b['outside_window']}"}
                 for sev, b in rows])
    flagged = mx.incident_rows(figures, flagged=True)
    ranged = [o for o in flagged if o["restore_evidence"] and o["status"] in ("restored", "unclassified")]
    for o in ranged:  # restored, but known only as a range: said with why, never as a figure
        most = o["restore_hours_at_most"]
        span = f"at least {num(o['restore_hours_at_least'], unit='h')}" if most is None else \
            f"between {num(o['restore_hours_at_least'])} and {num(most, unit='h')}"
        typer.echo(f"  {o['id']}: not evidenced: {span} ({o['restore_evidence']})")
    for o in flagged:
        if o["out_of_order"]:
            typer.echo(f"  {o['id']}: out of order: {o['out_of_order']}")
    r = s["rollbacks"]
    typer.echo("\nROLLBACK (charter 3.20): production and rehearsals never mixed; "
               f"data restores reported apart: {r['data_restores']['count']}; "
               f"outside the window: {r['outside_window']['count']}")
    for kind in ("production", "rehearsal"):
        typer.echo(f"  {kind}: {r[kind]['count']} rollback(s)")
        steps = [(label, None, stat(r[kind][key], "min", 1))
                 for key, label in (("decision_minutes", "decision time"), ("rollback_minutes", "rollback time"),
                                    ("requeue_minutes", "re-queue completion"))]
        for label, text in merge_missing(steps):
            typer.echo(f"    {label}: {text}")
    rep = s["report"]
    outside = f"; received outside the window: {', '.join(rep['outside_window'])}" if rep["outside_window"] else ""
    typer.echo("\nREPORT COMPLETENESS (charter 3.21)" + outside)
    if not rep["periods"]:
        typer.echo(f"  {rep['reason']}")
    for p in rep["periods"]:
        typer.echo(f"  period {p['period']}: {p['passing']} of {p['required']} required elements pass "
                   f"({p['not_applicable']} not applicable): "
                   f"{percent(p['completeness_percent'], (p['reason'] or '')[len('not run: '):])}")
        for f in p["failing"]:
            typer.echo(f"    fails: {f['element']}: {f['reason']}")
        for u in p["unchecked"]:
            typer.echo(f"    not checked: {u}")
        typer.echo(f"    timeliness (judged apart): due {p['due']}, delivered {p['delivered']}: "
                   + ("on time" if p["on_time"] else "late"))
    for key, label in (("stopped", "stopped by its stop condition"), ("not_run", "not run")):
        for inj in s["injections"][key]:
            typer.echo(f"\nINJECTION {inj['id']} {label}: {inj['reason']}")
    if s["corrections"]:
        typer.echo(f"\nCORRECTIONS applied: {len(s['corrections'])}")
        for c in s["corrections"]:
            typer.echo(f"  seq {c['corrects']} ({c['kind']} {c['id']}): {c['was']} -> {c['now']}: {c['reason']}")

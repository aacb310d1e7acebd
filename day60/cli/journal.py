"""Commands that write and read the exercise journal: new, log, correct, disputes, claims, notice, reveal, verify,
show."""

from __future__ import annotations

import os
from pathlib import Path

import typer

from day60.cli import base
from day60.cli.base import (
    FORMAT_HELP,
    _check_format,
    _parse_sets,
    app,
    print_json,
    print_table,
)


@app.command()
def new(
    journal: Path = typer.Argument(..., help="The journal file to create (JSON Lines)."),
    partner: str = typer.Option(None, help="The BPO partner whose deployment is exercised."),
    supplier: str = typer.Option(None, help="The supplier being measured."),
    deployment: str = typer.Option(None, help="The deployment under test."),
    tier: str = typer.Option(None, help="Day-60 tier, T1 to T5 (see rubric/day60-v1.yaml)."),
    calendar: Path = typer.Option(None, "--calendar", "-c", help="Business calendar TOML; copied into the header."),
    window_start: str = typer.Option(None, help="Exercise window start (ISO 8601, or local time)."),
    window_end: str = typer.Option(None, help="Exercise window end."),
    runner: str = typer.Option(None, help="Who runs the exercise and holds the injection times."),
    synthetic: bool = typer.Option(None, "--synthetic/--not-synthetic",
                                   help="Mark the journal as invented data (asked on a terminal when not given)."),
    runner_org: str = typer.Option(None, "--runner-org", help="The organisation the runner works for."),
    conflict_statement: str = typer.Option(None, "--conflict-statement",
                                           help="The runner's statement of any conflict of interest."),
    unannounced: bool = typer.Option(None, "--unannounced/--announced",
                                     help="The supplier was not told the exercise window (T4 and T5 need it); "
                                          "asked on a terminal when not given."),
    report_element: list[str] = typer.Option([], "--report-element", metavar="ID",
                                             help="A monthly-report element this deal adds to the published "
                                                  "list; repeatable."),
) -> None:
    """Create an exercise journal: writes its header line; never overwrites.

    Missing options are asked for on a terminal, each answer checked as it is typed, and then the
    optional ones not given; without a terminal a missing option is an error. The calendar is a
    shipped one by name (uk-office, us-office, india-delivery, service-desk-24x7) or a TOML file.

    Example: day60 new ex.jsonl --partner Acme --supplier Nimbus --deployment claims-intake --tier T3
    -c uk-office --window-start 2026-03-02T09:00 --window-end 2026-03-13T17:30 --runner "J. Auditor"
    """
    from day60 import journal as jr
    from day60 import timeparse
    from day60.errors import InputError

    values = {"partner": partner, "supplier": supplier, "deployment": deployment, "tier": tier,
              "calendar": str(calendar) if calendar else None, "window_start": window_start,
              "window_end": window_end, "runner": runner}
    missing = [k for k, v in values.items() if not v]
    if missing and not base._interactive():
        names = ", ".join(f"--{k.replace('_', '-')}" for k in missing)
        raise InputError(names, f"{'is' if len(missing) == 1 else 'are'} missing and there is no terminal to ask on",
                         "pass every one as an option (see 'day60 new --help')")
    if os.path.lexists(journal):
        raise InputError("JOURNAL", f"{journal} already exists",
                         "choose a new file name; journals are never overwritten")
    if missing:
        from day60.live import _Stop, ask_new

        try:
            values = ask_new({**values, "synthetic": synthetic, "unannounced": unannounced, "runner_org": runner_org,
                              "conflict_statement": conflict_statement}, typer.echo)
        except _Stop:
            typer.echo("stopped: no journal was written", err=True)
            raise typer.Exit(130) from None
        synthetic, unannounced = values["synthetic"], values["unannounced"]
        runner_org, conflict_statement = values["runner_org"], values["conflict_statement"]
    from day60.live import _calendar

    cal = _calendar(values["calendar"])
    start = timeparse.parse_instant(values["window_start"], cal.tz, "--window-start")
    end = timeparse.parse_instant(values["window_end"], cal.tz, "--window-end")
    header = jr.create(journal, {
        "partner": values["partner"], "supplier": values["supplier"], "deployment": values["deployment"],
        "tier": values["tier"], "runner": values["runner"], "calendar": cal.to_dict(),
        "window": {"start": start.isoformat(), "end": end.isoformat()}, "synthetic": bool(synthetic),
        "report_elements": report_element, "window_announced": not unannounced,
        **({"runner_organisation": runner_org} if runner_org else {}),
        **({"conflict_statement": conflict_statement} if conflict_statement else {}),
    })
    typer.echo(f"created {journal} ({header['tier']}, {header['partner']} / {header['supplier']})")


@app.command()
def log(
    journal: Path = typer.Argument(..., help="The exercise journal."),
    kind: str = typer.Argument(..., help="Event kind, e.g. drift.notice (see 'day60 schema')."),
    ident: str = typer.Option(..., "--id", help="What the event is about: injection, incident, rollback..."),
    at: str = typer.Option(..., "--at", help="When: ISO 8601 with offset, local time in the journal's zone, or now."),
    sets: list[str] = typer.Option([], "--set", help="A data field, key=value; repeatable."),
    by: str = typer.Option(None, "--by", help="The name of the person recording it (default: the journal's runner)."),
    as_role: str = typer.Option(None, "--as", metavar="ROLE",
                                help="Act as this role of the access list (roles/permissions-v1.yaml), with --by "
                                     "NAME: e.g. --as supplier for a claim the supplier sent in writing. Default: "
                                     "the runner."),
    seal: Path = typer.Option(None, "--seal", help="drift.onset only: keep the instant in this held file."),
    sow: Path = typer.Option(None, "--sow", help="report.element only: the deal file whose [report.elements] "
                                                 "this exercise's report must also carry."),
) -> None:
    """Append one event: the non-interactive twin of every checklist step.

    What a role may record is the access list's (roles/permissions-v1.yaml): the runner by
    default; the toolkit's own lines (timestamp tokens, reveals, notices sent) never.

    Example: day60 log ex.jsonl drift.notice --id D1 --at now --set affected_class=invoices
    --set evidence="alert 4411"
    """
    from day60 import journal as jr
    from day60 import permissions, timeparse

    actor = permissions.actor_for(as_role, by)

    stamp = timeparse.now()  # "now" means the keypress, before anything slow
    header = jr.read_header(journal)
    from zoneinfo import ZoneInfo

    when = timeparse.parse_instant(at, ZoneInfo(header["calendar"]["timezone"]), "--at", stamp)
    elements = None
    if sow is not None:
        from day60 import clauses
        from day60.cli.base import _rubric_ids
        from day60.errors import InputError

        if kind != "report.element":
            raise InputError("--sow", f"is for report.element, not {kind}", "drop --sow")
        elements = list(clauses.load_deal(sow, clauses.load_library(), _rubric_ids(), draft=True).report_elements)
    data = _parse_sets(sets)
    ours = sorted({"commitment", "pressed_at", "press_key"} & set(data))
    if ours:  # a commitment typed in would be replaced by --seal's, or pass an unsealed onset off as sealed
        from day60.errors import InputError

        raise InputError(", ".join(f"--set {k}" for k in ours), "is written by the toolkit itself, never typed",
                         "seal an injected onset with --seal HELD.json; give the time with --at")
    event = jr.append(journal, kind, ident, when, data, None, seal, elements, actor=actor)
    shown = event["at"] or "sealed"
    typer.echo(f"seq {event['seq']}: {event['kind']} {event['id']} at {shown}")
    from day60 import checklist

    # What 'live' and the web checklist ask to confirm, 'log' records and says: a script has no one
    # to ask, and a line is never refused for its time alone (a back-filled exercise is all past).
    # A sealed instant is never printed (stdout says "at sealed"); a sealed line is revealed first.
    fix = f"reveal it ('day60 reveal {journal} --held {seal}') and then correct it" if seal is not None \
        else "'day60 correct' appends the right one"
    for warning in checklist.warnings(header, kind, ident, when, stamp, sealed=seal is not None):
        typer.echo(f"warning: {warning}; if that instant is wrong, {fix}", err=True)


@app.command()
def correct(
    journal: Path = typer.Argument(..., help="The exercise journal."),
    seq: int = typer.Option(..., "--seq", help="seq of the event whose instant was wrong."),
    at: str = typer.Option(..., "--at", help="The right instant."),
    reason: str = typer.Option(..., "--reason", help="Why it was wrong; shown in every report."),
    by: str = typer.Option(None, "--by", help="The name of the person correcting it (default: the journal's runner)."),
    as_role: str = typer.Option(None, "--as", metavar="ROLE",
                                help="Act as this role of the access list (roles/permissions-v1.yaml), with --by "
                                     "NAME: e.g. --as supplier for a claim the supplier sent in writing. Default: "
                                     "the runner."),
) -> None:
    """Correct an event's instant by appending a correction; the original line stays.

    The runner corrects any line; another role only its own (roles/permissions-v1.yaml).

    Example: day60 correct ex.jsonl --seq 4 --at 2026-03-03T11:05 --reason "typed the wrong hour"
    """
    from day60 import journal as jr
    from day60 import permissions, timeparse

    actor = permissions.actor_for(as_role, by)

    stamp = timeparse.now()
    header = jr.read_header(journal)
    from zoneinfo import ZoneInfo

    when = timeparse.parse_instant(at, ZoneInfo(header["calendar"]["timezone"]), "--at", stamp)
    event = jr.correct(journal, seq, when, reason, actor=actor)
    typer.echo(f"seq {event['seq']}: correction of seq {seq} to {event['data']['at']}")


@app.command()
def dispute(
    journal: Path = typer.Argument(..., help="The exercise journal."),
    line: str = typer.Option(..., "--line", help="The rubric line disputed, e.g. restore (see 'day60 score')."),
    by: str = typer.Option(None, "--by", help="The name of the person raising it (default: the journal's runner)."),
    as_role: str = typer.Option(None, "--as", metavar="ROLE",
                                help="Act as this role of the access list (roles/permissions-v1.yaml), with --by "
                                     "NAME: e.g. --as supplier for a claim the supplier sent in writing. Default: "
                                     "the runner."),
    organisation: str = typer.Option(None, "--organisation",
                                     help="Optional check: the organisation the role speaks for, as the journal's "
                                          "header names it (it is taken from --as, never from this option)."),
    reason: str = typer.Option(..., "--reason", help="What is disputed and why."),
) -> None:
    """Log a dispute of one rubric line; the line reads "under dispute" and the rest of the score stands.

    The dispute is filed under --by and the organisation of --as (the supplier's, the partner's, or
    the runner's own, which marks it a self-dispute), as the journal's header names them.

    Example: day60 dispute ex.jsonl --line restore --as supplier --by "R. Supplier" --reason "I2 was a test"
    """
    import datetime as dt

    from day60 import journal as jr
    from day60 import permissions, remedies

    actor = permissions.actor_for(as_role, by)
    remedies.check_dispute(journal, line, actor.role, organisation)
    event = jr.append(journal, "dispute", f"dispute-{line}", dt.datetime.now(dt.UTC),
                      {"line": line, "reason": reason}, actor=actor)
    typer.echo(f"seq {event['seq']}: dispute of {line} logged; resolve it with 'day60 resolve {journal} "
               f"--dispute {event['seq']}'")


@app.command()
def accept(
    journal: Path = typer.Argument(..., help="The exercise journal."),
    seq: int = typer.Option(..., "--seq", help="seq of the supplier's claim (see 'day60 show' or 'day60 claims')."),
    reason: str = typer.Option(..., "--reason", help="What the claim was checked against, or why it does not stand."),
    reject: bool = typer.Option(False, "--reject", help="Reject the claim instead: it is then a false alert."),
    by: str = typer.Option(None, "--by", help="The name of the auditor judging it (default: the journal's runner)."),
    as_role: str = typer.Option(None, "--as", metavar="ROLE",
                                help="Judge as this role, with --by NAME (the second auditor: --as auditor)."),
) -> None:
    """Accept (or --reject) a claim of the measured party: its own detection, notice or first
    communication, or its correction of one. A claim counts in no figure until it is accepted; a
    rejected one is a false alert (charter 3.18.4). Each claim is judged once.

    Example: day60 accept ex.jsonl --seq 9 --reason "alert 4411 seen in the supplier's console at 14:02"
    """
    import datetime as dt

    from day60 import journal as jr
    from day60 import permissions

    actor = permissions.actor_for(as_role, by)
    kind = "reject" if reject else "accept"
    event = jr.append(journal, kind, str(seq), dt.datetime.now(dt.UTC), {"target": seq, "reason": reason},
                      actor=actor)
    typer.echo(f"seq {event['seq']}: claim {seq} {'rejected' if reject else 'accepted'}")


@app.command()
def claims(
    journal: Path = typer.Argument(..., help="The exercise journal."),
    fmt: str = typer.Option("table", "--format", help=FORMAT_HELP),
) -> None:
    """The measured party's claims and how each stands: accepted, rejected, or pending (counting in
    no figure until an auditor accepts it with 'day60 accept').

    Example: day60 claims ex.jsonl
    """
    from day60 import permissions, reading

    _check_format(fmt)
    rows = permissions.claim_rows(reading.read(journal, events=True).events)
    if fmt == "json":
        print_json({"claims": rows})
        return
    if not rows:
        typer.echo("no claims: the supplier has recorded nothing")
        return
    print_table(rows, ["seq", "kind", "id", "at", "by", "accepting", "status", "judged"])


@app.command()
def notice(
    journal: Path = typer.Argument(..., help="The exercise journal."),
    to: str = typer.Option(..., "--to", metavar="SUPPLIER", help="The supplier, or who receives the notice for it."),
    out: Path = typer.Option(..., "--out", help="Where to write the notice (JSON, a new file)."),
    pdf: Path = typer.Option(None, "--pdf", help="Also write the notice as a letter (PDF, its data embedded)."),
    html: Path = typer.Option(None, "--html", help="Also write the letter as HTML, for a browser."),
) -> None:
    """Pre-publication notice (charter 8.3): the supplier's own rows, how to reproduce them, the hashes.

    Writes the notice file (and, with --pdf, the same notice as a letter) and logs when it was sent;
    the score's pages show the date.

    Example: day60 notice ex.jsonl --to "Nimbus AI" --out notice-nimbus.json --pdf notice-nimbus.pdf
    """
    import datetime as dt

    from day60 import files
    from day60 import journal as jr
    from day60 import notice as notices
    from day60.evidence.provenance import sha256_of

    files.check_outputs({"--out": out, "--pdf": pdf, "--html": html}, [("JOURNAL", journal)],
                        new="write each notice to a new file")
    made = notices.build(journal, to, base.COMMAND_LINE)
    if pdf is not None or html is not None:  # rendered before anything is written
        from day60 import render
        from day60.cli.base import write_page

        write_page(render.html("notice.html.j2", made.letter), pdf, html,
                   [(out.name, made.text.encode("utf-8"), "the pre-publication notice as data", "Data")])
    files.write_atomic(out, made.text, "--out", new=True)
    if not made.built["reproducible_from_commit"]:
        typer.echo(f"warning: {made.built['why_not']}", err=True)
    event = jr.append(journal, "notice.sent", "pre-publication", dt.datetime.now(dt.UTC),
                      {"to": to, "sha256": sha256_of(made.text.encode("utf-8"))})
    typer.echo(f"wrote {out}; seq {event['seq']}: notice to {to} logged at {event['at']}")


@app.command()
def resolve(
    journal: Path = typer.Argument(..., help="The exercise journal."),
    dispute_seq: int = typer.Option(..., "--dispute", help="seq of the dispute."),
    outcome: str = typer.Option(..., "--outcome", metavar="upheld|rejected", help="upheld or rejected."),
    reason: str = typer.Option(..., "--reason", help="Why."),
    exclude: list[str] = typer.Option(None, "--exclude", metavar="ID",
                                      help="Upheld only: a drift, incident or rollback the resolution excludes from "
                                           "the figures (repeat for several)."),
) -> None:
    """Close a dispute: upheld, with the remedy it grants, or rejected (the line stands).

    An upheld dispute never costs the supplier the line: the remedy is recorded (--exclude ID for an
    exclusion; 'day60 correct' for a corrected instant), the line is scored again with it, and the
    dispute and its outcome stay listed.

    Example: day60 resolve ex.jsonl --dispute 48 --outcome upheld --exclude INC-2 --reason "INC-2 was a partner test"
    """
    import datetime as dt

    from day60 import journal as jr
    from day60 import permissions
    from day60.errors import InputError

    if outcome not in ("upheld", "rejected"):
        raise InputError("--outcome", f"{outcome[:40]!r} is not an outcome", "use upheld or rejected")
    if exclude:
        from day60 import remedies

        remedies.check_exclusions(journal, dispute_seq, exclude)
    try:
        data: dict[str, object] = {"target": dispute_seq, "outcome": outcome, "reason": reason}
        if exclude:
            data["exclude"] = list(dict.fromkeys(exclude))
        event = jr.append(journal, "resolve", f"dispute-{dispute_seq}", dt.datetime.now(dt.UTC), data,
                          actor=permissions.Actor(permissions.RUNNER))
    except InputError as exc:
        if exc.field in ("--set target", "--set reason"):
            raise InputError("--dispute" if "target" in exc.field else "--reason", exc.problem, exc.fix) from None
        raise
    granted = f", excluding {', '.join(data['exclude'])}" if exclude else ""
    typer.echo(f"seq {event['seq']}: dispute {dispute_seq} {outcome}{granted}")
    if outcome == "upheld" and not exclude:
        typer.echo("no exclusion recorded: the line stands as measured; a corrected instant is logged with "
                   f"'day60 correct {journal} --seq SEQ --at TIME --reason ...'", err=True)


@app.command()
def reveal(
    journal: Path = typer.Argument(..., help="The exercise journal."),
    held: Path = typer.Option(..., "--held", help="The runner's held file written by --seal."),
) -> None:
    """Open every sealed onset at the close: appends the held instants as reveal events.

    Example: day60 reveal ex.jsonl --held runner-held.json
    """
    from day60 import journal as jr

    done = jr.reveal(journal, held)
    typer.echo(f"revealed {len(done.events)} sealed onset(s)")
    for entry in done.stray:
        typer.echo(f"note: the held file has an entry the journal never received: {entry}", err=True)
    for onset in done.unheld:
        typer.echo(f"note: this held file cannot open the sealed onset {onset}", err=True)


@app.command()
def verify(
    journal: Path = typer.Argument(..., help="The exercise journal."),
    repair: bool = typer.Option(False, "--repair", help="Move a partial last line to JOURNAL.partial."),
    expect: str = typer.Option(None, "--expect",
                               help="The journal head an earlier report printed; catches a journal cut short "
                                    "or rewritten since."),
    token: list[Path] = typer.Option([], "--token", metavar="FILE",
                                     help="A timestamp token kept apart ('day60 stamp --out'); catches a journal "
                                          "cut short below the head it stamped. Repeatable."),
    tsa_root: list[Path] = typer.Option([], "--tsa-root", metavar="CERT",
                                        help="A root certificate you trust for the timestamp tokens' TSAs."),
) -> None:
    """Check every line's schema, the hash chain and the rules of fact; exit 1 naming the first bad line.

    Every timestamp token in the journal (and each --token file) is checked against the line it
    stamps, and the output says which events were proven to exist by which time.

    Example: day60 verify ex.jsonl --expect 14:9c1f...(the head a score report printed)
    """
    from day60 import journal as jr
    from day60 import reading
    from day60.evidence import timestamp

    if expect:
        jr.parse_head(expect)  # a malformed anchor is bad input (2), not a failed check
    held = [timestamp.read_token_file(t) for t in token]
    roots = timestamp.load_roots(tsa_root)
    if repair:
        moved = jr.repair(journal)
        typer.echo(f"moved the partial last line to {moved}" if moved else "no partial line to repair")
    from day60.cli import progress

    with progress.stage(f"checking {journal.name}, line by line"):  # a spinner on stderr, at a terminal, if slow
        report = reading.verify(journal, expect)
    if report.partial:
        typer.echo(f"{journal}: the last line is partial (an interrupted write); "
                   f"run 'day60 verify --repair {journal}'", err=True)
    if report.problem:
        typer.echo(f"{journal}: {report.problem}", err=True)
    if not report.ok:
        raise typer.Exit(1)
    found = (report.tokens, report.events, report.header_hash) \
        if report.tokens is not None and report.header_hash is not None else None
    proofs, problems = timestamp.check(journal, roots, held, found)
    for problem in problems:
        typer.echo(f"{journal}: {problem}", err=True)
    if problems:
        raise typer.Exit(1)
    typer.echo(f"{journal}: ok, {report.events} events chained; {report.corrections} correction(s), "
               f"{report.sealed} sealed, {report.revealed} revealed")
    typer.echo(f"journal head {report.head['seq']}:{report.head['hash']}"
               + (" (matches --expect)" if expect else ""))
    for proof in proofs:
        typer.echo(timestamp.describe(proof))
    if not expect and not held:  # nothing from outside the file anchors its end
        typer.echo("note: the chain shows that no line was edited, removed or reordered in place; it cannot show "
                   + ("that lines after the last token were not cut from the end"
                      if proofs else "that lines were not cut from the end, or the journal not rewritten whole "
                                     "and chained again")
                   + ": compare the head with one handed over earlier (--expect) or a token kept apart "
                     "('day60 stamp --out', then --token)", err=True)
    if proofs:
        covered, later = timestamp.uncovered(proofs, report.events)
        typer.echo(f"{len(later)} event(s) after seq {covered} are covered by no timestamp token" if later
                   else "every event but the tokens themselves is covered by a timestamp token")


@app.command()
def show(
    journal: Path = typer.Argument(..., help="The exercise journal."),
    fmt: str = typer.Option("table", "--format", help=FORMAT_HELP),
) -> None:
    """The timeline, corrections applied and marked, in the exercise's timezone, with who wrote each line.

    Example: day60 show ex.jsonl
    """
    from day60 import reading, timeline
    from day60.display import author, when

    _check_format(fmt)
    j = reading.read(journal, events=True)  # a large journal is checked on the engine
    rows = timeline.listed(j)
    if fmt == "json":
        print_json({"header": j.header, "timeline": rows, "partial_line": j.partial, "head": j.head})
        return
    h = j.header
    typer.echo(f"{h['partner']} / {h['supplier']} / {h['deployment']}  tier {h['tier']}"
               + ("  SYNTHETIC" if h.get("synthetic") else ""))
    typer.echo(f"times in {h['calendar']['timezone']}")
    print_table([{**r, "at": when(r["at"]) if r["at"] else "sealed", "by": author(r["by"], h) or "",
                  "data": ", ".join(f"{k}={v}" for k, v in r["data"].items()
                                    if k not in ("commitment", "pressed_at", "press_key"))}
                 for r in rows], ["seq", "at", "kind", "id", "by", "data", "mark"])
    if j.partial:
        typer.echo(f"note: a partial last line was ignored; run 'day60 verify --repair {journal}'", err=True)


@app.command()
def schema(
    kind: str = typer.Argument(None, help="One kind, 'header', 'drills' or 'all'; lists the names when omitted."),
) -> None:
    """Print the JSON Schema of the journal header, an event kind, or drill observations.

    Example: day60 schema drift.notice   (day60 schema all prints every schema at once)
    """
    from day60.drills import json_schema as drills_schema
    from day60.errors import InputError
    from day60.events import json_schemas

    schemas = {**json_schemas(), "drills": drills_schema()}
    if kind is None:
        typer.echo("schemas: " + ", ".join(schemas))
        typer.echo("print one with 'day60 schema NAME', or every one with 'day60 schema all'")
    elif kind == "all":
        print_json(schemas)
    elif kind in schemas:
        print_json(schemas[kind])
    else:
        raise InputError("KIND", f"{kind!r} has no schema", f"use one of: {', '.join(schemas)}, all")


@app.command()
def kinds(fmt: str = typer.Option("table", "--format", help=FORMAT_HELP)) -> None:
    """Every event kind with the --set fields it takes: type, allowed values, required or not.

    Example: day60 kinds
    """
    from day60.events import set_fields

    _check_format(fmt)
    table = set_fields()
    if fmt == "json":
        print_json(table)
        return
    for kind, fields in table.items():
        shown = "; ".join(f"{f['name']} ({f['type']}{', required' if f['required'] else ''})" for f in fields)
        typer.echo(f"{kind:30} {shown or '-'}")


@app.command()
def live(
    journal: Path = typer.Argument(..., help="The exercise journal to record into."),
    held: Path = typer.Option(None, "--held", help="The runner's held file: injected onsets are sealed into it."),
    tsa: str = typer.Option(None, "--tsa", metavar="URL",
                            help="An RFC 3161 timestamp authority: the journal's head is stamped at the close "
                                 "(or after every event, with --stamp every)."),
    stamp_when: str = typer.Option("close", "--stamp", metavar="close|every",
                                   help="With --tsa: stamp at the close and every line after it (close), or "
                                        "after every event (every)."),
    tsa_root: list[Path] = typer.Option([], "--tsa-root", metavar="CERT",
                                        help="A root certificate you trust for the TSA; a token it does not "
                                             "chain to is refused. Repeatable."),
) -> None:
    """Interactive checklist: shows what is open, stamps each event at the keypress, appends at once.

    Needs a terminal; its non-interactive twin is 'day60 log' (and 'day60 stamp' for --tsa).

    Example: day60 live ex.jsonl --held runner-held.json --tsa https://tsa.example/tsr
    """
    from day60.errors import InputError
    from day60.evidence import timestamp

    roots = timestamp.checklist_options(tsa, stamp_when, tsa_root)
    if not base._interactive():
        raise InputError("live", "needs a terminal", "use 'day60 log JOURNAL KIND --id ID --at T' instead")
    from day60.live import run_checklist

    run_checklist(journal, typer.echo, held, tsa, stamp_when, roots)

"""The ``day60`` command line: parse, call the library, print. No logic lives here.

Heavy libraries (pandas, WeasyPrint, holidays) are imported inside the commands that use
them, so ``day60 --help`` and ``day60 log`` start quickly.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
from pathlib import Path
from typing import Any

import typer
from typer.core import TyperGroup

from day60.errors import Day60Error

COMMAND_LINE = "day60"  # the command line being run, as every output records it


class _Day60Group(TyperGroup):
    """Turns every failure into one line on stderr and an exit code, in one place.

    The project's own errors carry their exit code (2 bad input, 1 a check failed). A usage
    error (a wrong option type, a missing argument) is bad input too: one line, exit 2, not a
    boxed panel. Anything else is a defect of the toolkit; it still gets one line, never a
    traceback, and exit 2 since no result was produced.
    """

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        command = super().get_command(ctx, cmd_name)
        if command is not None:
            _name_metavars(command)
        return command

    def main(self, args: Any = None, prog_name: str | None = None, complete_var: str | None = None,
             standalone_mode: bool = True, **extra: Any) -> Any:
        from typer.exceptions import TyperException

        global COMMAND_LINE
        COMMAND_LINE = shlex.join(["day60", *(sys.argv[1:] if args is None else [str(a) for a in args])])
        try:
            code = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except Day60Error as exc:
            typer.echo(f"error: {_one_line(str(exc))}", err=True)
            code = exc.exit_code
        except TyperException as exc:  # typer's own click: usage errors and bad option values
            message = _one_line(exc.format_message()).rstrip(".")
            typer.echo(f"error: {message}; see '{prog_name or 'day60'} --help'", err=True)
            code = exc.exit_code
        except (typer.Abort, KeyboardInterrupt, EOFError):
            typer.echo("stopped: nothing more was written", err=True)
            code = 130
        except Exception as exc:  # a defect: still one line, and no traceback for the user
            typer.echo(f"error: internal fault ({type(exc).__name__}: {_one_line(str(exc))[:200]}); nothing more was "
                       "written; please report it with the command line", err=True)
            code = 2
        code = code if isinstance(code, int) else 0
        if standalone_mode:
            sys.exit(code)
        return code


# Help shows each value as a word a person understands, not as a Python type.
_METAVARS = {"--at": "TIME", "--set": "KEY=VALUE", "--pause": "START/END", "--format": "table|json",
             "--window-start": "TIME", "--window-end": "TIME", "--tier": "T1..T5", "--expect": "SEQ:HASH",
             "--from": "YYYY-MM-DD", "--to": "YYYY-MM-DD", "--id": "ID", "--seq": "SEQ", "--require": "WORD"}
_BY_TYPE = {"str": "TEXT", "path": "FILE", "int": "N", "float": "NUMBER"}


def _name_metavars(command: Any) -> None:
    for param in getattr(command, "params", []):
        if param.metavar is not None or getattr(param, "is_flag", False):
            continue
        if param.param_type_name == "argument":
            word = param.name.upper() + ("..." if param.nargs != 1 else "")
            param.metavar = word
            # typer would print "{WORD}" in the usage line and "WORD <str>" in the list
            param._usage_display_name = lambda word=word, required=param.required: word if required else f"[{word}]"
            param.display_type_rich = lambda ctx: None
        else:
            primary = max(param.opts, key=len)
            bare = param.bare_type().removeprefix("list[").removesuffix("]")
            param.metavar = _METAVARS.get(primary) or _BY_TYPE.get(bare, bare.upper())


def _one_line(text: str) -> str:
    """A message as one printable line: control characters an input carried are shown escaped."""
    import re

    return re.sub(r"[\x00-\x1f\x7f\u2028\u2029]", lambda m: repr(m.group())[1:-1], text)


def _app(help_text: str) -> typer.Typer:
    return typer.Typer(
        cls=_Day60Group,
        help=help_text,
        no_args_is_help=True,
        pretty_exceptions_enable=False,
        rich_markup_mode=None,  # help is plain text: "[parameters]" must print as written
        add_completion=False,
    )


app = _app("Hold an AI-operations supplier to its contract: Day-60 figures, scores and clauses.")
calendar_app = _app("Check a business calendar before relying on it.")
app.add_typer(calendar_app, name="calendar")
voice_app = _app("Score recorded voice-agent episodes against temporal contracts.")
clauses_app = _app("The contract clause library: list, show, and export a deal's schedule.")
app.add_typer(clauses_app, name="clauses")
app.add_typer(voice_app, name="voice")

FORMAT_HELP = "table for people (rounded), json for machines (unrounded)."


def _check_format(fmt: str, allowed: tuple[str, ...] = ("table", "json")) -> str:
    if fmt not in allowed:
        from day60.errors import InputError

        raise InputError("--format", f"{fmt!r} is not offered", f"use one of {', '.join(allowed)}")
    return fmt


def _check_compat(compat: str) -> None:
    from day60.errors import InputError
    from day60.voice import COMPAT

    if compat not in COMPAT:
        raise InputError("--compat", f"{compat!r} is not offered", f"use one of {', '.join(COMPAT)}")


def print_json(data: Any) -> None:
    """Valid JSON only: a missing figure is null, never NaN or Infinity."""
    from day60.display import jsonable

    typer.echo(json.dumps(jsonable(data), indent=2, sort_keys=True, ensure_ascii=False, allow_nan=False))


def print_table(rows: list[dict[str, Any]], columns: list[str] | None = None) -> None:
    """A plain aligned text table; every cell is already a display string."""
    if not rows:
        return
    columns = columns or list(rows[0])
    cells = [[str(r.get(c, "")) for c in columns] for r in rows]
    widths = [max(len(c), *(len(row[i]) for row in cells)) for i, c in enumerate(columns)]
    typer.echo("  ".join(c.ljust(w) for c, w in zip(columns, widths, strict=True)).rstrip())
    typer.echo("  ".join("-" * w for w in widths))
    for row in cells:
        typer.echo("  ".join(v.ljust(w) for v, w in zip(row, widths, strict=True)).rstrip())


# ----- hours and calendars ------------------------------------------------------------------


@app.command()
def hours(
    start: str = typer.Argument(..., help="Start instant: ISO 8601 with offset, or local time."),
    end: str = typer.Argument(..., help="End instant, same forms as START."),
    calendar: Path = typer.Option(..., "--calendar", "-c", help="Calendar TOML file."),
    pause: list[str] = typer.Option([], "--pause", help="START/END of a pause; repeatable."),
    fmt: str = typer.Option("table", "--format", help=FORMAT_HELP),
) -> None:
    """Wall-clock and business hours between two instants on a calendar.

    Example: day60 hours -c uk.toml 2026-03-27T16:00 2026-03-30T10:00 --pause 2026-03-30T09:00/2026-03-30T09:30
    """
    from day60 import clock, timeparse
    from day60.errors import InputError

    _check_format(fmt)
    cal = clock.BusinessCalendar.load(calendar)
    a = timeparse.parse_instant(start, cal.tz, "START")
    b = timeparse.parse_instant(end, cal.tz, "END")
    pauses = []
    for i, text in enumerate(pause):
        if "/" not in text:
            raise InputError(f"--pause[{i}]", f"{text!r} is not START/END", "join the two instants with /")
        p0, p1 = text.split("/", 1)
        pauses.append((timeparse.parse_instant(p0, cal.tz, f"--pause[{i}]"),
                       timeparse.parse_instant(p1, cal.tz, f"--pause[{i}]")))
    business = cal.business_seconds(a, b, pauses)
    wall = clock.wall_seconds(a, b)
    if fmt == "json":
        print_json({"start": a.isoformat(), "end": b.isoformat(), "timezone": cal.timezone,
                    "pauses": [[p.isoformat(), q.isoformat()] for p, q in pauses],
                    "wall_seconds": wall, "business_seconds": business})
        return
    typer.echo(f"from      {a.isoformat()}")
    typer.echo(f"to        {b.isoformat()}")
    typer.echo(f"wall      {wall / 3600:.2f} h")
    typer.echo(f"business  {business / 3600:.2f} h  ({cal.timezone}, {len(pauses)} pause(s) subtracted)")


@calendar_app.command("show")
def calendar_show(
    calendar: Path = typer.Argument(..., help="Calendar TOML file."),
    date_from: str = typer.Option(..., "--from", help="First local date, YYYY-MM-DD."),
    date_to: str = typer.Option(..., "--to", help="Last local date, YYYY-MM-DD."),
    fmt: str = typer.Option("table", "--format", help=FORMAT_HELP),
) -> None:
    """List each date's working intervals and holidays, to check a calendar by eye.

    Example: day60 calendar show uk.toml --from 2026-12-21 --to 2027-01-08
    """
    from day60 import clock
    from day60.errors import InputError

    _check_format(fmt)
    cal = clock.BusinessCalendar.load(calendar)
    days = []
    for field, text in (("--from", date_from), ("--to", date_to)):
        try:
            days.append(clock.dt.date.fromisoformat(text))
        except ValueError as exc:
            raise InputError(field, f"{text!r} is not a date", "write YYYY-MM-DD") from exc
    first, last = days
    if last < first:
        raise InputError("--to", "is before --from", "swap the two dates")
    if (last - first).days > 731:
        raise InputError("--to", "is more than two years after --from", "show a shorter range")
    rows = []
    day = first
    while day <= last:
        spans = cal.intervals(day, day)
        rows.append({
            "date": day.isoformat(),
            "weekday": clock.WEEKDAYS[day.weekday()],
            "closed": cal.holiday_name(day) or "",
            "intervals": [[s.isoformat(), e.isoformat()] for s, e in spans],
            "business_hours": sum(clock.wall_seconds(s, e) for s, e in spans) / 3600,
        })
        day += clock.dt.timedelta(days=1)
    if fmt == "json":
        print_json({"timezone": cal.timezone, "days": rows})
        return
    typer.echo(f"timezone {cal.timezone}")
    print_table([{
        "date": r["date"], "day": r["weekday"],
        "working": ", ".join(f"{s[11:16]}-{e[11:16]}" + ("(+1)" if e[:10] != s[:10] else "")
                             for s, e in r["intervals"]) or "-",
        "hours": f"{r['business_hours']:.2f}",
        "closed": r["closed"],
    } for r in rows])


# ----- the exercise journal ------------------------------------------------------------------


def _interactive() -> bool:
    """True when a person is at a terminal (tests replace this to drive the prompts)."""
    return sys.stdin.isatty() and sys.stdout.isatty()


def _parse_sets(pairs: list[str]) -> dict[str, str]:
    from day60.errors import InputError

    out = {}
    for i, pair in enumerate(pairs):
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise InputError(f"--set[{i}]", f"{pair!r} is not key=value", "write e.g. --set severity=2")
        out[key.strip()] = value
    return out


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
    synthetic: bool = typer.Option(False, help="Mark the journal as invented data."),
    runner_org: str = typer.Option(None, "--runner-org", help="The organisation the runner works for."),
    conflict_statement: str = typer.Option(None, "--conflict-statement",
                                           help="The runner's statement of any conflict of interest."),
    unannounced: bool = typer.Option(False, "--unannounced",
                                     help="The supplier was not told the exercise window (T4 and T5 need it)."),
    report_element: list[str] = typer.Option([], "--report-element", metavar="ID",
                                             help="A monthly-report element this deal adds to the published "
                                                  "list; repeatable."),
) -> None:
    """Create an exercise journal: writes its header line; never overwrites.

    Missing options are asked for on a terminal; without one they are an error.

    Example: day60 new ex.jsonl --partner Acme --supplier Nimbus --deployment claims-intake --tier T3
    -c uk.toml --window-start 2026-03-02T09:00 --window-end 2026-03-13T17:30 --runner "J. Auditor"
    """
    from day60 import clock, timeparse
    from day60 import journal as jr
    from day60.errors import InputError

    values = {"partner": partner, "supplier": supplier, "deployment": deployment, "tier": tier,
              "calendar": str(calendar) if calendar else None, "window_start": window_start,
              "window_end": window_end, "runner": runner}
    missing = [k for k, v in values.items() if not v]
    if missing and not _interactive():
        names = ", ".join(f"--{k.replace('_', '-')}" for k in missing)
        raise InputError(names, f"{'is' if len(missing) == 1 else 'are'} missing and there is no terminal to ask on",
                         "pass every one as an option (see 'day60 new --help')")
    if os.path.lexists(journal):
        raise InputError("JOURNAL", f"{journal} already exists",
                         "choose a new file name; journals are never overwritten")
    if missing:
        import questionary

        for key in missing:
            if key == "tier":
                answer = questionary.select("Tier", choices=["T1", "T2", "T3", "T4", "T5"]).ask()
            else:
                answer = questionary.text(key.replace("_", " ").capitalize()).ask()
            if answer is None:
                raise typer.Exit(130)
            values[key] = answer
    cal = clock.BusinessCalendar.load(values["calendar"])
    start = timeparse.parse_instant(values["window_start"], cal.tz, "--window-start")
    end = timeparse.parse_instant(values["window_end"], cal.tz, "--window-end")
    header = jr.create(journal, {
        "partner": values["partner"], "supplier": values["supplier"], "deployment": values["deployment"],
        "tier": values["tier"], "runner": values["runner"], "calendar": cal.to_dict(),
        "window": {"start": start.isoformat(), "end": end.isoformat()}, "synthetic": synthetic,
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
    by: str = typer.Option(None, "--by", help="Who records it (default: the journal's runner)."),
    seal: Path = typer.Option(None, "--seal", help="drift.onset only: keep the instant in this held file."),
) -> None:
    """Append one event: the non-interactive twin of every checklist step.

    Example: day60 log ex.jsonl drift.notice --id D1 --at now --set affected_class=invoices
    --set evidence="alert 4411"
    """
    from day60 import journal as jr
    from day60 import timeparse

    stamp = timeparse.now()  # "now" means the keypress, before anything slow
    header = jr.read_header(journal)
    from zoneinfo import ZoneInfo

    when = timeparse.parse_instant(at, ZoneInfo(header["calendar"]["timezone"]), "--at", stamp)
    event = jr.append(journal, kind, ident, when, _parse_sets(sets), by, seal)
    shown = event["at"] or "sealed"
    typer.echo(f"seq {event['seq']}: {event['kind']} {event['id']} at {shown}")


@app.command()
def correct(
    journal: Path = typer.Argument(..., help="The exercise journal."),
    seq: int = typer.Option(..., "--seq", help="seq of the event whose instant was wrong."),
    at: str = typer.Option(..., "--at", help="The right instant."),
    reason: str = typer.Option(..., "--reason", help="Why it was wrong; shown in every report."),
    by: str = typer.Option(None, "--by"),
) -> None:
    """Correct an event's instant by appending a correction; the original line stays.

    Example: day60 correct ex.jsonl --seq 4 --at 2026-03-03T11:05 --reason "typed the wrong hour"
    """
    from day60 import journal as jr
    from day60 import timeparse

    stamp = timeparse.now()
    header = jr.read_header(journal)
    from zoneinfo import ZoneInfo

    when = timeparse.parse_instant(at, ZoneInfo(header["calendar"]["timezone"]), "--at", stamp)
    event = jr.correct(journal, seq, when, reason, by)
    typer.echo(f"seq {event['seq']}: correction of seq {seq} to {event['data']['at']}")


@app.command()
def dispute(
    journal: Path = typer.Argument(..., help="The exercise journal."),
    line: str = typer.Option(..., "--line", help="The rubric line disputed, e.g. restore (see 'day60 score')."),
    by: str = typer.Option(..., "--by", help="Who raises the dispute."),
    organisation: str = typer.Option(..., "--organisation", help="The organisation they speak for."),
    reason: str = typer.Option(..., "--reason", help="What is disputed and why."),
) -> None:
    """Log a dispute of one rubric line; the line reads "under dispute" and the rest of the score stands.

    Example: day60 dispute ex.jsonl --line restore --by "R. Supplier" --organisation Nimbus --reason "I2 was a test"
    """
    import datetime as dt

    from day60 import journal as jr
    from day60 import rubric
    from day60.errors import InputError

    ids = [x.id for x in rubric.load().lines]
    if line not in ids:
        raise InputError("--line", f"{line[:40]!r} is not a rubric line", f"use one of {', '.join(ids)}")
    event = jr.append(journal, "dispute", f"dispute-{line}", dt.datetime.now(dt.UTC),
                      {"line": line, "reason": reason, "raised_by": by, "organisation": organisation}, by)
    typer.echo(f"seq {event['seq']}: dispute of {line} logged; resolve it with 'day60 resolve {journal} "
               f"--dispute {event['seq']}'")


@app.command()
def notice(
    journal: Path = typer.Argument(..., help="The exercise journal."),
    to: str = typer.Option(..., "--to", help="The supplier, or who receives the notice for it."),
    out: Path = typer.Option(..., "--out", help="Where to write the notice (JSON, a new file)."),
) -> None:
    """Pre-publication notice (charter 8.3): the supplier's own rows, how to reproduce them, the hashes.

    Writes the notice file and logs when it was sent; the score's pages show the date.

    Example: day60 notice ex.jsonl --to "Nimbus AI" --out notice-nimbus.json
    """
    import datetime as dt

    from day60 import assess, files
    from day60 import journal as jr
    from day60.display import jsonable
    from day60.errors import InputError

    files.check_outputs({"--out": out}, [("JOURNAL", journal)])
    if os.path.lexists(out):
        raise InputError("--out", f"{out} already exists", "write each notice to a new file")
    j = jr.read(journal)
    done = assess.score_journal(j)
    summary = done.figures.summary
    body = {"notice": "pre-publication notice (charter 8.3): these are your own rows; reproduce them with the "
                      "command below before the score is published",
            "to": to, "exercise": {k: j.header[k] for k in ("partner", "supplier", "deployment", "tier", "window")},
            "reproduce": f"day60 verify {journal.name} --expect {j.head['seq']}:{j.head['hash']} && "
                         f"day60 score {journal.name} --format json",
            "journal_sha256": j.sha256, "journal_head": j.head, "rubric": done.result["rubric"],
            "score": done.result["score"], "lines": done.result["lines"],
            "rows": {"drift": summary["drift"]["observations"],
                     "incidents": jsonable(done.figures.tables["incidents"].astype(object)
                                           .where(done.figures.tables["incidents"].notna(), None)
                                           .to_dict("records")),
                     "rollbacks": jsonable(done.figures.tables["rollbacks"].astype(object)
                                           .where(done.figures.tables["rollbacks"].notna(), None)
                                           .to_dict("records")),
                     "report": summary["report"]},
            "provenance": _provenance({"journal": j.sha256})}
    text = json.dumps(jsonable(body), indent=2, sort_keys=True, allow_nan=False, default=str) + "\n"
    files.write_atomic(out, text, "--out")
    from day60.evidence.provenance import sha256_of

    event = jr.append(journal, "notice.sent", "pre-publication", dt.datetime.now(dt.UTC),
                      {"to": to, "sha256": sha256_of(text.encode("utf-8"))})
    typer.echo(f"wrote {out}; seq {event['seq']}: notice to {to} logged at {event['at']}")


@app.command()
def resolve(
    journal: Path = typer.Argument(..., help="The exercise journal."),
    dispute_seq: int = typer.Option(..., "--dispute", help="seq of the dispute."),
    outcome: str = typer.Option(..., "--outcome", metavar="upheld|rejected", help="upheld or rejected."),
    reason: str = typer.Option(..., "--reason", help="Why."),
) -> None:
    """Close a dispute: upheld (the line earns nothing until scored again) or rejected (it stands).

    Example: day60 resolve ex.jsonl --dispute 48 --outcome rejected --reason "I2 was production traffic"
    """
    import datetime as dt

    from day60 import journal as jr
    from day60.errors import InputError

    if outcome not in ("upheld", "rejected"):
        raise InputError("--outcome", f"{outcome[:40]!r} is not an outcome", "use upheld or rejected")
    try:
        event = jr.append(journal, "resolve", f"dispute-{dispute_seq}", dt.datetime.now(dt.UTC),
                          {"target": dispute_seq, "outcome": outcome, "reason": reason})
    except InputError as exc:
        if exc.field in ("--set target", "--set reason"):
            raise InputError("--dispute" if "target" in exc.field else "--reason", exc.problem, exc.fix) from None
        raise
    typer.echo(f"seq {event['seq']}: dispute {dispute_seq} {outcome}")


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
) -> None:
    """Check every line's schema, the hash chain and the rules of fact; exit 1 naming the first bad line.

    Example: day60 verify ex.jsonl --expect 14:9c1f...(the head a score report printed)
    """
    from day60 import journal as jr

    if expect:
        jr.parse_head(expect)  # a malformed anchor is bad input (2), not a failed check
    if repair:
        moved = jr.repair(journal)
        typer.echo(f"moved the partial last line to {moved}" if moved else "no partial line to repair")
    report = jr.verify(journal, expect)
    if report.partial:
        typer.echo(f"{journal}: the last line is partial (an interrupted write); "
                   f"run 'day60 verify --repair {journal}'", err=True)
    if report.problem:
        typer.echo(f"{journal}: {report.problem}", err=True)
    if not report.ok:
        raise typer.Exit(1)
    typer.echo(f"{journal}: ok, {report.events} events chained; {report.corrections} correction(s), "
               f"{report.sealed} sealed, {report.revealed} revealed")
    typer.echo(f"journal head {report.head['seq']}:{report.head['hash']}"
               + (" (matches --expect)" if expect else ""))


@app.command()
def show(
    journal: Path = typer.Argument(..., help="The exercise journal."),
    fmt: str = typer.Option("table", "--format", help=FORMAT_HELP),
) -> None:
    """The timeline, corrections applied and marked, in the exercise's timezone.

    Example: day60 show ex.jsonl
    """
    from day60 import journal as jr

    _check_format(fmt)
    j = jr.read(journal)
    rows = []
    for e in sorted(jr.effective(j.events), key=lambda e: (e.at is None, e.at.timestamp() if e.at else 0, e.seq)):
        mark = "; ".join(f"corrected by seq {c['seq']} (was {e.original_at}): {c['reason']}" for c in e.corrections)
        if e.sealed:
            mark = "sealed until revealed"
        elif e.revealed:
            mark = "revealed at close"
        rows.append({"seq": e.seq, "at": e.at.astimezone(j.tz).isoformat() if e.at else None, "kind": e.kind,
                     "id": e.id, "data": e.data, "mark": mark})
    if fmt == "json":
        print_json({"header": j.header, "timeline": rows, "partial_line": j.partial, "head": j.head})
        return
    h = j.header
    typer.echo(f"{h['partner']} / {h['supplier']} / {h['deployment']}  tier {h['tier']}"
               + ("  SYNTHETIC" if h.get("synthetic") else ""))
    print_table([{**r, "at": (r["at"] or "sealed")[:19].replace("T", " "),
                  "data": ", ".join(f"{k}={v}" for k, v in r["data"].items() if k != "commitment")}
                 for r in rows], ["seq", "at", "kind", "id", "data", "mark"])
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
) -> None:
    """Interactive checklist: shows what is open, stamps each event at the keypress, appends at once.

    Needs a terminal; its non-interactive twin is 'day60 log'.

    Example: day60 live ex.jsonl --held runner-held.json
    """
    from day60.errors import InputError

    if not _interactive():
        raise InputError("live", "needs a terminal", "use 'day60 log JOURNAL KIND --id ID --at T' instead")
    from day60.live import run_checklist

    run_checklist(journal, typer.echo, held)


# ----- figures ------------------------------------------------------------------------------


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
    from day60 import files
    from day60 import journal as jr
    from day60 import metrics as mx
    from day60.errors import InputError

    _check_format(fmt, ("table", "json", "csv"))
    targets: dict[str, Path] = {}
    if fmt == "csv":
        folder = out or Path(".")
        if not os.path.isdir(folder):
            raise InputError("--out", f"{folder} is not an existing folder", "create the folder first, or name one")
        targets = {name: folder / f"{Path(journal).stem}-{name}.csv" for name in mx.TABLES}
        targets["provenance"] = folder / f"{Path(journal).stem}-provenance.json"  # what the csv files came from
        files.check_outputs({f"--out ({t.name})": t for t in targets.values()}, [("JOURNAL", journal)])
    elif out:
        raise InputError("--out", "is only for --format csv", "drop --out, or add --format csv")
    j = jr.read(journal)
    _warn_partial(j)
    figures = mx.compute(j)
    trace = _provenance({"journal": j.sha256})
    synthetic = {"synthetic": "SYNTHETIC: invented data, not a result"} if j.header.get("synthetic") else {}
    if fmt == "json":
        print_json({**synthetic, **figures.summary, "head": j.head, "provenance": trace})
    elif fmt == "csv":
        for name, table in figures.tables.items():
            files.write_atomic(targets[name], table.to_csv(index=False), "--out")
            typer.echo(f"wrote {targets[name]} ({len(table)} rows)", err=True)
        files.write_atomic(targets["provenance"], json.dumps({**synthetic, "provenance": trace,
                                                               "files": [targets[n].name for n in mx.TABLES]},
                                                              indent=2, sort_keys=True) + "\n", "--out")
        typer.echo(f"wrote {targets['provenance']}", err=True)
    else:
        if synthetic:
            typer.echo("SYNTHETIC: invented data, not a result\n")
        _print_metrics(figures.summary)
        typer.echo(f"\njournal {j.sha256[:16]}..., head {j.head['seq']}:{j.head['hash']}")
        _footer(trace)


def _provenance(inputs: dict[str, Any], **versions: Any) -> dict[str, Any]:
    from day60.evidence.provenance import provenance

    return provenance(inputs, COMMAND_LINE, **versions)


def _footer(trace: dict[str, Any]) -> None:
    from day60.evidence.provenance import footer

    typer.echo(footer(trace))


def _warn_calendar(deal: Any, j: Any) -> None:
    """The journal's own calendar computes its figures (so the journal alone reproduces them);
    say so when the deal's calendar differs from it."""
    def plain(table: dict[str, Any]) -> dict[str, Any]:
        holidays = {k: v for k, v in (table.get("holidays") or {}).items() if k != "resolved"}
        return {**table, "holidays": holidays} if holidays else {k: v for k, v in table.items() if k != "holidays"}

    if deal is not None and deal.calendar is not None and plain(deal.calendar) != plain(j.header["calendar"]):
        typer.echo("note: the deal's business calendar differs from the journal's; figures use the journal's, "
                   "comply judges report delivery days on the deal's", err=True)


def _warn_partial(j: Any) -> None:
    if j.partial is not None:
        typer.echo(f"note: {j.path} ends with a partial line (an interrupted write), which was left out; "
                   f"run 'day60 verify --repair {j.path}'", err=True)


def _print_metrics(s: dict[str, Any]) -> None:
    from day60.display import num, percent, stat

    w = s["window"]
    typer.echo(f"window {w['start']} to {w['end']}: {num(w['hours'])} h, {num(w['business_hours'])} business h"
               + ("" if w["closed"] else " (not closed)"))
    d = s["drift"]
    typer.echo(f"\nDRIFT LEAD TIME (charter 3.18): {d['population']} observation(s) with the onset in the window: "
               f"{d['notified']} notified, {d['not_detected']} not detected within the window; counted apart: "
               f"{d['sealed']} sealed, {d['open']} open, {d['outside_window']} outside the window, {d['stopped']} "
               f"stopped, {d['excluded']['announced']} announced, {d['excluded']['told']} told; "
               f"false alerts {d['false_alerts']}")
    print_table([{"id": o["id"], "status": o["status"], "detection": num(o["detection_hours"], unit="h"),
                  "detection (business)": num(o["detection_business_hours"], unit="bh"),
                  "notice": num(o["notice_hours"], unit="h"),
                  "notice (business)": num(o["notice_business_hours"], unit="bh"),
                  "note": o["reason"] or ""} for o in d["observations"]])
    for key, label, unit in (("notice_hours", "notice", "h"), ("notice_business_hours", "notice", "bh"),
                             ("detection_hours", "detection", "h"),
                             ("detection_business_hours", "detection", "bh")):
        typer.echo(f"  {label} lead time: {stat(d['summary'][key], unit)}")
    i = s["incidents"]
    typer.echo(f"\nTIME TO RESTORE (charter 3.19): {i['population']} incident(s): {i['restored']} restored, "
               f"{i['open']} open at the close, {i['unclassified']} without a severity, {i['not_detected']} raised "
               f"but never detected; counted apart: {i['withdrawn']} withdrawn, {i['excluded']} excluded, "
               f"{i['outside_the_window']} outside the window")
    rows = [(sev, b) for sev, b in i["by_severity"].items()] + [("none", i["no_severity"])]
    print_table([{"severity": sev, "restored": b["count"], "mean": num(b["mean_hours"], unit="h"),
                  "median": num(b["median_hours"], unit="h"), "max": num(b["max_hours"], unit="h"),
                  "mean (business)": num(b["mean_business_hours"], unit="bh"),
                  "waiting on partner": num(b["waiting_on_partner_hours"], unit="h"),
                  "change windows": num(b["change_window_hours"], unit="h"),
                  "first comms mean": num(b["first_communication_mean_hours"], unit="h")
                  + f" (n={b['first_communication_count']})",
                  "withdrawn/excluded/open": f"{b['withdrawn']}/{b['excluded']}/{b['open']}"}
                 for sev, b in rows])
    r = s["rollbacks"]
    typer.echo("\nROLLBACK (charter 3.20): production and rehearsals never mixed; "
               f"data restores reported apart: {r['data_restores']['count']}; "
               f"outside the window: {r['outside_window']['count']}")
    for kind in ("production", "rehearsal"):
        typer.echo(f"  {kind}: {r[kind]['count']} rollback(s)")
        for key, label in (("decision_minutes", "decision time"), ("rollback_minutes", "rollback time"),
                           ("requeue_minutes", "re-queue completion")):
            typer.echo(f"    {label}: {stat(r[kind][key], 'min', 1)}")
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


# ----- scores and the demo -------------------------------------------------------------------


@app.command()
def score(
    journal: Path = typer.Argument(..., help="The exercise journal."),
    rubric_file: Path = typer.Option(None, "--rubric", help="Rubric YAML (default: the shipped day60-v1)."),
    sow: Path = typer.Option(None, "--sow", help="Deal file whose [parameters] set the targets."),
    fmt: str = typer.Option("table", "--format", help=FORMAT_HELP),
    pdf: Path = typer.Option(None, "--pdf", help="Write the score report as PDF here."),
    html: Path = typer.Option(None, "--html", help="Write the same report as HTML here."),
    out: Path = typer.Option(None, "--out", help="Write the score as JSON here (a new file)."),
    supersede: Path = typer.Option(None, "--supersede", metavar="OLD.json",
                                   help="The earlier score JSON this one replaces; it is named, never overwritten."),
    sign_with: Path = typer.Option(None, "--sign", metavar="KEY.p12",
                                   help="Sign the PDF with your own certificate; the passphrase comes from "
                                        "DAY60_SIGN_PASSPHRASE or a prompt, never a flag."),
) -> None:
    """Score an exercise 0 to 100 against the published rubric, the tier beside it.

    Example: day60 score ex.jsonl --pdf score.pdf
    """
    from day60 import assess, clauses, files, rubric
    from day60 import journal as jr
    from day60.errors import InputError

    _check_format(fmt)
    files.check_outputs({"--pdf": pdf, "--html": html, "--out": out},
                        [("JOURNAL", journal), ("--rubric", rubric_file), ("--sow", sow), ("--supersede", supersede)])
    if supersede is None:
        for field, target in (("--pdf", pdf), ("--html", html), ("--out", out)):
            if target is not None and os.path.lexists(target):
                raise InputError(field, f"{target} already exists: a score is never silently replaced",
                                 "write to a new file, or name the score it replaces with --supersede OLD.json")
    elif out is None:
        raise InputError("--out", "is needed with --supersede", "write the new score JSON to a new file with --out")
    passphrase = _passphrase(sign_with, pdf)
    published = rubric.load(rubric_file)
    parameters = deal = None
    if sow:  # the deal file is checked whole, then the rubric takes the targets it reads
        deal = clauses.load_deal(sow, clauses.load_library(), rubric.parameter_ids(published), draft=True)
        parameters = deal.parameters
    j = jr.read(journal)
    _warn_partial(j)
    _warn_calendar(deal, j)
    done = assess.score_journal(j, published, parameters)
    from day60.display import jsonable
    from day60.evidence.provenance import provenance
    from day60.evidence.report import score_attachments

    deal_bytes = Path(sow).read_bytes() if sow else None
    done.result["provenance"] = provenance({"journal": j.sha256, "rubric": published.sha256, "deal": deal_bytes},
                                           COMMAND_LINE, rubric=f"{published.id} {published.version}")
    if supersede is not None:
        from day60.evidence.supersede import changelog

        done.result.update(changelog(supersede, done.result, j))
    _emit_score(done.result, fmt)
    if out is not None:
        files.write_atomic(out, json.dumps(jsonable(done.result), indent=2, sort_keys=True, allow_nan=False) + "\n",
                           "--out")
        typer.echo(f"wrote {out}", err=True)
    attachments = score_attachments(_scored_bytes(j), published.raw, deal_bytes, jsonable(done.result))
    _write_documents(done.journal, done.figures, done.result, pdf, html, attachments=attachments)
    if sign_with and pdf:
        from day60 import files
        from day60.evidence.sign import sign

        files.write_atomic(pdf, sign(Path(pdf).read_bytes(), sign_with, passphrase), "--pdf")
        typer.echo(f"signed {pdf} with {sign_with}", err=True)


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
    if not _interactive():
        raise InputError("--sign", "needs the key's passphrase", f"set {PASSPHRASE_VARIABLE}, or run on a terminal "
                                                                  "to be asked for it")
    return typer.prompt("Passphrase for the signing key", hide_input=True, default="", show_default=False).encode()


def _scored_bytes(j: Any) -> bytes:
    """The journal's complete lines: exactly what was scored (a partial last line is left out)."""
    raw = Path(j.path).read_bytes()
    return raw[: raw.rfind(b"\n") + 1]


def _emit_score(result: dict[str, Any], fmt: str) -> None:
    from day60.display import line_figure, num

    if fmt == "json":
        print_json(result)
        return
    mark = "  SYNTHETIC" if result["synthetic"] else ""
    shown = "" if result["tier_check"]["met"] else ", tier not demonstrated: " + "; ".join(
        result["tier_check"]["problems"])
    typer.echo(f"score {num(result['score'], 1)} of 100, tier {result['tier']} ({result['tier_name']}){shown}{mark}")
    typer.echo(f"rubric {result['rubric']['id']} {result['rubric']['version']}; targets: {result['targets']}")
    print_table([{"line": line["id"], "points": num(line["points"], 0), "earned": num(line["earned"], 2),
                  "status": line["status"], "figure": line_figure(line)[:70], "reason": line["reason"] or ""}
                 for line in result["lines"]])
    for d in result.get("disputes", []):
        state = f"resolved: {d['outcome']}" if d["outcome"] else "open: the line reads under dispute"
        self_ = " (a self-dispute)" if d["self_dispute"] else ""
        typer.echo(f"dispute seq {d['seq']} of {d['line']} by {d['raised_by']}, {d['organisation']}{self_}: {state}")
    head = result.get("journal_head")
    if head:
        typer.echo(f"journal head {head['seq']}:{head['hash']} (check later with 'day60 verify --expect')")
    if result.get("provenance"):
        _footer(result["provenance"])


def _write_documents(j: Any, figures: Any, result: dict[str, Any], pdf: Path | None, html: Path | None,
                     title: str = "Day-60 exercise score", attachments: list[Any] | None = None) -> None:
    if not (pdf or html):
        return
    from day60 import files, render

    page = render.score_html(j, figures, result, title)
    if html:
        files.write_atomic(html, page, "--html")
        typer.echo(f"wrote {html}", err=True)
    if pdf:
        pages = render.pdf(page, pdf, attachments=attachments)
        typer.echo(f"wrote {pdf} ({pages} pages)", err=True)


@app.command("verify-report")
def verify_report(
    report: Path = typer.Argument(..., help="A score report PDF written by 'day60 score --pdf'."),
) -> None:
    """Check a score report against the inputs it carries: hashes, and the score computed again.

    Prints "verified", or names each difference and exits 1.

    Example: day60 verify-report day60-demo/score.pdf
    """
    from day60.evidence.report import verify
    from day60.evidence.sign import check

    problems = verify(report)
    for signature in check(report):
        if signature["intact"] and signature["valid"] and signature["covers_whole_file"]:
            typer.echo(f"{report}: signed by {signature['signer']}: the signature is intact and covers the whole "
                       "file (the certificate is not checked against a trust list)")
        else:
            problems.append(f"the signature by {signature['signer']} does not hold: the file changed after signing")
    if problems:
        for problem in problems:
            typer.echo(f"{report}: {problem}", err=True)
        raise typer.Exit(1)
    typer.echo(f"{report}: verified: every embedded input matches the hashes recorded and printed, and computing "
               "the document again from them gives the same result, line by line")


@app.command()
def demo(out: Path = typer.Option(Path("day60-demo"), "--out", help="Folder for the demo's files.")) -> None:
    """Run a whole SYNTHETIC Day-60 exercise: journal, figures, score and PDF.

    Example: day60 demo --out /tmp/day60-demo
    """
    from day60 import demo as demo_run

    files = demo_run.run(out)
    result = json.loads(files["score"].read_text())
    typer.echo(f"SYNTHETIC demo: invented data, not a result. Score {result['score']:.1f} of 100 at tier "
               f"{result['tier']}.")
    for label, path in files.items():
        typer.echo(f"  {label:10} {path}")


# ----- voice -------------------------------------------------------------------------------


@voice_app.command("score")
def voice_score(
    dialogue: Path = typer.Argument(..., help="A dialogue: a JSON list of turns."),
    max_latency_ms: float = typer.Option(1200, "--max-latency-ms", help="Reply budget after the caller stops."),
    require: list[str] = typer.Option([], "--require", help="A keyword the agent must say; repeatable."),
    fmt: str = typer.Option("table", "--format", help=FORMAT_HELP),
    compat: str = typer.Option("day60", "--compat", metavar="day60|reference",
                               help="reference: reproduce the reference harness's coercions (see the README)."),
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
                               help="reference: reproduce the reference harness's coercions (see the README)."),
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
    rows = [("replies", result["replies"]), ("tool-call replies", result["tool_calls"]),
            ("filler replies", result["filler"]["ttft"]), ("first substantive", result["filler"]["first_substantive"])]
    print_table([{"population": name, "n": d["count"], "p50": num(d["p50"], 0, "ms"), "p95": num(d["p95"], 0, "ms"),
                  "p99": num(d["p99"], 0, "ms"), "mean": num(d["mean"], 0, "ms"), "max": num(d["max"], 0, "ms"),
                  "note": d.get("reason", "")} for name, d in rows])
    opened = [o for o in result["opening_turns"] if o["ms"] is not None]
    typer.echo(f"opening turns, reported apart: {len(result['opening_turns'])} ({len(opened)} after a caller turn)")
    ex = result["excluded"]
    typer.echo(f"excluded and counted: {ex['overlapping_replies']} replies that overlapped the caller, "
               f"{ex['continuations']} agent continuations (not replies)")


# ----- clauses and compliance -----------------------------------------------------------------


@clauses_app.command("list")
def clauses_list(fmt: str = typer.Option("table", "--format", help=FORMAT_HELP)) -> None:
    """Every clause with its charter section and typed parameters.

    Example: day60 clauses list --format json
    """
    from day60 import clauses

    _check_format(fmt)
    lib = clauses.load_library()
    rows = [{"id": c.id, "title": c.title, "section": c.section,
             "parameters": [{"id": p.id, "type": p.type, "unit": p.unit, "min": p.min, "max": p.max,
                             "description": p.description} for p in c.parameters]}
            for c in lib.clauses.values()]
    if fmt == "json":
        print_json(rows)
        return
    typer.echo(f"clause library {lib.id} {lib.version}: {len(rows)} clauses")
    print_table([{"id": r["id"], "section": r["section"], "title": r["title"],
                  "parameters": ", ".join(p["id"] for p in r["parameters"])} for r in rows])


@clauses_app.command("show")
def clauses_show(clause_id: str = typer.Argument(..., help="A clause id from 'day60 clauses list'.")) -> None:
    """A clause's text with its parameters as named blanks, and its definitions.

    Example: day60 clauses show drift-lead-time
    """
    from day60 import clauses
    from day60.errors import InputError

    lib = clauses.load_library()
    if clause_id not in lib.clauses:
        raise InputError("ID", f"{clause_id!r} is not a clause", "see 'day60 clauses list'")
    c = lib.clauses[clause_id]
    typer.echo(f"{c.title} (charter {c.section}; library {lib.id} {lib.version})\n")
    typer.echo(clauses.clause_text(lib, c, clauses.blanks(c), {}))
    typer.echo("")
    for key, value in c.definitions.model_dump().items():
        typer.echo(f"{key}: {value}")
    typer.echo("\nparameters:")
    for p in c.parameters:
        bounds = ", ".join(f"{k} {v:g}" for k, v in (("at least", p.min), ("at most", p.max)) if v is not None)
        fixed = f"; {p.fixed_note}" if p.fixed is not None else ""
        typer.echo(f"  {p.id} ({p.unit}{'; ' + bounds if bounds else ''}{fixed}): {p.description}")
    typer.echo("checks:")
    for check in c.checks:
        typer.echo(f"  {check.figure}: {check.comparator} {check.parameter}")
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
) -> None:
    """The clause schedule with the deal's values filled in. Prints Markdown when no file is named.

    Example: day60 clauses export --sow clauses/examples/synthetic-sow.toml --pdf schedule.pdf
    """
    from day60 import clauses, files, render

    files.check_outputs({"--pdf": pdf, "--md": md, "--html": html, "--docx": docx}, [("--sow", sow)])
    lib = clauses.load_library()
    s = clauses.schedule(lib, clauses.load_deal(sow, lib, _rubric_ids(), draft=draft), draft=draft)
    if not (pdf or md or html or docx):
        typer.echo(render.html("schedule.md.j2", {"s": s}))
        return
    if docx:
        render.docx(s, docx)
        typer.echo(f"wrote {docx}", err=True)
    if md:
        files.write_atomic(md, render.html("schedule.md.j2", {"s": s}), "--md")
        typer.echo(f"wrote {md}", err=True)
    page = render.html("schedule.html.j2", {"s": s})
    if html:
        files.write_atomic(html, page, "--html")
        typer.echo(f"wrote {html}", err=True)
    if pdf:
        from day60.evidence.report import schedule_attachments

        pages = render.pdf(page, pdf, attachments=schedule_attachments(Path(sow).read_bytes(), s))
        typer.echo(f"wrote {pdf} ({pages} pages)", err=True)


def _rubric_ids() -> set[str]:
    from day60 import rubric

    return rubric.parameter_ids(rubric.load())


@app.command()
def comply(
    journal: Path = typer.Argument(None, help="An exercise journal supplying the Day-60 figures."),
    sow: Path = typer.Option(None, "--sow", help="The deal file (TOML)."),
    figures: Path = typer.Option(None, "--figures", help='JSON {"<check id>": {"value": x, "n": count}}.'),
    fmt: str = typer.Option("table", "--format", help=FORMAT_HELP),
    list_checks: bool = typer.Option(False, "--list-checks", help="List every check id, its clause, unit and "
                                                                   "threshold (the deal's, with --sow)."),
) -> None:
    """Check measured figures against the deal's clauses: met, not met, or not run. Exit 1 if any is not met.

    Example: day60 comply --sow deal.toml --figures measured.json
    """
    from day60 import clauses
    from day60.errors import InputError

    _check_format(fmt)
    lib = clauses.load_library()
    if list_checks:
        deal = clauses.load_deal(sow, lib, _rubric_ids(), draft=True) if sow else None
        listed = clauses.check_ids(lib, deal)
        if fmt == "json":
            print_json(listed)
        else:
            print_table([{**c, "threshold": "" if c["threshold"] is None else c["threshold"]} for c in listed])
        return
    if sow is None:
        raise InputError("--sow", "is missing", "name the deal file the figures are checked against")
    if (journal is None) == (figures is None):
        raise InputError("--figures", "give exactly one of a JOURNAL or --figures", "pass one source of figures")
    deal = clauses.load_deal(sow, lib, _rubric_ids(), draft=True)
    scope = None
    if figures:
        measured, source = clauses.load_figures(figures), str(figures)
    else:
        from day60 import journal as jr

        j = jr.read(journal)
        _warn_partial(j)
        _warn_calendar(deal, j)
        measured, source = clauses.journal_figures(j, deal), str(journal)
        scope = {"tier": j.header["tier"], "records": j.header.get("records", "auditor-held")}
    rows = clauses.comply(lib, deal, measured, source, scope)
    trace = _provenance({"deal": Path(sow), "figures": Path(figures) if figures else None,
                         "journal": j.sha256 if journal else None}, clause_library=f"{lib.id} {lib.version}")
    synthetic = bool(deal.deal.get("synthetic")) or bool(journal and j.header.get("synthetic"))
    if fmt == "json":
        print_json({"checks": [{k: r[k] for k in ("clause", "check", "status", "value", "display", "threshold", "n",
                                                  "reason")} for r in rows], "provenance": trace,
                    **({"synthetic": "SYNTHETIC: invented data, not a result"} if synthetic else {})})
    else:
        if synthetic:
            typer.echo("SYNTHETIC: invented data, not a result")
        counts = {s: sum(r["status"] == s for r in rows) for s in ("met", "not met", "not run", "triggered")}
        typer.echo(f"{len(rows)} check(s): {counts['met']} met, {counts['not met']} not met, "
                   f"{counts['not run']} not run, {counts['triggered']} reporting trigger(s) reached "
                   f"(figures from {source})")
        print_table([{"clause": r["clause"], "check": r["check"], "status": r["status"], "figure": r["display"],
                      "n": r["n"] if r["n"] is not None else "", "threshold": f"{r['comparator']} {r['threshold']}",
                      "reason": r["reason"] or ""} for r in rows])
        _footer(trace)
    if any(r["status"] == "not met" for r in rows):
        raise typer.Exit(1)


# ----- the self-assessment ---------------------------------------------------------------------


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
        if not _interactive():
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


@voice_app.command("drills")
def voice_drills(
    observations: Path = typer.Argument(..., help="One call's drill observations (JSON)."),
    fmt: str = typer.Option("table", "--format", help=FORMAT_HELP),
    pdf: Path = typer.Option(None, "--pdf", help="Write the drill report as PDF."),
) -> None:
    """Score a live call's recorded drill observations, fifteen drills, each 0 to 100.

    Example: day60 voice drills rubric/voice/examples/synthetic-drills.json --pdf drills.pdf
    """
    from day60 import drills, files, voice
    from day60.display import num, parts

    _check_format(fmt)
    files.check_outputs({"--pdf": pdf}, [("OBSERVATIONS", observations)])
    result = drills.score_call(voice.load_json(observations, "OBSERVATIONS"))
    result["provenance"] = _provenance({"observations": Path(observations)},
                                       drill_rules=f"{result['rules']['id']} {result['rules']['version']}")
    if fmt == "json":
        print_json(result)
    else:
        call = result["call"]
        mark = "  SYNTHETIC" if result["synthetic"] else ""
        typer.echo(f"call {call.get('id', '?')}: {call.get('agent', '')}{mark}")
        print_table([{"drill": name, "status": d["status"], "score": num(d["score"], 1),
                      "built from": parts(d["parts"])[:70], "notes": "; ".join(d["notes"])[:70]}
                     for name, d in result["drills"].items()])
        s = result["summary"]
        _footer(result["provenance"])
        zeros = s["unmeasured_as_zero"] and f" ({', '.join(s['unmeasured_as_zero'])} unmeasured, counted as zero)"
        typer.echo(f"mean of the {len(s['covers'])} scored drill(s){zeros or ''}: {num(s['mean_of_scored'], 1)}; "
                   f"not in that mean: {', '.join(s['not_covered']) or 'none'}")
    if pdf:
        from day60 import render

        page = render.html("drills.html.j2", {"r": result})
        typer.echo(f"wrote {pdf} ({render.pdf(page, pdf)} pages)", err=True)


def main() -> None:
    """Console-script entry point."""
    app(prog_name="day60")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

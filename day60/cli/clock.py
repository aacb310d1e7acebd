"""Commands about business calendars: hours between two instants, and a calendar shown day by day."""

from __future__ import annotations

import typer

from day60.cli.base import (
    FORMAT_HELP,
    _check_format,
    app,
    calendar_app,
    load_calendar,
    print_json,
    print_table,
)


@app.command()
def hours(
    start: str = typer.Argument(..., help="Start instant: ISO 8601 with offset, or local time."),
    end: str = typer.Argument(..., help="End instant, same forms as START."),
    calendar: str = typer.Option(..., "--calendar", "-c", metavar="CALENDAR",
                                 help="Calendar TOML file, or a shipped one by name (uk-office, ...)."),
    pause: list[str] = typer.Option([], "--pause", help="START/END of a pause; repeatable."),
    fmt: str = typer.Option("table", "--format", help=FORMAT_HELP),
) -> None:
    """Wall-clock and business hours between two instants on a calendar.

    Example: day60 hours -c uk-office 2026-03-27T16:00 2026-03-30T10:00 --pause 2026-03-30T09:00/2026-03-30T09:30
    """
    from day60 import clock, timeparse
    from day60.errors import InputError

    _check_format(fmt)
    cal = load_calendar(calendar)
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
    calendar: str = typer.Argument(..., metavar="CALENDAR",
                                   help="Calendar TOML file, or a shipped one by name (uk-office, ...)."),
    date_from: str = typer.Option(..., "--from", metavar="YYYY-MM-DD", help="First local date, YYYY-MM-DD."),
    date_to: str = typer.Option(..., "--to", metavar="YYYY-MM-DD", help="Last local date, YYYY-MM-DD."),
    fmt: str = typer.Option("table", "--format", help=FORMAT_HELP),
) -> None:
    """List each date's working intervals and holidays, to check a calendar by eye.

    Example: day60 calendar show uk-office --from 2026-12-21 --to 2027-01-08
    """
    from day60 import clock

    _check_format(fmt)
    cal = load_calendar(calendar)
    rows = clock.calendar_days(cal, date_from, date_to)
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

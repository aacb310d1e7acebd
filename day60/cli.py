"""The ``day60`` command line: parse, call the library, print. No logic lives here.

Heavy libraries (pandas, WeasyPrint, holidays) are imported inside the commands that use
them, so ``day60 --help`` and ``day60 log`` start quickly.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click
import typer
from typer.core import TyperGroup

from day60.errors import Day60Error


class _Day60Group(TyperGroup):
    """Turns the project's own errors into one line on stderr and an exit code, in one place."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except Day60Error as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(exc.exit_code) from None


def _app(help_text: str) -> typer.Typer:
    return typer.Typer(
        cls=_Day60Group,
        help=help_text,
        no_args_is_help=True,
        pretty_exceptions_show_locals=False,
        add_completion=False,
    )


app = _app("Hold an AI-operations supplier to its contract: Day-60 figures, scores and clauses.")
calendar_app = _app("Check a business calendar before relying on it.")
app.add_typer(calendar_app, name="calendar")

FORMAT_HELP = "table for people (rounded), json for machines (unrounded)."


def _check_format(fmt: str, allowed: tuple[str, ...] = ("table", "json")) -> str:
    if fmt not in allowed:
        from day60.errors import InputError

        raise InputError("--format", f"{fmt!r} is not offered", f"use one of {', '.join(allowed)}")
    return fmt


def print_json(data: Any) -> None:
    typer.echo(json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False))


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


def main() -> None:
    """Console-script entry point."""
    app(prog_name="day60")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

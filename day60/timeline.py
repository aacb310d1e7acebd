"""The exercise on one time axis, as an SVG string: injections, detections and notices;
incidents with their waits; rollbacks; non-business time shaded from the exercise calendar."""

from __future__ import annotations

import datetime as dt
from typing import Any
from xml.sax.saxutils import escape

from day60.clock import BusinessCalendar, to_utc_us
from day60.journal import effective

WIDTH, LEFT, RIGHT, ROW, TOP = 760, 90, 10, 18, 30
MAX_ROWS = 40
COLOURS = {"drift": "#1f5fa8", "incident": "#b3261e", "wait": "#e8a33d", "change": "#8a6fb0",
           "rollback": "#2e7d32"}


def svg(events: list[dict[str, Any]], calendar: BusinessCalendar, window: dict[str, str]) -> str:
    """Draw the exercise. Rows past MAX_ROWS are counted in a note, not drawn."""
    w0 = to_utc_us(dt.datetime.fromisoformat(window["start"]))
    w1 = to_utc_us(dt.datetime.fromisoformat(window["end"]))
    span = max(w1 - w0, 1)

    def x(at: dt.datetime | None) -> float:
        us = min(max(to_utc_us(at), w0), w1) if at else w1
        return LEFT + (WIDTH - LEFT - RIGHT) * (us - w0) / span

    rows = _rows(effective(events))
    drawn = rows[:MAX_ROWS]
    height = TOP + ROW * max(len(drawn), 1) + 34
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
           f'viewBox="0 0 {WIDTH} {height}" font-family="DejaVu Sans, sans-serif" font-size="9">',
           f'<rect x="{LEFT}" y="{TOP - 6}" width="{WIDTH - LEFT - RIGHT}" height="{ROW * max(len(drawn), 1) + 6}" '
           'fill="#e4e4e4"/>']
    first = dt.datetime.fromisoformat(window["start"]).astimezone(calendar.tz).date()
    last = dt.datetime.fromisoformat(window["end"]).astimezone(calendar.tz).date()
    for a, b in calendar.intervals(first - dt.timedelta(days=1), last):
        xa, xb = x(a), x(b)
        if xb > xa:
            out.append(f'<rect x="{xa:.1f}" y="{TOP - 6}" width="{xb - xa:.1f}" '
                       f'height="{ROW * max(len(drawn), 1) + 6}" fill="#ffffff"/>')
    days = (last - first).days + 1
    step = 1 if days <= 16 else 7
    day = first
    while day <= last:
        at = dt.datetime.combine(day, dt.time(), calendar.tz)
        if to_utc_us(at) >= w0:
            xd = x(at)
            out.append(f'<line x1="{xd:.1f}" y1="{TOP - 6}" x2="{xd:.1f}" y2="{TOP + ROW * max(len(drawn), 1)}" '
                       'stroke="#bbbbbb" stroke-width="0.5"/>')
            out.append(f'<text x="{xd + 1:.1f}" y="{TOP - 9}" fill="#555">{day.strftime("%d %b")}</text>')
        day += dt.timedelta(days=step)
    for i, row in enumerate(drawn):
        y = TOP + ROW * i + ROW / 2 - 3
        colour = COLOURS[row["area"]]
        out.append(f'<text x="4" y="{y + 3}" fill="{colour}">{escape(row["label"][:16])}</text>')
        a, b = x(row["start"]), x(None if row["open"] else row["end"])  # open rows run to the close
        dash = ' stroke-dasharray="3,2"' if row["open"] else ""
        out.append(f'<line x1="{a:.1f}" y1="{y}" x2="{max(b, a + 1):.1f}" y2="{y}" stroke="{colour}" '
                   f'stroke-width="3"{dash}/>')
        for kind, s, e in row["pauses"]:
            out.append(f'<rect x="{x(s):.1f}" y="{y - 4}" width="{max(x(e) - x(s), 1):.1f}" height="8" '
                       f'fill="{COLOURS[kind]}" opacity="0.8"/>')
        for at in row["marks"]:
            out.append(f'<circle cx="{x(at):.1f}" cy="{y}" r="3" fill="{colour}"/>')
    legend_y = TOP + ROW * max(len(drawn), 1) + 16
    legend = [("drift", "drift"), ("incident", "incident"), ("waiting on partner", "wait"),
              ("change window", "change"), ("rollback", "rollback")]
    lx = LEFT
    for text, key in legend:
        out.append(f'<rect x="{lx}" y="{legend_y - 7}" width="8" height="8" fill="{COLOURS[key]}"/>')
        out.append(f'<text x="{lx + 11}" y="{legend_y}">{escape(text)}</text>')
        lx += 11 + 5.2 * len(text) + 10
    note = ("dots: each recorded step; grey: outside business hours; "
            "dashed: still open at the window's close")
    if len(rows) > MAX_ROWS:
        note += f"; {len(rows) - MAX_ROWS} more rows not drawn"
    out.append(f'<text x="{LEFT}" y="{legend_y + 13}" fill="#555">{escape(note)}</text>')
    out.append("</svg>")
    return "\n".join(out)


def _rows(events: list[Any]) -> list[dict[str, Any]]:
    rows: dict[tuple[str, str], dict[str, Any]] = {}
    opened: dict[tuple[str, str], dt.datetime] = {}
    for e in events:
        if e.at is None:
            continue
        area = e.kind.split(".")[0]
        if area not in ("drift", "incident", "rollback") or e.kind in ("drift.false-alert", "drift.announced",
                                                                         "drift.told"):
            continue
        row = rows.setdefault((area, e.id), {"area": area, "label": e.id, "start": e.at, "end": e.at,
                                             "marks": [], "pauses": [], "open": True})
        row["start"], row["end"] = min(row["start"], e.at), max(row["end"], e.at)
        if e.kind.endswith(("-start",)):
            opened[(e.id, e.kind)] = e.at
        elif e.kind.endswith("-end"):
            start_kind = e.kind[: -len("end")] + "start"
            s = opened.pop((e.id, start_kind), None)
            if s is not None:
                row["pauses"].append(("wait" if "wait" in e.kind else "change", s, e.at))
        else:
            row["marks"].append(e.at)
        if e.kind in ("drift.notice", "incident.restored", "incident.withdrawn", "incident.excluded",
                      "rollback.requeue-complete"):
            row["open"] = False
    return sorted(rows.values(), key=lambda r: (list(COLOURS).index(r["area"]), r["start"]))

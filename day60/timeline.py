"""The exercise on one time axis, as an SVG string.

One row per drift, incident and rollback. Each interval is a bar with a minimum visible width:
onset to notice, the incident clock from its start to the restore (waits on the partner and
change windows drawn over it), criterion to decision and decision to smoke pass. Withdrawn and
excluded incidents are drawn apart, hatched and labelled. Non-business time is shaded from the
exercise calendar. A long window gets a broken axis: only the stretches around recorded events
are drawn, so three months of sparse records do not shrink to a barcode; each break is marked "//"
on the date axis, outside the rows, and where a stretch would be too narrow to carry a date the
whole window is drawn instead. The date axis is labelled with day and month often enough that any
event is a day or so from a label (a week or a month on longer axes), labels never overlapping,
and a drawing of many rows repeats it under them.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any
from xml.sax.saxutils import escape

from day60.clock import BusinessCalendar, from_utc_us, to_utc_us
from day60.journal import effective

WIDTH, LEFT, RIGHT, ROW, TOP = 760, 110, 12, 20, 40
MAX_ROWS = 40
MIN_BAR = 4.0  # pixels: a half-hour change window stays visible on a two-week axis
GAP = 14  # pixels between two stretches of a broken axis
LINEAR_DAYS = 16  # windows up to this long are drawn on one linear axis
PAD_US = 24 * 3_600_000_000  # each stretch of a broken axis runs a day either side of its events
COLOURS = {"drift": "#1f5fa8", "incident": "#b3261e", "wait": "#e8a33d", "change": "#7b5ea7",
           "rollback": "#2e7d32", "apart": "#8c8c8c"}


@dataclass
class _Row:
    area: str
    label: str
    bars: list[tuple[int, int, str, float]] = field(default_factory=list)  # start, end, colour, thickness
    ticks: list[tuple[int, str]] = field(default_factory=list)  # instant, colour
    open_from: int | None = None  # still open at the close: a dashed line from here
    apart: str | None = None  # withdrawn or excluded

    def instants(self) -> list[int]:
        return [t for b in self.bars for t in b[:2]] + [t for t, _ in self.ticks] + \
            ([self.open_from] if self.open_from is not None else [])


MIN_STRETCH = 48  # pixels: a stretch of a broken axis narrower than this could not carry a date label


def _room(stretches: int) -> float:
    """Pixels for the stretches of an axis, the gaps between them taken out."""
    return WIDTH - LEFT - RIGHT - GAP * (stretches - 1)


CLUSTER = 0.35  # events spanning less than this share of a short window: the axis spans the events
ZOOM_PAD_US = 3 * 3_600_000_000  # at least three hours either side of a cluster


class _Axis:
    """Maps instants to x. A short window is one linear axis, over the whole window, or over its
    events when they cluster in a small part of it (the window's edges are then named); a long
    window gets a broken axis that keeps only the stretches holding events."""

    def __init__(self, w0: int, w1: int, instants: list[int]) -> None:
        self.zoomed = False
        if instants and (w1 - w0) <= LINEAR_DAYS * 24 * 3_600_000_000 \
                and max(instants) - min(instants) < CLUSTER * (w1 - w0):
            pad = max(ZOOM_PAD_US, (max(instants) - min(instants)) // 5)
            lo, hi = max(w0, min(instants) - pad), min(w1, max(instants) + pad)
            stretches = [(lo, hi)]
            self.zoomed = (lo, hi) != (w0, w1)
        elif (w1 - w0) <= LINEAR_DAYS * 24 * 3_600_000_000 or not instants:
            stretches = [(w0, w1)]
        else:
            spans = sorted((max(w0, t - PAD_US), min(w1, t + PAD_US)) for t in instants)
            stretches = [spans[0]]
            for a, b in spans[1:]:
                if a <= stretches[-1][1]:
                    stretches[-1] = (stretches[-1][0], max(stretches[-1][1], b))
                else:
                    stretches.append((a, b))
        if len(stretches) > 1 and min(b - a for a, b in stretches) * _room(len(stretches)) \
                < MIN_STRETCH * sum(b - a for a, b in stretches):
            stretches = [(w0, w1)]  # a stretch too narrow to be dated: the whole window, linear, instead
        self.stretches = stretches
        # A broken axis that leaves out the window's first or last days marks that end too.
        self.cut_before = not self.zoomed and stretches[0][0] > w0
        self.cut_after = not self.zoomed and stretches[-1][1] < w1
        room = _room(len(stretches))
        total = sum(b - a for a, b in stretches) or 1
        self.boxes = []  # (a, b, x0, x1)
        x = float(LEFT)
        for a, b in stretches:
            w = room * (b - a) / total
            self.boxes.append((a, b, x, x + w))
            x += w + GAP

    def x(self, us: int) -> float:
        for a, b, x0, x1 in self.boxes:
            if us <= b:
                return x0 if us < a else x0 + (x1 - x0) * (us - a) / max(b - a, 1)
        return self.boxes[-1][3]

    @property
    def broken(self) -> bool:
        return len(self.boxes) > 1 or self.cut_before or self.cut_after


def listed(journal: Any) -> list[dict[str, Any]]:
    """A journal's lines as ``day60 show`` lists them: in the order of their instants (sealed
    lines last), each corrected line at its corrected instant in the exercise's zone, with its
    mark: the corrections applied (and the instant each replaced), a correction the supplier
    claims and no auditor has accepted yet (beside the time it would replace, which stays the
    line's), sealed or revealed, recorded late from a page of ``day60 serve``, and how a claim of
    the measured party stands. ``journal`` is one ``reading.read(..., events=True)`` returned."""
    from day60 import permissions
    from day60.display import when

    judged = permissions.judgements(journal.events)
    raw = {e["seq"]: e for e in journal.events}
    zone = journal.header["calendar"]["timezone"]
    claimed = permissions.corrections_claimed(journal.events, lambda at: when(at, zone))
    rows = []
    for e in sorted(effective(permissions.in_force(journal.events)),
                    key=lambda e: (e.at is None, e.at.timestamp() if e.at else 0, e.seq)):
        mark = "; ".join([f"corrected by seq {c['seq']} (was {when(e.original_at, zone)}): {c['reason']}"
                          for c in e.corrections] + claimed.get(e.seq, []))
        if e.sealed:
            mark = "sealed until revealed"
        elif e.revealed:
            mark = "revealed at close"
        if e.data.get("pressed_at"):  # sent late by a page of 'day60 serve'
            mark = "; ".join(filter(None, [f"recorded late (pressed {when(e.data['pressed_at'], zone)} on the "
                                           "browser's clock)", mark]))
        standing = permissions.claim_status(raw[e.seq], judged) if e.seq in raw else None
        if standing is not None:  # the supplier's own claim: it counts once accepted
            mark = "; ".join(filter(None, [mark, f"claim by {raw[e.seq]['by']}: {standing}"]))
        rows.append({"seq": e.seq, "at": e.at.astimezone(journal.tz).isoformat() if e.at else None, "kind": e.kind,
                     "id": e.id, "by": e.by, "data": e.data, "mark": mark})
    return rows


def svg(events: list[dict[str, Any]], calendar: BusinessCalendar, window: dict[str, str]) -> str:
    """Draw the exercise. Rows past MAX_ROWS are counted in a note, not drawn."""
    w0 = to_utc_us(dt.datetime.fromisoformat(window["start"]))
    w1 = to_utc_us(dt.datetime.fromisoformat(window["end"]))
    effective_events = effective(events)
    closes = [to_utc_us(e.at) for e in effective_events if e.kind == "exercise.close" and e.at is not None]
    end = min(w1, closes[0]) if closes and closes[0] >= w0 else w1  # after the close, the axis ends there
    rows = _rows(effective_events, w1)
    drawn = rows[:MAX_ROWS]
    axis = _Axis(w0, end, [t for r in rows for t in r.instants() if w0 <= t <= end])
    body = ROW * max(len(drawn), 1)
    zoom = None
    if axis.zoomed:
        shown = [from_utc_us(t, calendar.tz).strftime("%d %b %H:%M") for t in axis.boxes[0][:2]]
        edges = [from_utc_us(t, calendar.tz).strftime("%d %b") for t in (w0, end)]
        zoom = f"the events cluster, so the axis runs {shown[0]} to {shown[1]} of the window {edges[0]} to {edges[1]}"
    notes = _notes(len(rows) - len(drawn), axis.broken, zoom)
    ticks = _ticks(axis, calendar)
    below = len(drawn) > AXIS_BELOW_ROWS  # a tall drawing repeats its date axis under the rows
    foot = TOP + body + (AXIS_FOOT if below else 0)
    height = foot + max(56, 44 + NOTE_LINE * (len(notes) - 1))  # room for every line of the notes
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
           f'viewBox="0 0 {WIDTH} {height}" font-family="DejaVu Sans, sans-serif" font-size="9">',
           '<defs><pattern id="apart" width="5" height="5" patternUnits="userSpaceOnUse" '
           'patternTransform="rotate(45)"><rect width="2.5" height="5" fill="#8c8c8c"/></pattern></defs>']
    for a, b, x0, x1 in axis.boxes:
        out.append(f'<rect x="{x0:.1f}" y="{TOP - BAND}" width="{x1 - x0:.1f}" height="{body + BAND}" '
                   'fill="#e4e4e4"/>')
        first = from_utc_us(a, calendar.tz).date() - dt.timedelta(days=1)
        for s, e in calendar.intervals(first, from_utc_us(b, calendar.tz).date()):
            sa, sb = max(to_utc_us(s), a), min(to_utc_us(e), b)
            if sb > sa:
                out.append(f'<rect x="{axis.x(sa):.1f}" y="{TOP - BAND}" width="{axis.x(sb) - axis.x(sa):.1f}" '
                           f'height="{body + BAND}" fill="#ffffff"/>')
    for xg in ticks.grid:
        out.append(f'<line x1="{xg:.1f}" y1="{TOP - BAND}" x2="{xg:.1f}" y2="{TOP + body}" stroke="#bbbbbb" '
                   'stroke-width="0.5"/>')
    out += _draw_axis(TOP - AXIS_ABOVE, ticks, axis, above=True)
    if below:
        out += _draw_axis(TOP + body + AXIS_ABOVE - BAND + 2, ticks, axis, above=False)
    for edge, words in ((w0, "window opens"), (end, "closed" if closes and end == closes[0] else "window ends")):
        a, b = axis.boxes[0][0], axis.boxes[-1][1]
        if a <= edge <= b:
            xe = axis.x(edge)
            out.append(f'<line x1="{xe:.1f}" y1="{TOP - BAND}" x2="{xe:.1f}" y2="{TOP + body}" stroke="#1b1b1b" '
                       'stroke-width="0.8" stroke-dasharray="2,2"/>')
            at = xe + 2 if edge == w0 else xe - 2 - 4.6 * len(words)  # the end's label sits left of its line
            out.append(f'<text x="{at:.1f}" y="{TOP + body - 2}" fill="#1b1b1b" font-size="8">{words}</text>')
    for i, row in enumerate(drawn):
        out += _draw_row(row, TOP + ROW * i + ROW / 2 - 2, axis)
    out += _legend(foot + 16, notes)
    out.append("</svg>")
    return "\n".join(out)


HOUR_US = 3_600_000_000
DAY_US = 24 * HOUR_US
BAND = 2  # pixels the shaded plot reaches above the first row
AXIS_ABOVE = 10  # pixels from the date axis's line to the first row (the line sits in the white above the plot)
AXIS_FOOT = 22  # pixels a date axis under the rows takes
AXIS_BELOW_ROWS = 12  # a drawing with more rows than this has its date axis under the rows too
DATE_SIZE = 10  # font size of the date labels
LABEL_GAP = 6  # pixels at least between two date labels
DAY_STEPS = (1, 2, 3, 7, 14)  # days between date labels, the fewest that leave room for a label


@dataclass
class _Ticks:
    """The date axis: labelled ticks (x, text), unlabelled ticks, gridlines across the rows."""

    labels: list[tuple[float, str]] = field(default_factory=list)
    minor: list[float] = field(default_factory=list)
    grid: list[float] = field(default_factory=list)


def _ticks(axis: _Axis, calendar: BusinessCalendar) -> _Ticks:
    """Where the date axis is labelled. An axis under two days long is labelled every few hours;
    a longer one at local midnights, every 1, 2, 3, 7 (Mondays) or 14 days, the first of these that
    leaves room for every label, or on the first of each month when even a fortnight is too narrow.
    Every stretch of a broken axis gets at least one label, so any event is a few days at most from
    a date a reader can see. A label starts at its tick, and is left out rather than drawn over
    another label or past its stretch."""
    from day60.display import text_width

    ticks = _Ticks()
    first_us, last_us = axis.boxes[0][0], axis.boxes[-1][1]
    hours = len(axis.boxes) == 1 and last_us - first_us < 2 * DAY_US
    px_per_day = (axis.boxes[0][3] - axis.boxes[0][2]) * DAY_US / max(axis.boxes[0][1] - axis.boxes[0][0], 1)
    years = from_utc_us(first_us, calendar.tz).year != from_utc_us(last_us - 1, calendar.tz).year
    fmt = "%d %b %Y" if years else "%d %b"
    free_from = -1e9
    for i, (a, b, x0, x1) in enumerate(axis.boxes):
        right = x1 + (1 if i + 1 < len(axis.boxes) else RIGHT - 2)  # a label stays inside its stretch
        placed = 0
        if hours:
            candidates = _hour_ticks(a, b, x1 - x0, calendar)
        else:
            candidates = _day_ticks(a, b, px_per_day, fmt, calendar, text_width)
        for us, text, major in candidates:
            xt = axis.x(us)
            if major or (px_per_day >= 6 and not hours):  # a gridline each day where days are wide enough
                ticks.grid.append(xt)
            if not major:
                ticks.minor.append(xt)
                continue
            if not placed and hours:
                text = from_utc_us(us, calendar.tz).strftime("%d %b %H:%M")  # the first hour label is dated
            width = text_width(text, DATE_SIZE)
            if xt >= free_from and xt + width <= right:
                ticks.labels.append((xt, text))
                free_from, placed = xt + width + LABEL_GAP, placed + 1
            else:
                ticks.minor.append(xt)
        if not placed and not hours:  # no regular label fell in this stretch: date its first midnight
            day = from_utc_us(a, calendar.tz).date()
            for us in (to_utc_us(dt.datetime.combine(day + dt.timedelta(days=k), dt.time(), calendar.tz))
                       for k in range(3)):
                xt = axis.x(us)
                text = from_utc_us(us, calendar.tz).strftime(fmt)
                if a <= us <= b and xt >= free_from and xt + text_width(text, DATE_SIZE) <= right:
                    ticks.labels.append((xt, text))
                    free_from = xt + text_width(text, DATE_SIZE) + LABEL_GAP
                    break
    return ticks


def _hour_ticks(a: int, b: int, room: float, calendar: BusinessCalendar) -> list[tuple[int, str, bool]]:
    """An axis under two days long: every local hour in it, labelled every 1, 2, 3, 4, 6 or 12
    hours, at about 44 px apart or more (a label naming a new day is dated)."""
    per_hour = room / max((b - a) / HOUR_US, 1e-9)
    step = next((h for h in (1, 2, 3, 4, 6, 12) if h * per_hour >= 44), 24)
    t = from_utc_us(a, calendar.tz).replace(minute=0, second=0, microsecond=0)
    out = []
    while to_utc_us(t) <= b:
        us = to_utc_us(t)
        if us >= a:
            text = t.strftime("%d %b %H:%M") if t.hour == 0 else t.strftime("%H:%M")
            out.append((us, text, t.hour % step == 0))
        t = from_utc_us(us + HOUR_US, calendar.tz)
    return out


def _day_ticks(a: int, b: int, px_per_day: float, fmt: str, calendar: BusinessCalendar,
               text_width: Any) -> list[tuple[int, str, bool]]:
    """Every local midnight from ``a`` to ``b``, the ones to be labelled marked: each day, every
    second or third day, each Monday or every second Monday, or, failing those, each month's first."""
    widest = max(text_width(dt.date(2026, m, 28).strftime(fmt), DATE_SIZE) for m in range(1, 13))
    step = next((s for s in DAY_STEPS if s * px_per_day >= widest + LABEL_GAP), None)
    day = from_utc_us(a, calendar.tz).date()
    last = from_utc_us(b, calendar.tz).date()
    out = []
    first = None
    while day <= last:
        us = to_utc_us(dt.datetime.combine(day, dt.time(), calendar.tz))
        if a <= us <= b:
            first = day if first is None else first
            if step is None:
                major = day.day == 1
            elif step < 7:
                major = (day - first).days % step == 0
            else:  # Mondays; every second Monday counted from a fixed Monday, the same in every stretch
                major = day.weekday() == 0 and (step == 7 or (day.toordinal() // 7) % 2 == 0)
            if major or px_per_day >= 3 or day.weekday() == 0:  # a year's axis ticks weeks, not days
                out.append((us, day.strftime(fmt), major))
        day += dt.timedelta(days=1)
    return out


def _draw_axis(y: float, ticks: _Ticks, axis: _Axis, above: bool) -> list[str]:
    """The date axis as a line per stretch at ``y``, its ticks, its labels (above the line for the
    axis over the rows, under it for the one below), and a break mark "//" on the line in each gap
    of a broken axis, and at either end where the window's first or last days are left out: never
    inside the rows."""
    out = []
    for _, _, x0, x1 in axis.boxes:
        out.append(f'<line x1="{x0:.1f}" y1="{y}" x2="{x1:.1f}" y2="{y}" stroke="#555" stroke-width="0.8"/>')
    toward = 1 if above else -1  # ticks point at the rows
    for xt in ticks.minor:
        out.append(f'<line x1="{xt:.1f}" y1="{y}" x2="{xt:.1f}" y2="{y + 2 * toward}" stroke="#555" '
                   'stroke-width="0.5"/>')
    ty = y - 3 if above else y + 11
    for xt, text in ticks.labels:
        out.append(f'<line x1="{xt:.1f}" y1="{y - 3 * toward}" x2="{xt:.1f}" y2="{y + 4 * toward}" '
                   'stroke="#1b1b1b" stroke-width="0.8"/>')
        out.append(f'<text x="{xt + 1:.1f}" y="{ty}" fill="#1b1b1b" font-size="{DATE_SIZE}">{escape(text)}</text>')
    breaks = [(x1 + nx0) / 2 for (_, _, _, x1), (_, _, nx0, _) in zip(axis.boxes, axis.boxes[1:], strict=False)]
    if axis.cut_before:
        breaks.insert(0, axis.boxes[0][2] - GAP / 2)
    if axis.cut_after:
        breaks.append(axis.boxes[-1][3] + GAP / 2)
    for mid in breaks:
        out.append(f'<text x="{mid - 3.7:.1f}" y="{y + 3.5:.1f}" fill="#1b1b1b" font-size="10">//</text>')
    return out


def _draw_row(row: _Row, y: float, axis: _Axis) -> list[str]:
    colour = COLOURS["apart"] if row.apart else COLOURS[row.area]
    out = [_label(row.label, f" ({row.apart})" if row.apart else "", y + 3, colour)]
    for s, e, bar_colour, thick in row.bars:
        xa, xb = axis.x(s), axis.x(e)
        if xb - xa < MIN_BAR:
            xa, xb = xa - (MIN_BAR - (xb - xa)) / 2, xa + (MIN_BAR + (xb - xa)) / 2
        fill = "url(#apart)" if row.apart else bar_colour
        out.append(f'<rect x="{xa:.1f}" y="{y - thick / 2:.1f}" width="{xb - xa:.1f}" height="{thick:.1f}" '
                   f'fill="{fill}"/>')
    if row.open_from is not None:
        xa, xb = axis.x(row.open_from), axis.boxes[-1][3]
        out.append(f'<line x1="{xa:.1f}" y1="{y}" x2="{xb:.1f}" y2="{y}" stroke="{colour}" stroke-width="2" '
                   'stroke-dasharray="3,2"/>')
    for t, tick_colour in row.ticks:
        xt = axis.x(t)
        out.append(f'<rect x="{xt - 1:.1f}" y="{y - 6}" width="2" height="12" fill="{tick_colour}"/>')
    return out


LABEL_ROOM = LEFT - 8  # from x=4 to just short of the plot
LABEL_SIZE = 9


def _label(ident: str, suffix: str, y: float, colour: str) -> str:
    """A row's label: its id, shortened at a word's end with an ellipsis if it does not fit beside
    ``suffix`` (withdrawn, excluded), which is always shown whole; an id that is one word too long
    is drawn whole and compressed into the room. The full id is in the journal and the score JSON."""
    from day60.display import fit, text_width

    room = LABEL_ROOM - text_width(suffix, LABEL_SIZE)
    f = fit(ident, max(room, LABEL_ROOM / 3), LABEL_SIZE)
    text = f["text"] + suffix
    squeeze = f["squeeze"] or text_width(text, LABEL_SIZE) > LABEL_ROOM
    fitted = f' textLength="{LABEL_ROOM}" lengthAdjust="spacingAndGlyphs"' if squeeze else ""
    return f'<text x="4" y="{y}" fill="{colour}"{fitted}>{escape(text)}</text>'


NOTE_LINE = 12  # pixels from one line of the notes under the legend to the next


def _notes(hidden: int, broken: bool, zoom: str | None) -> list[str]:
    """What the drawing's marks mean, and what it leaves out, as lines that fit its width (wrapped
    between words, never cut)."""
    from day60.display import wrap

    note = "ticks: detections, first communications, decisions; white: business hours; dashed: open at the close"
    if broken:
        note += "; // : a stretch with no recorded event is left out"
    if hidden:
        note += f"; {hidden} more row{'' if hidden == 1 else 's'} not drawn"
    return wrap(note, WIDTH - 8, 9) + (wrap(zoom, WIDTH - 8, 9) if zoom else [])


def _legend(y: float, notes: list[str]) -> list[str]:
    out = []
    items = [("drift: onset to notice", "drift"), ("incident: clock to restore", "incident"),
             ("waiting on partner", "wait"), ("change window", "change"), ("rollback", "rollback"),
             ("withdrawn or excluded", "apart")]
    lx = 4.0
    for text, key in items:
        fill = "url(#apart)" if key == "apart" else COLOURS[key]
        out.append(f'<rect x="{lx:.1f}" y="{y - 7}" width="10" height="8" fill="{fill}"/>')
        out.append(f'<text x="{lx + 13:.1f}" y="{y}">{escape(text)}</text>')
        lx += 13 + 5.3 * len(text) + 10
    for i, line in enumerate(notes):
        out.append(f'<text x="4" y="{y + 14 + NOTE_LINE * i}" fill="#555">{escape(line)}</text>')
    return out


def _rows(events: list[Any], w1: int) -> list[_Row]:
    """One row per drift, incident and rollback, from the effective (corrected, revealed) events."""
    by: dict[tuple[str, str], dict[str, Any]] = {}
    for e in events:
        area = e.kind.split(".")[0]
        if e.at is None or area not in ("drift", "incident", "rollback") or e.kind in (
                "drift.false-alert", "drift.announced", "drift.told"):
            continue
        slot = by.setdefault((area, e.id), {"area": area, "id": e.id, "kinds": {}, "pauses": []})
        at = to_utc_us(e.at)
        slot["kinds"].setdefault(e.kind, at)
        slot.setdefault("last", {})[e.kind] = at  # a re-opened incident ends at its last restore
        if e.kind.endswith("-start"):
            slot.setdefault("opened", {})[e.kind] = at
        elif e.kind.endswith("-end"):
            start = slot.get("opened", {}).pop(e.kind[: -len("end")] + "start", None)
            if start is not None:
                slot["pauses"].append(("wait" if "wait" in e.kind else "change", start, at))
    rows = [_row(slot, w1) for slot in by.values()]
    order = list(COLOURS)
    return sorted(rows, key=lambda r: (order.index(r.area), min(r.instants(), default=0)))


def _row(slot: dict[str, Any], w1: int) -> _Row:
    k, area = slot["kinds"], slot["area"]
    row = _Row(area, slot["id"])
    if area == "drift":
        onset = k.get("drift.onset")
        end = k.get("drift.notice")
        if onset is not None:
            if end is not None:
                row.bars.append((onset, end, COLOURS["drift"], 7))
            else:
                row.bars.append((onset, onset, COLOURS["drift"], 7))
                row.open_from = onset
        if "drift.detected" in k:
            row.ticks.append((k["drift.detected"], "#0b2f57"))
    elif area == "incident":
        starts = [k[x] for x in ("incident.detected", "incident.partner-notice") if x in k]
        start = min(starts) if starts else k.get("incident.raised")
        last = slot["last"]
        closed = next((last[x] for x in ("incident.restored", "incident.withdrawn", "incident.excluded") if x in last),
                      None)
        row.apart = "withdrawn" if "incident.withdrawn" in k else "excluded" if "incident.excluded" in k else None
        if start is not None:
            if closed is not None and closed <= w1:
                row.bars.append((start, closed, COLOURS["incident"], 7))
            else:
                row.bars.append((start, start, COLOURS["incident"], 7))
                row.open_from = start
        for kind, s, e in slot["pauses"]:
            row.bars.append((s, e, COLOURS[kind], 11))
        for kind in ("incident.raised", "incident.communicated"):
            if kind in k:
                row.ticks.append((k[kind], "#5c120e"))
    else:
        crit, dec, smoke = (k.get(f"rollback.{x}") for x in ("criterion-met", "decision", "smoke-pass"))
        if smoke is not None and k.get("rollback.serving") is not None:
            smoke = max(smoke, k["rollback.serving"])  # it ends when serving and past the smoke set (3.20.1)
        if crit is not None and dec is not None:
            row.bars.append((crit, dec, "#9cc59e", 4))
        if dec is not None:
            if smoke is not None:
                row.bars.append((dec, smoke, COLOURS["rollback"], 7))
            else:
                row.open_from = dec
            row.ticks.append((dec, "#16451a"))
        elif crit is not None:
            row.bars.append((crit, crit, COLOURS["rollback"], 7))
        if "rollback.requeue-complete" in k:
            row.ticks.append((k["rollback.requeue-complete"], "#16451a"))
    return row

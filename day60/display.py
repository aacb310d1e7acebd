"""Output formatting: rounding for people (tables only), and plain values for JSON (unrounded).

Also what makes an output safe to open: Unicode direction controls from data shown as visible
escapes in every document (``visible``), spreadsheet formulas neutralised in CSV cells
(``csv_cell``), and Markdown syntax in data escaped (``markdown_text``).
"""

from __future__ import annotations

import contextlib
import functools
import re
from typing import Any

# Characters that change the direction text is drawn in (embeddings, overrides, isolates) and the
# direction marks: from data, they could make a name read backwards on a cover, so every document
# shows them as visible escapes such as <U+202E>.
DIRECTION_CONTROLS = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"
# Control characters other than tab and line breaks (C0, DEL, C1): from data (a deal file, an
# answers file, a vendor export), an escape sequence would reach a terminal that shows the
# document (clearing the screen, rewriting a line, a hidden link), so they are shown too.
CONTROLS = "\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f"
_DIRECTION = re.compile(f"[{DIRECTION_CONTROLS}{CONTROLS}]")


def visible(text: str, markup: bool = False) -> str:
    """``text`` with every direction control, and every control character but tab and line
    breaks, written as <U+XXXX> (in HTML ``markup``, escaped)."""
    if not _DIRECTION.search(text):
        return text
    form = "&lt;U+{:04X}&gt;" if markup else "<U+{:04X}>"
    return _DIRECTION.sub(lambda m: form.format(ord(m.group())), text)


def visible_all(value: Any) -> Any:
    """Every string inside ``value`` (dicts, lists, tuples) made ``visible``."""
    if isinstance(value, str):
        return visible(value)
    if isinstance(value, dict):
        return {k: visible_all(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [visible_all(v) for v in value] if isinstance(value, list) else tuple(visible_all(v) for v in value)
    return value


_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: Any) -> Any:
    """A CSV cell a spreadsheet will not run: text beginning with =, +, -, @, a tab or a carriage
    return gets a leading apostrophe (the OWASP rule); numbers are left as numbers."""
    if not isinstance(value, str):
        return value
    value = visible(value)
    return "'" + value if value.startswith(_FORMULA_START) else value


def csv_frame(frame: Any) -> Any:
    """A pandas frame with every text cell passed through ``csv_cell`` (numbers untouched)."""
    import pandas as pd

    out = frame.copy()
    for column in out.columns:
        if pd.api.types.is_object_dtype(out[column]) or pd.api.types.is_string_dtype(out[column]):
            out[column] = out[column].astype(object).map(csv_cell)
    return out


_MARKDOWN_ALWAYS = re.compile(r"([\\`*|~])")
_MARKDOWN_EDGE_UNDERSCORE = re.compile(r"(?<![0-9A-Za-z])_|_(?![0-9A-Za-z])")


def markdown_text(value: Any) -> Any:
    """Text from data made inert in Markdown: &, < and > as entities (no raw HTML, no autolink in
    angle brackets); a link or image cannot form (']' is never followed by a bare '(' or '[', '!'
    never by a bare '['); emphasis, code, strike-through and table pipes escaped; bare URLs, www.
    and addresses broken so no renderer links them; line breaks joined; direction controls
    made visible."""
    if not isinstance(value, str):
        return value
    text = visible(" ".join(value.splitlines()))
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    text = _MARKDOWN_ALWAYS.sub(r"\\\1", text)
    text = _MARKDOWN_EDGE_UNDERSCORE.sub(r"\\_", text)
    text = text.replace("](", "]\\(").replace("][", "]\\[").replace("![", "\\![")
    text = re.sub(r"(?i)(www)\.", r"\1\\.", text)  # www. would autolink in GitHub Markdown
    return text.replace("://", "\\://").replace("@", "\\@")


# Every figure a person reads goes through these helpers: a missing figure (None, NaN, an
# infinity) can only come out as "not run" or the charter's own phrase, and counts agree with
# their nouns ("1 hour", "2 hours").
CHARTER_PHRASES = ("not detected within the window", "not exercised", "not evidenced", "sealed", "not run")
_SINGULAR = {"hours": "hour", "business hours": "business hour", "minutes": "minute", "alerts": "alert",
             "replies": "reply", "seconds": "second", "times": "time", "days": "day", "incidents": "incident",
             "observations": "observation", "drifts": "drift", "rollbacks": "rollback", "reports": "report"}


def missing(reason: str | None = None) -> str:
    """The words for a figure with nothing behind it: the charter's phrase when the reason is
    one, else "not run: <reason>" (never "not run: not run: ...")."""
    reason = (reason or "").strip()
    if reason.startswith(CHARTER_PHRASES):
        return reason
    return f"not run: {reason}" if reason else "not run"


def _absent(value: Any) -> bool:
    import math

    return value is None or (isinstance(value, float) and not math.isfinite(value))


def unit_for(value: float, unit: str) -> str:
    """The unit as it reads after ``value``: singular for exactly one."""
    return _SINGULAR.get(unit, unit) if value == 1 else unit


def plural(n: int, noun: str) -> str:
    """'1 alert', '3 alerts' (``noun`` given in the plural)."""
    return f"{n:,} {unit_for(n, noun)}"


def num(value: float | None, digits: int = 2, unit: str = "", reason: str | None = None) -> str:
    """A rounded number with its unit, or the words for a missing figure."""
    if _absent(value):
        return missing(reason) if reason else "not run"
    text = f"{value:,.{digits}f}"
    return f"{text} {unit_for(float(text.replace(',', '')), unit)}".rstrip()


def sided_digits(value: float, line: float, comparator: str, digits: int = 1) -> int:
    """How many decimals ``value`` needs, from ``digits`` up, for its rounded text to fall on the
    same side of ``line`` as the value itself (charter 3.1.5: rounding never moves a figure across
    a floor or ceiling): a figure that misses the line never reads as on it, and one that meets it
    never reads as past it. ``comparator``: "floor" (met at or above) or "ceiling" (at or below)."""
    if _absent(value) or _absent(line):
        return digits
    for d in range(digits, 16):
        if not crosses(float(f"{value:.{d}f}"), value, line, comparator):
            return d
    return 15


def crosses(shown: float, value: float, line: float, comparator: str) -> bool:
    """Whether ``shown`` (``value`` rounded) reads on the other side of ``line`` from ``value``, or
    on the line itself when ``value`` misses it."""
    def met(x: float) -> bool:
        return x >= line if comparator == "floor" else x <= line

    return met(shown) != met(value) or (not met(value) and shown == line)


def sided(value: float | None, line: float | None, comparator: str, digits: int = 1, unit: str = "",
          reason: str | None = None) -> str:
    """``num`` with as many decimals as keep the figure on its own side of the line (``sided_digits``);
    where even fifteen cannot, the words say which side it is on."""
    if _absent(value):
        return missing(reason) if reason else "not run"
    if line is None or _absent(line):
        return num(value, digits, unit)
    d = sided_digits(float(value), float(line), comparator, digits)
    text = num(value, d, unit)
    if crosses(float(f"{value:.{d}f}"), float(value), float(line), comparator):
        text += f", {'below the floor' if comparator == 'floor' else 'above the ceiling'} of {plain_number(line)}"
    return text


def stat(block: dict[str, Any], unit: str, digits: int = 2) -> str:
    """'mean 3.50 h (n=3, sum 10.50, max 6.00)' or 'not run: <reason>'. Where the block comes from
    a population, the population and those not detected are stated, and the maximum of a
    population with a member never detected reads as the charter's phrase, not a number."""
    population = block.get("population")
    if not block.get("count") or _absent(block.get("mean")):
        text = missing(block.get("reason") or "no observations")
        if population:
            text = f"{block.get('max_reason') or text} (population {population}, none measured)"
        return text
    parts = [f"n={block['count']}" + (f" of {population}" if population is not None else ""),
             f"sum {num(block['sum'], digits)}"]
    if "median" in block:
        parts.append(f"median {num(block['median'], digits)}")
    if block.get("max_reason"):
        parts.append(f"max: {block['max_reason']} (largest measured {num(block['max_of_detected'], digits)})")
    else:
        parts.append(f"max {num(block['max'], digits)}")
    return f"mean {num(block['mean'], digits, unit)} ({', '.join(parts)})"


def percent(value: float | None, reason: str | None = None) -> str:
    return missing(reason) if _absent(value) else f"{value:.1f}%"


def line_figure(line: dict[str, Any]) -> str:
    """A rubric line's figure in words, with its count."""
    fig = line.get("figure")
    if fig is None:
        return "not run"
    if "observations" in fig:
        parts = []
        for o in fig["observations"][:6]:
            unit = o.get("unit") or fig.get("unit") or ""
            digits = 0 if unit == "alerts" else 2
            value = sided(o["value"], _goal(o, line.get("target") or {}), "ceiling", digits, unit) \
                if o["value"] is not None else (o.get("note") or "never happened")
            parts.append(f"{o['id']}: {value}")
        more = len(fig["observations"]) - 6
        tail = f"; and {more} more" if more > 0 else ""
        return f"n={fig['count']}: " + "; ".join(parts) + tail
    if "periods" in fig and "reports" not in fig:
        parts = [f"{p['period']}: {p['passing']} of {p['required']} pass ({p['not_applicable']} n/a)"
                 if p.get("delivered", True) else f"{p['period']}: not received by the close, 0 of {p['required']} "
                                                  "pass (every element absent)" for p in fig["periods"]]
        return f"{'; '.join(parts)}; mean {fig['value']:.1f}%"
    if "reports" in fig:
        parts = [f"{p['period']} delivered {p['delivered']}, due {p['due']}: " + ("on time" if p["on_time"] else "late")
                 if p["delivered"] else f"{p['period']} not received by the close, due {p['due']}"
                 for p in fig["periods"]]
        return f"{fig['value']} of {fig['reports']} on time: " + "; ".join(parts)
    if "rollbacks" in fig:
        return f"{sum(1 for r in fig['restored'] if r)} of {fig['rollbacks']} with pin, prompt and thresholds named"
    return str(fig)


def _goal(o: dict[str, Any], target: dict[str, Any]) -> float | None:
    """The target an observation of a time line is judged against (its severity's, where the line
    has one per severity), or None."""
    band = (target.get("by_severity") or {}).get(str(o.get("severity"))) or {} if "by_severity" in target else target
    goal = band.get("target")
    return None if _absent(goal) else float(goal)


def line_target(line: dict[str, Any]) -> str:
    """A rubric line's target in words, and where it came from."""
    t = line.get("target")
    if not t:
        return ""
    if "by_severity" in t:
        return "; ".join(f"S{sev} within {num(b['target'], 0, b['unit'])} ({b['source']})"
                         for sev, b in sorted(t["by_severity"].items()))
    if "slide_end" in t:
        return (f"within {num(t['target'], 0, t['unit'])}; 60% at {num(t['slide_end'], 0)}, "
                f"nothing after {num(t['cutoff'], 0)} ({t['source']})")
    if "due" in t:
        return t["due"]
    if "kind" in t:
        return f"{t['kind']} rollbacks"
    return f"{num(t['target'], 0, t.get('unit', ''))} ({t.get('source', '')})"


def jsonable(value: Any) -> Any:
    """Plain JSON values, unrounded: numpy scalars become numbers, and NaN or an infinity (no
    figure) becomes null, so the output is always valid JSON."""
    import math

    if isinstance(value, dict):
        return {k: jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    if hasattr(value, "item"):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def voice_basis(raw: dict[str, Any]) -> dict[str, str]:
    """What each voice sub-score was counted over, in words."""
    if raw.get("note"):
        return dict.fromkeys(("latency", "turn_taking", "barge_in", "content"), raw["note"])
    req = raw["keywords_required"]
    return {
        "latency": f"{raw['latency_inside']} of {raw['latency_counted']} replies within {raw['budget_ms']:g} ms"
        if raw["latency_counted"] else "no reply to a caller turn: nothing to count",
        "turn_taking": f"{raw['harmful_overlaps']} harmful overlap(s) in {raw['agent_turns']} agent turn(s)",
        "barge_in": f"{raw['barge_in_handled']} of {raw['barge_in_pairs']} interruptions yielded to"
        if raw["barge_in_pairs"] else "no interruption: nothing to count",
        "content": f"{req - len(raw['keywords_missing'])} of {req} keywords said" if req
        else "no keywords required",
    }


def parts(values: dict[str, Any]) -> str:
    """A drill's parts in one line, e.g. 'correct 5, of 6'; lists are counted (details stay in the JSON)."""
    shown = []
    for key, value in values.items():
        if isinstance(value, bool) or value is None or isinstance(value, str):
            shown.append(f"{key.replace('_', ' ')} {value if value is not None else 'none'}")
        elif isinstance(value, int | float):
            shown.append(f"{key.replace('_', ' ')} {plain_number(value)}")
        elif isinstance(value, list) and not all(isinstance(v, bool) for v in value):
            shown.append(f"{len(value)} {key.replace('_', ' ')}")  # per-round detail is in the JSON
    return ", ".join(shown)


def plain_number(value: float) -> str:
    """A number as a person reads it: whole numbers in full at any size (never 1.99457e+06),
    fractions to at most six significant decimals."""
    if float(value).is_integer():
        return f"{int(value):,}"
    return f"{value:,.6f}".rstrip("0").rstrip(".")


def when(value: Any, tz: str | None = None) -> str:
    """An ISO 8601 instant as a person reads it: '2026-09-29 10:12 +01:00' (seconds shown only when
    not zero), in the timezone ``tz`` when given; anything else as it is, a missing one as 'none'."""
    import datetime as dt
    from zoneinfo import ZoneInfo

    if value is None:
        return "none"
    try:
        t = dt.datetime.fromisoformat(str(value))
        if tz and t.tzinfo is not None:
            t = t.astimezone(ZoneInfo(tz))
    except (ValueError, KeyError):
        return str(value)
    clock = t.strftime("%H:%M:%S" if t.second or t.microsecond else "%H:%M")
    offset = t.strftime("%z")
    return f"{t.date().isoformat()} {clock}" + (f" {offset[:3]}:{offset[3:]}" if offset else "")


# Kinds as a person says them (the room, the score document). A kind missing here reads as its
# name in words.
KIND_WORDS = {
    "safety.agreed": "safety sign-off",
    "injection.stopped": "injection stopped",
    "injection.not-run": "injection not run",
    "drift.onset": "drift onset",
    "drift.detected": "supplier's detection of the drift",
    "drift.notice": "written notice of the drift",
    "drift.false-alert": "false alert",
    "drift.announced": "drift announced in advance",
    "drift.told": "supplier told of the injection",
    "incident.raised": "incident raised",
    "incident.detected": "supplier's detection of the incident",
    "incident.partner-notice": "partner's notice of the incident",
    "incident.classified": "severity set",
    "incident.communicated": "first communication to the partner",
    "incident.wait-start": "start of waiting on the partner",
    "incident.wait-end": "end of waiting on the partner",
    "incident.change-window-start": "start of the change window",
    "incident.change-window-end": "end of the change window",
    "incident.restored": "restore confirmed",
    "incident.ticket-closed": "ticket closed",
    "incident.reopened": "incident reopened",
    "incident.withdrawn": "incident withdrawn",
    "incident.excluded": "incident excluded",
    "rollback.criterion-met": "rollback criterion met",
    "rollback.decision": "rollback decision",
    "rollback.serving": "previous release serving",
    "rollback.smoke-pass": "smoke set passed",
    "rollback.requeue-complete": "re-queue complete",
    "rollback.data-restore": "data restored",
    "report.received": "monthly report received",
    "report.element": "report element checked",
    "exercise.close": "close of the exercise",
    "correction": "correction",
    "reveal": "reveal",
    "dispute": "dispute",
    "resolve": "dispute resolved",
    "accept": "acceptance of a claim",
    "reject": "rejection of a claim",
    "notice.sent": "notice sent",
    "timestamp.token": "timestamp token",
}



def kind_words(kind: str) -> str:
    """A journal kind in words: "restore confirmed" for incident.restored."""
    return KIND_WORDS.get(kind, kind.replace(".", " ").replace("-", " "))


def author(by: str | None, header: dict[str, Any]) -> str | None:
    """Who wrote a line, one way for one person: the command line writes the runner's lines under
    the runner's bare name and the web room as "NAME (runner)", so a bare runner's name reads as
    the room's. Any other ``by`` is as written."""
    if by and by == header.get("runner") and not by.endswith(")"):
        return f"{by} (runner)"
    return by


def breakable(text: Any) -> Any:
    """An identifier for an HTML table cell: escaped, and allowed to break only after an
    underscore or a hyphen (never mid-word), so a long id wraps where a reader expects."""
    from markupsafe import Markup, escape

    return Markup(str(escape(str(text))).replace("_", "_<wbr>").replace("-", "-<wbr>"))


def threshold_words(row: dict[str, Any]) -> str:
    """A comply row's threshold as a table prints it."""
    if row["comparator"] == "report":
        return "none (a reporting duty)"
    return f"{row['comparator']} {'not set' if row['threshold'] is None else row['threshold']}"


def nothing_earned(line: dict[str, Any]) -> str:
    """Why a line earned nothing, in words: its reason, or for a line that was scored and still
    earned nothing, what its observations say (every one missed its cut-off or never happened)."""
    if line["status"] != "scored" or not (line.get("figure") or {}).get("observations"):
        return line.get("reason") or "no reason recorded"
    notes = sorted({o.get("note") or "beyond the cut-off" for o in line["figure"]["observations"]})
    return "; ".join(notes) + (f"; {line['reason']}" if line.get("reason") else "")


# ----- one reason said once -------------------------------------------------------------------------


def is_missing(text: str) -> bool:
    """True for the words of a figure with nothing behind it ('not run: ...', a charter phrase)."""
    return text.strip().startswith(CHARTER_PHRASES)


def names(items: list[str]) -> str:
    """'a', 'a and b', 'a, b and c'."""
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def merge_missing(lines: list[tuple[str, str | None, str]]) -> list[tuple[str, str]]:
    """Lines of (figure, qualifier or None, text) as (label, text), where consecutive lines with
    the same missing-figure text (not run and its reason, or a charter phrase) become one line
    naming each figure, the reason said once: 'notice lead time (hours and business hours) and
    detection lead time (hours and business hours): not run: ...'. A line with a figure is never
    merged, even with an equal one: two equal numbers are two findings."""
    groups: list[list[tuple[str, str | None, str]]] = []
    for line in lines:
        if groups and is_missing(line[2]) and groups[-1][-1][2] == line[2]:
            groups[-1].append(line)
        else:
            groups.append([line])
    out = []
    for group in groups:
        figures: dict[str, list[str]] = {}
        for figure, qualifier, _ in group:
            figures.setdefault(figure, [])
            if qualifier:
                figures[figure].append(qualifier)
        label = names([f + (f" ({names(q)})" if q else "") for f, q in figures.items()])
        out.append((label, group[0][2]))
    return out


def stack_repeats(rows: list[dict[str, Any]], same: tuple[str, ...], stacked: tuple[str, ...]) -> list[dict[str, Any]]:
    """Table rows where consecutive rows whose ``same`` cells hold one missing-figure reason become
    one row: its ``stacked`` cells list each row's value in order, comma-separated (the rubric
    lines and their points), the shared cells are printed once. Rows with a figure are left as
    they are."""
    out: list[dict[str, Any]] = []
    for row in rows:
        key = tuple(str(row.get(k, "")) for k in same)
        prev = out[-1] if out else None
        if prev is not None and prev["_key"] == key and any(is_missing(v) for v in key):
            for k in stacked:
                prev[k] = f"{prev[k]}, {row.get(k, '')}"
            continue
        out.append({**row, "_key": key})
    return [{k: v for k, v in r.items() if k != "_key"} for r in out]


# ----- labels that fit their room -----------------------------------------------------------------

# DejaVu Sans advance widths of the printable ASCII characters (space to tilde), in 2048ths of an
# em, from the font's own metrics table: how wide a label will be drawn, without the font at hand.
_ADVANCE = dict(zip(
    " !\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~",
    (651, 821, 942, 1716, 1303, 1946, 1597, 563, 799, 799, 1024, 1716, 651, 739, 651, 690, 1303, 1303, 1303, 1303,
     1303, 1303, 1303, 1303, 1303, 1303, 690, 690, 1716, 1716, 1716, 1087, 2048, 1401, 1405, 1430, 1577, 1294, 1178,
     1587, 1540, 604, 604, 1343, 1141, 1767, 1532, 1612, 1235, 1612, 1423, 1300, 1251, 1499, 1401, 2025, 1403, 1251,
     1403, 799, 690, 799, 1716, 1024, 1024, 1255, 1300, 1126, 1300, 1260, 721, 1300, 1298, 569, 569, 1186, 569, 1995,
     1298, 1253, 1300, 1300, 842, 1067, 803, 1298, 1212, 1675, 1212, 1212, 1075, 1303, 690, 1303, 1716), strict=True))
ELLIPSIS = "\u2026"
_BREAK_AFTER = "_-/"  # an identifier may be shortened after these, as after a space


def text_width(text: str, size: float) -> float:
    """How wide ``text`` is drawn at ``size`` (px or pt) in DejaVu Sans: its own advances for ASCII,
    a full em for a wide (CJK) character, 0.6 em for anything else."""
    import unicodedata

    units = 0
    for ch in text:
        if ch in _ADVANCE:
            units += _ADVANCE[ch]
        else:
            units += 2048 if unicodedata.east_asian_width(ch) in ("W", "F") else 1229
    return units * size / 2048


def fit(text: str, room: float, size: float) -> dict[str, Any]:
    """``text`` as a label ``room`` wide at ``size``: whole when it fits, else shortened to its
    longest run of whole words (cut at a space, or after an underscore, hyphen or slash) that fits
    with an ellipsis, never inside a word. When even the first word is too wide it is kept whole
    and ``squeeze`` is true, for the drawing to compress it into the room (SVG textLength) rather
    than cut it. The full text stays in the JSON beside the document."""
    text = " ".join(str(text).split())
    if text_width(text, size) <= room:
        return {"text": text, "squeeze": False, "shortened": False}
    cuts = [i for i in range(1, len(text)) if text[i] == " " or text[i - 1] in _BREAK_AFTER]
    heads = [h for h in (text[:i].rstrip(" ,;:(") for i in cuts) if h]  # whole words, shortest first
    mark = text_width(ELLIPSIS, size)
    for head in reversed(heads):
        if text_width(head, size) + mark <= room:
            return {"text": head + ELLIPSIS, "squeeze": False, "shortened": True}
    label = heads[0] + ELLIPSIS if heads else text
    return {"text": label, "squeeze": text_width(label, size) > room, "shortened": bool(heads)}


def wrap(text: str, room: float, size: float) -> list[str]:
    """``text`` as lines no wider than ``room`` at ``size``, broken between words (a word wider
    than the room has a line of its own, whole)."""
    lines: list[str] = []
    for word in str(text).split():
        if lines and text_width(f"{lines[-1]} {word}", size) <= room:
            lines[-1] = f"{lines[-1]} {word}"
        else:
            lines.append(word)
    return lines


PDF_ROWS = 30  # a document draws at most this many items of one kind; the rest are counted and
# every one of them is in the score JSON and the tables 'day60 metrics --out' writes


def chart_rows(line: dict[str, Any]) -> list[dict[str, Any]]:
    """One bar per observation of a time line: its label, value, target and unit (the unit its
    target is judged in), and ``ratio`` (value / target, how far from its target) for ordering.

    Past PDF_ROWS observations, the ones furthest from their target are drawn (those with no
    figure first) and a last row (``more``) counts the rest."""
    fig, target = line.get("figure") or {}, line.get("target") or {}
    rows = []
    for o in fig.get("observations", []):
        band = (target["by_severity"].get(str(o.get("severity"))) or {}) if "by_severity" in target else target
        unit = o.get("unit") or band.get("unit") or fig.get("unit") or ""
        goal = band.get("target")
        goal = None if _absent(goal) else float(goal)
        value = None if _absent(o["value"]) else float(o["value"])
        label = f"{o['id']} (S{o['severity']})" if "severity" in o else o["id"]
        ratio = None if value is None or not goal else value / goal
        text = (o.get("note") or missing()) if value is None else sided(value, goal, "ceiling", 2, unit)
        rows.append({"label": label, "value": value, "target": goal, "unit": unit, "ratio": ratio, "text": text})
    if len(rows) <= PDF_ROWS:
        return rows
    worst = sorted(rows, key=lambda r: -1e300 if r["ratio"] is None else -r["ratio"])[:PDF_ROWS]
    hidden = len(rows) - PDF_ROWS
    return [*worst, {"label": f"{hidden:,} more", "value": None, "target": None, "unit": "", "ratio": None,
                     "more": True,
                     "text": f"the {PDF_ROWS} furthest from target of {len(rows):,} are drawn; all in the JSON"}]


# How each unit a time line is judged in is named under its chart axis.
AXIS_UNITS = {"hours": "hours, elapsed (wall clock)",
              "business hours": "business hours (working time on the exercise calendar)"}
BAR_ROW, BAR_SIZE, BAR_LEFT = 22, 10, 124  # row height, font size, x where the plot starts


def bar_chart(rows: list[dict[str, Any]], width: float = 640) -> dict[str, Any]:
    """A bar chart's layout, from ``chart_rows``: bars proportional to their values, on one axis
    per unit (observations judged on different clocks, such as elapsed and business hours, are
    never drawn against one scale), each axis from 0 to a round tick at or above the largest
    value or target on it, ticked and named by its unit. Each row has its target marked on the
    same axis (``target_x``), and its value printed with its unit; a row with no figure has no
    bar but its words (``words``, fitted to the plot, the full text in the JSON). A bar shorter
    than a pixel is drawn a pixel wide, so that a non-zero figure never looks like nothing."""
    texts = []
    for r in rows:
        goal = "no target" if r["target"] is None else \
            f"target {plain_number(r['target'])} {unit_for(r['target'], r['unit'])}"
        texts.append(goal if r["value"] is None else f"{r['text']}; {goal}")
    drawn = [(r, t) for r, t in zip(rows, texts, strict=True) if not r.get("more")]
    right = min(max([text_width(t, BAR_SIZE) for _, t in drawn] + [120.0]) + 14, width * 0.42)
    plot = width - BAR_LEFT - right
    units = list(dict.fromkeys(r["unit"] for r, _ in drawn))
    panels, y = [], 6.0
    for unit in units:
        mine = [(r, t) for r, t in drawn if r["unit"] == unit]
        heading = None
        if len(units) > 1:
            heading = {"y": y + 10, "text": f"Judged in {AXIS_UNITS.get(unit, unit)}"}
            y += 16
        top = max([r["value"] for r, _ in mine if r["value"] is not None]
                  + [r["target"] for r, _ in mine if r["target"] is not None] + [0.0])
        ticks = nice_ticks(top * 1.08 if top > 0 else 1.0, 4)  # the largest mark clear of the axis's end
        scale = plot / ticks[-1]
        out_rows = []
        for i, (r, text) in enumerate(mine):
            ry = y + BAR_ROW * i
            bar = None if r["value"] is None else max(r["value"] * scale, 1.0 if r["value"] > 0 else 0.0)
            beyond = r["value"] is not None and r["target"] is not None and r["value"] > r["target"]
            words = None
            if r["value"] is None:
                words = fit(r["text"], plot - 8, BAR_SIZE)
                words["width"] = min(text_width(words["text"], BAR_SIZE), plot - 8)
            out_rows.append({"label": r["label"], "y": ry, "bar": bar, "beyond": beyond, "words": words,
                             "target_x": None if r["target"] is None else BAR_LEFT + r["target"] * scale,
                             "text": text})
        axis_y = y + BAR_ROW * len(mine) + 2
        panels.append({"unit": unit, "heading": heading, "rows": out_rows, "axis_y": axis_y, "top": y,
                       "axis_title": AXIS_UNITS.get(unit, unit) or "no unit",
                       "ticks": [(BAR_LEFT + t * scale, tick_label(t, ticks)) for t in ticks]})
        y = axis_y + 36
    more = next((r for r in rows if r.get("more")), None)
    more_line = None
    if more is not None:
        more_line = {"y": y + 8, "text": f"{more['label']}: {more['text']}"}
        y += 22
    return {"width": width, "left": BAR_LEFT, "plot": plot, "value_x": BAR_LEFT + plot + 10, "size": BAR_SIZE,
            "panels": panels, "more": more_line, "legend_y": y + 4, "height": y + (32 if len(units) > 1 else 16),
            "separate": len(units) > 1}


SECTIONS = {"drift": ("Drift detection and notice", "drift-notice"), "incident": ("Incidents", "restore"),
            "rollback": ("Rollback", "rollback-time"), "report": ("Monthly report", "report-completeness")}


def section_summary(score: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per section for a report's first page: points earned of points, and a verdict
    built from the section's headline line (its figure against its target, or why it was not run)."""
    out = []
    for section, (title, headline) in SECTIONS.items():
        lines = [x for x in score["lines"] if x["section"] == section]
        if not lines:
            continue
        head = next((x for x in lines if x["id"] == headline), lines[0])
        if head["status"] in ("scored", "under dispute"):
            verdict = line_figure(head)
            target = line_target(head)
            verdict += f"; target: {target}" if target else ""
        else:
            verdict = f"{head['status']}: {head['reason'] or 'no reason recorded'}"
        skipped = [x["id"] for x in lines if x["status"] not in ("scored", "under dispute")]
        out.append({"section": title, "earned": sum(x["earned"] for x in lines),
                    "points": sum(x["points"] for x in lines), "verdict": verdict, "skipped": skipped})
    return out


def drill_sheet() -> dict[str, Any]:
    """The drills sheet's wording (rubric/voice/drills-sheet-v1.yaml)."""
    from day60.resources import load_yaml

    return load_yaml("rubric", "voice/drills-sheet-v1.yaml")


def drill_words(name: str, drill: dict[str, Any], sheet: dict[str, Any]) -> dict[str, str]:
    """A drill's title, what earns full marks, and what it was built from as a sentence. The
    sentence comes from the sheet's template over the recorded parts; if those parts cannot
    fill it, the parts are listed as they are."""
    from jinja2.exceptions import TemplateError

    words = sheet["drills"].get(name, {})
    built = parts(drill.get("parts") or {})
    if drill.get("status") == "scored" and words.get("says"):
        with contextlib.suppress(TemplateError, TypeError, ValueError, ZeroDivisionError):
            built = _sheet_template(words["says"]).render(p=drill["parts"]) or built
    return {"title": words.get("title", name.replace("_", " ")), "full_marks": words.get("full_marks", ""),
            "built": built}


@functools.lru_cache(maxsize=128)
def _sheet_template(text: str) -> Any:
    """A sentence of the drills sheet, compiled once per process in a sandbox (a template error is
    raised when it is compiled or rendered, and the caller falls back to the parts)."""
    from jinja2 import StrictUndefined
    from jinja2.sandbox import SandboxedEnvironment

    return SandboxedEnvironment(undefined=StrictUndefined, autoescape=False).from_string(text)


# ----- portfolio and comparison --------------------------------------------------------------


def nice_ticks(top: float, count: int = 4) -> list[float]:
    """Axis ticks from 0 to at least ``top`` on a round step (1, 2, 2.5 or 5 times a power of ten),
    so labels read 0, 5, 10, 15, never 0, 0, 1."""
    import math

    top = top if top > 0 else 1.0
    raw = top / count
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw)
    n = math.ceil(top / step - 1e-9)
    return [round(i * step, 10) for i in range(n + 1)]


def tick_label(value: float, ticks: list[float]) -> str:
    """A tick's label with as many decimals as the step needs (2.5 keeps one)."""
    step = ticks[1] - ticks[0] if len(ticks) > 1 else 1
    digits = 0 if float(step).is_integer() else 1 if float(step * 10).is_integer() else 2
    return f"{value:,.{digits}f}"


def trend_chart(points: list[dict[str, Any]], top: float | None = None, width: float = 560) -> dict[str, Any]:
    """A trend's layout: each exercise at its own date (x proportional to time, so two months
    apart look two months apart), y on round ticks, and lines joining the points of one tier in
    date order but never two points that share a date (no line is drawn through them)."""
    import datetime as dt
    import itertools

    values = [p["value"] for p in points if p["value"] is not None]
    ticks = nice_ticks(top if top is not None else (max(values) if values else 1.0))
    days = [dt.date.fromisoformat(p["label"]).toordinal() for p in points]
    first, last = (min(days), max(days)) if days else (0, 0)
    span = max(last - first, 1)
    placed = []
    for p, day in zip(points, days, strict=True):
        x = width / 2 if last == first else width * (day - first) / span
        y = None if p["value"] is None else min(p["value"], ticks[-1]) / ticks[-1]
        placed.append({**p, "x": x, "y": y, "day": day})
    segments = []
    for series in dict.fromkeys(p["series"] for p in placed):
        mine = [p for p in placed if p["series"] == series and p["y"] is not None]
        for a, b in itertools.pairwise(mine):
            if a["day"] != b["day"]:
                segments.append((a["x"], a["y"], b["x"], b["y"]))
    shared = {d for d in days if days.count(d) > 1}
    return {"points": placed, "segments": segments, "ticks": [(t / ticks[-1], tick_label(t, ticks)) for t in ticks],
            "shared_dates": len(shared)}

"""How portfolio and compare figures read to a person: the score with PROVISIONAL and its points
under dispute beside it, each rollback kind in its own cell with its own count, a compared
figure to its charter precision, and sample sizes in words (never a bare "/").

Rounding happens here and only here; the rows and the comparison stay unrounded (charter 3.1.5).
"""

from __future__ import annotations

from typing import Any

from day60.display import missing, num, plural

COUNTS = ("alerts",)  # units of things counted: whole numbers, never "1.00 alert"

KIND_NOUN = {"production": "production rollbacks", "rehearsal": "rehearsals"}


def counted(n: int, kind: str) -> str:
    """'1 rehearsal', '2 production rollbacks'."""
    noun = KIND_NOUN[kind]
    return f"{n:,} {noun[:-1] if n == 1 else noun}"


def score_cell(score: float | None, provisional: bool, under_dispute: float | None) -> str:
    """'84.9', '84.9 PROVISIONAL', '84.9 (4.00 points under dispute)'."""
    text = num(score, 1)
    if provisional:
        text += " PROVISIONAL"
    if under_dispute:
        text += f" ({num(under_dispute, 2)} points under dispute)"
    return text


def row_score(row: dict[str, Any]) -> str:
    return score_cell(row["score"], row.get("provisional", False), row.get("under_dispute_points"))


def rollback_points(row: dict[str, Any], kind: str) -> str:
    """The rollback section's points in the column of the kind the tier scores; the other kind's
    column says why it holds none, so no reader takes a blank for a zero."""
    earned = row.get(f"{kind}_rollback_earned")
    if earned is None:
        scored = row.get("rollback_scored_kind", "none")
        return f"not scored at {row['tier']}" + ("" if scored == "none" else f" (it scores {KIND_NOUN[scored]})")
    return f"{num(earned, 1)} of {num(row[f'{kind}_rollback_points'], 0)}"


def rollback_figure(row: dict[str, Any], kind: str) -> str:
    """One kind's rollback time in words with its own count: 'mean 26.00 minutes, max 26.00 minutes
    (1 production rollback, 1 timed)', or 'none in the window'."""
    count = row.get(f"{kind}_rollbacks") or 0
    if not count:
        return f"no {KIND_NOUN[kind][:-1]} in the window"
    timed = row.get(f"{kind}_rollback_timed") or 0
    if not timed:
        return f"{counted(count, kind)}, none reached serving and the smoke pass in the window"
    # minutes to two decimals, the precision of the clock's seconds (3.1.5): 13.5 minutes never reads 14
    return (f"mean {num(row[f'{kind}_rollback_minutes_mean'], 2, 'minutes')}, "
            f"max {num(row[f'{kind}_rollback_minutes_max'], 2, 'minutes')} ({counted(count, kind)}, {timed} timed)")


def key_figures(row: dict[str, Any]) -> str:
    """The exercise's other key figures, each with its sample; rollbacks have their own columns."""
    parts = []
    if row["drift_population"]:
        lead = num(row["drift_notice_mean_bh"], 2, "business hours", reason="no drift notified")
        late = f", {row['drift_not_detected']} not detected" if row["drift_not_detected"] else ""
        parts.append(f"notice lead time mean {lead} ({plural(row['drift_population'], 'drifts')}{late})")
    if row["incidents_judged"]:
        parts.append(f"{row['restore_within_target']} of {plural(row['incidents_judged'], 'incidents')} restored "
                     "within target")
    if row.get("rollbacks_apart"):
        parts.append(f"{row['rollbacks_apart']} rollback(s) counted apart: criterion not met in the window, or "
                     "never recorded")
    if row["report_completeness_percent"] is not None:
        parts.append(f"report {num(row['report_completeness_percent'], 1)}% complete "
                     f"({int(row['report_elements_passing'])} of {int(row['report_elements_required'])} elements)")
    return "; ".join(parts) or "no drift, incident or report figure"


def trend(rows: list[dict[str, Any]], key: str) -> list[dict[str, Any]]:
    """One point per exercise in date order, for a trend chart; the series is the tier, and a
    provisional score carries its mark beside the point."""
    return [{"label": r["window_end"][:10], "value": r[key], "series": r["tier"],
             "mark": "PROVISIONAL" if key == "score" and r.get("provisional") else ""}
            for r in sorted(rows, key=lambda r: r["window_end"])]


# ----- compare -------------------------------------------------------------------------------


def signed(value: float, digits: int = 2) -> str:
    return f"{value:+,.{digits}f}"


def value(figure: dict[str, Any], side: str) -> str:
    """One side of a compared figure: a rate to one decimal, anything else to two with its unit,
    or why there is none."""
    v = figure[side]
    if v is not None:
        digits = 0 if figure["unit"] in COUNTS and float(v).is_integer() else 2
        text = f"{num(v, 1)}%" if figure["unit"] == "percent" else num(v, digits, figure["unit"])
        return text + (" (under dispute)" if figure.get(f"{side}_disputed") else "")
    why = figure.get(f"{side}_status") or "none recorded"
    return why if figure.get(f"{side}_scored") or figure.get(f"{side}_apart") else missing(why)


def target(figure: dict[str, Any]) -> str:
    if figure["target"] is None:
        return "no target"
    return value({**figure, "new": figure["target"], "new_disputed": False}, "new")


def change(figure: dict[str, Any]) -> str:
    """A rate's change in percentage points to one decimal; a time's in percent of the old
    figure to one decimal; anything else as a difference in its unit; or why there is none."""
    if figure["change"] is None:
        return figure["change_in"] or "not compared"
    if figure["change_in"].startswith(("percentage points", "percent of the old figure")):
        return f"{signed(figure['change'], 1)} {figure['change_in']}"
    digits = 0 if figure["unit"] in COUNTS and float(figure["change"]).is_integer() else 2
    return f"{signed(figure['change'], digits)} {figure['change_in']}"


def sample(figure: dict[str, Any]) -> str:
    """Both sample sizes in words: 'old n=3, new n=2'; a side with none says so."""
    def side(n: int | None, ranged: int | None) -> str:
        text = "no sample" if n is None else f"n={n:,}"
        return text + (f" (+{ranged} known only as a range, in no mean)" if ranged else "")

    return (f"old {side(figure['n_old'], figure.get('old_ranged'))}, "
            f"new {side(figure['n_new'], figure.get('new_ranged'))}")


def points(figure: dict[str, Any]) -> str:
    """A line's points on each side, or why a side has none (a rollback kind its tier does not
    score)."""
    if not figure.get("line"):
        return ""

    def side(name: str) -> str:
        earned = figure.get(f"{name}_earned")
        return "not scored" if earned is None else num(earned, 2)

    return f"old {side('old')}, new {side('new')}, of {num(figure['points'], 0)}"


def score_line(c: dict[str, Any], word: str = "score") -> str:
    """The compared scores in one sentence, PROVISIONAL and points under dispute beside each."""
    s = c["score"]
    old = score_cell(s["old"], bool(s["old_provisional"]), s["old_under_dispute_points"])
    new = score_cell(s["new"], bool(s["new_provisional"]), s["new_under_dispute_points"])
    text = f"{word} {old} (tier {s['old_tier']}) then {new} (tier {s['new_tier']})"
    if s["change_points"] is None:
        return f"{text}; {s['note']}"
    text += f": {signed(s['change_points'])} points"
    return text + (f" ({s['note']})" if s["note"] else "")

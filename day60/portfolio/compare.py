"""Two exercises of one deployment side by side: each figure old and new, its target, the
change in the charter's terms, the sample sizes, and what can and cannot be compared.

Charter 3.1.6: rates move by percentage points, while times and costs move by a percentage of
the older figure. Charter 4.5: a Day-60 score is comparable only with one run at
the same tier, so scores from different tiers are shown side by side but never subtracted.
"""

from __future__ import annotations

from typing import Any

from day60.portfolio.rows import Scored

TIME_UNITS = ("hours", "business hours", "minutes")


def compare(old: Scored, new: Scored) -> dict[str, Any]:
    banner = _banner(old.row, new.row)
    same_tier = old.row["tier"] == new.row["tier"]
    figures = []
    new_lines = {line["id"]: line for line in new.result["lines"]}
    for line in old.result["lines"]:
        other = new_lines.get(line["id"])
        if other is None:
            continue
        figures.append(_line(line, other))
    for sev in ("1", "2", "3", "4"):
        a, b = old.summary["incidents"]["by_severity"][sev], new.summary["incidents"]["by_severity"][sev]
        if a["count"] or b["count"]:
            figures.append(_figure(f"restore, severity {sev} (mean)", "hours", a["mean_hours"], b["mean_hours"],
                                   a["count"], b["count"], None))
    exercised = {"newly exercised": [], "no longer exercised": []}
    for f in figures:
        if f.get("line") and f["old_scored"] != f["new_scored"]:
            exercised["newly exercised" if f["new_scored"] else "no longer exercised"].append(f["line"])
    return {
        "old": old.row, "new": new.row, "banner": banner,
        "score": {"old": old.row["score"], "new": new.row["score"], "old_tier": old.row["tier"],
                  "new_tier": new.row["tier"],
                  "change_points": new.row["score"] - old.row["score"]
                  if same_tier and None not in (old.row["score"], new.row["score"]) else None,
                  "note": None if same_tier and None not in (old.row["score"], new.row["score"]) else
                  "not compared: the exercises ran at different tiers (charter 4.5)" if not same_tier else
                  "not compared: one of the scores is not run"},
        "figures": figures, **{k.replace(" ", "_"): v for k, v in exercised.items()},
    }


def _banner(a: dict[str, Any], b: dict[str, Any]) -> list[str]:
    """Each way the two exercises differ that limits what their figures say about each other."""
    out = []
    checks = [("tier", "they ran at different tiers ({} and {}): their scores are not compared (charter 4.5)"),
              ("rubric", "they were scored on different rubric versions ({} and {})"),
              ("calendar", "their business calendars differ ({} and {}): business-hour figures count different "
                           "hours"),
              ("records", "their data sources differ ({} and {})"),
              ("deployment", "they are not the same deployment ({} and {})"),
              ("supplier", "they are not the same supplier ({} and {})")]
    for key, text in checks:
        if a[key] != b[key]:
            out.append(text.format(a[key], b[key]))
    if a["synthetic"] != b["synthetic"]:
        out.append("one of them is SYNTHETIC data")
    return out


def _line(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    unit = next((u for line in (a, b) for part in ("figure", "target")
                 if (u := (line.get(part) or {}).get("unit"))), "")
    target = (b.get("target") or {}).get("target")
    old_value, new_value = _value(a), _value(b)
    out = _figure(a["id"], unit, old_value, new_value, _n(a), _n(b), target)
    out.update(line=a["id"], old_status=_why(a, old_value), new_status=_why(b, new_value), old_earned=a["earned"],
               new_earned=b["earned"], points=b["points"], old_scored=a["status"] == "scored",
               new_scored=b["status"] == "scored")
    return out


def _why(line: dict[str, Any], value: float | None) -> str:
    """Why a line has no single figure to compare: its status, or that it has several."""
    if line["status"] != "scored" or value is not None:
        return line["status"]
    return "one figure per severity, below" if line["id"] == "restore" else "no single figure (see the score)"


def _value(line: dict[str, Any]) -> float | None:
    if line["status"] != "scored":
        return None
    fig = line.get("figure") or {}
    value = fig.get("mean", fig.get("value"))
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _n(line: dict[str, Any]) -> int | None:
    fig = line.get("figure") or {}
    n = fig.get("count", fig.get("reports"))
    return n if isinstance(n, int) else None


def _figure(name: str, unit: str, old: float | None, new: float | None, n_old: int | None, n_new: int | None,
            target: float | None) -> dict[str, Any]:
    change, how = None, None
    if old is not None and new is not None:
        if unit == "percent":
            change, how = new - old, "percentage points"
        elif unit in TIME_UNITS:
            if old != 0:
                change, how = (new - old) / old * 100, "percent of the old figure"
            else:
                how = "not stated: the old figure is zero"
        else:
            change, how = new - old, unit or "difference"
    return {"figure": name, "unit": unit, "old": old, "new": new, "target": target, "change": change,
            "change_in": how, "n_old": n_old, "n_new": n_new}

"""Two exercises of one deployment side by side: each figure old and new, its target, the
change in the charter's terms, the sample sizes, and what can and cannot be compared.

Charter 3.1.6: rates move by percentage points, while times and costs move by a percentage of
the older figure. Charter 4.5: a Day-60 score is comparable only with one run at
the same tier, so scores from different tiers are shown side by side but never subtracted.
Charter 3.20.4: a rehearsal is never compared with a rollback on production. Each rollback
row holds one kind: where the two exercises' tiers score different kinds, each rubric line
gets a row per kind with one side empty, and each kind's own figures are compared only with
the same kind's.
"""

from __future__ import annotations

from typing import Any

from day60.portfolio.rows import KINDS, Scored, provisional
from day60.portfolio.words import KIND_NOUN, counted

TIME_UNITS = ("hours", "business hours", "minutes")
# A line under dispute was measured: its figure stands beside the dispute (charter 8.4), it is not
# "no longer exercised".
MEASURED = ("scored", "under dispute")
STEPS = (("decision", "decision time"), ("rollback", "rollback time"), ("requeue", "re-queue completion"))


def compare(old: Scored, new: Scored) -> dict[str, Any]:
    banner = _banner(old.row, new.row)
    same_tier = old.row["tier"] == new.row["tier"]
    figures = []
    new_lines = {line["id"]: line for line in new.result["lines"]}
    for line in old.result["lines"]:
        other = new_lines.get(line["id"])
        if other is None:
            continue
        if line["section"] == "rollback":
            figures += _rollback_line(line, other, old.row, new.row)
        else:
            figures.append(_line(line, other))
    for sev in ("1", "2", "3", "4"):
        a, b = old.summary["incidents"]["by_severity"][sev], new.summary["incidents"]["by_severity"][sev]
        if a["count"] or b["count"] or a.get("ranged") or b.get("ranged"):
            f = _figure(f"restore, severity {sev} (mean)", "hours", a["mean_hours"], b["mean_hours"],
                        a["count"], b["count"], None)
            # restores known only as a range are in no mean: counted beside the sample, never dropped
            for side, block in (("old", a), ("new", b)):
                f[f"{side}_ranged"] = int(block.get("ranged") or 0)
                if block["mean_hours"] is None and f[f"{side}_ranged"]:
                    f[f"{side}_status"] = f"not evidenced: {f[f'{side}_ranged']} restore(s) known only as a range"
            figures.append(f)
    figures += _rollback_figures(old.row, new.row)
    exercised: dict[str, list[str]] = {"newly exercised": [], "no longer exercised": []}
    for f in figures:
        if f.get("line") and not f.get("kind_apart") and f["old_scored"] != f["new_scored"]:
            exercised["newly exercised" if f["new_scored"] else "no longer exercised"].append(f["figure"])
    marked = [side for side, row in (("old", old.row), ("new", new.row)) if row["provisional"]]
    note = None if same_tier else "not compared: the exercises ran at different tiers (charter 4.5)"
    unscored = [side for side, row in (("old", old.row), ("new", new.row)) if row["score"] is None]
    if same_tier and unscored:
        note = f"not compared: the {' and the '.join(unscored)} score {'are' if len(unscored) > 1 else 'is'} not run"
    elif same_tier and marked:
        note = f"PROVISIONAL: the {' and the '.join(marked)} score{'s are' if len(marked) > 1 else ' is'} " \
               "provisional, so this change may move"
    return {
        "old": old.row, "new": new.row, "banner": banner,
        "score": {"old": old.row["score"], "new": new.row["score"], "old_tier": old.row["tier"],
                  "new_tier": new.row["tier"],
                  "old_provisional": provisional(old.result), "new_provisional": provisional(new.result),
                  "old_under_dispute_points": old.row["under_dispute_points"],
                  "new_under_dispute_points": new.row["under_dispute_points"],
                  "change_points": new.row["score"] - old.row["score"] if same_tier and not unscored else None,
                  "note": note},
        "figures": figures, **{k.replace(" ", "_"): v for k, v in exercised.items()},
    }


def _banner(a: dict[str, Any], b: dict[str, Any]) -> list[str]:
    """Each way the two exercises differ that limits what their figures say about each other."""
    out = []
    if a.get("journal_sha256") and a.get("journal_sha256") == b.get("journal_sha256"):
        out.append(f"both are the same journal (SHA-256 {a['journal_sha256'][:12]}...): one exercise set against "
                   "itself, so every change reads zero; name the earlier exercise's journal first")
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
    kinds = (a.get("rollback_scored_kind", "none"), b.get("rollback_scored_kind", "none"))
    if "none" not in kinds and kinds[0] != kinds[1]:
        out.append(f"the old exercise's rollback lines score a {kinds[0]} rollback and the new one's a {kinds[1]} "
                   "rollback: each kind has its own rows and the two are never compared (charter 3.20.4)")
    for side, row in (("old", a), ("new", b)):
        if row.get("provisional"):
            out.append(f"the {side} score is PROVISIONAL ({row['provisional_reasons']})")
    return out


def _line(a: dict[str, Any], b: dict[str, Any], name: str | None = None) -> dict[str, Any]:
    unit = next((u for line in (a, b) for part in ("figure", "target")
                 if (u := (line.get(part) or {}).get("unit"))), "")
    if any("reports" in (line.get("figure") or {}) for line in (a, b)):
        unit = "percent"  # timeliness: the share of reports delivered on time, a rate (3.1.6)
    target = (b.get("target") or {}).get("target")
    old_value, new_value = _value(a), _value(b)
    out = _figure(name or a["id"], unit, old_value, new_value, _n(a), _n(b), target)
    out.update(line=a["id"], old_status=_why(a, old_value), new_status=_why(b, new_value), old_earned=a["earned"],
               new_earned=b["earned"], points=b["points"], old_scored=a["status"] in MEASURED,
               new_scored=b["status"] in MEASURED, old_disputed=a["status"] == "under dispute",
               new_disputed=b["status"] == "under dispute")
    if out["change"] is not None and (out["old_disputed"] or out["new_disputed"]):
        out["change_in"] += " (a side is under dispute)"
    return out


def _rollback_line(a: dict[str, Any], b: dict[str, Any], old: dict[str, Any],
                   new: dict[str, Any]) -> list[dict[str, Any]]:
    """A rollback line's row(s), each holding one kind. Where both tiers score the same kind (or
    one scores none), one row named for that kind; where one scores rehearsals and the other
    production rollbacks, one row per kind, the side that does not score it left empty."""
    ka, kb = old["rollback_scored_kind"], new["rollback_scored_kind"]
    if ka == kb or "none" in (ka, kb):
        kind = kb if ka == "none" else ka
        out = _line(a, b, a["id"] if kind == "none" else f"{a['id']} ({kind})")
        if out["change"] is None and kind != "none":
            why = [f"tier {row['tier']} scores no rollback" if row["rollback_scored_kind"] == "none"
                   else f"the {side} exercise has {_none_of(row, kind)}" for side, row in (("old", old), ("new", new))
                   if not row[f"{kind}_rollbacks"] or row["rollback_scored_kind"] == "none"]
            if len(why) == 2 and all(row[f"{kind}_rollbacks"] == 0 for row in (old, new)):
                why = [f"neither exercise has a {KIND_NOUN[kind][:-1]} in the window"]
            if why:
                out["change_in"] = "not compared: " + "; ".join(why)
        return [out]
    rows = []
    for kind, scorer in ((ka, "old"), (kb, "new")):
        out = _line(a, b, f"{a['id']} ({kind})")
        other, row = ("new", new) if scorer == "old" else ("old", old)
        out.update({other: None, f"n_{other}": None, f"{other}_earned": None, f"{other}_scored": False,
                    f"{other}_apart": True,
                    f"{other}_status": f"not scored at {row['tier']} (it scores {row['rollback_scored_kind']} "
                                       "rollbacks)",
                    "target": ((a if scorer == "old" else b).get("target") or {}).get("target"),
                    "change": None, "kind_apart": True,
                    "change_in": f"not compared: only the {scorer} exercise scores a {kind} rollback "
                                 "(charter 3.20.4)"})
        rows.append(out)
    return rows


def _rollback_figures(old: dict[str, Any], new: dict[str, Any]) -> list[dict[str, Any]]:
    """The charter's figures of each rollback kind that a rubric line does not already compare
    on both sides (3.20.2: reported apart for rehearsals and production). Like is compared with
    like only; a side with none of the kind says so, and what it holds instead."""
    out = []
    for kind in KINDS:
        if all(row["rollback_scored_kind"] == kind or (row["rollback_scored_kind"] == "none"
                                                        and not row[f"{kind}_rollbacks"]) for row in (old, new)):
            continue  # the rubric's rollback rows above show this kind on both sides already
        if not (old[f"{kind}_rollbacks"] or new[f"{kind}_rollbacks"]):
            continue
        for step, words in STEPS:
            a, b = old[f"{kind}_{step}_minutes_mean"], new[f"{kind}_{step}_minutes_mean"]
            f = _figure(f"{KIND_NOUN[kind]}: {words} (mean)", "minutes", a, b, old[f"{kind}_{step}_timed"],
                        new[f"{kind}_{step}_timed"], None)
            f.update(kind=kind, old_status=_none_of(old, kind), new_status=_none_of(new, kind),
                     old_apart=not old[f"{kind}_rollbacks"], new_apart=not new[f"{kind}_rollbacks"])
            if f["change"] is None and (a is None or b is None):
                empty = [(side, row) for side, row in (("old", old), ("new", new)) if not row[f"{kind}_rollbacks"]]
                f["change_in"] = "not compared: " + ("; ".join(f"the {side} exercise has {_none_of(row, kind)}"
                                                               for side, row in empty)
                                                     if empty else "one side has no time for this step")
            out.append(f)
    return out


def _none_of(row: dict[str, Any], kind: str) -> str:
    """Why a side has no figure of this rollback kind: none in its window (and what it holds
    instead), or none reached the step."""
    if row[f"{kind}_rollbacks"]:
        return "no rollback of this kind reached this step in the window"
    other = next(k for k in KINDS if k != kind)
    held = row[f"{other}_rollbacks"]
    return f"no {KIND_NOUN[kind][:-1]} in the window" + (f" (it holds {counted(held, other)})" if held else "")


def _why(line: dict[str, Any], value: float | None) -> str:
    """Why a line has no single figure to compare: its status, or that it has several."""
    if line["status"] not in MEASURED or value is not None:
        return line["status"]
    return "one figure per severity, below" if line["id"] == "restore" else "no single figure (see the score)"


def _value(line: dict[str, Any]) -> float | None:
    if line["status"] not in MEASURED:
        return None
    fig = line.get("figure") or {}
    value = fig.get("mean", fig.get("value"))
    if not isinstance(value, int | float) or isinstance(value, bool):
        return None
    if fig.get("reports"):  # reports on time, as a share of the reports judged: a rate
        return 100 * float(value) / fig["reports"]
    return float(value)


def _n(line: dict[str, Any]) -> int | None:
    """The sample a line's figure rests on: its observations, its reports or rollbacks, or, for
    completeness, the required elements judged over every period (the figure's denominator)."""
    fig = line.get("figure") or {}
    n = fig.get("count", fig.get("reports", fig.get("rollbacks")))
    if n is None and fig.get("periods") and all(isinstance(p.get("required"), int) for p in fig["periods"]):
        n = sum(p["required"] for p in fig["periods"])
    return n if isinstance(n, int) and not isinstance(n, bool) else None


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

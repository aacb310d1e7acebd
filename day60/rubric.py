"""Published rubrics and scoring charter figures against them.

A rubric is a YAML file in ``rubric/``. This module reads figures (``day60.metrics``) and the
journal's header facts it is handed; it never reads a journal itself.
"""

from __future__ import annotations

import hashlib
import math
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from day60.curve import slide
from day60.errors import InputError, pydantic_problem

if TYPE_CHECKING:  # pandas and the metrics load only when a score is computed, not for the clauses
    from day60.metrics import Figures
from day60.resources import data_dir, shipped_yaml

DEFAULT_RUBRIC = "day60-v1.yaml"
NOT_EXERCISED = "not exercised"


class Band(BaseModel):
    model_config = ConfigDict(extra="forbid")
    clock: Literal["elapsed", "business"] = "elapsed"
    unit: str
    parameter: str
    target: float
    slide_end: float
    cutoff: float


class Line(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: str
    section: Literal["drift", "incident", "rollback", "report"]
    charter: str
    measures: str
    points: float = Field(gt=0)
    how: Literal["curve", "share", "yes-no"]
    figure: str
    unit: str | None = None
    parameter: str | None = None
    target: float | None = None
    slide_end: float | None = None
    cutoff: float | None = None
    by_severity: dict[str, Band] | None = None


# What a tier can require of a journal, and how its absence reads in the tier check.
REQUIREMENTS = {
    "report-audit": "no monthly report was received and audited in the window",
    "rehearsal-rollback": "no rollback was rehearsed on a non-production copy",
    "injected-drift": "no drift was injected under safety sign-off with its onset in the window",
    "raised-incident": "no incident was raised by the exercise under safety sign-off",
    "production-rollback": "no rollback was forced on production in the window",
    "every-injection-completed": "an injection was stopped by its stop condition or not run",
}


class Tier(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str
    checks: str
    sections: list[str]
    sources: list[str]
    rollback_kind: Literal["none", "rehearsal", "production"]
    production_change: bool
    requires: list[Literal[tuple(REQUIREMENTS)]] = Field(default_factory=list)  # type: ignore[valid-type]
    unannounced: bool = False


class Rubric(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: str
    version: str
    effective: Any
    charter: str
    tiers: dict[str, Tier]
    lines: list[Line]
    sha256: str = ""
    raw: bytes = Field(b"", exclude=True, repr=False)  # the file's bytes, embedded in reports

    @model_validator(mode="after")
    def _sums_to_100(self) -> Rubric:
        total = sum(line.points for line in self.lines)
        if not math.isclose(total, 100):
            raise ValueError(f"lines sum to {total:g}, not 100")
        return self


def load(path: str | Path | None = None) -> Rubric:
    """Load a rubric file (default: the shipped Day-60 rubric) and check that it sums to 100. A
    file that names a published rubric (its id) but is not one of the files published under that
    id and version is refused by name: a score against it would print a name it does not hold."""
    from day60.files import read_bytes

    target = Path(path) if path else data_dir("rubric") / DEFAULT_RUBRIC
    loaded = loads(read_bytes(target, "--rubric", "a rubric YAML file"), str(target), shipped=not path)
    state, words = standing(loaded)
    if state == "changed":
        raise InputError("--rubric", f"{target}: {words}", "give the published file unchanged, or give your own "
                                                           "rubric an id of its own")
    return loaded


PUBLISHED = "published.toml"  # in rubric/: the id, version and SHA-256 of every rubric file published


def published() -> dict[str, dict[str, set[str]]]:
    """The published rubrics: id -> version -> the SHA-256 of each file shipped under it."""
    import tomllib

    table = tomllib.loads((data_dir("rubric") / PUBLISHED).read_text(encoding="utf-8"))
    out: dict[str, dict[str, set[str]]] = {}
    for row in table.get("rubric", []):
        out.setdefault(row["id"], {}).setdefault(row["version"], set()).add(row["sha256"])
    return out


def standing(rubric: Rubric) -> tuple[str, str]:
    """Whether a rubric is a published one: ("published", words), ("unpublished", words) for an id
    day60 never published (a person's own), or ("changed", words) for a file that names a
    published id but is not, byte for byte, a file published under that id and version."""
    table = published()
    name = f"{rubric.id} {rubric.version}"
    if rubric.id not in table:
        return "unpublished", (f"rubric {name!r} (SHA-256 {rubric.sha256}) is not one day60 publishes"
                               f"{_lookalike(name)}: its lines and targets are the report's own, checked only "
                               "against themselves")
    hashes = table[rubric.id].get(rubric.version)
    if hashes is None:
        return "changed", (f"it names the published rubric {rubric.id!r} at version {rubric.version!r}, which day60 "
                           f"never published (published: {', '.join(sorted(table[rubric.id]))})")
    if rubric.sha256 not in hashes:
        shipped = ", ".join(h[:16] + "..." for h in sorted(hashes))
        return "changed", (f"it names the published rubric {name}, but its bytes hash to {rubric.sha256[:16]}..., "
                           f"not to the file published under that name ({shipped}): it was changed")
    return "published", f"rubric {name} as published (SHA-256 {rubric.sha256})"


def _lookalike(name: str) -> str:
    """The characters outside ASCII in a rubric's id and version, by code point and Unicode name,
    so that a Cyrillic letter in "dаy60" is seen for what it is (empty when there are none)."""
    import unicodedata

    odd = [f"U+{ord(c):04X} {unicodedata.name(c, 'unnamed')}" for c in dict.fromkeys(name) if ord(c) > 127]
    return f" (its name holds characters outside ASCII: {', '.join(odd)})" if odd else ""


def _own_targets(node: Any, words: str) -> Any:
    """``node`` with every target labelled "rubric default" relabelled ``words``."""
    if isinstance(node, dict):
        return {k: (words if k == "source" and v == "rubric default" else _own_targets(v, words))
                for k, v in node.items()}
    if isinstance(node, list):
        return [_own_targets(v, words) for v in node]
    return node


def loads(raw: bytes, target: str = "the rubric", shipped: bool = False) -> Rubric:
    """A rubric from its file's bytes (as embedded in a report); ``shipped``: the toolkit's own
    file, read by the faster parser kept for the toolkit's own data (``resources.shipped_yaml``)."""
    from day60.files import loads_yaml

    def parse(body: bytes) -> Any:
        return shipped_yaml(body) if shipped else loads_yaml(body, "--rubric", "a rubric", target)

    try:
        rubric = Rubric.model_validate({**parse(raw), "sha256": hashlib.sha256(raw).hexdigest(),
                                        "raw": raw})
    except ValidationError as exc:
        field, msg = pydantic_problem(exc)
        raise InputError("--rubric", f"{target}: {field}: {msg}", "check it against rubric/day60-v1.yaml") from exc
    except (yaml.YAMLError, TypeError) as exc:
        raise InputError("--rubric", f"{target} is not a rubric YAML file", "check its syntax") from exc
    return rubric


# ----- scoring -------------------------------------------------------------------------------


def score(figures: Figures, header: dict[str, Any], rubric: Rubric, deal: dict[str, Any] | None = None,
          cap: str | None = None, not_evidenced: dict[str, list[str]] | None = None) -> dict[str, Any]:
    """Score figures against a rubric at the journal's tier.

    ``cap`` limits the tier (the self-assessment). ``not_evidenced`` maps line ids to records
    that were missing: those lines earn nothing and read "not evidenced", saying what to ask for.
    """
    deal = deal or {}
    tier_id = header["tier"]
    if cap and int(tier_id[1]) > int(cap[1]):
        tier_id = cap
    if tier_id not in rubric.tiers:
        raise InputError("tier", f"{tier_id} is not defined in rubric {rubric.id} {rubric.version}",
                         f"use one of {', '.join(rubric.tiers)}")
    tier = rubric.tiers[tier_id]
    lines = [_score_line(line, figures, tier_id, tier, deal) for line in rubric.lines]
    own = standing(rubric)[0] != "published"
    if own:  # a target an unpublished rubric sets is its own value, never a published default
        lines = _own_targets(lines, "this rubric's own value (not a published rubric)")
    for line in lines:
        if line["id"] in (not_evidenced or {}):  # "don't know" is never "did not happen"
            line.update(status="not evidenced", earned=0.0,
                        reason="the supplier's records did not show: " + "; ".join(not_evidenced[line["id"]]))
    disputes = figures.summary.get("disputes", [])
    for line in lines:  # 8.4.3: a disputed line is marked; the rest of the score stands
        mine = [d for d in disputes if d["line"] == line["id"]]
        open_ = [d for d in mine if d["outcome"] is None]
        upheld = [d for d in mine if d["outcome"] == "upheld"]
        if open_:
            line.update(status="under dispute", status_before_dispute=line["status"])
        if upheld:  # said even while another dispute of the line is open
            # 8.4: a dispute the supplier wins never costs it the line. The remedy the resolution
            # grants (an exclusion, a corrected instant) is in the journal and already in the figure.
            remedies = [f"{x} excluded (seq {d['resolved_seq']})" for d in upheld
                        for x in d.get("exclude_applied", d.get("exclude", []))]
            refused = [f"{x['id']} not excluded ({x['reason']})" for d in upheld
                       for x in d.get("exclude_not_applied", [])]
            fixes = sorted({c for d in upheld for c in d.get("corrections_since", [])})
            note = (f"dispute upheld; remedy applied: {', '.join(remedies)}" if remedies
                    else "dispute upheld; no exclusion took effect" if refused
                    else "dispute upheld with no exclusion: the figure stands as measured")
            if refused:
                note += f"; {'; '.join(refused)}"
            if fixes:
                note += f"; corrections logged since it was raised: seq {', '.join(map(str, fixes))}"
            line["reason"] = "; ".join(filter(None, [line["reason"], note]))
            line["dispute_outcome"] = "upheld"
        # an exclusion takes the item out of its whole section: the section's other lines say whose it is
        others = [f"{x} excluded by the upheld dispute seq {d['seq']} of {d['line']}" for d in disputes
                  if d["outcome"] == "upheld" and d["line"] != line["id"]
                  and _line_section(rubric, d["line"]) == line["section"] for x in d.get("exclude_applied", [])]
        if others:
            line["reason"] = "; ".join(filter(None, [line["reason"], *others]))
        line["disputes"] = [d["seq"] for d in mine]
    exercised = [line for line in lines if line["status"] == "scored" or line.get("status_before_dispute") == "scored"]
    total = sum(line["earned"] for line in lines) if exercised else None
    why_not = None if exercised else _nothing_exercised(lines)
    return {
        "score": total,
        "score_reason": why_not,
        "tier": tier_id,
        "tier_name": tier.name,
        "tier_check": _tier_check(tier_id, tier, figures, header,
                                  {ln["section"] for ln in lines if ln["status"] == "not evidenced"}
                                  - {ln["section"] for ln in lines if ln["status"] != "not evidenced"}),
        "capped_from": header["tier"] if cap and tier_id != header["tier"] else None,
        "rubric": {"id": rubric.id, "version": rubric.version, "sha256": rubric.sha256},
        "journal_sha256": figures.summary["journal_sha256"],
        "journal_head": figures.summary.get("journal_head"),
        "targets": "deal file" if deal else ("this rubric's own values (not a published rubric; no deal file given)"
                                             if own else "rubric defaults (no deal file given)"),
        "synthetic": bool(header.get("synthetic")),
        "lines": lines,
        "disputes": disputes,
        "notices": figures.summary.get("notices", []),
        "under_dispute_points": sum(line["earned"] for line in lines if line["status"] == "under dispute"),
        "under_dispute_lines": [line["id"] for line in lines if line["status"] == "under dispute"],
        "provisional": provisional(figures),
        "runner": {"name": header["runner"], "organisation": header.get("runner_organisation"),
                   "conflict_statement": header.get("conflict_statement")},
    }


def _line_section(rubric: Rubric, line_id: str) -> str | None:
    return next((ln.section for ln in rubric.lines if ln.id == line_id), None)


def _nothing_exercised(lines: list[dict[str, Any]]) -> str:
    """Why no line was scored: the score is then not run, never 0 of 100 (charter 3.1.8, 4.5.1)."""
    reasons = sorted({line["status"] for line in lines})
    return ("not run: no rubric line could be scored (" + ", ".join(reasons) + "); each line says why")


def provisional(figures: Figures) -> list[str]:
    """Why a score may still change: the exercise is not closed, or a sealed onset is not revealed."""
    out = []
    if not figures.summary["window"]["closed"]:
        out.append("the exercise has not been closed")
    sealed = figures.summary["drift"]["sealed"]
    if sealed:
        out.append(f"{sealed} sealed onset(s) not yet revealed")
    return out


def targets(rubric: Rubric, parameters: dict[str, Any] | None) -> dict[str, Any]:
    """The deal parameters this rubric reads its targets from (the rest are the clauses')."""
    wanted = parameter_ids(rubric)
    return {k: v for k, v in (parameters or {}).items() if k in wanted}


def parameter_ids(rubric: Rubric) -> set[str]:
    """Every deal parameter id the rubric reads a target from."""
    names = {line.parameter for line in rubric.lines if line.parameter}
    for line in rubric.lines:
        names |= {b.parameter for b in (line.by_severity or {}).values()}
    return names


def _target(deal: dict[str, Any], parameter: str | None, default: float | None) -> tuple[float | None, str]:
    if parameter and parameter in deal:
        return float(deal[parameter]), "deal file"
    return default, "rubric default"


def _result(line: Line, status: str, earned: float, reason: str | None, figure: Any = None,
            target: Any = None, evidence: list[int] | None = None) -> dict[str, Any]:
    return {"id": line.id, "section": line.section, "charter": line.charter, "measures": line.measures,
            "points": line.points, "earned": earned, "status": status, "figure": figure, "target": target,
            "reason": reason, "evidence": sorted(evidence or [])}


def _score_line(line: Line, figures: Figures, tier_id: str, tier: Tier, deal: dict[str, Any]) -> dict[str, Any]:
    if line.section not in tier.sections:
        return _result(line, NOT_EXERCISED, 0.0, f"tier {tier_id} ({tier.name}) does not exercise the {line.section}")
    scorer = {"drift": _drift_line, "incident": _incident_line, "rollback": _rollback_line,
              "report": _report_line}[line.section]
    return scorer(line, figures, tier, deal, tier_id)


def _curve_result(line: Line, observations: list[dict[str, Any]], target: dict[str, Any],
                  evidence: list[int]) -> dict[str, Any]:
    """Mean curve share over observations; each observation carries its value and share."""
    shares = [o["share"] for o in observations]
    values = [o["value"] for o in observations if o["value"] is not None]
    earned = line.points * sum(shares) / len(shares)
    figure = {"count": len(observations), "with_value": len(values),
              "mean": sum(values) / len(values) if values else None, "max": max(values) if values else None,
              "unit": line.unit or target.get("unit"), "observations": observations}
    return _result(line, "scored", earned, None, figure, target, evidence)


def _band(line: Line, deal: dict[str, Any]) -> dict[str, Any]:
    value, source = _target(deal, line.parameter, line.target)
    return {"target": value, "slide_end": line.slide_end, "cutoff": line.cutoff, "unit": line.unit,
            "source": source}


def _injection_notes(figures: Figures) -> str:
    """Injections that were stopped or never run, as the reason a line was not exercised says them."""
    done = figures.summary["injections"]
    notes = [f"{i['id']} not run: {i['reason']}" for i in done["not_run"]]
    notes += [f"{i['id']} stopped by its stop condition: {i['reason']}" for i in done["stopped"]]
    return f"; {'; '.join(notes)}" if notes else ""


def _drift_line(line: Line, figures: Figures, tier: Tier, deal: dict[str, Any], tier_id: str = "") -> dict[str, Any]:
    from day60.metrics import NOT_DETECTED, NOT_EVIDENCED

    every = figures.tables["drift"]
    table = every[every["source"].isin(tier.sources)]
    summary = figures.summary["drift"]
    pending = table[table["status"].isin(["sealed", "open"])]
    if len(pending):
        return _result(line, "not run", 0.0, f"{len(pending)} drift observation(s) still sealed or open: "
                                             "reveal the onsets and close the window first")
    scored = table[table["status"].isin(["notified", NOT_DETECTED, NOT_EVIDENCED])]
    apart = {k: int((table["status"] == k).sum()) for k in ("outside the window", "stopped", "announced", "told",
                                                             "excluded", "no onset")}
    if scored.empty:
        from day60.display import plural

        sources = " or ".join(tier.sources)
        reason = f"no {sources} drift observation with its onset in the window"
        if "exercise" in tier.sources:  # a tier that injects: say why an injection may be missing
            reason += " (an injection without safety sign-off is never run, charter 4.5.1)"
        if line.figure == "false_alerts":  # a monitor is not judged on its false alerts alone
            count = summary["false_alerts"]
            counted = "their count not evidenced" if count is None else \
                f"{count} false {plural(count, 'alerts').split()[1]} in the window, counted"
            reason += f", so the monitor's false alerts are not judged alone ({counted})"
        reason += _other_sources(every[every["status"].isin(["notified", NOT_DETECTED, NOT_EVIDENCED])], tier,
                                 tier_id, "drift", "drifts", "injected by the exercise")
        return _result(line, NOT_EXERCISED, 0.0, reason + _apart_text(apart) + _injection_notes(figures))
    evidence = [s for seqs in scored["seqs"] for s in seqs]
    band = _band(line, deal)
    if line.figure == "false_alerts":
        count = summary["false_alerts"]
        if count is None:  # "don't know" is never zero
            return _result(line, "not evidenced", 0.0, summary.get("false_alerts_reason"), None, band)
        share = slide(count, band["target"], line.slide_end, line.cutoff)
        obs = [{"id": "false alerts in the window", "value": count, "share": share}]
        result = _curve_result(line, obs, band, summary["false_alert_seqs"])
        outside = summary.get("false_alerts_outside_window", 0)
        if outside:
            result["reason"] = f"counted apart: {outside} false alert(s) outside the window"
        return result
    obs = []
    for row in scored.itertuples():
        value = getattr(row, line.figure)
        value = None if value is None or (isinstance(value, float) and math.isnan(value)) else float(value)
        note, most = None, None
        if value is None:  # never detected (or notified) within the window, or not when: nothing on the curve
            note = (row.detection_status or NOT_DETECTED) if "detection" in line.figure else \
                row.reason if row.status == NOT_EVIDENCED else NOT_DETECTED
            bound = getattr(row, f"{line.figure}_at_most", None)
            if bound is not None and not (isinstance(bound, float) and math.isnan(bound)):
                # not disclosed, but the written notice proves detection no later than itself: the
                # line earns what that proves, never the "not detected" nothing
                from day60.display import num

                most = float(bound)
                note += f"; at most {num(most, 2, band['unit'])} (the written notice proves detection no later " \
                        "than itself)"
        obs.append({"id": row.id, "value": value, **({"at_most": most} if most is not None else {}),
                    "share": slide(value if most is None else most, band["target"], line.slide_end, line.cutoff),
                    "status": row.status, "note": note})
    result = _curve_result(line, obs, band, evidence)
    result["reason"] = _apart_text(apart).lstrip("; ") or None
    return result


def _incident_line(line: Line, figures: Figures, tier: Tier, deal: dict[str, Any], tier_id: str = "") -> dict[str, Any]:
    import pandas as pd

    every = figures.tables["incidents"]
    judging = ["restored", "unconfirmed", "open", "unclassified", "not detected", "not evidenced"]
    table = every[every["source"].isin(tier.sources)] if not every.empty else every
    judged = table[table["status"].isin(judging)] if not table.empty else table
    apart = {k: int((table["status"] == k).sum()) for k in ("withdrawn", "excluded", "outside the window")} \
        if not table.empty else {}
    if judged.empty:
        others = _other_sources(every[every["status"].isin(judging)] if not every.empty else every, tier, tier_id,
                                "incident", "incidents", "raised by the exercise")
        reason = f"no {' or '.join(tier.sources)} incident was judged in the window{others}" if others else \
            "no incident in the journal had its clock start in the window"
        return _result(line, NOT_EXERCISED, 0.0, reason + _apart_text(apart) + _injection_notes(figures))
    evidence = [int(s) for s in judged["first_seq"]]
    obs = []
    if line.by_severity:
        targets = {}
        for row in judged.itertuples():
            # An incident nobody classified is held to the strictest severity's target, never left out.
            unclassified = pd.isna(row.severity)
            severity = min(int(k) for k in line.by_severity) if unclassified else int(row.severity)
            band = line.by_severity[str(severity)]
            target, source = _target(deal, band.parameter, band.target)
            targets[str(severity)] = {"target": target, "slide_end": band.slide_end,
                                      "cutoff": band.cutoff, "unit": band.unit, "source": source}
            value = row.restore_hours if band.clock == "elapsed" else row.restore_business_hours
            value = None if not row.restored_in_window or pd.isna(value) else float(value)
            bound = _bounds(row, "restore_hours" if band.clock == "elapsed" else "restore_business_hours") \
                if value is None and row.restored_in_window else None
            notes = []
            if bound is not None:  # restored, but known only as a range: scored on what the journal proves
                notes.append(f"not evidenced: {_range_words(*bound, band.unit)} ({_range_why(row)})")
            elif value is None:
                notes.append({"not detected": "never detected or notified by the close",
                              "unconfirmed": "the ticket was closed, but no monitoring check confirmed a restore "
                                             "(3.19.4)", "not evidenced": row.reason}.get(row.status,
                                                                                          "still open at the window's "
                                                                                          "close"))
            if unclassified:
                notes.append(f"no severity recorded: judged at severity {severity}'s target")
            notes += _incident_notes(row)
            note = "; ".join(notes) or None
            # a range earns what its longest reading earns (nothing, where nothing bounds it above)
            judged_at = value if bound is None else bound[1]
            obs.append({"id": row.id, "severity": severity, "value": value, "unit": band.unit,
                        **({"at_least": bound[0], "at_most": bound[1]} if bound else {}),
                        "share": slide(judged_at, target, band.slide_end, band.cutoff), "note": note})
        result = _curve_result(line, obs, {"by_severity": targets}, evidence)
        result["figure"]["mean"] = result["figure"]["max"] = None  # mixed units: see each observation
        blind = judged[judged["status"] == "not evidenced"]
        if len(blind):
            # An incident whose end the records do not show is "don't know", never "not restored":
            # the line cannot be measured and earns nothing; it keeps its observations and says
            # what to ask the supplier for.
            why = "; ".join(dict.fromkeys(str(r).removeprefix("not evidenced: ") for r in blind["reason"]))
            result.update(status="not evidenced", earned=0.0)
            result["reason"] = (f"{len(blind)} of {len(judged)} incident(s) it judges read not evidenced ({why}); ask "
                                "the supplier for their resolution times and the monitoring checks that confirmed "
                                "each restore" + _apart_text(apart))
            return result
    else:
        band = _band(line, deal)
        records = figures.summary.get("records") == "supplier-reported"
        missing = ("not evidenced: the supplier's records hold no communication time for it" if records
                   else "no communication recorded in the window")
        for row in judged.itertuples():
            value = getattr(row, line.figure)
            value = None if pd.isna(value) else float(value)
            bound = _bounds(row, line.figure) if value is None else None
            note = missing if value is None else None
            if bound is not None:  # its clock's start is only an upper bound: the wait is at least this
                note = f"not evidenced: {_range_words(*bound, 'hours')} ({_range_why(row, waits=False)})"
            obs.append({"id": row.id, "value": value, "share": slide(value if bound is None else bound[1],
                                                                       band["target"], line.slide_end, line.cutoff),
                        **({"at_least": bound[0], "at_most": bound[1]} if bound else {}), "note": note})
        if records and all(o["value"] is None for o in obs):  # "not in the records" is never "not sent"
            return _result(line, "not evidenced", 0.0, f"{missing.removeprefix('not evidenced: ')} ({len(obs)} "
                                                      "incident(s))" + _apart_text(apart), None, band, evidence)
        result = _curve_result(line, obs, band, evidence)
    result["reason"] = _apart_text(apart).lstrip("; ") or None
    return result


def _other_sources(rows: Any, tier: Tier, tier_id: str, noun: str, nouns: str, how: str) -> str:
    """'; 1 incident raised by the exercise is not scored at tier T2 (...)': the items a tier leaves
    out by their source, so that a line not exercised never reads as if nothing happened."""
    if rows.empty:
        return ""
    mine = rows[~rows["source"].isin(tier.sources)]
    n = len(mine)
    if not n:
        return ""
    scores = "the supplier's records only" if tier.sources == ["organic"] else " and ".join(tier.sources)
    return (f"; {n} {noun if n == 1 else nouns} {how} {'is' if n == 1 else 'are'} not scored at tier {tier_id} "
            f"({tier.name}), which scores {scores}")


def _incident_notes(row: Any) -> list[str]:
    """What a reader must know beside one incident's restore figure (why it is a range is said
    beside the range)."""
    notes = []
    if getattr(row, "started_before_window", False):
        notes.append("its clock started before the window opened; counted whole because it was restored in the window")
    if getattr(row, "reopens", 0):
        notes.append(f"re-opened {row.reopens} time(s): the clock runs to the last restore")
    return notes


def _bounds(row: Any, figure: str) -> tuple[float, float | None] | None:
    """(at least, at most or None) of a figure the journal gives only as a range, or None where it
    gives no range either (nothing to bound)."""
    import pandas as pd

    low = getattr(row, f"{figure}_at_least", None)
    if low is None or pd.isna(low):
        return None
    high = getattr(row, f"{figure}_at_most", None)
    return float(low), None if high is None or pd.isna(high) else float(high)


def _range_why(row: Any, waits: bool = True) -> str:
    """Why an incident's figure is a range, in a few words (the row's ``restore_evidence`` and
    ``out_of_order`` say it in full)."""
    why = []
    if getattr(row, "detection_stand_in", False):
        why.append("its detection time is a ticket's opening, never the clock's start (3.19.3)")
    if isinstance(getattr(row, "out_of_order", None), str):
        why.append("out of order: the first communication is dated before the recorded clock start")
    if waits and getattr(row, "open_waits", 0):
        why.append(f"{row.open_waits} wait(s) or change window(s) with no recorded end")
    return "; ".join(why)


def _range_words(low: float, high: float | None, unit: str) -> str:
    from day60.display import num

    return f"at least {num(low, 2, unit)}" if high is None else \
        f"between {num(low, 2)} and {num(high, 2, unit)}"


def _apart_text(apart: dict[str, int]) -> str:
    parts = [f"{n} {k}" for k, n in apart.items() if n]
    return f"; counted apart: {', '.join(parts)}" if parts else ""


def _rollback_line(line: Line, figures: Figures, tier: Tier, deal: dict[str, Any], tier_id: str = "") -> dict[str, Any]:
    import pandas as pd

    table = figures.tables["rollbacks"]
    mine = table[(table["kind"] == tier.rollback_kind) & (table["status"] == "in the window")]
    outside = int(((table["kind"] == tier.rollback_kind) & (table["status"] == "outside the window")).sum())
    excluded = int(((table["kind"] == tier.rollback_kind) & (table["status"] == "excluded")).sum())
    apart = _apart_text({"outside the window": outside, "excluded": excluded})
    if mine.empty:
        other = table[(table["kind"] != tier.rollback_kind) & (table["status"] == "in the window")]
        kinds = "; ".join(f"{n} {kind} rollback(s) in the window, not scored at tier {tier_id}"
                          for kind, n in other["kind"].value_counts().sort_index().items())
        return _result(line, NOT_EXERCISED, 0.0, f"no {tier.rollback_kind} rollback in the window (rehearsals and "
                                                 "production are never mixed)" + (f"; {kinds}" if kinds else "")
                       + apart + _injection_notes(figures))
    evidence = [s for seqs in mine["seqs"] for s in seqs]
    if line.how == "yes-no":
        missing = [r.id for r in mine.itertuples() if not r.smoke_restored]
        earned = 0.0 if missing else line.points
        reason = f"no smoke pass recorded within the window for {', '.join(missing)}" if missing else None
        figure = {"rollbacks": len(mine), "restored": [r.smoke_restored for r in mine.itertuples()]}
        return _result(line, "scored", earned, reason, figure, {"kind": tier.rollback_kind}, evidence)
    band = _band(line, deal)
    obs = []
    for row in mine.itertuples():
        value = getattr(row, line.figure)
        value = None if value is None or pd.isna(value) else float(value)
        note = row.reason if isinstance(row.reason, str) else None
        if value is None and note is None:
            note = "this step was not recorded within the window"
        obs.append({"id": row.id, "value": value, "share": slide(value, band["target"], line.slide_end, line.cutoff),
                    "note": note})
    result = _curve_result(line, obs, {**band, "kind": tier.rollback_kind}, evidence)
    result["reason"] = apart.lstrip("; ") or None
    return result


def _report_line(line: Line, figures: Figures, tier: Tier, deal: dict[str, Any], tier_id: str = "") -> dict[str, Any]:
    """Every report received in the window is judged. Completeness earns the line's points times
    the mean of the periods' completeness; timeliness the share of reports on time (3.21.6)."""
    rep = figures.summary["report"]
    apart = _apart_text({"received outside the window": len(rep["outside_window"])})
    if not rep["periods"]:
        return _result(line, NOT_EXERCISED, 0.0, rep["reason"].removeprefix("not run: ") + apart)
    periods = rep["periods"]
    evidence = [s for p in periods for s in [p["received_seq"], *p["element_seqs"]] if s is not None]
    if line.how == "share":
        target, source = _target(deal, line.parameter, 100.0)
        value = rep["completeness_percent"]
        if rep["reason"]:
            return _result(line, "not run", 0.0, rep["reason"].removeprefix("not run: "), None, None, evidence)
        figure = {"value": value, "periods": [{k: p[k] for k in ("period", "passing", "required", "not_applicable",
                                                                  "completeness_percent", "failing", "delivered")}
                                              for p in periods], "unit": "percent"}
        return _result(line, "scored", line.points * value / 100, apart.lstrip("; ") or None, figure,
                       {"target": target, "unit": "percent", "source": source}, evidence)
    late = [p for p in periods if not p["on_time"]]
    figure = {"value": rep["on_time"], "reports": len(periods),
              "periods": [{k: p[k] for k in ("period", "due", "delivered", "on_time")} for p in periods]}
    reason = "; ".join(f"{p['period']} delivered {p['delivered']}, due {p['due']}" if p["delivered"] else
                       f"{p['period']} not received by the close, due {p['due']}" for p in late) or None
    return _result(line, "scored", line.points * rep["on_time"] / len(periods), reason, figure,
                   {"due": "fifth business day of the following month"},
                   [p["received_seq"] for p in periods if p["received_seq"] is not None])


# Which section of lines shows each requirement: where the records said nothing of a section, its
# gap is "not evidenced", never a statement that the thing did not happen.
UNKNOWN_REQUIREMENTS = {"report-audit": "a monthly report audited in the window",
                        "rehearsal-rollback": "whether a rollback was rehearsed on a non-production copy",
                        "injected-drift": "a drift injected under safety sign-off",
                        "raised-incident": "an incident raised under safety sign-off",
                        "production-rollback": "whether a rollback was forced on production"}
REQUIREMENT_SECTIONS = {"report-audit": "report", "rehearsal-rollback": "rollback", "injected-drift": "drift",
                        "raised-incident": "incident", "production-rollback": "rollback"}


def _tier_check(tier_id: str, tier: Tier, figures: Figures, header: dict[str, Any],
                unknown: set[str] | None = None) -> dict[str, Any]:
    from day60.metrics import NOT_DETECTED

    """Whether the journal shows every event its tier requires (charter 9.9: the tier printed
    beside a score says which test was run); each gap is named, never hidden."""
    drift, incidents, rollbacks = figures.tables["drift"], figures.tables["incidents"], figures.tables["rollbacks"]
    in_window = rollbacks[rollbacks["status"] == "in the window"]
    injected = drift[drift["source"] == "exercise"]
    periods = figures.summary["report"]["periods"]
    audited = [p for p in periods if p["completeness_percent"] is not None]
    shown = {
        # a report received is not a report audited: the audit is every required element checked
        "report-audit": bool(audited),
        "rehearsal-rollback": bool((in_window["kind"] == "rehearsal").any()),
        "injected-drift": bool(injected["status"].isin(["notified", NOT_DETECTED, "sealed", "open"]).any()),
        "raised-incident": bool(((incidents["source"] == "exercise")
                                 & ~incidents["status"].isin(["outside the window"])).any())
        if len(incidents) else False,
        "production-rollback": bool((in_window["kind"] == "production").any()),
        "every-injection-completed": not (figures.summary["injections"]["stopped"]
                                          or figures.summary["injections"]["not_run"]),
    }
    problems = [f"not evidenced: the records seen do not show {UNKNOWN_REQUIREMENTS[r]}"
                if REQUIREMENT_SECTIONS.get(r) in (unknown or set()) else
                f"no monthly report was audited: {', '.join(p['period'] for p in periods)} was received, but not "
                "every required element was checked" if r == "report-audit" and periods else REQUIREMENTS[r]
                for r in tier.requires if not shown[r]]
    raised = bool((incidents["source"] == "exercise").any()) if len(incidents) else False
    if "exercise" not in tier.sources and (len(injected) or raised):
        problems.append(f"injections are recorded, which tier {tier_id} does not run")
    clear = injected[~injected["held"].astype(bool)]
    if len(clear):
        problems.append(f"{len(clear)} injected onset(s) logged in clear, so the supplier could read the injection "
                        "time (charter 3.18.3)")
    if tier.unannounced and header.get("window_announced", True):
        problems.append("the header says the supplier was told the exercise window, which this tier forbids")
    return {"met": not problems, "problems": problems, "checks": tier.checks, "requires": tier.requires,
            "production_change": tier.production_change}

"""Our restore figure beside the vendor's own, per ticket, from the journal alone.

An import writes the vendor's duration for a ticket on its last ``incident.ticket-closed``
(``vendor_*`` fields: which field it is, its calendar and business milliseconds, when the
vendor's clock started and stopped, how long it stood paused, the vendor's schedule). Ours is
the figure ``metrics`` computes (the charter's: from the earlier of detection and partner
notice to the last monitoring-confirmed restore, less merged waits on the partner and agreed
change windows). They are compared like with like: the vendor's calendar (24x7) figure with our
calendar hours, its business figure with our business hours, and agree within
``AGREE_SECONDS``.

Each difference is taken apart into what the journal shows: where the two clocks start, where
they stop, how long each stood paused, re-opens, and (for business hours) the vendor's own
schedule; what those do not account for is stated as unexplained, never hidden.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

AGREE_SECONDS = 60  # our figure and the vendor's agree when within a minute of each other
US_PER_HOUR = 3_600_000_000


def _vendor_records(journal: Any) -> tuple[dict[str, dict[str, Any]], dict[str, int], set[str]]:
    """Per incident: the last event data holding a vendor clock; re-open counts; the
    incidents whose clock starts at a stand-in (the ticket's opening)."""
    if journal.incidents is not None:
        kept = journal.incidents.kept()
        reopens = journal.incidents.count("incident.reopened")
    else:
        kept = [e for e in journal.events if e["kind"].startswith("incident.")
                and ("vendor_measure" in e["data"] or "clock_start" in e["data"])]
        reopens = {}
        for e in journal.events:
            if e["kind"] == "incident.reopened":
                reopens[e["id"]] = reopens.get(e["id"], 0) + 1
    vendor: dict[str, dict[str, Any]] = {}
    standin: set[str] = set()
    for e in kept:
        if "vendor_measure" in e["data"]:
            vendor[e["id"]] = {**e["data"], "seq": e["seq"]}
        elif e["kind"] == "incident.detected" and e["data"].get("clock_start") == "ticket-opened":
            standin.add(e["id"])
    return vendor, reopens, standin


def from_journal(journal: Any, figures: Any = None, only: set[str] | None = None) -> dict[str, Any]:
    """The reconciliation table of a journal (``journal`` as ``engine.read`` or ``journal.read``
    gives it; ``figures`` its ``metrics.compute``, computed here if not given; ``only``: these
    incident ids). Every row: ours, theirs, the difference and its reasons."""
    vendor, reopens, standin = _vendor_records(journal)
    if only is not None:
        vendor = {k: v for k, v in vendor.items() if k in only}
    if not vendor:
        return {"compared": 0, "reason": "the journal holds no vendor durations to compare with"}
    if figures is None:
        from day60 import metrics

        figures = metrics.compute(journal)
    inc = figures.tables["incidents"]
    wanted = inc["id"].isin(list(vendor))  # a year of tickets: looked up by position, not by label
    inc = inc[wanted]
    names = ("status", "restore_hours", "restore_business_hours", "waiting_on_partner_hours", "change_window_hours",
             "start", "restored")
    columns = [inc[c].to_numpy() if c not in ("start", "restored") else list(inc[c]) for c in names]
    mine = {ident: dict(zip(names, values, strict=True)) for ident, *values in zip(inc["id"], *columns, strict=True)}
    cal = journal.calendar()
    table = [_row(ident, v, mine.get(ident), reopens.get(ident, 0), ident in standin, cal)
             for ident, v in sorted(vendor.items())]
    judged = [r for r in table if r["agree"] is not None]
    differ = [r for r in judged if not r["agree"]]
    worst = max(differ, key=lambda r: r["gap_hours"]) if differ else None
    return {"compared": len(judged), "agree": len(judged) - len(differ), "differ": len(differ),
            "not_compared": len(table) - len(judged), "tolerance_seconds": AGREE_SECONDS,
            "largest": {"ticket": worst["ticket"], "hours": worst["gap_hours"]} if worst else None,
            "measures": sorted({r["vendor_measure"] for r in table}), "tickets": table}


def for_import(path: Path, idents: list[str]) -> dict[str, Any]:
    """The reconciliation of the tickets an import just wrote (or found already written)."""
    from day60 import engine

    return from_journal(engine.read(path), only=set(idents))


def _hours(ms: Any) -> float | None:
    return None if ms is None else ms / 3_600_000


def _at(text: str | None) -> dt.datetime | None:
    return dt.datetime.fromisoformat(text) if text else None


def _h(value: float) -> str:
    return f"{value:.2f} h"


def _row(ident: str, v: dict[str, Any], mine: Any, reopens: int, standin: bool, cal: Any) -> dict[str, Any]:
    import math

    row: dict[str, Any] = {
        "ticket": ident.split(":", 1)[1], "incident": ident, "vendor_measure": v["vendor_measure"],
        "vendor_hours": _hours(v.get("vendor_wall_ms")), "vendor_business_hours": _hours(v.get("vendor_business_ms")),
        "vendor_schedule": v.get("vendor_schedule"), "ours_hours": None, "ours_business_hours": None,
        "difference_hours": None, "difference_business_hours": None, "gap_hours": 0.0, "agree": None,
        "reopens": reopens, "clock_start": "ticket's opening (stand-in)" if standin else "detection or notice",
        "reasons": [], "note": None}
    hours = None if mine is None else mine["restore_hours"]
    if mine is None or hours is None or (isinstance(hours, float) and math.isnan(hours)):
        status = "not in the journal" if mine is None else str(mine["status"])
        row["note"] = {"unconfirmed": "no monitoring-confirmed restore, so no figure of ours",
                       "open": "not restored in the window, so no figure of ours",
                       "outside the window": "its clock starts outside the journal's window",
                       "withdrawn": "withdrawn: it enters no figure (charter 3.19.5)",
                       "excluded": "excluded under the contract: it enters no figure (charter 3.19.5)"}.get(
            status, f"no figure of ours ({status})")
        return row
    ours_wall, ours_bus = float(hours), float(mine["restore_business_hours"])
    row["ours_hours"], row["ours_business_hours"] = ours_wall, ours_bus
    gaps = []
    if row["vendor_hours"] is not None:
        row["difference_hours"] = ours_wall - row["vendor_hours"]
        gaps.append(abs(row["difference_hours"]))
    if row["vendor_business_hours"] is not None:
        row["difference_business_hours"] = ours_bus - row["vendor_business_hours"]
        gaps.append(abs(row["difference_business_hours"]))
    if not gaps:
        row["note"] = "the vendor's figure has neither a calendar nor a business duration"
        return row
    row["gap_hours"] = max(gaps)
    row["agree"] = all(g * 3600 <= AGREE_SECONDS for g in gaps)
    if not row["agree"]:
        row["reasons"] = _reasons(row, v, mine, reopens, standin, cal)
    return row


def _reasons(row: dict[str, Any], v: dict[str, Any], mine: Any, reopens: int, standin: bool, cal: Any) \
        -> list[str]:
    """Why the two figures differ, from what the journal holds: each part (where the clocks start,
    where they stop, how long each stood paused) worked in calendar and in business hours on the
    deal's calendar; what the parts leave is stated: on business hours, the vendor's own schedule;
    otherwise, unexplained."""
    tol = AGREE_SECONDS / 3600
    start = mine["start"].to_pydatetime()
    end = mine["restored"].to_pydatetime()
    v_from, v_to = _at(v.get("vendor_from")), _at(v.get("vendor_to"))
    unit = "h" if row["vendor_hours"] is not None else "bh"

    def span(a: dt.datetime, b: dt.datetime) -> tuple[float, float]:
        """(calendar, business) hours from a to b, negative when b is before a."""
        sign = 1.0 if b >= a else -1.0
        lo, hi = (a, b) if b >= a else (b, a)
        return sign * (hi - lo).total_seconds() / 3600, sign * cal.business_seconds(lo, hi) / 3600

    def shown(part: tuple[float, float]) -> str:
        return _h(abs(part[0])) if unit == "h" else f"{abs(part[1]):.2f} bh"

    ours_paused = (span(start, end)[0] - row["ours_hours"], span(start, end)[1] - row["ours_business_hours"])
    waits = float(mine["waiting_on_partner_hours"] or 0.0)
    changes = float(mine["change_window_hours"] or 0.0)
    v_paused_wall = _hours(v.get("vendor_paused_ms"))
    if v_paused_wall is None and v_from and v_to and row["vendor_hours"] is not None:
        v_paused_wall = span(v_from, v_to)[0] - row["vendor_hours"]
    v_paused = None if v_paused_wall is None else (v_paused_wall, 0.0 if abs(v_paused_wall) <= tol else None)
    out: list[str] = []
    explained = [0.0, 0.0]
    known = [True, True]
    if v_from is not None:
        d = span(start, v_from)
        explained = [explained[0] + d[0], explained[1] + d[1]]
        if abs(d[0]) > tol:
            basis = ("our clock starts at the ticket's opening, standing in for a detection the records lack"
                     if standin else "our clock starts at the earlier of the supplier's detection and your notice "
                                     "(charter 3.19.3)")
            out.append(f"{basis}, {shown(d)} {'before' if d[0] > 0 else 'after'} the vendor's clock started "
                       f"({v_from.isoformat()})")
    else:
        known = [False, False]
        if standin:
            out.append("our clock starts at the ticket's opening, standing in for a detection the records lack")
    if v_to is not None:
        d = span(v_to, end)
        explained = [explained[0] + d[0], explained[1] + d[1]]
        if abs(d[0]) > tol:
            out.append(f"our clock ends at the monitoring-confirmed restore (charter 3.19.4), {shown(d)} "
                       f"{'after' if d[0] > 0 else 'before'} the vendor's stopped ({v_to.isoformat()})")
    else:
        known = [False, False]
    if reopens:
        out.append(f"re-opened {reopens} time(s): our clock runs to the last confirmed restore")
    parts = [f"waits on you {_h(waits)}"] if waits > tol else []
    parts += [f"agreed change windows {_h(changes)}"] if changes > tol else []
    ours = f"ours stops for {_h(ours_paused[0])} ({', '.join(parts)})" if parts else "ours stops for none"
    if v_paused is not None:
        d = ours_paused[0] - v_paused[0]
        explained[0] -= d
        if v_paused[1] is None:
            known[1] = False  # how much of the vendor's pause fell in business hours is not known
        else:
            explained[1] -= ours_paused[1] - v_paused[1]
        if abs(d) > tol and v_paused[0] > ours_paused[0]:
            out.append(f"the vendor's clock stood paused {_h(v_paused[0])} where {ours}: a hold the vendor "
                       "counted out that the charter counts (the supplier's own time)")
        elif abs(d) > tol:
            out.append(f"{ours} where the vendor's clock stood paused {_h(v_paused[0])}: a wait or change "
                       "window the charter excludes that the vendor counted")
    else:
        known = [False, False]
        if parts:
            out.append(f"ours excludes {', '.join(parts)} (charter 3.19.5); the export does not say whether the "
                       "vendor's clock paused for them")
    apart = "the export does not say when the vendor's clock started and stopped, so the difference cannot be " \
            "taken apart"
    if row["difference_hours"] is not None and abs(row["difference_hours"]) > tol:
        rest = row["difference_hours"] - explained[0]
        if not known[0]:
            out.append(apart)
        elif abs(rest) > tol:
            out.append(f"{_h(abs(rest))} of the calendar difference is not explained by the records")
    if row["difference_business_hours"] is not None and abs(row["difference_business_hours"]) > tol:
        schedule = f" ({v['vendor_schedule']})" if v.get("vendor_schedule") else ""
        if known[1]:
            rest = row["difference_business_hours"] - explained[1]
            if abs(rest) > tol:
                out.append(f"{rest:+.2f} bh of the business difference is the vendor's own schedule{schedule}, not "
                           "the deal's calendar")
        elif v_from is None or v_to is None:
            if apart not in out:
                out.append(apart)
        else:
            out.append(f"the vendor's business hours are on its own schedule{schedule}; the export does not say "
                       "how its pauses fall on the deal's calendar")
    return out

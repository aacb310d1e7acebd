"""What follows from ``comply``'s verdicts under a deal's commercial modules: Service Credits,
Critical Failures, relief, Deemed Severity 2 Incidents and the Hypercare Period.

Everything here works on comply's rows (met, not met, not run, judged on the unrounded figure)
and on what the figures say about themselves. What it cannot know from them (charges not given,
earlier months not given, a relief claim not yet agreed, a figure that mixes Exercise Events with
events that arose of themselves) it does not guess: it says so in ``cannot``, one line each.

The arithmetic is the schedule's own (clauses/modules/service-credits.yaml and
critical-failures.yaml), worked on the deal's values:

- At-Risk Amount = at_risk_percent of the month's Monthly Charges.
- A missed Service Level with a Credit Weight earns weight x share of the At-Risk Amount, the share
  being credit_critical_share_percent when the figure is beyond its Critical Level and
  credit_missed_share_percent otherwise.
- Each Deemed Severity 2 Incident earns deemed_credit_percent of the At-Risk Amount.
- The month's credits never exceed the At-Risk Amount.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from day60.clauses import RELIEF_EVENTS, Deal, Library

MISSED = "not met"


def money(currency: str, amount: float) -> str:
    return f"{currency} {amount:,.2f}".strip()


def _beyond(row: dict[str, Any], critical: float) -> bool | None:
    """Whether a row's unrounded figure is beyond its Critical Level (None: no figure to tell)."""
    if row["value"] is None:
        return None
    return row["value"] < critical if row["comparator"] == "floor" else row["value"] > critical


def _misses(row: dict[str, Any], value: float) -> bool:
    target = row["threshold"]
    return value < target if row["comparator"] == "floor" else value > target


def clause_number(deal: Deal, part: str) -> int | None:
    """The number a clause or module has in the deal's schedule (measures first, then modules)."""
    parts = [*deal.include, *deal.modules]
    return parts.index(part) + 1 if part in parts else None


def credit_start(deal: Deal) -> dt.date | None:
    """The Credit Start Date: the first day of the first calendar month that begins after the
    Hypercare Period (hypercare_business_days after the Go-Live Date, counted on the deal's
    calendar) ends. None without the commencement module, its values or a calendar."""
    from day60.clock import BusinessCalendar

    live, days = deal.parameters.get("go_live_date"), deal.parameters.get("hypercare_business_days")
    if not deal.has("commencement") or live is None or days is None or deal.calendar is None:
        return None
    live = live if isinstance(live, dt.date) else dt.date.fromisoformat(str(live))
    end = BusinessCalendar.from_dict(deal.calendar).business_day_after(live, int(days)) if days else live
    return dt.date(end.year + (end.month == 12), end.month % 12 + 1, 1)


def consequences(lib: Library, deal: Deal, rows: list[dict[str, Any]], figures: dict[str, Any],
                 period: dict[str, Any] | None = None) -> dict[str, Any]:
    """Relief, Service Credits and Critical Failures for one Measurement Period, from comply's
    ``rows`` and the ``figures`` they were judged on (each may carry ``relief``, ``deemed``,
    ``disputed``, ``months`` and, from a journal, ``sources``). ``period`` may give the ``month``
    (YYYY-MM), the ``charges`` for it, the ``volume`` submitted and the ``forecast``, and
    ``critical_failures_before`` (Critical Failures in the termination period before this one).

    Worked example (SYNTHETIC numbers): at_risk_percent 12 and charges of 100,000 make an At-Risk
    Amount of 12,000. Field accuracy (weight 15) at 93.0 against a target of 95 and a Critical
    Level of 90 is missed within its Critical Level: 15% x 50% = 7.5% of the At-Risk Amount, 900.
    Containment (weight 10) at 40.0 against a Critical Level of 45 is beyond it: 10% x 100% = 10%,
    1,200, and a Critical Failure. Two Deemed Severity 2 Incidents at 5% each: 10%, 1,200. Total
    27.5% of the At-Risk Amount = 3,300, under the cap of 12,000; 3.3% of the Monthly Charges.
    """
    period = dict(period or {})
    cannot: list[str] = []
    currency = str(deal.deal.get("currency", ""))
    levels = deal.service_levels
    by_check = {r["check"]: r for r in rows}
    relief = _relief(lib, deal, rows, figures, period, cannot)
    start = credit_start(deal)
    hypercare = None
    if deal.has("commencement"):
        month = period.get("month")
        if start is None:
            cannot.append("whether this period falls in the Hypercare Period: the deal's Go-Live Date, hypercare "
                          "length or calendar is missing")
        elif month is None:
            cannot.append(f"whether this period falls before the Credit Start Date ({start.isoformat()}): give "
                          "period.month")
        else:
            year, mon = (int(x) for x in month.split("-"))
            ends = dt.date(year + (mon == 12), mon % 12 + 1, 1) - dt.timedelta(days=1)
            hypercare = {"credit_start": start.isoformat(), "month": month, "before_credit_start": ends < start}
    early = bool(hypercare and hypercare["before_credit_start"])
    out: dict[str, Any] = {"relief": list(relief.values()), "hypercare": hypercare, "credits": None,
                           "critical_failures": None, "cannot": cannot,
                           "clauses": {m: clause_number(deal, m) for m in deal.modules}}
    if deal.has("critical-failures") and _filled(lib, deal, "critical-failures", cannot):
        out["critical_failures"] = _critical(lib, deal, rows, figures, relief, period, early, cannot)
    if deal.has("service-credits") and _filled(lib, deal, "service-credits", cannot):
        out["credits"] = _credits(lib, deal, rows, by_check, figures, relief, period, early, out, cannot, currency)
    unjudged = [c for c, lv in levels.items() if "credit_weight" in lv and c in by_check
                and by_check[c]["status"] == "not run" and by_check[c]["value"] is None
                and "Minimum Volume" not in (by_check[c]["reason"] or "")]
    if unjudged and deal.has("service-credits"):
        cannot.append(f"{len(unjudged)} Service Level(s) with a Credit Weight have no figure here "
                      f"({', '.join(unjudged)}): where the Monthly Report gave none, clause "
                      f"{clause_number(deal, 'service-levels')}.2 counts each as missed, which comply cannot see, "
                      "so it credits nothing for them")
    return out


def _filled(lib: Library, deal: Deal, module: str, cannot: list[str]) -> bool:
    """Whether a draft deal fills the values a module's arithmetic needs (a choice's wording aside)."""
    missing = [p.id for p in lib.parts[module].parameters if p.type != "choice" and p.id not in deal.parameters]
    if missing:
        cannot.append(f"{lib.parts[module].title}: the deal leaves {', '.join(missing)} unfilled")
    return not missing


def _relief(lib: Library, deal: Deal, rows: list[dict[str, Any]], figures: dict[str, Any],
            period: dict[str, Any], cannot: list[str]) -> dict[str, dict[str, Any]]:
    """Per check, the relief that applies (``applied``) or is only claimed. Exercise Events are
    relieved where every event behind a journal's figure is one; a volume above the forecast by more
    than the tolerance relieves the volume-sensitive Service Levels; any other event relieves a
    figure once the figures file says it was agreed."""
    out: dict[str, dict[str, Any]] = {}
    sensitive = {f for m in deal.modules for f in lib.parts[m].volume_sensitive}
    volume, forecast = period.get("volume"), period.get("forecast")
    tolerance = deal.parameters.get("volume_tolerance_percent")
    over = None
    if deal.has("relief") and sensitive & {r["check"] for r in rows}:
        if volume is None or forecast is None:
            cannot.append("volume relief: give period.volume and period.forecast (the Volume Forecast) to see "
                          f"whether {', '.join(sorted(sensitive))} are relieved")
        elif tolerance is not None and forecast > 0:
            over = (volume / forecast - 1) * 100
    for row in rows:
        check, fig = row["check"], figures.get(row["check"]) or {}
        claim = fig.get("relief") if isinstance(fig, dict) else None
        sources = fig.get("sources") if isinstance(fig, dict) else None
        if claim:
            agreed = bool(claim.get("agreed"))
            out[check] = {"check": check, "event": claim["event"], "applied": agreed,
                          "why": f"{RELIEF_EVENTS[claim['event']]} claimed"
                          + (f" ({claim['note']})" if claim.get("note") else "")
                          + (" and agreed" if agreed else "; a claimed relief applies once the Partner accepts it "
                             "or the Expert decides it, and until then the miss stands")}
        elif sources and sources.get("exercise") and not sources.get("organic"):
            out[check] = {"check": check, "event": "exercise", "applied": True,
                          "why": f"every event behind the figure ({sources['exercise']}) is an Exercise Event, "
                                 "judged by the Day-60 score instead"}
        elif sources and sources.get("exercise") and sources.get("organic"):
            cannot.append(f"{check}: the figure mixes {sources['exercise']} Exercise Event(s) with "
                          f"{sources['organic']} that arose of themselves; comply cannot separate them, so it "
                          "applies no relief and judges the whole figure")
        elif sources is not None and sources.get("unknown"):
            cannot.append(f"{check}: the journal does not say whether the exercise forced the "
                          f"{sources['unknown']} event(s) behind this figure, so no Exercise Event relief applies")
        elif over is not None and check in sensitive and over > tolerance and row["status"] == MISSED:
            out[check] = {"check": check, "event": "volume", "applied": True,
                          "why": f"{volume:,g} submitted against a Volume Forecast of {forecast:,g}: {over:.1f} "
                                 f"percent over, beyond the tolerance of {tolerance:g} percent"}
    return out


def _critical(lib: Library, deal: Deal, rows: list[dict[str, Any]], figures: dict[str, Any],
              relief: dict[str, dict[str, Any]], period: dict[str, Any], early: bool,
              cannot: list[str]) -> dict[str, Any]:
    """The period's Critical Failures: (a) a figure beyond its Critical Level; (b) the same Service
    Level missed repeat_miss_count times in the last repeat_miss_months Measurement Periods (from
    the figure's ``months``, this period's last); (c) the Day-60 score below its floor at this
    exercise and the one before. Then whether the termination right arises: termination_failures
    or more in termination_months, counting ``period.critical_failures_before``.

    Worked example: repeat 3 in 6; months [96, 94, 96, 94.5, 96, 94.2] against a floor of 95 hold
    three misses (94, 94.5, 94.2) in the last six: a Critical Failure, though the last, 94.2, is
    within the Critical Level of 90. With 2 Critical Failures before and this one, 3 in the
    termination period reach termination_failures 3: the right to terminate arises."""
    p = deal.parameters
    found: list[dict[str, Any]] = []
    missing_history = []
    for row in rows:
        check, level = row["check"], deal.service_levels.get(row["check"], {})
        if row["comparator"] not in ("floor", "ceiling") or row["threshold"] is None:
            continue
        if relief.get(check, {}).get("applied"):
            continue
        fig = figures.get(check) or {}
        if row["status"] == MISSED and "critical" in level:
            beyond = _beyond(row, level["critical"])
            if beyond:
                word = "below" if row["comparator"] == "floor" else "above"
                found.append({"check": check, "kind": "beyond its Critical Level",
                              "detail": f"{row['value']!r} is {word} the Critical Level of {level['critical']:g}"})
            elif beyond is None:
                cannot.append(f"{check}: not met with no figure ({row['reason']}), so comply cannot tell whether it "
                              "is beyond its Critical Level")
        months = fig.get("months") if isinstance(fig, dict) else None
        if check == "day60-score":
            if row["status"] == MISSED and months and len(months) >= 2 and _misses(row, float(months[-2])):
                found.append({"check": check, "kind": "Day-60 score below its floor twice running",
                              "detail": f"{months[-2]!r} at the exercise before and {row['value']!r} at this one"})
            elif row["status"] == MISSED and not (months and len(months) >= 2):
                cannot.append("day60-score: below its floor; give the earlier exercise's score (months: [earlier, "
                              "this]) to see whether it was below the floor twice running")
            continue
        if row["status"] != MISSED:
            continue
        if not months:
            missing_history.append(check)
            continue
        if row["value"] is not None and float(months[-1]) != row["value"]:
            cannot.append(f"{check}: months does not end with this period's figure ({months[-1]!r} against "
                          f"{row['value']!r}), so repeated misses are not counted")
            continue
        window = [float(m) for m in months[-int(p["repeat_miss_months"]):]]
        misses = sum(_misses(row, m) for m in window)
        if misses >= int(p["repeat_miss_count"]):
            found.append({"check": check, "kind": "missed repeatedly",
                          "detail": f"missed in {misses} of the last {len(window)} Measurement Periods, where "
                                    f"{int(p['repeat_miss_count'])} make a Critical Failure"})
    if missing_history:
        cannot.append(f"repeated misses of {', '.join(missing_history)}: give each figure's months (earlier "
                      "Measurement Periods' figures, this one last)")
    counted = [] if early else found
    before = period.get("critical_failures_before")
    need = int(p["termination_failures"])
    if before is not None:
        total = len(counted) + int(before)
        termination = {"arises": total >= need, "count": total,
                       "why": f"{len(counted)} this period and {int(before)} before it in the "
                              f"{int(p['termination_months'])} months: {total} against {need}"}
    elif len(counted) >= need:
        termination = {"arises": True, "count": len(counted), "why": f"{len(counted)} this period alone"}
    else:
        termination = {"arises": None, "count": len(counted), "why": "earlier Critical Failures not given"}
        cannot.append(f"whether the termination right arises: give period.critical_failures_before (those in the "
                      f"{int(p['termination_months'])} months before this period)")
    return {"found": found, "counted": len(counted),
            "note": "before the Credit Start Date: none counts, though a figure beyond its Critical Level still "
                    "calls for a Rectification Plan" if early and found else None,
            "termination": termination}


def _credits(lib: Library, deal: Deal, rows: list[dict[str, Any]], by_check: dict[str, dict[str, Any]],
             figures: dict[str, Any], relief: dict[str, dict[str, Any]], period: dict[str, Any], early: bool,
             out: dict[str, Any], cannot: list[str], currency: str) -> dict[str, Any]:
    """Each weighted Service Level's credit as a percent of the At-Risk Amount, the Deemed Incident
    Credits, the cap, and (where the month's Monthly Charges are given) the amounts."""
    p = deal.parameters
    missed, critical = float(p["credit_missed_share_percent"]), float(p["credit_critical_share_percent"])
    at_risk = float(p["at_risk_percent"])
    charges = period.get("charges")
    lines = []
    beyond_cf = {f["check"] for f in (out.get("critical_failures") or {}).get("found", [])
                 if f["kind"] == "beyond its Critical Level"}
    for check, level in deal.service_levels.items():
        if "credit_weight" not in level or check not in by_check:
            continue
        row, weight = by_check[check], float(level["credit_weight"])
        line = {"check": check, "status": row["status"], "weight_percent": weight, "band": None,
                "share_percent": 0.0, "percent_of_at_risk": 0.0, "note": None}
        fig = figures.get(check) or {}
        if row["status"] != MISSED:
            line["note"] = "not judged: " + (row["reason"] or "no figure") if row["status"] == "not run" else None
        elif relief.get(check, {}).get("applied"):
            line["note"] = f"relieved: {relief[check]['why']}"
        elif early:
            line["note"] = "before the Credit Start Date: no credit accrues"
        else:
            beyond = _beyond(row, level["critical"]) if "critical" in level else False
            band = "beyond the Critical Level" if beyond or check in beyond_cf else "missed"
            share = critical if band != "missed" else missed
            line.update(band=band, share_percent=share, percent_of_at_risk=weight * share / 100)
            if beyond is None:
                line["note"] = "no figure to place against the Critical Level: credited at the missed share"
            if isinstance(fig, dict) and fig.get("disputed"):
                line["note"] = "a Provisional Figure: the figure is challenged, and the credit follows it until it " \
                               "is agreed or decided"
        lines.append(line)
    deemed = []
    for row in rows:
        fig = figures.get(row["check"]) or {}
        count = fig.get("deemed") if isinstance(fig, dict) else None
        if count:
            relieved = relief.get(row["check"], {}).get("applied")
            deemed.append({"check": row["check"], "count": int(count),
                           "each_percent": float(p["deemed_credit_percent"]),
                           "percent_of_at_risk": 0.0 if relieved or early else
                           int(count) * float(p["deemed_credit_percent"]),
                           "note": "relieved" if relieved else ("before the Credit Start Date" if early else None)})
    flagged = [k.figure for c in deal.include for k in lib.clauses[c].checks if k.deemed]
    silent = [c for c in flagged if c in by_check and not isinstance((figures.get(c) or {}).get("deemed"), int)]
    if silent:
        cannot.append(f"Deemed Severity 2 Incidents under {', '.join(silent)}: give each figure's deemed count "
                      "(comply counts them only from a journal's drifts notified late or never)")
    raw = sum(x["percent_of_at_risk"] for x in lines) + sum(x["percent_of_at_risk"] for x in deemed)
    total = min(raw, 100.0)
    result = {"at_risk_percent": at_risk, "lines": lines, "deemed": deemed, "uncapped_percent_of_at_risk": raw,
              "percent_of_at_risk": total, "capped": raw > 100.0, "percent_of_charges": total * at_risk / 100,
              "charges": charges, "at_risk_amount": None, "amount": None}
    if charges is None:
        cannot.append("the credits in money: give the month's Monthly Charges (--charges or period.charges); they "
                      f"come to {total:g} percent of the At-Risk Amount, {total * at_risk / 100:g} percent of the "
                      "Monthly Charges")
    else:
        result.update(at_risk_amount=charges * at_risk / 100, amount=charges * at_risk / 100 * total / 100,
                      shown={"at_risk_amount": money(currency, charges * at_risk / 100),
                             "amount": money(currency, charges * at_risk / 100 * total / 100)})
    return result

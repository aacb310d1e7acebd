"""What follows from ``comply``'s verdicts under a deal's commercial modules: Service Credits,
Critical Failures, relief, Deemed Severity 2 Incidents and the Hypercare Period.

Everything here works on comply's rows (met, not met, not run, judged on the unrounded figure)
and on what the figures say about themselves. What it cannot know from them (charges not given,
earlier months not given, a relief claim not yet agreed or giving no recomputed figure, whether a
period lies before the Credit Start Date) it does not guess: it says so in ``cannot``, one line
each, and marks what depends on it conditional.

The arithmetic is the schedule's own (clauses/modules/service-credits.yaml, critical-failures.yaml
and relief.yaml), worked on the deal's values:

- At-Risk Amount = at_risk_percent of the month's Monthly Charges.
- A missed Service Level with a Credit Weight earns weight x share of the At-Risk Amount, the share
  being credit_critical_share_percent when the figure is beyond its Critical Level and
  credit_missed_share_percent otherwise.
- Each Deemed Severity 2 Incident earns deemed_credit_percent of the At-Risk Amount of the month
  in which it occurred; an Exercise Event earns none.
- The month's credits never exceed the At-Risk Amount.
- Relief leaves out only the Items a Relief Event affected: a relieved Service Level is judged on
  the figure recomputed without them, or not at all where they cannot be separated.
- A Service Level makes at most one Critical Failure in a Measurement Period, and periods that end
  before the Credit Start Date count towards none.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from day60.clauses import RELIEF_EVENTS, VOLUME_KINDS, Deal, Library
from day60.errors import InputError

MISSED = "not met"


def money(currency: str, amount: float) -> str:
    amount = amount + 0.0  # -0.0 prints as 0.00
    return f"{currency} {amount:,.2f}".strip()


def _beyond(row: dict[str, Any], critical: float, value: float | None = None) -> bool | None:
    """Whether a figure (the row's unrounded one unless ``value``) is beyond its Critical Level
    (None: no figure to tell)."""
    value = row["value"] if value is None else value
    if value is None:
        return None
    return value < critical if row["comparator"] == "floor" else value > critical


def _misses(row: dict[str, Any], value: float) -> bool:
    target = row["threshold"]
    return value < target if row["comparator"] == "floor" else value > target


def clause_number(deal: Deal, part: str) -> int | None:
    """The number a clause or module has in the deal's schedule (measures first, then modules)."""
    parts = [*deal.include, *deal.modules]
    return parts.index(part) + 1 if part in parts else None


def _month_end(month: str) -> dt.date:
    year, mon = (int(x) for x in month.split("-"))
    return dt.date(year + (mon == 12), mon % 12 + 1, 1) - dt.timedelta(days=1)


def _months_back(month: str, back: int) -> str:
    year, mon = (int(x) for x in month.split("-"))
    index = year * 12 + mon - 1 - back
    return f"{index // 12:04d}-{index % 12 + 1:02d}"


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


def _go_live(deal: Deal) -> dt.date | None:
    live = deal.parameters.get("go_live_date") if deal.has("commencement") else None
    if live is None:
        return None
    return live if isinstance(live, dt.date) else dt.date.fromisoformat(str(live))


def consequences(lib: Library, deal: Deal, rows: list[dict[str, Any]], figures: dict[str, Any],
                 period: dict[str, Any] | None = None) -> dict[str, Any]:
    """Relief, Service Credits and Critical Failures for one Measurement Period, from comply's
    ``rows`` and the ``figures`` they were judged on (each may carry ``relief``, ``deemed``,
    ``disputed``, ``months`` and, from a journal, ``sources`` and ``deemed_months``). ``period`` may
    give the ``month`` (YYYY-MM), the ``charges`` for it, the Documents and Contacts submitted and
    their forecasts (``documents``, ``documents_forecast``, ``contacts``, ``contacts_forecast``), and
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
    by_check = {r["check"]: r for r in rows}
    _check_history(deal, figures, period)
    relief = _relief(lib, deal, rows, figures, period, cannot)
    judged = {r["check"]: _judged(r, relief.get(r["check"])) for r in rows}
    start = credit_start(deal)
    hypercare, conditional = None, None
    if deal.has("commencement"):
        month = period.get("month")
        if start is None:
            conditional = ("the Credit Start Date cannot be worked out (the Go-Live Date, hypercare length or "
                           "calendar is missing)")
            cannot.append(f"whether this period falls in the Hypercare Period: {conditional}")
        elif month is None:
            conditional = f"this period ends on or after the Credit Start Date ({start.isoformat()})"
            cannot.append(f"whether this period falls before the Credit Start Date ({start.isoformat()}): give "
                          "period.month; until then every credit and Critical Failure below holds only if "
                          f"{conditional}")
        else:
            hypercare = {"credit_start": start.isoformat(), "month": month,
                         "before_credit_start": _month_end(month) < start}
    early = bool(hypercare and hypercare["before_credit_start"])
    out: dict[str, Any] = {"relief": list(relief.values()), "hypercare": hypercare, "credits": None,
                           "critical_failures": None, "cannot": cannot, "conditional": conditional,
                           "clauses": {m: clause_number(deal, m) for m in deal.modules}}
    if deal.has("critical-failures") and _filled(lib, deal, "critical-failures", cannot):
        out["critical_failures"] = _critical(deal, rows, figures, judged, period, early, start, conditional, cannot)
    if deal.has("service-credits") and _filled(lib, deal, "service-credits", cannot):
        out["credits"] = _credits(lib, deal, rows, by_check, figures, judged, period, early, conditional, out, cannot,
                                  currency)
    _unjudged(lib, deal, by_check, cannot)
    return out


def _unjudged(lib: Library, deal: Deal, by_check: dict[str, dict[str, Any]], cannot: list[str]) -> None:
    """Weighted Service Levels this period's figures leave unjudged for want of a figure or of its
    Sample Size, or short of their Minimum Volume where the party measuring them is the Provider:
    the service-levels clause treats each as missed where the Provider gave no figure, gave none
    with its Sample Size, or measured fewer units than its Minimum Volume though more were
    available. comply cannot see which, so it lists them here and credits nothing for them."""
    none, bare, short = [], [], []
    for check, level in deal.service_levels.items():
        row = by_check.get(check)
        if not deal.has("service-credits") or "credit_weight" not in level or row is None or row["status"] != "not run":
            continue
        reason = row["reason"] or ""
        if "Minimum Volume" in reason:
            found = lib.check(check)
            if found and found[1].measured_by == "Provider":
                short.append(check)
        elif row["value"] is None and not reason.startswith(("provisional", "the journal", "these figures")):
            none.append(check)
        elif row["value"] is not None and not row["n"]:
            bare.append(check)
    score = by_check.get("day60-score")
    if score is not None and score["status"] == "tier not demonstrated" and deal.has("day60-exercise"):
        cannot.append(f"day60-score: tier not demonstrated ({score['reason']}); clause "
                      f"{clause_number(deal, 'day60-exercise')} treats the score as below its floor where what is "
                      "missing was the Provider's to supply or do, and has the exercise run again where it was the "
                      "Partner's or the Auditor's: comply cannot tell whose it was")
    where = f"clause {clause_number(deal, 'service-levels')}"
    if none:
        cannot.append(f"{len(none)} Service Level(s) with a Credit Weight have no figure here ({', '.join(none)}): "
                      f"where the Monthly Report gave none, {where}.2 treats each as missed, which comply cannot see, "
                      "so it credits nothing for them")
    if bare:
        cannot.append(f"{', '.join(bare)}: a figure with no Sample Size (or a Sample Size of 0) is not judged; "
                      f"{where}.2 treats such a figure in the Monthly Report as missed: give n to judge it")
    if short:
        cannot.append(f"{', '.join(short)}: measured by the Provider on fewer units than the Minimum Volume; "
                      f"{where}.3 treats it as missed where more units were available for the Provider to measure, "
                      "which comply cannot see")


def _filled(lib: Library, deal: Deal, module: str, cannot: list[str]) -> bool:
    """Whether a draft deal fills the values a module's arithmetic needs (a choice's wording aside)."""
    missing = [p.id for p in lib.parts[module].parameters if p.type != "choice" and p.id not in deal.parameters]
    if missing:
        cannot.append(f"{lib.parts[module].title}: the deal leaves {', '.join(missing)} unfilled")
    return not missing


def _check_history(deal: Deal, figures: dict[str, Any], period: dict[str, Any]) -> None:
    """A figure's ``months`` may not reach back before the Go-Live Date: the schedule measured nothing
    then. Refused (bad input), naming the figure and how far back it may go."""
    live, month = _go_live(deal), period.get("month")
    if live is None or month is None:
        return
    for check, fig in sorted(figures.items()):
        months = fig.get("months") if isinstance(fig, dict) else None
        if not months:
            continue
        first = _months_back(month, len(months) - 1)
        if first < f"{live.year:04d}-{live.month:02d}":
            raise InputError("--figures", f"{check[:40]}.months holds {len(months)} months, reaching back to {first}, "
                                          f"before the Go-Live Date ({live.isoformat()})",
                             f"give only the months from {live.year:04d}-{live.month:02d} to {month}, this one last")


def _judged(row: dict[str, Any], relief: dict[str, Any] | None) -> dict[str, Any]:
    """How the commercial clauses judge a row once relief is applied: ``missed`` (True, False, or
    None where relief leaves it unjudged) and the ``value`` it is judged on. Relief only ever
    lifts a miss: a relieved figure is judged recomputed without the Items the event affected."""
    missed = row["status"] == MISSED
    if not missed or not relief or not relief.get("applied"):
        return {"missed": missed, "value": row["value"], "relieved": False}
    if relief.get("recomputed") is None:  # not judged, unless what is left holds a breach of its own
        return {"missed": True if relief.get("breach") else None, "value": None, "relieved": True}
    value = float(relief["recomputed"])
    return {"missed": _misses(row, value) or bool(relief.get("breach")), "value": value, "relieved": True}


def _volume(lib: Library, deal: Deal, check: str, period: dict[str, Any]) -> dict[str, Any] | None:
    """The volume relief test for a volume-sensitive check: its kind (Documents or Contacts), the
    count submitted and forecast, how far over, and the Items above the forecast plus the tolerance
    (the excess the relief clause relieves). None where the period does not give them."""
    found = lib.check(check)
    kind = VOLUME_KINDS.get(found[1].volume or "") if found else None
    tolerance = deal.parameters.get("volume_tolerance_percent")
    if kind is None or tolerance is None:
        return None
    volume, forecast = period.get(kind), period.get(f"{kind}_forecast")
    if volume is None or forecast is None:
        return {"kind": kind, "over": None}
    over = (volume / forecast - 1) * 100
    return {"kind": kind, "volume": volume, "forecast": forecast, "over": over, "tolerance": float(tolerance),
            "excess": max(0.0, volume - forecast * (1 + float(tolerance) / 100)), "beyond": over > float(tolerance)}


def _relief(lib: Library, deal: Deal, rows: list[dict[str, Any]], figures: dict[str, Any],
            period: dict[str, Any], cannot: list[str]) -> dict[str, dict[str, Any]]:
    """Per missed check, the relief that applies (``applied``, with the ``recomputed`` figure it is
    judged on, None where the affected Items cannot be separated) or is only claimed, and why.

    - An Exercise Event comes only from an Exercise Journal: a figure whose events the exercise
      all created is not judged; one that mixes them with events that arose of themselves is judged
      on those alone (the journal tells them apart). A figures file cannot claim one.
    - Volumes above the Volume Forecast relieve only the volume-sensitive Service Levels, only when
      the Documents (or Contacts) their figure counts exceed the forecast by more than the
      tolerance, and only the excess: the figure recomputed without it.
    - Any other Relief Event relieves once the Partner has accepted it (``agreed``), and only as the
      recomputed figure (or ``inseparable``) says: relief goes no further than the event's effect."""
    out: dict[str, dict[str, Any]] = {}
    sensitive = {f for m in deal.modules for f in lib.parts[m].volume_sensitive}
    has_relief = deal.has("relief")
    for row in rows:
        check, fig = row["check"], figures.get(row["check"]) or {}
        claim = fig.get("relief") if isinstance(fig, dict) else None
        sources = fig.get("sources") if isinstance(fig, dict) else None
        entry: dict[str, Any] | None = None
        if claim:
            entry = _claimed(lib, deal, row, claim, sensitive, period, has_relief)
        elif sources and sources.get("exercise"):
            if not sources.get("organic"):
                entry = {"check": check, "event": "exercise", "applied": True, "recomputed": None,
                         "why": f"every event behind the figure ({sources['exercise']}) is an Exercise Event, "
                                "judged by the Day-60 score instead"}
            else:
                value = sources.get("organic_value")
                entry = {"check": check, "event": "exercise", "applied": True, "recomputed": value,
                         "breach": bool(sources.get("organic_breach")),
                         "why": f"{sources['exercise']} Exercise Event(s) left out; judged on the {sources['organic']} "
                                "event(s) that arose of themselves"
                                + (f" ({value:g})" if value is not None else "")
                                + (", one of them a breach with no time to compare" if sources.get("organic_breach")
                                   else "")}
                if value is None and not sources.get("organic_breach"):
                    entry["recomputed"], entry["why"] = None, entry["why"] + ": nothing of theirs to judge"
        elif sources is not None and sources.get("unknown"):
            cannot.append(f"{check}: the journal does not say whether the exercise forced the "
                          f"{sources['unknown']} event(s) behind this figure, so no Exercise Event relief applies")
        elif has_relief and check in sensitive and row["status"] == MISSED:
            test = _volume(lib, deal, check, period)
            if test and test["over"] is None:
                cannot.append(f"volume relief for {check}: give period.{test['kind']} and "
                              f"period.{test['kind']}_forecast (the Volume Forecast) to see whether it applies")
            elif test and test["beyond"]:
                entry = {"check": check, "event": "volume", "applied": False, "recomputed": None,
                         "why": _volume_words(test) + ": the relief covers only those Items; give "
                                f"{check}.relief = {{\"event\": \"volume\", \"recomputed\": the figure without them}} "
                                "(or \"inseparable\": true), and until then the miss stands"}
        if entry is not None and (row["status"] == MISSED or claim or entry["event"] == "exercise"):
            out[check] = entry
    return out


def _volume_words(test: dict[str, Any]) -> str:
    return (f"{test['volume']:,g} {test['kind'].capitalize()} submitted against a Volume Forecast of "
            f"{test['forecast']:,g}: {test['over']:.1f} percent over, beyond the tolerance of {test['tolerance']:g} "
            f"percent, so the {test['excess']:,.0f} {test['kind'].capitalize()} above the forecast plus the tolerance "
            "are a Relief Event")


def _claimed(lib: Library, deal: Deal, row: dict[str, Any], claim: dict[str, Any], sensitive: set[str],
             period: dict[str, Any], has_relief: bool) -> dict[str, Any]:
    check, event = row["check"], claim["event"]
    entry: dict[str, Any] = {"check": check, "event": event, "applied": False, "recomputed": claim.get("recomputed")}
    words = f"{RELIEF_EVENTS[event]} claimed" + (f" ({claim['note']})" if claim.get("note") else "")
    if not has_relief:
        entry["why"] = f"{words}; the deal has no relief clause, so nothing is relieved"
    elif event == "exercise":
        entry["why"] = (f"{words} in a figures file: an Exercise Event is shown by the Exercise Journal (check the "
                        "journal itself), never claimed, so nothing is relieved")
    elif event == "volume" and check not in sensitive:
        entry["why"] = (f"{words}: volumes above the Volume Forecast relieve only "
                        f"{', '.join(sorted(sensitive))}, not {check}")
    elif event == "volume" and not ((test := _volume(lib, deal, check, period)) and test.get("beyond")):
        entry["why"] = (f"{words}, but " + ("the period does not give the volumes and forecast it turns on" if not test
                                            or test["over"] is None else
                                            f"{test['volume']:,g} {test['kind'].capitalize()} against a Volume "
                                            f"Forecast of {test['forecast']:,g} is {test['over']:.1f} percent over, "
                                            f"within the tolerance of {test['tolerance']:g} percent")
                        + ": the miss stands")
    elif event != "volume" and not claim.get("agreed"):
        entry["why"] = (f"{words}; a claimed relief applies once the Partner accepts it or the Expert decides it, and "
                        "until then the miss stands")
    elif claim.get("recomputed") is None and not claim.get("inseparable"):
        entry["why"] = (f"{words}" + (" and agreed" if event != "volume" else "") + ", but relief leaves out only the "
                        "Items the event affected: give relief.recomputed (the figure without them), or relief."
                        "inseparable = true where they cannot be told apart; until then the miss stands")
    else:
        entry["applied"] = True
        who = " by " + claim["accepted_by"] if claim.get("accepted_by") else ""
        when = " on " + claim["accepted_on"] if claim.get("accepted_on") else ""
        entry["why"] = (words + (f" and accepted{who}{when}" if event != "volume" else "")
                        + (f"; judged on the figure recomputed without the affected Items, {claim['recomputed']:g}"
                           if claim.get("recomputed") is not None else
                           "; the affected Items cannot be separated, so the Service Level is not judged this period")
                        + ("" if event == "volume" or who else " (who accepted it, and when, is not recorded)"))
    return entry


def _history(row: dict[str, Any], months: list[float], month: str | None, start: dt.date | None,
             this_missed: bool, span: int) -> tuple[int, int, list[str]]:
    """Misses counted towards a repeat Critical Failure in the last ``span`` Measurement Periods,
    this one last (its miss as relief leaves it): periods that end before the Credit Start Date
    count towards none. Returns the misses, the periods looked at and the months left out."""
    window = months[-span:]
    misses, looked, skipped = 0, 0, []
    for back, value in enumerate(reversed(window)):
        name = _months_back(month, back) if month else None
        if start is not None and name is not None and _month_end(name) < start:
            skipped.append(name)
            continue
        looked += 1
        misses += this_missed if back == 0 else _misses(row, float(value))
    return misses, looked, sorted(skipped)


def _critical(deal: Deal, rows: list[dict[str, Any]], figures: dict[str, Any], judged: dict[str, dict[str, Any]],
              period: dict[str, Any], early: bool, start: dt.date | None, conditional: str | None,
              cannot: list[str]) -> dict[str, Any]:
    """The period's Critical Failures, at most one per Service Level: (a) a figure beyond its
    Critical Level; (b) the same Service Level missed repeat_miss_count times in the last
    repeat_miss_months Measurement Periods (from the figure's ``months``, this period's last; a
    period that ends before the Credit Start Date counts towards none); (c) the Day-60 score below
    its floor at this exercise and the one before. Then whether the termination right arises:
    termination_failures or more in termination_months, counting ``period.critical_failures_before``.

    Worked example: repeat 3 in 6; period 2026-11, months [96, 94, 96, 94.5, 96, 94.2] are June to
    November 2026 against a floor of 95, missed in July, September and November. The Credit Start
    Date is 1 October 2026, so June to September count towards none: one miss (November) in the
    periods that count, no Critical Failure by repetition."""
    p = deal.parameters
    found: list[dict[str, Any]] = []
    missing_history = []
    month = period.get("month")
    for row in rows:
        check, level = row["check"], deal.service_levels.get(row["check"], {})
        if row["comparator"] not in ("floor", "ceiling") or row["threshold"] is None:
            continue
        verdict = judged[check]
        fig = figures.get(check) or {}
        months = fig.get("months") if isinstance(fig, dict) else None
        if check == "day60-score":
            if verdict["missed"] and months and len(months) >= 2 and _misses(row, float(months[-2])):
                found.append({"check": check, "kind": "Day-60 score below its floor twice running",
                              "detail": f"{months[-2]!r} at the exercise before and {row['value']!r} at this one"})
            elif verdict["missed"] and not (months and len(months) >= 2):
                cannot.append("day60-score: below its floor; give the earlier exercise's score (months: [earlier, "
                              "this]) to see whether it was below the floor twice running")
            continue
        if not verdict["missed"]:
            continue
        limbs = []
        if "critical" in level:
            beyond = _beyond(row, level["critical"], verdict["value"])
            if beyond:
                word = "below" if row["comparator"] == "floor" else "above"
                limbs.append(("beyond its Critical Level",
                              f"{verdict['value']!r} is {word} the Critical Level of {level['critical']:g}"))
            elif beyond is None:
                cannot.append(f"{check}: not met with no figure ({row['reason']}), so comply cannot tell whether it "
                              "is beyond its Critical Level")
        if not months:
            missing_history.append(check)
        elif month is None and start is not None:
            cannot.append(f"repeated misses of {check}: give period.month, so the months before the Credit Start Date "
                          "can be left out")
        else:
            misses, looked, skipped = _history(row, [float(m) for m in months], month, start, True,
                                               int(p["repeat_miss_months"]))
            if misses >= int(p["repeat_miss_count"]):
                limbs.append(("missed repeatedly",
                              f"missed in {misses} of the last {looked} Measurement Periods that count, where "
                              f"{int(p['repeat_miss_count'])} make a Critical Failure"
                              + (f" ({', '.join(skipped)} end before the Credit Start Date and count towards none)"
                                 if skipped else "")))
        if limbs:  # one Service Level, one Critical Failure in a Measurement Period, whichever limbs it meets
            found.append({"check": check, "kind": "; ".join(k for k, _ in limbs),
                          "detail": "; ".join(d for _, d in limbs)})
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
    if conditional and termination["arises"]:
        termination.update(arises=None, why=termination["why"] + f", but only if {conditional}")
    return {"found": found, "counted": len(counted), "conditional": conditional if counted else None,
            "note": "before the Credit Start Date: none counts, though a figure beyond its Critical Level still "
                    "calls for a Rectification Plan" if early and found else None,
            "termination": termination}


def _credits(lib: Library, deal: Deal, rows: list[dict[str, Any]], by_check: dict[str, dict[str, Any]],
             figures: dict[str, Any], judged: dict[str, dict[str, Any]], period: dict[str, Any], early: bool,
             conditional: str | None, out: dict[str, Any], cannot: list[str], currency: str) -> dict[str, Any]:
    """Each weighted Service Level's credit as a percent of the At-Risk Amount, the Deemed Incident
    Credits (this month's; those of incidents that occurred in another month are listed apart, for
    that month's At-Risk Amount), the cap, and (where the month's Monthly Charges are given) the
    amounts."""
    p = deal.parameters
    missed, critical = float(p["credit_missed_share_percent"]), float(p["credit_critical_share_percent"])
    at_risk = float(p["at_risk_percent"])
    charges = period.get("charges")
    month = period.get("month")
    lines = []
    beyond_cf = {f["check"] for f in (out.get("critical_failures") or {}).get("found", [])
                 if "beyond its Critical Level" in f["kind"]}
    relief = {r["check"]: r for r in out["relief"]}
    for check, level in deal.service_levels.items():
        if "credit_weight" not in level or check not in by_check:
            continue
        row, weight, verdict = by_check[check], float(level["credit_weight"]), judged[check]
        line = {"check": check, "status": row["status"], "weight_percent": weight, "band": None,
                "share_percent": 0.0, "percent_of_at_risk": 0.0, "note": None}
        fig = figures.get(check) or {}
        if row["status"] != MISSED:
            line["note"] = "not judged: " + (row["reason"] or "no figure") if row["status"] == "not run" else None
        elif verdict["relieved"] and not verdict["missed"]:
            line["note"] = f"relieved: {relief[check]['why']}"
        elif early:
            line["note"] = "before the Credit Start Date: no credit accrues"
        else:
            beyond = _beyond(row, level["critical"], verdict["value"]) if "critical" in level else False
            band = "beyond the Critical Level" if beyond or check in beyond_cf else "missed"
            share = critical if band != "missed" else missed
            line.update(band=band, share_percent=share, percent_of_at_risk=weight * share / 100)
            if verdict["relieved"]:
                line["note"] = f"relief applied, still missed: {relief[check]['why']}"
            elif beyond is None:
                line["note"] = "no figure to place against the Critical Level: credited at the missed share"
            if isinstance(fig, dict) and fig.get("disputed"):
                line["note"] = "a Provisional Figure: the figure is challenged, and the credit follows it until it " \
                               "is agreed or decided"
        lines.append(line)
    each = float(p["deemed_credit_percent"])
    deemed, elsewhere = [], []
    for row in rows:
        fig = figures.get(row["check"]) or {}
        if not isinstance(fig, dict):
            continue
        count, by_month = fig.get("deemed"), fig.get("deemed_months")
        if by_month and month:  # from a journal: each incident to the month its onset occurred in
            here = int(by_month.get(month, 0))
            for other, n in sorted(by_month.items()):
                if other != month:
                    elsewhere.append({"check": row["check"], "count": int(n), "month": other,
                                      "percent_of_that_months_at_risk": int(n) * each})
            count = here if here else None
        if count:
            deemed.append({"check": row["check"], "count": int(count), "each_percent": each,
                           "percent_of_at_risk": 0.0 if early else int(count) * each,
                           "note": "before the Credit Start Date" if early else None})
        if fig.get("deemed_exercise"):
            deemed.append({"check": row["check"], "count": int(fig["deemed_exercise"]), "each_percent": each,
                           "percent_of_at_risk": 0.0, "note": "Exercise Events: they attract no Deemed Incident "
                                                              "Credit"})
    for e in elsewhere:
        cannot.append(f"{e['check']}: {e['count']} Deemed Severity 2 Incident(s) occurred in "
                      + (f"{e['month']}" if e["month"] != "unknown" else "a month the journal does not give")
                      + f": {e['percent_of_that_months_at_risk']:g} percent of that month's At-Risk Amount, not this "
                        "period's (give that month's charges to put it in money)")
    flagged = [k.figure for c in deal.include for k in lib.clauses[c].checks if k.deemed]
    silent = [c for c in flagged if c in by_check and not isinstance((figures.get(c) or {}).get("deemed"), int)]
    if silent:
        cannot.append(f"Deemed Severity 2 Incidents under {', '.join(silent)}: give each figure's deemed count "
                      "(comply counts them only from a journal's drifts notified late or never)")
    raw = sum(x["percent_of_at_risk"] for x in lines) + sum(x["percent_of_at_risk"] for x in deemed)
    total = min(raw, 100.0)
    result = {"at_risk_percent": at_risk, "lines": lines, "deemed": deemed, "deemed_elsewhere": elsewhere,
              "uncapped_percent_of_at_risk": raw, "percent_of_at_risk": total, "capped": raw > 100.0,
              "percent_of_charges": total * at_risk / 100, "charges": charges, "at_risk_amount": None,
              "amount": None, "conditional": conditional if total else None}
    if charges is None:
        cannot.append("the credits in money: give the month's Monthly Charges (--charges or period.charges); they "
                      f"come to {total:g} percent of the At-Risk Amount, {total * at_risk / 100:g} percent of the "
                      "Monthly Charges")
    else:
        result.update(at_risk_amount=charges * at_risk / 100, amount=charges * at_risk / 100 * total / 100,
                      shown={"at_risk_amount": money(currency, charges * at_risk / 100),
                             "amount": money(currency, charges * at_risk / 100 * total / 100)})
    return result

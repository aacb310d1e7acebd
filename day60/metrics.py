"""Charter figures from an exercise journal: drift lead time (3.18), time to restore (3.19),
rollback time (3.20) and report completeness (3.21).

Every figure is kept unrounded and travels with its count and exclusions. A figure with
nothing behind it is ``None`` with a ``reason``; it is never zero and never estimated.
Percentiles use the nearest-rank method; a median of an even count is the midpoint of the two
middle values (``stats.median``).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from day60.clock import BusinessCalendar, to_utc_us
from day60.journal import Journal, effective
from day60.kinds import ENDING_COLUMNS, FIRST_KINDS  # noqa: F401 (ENDING_COLUMNS: named here too)
from day60.resources import report_elements
from day60.stats import MEDIAN_RULE
from day60.stats import median as middle

US_PER_HOUR = 3_600_000_000
US_PER_MIN = 60_000_000
SEVERITIES = (1, 2, 3, 4)
TABLES = ("drift", "incidents", "rollbacks", "report_elements")  # the per-item tables, one csv each


@dataclass
class Figures:
    """The summary (JSON-ready, unrounded) and the per-item tables behind it."""

    summary: dict[str, Any]
    tables: dict[str, pd.DataFrame]


def describe(values: Any, reason: str, median: bool = False) -> dict[str, Any]:
    """count, sum, mean, max (and median) of a sample; nulls with the reason when it is empty."""
    arr = np.asarray(values, dtype=float)
    arr = arr[~np.isnan(arr)]
    out: dict[str, Any] = {"count": int(arr.size)}
    keys = ["sum", "mean", "max"] + (["median"] if median else [])
    if arr.size == 0:
        return {**out, **dict.fromkeys(keys), "reason": reason}
    out.update(sum=float(arr.sum()), mean=float(arr.mean()), max=float(arr.max()))
    if median:
        out["median"] = middle(arr)
    return out


def describe_population(values: Any, population: int, reason: str, median: bool = False) -> dict[str, Any]:
    """``describe`` over the observations that have a value, beside the population they come from.

    Observations without a value (a drift never detected or notified within the window) are
    counted as ``not_detected``; while there is one, the worst case is not a number, so ``max``
    is null and ``max_reason`` says why (charter 3.18.5); ``max_of_detected`` keeps the largest
    measured value.
    """
    out = describe(values, reason, median)
    missing = population - out["count"]
    out.update(population=population, not_detected=missing, max_of_detected=out["max"], max_reason=None)
    if missing:
        out.update(max=None, max_reason=f"not detected within the window ({missing} of {population})")
    return out


def compute(journal: Journal, report_elements: list[str] | None = None,
            unknown: dict[str, str] | None = None, calendar: BusinessCalendar | None = None) -> Figures:
    """All four figure groups from a journal (corrections and reveals applied), each clipped to
    the exercise window: what began outside it is counted apart, what came after it never counts.

    ``report_elements``: elements a deal adds to the monthly report (charter 3.21.4), which join
    every period's denominator beside those the journal's header names. ``unknown``: drift and
    incident ids whose deciding record was not seen (a self-assessment's "don't know": a notice
    sent at a time nobody recorded, an incident closed at an unknown time), each with what is
    missing: such a drift or incident reads "not evidenced", never "not detected" or "open".
    ``calendar``: business time counted on this calendar instead of the journal's (``comply`` judges
    a deal's business-hour clauses on the deal's own calendar)."""
    cal = calendar or journal.calendar()
    lines, claims = _claims(journal.events)  # lines: what the figures read; claims: the measured party's, judged
    # every line but a correction that is a claim not accepted (it moves nothing), its effect applied
    base = [e for e in journal.events if e["kind"] != "correction" or claims.get(e["seq"]) in (None, "accepted")]
    everything = effective(base, skip="incident.")
    events = [e for e in everything if claims.get(e.seq) in (None, "accepted")]
    window = journal.header["window"]
    w0 = to_utc_us(dt.datetime.fromisoformat(window["start"]))
    w1 = to_utc_us(dt.datetime.fromisoformat(window["end"]))
    closed = any(e.kind == "exercise.close" for e in events)
    disputes = _disputes(journal.events, journal.header)
    upheld = _upheld(disputes)
    drift, drift_table = _drift(events, cal, w0, w1, closed, upheld["drift"], unknown or {},
                                [e for e in everything if e.seq in claims], claims)
    held = journal.incidents if journal.incidents is not None else IncidentFrame(lines)
    incidents, incident_table = _incidents(held, cal, w0, w1, upheld["incident"], unknown or {})
    rollbacks, rollback_table = _rollbacks(events, w0, w1, upheld["rollback"])
    _remedies(disputes, {"drift": drift_table, "incident": incident_table, "rollback": rollback_table})
    added = list(dict.fromkeys([*journal.header.get("report_elements", []), *(report_elements or [])]))
    report, report_table = _report(events, cal, added, {"incidents": incident_table, "drift": drift_table,
                                                       "rollbacks": rollback_table}, w0, w1, closed,
                                   audited=journal.header.get("records", "auditor-held") != "supplier-reported")
    summary = {
        "journal_sha256": journal.sha256,
        "journal_head": journal.head,
        "records": journal.header.get("records", "auditor-held"),
        "window": {"start": window["start"], "end": window["end"], "hours": (w1 - w0) / US_PER_HOUR,
                   "business_hours": float(cal.business_us_many(np.array([w0]), np.array([w1]))[0]) / US_PER_HOUR,
                   "closed": closed},
        "drift": drift,
        "incidents": incidents,
        "rollbacks": rollbacks,
        "report": report,
        "injections": {key: [{"id": e.id, "reason": e.data["reason"], "seq": e.seq} for e in events
                             if e.kind == kind]
                       for key, kind in (("stopped", "injection.stopped"), ("not_run", "injection.not-run"))},
        "corrections": _corrections(base, journal.incidents.targets if journal.incidents else {}),
        "claims": _claims_summary(journal.events, claims),
        "disputes": disputes,
        "holidays": _holiday_source(journal.header["calendar"]),
        "notices": [{"to": e["data"]["to"], "at": e["at"], "sha256": e["data"]["sha256"], "seq": e["seq"]}
                    for e in journal.events if e["kind"] == "notice.sent"],
    }
    return Figures(summary, dict(zip(TABLES, (drift_table, incident_table, rollback_table, report_table),
                                     strict=True)))


# The columns of ``compute``'s incident table that a reconciliation with the supplier's own
# durations reads (``imports.reconcile``), in the order ``restore_clocks`` gives them.
CLOCK_COLUMNS = ("id", "status", "start", "restored", "restore_hours_at_least", "restore_business_hours_at_least",
                 "waiting_on_partner_hours", "change_window_hours")


def restore_clocks(journal: Journal) -> pd.DataFrame:
    """``compute(journal).tables["incidents"]`` cut to CLOCK_COLUMNS: the same
    rows in the same order, the same values, worked by the same code, but without building the
    table's other columns, the incident summary or the other figure groups. An import reconciles
    a year of tickets with this: the whole table is some 400 MiB for a million incidents."""
    cal = journal.calendar()
    lines, _ = _claims(journal.events)
    window = journal.header["window"]
    w0 = to_utc_us(dt.datetime.fromisoformat(window["start"]))
    w1 = to_utc_us(dt.datetime.fromisoformat(window["end"]))
    upheld = _upheld(_disputes(journal.events, journal.header))
    held = journal.incidents if journal.incidents is not None else IncidentFrame(lines)
    return _incidents(held, cal, w0, w1, upheld["incident"], {}, whole=False)[1]


def _claims(events: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], dict[int, str]]:
    """The lines the figures read (every line but a claim of the measured party not accepted), and
    each claim's seq with its standing: "accepted", "pending" or "rejected" (roles/permissions-v1.yaml)."""
    from day60 import permissions

    lines = permissions.counted(events)
    if lines is events:
        return events, {}
    judged = permissions.judgements(events)
    claims = {e["seq"]: status for e in events if (status := permissions.claim_status(e, judged)) is not None}
    return lines, claims


def _claims_summary(events: list[dict[str, Any]], claims: dict[int, str]) -> dict[str, Any]:
    """The measured party's claims by standing, each listed (a pending one moves no figure yet)."""
    by_seq = {e["seq"]: e for e in events if e["seq"] in claims}
    judged = {e["data"]["target"]: e for e in events if e["kind"] in ("accept", "reject")}
    out: dict[str, Any] = {"accepted": 0, "pending": 0, "rejected": 0, "listed": []}
    for seq, status in claims.items():
        e = by_seq[seq]
        out[status] += 1
        verdict = judged.get(seq)
        out["listed"].append({"seq": seq, "kind": e["kind"], "id": e["id"], "at": e["at"], "by": e["by"],
                              "status": status, "judged_by": verdict["by"] if verdict else None,
                              "judged_seq": verdict["seq"] if verdict else None,
                              "reason": verdict["data"]["reason"] if verdict else None})
    return out


def _holiday_source(calendar: dict[str, Any]) -> dict[str, Any]:
    """Where the public holidays behind every business-hour figure came from."""
    cfg = calendar.get("holidays")
    if not cfg:
        return {"source": "none: the calendar names no public holidays"}
    resolved = cfg.get("resolved")
    if resolved:
        return {"source": "the journal's header", "from": resolved["from"], "to": resolved["to"],
                "dates": len(resolved["dates"]), "resolved_with": resolved["package"]}
    from importlib import metadata

    return {"source": f"the holidays package installed now ({metadata.version('holidays')}); this journal predates "
                      "holiday dates fixed in its header"}


def _disputes(events: list[dict[str, Any]], header: dict[str, Any]) -> list[dict[str, Any]]:
    """Every dispute and its outcome (8.4.1: nothing leaves the log); one raised by the runner or a
    second auditor, or filed under the runner's own organisation, is marked a self-dispute (8.4.2)."""
    from day60.permissions import RUNNER, organisation, role_of, table

    ours = organisation(RUNNER, header).casefold()  # the runner's organisation, or the words that stand for it
    out: dict[int, dict[str, Any]] = {}
    for e in events:
        if e["kind"] == "dispute":
            d = e["data"]
            own = role_of(e["by"]) in (RUNNER, "auditor") or d["organisation"].casefold() == ours
            role = table().label(role_of(e["by"]) or RUNNER)  # printed beside the name: a name alone proves nothing
            out[e["seq"]] = {"seq": e["seq"], "line": d["line"], "reason": d["reason"], "raised_by": d["raised_by"],
                             "role": role, "organisation": d["organisation"], "raised_at": e["at"], "self_dispute": own,
                             "outcome": None, "outcome_reason": None, "exclude": [], "corrections_since": []}
        elif e["kind"] == "resolve" and e["data"]["target"] in out:
            out[e["data"]["target"]].update(outcome=e["data"]["outcome"], outcome_reason=e["data"]["reason"],
                                            resolved_seq=e["seq"], exclude=list(e["data"].get("exclude") or []))
        elif e["kind"] == "correction":  # a corrected instant logged while disputes stand is listed with them
            for d in out.values():
                d["corrections_since"].append(e["seq"])
    return list(out.values())


def line_sections() -> dict[str, str]:
    """The section (drift, incident, rollback, report) of every line of the published rubric: the
    lines a dispute can name ('day60 dispute' checks it)."""
    from day60.resources import load_yaml

    return {ln["id"]: ln["section"] for ln in load_yaml("rubric", "day60-v1.yaml")["lines"]}


def _upheld(disputes: list[dict[str, Any]]) -> dict[str, dict[str, str]]:
    """Per section, the ids upheld disputes exclude, each with its reason. An exclusion applies to
    the disputed line's own section only: a dispute of the restore line never takes a rollback (or a
    drift that shares an incident's id) out of its figures."""
    sections = line_sections()
    out: dict[str, dict[str, str]] = {"drift": {}, "incident": {}, "rollback": {}}
    for d in disputes:
        if d["outcome"] == "upheld" and sections.get(d["line"]) in out:
            for x in d["exclude"]:
                out[sections[d["line"]]].setdefault(
                    x, f"excluded by the upheld dispute seq {d['seq']} ({d['line']}): {d['outcome_reason']}")
    return out


def _remedies(disputes: list[dict[str, Any]], tables: dict[str, pd.DataFrame]) -> None:
    """Which of each upheld dispute's exclusions took effect (``exclude_applied``) and which did
    not, with why (``exclude_not_applied``): none is dropped unsaid."""
    sections = line_sections()
    for d in disputes:
        section = sections.get(d["line"])
        table = tables.get(section)
        status = dict(zip(table["id"], table["status"], strict=True)) if table is not None else {}
        d["exclude_applied"] = [x for x in d["exclude"] if status.get(x) == "excluded"]
        d["exclude_not_applied"] = [
            {"id": x, "reason": f"no {section} of the journal has this id: an exclusion applies only to the figures "
                                f"of the disputed line's section ({section or 'unknown'})" if x not in status
             else f"it is {status[x]}" + (": the exclusion takes effect when the onset is revealed"
                                          if status[x] == "sealed" else "")}
            for x in d["exclude"] if status.get(x) != "excluded"]


def _corrections(events: list[dict[str, Any]], elsewhere: dict[int, dict[str, Any]]) -> list[dict[str, Any]]:
    """Every correction, incidents' included (``elsewhere``: the events named by a correction that
    ``events`` does not hold), with the instant it replaced."""
    by_seq = {**elsewhere, **{e["seq"]: e for e in events}}
    now: dict[int, str] = {}
    out = []
    for e in events:
        if e["kind"] != "correction":
            continue
        target = by_seq[e["data"]["target"]]
        was = now.get(target["seq"], target["at"])
        now[target["seq"]] = e["data"]["at"]
        out.append({"seq": e["seq"], "corrects": target["seq"], "kind": target["kind"], "id": target["id"],
                    "was": was, "now": e["data"]["at"], "reason": e["data"]["reason"]})
    return out


# ----- drift (3.18) -------------------------------------------------------------------------

DRIFT_DURATIONS = ("detection_hours", "detection_business_hours", "notice_hours", "notice_business_hours")
NOT_DETECTED = "not detected within the window"
NOT_DISCLOSED = "not evidenced: no detection time disclosed"
NOT_EVIDENCED = "not evidenced"
# An imported ticket its supplier's records show closed, with no time for the closure (3.19.4).
CLOSED_UNTIMED = ("the supplier's records show the ticket closed but hold no time for it, so when it ended, and "
                  "whether a monitoring check confirmed a restore, cannot be told (3.19.4)")
DRIFT_BUCKETS = ("notified", NOT_DETECTED, "sealed", "open", "outside the window", "stopped", "announced", "told",
                 "excluded", "no onset", NOT_EVIDENCED)


def _same_class(a: str | None, b: str | None) -> bool:
    return " ".join((a or "").casefold().split()) == " ".join((b or "").casefold().split())


def _drift(events, cal: BusinessCalendar, w0: int, w1: int, closed: bool,
           upheld: dict[str, str], unknown: dict[str, str] | None = None, claim_events: list | None = None,
           claims: dict[int, str] | None = None) -> tuple[dict, pd.DataFrame]:
    """One row per drift, in exactly one bucket (DRIFT_BUCKETS).

    ``claim_events``: the measured party's own claims of a detection or a notice, whatever their
    standing (``claims``: seq -> accepted, pending or rejected), judged by ``_judge_claims``: a
    wrong, early, repeated or rejected claim is a false alert (3.18.4), an early or wrong-class
    one leaves none of that drift's claims of its kind counting, and only the first good claim,
    once accepted, can count.

    Scored ("notified" and "not detected within the window") are drifts whose onset lies in the
    window. A detection or notice counts only between the onset and the window's end; a notice
    counts only if it names the class the injection shifted (3.18.7); either one logged before
    a sealed onset's revealed instant is set aside, not counted.

    Exclusions (3.18.4) are judged by time: a drift is "announced" only if the partner announced
    it before its onset (an announcement with no onset, a scheduled change, is still counted
    there), and "told" only if the supplier was told before its counted notice (or, with none,
    before the window closed). A telling after the notice (a debrief), or an announcement after
    the onset, leaves the figure standing and is named in the row. A detection or notice for an
    id with no onset is listed as "no onset", never dropped.
    """
    by_id: dict[str, dict[str, Any]] = {}
    announced: dict[str, list[Any]] = {}
    told: dict[str, list[Any]] = {}
    stopped: dict[str, str] = {}
    false_alerts, false_outside = [], []
    claims = claims or {}
    for e in claim_events or []:
        if e.kind in ("drift.detected", "drift.notice"):
            slot = by_id.setdefault(e.id, {"seqs": [], "detected": [], "notice": []})
            slot["seqs"].append(e.seq)
            slot.setdefault("claims", []).append(e)
    for e in events:
        if e.seq in claims and e.kind != "injection.stopped":
            continue  # a claim counts only as _judge_claims finds it (a stop owner's stop, once accepted, as recorded)
        if e.kind == "drift.announced":
            announced.setdefault(e.id, []).append(e)
        elif e.kind == "drift.told":
            told.setdefault(e.id, []).append(e)
        elif e.kind == "injection.stopped":
            stopped[e.id] = e.data["reason"]
        elif e.kind == "drift.false-alert":
            (false_alerts if w0 <= to_utc_us(e.at) <= w1 else false_outside).append(e.seq)
        elif e.kind in ("drift.onset", "drift.detected", "drift.notice"):
            slot = by_id.setdefault(e.id, {"seqs": [], "detected": [], "notice": []})
            slot["seqs"].append(e.seq)
            if e.kind == "drift.onset":
                slot["onset"] = e
            else:
                slot[e.kind.split(".")[1]].append(e)
    for ident in announced:  # a scheduled change announced with no onset is still an exclusion
        by_id.setdefault(ident, {"seqs": [], "detected": [], "notice": []})
    false_claims: dict[str, list[int]] = {k: [] for k in FALSE_CLAIMS}
    false_claims_outside: list[int] = []
    rows = []
    window_hours = (w1 - w0) / US_PER_HOUR
    for ident, slot in by_id.items():
        onset = slot.get("onset")
        seqs = sorted(slot["seqs"] + [e.seq for e in announced.get(ident, []) + told.get(ident, [])])
        row: dict[str, Any] = {"id": ident, "status": None, "reason": None, "onset": None, "detected": None,
                               "notice": None, **dict.fromkeys(DRIFT_DURATIONS), "gap_hours": None,
                               "gap_business_hours": None, "detection_status": None,
                               "detection_hours_at_most": None, "detection_business_hours_at_most": None,
                               "out_of_order": None, "started_before_window": False, "seqs": seqs,
                               "source": onset.data.get("source", "exercise") if onset else None,
                               "held": bool(onset and (onset.revealed or onset.sealed)),
                               "injected_class": onset.data.get("affected_class") if onset else None, "set_aside": [],
                               "claims": []}
        rows.append(row)
        verdicts = _judge_claims(slot.get("claims", []), onset, ident in announced, claims)
        for c in slot.get("claims", []):
            verdict, why = verdicts[c.seq]
            row["claims"].append({"seq": c.seq, "kind": c.kind, "standing": claims[c.seq], "verdict": verdict,
                                  "why": why})
            if verdict in FALSE_CLAIMS:
                (false_claims[verdict] if w0 <= to_utc_us(c.at) <= w1 else false_claims_outside).append(c.seq)
            if verdict == "counts":
                slot[c.kind.split(".")[1]].append(c)
            else:
                row["set_aside"].append(f"the supplier's claim of a {_CLAIMED[c.kind]} (seq {c.seq}) {why}")
        if onset is None:
            if slot["detected"] or slot["notice"] or (slot.get("claims") and ident not in announced):
                row.update(status="no onset", reason="a detection or notice was logged with no onset in the journal: "
                                                     "it has no lead time and is listed, not scored"
                           + ("; the supplier's claims of it are false alerts (3.18.4)" if slot.get("claims") else ""))
            else:
                first = min(announced[ident], key=lambda e: to_utc_us(e.at))
                row.update(status="announced", reason=f"announced by the partner at {first.at.isoformat()} with no "
                                                      "onset recorded: a planned change, not a detection (3.18.4)")
            continue
        if onset.at is None:  # sealed even when a dispute excludes it: nobody has judged its lead time yet
            row.update(status="sealed", reason="the onset is sealed until the runner reveals it at the close")
            continue
        if ident in upheld:
            row.update(status="excluded", reason=upheld[ident])
            continue
        o = to_utc_us(onset.at)
        row["onset"] = onset.at.isoformat()
        early = [e for e in announced.get(ident, []) if to_utc_us(e.at) < o]
        for e in announced.get(ident, []):
            if e not in early:
                row["set_aside"].append(f"announced at {e.at.isoformat()} (seq {e.seq}), not before the onset: "
                                        "not in advance, so not excluded (3.18.4)")
        if early:
            row.update(status="announced", reason=f"the partner announced this drift at {early[0].at.isoformat()}, "
                                                  "before its onset (excluded, 3.18.4)")
            continue
        detected = _first_inside(slot["detected"], o, w1, row, None)
        notice = _first_inside(slot["notice"], o, w1, row, row["injected_class"])
        bound = to_utc_us(notice.at) if notice is not None else w1
        spoiled = [e for e in told.get(ident, []) if to_utc_us(e.at) < bound]
        for e in told.get(ident, []):
            if e not in spoiled:
                when = "at or after its notice" if notice is not None else "after the window closed"
                row["set_aside"].append(f"the supplier was told at {e.at.isoformat()} (seq {e.seq}), {when} (a "
                                        "debrief): the lead time stands (3.18.4)")
        if spoiled:
            row.update(status="told", reason=f"the supplier was told of this injection at "
                                             f"{spoiled[0].at.isoformat()}, before any notice (excluded, 3.18.4)")
            continue
        if ident in stopped:
            row.update(status="stopped", reason=f"stopped by its stop condition: {stopped[ident]}")
            continue
        # The window takes a drift by when it ended, as it takes an incident (3.19.2): one notified
        # in the window counts whole, one still un-notified at the close is judged, whenever its
        # onset; one notified before the window opened, or whose onset is after the close, is apart.
        if o > w1:
            row.update(status="outside the window", reason="the onset is after the exercise window closed")
            continue
        if o < w0 and notice is not None and to_utc_us(notice.at) < w0:
            row.update(status="outside the window", reason="its onset and its written notice both came before the "
                                                           "window opened")
            continue
        row["started_before_window"] = o < w0
        if notice is not None and detected is not None and to_utc_us(detected.at) > to_utc_us(notice.at):
            # A detection dated after the written notice is out of order: the notice names the class
            # and its evidence, so the drift was found by then. The detection is not disclosed.
            row["out_of_order"] = (f"the detection ({detected.at.isoformat()}, seq {detected.seq}) is dated after "
                                   f"the written notice ({notice.at.isoformat()}): a notice proves detection no "
                                   "later than itself; correct whichever instant is wrong")
            row["set_aside"].append(f"out of order: {row['out_of_order']}")
            detected = None
        if detected is not None:
            d = to_utc_us(detected.at)
            row.update(detected=detected.at.isoformat(), detection_hours=(d - o) / US_PER_HOUR,
                       detection_business_hours=_bh(cal, o, d))
        if notice is not None:
            n = to_utc_us(notice.at)
            row.update(status="notified", notice=notice.at.isoformat(), notice_hours=(n - o) / US_PER_HOUR,
                       notice_business_hours=_bh(cal, o, n))
            if detected is not None:
                d = to_utc_us(detected.at)
                row.update(gap_hours=(n - d) / US_PER_HOUR, gap_business_hours=_bh(cal, d, n))
            else:  # notified without saying when it was detected: the detection clock has no end (3.18.2),
                # but the notice proves the drift was found no later than itself (3.18.1)
                row.update(detection_status=NOT_DISCLOSED, detection_hours_at_most=row["notice_hours"],
                           detection_business_hours_at_most=row["notice_business_hours"])
        elif ident in (unknown or {}):  # a notice was sent, but when is not in the records seen
            row.update(status=NOT_EVIDENCED, reason=f"not evidenced: the records seen do not show {unknown[ident]}")
            if detected is None:  # it was found (a notice went out), at a time nobody recorded
                row["detection_status"] = NOT_DISCLOSED
        elif closed or slot["notice"]:
            row.update(status=NOT_DETECTED,
                       reason=f"no written notice naming the affected class by the close of the "
                              f"{window_hours:g}-hour window")
        else:
            row.update(status="open", reason="no written notice yet and the window has not closed")
        if row["status"] == NOT_DETECTED and detected is None:
            row["detection_status"] = NOT_DETECTED
        if row["set_aside"]:
            row["reason"] = "; ".join(filter(None, [row["reason"], *row["set_aside"]]))
    table = pd.DataFrame(rows, columns=["id", "status", "reason", "source", "held", "injected_class", "onset",
                                        "detected", "notice", *DRIFT_DURATIONS, "gap_hours", "gap_business_hours",
                                        "detection_status", "detection_hours_at_most",
                                        "detection_business_hours_at_most", "out_of_order", "started_before_window",
                                        "set_aside", "claims", "seqs"])
    scored = table[table["status"].isin(["notified", NOT_DETECTED, NOT_EVIDENCED])]
    notified = scored[scored["status"] == "notified"]
    population = len(scored)
    no_drift = "no drift observation with its onset in the window" if not population else None
    summary: dict[str, Any] = {}
    undisclosed = int((scored["detection_status"] == NOT_DISCLOSED).sum())
    blind = int((scored["status"] == NOT_EVIDENCED).sum())
    for d in DRIFT_DURATIONS:
        # Detection is summarised over every scored drift, exactly as notice is: one population.
        block = describe_population(scored[d].astype(float), population,
                                    no_drift or f"no drift in the window has a {d.split('_')[0]} time")
        if d.startswith("notice") and blind:  # notified at a time the records do not show: not "not detected"
            missing = block["not_detected"]
            block.update(not_detected=missing - blind, not_evidenced=blind)
            block["max_reason"] = "; ".join(filter(None, [
                f"{NOT_DETECTED} ({missing - blind} of {population})" if missing - blind else None,
                f"not evidenced: no notice time in the records ({blind} of {population})"]))
        if d.startswith("detection"):
            # A drift notified without its detection time was found, but when is not disclosed: it
            # is not evidenced, which is not the same as not detected (3.18.2, 3.18.5).
            missing = block["not_detected"]
            block.update(not_detected=missing - undisclosed, not_disclosed=undisclosed)
            if missing - undisclosed:
                block["max_reason"] = f"{NOT_DETECTED} ({missing - undisclosed} of {population})" + (
                    f"; {NOT_DISCLOSED} ({undisclosed} of {population})" if undisclosed else "")
            elif undisclosed:
                block["max_reason"] = f"{NOT_DISCLOSED} ({undisclosed} of {population})"
            # each undisclosed detection came no later than its notice: the most the journal allows
            bounds = scored[f"{d}_at_most"].dropna().astype(float)
            block["not_disclosed_at_most"] = float(bounds.max()) if len(bounds) else None
        summary[d] = block
    summary["gap_hours"] = describe(notified["gap_hours"].astype(float),
                                    no_drift or "no notified drift has a detection time")
    counts = table["status"].value_counts()
    return {
        "observations": records(table.drop(columns=["seqs"])),
        "population": population,
        "notified": len(notified),
        "not_detected": int(counts.get(NOT_DETECTED, 0)),
        "detection_not_disclosed": undisclosed,
        "sealed": int(counts.get("sealed", 0)),
        "open": int(counts.get("open", 0)),
        "outside_window": int(counts.get("outside the window", 0)),
        "stopped": int(counts.get("stopped", 0)),
        "no_onset": int(counts.get("no onset", 0)),
        "not_evidenced": int(counts.get(NOT_EVIDENCED, 0)),
        "out_of_order": int(table["out_of_order"].notna().sum()),
        "started_before_window": int(scored["started_before_window"].astype(bool).sum()),
        "rules": {"population": "every drift notified in the window, whenever its onset (its whole lead time), and "
                                "every drift not notified by the close; one notified before the window opened, or "
                                "whose onset is after the close, is counted apart (the window takes drifts as it "
                                "takes incidents, by when they ended)",
                  "detection": "a written notice proves detection no later than itself: an undisclosed detection, "
                               "or one dated after the notice, is at most the notice's lead time"},
        "summary": summary,
        "false_alerts": len(false_alerts) + sum(map(len, false_claims.values())),
        "false_alert_seqs": sorted(false_alerts + [s for seqs in false_claims.values() for s in seqs]),
        "false_alerts_outside_window": len(false_outside) + len(false_claims_outside),
        "false_alert_outside_seqs": sorted(false_outside + false_claims_outside),
        "false_alerts_recorded": len(false_alerts),
        "false_claims": {"count": sum(map(len, false_claims.values())), **{k.replace(" ", "_"): v
                                                                         for k, v in false_claims.items()},
                         "outside_window": false_claims_outside},
        "claims_awaiting_acceptance": sorted(c["seq"] for r in rows for c in r["claims"]
                                             if c["verdict"] == "awaiting acceptance"),
        "excluded": {"announced": int(counts.get("announced", 0)), "told": int(counts.get("told", 0)),
                     "by_dispute": int(counts.get("excluded", 0))},
        "exclusions_not_applied": [{"id": r["id"], "notes": [n for n in r["set_aside"]
                                                             if "announced at" in n or "was told at" in n]}
                                   for r in rows if any("announced at" in n or "was told at" in n
                                                        for n in r["set_aside"])],
        "window_hours": window_hours,
    }, table


INCIDENT_ROW = ("id", "severity", "status", "reason", "source", "start", "clock_basis", "out_of_order",
                "started_before_window", "restored", "first_restore", "reopens", "restore_hours",
                "restore_business_hours", "restore_hours_at_least", "restore_hours_at_most",
                "restore_business_hours_at_least", "restore_business_hours_at_most", "restore_evidence",
                "waiting_on_partner_hours", "change_window_hours", "open_waits", "open_wait_hours", "communicated",
                "first_communication_hours", "first_communication_hours_at_least")


def plain_table(table: pd.DataFrame) -> pd.DataFrame:
    """A table as it is written out (CSV, JSON rows): instants in ISO 8601 with their offset,
    severities and counts as whole numbers, a missing value empty."""
    out = table.copy()
    for col in out.columns:
        if pd.api.types.is_datetime64_any_dtype(out[col]):
            text = out[col].dt.strftime("%Y-%m-%dT%H:%M:%S.%f%z").str.replace(r"(\d\d)(\d\d)$", r"\1:\2",
                                                                              regex=True)
            out[col] = text.str.replace(".000000", "", regex=False).where(out[col].notna(), None)
    if "severity" in out:
        out["severity"] = out["severity"].astype("Int64")
    return out


def incident_rows(figures: Figures, flagged: bool = False) -> list[dict[str, Any]]:
    """One row per incident (id, severity, clock start and its basis, end, pauses, figure, bucket
    and reason), as ``metrics --format json`` prints them beside the per-drift rows. ``flagged``:
    only the incidents whose restore is known as a range or whose records are out of order, which
    the table names one by one (a row costs microseconds, and a year of tickets has a million)."""
    table = figures.tables["incidents"]
    if flagged:
        marks = [table[c].notna().to_numpy() for c in ("restore_evidence", "out_of_order") if c in table]
        table = table[np.logical_or.reduce(marks)] if marks else table.iloc[:0]
    return records(plain_table(table[[c for c in INCIDENT_ROW if c in table]]))


def records(table: pd.DataFrame) -> list[dict[str, Any]]:
    """Rows as plain dicts, a missing value as None (never NaN)."""
    return table.astype(object).where(table.notna(), None).to_dict("records")


# The ways a claim of the measured party is a false alert (3.18.4), as the figures name them.
FALSE_CLAIMS = ("no drift", "early", "wrong class", "repeated", "rejected")
_CLAIMED = {"drift.detected": "detection", "drift.notice": "notice"}


def _judge_claims(found: list, onset: Any, announced: bool, standing: dict[int, str]) -> dict[int, tuple[str, str]]:
    """Each claim of the measured party on one drift id: seq -> (verdict, why in words).

    Verdicts: "counts" (the first good claim of its kind, accepted), "awaiting acceptance" (the
    same, not yet accepted), one of FALSE_CLAIMS, "void" (a good claim of a kind the supplier also
    claimed early or naming another class: it guessed, so none of them counts), "sealed" (not
    judged until the onset is revealed) and "announced" (a planned change with no onset, not judged).
    Taken in the order of their instants (then seq), so a repeat is judged against the first."""
    out: dict[int, tuple[str, str]] = {}
    if onset is None:
        for c in found:
            out[c.seq] = ("announced", "is about a change the partner announced, with no onset: not judged") \
                if announced else ("no drift", "names no drift of this journal: a false alert (3.18.4)")
        return out
    if onset.at is None:
        for c in found:
            out[c.seq] = ("sealed", "is judged once its onset is revealed")
        return out
    o, injected = to_utc_us(onset.at), onset.data.get("affected_class")
    first: dict[str, int] = {}
    guessed: dict[str, int] = {}
    for c in sorted(found, key=lambda c: (to_utc_us(c.at), c.seq)):
        named = c.data.get("affected_class")
        if to_utc_us(c.at) < o:
            out[c.seq] = ("early", f"came before the onset ({onset.at.isoformat()}): a false alert (3.18.4)")
            guessed.setdefault(c.kind, c.seq)
        elif injected and named and not _same_class(named, injected):
            out[c.seq] = ("wrong class", f"names {named!r}, not the class the drift shifted: a false alert (3.18.4)")
            guessed.setdefault(c.kind, c.seq)
        elif standing.get(c.seq) == "rejected":
            out[c.seq] = ("rejected", "was rejected by an auditor: a false alert (3.18.4)")
        elif c.kind in first:
            out[c.seq] = ("repeated", f"repeats the claim of seq {first[c.kind]}: a false alert (3.18.4)")
        else:
            first[c.kind] = c.seq
            out[c.seq] = ("counts", "counts") if standing.get(c.seq) == "accepted" else \
                ("awaiting acceptance", "awaits an auditor's acceptance, and counts in no figure until then")
    for seq, (verdict, _) in list(out.items()):
        kind = next(c.kind for c in found if c.seq == seq)
        if verdict in ("counts", "awaiting acceptance") and kind in guessed:
            out[seq] = ("void", f"counts for nothing: the supplier also claimed this drift's {_CLAIMED[kind]} "
                                f"{'early' if out[guessed[kind]][0] == 'early' else 'in another class'} (seq "
                                f"{guessed[kind]}), so it guessed (3.18.4)")
    return out


def _first_inside(candidates: list, o: int, w1: int, row: dict[str, Any], injected_class: str | None) -> Any:
    """The earliest detection or notice between the onset and the window's end; the rest are noted."""
    kept = None
    for e in sorted(candidates, key=lambda e: to_utc_us(e.at)):
        t = to_utc_us(e.at)
        what = e.kind.split(".")[1]
        if t < o:
            row["set_aside"].append(f"a {what} logged before the revealed onset (seq {e.seq}) is not counted")
        elif t > w1:
            row["set_aside"].append(f"a {what} after the window closed (seq {e.seq}) is not counted (3.18.5)")
        elif what == "notice" and injected_class and not _same_class(e.data.get("affected_class"), injected_class):
            row["set_aside"].append(f"a notice naming another class ({e.data.get('affected_class')!r}, seq "
                                    f"{e.seq}) is not notice of this drift (3.18.7)")
        elif kept is None:
            kept = e
    return kept


def _bh(cal: BusinessCalendar, a: int, b: int) -> float:
    return float(cal.business_us_many(np.array([a], np.int64), np.array([b], np.int64))[0]) / US_PER_HOUR


# ----- incidents (3.19) ---------------------------------------------------------------------

_PAUSES = {"incident.wait-start": ("wait", 0), "incident.wait-end": ("wait", 1),
           "incident.change-window-start": ("change", 0), "incident.change-window-end": ("change", 1)}


def _incident_events(events: list[dict[str, Any]]) -> pd.DataFrame:
    """Incident events as a table (seq, kind, id, at in epoch microseconds, severity, source, the
    detection's clock-start marker and a closure's not-evidenced instant), with corrections applied.
    Built in bulk: an exercise from records may hold many thousands."""
    fixes = {e["data"]["target"]: e["data"]["at"] for e in events if e["kind"] == "correction"}
    # A closure whose time was not evidenced has one once a person corrects its instant (with a reason).
    rows = [(e["seq"], e["kind"], e["id"], fixes.get(e["seq"], e["at"]), e["data"].get("severity"),
             e["data"].get("source"), e["data"].get("clock_start"),
             None if e["seq"] in fixes else e["data"].get("instant"))
            for e in events if e["kind"].startswith("incident.")]
    ev = pd.DataFrame(rows, columns=["seq", "kind", "id", "at", "severity", "source", "clock_start", "instant"])
    stamps = pd.to_datetime(ev["at"], utc=True, format="ISO8601")
    ev["at"] = stamps.dt.as_unit("us").astype(np.int64) if len(ev) else pd.Series(dtype=np.int64)
    return ev


INCIDENT_BUCKETS = ("restored", "unconfirmed", "open", "unclassified", "not detected", "outside the window",
                    "withdrawn", "excluded", NOT_EVIDENCED)


def _severity(ev: pd.DataFrame) -> pd.Series:
    """Per incident: the latest incident.classified, else the supplier's detection, else the
    partner's notice where it states one."""
    def pick(kind: str, last: bool) -> pd.Series:
        mine = ev[(ev["kind"] == kind) & ev["severity"].notna()].sort_values("seq").groupby("id")["severity"]
        return mine.last() if last else mine.first()

    return pick("incident.classified", True).combine_first(pick("incident.detected", False)) \
        .combine_first(pick("incident.partner-notice", False))




class IncidentFrame:
    """Incident events held as dicts (``journal.read``), grouped in pandas: the reference the
    engine's SQL (``engine.Incidents``) is tested against. Both give ``grouped`` and ``pauses``."""

    def __init__(self, events: list[dict[str, Any]]) -> None:
        self.ev = ev = _incident_events(events)
        self.first = ev.groupby(["id", "kind"])["at"].min().unstack() if len(ev) else pd.DataFrame(index=pd.Index([]))
        self.ids = self.first.index.rename(None)  # sorted, as groupby sorts

    def grouped(self, until: int) -> pd.DataFrame:
        """One row per incident id (sorted): the first instant of each of FIRST_KINDS (epoch
        microseconds, NaN where none), the severity, the source, the first seq, and how the
        incident stood at ``until`` (ENDING_COLUMNS: only events at or before it count)."""
        ev, first = self.ev, self.first
        out = pd.DataFrame(index=self.ids)
        for kind in FIRST_KINDS:
            out[kind] = first[kind].astype(float) if kind in first else np.nan
        out["severity"] = _severity(ev).reindex(out.index).astype(float) if len(ev) else np.nan
        exercise = ev[(ev["kind"] == "incident.raised") | (ev["source"] == "exercise")]["id"].unique()
        out["source"] = np.where(out.index.isin(exercise), "exercise", "organic")
        out["first_seq"] = ev.groupby("id")["seq"].min().reindex(out.index)
        upto = ev[ev["at"] <= until].sort_values("seq")
        ro = upto[upto["kind"].isin(["incident.restored", "incident.reopened"])].groupby("id")[["kind", "seq"]].last()
        restores = upto[upto["kind"] == "incident.restored"].groupby("id")["at"].last()
        reopens = upto[upto["kind"] == "incident.reopened"].groupby("id").size()
        closings = upto[upto["kind"] == "incident.ticket-closed"].assign(untimed=lambda c: c["instant"].notna())
        closed = closings.groupby("id")[["at", "seq", "untimed"]].last()
        out["end_kind"] = ro["kind"].reindex(out.index).str.removeprefix("incident.")
        out["final_restore"] = restores.reindex(out.index).astype(float)
        out["reopens"] = reopens.reindex(out.index, fill_value=0).astype(np.int64)
        after = closed["seq"].reindex(out.index) > ro["seq"].reindex(out.index).fillna(-1)
        out["closed_at"] = closed["at"].reindex(out.index).astype(float).where(after)
        out["closed_untimed"] = (closed["untimed"].reindex(out.index, fill_value=False).astype(bool) & after)
        marked = ev[(ev["kind"] == "incident.detected") & ev["clock_start"].notna()]["id"].unique()
        out["stand_in"] = out.index.isin(marked)
        return out

    def pauses(self, rows: np.ndarray, start: np.ndarray, end: np.ndarray) -> dict[str, pd.DataFrame]:
        """Waits and change windows of the incidents at positions ``rows`` of ``grouped()``, clipped
        to their clocks (``start`` to ``end``) and merged per incident: "all", "wait" alone and
        "change" alone, "ended" (those with a recorded end only), each with columns id (the
        incident's place in ``rows``), s and e; and "open", unmerged, the pauses with no recorded
        end (id, type, s, e, each running to the restore)."""
        bounds = pd.DataFrame({"start": start, "restored": end}, index=self.ids[rows])
        p = _pause_intervals(self.ev, bounds)
        p["id"] = bounds.index.get_indexer(p["id"])
        return {"all": merge_pauses(p), "wait": merge_pauses(p[p["type"] == "wait"]),
                "change": merge_pauses(p[p["type"] == "change"]), "ended": merge_pauses(p[~p["open"]]),
                "open": p.loc[p["open"], ["id", "type", "s", "e"]].reset_index(drop=True)}


# clock in the window, or restored in it; "not evidenced": closed at a time the records seen do not show
JUDGED = ("restored", "unconfirmed", "open", "unclassified", NOT_EVIDENCED)


def _incidents(held: Any, cal: BusinessCalendar, w0: int, w1: int, upheld: dict[str, str] | None = None,
               unknown: dict[str, str] | None = None, whole: bool = True) -> tuple[dict, pd.DataFrame]:
    """One row per incident, in exactly one bucket (INCIDENT_BUCKETS), from ``held`` (an
    ``IncidentFrame``, or the engine's ``Incidents``: the same grouping done in SQL). With
    ``whole`` false, only the table's CLOCK_COLUMNS are built, and no summary (``restore_clocks``).

    The clock starts at the earlier of the supplier's detection and the partner's notice
    (3.19.3); raising the incident (the exercise creating the fault) does not start it. It ends
    at the last monitoring-confirmed restore standing at the window's end (3.19.4): a re-open
    after a restore runs the clock on to the next restore, the time between counting, and the
    re-opens are counted. The population of the restore figure is every incident restored in the
    window (3.19.2), its clock counted whole even where it started before the window opened
    (those are counted apart as ``started_before_window``). An incident whose clock started after
    the window, or that was restored (or its ticket closed) before the window opened and not
    re-opened in it, is outside the window; one raised but neither detected nor notified by the
    close is "not detected"; one not restored by the close is open, whenever its clock started.
    One whose ticket was resolved or closed in the window with no monitoring check confirming a
    restore is "unconfirmed": judged, never counted as restored. One whose ticket the records
    show closed at no time they hold (``instant: "not-evidenced"`` on the closure) is "not
    evidenced": judged, never open, never unconfirmed. One with no severity by the
    close is "unclassified": counted, never dropped. Withdrawn and excluded
    incidents enter no figure, first communication included.
    """
    first = held.grouped(w1)
    inc = pd.DataFrame(index=first.index)
    inc["severity"] = first["severity"]
    if whole:
        inc["source"] = first["source"].astype(str)  # the engine's is categorical: the same texts either way
    detected, notice = first["incident.detected"], first["incident.partner-notice"]
    recorded = first[["incident.detected", "incident.partner-notice"]].min(axis=1)
    communicated = first["incident.communicated"]
    communicated = communicated.where(communicated <= w1)  # after the close it does not count
    # A first communication dated before the recorded clock start is out of order: the supplier told
    # the partner of the incident then, so it knew of it, and its detection came no later. The clock
    # starts no later than that communication; how much earlier, nothing recorded says.
    early = (communicated < recorded).fillna(False).astype(bool)
    inc["start"] = recorded.where(~early, communicated)
    by_notice = notice.notna() & (detected.isna() | (notice < detected))
    stand_in = first["stand_in"].astype(bool)
    if whole:
        inc["clock_basis"] = _select([inc["start"].isna(), early, by_notice, stand_in],
                                     [None, "first communication (dated before the recorded start)", "partner notice",
                                      "ticket opened (stand-in)"], "detection")
    out_of_order = pd.Series(None, index=inc.index, dtype=object) if whole else None
    if whole and early.any():
        out_of_order[early] = [
            f"the first communication ({_iso(c)}) is dated before the recorded clock start ({_iso(r)}): the supplier "
            "knew of the incident when it communicated, so the clock started no later than the communication "
            "(3.19.3); correct whichever instant is wrong"
            for c, r in zip(communicated[early], recorded[early], strict=True)]
    # The clock's start is only an upper bound where it is a ticket's opening (detection comes no
    # later than the ticket it is recorded in, and the charter never starts the clock there, 3.19.3)
    # or where a communication dated before it shows it started earlier still.
    bounded_start = (stand_in | early).to_numpy()
    restored_now = first["end_kind"] == "restored"
    inc["restored"] = first["final_restore"].where(restored_now)
    if whole:
        inc["first_restore"] = first["incident.restored"]
        inc["reopens"] = first["reopens"].astype(np.int64)
        inc["communicated"] = communicated
    in_window = restored_now & (inc["restored"] >= w0)
    # Ended before the window opened (restored, or its ticket closed, and not re-opened by the
    # window's end): counted apart. One still standing unrestored through the window is judged
    # whenever its clock started, or keeping it open past the close would take it out of every figure.
    # Closed at a time its records do not hold (the closure's instant a stand-in): whether that was
    # before the window, in it or after it cannot be told, nor any restore: "not evidenced".
    untimed = first["closed_untimed"].astype(bool) & ~restored_now
    ended_before = (restored_now & (inc["restored"] < w0)) | (~restored_now & ~untimed & (first["closed_at"] < w0))
    upheld = upheld or {}
    by_dispute = inc.index.isin(list(upheld))
    # "Withdrawn as not reproducible" (3.19.5) after a monitoring check confirmed a restore (3.19.4)
    # contradicts the check, which shows there was a fault to restore: the withdrawal is set aside
    # and named, the incident judged, rather than a measured breach dropping out of every figure.
    withdrawn, first_restore = first["incident.withdrawn"], first["incident.restored"]
    late_withdrawal = (withdrawn.notna() & first_restore.notna() & (withdrawn >= first_restore)).to_numpy()
    conditions = [withdrawn.notna() & ~late_withdrawal, first["incident.excluded"].notna() | by_dispute,
                  inc["start"].isna(),
                  inc["start"] > w1, in_window, ended_before, untimed, first["closed_at"].notna() & ~restored_now,
                  inc["start"] < w0]
    buckets = ["withdrawn", "excluded", "not detected", "outside the window", "restored", "outside the window",
               NOT_EVIDENCED, "unconfirmed", "open"]
    inc["status"] = _select(conditions, buckets, "open")
    reasons = ["withdrawn: enters no figure (3.19.5)", "excluded under the contract: enters no figure (3.19.5)",
               "raised by the exercise but neither detected nor notified by the close",
               "its clock started after the window closed",
               None,
               "restored (or its ticket closed) before the window opened, and not re-opened in it",
               f"{NOT_EVIDENCED}: {CLOSED_UNTIMED}",
               "the ticket was closed, but no monitoring check confirmed a restore (3.19.4)",
               "its clock started before the window opened and it was not restored by the close"]
    if whole:
        inc["reason"] = _select(conditions, reasons, "not restored by the close")
    if whole and late_withdrawal.any():
        inc.loc[late_withdrawal, "reason"] = [
            "; ".join(filter(None, [why if isinstance(why, str) else None,  # an empty reason reads NaN
                                    f"its withdrawal as not reproducible ({_iso(w)}) came after a monitoring "
                                    f"check had confirmed its restore ({_iso(r)}), so it is set aside (3.19.4, "
                                    "3.19.5)"]))
            for why, w, r in zip(inc.loc[late_withdrawal, "reason"], withdrawn[late_withdrawal],
                                 first_restore[late_withdrawal], strict=True)]
    # the dispute's reason, where the dispute is what excluded it (not a withdrawal or the contract's exclusion)
    granted = by_dispute & (inc["status"] == "excluded").to_numpy() & first["incident.excluded"].isna().to_numpy()
    if whole and granted.any():
        inc.loc[granted, "reason"] = inc.index[granted].map(upheld)
    inc["restored_in_window"] = inc["status"] == "restored"
    if whole:
        inc["started_before_window"] = inc["restored_in_window"] & (inc["start"] < w0)
    inc.loc[inc["status"].isin(["restored", "open"]) & inc["severity"].isna(), "status"] = "unclassified"
    # Not restored in the journal because the records seen do not say when (a "don't know"): never "open".
    unknown = unknown or {}
    blind = inc["status"].isin(["open", "unclassified"]) & ~inc["restored_in_window"] & inc.index.isin(list(unknown))
    if blind.any():
        inc.loc[blind, "status"] = NOT_EVIDENCED
        if whole:
            inc.loc[blind, "reason"] = [f"not evidenced: the records seen do not show {unknown[x]}"
                                        for x in inc.index[blind]]
    if whole:
        inc["first_seq"] = first["first_seq"]
    else:  # what the restore columns below are worked from, and nothing else of the grouping
        del first, detected, notice, recorded, communicated, early, by_notice, withdrawn, first_restore, conditions

    done = np.flatnonzero(inc["restored_in_window"].to_numpy())  # positions, not labels: no lookups by id
    start = inc["start"].to_numpy()[done].astype(np.int64)
    end = inc["restored"].to_numpy()[done].astype(np.int64)
    columns = {col: np.full(len(inc), np.nan) for col in RESTORE_COLUMNS}
    open_waits = np.zeros(len(inc), dtype=np.int64)
    if len(done):
        merged = held.pauses(done, start, end)
        places = pd.RangeIndex(len(done))
        u_wall, u_bus = pause_totals(cal, merged["all"], places)
        e_wall, e_bus = pause_totals(cal, merged["ended"], places)  # the pauses whose end was recorded
        gross_bus = cal.business_us_many(start, end)
        unended = merged["open"]
        counts = unended.groupby("id").size().reindex(places, fill_value=0).to_numpy()
        # The figure is measured only where the journal fixes both ends of the clock and every pause:
        # otherwise it is a range, from every pause run to the restore to no unended pause at all, with
        # no upper end where the start is only an upper bound. An end nobody recorded is not evidence.
        measured = ~bounded_start[done] & (counts == 0)
        for unit, gross, least, most in (("hours", end - start, u_wall, e_wall),
                                         ("business_hours", gross_bus, u_bus, e_bus)):
            low, high = (gross - least) / US_PER_HOUR, (gross - most) / US_PER_HOUR
            columns[f"restore_{unit}"][done] = np.where(measured, low, np.nan)
            columns[f"restore_{unit}_at_least"][done] = low
            columns[f"restore_{unit}_at_most"][done] = np.where(bounded_start[done], np.nan, high)
        columns["waiting_on_partner_hours"][done] = pause_totals(cal, merged["wait"], places)[0] / US_PER_HOUR
        columns["change_window_hours"][done] = pause_totals(cal, merged["change"], places)[0] / US_PER_HOUR
        open_waits[done] = counts
        columns["open_wait_hours"][done] = pause_totals(cal, merge_pauses(unended), places)[0] / US_PER_HOUR
    if not whole:  # as the whole table is finished below, with only CLOCK_COLUMNS
        table = pd.DataFrame({"status": inc["status"], "start": inc["start"], "restored": inc["restored"],
                              **{col: columns[col] for col in CLOCK_COLUMNS[4:]}}, index=inc.index)
        del inc, columns
        table.insert(0, "id", table.index)
        table.index = pd.RangeIndex(len(table))
        for col in ("start", "restored"):
            table[col] = pd.to_datetime(table[col], unit="us", utc=True)
        return {}, table
    for col, values in columns.items():
        inc[col] = values
    inc["open_waits"] = open_waits
    inc["restore_evidence"] = _restore_evidence(inc, stand_in.to_numpy(), early.to_numpy())
    inc["out_of_order"] = out_of_order
    inc["detection_stand_in"] = stand_in.to_numpy()  # its detection instant is a ticket's opening
    judged = inc["status"].isin(JUDGED)
    waited = ((inc["communicated"] - inc["start"]) / US_PER_HOUR).where(judged)
    inc["first_communication_hours_at_least"] = waited
    inc["first_communication_hours"] = waited.where(~bounded_start)

    # each severity's rows with only the columns its block reads: a copy of every column, a severity
    # at a time, was a quarter of the table again for a year of tickets
    narrow = inc[list(BLOCK_COLUMNS)]
    by_sev = {str(s): _severity_block(narrow[inc["severity"] == s], f"no severity {s} incident was restored in the "
                                                                         "window") for s in SEVERITIES}
    counts = inc["status"].value_counts()
    # Every incident with no severity, whatever its bucket: restored or open ones are "unclassified",
    # but one closed unconfirmed, not evidenced, withdrawn... keeps its bucket and belongs here too,
    # so the five rows (1 to 4 and none) share out every count of the population between them.
    unclassified = narrow[inc["severity"].isna()]
    del narrow
    summary = {
        "by_severity": by_sev,
        "no_severity": {**_severity_block(unclassified, "no incident without a severity was restored in the window",
                                           restored_status="unclassified"),
                         "open": int(((unclassified["status"] == "unclassified")
                                      & ~unclassified["restored_in_window"]).sum()),
                         "note": "no severity by the close: scored at the strictest severity's target"},
        "population": len(inc),
        **{k.replace(" ", "_"): int(counts.get(k, 0)) for k in INCIDENT_BUCKETS},
        "started_before_window": int(inc["started_before_window"].sum()),
        "reopened": int((inc["reopens"] > 0).sum()),
        "clock_from_ticket_opening": int(((inc["clock_basis"] == "ticket opened (stand-in)") & judged).sum()),
        "out_of_order": int((inc["out_of_order"].notna() & judged).sum()),
        "restore_not_evidenced": int((inc["restore_evidence"].notna() & inc["restored_in_window"]).sum()),
        "rules": {"clock": "from the earlier of the supplier's detection and the partner's notice (3.19.3) to the "
                           "last monitoring-confirmed restore standing at the window's end (3.19.4)",
                  "population": "incidents restored in the window, whenever their clock started (3.19.2)",
                  "open_waits": "a wait or change window with no recorded end is not evidence of when it ended: "
                                "the restore is then the range from subtracting it up to the restore to not "
                                "subtracting it, and such pauses are counted beside the figure",
                  "evidence": "a restore is a figure only where the journal fixes its clock's start, its end and "
                              "every pause; otherwise it is a range (at least, at most), scored on what the journal "
                              "proves (the longest time it allows) and judged against a clause only where the "
                              "whole range falls on one side",
                  "out_of_order": "a first communication dated before the recorded clock start shows the clock "
                                  "started no later than the communication: the start moves there and the row is "
                                  "flagged, the figures being at least what it gives",
                  "reopens": "a re-opened incident's clock runs on to its last restore; the time between a restore "
                             "and the re-open counts",
                  "median": "the median of an even count is the midpoint of the two middle values (the charter "
                            "fixes nearest rank for percentiles only; its lower value would favour the supplier, its "
                            "upper the partner)"},
    }
    del first, unclassified
    table = inc  # the ids made a column in place: reset_index would copy every column
    table.insert(0, "id", table.index)
    table.index = pd.RangeIndex(len(table))
    for col in ("start", "restored", "first_restore", "communicated"):
        table[col] = pd.to_datetime(table[col], unit="us", utc=True)
    return summary, table


# what ``_severity_block`` reads of an incident's row
BLOCK_COLUMNS = ("status", "restored_in_window", "restore_evidence", "restore_hours", "restore_business_hours",
                 "first_communication_hours", "waiting_on_partner_hours", "change_window_hours", "open_waits",
                 "open_wait_hours", "started_before_window", "reopens", "clock_basis")


RESTORE_COLUMNS = ("restore_hours", "restore_business_hours", "restore_hours_at_least", "restore_hours_at_most",
                   "restore_business_hours_at_least", "restore_business_hours_at_most", "waiting_on_partner_hours",
                   "change_window_hours", "open_wait_hours")


def _iso(us: float) -> str:
    return dt.datetime.fromtimestamp(int(us) // 1_000_000, dt.UTC).replace(
        microsecond=int(us) % 1_000_000).isoformat()


def _restore_evidence(inc: pd.DataFrame, stand_in: np.ndarray, early: np.ndarray) -> list[str | None]:
    """Why an incident restored in the window has a range and not a figure, in words (None where it
    is measured)."""
    out: list[str | None] = []
    for done, ticket, before, waits in zip(inc["restored_in_window"].to_numpy(), stand_in, early,
                                           inc["open_waits"].to_numpy(), strict=True):
        why = []
        if done and ticket:
            why.append("its clock starts at the ticket's opening, standing in for a detection time the records lack: "
                       "the charter starts the clock at detection or notice, never at the ticket (3.19.3), and "
                       "detection comes no later than the ticket, so the restore is at least this long")
        if done and before:
            why.append("its first communication is dated before the recorded clock start, so the clock started no "
                       "later than the communication and perhaps earlier (out of order)")
        if done and waits:
            why.append(f"{waits} wait(s) or change window(s) with no recorded end: an end nobody recorded is not "
                       "evidence, so the restore lies between subtracting each up to the restore and not "
                       "subtracting it")
        out.append("; ".join(why) or None)
    return out


def _select(conditions: list[Any], choices: list[str | None], default: str) -> np.ndarray:
    """``np.select`` for texts, as an array of the few texts themselves: np.select would build a
    fixed-width text array (four bytes a character, a row each), hundreds of MiB for a year of
    tickets, only for pandas to turn it back into these same texts."""
    texts = np.array([*choices, default], dtype=object)
    return texts[np.select(conditions, np.arange(len(choices)), default=len(choices))]


def _severity_block(mine: pd.DataFrame, reason: str, restored_status: str = "restored") -> dict[str, Any]:
    """Restore figures of one severity's incidents (3.19): count, mean, median, max and the rest."""
    status = mine["status"].value_counts()
    done = mine[mine["restored_in_window"] & (mine["status"] == restored_status)]
    ranged = done[done["restore_evidence"].notna()]
    hours = describe(done["restore_hours"], reason, median=True)
    bus = describe(done["restore_business_hours"], reason, median=True)
    judged = mine[mine["status"].isin(JUDGED)]
    comm = describe(judged["first_communication_hours"], "no communication recorded in the window" if len(judged)
                    else "no incident of this severity was judged in the window")
    return {
        # every incident of this row, whatever its bucket, and those restored in the window (a figure
        # or a range): the rows' populations add up to the incidents' population
        "population": len(mine), "restored": len(done),
        "count": hours["count"], "mean_hours": hours["mean"], "median_hours": hours.get("median"),
        "median_rule": MEDIAN_RULE,
        "max_hours": hours["max"], "sum_hours": hours["sum"],
        "mean_business_hours": bus["mean"], "median_business_hours": bus.get("median"),
        "max_business_hours": bus["max"],
        "waiting_on_partner_hours": float(done["waiting_on_partner_hours"].sum()) if len(done) else None,
        "change_window_hours": float(done["change_window_hours"].sum()) if len(done) else None,
        "open_waits": {"count": int(done["open_waits"].sum()),
                       "hours": float(done["open_wait_hours"].sum()) if len(done) else None,
                       "incidents": int((done["open_waits"] > 0).sum())},
        "first_communication_mean_hours": comm["mean"], "first_communication_count": comm["count"],
        "first_communication_max_hours": comm["max"], "first_communication_population": len(judged),
        "started_before_window": int(done["started_before_window"].sum()),
        "reopened": int((done["reopens"] > 0).sum()), "reopens": int(done["reopens"].sum()),
        "clock_from_ticket_opening": int((judged["clock_basis"] == "ticket opened (stand-in)").sum()),
        # restored, but known only as a range: in no mean, median or maximum above, each listed here
        "ranged": len(ranged), "ranged_ids": [str(x) for x in ranged.index],
        "withdrawn": int(status.get("withdrawn", 0)),
        "excluded": int(status.get("excluded", 0)),
        "open": int(status.get("open", 0)),
        "unconfirmed": int(status.get("unconfirmed", 0)),
        "not_evidenced": int(status.get(NOT_EVIDENCED, 0)),
        "outside_window": int(status.get("outside the window", 0)),
        "not_detected": int(status.get("not detected", 0)),
        "reason": hours.get("reason"),
    }


def _pause_intervals(ev: pd.DataFrame, restored: pd.DataFrame) -> pd.DataFrame:
    """Waits and change windows as (id, type, s, e, open), paired in order and clipped to each
    clock; ``open`` marks one with no recorded end (drawn to the restore, its longest reading). One
    whose recorded end is after the restore did cover the rest of the clock: it is not open."""
    p = ev[ev["kind"].isin(_PAUSES) & ev["id"].isin(restored.index)].copy()
    cols = ["id", "type", "s", "e", "open"]
    if p.empty:
        return pd.DataFrame(columns=cols).astype({"s": np.int64, "e": np.int64, "open": bool})
    p["type"] = p["kind"].map(lambda k: _PAUSES[k][0])
    p["edge"] = p["kind"].map(lambda k: _PAUSES[k][1])
    p = p.sort_values("seq")
    p["n"] = p.groupby(["id", "type", "edge"]).cumcount()
    pairs = p.pivot_table(index=["id", "type", "n"], columns="edge", values="at", aggfunc="first").reset_index()
    if 1 not in pairs:
        pairs[1] = np.nan
    lo = restored["start"].reindex(pairs["id"]).to_numpy()
    hi = restored["restored"].reindex(pairs["id"]).to_numpy()
    end = pairs[1].to_numpy(dtype=float)
    unended = np.isnan(end)
    end = np.where(unended, hi, end)  # a pause never closed is drawn to the restore, its longest reading
    out = pd.DataFrame({"id": pairs["id"], "type": pairs["type"],
                        "s": np.maximum(pairs[0].to_numpy(dtype=float), lo), "e": np.minimum(end, hi),
                        "open": unended})
    out = out[out["e"] > out["s"]]
    return out.astype({"s": np.int64, "e": np.int64, "open": bool})[cols]


def merge_pauses(p: pd.DataFrame) -> pd.DataFrame:
    """Union of intervals per id: overlapping pauses are never counted twice."""
    if p.empty:
        return p[["id", "s", "e"]]
    p = p.sort_values(["id", "s"])
    reach = p.groupby("id")["e"].cummax()
    prev = reach.groupby(p["id"]).shift()
    group = (prev.isna() | (p["s"] > prev)).cumsum()
    return p.groupby(group).agg(id=("id", "first"), s=("s", "min"), e=("e", "max"))


def pause_totals(cal: BusinessCalendar, merged: pd.DataFrame, index: pd.Index) -> tuple[np.ndarray, np.ndarray]:
    """Wall and business microseconds of merged pauses per incident, aligned to ``index``."""
    if merged.empty:
        zeros = np.zeros(len(index), dtype=np.int64)
        return zeros, zeros
    s, e = merged["s"].to_numpy(np.int64), merged["e"].to_numpy(np.int64)
    frame = pd.DataFrame({"id": merged["id"].to_numpy(), "wall": e - s, "bus": cal.business_us_many(s, e)})
    totals = frame.groupby("id")[["wall", "bus"]].sum().reindex(index, fill_value=0)
    return totals["wall"].to_numpy(np.int64), totals["bus"].to_numpy(np.int64)


# ----- rollbacks (3.20) ---------------------------------------------------------------------

ROLLBACK_TIMES = ("decision_minutes", "rollback_minutes", "requeue_minutes")


def _rollbacks(events, w0: int, w1: int, upheld: dict[str, str] | None = None) -> tuple[dict, pd.DataFrame]:
    """Decision, rollback and re-queue times per rollback (3.20). A rollback whose criterion was met
    outside the window is counted apart; a step recorded after the window's end never counts."""
    by_id: dict[str, dict[str, Any]] = {}
    for e in events:
        if e.kind.startswith("rollback."):
            slot = by_id.setdefault(e.id, {"seqs": []})
            slot["seqs"].append(e.seq)
            slot.setdefault(e.kind.split(".")[1], e)
    rows = []
    for ident, slot in by_id.items():
        crit, dec = slot.get("criterion-met"), slot.get("decision")
        smoke, requeue, serving = slot.get("smoke-pass"), slot.get("requeue-complete"), slot.get("serving")

        def minutes(a, b):
            if a is None or b is None or to_utc_us(b.at) > w1:
                return None
            return (to_utc_us(b.at) - to_utc_us(a.at)) / US_PER_MIN

        inside = crit is not None and w0 <= to_utc_us(crit.at) <= w1

        # The rollback ends when the previous release is serving and has passed the smoke set: the
        # later of the two (3.20.1). With no serving recorded, the formula's own end, the smoke pass
        # (3.20.2), is taken and the row says so; with no smoke pass it has not ended.
        ended, note = smoke, None
        if smoke is not None and serving is not None and to_utc_us(serving.at) > to_utc_us(smoke.at):
            ended = serving
        if dec is not None and smoke is None:
            note = ("not ended: no rollback.smoke-pass recorded (the rollback ends when the previous release is "
                    "serving and has passed the smoke set, 3.20.1)")
        elif dec is not None and serving is None:
            note = "no rollback.serving recorded: measured to the smoke pass (3.20.2); serving may have come later"
        rows.append({
            "id": ident, "kind": crit.data["kind"] if crit else None,
            "criterion_at": crit.at.isoformat() if crit else None,
            "status": "excluded" if ident in (upheld or {}) else "in the window" if inside else "outside the window",
            "decision_minutes": minutes(crit, dec), "serving_minutes": minutes(dec, serving),
            "smoke_minutes": minutes(dec, smoke),
            "rollback_minutes": minutes(dec, ended), "requeue_minutes": minutes(dec, requeue),
            "rollback_end": None if ended is None else ended.kind.split(".")[1],
            "reason": (upheld or {}).get(ident, note), "serving_recorded": serving is not None,
            # a smoke pass after the window's end does not count, here as in the times above
            "smoke_restored": {k: smoke.data[k] for k in ("model_pin", "prompt_version", "threshold_set")}
            if smoke and to_utc_us(smoke.at) <= w1 else None,
            "data_restore": "data-restore" in slot, "seqs": slot["seqs"],
        })
    table = pd.DataFrame(rows, columns=["id", "kind", "criterion_at", "status", "decision_minutes", "serving_minutes",
                                        "smoke_minutes", "rollback_minutes", "rollback_end", "requeue_minutes",
                                        "reason", "serving_recorded", "smoke_restored", "data_restore", "seqs"])
    summary: dict[str, Any] = {}
    outside = table[table["status"] == "outside the window"]
    for kind in ("production", "rehearsal"):
        mine = table[(table["kind"] == kind) & (table["status"] == "in the window")]
        block: dict[str, Any] = {"count": len(mine),
                                 "serving_not_recorded": int((~mine["serving_recorded"].astype(bool)).sum()),
                                 "ended_at_serving": int((mine["rollback_end"] == "serving").sum())}
        for col in ROLLBACK_TIMES:
            block[col] = describe(mine[col].astype(float), f"no {kind} rollback reached this step")
        summary[kind] = block
    restores = table[table["data_restore"].astype(bool)]
    summary["outside_window"] = {"count": len(outside), "ids": outside["id"].tolist()}
    excluded = table[table["status"] == "excluded"]
    summary["excluded"] = {"count": len(excluded), "ids": excluded["id"].tolist()}
    summary["data_restores"] = {"count": len(restores), "ids": restores["id"].tolist(),
                                "note": "reported apart; its time belongs to the backup and recovery policy"}
    return summary, table


# ----- report completeness (3.21) -----------------------------------------------------------


default_report_elements = report_elements


def _report(events, cal: BusinessCalendar, added: list[str], seen: dict[str, pd.DataFrame], w0: int,
            w1: int, closed: bool = True, audited: bool = True) -> tuple[dict, pd.DataFrame]:
    """Completeness and timeliness of every monthly report in scope, each period judged on its own
    (3.21). In scope: received in the window, for a month the window overlaps, or due within the
    window; any other report is counted apart. A report due within the window (the whole of its
    due date inside it) and never received is, at the close, a period of its own: every element
    absent and not delivered (3.21.5, 3.21.6); before the close it is only overdue so far. A
    self-assessment (``audited`` false) asks about one report, so the others it never asked about
    are not evidence that none came: it judges no report missing."""
    received = sorted((e for e in events if e.kind == "report.received"), key=lambda e: e.id)
    due_inside = _due_in_window(cal, w0, w1) if audited else []
    inside = [e for e in received if w0 <= to_utc_us(e.at) <= w1 or _overlaps_window(e.id, cal, w0, w1)
              or e.id in due_inside]
    columns = ["period", "element", "status", "reason", "seq"]
    outside = [e.id for e in received if e not in inside]
    absent = [p for p in due_inside if p not in {e.id for e in received}]
    missing, overdue = (absent, []) if closed else ([], absent)
    if not inside and not missing:
        reason = "not run: no monthly report was received in the exercise window" + (
            f" ({', '.join(overdue)} not received so far; the exercise has not been closed)" if overdue else "")
        return {"periods": [], "count": 0, "outside_window": outside, "completeness_percent": None,
                "lowest_completeness_percent": None, "on_time": None, "late": None, "missing": [],
                "overdue_so_far": overdue, "reason": reason}, pd.DataFrame(columns=columns)
    checks: dict[str, dict[str, Any]] = {}
    latest = None
    for e in events:  # an element without a period belongs to the report received before it
        if e.kind == "report.received":
            latest = e.id
        elif e.kind == "report.element":
            checks.setdefault(e.data.get("period") or latest, {})[e.id] = e  # a later check supersedes
    # Every drift the journal holds, whatever bucket it is in (one notified before the window opened
    # still shows its month had a drift to report): its onset (null while sealed), and the first
    # detection and the first notice the supplier recorded.
    seen = {**seen, "drift_acts": _drift_acts(events)}
    periods, tables = [], []
    for report in inside:
        period, table = _one_report(report, checks.get(report.id, {}), cal, added, seen, w1)
        periods.append(period)
        tables.append(table)
    for ident in missing:
        period, table = _missing_report(ident, cal, added)
        periods.append(period)
        tables.append(table)
    periods.sort(key=lambda p: p["period"])
    checked = [p for p in periods if p["completeness_percent"] is not None]
    shares = [p["completeness_percent"] for p in checked]
    unchecked = [p["period"] for p in periods if p["completeness_percent"] is None]
    return {
        "periods": periods,
        "count": len(periods),
        "outside_window": outside,
        # Each period weighs the same in the mean; the lowest is what a clause is held to.
        "completeness_percent": sum(shares) / len(shares) if shares else None,
        "lowest_completeness_percent": min(shares) if shares else None,
        "on_time": sum(1 for p in periods if p["on_time"]),
        "late": sum(1 for p in periods if not p["on_time"]),
        "missing": missing,
        "overdue_so_far": overdue,
        "reason": (f"not run: {', '.join(unchecked)} not fully checked" if unchecked else None),
    }, pd.concat(tables, ignore_index=True)


def report_due(cal: BusinessCalendar, period: str) -> dt.date:
    """The day a period's report is due: the fifth business day of the following month (3.21.6)."""
    from day60.due import report_due as due

    return due(cal, period)


def _due_in_window(cal: BusinessCalendar, w0: int, w1: int) -> list[str]:
    """The periods whose report falls due within the window (``due.due_within``)."""
    from day60.due import due_within

    def instant(us: int) -> dt.datetime:
        return dt.datetime.fromtimestamp(us // 1_000_000, dt.UTC).replace(microsecond=us % 1_000_000)

    return due_within(cal, instant(w0), instant(w1))


def _missing_report(period: str, cal: BusinessCalendar, added: list[str]) -> tuple[dict[str, Any], pd.DataFrame]:
    """A period whose report was due within the window and never came: every required element is
    absent, so fails (3.21.5), and it was not delivered by its due date (3.21.6)."""
    required = list(dict.fromkeys([el["id"] for el in default_report_elements()] + added))
    due = report_due(cal, period)
    why = f"absent: no report for {period} was received by the close (due {due.isoformat()})"
    table = pd.DataFrame([{"period": period, "element": el, "status": "fail", "reason": why, "seq": None}
                          for el in required], columns=["period", "element", "status", "reason", "seq"])
    return {
        "period": period, "required": len(required), "passing": 0, "not_applicable": 0,
        "completeness_percent": 0.0, "failing": [{"element": el, "reason": why} for el in required],
        "unchecked": [], "due": due.isoformat(), "delivered": None, "received": False, "on_time": False,
        "reason": None, "received_seq": None, "element_seqs": [],
    }, table


def _overlaps_window(period: str, cal: BusinessCalendar, w0: int, w1: int) -> bool:
    """Whether a report's month (local dates on the calendar) overlaps the window: such a report is
    judged even when delivered after the close, its lateness being timeliness, judged apart."""
    year, month = (int(x) for x in period.split("-"))
    first = dt.datetime(year, month, 1, tzinfo=cal.tz)
    after = dt.datetime(year + (month == 12), month % 12 + 1, 1, tzinfo=cal.tz)
    return to_utc_us(first) <= w1 and to_utc_us(after) > w0


# An element marked "not applicable" for a period in which the journal shows what it reports
# fails (3.21.5): what the journal would show, in words, per element.
NOT_APPLICABLE_CHECKS = {
    "incidents-by-severity": "incident(s) whose clock ran in {period}",
    "drift-timestamps": "drift(s) of {period} the supplier had detected or notified by the report's delivery",
    "rollbacks": "production rollback(s) whose criterion was met in {period}",
    "rollback-rehearsal": "rollback rehearsal(s) in the quarter up to the end of {period}",
}


def _drift_acts(events: list[Any]) -> pd.DataFrame:
    """Per drift id: its onset, first detection and first notice, in epoch microseconds (NaN where
    none, or while the onset is sealed)."""
    acts: dict[str, dict[str, float]] = {}
    for e in events:
        if e.kind in ("drift.onset", "drift.detected", "drift.notice") and e.at is not None:
            slot = acts.setdefault(e.id, {})
            key = e.kind.split(".")[1]
            slot[key] = min(slot.get(key, np.inf), float(to_utc_us(e.at)))
    return pd.DataFrame([{"id": k, **v} for k, v in acts.items()],
                        columns=["id", "onset", "detected", "notice"]).astype({"onset": float, "detected": float,
                                                                              "notice": float})


def _local_bounds(cal: BusinessCalendar, first_day: dt.date, last_day: dt.date) -> tuple[int, int]:
    """The first and the last-plus-one instant of local dates ``first_day`` to ``last_day``."""
    return (to_utc_us(dt.datetime.combine(first_day, dt.time(0), tzinfo=cal.tz)),
            to_utc_us(dt.datetime.combine(last_day + dt.timedelta(days=1), dt.time(0), tzinfo=cal.tz)))


def _us(values: pd.Series) -> np.ndarray:
    """Instants (datetimes or ISO text, None for none) as epoch microseconds, NaN for none."""
    stamps = pd.to_datetime(values, utc=True, format="ISO8601")
    return np.where(stamps.isna(), np.nan, stamps.dt.as_unit("us").astype("int64").astype(float))


def _journal_shows(tables: dict[str, pd.DataFrame], cal: BusinessCalendar, first_day: dt.date,
                   last_day: dt.date, delivered: int, w1: int) -> dict[str, int]:
    """Per element that can be "not applicable", how many things the journal shows for the month.

    Incidents: every incident whose clock ran during the month (started by its end, and restored
    in it, after it, or still open at the window's close), whatever bucket it is in for the
    window's own figures: MTTR counts incidents closed in the month (3.19.2), and a month with an
    incident running through it is not a month with none. Drifts: each whose onset, detection or
    notice falls in the month and that the supplier had detected or notified by the report's
    delivery: it could not report what it did not know, and must report what it did (3.18.7).
    Production rollbacks: criterion met in the month. Rehearsals: one a quarter, its result in the
    monthly report (3.20.6), so any rehearsal from the quarter's start to the month's end."""
    lo, hi = _local_bounds(cal, first_day, last_day)
    inc, rb, acts = tables["incidents"], tables["rollbacks"], tables["drift_acts"]
    ran = 0
    if len(inc):
        start, restored = _us(inc["start"]), _us(inc["restored"])
        live = inc["status"].isin(["open", "unclassified", NOT_EVIDENCED]).to_numpy()
        end = np.where(~np.isnan(restored), restored, np.where(live, float(w1), start))
        ran = int(((start < hi) & (end >= lo)).sum())
    drifts = 0
    if len(acts):
        first = acts[["onset", "detected", "notice"]].to_numpy()
        in_month = ((first >= lo) & (first < hi)).any(axis=1)
        known = np.fmin(acts["detected"].to_numpy(), acts["notice"].to_numpy()) <= delivered
        drifts = int((in_month & known).sum())
    quarter = dt.date(first_day.year, (first_day.month - 1) // 3 * 3 + 1, 1)
    q0 = _local_bounds(cal, quarter, last_day)[0]

    def criteria(kind: str, since: int) -> int:
        if not len(rb):
            return 0
        at = _us(rb.loc[rb["kind"] == kind, "criterion_at"])
        return int(((at >= since) & (at < hi)).sum())

    return {"incidents-by-severity": ran, "drift-timestamps": drifts, "rollbacks": criteria("production", lo),
            "rollback-rehearsal": criteria("rehearsal", q0)}


def _one_report(report, checks: dict[str, Any], cal: BusinessCalendar, added: list[str],
                tables: dict[str, pd.DataFrame], w1: int) -> tuple[dict[str, Any], pd.DataFrame]:
    period = report.id
    required = [el["id"] for el in default_report_elements()]
    for extra in [*added, *checks]:  # elements the exercise or the deal adds, each counted once
        if extra not in required:
            required.append(extra)
    year, month = (int(x) for x in period.split("-"))
    first_day = dt.date(year, month, 1)
    last_day = (dt.date(year + (month == 12), month % 12 + 1, 1) - dt.timedelta(days=1))
    shows = _journal_shows(tables, cal, first_day, last_day, to_utc_us(report.at), w1)
    period_end = dt.datetime.combine(last_day + dt.timedelta(days=1), dt.time(0), tzinfo=cal.tz)
    early = to_utc_us(report.at) < to_utc_us(period_end)
    rows = []
    for el in required:
        c = checks.get(el)
        if c is None:
            rows.append({"period": period, "element": el, "status": "unchecked",
                         "reason": "no report.element recorded", "seq": None})
            continue
        d = c.data
        if d.get("not_applicable"):
            ok = d["present"]
            status, reason = ("not applicable", None) if ok else (
                "fail", "does not apply in the period, but the report does not say so")
            if shows.get(el):
                status, reason = "fail", (f"marked not applicable, but the journal shows {shows[el]} "
                                          + NOT_APPLICABLE_CHECKS[el].format(period=period))
        elif not d["present"]:
            status, reason = "fail", "absent"
        elif not d["covers_period"]:
            status, reason = "fail", "does not cover the whole period"
        elif early:
            status, reason = "fail", (f"the report was received on {report.at.astimezone(cal.tz).date()}, before "
                                      f"its period ended on {last_day}: it cannot cover the whole period (3.21.3)")
        elif not d["supported"]:
            status, reason = "fail", "a figure has no sample size or basis"
        else:
            status, reason = "pass", None
        rows.append({"period": period, "element": el, "status": status, "reason": reason, "seq": c.seq})
    table = pd.DataFrame(rows, columns=["period", "element", "status", "reason", "seq"])
    n_req = len(required)
    passing = int(table["status"].isin(["pass", "not applicable"]).sum())
    unchecked = table[table["status"] == "unchecked"]["element"].tolist()
    due = report_due(cal, period)
    delivered = report.at.astimezone(cal.tz).date()
    return {
        "period": period,
        "required": n_req,
        "passing": passing,
        "not_applicable": int((table["status"] == "not applicable").sum()),
        "completeness_percent": None if unchecked else 100 * passing / n_req,
        "failing": [{"element": r.element, "reason": r.reason} for r in table.itertuples() if r.status == "fail"],
        "unchecked": unchecked,
        "due": due.isoformat(),
        "delivered": delivered.isoformat(),
        "received": True,
        "on_time": delivered <= due,
        "reason": f"not run: {len(unchecked)} of {n_req} required elements were not checked" if unchecked else None,
        "received_seq": report.seq,
        "element_seqs": [int(s) for s in table["seq"].dropna()],
    }, table

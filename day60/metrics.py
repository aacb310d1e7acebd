"""Charter figures from an exercise journal: drift lead time (3.18), time to restore (3.19),
rollback time (3.20) and report completeness (3.21).

Every figure is kept unrounded and travels with its count and exclusions. A figure with
nothing behind it is ``None`` with a ``reason``; it is never zero and never estimated.
Medians and percentiles use the nearest-rank method.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from day60.clock import BusinessCalendar, to_utc_us
from day60.journal import Journal, effective
from day60.resources import report_elements
from day60.stats import nearest_rank

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
        out["median"] = nearest_rank(arr, 50)
    return out


def compute(journal: Journal) -> Figures:
    """All four figure groups from a journal (corrections and reveals applied)."""
    cal = journal.calendar()
    events = effective(journal.events, skip="incident.")
    window = journal.header["window"]
    w0 = to_utc_us(dt.datetime.fromisoformat(window["start"]))
    w1 = to_utc_us(dt.datetime.fromisoformat(window["end"]))
    closed = any(e.kind == "exercise.close" for e in events)
    drift, drift_table = _drift(events, cal, w0, w1, closed)
    incidents, incident_table = _incidents(journal.events, cal, w1)
    rollbacks, rollback_table = _rollbacks(events)
    report, report_table = _report(events, cal, journal.header.get("report_elements", []))
    corrections = [{"seq": c["seq"], "corrects": e.seq, "kind": e.kind, "id": e.id, "was": e.original_at,
                    "now": c["at"], "reason": c["reason"]} for e in events for c in e.corrections]
    summary = {
        "journal_sha256": journal.sha256,
        "journal_head": journal.head,
        "window": {"start": window["start"], "end": window["end"], "hours": (w1 - w0) / US_PER_HOUR,
                   "business_hours": float(cal.business_us_many(np.array([w0]), np.array([w1]))[0]) / US_PER_HOUR,
                   "closed": closed},
        "drift": drift,
        "incidents": incidents,
        "rollbacks": rollbacks,
        "report": report,
        "corrections": corrections,
    }
    return Figures(summary, dict(zip(TABLES, (drift_table, incident_table, rollback_table, report_table),
                                     strict=True)))


# ----- drift (3.18) -------------------------------------------------------------------------

DRIFT_DURATIONS = ("detection_hours", "detection_business_hours", "notice_hours", "notice_business_hours")


def _drift(events, cal: BusinessCalendar, w0: int, w1: int, closed: bool) -> tuple[dict, pd.DataFrame]:
    by_id: dict[str, dict[str, Any]] = {}
    announced, told, false_alerts = set(), set(), []
    for e in events:
        if e.kind == "drift.announced":
            announced.add(e.id)
        elif e.kind == "drift.told":
            told.add(e.id)
        elif e.kind == "drift.false-alert":
            false_alerts.append(e.seq)
        elif e.kind in ("drift.onset", "drift.detected", "drift.notice"):
            slot = by_id.setdefault(e.id, {"seqs": []})
            slot["seqs"].append(e.seq)
            key = e.kind.split(".")[1]
            if key not in slot or (e.at is not None and slot[key].at is not None and e.at < slot[key].at):
                slot[key] = e
    rows = []
    window_hours = (w1 - w0) / US_PER_HOUR
    for ident, slot in by_id.items():
        onset = slot.get("onset")
        if onset is None or ident in announced or ident in told:
            continue
        row: dict[str, Any] = {"id": ident, "status": None, "reason": None, "onset": None, "detected": None,
                               "notice": None, **dict.fromkeys(DRIFT_DURATIONS), "gap_hours": None,
                               "gap_business_hours": None, "seqs": slot["seqs"],
                               "source": onset.data.get("source", "exercise"), "held": onset.revealed or onset.sealed}
        if onset.at is None:
            row.update(status="sealed", reason="the onset is sealed until the runner reveals it at the close")
            rows.append(row)
            continue
        o = to_utc_us(onset.at)
        row["onset"] = onset.at.isoformat()
        notice, detected = slot.get("notice"), slot.get("detected")
        if detected is not None:
            d = to_utc_us(detected.at)
            row.update(detected=detected.at.isoformat(), detection_hours=(d - o) / US_PER_HOUR,
                       detection_business_hours=_bh(cal, o, d))
        if notice is not None and to_utc_us(notice.at) <= w1:
            n = to_utc_us(notice.at)
            row.update(status="notified", notice=notice.at.isoformat(), notice_hours=(n - o) / US_PER_HOUR,
                       notice_business_hours=_bh(cal, o, n))
            if detected is not None:
                d = to_utc_us(detected.at)
                row.update(gap_hours=(n - d) / US_PER_HOUR,
                           gap_business_hours=_bh(cal, d, n) if n >= d else -_bh(cal, n, d))
        elif closed or notice is not None:
            row.update(status="not detected within the window",
                       reason=f"no written notice by the close of the {window_hours:g}-hour window")
        else:
            row.update(status="open", reason="no written notice yet and the window has not closed")
        rows.append(row)
    table = pd.DataFrame(rows, columns=["id", "status", "reason", "source", "held", "onset", "detected", "notice",
                                        *DRIFT_DURATIONS, "gap_hours", "gap_business_hours", "seqs"])
    notified = table[table["status"] == "notified"]
    if not len(table):
        no_notice = no_detection = "no drift observation in the journal"
    elif not len(notified):
        no_notice = no_detection = "no drift observation was notified in the window"
    else:
        no_notice, no_detection = None, "no notified drift observation has a supplier detection time"
    summary = {d: describe(notified[d].astype(float), no_detection if "detection" in d else no_notice)
               for d in DRIFT_DURATIONS}
    summary["gap_hours"] = describe(notified["gap_hours"].astype(float), no_detection)
    return {
        "observations": table.drop(columns=["seqs"]).to_dict("records"),
        "population": len(table),
        "notified": len(notified),
        "not_detected": int((table["status"] == "not detected within the window").sum()),
        "sealed": int((table["status"] == "sealed").sum()),
        "open": int((table["status"] == "open").sum()),
        "summary": summary,
        "false_alerts": len(false_alerts),
        "excluded": {"announced": len(announced), "told": len(told)},
        "window_hours": window_hours,
    }, table


def _bh(cal: BusinessCalendar, a: int, b: int) -> float:
    return float(cal.business_us_many(np.array([a], np.int64), np.array([b], np.int64))[0]) / US_PER_HOUR


# ----- incidents (3.19) ---------------------------------------------------------------------

_PAUSES = {"incident.wait-start": ("wait", 0), "incident.wait-end": ("wait", 1),
           "incident.change-window-start": ("change", 0), "incident.change-window-end": ("change", 1)}


def _incident_events(events: list[dict[str, Any]]) -> pd.DataFrame:
    """Incident events as a table (seq, kind, id, at in epoch microseconds, severity), with
    corrections applied. Built in bulk: an exercise from records may hold many thousands."""
    fixes = {e["data"]["target"]: e["data"]["at"] for e in events if e["kind"] == "correction"}
    rows = [(e["seq"], e["kind"], e["id"], fixes.get(e["seq"], e["at"]), e["data"].get("severity"),
             e["data"].get("source")) for e in events if e["kind"].startswith("incident.")]
    ev = pd.DataFrame(rows, columns=["seq", "kind", "id", "at", "severity", "source"])
    stamps = pd.to_datetime(ev["at"], utc=True, format="ISO8601")
    ev["at"] = stamps.dt.as_unit("us").astype(np.int64) if len(ev) else pd.Series(dtype=np.int64)
    return ev


def _incidents(events: list[dict[str, Any]], cal: BusinessCalendar, w1: int) -> tuple[dict, pd.DataFrame]:
    ev = _incident_events(events)
    first = ev.groupby(["id", "kind"])["at"].min().unstack() if len(ev) else pd.DataFrame(index=pd.Index([]))
    for col in ("incident.detected", "incident.partner-notice", "incident.restored", "incident.communicated",
                "incident.withdrawn", "incident.excluded"):
        if col not in first:
            first[col] = np.nan
    sev = ev.dropna(subset=["severity"]).sort_values("kind").groupby("id")["severity"].first()  # detected first
    inc = pd.DataFrame(index=first.index)
    inc["severity"] = sev.reindex(inc.index)
    inc["source"] = ev.dropna(subset=["source"]).groupby("id")["source"].first().reindex(inc.index)
    inc["start"] = first[["incident.detected", "incident.partner-notice"]].min(axis=1)
    inc["restored"] = first["incident.restored"]
    inc["communicated"] = first["incident.communicated"]
    inc["status"] = np.select(
        [first["incident.withdrawn"].notna(), first["incident.excluded"].notna(),
         inc["start"].isna(), inc["restored"].notna() & (inc["restored"] <= w1)],
        ["withdrawn", "excluded", "not started", "restored"], default="open")
    inc.loc[(inc["status"] == "restored") & inc["severity"].isna(), "status"] = "unclassified"
    inc["first_seq"] = ev.groupby("id")["seq"].min().reindex(inc.index)

    restored = inc[inc["status"].isin(["restored", "unclassified"])]  # unclassified: restored, no severity
    pauses = _pause_intervals(ev, restored)
    wall = (restored["restored"] - restored["start"]).astype(np.int64)
    business = cal.business_us_many(restored["start"].to_numpy(np.int64), restored["restored"].to_numpy(np.int64))
    inc["restore_hours"] = np.nan
    inc["restore_business_hours"] = np.nan
    inc["waiting_on_partner_hours"] = np.nan
    inc["change_window_hours"] = np.nan
    if len(restored):
        union = _merge(pauses)
        u_wall, u_bus = _pause_totals(cal, union, restored.index)
        w_only = _pause_totals(cal, _merge(pauses[pauses["type"] == "wait"]), restored.index)[0]
        c_only = _pause_totals(cal, _merge(pauses[pauses["type"] == "change"]), restored.index)[0]
        inc.loc[restored.index, "restore_hours"] = (wall.to_numpy() - u_wall) / US_PER_HOUR
        inc.loc[restored.index, "restore_business_hours"] = (business - u_bus) / US_PER_HOUR
        inc.loc[restored.index, "waiting_on_partner_hours"] = w_only / US_PER_HOUR
        inc.loc[restored.index, "change_window_hours"] = c_only / US_PER_HOUR
    inc["first_communication_hours"] = (inc["communicated"] - inc["start"]) / US_PER_HOUR

    by_sev = {}
    for s in SEVERITIES:
        mine = inc[inc["severity"] == s]
        done = mine[mine["status"] == "restored"]
        reason = f"no severity {s} incident was restored in the window"
        hours = describe(done["restore_hours"], reason, median=True)
        bus = describe(done["restore_business_hours"], reason, median=True)
        comm = describe(mine["first_communication_hours"], f"no severity {s} incident has a communication")
        by_sev[str(s)] = {
            "count": hours["count"], "mean_hours": hours["mean"], "median_hours": hours.get("median"),
            "max_hours": hours["max"], "sum_hours": hours["sum"],
            "mean_business_hours": bus["mean"], "median_business_hours": bus.get("median"),
            "max_business_hours": bus["max"],
            "waiting_on_partner_hours": float(done["waiting_on_partner_hours"].sum()) if len(done) else None,
            "change_window_hours": float(done["change_window_hours"].sum()) if len(done) else None,
            "first_communication_mean_hours": comm["mean"], "first_communication_count": comm["count"],
            "first_communication_max_hours": comm["max"],
            "withdrawn": int((mine["status"] == "withdrawn").sum()),
            "excluded": int((mine["status"] == "excluded").sum()),
            "open": int((mine["status"] == "open").sum()),
            "reason": hours.get("reason"),
        }
    counts = inc["status"].value_counts()
    summary = {
        "by_severity": by_sev,
        "population": len(inc),
        "withdrawn": int(counts.get("withdrawn", 0)),
        "excluded": int(counts.get("excluded", 0)),
        "open": int(counts.get("open", 0)),
        "unclassified": int(counts.get("unclassified", 0)),
        "not_started": int(counts.get("not started", 0)),
    }
    table = inc.reset_index().rename(columns={"index": "id"})
    for col in ("start", "restored", "communicated"):
        table[col] = pd.to_datetime(table[col], unit="us", utc=True)
    return summary, table


def _pause_intervals(ev: pd.DataFrame, restored: pd.DataFrame) -> pd.DataFrame:
    """Waits and change windows as (id, type, s, e), paired in order and clipped to each clock."""
    p = ev[ev["kind"].isin(_PAUSES) & ev["id"].isin(restored.index)].copy()
    cols = ["id", "type", "s", "e"]
    if p.empty:
        return pd.DataFrame(columns=cols).astype({"s": np.int64, "e": np.int64})
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
    end = np.where(np.isnan(end), hi, end)  # a pause never closed runs to the restore
    out = pd.DataFrame({"id": pairs["id"], "type": pairs["type"],
                        "s": np.maximum(pairs[0].to_numpy(dtype=float), lo), "e": np.minimum(end, hi)})
    out = out[out["e"] > out["s"]]
    return out.astype({"s": np.int64, "e": np.int64})[cols]


def _merge(p: pd.DataFrame) -> pd.DataFrame:
    """Union of intervals per id: overlapping pauses are never counted twice."""
    if p.empty:
        return p[["id", "s", "e"]]
    p = p.sort_values(["id", "s"])
    reach = p.groupby("id")["e"].cummax()
    prev = reach.groupby(p["id"]).shift()
    group = (prev.isna() | (p["s"] > prev)).cumsum()
    return p.groupby(group).agg(id=("id", "first"), s=("s", "min"), e=("e", "max"))


def _pause_totals(cal: BusinessCalendar, merged: pd.DataFrame, index: pd.Index) -> tuple[np.ndarray, np.ndarray]:
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


def _rollbacks(events) -> tuple[dict, pd.DataFrame]:
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
            return (to_utc_us(b.at) - to_utc_us(a.at)) / US_PER_MIN if a is not None and b is not None else None

        rows.append({
            "id": ident, "kind": crit.data["kind"] if crit else None,
            "decision_minutes": minutes(crit, dec), "serving_minutes": minutes(dec, serving),
            "rollback_minutes": minutes(dec, smoke), "requeue_minutes": minutes(dec, requeue),
            "smoke_restored": {k: smoke.data[k] for k in ("model_pin", "prompt_version", "threshold_set")}
            if smoke else None,
            "data_restore": "data-restore" in slot, "seqs": slot["seqs"],
        })
    table = pd.DataFrame(rows, columns=["id", "kind", "decision_minutes", "serving_minutes", "rollback_minutes",
                                        "requeue_minutes", "smoke_restored", "data_restore", "seqs"])
    summary: dict[str, Any] = {}
    for kind in ("production", "rehearsal"):
        mine = table[table["kind"] == kind]
        block: dict[str, Any] = {"count": len(mine)}
        for col in ROLLBACK_TIMES:
            block[col] = describe(mine[col].astype(float), f"no {kind} rollback reached this step")
        summary[kind] = block
    restores = table[table["data_restore"].astype(bool)]
    summary["data_restores"] = {"count": len(restores), "ids": restores["id"].tolist(),
                                "note": "reported apart; its time belongs to the backup and recovery policy"}
    return summary, table


# ----- report completeness (3.21) -----------------------------------------------------------


default_report_elements = report_elements


def _report(events, cal: BusinessCalendar, added: list[str]) -> tuple[dict, pd.DataFrame]:
    received = [e for e in events if e.kind == "report.received"]
    columns = ["element", "status", "reason", "seq"]
    if not received:
        return {"required": None, "passing": None, "not_applicable": None, "completeness_percent": None,
                "failing": [], "due": None, "delivered": None, "on_time": None,
                "reason": "not run: no monthly report was received in the exercise"}, pd.DataFrame(columns=columns)
    report = max(received, key=lambda e: e.id)
    period = report.id
    checks = {}
    for e in events:
        if e.kind == "report.element" and e.data.get("period", period) == period:
            checks[e.id] = e  # a later check of the same element supersedes an earlier one
    required = [el["id"] for el in default_report_elements()]
    for extra in [*added, *checks]:  # elements the exercise adds, each counted once
        if extra not in required:
            required.append(extra)
    rows = []
    for el in required:
        c = checks.get(el)
        if c is None:
            rows.append({"element": el, "status": "unchecked", "reason": "no report.element recorded", "seq": None})
            continue
        d = c.data
        if d.get("not_applicable"):
            ok = d["present"]
            status, reason = ("not applicable", None) if ok else (
                "fail", "does not apply in the period, but the report does not say so")
        elif not d["present"]:
            status, reason = "fail", "absent"
        elif not d["covers_period"]:
            status, reason = "fail", "does not cover the whole period"
        elif not d["supported"]:
            status, reason = "fail", "a figure has no sample size or basis"
        else:
            status, reason = "pass", None
        rows.append({"element": el, "status": status, "reason": reason, "seq": c.seq})
    table = pd.DataFrame(rows, columns=columns)
    n_req = len(required)
    passing = int(table["status"].isin(["pass", "not applicable"]).sum())
    unchecked = table[table["status"] == "unchecked"]["element"].tolist()
    year, month = (int(x) for x in period.split("-"))
    last_day = (dt.date(year + (month == 12), month % 12 + 1, 1) - dt.timedelta(days=1))
    due = cal.business_day_after(last_day, 5)
    delivered = report.at.astimezone(cal.tz).date()
    out = {
        "period": period,
        "required": n_req,
        "passing": passing,
        "not_applicable": int((table["status"] == "not applicable").sum()),
        "completeness_percent": None if unchecked else 100 * passing / n_req,
        "failing": [{"element": r.element, "reason": r.reason} for r in table.itertuples() if r.status == "fail"],
        "unchecked": unchecked,
        "due": due.isoformat(),
        "delivered": delivered.isoformat(),
        "on_time": delivered <= due,
        "reason": f"not run: {len(unchecked)} of {n_req} required elements were not checked" if unchecked else None,
        "received_seq": report.seq,
    }
    return out, table

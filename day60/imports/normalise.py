"""Tickets to journal events: one shared path for every vendor format.

Each ticket becomes organic incident events under the id ``FORMAT:TICKET``: the clock start
(a detection time where the export has one, else the ticket's opening, said so in its note),
the partner's notice and first communication where given, each wait on the partner and each
agreed change window as a start and an end, and the restore. A restore counts only with
monitoring evidence (charter 3.19.4); a ticket resolved without it, or closed without being
resolved, is logged as ``incident.ticket-closed`` and reported. Every ticket's events are
replayed through the journal's rules of fact before any is written; a ticket that breaks one
is listed with the reason, never written, never dropped silently.

Re-importing is idempotent: a ticket whose events are already in the journal adds nothing;
one with new events (a restore since the last export) adds only those; one whose recorded
times differ is listed as a conflict and left for a person to correct.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter, ValidationError

from day60 import journal as jr
from day60.clock import to_utc_us
from day60.errors import InputError
from day60.events import Ident
from day60.imports.records import RowProblem, Ticket, Unreadable, clean

US_PER_HOUR = 3_600_000_000
AGREE_SECONDS = 60  # our figure and the vendor's agree when within a minute of each other
_IDENT = TypeAdapter(Ident)  # the journal's own rule for ids


@dataclass
class Result:
    """What an import did, as data: the CLI prints it, tests read it."""

    format: str
    journal: str
    exports: list[dict[str, Any]]
    read: int = 0  # records read: every one is imported, extended, unchanged, skipped, in conflict or unreadable
    imported: list[str] = field(default_factory=list)
    events: int = 0
    unchanged: list[str] = field(default_factory=list)
    extended: list[str] = field(default_factory=list)
    conflicts: list[dict[str, Any]] = field(default_factory=list)
    unreadable: list[dict[str, Any]] = field(default_factory=list)
    skipped: list[dict[str, Any]] = field(default_factory=list)
    findings: dict[str, list[dict[str, Any]]] = field(default_factory=lambda: {
        "resolved_unconfirmed": [], "closed_unresolved": [], "open": [], "clock_from_opening": [],
        "kept_pauses": [], "notes": []})
    reconcile: dict[str, Any] = field(default_factory=dict)
    head: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        """The fields as a plain dict, sharing the lists (a year of tickets is not copied)."""
        return dict(vars(self))


def ticket_events(t: Ticket, severity: int | None) -> list[tuple[str, dt.datetime, dict[str, Any]]]:
    """The events one ticket stands for, in the order they are written."""
    out: list[tuple[str, dt.datetime, dict[str, Any]]] = []
    sev = {} if severity is None else {"severity": severity}
    if t.detected is not None:
        out.append(("incident.detected", t.detected, {**sev, "source": "organic",
                                                      "note": f"detection: {clean(t.detected_label)}"}))
    elif t.opened is not None:
        out.append(("incident.detected", t.opened, {**sev, "source": "organic",
                                                    "note": "clock start: the ticket's opening; the export holds "
                                                            "no separate detection time (charter 3.19.3)"}))
    if t.partner_notice is not None:
        out.append(("incident.partner-notice", t.partner_notice, {**sev, "source": "organic"}))
    if not out:
        raise RowProblem("has no opening, detection or partner-notice time, so its clock cannot start")
    for p in sorted((p for p in t.pauses if p.kind != "kept"), key=lambda p: (p.kind, p.start)):
        name = "wait" if p.kind == "wait" else "change-window"
        out.append((f"incident.{name}-start", p.start, {"note": clean(p.label)}))
        if p.end is not None:
            out.append((f"incident.{name}-end", p.end, {}))
    if t.communicated is not None:
        out.append(("incident.communicated", t.communicated, {}))
    state = clean(t.state or "not stated", 120)
    if t.resolved is not None and t.check:
        out.append(("incident.restored", t.resolved, {"check": clean(t.check)}))
    elif t.resolved is not None:
        out.append(("incident.ticket-closed", t.resolved, {"state": state, "resolved": True,
                                                           "note": "resolved with no monitoring evidence"}))
    elif t.closed is not None:
        out.append(("incident.ticket-closed", t.closed, {"state": state, "resolved": False,
                                                         "note": "closed without a resolution"}))
    return out


def check_ticket(ident: str, events: list[tuple[str, dt.datetime, dict[str, Any]]]) -> None:
    """Replay one ticket's events through the journal's rules of fact (RowProblem on a break)."""
    state = jr._State()
    for n, (kind, at, data) in enumerate(events, start=1):
        try:
            state.apply(jr.Effective(n, kind, ident, at, data, None))
        except InputError as exc:
            raise RowProblem(exc.problem.replace(f"event {n} ({kind} {ident})", kind)) from None


def ident_of(fmt: str, ref: str) -> str:
    ident = f"{fmt}:{ref.strip()}"
    try:
        if ref.strip():
            return _IDENT.validate_python(ident)
    except ValidationError:
        pass
    raise RowProblem(f"ticket id {ref[:40]!r} is empty, too long, or holds control or invisible characters")


def run(fmt: str, journal_path: Path, items: Iterable[Ticket | Unreadable], severity_map: dict[str, str],
        exports: list[dict[str, Any]], by: str) -> Result:
    """Append every readable ticket in ``items`` to the journal, in one locked batch."""
    result = Result(fmt, str(journal_path), exports)
    unmapped: dict[str, str] = {}
    recon: list[tuple[str, int, int, list[tuple[str, int, int]], float | None, float | None, str]] = []
    with jr.batch(journal_path) as batch:
        existing = _existing(batch.journal, fmt + ":")
        for item in items:
            result.read += 1
            if isinstance(item, Unreadable):
                result.unreadable.append(vars(item))
                continue
            try:
                ident = ident_of(fmt, item.ref)
                severity = _severity(item, severity_map, unmapped)
                if severity == "skip":
                    result.skipped.append({"ticket": item.ref, "severity": item.severity, "where": item.where})
                    continue
                events = ticket_events(item, severity)
                check_ticket(ident, events)
            except RowProblem as exc:
                result.unreadable.append({"where": item.where, "ref": item.ref, "reason": str(exc)})
                continue
            have = existing.get(ident)
            keys = [(kind, to_utc_us(at)) for kind, at, _ in events] if have is not None else []
            if have is not None and not set(have) <= set(keys):
                result.conflicts.append({"ticket": item.ref, "where": item.where,
                                         "reason": "the journal already holds other times for it (seq "
                                                   f"{', '.join(str(s) for s in have.values())})"})
                continue
            new = events if have is None else [e for e, key in zip(events, keys, strict=True) if key not in have]
            if have is not None and not new:
                result.unchanged.append(item.ref)
            else:
                for kind, at, data in new:
                    batch.add(kind, ident, at.isoformat(), by, data)
                (result.imported if have is None else result.extended).append(item.ref)
            _findings(result, item, events)
            recon.append(_recon_row(item, events))
        if unmapped:
            values = sorted(unmapped)
            raise InputError("--severity-map", f"no deal severity is given for {', '.join(map(repr, values[:8]))}"
                             f"{' and more' if len(values) > 8 else ''} (e.g. {unmapped[values[0]]})",
                             "map every vendor value: 'VALUE=1' to '=4', '=unclassified' or '=skip'; nothing "
                             "was written")
        result.events = batch.count
        result.head = {"seq": batch.seq, "hash": batch.head_hash}
    result.reconcile = reconcile(batch.journal.calendar(), recon)
    return result


def _existing(journal: jr.Journal, prefix: str) -> dict[str, dict[tuple[str, int], int]]:
    """The tickets of this format the journal holds: id -> (kind, instant as written) -> seq."""
    if journal.incidents is not None:  # read on the engine: the incident events are in DuckDB
        rows: Iterable[tuple[str, str, int, int]] = journal.incidents.written(prefix)
    else:
        rows = ((e["id"], e["kind"], to_utc_us(dt.datetime.fromisoformat(e["at"])), e["seq"]) for e in journal.events
                if e["id"].startswith(prefix) and e["kind"].startswith("incident.") and e["at"])
    out: dict[str, dict[tuple[str, int], int]] = {}
    for ident, kind, at, seq in rows:
        out.setdefault(ident, {})[(kind, at)] = seq
    return out


def _severity(t: Ticket, table: dict[str, str], unmapped: dict[str, str]) -> int | str | None:
    raw = (t.severity or "").strip()
    if raw not in table:
        if raw == "":
            return None  # the records give no severity: unclassified, judged at the strictest target
        unmapped.setdefault(raw, t.where)
        return None
    value = table[raw]
    return None if value == "unclassified" else "skip" if value == "skip" else int(value)


def _findings(result: Result, t: Ticket, events: list[tuple[str, dt.datetime, dict[str, Any]]]) -> None:
    f = result.findings
    last = events[-1]
    if last[0] == "incident.ticket-closed":
        key = "resolved_unconfirmed" if last[2]["resolved"] else "closed_unresolved"
        f[key].append({"ticket": t.ref, "at": last[1].isoformat(), "state": last[2]["state"]})
    elif last[0] != "incident.restored":
        f["open"].append({"ticket": t.ref, "state": t.state or "not stated"})
    if t.detected is None and t.opened is not None:
        f["clock_from_opening"].append(t.ref)
    for p in t.pauses:
        if p.kind == "kept":
            hours = None if p.end is None else (p.end - p.start).total_seconds() / 3600
            f["kept_pauses"].append({"ticket": t.ref, "label": p.label, "start": p.start.isoformat(),
                                     "hours": hours})
    for note in t.notes:
        f["notes"].append({"ticket": t.ref, "note": note})


# ----- reconciling with the vendor's own durations --------------------------------------------


def _recon_row(t: Ticket, events: list[tuple[str, dt.datetime, dict[str, Any]]]) -> tuple:
    starts = [to_utc_us(at) for kind, at, _ in events if kind in ("incident.detected", "incident.partner-notice")]
    restored = next((to_utc_us(at) for kind, at, _ in events if kind == "incident.restored"), None)
    pauses = [(p.kind, to_utc_us(p.start), to_utc_us(p.end) if p.end else None) for p in t.pauses
              if p.kind != "kept"]
    return (t.ref, min(starts), restored, pauses, t.vendor_hours, t.vendor_business_hours, t.vendor_label)


def reconcile(cal: Any, rows: list[tuple]) -> dict[str, Any]:
    """Our restore figure beside the vendor's own duration for each ticket that exports one.

    Ours is the charter's: from the clock start to the monitoring-confirmed restore, less merged
    waits on the partner and agreed change windows (the same arithmetic as ``metrics``)."""
    import numpy as np
    import pandas as pd

    from day60.metrics import merge_pauses, pause_totals

    rows = [r for r in rows if r[4] is not None or r[5] is not None]
    if not rows:
        return {"compared": 0, "reason": "the export carries no vendor durations to compare with"}
    done = [r for r in rows if r[2] is not None]
    ids = pd.Index([r[0] for r in done])
    start = np.array([r[1] for r in done], dtype=np.int64)
    end = np.array([r[2] for r in done], dtype=np.int64)
    pid, ps, pe = [], [], []
    for r in done:
        for _kind, s, e in r[3]:
            s, e = max(s, r[1]), min(r[2] if e is None else e, r[2])
            if e > s:
                pid.append(r[0])
                ps.append(s)
                pe.append(e)
    merged = merge_pauses(pd.DataFrame({"id": pid, "s": np.array(ps, dtype=np.int64),
                                        "e": np.array(pe, dtype=np.int64)}))
    p_wall, p_bus = pause_totals(cal, merged, ids)
    ours = dict(zip(ids, zip((end - start - p_wall) / US_PER_HOUR,
                             (cal.business_us_many(start, end) - p_bus) / US_PER_HOUR, strict=True), strict=True))
    table = []
    for ref, _s, _restored, pauses, v_hours, v_bus, label in rows:
        mine = ours.get(ref)
        row = {"ticket": ref, "ours_hours": None, "ours_business_hours": None, "vendor_hours": v_hours,
               "vendor_business_hours": v_bus, "vendor_measure": label, "pauses_excluded": len(pauses),
               "agree": None, "note": None}
        if mine is None:
            row["note"] = "no monitoring-confirmed restore, so no figure of ours"
        else:
            row["ours_hours"], row["ours_business_hours"] = float(mine[0]), float(mine[1])
            diffs = [abs(a - b) * 3600 for a, b in ((row["ours_hours"], v_hours), (row["ours_business_hours"], v_bus))
                     if b is not None]
            row["agree"] = all(d <= AGREE_SECONDS for d in diffs)
        table.append(row)
    judged = [r for r in table if r["agree"] is not None]
    differ = [r for r in judged if not r["agree"]]

    def gap(r: dict[str, Any]) -> float:
        pairs = [(r["ours_hours"], r["vendor_hours"]), (r["ours_business_hours"], r["vendor_business_hours"])]
        return max(abs(a - b) for a, b in pairs if b is not None)

    worst = max(differ, key=gap) if differ else None
    return {"compared": len(judged), "agree": len(judged) - len(differ), "differ": len(differ),
            "not_compared": len(table) - len(judged), "tolerance_seconds": AGREE_SECONDS,
            "largest": {"ticket": worst["ticket"], "hours": gap(worst)} if worst else None,
            "tickets": table}

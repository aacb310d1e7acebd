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

The arithmetic is done for every ticket at once, in arrays (business spans by the calendar's
``business_us_many``); a ticket's row, with its reasons in words, is built only when it is asked
for (``Reconciliation.rows``), so a year of tickets streams to a CSV file and the printout holds
the totals and the first rows. An import reconciles the journal as it left it (``engine.after``:
what the journal held plus what the import wrote), without reading the file again.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

AGREE_SECONDS = 60  # our figure and the vendor's agree when within a minute of each other
US_PER_HOUR = 3_600_000_000
NONE_TO_COMPARE = "the journal holds no vendor durations to compare with"
_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)


@dataclass
class Reconciliation:
    """The reconciliation of a journal's imported tickets: the totals (``summary``) and, per
    ticket in id order, the columns its row is built from (``rows``)."""

    summary: dict[str, Any]
    n: int = 0
    cols: dict[str, Any] = field(default_factory=dict)

    def rows(self, chunk: int = 10_000) -> Iterator[dict[str, Any]]:
        """Every ticket's row (ours, theirs, the difference and its reasons), in id order."""
        for lo in range(0, self.n, chunk):
            yield from self._rows(lo, min(self.n, lo + chunk))

    def shown(self, limit: int) -> list[dict[str, Any]]:
        """The first ``limit`` rows that differ or were not compared (what a printout lists)."""
        places = np.flatnonzero(~self.cols["agree"] | ~self.cols["has"])[:limit] if self.n else []
        return [next(self._rows(int(i), int(i) + 1)) for i in places]

    def as_dict(self) -> dict[str, Any]:
        """The totals with every row under ``tickets`` (as JSON output and reports carry them)."""
        return {**self.summary, "tickets": list(self.rows())} if self.n else dict(self.summary)

    def _rows(self, lo: int, hi: int) -> Iterator[dict[str, Any]]:
        c = self.cols
        for i in range(lo, hi):
            ident, has, agree = c["id"][i], bool(c["has"][i]), bool(c["agree"][i])
            schedule = c["schedule"][i]
            row = {"ticket": ident.split(":", 1)[1], "incident": ident, "vendor_measure": c["measure"][i],
                   "vendor_hours": _num(c["wall"][i]), "vendor_business_hours": _num(c["bus"][i]),
                   "vendor_schedule": schedule if isinstance(schedule, str) else None,
                   "ours_hours": _num(c["ours"][i]) if has else None,
                   "ours_business_hours": _num(c["ours_bus"][i]) if has else None,
                   "difference_hours": _num(c["d_wall"][i]) if has else None,
                   "difference_business_hours": _num(c["d_bus"][i]) if has else None,
                   "gap_hours": float(c["gap"][i]) if has else 0.0, "agree": agree if has else None,
                   "reopens": int(c["reopens"][i]),
                   "clock_start": "ticket's opening (stand-in)" if c["standin"][i] else "detection or notice",
                   "reasons": [], "note": None, "beside": self._beside(i, has)}
            if not has:
                row["note"] = _not_compared(c["status"][i], c["wall"][i], c["bus"][i])
                own = _own_disagreement(self._part(i), row["vendor_hours"])  # with no figure of ours, still said
                row["reasons"] = [own] if own else []
            elif not agree:
                row["reasons"] = _reasons(row, self._part(i), row["reopens"], bool(c["standin"][i]))
            yield row

    def _beside(self, i: int, has: bool) -> list[dict[str, Any]]:
        """The vendor's further figures for the ticket (Zendesk states three: its main, paused one
        is the row's; its whole elapsed span and its time waiting on you are set here) beside ours,
        each difference with its reasons."""
        c, out = self.cols, []
        tol = AGREE_SECONDS / 3600
        part = self._part(i)
        if not np.isnan(c["elapsed"][i]):
            theirs = float(c["elapsed"][i])
            entry = _beside("elapsed, start to stop, not paused", theirs, float(part["clock"][0]) if has else None)
            if has and abs(entry["difference_hours"]) > tol:
                entry["reasons"] = _elapsed_reasons(entry, part, tol)
            out.append(entry)
        if not np.isnan(c["v_waits"][i]):
            theirs = float(c["v_waits"][i])
            entry = _beside("waiting on you", theirs, float(c["waits"][i]) if has else None)
            if has and abs(entry["difference_hours"]) > tol:
                entry["reasons"] = [
                    f"ours counts only the waits on you inside our clock ({_clock_text(part)}) that the records "
                    f"and the map name as waits ({_h(entry['ours_hours'])}); the vendor's counts all its own waiting "
                    f"time from its clock's start to its stop ({_h(theirs)}), so they are "
                    f"{_h(abs(entry['difference_hours']))} apart"]
            out.append(entry)
        return out

    def _part(self, i: int) -> dict[str, Any]:
        c = self.cols
        return {"v_from": _iso(c["from_us"][i], c["from_off"][i]) if c["has_from"][i] else None,
                "v_to": _iso(c["to_us"][i], c["to_off"][i]) if c["has_to"][i] else None,
                "d_start": (c["d_start"][0][i], c["d_start"][1][i]), "d_end": (c["d_end"][0][i], c["d_end"][1][i]),
                "clock": (c["clock"][0][i], c["clock"][1][i]), "v_span": c["v_span"][i],
                "paused_ms": c["paused"][i], "waits": float(c["waits"][i]), "changes": float(c["changes"][i]),
                "schedule": c["schedule"][i]}


def _own_disagreement(part: dict[str, Any], vendor_hours: float | None) -> str | None:
    """The vendor's calendar figure set against its own clock (its start, stop and the pause it
    states), where the records hold all three: said where they disagree, whether or not a figure
    of ours stands beside it."""
    import math

    if vendor_hours is None or part["v_from"] is None or part["v_to"] is None or math.isnan(part["paused_ms"]):
        return None
    paused = part["paused_ms"] / 3_600_000
    own = part["v_span"] - paused - vendor_hours
    if abs(own) <= AGREE_SECONDS / 3600:
        return None
    return (f"the vendor's own figure ({_h(vendor_hours)}) is not its clock's span less its pause "
            f"({_h(part['v_span'])} - {_h(paused)} = {_h(part['v_span'] - paused)}, from {part['v_from']} to "
            f"{part['v_to']}): its records disagree with themselves by {_h(abs(own))}")


def _beside(figure: str, theirs: float, ours: float | None) -> dict[str, Any]:
    return {"figure": figure, "vendor_hours": theirs, "ours_hours": ours,
            "difference_hours": None if ours is None else ours - theirs, "reasons": []}


def _clock_text(part: dict[str, Any]) -> str:
    return f"{_h(part['clock'][0])} from its start to the monitoring-confirmed restore"


def _elapsed_reasons(entry: dict[str, Any], part: dict[str, Any], tol: float) -> list[str]:
    """Why our clock's span and the vendor's elapsed figure differ: where each starts and stops,
    and whether the vendor's figure is its own span; the rest is said to be unexplained."""
    out, explained = [], 0.0
    if part["v_from"] is not None:
        d = part["d_start"][0]
        explained += d
        if abs(d) > tol:
            out.append(f"our clock starts {_h(abs(d))} {'before' if d > 0 else 'after'} the vendor's "
                       f"({part['v_from']})")
    if part["v_to"] is not None:
        d = part["d_end"][0]
        explained += d
        if abs(d) > tol:
            out.append(f"our clock ends at the monitoring-confirmed restore, {_h(abs(d))} "
                       f"{'after' if d > 0 else 'before'} the vendor's stopped ({part['v_to']})")
    if part["v_from"] is not None and part["v_to"] is not None:
        own = part["v_span"] - entry["vendor_hours"]
        explained += own
        if abs(own) > tol:
            out.append(f"the vendor's elapsed figure ({_h(entry['vendor_hours'])}) is not its own clock's span "
                       f"({_h(part['v_span'])}, from {part['v_from']} to {part['v_to']}): its records disagree with "
                       f"themselves by {_h(abs(own))}")
    rest = entry["difference_hours"] - explained
    if abs(rest) > tol:
        out.append(f"{_h(abs(rest))} of the difference is not explained by the records")
    return out


def _iso(us: Any, offset: Any) -> str:
    """An instant as the journal writes it (ISO 8601 with the offset it was written with)."""
    zone = dt.timezone(dt.timedelta(seconds=int(offset)))
    return (_EPOCH + dt.timedelta(microseconds=int(us))).astimezone(zone).isoformat()


def from_journal(journal: Any, figures: Any = None, only: Iterable[str] | None = None) -> dict[str, Any]:
    """The reconciliation table of a journal (``journal`` as ``reading.read``, ``engine.after`` or
    ``journal.read`` gives it; ``figures`` its ``metrics.compute``; if not given, only the columns
    of its incident table read here are worked, by ``metrics.restore_clocks``; ``only``: these
    incident ids), every row under ``tickets``: ours, theirs, the difference and its reasons."""
    return reconcile(journal, figures, only).as_dict()


def reconcile(journal: Any, figures: Any = None, only: Iterable[str] | None = None) -> Reconciliation:
    """As ``from_journal``, with the rows left to be built as they are read (``Reconciliation``)."""
    if not _holds_clocks(journal):
        return Reconciliation({"compared": 0, "reason": NONE_TO_COMPARE})
    if figures is None:  # only the columns of the figures' incident table read here (a year of tickets')
        from day60 import metrics

        table = metrics.restore_clocks(journal)
    else:
        table = figures.tables["incidents"]
    v = _vendor_clocks(journal, table, only)
    at = v["at"]  # each ticket's place in the figures' table (which is in id order)
    n = len(at)
    if not n:
        return Reconciliation({"compared": 0, "reason": NONE_TO_COMPARE})

    def take(name: str) -> np.ndarray:
        return table[name].to_numpy(dtype=float, na_value=np.nan)[at]

    def instants(name: str) -> np.ndarray:
        stamps = table[name]
        values = stamps.dt.as_unit("us").astype("int64").to_numpy() if len(stamps) else np.zeros(0, np.int64)
        return np.where(stamps.isna().to_numpy(), 0, values)[at]

    wall, bus = v["wall_ms"] / 3_600_000, v["business_ms"] / 3_600_000
    # The clock as the journal records it: where our figure is only a range (a stand-in start, a
    # pause with no recorded end), its shortest reading, measured from the same instants the
    # vendor's clock was; the rows say why the two clocks differ.
    ours, ours_bus = take("restore_hours_at_least"), take("restore_business_hours_at_least")
    d_wall, d_bus = ours - wall, ours_bus - bus
    tol = AGREE_SECONDS / 3600
    with np.errstate(invalid="ignore"):
        has = ~np.isnan(ours) & (~np.isnan(wall) | ~np.isnan(bus))
        agree = has & np.where(np.isnan(d_wall), True, np.abs(d_wall) <= tol) & \
            np.where(np.isnan(d_bus), True, np.abs(d_bus) <= tol)
    gap = np.fmax(np.abs(np.nan_to_num(d_wall, nan=0.0)), np.abs(np.nan_to_num(d_bus, nan=0.0)))
    start, end = instants("start"), instants("restored")
    has_from, has_to = v["has_from"], v["has_to"]
    v_from, v_to = np.where(has_from, v["from_us"], start), np.where(has_to, v["to_us"], end)
    cal = journal.calendar()
    differ = has & ~agree

    def spans(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Signed calendar and business hours from a to b, on the deal's calendar, for the rows that
        differ (the others are never taken apart)."""
        lo, hi = np.minimum(a, b), np.maximum(a, b)
        sign = np.where(b >= a, 1.0, -1.0)
        business = np.zeros(n)
        business[differ] = cal.business_us_many(lo[differ], hi[differ])
        return sign * (hi - lo) / US_PER_HOUR, sign * business / US_PER_HOUR

    cols = {"id": table["id"].to_numpy(dtype=object)[at], "measure": v["measure"], "schedule": v["schedule"],
            "status": table["status"].to_numpy(dtype=object)[at], "wall": wall, "bus": bus,
            "ours": ours, "ours_bus": ours_bus, "d_wall": d_wall, "d_bus": d_bus, "gap": gap, "has": has,
            "agree": agree, "reopens": v["reopens"], "standin": v["standin"], "has_from": has_from,
            "has_to": has_to, "from_us": v_from, "from_off": v["from_off"], "to_us": v_to, "to_off": v["to_off"],
            "d_start": spans(start, v_from), "d_end": spans(v_to, end), "clock": spans(start, end),
            "v_span": (v_to - v_from) / US_PER_HOUR, "paused": v["paused_ms"],
            "elapsed": v["elapsed_ms"] / 3_600_000, "v_waits": v["waits_ms"] / 3_600_000,
            "waits": np.nan_to_num(take("waiting_on_partner_hours")),
            "changes": np.nan_to_num(take("change_window_hours"))}
    judged = int(has.sum())
    differing = np.flatnonzero(differ)
    worst = int(differing[np.argmax(gap[differing])]) if len(differing) else None
    summary = {"compared": judged, "agree": judged - len(differing), "differ": len(differing),
               "not_compared": n - judged, "tolerance_seconds": AGREE_SECONDS,
               "largest": {"ticket": cols["id"][worst].split(":", 1)[1], "hours": float(gap[worst])}
               if worst is not None else None,
               "measures": sorted(set(cols["measure"]))}
    return Reconciliation(summary, n, cols)


def _holds_clocks(journal: Any) -> bool:
    if journal.incidents is not None:
        return bool(journal.incidents.con.execute("SELECT count(*) FROM vendor_clocks").fetchall()[0][0])
    return any("vendor_measure" in e["data"] for e in journal.events if e["kind"].startswith("incident."))


def _vendor_clocks(journal: Any, table: Any, only: Iterable[str] | None) -> dict[str, np.ndarray]:
    """Per incident of the figures' ``table`` (of ``only``, if given) whose events hold a vendor
    clock, in the table's order: its place there (``at``), that clock (from the last event that
    holds one), how many times it was re-opened, and whether its clock starts at a stand-in (the
    ticket's opening). On the engine, DuckDB gives them as numbers (each text once), placed by
    the position ``grouped`` numbers incidents with, which is the order of the figures' table."""
    import pandas as pd

    ids = table["id"]
    if journal.incidents is not None:
        con = journal.incidents.con
        if con.execute("SELECT count(*) FROM grouped").fetchall()[0][0] != len(ids):
            raise ValueError("the figures were not worked from this journal")
        texts = [t for (t,) in con.execute("SELECT DISTINCT measure FROM vendor_clocks UNION "
                                           "SELECT DISTINCT schedule FROM vendor_clocks").fetchall()]
        con.register("vendor_texts", pd.DataFrame({"text": pd.Series(texts, dtype=object),
                                                   "code": np.arange(len(texts), dtype=np.int64)}))
        try:
            raw = con.execute("""
                SELECT g.pos AS at, v.seq, m.code AS measure, coalesce(s.code, -1) AS schedule,
                       coalesce(CAST(v.wall_ms AS DOUBLE), 'NaN') AS wall_ms,
                       coalesce(CAST(v.business_ms AS DOUBLE), 'NaN') AS business_ms,
                       coalesce(CAST(v.paused_ms AS DOUBLE), 'NaN') AS paused_ms,
                       coalesce(CAST(v.elapsed_ms AS DOUBLE), 'NaN') AS elapsed_ms,
                       coalesce(CAST(v.waits_ms AS DOUBLE), 'NaN') AS waits_ms,
                       v.from_us IS NOT NULL AS has_from, coalesce(v.from_us, 0) AS from_us,
                       coalesce(v.from_off, 0) AS from_off, v.to_us IS NOT NULL AS has_to,
                       coalesce(v.to_us, 0) AS to_us, coalesce(v.to_off, 0) AS to_off
                FROM vendor_clocks v JOIN grouped g USING (id) JOIN vendor_texts m ON m.text = v.measure
                     LEFT JOIN vendor_texts s ON s.text = v.schedule""").fetchnumpy()
            reopened = con.execute("SELECT g.pos FROM incidents i JOIN grouped g USING (id) "
                                   "WHERE i.kind = 'incident.reopened'").fetchnumpy()["pos"]
            standin = con.execute("SELECT stand_in FROM grouped ORDER BY pos").fetchnumpy()["stand_in"]
        finally:
            con.unregister("vendor_texts")
        v = {k: np.asarray(values) for k, values in raw.items()}
        text = np.array([*texts, None], dtype=object)  # code -1 is the last: none
        v["measure"], v["schedule"] = text[v["measure"]], text[v["schedule"]]
        reopens = np.bincount(np.asarray(reopened, dtype=np.int64), minlength=len(ids))
        standin = np.asarray(standin, dtype=bool)
    else:
        v, reopens, standin = _reference_clocks(journal.events, pd.Index(ids))
    order = np.lexsort((v["seq"], v["at"]))  # by incident, then seq: the last of each is its clock
    last = order[np.r_[v["at"][order][1:] != v["at"][order][:-1], True]] if len(order) else order
    if only is not None:
        from itertools import islice

        wanted = np.zeros(len(ids), dtype=bool)
        index, given = pd.Index(ids), iter(only)  # ``only`` may be a spooled list: read in parts, never whole
        while part := list(islice(given, 100_000)):
            places = index.get_indexer(pd.Index(part))
            wanted[places[places >= 0]] = True
        last = last[wanted[v["at"][last]]]
    out = {k: values[last] for k, values in v.items() if k != "seq"}
    out["reopens"], out["standin"] = reopens[out["at"]], standin[out["at"]]
    return out


def _reference_clocks(events: list[dict[str, Any]], index: Any) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray]:
    """As the engine's, from ``journal.read``'s events."""
    rows: list[tuple[Any, ...]] = []
    reopens, standin = np.zeros(len(index), dtype=np.int64), np.zeros(len(index), dtype=bool)
    for e in events:
        if not e["kind"].startswith("incident."):
            continue
        d, at = e["data"], index.get_loc(e["id"])
        if "vendor_measure" in d:
            rows.append((at, e["seq"], d["vendor_measure"], d.get("vendor_schedule"),
                         *(np.nan if d.get(f) is None else float(d[f])
                           for f in ("vendor_wall_ms", "vendor_business_ms", "vendor_paused_ms", "vendor_elapsed_ms",
                                     "vendor_waits_ms")),
                         *_instant(d.get("vendor_from")), *_instant(d.get("vendor_to"))))
        if e["kind"] == "incident.detected" and d.get("clock_start") == "ticket-opened":
            standin[at] = True
        if e["kind"] == "incident.reopened":
            reopens[at] += 1
    names = ("at", "seq", "measure", "schedule", "wall_ms", "business_ms", "paused_ms", "elapsed_ms", "waits_ms",
             "has_from", "from_us", "from_off", "has_to", "to_us", "to_off")
    kinds = (np.int64, np.int64, object, object, float, float, float, float, float, bool, np.int64, np.int64, bool,
             np.int64, np.int64)
    columns = list(zip(*rows, strict=True)) if rows else [()] * len(names)
    return ({k: np.array(c, dtype=t) for k, c, t in zip(names, columns, kinds, strict=True)}, reopens, standin)


def _instant(value: str | None) -> tuple[bool, int, int]:
    """(present, epoch microseconds, offset in seconds) of an instant as the journal writes it."""
    from day60.clock import to_utc_us

    if value is None:
        return False, 0, 0
    when = dt.datetime.fromisoformat(value)
    return True, to_utc_us(when), int(when.utcoffset().total_seconds())


def _num(value: float) -> float | None:
    import math

    return None if math.isnan(value) else float(value)


def _not_compared(status: Any, wall: float, bus: float) -> str:
    import math

    if math.isnan(wall) and math.isnan(bus):
        return "the vendor's figure has neither a calendar nor a business duration"
    return {"unconfirmed": "no monitoring-confirmed restore, so no figure of ours",
            "open": "not restored in the window, so no figure of ours",
            "outside the window": "its clock starts outside the journal's window",
            "withdrawn": "withdrawn: it enters no figure (charter 3.19.5)",
            "excluded": "excluded under the contract: it enters no figure (charter 3.19.5)"}.get(
        str(status), "not in the journal's figures" if not isinstance(status, str) else f"no figure of ours ({status})")


def _h(value: float) -> str:
    return f"{value:.2f} h"


def _reasons(row: dict[str, Any], part: dict[str, Any], reopens: int, standin: bool) -> list[str]:
    """Why the two figures differ, from what the journal holds: each part (where the clocks start,
    where they stop, how long each stood paused) in calendar and in business hours on the deal's
    calendar; what the parts leave is stated: on business hours, the vendor's own schedule;
    otherwise, unexplained."""
    import math

    tol = AGREE_SECONDS / 3600
    unit = "h" if row["vendor_hours"] is not None else "bh"

    def shown(d: tuple[float, float]) -> str:
        return _h(abs(d[0])) if unit == "h" else f"{abs(d[1]):.2f} bh"

    ours_paused = (part["clock"][0] - row["ours_hours"], part["clock"][1] - row["ours_business_hours"])
    waits, changes = part["waits"], part["changes"]
    v_from, v_to = part["v_from"], part["v_to"]
    v_paused = None if math.isnan(part["paused_ms"]) else part["paused_ms"] / 3_600_000
    own = None  # how far the vendor's calendar figure is from its own start, stop and pause
    if v_paused is not None and v_from and v_to and row["vendor_hours"] is not None:
        own = part["v_span"] - v_paused - row["vendor_hours"]
    if v_paused is None and v_from and v_to and row["vendor_hours"] is not None:
        v_paused = part["v_span"] - row["vendor_hours"]
    out: list[str] = []
    explained = [0.0, 0.0]
    known = [v_from is not None and v_to is not None and v_paused is not None] * 2
    if v_from is not None:
        d = part["d_start"]
        explained = [explained[0] + d[0], explained[1] + d[1]]
        if abs(d[0]) > tol:
            basis = ("our clock starts at the ticket's opening, standing in for a detection the records lack"
                     if standin else "our clock starts at the earlier of the supplier's detection and your notice "
                                     "(charter 3.19.3)")
            out.append(f"{basis}, {shown(d)} {'before' if d[0] > 0 else 'after'} the vendor's clock started "
                       f"({v_from})")
    elif standin:
        out.append("our clock starts at the ticket's opening, standing in for a detection the records lack")
    if v_to is not None:
        d = part["d_end"]
        explained = [explained[0] + d[0], explained[1] + d[1]]
        if abs(d[0]) > tol:
            out.append(f"our clock ends at the monitoring-confirmed restore (charter 3.19.4), {shown(d)} "
                       f"{'after' if d[0] > 0 else 'before'} the vendor's stopped ({v_to})")
    if reopens:
        out.append(f"re-opened {reopens} time(s): our clock runs to the last confirmed restore")
    named = [f"waits on you {_h(waits)}"] if waits > tol else []
    named += [f"agreed change windows {_h(changes)}"] if changes > tol else []
    ours = f"ours stops for {_h(ours_paused[0])} ({', '.join(named)})" if named else "ours stops for none"
    if v_paused is not None:
        d = ours_paused[0] - v_paused
        explained[0] -= d
        if abs(v_paused) <= tol:  # the vendor's clock never paused: none of its time is in a pause
            explained[1] -= ours_paused[1]
        else:
            known[1] = False  # how much of the vendor's pause fell in business hours is not known
        # A pause the vendor states, or one only inferred from its figure being short of its span.
        theirs = f"the vendor's clock stood paused {_h(v_paused)}" if not math.isnan(part["paused_ms"]) else \
            f"the vendor's figure leaves {_h(v_paused)} of its own clock uncounted (it states no pause)"
        if abs(d) > tol and v_paused > ours_paused[0] and reopens:
            # a re-opened ticket's clock stands still at the vendor while it stands resolved
            out.append(f"{theirs} where {ours}: time the vendor counted out that the charter counts (the time "
                       "the ticket stood resolved before it was re-opened, or a hold of the supplier's own)")
        elif abs(d) > tol and v_paused > ours_paused[0]:
            out.append(f"{theirs} where {ours}: a hold the vendor counted out that the charter counts (the "
                       "supplier's own time)")
        elif abs(d) > tol:
            out.append(f"{ours} where {theirs}: a wait or change window the charter excludes that the vendor "
                       "counted")
    elif named:
        out.append(f"ours excludes {', '.join(named)} (charter 3.19.5); the export does not say whether the "
                   "vendor's clock paused for them")
    apart = "the export does not say when the vendor's clock started and stopped, so the difference cannot be " \
            "taken apart"
    if own is not None and abs(own) > tol:
        explained[0] += own
        out.append(f"the vendor's own figure ({_h(row['vendor_hours'])}) is not its clock's span less its pause "
                   f"({_h(part['v_span'])} - {_h(v_paused)} = {_h(part['v_span'] - v_paused)}, from {v_from} to "
                   f"{v_to}): its records disagree with themselves by {_h(abs(own))}")
    # The calendar difference is taken apart in full by the records (or there is none), and the
    # vendor's calendar figure agrees with its own clock: only then can what the business parts
    # leave be put down to the vendor's schedule.
    calendar_explained = own is None or abs(own) <= tol
    if row["difference_hours"] is not None and abs(row["difference_hours"]) > tol:
        rest = row["difference_hours"] - explained[0]
        if not known[0]:
            out.append(apart)
            calendar_explained = False
        elif abs(rest) > tol:
            out.append(f"{_h(abs(rest))} of the calendar difference is not explained by the records")
            calendar_explained = False
    if row["difference_business_hours"] is not None and abs(row["difference_business_hours"]) > tol:
        schedule = f" ({part['schedule']})" if isinstance(part["schedule"], str) else ""
        if known[1] and not calendar_explained:
            # What the calendar parts leave is not known, so what the business parts leave cannot be
            # put down to the vendor's schedule: it may be the same unexplained time.
            rest = row["difference_business_hours"] - explained[1]
            if abs(rest) > tol:
                out.append(f"{rest:+.2f} bh of the business difference is not explained by the records either (its "
                           "calendar difference is not taken apart by them in full, so it is not put down to the "
                           "vendor's schedule)")
        elif known[1]:
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

"""Tickets to journal events: one shared path for every vendor format.

Each ticket becomes organic incident events under the id ``FORMAT:TICKET``:

- the clock start (charter 3.19.3): the supplier's detection and the partner's notice, each
  where the export holds it; only where it holds neither is the ticket's opening written as a
  detection that stands in for one, marked ``clock_start: "ticket-opened"``. A ticket with only
  a partner notice gets that notice and no detection;
- each wait on the partner and each agreed change window as a start and an end, merged per
  kind first so that overlapping holds from several sources count once;
- the restore (3.19.4): a restore counts only with monitoring evidence; every resolution and
  closure in the vendor's records that is not the confirmed restore itself is written as
  ``incident.ticket-closed``, and every re-open as ``incident.reopened``, so that the clock runs
  to the last confirmed restore; the vendor's own duration, where the export has one, goes on
  the last resolution (or on the restore, where that is the resolution) so a report can
  reconcile from the journal alone;
- a withdrawal or exclusion (3.19.5) that the map's [outcomes] or [notes] names, with the
  vendor's value as the reason;
- a ticket its records show closed (``states.yaml``) with no time for it: a closure whose
  ``instant`` is ``not-evidenced``, dated at the earliest it can have been (the clock start, or
  the last re-open), so that the figures read it "not evidenced", never open.

A ticket deleted, merged into another or not an incident (``Ticket.apart``) is counted apart and
never written. Every record of every file lands in one bucket of the import's ``Books``, and an
import that would write no ticket at all is refused: nothing in it could be measured.

Every ticket's events are replayed through the journal's rules of fact before any is written;
a ticket that breaks one is listed with the reason, never written, never dropped silently. A
ticket id that appears twice in an export stops the import before anything is written.

Re-importing is idempotent: a ticket whose events are already in the journal adds nothing;
one with new events (a restore since the last export) adds only those; one whose recorded
times differ is listed as a conflict and left for a person to correct.
"""

from __future__ import annotations

import datetime as dt
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter, ValidationError

from day60 import journal as jr
from day60.clock import to_utc_us
from day60.errors import InputError
from day60.events import Ident
from day60.imports.books import Books
from day60.imports.records import (
    FORMAT_NAMES,
    NoSeverity,
    Pause,
    RowProblem,
    Settings,
    Ticket,
    Times,
    Unmatched,
    Unreadable,
    clean,
)
from day60.imports.spool import Spool, Store

_IDENT = TypeAdapter(Ident)  # the journal's own rule for ids
Event = tuple[str, dt.datetime, dict[str, Any]]
FINDINGS = ("resolved_unconfirmed", "closed_unresolved", "closed_untimed", "open", "clock_from_opening",
            "clock_from_notice", "withdrawn", "excluded", "reopened", "distorted", "kept_pauses", "notes")


@dataclass
class Result:
    """What an import did, as data: the CLI prints it, tests read it. ``run`` makes the per-ticket
    lists ``spool.Spool``s (on disk past their first few thousand items, read as lists)."""

    format: str
    journal: str
    exports: list[dict[str, Any]]
    read: int = 0  # items read: each is imported, extended, unchanged, skipped, in conflict, unreadable or unmatched
    imported: list[str] | Spool = field(default_factory=list)
    events: int = 0
    unchanged: list[str] | Spool = field(default_factory=list)
    extended: list[str] | Spool = field(default_factory=list)
    conflicts: list[dict[str, Any]] | Spool = field(default_factory=list)
    unreadable: list[dict[str, Any]] | Spool = field(default_factory=list)
    skipped: list[dict[str, Any]] | Spool = field(default_factory=list)
    unmatched: list[dict[str, Any]] | Spool = field(default_factory=list)  # records for tickets the main export lacks
    files: list[dict[str, Any]] = field(default_factory=list)  # per export file: read, and each bucket's count
    states: dict[str, Any] = field(default_factory=dict)  # the state rules read (states.yaml: version, sha256)
    findings: dict[str, list[Any] | Spool] = field(default_factory=lambda: {k: [] for k in FINDINGS})
    note_patterns: list[dict[str, Any]] = field(default_factory=list)
    reconcile: dict[str, Any] = field(default_factory=dict)  # the reconciliation's totals
    head: dict[str, Any] = field(default_factory=dict)
    reconciliation: Any = None  # reconcile.Reconciliation: its rows, built as they are read

    def as_dict(self) -> dict[str, Any]:
        """The fields as a plain dict, sharing the lists (a year of tickets is not copied); the
        reconciliation's rows are not in it (``reconciliation.rows()`` builds them)."""
        out = dict(vars(self))
        del out["reconciliation"]
        return out


def ticket_events(t: Ticket, severity: int | None) -> list[Event]:
    """The events one ticket stands for, in the order they are written."""
    out: list[Event] = []
    sev = {} if severity is None else {"severity": severity}
    if t.detected is not None:
        out.append(("incident.detected", t.detected, {**sev, "source": "organic",
                                                      "note": f"detection: {clean(t.detected_label or 'the export')}"}))
    if t.partner_notice is not None:
        out.append(("incident.partner-notice", t.partner_notice, {**sev, "source": "organic"}))
    if not out and t.opened is not None:
        out.append(("incident.detected", t.opened, {**sev, "source": "organic", "clock_start": "ticket-opened",
                                                    "note": "clock start: the ticket's opening, standing in for a "
                                                            "detection time the export does not hold (charter "
                                                            "3.19.3)"}))
    if not out:
        raise RowProblem("has no opening, detection or partner-notice time, so its clock cannot start")
    holds: list[tuple[str, dt.datetime, dt.datetime | None, str]] = []
    for kind, name in (("wait", "wait"), ("change", "change-window")):
        for start, end, label in merged(p for p in t.pauses if p.kind == kind):
            holds.append((name, start, end, label))
            out.append((f"incident.{name}-start", start, {"note": clean(label)}))
            if end is not None:
                out.append((f"incident.{name}-end", end, {}))
    if t.communicated is not None:
        out.append(("incident.communicated", t.communicated, {}))
    clock = min(at for kind, at, _ in out if kind in ("incident.detected", "incident.partner-notice"))
    ends = endings(t, clock)
    out += ends
    for name, start, end, label in holds:
        later = next((at for kind, at, data in ends if kind in ("incident.restored", "incident.ticket-closed")
                      and at >= start and "instant" not in data), None)
        if end is None and later is not None:  # it would run to the restore: an end nobody recorded
            raise RowProblem(f"a {name} from {start.isoformat()} ({clean(label, 80)}) has no end, yet the ticket "
                             f"was restored or closed at {later.isoformat()}: when the {name} ended is not recorded, "
                             "so how much of the clock it stops cannot be told")
    restored = next((at for kind, at, _ in ends if kind == "incident.restored"), None)
    if t.outcome is not None and t.outcome[0] == "withdrawn" and restored is not None:
        raise RowProblem(f"is withdrawn ({clean(t.outcome[1], 120)}), yet a monitoring check confirmed its restore "
                         f"at {restored.isoformat()}: an incident the monitoring saw restored was not withdrawn as "
                         "not reproducible (charter 3.19.5), and which the export means cannot be told; a person "
                         "decides and logs it")
    if t.outcome is not None:
        kind, reason, when = t.outcome
        out.append((f"incident.{kind}", when or t.note_time() or out[0][1], {"reason": clean(reason, 300)}))
    return out


def merged(pauses: Iterable[Pause]) -> list[tuple[dt.datetime, dt.datetime | None, str]]:
    """Pauses of one kind as a union of intervals (one still open absorbs every later one)."""
    out: list[list[Any]] = []
    for p in sorted(pauses, key=lambda p: p.start):
        last = out[-1] if out else None
        if last is not None and (last[1] is None or p.start <= last[1]):
            if last[1] is not None and (p.end is None or p.end > last[1]):
                last[1] = p.end
            last[2][p.label] = None  # the labels as an ordered set: a list's 'in' made this quadratic
        else:
            out.append([p.start, p.end, {p.label: None}])
    return [(s, e, _labels(labels)) for s, e, labels in out]


def _labels(labels: dict[str, None]) -> str:
    """The vendor's words for one merged hold: the first few, and how many more (a journal field
    holds 200 characters, so a million continuation rows' labels are never joined whole)."""
    shown = [label for label, _ in zip(labels, range(5), strict=False)]
    more = len(labels) - len(shown)
    return "; ".join(shown) + (f"; and {more} more" if more else "")


def endings(t: Ticket, clock: dt.datetime | None = None) -> list[Event]:
    """Restores, resolutions, closures and re-opens in time order, as the journal's rules take
    them: the clock ends at the last confirmed restore that no re-open follows. A ticket its
    records show over with no time for it (``t.untimed``) ends in a closure whose time is not
    evidenced, dated at the earliest it can have been: ``clock`` (its clock start) or the last of
    these, whichever is later; after a confirmed restore that stands it adds nothing."""
    items: list[tuple[dt.datetime, int, str, str]] = []
    restore_at = t.restored or t.resolved
    if t.check and restore_at is not None:
        items.append((restore_at, 0, "restored", t.check))
    items += [(at, 0, "restored", check) for at, check in t.restores]
    items += [(at, 1, "resolved", state) for at, state in t.earlier]
    final = t.resolved if t.resolved is not None else t.closed
    if final is not None:
        items.append((final, 1, "resolved" if t.resolved is not None else "closed", t.state or "not stated"))
    items += [(at, 2, "reopened", why) for at, why in t.reopens]
    out: list[Event] = []
    state = "live"
    ordered = sorted(items, key=lambda i: (i[0], i[1]))
    last_restore = max((n for n, i in enumerate(ordered) if i[2] == "restored"), default=None)
    restored_at = {at for at, _o, what, _w in ordered if what == "restored"}
    for n, (at, _order, what, words) in enumerate(ordered):
        if what == "restored":
            data: dict[str, Any] = {"check": clean(words)}
            if n == last_restore and t.vendor is not None and (final is None or final == at):
                data.update(vendor_data(t))  # the restore is the resolution, or there is none: it carries their clock
            out.append(("incident.restored", at, data))
            state = "restored"
            continue
        if what != "reopened" and at in restored_at and state == "restored":
            continue  # resolved at the confirmed restore itself: the restore says it
        elif what == "reopened":
            if state == "live":
                t.notes.append(f"re-opened at {at.isoformat()} ({clean(words, 80)}) with no resolution before it "
                               "in the export: that re-open is left out")
                continue
            out.append(("incident.reopened", at, {"reason": clean(words, 300)}))
            state = "live"
        else:
            resolved = what == "resolved"
            data = {"state": clean(words, 120), "resolved": resolved}
            if at == final and t.vendor is not None:
                data.update(vendor_data(t))
            out.append(("incident.ticket-closed", at, data))
            if state == "live":
                state = "closed"
    if t.untimed is not None and final is None and state != "restored":
        words, resolved = t.untimed
        since = max([at for at, *_ in ordered] + ([clock] if clock is not None else []), default=None)
        if since is not None:
            out.append(("incident.ticket-closed", since, {"state": clean(words, 120), "resolved": resolved,
                                                          "instant": "not-evidenced"}))
    return out


def vendor_data(t: Ticket) -> dict[str, Any]:
    """The vendor's own clock for the ticket, as ticket-closed data fields."""
    v = t.vendor
    assert v is not None

    def ms(hours: float | None) -> int | None:
        return None if hours is None else round(hours * 3_600_000)

    data = {"vendor_measure": clean(v.measure, 300), "vendor_wall_ms": ms(v.wall_hours),
            "vendor_business_ms": ms(v.business_hours), "vendor_paused_ms": ms(v.paused_hours),
            "vendor_from": v.start.isoformat() if v.start else None,
            "vendor_to": v.end.isoformat() if v.end else None,
            "vendor_schedule": clean(v.schedule, 120) if v.schedule else None,
            "vendor_elapsed_ms": ms(v.elapsed_hours), "vendor_waits_ms": ms(v.waits_hours)}
    return {k: value for k, value in data.items() if value is not None}


def check_ticket(ident: str, events: list[tuple[str, dt.datetime, dict[str, Any]]]) -> jr.State:
    """Replay one ticket's events through the journal's rules of fact (RowProblem on a break);
    the state they leave, which the journal's index takes for a ticket new to it (``Batch.checked``)
    rather than replaying them a second time."""
    state = jr.State()
    for n, (kind, at, data) in enumerate(events, start=1):
        try:
            state.apply(jr.Effective(n, kind, ident, at, data, None))
        except InputError as exc:
            raise RowProblem(exc.problem.replace(f"event {n} ({kind} {ident})", kind)) from None
    return state


def ident_of(fmt: str, ref: str) -> str:
    ident = f"{fmt}:{ref.strip()}"
    try:
        if ref.strip():
            return _IDENT.validate_python(ident)
    except ValidationError:
        pass
    raise RowProblem(f"ticket id {ref[:40]!r} is empty, too long, or holds control or invisible characters")


def run(fmt: str, journal_path: Path, items: Iterable[Ticket | Unreadable | Unmatched], config: Settings,
        exports: list[dict[str, Any]], by: str, progress: Callable[[str, int], None] | None = None,
        books: Books | None = None, unrated: NoSeverity | None = None) -> Result:
    """Append every readable ticket in ``items`` to the journal, in one locked batch.
    ``progress(step, records read)``, when given, hears of each step ("journal", "tickets",
    "reconciling") and, while tickets are read, of every hundredth record. ``books``: the export
    files' records, which every item settles into (``books.Books``); checked before anything is
    written. ``unrated``, when given, counts the tickets the journal now holds whose severity
    field was empty (imported, extended or unchanged), whatever the format."""
    from day60 import engine, reading
    from day60.imports import notes, reconcile

    tell = progress or (lambda step, done: None)

    from day60.imports.states import shipped_source

    store = Store()  # the lists the import reports, on disk past their first few thousand items
    lists = {name: store.spool() for name in ("imported", "unchanged", "extended", "conflicts", "unreadable",
                                              "skipped", "unmatched")}
    result = Result(fmt, str(journal_path), exports, states=shipped_source(), **lists,
                    findings={k: store.spool() for k in FINDINGS})
    books = books if books is not None else Books([])
    appended = engine.Appended()
    unmapped: dict[str, str] = {}
    seen = _Seen()
    repeated: dict[str, list[str]] = {}
    times = Times(config)
    kept = store.spool()  # the journal's ids of the tickets imported, extended or unchanged
    tell("journal", 0)
    with reading.batch(journal_path) as batch:
        existing = _existing(batch.journal, fmt + ":")
        elsewhere = _other_formats(batch.journal, fmt)
        tell("tickets", 0)
        for item, ident, first in seen.blocks(fmt, items):
            result.read += 1
            if result.read % 100 == 0:
                tell("tickets", result.read)
            if isinstance(item, Unreadable):
                result.unreadable.append({k: v for k, v in vars(item).items() if k not in ("file", "rows")})
                if item.file:
                    books.add(item.file, "unreadable", item.rows)
                continue
            if isinstance(item, Unmatched):
                result.unmatched.append({"ticket": item.ref, "records": item.records, "what": item.what,
                                         "file": books.books[item.file].file if item.file in books.books else ""})
                books.add(item.file, "unmatched", item.records)
                continue
            if isinstance(ident, RowProblem):
                result.unreadable.append({"where": item.where, "ref": item.ref, "reason": str(ident)})
                books.settle(item, "unreadable")
                continue
            if first is not None:
                repeated.setdefault(ident, [first]).append(item.where)
                continue
            if repeated:
                continue  # the import stops once the export is read: nothing more to build
            if item.apart is not None:  # deleted, merged or not an incident: counted apart, never scored
                kind, words = item.apart
                result.skipped.append({"ticket": item.ref, "severity": item.severity, "where": item.where,
                                       "kind": kind, "reason": f"{kind}: {clean(words, 160)}"})
                books.settle(item, "skipped", kind)
                continue
            twin = elsewhere.get(ident.split(":", 1)[1])
            if twin is not None:
                result.conflicts.append({"ticket": item.ref, "where": item.where,
                                         "reason": f"the journal already holds this ticket as {twin}, imported from "
                                                   "another format: importing it again would count one incident "
                                                   "twice (if they are two incidents, log this one by hand under "
                                                   "its own id)"})
                books.settle(item, "conflicts")
                continue
            try:
                severity = _severity(item, config.severity, unmapped)
                if severity == "skip":
                    result.skipped.append({"ticket": item.ref, "severity": item.severity, "where": item.where,
                                           "kind": "severity", "reason": sys.intern(
                                               f"the severity map leaves out {clean(item.severity or '', 60)!r}")})
                    books.settle(item, "skipped", "left out by the severity map")
                    continue
                applied = notes.apply(item, config.notes, times)
                item.notes += applied.problems
                events = ticket_events(item, severity)
                checked = check_ticket(ident, events)
            except RowProblem as exc:
                result.unreadable.append({"where": item.where, "ref": item.ref, "reason": str(exc)})
                books.settle(item, "unreadable")
                continue
            have = existing.get(ident)
            keys = [(kind, to_utc_us(at)) for kind, at, _ in events] if have is not None else []
            if have is not None and not set(have) <= set(keys):
                result.conflicts.append({"ticket": item.ref, "where": item.where,
                                         "reason": "the journal already holds other times for it (seq "
                                                   f"{', '.join(str(s) for s in have.values())})"})
                books.settle(item, "conflicts")
                continue
            new = events if have is None else [e for e, key in zip(events, keys, strict=True) if key not in have]
            if have is not None and new:
                taken = _later_export(item, have, new)
                if taken:
                    result.conflicts.append({"ticket": item.ref, "where": item.where, "reason": taken})
                    books.settle(item, "conflicts")
                    continue
            if have is not None and not new:
                result.unchanged.append(item.ref)
            else:
                first = batch.seq + 1
                for kind, at, data in new:
                    batch.add(kind, ident, at.isoformat(), by, data)
                if have is None:  # every event of the ticket, checked from an empty state: one pass of the rules
                    batch.checked(ident, checked)
                clock = item.vendor
                appended.ticket(ident, first, new, *((clock.start, clock.end) if clock else ()))
                (result.imported if have is None else result.extended).append(item.ref)
            books.settle(item, "imported")
            kept.append(ident)
            if unrated is not None and severity is None:
                unrated.see(item)  # counted where the cell is empty, not where the map says unclassified
            _findings(result, item, events, applied)
        if repeated:
            shown = "; ".join(f"{i.split(':', 1)[1][:40]!r} ({', '.join(w[:60] for w in where[:3])})"
                              for i, where in list(repeated.items())[:5])
            raise InputError("EXPORT", f"{len(repeated)} ticket id(s) appear more than once: {shown}"
                                       f"{' and more' if len(repeated) > 5 else ''}",
                             "give each ticket once (an incremental or paged export can repeat a ticket that "
                             "changed while it ran: keep its latest copy); nothing was written")
        if unmapped:
            values = sorted(unmapped)
            raise InputError("--severity-map", f"no deal severity is given for {', '.join(map(repr, values[:8]))}"
                             f"{' and more' if len(values) > 8 else ''} (e.g. {unmapped[values[0]]})",
                             "map every vendor value: 'VALUE=1' to '=4', '=unclassified' or '=skip'; nothing "
                             "was written")
        books.check()
        result.files = books.rows()
        if not kept and not result.conflicts:  # (a ticket in conflict is in the journal, as it was)
            raise InputError("EXPORT", _nothing_imported(result),
                             "fix the export (or the map) and import again; nothing was written")
        result.events = batch.count
        result.head = {"seq": batch.seq, "hash": batch.head_hash}
        held, last_line = batch.journal, batch.prev_line
    give_back()  # what DuckDB's reader freed when it closed
    result.note_patterns = [{"event": p.event, "pattern": p.text, "matched": p.matched}
                            for p in config.notes.values()]
    # The journal as the import left it: what it held, read under the lock, and what was written.
    tell("reconciling", result.read)
    now = engine.after(held, appended, last_line, result.head)
    # what the reading and the writing held is written now, and its rows are in ``now``'s tables:
    # let it go before the figures are worked, which is where a million tickets' import peaks
    del held, appended, batch, existing, elsewhere
    give_back()
    result.reconciliation = reconcile.reconcile(now, only=kept)
    result.reconcile = result.reconciliation.summary
    return result


def give_back() -> None:
    """Hand the memory the C library's allocator holds free back to the system (glibc's
    ``malloc_trim``). DuckDB's reader and the batch free hundreds of megabytes for a year of
    tickets, which glibc would otherwise keep for the process while the figures are worked. Does
    nothing where the C library has no ``malloc_trim`` (macOS, musl, Windows)."""
    import ctypes

    try:
        trim = ctypes.CDLL(None).malloc_trim  # the C library the process runs on
    except (AttributeError, OSError, TypeError):
        return
    trim.argtypes, trim.restype = [ctypes.c_size_t], ctypes.c_int
    trim(0)


class _Seen:
    """The ticket ids an import has read and where it read each first, kept on disk (a private
    temporary SQLite file), not in memory: a million tickets' ids and places would hold a few
    hundred megabytes. Items are taken a block at a time; each block's ids are looked up at once."""

    BLOCK = 5_000  # items read ahead of the journal lines: what the import holds at once

    def __init__(self) -> None:
        import sqlite3

        self.con = sqlite3.connect("", isolation_level=None)  # "": a private file, deleted when closed
        self.con.executescript("PRAGMA cache_size=-4096; PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;"
                               "CREATE TABLE seen (id TEXT PRIMARY KEY, place TEXT NOT NULL) WITHOUT ROWID")

    def blocks(self, fmt: str, items: Iterable[Ticket | Unreadable | Unmatched]) -> Iterator[tuple[
            Any, str | RowProblem | None, str | None]]:
        """Each item with its ticket id (a RowProblem where it has none that the journal takes; None
        for an item that is not a ticket) and, where the id was read before, the place it was
        first read; in the order read."""
        from itertools import islice

        it = iter(items)
        try:
            while block := list(islice(it, self.BLOCK)):
                idents: list[str | RowProblem | None] = []
                for item in block:
                    if isinstance(item, (Unreadable, Unmatched)):
                        idents.append(None)
                        continue
                    try:
                        idents.append(ident_of(fmt, item.ref))
                    except RowProblem as exc:
                        idents.append(exc)
                earlier = self._places([i for i in idents if isinstance(i, str)])
                fresh: dict[str, str] = {}
                for item, ident in zip(block, idents, strict=True):
                    first = None
                    if isinstance(ident, str):
                        first = earlier.get(ident) or fresh.get(ident)
                        if first is None:
                            fresh[ident] = item.where
                    yield item, ident, first
                self.con.executemany("INSERT INTO seen VALUES (?, ?)", fresh.items())
        finally:
            self.con.close()

    def _places(self, idents: list[str]) -> dict[str, str]:
        """Where each of ``idents`` that an earlier block held was first read."""
        out: dict[str, str] = {}
        for lo in range(0, len(idents), 500):  # SQLite takes a few hundred parameters a statement
            part = idents[lo:lo + 500]
            out.update(self.con.execute(f"SELECT id, place FROM seen WHERE id IN ({','.join('?' * len(part))})",
                                        part).fetchall())
        return out


def _nothing_imported(r: Result) -> str:
    """Why an import that would put no ticket in the journal is refused, in one line: the counts,
    and the first reason of each kind."""
    records = sum(int(f.get("read", 0)) for f in r.files)  # the records of the files, as their table counts them
    parts = [f"{records} record(s) read from {len(r.files)} file(s), making {r.read} item(s) (tickets, unreadable "
             "rows, record groups), and not one ticket imported"]
    if r.unreadable:
        u = r.unreadable[0]
        parts.append(f"{len(r.unreadable)} unreadable (first: {clean(u['where'], 60)}: {clean(u['reason'], 300)})")
    if r.skipped:
        first = r.skipped[0]
        parts.append(f"{len(r.skipped)} left out (first: {first['ticket']}: {clean(first['reason'], 80)})")
    if r.conflicts:
        parts.append(f"{len(r.conflicts)} in conflict with the journal (first: {r.conflicts[0]['ticket']})")
    if r.unmatched:
        parts.append(f"{len(r.unmatched)} record group(s) for tickets the export does not hold")
    if not r.read:
        parts.append("the export holds no ticket (if the supplier had none in the period, say so without an "
                     "import)")
    return "; ".join(parts)


def _other_formats(journal: jr.Journal, fmt: str) -> dict[str, str]:
    """Ticket ids the journal holds under another import format: ticket -> incident id."""
    prefixes = tuple(f"{name}:" for name in FORMAT_NAMES if name != fmt)
    if journal.incidents is not None:
        where = " OR ".join(f"starts_with(id, '{p}')" for p in prefixes)  # the format names, never input
        ids: Iterable[str] = journal.incidents.query(f"SELECT DISTINCT id FROM incidents WHERE {where}")["id"]
    else:
        ids = {e["id"] for e in journal.events if e["kind"].startswith("incident.") and e["id"].startswith(prefixes)}
    return {ident.split(":", 1)[1]: ident for ident in ids}


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


def _later_export(t: Ticket, have: dict[tuple[str, int], int], new: list[Event]) -> str | None:
    """What a later export adds to a ticket the journal already holds. Once the journal counts its
    confirmed restore, a withdrawal or exclusion arriving later would take it out of the figure:
    that is a conflict for a person to decide (returned as the reason), never an extension. A
    wait or change window it adds inside the clock already recorded shortens that figure: it is
    written, and said in the ticket's notes."""
    restores = [at for (kind, at) in have if kind == "incident.restored"]
    if restores:
        for kind, _at, _data in new:
            if kind in ("incident.withdrawn", "incident.excluded"):
                return (f"the journal already counts its restore (seq {have[('incident.restored', max(restores))]}), "
                        f"and this export marks it {kind.split('.')[1]}: taking a counted ticket out of the figure "
                        "is for a person to decide and log, not for a later export")
    ended = max((at for (kind, at) in have if kind in ("incident.restored", "incident.ticket-closed")), default=None)
    for kind, at, data in new:
        if ended is not None and kind.endswith("-start") and kind in ("incident.wait-start",
                                                                       "incident.change-window-start") \
                and to_utc_us(at) < ended:
            t.notes.append(f"this export adds a {kind[9:-6]} from {at.isoformat()} ({data.get('note', '')[:80]}) "
                           "inside the clock the journal already held: the figure for this ticket is shorter than "
                           "after the earlier import")
    return None


def _severity(t: Ticket, table: dict[str, str], unmapped: dict[str, str]) -> int | str | None:
    raw = (t.severity or "").strip()
    if raw not in table:
        if raw == "":
            return None  # the records give no severity: unclassified, judged at the strictest target
        unmapped.setdefault(raw, t.where)
        return None
    value = table[raw]
    return None if value == "unclassified" else "skip" if value == "skip" else int(value)


def _findings(result: Result, t: Ticket, events: list[Event], applied: Any) -> None:
    f = result.findings
    kinds = [kind for kind, _, _ in events]
    stands = _restore_stands(events)
    last_end = next((e for e in reversed(events) if e[0] in ("incident.restored", "incident.ticket-closed",
                                                             "incident.reopened")), None)
    if t.outcome is not None:
        f[t.outcome[0]].append({"ticket": t.ref, "reason": events[-1][2]["reason"]})
    elif stands is None and (last_end is None or last_end[0] == "incident.reopened"):
        f["open"].append({"ticket": t.ref, "state": t.state or "not stated"})
    elif stands is None and last_end[2].get("instant") == "not-evidenced":
        f["closed_untimed"].append({"ticket": t.ref, "state": last_end[2]["state"],
                                    "not_before": last_end[1].isoformat()})
    elif stands is None:
        key = "resolved_unconfirmed" if last_end[2].get("resolved") else "closed_unresolved"
        f[key].append({"ticket": t.ref, "at": last_end[1].isoformat(), "state": last_end[2].get("state", "")})
    if events[0][2].get("clock_start") == "ticket-opened":
        f["clock_from_opening"].append(t.ref)
    elif events[0][0] == "incident.partner-notice" and "incident.detected" not in kinds:
        f["clock_from_notice"].append(t.ref)
    reopens = kinds.count("incident.reopened")
    if reopens or t.reopen_count:
        f["reopened"].append({"ticket": t.ref, "reopens": reopens, "vendor_count": t.reopen_count,
                              "last_restore": stands.isoformat() if stands else None})
    why = list(t.distorted)
    first_end = next((at for kind, at, _ in events if kind in ("incident.restored", "incident.ticket-closed")), None)
    if t.ack_known and first_end is not None and (t.acknowledged is None or t.acknowledged > first_end):
        why.append("resolved before anyone acknowledged it" if t.acknowledged is None else
                   f"resolved at {first_end.isoformat()}, before it was acknowledged ({t.acknowledged.isoformat()})")
    if t.auto_resolved:
        why.append(f"resolved by an integration ({clean(t.auto_resolved, 120)})")
    if reopens or t.reopen_count:
        why.append(f"re-opened {max(reopens, t.reopen_count or 0)} time(s)")
    if why:
        f["distorted"].append({"ticket": t.ref, "why": why})
    for p in t.pauses:
        if p.kind == "kept":
            hours = None if p.end is None else (p.end - p.start).total_seconds() / 3600
            f["kept_pauses"].append({"ticket": t.ref, "label": p.label, "start": p.start.isoformat(),
                                     "hours": hours})
    for event, text in applied.events:
        f["notes"].append({"ticket": t.ref, "note": f"a note read as {event}: {text}"})
    for note in t.notes:
        f["notes"].append({"ticket": t.ref, "note": note})


def _restore_stands(events: list[Event]) -> dt.datetime | None:
    """The last confirmed restore, if no re-open follows it."""
    last = None
    for kind, at, _ in events:
        if kind == "incident.restored":
            last = at
        elif kind == "incident.reopened":
            last = None
    return last

"""Any spreadsheet saved as CSV, read through a column map (``--map MAP.toml``).

The map's [columns] names the spreadsheet's columns (see ``KEYS``): ``id`` (required) and, as
the sheet has them, ``severity``; the clock start ``opened``, ``detected`` and
``partner_notice``; ``communicated`` and ``acknowledged``; ``resolved`` (several resolutions
separated by ";", the last being the final one), ``reopened`` (re-open times, ";"), ``restored``
(the monitoring-confirmed restore) with ``check`` (the check that confirmed it, required with
``restored``: a restore time with an empty check is a resolution, not a confirmed restore; a
check with no restore time confirms the restore at the resolution), ``closed``, ``state``
and ``outcome`` (matched against [outcomes]: withdrawn, or excluded with the contract's
reason), ``resolved_by`` (matched against [integrations]); ``pause_start``, ``pause_end`` and
``pause_kind`` (several pauses in one cell are separated by ";", in the same order in each
column); ``note`` and ``note_at`` (read with [notes]); ``vendor_hours``,
``vendor_business_hours``, ``vendor_start`` and ``vendor_end`` (the sheet's own figure and its
clock; [sla] calendar = "business" says ``vendor_hours`` is business hours, set beside ours).
[times] states the zone of times without an offset and, if they are not ISO 8601, their
strptime format. [pauses] names what each ``pause_kind`` value is: wait, change or kept.
Without a ``pause_kind`` column every pause is a wait on the partner.

Continuation rows: a row that repeats an earlier row's id, and whose other cells are empty or
the same as that row's, except the pause, note and re-open cells, adds its pauses, notes and
re-opens to that ticket. A repeated id with any other cell different is a second ticket under
the same id, and stops the import naming both rows.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from day60.errors import InputError
from day60.imports import states
from day60.imports.books import Books
from day60.imports.locales import LocalisedTimes, decimal_of, figure
from day60.imports.records import (
    PAUSE_KINDS,
    Pause,
    RowProblem,
    Settings,
    Ticket,
    Times,
    Unreadable,
    VendorClock,
    check_columns,
    confirm,
    csv_rows,
    number,
    require_columns,
)

DESCRIPTION = ("any CSV with --map MAP.toml naming its columns (continuation rows add pauses, notes and re-opens "
               "to their ticket), the zone of naive times and the pause kinds")
KEYS = ("id", "severity", "opened", "detected", "partner_notice", "communicated", "acknowledged", "resolved",
        "reopened", "restored", "check", "closed", "state", "outcome", "resolved_by", "pause_start", "pause_end",
        "pause_kind", "note", "note_at", "vendor_hours", "vendor_business_hours", "vendor_start", "vendor_end")
SEVERITY_FIELD: str | None = None  # no severity column unless the map names one
CONTINUED = ("pause_start", "pause_end", "pause_kind", "note", "note_at", "reopened")  # what a continuation row adds
TEXT = ("note", "check", "state", "outcome")  # cells that may run over several lines


def read(paths: list[Path], settings: Settings, notes: list[str], books: Books) -> Iterator[Ticket | Unreadable]:
    cols = settings.columns
    check_columns(settings, KEYS, "csv")
    if "id" not in cols:
        raise InputError("--map", "the csv format needs a map naming at least the id column",
                         "write [columns] id = \"...\" and the time columns (as in "
                         "'day60 examples import-csv --copy DIR')")
    if not {"opened", "detected", "partner_notice"} & set(cols):
        raise InputError("--map columns", "name no clock start", "map opened, detected or partner_notice")
    if ("pause_start" in cols) != ("pause_end" in cols):
        raise InputError("--map columns", "name a pause start without an end, or an end without a start",
                         "map both pause_start and pause_end")
    _check_sla(settings)
    times = LocalisedTimes(settings)
    rules = states.rules("csv", settings.states)
    for p in paths:
        key = books.key(p)
        used = list(cols.values())
        header, rows = csv_rows(p, "EXPORT", used=used, free=[cols[k] for k in TEXT if k in cols], how=settings.files)
        require_columns(header, used, p, "EXPORT", "the map", settings.files.found.get(str(p)))
        layout = settings.files.found.get(str(p))
        decimal = decimal_of(layout.delimiter) if layout is not None and layout.kind != "xlsx" else None
        first: dict[str, tuple[str, dict[str, str], Ticket | None, str | None]] = {}
        order: list[str] = []
        repeated: list[str] = []
        continued: dict[str, int] = {}  # continuation rows read into a ticket that is unreadable itself
        for n, row in rows:
            books.read(p)
            where = f"{p.name} row {n}"
            if "\0problem" in row:
                yield Unreadable(where, None, row["\0problem"], key)
                continue
            ref = (row[cols["id"]] or "").strip()
            held = first.get(ref) if ref else None
            if held is not None:
                if not _continues(row, held[1], cols):
                    repeated.append(f"{ref[:40]!r} ({held[0]} and row {n})")
                elif held[2] is not None:
                    try:
                        _add(held[2], row, times, settings, f"row {n}")
                        held[2].attached[key] = held[2].attached.get(key, 0) + 1
                    except RowProblem as exc:
                        yield Unreadable(where, ref, f"continuation row of {ref[:40]!r}, not read: {exc}", key)
                else:
                    continued[ref] = continued.get(ref, 0) + 1
                continue
            try:
                ticket, problem = _ticket(row, where, times, settings, rules, decimal), None
                ticket.file = key
            except RowProblem as exc:
                ticket, problem = None, str(exc)
            if ref:
                first[ref] = (where, row, ticket, problem)
                order.append(ref)
            else:
                yield Unreadable(where, row.get(cols["id"]), problem or "has no ticket id", key)
        if repeated:
            raise InputError("EXPORT", f"{p}: {len(repeated)} ticket id(s) appear on rows that differ: "
                                       f"{'; '.join(repeated[:5])}{' and more' if len(repeated) > 5 else ''}",
                             "give each ticket once; a row that only adds a pause or a note repeats the id and "
                             "leaves its other cells empty; nothing was written")
        for ref in order:
            where, row, ticket, problem = first[ref]
            yield ticket if ticket is not None else Unreadable(where, ref, problem or "", key,
                                                               1 + continued.get(ref, 0))


def _check_sla(settings: Settings) -> None:
    """The map's [sla]: a sheet has no SLA records to pick by name, so ``name`` is a key this format
    does not read (refused, never ignored); ``calendar`` says which clock the sheet's
    ``vendor_hours`` runs on, so ``"business"`` with a ``vendor_business_hours`` column too would
    make two business figures of one ticket."""
    if "name" in settings.sla:
        raise InputError("--map sla.name", "is not a key the csv format reads: a sheet holds its own hours, not "
                                           "SLA records to pick one from by name",
                         "leave it out; map the sheet's hours column as vendor_hours (and say its calendar in "
                         "[sla] calendar) or vendor_business_hours")
    if settings.sla.get("calendar") == "business" and "vendor_business_hours" in settings.columns:
        raise InputError("--map sla.calendar", "says the sheet's vendor_hours column holds business hours, and "
                                               "vendor_business_hours is mapped too: two business figures for one "
                                               "ticket", "map the elapsed hours as vendor_hours with [sla] "
                                                         "calendar = \"24x7\" (or leave calendar out), or leave "
                                                         "vendor_business_hours out")


def _continues(row: dict[str, str], main: dict[str, str], cols: dict[str, str]) -> bool:
    """A row that adds only pauses, notes or re-opens to the ticket on ``main``."""
    return all(not (row[c] or "").strip() or (row[c] or "").strip() == (main[c] or "").strip()
               for key, c in cols.items() if key not in CONTINUED)


def _ticket(row: dict[str, str], where: str, times: Times, settings: Settings, rules: states.Rules,
            decimal: str | None = ".") -> Ticket:
    cols = settings.columns

    def cell(key: str) -> str | None:
        return row[cols[key]] if key in cols else None

    def at(key: str):
        return times.read(cell(key), cols.get(key, key))

    t = Ticket(cell("id") or "", where, cell("severity"), at("opened"), detected=at("detected"),
               detected_label=f"the {cols.get('detected')} column", partner_notice=at("partner_notice"),
               communicated=at("communicated"), closed=at("closed"), state=(cell("state") or "").strip())
    resolutions = [times.required(v, f"{cols['resolved']} {i}") for i, v in enumerate(_split(cell("resolved")), 1)]
    if resolutions:
        t.earlier = [(r, "resolved, then re-opened") for r in resolutions[:-1]]
        t.resolved = resolutions[-1]
    restored, check = at("restored"), (cell("check") or "").strip() or None
    if restored is not None and check is None:
        t.resolved = t.resolved or restored  # a restore no check confirmed is a resolution, no more
        t.notes.append(f"{cols['restored']} has a time but {cols['check']} names no check: not a confirmed restore")
    else:
        confirm(t, restored, check, cols.get("restored"))
    if "acknowledged" in cols:
        t.ack_known, t.acknowledged = True, at("acknowledged")
    resolver = (cell("resolved_by") or "").strip()
    if resolver and resolver in settings.integrations:
        t.auto_resolved = f"{cols['resolved_by']} {resolver!r}"
    found = settings.outcome("the sheet's", (cols.get("outcome", "outcome"), cell("outcome")),
                             (cols.get("state", "state"), cell("state")))
    if found:
        t.outcome = (found[0], found[1], None)
    standing = rules.status(t.state)
    if standing == states.DELETED:
        t.apart = (states.DELETED, f"{cols['state']} {t.state!r}, which the map's [states] deleted names")
        return t
    # the sheet's hours as its locale writes them (1.234,5 or 1,234.5): ``locales.figure``
    wall = number(figure(cell("vendor_hours"), cols.get("vendor_hours", ""), decimal), cols.get("vendor_hours", ""))
    business = number(figure(cell("vendor_business_hours"), cols.get("vendor_business_hours", ""), decimal),
                      cols.get("vendor_business_hours", ""))
    said = ", ".join(cols[k] for k in ("vendor_hours", "vendor_business_hours") if k in cols)
    if settings.sla.get("calendar") == "business":  # the map says vendor_hours runs on business hours
        wall, business = None, wall
        said += ": business hours, as the map's [sla] calendar says"
    if wall is not None or business is not None:
        t.vendor = VendorClock(f"the sheet's own hours ({said})", wall, business, at("vendor_start"),
                               at("vendor_end"))
    _add(t, row, times, settings, "")
    if standing != "open":  # over, as its state says: with no time for it, at a time not evidenced
        t.ended(f"{cols['state']} {t.state}", standing == "resolved")
    elif rules.is_open(t.state):
        _open_now(t, f"{cols['state']} {t.state}")
    return t


def _open_now(t: Ticket, words: str) -> None:
    """The sheet's state says open now (states.yaml's csv open, or the map's [states] open), so a
    resolution or restore the row holds with no re-open after it was followed by one the sheet
    does not date: written at that time, the earliest it can have been, with its reason saying the
    time is not evidenced, so the ticket is open at the close and its clock runs on (charter 3.19.4)."""
    ends = [at for at in (t.resolved, t.restored, *(at for at, _ in t.earlier)) if at is not None]
    last = max(ends, default=None)
    if last is None or any(at >= last for at, _ in t.reopens):
        return
    t.reopens.append((last, f"{words} at export after the resolution at {last.isoformat()}: re-opened at a time "
                            "not evidenced, dated at that resolution, the earliest it can have been"))
    t.notes.append(f"{words} at export, though resolved at {last.isoformat()}: open, re-opened at a time not "
                   "evidenced (the sheet dates no re-open after it), written at that resolution")


def _add(t: Ticket, row: dict[str, str], times: Times, settings: Settings, origin: str) -> None:
    """The pauses, notes and re-opens of one row (a ticket's own, or a continuation row's)."""
    cols = settings.columns

    def cell(key: str) -> str | None:
        return row[cols[key]] if key in cols else None

    suffix = f" ({origin})" if origin else ""
    for i, value in enumerate(_split(cell("reopened")), start=1):
        t.reopens.append((times.required(value, f"{cols['reopened']} {i}"), f"the sheet's {cols['reopened']}"
                                                                            f"{suffix}"))
    note = (cell("note") or "").strip()
    if note:
        t.note_stream.append((times.read(cell("note_at"), cols.get("note_at", "note_at")), note))
    if "pause_start" not in cols:
        return
    starts, ends = _split(cell("pause_start")), _split(cell("pause_end"))
    kinds = _split(cell("pause_kind")) if "pause_kind" in cols else ["wait"] * len(starts)
    if not len(starts) == len(ends) == len(kinds):
        raise RowProblem(f"has {len(starts)} pause start(s), {len(ends)} end(s) and {len(kinds)} kind(s); "
                         "list them in the same order, separated by ';'")
    for i, (s, e, k) in enumerate(zip(starts, ends, kinds, strict=True), start=1):
        kind = settings.pauses.get(k, k if "pause_kind" not in cols else None)
        if kind not in PAUSE_KINDS:
            raise RowProblem(f"pause {i} kind {k[:30]!r} is not named in the map's [pauses]")
        start = times.read(s, f"{cols['pause_start']} {i}")
        if start is None:
            raise RowProblem(f"pause {i} has no start")
        t.pauses.append(Pause(kind, start, times.read(e, f"{cols['pause_end']} {i}"), f"{k}{suffix}"))


def _split(value: str | None) -> list[str]:
    return [part.strip() for part in (value or "").split(";")] if (value or "").strip() else []

"""Any spreadsheet saved as CSV, read through a column map (``--map MAP.toml``).

The map's [columns] names the spreadsheet's columns: ``id`` (required), ``severity``,
``opened``, ``detected``, ``partner_notice``, ``communicated``, ``restored``, ``check`` (the
monitoring check that confirmed the restore), ``closed``, ``state``, ``pause_start``,
``pause_end`` and ``pause_kind`` (several pauses in one cell are separated by ";", in the same
order in each column), ``vendor_hours`` and ``vendor_business_hours``. [times] states the zone
of times without an offset and, if they are not ISO 8601, their strptime format. [pauses]
names what each ``pause_kind`` value is: wait, change or kept. Without a ``pause_kind``
column every pause is a wait on the partner.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from day60.errors import InputError
from day60.imports.records import (
    PAUSE_KINDS,
    Pause,
    RowProblem,
    Settings,
    Ticket,
    Times,
    Unreadable,
    csv_rows,
    number,
    require_columns,
)

DESCRIPTION = "any CSV with --map MAP.toml naming its columns, the zone of naive times and the pause kinds"
KEYS = ("id", "severity", "opened", "detected", "partner_notice", "communicated", "restored", "check", "closed",
        "state", "pause_start", "pause_end", "pause_kind", "vendor_hours", "vendor_business_hours")


def read(paths: list[Path], settings: Settings, notes: list[str]) -> Iterator[Ticket | Unreadable]:
    cols = settings.columns
    unknown = sorted(set(cols) - set(KEYS))
    if unknown:
        raise InputError(f"--map columns.{unknown[0]}", "is not a column the csv format reads",
                         f"[columns] takes: {', '.join(KEYS)}")
    if "id" not in cols:
        raise InputError("--map", "the csv format needs a map naming at least the id column",
                         "write [columns] id = \"...\" and the time columns (see day60/imports/examples/map.toml)")
    if not {"opened", "detected", "partner_notice"} & set(cols):
        raise InputError("--map columns", "name no clock start", "map opened, detected or partner_notice")
    if ("pause_start" in cols) != ("pause_end" in cols):
        raise InputError("--map columns", "name a pause start without an end, or an end without a start",
                         "map both pause_start and pause_end")
    times = Times(settings)
    for p in paths:
        header, rows = csv_rows(p, "EXPORT")
        require_columns(header, list(cols.values()), p, "EXPORT", "the map")
        for n, row in rows:
            where = f"{p.name} row {n}"
            if "\0problem" in row:
                yield Unreadable(where, None, row["\0problem"])
                continue
            try:
                yield _ticket(row, where, times, settings)
            except RowProblem as exc:
                yield Unreadable(where, row.get(cols["id"]), str(exc))


def _ticket(row: dict[str, str], where: str, times: Times, settings: Settings) -> Ticket:
    cols = settings.columns

    def cell(key: str) -> str | None:
        return row[cols[key]] if key in cols else None

    def at(key: str):
        return times.read(cell(key), cols.get(key, key))

    t = Ticket(cell("id") or "", where, cell("severity"), at("opened"), detected=at("detected"),
               detected_label=f"the {cols.get('detected')} column", partner_notice=at("partner_notice"),
               communicated=at("communicated"), resolved=at("restored"), closed=at("closed"),
               state=(cell("state") or "").strip(), check=(cell("check") or "").strip() or None)
    t.vendor_hours = number(cell("vendor_hours"), cols.get("vendor_hours", ""))
    t.vendor_business_hours = number(cell("vendor_business_hours"), cols.get("vendor_business_hours", ""))
    if t.vendor_hours is not None or t.vendor_business_hours is not None:
        t.vendor_label = "the spreadsheet's own hours"
    if "pause_start" in cols:
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
            t.pauses.append(Pause(kind, start, times.read(e, f"{cols['pause_end']} {i}"), f"{k}"))
    return t


def _split(value: str | None) -> list[str]:
    return [part.strip() for part in (value or "").split(";")] if (value or "").strip() else []

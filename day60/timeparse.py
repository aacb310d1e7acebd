"""Turning what a person typed into an aware instant, refusing anything ambiguous."""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

from day60.errors import InputError

_FIX = "write it as ISO 8601, e.g. 2026-03-02T09:00 or 2026-03-02T09:00+00:00, or 'now'"


def now() -> dt.datetime:
    """The current instant, aware, to the microsecond."""
    return dt.datetime.now(dt.UTC)


def parse_instant(
    text: str,
    tz: ZoneInfo | None,
    field: str = "--at",
    now_value: dt.datetime | None = None,
) -> dt.datetime:
    """Read ``text`` as an instant.

    ``now`` gives ``now_value`` (stamped by the caller at the keypress) or the current time.
    A time with an offset is taken as written. A local time is read in ``tz``; one that does
    not exist or exists twice there is refused with its candidates named; with no ``tz`` a
    local time is refused rather than guessed.
    """
    raw = (text or "").strip()
    if raw.lower() == "now":
        stamp = now_value or now()
        return stamp.astimezone(tz) if tz else stamp
    try:
        value = dt.datetime.fromisoformat(raw.replace(" ", "T", 1) if " " in raw else raw)
    except ValueError as exc:
        raise InputError(field, f"{raw!r} is not a date and time", _FIX) from exc
    if value.tzinfo is not None:
        return value
    if tz is None:
        raise InputError(field, f"{raw!r} has no offset and there is no timezone to read it in",
                         "add an offset such as +00:00")
    return localize(value, tz, field)


def localize(naive: dt.datetime, tz: ZoneInfo, field: str = "--at") -> dt.datetime:
    """Attach ``tz`` to a wall-clock time, refusing a skipped or repeated local time."""
    first = naive.replace(tzinfo=tz, fold=0)
    second = naive.replace(tzinfo=tz, fold=1)
    exists = first.astimezone(dt.UTC).astimezone(tz).replace(tzinfo=None) == naive
    label = naive.isoformat(timespec="minutes" if naive.second == 0 else "seconds")
    if not exists:
        before = first.astimezone(dt.UTC).astimezone(tz)
        after = second.astimezone(dt.UTC).astimezone(tz)
        options = sorted({before.isoformat(), after.isoformat()})
        raise InputError(field, f"{label} does not exist in {tz.key} (the clocks jump past it)",
                         f"give an offset; the nearest real instants are {' and '.join(options)}")
    if first.utcoffset() != second.utcoffset():
        raise InputError(field, f"{label} happens twice in {tz.key}",
                         f"give the offset: {first.isoformat()} (first) or {second.isoformat()} (second)")
    return first

"""Turning what a person typed into an aware instant, refusing anything ambiguous."""

from __future__ import annotations

import datetime as dt
import re
from zoneinfo import ZoneInfo

from day60.errors import InputError

_FIX = "write it as ISO 8601, e.g. 2026-03-02T09:00 or 2026-03-02T09:00+00:00, or 'now'"
# Instants a journal may hold. Anything outside is a typing error, and once appended it could
# never be removed, so it is refused at the door (and on reading, should a file hold one).
EARLIEST = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
LATEST = dt.datetime(2200, 1, 1, tzinfo=dt.UTC)
RANGE_TEXT = "between 1970-01-01 and 2200-01-01 (UTC)"
_ISO_CHARS = re.compile(r"^[0-9T:.,+\-Z ]{4,40}$")  # ASCII digits only: no look-alike numerals


def in_range(value: dt.datetime) -> bool:
    """True when an aware instant lies inside the range a journal accepts."""
    if not EARLIEST.year <= value.year <= LATEST.year:  # checked first: converting year 1 can overflow
        return False
    return EARLIEST <= value < LATEST


def parse_iso(text: object) -> dt.datetime:
    """Strict ISO 8601 (ASCII digits, inside the accepted range); ValueError naming the fault."""
    if not isinstance(text, str) or not _ISO_CHARS.match(text):
        raise ValueError("must be an ISO 8601 date and time in ASCII digits")
    try:
        value = dt.datetime.fromisoformat(text)
    except ValueError as exc:
        raise ValueError("must be an ISO 8601 date and time") from exc
    if value.tzinfo is not None and not in_range(value):
        raise ValueError(f"must lie {RANGE_TEXT}")
    return value


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
    shown = raw if len(raw) <= 40 else raw[:20] + f"... ({len(raw)} characters)"
    if not _ISO_CHARS.match(raw):
        raise InputError(field, f"{shown!r} is not a date and time", _FIX)
    try:
        value = dt.datetime.fromisoformat(raw.replace(" ", "T", 1) if " " in raw else raw)
    except ValueError as exc:
        raise InputError(field, f"{shown!r} is not a date and time", _FIX) from exc
    if value.tzinfo is None:
        if tz is None:
            raise InputError(field, f"{raw!r} has no offset and there is no timezone to read it in",
                             "add an offset such as +00:00")
        if not EARLIEST.year <= value.year <= LATEST.year:
            raise InputError(field, f"{raw!r} is not {RANGE_TEXT}", "check the year")
        value = localize(value, tz, field)
    if not in_range(value):
        raise InputError(field, f"{raw!r} is not {RANGE_TEXT}", "check the year")
    return value


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

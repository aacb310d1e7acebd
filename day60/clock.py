"""Business calendars and business-time arithmetic.

A calendar turns into a sorted list of non-overlapping working intervals on the real time
line (epoch microseconds, UTC). Business time up to an instant is a running total over those
intervals, so the business time between two instants is a difference of two look-ups: exact,
additive by construction, and vectorised with ``numpy.searchsorted``.
"""

from __future__ import annotations

import datetime as dt
import re
from bisect import bisect_right
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from day60.errors import InputError

if TYPE_CHECKING:
    import numpy as np

UTC = dt.UTC
WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
_EPOCH = dt.datetime(1970, 1, 1, tzinfo=UTC)
_US = dt.timedelta(microseconds=1)
_SPAN = re.compile(r"^([0-9]{2}):([0-9]{2})-([0-9]{2}):([0-9]{2})$")  # ASCII digits only
_DATE_MARGIN = 2  # local days of intervals kept either side of a requested range


@dataclass(frozen=True)
class Span:
    """Working time on one local date: minutes from midnight; ``end <= start`` crosses midnight."""

    start: int
    end: int

    @property
    def crosses_midnight(self) -> bool:
        return self.end <= self.start

    def label(self) -> str:
        return f"{_hhmm(self.start)}-{_hhmm(self.end)}"


def _hhmm(minutes: int) -> str:
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def parse_span(text: str, field: str) -> Span:
    """Parse ``"HH:MM-HH:MM"``; ``24:00`` may only end a span."""
    m = _SPAN.match(text.strip()) if isinstance(text, str) else None
    if not m:
        raise InputError(field, f"span {str(text)[:40]!r} is not HH:MM-HH:MM", 'write it like "09:00-17:30"')
    h1, m1, h2, m2 = (int(g) for g in m.groups())
    if h1 > 23 or m1 > 59:
        raise InputError(field, f"span {text!r} starts at an impossible time", "use 00:00 to 23:59")
    if m2 > 59 or h2 > 24 or (h2 == 24 and m2 != 0):
        raise InputError(field, f"span {text!r} ends at an impossible time", "use 00:00 to 24:00")
    start, end = h1 * 60 + m1, h2 * 60 + m2
    if start == end:
        raise InputError(field, f"span {text!r} is empty", "give a span with different ends")
    return Span(start, end)


def to_utc_us(value: dt.datetime, field: str = "time") -> int:
    """An aware datetime (stdlib or pendulum) as integer epoch microseconds."""
    if type(value) is dt.datetime and value.tzinfo is not None and value.utcoffset() is not None:
        return (value - _EPOCH) // _US  # a stdlib datetime subtracts through UTC exactly
    if not isinstance(value, dt.datetime):
        raise InputError(field, f"{value!r} is not a date and time", "pass an aware datetime")
    if value.tzinfo is None or value.utcoffset() is None:
        raise InputError(field, f"{value.isoformat()} has no timezone", "give an offset or a zone")
    u = value.astimezone(UTC)
    # Rebuilt as a plain datetime: pendulum's own subtraction returns a Duration that cannot be
    # divided by a timedelta.
    plain = dt.datetime(u.year, u.month, u.day, u.hour, u.minute, u.second, u.microsecond, tzinfo=UTC)
    return (plain - _EPOCH) // _US


def wall_seconds(start: dt.datetime, end: dt.datetime) -> float:
    """Real elapsed seconds. Never subtract aware datetimes directly: Python compares two
    datetimes that share a tzinfo object by their wall clocks, which is wrong across DST."""
    return (to_utc_us(end, "end") - to_utc_us(start, "start")) / 1_000_000


def from_utc_us(us: int, tz: dt.tzinfo = UTC) -> dt.datetime:
    return (_EPOCH + dt.timedelta(microseconds=int(us))).astimezone(tz)


def resolve_local(day: dt.date, minutes: int, tz: ZoneInfo) -> int:
    """The first instant at which the local clock on ``day`` shows ``minutes`` or later.

    In a repeated hour this is the first occurrence; in a skipped hour it is the instant the
    clocks jump. ``minutes == 1440`` means midnight at the end of ``day``.
    """
    if minutes >= 24 * 60:
        day, minutes = day + dt.timedelta(days=1), minutes - 24 * 60
    naive = dt.datetime.combine(day, dt.time(minutes // 60, minutes % 60))
    first = naive.replace(tzinfo=tz, fold=0)
    first_us = to_utc_us(first)
    if from_utc_us(first_us, tz).replace(tzinfo=None) == naive:
        return first_us
    # The local time does not exist: find the jump between the two readings of it.
    other_us = to_utc_us(naive.replace(tzinfo=tz, fold=1))
    lo, hi = sorted((first_us, other_us))
    lo //= 1_000_000
    hi = -(-hi // 1_000_000)
    while lo < hi:  # first whole second whose local reading is at or after ``naive``
        mid = (lo + hi) // 2
        if from_utc_us(mid * 1_000_000, tz).replace(tzinfo=None) >= naive:
            hi = mid
        else:
            lo = mid + 1
    return lo * 1_000_000


@dataclass(frozen=True)
class _Table:
    first_day: dt.date
    last_day: dt.date
    starts: np.ndarray  # int64 epoch microseconds, sorted, intervals disjoint
    ends: np.ndarray
    cum: np.ndarray  # business microseconds before interval i
    # The bucketed lookup: for each hour from starts[0], the last interval starting at or before
    # it; at most ``steps`` further intervals start within any one hour.
    first: np.ndarray
    steps: int


_BUCKET_US = 3_600_000_000


def _buckets(starts: np.ndarray) -> tuple[np.ndarray, int]:
    import numpy as np

    if len(starts) == 0:
        return np.zeros(0, dtype=np.int64), 0
    offsets = (starts - starts[0]) // _BUCKET_US
    edges = starts[0] + np.arange(int(offsets[-1]) + 1, dtype=np.int64) * _BUCKET_US
    first = np.searchsorted(starts, edges, side="right") - 1
    return first.astype(np.int64), int(np.bincount(offsets).max())


def _last_start_at_or_before(table: _Table, t: np.ndarray) -> np.ndarray:
    """For each instant, the index of the last interval that starts at or before it (-1 when
    none): the same answer as ``searchsorted(starts, t, "right") - 1``, found by the instant's
    hour bucket and at most ``steps`` vectorised steps forward instead of a binary search."""
    import numpy as np

    starts, n = table.starts, len(table.starts)
    bucket = np.clip((t - starts[0]) // _BUCKET_US, 0, len(table.first) - 1)
    i = table.first[bucket]
    for _ in range(table.steps):
        nxt = np.minimum(i + 1, n - 1)
        i = np.where((i + 1 < n) & (starts[nxt] <= t), i + 1, i)
    return np.where(t < starts[0], -1, i)


class _ScalarView:
    """A table's intervals as Python lists, and the UTC range of instants it answers for.

    ``lo``/``hi`` are conservative: an instant in ``[lo, hi)`` has a local date (whatever the
    zone's offset, always under a day) at least ``_DATE_MARGIN`` days inside the table's dates, so
    ``_table_for`` would answer it from this same table without growing it.
    """

    __slots__ = ("cum", "ends", "hi", "lo", "starts", "table")

    def __init__(self, table: _Table, lo: int, hi: int) -> None:
        self.table, self.lo, self.hi = table, lo, hi
        self.starts: list[int] = table.starts.tolist()
        self.ends: list[int] = table.ends.tolist()
        self.cum: list[int] = table.cum.tolist()

    @classmethod
    def of(cls, table: _Table) -> _ScalarView:
        margin = dt.timedelta(days=_DATE_MARGIN + 1)
        lo = dt.datetime.combine(table.first_day + margin, dt.time(), UTC)
        hi = dt.datetime.combine(table.last_day - margin + dt.timedelta(days=1), dt.time(), UTC)
        return cls(table, (lo - _EPOCH) // _US, (hi - _EPOCH) // _US)

    def running(self, t: int) -> int:
        """``BusinessCalendar._running`` for one instant."""
        i = bisect_right(self.starts, t) - 1
        if i < 0:
            return 0
        start = self.starts[i]
        return self.cum[i] + min(t - start, self.ends[i] - start)

    def between(self, a: int, b: int) -> int:
        return self.running(b) - self.running(a)


class BusinessCalendar:
    """Working hours in one timezone, with public holidays and closure dates removed."""

    def __init__(
        self,
        timezone: str,
        hours: Mapping[str, Sequence[Span]],
        holiday_country: str | None = None,
        holiday_subdivision: str | None = None,
        closures: Iterable[dt.date] = (),
        source: Mapping[str, Any] | None = None,
        resolved: tuple[dt.date, dt.date, dict[dt.date, str]] | None = None,
    ) -> None:
        try:
            self.tz = ZoneInfo(timezone)
        except (ZoneInfoNotFoundError, ValueError) as exc:
            raise InputError(
                "calendar.timezone", f"unknown timezone {timezone!r}", 'use an IANA name such as "Europe/London"'
            ) from exc
        self.timezone = timezone
        self.hours = {day: tuple(hours.get(day, ())) for day in WEEKDAYS}
        self.closures = frozenset(closures)
        self.holiday_country = holiday_country
        self.holiday_subdivision = holiday_subdivision
        self.resolved = resolved  # (first, last, {date: name}): holiday dates fixed when a journal was made
        # A journal's header fixes its holiday dates, so reading one need not load the holidays
        # package (slow to import) until a day outside those dates is asked about.
        self._loaded: Any = None if resolved is not None else _load_holidays(holiday_country, holiday_subdivision)
        self.source = dict(source) if source is not None else None
        self._table: _Table | None = None
        self._view: _ScalarView | None = None

    # ----- loading -----------------------------------------------------------------------

    @classmethod
    def load(cls, path: str | Path) -> BusinessCalendar:
        """Read a TOML file with a ``[calendar]`` table."""
        from day60.files import read_toml

        data, _ = read_toml(path, "--calendar", "a calendar TOML file")
        if "calendar" not in data:
            raise InputError("calendar", f"{path} has no [calendar] table",
                             "add one (see docs/calendars.md, The calendar file)")
        return cls.from_dict(data["calendar"])

    @classmethod
    def from_dict(cls, table: Mapping[str, Any]) -> BusinessCalendar:
        """Build from the ``[calendar]`` table as a dict (the same shape a journal stores)."""
        if not isinstance(table, Mapping):
            raise InputError("calendar", "is not a table", "give timezone, hours and optional holidays")
        unknown = set(table) - {"timezone", "hours", "holidays", "closures"}
        if unknown:
            raise InputError(f"calendar.{sorted(unknown)[0]}", "is not a calendar setting",
                             "use timezone, hours, holidays, closures")
        if "timezone" not in table:
            raise InputError("calendar.timezone", "is missing", 'add timezone = "Europe/London" or similar')
        tz = table["timezone"]
        if not isinstance(tz, str) or not re.fullmatch(r"[A-Za-z0-9_+\-]+(/[A-Za-z0-9_+\-]+){0,3}", tz) or len(tz) > 64:
            raise InputError("calendar.timezone", f"{str(tz)[:40]!r} is not an IANA timezone name",
                             'use a name such as "Europe/London"')
        hours = _parse_hours(table.get("hours"))
        holidays_cfg = table.get("holidays")
        country = subdivision = None
        if holidays_cfg is not None:
            if not isinstance(holidays_cfg, Mapping) or "country" not in holidays_cfg:
                raise InputError("calendar.holidays", "needs a country",
                                 'write { country = "GB", subdivision = "ENG" }')
            country, subdivision = holidays_cfg["country"], holidays_cfg.get("subdivision")
            for key, value in (("country", country), ("subdivision", subdivision)):
                if value is not None and not (isinstance(value, str) and re.fullmatch(r"[A-Za-z0-9\-]{1,10}", value)):
                    raise InputError(f"calendar.holidays.{key}", f"{str(value)[:40]!r} is not a code",
                                     'write a code such as "GB" or "ENG"')
            extra = set(holidays_cfg) - {"country", "subdivision", "resolved"}
            if extra:
                raise InputError(f"calendar.holidays.{str(sorted(extra)[0])[:40]}", "is not a holidays setting",
                                 "use country and subdivision")
        closures = []
        listed = table.get("closures", ())
        if not isinstance(listed, list | tuple):
            raise InputError("calendar.closures", f"{str(listed)[:40]!r} is not a list of dates",
                             'write closures = ["2026-12-24"]')
        for i, raw in enumerate(listed):
            try:
                closures.append(raw if isinstance(raw, dt.date) else dt.date.fromisoformat(str(raw)))
            except ValueError as exc:
                raise InputError(f"calendar.closures[{i}]", f"{str(raw)[:40]!r} is not a date",
                                 "write YYYY-MM-DD") from exc
        resolved = _resolved(holidays_cfg.get("resolved")) if isinstance(holidays_cfg, Mapping) else None
        return cls(tz, hours, country, subdivision, closures, source=_plain(table), resolved=resolved)

    def to_dict(self) -> dict[str, Any]:
        """The calendar as a plain table, enough to rebuild it (stored in journal headers)."""
        if self.source is not None:
            return dict(self.source)
        out: dict[str, Any] = {"timezone": self.timezone,
                               "hours": {d: [s.label() for s in self.hours[d]] for d in WEEKDAYS}}
        if self.holiday_country:
            out["holidays"] = {"country": self.holiday_country}
            if self.holiday_subdivision:
                out["holidays"]["subdivision"] = self.holiday_subdivision
        if self.closures:
            out["closures"] = sorted(d.isoformat() for d in self.closures)
        return out

    # ----- days --------------------------------------------------------------------------

    def holiday_name(self, day: dt.date) -> str | None:
        """Why ``day`` is closed (public holiday name or "closure"), or None when it is not."""
        if day in self.closures:
            return "closure"
        if self.resolved is not None and self.resolved[0] <= day <= self.resolved[1]:
            return self.resolved[2].get(day)  # the dates the journal fixed, whatever the package now says
        package = self._package()
        if package is not None and day in package:
            return package.get(day)
        return None

    def _package(self) -> Any:
        if self._loaded is None and self.holiday_country:
            self._loaded = _load_holidays(self.holiday_country, self.holiday_subdivision)
        return self._loaded

    def with_resolved_holidays(self, first: dt.date, last: dt.date) -> dict[str, Any]:
        """This calendar's table with its public holidays from ``first`` to ``last`` written out, so
        a later release of the holidays package cannot move a figure computed on it."""
        table = self.to_dict()
        if not self.holiday_country:
            return table
        from importlib import metadata

        dates = {}
        day = first
        while day <= last:
            name = self._package().get(day) if day in self._package() else None
            if name:
                dates[day.isoformat()] = name
            day += dt.timedelta(days=1)
        holidays_cfg = {k: v for k, v in table["holidays"].items() if k != "resolved"}
        table["holidays"] = {**holidays_cfg, "resolved": {"from": first.isoformat(), "to": last.isoformat(),
                                                          "dates": dates,
                                                          "package": f"holidays {metadata.version('holidays')}"}}
        return table

    def spans_on(self, day: dt.date) -> tuple[Span, ...]:
        """The spans that start on a local date (none on a holiday or closure)."""
        if self.holiday_name(day) is not None:
            return ()
        return self.hours[WEEKDAYS[day.weekday()]]

    def is_business_day(self, day: dt.date) -> bool:
        return bool(self.spans_on(day))

    def business_day_after(self, day: dt.date, n: int = 1) -> dt.date:
        """The n-th business day after ``day`` (``day`` itself not counted)."""
        if n < 1:
            raise InputError("n", f"{n} is not a positive count", "give 1 or more")
        if not any(self.hours.values()):
            raise InputError("calendar.hours", "has no working time at all", "add at least one span")
        found, current = 0, day
        for _ in range(n * 400 + 400):
            current += dt.timedelta(days=1)
            if self.is_business_day(current):
                found += 1
                if found == n:
                    return current
        raise InputError("calendar", f"no {n} business days found after {day}", "check holidays and closures")

    def intervals(self, first: dt.date, last: dt.date) -> list[tuple[dt.datetime, dt.datetime]]:
        """Working intervals (local aware datetimes) for spans starting on first..last."""
        out = []
        for s, e in self._raw_intervals(first, last):
            out.append((from_utc_us(s, self.tz), from_utc_us(e, self.tz)))
        return out

    def _raw_intervals(self, first: dt.date, last: dt.date) -> list[tuple[int, int]]:
        out: list[tuple[int, int]] = []
        day = first
        while day <= last:
            for span in self.spans_on(day):
                start = resolve_local(day, span.start, self.tz)
                end_day = day + dt.timedelta(days=1) if span.crosses_midnight else day
                end = resolve_local(end_day, span.end, self.tz)
                if end > start:
                    out.append((start, end))
            day += dt.timedelta(days=1)
        return out

    # ----- arithmetic --------------------------------------------------------------------

    def _table_for(self, lo_us: int, hi_us: int) -> _Table:
        import numpy as np
        first = from_utc_us(lo_us, self.tz).date() - dt.timedelta(days=_DATE_MARGIN)
        last = from_utc_us(hi_us, self.tz).date() + dt.timedelta(days=_DATE_MARGIN)
        table = self._table
        if table is not None and table.first_day <= first and last <= table.last_day:
            return table
        if table is not None:
            first, last = min(first, table.first_day), max(last, table.last_day)
        first -= dt.timedelta(days=31)
        last += dt.timedelta(days=31)
        merged: list[list[int]] = []
        for s, e in sorted(self._raw_intervals(first, last)):
            if merged and s <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], e)
            else:
                merged.append([s, e])
        arr = np.array(merged, dtype=np.int64).reshape(-1, 2)
        starts, ends = arr[:, 0].copy(), arr[:, 1].copy()
        cum = np.concatenate(([0], np.cumsum(ends - starts)[:-1])).astype(np.int64)
        self._table = _Table(first, last, starts, ends, cum, *_buckets(starts))
        return self._table

    def _running(self, table: _Table, t: np.ndarray) -> np.ndarray:
        """Business microseconds from the table's start up to each instant in ``t``."""
        import numpy as np
        if len(table.starts) == 0:
            return np.zeros_like(t)
        i = _last_start_at_or_before(table, t)
        safe = np.clip(i, 0, None)
        inside = np.minimum(t - table.starts[safe], table.ends[safe] - table.starts[safe])
        return np.where(i < 0, 0, table.cum[safe] + inside)

    def business_us_many(self, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
        """Business microseconds between int64 epoch-microsecond arrays (starts <= ends)."""
        import numpy as np
        if starts.size == 0:
            return np.zeros(0, dtype=np.int64)
        table = self._table_for(int(starts.min()), int(ends.max()))
        return self._running(table, ends) - self._running(table, starts)

    def _view_for(self, lo_us: int, hi_us: int) -> _ScalarView:
        """The current table as Python lists, for one pair: the same table ``business_us_many``
        would use for these instants (built or grown by the same ``_table_for``)."""
        view = self._view
        if view is not None and view.lo <= lo_us and hi_us < view.hi and view.table is self._table:
            return view
        table = self._table_for(lo_us, hi_us)
        self._view = view = _ScalarView.of(table)
        return view

    def business_us(self, a: int, b: int) -> int:
        """Business microseconds between two epoch-microsecond instants (``a <= b``): the scalar
        twin of ``business_us_many``, the same arithmetic on the same table in Python integers."""
        return self._view_for(a, b).between(a, b)

    def business_seconds(
        self,
        start: dt.datetime,
        end: dt.datetime,
        pauses: Iterable[tuple[dt.datetime, dt.datetime]] = (),
    ) -> float:
        """Business seconds from ``start`` to ``end``, less working time inside ``pauses``.

        Overlapping pauses are merged first, so no working second is subtracted twice.
        One pair is looked up in Python (a bisection over the table's lists) rather than through
        one-element numpy arrays; a property test holds it to the vectorised path.
        """
        try:  # two stdlib aware datetimes subtract through UTC exactly, as ``to_utc_us`` does
            if type(start) is not dt.datetime or type(end) is not dt.datetime:
                raise TypeError
            a, b = (start - _EPOCH) // _US, (end - _EPOCH) // _US
        except TypeError:  # pendulum, a naive datetime or not one at all: converted or named
            a, b = to_utc_us(start, "start"), to_utc_us(end, "end")
        if a > b:
            raise InputError("end", f"{end.isoformat()} is before the start {start.isoformat()}",
                             "give the earlier instant first")
        windows = []
        for i, (ps, pe) in enumerate(pauses):
            p0, p1 = to_utc_us(ps, f"pause[{i}].start"), to_utc_us(pe, f"pause[{i}].end")
            if p0 > p1:
                raise InputError(f"pause[{i}]", "ends before it starts", "give START/END in order")
            windows.append((p0, p1))
        view = self._view_for(a, b)
        total = view.between(a, b)
        if windows:
            for p0, p1 in merge_spans(windows, a, b):  # clipped to [a, b], so inside the same table
                total -= view.between(int(p0), int(p1))
        return total / 1_000_000

    def business_seconds_many(self, starts: Any, ends: Any) -> np.ndarray:
        """Business seconds pair by pair, vectorised; returns a float64 array.

        Accepts sequences of aware datetimes, numpy ``datetime64`` arrays (read as UTC) or
        pandas Series / DatetimeIndex of aware instants.
        """
        import numpy as np
        s, e = instants_us(starts, "starts"), instants_us(ends, "ends")
        if s.shape != e.shape:
            raise InputError("ends", f"has {e.size} instants for {s.size} starts", "pass arrays of equal length")
        bad = np.flatnonzero(s > e)
        if bad.size:
            raise InputError(f"ends[{bad[0]}]", "is before its start", "give each pair in order")
        return self.business_us_many(s, e) / 1_000_000


def merge_spans(spans: Iterable[tuple[float, float]], a: float, b: float) -> list[list[float]]:
    """Clip spans to [a, b] and merge the ones that overlap or touch: no time is counted twice."""
    merged: list[list[float]] = []
    for p0, p1 in sorted(spans):
        p0, p1 = max(p0, a), min(p1, b)
        if p1 <= p0:
            continue
        if merged and p0 <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], p1)
        else:
            merged.append([p0, p1])
    return merged


def clip_windows(windows: Iterable[tuple[int, int]], a: int, b: int) -> tuple[np.ndarray, np.ndarray]:
    """Merge windows (epoch microseconds) and clip them to [a, b]; returns start/end arrays."""
    import numpy as np
    arr = np.array(merge_spans(windows, a, b), dtype=np.int64).reshape(-1, 2)
    return arr[:, 0].copy(), arr[:, 1].copy()


def instants_us(values: Any, field: str) -> np.ndarray:
    """Instants as int64 epoch microseconds from datetimes, datetime64 arrays or pandas data."""
    import numpy as np
    if isinstance(values, np.ndarray) and np.issubdtype(values.dtype, np.datetime64):
        if np.isnat(values).any():
            raise InputError(field, "contains a missing instant (NaT)", "drop or fill it first")
        return values.astype("datetime64[us]").astype(np.int64)
    module = type(values).__module__
    if module.startswith("pandas"):
        import pandas as pd

        idx = pd.DatetimeIndex(values) if not isinstance(values, pd.DatetimeIndex) else values
        if idx.tz is None:
            raise InputError(field, "holds instants without a timezone", "localize or convert them to UTC")
        if idx.isna().any():
            raise InputError(field, "contains a missing instant (NaT)", "drop or fill it first")
        return idx.tz_convert("UTC").as_unit("us").asi8.astype(np.int64)
    values = list(values)
    try:
        return _aware_list_us(values)
    except (TypeError, ValueError, OverflowError):  # anything but aware datetimes: each one named as it fails
        return np.fromiter((to_utc_us(v, field) for v in values), dtype=np.int64)


_EPOCH_ORDINAL = dt.date(1970, 1, 1).toordinal()


def _aware_list_us(values: list[Any]) -> np.ndarray:
    """Aware datetimes as epoch microseconds, a field at a time: one C-level pass per field
    (``map`` over the datetime type's own methods) and integer arithmetic in numpy, about twice as
    fast as subtracting the epoch from each. Exact: the wall time less ``utcoffset()``, as the
    subtraction itself computes it. Raises TypeError for anything else (a naive datetime among them)."""
    import operator

    import numpy as np

    n = len(values)
    offsets = list(map(dt.datetime.utcoffset, values))  # TypeError unless every one is a datetime
    if None in offsets:
        raise TypeError("a naive datetime")
    field = {name: np.fromiter(map(operator.attrgetter(name), values), np.int64, n)
             for name in ("hour", "minute", "second", "microsecond")}
    days = np.fromiter(map(dt.datetime.toordinal, values), np.int64, n) - _EPOCH_ORDINAL
    shift = np.rint(np.fromiter(map(dt.timedelta.total_seconds, offsets), np.float64, n) * 1e6).astype(np.int64)
    wall = ((days * 24 + field["hour"]) * 60 + field["minute"]) * 60 + field["second"]
    return wall * 1_000_000 + field["microsecond"] - shift


def _parse_hours(raw: Any) -> dict[str, tuple[Span, ...]]:
    if raw is None:
        raise InputError("calendar.hours", "is missing", 'add a [calendar.hours] table or hours = "24x7"')
    if isinstance(raw, str) and raw == "24x7":
        return {d: (Span(0, 24 * 60),) for d in WEEKDAYS}
    if not isinstance(raw, Mapping):
        raise InputError("calendar.hours", f"{raw!r} is neither a table nor \"24x7\"",
                         "see docs/calendars.md, The calendar file")
    out: dict[str, tuple[Span, ...]] = {}
    for day, spans in raw.items():
        key = str(day).lower()
        if key not in WEEKDAYS:
            raise InputError(f"calendar.hours.{day}", "is not a weekday", "use mon, tue, wed, thu, fri, sat, sun")
        if isinstance(spans, str):
            spans = [spans]
        if not isinstance(spans, list | tuple):
            raise InputError(f"calendar.hours.{day}", f"{str(spans)[:40]!r} is not a list of spans",
                             'write e.g. mon = ["09:00-17:30"], or [] for a closed day')
        out[key] = tuple(parse_span(s, f"calendar.hours.{day}") for s in spans)
    return out


def _load_holidays(country: str | None, subdivision: str | None) -> Any:
    if not country:
        return None
    import holidays

    try:
        return holidays.country_holidays(country, subdiv=subdivision)
    except NotImplementedError as exc:
        field = "calendar.holidays.subdivision" if "subdivision" in str(exc) else "calendar.holidays.country"
        raise InputError(field, str(exc), "use a code the holidays package lists") from exc


def _resolved(raw: Any) -> tuple[dt.date, dt.date, dict[dt.date, str]] | None:
    if raw is None:
        return None
    field = "calendar.holidays.resolved"
    if not isinstance(raw, Mapping) or not isinstance(raw.get("dates"), Mapping):
        raise InputError(field, "is not {from, to, dates, package}", "let 'day60 new' write it")
    try:
        first, last = dt.date.fromisoformat(str(raw["from"])), dt.date.fromisoformat(str(raw["to"]))
        dates = {dt.date.fromisoformat(str(k)): str(v) for k, v in raw["dates"].items()}
    except (KeyError, ValueError) as exc:
        raise InputError(field, "holds a date that is not YYYY-MM-DD", "let 'day60 new' write it") from exc
    return first, last, dates


def _plain(value: Any) -> Any:
    """TOML values as JSON-friendly plain data (dates as ISO strings)."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, dt.date):
        return value.isoformat()
    return value


def calendar_days(cal: BusinessCalendar, date_from: str, date_to: str,
                  fields: tuple[str, str] = ("--from", "--to")) -> list[dict[str, Any]]:
    """Each local date from ``date_from`` to ``date_to`` (YYYY-MM-DD, both included, at most two
    years apart) as a row: the date, its weekday, the holiday or closure that shuts it (or ""), its
    working intervals as ISO instants with their offsets, and its business hours (the intervals'
    real elapsed length, so a day with a clock change counts its true hours). ``fields`` name the
    two dates in a refusal."""
    days = []
    for field, text in zip(fields, (date_from, date_to), strict=True):
        try:
            days.append(dt.date.fromisoformat(text))
        except ValueError as exc:
            raise InputError(field, f"{text!r} is not a date", "write YYYY-MM-DD") from exc
    first, last = days
    if last < first:
        raise InputError(fields[1], f"is before {fields[0]}", "swap the two dates")
    if (last - first).days > 731:
        raise InputError(fields[1], f"is more than two years after {fields[0]}", "show a shorter range")
    rows = []
    day = first
    while day <= last:
        spans = cal.intervals(day, day)
        rows.append({
            "date": day.isoformat(),
            "weekday": WEEKDAYS[day.weekday()],
            "closed": cal.holiday_name(day) or "",
            "intervals": [[s.isoformat(), e.isoformat()] for s, e in spans],
            "business_hours": sum(wall_seconds(s, e) for s, e in spans) / 3600,
        })
        day += dt.timedelta(days=1)
    return rows

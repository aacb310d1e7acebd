"""The scalar fast path (``business_seconds``, one pair looked up in Python) against the vector
path (``business_seconds_many``/``business_us_many``, numpy): the same microseconds for random
calendars, zones with and without daylight saving (half-hour shifts, southern summers), holidays,
closures, spans crossing midnight or ending at 24:00, and instants drawn near the clock changes."""

import datetime as dt
from functools import cache
from zoneinfo import ZoneInfo

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from day60.clock import WEEKDAYS, BusinessCalendar, clip_windows
from tests.budget import examples

UTC = dt.UTC
ZONES = ("Europe/London", "America/New_York", "Australia/Lord_Howe", "Australia/Sydney", "Asia/Kathmandu",
         "Pacific/Chatham", "UTC")
HOLIDAYS = (None, {"country": "GB", "subdivision": "ENG"}, {"country": "US"}, {"country": "AU", "subdivision": "NSW"})
LO = int(dt.datetime(2026, 1, 1, tzinfo=UTC).timestamp())
HI = int(dt.datetime(2027, 12, 31, tzinfo=UTC).timestamp())


@cache
def changes(zone: str) -> tuple[int, ...]:
    """The instants (epoch seconds) in 2026-2027 at which the zone's offset changes."""
    tz, out = ZoneInfo(zone), []
    previous = dt.datetime.fromtimestamp(LO, tz).utcoffset()
    for s in range(LO, HI, 900):
        offset = dt.datetime.fromtimestamp(s, tz).utcoffset()
        if offset != previous:
            out.append(s)
            previous = offset
    return tuple(out) or (LO + 86_400 * 40,)


minutes = st.integers(0, 24 * 4 - 1).map(lambda q: q * 15) | st.integers(0, 1439)


@st.composite
def spans(draw):
    start = draw(minutes)
    end = draw(st.integers(1, 1440).filter(lambda e: e != start))
    return f"{start // 60:02d}:{start % 60:02d}-{end // 60:02d}:{end % 60:02d}"


@st.composite
def calendars(draw):
    zone = draw(st.sampled_from(ZONES))
    hours = draw(st.sampled_from(["24x7", None]))
    if hours is None:
        hours = {day: draw(st.lists(spans(), max_size=3)) for day in WEEKDAYS}
    table = {"timezone": zone, "hours": hours}
    holidays = draw(st.sampled_from(HOLIDAYS))
    if holidays:
        table["holidays"] = holidays
    closures = draw(st.lists(st.dates(dt.date(2026, 1, 1), dt.date(2027, 12, 31)), max_size=5))
    if closures:
        table["closures"] = [d.isoformat() for d in closures]
    return table


@st.composite
def instants(draw, zone: str):
    """Epoch microseconds: anywhere in two years, or within three hours of a clock change."""
    if draw(st.booleans()):
        s = draw(st.sampled_from(changes(zone))) + draw(st.integers(-3 * 3600, 3 * 3600))
    else:
        s = draw(st.integers(LO, HI))
    return s * 1_000_000 + draw(st.sampled_from([0, 1, 999_999, draw(st.integers(0, 999_999))]))


def aware(us: int, zone: str, style: int) -> dt.datetime:
    """The instant as an aware datetime: in UTC, in the calendar's zone, or in a fixed offset."""
    instant = dt.datetime(1970, 1, 1, tzinfo=UTC) + dt.timedelta(microseconds=us)
    if style == 0:
        return instant
    if style == 1:
        return instant.astimezone(ZoneInfo(zone))
    return instant.astimezone(dt.timezone(dt.timedelta(hours=-5, minutes=-30)))


@settings(max_examples=examples(150), deadline=None)
@given(st.data())
def test_scalar_is_the_vector_path(data):
    table = data.draw(calendars())
    zone = table["timezone"]
    scalar, vector = BusinessCalendar.from_dict(table), BusinessCalendar.from_dict(table)
    pairs = data.draw(st.lists(st.tuples(instants(zone), instants(zone)).map(sorted), min_size=1, max_size=8))
    style = data.draw(st.integers(0, 2))
    got = [scalar.business_seconds(aware(a, zone, style), aware(b, zone, style)) for a, b in pairs]
    starts, ends = (np.array(side, dtype=np.int64) for side in zip(*pairs, strict=True))
    assert got == (vector.business_us_many(starts, ends) / 1_000_000).tolist()
    assert got == vector.business_seconds_many([aware(a, zone, style) for a, _ in pairs],
                                               [aware(b, zone, style) for _, b in pairs]).tolist()


@settings(max_examples=examples(100), deadline=None)
@given(st.data())
def test_scalar_pauses_are_the_vector_windows(data):
    table = data.draw(calendars())
    zone = table["timezone"]
    scalar, vector = BusinessCalendar.from_dict(table), BusinessCalendar.from_dict(table)
    a, b = sorted(data.draw(st.tuples(instants(zone), instants(zone))))
    pauses = data.draw(st.lists(st.tuples(instants(zone), instants(zone)).map(sorted), max_size=4))
    got = scalar.business_seconds(aware(a, zone, 1), aware(b, zone, 1),
                                  [(aware(p, zone, 0), aware(q, zone, 2)) for p, q in pauses])
    whole = int(vector.business_us_many(np.array([a]), np.array([b]))[0])
    paused = sum(vector.business_us_many(*clip_windows(pauses, a, b)).tolist())
    assert got == (whole - paused) / 1_000_000


@settings(max_examples=examples(150), deadline=None)
@given(st.data())
def test_scalar_at_the_edges_of_a_built_table(data):
    """The first pair builds a table about 33 local days either side of it; later pairs reaching
    within a few days of its edges must be answered as the vector path answers them (the table
    grown, not an interval of the day before the table's first day missed)."""
    table = data.draw(calendars())
    zone = table["timezone"]
    scalar, vector = BusinessCalendar.from_dict(table), BusinessCalendar.from_dict(table)
    x = data.draw(instants(zone))
    scalar.business_seconds(aware(x, zone, 0), aware(x, zone, 0))
    edge = data.draw(st.sampled_from([-1, 1])) * 34 * 86_400_000_000
    probe = x + edge + data.draw(st.integers(-2 * 86_400, 2 * 86_400)) * 1_000_000
    a, b = sorted((x, probe))
    got = scalar.business_seconds(aware(a, zone, 1), aware(b, zone, 1))
    assert got == int(vector.business_us_many(np.array([a]), np.array([b]))[0]) / 1_000_000

"""The business clock: one hand-worked case per DESIGN.md rule, then properties."""

import datetime as dt
from zoneinfo import ZoneInfo

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from day60.clock import BusinessCalendar, wall_seconds
from day60.errors import InputError
from day60.resources import example
from tests.budget import examples

LON = ZoneInfo("Europe/London")
NY = ZoneInfo("America/New_York")
UTC = dt.UTC
H = 3600


def t(y, mo, d, h=0, mi=0, tz=LON, fold=0):
    return dt.datetime(y, mo, d, h, mi, tzinfo=tz, fold=fold)


def cal(hours, tz="Europe/London", **extra):
    return BusinessCalendar.from_dict({"timezone": tz, "hours": hours, **extra})


UK = BusinessCalendar.load(example("uk-office.toml"))


# ----- spans and days -----------------------------------------------------------------------


def test_weekday_hours_outside_start_and_end():
    # Monday 07:00 to Monday 20:00 holds exactly the 09:00-17:30 span.
    assert UK.business_seconds(t(2026, 3, 2, 7), t(2026, 3, 2, 20)) == 8.5 * H


def test_closed_day_counts_nothing():
    assert UK.business_seconds(t(2026, 3, 7), t(2026, 3, 8, 23, 59)) == 0


def test_weekend_and_easter_holidays():
    # Thu 2 Apr 16:00 -> Tue 7 Apr 10:00: Thu 1.5 h; Good Friday, the weekend and
    # Easter Monday closed; Tue 1 h.
    assert UK.business_seconds(t(2026, 4, 2, 16), t(2026, 4, 7, 10)) == 2.5 * H


def test_observed_substitute_holiday_is_closed():
    # Boxing Day 2026 is a Saturday; England observes it on Monday 28 December.
    assert UK.holiday_name(dt.date(2026, 12, 28)) == "Boxing Day (observed)"
    assert UK.business_seconds(t(2026, 12, 24, 9), t(2026, 12, 29, 10)) == 9.5 * H


def test_closure_dates_remove_their_spans():
    c = cal({"mon": ["09:00-17:00"]}, closures=["2026-03-02"])
    assert c.business_seconds(t(2026, 3, 2), t(2026, 3, 3)) == 0
    assert c.holiday_name(dt.date(2026, 3, 2)) == "closure"


def test_split_day_several_spans():
    us = BusinessCalendar.load(example("us-office.toml"))
    # Mon 2 Mar 2026 11:00 -> 14:00 New York: 11-12 and 13-14, lunch excluded.
    assert us.business_seconds(t(2026, 3, 2, 11, tz=NY), t(2026, 3, 2, 14, tz=NY)) == 2 * H


def test_span_ending_at_2400():
    c = cal({"mon": ["22:00-24:00"]})
    assert c.business_seconds(t(2026, 3, 2), t(2026, 3, 4)) == 2 * H


def test_night_shift_belongs_to_the_day_it_starts():
    c = cal({"fri": ["22:00-06:00"]})
    # Friday 6 March 22:00 to Saturday 06:00 is 8 hours, and Saturday has no shift of its own.
    assert c.business_seconds(t(2026, 3, 6, 12), t(2026, 3, 8, 12)) == 8 * H
    # A closure on the Saturday does not touch Friday's shift...
    sat_closed = cal({"fri": ["22:00-06:00"]}, closures=["2026-03-07"])
    assert sat_closed.business_seconds(t(2026, 3, 6, 12), t(2026, 3, 8, 12)) == 8 * H
    # ...a closure on the Friday removes all of it, the Saturday morning part included.
    fri_closed = cal({"fri": ["22:00-06:00"]}, closures=["2026-03-06"])
    assert fri_closed.business_seconds(t(2026, 3, 6, 12), t(2026, 3, 8, 12)) == 0


def test_24x7_is_wall_time_across_dst():
    c = BusinessCalendar.load(example("service-desk-24x7.toml"))
    a, b = t(2026, 3, 28, 12), t(2026, 3, 30, 12)  # includes London's 23-hour day
    assert c.business_seconds(a, b) == wall_seconds(a, b) == 47 * H


# ----- daylight saving ----------------------------------------------------------------------


def test_spring_gap_boundary_is_the_jump_instant():
    # London 29 Mar 2026: 01:00 GMT jumps to 02:00 BST. 01:30 is read as the jump, 02:00 BST.
    c = cal({"sun": ["01:30-02:15"]})
    [(start, _end)] = c.intervals(dt.date(2026, 3, 29), dt.date(2026, 3, 29))
    assert start.astimezone(UTC) == dt.datetime(2026, 3, 29, 1, 0, tzinfo=UTC)
    assert c.business_seconds(t(2026, 3, 28), t(2026, 3, 30)) == 15 * 60


def test_whole_days_on_dst_change_last_their_true_length():
    c = cal({"sun": ["00:00-24:00"]})
    assert c.business_seconds(t(2026, 3, 28), t(2026, 3, 30)) == 23 * H
    assert c.business_seconds(t(2026, 10, 24), t(2026, 10, 26)) == 25 * H


def test_autumn_repeat_boundary_is_the_first_occurrence():
    # London 25 Oct 2026: 01:00-02:00 happens twice. 01:30 means 01:30 BST (00:30 UTC);
    # 02:15 exists once (GMT, 02:15 UTC): the span lasts 1 h 45 min of real time.
    c = cal({"sun": ["01:30-02:15"]})
    assert c.business_seconds(t(2026, 10, 24), t(2026, 10, 26)) == 105 * 60


def test_new_york_spring_and_autumn():
    c = cal({"sun": ["02:30-03:30"]}, tz="America/New_York")
    # 8 Mar 2026: 02:30 does not exist; the span runs from the jump (03:00 EDT) to 03:30.
    assert c.business_seconds(t(2026, 3, 7, tz=NY), t(2026, 3, 9, tz=NY)) == 30 * 60
    c = cal({"sun": ["01:30-02:00"]}, tz="America/New_York")
    # 1 Nov 2026: 01:30 EDT (05:30 UTC) to 02:00 EST (07:00 UTC).
    assert c.business_seconds(t(2026, 10, 31, tz=NY), t(2026, 11, 2, tz=NY)) == 90 * 60


def test_night_shift_across_dst_nights():
    # A Saturday 22:00-06:00 shift crosses London's change at Sunday 01:00 UTC.
    c = cal({"sat": ["22:00-06:00"]})
    assert c.business_seconds(t(2026, 3, 28, 12), t(2026, 3, 29, 12)) == 7 * H
    assert c.business_seconds(t(2026, 10, 24, 12), t(2026, 10, 25, 12)) == 9 * H


def test_instant_inside_repeated_hour_is_measured_in_real_time():
    c = cal({"sun": ["00:00-24:00"]})
    first = t(2026, 10, 25, 1, 30, fold=0)  # BST
    second = t(2026, 10, 25, 1, 30, fold=1)  # GMT, one real hour later
    assert c.business_seconds(first, second) == H


# ----- pauses -------------------------------------------------------------------------------


def test_pauses_merged_and_only_working_time_subtracted():
    day = (t(2026, 3, 2, 9), t(2026, 3, 2, 17, 30))
    pauses = [
        (t(2026, 3, 2, 8), t(2026, 3, 2, 10)),  # one working hour
        (t(2026, 3, 2, 9, 30), t(2026, 3, 2, 11)),  # overlaps the first: one more hour
        (t(2026, 3, 2, 17), t(2026, 3, 2, 19)),  # half an hour of working time
        (t(2026, 3, 7, 10), t(2026, 3, 7, 12)),  # Saturday: nothing to subtract
    ]
    assert UK.business_seconds(*day, pauses=pauses) == 6 * H


def test_pause_outside_the_measured_range_subtracts_nothing():
    pauses = [(t(2026, 3, 3, 9), t(2026, 3, 3, 12))]
    assert UK.business_seconds(t(2026, 3, 2, 9), t(2026, 3, 2, 12), pauses) == 3 * H


# ----- refusals -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("table", "field"),
    [
        ({"timezone": "Mars/Olympus", "hours": "24x7"}, "calendar.timezone"),
        ({"timezone": "UTC", "hours": {"mon": ["9-5"]}}, "calendar.hours.mon"),
        ({"timezone": "UTC", "hours": {"mon": ["25:00-26:00"]}}, "calendar.hours.mon"),
        ({"timezone": "UTC", "hours": {"funday": ["09:00-17:00"]}}, "calendar.hours.funday"),
        ({"timezone": "UTC", "hours": "24x7", "holidays": {"country": "XX"}}, "calendar.holidays.country"),
        ({"timezone": "UTC", "hours": "24x7", "holidays": {"country": "GB", "subdivision": "ZZZ"}},
         "calendar.holidays.subdivision"),
        ({"hours": "24x7"}, "calendar.timezone"),
        ({"timezone": "UTC"}, "calendar.hours"),
    ],
)
def test_bad_calendars_name_the_field(table, field):
    with pytest.raises(InputError) as err:
        BusinessCalendar.from_dict(table)
    assert err.value.field == field


def test_crossing_midnight_span_is_accepted():
    assert cal({"mon": ["17:00-09:00"]}).hours["mon"][0].crosses_midnight


def test_start_after_end_and_naive_times_refused():
    with pytest.raises(InputError):
        UK.business_seconds(t(2026, 3, 3), t(2026, 3, 2))
    with pytest.raises(InputError):
        UK.business_seconds(dt.datetime(2026, 3, 2), t(2026, 3, 3))


def test_business_day_after_skips_weekends_and_holidays():
    # Fifth business day of January 2027: 1 Jan is a holiday, so 4, 5, 6, 7, 8.
    assert UK.business_day_after(dt.date(2026, 12, 31), 5) == dt.date(2027, 1, 8)
    assert UK.business_day_after(dt.date(2026, 3, 6), 1) == dt.date(2026, 3, 9)


# ----- vectorised ---------------------------------------------------------------------------


def test_many_accepts_numpy_and_pandas():
    starts = [t(2026, 3, 27, 16), t(2026, 12, 24, 9)]
    ends = [t(2026, 3, 30, 10), t(2026, 12, 29, 10)]
    expected = [UK.business_seconds(a, b) for a, b in zip(starts, ends, strict=True)]
    assert UK.business_seconds_many(starts, ends).tolist() == expected
    series = (pd.Series(pd.to_datetime([s.isoformat() for s in starts], utc=True)),
              pd.Series(pd.to_datetime([e.isoformat() for e in ends], utc=True)))
    assert UK.business_seconds_many(*series).tolist() == expected
    arrays = [np.array([x.astimezone(UTC).replace(tzinfo=None) for x in v], dtype="datetime64[us]")
              for v in (starts, ends)]
    assert UK.business_seconds_many(*arrays).tolist() == expected


def test_many_refuses_naive_series_and_reversed_pairs():
    naive = pd.Series(pd.to_datetime(["2026-03-02T09:00"]))
    with pytest.raises(InputError):
        UK.business_seconds_many(naive, naive)
    with pytest.raises(InputError) as err:
        UK.business_seconds_many([t(2026, 3, 3)], [t(2026, 3, 2)])
    assert err.value.field == "ends[0]"


# ----- properties ---------------------------------------------------------------------------

NIGHTS = cal({"fri": ["22:00-06:00"], "sat": ["22:00-06:00"], "sun": ["01:30-02:15", "09:00-12:00"],
              "mon": ["09:00-12:30", "13:30-17:30"]},
             holidays={"country": "GB", "subdivision": "ENG"})
CALENDARS = [UK, NIGHTS, BusinessCalendar.load(example("us-office.toml")),
             BusinessCalendar.load(example("india-delivery.toml"))]
LO = int(dt.datetime(2026, 1, 1, tzinfo=UTC).timestamp())
HI = int(dt.datetime(2027, 12, 31, tzinfo=UTC).timestamp())
instants = st.integers(LO, HI).map(lambda s: dt.datetime.fromtimestamp(s, UTC))
calendars = st.sampled_from(CALENDARS)


@settings(max_examples=examples(200), deadline=None)
@given(calendars, instants, instants, instants)
def test_additive(c, x, y, z):
    a, b, d = sorted((x, y, z))
    assert c.business_seconds(a, d) == c.business_seconds(a, b) + c.business_seconds(b, d)


@settings(max_examples=examples(200), deadline=None)
@given(calendars, instants, instants)
def test_never_above_wall_time(c, x, y):
    a, b = sorted((x, y))
    assert 0 <= c.business_seconds(a, b) <= wall_seconds(a, b)


@settings(max_examples=examples(50), deadline=None)
@given(calendars, st.lists(st.tuples(instants, instants), min_size=1, max_size=20))
def test_many_equals_scalar(c, pairs):
    pairs = [tuple(sorted(p)) for p in pairs]
    many = c.business_seconds_many([a for a, _ in pairs], [b for _, b in pairs])
    assert many.tolist() == [c.business_seconds(a, b) for a, b in pairs]


@settings(max_examples=examples(100), deadline=None)
@given(calendars, instants, instants, st.lists(st.tuples(instants, instants), max_size=4))
def test_pauses_never_add_time(c, x, y, raw_pauses):
    a, b = sorted((x, y))
    pauses = [tuple(sorted(p)) for p in raw_pauses]
    assert 0 <= c.business_seconds(a, b, pauses) <= c.business_seconds(a, b)


def test_pendulum_datetimes_are_accepted():
    import pendulum

    a = pendulum.datetime(2026, 3, 27, 16, tz="Europe/London")
    b = pendulum.datetime(2026, 3, 30, 10, tz="Europe/London")
    assert UK.business_seconds(a, b) == 2.5 * H
    assert wall_seconds(a, b) == 65 * H  # across the spring change
    assert UK.business_seconds_many([a], [b]).tolist() == [2.5 * H]


def test_holiday_dates_fixed_in_a_journal_header_decide_the_figures(tmp_path):
    """A journal's header holds the holiday dates of its window (plus a margin), so a later release
    of the holidays package cannot move a figure: the header's dates win inside their range."""
    import datetime as dt

    from day60 import journal as jr
    from day60.resources import example

    cal = BusinessCalendar.load(example("uk-office.toml"))
    path = tmp_path / "j.jsonl"
    jr.create(path, {"partner": "p", "supplier": "s", "deployment": "d", "tier": "T2", "runner": "r",
                     "calendar": cal.to_dict(),
                     "window": {"start": "2026-03-30T09:00:00+01:00", "end": "2026-04-10T17:30:00+01:00"}})
    header = jr.read(path).header
    resolved = header["calendar"]["holidays"]["resolved"]
    assert resolved["dates"]["2026-04-03"] == "Good Friday" and resolved["package"].startswith("holidays ")
    assert resolved["from"] <= "2026-03-30" and resolved["to"] >= "2026-05-08"  # the April report is due in May
    # The same table with Good Friday removed from the fixed dates: the header decides, not the package.
    edited = {**header["calendar"], "holidays": {**header["calendar"]["holidays"], "resolved": {
        **resolved, "dates": {k: v for k, v in resolved["dates"].items() if k != "2026-04-03"}}}}
    fixed = BusinessCalendar.from_dict(edited)
    good_friday = (dt.datetime(2026, 4, 3, 8, tzinfo=dt.UTC), dt.datetime(2026, 4, 3, 17, tzinfo=dt.UTC))
    assert cal.business_seconds(*good_friday) == 0 and fixed.business_seconds(*good_friday) == 8.5 * 3600
    from day60 import metrics

    assert metrics.compute(jr.read(path)).summary["holidays"]["source"] == "the journal's header"


@settings(max_examples=examples(300), deadline=None)
@given(gaps=st.lists(st.integers(min_value=1, max_value=3 * 86_400_000_000), min_size=1, max_size=60),
       probes=st.lists(st.integers(min_value=-2 * 86_400_000_000, max_value=200 * 86_400_000_000), min_size=1,
                       max_size=60))
def test_bucketed_lookup_is_the_binary_search(gaps, probes):
    """The hour-bucket lookup finds exactly the interval a binary search finds, for starts packed
    many to an hour or days apart, and for instants before, between, on and after them."""
    import numpy as np

    from day60.clock import _buckets, _last_start_at_or_before, _Table

    starts = 1_767_225_600_000_000 + np.cumsum(np.array(gaps, dtype=np.int64))
    table = _Table(dt.date(2026, 1, 1), dt.date(2026, 12, 31), starts, starts + 1, np.zeros_like(starts),
                   *_buckets(starts))
    t = np.concatenate([starts[0] + np.array(probes, dtype=np.int64), starts, starts - 1])
    expected = np.searchsorted(starts, t, side="right") - 1
    assert np.array_equal(_last_start_at_or_before(table, t), expected)


ZONES = [ZoneInfo(name) for name in ("Europe/London", "America/New_York", "Australia/Lord_Howe", "Asia/Kathmandu",
                                     "UTC")] + [dt.timezone(dt.timedelta(hours=-3, minutes=-30, seconds=-15))]


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(st.tuples(st.datetimes(min_value=dt.datetime(1971, 1, 1), max_value=dt.datetime(2199, 1, 1)),
                          st.sampled_from(ZONES), st.sampled_from([0, 1])), max_size=40))
def test_a_list_of_aware_datetimes_converts_as_each_one_does(items):
    """The list path (a field at a time) gives what subtracting the epoch from each gives, in
    repeated and skipped hours (fold 0 and 1), half-hour DST and offsets with seconds."""
    from day60.clock import instants_us, to_utc_us

    values = [wall.replace(tzinfo=zone, fold=fold) for wall, zone, fold in items]
    assert instants_us(values, "starts").tolist() == [to_utc_us(v) for v in values]


def test_a_list_with_a_naive_or_foreign_item_names_it():
    from day60.clock import instants_us

    aware = dt.datetime(2026, 3, 2, 9, tzinfo=ZoneInfo("Europe/London"))
    with pytest.raises(InputError, match="has no timezone"):
        instants_us([aware, dt.datetime(2026, 3, 2, 10)], "starts")
    with pytest.raises(InputError, match="is not a date and time"):
        instants_us((v for v in [aware, "09:00"]), "starts")


def test_calendar_days_lists_each_date_with_its_true_hours():
    """``clock.calendar_days``, what 'day60 calendar show' prints, on the UK office (Mon-Fri
    09:00-17:30, England's holidays): Fri 27 Mar 2026 is 8.5 business hours in GMT (+00:00); the
    weekend of the clock change (Sun 29 Mar) is 0; Mon 30 Mar is 8.5 hours again, now in BST
    (+01:00). Fri 25 Dec 2026 is Christmas Day: closed, no interval, 0 hours. Dates in the wrong
    form, backwards, or more than 731 days apart are refused naming the field."""
    from day60.clock import calendar_days

    cal = BusinessCalendar.load(example("uk-office.toml"))
    days = calendar_days(cal, "2026-03-27", "2026-03-30")
    assert [(d["date"], d["weekday"], d["business_hours"]) for d in days] == [
        ("2026-03-27", "fri", 8.5), ("2026-03-28", "sat", 0.0), ("2026-03-29", "sun", 0.0), ("2026-03-30", "mon", 8.5)]
    assert days[0]["intervals"] == [["2026-03-27T09:00:00+00:00", "2026-03-27T17:30:00+00:00"]]
    assert days[3]["intervals"] == [["2026-03-30T09:00:00+01:00", "2026-03-30T17:30:00+01:00"]]
    [christmas] = calendar_days(cal, "2026-12-25", "2026-12-25")
    assert (christmas["closed"], christmas["intervals"], christmas["business_hours"]) == ("Christmas Day", [], 0.0)
    # 1 Jan 2026 to 2 Jan 2028: 365 + 365 + 1 = 731 days apart, the most taken: 732 dates listed
    assert len(calendar_days(cal, "2026-01-01", "2028-01-02")) == 732
    for args, field in ((("24/12/2026", "2026-12-29"), "--from"), (("2026-12-29", "2026-12-24"), "--to"),
                        (("2026-01-01", "2028-01-03"), "--to")):
        with pytest.raises(InputError) as exc:
            calendar_days(cal, *args)
        assert exc.value.field == field

"""When a monthly report falls due (charter 3.21.6): the fifth business day of the following month,
and which periods' due dates a window holds whole. Kept apart from the figures so that the live
checklist can say a report is overdue without loading the figures' tables."""

from __future__ import annotations

import datetime as dt
from typing import Any


def month_bounds(period: str) -> tuple[dt.date, dt.date]:
    """The first and last local dates of a period written YYYY-MM."""
    year, month = (int(x) for x in period.split("-"))
    first = dt.date(year, month, 1)
    return first, dt.date(year + (month == 12), month % 12 + 1, 1) - dt.timedelta(days=1)


def report_due(cal: Any, period: str, nth: int = 5) -> dt.date:
    """The day a period's report is due: the fifth business day of the following month (3.21.6), or
    the ``nth``, where a deal sets an earlier one."""
    return cal.business_day_after(month_bounds(period)[1], nth)


def due_within(cal: Any, start: dt.datetime, end: dt.datetime, nth: int = 5) -> list[str]:
    """The periods whose report falls due between ``start`` and ``end``: the whole of the due date (a
    local calendar day, a delivery on it being on time) lies inside, so by ``end`` the report is
    overdue if it has not come."""
    first, last = start.astimezone(cal.tz).date(), end.astimezone(cal.tz).date()
    out = []
    year, month = first.year - (first.month == 1), (first.month - 2) % 12 + 1
    while dt.date(year, month, 1) <= last:
        period = f"{year:04d}-{month:02d}"
        due = report_due(cal, period, nth)
        opens = dt.datetime.combine(due, dt.time(0), tzinfo=cal.tz)
        ends = dt.datetime.combine(due + dt.timedelta(days=1), dt.time(0), tzinfo=cal.tz)
        if start <= opens and ends <= end:
            out.append(period)
        year, month = year + (month == 12), month % 12 + 1
    return out

"""Small journals built through the library's own append, so every rule of fact applies."""

import datetime as dt
from pathlib import Path

from day60 import journal as jr
from day60.clock import BusinessCalendar
from day60.resources import example
from day60.timeparse import localize

SIGN_OFF = {"agreement": "SOW-7 annex B", "stop_owner": "Kim Ode", "stop_condition": "error rate above 5%",
            "rollback_owner": "Lee Park"}


def at(text: str, tz) -> dt.datetime:
    value = dt.datetime.fromisoformat(text)
    return value if value.tzinfo else localize(value, tz)


def make_journal(path: Path, events, calendar: str = "uk-office.toml", window=("2026-03-02T09:00", "2026-03-13T17:30"),
                 tier: str = "T3", **header) -> Path:
    cal = BusinessCalendar.load(example(calendar))
    jr.create(path, {"partner": "Test partner", "supplier": "Test supplier", "deployment": "test deployment",
                     "tier": tier, "runner": "Test runner", "calendar": cal.to_dict(),
                     "window": {"start": at(window[0], cal.tz).isoformat(), "end": at(window[1], cal.tz).isoformat()},
                     **header})
    for kind, ident, when, *data in events:
        jr.append(path, kind, ident, at(when, cal.tz) if when else None, data[0] if data else {})
    return path

"""Small journals built through the library's own append, so every rule of fact applies."""

import datetime as dt
from pathlib import Path

from day60 import journal as jr
from day60.clock import BusinessCalendar
from day60.resources import example
from day60.timeparse import localize

SIGN_OFF = {"agreement": "SOW-7 annex B", "stop_owner": "Kim Ode", "stop_condition": "error rate above 5%",
            "rollback_owner": "Lee Park", "no_live_personal_data": True}


def at(text: str, tz) -> dt.datetime:
    value = dt.datetime.fromisoformat(text)
    return value if value.tzinfo else localize(value, tz)


def make_journal(path: Path, events, calendar: str = "uk-office.toml", window=("2026-03-02T09:00", "2026-03-13T17:30"),
                 tier: str = "T3", reveal: bool = True, **header) -> Path:
    cal = BusinessCalendar.load(example(calendar))
    jr.create(path, {"partner": "Test partner", "supplier": "Test supplier", "deployment": "test deployment",
                     "tier": tier, "runner": "Test runner", "calendar": cal.to_dict(),
                     "window": {"start": at(window[0], cal.tz).isoformat(), "end": at(window[1], cal.tz).isoformat()},
                     **header})
    held = path.with_name(path.name + ".held.json")
    notices = {i: d[0]["affected_class"] for k, i, _, *d in events if k == "drift.notice" and d}
    for kind, ident, when, *data in events:
        data = dict(data[0]) if data else {}
        seal = None
        if kind == "drift.onset" and data.get("source", "exercise") == "exercise":
            # An injected onset is sealed and names its class; tests of drift lead time take the
            # class the notice names, unless they state one.
            data.setdefault("affected_class", notices.get(ident, "test class"))
            seal = held
        jr.append(path, kind, ident, at(when, cal.tz) if when else None, data, seal=seal)
    if reveal and held.exists():
        jr.reveal(path, held)
    return path


def during_a_half_written_append(path: Path, line: bytes, action) -> bool:
    """Run ``action()`` in a thread while an append holds the journal's exclusive lock with the
    first 40 bytes of ``line`` written, as an import's batch does while it writes; finish the
    line half a second later and wait for ``action``. Returns whether ``action`` was still
    waiting when the line was finished (it should be: a read under the shared lock waits)."""
    import os
    import threading
    import time

    from day60.journal import lock

    with lock.locked(path) as fd:
        os.write(fd, line[:40])
        worker = threading.Thread(target=action, daemon=True)
        worker.start()
        time.sleep(0.5)
        waited = worker.is_alive()
        os.write(fd, line[40:])
        os.fsync(fd)
    worker.join(60)
    assert not worker.is_alive(), "the action never finished once the append was done"
    return waited


def reference_reads_in_pieces(monkeypatch, each) -> None:
    """The reference reader reads its file 300 bytes at a time (no read-ahead), and after each
    read calls ``each(reads, read_so_far)`` (how many reads so far, and how many bytes), so a
    test can change the file in the middle of a read."""
    import os
    import types

    from day60.journal import reader

    class Pieces:
        def __init__(self, fh):
            self.fh, self.reads, self.read_so_far = fh, 0, 0

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.fh.close()

        def read(self, n: int = -1) -> bytes:
            chunk = self.fh.read(min(n, 300))
            self.reads += 1
            self.read_so_far += len(chunk)
            each(self.reads, self.read_so_far)
            return chunk

    proxy = types.SimpleNamespace(**{name: getattr(os, name) for name in dir(os) if not name.startswith("__")})
    proxy.fdopen = lambda fd, mode="rb", *a, **k: Pieces(os.fdopen(fd, mode, buffering=0))
    monkeypatch.setattr(reader, "os", proxy)

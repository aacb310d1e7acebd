"""The sidecar index: appends read only their own id's facts, and the index is a cache that is
checked against the journal and rebuilt, never trusted, when they differ."""

import datetime as dt
import json
import os

import pytest

from day60 import journal as jr
from day60.journal import index, lock, reader
from tests.builders import SIGN_OFF, make_journal

EVENTS = [
    ("safety.agreed", "d1", "2026-03-02T09:00", SIGN_OFF),
    ("drift.onset", "d1", "2026-03-02T10:00", {"affected_class": "forms"}),
    ("incident.detected", "i1", "2026-03-03T10:00", {"severity": 2, "source": "organic"}),
    ("incident.wait-start", "i1", "2026-03-03T11:00"),
    ("report.received", "2026-02", "2026-03-04T09:00"),
]


def rows_of(path):
    with lock.locked(path) as fd:
        idx = index.Index.open(path, fd)
        try:
            return sorted(idx.con.execute("SELECT kind, id, value FROM state").fetchall())
        finally:
            idx.close()


def rebuilt_rows(path):
    return sorted(index._rows(jr.check_rules(jr.read(path).events)))


def test_appends_use_the_index_not_the_journal(tmp_path, monkeypatch):
    path = make_journal(tmp_path / "j.jsonl", EVENTS, reveal=False)
    assert index.index_path(path).exists()

    def no_full_read(*args, **kwargs):
        raise AssertionError("an append read the whole journal")

    monkeypatch.setattr(reader, "read", no_full_read)  # where the store calls it
    monkeypatch.setattr(jr, "read", no_full_read)
    tz = jr.read_header(path)["calendar"]["timezone"]
    assert tz == "Europe/London"
    event = jr.append(path, "incident.wait-end", "i1", dt.datetime.fromisoformat("2026-03-03T12:00+00:00"))
    assert event["seq"] == len(EVENTS) + 1
    # The rules still hold through the index: a second wait-end has no open wait.
    with pytest.raises(jr.InputError, match="has no wait-start"):
        jr.append(path, "incident.wait-end", "i1", dt.datetime.fromisoformat("2026-03-03T12:30+00:00"))


def test_index_state_is_what_a_full_replay_gives(tmp_path):
    more = [("incident.wait-end", "i1", "2026-03-03T12:00"),
            ("incident.change-window-start", "i1", "2026-03-03T12:30"),
            ("incident.restored", "i1", "2026-03-03T15:00", {"check": "canary"}),
            ("report.element", "exception-rate", "2026-03-04T09:00",
             {"present": True, "covers_period": True, "supported": True}),
            ("dispute", "restore", "2026-03-05T09:00", {"line": "restore", "reason": "r", "raised_by": "x",
                                                         "organisation": "y"})]
    path = make_journal(tmp_path / "j.jsonl", EVENTS + more, reveal=False)
    assert rows_of(path) == rebuilt_rows(path)
    # The sealed onset is kept sealed in the index, as a replay sees it.
    onset = next(json.loads(v) for k, i, v in rows_of(path) if k == "onset")
    assert onset["sealed"] is True and onset["at"] is None


@pytest.mark.parametrize("damage", ["edit", "truncate", "delete index", "garbage index"])
def test_stale_or_missing_index_is_rebuilt_never_trusted(tmp_path, damage):
    path = make_journal(tmp_path / "j.jsonl", EVENTS, reveal=False)
    lines = path.read_text().splitlines(keepends=True)
    if damage == "edit":  # a line changed behind the toolkit's back: refused as a read refuses it
        lines[3] = lines[3].replace('"severity":2', '"severity":1')
        path.write_text("".join(lines))
    elif damage == "truncate":
        path.write_text("".join(lines[:-1]))
    elif damage == "delete index":
        index.index_path(path).unlink()
    else:
        index.index_path(path).write_bytes(b"not a database" * 100)
    before = path.read_bytes()
    at = dt.datetime.fromisoformat("2026-03-03T12:00+00:00")
    if damage == "edit":
        with pytest.raises(jr.InputError, match="line 4"):
            jr.append(path, "incident.wait-end", "i1", at)
        assert path.read_bytes() == before
        return
    if damage == "truncate":  # the report was cut off: its id is free again, the rest is as before
        jr.append(path, "report.received", "2026-02", at)
    else:
        jr.append(path, "incident.wait-end", "i1", at)
    assert rows_of(path) == rebuilt_rows(path)


def test_an_edit_that_keeps_size_and_time_is_still_caught_by_every_read(tmp_path):
    """The index checks size, modification and change times, inode and the last line; a forger who
    restores the file's modification time cannot put the change time back, so no append gets past
    it either (tests/test_reading_hostile.py), and no read or verify ever did."""
    path = make_journal(tmp_path / "j.jsonl", EVENTS, reveal=False)
    info = os.stat(path)
    text = path.read_text().replace('"severity":2', '"severity":3')
    path.write_text(text)
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns))
    with pytest.raises(jr.InputError, match="line 4"):
        jr.read(path)
    assert not jr.verify(path).ok

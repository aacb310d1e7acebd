"""The journal's sidecar index: what an append needs to know, kept beside the journal.

To append one event, the toolkit needs the line to chain to, the next seq, the header, and the
rules' state for the event's id (is this incident detected? is a wait open?). Reading and
re-checking the whole journal for that made every append slower as the journal grew. The
index keeps those facts in a small SQLite file beside the journal (``JOURNAL.index``), one row
per fact and id, so an append reads and writes only the rows of its own id.

The index is a cache, never evidence. Before each use it is checked against the journal: the
file's size, modification time and inode, the SHA-256 of its last line and the hash of its
header. If anything differs, or the index is missing or unreadable, it is rebuilt from a full
read of the journal, which makes every check a read makes (schema, chain, rules of fact), so
a journal changed behind the toolkit's back is refused at the next append as it always was.
Deleting the index is always safe.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import sqlite3
from pathlib import Path
from typing import Any

from day60 import journal as jr

VERSION = "3"
_GLOBAL = ("report", "dispute")  # facts not keyed by an event id: loaded whole (there are few)


def index_path(journal: Path) -> Path:
    return journal.with_name(journal.name + ".index")


class Index:
    """An open, verified index of one journal; use under the journal's append lock."""

    def __init__(self, path: Path, con: sqlite3.Connection, meta: dict[str, str], fresh: Path | None = None) -> None:
        self.path = path
        self.con = con
        self.fresh = fresh  # a rebuilt index, put in place only when an append succeeds
        self.header: dict[str, Any] = json.loads(meta["header"])
        self.seq = int(meta["seq"])
        self.prev = meta["prev"]  # SHA-256 of the last line: the next event's "prev"
        self.closed = meta["closed"] == "1"

    @classmethod
    def open(cls, path: Path, fd: int) -> Index:
        """The index of the journal at ``path`` (open as ``fd``), rebuilt if it does not match."""
        where = index_path(path)
        info = os.fstat(fd)
        if not where.exists():
            return cls._rebuild(path, where, info)
        try:
            con = sqlite3.connect(f"{where.resolve().as_uri()}?mode=rw", uri=True, isolation_level=None)
            meta = dict(con.execute("SELECT k, v FROM meta").fetchall())
            if meta.get("version") == VERSION and meta.get("stat") == _stat(info) and _tail_matches(path, meta):
                return cls(path, con, meta)
            con.close()
        except (sqlite3.Error, OSError, ValueError, KeyError):
            pass
        return cls._rebuild(path, where, info)

    @classmethod
    def _rebuild(cls, path: Path, where: Path, info: os.stat_result) -> Index:
        found = jr.scan(path)  # every check a read makes, streamed; a damaged journal is refused here
        if found.report.problem:
            raise jr.InputError("JOURNAL", f"{path}: {found.report.problem}",
                                f"run 'day60 verify {path}'; a journal is read only as 'day60' wrote it")
        if found.report.partial:
            raise jr.InputError("JOURNAL", f"{path} ends with a partial line from an interrupted write",
                                f"run 'day60 verify --repair {path}' first")
        state, last, header = found.state, found.last_line, found.header
        fresh = where.with_name(where.name + f".{os.getpid()}.new")
        fresh.unlink(missing_ok=True)
        try:
            con = sqlite3.connect(fresh, isolation_level=None)
            con.executescript("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;"
                              "CREATE TABLE meta (k TEXT PRIMARY KEY, v TEXT NOT NULL);"
                              "CREATE TABLE state (kind TEXT NOT NULL, id TEXT NOT NULL, value TEXT NOT NULL, "
                              "PRIMARY KEY (id, kind));")
            meta = {"version": VERSION, "stat": _stat(info), "header": jr.canonical(header),
                    "seq": str(found.report.events), "prev": jr.sha256_hex(last), "tail": str(len(last.encode())),
                    "closed": "1" if state.closed else "0"}
            con.executemany("INSERT INTO meta VALUES (?, ?)", meta.items())
            con.executemany("INSERT INTO state VALUES (?, ?, ?)", _rows(state))
            con.execute("CREATE INDEX state_kind ON state (kind)")
            con.execute("PRAGMA journal_mode=DELETE")
        except (sqlite3.Error, OSError):
            fresh.unlink(missing_ok=True)
            con = sqlite3.connect(":memory:", isolation_level=None)  # no room for an index: work without one
            con.executescript("CREATE TABLE state (kind TEXT, id TEXT, value TEXT, PRIMARY KEY (kind, id));"
                              "CREATE TABLE meta (k TEXT PRIMARY KEY, v TEXT);")
            con.executemany("INSERT INTO state VALUES (?, ?, ?)", _rows(state))
            return cls(path, con, meta)
        return cls(path, con, meta, fresh)

    def state_for(self, ident: str) -> jr._State:
        """The rules' state as a full replay would leave it, for this id and the shared facts."""
        state = jr._State()
        state.closed = self.closed
        rows = self.con.execute("SELECT kind, id, value FROM state WHERE id = ?", (ident,)).fetchall()
        rows += self.con.execute(f"SELECT kind, id, value FROM state WHERE kind IN {_GLOBAL}").fetchall()
        for kind, key, value in rows:
            _load(state, kind, key, json.loads(value))
        return state

    def record(self, state: jr._State, ident: str, line: str, fd: int) -> None:
        """After a line was appended: the new tail, and this id's facts as the rules left them."""
        info = os.fstat(fd)
        self.seq += 1
        self.prev = jr.sha256_hex(line)
        self.closed = state.closed
        rows = [r for r in _rows(state) if r[1] == ident or r[0] in _GLOBAL]
        with self.con:
            self.con.execute("BEGIN")
            self.con.execute("DELETE FROM state WHERE id = ?", (ident,))
            self.con.execute(f"DELETE FROM state WHERE kind IN {_GLOBAL}")
            self.con.executemany("INSERT OR REPLACE INTO state VALUES (?, ?, ?)", rows)
            self.con.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)", [
                ("stat", _stat(info)), ("seq", str(self.seq)), ("prev", self.prev),
                ("tail", str(len(line.encode()))), ("closed", "1" if self.closed else "0")])
        if self.fresh is not None:
            self.con.close()
            os.replace(self.fresh, index_path(self.path))
            self.fresh = None
            self.con = sqlite3.connect(index_path(self.path), isolation_level=None)

    def close(self) -> None:
        """Done; a rebuilt index no append used is dropped, so a refused command writes nothing."""
        self.con.close()
        if self.fresh is not None:
            self.fresh.unlink(missing_ok=True)


def forget(path: Path) -> None:
    """Drop the index (after a correction or a reveal, whose effect reaches back in time)."""
    index_path(path).unlink(missing_ok=True)


def _stat(info: os.stat_result) -> str:
    return f"{info.st_size}:{info.st_mtime_ns}:{info.st_ino}:{info.st_dev}"


def _tail_matches(path: Path, meta: dict[str, str]) -> bool:
    """The journal's last line is the one the index chains to."""
    size = int(meta["stat"].split(":")[0])
    tail = int(meta["tail"])
    with path.open("rb") as fh:
        fh.seek(max(0, size - tail - 2))
        chunk = fh.read()
    if len(chunk) < tail + 1 or not chunk.endswith(b"\n"):
        return False
    line = chunk[-tail - 1:-1]
    before = chunk[:-tail - 1]
    if before and not before.endswith(b"\n"):
        return False
    if jr.sha256_hex(line) != meta["prev"]:
        return False
    with path.open("rb") as fh:  # and the header is the one the index was built from
        first = fh.readline(1_000_000)
    return json.loads(first).get("hash") == json.loads(meta["header"]).get("hash")


# ----- the rules' state as rows ----------------------------------------------------------------

_TIMES = {"safety": "safety", "incident": "incidents", "criterion": "criteria", "decision": "decisions"}
_SETS = {"started": "started", "not_run": "not_run", "known": "known_incidents", "detected": "detected",
         "report": "reports"}


def _iso(value: dt.datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def _when(value: str | None) -> dt.datetime | None:
    return dt.datetime.fromisoformat(value) if value is not None else None


def _rows(state: jr._State) -> list[tuple[str, str, str]]:
    rows = []
    for kind, attr in _TIMES.items():
        rows += [(kind, key, json.dumps(_iso(at))) for key, at in getattr(state, attr).items()]
    for kind, attr in _SETS.items():
        rows += [(kind, key, "true") for key in getattr(state, attr)]
    rows += [("raised", key, json.dumps(_iso(at))) for key, at in state.raised.items()]
    rows += [("onset", key, json.dumps({"seq": ev.seq, "at": _iso(ev.at), "sealed": ev.sealed,
                                        "revealed": ev.revealed}))
             for key, ev in state.onsets.items()]
    rows += [(f"window:{pause}", key, json.dumps(_iso(at))) for (key, pause), at in state.open_windows.items()]
    rows += [("ending", key, json.dumps({"last": e.last, "last_at": _iso(e.last_at), "closed_at": _iso(e.closed_at),
                                         "closed_after": e.closed_after}))
             for key, e in state.endings.items()]
    rows += [("dispute", str(seq), json.dumps(outcome)) for seq, outcome in state.disputes.items()]
    return rows


def _load(state: jr._State, kind: str, key: str, value: Any) -> None:
    if kind in _TIMES:
        getattr(state, _TIMES[kind])[key] = _when(value)
    elif kind in _SETS:
        getattr(state, _SETS[kind]).add(key)
    elif kind == "raised":
        state.raised[key] = _when(value)
    elif kind == "onset":
        state.onsets[key] = jr.Effective(value["seq"], "drift.onset", key, _when(value["at"]), {}, None,
                                         sealed=value["sealed"], revealed=value["revealed"])
    elif kind.startswith("window:"):
        state.open_windows[(key, kind.split(":", 1)[1])] = _when(value)
    elif kind == "ending":
        state.endings[key] = jr.Ending(value["last"], _when(value["last_at"]), _when(value["closed_at"]),
                                       value["closed_after"])
    elif kind == "dispute":
        state.disputes[int(key)] = value

"""The journal's sidecar index: what an append needs to know, kept beside the journal.

To append one event, the toolkit needs the line to chain to, the next seq, the header, and the
rules' state for the event's id (is this incident detected? is a wait open?). Reading and
re-checking the whole journal for that made every append slower as the journal grew. The
index keeps those facts in a small SQLite file beside the journal (``JOURNAL.index``), one row
per fact and id, so an append reads and writes only the rows of its own id.

The index is a cache, never evidence, and it cannot lead an append astray:

- It is sealed (``JOURNAL.index.seal``): an HMAC-SHA-256, under a key that never leaves this
  user's own state folder (``$XDG_STATE_HOME/day60/index.key``, mode 0600), over the index file's
  SHA-256 and the journal it describes (size, modification and change times, inode, the SHA-256
  of its last line, its header's hash). An index crafted or edited by anyone else, or copied from another
  machine, does not carry a seal made with this key, and is rebuilt.
- Before each use the journal's tail is read and checked against it by hash: the last line's
  SHA-256 is the line the next event chains to, its own hash must hold and its seq must be the
  one the index names; the header's hash must be the index's.

If anything differs, or the index or its seal is missing or unreadable, it is rebuilt from a
full read of the journal, which makes every check a read makes (schema, chain, rules of fact).
Where no key can be kept, or the index path cannot be written, appends replay the journal every
time and say so; the journal line is written either way. Deleting the index is always safe.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import hmac
import json
import os
import secrets
import sqlite3
import stat
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from day60.errors import InputError, Note
from day60.journal import verification
from day60.journal.line import canonical, own_hash, sha256_hex
from day60.journal.rules import Effective, Ending, State
from day60.kinds import FIXERS

VERSION = "5"
_GLOBAL = ("report", "dispute")  # facts not keyed by an event id: loaded whole (there are few)


class IndexNote(Note):
    """Something a person should know about the index (it could not be kept); the append stands."""


def note(text: str) -> None:
    warnings.warn(IndexNote(text), stacklevel=3)


@contextlib.contextmanager
def working_journal() -> Iterator[None]:
    """Appends to a journal the toolkit builds for itself in a temporary folder and deletes before
    the command ends (the self-assessment's, or the one ``verify-report`` builds again from a
    report's answers) say nothing about its index. The user never sees that journal's path, and its
    index would never be read again: every rule is checked all the same, and a journal the user
    asked to keep (``selfassess --journal``) is a copy that carries no index. A journal the user
    names keeps its note: where no key can be kept, every append says so (the state folder that
    cannot be written is the only place a "said once already" could be remembered)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IndexNote)
        yield


def index_path(journal: Path) -> Path:
    return journal.with_name(journal.name + ".index")


def seal_path(journal: Path) -> Path:
    return journal.with_name(journal.name + ".index.seal")


def key_path() -> Path:
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "day60" / "index.key"


def _key() -> bytes | None:
    """This user's index key (32 random bytes, created on first use, mode 0600), or None."""
    path = key_path()
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except FileNotFoundError:
        try:
            path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
            try:
                os.write(fd, secrets.token_bytes(32))
                os.fsync(fd)
            finally:
                os.close(fd)
        except FileExistsError:
            pass  # another append made it a moment ago
        except OSError:
            return None
        return _key()
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        key = os.read(fd, 64)
    finally:
        os.close(fd)
    if not stat.S_ISREG(info.st_mode) or info.st_mode & 0o077 or len(key) != 32:
        return None  # a key others can read or write seals nothing
    return key


def _file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _seal(key: bytes, index_file: Path, meta: dict[str, str]) -> str:
    binding = json.dumps({"index": _file_sha256(index_file), "version": VERSION, "stat": meta["stat"],
                          "prev": meta["prev"], "seq": meta["seq"], "header": sha256_hex(meta["header"])},
                         sort_keys=True)
    return hmac.new(key, binding.encode(), hashlib.sha256).hexdigest()


class Index:
    """An open, verified index of one journal; use under the journal's append lock."""

    def __init__(self, path: Path, con: sqlite3.Connection, meta: dict[str, str], fresh: Path | None = None,
                 key: bytes | None = None, keep: bool = True) -> None:
        self.path = path
        self.con = con
        self.fresh = fresh  # a rebuilt index, put in place only when an append succeeds
        self.key = key
        self.keep = keep  # False: the index cannot be kept (no key, or its path is unusable)
        self.header: dict[str, Any] = json.loads(meta["header"])
        self.seq = int(meta["seq"])
        self.prev = meta["prev"]  # SHA-256 of the last line: the next event's "prev"
        self.closed = meta["closed"] == "1"
        self.unusable: str | None = None  # why no index is kept, when it is not

    @classmethod
    def open(cls, path: Path, fd: int) -> Index:
        """The index of the journal at ``path`` (open as ``fd``), rebuilt if it does not match."""
        where = index_path(path)
        info = os.fstat(fd)
        key = _key()
        if key is None:
            return cls._rebuild(path, where, info, None, f"no private key could be kept at {key_path()}")
        usable = _usable(where)
        if usable is not None:
            return cls._rebuild(path, where, info, key, usable)
        try:
            sealed = _read_seal(seal_path(path))
            con = sqlite3.connect(f"{where.resolve().as_uri()}?mode=rw", uri=True, isolation_level=None)
            meta = dict(con.execute("SELECT k, v FROM meta").fetchall())
            if meta.get("version") == VERSION and meta.get("stat") == _stat(info) \
                    and hmac.compare_digest(sealed, _seal(key, where, meta)) and _tail_matches(path, meta):
                return cls(path, con, meta, key=key)
            con.close()
        except (sqlite3.Error, OSError, ValueError, KeyError, UnicodeDecodeError):
            pass
        return cls._rebuild(path, where, info, key)

    @classmethod
    def _rebuild(cls, path: Path, where: Path, info: os.stat_result, key: bytes | None,
                 unusable: str | None = None) -> Index:
        found = verification.scan(path)  # every check a read makes, streamed; a damaged journal is refused here
        if found.report.problem:
            raise InputError("JOURNAL", f"{path}: {found.report.problem}",
                                f"run 'day60 verify {path}'; a journal is read only as 'day60' wrote it")
        if found.report.partial:
            raise InputError("JOURNAL", f"{path} ends with a partial line from an interrupted write",
                                f"run 'day60 verify --repair {path}' first")
        state, last, header = found.state, found.last_line, found.header
        meta = {"version": VERSION, "stat": _stat(info), "header": canonical(header),
                "seq": str(found.report.events), "prev": sha256_hex(last), "tail": str(len(last.encode())),
                "closed": "1" if state.closed else "0"}
        fresh = where.with_name(where.name + f".{os.getpid()}.new")
        if unusable is None:
            try:
                fresh.unlink(missing_ok=True)
                con = sqlite3.connect(fresh, isolation_level=None)
                con.executescript("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;"
                                  "CREATE TABLE meta (k TEXT PRIMARY KEY, v TEXT NOT NULL);"
                                  "CREATE TABLE state (kind TEXT NOT NULL, id TEXT NOT NULL, value TEXT NOT NULL, "
                                  "PRIMARY KEY (id, kind));")
                con.executemany("INSERT INTO meta VALUES (?, ?)", meta.items())
                con.executemany("INSERT INTO state VALUES (?, ?, ?)", _rows(state))
                con.execute("CREATE INDEX state_kind ON state (kind)")
                con.execute("PRAGMA journal_mode=DELETE")
                return cls(path, con, meta, fresh, key)
            except (sqlite3.Error, OSError) as exc:
                fresh.unlink(missing_ok=True)
                unusable = f"it cannot be written ({exc})"
        con = sqlite3.connect(":memory:", isolation_level=None)  # no index can be kept: work without one
        con.executescript("CREATE TABLE state (kind TEXT, id TEXT, value TEXT, PRIMARY KEY (kind, id));"
                          "CREATE TABLE meta (k TEXT PRIMARY KEY, v TEXT);")
        con.executemany("INSERT INTO state VALUES (?, ?, ?)", _rows(state))
        out = cls(path, con, meta, key=key, keep=False)
        out.unusable = unusable
        return out

    def state_for(self, ident: str) -> State:
        """The rules' state as a full replay would leave it, for this id and the shared facts."""
        state = State()
        state.closed = self.closed
        rows = self.con.execute("SELECT kind, id, value FROM state WHERE id = ?", (ident,)).fetchall()
        rows += self.con.execute(f"SELECT kind, id, value FROM state WHERE kind IN {_GLOBAL}").fetchall()
        for kind, key, value in rows:
            _load(state, kind, key, json.loads(value))
        return state

    def record(self, state: State, ident: str, line: str, fd: int) -> None:
        """After a line was appended: the new tail, and this id's facts as the rules left them.
        The line is written already: a failure here is told (IndexNote), never raised."""
        self.seq += 1
        self.prev = sha256_hex(line)
        self.closed = state.closed
        if not self.keep:
            note(f"seq {self.seq} was appended to {self.path}; its index {index_path(self.path)} was not kept "
                 f"({getattr(self, 'unusable', 'unusable')}), so each append reads the whole journal")
            return
        try:
            self._record(state, ident, line, fd)
        except (sqlite3.Error, OSError) as exc:
            for stale in (seal_path(self.path), self.fresh):
                try:
                    if stale is not None:
                        stale.unlink(missing_ok=True)
                except OSError:
                    pass
            note(f"seq {self.seq} was appended to {self.path}; its index could not be updated ({exc}) and will be "
                 "rebuilt from the journal at the next append")

    def _record(self, state: State, ident: str, line: str, fd: int) -> None:
        info = os.fstat(fd)
        rows = [r for r in _rows(state) if r[1] == ident or r[0] in _GLOBAL]
        meta = {"stat": _stat(info), "seq": str(self.seq), "prev": self.prev, "tail": str(len(line.encode())),
                "closed": "1" if self.closed else "0"}
        with self.con:
            self.con.execute("BEGIN")
            self.con.execute("DELETE FROM state WHERE id = ?", (ident,))
            self.con.execute(f"DELETE FROM state WHERE kind IN {_GLOBAL}")
            self.con.executemany("INSERT OR REPLACE INTO state VALUES (?, ?, ?)", rows)
            self.con.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)", meta.items())
        self._place_and_seal()

    def _place_and_seal(self) -> None:
        """The index file put in place (a rebuilt one) and sealed over what it now holds."""
        full = dict(self.con.execute("SELECT k, v FROM meta").fetchall())
        target = index_path(self.path)
        if self.fresh is not None:
            self.con.close()
            os.replace(self.fresh, target)
            self.fresh = None
            self.con = sqlite3.connect(target, isolation_level=None)
        sealed = seal_path(self.path)
        tmp = sealed.with_name(sealed.name + f".{os.getpid()}.new")
        tmp.write_text(_seal(self.key, target, full) + "\n", encoding="ascii")
        os.replace(tmp, sealed)

    def close(self) -> None:
        """Done; a rebuilt index no append used is dropped, so a refused command writes nothing."""
        self.con.close()
        if self.fresh is not None:
            self.fresh.unlink(missing_ok=True)


class BatchUpdate:
    """The index kept current through a batch (an import): every event the batch adds is
    replayed through the rules on the state the index holds for its id, a block of events at a
    time, the rows written inside one transaction that is committed only once the journal has
    the lines, and rolled back otherwise. So the first append after a large import reads its own
    id's rows, as after any append, instead of rebuilding the index from a full replay.

    A rule the batch breaks is refused (InputError, nothing written), as one append would be.
    An event whose effect reaches back (a correction, a reveal, an exclusion) cannot be replayed
    on one id's rows: the index is then dropped at the commit, and the next append rebuilds it.

    An id the caller vouches for (``checked``: its incident events replayed from an empty state,
    as an import checks each ticket) is not replayed a second time where the index holds no row
    for it: the state it was checked with is what a replay would leave, since an incident's rules
    read only its own id's facts. Where the index does hold rows for it, it is replayed as any."""

    BLOCK = 20_000  # events replayed at once: one query loads every id of the block

    def __init__(self, idx: Index) -> None:
        self.idx = idx
        self.pending: list[tuple[int, str, str, str, dict[str, Any]]] = []
        self.shared = State()  # the facts not keyed by an id, carried from block to block
        self.shared.closed = idx.closed
        for kind, key, value in idx.con.execute(f"SELECT kind, id, value FROM state WHERE kind IN {_GLOBAL}"):
            _load(self.shared, kind, key, json.loads(value))
        self.reaches_back = False
        self.vouched: dict[str, State] = {}  # ids of the pending block checked by the caller
        idx.con.execute("BEGIN")

    @classmethod
    def begin(cls, path: Path, fd: int) -> BatchUpdate:
        """The index of the journal at ``path`` (locked, open as ``fd``), rebuilt first if it does
        not match. Where no index can be kept (no private key, or its path cannot be written or
        read), the index is one built in memory from a full read of the journal: the batch's
        events are checked against it all the same, and nothing but the lines reaches the disk."""
        idx = Index.open(path, fd)
        try:
            return cls(idx)
        except sqlite3.Error as exc:
            idx.close()
            return cls(Index._rebuild(path, index_path(path), os.fstat(fd), None, f"it could not be read ({exc})"))

    def add(self, seq: int, kind: str, ident: str, at: str, data: dict[str, Any]) -> None:
        if kind in FIXERS or (kind == "resolve" and data.get("exclude")):
            self.reaches_back = True
        self.pending.append((seq, kind, ident, at, data))
        if len(self.pending) >= self.BLOCK:
            self.replay()

    def checked(self, ident: str, state: State) -> None:
        """``ident``'s events, added before the next block is replayed, were replayed by the caller
        from an empty state and left ``state``."""
        self.vouched[ident] = state

    def replay(self) -> None:
        """The pending events through the rules, on their ids' rows; the rows written back."""
        vouched, self.vouched = self.vouched, {}
        if not self.pending or self.reaches_back:
            self.pending.clear()
            return
        con = self.idx.con
        state = State()
        state.closed, state.reports, state.disputes = self.shared.closed, self.shared.reports, self.shared.disputes
        ids = list(dict.fromkeys(p[2] for p in self.pending))
        pending = set(ids)
        con.execute("CREATE TEMP TABLE IF NOT EXISTS batch_ids (id TEXT PRIMARY KEY)")
        con.execute("DELETE FROM batch_ids")
        con.executemany("INSERT INTO batch_ids VALUES (?)", ((i,) for i in ids))
        held = set()
        for kind, key, value in con.execute(f"SELECT kind, id, value FROM state WHERE id IN (SELECT id FROM "
                                            f"batch_ids) AND kind NOT IN {_GLOBAL}"):
            _load(state, kind, key, json.loads(value))
            held.add(key)
        # A vouched id's state stands for a replay only where the index held nothing for it, its
        # events are all in this block and the block holds incident events alone (which read and
        # write their own id's facts, and nothing shared); otherwise every event is replayed.
        taken = {ident: s for ident, s in vouched.items() if ident in pending and ident not in held}
        if taken and (state.closed or any(not p[1].startswith("incident.") for p in self.pending)):
            taken = {}
        when = dt.datetime.fromisoformat
        for seq, kind, ident, at, data in self.pending:
            if ident not in taken:
                state.apply_at(Effective(seq, kind, ident, when(at) if at is not None else None, data, at))
        self.pending.clear()
        con.execute("DELETE FROM state WHERE id IN (SELECT id FROM batch_ids)")
        con.execute(f"DELETE FROM state WHERE kind IN {_GLOBAL}")
        con.executemany("INSERT OR REPLACE INTO state VALUES (?, ?, ?)", _rows(state))
        con.executemany("INSERT OR REPLACE INTO state VALUES (?, ?, ?)",
                        [r for ident, checked in taken.items() for r in _rows(checked)
                         if r[1] == ident and r[0] not in _GLOBAL])
        self.shared = state  # its ids' facts are written; only the shared ones are read from it again

    def commit(self, seq: int, last_line: str, fd: int) -> None:
        """The journal holds the batch's lines (``seq``: the last one's, ``last_line``: its text):
        the index takes the new tail and is committed and sealed. A failure here is told
        (IndexNote) and the index dropped: the lines stand, the next append rebuilds it."""
        idx = self.idx
        if not idx.keep:  # the batch was checked against the index in memory: nothing to keep of it
            note(f"the batch was appended to {idx.path}; its index {index_path(idx.path)} was not kept "
                 f"({idx.unusable or 'unusable'}), so its events were checked against a full read of the "
                 "journal, and every append reads the whole journal")
            self.abandon()
            return
        try:
            if self.reaches_back:
                raise sqlite3.Error("the batch holds an event whose effect reaches back")
            self.replay()
            idx.seq, idx.prev, idx.closed = seq, sha256_hex(last_line), self.shared.closed
            meta = {"stat": _stat(os.fstat(fd)), "seq": str(seq), "prev": idx.prev,
                    "tail": str(len(last_line.encode())), "closed": "1" if idx.closed else "0"}
            idx.con.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)", meta.items())
            idx.con.execute("COMMIT")
            idx._place_and_seal()
        except (sqlite3.Error, OSError) as exc:
            if idx.con.in_transaction:
                idx.con.execute("ROLLBACK")
            idx.close()
            forget(idx.path)
            if not self.reaches_back:
                note(f"the batch was appended to {idx.path}; its index could not be updated ({exc}) and will be "
                     "rebuilt from the journal at the next append")
            return
        idx.close()

    def abandon(self) -> None:
        """The batch wrote nothing: the index stays as it was."""
        try:
            if self.idx.con.in_transaction:
                self.idx.con.execute("ROLLBACK")
        except sqlite3.Error:
            pass
        self.idx.close()


def _read_seal(path: Path) -> str:
    """The seal's hex digest, read only from a regular file and never more than a line."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise ValueError("the seal is not a file")
        return os.read(fd, 200).decode("ascii").strip()
    finally:
        os.close(fd)


def _usable(where: Path) -> str | None:
    """Why the index path cannot hold an index (a folder, a device, a link), or None."""
    try:
        info = os.lstat(where)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"it cannot be read ({exc.strerror})"
    if stat.S_ISLNK(info.st_mode):
        return "it is a symbolic link"
    if not stat.S_ISREG(info.st_mode):
        return "it is a folder or a device, not a file"
    return None


def forget(path: Path) -> None:
    """Drop the index (after a correction or a reveal, whose effect reaches back in time)."""
    for stale in (seal_path(path), index_path(path)):
        try:
            if _usable(stale) is None:
                stale.unlink(missing_ok=True)
        except OSError:
            pass


def _stat(info: os.stat_result) -> str:
    """The journal file as the index last saw it. The change time is in it because no one can set
    it back (``touch`` and ``os.utime`` set the modification time, and move the change time on):
    an edit that keeps the size and restores the modification time still makes the index stale."""
    return f"{info.st_size}:{info.st_mtime_ns}:{info.st_ctime_ns}:{info.st_ino}:{info.st_dev}"


def _tail_matches(path: Path, meta: dict[str, str]) -> bool:
    """The journal's last line is the one the index chains to: its SHA-256, its own hash and its
    seq; and the header is the one the index was built from."""
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
    if sha256_hex(line) != meta["prev"]:
        return False
    text = line.decode("utf-8")
    last = json.loads(text)
    seq = last.get("seq", 0) if isinstance(last, dict) else None
    if seq != int(meta["seq"]) or own_hash(text, last) != last.get("hash"):
        return False
    with path.open("rb") as fh:  # and the header is the one the index was built from
        first = fh.readline()
    return json.loads(first).get("hash") == json.loads(meta["header"]).get("hash")


# ----- the rules' state as rows ----------------------------------------------------------------

_TIMES = {"safety": "safety", "incident": "incidents", "criterion": "criteria", "decision": "decisions"}
_SETS = {"started": "started", "not_run": "not_run", "known": "known_incidents", "detected": "detected",
         "report": "reports"}


def _iso(value: dt.datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def _when(value: str | None) -> dt.datetime | None:
    return dt.datetime.fromisoformat(value) if value is not None else None


def _rows(state: State) -> list[tuple[str, str, str]]:
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


def _load(state: State, kind: str, key: str, value: Any) -> None:
    if kind in _TIMES:
        getattr(state, _TIMES[kind])[key] = _when(value)
    elif kind in _SETS:
        getattr(state, _SETS[kind]).add(key)
    elif kind == "raised":
        state.raised[key] = _when(value)
    elif kind == "onset":
        state.onsets[key] = Effective(value["seq"], "drift.onset", key, _when(value["at"]), {}, None,
                                         sealed=value["sealed"], revealed=value["revealed"])
    elif kind.startswith("window:"):
        state.open_windows[(key, kind.split(":", 1)[1])] = _when(value)
    elif kind == "ending":
        state.endings[key] = Ending(value["last"], _when(value["last_at"]), _when(value["closed_at"]),
                                       value["closed_after"])
    elif kind == "dispute":
        state.disputes[int(key)] = value

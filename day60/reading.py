"""The one place that chooses how a journal is read: on the engine's fast path where it can
vouch for the journal, by the reference reader (``journal.read``) otherwise.

Every command that reads a journal for figures, a table or a report reads it here, so they all
see it the same way. For a journal of some size the engine (``day60.engine``) tries; at its first
doubt it declines, and the reference reader reads the file line by line, accepting it or naming
its first bad line. A small journal (an exercise's, a few hundred lines) goes to the reference
reader at once: starting the engine costs more than reading it so (benchmarks/reader_crossover.py).
The two give the same journal and the same figures either way (tests/test_engine.py holds them to
it), so the size only chooses how fast the answer comes. Either reader reads under the journal's
shared lock, taken here, so an append or an import under way is seen whole or not at all, on
both sides of the size. Neither reader calls the other: both sit below this module.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from day60 import journal as jr
from day60.errors import InputError

# Below this many bytes the reference reader is faster than the engine's start (a DuckDB
# connection, its threads and a scan plan); measured by benchmarks/reader_crossover.py.
ENGINE_FROM_BYTES = 1024 * 1024


# Bytes kept from the end of the file as the lock found it: a file that is longer after the read
# only grew by an append if these are still where they were (a rewrite that grew would move them).
TAIL_BYTES = 4096


@contextmanager
def _held(path: str | Path, locked: bool, grows: bool = True) -> Iterator[os.stat_result | None]:
    """The journal held under the shared lock while it is read (unless ``locked``: the caller holds
    the exclusive one), so an append, which takes the exclusive lock for as long as it writes (an
    import's batch, a megabyte at a time), is seen whole or not at all: never half a batch ending
    in a partial line. Yields the file's facts as the lock found them, or None where it cannot be
    opened or is not a regular file: the reader then opens it itself and names what is wrong.

    Once read, the file must still be the one the lock found, unchanged (``_unchanged``); with
    ``grows`` (and only when this read took the lock itself), lines appended meanwhile are
    allowed, as the reader sees them whole or as a partial last line."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # never waits on a named pipe
    except (OSError, ValueError):
        yield None
        return
    try:
        facts = os.fstat(fd)
        if not stat.S_ISREG(facts.st_mode):
            yield None
            return
        if not locked:  # under the caller's exclusive lock a shared one would wait for ever
            with contextlib.suppress(OSError):  # a file system without locks: read as it stands
                fcntl.flock(fd, fcntl.LOCK_SH)
            facts = os.fstat(fd)  # the size once any append under way has finished
        with _unchanged(path, fd, facts, grows and not locked):
            yield facts
    finally:
        os.close(fd)  # and with it the lock


def _tail(fd: int, size: int) -> bytes | None:
    """The last ``TAIL_BYTES`` of the first ``size`` bytes, or None where they cannot be read."""
    start = max(0, size - TAIL_BYTES)
    try:
        return os.pread(fd, size - start, start)
    except OSError:
        return None


@contextmanager
def _unchanged(path: str | Path, fd: int, facts: os.stat_result, grows: bool) -> Iterator[None]:
    """Refuse a journal that changed while it was read: shorter than the lock found it, no longer
    the file its name leads to (renamed over, a link turned, deleted), or written to other than by
    an append (same size, or longer with its old last bytes changed).

    A journal only grows, and every writer in the toolkit waits for the exclusive lock (``verify
    --repair``, the one thing that cuts one, included), so a file that changes under the shared one
    is changed by something else, and what the reader made of it is half of one journal or a mix of
    two: a reader that reached a cut stops there and takes the lines before it for the whole
    journal; ``verify`` reads the file three times and the engine reads lines back after its scan,
    so each pass may see another file. Its figures are not given; whatever the reader raised on
    the changed file (its own refusal, or a fault on bytes it never expected) gives way to this
    refusal, which names the cause. Growth alone is allowed where ``grows`` says so: the reader
    reads on to the end, and each line it takes is checked against the one before it."""
    tail = _tail(fd, facts.st_size)
    try:
        yield
    except Exception:
        problem = _changed(path, fd, facts, tail, grows)
        if problem is None:
            raise
        raise problem from None
    problem = _changed(path, fd, facts, tail, grows)
    if problem is not None:
        raise problem


def _changed(path: str | Path, fd: int, facts: os.stat_result, tail: bytes | None, grows: bool) -> InputError | None:
    now = os.fstat(fd)  # an open descriptor can always be measured, whatever became of the name
    check = f"'day60 verify {path} --expect SEQ:HASH'"
    if now.st_size < facts.st_size:
        return InputError("JOURNAL", f"{path} shrank from {facts.st_size} to {now.st_size} bytes while it was read, "
                          "and a journal only grows: something other than day60 is cutting or rewriting it, so "
                          "nothing was computed from it",
                          f"stop whatever is changing it, then check it against the head a report printed: {check}")
    try:
        named = os.stat(path)
    except OSError as exc:
        return InputError("JOURNAL", f"{path} could no longer be found by its name once it was read "
                          f"({exc.strerror}): it was moved or deleted meanwhile, so nothing was computed from it",
                          f"put the journal back, then run the command again and check it: {check}")
    if (named.st_dev, named.st_ino) != (now.st_dev, now.st_ino):
        return InputError("JOURNAL", f"{path} was replaced while it was read: its name now leads to another file "
                          f"({named.st_size} bytes, where the one read held {facts.st_size}), so nothing was "
                          "computed from it",
                          f"stop whatever is replacing it, then run the command again and check it: {check}")
    if (now.st_size, now.st_mtime_ns, now.st_ctime_ns) == (facts.st_size, facts.st_mtime_ns, facts.st_ctime_ns):
        return None
    if now.st_size > facts.st_size and grows and tail is not None and _tail(fd, facts.st_size) == tail:
        return None  # lines appended after the end the lock found: the reader took them as they are
    if now.st_size > facts.st_size:
        how = f"it grew from {facts.st_size} to {now.st_size} bytes" + ("" if grows else " while it was checked")
        if _tail(fd, facts.st_size) != tail:
            how += ", and not by an append: the bytes that ended it changed"
    elif now.st_mtime_ns != facts.st_mtime_ns:
        how = f"its {facts.st_size} bytes were written over in place"
    else:
        how = ("its size and modification time stayed, but its change time moved: its attributes were changed, "
               "or it was written over and its modification time set back")
    return InputError("JOURNAL", f"{path} changed while it was read ({how}), and a journal is only appended to, "
                      "under its lock: something other than day60 is writing it, so nothing was computed from it",
                      f"stop whatever is changing it, then run the command again and check it: {check}")


def _engine_pays(facts: os.stat_result | None) -> bool:
    """Whether to try the engine: a regular file of ENGINE_FROM_BYTES or more. Anything else (a
    small file, a missing one, a pipe) goes to the reference reader, which names what is wrong
    with it as it always has. The size is only a choice of speed: if the file changes between
    this look and the read, either reader still checks whatever it then reads."""
    return facts is not None and facts.st_size >= ENGINE_FROM_BYTES


def read(path: str | Path, locked: bool = False, events: bool = False) -> jr.Journal:
    """The journal, checked as ``journal.read`` checks it, under the shared lock (``_held``).

    On the fast path the incident events are held in ``Journal.incidents`` (the engine's tables,
    which ``metrics.compute`` reads), and ``events`` holds the other events only, unless
    ``events=True`` asks for every event as well (a timeline, the ``show`` table, a score that
    lists corrections and disputes): in file order, each as ``journal.read`` parses it.
    ``locked``: the caller already holds the journal's lock (an import appending to it).
    """
    with _held(path, locked) as facts:
        if _engine_pays(facts):
            from day60 import engine

            try:
                return engine.read_fast(path, locked=True, events=events)
            except engine.Declined:
                pass
        return jr.read(path)


def verify(path: str | Path, expect: str | None = None) -> jr.VerifyReport:
    """``journal.verify``: every line's canonical form, hash and chain, the reveals and the rules
    of fact, on the fast path where it can vouch for the journal (the same report either way),
    under the shared lock, so that an append under way is not reported as a partial last line."""
    with _held(path, False, grows=False) as facts:  # three passes over the file must see one file
        if _engine_pays(facts):
            from day60 import engine

            try:
                return engine.verify_fast(path, expect, locked=True)
            except engine.Declined:
                pass
        return jr.verify(path, expect)


def read_back(journal: jr.Journal, done: str) -> bytes:
    """Exactly the bytes ``journal`` was read from, read again for a report to carry: the file's
    first lines up to the head it was read at, which must hash as they did when read. A line
    appended since (a 'day60 log' after the read, a timestamp token) is left out, as a partial
    last line is; a file changed in any other way is refused, since the report would carry a
    journal its figures were not computed from. ``done``: what was done with it ("scored")."""
    import hashlib

    try:
        raw = Path(journal.path).read_bytes()
    except OSError as exc:
        raw, reason = b"", f"it cannot be read again ({exc.strerror})"
    else:
        reason = f"its lines up to the head it was {done} at are not the lines {done}"
    end = -1
    for _ in range(journal.head["seq"] + 1):  # the header and one line per event
        end = raw.find(b"\n", end + 1)
        if end < 0:
            break
    kept = raw[: end + 1] if end >= 0 else b""
    if hashlib.sha256(kept).hexdigest() != journal.sha256:
        raise InputError("JOURNAL", f"{journal.path} changed after it was {done}: {reason}, so no report was "
                         "written", "stop whatever is rewriting it, check it with 'day60 verify', then run the "
                         "command again")
    return kept


@contextmanager
def batch(path: str | Path) -> Iterator[jr.Batch]:
    """``journal.batch``, with the journal read under the batch's lock on the engine where it can
    be (a year of tickets is read in seconds there, not minutes)."""
    with jr.batch(path, read_with=lambda p: read(p, locked=True)) as b:
        yield b

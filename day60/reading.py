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
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from day60 import journal as jr
from day60.errors import InputError

# Below this many bytes the reference reader is faster than the engine's start (a DuckDB
# connection, its threads and a scan plan); measured by benchmarks/reader_crossover.py.
ENGINE_FROM_BYTES = 1024 * 1024


@contextmanager
def _held(path: str | Path, locked: bool) -> Iterator[os.stat_result | None]:
    """The journal held under the shared lock while it is read (unless ``locked``: the caller holds
    the exclusive one), so an append, which takes the exclusive lock for as long as it writes (an
    import's batch, a megabyte at a time), is seen whole or not at all: never half a batch ending
    in a partial line. Yields the file's facts as the lock found them, or None where it cannot be
    opened or is not a regular file: the reader then opens it itself and names what is wrong.

    Once read, the file must be at least as long as the lock found it (``_not_cut``)."""
    if locked:
        try:
            facts: os.stat_result | None = os.stat(path)
        except (OSError, ValueError):
            facts = None
        facts = facts if facts is not None and stat.S_ISREG(facts.st_mode) else None
        with _not_cut(path, facts, lambda: os.stat(path)):
            yield facts
        return
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # never waits on a named pipe
    except (OSError, ValueError):
        yield None
        return
    try:
        facts = os.fstat(fd)
        if stat.S_ISREG(facts.st_mode):
            with contextlib.suppress(OSError):  # a file system without locks: read as it stands
                fcntl.flock(fd, fcntl.LOCK_SH)
            facts = os.fstat(fd)  # the size once any append under way has finished
        facts = facts if stat.S_ISREG(facts.st_mode) else None
        with _not_cut(path, facts, lambda: os.fstat(fd)):
            yield facts
    finally:
        os.close(fd)  # and with it the lock


@contextmanager
def _not_cut(path: str | Path, facts: os.stat_result | None, now: Callable[[], os.stat_result]) -> Iterator[None]:
    """Refuse a journal that is shorter after the read than the lock found it.

    A journal only grows, and what cuts one in the toolkit (``verify --repair``) waits for the
    exclusive lock, so a file that shrank under the shared one was cut by something else, and
    what the reader made of it is half of one journal or a mix of two: a reader that reached the
    cut stops there and takes the lines before it for the whole journal (the engine's own checks
    decline, and the reference reader then reads whatever is left). Its figures are not given;
    a refusal the reader raised on the cut file gives way to this one, which names the cause."""
    try:
        yield
    except InputError:
        problem = _cut(path, facts, now)
        if problem is None:
            raise
        raise problem from None
    problem = _cut(path, facts, now)
    if problem is not None:
        raise problem


def _cut(path: str | Path, facts: os.stat_result | None, now: Callable[[], os.stat_result]) -> InputError | None:
    if facts is None:
        return None
    try:
        size = now().st_size
    except (OSError, ValueError):
        return None  # not measured: the reader's own refusal, if any, stands
    if size >= facts.st_size:
        return None
    return InputError("JOURNAL", f"{path} shrank from {facts.st_size} to {size} bytes while it was read, and a "
                      "journal only grows: something other than day60 is cutting or rewriting it, so nothing "
                      "was computed from it",
                      f"stop whatever is changing it, then check it against the head a report printed: "
                      f"'day60 verify {path} --expect SEQ:HASH'")


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
    with _held(path, False) as facts:
        if _engine_pays(facts):
            from day60 import engine

            try:
                return engine.verify_fast(path, expect, locked=True)
            except engine.Declined:
                pass
        return jr.verify(path, expect)


@contextmanager
def batch(path: str | Path) -> Iterator[jr.Batch]:
    """``journal.batch``, with the journal read under the batch's lock on the engine where it can
    be (a year of tickets is read in seconds there, not minutes)."""
    with jr.batch(path, read_with=lambda p: read(p, locked=True)) as b:
        yield b

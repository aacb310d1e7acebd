"""The one place that chooses how a journal is read: on the engine's fast path where it can
vouch for the journal, by the reference reader (``journal.read``) otherwise.

Every command that reads a journal for figures, a table or a report reads it here, so they all
see it the same way. For a journal of some size the engine (``day60.engine``) tries; at its first
doubt it declines, and the reference reader reads the file line by line, accepting it or naming
its first bad line. A small journal (an exercise's, a few hundred lines) goes to the reference
reader at once: starting the engine costs more than reading it so (benchmarks/reader_crossover.py).
The two give the same journal and the same figures either way (tests/test_engine.py holds them to
it), so the size only chooses how fast the answer comes. Neither reader calls the other: both sit
below this module.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from day60 import journal as jr

# Below this many bytes the reference reader is faster than the engine's start (a DuckDB
# connection, its threads and a scan plan); measured by benchmarks/reader_crossover.py.
ENGINE_FROM_BYTES = 1024 * 1024


def _engine_pays(path: str | Path) -> bool:
    """Whether to try the engine: a regular file of ENGINE_FROM_BYTES or more. Anything else (a
    small file, a missing one, a pipe) goes to the reference reader, which names what is wrong
    with it as it always has. The size is only a choice of speed: if the file changes between
    this look and the read, either reader still checks whatever it then reads."""
    try:
        facts = os.stat(path)
    except (OSError, ValueError):
        return False
    return stat.S_ISREG(facts.st_mode) and facts.st_size >= ENGINE_FROM_BYTES


def read(path: str | Path, locked: bool = False, events: bool = False) -> jr.Journal:
    """The journal, checked as ``journal.read`` checks it.

    On the fast path the incident events are held in ``Journal.incidents`` (the engine's tables,
    which ``metrics.compute`` reads), and ``events`` holds the other events only, unless
    ``events=True`` asks for every event as well (a timeline, the ``show`` table, a score that
    lists corrections and disputes): in file order, each as ``journal.read`` parses it.
    ``locked``: the caller already holds the journal's lock (an import appending to it).
    """
    if _engine_pays(path):
        from day60 import engine

        try:
            return engine.read_fast(path, locked=locked, events=events)
        except engine.Declined:
            pass
    return jr.read(path)


def verify(path: str | Path, expect: str | None = None) -> jr.VerifyReport:
    """``journal.verify``: every line's canonical form, hash and chain, the reveals and the rules
    of fact, on the fast path where it can vouch for the journal (the same report either way)."""
    if _engine_pays(path):
        from day60 import engine

        try:
            return engine.verify_fast(path, expect)
        except engine.Declined:
            pass
    return jr.verify(path, expect)


@contextmanager
def batch(path: str | Path) -> Iterator[jr.Batch]:
    """``journal.batch``, with the journal read under the batch's lock on the engine where it can
    be (a year of tickets is read in seconds there, not minutes)."""
    with jr.batch(path, read_with=lambda p: read(p, locked=True)) as b:
        yield b

"""Progress on stderr for work a person waits on: a bar that counts (tickets imported, journals
scored) or, where the amount is not known ahead, a spinner with the time taken so far.

It is drawn only when stderr is a terminal (never into a pipe, a file or a test's captured
output), only once the work has lasted long enough to be worth watching, and it is wiped when the
work ends, so what the command prints afterwards reads as it always did. Standard output (tables,
JSON) is never touched. ``DAY60_NO_PROGRESS=1`` turns it off.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

DELAY = 0.4  # seconds of work before anything is drawn: a quick command never flickers


def wanted() -> bool:
    """True when a person is watching stderr (a terminal that can redraw a line)."""
    try:
        terminal = sys.stderr.isatty()
    except (AttributeError, ValueError):  # a closed or replaced stream
        return False
    return terminal and os.environ.get("TERM") != "dumb" and not os.environ.get("DAY60_NO_PROGRESS")


class Bar:
    """One task's progress: ``update(done, what)`` as the work goes on. Nothing is drawn before
    ``DELAY`` has passed, nor ever when no one is watching."""

    def __init__(self, what: str, total: int | None = None, unit: str = "", show: bool | None = None) -> None:
        self.what, self.total, self.unit = what, total, unit
        self.show = wanted() if show is None else show
        self.started = time.monotonic()
        self.done = 0
        self._progress: Any = None
        self._task: Any = None
        self._lock = threading.Lock()  # the work and the spinner's thread both update it

    def update(self, done: int | None = None, what: str | None = None) -> None:
        if done is not None:
            self.done = done
        if what is not None:
            self.what = what
        if not self.show:
            return
        with self._lock:
            if self._progress is None:
                if time.monotonic() - self.started < DELAY:
                    return
                self._start()
            self._progress.update(self._task, completed=self.done, description=self.what)

    def advance(self, n: int = 1) -> None:
        self.update(self.done + n)

    def _start(self) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

        count = "{task.completed:,}" + (" of {task.total:,}" if self.total is not None else "") + \
            (f" {self.unit}" if self.unit else "")
        columns = [SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), TextColumn(count),
                   TimeElapsedColumn()]
        if not self.unit:
            columns.remove(columns[3])
        # A line written to stderr meanwhile (a warning) is printed above the bar; standard output
        # is left alone, so a table or JSON piped on is never drawn onto the terminal's stderr.
        self._progress = Progress(*columns, console=Console(file=sys.stderr), transient=True,
                                  redirect_stdout=False, redirect_stderr=True)
        self._task = self._progress.add_task(self.what, total=self.total, completed=self.done)
        self._progress.start()

    def close(self) -> None:
        with self._lock:
            if self._progress is not None:
                self._progress.stop()
                self._progress = None
            self.show = False  # a late update from the spinner's thread draws nothing


@contextlib.contextmanager
def bar(what: str, total: int | None = None, unit: str = "") -> Iterator[Bar]:
    """A ``Bar`` for the length of a ``with`` block, wiped at its end however the block ends. A
    thread redraws it ten times a second, so it keeps moving (and appears after ``DELAY``) even
    while one long step gives it no news."""
    b = Bar(what, total, unit)
    if not b.show:
        yield b
        return
    stop = threading.Event()

    def tick() -> None:
        while not stop.wait(0.1):
            b.update()

    watcher = threading.Thread(target=tick, name="day60-progress", daemon=True)
    watcher.start()
    try:
        yield b
    finally:
        stop.set()
        watcher.join()
        b.close()


@contextlib.contextmanager
def stage(what: str) -> Iterator[Callable[[str], None]]:
    """A spinner for work whose length is not known ahead (reading a large journal, computing its
    figures, rendering a PDF); yields a function that names the next step."""
    with bar(what) as b:
        yield lambda text: b.update(what=text)


def import_callback(b: Bar) -> Callable[[str, int], None]:
    """What ``imports.run_import`` calls as it goes: each step of the import in words on the bar,
    with the records read so far."""
    words = {"journal": "reading the journal", "tickets": "importing tickets", "reconciling":
             "setting our figures beside the supplier's"}

    def report(step: str, done: int) -> None:
        b.update(done, words.get(step, step))

    return report

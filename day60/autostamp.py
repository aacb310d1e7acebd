"""Trusted time asked for while an exercise is recorded (`live --tsa`, `serve --tsa`).

After every recorded step (``each``), or only once the exercise is closed (``close``), the
timestamp authority is asked for an RFC 3161 token over the journal's head, appended as a
``timestamp.token`` line exactly as ``day60 stamp`` writes it. A token covers every line up to
the head it names, so one token after a burst of presses proves all of them.

A failed request never undoes or blocks what was recorded: the step stands, the failure is said
in one line, and ``day60 stamp`` can be run later (the later token then proves less: only that
the lines existed by its own time).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from day60.errors import InputError

WHEN = ("each", "close")
BY = "day60 (timestamp authority)"


def from_options(tsa: str | None, when: str, roots: list[Path]) -> AutoStamp | None:
    """The policy ``--tsa``, ``--tsa-when`` and ``--tsa-root`` ask for (None without --tsa), each
    option checked before anything starts."""
    from day60.evidence import timestamp

    if tsa is None:
        if roots or when != "each":
            raise InputError("--tsa-root/--tsa-when", "only apply with a timestamp authority",
                             "add --tsa URL, or drop them")
        return None
    if when not in WHEN:
        raise InputError("--tsa-when", f"is {when[:40]!r}", "give 'each' (after every recorded step) or 'close'")
    return AutoStamp(timestamp.check_url(tsa), when, timestamp.load_roots(roots))


@dataclass
class AutoStamp:
    """When and where to ask for tokens; ``roots`` are the trusted TSA roots (none: unchecked)."""

    url: str
    when: str = "each"
    roots: list[Any] = field(default_factory=list)

    def wanted(self, kinds: list[str]) -> bool:
        """Whether lines of ``kinds`` just written call for a token (a token never calls for another)."""
        from day60.evidence import timestamp

        kinds = [k for k in kinds if k != timestamp.KIND]
        return bool(kinds) and (self.when == "each" or "exercise.close" in kinds)

    def stamp(self, path: Path) -> str:
        """Ask for a token over the head now; the line to show, whether it worked or not."""
        from day60.evidence import timestamp

        try:
            event = timestamp.stamp(path, self.url, roots=self.roots or None, by=BY)
        except InputError as exc:
            return (f"not timestamped: {exc.problem}; what was recorded stands; "
                    f"'day60 stamp {path} --tsa URL' asks again later")
        data = event["data"]
        return (f"timestamped: events up to seq {data['covers_seq']} existed by {event['at']} "
                f"(token at seq {event['seq']})")


class Worker:
    """Tokens asked for off the request path (``serve``): a poke while a request is in flight is
    folded into the next one, whose token covers whatever the head is by then."""

    def __init__(self, auto: AutoStamp, path: Path, echo: Callable[[str], None]) -> None:
        self.auto, self.path, self.echo = auto, path, echo
        self._due = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="day60-tsa", daemon=True)
        self._thread.start()

    def poke(self, kinds: list[str]) -> None:
        if self.auto.wanted(kinds):
            self._due.set()

    def _run(self) -> None:
        while True:
            if self._due.wait(0.2):
                self._due.clear()
                self.echo(self.auto.stamp(self.path))
            elif self._stop.is_set():
                return

    def close(self, timeout: float = 30.0) -> None:
        """Finish a token still due, then stop."""
        self._stop.set()
        self._thread.join(timeout)

"""The reference reader: a journal read whole into memory, every line checked as ``verify``
checks it (schema, chain, rules of fact), or refused naming its first bad line.

``day60.reading`` chooses between this reader and the engine's fast path; nothing in the
journal package calls the engine.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from day60.errors import InputError
from day60.events import FORMAT
from day60.journal.line import (
    BOM,
    Lines,
    canonical,
    check_event,
    check_header,
    loads_line,
    parse_line,
    raw_problem,
    with_hash,
)
from day60.journal.rules import check_rules


@dataclass
class Journal:
    """A journal as read: its header, its events (parsed lines) and what the next append needs."""

    path: Path
    header: dict[str, Any]
    events: list[dict[str, Any]]
    last_line: str  # the last complete line, without its newline: the next event chains to it
    sha256: str  # of every complete line, newlines included
    partial: str | None = None  # an incomplete last line (a crash mid-write), if any
    # Set by the engine's fast path only: the incident events then live in this table
    # (``engine.Incidents``), and in ``events`` too only when every event was asked for
    # (``reading.read(..., events=True)``); ``tail`` is the chain's head, which ``events`` may not give.
    incidents: Any = None
    tail: dict[str, Any] | None = None

    @property
    def tz(self) -> Any:
        from zoneinfo import ZoneInfo

        return ZoneInfo(self.header["calendar"]["timezone"])

    def calendar(self) -> Any:
        from day60.clock import BusinessCalendar

        return BusinessCalendar.from_dict(self.header["calendar"])

    @property
    def head(self) -> dict[str, Any]:
        """The chain's head: the last event's seq and hash (seq 0 and the header's hash when empty).
        Printed by every report, it anchors the chain: ``verify --expect SEQ:HASH`` then detects a
        journal cut short or rewritten after it."""
        if self.tail is not None:
            return self.tail
        last = self.events[-1] if self.events else self.header
        return {"seq": len(self.events), "hash": last["hash"]}


def _foreign(path: Path, n: int, raw: bytes) -> None:
    """Refuse a line an editor or a transfer changed in a way that can be undone (a byte-order
    mark, CR LF line ends), saying so and how, rather than calling it an edited line."""
    found = raw_problem(n, raw, path)
    if found is not None:
        raise InputError("JOURNAL", f"{path}: line {n}: {found[0]}", found[1])


def _no_header(path: Path, rest: bytes) -> InputError:
    """A file without one whole line: empty, cut short, or with CR alone ending its lines."""
    if b"\r" in rest[:1_000_000] and rest.removeprefix(BOM).startswith(b"{"):
        return InputError("JOURNAL", f"{path} ends its lines with CR alone (old Mac line ends), where day60 ends "
                          "them with LF: an editor or a file transfer converted the file",
                          f"convert the line ends back (for example mac2unix {path}), then run 'day60 verify {path}'")
    return InputError("JOURNAL", f"{path} has no complete header line", "create the journal with 'day60 new'")


def _header(path: Path, line: str) -> dict[str, Any]:
    """Line 1 read and checked as a header (``read`` and ``read_header`` check it alike)."""
    header, problem = parse_line(1, line)
    if problem is None and (not isinstance(header, dict) or header.get("format") != FORMAT):
        raise InputError("JOURNAL", f"{path} is not a day60 journal", "give a file made by 'day60 new'")
    if problem is None and canonical(header) != line:
        problem = "not in canonical form (the line was edited)"
    if problem is None and with_hash(header)["hash"] != header.get("hash"):
        # the header's hash names the journal (the held file, the index, an empty journal's head):
        # a header changed and the chain re-made after it is refused as verify refuses it
        problem = "its hash does not match its content (the line was edited)"
    problem = problem or check_header(header)
    if problem:
        raise _damaged(path, 1, problem)
    return header


def _damaged(path: Path, line: int, problem: str) -> InputError:
    return InputError("JOURNAL", f"{path}: line {line}: {problem}",
                      f"run 'day60 verify {path}'; a journal is read only as 'day60' wrote it")


def read(path: str | Path) -> Journal:
    """Read a journal, checking every line as ``verify`` does (schema, chain, rules of fact), and
    refuse a damaged one naming its first bad line (exit 2): no figure comes from a bad journal.

    A partial last line is kept aside in ``Journal.partial`` and everything before it is used.
    The file is streamed and parsed a block of lines at a time, so only the events themselves
    are held, not the file's text as well.
    """
    from day60.files import MAX_JOURNAL_BYTES, open_regular

    path = Path(path)
    fd = open_regular(path, "JOURNAL", "a journal made by 'day60 new'", MAX_JOURNAL_BYTES)
    digest = hashlib.sha256()
    header: Any = None
    events: list[dict[str, Any]] = []
    block: list[str] = []
    previous = ""  # the line before the block: the first event of the block chains to it
    n = 0

    def decode(raw: bytes, line: int) -> str:
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            raise InputError("JOURNAL", f"{path}: line {line} is not UTF-8 text; the journal has been damaged",
                             f"run 'day60 verify {path}'") from None

    def take(lines: list[str], first: int, before: str) -> None:
        """Parse and check lines ``first``.. in one go (the decoder shares key strings)."""
        try:
            parsed = loads_line("[" + ",".join(lines) + "]")
            if len(parsed) != len(lines):
                raise ValueError("a line holds more or less than one value")
        except (ValueError, RecursionError):
            parsed = []
            for k, line in enumerate(lines, start=first):
                obj, problem = parse_line(k, line)
                if problem:
                    raise _damaged(path, k, problem) from None
                parsed.append(obj)
        for k, event in enumerate(parsed, start=first):
            if isinstance(event, dict) and canonical(event) != lines[k - first]:
                # as verify refuses it: spaces, a repeated key or an escape read one way here and
                # perhaps another way by the other side's tools (the engine refuses it too)
                raise _damaged(path, k, "not in canonical form (the line was edited)")
            problem = check_event(k, event, lines[k - first - 1] if k > first else before)
            if problem:
                prior = header if k == 2 else events[-1] if k == first else parsed[k - first - 1]
                if problem.startswith("does not chain") and with_hash(prior)["hash"] != prior.get("hash"):
                    raise _damaged(path, k - 1, "its hash does not match its content (the line was edited)")
                raise _damaged(path, k, problem)
            events.append(event)

    with os.fdopen(fd, "rb") as fh:
        lines = Lines()
        while chunk := fh.read(1 << 22):
            for raw in lines.feed(chunk):
                n += 1
                digest.update(raw)
                digest.update(b"\n")
                if raw.endswith(b"\r") or n == 1:
                    _foreign(path, n, raw)
                line = decode(raw, n)
                if n == 1:
                    header = _header(path, line)
                    previous = line
                    continue
                block.append(line)
                if len(block) >= 20_000:
                    take(block, n - len(block) + 1, previous)
                    previous, block = block[-1], []
    rest = lines.rest
    if n == 0:
        raise _no_header(path, rest)
    partial = decode(rest, n + 1) if rest else None
    if block:
        take(block, n - len(block) + 1, previous)
        previous = block[-1]
    last = events[-1] if events else header
    if with_hash(last)["hash"] != last.get("hash"):
        raise _damaged(path, n, "its hash does not match its content (the line was edited)")
    try:
        check_rules(events)
    except InputError as exc:
        raise _damaged(path, getattr(exc, "seq", 0) + 1, f"breaks a rule of fact: {exc.problem}") from None
    return Journal(path, header, events, previous, digest.hexdigest(), partial)


def _whole_first_line(fh: Any, start: bytes) -> bytes:
    """Line 1 whole, LF included, where it runs past the ``start`` already read (a calendar of many
    closures makes a header that long, and ``read`` takes it whole): its end is found first without
    keeping what is passed over, so a file with no LF at all costs no memory; that file gives back
    ``start``, which ``_no_header`` names as ``read`` names it."""
    offset = len(start)
    while block := fh.read(1 << 22):
        cut = block.find(b"\n")
        if cut >= 0:
            fh.seek(0)
            return fh.read(offset + cut + 1)
        offset += len(block)
    return start


def read_header(path: str | Path) -> dict[str, Any]:
    """Only line 1, checked, for commands that need the timezone before anything else."""
    from day60.files import MAX_JOURNAL_BYTES, open_regular

    path = Path(path)
    fd = open_regular(path, "JOURNAL", "a journal made by 'day60 new'", MAX_JOURNAL_BYTES)
    with os.fdopen(fd, "rb") as fh:
        first = fh.readline(1_000_000)
        if not first.endswith(b"\n") and len(first) == 1_000_000:
            first = _whole_first_line(fh, first)
    if not first.endswith(b"\n"):
        raise _no_header(path, first)  # as ``read`` says it
    raw = first.removesuffix(b"\n")
    _foreign(path, 1, raw)
    try:
        line = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError("JOURNAL", f"{path}: line 1 is not UTF-8 text; the journal has been damaged",
                         f"run 'day60 verify {path}'") from None
    return _header(path, line)

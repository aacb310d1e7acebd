"""Verification and repair: a whole journal streamed (never held) and every line checked, its
canonical form and own hash, the chain, the reveals' openings and the rules of fact; an anchor
(``--expect SEQ:HASH``) checked against it; and a partial last line moved aside.
"""

from __future__ import annotations

import datetime as dt
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from day60.errors import InputError
from day60.journal.line import BOM, Lines, check_line, loads_line, raw_problem
from day60.journal.lock import locked
from day60.journal.rules import Effective, State, check_targets
from day60.kinds import FIXERS
from day60.permissions import JUDGEMENTS


@dataclass
class VerifyReport:
    path: Path
    lines: int
    events: int
    problem: str | None  # the first bad line, named
    partial: bool
    sealed: int
    revealed: int
    corrections: int
    head: dict[str, Any] | None = None
    # Set by the engine's fast path, which parses every line that is not an incident's: the
    # journal's timestamp.token events and its header's hash, so that checking the tokens does
    # not read the whole file again to find them (None: not known, look in the file).
    tokens: list[dict[str, Any]] | None = None
    header_hash: str | None = None

    @property
    def ok(self) -> bool:
        return self.problem is None and not self.partial


def verify(path: str | Path, expect: str | None = None) -> VerifyReport:
    """Check every line: canonical JSON, schema, hash, chain, reveals and rules of fact.

    ``expect`` ("SEQ:HASH", a head printed by an earlier report) also catches a journal cut
    short or rewritten after that report: the chain alone cannot, having no outside anchor.
    """
    return scan(path, expect).report


@dataclass
class Scan:
    """What a streamed check of a whole journal found, and what an append needs from it."""

    report: VerifyReport
    header: dict[str, Any] | None = None
    last_line: str | None = None
    state: State | None = None  # the rules' state after the last event


def scan(path: str | Path, expect: str | None = None) -> Scan:
    """The journal streamed, never held whole: one pass checks each line against the one before
    it, keeping corrections and reveals (which change earlier events) aside; a second pass reads
    only the lines they name and checks them; a third replays the rules of fact with their
    effect applied, as ``check_rules`` does over a journal in memory."""
    path = Path(path)
    anchor = parse_head(expect) if expect else None
    report = VerifyReport(path, 0, 0, None, False, 0, 0, 0)
    found = Scan(report)
    first = _first_pass(path, anchor[0] if anchor else None)
    report.problem, report.partial = first.problem, first.partial
    if report.problem:
        return found
    found.header, found.last_line = first.header, first.last_line
    head, fixers, anchored = first.head, first.fixers, first.anchored
    report.lines, report.events, report.head = head["seq"] + 1, head["seq"], head
    targets = {e["data"]["target"] for e in fixers}
    by_seq = {obj["seq"]: obj for n, line in _stream(path, None) if n - 1 in targets
              for obj in [loads_line(line)]}
    try:
        check_targets(fixers, by_seq)
        found.state = _replay(path, fixers)
    except InputError as exc:
        report.problem = f"line {getattr(exc, 'seq', 0) + 1}: breaks a rule of fact: {exc.problem}"
        return found
    if anchor is not None:
        report.problem = anchor_problem(anchor, report.events, lambda _seq: anchored)
        if report.problem:
            return found
    revealed = {e["data"]["target"] for e in fixers if e["kind"] == "reveal"}
    report.sealed = len(first.sealed - revealed)
    report.revealed = sum(1 for e in fixers if e["kind"] == "reveal")
    report.corrections = sum(1 for e in fixers if e["kind"] == "correction")
    return found


@dataclass
class _Lines:
    """What the first pass over a run of lines found (picklable: a worker process returns it)."""

    problem: str | None = None
    partial: bool = False
    header: dict[str, Any] | None = None
    head: dict[str, Any] | None = None
    last_line: str | None = None
    fixers: list[dict[str, Any]] = field(default_factory=list)  # corrections and reveals, in seq order
    sealed: set[int] = field(default_factory=set)  # sealed onsets
    anchored: str | None = None


_PARALLEL_BYTES = 32 * 1024 * 1024  # below this one process is quicker than two


def _first_pass(path: Path, anchor_seq: int | None) -> _Lines:
    """Every line checked against the one before it. A large journal is cut in two at a line
    boundary and the halves are checked at once in two processes (the second half's first line
    is checked against the first half's last); the first problem in file order is reported."""
    try:
        size = os.stat(path).st_size if os.path.isfile(path) else 0
    except OSError:
        size = 0  # the single pass opens it and names what is wrong
    if size < _PARALLEL_BYTES or (os.cpu_count() or 1) < 2 or "fork" not in _start_methods():
        return _check_lines(path, 0, None, 1, None, anchor_seq)
    cut, lines_before, previous = _cut(path, size // 2)
    if cut is None:
        return _check_lines(path, 0, None, 1, None, anchor_seq)
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("fork")) as pool:
        second = pool.submit(_check_lines, path, cut, None, lines_before + 1, previous, anchor_seq)
        one = _check_lines(path, 0, cut, 1, None, anchor_seq)
        two = second.result()
    if one.problem or two.problem:
        return one if one.problem else two
    return _Lines(None, two.partial, one.header, two.head, two.last_line, one.fixers + two.fixers,
                  one.sealed | two.sealed, one.anchored or two.anchored)


def _start_methods() -> list[str]:
    import multiprocessing

    return multiprocessing.get_all_start_methods()


def _cut(path: Path, near: int) -> tuple[int | None, int, str]:
    """The start of the first line after byte ``near``, the number of lines before it, and the
    line just before it (the one the second half chains to)."""
    with path.open("rb") as fh:
        fh.seek(near)
        fh.readline()
        cut = fh.tell()
        if cut >= os.path.getsize(path):
            return None, 0, ""
        fh.seek(max(0, cut - 1_000_000))
        tail = fh.read(cut - fh.tell())
        fh.seek(0)
        count, left = 0, cut
        while left > 0:
            block = fh.read(min(1 << 22, left))
            count += block.count(b"\n")
            left -= len(block)
    previous = tail[:-1].rsplit(b"\n", 1)[-1]
    try:
        return cut, count, previous.decode("utf-8")
    except UnicodeDecodeError:
        return None, 0, ""  # a damaged line at the cut: let one pass find and name it


def _check_lines(path: Path, start: int, stop: int | None, first: int, previous: str | None,
                 anchor_seq: int | None) -> _Lines:
    out = _Lines()
    report = VerifyReport(path, 0, 0, None, False, 0, 0, 0)
    for n, line in _stream(path, report, start, stop, first):
        if line.endswith("\r") or (n == 1 and line.startswith("\ufeff")):  # an editor's, undone as the fix says
            out.problem = "line {}: {}; {}".format(n, *raw_problem(n, line.encode("utf-8"), path))
            return out
        obj, problem = check_line(n, line, previous)
        if problem:
            out.problem = f"line {n}: {problem}"
            return out
        if n == 1:
            out.header = obj
        elif obj["kind"] in FIXERS or obj["kind"] in JUDGEMENTS:  # lines naming another: checked against it
            out.fixers.append(obj)
        elif obj["kind"] == "drift.onset" and obj["at"] is None:
            out.sealed.add(obj["seq"])
        out.head = {"seq": n - 1, "hash": obj["hash"]}
        if anchor_seq == n - 1:
            out.anchored = obj["hash"]
        previous = line
    out.problem, out.partial, out.last_line = report.problem, report.partial, previous
    if out.problem is None and out.head is None and first == 1:
        # no whole line at all: not an append cut short (a header is linked into place whole), so
        # never "partial", whose fix (--repair) would move the whole file aside
        out.partial = False
        out.problem = "line 1: missing header" + (_cr_only(path) or "")
    return out


def _cr_only(path: Path) -> str | None:
    """Why a file with no LF at all holds no line, where it is a journal whose LFs became CRs."""
    from day60.files import MAX_JOURNAL_BYTES, open_regular

    with os.fdopen(open_regular(path, "JOURNAL", "a journal made by 'day60 new'", MAX_JOURNAL_BYTES), "rb") as fh:
        start = fh.read(1_000_000)
    if b"\r" in start and start.removeprefix(BOM).startswith(b"{"):
        return (" (its lines end with CR alone, old Mac line ends, where day60 ends them with LF: an editor or a "
                f"file transfer converted the file; convert them back, for example mac2unix {path})")
    return None


def _stream(path: Path, report: VerifyReport | None, start: int = 0, stop: int | None = None,
            first: int = 1) -> Iterator[tuple[int, str]]:
    """The journal's complete lines from byte ``start`` to ``stop`` (a line boundary), numbered
    from ``first``, read in blocks. With ``report``, a line that is not UTF-8 is recorded as its
    problem and a partial last line as ``partial``."""
    from day60.files import MAX_JOURNAL_BYTES, open_regular

    fd = open_regular(path, "JOURNAL", "a journal made by 'day60 new'", MAX_JOURNAL_BYTES)
    with os.fdopen(fd, "rb") as fh:
        fh.seek(start)
        left = None if stop is None else stop - start
        n, lines = first - 1, Lines()
        while block := fh.read(1 << 22 if left is None else min(1 << 22, left)):
            if left is not None:
                left -= len(block)
            for raw in lines.feed(block):
                n += 1
                try:
                    yield n, raw.decode("utf-8")
                except UnicodeDecodeError:
                    if report is not None:
                        report.problem = f"line {n}: is not UTF-8 text; the journal has been damaged"
                    return
        if lines.rest and report is not None:
            report.partial = True


def _replay(path: Path, fixers: list[dict[str, Any]]) -> State:
    """The rules of fact over the streamed journal, each event at its corrected or revealed time."""
    fixed: dict[int, tuple[str, str]] = {}
    for e in fixers:
        if e["kind"] in FIXERS:
            fixed[e["data"]["target"]] = (e["kind"], e["data"]["at"])
    state = State()
    for n, line in _stream(path, None):
        if n == 1:
            continue
        e = loads_line(line)
        kind = e["kind"]
        if kind in FIXERS:
            continue
        fix = fixed.get(e["seq"])
        at_text = fix[1] if fix else e["at"]
        revealed = bool(fix and fix[0] == "reveal")
        at = dt.datetime.fromisoformat(at_text) if at_text else None
        state.apply_at(Effective(e["seq"], kind, e["id"], at, e["data"], e["at"],
                                 sealed=at is None and "commitment" in e["data"], revealed=revealed, by=e["by"]))
    return state


def anchor_problem(anchor: tuple[int, str], events: int, hash_at: Any) -> str | None:
    """What ``verify --expect SEQ:HASH`` finds wrong with a journal of ``events`` events, or None;
    ``hash_at(seq)`` gives the hash the journal holds at that seq."""
    seq, digest = anchor
    if seq > events:
        return f"the journal ends at seq {events}, but a report saw it reach seq {seq}: events were removed since"
    anchored = hash_at(seq)
    if anchored != digest:
        return (f"seq {seq} has hash {str(anchored)[:12]}..., but a report recorded {digest[:12]}...: "
                "the journal was rewritten since")
    return None


def parse_head(text: str) -> tuple[int, str]:
    """Read "SEQ:HASH" as printed by a report; InputError naming --expect otherwise."""
    seq, sep, digest = (text or "").strip().partition(":")
    if not sep or not seq.isascii() or not seq.isdigit() or len(seq) > 12 \
            or not re.fullmatch(r"[0-9a-f]{64}", digest):
        raise InputError("--expect", f"{text[:80]!r} is not SEQ:HASH",
                         "copy the journal head a report printed, e.g. 12:3f5c...(64 hex digits)")
    return int(seq), digest


def repair(path: str | Path) -> Path | None:
    """Move a partial last line to ``<journal>.partial``; returns that file, or None if none."""
    path = Path(path)
    with locked(path):
        with path.open("rb") as fh:
            raw = fh.read()
        cut = raw.rfind(b"\n") + 1
        if cut == len(raw):
            return None
        if cut == 0:  # not one whole line: not an append cut short, and moving it all aside leaves nothing
            raise InputError("JOURNAL", f"{path} holds no complete line, so its end is not an interrupted append",
                             f"run 'day60 verify {path}' to see what it holds; nothing was moved")
        aside = path.with_name(path.name + ".partial")
        with aside.open("ab") as fh:
            fh.write(raw[cut:] + b"\n")
            fh.flush()
            os.fsync(fh.fileno())
        with path.open("r+b") as fh:
            fh.truncate(cut)
            fh.flush()
            os.fsync(fh.fileno())
    return aside

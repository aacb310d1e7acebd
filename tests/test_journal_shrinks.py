"""A journal that gets shorter while it is read.

A journal only grows: every writer in the toolkit appends, and the one thing that cuts it
(``verify --repair``, which moves a partial last line aside) takes the exclusive lock, so it
cannot run while a reader holds the shared one. A file that shrinks under a reader was cut by
something outside day60. ``engine._lines_at`` used to loop for ever on such a file (fe89dc6
made it stop); its callers and both readers must then refuse it in one line (exit 2), never
print figures from what was left of it.

The cut is made deterministic by running it from a hook inside the read: after the engine's scan
(``engine._others`` runs once the scan has read every line), after the engine's read for
``verify`` (``engine._fast`` returns), or between two short reads of the reference reader.
"""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys
from pathlib import Path

import pytest

from day60 import engine, reading
from day60 import journal as jr
from tests.builders import make_journal, reference_reads_in_pieces

ROOT = Path(__file__).resolve().parents[1]


def _journal(path: Path) -> Path:
    """Header; seq 1..6 incident.detected I0..I5 (organic, severity 2); seq 7..12 their restores;
    seq 13 a correction of seq 1. Organic incidents only, so the engine can vouch for it."""
    events = [("incident.detected", f"I{i}", f"2026-03-0{3 + i % 5}T10:00", {"severity": 2, "source": "organic"})
              for i in range(6)]
    events += [("incident.restored", f"I{i}", f"2026-03-0{3 + i % 5}T12:00", {"check": "probe"}) for i in range(6)]
    make_journal(path, events, tier="T2")
    jr.correct(path, 1, dt.datetime.fromisoformat("2026-03-03T09:55+00:00"), "typed late")
    return path


def _cut(path: Path, lines: int) -> int:
    """Cut the file after its first ``lines`` lines (the header is line 1); returns the new size."""
    keep = sum(len(raw) + 1 for raw in path.read_bytes().split(b"\n")[:lines])
    os.truncate(path, keep)
    return keep


# ----- engine._lines_at itself ---------------------------------------------------------------


class _Reads:
    """A path whose file counts its reads and stops a reader that keeps asking at end of file:
    the old loop asked for ever, so it fails here instead of hanging the suite."""

    LIMIT = 50

    def __init__(self, path: Path) -> None:
        self.path, self.reads = path, 0

    def open(self, mode: str):
        fh = self.path.open(mode)
        outer = self

        class Counted:
            def __enter__(self):
                return self

            def __exit__(self, *exc):
                fh.close()

            def read(self, n: int = -1) -> bytes:
                outer.reads += 1
                if outer.reads > outer.LIMIT:
                    raise AssertionError(f"{outer.reads} reads of a file at its end: the loop never stops")
                return fh.read(n)

        return Counted()


def test_lines_at_gives_what_a_cut_file_still_holds_and_stops(tmp_path):
    """The file is cut halfway through line 3 (numbered from 0: the header, seq 1, seq 2...) after
    its size was taken. Asked for lines 0, 1, 2 and 9 out of the old size, ``_lines_at`` gives
    lines 0 and 1 byte for byte, never the cut line 2 (it has no LF) nor line 9 (gone), and stops
    after two reads (the bytes that are left, then the empty read of end of file). The loop it
    replaced read again at end of file for ever."""
    path = _journal(tmp_path / "j.jsonl")
    size = path.stat().st_size
    lines = path.read_bytes().split(b"\n")
    os.truncate(path, len(lines[0]) + len(lines[1]) + len(lines[2]) + 2 + len(lines[3]) // 2)
    counted = _Reads(path)
    found = engine._lines_at(counted, size, {0, 1, 3, 9})
    assert found == {0: lines[0], 1: lines[1]}
    assert counted.reads == 2


def test_lines_at_returns_on_a_real_file_cut_short(tmp_path):
    """The same on a plain file in a fresh process, with nothing wrapped: a journal of 14 lines
    asked for line 20 out of a size 1000 bytes larger than the file returns {} within the deadline
    (the old loop never returned and is killed at 30 s)."""
    path = _journal(tmp_path / "j.jsonl")
    code = ("import sys; from pathlib import Path; from day60 import engine; "
            "p = Path(sys.argv[1]); print(engine._lines_at(p, p.stat().st_size + 1000, {20}))")
    try:
        done = subprocess.run([sys.executable, "-c", code, str(path)], cwd=ROOT, capture_output=True, text=True,
                              timeout=30, env={**os.environ, "PYTHONPATH": str(ROOT)})
    except subprocess.TimeoutExpired:
        pytest.fail("_lines_at never returned on a file shorter than it was told")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "{}"


# ----- what a user is told -------------------------------------------------------------------


def _shrink_message(path: Path, before: int, after: int) -> str:
    return f"error: JOURNAL: {path} shrank from {before} to {after} bytes while it was read"


def _refused(r, path: Path, before: int, after: int) -> None:
    """Exit 2, one line on stderr naming the journal, both sizes and what to do, no figure on
    stdout, no traceback."""
    assert r.exit_code == 2, r.output
    assert r.stdout == "", r.stdout
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith(_shrink_message(path, before, after)), lines[0]
    assert f"day60 verify {path} --expect" in lines[0]
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)


@pytest.mark.usefixtures("engine_on_every_size")
@pytest.mark.parametrize("keep", [1, 7], ids=["before-the-corrected-line", "after-it"])
def test_metrics_refuses_a_journal_cut_after_the_engines_scan(tmp_path, run, monkeypatch, keep):
    """The engine has scanned all 14 lines (5 271 bytes or so); before it reads back the line the
    correction names (seq 1, line 2 of the file), the file is cut to its first ``keep`` lines.

    keep=1: only the header is left, ``_lines_at`` finds no seq 1, the correction's target is
    missing, the engine declines, and the reference reader used to read the header alone: exit 0
    and "head 0", every severity "restored 0", a journal of 13 events reported as empty without
    a word. keep=7: the engine finds seq 1 and finishes on the scan of the whole file, while the
    file on disk holds six lines. Both are refused now."""
    path = _journal(tmp_path / "j.jsonl")
    before = path.stat().st_size
    scanned = engine._others
    after: list[int] = []

    def cut_then_continue(con):
        after.append(_cut(path, keep))
        return scanned(con)

    monkeypatch.setattr(engine, "_others", cut_then_continue)
    r = run("metrics", path)
    assert after, "the engine did not read this journal: the cut never happened"
    _refused(r, path, before, after[0])


def _short_reads(monkeypatch, path: Path, keep: int, after: list[int], grow: bytes = b"") -> None:
    """The reference reader's file reads at most 300 bytes at a time, and after the first read the
    file is cut to its first ``keep`` lines (or, given ``grow``, those bytes are added to its end):
    what the reader has by then is part of line 1."""
    def each(reads: int, _read_so_far: int) -> None:
        if reads == 1 and grow:
            with path.open("ab") as fh:
                fh.write(grow)
            after.append(path.stat().st_size)
        elif reads == 1:
            after.append(_cut(path, keep))

    reference_reads_in_pieces(monkeypatch, each)


def test_the_reference_reader_refuses_a_journal_cut_while_it_reads(tmp_path, run, monkeypatch):
    """A small journal, read by the reference reader (the default size sends it there) in reads of
    300 bytes; after the first, the file is cut to its first 8 lines (header and seq 1..7). The
    reader then went on to the end of what was left and, without the check, printed figures for
    the seven events it found (one restore of six) as if they were the journal. Refused now."""
    path = _journal(tmp_path / "j.jsonl")
    before = path.stat().st_size
    assert before < reading.ENGINE_FROM_BYTES
    after: list[int] = []
    _short_reads(monkeypatch, path, 8, after)
    r = run("metrics", path)
    assert after, "the reference reader did not read this journal"
    _refused(r, path, before, after[0])


@pytest.mark.usefixtures("engine_on_every_size")
def test_verify_expect_refuses_a_journal_cut_after_the_engines_read(tmp_path, run, monkeypatch):
    """``verify --expect 13:HASH`` on the engine: the engine checks all 14 lines, then looks up
    the anchored line (seq 13) by reading the file again, which by then is cut to its first 3
    lines. That look-up raised KeyError: "error: internal fault (KeyError: 13)". Now the engine
    declines and the shrink is named."""
    path = _journal(tmp_path / "j.jsonl")
    head = jr.verify(path).head
    before = path.stat().st_size
    read_whole = engine._fast
    after: list[int] = []

    def read_then_cut(*args, **kwargs):
        journal = read_whole(*args, **kwargs)
        after.append(_cut(path, 3))
        return journal

    monkeypatch.setattr(engine, "_fast", read_then_cut)
    r = run("verify", path, "--expect", f"{head['seq']}:{head['hash']}")
    assert after, "the engine did not verify this journal"
    assert "internal fault" not in r.output
    _refused(r, path, before, after[0])


def test_verify_on_the_reference_reader_refuses_a_journal_cut_between_its_passes(tmp_path, run, monkeypatch):
    """``journal.verify`` streams the file three times: every line against the one before it, then
    the lines corrections name, then the rules of fact. Cut to the header and seq 1 after the
    first pass, it used to find seq 1 (the correction's target) and replay one event, and report
    the journal verified, "13 events", exit 0, for a file that by then held one. Refused now."""
    from day60.journal import verification

    path = _journal(tmp_path / "j.jsonl")
    before = path.stat().st_size
    first_pass = verification._first_pass
    after: list[int] = []

    def check_then_cut(*args, **kwargs):
        found = first_pass(*args, **kwargs)
        after.append(_cut(path, 2))
        return found

    monkeypatch.setattr(verification, "_first_pass", check_then_cut)
    r = run("verify", path)
    assert after, "verify did not read this journal"
    _refused(r, path, before, after[0])


def test_a_journal_that_grows_while_it_is_read_is_not_called_cut(tmp_path, run, monkeypatch):
    """Only a shorter file is refused. Where the lock does not hold (a file system without locks)
    a file may grow while the reference reader reads it: 80 bytes of a line with no LF added after
    the reader's first 300 bytes are read as what they are, a partial last line, left out with its
    note (exit 0), and the figures are the 13 events': 6 incidents of severity 2, all restored;
    I0 from 09:55 (corrected) to 12:00 is 125 min, I1..I5 120 min each, so the mean is
    (125/60 + 5 * 2) / 6 = 2.013888... h."""
    import json

    path = _journal(tmp_path / "j.jsonl")
    after: list[int] = []
    _short_reads(monkeypatch, path, 0, after, grow=b'{"seq":14,' + b"x" * 70)
    r = run("metrics", path, "--format", "json")
    assert r.exit_code == 0, r.output
    assert after == [path.stat().st_size], "the file did not grow while it was read"
    assert "shrank" not in r.output and "partial line" in r.stderr
    figures = json.loads(r.stdout)
    assert figures["head"]["seq"] == 13
    severity_2 = figures["incidents"]["by_severity"]["2"]
    assert (figures["incidents"]["population"], figures["incidents"]["restored"], severity_2["count"]) == (6, 6, 6)
    assert severity_2["mean_hours"] == pytest.approx((125 / 60 + 5 * 2) / 6, rel=1e-12)

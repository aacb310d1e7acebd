"""Attacks on two guards: a journal that changes while it is read (``day60.reading``), and the
forked child that renders half of several PDFs (``day60.render.pdf_bytes_many``).

The journal is changed from hooks inside the read, so each change lands at a known point: once a
reader has read the whole file but before the lock is let go (``_after_read``: the names
``day60.reading`` calls, on either reader), between two short reads of the reference reader
(``_mid_read``), between the engine's scan and the lines it reads back (``engine._others``), or
between the passes of ``journal.verify`` (``verification._first_pass``).

A journal only grows, and every writer in the toolkit waits for the exclusive lock, so a change
under the shared lock is made by something else: renamed over, a link turned, deleted, written
over in place (its time set back or not), cut and grown again. Each is refused in one line
(exit 2) naming what happened, and nothing is written. Lines appended after the end the lock
found are the one change a read allows (the reference reader checks each line it takes against
the one before it); ``verify`` (three passes) and a read under an import's exclusive lock (which
chains its batch to the last line it read) allow none.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import errno
import json
import os
import pickle
import signal
import subprocess
import sys
import threading
import types
from pathlib import Path

import pytest

from day60 import engine, reading, render
from day60 import journal as jr
from day60.journal import verification
from tests.builders import make_journal, reference_reads_in_pieces
from tests.test_documents import _small_jobs
from tests.test_journal_shrinks import _journal
from tests.test_pdf_child import STOPPED

pytestmark = pytest.mark.real_renders  # a child rendering its share, cut off, is the test: never a kept rendering

ROOT = Path(__file__).resolve().parents[1]
SOW = ROOT / "clauses" / "examples" / "synthetic-sow.toml"
EX = ROOT / "day60" / "imports" / "examples"


def _other(path: Path, incidents: int) -> Path:
    """Another journal: ``incidents`` organic detections of severity 1, nothing restored (1 286
    bytes for one incident, 11 100 for thirty: shorter and longer than ``_journal``'s 5 271)."""
    make_journal(path, [("incident.detected", f"X{i}", "2026-03-03T10:00", {"severity": 1, "source": "organic"})
                        for i in range(incidents)], tier="T2")
    return path


def _after_read(monkeypatch, action, times: int = 1) -> list:
    """Run ``action(path)`` when a reader has read the whole journal, before ``day60.reading``
    lets the lock go, for the first ``times`` reads: the reference reader and ``journal.verify``
    (through the names ``day60.reading`` calls) and the engine's two. Returns what each run of
    ``action`` returned."""
    done: list = []

    def wrap(function):
        def wrapped(path, *args, **kwargs):
            out = function(path, *args, **kwargs)
            if len(done) < times:
                done.append(action(Path(path)))
            return out
        return wrapped

    proxy = types.SimpleNamespace(**{name: getattr(jr, name) for name in dir(jr) if not name.startswith("__")})
    proxy.read, proxy.verify = wrap(jr.read), wrap(jr.verify)
    monkeypatch.setattr(reading, "jr", proxy)
    monkeypatch.setattr(engine, "read_fast", wrap(engine.read_fast))
    monkeypatch.setattr(engine, "verify_fast", wrap(engine.verify_fast))
    return done


def _mid_read(monkeypatch, path: Path, action, after: int = 1) -> list:
    """The reference reader reads 300 bytes at a time (no read-ahead), and ``action(path)`` runs
    once it has read ``after`` bytes or more, while it still has the rest of the file to read."""
    done: list = []

    def each(_reads: int, read_so_far: int) -> None:
        if not done and read_so_far >= after:
            done.append(action(path))

    reference_reads_in_pieces(monkeypatch, each)
    return done


def _refused(r, *words: str) -> str:
    """Exit 2, nothing on stdout, one line on stderr holding each of ``words``; returns it."""
    assert r.exit_code == 2, (r.exit_code, r.output)
    assert r.stdout == "", r.stdout
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith("error: JOURNAL: "), lines[0]
    assert "internal fault" not in lines[0]
    for word in words:
        assert word in lines[0], (word, lines[0])
    return lines[0]


READERS = pytest.mark.parametrize("on_engine", [False, True], ids=["reference", "engine"])


def _readers(monkeypatch, on_engine: bool) -> None:
    if on_engine:
        monkeypatch.setattr(reading, "ENGINE_FROM_BYTES", 0)


# ----- renamed over, a link turned, deleted ----------------------------------------------------


@READERS
@pytest.mark.parametrize("command", ["metrics", "verify"])
@pytest.mark.parametrize("incidents", [30, 1], ids=["longer", "shorter"])
def test_a_journal_renamed_over_while_it_is_read_is_refused(tmp_path, run, monkeypatch, on_engine, command,
                                                            incidents):
    """Another journal is renamed onto the name once the reader has read the first: the reader
    had the old file open, so it read a whole journal the name no longer leads to. Before, metrics
    printed the old file's figures and verify called it "ok, 13 events", exit 0, while the name
    held a 31-event (or 2-event) journal. The check compares the file the lock holds with the one
    the name leads to (a rename over it leaves the held file as it was, so no size can tell)."""
    _readers(monkeypatch, on_engine)
    path = _journal(tmp_path / "j.jsonl")
    other = _other(tmp_path / "other.jsonl", incidents)
    size = other.stat().st_size
    _after_read(monkeypatch, lambda p: os.replace(other, p))
    r = run(command, path)
    _refused(r, f"{path} was replaced while it was read", f"({size} bytes, where the one read held 5271)",
             f"day60 verify {path} --expect SEQ:HASH")


def test_a_journal_renamed_over_in_the_middle_of_a_read_is_refused(tmp_path, run, monkeypatch):
    """The rename lands after the reference reader's first 300 bytes: it reads on in the old file
    (its open descriptor) and, before, gave the old journal's figures under the new one's name."""
    path = _journal(tmp_path / "j.jsonl")
    other = _other(tmp_path / "other.jsonl", 30)
    done = _mid_read(monkeypatch, path, lambda p: os.replace(other, p))
    r = run("metrics", path, "--format", "json")
    assert done, "the reference reader did not read this journal"
    _refused(r, "was replaced while it was read")


def test_a_journal_renamed_over_between_the_engines_scan_and_its_reading_back_is_refused(tmp_path, run,
                                                                                          monkeypatch):
    """The engine scans the file it holds open, then reads the lines corrections name by the
    file's name: a rename between the two made it take those lines from another journal (exit 0
    before). Refused now."""
    monkeypatch.setattr(reading, "ENGINE_FROM_BYTES", 0)
    path = _journal(tmp_path / "j.jsonl")
    other = _other(tmp_path / "other.jsonl", 30)
    scanned, swapped = engine._others, []

    def swap_then_continue(con):
        os.replace(other, path)
        swapped.append(True)
        return scanned(con)

    monkeypatch.setattr(engine, "_others", swap_then_continue)
    r = run("score", path, "--format", "json")
    assert swapped, "the engine did not read this journal"
    _refused(r, "was replaced while it was read")


@READERS
def test_a_journal_whose_link_is_turned_to_another_while_it_is_read_is_refused(tmp_path, run, monkeypatch,
                                                                                on_engine):
    """The journal's name is a symbolic link; once read, the link is turned to another journal
    (made beside it and renamed over it, as ``ln -sfn`` does). Exit 0 with the first journal's
    figures before; the name now leads to another file, and that is said."""
    _readers(monkeypatch, on_engine)
    first = _journal(tmp_path / "first.jsonl")
    second = _other(tmp_path / "second.jsonl", 30)
    link = tmp_path / "current.jsonl"
    link.symlink_to(first)

    def turn(p: Path) -> None:
        fresh = tmp_path / "fresh-link"
        fresh.symlink_to(second)
        os.replace(fresh, p)

    _after_read(monkeypatch, turn)
    _refused(run("metrics", link), f"{link} was replaced while it was read")


@READERS
def test_a_journal_deleted_while_it_is_read_is_refused(tmp_path, run, monkeypatch, on_engine):
    """Deleted once read: metrics printed the figures of a journal that no longer exists (exit 0),
    and verify died on FileNotFoundError after its check ("internal fault"). Both are refused."""
    _readers(monkeypatch, on_engine)
    for command in ("metrics", "verify"):
        path = _journal(tmp_path / f"{command}.jsonl")
        with monkeypatch.context() as m:
            _after_read(m, os.unlink)
            _refused(run(command, path), f"{path} could no longer be found by its name once it was read "
                                         "(No such file or directory)")


def test_a_journal_that_cannot_be_looked_up_after_it_is_read_is_refused(tmp_path, run, monkeypatch):
    """The folder's permissions change during the read, so the name can no longer be looked up
    (EACCES; made here by the lookup itself, as the tests run as root, for whom permissions do
    not hold): the file cannot be shown to be the one read, and is refused, never passed."""
    path = _journal(tmp_path / "j.jsonl")
    real_stat, locked_out = os.stat, []

    def stat(target, *args, **kwargs):
        if locked_out and Path(target) == path:
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(target))
        return real_stat(target, *args, **kwargs)

    monkeypatch.setattr(reading.os, "stat", stat)
    _after_read(monkeypatch, lambda p: locked_out.append(True))
    _refused(run("metrics", path), "could no longer be found by its name once it was read (Permission denied)")


# ----- written over in place, cut and grown again ---------------------------------------------


def _edit_in_place(path: Path) -> None:
    """seq 2's detection moved from 10:00 to 11:00: the same size, other bytes."""
    raw = path.read_bytes()
    at = raw.index(b"T10:00", raw.index(b'"seq":2') - 400)
    with path.open("r+b") as fh:
        fh.seek(at)
        fh.write(b"T11:00")


@READERS
def test_a_journal_written_over_in_place_while_it_is_read_is_refused(tmp_path, run, monkeypatch, on_engine):
    """One instant is changed in place once the journal is read, keeping its size: before, the
    figures of the bytes read came out (exit 0) though the file now says something else, and no
    size could tell. The modification time does."""
    _readers(monkeypatch, on_engine)
    path = _journal(tmp_path / "j.jsonl")
    _after_read(monkeypatch, _edit_in_place)
    _refused(run("metrics", path), "changed while it was read (its 5271 bytes were written over in place)")


def test_a_forger_who_sets_the_time_back_is_still_refused(tmp_path, run, monkeypatch):
    """The same edit, with the modification time set back to the nanosecond (``touch -d``): the
    change time, which no one can set back, has moved. Refused, saying both things it may be."""
    path = _journal(tmp_path / "j.jsonl")
    before = path.stat()

    def forge(p: Path) -> None:
        _edit_in_place(p)
        os.utime(p, ns=(before.st_atime_ns, before.st_mtime_ns))
        assert p.stat().st_mtime_ns == before.st_mtime_ns and p.stat().st_size == before.st_size

    _after_read(monkeypatch, forge)
    _refused(run("verify", path), "its change time moved", "written over and its modification time set back")


@READERS
def test_a_journal_cut_and_grown_again_longer_while_it_is_read_is_refused(tmp_path, run, monkeypatch, on_engine):
    """Cut to nothing and another, longer journal written into the same file (the same inode, so
    the name still leads to it, and longer, so the shrink check never fired): before, the first
    journal's figures came out, exit 0. The bytes that ended the file as locked are gone from
    their place, so this was no append."""
    _readers(monkeypatch, on_engine)
    path = _journal(tmp_path / "j.jsonl")
    longer = _other(tmp_path / "other.jsonl", 30).read_bytes()

    def regrow(p: Path) -> None:
        with p.open("r+b") as fh:
            fh.truncate(0)
            fh.write(longer)

    _after_read(monkeypatch, regrow)
    _refused(run("metrics", path), "it grew from 5271 to 11100 bytes, and not by an append")


def test_the_readers_own_refusal_of_a_rewritten_journal_gives_way_to_the_cause(tmp_path, run, monkeypatch):
    """The rewrite lands in the middle of the reference reader's read, once it has read the header
    and seq 1 and 2: it reads on into the other journal's bytes, which do not chain to what it read
    before, and said the journal was damaged at a line ("run 'day60 verify'"), though the file on
    disk is a journal that verifies. The cause is named instead."""
    path = _journal(tmp_path / "j.jsonl")
    third_line = sum(len(raw) + 1 for raw in path.read_bytes().split(b"\n")[:3])
    longer = _other(tmp_path / "other.jsonl", 30).read_bytes()

    def regrow(p: Path) -> None:
        with p.open("r+b") as fh:
            fh.truncate(0)
            fh.write(longer)

    done = _mid_read(monkeypatch, path, regrow, after=third_line)
    line = _refused(run("metrics", path), "changed while it was read", "not by an append")
    assert done, "the reader did not read as far as line 3"
    assert "damaged" not in line and "edited" not in line and ": line " not in line
    assert jr.verify(path).ok  # the file as it now stands is a journal: "damaged" would have been false


@pytest.mark.parametrize("rewrite", ["another-journal", "garbage"])
def test_verify_refuses_a_journal_rewritten_between_its_passes(tmp_path, run, monkeypatch, rewrite):
    """``journal.verify`` streams the file three times. Rewritten (longer) after the first pass:
    with another journal, it reported "ok, 13 events chained" from the first pass while the rules
    were replayed over 30 other events (exit 0); with lines that are not JSON, it died on
    JSONDecodeError ("internal fault"). Refused in one line now."""
    path = _journal(tmp_path / "j.jsonl")
    body = _other(tmp_path / "other.jsonl", 30).read_bytes() if rewrite == "another-journal" else b"not json\n" * 1000
    first_pass = verification._first_pass

    def check_then_rewrite(*args, **kwargs):
        found = first_pass(*args, **kwargs)
        with path.open("r+b") as fh:
            fh.truncate(0)
            fh.write(body)
        return found

    monkeypatch.setattr(verification, "_first_pass", check_then_rewrite)
    _refused(run("verify", path), "changed while it was read", "while it was checked")


def test_verify_refuses_a_journal_appended_to_between_its_passes(tmp_path, run, monkeypatch):
    """A line is appended (not by day60, which waits for the lock) after verify's first pass:
    the later passes read it unchecked and died on it ("internal fault"). Verify reports on one
    file or none, so any growth is refused there; a read for figures allows it (next test)."""
    path = _journal(tmp_path / "j.jsonl")
    first_pass = verification._first_pass

    def check_then_append(*args, **kwargs):
        found = first_pass(*args, **kwargs)
        with path.open("ab") as fh:
            fh.write(b"not json\n")
        return found

    monkeypatch.setattr(verification, "_first_pass", check_then_append)
    _refused(run("verify", path), "it grew from 5271 to 5280 bytes while it was checked")


def test_lines_appended_during_a_read_for_figures_are_allowed(tmp_path, run, monkeypatch):
    """An append that does not wait for the lock (a file system without locks) adds a whole line
    once the reference reader has read the file: its bytes before are where they were, so the
    figures stand for the lines read (13 events, exit 0), and the next read takes the new line.
    Only growth is allowed so; the tail of the file as locked is what shows it was growth."""
    path = _journal(tmp_path / "j.jsonl")
    _after_read(monkeypatch, lambda p: p.open("ab").write(b"{}\n"))
    r = run("metrics", path, "--format", "json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["head"]["seq"] == 13


def test_an_import_refuses_a_journal_appended_to_under_its_exclusive_lock(tmp_path, run, monkeypatch):
    """An import reads the journal under its exclusive lock, then chains its batch to the last
    line it read. A line written meanwhile by something that ignores the lock was caught before
    only later, by the sidecar index's replay, as "line 2: not in canonical form (the line was
    edited)", naming an edit of day60's lines that nobody made. Now the read itself refuses, with
    the cause: the journal holds its own lines and the intruder only, and the import wrote nothing."""
    path = make_journal(tmp_path / "records.jsonl", [], tier="T2", window=("2026-03-02T09:00", "2026-03-13T17:30"))
    before = path.read_bytes()
    intruder = b'{"not": "a day60 line"}\n'
    _after_read(monkeypatch, lambda p: p.open("ab").write(intruder))
    r = run("import", "csv", EX / "spreadsheet.csv", "--map", EX / "spreadsheet-map.toml", "--journal", path)
    _refused(r, "changed while it was read", f"it grew from {len(before)} to {len(before) + len(intruder)} bytes")
    assert path.read_bytes() == before + intruder


def test_a_change_of_attributes_alone_is_named_as_such(tmp_path, run, monkeypatch):
    """``chmod`` during a read moves only the change time. It cannot be told from a rewrite whose
    time was set back, so the read is refused, and the line says it may be either."""
    path = _journal(tmp_path / "j.jsonl")
    _after_read(monkeypatch, lambda p: os.chmod(p, 0o600))
    _refused(run("metrics", path), "its attributes were changed")


def test_hash_at_declines_a_line_that_is_not_the_one_checked():
    """``engine._hash_at`` reads the anchored line back from the file after the checks. Where it
    is no longer a line the toolkit wrote (garbage, another seq, no hash) it declines, so the
    engine never raises a fault on bytes it did not check (JSONDecodeError and KeyError before)."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "j.jsonl"
        path.write_bytes(b'{"hash":"h0"}\n' + b"not json\n" + b'{"seq":7,"hash":"x"}\n' + b'{"seq":3}\n'
                         + b'{"seq":4,"hash":"h4"}\n')
        for seq in (1, 2, 3, 9):
            with pytest.raises(engine.Declined):
                engine._hash_at(path, seq)
        assert engine._hash_at(path, 4) == "h4" and engine._hash_at(path, 0) == "h0"


@pytest.mark.usefixtures("engine_on_every_size")
def test_verify_expect_on_the_engine_refuses_a_line_written_over_after_its_checks(tmp_path, run, monkeypatch):
    """After the engine's checks, the anchored line (seq 13) is written over with bytes of its
    length that are not JSON: the look-up died on JSONDecodeError ("internal fault"). Refused."""
    path = _journal(tmp_path / "j.jsonl")
    head = jr.verify(path).head
    read_whole = engine._fast

    def read_then_overwrite(*args, **kwargs):
        journal = read_whole(*args, **kwargs)
        raw = path.read_bytes()
        start = raw.rstrip(b"\n").rfind(b"\n") + 1
        with path.open("r+b") as fh:
            fh.seek(start)
            fh.write(b"x" * (len(raw) - start - 1))
        return journal

    monkeypatch.setattr(engine, "_fast", read_then_overwrite)
    _refused(run("verify", path, "--expect", f"{head['seq']}:{head['hash']}"), "written over in place")


# ----- verify --repair, which cuts a journal under the exclusive lock --------------------------


def _with_partial_line(tmp_path: Path) -> Path:
    path = _journal(tmp_path / "j.jsonl")
    with path.open("ab") as fh:
        fh.write(b'{"seq":14,"kind":"incident.det')  # an append cut short by a crash
    return path


def test_a_repair_waits_for_a_read_under_way_and_the_read_is_not_refused(tmp_path, run, monkeypatch):
    """``verify --repair`` starts while metrics holds the shared lock: the repair waits (still
    waiting 0.3 s on), the read ends with its figures (the partial line left out, noted, exit 0,
    no word of a cut), and the repair then moves the partial line aside."""
    path = _with_partial_line(tmp_path)
    whole = len(path.read_bytes()) - len(b'{"seq":14,"kind":"incident.det')
    repairs: list[threading.Thread] = []

    def repair_meanwhile(p: Path) -> bool:
        t = threading.Thread(target=jr.repair, args=(p,))
        t.start()
        repairs.append(t)
        t.join(0.3)
        return t.is_alive()

    waited = _after_read(monkeypatch, repair_meanwhile)
    r = run("metrics", path, "--format", "json")
    repairs[0].join(10)
    assert waited == [True], "the repair did not wait for the read"
    assert r.exit_code == 0, r.output
    assert "shrank" not in r.stderr and "partial line" in r.stderr
    assert json.loads(r.stdout)["head"]["seq"] == 13
    assert path.stat().st_size == whole  # the repair ran once the read was done


def test_a_read_waits_for_a_repair_under_way_and_is_not_refused(tmp_path):
    """The other way round: a read starts while the repair holds the exclusive lock and has cut
    the partial line. The read waits (0.3 s on), then reads the repaired file and is not refused:
    its lock found the file already cut."""
    path = _with_partial_line(tmp_path)
    got: list = []

    def read_it() -> None:
        try:
            got.append(reading.read(path))
        except Exception as exc:  # reported by the assertion below
            got.append(exc)

    with jr.lock.locked(path):
        t = threading.Thread(target=read_it)
        t.start()
        t.join(0.3)
        assert t.is_alive(), "the read did not wait for the repair's lock"
        raw = path.read_bytes()
        os.truncate(path, raw.rfind(b"\n") + 1)  # as repair cuts it, under its lock
    t.join(10)
    assert len(got) == 1 and isinstance(got[0], jr.Journal), got
    assert got[0].partial is None and got[0].head["seq"] == 13


# ----- every command that reads --------------------------------------------------------------


def _cut3(path: Path) -> int:
    keep = sum(len(raw) + 1 for raw in path.read_bytes().split(b"\n")[:3])
    os.truncate(path, keep)
    return keep


def _commands(path: Path, other: Path, out: Path, head: str) -> dict[str, list]:
    return {
        "show": ["show", path], "show-json": ["show", path, "--format", "json"],
        "metrics": ["metrics", path], "metrics-json": ["metrics", path, "--format", "json"],
        "score": ["score", path, "--out", out / "s.json", "--pdf", out / "s.pdf", "--html", out / "s.html",
                  "--format", "json"],
        "verify": ["verify", path], "verify-expect": ["verify", path, "--expect", head],
        "comply": ["comply", path, "--sow", SOW, "--parties-differ", "--pdf", out / "c.pdf", "--html", out / "c.html"],
        "notice": ["notice", path, "--to", "Test supplier", "--out", out / "n.json", "--pdf", out / "n.pdf"],
        "portfolio": ["portfolio", path, "--pdf", out / "p.pdf", "--format", "json"],
        "compare": ["compare", path, other, "--pdf", out / "cmp.pdf", "--format", "json"],
        "live": ["live", path],
        "serve": ["serve", path, "--port", "0"],
    }


@pytest.mark.parametrize("name", ["show", "show-json", "metrics", "metrics-json", "score", "verify", "verify-expect",
                                  "comply", "notice", "portfolio", "compare", "live", "serve"])
def test_every_command_that_reads_refuses_a_cut_journal_and_writes_nothing(tmp_path, run, monkeypatch, name):
    """Cut to its first three lines once read: each command exits 2 with one line naming both
    sizes, prints nothing on stdout (no table, no half of a JSON document), and writes no file
    (no PDF, HTML or JSON, no temporary file beside them); notice logs no event; portfolio, given
    one journal, says no journal could be read, and why."""
    monkeypatch.setattr("day60.cli.base._interactive", lambda: True)  # live runs only on a terminal
    path = _journal(tmp_path / "j.jsonl")
    other = _journal(tmp_path / "other.jsonl")
    head = "{seq}:{hash}".format(**jr.verify(path).head)
    out = tmp_path / "out"
    out.mkdir()
    kept = _after_read(monkeypatch, _cut3)
    r = run(*_commands(path, other, out, head)[name])
    assert kept, f"{name} did not read the journal through day60.reading"
    assert r.exit_code == 2, r.output
    assert r.stdout == ""
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert f"{path} shrank from 5271 to {kept[0]} bytes while it was read" in lines[0]
    assert list(out.iterdir()) == []
    assert len(path.read_bytes()) == kept[0]  # nothing appended (notice logs the notice it sent)


def test_portfolio_lists_a_journal_cut_while_read_as_refused_and_scores_the_rest(tmp_path, run, monkeypatch):
    """Given several journals, portfolio lists one it cannot read with the reason and gives it no
    row (its documented contract, exit 0): the cut one is listed with the shrink named."""
    cut = _journal(tmp_path / "a.jsonl")
    whole = _journal(tmp_path / "b.jsonl")  # another exercise: its header was written at another instant
    _after_read(monkeypatch, _cut3)
    r = run("portfolio", cut, whole, "--format", "json")
    assert r.exit_code == 0, r.output
    found = json.loads(r.stdout)
    assert [row["path"] for row in found["exercises"]] == [str(whole)]
    assert len(found["refused"]) == 1 and found["refused"][0]["path"] == str(cut)
    assert f"{cut} shrank from 5271 to" in found["refused"][0]["problem"]


# ----- the line a person reads ----------------------------------------------------------------

LAUNCH = r"""
import os, sys, time
from pathlib import Path
from day60 import journal as jr, reading
from day60.cli import main, progress

progress.DELAY = 0  # the spinner from the start: the refusal must still read as one line after it
path, real = Path(sys.argv[1]), jr.read


def read(p):
    j = real(p)
    time.sleep(0.3)  # a few frames of the spinner
    os.truncate(path, sum(len(raw) + 1 for raw in path.read_bytes().split(b"\n")[:3]))
    return j


reading.jr = type(sys)("proxy")
reading.jr.__dict__.update({k: getattr(jr, k) for k in dir(jr) if not k.startswith("__")}, read=read)
sys.argv = ["day60", *sys.argv[2:]]
main()
"""


def test_the_refusal_reads_as_one_line_on_a_forty_column_terminal(tmp_path):
    """score on a real terminal 40 columns wide, its spinner drawn on stderr while the journal is
    read: once it stops, the screen holds the refusal and nothing else (no frame of the spinner
    left), the words whole across the wrapped rows; exit 2."""
    import fcntl
    import pty
    import struct
    import termios

    import pyte

    path = _journal(tmp_path / "j.jsonl")
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 40, 0, 0))
    env = {**{k: v for k, v in os.environ.items() if k != "DAY60_NO_PROGRESS"}, "PYTHONPATH": str(ROOT),
           "TERM": "xterm-256color", "COLUMNS": "40"}
    child = subprocess.Popen([sys.executable, "-c", LAUNCH, str(path), "score", str(path)], stdin=slave,
                             stdout=subprocess.PIPE, stderr=slave, env=env, cwd=tmp_path)
    os.close(slave)
    seen = b""
    with contextlib.suppress(OSError):
        while chunk := os.read(master, 65536):
            seen += chunk
    os.close(master)
    out = child.stdout.read()
    assert child.wait(timeout=60) == 2, seen
    assert out == b""
    screen = pyte.Screen(40, 24)
    pyte.ByteStream(screen).feed(seen)
    rows = [row for row in screen.display if row.strip()]
    shown = "".join(rows).strip()
    assert shown.startswith(f"error: JOURNAL: {path} shrank from 5271 to"), screen.display
    assert shown.endswith(f"'day60 verify {path} --expect SEQ:HASH'"), screen.display
    assert "reading" not in shown  # the spinner's words are gone
    assert seen.count(b"error:") == 1


# ----- the forked PDF child ------------------------------------------------------------------


def _children() -> set[int]:
    """This process's living and unreaped children."""
    found: set[int] = set()
    for task in Path(f"/proc/{os.getpid()}/task").iterdir():
        with contextlib.suppress(OSError):
            found |= {int(pid) for pid in (task / "children").read_text().split()}
    return found


@pytest.fixture
def jobs(monkeypatch):
    """tests/test_pdf_child.py's three jobs on a machine said to have two cores: the parent
    renders job 2, the child jobs 1 and 0 (the split is worked there)."""
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: {0, 1}, raising=False)
    return _small_jobs()


@pytest.fixture
def alone(jobs):
    return [render.pdf_bytes(*job) for job in jobs]


@pytest.fixture
def forks(monkeypatch):
    """The pids of the children forked during the test; none may be left unreaped at its end."""
    before, pids, real = _children(), [], os.fork

    def fork():
        pid = real()
        if pid:
            pids.append(pid)
        return pid

    monkeypatch.setattr(os, "fork", fork)
    yield pids
    assert _children() - before == set(), "a child was left behind"


def _in_child(monkeypatch, in_child) -> list[str]:
    """``render.pdf_bytes`` runs ``in_child()`` first in the child; returns the HTML the parent
    rendered."""
    parent, real, rendered = os.getpid(), render.pdf_bytes, []

    def wrapper(*args, **kwargs):
        if os.getpid() != parent:
            in_child()
        else:
            rendered.append(args[0])
        return real(*args, **kwargs)

    monkeypatch.setattr(render, "pdf_bytes", wrapper)
    return rendered


@pytest.mark.parametrize("sent", ["garbage", "half-a-pickle", "one-of-two", "not-pdf-bytes", "empty-share"])
def test_a_child_that_exits_well_but_sends_anything_but_its_share_costs_time(jobs, alone, forks, monkeypatch, sent):
    """The child exits 0 having sent: bytes that are no pickle; the first half of its pickle; a
    pickle of job 1 only; text where a PDF's bytes belong; an empty dict. The parent took the
    first four at their word: UnpicklingError (twice), KeyError for the missing job, or a str
    handed back as a PDF. Now it renders the child's share itself, the bytes as alone (it did so
    for the empty dict already)."""
    real_dumps, parent = pickle.dumps, os.getpid()
    bodies = {
        "garbage": lambda true: b"\x80\x04 not a pickle",
        "half-a-pickle": lambda true: true[: len(true) // 2],
        "one-of-two": lambda true: real_dumps({1: pickle.loads(true)[1]}),
        "not-pdf-bytes": lambda true: real_dumps({i: ("%PDF-1.7", pages) for i, (_, pages)
                                                  in pickle.loads(true).items()}),
        "empty-share": lambda true: real_dumps({}),
    }
    in_parent = _in_child(monkeypatch, lambda: None)

    def child_dumps(obj, *a, **k):  # the child's message only; the test's own pickles are real
        true = real_dumps(obj, *a, **k)
        return bodies[sent](true) if isinstance(obj, dict) and os.getpid() != parent else true

    monkeypatch.setattr(pickle, "dumps", child_dumps)
    assert render.pdf_bytes_many(jobs) == alone
    assert in_parent == [jobs[2][0], jobs[1][0], jobs[0][0]]
    assert len(forks) == 1


def test_a_child_that_sends_part_of_its_share_then_stalls_is_killed(jobs, alone, forks, monkeypatch):
    """The child writes the first half of its pickle, then sleeps (as a child stuck on a lock
    would): the parent has part of a message and waits for the rest only until its deadline
    (here 0.2 s past twice its own time), kills and reaps the child, and renders the share."""
    monkeypatch.setattr(render, "CHILD_GRACE", 0.2)
    real_fdopen = os.fdopen
    parent = os.getpid()

    class Stalls:
        def __init__(self, fh):
            self.fh = fh

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.fh.close()

        def write(self, body: bytes) -> None:
            self.fh.write(body[: len(body) // 2])
            self.fh.flush()
            import time
            time.sleep(30)  # killed long before

    monkeypatch.setattr(os, "fdopen", lambda fd, mode="r", *a, **k: Stalls(real_fdopen(fd, mode, *a, **k))
                        if os.getpid() != parent else real_fdopen(fd, mode, *a, **k))
    in_parent = _in_child(monkeypatch, lambda: None)
    assert render.pdf_bytes_many(jobs) == alone
    assert in_parent == [jobs[2][0], jobs[1][0], jobs[0][0]]


@pytest.mark.parametrize("fails", ["fork", "pipe"])
def test_no_child_to_be_had_costs_time_never_a_document(jobs, alone, monkeypatch, fails):
    """No child can be started: fork fails with EAGAIN (a process limit, or no memory for one),
    or no pipe can be made (EMFILE). That OSError reached the command, "internal fault" and no
    PDF; now the parent renders every document itself."""
    def refuse(*args):
        raise OSError(errno.EAGAIN if fails == "fork" else errno.EMFILE, "refused")

    monkeypatch.setattr(os, fails, refuse)
    in_parent = _in_child(monkeypatch, lambda: None)
    assert render.pdf_bytes_many(jobs) == alone
    assert sorted(in_parent) == sorted(job[0] for job in jobs)


def test_ctrl_c_while_the_parent_waits_for_the_child_reaps_it(jobs, forks, monkeypatch):
    """Ctrl-C lands while the parent waits on the pipe (the child is stopped, so it would wait
    till its deadline): KeyboardInterrupt reaches the caller, and the child is killed and reaped
    first (the ``forks`` fixture fails the test on a child left behind)."""
    import select

    real_poll = select.poll

    class Interrupted:
        def __init__(self):
            self.poll_ = real_poll()

        def register(self, *args):
            self.poll_.register(*args)

        def poll(self, *args):
            raise KeyboardInterrupt

    _in_child(monkeypatch, lambda: os.kill(os.getpid(), signal.SIGSTOP))
    monkeypatch.setattr(select, "poll", Interrupted)
    with pytest.raises(KeyboardInterrupt):
        render.pdf_bytes_many(jobs)
    assert len(forks) == 1


FIXED = dt.datetime(2026, 11, 2, 9, 30)


@pytest.mark.parametrize("child", ["works", "killed"])
def test_undated_attachments_give_the_same_bytes_whichever_process_renders_them(jobs, monkeypatch, child):
    """Job 1 with its attachment but no date: WeasyPrint dates it "now", so before, the bytes
    depended on when and where it was rendered, and a child killed as too slow had its share
    rendered later, with other dates. It is dated once now, at the start (the clock fixed here),
    so the PDFs equal ``pdf_bytes`` given that instant, in the child or, once it is killed, in
    the parent."""
    undated = [(page, attachments, None) for page, attachments, _ in jobs]
    expected = [render.pdf_bytes(page, attachments, FIXED if attachments else None)
                for page, attachments, _ in undated]
    monkeypatch.setattr(render, "_now", lambda: FIXED)
    if child == "killed":
        _in_child(monkeypatch, lambda: os.kill(os.getpid(), signal.SIGKILL))
    assert render.pdf_bytes_many(undated) == expected




def test_a_parent_killed_outright_takes_its_child_with_it(tmp_path):
    """The parent is killed with SIGKILL (no handler of its runs) while its child is stopped:
    before, the child stayed, stopped for ever, an orphan holding a copy of the parent's memory.
    The kernel now kills the child when the parent dies (PR_SET_PDEATHSIG)."""
    import time

    pid_file = tmp_path / "child.pid"
    done = subprocess.run([sys.executable, "-c", STOPPED, "parent-killed", str(pid_file)], cwd=ROOT,
                          capture_output=True, text=True,
                          timeout=60, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == -signal.SIGKILL, done.stderr
    child = int(pid_file.read_text())
    state = "?"
    for _ in range(100):
        try:
            state = Path(f"/proc/{child}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            state = "gone"
        if state in ("gone", "Z", "X"):
            break
        time.sleep(0.05)
    else:
        with contextlib.suppress(ProcessLookupError):
            os.kill(child, signal.SIGKILL)
    assert state in ("gone", "Z", "X"), f"the child outlived its parent (state {state})"


DEMO = r"""
import os, signal, sys, time
from day60 import render
from day60.cli import main

# Ctrl-C as a terminal's shell delivers it: a pytest started in the background by a shell without
# job control (`pytest &`, nohup, some CI runners) hands its children SIGINT ignored, and Python
# then never installs its handler, so the signal below would be ignored and the test would wait
# PATIENCE for an exit that never comes (it did: ten minutes of one worker, then a failure).
signal.signal(signal.SIGINT, signal.default_int_handler)

ready, parent = int(sys.argv[1]), os.getpid()
os.sched_getaffinity = lambda _pid: {0, 1}  # two cores, so the child is forked on any machine


def rendering(*args, **kwargs):
    # each process says it is rendering (one line, one write: whole on the pipe or not at all),
    # then waits until a signal ends it: Ctrl-C lands while both render, however loaded the machine.
    # Short sleeps, not signal.pause(): a SIGINT landing between the write and the pause would be
    # handled only at a next signal, never; after a sleep its handler runs at once.
    os.write(ready, f"{'parent' if os.getpid() == parent else 'child'} {os.getpid()}\n".encode())
    while True:
        time.sleep(0.05)


render.pdf_bytes = rendering
sys.argv = ["day60", "demo", "--out", sys.argv[2]]
main()
"""

PATIENCE = 600  # seconds: a ceiling that matters only when the awaited event never comes


def test_ctrl_c_at_the_terminal_during_the_demo_leaves_no_process_and_no_pdf(tmp_path):
    """``day60 demo`` in a process group of its own, as a shell runs it; once its parent and its
    PDF child are both rendering (each says so on a pipe, then waits to be stopped), SIGINT goes
    to the whole group, as Ctrl-C at a terminal sends it. The demo stops (exit 130, no traceback),
    no process of the group is left, the child included, and no PDF nor temporary file is in the
    folder: the files there are those written whole before the PDFs were rendered. Every wait
    here is for an event (a line on the pipe, the pipe's end, the demo's exit), so a loaded
    machine makes the test slower, never wrong."""
    import select

    out = tmp_path / "demo"
    read_end, write_end = os.pipe()
    try:
        demo = subprocess.Popen([sys.executable, "-c", DEMO, str(write_end), str(out)], cwd=tmp_path,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
                                pass_fds=[write_end], env={**os.environ, "PYTHONPATH": str(ROOT)})
    finally:
        os.close(write_end)  # the demo's processes hold the only write ends: their exit ends the pipe
    try:
        said = b""
        with os.fdopen(read_end, "rb", buffering=0) as pipe:
            while said.count(b"\n") < 2 and select.select([pipe], [], [], PATIENCE)[0]:
                part = pipe.read(4096)
                if not part:
                    break  # every process of the demo ended before both were rendering
                said += part
        rendering = dict(line.split() for line in said.decode().splitlines())
        assert demo.poll() is None and sorted(rendering) == ["child", "parent"], (said, demo.poll())
        os.killpg(demo.pid, signal.SIGINT)
        _, stderr = demo.communicate(timeout=PATIENCE)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(demo.pid, signal.SIGKILL)
    assert demo.returncode == 130, stderr
    assert b"Traceback" not in stderr, stderr
    with pytest.raises(ProcessLookupError):
        os.killpg(demo.pid, 0)  # no process of the group is left
    assert rendering["child"].isdigit() and not Path(f"/proc/{rendering['child']}").exists()
    names = sorted(p.name for p in out.iterdir())
    assert not [n for n in names if n.endswith((".pdf", ".tmp"))], names
    assert json.loads((out / "score.json").read_text())["synthetic"]

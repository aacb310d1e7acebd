"""'day60 live' on a journal that something else is writing at the same moment.

The checklist reads the journal at every turn of its menu through ``reading.read(path,
events=True)``, under the journal's shared lock; a writer (an append, an import's batch) holds the
exclusive lock until its last byte is on disk. So while a line is half-written the checklist's
read waits, and then shows the journal as it stands after the write: never a partial line, never
a refusal of the journal, never a crash. Driven on a real pseudo-terminal (with a second process
holding the append, or a real 'day60 import' paused half way through its batch) and on
prompt_toolkit pipe input.
"""

from __future__ import annotations

import contextlib
import os
import re
import select
import subprocess
import sys
import time
from pathlib import Path

from day60 import checklist
from day60 import journal as jr
from tests.builders import during_a_half_written_append, make_journal
from tests.test_live import CTRL_C, ENTER, ROOT, Terminal

EX = ROOT / "day60" / "imports" / "examples"
ENV = {**os.environ, "PYTHONPATH": str(ROOT), "TERM": "xterm", "PROMPT_TOOLKIT_NO_CPR": "1"}
TROUBLE = ("partial", "error", "Traceback", "damaged", "repair", "internal fault")


def _plain(text: str) -> str:
    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][A-Z0-9]|\x1b[=>]", "", text)


def _until(term: Terminal, text: str, timeout: float = 30) -> str:
    """Everything the terminal shows up to and including ``text`` (escape sequences removed), as
    ``Terminal.expect`` reads it, but kept: what came before the text is what is checked."""
    deadline = time.time() + timeout
    while True:
        plain = _plain(term.seen)
        at = plain.find(text)
        if at >= 0:
            term.seen = plain[at + len(text):]
            return plain[:at + len(text)]
        left = deadline - time.time()
        if left <= 0 or (term.proc.poll() is not None and not select.select([term.fd], [], [], 0)[0]):
            raise AssertionError(f"{text!r} never appeared; the screen ended with {plain[-600:]!r}")
        if select.select([term.fd], [], [], min(left, 0.2))[0]:
            with contextlib.suppress(OSError):  # live has gone and the terminal closed
                term.seen += os.read(term.fd, 65536).decode("utf-8", "replace")


def _for(term: Terminal, seconds: float) -> str:
    """What the terminal shows over ``seconds``, kept for the next read too."""
    deadline = time.time() + seconds
    while time.time() < deadline:
        if select.select([term.fd], [], [], 0.05)[0]:
            try:
                term.seen += os.read(term.fd, 65536).decode("utf-8", "replace")
            except OSError:
                break
    return _plain(term.seen)


def _after_a_read(term: Terminal) -> str:
    """The screen from here to the menu that follows live's next read of the journal: its status
    line first (the answered menu prompt, "Next step refresh...", comes before it)."""
    return _until(term, "events recorded") + _until(term, "Next step")


def _close(term: Terminal) -> int:
    """Live's exit code; a live still running (a test failed before it left) is stopped first."""
    if term.proc.poll() is None:
        term.send(CTRL_C + CTRL_C)
        try:
            term.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            term.proc.kill()
    return term.close()


def _status(count: int) -> str:
    return f"Test partner / Test supplier (T2): {count} events recorded"


def _one_incident(path: Path) -> tuple[Path, bytes]:
    """A journal holding one detection (I1, severity 2, organic), and the line that restores it."""
    make_journal(path, [("incident.detected", "I1", "2026-03-02T10:00", {"severity": 2, "source": "organic"})],
                 tier="T2")
    before = jr.read(path)
    event = jr.new_event(2, jr.sha256_hex(before.last_line), "incident.restored", "I1", "2026-03-02T11:00:00+00:00",
                         "Ana (observer)", {"check": "probe"})
    return path, (jr.canonical(event) + "\n").encode("utf-8")


def test_live_on_a_terminal_waits_for_a_half_written_append_and_shows_it_whole(tmp_path):
    """Live shows 1 event and I1 open. This process (not live's) takes the exclusive lock and
    writes the first 40 bytes of I1's restore; Enter on the menu's first item (refresh) makes
    live read again. Half a second later it is still waiting (nothing new on the screen); once
    the line is finished it shows 2 events and no open incident: the state after the append,
    never the state with a partial line, never an error."""
    path, line = _one_incident(tmp_path / "j.jsonl")
    term = Terminal([sys.executable, "-m", "day60", "live", str(path)], ENV)
    try:
        first = _until(term, "Next step")
        assert _status(1) in first and "open incidents: I1" in first, first
        shown: dict[str, str] = {}

        def refresh() -> None:
            term.send(ENTER)
            shown["after"] = _after_a_read(term)

        waited = during_a_half_written_append(path, line, refresh)
        assert waited, "live did not wait for the append to finish its line"
        after = shown["after"]
        assert _status(2) in after and "open incidents: none" in after, after
        assert _status(1) not in after, after  # no read of the journal with the line half-written
        assert not [word for word in TROUBLE if word in after], after
        term.send(CTRL_C)
        _until(term, "stopped; everything recorded so far is in the journal")
    finally:
        code = _close(term)
    assert code == 0
    assert jr.verify(path).ok and [e["kind"] for e in jr.read(path).events] == ["incident.detected",
                                                                                 "incident.restored"]


# An import, run as its own process, that stops half way through the first write to the journal
# (holding the exclusive lock, as a batch written a megabyte at a time holds it between writes),
# says so in a file, and finishes when the test writes another file.
PAUSED_IMPORT = r"""
import os, sys, time
from pathlib import Path

journal, ready, go = sys.argv[1:4]
inode = os.stat(journal).st_ino
real_write, paused = os.write, []


def write(fd, data):
    try:
        into_journal = os.fstat(fd).st_ino == inode
    except OSError:
        into_journal = False
    if into_journal and not paused:
        paused.append(1)
        written = real_write(fd, bytes(data[:len(data) // 2]))
        Path(ready).write_text(str(written))
        while not os.path.exists(go):
            time.sleep(0.02)
        return written  # the batch writes the rest as the remainder of a short write
    return real_write(fd, data)


os.write = write
from day60.cli import app

sys.argv = ["day60", *sys.argv[4:]]
app()
"""


def test_live_on_a_terminal_during_a_real_import_shows_the_journal_after_its_batch(tmp_path):
    """An empty T2 journal; live shows 0 events. 'day60 import csv' of the shipped spreadsheet
    (three tickets) runs in another process and is held with half of its batch written; refresh
    in live waits (nothing new for a second), and when the import finishes, live shows every
    event the import wrote and the tickets still open by the checklist's own reckoning, the
    journal verifies, and the import exited 0."""
    path = make_journal(tmp_path / "records.jsonl", [], tier="T2")
    ready, go = tmp_path / "ready", tmp_path / "go"
    term = Terminal([sys.executable, "-m", "day60", "live", str(path)], ENV)
    importer = None
    try:
        assert _status(0) in _until(term, "Next step")
        importer = subprocess.Popen(
            [sys.executable, "-c", PAUSED_IMPORT, str(path), str(ready), str(go), "import", "csv",
             str(EX / "spreadsheet.csv"), "--map", str(EX / "spreadsheet-map.toml"), "--journal", str(path)],
            env=ENV, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.time() + 60
        while not ready.exists():
            assert importer.poll() is None, importer.communicate()
            assert time.time() < deadline, "the import never started writing its batch"
            time.sleep(0.05)
        half = int(ready.read_text())
        assert half > 0 and not path.read_bytes().endswith(b"\n"), "the batch is not half written"
        term.send(ENTER)  # refresh: read the journal again
        waiting = _for(term, 1.0)
        assert "events recorded" not in waiting, waiting  # still waiting on the import's lock
        go.write_text("go")
        out, err = importer.communicate(timeout=60)
        assert importer.returncode == 0, out + err
        after = _after_a_read(term)
        final = jr.read(path)
        assert final.partial is None and len(final.events) > 0
        assert _status(len(final.events)) in after, after
        open_now = checklist.status(final.events)["incidents"]
        assert f"open incidents: {'; '.join(open_now) if open_now else 'none'}" in after, after
        assert not [word for word in TROUBLE if word in after], after
        term.send(CTRL_C)
        _until(term, "stopped; everything recorded so far is in the journal")
    finally:
        if importer is not None and importer.poll() is None:
            go.write_text("go")
            importer.wait(timeout=60)
        code = _close(term)
    assert code == 0
    assert jr.verify(path).ok


def test_live_on_pipe_input_waits_for_a_half_written_append(run, tmp_path, monkeypatch, pipe):
    """The twin on prompt_toolkit pipe input: live starts (its first read) while the append is
    held half-written, so it waits; it then shows 2 events, refreshes (2 again) and leaves on
    Ctrl-C, exit 0. It never showed 1 event (the journal with a partial line) nor a warning."""
    from prompt_toolkit.application import create_app_session
    from prompt_toolkit.output import DummyOutput

    monkeypatch.setattr("day60.cli.base._interactive", lambda: True)
    path, line = _one_incident(tmp_path / "j.jsonl")
    pipe.send_text(ENTER + CTRL_C)  # refresh, then leave
    result: dict = {}

    def live() -> None:
        with create_app_session(input=pipe, output=DummyOutput()):  # a thread starts with no session
            result["r"] = run("live", path)

    assert during_a_half_written_append(path, line, live), "live did not wait for the append"
    r = result["r"]
    assert r.exit_code == 0, r.output
    assert r.stdout.count(_status(2)) == 2 and _status(1) not in r.stdout, r.stdout
    assert not [word for word in TROUBLE if word in r.output], r.output


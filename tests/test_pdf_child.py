"""``render.pdf_bytes_many`` and the child it forks to render half of the documents.

``test_many_pdfs_at_once_are_the_bytes_of_one_at_a_time`` (tests/test_documents.py) compares
the bytes only, and the parent renders the child's share itself when the child fails, so the
same bytes come back whether the child rendered or not. Here the renders are counted in the
parent and marked in the child: a child that works has its PDFs used and the parent renders
its own share only; a child that raises, is killed or never finishes costs time, never a
document and never a hang; a parent that fails leaves no child behind.

The jobs are tests/test_documents.py's three small documents: 1, 21 and 41 paragraphs. The split
(largest first, each to the lighter side) is worked by hand: 41 to the parent (both sides empty,
ties go to the parent); 21 to the child (the parent is heavier); 1 to the child as well, since
the child's 21 paragraphs weigh less than the parent's 41. So the parent renders job 2 and the
child jobs 1 and 0.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from day60 import render
from tests.test_documents import _small_jobs

ROOT = Path(__file__).resolve().parents[1]
MARK = b"\n%made-by-the-child\n"

pytestmark = [pytest.mark.skipif(not sys.platform.startswith("linux"), reason="pdf_bytes_many forks on Linux only"),
              pytest.mark.real_renders]  # what a child renders is the test: never a kept rendering


@pytest.fixture
def jobs(monkeypatch):
    """The three jobs, on a machine said to have two cores (so the child is always forked)."""
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: {0, 1}, raising=False)
    return _small_jobs()


@pytest.fixture
def alone(jobs):
    return [render.pdf_bytes(*job) for job in jobs]


def _in_parent_and_child(monkeypatch, in_child) -> list[str]:
    """Replace ``render.pdf_bytes``: in the parent it renders and records the HTML it was given;
    in the child it calls ``in_child(real, args, kwargs)``. Returns the parent's record."""
    parent, real, rendered = os.getpid(), render.pdf_bytes, []

    def wrapper(*args, **kwargs):
        if os.getpid() != parent:
            return in_child(real, args, kwargs)
        rendered.append(args[0])
        return real(*args, **kwargs)

    monkeypatch.setattr(render, "pdf_bytes", wrapper)
    return rendered


def test_the_pdfs_the_child_renders_are_the_ones_returned(jobs, monkeypatch):
    """The child marks what it renders: jobs 1 and 0 come back with the mark (so they are the
    child's, sent through the pipe), job 2 without it, and the parent rendered job 2 only."""

    def marked(real, args, kwargs):
        body, pages = real(*args, **kwargs)
        return body + MARK, pages

    in_parent = _in_parent_and_child(monkeypatch, marked)
    out = render.pdf_bytes_many(jobs)
    assert [body.endswith(MARK) for body, _ in out] == [True, True, False]
    assert in_parent == [jobs[2][0]]


def test_a_working_child_saves_the_parent_its_share_and_gives_the_same_bytes(jobs, alone, monkeypatch):
    """Nothing marked: the bytes are those of one at a time, in the order given, and the parent
    rendered one document of three (job 2), so the other two are the child's own bytes."""
    in_parent = _in_parent_and_child(monkeypatch, lambda real, args, kwargs: real(*args, **kwargs))
    assert render.pdf_bytes_many(jobs) == alone
    assert in_parent == [jobs[2][0]]


def test_a_killed_child_costs_time_never_a_document(jobs, alone, monkeypatch):
    """The child is killed (SIGKILL, as the kernel's out-of-memory killer would) at its first
    render: the parent renders job 2, then the child's jobs 1 and 0 itself, and every PDF is
    byte for byte as rendered alone."""

    def killed(real, args, kwargs):
        os.kill(os.getpid(), signal.SIGKILL)

    in_parent = _in_parent_and_child(monkeypatch, killed)
    assert render.pdf_bytes_many(jobs) == alone
    assert in_parent == [jobs[2][0], jobs[1][0], jobs[0][0]]


def test_a_child_killed_after_its_first_document_costs_time_never_a_document(jobs, alone, monkeypatch):
    """The child renders job 1 and is killed at job 0, having sent nothing (it sends all at the
    end): the parent renders both of the child's jobs; none of the child's work is half used."""
    done: list[int] = []

    def second_killed(real, args, kwargs):
        if done:
            os.kill(os.getpid(), signal.SIGKILL)
        done.append(1)
        return real(*args, **kwargs)

    in_parent = _in_parent_and_child(monkeypatch, second_killed)
    assert render.pdf_bytes_many(jobs) == alone
    assert in_parent == [jobs[2][0], jobs[1][0], jobs[0][0]]


# A child that stops and never finishes (a lock held by another thread at the fork, say) is run
# in a process of its own, so a parent that waits for ever fails this test at its deadline and
# does not hang the suite. The child writes its pid before it stops, so the test can see that the
# parent reaped it, and can kill it itself otherwise.
STOPPED = r"""
import json, os, signal, sys
from pathlib import Path
from day60 import render
from tests.test_documents import _small_jobs

mode, pid_file = sys.argv[1], Path(sys.argv[2])
os.sched_getaffinity = lambda _pid: {0, 1}
render.CHILD_GRACE = 1.0  # seconds the parent waits for the child beyond its own share's time
jobs = _small_jobs()
alone = [render.pdf_bytes(*job) for job in jobs]
parent, real, in_parent = os.getpid(), render.pdf_bytes, []


def stopped():
    if not pid_file.exists():
        return False
    with open(f"/proc/{pid_file.read_text()}/stat") as fh:
        return fh.read().rsplit(")", 1)[1].split()[0] == "T"


def wrapper(*args, **kwargs):
    if os.getpid() != parent:
        written = pid_file.with_suffix(".tmp")
        written.write_text(str(os.getpid()))
        written.rename(pid_file)  # whole or not at all
        os.kill(os.getpid(), signal.SIGSTOP)  # stopped: it never finishes and never exits
    if mode == "parent-fails":
        while not stopped():  # fail only once the child is stopped, which SIGTERM cannot end
            pass
        raise RuntimeError("the parent's own render fails")
    if mode == "parent-killed":
        while not stopped():
            pass
        os.kill(os.getpid(), signal.SIGKILL)  # the parent killed (kill -9, the out-of-memory killer)
    in_parent.append(args[0])
    return real(*args, **kwargs)


render.pdf_bytes = wrapper
try:
    same = render.pdf_bytes_many(jobs) == alone
    raised = None
except RuntimeError as exc:
    same, raised = None, str(exc)
child = int(pid_file.read_text())
try:
    os.waitpid(child, os.WNOHANG)
    reaped = False
except ChildProcessError:
    reaped = True  # not our child any more: the parent waited for it
print(json.dumps({"same": same, "raised": raised, "reaped": reaped,
                  "in_parent": [[job[0] for job in jobs].index(html) for html in in_parent]}))
"""


def _stopped(tmp_path: Path, mode: str) -> dict:
    pid_file = tmp_path / "child.pid"
    try:
        done = subprocess.run([sys.executable, "-c", STOPPED, mode, str(pid_file)], cwd=ROOT, capture_output=True,
                              text=True, timeout=60, env={**os.environ, "PYTHONPATH": str(ROOT)})
    except subprocess.TimeoutExpired:
        pytest.fail("pdf_bytes_many waited for ever on a child that never finished")
    finally:
        if pid_file.exists():  # the stopped child of this test, if its parent left it behind
            with contextlib.suppress(ProcessLookupError, ValueError):
                os.kill(int(pid_file.read_text()), signal.SIGKILL)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_child_that_never_finishes_costs_time_never_a_hang(tmp_path):
    """The child stops at its first render. The parent renders job 2, waits for the child a
    bounded time (here its own time plus 1 s), kills and reaps it, renders jobs 1 and 0 itself,
    and every PDF is as rendered alone."""
    seen = _stopped(tmp_path, "child-stops")
    assert seen == {"same": True, "raised": None, "reaped": True, "in_parent": [2, 1, 0]}


def test_a_parent_that_fails_leaves_no_child_behind(tmp_path):
    """The parent's own render raises while the child is stopped: the error reaches the caller,
    and the child is killed and reaped first (a stopped child ignores SIGTERM until it is
    continued, so a parent that sent SIGTERM and waited would wait for ever)."""
    seen = _stopped(tmp_path, "parent-fails")
    assert seen == {"same": None, "raised": "the parent's own render fails", "reaped": True, "in_parent": []}

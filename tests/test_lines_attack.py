"""Attacks on ``journal.Lines`` (fe89dc6): whatever the blocks and wherever a line end falls, it
gives exactly the lines the old ``(rest + chunk).split(b"\\n")`` loop gave, and the readers built on
it (``journal.read``, ``journal.verify``, ``reading.read``) agree on journals cut at awkward places:
an unfinished last line, a last line that is only CR, a final LF exactly at the 4 MiB block
boundary, a line spread over several blocks."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from day60 import journal as jr
from day60 import reading
from day60.cli import app
from day60.errors import InputError
from tests.builders import make_journal

# the engine must answer reading.read even for these small journals
pytestmark = pytest.mark.usefixtures("engine_on_every_size")

BLOCK = 1 << 22  # the block size journal.read and verify read in


def _old(blocks: list[bytes]) -> tuple[list[bytes], bytes]:
    """The loop Lines replaced, kept here as the reference it must match."""
    out, rest = [], b""
    for chunk in blocks:
        parts = (rest + chunk).split(b"\n")
        rest = parts.pop()
        out.extend(parts)
    return out, rest


def _new(blocks: list[bytes]) -> tuple[list[bytes], bytes]:
    lines, out = jr.Lines(), []
    for chunk in blocks:
        out.extend(lines.feed(chunk))
    return out, lines.rest


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(st.sampled_from([b"a", b"\n", b"\r", b"\xef"]), max_size=12).map(b"".join),
                max_size=8))
def test_lines_match_the_old_split_loop(blocks):
    """Any bytes cut into any blocks (empty ones too): same lines, same unfinished rest."""
    assert _new(blocks) == _old(blocks)


def test_lines_by_hand():
    """Cases worked by hand: b"ab" + b"c\\nd" + b"\\n" is lines ab c, d, rest empty; a lone LF is one
    empty line; a block with no LF ends nothing."""
    assert _new([b"ab", b"c\nd", b"\n"]) == ([b"abc", b"d"], b"")
    assert _new([b"\n"]) == ([b""], b"")
    assert _new([b"x", b"y", b"z"]) == ([], b"xyz")
    assert _new([b"\r"]) == ([], b"\r")


@pytest.fixture
def small(tmp_path) -> Path:
    return make_journal(tmp_path / "j.jsonl", [("exercise.close", "exercise", "2026-03-13T17:30")])


def _lines(path: Path) -> int:
    return path.read_bytes().count(b"\n")


def test_unfinished_last_line_spanning_blocks(small):
    """A crash mid-write leaving 2.5 blocks with no LF: every reader keeps the complete lines, and
    calls the rest partial (not damage)."""
    n = _lines(small)
    events = len(jr.read(small).events)
    with small.open("ab") as fh:
        fh.write(b"{" + b"x" * (BLOCK * 2 + BLOCK // 2))
    j = jr.read(small)
    assert len(j.events) == events and j.partial is not None and len(j.partial) == BLOCK * 2 + BLOCK // 2 + 1
    r = jr.verify(small)
    assert r.problem is None and r.partial
    fast = reading.read(small, events=True)
    assert len(fast.events) == events and fast.partial == j.partial and fast.last_line == j.last_line
    assert _lines(small) == n


def test_cr_only_last_line_is_partial(small):
    events = len(jr.read(small).events)
    with small.open("ab") as fh:
        fh.write(b"\r")
    assert jr.read(small).partial == "\r" and len(jr.read(small).events) == events
    assert reading.read(small, events=True).partial == "\r"
    r = jr.verify(small)
    assert r.problem is None and r.partial


def test_final_lf_exactly_at_block_boundary(small):
    """A junk line whose LF is byte 4 194 304 exactly (file size == 1<<22): it is a complete line,
    so it is damage on line n+1, never partial, from both readers."""
    n, size = _lines(small), small.stat().st_size
    with small.open("ab") as fh:
        fh.write(b"y" * (BLOCK - size - 1) + b"\n")
    assert small.stat().st_size == BLOCK
    r = jr.verify(small)
    assert not r.partial and r.problem is not None and f"line {n + 1}" in r.problem
    with pytest.raises(InputError, match=f"line {n + 1}"):
        jr.read(small)
    with pytest.raises(InputError, match=f"line {n + 1}"):
        reading.read(small)
    # one more byte after the boundary: the same damage, plus nothing else invented
    with small.open("ab") as fh:
        fh.write(b"z")
    assert f"line {n + 1}" in jr.verify(small).problem


def test_huge_header_with_no_lf(tmp_path):
    """Nothing but 9 MiB of header with no LF: refused with an InputError, never a traceback."""
    p = tmp_path / "h.jsonl"
    p.write_bytes(b'{"format":' + b"1" * (BLOCK * 2 + 5))
    with pytest.raises(InputError):
        jr.read(p)
    with pytest.raises(InputError):
        reading.read(p)
    r = jr.verify(p)
    assert not r.ok


def test_cli_on_a_partial_line_and_a_boundary_line(small):
    """verify: a partial last line exits 1 and names --repair; metrics still runs (exit 0) and says
    the line was left out. A junk line ending exactly at 1<<22: verify exits 1 naming line 3
    (header, close, junk), metrics and show refuse with exit 2; no traceback anywhere."""
    run = CliRunner()
    other = small.with_name("b.jsonl")
    other.write_bytes(small.read_bytes())
    with small.open("ab") as fh:
        fh.write(b"{" + b"x" * (BLOCK + 7))
    r = run.invoke(app, ["verify", str(small)])
    assert r.exit_code == 1 and "partial" in r.output and "--repair" in r.output
    r = run.invoke(app, ["metrics", str(small)])
    assert r.exit_code == 0 and "partial line" in r.output
    size = other.stat().st_size
    with other.open("ab") as fh:
        fh.write(b"y" * (BLOCK - size - 1) + b"\n")
    r = run.invoke(app, ["verify", str(other)])
    assert r.exit_code == 1 and "line 3" in r.output
    for command in ("metrics", "show"):
        r = run.invoke(app, [command, str(other)])
        assert r.exit_code == 2 and "line 3" in r.output
        assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)

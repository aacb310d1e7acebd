"""``verify`` on the engine's fast path checks the hash chain and every line's own hash with
hashlib in a child process (``day60.hashchain``) beside DuckDB's scan, and takes the timestamp
tokens from the lines it parsed instead of reading the file again. What a person sees must not
change: a break the child finds is named as the reference names it, a child that dies or cannot
start costs time and no check, a file changed while it is checked is refused as before, and the
tokens are judged as they are when found in the file."""

from __future__ import annotations

import datetime as dt
import json
import os
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from day60 import engine, hashchain, reading
from day60 import journal as jr
from day60.cli import app
from day60.evidence import timestamp
from tests.test_engine import _incident_line, _lines, checked, journal_with_corrections, rechain
from tests.test_timestamps import tsa  # noqa: F401 - the TSA fixture on 127.0.0.1

pytestmark = pytest.mark.usefixtures("engine_on_every_size")
UTC = dt.UTC


@pytest.fixture(scope="module")
def base(tmp_path_factory) -> Path:
    return journal_with_corrections(tmp_path_factory.mktemp("child"))


def _no_reference(monkeypatch) -> None:
    def boom(*args, **kwargs):
        raise AssertionError("verify fell back to journal.verify")

    monkeypatch.setattr(jr, "verify", boom)


def _breaks(path: Path, own: bool = True) -> tuple[int | None, int]:
    fd = os.open(path, os.O_RDONLY)
    try:
        return hashchain.first_break(fd, os.fstat(fd).st_size, own)
    finally:
        os.close(fd)


def test_hashchain_passes_a_journal_and_counts_its_lines(base):
    """The base journal of tests/test_engine.py holds 42 events (its CLI test reads "42 events
    chained"): with the header, 43 complete lines, none broken."""
    assert _breaks(base) == (None, 43)


def test_hashchain_names_the_first_line_that_breaks(base, tmp_path):
    """Line 6 (seq 5) given another ``prev``: line 6 is the first that does not chain. Line 9
    (seq 8) given a wrong own hash, the chain rebuilt after it: line 9 is named with own hashes
    checked, and nothing without (its ``prev`` and the next line's are right)."""
    lines = _lines(base)
    obj = json.loads(lines[5])
    lines[5] = jr.canonical(obj | {"prev": "0" * 64})
    broken = tmp_path / "prev.jsonl"
    broken.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert _breaks(broken) == (6, 6)

    lines = _lines(base)
    lines[8] = jr.canonical(json.loads(lines[8]) | {"hash": "0" * 64})
    own = rechain(lines, tmp_path / "own.jsonl", verbatim=frozenset({8}))
    assert _breaks(own) == (9, 9)
    assert _breaks(own, own=False) == (None, 43)


def test_hashchain_leaves_a_partial_last_line_uncounted(base, tmp_path):
    """Half a line after the 43 whole ones is no line: 43 lines, none broken."""
    raw = base.read_bytes()
    cut = tmp_path / "partial.jsonl"
    cut.write_bytes(raw + raw.split(b"\n")[5][:40])
    assert _breaks(cut) == (None, 43)


def test_a_chain_break_found_by_the_child_is_named_as_the_reference_names_it(base, tmp_path, monkeypatch):
    """An incident line's prev changed (and its own hash made to match): the scan passes it, the
    child finds it, the engine declines, and the report is the reference's word for word."""
    lines = _lines(base)
    k = _incident_line(lines, "incident.wait-start")
    lines[k] = jr.canonical(jr.with_hash(json.loads(lines[k]) | {"prev": "a" * 64}))
    broken = rechain(lines, tmp_path / "broken.jsonl", verbatim=frozenset({k}))
    seen = []
    result = engine._Chain.result

    def spy(self):
        seen.append(self.proc is not None)
        found = result(self)
        seen.append(found)
        return found

    monkeypatch.setattr(engine._Chain, "result", spy)
    reference = checked(jr.verify, broken)
    assert reference[0] is False and reference[1].startswith(f"line {k + 1}: does not chain")
    assert checked(reading.verify, broken) == reference
    assert seen == [True, (k + 1, k + 1)]  # a child was started, and it named the line


@pytest.mark.parametrize("command", [[sys.executable, "-c", "import os; os._exit(3)"],
                                     [sys.executable, "-c", "print('nonsense')"],
                                     ["/nonexistent/python"]],
                         ids=["dies", "answers nonsense", "cannot start"])
def test_a_child_that_fails_costs_no_check(base, tmp_path, monkeypatch, command):
    """Whatever becomes of the child, this process checks the chain itself: a good journal still
    passes on the fast path, and a line with a wrong own hash is still named as before."""
    monkeypatch.setattr(engine, "CHAIN_COMMAND", command)
    good = checked(reading.verify, base)
    assert good[0] is True and good[4] == 42
    lines = _lines(base)
    k = _incident_line(lines, "incident.communicated")
    lines[k] = jr.canonical(json.loads(lines[k]) | {"hash": "0" * 64})
    damaged = rechain(lines, tmp_path / "own.jsonl", verbatim=frozenset({k}))
    reference = checked(jr.verify, damaged)
    assert reference[1] == f"line {k + 1}: its hash does not match its content (the line was edited)"
    assert checked(reading.verify, damaged) == reference
    with monkeypatch.context() as m:  # and the good journal was read on the fast path, not by the reference
        _no_reference(m)
        assert checked(reading.verify, base) == good


def test_a_journal_written_over_while_the_child_reads_it_is_refused(base, tmp_path, monkeypatch):
    """A byte written over in place while the check runs: the refusal ``day60.reading`` gives for
    a journal changed while it was read, naming the change, not a verdict on either version."""
    path = tmp_path / "j.jsonl"
    path.write_bytes(base.read_bytes())
    result = engine._Chain.result

    def meddle(self):
        found = result(self)
        with path.open("r+b") as fh:
            fh.seek(200)
            fh.write(b"X")
        return found

    monkeypatch.setattr(engine._Chain, "result", meddle)
    with pytest.raises(jr.InputError, match=r"changed while it was read .*written over in place"):
        reading.verify(path)


def test_no_child_is_left_behind(base, monkeypatch):
    """The child is reaped whether the check passes or the scan fails on the way."""
    started = []
    init = engine._Chain.__init__

    def keep(self, *args):
        init(self, *args)
        started.append(self)

    monkeypatch.setattr(engine._Chain, "__init__", keep)
    checked(reading.verify, base)

    def fail(*args, **kwargs):
        raise RuntimeError("the checks failed on the way")

    monkeypatch.setattr(engine, "_check", fail)
    with pytest.raises(RuntimeError):
        reading.verify(base)
    assert len(started) == 2 and all(chain.proc is None for chain in started)


def _stamp(tsa_: dict, path: Path, covers: int | None = None) -> None:
    head = jr.read(path).head
    token = timestamp.request_token(f"{tsa_['url']}/good", bytes.fromhex(head["hash"]))
    at = timestamp.check_token(token, bytes.fromhex(head["hash"]), None).at  # the event holds the TSA's time
    jr.append(path, "timestamp.token", f"head-{head['seq']}", at,
              {"covers_seq": head["seq"] if covers is None else covers, "covers_hash": head["hash"],
               "tsa": tsa_["url"], "token": timestamp._encode(token)})


@pytest.mark.parametrize("case", ["good", "names another seq"])
def test_tokens_taken_from_the_scan_are_judged_as_when_read_from_the_file(tsa, base, tmp_path, monkeypatch,  # noqa: F811
                                                                         case):
    """A journal on the fast path carrying a token (a good one, or one whose event names the seq
    before the line it covers): ``day60 verify`` prints what it prints when the tokens are looked
    for in the file (the reference reader's path), and does not look for them in the file."""
    path = tmp_path / "j.jsonl"
    path.write_bytes(base.read_bytes())
    _stamp(tsa, path, covers=None if case == "good" else jr.read(path).head["seq"] - 1)
    args = ["verify", str(path), "--tsa-root", str(tsa["root"])]
    with monkeypatch.context() as m:
        m.setattr(reading, "ENGINE_FROM_BYTES", 1 << 40)  # the reference reader, tokens found in the file
        expected = CliRunner().invoke(app, args)
    looked = []
    monkeypatch.setattr(timestamp, "_token_events", lambda p: looked.append(p) or ([], 0, ""))
    _no_reference(monkeypatch)
    got = CliRunner().invoke(app, args)
    assert (got.exit_code, got.stdout, got.stderr) == (expected.exit_code, expected.stdout, expected.stderr)
    assert looked == []
    assert expected.exit_code == (0 if case == "good" else 1), expected.output
    assert ("every event but the tokens themselves is covered" in expected.stdout) == (case == "good")

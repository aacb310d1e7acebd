"""One reader for every command (``day60.reading``): ``score``, ``show`` and ``notice`` read a
journal the engine can vouch for on the engine, and say exactly what they say when the reference
reader reads it; an import leaves the sidecar index current, so the first ``log`` after it reads
its own id's rows instead of replaying the journal."""

import datetime as dt
import json
from pathlib import Path

import pytest

from day60 import journal as jr
from day60 import metrics, reading
from day60.journal import index, verification
from tests.builders import SIGN_OFF, during_a_half_written_append, make_journal

# every journal here is small: the engine must try each one all the same
pytestmark = pytest.mark.usefixtures("engine_on_every_size")

EX = Path(__file__).resolve().parents[1] / "day60" / "imports" / "examples"


def _imported_journal(tmp_path: Path, run) -> Path:
    path = make_journal(tmp_path / "records.jsonl", [], tier="T2", window=("2026-03-02T09:00", "2026-03-13T17:30"))
    r = run("import", "csv", EX / "spreadsheet.csv", "--map", EX / "spreadsheet-map.toml", "--journal", path,
            "--format", "json")
    assert r.exit_code == 0, r.output
    first = next(e for e in jr.read(path).events if e["kind"] == "incident.detected")
    jr.correct(path, first["seq"], dt.datetime.fromisoformat(first["at"]) - dt.timedelta(minutes=5), "typed late")
    return path


def _without_run_details(result: dict) -> dict:
    """A score's JSON less what differs from one run to the next (when and how it was run)."""
    return {k: v for k, v in result.items() if k != "provenance"}


def _reference_only(monkeypatch) -> None:
    monkeypatch.setattr(reading, "read", lambda path, locked=False, events=False: jr.read(path))


def _engine_only(monkeypatch) -> None:
    def refuse(*args, **kwargs):
        raise AssertionError("the reference reader was reached: the engine declined")

    monkeypatch.setattr(jr, "read", refuse)


def test_the_engine_lists_every_event_as_the_reference_reads_it(tmp_path, run, monkeypatch):
    path = _imported_journal(tmp_path, run)
    reference = jr.read(path)
    with monkeypatch.context() as m:
        _engine_only(m)
        fast = reading.read(path, events=True)
    assert fast.incidents is not None  # on the engine's tables
    assert fast.events == reference.events  # every event, in seq order, parsed alike
    assert (fast.head, fast.sha256, fast.last_line) == (reference.head, reference.sha256, reference.last_line)
    lean = reading.read(path)  # without events=True only the non-incident events are listed
    assert [e["kind"] for e in lean.events] == [e["kind"] for e in reference.events
                                                if not e["kind"].startswith("incident.")]


@pytest.mark.parametrize("command", [("score", "--format", "json"), ("show", "--format", "json")])
def test_score_and_show_say_the_same_on_either_reader(tmp_path, run, monkeypatch, command):
    """On an imported journal (organic incidents and a correction: read on the engine) and on the
    demo exercise (raised incidents go through the safety gate: read by the reference reader)."""
    from day60 import demo

    demo_path = tmp_path / "demo.jsonl"
    demo.build_journal(demo_path)
    for path in (_imported_journal(tmp_path, run), demo_path):
        fast = run(command[0], path, *command[1:])
        assert fast.exit_code == 0, fast.output
        with monkeypatch.context() as m:
            _reference_only(m)
            slow = run(command[0], path, *command[1:])
        assert slow.exit_code == 0, slow.output
        one, two = json.loads(fast.stdout), json.loads(slow.stdout)
        if command[0] == "score":
            one, two = _without_run_details(one), _without_run_details(two)
        assert one == two


def test_score_reads_an_engine_journal_on_the_engine(tmp_path, run, monkeypatch):
    path = _imported_journal(tmp_path, run)
    _engine_only(monkeypatch)
    r = run("score", path, "--format", "json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["journal_head"] == jr.verify(path).head


def _index_meta(path: Path) -> dict:
    import sqlite3

    con = sqlite3.connect(index.index_path(path))
    try:
        return dict(con.execute("SELECT k, v FROM meta").fetchall())
    finally:
        con.close()


def _no_rebuild(monkeypatch) -> None:
    def refuse(*args, **kwargs):
        raise AssertionError("the index was rebuilt from a full replay")

    monkeypatch.setattr(verification, "scan", refuse)


def test_an_import_leaves_the_index_current(tmp_path, run, monkeypatch):
    """The index's recorded head is the journal's after the import, and the first log after it
    uses the index (no full replay) and sees the imported incidents' state."""
    path = make_journal(tmp_path / "records.jsonl", [], tier="T2", window=("2026-03-02T09:00", "2026-03-13T17:30"))
    r = run("import", "csv", EX / "spreadsheet.csv", "--map", EX / "spreadsheet-map.toml", "--journal", path)
    assert r.exit_code == 0, r.output
    head = jr.verify(path).head
    meta = _index_meta(path)
    assert int(meta["seq"]) == head["seq"] > 0
    assert meta["prev"] == jr.sha256_hex(path.read_bytes().rstrip(b"\n").rsplit(b"\n", 1)[-1])
    ticket = next(e for e in jr.read(path).events if e["kind"] == "incident.detected")["id"]
    _no_rebuild(monkeypatch)
    again = run("log", path, "incident.detected", "--id", ticket, "--at", "2026-03-05T10:00",
                "--set", "source=organic")
    assert again.exit_code == 2 and "already detected" in again.output  # the imported state, from the index
    r = run("log", path, "incident.detected", "--id", "new-one", "--at", "2026-03-05T10:00", "--set", "source=organic")
    assert r.exit_code == 0, r.output
    assert int(_index_meta(path)["seq"]) == head["seq"] + 1
    monkeypatch.undo()
    assert jr.verify(path).ok


def test_a_second_import_keeps_the_index_current_too(tmp_path, run, monkeypatch):
    path = make_journal(tmp_path / "records.jsonl", [("safety.agreed", "D1", "2026-02-27T10:00", SIGN_OFF)],
                        tier="T2", window=("2026-03-02T09:00", "2026-03-13T17:30"))
    args = ("import", "csv", EX / "spreadsheet.csv", "--map", EX / "spreadsheet-map.toml", "--journal", path)
    assert run(*args).exit_code == 0
    _no_rebuild(monkeypatch)  # the first import left it current: the second needs no rebuild either
    assert run(*args).exit_code == 0  # nothing new: the same head
    assert int(_index_meta(path)["seq"]) == jr.read(path).head["seq"]


def test_a_batch_that_breaks_a_rule_writes_nothing(tmp_path):
    """The index replays a batch's events on the state it holds for their ids: a second
    detection of an incident the journal already holds is refused, and neither the journal nor
    its index changes."""
    path = make_journal(tmp_path / "j.jsonl", [("incident.detected", "I1", "2026-03-03T10:00",
                                                {"severity": 2, "source": "organic"})], tier="T2")
    before, meta = path.read_bytes(), _index_meta(path)
    with pytest.raises(jr.InputError, match="no incident I2"), jr.batch(path) as b:
        b.add("incident.restored", "I2", "2026-03-03T11:00+00:00", "importer", {"check": "probe"})
    assert path.read_bytes() == before
    with pytest.raises(jr.InputError, match="already detected"), jr.batch(path) as b:
        b.add("incident.detected", "I1", "2026-03-03T11:00+00:00", "importer", {"severity": 2, "source": "organic"})
    assert path.read_bytes() == before and _index_meta(path) == meta


def test_the_engine_tries_a_journal_from_exactly_its_threshold_size(tmp_path, run, monkeypatch):
    """``reading.ENGINE_FROM_BYTES`` is where the engine starts to try: a journal of exactly that
    many bytes goes to the engine (its tables are in ``incidents``), one byte short goes to the
    reference reader (every event in ``events``, no tables); the figures are the same either way.
    At the default (1 MiB) an exercise's journal, a few kilobytes, goes to the reference reader."""
    path = _imported_journal(tmp_path, run)
    size = path.stat().st_size
    monkeypatch.setattr(reading, "ENGINE_FROM_BYTES", size)
    on_engine = reading.read(path)
    monkeypatch.setattr(reading, "ENGINE_FROM_BYTES", size + 1)
    on_reference = reading.read(path)
    assert on_engine.incidents is not None and on_reference.incidents is None
    assert metrics.compute(on_engine).summary == metrics.compute(on_reference).summary
    assert reading.verify(path) == jr.verify(path)
    monkeypatch.undo()
    assert reading.ENGINE_FROM_BYTES == 1024 * 1024 and size < 64 * 1024
    assert reading.read(path).incidents is None


def test_a_pipe_or_a_missing_file_is_named_by_the_reference_reader(tmp_path, run):
    """Only a regular file is measured for the engine: a named pipe, a folder or a missing path
    goes to the reference reader, which refuses it (exit 2) as it always has."""
    import os

    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    for path in (fifo, tmp_path, tmp_path / "missing.jsonl"):
        r = run("metrics", path)
        assert r.exit_code == 2, (path, r.output)
        assert "Traceback" not in r.output and "JOURNAL" in r.stderr, r.stderr


@pytest.mark.parametrize("size", [0, 1 << 62], ids=["engine", "reference"])
def test_a_read_during_an_append_sees_it_whole_on_either_side_of_the_size(tmp_path, monkeypatch, size):
    """An append holds the journal's exclusive lock while it writes (an import's batch writes its
    lines a megabyte at a time, for as long as that takes). The engine reads under the shared lock,
    so it waits and sees the journal before the append or after it, never halfway; the reference
    reader, which now reads every journal under ``ENGINE_FROM_BYTES``, took no lock, so a score,
    a verify or 'day60 serve' run during an import saw half of it and a partial last line ("run
    'day60 verify --repair'"), on a small journal only. Here an append is held with 40 bytes of
    its line written: on either side of the size, a read started then is still waiting half a
    second later, and once the line is finished sees 2 events (the detection and the restore),
    no partial line, and a journal that verifies."""
    monkeypatch.setattr(reading, "ENGINE_FROM_BYTES", size)
    path = make_journal(tmp_path / "j.jsonl", [("incident.detected", "I1", "2026-03-02T10:00",
                                                {"severity": 2, "source": "organic"})], tier="T2")
    before = jr.read(path)
    event = jr.new_event(2, jr.sha256_hex(before.last_line), "incident.restored", "I1", "2026-03-02T11:00:00+00:00",
                         "Ana (observer)", {"check": "probe"})
    line = (jr.canonical(event) + "\n").encode("utf-8")
    seen: dict = {}

    def read_it() -> None:
        seen["read"], seen["every"] = reading.read(path), reading.read(path, events=True)
        seen["verify"] = reading.verify(path)

    waited = during_a_half_written_append(path, line, read_it)
    assert waited, "the read did not wait for the append to finish its line"
    assert set(seen) == {"read", "every", "verify"}
    for got in (seen["read"], seen["every"]):
        assert got.partial is None and got.head == {"seq": 2, "hash": event["hash"]}
    assert [e["kind"] for e in seen["every"].events] == ["incident.detected", "incident.restored"]
    assert seen["verify"].ok and seen["verify"].events == 2


def test_a_small_journal_is_read_without_starting_the_engine(tmp_path):
    """The point of the size: 'show', 'metrics' and 'verify' on an exercise's journal (a few
    kilobytes) never import DuckDB or the engine, which cost about half a second of a cold start.
    Each runs as a fresh process, at the default size; ``python -X importtime`` lists every module
    it imported."""
    import os
    import subprocess
    import sys

    from day60 import demo

    path = tmp_path / "demo.jsonl"
    demo.build_journal(path)
    assert path.stat().st_size < 1024 * 1024  # the default size: a fresh process has it, whatever this one set
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    for command in (["show"], ["metrics", "--format", "json"], ["verify"]):
        done = subprocess.run([sys.executable, "-X", "importtime", "-m", "day60", command[0], str(path), *command[1:]],
                              capture_output=True, text=True, env=env, timeout=120)
        assert done.returncode == 0, done.stderr[-2000:]
        imported = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines() if line.startswith("import")}
        assert "day60.metrics" in imported or command[0] != "metrics"  # the list is really the modules
        assert not {"duckdb", "day60.engine"} & imported, command

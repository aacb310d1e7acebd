"""Progress on stderr for a long import or a large read: drawn for a person at a terminal, never
into a pipe, never into the JSON on standard output. Driven on a real pseudo-terminal: the command
runs as a subprocess whose stderr is the terminal and whose stdout is a pipe, as in
``day60 import ... --format json > out.json`` typed at a terminal."""

import datetime as dt
import json
import os
import pty
import select
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MAP = ROOT / "day60" / "imports" / "examples" / "spreadsheet-map.toml"
TICKETS = 6000  # about a second of work here: well past the bar's 0.4 s delay
ESC = b"\x1b["


def _export(path: Path, n: int) -> Path:
    """A SYNTHETIC spreadsheet export of ``n`` tickets in the shipped example's columns."""
    base = dt.datetime(2026, 3, 2, 9, 0)
    lines = ["Ticket,Sev,Detected,Client reported,Restored,Restore check,Hold from,Hold to,Hold why,Desk hours,"
             "Comment"]
    for k in range(n):
        detected = base + dt.timedelta(minutes=(k * 7) % (60 * 24 * 10))
        restored = detected + dt.timedelta(minutes=30 + k % 90)
        lines.append(f"T-{k},Sev {1 + k % 4},{detected:%d/%m/%Y %H:%M},,{restored:%d/%m/%Y %H:%M},SYNTHETIC canary "
                     f"passed,,,,{(restored - detected).total_seconds() / 3600:.2f},SYNTHETIC")
    path.write_text("\n".join(lines) + "\n")
    return path


def _env(**extra) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "DAY60_NO_PROGRESS"}
    return {**env, "PYTHONPATH": str(ROOT), "TERM": "xterm-256color", **extra}


def day60(*args, terminal: bool, **env) -> tuple[int, bytes, bytes]:
    """Run ``day60 ARGS`` with stdout a pipe and stderr a pseudo-terminal (``terminal``) or a
    pipe; returns the exit code, stdout and stderr. Both are read while it runs, so neither fills."""
    argv = [sys.executable, "-m", "day60", *[str(a) for a in args]]
    if not terminal:
        done = subprocess.run(argv, capture_output=True, env=_env(**env), timeout=600)
        return done.returncode, done.stdout, done.stderr
    master, slave = pty.openpty()
    child = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=slave, stdin=subprocess.DEVNULL, env=_env(**env))
    os.close(slave)
    out: list[bytes] = []
    reader = threading.Thread(target=lambda: out.append(child.stdout.read()))
    reader.start()
    err = b""
    while True:
        ready, _, _ = select.select([master], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # the child closed its end
                break
            if not chunk:
                break
            err += chunk
        elif child.poll() is not None:
            break
    reader.join(timeout=600)
    child.wait(timeout=600)
    os.close(master)
    return child.returncode, out[0], err


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    folder = tmp_path_factory.mktemp("progress")
    export = _export(folder / "tickets.csv", TICKETS)
    code, _, err = day60("new", folder / "empty.jsonl", "--partner", "Test partner", "--supplier", "Test supplier",
                         "--deployment", "test", "--tier", "T2", "--runner", "Test runner", "--window-start",
                         "2026-03-02T09:00", "--window-end", "2026-03-13T17:30", "-c", "uk-office",
                         "--not-synthetic", terminal=False)
    assert code == 0, err
    return folder, export


def _import(folder: Path, export: Path, name: str, terminal: bool, **env):
    journal = folder / name
    shutil.copy(folder / "empty.jsonl", journal)
    return day60("import", "csv", export, "--journal", journal, "--map", MAP, "--format", "json",
                 terminal=terminal, **env), journal


def test_a_long_import_shows_its_progress_on_the_terminal_and_keeps_the_json_clean(made):
    """On a terminal, stderr carries the bar (the step in words, the records read so far, drawn with
    escape codes and wiped at the end); stdout is the import's JSON, whole, with no escape code."""
    folder, export = made
    (code, out, err), _ = _import(folder, export, "on-terminal.jsonl", terminal=True)
    assert code == 0, err[-500:]
    assert b"importing tickets" in err and b"records read" in err and ESC in err
    assert f"{TICKETS:,} records read".encode() in err  # the last count drawn is every record
    assert ESC not in out
    result = json.loads(out)
    assert len(result["imported"]) == TICKETS and result["read"] == TICKETS


def test_into_a_pipe_there_is_no_bar(made):
    """The same import with stderr a pipe (a script, CI, a log file): not a byte of the bar."""
    folder, export = made
    (code, out, err), _ = _import(folder, export, "in-pipe.jsonl", terminal=False)
    assert code == 0, err[-500:]
    assert b"records read" not in err and ESC not in err
    assert json.loads(out)["read"] == TICKETS


def test_day60_no_progress_turns_it_off_at_a_terminal(made):
    folder, export = made
    (code, out, err), _ = _import(folder, export, "switched-off.jsonl", terminal=True, DAY60_NO_PROGRESS="1")
    assert code == 0 and b"records read" not in err and ESC not in err
    assert json.loads(out)["read"] == TICKETS


def test_scoring_a_large_journal_shows_what_it_is_doing(made):
    """Scoring the imported year (12,000 events) takes seconds: a spinner names each step on the
    terminal's stderr; the score itself, on stdout, is plain JSON."""
    folder, export = made
    (code, _, err), journal = _import(folder, export, "to-score.jsonl", terminal=False)
    assert code == 0, err[-500:]
    code, out, err = day60("score", journal, "--format", "json", terminal=True)
    assert code == 0, err[-500:]
    assert b"computing the figures and the score" in err and ESC in err
    assert ESC not in out and json.loads(out)["tier"] == "T2"
    code, out, err = day60("score", journal, "--format", "json", terminal=False)
    assert code == 0 and b"computing" not in err and ESC not in err


def test_under_clirunner_no_bar_is_drawn(made, run):
    """In process (CliRunner, as in every other test) stderr is not a terminal: the import's
    stderr holds no bar, and its JSON is the same as from a terminal's."""
    folder, export = made
    journal = folder / "in-process.jsonl"
    shutil.copy(folder / "empty.jsonl", journal)
    r = run("import", "csv", export, "--journal", journal, "--map", MAP, "--format", "json")
    assert r.exit_code == 0, r.output
    assert "records read" not in r.stderr and "\x1b[" not in r.stderr
    assert json.loads(r.stdout)["read"] == TICKETS

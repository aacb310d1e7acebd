"""What `day60 log` and `day60 --help` load, and that the console script's lean app (one command
built, plain values converted without typer's pydantic adapters) behaves as the whole app does.

Behaviour, not timing: benchmarks/startup.py measures the time (its ratio to a bare
`import typer, pydantic`, with the load beside it); these tests pin what keeps it low.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import typer.main
from typer.testing import CliRunner

from day60.cli import app
from day60.cli.base import app_for

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("pandas", "duckdb", "weasyprint", "jinja2", "pendulum", "numpy", "rich", "pyhanko", "pypdf")


def _loaded_after(args: list[str], cwd: Path) -> tuple[subprocess.CompletedProcess, dict]:
    """Run the console script's entry point on ``args`` in a fresh interpreter; the top-level
    packages it had imported when it finished, and which typer adapter modules."""
    probe = ("import json, sys\nfrom day60.cli import main\nsys.argv = ['day60', *json.loads(sys.argv[1])]\n"
             "try:\n    main()\nexcept SystemExit as exc:\n    code = exc.code\n"
             "print(json.dumps({'code': code, 'modules': sorted(sys.modules)}), file=sys.stderr)\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", probe, json.dumps(args)], capture_output=True, text=True, cwd=cwd,
                          env=env, timeout=120)
    report = json.loads(done.stderr.strip().splitlines()[-1])
    return done, report


@pytest.fixture(scope="module")
def journal(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("startup")
    path = folder / "tiny.jsonl"
    r = CliRunner().invoke(app, ["new", str(path), "--synthetic", "--partner", "P", "--supplier", "S",
                                 "--deployment", "D", "--tier", "T2", "-c", "uk-office", "--window-start",
                                 "2026-03-02T09:00", "--window-end", "2026-03-13T17:30", "--runner", "bench"])
    assert r.exit_code == 0, r.output
    return path


def test_log_loads_none_of_the_heavy_libraries(journal: Path) -> None:
    done, report = _loaded_after(["log", str(journal), "incident.detected", "--id", "I1", "--at",
                                  "2026-03-03T10:00+00:00", "--set", "severity=2", "--set", "source=organic"],
                                 journal.parent)
    assert report["code"] in (0, None), done.stderr
    assert "seq 1: incident.detected I1" in done.stdout
    tops = {m.split(".")[0] for m in report["modules"]}
    assert not tops & set(HEAVY), f"day60 log imported {sorted(tops & set(HEAVY))}"
    # typer's per-parameter pydantic adapters are not built for log's plain options
    assert "typer._adapters" not in report["modules"]



def test_log_makes_only_the_models_its_line_needs(journal: Path) -> None:
    """An incident.detected line needs its own data model and nothing of another kind's, nor the
    held file's model (no --seal), nor a TOML reader: 'day60 log' made all twenty-four data
    models and the held file's validator at start-up, a fifth of its time."""
    probe = ("import json, sys\nfrom day60.cli import main\nsys.argv = ['day60', *json.loads(sys.argv[1])]\n"
             "try:\n    main()\nexcept SystemExit:\n    pass\n"
             "from day60 import events\nfrom day60.journal import sealing\n"
             "made = sorted(n for n, f in vars(events).items()\n"
             "              if n.startswith('_build_') and f.cache_info().currsize)\n"
             "print(json.dumps({'made': made, 'held': sealing._held_model.cache_info().currsize, "
             "'toml': 'tomllib' in sys.modules}), file=sys.stderr)\n")
    args = ["log", str(journal), "incident.detected", "--id", "I9", "--at", "2026-03-03T11:00+00:00", "--set",
            "severity=2", "--set", "source=organic"]
    done = subprocess.run([sys.executable, "-c", probe, json.dumps(args)], capture_output=True, text=True,
                          cwd=journal.parent, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=120)
    assert "incident.detected I9" in done.stdout, done.stderr
    report = json.loads(done.stderr.strip().splitlines()[-1])
    assert report == {"made": ["_build_IncidentDetected"], "held": 0, "toml": False}

def test_help_loads_none_of_the_heavy_libraries_nor_pydantic_models(tmp_path: Path) -> None:
    done, report = _loaded_after(["--help"], tmp_path)
    assert report["code"] in (0, None) and "Usage: day60" in done.stdout
    tops = {m.split(".")[0] for m in report["modules"]}
    assert not tops & set(HEAVY), f"day60 --help imported {sorted(tops & set(HEAVY))}"
    assert "day60.events" not in report["modules"] and "day60.journal" not in report["modules"]


def _command_lines() -> list[list[str]]:
    full = typer.main.get_command(app)
    lines: list[list[str]] = [[], ["--help"], ["nosuch"], ["lgo"]]
    for name, command in full.commands.items():
        lines += [[name, "--help"], [name, "--no-such-option"]]
        for sub in getattr(command, "commands", {}):
            lines += [[name, sub, "--help"], [name, sub, "--no-such-option"]]
    return lines


def test_the_lean_app_answers_every_command_line_as_the_whole_app() -> None:
    """Each command's help, a bare group, a misspelt command and an unknown option: the same
    output and exit code from ``app_for`` (what the console script runs) as from ``app``."""
    runner = CliRunner()
    lines = _command_lines()
    assert len(lines) > 60
    for args in lines:
        whole, lean = runner.invoke(app, args), runner.invoke(app_for(args), args)
        assert (lean.exit_code, lean.stdout, lean.stderr) == (whole.exit_code, whole.stdout, whole.stderr), args


def test_the_lean_app_holds_only_the_named_command() -> None:
    assert app_for(["--help"]) is app and app_for([]) is app and app_for(["nosuch"]) is app
    lean = app_for(["log", "x"])
    assert [c.callback.__name__ for c in lean.registered_commands] == ["log"] and lean.registered_groups == []
    assert [g.name for g in app_for(["calendar", "show"]).registered_groups] == ["calendar"]
    assert len(app.registered_commands) > 20  # the whole app is untouched


def test_plain_values_keep_their_types_and_typers_errors(journal: Path, tmp_path: Path) -> None:
    """Text, paths, repeated options and flags converted without the adapters: a command gets the
    same values, and a value of another type (an int) still gets typer's own check and message."""
    runner = CliRunner()
    r = runner.invoke(app_for(["log"]), ["log", str(journal), "incident.detected", "--id", "I2", "--at",
                                         "2026-03-03T10:05+00:00", "--set", "severity=2", "--set", "source=organic"])
    assert r.exit_code == 0 and "seq" in r.stdout, r.output
    bad = ["correct", str(journal), "--seq", "one", "--at", "2026-03-03T10:05", "--reason", "x"]
    whole, lean = runner.invoke(app, bad), runner.invoke(app_for(bad), bad)
    assert lean.exit_code == whole.exit_code == 2 and lean.stderr == whole.stderr and "--seq" in lean.stderr

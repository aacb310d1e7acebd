"""What a newcomer types first: bare commands print their help, --version says what this is."""

import subprocess

import pytest

from day60 import __version__


@pytest.mark.parametrize("args", [[], ["voice"], ["clauses"], ["calendar"]])
def test_a_bare_command_prints_its_help_normally(run, args):
    r = run(*args)
    assert r.exit_code == 0 and r.stderr == ""
    assert r.stdout.startswith("Usage: ") and "\\n" not in r.stdout and "error:" not in r.stdout
    assert "Commands:" in r.stdout


def test_version_names_the_source_commit(run):
    """In this checkout the commit is git's HEAD (a wheel carries it from its build)."""
    head = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, check=False).stdout.strip()
    r = run("--version")
    assert r.exit_code == 0 and r.stdout.startswith(f"day60 {__version__}, ")
    assert (head and head in r.stdout) or "unknown" in r.stdout


def test_an_unknown_command_is_still_one_error_line(run):
    r = run("nosuch")
    assert r.exit_code == 2 and r.stderr.startswith("error: No such command") and r.stderr.count("\n") == 1

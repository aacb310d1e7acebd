"""The quick lane (`pytest -m "not slow"`) leaves out exactly what tests/slow.txt names, and that
list names only tests that exist: a renamed or deleted test would otherwise leave a stale line and
its replacement would slip into the quick lane unnoticed."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.conftest import slow_entries

ROOT = Path(__file__).resolve().parent.parent


def _functions(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {n.name for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}


def test_every_slow_entry_names_a_module_or_test_that_exists():
    missing = []
    for entry in sorted(slow_entries()):
        module, _, name = entry.partition("::")
        path = ROOT / module
        if not path.is_file() or not path.name.startswith("test_") or (name and name not in _functions(path)):
            missing.append(entry)
    assert not missing, f"tests/slow.txt names tests that do not exist: {missing}; remove or rename them"


def test_the_quick_lane_leaves_out_what_the_list_names():
    """Collected with -m "not slow", a module the list names whole (the docs examples) and a
    function it names (the demo's next commands) are left out; a test it does not name (this one)
    is kept."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:xdist",
                           "-o", "addopts=", "--collect-only", "-q", "-m", "not slow", "tests/test_docs_examples.py",
                           "tests/test_cli_basics.py", "tests/test_suite_lanes.py"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    collected = done.stdout
    assert "tests/test_suite_lanes.py::test_every_slow_entry_names_a_module_or_test_that_exists" in collected
    assert "test_docs_examples.py" not in collected
    assert "test_the_demo_says_what_to_open_and_its_next_commands_run" not in collected
    assert "tests/test_cli_basics.py::" in collected


def test_the_quick_lane_leaves_out_every_browser_test_listed_or_not():
    """tests/test_web_room_att39b.py, added after the list was renewed and named nowhere in it,
    holds browser tests (they ask for the ``browser`` fixture) and two in-process ones: with -m
    "not slow" every browser test of it is left out and the in-process ones are kept."""
    import ast
    import subprocess
    import sys

    path = ROOT / "tests" / "test_web_room_att39b.py"
    assert "tests/test_web_room_att39b.py" not in slow_entries()
    tests = {f.name: {a.arg for a in f.args.args} for f in ast.parse(path.read_text()).body
             if isinstance(f, ast.FunctionDef) and f.name.startswith("test_")}
    driven = {name for name, args in tests.items() if "browser" in args}
    assert driven and set(tests) - driven  # both kinds are there to be told apart
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:xdist",
                           "-o", "addopts=", "--collect-only", "-q", "-m", "not slow", str(path)],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    kept = {line.split("::")[1].split("[")[0] for line in done.stdout.splitlines() if "::" in line}
    assert kept == set(tests) - driven, done.stdout


ORPHAN = """
import os, resource, subprocess, sys, time
sys.path.insert(0, sys.argv[1])
import suite_time
adopted = suite_time.adopt_orphans()
# a child that starts a grandchild and ends at once, as Chromium's helper leaves its renderers:
# the grandchild spends about 0.3 s of CPU after its parent has gone
burn = "import time\\nend = time.process_time() + 0.3\\nwhile time.process_time() < end: pass"
subprocess.run([sys.executable, "-c", f"import subprocess, sys; subprocess.Popen([sys.executable, '-c', {burn!r}])"])
left = suite_time.reap_orphans(within=30)
used = resource.getrusage(resource.RUSAGE_CHILDREN)
print(adopted, left, used.ru_utime + used.ru_stime)
"""


def test_the_suite_benchmark_counts_the_cpu_of_processes_left_behind():
    """benchmarks/suite_time.py counts a lane's CPU from the processes it waited for; Chromium's
    renderers are started by a helper that exits, so they end as orphans nobody waits for, and
    their CPU (a quarter of a whole run's, measured from /proc on 2026-12-05) went uncounted. The
    benchmark adopts them (PR_SET_CHILD_SUBREAPER) and waits for them: here a grandchild that
    burns 0.3 s of CPU after its parent has ended is counted (at least 0.3 s in all: the two
    short-lived Pythons add their start-up), and nothing is left running. Run in its own process,
    since adopting is for the life of the process."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", ORPHAN, str(ROOT / "benchmarks")], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    adopted, left, cpu = done.stdout.split()
    assert (adopted, left) == ("True", "0")
    assert float(cpu) >= 0.3

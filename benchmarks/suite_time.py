"""The test suite's time, whole and in its quick lane, in one run.

Targets (issue 35, point 5): the whole suite (`pytest`, as the README's second line runs it)
under 5 minutes on a quiet 2-core machine, and the quick lane (`pytest -m "not slow"`, for the
edit-test loop) under 60 seconds.

Each lane runs once in a fresh pytest process from the checkout, as a developer runs it; the
figures are wall seconds, the CPU seconds of pytest and everything it started (its workers, the
CLI processes, and Chromium, whose renderers outlive the helper that started them and are adopted
here so that their CPU is counted too), and the wall time as a ratio to its target (below 1.00 meets it). The
load average before each lane is printed beside it: the machine is shared, and a load above
about 0.5 on two cores means the figure is not a quiet machine's. The tests' own outcome line is
printed too: a fast lane that fails proves nothing.

Run: python benchmarks/suite_time.py [--only full|quick] [--json OUT]

The quick lane leaves out the tests ``tests/slow.txt`` names. To renew that list from a measured
run: ``pytest --durations=0 > durations.log`` then
``python benchmarks/suite_time.py --slow-from durations.log`` (every test function one of whose
cases took 0.25 s or more there, setup included; the browser and docs-example modules whole).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SLOW_LIST = ROOT / "tests" / "slow.txt"
SLOW_SECONDS = 0.25
# a browser or a fresh venv each
ALWAYS_SLOW = ["tests/test_docs_examples.py", "tests/test_screen.py", "tests/test_web.py", "tests/test_web_crowd.py",
               "tests/test_web_hostile.py", "tests/test_web_retry.py", "tests/test_web_room.py"]
# the tests of the lanes themselves run in the quick lane, however long: one of them checks that
# the quick lane keeps a test the list does not name, which is itself
NEVER_SLOW = ["tests/test_suite_lanes.py"]
LANES = {"full": ([], 300.0), "quick": (["-m", "not slow"], 60.0)}


def adopt_orphans() -> bool:
    """Make this process the reaper of every process its children leave behind (Linux's
    PR_SET_CHILD_SUBREAPER). Chromium starts its renderers from a helper it lets go, so they
    end as orphans: without this their CPU, about a quarter of a whole run's, is never counted."""
    import ctypes

    try:
        return ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0) == 0  # 36: PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        return False


def reap_orphans(within: float = 10.0) -> int:
    """Wait for the orphans a lane left (they are this process's children now) for up to
    ``within`` seconds; returns how many were still running then."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            pid, _status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return 0
        if pid == 0:
            time.sleep(0.1)
    left = 0
    for entry in Path("/proc").iterdir():
        try:
            stat = (entry / "stat").read_text() if entry.name.isdigit() else ""
            left += bool(stat) and stat[stat.rindex(")") + 2:].split()[1] == str(os.getpid())  # after the name
        except (OSError, IndexError, ValueError):
            continue
    return left


def run_lane(args: list[str]) -> dict[str, object]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    load = os.getloadavg()[0]
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args], cwd=ROOT,
                          capture_output=True, text=True)
    wall = time.perf_counter() - start
    left = reap_orphans()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    tail = [line for line in done.stdout.splitlines() if line.strip()][-1:] or ["(no output)"]
    failed = [line.split()[1] for line in done.stdout.splitlines() if line.startswith(("FAILED ", "ERROR "))]
    return {"wall_s": round(wall, 1), "cpu_s": round(cpu, 1), "load_before": round(load, 2),
            "exit": done.returncode, "outcome": tail[0].strip("= "), "failed": failed, "left_running": left}


def slow_from(log: Path) -> list[str]:
    """Test functions (``path::name``, parameters dropped) a ``--durations=0`` log shows taking
    SLOW_SECONDS or more in one phase of one case, with the always-slow modules."""
    import re

    found = set(ALWAYS_SLOW)
    for line in log.read_text(encoding="utf-8").splitlines():
        m = re.match(r"([0-9.]+)s (?:call|setup|teardown)\s+(\S+)", line)
        if m and float(m[1]) >= SLOW_SECONDS:
            node = m[2].split("[")[0]
            if node.split("::")[0] not in ALWAYS_SLOW + NEVER_SLOW:
                found.add(node)
    return sorted(found)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=sorted(LANES), action="append")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--slow-from", type=Path, metavar="DURATIONS.log",
                        help="write tests/slow.txt from a pytest --durations=0 log, and stop")
    ns = parser.parse_args()
    if ns.slow_from:
        header = [line for line in SLOW_LIST.read_text().splitlines() if line.startswith("#")] \
            if SLOW_LIST.exists() else []
        SLOW_LIST.write_text("\n".join([*header, *slow_from(ns.slow_from)]) + "\n")
        print(f"wrote {SLOW_LIST}")
        return
    if not adopt_orphans():
        print("note: this system cannot adopt orphaned processes: the CPU of Chromium's renderers is not counted")
    results = {}
    for name in ns.only or list(LANES):
        args, target = LANES[name]
        got = run_lane(args)
        got["target_s"], got["ratio"] = target, round(float(got["wall_s"]) / target, 2)
        results[name] = got
        print(f"{name:5}  wall {got['wall_s']:7.1f} s  cpu {got['cpu_s']:7.1f} s  target {target:5.0f} s  "
              f"ratio {got['ratio']:.2f}  load before {got['load_before']:.2f}  exit {got['exit']}  "
              f"{got['outcome']}", flush=True)
        if got["left_running"]:
            print(f"       {got['left_running']} process(es) it started still ran 10 s after it", flush=True)
        for name in got["failed"]:
            print(f"       failed: {name}", flush=True)
    if ns.json:
        ns.json.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()

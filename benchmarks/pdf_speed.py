"""Every PDF command on the demo's documents, cold and warm, and ``day60 demo`` end to end.

Targets (issue 29, point 12): each PDF command under 1 s warm on this machine, the demo under 5 s.

- cold: the command in a fresh Python process (imports, font discovery, template parsing, all of
  it), wall time as a person at a terminal feels it, with the modules' bytecode already compiled
  as an installed wheel has it (cached under the temporary folder, never in the checkout, by one
  untimed run of each command) and the files in the operating system's cache: not a first run
  after a reboot or an install;
- warm: the same command run again inside one long-running process (the first run there is the
  warm-up), which is what the toolkit itself costs once Python and the libraries are loaded.

Each figure is the median of ``--runs`` runs: wall seconds, the CPU seconds the processes used
(which another engineer's load moves far less than wall time: on an idle machine wall time is
about CPU time, plus a little I/O), and both as ratios to the target (below 1.00 meets it). For
the demo, which renders its documents on two cores, the CPU is the sum over both processes, so
its wall time on an idle machine is below its CPU. The inputs are the demo's SYNTHETIC files,
written once into a temporary folder. The load average is printed with the figures.

Run: python benchmarks/pdf_speed.py [--runs N] [--only NAME ...] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PDF_TARGET, DEMO_TARGET = 1.0, 5.0
ROOT = Path(__file__).resolve().parents[1]

# One warm loop in a child process: run the command --runs + 1 times via the CLI's own entry (the
# first is the warm-up), each in a fresh output folder, and report wall and CPU seconds per run.
WARM_CHILD = """
import json, os, shutil, sys, time
from day60.cli import app
args, runs, work = json.loads(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
out = []
for i in range(runs + 1):
    run = os.path.join(work, f"warm-{i}")
    os.makedirs(run)
    shutil.copy(os.path.join(work, "exercise.jsonl"), os.path.join(run, "exercise.jsonl"))
    argv = [a.replace("{run}", run).replace("{work}", work) for a in args]
    w, c = time.perf_counter(), time.process_time()
    try:
        app(argv, standalone_mode=False)
    except SystemExit as done:
        if done.code not in (0, 1, None):
            raise
    out.append((time.perf_counter() - w, time.process_time() - c))
print(json.dumps(out[1:]), file=sys.stderr)
"""


def commands(work: Path) -> dict[str, list[str]]:
    """Each PDF command on the demo's documents; {run} is a fresh folder holding a copy of the
    exercise journal (notice appends to it), {work} the folder of the demo's files."""
    data = ROOT / "selfassess" / "examples" / "synthetic-answers.json"
    drills = ROOT / "rubric" / "voice" / "examples" / "synthetic-drills.json"
    return {
        "score --pdf": ["score", "{run}/exercise.jsonl", "--pdf", "{run}/score.pdf"],
        "selfassess --pdf": ["selfassess", "--answers", str(data), "--pdf", "{run}/selfassess.pdf"],
        "clauses export --pdf": ["clauses", "export", "--sow", "{work}/synthetic-sow.toml", "--pdf",
                                 "{run}/schedule.pdf"],
        "comply --pdf": ["comply", "{run}/exercise.jsonl", "--sow", "{work}/synthetic-sow.toml", "--pdf",
                         "{run}/comply.pdf"],
        "notice --pdf": ["notice", "{run}/exercise.jsonl", "--to", "Nimbus AI", "--out", "{run}/notice.json",
                         "--pdf", "{run}/notice.pdf"],
        "voice drills --pdf": ["voice", "drills", str(drills), "--pdf", "{run}/drills.pdf"],
        "portfolio --pdf": ["portfolio", "{run}/exercise.jsonl", "{work}/selfassess.jsonl", "--pdf",
                            "{run}/portfolio.pdf"],
        "compare --pdf": ["compare", "{run}/exercise.jsonl", "{work}/second.jsonl", "--pdf", "{run}/compare.pdf"],
        "verify-report": ["verify-report", "{work}/score.pdf"],
    }


def _env(work: Path) -> dict[str, str]:
    """The checkout on the path, with its bytecode cached (in ``work``, never in the checkout), as
    an installed wheel has it: a shell that sets PYTHONDONTWRITEBYTECODE would otherwise have every
    cold run compile the toolkit's modules again, a cost no installed user pays."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return {**env, "PYTHONPATH": str(ROOT), "COLUMNS": "120", "PYTHONPYCACHEPREFIX": str(work / "bytecode")}


def cold(args: list[str], work: Path, runs: int) -> list[tuple[float, float]]:
    """Wall and CPU seconds of the command in a fresh process, each run (after one untimed run,
    which caches the bytecode of any module the demo did not import)."""
    out = []
    for i in range(runs + 1):
        run = work / f"cold-{time.monotonic_ns()}-{i}"
        run.mkdir()
        shutil.copy(work / "exercise.jsonl", run / "exercise.jsonl")
        argv = [a.replace("{run}", str(run)).replace("{work}", str(work)) for a in args]
        before = os.times()
        t0 = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "day60", *argv], capture_output=True, text=True, env=_env(work))
        wall = time.perf_counter() - t0
        after = os.times()
        if done.returncode not in (0, 1):
            sys.exit(f"day60 {' '.join(argv)} failed: {done.stderr.strip()}")
        out.append((wall, (after.children_user - before.children_user) + (after.children_system
                                                                           - before.children_system)))
    return out[1:]


def warm(args: list[str], work: Path, runs: int) -> list[tuple[float, float]]:
    """Wall and CPU seconds of the command run again in one process, after a warm-up run."""
    for old in work.glob("warm-*"):
        shutil.rmtree(old)
    done = subprocess.run([sys.executable, "-c", WARM_CHILD, json.dumps(args), str(runs), str(work)],
                          capture_output=True, text=True, env=_env(work))
    if done.returncode != 0:
        sys.exit(f"warm day60 {' '.join(args)} failed: {done.stderr.strip()[-2000:]}")
    return [tuple(x) for x in json.loads(done.stderr.strip().splitlines()[-1])]


def demo(work: Path, runs: int) -> list[tuple[float, float]]:
    out = []
    for i in range(runs):
        folder = work / f"demo-{i}"
        before = os.times()
        t0 = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "day60", "demo", "--out", str(folder)], capture_output=True,
                              text=True, env=_env(work))
        wall = time.perf_counter() - t0
        after = os.times()
        if done.returncode != 0:
            sys.exit(f"day60 demo failed: {done.stderr.strip()}")
        out.append((wall, (after.children_user - before.children_user) + (after.children_system
                                                                           - before.children_system)))
    return out


def prepare(work: Path) -> None:
    """The demo's files, and a second exercise of the same deployment for compare."""
    done = subprocess.run([sys.executable, "-m", "day60", "demo", "--out", str(work / "demo")], capture_output=True,
                          text=True, env=_env(work))
    if done.returncode != 0:
        sys.exit(f"day60 demo failed: {done.stderr.strip()}")
    for name in ("exercise.jsonl", "synthetic-sow.toml", "selfassess.jsonl", "score.pdf"):
        shutil.copy(work / "demo" / name, work / name)
    shutil.copy(work / "exercise.jsonl", work / "second.jsonl")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--only", nargs="*", help="names of commands to measure (default: all, and the demo)")
    parser.add_argument("--json", type=Path, help="also write the figures here as JSON")
    args = parser.parse_args()
    if args.runs < 1:
        parser.error("--runs takes 1 or more: a median needs a run")
    report: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        prepare(work)
        print(f"{'command':22} {'cold s':>7} {'cpu':>6} {'warm s':>7} {'cpu':>6} {'warm/target':>12} "
              f"{'cpu/target':>11}")
        for name, argv in commands(work).items():
            if args.only and name not in args.only:
                continue
            c, w = cold(argv, work, args.runs), warm(argv, work, args.runs)
            row = {"cold_s": statistics.median(x[0] for x in c), "cold_cpu_s": statistics.median(x[1] for x in c),
                   "warm_s": statistics.median(x[0] for x in w), "warm_cpu_s": statistics.median(x[1] for x in w)}
            row["warm_ratio"] = row["warm_s"] / PDF_TARGET
            row["warm_cpu_ratio"] = row["warm_cpu_s"] / PDF_TARGET
            report[name] = row
            print(f"{name:22} {row['cold_s']:7.2f} {row['cold_cpu_s']:6.2f} {row['warm_s']:7.2f} "
                  f"{row['warm_cpu_s']:6.2f} {row['warm_ratio']:12.2f} {row['warm_cpu_ratio']:11.2f}", flush=True)
        if not args.only or "demo" in args.only:
            d = demo(work, args.runs)
            row = {"cold_s": statistics.median(x[0] for x in d), "cold_cpu_s": statistics.median(x[1] for x in d)}
            row["cold_ratio"] = row["cold_s"] / DEMO_TARGET
            row["cold_cpu_ratio"] = row["cold_cpu_s"] / DEMO_TARGET
            report["demo"] = row
            print(f"{'demo (end to end)':22} {row['cold_s']:7.2f} {row['cold_cpu_s']:6.2f} {'':>7} {'':>6} "
                  f"{row['cold_ratio']:12.2f} {row['cold_cpu_ratio']:11.2f}  (cold, against its 5 s)")
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores; median of {args.runs} runs each; "
          "ratios are to 1 s warm for a PDF command and 5 s for the demo; cold is a fresh process with the "
          "bytecode compiled by an untimed run first and the files in the OS cache")
    if args.json:
        args.json.write_text(json.dumps(report, indent=2, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()

"""Start-up cost of the commands a person types most: `day60 --help` and `day60 log` on a tiny
journal (SYNTHETIC, made here), against a bare `python -c "import typer, pydantic"`, the least
any typer-and-pydantic command pays, measured in the same run.

Each command runs as a fresh subprocess, interleaved with the others (so a busy machine slows all
three alike), `--runs` times. For each, the median wall time and the median CPU time (user +
system of the child, from `resource.getrusage`) are printed with their ratios to the bare import:
on a shared machine the wall ratio moves with the load, the CPU ratio much less, so both are shown
with the load average (`os.getloadavg`) before and after. Then, for `log`, the modules it imported
that the bare import did not, with their share of import time (`python -X importtime`), so a
regression names its cause.

The children write and reuse compiled bytecode in a temporary `PYTHONPYCACHEPREFIX` (as an
installed wheel has its `.pyc` files), whatever `PYTHONDONTWRITEBYTECODE` says in the caller's
environment: compiling day60's sources on every run would otherwise be most of what is measured.
This is a measurement to read, never a test that fails on a time.
Run: python benchmarks/startup.py [--runs N]
"""

import argparse
import datetime as dt
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BARE = [sys.executable, "-c", "import typer, pydantic"]


def child_env(pycache: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(pycache)
    return env


def timed(cmd: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall seconds and CPU seconds (user + system) of one run of ``cmd``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, env=env)
    elapsed = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed: {done.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return elapsed, cpu


def import_costs(cmd: list[str], env: dict[str, str]) -> dict[str, int]:
    """Top-level packages imported by ``cmd`` and their modules' own import time, in microseconds."""
    done = subprocess.run([sys.executable, "-X", "importtime", *cmd[1:]], capture_output=True, text=True, env=env)
    costs: dict[str, int] = {}
    for line in done.stderr.splitlines():
        if not line.startswith("import time:") or "|" not in line:
            continue
        own, _, name = line[len("import time:"):].split("|")
        if own.strip().isdigit():  # each module's own time, summed by top-level package
            top = name.strip().split(".")[0]
            costs[top] = costs.get(top, 0) + int(own)
    return costs


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} {five:.2f} {fifteen:.2f} on {os.cpu_count()} CPUs"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=11)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        env = child_env(Path(tmp) / "pycache")
        journal = Path(tmp) / "tiny.jsonl"
        subprocess.run([sys.executable, "-m", "day60", "new", str(journal), "--synthetic", "--partner", "P",
                        "--supplier", "S", "--deployment", "D", "--tier", "T2", "-c", "uk-office",
                        "--window-start", "2026-03-02T09:00", "--window-end", "2026-03-13T17:30",
                        "--runner", "bench"], check=True, capture_output=True, env=env)
        base = dt.datetime(2026, 3, 3, 10, tzinfo=dt.UTC)

        def log(n: int) -> list[str]:
            return [sys.executable, "-m", "day60", "log", str(journal), "incident.detected", "--id", f"I{n}",
                    "--at", (base + dt.timedelta(minutes=n)).isoformat(), "--set", "severity=2",
                    "--set", "source=organic"]

        help_cmd = [sys.executable, "-m", "day60", "--help"]
        timed(log(0), env)  # the first append builds the index (and the bytecode); later ones use them
        timed(help_cmd, env)
        load_before = load()
        helps, logs, bares = [], [], []
        for n in range(1, args.runs + 1):
            bares.append(timed(BARE, env))
            helps.append(timed(help_cmd, env))
            logs.append(timed(log(n), env))
        load_after = load()

        def medians(runs: list[tuple[float, float]]) -> tuple[float, float]:
            return statistics.median(w for w, _ in runs), statistics.median(c for _, c in runs)

        (bare_w, bare_c), (help_w, help_c), (log_w, log_c) = medians(bares), medians(helps), medians(logs)
        print(f"median of {args.runs} runs, each a fresh interpreter (bytecode cached); "
              f"load average before {load_before}, after {load_after}:")
        print(f"  python -c 'import typer, pydantic': wall {bare_w:.3f} s, CPU {bare_c:.3f} s")
        print(f"  day60 --help: wall {help_w:.3f} s, {help_w / bare_w:.2f}x; CPU {help_c:.3f} s, "
              f"{help_c / bare_c:.2f}x (target at most 1.5x)")
        print(f"  day60 log (tiny journal, index current): wall {log_w:.3f} s, {log_w / bare_w:.2f}x; "
              f"CPU {log_c:.3f} s, {log_c / bare_c:.2f}x (target at most 2.0x)")
        mine, floor = import_costs(log(args.runs + 1), env), import_costs(BARE, env)
        extra = sorted(((us - floor.get(name, 0), name) for name, us in mine.items()), reverse=True)[:8]
        print("  where log's imports go beyond the bare import's (own time by package): "
              + ", ".join(f"{name} +{us / 1000:.0f} ms" for us, name in extra))


if __name__ == "__main__":
    main()

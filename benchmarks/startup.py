"""Start-up cost of the commands a person types most: `day60 --help` and `day60 log` on a tiny
journal (SYNTHETIC, made here), against a bare `python -c "import typer, pydantic"`, the least
any typer-and-pydantic command pays.

Each command runs as a fresh subprocess, interleaved with the others (so a busy machine slows all
three alike), `--runs` times; the medians and their ratios are printed, and then, for `log`, the
modules it imported that the bare import did not, with their share of import time
(`python -X importtime`), so a regression names its cause.
Run: python benchmarks/startup.py [--runs N]
"""

import argparse
import datetime as dt
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BARE = [sys.executable, "-c", "import typer, pydantic"]


def timed(cmd: list[str]) -> float:
    t0 = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True)
    elapsed = time.perf_counter() - t0
    if done.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed: {done.stderr}")
    return elapsed


def import_costs(cmd: list[str]) -> dict[str, int]:
    """Top-level packages imported by ``cmd`` and their modules' own import time, in microseconds."""
    done = subprocess.run([sys.executable, "-X", "importtime", *cmd[1:]], capture_output=True, text=True)
    costs: dict[str, int] = {}
    for line in done.stderr.splitlines():
        if not line.startswith("import time:") or "|" not in line:
            continue
        own, _, name = line[len("import time:"):].split("|")
        if own.strip().isdigit():  # each module's own time, summed by top-level package
            top = name.strip().split(".")[0]
            costs[top] = costs.get(top, 0) + int(own)
    return costs


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=11)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        journal = Path(tmp) / "tiny.jsonl"
        subprocess.run([sys.executable, "-m", "day60", "new", str(journal), "--synthetic", "--partner", "P",
                        "--supplier", "S", "--deployment", "D", "--tier", "T2", "-c", "uk-office",
                        "--window-start", "2026-03-02T09:00", "--window-end", "2026-03-13T17:30",
                        "--runner", "bench"], check=True, capture_output=True)
        base = dt.datetime(2026, 3, 3, 10, tzinfo=dt.UTC)

        def log(n: int) -> list[str]:
            return [sys.executable, "-m", "day60", "log", str(journal), "incident.detected", "--id", f"I{n}",
                    "--at", (base + dt.timedelta(minutes=n)).isoformat(), "--set", "severity=2",
                    "--set", "source=organic"]

        timed(log(0))  # the first append builds the index; later ones use it
        helps, logs, bares = [], [], []
        for n in range(1, args.runs + 1):
            bares.append(timed(BARE))
            helps.append(timed([sys.executable, "-m", "day60", "--help"]))
            logs.append(timed(log(n)))
        bare, help_, log_ = (statistics.median(x) for x in (bares, helps, logs))
        print(f"median of {args.runs} runs, each a fresh interpreter:")
        print(f"  python -c 'import typer, pydantic': {bare:.3f} s")
        print(f"  day60 --help: {help_:.3f} s, {help_ / bare:.2f}x (target at most 1.5x)")
        print(f"  day60 log (tiny journal, index current): {log_:.3f} s, {log_ / bare:.2f}x (target at most 2.0x)")
        mine, floor = import_costs(log(args.runs + 1)), import_costs(BARE)
        extra = sorted(((us - floor.get(name, 0), name) for name, us in mine.items()), reverse=True)[:8]
        print("  where log's imports go beyond the bare import's (own time by package): "
              + ", ".join(f"{name} +{us / 1000:.0f} ms" for us, name in extra))


if __name__ == "__main__":
    main()

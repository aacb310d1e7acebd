"""`day60 log` on a tiny journal and on a large one (SYNTHETIC data, invented here).

The large journal is a year of imported tickets (benchmarks/imports.py's export, N tickets,
about 2.67 events each). The import leaves the sidecar index current, so the first
append after it reads its own id's rows as later ones do (it used to rebuild the index
from a full replay: 47 s at 1.3M events); the tiny journal's first append builds its index.
Each append is timed as a subprocess (interpreter start included) and the median of the runs
is reported.
Run: python benchmarks/append.py [--tickets N] [--runs R]
"""

import argparse
import datetime as dt
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from imports import write_exports  # a sibling script, on the path when this one runs

from day60 import imports
from day60 import journal as jr
from day60.clock import BusinessCalendar
from day60.resources import example


def new_journal(path: Path) -> None:
    cal = BusinessCalendar.load(example("uk-office.toml"))
    jr.create(path, {"partner": "Bench BPO (SYNTHETIC)", "supplier": "Bench supplier (SYNTHETIC)",
                     "deployment": "bench", "tier": "T2", "runner": "benchmark", "calendar": cal.to_dict(),
                     "synthetic": True, "window": {"start": "2026-01-01T00:00:00+00:00",
                                                   "end": "2027-01-01T00:00:00+00:00"}})


def log_once(path: Path, n: int) -> float:
    at = (dt.datetime(2026, 6, 1, tzinfo=dt.UTC) + dt.timedelta(minutes=n)).isoformat()
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "day60", "log", str(path), "incident.detected", "--id",
                           f"bench-{n}", "--at", at, "--set", "severity=2", "--set", "source=organic"],
                          capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(done.stderr)
    return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tickets", type=int, default=500_000)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        tiny, large = folder / "tiny.jsonl", folder / "large.jsonl"
        new_journal(tiny)
        new_journal(large)
        incidents, audit = write_exports(folder, args.tickets)
        imports.run_import("servicenow", [incidents, audit], large,
                           imports.settings(None, "1=1,2=2,3=3,4=4,5=skip", None, "raw", None))
        events = sum(1 for _ in large.open()) - 1
        first_tiny, first_large = log_once(tiny, 0), log_once(large, 0)
        small = statistics.median(log_once(tiny, n) for n in range(1, args.runs + 1))
        big = statistics.median(log_once(large, n) for n in range(1, args.runs + 1))
        print(f"SYNTHETIC journals: tiny (0 events) and large ({events:,} events)")
        print(f"first append: tiny {first_tiny:.2f} s (builds its index), large {first_large:.2f} s (after the "
              "import, which kept the index current)")
        print(f"later appends, median of {args.runs}: tiny {small:.3f} s, large {big:.3f} s, ratio {big / small:.2f}x")


if __name__ == "__main__":
    main()

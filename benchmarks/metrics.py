"""`day60 metrics` on a synthetic journal of 100,000 incidents (SYNTHETIC data, invented here).

Four severities, organic incidents (no injection), each with a partner notice or a detection,
about half with a wait on the partner and a quarter with a change window, most restored.
Times `day60 metrics JOURNAL --format json` as a subprocess and reads its peak memory from the
child's own /proc/self/status (VmHWM). getrusage on children would report the parent's memory:
a forked child inherits its high-water mark, and this parent holds the whole generated journal.
Run: python benchmarks/metrics.py [--incidents N]
"""

import argparse
import datetime as dt
import tempfile
import time
from pathlib import Path

import measure  # a sibling script, on the path when this one runs
import numpy as np

from day60 import journal as jr
from day60.clock import BusinessCalendar
from day60.resources import example


def synthetic_events(n: int, seed: int = 60) -> list:
    rng = np.random.default_rng(seed)
    base = dt.datetime(2026, 3, 2, 9, tzinfo=dt.UTC)
    events = []
    for k in range(n):
        ident = f"INC-{k:06d}"
        start = base + dt.timedelta(minutes=int(rng.integers(0, 60 * 24 * 25)))
        events.append(("incident.detected", ident, start,
                       {"severity": int(rng.integers(1, 5)), "source": "organic"}))
        t = start + dt.timedelta(minutes=int(rng.integers(1, 60)))
        events.append(("incident.communicated", ident, t, {}))
        if rng.random() < 0.5:
            w0 = t + dt.timedelta(minutes=int(rng.integers(1, 120)))
            w1 = w0 + dt.timedelta(minutes=int(rng.integers(1, 600)))
            events += [("incident.wait-start", ident, w0, {}), ("incident.wait-end", ident, w1, {})]
            t = w1
        if rng.random() < 0.25:
            c0 = t + dt.timedelta(minutes=int(rng.integers(1, 60)))
            c1 = c0 + dt.timedelta(minutes=int(rng.integers(1, 240)))
            events += [("incident.change-window-start", ident, c0, {}),
                       ("incident.change-window-end", ident, c1, {})]
            t = c1
        if rng.random() < 0.95:
            events.append(("incident.restored", ident, t + dt.timedelta(minutes=int(rng.integers(1, 900))),
                           {"check": "synthetic probe"}))
    return events


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--incidents", type=int, default=100_000)
    args = parser.parse_args()
    cal = BusinessCalendar.load(example("uk-office.toml"))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.jsonl"
        t0 = time.perf_counter()
        events = synthetic_events(args.incidents)
        jr.build(path, {"partner": "SYNTHETIC partner", "supplier": "SYNTHETIC supplier",
                        "deployment": "SYNTHETIC benchmark", "tier": "T2", "runner": "benchmark",
                        "calendar": cal.to_dict(), "synthetic": True, "records": "supplier-reported",
                        "window": {"start": "2026-03-01T00:00:00+00:00", "end": "2026-04-30T00:00:00+00:00"}},
                 events)
        built = time.perf_counter() - t0
        size = path.stat().st_size
        elapsed, peak = measure.day60("metrics", str(path), "--format", "json")
    print(f"journal: {args.incidents:,} incidents, {len(events):,} events, {size / 2**20:.0f} MiB "
          f"(built in {built:.1f} s)")
    print(f"day60 metrics --format json: {elapsed:.2f} s wall, peak RSS {peak:.0f} MiB")


if __name__ == "__main__":
    main()

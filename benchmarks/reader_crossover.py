"""Where the engine starts to pay: the reference reader against the engine, by journal size.

``day60.reading`` hands a journal below ``reading.ENGINE_FROM_BYTES`` straight to the reference
reader (``journal.read``, line by line in Python) and a larger one to the engine (DuckDB), which
costs a fixed price to start (a connection, threads, a scan plan) before its first line. This
script writes SYNTHETIC journals of growing size (the incidents of ``benchmarks/metrics.py``),
and for each times, warm, in one process: reading it and computing its figures by the reference
(``journal.read`` + ``metrics.compute``) and by the engine (``engine.read_fast`` + the same), the
median of ``--runs`` runs, and prints the ratio engine / reference (above 1.00 the reference is
faster). The threshold should sit where the ratio crosses 1.

Run: python benchmarks/reader_crossover.py [--runs N]
"""

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from metrics import write  # a sibling script, on the path when this one runs

from day60 import engine, metrics, reading
from day60 import journal as jr


def timed(fn, runs: int) -> float:
    fn()  # warm-up
    out = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return statistics.median(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    print(f"threshold now: {reading.ENGINE_FROM_BYTES:,} bytes")
    print(f"{'incidents':>9} {'events':>7} {'bytes':>11} {'reference s':>11} {'engine s':>9} {'engine/ref':>10}")
    with tempfile.TemporaryDirectory() as folder:
        for incidents in (10, 100, 300, 1000, 3000, 10000):
            path = Path(folder) / f"j{incidents}.jsonl"
            events = write(path, incidents)
            ref = timed(lambda p=path: metrics.compute(jr.read(p)), args.runs)
            fast = timed(lambda p=path: metrics.compute(engine.read_fast(p)), args.runs)
            size = path.stat().st_size
            print(f"{incidents:>9} {events:>7} {size:>11,} {ref:>11.4f} {fast:>9.4f} {fast / ref:>10.2f}")


if __name__ == "__main__":
    main()

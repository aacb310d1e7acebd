"""Where the engine starts to pay: the reference reader against the engine, by journal size.

``day60.reading`` hands a journal below ``reading.ENGINE_FROM_BYTES`` straight to the reference
reader (``journal.read``, line by line in Python) and a larger one to the engine (DuckDB), which
costs a fixed price to start (a connection, threads, a scan plan) before its first line. This
script writes SYNTHETIC journals of growing size (the incidents of ``benchmarks/metrics.py``),
and for each times, warm, in one process: reading it and computing its figures by the reference
(``journal.read`` + ``metrics.compute``) and by the engine (``engine.read_fast`` + the same), the
median of ``--runs`` runs, and prints the ratio engine / reference (above 1.00 the reference is
faster). The threshold should sit where the ratio crosses 1.

``--cold`` times instead what a person feels: each command (``metrics``, ``score`` and ``show``
with ``--format json``, and ``verify``) as a fresh process, which on the engine's side also pays
for importing DuckDB, with the size set so that one reader answers (reference and engine runs
interleaved, so a busy machine slows both alike).

Run: python benchmarks/reader_crossover.py [--runs N] [--cold] [--incidents 1000,3000,...]
"""

import argparse
import os
import statistics
import subprocess
import sys
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


# a fresh process that reads with the size given (0: the engine tries; a huge size: the reference)
_COLD = ("import sys; from day60 import reading; reading.ENGINE_FROM_BYTES = int(sys.argv[1]); "
         "from day60.cli import app; sys.argv = ['day60', *sys.argv[2:]]; app()")
COMMANDS = (("metrics", "--format", "json"), ("score", "--format", "json"), ("show", "--format", "json"), ("verify",))


def cold(size: int, command: tuple[str, ...], path: Path) -> float:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", _COLD, str(size), command[0], str(path), *command[1:]],
                          capture_output=True, text=True, env=env)
    elapsed = time.perf_counter() - t0
    if done.returncode != 0:
        sys.exit(f"{command[0]} failed: {done.stderr[-500:]}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--cold", action="store_true", help="each command as a fresh process")
    parser.add_argument("--incidents", default=None, help="sizes, comma-separated (default 10 to 10000)")
    args = parser.parse_args()
    sizes = [int(n) for n in args.incidents.split(",")] if args.incidents else [10, 100, 300, 1000, 3000, 10000]
    print(f"threshold now: {reading.ENGINE_FROM_BYTES:,} bytes; {'cold, a process a run' if args.cold else 'warm'}")
    first = "command" if args.cold else "events"
    print(f"{'incidents':>9} {first:>7} {'bytes':>11} {'reference s':>11} {'engine s':>9} {'engine/ref':>10}")
    with tempfile.TemporaryDirectory() as folder:
        for incidents in sizes:
            path = Path(folder) / f"j{incidents}.jsonl"
            events = write(path, incidents)
            size = path.stat().st_size
            if not args.cold:
                ref = timed(lambda p=path: metrics.compute(jr.read(p)), args.runs)
                fast = timed(lambda p=path: metrics.compute(engine.read_fast(p)), args.runs)
                print(f"{incidents:>9} {events:>7} {size:>11,} {ref:>11.4f} {fast:>9.4f} {fast / ref:>10.2f}")
                continue
            for command in COMMANDS:
                ref, fast = [], []
                for _ in range(args.runs):
                    ref.append(cold(2**62, command, path))
                    fast.append(cold(0, command, path))
                r, f = statistics.median(ref), statistics.median(fast)
                print(f"{incidents:>9} {command[0]:>7} {size:>11,} {r:>11.3f} {f:>9.3f} {f / r:>10.2f}", flush=True)


if __name__ == "__main__":
    main()

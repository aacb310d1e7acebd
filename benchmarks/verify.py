"""`day60 verify` on a synthetic journal (SYNTHETIC data, the generator of benchmarks/metrics.py),
as a ratio to its floor in the same run: hashlib's SHA-256 of the whole file (1 MiB blocks), the
least any check of every line's hash must do. Both wall time and CPU time (user + system; for
verify, of the whole process tree: DuckDB's threads and the hashing child) are shown, since on the
project's shared 2-core machine the wall ratio moves with the load and the CPU ratio much less;
the load average is printed beside each figure.

``--against DIR`` also times, interleaved in the same run, the day60 found in DIR (for example a
copy of an earlier commit, ``git archive COMMIT day60 | tar -x -C DIR``), so a change is shown
against what it replaced under the same load.

Run: python benchmarks/verify.py [--incidents N] [--journal PATH] [--runs R] [--against DIR]
(``--journal`` reuses a journal written before, e.g. by ``benchmarks/metrics.py --keep``; 450,000
incidents make about 2 million events).
"""

import argparse
import hashlib
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import metrics  # the same synthetic journal; a sibling script, on the path when this one runs


def floor(path: Path) -> tuple[float, float]:
    """Wall and CPU seconds of hashlib's SHA-256 of the whole file."""
    t0, c0 = time.perf_counter(), time.process_time()
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        while block := fh.read(1 << 20):
            digest.update(block)
    return time.perf_counter() - t0, time.process_time() - c0


def verify(path: Path, pythonpath: str | None, pycache: Path) -> tuple[float, float]:
    """Wall and CPU seconds (the child and everything it waited for) of ``day60 verify PATH``.
    Bytecode is written to and read from ``pycache`` (as an installed wheel has it), whatever
    ``PYTHONDONTWRITEBYTECODE`` says here: otherwise every run compiles the toolkit again."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(pycache / (pythonpath or "here").strip("/").replace("/", "_"))
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "day60", "verify", str(path)], capture_output=True, text=True,
                          env=env)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0 or "ok," not in done.stdout:
        sys.exit(f"verify failed: {done.stdout}{done.stderr}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--incidents", type=int, default=450_000)
    parser.add_argument("--journal", type=Path)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--against", help="a folder holding another day60 to time beside this one")
    args = parser.parse_args()
    here = str(Path(__file__).resolve().parent.parent)
    with tempfile.TemporaryDirectory() as tmp:
        path = args.journal or Path(tmp) / "bench.jsonl"
        if not args.journal:
            metrics.write(path, args.incidents)
            os.sync()
        with path.open("rb") as fh:
            events = sum(block.count(b"\n") for block in iter(lambda: fh.read(1 << 24), b"")) - 1
        size = path.stat().st_size / 2**20
        sides = [("this tree", here)] + ([("against", args.against)] if args.against else [])
        warm = Path(tmp) / "warm.jsonl"
        metrics.write(warm, 1_000)  # over 1 MiB, so the engine's path runs and its modules are compiled
        for _, tree in sides:  # a first run of each writes its bytecode; not timed
            verify(warm, tree, Path(tmp))
        for _ in range(args.runs):
            for name, tree in sides:
                load0 = os.getloadavg()[0]
                base = floor(path)
                wall, cpu = verify(path, tree, Path(tmp))
                again = floor(path)  # the better of two: a busy machine slows the floor too
                wall0, cpu0 = min(base[0], again[0]), min(base[1], again[1])
                print(f"{name}: verify, {events:,} events ({size:,.0f} MiB): {wall:.2f} s wall, {cpu:.2f} s CPU; "
                      f"SHA-256 of the file {wall0:.2f} s wall, {cpu0:.2f} s CPU; ratio {wall / wall0:.1f}x wall, "
                      f"{cpu / cpu0:.1f}x CPU (load average {load0:.1f} before, {os.getloadavg()[0]:.1f} after)",
                      flush=True)


if __name__ == "__main__":
    main()

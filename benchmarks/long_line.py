"""`day60 verify` and `day60 metrics` on a journal whose last line never ends (SYNTHETIC).

A good journal (the demo's) followed by ``--mib`` MiB of one line with no LF: what a transfer
cut short leaves, or what a forger pads a file with. Each command is run as a subprocess and
timed beside the SHA-256 of the same file (the floor any check of every byte pays), and the
ratio printed. Reading such a file costs time linear in its size: before ``journal.Lines``,
every 4 MiB block copied the unfinished line again, and 256 MiB took 35 s to verify.

Run: python benchmarks/long_line.py [--mib N]
"""

import argparse
import hashlib
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from day60 import demo


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mib", type=int, default=256)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "long.jsonl"
        demo.build_journal(path)
        with path.open("ab") as fh:
            for _ in range(args.mib):
                fh.write(b"x" * (1 << 20))
        t0 = time.perf_counter()
        with path.open("rb") as fh:
            hashlib.file_digest(fh, "sha256")
        floor = time.perf_counter() - t0
        print(f"{path.stat().st_size:,} bytes, the last {args.mib} MiB one unfinished line; SHA-256 {floor:.2f} s")
        for command in (["verify"], ["metrics", "--format", "json"]):
            t0 = time.perf_counter()
            subprocess.run([sys.executable, "-m", "day60", command[0], str(path), *command[1:]],
                           capture_output=True, check=False)
            took = time.perf_counter() - t0
            print(f"day60 {command[0]:<8} {took:6.2f} s  {took / floor:5.1f}x SHA-256")


if __name__ == "__main__":
    main()

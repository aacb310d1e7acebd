"""How far the demo's PDF child is from being killed as too slow (SYNTHETIC data).

``render.pdf_bytes_many`` waits for its forked child ``CHILD_GRACE`` seconds plus twice its own
rendering time after it has rendered its own share, then kills the child and renders the child's
share itself (the same bytes, later). This renders the demo's four documents that way and
reports, per run: the parent's own share (P), how long it then waited for the child (W), the
deadline it would have given (D = CHILD_GRACE + 2P) and W / D, the fraction of the deadline used.
``--load N`` starts N busy processes first, for a loaded machine.

Run: python benchmarks/pdf_child.py [--runs N] [--load N]
"""

import argparse
import datetime as dt
import multiprocessing
import os
import statistics
import tempfile
import time
from pathlib import Path

from day60 import demo, render


def _busy() -> None:
    while True:
        pass


def _jobs() -> list:
    """The demo's documents, captured as it hands them to pdf_bytes_many."""
    caught: list = []

    def capture(jobs):
        caught.extend(jobs)
        return [(b"", 0)] * len(jobs)

    real, render.pdf_bytes_many = render.pdf_bytes_many, capture
    try:
        with tempfile.TemporaryDirectory() as tmp:
            demo.run(Path(tmp) / "demo")
    finally:
        render.pdf_bytes_many = real
    return [(html, attachments, when if isinstance(when, dt.datetime) else None) for html, attachments, when in caught]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--load", type=int, default=0)
    args = parser.parse_args()
    os.sched_getaffinity = lambda _pid: {0, 1}  # the child is forked even where one core is seen
    jobs = _jobs()
    render.pdf_bytes_many(jobs)  # warm: fonts and templates loaded before the fork
    busy = [multiprocessing.Process(target=_busy, daemon=True) for _ in range(args.load)]
    for p in busy:
        p.start()
    parent, real_pdf, real_collect = os.getpid(), render.pdf_bytes, render._Child.collect
    rows = []
    try:
        for _ in range(args.runs):
            own = [0.0]

            def timed(*a, own=own, **k):
                started = time.perf_counter()
                try:
                    return real_pdf(*a, **k)
                finally:
                    if os.getpid() == parent:
                        own[0] += time.perf_counter() - started

            def collect(self, within=None, own=own):
                started = time.perf_counter()
                out = real_collect(self, within)
                rows.append((own[0], time.perf_counter() - started, within, out is not None))
                return out

            render.pdf_bytes, render._Child.collect = timed, collect
            try:
                render.pdf_bytes_many(jobs)
            finally:
                render.pdf_bytes, render._Child.collect = real_pdf, real_collect
    finally:
        for p in busy:
            p.kill()
    for own_s, waited, deadline, sent in rows:
        print(f"parent's share {own_s:.2f} s; then waited {waited:.2f} s for the child of a deadline of "
              f"{deadline:.1f} s ({waited / deadline:.1%}); child's share {'received' if sent else 'NOT received'}")
    print(f"load {args.load}: median wait {statistics.median(r[1] for r in rows):.2f} s, "
          f"median fraction of the deadline {statistics.median(r[1] / r[2] for r in rows):.1%}, "
          f"largest {max(r[1] / r[2] for r in rows):.1%}")


if __name__ == "__main__":
    main()

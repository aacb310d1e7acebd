"""The score PDF of an exercise with many drifts (SYNTHETIC data, invented here).

Builds a journal with N organic drifts (onset, detection and notice each, over March 2026),
scores it and times `render.pdf` of the score document, which draws at most
`display.PDF_ROWS` bars and rows of each kind and counts the rest.
Run: python benchmarks/long_report.py [--drifts N]
"""

import argparse
import datetime as dt
import tempfile
import time
from pathlib import Path

from day60 import assess, render
from day60 import journal as jr
from day60.clock import BusinessCalendar
from day60.resources import example


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--drifts", type=int, default=1000)
    args = parser.parse_args()
    cal = BusinessCalendar.load(example("uk-office.toml"))
    base = dt.datetime(2026, 3, 2, 9, tzinfo=dt.UTC)
    events = []
    for k in range(args.drifts):
        onset = base + dt.timedelta(minutes=37 * k)
        ident = f"drift-{k:05d}"
        events += [("drift.onset", ident, onset, {"source": "organic", "affected_class": "forms"}),
                   ("drift.detected", ident, onset + dt.timedelta(hours=2 + k % 30), {}),
                   ("drift.notice", ident, onset + dt.timedelta(hours=5 + k % 40),
                    {"affected_class": "forms", "evidence": "SYNTHETIC"})]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "drifts.jsonl"
        journal = jr.build(path, {"partner": "Bench (SYNTHETIC)", "supplier": "Bench (SYNTHETIC)",
                                  "deployment": "bench", "tier": "T2", "runner": "benchmark", "synthetic": True,
                                  "calendar": cal.to_dict(),
                                  "window": {"start": "2026-03-01T00:00:00+00:00",
                                             "end": "2026-06-01T00:00:00+00:00"}}, events)
        done = assess.score_journal(journal)
        t0 = time.perf_counter()
        pages = render.pdf(render.score_html(journal, done.figures, done.result), Path(tmp) / "score.pdf")
        seconds = time.perf_counter() - t0
        print(f"SYNTHETIC score PDF with {args.drifts:,} drifts: {pages} pages in {seconds:.2f} s")


if __name__ == "__main__":
    main()

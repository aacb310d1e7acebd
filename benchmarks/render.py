"""Render the demo's score PDF (SYNTHETIC data) and report seconds and pages.

The journal, figures and score are prepared first; only HTML + PDF rendering is timed, over
several runs after one warm-up (the first render in a process loads fonts).
Run: python benchmarks/render.py [--runs N]
"""

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from day60 import demo, metrics, render, rubric


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        journal = demo.build_journal(Path(tmp) / "exercise.jsonl")
        figures = metrics.compute(journal)
        result = rubric.score(figures, journal.header, rubric.load())
        t0 = time.perf_counter()
        pages = render.pdf(render.score_html(journal, figures, result), Path(tmp) / "cold.pdf")
        cold = time.perf_counter() - t0
        times = []
        for i in range(args.runs):
            t0 = time.perf_counter()
            render.pdf(render.score_html(journal, figures, result), Path(tmp) / f"{i}.pdf")
            times.append(time.perf_counter() - t0)
    print(f"demo score PDF: {pages} pages; first render {cold:.2f} s; warm median {statistics.median(times):.2f} s, "
          f"max {max(times):.2f} s over {args.runs} runs")


if __name__ == "__main__":
    main()

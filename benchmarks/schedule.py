"""Export the full clause schedule (all twenty clauses, the SYNTHETIC example deal) to PDF.

Times loading the library and deal, assembling the schedule and rendering the PDF, end to end,
over several runs after one warm-up. Run: python benchmarks/schedule.py [--runs N]
"""

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from day60 import clauses, render, rubric
from day60.resources import data_dir

SOW = data_dir("clauses") / "examples" / "synthetic-sow.toml"


def export(out: Path) -> int:
    library = clauses.load_library()
    deal = clauses.load_deal(SOW, library, rubric.parameter_ids(rubric.load()))
    return render.pdf(render.html("schedule.html.j2", {"s": clauses.schedule(library, deal)}), out)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        pages = export(Path(tmp) / "cold.pdf")
        cold = time.perf_counter() - t0
        times = []
        for i in range(args.runs):
            t0 = time.perf_counter()
            export(Path(tmp) / f"{i}.pdf")
            times.append(time.perf_counter() - t0)
    print(f"full schedule PDF: {pages} pages, {len(clauses.load_library().clauses)} clauses; first export "
          f"{cold:.2f} s; warm median {statistics.median(times):.2f} s, max {max(times):.2f} s over {args.runs} runs")


if __name__ == "__main__":
    main()

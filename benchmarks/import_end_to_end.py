"""A whole `day60 import servicenow` (CSV) end to end against DuckDB's floor on the same files
(SYNTHETIC data, invented here by ``imports.write_exports``). Not a test: run it by hand and read
its figures beside the load it printed.

One run writes an incident CSV of N tickets and a sys_audit CSV of four rows a ticket, then:

- times ``day60 import servicenow`` into a fresh journal in a fresh process (reading, normalising,
  the rules, the journal lines, the sidecar index and the reconciliation: everything the command
  does), its peak resident memory read from the child itself (VmHWM, ``measure.py``);
- times, in another fresh process, the floor any import of these files pays: DuckDB reading both
  CSVs and joining each incident to its history, aggregated per incident, every row fetched;
- prints the ratio of the two and the load average before and after.

``--stages`` runs the timed import in a child process that also samples its own resident memory (VmRSS)
and its peak so far (VmHWM) at each stage boundary: the journal read, every ticket read (DuckDB's
reader closed), the rows in the engine's tables, the reconciliation worked, the report printed.

``--profile`` instead runs the import in this process under cProfile and tracemalloc and prints the
functions that took the time and the lines that held the most memory at the peak (slower; use it
at 100,000 tickets or fewer).

Run: python benchmarks/import_end_to_end.py [--tickets N] [--profile | --stages]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import measure  # sibling scripts, on the path when this one runs
from append import new_journal  # the benchmark journal the append benchmark makes
from imports import write_exports

SEVERITY = "1=1,2=2,3=3,4=4,5=skip"

FLOOR = """
import sys, time, resource, duckdb
incidents, audit = sys.argv[1:3]
t0 = time.perf_counter()
con = duckdb.connect()
con.execute('SET enable_progress_bar = false')
cur = con.execute(f'''
    SELECT i.number, i.opened_at, i.resolved_at, i.priority, i.state, h.h
    FROM read_csv('{incidents}', all_varchar=true, header=true) i
    LEFT JOIN (SELECT documentkey AS k, string_agg(concat_ws(chr(31), sys_created_on, fieldname, oldvalue,
                                                              newvalue), chr(30)) AS h
               FROM read_csv('{audit}', all_varchar=true, header=true) GROUP BY documentkey) h
    ON h.k = i.sys_id''')
rows = 0
while batch := cur.fetchmany(100_000):
    rows += len(batch)
print(rows, time.perf_counter() - t0, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
"""


STAGES = """
import sys
from day60 import engine
from day60.imports import normalise, reconcile


def mark(stage):
    got = dict(line.split(":", 1) for line in open("/proc/self/status") if line.startswith(("VmRSS", "VmHWM")))
    print("STAGE", stage.replace(" ", "_"), *(int(got[k].split()[0]) // 1024 for k in ("VmRSS", "VmHWM")),
          file=sys.stderr, flush=True)


blocks, after, rec = normalise._Seen.blocks, engine.after, reconcile.reconcile


def blocks_marked(self, fmt, items):
    mark("journal read, before the first ticket")
    yield from blocks(self, fmt, items)
    mark("every ticket read, the reader closed")


def after_marked(*args, **kwargs):
    out = after(*args, **kwargs)
    mark("rows in the engine's tables (after)")
    return out


def rec_marked(*args, **kwargs):
    mark("reconciliation starts")
    out = rec(*args, **kwargs)
    mark("reconciliation worked")
    return out


normalise._Seen.blocks, engine.after, reconcile.reconcile = blocks_marked, after_marked, rec_marked
if hasattr(normalise, "give_back"):  # memory handed back to the system, where the import does that
    give_back = normalise.give_back

    def give_back_marked():
        mark("before giving memory back")
        give_back()
        mark("memory given back (malloc_trim)")

    normalise.give_back = give_back_marked
from day60.cli import main
sys.argv = ["day60", *sys.argv[1:]]
try:
    main()
except SystemExit as done:
    assert not done.code, done.code
mark("report printed")
"""


def stages(*args: str) -> tuple[float, float, list[str]]:
    """The import in a child that marks its memory at each stage (``STAGES``), its report discarded:
    wall seconds, peak MiB (VmHWM at its last mark) and the stage table's lines."""
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", STAGES, *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          text=True)
    seconds = time.perf_counter() - t0
    if done.returncode:
        sys.exit(done.stderr)
    table, peak = ["| stage | resident | peak so far |", "| --- | --- | --- |"], 0.0
    for line in done.stderr.splitlines():
        if line.startswith("STAGE "):
            _, stage, rss, hwm = line.split()
            table.append(f"| {stage.replace('_', ' ')} | {int(rss):,} MiB | {int(hwm):,} MiB |")
            peak = float(hwm)
    return seconds, peak, table


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def profile(incidents: Path, audit: Path, mapping: Path, journal: Path) -> None:
    import cProfile
    import pstats
    import tracemalloc

    from day60.imports import run_import, settings

    config = settings(mapping, SEVERITY, None, "raw", None)
    tracemalloc.start(8)
    prof = cProfile.Profile()
    prof.enable()
    result = run_import("servicenow", [incidents, audit], journal, config)
    prof.disable()
    size, peak = tracemalloc.get_traced_memory()
    snapshot = tracemalloc.take_snapshot()
    print(f"imported {len(result.imported):,}; Python heap now {size / 2**20:.0f} MiB, peak {peak / 2**20:.0f} MiB")
    print("held at the end (result still alive), by line:")
    for stat in snapshot.statistics("lineno")[:15]:
        print(f"  {stat.size / 2**20:7.1f} MiB  {stat.traceback[0]}")
    pstats.Stats(prof).sort_stats("cumulative").print_stats(30)
    pstats.Stats(prof).sort_stats("tottime").print_stats(25)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tickets", type=int, default=100_000)
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--stages", action="store_true", help="also sample the import's memory at each stage")
    parser.add_argument("--format", default="table", help="the import's --format (table or json)")
    parser.add_argument("--floor", nargs=2, metavar=("INCIDENTS", "AUDIT"),
                        help="time only DuckDB's floor, on exports written before")
    args = parser.parse_args()
    print(f"load before: {load()} on {os.cpu_count()} cores")
    if args.floor:
        floor(*args.floor)
        return
    with tempfile.TemporaryDirectory(prefix="day60-e2e-") as tmp:
        folder = Path(tmp)
        incidents, audit = write_exports(folder, args.tickets)
        print(f"SYNTHETIC exports: {args.tickets:,} tickets, {incidents.stat().st_size / 2**20:.0f} MiB incident CSV "
              f"+ {audit.stat().st_size / 2**20:.0f} MiB sys_audit CSV")
        mapping = folder / "map.toml"
        mapping.write_text('[columns]\ncheck = "u_restore_check"\n')
        journal = folder / "year.jsonl"
        new_journal(journal)
        if args.profile:
            profile(incidents, audit, mapping, journal)
            return
        command = ("import", "servicenow", str(incidents), str(audit), "--journal", str(journal), "--mode", "raw",
                   "--severity-map", SEVERITY, "--map", str(mapping), "--format", args.format)
        cpu0 = cpu()
        if args.stages:
            seconds, peak, table = stages(*command)
        else:
            seconds, peak = measure.day60(*command)
        used = cpu() - cpu0
        events = sum(1 for _ in journal.open("rb")) - 1
        print(f"day60 import servicenow: {seconds:.2f} s ({used:.2f} CPU s), peak {peak:,.0f} MiB, {events:,} "
              f"events ({journal.stat().st_size / 2**20:,.0f} MiB journal); load {load()}")
        if args.stages:
            print("\n".join(table))
        cpu0 = cpu()
        wall, inner = floor(str(incidents), str(audit))
        floor_cpu = cpu() - cpu0
        print(f"ratio: {seconds / wall:.1f}x the floor's whole process ({seconds / inner:.1f}x its query); "
              f"in CPU seconds {used / floor_cpu:.1f}x ({floor_cpu:.2f} CPU s)")


def cpu() -> float:
    """User and system seconds of the children this process has waited for (a load that takes the
    cores away stretches wall time much more than this)."""
    import resource

    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def floor(incidents: str, audit: str) -> tuple[float, float]:
    """DuckDB reading both exports and joining each incident to its history, in a fresh process:
    the whole process's seconds and the query's."""
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", FLOOR, incidents, audit], capture_output=True, text=True,
                          check=True)
    wall = time.perf_counter() - t0
    rows, inner, floor_peak = done.stdout.split()[-3:]
    print(f"DuckDB floor (read_csv + join, {int(rows):,} rows fetched): {float(inner):.2f} s in the query, "
          f"{wall:.2f} s with the process start, peak {float(floor_peak):,.0f} MiB; load {load()}")
    return wall, float(inner)


if __name__ == "__main__":
    main()

"""`day60 metrics` on a synthetic journal of N incidents (SYNTHETIC data, invented here).

Four severities, organic incidents (as a supplier's records give them), each with a detection
and a communication, about half with a wait on the partner and a quarter with a change window,
most restored: about 4.45 events per incident.

In one run it times, on the same file:
- the SHA-256 of the whole file (hashlib, 1 MiB blocks): the physical floor, since every
  figure rests on every line's hash;
- two floors in child processes: a plain line-by-line `json.loads` of the file (the floor any
  reader in Python pays) and DuckDB's `read_json` of the fields the figures read;
- `day60 metrics JOURNAL` (the table) and `day60 metrics JOURNAL --format json` (to a file) and
  `day60 verify JOURNAL` as subprocesses,
each with its wall time, its CPU time (user and system, every thread) and its peak memory read
from the child's own /proc/self/status (VmHWM), the load average printed beside it; and prints
the ratios (the issue's targets: metrics at most 1.0x json.loads and under 1 GiB, the JSON at the
table's CPU; verify within 3x the SHA-256, its memory flat in the journal's size), then checks
in-process that the engine took its fast path. ``--also N`` runs verify on a second journal of
N incidents too, so that the memory of the two sizes can be compared.

The journal is written line by line as `journal.build` writes it (canonical JSON, chained
hashes) but without replaying the rules on every event, so that ten million events are written
in a minute or two; `day60 metrics` then checks every line and rule as it reads. ``--journal``
measures one this script wrote before (``--keep``) instead of writing another.

Run: python benchmarks/metrics.py [--incidents N] [--keep PATH | --journal PATH] [--no-verify]
"""

import argparse
import datetime as dt
import hashlib
import json
import os
import tempfile
import time
from pathlib import Path

import measure  # a sibling script, on the path when this one runs
import numpy as np

from day60 import journal as jr
from day60 import metrics, reading
from day60.clock import BusinessCalendar
from day60.resources import example

HEADER = {"partner": "SYNTHETIC partner", "supplier": "SYNTHETIC supplier", "deployment": "SYNTHETIC benchmark",
          "tier": "T2", "runner": "benchmark", "synthetic": True, "records": "supplier-reported",
          "window": {"start": "2026-03-01T00:00:00+00:00", "end": "2026-04-30T00:00:00+00:00"}}


def synthetic_events(n: int, seed: int = 60):
    """(kind, id, at, data) for n incidents, in the order a supplier's export lists them."""
    rng = np.random.default_rng(seed)
    base = dt.datetime(2026, 3, 2, 9, tzinfo=dt.UTC)
    for k in range(n):
        ident = f"INC-{k:07d}"
        start = base + dt.timedelta(minutes=int(rng.integers(0, 60 * 24 * 25)))
        yield "incident.detected", ident, start, {"severity": int(rng.integers(1, 5)), "source": "organic"}
        t = start + dt.timedelta(minutes=int(rng.integers(1, 60)))
        yield "incident.communicated", ident, t, {}
        if rng.random() < 0.5:
            w0 = t + dt.timedelta(minutes=int(rng.integers(1, 120)))
            w1 = w0 + dt.timedelta(minutes=int(rng.integers(1, 600)))
            yield "incident.wait-start", ident, w0, {}
            yield "incident.wait-end", ident, w1, {}
            t = w1
        if rng.random() < 0.25:
            c0 = t + dt.timedelta(minutes=int(rng.integers(1, 60)))
            c1 = c0 + dt.timedelta(minutes=int(rng.integers(1, 240)))
            yield "incident.change-window-start", ident, c0, {}
            yield "incident.change-window-end", ident, c1, {}
            t = c1
        if rng.random() < 0.95:
            yield ("incident.restored", ident, t + dt.timedelta(minutes=int(rng.integers(1, 900))),
                   {"check": "synthetic probe"})


def write(path: Path, incidents: int) -> int:
    """The journal as `journal.build` would write it; returns the number of events."""
    cal = BusinessCalendar.load(example("uk-office.toml"))
    header = jr.create(path, {**HEADER, "calendar": cal.to_dict()})
    previous, seq = jr.canonical(header), 0
    with path.open("a", encoding="utf-8") as fh:
        for kind, ident, at, data in synthetic_events(incidents):
            seq += 1
            body = {"seq": seq, "kind": kind, "id": ident, "at": at.isoformat(), "recorded_at": jr.now_iso(),
                    "by": "benchmark", "data": data, "prev": jr.sha256_hex(previous)}
            previous = jr.canonical({**body, "hash": jr.sha256_hex(jr.canonical(body))})
            fh.write(previous + "\n")
    return seq


def file_sha256(path: Path) -> float:
    t0 = time.perf_counter()
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        while block := fh.read(1 << 20):
            digest.update(block)
    return time.perf_counter() - t0


def plain_json(path: Path) -> float:
    t0 = time.perf_counter()
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            json.loads(line)
    return time.perf_counter() - t0


LOADS = """
import json, sys
with open(sys.argv[1], encoding="utf-8") as fh:
    for line in fh:
        json.loads(line)
print(0, [l for l in open("/proc/self/status") if l.startswith("VmHWM")][0].split()[1], file=sys.stderr)
"""

READ_JSON = """
import duckdb, sys
con = duckdb.connect()
print(con.execute('SELECT count(*), max(seq), count(DISTINCT kind), count(DISTINCT id), max("at"), max(data) '
                  "FROM read_json(?, format='newline_delimited')", [sys.argv[1]]).fetchall())
print(0, [l for l in open("/proc/self/status") if l.startswith("VmHWM")][0].split()[1], file=sys.stderr)
"""


def _line(name: str, r: dict[str, float], floor: dict[str, float] | None = None) -> str:
    ratio = f", {r['wall'] / floor['wall']:.2f}x its wall, {r['cpu'] / floor['cpu']:.2f}x its CPU" if floor else ""
    out = f", {r['bytes'] / 2**20:,.0f} MiB written" if r["bytes"] else ""
    return (f"{name}: {r['wall']:.2f} s wall, {r['cpu']:.2f} s CPU, peak RSS {r['peak']:,.0f} MiB{out}{ratio} "
            f"(load {r['load']:.2f})")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--incidents", type=int, default=100_000)
    parser.add_argument("--keep", type=Path, help="write the journal here and keep it")
    parser.add_argument("--also", type=int, help="verify a second journal of this many incidents too")
    parser.add_argument("--journal", type=Path, help="measure this journal (written by --keep before) instead")
    parser.add_argument("--no-verify", action="store_true", help="time metrics only")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = args.journal or args.keep or Path(tmp) / "bench.jsonl"
        t0 = time.perf_counter()
        if args.journal:
            with path.open("rb") as fh:
                events = sum(1 for _ in fh) - 1
        else:
            events = write(path, args.incidents)
        built = time.perf_counter() - t0
        os.sync()  # the file's pages written out before timing: no writeback competes with the reads
        size = path.stat().st_size
        hashed = file_sha256(path)
        floor = plain_json(path)
        loads = measure.child(LOADS, str(path))
        duck = measure.child(READ_JSON, str(path))
        table = measure.child(measure.CHILD, "metrics", str(path))
        out = Path(tmp) / "metrics.json"
        as_json = measure.child(measure.CHILD, "metrics", str(path), "--format", "json", stdout=str(out))
        json.loads(out.read_text(encoding="utf-8"))  # the whole output is one valid JSON document
        out.unlink()
        elapsed, peak = as_json["wall"], as_json["peak"]
        checked, checked_peak = (0.0, 0.0) if args.no_verify else measure.day60("verify", str(path))
        hashed = min(hashed, file_sha256(path))  # the better of two: a busy machine slows the floor too
        t0 = time.perf_counter()
        journal = reading.read(path)  # where the time goes, in this process: the read, then the figures
        read_time = time.perf_counter() - t0
        fast = journal.incidents is not None
        t0 = time.perf_counter()
        metrics.compute(journal)
        figures_time = time.perf_counter() - t0
        del journal
        second = None
        if args.also:
            other = Path(tmp) / "second.jsonl"
            other_events = write(other, args.also)
            os.sync()
            other_hash = file_sha256(other)
            second = (args.also, other_events, other_hash, *measure.day60("verify", str(other)))
            other.unlink()
    made = f"{args.journal}, written before" if args.journal else \
        f"{args.incidents:,} incidents, written in {built:.1f} s"
    print(f"journal: {made}: {events:,} events, {size / 2**20:,.0f} MiB")
    print(f"SHA-256 of the file: {hashed:.2f} s")
    print(f"plain json.loads, line by line: {floor:.2f} s ({floor / hashed:.1f}x SHA-256)")
    print(_line("floor: json.loads loop (child)", loads))
    print(_line("floor: DuckDB read_json (child)", duck))
    print(_line("day60 metrics (table)", table, loads))
    print(_line("day60 metrics --format json", as_json, loads))
    print(f"  the JSON against the table: {as_json['wall'] / table['wall']:.2f}x wall, "
          f"{as_json['cpu'] / table['cpu']:.2f}x CPU; against DuckDB read_json: {table['wall'] / duck['wall']:.2f}x "
          f"(table) wall; engine path: {'fast' if fast else 'journal.read (fell back)'}")
    print(f"  --format json: {elapsed / floor:.2f}x the in-process json.loads, {elapsed / hashed:.1f}x SHA-256, "
          f"peak RSS {peak:,.0f} MiB")
    if not args.no_verify:
        print(f"day60 verify: {checked:.2f} s wall ({checked / events * 1e6:.1f} µs an event), "
              f"peak RSS {checked_peak:,.0f} MiB, {checked / hashed:.1f}x SHA-256")
    print(f"  of which, in one process: the checked read {read_time:.2f} s, the figures {figures_time:.2f} s "
          "(the rest: interpreter, imports, JSON output)")
    if second:
        n, other_events, other_hash, other_time, other_peak = second
        print(f"day60 verify on {n:,} incidents ({other_events:,} events): {other_time:.2f} s wall, peak RSS "
              f"{other_peak:,.0f} MiB, {other_time / other_hash:.1f}x its SHA-256 ({other_hash:.2f} s)")


if __name__ == "__main__":
    main()

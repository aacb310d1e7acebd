"""`day60 import servicenow` on a large supplier's year (SYNTHETIC data, invented here).

Writes an incident CSV of N tickets (raw values, UTC) and a sys_audit CSV with three state
changes per ticket (In Progress, On Hold with a hold reason, back to In Progress; the resolve
is the incident's own resolved_at), then times `day60 import` into a fresh journal as a
subprocess and reads the child's peak memory from its own /proc/self/status (VmHWM); then
times the same import again, into the journal it just filled. The map names the monitoring
check column, so nine tickets in ten are confirmed restores and the reconciliation with
calendar_stc/business_stc runs for them (a third differ by a wait, a third by a change window).
Run: python benchmarks/imports.py [--tickets N]
"""

import argparse
import datetime as dt
import tempfile
import time
from pathlib import Path

import measure  # a sibling script, on the path when this one runs

from day60 import journal as jr
from day60.clock import BusinessCalendar
from day60.resources import example

REASONS = ("1", "5", "4")  # Awaiting Caller (a wait), Awaiting Change (a change window), Awaiting Vendor (kept)


def write_exports(folder: Path, n: int) -> tuple[Path, Path]:
    base = dt.datetime(2026, 1, 1)
    fmt = "%Y-%m-%d %H:%M:%S"
    incidents, audit = folder / "incident.csv", folder / "sys_audit.csv"
    with incidents.open("w") as inc, audit.open("w") as aud:
        inc.write("number,sys_id,opened_at,resolved_at,closed_at,priority,state,hold_reason,calendar_stc,"
                  "business_stc,u_restore_check\n")
        aud.write("sys_id,tablename,documentkey,fieldname,oldvalue,newvalue,sys_created_on,user\n")
        for k in range(n):
            opened = base + dt.timedelta(seconds=(k * 31_536_000) // n)
            hold = opened + dt.timedelta(minutes=10 + k % 50)
            back = hold + dt.timedelta(minutes=5 + k % 120)
            resolved = back + dt.timedelta(minutes=15 + k % 240)
            sys_id = f"{k:032x}"
            wall = int((resolved - opened).total_seconds())
            inc.write(f"INC{k:08d},{sys_id},{opened:{fmt}},{resolved:{fmt}},,{1 + k % 5},6,,{wall},{wall},"
                      f"{'SYNTHETIC canary' if k % 10 else ''}\n")
            reason = REASONS[k % 3]
            aud.write(f"a{k}1,incident,{sys_id},state,1,2,{opened + dt.timedelta(minutes=1):{fmt}},synthetic\n"
                      f"a{k}2,incident,{sys_id},state,2,3,{hold:{fmt}},synthetic\n"
                      f"a{k}3,incident,{sys_id},hold_reason,,{reason},{hold:{fmt}},synthetic\n"
                      f"a{k}4,incident,{sys_id},state,3,2,{back:{fmt}},synthetic\n")
    return incidents, audit


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tickets", type=int, default=1_000_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        t0 = time.perf_counter()
        incidents, audit = write_exports(folder, args.tickets)
        print(f"SYNTHETIC exports: {args.tickets:,} tickets, {incidents.stat().st_size / 2**20:.0f} MiB + "
              f"{audit.stat().st_size / 2**20:.0f} MiB sys_audit (written in {time.perf_counter() - t0:.1f} s)")
        cal = BusinessCalendar.load(example("uk-office.toml"))
        journal = folder / "year.jsonl"
        jr.create(journal, {"partner": "Bench BPO (SYNTHETIC)", "supplier": "Bench supplier (SYNTHETIC)",
                            "deployment": "bench", "tier": "T2", "runner": "benchmark", "calendar": cal.to_dict(),
                            "synthetic": True, "window": {"start": "2026-01-01T00:00:00+00:00",
                                                          "end": "2027-01-01T00:00:00+00:00"}})
        mapping = folder / "map.toml"
        mapping.write_text('[columns]\ncheck = "u_restore_check"\n')
        seconds, peak = measure.day60("import", "servicenow", str(incidents), str(audit), "--journal", str(journal),
                                      "--mode", "raw", "--severity-map", "1=1,2=2,3=3,4=4,5=skip", "--map",
                                      str(mapping))
        events = sum(1 for _ in journal.open()) - 1
        print(f"day60 import servicenow: {seconds:.1f} s, peak {peak:.0f} MiB, {events:,} events "
              f"appended ({journal.stat().st_size / 2**20:.0f} MiB journal)")
        # The same export again: every ticket is already there, so this times reading the year's
        # journal to compare with (on the engine) plus reading the export.
        seconds, peak = measure.day60("import", "servicenow", str(incidents), str(audit), "--journal", str(journal),
                                      "--mode", "raw", "--severity-map", "1=1,2=2,3=3,4=4,5=skip", "--map",
                                      str(mapping))
        print(f"the same import again (nothing new): {seconds:.1f} s, peak {peak:.0f} MiB")


if __name__ == "__main__":
    main()

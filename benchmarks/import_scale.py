"""The readers of JSON exports on a million records: peak memory and time (SYNTHETIC data,
invented here). Not a test: run it by hand and read its figures with the load it printed.

Each case runs in a fresh Python process, so its peak resident memory (ru_maxrss) is its own:
- ``zendesk``: an incremental tickets export of N tickets, in pages of 1000, every 50th ticket
  copied again on the next page (as a cursor export repeats a ticket that changed), read by
  ``zendesk.read`` (streamed with ijson; the tickets consumed and dropped, not journalled);
- ``servicenow``: a Table API answer {"result": [...]} of N incidents (raw values), turned into
  its field-name stand-in by ``snow_shapes.Shapes`` and read through DuckDB by
  ``servicenow.read``;
- ``json.load``: the ServiceNow answer (one file) loaded whole, as the JSON readers did before,
  for comparison.

Run: python benchmarks/import_scale.py [--rows N] [--cases zendesk,servicenow,json.load]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PAGE = 1000


def _t(n: int) -> str:
    sec = 1_772_442_000 + n * 7  # from 2 March 2026 09:00 UTC, a ticket every 7 s
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(sec))


def write_zendesk(folder: Path, rows: int) -> list[Path]:
    paths, n, page = [], 0, 0
    while n < rows:
        path = folder / f"tickets_{page:05d}.json"
        with open(path, "w", encoding="utf-8") as fh:
            fh.write('{"tickets": [')
            items = []
            for i in range(n, min(rows, n + PAGE)):
                items.append({"id": i + 1, "created_at": _t(i), "updated_at": _t(i + 1), "generated_timestamp": i,
                              "type": "incident", "subject": f"SYNTHETIC ticket {i + 1}", "priority": "high",
                              "status": "solved" if i % 3 else "open", "tags": [], "custom_fields": []})
            if page and n > 0:  # a copy of a ticket of the previous page, changed since
                items.append({**items[0], "id": n, "updated_at": _t(n + 2)})
            fh.write(",\n".join(json.dumps(x) for x in items))
            fh.write('], "after_cursor": "x", "end_of_stream": %s}' % ("true" if n + PAGE >= rows else "false"))
        paths.append(path)
        n += PAGE
        page += 1
    return paths


def write_servicenow(folder: Path, rows: int) -> list[Path]:
    path = folder / "incident_table_api.json"
    with open(path, "w", encoding="utf-8") as fh:
        fh.write('{"result": [')
        for i in range(rows):
            rec = {"number": f"INC{i:08d}", "sys_id": f"s{i}", "sys_class_name": "incident", "priority": "2",
                   "state": "6" if i % 3 else "2", "opened_at": _t(i).replace("T", " ").rstrip("Z"),
                   "resolved_at": _t(i + 100).replace("T", " ").rstrip("Z") if i % 3 else "",
                   "assignment_group": {"link": "https://x/api/now/table/sys_user_group/g", "value": "g"},
                   "sys_updated_on": _t(i + 100).replace("T", " ").rstrip("Z")}
            fh.write(("," if i else "") + json.dumps(rec) + "\n")
        fh.write("]}")
    return [path]


def child(case: str, paths: list[str]) -> None:
    import resource

    from day60.imports import servicenow, zendesk
    from day60.imports.books import Books
    from day60.imports.records import Settings

    files = [Path(p) for p in paths]
    start = time.perf_counter()
    count = 0
    if case == "json.load":
        for p in files:
            doc = json.loads(p.read_bytes())
            count += len(doc["result"])
        del doc
    else:
        module = zendesk if case == "zendesk" else servicenow
        settings = Settings(mode="raw", severity={"high": "2", "2": "2"})
        for _item in module.read(files, settings, [], Books(files)):
            count += 1
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"case": case, "records_out": count, "seconds": round(seconds, 1), "peak_mib": round(peak)}))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--cases", default="zendesk,servicenow,json.load")
    ap.add_argument("--child", nargs="+")
    args = ap.parse_args()
    if args.child:
        child(args.child[0], args.child[1:])
        return
    print(f"load before: {' '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} cores; "
          f"{args.rows:,} rows")
    with tempfile.TemporaryDirectory(prefix="day60-scale-") as tmp:
        folder = Path(tmp)
        made: dict[str, list[Path]] = {}
        for case in args.cases.split(","):
            kind = "zendesk" if case == "zendesk" else "servicenow"
            if kind not in made:
                made[kind] = (write_servicenow if kind == "servicenow" else write_zendesk)(folder, args.rows)
                size = sum(p.stat().st_size for p in made[kind])
                print(f"{kind} export: {len(made[kind])} file(s), {size / 2**20:,.0f} MiB")
            out = subprocess.run([sys.executable, __file__, "--child", case, *map(str, made[kind])],
                                 capture_output=True, text=True, check=False)
            print(out.stdout.strip() or out.stderr.strip()[-2000:])
            print(f"  load after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()

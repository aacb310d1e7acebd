"""The readers of JSON exports on a million records: peak memory and time (SYNTHETIC data,
invented here). Not a test: run it by hand and read its figures with the load it printed.

Each case runs in a fresh Python process, so its peak resident memory (ru_maxrss) is its own:
- ``zendesk``: an incremental tickets export of N tickets, in pages of 1000, every 50th ticket
  copied again on the next page (as a cursor export repeats a ticket that changed), read by
  ``zendesk.read`` (streamed with ijson; the tickets consumed and dropped, not journalled);
- ``servicenow``: a Table API answer {"result": [...]} of N incidents (raw values), turned into
  its field-name stand-in by ``snow_shapes.Shapes`` and read through DuckDB by
  ``servicenow.read``;
- ``jira``: a REST search answer with ``expand=changelog`` of N issues in one file (each with three
  status changes in its changelog), every 1000th issue given again later with a later
  ``fields.updated`` (as offset pages over a changing search repeat one), read alone by ``jira.read``
  (streamed with ijson, two passes);
- ``pagerduty``: an incidents answer {"incidents": [...]} of N incidents in one file, in the
  reference example's fields, every 1000th incident given again later with a later ``updated_at``,
  read by ``pagerduty.read`` (streamed with ijson, two passes);
- ``json.load``: the ServiceNow answer (one file) loaded whole, as the JSON readers did before,
  for comparison.

Run: python benchmarks/import_scale.py [--rows N] [--cases zendesk,servicenow,jira,pagerduty,json.load]
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


def write_jira(folder: Path, rows: int) -> list[Path]:
    path = folder / "search_changelog.json"

    def issue(i: int, updated: int) -> dict:
        stamp = _t(i).replace("Z", ".000+0000")
        done = i % 3 != 0
        hist = [("Open", "In Progress", i + 1), ("In Progress", "Waiting for customer", i + 3),
                ("Waiting for customer", "Resolved" if done else "In Progress", i + 5)]
        return {"expand": "operations,changelog", "id": str(10000 + i), "key": f"SUP-{i + 1}",
                "self": f"https://example.atlassian.net/rest/api/2/issue/{10000 + i}",
                "fields": {"created": stamp, "updated": _t(updated).replace("Z", ".000+0000"),
                           "resolutiondate": _t(i + 5).replace("Z", ".000+0000") if done else None,
                           "statuscategorychangedate": _t(i + 5).replace("Z", ".000+0000"),
                           "status": {"name": "Resolved" if done else "In Progress",
                                      "statusCategory": {"key": "done" if done else "indeterminate"}},
                           "resolution": {"name": "Done"} if done else None, "priority": {"name": "High"},
                           "issuetype": {"name": "Incident"}, "summary": f"SYNTHETIC issue {i + 1}"},
                "changelog": {"startAt": 0, "maxResults": 3, "total": 3, "histories": [
                    {"id": str(3 * i + n), "created": _t(at).replace("Z", ".000+0000"),
                     "items": [{"field": "status", "fieldtype": "jira", "fromString": a, "toString": b}]}
                    for n, (a, b, at) in enumerate(hist)]}}

    with open(path, "w", encoding="utf-8") as fh:
        fh.write(f'{{"expand": "schema,names", "startAt": 0, "maxResults": {rows}, "total": {rows}, "issues": [')
        for i in range(rows):
            fh.write(("," if i else "") + json.dumps(issue(i, i + 5)) + "\n")
            if i % PAGE == PAGE - 1 and i >= PAGE:  # a copy of an issue of the previous page, changed since
                fh.write("," + json.dumps(issue(i - PAGE, i)) + "\n")
        fh.write("]}")
    return [path]


def write_pagerduty(folder: Path, rows: int) -> list[Path]:
    path = folder / "incidents.json"

    def incident(i: int, updated: int) -> dict:
        ident = f"Q{i:012d}"
        resolved = i % 3 != 0
        return {"id": ident, "type": "incident", "summary": f"[#{i}] SYNTHETIC", "incident_number": i,
                "self": f"https://api.pagerduty.com/incidents/{ident}", "title": "SYNTHETIC",
                "created_at": _t(i), "updated_at": _t(updated), "status": "resolved" if resolved else "triggered",
                "incident_key": f"key-{i}", "service": {"id": "PSVC001", "type": "service_reference"},
                "assignments": [], "last_status_change_at": _t(i + 3), "resolved_at": _t(i + 3) if resolved else None,
                "urgency": "high", "priority": {"id": "PPRI2", "type": "priority", "summary": "P2"},
                "resolve_reason": None, "alert_counts": {"all": 1, "triggered": 0, "resolved": 1}}

    with open(path, "w", encoding="utf-8") as fh:
        fh.write('{"incidents": [')
        for i in range(rows):
            fh.write(("," if i else "") + json.dumps(incident(i, i + 3)) + "\n")
            if i % PAGE == PAGE - 1 and i >= PAGE:  # a copy of an incident of the previous page, changed since
                fh.write("," + json.dumps(incident(i - PAGE, i + 4)) + "\n")
        fh.write(f'], "limit": {rows}, "offset": 0, "more": false, "total": null}}')
    return [path]


WRITERS = {"zendesk": write_zendesk, "servicenow": write_servicenow, "jira": write_jira,
           "pagerduty": write_pagerduty}


def child(case: str, paths: list[str]) -> None:
    import resource

    from day60.imports import jira, pagerduty, servicenow, zendesk
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
        module = {"zendesk": zendesk, "jira": jira, "pagerduty": pagerduty}.get(case, servicenow)
        settings = Settings(mode="raw", severity={"high": "2", "2": "2", "High": "2", "P2": "2"})
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
            kind = case if case in WRITERS else "servicenow"
            if kind not in made:
                made[kind] = WRITERS[kind](folder, args.rows)
                size = sum(p.stat().st_size for p in made[kind])
                print(f"{kind} export: {len(made[kind])} file(s), {size / 2**20:,.0f} MiB")
            out = subprocess.run([sys.executable, __file__, "--child", case, *map(str, made[kind])],
                                 capture_output=True, text=True, check=False)
            print(out.stdout.strip() or out.stderr.strip()[-2000:])
            print(f"  load after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()

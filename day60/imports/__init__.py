"""Supplier records in: vendor ticket exports appended to a journal as organic incident events.

One module per export format reads its files into ``records.Ticket`` objects, streaming what
can be streamed; ``notes`` reads the deal's note conventions; ``normalise`` turns every ticket
into journal events through one path; ``reconcile`` sets our figure beside the vendor's own
from the journal. The BPO states what the export cannot say for itself: the zone of times
written without an offset, the ServiceNow export mode, which vendor priority is which deal
severity, and which vendor values mean withdrawn or excluded. Which states mean closed, deleted,
merged or not an incident is data (``states.yaml``, read by ``states``), to which the map adds;
``books`` counts every record of every file into one bucket.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from day60.errors import InputError
from day60.imports import csvmap, jira, normalise, pagerduty, servicenow, zendesk
from day60.imports.books import Books
from day60.imports.records import (
    FORMAT_NAMES,
    NoSeverity,
    Settings,
    check_date_format,
    check_severity_map,
    load_map,
    parse_outcomes,
    parse_severity_map,
    zone,
)

FORMATS = {"servicenow": servicenow, "jira": jira, "zendesk": zendesk, "pagerduty": pagerduty, "csv": csvmap}
assert tuple(FORMATS) == FORMAT_NAMES


def list_formats() -> list[dict[str, str]]:
    return [{"format": name, "reads": module.DESCRIPTION} for name, module in FORMATS.items()]


def check_mode(fmt: str | None, mode: str | None) -> None:
    """The ServiceNow export mode, if given: raw (the database's UTC values) or display (the
    exporting user's zone), and only for a ServiceNow export."""
    if mode is not None and mode not in ("raw", "display"):
        raise InputError("--mode", f"{mode[:20]!r} is not raw or display", "write --mode raw or --mode display")
    if mode is not None and fmt != "servicenow":
        raise InputError("--mode", f"applies to servicenow exports only, not {str(fmt)[:20]}", "drop --mode")


def totals(result: dict[str, Any]) -> dict[str, int]:
    """The counts an import's summary line gives, from ``run_import(...).as_dict()``: the records
    read (the files' own sum: a ticket may hold many records), the tickets they hold (imported, with
    new events added, already in the journal, left out, in conflict), and of those the tickets now
    in the journal (the first three)."""
    kept = sum(len(result[k]) for k in ("imported", "extended", "unchanged"))
    return {"records": sum(b["read"] for b in result["files"]),
            "tickets": kept + len(result["skipped"]) + len(result["conflicts"]), "in_journal": kept}


def settings(map_path: Path | None, severity_map: str | None, zone_name: str | None, mode: str | None,
             date_format: str | None, encoding: str | None = None, delimiter: str | None = None,
             sheet: str | None = None) -> Settings:
    """Options and the --map file, options winning; every value checked."""
    from day60.imports.notes import compile_patterns
    from day60.imports.tabular import check_options

    doc: dict[str, Any] = load_map(map_path) if map_path else {}
    times = doc.get("times", {})
    tz_name = zone_name or times.get("timezone")
    field = "--zone" if zone_name else "--map times.timezone"
    severity = parse_severity_map(severity_map) if severity_map else \
        check_severity_map(doc.get("severity", {}), "--map severity")
    fmt = check_date_format(date_format, "--date-format") if date_format else \
        check_date_format(times.get("format"), "--map times.format")
    stated = doc.get("file", {})  # an option wins over the map's [file]
    chosen = {key: (value, f"--{key}") if value is not None else (stated.get(key), f"--map file.{key}")
              for key, value in (("encoding", encoding), ("delimiter", delimiter), ("sheet", sheet))}
    files = check_options(chosen["encoding"][0], chosen["delimiter"][0], chosen["sheet"][0], fmt,
                          fields=(chosen["encoding"][1], chosen["delimiter"][1], chosen["sheet"][1]))
    return Settings(zone(tz_name, field) if tz_name else None, fmt, mode,
                    severity, {str(k): str(v) for k, v in doc.get("columns", {}).items()},
                    {str(k): str(v) for k, v in doc.get("pauses", {}).items()},
                    parse_outcomes(doc.get("outcomes", {})), compile_patterns(doc.get("notes", {})),
                    {str(k): str(v) for k, v in doc.get("sla", {}).items()},
                    [v.strip() for v in doc.get("changes", {}).get("agreed", [])],
                    [v.strip() for v in doc.get("integrations", {}).get("names", [])], files,
                    {k: [v.strip() for v in values] for k, values in doc.get("states", {}).items()})


def sha256_file(path: Path) -> str:
    import os

    from day60.files import open_regular
    from day60.imports.records import MAX_EXPORT_BYTES

    fd = open_regular(path, "EXPORT", "an export", MAX_EXPORT_BYTES)
    digest = hashlib.sha256()
    with os.fdopen(fd, "rb") as fh:
        while chunk := fh.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def _refuse_twins(exports: list[Path], digests: list[str]) -> None:
    """Two export files with the same bytes are one export given under two names: refused as
    such, where each of its tickets would otherwise be listed as appearing twice. JSON pages are
    left to their readers, which take a page's repeats as copies of the same records."""
    seen: dict[str, Path] = {}
    for p, digest in zip(exports, digests, strict=True):
        if digest in seen:
            with open(p, "rb") as fh:
                head = fh.read(64).lstrip(b"\xef\xbb\xbf \t\r\n")
            if head[:1] not in (b"{", b"["):
                raise InputError("EXPORT", f"{seen[digest].name} and {p.name} are byte-identical (sha256 "
                                           f"{digest[:12]}...): the same export under two names",
                                 "name it once; nothing was written")
        seen.setdefault(digest, p)


def _no_severity(module: Any, config: Settings) -> NoSeverity:
    """The count of tickets imported with an empty severity field, kept by the import run for
    every format alike: the field is the map's [columns] severity, else the format's own
    (``SEVERITY_FIELD``); a csv map that names none leaves every ticket without one, and says so."""
    name = config.column("severity", module.SEVERITY_FIELD)
    return NoSeverity(name) if name else NoSeverity("severity", ", the map naming no severity column")


def run_import(fmt: str, exports: list[Path], journal: Path, config: Settings,
               progress: Callable[[str, int], None] | None = None) -> normalise.Result:
    """Read ``exports`` in ``fmt`` and append their tickets to ``journal``; returns what was done.
    ``progress`` hears how far it has got (``normalise.run``)."""
    module = FORMATS.get(fmt)
    if module is None:
        raise InputError("FORMAT", f"{fmt[:30]!r} is not an import format", f"formats are: {', '.join(FORMATS)}")
    if not config.severity and not (fmt == "csv" and "severity" not in config.columns):
        raise InputError("--severity-map", "is required: a vendor's P1 is not assumed to be the deal's Severity 1",
                         "say which is which, e.g. --severity-map '1 - Critical=1,2 - High=2,3 - Moderate=3,"
                         "4 - Low=4,5 - Planning=skip' (or a [severity] table in --map)")
    stated = [f"--{k}" for k in ("encoding", "delimiter", "sheet") if getattr(config.files, k) is not None]
    if stated and fmt in ("zendesk", "pagerduty"):
        raise InputError(stated[0], f"applies to CSV and XLSX exports, and the {fmt} format reads JSON",
                         "leave it out (and the map's [file])")
    if len({p.resolve() for p in exports}) != len(exports):
        raise InputError("EXPORT", "the same file is given twice", "name each export once")
    if any(p.resolve() == journal.resolve() for p in exports):
        raise InputError("EXPORT", "the journal is given as an export", "name the vendor's export files")
    files = [{"file": p.name, "sha256": sha256_file(p)} for p in exports]
    _refuse_twins(exports, [f["sha256"] for f in files])
    by = f"day60 import {fmt} (export sha256 {', '.join(f['sha256'] for f in files)})"
    notes: list[str] = []
    books = Books(exports)
    items = module.read(exports, config, notes, books)
    unrated = _no_severity(module, config)
    result = normalise.run(fmt, journal, items, config, files, by, progress, books, unrated)
    said = unrated.note(getattr(module, "NO_SEVERITY_WORDS", ""))
    if said:
        notes.append(said)
    for p, f in zip(exports, files, strict=True):  # what each table was read as: encoding, delimiter, sheet
        if str(p) in config.files.found:
            f["read_as"] = config.files.found[str(p)].as_dict()
    result.findings["notes"].prepend({"ticket": None, "note": n} for n in notes)  # the reader's own, first
    return result

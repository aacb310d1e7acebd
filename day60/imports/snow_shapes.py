"""ServiceNow's other shapes of an incident export, read on their own terms.

The ServiceNow reader (``servicenow``) reads field-name CSVs with DuckDB. ServiceNow writes the
same incidents in other shapes too; their rules are data (``servicenow_shapes.yaml``):

- a list export with **label headers** (``Number``, ``Opened``, ``Priority``, ``State``,
  ``Resolved``...; the XLSX default), CSV or XLSX: its header is read as the field names;
- a **JSON answer**: the list view's JSONv2 export (``{"records": [...]}``) or the Table API's
  (``{"result": [...]}``), raw values, display values, or both (``display_value``/``value``
  pairs; JSONv2's ``dv_`` fields), streamed record by record. Offset paging repeats a record
  across pages: the copy with the latest ``sys_updated_on`` is read and every other copy is
  counted apart with the reason;
- the **incident event log**: one row per update of a ticket, each holding the ticket's fields
  after that update. The rows of one ticket are its history: its last row is the ticket, and
  the changes of state between its rows are its state changes and holds, as sys_audit's would be.

Label and JSON exports become a UTF-8 field-name CSV in a temporary folder (a stand-in, counted
as the export it stands for), so they compose with the sys_audit, task_sla, change_request and
sys_journal_field exports as a field-name CSV does. The event log is read here, in Python,
grouped by ticket (memory grows with the tickets, not the rows), into the same tickets.
"""

from __future__ import annotations

import csv
import datetime as dt
import json
import os
import tempfile
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path
from typing import Any

from day60.errors import InputError
from day60.imports import jsonstream
from day60.imports.books import Books
from day60.imports.records import RowProblem, Settings, Ticket, Unreadable, csv_header, csv_rows, peek

MAX_JSON_FIELDS = 2000  # distinct keys across an answer's records: more is not a ServiceNow table
_EPOCH = dt.datetime(1970, 1, 1)
_SEP, _END = "\x1f", "\x1e"  # as servicenow's aggregated history


@lru_cache(maxsize=1)
def rules() -> dict[str, Any]:
    """``servicenow_shapes.yaml``, shipped beside this module."""
    from day60.resources import import_rules, shipped_yaml

    return shipped_yaml(import_rules().with_name("servicenow_shapes.yaml").read_bytes())


def _is_json(p: Path) -> bool:
    head = peek(p, "EXPORT", 64).lstrip("\ufeff \t\r\n")
    return head[:1] in ("{", "[")


def renamed(header: list[str]) -> tuple[list[str], list[str]]:
    """A label header as field names (``labels``), and the labels that were read so. Only an
    incident list's label header (its ``Number`` column, no ``number`` field) is renamed: any
    other header stays as written."""
    if "number" in header or "Number" not in (h.strip() for h in header):  # not the incident list's labels
        return header, []
    labels: dict[str, str] = rules()["labels"]
    out = [labels.get(h.strip(), h) for h in header]
    read = [h for h in header if h.strip() in labels]
    if "opened_at" not in out and rules()["opened_fallback"] in out:
        out = ["opened_at" if h == rules()["opened_fallback"] else h for h in out]
        read.append("Created (as opened_at: the export has no Opened column)")
    return out, read


def is_event_log(header: list[str]) -> bool:
    log = rules()["event_log"]
    return set(log["columns"]) <= set(header) and any(c in header for c in log["updated"])


class Shapes:
    """The exports as the ServiceNow reader takes them: ``paths`` (field-name CSVs, stand-ins
    for label and JSON exports), ``logs`` (event logs), ``problems`` (records listed unreadable
    while reshaping). ``close`` removes the stand-ins."""

    def __init__(self, paths: list[Path], settings: Settings, notes: list[str], books: Books) -> None:
        self.settings, self.notes, self.books = settings, notes, books
        self.paths: list[Path] = []
        self.logs: list[tuple[Path, list[str]]] = []
        self.problems: list[Unreadable] = []
        self.folder: str | None = None
        answers: list[tuple[Path, str]] = []
        try:
            for p in paths:
                if _is_json(p):
                    key = jsonstream.envelope(p, tuple(rules()["json_envelopes"]))
                    if key is None:
                        found = jsonstream.top_keys(p)
                        raise InputError("EXPORT", f"{p} is JSON with no list of records under 'records' (the list "
                                                   "view's JSONv2 export) or 'result' (the Table API)"
                                         + (f"; its keys: {', '.join(found[:8])}" if found else ""),
                                         "save the answer as ServiceNow returns it")
                    answers.append((p, key))
                    continue
                header = csv_header(p, "EXPORT", how=settings.files)
                fields, labels = renamed(header)
                if is_event_log(fields):
                    self.logs.append((p, fields))
                elif labels:
                    self.paths.append(self._relabelled(p, fields, labels))
                else:
                    self.paths.append(p)
            if answers:
                self.paths += self._answers(answers)
        except BaseException:
            self.close()
            raise

    # ----- stand-ins ------------------------------------------------------------------------

    def _stand_in(self, p: Path) -> tuple[Path, Any]:
        if self.folder is None:
            self.folder = tempfile.mkdtemp(prefix="day60-servicenow-")
        place = Path(self.folder) / str(len(os.listdir(self.folder)))
        place.mkdir()
        out = place / p.name  # the export's own name: rows are named by it
        self.books.alias(out, p)
        return out, open(out, "w", encoding="utf-8", newline="")

    def _relabelled(self, p: Path, fields: list[str], labels: list[str]) -> Path:
        """A label export (CSV or XLSX) as a field-name CSV, row for row."""
        from day60.imports.tabular import open_table

        table = open_table(p, "EXPORT", self.settings.files)
        out, fh = self._stand_in(p)
        with fh:
            writer = csv.writer(fh, lineterminator="\n")
            writer.writerow(fields)
            sheet = table.layout.kind == "xlsx"
            for _n, row, _first, _line in table.rows:
                if sheet and len(row) < len(fields):
                    row = row + [""] * (len(fields) - len(row))
                writer.writerow(row)
        self.notes.append(f"{p.name}: label headers read as ServiceNow's field names ({', '.join(labels[:8])}"
                          f"{'...' if len(labels) > 8 else ''})")
        return out

    def _value(self, record: dict[str, Any], name: str) -> str:
        value = record.get(name)
        display = self.settings.mode == "display"
        if display and isinstance(record.get("dv_" + name), str):
            value = record["dv_" + name]
        if isinstance(value, dict):  # a reference {link, value} or a pair {display_value, value}
            value = value.get("display_value", value.get("value")) if display else value.get("value")
        if value is None:
            return ""
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, str | int | float):
            return str(value)
        return ""  # a list or object the import does not read

    def _answers(self, answers: list[tuple[Path, str]]) -> list[Path]:
        """JSON answers as field-name CSVs: pass one learns the fields and, for a number on more
        than one page, which copy is the latest; pass two writes each record once."""
        fields: dict[str, None] = {}
        latest: dict[str, tuple[tuple[Any, ...], int, int]] = {}
        digests: dict[str, int] = {}  # each number's latest copy's content, to tell a repeat from a disagreement
        ties: dict[str, tuple[int, int, int, int]] = {}  # number -> the places of two latest copies that disagree
        for f, (p, key) in enumerate(answers):
            for i, record in enumerate(jsonstream.records(p, key)):
                if not isinstance(record, dict):
                    continue
                for name in record:
                    if isinstance(name, str) and not name.startswith("dv_") and name not in fields:
                        if len(fields) >= MAX_JSON_FIELDS:
                            raise InputError("EXPORT", f"{p}: its records hold more than {MAX_JSON_FIELDS} "
                                                       "different fields, which no ServiceNow table has",
                                             "export the incident table's fields only")
                        fields[name] = None
                number = self._value(record, "number").strip()
                if number:
                    rank = (self._updated(record), f, i)
                    digest = hash(json.dumps(record, sort_keys=True, default=str))
                    if number in latest and rank[0] == latest[number][0] and digest != digests[number]:
                        ties.setdefault(number, (latest[number][1], latest[number][2], f, i))
                    if number not in latest or rank[0] > latest[number][0]:
                        digests[number] = digest
                        ties.pop(number, None)
                    if number not in latest or rank >= (latest[number][0], latest[number][1], latest[number][2]):
                        latest[number] = (self._updated(record), f, i)
        if ties:  # two copies of one time that disagree: which holds cannot be told
            number, (f1, i1, f2, i2) = next(iter(ties.items()))
            same = "the same" if latest[number][0] != (0, "") else "no"
            raise InputError("EXPORT", f"{number} is in {answers[f1][0].name} record {i1 + 1} and "
                                       f"{answers[f2][0].name} record {i2 + 1} with {same} sys_updated_on, and the "
                                       "two copies disagree, so which holds cannot be told"
                                       + (f" ({len(ties)} records so)" if len(ties) > 1 else ""),
                             "export the pages again, or leave out the file whose copy is wrong")
        names = list(fields)
        if "number" not in fields:
            raise InputError("EXPORT", f"{answers[0][0]}: its records have no 'number' field",
                             "export the incident table with its number field")
        out = []
        for f, (p, key) in enumerate(answers):
            stand_in, fh = self._stand_in(p)
            with fh:
                writer = csv.writer(fh, lineterminator="\n")
                writer.writerow(names)
                for i, record in enumerate(jsonstream.records(p, key)):
                    where = f"{p.name} record {i + 1}"
                    if not isinstance(record, dict):
                        self.books.read(p)
                        self.problems.append(Unreadable(where, None, "is not a record (an object of fields)",
                                                        self.books.key(p)))
                        continue
                    number = self._value(record, "number").strip()
                    won = latest.get(number)
                    if number and won is not None and (won[1], won[2]) != (f, i):
                        self.books.read(p)
                        self.books.skip(self.books.key(p), "a copy of a record another page or file holds too "
                                                           "(offset paging repeats rows): the copy with the latest "
                                                           "sys_updated_on is read")
                        continue
                    writer.writerow([" ".join(self._value(record, n).split("\x00")) for n in names])
            out.append(stand_in)
        return out

    def _updated(self, record: dict[str, Any]) -> tuple[Any, ...]:
        """The record's sys_updated_on as a sortable value (parsed where the date format reads it)."""
        raw = self._value(record, "sys_updated_on").strip()
        fmt = self.settings.date_format or "%Y-%m-%d %H:%M:%S"
        try:
            return (1, dt.datetime.strptime(raw, fmt).isoformat())
        except ValueError:
            return (0, raw)

    def close(self) -> None:
        import shutil

        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)
            self.folder = None

    # ----- the event log --------------------------------------------------------------------

    def read_logs(self, run: Any, fmt: str, sn: Any) -> Iterator[Ticket | Unreadable]:
        """Each event log's tickets: per ticket its last row (highest sys_mod_count, then the
        latest in the file) is the ticket, and the changes between consecutive rows its history.
        ``sn``: the ServiceNow reader (its KEYS, PAUSES and _ticket), handed in by that reader,
        which imports this module: importing it back would make a circle."""
        for p, fields in self.logs:
            yield from self._log(p, fields, run, fmt, sn)

    def _log(self, p: Path, fields: list[str], run: Any, fmt: str, sn: Any) -> Iterator[Ticket | Unreadable]:
        log = rules()["event_log"]
        missing = set(log["missing"])
        words: dict[str, dict[str, str]] = log["states"]
        updated = next(c for c in log["updated"] if c in fields)
        key = self.books.key(p)
        settings = self.settings
        sev = settings.column("severity", "priority") or "priority"
        state_col = "incident_state" if "incident_state" in fields else "state"
        mapped = [c for c in (settings.column(k) for k in sn.KEYS) if c]
        keep = [c for c in dict.fromkeys(["number", sev, state_col, "incident_state", "state", "sys_mod_count", updated,
                                          "opened_at", "resolved_at", "closed_at", "sys_class_name", "hold_reason",
                                          "calendar_stc", "business_stc", "close_code", "reopen_count",
                                          settings.column("change", "rfc") or "rfc", *mapped]) if c in fields]
        if sev not in fields:
            raise InputError("EXPORT", f"{p} lacks the column {sev} of an incident event log",
                             "export it, or map the severity column")
        _, rows = csv_rows(p, "EXPORT", used=keep, how=settings.files, rename=lambda h: (fields, None))
        tickets: dict[str, dict[str, Any]] = {}  # number -> {"last": row, "trail": [(rank, state, reason, at)]}
        for n, row in rows:
            self.books.read(p)
            if "\0problem" in row:
                yield Unreadable(f"{p.name} row {n}", None, row["\0problem"], key)
                continue
            row = {k: ("" if (v or "").strip() in missing else v) for k, v in row.items() if k in keep}
            number = (row.get("number") or "").strip()
            if not number:
                yield Unreadable(f"{p.name} row {n}", None, "number is empty", key)
                continue
            mods = (row.get("sys_mod_count") or "").strip()
            when = (row.get(updated) or "").strip()
            # Ordered by sys_mod_count, then the update's time (a log re-sorted in a spreadsheet
            # keeps both), then the file: two rows tied on both are told apart below or refused.
            us = _micros(when, fmt)
            rank = (int(mods) if mods.isdigit() else -1, -1 if us is None else us, n)
            word = " ".join((row.get(state_col) or "").replace(_SEP, " ").replace(_END, " ").split())
            said = words.get(word, {"state": word})
            slot = tickets.setdefault(number, {"last": None, "rank": None, "trail": [], "seen": {}})
            digest = hash(tuple(sorted(row.items())))
            tie = slot["seen"].setdefault(rank[:2], (n, digest, word)) if us is not None else (n, digest, word)
            if tie[1] != digest:
                raise InputError("EXPORT", f"{p.name}: {number} has two rows of sys_mod_count {mods or '(empty)'} "
                                           f"updated at {when or '(no time)'} that disagree (row {tie[0]}: "
                                           f"{tie[2] or 'no state'}; row {n}: {word or 'no state'}), so which is "
                                           "the ticket's later update cannot be told",
                                 "remove the row that is wrong, or export the log again")
            slot["trail"].append((rank, said.get("state", word), said.get("hold_reason", ""), when, n))
            if slot["rank"] is None or rank > slot["rank"]:
                slot["last"], slot["rank"], slot["said"] = row, rank, said
        pauses_of = {**sn.PAUSES, **settings.pauses}
        clocks = ("detected", "partner_notice", "communicated", "acknowledged", "restored")
        times_cols = ["opened_at", "resolved_at", "closed_at"] + [c for c in map(settings.column, clocks) if c]
        for number, slot in tickets.items():
            row: dict[str, Any] = dict(slot["last"])
            row["state"], row["incident_state"] = slot["said"].get("state", ""), ""
            row["hold_reason"] = slot["said"].get("hold_reason", "")
            for c in times_cols:
                row[c + "\0us"] = _micros(row.get(c), fmt)
            trail = sorted(slot["trail"])
            history, bad = _history(trail, fmt)
            if not row.get("resolved_at", "").strip() and run.rules.status(row["state"]) == "resolved":
                since = _resolved_since(trail, run.rules, fmt)
                if since is not None:  # resolved_at empty: the row from which the log shows it over
                    row["resolved_at"], row["resolved_at\0us"] = since[1], _micros(since[1], fmt)
                    slot["resolved_note"] = (f"resolved_at is empty: resolved at row {since[0]}'s {updated} "
                                             f"{since[1]}, the update from which the log shows it {since[2]}")
            for n, raw in bad:
                yield Unreadable(f"{p.name} row {n}", number, f"{updated}: {raw[:40]!r} is not a date and time in "
                                                             f"the form {fmt}: {date_hint(raw)}; that update is left "
                                                             "out of the history", key)
            row["\0history"] = history
            where = f"{p.name} {number}"
            try:
                t = sn._ticket(row, where, run.times, settings, pauses_of, True, fmt, run)
            except RowProblem as exc:
                yield Unreadable(where, number, str(exc), key, len(slot["trail"]) - len(bad))
                continue
            t.file, t.attached = key, {key: len(slot["trail"]) - 1 - len(bad)} if len(slot["trail"]) > 1 else {}
            if slot.get("resolved_note"):
                t.notes.append(slot["resolved_note"])
            if len(slot["trail"]) > 1:
                t.notes.append(f"{len(slot['trail'])} rows of the event log: the last is the ticket, the changes "
                               "between them its history")
            yield t


HINTED = ("%d-%m-%Y %H:%M", "%d/%m/%Y %H:%M", "%m-%d-%Y %H:%M", "%m/%d/%Y %H:%M", "%d.%m.%Y %H:%M",
          "%d-%m-%Y %H:%M:%S", "%d/%m/%Y %H:%M:%S", "%m-%d-%Y %H:%M:%S", "%m/%d/%Y %H:%M:%S", "%d.%m.%Y %H:%M:%S",
          "%Y-%m-%d %H:%M", "%Y-%m-%d %H:%M:%S", "%Y/%m/%d %H:%M:%S")  # the user date formats ServiceNow offers


def date_hint(raw: str) -> str:
    """The fix for a display time the stated form does not read: the ``--date-format`` flag, with
    the forms among ServiceNow's user date formats that read this value (a hint for the user to
    check, never used to read it: 03-04 reads both ways)."""
    fits = []
    for form in HINTED:
        try:
            dt.datetime.strptime(raw.strip(), form)
        except ValueError:
            continue
        fits.append(form)
    said = " or ".join(repr(f) for f in fits[:2])
    return ("state the export's form with --date-format" + (f" ({said} reads it)" if fits else "")
            + " or the map's [times] format")


def _micros(raw: str | None, fmt: str) -> int | None:
    text = (raw or "").strip()
    if not text:
        return None
    try:
        return (dt.datetime.strptime(text, fmt) - _EPOCH) // dt.timedelta(microseconds=1)
    except ValueError:
        return None


def _history(trail: list[tuple[Any, str, str, str, int]], fmt: str) -> tuple[str, list[tuple[int, str]]]:
    """The changes between consecutive rows (ordered by sys_mod_count, then the update's time), as
    the ServiceNow reader's aggregated sys_audit history: (microseconds, field, old, new), the
    first row's state and hold reason entered at that row's own update time; and the rows whose
    update time cannot be read."""
    entries, bad = [], []
    prev_state, prev_reason = "", ""  # the first row's state holds from its own update, as every later row's
    for _rank, state, reason, raw, n in trail:
        us = _micros(raw, fmt)
        if us is None:
            bad.append((n, raw))
            continue
        if state != prev_state:
            entries.append(f"{us}{_SEP}state{_SEP}{prev_state}{_SEP}{state}")
        if reason != prev_reason:
            entries.append(f"{us}{_SEP}hold_reason{_SEP}{prev_reason}{_SEP}{reason}")
        prev_state, prev_reason = state, reason
    return _END.join(entries), bad


def _resolved_since(trail: list[tuple[Any, str, str, str, int]], rules: Any, fmt: str) -> tuple[int, str, str] | None:
    """The row (its number, update time and state) from which the ordered rows show the ticket over
    (resolved or closed) without a re-open after it: the first row's own where it is already so.
    None where that row's update time cannot be read."""
    since = None
    for _rank, state, _reason, raw, n in trail:
        if rules.status(state) == "open":
            since = None
        elif since is None:
            since = (n, raw, state)
    if since is None or _micros(since[1], fmt) is None:
        return None
    return since

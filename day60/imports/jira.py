"""Jira Service Management: the issue CSV, the changelog JSON and the SLA JSON.

The CSV (``Issue key``, ``Created``, ``Resolved``, ``Priority``, ``Status``, and ``Issue id``,
``Issue Type``, ``Resolution``, ``Status Category``, ``Status Category Changed`` and ``Comment``
where exported) holds times in the exporting user's zone and date format (by default
``02/Mar/26 9:15 AM``), so the zone must be stated. Whether an issue is done is its Status
Category (``states.yaml``; its status where the export has no category, a status no rule knows
then refusing the import), with the map's [states] words; a done issue with no time for its end
is "closed, time not evidenced".
Jira repeats a column for each value of a multi-value field (``Comment``, issue links): those
are read as lists; any other column the import reads that appears twice is refused.

The changelog comes as the REST search returns it with ``expand=changelog`` (``issues[].key``,
``changelog.histories[]``), as the per-issue changelog page (``values[]``, the issue named in
its ``self`` link) or as the bulk fetch (``issueChangeLogs[].issueId``, ``changeHistories``).
Each history's ``items[]`` with ``field`` "status" give the status intervals ("Waiting for
customer" is time waiting on the partner; the map's [pauses] names others); with ``field``
"resolution", a value set is a resolution and a value cleared a re-open. A changelog the pages
given hold only part of (fewer histories than its ``total``: a search answer embeds the first
page only) leaves its issue unreadable, naming the issue's own changelog to export; so does a
bulk page whose ``nextPageToken`` says more pages follow, unless the last page is given too.

The SLA JSON is the Service Management answer to ``/rest/servicedeskapi/request/{key}/sla``:
either the raw answer (``values[]``, the request named in its ``_links.self``) or such answers
keyed by issue key. The SLA named in the map's [sla] name (default "Time to resolution") is
the vendor's own clock; its calendar (24x7 or business hours) is the map's [sla] calendar, or
read from the record's ``withinCalendarHours``, and it is compared with our figure on that
calendar.

Detection, partner notice, communication, acknowledgement, the monitoring-confirmed restore
and its check, an agreed change window (``change_start``/``change_end``, by default JSM's
"Change start date" and "Change completion date" fields) are columns the map names.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from day60.errors import InputError
from day60.imports import jsonstream, states
from day60.imports.books import Books
from day60.imports.locales import LocalisedTimes, jira_header
from day60.imports.records import (
    Pause,
    RowProblem,
    Settings,
    Ticket,
    Times,
    Unmatched,
    Unreadable,
    VendorClock,
    check_columns,
    confirm,
    csv_rows,
    require_columns,
    title_row,
)

PAUSES = {"Waiting for customer": "wait", "Pending": "kept"}
CATEGORY, CATEGORY_CHANGED = "Status Category", "Status Category Changed"  # Jira's own columns
SLA_NAME = "Time to resolution"
REST_CATEGORIES = {"new": "To Do", "indeterminate": "In Progress", "done": "Done"}  # statusCategory.key
DATE_FORMAT = "%d/%b/%y %I:%M %p"
CHANGE_FIELDS = ("Custom field (Change start date)", "Custom field (Change completion date)")
KEYS = ("severity", "detected", "partner_notice", "communicated", "acknowledged", "restored", "check", "outcome",
        "resolved_by", "change_start", "change_end", "change_link", "notes")
SEVERITY_FIELD = "Priority"  # the field read for severity unless the map's [columns] names another
DESCRIPTION = ("issue CSV (Issue key, Created, Resolved, Priority, Status, Resolution, Comment) with --zone, the "
               "changelog JSON (search with expand=changelog, or per issue) and the SLA JSON (the "
               "/request/{key}/sla answer)")
STREAMED = ("issues", "issueChangeLogs")  # answers read record by record; the others hold one issue each
REST_COLUMNS = ["Issue key", "Issue id", "Issue Type", "Created", "Resolved", "Status", CATEGORY, CATEGORY_CHANGED,
                "Resolution", "Priority"]  # rest_row's, as the CSV's header
_REQUEST = re.compile(r"/request/([^/?#]+)/sla")
_ISSUE = re.compile(r"/issue/([^/?#]+)/changelog")


def _load_json(p: Path) -> Any:
    from day60.files import loads_json, read_bytes
    from day60.imports.records import MAX_JSON_EXPORT_BYTES

    return loads_json(read_bytes(p, "EXPORT", "a JSON export", MAX_JSON_EXPORT_BYTES), "EXPORT", "a JSON export",
                      str(p))


def _kind(doc: Any, p: Path) -> tuple[str, Any]:
    """Which Jira answer a JSON file is; anything else is refused by name, never ignored."""
    if isinstance(doc, dict) and isinstance(doc.get("issues"), list):
        return "changelog", [(i.get("key") if isinstance(i, dict) else None,
                              ((i.get("changelog") or {}) if isinstance(i, dict) else {}).get("histories"))
                             for i in doc["issues"]]
    if isinstance(doc, dict) and isinstance(doc.get("issueChangeLogs"), list):
        logs = doc["issueChangeLogs"]
        return "changelog", [(("id", str(i.get("issueId"))) if isinstance(i, dict) else None,
                              i.get("changeHistories") if isinstance(i, dict) else None) for i in logs]
    if isinstance(doc, dict) and isinstance(doc.get("values"), list):
        values = doc["values"]
        if values and all(isinstance(v, dict) and "items" in v for v in values):
            m = _ISSUE.search(str(doc.get("self", "")))
            if not m:
                raise InputError("EXPORT", f"{p} is a changelog page whose self link names no issue",
                                 "save each issue's changelog as the API returns it, with its self link")
            return "changelog", [(m.group(1), values)]
        return "sla", {_request_of(doc, p): doc}
    if isinstance(doc, dict) and doc and all(isinstance(v, dict) and isinstance(v.get("values"), list)
                                             for v in doc.values()):
        return "sla", doc
    raise InputError("EXPORT", f"{p} is not a JSON export the jira format reads",
                     "it takes: the search answer with expand=changelog ('issues'), a changelog page ('values' "
                     "with items), the bulk changelog ('issueChangeLogs'), or the /request/{key}/sla answer "
                     "('values' with SLA names), alone or keyed by issue key")


def _name(value: Any, key: str = "name") -> str:
    """A field the REST answer writes as an object ({"name": ...}), or as text, or null."""
    if isinstance(value, dict):
        value = value.get(key)
    return value.strip() if isinstance(value, str) else ""


def rest_row(issue: Any) -> dict[str, Any] | None:
    """An issue of the REST search answer as the CSV's row, in Jira's English column names:
    Status Category from the status category's ``key`` (``new``, ``indeterminate``, ``done``:
    the same in every language Jira speaks), so a done status in any language is done."""
    if not isinstance(issue, dict) or not isinstance(issue.get("key"), str) or not isinstance(issue.get("fields"),
                                                                                           dict):
        return None
    f = issue["fields"]
    status = f.get("status") if isinstance(f.get("status"), dict) else {}
    category = status.get("statusCategory") if isinstance(status.get("statusCategory"), dict) else {}
    key = _name(category, "key")
    return {"Issue key": issue["key"], "Issue id": str(issue.get("id") or ""), "Issue Type": _name(f.get("issuetype")),
            "Created": f.get("created"), "Resolved": f.get("resolutiondate"), "Status": _name(status),
            CATEGORY: REST_CATEGORIES.get(key, _name(category)), CATEGORY_CHANGED: f.get("statuscategorychangedate"),
            "Resolution": _name(f.get("resolution")), "Priority": _name(f.get("priority")),
            "\0updated": f.get("updated") if isinstance(f.get("updated"), str) else ""}


def _request_of(doc: dict[str, Any], p: Path) -> str:
    links = [str((doc.get("_links") or {}).get("self", ""))] + \
        [str((v.get("_links") or {}).get("self", "")) for v in doc["values"] if isinstance(v, dict)]
    for link in links:
        m = _REQUEST.search(link)
        if m:
            return m.group(1)
    raise InputError("EXPORT", f"{p} is an SLA answer whose links name no request",
                     "save it as the API returns it (with _links.self), or key it by issue key")


def read(paths: list[Path], settings: Settings, notes: list[str], books: Books) -> Iterator[Ticket | Unreadable
                                                                                          | Unmatched]:
    check_columns(settings, KEYS, "jira")
    rules = states.rules("jira", settings.states)
    csv_times = _CsvTimes(Settings(settings.zone, settings.date_format or DATE_FORMAT), how="state the exporting "
                          "user's time zone with --zone (Jira writes CSV times in it, without an offset)")
    api_times = Times(settings)
    history = _History()
    sla: dict[str, Any] = {}
    # Which file each issue's changelog and SLA answer came from, and how many records: what the
    # ticket they complete settles, or what is listed unmatched.
    held: dict[Any, dict[str, int]] = {}
    sla_from: dict[str, str] = {}
    issues = []
    rest: list[tuple[Path, str]] = []  # search answers: their issues are the tickets where no CSV is given
    latest: dict[str, tuple[dt.datetime, int, int]] = {}  # each issue's latest copy among the search answers
    digests: dict[str, int] = {}  # what the import reads of each latest copy: a repeat or a disagreement
    ties: dict[str, tuple[int, int, int, int]] = {}  # issue -> the places of two latest copies that disagree
    for p in paths:
        key = books.key(p)
        if p.suffix.lower() != ".json":
            issues.append(p)
            continue
        streamed = jsonstream.envelope(p, STREAMED)
        if streamed == "issues":  # the search answer, streamed issue by issue
            yield from _search_pass(p, key, len(rest), api_times, history, held, latest, books, digests, ties)
            rest.append((p, key))
            continue
        if streamed == "issueChangeLogs":  # the bulk changelog, streamed
            token = jsonstream.top_value(p, "nextPageToken")  # null on the last page only
            if token is None:
                history.last_bulk = True
            for i, log in enumerate(jsonstream.records(p, streamed)):
                books.read(p)
                ref = ("id", str(log.get("issueId"))) if isinstance(log, dict) else None
                yield from _changelog(ref, log.get("changeHistories") if isinstance(log, dict) else None,
                                      f"{p.name} issue {i + 1}", key, api_times, history, held)
                if ref is not None and token is not None and token is not jsonstream.ABSENT:
                    history.bulk.setdefault(ref, (p.name, str(token)))
            continue
        raw = _load_json(p)  # one issue's changelog page, or SLA answers: read whole
        kind, doc = _kind(raw, p)
        if kind == "sla":
            books.read(p, len(doc))
            for ref in doc:
                if ref in sla_from:  # the same request in two files: the later answer is read
                    books.skip(sla_from[ref], f"an SLA answer given again in {p.name}")
                sla_from[ref] = key
            sla.update(doc)
            continue
        books.read(p, len(doc))
        for i, (ref, histories) in enumerate(doc):
            yield from _changelog(ref, histories, f"{p.name} issue {i + 1}", key, api_times, history, held,
                                  raw if len(doc) == 1 and isinstance(raw.get("values"), list) else None)
    if not issues and not rest:
        raise InputError("EXPORT", "no issue CSV was given", "give the Jira Service Management CSV export, or "
                                                             "the search answer with its fields (issues[].fields)")
    if not issues and ties:  # two copies of one time that disagree: which holds cannot be told
        ref, (f1, i1, f2, i2) = next(iter(ties.items()))
        raise InputError("EXPORT", f"{ref} is in {rest[f1][0].name} issue {i1 + 1} and {rest[f2][0].name} issue "
                                   f"{i2 + 1} with {_same(latest[ref][0])}, and the two copies disagree (status, "
                                   "resolution or times), so which holds cannot be told"
                                   + (f" ({len(ties)} issues so)" if len(ties) > 1 else ""),
                         "search again, or leave out the file whose copy is wrong")
    if not issues:  # the REST search answer alone: its issues are the tickets, their times as written
        yield from _rest_tickets(rest, latest, api_times, settings, history, sla, held, sla_from, rules, books)
        for ref, files in held.items():
            for other, count in files.items():
                yield Unmatched(other, ref if isinstance(ref, str) else f"issue id {ref[1]}", count, "changelog")
        for ref, other in sla_from.items():
            yield Unmatched(other, ref, 1, "SLA")
        return
    if not history:
        notes.append("no changelog export was given: status intervals and re-opens cannot be rebuilt, so no "
                     "waiting on the partner is excluded and no earlier resolution is known")
    if settings.sla.get("calendar") is None and sla:
        notes.append("the map's [sla] calendar is not stated: each SLA's calendar is read from its record "
                     "(withinCalendarHours), and one that does not say is not compared")
    pauses_of = {**PAUSES, **settings.pauses}
    sev = settings.column("severity", SEVERITY_FIELD)
    for p in issues:
        from day60.imports.records import csv_header

        key = books.key(p)
        header = csv_header(p, "EXPORT", how=settings.files, rename=jira_header)
        cols = _columns(settings, header)
        used = ["Issue key", "Created", "Resolved", "Status", sev] + [c for c in cols.values() if c] + \
            [c for c in ("Issue id", "Issue Type", "Resolution", CATEGORY, CATEGORY_CHANGED) if c in header]
        many = [c for k, c in cols.items() if k in ("notes", "change_link") and c]
        header, rows = csv_rows(p, "EXPORT", used=used, many=many, free=[cols.get("check") or "\0"],
                                how=settings.files, rename=jira_header)
        found = settings.files.found.get(str(p))  # how the file was read: a workbook's sheets, for a refusal
        if not {"Issue key", "Created", "Status"} & set(header):  # not one of Jira's English names: its language
            raise InputError("EXPORT", f"{p}'s header is not in a language the jira format reads (English, Spanish "
                                       f"or German): it has none of Issue key, Created, Status (it has: "
                                       f"{', '.join(header[:6])}{'...' if len(header) > 6 else ''})",
                             "export it again with Jira's language set to English, or read it with the csv format "
                             "and a map naming its columns (--list-formats)" + title_row(header, found))
        require_columns(header, ["Issue key", "Created", "Resolved", "Status", sev] +
                        [c for k, c in cols.items() if c and k in settings.columns], p, "EXPORT", "a Jira CSV export",
                        found)
        tickets, changes = [], {}
        for n, row in rows:
            books.read(p)
            where = f"{p.name} row {n}"
            if "\0problem" in row:
                yield Unreadable(where, None, row["\0problem"], key)
                continue
            if (row.get("Issue Type") or "").strip() == "Change":
                ref = row["Issue key"].strip()
                changes[ref] = _change(row, cols, csv_times, settings)
                books.skip(key, "a Change issue: read for its window, never a ticket")
                for other, count in _take(held, sla_from, ref, row).items():
                    books.skip(other, "records of a Change issue", count)
                continue
            tickets.append((where, row))
        if changes:
            notes.append(f"{len(changes)} change issue(s) read for their windows, not as tickets: "
                         f"{', '.join(sorted(changes)[:8])}")
        if CATEGORY not in header:
            _refuse_unknown([(row["Issue key"].strip(), row["Status"]) for _, row in tickets], rules, pauses_of, p.name)
        for where, row in tickets:
            answer_file = _sla_file(sla_from, row["Issue key"].strip(), row)
            attached = _take(held, sla_from, row["Issue key"].strip(), row)
            refused: list[str] = []
            try:
                t = _ticket(row, where, csv_times, settings, cols, history, sla, pauses_of, changes, rules,
                            CATEGORY in header, refused)
            except RowProblem as exc:
                yield Unreadable(where, row.get("Issue key"), str(exc), key, 1)
                for other, count in attached.items():
                    books.add(other, "unreadable", count)
                continue
            t.file, t.attached = key, attached
            yield t
            yield from _refuse_sla(t, refused, answer_file)
    if csv_times.ambiguous():
        notes.append(csv_times.ambiguous())
    for ref, files in held.items():  # changelogs of issues the CSV does not hold
        for other, count in files.items():
            yield Unmatched(other, ref if isinstance(ref, str) else f"issue id {ref[1]}", count, "changelog")
    for ref, other in sla_from.items():
        yield Unmatched(other, ref, 1, "SLA")


# Forms a Jira CSV's times are found in: Jira's default, and what a spreadsheet re-saving it writes
# in the day-first and month-first regions. Named in the fix for a time the stated form does not read.
HINTED = (DATE_FORMAT, "%d/%m/%Y %H:%M", "%m/%d/%Y %H:%M", "%d/%m/%Y %H:%M:%S", "%m/%d/%Y %I:%M %p",
          "%d/%m/%y %H:%M", "%m/%d/%y %I:%M %p", "%d.%m.%Y %H:%M", "%Y-%m-%d %H:%M", "%Y-%m-%d %H:%M:%S")


class _CsvTimes(LocalisedTimes):
    """The CSV's times, read in the stated form. A time that form does not read names the fix
    (``--date-format``, or the map's ``[times] format``) and the usual forms that do read it. A
    stated form that reads the day and the month as numbers is watched: where no time read has a
    day above 12, every one would read as well with the two swapped, and the import says so."""

    def __init__(self, settings: Settings, utc: bool = False, how: str = "") -> None:
        super().__init__(settings, utc, how)
        fmt = self.fmt or ""
        numeric = "%d" in fmt and "%m" in fmt
        self.swapped = fmt.replace("%d", "\0").replace("%m", "%d").replace("\0", "%m") if numeric else None
        self.settled, self.first = False, ""

    def read(self, text: str | None, column: str) -> dt.datetime | None:
        try:
            value = super().read(text, column)
        except RowProblem as exc:
            if "does not match the date format" not in str(exc) or not isinstance(text, str):
                raise
            fits = [form for form in HINTED if _fits(text.strip(), form)]
            said = " or ".join(repr(f) for f in fits[:2])
            raise RowProblem(f"{exc}: state the export's date format with --date-format or the map's [times] "
                             f"format" + (f" ({said} reads it; where both do, the order of day and month decides)"
                                          if fits else "")) from None
        if value is not None and self.swapped and not self.settled and isinstance(text, str):
            self.first = self.first or text.strip()
            self.settled = not _fits(text.strip(), self.swapped)
        return value

    def ambiguous(self) -> str:
        """What to say where every time read would read as well with day and month swapped."""
        if self.swapped is None or self.settled or not self.first:
            return ""
        read = dt.datetime.strptime(self.first, self.fmt or "")
        other = dt.datetime.strptime(self.first, self.swapped)
        return (f"the date format {self.fmt!r} reads the day and the month as numbers, and no time in the export "
                f"has a day above 12, so each reads as well with the two swapped ({self.first!r}, read as "
                f"{read:%d %B %Y}, would be {other:%d %B %Y}): check the order against a ticket whose date you "
                "know, and state the other with --date-format (or the map's [times] format) if it is the export's")


def _fits(text: str, form: str) -> bool:
    try:
        dt.datetime.strptime(text, form)
    except ValueError:
        return False
    return True


def _search_pass(p: Path, key: str, f: int, times: Times,
                 history: dict[Any, list[tuple[dt.datetime, str, str | None, str | None]]],
                 held: dict[Any, dict[str, int]], latest: dict[str, tuple[dt.datetime, int, int]],
                 books: Books, digests: dict[str, int], ties: dict[str, tuple[int, int, int, int]]
                 ) -> Iterator[Unreadable]:
    """Pass one over a search answer, streamed: each issue's change histories, the count of its
    records, and which copy of it (file ``f``, item) is the latest, by ``fields.updated``; two
    latest copies of one time that differ in what the import reads are put in ``ties``."""
    for i, issue in enumerate(jsonstream.records(p, "issues")):
        books.read(p)
        ref = issue.get("key") if isinstance(issue, dict) else None
        log = issue.get("changelog") if isinstance(issue, dict) else None
        histories = log.get("histories") if isinstance(log, dict) else None
        if isinstance(ref, str) and histories is None and (log is None or isinstance(log, dict)):
            histories = []  # a search answer without expand=changelog: the issue, no history
        yield from _changelog(ref, histories, f"{p.name} issue {i + 1}", key, times, history, held, log, True)
        row = rest_row(issue)
        if row is None or not isinstance(ref, str) or not isinstance(histories, list):
            continue
        try:
            when = times.read(row["\0updated"] or None, "updated") or dt.datetime.min.replace(tzinfo=dt.UTC)
        except RowProblem:
            when = dt.datetime.min.replace(tzinfo=dt.UTC)
        ref = ref.strip()
        digest = hash(json.dumps({k: v for k, v in row.items() if k != "\0updated"}, sort_keys=True, default=str))
        if ref in latest and when == latest[ref][0] and digest != digests[ref]:
            ties.setdefault(ref, (latest[ref][1], latest[ref][2], f, i))  # same time, not the same copy
        if ref not in latest or when > latest[ref][0]:
            digests[ref] = digest
            ties.pop(ref, None)
        if ref not in latest or (when, f, i) >= latest[ref]:
            latest[ref] = (when, f, i)


def _same(when: dt.datetime) -> str:
    return "no fields.updated" if when == dt.datetime.min.replace(tzinfo=dt.UTC) else "the same fields.updated"


class _History(dict[Any, list[tuple[dt.datetime, str, str | None, str | None]]]):
    """Each issue's status and resolution changes, and how much of its changelog was given.

    Jira pages a changelog: the one a search answer embeds with ``expand=changelog`` holds at most
    its first page (``maxResults`` of ``total`` histories; the rest are on the issue's own
    ``/changelog``), and the per-issue answer is paged the same way. An issue whose changelog is
    known to be cut (a page holding fewer histories than its ``total``, with no page given that
    covers the rest) may miss a wait, a change window or a re-open, so its figure cannot be stated
    as measured: ``cut`` says so for its ticket."""

    def __init__(self) -> None:
        super().__init__()
        self.whole: set[Any] = set()  # issues one page of whose changelog held every history
        self.parts: dict[Any, list[tuple[int, int, int]]] = {}  # issue -> pages short of total: (start, held, total)
        # The bulk changelog pages across issues, with no total: a page whose nextPageToken is set says
        # more follow, and any issue on it may go on there. Issue -> (page, token); and whether the last
        # page (nextPageToken null) was given.
        self.bulk: dict[Any, tuple[str, str]] = {}
        self.last_bulk = False

    def page(self, ref: Any, log: Any, held: int, streamed: bool = False) -> None:
        """One page of an issue's changelog, ``held`` histories of it. A whole page in a streamed
        search answer is kept only where a part of the same changelog was seen before it (most
        issues' changelogs are whole: a million of them are not held to say so)."""
        if not isinstance(log, dict):
            return
        total, start = log.get("total"), log.get("startAt")
        if not isinstance(total, int) or isinstance(total, bool) or total < 0:
            return  # a page that states no total (the bulk fetch, a hand-made file): nothing is known
        if not isinstance(start, int) or isinstance(start, bool):
            start = 0  # a page that does not say where it starts: read as the first
        if start <= 0 and held >= total:
            if not streamed or ref in self.parts:
                self.whole.add(ref)
        else:
            self.parts.setdefault(ref, []).append((max(0, start), held, total))

    def bulk_cut(self, *refs: Any) -> tuple[str, str] | None:
        """(page, nextPageToken) for an issue on a bulk changelog page that says more pages follow
        where no last page was given; None otherwise. A page does not name its own token, so a middle
        page left out while the last is given cannot be told (docs/imports.md says so)."""
        if self.last_bulk:
            return None
        return next((self.bulk[r] for r in refs if r in self.bulk), None)

    def cut(self, *refs: Any) -> tuple[int, int] | None:
        """(histories given, histories the changelog holds) for an issue whose changelog is known
        to be cut; None where it is whole or says nothing."""
        if any(r in self.whole for r in refs):
            return None
        pages = sorted(p for r in refs for p in self.parts.get(r, []))
        if not pages:
            return None
        total, reach = max(p[2] for p in pages), 0
        for start, held, _total in pages:
            if start <= reach:
                reach = max(reach, start + held)
        return None if reach >= total else (min(reach, total), total)


def _changelog(ref: Any, histories: Any, where: str, key: str, times: Times,
               history: dict[Any, list[tuple[dt.datetime, str, str | None, str | None]]],
               held: dict[Any, dict[str, int]], page: Any = None, streamed: bool = False) -> Iterator[Unreadable]:
    """One issue's record of a changelog answer: held for its ticket, its histories read, and
    ``page`` (the changelog's paging: startAt, maxResults, total) kept where it says how much of
    the changelog the record holds."""
    if not isinstance(ref, str | tuple) or not isinstance(histories, list):
        yield Unreadable(where, None, "is not an issue with a key and its change histories", key)
        return
    ref = ref.strip() if isinstance(ref, str) else ref
    slot = held.setdefault(ref, {})
    slot[key] = slot.get(key, 0) + 1
    if isinstance(history, _History):
        history.page(ref, page, len(histories), streamed)
    yield from _history(ref, histories, where, times, history, key)


def _rest_tickets(rest: list[tuple[Path, str]], latest: dict[str, tuple[dt.datetime, int, int]], times: Times,
                  settings: Settings, history: dict[Any, list[tuple[dt.datetime, str, str | None, str | None]]],
                  sla: dict[str, Any], held: dict[Any, dict[str, int]], sla_from: dict[str, str],
                  rules: states.Rules, books: Books) -> Iterator[Ticket | Unreadable]:
    """The search answers' issues as tickets, streamed again (pass two). Offset (startAt) and
    token pages over a changing search repeat an issue: the copy with the latest ``fields.updated``
    is the ticket and every copy is counted with it (its changelog histories are read once)."""
    pauses_of = {**PAUSES, **settings.pauses}
    cols = _columns(settings, REST_COLUMNS)
    unknown: list[tuple[str, str]] = []  # issues whose status has no category and is not a word the rules know
    for f, (p, key) in enumerate(rest):
        for i, issue in enumerate(jsonstream.records(p, "issues")):
            where = f"{p.name} issue {i + 1}"
            row = rest_row(issue)
            if row is None:
                continue  # its record is listed unreadable, or held for a ticket (unmatched)
            ref = row["Issue key"].strip()
            if ref not in latest or latest[ref][1:] != (f, i):
                continue  # an earlier copy: counted with the latest (its changelog record is held under the key)
            if not row[CATEGORY] and _unknown(row["Status"], rules, pauses_of):
                unknown.append((ref, row["Status"]))
                continue  # the import is refused below, naming every such issue
            answer_file = _sla_file(sla_from, ref, row)
            attached = _take(held, sla_from, ref, row)
            attached[key] = attached.get(key, 0) - 1  # the issue's own record is the ticket's
            refused: list[str] = []
            try:
                t = _ticket(row, where, times, settings, cols, history, sla, pauses_of, {}, rules, bool(row[CATEGORY]),
                            refused)
            except RowProblem as exc:
                yield Unreadable(where, ref, str(exc), key, 1)
                for other, count in attached.items():
                    if count:
                        books.add(other, "unreadable", count)
                continue
            t.file, t.attached = key, {k: n for k, n in attached.items() if n}
            yield t
            yield from _refuse_sla(t, refused, answer_file)
    _refuse_unknown(unknown, rules, pauses_of, "the search answer")


def _unknown(status: str | None, rules: states.Rules, pauses_of: dict[str, str]) -> bool:
    """A status, in an issue with no Status Category, that no rule names done or not done: the
    shipped done and open statuses (``states.yaml``), the map's [states] words and its [pauses]."""
    word = (status or "").strip()
    known = rules.done_statuses | rules.open | rules.resolved | rules.closed | rules.deleted
    return bool(word) and word not in known and word not in pauses_of


def _refuse_unknown(issues: list[tuple[str, str]], rules: states.Rules, pauses_of: dict[str, str],
                    where: str) -> None:
    """Refuse the import where an issue with no Status Category is in a status no rule names:
    whether it is done cannot be told (``resolved`` in lower case, a language's own word, a custom
    status), and reading it as open would turn a restore into an open incident and invent a
    re-open. Only issues that have no category are checked."""
    bad = [(ref, status.strip()) for ref, status in issues if _unknown(status, rules, pauses_of)]
    if not bad:
        return
    named = ", ".join(f"{ref} {status!r}" for ref, status in bad[:5]) + (f" and {len(bad) - 5} more"
                                                                         if len(bad) > 5 else "")
    raise InputError("EXPORT", f"{where}: {len(bad)} issue(s) in a status the jira format does not know, with no "
                               f"Status Category to say whether it is done ({named}): read either way it would be "
                               "a guess",
                     "export the issues again with the Status Category column (Jira's own grouping of every "
                     "status, in any language), or name each word in the map: [states] resolved or closed for a "
                     "done status, [pauses] (\"kept\") for a status that is not done")


def _take(held: dict[Any, dict[str, int]], sla_from: dict[str, str], ref: str, row: dict[str, Any]) -> dict[str, int]:
    """The changelog and SLA records of one CSV issue (by key, or by Issue id), taken out of those
    still unmatched: file -> records."""
    out: dict[str, int] = {}
    ident = (row.get("Issue id") or "").strip()
    for k in (ref, ("id", ident)):
        for other, count in held.pop(k, {}).items():
            out[other] = out.get(other, 0) + count
    for k in (ref, ident):
        other = sla_from.pop(k, None)
        if other is not None:
            out[other] = out.get(other, 0) + 1
    return out


def _sla_file(sla_from: dict[str, str], ref: str, row: dict[str, Any]) -> str | None:
    """The file holding an issue's SLA answer (by key, else by Issue id), before ``_take`` takes it."""
    return sla_from.get(ref) or sla_from.get((row.get("Issue id") or "").strip())


def _refuse_sla(t: Ticket, refused: list[str], answer_file: str | None) -> Iterator[Unreadable]:
    """An issue's SLA answer that contradicts itself: unreadable, in its own file's count, while
    the ticket, whose own record is sound, stands without the vendor's clock."""
    if not refused or answer_file is None or not t.attached.get(answer_file):
        return
    t.attached[answer_file] -= 1
    if not t.attached[answer_file]:
        del t.attached[answer_file]
    yield Unreadable(f"{Path(answer_file).name} (SLA answer of {t.ref})", t.ref, refused[0], answer_file)


def _columns(settings: Settings, header: list[str]) -> dict[str, str | None]:
    col = settings.column
    defaults = {"change_start": CHANGE_FIELDS[0], "change_end": CHANGE_FIELDS[1], "notes": "Comment",
                "outcome": "Resolution"}
    out: dict[str, str | None] = {}
    for key in KEYS:
        if key == "severity":
            continue
        name = col(key) or (defaults[key] if key in defaults and defaults[key] in header else None)
        out[key] = name
    if bool(out["change_start"]) != bool(out["change_end"]):
        raise InputError("--map columns", "name a change window start without an end, or an end without a start",
                         "map both change_start and change_end")
    return out


def _history(key: Any, histories: list[Any], where: str, times: Times,
             history: dict[Any, list[tuple[dt.datetime, str, str | None, str | None]]], file: str) \
        -> Iterator[Unreadable]:
    """One issue's change histories into ``history``; a history entry that cannot be read is
    listed (the issue's record is still read: it counts once, with its ticket)."""
    for h in histories:
        try:
            at = times.required(h.get("created") if isinstance(h, dict) else None, "created")
            items = h.get("items") if isinstance(h, dict) else None
            if not isinstance(items, list):
                raise RowProblem("a history entry has no items")
        except RowProblem as exc:
            yield Unreadable(where, str(key), str(exc), file, 0)
            continue
        for item in items:
            if isinstance(item, dict) and item.get("field") in ("status", "resolution"):
                to, old = item.get("toString"), item.get("fromString")
                # status names repeat across a million issues: one copy of each is kept (interned)
                history.setdefault(key, []).append(
                    (at, sys.intern(item["field"]), sys.intern(to) if isinstance(to, str) else None,
                     sys.intern(old) if isinstance(old, str) else None))


def _change(row: dict[str, Any], cols: dict[str, str | None], times: Times, settings: Settings) -> Pause | str:
    """A change issue's window, or why it is not an agreed change window."""
    status = (row.get("Status") or "").strip()
    if not cols["change_start"]:
        return "the map names no change window columns"
    try:
        start = times.read(row.get(cols["change_start"]), cols["change_start"])
        end = times.read(row.get(cols["change_end"]), cols["change_end"])
    except RowProblem as exc:
        return str(exc)
    if start is None or end is None or end <= start:
        return "it has no window (start and end)"
    if status not in settings.agreed_changes:
        return f"its status {status!r} is not one the map's [changes] agreed names"
    return Pause("change", start, end, f"change {row['Issue key'].strip()} ({status}): agreed window")


def _ticket(row: dict[str, Any], where: str, times: Times, settings: Settings, cols: dict[str, str | None],
            history: dict[Any, list[tuple[dt.datetime, str, str | None, str | None]]], sla: dict[str, Any],
            pauses_of: dict[str, str], changes: dict[str, Pause | str], rules: states.Rules,
            categorised: bool, refused: list[str] | None = None) -> Ticket:
    key = row["Issue key"].strip()
    t = Ticket(key, where, row[settings.column("severity", SEVERITY_FIELD)], times.read(row["Created"], "Created"),
               resolved=times.read(row["Resolved"], "Resolved"), state=row["Status"].strip())
    kind = (row.get("Issue Type") or "").strip()
    if rules.excluded_kind(kind):
        t.apart = (states.NOT_INCIDENT, f"Issue Type {kind!r}, which the map's [states] not_incident names")
        return t
    cut = history.cut(key, ("id", (row.get("Issue id") or "").strip())) if isinstance(history, _History) else None
    if cut is not None:
        raise RowProblem(f"its changelog holds {cut[0]} of its {cut[1]} histories (Jira pages a changelog, and a "
                         "search answer embeds its first page only), so a wait, a change window or a re-open may be "
                         f"missing and no figure is stated for it: export the issue's own changelog "
                         f"(/rest/api/3/issue/{key}/changelog, every page) and import it with this export")
    bulk = history.bulk_cut(key, ("id", (row.get("Issue id") or "").strip())) if isinstance(history, _History) \
        else None
    if bulk is not None:
        raise RowProblem(f"its changelog is on bulk changelog page {bulk[0]}, which says more pages follow "
                         f"(nextPageToken {bulk[1][:40]!r}), and no page given is the last (nextPageToken null), so "
                         "a wait, a change window or a re-open may be on a page not given and no figure is stated for "
                         "it: fetch /rest/api/3/changelog/bulkfetch again with each nextPageToken until it is null, "
                         "and import every page with this export")

    def at(name: str) -> dt.datetime | None:
        return times.read(row.get(cols[name]), cols[name]) if cols[name] else None

    t.detected, t.partner_notice, t.communicated = at("detected"), at("partner_notice"), at("communicated")
    if t.detected is not None:
        t.detected_label = f"the {cols['detected']} column"
    if cols["acknowledged"]:
        t.ack_known, t.acknowledged = True, at("acknowledged")
    confirm(t, at("restored"), row.get(cols["check"]) if cols["check"] else None, cols["restored"])
    resolution = (row.get("Resolution") or "").strip()
    found = settings.outcome("Jira", ("Resolution", resolution), ("Status", t.state),
                             *([(cols["outcome"], row.get(cols["outcome"]))] if cols["outcome"] else []))
    if found:
        t.outcome = (found[0], found[1], None)
    if cols["resolved_by"]:
        resolver = (row.get(cols["resolved_by"]) or "").strip()
        if resolver in settings.integrations:
            t.auto_resolved = f"{cols['resolved_by']} {resolver!r}"
    changes_of = sorted(dict.fromkeys(history.get(key, []) + history.get(("id", (row.get("Issue id") or "").strip()),
                                                                          [])), key=lambda c: c[0])
    done = _done_words(rules)
    _intervals(t, [c for c in changes_of if c[1] == "status"], pauses_of, done)
    _resolutions(t, changes_of, done)
    _standing(t, row, rules, categorised, times)
    if cols["change_start"]:
        start, end = at("change_start"), at("change_end")
        if start is not None and end is not None and end > start:
            t.pauses.append(Pause("change", start, end, f"{cols['change_start']} to {cols['change_end']}"))
    for link in (row.get(cols["change_link"]) or []) if cols["change_link"] else []:
        change = changes.get(link.strip())
        if isinstance(change, Pause):
            t.pauses.append(change)
        elif change is not None:
            t.notes.append(f"linked change {link.strip()} is not excluded: {change}")
    for comment in (row.get(cols["notes"]) or []) if cols["notes"] else []:
        t.note_stream.append(_comment(comment, times))
    answer = sla.get(key) if key in sla else sla.get((row.get("Issue id") or "").strip())
    if answer is not None:
        why = _vendor(t, answer, settings)
        if why and refused is not None:
            refused.append(why)
    return t


def _done_words(rules: states.Rules) -> frozenset[str]:
    """Statuses a changelog moves an issue into when it is done (a changelog names statuses, not
    their categories): the shipped done statuses and the map's words."""
    return rules.done_statuses | rules.resolved | rules.closed


def _standing(t: Ticket, row: dict[str, Any], rules: states.Rules, categorised: bool, times: Times) -> None:
    """Whether the issue is done, from its Status Category (Jira's own grouping of every status,
    custom ones included) where the export has it, else its status; and the map's words either
    way. A done issue with no time for its end reads "closed, time not evidenced", never open:
    its time is Resolved, else the changelog's move into a done status, else Status Category
    Changed, the instant it entered the Done category. An issue not done is open at the close,
    whatever earlier resolution it still holds: re-opened at the changelog's time where it holds
    the re-open, else at a time not evidenced (the resolution then not written)."""
    category = (row.get(CATEGORY) or "").strip()
    if rules.status(t.state, category) == states.DELETED:
        t.apart = (states.DELETED, f"status {t.state!r}, which the map's [states] deleted names")
        return
    done = category in rules.done_categories if categorised else t.state in rules.done_statuses
    done = done or rules.status(t.state, category) != "open"
    if not done:
        end = t.resolved or t.closed
        if end is None:
            return
        status = f"status {t.state!r}{f' (category {category})' if category else ''} is not done"
        if t.reopens and t.reopens[-1][0] >= end:  # its changelog dates the re-open after that resolution
            t.notes.append(f"{status}: re-opened at {t.reopens[-1][0].isoformat()}, after its resolution at "
                           f"{end.isoformat()}, so open at the close")
        else:
            t.notes.append(f"{status}, yet it was resolved at {end.isoformat()} and the records hold no re-open "
                           "after that: re-opened at a time not evidenced, so open at the close (that resolution "
                           "is not written; give the issue's changelog to date the re-open)")
            t.earlier = [(at, words) for at, words in t.earlier if at < end]
        t.resolved = t.closed = None
        return
    resolution = (row.get("Resolution") or "").strip()
    words = f"{t.state}" + (f" (category {category})" if category else "") + \
        (f", resolution {resolution}" if resolution else ", no resolution")
    if t.resolved is None and t.closed is None and categorised:
        changed = times.read(row.get(CATEGORY_CHANGED), CATEGORY_CHANGED) if CATEGORY_CHANGED in row else None
        if changed is not None:
            if resolution:
                t.resolved = changed
            else:
                t.closed = changed
            t.notes.append(f"{words}: no Resolved time; its end is read from {CATEGORY_CHANGED}")
    _settle(t, words)
    t.ended(words, bool(resolution))


def _settle(t: Ticket, words: str) -> None:
    """A done issue's history as its status says: the status decides whether an issue is done
    (docs/imports.md, "the state the record holds now decides"), so a re-open signal after its
    end (a resolution cleared while the status stayed done) is not a re-open, and the status and
    the resolution disagreeing is said in a note. An earlier resolution at the instant of the end
    is that end, never a second closure at one instant."""
    end = t.resolved or t.closed
    if end is None:
        return
    late = [(at, why) for at, why in t.reopens if at >= end]
    if late:
        t.reopens = [(at, why) for at, why in t.reopens if at < end]
        at, why = late[-1]
        t.notes.append(f"{words}, yet its changelog says {why} at {at.isoformat()}, after it was done at "
                       f"{end.isoformat()}, and no status left done since: the status and the resolution disagree, "
                       "and the status decides, so it is over at that time"
                       + (" with no resolution" if t.resolved is None else "") + ", not re-opened")
    last = t.reopens[-1][0] if t.reopens else None
    t.earlier = [(at, w) for at, w in t.earlier if last is not None and at <= last and at < end]


def _intervals(t: Ticket, changes: list[tuple[dt.datetime, str, str | None, str | None]],
               pauses_of: dict[str, str], done: frozenset[str]) -> None:
    open_at, open_status = None, ""
    for at, _field, status, _old in changes:
        if open_at is not None:
            t.pauses.append(Pause(pauses_of[open_status], open_at, at, f"status: {open_status}"))
            open_at = None
        if status in pauses_of:
            open_at, open_status = at, status
        if status in done and status != "Resolved" and t.resolved is None:
            t.closed = at
    if open_at is not None:
        t.pauses.append(Pause(pauses_of[open_status], open_at, None, f"status: {open_status}"))


def _resolutions(t: Ticket, changes: list[tuple[dt.datetime, str, str | None, str | None]],
                 done: frozenset[str]) -> None:
    """Earlier resolutions and re-opens: from the resolution field where the changelog has it
    (set: resolved; cleared: re-opened), else from statuses leaving a done status."""
    res = [c for c in changes if c[1] == "resolution"]
    resolutions, reopens = [], []
    if res:
        for at, _field, to, old in res:
            if to:
                resolutions.append(at)
            elif old:
                reopens.append((at, f"resolution {old} cleared"))
    else:
        for at, _field, to, old in changes:
            if to in done and old not in done:
                resolutions.append(at)
            elif old in done and to is not None and to not in done:
                reopens.append((at, f"status {old} to {to}"))
    if reopens:
        last = reopens[-1][0]
        t.earlier = [(at, "resolved, then re-opened") for at in resolutions if at <= last]
        t.reopens = reopens


def _comment(text: str, times: Times) -> tuple[dt.datetime | None, str]:
    """A Jira CSV comment cell: ``date;author;body``."""
    parts = text.split(";", 2)
    if len(parts) == 3:
        try:
            return times.read(parts[0], "Comment"), parts[2]
        except RowProblem:
            pass
    return None, text


def _millis(value: Any) -> float | None:
    millis = (value or {}).get("millis") if isinstance(value, dict) else None
    if not isinstance(millis, int | float) or isinstance(millis, bool) or millis < 0:
        return None
    return float(millis)


class _Contradiction(RowProblem):
    """An SLA answer whose two forms of one instant disagree: the record contradicts itself."""


def _instant(value: Any, what: str) -> dt.datetime | None:
    """An SLA instant (DateDTO): ``epochMillis`` and ``iso8601`` are one instant written twice
    (the ISO form to the second); where both are given and differ by a second or more, the record
    contradicts itself and neither is read (``_Contradiction``, naming both)."""
    if not isinstance(value, dict):
        return None
    epoch = value.get("epochMillis")
    text = value.get("iso8601")
    iso = Times(Settings()).read(text, what) if isinstance(text, str) else None
    if isinstance(epoch, int) and not isinstance(epoch, bool) and 0 <= epoch < 7_258_118_400_000:
        at = dt.datetime.fromtimestamp(epoch / 1000, dt.UTC)
        if iso is not None and abs((at - iso).total_seconds()) >= 1:
            raise _Contradiction(f"{what} has epochMillis {epoch} ({at.isoformat()}) and iso8601 {text!r}, "
                                 "two different instants")
        return at
    return iso


def _still_running(t: Ticket, ongoing: dict[str, Any]) -> str:
    """What to add where the vendor's SLA clock still runs on an issue its record says is over:
    the two disagree (a re-open the issue's other records do not hold, or a clock left running),
    and the issue is read as its status says, never closed or opened on the SLA's word."""
    end = t.resolved or t.closed
    if end is None and t.untimed is None:
        return ""
    try:
        start = _instant(ongoing.get("startTime"), "startTime")
    except RowProblem:
        start = None
    over = f"resolved at {end.isoformat()}" if end is not None and t.resolved is not None else \
        (f"closed at {end.isoformat()}" if end is not None else "over (time not evidenced)")
    began = (f" (its running cycle started at {start.isoformat()}" +
             (", after that)" if end is not None and start >= end else ")")) if start is not None else ""
    return (f"; yet the issue is {over}{began}: the vendor's own clock says it is not over while its record "
            "says it is, so the two disagree; the issue is read as its status says, and the SLA answer is the "
            "record to check")


def _vendor(t: Ticket, answer: Any, settings: Settings) -> str | None:
    """The SLA the reconciliation compares with, on its own calendar; where the answer contradicts
    itself (an instant whose two forms disagree), why it is unreadable."""
    name = settings.sla.get("name", SLA_NAME)
    values = answer.get("values") if isinstance(answer, dict) else None
    metric = next((v for v in values or [] if isinstance(v, dict) and v.get("name") == name), None)
    if metric is None:
        t.notes.append(f"the SLA answer has no {name!r} SLA (name it in the map's [sla] name)")
        return None
    ongoing = metric.get("ongoingCycle")
    calendar = settings.sla.get("calendar")
    if calendar is None and isinstance(ongoing, dict) and isinstance(ongoing.get("withinCalendarHours"), bool):
        calendar = "business" if ongoing["withinCalendarHours"] else "24x7"
    if isinstance(ongoing, dict):
        t.notes.append(f"the SLA {name!r} was still running at export" + (" (paused)" if ongoing.get("paused") else "")
                       + ": not compared" + _still_running(t, ongoing))
        return None
    cycles = [c for c in metric.get("completedCycles") or [] if isinstance(c, dict)]
    if not cycles:
        t.notes.append(f"the SLA {name!r} has no completed cycle: not compared")
        return None
    try:
        elapsed = [_millis(c.get("elapsedTime")) for c in cycles]
        starts = [_instant(c.get("startTime"), "startTime") for c in cycles]
        stops = [_instant(c.get("stopTime"), "stopTime") for c in cycles]
    except _Contradiction as exc:
        t.notes.append(f"the SLA answer contradicts itself and is not read, so {name!r} is not compared: {exc}")
        return (f"the SLA {name!r} answer contradicts itself: a cycle's {exc}, so neither is read: export the "
                "answer again, or leave it out")
    except RowProblem as exc:
        t.notes.append(f"the SLA {name!r} was not read: {exc}")
        return None
    if any(e is None for e in elapsed):
        t.notes.append(f"an SLA cycle's elapsedTime.millis is not a duration: {name!r} not compared")
        return None
    if calendar is None:
        t.notes.append(f"the SLA {name!r} does not say whether it runs 24x7 or on business hours: state [sla] "
                       "calendar in the map to compare it")
        return None
    hours = sum(elapsed) / 3_600_000  # type: ignore[arg-type]
    start = starts[0] if all(starts) else None
    stop = stops[-1] if all(stops) else None
    cycles_note = f", {len(cycles)} cycles" if len(cycles) > 1 else ""
    measure = f"Jira SLA {name!r} elapsedTime ({calendar}{cycles_note})"
    if calendar == "24x7":
        paused = None if start is None or stop is None else max(0.0, (stop - start).total_seconds() / 3600 - hours)
        t.vendor = VendorClock(measure, hours, None, start, stop, paused)
    else:
        t.vendor = VendorClock(measure, None, hours, start, stop, None, "the SLA's own calendar")

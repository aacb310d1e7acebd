"""Zendesk: tickets, ticket_metrics, ticket_metric_events and ticket_audits, as the Support API
returns them.

Times are ISO 8601 in UTC. From ``ticket_metric_events``: the ``requester_wait_time`` metric
pauses while a ticket is pending (waiting on the requester, the partner), is fulfilled when the
ticket is solved and activates again when it leaves pending or is re-opened, so each fulfil is
a resolution and an activation after one a re-open; ``agent_work_time`` also pauses for
on-hold, which is the supplier waiting on a third party: its own time, not excluded, unless the
map's [pauses] says otherwise (``"on-hold" = "change"`` for every hold, ``"tag:TAG" = "change"``
for the holds of tickets carrying a tag, ``"custom_status:ID" = "change"`` for the intervals a
ticket spends in a custom status, from its audits). A ``reply_time`` fulfil is the first
agent reply: the acknowledgement. The last resolution is ``ticket_metrics.solved_at`` (else the
last fulfil), ``reopens`` is Zendesk's own count, and the vendor's own duration is
``full_resolution_time_in_minutes`` {calendar, business}, from creation to the latest solve.

``ticket_audits`` (``audits[]``: ``ticket_id``, ``created_at``, ``events[]``) gives the comments
(read with the map's [notes]), custom status changes, priority changes (one lowered after the
solve is listed as distorted) and, for a ticket with no requester_wait_time or agent_work_time
metric events (reply_time ones only date the first reply), its status
changes, read as the metric events Zendesk writes for them (pending, on-hold, solves, re-opens):
the same facts give the same figure. Where a ticket has both and they differ, the metric events
are read and a note names both. A ticket whose status is not solved or closed is open, whatever
earlier solve it holds. A status the API never writes (it writes new, open, pending, hold, solved, closed and
deleted, in lower case) refuses the import unless the map's [states] names it: it is never read as open.

Detection, partner notice, the restore, its check, an outcome and a change window
(``change_start``/``change_end``) are ticket fields or ``custom_field:ID`` the map names;
``outcome = "tags"`` matches each tag.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from day60.errors import InputError
from day60.imports import jsonstream, states
from day60.imports.books import Books
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
    number,
)

DESCRIPTION = ("tickets JSON, ticket_metrics JSON, ticket_metric_events JSON and ticket_audits JSON from the Support "
               "API (pending = waiting on the requester)")
_KEYS = ("tickets", "ticket_metrics", "ticket_metric_events", "audits")
KEYS = ("severity", "detected", "partner_notice", "communicated", "acknowledged", "restored", "check", "outcome",
        "change_start", "change_end")
SEVERITY_FIELD = "priority"  # the field read for severity unless the map's [columns] names another
METRICS = ("requester_wait_time", "agent_work_time", "reply_time")
# The status words the Support API writes, all lower case: a closed list (the states.yaml zendesk
# rules say which of them mean over). Any other word, "Solved" as a UI or CSV export writes it or
# a localised one, is not read as open: it refuses the import unless the map's [states] names it.
API_STATUSES = ("new", "open", "pending", "hold", "solved", "closed", "deleted")


def _kind(p: Path) -> str:
    """Which answer a file is: the top-level key that holds its list of records (streamed: read
    only as far as that key)."""
    found = jsonstream.envelope(p, _KEYS)
    if not found:
        raise InputError("EXPORT", f"{p} is not an export the zendesk format reads",
                         f"it takes the Support API's JSON answers: {', '.join(_KEYS)} (ticket_audits), "
                         "each list under its own key")
    return found


def _stamp(item: dict[str, Any]) -> tuple[str, int]:
    """A ticket copy's place among the copies of one ticket: its updated_at (ISO 8601 UTC, which
    sorts as text), then the export's generated_timestamp (epoch seconds) where it has one."""
    updated = item.get("updated_at")
    generated = item.get("generated_timestamp")
    return (updated if isinstance(updated, str) else "",
            generated if isinstance(generated, int) and not isinstance(generated, bool) else -1)


def _versions(docs: list[tuple[Path, str, str]]) -> dict[str, list[tuple[tuple[str, int], int, int, str]]]:
    """Pass one over the tickets exports: every copy of each ticket, (stamp, file, item, status),
    latest last. An incremental export repeats a ticket that changed while it ran (cursor) or
    every ticket of its end_time second (time-based); pages overlap."""
    out: dict[str, list[tuple[tuple[str, int], int, int, str]]] = {}
    for f, (p, _name, _key) in enumerate(docs):
        for i, item in enumerate(jsonstream.records(p, "tickets")):
            if isinstance(item, dict) and item.get("id") is not None and not isinstance(item.get("id"), dict | list):
                out.setdefault(str(item["id"]), []).append((_stamp(item), f, i, str(item.get("status") or "")))
    for ref, copies in list(out.items()):
        copies.sort()
        # Which copy holds is read from the copies' own times only: copies with no updated_at, or
        # two latest copies of one time that disagree, are left as they are (the import refuses
        # a ticket given twice, naming both)
        if len(copies) > 1 and (any(not c[0][0] for c in copies) or
                                (copies[-1][0] == copies[-2][0] and copies[-1][3] != copies[-2][3])):
            del out[ref]
    return out


def _known_statuses(versions: dict[str, list[tuple[tuple[str, int], int, int, str]]],
                    audits: dict[str, list[tuple[dt.datetime, dict[str, Any]]]], rules: states.Rules) -> None:
    """Refuse the import where a ticket's status, or a status its audits change to or from, is
    not one of the Support API's words nor one the map's [states] adds: read as open, it would
    turn a solved ticket into an open one with an invented re-open. Case is not folded: the API
    writes every status in lower case, so "Solved" shows a record from another export, and which
    of its words mean what is for the map to say, not for the reader to guess."""
    known = set(API_STATUSES) | rules.resolved | rules.closed | rules.deleted | rules.open
    wrong: dict[str, str] = {}
    for ref, copies in versions.items():
        for _stamp, _f, _i, status in copies:
            if status.strip() and status.strip() not in known:
                wrong.setdefault(status.strip(), f"ticket {ref}")
    for ref, found in audits.items():
        for _at, status, before in _changes(found, "status"):
            for word in (status, before):
                if word and word not in known:
                    wrong.setdefault(word, f"ticket {ref}'s audits")
    if wrong:
        words = sorted(wrong)
        raise InputError("status", "is not a Zendesk status: " + ", ".join(f"{w!r} ({wrong[w]})" for w in words[:8])
                         + (f" and {len(words) - 8} more" if len(words) > 8 else ""),
                         f"the Support API writes {', '.join(API_STATUSES)} (lower case); export the tickets from "
                         "the API, or name each word in the map's [states] resolved, closed, deleted or open (a "
                         "word not named there is not read as open)")


def read(paths: list[Path], settings: Settings, notes: list[str], books: Books) -> Iterator[Ticket | Unreadable
                                                                                          | Unmatched]:
    check_columns(settings, KEYS, "zendesk")
    rules = states.rules("zendesk", settings.states)
    times = Times(settings)
    docs: dict[str, list[tuple[Path, str, str]]] = {k: [] for k in _KEYS}
    for p in paths:
        docs[_kind(p)].append((p, p.name, books.key(p)))

    def items_of(kind: str) -> Iterator[tuple[str, str, int, Any]]:
        for p, name, key in docs[kind]:
            for i, item in enumerate(jsonstream.records(p, kind)):
                books.read(p)
                yield name, key, i, item
    if not docs["tickets"]:
        raise InputError("EXPORT", "no tickets export was given", "give the tickets JSON export")
    # What completes each ticket, with the file each record came from: what the ticket settles,
    # or what is listed unmatched.
    held: dict[str, dict[str, int]] = {}

    def hold(ticket: str, key: str) -> None:
        slot = held.setdefault(ticket, {})
        slot[key] = slot.get(key, 0) + 1

    metrics: dict[str, tuple[dict[str, Any], str]] = {}
    for name, key, i, m in items_of("ticket_metrics"):
        if not isinstance(m, dict) or m.get("ticket_id") is None or isinstance(m.get("ticket_id"), dict | list):
            yield Unreadable(f"{name} item {i + 1}", None, "is not a ticket_metrics record with a ticket_id", key)
            continue
        ticket = str(m["ticket_id"])
        if ticket in metrics:  # a later page holds it again: the later record is read
            books.skip(metrics[ticket][1], f"a ticket_metrics record given again in {name}")
            held[ticket][metrics[ticket][1]] -= 1
        metrics[ticket] = (m, key)
        hold(ticket, key)
    events: dict[str, list[tuple[dt.datetime, str, str]]] = {}
    for name, key, i, e in items_of("ticket_metric_events"):
        if not isinstance(e, dict) or e.get("ticket_id") is None or isinstance(e.get("ticket_id"), dict | list):
            yield Unreadable(f"{name} item {i + 1}", None, "is not a ticket_metric_event with a ticket_id", key)
            continue
        if e.get("metric") not in METRICS:
            books.skip(key, f"a metric event of a metric the import does not read (it reads {', '.join(METRICS)})")
            continue
        if e["metric"] == "reply_time" and e.get("instance_id") not in (1, None):
            books.skip(key, "a reply_time event after the first reply")
            continue
        try:
            at = times.required(e.get("time"), "time")
        except RowProblem as exc:
            yield Unreadable(f"{name} item {i + 1}", str(e.get("ticket_id")), str(exc), key)
            continue
        events.setdefault(str(e["ticket_id"]), []).append((at, e["metric"], str(e.get("type"))))
        hold(str(e["ticket_id"]), key)
    audits: dict[str, list[tuple[dt.datetime, dict[str, Any]]]] = {}
    for name, key, i, a in items_of("audits"):
        if not isinstance(a, dict) or not isinstance(a.get("events"), list) or a.get("ticket_id") is None:
            yield Unreadable(f"{name} item {i + 1}", None, "is not an audit with a ticket_id and events", key)
            continue
        try:
            at = times.required(a.get("created_at"), "created_at")
        except RowProblem as exc:
            yield Unreadable(f"{name} item {i + 1}", str(a.get("ticket_id")), str(exc), key)
            continue
        for ev in a["events"]:
            if isinstance(ev, dict):
                audits.setdefault(str(a["ticket_id"]), []).append((at, ev))
        hold(str(a["ticket_id"]), key)
    if not docs["ticket_metric_events"] and docs["audits"]:
        notes.append("no ticket_metric_events export was given: solves, re-opens and pending and on-hold intervals "
                     "are read from the ticket_audits' status changes")
    elif not docs["ticket_metric_events"]:
        notes.append("no ticket_metric_events export was given: pending intervals and re-opens cannot be rebuilt, "
                     "so no waiting on the partner is excluded")
    if settings.notes and not docs["audits"]:
        notes.append("the map has [notes] but no ticket_audits export was given: no comment was read")
    versions = _versions(docs["tickets"])
    _known_statuses(versions, audits, rules)
    files = [key for _p, _name, key in docs["tickets"]]
    for f, (p, name, key) in enumerate(docs["tickets"]):
        for i, item in enumerate(jsonstream.records(p, "tickets")):
            books.read(p)
            where = f"{name} item {i + 1}"
            ok = isinstance(item, dict) and item.get("id") is not None and not isinstance(item.get("id"), dict | list)
            ref = str(item["id"]) if ok else None
            copies = versions.get(ref, []) if ref is not None else []
            if len(copies) > 1 and copies[-1][1:3] != (f, i):
                continue  # an earlier copy: read into the latest one's history, and counted with it
            attached = held.pop(ref, {}) if ref is not None else {}
            for _when, other, _i, _status in copies[:-1]:
                attached[files[other]] = attached.get(files[other], 0) + 1
            try:
                if not ok:
                    raise RowProblem("is not a ticket with an id")
                t = _ticket(item, where, times, settings, (metrics.get(ref) or ({}, ""))[0], events.get(ref, []),
                            audits.get(ref, []), bool(docs["ticket_metric_events"]), rules)
                if len(copies) > 1:
                    timed = _clocked(events.get(ref, [])) or bool(_changes(audits.get(ref, []), "status"))
                    _copies(t, copies, timed, times, settings, rules)
            except RowProblem as exc:
                yield Unreadable(where, ref, str(exc), key)
                for other, n in attached.items():
                    books.add(other, "unreadable", n)
                continue
            t.file, t.attached = key, attached
            yield t
    kinds = {key: "ticket_audits" if kind == "audits" else kind
             for kind, found in docs.items() for _p, _n, key in found}
    for ticket, files in held.items():  # metrics, events and audits of tickets the tickets export lacks
        for other, n in files.items():
            if n:
                yield Unmatched(other, ticket, n, kinds[other])


def _field(item: dict[str, Any], key: str) -> Any:
    """A ticket field, or a custom field written ``custom_field:ID``."""
    if key.startswith("custom_field:"):
        wanted = key.split(":", 1)[1]
        return next((f.get("value") for f in _list(item, "custom_fields") if isinstance(f, dict)
                     and str(f.get("id")) == wanted), None)
    return item.get(key)


def _time(item: dict[str, Any], key: str | None, times: Times) -> dt.datetime | None:
    if not key:
        return None
    value = _field(item, key)
    if value is not None and not isinstance(value, str):
        raise RowProblem(f"{key}: {str(value)[:30]!r} is not a date and time")
    return times.read(value, key)


def _ticket(item: dict[str, Any], where: str, times: Times, settings: Settings, metric: dict[str, Any],
            events: list[tuple[dt.datetime, str, str]], audits: list[tuple[dt.datetime, dict[str, Any]]],
            measured: bool, rules: states.Rules) -> Ticket:
    col = settings.column
    severity = _field(item, col("severity", SEVERITY_FIELD))
    t = Ticket(str(item["id"]), where, None if severity is None else str(severity), None,
               state=str(item.get("status") or ""))
    standing = rules.status(t.state)
    tags = [str(tag) for tag in _list(item, "tags") if isinstance(tag, str)]
    merged = rules.merged_by(tags)
    kind = item.get("type")
    if standing == states.DELETED:  # a deleted ticket keeps its fields: counted apart, never an incident
        t.apart = (states.DELETED, f"status {t.state!r}")
        return t
    if merged is not None:
        t.apart = (states.MERGED, f"tag {merged!r}: merged into another ticket, which carries the incident")
        return t
    if isinstance(kind, str) and rules.excluded_kind(kind):
        t.apart = (states.NOT_INCIDENT, f"type {kind!r}, which the map's [states] not_incident names")
        return t
    t.opened = times.read(item.get("created_at"), "created_at")
    t.detected, t.partner_notice = _time(item, col("detected"), times), _time(item, col("partner_notice"), times)
    t.communicated = _time(item, col("communicated"), times)
    if t.detected is not None:
        t.detected_label = f"the ticket's {col('detected')}"
    events = sorted(events, key=lambda e: e[0])
    statuses = _changes(audits, "status")
    told = _from_audits(statuses, rules)  # the same clock, read from the audits' status changes
    said_by = "requester_wait_time activated after it was fulfilled (re-opened)"
    if not _clocked(events) and told:  # reply_time events alone say nothing of the clock: the audits do
        events = sorted(told + [e for e in events if e[1] == "reply_time"], key=lambda e: e[0])
        said_by = "ticket_audits: status {0} to {1} (re-opened)"
    elif told and _clock(told) != _clock(events):
        t.notes.append("its ticket_audits' status changes (" + _said(told) + ") differ from its ticket_metric_events ("
                       + _said(events) + "): the metric events, Zendesk's own clock, are read")
    fulfils = [at for at, m, kind in events if m == "requester_wait_time" and kind == "fulfill"]
    solved = times.read(metric.get("solved_at"), "solved_at")
    t.resolved = solved or (fulfils[-1] if fulfils else None)
    if solved is not None and fulfils and fulfils[-1] != solved:
        t.notes.append(f"ticket_metrics solved_at {solved.isoformat()} is not the last solve its history holds "
                       f"({fulfils[-1].isoformat()}): solved_at is read")
    reopens = _reopens(events)
    if reopens:
        last = reopens[-1]
        t.earlier = [(at, "solved, then re-opened") for at in fulfils if at <= last]
        moves, prior = {}, ""
        for at, status, before in statuses:
            moves[at], prior = (before or prior, status), status
        t.reopens = [(at, said_by.format(*moves.get(at, ("solved", "open")))) for at in reopens]
        if t.resolved is not None and t.resolved <= last:
            t.resolved = None  # solved before the last re-open and not since: open
    count = metric.get("reopens")
    if isinstance(count, int) and not isinstance(count, bool) and count > 0:
        t.reopen_count = count
    audit_solves = [at for at, m, kind in told if m == "requester_wait_time" and kind == "fulfill"]
    if standing != "open" and t.resolved is None and audit_solves and not t.reopens:
        t.resolved = audit_solves[-1]  # no file read is said to hold no time where the audits hold one
        t.notes.append(f"its solve, {t.resolved.isoformat()}, is read from its ticket_audits: its other records "
                       "hold no solve time")
    if standing != "open" and t.resolved is None and statuses and statuses[0][2] and \
            rules.status(statuses[0][2]) != "open" and not audit_solves:
        # the audits begin with a move out of an over status (Zendesk's automation closing a
        # solved ticket days later): it was solved before then, at a time no file read holds
        first, word, prior = statuses[0]
        t.notes.append(f"its ticket_audits begin at {first.isoformat()} with status {prior} to {word}: it was "
                       f"{prior} before then, at a time the records do not hold, so {first.isoformat()} is the "
                       "latest its solve can have been, not its time; its restore is not evidenced (give the "
                       "ticket's first audits page, or its ticket_metrics solved_at, to date it)")
        t.ended(f"status {t.state}; {prior} at a time not in the records, before {first.isoformat()}",
                standing == "resolved")
    elif standing != "open":  # solved or closed: with no solve time in the records, at a time not evidenced
        t.ended(f"status {t.state}", standing == "resolved")
    elif t.resolved is not None and [at for at in _reopens(told) if at > t.resolved]:
        # open now; the metric events hold no re-open after the solve, and the audits date one
        solve, again = t.resolved, min(at for at in _reopens(told) if at > t.resolved)
        before, after = next(((b, v) for at, v, b in statuses if at == again), ("solved", t.state))
        t.earlier.append((solve, "solved, then re-opened"))
        t.reopens.append((again, f"ticket_audits: status {before or 'solved'} to {after} (re-opened)"))
        t.notes.append(f"status {t.state!r} is not solved: its ticket_metric_events hold no re-open after its solve "
                       f"at {solve.isoformat()}, and its ticket_audits date that re-open at {again.isoformat()}, "
                       "so both are written, and it is open at the close")
        t.resolved = None
    elif t.resolved is not None:  # open now, yet solved with no re-open after it in the records
        t.notes.append(f"status {t.state!r} is not solved, yet it was solved at {t.resolved.isoformat()} and the "
                       "records hold no re-open after that: re-opened at a time not evidenced, so open at the close "
                       "(that solve is not written; give its ticket_audits or ticket_metric_events to date the "
                       "re-open)")
        t.resolved = None
    _lowered(t, _changes(audits, "priority"), fulfils or ([solved] if solved else []))
    check = _field(item, col("check")) if col("check") else None
    confirm(t, _time(item, col("restored"), times), str(check) if check not in (None, False) else None,
            col("restored"))
    replies = [at for at, m, kind in events if m == "reply_time" and kind == "fulfill"]
    if measured and any(m == "reply_time" for _, m, _ in events):
        t.ack_known, t.acknowledged = True, (replies[0] if replies else None)
    outcome_field = col("outcome")
    values = [("tag", tag) for tag in tags] if outcome_field == "tags" else \
        [(outcome_field, None if _field(item, outcome_field) is None else str(_field(item, outcome_field)))] \
        if outcome_field else []
    found = settings.outcome("Zendesk", ("status", t.state), *values)
    if found:
        t.outcome = (found[0], found[1], None)
    _pauses(t, events, audits, tags, settings)
    start, end = _time(item, col("change_start"), times), _time(item, col("change_end"), times)
    if start is not None and end is not None and end > start:
        t.pauses.append(Pause("change", start, end, f"{col('change_start')} to {col('change_end')}"))
    for at, ev in audits:
        if ev.get("type") in ("Comment", "VoiceComment") and isinstance(ev.get("body"), str):
            t.note_stream.append((at, ev["body"]))
    if t.resolved is not None:
        t.vendor = _vendor(t, metric)
        _stood_solved(t)
    return t


def _changes(audits: list[tuple[dt.datetime, dict[str, Any]]], name: str) -> list[tuple[dt.datetime, str, str]]:
    """One field's values from the audits' Create and Change events, in time order: (when, value,
    the value before it as the event says, "" where it does not)."""
    out = []
    for at, ev in sorted(audits, key=lambda a: a[0]):
        if ev.get("type") in ("Create", "Change") and ev.get("field_name") == name and isinstance(ev.get("value"), str):
            before = ev.get("previous_value")
            out.append((at, ev["value"].strip(), before.strip() if isinstance(before, str) else ""))
    return out


def _from_audits(statuses: list[tuple[dt.datetime, str, str]], rules: states.Rules) \
        -> list[tuple[dt.datetime, str, str]]:
    """The audits' status changes as the metric events Zendesk writes for them: entering pending
    pauses requester_wait_time and leaving it activates it; a solve (solved, or closed from an open
    status) fulfils it, and leaving solved or closed activates it again (a re-open); on-hold pauses
    agent_work_time. The first change's previous_value is where the ticket stood before it: a
    close from solved is no solve (the solve came earlier). So the same facts read the same
    whichever of the two files holds them."""
    out: list[tuple[dt.datetime, str, str]] = []
    before = ""
    for at, status, said_before in statuses:
        before = before or said_before  # the first change read says what came before it
        over, was_over = rules.status(status) != "open", bool(before) and rules.status(before) != "open"
        if status == before:
            continue
        if before == "hold":
            out.append((at, "agent_work_time", "fulfill" if over else "activate"))
        if over and not was_over:
            out.append((at, "requester_wait_time", "fulfill"))
        elif (was_over and not over) or (before == "pending" and not over):
            out.append((at, "requester_wait_time", "activate"))
        if status == "pending":
            out.append((at, "requester_wait_time", "pause"))
        elif status == "hold":
            out.append((at, "agent_work_time", "pause"))
        before = status
    return out


CLOCK_METRICS = ("requester_wait_time", "agent_work_time")  # the metrics that carry solves, re-opens and waits


def _clocked(events: list[tuple[dt.datetime, str, str]]) -> bool:
    """Whether a ticket's metric events hold its clock: a requester_wait_time or agent_work_time
    event. reply_time gives the first reply only; with none of the others, the audits' status
    changes are the ticket's clock."""
    return any(m in CLOCK_METRICS for _at, m, _kind in events)


def _clock(events: list[tuple[dt.datetime, str, str]]) -> tuple[Any, ...]:
    """What a ticket's metric events say of its clock: its solves, re-opens and pending waits."""
    return ([at for at, m, kind in events if m == "requester_wait_time" and kind == "fulfill"], _reopens(events),
            _intervals(events, "requester_wait_time"))


def _said(events: list[tuple[dt.datetime, str, str]]) -> str:
    solves, reopens, waits = _clock(events)
    parts = [f"solved {', '.join(a.isoformat() for a in solves) or 'never'}",
             f"re-opened {', '.join(a.isoformat() for a in reopens) or 'never'}",
             "pending " + (", ".join(f"{s.isoformat()} to {e.isoformat() if e else 'the export'}" for s, e in waits)
                           or "never")]
    return "; ".join(parts)


_PRIORITIES = ("urgent", "high", "normal", "low")  # Zendesk's own, highest first


def _lowered(t: Ticket, priorities: list[tuple[dt.datetime, str, str]], solves: list[dt.datetime]) -> None:
    """A priority the audits show lowered after the ticket was first solved: the ticket is imported
    with its latest priority (figures.md: the latest wins), and the change is listed as a record that
    looks distorted, with its before, after and when."""
    if not solves:
        return
    first, before = min(solves), ""
    for at, value, said in priorities:
        old = said or before
        if at > first and old in _PRIORITIES and value in _PRIORITIES and \
                _PRIORITIES.index(value) > _PRIORITIES.index(old):
            t.distorted.append(f"priority lowered from {old} to {value} at {at.isoformat()}, after it was solved at "
                               f"{first.isoformat()} (its latest priority is the one imported)")
        before = value


def _minutes(metric: dict[str, Any], name: str) -> tuple[float | None, float | None]:
    """One of ticket_metrics' durations, {calendar, business} in minutes (nulls until reached), in hours."""
    value = metric.get(name)
    if value is None:
        return None, None
    if not isinstance(value, dict):
        raise RowProblem(f"{name} is a {type(value).__name__}, not {{calendar, business}}")
    return (number(_text(value.get("calendar")), f"{name}.calendar", 1 / 60),
            number(_text(value.get("business")), f"{name}.business", 1 / 60))


def _vendor(t: Ticket, metric: dict[str, Any]) -> VendorClock | None:
    """Zendesk's own figures for a solved ticket, from ticket_metrics. requester_wait_time is the
    time the requester waited (new, open and on-hold: from created_at to the latest solve, less the
    time pending and the time it stood solved before a re-open): its closest figure to the
    charter's, set beside ours. full_resolution_time (created_at to the latest solve, not paused)
    is its span, so the time it left out is full less requester wait; agent_wait_time (the time
    pending, waiting on the requester) is set beside our waits on you. With no requester wait,
    full_resolution_time is the figure, as its span."""
    full, full_bus = _minutes(metric, "full_resolution_time_in_minutes")
    asked, asked_bus = _minutes(metric, "requester_wait_time_in_minutes")
    waited, _ = _minutes(metric, "agent_wait_time_in_minutes")
    if asked is not None or asked_bus is not None:
        left_out = None if full is None or asked is None else max(0.0, full - asked)
        return VendorClock("Zendesk requester_wait_time_in_minutes {calendar, business} (created_at to the latest "
                           "solve, less pending and any time solved before a re-open; full_resolution_time its "
                           "span, agent_wait_time its time pending)", asked, asked_bus, t.opened, t.resolved,
                           left_out, elapsed_hours=full, waits_hours=waited)
    if full is not None or full_bus is not None:
        return VendorClock("Zendesk full_resolution_time_in_minutes {calendar, business} (created_at to the latest "
                           "solve, not paused)", full, full_bus, t.opened, t.resolved,
                           0.0 if full is not None else None, waits_hours=waited)
    return None


def _stood_solved(t: Ticket) -> None:
    """Where Zendesk's requester_wait_time is set beside ours and the ticket was re-opened, the
    time it stood solved before each re-open is in the vendor's pause (its clock stands still
    while a ticket is solved) and not in ours (the charter's runs to the last confirmed restore):
    a note says how long and when, so that part of the difference reads as what it is, no hold."""
    if t.vendor is None or not t.vendor.measure.startswith("Zendesk requester_wait_time"):
        return
    spans = []
    for solve, _words in sorted(t.earlier):
        again = min((at for at, _why in t.reopens if at > solve), default=None)
        if again is not None:
            spans.append((solve, again))
    if spans:
        hours = sum((b - a).total_seconds() for a, b in spans) / 3600
        t.notes.append(f"it stood resolved {hours:.2f} h before its re-open(s) ("
                       + ", ".join(f"{a.isoformat()} to {b.isoformat()}" for a, b in spans)
                       + "): Zendesk's requester_wait_time stood still then and ours runs, so that time, not a hold, "
                       "is in the vendor's pause set beside ours in the reconciliation")


def _reopens(events: list[tuple[dt.datetime, str, str]]) -> list[dt.datetime]:
    out, fulfilled = [], False
    for at, m, kind in events:
        if m != "requester_wait_time":
            continue
        if kind == "fulfill":
            fulfilled = True
        elif kind == "activate" and fulfilled:
            out.append(at)
            fulfilled = False
    return out


def _pauses(t: Ticket, events: list[tuple[dt.datetime, str, str]], audits: list[tuple[dt.datetime, dict[str, Any]]],
            tags: list[str], settings: Settings) -> None:
    waits = _intervals(events, "requester_wait_time")
    pending = settings.pauses.get("pending", "wait")
    t.pauses += [Pause(pending, s, e, "pending: waiting on the requester") for s, e in waits]
    wait_starts = {s for s, _ in waits}
    hold = settings.pauses.get("on-hold", "kept")
    tagged = [settings.pauses[f"tag:{tag}"] for tag in tags if f"tag:{tag}" in settings.pauses]
    if tagged:
        hold = tagged[0]
    label = {"kept": "on-hold: the supplier waiting on a third party", "change": "on-hold: an agreed change hold",
             "wait": "on-hold: waiting on you"}[hold]
    t.pauses += [Pause(hold, s, e, label + (f" (tag {tags[0]})" if tagged else ""))
                 for s, e in _intervals(events, "agent_work_time") if s not in wait_starts]
    status: tuple[dt.datetime, str] | None = None
    for at, ev in sorted(audits, key=lambda a: a[0]):
        if ev.get("type") not in ("Change", "Create") or ev.get("field_name") != "custom_status_id":
            continue
        if status is not None:
            kind = settings.pauses.get(f"custom_status:{status[1]}")
            if kind:
                t.pauses.append(Pause(kind, status[0], at, f"custom status {status[1]}"))
        status = (at, str(ev.get("value")))
    if status is not None and settings.pauses.get(f"custom_status:{status[1]}"):
        t.pauses.append(Pause(settings.pauses[f"custom_status:{status[1]}"], status[0], None,
                              f"custom status {status[1]}"))


def _list(item: dict[str, Any], key: str) -> list[Any]:
    """A ticket's list field (custom_fields, tags): absent or null is none; anything else is refused."""
    value = item.get(key)
    if value is None:
        return []
    if not isinstance(value, list):
        raise RowProblem(f"{key} is a {type(value).__name__}, not a list")
    return value


def _text(value: Any) -> str | None:
    if isinstance(value, bool):
        raise RowProblem("a duration is true or false, not a number")
    return None if value is None else str(value)


def _intervals(events: list[tuple[dt.datetime, str, str]], metric: str) -> list[tuple[dt.datetime, dt.datetime | None]]:
    out: list[tuple[dt.datetime, dt.datetime | None]] = []
    paused = None
    for at, m, kind in events:
        if m != metric:
            continue
        if kind == "pause" and paused is None:
            paused = at
        elif kind in ("activate", "fulfill") and paused is not None:
            out.append((paused, at))
            paused = None
    if paused is not None:
        out.append((paused, None))
    return out


def _copies(t: Ticket, copies: list[tuple[tuple[str, int], int, int, str]], timed: bool, times: Times,
            settings: Settings, rules: states.Rules) -> None:
    """What the earlier copies of a ticket in an incremental export say between them: each copy
    is the ticket as it stood from its updated_at (the update that made it so) until its
    generated_timestamp (no update came between). A copy solved or closed followed by one that
    is not is a re-open, dated at the later copy's update (the latest it can have happened); a
    run of pending copies followed by another status is a wait on the requester of at least the
    first copy's update to the last one's generation. Where ticket_metric_events give the
    ticket's metric times, those are its waits and re-opens, and the copies only say how many."""
    t.notes.append(f"{len(copies)} copies in the incremental export (the latest, updated {copies[-1][0][0]}, is "
                   f"the ticket; {len(copies) - 1} earlier counted with it)")
    if timed:
        return
    seen = []
    for (updated, generated), _f, _i, status in copies:
        try:
            at = times.read(updated or None, "updated_at")
        except RowProblem:
            continue
        until = dt.datetime.fromtimestamp(generated, dt.UTC) if 0 <= generated < 253402300800 else at
        if at is not None:
            seen.append((at, max(at, until or at), status))
    pending = settings.pauses.get("pending", "wait")
    run: list[tuple[dt.datetime, dt.datetime, str]] = []
    for n, (at, until, status) in enumerate(seen):
        if n and rules.status(seen[n - 1][2]) == "resolved" and rules.status(status) == "open" and \
                status not in rules.deleted:
            t.reopens.append((at, f"copy updated {seen[n - 1][0].isoformat()} {seen[n - 1][2]}, copy updated "
                                  f"{at.isoformat()} {status}"))
            t.earlier.append((seen[n - 1][0], f"{seen[n - 1][2]}, then re-opened (incremental copies)"))
        if status == "pending":
            run.append((at, until, status))
            continue
        if run:
            t.pauses.append(Pause(pending, run[0][0], run[-1][1], f"pending in {len(run)} incremental cop"
                                  f"{'y' if len(run) == 1 else 'ies'}: the least the wait lasted"))
            run = []
    if t.reopens and t.resolved is not None and t.resolved <= t.reopens[-1][0]:
        t.resolved = None  # solved before the last re-open and not since

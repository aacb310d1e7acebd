"""Notes as clock events: the deal's runbook convention, stated in the map as one regular
expression per clock event (``[notes] wait-start = "(?i)waiting on (the )?client"``).

Every note or work note a format exports (PagerDuty annotate_log_entry, ServiceNow
sys_journal_field work notes, Jira comments, Zendesk comment events, a spreadsheet's note
column) is searched with each pattern; a match is that event at the note's own time, or at the
time its ``at`` group holds. A pattern is text the BPO wrote, so its cost is bounded: it must
parse as a Python regular expression, may not repeat a group that itself repeats (the shape
that backtracks without end), nor refer back to a group, and each search runs with a time limit
on at most ``MAX_NOTE`` characters; one that runs out of time stops the import, naming it.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from day60.errors import InputError
from day60.imports.records import Pause, RowProblem, Ticket, Times, clean

_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
EVENTS = ("detected", "partner-notice", "wait-start", "wait-end", "change-window-start", "change-window-end",
          "restored", "reopened", "withdrawn", "excluded")
GROUPS = ("at", "reason")
MAX_PATTERN = 400
MAX_NOTE = 10_000  # characters of a note searched
SEARCH_SECONDS = 0.05  # a search that takes longer backtracks: the pattern is refused


@dataclass
class Pattern:
    event: str
    text: str
    compiled: Any = None
    matched: int = 0  # notes it matched in this import

    def search(self, note: str) -> Any:
        import regex

        try:
            return self.compiled.search(note[:MAX_NOTE], timeout=SEARCH_SECONDS)
        except TimeoutError:
            raise InputError(f"--map notes.{self.event}", f"the pattern {self.text[:60]!r} took more than "
                                                          f"{SEARCH_SECONDS} s on one note: it backtracks",
                             "write it without alternatives or repeats that can match the same text several "
                             "ways; nothing was written") from None
        except regex.error as exc:  # pragma: no cover - compiled patterns do not fail later
            raise InputError(f"--map notes.{self.event}", f"cannot be searched ({exc})", "rewrite it") from None


def compile_patterns(table: dict[str, Any]) -> dict[str, Pattern]:
    """[notes] from the map, each pattern checked (see the module docstring)."""
    out = {}
    for event, text in table.items():
        if event not in EVENTS:
            raise InputError(f"--map notes.{event}", "is not a clock event a note can stand for",
                             f"[notes] takes: {', '.join(EVENTS)}")
        out[event] = _compile(event, str(text))
    return out


def _compile(event: str, text: str) -> Pattern:
    import re._parser as sre  # the standard library's own parser, to inspect the pattern's shape

    import regex

    name = f"--map notes.{event}"
    if not text.strip() or len(text) > MAX_PATTERN:
        raise InputError(name, f"is empty or longer than {MAX_PATTERN} characters", "write a shorter pattern")
    try:
        parsed = sre.parse(text)
    except (re_error(), RecursionError, OverflowError) as exc:
        raise InputError(name, f"{text[:60]!r} is not a regular expression ({str(exc)[:60]})",
                         "write it in Python's regular expression syntax") from None
    problem = _shape_problem(parsed)
    if problem:
        raise InputError(name, f"{text[:60]!r} {problem}, which can take exponential time on a long note",
                         "rewrite it without that (e.g. '(a+)+' becomes 'a+')")
    unknown = sorted(set(parsed.state.groupdict) - set(GROUPS))
    if unknown:
        raise InputError(name, f"names a group {unknown[0]!r}", f"named groups are: {', '.join(GROUPS)}")
    return Pattern(event, text, regex.compile(text, regex.VERSION0))


def re_error() -> type[Exception]:
    import re

    return re.error


def _shape_problem(parsed: Any, inside_repeat: bool = False) -> str | None:
    import re._constants as c

    for op, arg in parsed:
        if op in (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT):
            low, high, sub = arg
            if inside_repeat and high != low:
                return "repeats a group that itself repeats"
            problem = _shape_problem(sub, inside_repeat or high > 1)
            if problem:
                return problem
        elif op in (c.GROUPREF, c.GROUPREF_EXISTS):
            return "refers back to a group"
        elif op == c.SUBPATTERN:
            problem = _shape_problem(arg[-1], inside_repeat)
            if problem:
                return problem
        elif op == c.BRANCH:
            for branch in arg[1]:
                problem = _shape_problem(branch, inside_repeat)
                if problem:
                    return problem
        elif op in (c.ASSERT, c.ASSERT_NOT, c.ATOMIC_GROUP):
            problem = _shape_problem(arg[-1] if isinstance(arg, tuple) else arg, inside_repeat)
            if problem:
                return problem
    return None


@dataclass
class Applied:
    """What the notes of one ticket said, for the import's findings."""

    events: list[tuple[str, str]] = field(default_factory=list)  # (event, note as written, shortened)
    problems: list[str] = field(default_factory=list)


def apply(t: Ticket, patterns: dict[str, Pattern], times: Times) -> Applied:
    """Turn the ticket's notes into clock facts on the ticket (before its events are built)."""
    done = Applied()
    if not patterns or not t.note_stream:
        return done
    found: list[tuple[dt.datetime, str, str, str]] = []
    for at, text in sorted(t.note_stream, key=lambda n: (n[0] is None, n[0] or _EPOCH)):
        for event in EVENTS:
            pattern = patterns.get(event)
            if pattern is None:
                continue
            m = pattern.search(text)
            if m is None:
                continue
            pattern.matched += 1
            when = at
            if m.groupdict().get("at") or when is None:
                try:
                    when = times.required(m.groupdict().get("at"), f"the time of a note read as {event}")
                except RowProblem as exc:
                    done.problems.append(f"a note matched {event} but its time is unreadable ({exc})")
                    continue
            reason = m.groupdict().get("reason") or text
            found.append((when, event, clean(text, 160), clean(reason, 300)))
            done.events.append((event, clean(text, 80)))
    opened: dict[str, tuple[dt.datetime, str]] = {}
    for when, event, text, reason in sorted(found, key=lambda f: f[0]):
        label = f"note: {text}"
        if event == "detected":
            if t.detected is None or when < t.detected:
                t.detected, t.detected_label = when, f"a note ({text})"
        elif event == "partner-notice":
            if t.partner_notice is None or when < t.partner_notice:
                t.partner_notice = when
        elif event.endswith("-start"):
            kind = "wait" if event == "wait-start" else "change"
            opened.setdefault(kind, (when, label))
        elif event.endswith("-end"):
            kind = "wait" if event == "wait-end" else "change"
            start = opened.pop(kind, None)
            if start is None:
                done.problems.append(f"a note at {when.isoformat()} ends a {kind} that no note began ({text})")
            else:
                t.pauses.append(Pause(kind, start[0], when, start[1]))
        elif event == "restored":
            t.restores.append((when, label))
        elif event == "reopened":
            t.reopens.append((when, label))
        else:  # withdrawn or excluded
            t.outcome = (event, f"a note: {reason}", when)
    for kind, (when, label) in opened.items():
        t.pauses.append(Pause(kind, when, None, label))
    return done

"""The room's words: what a page says, in the exercise's own timezone and without the command line.

The journal and the JSON twin keep ISO 8601 instants, kind names and field names, which scripts
read. People in the room never saw 'day60 log': a page shows every instant in the exercise's
timezone with its offset ("2026-03-03 14:02:07 -05:00"), every kind in words ("written notice
of the drift"), and a refusal as one sentence that names the field on the page, not the flag.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from day60.display import KIND_WORDS, kind_words
from day60.events import DATA_MODELS

KINDS = KIND_WORDS  # shared with the score document (day60.display)

# The fields a refusal names, as the page labels them (the command line's flags mean nothing here).
FIELDS = {
    "--at": "when", "at": "when", "--set at": "the right time", "pause end": "ended at",
    "--id": "id", "--seq": "entry", "f.target": "entry", "target": "entry", "--set reason": "reason",
    "KIND": "", "kind": "",  # the step pressed: the sentence names it
}

FIELD_NAMES = {name for model in DATA_MODELS.values() for name in model.model_fields if "_" in name}
# What else the command line says, as the page would: a field the form shows is filled in, not
# typed as NAME=...; the list of a kind's fields and the command to list them mean nothing here.
_ROOM = [
    (re.compile(r";[^;]*? takes: [^;]*?\(see 'day60 kinds'\)"), ""),
    (re.compile(r"\s*\(see 'day60 kinds'\)"), ""),
    (re.compile(r"\(see 'day60 show'\)"), "(the timeline lists them)"),
    (re.compile(r"needs '([^']+)'=\.\.\."), r"needs '\1': fill it in"),
    (re.compile(r"\badd '([^']+)'=\.\.\."), r"fill in '\1'"),
    (re.compile(r"; log (.+?) first"), r"; record \1 first"),
    (re.compile(r": is missing$"), ": it is needed; fill it in"),
    (re.compile(r"name the seq of the event to correct"), "choose the line to correct"),
    (re.compile(r"String should have at most (\d+) characters?"), r"longer than \1 characters"),
    (re.compile(r"String should have at least (\d+) characters?"), r"shorter than \1 characters"),
    (re.compile(r"Input should be less than or equal to (\d+)"), r"should be \1 or less"),
    (re.compile(r"Input should be greater than or equal to (\d+)"), r"should be \1 or more"),
    (re.compile(r"\bno wait-start\b"), "no start of waiting on the partner"),
    (re.compile(r"\bno change-window-start\b"), "no start of the change window"),
    (re.compile(r"\bno criterion-met\b"), "no rollback criterion met"),
    (re.compile(r"\b(wait|change-window)-(start|end)\b"),  # "record wait-end first"
     lambda m: kind_words(f"incident.{m.group(1)}-{m.group(2)}")),
    (re.compile(r"\ba change-window is\b"), "a change window is"),
    (re.compile(r"\bevent \d+ \(([^()]*)\)"), r"this \1"),  # the line not yet written has no seq to name
    (re.compile(r"(?<![\w-])(" + "|".join(sorted(FIELD_NAMES, key=len, reverse=True)) + r")(?![\w-])"),
     lambda m: m.group(1).replace("_", " ")),  # a field's name as the form labels it (never an id typed)
]

_INSTANT = re.compile(r"\b(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?)(Z|[+-]\d{2}:\d{2})")
_KIND = re.compile(r"(?<![\w.-])(" + "|".join(re.escape(k) for k in sorted(KINDS, key=len, reverse=True))
                   + r")(?![\w-])")
_DOTTED = re.compile(r"(?<![\w.-])(" + "|".join(re.escape(k) for k in sorted(KINDS, key=len, reverse=True) if "." in k)
                     + r")(?![\w-])")  # a kind's name, never a word of the sentence ("accept", "reveal")
_FLAG = re.compile(r"--set (\w+)|--([a-z][a-z-]*)")
_EVENT = re.compile(r"event \d+ \([^)]*\): ")
_ISO_FIX = re.compile(r"write it as ISO 8601, e\.g\. [^;]*?, or 'now'")
_NAIVE = re.compile(r"\b(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}(?::\d{2})?)\b")  # a wall time as typed, no offset
# The clock changes (day60.timeparse.localize), said as what to type on the page.
_TWICE = re.compile(r"; give the offset: (.+?) \(first\) or (.+?) \(second\)")
_SKIPPED = re.compile(r"; give an offset; the nearest real instants are (.+?) and (.+)$")


def is_instant(text: str) -> bool:
    """Whether ``text`` is a whole ISO 8601 instant with its offset."""
    return bool(_INSTANT.fullmatch(text.strip()))


def shown_at(text: Any, tz: Any = None, fine: bool = False) -> str:
    """An instant as a person reads it, in ``tz`` (the exercise's zone) with its offset, to the
    second: "2026-03-03 14:02:07 -05:00" (``fine``: to the microsecond when it has one, where the
    fraction is what the sentence is about). Text that is no instant is returned as it is."""
    if not text:
        return ""
    try:
        value = dt.datetime.fromisoformat(str(text))
    except ValueError:
        return str(text)
    if value.tzinfo is None:
        return f"{value:%Y-%m-%d %H:%M:%S}"
    if tz is not None:
        value = value.astimezone(tz)
    offset = value.strftime("%z")
    clock = f"{value:%H:%M:%S}" + (f".{value.microsecond:06d}" if fine and value.microsecond else "")
    return f"{value:%Y-%m-%d} {clock} {offset[:3]}:{offset[3:]}"


def readable(text: Any, tz: Any = None) -> str:
    """Text the checklist made (a step's label, an open item) as a person reads it: its instants in
    the exercise's zone to the second, its kinds in words."""
    text = _INSTANT.sub(lambda m: shown_at(f"{m.group(1)}T{m.group(2)}{m.group(3).replace('Z', '+00:00')}", tz),
                        str(text))
    return _DOTTED.sub(lambda m: kind_words(m.group(1)), text)


def plain(message: str, tz: Any = None, zone: str = "") -> str:
    """``message`` (a refusal or a warning made for the command line) in the room's words: its
    instants in the exercise's zone, its kinds in words, its flags as the fields the page shows."""
    hint = f"type a date and time such as 2026-03-02 09:00 (read as {zone} time), or leave it empty for now" \
        if zone else "type a date and time such as 2026-03-02 09:00, or leave it empty for now"
    field, sep, rest = message.partition(": ")
    if sep and field.casefold().startswith("data."):  # a field of the line's data: as the form labels it
        field = field[5:]
        message = f"{field.replace('_', ' ')}: {rest}"
    if sep and field in FIELDS:  # the field the refusal is about, as the page labels it
        message = f"{FIELDS[field][:1].upper()}{FIELDS[field][1:]}: {rest}" if FIELDS[field] else rest
    message = _EVENT.sub("", message)  # the line being pressed is the one the person knows
    text = _ISO_FIX.sub(hint, message)
    text = _INSTANT.sub(lambda m: shown_at(f"{m.group(1)}T{m.group(2)}{m.group(3).replace('Z', '+00:00')}", tz, True),
                        text)
    text = _NAIVE.sub(r"\1 \2", text)
    text = _TWICE.sub(r" (the clocks go back an hour then); type it with its offset: \1 for the first time, "
                      r"or \2 for the second", text)
    text = _SKIPPED.sub(r"; type a time that exists, with its offset, such as \1 or \2", text)
    text = _KIND.sub(lambda m: kind_words(m.group(1)), text)

    def flag(m: re.Match[str]) -> str:
        whole = m.group(0)
        if whole in FIELDS:
            return f"'{FIELDS[whole]}'"
        name = m.group(1) or m.group(2)
        return f"'{name.replace('_', ' ')}'"

    text = text.replace("'day60 correct'", "the step \u201ccorrect a line\u201d").replace("log incident reopened",
                                                                                       "record incident reopened")
    text = _FLAG.sub(flag, text)
    for rule, words_for in _ROOM:
        text = rule.sub(words_for, text)
    return text[:1].upper() + text[1:]

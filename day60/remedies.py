"""Disputes: what may be disputed and in whose name (checked before the dispute is written), and
what an upheld dispute may grant: exclusions of items from the disputed line's own section only
(a dispute of the restore line cannot take a rollback out of the figures), checked before the
resolution is written, since metrics would not apply any other."""

from __future__ import annotations

from pathlib import Path

from day60 import reading
from day60.errors import InputError
from day60.metrics import line_sections


def check_dispute(journal: Path, line: str, role: str, organisation: str | None = None) -> None:
    """Refuse a dispute of something that is not a line of the published rubric, and, when the
    person names the organisation they speak for, one that is not the organisation the journal's
    header gives the ``role`` they act as (the organisation is always taken from the role; the
    name given is only checked against it, without regard to case)."""
    from day60 import journal as jr
    from day60 import permissions, rubric

    ids = [x.id for x in rubric.load().lines]
    if line not in ids:
        raise InputError("--line", f"{line[:40]!r} is not a rubric line", f"use one of {', '.join(ids)}")
    if organisation is None:
        return
    speaks_for = permissions.organisation(role, jr.read_header(journal))
    if organisation.casefold() != speaks_for.casefold():
        raise InputError("--organisation", f"{organisation[:60]!r} is not the organisation of the "
                         f"{permissions.table().label(role)} in this journal ({speaks_for!r})",
                         "drop --organisation, or give the --as role whose organisation it is")


def check_exclusions(journal: Path, dispute_seq: int, exclude: list[str]) -> None:
    """Refuse an exclusion of an id outside the disputed line's section (a dispute of the restore
    line cannot take a rollback out of the figures): metrics would not apply it."""
    events = reading.read(journal, events=True).events
    line = next((e["data"]["line"] for e in events if e["seq"] == dispute_seq and e["kind"] == "dispute"), None)
    if line is None:
        return  # the journal's own rule names the wrong --dispute
    section = line_sections().get(line)
    kinds = {"drift": ("drift.onset",), "incident": ("incident.",), "rollback": ("rollback.",)}.get(section, ())
    ids = {e["id"] for e in events if e["kind"].startswith(kinds)} if kinds else set()
    wrong = [x for x in exclude if x not in ids]
    if wrong:
        raise InputError("--exclude", f"{', '.join(x[:40] for x in wrong[:5])}: the disputed line {line} scores "
                                      f"{section or 'no'} items, and this journal has no {section or 'such'} item "
                                      "with that id", "name ids of the line's own section (see 'day60 show'): a "
                                                      "remedy applies to the disputed line's figures only")

"""Where a ticket stands in its vendor's own records, by rules kept as data (``states.yaml``).

A record's state comes from everything it says: a status in a closed category, a resolution
and its time, the class or type of the record, its tags. The words each vendor uses are in
``states.yaml``, beside this module, for a reviewer to read; a deal's map adds its own in
[states] (a custom done status, an issue type that is not an incident). Every reader asks here
and never keeps a list of its own.

A closed record with no time for its end is "closed, time not evidenced" (``Ticket.ended``), never
open; a deleted or merged record, and a record that is not an incident, is counted apart
(``Ticket.apart``) and never scored.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from day60.errors import InputError

DELETED, MERGED, NOT_INCIDENT = "deleted", "merged", "not an incident"  # counted apart, as the import lists them


@dataclass(frozen=True)
class Rules:
    """One vendor's words, the shipped ones and the map's together."""

    vendor: str
    resolved: frozenset[str] = frozenset()
    closed: frozenset[str] = frozenset()
    deleted: frozenset[str] = frozenset()
    open: frozenset[str] = frozenset()  # states known not over (ServiceNow, csv; Jira where there is no category)
    merged: frozenset[str] = frozenset()  # Zendesk tags, PagerDuty resolve reasons, and the map's words
    not_incident: frozenset[str] = frozenset()  # classes or types the map names
    incident_classes: frozenset[str] = frozenset()  # ServiceNow: sys_class_name values that are incidents
    done_categories: frozenset[str] = frozenset()  # Jira: Status Category values that are done
    done_statuses: frozenset[str] = frozenset()  # Jira: done statuses, where the export has no category
    source: dict[str, Any] = field(default_factory=dict, compare=False)  # which file, its version and sha256

    def status(self, *values: str | None) -> str:
        """``resolved``, ``closed``, ``deleted`` or ``open``: the first of ``values`` (a status, a
        state code, a label) that the rules name decides; none named is open."""
        for value in values:
            word = (value or "").strip()
            if not word:
                continue
            for standing, words in (("resolved", self.resolved), ("closed", self.closed), (DELETED, self.deleted)):
                if word in words:
                    return standing
        return "open"

    def known(self, value: str | None) -> bool:
        """Whether ``value`` (a state code or label) is one the rules name as open, resolved, closed
        or deleted: a reader whose vendor lists its open states (``open`` in states.yaml) refuses
        any other, never reading a word it does not know as open."""
        word = (value or "").strip()
        return any(word in words for words in (self.open, self.resolved, self.closed, self.deleted))

    def is_open(self, value: str | None) -> bool:
        """Whether ``value`` is a state the rules name as open (not merely one they do not name)."""
        return (value or "").strip() in self.open

    def merged_by(self, values: Iterable[str]) -> str | None:
        """The first of ``values`` (tags, a resolve reason) that says the record was merged into another."""
        return next((v for v in values if isinstance(v, str) and v.strip() in self.merged), None)

    def excluded_kind(self, value: str | None) -> bool:
        """A class or type the map names as not an incident."""
        return (value or "").strip() in self.not_incident


@lru_cache(maxsize=1)
def _shipped() -> tuple[dict[str, Any], str]:
    from day60.resources import import_rules, shipped_yaml

    raw = import_rules().read_bytes()
    return shipped_yaml(raw), hashlib.sha256(raw).hexdigest()


def shipped_source() -> dict[str, Any]:
    """The rules file as provenance: its name, version and SHA-256."""
    doc, sha = _shipped()
    return {"file": "day60/imports/states.yaml", "version": doc["version"], "sha256": sha}


def rules(vendor: str, extra: dict[str, list[str]] | None = None) -> Rules:
    """``vendor``'s rules from ``states.yaml`` with the map's [states] words added."""
    doc, _ = _shipped()
    table = doc.get(vendor) or {}
    extra = extra or {}

    def words(*names: str, more: str | None = None) -> frozenset[str]:
        out = [str(v).strip() for name in names for v in (table.get(name) or [])]
        out += [v.strip() for v in (extra.get(more or "") or [])]
        return frozenset(v for v in out if v)

    unknown = set(table) - {"resolved", "closed", "open", "deleted", "merged_tags", "merged_reasons",
                            "incident_classes", "done_categories", "done_statuses"}
    if unknown:  # pragma: no cover - the shipped file is the toolkit's own; a test reads every vendor
        raise InputError("states.yaml", f"{vendor}: {sorted(unknown)} are not state rules", "fix the shipped file")
    return Rules(vendor, resolved=words("resolved", more="resolved"), closed=words("closed", more="closed"),
                 deleted=words("deleted", more="deleted"), open=words("open", more="open"),
                 merged=words("merged_tags", "merged_reasons", more="merged"),
                 not_incident=words(more="not_incident"), incident_classes=words("incident_classes"),
                 done_categories=words("done_categories"), done_statuses=words("done_statuses"),
                 source=shipped_source())

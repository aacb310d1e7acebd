"""Every record of every export file, in exactly one counted bucket (charter 3.1.2: nothing is
silently dropped, and counts that do not reconcile fail the run).

A format's reader counts what each file holds as it reads it (``read``), independently of where
each record goes; the records then land in the buckets:

- ``imported``: a ticket written to the journal (or already there, or extended), and every record
  of another file read into it (its history, metrics, log entries, SLA records);
- ``skipped``: left out with a reason (the severity map's skip; deleted, merged or not an
  incident; a record the import does not read, such as a sys_audit row of another field);
- ``unreadable``: with its file, row and reason;
- ``unmatched``: a record of a file that completes the tickets, for a ticket the main export does
  not hold, listed with the ticket's id;
- ``conflicts``: a ticket the journal holds otherwise, left for a person.

A ticket's own row and the records read into it follow the ticket's bucket. ``check`` holds the
buckets of every file to what was read; a difference stops the import before anything is written.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from day60.errors import InputError

BUCKETS = ("imported", "skipped", "unreadable", "unmatched", "conflicts")


@dataclass
class Book:
    """One export file's records."""

    file: str  # the name as given
    read: int = 0
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(BUCKETS, 0))
    skipped: dict[str, int] = field(default_factory=dict)  # reason -> records

    def as_dict(self) -> dict[str, Any]:
        return {"file": self.file, "read": self.read, **self.counts,
                "skipped_reasons": dict(sorted(self.skipped.items(), key=lambda kv: -kv[1]))}


class Books:
    """The books of one import: a ``Book`` per export file, keyed by the path as given."""

    def __init__(self, paths: list[Path]) -> None:
        self.books = {str(p): Book(p.name) for p in paths}
        self.aliases: dict[str, str] = {}  # a stand-in file a reader wrote -> the export it stands for

    def alias(self, stand_in: Path | str, export: Path | str) -> None:
        """Records read from ``stand_in`` (a copy a reader wrote of ``export`` in another shape, such
        as a ServiceNow JSON answer as CSV) are the export's records."""
        self.aliases[str(stand_in)] = self.key(export)

    def key(self, path: Path | str) -> str:
        return self.aliases.get(str(path), str(path))

    def read(self, path: Path | str, n: int = 1) -> None:
        """``n`` more records read from the file."""
        self.books[self.key(path)].read += n

    def add(self, key: str, bucket: str, n: int = 1, reason: str | None = None) -> None:
        book = self.books.get(key)
        if book is None:  # a record no file is known for: a fault of the reader, caught by check
            raise InputError("EXPORT", f"a record was counted for a file the import was not given ({key[:60]})",
                             "this is a fault in day60: report it with the export's shape; nothing was written")
        book.counts[bucket] += n
        if bucket == "skipped":
            why = reason or "not read"
            book.skipped[why] = book.skipped.get(why, 0) + n

    def skip(self, key: str, reason: str, n: int = 1) -> None:
        """Records of a file the import does not read, with the reason."""
        if n:
            self.add(key, "skipped", n, reason)

    def settle(self, ticket: Any, bucket: str, reason: str | None = None) -> None:
        """A ticket's own record and every record read into it land where the ticket did."""
        if ticket.file:
            self.add(ticket.file, bucket, 1, reason)
        for key, n in ticket.attached.items():
            if n:
                self.add(key, bucket, n, reason and f"{reason} (records of its ticket)")

    def rows(self) -> list[dict[str, Any]]:
        return [b.as_dict() for b in self.books.values()]

    def check(self) -> None:
        """Every file's buckets add up to what was read from it, or the import stops."""
        for b in self.books.values():
            landed = sum(b.counts.values())
            if landed != b.read:
                raise InputError("EXPORT", f"{b.file}: {b.read} record(s) read but {landed} accounted for "
                                           f"({', '.join(f'{k} {v}' for k, v in b.counts.items())}), so a record "
                                           "would vanish or count twice", "this is a fault in day60: report it "
                                           "with the export's shape; nothing was written")

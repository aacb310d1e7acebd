"""The lists an import reports, kept on disk as they grow: the id of every ticket imported,
extended, unchanged, left out or in conflict, every unreadable row and every finding.

An import of a year of tickets lists every one of them (``--format json`` prints them all:
nothing is dropped), about 450 bytes a ticket as Python objects: 450 MB for a million, held
beside DuckDB's reader and then beside the reconciliation's figures. A ``Spool`` holds its last
``MEMORY`` items in memory and writes the rest, ``MEMORY`` items pickled together a row, to a
private temporary SQLite file shared by the import's lists (``Store``), then reads them back in
the order they were added, a row at a time (a row an item cost about 3 microseconds of CPU an
item, 7 s for a million tickets' lists; a row of 5,000 about 0.3). It is read as the list it
stands for: its length, its items by place or slice, iteration, equality with a list; ``chunks``
writes it as ``json.dumps(indent=2)`` writes a list, for ``cli.base.print_json`` to stream where
it stands in a document.

The file is SQLite's own temporary database (a connection to ""), removed when the connection
closes; it is made only when a list first outgrows ``MEMORY``, so a small import writes none.
"""

from __future__ import annotations

import json
import pickle
from collections.abc import Callable, Iterable, Iterator
from itertools import islice
from typing import Any

PAGE = 10_000  # items a piece of JSON text holds (``json_chunks``)


class Store:
    """The temporary SQLite file an import's spooled lists share; opened when first needed."""

    def __init__(self) -> None:
        self._con: Any = None
        self._lists = 0

    def spool(self) -> Spool:
        """A new, empty list kept in this store."""
        self._lists += 1
        return Spool(self, self._lists)

    @property
    def con(self) -> Any:
        if self._con is None:
            import sqlite3

            self._con = sqlite3.connect("", isolation_level=None)  # "": a private file, deleted when closed
            self._con.executescript("PRAGMA cache_size=-2048; PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;"
                                    "CREATE TABLE pages (list INTEGER NOT NULL, n INTEGER NOT NULL,"
                                    " items BLOB NOT NULL, PRIMARY KEY (list, n)) WITHOUT ROWID")
        return self._con


class Spool:
    """A list whose items past the last ``MEMORY`` live in ``store``'s file (see the module's
    docstring), ``MEMORY`` items pickled together a row; ``prepend`` puts a few items before the rest."""

    MEMORY = 5_000  # items held in memory before they are written out together

    def __init__(self, store: Store, key: int) -> None:  # made by Store.spool
        self._store = store
        self._key = key
        self._head: list[Any] = []  # items put before the rest (``prepend``)
        self._pages: list[int] = []  # how many items each page written to the file holds, in order
        self._written = 0  # items in the file
        self._held: list[Any] = []  # the items after them, not yet written

    def append(self, item: Any) -> None:
        self._held.append(item)
        if len(self._held) >= self.MEMORY:
            self._write()

    def extend(self, items: Iterable[Any]) -> None:
        for item in items:
            self.append(item)

    def prepend(self, items: Iterable[Any]) -> None:
        """``items`` before every item already here (a reader's notes, known only once it has read)."""
        self._head[:0] = list(items)

    def _write(self) -> None:
        self._store.con.execute("INSERT INTO pages VALUES (?, ?, ?)", (
            self._key, len(self._pages), pickle.dumps(self._held, pickle.HIGHEST_PROTOCOL)))
        self._pages.append(len(self._held))
        self._written += len(self._held)
        self._held = []

    def _page(self, n: int) -> list[Any]:
        (items,) = self._store.con.execute("SELECT items FROM pages WHERE list = ? AND n = ?",
                                           (self._key, n)).fetchone()
        return pickle.loads(items)  # this process's own file (unlinked once opened), written just before

    def __len__(self) -> int:
        return len(self._head) + self._written + len(self._held)

    def __iter__(self) -> Iterator[Any]:
        return self._from(0)

    def __getitem__(self, index: int | slice) -> Any:
        n = len(self)
        if isinstance(index, slice):
            start, stop, step = index.indices(n)
            if step < 0:
                return list(self)[index]
            return list(islice(self._from(start), 0, max(0, stop - start), step))
        if index < 0:
            index += n
        if not 0 <= index < n:
            raise IndexError("spooled list index out of range")
        return next(self._from(index))

    def _from(self, start: int) -> Iterator[Any]:
        """The items from place ``start`` on, reading the file only from the page that holds it."""
        head, pages, held = list(self._head), list(self._pages), list(self._held)
        yield from head[start:]
        skip = max(0, start - len(head))
        for n, size in enumerate(pages):
            if skip >= size:
                skip -= size
                continue
            yield from self._page(n)[skip:]
            skip = 0
        yield from held[skip:]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, (list, Spool)):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]  # as a list's: it changes

    def __repr__(self) -> str:
        return f"Spool({len(self)} items)"

    def chunks(self, indent: str = "") -> Iterator[str]:
        """The items as ``json.dumps(..., indent=2, sort_keys=True)`` writes a list's items at
        ``indent``, joined by commas, a page at a time (the brackets around them are the caller's)."""
        return json_chunks(self, indent)


class Streamed:
    """A list of ``n`` items that ``items()`` yields afresh each time it is read (the rows of a
    reconciliation, built as they are read), written to JSON as ``Spool`` writes its own."""

    def __init__(self, n: int, items: Callable[[], Iterable[Any]]) -> None:
        self._n, self._items = n, items

    def __len__(self) -> int:
        return self._n

    def __iter__(self) -> Iterator[Any]:
        return iter(self._items())

    def chunks(self, indent: str = "") -> Iterator[str]:
        return json_chunks(self, indent)


def json_chunks(items: Iterable[Any], indent: str) -> Iterator[str]:
    """``items`` as ``json.dumps(..., indent=2, sort_keys=True, ensure_ascii=False)`` writes a list's
    items at ``indent`` (``print_json``'s layout), joined by commas, ``PAGE`` items a piece."""
    from day60.display import jsonable

    piece: list[str] = []
    first = True
    for item in items:
        text = json.dumps(jsonable(item), indent=2, sort_keys=True, ensure_ascii=False, allow_nan=False)
        piece.append(text.replace("\n", "\n" + indent))  # JSON text holds no newline inside a string
        if len(piece) == PAGE:
            yield ("" if first else ",") + "\n" + indent + f",\n{indent}".join(piece)
            piece, first = [], False
    if piece:
        yield ("" if first else ",") + "\n" + indent + f",\n{indent}".join(piece)

"""Vendor JSON exports read as a stream: one record at a time, never the whole document.

A REST answer is an envelope (``{"tickets": [...], "next_page": ...}``, ``{"result": [...]}``,
``{"issues": [...]}``) around a list of records. ``envelope`` finds which of the keys a format
takes holds that list, reading only as far as the key; ``records`` then yields the list's
records one by one, parsed by ijson (its C backend, yajl) from the file this process opened,
so a file of a million records takes the memory of one record, not of the file. The other
top-level values (a cursor, ``end_of_stream``) are not read.

JSON that is not JSON (a truncated page, a stray byte) stops the import naming the file and
how far it got; a record that is not an object is the reader's to list as unreadable. A UTF-8
byte-order mark (an editor's "UTF-8 with BOM") is passed over; UTF-16 is refused in one line.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from day60.errors import InputError

MAX_STREAMED_JSON_BYTES = 64 * 1024 * 1024 * 1024  # streamed: the limit of a ticket export, not of memory


def _open(path: Path, field_name: str) -> Any:
    from day60.files import open_regular

    fd = open_regular(path, field_name, "a JSON export", MAX_STREAMED_JSON_BYTES)
    fh = os.fdopen(fd, "rb")
    head = fh.read(3)
    if head[:2] in (b"\xff\xfe", b"\xfe\xff"):  # a UTF-16 byte-order mark: Windows' "Unicode" save
        fh.close()
        raise InputError(field_name, f"{path} is JSON saved as UTF-16 (its byte-order mark says so), and a vendor "
                                     "API writes UTF-8", "save the API's answer again as UTF-8 (or convert it: iconv "
                                                         "-f UTF-16 -t UTF-8); nothing was written")
    fh.seek(3 if head == b"\xef\xbb\xbf" else 0)  # a UTF-8 byte-order mark (an editor's save) is passed over
    return fh


def _broken(path: Path, field_name: str, exc: Exception) -> InputError:
    said = " ".join(str(exc).split())[:160] or type(exc).__name__
    return InputError(field_name, f"{path} is not JSON as a vendor API writes it ({said})",
                      "save the API's answer again, whole and unchanged (UTF-8); nothing was written")


def _events(path: Path, field_name: str) -> Iterator[tuple[str, str, Any]]:
    """ijson's parse events of the answer, streamed; a file that is not JSON refused in one line."""
    import ijson

    with _open(path, field_name) as fh:
        try:
            yield from ijson.parse(fh, use_float=True)
        except (ijson.JSONError, UnicodeDecodeError, ValueError) as exc:
            raise _broken(path, field_name, exc) from None


def envelope(path: Path, keys: tuple[str, ...], field_name: str = "EXPORT") -> str | None:
    """Which of ``keys`` (top-level keys of the answer) holds a list, the first met in the file;
    ``""`` for a file that is itself a list; None when none does."""
    for prefix, event, _value in _events(path, field_name):
        if prefix == "" and event == "start_array":
            return ""
        if event == "start_array" and prefix in keys:
            return prefix
        if prefix == "" and event in ("end_map", "string", "number", "boolean", "null"):
            return None
    return None


def records(path: Path, key: str, field_name: str = "EXPORT") -> Iterator[Any]:
    """The records of the list under ``key`` (``""``: the file is the list), one at a time."""
    import ijson

    prefix = f"{key}.item" if key else "item"
    with _open(path, field_name) as fh:
        try:
            yield from ijson.items(fh, prefix, use_float=True)
        except ijson.JSONError as exc:
            raise _broken(path, field_name, exc) from None
        except (UnicodeDecodeError, ValueError, RecursionError) as exc:
            raise _broken(path, field_name, exc) from None


def top_keys(path: Path, field_name: str = "EXPORT", limit: int = 64) -> list[str]:
    """The first ``limit`` top-level keys of an answer, for a message naming what a file holds."""
    import ijson

    out: list[str] = []
    with _open(path, field_name) as fh:
        try:
            for prefix, event, value in ijson.parse(fh, use_float=True):
                if prefix == "" and event == "map_key":
                    out.append(str(value))
                    if len(out) >= limit:
                        break
        except (ijson.JSONError, UnicodeDecodeError, ValueError):
            pass
    return out


ABSENT = object()  # top_value: the answer has no such key


def top_value(path: Path, key: str, field_name: str = "EXPORT") -> Any:
    """The scalar value of the top-level ``key`` of an answer (a paging field such as a next-page
    token, which may come after the records), streamed; ``ABSENT`` where the answer has no such key
    or its value is not a scalar."""
    for prefix, event, value in _events(path, field_name):
        if prefix == key and event in ("string", "number", "boolean", "null"):
            return value
        if prefix == key:
            return ABSENT
    return ABSENT

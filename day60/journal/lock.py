"""The journal file opened for appending under an exclusive lock, and one line written whole
and fsynced: the two things every writer of a journal does."""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from day60.errors import InputError


@contextmanager
def locked(path: Path) -> Iterator[int]:
    """The journal opened for appending under an exclusive lock (regular files only)."""
    import stat

    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_NONBLOCK)
    except FileNotFoundError as exc:
        raise InputError("JOURNAL", f"no journal at {path}", "create one with 'day60 new'") from exc
    except OSError as exc:
        raise InputError("JOURNAL", f"cannot open {path} for appending ({exc.strerror})",
                         "give the path of a journal made by 'day60 new'") from exc
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise InputError("JOURNAL", f"{path} is not a regular file", "give the path of a journal")
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield fd
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


def write_line(fd: int, line: str, path: Path | str = "the journal") -> None:
    data = memoryview((line + "\n").encode("utf-8"))
    try:
        while data:
            data = data[os.write(fd, data):]
        os.fsync(fd)
    except OSError as exc:
        raise InputError("JOURNAL", f"could not append to {path} ({exc.strerror}); it may now end with a "
                         "partial line", f"free some space, then run 'day60 verify --repair {path}'") from exc

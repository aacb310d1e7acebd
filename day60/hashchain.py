"""A journal's hash chain checked with hashlib, line by line, over the bytes of an open file: each
event line's ``prev`` member holds the SHA-256 of the line before it and, for ``verify``, its
``hash`` member the SHA-256 of the line without that member (cut out as ``journal.own_hash`` cuts
it). One pass hashes each line once for the chain and once for its own hash, never more; a
hashlib call on one line costs a little less than DuckDB's sha256 on it, and in a child process
it runs beside the scan instead of inside it.

The engine runs this module as a script in a child process beside its scan (``python -I -S``,
through ``subprocess``, which starts a new interpreter and so is safe in a process that holds other
threads, as ``day60 serve`` does), handing it the descriptor it holds locked, so the child reads
the very file the scan reads. The module imports nothing from day60, so the child starts in the
time of a bare interpreter.

What it checks is only the bytes of the two members. The caller checks, on every line, that the
line is in canonical form (the scan's rebuilt line, or ``journal.canonical`` for the lines it
hands to Python) and that both members are 64 hex digits: in such a line the last ``,"prev":"``
and ``,"hash":"`` are the top-level members, since only strings and the seq follow them and a
string in canonical JSON cannot hold ``,"`` unescaped. So no line whose chain or own hash the
reference reader would refuse passes both.

As a script: ``hashchain.py FD SIZE OWN`` prints ``ok LINES`` (the complete lines in the first
SIZE bytes) or ``bad LINE`` (the first line, numbered from 1, that fails) on standard output.
"""

from __future__ import annotations

import os
import sys
from hashlib import sha256

BLOCK = 1 << 24  # bytes read at a time
_PREV, _HASH = b',"prev":"', b',"hash":"'


def first_break(fd: int, size: int, own_hashes: bool) -> tuple[int | None, int]:
    """The first line (numbered from 1) of the first ``size`` bytes of ``fd`` whose ``prev`` is not
    the SHA-256 of the line before it, or (``own_hashes``) whose ``hash`` is not the SHA-256 of the
    line without that member, or None; and the number of complete lines read. The header (line 1)
    is checked by neither (the caller checks it whole); bytes after the last LF are not a line.

    A plain loop: each line's two SHA-256 are most of its cost (OpenSSL's set-up for each call,
    more than the hashing of a few hundred bytes), and checking a block at a time with
    comprehensions and joined members measured no faster."""
    before: bytes | None = None  # the hex SHA-256 of the line before; None before the header
    offset, n, carry = 0, 0, b""
    while offset < size:
        block = os.pread(fd, min(BLOCK, size - offset), offset)
        if not block:
            break  # shorter than it was: the caller sees the line count differ and declines
        offset += len(block)
        cut = block.rfind(b"\n")
        if cut < 0:
            carry += block
            continue
        text = carry + block[:cut] if carry else block[:cut]
        carry = block[cut + 1:]
        for line in text.split(b"\n"):
            n += 1
            if before is not None:
                at = line.rfind(_PREV)
                if at < 0 or line[at + 9:at + 73] != before or line[at + 73:at + 74] != b'"':
                    return n, n
                if own_hashes:
                    at = line.rfind(_HASH)
                    if at < 0 or line[at + 73:at + 74] != b'"' or \
                            sha256(line[:at] + line[at + 74:]).hexdigest().encode() != line[at + 9:at + 73]:
                        return n, n
            before = sha256(line).hexdigest().encode()
    return None, n


def main(argv: list[str]) -> int:
    fd, size, own = int(argv[1]), int(argv[2]), argv[3] == "1"
    bad, lines = first_break(fd, size, own)
    sys.stdout.write(f"bad {bad}\n" if bad is not None else f"ok {lines}\n")
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

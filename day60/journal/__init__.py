"""The exercise journal: an append-only, hash-chained JSON Lines file, and the one face the rest
of the toolkit uses to read, write and check it.

Line 1 is the header; every later line is one event whose ``prev`` is the SHA-256 of the
previous line's bytes and whose ``hash`` is the SHA-256 of its own canonical JSON without
``hash``. Nothing is ever rewritten: a correction or a reveal is a new event, and the
*effective* view applies them. Appends take an exclusive file lock and are fsynced.

The package, one idea a module, each importing only those above it in this list:

- ``line``: the line format (canonical JSON, hashes, parsing and checking one line);
- ``sealing``: the commitment that stands for a sealed instant, and the runner's held file;
- ``rules``: the rules of fact and the effective view (``State``, ``check_rules``);
- ``reader``: the reference reader (``read``, ``read_header``, ``Journal``);
- ``lock``: the append lock and a whole, fsynced line;
- ``verification``: ``verify`` and ``scan`` streamed over the file, ``repair``;
- ``index``: the sidecar index an append reads instead of the whole journal;
- ``store``: ``create``, ``append``, ``correct``, ``build``, ``batch``, ``reveal``.

Code outside the package imports from here (``from day60 import journal``), never a private
name of a module inside it (``tests/test_architecture.py`` holds that).
"""

from day60.errors import InputError
from day60.journal.index import working_journal
from day60.journal.line import (
    GENESIS,
    Lines,
    canonical,
    check_body,
    check_event,
    check_header,
    check_line,
    loads_line,
    own_hash,
    parse_line,
    sha256_hex,
    with_hash,
)
from day60.journal.reader import Journal, read, read_header
from day60.journal.rules import Effective, Ending, State, check_new, check_rules, effective
from day60.journal.sealing import commitment, load_held
from day60.journal.store import (
    Batch,
    Revealed,
    append,
    batch,
    build,
    correct,
    create,
    event_problem,
    new_event,
    now_iso,
    reveal,
)
from day60.journal.verification import Scan, VerifyReport, anchor_problem, parse_head, repair, scan, verify

__all__ = [
    "GENESIS", "Batch", "Effective", "Ending", "InputError", "Journal", "Lines", "Revealed", "Scan", "State",
    "VerifyReport",
    "anchor_problem", "append", "batch", "build", "canonical", "check_body", "check_event", "check_header",
    "check_line", "check_new", "check_rules", "commitment", "correct", "create", "effective", "event_problem",
    "load_held", "loads_line", "new_event", "now_iso", "own_hash", "parse_head", "parse_line", "read",
    "read_header", "repair", "reveal", "scan", "sha256_hex", "verify", "with_hash",
    "working_journal",
]

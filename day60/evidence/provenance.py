"""Where an output came from: the toolkit, the rules, the inputs' hashes, the run and the command.

Every JSON output carries this block; tables print its short form as a footer and PDFs on their
last page. It names the packages whose release can move a figure (holidays, tzdata), and the
toolkit's version with the source commit it was built from (``day60.source``: recorded in the
wheel at build time, read from the checkout at run time, or stated unknown, never guessed).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

from day60 import __version__
from day60.source import source

CHARTER = "Benchmark charter, sections 2.5, 3.1, 3.3 to 3.21 and 4.5"


def _version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "not installed (the system's time zone data is used)" if package == "tzdata" else "not installed"


def sha256_of(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def provenance(inputs: dict[str, bytes | str | Path | None], command: str = "", **versions: Any) -> dict[str, Any]:
    """The provenance block: ``inputs`` maps a label to the input's bytes (or its path, or a
    sha256 already computed); ``command`` is the command line; ``versions`` adds rubric, clause
    library or question-set versions."""
    hashed = {}
    for label, value in inputs.items():
        if value is None:
            continue
        if isinstance(value, Path):
            value = value.read_bytes()
        hashed[label] = value if isinstance(value, str) else sha256_of(value)
    origin = source()
    return {
        "toolkit": toolkit(origin),
        "toolkit_version": __version__,
        "source": origin,
        "charter": CHARTER,
        **{k: v for k, v in versions.items() if v is not None},
        "inputs_sha256": hashed,
        "run_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "command": command,
        "packages": {"holidays": _version("holidays"), "tzdata": _version("tzdata"),
                     "python": sys.version.split()[0]},
    }


def toolkit(origin: dict[str, Any]) -> str:
    """'day60 0.1.0, source commit <hash>' (with its uncommitted changes, or unknown) in one phrase."""
    if origin["commit"] is None:
        return f"day60 {__version__}, source commit {origin['text']}"
    dirty = f" plus uncommitted changes to {len(origin['changed'])} path(s)" if origin["dirty"] else ""
    return f"day60 {__version__}, source commit {origin['commit']}{dirty}"


def footer(block: dict[str, Any]) -> str:
    """The block in one line, for a table's last line."""
    inputs = ", ".join(f"{k} {v[:12]}" for k, v in block["inputs_sha256"].items())
    return (f"{block['toolkit']}; {block['charter']}; inputs (sha256) {inputs}; run {block['run_at']}; "
            f"holidays {block['packages']['holidays']}, tzdata {block['packages']['tzdata']}")

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
from collections.abc import Callable
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


def toolkit(origin: dict[str, Any], version: str = __version__) -> str:
    """'day60 0.1.0, source commit <hash>' (with its uncommitted changes, or unknown) in one phrase."""
    if origin["commit"] is None:
        return f"day60 {version}, source commit {origin['text']}"
    dirty = f" plus uncommitted changes to {len(origin['changed'])} path(s)" if origin["dirty"] else ""
    return f"day60 {version}, source commit {origin['commit']}{dirty}"


# ----- a recorded block, checked field by field (verify-report) ---------------------------------------

# No day60 output can be older than the toolkit's first line (2026-11-30), nor younger than now; a
# time another machine's clock wrote is allowed this much beyond either bound of the journal's.
EARLIEST = dt.datetime(2026, 11, 30, tzinfo=dt.UTC)
CLOCK_TOLERANCE = dt.timedelta(minutes=5)
KEYS = {"toolkit", "toolkit_version", "source", "charter", "inputs_sha256", "run_at", "command", "packages"}
VERSION = r"[0-9]+(\.[0-9]+){0,3}((a|b|rc)[0-9]+)?(\.post[0-9]+)?(\.dev[0-9]+)?(\+[a-z0-9]+(\.[a-z0-9]+)*)?"
PACKAGE_WORDS = {"holidays": ("not installed",),
                 "tzdata": ("not installed", "not installed (the system's time zone data is used)"),
                 "python": ()}
HOW_KNOWN = {True: ("read from the git checkout at run time", "recorded when this copy was built"),
             False: ("no build record and no git checkout", "the build record is malformed, so it is not used")}
MAX_COMMAND = 16 * 1024
Parser = Callable[[tuple[str, ...], list[str]], dict[str, bool]]


def instant(value: Any) -> dt.datetime | None:
    """An aware instant written as day60 writes one (ISO 8601, whole seconds, its offset), or None."""
    if not isinstance(value, str) or len(value) > 40:
        return None
    try:
        parsed = dt.datetime.fromisoformat(value)
    except ValueError:
        return None
    if parsed.tzinfo is None or parsed.isoformat(timespec="seconds") != value:
        return None
    return parsed


def check(block: Any, versions: dict[str, str], earliest: dt.datetime | None, written_at: dt.datetime,
          command: tuple[str, ...], options: dict[str, bool], parse: Parser | None = None) -> list[str]:
    """What is wrong with a recorded provenance block, field by field: every field typed, nothing
    free where a value belongs. ``versions``: the rules' versions it must name (rubric, question
    set, drill rules) as the verifier computed them; ``earliest``: the journal's first line (the
    run cannot be older); ``written_at``: the document's own time (the run cannot be younger);
    ``command``: the day60 command that writes this kind of report (``("score",)``); ``options``:
    whether each option must (True) or must not (False) be on the command line, from what the
    report carries (``--sow`` with a deal, ``--sign`` with a signer); ``parse``: the CLI's own
    parser (``day60.cli.base.given_options``), which says which options a command line gives and
    raises on one that command does not take."""
    import re

    from day60.source import _HASH, describe

    if not isinstance(block, dict):
        return ["it is not a provenance block"]
    wrong = []
    expected = KEYS | set(versions)
    missing, extra = sorted(expected - set(block)), sorted(set(block) - expected)
    if missing:
        wrong.append(f"it lacks {', '.join(missing)}")
    if extra:
        wrong.append(f"it holds field(s) day60 never writes there: {', '.join(k[:40] for k in extra[:5])}")
    version = block.get("toolkit_version")
    if not isinstance(version, str) or not re.fullmatch(VERSION, version):
        wrong.append("toolkit_version is not a version number")
        version = None
    origin = block.get("source")
    if not _source_ok(origin, _HASH, describe):
        wrong.append("source is not a commit as day60 records one (a 40-digit hash or unknown, whether the tree "
                      "differed, the paths that did, and how it is known, in day60's own words)")
    elif version is not None and block.get("toolkit") != toolkit(origin, version):
        wrong.append(f"toolkit reads {_shown(block.get('toolkit'))}, where its version and source give "
                     f"{_shown(toolkit(origin, version))}")
    if block.get("charter") != CHARTER:
        wrong.append(f"charter reads {_shown(block.get('charter'))}, not the charter this toolkit encodes "
                     f"({CHARTER!r})")
    for key, value in versions.items():
        if block.get(key) != value:
            wrong.append(f"{key} reads {_shown(block.get(key))}, where the report's own carries {value!r}")
    packages = block.get("packages")
    if not isinstance(packages, dict) or set(packages) != set(PACKAGE_WORDS) or not all(
            isinstance(v, str) and (re.fullmatch(VERSION, v) or v in PACKAGE_WORDS[k]) for k, v in packages.items()):
        wrong.append("packages is not the holidays, tzdata and Python versions")
    inputs = block.get("inputs_sha256")
    if not isinstance(inputs, dict) or not all(isinstance(v, str) and re.fullmatch(r"[0-9a-f]{64}", v)
                                               for v in inputs.values()):
        wrong.append("inputs_sha256 is not a SHA-256 for each input")
    wrong += _run_at(block.get("run_at"), earliest, written_at)
    wrong += _command(block.get("command"), command, options, parse)
    return wrong


def _source_ok(origin: Any, commit_pattern: Any, describe: Any) -> bool:
    if not isinstance(origin, dict) or set(origin) != {"commit", "dirty", "changed", "recorded", "text"}:
        return False
    commit, dirty, changed, how = origin["commit"], origin["dirty"], origin["changed"], origin["recorded"]
    known = commit is not None
    if known and not (isinstance(commit, str) and commit_pattern.fullmatch(commit) and isinstance(dirty, bool)):
        return False
    if not known and (dirty is not None or changed):
        return False
    if how not in HOW_KNOWN[known] or not isinstance(changed, list) or len(changed) > 100_000:
        return False
    if not all(isinstance(p, str) and 0 < len(p) <= 4096 and p.isprintable() and not p.startswith("/")
               for p in changed) or (known and dirty != bool(changed)):
        return False
    return bool(origin == (describe(commit, dirty, changed, how) if known else describe(None, None, recorded=how)))


def _run_at(value: Any, earliest: dt.datetime | None, written_at: dt.datetime) -> list[str]:
    when = instant(value)
    if when is None:
        return [f"run_at reads {_shown(value)}, not an instant as day60 writes one (ISO 8601, whole seconds, "
                "with its offset)"]
    floor = max(EARLIEST, (earliest.replace(microsecond=0) - CLOCK_TOLERANCE) if earliest else EARLIEST)
    now = dt.datetime.now(dt.UTC)
    if when < floor:
        what = "the journal's first line" if earliest and floor > EARLIEST else "the toolkit's first line"
        return [f"run_at reads {value}, before {what} ({floor.isoformat(timespec='seconds')}): no run of day60 can "
                "be older"]
    if when > now + CLOCK_TOLERANCE:
        return [f"run_at reads {value}, later than now ({now.isoformat(timespec='seconds')})"]
    if when > written_at:
        return [f"run_at reads {value}, later than the document was written ({written_at.isoformat()})"]
    return []


def _command(value: Any, command: tuple[str, ...], options: dict[str, bool], parse: Parser | None) -> list[str]:
    """The command line: printable, at most MAX_COMMAND characters, and one that the day60 command
    writing this kind of report parses, with each option the report's contents call for."""
    import shlex

    words = " ".join(("day60", *command))
    if not isinstance(value, str) or len(value) > MAX_COMMAND or not value.isprintable():
        return [f"command is not a command line (printable, at most {MAX_COMMAND:,} characters)"]
    if value == "day60 demo":
        return []
    try:
        argv = shlex.split(value)
    except ValueError:
        return [f"command reads {_shown(value)}, which is not a command line"]
    if argv[: len(command) + 1] != ["day60", *command]:
        return [f"command reads {_shown(value)}, which is not a '{words}' command line"]
    if parse is None:  # called without the CLI's parser (from Python): the shape alone is checked
        return []
    try:
        given = parse(command, argv[len(command) + 1:])
    except Exception:
        return [f"command reads {_shown(value)}, which '{words}' does not take"]
    for option, needed in options.items():
        if given.get(option, False) != needed:
            return [f"command reads {_shown(value)}, " + (f"without {option}, which the report's contents call for"
                                                         if needed else f"with {option}, which the report's "
                                                                        "contents rule out")]
    return []


def _shown(value: Any) -> str:
    from day60.display import visible

    text = visible(repr(value))
    return text if len(text) <= 100 else text[:97] + "..."


def footer(block: dict[str, Any]) -> str:
    """The block in one line, for a table's last line."""
    inputs = ", ".join(f"{k} {v[:12]}" for k, v in block["inputs_sha256"].items())
    return (f"{block['toolkit']}; {block['charter']}; inputs (sha256) {inputs}; run {block['run_at']}; "
            f"holidays {block['packages']['holidays']}, tzdata {block['packages']['tzdata']}")

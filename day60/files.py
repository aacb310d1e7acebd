"""Files a person names: reading inputs safely, and writing outputs without harming them.

Inputs: only regular files are read (a folder, pipe or device is refused before it can hang
or flood memory), JSON and TOML are parsed with every number checked (no NaN, no infinity,
nothing beyond ±10^15, no 4,300-digit integers) and nesting bounded.

Outputs: every output a command will write is checked before any work starts (its folder
exists and takes a file, it is not one of the inputs, not a journal, held file or index, not a
device), then written to a temporary file in the same folder and renamed into place, so a
reader never sees half a file and a failure leaves nothing behind.
"""

from __future__ import annotations

import contextlib
import errno
import json
import math
import os
import re
import stat
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from day60.errors import InputError

MAX_INPUT_BYTES = 64 * 1024 * 1024  # a deal, answers, dialogue or observations file
MAX_JOURNAL_BYTES = 16 * 1024 * 1024 * 1024
MAX_NUMBER = 10**15  # larger magnitudes are never a figure, a count or a time here
MAX_DEPTH = 64  # nesting of JSON and TOML inputs


def _os_problem(exc: OSError) -> str:
    return exc.strerror or exc.__class__.__name__


def open_regular(path: str | Path, field: str, what: str, limit: int = MAX_INPUT_BYTES) -> int:
    """Open ``path`` for reading as a file descriptor, refusing anything but a regular file."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # never blocks on a named pipe
    except FileNotFoundError as exc:
        raise InputError(field, f"no file at {path}", f"give the path of {what}") from exc
    except IsADirectoryError as exc:
        raise InputError(field, f"{path} is a folder", f"give the path of {what}") from exc
    except OSError as exc:
        raise InputError(field, f"cannot open {path} ({_os_problem(exc)})", f"give the path of {what}") from exc
    info = os.fstat(fd)
    problem = None
    if stat.S_ISDIR(info.st_mode):
        problem = f"{path} is a folder"
    elif not stat.S_ISREG(info.st_mode):
        problem = f"{path} is not a regular file (a device, pipe or socket)"
    elif info.st_size > limit:
        problem = f"{path} holds {info.st_size:,} bytes, more than the {limit:,} this input may have"
    if problem:
        os.close(fd)
        raise InputError(field, problem, f"give the path of {what}")
    return fd


def read_bytes(path: str | Path, field: str, what: str, limit: int = MAX_INPUT_BYTES) -> bytes:
    fd = open_regular(path, field, what, limit)
    try:
        with os.fdopen(fd, "rb") as fh:
            # read as the file grows, never by asking for ``limit`` bytes at once (one read of
            # limit + 1 allocates that much before the first byte arrives: 512 MiB for a report)
            size = os.fstat(fh.fileno()).st_size
            data = fh.read(min(size, limit) + 1)
            while len(data) <= limit:
                more = fh.read(min(1 << 20, limit + 1 - len(data)))
                if not more:
                    break
                data += more
    except OSError as exc:
        raise InputError(field, f"cannot read {path} ({_os_problem(exc)})", f"give the path of {what}") from exc
    if len(data) > limit:
        raise InputError(field, f"{path} is larger than the {limit:,} bytes this input may have",
                         f"give the path of {what}")
    return data


# ----- numbers and nesting ------------------------------------------------------------------


class _BadNumber(ValueError):
    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.text = text


def _parse_int(text: str) -> int:
    if len(text) > 20:
        raise _BadNumber(text)
    return int(text)


def _parse_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value) or abs(value) > MAX_NUMBER:
        raise _BadNumber(text)
    return value


def _refuse_constant(text: str) -> Any:
    raise _BadNumber(text)


def _number_problem(text: str) -> str:
    shown = text if len(text) <= 24 else text[:12] + "..." + f" ({len(text)} characters)"
    return f"holds the number {shown}, which is not a finite number within ±10^15"


def check_values(value: Any, field: str, source: str) -> Any:
    """Refuse nesting deeper than MAX_DEPTH and numbers that are not finite or beyond ±10^15."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            if depth > MAX_DEPTH:
                raise InputError(field, f"{source} is nested more than {MAX_DEPTH} levels deep",
                                 "flatten it; no input of this toolkit nests that far")
            stack.extend((v, depth + 1) for v in (item.values() if isinstance(item, dict) else item))
        elif isinstance(item, bool):
            continue
        elif isinstance(item, int) and abs(item) > MAX_NUMBER:
            raise InputError(field, f"{source} {_number_problem(str(item))}", "give a number in range")
        elif isinstance(item, float) and (not math.isfinite(item) or abs(item) > MAX_NUMBER):
            raise InputError(field, f"{source} {_number_problem(repr(item))}", "give a number in range")
    return value


class _TwiceKey(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _unique_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _TwiceKey(key)
        out[key] = value
    return out


def loads_json(text: str | bytes, field: str, what: str, source: str = "the file") -> Any:
    """Parse JSON text with every number and the nesting checked; one InputError on any fault.
    An object that names a key twice is refused wherever it comes from: readers differ on which
    value it holds (Python keeps the last, others the first), so either reading could be disputed."""
    try:
        if isinstance(text, bytes):
            text = text.decode("utf-8")
        value = json.loads(text, parse_int=_parse_int, parse_float=_parse_float, parse_constant=_refuse_constant,
                           object_pairs_hook=_unique_pairs)
    except _TwiceKey as exc:
        raise InputError(field, f"{source} names the key {exc.key[:40]!r} twice in one object",
                         "keep one value for it") from exc
    except _BadNumber as exc:
        raise InputError(field, f"{source} {_number_problem(exc.text)}", "give finite numbers in range") from exc
    except RecursionError as exc:
        raise InputError(field, f"{source} is nested too deeply to read", f"fix it so it is {what}") from exc
    except json.JSONDecodeError as exc:
        raise InputError(field, f"{source} is not valid JSON at line {exc.lineno} ({exc.msg})",
                         f"fix it so it is {what}") from exc
    except UnicodeDecodeError as exc:
        raise InputError(field, f"{source} is not UTF-8 text", f"fix it so it is {what}") from exc
    return check_values(value, field, source)


def loads_yaml(text: str | bytes, field: str, what: str, source: str = "the file") -> Any:
    """Parse YAML a person or a report supplies (never libyaml, which recurses in C): nesting past
    MAX_DEPTH and aliases (``*name``, which can make nine lines into a billion values) are refused
    by name before any value is built, and numbers are checked as JSON's are. Raises InputError, or
    yaml.YAMLError for a syntax fault (the caller names the file it expected)."""
    import yaml

    class Loader(yaml.SafeLoader):
        depth = 0

        def compose_node(self, parent: Any, index: Any) -> Any:
            if self.check_event(yaml.AliasEvent):
                raise InputError(field, f"{source} uses a YAML alias (*name), which {what} never needs",
                                 "write the value out in full")
            self.depth += 1
            if self.depth > MAX_DEPTH:
                raise InputError(field, f"{source} is nested more than {MAX_DEPTH} levels deep",
                                 f"flatten it; {what} never nests that far")
            try:
                return super().compose_node(parent, index)
            finally:
                self.depth -= 1

    try:
        value = yaml.load(text, Loader=Loader)
    except RecursionError as exc:
        raise InputError(field, f"{source} is nested too deeply to read", f"fix it so it is {what}") from exc
    return check_values(value, field, source)


def read_json(path: str | Path, field: str, what: str) -> Any:
    """Parse a JSON file; ``what`` says what the file should be, e.g. "a dialogue file"."""
    return loads_json(read_bytes(path, field, what), field, what, str(path))


def read_toml(path: str | Path, field: str, what: str) -> tuple[dict[str, Any], bytes]:
    """Parse a TOML file; returns the table and the raw bytes (for hashing)."""
    import tomllib  # here, not at the top: 'day60 log' reads no TOML, and tomllib compiles its patterns on import

    raw = read_bytes(path, field, what)
    try:
        data = tomllib.loads(raw.decode("utf-8"), parse_float=_parse_float)
    except _BadNumber as exc:
        raise InputError(field, f"{path} {_number_problem(exc.text)}", "give finite numbers in range") from exc
    except RecursionError as exc:
        raise InputError(field, f"{path} is nested too deeply to read", f"fix it so it is {what}") from exc
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise InputError(field, f"{path} is not valid TOML ({exc})", f"fix it so it is {what}") from exc
    except ValueError as exc:  # an integer of more than 4,300 digits
        raise InputError(field, f"{path} holds a number too long to read", "give numbers in range") from exc
    return check_values(data, field, str(path)), raw


# ----- outputs ------------------------------------------------------------------------------

# A journal's header line, a held file and a timestamp token file carry their format; an index is
# an SQLite database; a score or a notice names the journal it was made from (its head and hash);
# a signed or timestamped PDF carries a signature dictionary's /ByteRange.
_PROTECTED = re.compile(rb'"format"\s*:\s*"day60\.(journal|held|timestamp)/1"')
_PUBLISHED = (re.compile(rb'"journal_head"\s*:'), re.compile(rb'"journal_sha256"\s*:'))
_SIGNED = re.compile(rb"/ByteRange\s*\[")
_SQLITE = b"SQLite format 3\x00"
PROTECT_SCAN = 64 * 1024 * 1024  # bytes of an existing output read to recognise it
PROTECT_TAIL = 4 * 1024 * 1024  # bytes at the end of a larger PDF read for a signature added last
_WHAT = {b"journal": "a day60 journal", b"held": "a day60 held file",
         b"timestamp": "a day60 timestamp token file (the third party's proof kept apart from the journal)"}


def _same_file(a: os.stat_result, b: os.stat_result) -> bool:
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)


def protected(path: str | Path) -> str | None:
    """What a file is, if it is one that no output may replace, recognised by its content however
    long its header: a day60 journal, held file or timestamp token file (the format it names
    anywhere in its first 64 MiB), an index (the SQLite signature it begins with), a score or
    notice of a journal (it names the journal's head and hash: a later score supersedes it by its
    SHA-256, a notice's is logged in the journal), or a signed or timestamped PDF (a signature
    made with a key or by a TSA cannot be made again)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return None
    head = b""
    tail = b""
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return None
        while len(head) < PROTECT_SCAN:
            chunk = os.read(fd, min(1 << 20, PROTECT_SCAN - len(head)))
            if not chunk:
                break
            head += chunk
            if head.startswith(_SQLITE):
                return "a database (such as a journal's sidecar index)"
        if head.lstrip()[:5] == b"%PDF-" and info.st_size > len(head):
            start = max(len(head), info.st_size - PROTECT_TAIL)
            tail = os.pread(fd, info.st_size - start, start)
    except OSError:
        return None
    finally:
        os.close(fd)
    if head.lstrip()[:5] == b"%PDF-":
        if _SIGNED.search(head) or _SIGNED.search(tail):
            return "a signed or timestamped PDF (its signature cannot be made again)"
        return _pdf_evidence(path, info.st_size)
    found = _PROTECTED.search(head)
    if found is not None:
        return _WHAT[found.group(1)]
    if all(p.search(head) for p in _PUBLISHED):
        return PUBLISHED
    return None


PUBLISHED = "a day60 score or notice of a journal (what was published, named by its SHA-256 later)"
REPORT = ("a day60 report PDF (it carries the data 'day60 verify-report' checks it against; a re-score "
          "supersedes it by name)")


def _pdf_evidence(path: str | Path, size: int) -> str | None:
    """What an unsigned PDF is, if it carries evidence: a day60 report (it embeds document.json),
    or a letter whose embedded data names a journal's head and hash (a notice). Its attachments
    are listed through the bounded reader (day60.evidence.pdf) and at most their first MiB read."""
    from day60.evidence import pdf as pdfs

    try:
        with open(path, "rb") as fh, pdfs.quiet(), pdfs.bounded(size):
            from pypdf import PdfReader

            pdf = PdfReader(fh, strict=False)
            names = pdfs.embedded_names(pdf)
            if pdfs.REPORT_MANIFEST in names:
                return REPORT
            for count, entry in enumerate(pdf.attachment_list):
                if count >= pdfs.MAX_ATTACHMENTS:
                    break
                stream = entry._embedded_file
                raw = stream._data if isinstance(stream._data, bytes) else b""
                body = pdfs.inflate(raw, 1 << 20, "an attachment", truncate=True) \
                    if str(stream.get("/Filter")) == "/FlateDecode" else raw[: 1 << 20]
                found = _PROTECTED.search(body)
                if found is not None:
                    return _WHAT[found.group(1)]
                if all(p.search(body) for p in _PUBLISHED):
                    return PUBLISHED
    except Exception:  # a PDF the reader cannot take carries nothing it can recognise
        return None
    return None


def check_output(field: str, path: str | Path, inputs: Iterable[tuple[str, str | Path | None]] = ()) -> Path:
    """Refuse an output that cannot be written, or whose writing would destroy something.

    Checked before any work: the folder exists and takes a new file, the name fits, and the
    path is not an input, a journal, a held file, a folder or a device.
    """
    path = Path(path)
    fix = "choose another output path"
    if not path.name or path.name in (".", ".."):
        raise InputError(field, f"{path} names a folder, not a file", fix)
    if len(os.fsencode(path.name)) > 255:
        raise InputError(field, f"the file name is {len(os.fsencode(path.name))} bytes long, more than 255", fix)
    parent = path.parent
    try:
        if not stat.S_ISDIR(os.stat(parent).st_mode):
            raise InputError(field, f"{parent} is not a folder", fix)
    except FileNotFoundError as exc:
        raise InputError(field, f"the folder {parent} does not exist", "create it first, or " + fix) from exc
    except OSError as exc:
        raise InputError(field, f"cannot use the folder {parent} ({_os_problem(exc)})", fix) from exc
    try:
        target = os.stat(path)
    except FileNotFoundError:
        target = None
    except OSError as exc:
        raise InputError(field, f"cannot use {path} ({_os_problem(exc)})", fix) from exc
    if target is not None:
        if stat.S_ISDIR(target.st_mode):
            raise InputError(field, f"{path} is a folder", fix)
        if not stat.S_ISREG(target.st_mode):
            raise InputError(field, f"{path} is not a regular file (a device, pipe or socket)", fix)
        for name, source in inputs:
            if source is None:
                continue
            try:
                if _same_file(target, os.stat(source)):
                    raise InputError(field, f"{path} is also the input {name}; writing it would destroy it", fix)
            except OSError:
                continue
        what = protected(path)
        if what:
            raise InputError(field, f"{path} is {what}; it is never overwritten", fix)
    try:  # prove the folder takes a new file
        fd, probe = tempfile.mkstemp(dir=parent, prefix=".day60-", suffix=".probe")
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise InputError(field, f"cannot write in {parent} ({_os_problem(exc)})", fix) from exc
    return path


def check_outputs(outputs: dict[str, str | Path | None],
                  inputs: Iterable[tuple[str, str | Path | None]] = (), new: str | None = None,
                  own: dict[str, bytes] | None = None) -> None:
    """Check every named output (None = not asked for) before any is written. ``new``: the outputs
    must not exist at all (a notice, a token file), and one that does, even as a link to nothing,
    is refused with ``new`` as the fix, once every output has passed the checks above. ``own``:
    for the fields it names, an existing file is replaced only where it begins with the given
    bytes (the header that option writes: the file is one it wrote before); any other file there,
    or a link, is refused, being none of its own."""
    inputs = list(inputs)
    seen: dict[str, str] = {}
    for field, path in outputs.items():
        if path is None:
            continue
        check_output(field, path, inputs)
        key = os.path.abspath(path)
        if key in seen:
            raise InputError(field, f"names the same file as {seen[key]}", "give each output its own path")
        seen[key] = field
    for field, head in (own or {}).items():
        path = outputs.get(field)
        if path is not None and os.path.lexists(path):
            _check_own(field, Path(path), head)
    if new is None:
        return
    for field, path in outputs.items():
        if path is not None and os.path.lexists(path):
            raise InputError(field, f"{path} already exists", new)


def _check_own(field: str, path: Path, head: bytes) -> None:
    """Refuse replacing ``path`` unless it is a regular file (not a link) that begins with ``head``."""
    fix = f"choose a new path for {field}, or delete {path} if it is yours to lose; nothing was written"
    if path.is_symlink():
        raise InputError(field, f"{path} already exists as a link; {field} replaces only a file it wrote", fix)
    try:
        with open(path, "rb") as fh:
            start = fh.read(len(head))
    except OSError as exc:
        raise InputError(field, f"cannot read {path} ({_os_problem(exc)})", fix) from exc
    if start != head:
        raise InputError(field, f"{path} already exists and is not a file {field} wrote (it does not begin with "
                                f"that header: {head.decode('utf-8', 'replace').strip()[:60]}...); it is never "
                                "overwritten", fix)


def folder_outputs(folder: Path, names: dict[str, str], field: str = "--out",
                   inputs: Iterable[tuple[str, str | Path | None]] = ()) -> dict[str, Path]:
    """The files a command writes into an existing ``folder``, by key (``names``: key -> file name),
    each checked as an output (``check_outputs``, named "FIELD (file name)") before any is written."""
    if not os.path.isdir(folder):
        raise InputError(field, f"{folder} is not an existing folder", "create the folder first, or name one")
    targets = {key: folder / name for key, name in names.items()}
    check_outputs({f"{field} ({t.name})": t for t in targets.values()}, inputs)
    return targets


def copy_plan(sources: list[Path], folder: Path, field: str = "--copy") -> list[tuple[Path, Path, bool]]:
    """How files are copied into ``folder`` without replacing any (``day60 examples --copy``): each
    source with its target in ``folder`` and whether that target is already the same file, byte for
    byte (then it is kept; each import example ships one same README.md). A target that exists and
    differs (or is a link) is refused, as is a folder that is not one and a target the output
    checks refuse; nothing is planned until every target passes."""
    if not folder.is_dir():
        raise InputError(field, f"{folder} is not an existing folder", "create the folder first, or name one")
    plan, targets = [], {}
    for src in sources:
        where, target = f"{field} ({src.name})", folder / src.name
        same = target.is_file() and not target.is_symlink() and target.read_bytes() == src.read_bytes()
        if not same and (target.exists() or target.is_symlink()):
            raise InputError(where, f"{target} already exists: an example never replaces a file",
                             "copy into an empty folder")
        if not same:
            targets[where] = target
        plan.append((src, target, same))
    check_outputs(targets, [])
    return plan


def write_atomic(path: str | Path, data: str | bytes | Iterable[str], field: str = "output", mode: int = 0o644,
                 new: bool = False) -> None:
    """Write ``data`` (or each text of an iterable, streamed) to a temporary file beside ``path``,
    fsync it, then rename it into place: the file is there whole or not at all.

    ``new``: the output must not exist (a score, a notice, a token file): it is linked into place,
    which fails if a file of that name appeared while the command ran, instead of replacing it."""
    path = Path(path)
    if new:
        return _write_new(path, data, field, mode)
    parts = [data] if isinstance(data, str | bytes) else data
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name[:40]}.", suffix=".tmp")
        try:
            for part in parts:
                view = memoryview(part.encode("utf-8") if isinstance(part, str) else part)
                while view:
                    view = view[os.write(fd, view):]
            os.fsync(fd)
            os.fchmod(fd, mode)
        finally:
            os.close(fd)
        os.replace(tmp, path)
        tmp = None
    except OSError as exc:
        problem = "the disk is full" if exc.errno == errno.ENOSPC else _os_problem(exc)
        raise InputError(field, f"could not write {path} ({problem}); {path} was left as it was (no part of it "
                                f"was written)", "free some space or choose another output path") from exc
    finally:
        if tmp is not None and os.path.exists(tmp):
            os.unlink(tmp)


def _write_new(path: Path, data: str | bytes | Iterable[str], field: str, mode: int) -> None:
    tmp = path.with_name(f".{path.name[:40]}.{os.getpid()}.new.tmp")
    write_atomic(tmp, data, field, mode)
    try:
        os.link(tmp, path)  # never replaces: fails if the name is taken
    except FileExistsError as exc:
        raise InputError(field, f"{path} appeared while this command ran; it was left as it is and nothing was "
                                "written over it", "run again with a new output path") from exc
    except OSError as exc:  # a file system without hard links: create it exclusively instead
        if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EMLINK, errno.EXDEV):
            raise InputError(field, f"could not write {path} ({_os_problem(exc)})", "choose another output path") \
                from exc
        _create_exclusive(path, tmp.read_bytes(), field, mode)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)


def _create_exclusive(path: Path, payload: bytes, field: str, mode: int) -> None:
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    except FileExistsError as exc:
        raise InputError(field, f"{path} appeared while this command ran; it was left as it is", "run again with a "
                                "new output path") from exc
    try:
        view = memoryview(payload)
        while view:
            view = view[os.write(fd, view):]
        os.fsync(fd)
    except OSError as exc:
        os.close(fd)
        os.unlink(path)
        raise InputError(field, f"could not write {path} ({_os_problem(exc)}); nothing of it was kept",
                         "free some space or choose another output path") from exc
    os.close(fd)

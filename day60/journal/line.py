"""The journal's line format: the canonical JSON that is hashed, the hashes, and reading one
line back (parsing it, and what is wrong with it as a header or an event).

Line 1 is the header; every later line is one event whose ``prev`` is the SHA-256 of the previous
line's bytes and whose ``hash`` is the SHA-256 of its own canonical JSON without ``hash``.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from typing import Any

from pydantic import ValidationError

from day60.errors import InputError, pydantic_problem
from day60.events import EVENT_MODELS, Header

GENESIS = "0" * 64
BOM = b"\xef\xbb\xbf"  # a UTF-8 byte-order mark, which day60 never writes


quote = json.encoder.encode_basestring  # a str as canonical JSON writes it (ensure_ascii=False)


_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)
# The same encoder's C core, made once: ``encode`` builds it again for every call, which costs as
# much as the encoding itself for an event's data. Same arguments as ``encode`` passes, but no
# check for circular references (an event is a tree parsed from text or built from typed values).
_C_CANONICAL = json.encoder.c_make_encoder and json.encoder.c_make_encoder(
    None, _CANONICAL.default, json.encoder.encode_basestring, None, ":", ",", True, False, True)


def canonical(obj: dict[str, Any]) -> str:
    """The one JSON form that is hashed: keys sorted, no spaces, text as written (not escaped)."""
    if _C_CANONICAL is not None and type(obj) is dict:
        return "".join(_C_CANONICAL(obj, 0))
    return _CANONICAL.encode(obj)


def sha256_hex(text: str | bytes) -> str:
    return hashlib.sha256(text.encode("utf-8") if isinstance(text, str) else text).hexdigest()


def with_hash(obj: dict[str, Any]) -> dict[str, Any]:
    body = {k: v for k, v in obj.items() if k != "hash"}
    return {**body, "hash": sha256_hex(canonical(body))}


def loads_line(line: str) -> Any:
    """One line of JSON; NaN, Infinity and over-long integers are refused (ValueError)."""
    return json.loads(line, parse_constant=_no_constant)


def _no_constant(text: str) -> Any:
    raise ValueError(f"{text} is not a number JSON allows")


def raw_problem(n: int, raw: bytes, path: Any = "JOURNAL") -> tuple[str, str] | None:
    """What an editor or a file transfer added to line ``n``'s bytes (without its LF), as
    (problem, fix), or None. day60 never writes a byte-order mark, and never a bare CR (JSON
    escapes one inside a text), so removing either gives back exactly the bytes it wrote: the
    fix says how, and that ``day60 verify`` then shows whether anything else changed."""
    import shlex

    name = shlex.quote(str(path))
    if n == 1 and raw.startswith(BOM):
        return ("starts with a UTF-8 byte-order mark (bytes EF BB BF), which an editor added when it saved the "
                "file; day60 never writes one",
                f"remove those three bytes, for example sed -i '1s/^\\xEF\\xBB\\xBF//' {name}, then run "
                f"'day60 verify {name}'")
    if raw.endswith(b"\r"):
        return ("ends in CR LF (Windows line ends), where day60 ends every line with LF alone: an editor or a "
                "file transfer converted the file",
                f"convert the line ends back, for example dos2unix {name} (or sed -i 's/\\r$//' {name}), then run "
                f"'day60 verify {name}'")
    return None


def parse_line(n: int, line: str) -> tuple[Any, str | None]:
    try:
        return loads_line(line), None
    except RecursionError:
        return None, "is nested too deeply to be an event"
    except json.JSONDecodeError as exc:
        return None, f"is not valid JSON ({exc.msg})"
    except ValueError as exc:
        return None, f"holds a number that cannot be read ({str(exc)[:60]})"


def check_header(header: Any) -> str | None:
    """What is wrong with a header line, or None: its schema, window and calendar."""
    from day60.clock import BusinessCalendar

    if not isinstance(header, dict):
        return "is not a JSON object"
    try:
        Header.model_validate(header)
    except ValidationError as exc:
        name, msg = pydantic_problem(exc)
        return f"header field {name}: {msg}"
    w = header["window"]
    if dt.datetime.fromisoformat(w["end"]) <= dt.datetime.fromisoformat(w["start"]):
        return "header field window: the end is not after the start"
    try:
        BusinessCalendar.from_dict(header["calendar"])
    except InputError as exc:
        return f"header field {exc}"
    return None


def check_event(n: int, obj: Any, previous: str) -> str | None:
    """What is wrong with event line ``n`` (chain, seq, schema), or None. Cheap enough for every read."""
    if not isinstance(obj, dict):
        return "is not a JSON object"
    if obj.get("seq") != n - 1:
        return f"seq is {str(obj.get('seq'))[:20]!r}, expected {n - 1} (lines removed or reordered)"
    if obj.get("prev") != sha256_hex(previous):
        return "does not chain to the line before (a line was changed, removed or reordered)"
    return check_body(obj)


def check_body(obj: dict[str, Any]) -> str | None:
    """What is wrong with an event's kind, fields and time, or None (``check_event`` less the chain)."""
    model = EVENT_MODELS.get(obj.get("kind")) if isinstance(obj.get("kind"), str) else None
    if model is None:
        return f"unknown kind {str(obj.get('kind'))[:40]!r}"
    try:
        model.model_validate(obj)
    except ValidationError as exc:
        name, msg = pydantic_problem(exc)
        return f"{name}: {msg}"
    if obj["at"] is None and not (obj["kind"] == "drift.onset" and obj["data"].get("commitment")):
        return "at is null, which only a sealed drift.onset may be"
    return None


def check_line(n: int, line: str, previous: str | None) -> tuple[Any, str | None]:
    """A line parsed, and what is wrong with it (canonical form, own hash, then as ``check_event``)."""
    obj, problem = parse_line(n, line)
    if problem:
        return obj, problem
    if not isinstance(obj, dict):
        return obj, "not a JSON object"
    if canonical(obj) != line:
        return obj, "not in canonical form (the line was edited)"
    if own_hash(line, obj) != obj.get("hash"):
        return obj, "its hash does not match its content (the line was edited)"
    if previous is None:
        return obj, check_header(obj)
    return obj, check_event(n, obj, previous)


def own_hash(line: str, obj: dict[str, Any]) -> str:
    """The SHA-256 of a canonical line without its "hash" member, taken by cutting the member out
    of the line (keys are sorted and no value after "hash" holds an object, so the last
    occurrence is the top-level one); anything unexpected falls back to re-encoding."""
    value = obj.get("hash")
    member = f',"hash":"{value}"' if isinstance(value, str) else None
    at = line.rfind(member) if member else -1
    if at < 0:
        return with_hash(obj)["hash"]
    return sha256_hex(line[:at] + line[at + len(member):])


class Lines:
    """The complete lines of a file read a block at a time, in time linear in its size however
    long a line is. The bytes of a line not yet ended are kept as the blocks they came in and
    joined once, when its end arrives: joining what was left over onto every new block copied a
    line spread over n blocks n times, so a 256 MB file with no line end took 35 s to verify and
    a few gigabytes would have taken hours."""

    def __init__(self) -> None:
        self._open: list[bytes] = []

    def feed(self, block: bytes) -> list[bytes]:
        """The lines ``block`` ends (without their LF), the first one joined to what came before it."""
        cut = block.rfind(b"\n")
        if cut < 0:
            if block:
                self._open.append(block)
            return []
        ended = b"".join([*self._open, block[:cut]]) if self._open else block[:cut]
        self._open = [block[cut + 1:]] if cut + 1 < len(block) else []
        return ended.split(b"\n")

    @property
    def rest(self) -> bytes:
        """The bytes after the last LF fed so far: a line not ended (yet), or b""."""
        return b"".join(self._open)

"""Reading a file a person named: JSON or TOML, or one clear refusal naming the option."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

from day60.errors import InputError


def read_bytes(path: str | Path, field: str, what: str) -> bytes:
    try:
        return Path(path).read_bytes()
    except FileNotFoundError as exc:
        raise InputError(field, f"no file at {path}", f"give the path of {what}") from exc
    except IsADirectoryError as exc:
        raise InputError(field, f"{path} is a folder", f"give the path of {what}") from exc


def read_json(path: str | Path, field: str, what: str) -> Any:
    """Parse a JSON file; ``what`` says what the file should be, e.g. "a dialogue file"."""
    raw = read_bytes(path, field, what)
    try:
        return json.loads(raw.decode("utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        where = f" at line {exc.lineno}" if isinstance(exc, json.JSONDecodeError) else ""
        raise InputError(field, f"{path} is not valid JSON{where}", f"fix it so it is {what}") from exc


def read_toml(path: str | Path, field: str, what: str) -> tuple[dict[str, Any], bytes]:
    """Parse a TOML file; returns the table and the raw bytes (for hashing)."""
    raw = read_bytes(path, field, what)
    try:
        return tomllib.loads(raw.decode("utf-8")), raw
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise InputError(field, f"{path} is not valid TOML ({exc})", f"fix it so it is {what}") from exc

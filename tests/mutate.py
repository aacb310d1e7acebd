"""Malformed inputs for the fuzz tests: a valid document with one value replaced by a strange one.

Documents are JSON-like trees. ``paths`` lists every place in a tree; ``replace`` returns a copy
with one place changed. ``NASTY`` holds the values the issue found crashing the toolkit: wrong
types, non-finite and oversized numbers, huge and invisible strings, deep nesting.
"""

from __future__ import annotations

import copy
import json
from typing import Any

DEEP: Any = []
for _ in range(200):
    DEEP = [DEEP]

NASTY: list[Any] = [
    None, True, -1, 0, 1.5, 10**400, -(10**30), float("nan"), float("inf"), "", "x" * 5000, "\u202eevil",
    "2026-02-30T25:00", "0001-01-01T00:00+14:00", "9999-12-31T23:59", [], [["a"]], {}, {"a": {"b": None}},
    ["vad"], "slow", "1200", [30], DEEP,
]


def paths(tree: Any, prefix: tuple = ()) -> list[tuple]:
    out = [prefix] if prefix else []
    if isinstance(tree, dict):
        for k, v in tree.items():
            out += paths(v, (*prefix, k))
    elif isinstance(tree, list):
        for i, v in enumerate(tree[:4]):
            out += paths(v, (*prefix, i))
    return out


def replace(tree: Any, path: tuple, value: Any) -> Any:
    out = copy.deepcopy(tree)
    node = out
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return out


def drop(tree: Any, path: tuple) -> Any:
    out = copy.deepcopy(tree)
    node = out
    for key in path[:-1]:
        node = node[key]
    del node[path[-1]]
    return out


def to_json(tree: Any) -> str:
    """JSON as a careless tool would write it: NaN and Infinity included, big integers in full."""
    import sys

    sys.set_int_max_str_digits(0)
    try:
        return json.dumps(tree)
    finally:
        sys.set_int_max_str_digits(4300)


def _toml_value(v: Any) -> str:
    if v is None:
        return '"null"'  # TOML has no null
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return {"nan": "nan", "inf": "inf", "-inf": "-inf"}.get(repr(v), repr(v))
    if isinstance(v, int):
        return str(v) if abs(v) < 10**4000 else "1" * 5000
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, list):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{json.dumps(str(k))} = {_toml_value(x)}" for k, x in v.items()) + "}"
    return json.dumps(str(v))


def to_toml(tree: dict[str, Any]) -> str:
    """Enough TOML for the toolkit's own files: top-level tables of values."""
    import sys

    sys.set_int_max_str_digits(0)
    try:
        lines = [f"{json.dumps(name)} = {_toml_value(v)}" for name, v in tree.items() if not isinstance(v, dict)]
        for name, table in tree.items():
            if isinstance(table, dict):
                lines.append(f"[{json.dumps(name)}]")
                lines += [f"{json.dumps(str(k))} = {_toml_value(v)}" for k, v in table.items()]
        return "\n".join(lines) + "\n"
    finally:
        sys.set_int_max_str_digits(4300)

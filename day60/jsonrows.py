"""A table's rows as JSON text, written a slice at a time, for a document too long to build whole
(``metrics --format json`` lists one row per incident: a million of them for a year of tickets).

Each row is one JSON object (keys sorted, as every JSON output sorts them) on its own line, with
the values ``metrics.plain_table`` and ``metrics.records`` give it: instants in ISO 8601 with
their offset, severities as whole numbers, a missing figure ``null``, every other figure
unrounded. A table of ``DUCKDB_FROM`` rows or more is encoded by DuckDB, which writes every
double so that it reads back as the same double (as Python's own ``repr`` does), a slice of
``SLICE`` rows at a time so memory stays flat; a shorter one by ``json``, which costs less than
starting DuckDB. Both give rows that parse to the same values (tests/test_jsonrows.py).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import numpy as np
import pandas as pd

DUCKDB_FROM = 5_000
SLICE = 50_000
_NO_TIME = np.iinfo(np.int64).min  # NaT, as the integer pandas keeps it


class Rows:
    """The rows of ``table`` (its columns in ``columns`` order, or all), to be written as a JSON list
    by ``cli.base.print_json`` wherever it stands in the document."""

    def __init__(self, table: pd.DataFrame, columns: list[str] | None = None) -> None:
        self.table = table  # the columns are taken a slice at a time: never a copy of the whole table
        self.columns = [c for c in (table.columns if columns is None else columns) if c in table]

    def __len__(self) -> int:
        return len(self.table)

    def chunks(self, indent: str = "") -> Iterator[str]:
        """The rows, each a compact JSON object on a line of its own after ``indent``, joined by
        commas, in pieces of at most ``SLICE`` rows (the brackets around them are the caller's)."""
        first = True
        table, columns = self.table, self.columns
        bulk = len(table) >= DUCKDB_FROM and _duckdb_can(table, columns)
        for piece in (_by_duckdb if bulk else _by_json)(table, columns):
            yield ("" if first else ",") + "\n" + indent + f",\n{indent}".join(piece)
            first = False


def _by_json(table: pd.DataFrame, columns: list[str]) -> Iterator[list[str]]:
    from day60.display import jsonable
    from day60.metrics import plain_table, records

    for start in range(0, len(table), SLICE):
        rows = records(plain_table(table.iloc[start:start + SLICE][columns]))
        yield [json.dumps(jsonable(r), sort_keys=True, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
               for r in rows]


def _kind(column: pd.Series) -> str | None:
    """How DuckDB is to write a column, or None where only ``json`` knows how."""
    dtype = column.dtype
    if isinstance(dtype, pd.DatetimeTZDtype):
        return "utc" if str(dtype.tz) == "UTC" else None
    if pd.api.types.is_bool_dtype(dtype) and not pd.api.types.is_object_dtype(dtype):
        return "plain"
    if pd.api.types.is_integer_dtype(dtype):
        return "plain"
    if pd.api.types.is_float_dtype(dtype) and not isinstance(dtype, pd.api.extensions.ExtensionDtype):
        return "whole" if column.name == "severity" else "float"
    if pd.api.types.is_string_dtype(dtype) and pd.api.types.infer_dtype(column, skipna=True) in ("string", "empty"):
        return "text"
    return None


def _duckdb_can(table: pd.DataFrame, columns: list[str]) -> bool:
    return all(isinstance(c, str) and c.isidentifier() and _kind(table[c]) is not None for c in columns)


def _expression(name: str, kind: str) -> str:
    col = f'"{name}"'
    if kind == "utc":  # epoch microseconds: as plain_table writes an instant, whole seconds without a fraction
        return (f"CASE WHEN {col} <> {_NO_TIME} THEN replace(strftime(make_timestamp({col}), "
                f"'%Y-%m-%dT%H:%M:%S.%f'), '.000000', '') || '+00:00' END")
    if kind == "float":  # no figure (NaN) is null, never NaN
        return f"CASE WHEN isfinite({col}) THEN {col} END"
    if kind == "whole":
        return f"CAST(CASE WHEN isfinite({col}) THEN {col} END AS BIGINT)"
    return col


def _by_duckdb(table: pd.DataFrame, columns: list[str]) -> Iterator[list[str]]:
    from day60.engine import connect

    kinds = {c: _kind(table[c]) for c in columns}
    fields = ", ".join(f'"{c}" := {_expression(c, kinds[c])}' for c in sorted(kinds))
    con = connect()  # its progress bar off: it would draw into the JSON; insertion order kept (the default)
    try:
        for start in range(0, len(table), SLICE):
            piece = table.iloc[start:start + SLICE]
            frame = pd.DataFrame({c: _for_duckdb(piece[c], kinds[c]) for c in columns})
            con.register("piece", frame)
            try:
                # in the frame's order: DuckDB keeps a scan's order unless told it need not
                yield [text for (text,) in con.execute(f"SELECT to_json(struct_pack({fields})) FROM piece").fetchall()]
            finally:
                con.unregister("piece")
    finally:
        con.close()


def _for_duckdb(column: pd.Series, kind: str) -> Any:
    if kind == "utc":
        return column.dt.as_unit("us").array.asi8
    if kind == "text":
        return column.to_numpy(dtype=object)
    return column.to_numpy() if kind in ("float", "whole") else column.array

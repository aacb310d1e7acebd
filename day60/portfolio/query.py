"""The portfolio as SQL over the rows, on DuckDB: one query, the same whether the rows come
from this machine's journals or from Parquet files on shared storage.

``PORTFOLIO`` reads a relation called ``exercises`` with the columns ``rows.row`` writes. Here
that relation is the rows just computed; for a firm's whole portfolio it is
``read_parquet('s3://bucket/day60/*.parquet')`` over the files ``--parquet`` writes, and the
query does not change.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

PORTFOLIO = """
SELECT e.*,
       count(*) OVER (PARTITION BY supplier) AS supplier_exercises,
       row_number() OVER (PARTITION BY supplier, tier ORDER BY window_end) AS exercise_at_tier
FROM exercises AS e
ORDER BY supplier, deployment, window_end, exercise
"""


def _relation(con: Any, rows: list[dict[str, Any]]) -> None:
    import pandas as pd

    frame = pd.DataFrame(rows)  # noqa: F841 (DuckDB reads the local variable by its name)
    con.execute("CREATE TEMP TABLE exercises AS SELECT * FROM frame")


def portfolio(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows grouped by supplier, in date order, with each supplier's count of exercises."""
    import duckdb

    if not rows:
        return []
    con = duckdb.connect()
    try:
        _relation(con, rows)
        cursor = con.execute(PORTFOLIO)
        names = [d[0] for d in cursor.description]
        return [_plain(dict(zip(names, values, strict=True))) for values in cursor.fetchall()]
    finally:
        con.close()


def to_parquet(rows: list[dict[str, Any]], out: Path) -> None:
    """The rows as a Parquet file: the unit a firm keeps on shared storage, one per machine or run."""
    import duckdb

    con = duckdb.connect()
    try:
        _relation(con, rows)
        tmp = out.with_name(f".{out.name}.tmp")
        con.execute(f"COPY exercises TO '{str(tmp).replace(chr(39), chr(39) * 2)}' (FORMAT parquet)")
        tmp.replace(out)
    finally:
        con.close()


def _plain(row: dict[str, Any]) -> dict[str, Any]:
    """DuckDB's NaN for a missing figure becomes None: a missing figure is never a number."""
    import math

    return {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in row.items()}

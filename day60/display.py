"""Rounding for people. Figures stay unrounded everywhere else; only tables call these."""

from __future__ import annotations

from typing import Any


def num(value: float | None, digits: int = 2, unit: str = "") -> str:
    """A rounded number with its unit, or 'not run' when there is no figure."""
    if value is None:
        return "not run"
    text = f"{value:,.{digits}f}"
    return f"{text} {unit}".rstrip()


def stat(block: dict[str, Any], unit: str, digits: int = 2) -> str:
    """'mean 3.50 h (n=3, sum 10.50, max 6.00)' or 'not run: <reason>'."""
    if not block.get("count") or block.get("mean") is None:
        return f"not run: {block.get('reason') or 'no observations'}"
    parts = [f"n={block['count']}", f"sum {num(block['sum'], digits)}"]
    if "median" in block:
        parts.append(f"median {num(block['median'], digits)}")
    parts.append(f"max {num(block['max'], digits)}")
    return f"mean {num(block['mean'], digits, unit)} ({', '.join(parts)})"


def percent(value: float | None, reason: str | None = None) -> str:
    return f"not run: {reason}" if value is None else f"{value:.1f}%"

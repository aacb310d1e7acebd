"""Small statistics shared by the figures: nearest-rank percentiles (charter 3.13.2)."""

from __future__ import annotations

import math
from collections.abc import Iterable


def nearest_rank(values: Iterable[float], pct: float) -> float:
    """The value at rank ceil(pct/100 * n) of the sorted values (the median of two is the lower)."""
    ordered = sorted(float(v) for v in values)
    if not ordered:
        raise ValueError("no values")
    rank = max(1, math.ceil(pct / 100 * len(ordered)))
    return ordered[rank - 1]

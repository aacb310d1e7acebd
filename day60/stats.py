"""Small statistics shared by the figures: nearest-rank percentiles (charter 3.13.2)."""

from __future__ import annotations

import math
from collections.abc import Iterable


def nearest_rank(values: Iterable[float], pct: float) -> float:
    """The value at rank ceil(pct/100 * n) of the sorted values (the median of two is the lower)."""
    import numpy as np

    ordered = np.sort(np.asarray(values if isinstance(values, np.ndarray) else list(values), dtype=float))
    if not ordered.size:
        raise ValueError("no values")
    rank = max(1, math.ceil(pct / 100 * ordered.size))
    return float(ordered[rank - 1])

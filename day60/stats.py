"""Small statistics shared by the figures: nearest-rank percentiles (charter 3.8.1, 3.13.2) and
the median of a sample (charter 3.19.1, where the charter fixes no method)."""

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


MEDIAN_RULE = "midpoint of the two middle values"


def median(values: Iterable[float]) -> float:
    """The middle value; of an even count, the midpoint of the two middle ones. The charter asks
    for the median beside the mean of restore times (3.19.1) and fixes nearest rank only for the
    percentiles of latency and time to first token: nearest rank's lower of two would favour the
    supplier and the upper the partner, the midpoint neither (docs/figures.md)."""
    import numpy as np

    ordered = np.sort(np.asarray(values if isinstance(values, np.ndarray) else list(values), dtype=float))
    if not ordered.size:
        raise ValueError("no values")
    mid = ordered.size // 2
    return float(ordered[mid]) if ordered.size % 2 else float((ordered[mid - 1] + ordered[mid]) / 2)

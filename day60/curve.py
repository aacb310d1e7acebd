"""The sliding time curve shared by the Day-60 rubric and the voice drills."""

from __future__ import annotations

import math


def slide(value: float | None, target: float, slide_end: float, cutoff: float = math.inf,
          floor: float = 0.6) -> float:
    """Share of full marks for ``value`` (lower is better).

    1 at or within ``target``; linear down to ``floor`` at ``slide_end``; flat at ``floor`` up
    to and including ``cutoff``; 0 beyond it, and 0 when there is no value (it never happened).
    The unrounded value decides every boundary.
    """
    if value is None or math.isnan(value):
        return 0.0
    if value <= target:
        return 1.0
    if value <= slide_end:
        return 1.0 - (1.0 - floor) * (value - target) / (slide_end - target)
    if value <= cutoff:
        return floor
    return 0.0

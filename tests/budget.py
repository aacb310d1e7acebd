"""How many examples a property test draws, by Hypothesis profile.

Each test names its budget for the "ci" profile (the default: what ``.ci/run`` and a plain
``pytest`` use): enough to cover its strategy's corners, drawn the same on every run, so a red
build is reproducible. The "explore" profile (``HYPOTHESIS_PROFILE=explore pytest``) draws ten
times as many, new ones each run, for an engineer looking for failures nobody has found yet.
The profiles themselves are registered in tests/conftest.py."""

from __future__ import annotations

import os

PROFILES = {"ci": 1, "explore": 10}  # the multiple of each test's own budget
PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "ci")
if PROFILE not in PROFILES:
    raise SystemExit(f"HYPOTHESIS_PROFILE={PROFILE!r} is not a profile here: use one of {', '.join(PROFILES)}")


def examples(ci: int) -> int:
    """The number of examples to draw: ``ci`` under the ci profile, ten times it under explore."""
    return ci * PROFILES[PROFILE]

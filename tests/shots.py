"""Screenshots of a page in Debian's Chromium, taken the same way by every browser test.

A screenshot here is a picture for a person to look at (tests/output/), never what a test
asserts, and it must not fail a test on a busy machine. Chromium answers a capture it cannot
take at that moment with "Unable to capture screenshot": a full-page capture first resizes the
view beyond the window, and on a loaded machine the compositor may not yet have a frame of that
size when the copy is asked for; asked again once a frame has been drawn, it takes the same
picture. So each capture waits for the page to be settled (its fonts loaded, two frames drawn
since), with animations stopped and a generous timeout, and a refused capture is asked again
on a settled page, a few times.
"""

from __future__ import annotations

from pathlib import Path

PATIENCE_MS = 120_000  # a ceiling that matters only on a failure: a loaded machine is slow, not broken
REFUSED = "Unable to capture screenshot"
TRIES = 4

SETTLED = """() => document.fonts.ready.then(() => new Promise(done =>
  requestAnimationFrame(() => requestAnimationFrame(() => done(true)))))"""


def settle(page) -> None:
    """Return once the page's fonts are loaded and two frames have been drawn since: what is on
    the page has been laid out and painted, so a capture sees it and not a frame on its way."""
    page.wait_for_load_state("load", timeout=PATIENCE_MS)
    page.wait_for_function(SETTLED, timeout=PATIENCE_MS, polling="raf")


def screenshot(page, path: str | Path, **options) -> bytes:
    """``page.screenshot(path=path, **options)`` on a settled page, animations stopped; a
    capture Chromium refuses is asked again on a newly drawn frame."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    from playwright.sync_api import Error

    options = {"animations": "disabled", "timeout": PATIENCE_MS, **options}
    for attempt in range(TRIES):
        settle(page)
        try:
            return page.screenshot(path=str(path), **options)
        except Error as exc:
            if REFUSED not in str(exc) or attempt == TRIES - 1:
                raise
    raise AssertionError("unreachable")

"""Which characters the fonts installed on this machine can draw, so a PDF that would print a
name as empty boxes (a CJK partner name, an emoji in an id, on a machine with no such font) says
so instead of passing the boxes off as the name.

Coverage comes from fontconfig (``fc-list``), the same font list WeasyPrint's Pango falls back
through; where fontconfig is not there to ask, nothing is claimed either way."""

from __future__ import annotations

import functools
import html
import re
import shutil
import subprocess

_TAGS = re.compile(r"<style\b.*?</style>|<[^>]+>", re.S | re.I)


@functools.lru_cache(maxsize=1)
def _covered() -> tuple[tuple[int, int], ...] | None:
    """The code point ranges some installed font covers, merged and sorted; None without fontconfig."""
    tool = shutil.which("fc-list")
    if tool is None:
        return None
    try:
        done = subprocess.run([tool, "--format", "%{charset}\n"], capture_output=True, text=True, timeout=20,
                              check=True)
    except (OSError, subprocess.SubprocessError):
        return None
    spans = []
    for token in done.stdout.split():
        first, _, last = token.partition("-")
        try:
            spans.append((int(first, 16), int(last or first, 16)))
        except ValueError:
            continue
    spans.sort()
    merged: list[tuple[int, int]] = []
    for lo, hi in spans:
        if merged and lo <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(merged[-1][1], hi))
        else:
            merged.append((lo, hi))
    return tuple(merged)


def uncovered(text: str) -> list[str]:
    """The distinct characters of ``text`` no installed font draws, in order of first use
    (spaces, controls and joiners aside); [] when every one is drawn or fontconfig cannot say."""
    wanted = dict.fromkeys(ch for ch in text if ord(ch) > 0x7E and not ch.isspace() and ch.isprintable()
                           and ch not in "\u200b\u200c\u200d\ufe0f")
    if not wanted:
        return []
    spans = _covered()
    if not spans:
        return []
    import bisect

    starts = [lo for lo, _ in spans]
    out = []
    for ch in wanted:
        i = bisect.bisect_right(starts, ord(ch)) - 1
        if i < 0 or ord(ch) > spans[i][1]:
            out.append(ch)
    return out


def html_text(page: str) -> str:
    """The text a reader sees in an HTML page: tags and the stylesheet taken out, entities read."""
    return html.unescape(_TAGS.sub(" ", page))


def note(page: str) -> str | None:
    """One line for the user when the PDF of ``page`` will print some characters as boxes."""
    missing = uncovered(html_text(page))
    if not missing:
        return None
    shown = ", ".join(missing[:6]) + (", ..." if len(missing) > 6 else "")
    return (f"{len(missing)} character(s) in this document have no font on this machine and print as empty "
            f"boxes in its PDF ({shown}); install a font that covers them (on Debian: fonts-noto-cjk for "
            "Chinese, Japanese and Korean, fonts-noto-color-emoji for emoji) and write the PDF again")

"""A PDF's text as the tests read it back: pypdf's ``extract_text``, page by page.

Extraction costs about 40 ms a page, as much as rendering the page did, and several tests read
the same PDF (a module's shared schedule or demo report, read by one test for its words, by the
next for each page's, and by a third for where its glyphs lie). So each distinct PDF, told apart
by the SHA-256 of its bytes, is extracted once in a test process, and what that one pass found
is kept for the rest of the run: each page's text and the text runs it visited. Keyed by
content, never by path: a test that writes a new PDF at the same path gets that PDF's text.
"""

from __future__ import annotations

import hashlib
import io
from pathlib import Path
from typing import Any

from pypdf import PdfReader

# A text run as extract_text's visitor is handed it: (text, cm, tm, font size); cm and tm are
# the current and text matrices, six numbers each.
Run = tuple[str, tuple[float, ...], tuple[float, ...], Any]

_kept: dict[str, tuple[tuple[str, ...], tuple[tuple[Run, ...], ...]]] = {}


def _read(pdf: Path | str | bytes) -> tuple[tuple[str, ...], tuple[tuple[Run, ...], ...]]:
    body = pdf if isinstance(pdf, bytes) else Path(pdf).read_bytes()
    digest = hashlib.sha256(body).hexdigest()
    if digest not in _kept:
        texts, runs = [], []
        for page in PdfReader(io.BytesIO(body)).pages:
            visited: list[Run] = []

            def visit(text, cm, tm, font, size, visited=visited):
                visited.append((text, tuple(cm), tuple(tm), size))

            texts.append(page.extract_text(visitor_text=visit))
            runs.append(tuple(visited))
        _kept[digest] = tuple(texts), tuple(runs)
    return _kept[digest]


def page_texts(pdf: Path | str | bytes) -> tuple[str, ...]:
    """Each page's text, exactly as ``PdfReader(pdf).pages[i].extract_text()`` gives it."""
    return _read(pdf)[0]


def page_runs(pdf: Path | str | bytes) -> tuple[tuple[Run, ...], ...]:
    """Each page's text runs, in the order ``extract_text(visitor_text=...)`` visits them."""
    return _read(pdf)[1]


def words(pdf: Path | str | bytes) -> str:
    """The whole document as one line: each page's words one space apart, pages one space apart."""
    return " ".join(" ".join(text.split()) for text in page_texts(pdf))

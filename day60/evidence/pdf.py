"""Reading a PDF someone hands us, as a forger might have made it: quietly, within bounds, and
comparing it with another PDF page by page.

Every reader (pypdf, pyHanko) runs inside ``quiet()``: their warnings and log lines never reach
the terminal, and any fault they raise on a damaged file (truncated, wrong object types,
reference loops, not a PDF at all) becomes one ``InputError`` naming the file (exit 2).

The comparison is what ``verify-report`` rests on: the text of each page as a reader extracts it
(every text object, visible or not), then the page's whole drawing (its content streams, fonts,
images and boxes, resolved and hashed), then what lies outside the pages (the catalog, the
document information, the metadata).
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import logging
import re
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from day60.errors import InputError

LOGGERS = ("pypdf", "pyhanko", "pyhanko_certvalidator", "fontTools", "weasyprint", "asyncio", "urllib3")
MAX_OBJECTS = 200_000  # objects one page's drawing may reach before the file is called damaged
MAX_STREAM = 64 * 1024 * 1024  # decoded bytes of one stream
# Annotations a viewer may draw; a signature's own widget is allowed only with no area.
SIGNING_CATALOG_KEYS = {"/AcroForm", "/Extensions", "/DSS", "/Perms"}


@contextlib.contextmanager
def quiet() -> Iterator[None]:
    """Silence the PDF libraries' warnings and log records while a file is read or written."""
    saved = []
    for name in LOGGERS:
        logger = logging.getLogger(name)
        saved.append((logger, logger.level))
        logger.setLevel(logging.CRITICAL + 10)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield
    finally:
        for logger, level in saved:
            logger.setLevel(level)


def damaged(path: str | Path, exc: BaseException | str, what: str = "PDF") -> InputError:
    """The one message for a file the readers cannot take."""
    reason = exc if isinstance(exc, str) else (f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__)
    reason = re.sub(r"\s+", " ", str(reason))[:120]
    return InputError("REPORT", f"{path} is damaged or is not a {what} ({reason})",
                      "give the report exactly as day60 wrote it (or as it was signed)")


def reader(raw: bytes, path: str | Path) -> Any:
    """A pypdf reader over ``raw``, its page tree and trailer touched once so damage shows here."""
    from pypdf import PdfReader

    if not raw.lstrip()[:5].startswith(b"%PDF-"):
        raise damaged(path, "it does not start with %PDF-")
    try:
        with quiet():
            pdf = PdfReader(io.BytesIO(raw), strict=False)
            if pdf.is_encrypted:
                raise damaged(path, "it is encrypted, which day60 never does")
            _ = len(pdf.pages), pdf.trailer["/Root"].get_object()
    except InputError:
        raise
    except (Exception, RecursionError) as exc:
        raise damaged(path, exc) from None
    return pdf


class Departs(ValueError):
    """A file that reads, but holds what the toolkit never writes (such as one attachment name
    given twice): a forger's work to name, not a damaged file."""


def guarded(path: str | Path, work: Any, *args: Any) -> Any:
    """Run ``work`` on a reader's objects; a fault of the file becomes the one damaged-file message."""
    try:
        with quiet():
            return work(*args)
    except (InputError, Departs):
        raise
    except (Exception, RecursionError) as exc:
        raise damaged(path, exc) from None


def attachments(pdf: Any) -> dict[str, bytes]:
    """Embedded files by name (as the latest revision holds them); a name given twice departs
    from what the toolkit writes (a viewer may show either body)."""
    out: dict[str, bytes] = {}
    for name, bodies in pdf.attachments.items():
        if len(bodies) != 1:
            from day60.display import visible

            raise Departs(f"it embeds {len(bodies)} files named {visible(str(name))[:80]!r}, which day60 never "
                          "writes (a viewer may open either): which of them is the report's data cannot be told")
        if len(bodies[0]) > MAX_STREAM:
            raise ValueError(f"the attachment {name!r} is larger than {MAX_STREAM:,} bytes")
        out[name] = bodies[0]
    return out


def words(text: str) -> list[str]:
    return text.split()


def page_words(pdf: Any) -> list[list[str]]:
    """Each page's text as words (whitespace normalised away)."""
    return [words(page.extract_text() or "") for page in pdf.pages]


def _canonical(obj: Any, memo: dict[int, str], stack: set[int], budget: list[int], skip: frozenset[str]) -> Any:
    """An object as nested tuples: references resolved (each object expanded once and named by
    the hash of what it holds, so sharing and numbering do not matter; a reference back into
    itself is cut), streams by their decoded bytes."""
    from pypdf.generic import ArrayObject, DictionaryObject, IndirectObject, StreamObject

    budget[0] -= 1
    if budget[0] < 0:
        raise ValueError(f"a page reaches more than {MAX_OBJECTS:,} objects")
    if isinstance(obj, IndirectObject):
        key = obj.idnum
        if key in stack:
            return ("cycle",)
        if key not in memo:
            stack.add(key)
            try:
                inner = _canonical(obj.get_object(), memo, stack, budget, skip)
            finally:
                stack.discard(key)
            memo[key] = hashlib.sha256(repr(inner).encode("utf-8")).hexdigest()
        return ("object", memo[key])
    if isinstance(obj, StreamObject):
        data = obj.get_data()
        if len(data) > MAX_STREAM:
            raise ValueError(f"a stream decodes to more than {MAX_STREAM:,} bytes")
        meta = tuple((k, _canonical(obj.raw_get(k), memo, stack, budget, skip)) for k in sorted(map(str, obj))
                     if k not in ("/Length", "/Filter", "/DecodeParms", "/DL"))
        return ("stream", meta, hashlib.sha256(data).hexdigest())
    if isinstance(obj, DictionaryObject):
        return ("dict", tuple((k, _canonical(obj.raw_get(k), memo, stack, budget, skip)) for k in sorted(map(str, obj))
                              if k not in skip))
    if isinstance(obj, ArrayObject):
        return ("array", tuple(_canonical(v, memo, stack, budget, skip) for v in obj))
    return (type(obj).__name__, repr(obj))


def digest(obj: Any, skip: frozenset[str] = frozenset()) -> str:
    """A hash of everything ``obj`` holds and reaches, independent of object numbering."""
    return hashlib.sha256(repr(_canonical(obj, {}, set(), [MAX_OBJECTS], skip)).encode("utf-8")).hexdigest()


def page_digests(pdf: Any) -> list[str]:
    """Each page's drawing: contents, resources (fonts, images), boxes; not its annotations."""
    return [digest(page, frozenset({"/Parent", "/Annots"})) for page in pdf.pages]


def font_names(pdf: Any) -> set[str]:
    """The fonts the pages draw with, subset tags aside (DejaVu-Sans, not ABCDEF+DejaVu-Sans)."""
    names = set()
    for page in pdf.pages:
        fonts = (page.get("/Resources") or {}).get("/Font") or {}
        for ref in fonts.values():
            name = str(ref.get_object().get("/BaseFont", ""))
            names.add(name.split("+", 1)[-1].lstrip("/"))
    return names


def outside_pages(pdf: Any) -> dict[str, str]:
    """What a viewer reads outside the pages, part by part: each catalog entry (the page tree
    aside; entries a signature adds aside), the document information and the trailer's keys."""
    root = pdf.trailer["/Root"].get_object()
    parts = {f"the catalog's {k}": digest(v, frozenset({"/Parent", "/Annots"}))
             for k, v in root.items() if k not in SIGNING_CATALOG_KEYS | {"/Pages"}}
    info = pdf.trailer.get("/Info")
    parts["the document information"] = digest(info) if info is not None else "none"
    parts["the page tree"] = digest(root["/Pages"], frozenset({"/Kids", "/Parent"}))
    return parts


ACTIONS = ("/A", "/AA")  # an action run on a click, on opening a page, on a field's change
FORM_KEYS = {"/Fields", "/SigFlags", "/DA", "/DR"}  # what a signature's form holds; never /XFA


def _field_kind(field: Any) -> Any:
    """A form field's type, its own or inherited from its parents."""
    seen = 0
    while field is not None and seen < 64:
        if field.get("/FT") is not None:
            return field.get("/FT")
        parent = field.get("/Parent")
        field = parent.get_object() if parent is not None else None
        seen += 1
    return None


def _runs_actions(field: Any) -> bool:
    """Whether a field or any parent of it carries an action (JavaScript, a link, a form submit)."""
    seen = 0
    while field is not None and seen < 64:
        if any(key in field for key in ACTIONS):
            return True
        parent = field.get("/Parent")
        field = parent.get_object() if parent is not None else None
        seen += 1
    return False


def annotations(pdf: Any) -> list[str]:
    """Every annotation a viewer could draw or run: anything but a signature's widget with no
    area and no action."""
    found = []
    for number, page in enumerate(pdf.pages, start=1):
        for ref in page.get("/Annots") or []:
            annot = ref.get_object()
            subtype, kind = annot.get("/Subtype"), _field_kind(annot)
            rect = [float(x) for x in annot.get("/Rect") or [0, 0, 0, 0]]
            flat = len(rect) == 4 and (rect[2] - rect[0]) * (rect[3] - rect[1]) == 0
            if subtype == "/Widget" and kind == "/Sig" and flat:
                if _runs_actions(annot):
                    found.append(f"page {number} carries a signature field that runs an action (/A or /AA, such as "
                                 "JavaScript) when the page is opened or the field is used")
                continue
            found.append(f"page {number} carries a {str(subtype or 'untyped').lstrip('/')} annotation that a "
                         "viewer draws over the report")
    return found


def form(pdf: Any) -> list[str]:
    """What a signature's form may hold and nothing else: its fields, each a signature field with
    no action; never an XFA form (which some viewers draw instead of the pages), nor a text field,
    nor a request that the viewer draw fields' appearances anew."""
    root = pdf.trailer["/Root"].get_object()
    acro = root.get("/AcroForm")
    if acro is None:
        return []
    acro = acro.get_object()
    found = [f"the catalog's /AcroForm carries {key}, which day60 and a signature never add"
             + (" (an XFA form, which some viewers show instead of the pages)" if key == "/XFA" else "")
             for key in sorted(map(str, acro)) if key not in FORM_KEYS]
    stack = [(ref, 0) for ref in acro.get("/Fields") or []]
    while stack and len(found) < 8:
        ref, depth = stack.pop()
        field = ref.get_object()
        if depth > 32:
            raise ValueError("the form's fields nest more than 32 levels deep")
        stack += [(kid, depth + 1) for kid in field.get("/Kids") or []]
        name = str(field.get("/T", "unnamed"))[:60]
        if _field_kind(field) != "/Sig":
            found.append(f"the form carries a field {name!r} that is not a signature field")
        elif any(key in field for key in ACTIONS):
            found.append(f"the signature field {name!r} runs an action (/A or /AA, such as JavaScript)")
    return found


@dataclass
class Difference:
    """Where a file first departs from what it should be, in words."""

    part: str  # "page 2", "the page count", "the catalog's /Names", ...
    detail: str


def first_text_difference(have: list[list[str]], want: list[list[str]]) -> Difference | None:
    """The first page whose words differ, with the words around the first difference."""
    for number, (mine, theirs) in enumerate(zip(have, want, strict=False), start=1):
        if mine == theirs:
            continue
        at = next((i for i, (a, b) in enumerate(zip(mine, theirs, strict=False)) if a != b),
                  min(len(mine), len(theirs)))
        start = max(0, at - 3)
        shown = " ".join(mine[start:at + 5]) or "nothing"
        expected = " ".join(theirs[start:at + 5]) or "nothing"
        return Difference(f"page {number}", f"prints \u201c{_clip(shown)}\u201d where the embedded data renders "
                                            f"\u201c{_clip(expected)}\u201d (word {at + 1} of the page)")
    if len(have) != len(want):
        return Difference("the page count", f"the file has {len(have)} page(s); the embedded data renders "
                                            f"{len(want)}")
    return None


def _clip(text: str, limit: int = 160) -> str:
    from day60.display import visible

    text = visible(text)
    return text if len(text) <= limit else text[: limit - 3] + "..."

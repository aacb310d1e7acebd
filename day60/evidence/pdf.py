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
import contextvars
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
from day60.evidence.names import MANIFEST

LOGGERS = ("pypdf", "pyhanko", "pyhanko_certvalidator", "fontTools", "weasyprint", "asyncio", "urllib3")
MIB = 1024 * 1024
# Bounds on the work one file may ask for. A report the toolkit writes stays far inside every one
# of them (a score of the demo: 5 pages, 67 objects, 4 attachments of 20 KB at most, streams
# compressed 3 to 5 times); a file beyond any is refused with one line (exit 2) before the work.
MAX_PAGES = 1_000  # pages a report may list (counted in the page tree before any page is read)
MAX_FILE_OBJECTS = 100_000  # objects in the file's cross-reference tables
MAX_OBJECTS = 200_000  # objects one page's drawing may reach before the file is called damaged
MAX_STREAM = 64 * MIB  # decoded bytes of one stream
MAX_ATTACHMENTS = 16  # embedded files (the toolkit writes at most six)
MAX_ATTACHED = 128 * MIB  # decoded bytes of all embedded files together
MAX_RATIO = 64  # decoded bytes per encoded byte of one stream, past its first MiB (a bomb is ~1,000)
RATIO_FLOOR = MIB
DECODE_FLOOR = 16 * MIB  # decoded bytes of the whole file always allowed ...
DECODE_RATIO = 64  # ... and beyond it, this many times the file's size
MAX_DECODED = 1024 * MIB  # and never more than this, whatever the file's size
CHUNK = 256 * 1024  # inflate works this many bytes at a time
REPORT_MANIFEST = MANIFEST  # what every day60 report embeds
FILTERS = {"/FlateDecode"}  # the only filter an embedded file may use (what WeasyPrint writes)
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


class Bounded(ValueError):
    """A file that asks for more work than a report may (pages, objects, attachments, decoded
    bytes): refused with one line before the work, never read to the end."""


class Budget:
    """The decoded bytes one file may still ask for, across every stream read."""

    def __init__(self, size: int) -> None:
        self.total = min(MAX_DECODED, max(DECODE_FLOOR, DECODE_RATIO * size))
        self.left = self.total

    def take(self, count: int) -> None:
        self.left -= count
        if self.left < 0:
            raise Bounded(f"its streams decode to more than {self.total:,} bytes in all ({DECODE_RATIO} times "
                          f"the file's size, at least {DECODE_FLOOR:,})")


_BUDGET: contextvars.ContextVar[Budget | None] = contextvars.ContextVar("day60_pdf_budget", default=None)


@contextlib.contextmanager
def bounded(size: int) -> Iterator[Budget]:
    """Every read of a file of ``size`` bytes inside this block is bounded: each stream pypdf decodes
    (page contents, fonts, object streams) by MAX_STREAM, and the bytes decoded by this module's
    own readers (attachments, each page's drawing) by one budget for the file."""
    from pypdf import apply_configuration

    budget = Budget(size)
    token = _BUDGET.set(budget)
    try:
        with apply_configuration(zlib_maximum_output_length=MAX_STREAM, lzw_maximum_output_length=MAX_STREAM,
                                 run_length_maximum_output_length=MAX_STREAM,
                                 maximum_declared_stream_length=MAX_STREAM,
                                 array_based_stream_maximum_output_length=MAX_STREAM,
                                 jbig2_maximum_output_length=MAX_STREAM, image_maximum_buffer_size=MAX_STREAM):
            yield budget
    finally:
        _BUDGET.reset(token)


def hanko_limits() -> Any:
    """The same bounds for pyHanko's reader (signatures, timestamps)."""
    from pyhanko.pdf_utils.decode_limits import DecodeLimits, DocumentDecodeBudget, StreamDecodeLimits

    return DecodeLimits(per_stream=StreamDecodeLimits(max_ratio=MAX_RATIO, ratio_floor=RATIO_FLOOR,
                                                      max_output_size=MAX_STREAM),
                        document_budget=DocumentDecodeBudget(base_allowance=DECODE_FLOOR, max_ratio=DECODE_RATIO))


def refused(path: str | Path, exc: Bounded) -> InputError:
    """The one message for a file beyond a bound."""
    return InputError("REPORT", f"{path} is refused unread: {str(exc)[:200]}",
                      "a report day60 writes stays far inside these limits (docs/evidence.md, 'Limits'): give the "
                      "report exactly as day60 wrote it (or as it was signed)")


def inflate(data: bytes, cap: int, what: str, truncate: bool = False) -> bytes:
    """Flate-decoded ``data``, a piece at a time, stopping as soon as it passes ``cap`` bytes (or
    ``MAX_RATIO`` times its encoded size past the first MiB): a bomb is refused (or, with
    ``truncate``, cut at ``cap``) after at most ``cap`` bytes were made, never decoded whole."""
    import zlib

    limit = min(cap, max(RATIO_FLOOR, MAX_RATIO * len(data)))
    budget = _BUDGET.get()
    engine = zlib.decompressobj()
    out = bytearray()
    try:
        piece = engine.decompress(data, CHUNK)
        while piece:
            out += piece
            if budget is not None:
                budget.take(len(piece))
            if len(out) > limit:
                if truncate:
                    return bytes(out[:limit])
                ratio = f" ({MAX_RATIO} times its {len(data):,} encoded bytes)" if limit < cap else ""
                raise Bounded(f"{what} decodes to more than {limit:,} bytes{ratio}")
            piece = engine.decompress(engine.unconsumed_tail, CHUNK)
    except zlib.error as exc:
        raise ValueError(f"{what} is not valid Flate data ({exc})") from None
    return bytes(out)


def stream_data(stream: Any, what: str, cap: int = MAX_STREAM) -> bytes:
    """A stream's decoded bytes, within the bounds: Flate (without a predictor) or no filter is
    decoded here a piece at a time; any other filter by pypdf (which stops at MAX_STREAM), then
    held to the same ratio and budget."""
    flt = stream.get("/Filter")
    names = [str(f) for f in flt] if isinstance(flt, list) else [] if flt is None else [str(flt)]
    raw = stream._data if isinstance(stream._data, bytes) else bytes(stream._data or b"")
    if not names:
        budget = _BUDGET.get()
        if budget is not None:
            budget.take(len(raw))
        if len(raw) > cap:
            raise Bounded(f"{what} holds more than {cap:,} bytes")
        return raw
    if names == ["/FlateDecode"] and stream.get("/DecodeParms") is None:
        return inflate(raw, cap, what)
    data = stream.get_data()
    budget = _BUDGET.get()
    if budget is not None:
        budget.take(len(data))
    if len(data) > min(cap, max(RATIO_FLOOR, MAX_RATIO * len(raw))):
        raise Bounded(f"{what} decodes to {len(data):,} bytes from {len(raw):,}")
    return data


def count_pages(pdf: Any) -> int:
    """The pages the page tree lists, counted without reading any page, stopping past MAX_PAGES; a
    node listed twice is damage (it would make one page many)."""
    root = pdf.trailer["/Root"].get_object()
    stack = [(root["/Pages"], 0)]
    seen: set[int] = set()
    pages = 0
    while stack:
        ref, depth = stack.pop()
        key = getattr(ref, "idnum", None)
        if key is not None:
            if key in seen:
                raise ValueError("its page tree lists one node twice")
            seen.add(key)
        node = ref.get_object()
        if depth > 64:
            raise ValueError("its page tree nests more than 64 levels deep")
        kids = node.get("/Kids") if node.get("/Type") != "/Page" else None
        if kids is None:
            pages += 1
            if pages > MAX_PAGES:
                raise Bounded(f"it lists more than {MAX_PAGES:,} pages")
            continue
        kids = kids.get_object()
        if len(kids) > MAX_PAGES:
            raise Bounded(f"it lists more than {MAX_PAGES:,} pages (one node of its page tree lists {len(kids):,})")
        stack.extend((kid, depth + 1) for kid in reversed(kids))
    return pages


def object_count(pdf: Any) -> int:
    return sum(len(v) for v in pdf.xref.values()) + len(pdf.xref_objStm)


def reader(raw: bytes, path: str | Path) -> Any:
    """A pypdf reader over ``raw``, its page tree and trailer touched once so damage shows here,
    and the file held to MAX_FILE_OBJECTS and MAX_PAGES before any page is read."""
    from pypdf import PdfReader

    if not raw.lstrip()[:5].startswith(b"%PDF-"):
        raise damaged(path, "it does not start with %PDF-")
    try:
        with quiet():
            pdf = PdfReader(io.BytesIO(raw), strict=False)
            if pdf.is_encrypted:
                raise damaged(path, "it is encrypted, which day60 never does")
            objects = object_count(pdf)
            if objects > MAX_FILE_OBJECTS:
                raise Bounded(f"it holds {objects:,} objects, more than the {MAX_FILE_OBJECTS:,} a report may")
            _ = pdf.trailer["/Root"].get_object()
            count_pages(pdf)
            _ = len(pdf.pages)
    except InputError:
        raise
    except Bounded as exc:
        raise refused(path, exc) from None
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
    except Bounded as exc:
        raise refused(path, exc) from None
    except (Exception, RecursionError) as exc:
        raise damaged(path, exc) from None


def attachments(pdf: Any) -> dict[str, bytes]:
    """Embedded files by name (as the latest revision holds them); a name given twice departs
    from what the toolkit writes (a viewer may show either body). Each is decoded here, a piece at
    a time, within MAX_ATTACHMENTS, MAX_STREAM, MAX_RATIO and MAX_ATTACHED: a Flate bomb is
    refused after at most its cap was made, never decoded whole."""
    from day60.display import visible

    entries: dict[str, list[Any]] = {}
    for count, entry in enumerate(pdf.attachment_list, start=1):
        if count > MAX_ATTACHMENTS:
            raise Bounded(f"it embeds more than {MAX_ATTACHMENTS} files")
        for name in entry._names:
            entries.setdefault(name, []).append(entry)
    out: dict[str, bytes] = {}
    total = 0
    for name, found in entries.items():
        if len(found) != 1:
            raise Departs(f"it embeds {len(found)} files named {visible(str(name))[:80]!r}, which day60 never "
                          "writes (a viewer may open either): which of them is the report's data cannot be told")
        stream = found[0]._embedded_file
        flt = stream.get("/Filter")
        if flt is not None and (str(flt) not in FILTERS or stream.get("/DecodeParms") is not None):
            raise Bounded(f"the embedded file {visible(str(name))[:60]!r} is encoded with {str(flt)[:40]}, which "
                          "day60 never writes; it is not decoded")
        body = stream_data(stream, f"the embedded file {visible(str(name))[:60]!r}",
                           min(MAX_STREAM, MAX_ATTACHED - total))
        total += len(body)
        out[name] = body
    return out


def embedded_names(pdf: Any) -> list[str]:
    """The names of the files a PDF embeds, none of them decoded (at most MAX_ATTACHMENTS + 1)."""
    names: list[str] = []
    for count, entry in enumerate(pdf.attachment_list, start=1):
        names += list(entry._names)
        if count > MAX_ATTACHMENTS:
            break
    return names


def words(text: str) -> list[str]:
    return text.split()


def page_words(pdf: Any) -> list[list[str]]:
    """Each page's text as words (whitespace normalised away)."""
    return [words(page.extract_text() or "") for page in pdf.pages]


def drawn_size(page: Any, cap: int) -> int:
    """The bytes of drawing operators reading a page's text would go through: its content streams
    and, for every form XObject they invoke (``/Name Do``), that form's own, as often as it is
    invoked (forms inside forms too, at most 16 deep), each invocation counted as at least 64
    bytes; counting stops once past ``cap``. A small file can invoke one large form thousands of
    times, which a reader parses anew each time."""
    decoded: dict[int, bytes] = {}

    def body(ref: Any, what: str) -> bytes:
        key = getattr(ref, "idnum", None) or id(ref)
        if key not in decoded:
            decoded[key] = stream_data(ref.get_object(), what)
        return decoded[key]

    contents = page.get("/Contents")
    parts = [] if contents is None else contents.get_object()
    parts = list(parts) if isinstance(parts, list) else [contents]
    if len(parts) > MAX_OBJECTS:
        raise Bounded(f"a page lists {len(parts):,} content streams")
    stack = [(body(ref, "a page's content"), page.get("/Resources"), 0) for ref in parts]
    total = 0
    while stack:
        data, resources, depth = stack.pop()
        total += max(len(data), 64)
        if total > cap:
            return total
        if depth > 16:
            raise ValueError("its forms invoke one another more than 16 deep")
        resources = resources.get_object() if resources is not None else None
        xobjects = resources.get("/XObject") if resources is not None else None
        xobjects = xobjects.get_object() if xobjects is not None else {}
        for name in re.findall(rb"/([^\s/\[\]<>(){}%]+)\s+Do\b", data):
            ref = xobjects.get("/" + name.decode("latin-1"))
            form = ref.get_object() if ref is not None else None
            if form is not None and form.get("/Subtype") == "/Form":
                stack.append((body(ref, "a form on a page"), form.get("/Resources") or resources, depth + 1))
            else:
                total += 64
            if total > cap:
                return total
    return total


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
        data = stream_data(obj, "a stream")
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
    found: list[str] = []
    for number, page in enumerate(pdf.pages, start=1):
        for ref in page.get("/Annots") or []:
            if len(found) >= 8:
                return found
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

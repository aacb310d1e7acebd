"""Forgeries built as an attacker would, with pypdf: glyphs swapped in a content stream, text
objects added (visible, invisible, drawn first), incremental updates, attachments replaced and
re-hashed, annotations laid over a page. Each returns the forged file's bytes."""

import hashlib
import io
import json
import re

from pypdf import PdfReader, PdfWriter
from pypdf.generic import (
    ArrayObject,
    ByteStringObject,
    DecodedStreamObject,
    DictionaryObject,
    FloatObject,
    NameObject,
    NumberObject,
    TextStringObject,
)


def _writer(raw: bytes, incremental: bool) -> PdfWriter:
    if incremental:
        return PdfWriter(io.BytesIO(raw), incremental=True)
    return PdfWriter(clone_from=PdfReader(io.BytesIO(raw)))


def _out(writer: PdfWriter) -> bytes:
    buf = io.BytesIO()
    writer.write(buf)
    return buf.getvalue()


def _codes(page) -> dict[str, str]:
    """Each character the page's fonts can draw -> its glyph code (4 hex digits), from ToUnicode."""
    out: dict[str, str] = {}
    for font in page["/Resources"]["/Font"].values():
        cmap = font.get_object()["/ToUnicode"].get_data().decode("latin-1")
        for block in re.findall(r"beginbfchar(.*?)endbfchar", cmap, re.S):
            for src, dst in re.findall(r"<([0-9a-fA-F]+)>\s*<([0-9a-fA-F]+)>", block):
                if len(dst) == 4:
                    out.setdefault(chr(int(dst, 16)), src.lower())
        for block in re.findall(r"beginbfrange(.*?)endbfrange", cmap, re.S):
            for lo, hi, dst in re.findall(r"<([0-9a-fA-F]+)>\s*<([0-9a-fA-F]+)>\s*<([0-9a-fA-F]+)>", block):
                for i in range(int(lo, 16), int(hi, 16) + 1):
                    out.setdefault(chr(int(dst, 16) + i - int(lo, 16)), f"{i:04x}")
    return out


def swap_glyphs(raw: bytes, page_index: int, old: str, new: str, incremental: bool = False) -> bytes:
    """Redraw ``old`` as ``new`` wherever it is printed on one page, by editing the glyph codes
    in its content stream (the page's own fonts draw the new figure)."""
    writer = _writer(raw, incremental)
    page = writer.pages[page_index]
    codes = _codes(page)
    pattern = r"-?[0-9.]*".join(re.escape(f"<{codes[c]}>") for c in old)
    content = page.get_contents()
    data = content.get_data().decode("latin-1")
    forged, count = re.subn(pattern, "0".join(f"<{codes[c]}>" for c in new), data, flags=re.I)
    assert count, f"{old!r} is not drawn on page {page_index + 1}"
    stream = DecodedStreamObject()
    stream.set_data(forged.encode("latin-1"))
    page[NameObject("/Contents")] = writer._add_object(stream)
    return _out(writer)


def add_text(raw: bytes, page_index: int, text: str, x: float = 60, y: float = 700, size: float = 30,
             invisible: bool = False, first: bool = False, incremental: bool = False) -> bytes:
    """A new text object in Helvetica (mode 3, drawn invisibly, with ``invisible``), before or
    after the page's own content."""
    writer = _writer(raw, incremental)
    page = writer.pages[page_index]
    font = DictionaryObject({NameObject("/Type"): NameObject("/Font"), NameObject("/Subtype"): NameObject("/Type1"),
                             NameObject("/BaseFont"): NameObject("/Helvetica")})
    resources = page["/Resources"].get_object()
    fonts = resources["/Font"].get_object()
    fonts[NameObject("/FForged")] = writer._add_object(font)
    mode = "3 Tr " if invisible else ""
    ops = f"q BT /FForged {size} Tf {mode}1 0 0 1 {x} {y} Tm ({text}) Tj ET Q\n".encode("latin-1")
    stream = DecodedStreamObject()
    stream.set_data(ops)
    added = writer._add_object(stream)
    existing = page["/Contents"]
    parts = list(existing) if isinstance(existing.get_object(), ArrayObject) else [existing]
    page[NameObject("/Contents")] = ArrayObject([added, *parts] if first else [*parts, added])
    return _out(writer)


def replace_attachment(raw: bytes, name: str, body: bytes) -> bytes:
    """Put ``body`` in the embedded file ``name``, its size and checksum made to match."""
    writer = _writer(raw, False)
    root = writer._root_object
    found = 0
    for ref in root["/AF"]:
        spec = ref.get_object()
        if spec["/F"] != name:
            continue
        stream = spec["/EF"]["/F"].get_object()
        stream.set_data(body)
        params = stream["/Params"]
        params[NameObject("/Size")] = NumberObject(len(body))
        params[NameObject("/CheckSum")] = ByteStringObject(hashlib.md5(body).digest())
        found += 1
    assert found, name
    return _out(writer)


def remove_attachment(raw: bytes, name: str) -> bytes:
    writer = _writer(raw, False)
    root = writer._root_object
    root[NameObject("/AF")] = ArrayObject([r for r in root["/AF"] if r.get_object()["/F"] != name])
    names = root["/Names"]["/EmbeddedFiles"]["/Names"]
    kept = []
    for i in range(0, len(names), 2):
        if names[i] != name:
            kept += [names[i], names[i + 1]]
    root["/Names"]["/EmbeddedFiles"][NameObject("/Names")] = ArrayObject(kept)
    return _out(writer)


def annotate(raw: bytes, page_index: int, text: str, incremental: bool = True) -> bytes:
    """A FreeText annotation laid over the page, as a viewer's comment tool would add it."""
    writer = _writer(raw, incremental)
    annot = DictionaryObject({
        NameObject("/Type"): NameObject("/Annot"), NameObject("/Subtype"): NameObject("/FreeText"),
        NameObject("/Rect"): ArrayObject([FloatObject(60), FloatObject(650), FloatObject(300), FloatObject(700)]),
        NameObject("/Contents"): TextStringObject(text), NameObject("/DA"): TextStringObject("/Helv 30 Tf 0 g")})
    page = writer.pages[page_index]
    page[NameObject("/Annots")] = ArrayObject([*(page.get("/Annots") or []), writer._add_object(annot)])
    return _out(writer)


def rewrite(raw: bytes) -> bytes:
    """The file read and written again whole by pypdf, changing nothing on purpose."""
    return _out(_writer(raw, False))


def rechain(raw: bytes, edit) -> bytes:
    """A journal with ``edit`` applied to each event (a dict, changed in place), every line after
    it hashed and chained again, as a forger with the toolkit's own hashing would do."""
    from day60 import journal as jr

    lines = raw.decode("utf-8").splitlines()
    out = [lines[0]]
    for line in lines[1:]:
        obj = json.loads(line)
        edit(obj)
        obj["prev"] = jr.sha256_hex(out[-1])
        body = {k: v for k, v in obj.items() if k != "hash"}
        obj["hash"] = jr.sha256_hex(jr.canonical(body))
        out.append(jr.canonical(obj))
    return ("\n".join(out) + "\n").encode("utf-8")


def first_revision(raw: bytes) -> bytes:
    """The file cut back to the toolkit's own revision: every signature stripped."""
    from pyhanko.pdf_utils.reader import PdfFileReader

    info = PdfFileReader(io.BytesIO(raw), strict=False).xrefs.get_xref_container_info(0)
    end = raw.index(b"%%EOF", info.end_location) + len(b"%%EOF")
    return raw[: end + 1] if raw[end:end + 1] == b"\n" else raw[:end]


def corrupt_signature(raw: bytes, where: str = "value") -> bytes:
    """One hex digit of the last signature's /Contents changed: in its signature value (the
    last bytes before the zero padding) or in its certificate (the first bytes)."""
    at = raw.rindex(b"/Contents <") + len(b"/Contents <")
    end = raw.index(b">", at)
    used = at + len(raw[at:end].rstrip(b"0"))
    spot = used - 40 if where == "value" else at + 400
    digit = b"1" if raw[spot:spot + 1] != b"1" else b"2"
    return raw[:spot] + digit + raw[spot + 1:]


# Hand-made damaged files: what no writer would produce, each as a reader meets it.
LOOP = (b"%PDF-1.7\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n"
        b"2 0 obj << /Type /Pages /Kids [2 0 R] /Count 1 >> endobj\n"
        b"trailer << /Root 1 0 R /Size 3 >>\n%%EOF\n")
WRONG_TYPES = (b"%PDF-1.7\n1 0 obj << /Type /Catalog /Pages 5 /Names [1 2 3] >> endobj\n"
               b"trailer << /Root 1 0 R /Size 2 >>\n%%EOF\n")


# ----- hostile files: small to send, costly to read if nothing bounds the reader ------------------


def many_pages(raw: bytes, count: int) -> bytes:
    """The report with its page tree listing ``count`` pages more, each a small page dictionary that
    draws the second page's own content stream: a few bytes a page, the whole of that page's text
    to read for each."""
    writer = _writer(raw, False)
    source = writer.pages[1]
    pages = writer._root_object["/Pages"]
    kids = pages["/Kids"]
    for _ in range(count):
        page = DictionaryObject({NameObject("/Type"): NameObject("/Page"),
                                 NameObject("/Parent"): pages.indirect_reference,
                                 NameObject("/MediaBox"): source["/MediaBox"],
                                 NameObject("/Resources"): source.raw_get("/Resources"),
                                 NameObject("/Contents"): source.raw_get("/Contents")})
        kids.append(writer._add_object(page))
    pages[NameObject("/Count")] = NumberObject(len(kids))
    return _out(writer)


def _raw_stream(writer: PdfWriter, encoded: bytes, extra: dict | None = None):
    """A stream object holding ``encoded`` exactly as given, marked FlateDecode (pypdf does not
    compress it again)."""
    from pypdf.generic import EncodedStreamObject

    stream = EncodedStreamObject()
    stream._data = encoded
    stream[NameObject("/Filter")] = NameObject("/FlateDecode")
    for key, value in (extra or {}).items():
        stream[NameObject(key)] = value
    return stream


def deflate_zeros(size: int) -> bytes:
    """``size`` spaces, Flate-compressed as hard as zlib can (about 1,000 to 1): a bomb."""
    import zlib

    engine = zlib.compressobj(9)
    piece = b" " * (1 << 20)
    out = [engine.compress(piece) for _ in range(size // len(piece))]
    return b"".join(out) + engine.flush()


def bomb_attachments(raw: bytes, size: int, extra: int = 0) -> bytes:
    """Every embedded file's body made a Flate bomb of ``size`` decoded bytes (its declared size and
    checksum left as they were), and ``extra`` more embedded files of the same kind."""
    writer = _writer(raw, False)
    root = writer._root_object
    bomb = deflate_zeros(size)
    for ref in root["/AF"]:
        spec = ref.get_object()
        stream = spec["/EF"]["/F"].get_object()
        stream._data = bomb
        for key in ("/DecodeParms", "/DL"):
            stream.pop(NameObject(key), None)
    names = root["/Names"]["/EmbeddedFiles"]["/Names"]
    for i in range(extra):
        ef = writer._add_object(_raw_stream(writer, bomb, {"/Type": NameObject("/EmbeddedFile")}))
        spec = writer._add_object(DictionaryObject({
            NameObject("/Type"): NameObject("/Filespec"), NameObject("/F"): TextStringObject(f"extra-{i}.json"),
            NameObject("/EF"): DictionaryObject({NameObject("/F"): ef})}))
        names.append(TextStringObject(f"extra-{i}.json"))
        names.append(spec)
    return _out(writer)


def bomb_content(raw: bytes, page_index: int, size: int) -> bytes:
    """One page's content replaced by a Flate bomb of ``size`` bytes of drawing operators that
    print nothing (a save and restore of the graphics state, over and over)."""
    import zlib

    writer = _writer(raw, False)
    engine = zlib.compressobj(9)
    piece = b"q Q " * (1 << 18)
    encoded = b"".join(engine.compress(piece) for _ in range(size // len(piece))) + engine.flush()
    page = writer.pages[page_index]
    page[NameObject("/Contents")] = writer._add_object(_raw_stream(writer, encoded))
    return _out(writer)


def form_calls(raw: bytes, page_index: int, calls: int, shows: int) -> bytes:
    """A form XObject that shows one glyph ``shows`` times, invoked ``calls`` times more by the page
    (about 7 bytes a call): a reader of the page's text parses the whole form at every call."""
    writer = _writer(raw, False)
    page = writer.pages[page_index]
    resources = page["/Resources"].get_object()
    font = next(iter(resources["/Font"]))
    form = DecodedStreamObject()
    form.set_data(f"BT {font} 10 Tf 10 10 Td ".encode() + b"<0001> Tj " * shows + b"ET")
    form.update({NameObject("/Type"): NameObject("/XObject"), NameObject("/Subtype"): NameObject("/Form"),
                 NameObject("/BBox"): ArrayObject([FloatObject(0)] * 4), NameObject("/Resources"): resources})
    xobjects = resources.get("/XObject")
    if xobjects is None:
        resources[NameObject("/XObject")] = DictionaryObject()
        xobjects = resources["/XObject"]
    xobjects.get_object()[NameObject("/Forged")] = writer._add_object(form)
    content = DecodedStreamObject()
    content.set_data(page.get_contents().get_data() + b"\n" + b"/Forged Do\n" * calls)
    page[NameObject("/Contents")] = writer._add_object(content)
    return _out(writer)

"""The Word schedule's finish, after docxtpl has filled the template: what depends on the deal and
the run. The paper (A4, or Letter for a deal on a Letter country's calendar, the text block 170 mm
wide on both), the language Word spell-checks it in (the clause library's own English), the
document properties (title, subject, author "day60 <version>", created and modified at the
export's run time), and the three things that make the file one a lawyer can edit:

- a bookmark on each clause title and clause paragraph, and a REF field for each cross-reference,
  so that "clause 3.2" follows its paragraph when a lawyer inserts or moves one;
- a custom document property for every value the deal gives (each parameter, and each Critical
  Level, Minimum Volume and Credit Weight of the Service Level Table), shown wherever it appears
  through a DOCPROPERTY field: the value is edited once and every place that shows it follows;
- custom properties naming the export (the deal file's SHA-256, the clause library, the toolkit),
  which ``day60.wordread`` reads back to compare an edited copy with a deal file.

The styles, numbering, tables, header and footer are the template's (templates/make_schedule_docx.py).
The template and the schedule data mark where bookmarks and fields go with Unicode private-use
characters (``clauses.REF_*``, ``clauses.VAL_*``, ``BOOKMARK`` ... ``END``); this module turns each
mark into Word's own XML and leaves no mark behind.
"""

from __future__ import annotations

import datetime as dt
import re
from copy import deepcopy
from typing import Any
from xml.sax.saxutils import escape

from day60.clauses import bookmark_name, ref_parts

BOOKMARK, END = "\ue003", "\ue004"
_TITLE = re.compile(f"{BOOKMARK}([^{END}]*){END}")
PAPER_MM = {"A4": (210.0, 297.0), "Letter": (215.9, 279.4)}
TEXT_WIDTH_MM = 170.0  # the template's tables and tab stops fill this, on either paper
CUSTOM_XML = "application/vnd.openxmlformats-officedocument.custom-properties+xml"
CUSTOM_NS = "http://schemas.openxmlformats.org/officeDocument/2006/custom-properties"
VT_NS = "http://schemas.openxmlformats.org/officeDocument/2006/docPropsVTypes"
# The custom properties that say which export a copy came from (the rest are the deal's values).
EXPORT = {"sha256": "day60 deal file SHA-256", "library": "day60 clause library", "toolkit": "day60 toolkit",
          "written": "day60 exported at"}


def finish(document: Any, schedule: dict[str, Any], language: str, written_at: dt.datetime, author: str) -> None:
    """Apply the paper, the spelling language, the document properties, bookmarks and fields in
    place. ``schedule`` is the schedule as shown (its text made visible), ``language`` a tag such as
    en-GB, ``written_at`` the export's run time (aware), ``author`` the toolkit and its version."""
    _paper(document, schedule["paper"])
    _language(document, language)
    _properties(document, schedule, language, written_at, author)
    _custom_properties(document, schedule, written_at, author)
    paragraphs = list(_all_paragraphs(document))
    for n, para in enumerate(paragraphs):
        _bookmark(para, n)
    for para in paragraphs:
        _fields(para)


def _paper(document: Any, paper: str) -> None:
    """The deal's paper, its side margins keeping the text block the template's 170 mm."""
    from docx.shared import Mm

    width, height = PAPER_MM[paper]
    for section in document.sections:
        section.page_width, section.page_height = Mm(width), Mm(height)
        section.left_margin = section.right_margin = Mm((width - TEXT_WIDTH_MM) / 2)


def _language(document: Any, language: str) -> None:
    """Every language the styles and settings name becomes ``language`` (the template names it on
    the document defaults and in the settings' theme language), so Word checks the right English."""
    from docx.oxml.ns import qn

    for lang in document.styles.element.iter(qn("w:lang")):
        lang.set(qn("w:val"), language)
        lang.set(qn("w:eastAsia"), language)
    for lang in document.settings.element.iter(qn("w:themeFontLang")):
        lang.set(qn("w:val"), language)


def _properties(document: Any, schedule: dict[str, Any], language: str, written_at: dt.datetime,
                author: str) -> None:
    """Title, subject, keywords and comments as the HTML's head says them; created and modified at
    the run (UTC, as Word stores them)."""
    deal, library = schedule["deal"], schedule["library"]
    marks = [m for m, on in (("DRAFT", schedule["draft"]), ("SYNTHETIC", schedule["synthetic"])) if on]
    props = document.core_properties
    props.title = _clip(f"{deal.get('schedule', '')}: measured service levels"
                        + "".join(f" ({m})" for m in marks))
    props.subject = _clip(f"{deal.get('agreement', '')}, between {deal.get('provider', '')} and "
                          f"{deal.get('partner', '')}")
    props.keywords = _clip(", ".join(["day60", f"clause library {library['id']} {library['version']}", *marks]))
    props.comments = _clip(f"Filled by {author} from the deal file with SHA-256 {schedule['sow_sha256']}, "
                           f"clause library {library['id']} {library['version']}, charter {library['charter']}. "
                           "An edited copy is no longer that export: compare it with 'day60 clauses diff'.")
    props.author = props.last_modified_by = _clip(author)
    props.category = "Contract schedule"
    props.language = language
    props.revision = 1
    stamp = written_at.astimezone(dt.UTC).replace(tzinfo=None, microsecond=0)
    props.created = props.modified = stamp


def _custom_properties(document: Any, schedule: dict[str, Any], written_at: dt.datetime, author: str) -> None:
    """docProps/custom.xml: the export's own facts, then every value the deal gives, by the name
    its DOCPROPERTY fields use, as text exactly as the schedule shows it."""
    from docx.opc.constants import RELATIONSHIP_TYPE as RT
    from docx.opc.packuri import PackURI
    from docx.opc.part import Part

    library = schedule["library"]
    facts = {EXPORT["sha256"]: schedule["sow_sha256"], EXPORT["library"]: f"{library['id']} {library['version']}",
             EXPORT["toolkit"]: author, EXPORT["written"]: written_at.isoformat(timespec="seconds")}
    rows = [f'<property fmtid="{{D5CDD505-2E9C-101B-9397-08002B2CF9AE}}" pid="{pid}" name="{escape(name, _QUOTE)}">'
            f"<vt:lpwstr>{escape(str(value))}</vt:lpwstr></property>"
            for pid, (name, value) in enumerate({**facts, **schedule["linked"]}.items(), start=2)]
    blob = (f"<?xml version='1.0' encoding='UTF-8' standalone='yes'?>\n<Properties xmlns=\"{CUSTOM_NS}\" "
            f"xmlns:vt=\"{VT_NS}\">{''.join(rows)}</Properties>").encode()
    package = document.part.package
    for rid, rel in list(package.rels.items()):
        if rel.reltype == RT.CUSTOM_PROPERTIES:
            del package.rels[rid]
    package.relate_to(Part(PackURI("/docProps/custom.xml"), CUSTOM_XML, blob, package), RT.CUSTOM_PROPERTIES)


_QUOTE = {'"': "&quot;"}


def _clip(text: str, limit: int = 255) -> str:
    """A core property holds at most 255 characters."""
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def _all_paragraphs(document: Any) -> Any:
    yield from document.paragraphs
    for table in document.tables:
        for row in table.rows:
            seen = set()
            for cell in row.cells:  # a merged cell is listed once per column it spans
                if id(cell._tc) not in seen:
                    seen.add(id(cell._tc))
                    yield from cell.paragraphs


def _bookmark(para: Any, n: int) -> None:
    """A paragraph marked BOOKMARK id END (a clause title or paragraph): the mark goes, and a
    bookmark spans the paragraph instead."""
    from docx.oxml import OxmlElement
    from docx.oxml.ns import qn

    found = _TITLE.search(para.text)
    if not found:
        return
    for run in para.runs:
        run.text = _TITLE.sub("", run.text)
    start, end = OxmlElement("w:bookmarkStart"), OxmlElement("w:bookmarkEnd")
    start.set(qn("w:id"), str(n))
    start.set(qn("w:name"), bookmark_name(found.group(1)))
    end.set(qn("w:id"), str(n))
    first = para._p.find(qn("w:r"))
    if first is None:
        para._p.append(start)
    else:
        first.addprevious(start)
    para._p.append(end)


def _fields(para: Any) -> None:
    """Each marked cross-reference becomes a REF field to its clause's or paragraph's bookmark
    (\\w: its full number, such as 3.2, with no trailing period), and each marked value a
    DOCPROPERTY field showing its custom property; the field's shown result is the text the
    schedule prints, so the file reads right before any field is updated."""
    for run in list(para.runs):
        parts = ref_parts(run.text)
        if all(kind is None for kind, _, _ in parts):
            continue
        anchor = run._r
        for kind, target, words in parts:
            piece = deepcopy(run._r)
            _set_text(piece, words)
            if kind is not None:
                instruction = (f" REF {bookmark_name(target or '')} \\w \\h " if kind == "ref"
                               else f' DOCPROPERTY "{target}" \\* MERGEFORMAT ')
                piece = _field(piece, instruction)
            anchor.addnext(piece)
            anchor = piece
        run._r.getparent().remove(run._r)


def _set_text(r: Any, text: str) -> None:
    from docx.oxml import OxmlElement
    from docx.oxml.ns import qn

    for old in r.findall(qn("w:t")):
        r.remove(old)
    t = OxmlElement("w:t")
    t.text = text
    t.set(qn("xml:space"), "preserve")
    r.append(t)


def _field(shown: Any, instruction: str) -> Any:
    """A simple field holding ``shown`` (a run) as its current result."""
    from docx.oxml import OxmlElement
    from docx.oxml.ns import qn

    field = OxmlElement("w:fldSimple")
    field.set(qn("w:instr"), instruction)
    field.append(shown)
    return field

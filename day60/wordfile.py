"""The Word schedule's finish, after docxtpl has filled the template: what depends on the deal and
the run. The paper (A4, or Letter for a deal on a Letter country's calendar, the text block 170 mm
wide on both), the language Word spell-checks in, the document properties (title, subject, author
"day60 <version>", created and modified at the export's run time), a bookmark on each clause
title and a live REF field for each cross-reference, so that "clause 3" follows its clause while a
lawyer edits.

The styles, numbering, tables, header and footer are the template's (templates/make_schedule_docx.py).
The template marks where bookmarks and fields go with Unicode private-use characters
(``clauses.REF_*`` for a cross-reference, ``BOOKMARK`` ... ``END`` for a clause title); this module
turns each mark into Word's own XML and leaves no mark behind.
"""

from __future__ import annotations

import datetime as dt
import re
from copy import deepcopy
from typing import Any

from day60.clauses import ref_parts

BOOKMARK, END = "\ue003", "\ue004"
_TITLE = re.compile(f"{BOOKMARK}([^{END}]*){END}")
PAPER_MM = {"A4": (210.0, 297.0), "Letter": (215.9, 279.4)}
TEXT_WIDTH_MM = 170.0  # the template's tables and tab stops fill this, on either paper


def bookmark_name(clause_id: str) -> str:
    """A Word bookmark name for a clause: letters, digits and underscores, at most 40, a letter first."""
    return ("clause_" + re.sub(r"[^A-Za-z0-9]", "_", clause_id))[:40]


def finish(document: Any, schedule: dict[str, Any], language: str, written_at: dt.datetime, author: str) -> None:
    """Apply the paper, the spelling language, the document properties, bookmarks and REF fields in
    place. ``schedule`` is the schedule as shown (its text made visible), ``language`` a tag such as
    en-GB, ``written_at`` the export's run time (aware), ``author`` the toolkit and its version."""
    _paper(document, schedule["paper"])
    _language(document, language)
    _properties(document, schedule, language, written_at, author)
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
                           f"clause library {library['id']} {library['version']}, charter {library['charter']}.")
    props.author = props.last_modified_by = _clip(author)
    props.category = "Contract schedule"
    props.language = language
    props.revision = 1
    stamp = written_at.astimezone(dt.UTC).replace(tzinfo=None, microsecond=0)
    props.created = props.modified = stamp


def _clip(text: str, limit: int = 255) -> str:
    """A core property holds at most 255 characters."""
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def _all_paragraphs(document: Any) -> Any:
    yield from document.paragraphs
    for table in document.tables:
        for row in table.rows:
            for cell in row.cells:
                yield from cell.paragraphs


def _bookmark(para: Any, n: int) -> None:
    """A clause title marked BOOKMARK id END: the mark goes, a bookmark spans the title instead."""
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
    """Each marked cross-reference becomes 'clause ' and a REF field to its clause's bookmark,
    showing the number Word gives that clause (\\r: its number, no trailing period)."""
    from docx.oxml.ns import qn

    for run in list(para.runs):
        parts = ref_parts(run.text)
        if all(cid is None for cid, _ in parts):
            continue
        anchor = run._r
        for cid, words in parts:
            if cid is None:
                piece = deepcopy(run._r)
                _set_text(piece, words)
                anchor.addnext(piece)
                anchor = piece
                continue
            prefix, _, number = words.rpartition(" ")
            lead = deepcopy(run._r)
            _set_text(lead, f"{prefix} ")
            anchor.addnext(lead)
            field = _ref_field(run._r, cid, number)
            lead.addnext(field)
            anchor = field
        run._r.getparent().remove(run._r)
        assert para._p.find(qn("w:r")) is not None or True


def _set_text(r: Any, text: str) -> None:
    from docx.oxml import OxmlElement
    from docx.oxml.ns import qn

    for old in r.findall(qn("w:t")):
        r.remove(old)
    t = OxmlElement("w:t")
    t.text = text
    t.set(qn("xml:space"), "preserve")
    r.append(t)


def _ref_field(template_run: Any, clause_id: str, number: str) -> Any:
    from docx.oxml import OxmlElement
    from docx.oxml.ns import qn

    field = OxmlElement("w:fldSimple")
    field.set(qn("w:instr"), f" REF {bookmark_name(clause_id)} \\r \\h ")
    shown = deepcopy(template_run)
    _set_text(shown, number)
    field.append(shown)
    return field

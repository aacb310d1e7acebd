"""The Word schedule's finish, after docxtpl has filled the template: the paper size, a bookmark on
each clause title and a live REF field for each cross-reference, so that "clause 3" follows its
clause while a lawyer edits. The styles, numbering, tables, header and footer (page numbers, the
SYNTHETIC or DRAFT mark) are the template's (templates/make_schedule_docx.py).

The template marks where these go with Unicode private-use characters (``clauses.REF_*`` for a
cross-reference, ``BOOKMARK`` ... ``END`` for a clause title); this module turns each mark into
Word's own XML and leaves no mark behind.
"""

from __future__ import annotations

import re
from copy import deepcopy
from typing import Any

from day60.clauses import ref_parts

BOOKMARK, END = "\ue003", "\ue004"
_TITLE = re.compile(f"{BOOKMARK}([^{END}]*){END}")


def bookmark_name(clause_id: str) -> str:
    """A Word bookmark name for a clause: letters, digits and underscores, at most 40, a letter first."""
    return ("clause_" + re.sub(r"[^A-Za-z0-9]", "_", clause_id))[:40]


def finish(document: Any, paper: str) -> None:
    """Apply the paper size, bookmarks and REF fields in place (the margins are the template's)."""
    from docx.shared import Mm

    for section in document.sections:
        section.page_width, section.page_height = (Mm(210), Mm(297)) if paper == "A4" else (Mm(215.9), Mm(279.4))
    paragraphs = list(_all_paragraphs(document))
    for n, para in enumerate(paragraphs):
        _bookmark(para, n)
    for para in paragraphs:
        _fields(para)


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

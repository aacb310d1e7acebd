"""The Word schedule a lawyer would send (issue 35, point 3): its styles, numbering, tables, header
and footer, document properties, paper and spelling language, read back with python-docx.

Each test exports the shipped SYNTHETIC deal (a GB calendar) or the same deal on a US calendar
through the CLI, as a lawyer would, and reads the .docx it wrote. LibreOffice is not needed: how
the pages look was checked by hand (docs/clauses.md says how)."""

import datetime as dt
import re

import pytest
from docx import Document
from docx.oxml.ns import qn

from day60 import __version__
from day60.resources import data_dir

SOW = data_dir("clauses") / "examples" / "synthetic-sow.toml"
TABLE_STYLES = {"Schedule Table", "Schedule Terms"}  # data tables with a header row; label and value pairs


def _us_deal(tmp_path):
    """The shipped deal moved onto a US calendar (New York, US holidays)."""
    us = tmp_path / "us.toml"
    us.write_text(SOW.read_text().replace('country = "GB", subdivision = "ENG"', 'country = "US"')
                  .replace('timezone = "Europe/London"', 'timezone = "America/New_York"'))
    return us


@pytest.fixture
def exported(run, tmp_path):
    """The shipped deal exported once: (the Document, the UTC instants just before and after the run)."""
    out = tmp_path / "schedule.docx"
    before = dt.datetime.now(dt.UTC).replace(microsecond=0)
    r = run("clauses", "export", "--sow", SOW, "--docx", out)
    after = dt.datetime.now(dt.UTC)
    assert r.exit_code == 0, r.output
    return Document(out), before, after


def test_the_word_schedule_numbers_its_clauses_on_heading_styles(exported):
    """Heading 1 and Heading 2 both carry numPr into one multi-level list (level 0 and 1), so the
    navigation pane shows the sections and, under "Clauses", the clauses numbered 1., 2., ... by
    Word (level 1 is decimal "%2."); the sections themselves carry no number (level 0 is "none"), as
    in the PDF. Every clause title is a Heading 2 paragraph holding only its title (no typed number),
    in the library's order, and every section title is a Heading 1."""
    doc, _, _ = exported
    numbering = doc.part.numbering_part.element
    ids = {}
    for level, name in enumerate(("Heading 1", "Heading 2")):
        num_pr = doc.styles[name].element.pPr.find(qn("w:numPr"))
        assert num_pr is not None, f"{name} is not numbered"
        ilvl = num_pr.find(qn("w:ilvl"))
        assert (0 if ilvl is None else int(ilvl.get(qn("w:val")))) == level
        ids[name] = num_pr.find(qn("w:numId")).get(qn("w:val"))
    assert ids["Heading 1"] == ids["Heading 2"]
    [num] = [n for n in numbering.findall(qn("w:num")) if n.get(qn("w:numId")) == ids["Heading 1"]]
    abstract_id = num.find(qn("w:abstractNumId")).get(qn("w:val"))
    [abstract] = [a for a in numbering.findall(qn("w:abstractNum")) if a.get(qn("w:abstractNumId")) == abstract_id]
    levels = {int(lv.get(qn("w:ilvl"))): lv for lv in abstract.findall(qn("w:lvl"))}
    assert levels[0].find(qn("w:numFmt")).get(qn("w:val")) == "none"
    assert levels[1].find(qn("w:numFmt")).get(qn("w:val")) == "decimal"
    assert levels[1].find(qn("w:lvlText")).get(qn("w:val")) == "%2."
    titles = [p.text for p in doc.paragraphs if p.style.name == "Heading 2"]
    assert titles[:3] == ["Field-level accuracy", "Straight-through processing rate", "Exception rate"]
    assert len(titles) == 20 and not [t for t in titles if re.match(r"\d", t)]
    sections = [p.text for p in doc.paragraphs if p.style.name == "Heading 1"]
    assert sections == ["Precedence", "Business calendar", "Definitions", "Documents referred to", "Clauses",
                        "Parameters", "Annex: Monthly Report elements", "Provenance"]


def test_the_word_schedule_tables_are_ruled_padded_and_never_split(exported):
    """Every table uses one of the template's named styles ("Schedule Table" with a repeating header
    row, "Schedule Terms" for label and value pairs); each style pads its cells (top, bottom, left and
    right margins all above zero) and rules rows lightly: no vertical lines (left, right, insideV nil)
    but horizontal ones (top, bottom, insideH). Every row has cantSplit; the first row of a Schedule
    Table repeats (tblHeader), a Schedule Terms table has no header. Each clause is one block: its
    Heading 2 title keeps with next (style), its text keeps with next, and every paragraph of every
    row of its terms table keeps with next, so the title, text, terms and the "Encodes charter
    section" line after them land on one page."""
    doc, _, _ = exported
    styles = {t.style.name for t in doc.tables}
    assert styles == TABLE_STYLES, styles
    for name in TABLE_STYLES:
        tbl_pr = doc.styles[name].element.find(qn("w:tblPr"))
        margins = tbl_pr.find(qn("w:tblCellMar"))
        for side in ("top", "bottom", "left", "right"):
            assert int(margins.find(qn(f"w:{side}")).get(qn("w:w"))) > 0, (name, side)
        borders = tbl_pr.find(qn("w:tblBorders"))
        for side in ("left", "right", "insideV"):
            assert borders.find(qn(f"w:{side}")).get(qn("w:val")) in ("nil", "none"), (name, side)
        for side in ("top", "bottom", "insideH"):
            assert borders.find(qn(f"w:{side}")).get(qn("w:val")) == "single", (name, side)
    for t in doc.tables:
        for i, row in enumerate(t.rows):
            tr_pr = row._tr.trPr
            assert tr_pr is not None and tr_pr.find(qn("w:cantSplit")) is not None
            header = tr_pr.find(qn("w:tblHeader")) is not None
            assert header == (i == 0 and t.style.name == "Schedule Table"), (t.style.name, i)
    body = list(doc.element.body.iterchildren())
    assert doc.styles["Heading 2"].paragraph_format.keep_with_next
    blocks = 0
    for n, element in enumerate(body):
        if element.tag != qn("w:p") or 'w:val="Heading2"' not in element.xml:
            continue
        text, table, note = body[n + 1], body[n + 2], body[n + 3]
        assert text.tag == qn("w:p") and table.tag == qn("w:tbl") and note.tag == qn("w:p")
        assert _keeps_with_next(doc, text)
        assert all(_keeps_with_next(doc, p) for p in table.iter(qn("w:p")))
        assert "Encodes charter section" in "".join(note.itertext())
        blocks += 1
    assert blocks == 20


def _keeps_with_next(doc, p) -> bool:
    """A paragraph keeps with the next one, directly or through its style (or the style's base)."""
    from docx.text.paragraph import Paragraph

    para = Paragraph(p, doc.part)
    if para.paragraph_format.keep_with_next is not None:
        return para.paragraph_format.keep_with_next
    style = para.style
    while style is not None:
        if style.paragraph_format.keep_with_next is not None:
            return style.paragraph_format.keep_with_next
        style = style.base_style
    return False


def test_the_word_schedule_has_a_running_header_and_footer(exported):
    """From page 2 the header names the schedule ("Schedule 4: measured service levels") and both
    parties; page 1 (whose title says so already) has its own, empty header. Every page's footer,
    page 1's included, holds "day60 <version>", the first 12 hex digits of the deal file's SHA-256,
    SYNTHETIC (the existing banner), and "page N of M" as PAGE and NUMPAGES fields."""
    import hashlib

    doc, _, _ = exported
    section = doc.sections[0]
    assert section.different_first_page_header_footer
    header = "\n".join(p.text for p in section.header.paragraphs)
    assert "Schedule 4: measured service levels" in header
    assert "Example AI Operations Ltd (SYNTHETIC)" in header and "Harbour Claims BPO (SYNTHETIC)" in header
    assert not "".join(p.text for p in section.first_page_header.paragraphs).strip()
    digest = hashlib.sha256(SOW.read_bytes()).hexdigest()[:12]
    for footer in (section.footer, section.first_page_footer):
        xml = footer._element.xml
        text = "".join(footer._element.itertext())
        assert 'w:instr=" PAGE "' in xml and 'w:instr=" NUMPAGES "' in xml
        assert f"day60 {__version__}" in text and digest in text and "SYNTHETIC" in text
        assert "{{" not in text and "{%" not in text


@pytest.mark.parametrize("holidays, language", [("GB", "en-GB"), ("US", "en-US"), ("IE", "en-IE"), ("AU", "en-AU"),
                                                ("MX", "en-US"), ("DE", "en-GB"), (None, "en-GB")])
def test_the_spelling_language_comes_from_the_calendars_country(holidays, language):
    """The English Word checks the schedule in: the calendar country's own English where Word
    knows one (GB en-GB, US en-US, IE en-IE, AU en-AU), American English in the other Letter
    countries (MX), British English elsewhere (DE) and for a deal with no calendar yet."""
    from day60 import clauses

    deal = clauses.load_deal(SOW, clauses.load_library())
    calendar = None if holidays is None else {**deal.calendar, "holidays": {"country": holidays}}
    assert clauses.language_tag(deal.model_copy(update={"calendar": calendar})) == language

"""Rebuild templates/schedule.docx, the Word template `day60 clauses export --docx` fills with
docxtpl. Run it after changing the layout: python templates/make_schedule_docx.py

The template holds only docxtpl tags, fixed wording and the styles; every clause and value comes
from the same schedule data the HTML, PDF and Markdown exports use, in the same order: title block,
the editing note, precedence, calendar, definitions, incorporated material, the measures, the
Service Levels and their consequences (with the Service Level Table), parameters, the report and
holiday annexes, provenance.

Its look is defined here, as named styles a lawyer finds in Word's own style lists:

- One multi-level list numbers the clauses: Heading 2 (clause titles, level 0: 1., 2., ...) and
  "Clause Paragraph" (level 1: 3.1, 3.2, ...). Heading 1 (the sections) stands outside it, so the
  measures and the commercial clauses are numbered on from each other. The navigation pane shows
  the sections and clauses; a clause or paragraph a lawyer inserts renumbers the rest, and every
  cross-reference (a REF field to the bookmark on each clause title and paragraph) follows.
- "Schedule Table" (a header row that repeats on each page) and "Schedule Terms" (label and value
  pairs): padded cells, light horizontal rules, no vertical lines. No row splits across a page,
  and the short tables (the agreement block, the calendar, each clause's terms, the provenance)
  keep together; each clause's title, text, terms and charter line stay on one page.
- "Schedule Note" (the statement that an edited copy is no longer the verified export) and
  "Schedule Mark" (SYNTHETIC, DRAFT) are boxed paragraphs; "Schedule Code" is the character style
  of parameter names and hashes, excluded from the spelling check.
- A running header (the schedule's title and the parties) from page 2; a footer on every page with
  the toolkit's version, the start of the deal file's SHA-256 as exported, the SYNTHETIC or DRAFT
  mark and "page N of M" as Word fields.
- Arial throughout: Word has it everywhere and LibreOffice draws it with the metric-compatible
  Liberation Sans, so pages previewed there break where Word breaks them.

The export's finish (``day60.wordfile``) sets what depends on the deal: paper (A4 or Letter; the
text block is 170 mm wide on both), the spelling language, the document properties (the custom
ones hold every value the deal gives, and the text shows them through DOCPROPERTY fields), and
turns each bookmark marker and cross-reference marker into Word's own.
"""

from pathlib import Path

from docx import Document
from docx.enum.style import WD_STYLE_TYPE
from docx.enum.text import WD_TAB_ALIGNMENT
from docx.opc.constants import RELATIONSHIP_TYPE as RT
from docx.oxml import OxmlElement, parse_xml
from docx.oxml.ns import nsdecls, qn
from docx.shared import Mm, Pt, RGBColor

BOOKMARK = "\ue003"  # the clause title's bookmark marker, then the clause id, then END
END = "\ue004"

FONT = "Arial"
INK, GREY, RULE, HAIRLINE, SHADE = "1B1B1B", "595959", "404040", "BFBFBF", "F2F2F2"
MARK, MARK_SHADE = "9B1C1C", "FBEEEE"  # the SYNTHETIC and DRAFT marks, as in the PDF
TEXT_WIDTH = 170  # mm between the side margins, on A4 and on Letter alike (day60.wordfile)
HEADINGS_NUM = 90  # the multi-level list Heading 1 and Heading 2 share (clear of python-docx's own)
TABLE, TERMS = "Schedule Table", "Schedule Terms"


def _twips(mm: float) -> int:
    return round(mm * 1440 / 25.4)


def _clear(style) -> None:
    """Drop a built-in style's own paragraph and run properties (themed fonts, blue, 2013 sizes)."""
    for tag in ("w:pPr", "w:rPr"):
        for old in style.element.findall(qn(tag)):
            style.element.remove(old)


def _border(ppr, side: str, size: float, colour: str, space: int = 1) -> None:
    """A rule on one side of a paragraph: ``size`` in points."""
    borders = ppr.find(qn("w:pBdr"))
    if borders is None:
        borders = OxmlElement("w:pBdr")
        ppr.append(borders)
    rule = OxmlElement(f"w:{side}")
    for key, value in (("val", "single"), ("sz", str(round(size * 8))), ("space", str(space)), ("color", colour)):
        rule.set(qn(f"w:{key}"), value)
    borders.append(rule)


def _order_ppr(ppr) -> None:
    """python-docx appends what it does not model; Word wants pPr's children in schema order."""
    order = ["pStyle", "keepNext", "keepLines", "pageBreakBefore", "widowControl", "numPr", "pBdr", "shd", "tabs",
             "spacing", "ind", "jc", "outlineLvl"]
    children = sorted(ppr, key=lambda e: order.index(e.tag.split("}")[1]) if e.tag.split("}")[1] in order else 99)
    for child in children:
        ppr.append(child)


def _paragraph_style(doc, name: str, base: str = "Normal", *, size: float | None = None, bold: bool = False,
                     colour: str | None = None, before: float = 0, after: float = 0, keep: bool = False):
    """A paragraph style: a built-in one cleared, or a new one based on ``base``."""
    try:
        style = doc.styles[name]
        _clear(style)
    except KeyError:
        style = doc.styles.add_style(name, WD_STYLE_TYPE.PARAGRAPH)
    if name != "Normal":
        style.base_style = doc.styles[base]
    style.quick_style = True
    font = style.font
    if size:
        font.size = Pt(size)
    font.bold = bold or None
    if colour:
        font.color.rgb = RGBColor.from_string(colour)
    fmt = style.paragraph_format
    fmt.space_before, fmt.space_after = Pt(before), Pt(after)
    if keep:
        fmt.keep_with_next = True
    return style


def _styles(doc) -> None:
    # Every run falls back to the document defaults: Arial 10 pt, dark ink, the spelling language
    # (the finish sets the deal's), spacing of 1.15 lines; no theme fonts, which python-docx's
    # template points at a theme it does not carry.
    defaults = doc.styles.element.find(qn("w:docDefaults"))
    defaults.getparent().replace(defaults, parse_xml(
        f'<w:docDefaults {nsdecls("w")}><w:rPrDefault><w:rPr>'
        f'<w:rFonts w:ascii="{FONT}" w:hAnsi="{FONT}" w:eastAsia="{FONT}" w:cs="{FONT}"/>'
        f'<w:color w:val="{INK}"/><w:sz w:val="20"/><w:szCs w:val="20"/>'
        '<w:lang w:val="en-GB" w:eastAsia="en-GB" w:bidi="ar-SA"/></w:rPr></w:rPrDefault>'
        '<w:pPrDefault><w:pPr><w:spacing w:after="120" w:line="264" w:lineRule="auto"/></w:pPr></w:pPrDefault>'
        '</w:docDefaults>'))
    for fonts in doc.styles.element.iter(qn("w:rFonts")):
        for key in ("asciiTheme", "hAnsiTheme", "eastAsiaTheme", "cstheme"):
            fonts.attrib.pop(qn(f"w:{key}"), None)
    for lang in list(doc.styles.element.iter(qn("w:lang"))):  # one language, on the defaults only
        if lang.getparent().getparent().tag != qn("w:rPrDefault"):
            lang.getparent().remove(lang)

    _paragraph_style(doc, "Normal", after=6)
    _paragraph_style(doc, "Title", size=18, bold=True, after=8, keep=True)
    for level, (size, before, after) in enumerate(((12.5, 18, 6), (10.5, 12, 4))):
        style = _paragraph_style(doc, f"Heading {level + 1}", size=size, bold=True, before=before, after=after,
                                 keep=True)
        style.paragraph_format.keep_together = True
        ppr = style.element.get_or_add_pPr()
        if level == 1:  # clause titles are level 0 of the clauses' list; sections stand outside it
            ppr.append(parse_xml(f'<w:numPr {nsdecls("w")}><w:ilvl w:val="0"/>'
                                 f'<w:numId w:val="{HEADINGS_NUM}"/></w:numPr>'))
        if level == 0:  # a rule under each section's title, as the PDF's
            _border(ppr, "bottom", 0.5, "8C8C8C")
        ppr.append(parse_xml(f'<w:outlineLvl {nsdecls("w")} w:val="{level}"/>'))
        _order_ppr(ppr)
    banner = _paragraph_style(doc, "Schedule Mark", bold=True, colour=MARK, before=2, after=8, keep=True)
    ppr = banner.element.get_or_add_pPr()
    for side in ("top", "left", "bottom", "right"):
        _border(ppr, side, 0.75, MARK, space=4)
    ppr.append(parse_xml(f'<w:shd {nsdecls("w")} w:val="clear" w:color="auto" w:fill="{MARK_SHADE}"/>'))
    banner.paragraph_format.left_indent = banner.paragraph_format.right_indent = Pt(5)
    _order_ppr(ppr)
    note = _paragraph_style(doc, "Schedule Note", size=9, before=2, after=10)  # the edited-copy statement
    ppr = note.element.get_or_add_pPr()
    for side in ("top", "left", "bottom", "right"):
        _border(ppr, side, 0.75, RULE, space=4)
    ppr.append(parse_xml(f'<w:shd {nsdecls("w")} w:val="clear" w:color="auto" w:fill="{SHADE}"/>'))
    note.paragraph_format.left_indent = note.paragraph_format.right_indent = Pt(5)
    _order_ppr(ppr)
    _paragraph_style(doc, "Clause Text", after=6, keep=True)  # a clause's wording, kept with its terms
    doc.styles["Heading 2"].next_paragraph_style = doc.styles["Clause Text"]
    # A clause's numbered paragraphs (3.1, 3.2, ...): level 2 of the headings' list. A measure's are
    # kept with its terms table ("Clause Paragraph Keep"); a commercial clause's run on freely.
    numbered = _paragraph_style(doc, "Clause Paragraph", after=6)
    ppr = numbered.element.get_or_add_pPr()
    ppr.append(parse_xml(f'<w:numPr {nsdecls("w")}><w:ilvl w:val="1"/><w:numId w:val="{HEADINGS_NUM}"/></w:numPr>'))
    _order_ppr(ppr)
    _paragraph_style(doc, "Clause Paragraph Keep", "Clause Paragraph", after=6, keep=True)
    code = doc.styles.add_style("Schedule Code", WD_STYLE_TYPE.CHARACTER)  # names and hashes: never spell-checked
    code.element.get_or_add_rPr().append(parse_xml(f'<w:noProof {nsdecls("w")}/>'))
    code.quick_style = True
    _paragraph_style(doc, "Table Intro", after=4, keep=True)  # the sentence that introduces a table
    _paragraph_style(doc, "Clause Note", size=8, colour=GREY, before=4, after=12)  # "Encodes charter section"
    cell = _paragraph_style(doc, "Table Text", size=9)
    cell.paragraph_format.line_spacing = 1.1
    _paragraph_style(doc, "Table Text Keep", "Table Text", keep=True)  # rows of a table that stays whole
    _paragraph_style(doc, "Table Heading", "Table Text", bold=True, keep=True)  # header cells and labels
    _paragraph_style(doc, "Table Source", "Table Text", size=8, colour=GREY)  # who measures, and from what
    for name in ("Header", "Footer"):
        style = _paragraph_style(doc, name, size=8, colour=GREY)
        style.paragraph_format.line_spacing = 1.0
        style.paragraph_format.tab_stops.add_tab_stop(Mm(TEXT_WIDTH), WD_TAB_ALIGNMENT.RIGHT)
    _table_style(doc, TABLE, header=True)
    _table_style(doc, TERMS, header=False)


def _table_style(doc, name: str, header: bool) -> None:
    """Light rules (a firm one above and below, hairlines between rows, none down the sides or
    between columns) and padded cells; with ``header``, a shaded first row that repeats on each page."""
    style = doc.styles.add_style(name, WD_STYLE_TYPE.TABLE)
    style.base_style = doc.styles["Normal Table"]
    style.element.append(parse_xml(
        f'<w:tblPr {nsdecls("w")}><w:tblBorders>'
        f'<w:top w:val="single" w:sz="8" w:space="0" w:color="{RULE}"/><w:left w:val="nil"/>'
        f'<w:bottom w:val="single" w:sz="8" w:space="0" w:color="{RULE}"/><w:right w:val="nil"/>'
        f'<w:insideH w:val="single" w:sz="4" w:space="0" w:color="{HAIRLINE}"/><w:insideV w:val="nil"/>'
        '</w:tblBorders><w:tblCellMar>'
        f'<w:top w:w="{_twips(1)}" w:type="dxa"/><w:left w:w="{_twips(2)}" w:type="dxa"/>'
        f'<w:bottom w:w="{_twips(1)}" w:type="dxa"/><w:right w:w="{_twips(2)}" w:type="dxa"/>'
        '</w:tblCellMar></w:tblPr>'))
    if header:
        style.element.append(parse_xml(
            f'<w:tblStylePr {nsdecls("w")} w:type="firstRow"><w:rPr><w:b/></w:rPr><w:trPr><w:tblHeader/></w:trPr>'
            f'<w:tcPr><w:tcBorders><w:bottom w:val="single" w:sz="8" w:space="0" w:color="{RULE}"/></w:tcBorders>'
            f'<w:shd w:val="clear" w:color="auto" w:fill="{SHADE}"/></w:tcPr></w:tblStylePr>'))


def _numbering(doc) -> None:
    """One multi-level list: level 0 (Heading 2, the clauses) counts 1., 2., ... through the whole
    schedule, hanging 10 mm; level 1 ("Clause Paragraph") counts 3.1, 3.2, ... within its clause,
    hanging 10 mm. Heading 1 (the sections) is outside the list, so a section never restarts the
    clause numbers: the measures and the commercial clauses run on from each other."""
    numbering = doc.part.numbering_part.element
    abstract = parse_xml(
        f'<w:abstractNum {nsdecls("w")} w:abstractNumId="{HEADINGS_NUM}">'
        '<w:multiLevelType w:val="multilevel"/><w:name w:val="Schedule clauses"/>'
        '<w:lvl w:ilvl="0"><w:start w:val="1"/><w:numFmt w:val="decimal"/>'
        '<w:pStyle w:val="Heading2"/><w:lvlText w:val="%1."/><w:lvlJc w:val="left"/>'
        f'<w:pPr><w:tabs><w:tab w:val="num" w:pos="{_twips(10)}"/></w:tabs>'
        f'<w:ind w:left="{_twips(10)}" w:hanging="{_twips(10)}"/></w:pPr></w:lvl>'
        '<w:lvl w:ilvl="1"><w:start w:val="1"/><w:numFmt w:val="decimal"/><w:pStyle w:val="ClauseParagraph"/>'
        '<w:lvlText w:val="%1.%2"/><w:lvlJc w:val="left"/>'
        f'<w:pPr><w:tabs><w:tab w:val="num" w:pos="{_twips(10)}"/></w:tabs>'
        f'<w:ind w:left="{_twips(10)}" w:hanging="{_twips(10)}"/></w:pPr>'
        '<w:rPr><w:b w:val="0"/></w:rPr></w:lvl>'
        '</w:abstractNum>')
    first_num = numbering.find(qn("w:num"))
    if first_num is None:
        numbering.append(abstract)
    else:
        first_num.addprevious(abstract)
    numbering.append(parse_xml(f'<w:num {nsdecls("w")} w:numId="{HEADINGS_NUM}">'
                               f'<w:abstractNumId w:val="{HEADINGS_NUM}"/></w:num>'))


def _package(doc) -> None:
    """What python-docx's own template says about itself goes: its author, 2013 dates, thumbnail of
    a blank page, "Microsoft Macintosh Word", a Word 2010 copy of its old styles, and a proofing
    state that tells Word the spelling was already checked. Word opens the file in its current mode,
    not Word 2010 compatibility mode. The finish sets the properties of each export."""
    props = doc.core_properties
    props.author = props.last_modified_by = "day60"
    props.comments = props.title = props.subject = props.keywords = ""
    props.category = "Contract schedule"
    for rid, rel in list(doc.part.rels.items()):  # Word 2010's copy of python-docx's old styles
        if rel.reltype.endswith("/stylesWithEffects"):
            del doc.part.rels[rid]
    package = doc.part.package
    for rid, rel in list(package.rels.items()):
        if rel.reltype == RT.THUMBNAIL:
            del package.rels[rid]
        elif rel.reltype == RT.EXTENDED_PROPERTIES:
            rel.target_part._blob = (
                b"<?xml version='1.0' encoding='UTF-8' standalone='yes'?>\n"
                b'<Properties xmlns="http://schemas.openxmlformats.org/officeDocument/2006/extended-properties">'
                b"<Application>day60</Application><DocSecurity>0</DocSecurity><ScaleCrop>false</ScaleCrop>"
                b"<LinksUpToDate>false</LinksUpToDate><SharedDoc>false</SharedDoc>"
                b"<HyperlinksChanged>false</HyperlinksChanged></Properties>")
    settings = doc.settings.element
    for old in settings.findall(qn("w:proofState")):
        settings.remove(old)
    for mode in settings.iter(qn("w:compatSetting")):
        if mode.get(qn("w:name")) == "compatibilityMode":
            mode.set(qn("w:val"), "15")
    for lang in settings.iter(qn("w:themeFontLang")):
        lang.set(qn("w:val"), "en-GB")
        lang.attrib.pop(qn("w:eastAsia"), None)


def _widths(table, widths):
    """Column widths in millimetres (the text block is 170 mm wide)."""
    table.autofit = False
    for column, width in zip(table.columns, widths, strict=True):
        column.width = Mm(width)  # the grid, which LibreOffice reads
    for row in table.rows:
        for cell, width in zip(row.cells, widths, strict=True):
            cell.width = Mm(width)


def _rows(table, header: bool) -> None:
    """No row splits across a page; a header row repeats at the top of each page the table runs onto."""
    for i, row in enumerate(table.rows):
        props = row._tr.get_or_add_trPr()
        props.append(OxmlElement("w:cantSplit"))
        if header and i == 0:
            props.append(OxmlElement("w:tblHeader"))


def _fill(cell, text: str, style: str, code: bool = False) -> None:
    cell.text = text
    for para in cell.paragraphs:
        para.style = style
        if code:
            for run in para.runs:
                run.style = "Schedule Code"


def _pairs(doc, rows, loop: tuple[int, str] | None = None, code: tuple[str, ...] = ()):
    """A table of labels and values, the labels narrow and bold; kept whole on one page, and with
    what follows it. ``loop`` (row index, docxtpl loop) repeats that row once per item; a label in
    ``code`` has its value in the Schedule Code style."""
    count = len(rows) + (2 if loop else 0)
    table = doc.add_table(rows=count, cols=2)
    table.style = TERMS
    at = 0
    for i, (label, value) in enumerate(rows):
        if loop and i == loop[0]:
            table.rows[at].cells[0].text = f"{{%tr for {loop[1]} %}}"
            at += 1
        _fill(table.rows[at].cells[0], label, "Table Heading")
        _fill(table.rows[at].cells[1], value, "Table Text Keep", code=label in code)
        at += 1
        if loop and i == loop[0]:
            table.rows[at].cells[0].text = "{%tr endfor %}"
            at += 1
    _widths(table, (45, TEXT_WIDTH - 45))
    _rows(table, header=False)
    return table


def _table(doc, headers, loop, cells, widths, keep: bool = False, code: tuple[int, ...] = ()):
    """A real table: a header row, then one row per item of ``loop`` (docxtpl's row loop); with
    ``keep``, short enough to be kept whole on one page. Columns in ``code`` are in the Schedule
    Code style."""
    assert sum(widths) == TEXT_WIDTH, widths
    table = doc.add_table(rows=4, cols=len(headers))
    table.style = TABLE
    for cell, text in zip(table.rows[0].cells, headers, strict=True):
        _fill(cell, text, "Table Heading")
    table.rows[1].cells[0].text = f"{{%tr for {loop} %}}"
    for i, (cell, text) in enumerate(zip(table.rows[2].cells, cells, strict=True)):
        _fill(cell, text, "Table Text Keep" if keep else "Table Text", code=i in code)
    table.rows[3].cells[0].text = "{%tr endfor %}"
    _widths(table, widths)
    _rows(table, header=True)
    return table


def _levels(doc, credits: bool):
    """The Service Level Table: per Service Level, a row of its values and under it a row, one
    cell wide, saying who measures it and from what; the two rows kept together."""
    headers = ["Clause", "Service Level", "Target", "Critical Level", "Minimum Volume", "Period"]
    cells = ["{{ r.clause_marked }}", "{{ r.measure }}", "{{ r.target_marked }}", "{{ r.critical_marked }}",
             "{{ r.minimum_volume_marked }}", "{{ r.period }}"]
    widths = [15, 33, 27, 25, 28, 24] if credits else [15, 41, 30, 28, 32, 24]
    if credits:
        headers.append("Credit Weight")
        cells.append("{{ r.credit_weight_marked }}")
        widths.append(18)
    table = doc.add_table(rows=5, cols=len(headers))
    table.style = TABLE
    for cell, text in zip(table.rows[0].cells, headers, strict=True):
        _fill(cell, text, "Table Heading")
    table.rows[1].cells[0].text = "{%tr for r in s.service_levels %}"
    for cell, text in zip(table.rows[2].cells, cells, strict=True):
        _fill(cell, text, "Table Text Keep")
    table.rows[3].cells[0].text = ""
    _fill(table.rows[3].cells[0], "", "Table Source")
    source = table.rows[3].cells[1].merge(table.rows[3].cells[-1])
    _fill(source, "Measured by the {{ r.measured_by }}, from {{ r.source }}.", "Table Source")
    table.rows[4].cells[0].text = "{%tr endfor %}"
    _widths(table, widths)
    source.width = Mm(sum(widths[1:]))
    _rows(table, header=True)
    for cell in table.rows[2].cells:  # no rule between a Service Level and its source line
        cell._tc.get_or_add_tcPr().append(
            parse_xml(f'<w:tcBorders {nsdecls("w")}><w:bottom w:val="nil"/></w:tcBorders>'))
    for cell in (table.rows[3].cells[0], source):
        cell._tc.get_or_add_tcPr().append(
            parse_xml(f'<w:tcBorders {nsdecls("w")}><w:top w:val="nil"/></w:tcBorders>'))
    return table


def _page(doc) -> None:
    """A4 with 20 mm side margins (the finish switches a Letter deal's paper, keeping 170 mm of
    text); the header from page 2, the footer on every page."""
    section = doc.sections[0]
    section.page_width, section.page_height = Mm(210), Mm(297)
    section.left_margin = section.right_margin = Mm((210 - TEXT_WIDTH) / 2)
    section.top_margin, section.bottom_margin = Mm(25), Mm(22)
    section.header_distance = section.footer_distance = Mm(10)
    section.different_first_page_header_footer = True
    title, parties = section.header.paragraphs[0], section.header.add_paragraph()
    title.style = parties.style = "Header"
    title.add_run("{{ s.deal.schedule }}: measured service levels").bold = True
    parties.add_run("{{ s.deal.provider }} and {{ s.deal.partner }}")
    _border(parties._p.get_or_add_pPr(), "bottom", 0.5, HAIRLINE, space=3)
    _order_ppr(parties._p.pPr)
    section.first_page_header.paragraphs[0].style = "Header"
    _footer(section.footer.paragraphs[0])
    _footer(section.first_page_footer.paragraphs[0])


def _footer(para) -> None:
    """Left: the toolkit, clause library and deal file's hash; right: the mark, and page N of M."""
    para.style = "Footer"
    para.add_run("day60 {{ toolkit_version }} · clause library {{ s.library.id }} {{ s.library.version }}"
                 " · deal file SHA-256 {{ s.sow_sha256[:12] }} as exported\t")
    mark = para.add_run("{{ banner }}")
    mark.bold = True
    mark.font.color.rgb = RGBColor.from_string(MARK)
    para.add_run("{% if banner %}   {% endif %}page ")
    _field(para, "PAGE")
    para.add_run(" of ")
    _field(para, "NUMPAGES")
    _border(para._p.get_or_add_pPr(), "top", 0.5, HAIRLINE, space=3)
    _order_ppr(para._p.pPr)


def _field(para, instruction: str) -> None:
    """A simple field (Word shows its result and updates it on each page)."""
    para._p.append(parse_xml(f'<w:fldSimple {nsdecls("w")} w:instr=" {instruction} ">'
                             '<w:r><w:t xml:space="preserve">1</w:t></w:r></w:fldSimple>'))


def _banner(doc, text):
    doc.add_paragraph(text, style="Schedule Mark")


NOTE = ("This Word file is an editing copy of the schedule that day60 {{ toolkit_version }} exported from the deal "
        "file whose SHA-256 is {{ s.sow_sha256 }}. Once anyone edits it, it is no longer that export: the deal file "
        "and the PDF exported with it (which 'day60 verify-report' checks) remain the record, and the SHA-256 in "
        "this file describes the deal as exported, not this copy as edited. Every value taken from the deal is a "
        "field showing one of this file's custom document properties (File, Info, Properties, Advanced "
        "properties, Custom): change a value there and update the fields (select all, then F9) to change it "
        "wherever it appears. To list how an edited copy's values and wording differ from a deal file, run: "
        "day60 clauses diff --sow DEAL.toml THIS-FILE.docx")


def _paragraphs(doc, loop: str, keep: bool) -> None:
    """A clause's paragraphs: numbered (Clause Paragraph, 3.1, 3.2, ...) where it has several,
    unnumbered (Clause Text) where it has one; each carries a bookmark marker for its id."""
    doc.add_paragraph(f"{{%p for q in {loop} %}}")
    doc.add_paragraph("{%p if q.number %}")
    doc.add_paragraph(BOOKMARK + "{{ q.id }}" + END + "{{ q.marked }}",
                      style="Clause Paragraph Keep" if keep else "Clause Paragraph")
    doc.add_paragraph("{%p else %}")
    doc.add_paragraph(BOOKMARK + "{{ q.id }}" + END + "{{ q.marked }}", style="Clause Text")
    doc.add_paragraph("{%p endif %}")
    doc.add_paragraph("{%p endfor %}")


def build(out: Path) -> None:
    doc = Document()
    _styles(doc)
    _numbering(doc)
    _package(doc)
    _page(doc)
    doc.add_paragraph("{{ s.deal.schedule }}: measured service levels", style="Title")
    doc.add_paragraph("{%p if s.synthetic %}")
    _banner(doc, "SYNTHETIC: the parties and numbers in this schedule are invented to demonstrate the toolkit. "
                 "It is not a contract.")
    doc.add_paragraph("{%p endif %}")
    doc.add_paragraph("{%p if s.draft %}")
    _banner(doc, "DRAFT: {{ s.unfilled | length }} value(s) (parameters, material or calendar) are not yet filled "
                 "and are shown as named blanks: "
                 "{{ s.unfilled | join(', ') }}.")
    doc.add_paragraph("{%p endif %}")
    _pairs(doc, (("Agreement", "{{ s.deal.agreement }}"),
                 ("{{ party.term }}", '{{ party.name }} (the "{{ party.term }}")'),
                 ("Effective", "{{ s.deal.effective_date }}"), ("Currency", "{{ s.deal.currency }}")),
           loop=(1, "party in s.parties"))
    doc.add_paragraph(NOTE, style="Schedule Note")

    doc.add_heading("Precedence", level=1)
    doc.add_paragraph("{{ s.precedence }}")

    doc.add_heading("Business calendar", level=1)
    doc.add_paragraph("{%p if s.calendar %}")
    doc.add_paragraph("Every Business Day and Business Hour in this schedule is counted on this calendar.",
                      style="Table Intro")
    _table(doc, ("Setting", "Value"), "row in s.calendar", ("{{ row[0] }}", "{{ row[1] }}"), (45, 125), keep=True)
    doc.add_paragraph("{%p else %}")
    _banner(doc, "The business calendar is not yet agreed: until it is, no Business Day or Business Hour in this "
                 "schedule can be counted.")
    doc.add_paragraph("{%p endif %}")

    doc.add_heading("Definitions", level=1)
    doc.add_paragraph("{{ s.catch_all }}{% if s.agreement_terms %} The terms this schedule takes from the Agreement "
                      "are: {{ s.agreement_terms | join(', ') }}.{% endif %}")
    doc.add_paragraph("In this schedule the following terms have these meanings.", style="Table Intro")
    _table(doc, ("Term", "Meaning"), "term, meaning in s.definitions_marked.items()", ("{{ term }}", "{{ meaning }}"),
           (45, 125))

    doc.add_paragraph("{%p if s.documents %}")
    doc.add_heading("Incorporated material", level=1)
    doc.add_paragraph("Each of these terms means the material named beside it, which forms part of the clauses that "
                      "use it, in the version named here.", style="Table Intro")
    _table(doc, ("Term", "What it must contain", "The material", "Clauses"), "d in s.documents",
           ("{{ d.term }}", "{{ d.what }}", "{{ d.reference or '[' ~ d.term ~ ': to be named]' }}",
            "{{ d.clauses_marked }}"), (35, 65, 50, 20))
    doc.add_paragraph("{%p endif %}")

    doc.add_heading("Measures", level=1)
    doc.add_paragraph("{%p for c in s.clauses %}")
    doc.add_heading(BOOKMARK + "{{ c.id }}" + END + "{{ c.title }}", level=2)
    _paragraphs(doc, "c.paragraphs", keep=True)
    _pairs(doc, (("Unit", "{{ c.definitions.unit }}"), ("Counted", "{{ c.definitions.numerator }}"),
                 ("Divided by", "{{ c.definitions.denominator }}"),
                 ("Left out, and counted", "{{ c.definitions.exclusions }}")))
    doc.add_paragraph("Encodes charter section {{ c.section }}{% if c.requires %}; stands or falls with "
                      "{{ c.requires | join(', ') }}{% endif %}.", style="Clause Note")
    doc.add_paragraph("{%p endfor %}")

    doc.add_paragraph("{%p if s.modules %}")
    doc.add_heading("Service Levels and their consequences", level=1)
    doc.add_paragraph("{%p for m in s.modules %}")
    doc.add_heading(BOOKMARK + "{{ m.id }}" + END + "{{ m.title }}", level=2)
    _paragraphs(doc, "m.paragraphs", keep=False)
    doc.add_paragraph("{%p if m.id == 'service-levels' %}")
    intro = doc.add_paragraph(style="Table Intro")
    intro.add_run("Service Level Table.").bold = True
    intro.add_run(" Each Service Level's target, Critical Level and Minimum Volume, its Measurement Period"
                  "{% if s.credits %} and Credit Weight{% endif %}, and under it the party that measures it and the "
                  "records it is measured from.")
    doc.add_paragraph("{%p if s.credits %}")
    _levels(doc, credits=True)
    doc.add_paragraph("{%p else %}")
    _levels(doc, credits=False)
    doc.add_paragraph("{%p endif %}")
    doc.add_paragraph("{%p endif %}")
    doc.add_paragraph("{%p endfor %}")
    doc.add_paragraph("{%p endif %}")

    doc.add_heading("Parameters", level=1)
    _table(doc, ("Clause", "Parameter", "Value", "Meaning"), "p in s.parameters",
           ("{{ p.clause_marked }}", "{{ p.id }}", "{{ p.value_marked }}",
            "{{ p.description }}{% if p.fixed %} {{ p.fixed | capitalize }}.{% endif %}"), (16, 64, 30, 60), code=(1,))

    doc.add_paragraph("{%p if s.report_elements %}")
    doc.add_heading("Annex: Monthly Report elements", level=1)
    doc.add_paragraph("The elements " + "{{ s.report_clause_marked }}" + " requires of every Monthly Report, each "
                      "present, covering the whole period and carrying the Sample Size or basis of its figures.",
                      style="Table Intro")
    _table(doc, ("Element", "What it contains", "Source"), "e in s.report_elements",
           ("{{ e.id }}", "{{ e.what }}", "{{ e.source }}"), (45, 95, 30), code=(0,))
    doc.add_paragraph("{%p endif %}")

    doc.add_paragraph("{%p if s.holidays %}")
    doc.add_heading("Annex: Public holidays", level=1)
    doc.add_paragraph("The public holidays of the business calendar, as dates, so that no later list can move a "
                      "Business Day this schedule counts.", style="Table Intro")
    _table(doc, ("Date", "Day", "Holiday"), "h in s.holidays", ("{{ h.date }}", "{{ h.weekday }}", "{{ h.name }}"),
           (30, 30, 110))
    doc.add_paragraph("{%p endif %}")

    doc.add_heading("Provenance", level=1)
    _pairs(doc, (("Clause library", "{{ s.library.id }} {{ s.library.version }}"),
                 ("Charter", "{{ s.library.charter }}; sections in this schedule: {{ s.sections | join(', ') }}"),
                 ("Deal file SHA-256", "{{ s.sow_sha256 }}"),
                 ("This Word file", "an editing copy: the SHA-256 above is of the deal file as exported, and stops "
                                    "describing this copy once it is edited"),
                 ("Toolkit", "day60 {{ toolkit_version }}")), code=("Deal file SHA-256",))
    doc.save(out)


if __name__ == "__main__":
    build(Path(__file__).with_name("schedule.docx"))

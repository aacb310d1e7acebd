"""Rebuild templates/schedule.docx, the Word template `day60 clauses export --docx` fills with
docxtpl. Run it after changing the layout: python templates/make_schedule_docx.py

The template holds only docxtpl tags and fixed wording; every clause and value comes from the
same schedule data the HTML, PDF and Markdown exports use, in the same order: title block,
precedence, calendar, definitions, documents, clauses, parameters, the report annex, provenance.
Clauses are numbered by Word itself (the "List Number" style), so a lawyer's inserted clause
renumbers the rest; each clause title carries a bookmark marker and each cross-reference a REF
marker, which ``day60.render.docx`` turns into real bookmarks and REF fields after filling.
The page size, page numbers and the SYNTHETIC or DRAFT banner are set there too.
"""

from pathlib import Path

from docx import Document
from docx.shared import Mm, Pt, RGBColor

BOOKMARK = "\ue003"  # the clause title's bookmark marker, then the clause id, then END
END = "\ue004"


def _widths(table, widths):
    """Column widths in millimetres (the page is 170 mm between its margins)."""
    table.autofit = False
    for column, width in zip(table.columns, widths, strict=True):
        column.width = Mm(width)  # the grid, which LibreOffice reads
    for row in table.rows:
        for cell, width in zip(row.cells, widths, strict=True):
            cell.width = Mm(width)


def _pairs(doc, rows):
    """A two-column table of labels and values, the labels narrow."""
    table = doc.add_table(rows=len(rows), cols=2)
    table.style = "Table Grid"
    for row, (label, value) in zip(table.rows, rows, strict=True):
        row.cells[0].text, row.cells[1].text = label, value
    _widths(table, (45, 125))
    return table


def _table(doc, headers, loop, cells, widths=None):
    """A real table: a header row, then one row per item of ``loop`` (docxtpl's row loop)."""
    table = doc.add_table(rows=4, cols=len(headers))
    table.style = "Table Grid"
    for cell, text in zip(table.rows[0].cells, headers, strict=True):
        cell.text = text
        for run in cell.paragraphs[0].runs:
            run.bold = True
    table.rows[1].cells[0].text = f"{{%tr for {loop} %}}"
    for cell, text in zip(table.rows[2].cells, cells, strict=True):
        cell.text = text
    table.rows[3].cells[0].text = "{%tr endfor %}"
    if widths:
        _widths(table, widths)
    return table


def _banner(doc, text):
    para = doc.add_paragraph()
    run = para.add_run(text)
    run.bold = True
    run.font.color.rgb = RGBColor(0x9B, 0x1C, 0x1C)


def build(out: Path) -> None:
    doc = Document()
    style = doc.styles["Normal"]
    style.font.name = "DejaVu Sans"
    style.font.size = Pt(10)
    titles = doc.styles["List Number"]
    titles.font.bold = True
    titles.font.size = Pt(11)
    titles.paragraph_format.space_before = Pt(12)
    titles.paragraph_format.keep_with_next = True
    doc.add_paragraph("{{ s.deal.schedule }}: measured service levels", style="Title")
    doc.add_paragraph("{%p if s.synthetic %}")
    _banner(doc, "SYNTHETIC: the parties and numbers in this schedule are invented to demonstrate the toolkit. "
                 "It is not a contract.")
    doc.add_paragraph("{%p endif %}")
    doc.add_paragraph("{%p if s.draft %}")
    _banner(doc, "DRAFT: {{ s.unfilled | length }} parameter(s) are not yet filled and are shown as named blanks: "
                 "{{ s.unfilled | join(', ') }}.")
    doc.add_paragraph("{%p endif %}")
    _pairs(doc, (("Agreement", "{{ s.deal.agreement }}"), ("Provider", '{{ s.deal.provider }} (the "Provider")'),
                 ("Partner", '{{ s.deal.partner }} (the "Partner")'), ("Effective", "{{ s.deal.effective_date }}"),
                 ("Currency", "{{ s.deal.currency }}")))

    doc.add_heading("Precedence", level=1)
    doc.add_paragraph("{{ s.precedence }}")

    doc.add_heading("Business calendar", level=1)
    doc.add_paragraph("{%p if s.calendar %}")
    doc.add_paragraph("Every Business Day and Business Hour in this schedule is counted on this calendar.")
    _table(doc, ("Setting", "Value"), "row in s.calendar", ("{{ row[0] }}", "{{ row[1] }}"), (45, 125))
    doc.add_paragraph("{%p else %}")
    _banner(doc, "The business calendar is not yet agreed: until it is, no Business Day or Business Hour in this "
                 "schedule can be counted.")
    doc.add_paragraph("{%p endif %}")

    doc.add_heading("Definitions", level=1)
    doc.add_paragraph("{{ s.catch_all }}")
    doc.add_paragraph("In this schedule the following terms have these meanings, and every measure states its unit, "
                      "what it counts, what it divides by and what it leaves out, each exclusion being counted and "
                      "reported beside the figure. A floor or ceiling is met only if the unrounded figure meets it; "
                      "rounding is for presentation. A figure reported without its sample size is not evidence of "
                      "anything.")
    _table(doc, ("Term", "Meaning"), "term, meaning in s.definitions_marked.items()", ("{{ term }}", "{{ meaning }}"),
           (45, 125))

    doc.add_paragraph("{%p if s.documents %}")
    doc.add_heading("Documents referred to", level=1)
    doc.add_paragraph("Each of these terms means the document named here; it forms part of the clauses that use it.")
    _table(doc, ("Term", "What it must contain", "The document", "Clauses"), "d in s.documents",
           ("{{ d.term }}", "{{ d.what }}", "{{ d.reference or '[' ~ d.term ~ ': to be named]' }}",
            "{{ d.clauses | join(', ') }}"), (35, 65, 50, 20))
    doc.add_paragraph("{%p endif %}")

    doc.add_heading("Clauses", level=1)
    doc.add_paragraph("{%p for c in s.clauses %}")
    doc.add_paragraph(BOOKMARK + "{{ c.id }}" + END + "{{ c.title }}", style="List Number")
    doc.add_paragraph("{{ c.marked }}")
    _pairs(doc, (("Unit", "{{ c.definitions.unit }}"), ("Counted", "{{ c.definitions.numerator }}"),
                 ("Divided by", "{{ c.definitions.denominator }}"),
                 ("Left out, and counted", "{{ c.definitions.exclusions }}")))
    doc.add_paragraph("Encodes charter section {{ c.section }}{% if c.requires %}; stands or falls with "
                      "{{ c.requires | join(', ') }}{% endif %}.")
    doc.add_paragraph("{%p endfor %}")

    doc.add_heading("Parameters", level=1)
    _table(doc, ("Clause", "Parameter", "Type", "Value", "Meaning"), "p in s.parameters",
           ("{{ p.clause }}", "{{ p.id }}", "{{ p.unit }}", "{{ p.value }}",
            "{{ p.description }}{% if p.fixed %} {{ p.fixed | capitalize }}.{% endif %}"), (17, 55, 24, 24, 50))

    doc.add_paragraph("{%p if s.report_elements %}")
    doc.add_heading("Annex: Monthly Report elements", level=1)
    doc.add_paragraph("The elements " + "{{ s.report_clause_marked }}" + " requires of every Monthly Report, each "
                      "present, covering the whole period and carrying the sample size or basis of its figures.")
    _table(doc, ("Element", "What it contains", "Source"), "e in s.report_elements",
           ("{{ e.id }}", "{{ e.what }}", "{{ e.source }}"), (45, 95, 30))
    doc.add_paragraph("{%p endif %}")

    doc.add_heading("Provenance", level=1)
    _pairs(doc, (("Clause library", "{{ s.library.id }} {{ s.library.version }}"),
                 ("Charter", "{{ s.library.charter }}; sections in this schedule: {{ s.sections | join(', ') }}"),
                 ("Deal file SHA-256", "{{ s.sow_sha256 }}"), ("Toolkit", "day60 {{ toolkit_version }}")))
    doc.save(out)


if __name__ == "__main__":
    build(Path(__file__).with_name("schedule.docx"))

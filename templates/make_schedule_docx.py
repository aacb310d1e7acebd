"""Rebuild templates/schedule.docx, the Word template `day60 clauses export --docx` fills with
docxtpl. Run it after changing the layout: python templates/make_schedule_docx.py

The template holds only docxtpl tags and fixed wording; every clause and value comes from the
same schedule data the HTML and Markdown exports use. Clauses are numbered by Word itself (the
"List Number" style), so a lawyer's inserted clause renumbers the rest.
"""

from pathlib import Path

from docx import Document
from docx.shared import Pt


def build(out: Path) -> None:
    doc = Document()
    style = doc.styles["Normal"]
    style.font.name = "DejaVu Sans"
    style.font.size = Pt(10)
    doc.add_paragraph("{{ s.deal.schedule }}: measured service levels", style="Title")
    doc.add_paragraph("{%p if s.draft %}")
    doc.add_paragraph("DRAFT: not yet filled: {{ s.unfilled | join(', ') }}. Named blanks stand in for them.")
    doc.add_paragraph("{%p endif %}")
    doc.add_paragraph("{%p if s.synthetic %}")
    doc.add_paragraph("SYNTHETIC: the parties and numbers in this schedule are invented to demonstrate the toolkit. "
                      "It is not a contract.")
    doc.add_paragraph("{%p endif %}")
    for label, key in (("Agreement", "agreement"), ("Provider", "provider"), ("Partner", "partner"),
                       ("Effective", "effective_date"), ("Currency", "currency")):
        doc.add_paragraph(f"{label}: {{{{ s.deal.{key} }}}}")
    doc.add_heading("Precedence", level=1)
    doc.add_paragraph("{{ s.precedence }}")
    doc.add_heading("Business calendar", level=1)
    doc.add_paragraph("{%p if not s.calendar %}")
    doc.add_paragraph("The business calendar is not yet agreed: until it is, no Business Day or Business Hour can "
                      "be counted.")
    doc.add_paragraph("{%p endif %}")
    doc.add_paragraph("{%p for label, value in s.calendar %}")
    doc.add_paragraph("{{ label }}: {{ value }}")
    doc.add_paragraph("{%p endfor %}")
    doc.add_heading("Definitions", level=1)
    doc.add_paragraph("{{ s.catch_all }}")
    doc.add_paragraph("{%p for term, meaning in s.definitions.items() %}")
    doc.add_paragraph("{{ term }}: {{ meaning }}")
    doc.add_paragraph("{%p endfor %}")
    doc.add_heading("Documents referred to", level=1)
    doc.add_paragraph("{%p for d in s.documents %}")
    doc.add_paragraph("{{ d.term }} ({{ d.what }}): {{ d.reference or '[' ~ d.term ~ ': to be named]' }}")
    doc.add_paragraph("{%p endfor %}")
    doc.add_heading("Clauses", level=1)
    doc.add_paragraph("{%p for c in s.clauses %}")
    doc.add_paragraph("{{ c.title }}", style="List Number")
    doc.add_paragraph("{{ c.text }}")
    doc.add_paragraph("Unit: {{ c.definitions.unit }}. Counted: {{ c.definitions.numerator }}. Divided by: "
                      "{{ c.definitions.denominator }}. Left out, and counted: {{ c.definitions.exclusions }}.")
    doc.add_paragraph("{%p endfor %}")
    doc.add_heading("Parameters", level=1)
    table = doc.add_table(rows=3, cols=4)
    table.style = "Table Grid"
    for cell, text in zip(table.rows[0].cells, ("Clause", "Parameter", "Type", "Value"), strict=True):
        cell.text = text
    table.rows[1].cells[0].text = "{%tr for p in s.parameters %}"
    for cell, text in zip(table.rows[2].cells, ("{{ p.clause }}", "{{ p.id }}", "{{ p.unit }}", "{{ p.value }}"),
                          strict=True):
        cell.text = text
    row = table.add_row()
    row.cells[0].text = "{%tr endfor %}"
    doc.add_paragraph("{%p if s.report_elements %}")
    doc.add_heading("Annex: Monthly Report elements", level=1)
    doc.add_paragraph("{%p for e in s.report_elements %}")
    doc.add_paragraph("{{ e.id }}: {{ e.what }} ({{ e.source }})")
    doc.add_paragraph("{%p endfor %}")
    doc.add_paragraph("{%p endif %}")
    doc.add_paragraph("Clause library {{ s.library.id }} {{ s.library.version }}; {{ s.library.charter }}; deal file "
                      "SHA-256 {{ s.sow_sha256 }}; day60 {{ toolkit_version }}.")
    doc.save(out)


if __name__ == "__main__":
    build(Path(__file__).with_name("schedule.docx"))

"""Documents for the lawyer and the partner: comply as a PDF, the 8.3 notice as a letter."""

import json
import re

import pytest
from pypdf import PdfReader

from tests import pdftext


@pytest.fixture
def demo(demo_folder):
    """The demo's folder, made once a run (tests/conftest.py) and only read here."""
    return demo_folder


def text_of(path):
    return pdftext.words(path)


def test_comply_writes_its_table_as_a_pdf_with_provenance(demo, run, tmp_path):
    """The demo against the synthetic deal: the demo's second drift was never notified, so
    drift-notice is not met (exit 1, as without --pdf); the PDF carries every row, the counts,
    SYNTHETIC and the hashes of its inputs."""
    out = tmp_path / "comply.pdf"
    r = run("comply", demo / "exercise.jsonl", "--sow", demo / "synthetic-sow.toml", "--pdf", out,
            "--html", tmp_path / "comply.html", "--format", "json")
    assert r.exit_code == 1
    rows = json.loads(r.stdout)["checks"]
    text = text_of(out)
    assert "Compliance with Schedule 4" in text and "SYNTHETIC" in text
    assert f"{len(rows)}: " in text and "not met" in text
    for row in rows:
        assert row["check"] in text.replace("- ", "-")  # an id breaks only after a hyphen
    assert "Journal SHA-256" in text and "Deal SHA-256" in text
    # The provenance is read as one block: its heading and every line of it kept on one page (the
    # demo in a folder named "demo" once printed the heading and the command at the foot of page 2
    # and the hashes alone on page 3). The heading and the list sit in one block the print styles
    # never break, and the PDF prints them on one page.
    html = (tmp_path / "comply.html").read_text()
    block = re.search(r'<div class="block"><h2>Provenance</h2>\s*<dl class="facts">.*?</dl></div>', html, re.S)
    assert block and re.search(r"[^{}]*\.block\b[^{}]*\{[^}]*break-inside: avoid", html)
    pages = [" ".join(t.split()) for t in pdftext.page_texts(out)]
    assert [i for i, t in enumerate(pages) if "Provenance" in t] == [i for i, t in enumerate(pages) if "Packages" in t]
    r = run("comply", demo / "exercise.jsonl", "--sow", demo / "synthetic-sow.toml", "--pdf", demo / "exercise.jsonl")
    assert r.exit_code == 2 and "--pdf" in r.stderr  # never over its input


def test_the_notice_is_also_a_letter_with_its_data_embedded(demo, run, tmp_path):
    """The notice to the supplier: dated, addressed, says it asks for no approval and cannot delay or
    stop publication (8.3), gives the reproduce command and the commit, lists the supplier's rows
    (INC-1 restored in 2.80 h: detected 10:07 BST, restored 15:20 BST, less a 2 h 25 min wait), and
    carries the notice JSON as an attachment identical to --out."""
    journal = tmp_path / "ex.jsonl"
    journal.write_bytes((demo / "exercise.jsonl").read_bytes())
    out, pdf = tmp_path / "n.json", tmp_path / "n.pdf"
    r = run("notice", journal, "--to", "Example AI Operations", "--out", out, "--pdf", pdf)
    assert r.exit_code == 0, r.output
    text = text_of(pdf)
    assert "To: Example AI Operations" in text and "asks for no approval" in text
    assert "cannot delay, change or stop the publication" in text and "day60 verify ex.jsonl --expect" in text
    assert "INC-1" in text and "2.80 h" in text and "2026-10-01 10:07 +01:00" in text
    [attached] = [a for name, a in PdfReader(pdf).attachments.items() if name == "n.json"]
    assert attached[0] == out.read_bytes()
    r = run("notice", journal, "--to", "x", "--out", tmp_path / "m.json", "--pdf", pdf)
    assert r.exit_code == 2 and "is a day60 score or notice" in r.stderr and "never overwritten" in r.stderr

"""A score's PDF carries exactly the journal bytes that were scored, even when the journal moves on
between the read and the writing of the report.

`day60 score --pdf` reads the journal under its shared lock, computes the figures, then reads the
file again by name to embed it. Before the fix it embedded whatever the file held by then: a line
appended meanwhile (a `day60 log`, a timestamp token) went into the PDF although no figure was
computed from it, so the PDF's own journal no longer matched the hash its provenance records and
`verify-report` called the toolkit's own report altered; a journal rewritten meanwhile went in
unnoticed beside figures computed from the old one.
"""

from __future__ import annotations

import io

from pypdf import PdfReader

from day60 import demo, reading


def _after_the_read(monkeypatch, action) -> None:
    """Run ``action(path)`` just after the command's read of the journal returns."""
    real = reading.read

    def read(path, *args, **kwargs):
        journal = real(path, *args, **kwargs)
        action(path)
        return journal

    monkeypatch.setattr(reading, "read", read)


def test_a_line_appended_after_the_read_stays_out_of_the_pdf(tmp_path, run, monkeypatch):
    """The demo's journal (49 lines: the header and 48 events) is scored; one line lands after the
    read. The PDF must embed the 49 lines scored, byte for byte as the file held them before the
    append, and so verify on its own."""
    path = tmp_path / "ex.jsonl"
    demo.build_journal(path)
    scored = path.read_bytes()
    assert scored.count(b"\n") == 49

    def append(p):
        with open(p, "ab") as fh:
            fh.write(b'{"a line":"appended after the read"}\n')

    _after_the_read(monkeypatch, append)
    r = run("score", path, "--pdf", tmp_path / "score.pdf")
    assert r.exit_code == 0, r.output
    monkeypatch.undo()
    embedded = PdfReader(io.BytesIO((tmp_path / "score.pdf").read_bytes())).attachments["journal.jsonl"][0]
    assert embedded == scored
    assert path.read_bytes() != scored  # the file did move on
    checked = run("verify-report", tmp_path / "score.pdf")
    assert checked.exit_code == 0 and "verified" in checked.stdout, checked.output


def test_a_journal_rewritten_after_the_read_writes_no_report(tmp_path, run, monkeypatch):
    """One character of an earlier line changes after the read (same length, so the file looks the
    same size): the figures came from the old lines, so no PDF may be written beside the new ones.
    One line on stderr, exit 2, no file."""
    path = tmp_path / "ex.jsonl"
    demo.build_journal(path)

    def rewrite(p):
        raw = bytearray(p.read_bytes())
        at = raw.index(b"SYNTHETIC exercise plan")
        raw[at] = ord("s")
        p.write_bytes(bytes(raw))

    _after_the_read(monkeypatch, rewrite)
    r = run("score", path, "--pdf", tmp_path / "score.pdf")
    assert r.exit_code == 2, r.output
    assert "changed after it was scored" in r.stderr and r.stderr.count("\n") == 1, r.stderr
    assert not (tmp_path / "score.pdf").exists()

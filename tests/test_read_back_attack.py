"""Attacks on three small changes: ``reading.read_back`` (the bytes a report carries are the bytes
its figures were computed from), the ServiceNow reader's DuckDB started lazily, and the PDF
benchmark's cold runs.

Every journal here is SYNTHETIC (the demo's, or one made by the import helpers).
"""

from __future__ import annotations

import hashlib
import importlib.util
import io
import json
import sys
from pathlib import Path

import pytest
from pypdf import PdfReader

from day60 import demo, engine, reading
from tests import pki
from tests.imports_common import imported, new_journal, refused, write

ROOT = Path(__file__).resolve().parents[1]


def embedded_journal(pdf: Path) -> bytes:
    return PdfReader(io.BytesIO(pdf.read_bytes())).attachments["journal.jsonl"][0]


def verified(run, pdf: Path) -> None:
    r = run("verify-report", pdf)
    assert r.exit_code == 0 and "verified" in r.stdout, r.output


def after_the_read(monkeypatch, action) -> None:
    """Run ``action(path)`` just after the command's read of the journal returns."""
    real = reading.read

    def read(path, *args, **kwargs):
        journal = real(path, *args, **kwargs)
        action(Path(path))
        return journal

    monkeypatch.setattr(reading, "read", read)


# ----- read_back: what the report carries ----------------------------------------------------


def test_a_crashed_append_is_left_out_and_the_report_verifies(tmp_path, run):
    """A journal whose last line was cut by a crash (no LF): the 49 whole lines (header and 48
    events) are scored and carried, the partial one neither, and the PDF verifies on its own."""
    path = tmp_path / "ex.jsonl"
    demo.build_journal(path)
    whole = path.read_bytes()
    with open(path, "ab") as fh:
        fh.write(b'{"kind":"note","seq":49,"da')
    r = run("score", path, "--pdf", tmp_path / "s.pdf", "--html", tmp_path / "s.html")
    assert r.exit_code in (0, 1), r.output
    assert "partial line" in r.stderr
    assert embedded_journal(tmp_path / "s.pdf") == whole and whole.count(b"\n") == 49
    verified(run, tmp_path / "s.pdf")


def test_an_empty_journal_carries_its_header_alone(tmp_path, run):
    """Header only (head 0): the one line is the journal, with or without a cut line after it."""
    path = tmp_path / "ex.jsonl"
    demo.build_journal(path)
    header = path.read_bytes().split(b"\n", 1)[0] + b"\n"
    path.write_bytes(header + b'{"cut')
    r = run("score", path, "--pdf", tmp_path / "s.pdf")
    assert r.exit_code in (0, 1), r.output
    assert embedded_journal(tmp_path / "s.pdf") == header
    verified(run, tmp_path / "s.pdf")


def test_a_journal_read_on_the_engine_hashes_the_bytes_read_back(tmp_path, run, monkeypatch):
    """The engine's fast path (made to take a small journal) gives ``sha256`` of the whole file
    as the reference reader does, so the report carries the file and verifies."""
    journal = new_journal(tmp_path)
    rows = ["number,opened_at,resolved_at,priority,state"]
    rows += [f"INC{i},2026-03-02 09:00:00,2026-03-02 10:00:00,1,6" for i in range(5)]
    imported(run, journal, "servicenow", write(tmp_path, "incident.csv", "\n".join(rows) + "\n"),
             "--mode", "raw", "--severity-map", "1=1")
    monkeypatch.setattr(reading, "ENGINE_FROM_BYTES", 0)
    took = []
    real = engine.read_fast

    def read_fast(*args, **kwargs):
        took.append(real(*args, **kwargs))
        return took[-1]

    monkeypatch.setattr(engine, "read_fast", read_fast)
    r = run("score", journal, "--pdf", tmp_path / "s.pdf")
    assert r.exit_code in (0, 1), r.output
    assert took and took[0].incidents is not None  # really read on the engine
    assert took[0].sha256 == hashlib.sha256(journal.read_bytes()).hexdigest()
    assert embedded_journal(tmp_path / "s.pdf") == journal.read_bytes()
    monkeypatch.undo()
    verified(run, tmp_path / "s.pdf")


@pytest.mark.parametrize("how", ["crlf", "bom"])
def test_a_converted_journal_is_refused_before_any_report(tmp_path, run, how):
    path = tmp_path / "ex.jsonl"
    demo.build_journal(path)
    raw = path.read_bytes()
    path.write_bytes(raw.replace(b"\n", b"\r\n") if how == "crlf" else b"\xef\xbb\xbf" + raw)
    r = run("score", path, "--pdf", tmp_path / "s.pdf", "--out", tmp_path / "s.json")
    assert r.exit_code == 2 and r.stderr.count("\n") == 1, r.output
    assert not (tmp_path / "s.pdf").exists() and not (tmp_path / "s.json").exists()


def test_a_journal_replaced_by_a_longer_one_with_the_same_lines_is_carried_as_scored(tmp_path, run, monkeypatch):
    """By design: another file under the name whose first lines are the lines scored (a copy that
    went on to be appended to) gives those same bytes, so the report carries what was scored."""
    path = tmp_path / "ex.jsonl"
    demo.build_journal(path)
    scored = path.read_bytes()

    def replace(p):
        other = p.with_name("other.jsonl")
        other.write_bytes(scored + b'{"a later line":1}\n')
        other.replace(p)

    after_the_read(monkeypatch, replace)
    r = run("score", path, "--pdf", tmp_path / "s.pdf")
    assert r.exit_code in (0, 1), r.output
    monkeypatch.undo()
    assert embedded_journal(tmp_path / "s.pdf") == scored
    verified(run, tmp_path / "s.pdf")


def test_a_refusal_leaves_no_score_json_html_or_pdf(tmp_path, run, monkeypatch):
    """The journal rewritten after the read: exit 2, one line, and none of the three outputs."""
    path = tmp_path / "ex.jsonl"
    demo.build_journal(path)

    def rewrite(p):
        raw = bytearray(p.read_bytes())
        raw[raw.index(b"SYNTHETIC exercise plan")] = ord("s")
        p.write_bytes(bytes(raw))

    after_the_read(monkeypatch, rewrite)
    outs = [tmp_path / "s.json", tmp_path / "s.html", tmp_path / "s.pdf"]
    r = run("score", path, "--out", outs[0], "--html", outs[1], "--pdf", outs[2])
    assert r.exit_code == 2 and "changed after it was scored" in r.stderr and r.stderr.count("\n") == 1, r.output
    assert not any(o.exists() for o in outs) and not list(tmp_path.glob(".*tmp"))


def test_a_score_without_a_document_never_reads_the_journal_back(tmp_path, run, monkeypatch):
    path = tmp_path / "ex.jsonl"
    demo.build_journal(path)

    def never(*_args):
        raise AssertionError("read_back called without --pdf or --html")

    monkeypatch.setattr(reading, "read_back", never)
    r = run("score", path, "--out", tmp_path / "s.json", "--format", "json")
    assert r.exit_code in (0, 1), r.output
    assert json.loads((tmp_path / "s.json").read_text())["journal_head"]


def test_a_signed_superseding_score_carries_the_lines_scored(tmp_path, run, monkeypatch):
    """--supersede and --sign, with a line appended after the read: the signed PDF carries the 49
    lines scored and verifies; the earlier score is named, never touched."""
    path = tmp_path / "ex.jsonl"
    demo.build_journal(path)
    scored = path.read_bytes()
    first = tmp_path / "first.json"
    assert run("score", path, "--out", first).exit_code in (0, 1)
    before = first.read_bytes()
    pki.p12(tmp_path / "k.p12", "SYNTHETIC signer", b"pw")
    monkeypatch.setenv("DAY60_SIGN_PASSPHRASE", "pw")

    def append(p):
        with open(p, "ab") as fh:
            fh.write(b'{"appended":"after the read"}\n')

    after_the_read(monkeypatch, append)
    r = run("score", path, "--supersede", first, "--out", tmp_path / "second.json", "--pdf", tmp_path / "s.pdf",
            "--sign", tmp_path / "k.p12")
    assert r.exit_code in (0, 1), r.output
    monkeypatch.undo()
    assert embedded_journal(tmp_path / "s.pdf") == scored and first.read_bytes() == before
    verified(run, tmp_path / "s.pdf")


# ----- selfassess: built whole, then written -------------------------------------------------



def _answers() -> Path:
    from day60.resources import data_dir

    return data_dir("selfassess") / "examples" / "synthetic-answers.json"


def test_selfassess_keeps_the_journal_its_report_carries(tmp_path, run):
    outs = {"--pdf": tmp_path / "s.pdf", "--html": tmp_path / "s.html", "--journal": tmp_path / "kept.jsonl"}
    r = run("selfassess", "--answers", _answers(), "--format", "json", *[x for kv in outs.items() for x in kv])
    assert r.exit_code == 0, r.output
    kept = outs["--journal"].read_bytes()
    assert embedded_journal(outs["--pdf"]) == kept
    assert json.loads(r.stdout)["provenance"]["inputs_sha256"]["journal"] == hashlib.sha256(kept).hexdigest()
    verified(run, outs["--pdf"])


def test_selfassess_writes_nothing_when_its_journal_output_appears_meanwhile(tmp_path, run, monkeypatch):
    """--journal OUT was free when the command started and another process creates it while the
    report renders: journals are never overwritten, so the command refuses (exit 2, one line) and
    leaves neither the HTML nor the PDF behind it (before, both were written, then refused)."""
    from day60.evidence import documents

    out = tmp_path / "kept.jsonl"
    real = documents.pdf_bytes

    def pdf_bytes(document):
        done = real(document)
        out.write_bytes(b"someone else's file\n")
        return done

    monkeypatch.setattr(documents, "pdf_bytes", pdf_bytes)
    r = run("selfassess", "--answers", _answers(), "--pdf", tmp_path / "s.pdf", "--html", tmp_path / "s.html",
            "--journal", out)
    assert r.exit_code == 2 and r.stderr.count("\n") == 1 and "--journal" in r.stderr, r.output
    assert out.read_bytes() == b"someone else's file\n"
    assert not (tmp_path / "s.pdf").exists() and not (tmp_path / "s.html").exists()


def test_selfassess_refuses_a_journal_changed_after_the_assessment(tmp_path, run, monkeypatch):
    from day60 import assess

    real = assess.self_assess

    def self_assess(*args, **kwargs):
        done = real(*args, **kwargs)
        raw = bytearray(done.journal.path.read_bytes())
        raw[raw.index(b'"seq":1') + 6] = ord("7")
        done.journal.path.write_bytes(bytes(raw))
        return done

    monkeypatch.setattr(assess, "self_assess", self_assess)
    outs = [tmp_path / "s.pdf", tmp_path / "s.html", tmp_path / "kept.jsonl"]
    r = run("selfassess", "--answers", _answers(), "--pdf", outs[0], "--html", outs[1], "--journal", outs[2])
    assert r.exit_code == 2 and "changed after it was assessed" in r.stderr and r.stderr.count("\n") == 1, r.output
    assert not any(o.exists() for o in outs)


# ----- ServiceNow, DuckDB started lazily ----------------------------------------------------

HEADER = "number,opened_at,resolved_at,priority,state"


def test_a_row_with_two_faults_is_one_unreadable_row(run, tmp_path):
    """Ten data rows; row 5 (file line 6) has two cells too many, which DuckDB stores as two
    rejects (6 columns found, then 7). Rows read: 10 = 9 imported + 1 unreadable, not 11."""
    rows = [HEADER] + [f"INC{i},2026-03-02 09:00:00,2026-03-02 10:00:00,1,6" for i in range(10)]
    rows[5] += ",extra,cells"
    out = imported(run, new_journal(tmp_path), "servicenow", write(tmp_path, "incident.csv", "\n".join(rows) + "\n"),
                   "--mode", "raw", "--severity-map", "1=1")
    assert out["read"] == 10 and len(out["imported"]) == 9
    assert len(out["unreadable"]) == 1, out["unreadable"]
    assert "line 6" in json.dumps(out["unreadable"][0])


def test_a_duckdb_error_is_one_line_exit_2(run, tmp_path, monkeypatch):
    """DuckDB's own error (here: the scan given a file that is not there) is caught by the lazily
    imported module's ``duckdb.Error`` and said in one line; the journal is untouched."""
    from day60.imports import servicenow

    monkeypatch.setattr(servicenow, "_csv", lambda *_args: f"read_csv('{tmp_path / 'gone.csv'}')")
    rows = [HEADER, "INC1,2026-03-02 09:00:00,2026-03-02 10:00:00,1,6"]
    line = refused(run, new_journal(tmp_path), "servicenow", write(tmp_path, "incident.csv", "\n".join(rows) + "\n"),
                   "--mode", "raw", "--severity-map", "1=1")
    assert "the export cannot be read" in line and "Traceback" not in line


# ----- benchmarks/pdf_speed.py ---------------------------------------------------------------


def _pdf_speed():
    spec = importlib.util.spec_from_file_location("pdf_speed", ROOT / "benchmarks" / "pdf_speed.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_benchmark_caches_bytecode_outside_the_checkout(tmp_path, monkeypatch):
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    env = _pdf_speed()._env(tmp_path)
    assert "PYTHONDONTWRITEBYTECODE" not in env
    assert Path(env["PYTHONPYCACHEPREFIX"]).is_relative_to(tmp_path) and not tmp_path.is_relative_to(ROOT)


def test_the_benchmark_says_what_cold_means_and_refuses_no_runs(monkeypatch, capsys):
    """Its cold figures have the bytecode compiled by an untimed run: the printed figures say so.
    --runs 0 has no median: refused by argparse, not a traceback."""
    module = _pdf_speed()
    monkeypatch.setattr(module, "prepare", lambda work: None)
    monkeypatch.setattr(module, "cold", lambda argv, work, runs: [(2.0, 2.0)])
    monkeypatch.setattr(module, "warm", lambda argv, work, runs: [(0.5, 0.5)])
    monkeypatch.setattr(sys, "argv", ["pdf_speed.py", "--runs", "1", "--only", "score --pdf"])
    module.main()
    printed = capsys.readouterr().out
    assert "score --pdf" in printed and "bytecode compiled by an untimed run" in printed
    monkeypatch.setattr(sys, "argv", ["pdf_speed.py", "--runs", "0"])
    with pytest.raises(SystemExit) as stop:
        module.main()
    assert stop.value.code == 2

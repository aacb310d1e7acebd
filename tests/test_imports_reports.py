"""The reconciliation goes into the score and self-assessment reports when the journal came from
an import carrying the supplier's own durations, built from the journal alone. SYNTHETIC data."""

import io
from pathlib import Path

from pypdf import PdfReader

from tests.imports_common import imported, new_journal
from tests.test_selfassess import all_dont_know, answers_file

EX = Path(__file__).resolve().parents[1] / "day60" / "imports" / "examples"


def _text(pdf: Path) -> str:
    return " ".join(" ".join((page.extract_text() or "").split()) for page in PdfReader(io.BytesIO(pdf.read_bytes()))
                    .pages)


def test_score_report_carries_the_reconciliation(run, tmp_path):
    """The ServiceNow sample: INC0010001 ours 3 h (4 h less the 1 h wait on the caller), theirs
    calendar_stc 14400 s = 4 h: -1 h, the wait the charter takes off; business_stc agrees (3 h)."""
    j = new_journal(tmp_path)
    imported(run, j, "servicenow", EX / "servicenow-incident.csv", EX / "servicenow-sys_audit.csv", "--mode", "raw",
             "--map", EX / "servicenow-map.toml")
    pdf = tmp_path / "score.pdf"
    r = run("score", j, "--pdf", pdf)
    assert r.exit_code == 0, r.stderr
    text = _text(pdf)
    assert "Our figure beside the supplier's own" in text
    assert "INC0010001" in text and "waits on you 1.00 h" in text
    assert "ServiceNow calendar_stc and business_stc" in text


def test_a_journal_with_no_vendor_durations_has_no_table(run, tmp_path):
    j = new_journal(tmp_path)
    imported(run, j, "pagerduty", EX / "pagerduty-log_entries.json", EX / "pagerduty-incidents.json", "--map",
             EX / "pagerduty-map.toml")
    pdf = tmp_path / "score.pdf"
    assert run("score", j, "--pdf", pdf).exit_code == 0
    assert "beside the supplier's own" not in _text(pdf)


def test_self_assessment_report_carries_the_reconciliation(run, tmp_path):
    raw = {k: v for k, v in all_dont_know().items() if not k.startswith("incidents.")}
    raw.update({"deal.start": "2026-03-01T00:00", "deal.end": "2026-04-01T00:00"})
    pdf = tmp_path / "sa.pdf"
    r = run("selfassess", "--answers", answers_file(tmp_path, raw), "--tickets",
            f"servicenow:{EX / 'servicenow-incident.csv'}",
            "--tickets", f"servicenow:{EX / 'servicenow-sys_audit.csv'}",
            "--mode", "raw", "--map", EX / "servicenow-map.toml", "--pdf", pdf)
    assert r.exit_code == 0, r.output
    text = _text(pdf)
    assert "Our figure beside the supplier's own" in text and "INC0010002" in text
    assert "agreed change windows 1.50 h" in text  # INC0010002: theirs 7 h, ours 5.5 h

"""The clause library, deal files, the schedule export and the compliance check."""

import json

import pytest
from pypdf import PdfReader

from day60 import clauses, demo
from day60.errors import InputError
from day60.resources import data_dir
from tests import pdftext

SOW = data_dir("clauses") / "examples" / "synthetic-sow.toml"
LIB = clauses.load_library()


def deal_text(**overrides) -> str:
    """The shipped synthetic deal with parameters replaced (None removes one)."""
    lines = []
    for line in SOW.read_text().splitlines():
        key = line.split("=")[0].strip()
        if key in overrides:
            if overrides[key] is None:
                continue
            line = f"{key} = {json.dumps(overrides[key])}"
        lines.append(line)
    return "\n".join(lines) + "\n"


def write_deal(tmp_path, text=None, **overrides):
    path = tmp_path / "deal.toml"
    path.write_text(text if text is not None else deal_text(**overrides))
    return path


# ----- the library ---------------------------------------------------------------------------


def test_library_covers_every_metric_of_section_3_and_day60():
    sections = {c.section for c in LIB.clauses.values()}
    assert {f"3.{n}" for n in range(3, 22)} <= sections  # 3.3 to 3.21: nineteen
    assert "day60-exercise" in LIB.clauses
    assert len(LIB.clauses) == 20
    for c in LIB.clauses.values():
        assert c.definitions.unit and c.definitions.denominator and c.definitions.exclusions
        # Every check names its clause's parameter, except a reporting duty without a threshold.
        assert c.checks and all(any(p.id == k.parameter for p in c.parameters) or k.comparator == "report"
                                for k in c.checks)


def test_paired_measures_are_declared():
    assert LIB.clauses["straight-through"].requires == ["field-accuracy"]
    assert LIB.clauses["automation-rate"].requires == ["wrong-automation-rework"]
    assert [k.figure for k in LIB.clauses["calibration"].checks] == ["calibration", "calibration-high-confidence"]


def test_list_json_contract(run):
    r = run("clauses", "list", "--format", "json")
    assert r.exit_code == 0
    data = json.loads(r.stdout)
    drift = next(c for c in data if c["id"] == "drift-lead-time")
    assert drift["section"] == "3.18" and drift["title"]
    [param] = drift["parameters"]
    assert param == {"id": "drift_notice_business_hours", "type": "business_hours", "unit": "Business Hours",
                     "min": 0, "max": 720, "description": param["description"]}
    assert "drift-lead-time" in run("clauses", "list").stdout


def test_show_prints_named_blanks(run):
    r = run("clauses", "show", "drift-lead-time")
    assert r.exit_code == 0
    assert "[drift_notice_business_hours: Business Hours]" in r.stdout and "3.18" in r.stdout
    assert run("clauses", "show", "nope").exit_code == 2


# ----- deal files ----------------------------------------------------------------------------


def test_every_problem_is_named_at_once(tmp_path):
    path = write_deal(tmp_path, stp_floor_percent=120, latency_p95_ceiling_seconds="fast",
                      field_accuracy_floor_percent=None, colour_of_logo=3)
    text = path.read_text() + "mystery_parameter = 4\n"
    path.write_text(text)
    with pytest.raises(InputError) as err:
        clauses.load_deal(path, LIB)
    message = str(err.value)
    assert "parameters.stp_floor_percent is 120, above the most allowed 100" in message
    assert "parameters.latency_p95_ceiling_seconds is 'fast'" in message
    assert "parameters.mystery_parameter is not a parameter" in message
    assert "missing parameters" in message and "field_accuracy_floor_percent" in message


def test_bad_deal_block_and_whole_numbers(tmp_path):
    path = write_deal(tmp_path, text=deal_text(rehearsals_per_quarter=1.5).replace('currency = "GBP"',
                                                                                     'currency = "pounds"'))
    with pytest.raises(InputError) as err:
        clauses.load_deal(path, LIB)
    assert "deal.currency" in str(err.value) and "not a whole number" in str(err.value)


def test_include_chooses_clauses_and_renumbers(tmp_path):
    path = write_deal(tmp_path, text=SOW.read_text() + '\n[clauses]\ninclude = ["straight-through", "rollback"]\n')
    s = clauses.schedule(LIB, clauses.load_deal(path, LIB))
    assert [c["id"] for c in s["clauses"]] == ["straight-through", "rollback"]
    # The accuracy clause it relies on is named, and said to be outside the schedule.
    assert "field-level accuracy clause (not part of this schedule)" in s["clauses"][0]["text"]


# ----- export ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def schedule_pdf(tmp_path_factory):
    from typer.testing import CliRunner

    from day60.cli import app

    out = tmp_path_factory.mktemp("sched")
    r = CliRunner().invoke(app, ["clauses", "export", "--sow", str(SOW), "--pdf", str(out / "s.pdf"),
                                 "--md", str(out / "s.md"), "--html", str(out / "s.html")])
    assert r.exit_code == 0, r.output
    return out


def test_every_clause_renders_with_its_values(schedule_pdf):
    reader = PdfReader(schedule_pdf / "s.pdf")
    text = pdftext.words(schedule_pdf / "s.pdf")
    for c in LIB.clauses.values():
        assert c.title in text, c.id
    for shown in ("95 percent", "GBP 0.12", "24 Business Hours", "30 minutes", "5th Business Day", "once",
                  "7 calendar days", "0.05", "tier T3", "1.5 seconds"):
        assert shown in text, shown
    assert clauses.load_deal(SOW, LIB).sha256 in text.replace(" ", "")
    assert f"day60-clauses {LIB.version}" in text and "3.18" in text
    assert all("SYNTHETIC" in t for t in pdftext.page_texts(schedule_pdf / "s.pdf"))
    assert "SYNTHETIC" in reader.metadata.title
    md = (schedule_pdf / "s.md").read_text()
    assert "Partner's" in md and "&#39;" not in md  # Markdown is not HTML-escaped
    assert "| 17 | restore_sev1_hours | hours | 4 hours |" in md


def test_unfilled_parameters_need_draft(run, tmp_path):
    path = write_deal(tmp_path, rollback_minutes=None, day60_tier=None)
    r = run("clauses", "export", "--sow", path, "--pdf", tmp_path / "x.pdf")
    assert r.exit_code == 2 and "rollback_minutes" in r.stderr and "day60_tier" in r.stderr
    assert not (tmp_path / "x.pdf").exists()
    r = run("clauses", "export", "--sow", path, "--pdf", tmp_path / "d.pdf", "--draft")
    assert r.exit_code == 0, r.output
    texts = pdftext.page_texts(tmp_path / "d.pdf")
    assert all("DRAFT" in t for t in texts)
    text = " ".join(texts)
    assert "[rollback_minutes: minutes]" in " ".join(text.split())


def test_export_to_stdout_is_markdown(run):
    r = run("clauses", "export", "--sow", SOW)
    assert r.exit_code == 0 and r.stdout.startswith("# Schedule 4")


# ----- compliance ------------------------------------------------------------------------------


def comply_rows(tmp_path, figures, **overrides):
    deal = clauses.load_deal(write_deal(tmp_path, **overrides), LIB, draft=True)
    return {(r["clause"], r["check"]): r for r in clauses.comply(LIB, deal, figures, "test figures")}


@pytest.mark.parametrize(("value", "status"), [(94.96, "not met"), (95.0, "met"), (95.04, "met")])
def test_floor_judged_unrounded(tmp_path, value, status):
    rows = comply_rows(tmp_path, {"field-accuracy": {"value": value, "n": 1200}})
    row = rows[("field-accuracy", "field-accuracy")]
    assert row["status"] == status and row["value"] == value
    if value == 94.96:
        # Rounded to one decimal (3.1.5) it reads 95.0, the floor itself: a lawyer reading "95.0 percent,
        # floor 95.0, not met" would call the table wrong, so it gets the decimals that keep it below.
        assert row["display"] == "94.96 percent"
    else:
        assert row["display"] == f"{value:.1f} percent"


@pytest.mark.parametrize(("value", "status"), [(1.04, "not met"), (1.0, "met"), (0.96, "met")])
def test_ceiling_judged_unrounded(tmp_path, value, status):
    rows = comply_rows(tmp_path, {"hallucinated-policy": {"value": value, "n": 800}})
    assert rows[("hallucinated-policy", "hallucinated-policy")]["status"] == status
    # 1.04 percent rounds to "1.0 percent", the ceiling of 1.0 itself: the breach gets the decimals that
    # keep it above.
    shown = rows[("hallucinated-policy", "hallucinated-policy")]["display"]
    assert shown == ("1.04 percent" if value == 1.04 else f"{value:.1f} percent")


def test_a_breach_just_past_a_time_ceiling_shows_what_decided_it(tmp_path):
    """Rollback ceiling 30 minutes; 30.004 minutes is above it, and at two decimals reads 30.00:
    the display takes a third, 30.004. 30.01 already reads past the ceiling at two."""
    rows = comply_rows(tmp_path, {"rollback": {"value": 30.004, "n": 3}})
    assert rows[("rollback", "rollback")]["status"] == "not met"
    assert rows[("rollback", "rollback")]["display"] == "30.004 minutes"
    rows = comply_rows(tmp_path, {"rollback": {"value": 30.01, "n": 3}})
    assert rows[("rollback", "rollback")]["display"] == "30.01 minutes"


def test_not_run_without_figure_or_sample_size(tmp_path):
    rows = comply_rows(tmp_path, {"latency": {"value": 12.0}, "containment": {"value": 60.0, "n": 0}})
    assert rows[("latency", "latency")]["status"] == "not run"
    assert "sample size" in rows[("latency", "latency")]["reason"]
    assert rows[("containment", "containment")]["status"] == "not run"
    assert rows[("exception-rate", "exception-rate")]["status"] == "not run"
    assert rows[("exception-rate", "exception-rate")]["display"] == "not run"


def test_paired_clauses_stand_or_fall_together(tmp_path):
    stp = {"straight-through": {"value": 70.0, "n": 5000}}
    rows = comply_rows(tmp_path, {**stp, "field-accuracy": {"value": 93.0, "n": 9000}})
    assert rows[("straight-through", "straight-through")]["status"] == "not met"
    assert "field-accuracy" in rows[("straight-through", "straight-through")]["reason"]
    rows = comply_rows(tmp_path, stp)  # accuracy not measured: the rate cannot be met alone
    assert rows[("straight-through", "straight-through")]["status"] == "not run"
    rows = comply_rows(tmp_path, {**stp, "field-accuracy": {"value": 96.0, "n": 9000}})
    assert rows[("straight-through", "straight-through")]["status"] == "met"
    rows = comply_rows(tmp_path, {"automation-rate": {"value": 80.0, "n": 100},
                                  "wrong-automation-rework": {"value": 450.0, "n": 80}})
    assert rows[("automation-rate", "automation-rate")]["status"] == "not met"
    rows = comply_rows(tmp_path, {"calibration": {"value": 0.03, "n": 4000},
                                  "calibration-high-confidence": {"value": 97.0, "n": 900}})
    assert rows[("calibration", "calibration")]["status"] == "met"
    assert rows[("calibration", "calibration-high-confidence")]["status"] == "not met"


def test_comply_cli_exit_codes(run, tmp_path):
    figures = tmp_path / "f.json"
    figures.write_text(json.dumps({"field-accuracy": {"value": 96.2, "n": 1500}}))
    r = run("comply", "--sow", SOW, "--figures", figures, "--format", "json")
    assert r.exit_code == 0, r.output
    rows = json.loads(r.stdout)["checks"]
    assert {"clause", "status", "value", "display", "threshold", "reason"} <= set(rows[0])
    assert rows[0] == {"clause": "field-accuracy", "check": "field-accuracy", "status": "met", "value": 96.2,
                       "display": "96.2 percent", "threshold": 95.0, "n": 1500, "reason": None}
    figures.write_text(json.dumps({"field-accuracy": {"value": 94.96, "n": 1500}}))
    assert run("comply", "--sow", SOW, "--figures", figures).exit_code == 1
    assert run("comply", "--sow", SOW).exit_code == 2  # no source of figures
    figures.write_text("[1, 2]")
    assert run("comply", "--sow", SOW, "--figures", figures).exit_code == 2


def test_comply_from_a_journal(run, tmp_path):
    journal = tmp_path / "exercise.jsonl"
    demo.build_journal(journal)  # the demo's exercise journal, without the demo's documents
    r = run("comply", journal, "--sow", SOW, "--format", "json")
    rows = {(x["clause"], x["check"]): x for x in json.loads(r.stdout)["checks"]}
    assert r.exit_code == 1  # the demo's second drift was never notified
    assert rows[("drift-lead-time", "drift-notice")]["status"] == "not met"
    assert rows[("restore", "restore-sev2")]["status"] == "met"
    # Ten default elements and the deal's sla-credits: 11 required; reviewer-minutes fails (no
    # sample size): 10 / 11 = 90.909...%, below the deal's 100 percent.
    assert rows[("report-completeness", "report-completeness")]["value"] == pytest.approx(100 * 10 / 11)
    # Delivered 7 Oct 2026: the 5th business day of October in England (1, 2, 5, 6, 7).
    assert rows[("report-completeness", "report-timeliness")]["value"] == 5
    assert rows[("report-completeness", "report-timeliness")]["status"] == "met"
    assert rows[("field-accuracy", "field-accuracy")]["status"] == "not run"


def test_score_reads_targets_from_the_same_deal_file(run, tmp_path):
    journal = tmp_path / "exercise.jsonl"
    demo.build_journal(journal)
    r = run("score", journal, "--sow", SOW, "--format", "json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["targets"] == "deal file"
    bad = write_deal(tmp_path, stp_floor_percent=120)
    r = run("score", journal, "--sow", bad)
    assert r.exit_code == 2 and "stp_floor_percent" in r.stderr


def test_a_breach_is_not_met_even_with_no_value(tmp_path):
    # The only drift was never notified and the only severity 1 incident never restored: there
    # is no lead time or restore time to compare, but the obligation was broken, not untested.
    from day60 import journal as jr
    from tests.builders import SIGN_OFF, make_journal

    path = make_journal(tmp_path / "j.jsonl", [
        ("safety.agreed", "D1", "2026-03-01T10:00", SIGN_OFF), ("drift.onset", "D1", "2026-03-02T09:00"),
        ("safety.agreed", "I1", "2026-03-01T10:00", SIGN_OFF),
        ("incident.detected", "I1", "2026-03-03T09:00", {"severity": 1}),
        ("exercise.close", "x", "2026-03-13T17:30")])
    deal = clauses.load_deal(SOW, LIB)
    rows = {r["check"]: r for r in clauses.comply(LIB, deal, clauses.journal_figures(jr.read(path), deal), "j")}
    assert rows["drift-notice"]["status"] == "not met"
    assert "not notified within the window" in rows["drift-notice"]["reason"]
    assert rows["restore-sev1"]["status"] == "not met" and "still open" in rows["restore-sev1"]["reason"]
    assert rows["restore-sev2"]["status"] == "not run"  # nothing of severity 2 happened at all


# ----- a schedule a lawyer can sign ------------------------------------------------------------

FROM_SCRATCH = """
[deal]
provider = "Provider Ltd"
partner = "Partner plc"
agreement = "Services agreement 2027-01"
schedule = "Schedule 9"
effective_date = 2027-01-01
currency = "EUR"

[clauses]
include = ["containment", "restore", "report-completeness", "reviewer-minutes"]

[parameters]
containment_floor_percent = 60
restore_sev1_hours = 4
"""

COMPLETE = FROM_SCRATCH + """restore_sev2_hours = 8
restore_sev3_business_hours = 24
restore_sev4_business_hours = 40
reviewer_minutes_trigger = 6
reviewer_idle_cutoff_seconds = 300
reviewer_remediation_business_days = 20

[calendar]
timezone = "Europe/Dublin"
holidays = { country = "IE" }
[calendar.hours]
mon = ["09:00-17:00"]
tue = ["09:00-17:00"]
wed = ["09:00-17:00"]
thu = ["09:00-17:00"]
fri = ["09:00-17:00"]

[documents]
outcome_definitions = "Annex 1"
retainer_schedule = "Schedule 2"
"""


def test_the_lawyers_journey_from_half_a_deal_to_a_signable_schedule(run, tmp_path):
    """Half the parameters, no calendar, no documents: refused, naming every gap; with --draft every
    format exports with named blanks; completed, every format exports clean."""
    from docx import Document

    deal = tmp_path / "deal.toml"
    deal.write_text(FROM_SCRATCH)
    r = run("clauses", "export", "--sow", deal, "--md", tmp_path / "x.md")
    assert r.exit_code == 2 and "calendar" in r.stderr and "outcome_definitions" in r.stderr
    assert "restore_sev2_hours" in r.stderr and "reviewer_idle_cutoff_seconds" in r.stderr
    outputs = {ext: tmp_path / f"draft.{ext}" for ext in ("pdf", "md", "html", "docx")}
    r = run("clauses", "export", "--sow", deal, "--draft", *[a for ext, p in outputs.items() for a in (f"--{ext}", p)])
    assert r.exit_code == 0, r.output
    md = outputs["md"].read_text()
    assert "(DRAFT)" in md and "[Outcome Definitions: to be named]" in md and "not yet agreed" in md
    pdf = " ".join(pdftext.page_texts(outputs["pdf"]))
    assert "DRAFT" in pdf and "[restore_sev2_hours: hours]" in pdf
    doc = Document(outputs["docx"])
    text = "\n".join(p.text for p in doc.paragraphs)
    assert text.count("DRAFT") >= 1 and "{{" not in text and "{%" not in text
    deal.write_text(COMPLETE)
    for ext in ("pdf", "md", "html", "docx"):
        r = run("clauses", "export", "--sow", deal, f"--{ext}", tmp_path / f"final.{ext}")
        assert r.exit_code == 0, r.output
    doc = Document(tmp_path / "final.docx")
    numbered = [p.text for p in doc.paragraphs if p.style.name == "Heading 2"]
    assert numbered == ["Containment", "Time to restore service", "Monthly Report completeness and timeliness",
                        "Reviewer minutes per exception", "How the Service Levels are judged"]  # Word numbers them
    # every paragraph's words, the shown results of its fields (values, cross-references) included
    from day60 import wordread

    body = " ".join(p.text for p in wordread.read(tmp_path / "final.docx").paragraphs)
    assert "DRAFT" not in body and "{{" not in body and "{%" not in body
    # the fixed term stands, its name whole (no invisible break points in it)
    assert "repeat_contact_days 7 calendar days How long a repeat Contact" in " ".join(body.split())
    final = (tmp_path / "final.md").read_text()
    assert "Europe/Dublin" in final and "IE" in final and "Annex: Monthly Report elements" in final
    assert "fixed by the charter (3.9) at seven calendar days" in final  # the repeat period is not negotiable


def test_values_the_charter_fixes_cannot_be_loosened(run, tmp_path):
    deal = tmp_path / "deal.toml"
    deal.write_text(COMPLETE.replace("[parameters]", "[parameters]\nrepeat_contact_days = 3\n"
                                                       "report_completeness_percent = 90\nreport_due_business_day = 8"))
    r = run("clauses", "export", "--sow", deal)
    assert r.exit_code == 2
    for words in ("repeat_contact_days", "report_completeness_percent", "report_due_business_day",
                  "may only set an earlier one"):
        assert words in r.stderr
    deal.write_text(COMPLETE.replace("[parameters]", "[parameters]\nreport_due_business_day = 3"))
    assert run("clauses", "export", "--sow", deal).exit_code == 0  # an earlier day tightens it


def test_a_calendar_is_a_table_not_a_sentence(run, tmp_path):
    deal = tmp_path / "deal.toml"
    deal.write_text(COMPLETE.replace('[calendar]\ntimezone = "Europe/Dublin"',
                                     '[calendar]\ntimezone = "Nowhere/Atlantis"'))
    assert "calendar.timezone" in run("clauses", "export", "--sow", deal).stderr
    text = COMPLETE.split("[calendar]")[0].replace('currency = "EUR"', 'currency = "EUR"\ncalendar = "Mon-Fri 9-5"')
    deal.write_text(text)
    r = run("clauses", "export", "--sow", deal, "--draft")
    assert r.exit_code == 2 and "[calendar] table of its own" in r.stderr


def test_definitions_never_cite_a_clause_the_deal_left_out(run, tmp_path):
    deal = tmp_path / "deal.toml"
    deal.write_text(COMPLETE.replace('"report-completeness", ', ""))
    md = run("clauses", "export", "--sow", deal).stdout
    monthly = next(line for line in md.splitlines() if line.startswith("- **Monthly Report**"))
    assert "clause" not in monthly and "Annex: Monthly Report elements" not in md


def test_the_day60_clause_names_the_rubric_it_is_scored_against(run):
    from day60 import rubric

    published = rubric.load()
    md = run("clauses", "export", "--sow", SOW).stdout
    assert f"{published.id} {published.version} (SHA-256 {published.sha256})" in md


def test_comply_refuses_unknown_checks_with_the_closest(run, tmp_path):
    figures = tmp_path / "f.json"
    figures.write_text(json.dumps({"drift-notise": {"value": 3, "n": 2}}))
    r = run("comply", "--sow", SOW, "--figures", figures)
    assert r.exit_code == 2 and "did you mean drift-notice?" in r.stderr
    figures.write_text(json.dumps({"drift-notice": {"value": 3, "n": 2.5}}))
    assert run("comply", "--sow", SOW, "--figures", figures).exit_code == 2
    listed = json.loads(run("comply", "--list-checks", "--sow", SOW, "--format", "json").stdout)
    row = next(c for c in listed if c["check"] == "drift-notice")
    assert row["clause"] == "drift-lead-time" and row["threshold"] == 24 and row["comparator"] == "ceiling"


def test_reviewer_minutes_is_a_reporting_duty_with_a_two_month_trigger(run, tmp_path):
    figures = tmp_path / "f.json"
    figures.write_text(json.dumps({"reviewer-minutes": {"value": 7.5, "n": 268, "months": [5.0, 7.5]}}))
    rows = json.loads(run("comply", "--sow", SOW, "--figures", figures, "--format", "json").stdout)["checks"]
    row = next(r for r in rows if r["check"] == "reviewer-minutes")
    assert row["status"] == "reported, not triggered"
    figures.write_text(json.dumps({"reviewer-minutes": {"value": 7.5, "n": 268, "months": [6.5, 7.5]}}))
    r = run("comply", "--sow", SOW, "--figures", figures, "--format", "json")
    row = next(x for x in json.loads(r.stdout)["checks"] if x["check"] == "reviewer-minutes")
    assert row["status"] == "triggered" and r.exit_code == 0  # a remedy owed, not a broken promise


def test_comply_is_tier_aware(run, tmp_path):
    """The synthetic deal's Day-60 tier is T3. A T2 journal, or a self-assessment from the supplier's
    own records, never meets a Day-60 clause: its rows read not run with the reason."""
    from tests.builders import make_journal

    path = make_journal(tmp_path / "j.jsonl", [
        ("incident.detected", "I1", "2026-03-03T10:00", {"severity": 2, "source": "organic"}),
        ("incident.restored", "I1", "2026-03-03T11:00", {"check": "probe"})], tier="T2")
    rows = json.loads(run("comply", path, "--sow", SOW, "--format", "json", "--parties-differ").stdout)["checks"]
    sev2 = next(r for r in rows if r["check"] == "restore-sev2")
    assert sev2["status"] == "not run" and "tier T2" in sev2["reason"]
    path = make_journal(tmp_path / "k.jsonl", [
        ("incident.detected", "I1", "2026-03-03T10:00", {"severity": 2, "source": "organic"}),
        ("incident.restored", "I1", "2026-03-03T11:00", {"check": "probe"})], records="supplier-reported")
    rows = json.loads(run("comply", path, "--sow", SOW, "--format", "json", "--parties-differ").stdout)["checks"]
    assert "supplier's own records" in next(r for r in rows if r["check"] == "restore-sev2")["reason"]


def test_clauses_show_lists_parameters_with_bounds_and_checks(run):
    out = run("clauses", "show", "containment").stdout
    assert "containment_floor_percent (percent; at least 0, at most 100)" in out
    assert "fixed by the charter" in out and "containment: floor containment_floor_percent" in out


# ----- false containment is reported, never judged (charter 3.10.7) ------------------------------------

def test_false_containment_is_a_reporting_duty_without_a_ceiling(run, tmp_path):
    """The charter's own arithmetic (3.10.6): definition B counts 231 contacts contained, 176 of them
    contained under 3.9.1: (231 - 176) / 231 = 23.81 percent, shown 23.8 percent with n = 231.
    Reported, with no threshold. At 100 percent (every contact B calls contained is not), still
    reported: the clause sets no ceiling, so comply exits 0 and never says met or not met."""
    figures = tmp_path / "f.json"
    for value, shown in (((231 - 176) / 231 * 100, "23.8 percent"), (100.0, "100.0 percent"), (0.0, "0.0 percent")):
        figures.write_text(json.dumps({"false-containment": {"value": value, "n": 231}}))
        r = run("comply", "--sow", SOW, "--figures", figures, "--format", "json")
        assert r.exit_code == 0, r.output
        row = next(x for x in json.loads(r.stdout)["checks"] if x["check"] == "false-containment")
        assert (row["status"], row["display"], row["n"], row["threshold"]) == ("reported", shown, 231, None)
        assert row["value"] == pytest.approx(value) and "no ceiling" in row["reason"]
    r = run("comply", "--sow", SOW, "--figures", figures)
    line = next(x for x in r.stdout.splitlines() if x.startswith("false-containment"))
    assert "reported" in line and "none (a reporting duty)" in line and "not met" not in line
    assert "1 reporting duty reported" in r.stdout
    # With no figure, or no sample size, the duty's evidence is missing: not run, never reported.
    figures.write_text(json.dumps({"false-containment": {"value": 12.0}}))
    row = next(x for x in json.loads(run("comply", "--sow", SOW, "--figures", figures, "--format",
                                         "json").stdout)["checks"] if x["check"] == "false-containment")
    assert row["status"] == "not run" and "sample size" in row["reason"]
    figures.write_text(json.dumps({}))
    row = next(x for x in json.loads(run("comply", "--sow", SOW, "--figures", figures, "--format",
                                         "json").stdout)["checks"] if x["check"] == "false-containment")
    assert (row["status"], row["display"]) == ("not run", "not run")


def test_a_rate_outside_0_to_100_percent_is_refused(run, tmp_path):
    """A share cannot exceed its whole: 150 percent false containment (or -1 percent containment) is
    a typing error, refused with every such field named, exit 2, never judged."""
    figures = tmp_path / "f.json"
    figures.write_text(json.dumps({"false-containment": {"value": 150, "n": 231},
                                   "containment": {"value": -1, "n": 500}}))
    r = run("comply", "--sow", SOW, "--figures", figures)
    assert r.exit_code == 2 and "false-containment.value is 150" in r.stderr and "containment.value is -1" in r.stderr
    assert "Traceback" not in r.output


def test_the_list_the_show_and_an_old_deal_know_it_has_no_ceiling(run, tmp_path):
    listed = json.loads(run("comply", "--list-checks", "--sow", SOW, "--format", "json").stdout)
    row = next(c for c in listed if c["check"] == "false-containment")
    assert (row["comparator"], row["parameter"], row["threshold"], row["unit"]) == ("report", None, None, "percent")
    listed = next(line for line in run("clauses", "list").stdout.splitlines() if line.startswith("false-containment"))
    assert listed.endswith("none (a reporting duty with no threshold)")
    out = run("clauses", "show", "false-containment").stdout
    assert "parameters: none" in out and "false-containment: reported, in percent, with no threshold" in out
    assert "shall not exceed" not in out and "sets no level the rate must stay below" in out
    (tmp_path / "none.json").write_text("{}")
    old_deal = write_deal(tmp_path, deal_text() + "false_containment_ceiling_percent = 10.0\n")  # [parameters] is last
    r = run("comply", "--sow", old_deal, "--figures", tmp_path / "none.json")
    assert r.exit_code == 2 and "false_containment_ceiling_percent is no longer a parameter" in r.stderr
    assert "3.10.7" in r.stderr


def test_a_check_is_a_promise_or_a_duty_never_both():
    from pydantic import ValidationError

    said = {"source": "the records", "measured_by": "Provider"}
    with pytest.raises(ValidationError, match="names its unit and no parameter"):
        clauses.Check(figure="x", comparator="report", parameter="x_ceiling", unit="percent", **said)
    with pytest.raises(ValidationError, match="names the parameter"):
        clauses.Check(figure="x", comparator="ceiling", unit="percent", **said)
    with pytest.raises(ValidationError, match="measured_by"):  # every check says who measures it, from what
        clauses.Check(figure="x", comparator="ceiling", parameter="x_ceiling", source="the records")


def test_a_check_not_met_never_displays_not_run(tmp_path):
    """The only drift was never notified (1 of 1) and the only severity 1 incident is still open
    at the close: neither has a figure, both are broken. Their figure column says what broke."""
    from day60 import journal as jr
    from tests.builders import SIGN_OFF, make_journal

    path = make_journal(tmp_path / "j.jsonl", [
        ("safety.agreed", "D1", "2026-03-01T10:00", SIGN_OFF), ("drift.onset", "D1", "2026-03-02T09:00"),
        ("safety.agreed", "I1", "2026-03-01T10:00", SIGN_OFF),
        ("incident.detected", "I1", "2026-03-03T09:00", {"severity": 1}),
        ("exercise.close", "x", "2026-03-13T17:30")])
    deal = clauses.load_deal(SOW, LIB)
    rows = {r["check"]: r for r in clauses.comply(LIB, deal, clauses.journal_figures(jr.read(path), deal), "j")}
    assert rows["drift-notice"]["display"] == "no figure: 1 of 1 drift observation(s) not notified within the window"
    assert rows["restore-sev1"]["display"] == "no figure: 1 severity 1 incident(s) still open at the close"
    for row in rows.values():
        if row["status"] == "not met":
            assert not row["display"].startswith("not run"), row


def test_the_word_schedule_matches_the_pdf_and_keeps_its_cross_references_live(run, tmp_path):
    """The synthetic deal (GB calendar): A4, 20 mm margins; page numbers as PAGE/NUMPAGES fields and
    SYNTHETIC on every page's foot; the calendar, definitions, material, Service Level Table and
    parameters as real tables; each clause title and clause paragraph a bookmark, each "clause N"
    or "clause N.M" a REF field to it that shows its number (\\w: full, no trailing period). A deal in
    a Letter country (US holidays) prints on Letter."""
    import re

    from docx import Document

    out = tmp_path / "s.docx"
    assert run("clauses", "export", "--sow", SOW, "--docx", out).exit_code == 0
    doc = Document(out)
    section = doc.sections[0]
    assert (round(section.page_width.mm), round(section.page_height.mm)) == (210, 297)
    footer = section.footer._element.xml
    assert "SYNTHETIC" in footer and 'w:instr=" PAGE "' in footer and 'w:instr=" NUMPAGES "' in footer
    headers = [[c.text for c in t.rows[0].cells] for t in doc.tables]
    assert ["Setting", "Value"] in headers and ["Term", "Meaning"] in headers
    assert ["Clause", "Parameter", "Value", "Meaning"] in headers
    assert ["Term", "What it must contain", "The material", "Clauses"] in headers
    assert ["Clause", "Service Level", "Target", "Critical Level", "Minimum Volume", "Period",
            "Credit Weight"] in headers
    # A parameter's name is whole, with nothing invisible in it (a search for it finds it), in a
    # column wide enough for the longest (high_confidence_accuracy_floor_percent, 58 mm at 9 pt).
    [params] = [t for t in doc.tables if [c.text for c in t.rows[0].cells][:2] == ["Clause", "Parameter"]]
    names = [row.cells[1].text for row in params.rows[1:]]
    assert "high_confidence_accuracy_floor_percent" in names and "at_risk_percent" in names
    assert not [n for n in names if re.search(r"[\u200b-\u200d\u00ad\u2060]", n)]
    # The parameter table runs over pages: no row splits across a break (a name on one page, its
    # meaning on the next), and the header row repeats; the label-and-value tables (the agreement
    # block, each clause's definitions) have no header to repeat.
    from docx.oxml.ns import qn

    for t in doc.tables:
        assert all(row._tr.trPr is not None and row._tr.trPr.find(qn("w:cantSplit")) is not None for row in t.rows)
    assert params.rows[0]._tr.trPr.find(qn("w:tblHeader")) is not None
    agreement = next(t for t in doc.tables if t.rows[0].cells[0].text == "Agreement")
    assert agreement.rows[0]._tr.trPr.find(qn("w:tblHeader")) is None
    xml = doc.element.xml
    titles = [p.text for p in doc.paragraphs if p.style.name == "Heading 2"]
    marks = re.findall(r'w:bookmarkStart w:id="\d+" w:name="(clause_[^"]+)"', xml)
    assert len(marks) == len(set(marks)) and "\ue000" not in xml and "\ue003" not in xml and "\ue005" not in xml
    s = clauses.schedule(LIB, clauses.load_deal(SOW, LIB))
    numbers = {clauses.bookmark_name(c["id"]): str(c["number"]) for c in (*s["clauses"], *s["modules"])}
    numbers |= {clauses.bookmark_name(q["id"]): q["number"] or str(c["number"])
                for c in (*s["clauses"], *s["modules"]) for q in c["paragraphs"]}
    assert set(marks) == set(numbers) and len(titles) == len(s["clauses"]) + len(s["modules"]) == 28
    refs = re.findall(r'w:instr=" REF (clause_\w+) \\w \\h ">\s*<w:r>'
                      r'[^<]*(?:<(?!w:t[ >])[^>]*>[^<]*)*<w:t[^>]*>([\d.]+)</w:t>', xml)
    assert len(refs) > 40 and all(shown == numbers[name] for name, shown in refs), refs
    assert ("clause_relief_events", "24.1") in refs and ("clause_service_credits_at_risk", "22.2") in refs
    us = tmp_path / "us.toml"
    us.write_text(SOW.read_text().replace('country = "GB", subdivision = "ENG"', 'country = "US"')
                  .replace('timezone = "Europe/London"', 'timezone = "America/New_York"'))
    assert run("clauses", "export", "--sow", us, "--docx", tmp_path / "us.docx").exit_code == 0
    letter = Document(tmp_path / "us.docx").sections[0]
    assert (round(letter.page_width.mm), round(letter.page_height.mm)) == (216, 279)


def test_a_not_run_reason_does_not_say_not_run_again(tmp_path):
    """A lawyer reads the status column, then the reason beside it: "not run | not run: no monthly
    report was received" says it twice. A journal with no report (and no drift, incident or
    rollback) leaves every check not run, and no reason starts with the status it explains."""
    from day60 import journal as jr
    from tests.builders import make_journal

    # a window (Mon 9 to Fri 13 Mar) that holds no report's due date, so none was due in it either
    j = jr.read(make_journal(tmp_path / "bare.jsonl", [("exercise.close", "exercise", "2026-03-13T17:30")],
                             window=("2026-03-09T09:00", "2026-03-13T17:30")))
    deal = clauses.load_deal(write_deal(tmp_path), LIB, draft=True)
    rows = clauses.comply(LIB, deal, clauses.journal_figures(j, deal), "bare.jsonl")
    report = next(r for r in rows if r["check"] == "report-completeness")
    assert report["status"] == "not run" and report["reason"] == "no monthly report was received in the exercise window"
    assert not [r["check"] for r in rows if (r["reason"] or "").startswith(r["status"])]

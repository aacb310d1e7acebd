"""The streamed reconciliation gives the rows and totals the reconciliation gave before it was
streamed, on every format's SYNTHETIC samples.

Before, an import read the journal back when it had written it and built every ticket's row at
once (kept in ``tests/reconcile_reference.py``, reading ``journal.read``'s events). Now it works
the figures from the journal as it stood plus what it wrote (``engine.after``), in arrays, and
builds a row only when it is read: for the CSV file, streamed; for ``--format json``, every one;
for the printout, the totals and the first rows. All of these, and a report's reconciliation
(``from_journal`` on the engine and on ``journal.read``), must say the same for each ticket.
"""

import csv
import io
import json

import pytest

from day60 import journal as jr
from day60 import reading
from day60.imports import reconcile
from tests import imports_common as common
from tests import reconcile_reference as before
from tests import test_imports_csv as sheet
from tests import test_imports_jira as jira
from tests import test_imports_servicenow as snow
from tests import test_imports_zendesk as zendesk
from tests.builders import SIGN_OFF, make_journal
from tests.test_imports import EX

COLUMNS = ["ticket", "ours_hours", "vendor_hours", "difference_hours", "ours_business_hours", "vendor_business_hours",
           "difference_business_hours", "agree", "reopens", "clock_start", "vendor_measure", "reasons", "note",
           "beside"]


def _samples(tmp_path):
    w = common.write
    return {
        "servicenow examples": ("servicenow", EX / "servicenow-incident.csv", EX / "servicenow-sys_audit.csv",
                                "--mode", "raw", "--map", EX / "servicenow-map.toml"),
        "jira examples": ("jira", EX / "jira-issues.csv", EX / "jira-changelog.json", EX / "jira-sla.json",
                          "--map", EX / "jira-map.toml"),
        "zendesk examples": ("zendesk", EX / "zendesk-tickets.json", EX / "zendesk-ticket_metrics.json",
                             EX / "zendesk-ticket_metric_events.json", "--map", EX / "zendesk-map.toml"),
        "spreadsheet example": ("csv", EX / "spreadsheet.csv", "--map", EX / "spreadsheet-map.toml"),
        "servicenow, every clock fact": (
            "servicenow", w(tmp_path, "incident.csv", snow.INCIDENTS), w(tmp_path, "sys_audit.csv", snow.AUDIT),
            w(tmp_path, "change_request.csv", snow.CHANGES), w(tmp_path, "task_sla.csv", snow.TASK_SLA),
            w(tmp_path, "sys_journal_field.csv", snow.NOTES), "--mode", "raw",
            "--map", w(tmp_path, "snow-map.toml", snow.MAP)),
        "jira, every clock fact": (
            "jira", w(tmp_path, "jira.csv", jira.CSV), w(tmp_path, "changelog.json", json.dumps(jira.CHANGELOG)),
            w(tmp_path, "sla-10002.json", json.dumps(jira.SLA_RAW)),
            w(tmp_path, "sla.json", json.dumps(jira.SLA_KEYED)),
            "--map", w(tmp_path, "jira-map.toml", jira.MAP)),
        "zendesk, every clock fact": (
            "zendesk", w(tmp_path, "tickets.json", json.dumps(zendesk.TICKETS)),
            w(tmp_path, "ticket_metrics.json", json.dumps(zendesk.METRICS)),
            w(tmp_path, "ticket_metric_events.json", json.dumps(zendesk.EVENTS)),
            w(tmp_path, "ticket_audits.json", json.dumps(zendesk.AUDITS)),
            "--map", w(tmp_path, "zendesk-map.toml", zendesk.MAP)),
        "spreadsheet, every clock fact": ("csv", sheet._sheet(tmp_path), "--map", w(tmp_path, "sheet-map.toml",
                                                                                      sheet.MAP)),
    }


def _csv_rows(path):
    return list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"))))


def _as_csv(row):
    out = io.StringIO()
    writer = csv.DictWriter(out, COLUMNS, extrasaction="ignore", lineterminator="\n")
    writer.writerow({k: "; ".join(row[k]) if k in ("reasons", "beside") else "" if row.get(k) is None else row[k]
                     for k in COLUMNS})  # (beside: the reference's samples carry no further vendor figures)
    return next(csv.DictReader(io.StringIO(",".join(COLUMNS) + "\n" + out.getvalue())))


def _same(rows, expected):
    assert len(rows) == len(expected)
    for got, want in zip(rows, expected, strict=True):
        assert got.keys() == want.keys()
        for key, value in want.items():
            if isinstance(value, float):
                assert got[key] == pytest.approx(value, abs=1e-9), (want["ticket"], key)
            else:
                assert got[key] == value, (want["ticket"], key)


@pytest.mark.parametrize("name", [
    "servicenow examples", "jira examples", "zendesk examples", "spreadsheet example", "servicenow, every clock fact",
    "jira, every clock fact", "zendesk, every clock fact", "spreadsheet, every clock fact"])
def test_streamed_rows_and_totals_are_those_of_before(run, tmp_path, monkeypatch, name):
    """Per ticket, in id order, the same row (ours, theirs, the differences, agree, re-opens, the
    clock's start, the reasons in the same words) from the import's JSON, its streamed CSV and a
    report's ``from_journal``, as the reconciliation before streaming gave; and the same totals:
    compared = the rows with a verdict, agree + differ = compared, not compared = the rest, the
    largest difference the largest gap among the rows that differ."""
    args = _samples(tmp_path)[name]
    j = common.new_journal(tmp_path)
    out_csv = tmp_path / "reconcile.csv"
    out = common.imported(run, j, *args, "--csv", out_csv)
    want = before.from_journal(jr.read(j))
    got = out["reconcile"]
    assert "tickets" in want, want  # every sample carries vendor durations
    _same(got["tickets"], want["tickets"])
    totals = {k: v for k, v in want.items() if k != "tickets"}
    assert {k: v for k, v in got.items() if k != "tickets"} == totals
    rows = got["tickets"]
    judged = [r for r in rows if r["agree"] is not None]
    differ = [r for r in judged if not r["agree"]]
    assert (got["compared"], got["agree"], got["differ"], got["not_compared"]) == \
        (len(judged), len(judged) - len(differ), len(differ), len(rows) - len(judged))
    if differ:
        assert got["largest"]["hours"] == max(r["gap_hours"] for r in differ)
    assert _csv_rows(out_csv) == [_as_csv(r) for r in want["tickets"]]
    monkeypatch.setattr(reading, "ENGINE_FROM_BYTES", 0)  # a sample's journal is small: lift the size
    fast = reading.read(j)
    assert fast.incidents is not None, "the engine declined: the first reconciliation is not the engine's"
    for journal in (fast, jr.read(j)):  # a report's reconciliation, on either reader
        _same(reconcile.from_journal(journal)["tickets"], want["tickets"])


def test_the_printout_holds_the_totals_and_the_first_rows(run, tmp_path):
    """The table lists the tickets that differ or were not compared, first ones first, and the
    totals line counts every ticket: the ServiceNow set has 6 compared (INC0020002 to 0007), of
    which INC0020003 agrees (3.0 h both), 5 differ, and INC0020008 (excluded) is not compared."""
    args = _samples(tmp_path)["servicenow, every clock fact"]
    j = common.new_journal(tmp_path)
    r = run("import", *args, "--journal", j)
    assert r.exit_code == 0, r.stderr
    assert "6 compared, 1 agree, 5 differ" in r.stdout and "1 not compared" in r.stdout
    listed = [line.split()[0] for line in r.stdout.splitlines() if line.startswith("INC00200")]
    assert listed == ["INC0020002", "INC0020004", "INC0020005", "INC0020006", "INC0020007", "INC0020008"]


@pytest.mark.usefixtures("engine_on_every_size")  # the second import reads a small journal on the engine
def test_a_later_import_and_a_journal_read_by_the_reference(run, tmp_path):
    """The journal as the import left it is what it held plus what it wrote, on either reader:
    a second, later export of the spreadsheet (a ticket restored since) into a journal the engine
    reads, and an import into a journal that ``journal.read`` reads (one holding an exercise
    incident, which goes through the safety gate), reconcile as the journal read back does."""
    args = _samples(tmp_path)["spreadsheet, every clock fact"]
    j = common.new_journal(tmp_path)
    common.imported(run, j, *args)
    assert reading.read(j).incidents is not None  # what the second import reads on the engine
    again = common.imported(run, j, *args)  # nothing new: every row from what the journal held
    _same(again["reconcile"]["tickets"], before.from_journal(jr.read(j))["tickets"])
    gated = make_journal(tmp_path / "gated.jsonl", [  # an exercise incident: read by journal.read
        ("safety.agreed", "I1", "2026-03-02T09:30", SIGN_OFF),
        ("incident.raised", "I1", "2026-03-02T10:00"),
        ("incident.detected", "I1", "2026-03-02T10:20", {"severity": 2}),
        ("incident.restored", "I1", "2026-03-02T12:00", {"check": "probe"})], tier="T2", window=common.WINDOW,
        synthetic=True)
    assert reading.read(gated).incidents is None
    out = common.imported(run, gated, *args)
    _same(out["reconcile"]["tickets"], before.from_journal(jr.read(gated))["tickets"])

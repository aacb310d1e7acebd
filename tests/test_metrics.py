"""Charter figures: formulas on the charter's own arithmetic examples (examples, not results),
then a hand-worked journal over a weekend, Easter and the spring clock change."""

import json

import pytest

from day60 import journal as jr
from day60 import metrics as mx
from day60.stats import nearest_rank
from tests.builders import SIGN_OFF, make_journal

PASS = {"present": True, "covers_period": True, "supported": True}


def figures(path):
    return mx.compute(jr.read(path)).summary


# ----- formulas, on the charter's arithmetic examples ----------------------------------------


def test_nearest_rank_percentiles_charter_3_13_5():
    turns = [0.32, 0.41, 0.44, 0.52, 0.58, 0.71, 0.95, 2.30]
    assert nearest_rank(turns, 50) == 0.52
    assert nearest_rank(turns, 95) == 2.30


def test_lead_times_charter_3_18_6(tmp_path):
    # Onset Monday 09:00, internal alert Thursday 14:00, written notice Friday 11:00 (24x7 clock).
    path = make_journal(tmp_path / "j.jsonl", [
        ("safety.agreed", "D1", "2026-03-01T10:00", SIGN_OFF),
        ("drift.onset", "D1", "2026-03-02T09:00"),
        ("drift.detected", "D1", "2026-03-05T14:00"),
        ("drift.notice", "D1", "2026-03-06T11:00", {"affected_class": "a", "evidence": "e"}),
    ], calendar="service-desk-24x7.toml")
    [obs] = figures(path)["drift"]["observations"]
    assert (obs["detection_hours"], obs["notice_hours"], obs["gap_hours"]) == (77, 98, 21)


def test_restore_statistics_charter_3_19_6():
    block = mx.describe([3.5, 1.2, 14.0], "unused", median=True)
    assert block["count"] == 3 and block["sum"] == pytest.approx(18.7)
    assert block["mean"] == pytest.approx(18.7 / 3)
    assert block["median"] == 3.5 and block["max"] == 14.0


def test_rollback_times_charter_3_20_5(tmp_path):
    path = make_journal(tmp_path / "j.jsonl", [
        ("rollback.criterion-met", "R1", "2026-03-04T14:02", {"kind": "rehearsal"}),
        ("rollback.decision", "R1", "2026-03-04T14:09"),
        ("rollback.serving", "R1", "2026-03-04T14:21"),
        ("rollback.smoke-pass", "R1", "2026-03-04T14:26", {"model_pin": "m", "prompt_version": "p",
                                                           "threshold_set": "t"}),
        ("rollback.requeue-complete", "R1", "2026-03-04T15:40"),
    ])
    r = figures(path)["rollbacks"]["rehearsal"]
    assert r["decision_minutes"]["sum"] == 7
    assert r["rollback_minutes"]["sum"] == 17
    assert r["requeue_minutes"]["sum"] == 91


def test_completeness_charter_3_21_7(tmp_path):
    # Ten default elements plus two added: twelve. Eleven present; one lacks a sample size.
    defaults = [e["id"] for e in mx.default_report_elements()]
    assert len(defaults) == 10
    events = [("report.received", "2026-02", "2026-03-05T10:00")]
    for el in [*defaults, "added-one"]:
        events.append(("report.element", el, "2026-03-05T11:00", PASS))
    events.append(("report.element", "added-one", "2026-03-05T11:05", {**PASS, "supported": False}))
    events.append(("report.element", "added-two", "2026-03-05T11:10", {**PASS, "present": False}))
    [rep] = figures(make_journal(tmp_path / "j.jsonl", events,
                                 report_elements=["added-one", "added-two"]))["report"]["periods"]
    assert (rep["passing"], rep["required"]) == (10, 12)
    assert rep["completeness_percent"] == pytest.approx(100 * 10 / 12)
    assert {f["element"] for f in rep["failing"]} == {"added-one", "added-two"}


# ----- a hand-worked exercise: weekend, Easter, spring DST ------------------------------------

NOTE = {"affected_class": "scanned invoices", "evidence": "alert 4411"}
SMOKE = {"model_pin": "m-2026-01", "prompt_version": "p14", "threshold_set": "t3"}


@pytest.fixture(scope="module")
def worked(tmp_path_factory):
    events = [
        ("safety.agreed", "D1", "2026-03-20T10:00", SIGN_OFF),
        ("drift.onset", "D1", "2026-03-26T15:00"),        # Thu, GMT
        ("drift.detected", "D1", "2026-03-30T10:00"),     # Mon, BST
        ("drift.notice", "D1", "2026-04-07T11:00", NOTE),  # Tue after Easter
        ("safety.agreed", "D2", "2026-03-20T10:00", SIGN_OFF),
        ("drift.onset", "D2", "2026-03-24T10:00"),
        ("drift.announced", "D2", "2026-03-23T10:00", {"reason": "format change scheduled by the partner"}),
        ("safety.agreed", "D3", "2026-03-20T10:00", SIGN_OFF),
        ("drift.onset", "D3", "2026-03-24T11:00"),
        ("drift.told", "D3", "2026-03-24T11:00"),
        ("safety.agreed", "D5", "2026-03-20T10:00", SIGN_OFF),
        ("drift.onset", "D5", "2026-04-01T10:00"),
        ("drift.false-alert", "F1", "2026-03-25T12:00"),
        ("safety.agreed", "I1", "2026-03-20T10:00", SIGN_OFF),
        ("incident.partner-notice", "I1", "2026-03-27T15:30"),
        ("incident.detected", "I1", "2026-03-27T16:00", {"severity": 2}),
        ("incident.communicated", "I1", "2026-03-27T16:15"),
        ("incident.wait-start", "I1", "2026-03-27T17:00"),
        ("incident.change-window-start", "I1", "2026-03-30T09:00"),
        ("incident.wait-end", "I1", "2026-03-30T09:30"),
        ("incident.change-window-end", "I1", "2026-03-30T10:00"),
        ("incident.restored", "I1", "2026-03-30T11:00", {"check": "intake probe"}),
        ("incident.detected", "I2", "2026-03-31T09:00", {"severity": 2, "source": "organic"}),
        ("incident.restored", "I2", "2026-03-31T12:30", {"check": "intake probe"}),
        ("incident.detected", "I3", "2026-03-31T09:00", {"severity": 1, "source": "organic"}),
        ("incident.withdrawn", "I3", "2026-03-31T10:00", {"reason": "not reproducible"}),
        ("incident.detected", "I4", "2026-03-31T09:00", {"severity": 3, "source": "organic"}),
        ("incident.excluded", "I4", "2026-03-31T10:00", {"reason": "retainer schedule clause 10"}),
        ("incident.detected", "I5", "2026-04-08T09:00", {"severity": 4, "source": "organic"}),
        ("incident.detected", "I6", "2026-04-10T15:00", {"severity": 2, "source": "organic"}),
        ("incident.restored", "I6", "2026-04-10T17:45", {"check": "intake probe"}),  # after the window
        ("safety.agreed", "R1", "2026-03-20T10:00", SIGN_OFF),
        ("rollback.criterion-met", "R1", "2026-04-08T14:00", {"kind": "production"}),
        ("rollback.decision", "R1", "2026-04-08T14:12"),
        ("rollback.smoke-pass", "R1", "2026-04-08T14:40", SMOKE),
        ("rollback.requeue-complete", "R1", "2026-04-08T16:00"),
        ("rollback.data-restore", "R1", "2026-04-08T17:00"),
        ("rollback.criterion-met", "R2", "2026-03-24T10:00", {"kind": "rehearsal"}),
        ("rollback.decision", "R2", "2026-03-24T10:05"),
        ("rollback.smoke-pass", "R2", "2026-03-24T10:35", SMOKE),
        ("report.received", "2026-03", "2026-04-10T10:00"),
    ]
    elements = {e["id"]: PASS for e in mx.default_report_elements()}
    elements["incidents-by-severity"] = {**PASS, "supported": False}
    elements["rollbacks"] = {**PASS, "not_applicable": True}
    elements["sla-credits"] = {"present": False, "covers_period": False, "supported": False}
    events += [("report.element", el, "2026-04-10T11:00", d) for el, d in elements.items()]
    events.append(("exercise.close", "exercise", "2026-04-10T17:30"))
    path = make_journal(tmp_path_factory.mktemp("w") / "worked.jsonl", events,
                        window=("2026-03-23T09:00", "2026-04-10T17:30"), report_elements=["sla-credits"])
    return path


def test_worked_drift(worked):
    d = figures(worked)["drift"]
    obs = {o["id"]: o for o in d["observations"]}
    assert {k: o["status"] for k, o in obs.items() if o["status"] in ("announced", "told")} == {
        "D2": "announced", "D3": "told"}  # excluded, and counted
    assert d["population"] == 2  # D1 and D5 are scored
    assert d["excluded"] == {"announced": 1, "told": 1, "by_dispute": 0}
    assert d["false_alerts"] == 1
    d1 = obs["D1"]
    # Thu 26 Mar 15:00 GMT -> Mon 30 Mar 10:00 BST: 90 h; business Thu 2.5 + Fri 8.5 + Mon 1.
    assert d1["detection_hours"] == 90 and d1["detection_business_hours"] == 12
    # -> Tue 7 Apr 11:00 BST: 283 h; business 2.5 + 5 x 8.5 + 2 (Good Friday, Easter Monday closed).
    assert d1["notice_hours"] == 283 and d1["notice_business_hours"] == 47
    assert d1["gap_hours"] == 193 and d1["gap_business_hours"] == 35
    assert obs["D5"]["status"] == "not detected within the window"
    assert "hour window" in obs["D5"]["reason"]
    # D5 was never notified: the worst case is not a number (3.18.5), the largest measured is kept.
    assert d["summary"]["notice_hours"] == {"count": 1, "sum": 283.0, "mean": 283.0, "max": None,
                                            "population": 2, "not_detected": 1, "max_of_detected": 283.0,
                                            "max_reason": "not detected within the window (1 of 2)"}


def test_worked_restore(worked):
    i = figures(worked)["incidents"]
    s2 = i["by_severity"]["2"]
    # I1: clock from the partner's notice (Fri 15:30 GMT, earlier than detection) to Mon 11:00
    # BST = 66.5 h, less the merged wait + change window (Fri 17:00 -> Mon 10:00 BST = 64 h).
    # I2: 3.5 h. The median of two is their midpoint, (2.5 + 3.5) / 2 (nearest rank's lower one
    # would favour the supplier: issue 38).
    assert s2["count"] == 2
    assert s2["mean_hours"] == pytest.approx(3.0)
    assert s2["median_hours"] == 3.0 and s2["max_hours"] == 3.5
    # Business: I1 2 h Fri + 2 h Mon, less 0.5 h + 1 h of pauses in working time = 2.5; I2 3.5.
    assert s2["mean_business_hours"] == pytest.approx(3.0)
    assert s2["waiting_on_partner_hours"] == 63.5  # Fri 17:00 GMT -> Mon 09:30 BST, reported apart
    assert s2["change_window_hours"] == 1.0
    assert s2["first_communication_mean_hours"] == 0.75 and s2["first_communication_count"] == 1
    assert s2["open"] == 1  # I6 restored after the window closed
    assert i["by_severity"]["1"]["count"] == 0 and i["by_severity"]["1"]["mean_hours"] is None
    assert i["by_severity"]["1"]["reason"] == "no severity 1 incident was restored in the window"


def test_every_incident_counted_exactly_once(worked):
    i = figures(worked)["incidents"]
    restored = sum(b["count"] for b in i["by_severity"].values())
    assert restored == i["restored"]
    total = sum(i[k.replace(" ", "_")] for k in mx.INCIDENT_BUCKETS)
    assert total == i["population"] == 6
    assert (i["withdrawn"], i["excluded"], i["open"]) == (1, 1, 2)


def test_worked_rollbacks(worked):
    r = figures(worked)["rollbacks"]
    assert r["production"]["count"] == 1 and r["rehearsal"]["count"] == 1
    assert r["production"]["rollback_minutes"]["max"] == 28
    assert r["production"]["requeue_minutes"]["sum"] == 108
    assert r["rehearsal"]["decision_minutes"]["sum"] == 5
    assert r["rehearsal"]["requeue_minutes"]["count"] == 0
    assert r["rehearsal"]["requeue_minutes"]["mean"] is None
    assert r["data_restores"]["ids"] == ["R1"]


def test_worked_report(worked):
    [rep] = figures(worked)["report"]["periods"]
    assert (rep["passing"], rep["required"], rep["not_applicable"]) == (9, 11, 1)
    assert rep["completeness_percent"] == pytest.approx(100 * 9 / 11)
    assert {f["element"]: f["reason"] for f in rep["failing"]} == {
        "incidents-by-severity": "a figure has no sample size or basis", "sla-credits": "absent"}
    # Fifth business day of April 2026 in England: 1, 2, (Good Friday, Easter Monday), 7, 8, 9.
    assert rep["due"] == "2026-04-09" and rep["delivered"] == "2026-04-10" and rep["on_time"] is False


def test_corrected_instant_is_used(tmp_path):
    path = make_journal(tmp_path / "j.jsonl", [
        ("safety.agreed", "D1", "2026-03-01T10:00", SIGN_OFF),
        ("drift.onset", "D1", "2026-03-02T09:00"),
        ("drift.notice", "D1", "2026-03-02T12:00", NOTE),
    ])
    import datetime as dt

    jr.correct(path, 3, dt.datetime(2026, 3, 2, 11, tzinfo=dt.UTC), "typed the wrong hour")
    s = figures(path)
    assert s["drift"]["observations"][0]["notice_hours"] == 2
    assert s["corrections"][0]["reason"] == "typed the wrong hour"


def test_sealed_onset_gives_no_number(tmp_path):
    path = make_journal(tmp_path / "j.jsonl", [("safety.agreed", "D1", "2026-03-01T10:00", SIGN_OFF)])
    import datetime as dt

    jr.append(path, "drift.onset", "D1", dt.datetime(2026, 3, 2, 9, tzinfo=dt.UTC), {"affected_class": "a"},
              seal=tmp_path / "held.json")
    [obs] = figures(path)["drift"]["observations"]
    assert obs["status"] == "sealed" and obs["notice_hours"] is None and "reveals" in obs["reason"]


def test_unchecked_elements_make_completeness_not_run(tmp_path):
    path = make_journal(tmp_path / "j.jsonl", [("report.received", "2026-02", "2026-03-05T10:00"),
                                               ("report.element", "rollbacks", "2026-03-05T10:00", PASS)])
    rep = figures(path)["report"]
    assert rep["completeness_percent"] is None and rep["reason"] == "not run: 2026-02 not fully checked"
    assert rep["periods"][0]["reason"].startswith("not run: 9 of 10")


def test_empty_journal_is_all_not_run(tmp_path, run):
    path = make_journal(tmp_path / "j.jsonl", [])
    r = run("metrics", path, "--format", "json")
    assert r.exit_code == 0
    s = json.loads(r.stdout)
    assert s["drift"]["summary"]["notice_hours"]["mean"] is None
    assert s["report"]["reason"].startswith("not run")
    table = run("metrics", path).stdout
    assert "not run" in table and " 0.00" not in table


def test_metrics_cli_table_and_csv(worked, run, tmp_path):
    r = run("metrics", worked)
    assert r.exit_code == 0
    assert "283.00 h" in r.stdout and "9 of 11 required elements" in r.stdout and "late" in r.stdout
    assert run("metrics", worked, "--format", "csv", "--out", tmp_path / "csv").exit_code == 2  # no such folder
    (tmp_path / "csv").mkdir()
    r = run("metrics", worked, "--format", "csv", "--out", tmp_path / "csv")
    assert r.exit_code == 0
    assert (tmp_path / "csv" / "worked-incidents.csv").read_text().count("\n") == 7  # header + 6
    assert run("metrics", worked, "--format", "xml").exit_code == 2
    assert run("metrics", tmp_path / "none.jsonl").exit_code == 2



def test_metrics_csv_counts_its_rows_in_plain_english(run, tmp_path):
    """One organic incident, nothing else: the incidents table has 1 row (said "1 row", not
    "1 rows"); the drift, rollback and report-element tables have none ("0 rows")."""
    path = make_journal(tmp_path / "one.jsonl", [
        ("incident.detected", "I1", "2026-03-03T10:00", {"severity": 2, "source": "organic"}),
        ("incident.restored", "I1", "2026-03-03T11:00", {"check": "intake probe"}),
    ])
    (tmp_path / "csv").mkdir()
    r = run("metrics", path, "--format", "csv", "--out", tmp_path / "csv")
    assert r.exit_code == 0, r.stderr
    lines = {ln.split("/")[-1] for ln in r.stderr.splitlines() if ln.startswith("wrote ")}
    assert "one-incidents.csv (1 row)" in lines
    assert "one-drift.csv (0 rows)" in lines
    assert "(1 rows)" not in r.stderr

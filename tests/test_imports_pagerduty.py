"""day60 import pagerduty on a SYNTHETIC REST API export set covering every clock fact of
charter 3.19 that PagerDuty can carry.

PagerDuty's log entries (trigger_log_entry, acknowledge_log_entry, resolve_log_entry,
annotate_log_entry with its note in channel.summary) carry no field for waits, notices,
restores confirmed later or withdrawals: this deal writes them as notes, by a runbook
convention the map states as [notes] patterns. A trigger is always the supplier's detection, so
"partner notice only" is here a notice dated before the trigger.
"""

import json

import pytest

from tests.imports_common import check_scenario, imported, new_journal, reimport_adds_nothing, write


def _entry(n, kind, incident, day, hm, agent="user_reference", channel="web_ui", note=None):
    e = {"id": f"RSYN{n:03d}", "type": kind, "created_at": f"2026-03-{day}T{hm}:00Z",
         "incident": {"id": incident, "type": "incident_reference"}, "agent": {"type": agent},
         "channel": {"type": channel}}
    if note is not None:
        e["channel"] = {"type": "note", "summary": note}
    return e


MON = "service_reference"
ENTRIES = {"log_entries": [
    _entry(1, "trigger_log_entry", "PA", "02", "10:00", MON, "api"),
    _entry(2, "annotate_log_entry", "PA", "02", "10:30", note="SYNTHETIC withdrawn: cannot reproduce"),
    _entry(3, "resolve_log_entry", "PA", "02", "11:00"),
    _entry(4, "trigger_log_entry", "PB", "02", "09:00", MON, "api"),
    _entry(5, "acknowledge_log_entry", "PB", "02", "09:05"),
    _entry(6, "resolve_log_entry", "PB", "02", "10:00"),
    _entry(7, "annotate_log_entry", "PB", "02", "11:30", note="SYNTHETIC monitoring confirmed restore: canary green"),
    _entry(8, "trigger_log_entry", "PC", "03", "09:00", MON, "api"),
    _entry(9, "acknowledge_log_entry", "PC", "03", "09:02"),
    _entry(10, "resolve_log_entry", "PC", "03", "10:00"),
    _entry(11, "annotate_log_entry", "PC", "03", "11:00", note="SYNTHETIC reopened: errors are back"),
    _entry(12, "annotate_log_entry", "PC", "03", "12:00", note="SYNTHETIC monitoring confirmed restore: canary green"),
    _entry(13, "trigger_log_entry", "PD", "03", "14:00", MON, "api"),
    _entry(14, "annotate_log_entry", "PD", "03", "14:10",
           note="SYNTHETIC first alert seen at 2026-03-03T13:00:00+00:00 on the standby monitor"),
    _entry(15, "resolve_log_entry", "PD", "03", "15:00", MON, "api"),
    _entry(16, "trigger_log_entry", "PE", "04", "10:00", MON, "api"),
    _entry(17, "annotate_log_entry", "PE", "04", "10:05",
           note="SYNTHETIC client reported it at 2026-03-04T09:30:00+00:00"),
    _entry(18, "resolve_log_entry", "PE", "04", "11:00", MON, "api"),
    _entry(19, "trigger_log_entry", "PF", "04", "13:00", MON, "api"),
    _entry(20, "annotate_log_entry", "PF", "04", "14:00", note="SYNTHETIC change window opened (CHG-9)"),
    _entry(21, "annotate_log_entry", "PF", "04", "15:00", note="SYNTHETIC change window closed"),
    _entry(22, "resolve_log_entry", "PF", "04", "16:00", MON, "api"),
    _entry(23, "trigger_log_entry", "PG", "05", "09:00", MON, "api"),
    _entry(24, "annotate_log_entry", "PG", "05", "10:00", note="SYNTHETIC waiting on client for logs"),
    _entry(25, "annotate_log_entry", "PG", "05", "11:00", note="SYNTHETIC client replied"),
    _entry(26, "resolve_log_entry", "PG", "05", "12:00", MON, "api"),
    _entry(27, "trigger_log_entry", "PK", "05", "13:00", MON, "api"),
    _entry(28, "annotate_log_entry", "PK", "05", "13:10",
           note="SYNTHETIC excluded: Retainer Schedule clause 10.2, the partner's maintenance"),
    _entry(29, "resolve_log_entry", "PK", "05", "14:00", MON, "api"),
]}
INCIDENTS = {"incidents": [{"id": i, "title": f"SYNTHETIC {i}", "urgency": "high", "priority": {"summary": p}}
                           for i, p in (("PA", "P4"), ("PB", "P1"), ("PC", "P1"), ("PD", "P2"), ("PE", "P2"),
                                        ("PF", "P3"), ("PG", "P3"), ("PK", "P4"))]}
MAP = """\
# SYNTHETIC: this deal's runbook convention for PagerDuty notes.
[notes]
detected = "first alert seen at (?P<at>\\\\S+)"
partner-notice = "client reported it at (?P<at>\\\\S+)"
wait-start = "(?i)waiting on (the )?client"
wait-end = "(?i)client replied"
change-window-start = "(?i)change window opened"
change-window-end = "(?i)change window closed"
restored = "(?i)monitoring confirmed restore"
reopened = "(?i)^SYNTHETIC reopened"
withdrawn = "(?i)withdrawn: cannot reproduce"
excluded = "excluded: (?P<reason>Retainer Schedule clause [0-9.]+)"

[severity]
P1 = 1
P2 = 2
P3 = 3
P4 = 4
"""
IDS = {k: f"P{k}" for k in "ABCDEFGK"}


@pytest.fixture
def export(tmp_path):
    return [write(tmp_path, "log_entries.json", json.dumps(ENTRIES)),
            write(tmp_path, "incidents.json", json.dumps(INCIDENTS))]


def test_every_clock_fact(run, tmp_path, export):
    """The seven tickets of ``check_scenario``, from PagerDuty's log and the deal's notes:

    - PA: a note "withdrawn: cannot reproduce" (withdrawn, the note its reason); PK: a note naming
      Retainer Schedule clause 10.2 (excluded, the clause its reason);
    - PB: resolved by a person at 10:00 (no monitoring evidence), the monitoring confirmed the
      restore in a note at 11:30: 2.5 h;
    - PC: resolved by a person 10:00, re-opened in a note 11:00, restore confirmed 12:00: 3.0 h;
    - PD: triggered 14:00, a note says the first alert was seen at 13:00: 2.0 h to the integration's
      resolve at 15:00;
    - PE: the client's report at 09:30, before the 10:00 trigger: 1.5 h;
    - PF: notes open and close a change window 14:00-15:00: 3 - 1 = 2.0 h;
    - PG: notes wait on the client 10:00-11:00: 2.0 h.
    """
    j = new_journal(tmp_path)
    args = ("pagerduty", *export, "--map", write(tmp_path, "map.toml", MAP))
    out = imported(run, j, *args)
    assert out["unreadable"] == [] and len(out["imported"]) == 8
    check_scenario(run, j, "pagerduty", IDS, notice_only=False)
    f = out["findings"]
    assert f["withdrawn"] == [{"ticket": "PA", "reason": "a note: SYNTHETIC withdrawn: cannot reproduce"}]
    assert f["excluded"] == [{"ticket": "PK", "reason": "a note: Retainer Schedule clause 10.2"}]
    distorted = {x["ticket"]: x["why"] for x in f["distorted"]}
    # Integration resolves are listed (the alert cleared by itself); PD..PG were never acknowledged.
    assert distorted["PD"] == ["resolved before anyone acknowledged it",
                               "resolved by an integration (service_reference, channel api)"]
    assert "re-opened 1 time(s)" in distorted["PC"]
    assert "PB" not in distorted
    assert all(p["matched"] >= 1 for p in out["note_patterns"])
    assert out["reconcile"]["compared"] == 0  # PagerDuty exports no duration of its own
    reimport_adds_nothing(run, j, *args)


def test_a_pattern_that_matches_nothing_is_said(run, tmp_path, export):
    j = new_journal(tmp_path)
    m = write(tmp_path, "map2.toml", MAP.replace('"(?i)change window opened"', '"(?i)maintenance begins"'))
    r = run("import", "pagerduty", *export, "--map", m, "--journal", j)
    assert r.exit_code == 0, r.stderr
    assert "note pattern change-window-start ('(?i)maintenance begins') matched no note" in r.stdout
    # PF's change-window end then closes nothing: said, and its 3.0 h clock stands.
    assert "ends a change that no note began" in r.stdout

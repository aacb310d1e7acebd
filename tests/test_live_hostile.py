"""The live checklist as a careless auditor meets it: a narrow terminal, a stray Enter on a yes/no,
a restore cancelled half way, a correction after the close. Each test failed before its fix."""

import datetime as dt
import os
import re
import select
import sys
import time

import pytest

from day60 import checklist, live
from day60 import journal as jr
from tests.test_live import (
    CTRL_C,
    DOWN,
    ENTER,
    NOW,
    ROOT,
    T0,
    YES,
    Terminal,
    iso,
    kinds,
    pick,
)


@pytest.fixture
def journal(run, tmp_path):
    """The journal of tests/test_live.py: a T3 exercise whose window is around now."""
    path = tmp_path / "ex.jsonl"
    r = run("new", path, "--partner", "Acme BPO", "--supplier", "Nimbus AI", "--deployment", "claims intake",
            "--tier", "T3", "-c", "uk-office", "--window-start", (NOW - dt.timedelta(days=2)).isoformat(),
            "--window-end", (NOW + dt.timedelta(days=10)).isoformat(), "--runner", "J. Auditor",
            "--not-synthetic", "--announced")
    assert r.exit_code == 0, r.output
    return path


def test_a_refusal_under_the_prompt_is_shown_whole_on_a_40_column_terminal(run, tmp_path):
    """prompt_toolkit gives the refusal under a prompt one line: on a 40-column terminal a time in
    London's spring gap showed "time: 2026-03-29T01:30 does not exist in" and nothing of the
    offsets to type instead (at 80 columns the second candidate was cut off too)."""
    path = tmp_path / "ex.jsonl"
    assert run("new", path, "--partner", "A", "--supplier", "B", "--deployment", "C", "--tier", "T3", "-c",
               "uk-office", "--window-start", "2026-03-20T09:00", "--window-end", "2026-04-10T17:00", "--runner",
               "R", "--not-synthetic", "--announced").exit_code == 0
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TERM": "xterm", "PROMPT_TOOLKIT_NO_CPR": "1"}
    term = Terminal([sys.executable, "-m", "day60", "live", str(path)], env, columns=40)
    try:
        term.expect("Next step")
        term.send(pick("new: incident notified by the partner"))
        term.expect("Id")
        term.send("I1" + ENTER)
        term.expect("When did it happen")
        time.sleep(0.2)
        term.send("2026-03-29T01:30" + ENTER)
        screen = _screen_for(term, 3.0)
        flat = re.sub(r"\s+", "", screen)
        whole = live._plain(_refusal("2026-03-29T01:30"))
        assert re.sub(r"\s+", "", whole) in flat, screen[-800:]
        assert "2026-03-29T02:30:00+01:00" in whole  # the candidate a person types instead
        term.send(CTRL_C + CTRL_C)
    finally:
        term.close()
    assert kinds(path) == []


def _refusal(text: str) -> jr.InputError:
    from zoneinfo import ZoneInfo

    from day60 import timeparse

    try:
        timeparse.parse_instant(text, ZoneInfo("Europe/London"), "--at")
    except jr.InputError as exc:
        return exc
    raise AssertionError(f"{text} was not refused")


def _screen_for(term: Terminal, seconds: float) -> str:
    """What the terminal received over ``seconds``, escape sequences removed."""
    deadline = time.time() + seconds
    seen = ""
    while time.time() < deadline:
        if select.select([term.fd], [], [], 0.1)[0]:
            try:
                seen += os.read(term.fd, 65536).decode("utf-8", "replace")
            except OSError:
                break
    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][A-Z0-9]|\x1b[=>]", "", seen)


def test_a_restore_cancelled_after_its_wait_end_was_given_writes_nothing(run, journal, monkeypatch, pipe):
    """"Restore confirmed" with a wait still open: the end of the wait was written as soon as its
    time was given, so Ctrl-C at the restore's own time left it in the journal, under the words
    "cancelled: nothing was recorded for that step". Now the end is written with the restore or
    not at all; an end before its start is refused at its own prompt."""
    monkeypatch.setattr("day60.cli.base._interactive", lambda: True)
    opening = (pick("new: incident notified by the partner") + "I1" + ENTER + iso(10) + ENTER + ENTER + ENTER
               + pick("I1: waiting on partner starts") + iso(20) + ENTER)
    pipe.send_text(opening)
    pipe.send_text(pick("I1: restore confirmed") + ENTER + iso(30) + ENTER + CTRL_C)  # cancelled at its time
    pipe.send_text(pick("I1: restore confirmed") + ENTER + iso(15) + ENTER  # an end before the start
                   + iso(30) + ENTER + iso(40) + ENTER + "canary" + ENTER + CTRL_C)
    r = run("live", journal)
    assert r.exit_code == 0, r.output
    assert "cancelled: nothing was recorded for that step" in r.stdout
    assert "is before its wait-start" in r.stdout
    assert kinds(journal) == [("incident.partner-notice", "I1"), ("incident.wait-start", "I1"),
                              ("incident.wait-end", "I1"), ("incident.restored", "I1")]
    events = jr.read(journal).events
    assert [e["at"] for e in events[2:]] == [iso(30), iso(40)]


def test_after_the_close_an_entry_can_still_be_corrected(run, journal, monkeypatch, pipe):
    """The close prompt says that corrections can follow it, and the checklist then left: a typo
    in the close's own time could only be fixed with 'day60 correct'. The closed checklist now
    offers the correction (and the reveal) before it lets the person go."""
    monkeypatch.setattr("day60.cli.base._interactive", lambda: True)
    pipe.send_text(pick("new: supplier alert withdrawn as false") + "F1" + ENTER + iso(10) + ENTER)
    pipe.send_text(pick("close the exercise") + "y" + iso(480) + ENTER)
    pipe.send_text(pick("correct an entry") + ENTER + iso(470) + ENTER + "typed the wrong hour" + ENTER + CTRL_C)
    r = run("live", journal)
    assert r.exit_code == 0, r.output
    assert kinds(journal) == [("drift.false-alert", "F1"), ("exercise.close", "exercise"), ("correction", "2")]
    assert jr.read(journal).events[-1]["data"] == {"target": 2, "at": iso(470), "reason": "typed the wrong hour"}
    assert "only corrections and reveals can be recorded" in r.stdout


def test_a_stray_enter_never_answers_a_yes_or_no_that_has_no_default(run, journal, monkeypatch, pipe):
    """A report element's "present", "covers period" and "supported" were yes/no prompts answering
    yes on Enter: a stray Enter recorded an element as passing, a fact nobody stated and that no
    correction can change (a correction moves an instant, not data). They are typed now, as the
    attestation is; the web checklist asks "choose" for the same fields."""
    monkeypatch.setattr("day60.cli.base._interactive", lambda: True)
    pipe.send_text(pick("new: monthly report received") + "2026-10" + ENTER + iso(10) + ENTER)
    pipe.send_text(pick("new: monthly report element") + pick("threshold-changes") + iso(20) + ENTER
                   + ENTER + "maybe" + ENTER + "\x7f" * 5 + "no" + ENTER  # Enter and "maybe" stay at the prompt
                   + ENTER + YES + ENTER + "n" + ENTER + ENTER + CTRL_C)
    r = run("live", journal)
    assert r.exit_code == 0, r.output
    element = jr.read(journal).events[-1]
    assert element["data"] == {"present": False, "covers_period": True, "supported": False,
                               "not_applicable": False, "period": "2026-10"}
    asked = {a.name: a.attest for a in checklist.fields_for("report.element")}
    assert asked == {"present": True, "covers_period": True, "supported": True, "not_applicable": False}
    assert {a.name: a.attest for a in checklist.fields_for("incident.ticket-closed")}["resolved"] is True


def test_the_interview_of_day60_new_names_its_prompts_not_flags():
    """'day60 new' asked for the calendar and answered a wrong one with "--calendar: ...", a flag
    the person never typed."""
    check = live._checker(lambda t: live._calendar(t))
    assert check("nope").startswith("calendar: 'nope' is not a shipped calendar")
    assert "--" not in check("nope").split(";")[0]


def test_the_first_item_of_every_yes_or_no_list_is_not_an_answer(run, journal, monkeypatch, pipe):
    """The attestation answered by a stray Enter: refused at the prompt, never "no" by default
    either (a "no" refuses the sign-off and loses what was typed)."""
    monkeypatch.setattr("day60.cli.base._interactive", lambda: True)
    keys = (pick("new: safety sign-off") + "D1" + ENTER + iso(0) + ENTER + "SOW" + ENTER + "Kim" + ENTER + "err"
            + ENTER + "Lee" + ENTER + ENTER + ENTER + DOWN + ENTER + YES + CTRL_C)
    pipe.send_text(keys)
    r = run("live", journal)
    assert r.exit_code == 0, r.output
    assert kinds(journal) == [("safety.agreed", "D1")]
    assert jr.read(journal).events[0]["data"]["no_live_personal_data"] is True


def test_closing_with_sealed_onsets_and_no_held_file_says_so_before_the_close(run, journal, monkeypatch, pipe):
    """A checklist started without the held file closed an exercise with a sealed onset and only
    afterwards said the onset could not be revealed here."""
    monkeypatch.setattr("day60.cli.base._interactive", lambda: True)
    held = journal.parent / "held.json"
    jr.append(journal, "safety.agreed", "D1", T0, {"agreement": "a", "stop_owner": "b", "stop_condition": "c",
                                                  "rollback_owner": "d", "no_live_personal_data": True})
    jr.append(journal, "drift.onset", "D1", T0 + dt.timedelta(hours=1), {"affected_class": "x"}, seal=held)
    pipe.send_text(pick("close the exercise") + "n" + CTRL_C)
    r = run("live", journal)
    assert r.exit_code == 0, r.output
    assert "1 onset(s) sealed: D1 (seq 2)" in r.stdout
    assert "the held file is not at hand here" in r.stdout
    assert kinds(journal) == [("safety.agreed", "D1"), ("drift.onset", "D1")]

"""The live checklist on a terminal: every step of a T3 exercise without 'log', on prompt_toolkit
pipe input and on a real pseudo-terminal; cancelling, safe defaults, corrections, warnings, the
close and its reveal; and the interview 'day60 new' runs."""

import contextlib
import datetime as dt
import json
import os
import sys
import time
from pathlib import Path

import pytest

from day60 import checklist
from day60 import journal as jr

ROOT = Path(__file__).resolve().parents[1]
UTC = dt.UTC
DOWN, ENTER, CTRL_C = "\x1b[B", "\r", "\x03"
NOW = dt.datetime.now(UTC).replace(second=0, microsecond=0)
T0 = NOW - dt.timedelta(days=1)  # the exercise ran yesterday; the window is around now


def iso(minutes: float) -> str:
    """T0 plus ``minutes``, as an instant with its offset (typed at the "When?" prompt)."""
    return (T0 + dt.timedelta(minutes=minutes)).isoformat()


@pytest.fixture
def journal(run, tmp_path):
    path = tmp_path / "ex.jsonl"
    r = run("new", path, "--partner", "Acme BPO", "--supplier", "Nimbus AI", "--deployment", "claims intake",
            "--tier", "T3", "-c", "uk-office", "--window-start", (NOW - dt.timedelta(days=2)).isoformat(),
            "--window-end", (NOW + dt.timedelta(days=10)).isoformat(), "--runner", "J. Auditor",
            "--not-synthetic", "--announced")
    assert r.exit_code == 0, r.output
    return path


def kinds(path: Path) -> list[tuple[str, str]]:
    return [(e["kind"], e["id"]) for e in jr.read(path).events]


def pick(label: str) -> str:
    """Choose a menu item by typing part of its label (the menu filters as one types)."""
    return label + ENTER


YES = "yes" + ENTER  # a yes/no with no default (the attestation, an element's checks) is typed


def sign_off(ident: str, minutes: float) -> list[tuple[str, str]]:
    return [("Next step", pick("new: safety sign-off")), ("Id", ident + ENTER),
            ("When was it signed", iso(minutes) + ENTER),
            ("agreement", "SOW-7 annex B" + ENTER), ("stop owner", "Kim Ode" + ENTER),
            ("stop condition", "error rate above 5%" + ENTER), ("rollback owner", "Lee Park" + ENTER),
            ("no live personal data", YES)]


def step(label: str, minutes: float, *answers: tuple[str, str]) -> list[tuple[str, str]]:
    return [("Next step", pick(label)), ("When did it happen", iso(minutes) + ENTER), *answers]


# (what the terminal shows before the keys, the keys): the pipe driver sends only the keys.
T3 = [
    *sign_off("D1", 0), *sign_off("I1", 1), *sign_off("R1", 2),
    *step("D1: start the drift", 60, ("affected class", "invoices" + ENTER)),
    *step("D1: supplier detected", 120),
    *step("D1: written notice", 180, ("affected class", "invoices" + ENTER), ("evidence", "alert 4411" + ENTER)),
    *step("I1: raise the incident", 240),
    *step("I1: supplier detected it", 250, ("severity", DOWN * 2 + ENTER), ("source", ENTER)),
    *step("I1: waiting on partner starts", 260),
    ("Next step", pick("I1: restore confirmed")), ("Record its end first", ENTER),
    ("When did the waiting on partner end", iso(280) + ENTER),
    ("When did it happen", iso(300) + ENTER), ("check", "canary green" + ENTER),
    *step("R1: production rollback criterion", 360),
    *step("R1: decision recorded", 365),
    *step("R1: previous release serving", 380),
    *step("R1: smoke set passed", 385, ("model pin", "m-2026-10" + ENTER), ("prompt version", "p41" + ENTER),
          ("threshold set", "t7" + ENTER)),
    *step("R1: re-queue complete", 400),
    ("Next step", pick("new: monthly report received")), ("Id", "2026-10" + ENTER),
    ("When did it happen", iso(420) + ENTER),
    ("Next step", pick("new: monthly report element")), ("Which element", pick("accuracy-and-stp")),
    ("When did it happen", iso(425) + ENTER), ("present", YES), ("covers period", YES), ("supported", YES),
    ("not applicable", ENTER),
    ("Next step", pick("correct an entry")), ("Which entry", ENTER), ("The right time", iso(426) + ENTER),
    ("Why was it wrong", "typed the wrong minute" + ENTER),
    ("Next step", pick("close the exercise")), ("Close the exercise now", "y"),
    ("When does it close", iso(480) + ENTER), ("Reveal the 1 sealed onset", ENTER),
    ("revealed 1 sealed onset(s)", ""), ("Next step", CTRL_C),  # closed: only corrections remain to offer
]
T3_KINDS = [("safety.agreed", "D1"), ("safety.agreed", "I1"), ("safety.agreed", "R1"), ("drift.onset", "D1"),
            ("drift.detected", "D1"), ("drift.notice", "D1"), ("incident.raised", "I1"),
            ("incident.detected", "I1"), ("incident.wait-start", "I1"), ("incident.wait-end", "I1"),
            ("incident.restored", "I1"), ("rollback.criterion-met", "R1"), ("rollback.decision", "R1"),
            ("rollback.serving", "R1"), ("rollback.smoke-pass", "R1"), ("rollback.requeue-complete", "R1"),
            ("report.received", "2026-10"), ("report.element", "accuracy-and-stp"), ("correction", "18"),
            ("exercise.close", "exercise"), ("reveal", "D1")]


def check_t3(run, journal: Path, held: Path) -> None:
    assert kinds(journal) == T3_KINDS
    events = jr.read(journal).events
    assert {e["by"] for e in events} == {"J. Auditor"}
    onset = events[3]
    assert onset["at"] is None and onset["data"]["affected_class"] == "invoices"
    assert json.loads(held.read_text())["onsets"][0]["at"] == iso(60)
    assert events[9]["at"] == iso(280) and events[10]["at"] == iso(300)  # the wait ended at its own time
    assert events[18]["data"] == {"target": 18, "at": iso(426), "reason": "typed the wrong minute"}
    assert events[20]["data"]["at"] == iso(60)  # the reveal opens the held instant
    r = run("verify", journal)
    assert r.exit_code == 0 and "1 correction(s), 0 sealed, 1 revealed" in r.stdout, r.output
    r = run("score", journal, "--format", "json")
    assert r.exit_code == 0, r.output
    score = json.loads(r.stdout)
    assert score["tier"] == "T3" and score["tier_check"]["met"], score["tier_check"]


def test_a_whole_t3_exercise_on_pipe_input(run, journal, monkeypatch, pipe):
    monkeypatch.setattr("day60.cli.base._interactive", lambda: True)
    pipe.send_text("".join(keys for _, keys in T3))
    held = journal.parent / "held.json"
    r = run("live", journal, "--held", held)
    assert r.exit_code == 0, r.output
    assert "revealed 1 sealed onset(s)" in r.stdout
    check_t3(run, journal, held)


class Terminal:
    """A child process on a real pseudo-terminal (the standard library's pty), read until a text
    appears, as a person watching the screen would."""

    def __init__(self, args: list[str], env: dict[str, str], columns: int = 160) -> None:
        import pty
        import subprocess

        self.fd, slave = pty.openpty()
        os.set_blocking(self.fd, False)
        import fcntl
        import struct
        import termios

        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 60, columns, 0, 0))
        self.proc = subprocess.Popen(args, stdin=slave, stdout=slave, stderr=slave, env=env, close_fds=True,
                                     start_new_session=True)
        os.close(slave)
        self.seen = ""

    def expect(self, text: str, timeout: float = 20) -> None:
        import re
        import select

        deadline = time.time() + timeout
        while True:
            plain = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][A-Z0-9]|\x1b[=>]", "", self.seen)
            at = plain.find(text)
            if at >= 0:
                self.seen = plain[at + len(text):]
                return
            left = deadline - time.time()
            if left <= 0 or (self.proc.poll() is not None and not select.select([self.fd], [], [], 0)[0]):
                raise AssertionError(f"{text!r} never appeared; the screen ended with {plain[-600:]!r}")
            if select.select([self.fd], [], [], min(left, 0.2))[0]:
                with contextlib.suppress(OSError):  # the child has gone and the terminal closed
                    self.seen += os.read(self.fd, 65536).decode("utf-8", "replace")

    def send(self, keys: str) -> None:
        os.write(self.fd, keys.encode("utf-8"))

    def close(self) -> int:
        try:
            return self.proc.wait(timeout=20)
        finally:
            os.close(self.fd)


def test_a_whole_t3_exercise_on_a_real_terminal(run, journal):
    held = journal.parent / "held.json"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TERM": "xterm", "PROMPT_TOOLKIT_NO_CPR": "1"}
    term = Terminal([sys.executable, "-m", "day60", "live", str(journal), "--held", str(held)], env)
    try:
        for shown, keys in T3:
            term.expect(shown)
            time.sleep(0.05)  # let the prompt take the keys as a person's
            term.send(keys)
        term.expect("stopped; everything recorded so far is in the journal")
    finally:
        code = term.close()
    assert code == 0
    check_t3(run, journal, held)


def test_a_stray_enter_records_nothing_and_every_step_cancels(run, journal, monkeypatch, pipe):
    """Enter on the menu's first item reads the journal again; Ctrl-C inside a step (at the id, at
    the time, at a field) returns to the menu with nothing written; Ctrl-C at the menu leaves."""
    monkeypatch.setattr("day60.cli.base._interactive", lambda: True)
    pipe.send_text(ENTER + ENTER)  # two stray Enters
    pipe.send_text(pick("new: safety sign-off") + CTRL_C)  # cancelled at the id
    pipe.send_text(pick("new: safety sign-off") + "D1" + ENTER + CTRL_C)  # at the time
    pipe.send_text(pick("new: safety sign-off") + "D1" + ENTER + iso(0) + ENTER + "SOW" + ENTER + CTRL_C)  # a field
    pipe.send_text(CTRL_C)
    r = run("live", journal)
    assert r.exit_code == 0, r.output
    assert r.stdout.count("cancelled: nothing was recorded for that step") == 3
    assert kinds(journal) == []


def test_the_first_menu_item_is_never_a_step():
    """Whatever the journal holds, the menu's first item is the refresh; no item of the checklist
    ends an id for good as the first of its group."""
    from day60.live import REFRESH, _menu

    events = [{"seq": 1, "kind": "safety.agreed", "id": "D1", "at": iso(0), "data": {}}]
    steps = checklist.next_steps(events)
    menu = _menu(steps, jr.Journal(Path("x"), {}, events, "", ""))
    assert menu[0].value == REFRESH
    first_of_group = [s for i, s in enumerate(steps) if i == 0 or steps[i - 1].group != s.group]
    assert not {s.kind for s in first_of_group} & {"injection.stopped", "injection.not-run", "incident.withdrawn",
                                                    "incident.excluded", "exercise.close"} - {"exercise.close"}
    assert steps[-1].kind == "exercise.close"


def test_the_sign_off_asks_the_attestation_and_a_no_records_nothing(run, journal, monkeypatch, pipe):
    monkeypatch.setattr("day60.cli.base._interactive", lambda: True)
    keys = "".join(k for _, k in sign_off("D1", 0))
    pipe.send_text(keys.removesuffix(YES) + "no" + ENTER + CTRL_C)  # "no" to the attestation
    r = run("live", journal)
    assert r.exit_code == 0, r.output
    assert "not recorded: no live personal data: a sign-off must attest" in r.stdout
    assert "--set" not in r.stdout  # never a flag to type
    assert kinds(journal) == []


def test_warnings_before_the_sealed_onset_in_the_future_and_outside_the_window(run, journal, monkeypatch, pipe):
    monkeypatch.setattr("day60.cli.base._interactive", lambda: True)
    held = journal.parent / "held.json"
    keys = "".join(k for _, k in [*sign_off("D1", 0), *step("D1: start the drift", 60,
                                                               ("affected class", "invoices" + ENTER))])
    future = (NOW + dt.timedelta(days=3)).isoformat()
    outside = (NOW - dt.timedelta(days=5)).isoformat()
    pipe.send_text(keys)
    # A detection typed before the sealed onset: warned; refused once ("n"), given again later.
    pipe.send_text(pick("D1: supplier detected") + iso(30) + ENTER + "n" + iso(90) + ENTER)
    # A notice in the future: warned, declined, then outside the window: warned, declined; then a good time.
    pipe.send_text(pick("D1: written notice") + future + ENTER + "n" + outside + ENTER + "n" + iso(100) + ENTER
                   + "invoices" + ENTER + "alert 1" + ENTER + CTRL_C)
    r = run("live", journal, "--held", held)
    assert r.exit_code == 0, r.output
    assert f"is before the sealed onset of D1 ({iso(60)[:19]}" in r.stdout
    assert "is in the future" in r.stdout and "is before the exercise window opens" in r.stdout
    events = jr.read(journal).events
    assert [(e["kind"], e["at"]) for e in events[2:]] == [("drift.detected", iso(90)), ("drift.notice", iso(100))]


def test_a_refused_time_keeps_the_other_answers(run, journal, monkeypatch, pipe):
    """A restore before the incident's clock starts is refused by the journal's own rules; the
    checklist asks for another time and keeps the check already typed."""
    monkeypatch.setattr("day60.cli.base._interactive", lambda: True)
    pipe.send_text(pick("new: incident the supplier detected") + "I7" + ENTER + iso(100) + ENTER + DOWN * 2 + ENTER)
    pipe.send_text(pick("I7: restore confirmed") + iso(50) + ENTER + "canary" + ENTER + ENTER + iso(150) + ENTER)
    pipe.send_text(CTRL_C)
    r = run("live", journal)
    assert r.exit_code == 0, r.output
    assert "is before the incident's clock started" in r.stdout
    events = jr.read(journal).events
    assert [(e["kind"], e["at"], e["data"]) for e in events] == [
        ("incident.detected", iso(100), {"severity": 2, "source": "organic"}),
        ("incident.restored", iso(150), {"check": "canary"})]


def test_every_kind_an_exercise_needs_is_in_the_menu():
    """Organic incidents and drift, a rehearsal, a real rollback, report elements, a not-run
    injection, the exclusions and the ends of an incident: each has a step."""
    t = iso
    events = [
        {"seq": 1, "kind": "safety.agreed", "id": "D1", "at": t(0), "data": {}},
        {"seq": 2, "kind": "drift.onset", "id": "D1", "at": t(10), "data": {"source": "exercise"}},
        {"seq": 3, "kind": "incident.detected", "id": "I2", "at": t(20), "data": {"source": "organic"}},
        {"seq": 4, "kind": "rollback.criterion-met", "id": "R2", "at": t(30), "data": {"kind": "rehearsal"}},
        {"seq": 5, "kind": "rollback.decision", "id": "R2", "at": t(31), "data": {}},
        {"seq": 6, "kind": "report.received", "id": "2026-10", "at": t(40), "data": {}},
    ]
    offered = {(s.kind, s.id, tuple(sorted(s.preset))) for s in checklist.next_steps(events)}
    for expected in [("incident.detected", None, (("source", "organic"),)),
                     ("drift.onset", None, (("source", "organic"),)),
                     ("rollback.criterion-met", None, (("kind", "rehearsal"),)),
                     ("rollback.criterion-met", None, (("kind", "production"), ("source", "organic"))),
                     ("report.element", None, ()), ("injection.not-run", None, ()),
                     ("drift.told", "D1", ()), ("drift.announced", "D1", ()), ("injection.stopped", "D1", ()),
                     ("incident.ticket-closed", "I2", ()), ("incident.excluded", "I2", ()),
                     ("incident.withdrawn", "I2", ()), ("incident.change-window-start", "I2", ()),
                     ("rollback.data-restore", "R2", ()), ("rollback.serving", "R2", ())]:
        assert expected in offered, expected
    assert not [s for s in checklist.next_steps([*events, {"seq": 7, "kind": "exercise.close", "id": "exercise",
                                                            "at": t(50), "data": {}}])]


def test_a_relapse_is_reopened_and_restored_again(run, journal, monkeypatch, pipe):
    """After a restore the menu offers the ticket's closure and the re-open (with its reason), not a
    second restore; after the re-open the restore is offered again."""
    monkeypatch.setattr("day60.cli.base._interactive", lambda: True)
    pipe.send_text(pick("new: incident the supplier detected") + "I7" + ENTER + iso(100) + ENTER + ENTER)
    pipe.send_text(pick("I7: restore confirmed") + iso(120) + ENTER + "canary" + ENTER)
    pipe.send_text(pick("I7: reopened") + iso(130) + ENTER + "errors came back" + ENTER)
    pipe.send_text(pick("I7: restore confirmed") + iso(150) + ENTER + "canary again" + ENTER + CTRL_C)
    r = run("live", journal)
    assert r.exit_code == 0, r.output
    assert kinds(journal) == [("incident.detected", "I7"), ("incident.restored", "I7"), ("incident.reopened", "I7"),
                              ("incident.restored", "I7")]
    restored = [e for e in jr.read(journal).events if e["kind"] == "incident.restored"]
    events = [{"seq": 1, "kind": "incident.detected", "id": "I7", "at": iso(100), "data": {"source": "organic"}},
              {"seq": 2, "kind": "incident.restored", "id": "I7", "at": iso(120), "data": {"check": "c"}}]
    offered = [s.kind for s in checklist.next_steps(events) if s.id == "I7"]
    assert offered == ["incident.ticket-closed", "incident.reopened"]
    assert restored[-1]["data"] == {"check": "canary again"}


def test_an_injection_that_could_not_be_made_safe_is_recorded_not_run_without_a_sign_off(run, journal,
                                                                                        monkeypatch, pipe):
    monkeypatch.setattr("day60.cli.base._interactive", lambda: True)
    pipe.send_text(pick("new: an injection that could not be made safe") + "D9" + ENTER + iso(5) + ENTER
                   + "no stop owner could be named" + ENTER + CTRL_C)
    r = run("live", journal)
    assert r.exit_code == 0, r.output
    assert kinds(journal) == [("injection.not-run", "D9")]
    assert jr.read(journal).events[0]["data"] == {"reason": "no stop owner could be named"}


def test_a_report_element_is_picked_from_the_list_with_its_period(run, journal, monkeypatch, pipe):
    monkeypatch.setattr("day60.cli.base._interactive", lambda: True)
    for month, minutes in (("2026-09", 10), ("2026-10", 20)):
        pipe.send_text(pick("new: monthly report received") + month + ENTER + iso(minutes) + ENTER)
    # Two reports: the period is asked (second choice); the element is "not applicable".
    pipe.send_text(pick("new: monthly report element") + pick("threshold-changes") + iso(30) + ENTER
                   + DOWN + ENTER + YES + YES + YES + "y")
    pipe.send_text(CTRL_C)
    r = run("live", journal)
    assert r.exit_code == 0, r.output
    element = jr.read(journal).events[-1]
    assert (element["kind"], element["id"]) == ("report.element", "threshold-changes")
    assert element["data"] == {"present": True, "covers_period": True, "supported": True, "not_applicable": True,
                               "period": "2026-10"}


def test_an_id_is_checked_at_its_prompt(run, journal, monkeypatch, pipe):
    monkeypatch.setattr("day60.cli.base._interactive", lambda: True)
    # An empty id, one with a zero-width space and a report id that is not a month stay at the prompt.
    pipe.send_text(pick("new: monthly report received") + ENTER + "2026\u200b-03" + ENTER + "\x7f" * 8
                   + "March" + ENTER + "\x7f" * 5 + "2026-03" + ENTER + iso(10) + ENTER + CTRL_C)
    r = run("live", journal)
    assert r.exit_code == 0, r.output
    assert kinds(journal) == [("report.received", "2026-03")]


def test_live_refuses_without_a_terminal(run, journal):
    before = journal.read_bytes()
    r = run("live", journal)
    assert r.exit_code == 2 and "day60 log" in r.stderr
    assert journal.read_bytes() == before


def test_an_injected_onset_without_a_held_file_is_refused_before_anything_is_asked(run, journal, monkeypatch,
                                                                                    pipe):
    monkeypatch.setattr("day60.cli.base._interactive", lambda: True)
    pipe.send_text("".join(k for _, k in sign_off("D1", 0)) + pick("D1: start the drift") + CTRL_C)
    r = run("live", journal)
    assert r.exit_code == 0, r.output
    assert "not recorded: held file: an injected onset is sealed into the runner's held file" in r.stdout
    assert kinds(journal) == [("safety.agreed", "D1")]


def test_live_stamps_the_moment_enter_is_pressed_not_when_the_prompt_appeared(run, journal, monkeypatch, pipe):
    """The auditor opens the "When?" prompt and waits for the moment: the stamp is that Enter,
    after the prompt was drawn by the auditor's wait and before the next question was drawn."""
    import threading

    import questionary

    monkeypatch.setattr("day60.cli.base._interactive", lambda: True)
    drawn: dict[str, float] = {}  # a prompt's first words -> when it was first drawn
    when_drawn = threading.Event()
    real_text = questionary.text

    def text(message: str, *args, **kwargs):
        question = real_text(message, *args, **kwargs)
        first_words = next((w for w in ("When did it happen", "affected class") if message.startswith(w)), None)

        def on_render(_app) -> None:
            drawn.setdefault(first_words, time.time())
            if first_words == "When did it happen":
                when_drawn.set()

        if first_words:
            question.application.after_render += on_render
        return question

    monkeypatch.setattr(questionary, "text", text)
    pipe.send_text("".join(k for _, k in sign_off("D1", 0)))
    pressed = []

    def auditor() -> None:
        if when_drawn.wait(60):  # the prompt is on the screen (however long live took to draw it)
            time.sleep(1.5)  # the auditor waits for the moment of the injection
            pressed.append(time.time())
        pipe.send_text(ENTER + "invoices" + ENTER + CTRL_C)  # Enter on "When?", the class, leave

    pipe.send_text(pick("D1: start the drift"))
    worker = threading.Thread(target=auditor)
    worker.start()
    held = journal.parent / "held.json"
    r = run("live", journal, "--held", held)
    worker.join()
    assert r.exit_code == 0, r.output
    assert pressed, "the When? prompt was never drawn"
    stamped = dt.datetime.fromisoformat(json.loads(held.read_text())["onsets"][0]["at"]).timestamp()
    assert stamped >= drawn["When did it happen"] + 1.4  # not the moment the prompt appeared
    assert pressed[0] - 0.05 <= stamped <= drawn["affected class"]  # the Enter, not a later moment
    assert "sealed: only" in r.stdout  # the runner sees the instant; the journal holds only the commitment


def test_a_gap_time_is_refused_at_the_prompt(run, tmp_path, monkeypatch, pipe):
    """London's 01:30 on 2026-03-29 does not exist: refused while the prompt stays open."""
    path = tmp_path / "ex.jsonl"
    assert run("new", path, "--partner", "A", "--supplier", "B", "--deployment", "C", "--tier", "T3", "-c",
               "uk-office", "--window-start", "2026-03-20T09:00", "--window-end", "2026-04-10T17:00", "--runner",
               "R", "--not-synthetic", "--announced").exit_code == 0
    monkeypatch.setattr("day60.cli.base._interactive", lambda: True)
    pipe.send_text(pick("new: incident notified by the partner") + "I1" + ENTER + "2026-03-29T01:30" + ENTER
                   + "\x7f" * 16 + "2026-03-29T03:30" + ENTER + ENTER + ENTER + CTRL_C)
    r = run("live", path)
    assert r.exit_code == 0, r.output
    assert [(e["kind"], e["at"]) for e in jr.read(path).events] == [("incident.partner-notice",
                                                                    "2026-03-29T03:30:00+01:00")]


# ----- day60 new ----------------------------------------------------------------------------


def test_new_checks_each_answer_as_typed_and_asks_the_optional_fields(run, tmp_path, monkeypatch, pipe):
    monkeypatch.setattr("day60.cli.base._interactive", lambda: True)
    path = tmp_path / "ex.jsonl"
    pipe.send_text("Acme" + ENTER + "Nimbus" + ENTER + "claims" + ENTER)
    pipe.send_text(DOWN * 3 + ENTER)  # tier T4
    pipe.send_text("atlantis" + ENTER + "\x7f" * 8 + "us-office" + ENTER)  # an unknown calendar stays asked
    pipe.send_text("2026-03-08T02:30" + ENTER + "\x7f" * 16 + "2026-03-02T09:00" + ENTER)  # a New York gap time
    pipe.send_text("2026-03-01T09:00" + ENTER + "\x7f" * 16 + "2026-03-13T17:00" + ENTER)  # an end before the start
    pipe.send_text("J. Auditor" + ENTER + ENTER + ENTER)  # not synthetic; unannounced (T4's default)
    pipe.send_text("Audit LLP" + ENTER + ENTER)  # an organisation, no conflict statement
    r = run("new", path)
    assert r.exit_code == 0, r.output
    h = jr.read_header(path)
    assert (h["tier"], h["calendar"]["timezone"], h["window"]["start"], h["window"]["end"]) == (
        "T4", "America/New_York", "2026-03-02T09:00:00-05:00", "2026-03-13T17:00:00-04:00")
    assert h["window_announced"] is False and h["synthetic"] is False
    assert h["runner_organisation"] == "Audit LLP" and h["conflict_statement"] is None


def test_new_shows_what_each_tier_demonstrates():
    from day60 import rubric

    for tid, tier in rubric.load().tiers.items():
        assert tier.name and tier.checks, tid


def test_new_takes_a_shipped_calendar_by_name_on_the_command_line(run, tmp_path):
    path = tmp_path / "ex.jsonl"
    r = run("new", path, "--partner", "A", "--supplier", "B", "--deployment", "C", "--tier", "T3", "-c",
            "india-delivery", "--window-start", "2026-03-02T09:00", "--window-end", "2026-03-13T17:30",
            "--runner", "R")
    assert r.exit_code == 0, r.output
    assert jr.read_header(path)["calendar"]["timezone"] == "Asia/Kolkata"
    r = run("new", tmp_path / "two.jsonl", "--partner", "A", "--supplier", "B", "--deployment", "C", "--tier",
            "T3", "-c", "atlantis", "--window-start", "2026-03-02T09:00", "--window-end", "2026-03-13T17:30",
            "--runner", "R")
    assert r.exit_code == 2 and "--calendar" in r.stderr and "uk-office" in r.stderr
    assert not (tmp_path / "two.jsonl").exists()


def test_new_stopped_at_a_prompt_writes_nothing(run, tmp_path, monkeypatch, pipe):
    monkeypatch.setattr("day60.cli.base._interactive", lambda: True)
    pipe.send_text("Acme" + ENTER + CTRL_C)
    r = run("new", tmp_path / "ex.jsonl")
    assert r.exit_code == 130
    assert not (tmp_path / "ex.jsonl").exists()


def test_warnings_name_the_future_the_window_and_the_sealed_onset_and_spare_what_belongs_outside():
    """Window 2026-03-02 09:00 to 2026-03-13 17:30 UTC; "now" 2026-03-05 12:00 UTC. A minute's
    slack is allowed before "in the future" (12:01:00 is not warned, 12:01:01 is)."""
    header = {"window": {"start": "2026-03-02T09:00:00+00:00", "end": "2026-03-13T17:30:00+00:00"}}
    now = dt.datetime(2026, 3, 5, 12, 0, tzinfo=UTC)
    at = lambda text: dt.datetime.fromisoformat(text + "+00:00")  # noqa: E731
    assert checklist.warnings(header, "drift.notice", "D1", at("2026-03-05T12:01:00"), now) == []
    [w] = checklist.warnings(header, "drift.notice", "D1", at("2026-03-05T12:01:01"), now)
    assert "is in the future" in w
    [w] = checklist.warnings(header, "incident.detected", "I1", at("2026-03-01T10:00:00"), now)
    assert "before the exercise window opens" in w
    for kind in ("safety.agreed", "injection.not-run"):
        assert checklist.warnings(header, kind, "D1", at("2026-02-27T10:00:00"), now) == []
    late = dt.datetime(2026, 3, 20, 10, tzinfo=UTC)
    for kind in ("exercise.close", "report.received", "report.element"):
        assert checklist.warnings(header, kind, "x", late, late) == []
    held = {"D1": "2026-03-04T09:00:00+00:00"}
    [w] = checklist.warnings(header, "drift.detected", "D1", at("2026-03-04T08:59:59"), now, held)
    assert "before the sealed onset of D1" in w
    assert checklist.warnings(header, "drift.detected", "D1", at("2026-03-04T09:00:00"), now, held) == []
    assert checklist.warnings(header, "drift.detected", "D1", at("2026-03-04T08:59:59"), now) == []  # not held

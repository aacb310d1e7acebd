"""The exercise journal: every command, every refusal, tamper evidence and crash safety."""

import datetime as dt
import json
import os
import signal
import stat
import subprocess
import sys
import textwrap
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from day60 import journal as jr
from day60.journal import verification
from day60.resources import example
from tests.budget import examples

UK = example("uk-office.toml")
SAFETY = ["--set", "agreement=SOW-7 annex B", "--set", "stop_owner=Kim Ode", "--set", "stop_condition=error rate > 5%",
          "--set", "rollback_owner=Lee Park", "--set", "no_live_personal_data=true"]
ONSET = ["--set", "affected_class=scanned invoices"]


@pytest.fixture
def journal(run, tmp_path):
    path = tmp_path / "ex.jsonl"
    r = run("new", path, "--partner", "Acme BPO", "--supplier", "Nimbus AI", "--deployment", "claims intake",
            "--tier", "T3", "-c", UK, "--window-start", "2026-03-02T09:00", "--window-end", "2026-03-13T17:30",
            "--runner", "J. Auditor")
    assert r.exit_code == 0, r.output
    return path


def unchanged(run, path, *args):
    """Run a command that must be refused: exit 2, one error line, file byte-for-byte the same."""
    before = path.read_bytes()
    r = run(*args)
    assert r.exit_code == 2, r.output
    assert r.stderr.count("\n") == 1 and r.stderr.startswith("error: ")
    assert path.read_bytes() == before
    return r.stderr


# ----- new -----------------------------------------------------------------------------------


def test_new_writes_a_self_contained_header(journal):
    header = json.loads(journal.read_text().splitlines()[0])
    assert header["tier"] == "T3"
    assert header["calendar"]["timezone"] == "Europe/London"  # the table itself, not a path
    assert header["calendar"]["hours"]["mon"] == ["09:00-17:30"]
    assert header["window"]["start"] == "2026-03-02T09:00:00+00:00"
    assert header["toolkit"]


def test_new_refuses_overwrite_and_missing_options(run, journal, tmp_path):
    unchanged(run, journal, "new", journal, "--partner", "x", "--supplier", "y", "--deployment", "z", "--tier", "T1",
              "-c", UK, "--window-start", "2026-03-02T09:00", "--window-end", "2026-03-03T09:00", "--runner", "r")
    r = run("new", tmp_path / "other.jsonl", "--partner", "x")
    assert r.exit_code == 2 and "--supplier" in r.stderr and "no terminal" in r.stderr
    assert not (tmp_path / "other.jsonl").exists()


def test_new_refuses_bad_tier_and_window(run, tmp_path):
    base = ["--partner", "x", "--supplier", "y", "--deployment", "z", "-c", UK, "--runner", "r"]
    r = run("new", tmp_path / "a.jsonl", *base, "--tier", "T9", "--window-start", "2026-03-02T09:00",
            "--window-end", "2026-03-03T09:00")
    assert r.exit_code == 2 and "--tier" in r.stderr
    r = run("new", tmp_path / "b.jsonl", *base, "--tier", "T1", "--window-start", "2026-03-03T09:00",
            "--window-end", "2026-03-02T09:00")
    assert r.exit_code == 2 and "--window-end" in r.stderr
    assert list(tmp_path.iterdir()) == []


# ----- log and its refusals -------------------------------------------------------------------


def test_log_appends_typed_data_and_chains(run, journal):
    assert run("log", journal, "safety.agreed", "--id", "I1", "--at", "2026-02-27T10:00", *SAFETY).exit_code == 0
    r = run("log", journal, "incident.detected", "--id", "I1", "--at", "2026-03-03T10:00", "--set", "severity=2")
    assert r.exit_code == 0, r.output
    lines = journal.read_text().splitlines()
    event = json.loads(lines[-1])
    assert event["data"] == {"severity": 2, "source": "exercise"}
    assert event["prev"] == jr.sha256_hex(lines[-2])
    assert event["by"] == "J. Auditor"


def test_log_records_an_instant_outside_the_window_and_says_so(run, journal):
    """The window runs 2 March 09:00 to 13 March 17:30 (London, GMT). A restore typed for 14 March
    10:00 is after it closes: 'log' has no one to ask, so it records the line (exit 0) and says
    on stderr what 'live' would have asked to confirm, with the way to put it right. A sign-off
    before the window is where it belongs, and a detection at the window's last instant is inside
    it: neither draws a warning."""
    assert run("log", journal, "safety.agreed", "--id", "I1", "--at", "2026-02-27T10:00", *SAFETY).stderr == ""
    r = run("log", journal, "incident.detected", "--id", "I1", "--at", "2026-03-13T17:30", "--set", "severity=2")
    assert r.exit_code == 0 and r.stderr == "", r.output
    r = run("log", journal, "incident.restored", "--id", "I1", "--at", "2026-03-14T10:00", "--set", "check=probe 7")
    assert r.exit_code == 0, r.output
    assert json.loads(journal.read_text().splitlines()[-1])["at"] == "2026-03-14T10:00:00+00:00"
    assert r.stderr.startswith("warning: 2026-03-14T10:00:00+00:00 is after the exercise window closes "
                               "(2026-03-02T09:00+00:00 to 2026-03-13T17:30+00:00)"), r.stderr
    assert "day60 correct" in r.stderr and r.stderr.count("\n") == 1


def test_a_warning_never_shows_an_instant_outside_the_window_as_if_it_were_its_edge(run, tmp_path, journal):
    """Window 2026-03-02 09:00:00.5 to 2026-03-13 17:30:00.5 UTC. 09:00:00.499999 is one
    microsecond before the window opens, and 17:30:00.500001 one after it
    closes; shown to the second both read as the edge itself ("09:00:00 is before the window
    opens (09:00 ...)"), a line a reader takes for a fault of the tool. The instant is shown to
    the microsecond when the second would mislead, and the window as it was set. The edges
    themselves are inside, and draw no warning; in a window set to the minute, an instant well
    outside it is shown to the second."""
    path = tmp_path / "fine.jsonl"
    assert run("new", path, "--partner", "Acme BPO", "--supplier", "Nimbus AI", "--deployment", "claims intake",
               "--tier", "T3", "-c", UK, "--window-start", "2026-03-02T09:00:00.5", "--window-end",
               "2026-03-13T17:30:00.5", "--runner", "J. Auditor").exit_code == 0
    for at in ("2026-03-02T09:00:00.5", "2026-03-13T17:30:00.5"):
        r = run("log", path, "drift.false-alert", "--id", f"F{at[8:10]}", "--at", at)
        assert r.exit_code == 0 and r.stderr == "", r.output
    r = run("log", path, "drift.false-alert", "--id", "F1", "--at", "2026-03-02T09:00:00.499999")
    assert r.exit_code == 0
    assert r.stderr.startswith("warning: 2026-03-02T09:00:00.499999+00:00 is before the exercise window opens "
                               "(2026-03-02T09:00:00.500000+00:00 to 2026-03-13T17:30:00.500000+00:00)"), r.stderr
    r = run("log", path, "drift.false-alert", "--id", "F2", "--at", "2026-03-13T17:30:00.500001")
    assert r.stderr.startswith("warning: 2026-03-13T17:30:00.500001+00:00 is after the exercise window closes"), \
        r.stderr
    r = run("log", journal, "drift.false-alert", "--id", "F3", "--at", "2026-03-13T17:31:00.25")
    assert r.stderr.startswith("warning: 2026-03-13T17:31:00+00:00 is after the exercise window closes "
                               "(2026-03-02T09:00+00:00 to 2026-03-13T17:30+00:00)"), r.stderr


def test_log_of_a_sealed_onset_never_prints_its_instant(run, journal, tmp_path):
    """'log --seal' prints "at sealed": the instant goes to the held file alone, since the
    journal, and often a script's log, is read by the team being measured. A warning that named
    the instant (an onset typed after the window) put it on stderr beside that log. The warning
    says what is wrong without the instant, and that a sealed onset is revealed before it is
    corrected."""
    assert run("log", journal, "safety.agreed", "--id", "D1", "--at", "2026-02-27T10:00", *SAFETY).exit_code == 0
    r = run("log", journal, "drift.onset", "--id", "D1", "--at", "2026-03-14T10:07:13", *ONSET,
            "--seal", tmp_path / "held.json")
    assert r.exit_code == 0, r.output
    assert r.stdout.strip() == "seq 2: drift.onset D1 at sealed"
    assert "10:07" not in r.stderr and "2026-03-14" not in r.stderr, r.stderr
    assert r.stderr.startswith("warning: the sealed instant is after the exercise window closes "
                               "(2026-03-02T09:00+00:00 to 2026-03-13T17:30+00:00)"), r.stderr
    assert "day60 reveal" in r.stderr and r.stderr.count("\n") == 1


@pytest.mark.parametrize("kind, sets", [
    ("dispute", ["--set", "line=lead-time", "--set", "reason=alert was sent"]),  # who raised it: the actor
    ("correction", ["--set", "target=1", "--set", "at=2026-02-27T09:00+00:00", "--set", "reason=typed the wrong hour"]),
])
def test_lines_that_belong_after_the_exercise_draw_no_window_warning(run, journal, kind, sets):
    """A dispute is raised, and a correction written, after the exercise as often as not: the
    instant of such a line is when it was written, not a moment of the exercise, so 'after the
    window closes' is no warning for it (as for the close and the report)."""
    assert run("log", journal, "safety.agreed", "--id", "D1", "--at", "2026-02-27T10:00", *SAFETY).exit_code == 0
    r = run("log", journal, kind, "--id", "1" if kind == "correction" else "lead-time", "--at", "now", *sets)
    assert r.exit_code == 0, r.output
    assert r.stderr == "", r.stderr


def test_local_time_is_read_in_the_exercise_timezone(run, journal):
    run("log", journal, "report.received", "--id", "2026-06", "--at", "2026-07-03T10:00")
    event = json.loads(journal.read_text().splitlines()[-1])
    assert event["at"] == "2026-07-03T10:00:00+01:00"  # BST in July


def test_now_is_stamped(run, journal):
    before = time.time()
    run("log", journal, "report.received", "--id", "2026-02", "--at", "now")
    event = json.loads(journal.read_text().splitlines()[-1])
    from datetime import datetime

    assert before - 1 <= datetime.fromisoformat(event["at"]).timestamp() <= time.time() + 1


@pytest.mark.parametrize(
    ("args", "field"),
    [
        (["drift.onset", "--id", "D1", "--at", "2026-03-02T09:00"], "id"),  # no safety sign-off
        (["incident.detected", "--id", "I9", "--at", "2026-03-02T09:00", "--set", "severity=2"], "id"),
        (["drift.notice", "--id", "D1", "--at", "2026-03-29T01:30", "--set", "affected_class=a",
          "--set", "evidence=e"], "--at"),  # spring gap
        (["drift.notice", "--id", "D1", "--at", "2026-10-25T01:30", "--set", "affected_class=a",
          "--set", "evidence=e"], "--at"),  # autumn repeat
        (["drift.notice", "--id", "D1", "--at", "yesterday"], "--at"),
        (["drift.wobble", "--id", "D1", "--at", "2026-03-02T09:00"], "KIND"),
        (["drift.notice", "--id", "D1", "--at", "2026-03-02T09:00"], "--set affected_class, --set evidence"),
        (["incident.detected", "--id", "I1", "--at", "2026-03-02T09:00", "--set", "severity=5"], "--set severity"),
        (["incident.restored", "--id", "I1", "--at", "2026-03-02T09:00", "--set", "check=probe"], "id"),
        (["incident.wait-end", "--id", "Z", "--at", "2026-03-02T09:00"], "id"),
        (["report.received", "--id", "bad\x07id", "--at", "2026-03-02T09:00"], "--id"),
        (["report.element", "--id", "e", "--at", "2026-03-02T09:00", "--set", "present=maybe",
          "--set", "covers_period=yes", "--set", "supported=yes"], "--set present"),
        (["report.received", "--id", "2026-03", "--at", "2026-03-02T09:00", "--set", "colour=red"], "--set colour"),
        (["report.received", "--id", "2026-03", "--at", "2026-03-02T09:00", "--set", "novalue"], "--set[0]"),
    ],
)
def test_log_refusals_write_nothing(run, journal, args, field):
    err = unchanged(run, journal, "log", journal, *args)
    assert err.startswith(f"error: {field}:"), err


def test_safety_refusal_cites_the_charter(run, journal):
    err = unchanged(run, journal, "log", journal, "drift.onset", "--id", "D1", "--at", "2026-03-02T09:00")
    assert "4.5.1" in err and "safety.agreed" in err and "not exercised" in err


def test_ordering_rules_of_fact(run, journal):
    ok = lambda *a: run("log", journal, *a).exit_code == 0  # noqa: E731
    assert ok("safety.agreed", "--id", "D1", "--at", "2026-02-27T10:00", *SAFETY)
    held = journal.parent / "held.json"
    assert ok("drift.onset", "--id", "D1", "--at", "2026-03-03T09:00", *ONSET, "--seal", held)
    unchanged(run, journal, "log", journal, "drift.onset", "--id", "D1", "--at", "2026-03-04T09:00", *ONSET,
              "--seal", held)  # second onset
    assert ok("drift.onset", "--id", "D9", "--at", "2026-03-03T09:00", "--set", "source=organic")
    unchanged(run, journal, "log", journal, "drift.notice", "--id", "D9", "--at", "2026-03-02T09:00",
              "--set", "affected_class=a", "--set", "evidence=e")  # before a (clear) onset
    assert ok("safety.agreed", "--id", "I1", "--at", "2026-02-27T10:00", *SAFETY)
    assert ok("incident.detected", "--id", "I1", "--at", "2026-03-04T10:00", "--set", "severity=1")
    unchanged(run, journal, "log", journal, "incident.restored", "--id", "I1", "--at", "2026-03-04T09:00",
              "--set", "check=probe")  # before detection
    unchanged(run, journal, "log", journal, "incident.wait-end", "--id", "I1", "--at", "2026-03-04T11:00")
    assert ok("incident.wait-start", "--id", "I1", "--at", "2026-03-04T11:00")
    unchanged(run, journal, "log", journal, "incident.wait-start", "--id", "I1", "--at", "2026-03-04T11:30")
    unchanged(run, journal, "log", journal, "incident.wait-end", "--id", "I1", "--at", "2026-03-04T10:30")
    assert ok("incident.wait-end", "--id", "I1", "--at", "2026-03-04T12:00")
    unchanged(run, journal, "log", journal, "rollback.decision", "--id", "R1", "--at", "2026-03-05T10:00")
    assert ok("exercise.close", "--id", "exercise", "--at", "2026-03-13T17:30")
    unchanged(run, journal, "log", journal, "incident.restored", "--id", "I1", "--at", "2026-03-13T18:00",
              "--set", "check=probe")  # after close


def test_rehearsal_rollback_needs_no_sign_off(run, journal):
    r = run("log", journal, "rollback.criterion-met", "--id", "R1", "--at", "2026-03-05T10:00", "--set",
            "kind=rehearsal")
    assert r.exit_code == 0
    unchanged(run, journal, "log", journal, "rollback.criterion-met", "--id", "R2", "--at", "2026-03-05T10:00",
              "--set", "kind=production")


# ----- corrections, show, schema ---------------------------------------------------------------


def test_correction_keeps_the_original_and_show_marks_it(run, journal):
    run("log", journal, "report.received", "--id", "2026-02", "--at", "2026-03-06T10:00")
    original = journal.read_text().splitlines()[1]
    r = run("correct", journal, "--seq", "1", "--at", "2026-03-05T16:00", "--reason", "typed the wrong day")
    assert r.exit_code == 0, r.output
    assert journal.read_text().splitlines()[1] == original
    shown = json.loads(run("show", journal, "--format", "json").stdout)["timeline"]
    assert shown[0]["at"] == "2026-03-05T16:00:00+00:00"
    # the mark is a sentence for a person: the earlier instant in the exercise's zone (UTC here)
    assert "was 2026-03-06 10:00 +00:00" in shown[0]["mark"] and "typed the wrong day" in shown[0]["mark"]
    table = run("show", journal).stdout
    assert "corrected by seq 2" in table


def test_correction_refusals(run, journal):
    run("log", journal, "report.received", "--id", "2026-02", "--at", "2026-03-06T10:00")
    unchanged(run, journal, "correct", journal, "--seq", "7", "--at", "2026-03-05T16:00", "--reason", "x")
    unchanged(run, journal, "correct", journal, "--seq", "1", "--at", "2026-03-05T16:00", "--reason", " ")


def test_schema_lists_every_kind(run):
    listed = run("schema")
    assert listed.exit_code == 0 and "drift.notice" in listed.stdout and len(listed.stdout) < 2000
    data = json.loads(run("schema", "all").stdout)
    assert "header" in data and "drift.notice" in data and "correction" in data
    one = json.loads(run("schema", "incident.detected").stdout)
    assert one["properties"]["kind"]["const"] == "incident.detected"
    assert run("schema", "nope").exit_code == 2


# ----- sealing -------------------------------------------------------------------------------


def test_sealed_onset_holds_only_a_commitment_until_revealed(run, journal, tmp_path):
    held = tmp_path / "held.json"
    run("log", journal, "safety.agreed", "--id", "D1", "--at", "2026-02-27T10:00", *SAFETY)
    r = run("log", journal, "drift.onset", "--id", "D1", "--at", "2026-03-03T09:17", *ONSET, "--seal", held)
    assert r.exit_code == 0, r.output
    text = journal.read_text()
    assert "09:17" not in text and "2026-03-03" not in text
    assert stat.S_IMODE(os.stat(held).st_mode) == 0o600
    assert json.loads(held.read_text())["onsets"][0]["at"] == "2026-03-03T09:17:00+00:00"
    assert "sealed" in run("verify", journal).stdout
    r = run("reveal", journal, "--held", held)
    assert r.exit_code == 0 and "revealed 1" in r.stdout
    timeline = json.loads(run("show", journal, "--format", "json").stdout)["timeline"]
    assert [e["at"] for e in timeline if e["kind"] == "drift.onset"] == ["2026-03-03T09:17:00+00:00"]
    assert run("verify", journal).exit_code == 0


def test_reveal_with_a_forged_instant_is_refused(run, journal, tmp_path):
    held = tmp_path / "held.json"
    run("log", journal, "safety.agreed", "--id", "D1", "--at", "2026-02-27T10:00", *SAFETY)
    run("log", journal, "drift.onset", "--id", "D1", "--at", "2026-03-03T09:17", *ONSET, "--seal", held)
    data = json.loads(held.read_text())
    data["onsets"][0]["at"] = "2026-03-03T08:00:00+00:00"
    held.write_text(json.dumps(data))
    err = unchanged(run, journal, "reveal", journal, "--held", held)
    assert "does not open its commitment" in err


def test_a_typed_commitment_or_press_time_is_refused(run, journal, tmp_path):
    """'log --set commitment=<64 hex>' was taken: with --seal the typed value was silently replaced
    by the real one, and without it an organic onset carried both its instant and a commitment, a
    line that looks sealed to a reader of the file. pressed_at is the web checklist's own record of
    a late press. Both are written by the toolkit only: refused, naming each, nothing written."""
    run("log", journal, "safety.agreed", "--id", "D1", "--at", "2026-02-27T10:00", *SAFETY)
    forged = "--set", "commitment=" + "a" * 64
    for extra in ((*forged, "--seal", tmp_path / "held.json"), (*forged, "--set", "source=organic"),
                  ("--set", "pressed_at=2026-03-03T09:00:00+00:00", *forged)):
        err = unchanged(run, journal, "log", journal, "drift.onset", "--id", "D1", "--at", "2026-03-03T09:17",
                        *ONSET, *extra)
        assert "--set commitment" in err and "written by the toolkit" in err
    assert "--set pressed_at" in err
    assert not (tmp_path / "held.json").exists()


def test_seal_only_for_onsets(run, journal, tmp_path):
    unchanged(run, journal, "log", journal, "report.received", "--id", "2026-02", "--at", "2026-03-02T10:00",
              "--seal", tmp_path / "h.json")
    assert not (tmp_path / "h.json").exists()


# ----- verify, tampering, partial lines, crashes, concurrency ---------------------------------


def _filled(run, journal):
    run("log", journal, "safety.agreed", "--id", "I1", "--at", "2026-02-27T10:00", *SAFETY)
    run("log", journal, "incident.detected", "--id", "I1", "--at", "2026-03-03T10:00", "--set", "severity=2")
    run("log", journal, "incident.restored", "--id", "I1", "--at", "2026-03-03T12:00", "--set", "check=probe")
    return journal.read_bytes()


def test_verify_ok_and_names_the_first_bad_line(run, journal):
    _filled(run, journal)
    assert run("verify", journal).exit_code == 0
    lines = journal.read_text().splitlines(keepends=True)
    lines[2] = lines[2].replace('"severity":2', '"severity":1')
    journal.write_text("".join(lines))
    r = run("verify", journal)
    assert r.exit_code == 1 and "line 3" in r.stderr
    r = run("show", journal)  # figures are never read from a damaged journal: bad input, named
    assert r.exit_code == 2 and "line 3" in r.stderr


def test_verify_catches_removed_and_reordered_lines(run, journal):
    _filled(run, journal)
    lines = journal.read_text().splitlines(keepends=True)
    journal.write_text("".join([lines[0], lines[1], lines[3]]))
    assert "line 3" in run("verify", journal).stderr
    journal.write_text("".join([lines[0], lines[2], lines[1], lines[3]]))
    assert "line 2" in run("verify", journal).stderr


def _valid_journal_bytes(tmp_path_factory):
    from typer.testing import CliRunner

    from day60.cli import app

    path = tmp_path_factory.mktemp("mut") / "ex.jsonl"
    r = CliRunner()
    r.invoke(app, ["new", str(path), "--partner", "A", "--supplier", "S", "--deployment", "D", "--tier", "T3",
                   "-c", str(UK), "--window-start", "2026-03-02T09:00", "--window-end", "2026-03-13T17:30",
                   "--runner", "R"])
    r.invoke(app, ["log", str(path), "safety.agreed", "--id", "I1", "--at", "2026-02-27T10:00", *SAFETY])
    r.invoke(app, ["log", str(path), "incident.detected", "--id", "I1", "--at", "2026-03-03T10:00",
                   "--set", "severity=2"])
    return path.read_bytes()


@pytest.fixture(scope="module")
def valid_bytes(tmp_path_factory):
    return _valid_journal_bytes(tmp_path_factory)


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_any_single_byte_change_fails_verify(valid_bytes, tmp_path, data):
    pos = data.draw(st.integers(0, len(valid_bytes) - 1))
    new = data.draw(st.integers(0, 255).filter(lambda b: b != valid_bytes[pos]))
    mutated = valid_bytes[:pos] + bytes([new]) + valid_bytes[pos + 1:]
    path = tmp_path / "m.jsonl"
    path.write_bytes(mutated)
    try:
        report = jr.verify(path)
    except Exception as exc:  # a refusal to read at all also counts as caught
        assert "Traceback" not in str(exc)
        return
    assert not report.ok


def test_partial_last_line_reads_refuses_append_and_repairs(run, journal):
    good = _filled(run, journal)
    with journal.open("ab") as fh:
        fh.write(b'{"seq":4,"kind":"incident.comm')
    r = run("verify", journal)
    assert r.exit_code == 1 and "partial" in r.stderr
    assert run("show", journal).exit_code == 0  # everything before it is used
    err = unchanged(run, journal, "log", journal, "exercise.close", "--id", "x", "--at", "2026-03-13T17:30")
    assert "--repair" in err
    r = run("verify", "--repair", journal)
    assert r.exit_code == 0, r.output
    assert journal.read_bytes() == good
    assert journal.with_name("ex.jsonl.partial").read_bytes().startswith(b'{"seq":4')


WRITER = textwrap.dedent("""
    import sys, datetime as dt
    from day60 import journal as jr
    path, tag, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    for i in range(n):
        jr.append(path, "drift.false-alert", f"{tag}-{i}", dt.datetime(2026, 3, 2, 10, tzinfo=dt.UTC))
""")


def test_killed_writer_loses_nothing_already_written(journal):
    proc = subprocess.Popen([sys.executable, "-c", WRITER, str(journal), "k", "100000"])
    deadline = time.time() + 30
    while journal.read_text().count("\n") < 30 and time.time() < deadline:
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    j = jr.read(journal)  # reads, chain intact; at most one partial last line aside
    assert len(j.events) >= 29
    assert [e["id"] for e in j.events] == [f"k-{i}" for i in range(len(j.events))]
    if j.partial is not None:
        jr.repair(journal)
    assert jr.verify(journal).ok


def test_two_writers_at_once_never_interleave(journal):
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(journal), tag, "40"]) for tag in ("a", "b")]
    for p in procs:
        assert p.wait(timeout=120) == 0
    report = jr.verify(journal)
    assert report.ok and report.events == 80


def test_verify_in_two_processes_finds_what_one_finds(tmp_path, monkeypatch):
    """A large journal is checked in two halves at once; whatever the damage and wherever it falls
    (either half, the line at the cut, a partial last line), the verdict is the single pass's."""
    from tests.builders import make_journal

    events = []
    for k in range(40):
        events += [("incident.detected", f"i{k}", f"2026-03-0{2 + k % 5}T10:{k:02d}", {"severity": 2,
                                                                                     "source": "organic"}),
                   ("incident.restored", f"i{k}", f"2026-03-0{2 + k % 5}T11:{k:02d}", {"check": "canary"})]
    path = make_journal(tmp_path / "j.jsonl", events, tier="T2")
    jr.correct(path, 3, dt.datetime.fromisoformat("2026-03-02T10:01+00:00"), "typo")
    lines = path.read_bytes().split(b"\n")

    def verdicts(data: bytes) -> tuple:
        path.write_bytes(data)
        monkeypatch.setattr(verification, "_PARALLEL_BYTES", 10**12)
        one = jr.verify(path)
        monkeypatch.setattr(verification, "_PARALLEL_BYTES", 1)
        two = jr.verify(path)
        return ((one.problem, one.partial, one.events, one.head, one.corrections),
                (two.problem, two.partial, two.events, two.head, two.corrections))

    middle = len(lines) // 2
    cases = {"intact": lines,
             "early edit": [*lines[:5], lines[5].replace(b"canary", b"CANARY"), *lines[6:]],
             "late edit": [*lines[:-5], lines[-5].replace(b"canary", b"CANARY"), *lines[-4:]],
             "line removed at the middle": lines[:middle] + lines[middle + 1:],
             "partial last line": [*lines[:-1], b'{"seq":'],
             "not UTF-8 late": [*lines[:-4], b"\xff\xfe", *lines[-3:]]}
    for name, parts in cases.items():
        one, two = verdicts(b"\n".join(parts))
        assert one == two, name
    assert verdicts(b"\n".join(lines))[0][0] is None and verdicts(b"\n".join(cases["late edit"]))[0][0]

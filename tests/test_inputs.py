"""Every input answered: nothing overwritten, no tracebacks, every refusal one clear line (exit 2).

One explicit test (or parametrized row) for each class of input that once crashed or harmed a
file; tests/test_fuzz.py then throws generated inputs at the same commands.
"""

import datetime as dt
import hashlib
import json
import os
import shutil
import subprocess
import sys
import textwrap

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from day60 import demo
from day60 import journal as jr
from day60.journal import lock
from day60.resources import data_dir, example
from tests.budget import examples

UK = example("uk-office.toml")
SOW = data_dir("clauses") / "examples" / "synthetic-sow.toml"
ANSWERS = data_dir("selfassess") / "examples" / "synthetic-answers.json"
SUITE = data_dir("rubric") / "voice" / "voice_starter.json"
DRILLS = data_dir("rubric") / "voice" / "examples" / "synthetic-drills.json"
SAFETY = ["--set", "agreement=SOW-7 annex B", "--set", "stop_owner=Kim Ode", "--set", "stop_condition=error rate > 5%",
          "--set", "rollback_owner=Lee Park", "--set", "no_live_personal_data=true"]


def refused(r, *needles: str) -> str:
    """Exit 2, exactly one stderr line starting 'error: ', no traceback, each needle in it."""
    assert r.exit_code == 2, (r.exit_code, r.output)
    assert r.stderr.count("\n") == 1 and r.stderr.startswith("error: "), r.stderr
    assert "Traceback" not in r.output and "internal fault" not in r.stderr, r.stderr
    for needle in needles:
        assert needle in r.stderr, (needle, r.stderr)
    return r.stderr


def digest(path) -> str:
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


@pytest.fixture
def ex(tmp_path):
    """The demo's synthetic exercise (SYNTHETIC data), a fresh copy per test."""
    path = tmp_path / "exercise.jsonl"
    demo.build_journal(path)
    return path


@pytest.fixture
def empty(run, tmp_path):
    path = tmp_path / "ex.jsonl"
    r = run("new", path, "--partner", "Acme", "--supplier", "Nimbus", "--deployment", "claims", "--tier", "T3",
            "-c", UK, "--window-start", "2026-03-02T09:00", "--window-end", "2026-03-13T17:30", "--runner", "J. A.")
    assert r.exit_code == 0, r.output
    return path


def rechain(lines: list[dict]) -> str:
    """Lines re-hashed and re-chained as a forger would, so only content checks can catch them."""
    out, prev = [], None
    for i, obj in enumerate(lines):
        if i:
            obj = {**obj, "prev": hashlib.sha256(prev.encode()).hexdigest()}
        obj = jr.with_hash(obj)
        prev = jr.canonical(obj)
        out.append(prev)
    return "\n".join(out) + "\n"


def forged(path, edit) -> None:
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    edit(lines)
    path.write_text(rechain(lines))


# ----- data loss and poisoning -----------------------------------------------------------------


def copies(tmp_path):
    out = {}
    for name, src in (("sow", SOW), ("answers", ANSWERS), ("suite", SUITE), ("drills", DRILLS)):
        out[name] = tmp_path / src.name
        shutil.copy(src, out[name])
    out["submission"] = tmp_path / "submission.json"
    suite = json.loads(SUITE.read_text())
    out["submission"].write_text(json.dumps({t["id"]: t["reference_dialogue"] for t in suite["tasks"]}))
    return out


def test_no_output_may_overwrite_an_input(run, ex, tmp_path):
    f = copies(tmp_path)
    cases = [
        (["score", ex, "--html", ex], ex), (["score", ex, "--pdf", ex], ex),
        (["score", ex, "--sow", f["sow"], "--pdf", f["sow"]], f["sow"]),
        (["clauses", "export", "--sow", f["sow"], "--md", f["sow"]], f["sow"]),
        (["clauses", "export", "--sow", f["sow"], "--pdf", f["sow"]], f["sow"]),
        (["selfassess", "--answers", f["answers"], "--pdf", f["answers"]], f["answers"]),
        (["selfassess", "--answers", f["answers"], "--html", f["answers"]], f["answers"]),
        (["voice", "bench", f["suite"], "--reference", "--out", f["suite"]], f["suite"]),
        (["voice", "bench", f["suite"], "--submission", f["submission"], "--out", f["submission"]], f["submission"]),
        (["voice", "drills", f["drills"], "--pdf", f["drills"]], f["drills"]),
    ]
    for args, victim in cases:
        before = digest(victim)
        refused(run(*args), "is also the input")
        assert digest(victim) == before, args


def test_a_journal_is_never_written_over_even_when_it_is_not_an_input(run, ex, tmp_path):
    other = tmp_path / "other.jsonl"
    shutil.copy(ex, other)
    before = digest(other)
    refused(run("score", ex, "--html", other), "never overwritten")
    refused(run("clauses", "export", "--sow", SOW, "--md", other), "never overwritten")
    assert digest(other) == before


def test_a_symlink_to_an_input_is_the_input(run, ex, tmp_path):
    link = tmp_path / "link.pdf"
    link.symlink_to(ex)
    before = digest(ex)
    refused(run("score", ex, "--pdf", link), "is also the input JOURNAL")
    assert digest(ex) == before


@pytest.mark.parametrize("at", ["0001-01-01T00:00+14:00", "1969-12-31T23:59+00:00", "2200-01-01T00:00+00:00",
                                "9999-12-31T23:59"])
def test_instants_outside_1970_2200_are_refused_at_the_door(run, empty, at):
    before = empty.read_bytes()
    refused(run("log", empty, "report.received", "--id", "2026-03", "--at", at), "--at", "1970")
    assert empty.read_bytes() == before


def test_window_and_corrections_outside_the_range_are_refused(run, tmp_path, empty):
    refused(run("new", tmp_path / "n.jsonl", "--partner", "a", "--supplier", "b", "--deployment", "c", "--tier", "T3",
                "-c", UK, "--window-start", "2026-03-02T09:00", "--window-end", "9999-12-31T23:59", "--runner", "r"),
            "--window-end")
    assert not (tmp_path / "n.jsonl").exists()
    run("log", empty, "report.received", "--id", "2026-03", "--at", "2026-03-04T10:00")
    before = empty.read_bytes()
    refused(run("correct", empty, "--seq", "1", "--at", "0001-01-01T00:00+00:00", "--reason", "typo"), "--at")
    assert empty.read_bytes() == before


def test_a_journal_holding_a_year_one_instant_is_refused_on_reading(run, empty):
    run("log", empty, "report.received", "--id", "2026-03", "--at", "2026-03-04T10:00")
    forged(empty, lambda lines: lines[1].update(at="0001-01-01T00:00:00+14:00"))
    for command in ("show", "metrics", "score"):
        refused(run(command, empty), "line 2", "1970")


def test_a_crash_between_held_file_and_journal_leaves_reveal_working(run, empty, tmp_path, monkeypatch):
    """The held file is written first; a crash before the journal line leaves a stray entry that
    reveal reports and skips, while the onsets the journal did receive still open."""
    held = tmp_path / "held.json"
    for ident in ("D1", "D2"):
        run("log", empty, "safety.agreed", "--id", ident, "--at", "2026-02-27T10:00", *SAFETY)

    def crash(*args, **kwargs):
        raise KeyboardInterrupt  # the process dies after the held file, before the journal line

    monkeypatch.setattr(lock, "write_line", crash)
    with pytest.raises(KeyboardInterrupt):
        jr.append(empty, "drift.onset", "D1", dt.datetime(2026, 3, 3, 9, 0, tzinfo=dt.UTC),
                  {"affected_class": "invoices"}, seal=held)
    monkeypatch.undo()
    assert len(json.loads(held.read_text())["onsets"]) == 1  # the instant was kept
    r = run("log", empty, "drift.onset", "--id", "D2", "--at", "2026-03-03T10:00", "--set", "affected_class=x",
            "--seal", held)
    assert r.exit_code == 0, r.output  # takes the seq the crashed onset would have had
    r = run("reveal", empty, "--held", held)
    assert r.exit_code == 0, r.output
    assert "revealed 1 sealed onset" in r.stdout and "D1" in r.stderr and "never written" in r.stderr
    assert run("verify", empty).exit_code == 0
    shown = json.loads(run("show", empty, "--format", "json").stdout)["timeline"]
    onset = next(row for row in shown if row["kind"] == "drift.onset")
    assert onset["id"] == "D2" and onset["at"].startswith("2026-03-03T10:00")


def test_a_mid_exercise_journal_with_an_unclassified_open_incident_scores_and_complies(run, empty):
    """A restored severity-2 incident and an open one the partner reported without a severity:
    the open one is held to severity 1's target, never dropped. Before the close it may yet be
    restored, so comply's severity 1 clause is neither met nor broken: not run, naming it."""
    run("log", empty, "incident.detected", "--id", "I1", "--at", "2026-03-03T10:00", "--set", "severity=2",
        "--set", "source=organic")
    run("log", empty, "incident.restored", "--id", "I1", "--at", "2026-03-03T12:00", "--set", "check=probe")
    run("log", empty, "incident.partner-notice", "--id", "I2", "--at", "2026-03-04T10:00")
    r = run("score", empty, "--format", "json")
    assert r.exit_code == 0, r.output
    restore = next(line for line in json.loads(r.stdout)["lines"] if line["id"] == "restore")
    ids = {o["id"]: o for o in restore["figure"]["observations"]}
    assert set(ids) == {"I1", "I2"} and ids["I2"]["value"] is None and ids["I2"]["severity"] == 1
    r = run("comply", empty, "--sow", SOW, "--format", "json", "--parties-differ")
    assert r.exit_code == 0  # nothing is broken yet: I1's 2 h is within the deal's 8 h
    sev1 = next(row for row in json.loads(r.stdout)["checks"] if row["check"] == "restore-sev1")
    assert sev1["status"] == "not run" and "1 incident(s) with no severity still open so far" in sev1["reason"]
    run("log", empty, "exercise.close", "--id", "close", "--at", "2026-03-13T17:30")
    sev1 = next(row for row in json.loads(run("comply", empty, "--sow", SOW, "--format", "json",
                                              "--parties-differ").stdout)["checks"] if row["check"] == "restore-sev1")
    assert sev1["status"] == "not met" and "no severity" in sev1["reason"]  # open at the close: a breach


# ----- reading validates every line -----------------------------------------------------------


@pytest.mark.parametrize("edit, needle", [
    (lambda lines: lines[0]["calendar"].update(timezone=None), "line 1"),
    (lambda lines: lines[1].update(kind=None), "line 2"),
    (lambda lines: lines[1].update(at=None), "line 2"),
    (lambda lines: lines[1].update(at="2026-03-04T10:00:00+00:00" + "0" * 100_000), "line 2"),
    (lambda lines: lines[1].update(seq=10**30), "line 2"),
])
def test_reading_refuses_a_rechained_journal_with_bad_fields(run, empty, edit, needle):
    run("log", empty, "report.received", "--id", "2026-03", "--at", "2026-03-04T10:00")
    forged(empty, edit)
    for command in ("show", "metrics", "score", "log"):
        extra = ["report.received", "--id", "2026-04", "--at", "2026-04-04T10:00"] if command == "log" else []
        refused(run(command, empty, *extra), needle)
    assert run("verify", empty).exit_code == 1


def test_reading_applies_the_rules_of_fact_as_verify_does(run, empty, tmp_path):
    """A notice moved before its onset (re-chained so the hashes hold) would give a negative lead
    time; it is refused on reading, naming the line, as verify refuses it."""
    run("log", empty, "drift.onset", "--id", "D1", "--at", "2026-03-03T10:00", "--set", "source=organic")
    run("log", empty, "drift.notice", "--id", "D1", "--at", "2026-03-04T10:00", "--set", "affected_class=a",
        "--set", "evidence=e")
    forged(empty, lambda lines: lines[2].update(at="2026-03-03T02:10:00+00:00"))
    refused(run("metrics", empty), "line 3", "before its onset")
    refused(run("score", empty), "line 3")
    r = run("verify", empty)
    assert r.exit_code == 1 and "line 3" in r.stderr


def test_a_reveal_of_an_unsealed_onset_is_refused_on_reading(run, empty):
    run("log", empty, "drift.onset", "--id", "D1", "--at", "2026-03-03T10:00", "--set", "source=organic")
    forged(empty, lambda lines: lines.append({"seq": 2, "kind": "reveal", "id": "D1", "at": lines[1]["at"],
                                              "recorded_at": lines[1]["at"], "by": "x", "data": {
                                                  "target": 1, "at": lines[1]["at"], "salt": "0" * 32},
                                              "prev": "", "hash": ""}))
    refused(run("score", empty), "line 3", "not a sealed onset")


def test_damaged_journals_are_bad_input_and_a_broken_utf8_byte_names_its_line(run, empty, tmp_path):
    run("log", empty, "report.received", "--id", "2026-03", "--at", "2026-03-04T10:00")
    raw = bytearray(empty.read_bytes())
    raw[raw.rindex(b"2026-03")] = 0xFF
    empty.write_bytes(bytes(raw))
    refused(run("score", empty), "line 2", "UTF-8")
    r = run("verify", empty)
    assert r.exit_code == 1 and "line 2" in r.stderr
    junk = tmp_path / "junk.jsonl"
    junk.write_text("this is not a journal\n")
    refused(run("score", junk), "JOURNAL")
    refused(run("metrics", junk), "JOURNAL")


# ----- numbers -----------------------------------------------------------------------------------


def test_oversized_and_non_finite_numbers_are_refused_everywhere(run, tmp_path):
    f = copies(tmp_path)
    huge = "9" * 5000
    for text, args in [
        ('{"drift-notice": {"value": ' + huge + ', "n": 1}}', ["comply", "--sow", SOW, "--figures"]),
        ('{"drift-notice": {"value": 3, "n": NaN}}', ["comply", "--sow", SOW, "--figures"]),
        ('{"drift-notice": {"value": Infinity, "n": 2}}', ["comply", "--sow", SOW, "--figures"]),
        ('{"drift-notice": {"value": 1e400, "n": 2}}', ["comply", "--sow", SOW, "--figures"]),
        ('[{"speaker": "caller", "start_ms": ' + huge + ', "end_ms": 1}]', ["voice", "score"]),
        ('[{"speaker": "caller", "start_ms": NaN, "end_ms": 1}]', ["voice", "ttft"]),
    ]:
        target = tmp_path / "in.json"
        target.write_text(text)
        refused(run(*args, target), "number")
    sow = f["sow"]
    sow.write_text(sow.read_text().replace("rollback_minutes = 30", "rollback_minutes = 1" + "0" * 400))
    refused(run("clauses", "export", "--sow", sow), "--sow", "number")
    sow.write_text(sow.read_text().replace("rollback_minutes = 1" + "0" * 400, "rollback_minutes = nan"))
    refused(run("comply", "--sow", sow, "--figures", tmp_path / "in.json"), "--sow")
    sow.write_text(sow.read_text().replace("rollback_minutes = nan", "rollback_minutes = " + "1" * 5000))
    refused(run("clauses", "export", "--sow", sow), "--sow")


@pytest.mark.parametrize("value", ["nan", "inf", "-5", "-inf"])
def test_a_latency_budget_must_be_a_finite_number_of_zero_or_more(run, tmp_path, value):
    dialogue = tmp_path / "d.json"
    dialogue.write_text(json.dumps(json.loads(SUITE.read_text())["tasks"][0]["reference_dialogue"]))
    refused(run("voice", "score", dialogue, "--max-latency-ms", value), "--max-latency-ms")


def test_json_output_is_always_valid_json(run, ex, tmp_path):
    for args in (["show", ex, "--format", "json"], ["metrics", ex, "--format", "json"],
                 ["score", ex, "--format", "json"],
                 ["comply", ex, "--sow", SOW, "--format", "json", "--parties-differ"],
                 ["voice", "drills", DRILLS, "--format", "json"], ["kinds", "--format", "json"]):
        r = run(*args)
        assert r.exit_code in (0, 1), r.output
        constants = []
        json.loads(r.stdout, parse_constant=constants.append)
        assert constants == [], (args[0], constants)


# ----- shapes ------------------------------------------------------------------------------------


def _sow(text_edit):
    return SOW.read_text() if text_edit is None else text_edit(SOW.read_text())


@pytest.mark.parametrize("edit, needle", [
    (lambda t: t.replace("[parameters]", 'parameters = "all of them"\n[ignored]'), "parameters"),
    (lambda t: t + '\n[clauses]\ninclude = [["a"]]\n', "clauses.include"),
    (lambda t: t + '\n[clauses]\ninclude = "restore"\n', "clauses.include"),
    (lambda t: t.replace('currency = "GBP"', "currency = [1]"), "deal.currency"),
    (lambda t: t.replace('schedule = "Schedule 4"', "schedule = 4"), "deal.schedule"),
    (lambda t: t.replace('day60_tier = "T3"', "day60_tier = [3]"), "day60_tier"),
])
def test_deal_file_shapes(run, tmp_path, edit, needle):
    sow = tmp_path / "deal.toml"
    sow.write_text(edit(SOW.read_text()))
    refused(run("clauses", "export", "--sow", sow), "--sow", needle)


@pytest.mark.parametrize("body, needle", [
    ('timezone = "Europe/London"\nclosures = 5\nhours = "24x7"', "calendar.closures"),
    ('timezone = "Europe/London"\nhours = { mon = -1 }', "calendar.hours.mon"),
    ('timezone = "Europe/London"\nhours = "24x7"\nholidays = { country = "GB", subdivision = ["ENG"] }',
     "calendar.holidays.subdivision"),
    ('timezone = "' + "A" * 5000 + '"\nhours = "24x7"', "calendar.timezone"),
    ('timezone = "../../etc/passwd"\nhours = "24x7"', "calendar.timezone"),
    ('timezone = "Europe/London"\nhours = { mon = ["٠٩:٠٠-١٧:٠٠"] }', "calendar.hours.mon"),
])
def test_calendar_shapes(run, tmp_path, body, needle):
    cal = tmp_path / "cal.toml"
    cal.write_text("[calendar]\n" + body + "\n")
    refused(run("hours", "-c", cal, "2026-03-02T09:00", "2026-03-03T09:00"), needle)


def test_answers_and_voice_shapes(run, tmp_path):
    answers = json.loads(ANSWERS.read_text())
    for question_set in ("selfassess", ["1.0.0"], None):
        target = tmp_path / "answers.json"
        target.write_text(json.dumps({**answers, "question_set": question_set}))
        refused(run("selfassess", "--answers", target), "question_set")
    suite = json.loads(SUITE.read_text())
    for edit, needle in [
        (lambda t: t.update(budgets=[1200]), "budgets"),
        (lambda t: t.update(budgets={"max_latency_ms": "slow"}), "max_latency_ms"),
        (lambda t: t.update(budgets={"max_latency_ms": -5}), "max_latency_ms"),
        (lambda t: t.update(required_content=[1]), "required_content"),
        (lambda t: t.update(required_content="refund"), "required_content"),
        (lambda t: t.update(id=["a"]), ".id"),
    ]:
        changed = json.loads(json.dumps(suite))
        edit(changed["tasks"][0])
        target = tmp_path / "suite.json"
        target.write_text(json.dumps(changed))
        refused(run("voice", "bench", target, "--reference", "--out", tmp_path / "out.json"), needle)
        assert not (tmp_path / "out.json").exists()
    turns = json.loads(SUITE.read_text())["tasks"][0]["reference_dialogue"]
    for dialogue, needle in [
        ([{**t, "tool_ms": "slow"} for t in turns], "tool_ms"),
        ({"endpointing": ["vad"], "turns": turns}, "endpointing"),
        ([{**turns[0], "speaker": ["caller"]}, *turns[1:]], "speaker"),
        ([{**turns[0], "interrupt": "yes"}, *turns[1:]], "interrupt"),
    ]:
        target = tmp_path / "dialogue.json"
        target.write_text(json.dumps(dialogue))
        refused(run("voice", "ttft", target), needle)
    drills = json.loads(DRILLS.read_text())
    drills["drills"]["turn_taking"][0]["latency_ms"] = "slow"
    target = tmp_path / "drills.json"
    target.write_text(json.dumps(drills))
    refused(run("voice", "drills", target), "latency_ms")


@pytest.mark.parametrize("held, needle", [
    ({"format": "day60.held/1", "journal": "0" * 64}, "onsets"),
    ({"format": "day60.held/1", "onsets": []}, "journal"),
    ({"format": "day60.held/1", "journal": "0" * 64, "onsets": [{"id": "D1"}]}, "onsets.0"),
    ([1, 2], "held file"),
])
def test_held_file_shapes(run, empty, tmp_path, held, needle):
    path = tmp_path / "held.json"
    path.write_text(json.dumps(held))
    refused(run("reveal", empty, "--held", path), "--held", needle)


# ----- files ---------------------------------------------------------------------------------------


def test_inputs_that_are_not_regular_files(run, tmp_path):
    (tmp_path / "file").write_text("x")
    (tmp_path / "loop1").symlink_to(tmp_path / "loop2")
    (tmp_path / "loop2").symlink_to(tmp_path / "loop1")
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "deep.json").write_text("[" * 100_000 + "]" * 100_000)
    bad = [tmp_path, tmp_path / "file" / "x", tmp_path / ("n" * 300), tmp_path / "loop1", tmp_path / "fifo",
           "/dev/zero", tmp_path / "missing"]
    for path in bad:
        for args in (["show", path], ["score", path], ["verify", path], ["verify", "--repair", path],
                     ["log", path, "report.received", "--id", "2026-03", "--at", "now"],
                     ["hours", "-c", path, "2026-03-02T09:00", "2026-03-03T09:00"],
                     ["clauses", "export", "--sow", path], ["selfassess", "--answers", path],
                     ["voice", "score", path], ["voice", "drills", path]):
            refused(run(*args))
    refused(run("voice", "score", tmp_path / "deep.json"), "nested")
    refused(run("selfassess", "--answers", tmp_path / "deep.json"), "nested")


def test_every_output_is_checked_before_any_is_written(run, ex, tmp_path):
    (tmp_path / "file").write_text("x")
    (tmp_path / "loop1").symlink_to(tmp_path / "loop2")
    (tmp_path / "loop2").symlink_to(tmp_path / "loop1")
    bad = [tmp_path / "file" / "x.pdf", tmp_path / ("n" * 300 + ".pdf"), tmp_path / "loop1",
           "/dev/full", tmp_path / "nope" / "x.pdf", tmp_path]
    ok = tmp_path / "ok.html"
    for out in bad:
        refused(run("score", ex, "--html", ok, "--pdf", out), "--pdf")
        assert not ok.exists()  # the good output was not written either
        refused(run("clauses", "export", "--sow", SOW, "--md", out), "--md")
        refused(run("voice", "bench", SUITE, "--reference", "--out", out), "--out")
        refused(run("log", ex, "drift.onset", "--id", "Z9", "--at", "2026-10-01T10:00", "--set", "source=organic",
                    "--seal", out), "--seal")
    refused(run("metrics", ex, "--format", "csv", "--out", tmp_path / "file"), "--out", "folder")
    refused(run("new", tmp_path / "nope" / "n.jsonl", "--partner", "a", "--supplier", "b", "--deployment", "c",
                "--tier", "T3", "-c", UK, "--window-start", "2026-03-02T09:00", "--window-end", "2026-03-13T17:30",
                "--runner", "r"), "JOURNAL")
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["exercise.jsonl", "file", "loop1", "loop2"])


def test_a_full_disk_leaves_no_partial_output(run, ex, tmp_path, monkeypatch):
    import errno

    from day60 import files

    def full(fd, data):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(files.os, "write", full)
    refused(run("score", ex, "--html", tmp_path / "out.html"), "--html", "disk is full")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["exercise.jsonl"]


def test_racing_new_on_one_path_one_wins_the_others_say_already_exists(tmp_path):
    code = textwrap.dedent(f"""
        import sys
        from day60.cli import main
        sys.argv = ["day60", "new", {str(tmp_path / "race.jsonl")!r}, "--partner", "a", "--supplier", "b",
                    "--deployment", "c", "--tier", "T3", "-c", {str(UK)!r}, "--window-start", "2026-03-02T09:00",
                    "--window-end", "2026-03-13T17:30", "--runner", "r" + sys.argv[1]]
        main()
    """)
    procs = [subprocess.Popen([sys.executable, "-c", code, str(i)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True) for i in range(8)]
    results = [(p.wait(), p.stderr.read()) for p in procs]
    assert sorted(rc for rc, _ in results) == [0] + [2] * 7
    for rc, err in results:
        assert "Traceback" not in err
        if rc == 2:
            assert err.count("\n") == 1 and "already exists" in err
    assert jr.read(tmp_path / "race.jsonl").header["runner"].startswith("r")
    assert [p.name for p in tmp_path.iterdir()] == ["race.jsonl"]


# ----- tamper evidence ------------------------------------------------------------------------------


def test_verify_expect_catches_truncation_and_rewriting(run, ex):
    r = run("score", ex)
    head = r.stdout.split("journal head ")[1].split()[0]
    seq = head.split(":")[0]
    assert int(seq) == len(ex.read_text().splitlines()) - 1
    ok = run("verify", ex, "--expect", head)
    assert ok.exit_code == 0 and "matches --expect" in ok.stdout
    original = ex.read_text()
    ex.write_text("".join(original.splitlines(keepends=True)[:-1]))  # the last event deleted: chain still fine
    assert run("verify", ex).exit_code == 0
    r = run("verify", ex, "--expect", head)
    assert r.exit_code == 1 and "removed" in r.stderr
    ex.write_text(original)
    forged(ex, lambda lines: lines[-1]["data"].update(note="edited after the report"))
    assert run("verify", ex).exit_code == 0  # re-chained: the chain alone cannot tell
    r = run("verify", ex, "--expect", head)
    assert r.exit_code == 1 and "rewritten" in r.stderr
    refused(run("verify", ex, "--expect", "12:abc"), "--expect")


def test_reports_print_the_head_and_warn_on_a_partial_line(run, ex):
    events = len(ex.read_text().splitlines()) - 1
    with ex.open("a") as fh:
        fh.write('{"seq": 99, "kind": "drift.det')  # a crash mid-write
    for args in (["metrics", ex], ["score", ex]):
        r = run(*args)
        assert r.exit_code == 0, r.output
        assert "partial line" in r.stderr and f"head {events}:" in r.stdout
    metrics = json.loads(run("metrics", ex, "--format", "json").stdout)
    assert metrics["head"]["seq"] == events
    score = json.loads(run("score", ex, "--format", "json").stdout)
    assert score["journal_head"]["seq"] == events


# ----- messages -----------------------------------------------------------------------------------


def test_option_type_errors_are_one_line(run, empty):
    refused(run("correct", empty, "--seq", "abc", "--at", "now", "--reason", "x"), "--seq")
    refused(run("nosuchcommand"), "nosuchcommand")


def test_messages_name_the_option_a_person_typed(run, empty, tmp_path):
    run("log", empty, "report.received", "--id", "2026-03", "--at", "2026-03-04T10:00")
    refused(run("correct", empty, "--seq", "0", "--at", "2026-03-04T11:00", "--reason", "typo"), "error: --seq")
    refused(run("correct", empty, "--seq", "1", "--at", "2026-03-04T11:00", "--reason", ""), "error: --reason")
    err = refused(run("new", tmp_path / "n.jsonl", "--partner", "a"), "--supplier", "--deployment", "--tier",
                  "--calendar", "--window-start", "--window-end", "--runner")
    assert "--partner" not in err.split(":")[1]
    err = refused(run("log", empty, "safety.agreed", "--id", "D1", "--at", "now"), "--set agreement",
                  "--set stop_owner", "--set stop_condition", "--set rollback_owner")
    err = refused(run("log", empty, "drift.detected", "--id", "D1", "--at", "now", "--set", "colour=red"),
                  "colour", "note")
    refused(run("log", empty, "incident.detected", "--id", "I1", "--at", "now", "--set", "severity=2"),
            "source=organic")
    answers = json.loads(ANSWERS.read_text())
    answers["answers"]["deal.end"] = answers["answers"]["deal.start"]
    target = tmp_path / "answers.json"
    target.write_text(json.dumps(answers))
    refused(run("selfassess", "--answers", target), "deal.end")


@pytest.mark.parametrize("ident", ["D\u200b1", "\ufeffD1", "\u202eD1", "\u2066D1"])
def test_invisible_and_direction_changing_ids_are_refused(run, empty, ident):
    refused(run("log", empty, "report.received", "--id", ident, "--at", "2026-03-04T10:00"), "--id", "invisible")


@pytest.mark.parametrize("at", ["٢٠٢٦-03-04T10:00", "2026-03-04T1０:00", "2026-03-04T10:00+0٠:00"])
def test_times_take_ascii_digits_only(run, empty, at):
    refused(run("log", empty, "report.received", "--id", "2026-03", "--at", at), "--at")


def test_markdown_schedule_escapes_html_from_the_deal(run, tmp_path):
    sow = tmp_path / "deal.toml"
    sow.write_text(SOW.read_text().replace('schedule = "Schedule 4"', 'schedule = "<img src=x onerror=alert(1)>"'))
    r = run("clauses", "export", "--sow", sow)
    assert r.exit_code == 0, r.output
    assert "<img" not in r.stdout and "&lt;img src=x onerror=alert(1)&gt;" in r.stdout


# ----- discoverable -----------------------------------------------------------------------------


def test_kinds_lists_each_kind_with_its_fields(run):
    r = run("kinds")
    assert r.exit_code == 0
    row = next(line for line in r.stdout.splitlines() if line.startswith("incident.restored"))
    assert "check (text, required)" in row
    row = next(line for line in r.stdout.splitlines() if line.startswith("incident.detected"))
    assert "severity (whole number 1-4)" in row and "source (one of exercise|organic)" in row
    table = json.loads(run("kinds", "--format", "json").stdout)
    assert {f["name"] for f in table["safety.agreed"] if f["required"]} == {
        "agreement", "stop_owner", "stop_condition", "rollback_owner"}


def test_unknown_report_elements_are_refused_with_the_closest_id(run, empty):
    run("log", empty, "report.received", "--id", "2026-03", "--at", "2026-03-04T10:00")
    refused(run("log", empty, "report.element", "--id", "rollback", "--at", "2026-03-04T11:00",
                "--set", "present=yes", "--set", "covers_period=yes", "--set", "supported=yes"),
            "did you mean 'rollbacks'")


def test_help_reads_as_words(run):
    for args in (["hours"], ["log"], ["score"], ["voice", "ttft"], ["metrics"], ["verify"]):
        text = run(*args, "--help").stdout
        assert "<str>" not in text and "<path>" not in text and "list[" not in text and "{" not in text, args
    assert "[parameters]" in run("score", "--help").stdout
    assert "table|json|csv" in run("metrics", "--help").stdout


# ----- slow inputs ------------------------------------------------------------------------------


def _naive_overlaps(callers, agents):
    """The pairwise definition the sweep must reproduce."""
    out = []
    for a in agents:
        over = [c for c in callers if c["start_ms"] < a["end_ms"] and c["end_ms"] > a["start_ms"]]
        interrupts = [c for c in over if c.get("interrupt")]
        out.append((len(over), len(interrupts), sum(a["end_ms"] - c["start_ms"] <= 600 for c in interrupts)))
    return out


turn_times = st.tuples(st.integers(0, 5000), st.integers(0, 2000)).map(lambda p: (p[0], p[0] + p[1]))


@settings(max_examples=examples(300), deadline=None)
@given(callers=st.lists(st.tuples(turn_times, st.booleans()), max_size=12),
       agents=st.lists(turn_times, max_size=12))
def test_overlap_sweep_matches_the_pairwise_definition(callers, agents):
    from day60 import voice

    c = [{"start_ms": s, "end_ms": e, "interrupt": i} for (s, e), i in callers]
    a = [{"start_ms": s, "end_ms": e} for s, e in agents]
    assert voice._overlap_counts(c, a) == _naive_overlaps(c, a)


def test_a_huge_false_alert_count_is_capped_at_its_stated_limit(run, tmp_path):
    answers = json.loads(ANSWERS.read_text())
    answers["answers"]["drift.false_alerts"] = 10**7
    target = tmp_path / "answers.json"
    target.write_text(json.dumps(answers))
    r = run("selfassess", "--answers", target, "--format", "json")
    assert r.exit_code == 0, r.output
    result = json.loads(r.stdout)
    assert any("9999000 of 10000000" in note for note in result["not_assessed"])


def test_a_report_is_named_by_its_month(run, empty):
    """A report id that is not YYYY-MM is refused on logging, and a journal edited to hold one is
    refused on reading, naming the line (the due date is computed from the month)."""
    refused(run("log", empty, "report.received", "--id", "September", "--at", "2026-03-04T10:00"), "YYYY-MM")
    run("log", empty, "report.received", "--id", "2026-03", "--at", "2026-03-04T10:00")
    forged(empty, lambda lines: lines[1].update(id="slow"))
    refused(run("metrics", empty, "--format", "json"), "line 2", "the month it covers")

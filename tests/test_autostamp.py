"""Trusted time while an exercise is recorded: `live --tsa` and `serve --tsa` append an RFC 3161
token over the journal's head after every recorded step (or only at the close), against a
timestamp authority the tests start on 127.0.0.1 (tests/pki.py). A TSA that fails never undoes a
step; options that make no sense are refused before anything starts."""

import datetime as dt
import time

import pytest

from day60 import journal as jr
from day60.autostamp import AutoStamp
from tests import pki
from tests.test_live import CTRL_C, iso, pick, sign_off
from tests.test_web_hostile import NOW as WEB_NOW
from tests.test_web_hostile import SIGN_OFF, InProcess, join, post
from tests.test_web_hostile import make_journal as make_web_journal

KIND = "timestamp.token"


@pytest.fixture(scope="module")
def tsa(tmp_path_factory):
    made = pki.make_pki(tmp_path_factory.mktemp("tsa"))
    url, stop, _ = pki.serve(made)
    yield {"url": f"{url}/good", "root": made.root_pem}
    stop()


@pytest.fixture
def journal(run, tmp_path):
    """A T3 journal whose window runs from two days ago to ten days ahead (as the live tests')."""
    from tests.test_live import NOW

    path = tmp_path / "ex.jsonl"
    r = run("new", path, "--partner", "Acme BPO", "--supplier", "Nimbus AI", "--deployment", "claims intake",
            "--tier", "T3", "-c", "uk-office", "--window-start", (NOW - dt.timedelta(days=2)).isoformat(),
            "--window-end", (NOW + dt.timedelta(days=10)).isoformat(), "--runner", "J. Auditor",
            "--not-synthetic", "--announced")
    assert r.exit_code == 0, r.output
    return path


def tokens(path):
    return [e for e in jr.read(path).events if e["kind"] == KIND]


CLOSE = [("Next step", pick("close the exercise")), ("Close the exercise now", "y"),
         ("When does it close", iso(480) + "\r")]


def _live(run, journal, monkeypatch, pipe, keys, *options):
    monkeypatch.setattr("day60.cli.base._interactive", lambda: True)
    pipe.send_text("".join(k for _, k in keys))
    return run("live", journal, *options)


def test_live_each_step_is_followed_by_a_token_over_it(run, journal, monkeypatch, pipe, tsa):
    """One sign-off, then Ctrl-C. 'each': after the sign-off (seq 1, the header being seq 0) the
    checklist asks the TSA before showing the next menu, so the journal holds the sign-off and one
    token whose covers_seq is 1; leaving writes no second token (a token never calls for another).
    verify, with the TSA's root, says events up to 1 existed by the token's time."""
    r = _live(run, journal, monkeypatch, pipe, [*sign_off("D1", 0), ("Next step", CTRL_C)],
              "--tsa", tsa["url"], "--tsa-root", tsa["root"])
    assert r.exit_code == 0, r.output
    events = jr.read(journal).events
    assert [e["kind"] for e in events] == ["safety.agreed", KIND]
    token = events[1]
    assert token["data"]["covers_seq"] == events[0]["seq"] == 1
    assert token["data"]["covers_hash"] == events[0]["hash"]
    assert f"timestamped: events up to seq 1 existed by {token['at']}" in r.stdout
    v = run("verify", journal, "--tsa-root", tsa["root"])
    assert v.exit_code == 0 and "trusted under the roots given" in v.stdout, v.output


def test_live_close_only_stamps_once_the_exercise_is_closed(run, journal, monkeypatch, pipe, tsa):
    """'close': the sign-off (seq 1) asks for nothing; the close (seq 2) is followed by one token
    covering seq 2, so that one token proves every line of the exercise."""
    keys = [*sign_off("D1", 0), *CLOSE, ("Next step", CTRL_C)]
    r = _live(run, journal, monkeypatch, pipe, keys, "--tsa", tsa["url"], "--tsa-when", "close")
    assert r.exit_code == 0, r.output
    kinds = [e["kind"] for e in jr.read(journal).events]
    assert kinds == ["safety.agreed", "exercise.close", KIND], kinds
    assert tokens(journal)[0]["data"]["covers_seq"] == 2


def test_live_a_tsa_that_cannot_be_reached_leaves_the_step_standing(run, journal, monkeypatch, pipe):
    """Nothing listens on port 9 of 127.0.0.1: the sign-off is recorded, no token is written, and
    the checklist says so in one line naming 'day60 stamp' for later."""
    r = _live(run, journal, monkeypatch, pipe, [*sign_off("D1", 0), ("Next step", CTRL_C)],
              "--tsa", "http://127.0.0.1:9/tsr")
    assert r.exit_code == 0, r.output
    assert [e["kind"] for e in jr.read(journal).events] == ["safety.agreed"]
    line = next(t for t in r.stdout.splitlines() if t.startswith("not timestamped"))
    assert "what was recorded stands" in line and "day60 stamp" in line


@pytest.mark.parametrize("args, field", [
    (["--tsa-when", "close"], "--tsa"),  # a policy with no authority
    (["--tsa-root", "root.pem"], "--tsa"),
    (["--tsa", "ftp://tsa.example/"], "--tsa"),
    (["--tsa", "http://127.0.0.1:9/", "--tsa-when", "sometimes"], "--tsa-when"),
])
@pytest.mark.parametrize("command", ["live", "serve"])
def test_tsa_options_that_make_no_sense_are_refused_before_anything_starts(run, journal, command, args, field):
    before = journal.read_bytes()
    r = run(command, journal, *args)
    assert r.exit_code == 2, r.output
    assert field in r.stderr and r.stderr.count("\n") == 1 and "Traceback" not in r.output
    assert journal.read_bytes() == before


def test_serve_stamps_after_presses_and_a_burst_is_covered_by_the_last_token(tmp_path, tsa):
    """Three sign-offs posted one after another (seq 1 to 3). The worker asks off the request path,
    and a press arriving while a token is being fetched is folded into the next request, so there
    are one to three tokens. The last covers seq 3 (the last press) or a later token line, whose
    hash chains through seq 3, so it proves the last press either way; no press waits for a token.
    Each outcome is said on the server's console."""
    said: list[str] = []
    journal = make_web_journal(tmp_path / "ex.jsonl")
    server = InProcess(journal, None, stamps=AutoStamp(tsa["url"]), echo=said.append)
    try:
        runner = join(server, "J. Auditor", "runner", server.runner_token)
        for ident in ("D1", "I1", "R1"):
            status, answer = post(server, runner, kind="safety.agreed", id=ident,
                                  at=(WEB_NOW - dt.timedelta(hours=1)).isoformat(), data=SIGN_OFF)
            assert status == 201, answer
        deadline = time.time() + 30
        while not (tokens(journal) and tokens(journal)[-1]["data"]["covers_seq"] >= 3):
            assert time.time() < deadline, said
            time.sleep(0.05)
    finally:
        server.stop()
    got = tokens(journal)
    assert 1 <= len(got) <= 3 and got[-1]["data"]["covers_seq"] >= 3
    assert all(t["by"] == "day60 (timestamp authority)" for t in got)
    assert len(said) == len(got) and all(s.startswith("timestamped: ") for s in said)


def test_serve_stamps_a_press_still_due_when_it_stops(tmp_path, tsa):
    """The server is stopped at once after the one press: the token due for it is still fetched
    before the server exits, covering seq 1."""
    journal = make_web_journal(tmp_path / "ex.jsonl")
    server = InProcess(journal, None, stamps=AutoStamp(tsa["url"]), echo=lambda line: None)
    runner = join(server, "J. Auditor", "runner", server.runner_token)
    assert post(server, runner, kind="safety.agreed", id="D1", at=(WEB_NOW - dt.timedelta(hours=1)).isoformat(),
                data=SIGN_OFF)[0] == 201
    server.stop()
    assert [t["data"]["covers_seq"] for t in tokens(journal)][-1:] == [1]

"""RFC 3161 time a third party can check, against a timestamp authority the tests start on
127.0.0.1 (tests/pki.py): stamping a journal's head, verifying every token against the chain,
refusing tokens over the wrong hash or from an expired or untrusted TSA, catching a journal cut
short below a stamped head, and PDF signature and document timestamps."""

import asyncio
import datetime as dt
import json
import shutil

import pytest
from typer.testing import CliRunner

from day60 import journal as jr
from day60.cli import app
from day60.evidence import timestamp
from day60.resources import data_dir
from tests import forge, pki


def _cli(*args, env=None):
    return CliRunner().invoke(app, [str(a) for a in args], env=env)


@pytest.fixture(scope="module")
def tsa(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tsa")
    made = pki.make_pki(folder)
    url, stop, seen = pki.serve(made)
    from day60 import demo

    journal = folder / "closed.jsonl"
    demo.build_journal(journal)  # closed at 2026-10-09 17:30: tokens come after the close
    pki.p12(folder / "auditor.p12", "Test Auditor", b"pw")
    yield {"url": url, "pki": made, "root": made.root_pem, "other": made.other_root_pem, "journal": journal,
           "folder": folder, "seen": seen}
    stop()


@pytest.fixture
def journal(tsa, tmp_path):
    path = tmp_path / "ex.jsonl"
    shutil.copy(tsa["journal"], path)
    return path


def test_a_stamp_is_appended_over_the_head_and_verify_says_what_it_proves(tsa, journal, tmp_path):
    head = jr.read(journal).head
    token_file = tmp_path / "stamp-1.json"
    r = _cli("stamp", journal, "--tsa", f"{tsa['url']}/good", "--tsa-root", tsa["root"], "--out", token_file)
    assert r.exit_code == 0, r.output
    after = jr.read(journal)
    event = after.events[-1]
    assert event["kind"] == "timestamp.token" and event["seq"] == head["seq"] + 1
    assert (event["data"]["covers_seq"], event["data"]["covers_hash"]) == (head["seq"], head["hash"])
    # the event's instant is the TSA's own time, within this test's run
    assert abs(dt.datetime.fromisoformat(event["at"]) - dt.datetime.now(dt.UTC)) < dt.timedelta(minutes=5)
    kept = json.loads(token_file.read_text())
    assert kept["covers_seq"] == head["seq"] and kept["token"] == event["data"]["token"]
    r = _cli("verify", journal, "--tsa-root", tsa["root"])
    assert r.exit_code == 0, r.output
    assert f"the header and events 1 to {head['seq']} (head {head['seq']}:{head['hash'][:16]}...) existed by " \
           f"{event['at']}" in r.stdout
    assert "Common Name: Test TSA" in r.stdout and "trusted under the roots given" in r.stdout
    assert "every event but the tokens themselves is covered" in r.stdout
    plain = _cli("verify", journal)
    assert plain.exit_code == 0 and "was not checked against a root you trust" in plain.stdout
    wrong_root = _cli("verify", journal, "--tsa-root", tsa["other"])
    assert wrong_root.exit_code == 1 and "does not chain to a root you trust" in wrong_root.stderr


def test_events_after_the_last_token_are_said_to_be_uncovered(tsa, journal):
    assert _cli("stamp", journal, "--tsa", f"{tsa['url']}/good").exit_code == 0
    jr.append(journal, "dispute", "restore", dt.datetime.now(dt.UTC),
              {"line": "restore", "reason": "r", "raised_by": "x", "organisation": "y"})
    r = _cli("verify", journal)
    assert r.exit_code == 0 and "1 event(s) after seq" in r.stdout


def test_how_far_the_tokens_reach_is_worked_out_in_the_library():
    """``timestamp.uncovered``, what 'day60 verify' prints: tokens at seq 6 (over head 5) and seq 8
    (over head 3, an older head) in a journal of 9 events reach seq 5; after it, 6 and 8 are the
    tokens themselves, so 7 and 9 are uncovered: 2 events. A token held apart (no seq) over head 9
    covers everything: nothing after 9."""
    def proof(seq, covers):
        return timestamp.Proof(seq, covers, "0" * 64, "https://tsa.example", None)

    assert timestamp.uncovered([proof(6, 5), proof(8, 3)], 9) == (5, [7, 9])
    assert timestamp.uncovered([proof(None, 9)], 9) == (9, [])


@pytest.mark.parametrize("mode, words", [
    ("wrong-hash", "the token is over another hash"),
    ("expired", "the TSA's certificate was not valid at the token's time"),
    ("other-ca", "does not chain to a root you trust"),
    ("refuse", "refused the request (rejection)"),
    ("not-a-reply", "did not send a timestamp reply"),
])
def test_a_bad_token_is_refused_and_nothing_is_written(tsa, journal, mode, words):
    before = journal.read_bytes()
    r = _cli("stamp", journal, "--tsa", f"{tsa['url']}/{mode}", "--tsa-root", tsa["root"])
    assert r.exit_code == 2 and words in r.stderr, r.output
    assert journal.read_bytes() == before


def test_an_unreachable_tsa_writes_nothing(journal):
    before = journal.read_bytes()
    r = _cli("stamp", journal, "--tsa", "http://127.0.0.1:9/tsr")
    assert r.exit_code == 2 and "could not be reached" in r.stderr and journal.read_bytes() == before
    assert _cli("stamp", journal, "--tsa", "ftp://x/y").exit_code == 2


def test_a_journal_carrying_a_token_over_the_wrong_hash_fails_verify(tsa, journal):
    """A forger appends a genuine token, but one the TSA signed over another hash, as if it
    stamped this head: verify checks the token's imprint against the line it names."""
    head = jr.read(journal).head
    token = timestamp.request_token(f"{tsa['url']}/wrong-hash", bytes.fromhex(head["hash"]))
    jr.append(journal, "timestamp.token", f"head-{head['seq']}", dt.datetime.now(dt.UTC),
              {"covers_seq": head["seq"], "covers_hash": head["hash"], "tsa": tsa["url"],
               "token": timestamp._encode(token)})
    r = _cli("verify", journal)
    assert r.exit_code == 1 and f"the token at seq {head['seq'] + 1}" in r.stderr
    assert "over another hash" in r.stderr


def test_a_token_naming_a_line_the_journal_does_not_hold_fails_verify(tsa, journal):
    """The event names seq 47 but carries the token over seq 48's hash: the token's own imprint
    is a line of this journal, at another seq, so it is the event that was edited, not the
    journal that was rewritten."""
    head = jr.read(journal).head
    token = timestamp.request_token(f"{tsa['url']}/good", bytes.fromhex(head["hash"]))
    jr.append(journal, "timestamp.token", "head-x", dt.datetime.now(dt.UTC),
              {"covers_seq": head["seq"] - 1, "covers_hash": head["hash"], "tsa": tsa["url"],
               "token": timestamp._encode(token)})
    r = _cli("verify", journal)
    assert r.exit_code == 1 and f"covers seq {head['seq'] - 1}" in r.stderr
    assert f"the one of seq {head['seq']}: its event was edited" in r.stderr and "rewritten" not in r.stderr


def test_a_journal_cut_short_below_a_stamped_head_is_caught(tsa, journal, tmp_path):
    """The token is kept apart (stamp --out). The journal is then cut back to 30 lines (the
    header and events 1 to 29): it still chains, and verify alone finds nothing wrong, but the
    token file proves events up to the stamped head existed."""
    kept = tmp_path / "stamp.json"
    assert _cli("stamp", journal, "--tsa", f"{tsa['url']}/good", "--out", kept).exit_code == 0
    stamped = json.loads(kept.read_text())["covers_seq"]
    cut = tmp_path / "cut.jsonl"
    cut.write_bytes(b"".join(journal.read_bytes().splitlines(keepends=True)[:30]))
    assert _cli("verify", cut).exit_code == 0
    r = _cli("verify", cut, "--token", kept)
    assert r.exit_code == 1
    assert f"proves that seq {stamped} existed, but the journal now ends at seq 29: it was cut short" in r.stderr


def test_a_journal_rewritten_under_a_stamped_head_is_caught(tsa, journal, tmp_path):
    kept = tmp_path / "stamp.json"
    assert _cli("stamp", journal, "--tsa", f"{tsa['url']}/good", "--out", kept).exit_code == 0
    covered = json.loads(kept.read_text())["covers_seq"]
    lines = journal.read_bytes().splitlines(keepends=True)

    def later(event):
        if event["kind"] == "incident.restored" and event["id"] == "INC-1":
            event["at"] = event["at"].replace("T15:20", "T15:50")

    rewritten = tmp_path / "rewritten.jsonl"
    rewritten.write_bytes(forge.rechain(b"".join(lines[: covered + 1]), later))
    assert _cli("verify", rewritten).exit_code == 0  # it chains
    r = _cli("verify", rewritten, "--token", kept)
    assert r.exit_code == 1 and f"covers seq {covered}" in r.stderr and "rewritten after it was stamped" in r.stderr
    other = tmp_path / "other.jsonl"
    from day60 import demo

    demo.build_journal(other)  # another journal (a new header): the token is not its own
    r = _cli("verify", other, "--token", kept)
    assert r.exit_code == 1 and "made for another journal" in r.stderr


def test_the_library_stamp_works_from_a_running_event_loop(tsa, journal):
    """The web checklist stamps from its ASGI loop in a thread, as the docstring says."""
    async def from_the_app():
        return await asyncio.to_thread(timestamp.stamp, journal, f"{tsa['url']}/good")

    event = asyncio.run(from_the_app())
    assert event["kind"] == "timestamp.token" and jr.read(journal).events[-1] == event
    proofs, problems = timestamp.check(journal)
    assert problems == [] and proofs[-1].seq == event["seq"]


# ----- PDFs -------------------------------------------------------------------------------------------


def test_a_score_pdf_carries_a_document_timestamp_and_verify_report_states_it(tsa, tmp_path):
    pdf = tmp_path / "score.pdf"
    r = _cli("score", tsa["journal"], "--pdf", pdf, "--tsa", f"{tsa['url']}/good")
    assert r.exit_code == 0, r.output
    r = _cli("verify-report", pdf, "--tsa-root", tsa["root"])
    assert r.exit_code == 0, r.output
    assert "not signed" in r.stdout and "a document timestamp from Common Name: Test TSA" in r.stdout
    assert "says every byte before it existed by" in r.stdout and "trusted under the roots given" in r.stdout
    untrusted = _cli("verify-report", pdf, "--tsa-root", tsa["other"])
    assert untrusted.exit_code == 1 and "not from a TSA the roots given" in untrusted.stderr
    stripped = tmp_path / "stripped.pdf"
    stripped.write_bytes(forge.first_revision(pdf.read_bytes()))
    r = _cli("verify-report", stripped)
    assert r.exit_code == 1 and "it carries none: the timestamp was removed" in r.stderr


def test_a_signed_schedule_carries_a_signature_timestamp(tsa, tmp_path):
    """PAdES B-T: the signature holds a token over itself."""
    pdf = tmp_path / "schedule.pdf"
    sow = data_dir("clauses") / "examples" / "synthetic-sow.toml"
    r = _cli("clauses", "export", "--sow", sow, "--pdf", pdf, "--sign", tsa["folder"] / "auditor.p12", "--tsa",
             f"{tsa['url']}/good", env={"DAY60_SIGN_PASSPHRASE": "pw"})
    assert r.exit_code == 0, r.output
    r = _cli("verify-report", pdf, "--tsa-root", tsa["root"])
    assert r.exit_code == 0, r.output
    assert "signed by Common Name: Test Auditor" in r.stdout
    assert "its signature timestamp from Common Name: Test TSA" in r.stdout and "says it was signed by" in r.stdout


def test_a_tsa_that_fails_while_signing_writes_nothing(tsa, tmp_path):
    outputs = {"--pdf": tmp_path / "s.pdf", "--out": tmp_path / "s.json", "--html": tmp_path / "s.html"}
    r = _cli("score", tsa["journal"], *[x for kv in outputs.items() for x in kv], "--sign",
             tsa["folder"] / "auditor.p12", "--tsa", f"{tsa['url']}/refuse", env={"DAY60_SIGN_PASSPHRASE": "pw"})
    assert r.exit_code == 2 and "refused the request" in r.stderr
    assert not any(p.exists() for p in outputs.values()) and r.stdout == ""


# ----- a TSA whose clock is not this machine's (issue 37, point 4) -------------------------------------


@pytest.mark.parametrize("seconds, side", [(120, "ahead of"), (-120, "behind")])
def test_a_token_from_a_tsa_with_a_skewed_clock_is_refused_before_anything_is_written(tsa, journal, seconds, side):
    """A trusted TSA whose clock is two minutes off this machine's: the first round appended its
    token, whose event (recorded by this machine's clock) then contradicted the token, and 'day60
    verify' blamed the journal for ever. The token is now held to the moments this machine asked
    and was answered, within its stated accuracy and two seconds; beyond them it is refused with
    both times, and the journal is left as it was."""
    before = journal.read_bytes()
    r = _cli("stamp", journal, "--tsa", f"{tsa['url']}/skew/{seconds}", "--tsa-root", tsa["root"])
    assert r.exit_code == 2, r.output
    assert "the TSA says" in r.stderr and "this machine's clock read" in r.stderr and side in r.stderr
    assert "nothing was written" in r.stderr
    assert journal.read_bytes() == before
    assert _cli("verify", journal).exit_code == 0


def test_a_tsa_within_its_accuracy_and_the_tolerance_is_taken(tsa, journal):
    r = _cli("stamp", journal, "--tsa", f"{tsa['url']}/skew/1", "--tsa-root", tsa["root"])
    assert r.exit_code == 0, r.output
    r = _cli("verify", journal, "--tsa-root", tsa["root"])
    assert r.exit_code == 0, r.output


def test_the_library_stamp_refuses_a_skewed_tsa_too(tsa, journal):
    """live and serve stamp through the same function: they get the refusal as their TSA failure."""
    before = journal.read_bytes()
    with pytest.raises(Exception) as caught:
        timestamp.stamp(journal, f"{tsa['url']}/skew/-600")
    assert "behind this machine's by more than the token allows" in str(caught.value)
    assert journal.read_bytes() == before


def test_a_line_naming_an_instant_later_than_a_token_proves_it_existed_is_flagged(tsa, journal):
    """A line whose 'at' is a day after the TSA saw it: the line was written before the instant it
    names came, so its times were typed or set ahead. The first round looked only at the stamped
    line's recorded time; every line a token covers is now held to the token's time."""
    late = (dt.datetime.now(dt.UTC) + dt.timedelta(days=1)).replace(microsecond=0).isoformat()

    def ahead(event):
        if event["kind"] == "report.received":
            event["at"] = late

    journal.write_bytes(forge.rechain(journal.read_bytes(), ahead))
    r = _cli("stamp", journal, "--tsa", f"{tsa['url']}/good", "--tsa-root", tsa["root"])
    assert r.exit_code == 0, r.output
    _proofs, problems = timestamp.check(journal, timestamp.load_roots([tsa["root"]]))
    assert any("(report.received, seq" in p and f"says it happened at {late}" in p
               and "later than the token proves it already existed" in p for p in problems), problems
    r = _cli("verify", journal, "--tsa-root", tsa["root"])
    assert r.exit_code == 1 and "later than the token proves it already existed" in r.output, r.output

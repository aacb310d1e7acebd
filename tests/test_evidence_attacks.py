"""The evidence of issue 25 attacked again, as a supplier's lawyer, a forger and a careless user
would: forged reports the first round let through, outputs that still replaced evidence, a
superseded score made up under another rubric, timestamp tokens that contradict the journal's
own clock, malformed token files, and timestamp authorities that answer garbage or one byte at a
time. Each test says the attack and why the answer is the right one."""

import datetime as dt
import io
import json
import shutil
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from pyhanko.pdf_utils.generic import (
    ArrayObject,
    DictionaryObject,
    NameObject,
    NumberObject,
    StreamObject,
    TextStringObject,
)
from typer.testing import CliRunner

from day60 import journal as jr
from day60.cli import app
from day60.evidence import sign as signing
from day60.evidence import timestamp
from day60.resources import data_dir
from tests import pki

SOW = data_dir("clauses") / "examples" / "synthetic-sow.toml"
DRILLS = data_dir("rubric") / "voice" / "examples" / "synthetic-drills.json"


def _cli(*args, env=None):
    return CliRunner().invoke(app, [str(a) for a in args], env=env)




@pytest.fixture(autouse=True)
def own_state(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))


@pytest.fixture(scope="module")
def made(score_reports, tmp_path_factory):
    """A demo journal, its score JSON and PDF, the same PDF signed by the auditor and a forger's
    key (shared by the evidence modules: tests/conftest.py, only read), and a timestamp authority
    on 127.0.0.1 (tests/pki.py)."""
    made_pki = pki.make_pki(tmp_path_factory.mktemp("attacks"))
    url, stop, _seen = pki.serve(made_pki)
    yield {**score_reports, "url": url, "pki": made_pki}
    stop()


def _forger_signs(raw: bytes, forger, edit) -> bytes:
    """An incremental update in which the forger changes what ``edit`` changes and signs it with
    the forger's own key, through the same metadata-keeping writer the toolkit signs with, so that
    the update is a signature revision and nothing else on the page or in the metadata moved."""
    from pyhanko.sign import fields, signers

    writer = signing._writer(raw)
    edit(writer)
    key = signing.load_signer(forger, b"pw")
    meta = signers.PdfSignatureMetadata(field_name="forged", md_algorithm="sha256",
                                        subfilter=fields.SigSeedSubFilter.PADES)
    out = io.BytesIO()
    signers.PdfSigner(meta, signer=key.hanko).sign_pdf(writer, output=out)
    return out.getvalue()


def _verify(tmp_path, body: bytes):
    path = tmp_path / "forged.pdf"
    path.write_bytes(body)
    return _cli("verify-report", path)


def _refused(r, *words):
    assert r.exit_code == 1, r.output
    assert "NOT verified" in r.stderr and "internal fault" not in r.output and "Traceback" not in r.output
    for word in words:
        assert word in r.stderr, (word, r.stderr)


# ----- forged reports the first round verified --------------------------------------------------------


def test_an_xfa_form_added_under_a_forgers_signature_is_named(made, tmp_path):
    """The forger adds an XFA form (which Acrobat draws instead of the pages) inside the
    /AcroForm that a signature brings, and signs the update: the catalog's /AcroForm was the one
    entry the comparison left to signatures, so the report verified. A signature's form holds
    its fields and flags and nothing else, so /XFA is named."""
    def xfa(writer):
        template = writer.add_object(StreamObject(stream_data=b"<xdp:xdp><template>Score 99 of 100</template>"
                                                              b"</xdp:xdp>"))
        writer.root["/AcroForm"] = writer.add_object(DictionaryObject({NameObject("/Fields"): ArrayObject(),
                                                                       NameObject("/XFA"): template}))
        writer.update_root()

    r = _verify(tmp_path, _forger_signs(made["score"].read_bytes(), made["forger"], xfa))
    _refused(r, "/AcroForm carries /XFA", "an XFA form")


def test_javascript_on_a_signature_field_with_no_area_is_named(made, tmp_path):
    """A signature widget with no area was let through as harmless; the forger gives one a page-open
    action running JavaScript (which could lay any figure over the page in Acrobat) and signs the
    update. A widget that runs an action is not harmless, whatever its size: named on its page and
    in the form."""
    def script(writer):
        page = writer.root["/Pages"]["/Kids"][0].get_object()
        action = DictionaryObject({NameObject("/S"): NameObject("/JavaScript"),
                                   NameObject("/JS"): TextStringObject('app.alert("Score 99 of 100")')})
        widget = writer.add_object(DictionaryObject({
            NameObject("/Type"): NameObject("/Annot"), NameObject("/Subtype"): NameObject("/Widget"),
            NameObject("/FT"): NameObject("/Sig"), NameObject("/T"): TextStringObject("evil"),
            NameObject("/Rect"): ArrayObject([NumberObject(0)] * 4),
            NameObject("/AA"): DictionaryObject({NameObject("/PO"): action})}))
        page["/Annots"] = ArrayObject([widget])
        writer.update_container(page)
        writer.root["/AcroForm"] = writer.add_object(DictionaryObject({NameObject("/Fields"): ArrayObject([widget])}))
        writer.update_root()

    r = _verify(tmp_path, _forger_signs(made["score"].read_bytes(), made["forger"], script))
    _refused(r, "page 1 carries a signature field that runs an action", "'evil' runs an action")


def test_two_attachments_of_one_name_are_tampering_not_damage(made, tmp_path):
    """The forger lists score.json a second time in the embedded-files tree, in a signed update.
    The first round called that a damaged file (exit 2, bad input), as if the user had handed the
    wrong file; it is a file day60 never writes and whose data a viewer may open either copy of:
    NOT verified (exit 1), with the signature still stated."""
    def twice(writer):
        tree = writer.root["/Names"]["/EmbeddedFiles"]
        names = tree["/Names"]
        spec = next(names[i + 1] for i in range(0, len(names), 2) if names[i] == "score.json")
        names.append(TextStringObject("score.json"))
        names.append(spec)
        writer.update_container(tree)

    r = _verify(tmp_path, _forger_signs(made["score"].read_bytes(), made["forger"], twice))
    _refused(r, "it embeds 2 files named 'score.json'")
    assert "signed by Common Name: Someone Else" in r.stdout


def test_a_signer_with_no_trusted_root_is_signed_not_verified(made):
    """The auditor's certificate is self-made and no trust list judges it: the output must say the
    signer is not verified, and never call the signature or the signer valid."""
    r = _cli("verify-report", made["signed"])
    assert r.exit_code == 0, r.output
    assert "signed by Common Name: Test Auditor" in r.stdout and "signer not verified" in r.stdout
    assert "valid" not in r.stdout.replace("not verified", "")


def test_the_toolkits_own_reports_still_verify_with_the_new_checks(made):
    """The new checks refuse what a forger adds, not what the toolkit and pyHanko write: an
    unsigned report and a signed one verify."""
    for name in ("score", "signed"):
        assert _cli("verify-report", made[name]).exit_code == 0


# ----- outputs that replaced evidence -------------------------------------------------------------------


def test_other_commands_never_write_over_a_signed_report_a_token_file_or_a_score(made, tmp_path):
    """`score` refuses any existing output, but `clauses export` and `voice drills` wrote over a
    signed report (a signature nobody can make again without the key, nor a TSA's time again), over
    a token file kept apart from the journal (the one proof a cut journal cannot take with it) and
    over a score JSON (a later score names it by its SHA-256). Each is recognised by its content,
    refused with exit 2, and left byte for byte as it was."""
    journal = tmp_path / "ex.jsonl"
    shutil.copy(made["journal"], journal)
    token = tmp_path / "stamp-1.json"
    assert _cli("stamp", journal, "--tsa", f"{made['url']}/good", "--out", token).exit_code == 0
    victims = {"signed": tmp_path / "signed.pdf", "token": token, "score": tmp_path / "score.json"}
    shutil.copy(made["signed"], victims["signed"])
    shutil.copy(made["json"], victims["score"])
    before = {k: v.read_bytes() for k, v in victims.items()}
    attempts = [(["clauses", "export", "--sow", SOW, "--pdf", victims["signed"]], "a signed or timestamped PDF"),
                (["voice", "drills", DRILLS, "--pdf", victims["signed"]], "a signed or timestamped PDF"),
                (["clauses", "export", "--sow", SOW, "--md", victims["token"]], "a day60 timestamp token file"),
                (["clauses", "export", "--sow", SOW, "--html", victims["score"]], "a day60 score or notice")]
    for args, words in attempts:
        r = _cli(*args)
        assert r.exit_code == 2 and words in r.stderr and "never overwritten" in r.stderr, (args, r.output)
    assert {k: v.read_bytes() for k, v in victims.items()} == before


def test_a_signature_added_at_the_end_of_a_large_pdf_is_still_recognised(made, tmp_path):
    """The guard reads a file's first 64 MiB; a signature is an update at the end. A signed PDF
    made larger than that by padding before its final revision must still be recognised (the
    guard reads the end of a PDF too)."""
    from day60 import files

    raw = made["signed"].read_bytes()
    big = tmp_path / "big.pdf"
    at = raw.index(b"%%EOF") + len(b"%%EOF\n")
    padding = b"%" + b"x" * 1022 + b"\n"
    with big.open("wb") as fh:
        fh.write(raw[:at])
        for _ in range((files.PROTECT_SCAN // len(padding)) + 16):
            fh.write(padding)
        fh.write(raw[at:])
    assert big.stat().st_size > files.PROTECT_SCAN
    assert files.protected(big) == "a signed or timestamped PDF (its signature cannot be made again)"
    # an unsigned report is evidence too (issue 37): it carries the data verify-report checks it against
    assert files.protected(made["score"]).startswith("a day60 report PDF")


# ----- a superseded score made up under another rubric --------------------------------------------------


def _fake(made, tmp_path, name, **changes):
    body = json.loads(made["json"].read_text())
    body.update(changes)
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(body))
    return path


def test_a_self_assessment_label_no_longer_passes_a_made_up_score(made, tmp_path):
    """A made-up file copies the real head and journal hash, claims a score of 3, and adds
    "kind": "self-assessment": the first round skipped every check for that kind and quoted the 3
    as the earlier score. A score supersedes only a score: refused, nothing written."""
    fake = _fake(made, tmp_path, "fake", kind="self-assessment", score=3.0)
    out = tmp_path / "new.json"
    r = _cli("score", made["journal"], "--supersede", fake, "--out", out)
    assert r.exit_code == 2 and "a score supersedes only an earlier score" in r.stderr and not out.exists()


def test_a_score_made_under_another_rubric_is_quoted_as_unchecked(made, tmp_path):
    """A made-up file names another rubric's hash, so the journal cannot score it again here, and
    claims 12 points with 1 on every line. The first round quoted its figures in the new score as
    if they were a published score, with 'no correction ... scored again as it stood'. Now the new
    score (its JSON, its cover) says the earlier figures are as that file states them, unchecked,
    and why; a score of the same rubric is said to be computed again and to agree."""
    rubric = dict(json.loads(made["json"].read_text())["rubric"], sha256="0" * 64)
    fake = _fake(made, tmp_path, "other-rubric", rubric=rubric, score=12.0)
    out, pdf = tmp_path / "new.json", tmp_path / "new.pdf"
    r = _cli("score", made["journal"], "--supersede", fake, "--out", out, "--pdf", pdf)
    assert r.exit_code == 0, r.output
    new = json.loads(out.read_text())
    assert new["supersedes"]["computed_again"] is False
    assert "another rubric (day60 1.2.0, SHA-256 0000000000000000...)" in new["supersedes"]["not_checked"]
    assert "as it stood" not in json.dumps(new["changelog"]["because"])
    from pypdf import PdfReader

    cover = " ".join(PdfReader(pdf).pages[0].extract_text().split())
    assert "Unchecked: the earlier score was made with another rubric" in cover
    assert _cli("verify-report", pdf).exit_code == 0  # the report says what it is, and is that
    same = tmp_path / "same.json"
    assert _cli("score", made["journal"], "--supersede", made["json"], "--out", same).exit_code == 0
    assert json.loads(same.read_text())["supersedes"]["computed_again"] is True


# ----- timestamp tokens that contradict the journal ------------------------------------------------------


def _token_at(made, digest: bytes, when: dt.datetime):
    """A genuine token from the test TSA's key over ``digest``, its time set to ``when``."""
    import asyncio

    from pyhanko.sign.timestamps import DummyTimeStamper

    good = made["pki"].stampers["good"]
    stamper = DummyTimeStamper(tsa_cert=good.tsa_cert, tsa_key=good.tsa_key, certs_to_embed=good.certs_to_embed,
                               fixed_dt=when)
    return asyncio.run(stamper.async_timestamp(digest, "sha256"))


def test_a_token_earlier_than_the_line_it_stamps_says_the_clock_was_not_the_journals(made, tmp_path):
    """The demo's last line was recorded minutes ago; a genuine token over its hash says it existed
    an hour ago. Both cannot be true: the line's recorded time is later than the time a third party
    proves it existed, so the journal's recorded times were set ahead or typed. verify says so and
    fails, instead of reporting the token as proof."""
    journal = tmp_path / "ex.jsonl"
    shutil.copy(made["journal"], journal)
    head = jr.read(journal).head
    early = dt.datetime.now(dt.UTC).replace(microsecond=0) - dt.timedelta(hours=1)
    token = _token_at(made, bytes.fromhex(head["hash"]), early)
    jr.append(journal, "timestamp.token", f"head-{head['seq']}", early,
              {"covers_seq": head["seq"], "covers_hash": head["hash"], "tsa": made["url"],
               "token": timestamp._encode(token)})
    r = _cli("verify", journal)
    assert r.exit_code == 1, r.output
    assert f"the line it stamps (seq {head['seq']}) says it was recorded at" in r.stderr
    assert "not its clock's" in r.stderr


def test_a_token_event_recorded_before_the_token_existed_is_caught(made, tmp_path):
    """A forger rewrites the token event's recorded time to an hour before the TSA issued the token
    and chains the line again: the event claims to have been written before the thing it records
    existed. verify fails naming it."""
    from tests import forge

    journal = tmp_path / "ex.jsonl"
    shutil.copy(made["journal"], journal)
    assert _cli("stamp", journal, "--tsa", f"{made['url']}/good").exit_code == 0

    def backdate(event):
        if event["kind"] == "timestamp.token":
            event["recorded_at"] = (dt.datetime.fromisoformat(event["at"]) - dt.timedelta(hours=1)).isoformat()

    journal.write_bytes(forge.rechain(journal.read_bytes(), backdate))
    r = _cli("verify", journal)
    assert r.exit_code == 1 and "before the TSA issued the token" in r.stderr, r.output


def test_a_token_file_with_wrong_fields_is_bad_input_naming_each(made, tmp_path):
    """A token file with a time that is not an instant crashed verify ('internal fault'); one whose
    hash is not hex made verify accuse the journal of being rewritten. A malformed token file is bad
    input: exit 2, every wrong field named, nothing said about the journal."""
    journal = tmp_path / "ex.jsonl"
    shutil.copy(made["journal"], journal)
    kept = tmp_path / "stamp.json"
    assert _cli("stamp", journal, "--tsa", f"{made['url']}/good", "--out", kept).exit_code == 0
    good = json.loads(kept.read_text())
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({**good, "at": "yesterday", "covers_hash": "zz", "covers_seq": True, "token": "!!"}))
    r = _cli("verify", journal, "--token", bad)
    assert r.exit_code == 2 and "internal fault" not in r.output and "rewritten" not in r.output
    for field in ("covers_seq", "covers_hash", "at (an ISO 8601 instant", "token (the RFC 3161 token"):
        assert field in r.stderr, (field, r.stderr)


def test_a_token_file_edited_to_name_another_seq_is_said_to_be_edited(made, tmp_path):
    """The kept token file is edited to claim it stamps seq 10. Its token is over seq 48's hash,
    which is still in the journal: the file was edited, not the journal rewritten; verify says
    which, so the auditor is not accused of what the file's holder did."""
    journal = tmp_path / "ex.jsonl"
    shutil.copy(made["journal"], journal)
    kept = tmp_path / "stamp.json"
    assert _cli("stamp", journal, "--tsa", f"{made['url']}/good", "--out", kept).exit_code == 0
    edited = tmp_path / "edited.json"
    body = json.loads(kept.read_text())
    edited.write_text(json.dumps({**body, "covers_seq": 10}))
    r = _cli("verify", journal, "--token", edited)
    assert r.exit_code == 1
    assert f"its file says it covers seq 10, but the hash it covers is the one of seq {body['covers_seq']}: its file " \
           "was edited" in r.stderr and "rewritten" not in r.stderr


# ----- timestamp authorities that misbehave ----------------------------------------------------------------


class _Odd(BaseHTTPRequestHandler):
    """A server on 127.0.0.1 that answers a timestamp query badly, by path."""

    def log_message(self, *args):
        pass

    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        mode = self.path.strip("/")
        if mode == "500":
            self.send_error(500)
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/timestamp-reply")
        if mode == "trickle":  # one byte every half second, never the whole reply
            self.send_header("Content-Length", "100000")
            self.end_headers()
            for _ in range(200):
                try:
                    self.wfile.write(b"\x30")
                    self.wfile.flush()
                except OSError:
                    return
                time.sleep(0.5)
            return
        body = b"\x30\x82\xff\xff" + b"A" * 64  # garbage that starts like DER
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture
def odd_tsa():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Odd)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_a_tsa_that_trickles_its_reply_is_given_up_in_time(made, odd_tsa, tmp_path):
    """A server that sends one byte every half second never trips a per-read timeout: the first
    round would wait for the whole 100,000-byte reply (about fourteen hours). The whole exchange
    has one deadline: with a two-second timeout, stamp gives up within a few seconds, names the
    TSA, and writes nothing."""
    journal = tmp_path / "ex.jsonl"
    shutil.copy(made["journal"], journal)
    before = journal.read_bytes()
    started = time.monotonic()
    with pytest.raises(Exception) as caught:
        timestamp.stamp(journal, f"{odd_tsa}/trickle", timeout=2.0)
    assert time.monotonic() - started < 6
    assert "did not answer within 2 seconds" in str(caught.value) and journal.read_bytes() == before


@pytest.mark.parametrize("mode, words", [("500", "answered HTTP 500"), ("garbage", "is not RFC 3161")])
def test_a_tsa_answering_500_or_garbage_writes_nothing(made, odd_tsa, tmp_path, mode, words):
    """HTTP 500 and a reply that only starts like DER: one line naming the TSA, exit 2, the journal
    untouched."""
    journal = tmp_path / "ex.jsonl"
    shutil.copy(made["journal"], journal)
    before = journal.read_bytes()
    r = _cli("stamp", journal, "--tsa", f"{odd_tsa}/{mode}")
    assert r.exit_code == 2 and words in r.stderr and r.stderr.count("\n") == 1, r.output
    assert journal.read_bytes() == before


# ----- live and serve stamp when given a TSA (the README said they did; neither took --tsa) -----------


@pytest.fixture
def open_journal(tmp_path):
    """A fresh journal whose window runs from two days ago to ten days ahead."""
    now = dt.datetime.now(dt.UTC)
    path = tmp_path / "live.jsonl"
    r = _cli("new", path, "--partner", "Acme BPO", "--supplier", "Nimbus AI", "--deployment", "claims intake",
             "--tier", "T3", "-c", "uk-office", "--window-start", (now - dt.timedelta(days=2)).isoformat(),
             "--window-end", (now + dt.timedelta(days=10)).isoformat(), "--runner", "J. Auditor",
             "--not-synthetic", "--announced")
    assert r.exit_code == 0, r.output
    return path


@pytest.mark.parametrize("when, expected", [
    ("close", ["report.received", "exercise.close", "timestamp.token"]),
    ("every", ["report.received", "timestamp.token", "exercise.close", "timestamp.token"])])
def test_live_with_a_tsa_stamps_at_the_close_or_after_every_event(made, open_journal, monkeypatch, pipe, when,
                                                                   expected):
    """The issue asked that `live` stamp after every event or at the close when given --tsa; the
    README said it did, but `live` took no --tsa. Driven through prompt_toolkit's pipe input: a
    report is received, the exercise closed, the checklist left. With --stamp close one token
    follows the close (covering it and everything before); with --stamp every a token follows
    each event. Each token covers the line just before it and verify accepts them all."""
    monkeypatch.setattr("day60.cli.base._interactive", lambda: True)
    at = (dt.datetime.now(dt.UTC) - dt.timedelta(hours=2)).replace(microsecond=0)
    enter = "\r"
    pipe.send_text("new: monthly report received" + enter + "2026-10" + enter + at.isoformat() + enter)
    pipe.send_text("close the exercise" + enter + "y" + (at + dt.timedelta(hours=1)).isoformat() + enter)
    pipe.send_text("\x03")
    r = _cli("live", open_journal, "--tsa", f"{made['url']}/good", "--stamp", when, "--tsa-root", made["pki"].root_pem)
    assert r.exit_code == 0, r.output
    events = jr.read(open_journal).events
    assert [e["kind"] for e in events] == expected
    for e in events:
        if e["kind"] == "timestamp.token":
            assert e["data"]["covers_seq"] == e["seq"] - 1
    assert "timestamped: seq" in r.stdout
    r = _cli("verify", open_journal, "--tsa-root", made["pki"].root_pem)
    assert r.exit_code == 0 and "every event but the tokens themselves is covered" in r.stdout, r.output


def test_live_with_a_failing_tsa_keeps_the_events_and_says_so(made, open_journal, monkeypatch, pipe, odd_tsa):
    """The TSA answers HTTP 500 at the close: the close is recorded all the same, the checklist says
    it was not timestamped and how to stamp later, and it does not ask again until a new line is
    written (a dead TSA would otherwise hold every keypress for its timeout)."""
    monkeypatch.setattr("day60.cli.base._interactive", lambda: True)
    at = (dt.datetime.now(dt.UTC) - dt.timedelta(hours=2)).replace(microsecond=0)
    pipe.send_text("close the exercise\r" + "y" + at.isoformat() + "\r" + "\x03")
    r = _cli("live", open_journal, "--tsa", f"{odd_tsa}/500")
    assert r.exit_code == 0, r.output
    assert [e["kind"] for e in jr.read(open_journal).events] == ["exercise.close"]
    assert r.stdout.count("not timestamped: the timestamp authority at") == 1
    assert f"stamp later with: day60 stamp {open_journal}" in r.stdout


def test_live_refuses_stamp_options_without_a_tsa(open_journal):
    """--stamp every with no --tsa would silently stamp nothing: refused before anything runs."""
    r = _cli("live", open_journal, "--stamp", "every")
    assert r.exit_code == 2 and "only apply with --tsa" in r.stderr
    r = _cli("live", open_journal, "--tsa", "http://127.0.0.1:9/x", "--stamp", "sometimes")
    assert r.exit_code == 2 and "'sometimes' is not offered" in r.stderr


def test_serve_with_a_tsa_stamps_the_close_in_the_background(made, open_journal):
    """The web checklist with --tsa: when the close is appended (here by 'day60 log', as another
    writer would), the server asks the TSA in the background and appends one token over the close;
    a press never waits for it."""
    import asyncio

    from day60.web import create_app

    asgi = create_app(open_journal, None, "team-token-2026", "127.0.0.1", 8060, f"{made['url']}/good", "close")
    starlette = asgi.app
    at = (dt.datetime.now(dt.UTC) - dt.timedelta(hours=1)).isoformat()

    def kinds():
        return [e["kind"] for e in jr.read(open_journal).events]

    async def serving():
        async with starlette.router.lifespan_context(starlette):  # the server's background tasks run
            assert (await asyncio.to_thread(_cli, "log", open_journal, "report.received", "--id", "2026-10",
                                            "--at", at)).exit_code == 0
            await asyncio.sleep(1.5)
            assert kinds() == ["report.received"]  # not closed: nothing to stamp yet
            assert (await asyncio.to_thread(_cli, "log", open_journal, "exercise.close", "--id", "exercise",
                                            "--at", at)).exit_code == 0
            for _ in range(100):
                if kinds()[-1] == "timestamp.token":
                    break
                await asyncio.sleep(0.2)

    asyncio.run(serving())
    events = jr.read(open_journal).events
    assert [e["kind"] for e in events] == ["report.received", "exercise.close", "timestamp.token"]
    assert events[-1]["data"]["covers_seq"] == 2


# ----- control characters from data ----------------------------------------------------------------------


def test_an_escape_sequence_in_a_deal_file_never_reaches_a_document(tmp_path):
    """A supplier drafting the deal file puts ESC[2J (clear the screen) in its own name. The
    direction controls were shown as escapes, but other control characters went into the Markdown,
    HTML and Word files as they were: `cat schedule.md` in a terminal would clear it, and an OSC
    sequence could plant a hidden link. Every control character but tab and line breaks is now
    shown as <U+XXXX> in every document, like the direction controls."""
    import docx

    text = SOW.read_text().replace('provider = "Example AI Operations Ltd (SYNTHETIC)"',
                                   'provider = "Nimbus \\u001b[2J\\u001b]8;;http://evil.example\\u0007AI\\u0085 Ltd"')
    sow = tmp_path / "sow.toml"
    sow.write_text(text)
    out = {ext: tmp_path / f"schedule.{ext}" for ext in ("md", "html", "docx")}
    r = _cli("clauses", "export", "--sow", sow, "--md", out["md"], "--html", out["html"], "--docx", out["docx"])
    assert r.exit_code == 0, r.output
    word = docx.Document(out["docx"])
    cells = " ".join(c.text for t in word.tables for row in t.rows for c in row.cells)
    texts = {"md": out["md"].read_text(), "html": out["html"].read_text(), "docx": cells}
    for name, body in texts.items():
        assert not any(ch in body for ch in "\x1b\x07\x85"), name
        assert "<U+001B>" in body.replace("&lt;", "<").replace("&gt;", ">"), name
    r = _cli("clauses", "export", "--sow", sow)  # the Markdown on the terminal
    assert "\x1b" not in r.stdout and "U+001B" in r.stdout


# ----- what verify-report says of timestamps ------------------------------------------------------------


def _contents(raw: bytes) -> tuple[int, int]:
    at = raw.rindex(b"/Contents <") + len(b"/Contents <")
    return at, raw.index(b">", at)


def test_a_document_timestamp_that_does_not_verify_repeats_no_time(made, tmp_path):
    """The forger replaces a report's document timestamp token with a genuine token the same TSA
    issued for another file (the schedule's). It was refused, but the stated line still read 'says
    every byte before it existed by <time>', repeating a time the token does not prove for this
    file. A timestamp that does not verify is said to prove nothing."""
    url = f"{made['url']}/good"
    report, other = tmp_path / "score.pdf", tmp_path / "schedule.pdf"
    assert _cli("score", made["journal"], "--pdf", report, "--tsa", url).exit_code == 0
    assert _cli("clauses", "export", "--sow", SOW, "--pdf", other, "--tsa", url).exit_code == 0
    mine, theirs = report.read_bytes(), other.read_bytes()
    (a0, a1), (b0, b1) = _contents(mine), _contents(theirs)
    swapped = mine[:a0] + theirs[b0:b1][: a1 - a0].ljust(a1 - a0, b"0") + mine[a1:]
    r = _verify(tmp_path, swapped)
    _refused(r, "the bytes it signs were changed after signing")
    assert "says every byte before it existed" not in r.stdout and "proves nothing" in r.stdout


def test_a_tsa_outside_the_roots_given_is_said_not_to_chain_to_them(made, tmp_path):
    """With --tsa-root naming another CA, the statement read 'not checked against a root you trust
    (give --tsa-root)', advice to give what was given. It now says the TSA does not chain to the
    roots given, and the report fails."""
    report = tmp_path / "score.pdf"
    assert _cli("score", made["journal"], "--pdf", report, "--tsa", f"{made['url']}/good").exit_code == 0
    r = _cli("verify-report", report, "--tsa-root", made["pki"].other_root_pem)
    assert r.exit_code == 1 and "does not chain to the roots given" in r.stdout and "give --tsa-root" not in r.stdout
    r = _cli("verify-report", report, "--tsa-root", made["pki"].root_pem)
    assert r.exit_code == 0 and "trusted under the roots given" in r.stdout


def test_verify_report_checks_the_tokens_the_embedded_journal_carries(made, tmp_path):
    """A score report embeds its journal exactly as scored, timestamp tokens included, and a reader
    who opens that journal sees them as third-party time; verify-report said nothing of them. It
    now states each (what it proves, on whose word) and fails a report whose embedded journal
    carries a token that contradicts the journal's clock."""
    journal = tmp_path / "ex.jsonl"
    shutil.copy(made["journal"], journal)
    assert _cli("stamp", journal, "--tsa", f"{made['url']}/good").exit_code == 0
    report = tmp_path / "stamped.pdf"
    assert _cli("score", journal, "--pdf", report).exit_code == 0
    r = _cli("verify-report", report, "--tsa-root", made["pki"].root_pem)
    assert r.exit_code == 0, r.output
    assert "the embedded journal's token at seq 49: the header and events 1 to 48" in r.stdout
    early = tmp_path / "early.jsonl"
    shutil.copy(made["journal"], early)
    head = jr.read(early).head
    when = dt.datetime.now(dt.UTC).replace(microsecond=0) - dt.timedelta(hours=1)
    jr.append(early, "timestamp.token", f"head-{head['seq']}", when,
              {"covers_seq": head["seq"], "covers_hash": head["hash"], "tsa": made["url"],
               "token": timestamp._encode(_token_at(made, bytes.fromhex(head["hash"]), when))})
    bad = tmp_path / "early.pdf"
    assert _cli("score", early, "--pdf", bad).exit_code == 0
    r = _cli("verify-report", bad)
    _refused(r, "the embedded journal: the token at seq 49", "not its clock's")


def test_a_token_file_that_cannot_be_written_says_the_token_is_in_the_journal(made, tmp_path, monkeypatch):
    """`stamp --out` appends the token to the journal, then writes the file. When the file cannot be
    written (the disk fills between the two), the message said 'nothing was written', and a user who
    believed it would stamp again thinking the first had failed. It now says the token was
    appended as seq 49 and only the file was not written."""
    from day60 import files
    from day60.errors import InputError

    journal = tmp_path / "ex.jsonl"
    shutil.copy(made["journal"], journal)

    def full(path, data, field="output", mode=0o644, new=False):
        raise InputError(field, f"could not write {path} (the disk is full); {path} was left as it was", "free space")

    monkeypatch.setattr(files, "write_atomic", full)
    r = _cli("stamp", journal, "--tsa", f"{made['url']}/good", "--out", tmp_path / "stamp.json")
    assert r.exit_code == 2 and "nothing was written" not in r.stderr
    assert f"the token was appended to {journal} as seq 49, but could not write" in r.stderr
    assert jr.read(journal).events[-1]["kind"] == "timestamp.token"


def test_verify_says_what_a_chain_alone_cannot_show(made, tmp_path):
    """A supplier's lawyer cuts the last ten lines off the journal: it still chains, and verify said
    'ok' with nothing more, as if the chain proved the journal whole. With no head handed over
    (--expect) and no token kept apart (--token), verify now says that a chain cannot show lines
    were not cut from the end; with either, it says nothing of the kind, since they can."""
    journal = tmp_path / "cut.jsonl"
    lines = made["journal"].read_bytes().splitlines(keepends=True)
    journal.write_bytes(b"".join(lines[:-10]))
    r = _cli("verify", journal)
    assert r.exit_code == 0 and "cannot show that lines were not cut from the end" in r.stderr
    head = jr.read(journal).head
    r = _cli("verify", journal, "--expect", f"{head['seq']}:{head['hash']}")
    assert r.exit_code == 0 and "cannot show" not in r.stderr


def test_a_score_file_that_appears_while_scoring_is_not_replaced(made, tmp_path, monkeypatch):
    """`score` refuses an --out that exists, but checked it only at the start: a file of that name
    made while the journal was being scored (another run, a colleague's copy) was then replaced by
    the rename. The score is now linked into place, which fails if the name is taken: refused,
    the other file left byte for byte."""
    from day60.evidence import documents

    out = tmp_path / "score.json"
    real = documents.score_result

    def meanwhile(*args, **kwargs):
        out.write_text('{"someone": "else"}\n')
        return real(*args, **kwargs)

    monkeypatch.setattr(documents, "score_result", meanwhile)
    r = _cli("score", made["journal"], "--out", out)
    assert r.exit_code == 2 and "appeared while this command ran" in r.stderr, r.output
    assert out.read_text() == '{"someone": "else"}\n'
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temporary file left behind


def test_a_notice_letter_is_not_said_to_carry_no_data(made, tmp_path):
    """verify-report on the notice letter said it 'carries no embedded day60 data', which is false:
    it carries the notice JSON. It now says what the file is not, what it does carry, and how a
    notice is checked (by the SHA-256 its journal logs)."""
    journal = tmp_path / "ex.jsonl"
    shutil.copy(made["journal"], journal)
    letter = tmp_path / "notice.pdf"
    assert _cli("notice", journal, "--to", "Nimbus", "--out", tmp_path / "notice.json", "--pdf", letter).exit_code == 0
    r = _cli("verify-report", letter)
    assert r.exit_code == 2 and "it carries only notice.json" in r.stderr and "no embedded" not in r.stderr


@pytest.mark.parametrize("command", ["score", "notice", "stamp"])
def test_evidence_outputs_aimed_at_what_they_must_not_replace_name_why(made, tmp_path, command):
    """score, notice and stamp --out aimed at the journal itself, a link to it, a folder, a device and
    an earlier signed report: each refused with exit 2 and the reason that applies (score said
    'already exists' of the journal and of a folder, which hid why), nothing written anywhere."""
    journal = tmp_path / "ex.jsonl"
    shutil.copy(made["journal"], journal)
    link = tmp_path / "link.jsonl"
    link.symlink_to(journal)
    signed = tmp_path / "signed.pdf"
    shutil.copy(made["signed"], signed)
    before = {p: p.read_bytes() for p in (journal, signed)}
    extra = {"score": [], "notice": ["--to", "Nimbus"], "stamp": ["--tsa", f"{made['url']}/good"]}[command]
    for target, words in ((journal, "is also the input JOURNAL"), (link, "is also the input JOURNAL"),
                          (tmp_path, "is a folder"), ("/dev/null", "is not a regular file"),
                          (signed, "a signed or timestamped PDF")):
        r = _cli(command, journal, *extra, "--out", target)
        assert r.exit_code == 2 and words in r.stderr and "Traceback" not in r.output, (command, target, r.output)
    assert {p: p.read_bytes() for p in before} == before
    assert len(jr.read(journal).events) == 48  # no stamp or notice logged either


@pytest.mark.parametrize("mode, words", [("wrong-hash", "the token is over another hash"),
                                         ("expired", "was not valid at the token's time")])
def test_a_report_is_never_written_with_a_token_verify_report_would_refuse(made, tmp_path, mode, words):
    """`stamp` checked each token before writing it, but `score --tsa` put whatever the TSA sent into
    the PDF: a token over another hash, or from a TSA whose certificate had expired, was written,
    reported 'wrote score.pdf', and only verify-report found it broken later. The token is now
    checked before the PDF is finished: refused, nothing written."""
    pdf, out = tmp_path / "score.pdf", tmp_path / "score.json"
    r = _cli("score", made["journal"], "--pdf", pdf, "--out", out, "--tsa", f"{made['url']}/{mode}")
    assert r.exit_code == 2 and words in r.stderr and "nothing was written" in r.stderr, r.output
    assert not pdf.exists() and not out.exists()

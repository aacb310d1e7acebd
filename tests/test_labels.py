"""Labels and table cells that do not fit: shortened with an ellipsis at a word's end, never cut
inside a word, the full text left in the JSON; identifiers in tables broken only after an underscore
or a hyphen."""

import html as htmllib
import re

from hypothesis import given, settings
from hypothesis import strategies as st
from pypdf import PdfReader

from day60 import assess, clauses, render, rubric
from day60 import journal as jr
from day60.display import ELLIPSIS, chart_rows, fit, text_width
from day60.resources import data_dir
from day60.timeline import svg
from tests.budget import examples
from tests.builders import make_journal

DIGIT, UNDERSCORE, MARK = 1303 * 9 / 2048, 1024 * 9 / 2048, 1229 * 9 / 2048  # DejaVu Sans at 9 px


def test_a_label_is_measured_in_the_fonts_own_widths():
    """DejaVu Sans draws a digit 1303/2048 em wide and '_' 1024/2048: '1111_' at 9 px is
    4 x 5.726 + 4.5 = 27.40 px; a CJK character is a full em."""
    assert abs(text_width("1111_", 9) - (4 * DIGIT + UNDERSCORE)) < 1e-9
    assert abs(text_width("1111_", 9) - 27.404296875) < 1e-9
    assert text_width("日本", 10) == 20


def test_a_long_label_is_cut_after_its_last_whole_word_that_fits():
    """'1111_2222_3333_4444_5555' in 102 px at 9 px: each '1111_' is 27.40 px, the whole 132.5 px.
    Three words and the ellipsis take 3 x 27.40 + 5.40 = 87.61 px, four 115.0 px: it reads
    '1111_2222_3333_…'."""
    done = fit("1111_2222_3333_4444_5555", 102, 9)
    assert done == {"text": "1111_2222_3333_" + ELLIPSIS, "squeeze": False, "shortened": True}
    assert fit("1111_2222", 102, 9) == {"text": "1111_2222", "squeeze": False, "shortened": False}


def test_one_word_too_long_for_its_room_is_kept_whole_and_squeezed():
    """Thirty digits are 171.8 px: there is no place to cut them, so they are drawn whole and the
    drawing compresses them into the room."""
    assert fit("1" * 30, 102, 9) == {"text": "1" * 30, "squeeze": True, "shortened": False}
    assert fit("1" * 30 + " and more", 102, 9) == {"text": "1" * 30 + ELLIPSIS, "squeeze": True,
                                                    "shortened": True}


@settings(max_examples=examples(300), deadline=None)
@given(st.text(alphabet="abcXYZ019 _-/(;日", min_size=1, max_size=60), st.floats(10, 400), st.sampled_from([8, 9, 10]))
def test_a_label_is_never_cut_inside_a_word(text, room, size):
    """Whatever the text and room: a label that fits is whole; a shortened one is the text's
    beginning up to a space or just after an underscore, hyphen or slash, then an ellipsis; and it
    fits its room unless it is to be squeezed (one word too long)."""
    plain = " ".join(text.split())
    if not plain:
        return
    done = fit(text, room, size)
    if not done["shortened"]:
        assert done["text"] == plain
    else:
        head = done["text"].removesuffix(ELLIPSIS)
        assert done["text"].endswith(ELLIPSIS) and head and plain.startswith(head)
        rest = plain[len(head):]
        assert head[-1] in "_-/" or rest[0] in " ,;:(", (plain, head)
    assert done["squeeze"] or text_width(done["text"], size) <= room + 1e-9


# ----- the timeline's row labels --------------------------------------------------------------------


def _timeline(tmp_path, ident, withdrawn=False):
    events = [("incident.detected", ident, "2026-03-03T10:00", {"severity": 2, "source": "organic"}),
              ("incident.restored", ident, "2026-03-03T14:00", {"check": "probe"})]
    if withdrawn:
        events.append(("incident.withdrawn", ident, "2026-03-03T15:00", {"reason": "not reproducible"}))
    j = jr.read(make_journal(tmp_path / "j.jsonl", events))
    return svg(j.events, j.calendar(), j.header["window"]), j


def _row_label(drawing):
    return htmllib.unescape(re.search(r'<text x="4" y="[^"]+" fill="#[0-9a-f]+"([^>]*)>([^<]*)</text>',
                                      drawing).group(2))


def test_a_long_incident_id_is_shortened_at_an_underscore_and_kept_whole_in_the_json(tmp_path):
    """The row label has 102 px (110 less the margins) at 9 px: '1111_2222_3333_4444_5555' reads
    '1111_2222_3333_…' (87.6 px; before, it was cut to its first 14 characters, '1111_2222_3333',
    with no mark that anything was left out). The score JSON names the incident in full."""
    drawing, j = _timeline(tmp_path, "1111_2222_3333_4444_5555")
    assert _row_label(drawing) == "1111_2222_3333_" + ELLIPSIS
    done = assess.score_journal(j)
    restore = next(line for line in done.result["lines"] if line["id"] == "restore")
    assert [o["id"] for o in restore["figure"]["observations"]] == ["1111_2222_3333_4444_5555"]


def test_a_withdrawn_incident_keeps_its_mark_whole_and_its_id_gives_way(tmp_path):
    """' (withdrawn)' is 56.97 px at 9 px, leaving 45.0 px for the id: '1111_' and the ellipsis
    take 32.8 px, '1111_2222_' and it 60.2 px, so the label reads '1111_… (withdrawn)'."""
    drawing, _ = _timeline(tmp_path, "1111_2222_3333_4444_5555", withdrawn=True)
    assert _row_label(drawing) == "1111_" + ELLIPSIS + " (withdrawn)"


def test_an_id_of_one_long_word_is_drawn_whole_and_compressed(tmp_path):
    """Thirty digits have nowhere to be cut: the label is all of them, compressed into 102 px."""
    drawing, _ = _timeline(tmp_path, "7" * 30)
    found = re.search(r'<text x="4" y="[^"]+" fill="#[0-9a-f]+"([^>]*)>([^<]*)</text>', drawing)
    assert found.group(2) == "7" * 30
    assert 'textLength="102"' in found.group(1) and 'lengthAdjust="spacingAndGlyphs"' in found.group(1)


# ----- bar charts and tables in the documents -------------------------------------------------------


def test_a_bar_charts_notes_end_at_a_word_with_the_full_note_in_the_json(tmp_path):
    """Three incidents with no restore: each one's note is drawn where its bar would be, in the
    plot, 374 px at 10 px (640 less 124 for the row labels, 134 for the column of values at its
    least, 120 px and 14 of margin, for 'target 8 hours' needs only 70, and 8 inside the plot);
    the longer ones end in an ellipsis after a whole word, and each drawn note is the beginning of
    the full note, which the score JSON carries (before, they were cut at 60 characters, mid-word)."""
    from tests.test_documents import _gaps_journal

    j = jr.read(_gaps_journal(tmp_path / "gaps.jsonl"))
    done = assess.score_journal(j)
    line = next(x for x in done.result["lines"] if x["id"] == "restore")
    notes = [r["text"] for r in chart_rows(line)]
    page = render.score_html(done.journal, done.figures, done.result, reconcile=done.reconciliation())
    drawn = [htmllib.unescape(t) for t in re.findall(r'fill="#b3261e"[^>]*>([^<]+)</text>', page)]
    shortened = [t for t in drawn if t.endswith(ELLIPSIS)]
    assert shortened, drawn
    for text in shortened:
        head = text.removesuffix(ELLIPSIS)
        full = next(n for n in notes if n.startswith(head))
        assert full[len(head)] in " ,;:(" or head[-1] in "_-/", (head, full)
    assert {o["note"] for o in line["figure"]["observations"]} >= {n for n in notes if n.endswith("close")}


def test_the_schedules_parameter_ids_break_only_after_an_underscore(tmp_path):
    """In the A4 schedule the parameter column is 42 mm of 7.5 pt type, too narrow for ids such as
    high_confidence_accuracy_floor_percent: each id runs onto the next line only just after one of
    its underscores, so rejoining lines that end in '_' gives back every id whole."""
    library = clauses.load_library()
    deal = clauses.load_deal(data_dir("clauses") / "examples" / "synthetic-sow.toml", library,
                             rubric.parameter_ids(rubric.load()))
    schedule = clauses.schedule(library, deal)
    out = tmp_path / "schedule.pdf"
    render.pdf(render.html("schedule.html.j2", {"s": schedule}), out)
    text = "\n".join(page.extract_text() for page in PdfReader(out).pages)
    joined = text.replace("_\n", "_")
    ids = [p["id"] for p in schedule["parameters"]]
    assert "high_confidence_accuracy_floor_percent" in ids
    wrapped = [i for i in ids if i not in text]
    assert wrapped, "no id was long enough to wrap: the test would prove nothing"
    for ident in ids:
        assert ident in joined, ident


def test_the_timelines_notes_wrap_between_words_inside_the_drawing(tmp_path):
    """Forty-one incidents in two bursts of a year, in January and in October: the axis is broken
    (two stretches) and one row is not drawn, so the note reads 'ticks: ... open at the close; // :
    a stretch with no recorded event is left out; 1 more row not drawn', about 770 px at 9 px,
    wider than the 752 px the 760 px drawing leaves: it is drawn on two lines, broken between
    words, each inside the drawing (before, one line ran off its right edge, cut mid-word)."""
    import datetime as dt

    from day60.clock import BusinessCalendar
    from day60.resources import example

    bursts = [dt.datetime(2026, 1, 5, 10, tzinfo=dt.UTC), dt.datetime(2026, 10, 5, 10, tzinfo=dt.UTC)]
    events = [{"seq": k + 1, "kind": "incident.detected", "id": f"I{k}",
               "at": (bursts[k % 2] + dt.timedelta(hours=3 * k)).isoformat(),
               "data": {"severity": 2}} for k in range(41)]
    drawing = svg(events, BusinessCalendar.load(example("uk-office.toml")),
                  {"start": "2026-01-01T00:00:00+00:00", "end": "2027-01-01T00:00:00+00:00"})
    assert ">//<" in drawing
    notes = [htmllib.unescape(t) for t in re.findall(r'<text x="4" y="[^"]+" fill="#555">([^<]+)</text>', drawing)]
    full = ("ticks: detections, first communications, decisions; white: business hours; dashed: open at the close; "
            "// : a stretch with no recorded event is left out; 1 more row not drawn")
    assert text_width(full, 9) > 752
    assert len(notes) == 2 and " ".join(notes) == full
    assert all(text_width(line, 9) <= 752 for line in notes)

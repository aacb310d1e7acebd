"""The timeline reads honestly: clustered events are not squeezed into a sliver, the axis ends at
the close, a re-opened incident runs to its last restore."""

import datetime as dt
import itertools
import re

from day60 import journal as jr
from day60.timeline import svg
from tests.builders import make_journal

ORGANIC = {"source": "organic"}


def draw(path):
    j = jr.read(path)
    return svg(j.events, j.calendar(), j.header["window"])


def test_events_on_one_day_of_a_twelve_day_window_get_the_axis_to_themselves(tmp_path):
    """Two incidents on Tue 3 Mar between 10:00 and 16:30, window 2 to 13 Mar: 6.5 h of 272.5 h, far
    under a third, so the axis runs from three hours before to three hours after (07:00 to 19:30),
    labelled by the hour, and the legend says which part of the window is shown."""
    path = make_journal(tmp_path / "j.jsonl", [
        ("incident.detected", "I1", "2026-03-03T10:00", {"severity": 2, **ORGANIC}),
        ("incident.restored", "I1", "2026-03-03T14:00", {"check": "probe"}),
        ("incident.detected", "I2", "2026-03-03T15:00", {"severity": 3, **ORGANIC}),
        ("incident.restored", "I2", "2026-03-03T16:30", {"check": "probe"})])
    out = draw(path)
    assert "the axis runs 03 Mar 07:00 to 03 Mar 19:30 of the window 02 Mar to 13 Mar" in out
    assert ">10:00<" in out and ">13 Mar<" not in out


def test_after_the_close_the_axis_ends_at_the_close(tmp_path):
    """Window 2 to 13 Mar, closed Fri 6 Mar 17:30, events spread over 2 to 5 Mar: the axis runs from
    the window's opening to the close, marked "closed"; no day after 6 Mar is drawn."""
    path = make_journal(tmp_path / "j.jsonl", [
        ("incident.detected", "I1", "2026-03-02T10:00", {"severity": 2, **ORGANIC}),
        ("incident.restored", "I1", "2026-03-05T14:00", {"check": "probe"}),
        ("exercise.close", "exercise", "2026-03-06T17:30")])
    out = draw(path)
    assert ">closed<" in out and ">window opens<" in out
    assert ">09 Mar<" not in out and ">12 Mar<" not in out


def test_a_reopened_incident_is_drawn_to_its_last_restore(tmp_path):
    """Restored at 11:00, re-opened at 12:00, restored again at 15:00: one bar from 10:00 to 15:00,
    the same end the figures use."""
    path = make_journal(tmp_path / "j.jsonl", [
        ("incident.detected", "I1", "2026-03-03T10:00", {"severity": 2, **ORGANIC}),
        ("incident.restored", "I1", "2026-03-03T11:00", {"check": "probe"}),
        ("incident.reopened", "I1", "2026-03-03T12:00", {"reason": "relapse"}),
        ("incident.restored", "I1", "2026-03-03T15:00", {"check": "probe"}),
        ("incident.detected", "I2", "2026-03-03T10:00", {"severity": 2, **ORGANIC}),
        ("incident.restored", "I2", "2026-03-03T15:00", {"check": "probe"})])
    bars = [line for line in draw(path).splitlines() if 'height="7.0" fill="#b3261e"' in line]
    widths = {line.split('width="')[1].split('"')[0] for line in bars}
    assert len(bars) == 2 and len(widths) == 1  # I1 (re-opened) is as long as I2, 10:00 to 15:00


# ----- the date axis: a reader finds any event's date, and the axis's breaks stay off the rows ------

SUMMER = [  # the synthetic self-assessment's records, times in BST
    ("drift.onset", "drift-1", "07-14T10:20"), ("drift.detected", "drift-1", "07-15T09:05"),
    ("drift.notice", "drift-1", "07-16T14:30"),
    ("incident.partner-notice", "incident-1", "08-11T06:25"), ("incident.restored", "incident-1", "08-11T09:50"),
    ("drift.onset", "found-by-you-1", "08-20T11:00"),
    ("rollback.criterion-met", "rehearsal", "08-26T14:00"), ("rollback.decision", "rehearsal", "08-26T14:06"),
    ("rollback.smoke-pass", "rehearsal", "08-26T14:31"), ("rollback.requeue-complete", "rehearsal", "08-26T15:40"),
    ("drift.onset", "drift-2", "09-02T08:00"), ("drift.notice", "drift-2", "09-03T16:10"),
    ("incident.detected", "incident-2", "09-17T11:00"), ("incident.restored", "incident-2", "09-17T18:20"),
    ("incident.detected", "incident-3", "09-22T10:15"), ("incident.restored", "incident-3", "09-23T09:40")]


def _summer_drawing():
    """The synthetic self-assessment's three drifts, three incidents and a rollback rehearsal in its
    window of 1 Jul to 1 Oct 2026 (London), drawn with the UK office calendar."""
    from day60.clock import BusinessCalendar
    from day60.resources import example

    events = [{"seq": k + 1, "kind": kind, "id": ident, "at": f"2026-{when}:00+01:00",
               "data": {"severity": 2, "source": "organic"} if kind.startswith("incident") else {"source": "organic"}}
              for k, (kind, ident, when) in enumerate(SUMMER)]
    return svg(events, BusinessCalendar.load(example("uk-office.toml")),
               {"start": "2026-07-01T00:00:00+01:00", "end": "2026-10-01T00:00:00+01:00"})


def _date_labels(drawing, year=2026):
    """Each date label on the axis: (x, width, y, date), its width measured in DejaVu Sans at its
    own font size (the drawing's 9 where it names none)."""
    from day60.display import text_width

    found = []
    for m in re.finditer(r'<text x="([\d.]+)" y="([\d.]+)"([^>]*)>(\d{2} [A-Z][a-z]{2})</text>', drawing):
        size = re.search(r'font-size="([\d.]+)"', m.group(3))
        size = float(size.group(1)) if size else 9.0
        day = dt.datetime.strptime(f"{m.group(4)} {year}", "%d %b %Y").date()
        found.append((float(m.group(1)), text_width(m.group(4), size), float(m.group(2)), day))
    return found


def _plot_band(drawing):
    """The rows' vertical band: the shaded plot's top and bottom (every stretch's grey rectangle)."""
    rects = [(float(a), float(a) + float(b)) for a, b in
             re.findall(r'<rect x="[\d.]+" y="([\d.]+)" width="[\d.]+" height="([\d.]+)" fill="#e4e4e4"/>', drawing)]
    return min(a for a, _ in rects), max(b for _, b in rects)


def test_every_event_of_a_three_month_window_has_a_date_label_beside_it():
    """Each row's instants, a day either side, make seven stretches of a broken axis: 13 Jul 10:20
    to 17 Jul 14:30 (4.17 days), 10 to 12 Aug (2.14), 19 to 21 Aug (2.00), 25 to 27 Aug (2.07),
    1 to 4 Sep (3.34), 16 to 18 Sep (2.31) and 21 to 24 Sep (2.98): 19.0 days in
    760 - 110 - 12 - 6 x 14 = 564 px, 29.7 px a day. A label such as '28 Sep' at 10 px is about
    35 px and needs 6 px clear, so one a day does not fit and every second day does (59 px). Each
    stretch is labelled at its first midnight and every second one after, where the label fits
    before the stretch ends: 14 and 16 Jul, 11 Aug, 20 Aug, 26 Aug, 02 Sep (04 Sep is 0.67 days,
    20 px, from its stretch's end), 17 Sep and 22 Sep (24 Sep: 0.4 days). Every event's date is a
    day at most from a label (before, three labels served three months: 15 Jul, 03 Sep and
    23 Sep, and 11 Aug was 23 days from the nearest)."""
    labels = _date_labels(_summer_drawing())
    dates = sorted({d for *_, d in labels})
    assert dates == [dt.date(2026, 7, 14), dt.date(2026, 7, 16), dt.date(2026, 8, 11), dt.date(2026, 8, 20),
                     dt.date(2026, 8, 26), dt.date(2026, 9, 2), dt.date(2026, 9, 17), dt.date(2026, 9, 22)]
    for _, _, when in SUMMER:
        event = dt.date(2026, int(when[:2]), int(when[3:5]))
        assert min(abs((label - event).days) for label in dates) <= 1, event


def test_date_labels_never_overlap():
    """On each line of labels, every label ends (its x plus its measured width) at least 2 px before
    the next one starts, for the broken three-month axis and for a year drawn whole."""
    for drawing in (_summer_drawing(), _year_drawing()):
        labels = _date_labels(drawing)
        assert labels
        for line in {y for _, _, y, _ in labels}:
            row = sorted((x, w) for x, w, y, _ in labels if y == line)
            for (x, w), (nx, _) in itertools.pairwise(row):
                assert x + w + 2 <= nx, (x, w, nx)


def test_axis_breaks_are_marked_on_the_axis_never_inside_a_row():
    """Seven stretches have six breaks between them, and the window's first twelve days (1 to 13
    Jul) and last week (24 Sep to 1 Oct) are left out too, each marked at its end of the axis: eight
    marks. Each '//' is drawn at 10 px on the date axis's line, 10 px above the first row: its
    glyphs reach from about 7.6 px above its baseline to 2.4 px below, all above the shaded band
    that holds the rows (before, each mark sat halfway down the rows, over whatever row was drawn
    there, and nothing marked the left-out ends)."""
    drawing = _summer_drawing()
    top, bottom = _plot_band(drawing)
    marks = [float(y) for y in re.findall(r'<text x="[\d.]+" y="([\d.]+)"[^>]*>//</text>', drawing)]
    assert len(marks) == 8
    for y in marks:
        assert y + 0.24 * 10 < top or y - 0.76 * 10 > bottom, (y, top, bottom)


def _year_drawing():
    """Forty-one incidents eight days apart from Mon 5 Jan 2026, in a window of the year 2026."""
    from day60.clock import BusinessCalendar
    from day60.resources import example

    events = [{"seq": k + 1, "kind": "incident.detected", "id": f"I{k}",
               "at": (dt.datetime(2026, 1, 5, 10, tzinfo=dt.UTC) + dt.timedelta(days=8 * k)).isoformat(),
               "data": {"severity": 2}} for k in range(41)]
    return svg(events, BusinessCalendar.load(example("uk-office.toml")),
               {"start": "2026-01-01T00:00:00+00:00", "end": "2027-01-01T00:00:00+00:00"})


def test_a_year_of_spread_events_is_drawn_whole_with_a_label_each_month():
    """Forty-one stretches of two days each would leave (648 - 40 x 14) / 41 = 2.1 px a stretch, no
    room for a date (the axis was a barcode of 40 breaks): the year is drawn whole instead, 648 px
    for 365 days, 1.8 px a day, too narrow for a label even every 14 days (25 px), so each month's
    first day is labelled: 01 Jan to 01 Dec, twelve labels over the rows (and the same twelve under
    them, the drawing having more than twelve rows). No event is more than a month from a label."""
    drawing = _year_drawing()
    assert ">//<" not in drawing
    labels = _date_labels(drawing)
    assert sorted({d for *_, d in labels}) == [dt.date(2026, m, 1) for m in range(1, 13)]
    assert len(labels) == 24


def test_the_listing_show_prints_puts_each_line_at_its_corrected_instant_with_its_mark(tmp_path):
    """``timeline.listed``, what 'day60 show' prints: a safety sign-off at Mon 2 Mar 09:00, an
    injected onset at 10:00 (sealed, then revealed at the close by the builder), and an incident
    detected Tue 3 Mar 10:00 that the runner then corrects to 09:30 ("typed the wrong hour").
    Lines 1 to 5 are the sign-off, onset, incident, reveal (seq 4) and correction (seq 5); the
    reveal and the correction are fixes, shown as marks on the lines they fix, not as rows. So three
    rows in time order: seq 1 (no mark), seq 2 "revealed at close", seq 3 at 09:30 (March is GMT,
    +00:00) marked as corrected by seq 5, naming the 10:00 it replaced and the reason."""
    from zoneinfo import ZoneInfo

    from day60 import reading, timeline
    from tests.builders import SIGN_OFF

    path = make_journal(tmp_path / "j.jsonl", [
        ("safety.agreed", "d1", "2026-03-02T09:00", SIGN_OFF), ("drift.onset", "d1", "2026-03-02T10:00"),
        ("incident.detected", "i1", "2026-03-03T10:00", {"severity": 2, "source": "organic"})])
    jr.correct(path, 3, dt.datetime(2026, 3, 3, 9, 30, tzinfo=ZoneInfo("Europe/London")), "typed the wrong hour")
    rows = timeline.listed(reading.read(path, events=True))
    assert [(r["seq"], r["at"], r["kind"], r["mark"]) for r in rows] == [
        (1, "2026-03-02T09:00:00+00:00", "safety.agreed", ""),
        (2, "2026-03-02T10:00:00+00:00", "drift.onset", "revealed at close"),
        (3, "2026-03-03T09:30:00+00:00", "incident.detected",
         "corrected by seq 5 (was 2026-03-03 10:00 +00:00): typed the wrong hour")]
    assert {r["by"] for r in rows} == {"Test runner"}

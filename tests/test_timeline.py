"""The timeline reads honestly: clustered events are not squeezed into a sliver, the axis ends at
the close, a re-opened incident runs to its last restore."""

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

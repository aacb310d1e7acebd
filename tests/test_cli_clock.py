import json

from day60.resources import example

UK = example("uk-office.toml")


def test_hours_json_is_unrounded_real_time(run):
    # Fri 27 Mar 16:00 GMT to Mon 30 Mar 10:00 BST: 65 real hours (the clocks went forward);
    # business: Fri 1.5 h + Mon 1 h, less a 30-minute pause inside Monday's hours.
    r = run("hours", "-c", UK, "2026-03-27T16:00", "2026-03-30T10:00",
            "--pause", "2026-03-30T09:00/2026-03-30T09:30", "--format", "json")
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert data["wall_seconds"] == 65 * 3600
    assert data["business_seconds"] == 2 * 3600


def test_hours_table(run):
    r = run("hours", "-c", UK, "2026-03-02T09:00+00:00", "2026-03-02T10:15+00:00")
    assert r.exit_code == 0
    assert "business  1.25 h" in r.stdout


def test_hours_refuses_time_in_spring_gap(run):
    r = run("hours", "-c", UK, "2026-03-29T01:30", "2026-03-30T10:00")
    assert r.exit_code == 2
    assert r.stderr.startswith("error: START:")
    assert "does not exist" in r.stderr
    assert "Traceback" not in r.output


def test_hours_refuses_reversed_range_and_bad_pause(run):
    r = run("hours", "-c", UK, "2026-03-03T09:00", "2026-03-02T09:00")
    assert r.exit_code == 2 and "error: end:" in r.stderr
    r = run("hours", "-c", UK, "2026-03-02T09:00", "2026-03-03T09:00", "--pause", "2026-03-02T10:00")
    assert r.exit_code == 2 and "--pause[0]" in r.stderr


def test_hours_bad_calendar_file(run, tmp_path):
    bad = tmp_path / "cal.toml"
    bad.write_text('[calendar]\ntimezone = "Europe/London"\n[calendar.hours]\nmon = ["9-5"]\n')
    r = run("hours", "-c", bad, "2026-03-02T09:00", "2026-03-03T09:00")
    assert r.exit_code == 2
    assert "calendar.hours.mon" in r.stderr
    r = run("hours", "-c", tmp_path / "missing.toml", "2026-03-02T09:00", "2026-03-03T09:00")
    assert r.exit_code == 2 and "--calendar" in r.stderr


def test_hours_bad_format(run):
    r = run("hours", "-c", UK, "2026-03-02T09:00", "2026-03-03T09:00", "--format", "xml")
    assert r.exit_code == 2 and "--format" in r.stderr


def test_calendar_show_lists_holidays_and_intervals(run):
    r = run("calendar", "show", UK, "--from", "2026-12-24", "--to", "2026-12-29", "--format", "json")
    assert r.exit_code == 0
    days = {d["date"]: d for d in json.loads(r.stdout)["days"]}
    assert days["2026-12-28"]["closed"] == "Boxing Day (observed)"
    assert days["2026-12-28"]["intervals"] == []
    assert days["2026-12-24"]["intervals"] == [["2026-12-24T09:00:00+00:00", "2026-12-24T17:30:00+00:00"]]
    table = run("calendar", "show", UK, "--from", "2026-12-24", "--to", "2026-12-29")
    assert "Christmas Day" in table.stdout and "09:00-17:30" in table.stdout


def test_calendar_show_bad_dates(run):
    r = run("calendar", "show", UK, "--from", "24/12/2026", "--to", "2026-12-29")
    assert r.exit_code == 2 and "--from" in r.stderr
    r = run("calendar", "show", UK, "--from", "2026-12-29", "--to", "2026-12-24")
    assert r.exit_code == 2 and "--to" in r.stderr


def test_help_has_examples(run):
    for cmd in (["hours"], ["calendar", "show"]):
        r = run(*cmd, "--help")
        assert r.exit_code == 0 and "Example:" in r.stdout

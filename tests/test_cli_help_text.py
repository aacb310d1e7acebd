"""Help and error text a user copies from: examples that run, pointers to pages that exist."""

from pathlib import Path

import pytest

from day60.clock import BusinessCalendar
from day60.errors import InputError

DOCS = Path(__file__).resolve().parent.parent / "docs"


def test_new_help_example_names_a_shipped_calendar(run):
    """The example must use the shipped name `uk-office`; `uk.toml` is no file anyone has."""
    r = run("new", "--help")
    assert r.exit_code == 0
    assert "-c uk-office" in r.stdout and "uk.toml" not in r.stdout


def test_comply_list_checks_never_prints_none(run):
    """false-containment is reported only: it has no deal parameter, shown as "-"."""
    r = run("comply", "--list-checks")
    assert r.exit_code == 0
    assert "None" not in r.stdout
    row = next(ln for ln in r.stdout.splitlines() if ln.startswith("false-containment "))
    assert row.split()[1:5] == ["false-containment", "percent", "report", "-"]


def test_comply_list_checks_json_keeps_null_for_no_parameter(run):
    """The JSON twin states the absence as data (null), not as the table's dash."""
    import json

    listed = json.loads(run("comply", "--list-checks", "--format", "json").stdout)
    fc = next(c for c in listed if c["check"] == "false-containment")
    assert fc["parameter"] is None


@pytest.mark.parametrize("text, field", [
    ('[other]\nx = 1\n', "calendar"),
    ('[calendar]\ntimezone = "Europe/London"\nhours = 5\n', "calendar.hours"),
])
def test_calendar_errors_point_at_the_calendar_page(tmp_path, text, field):
    path = tmp_path / "cal.toml"
    path.write_text(text)
    with pytest.raises(InputError) as e:
        BusinessCalendar.load(path)
    message = str(e.value)
    assert field in message and "README" not in message
    assert "docs/calendars.md" in message and (DOCS / "calendars.md").is_file()


@pytest.mark.parametrize("sub", ["score", "bench"])
def test_voice_compat_help_points_at_the_voice_page(run, sub):
    r = run("voice", sub, "--help")
    assert r.exit_code == 0
    assert "README" not in r.stdout and "docs/voice.md" in r.stdout.replace("\n", " ")
    assert (DOCS / "voice.md").is_file()


def test_no_text_in_the_package_sends_users_to_the_readme():
    """The reference moved to docs/; the README is a short start page now."""
    pkg = Path(__file__).resolve().parent.parent / "day60"
    hits = [f"{p.relative_to(pkg)}:{n}" for p in pkg.rglob("*.py")
            for n, line in enumerate(p.read_text().splitlines(), 1) if "the README" in line]
    assert hits == []

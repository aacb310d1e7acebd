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


def test_no_text_in_the_package_points_at_a_folder_of_the_source_tree():
    """A newcomer installed the wheel: there is no selfassess/examples/ or day60/imports/examples/
    in their folder, so a help example or an error that names one sends them nowhere. Every such
    pointer names the command that copies the file out instead ('day60 examples NAME --copy DIR')."""
    import re

    pkg = Path(__file__).resolve().parent.parent / "day60"
    tree = re.compile(r"\b(?:day60|selfassess|rubric|clauses|templates)/(?:[\w-]+/)*examples/")
    hits = [f"{p.relative_to(pkg)}:{n}: {line.strip()}" for p in pkg.rglob("*.py")
            for n, line in enumerate(p.read_text().splitlines(), 1) if tree.search(line)
            and not line.lstrip().startswith("#")]
    assert hits == []


@pytest.mark.parametrize("args", [["selfassess"], ["voice", "drills"], ["clauses", "export"]])
def test_a_help_example_names_a_file_the_examples_command_gives(run, args):
    """The help's example runs on a shipped SYNTHETIC file: the help says which example copies it,
    and that example holds the file under the name the example line uses."""
    import json
    import re

    text = " ".join(run(*args, "--help").stdout.split())
    example = re.search(r"Example: (day60 [^()]+?) \(.*?day60 examples ([\w-]+) --copy \.\)", text)
    assert example, text
    listed = json.loads(run("examples", example[2], "--format", "json").stdout)
    used = re.findall(r"[\w-]+\.(?:json|toml)", example[1])
    assert used and set(used) <= set(listed["files"]), (used, listed["files"])


def test_an_option_shown_as_a_date_takes_a_date(run):
    """`notice --to` names the supplier the notice goes to; its help once showed it as
    `--to YYYY-MM-DD` (borrowed from `calendar show --to`), so a partner typed a date. Every option
    the help shows as YYYY-MM-DD says in its own help that it takes a date, and notice's --to reads
    as a name."""
    import typer.main

    from day60.cli import app

    def walk(cmd, path):
        yield cmd, path
        for name, sub in getattr(cmd, "commands", {}).items():
            yield from walk(sub, [*path, name])

    wrong = []
    for cmd, path in walk(typer.main.get_command(app), []):
        run(*path, "--help")  # the help names metavars as it is drawn
        for param in cmd.params:
            if param.metavar == "YYYY-MM-DD" and "date" not in (param.help or "").lower():
                wrong.append(f"{' '.join(path)} {max(param.opts, key=len)}")
    assert wrong == []
    shown = run("notice", "--help").stdout
    assert "--to SUPPLIER" in shown and "YYYY-MM-DD" not in shown

"""What a newcomer types first: bare commands print their help, --version says what this is."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from day60 import __version__


@pytest.mark.parametrize("args", [[], ["voice"], ["clauses"], ["calendar"]])
def test_a_bare_command_prints_its_help_normally(run, args):
    r = run(*args)
    assert r.exit_code == 0 and r.stderr == ""
    assert r.stdout.startswith("Usage: ") and "\\n" not in r.stdout and "error:" not in r.stdout
    assert "Commands:" in r.stdout


def test_version_names_the_source_commit(run):
    """In this checkout the commit is git's HEAD (a wheel carries it from its build). git is asked
    in the checkout's own folder: a newcomer running pytest from the folder above got '' here."""
    head = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, check=False,
                          cwd=Path(__file__).resolve().parent).stdout.strip()
    r = run("--version")
    assert r.exit_code == 0 and r.stdout.startswith(f"day60 {__version__}, ")
    assert (head and head in r.stdout) or "unknown" in r.stdout


def test_an_unknown_command_is_still_one_error_line(run):
    r = run("nosuch")
    assert r.exit_code == 2 and r.stderr.startswith("error: No such command") and r.stderr.count("\n") == 1


def test_examples_lists_and_copies_what_the_wheel_ships(run, tmp_path):
    r = run("examples", "--format", "json")
    names = {x["name"]: x for x in __import__("json").loads(r.stdout)}
    assert {"uk-office", "synthetic-deal", "synthetic-answers", "import-servicenow"} <= set(names)
    # The vendors are named as their users know them, not by the importer's lower-case key.
    assert "ServiceNow export" in names["import-servicenow"]["what"]
    assert "PagerDuty" in names["import-pagerduty"]["what"]
    assert run("examples", "synthetic-deal", "--copy", tmp_path).exit_code == 0
    copied = tmp_path / "synthetic-sow.toml"
    assert copied.read_text().startswith("# SYNTHETIC deal file")
    copied.write_text(copied.read_text() + "# the partner's own note\n")  # the user's edit
    before = copied.read_bytes()
    r = run("examples", "synthetic-deal", "--copy", tmp_path)
    assert r.exit_code == 2 and "never replaces" in r.stderr and copied.read_bytes() == before
    assert r.stderr.count("\n") == 1 and r.stderr.startswith("error: --copy (synthetic-sow.toml): ")
    r = run("examples", "uk-ofice")
    assert r.exit_code == 2 and "did you mean 'uk-office'" in r.stderr
    assert run("examples", "uk-office", "--copy", tmp_path / "missing").exit_code == 2


def test_two_import_examples_copy_into_one_folder(run, tmp_path):
    """Every import example ships the same README.md: after 'import-csv --copy .', copying
    'import-jira' into the same folder keeps that README (byte for byte the same) and adds Jira's
    files, instead of refusing the whole copy. A README the user has edited is never replaced:
    the copy is refused, naming it, and nothing is written."""
    assert run("examples", "import-csv", "--copy", tmp_path).exit_code == 0
    readme = tmp_path / "README.md"
    r = run("examples", "import-jira", "--copy", tmp_path)
    assert r.exit_code == 0, r.output
    assert "kept " in r.stderr and (tmp_path / "jira-map.toml").is_file()
    other = tmp_path / "other"
    other.mkdir()
    assert run("examples", "import-csv", "--copy", other).exit_code == 0
    (other / "README.md").write_text("my notes\n")
    r = run("examples", "import-jira", "--copy", other)
    assert r.exit_code == 2 and "README.md already exists" in r.stderr and r.stderr.count("\n") == 1
    assert (other / "README.md").read_text() == "my notes\n" and not (other / "jira-map.toml").exists()
    assert readme.read_bytes() == (tmp_path / "README.md").read_bytes()


def test_the_copy_plan_keeps_the_same_file_and_refuses_a_different_one(tmp_path):
    """``files.copy_plan``, what 'examples --copy' follows: into an empty folder every file of
    import-csv is to be written (none the same); once its README.md is there byte for byte,
    import-jira's README.md is kept (same) and its other files are to be written; a README.md that
    differs is refused naming it, as is a folder that does not exist; an unknown example is refused
    by ``resources.shipped_example`` with the closest name."""
    from day60 import files, resources
    from day60.errors import InputError

    csv_files = resources.shipped_example("import-csv")["files"]
    jira_files = resources.shipped_example("import-jira")["files"]
    plan = files.copy_plan(csv_files, tmp_path)
    assert [(src, target.name, same) for src, target, same in plan] == [(s, s.name, False) for s in csv_files]
    readme = next(s for s in csv_files if s.name == "README.md")
    (tmp_path / "README.md").write_bytes(readme.read_bytes())
    jira = files.copy_plan(jira_files, tmp_path)
    assert {t.name: same for _, t, same in jira}["README.md"] is True
    assert [t.name for _, t, same in jira if not same] and all(not (tmp_path / t.name).exists()
                                                                for _, t, same in jira if not same)
    (tmp_path / "README.md").write_text("my notes\n")
    for sources, folder, field in ((jira_files, tmp_path, "--copy (README.md)"),
                                   (csv_files, tmp_path / "missing", "--copy")):
        with pytest.raises(InputError) as exc:
            files.copy_plan(sources, folder)
        assert exc.value.field == field
    with pytest.raises(InputError) as exc:
        resources.shipped_example("import-jra")
    assert exc.value.field == "NAME" and "did you mean 'import-jira'?" in exc.value.fix


def test_a_calendar_is_taken_by_its_shipped_name(run):
    """Fri 27 Mar 16:00 GMT to Mon 30 Mar 10:00 BST on the UK office: 1.5 h on Friday and 1 h on
    Monday = 2.5 business hours; 65 h of wall time across the clock change."""
    r = run("hours", "-c", "uk-office", "2026-03-27T16:00", "2026-03-30T10:00", "--format", "json")
    got = __import__("json").loads(r.stdout)
    assert (got["wall_seconds"], got["business_seconds"]) == (65 * 3600, 2.5 * 3600)
    assert run("calendar", "show", "uk-office", "--from", "2026-12-24", "--to", "2026-12-28").exit_code == 0
    r = run("hours", "-c", "nope", "2026-03-27T16:00", "2026-03-30T10:00")
    assert r.exit_code == 2 and "uk-office" in r.stderr
    # An empty name (a shell variable that was never set: -c "$CAL") is said to be empty, not
    # refused as "." being a folder the user never typed.
    r = run("hours", "-c", "", "2026-03-27T16:00", "2026-03-30T10:00")
    assert r.exit_code == 2 and r.stderr.startswith("error: --calendar: is empty; ") and "uk-office" in r.stderr


def test_the_demo_says_what_to_open_and_its_next_commands_run(run, demo_run):
    """The demo run once for the session (``demo_run``, tests/conftest.py: it exited 0) and what it
    printed; the three commands it suggests only read its files, so they run on the shared folder."""
    import shlex

    from day60.demo import next_steps

    out, said = demo_run
    assert "Open " in said and "score.pdf first" in said
    # It says where each file it wrote is: every file in the folder is named (the journals' own
    # index companions and the folder's marker aside), the self-assessment's journal included.
    written = {p.name for p in out.iterdir() if not p.name.startswith(".") and ".index" not in p.name}
    assert {name for name in written if f"{out / name}" not in said} == set()
    steps = next_steps(out)
    assert len(steps) == 3
    for command, _ in steps:
        assert command in said
        done = run(*shlex.split(command)[1:])
        assert done.exit_code in (0, 1), (command, done.output)  # comply finds the demo's breaches: exit 1
    from pypdf import PdfReader

    pages = PdfReader(out / "selfassess.pdf").pages
    inputs = " ".join(" ".join(page.extract_text().split()) for page in pages)
    # The lawyer reads the Inputs list as the files the score was computed from: one answers file,
    # so one "Answers SHA-256" line, never the same digest listed twice as if two files were used.
    assert inputs.count("Answers SHA-256") == 1, inputs


def test_tables_keep_wide_characters_aligned_and_whole_cells_in_a_pipe(capsys):
    """A CJK name takes two columns a character: the next column still starts at the same place
    on every line (measured in terminal cells), and a long cell is never cut when not on a terminal."""
    from rich.cells import cell_len

    from day60.cli.base import print_table

    long = "word " * 60
    print_table([{"who": "漢字の名前", "what": "x"}, {"who": "ab", "what": long.strip()}])
    lines = capsys.readouterr().out.splitlines()
    starts = {cell_len(line[:line.index(marker)]) for line, marker in ((lines[2], "x"), (lines[3], "word"))}
    assert len(starts) == 1 and lines[3].endswith("word") and long.strip() in lines[3]


def test_a_table_too_wide_for_a_narrow_terminal_reads_as_one_block_a_row(capsys, monkeypatch):
    """On a 40-column terminal (a phone's SSH session, a split pane) the nine-column restore table
    cannot fit even with every cell wrapped at its words: rich would squeeze each column to three
    cells and print every header and 'not run' a letter or three a line. Each row becomes a block of
    names and values instead: every name and every value whole on its line, a CJK-and-emoji id
    included, and no line wider than the terminal (measured in terminal cells)."""
    import os
    import shutil
    import sys

    from rich.cells import cell_len

    from day60.cli.base import print_table

    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    monkeypatch.setattr(shutil, "get_terminal_size", lambda *a, **k: os.terminal_size((40, 24)))
    columns = ["severity", "restored", "mean", "median", "max", "waiting on partner", "change windows",
               "first comms mean", "withdrawn/excluded/open/unconfirmed"]
    rows = [dict(zip(columns, ["漂移一号🚀", "0", "not run", "not run", "not run", "not run", "not run",
                               "not run (n=0)", "0/0/0/0"], strict=True)),
            dict(zip(columns, ["2", "1", "2.80 h", "2.80 h", "2.80 h", "2.42 h", "0.00 h", "0.40 h (n=1)",
                               "0/0/0/0"], strict=True))]
    print_table(rows)
    out = __import__("re").sub(r"\x1b\[[0-9;]*m", "", capsys.readouterr().out)
    lines = [line.strip() for line in out.splitlines()]
    assert max(cell_len(line) for line in out.splitlines()) <= 40
    for name in columns:
        assert lines.count(name) == 2, name  # once a row, whole
    for value in ("漂移一号🚀", "not run (n=0)", "0.40 h (n=1)", "0/0/0/0"):
        assert value in lines, value
    # At 80 columns the score table fits once each column has at least its longest word: it stays a
    # table, and no word is broken across lines (rich alone printed "drift-detect" over "ion").
    monkeypatch.setattr(shutil, "get_terminal_size", lambda *a, **k: os.terminal_size((80, 24)))
    score = [{"line": "drift-detection", "points": "10", "earned": "0.00", "status": "scored",
              "figure": "n=1: D1: not evidenced: no detection time disclosed", "reason": ""},
             {"line": "rollback-time, rollback-decision, requeue, smoke-set", "points": "8, 4, 4, 4",
              "earned": "0.00, 0.00, 0.00, 0.00", "status": "not exercised", "figure": "not run",
              "reason": "no production rollback in the window (rehearsals and production are never mixed)"}]
    print_table(score)
    text = __import__("re").sub(r"\x1b\[[0-9;]*m", "", capsys.readouterr().out)
    assert text.splitlines()[0].split() == list(score[0]) and max(cell_len(x) for x in text.splitlines()) <= 80
    words = set(text.split())
    assert all(w in words for row in score for cell in row.values() for w in cell.split()), text
    # The same table on a wide terminal stays a table: one header line naming every column.
    monkeypatch.setattr(shutil, "get_terminal_size", lambda *a, **k: os.terminal_size((200, 24)))
    print_table(rows)
    wide = __import__("re").sub(r"\x1b\[[0-9;]*m", "", capsys.readouterr().out).splitlines()
    assert all(name in wide[0] for name in columns) and len(wide) == 4


@pytest.mark.parametrize(("args", "points_at"), [
    (["score"], "day60 score --help"), (["clauses", "export"], "day60 clauses export --help"),
    (["score", "--frob"], "day60 score --help"), (["nosuch"], "day60 --help")])
def test_a_usage_error_points_at_the_help_of_the_command_typed(run, args, points_at):
    """A newcomer who types 'day60 score' with no journal is sent to the page that says what score
    takes, not to the list of every command; a mistyped command name still goes to that list."""
    r = run(*args)
    assert r.exit_code == 2 and r.stderr.count("\n") == 1
    assert r.stderr.rstrip().endswith(f"see '{points_at}'"), r.stderr


def test_a_reader_that_stops_reading_is_not_a_failed_check():
    """`day60 kinds | head -1`: the reader takes what it wants and closes the pipe while kinds is
    still writing. Here the pipe's reading end is closed before kinds starts, so its first write
    meets the closed pipe every time (with head, when it does depends on timing). Exit 1 is kept
    for a check that failed (docs/conventions.md), so this exits 141 (128 + SIGPIPE, as a shell
    reports a command stopped by a closed pipe) and prints nothing, since no one reads it. Before,
    click exited 1 with no message, which a script reads as a breach found."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        done = subprocess.run([sys.executable, "-m", "day60", "kinds"], stdout=write_end, stderr=subprocess.PIPE,
                              timeout=60, check=False)
    finally:
        os.close(write_end)
    assert done.returncode == 141
    assert done.stderr == b""


@pytest.mark.parametrize("args", [["--help"], ["log", "--help"]])
def test_a_reader_gone_before_the_help_is_read_is_not_a_failed_check(args):
    """The same closed pipe met while the help is printed (`day60 --help | head -1`): the help is
    written before any command runs, and click exited 1 there too. 141, nothing printed."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        done = subprocess.run([sys.executable, "-m", "day60", *args], stdout=write_end, stderr=subprocess.PIPE,
                              timeout=60, check=False)
    finally:
        os.close(write_end)
    assert (done.returncode, done.stderr) == (141, b"")

"""An import's report lists (every ticket imported, left out or in conflict, every finding) are
kept on disk past their first few thousand items (``imports.spool``) and read back in the order
they were added, nothing lost: as lists, in the table, and in ``--format json``, which must print
every one exactly as it printed them when they were Python lists.

Every export here is SYNTHETIC.
"""

import json

import pytest

from day60.cli.base import print_json
from day60.imports import normalise, spool
from tests import imports_common as common
from tests.test_imports_streamed import _samples


def _items():
    """Ten findings as an import writes them, with what JSON must carry unchanged: a nested list,
    a missing value, a float, text outside ASCII."""
    return [{"ticket": f"INC{k:04d}", "why": ["re-opened 1 time(s)"] * (k % 3), "hours": k / 4 if k % 2 else None,
             "note": "café ü"} for k in range(10)]


def test_items_come_back_in_order_from_the_file(monkeypatch):
    """With MEMORY = 3, appending ten items writes them to the file three at a time (after the
    3rd, 6th and 9th: three rows of three, nine items in the file, the tenth still held); two put
    in front come first. Read
    back: twelve items, the two in front then the ten in the order appended, by iteration, by
    place (first, last, the sixth) and by slice; equal to the plain list, unequal to a shorter one."""
    monkeypatch.setattr(spool.Spool, "MEMORY", 3)
    items = _items()
    front = [{"ticket": None, "note": "read first"}, {"ticket": None, "note": "read second"}]
    store = spool.Store()
    s = store.spool()
    for item in items:
        s.append(item)
    s.prepend(front)
    assert store.con.execute("SELECT count(*) FROM pages").fetchone()[0] == 3
    whole = front + items
    assert len(s) == 12
    assert list(s) == whole
    assert s == whole and s != whole[:-1]
    assert (s[0], s[-1], s[5], s[8]) == (front[0], items[9], items[3], items[6])  # s[8]: a page's first
    assert s[:4] == whole[:4] and s[3:11:3] == whole[3:11:3] and s[10:] == whole[10:] and s[::-1] == whole[::-1]
    with pytest.raises(IndexError):
        s[12]
    other = store.spool()  # a second list in the same file keeps its own items
    other.extend(["a", "b", "c", "d"])
    assert list(other) == ["a", "b", "c", "d"] and list(s) == whole


def test_json_prints_a_spooled_list_as_it_printed_the_list(monkeypatch, capsys):
    """``print_json`` writes a document holding spooled (or streamed) lists byte for byte as the
    same document holding plain lists: every item, in order, laid out as ``json.dumps(indent=2)``
    lays out a list (an empty one as ``[]``)."""
    monkeypatch.setattr(spool.Spool, "MEMORY", 4)
    store = spool.Store()
    listed, ids, empty = store.spool(), store.spool(), store.spool()
    listed.extend(_items())
    ids.extend(f"INC{k:04d}" for k in range(9))
    print_json({"findings": {"distorted": _items(), "open": []}, "imported": [f"INC{k:04d}" for k in range(9)]})
    plain = capsys.readouterr().out
    print_json({"findings": {"distorted": listed, "open": empty}, "imported": ids})
    assert capsys.readouterr().out == plain
    # a reconciliation's rows, built as they are written, likewise (read twice: built twice)
    rows = spool.Streamed(10, _items)
    print_json({"findings": {"distorted": rows, "open": spool.Streamed(0, list)}, "imported": ids})
    assert capsys.readouterr().out == plain and list(rows) == list(rows) == _items()
    assert json.loads(plain)["findings"]["distorted"] == _items()


@pytest.mark.parametrize("name", ["servicenow, every clock fact", "jira examples", "zendesk, every clock fact"])
def test_an_import_reports_the_same_with_its_lists_on_disk(run, tmp_path, monkeypatch, name):
    """The same export imported into two fresh journals, once with every list held in memory and
    once with every item of every list written to the file (MEMORY = 1), prints the same JSON
    (bar the run's time and the new journal's head) and the same table."""
    def imported(memory, folder):
        monkeypatch.setattr(spool.Spool, "MEMORY", memory)
        folder.mkdir()
        args = _samples(folder)[name]
        j = common.new_journal(folder)
        out = common.imported(run, j, *args)
        table = run("import", *args, "--journal", common.new_journal(folder, "again.jsonl")).stdout
        for key in ("provenance", "head", "journal"):
            out.pop(key)
        return out, [line for line in table.splitlines() if "head " not in line and "run 20" not in line]

    held = imported(10**9, tmp_path / "held")
    spooled = imported(1, tmp_path / "spooled")
    assert spooled == held
    assert held[0]["imported"], "the sample imports tickets"


def test_giving_memory_back_is_harmless_without_malloc_trim(monkeypatch):
    """Where the C library has no malloc_trim (macOS, musl, Windows) the call does nothing and
    raises nothing."""
    import ctypes

    normalise.give_back()  # on this machine's C library, whatever it is

    class NoTrim:
        def __init__(self, name):
            pass

    monkeypatch.setattr(ctypes, "CDLL", NoTrim)
    assert normalise.give_back() is None

    def refuse(name):
        raise OSError("no C library")

    monkeypatch.setattr(ctypes, "CDLL", refuse)
    assert normalise.give_back() is None


def test_an_export_too_large_for_the_reading_memory_is_refused_in_one_line(run, tmp_path, monkeypatch):
    """DuckDB reads ServiceNow's CSV exports under ``READ_MEMORY_LIMIT`` (512 MB: what a million
    tickets with four audit rows each need, and not much more). Held to 1 MB, even the shipped
    sample cannot be read: the import stops with one line that says it is the memory, not the
    export's text, and how to import it (in parts), exit 2, the journal as it was."""
    from day60.imports import servicenow
    from tests.test_imports import EX

    monkeypatch.setattr(servicenow, "READ_MEMORY_LIMIT", "1MB")
    line = common.refused(run, common.new_journal(tmp_path), "servicenow", EX / "servicenow-incident.csv",
                          EX / "servicenow-sys_audit.csv", "--mode", "raw", "--map", EX / "servicenow-map.toml")
    assert "needs more than the 1MB of memory" in line and "in parts" in line and "export it again" not in line


def test_the_rows_go_into_the_engines_tables_a_part_at_a_time(run, tmp_path, monkeypatch):
    """``engine.after`` puts an import's rows into the tables the reconciliation reads a part of
    ``Appended.PART`` tickets at a time. With one ticket a part, or two, the import reports the same
    reconciliation (every ticket's figures and reasons) and the journal the same figures as with
    every ticket in one part."""
    from day60 import engine

    def imported(part, folder):
        monkeypatch.setattr(engine.Appended, "PART", part)
        folder.mkdir()
        j = common.new_journal(folder)
        out = common.imported(run, j, *_samples(folder)["servicenow, every clock fact"])
        return out["reconcile"], common.figures_json(run, j)

    whole = imported(10**9, tmp_path / "whole")
    assert whole[0]["compared"] == 6  # INC0020002 to INC0020007 (test_imports_streamed)
    assert imported(1, tmp_path / "one") == whole
    assert imported(2, tmp_path / "two") == whole


def test_rows_that_outgrow_the_tables_limit_go_in_with_the_reads_room(run, tmp_path, monkeypatch):
    """``engine.after`` groups an import's rows under HELD_MEMORY_LIMIT (256 MB) and, where DuckDB
    runs out of memory there, once more with READ_MEMORY_LIMIT (512 MB). Held to 1 MB, the grouping
    runs out and runs again with 512 MB, and the import reports the same reconciliation as with
    the tables' own limit, where it runs once."""
    from day60 import engine

    group = engine._group

    def imported(held, folder):
        monkeypatch.setattr(engine, "HELD_MEMORY_LIMIT", held)
        limits = []

        def watched(con):
            limits.append(con.execute("SELECT current_setting('memory_limit')").fetchone()[0])
            group(con)

        monkeypatch.setattr(engine, "_group", watched)
        folder.mkdir()
        out = common.imported(run, common.new_journal(folder), *_samples(folder)["servicenow, every clock fact"])
        return out["reconcile"], limits

    roomy, once = imported("256MB", tmp_path / "held")
    tight, twice = imported("1MB", tmp_path / "tight")
    assert once == ["244.1 MiB"] and twice == ["976.5 KiB", "488.2 MiB"]  # DuckDB shows MB as MiB
    assert tight == roomy and roomy["compared"] == 6

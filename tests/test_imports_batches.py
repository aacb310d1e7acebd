"""An import holds a block of tickets at a time: the ids it has read are looked up a block at a
time, its journal lines reach the spool a block at a time, and the index takes the rules' state
of each new ticket from the import's own check of it (one pass of the rules per event). The
blocks' sizes must change nothing a user sees: these tests make them tiny, so that a block ends
inside one ticket's events and between a ticket and its repeat, and hold the result to the one
with the usual sizes. SYNTHETIC exports (the ServiceNow set of test_imports_servicenow)."""

import datetime as dt
import itertools
import json

import pytest

from day60 import journal as jr
from day60.imports import normalise
from day60.journal import index, store
from tests.imports_common import imported, new_journal, refused, write
from tests.test_imports_servicenow import AUDIT, CHANGES, INCIDENTS, MAP, NOTES, TASK_SLA
from tests.test_index import rebuilt_rows, rows_of


@pytest.fixture
def export(tmp_path):
    return [write(tmp_path, "incident.csv", INCIDENTS), write(tmp_path, "sys_audit.csv", AUDIT),
            write(tmp_path, "change_request.csv", CHANGES), write(tmp_path, "task_sla.csv", TASK_SLA),
            write(tmp_path, "sys_journal_field.csv", NOTES)]


def tiny_blocks(monkeypatch):
    """Blocks of two items, two index events and one journal line: with tickets of two to six
    events, a block boundary falls inside a ticket's events and between every pair of tickets."""
    monkeypatch.setattr(normalise._Seen, "BLOCK", 2)
    monkeypatch.setattr(index.BatchUpdate, "BLOCK", 2)
    monkeypatch.setattr(store.Batch, "BLOCK_CHARS", 1)


def events_of(path):
    """What each event says, without when it was recorded (and so without its hashes)."""
    return [(e["seq"], e["kind"], e["id"], e["at"], e["data"]) for e in jr.read(path).events]


def test_tiny_blocks_give_the_same_import_journal_and_index(run, tmp_path, export, monkeypatch):
    """The same export imported with the usual block sizes and with tiny ones writes the same events
    and reports the same buckets; in both, the index holds what a full replay of the journal
    gives, so the next append is checked against the right state."""
    m = write(tmp_path, "map.toml", MAP)
    usual = new_journal(tmp_path, "usual.jsonl")
    out_usual = imported(run, usual, "servicenow", *export, "--mode", "raw", "--map", m)
    tiny_blocks(monkeypatch)
    tiny = new_journal(tmp_path, "tiny.jsonl")
    out_tiny = imported(run, tiny, "servicenow", *export, "--mode", "raw", "--map", m)
    for key in ("read", "imported", "skipped", "unreadable", "unmatched", "conflicts", "files", "findings",
                "reconcile"):
        assert out_tiny[key] == out_usual[key], key
    assert out_tiny["events"] == out_usual["events"] > len(out_usual["imported"])
    assert events_of(tiny) == events_of(usual)
    assert rows_of(usual) == rebuilt_rows(usual)
    assert rows_of(tiny) == rebuilt_rows(tiny)


def test_a_ticket_split_across_index_blocks_is_checked_whole(run, tmp_path, export, monkeypatch):
    """With index blocks of two events, a ticket of three events has its last event replayed in
    another block than its first (the test finds one such ticket as the blocks are replayed). Its
    rows in the index are then those of its whole history: a second restore of a ticket whose last
    event is a restore is refused as already restored, as after a full replay."""
    tiny_blocks(monkeypatch)
    blocks: list[list[tuple[str, str]]] = []
    replay = index.BatchUpdate.replay

    def spy(self):
        blocks.append([(p[2], p[1]) for p in self.pending])
        return replay(self)

    monkeypatch.setattr(index.BatchUpdate, "replay", spy)
    j = new_journal(tmp_path)
    imported(run, j, "servicenow", *export, "--mode", "raw", "--map", write(tmp_path, "map.toml", MAP))
    split = [a[-1][0] for a, b in itertools.pairwise(blocks) if a and b and a[-1][0] == b[0][0]]
    every = [pair for block in blocks for pair in block]
    restored = [i for i in split if [k for x, k in every if x == i][-1] == "incident.restored"]
    assert restored, blocks
    assert rows_of(j) == rebuilt_rows(j)
    with pytest.raises(jr.InputError, match="already restored"):
        jr.append(j, "incident.restored", restored[0], dt.datetime(2026, 3, 13, 12, tzinfo=dt.UTC),
                  {"check": "SYNTHETIC again"})


def test_a_repeat_found_blocks_later_refuses_and_leaves_journal_and_index_as_they_were(run, tmp_path, monkeypatch):
    """INC0020002 (row 2) is given again as row 9: with blocks of two items the repeat is found
    four blocks after the first copy, when lines of the first tickets are already in the spool and
    the index has taken their rows (uncommitted). The import is refused naming both places, and
    the journal, its index and the index's seal are byte for byte as before."""
    tiny_blocks(monkeypatch)
    j = new_journal(tmp_path)
    m = write(tmp_path, "map.toml", MAP)
    first = write(tmp_path, "first.csv", INCIDENTS.splitlines()[0] + "\n" + INCIDENTS.splitlines()[2] + "\n")
    imported(run, j, "servicenow", first, "--mode", "raw", "--map", m)  # the index now holds rows
    lines = INCIDENTS.splitlines()
    again = write(tmp_path, "incident.csv", "\n".join([*lines, lines[3]]) + "\n")
    before = {p: p.read_bytes() for p in (j, index.index_path(j), index.seal_path(j))}
    line = refused(run, j, "servicenow", again, "--mode", "raw", "--map", m)
    assert "1 ticket id(s) appear more than once: 'INC0020003' (incident.csv INC0020003, incident.csv INC0020003)" \
        in line
    assert {p: p.read_bytes() for p in before} == before


def test_a_refusal_at_the_end_after_lines_were_spooled_writes_nothing(run, tmp_path, export, monkeypatch):
    """Priority 1 (INC0020002 and INC0020003) has no deal severity in this severity map: the import
    reads every ticket, spools the lines of the others a line at a time, and is refused at the end
    naming the value; the journal and its index are as they were."""
    tiny_blocks(monkeypatch)
    j = new_journal(tmp_path)
    before = {p: p.read_bytes() for p in (j, index.index_path(j), index.seal_path(j)) if p.exists()}
    line = refused(run, j, "servicenow", *export, "--mode", "raw", "--map", write(tmp_path, "map.toml", MAP),
                   "--severity-map", "2=2,3=3,4=4")
    assert "no deal severity is given for '1'" in line
    assert {p: p.read_bytes() for p in before} == before
    assert not list(tmp_path.glob(".*.batch"))  # the spool is gone


def test_seen_ids_name_the_first_place_across_blocks():
    """``_Seen`` with blocks of two: ids a, b | c, a | b -> the second a names a's place (block 1),
    the second b names b's place (block 1); every other item is new."""
    from day60.imports.records import Ticket

    items = [Ticket(ref, f"row {n}", "1", None) for n, ref in enumerate("abcab", start=1)]
    seen = normalise._Seen()
    seen.BLOCK = 2
    got = [(ident, first) for _item, ident, first in seen.blocks("csv", items)]
    assert got == [("csv:a", None), ("csv:b", None), ("csv:c", None), ("csv:a", "row 1"), ("csv:b", "row 2")]


def test_an_index_for_the_journal_holding_the_id_is_replayed_not_vouched(tmp_path):
    """An id the index already holds rows for (here a wait opened by hand before the import) is
    replayed on those rows even where the caller vouches for it: a wait-start the import adds is
    refused, since a wait is already open, where the caller's check from an empty state passed."""
    path = new_journal(tmp_path)
    jr.append(path, "incident.detected", "csv:T1", dt.datetime(2026, 3, 3, 10, tzinfo=dt.UTC),
              {"severity": 2, "source": "organic"})
    jr.append(path, "incident.wait-start", "csv:T1", dt.datetime(2026, 3, 3, 10, 30, tzinfo=dt.UTC),
              {"note": "by hand"})
    vouched = jr.State()
    with pytest.raises(jr.InputError, match="already open"), jr.batch(path) as b:
        b.add("incident.wait-start", "csv:T1", "2026-03-03T11:00:00+00:00", "test", {"note": "import"})
        b.checked("csv:T1", vouched)
    assert json.loads(path.read_text().splitlines()[-1])["data"] == {"note": "by hand"}

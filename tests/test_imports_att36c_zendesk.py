"""What the outside attack att36c found in ``day60 import zendesk``, each fixed and held here.
The exports are the tester's hand-written SYNTHETIC files, in the shapes of Zendesk's Support
API reference, copied into ``tests/data/imports/zendesk`` (``att36c_*``, each with a
``.source.txt`` naming its shape). Expected figures are worked by hand in each docstring; London
is UTC in early March 2026.
"""

from pathlib import Path

import pytest

from tests.imports_common import events_of, imported, new_journal, per_ticket, refused

ZD = Path(__file__).parent / "data" / "imports" / "zendesk"
ZD_MAP = """\
[columns]
check = "custom_field:360001"
[severity]
urgent = 1
high = 2
normal = 3
low = 4
"""


def _zd_map(tmp_path: Path, extra: str = "") -> Path:
    path = tmp_path / "zd-map.toml"
    path.write_text(ZD_MAP + extra, encoding="utf-8")
    return path


def _kinds(journal: Path, ident: str) -> list[tuple[str, str]]:
    return [(kind, at) for kind, at, _ in events_of(journal, ident)]


def test_zendesk_status_word_the_api_never_writes_refuses_the_import(run, tmp_path):
    """N1. Ticket 601's status is "Solved" (capitalised, as a UI or CSV export writes it) and
    603's is "resuelto" (no Zendesk status at all); 602's is the API's "solved". The Support API
    writes new, open, pending, hold, solved, closed (and deleted), all lower case, so neither
    word can be read: before the fix both were taken as open, the solve at 12:00 turned into a
    re-open "at a time not evidenced", exit 0. Now the import refuses, exit 2, one line naming
    both words, the tickets that hold them and the map's [states] as the fix; nothing written."""
    j = new_journal(tmp_path)
    line = refused(run, j, "zendesk", ZD / "att36c_tickets-6xx.json", ZD / "att36c_ticket_metrics-6xx.json",
                   "--map", _zd_map(tmp_path))
    assert "'Solved' (ticket 601)" in line and "'resuelto' (ticket 603)" in line, line
    assert "[states]" in line and "602" not in line, line


def test_zendesk_status_word_named_in_the_map_is_read(run, tmp_path):
    """N1, the way out. With the map's [states] resolved = ["Solved", "resuelto"], both words
    mean over: each ticket, created 09:00 with solved_at 12:00 and its check set, is restored at
    12:00, 3.00 h at least (the opening stands in for the detection), with no re-open."""
    j = new_journal(tmp_path)
    out = imported(run, j, "zendesk", ZD / "att36c_tickets-6xx.json", ZD / "att36c_ticket_metrics-6xx.json",
                   "--map", _zd_map(tmp_path, '[states]\nresolved = ["Solved", "resuelto"]\n'))
    for ref in ("601", "603"):
        t = per_ticket(j).loc[f"zendesk:{ref}"]
        assert t["status"] == "restored" and t["restore_hours_at_least"] == pytest.approx(3.0, abs=1e-9), ref
        assert ("incident.restored", "2026-03-03T12:00:00+00:00") in _kinds(j, f"zendesk:{ref}"), ref
    assert not out["findings"]["reopened"]

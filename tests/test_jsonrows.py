"""`metrics --format json` writes its per-incident rows a slice at a time (day60/jsonrows.py):
the document must read back as the one built whole before, whichever encoder wrote the rows."""

import json
import math

import numpy as np
import pandas as pd
import pytest

from day60 import jsonrows, reading
from day60 import metrics as mx
from day60.cli.base import print_json
from day60.display import jsonable
from tests.builders import make_journal

# Eight incidents, one of each kind of row (GMT, so local times are UTC):
EVENTS = [
    # I1: detected 10:00, restored 12:30: measured, 2.5 h
    ("incident.detected", "I1", "2026-03-03T10:00", {"severity": 2, "source": "organic"}),
    ("incident.restored", "I1", "2026-03-03T12:30", {"check": "probe"}),
    # I2: the clock starts at the ticket's opening: a range, at least 1 h
    ("incident.detected", "I2", "2026-03-03T10:00", {"severity": 3, "source": "organic",
                                                     "clock_start": "ticket-opened"}),
    ("incident.restored", "I2", "2026-03-03T11:00", {"check": "probe"}),
    # I3: communicated at 09:30, before the detection at 10:00: out of order, at least 1.5 h
    ("incident.detected", "I3", "2026-03-04T10:00", {"severity": 1, "source": "organic"}),
    ("incident.communicated", "I3", "2026-03-04T09:30"),
    ("incident.restored", "I3", "2026-03-04T11:00", {"check": "probe"}),
    # I4: a wait from 10:15 never ended: between 0.25 h and 1 h
    ("incident.detected", "I4", "2026-03-04T10:00", {"severity": 4, "source": "organic"}),
    ("incident.wait-start", "I4", "2026-03-04T10:15"),
    ("incident.restored", "I4", "2026-03-04T11:00", {"check": "probe"}),
    # I5: no severity, restored a quarter of a second after the notice (an instant with a fraction)
    ("incident.partner-notice", "I5", "2026-03-05T10:00"),
    ("incident.restored", "I5", "2026-03-05T10:00:00.250000+00:00", {"check": "probe"}),
    # I6 withdrawn, I7 closed with no check, I8 still open
    ("incident.detected", "I6", "2026-03-05T10:00", {"severity": 2, "source": "organic"}),
    ("incident.withdrawn", "I6", "2026-03-05T11:00", {"reason": "not reproducible"}),
    ("incident.detected", "I7", "2026-03-05T10:00", {"severity": 2, "source": "organic"}),
    ("incident.ticket-closed", "I7", "2026-03-05T11:00", {"state": "Closed", "resolved": True}),
    ("incident.detected", "I8", "2026-03-06T10:00", {"severity": 1, "source": "organic"}),
]


@pytest.fixture(scope="module")
def varied(tmp_path_factory):
    return make_journal(tmp_path_factory.mktemp("rows") / "varied.jsonl", EVENTS)


def _without_run(document):
    """The document less what differs from one run to the next (its provenance)."""
    return {k: v for k, v in document.items() if k != "provenance"}


def _built_whole(path):
    """The document as `metrics --format json` built it before its rows were streamed: every row a
    dict, the whole document one json.dumps, read back."""
    figures = mx.compute(reading.read(path))
    summary = {**figures.summary, "incidents": {**figures.summary["incidents"],
                                                "observations": mx.incident_rows(figures)}}
    return json.loads(json.dumps(jsonable(summary), sort_keys=True, allow_nan=False))


@pytest.mark.parametrize("encoder", ["json", "duckdb"])
def test_streamed_rows_read_back_as_the_document_built_whole(varied, run, monkeypatch, encoder):
    """Both encoders give the rows the whole document had, value for value and type for type (a
    severity a whole number, a figure a float, a missing figure null)."""
    monkeypatch.setattr(jsonrows, "DUCKDB_FROM", 1 if encoder == "duckdb" else 10**9)
    r = run("metrics", varied, "--format", "json")
    assert r.exit_code == 0, r.output
    got = json.loads(r.stdout)
    expected = _built_whole(varied)
    assert _without_run(got) == {**expected, "head": got["head"]}
    rows = {o["id"]: o for o in got["incidents"]["observations"]}
    assert [type(rows[i]["severity"]) for i in ("I1", "I5")] == [int, type(None)]
    assert rows["I1"]["restore_hours"] == 2.5 and isinstance(rows["I1"]["restore_hours"], float)
    assert rows["I4"]["restore_hours_at_least"] == 0.25 and rows["I4"]["restore_hours_at_most"] == 1.0
    assert rows["I5"]["restored"] == "2026-03-05T10:00:00.250000+00:00"
    assert rows["I1"]["restored"] == "2026-03-03T12:30:00+00:00"
    assert rows["I6"]["restore_hours"] is None and rows["I6"]["status"] == "withdrawn"


def test_each_row_is_one_line(varied, run):
    """The rows are compact, one a line, inside the indented document: 8 incidents, 8 lines."""
    text = run("metrics", varied, "--format", "json").stdout
    lines = [line for line in text.splitlines() if line.lstrip().startswith('{"change_window_hours"')]
    assert len(lines) == 8 and all(line.startswith("      {") for line in lines)


def test_the_demo_journal_reads_as_before(demo_folder, run):
    journal = demo_folder / "exercise.jsonl"
    got = json.loads(run("metrics", journal, "--format", "json").stdout)
    assert _without_run(got) == {**_built_whole(journal), "synthetic": got["synthetic"], "head": got["head"]}


def test_the_table_still_names_ranged_and_out_of_order_incidents(varied, run):
    """The table lists only the incidents it has something to say about (their rows alone are built)."""
    out = run("metrics", varied).stdout
    assert "I2: not evidenced: at least 1.00 h" in out and "I4: not evidenced: between 0.25 and 1.00 h" in out
    assert "I3: out of order: the first communication" in out
    assert "I1: " not in out and "I8: " not in out


def _print(capsys, document):
    print_json(document)
    return capsys.readouterr().out


@pytest.mark.parametrize("bulk_from", [1, 10**9])
def test_rows_of_every_type_are_written_as_json_would(capsys, monkeypatch, bulk_from):
    """Edge values, worked out by hand: NaN and infinities are null; an instant without a fraction
    has none, one with a fraction keeps its six digits; NaT is null; a severity is whole; doubles
    read back as the same double; a direction control in a text is escaped (\\u202e), never raw."""
    monkeypatch.setattr(jsonrows, "DUCKDB_FROM", bulk_from)
    table = pd.DataFrame({
        "id": ["A", "B\u202eC", "é"],
        "severity": [1.0, np.nan, 4.0],
        "hours": [0.1 + 0.2, math.inf, 1e20],
        "count": np.array([0, 3, -2], dtype=np.int64),
        "flag": [True, False, True],
        "note": [None, "x", None],
        "at": pd.to_datetime([1_772_532_000_000_000, None, 1_772_532_000_250_000], unit="us", utc=True),
    })
    text = _print(capsys, {"b": 1, "a": {"rows": jsonrows.Rows(table), "z": None}})
    assert "\u202e" not in text and "\\u202e" in text
    back = json.loads(text)
    assert back["b"] == 1 and back["a"]["z"] is None
    assert back["a"]["rows"] == [
        {"at": "2026-03-03T10:00:00+00:00", "count": 0, "flag": True, "hours": 0.30000000000000004, "id": "A",
         "note": None, "severity": 1},
        {"at": None, "count": 3, "flag": False, "hours": None, "id": "B\u202eC", "note": "x", "severity": None},
        {"at": "2026-03-03T10:00:00.250000+00:00", "count": -2, "flag": True, "hours": 1e20, "id": "é",
         "note": None, "severity": 4},
    ]
    assert [type(r["severity"]) for r in back["a"]["rows"]] == [int, type(None), int]
    assert isinstance(back["a"]["rows"][2]["hours"], float)


def test_no_rows_is_an_empty_list(capsys):
    back = json.loads(_print(capsys, {"rows": jsonrows.Rows(pd.DataFrame({"id": pd.Series([], dtype=str)}))}))
    assert back == {"rows": []}


def test_many_slices_keep_their_order(capsys, monkeypatch):
    """Rows cut into slices of 7 come out in the table's order, each once."""
    monkeypatch.setattr(jsonrows, "DUCKDB_FROM", 1)
    monkeypatch.setattr(jsonrows, "SLICE", 7)
    table = pd.DataFrame({"n": np.arange(100, dtype=np.int64), "x": np.arange(100) / 4})
    back = json.loads(_print(capsys, {"rows": jsonrows.Rows(table)}))
    assert [r["n"] for r in back["rows"]] == list(range(100))
    assert [r["x"] for r in back["rows"]][:5] == [0.0, 0.25, 0.5, 0.75, 1.0]

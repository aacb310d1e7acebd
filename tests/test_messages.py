"""One line naming every wrong field: a person fixes a bad input in one go, not one field a run."""

import json

from tests.test_journal import journal, unchanged  # noqa: F401  (journal is a fixture)


def test_log_names_every_wrong_value_and_every_missing_field_at_once(run, journal):  # noqa: F811
    run("log", journal, "report.received", "--id", "2026-02", "--at", "2026-03-04T10:00")
    err = unchanged(run, journal, "log", journal, "report.element", "--id", "exception-rate", "--at",
                    "2026-03-04T11:00", "--set", "present=maybe", "--set", "covers_period=3")
    assert "--set supported=..." in err  # missing
    assert "--set present: must be true or false" in err and "--set covers_period: must be true or false" in err
    err = unchanged(run, journal, "log", journal, "report.element", "--id", "exception-rate", "--at",
                    "2026-03-04T11:00", "--set", "present=maybe", "--set", "covers_period=3", "--set", "supported=1")
    assert err.startswith("error: --set present, --set covers_period:")


def test_a_drills_file_names_every_wrong_field(run, tmp_path):
    path = tmp_path / "obs.json"
    path.write_text(json.dumps({"call": {"id": "c"}, "drills": {
        "barge_in": {"speech_heard": "sometimes", "interrupt_ms": "soon"}}}))
    r = run("voice", "drills", path)
    assert r.exit_code == 2 and r.stderr.count("\n") == 1
    assert "speech_heard" in r.stderr and "interrupt_ms" in r.stderr

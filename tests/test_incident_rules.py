"""The rules of fact for an incident's end: restores, ticket closures and re-opens (charter
3.19.4: the clock stops at a monitoring-confirmed restore, and a relapse re-opens it), and an
injection that could not be made safe (4.5.1)."""

import pytest

from tests.test_journal import SAFETY, journal, unchanged  # noqa: F401  (journal is a fixture)


def log(run, path, *args):
    r = run("log", path, *args)
    assert r.exit_code == 0, r.output
    return r


def test_a_relapse_is_logged_as_a_reopen_never_as_a_second_restore(run, journal):  # noqa: F811
    """Detected 10:00, restored 12:00. A second restore, or a partner notice dated after 12:00,
    would otherwise be accepted and then ignored: both are refused until incident.reopened is
    logged, and the refusal says so. A notice dated 09:30 (before the restore) is the original
    fault logged late: accepted. A re-open before 12:00, or a restore before the re-open, is refused."""
    log(run, journal, "incident.detected", "--id", "I1", "--at", "2026-03-04T10:00", "--set", "severity=2",
        "--set", "source=organic")
    unchanged(run, journal, "log", journal, "incident.reopened", "--id", "I1", "--at", "2026-03-04T11:00",
              "--set", "reason=x")  # still live: nothing to re-open
    log(run, journal, "incident.restored", "--id", "I1", "--at", "2026-03-04T12:00", "--set", "check=probe")
    err = unchanged(run, journal, "log", journal, "incident.restored", "--id", "I1", "--at", "2026-03-04T15:00",
                    "--set", "check=probe")
    assert "already restored" in err and "incident.reopened" in err
    err = unchanged(run, journal, "log", journal, "incident.partner-notice", "--id", "I1", "--at",
                    "2026-03-04T13:00")
    assert "incident.reopened" in err
    log(run, journal, "incident.partner-notice", "--id", "I1", "--at", "2026-03-04T09:30")
    unchanged(run, journal, "log", journal, "incident.reopened", "--id", "I1", "--at", "2026-03-04T11:59",
              "--set", "reason=relapse")
    log(run, journal, "incident.reopened", "--id", "I1", "--at", "2026-03-04T13:00", "--set",
        "reason=partner reports the queue stalled again")
    unchanged(run, journal, "log", journal, "incident.restored", "--id", "I1", "--at", "2026-03-04T12:30",
              "--set", "check=probe")
    log(run, journal, "incident.partner-notice", "--id", "I1", "--at", "2026-03-04T13:05")  # live again
    log(run, journal, "incident.restored", "--id", "I1", "--at", "2026-03-04T16:00", "--set", "check=probe")
    assert run("verify", journal).exit_code == 0


def test_a_closed_ticket_can_be_reopened_and_then_restored(run, journal):  # noqa: F811
    """A ticket closed with no monitoring check, re-opened, then restored with one: each step is
    accepted in that order, and a closure after a restore leaves the incident restored."""
    log(run, journal, "incident.detected", "--id", "T1", "--at", "2026-03-04T10:00", "--set", "source=organic")
    log(run, journal, "incident.ticket-closed", "--id", "T1", "--at", "2026-03-04T11:00", "--set", "state=Closed",
        "--set", "resolved=true")
    unchanged(run, journal, "log", journal, "incident.reopened", "--id", "T1", "--at", "2026-03-04T10:30",
              "--set", "reason=x")  # before the closure it re-opens
    log(run, journal, "incident.reopened", "--id", "T1", "--at", "2026-03-04T11:30", "--set", "reason=caller")
    unchanged(run, journal, "log", journal, "incident.ticket-closed", "--id", "T1", "--at", "2026-03-04T11:10",
              "--set", "state=Closed", "--set", "resolved=true")  # before the re-open
    log(run, journal, "incident.restored", "--id", "T1", "--at", "2026-03-04T12:00", "--set", "check=probe")
    log(run, journal, "incident.ticket-closed", "--id", "T1", "--at", "2026-03-04T12:30", "--set", "state=Closed",
        "--set", "resolved=true")
    unchanged(run, journal, "log", journal, "incident.restored", "--id", "T1", "--at", "2026-03-04T13:00",
              "--set", "check=probe")  # still restored: the closure did not re-open it


def test_an_injection_that_cannot_be_made_safe_is_not_run_without_a_sign_off(run, journal):  # noqa: F811
    """Charter 4.5.1: an exercise that cannot meet the safety conditions is not run. Recording
    that needs no sign-off naming owners who do not exist; the id can then never be injected."""
    log(run, journal, "injection.not-run", "--id", "D1", "--at", "2026-03-02T09:10", "--set",
        "reason=no stop owner could be named")
    unchanged(run, journal, "log", journal, "safety.agreed", "--id", "D1", "--at", "2026-03-02T09:20", *SAFETY)
    err = unchanged(run, journal, "log", journal, "drift.onset", "--id", "D1", "--at", "2026-03-02T09:30",
                    "--set", "affected_class=x", "--seal", journal.parent / "held.json")
    assert "not run" in err


@pytest.mark.parametrize("index", [True, False])
def test_rules_hold_with_and_without_the_index(run, journal, index):  # noqa: F811
    """The sidecar index keeps each incident's ending; deleting it (a full replay) refuses the same."""
    from day60.journal.index import index_path

    log(run, journal, "incident.detected", "--id", "I1", "--at", "2026-03-04T10:00", "--set", "source=organic")
    log(run, journal, "incident.restored", "--id", "I1", "--at", "2026-03-04T12:00", "--set", "check=probe")
    if not index:
        index_path(journal).unlink()
    unchanged(run, journal, "log", journal, "incident.restored", "--id", "I1", "--at", "2026-03-04T15:00",
              "--set", "check=probe")

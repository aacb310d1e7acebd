"""What an outside attack on the room found server side (the room's fifth attack report): a
correction the supplier claims shown as the line's time, a correction's time asked no question, a
correction's id in the supplier's own numbering, lookalike ids and names, and a backdated claim
reading like any other at the auditor's accept step.

Fast tests: the app called in this process (``tests.test_web_views.call``, no network), the
page's data (``day60.web.shown``) and the command line through CliRunner.
"""

import datetime as dt
import json

from typer.testing import CliRunner

from day60 import journal as jr
from day60.cli import app as cli
from day60.permissions import Actor
from day60.web import shown
from day60.web.room import Participant, Room

at = dt.datetime.fromisoformat
SELLER = Actor("supplier", "Sam Seller")
ANA = Actor("auditor", "Ana Ruiz")


def december(path):
    """A journal worked by hand: uk-office (London, which is UTC, +00:00, in December), window Tue
    1 December 2026 09:00 to Fri 11 December 17:30. Seq 1: the supplier's claim that it detected
    I1 (a real incident) at Sat 5 December 03:43:00; seq 2: the supplier's correction of it to
    03:45:02, not yet judged."""
    r = CliRunner().invoke(cli, ["new", str(path), "--partner", "Acme BPO", "--supplier", "Nimbus AI",
                                 "--deployment", "claims", "--tier", "T3", "-c", "uk-office", "--window-start",
                                 "2026-12-01T09:00", "--window-end", "2026-12-11T17:30", "--runner", "J. Auditor",
                                 "--not-synthetic", "--announced"])
    assert r.exit_code == 0, r.output
    assert jr.append(path, "incident.detected", "I1", at("2026-12-05T03:43:00+00:00"), {}, actor=SELLER)["seq"] == 1
    assert jr.correct(path, 1, at("2026-12-05T03:45:02+00:00"), "our console was slow", actor=SELLER)["seq"] == 2
    return path


def show_row(path, seq: int) -> dict:
    r = CliRunner().invoke(cli, ["show", str(path), "--format", "json"])
    assert r.exit_code == 0, r.output
    return next(row for row in json.loads(r.output)["timeline"] if row["seq"] == seq)


def page_row(path, seq: int, who=Participant("Bo Lind", "observer")) -> dict:
    room = Room(path, None)
    return next(row for row in shown.timeline(room, who)["rows"] if row["seq"] == seq)


# ----- finding 6: a correction the supplier claims is no time until it is accepted ------------------


PENDING = "correction to 2026-12-05 03:45:02 +00:00 claimed by the supplier (seq 2), awaiting an auditor's acceptance"


def test_a_pending_correction_by_the_supplier_leaves_the_recorded_time_in_show_and_on_every_page(tmp_path):
    """Seq 1 was recorded at 03:43:00; the supplier's correction (seq 2) to 03:45:02 is judged by no
    one, so it counts in no figure: 'day60 show' and every page keep 03:43:00 as seq 1's time and
    say the correction is claimed and waiting. Before: both showed 03:45:02 as the time (the page
    with 03:43:00 struck through, show with "corrected by seq 2 (was 03:43)")."""
    path = december(tmp_path / "ex.jsonl")
    row = show_row(path, 1)
    assert row["at"] == "2026-12-05T03:43:00+00:00"
    assert PENDING in row["mark"] and "corrected by" not in row["mark"]
    for who in (Participant("Bo Lind", "observer"), Participant("J. Auditor", "runner"),
                Participant("Sam Seller", "supplier")):
        page = page_row(path, 1, who)
        assert page["at"] == "2026-12-05T03:43:00+00:00" and page["was"] is None, page
        assert PENDING in page["marks"], page["marks"]


def test_a_rejected_correction_says_so_and_an_accepted_one_moves_the_time(tmp_path):
    """Rejected by Ana (seq 3): the time stays 03:43:00 and the mark says "rejected by seq 3".
    In a second journal Ana accepts it (seq 3): the time is 03:45:02, with 03:43:00 as the one it
    replaced (show: "corrected by seq 2 (was 2026-12-05 03:43 +00:00)", seconds shown only when
    not zero)."""
    rejected = december(tmp_path / "no.jsonl")
    jr.append(rejected, "reject", "I1", at("2026-12-05T09:00:00+00:00"), {"target": 2, "reason": "no log"},
              actor=ANA)
    said = "correction to 2026-12-05 03:45:02 +00:00 claimed by the supplier (seq 2), rejected by seq 3"
    assert show_row(rejected, 1)["at"] == "2026-12-05T03:43:00+00:00" and said in show_row(rejected, 1)["mark"]
    page = page_row(rejected, 1)
    assert (page["at"], page["was"]) == ("2026-12-05T03:43:00+00:00", None) and said in page["marks"]

    accepted = december(tmp_path / "yes.jsonl")
    jr.append(accepted, "accept", "I1", at("2026-12-05T09:00:00+00:00"), {"target": 2, "reason": "log seen"},
              actor=ANA)
    row = show_row(accepted, 1)
    assert row["at"] == "2026-12-05T03:45:02+00:00"
    assert "corrected by seq 2 (was 2026-12-05 03:43 +00:00)" in row["mark"]
    page = page_row(accepted, 1)
    assert (page["at"], page["was"]) == ("2026-12-05T03:45:02+00:00", "2026-12-05T03:43:00+00:00"), page
    assert not any("claimed by the supplier (seq 2)" in m for m in page["marks"])

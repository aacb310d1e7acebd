"""What an outside attack on the room found server side (the room's fifth attack report): a
correction the supplier claims shown as the line's time, a correction's time asked no question, a
correction's id in the supplier's own numbering, lookalike ids and names, and a backdated claim
reading like any other at the auditor's accept step.

Fast tests: the app called in this process (``tests.test_web_views.call``, no network), the
page's data (``day60.web.shown``) and the command line through CliRunner.
"""

import datetime as dt
import json

import pytest
from typer.testing import CliRunner

from day60 import journal as jr
from day60.cli import app as cli
from day60.permissions import Actor
from day60.web import app as webapp
from day60.web import press as presses
from day60.web import shown
from day60.web.room import Keys, Participant, Room
from tests.test_web_views import post

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


# ----- finding 5: a correction's time is asked the question a press's time is ------------------------


def correcting(path, when: str, who=Participant("Sam Seller", "supplier")):
    """The supplier's page presses "correct a line" on seq 1 with ``when`` typed as the right time
    (the page asks before writing: ``warn_only``), stamped Sat 5 December 2026 09:00 UTC."""
    room = Room(path, None)
    press = presses.Press("correction", "1", None, {"target": "1", "at": when, "reason": "our console was slow"})
    return presses.record(room, who, press, at("2026-12-05T09:00:00+00:00"), False, warn_only=True)


def test_a_correction_to_a_time_in_the_future_or_outside_the_window_is_asked_first(tmp_path):
    """The window is 1 December 09:00 to 11 December 17:30 (London, +00:00; the window as it was
    set, to the minute). A correction of seq 1 to 1 October 2026 10:00 (London on summer time then:
    +01:00) is before the window opens, and one to a day 40 days from now is in
    the future and after the window closes: each is asked first, nothing written, as a press of
    the detection at that time would be. One to 5 December 03:50 (inside, past) is written.
    Before: both were written at once as claims."""
    path = december(tmp_path / "ex.jsonl")
    written = path.read_bytes()
    early = correcting(path, "2026-10-01 10:00")
    assert early.unconfirmed and early.warnings == [
        "2026-10-01T10:00:00+01:00 is before the exercise window opens (2026-12-01T09:00+00:00 to "
        "2026-12-11T17:30+00:00)"], early.warnings
    later = (dt.datetime.now(dt.UTC) + dt.timedelta(days=40)).replace(microsecond=0)
    future = correcting(path, later.isoformat())
    assert future.unconfirmed and len(future.warnings) == 2, future.warnings
    assert "is in the future" in future.warnings[0] and "after the exercise window closes" in future.warnings[1]
    assert path.read_bytes() == written
    inside = correcting(path, "2026-12-05 03:50")
    assert not inside.unconfirmed and inside.events[-1]["data"]["at"] == "2026-12-05T03:50:00+00:00"


def test_a_correction_time_that_is_no_time_is_not_offered_to_be_left_empty(tmp_path):
    """The right time is required on the correction's form, so its refusal says what to type, never
    "or leave it empty for now" (which a press's own time, stamped on arrival, may be)."""
    from day60.errors import InputError
    from day60.web import words

    path = december(tmp_path / "ex.jsonl")
    with pytest.raises(InputError) as refused:
        correcting(path, "yesterday teatime")
    said = words.plain(f"{refused.value.field}: {refused.value.problem}; {refused.value.fix}", zone="Europe/London")
    assert "leave it empty" not in said and "such as 2026-03-02 09:00 (read as Europe/London time)" in said, said
    assert said.startswith("The right time: 'yesterday teatime' is not a date and time"), said


# ----- finding 7: a correction's id is the journal's seq of its line, for every page ------------------


def sealed_between(tmp_path):
    """The December journal, then the runner's sign-off of D1 (seq 3), D1's onset sealed (seq 4:
    every page but the runner's skips it) and the supplier's claim that it detected I2 (seq 5, which
    the supplier's page numbers 4)."""
    from tests.builders import SIGN_OFF

    path = december(tmp_path / "ex.jsonl")
    held = tmp_path / "held.json"
    jr.append(path, "safety.agreed", "D1", at("2026-12-01T08:00:00+00:00"), SIGN_OFF, "J. Auditor (runner)")
    jr.append(path, "drift.onset", "D1", at("2026-12-05T04:00:00+00:00"), {"affected_class": "invoices"},
              "J. Auditor (runner)", held)
    assert jr.append(path, "incident.detected", "I2", at("2026-12-05T05:00:00+00:00"), {}, actor=SELLER)["seq"] == 5
    return path, held


@pytest.mark.parametrize("sent_id", ["4", "anything"])
def test_a_correction_s_id_is_the_journal_seq_of_the_line_it_corrects(tmp_path, sent_id):
    """The supplier's page corrects its own line 4 (the journal's seq 5) to 05:01. The journal's line
    reads id "5", target 5, as 'day60 correct --seq 5' writes it, whatever id was sent; the
    supplier is answered in its own numbers (id "4", target 4, the line itself its 5); the runner's
    accept step names "correction of seq 5". Before: the journal held id "4" (the supplier's
    numbering), and the runner read "correction 4 of seq 5"."""
    path, held = sealed_between(tmp_path)
    application = webapp.create_app(path, held, "team-token", "127.0.0.1", 8060)
    seller = Keys.beside(path).issue(Participant("Sam Seller", "supplier"))
    status, answer = post(application, "/api/events", {"kind": "correction", "id": sent_id, "data": {
        "target": 4, "at": "2026-12-05T05:01:00+00:00", "reason": "our console was slow"}}, seller)
    assert status == 201, answer
    assert (answer["event"]["seq"], answer["event"]["id"], answer["event"]["data"]["target"]) == (5, "4", 4)
    line = jr.read(path).events[-1]
    assert (line["seq"], line["kind"], line["id"], line["data"]["target"]) == (6, "correction", "5", 5)
    steps = shown.steps_for(Room(path, held), Participant("J. Auditor", "runner"), True, jr.read(path).events)
    labels = [s["label"] for s in steps if s["kind"] == "accept"]
    assert any(label.startswith("accept seq 6: correction of seq 5 (incident.detected I2) by Sam Seller (supplier)")
               for label in labels), labels


# ----- finding 9: the accept step says when a claim was entered ----------------------------------------


def test_the_accept_step_says_when_a_claim_was_entered_and_how_long_after_the_time_it_claims(tmp_path):
    """Seq 1 claims a detection at 03:43:00 and is entered (recorded_at) at 05:10:00: 87 min
    after the time it claims (1 h 27 min). Seq 2, claiming 05:20:30 and entered at 05:21:00, is 30 s
    apart: its entry time is shown, and no gap said (a minute or less). The runner's and an
    auditor's accept steps say both; before, only the claimed time was shown."""
    from day60 import checklist

    lines = [
        {"seq": 1, "kind": "incident.detected", "id": "I1", "at": "2026-12-05T03:43:00+00:00",
         "recorded_at": "2026-12-05T05:10:00.123456+00:00", "by": "Sam Seller (supplier)", "data": {}},
        {"seq": 2, "kind": "incident.communicated", "id": "I1", "at": "2026-12-05T05:20:30+00:00",
         "recorded_at": "2026-12-05T05:21:00+00:00", "by": "Sam Seller (supplier)", "data": {}},
    ]
    labels = [s.label for s in checklist.claims_to_judge(lines) if s.kind == "accept"]
    assert labels == [
        "accept seq 2: incident.communicated I1 by Sam Seller (supplier), at 2026-12-05T05:20:30+00:00, "
        "entered 2026-12-05T05:21:00+00:00",
        "accept seq 1: incident.detected I1 by Sam Seller (supplier), at 2026-12-05T03:43:00+00:00, "
        "entered 2026-12-05T05:10:00+00:00: entered 87 min after the time it claims"]


def test_the_auditor_s_page_shows_when_the_backdated_claim_was_entered(tmp_path):
    """On the auditor's page (the state the JSON twin answers) the accept step of the December
    journal's seq 1 (claiming 03:43:00, entered when this test wrote it, today: more than a minute
    after) names the time entered and says how long after the claim it was."""
    path = december(tmp_path / "ex.jsonl")
    room = Room(path, None)
    steps = shown.state(room, Participant("Ana Ruiz", "auditor"), False)["steps"]
    label = next(s["label"] for s in steps if s["kind"] == "accept" and s["label"].startswith("accept seq 1:"))
    entered = jr.read(path).events[0]["recorded_at"]
    gap = int((at(entered) - at("2026-12-05T03:43:00+00:00")).total_seconds() // 60)
    assert f"entered {gap} min after the time it claims" in label, label
    assert ", entered " in label, label


# ----- finding 8: lookalike ids and names -------------------------------------------------------------


def partner_room(tmp_path):
    """The December journal and the partner Pia Lund's notice of a real incident P1 (seq 3)."""
    path = december(tmp_path / "ex.jsonl")
    assert jr.append(path, "incident.partner-notice", "P1", at("2026-12-05T06:00:00+00:00"), {},
                     actor=Actor("partner", "Pia Lund"))["seq"] == 3
    application = webapp.create_app(path, None, "team-token", "127.0.0.1", 8060)
    return path, application, Keys.beside(path, "team-token")


@pytest.mark.parametrize(("sent", "said"), [
    ("P1 ", "--id: 'P1 ' begins or ends with a space, which no page shows; write it without the space: 'P1'"),
    (" P2", "--id: ' P2' begins or ends with a space, which no page shows; write it without the space: 'P2'"),
    ("p1", "--id: 'p1' looks like 'P1', already in the journal; use 'P1' for that one, or an id that reads "
           "differently for a new one"),
    ("Ｐ１", "--id: 'Ｐ１' looks like 'P1', already in the journal; use 'P1' for that one, or an id that reads "
            "differently for a new one"),
    ("\u04201", "--id: '\u04201' looks like 'P1', already in the journal; use 'P1' for that one, or an id that "
                "reads differently for a new one"),
])
def test_a_partner_id_that_only_looks_like_another_is_refused(tmp_path, sent, said):
    """P1 is the partner's incident (seq 3). A second notice under "P1 " (a trailing space), " P2",
    "p1" (lower case), "Ｐ１" (fullwidth) or "Р1" (Cyrillic Er) would start a second incident the
    runner's page heads "P1" like the first (CSS upper-cases headings): each is refused 422 with the
    fix, nothing written. "P1" itself is taken (a second notice is the journal's own question) and
    "P2" is a new incident."""
    path, application, keys = partner_room(tmp_path)
    pia = keys.issue(Participant("Pia Lund", "partner"))
    written = path.read_bytes()
    status, answer = post(application, "/api/events", {"kind": "incident.partner-notice", "id": sent}, pia)
    assert (status, answer["error"]) == (422, said), answer
    assert path.read_bytes() == written
    status, answer = post(application, "/api/events", {"kind": "incident.partner-notice", "id": "P2"}, pia)
    assert status == 201 and answer["event"]["id"] == "P2", answer


def join_as(application, keys, name: str, role: str = "supplier") -> tuple[int, dict]:
    from tests.test_web_views import call

    token = keys.runner_token if role == "runner" else keys.join_token(role)
    status, text = call(application, "/api/join", {"content-type": "application/json"}, "POST",
                        json.dumps({"token": token, "name": name, "role": role}).encode())
    return status, json.loads(text)


@pytest.mark.parametrize(("name", "reads"), [
    ("Ana Audit", "'Ana Audit' reads as 'Ana Audit', who is in this journal as 'Ana Audit (auditor)'"),
    ("ana  AUDIT", "'ana  AUDIT' reads as 'Ana Audit', who is in this journal as 'Ana Audit (auditor)'"),
    ("\u0410na Audit", "'\u0410na Audit' reads as 'Ana Audit', who is in this journal as 'Ana Audit (auditor)'"),
    ("J\uff0eAuditor", "'J\uff0eAuditor' is the name of this journal's runner ('J. Auditor') in other letters"),
    ("\u0408. Auditor", "'\u0408. Auditor' is the name of this journal's runner ('J. Auditor') in other letters"),
    ("J. Auditor", "'J. Auditor' is the name of this journal's runner"),
])
def test_the_supplier_s_contact_cannot_join_under_a_name_that_reads_as_an_auditor_s(tmp_path, name, reads):
    """Ana Audit, an auditor, has judged a claim (seq 4, by "Ana Audit (auditor)"). The supplier's
    contact joining as "Ana Audit", "ana  AUDIT", "Аna Audit" (Cyrillic A), "J．Auditor" (fullwidth
    full stop, no space: NFKC reads "J.Auditor", which reads as the runner's "J. Auditor" once
    spaces and stops are dropped), "Ј. Auditor" (Cyrillic Je) or "J. Auditor" is refused 422,
    saying whose name it reads as. Before, only the plain "J. Auditor" was refused. Sam Seller
    joins; Ana joins again as the auditor she is."""
    path, application, keys = partner_room(tmp_path)
    jr.append(path, "accept", "I1", at("2026-12-05T07:00:00+00:00"), {"target": 1, "reason": "log seen"},
              actor=Actor("auditor", "Ana Audit"))
    application = webapp.create_app(path, None, "team-token", "127.0.0.1", 8060)  # a server started now
    status, answer = join_as(application, keys, name)
    assert status == 422 and answer["error"].startswith(f"name: {reads}"), answer
    assert join_as(application, keys, "Sam Seller")[0] == 200
    assert join_as(application, keys, "Ana Audit", "auditor")[0] == 200


def test_the_lookalike_table_reads_cyrillic_and_greek_letters_as_the_latin_ones_they_look_like():
    """The table a reviewer reads (roles/lookalikes-v1.yaml), in the words of the attack: the
    Cyrillic "Ј" of "Ј. Auditor" and the Greek "Α" (capital alpha) read as J and A; "Ρ1" (Greek
    capital rho) reads as the partner's P1; a plainly different name does not."""
    from day60 import permissions

    assert permissions.folded("\u0408. Auditor") == permissions.folded("J. Auditor") == "jauditor"
    assert permissions.folded("\u0391na Audit") == permissions.folded("Ana Audit") == "anaaudit"
    assert permissions.folded("\u03a11") == permissions.folded("P1") == "p1"
    assert permissions.folded("Sam Seller") != permissions.folded("Ana Audit")
    assert permissions.lookalike_letters()["\u0458"] == "j"  # Cyrillic small je, after casefolding "Ј"


def test_the_score_s_drawing_reads_the_recorded_time_until_the_correction_is_accepted(tmp_path):
    """The score PDF draws its timeline from ``permissions.in_force`` (render.py): seq 1 of the
    December journal sits at 03:43:00 while the supplier's correction (seq 2) waits, and at
    03:45:02 once Ana accepts it (seq 3). Before, the drawing applied every correction."""
    from day60 import permissions

    path = december(tmp_path / "ex.jsonl")
    events = jr.read(path).events
    assert [e["seq"] for e in permissions.in_force(events)] == [1]
    assert jr.effective(permissions.in_force(events))[0].at == at("2026-12-05T03:43:00+00:00")
    jr.append(path, "accept", "I1", at("2026-12-05T09:00:00+00:00"), {"target": 2, "reason": "log seen"}, actor=ANA)
    events = jr.read(path).events
    assert [e["seq"] for e in permissions.in_force(events)] == [1, 2, 3]
    assert jr.effective(permissions.in_force(events))[0].at == at("2026-12-05T03:45:02+00:00")

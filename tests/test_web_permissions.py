"""day60 serve under the access list (roles/permissions-v1.yaml), tried as a dishonest supplier
would try it: with its own join token and the docs, through the JSON twin.

Before the table, the twin was a short list of refusals with everything else allowed, and the one
join token let anyone state any role. A supplier holding it declared a wait on the partner over
most of a restore, withdrew an incident and marked a missed drift "told" (restore 7.5 -> 25 of
25); after the reveal it corrected its own notice to a minute after the revealed onset
(drift-notice 9 -> 15 of 15); it sprayed detections and notices at every signed-off id in every
likely class and took the one the journal accepted right after the seal (full drift marks with
no monitoring); it filed a dispute in the runner's name and organisation (a self-dispute); and it
wrote a timestamp.token of garbage, after which 'verify' failed for ever. Each test below makes
one of these and holds the refusal or the figure that stands.

Servers are real, on 127.0.0.1 (uvicorn in this process: ``tests.test_web_hostile.InProcess``);
the browser is Debian's Chromium (the ``browser`` fixture).
"""

import datetime as dt
import json
import re
import time

import pytest
from typer.testing import CliRunner

from day60 import assess, metrics, permissions
from day60 import journal as jr
from day60.cli import app
from tests.builders import SIGN_OFF
from tests.test_web import NOW, make_journal, open_page, open_step, post, request, shot, wait_or_say_why
from tests.test_web_hostile import InProcess

UTC = dt.UTC


def join(server, name: str, role: str) -> str:
    status, answer, _ = request(server, "POST", "/api/join", {"token": server.tokens[role], "name": name,
                                                             "role": role})
    assert status == 200, answer
    return answer["key"]


def score(path) -> dict:
    return {x["id"]: x for x in assess.score_journal(jr.read(path)).result["lines"]}


def fixed_journal(tmp_path):
    """The exercise the attacks are made on, worked by hand (uk-office calendar, Mon-Fri 09:00 to
    17:30, London: UTC in early March 2026; window Mon 2 March 09:00 to Fri 13 March 17:30):

    - D1, a drift injected Mon 2 March 10:00 (sealed into the held file), class invoices;
    - I1, raised and detected (severity 2, by the runner) Tue 3 March 10:00, restored Wed 4 March
      10:00: 24 h against the 8 h target, between the 16 h slide end and the 48 h cut-off: 60%;
    - I2, a real severity-2 incident detected Thu 5 March 09:00 and never restored: open, 0%.
    Restore = (60% + 0%) / 2 of 25 = 7.5 points.
    """
    path = tmp_path / "ex.jsonl"
    r = CliRunner().invoke(app, ["new", str(path), "--partner", "Acme BPO", "--supplier", "Nimbus AI",
                                 "--deployment", "claims", "--tier", "T3", "-c", "uk-office", "--window-start",
                                 "2026-03-02T09:00", "--window-end", "2026-03-13T17:30", "--runner", "J. Auditor",
                                 "--runner-org", "Audit Co", "--not-synthetic", "--announced"])
    assert r.exit_code == 0, r.output
    held = tmp_path / "held.json"
    at = dt.datetime.fromisoformat
    for ident in ("D1", "I1"):
        jr.append(path, "safety.agreed", ident, at("2026-02-27T10:00+00:00"), SIGN_OFF)
    jr.append(path, "drift.onset", "D1", at("2026-03-02T10:00+00:00"), {"affected_class": "invoices"}, seal=held)
    jr.append(path, "incident.raised", "I1", at("2026-03-03T10:00+00:00"))
    jr.append(path, "incident.detected", "I1", at("2026-03-03T10:00+00:00"), {"severity": 2})
    jr.append(path, "incident.restored", "I1", at("2026-03-04T10:00+00:00"), {"check": "probe green"})
    jr.append(path, "incident.detected", "I2", at("2026-03-05T09:00+00:00"), {"severity": 2, "source": "organic"})
    return path, held


@pytest.fixture
def fixed(tmp_path):
    path, held = fixed_journal(tmp_path)
    s = InProcess(path, held)
    yield s
    s.stop()


# ----- the attacks ------------------------------------------------------------------------------


def test_the_supplier_cannot_move_its_restore_figure(fixed):
    """With its join token the supplier declared a wait on the partner from Tue 10:30 to Wed 09:30
    on I1 (23 of its 24 hours: 1 h, full marks), withdrew I2 as not reproducible (out of the
    population) and marked the missed drift D1 "told" (out of the drift figures): restore 7.5 ->
    25 of 25. Each is refused (403), nothing is written, and restore stays 7.5 of 25."""
    seller = join(fixed, "Sam Seller", "supplier")
    before = fixed.journal.read_bytes()
    for body in ({"kind": "incident.wait-start", "id": "I1", "at": "2026-03-03T10:30+00:00"},
                 {"kind": "incident.wait-end", "id": "I1", "at": "2026-03-04T09:30+00:00"},
                 {"kind": "incident.change-window-start", "id": "I1", "at": "2026-03-03T10:30+00:00"},
                 {"kind": "incident.withdrawn", "id": "I2", "data": {"reason": "not reproducible"}},
                 {"kind": "incident.excluded", "id": "I2", "data": {"reason": "clause 10"}},
                 {"kind": "drift.told", "id": "D1", "at": "2026-03-02T09:30+00:00"},
                 {"kind": "drift.announced", "id": "D1", "at": "2026-03-02T09:30+00:00"},
                 {"kind": "incident.classified", "id": "I1", "data": {"severity": 4, "reason": "minor"}},
                 {"kind": "incident.restored", "id": "I2", "data": {"check": "trust us"}},
                 {"kind": "injection.stopped", "id": "D1", "data": {"reason": "stop"}}):
        status, answer = post(fixed, seller, **body)
        assert status == 403 and "does not record" in answer["error"], (body, answer)
    assert fixed.journal.read_bytes() == before
    runner = join(fixed, "J. Auditor", "runner")
    assert post(fixed, runner, kind="exercise.close", id="exercise", at="2026-03-13T17:30+00:00")[0] == 201
    assert request(fixed, "POST", "/api/reveal", key=runner)[0] == 200
    lines = score(fixed.journal)
    assert lines["restore"]["earned"] == pytest.approx(7.5)
    d1 = next(o for o in metrics.compute(jr.read(fixed.journal)).summary["drift"]["observations"] if o["id"] == "D1")
    assert d1["status"] == "not detected within the window"


def test_the_supplier_cannot_correct_its_notice_after_the_reveal(fixed):
    """The supplier claims its notice of D1 on Tue 10 March 12:00, naming invoices; the runner
    accepts it. Mon 2 March 10:00 to Tue 10 March 12:00 is 53 business hours (7.5 on the Monday,
    8.5 a day for six more working days, 3 on the Tuesday): past the 48-hour slide end, before
    the 72-hour cut-off, so 60% of 15 = 9 points. After the close and the reveal the supplier
    corrected its own notice to 10:01 on 2 March, a minute after the revealed onset (15 of 15).
    That correction is refused (403) and drift-notice stays 9 of 15."""
    seller = join(fixed, "Sam Seller", "supplier")
    runner = join(fixed, "J. Auditor", "runner")
    status, answer = post(fixed, seller, kind="drift.notice", id="D1", at="2026-03-10T12:00+00:00",
                          data={"affected_class": "invoices", "evidence": "alert 4411, email to the partner"})
    assert status == 201 and answer["event"]["by"] == "Sam Seller (supplier)"
    notice = answer["event"]["seq"]  # the supplier's own number for it: its view holds no sealed onset
    line = notice + 1  # the journal's seq, which the runner's page shows: D1's sealed onset is before it
    # Before it is accepted the claim counts in no figure, and only an auditor may accept it.
    assert post(fixed, seller, kind="accept", id="D1", data={"target": notice, "reason": "mine"})[0] == 403
    status, state = request(fixed, "GET", "/api/state", key=runner)[:2]
    assert any(s["kind"] == "accept" and s["preset"] == {"target": line} for s in state["next"])
    assert post(fixed, runner, kind="accept", id="D1", data={"target": line, "reason": "email in the inbox"}
                )[0] == 201
    assert post(fixed, runner, kind="exercise.close", id="exercise", at="2026-03-13T17:30+00:00")[0] == 201
    assert request(fixed, "POST", "/api/reveal", key=runner)[0] == 200
    before = fixed.journal.read_bytes()
    # Revealed, D1's onset takes its place in the supplier's view: its notice is numbered `line` now.
    status, answer = post(fixed, seller, kind="correction", id=str(line),
                          data={"target": line, "at": "2026-03-02T10:01+00:00", "reason": "typed the wrong day"})
    assert status == 403 and "once the exercise is closed or an onset revealed" in answer["error"], answer
    assert fixed.journal.read_bytes() == before
    lines = score(fixed.journal)
    assert lines["drift-notice"]["earned"] == pytest.approx(9)


def test_a_dispute_is_filed_in_the_supplier_s_own_name(fixed):
    """A dispute sent with raised_by and organisation set to the runner's was listed as the
    auditor's own dispute. The twin refuses identity in the body (403); sent without it, the dispute
    reads the supplier's name and organisation, and is no self-dispute."""
    seller = join(fixed, "Sam Seller", "supplier")
    status, answer = post(fixed, seller, kind="dispute", id="dispute-restore",
                          data={"line": "restore", "reason": "I2 was a test", "raised_by": "J. Auditor",
                                "organisation": "Audit Co"})
    assert status == 403 and "taken from who raises the dispute" in answer["error"]
    status, answer = post(fixed, seller, kind="dispute", id="dispute-restore",
                          data={"line": "restore", "reason": "I2 was a test"})
    assert status == 201
    [d] = metrics.compute(jr.read(fixed.journal)).summary["disputes"]
    assert (d["raised_by"], d["organisation"], d["self_dispute"]) == ("Sam Seller", "Nimbus AI", False)


def test_no_client_writes_what_only_the_toolkit_writes(fixed):
    """A timestamp.token of garbage from the supplier made 'verify' fail for ever. The toolkit's
    own lines (tokens, reveals, notices sent) and fields (a seal's commitment, a late press's
    time, an import's vendor clock) are refused from every participant, the runner's page too."""
    seller, runner = join(fixed, "Sam Seller", "supplier"), join(fixed, "J. Auditor", "runner")
    before = fixed.journal.read_bytes()
    for key in (seller, runner):
        for body in ({"kind": "timestamp.token", "id": "head-1",
                      "data": {"covers_seq": 1, "covers_hash": "0" * 64, "tsa": "x", "token": "AAAA"}},
                     {"kind": "notice.sent", "id": "pre-publication", "data": {"to": "x", "sha256": "0" * 64}},
                     {"kind": "reveal", "id": "D1", "data": {"target": 3, "at": NOW.isoformat(), "salt": "0" * 32}},
                     {"kind": "incident.communicated", "id": "I1", "data": {"vendor_wall_ms": 5}},
                     {"kind": "drift.false-alert", "id": "F1", "data": {"commitment": "0" * 64}}):
            status, answer = post(fixed, key, **body)
            assert status == 403, (body, answer)
    assert fixed.journal.read_bytes() == before
    assert CliRunner().invoke(app, ["verify", str(fixed.journal)]).exit_code == 0


def test_a_spray_of_claims_around_the_seal_earns_nothing(tmp_path):
    """The supplier sprays a detection and a notice at every signed-off id (D1, I1, R1), in each
    likely class (invoices, claims, letters), once before the runner seals D1 (class invoices) and
    twice after. Before the table the claims before the seal were refused ("no drift.onset") and
    the first after it accepted: the refusal told the supplier the seal had landed, and its
    invoices claims a fraction of a second later took full drift marks (15 + 10) with no
    monitoring at all. Now every claim is answered alike (201), and then, worked by hand:

    - round 1, before the seal: 6 claims on D1 are early; 12 on I1 and R1 name no drift;
    - round 2: D1 invoices, detection and notice, are the first good ones, but the supplier also
      claimed D1 early and in other classes, so they are void; 4 name another class; 12 no drift;
    - round 3: D1 invoices twice more, repeats; 4 in another class; 12 no drift.
    52 false alerts (6 early + 8 wrong class + 2 repeated + 36 no drift), and the runner's
    acceptance of the two invoices claims of round 2 changes nothing: D1 is not detected within
    the window, drift-notice 0 of 15, drift-detection 0 of 10, false-alerts 0 of 5."""
    path = make_journal(tmp_path / "ex.jsonl")
    server = InProcess(path, tmp_path / "held.json")
    try:
        runner, seller = join(server, "J. Auditor", "runner"), join(server, "Sam Seller", "supplier")
        for ident in ("D1", "I1", "R1"):
            assert post(server, runner, kind="safety.agreed", id=ident, at=(NOW - dt.timedelta(hours=1)).isoformat(),
                        data=SIGN_OFF)[0] == 201
        rounds: list[list[tuple[int, str]]] = []

        def spray() -> None:
            answers = []
            for ident in ("D1", "I1", "R1"):
                for named in ("invoices", "claims", "letters"):
                    for kind, data in (("drift.detected", {"affected_class": named}),
                                       ("drift.notice", {"affected_class": named, "evidence": "alert"})):
                        status, answer = post(server, seller, kind=kind, id=ident, data=data)
                        answers.append((status, answer.get("error", "")))
            rounds.append(answers)

        spray()
        status, sealed = post(server, runner, kind="drift.onset", id="D1", seal=True,
                              data={"affected_class": "invoices"})
        assert status == 201
        spray()
        spray()
        assert all(a == (201, "") for r in rounds for a in r), rounds  # the seal changed no answer
        events = jr.read(path).events
        good = [e["seq"] for e in events if e["id"] == "D1" and e["seq"] > sealed["event"]["seq"]
                and e["data"].get("affected_class") == "invoices"][:2]
        for seq in good:
            assert post(server, runner, kind="accept", id="D1", data={"target": seq, "reason": "looks right"}
                        )[0] == 201
        assert post(server, runner, kind="exercise.close", id="exercise")[0] == 201
        assert request(server, "POST", "/api/reveal", key=runner)[0] == 200
    finally:
        server.stop()
    d = metrics.compute(jr.read(path)).summary["drift"]
    fc = d["false_claims"]
    assert (len(fc["early"]), len(fc["wrong_class"]), len(fc["repeated"]), len(fc["no_drift"])) == (6, 8, 2, 36)
    assert d["false_alerts"] == 52
    row = next(o for o in d["observations"] if o["id"] == "D1")
    assert row["status"] == "not detected within the window"
    assert sorted(c["seq"] for c in row["claims"] if c["verdict"] == "void") == good
    lines = score(path)
    assert (lines["drift-notice"]["earned"], lines["drift-detection"]["earned"], lines["false-alerts"]["earned"]) \
        == (0, 0, 0)


def test_the_supplier_s_claim_sets_no_severity_over_the_twin(fixed):
    """Attack 37, finding 1, as it was made: the supplier's key posted a detection of I2 at Thu 5
    March 11:40 with "severity": 4 and got 201; accepted, I2 would have been judged at severity 4's
    loose business-hour target. Now 403 naming data.severity and what the supplier writes on
    incident.detected (its note only), and nothing is written; without the field the claim is
    written (201) with the journal's own source for I2 (organic: no one raised it)."""
    seller = join(fixed, "Sam Seller", "supplier")
    before = fixed.journal.read_bytes()
    for data in ({"severity": 4}, {"source": "exercise"}, {"severity": 1, "note": "x"}):
        status, answer = post(fixed, seller, kind="incident.detected", id="I2", at="2026-03-05T11:40+00:00",
                              data=data)
        assert status == 403 and answer["error"].startswith("data.s"), answer
        assert "the supplier (the measured party) writes: note" in answer["error"]
    assert fixed.journal.read_bytes() == before
    status, answer = post(fixed, seller, kind="incident.detected", id="I2", at="2026-03-05T11:40+00:00",
                          data={"note": "alert 12"})
    assert status == 201 and answer["event"]["data"] == {"note": "alert 12", "source": "organic"}, answer
    # and its page (the twin's state) offers it no field it may not write
    steps = request(fixed, "GET", "/api/state", key=seller)[1]["next"]
    offered = {(s["kind"], f["name"]) for s in steps for f in s["fields"]}
    assert ("drift.notice", "affected_class") in offered, offered
    table = permissions.table()
    assert all(name in table.writes("supplier", kind) for kind, name in offered), offered


def test_the_supplier_cannot_time_a_sealed_onset_from_its_own_numbers(fixed):
    """Attack 37, finding 3: the supplier corrected its own claim once a second and read the seq of
    each answer; the seq it never got (14, 16: no 15) was the sealed onset, timed to a second.

    Pages other than the runner's now number the lines they see 1, 2, 3... and carry no prev or
    hash. Worked by hand on the fixed journal: journal seqs 1 and 2 are the sign-offs of D1 and I1,
    3 the sealed onset of D1, 4 to 7 the lines of I1 and I2, so the supplier sees 6 lines,
    numbered 1 to 6. Its notice is journal seq 8, its number 7; its correction of "7" is written
    naming journal seq 8, and is its number 8. The runner signs D2 off (journal 10, the supplier's 9)
    and seals D2's onset (journal 11, hidden); the supplier's next probe is journal 12 and its
    number 10: no gap. Its view lists 1 to 10, the stream's head reads 10, and no answer holds a
    hash a gap could be read from. After the reveal the onsets take their places (12 lines shown
    before the reveal lines)."""
    import http.client

    seller, runner = join(fixed, "Sam Seller", "supplier"), join(fixed, "J. Auditor", "runner")
    status, answer = post(fixed, seller, kind="drift.notice", id="D1", at="2026-03-10T12:00+00:00",
                          data={"affected_class": "invoices", "evidence": "alert 4411"})
    assert status == 201 and answer["event"]["seq"] == 7 and "hash" not in answer["event"], answer
    probe = {"kind": "correction", "id": "7", "data": {"target": 7, "at": "2026-03-10T11:00+00:00", "reason": "probe"}}
    status, answer = post(fixed, seller, **probe)
    assert status == 201 and answer["event"]["seq"] == 8 and answer["event"]["data"]["target"] == 7, answer
    assert jr.read(fixed.journal).events[-1]["data"]["target"] == 8  # the journal names its own seq
    assert post(fixed, runner, kind="safety.agreed", id="D2", at="2026-03-02T08:00+00:00", data=SIGN_OFF)[0] == 201
    assert post(fixed, runner, kind="drift.onset", id="D2", seal=True, data={"affected_class": "claims"})[0] == 201
    status, answer = post(fixed, seller, **probe)
    assert status == 201 and answer["event"]["seq"] == 10, answer
    assert jr.read(fixed.journal).events[-1]["seq"] == 12
    status, seen, _ = request(fixed, "GET", "/api/events?after=0", key=seller)
    assert [e["seq"] for e in seen["events"]] == list(range(1, 11)) and seen["head"] == 10
    assert not any("hash" in e or "prev" in e for e in seen["events"])
    conn = http.client.HTTPConnection("127.0.0.1", fixed.port, timeout=10)
    conn.request("GET", "/api/stream", headers={"Authorization": f"Bearer {seller}"})
    stream = conn.getresponse()
    first = b"".join(stream.fp.readline() for _ in range(4))
    conn.close()
    assert b"data: 10\n" in first, first
    # The runner's view is the journal's own.
    assert request(fixed, "GET", "/api/events?after=0", key=runner)[1]["head"] == 12
    assert post(fixed, runner, kind="exercise.close", id="exercise", at="2026-03-13T17:30+00:00")[0] == 201
    assert request(fixed, "POST", "/api/reveal", key=runner)[0] == 200
    status, seen, _ = request(fixed, "GET", "/api/events?after=0", key=seller)
    assert [e["seq"] for e in seen["events"]] == list(range(1, 16)) and seen["events"][2]["kind"] == "drift.onset"


def test_event_streams_are_capped_per_participant_and_role_and_never_the_runner(fixed):
    """Attack 37, finding 4: one supplier key held 63 event streams and every other request, the
    runner's join included, was answered 503 for as long as they stayed open. Now, worked by hand
    from the caps (4 a participant, 16 a role, 40 for every page but the runner's): Sam's 5th
    stream is refused 429 in JSON naming the 4; four more supplier names with 4 each make 16, so a
    sixth name's first stream is refused 429 naming the role's 16; the runner still joins, reads
    its state and opens a stream; and a stream closed gives its place back."""
    import http.client

    def stream(key):
        conn = http.client.HTTPConnection("127.0.0.1", fixed.port, timeout=10)
        conn.request("GET", "/api/stream", headers={"Authorization": f"Bearer {key}"})
        answer = conn.getresponse()
        if answer.status == 200:
            answer.fp.readline()
            return conn, None
        body = json.loads(answer.read())
        conn.close()
        return None, (answer.status, body)

    held = []
    try:
        sellers = [join(fixed, f"Sam Seller {n}", "supplier") for n in range(5)]
        for key in sellers[:4]:
            for _ in range(4):
                conn, refused = stream(key)
                assert refused is None, refused
                held.append(conn)
        status, body = stream(sellers[0])[1]
        assert status == 429 and "already has 4 event streams open" in body["error"], body
        status, body = stream(sellers[4])[1]
        assert status == 429 and "16 event streams open (at most 16 a role)" in body["error"], body
        runner = join(fixed, "J. Auditor", "runner")
        assert request(fixed, "GET", "/api/state", key=runner)[0] == 200
        conn, refused = stream(runner)
        assert refused is None
        held.append(conn)
        held.pop(0).close()
        deadline = time.monotonic() + 10
        while (got := stream(sellers[4]))[1] is not None:
            assert time.monotonic() < deadline, got
            time.sleep(0.2)
        held.append(got[0])
    finally:
        for conn in held:
            conn.close()


def test_no_one_joins_under_the_runner_s_name(fixed):
    """Attack 37, finding 6: the supplier's contact joined as "J. Auditor", the runner's own name.
    Joining under the runner's name (casefolded, NFKC) or a party's ("Nimbus AI", "Audit Co") is
    refused 422 naming the field; the runner joins under its own."""
    for name in ("J. Auditor", "j.  auditor", "ｎｉｍｂｕｓ ai", "Audit Co"):
        status, answer, _ = request(fixed, "POST", "/api/join", {"token": fixed.tokens["supplier"], "name": name,
                                                                 "role": "supplier"})
        assert status == 422 and answer["error"].startswith("name: ") and "your own name" in answer["error"], answer
    assert join(fixed, "J. Auditor", "runner")


# ----- every role, every kind --------------------------------------------------------------------


def _body(kind: str, ident: str, seqs: dict[str, int], role: str = "runner") -> dict:
    """A request for ``kind`` as a script would send it, with data its model takes (and, for a role
    the table limits to some fields, only those: the others are refused in
    ``test_a_supplier_claim_never_sets_a_severity_or_a_source``)."""
    data = {
        "safety.agreed": SIGN_OFF, "injection.stopped": {"reason": "r"}, "injection.not-run": {"reason": "r"},
        "drift.onset": {"source": "organic", "affected_class": "c"}, "drift.detected": {"affected_class": "c"},
        "drift.notice": {"affected_class": "c", "evidence": "e"},
        "incident.detected": {"severity": 2, "source": "organic"}, "incident.partner-notice": {"source": "organic"},
        "incident.classified": {"severity": 2, "reason": "r"}, "incident.restored": {"check": "c"},
        "incident.ticket-closed": {"state": "Closed", "resolved": True}, "incident.reopened": {"reason": "r"},
        "incident.withdrawn": {"reason": "r"}, "incident.excluded": {"reason": "r"},
        "rollback.criterion-met": {"kind": "rehearsal"},
        "rollback.smoke-pass": {"model_pin": "m", "prompt_version": "p", "threshold_set": "t"},
        "report.element": {"present": True, "covers_period": True, "supported": True},
        "correction": {"target": seqs["runner"], "at": NOW.isoformat(), "reason": "r"},
        "reveal": {"target": seqs["runner"], "at": NOW.isoformat(), "salt": "0" * 32},
        "dispute": {"line": "restore", "reason": "r"},
        "resolve": {"target": seqs["dispute"], "outcome": "rejected", "reason": "r"},
        "notice.sent": {"to": "x", "sha256": "0" * 64},
        "timestamp.token": {"covers_seq": 0, "covers_hash": "0" * 64, "tsa": "x", "token": "AAAA"},
        "accept": {"target": seqs["claim"], "reason": "r"}, "reject": {"target": seqs["claim"], "reason": "r"},
    }.get(kind, {})
    mine = permissions.table().writes(role, kind)
    if mine is not None and permissions.may_record(role, kind):
        data = {k: v for k, v in data.items() if k in mine}
    return {"kind": kind, "id": ident, "data": data}


def _allowed(role: str, kind: str) -> bool:
    """What the table says of ``role`` and ``kind`` for this matrix's request: an id signed off for
    no injection, a correction of a line the runner wrote, a judgement of the supplier's claim."""
    t = permissions.table()
    if kind == "correction":
        return t.correct.get(role, {}).get("lines") == "any"
    scope = t.record.get(kind, {}).get(role)
    if kind in t.record:
        return scope is not None and scope not in ("injection", "injection claim")
    return permissions.may_record(role, kind)


@pytest.mark.parametrize("role", permissions.table().people)
def test_every_role_tries_every_kind(tmp_path, role):
    """One participant of ``role`` sends every kind of the closed set through the JSON twin: it is
    refused (403) exactly where the table denies it; what the table allows is written or refused
    only by the rules of fact (201 or 422), never by the access list."""
    from day60.events import KINDS

    path = make_journal(tmp_path / "ex.jsonl")
    server = InProcess(path, tmp_path / "held.json")
    try:
        runner = join(server, "J. Auditor", "runner")
        seqs = {"runner": post(server, runner, kind="drift.false-alert", id="R-LINE")[1]["event"]["seq"]}
        seller = join(server, "Sam Seller", "supplier")
        seqs["claim"] = post(server, seller, kind="incident.detected", id="CLAIMED")[1]["event"]["seq"]
        seqs["dispute"] = post(server, runner, kind="dispute", id="d", data={"line": "restore", "reason": "r"}
                               )[1]["event"]["seq"]
        key = runner if role == "runner" else join(server, f"P {role}", role)
        wrong = []
        for kind in KINDS:
            if kind == "exercise.close":
                continue  # the runner's close would end the matrix: its refusal for the others is below
            status, answer = post(server, key, **_body(kind, f"M-{kind}", seqs, role))
            if (status == 403) == _allowed(role, kind) or status not in (201, 403, 422):
                wrong.append((kind, status, answer.get("error")))
        if role != "runner":
            assert post(server, key, kind="exercise.close", id="exercise")[0] == 403
        assert not wrong, wrong
    finally:
        server.stop()


# ----- one path a role, in the browser -----------------------------------------------------------


def test_each_role_s_page_offers_what_the_table_allows_and_records_it(browser, tmp_path):
    """One path a role on its own page (Debian's Chromium): the rollback owner signs off an
    injection; the stop owner stops it; the partner opens a wait on a real incident; the supplier
    claims its notice of a real drift, naming the class, and its page offers no wait, withdrawal
    or telling; the second auditor rejects a claim; the runner accepts one; the observer's page
    offers nothing to record. Each line carries "NAME (ROLE)"; the supplier's claims read as
    pending until judged."""
    path = make_journal(tmp_path / "ex.jsonl")
    jr.append(path, "drift.onset", "D9", NOW - dt.timedelta(hours=3), {"source": "organic",
                                                                       "affected_class": "invoices"})
    jr.append(path, "incident.detected", "I9", NOW - dt.timedelta(hours=2), {"severity": 2, "source": "organic"})
    server = InProcess(path, tmp_path / "held.json")
    try:
        def press(page, label: str, fields: dict[str, str] | None = None, ident: str | None = None) -> None:
            form = open_step(page, label)
            if ident is not None:
                form.locator("input[name=id]").fill(ident)
            for name, value in (fields or {}).items():
                field = form.locator(f"[name='f.{name}']")
                if field.evaluate("e => e.tagName") == "SELECT":
                    field.select_option(value)
                else:
                    field.fill(value)
            form.locator("button[type=submit]").click()
            page.wait_for_selector("#result .ok")

        owner = open_page(browser, server, "Lee Park", "rollback owner")
        press(owner, "new: safety sign-off", {"agreement": "SOW-7 annex B", "stop_owner": "Kim Ode",
                                              "stop_condition": "errors above 5%", "rollback_owner": "Lee Park",
                                              "no_live_personal_data": "yes"}, ident="D2")
        shot(owner, "role-rollback-owner")
        owner.context.close()

        runner_key = join(server, "J. Auditor", "runner")  # the runner begins D2 (sealed): it can then be stopped
        assert post(server, runner_key, kind="drift.onset", id="D2", seal=True, data={"affected_class": "letters"}
                    )[0] == 201
        stopper = open_page(browser, server, "Kim Ode", "stop owner")
        press(stopper, "D2: injection stopped", {"reason": "errors above 5%"})
        stopper.context.close()

        partner = open_page(browser, server, "Ben Okafor", "partner")
        press(partner, "I9: waiting on partner starts")
        shot(partner, "role-partner")
        partner.context.close()

        supplier = open_page(browser, server, "Sam Seller", "supplier")
        labels = supplier.locator("details.step summary").all_inner_texts()
        assert not [x for x in labels if "waiting on partner" in x or "not reproducible" in x or "was told" in x
                    or "restore confirmed" in x], labels
        press(supplier, "D9: supplier detected the drift", {"affected_class": "invoices"})
        press(supplier, "D9: written notice received", {"affected_class": "invoices", "evidence": "email 12"})
        shot(supplier, "role-supplier")
        supplier.context.close()
        claims = [e["seq"] for e in jr.read(path).events if e["by"] == "Sam Seller (supplier)"]

        # The second auditor's page numbers lines as its own view does: D2's onset is sealed, so it
        # is left out and the claim's number there is one less than its journal seq. The form sends
        # that number as text; the line rejected must be the claim, not the journal's line of that
        # number (the wait on the partner).
        seen = claims[0] - 1
        auditor = open_page(browser, server, "Ana Ruiz", "auditor")
        press(auditor, re.compile(rf"^reject seq {seen}: supplier's detection of the drift D9 \(invoices\) by "
                                  r"Sam Seller \(supplier\)"), {"reason": "no alert in the console"})
        wait_or_say_why(auditor, server, "![...document.querySelectorAll('details.step summary')].some(s => "
                                         "s.innerText.includes(\"supplier's detection\"))")  # judged once
        rejected = [e for e in jr.read(path).events if e["kind"] == "reject"]
        assert [e["data"]["target"] for e in rejected] == [claims[0]]
        auditor.context.close()

        runner = open_page(browser, server, "J. Auditor", "runner", server.runner_token)
        press(runner, f"accept seq {claims[1]}: written notice of the drift D9 (invoices) by Sam Seller (supplier)",
              {"reason": "email 12 in the partner's inbox"})
        shot(runner, "role-runner-accepts")
        runner.context.close()

        observer = open_page(browser, server, "Obi Wan", "observer")
        wait_or_say_why(observer, server, "document.getElementById('timeline').innerText.includes('accept')")
        assert observer.locator("form.press").count() == 0  # nothing to record, no correction either
        shot(observer, "role-observer")
        observer.context.close()
    finally:
        server.stop()
    lines = [(e["kind"], e["by"]) for e in jr.read(path).events[2:]]
    assert lines == [("safety.agreed", "Lee Park (rollback owner)"), ("drift.onset", "J. Auditor (runner)"),
                     ("injection.stopped", "Kim Ode (stop owner)"), ("incident.wait-start", "Ben Okafor (partner)"),
                     ("drift.detected", "Sam Seller (supplier)"), ("drift.notice", "Sam Seller (supplier)"),
                     ("reject", "Ana Ruiz (auditor)"), ("accept", "J. Auditor (runner)")]
    # the stop owner's stop is a claim too (the stop owner may sit on the supplier's side), never
    # judged here: it stays pending and moves no figure
    stop = next(e["seq"] for e in jr.read(path).events if e["kind"] == "injection.stopped")
    standing = {x["seq"]: x["status"] for x in metrics.compute(jr.read(path)).summary["claims"]["listed"]}
    assert standing == {stop: "pending", claims[0]: "rejected", claims[1]: "accepted"}
    listed = json.loads(CliRunner().invoke(app, ["claims", str(path), "--format", "json"]).stdout)["claims"]
    assert [c["status"] for c in listed] == ["pending", "rejected", "accepted"]

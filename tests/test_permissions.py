"""The access list (roles/permissions-v1.yaml) at the command line, in the journal and in the
figures: who may write what, the toolkit's own lines refused from every client, identity taken
from the actor, the measured party's claims counted only once accepted, and its wrong, early and
repeated claims counted as false alerts (charter 3.18.4).

The browser and the JSON twin, with every attack made as the supplier would make it, are in
tests/test_web_permissions.py.
"""

import datetime as dt
import json
import re
from pathlib import Path

import pytest

from day60 import journal as jr
from day60 import metrics, permissions
from day60.permissions import Actor, NotPermitted
from tests.builders import SIGN_OFF, make_journal

ROOT = Path(__file__).resolve().parents[1]
UTC = dt.UTC
SUPPLIER = Actor("supplier", "Sam Seller")


def t(text: str) -> dt.datetime:
    return dt.datetime.fromisoformat(text).replace(tzinfo=UTC)


def figures(path: Path) -> dict:
    return metrics.compute(jr.read(path)).summary


def incidents(path: Path) -> dict:
    return {r["id"]: r for r in metrics.incident_rows(metrics.compute(jr.read(path)))}


def journal(tmp_path: Path, events=(), **header) -> Path:
    """A T3 journal on the shipped uk-office calendar (Mon-Fri 09:00-17:30, London: UTC in early
    March 2026), window Mon 2 March 09:00 to Fri 13 March 17:30, runner "Test runner"."""
    return make_journal(tmp_path / "ex.jsonl", list(events), reveal=False, **header)


# ----- the table itself -----------------------------------------------------------------------


def test_the_table_covers_every_kind_and_denies_by_default():
    """Every event kind is either a row of `record` or one of the four actions; a role the table
    does not name for a kind may not record it; the toolkit's own kinds are the toolkit's alone."""
    from day60.events import KINDS

    t_ = permissions.table()
    assert set(t_.record) | set(permissions.ACTIONS) == set(KINDS)
    assert [k for k in t_.record if t_.toolkit_only(k)] == ["reveal", "notice.sent", "timestamp.token"]
    assert t_.people == ("runner", "auditor", "partner", "supplier", "observer", "stop owner", "rollback owner")
    # the supplier's claims, and the stop owner's stop (it may sit on the supplier's side)
    assert t_.claimants() == {"supplier", "stop owner"}
    for kind in KINDS:
        assert not permissions.may_record("observer", kind) or kind == "dispute"
    # The measured party records only its own claims (detection, notice, first communication), its
    # own false alert, its disputes and corrections of its own lines; never a wait, a withdrawal, an
    # exclusion, a telling, a restore, a severity, a close or a toolkit line.
    supplier = {k for k in KINDS if permissions.may_record("supplier", k)}
    assert supplier == {"drift.detected", "drift.notice", "incident.detected", "incident.communicated",
                        "drift.false-alert", "dispute", "correction"}


@pytest.mark.parametrize("page", ["serve.md", "evidence.md"])
def test_the_docs_quote_the_table_as_the_data_file_renders_it(page):
    """docs/serve.md and docs/evidence.md show the table the code applies, not a copy that can
    drift from it."""
    text = (ROOT / "docs" / page).read_text(encoding="utf-8")
    quoted = text.split("<!-- access list: begin -->\n", 1)[1].split("<!-- access list: end -->", 1)[0]
    assert quoted == permissions.markdown()


def test_a_name_cannot_carry_a_role_of_its_own():
    """by reads "NAME (ROLE)": a name with parentheses could pass a supplier's line off as the
    runner's, so no name may hold them; a line's role is read back from its by."""
    with pytest.raises(jr.InputError, match="no parentheses"):
        permissions.check_name("Sam (runner)")
    assert permissions.role_of("Sam Seller (supplier)") == "supplier"
    assert permissions.role_of("Sam Seller (supplier contact)") == "supplier"  # the web checklist's old name
    assert permissions.role_of("Test runner") is None
    assert permissions.role_of("day60 import servicenow (export sha256 ab12)") is None
    assert permissions.role_of("x (toolkit)") is None


# ----- the command line -------------------------------------------------------------------------


TOOLKIT_LINES = [
    ("timestamp.token", ["--set", "covers_seq=0", "--set", "covers_hash=" + "0" * 64, "--set", "tsa=x",
                         "--set", "token=AAAA"]),
    ("reveal", ["--set", "target=1", "--set", "at=2026-03-03T10:00+00:00", "--set", "salt=" + "0" * 32]),
    ("notice.sent", ["--set", "to=Nimbus", "--set", "sha256=" + "0" * 64]),
]


@pytest.mark.parametrize(("kind", "sets"), TOOLKIT_LINES, ids=[k for k, _ in TOOLKIT_LINES])
@pytest.mark.parametrize("who", [[], ["--as", "supplier", "--by", "Sam Seller"]], ids=["runner", "supplier"])
def test_day60_log_refuses_the_toolkits_own_lines(tmp_path, run, kind, sets, who):
    """'day60 log' wrote a timestamp.token of garbage (and a reveal, a notice sent) for anyone who
    typed one: 'verify' and every 'verify-report' then failed for ever. Each is refused with exit 2
    and one line naming the kind, the runner included, and the journal is left byte for byte."""
    path = journal(tmp_path, [("safety.agreed", "D1", "2026-02-27T10:00", SIGN_OFF)])
    before = path.read_bytes()
    r = run("log", path, kind, "--id", "x", "--at", "2026-03-03T10:00", *sets, *who)
    assert r.exit_code == 2, r.output
    assert r.stderr.count("\n") == 1 and r.stderr.startswith("error: kind: ")
    assert f"{kind} is written only by the toolkit itself" in r.stderr
    assert path.read_bytes() == before
    assert run("verify", path).exit_code == 0


def test_the_command_line_acts_as_the_runner_unless_told(tmp_path, run):
    """--as ROLE --by NAME records as that role, under the table: the supplier's claim sent by
    email is written down as its claim; a wait, a withdrawal or an exclusion in its name is
    refused (exit 2, one line); a role needs a person's name; the toolkit is no one's role."""
    path = journal(tmp_path, [("drift.onset", "D1", "2026-03-03T10:00",
                               {"source": "organic", "affected_class": "invoices"}),
                              ("incident.detected", "I1", "2026-03-03T10:00", {"severity": 2, "source": "organic"})])
    r = run("log", path, "drift.notice", "--id", "D1", "--at", "2026-03-03T12:00", "--set", "affected_class=invoices",
            "--set", "evidence=email 7", "--as", "supplier", "--by", "Sam Seller")
    assert r.exit_code == 0, r.output
    assert jr.read(path).events[-1]["by"] == "Sam Seller (supplier)"
    before = path.read_bytes()
    for kind, sets, words in (("incident.wait-start", [], "does not record incident.wait-start"),
                              ("incident.withdrawn", ["--set", "reason=not reproducible"], "does not record"),
                              ("incident.excluded", ["--set", "reason=clause 10"], "does not record"),
                              ("drift.told", [], "does not record drift.told"),
                              ("drift.detected", [], "names the affected_class it claims")):
        r = run("log", path, kind, "--id", "I1" if kind.startswith("incident") else "D1", "--at",
                "2026-03-03T12:30", *sets, "--as", "supplier", "--by", "Sam Seller")
        assert r.exit_code == 2 and words in r.stderr and r.stderr.count("\n") == 1, (kind, r.output)
    r = run("log", path, "drift.false-alert", "--id", "F1", "--at", "2026-03-03T12:30", "--as", "supplier")
    assert r.exit_code == 2 and "--by: names the person acting as the supplier" in r.stderr
    r = run("log", path, "drift.false-alert", "--id", "F1", "--at", "2026-03-03T12:30", "--as", "toolkit",
            "--by", "x")
    assert r.exit_code == 2 and "--as: 'toolkit' is not a role a person acts as" in r.stderr
    r = run("log", path, "drift.false-alert", "--id", "F1", "--at", "2026-03-03T12:30", "--by", "Eve (runner)")
    assert r.exit_code == 2 and "--by:" in r.stderr and "no parentheses" in r.stderr
    assert path.read_bytes() == before


def test_a_claim_counts_once_accepted_and_a_rejected_one_is_a_false_alert(tmp_path, run):
    """D1, a real drift (organic, class invoices), onset Tue 3 March 10:00. The supplier claims its
    notice at 12:00 the same day, naming invoices: 2 h, 2 business hours.

    - Pending: the claim moves no figure, so D1 reads "not detected within the window" once closed,
      and 'day60 claims' and 'day60 metrics' list it as awaiting acceptance.
    - Accepted with 'day60 accept': D1 is notified, 2 h (2 bh); no false alert.
    - I1 (organic, severity 2, detected by the runner at 10:00) gets a supplier claim of its first
      communication at 10:30, which is rejected: the communication figure ignores it, and the
      rejected drift claim of the second drift D2 (class claims, onset Wed 10:00, notice claimed Wed
      11:00 and rejected) is one false alert.
    """
    path = journal(tmp_path, [
        ("drift.onset", "D1", "2026-03-03T10:00", {"source": "organic", "affected_class": "invoices"}),
        ("drift.onset", "D2", "2026-03-04T10:00", {"source": "organic", "affected_class": "claims"}),
        ("incident.detected", "I1", "2026-03-03T10:00", {"severity": 2, "source": "organic"})])
    notice = jr.append(path, "drift.notice", "D1", t("2026-03-03T12:00"),
                       {"affected_class": "invoices", "evidence": "email 7"}, actor=SUPPLIER)
    said = jr.append(path, "incident.communicated", "I1", t("2026-03-03T10:30"), {}, actor=SUPPLIER)
    other = jr.append(path, "drift.notice", "D2", t("2026-03-04T11:00"),
                      {"affected_class": "claims", "evidence": "email 8"}, actor=SUPPLIER)
    jr.append(path, "exercise.close", "exercise", t("2026-03-13T17:30"), {})
    s = figures(path)
    d1 = next(o for o in s["drift"]["observations"] if o["id"] == "D1")
    assert d1["status"] == "not detected within the window" and d1["notice_hours"] is None
    assert s["drift"]["claims_awaiting_acceptance"] == [notice["seq"], other["seq"]]
    assert (s["claims"]["pending"], s["claims"]["accepted"]) == (3, 0)
    listed = run("claims", path)
    assert listed.exit_code == 0 and "pending" in listed.stdout and "Sam Seller (supplier)" in listed.stdout
    shown = run("metrics", path)
    assert "3 awaiting an auditor's acceptance" in shown.stdout

    r = run("accept", path, "--seq", notice["seq"], "--reason", "email 7 in the partner's inbox at 12:00")
    assert r.exit_code == 0, r.output
    assert run("accept", path, "--seq", said["seq"], "--reject", "--reason", "no such message").exit_code == 0
    assert run("accept", path, "--seq", other["seq"], "--reject", "--reason", "no such email").exit_code == 0
    s = figures(path)
    d1 = next(o for o in s["drift"]["observations"] if o["id"] == "D1")
    assert d1["status"] == "notified" and d1["notice_hours"] == 2 and d1["notice_business_hours"] == 2
    assert s["drift"]["false_alerts"] == 1 and s["drift"]["false_claims"]["rejected"] == [other["seq"]]
    assert incidents(path)["I1"]["first_communication_hours"] is None  # the rejected claim never counted
    # A claim is judged once, by an auditor, and only a claim is judged.
    again = run("accept", path, "--seq", notice["seq"], "--reason", "twice")
    assert again.exit_code == 2 and "already accepted or rejected" in again.stderr
    plain = run("accept", path, "--seq", 1, "--reason", "x")
    assert plain.exit_code == 2 and "is not a claim of the measured party" in plain.stderr
    by_supplier = run("accept", path, "--seq", other["seq"], "--reason", "x", "--as", "supplier", "--by", "Sam")
    assert by_supplier.exit_code == 2 and "does not accept or reject claims" in by_supplier.stderr
    assert run("verify", path).exit_code == 0


def test_wrong_early_and_repeated_claims_cost_and_a_guess_never_pays(tmp_path):
    """Charter 3.18.4: signals raised and found false are counted apart as false alerts, because a
    monitor that alerts all the time has a lead time near zero and is worth nothing.

    D1 is injected (sealed; class invoices, onset Mon 2 March 10:00, revealed at the close). The
    supplier claims, all accepted by a careless runner:
      seq a  detection, invoices, Mon 09:55   early: before the onset       false alert 1
      seq b  detection, letters,  Mon 10:05   wrong class                    false alert 2
      seq c  detection, invoices, Mon 10:06   the first good one, but the supplier also claimed
                                              early and in another class: void, counts nothing
      seq d  notice,    invoices, Mon 11:00   first good notice: counts, 1 h (1 bh)
      seq e  notice,    invoices, Mon 11:30   repeats d                      false alert 3
      seq f  notice,    invoices, on I9       names no drift at all          false alert 4
    Figures: D1 notified at 1 h; detection not detected (c is void); 4 false alerts in the window.
    Score: drift-notice 15 of 15 (1 bh against 24); drift-detection: c is void, so no detection
    time stands, but the good notice d proves detection no later than 11:00 (rubric 1.2.0), which
    is 1 bh, inside the 8 bh target: 10 of 10, exactly what notice d alone would earn, so the
    guesses gained nothing; false-alerts: 4 is the cut-off (0 target, 60% at 2, nothing beyond
    4), so 3 of 5, which is what the guessing cost.
    """
    from day60 import assess

    path = journal(tmp_path, [("safety.agreed", "D1", "2026-02-27T10:00", SIGN_OFF),
                              ("drift.onset", "D1", "2026-03-02T10:00", {"affected_class": "invoices"})])
    claims = [("drift.detected", "D1", "2026-03-02T09:55", {"affected_class": "invoices"}),
              ("drift.detected", "D1", "2026-03-02T10:05", {"affected_class": "letters"}),
              ("drift.detected", "D1", "2026-03-02T10:06", {"affected_class": "invoices"}),
              ("drift.notice", "D1", "2026-03-02T11:00", {"affected_class": "invoices", "evidence": "e"}),
              ("drift.notice", "D1", "2026-03-02T11:30", {"affected_class": "invoices", "evidence": "e"}),
              ("drift.notice", "I9", "2026-03-02T11:40", {"affected_class": "invoices", "evidence": "e"})]
    seqs = [jr.append(path, k, i, t(w), d, actor=SUPPLIER)["seq"] for k, i, w, d in claims]
    for seq in seqs:
        jr.append(path, "accept", str(seq), t("2026-03-13T17:00"), {"target": seq, "reason": "ok"},
                  actor=Actor("runner"))
    jr.append(path, "exercise.close", "exercise", t("2026-03-13T17:30"), {})
    jr.reveal(path, path.with_name(path.name + ".held.json"))
    s = figures(path)
    d = s["drift"]
    a, b, c, dd, e, f = seqs
    assert d["false_claims"]["early"] == [a] and d["false_claims"]["wrong_class"] == [b]
    assert d["false_claims"]["repeated"] == [e] and d["false_claims"]["no_drift"] == [f]
    assert d["false_alerts"] == 4 and d["false_alert_seqs"] == [a, b, e, f]
    row = next(o for o in d["observations"] if o["id"] == "D1")
    assert row["notice_hours"] == 1 and row["detection_hours"] is None
    verdicts = {x["seq"]: x["verdict"] for x in row["claims"]}
    assert verdicts == {a: "early", b: "wrong class", c: "void", dd: "counts", e: "repeated"}
    lines = {x["id"]: x for x in assess.score_journal(jr.read(path)).result["lines"]}
    assert lines["drift-notice"]["earned"] == 15
    assert lines["drift-detection"]["earned"] == 10
    assert lines["false-alerts"]["earned"] == pytest.approx(3)


def test_a_claim_of_no_drift_is_recorded_not_refused(tmp_path):
    """A refusal of the supplier's detection "no drift.onset for D1" before the runner sealed D1,
    and its acceptance after, told the supplier the instant of the injection to within its
    polling: it sprayed claims until one was taken. A claim is now recorded whatever it names (and
    costs a false alert when it names no drift); the runner's own record still needs the onset."""
    path = journal(tmp_path, [("safety.agreed", "D1", "2026-02-27T10:00", SIGN_OFF)])
    jr.append(path, "drift.detected", "D1", t("2026-03-02T09:00"), {"affected_class": "x"}, actor=SUPPLIER)
    with pytest.raises(jr.InputError, match=r"no drift\.onset for D1"):
        jr.append(path, "drift.detected", "D1", t("2026-03-02T09:00"), {}, actor=Actor("runner"))
    assert jr.verify(path).ok


def test_the_supplier_corrects_its_own_claim_only_while_nothing_is_revealed(tmp_path, run):
    """Its correction is itself a claim (it moves nothing until accepted); once the exercise is
    closed or an onset revealed it would know the instant it is measured from, so it is refused."""
    path = journal(tmp_path, [("drift.onset", "D1", "2026-03-03T10:00",
                               {"source": "organic", "affected_class": "invoices"})])
    mine = jr.append(path, "drift.notice", "D1", t("2026-03-05T10:00"), {"affected_class": "invoices",
                                                                         "evidence": "e"}, actor=SUPPLIER)
    fix = jr.correct(path, mine["seq"], t("2026-03-05T09:00"), "typed an hour late", actor=SUPPLIER)
    assert permissions.is_claim(fix)
    with pytest.raises(NotPermitted, match="was recorded by Test runner"):
        jr.correct(path, 1, t("2026-03-03T11:00"), "move the onset", actor=SUPPLIER)
    jr.append(path, "accept", "x", t("2026-03-06T10:00"), {"target": mine["seq"], "reason": "seen"})
    row = next(o for o in figures(path)["drift"]["observations"] if o["id"] == "D1")
    assert row["notice"] == "2026-03-05T10:00:00+00:00"  # the correction is not accepted: the claim stands
    jr.append(path, "exercise.close", "exercise", t("2026-03-13T17:30"), {})
    r = run("correct", path, "--seq", mine["seq"], "--at", "2026-03-03T10:01", "--reason", "r", "--as",
            "supplier", "--by", "Sam Seller")
    assert r.exit_code == 2 and "corrects no line once the exercise is closed" in r.stderr


def test_what_may_be_disputed_and_in_whose_name_is_checked_in_the_library(tmp_path):
    """``remedies.check_dispute``, what 'day60 dispute' asks before writing: 'restore' is a line of
    the published rubric, 'restor' is not (refused on --line). The header names the supplier Test
    supplier and the runner's organisation Audit Co: the supplier giving 'test SUPPLIER' passes (case
    does not matter), giving 'Audit Co' is refused on --organisation naming Test supplier; giving no
    organisation is not checked."""
    from day60 import remedies
    from day60.errors import InputError

    path = journal(tmp_path, runner_organisation="Audit Co")
    remedies.check_dispute(path, "restore", "supplier")
    remedies.check_dispute(path, "restore", "supplier", "test SUPPLIER")
    remedies.check_dispute(path, "restore", "runner", "Audit Co")
    for line, org, field in (("restor", None, "--line"), ("restore", "Audit Co", "--organisation")):
        with pytest.raises(InputError) as exc:
            remedies.check_dispute(path, line, "supplier", org)
        assert exc.value.field == field
    assert "('Test supplier')" in exc.value.problem


def test_a_dispute_is_filed_under_who_raises_it(tmp_path, run):
    """A dispute sent with raised_by and organisation set to the runner's was listed as the
    auditor's own (a self-dispute). Now both come from the actor: its name, and the organisation
    its role speaks for in the header; an --organisation that says otherwise is refused."""
    path = journal(tmp_path, runner_organisation="Audit Co")
    with pytest.raises(NotPermitted, match="taken from who raises the dispute"):
        jr.append(path, "dispute", "d", t("2026-03-14T10:00"),
                  {"line": "restore", "reason": "r", "raised_by": "Test runner", "organisation": "Audit Co"},
                  actor=SUPPLIER)
    r = run("dispute", path, "--line", "restore", "--as", "supplier", "--by", "Sam Seller", "--organisation",
            "Audit Co", "--reason", "r")
    assert r.exit_code == 2 and "is not the organisation of the supplier" in r.stderr
    assert run("dispute", path, "--line", "restore", "--as", "supplier", "--by", "Sam Seller", "--reason",
               "I2 was a test").exit_code == 0
    assert run("dispute", path, "--line", "drift-notice", "--reason", "our own doubt").exit_code == 0
    disputes = figures(path)["disputes"]
    assert [(d["raised_by"], d["organisation"], d["self_dispute"]) for d in disputes] == [
        ("Sam Seller", "Test supplier", False), ("Test runner", "Audit Co", True)]


def test_an_import_writes_only_what_the_table_gives_the_toolkit(tmp_path):
    """An import is the toolkit's bookkeeping: it writes the supplier's incident records, never a
    drift, a sign-off or a close; a vendor's clock field typed at the command line is refused."""
    path = journal(tmp_path)
    with pytest.raises(NotPermitted, match=r"the toolkit does not record drift\.onset"), jr.batch(path) as b:
        b.add("drift.onset", "D1", "2026-03-03T10:00:00+00:00", "day60 import csv", {"source": "organic"})
    with jr.batch(path) as b:
        b.add("incident.detected", "T-1", "2026-03-03T10:00:00+00:00", "day60 import csv",
              {"source": "organic", "severity": 2})
    with pytest.raises(NotPermitted, match=r"data\.vendor_wall_ms"):
        jr.append(path, "incident.restored", "T-1", t("2026-03-03T12:00"), {"check": "c", "vendor_wall_ms": 1},
                  actor=Actor("runner"))


def test_a_pending_claim_never_blocks_the_auditors_own_record(tmp_path):
    """I1 is raised at 10:00; the supplier claims its detection at 13:00, late, which would leave
    a 1-hour clock to a restore at 14:00. Its claim took the incident's one detection, so the
    runner's record of the detection it saw at 10:05 was refused. A claim takes no slot: the
    runner's line is written, the claim is rejected, and the clock runs 10:05 to 14:00, 3.92 h."""
    path = journal(tmp_path, [("safety.agreed", "I1", "2026-02-27T10:00", SIGN_OFF),
                              ("incident.raised", "I1", "2026-03-03T10:00")])
    claim = jr.append(path, "incident.detected", "I1", t("2026-03-03T13:00"), {}, actor=SUPPLIER)
    jr.append(path, "incident.detected", "I1", t("2026-03-03T10:05"), {"severity": 2}, actor=Actor("runner"))
    jr.append(path, "incident.restored", "I1", t("2026-03-03T14:00"), {"check": "probe"}, actor=Actor("runner"))
    jr.append(path, "reject", "I1", t("2026-03-03T15:00"), {"target": claim["seq"], "reason": "alert at 10:05"},
              actor=Actor("runner"))
    assert incidents(path)["I1"]["restore_hours"] == pytest.approx(3 + 55 / 60)
    assert jr.verify(path).ok


def test_the_engine_leaves_a_journal_with_supplier_incident_claims_to_the_reference_reader(tmp_path):
    """The engine's fast path groups incident lines in SQL, where claims are not judged: a journal
    holding one is read by journal.read, and the figures are the reference's (a pending claim of a
    detection does not start the clock)."""
    from day60 import engine

    path = journal(tmp_path, [("incident.detected", "I1", "2026-03-03T10:00", {"severity": 2, "source": "organic"}),
                              ("incident.restored", "I1", "2026-03-03T12:00", {"check": "c"})])
    engine.read_fast(path)  # nothing judged: the fast path takes it
    jr.append(path, "incident.detected", "I2", t("2026-03-03T11:00"), {}, actor=SUPPLIER)
    with pytest.raises(engine.Declined, match="claim of the measured party"):
        engine.read_fast(path)
    rows = incidents(path)
    assert "I2" not in rows and rows["I1"]["restore_hours"] == 2


def test_every_front_end_names_who_is_writing():
    """Every append a front end makes for a person names its actor, so the table is asked: the
    command line, live and the web checklist hold no append without one."""
    found = []
    for module in ("day60/cli/journal.py", "day60/live.py", "day60/web/press.py"):
        text = (ROOT / module).read_text(encoding="utf-8")
        for call in re.finditer(r"(?:jr|journal)\.(?:append|correct)\((?:[^()]|\([^()]*\))*\)", text):
            if "actor=" not in call.group() and '"notice.sent"' not in call.group():
                found.append(f"{module}: {call.group()[:80]}")
    assert not found, found


def test_the_json_schema_lists_the_new_kinds(run):
    r = run("schema", "accept")
    assert r.exit_code == 0 and json.loads(r.stdout)["properties"]["kind"]["const"] == "accept"


# ----- attack 37: what a claim may carry ----------------------------------------------------------


def _restore_claim_journal(tmp_path: Path) -> Path:
    """I1 raised by the runner Thu 5 March 11:30 (signed off), restored Fri 6 March 11:40."""
    return journal(tmp_path, [("safety.agreed", "I1", "2026-02-27T10:00", SIGN_OFF),
                              ("incident.raised", "I1", "2026-03-05T11:30")])


def test_a_supplier_claim_never_sets_a_severity_or_a_source(tmp_path, run):
    """Attack 37, finding 1. The supplier claimed I1's detection at Thu 5 March 11:40 with
    severity 4; once accepted, the restore to Fri 6 March 11:40 was judged at severity 4's target
    (8.5 business hours: Thu 11:40-17:30 is 5 h 50, Fri 09:00-11:40 is 2 h 40; against 40 bh, full
    marks, 25 of 25) instead of the strictest (24 elapsed hours against severity 1's 4 h target,
    at its 24 h cut-off: 60%, 15 of 25).

    Now the access list's ``fields`` gives the supplier no field on incident.detected: severity and
    source are refused (exit 2, one line naming the field and the fix, nothing written). A line
    that carries a severity anyway (written outside the toolkit's front ends) moves nothing once
    accepted: the incident stays unclassified and restore earns 15 of 25."""
    from day60 import assess

    path = _restore_claim_journal(tmp_path)
    before = path.read_bytes()
    for field in ("severity=4", "source=organic"):
        r = run("log", path, "incident.detected", "--id", "I1", "--at", "2026-03-05T11:40", "--set", field,
                "--as", "supplier", "--by", "Sam Seller")
        name = field.split("=")[0]
        assert r.exit_code == 2 and r.stderr.count("\n") == 1, r.output
        assert r.stderr.startswith(f"error: data.{name}: the supplier (the measured party) does not set {name} "
                                   "on incident.detected"), r.stderr
        assert "writes: note" in r.stderr and "Traceback" not in r.output
    assert path.read_bytes() == before
    forged = jr.append(path, "incident.detected", "I1", t("2026-03-05T11:40"), {"severity": 4},
                       by="Sam Seller (supplier)")
    assert forged["data"]["severity"] == 4 and permissions.is_claim(forged)
    assert run("accept", path, "--seq", forged["seq"], "--reason", "alert in its console at 11:40").exit_code == 0
    jr.append(path, "incident.restored", "I1", t("2026-03-06T11:40"), {"check": "probe"}, actor=Actor("runner"))
    jr.append(path, "exercise.close", "exercise", t("2026-03-13T17:30"), {})
    row = incidents(path)["I1"]
    assert row["restore_hours"] == 24 and row["status"] == "unclassified"
    lines = {x["id"]: x for x in assess.score_journal(jr.read(path)).result["lines"]}
    assert lines["restore"]["earned"] == pytest.approx(15)


def test_claims_shows_every_field_being_accepted_and_no_none(tmp_path, run):
    """Attack 37, findings 1 and 7: 'day60 claims' printed "None" in a class column for an
    incident claim, never showed a severity the claim carried, and listed a correction without
    the instant it proposes. Each claim now reads what accepting it records: the kind and instant
    and every field the claim carries into the figures (a drift notice's class and evidence; an
    incident detection's instant alone, its model's default source being none of the supplier's),
    and a correction's target and proposed instant, Tue 3 March 12:00."""
    path = journal(tmp_path, [("drift.onset", "D1", "2026-03-03T10:00",
                               {"source": "organic", "affected_class": "invoices"}),
                              ("safety.agreed", "I1", "2026-02-27T10:00", SIGN_OFF),
                              ("incident.raised", "I1", "2026-03-05T11:30")])
    notice = jr.append(path, "drift.notice", "D1", t("2026-03-05T10:00"), {"affected_class": "invoices",
                                                                           "evidence": "alert 4411"}, actor=SUPPLIER)
    jr.append(path, "incident.detected", "I1", t("2026-03-05T11:40"), {}, actor=SUPPLIER)
    jr.correct(path, notice["seq"], t("2026-03-03T12:00"), "typed the wrong day", actor=SUPPLIER)
    r = run("claims", path)
    assert r.exit_code == 0, r.output
    assert "None" not in r.stdout and "null" not in r.stdout
    assert "affected_class=invoices; evidence=alert 4411" in r.stdout
    assert "incident.detected at 2026-03-05T11:40:00+00:00" in r.stdout and "source" not in r.stdout
    assert f"seq {notice['seq']} moved to 2026-03-03T12:00:00+00:00; reason=typed the wrong day" in r.stdout
    listed = json.loads(run("claims", path, "--format", "json").stdout)["claims"]
    assert listed[1]["fields"] == {} and listed[2]["fields"]["at"] == "2026-03-03T12:00:00+00:00"


def test_a_refusal_never_offers_a_field_only_the_toolkit_writes(tmp_path, run):
    """Attack 37, finding 7: sending data.by was refused with "drift.notice takes: note,
    pressed_at, ...", and pressed_at is itself refused as the toolkit's. The supplier is told what
    it writes on the kind; any other role is told the model's fields less the toolkit's."""
    path = journal(tmp_path, [("drift.onset", "D1", "2026-03-03T10:00",
                               {"source": "organic", "affected_class": "invoices"})])
    mine = run("log", path, "drift.notice", "--id", "D1", "--at", "2026-03-03T12:00", "--set", "affected_class=x",
               "--set", "evidence=e", "--set", "by=Eve", "--as", "supplier", "--by", "Sam Seller")
    assert mine.exit_code == 2 and "writes: affected_class, evidence, note" in mine.stderr, mine.output
    runner = run("log", path, "drift.notice", "--id", "D1", "--at", "2026-03-03T12:00", "--set", "affected_class=x",
                 "--set", "evidence=e", "--set", "by=Eve")
    assert runner.exit_code == 2, runner.output
    assert "drift.notice takes: note, affected_class, evidence" in runner.stderr
    assert "pressed_at" not in mine.stderr + runner.stderr


@pytest.mark.parametrize(("name", "points"), [("Sam ⁽runner⁾", "U+207D, U+207E"), ("Sam （runner）", "U+FF08, U+FF09"),
                                              ("Sam ₍runner₎", "U+208D, U+208E"), ("Sam [runner]", "ASCII brackets"),
                                              ("Sam ❨runner❩", "U+2768, U+2769")])
def test_a_name_holds_no_bracket_of_any_kind(tmp_path, run, name, points):
    """Attack 37, finding 6: "Sam ⁽runner⁾" and fullwidth parentheses passed the ASCII-only rule
    and read as a role. Every Unicode opening or closing bracket (categories Ps and Pe), and any
    character NFKC turns into one, is refused at the command line (exit 2, one line naming the
    code points, nothing written)."""
    path = journal(tmp_path, [("drift.onset", "D1", "2026-03-03T10:00",
                               {"source": "organic", "affected_class": "invoices"})])
    before = path.read_bytes()
    r = run("log", path, "drift.notice", "--id", "D1", "--at", "2026-03-03T12:00", "--set", "affected_class=invoices",
            "--set", "evidence=e", "--as", "supplier", "--by", name)
    assert r.exit_code == 2 and r.stderr.count("\n") == 1 and r.stderr.startswith("error: --by: "), r.output
    assert f"holds a bracket or a character that reads as one ({points})" in r.stderr
    assert path.read_bytes() == before


def test_no_one_acts_under_the_runner_s_or_a_party_s_name_and_disputes_print_the_role(tmp_path, run):
    """Attack 37, finding 6: the supplier's contact filed a dispute "by J. Auditor" (the runner's
    name) and the score text and PDF read "dispute ... by J. Auditor, <supplier>", the PDF with no
    role at all. The runner of this journal is "Test runner", its supplier "Test supplier": the
    supplier's "test  RUNNER" and "Test Supplier" are refused (casefolded, NFKC, spaces folded:
    exit 2, nothing written); the runner itself may give its own name. A dispute by Sam Seller as
    the supplier prints "by Sam Seller as the supplier (the measured party), Test supplier" in
    the score text, and the report's dispute list says the same."""
    path = journal(tmp_path)
    before = path.read_bytes()
    for name in ("test  RUNNER", "Test Supplier", "ＴＥＳＴ runner"):
        r = run("dispute", path, "--line", "restore", "--as", "supplier", "--by", name, "--reason", "x")
        assert r.exit_code == 2 and r.stderr.count("\n") == 1, r.output
        assert "is the name of this journal's" in r.stderr and "your own name" in r.stderr
    assert path.read_bytes() == before
    assert run("dispute", path, "--line", "restore", "--as", "runner", "--by", "Test runner", "--reason",
               "our own doubt").exit_code == 0
    assert run("dispute", path, "--line", "restore", "--as", "supplier", "--by", "Sam Seller", "--reason",
               "I2 was a test").exit_code == 0
    r = run("score", path)
    assert "by Sam Seller as the supplier (the measured party), Test supplier: open" in r.stdout, r.stdout
    assert "by Test runner as the runner, " in r.stdout
    html = tmp_path / "score.html"
    assert run("score", path, "--html", html).exit_code == 0
    assert "raised by Sam Seller as the supplier (the measured party) (Test supplier" in html.read_text()


def test_a_stop_owner_s_stop_counts_only_once_an_auditor_accepts_it(tmp_path):
    """The stop owner may sit on the supplier's side: its "injection stopped" is a claim.

    D1 is injected (sealed; class invoices, onset Mon 2 March 10:00, revealed at the close); nobody
    detects or notifies it. At 11:00 the stop owner (Kim Ode) records that the injection stopped.
    - Not accepted: the stop moves nothing, so D1 is judged as if it ran on: onset in the window,
      no notice by the close, "not detected within the window"; no drift is "stopped"; the stop is
      one pending claim.
    - Accepted by the runner before the close: D1 ended by its stop condition, counted apart as
      "stopped" and out of the scored population (no drift left in it).
    """
    stopper = Actor("stop owner", "Kim Ode")
    made = {}
    for accepted in (False, True):
        folder = tmp_path / ("accepted" if accepted else "pending")
        folder.mkdir()
        path = journal(folder, [("safety.agreed", "D1", "2026-02-27T10:00", SIGN_OFF),
                                ("drift.onset", "D1", "2026-03-02T10:00", {"affected_class": "invoices"})])
        stop = jr.append(path, "injection.stopped", "D1", t("2026-03-02T11:00"), {"reason": "errors above 5%"},
                         actor=stopper)
        assert stop["by"] == "Kim Ode (stop owner)"
        if accepted:
            jr.append(path, "accept", str(stop["seq"]), t("2026-03-02T11:30"),
                      {"target": stop["seq"], "reason": "the stop condition was met"}, actor=Actor("runner"))
        jr.append(path, "exercise.close", "exercise", t("2026-03-13T17:30"), {})
        jr.reveal(path, path.with_name(path.name + ".held.json"))
        made[accepted] = figures(path)
    pending, taken = made[False], made[True]
    row = next(o for o in pending["drift"]["observations"] if o["id"] == "D1")
    assert row["status"] == metrics.NOT_DETECTED and pending["drift"]["stopped"] == 0
    assert pending["claims"]["pending"] == 1
    row = next(o for o in taken["drift"]["observations"] if o["id"] == "D1")
    assert row["status"] == "stopped" and taken["drift"]["stopped"] == 1


def test_a_stop_owner_corrects_its_stop_only_until_the_close(tmp_path):
    """The stop owner's stop is a claim, so, as the supplier's lines, it is corrected only before
    the close or a reveal: after the close the onset's instant may be known (the reveal follows),
    and a stop moved to just after it would fit the drift. Refused, nothing written."""
    stopper = Actor("stop owner", "Kim Ode")
    path = journal(tmp_path, [("safety.agreed", "D1", "2026-02-27T10:00", SIGN_OFF),
                              ("drift.onset", "D1", "2026-03-02T10:00", {"affected_class": "invoices"})])
    stop = jr.append(path, "injection.stopped", "D1", t("2026-03-03T12:00"), {"reason": "errors above 5%"},
                     actor=stopper)
    jr.append(path, "exercise.close", "exercise", t("2026-03-13T17:30"), {})
    before = path.read_bytes()
    with pytest.raises(NotPermitted):
        jr.append(path, "correction", str(stop["seq"]), t("2026-03-13T17:40"),
                  {"target": stop["seq"], "at": "2026-03-02T10:30:00+00:00", "reason": "typo"}, actor=stopper)
    assert path.read_bytes() == before

"""Every incident of the restore population sits in exactly one severity row (1 to 4, or
``no_severity``, the table's "none"), and each row counts it under the one bucket it is in: the
rows share out every count of the population, whatever state the journal leaves an incident in.

An outside attack (att36b, finding 3) found an incident with no severity closed with no
monitoring check in the population and in no row: the rows' "unconfirmed" added up to 1 where the
population held 2. Calendar: the UK office; window Mon 2 March 09:00 to Fri 13 March 17:30 2026,
GMT (so UTC). Expected figures are worked by hand in each docstring.
"""

import json
from pathlib import Path

from day60 import journal as jr
from day60 import metrics as mx
from tests.builders import SIGN_OFF, make_journal
from tests.imports_common import figures_json, imported, new_journal, write

DATA = Path(__file__).parent / "data" / "imports"

# a row's own count keys, and the summary's key for each where it differs
ROW_BUCKETS = {"restored": None, "open": None, "unconfirmed": "unconfirmed", "not_evidenced": "not_evidenced",
               "not_detected": "not_detected", "withdrawn": "withdrawn", "excluded": "excluded",
               "outside_window": "outside_the_window"}


def rows(summary: dict) -> dict[str, dict]:
    return {**summary["by_severity"], "none": summary["no_severity"]}


def assert_rows_add_up(i: dict) -> None:
    """The identities a reader can check on the table: each row's population is the sum of its
    buckets; the rows' populations add to the population; every bucket the summary counts alone
    is the sum of the rows; restored and open with a severity are the summary's restored and
    open, and with none its 'unclassified' (restored or open with no severity)."""
    r = rows(i)
    for name, b in r.items():
        assert b["population"] == sum(b[k] for k in ROW_BUCKETS), name
        assert b["restored"] == b["count"] + b["ranged"], name
    assert sum(b["population"] for b in r.values()) == i["population"]
    for key, top in ROW_BUCKETS.items():
        if top:
            assert sum(b[key] for b in r.values()) == i[top], key
    assert sum(b["restored"] for b in i["by_severity"].values()) == i["restored"]
    assert sum(b["open"] for b in i["by_severity"].values()) == i["open"]
    assert i["no_severity"]["restored"] + i["no_severity"]["open"] == i["unclassified"]


# Each state an incident's events can leave it in (after its clock's start, Tue 3 Mar 10:00
# unless said), with the bucket it lands in.
STATES = {
    "open": ([], "open"),
    "restored": ([("incident.restored", "12:00", {"check": "probe"})], "restored"),
    "closed unconfirmed": ([("incident.ticket-closed", "12:00", {"state": "Closed", "resolved": True})],
                           "unconfirmed"),
    "closed, re-opened, open": ([("incident.ticket-closed", "11:00", {"state": "Closed", "resolved": True}),
                                 ("incident.reopened", "12:00", {"reason": "relapse"})], "open"),
    "restored, re-opened, open": ([("incident.restored", "11:00", {"check": "probe"}),
                                   ("incident.reopened", "12:00", {"reason": "relapse"})], "open"),
    "restored, re-opened, restored": ([("incident.restored", "11:00", {"check": "probe"}),
                                       ("incident.reopened", "12:00", {"reason": "relapse"}),
                                       ("incident.restored", "14:00", {"check": "probe"})], "restored"),
    "closed, re-opened, closed": ([("incident.ticket-closed", "11:00", {"state": "Closed", "resolved": True}),
                                   ("incident.reopened", "12:00", {"reason": "relapse"}),
                                   ("incident.ticket-closed", "14:00", {"state": "Closed", "resolved": True})],
                                  "unconfirmed"),
    "closed at no time the records hold": ([("incident.ticket-closed", "10:00", {
        "state": "Closed", "resolved": True, "instant": "not-evidenced"})], "not evidenced"),
    "withdrawn": ([("incident.withdrawn", "11:00", {"reason": "not reproducible"})], "withdrawn"),
    "excluded": ([("incident.excluded", "11:00", {"reason": "customer's own network"})], "excluded"),
}


def _events(ident: str, severity: int | None, state: str) -> list:
    sev = {} if severity is None else {"severity": severity}
    if state == "never detected":  # raised by the exercise; a severity only by classification
        return [("safety.agreed", ident, "2026-02-25T09:00", SIGN_OFF),
                ("incident.raised", ident, "2026-03-03T09:00", {}),
                *([("incident.classified", ident, "2026-03-03T09:30", {**sev, "reason": "triage"})] if sev else [])]
    if state == "restored before the window":
        return [("incident.detected", ident, "2026-02-27T10:00", {"source": "organic", **sev}),
                ("incident.restored", ident, "2026-02-27T12:00", {"check": "probe"})]
    if state == "detected after the window":
        return [("incident.detected", ident, "2026-03-14T10:00", {"source": "organic", **sev})]
    later, _ = STATES[state]
    return [("incident.detected", ident, "2026-03-03T10:00", {"source": "organic", **sev}),
            *[(kind, ident, f"2026-03-03T{hhmm}", data) for kind, hhmm, data in later]]


def test_every_state_classified_or_not_is_in_one_row_and_one_bucket(tmp_path):
    """Every state a journal can leave an incident in, once at each severity 1 to 4 and once with
    none (65 incidents): open; restored; closed unconfirmed; closed, re-opened and open; restored,
    re-opened and open; restored, re-opened and restored; closed, re-opened and closed; closed at
    no time the records hold; withdrawn; excluded; never detected; restored before the window;
    detected after it.

    By hand, each row holds the 13 states once: population 13; restored 2 (restored; restored,
    re-opened, restored); open 3 (open; closed, re-opened, open; restored, re-opened, open);
    unconfirmed 2 (closed; closed, re-opened, closed); not evidenced 1; withdrawn 1; excluded 1;
    not detected 1; outside the window 2 (before, after). The summary: population 5 x 13 = 65;
    restored 4 x 2 = 8 and open 4 x 3 = 12 with a severity; unclassified 2 + 3 = 5 without one;
    unconfirmed 5 x 2 = 10; not evidenced, withdrawn, excluded, not detected 5 each; outside 10.
    Before the fix the 'none' row held only the 5 restored or open: its population was 5, not 13,
    and its unconfirmed 0, so the rows' unconfirmed added to 8 of 10."""
    states = [*STATES, "never detected", "restored before the window", "detected after the window"]
    events, expected = [], {}
    for sev in (None, 1, 2, 3, 4):
        for n, state in enumerate(states):
            ident = f"S{sev or 0}-{n}"
            events += _events(ident, sev, state)
    path = make_journal(tmp_path / "j.jsonl", events)
    figures = mx.compute(jr.read(path))
    i = figures.summary["incidents"]
    table = figures.tables["incidents"]
    for sev in (None, 1, 2, 3, 4):  # each state landed in the bucket it is meant to
        for n, state in enumerate(states):
            status = table.loc[table["id"] == f"S{sev or 0}-{n}", "status"].item()
            meant = STATES[state][1] if state in STATES else \
                {"never detected": "not detected"}.get(state, "outside the window")
            if sev is None and meant in ("restored", "open"):
                meant = "unclassified"
            expected[(sev, state)] = meant
            assert status == meant, (sev, state)
    for name, b in rows(i).items():
        assert (b["population"], b["restored"], b["open"], b["unconfirmed"], b["not_evidenced"], b["withdrawn"],
                b["excluded"], b["not_detected"], b["outside_window"]) == (13, 2, 3, 2, 1, 1, 1, 1, 2), name
    assert (i["population"], i["restored"], i["open"], i["unclassified"], i["unconfirmed"], i["not_evidenced"],
            i["withdrawn"], i["excluded"], i["not_detected"], i["outside_the_window"]) == \
        (65, 8, 12, 5, 10, 5, 5, 5, 5, 10)
    assert_rows_add_up(i)


def test_the_attack_s_pagerduty_export_adds_up_and_says_the_null_priority(run, tmp_path):
    """att36b finding 3, its own export: Q1AAAA P1, created Tue 3 Mar 09:00, resolved 11:00;
    Q2BBBB priority null (urgency high), created Wed 4 Mar 09:00, resolved 10:00; Q3CCCC P2,
    triggered Thu 5 Mar 09:00. No log entries, so each resolution is a closure no monitoring
    check confirmed (3.19.4), and each clock starts at the incident's created_at.

    By hand: severity 1 holds Q1AAAA (unconfirmed 1); severity 2 holds Q3CCCC (open 1); 'none'
    holds Q2BBBB (unconfirmed 1). Population 3 = 1 + 1 + 0 + 0 + 1; unconfirmed 2 = 1 + 0 + 0 +
    0 + 1; open 1; unclassified (restored or open with no severity) 0. Before the fix the
    'none' row read unconfirmed 0, population absent: the rows' unconfirmed added to 1, not 2.
    The import says that one incident had no priority and that its urgency is not a severity."""
    j = new_journal(tmp_path)
    out = imported(run, j, "pagerduty", DATA / "pagerduty" / "incidents_null_priority.json",
                   "--severity-map", "P1=1,P2=2")
    notes = [n["note"] for n in out["findings"]["notes"]]
    [said] = [n for n in notes if "have no priority" in n]
    assert said.startswith("1 ticket(s) have no priority (Q2BBBB)") and "'none' row" in said
    assert "urgency (high: 1) is not read as a severity" in said and 'severity = "urgency"' in said
    i = figures_json(run, j)
    assert (i["population"], i["unconfirmed"], i["open"], i["unclassified"]) == (3, 2, 1, 0)
    assert (i["by_severity"]["1"]["unconfirmed"], i["by_severity"]["2"]["open"]) == (1, 1)
    assert (i["no_severity"]["population"], i["no_severity"]["unconfirmed"]) == (1, 1)
    assert_rows_add_up(i)
    table = run("metrics", j).stdout
    assert "3 incident(s): 0 restored, 2 closed with no monitoring check" in table
    assert "1 of them without a severity (row 'none'" in table
    none = next(line.split() for line in table.splitlines() if line.startswith("none "))
    assert none[1] == "1" and "0/1/0/0" in none  # one incident; open/unconfirmed/not evidenced/not detected


def test_a_zendesk_ticket_with_a_null_priority_is_said(run, tmp_path):
    """Zendesk allows ``"priority": null`` (Tickets API, List Tickets; the same shape as att36b's
    zd-tickets-list.json, ticket 201). Ticket 201, no priority, opened Tue 3 Mar 09:00; ticket
    203, urgent, opened Wed 4 Mar 10:00: both open (status ``open``). The import names 201 as the
    one ticket with no priority; by hand 2 are open at the close: 203 in severity 1 (the
    summary's open 1) and 201 in the 'none' row (its open 1, the summary's unclassified 1)."""
    tickets = {"tickets": [
        {"id": 201, "created_at": "2026-03-03T09:00:00Z", "updated_at": "2026-03-03T09:00:00Z", "type": "incident",
         "status": "open", "priority": None, "tags": [], "custom_fields": []},
        {"id": 203, "created_at": "2026-03-04T10:00:00Z", "updated_at": "2026-03-04T10:00:00Z", "type": "incident",
         "status": "open", "priority": "urgent", "tags": [], "custom_fields": []}],
        "next_page": None, "previous_page": None, "count": 2}
    j = new_journal(tmp_path)
    out = imported(run, j, "zendesk", write(tmp_path, "tickets.json", json.dumps(tickets)),
                   "--severity-map", "urgent=1,high=2,normal=3,low=4")
    [said] = [n["note"] for n in out["findings"]["notes"] if "have no priority" in n["note"]]
    assert said.startswith("1 ticket(s) have no priority (201)") and "urgency" not in said
    i = figures_json(run, j)
    assert (i["open"], i["unclassified"], i["no_severity"]["open"], i["by_severity"]["1"]["open"]) == (1, 1, 1, 1)
    assert_rows_add_up(i)

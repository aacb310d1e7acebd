"""day60 import csv: a SYNTHETIC spreadsheet covering every clock fact of charter 3.19, with
continuation rows (a row that repeats a ticket's id to add a pause or a note).

Times are written dd/mm/yyyy HH:MM in Europe/London (GMT in early March, so UTC).
"""

import pytest

from tests.imports_common import (
    check_scenario,
    figures_json,
    imported,
    new_journal,
    per_ticket,
    refused,
    reimport_adds_nothing,
    write,
)

HEADER = ("Ticket,Sev,Opened,Detected,Client reported,Resolved,Reopened,Restored,Restore check,Outcome,Hold from,"
          "Hold to,Hold why,Note,Note at,Desk hours,Comment")
ROWS = [
    "T-A,Sev 4,02/03/2026 10:00,,,02/03/2026 11:00,,,,cannot reproduce,,,,,,,SYNTHETIC",
    "T-B,Sev 1,02/03/2026 09:00,,,02/03/2026 10:00,,02/03/2026 11:30,SYNTHETIC canary,,,,,,,1.0,SYNTHETIC",
    "T-C,Sev 1,03/03/2026 09:00,,,03/03/2026 10:00;03/03/2026 12:00,03/03/2026 11:00,03/03/2026 12:00,"
    "SYNTHETIC canary,,,,,,,3.0,SYNTHETIC",
    "T-D,Sev 2,03/03/2026 14:00,03/03/2026 13:00,,03/03/2026 15:00,,03/03/2026 15:00,SYNTHETIC monitor,,,,,,,,"
    "SYNTHETIC",
    "T-E,Sev 2,04/03/2026 10:00,,04/03/2026 09:30,04/03/2026 11:00,,04/03/2026 11:00,SYNTHETIC monitor,,,,,,,,"
    "SYNTHETIC",
    "T-F,Sev 3,04/03/2026 13:00,,,04/03/2026 16:00,,04/03/2026 16:00,SYNTHETIC monitor,,04/03/2026 14:00,"
    "04/03/2026 15:00,change freeze,,,,SYNTHETIC",
    "T-G,Sev 3,05/03/2026 09:00,,,05/03/2026 12:00,,05/03/2026 12:00,SYNTHETIC monitor,,,,,,,,SYNTHETIC",
    "T-K,Sev 4,05/03/2026 13:00,,,05/03/2026 14:00,,05/03/2026 14:00,SYNTHETIC monitor,partner's own system,,,,,,,"
    "SYNTHETIC",
    "T-H,Sev 4,06/03/2026 09:00,,,06/03/2026 12:00,,06/03/2026 12:00,SYNTHETIC monitor,,,,,,,,SYNTHETIC",
    # continuation rows: the id again, only pause or note cells filled (Sev repeated, as a filled-down sheet does)
    "T-G,Sev 3,,,,,,,,,,,,SYNTHETIC waiting on client for logs,05/03/2026 10:00,,",
    "T-G,,,,,,,,,,,,,SYNTHETIC client replied,05/03/2026 11:00,,",
    "T-H,,,,,,,,,,06/03/2026 10:00,06/03/2026 10:30,waiting on client,,,,",
]
MAP = """\
# SYNTHETIC: this deal's spreadsheet.
[times]
timezone = "Europe/London"
format = "%d/%m/%Y %H:%M"

[columns]
id = "Ticket"
severity = "Sev"
opened = "Opened"
detected = "Detected"
partner_notice = "Client reported"
resolved = "Resolved"
reopened = "Reopened"
restored = "Restored"
check = "Restore check"
outcome = "Outcome"
pause_start = "Hold from"
pause_end = "Hold to"
pause_kind = "Hold why"
note = "Note"
note_at = "Note at"
vendor_hours = "Desk hours"

[pauses]
"waiting on client" = "wait"
"change freeze" = "change"

[outcomes]
"cannot reproduce" = "withdrawn"
"partner's own system" = "excluded: Retainer Schedule clause 10.2 (SYNTHETIC)"

[notes]
wait-start = "(?i)waiting on (the )?client"
wait-end = "(?i)client replied"

[severity]
"Sev 1" = 1
"Sev 2" = 2
"Sev 3" = 3
"Sev 4" = 4
"""
IDS = {k: f"T-{k}" for k in "ABCDEFGK"}


def _sheet(tmp_path, rows=ROWS, name="sheet.csv"):
    return write(tmp_path, name, "\n".join([HEADER, *rows]) + "\n")


def test_every_clock_fact(run, tmp_path):
    """The seven tickets of ``check_scenario`` and one more:

    - T-A Outcome "cannot reproduce" (withdrawn), T-K "partner's own system" (excluded);
    - T-B restored 11:30 after its resolution at 10:00: 2.5 h;
    - T-C resolved 10:00, re-opened 11:00, resolved and restored 12:00: 3.0 h;
    - T-D detected 13:00, opened 14:00: 2.0 h; T-E only the client's report at 09:30: 1.5 h;
    - T-F a change freeze 14:00-15:00: 2.0 h;
    - T-G two continuation rows carry the notes at 10:00 and 11:00: 3 - 1 = 2.0 h;
    - T-H (severity 4) opened 09:00, restored 12:00, a continuation row adds a wait 10:00-10:30:
      3 - 0.5 = 2.5 h, from the opening that stands in for a detection the sheet lacks: at least
      2.5 h, a range. So severity 4 has no figure (count 0, sum none) and one ranged restore (T-A
      and T-K enter no figure, counted as withdrawn and excluded).
    """
    j = new_journal(tmp_path)
    args = ("csv", _sheet(tmp_path), "--map", write(tmp_path, "map.toml", MAP))
    out = imported(run, j, *args)
    assert out["unreadable"] == [] and len(out["imported"]) == 9 and out["read"] == 9
    check_scenario(run, j, "csv", IDS)
    assert per_ticket(j).loc["csv:T-H", "restore_hours_at_least"] == pytest.approx(2.5)
    assert per_ticket(j).loc["csv:T-H", "waiting_on_partner_hours"] == pytest.approx(0.5)
    s4 = figures_json(run, j)["by_severity"]["4"]
    assert (s4["count"], s4["ranged"], s4["sum_hours"], s4["withdrawn"], s4["excluded"]) == (0, 1, None, 1, 1)
    reimport_adds_nothing(run, j, *args)


def test_reconciliation_with_the_sheets_own_hours(run, tmp_path):
    """Desk hours: T-B 1.0 against ours 2.5 (the sheet says nothing of when its clock ran, so the
    difference cannot be taken apart, and says so); T-C 3.0 against ours 3.0: agree."""
    j = new_journal(tmp_path)
    out = imported(run, j, "csv", _sheet(tmp_path), "--map", write(tmp_path, "map.toml", MAP))
    rows = {r["ticket"]: r for r in out["reconcile"]["tickets"]}
    assert rows["T-C"]["agree"] is True
    assert rows["T-B"]["difference_hours"] == pytest.approx(1.5)
    assert rows["T-B"]["reasons"] == [
        "our clock starts at the ticket's opening, standing in for a detection the records lack",
        "the export does not say when the vendor's clock started and stopped, so the difference cannot be taken "
        "apart"]


def test_a_repeated_id_with_other_cells_is_refused(run, tmp_path):
    """T-B again with another opening is a second ticket under one id, not a continuation row."""
    rows = [*ROWS, "T-B,Sev 1,02/03/2026 09:30,,,,,,,,,,,,,,"]
    line = refused(run, new_journal(tmp_path), "csv", _sheet(tmp_path, rows), "--map",
                   write(tmp_path, "map.toml", MAP))
    assert "1 ticket id(s) appear on rows that differ: 'T-B' (sheet.csv row 3 and row 14)" in line


def test_stray_quote_is_refused_naming_the_row(run, tmp_path):
    """A quote opened in the Comment of row 3 and never closed would swallow every later row."""
    rows = list(ROWS)
    rows[1] = rows[1].replace(",SYNTHETIC", ',"SYNTHETIC')
    line = refused(run, new_journal(tmp_path), "csv", _sheet(tmp_path, rows), "--map",
                   write(tmp_path, "map.toml", MAP))
    assert "row 3" in line and "quote" in line


def test_a_quote_that_closes_rows_later_is_refused(run, tmp_path):
    """A quote opened in T-B's Ticket cell that happens to close at T-C's Comment: the id cell
    runs over two lines, which no ticket id does."""
    rows = list(ROWS)
    rows[1] = '"' + rows[1]
    rows[2] = rows[2].replace("SYNTHETIC", 'SYNTHETIC"', 1)
    line = refused(run, new_journal(tmp_path), "csv", _sheet(tmp_path, rows), "--map",
                   write(tmp_path, "map.toml", MAP))
    assert "quote" in line

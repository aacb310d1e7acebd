"""Every import format says how many tickets came with an empty severity field, in one note the
import run writes whatever the format (att36b finding 3, follow-up: only Zendesk and PagerDuty
said it; ServiceNow, Jira and the csv format imported such a ticket with no severity and no word).

An empty cell is not an unmapped value: the severity map refuses a value it does not name, but a
ticket whose field holds nothing is imported with no severity (the figures' 'none' row, held to
the strictest target where judged), and the note names it. Each export here is SYNTHETIC, hand-
written in a real export's shape (its ``.source.txt``). Calendar: the UK office, window Mon 2
March 09:00 to Fri 13 March 17:30 2026, GMT (so UTC). Figures worked by hand in each docstring.
"""

from pathlib import Path

from tests.imports_common import figures_json, imported, new_journal, write
from tests.test_severity_rows import assert_rows_add_up

DATA = Path(__file__).parent / "data" / "imports"
SAID = "have no "


def said(out: dict) -> list[str]:
    return [n["note"] for n in out["findings"]["notes"] if n["ticket"] is None and SAID in n["note"]
            and "imported with no severity" in n["note"]]


def test_servicenow_empty_priority_cell(run, tmp_path):
    """INC0030001: priority 1, opened Tue 3 Mar 09:00 UTC, resolved 13:00 with a check: restored,
    severity 1. INC0030002: priority cell empty, opened Wed 4 Mar 09:00, resolved 11:00 with no
    check: closed with no monitoring check, in the 'none' row. The map names priorities 1 and 2
    only, and the empty cell is not refused as unmapped. By hand: population 2; severity 1
    restored 1; 'none' population 1, unconfirmed 1; unclassified (restored or open with no
    severity) 0. The note names INC0030002 as the one ticket with no priority."""
    j = new_journal(tmp_path)
    out = imported(run, j, "servicenow", DATA / "servicenow" / "incident_raw_empty_priority.csv", "--mode", "raw",
                   "--severity-map", "1=1,2=2", "--map", DATA / "servicenow" / "att36b_check_map.toml")
    assert len(out["imported"]) == 2
    [note] = said(out)
    assert note.startswith("1 ticket(s) have no priority (INC0030002): imported with no severity")
    assert "'none' row" in note and "strictest severity's target" in note
    i = figures_json(run, j)
    assert (i["population"], i["restored"], i["unconfirmed"], i["unclassified"]) == (2, 1, 1, 0)
    assert (i["by_severity"]["1"]["restored"], i["no_severity"]["population"], i["no_severity"]["unconfirmed"]) \
        == (1, 1, 1)
    assert_rows_add_up(i)


def test_jira_empty_priority_cell(run, tmp_path):
    """SUP-301: Highest, created Tue 3 Mar 09:00 (Europe/London, GMT), resolved 13:00 with a check:
    restored, severity 1. SUP-302: Priority cell empty, In Progress since Wed 4 Mar 10:00: open at
    the close with no severity. By hand: population 2; severity 1 restored 1; 'none' open 1, so
    the summary's unclassified 1 and its open (with a severity) 0. The note names SUP-302, under
    the export's own column name, Priority."""
    j = new_journal(tmp_path)
    m = write(tmp_path, "map.toml", '[columns]\ncheck = "Custom field (Restore check)"\n')
    out = imported(run, j, "jira", DATA / "jira" / "issues_empty_priority.csv", "--zone", "Europe/London",
                   "--severity-map", "Highest=1,High=2", "--map", m)
    assert len(out["imported"]) == 2
    [note] = said(out)
    assert note.startswith("1 ticket(s) have no Priority (SUP-302): imported with no severity")
    i = figures_json(run, j)
    assert (i["population"], i["restored"], i["open"], i["unclassified"]) == (2, 1, 0, 1)
    assert (i["by_severity"]["1"]["restored"], i["no_severity"]["open"]) == (1, 1)
    assert_rows_add_up(i)


CSV_MAP = """[times]
timezone = "Europe/London"
format = "%d/%m/%Y %H:%M"
[columns]
id = "Ticket"
detected = "Detected"
restored = "Restored"
check = "Restore check"
"""


def test_csv_empty_severity_cell(run, tmp_path):
    """T-11: Sev 1, detected Tue 3 Mar 09:00, restored 12:00 with a check (3 hours). T-12: Sev cell
    empty, detected Wed 4 Mar 09:00, restored 10:30 with a check (1.5 hours). The map's [severity]
    names only "Sev 1". By hand: severity 1 restored 1 (3 hours); 'none' restored 1 (1.5 hours),
    the summary's unclassified 1. The note names T-12 under the sheet's column name, Sev."""
    j = new_journal(tmp_path)
    m = write(tmp_path, "map.toml", CSV_MAP.replace("[columns]\n", '[columns]\nseverity = "Sev"\n')
              + '[severity]\n"Sev 1" = 1\n')
    out = imported(run, j, "csv", DATA / "tabular" / "spreadsheet_empty_severity.csv", "--map", m)
    [note] = said(out)
    assert note.startswith("1 ticket(s) have no Sev (T-12): imported with no severity")
    i = figures_json(run, j)
    assert (i["population"], i["restored"], i["unclassified"]) == (2, 1, 1)
    assert (i["by_severity"]["1"]["max_hours"], i["no_severity"]["restored"], i["no_severity"]["max_hours"]) \
        == (3, 1, 1.5)
    assert_rows_add_up(i)


def test_csv_map_with_no_severity_column_says_every_ticket(run, tmp_path):
    """The same sheet through a map that names no severity column (allowed with no severity map):
    neither ticket has a severity, so the note counts both, T-11 and T-12, and says why. By hand:
    'none' restored 2, the summary's unclassified 2, no severity row holding any."""
    j = new_journal(tmp_path)
    out = imported(run, j, "csv", DATA / "tabular" / "spreadsheet_empty_severity.csv",
                   "--map", write(tmp_path, "map.toml", CSV_MAP))
    [note] = said(out)
    assert note.startswith("2 ticket(s) have no severity (T-11, T-12), the map naming no severity column: "
                           "imported with no severity")
    i = figures_json(run, j)
    assert (i["population"], i["restored"], i["unclassified"], i["no_severity"]["restored"]) == (2, 0, 2, 2)


def test_csv_map_that_names_the_empty_cell_has_nothing_to_say(run, tmp_path):
    """A [severity] table may name the empty value itself ("" = 4): T-12 then has severity 4, a
    stated choice, not a missing one, so no note is written. By hand: severity 1 restored 1,
    severity 4 restored 1, 'none' empty."""
    j = new_journal(tmp_path)
    m = write(tmp_path, "map.toml", CSV_MAP.replace("[columns]\n", '[columns]\nseverity = "Sev"\n')
              + '[severity]\n"Sev 1" = 1\n"" = 4\n')
    out = imported(run, j, "csv", DATA / "tabular" / "spreadsheet_empty_severity.csv", "--map", m)
    assert said(out) == []
    i = figures_json(run, j)
    assert (i["by_severity"]["1"]["restored"], i["by_severity"]["4"]["restored"], i["unclassified"]) == (1, 1, 0)


def test_zendesk_null_priority_is_said_once(run, tmp_path):
    """att36b's List Tickets answer with its ticket_metrics: 201 has "priority": null, solved at
    12:00 (metrics solved_at) with no check; 202 high, open; 203 urgent, solved 11:00. The note,
    now written by the import run rather than the reader, appears once and names 201. By hand:
    'none' population 1, unconfirmed 1; severity 2 open 1; severity 1 unconfirmed 1."""
    zd = DATA / "zendesk"
    j = new_journal(tmp_path)
    out = imported(run, j, "zendesk", zd / "att36b_tickets-list.json", zd / "att36b_ticket_metrics.json",
                   "--severity-map", "urgent=1,high=2,normal=3,low=4")
    [note] = said(out)
    assert note.startswith("1 ticket(s) have no priority (201): imported with no severity") and "urgency" not in note
    i = figures_json(run, j)
    assert (i["no_severity"]["population"], i["no_severity"]["unconfirmed"]) == (1, 1)
    assert (i["by_severity"]["2"]["open"], i["by_severity"]["1"]["unconfirmed"]) == (1, 1)
    assert_rows_add_up(i)


def test_pagerduty_log_entries_alone_count_every_incident(run, tmp_path):
    """With no incidents export there is no priority to read: the two incidents of log_entries.json
    (Q1AAAAAAAAAAA1, triggered 2 May 2024; Q1AAAAAAAAAA90, 30 April 2024) both enter with no
    severity. Before, the reader said so in words but counted none; now the run's note counts
    both, and names no urgency (none was read)."""
    j = new_journal(tmp_path)
    out = imported(run, j, "pagerduty", DATA / "pagerduty" / "log_entries.json", "--severity-map", "P1=1")
    [note] = said(out)
    assert note.startswith("2 ticket(s) have no priority (Q1AAAAAAAAAAA1, Q1AAAAAAAAAA90): imported with no "
                           "severity") and "urgency" not in note
    assert any("no incidents export was given" in n["note"] for n in out["findings"]["notes"])

"""Exports written in their user's language (issue 36): a Jira CSV in Spanish (translated headers,
Spanish month abbreviations), and the month abbreviations of the languages Jira exports in.

``tests/data/imports/tabular/jira_cloud_export_es.csv`` is hand-written in the exact shape of a
real Spanish Jira Service Management export (its ``.source.txt`` names the source). Every figure
is worked by hand in its test's docstring.
"""

import datetime as dt
import shutil
from pathlib import Path

import pytest

from tests.imports_common import imported, new_journal, write
from tests.test_imports_tabular import DATA, events, journal


def test_jira_csv_in_spanish(run, tmp_path):
    """A Spanish Jira Service Management export (jira_cloud_export_es.csv: every header translated,
    months in Spanish and lower case, AM/PM in English) reads as an English one.

    By hand, in Europe/Madrid: MSA-8 created 02/ene/24 8:05 AM (2 January, CET +01:00), resolved
    03/ene/24 4:29 PM (16:29 +01:00); MSA-7 created 18/jul/24 9:10 AM (CEST +02:00); MSA-9
    created 01/dic/24 12:00 PM (+01:00). MSA-7's comment, dated 18/jul/24 10:52 AM, is read with
    its time."""
    export = Path(shutil.copy(DATA / "jira_cloud_export_es.csv", tmp_path))
    j = journal(tmp_path, "j.jsonl")
    out = imported(run, j, "jira", export, "--zone", "Europe/Madrid", "--severity-map", "High=2,Medium=3,Low=4")
    assert sorted(out["imported"]) == ["MSA-7", "MSA-8", "MSA-9"] and not out["unreadable"]
    assert out["exports"][0]["read_as"]["headers"] == "Spanish"
    got = events(j, ["jira:MSA-7", "jira:MSA-8", "jira:MSA-9"])
    assert [(k, at) for k, at, _ in got["jira:MSA-8"]] == [("incident.detected", "2024-01-02T08:05:00+01:00"),
                                                           ("incident.ticket-closed", "2024-01-03T16:29:00+01:00")]
    assert got["jira:MSA-7"][0][:2] == ("incident.detected", "2024-07-18T09:10:00+02:00")
    assert got["jira:MSA-9"][0][:2] == ("incident.detected", "2024-12-01T12:00:00+01:00")
    # Categoría de estado "Listo" is Jira's Done category in Spanish (states.yaml): MSA-7, Completado
    # with no Resolución and no Resuelta, entered it at 18/jul/24 10:53 AM: over, with no
    # resolution, then; MSA-9 "En curso" stays open.
    assert [(k, at, d["resolved"]) for k, at, d in got["jira:MSA-7"] if k == "incident.ticket-closed"] == \
        [("incident.ticket-closed", "2024-07-18T10:53:00+02:00", False)]
    assert [k for k, _, _ in got["jira:MSA-9"]] == ["incident.detected"]
    from day60.imports import jira, records
    from day60.imports.books import Books
    from day60.imports.tabular import FileOptions

    settings = records.Settings(records.zone("Europe/Madrid", "--zone"), severity={"Medium": "3"},
                                files=FileOptions())
    ticket = next(t for t in jira.read([export], settings, [], Books([export])) if t.ref == "MSA-7")
    assert ticket.note_stream[0][0] == dt.datetime(2024, 7, 18, 10, 52, tzinfo=records.zone("Europe/Madrid", "z"))


MONTH_FORMS = {  # (language, the forms Java writes: its CLDR data and its older JRE data)
    "en": "Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec",
    "en-GB": "Jan Feb Mar Apr May Jun Jul Aug Sept Oct Nov Dec",
    "es": "ene feb mar abr may jun jul ago sept oct nov dic",
    "es (JRE)": "ene feb mar abr may jun jul ago sep oct nov dic",
    "fr": "janv. févr. mars avr. mai juin juil. août sept. oct. nov. déc.",
    "de": "Jan. Feb. März Apr. Mai Juni Juli Aug. Sept. Okt. Nov. Dez.",
    "de (JRE)": "Jan Feb Mär Apr Mai Jun Jul Aug Sep Okt Nov Dez",
    "de-AT": "Jän. Feb. März Apr. Mai Juni Juli Aug. Sep. Okt. Nov. Dez.",
    "pt": "jan. fev. mar. abr. mai. jun. jul. ago. set. out. nov. dez.",
    "pt (JRE)": "jan fev mar abr mai jun jul ago set out nov dez",
    "it": "gen feb mar apr mag giu lug ago set ott nov dic",
    "nl": "jan. feb. mrt. apr. mei jun. jul. aug. sep. okt. nov. dec.",
    "nl (JRE)": "jan feb mrt apr mei jun jul aug sep okt nov dec",
}


@pytest.mark.parametrize("language", list(MONTH_FORMS))
def test_month_abbreviations_of_each_language_are_read(language):
    """Each month's abbreviation, in the language's forms, read in Jira's format to that month:
    ``18/<month>/26 9:10 AM`` in Europe/London is 18 <month> 2026 09:10 local."""
    from day60.imports import locales, records

    times = locales.LocalisedTimes(records.Settings(records.zone("Europe/London", "z"), "%d/%b/%y %I:%M %p"))
    for month, name in enumerate(MONTH_FORMS[language].split(), start=1):
        got = times.read(f"18/{name}/26 9:10 AM", "Created")
        assert (got.year, got.month, got.day, got.hour, got.minute) == (2026, month, 18, 9, 10), name


def test_no_abbreviation_names_two_months():
    """Reading a month needs no statement of the language only because no abbreviation in the
    table names two months: every name appears under one month, once."""
    from day60.imports.locales import MONTHS

    names = [n for forms in MONTHS.values() for n in forms]
    assert len(names) == len(set(names))
    for forms in MONTH_FORMS.values():
        for month, name in enumerate(forms.split(), start=1):
            assert name.rstrip(".").casefold() in MONTHS[month], name


def test_a_month_in_another_language_is_unreadable_in_its_own_words(run, tmp_path):
    """A Polish month (``lip``, July) is in no language of the table: the row is unreadable,
    naming the export's own text, never a guessed month."""
    from day60.imports import locales, records

    times = locales.LocalisedTimes(records.Settings(records.zone("Europe/London", "z"), "%d/%b/%y %I:%M %p"))
    with pytest.raises(records.RowProblem, match="'18/lip/26 9:10 AM' does not match"):
        times.read("18/lip/26 9:10 AM", "Created")




def test_thousands_separators_read_per_the_files_locale(run, tmp_path):
    """The sheet's own hours written with thousands separators, as the locale writes them.

    - A German Excel CSV (';' between cells, so the decimal separator is the comma): DE-1's
      "1.234,5" hours is 1234.5 h; DE-2's "1.234" is 1234 h (the point groups thousands there).
    - An English CSV (','): EN-1's "1,234.5" is 1234.5 h; EN-2's "1,234" is 1234 h.
    - A tab-separated file says nothing of its locale: TAB-1's "1,234" could be 1234 or 1.234 h,
      so that row is unreadable, naming the column; TAB-2's "1.234,5" (both separators) reads
      1234.5 h whatever the locale.
    The vendor's hours land on each ticket's restore as vendor_wall_ms (hours x 3,600,000)."""
    from tests.imports_common import events_of

    cmap = ('[times]\ntimezone = "Europe/London"\nformat = "%d.%m.%Y %H:%M"\n[columns]\nid = "Ticket"\n'
            'opened = "Opened"\nrestored = "Restored"\ncheck = "Check"\nvendor_hours = "Vendor hours"\n')
    head = ["Ticket", "Opened", "Restored", "Check", "Vendor hours"]

    def sheet(name: str, delim: str, rows: list[list[str]]) -> Path:
        path = tmp_path / name
        path.write_bytes("\r\n".join(delim.join(r) for r in [head, *rows]).encode("utf-8") + b"\r\n")
        return path

    def hours(j: Path, ident: str) -> float:
        done = [d for k, _, d in events_of(j, f"csv:{ident}") if k == "incident.restored"]
        return done[0]["vendor_wall_ms"] / 3_600_000

    when = ["02.03.2026 09:00", "02.03.2026 10:00", "SYNTHETIC monitor"]
    m = write(tmp_path, "map.toml", cmap)
    j = new_journal(tmp_path, "de.jsonl")
    imported(run, j, "csv", sheet("de.csv", ";", [["DE-1", *when, '"1.234,5"'], ["DE-2", *when, "1.234"]]),
             "--map", m)
    assert (hours(j, "DE-1"), hours(j, "DE-2")) == (1234.5, 1234.0)
    j = new_journal(tmp_path, "en.jsonl")
    imported(run, j, "csv", sheet("en.csv", ",", [["EN-1", *when, '"1,234.5"'], ["EN-2", *when, '"1,234"']]),
             "--map", m)
    assert (hours(j, "EN-1"), hours(j, "EN-2")) == (1234.5, 1234.0)
    j = new_journal(tmp_path, "tab.jsonl")
    out = imported(run, j, "csv", sheet("tab.txt", "\t", [["TAB-1", *when, "1,234"], ["TAB-2", *when, "1.234,5"]]),
                   "--map", m)
    assert [u["ref"] for u in out["unreadable"]] == ["TAB-1"]
    assert "Vendor hours: '1,234' could be read" in out["unreadable"][0]["reason"]
    assert hours(j, "TAB-2") == 1234.5

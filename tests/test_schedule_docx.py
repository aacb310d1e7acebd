"""The Word schedule a lawyer would send (issue 35, point 3): its styles, numbering, tables, header
and footer, document properties, paper and spelling language, read back with python-docx.

Each test exports the shipped SYNTHETIC deal (a GB calendar) or the same deal on a US calendar
through the CLI, as a lawyer would, and reads the .docx it wrote. LibreOffice is not needed: how
the pages look was checked by hand (docs/clauses.md says how)."""

import pytest

from day60.resources import data_dir

SOW = data_dir("clauses") / "examples" / "synthetic-sow.toml"


@pytest.mark.parametrize("holidays, language", [("GB", "en-GB"), ("US", "en-US"), ("IE", "en-IE"), ("AU", "en-AU"),
                                                ("MX", "en-US"), ("DE", "en-GB"), (None, "en-GB")])
def test_the_spelling_language_comes_from_the_calendars_country(holidays, language):
    """The English Word checks the schedule in: the calendar country's own English where Word
    knows one (GB en-GB, US en-US, IE en-IE, AU en-AU), American English in the other Letter
    countries (MX), British English elsewhere (DE) and for a deal with no calendar yet."""
    from day60 import clauses

    deal = clauses.load_deal(SOW, clauses.load_library())
    calendar = None if holidays is None else {**deal.calendar, "holidays": {"country": holidays}}
    assert clauses.language_tag(deal.model_copy(update={"calendar": calendar})) == language

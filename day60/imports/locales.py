"""An export written in its user's language: month abbreviations in dates, and Jira's headers.

Month abbreviations. Jira writes CSV times as ``dd/MMM/yy h:mm a`` in the exporting user's
locale (Spanish ``18/jul/26 9:10 AM``), and a spreadsheet may too. Where the date format reads a
month by name (``%b``), the abbreviations of English, Spanish, French, German, Portuguese,
Italian and Dutch are read, in either of the forms Java writes them (its CLDR data, e.g. French
``févr.``, German ``März``; and its older JRE data, e.g. German ``Mär``), in any case, with or
without their dot. No abbreviation names two different months across these languages (``mar`` is
March in each language that writes it, ``mai`` May; ``tests/test_imports_tabular.py`` checks the
whole table), so reading one needs no statement of the language and guesses nothing. An
abbreviation outside the table (another language) is not read: the row is unreadable, naming
the text. AM and PM are read in English only, as Jira writes them in every language seen.

Jira's headers. Jira writes its CSV headers in the exporting user's language. The columns the
import reads are translated back to Jira's English names where the export's language is one
whose Jira names were seen in real exports (``HEADERS``: Spanish and German), recognised by the
name of the issue key column; other columns, and other languages, are left as written (a header
that names no column the import knows is refused, listing the English names it needs).
"""

from __future__ import annotations

import datetime as dt
import re

from day60.imports.records import RowProblem, Settings, Times

MONTHS: dict[int, tuple[str, ...]] = {
    1: ("jan", "ene", "janv", "jän", "gen"),
    2: ("feb", "févr", "fev"),
    3: ("mar", "mars", "märz", "mär", "mrt"),
    4: ("apr", "abr", "avr"),
    5: ("may", "mai", "mag", "mei"),
    6: ("jun", "juin", "juni", "giu"),
    7: ("jul", "juil", "juli", "lug"),
    8: ("aug", "ago", "août"),
    9: ("sep", "sept", "set"),
    10: ("oct", "okt", "out", "ott"),
    11: ("nov",),
    12: ("dec", "dic", "dez", "déc"),
}
LANGUAGES = ("en", "es", "fr", "de", "pt", "it", "nl")
_ENGLISH = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
_NAME = {name: _ENGLISH[month - 1] for month, names in MONTHS.items() for name in names}
_WORD = re.compile(r"[^\W\d_]+(\.?)")

# Jira's CSV column names in the languages seen in real exports, to Jira's English names.
# es: github.com/diegodev23-os/it-helpdesk-simulation Jira.csv @ bc54b0f (research36 SHAPES.md 2a);
# de: a Jira Cloud CSV header in a public repository's sample (search-index id 17795528834).
HEADERS: dict[str, dict[str, str]] = {
    "es": {"Clave de incidencia": "Issue key", "ID de la incidencia": "Issue id", "Tipo de Incidencia": "Issue Type",
           "Resumen": "Summary", "Estado": "Status", "Prioridad": "Priority", "Resolución": "Resolution",
           "Creada": "Created", "Actualizada": "Updated", "Resuelta": "Resolved", "Comentario": "Comment",
           "Categoría de estado": "Status Category", "Categoría de estado cambiada": "Status Category Changed"},
    "de": {"Vorgangsschlüssel": "Issue key", "Vorgangs-ID": "Issue id", "Vorgangstyp": "Issue Type",
           "Zusammenfassung": "Summary", "Status": "Status", "Priorität": "Priority", "Lösung": "Resolution",
           "Erstellt": "Created", "Aktualisiert": "Updated", "Erledigt": "Resolved",
           "Statuskategorie": "Status Category"},
}
CUSTOM_FIELD = {"es": "Campo personalizado (", "de": "Benutzerdefinierte Felder ("}
LANGUAGE_NAMES = {"es": "Spanish", "de": "German"}


def english_months(text: str, fmt: str) -> str:
    """``text`` with each month abbreviation of ``MONTHS`` as English's (its dot dropped unless
    the format writes one after the month); every other word as written."""
    keep_dot = "%b." in fmt

    def swap(m: re.Match[str]) -> str:
        word = m.group(0)[: len(m.group(0)) - len(m.group(1))]
        english = _NAME.get(word.casefold())
        if english is None:
            return m.group(0)
        return english + (m.group(1) if keep_dot else "")

    return _WORD.sub(swap, text)


class LocalisedTimes(Times):
    """``records.Times`` that reads month abbreviations in any language of ``MONTHS`` where the
    date format reads a month by name (``%b``)."""

    def __init__(self, settings: Settings, utc: bool = False, how: str = "") -> None:
        super().__init__(settings, utc, how)
        self.by_name = bool(self.fmt) and "%b" in (self.fmt or "")

    def read(self, text: str | None, column: str) -> dt.datetime | None:
        if not self.by_name or not isinstance(text, str):
            return super().read(text, column)
        english = english_months(text, self.fmt or "")
        try:
            return super().read(english, column)
        except RowProblem as exc:  # said with the export's own words, not the translation
            raise RowProblem(str(exc).replace(repr(english.strip()), repr(text.strip()))) from None


def jira_header(header: list[str]) -> tuple[list[str], str | None]:
    """A Jira CSV header in Jira's English names, and the language it was written in, where it is
    one of ``HEADERS`` (told by its issue key column); else the header as written."""
    languages = [lang for lang, names in HEADERS.items() if next(iter(names)) in header]
    if len(languages) != 1 or "Issue key" in header:
        return header, None
    lang = languages[0]
    names, prefix = HEADERS[lang], CUSTOM_FIELD[lang]
    out = [names.get(h, "Custom field (" + h[len(prefix):] if h.startswith(prefix) else h) for h in header]
    return out, LANGUAGE_NAMES[lang]


# ----- numbers written as their user's locale writes them -----------------------------------
# A spreadsheet or a display-value export writes a duration or a count as its user sees it:
# 5,510,746 (ServiceNow's calendar_stc, seen in a real export) or 1,234.5 in an English locale,
# 1.234,5 in a German one, 1 234,5 in a French one. Which separator is the decimal one follows
# from the file: Excel writes ';' between cells exactly where the locale's decimal separator is
# the comma (the comma being taken), and ',' where it is the point. A figure whose reading the
# file does not settle (1,234 in a tab-separated file: a thousand and more, or one and a bit) is
# refused, naming the field, never guessed.

_GROUPS = {",": re.compile(r"[0-9]{1,3}(,[0-9]{3})+(\.[0-9]+)?"),
           ".": re.compile(r"[0-9]{1,3}(\.[0-9]{3})+(,[0-9]+)?"),
           " ": re.compile(r"[0-9]{1,3}( [0-9]{3})+(,[0-9]+)?")}
_PLAIN = re.compile(r"[0-9]+(\.[0-9]+)?")
_COMMA_DECIMAL = re.compile(r"[0-9]+,[0-9]+")
_SPACES = str.maketrans({"\u00a0": " ", "\u202f": " ", "'": " "})


def decimal_of(delimiter: str | None) -> str | None:
    """The decimal separator a file's cell delimiter implies: ';' the comma, ',' the point; else
    not known."""
    return {";": ",", ",": "."}.get(delimiter or "")


def figure(text: str | None, column: str, decimal: str | None) -> str | None:
    """``text`` as a plain number (``1234.5``) for ``records.number``: thousands separators taken
    out and the decimal separator made a point, as ``decimal`` (the file's, ``decimal_of``) reads
    it; a figure it does not settle is refused naming ``column``."""
    raw = (text or "").strip().translate(_SPACES)
    if not raw or (_PLAIN.fullmatch(raw) and not (decimal == "," and "." in raw and len(raw.split(".")[1]) == 3)):
        return raw or None
    ambiguous = re.fullmatch(r"[0-9]{1,3}[.,][0-9]{3}", raw)
    if ambiguous and decimal is None:
        raise RowProblem(f"{column}: {raw!r} could be read with its separator for thousands or for decimals, and "
                         "the file does not say which its locale uses; export it without thousands separators (or "
                         "as CSV with the locale's own delimiter)")
    if decimal == "," and _COMMA_DECIMAL.fullmatch(raw):
        return raw.replace(",", ".")
    for sep, pattern in _GROUPS.items():
        if pattern.fullmatch(raw):
            point = "," if sep in ". " else "."
            if decimal is not None and point != decimal and (point in raw or ambiguous):
                continue  # read the other way, below
            return raw.replace(sep, "").replace(",", ".")
    if decimal == "." and re.fullmatch(r"[0-9]{1,3}\.[0-9]{3}", raw):
        return raw
    raise RowProblem(f"{column}: {raw[:20]!r} is not a number as this file's locale writes one"
                     + (f" (decimal separator {decimal!r})" if decimal else ""))

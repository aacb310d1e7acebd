"""The clause library read as a lawyer reads a schedule (issue 40, point 8): every defined term is
used as defined and capitalised, no capitalised term is used that nothing defines, and every
reference resolves to something the schedule holds.

The schedule checked is the shipped SYNTHETIC deal's, which carries every clause and every
commercial module, and, for the references, a narrow deal and one whose Agreement names the
parties otherwise. The text checked is the library's: each paragraph with the deal's values set
aside (a deal's own names are the parties' business), the definitions, the clauses' definition
tables, the material's descriptions, the Service Level Table's sources and the parameter
descriptions, and the Monthly Report annex (the rubric's elements in the library's own words,
then those the schedule's clauses and modules require; a deal's own additions are its business)."""

import functools
import re

import pytest

from day60 import clauses
from day60.resources import data_dir

SOW = data_dir("clauses") / "examples" / "synthetic-sow.toml"
LIB = clauses.load_library()
RUBRIC_IDS = {"drift_detection_business_hours"}

# Capitalised words that are not defined terms: proper names, units, formats and the tiers.
PROPER = {"AI", "Day-60", "SHA-256", "CSV", "JSON", "Lines", "T1", "T2", "T3", "T4", "T5"}
# Terms of art that hold a defined word in its ordinary sense, each on purpose: "expert
# determination" is the legal name of a way of deciding a dispute (not an arbitration), which the
# measurement disputes clause chooses.
ORDINARY = ("expert determination",)


def _schedule(path=SOW, **kw):
    return clauses.schedule(LIB, clauses.load_deal(path, LIB, RUBRIC_IDS), **kw)


def _skeleton(marked: str) -> str:
    """A marked paragraph with the deal's values replaced by a neutral word (cross-references kept),
    and the rubric's own names for its tiers ("Announced injection") set aside with them."""
    text = "".join("VALUE" if kind == "value" else words for kind, _, words in clauses.ref_parts(marked))
    for name in _tier_names():
        text = text.replace(f"({name})", "(VALUE)")
    return text


@functools.cache
def _tier_names() -> tuple[str, ...]:
    """The published rubric's tier names, read once (the rubric is loaded and checked afresh on each
    ``rubric.load()``, and the corpus asks for them once a paragraph)."""
    from day60 import rubric

    return tuple(tier.name for tier in rubric.load().tiers.values())


def corpus(s) -> list[tuple[str, str]]:
    """(where, text) for every piece of library text in the schedule ``s``."""
    out = [("precedence", s["precedence"]), ("catch-all", s["catch_all"])]
    out += [(f"definition of {t}", m) for t, m in s["definitions"].items()]
    out += [(f"material {d['term']}", d["what"]) for d in s["documents"]]
    for c in (*s["clauses"], *s["modules"]):
        out += [(f"clause {q['number'] or c['number']}", _skeleton(q["marked"])) for q in c["paragraphs"]]
        out += [(f"clause {c['number']} {k}", v) for k, v in c.get("definitions", {}).items()]
    out += [(f"Service Level Table, {r['check']}", r["source"]) for r in s["service_levels"]]
    out += [(f"parameter {p['id']}", p["description"]) for p in s["parameters"]]
    out += [(f"calendar {label}", value) for label, value in s["calendar"]]
    out += [(f"annex element {e['id']}", e["what"]) for e in s["report_elements"] if e["source"] != "this schedule"]
    return out


def terms(s) -> list[str]:
    return [*s["definitions"], *(d["term"] for d in s["documents"]), *s["agreement_terms"]]


@pytest.fixture(scope="module")
def full():
    return _schedule()


def test_every_defined_term_is_capitalised_wherever_it_is_used(full):
    """A defined term is the defined term only when capitalised: "the labelled set", "the policy
    pack", "the retainer schedule" or "the window" in lower case would be ordinary words a court
    could read another way. Each term (and its plural) appears nowhere in lower case."""
    wrong = []
    texts = corpus(full)  # made once: every term is looked for in the same texts
    for term in terms(full):
        pattern = re.compile(rf"(?<![\w-]){_plural(term)}(?![\w-])", re.IGNORECASE)
        for where, text in texts:
            if where == f"definition of {term}":  # a definition may say what kind of thing its term is
                continue
            for m in pattern.finditer(text):
                if any(t[0].isupper() and not w[0].isupper() for t, w in zip(term.split(), m.group().split(),
                                                                               strict=False)) \
                        and not any(text[m.start():].startswith(o) for o in ORDINARY):
                    wrong.append(f"{where}: {m.group()!r} for {term!r}")
    assert not wrong, "\n".join(wrong)


def _plural(term: str) -> str:
    """A term and its plurals as a pattern: Item(s), Severity and Severities."""
    if re.search(r"[^aeiou]y$", term):
        return rf"{re.escape(term[:-1])}(?:y|ies)"
    return rf"{re.escape(term)}(?:s|es)?"


def _sentence_starts(text: str) -> set[int]:
    starts = {0}
    for m in re.finditer(r"(?:[.:;?!]|\(\w{1,3}\))\s+", text):
        starts.add(m.end())
    return starts


def test_no_capitalised_term_is_used_that_nothing_defines(full):
    """Inside a sentence, a capitalised word is a defined term (or one the schedule takes from the
    Agreement, which it lists), a proper name or unit; anything else reads as a term of art that
    exists nowhere ("the Service Level miss", "the Hypercare", "Smoke Tests")."""
    defined = sorted(terms(full), key=len, reverse=True)
    masks = [re.compile(rf"(?<![\w-]){_plural(t)}('s)?(?![\w-])") for t in defined]
    stray = []
    for where, text in corpus(full):
        if where.startswith("calendar"):  # the deal's own time zone and holiday codes
            text = re.sub(r"\b[A-Z][A-Za-z_]*/[A-Za-z_/]+|\b[A-Z]{2,3}\b", "VALUE", text)
        starts = _sentence_starts(text)
        blanked = text
        for mask in masks:
            blanked = mask.sub(lambda m: " " * len(m.group()), blanked)
        for m in re.finditer(r"(?<![\w-])[A-Z][\w-]*", blanked):
            word = m.group()
            if m.start() in starts or word in PROPER or word == "VALUE":
                continue
            stray.append(f"{where}: {word!r} in ...{text[max(0, m.start() - 40):m.end() + 20]}...")
    assert not stray, "\n".join(stray)


def test_the_word_window_never_stands_alone(full):
    """"Window" meant three things (the measurement period, the exercise's period, an agreed change
    window): each is now its own term, Measurement Period, Exercise Window and Change Window."""
    bare = [f"{where}: {text[max(0, m.start() - 30):m.end() + 10]!r}" for where, text in corpus(full)
            for m in re.finditer(r"\bwindows?\b", text, re.IGNORECASE)
            if not text[:m.start()].endswith(("Exercise ", "Change "))]
    assert not bare, "\n".join(bare)


def test_the_schedule_cites_no_deal_file_and_nothing_it_does_not_hold(full):
    """The deal file is how the toolkit is fed, not part of the contract: no clause says "named in
    the deal" or "this deal". Every "clause N" or "clause N.M" names a clause or paragraph the
    schedule has; every annex it mentions is in it."""
    numbers = {str(c["number"]) for c in (*full["clauses"], *full["modules"])}
    numbers |= {q["number"] for c in (*full["clauses"], *full["modules"]) for q in c["paragraphs"] if q["number"]}
    broken = []
    for where, text in corpus(full):
        if re.search(r"\bdeal\b", text, re.IGNORECASE):
            broken.append(f"{where}: mentions the deal: {text[:80]}")
        for m in re.finditer(r"\bclause (\d+(?:\.\d+)?)", text):
            if m.group(1) not in numbers:
                broken.append(f"{where}: clause {m.group(1)} does not exist")
        if "annex of Monthly Report elements" in text and not full["report_elements"]:
            broken.append(f"{where}: cites the report annex, which is not there")
        if "public holidays annex" in text and not full["holidays"]:
            broken.append(f"{where}: cites the holidays annex, which is not there")
    assert not broken, "\n".join(broken)


def test_material_a_clause_relies_on_is_listed_against_it(full):
    """Each incorporated document a clause's wording names (the Labelled Set, the Policy Pack, the
    Rejection Rules, the Day-60 Rubric ...) is in the Incorporated material table with that clause
    among its clauses, so the reference resolves to a named version."""
    listed = {d["term"]: set(d["clauses"]) for d in full["documents"]}
    missing = []
    for c in (*full["clauses"], *full["modules"]):
        for q in c["paragraphs"]:
            for term in listed:
                if term in q["text"] and c["number"] not in listed[term]:
                    missing.append(f"clause {c['number']} names {term} but the table does not list it there")
    assert not missing, "\n".join(missing)
    assert "Day-60 Rubric" in listed and listed["Day-60 Rubric"] == {20}
    assert {"Rejection Rules", "Volume Forecast"} <= set(listed)


def test_every_definition_is_used_and_every_used_term_defined(full):
    """No definition stands unused (each term appears in some other text of the schedule), and a
    narrow deal, holding no Day-60 clause and no module, carries none of their terms."""
    text = " ".join(t for _, t in corpus(full))
    for term in full["definitions"]:
        others = text.replace(full["definitions"][term], "")
        assert re.search(rf"(?<![\w-]){re.escape(term)}", others), f"{term} is defined but not used"


NARROW = """
[deal]
provider = "Provider Ltd"
partner = "Partner plc"
agreement = "Services agreement 2027-01"
schedule = "Schedule 9"
effective_date = 2027-01-01
currency = "EUR"

[calendar]
timezone = "Europe/Dublin"
holidays = { country = "IE" }
hours = "24x7"

[clauses]
include = ["containment", "restore", "report-completeness"]

[documents]
outcome_definitions = "Annex 1"
retainer_schedule = "Schedule 2"

[parameters]
containment_floor_percent = 60
restore_sev1_hours = 4
restore_sev2_hours = 8
restore_sev3_business_hours = 24
restore_sev4_business_hours = 40
"""


def test_a_narrow_deal_defines_only_what_it_uses(tmp_path):
    """Containment, restore and the report clause with no commercial module: no Service Credit,
    Critical Failure, Exercise Window or Auditor is defined or said, nothing cites a clause the deal
    left out, and the paragraph a module or the Day-60 clause would have filled is gone, not left
    half-said."""
    path = tmp_path / "narrow.toml"
    path.write_text(NARROW)
    s = _schedule(path)
    assert [m["id"] for m in s["modules"]] == ["service-levels"]
    assert [c["number"] for c in (*s["clauses"], *s["modules"])] == [1, 2, 3, 4]
    for term in ("Service Credit", "Critical Failure", "Exercise Window", "Auditor", "Go-Live Date", "Expert",
                 "Day-60 Exercise", "Labelled Set"):
        assert term not in s["definitions"], term
    words = " ".join(t for _, t in corpus(s))
    for term in ("Service Credit", "Critical Failure", "Exercise", "Credit Weight", "Relief"):
        assert term not in words, term
    numbers = {str(c["number"]) for c in (*s["clauses"], *s["modules"])}
    numbers |= {q["number"] for c in (*s["clauses"], *s["modules"]) for q in c["paragraphs"] if q["number"]}
    assert all(n in numbers for n in re.findall(r"\bclause (\d+(?:\.\d+)?)", words))
    assert [q["id"] for q in s["modules"][0]["paragraphs"]] == [
        "service-levels.table", "service-levels.judging", "service-levels.volume", "service-levels.deemed"]


def test_the_parties_take_the_names_the_agreement_gives_them(tmp_path):
    """An Agreement that calls the parties "Supplier" and "Customer": the schedule uses those names
    throughout (no second pair of party names to collide with the Agreement's own), defines them by
    reference to the head of the schedule, and a name that is already one of its terms is refused."""
    path = tmp_path / "named.toml"
    path.write_text(SOW.read_text().replace("synthetic = true", 'synthetic = true\nprovider_term = "Supplier"\n'
                                                                'partner_term = "Customer"'))
    s = _schedule(path)
    words = " ".join(t for _, t in corpus(s))
    assert not re.search(r"\b(Provider|Partner)\b", words)
    assert "Supplier" in s["definitions"] and "Customer" in s["definitions"]
    assert "the Customer's downstream applications" in s["clauses"][1]["text"]
    assert [p["term"] for p in s["parties"]] == ["Supplier", "Customer"]
    path.write_text(SOW.read_text().replace("synthetic = true", 'synthetic = true\nprovider_term = "System"'))
    with pytest.raises(clauses.InputError, match="already a defined term"):
        clauses.load_deal(path, LIB, RUBRIC_IDS)


def test_every_reference_in_the_library_resolves(tmp_path):
    """The library refuses to load a template that cites a clause, module or paragraph that does
    not exist, or fills a parameter no clause defines: a reference that resolves to nothing never
    reaches a schedule."""
    import shutil

    folder = tmp_path / "clauses"
    shutil.copytree(data_dir("clauses"), folder)
    relief = folder / "modules" / "relief.yaml"
    good, bad = "ref('measurement-disputes.expert')", "ref('measurement-disputes.arbiter')"
    relief.write_text(relief.read_text().replace(good, bad))
    with pytest.raises(clauses.InputError, match=r"measurement-disputes\.arbiter"):
        clauses.load_library(folder)
    relief.write_text(relief.read_text().replace(bad, good).replace("p.volume_tolerance_percent", "p.volume_tolerance"))
    with pytest.raises(clauses.InputError, match=r"p\.volume_tolerance"):
        clauses.load_library(folder)


def _paragraph(s, pid: str) -> str:
    return next(clauses.plain(q["marked"]) for c in (*s["clauses"], *s["modules"]) for q in c["paragraphs"]
                if q["id"] == pid)


def test_the_monthly_report_annex_holds_what_the_schedule_requires_the_report_to_contain(tmp_path):
    """Issue 40, findings 19 and 21: the annex listed only the charter's ten elements, so the
    completeness Service Level did not reach the Service Credits with their working (22.6), the
    Deemed Severity 2 Incidents (21.4), the relieved Items (24.2), the false containment reporting
    (clause 8) or the other Service Levels' figures. Each is now an element, citing the clause that
    requires it. The charter's elements read in defined terms ("Labelled Set", "Severity", "Sample
    Size", "Partner"), and with the Agreement's names for the parties the annex uses them too."""
    s = _schedule()
    annex = {e["id"]: e for e in s["report_elements"]}
    for element, clause in (("service-credits", "clause 22"), ("deemed-incidents", "clause 21"),
                            ("relieved-items", "clause 24"), ("false-containment", "clause 8"),
                            ("service-level-figures", "clause 21"), ("critical-failures", "clause 23")):
        assert annex[element]["source"] == clause, element
    words = " ".join(e["what"] for e in s["report_elements"])
    for wrong in ("waiting on the partner", "For each severity", "frozen labelled set", "both sample sizes",
                  "item count"):
        assert wrong not in words
    assert "Labelled Set" in annex["drift-both-samples"]["what"]
    path = tmp_path / "named.toml"
    path.write_text(SOW.read_text().replace("synthetic = true", 'synthetic = true\nprovider_term = "Supplier"\n'
                                                                'partner_term = "Customer"'))
    named = " ".join(e["what"] for e in _schedule(path)["report_elements"])
    assert "only the Customer can supply" in named and "Partner" not in named


def test_the_schedule_says_what_a_lawyer_and_the_suppliers_lawyer_asked_it_to():
    """Findings 14, 16, 17, 18, 20, 22 and 23, each one sentence of the shipped schedule:
    one Critical Failure per Service Level per period (23.1); the measurer must reach the Minimum
    Volume, a Provider short of it by choice misses (21.3); the Retainer Schedule cannot reclass
    or exclude its way out of this schedule's figures (precedence) and a Deemed Severity 2 Incident
    is one whatever the Retainer Schedule says (21.4); the Expert's remit covers the relief and
    Rectification Plan questions 23.3 and 24.3 send it (25.3); a score that does not demonstrate
    its tier has a consequence (20.8); the audit clause uses the Auditor's independence of 20.4
    (26.5); 20.1 allows the re-run of 20.8; the System is available "at every hour of every day";
    a later year's holidays have a fallback; a Critical Failure resting on a Provisional Figure
    cannot ground termination until settled (25.4); the Partner answers a relief claim in time
    (24.3); a period with nothing to measure is not missed (21.2); an Incident an injection causes
    is an Exercise Event."""
    s = _schedule()
    assert "no more than one Critical Failure in a Measurement Period" in _paragraph(s, "critical-failures.what")
    volume = _paragraph(s, "service-levels.volume")
    assert "shall measure it over every unit" in volume and "the Service Level is missed in that period" in volume
    assert "moves no figure of this schedule" in s["precedence"]
    assert "only where the definitions table of the clause concerned leaves it out" in s["precedence"]
    assert "however the Retainer Schedule would class it" in _paragraph(s, "service-levels.deemed")
    expert = _paragraph(s, "measurement-disputes.expert")
    assert "whether a claimed Relief Event excuses a miss" in expert and "Rectification Plan" in expert
    assert "is not a score at that tier" in _paragraph(s, "day60-exercise.score")
    assert "conditions of independence in clause 20.4" in _paragraph(s, "audit-records.audit")
    assert "and again as clause 20.8 allows" in _paragraph(s, "day60-exercise.scope")
    assert "available to process work at every hour of every day" in _paragraph(s, "commencement.hours")
    assert "failing such a record" in dict(s["calendar"])["Public holidays"]
    assert "may not give notice of termination" in _paragraph(s, "measurement-disputes.provisional")
    assert "shall accept or reject a claim" in _paragraph(s, "relief.claim")
    assert "neither met nor missed" in _paragraph(s, "service-levels.judging")
    assert "that one of them causes in turn" in s["definitions"]["Exercise Event"]

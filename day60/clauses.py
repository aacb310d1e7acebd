"""The clause library, deal (SOW) files, schedule assembly and compliance checks.

Clauses are YAML files in ``clauses/``. A deal file fills their typed parameters; the schedule
is assembled here as plain data and rendered by ``day60.render``. Compliance compares measured
figures with the deal's thresholds on the unrounded figure.
"""

from __future__ import annotations

import datetime as dt
import functools
import hashlib
import itertools
import math
import re
from pathlib import Path
from typing import Any, Literal

from jinja2.sandbox import SandboxedEnvironment
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from day60.errors import InputError, pydantic_problem
from day60.files import read_json, read_toml
from day60.resources import data_dir, shipped_yaml

TYPES = {
    "percent": "percent", "ratio": "ratio (0 to 1)", "seconds": "seconds", "minutes": "minutes",
    "hours": "hours", "business_hours": "Business Hours", "days": "calendar days",
    "business_days": "Business Days", "ordinal_business_day": "Business Day of the month", "count": "times",
    "money": "money in the deal's currency", "percentage_points": "percentage points", "points": "points",
    "tier": "tier T1 to T5",
}
TIERS = ("T1", "T2", "T3", "T4", "T5")
DEAL_KEYS = {"provider", "partner", "agreement", "schedule", "effective_date", "currency"}


class Parameter(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: str
    type: Literal[tuple(TYPES)]  # type: ignore[valid-type]
    min: float | None = None
    max: float | None = None
    fixed: float | None = None  # a value the charter fixes: in force when the deal is silent
    fixed_note: str | None = None  # how far, if at all, a deal may tighten it
    description: str

    @property
    def unit(self) -> str:
        return TYPES[self.type]


class Check(BaseModel):
    """One figure a clause judges. ``floor`` and ``ceiling`` are promises against a deal
    parameter; ``trigger`` is a reporting duty whose parameter starts a remedy; ``report`` is a
    reporting duty with no threshold at all (false containment, charter 3.10.7): it names the
    figure's ``unit`` instead of a parameter, and is reported, never met or not met."""

    model_config = ConfigDict(extra="forbid")
    figure: str
    comparator: Literal["floor", "ceiling", "trigger", "report"]
    parameter: str | None = None
    unit: Literal[tuple(TYPES)] | None = None  # type: ignore[valid-type]

    @model_validator(mode="after")
    def _shape(self) -> Check:
        if self.comparator == "report" and (self.parameter is not None or self.unit is None):
            raise ValueError("a report check names its unit and no parameter: it has no threshold")
        if self.comparator != "report" and (self.parameter is None or self.unit is not None):
            raise ValueError(f"a {self.comparator} check names the parameter holding its threshold, not a unit")
        return self


class Definitions(BaseModel):
    model_config = ConfigDict(extra="forbid")
    unit: str
    numerator: str
    denominator: str
    exclusions: str


class Clause(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: str
    title: str
    section: str
    definitions: Definitions
    parameters: list[Parameter]
    checks: list[Check]
    requires: list[str] = []
    documents: list[str] = []
    text: str


class DocumentSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")
    term: str
    what: str


class Library(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: str
    version: str
    effective: Any
    charter: str
    order: list[str]
    catch_all: str
    definitions: dict[str, str]
    documents: dict[str, DocumentSpec]
    precedence: str
    clauses: dict[str, Clause] = {}

    def parameter(self, pid: str) -> Parameter | None:
        for clause in self.clauses.values():
            for p in clause.parameters:
                if p.id == pid:
                    return p
        return None


def load_library(folder: Path | None = None) -> Library:
    """Read ``library.yaml`` and every clause file it orders; checks ids and references."""
    def untrusted(text: str) -> Any:
        from day60.files import loads_yaml

        return loads_yaml(text, "clauses", "a clause file", str(folder))

    parse = untrusted if folder else shipped_yaml  # the shipped library is read by libyaml, quickly
    folder = folder or data_dir("clauses")
    lib = Library.model_validate(parse((folder / "library.yaml").read_text(encoding="utf-8")))
    for cid in lib.order:
        try:
            clause = Clause.model_validate(parse((folder / f"{cid}.yaml").read_text(encoding="utf-8")))
        except ValidationError as exc:
            field, msg = pydantic_problem(exc)
            raise InputError(f"clauses/{cid}.yaml", f"{field}: {msg}", "fix the clause file") from exc
        if clause.id != cid:
            raise InputError(f"clauses/{cid}.yaml", f"declares id {clause.id!r}", "make the id match the file name")
        lib.clauses[cid] = clause
    ids = [p.id for c in lib.clauses.values() for p in c.parameters]
    if len(ids) != len(set(ids)):
        raise InputError("clauses", "a parameter id is used by two clauses", "make parameter ids unique")
    for clause in lib.clauses.values():
        for check in clause.checks:
            if check.parameter is not None and check.parameter not in {p.id for p in clause.parameters}:
                raise InputError(f"clauses/{clause.id}.yaml", f"check {check.figure} names parameter "
                                 f"{check.parameter}, which the clause does not define", "define it or fix the check")
    return lib


# Parameters a deal may still carry from an earlier library, and why they went.
RETIRED = {"false_containment_ceiling_percent": "false containment is a reporting duty with no ceiling since clause "
                                                "library 1.2.0 (charter 3.10.7); remove it"}


# ----- deal files ----------------------------------------------------------------------------


class Deal(BaseModel):
    deal: dict[str, Any]
    parameters: dict[str, Any]
    include: list[str]
    sha256: str
    path: str
    calendar: dict[str, Any] | None = None  # the deal's business calendar table, checked
    raw: bytes = Field(b"", exclude=True, repr=False)  # the file's bytes, embedded in reports
    documents: dict[str, str] = {}  # document id -> the deal's reference to it
    report_elements: dict[str, str] = {}  # elements the deal adds to the Monthly Report: id -> what


def load_deal(path: str | Path, lib: Library, extra_parameters: set[str] = frozenset(),
              draft: bool = False) -> Deal:
    """Read and check a deal file. Every problem is named in one message; nothing is guessed.

    ``extra_parameters`` are ids other consumers accept (the rubric's targets).
    """
    data, raw = read_toml(path, "--sow", "a deal TOML file")
    problems: list[str] = []
    if any(ch in raw.decode("utf-8", "replace") for ch in (REF_OPEN, REF_TEXT, REF_CLOSE)):
        problems.append("the file holds Unicode private-use characters U+E000 to U+E002, which the schedule keeps "
                        "for its own cross-references: remove them")
    deal = data.get("deal")
    if not isinstance(deal, dict):
        raise InputError("--sow", "has no [deal] table", "add [deal] with provider, partner, agreement, schedule, "
                                                         "effective_date and currency")
    for key in sorted(DEAL_KEYS - set(deal)):
        problems.append(f"deal.{key} is missing")
    if "paper" in deal and deal["paper"] not in ("A4", "Letter"):
        problems.append(f"deal.paper {str(deal['paper'])[:20]!r} is not A4 or Letter")
    for key in sorted(set(deal) - DEAL_KEYS - {"synthetic", "paper"}):
        hint = " (the business calendar is a [calendar] table of its own)" if key == "calendar" else ""
        problems.append(f"deal.{key} is not a deal setting{hint}")
    if "currency" in deal and not re.fullmatch(r"[A-Z]{3}", str(deal["currency"])):
        problems.append(f"deal.currency {str(deal['currency'])[:40]!r} is not a three-letter code such as GBP")
    if "effective_date" in deal and not isinstance(deal["effective_date"], dt.date):
        try:
            dt.date.fromisoformat(str(deal["effective_date"]))
        except ValueError:
            problems.append("deal.effective_date is not a date (YYYY-MM-DD)")
    for key in sorted(DEAL_KEYS & set(deal)):
        if key != "effective_date" and not isinstance(deal[key], str):
            problems.append(f"deal.{key} is {str(deal[key])[:40]!r}, not text")
    if not isinstance(deal.get("synthetic", False), bool):
        problems.append("deal.synthetic is not true or false")
    for key in sorted(set(data) - {"deal", "clauses", "parameters", "calendar", "documents", "report"}):
        problems.append(f"{key} is not a table of a deal file (use [deal], [calendar], [clauses], [parameters], "
                        "[documents], [report])")
    calendar = _deal_calendar(data.get("calendar"), Path(path).parent, problems)
    documents = data.get("documents", {})
    if not isinstance(documents, dict) or not all(isinstance(v, str) for v in documents.values()):
        problems.append("documents is not a table of document id = \"reference\" lines")
        documents = {}
    for did in sorted(set(documents) - set(lib.documents)):
        problems.append(f"documents.{did[:40]} is not a document the clauses use ({', '.join(lib.documents)})")
    report = data.get("report", {})
    added = report.get("elements", {}) if isinstance(report, dict) else None
    if not isinstance(added, dict) or not all(isinstance(v, str) for v in added.values()) or \
            set(report) - {"elements"}:
        problems.append("report is not a table holding [report.elements], one element id = \"what it contains\"")
        added = {}
    section = data.get("clauses", {})
    include = section.get("include", list(lib.order)) if isinstance(section, dict) else None
    if not isinstance(include, list) or not all(isinstance(c, str) for c in include):
        problems.append("clauses.include is not a list of clause ids (e.g. include = [\"restore\", \"rollback\"])")
        include = []
    for cid in include:
        if cid not in lib.clauses:
            problems.append(f"clauses.include names unknown clause {cid[:60]!r}")
    params = data.get("parameters", {})
    if not isinstance(params, dict):
        problems.append("parameters is not a table (write [parameters] with one id = value a line)")
        params = {}
    for pid, value in params.items():
        spec = lib.parameter(pid)
        if spec is None:
            if pid in RETIRED:
                problems.append(f"parameters.{pid} is no longer a parameter: {RETIRED[pid]}")
            elif pid not in extra_parameters:
                problems.append(f"parameters.{pid} is not a parameter of the library")
            continue
        problem = _check_value(spec, value)
        if problem and spec.fixed is not None:
            problem += f" ({spec.fixed_note})"
        if problem:
            problems.append(f"parameters.{pid} {problem}")
    for cid in include:  # values the charter fixes stand unless the deal tightens them
        for spec in lib.clauses[cid].parameters if cid in lib.clauses else []:
            if spec.fixed is not None and spec.id not in params:
                params = {**params, spec.id: spec.fixed}
    tier = tier_facts(params.get("day60_tier")) if "day60-exercise" in include else None
    missing = [p.id for cid in include if cid in lib.clauses for p in lib.clauses[cid].parameters
               if p.id not in params and not (p.id == "day60_notice_business_days" and tier and tier["unannounced"])]
    if tier is not None:
        problems += _tier_problems(tier, params)
    missing += sorted({d for cid in include if cid in lib.clauses for d in lib.clauses[cid].documents}
                      - set(documents))
    if calendar is None:
        missing.append("calendar")
    if missing and not draft:
        problems.append(f"missing parameters, documents or calendar (or export with --draft): {', '.join(missing)}")
    if problems:
        raise InputError("--sow", f"{len(problems)} problem(s): " + "; ".join(problems),
                         "fix the deal file (see 'day60 clauses list')")
    return Deal(deal=deal, parameters=params, include=include, sha256=hashlib.sha256(raw).hexdigest(),
                path=str(path), calendar=calendar, documents=documents, report_elements=added, raw=raw)


def _tier_problems(tier: dict[str, Any], params: dict[str, Any]) -> list[str]:
    """A deal whose Day-60 numbers its own tier cannot honour (charter 4.5, 9.9)."""
    problems = []
    floor = params.get("day60_score_floor")
    if isinstance(floor, int | float) and not isinstance(floor, bool) and floor > tier["max_points"]:
        problems.append(f"parameters.day60_score_floor {floor:g} cannot be reached at tier {tier['id']}, where only "
                        f"the {', '.join(tier['sections'])} line(s) can score ({tier['max_points']:g} points at most): "
                        "lower the floor or choose a higher tier")
    if tier["unannounced"] and "day60_notice_business_days" in params:
        problems.append(f"parameters.day60_notice_business_days is set, but tier {tier['id']} is unannounced: the "
                        "Provider is not told when the window opens, so drop it")
    return problems


def _deal_calendar(table: Any, folder: Path, problems: list[str]) -> dict[str, Any] | None:
    """The deal's business calendar: a [calendar] table as a calendar file holds, or the path of
    such a file. Free text is refused: a calendar is data the figures are computed on."""
    from day60.clock import BusinessCalendar

    if table is None:
        return None
    if isinstance(table, str):
        target = (folder / table) if not Path(table).is_absolute() else Path(table)
        if target.suffix != ".toml" or not target.is_file():
            problems.append(f"calendar {table[:60]!r} is neither a calendar table nor the path of a calendar file "
                            "(write [calendar] with timezone, hours, holidays, closures, as in "
                            "'day60 examples uk-office --copy .')")
            return None
        try:
            return BusinessCalendar.load(target).to_dict()
        except InputError as exc:
            problems.append(f"calendar file {table[:60]}: {exc}")
            return None
    try:
        return BusinessCalendar.from_dict(table).to_dict()
    except InputError as exc:
        problems.append(str(exc))
        return None


def _check_value(spec: Parameter, value: Any) -> str | None:
    if spec.type == "tier":
        return None if isinstance(value, str) and value in TIERS else \
            f"is {str(value)[:40]!r}, not one of {', '.join(TIERS)}"
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return f"is {str(value)[:40]!r}, not a number of {spec.unit}"
    if spec.type in ("count", "ordinal_business_day", "business_days", "days") and value != int(value):
        return f"is {value!r}, not a whole number of {spec.unit}"
    if spec.min is not None and value < spec.min:
        return f"is {value:g}, below the least allowed {spec.min:g} {spec.unit}"
    if spec.max is not None and value > spec.max:
        return f"is {value:g}, above the most allowed {spec.max:g} {spec.unit}"
    return None


def show_value(spec: Parameter, value: Any, currency: str = "") -> str:
    """A parameter value as it reads in a clause (rounded for display only)."""
    if spec.type == "tier":
        return str(value)
    if spec.type == "percent":
        return f"{value:g} percent"
    if spec.type == "money":
        return f"{currency} {value:.4g}".strip()
    if spec.type == "count":
        n = int(value)
        return {1: "once", 2: "twice"}.get(n, f"{n} times")
    if spec.type == "ordinal_business_day":
        n = int(value)
        suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
        return f"{n}{suffix} Business Day"
    if spec.type == "ratio":
        return f"{value:g}"
    unit = spec.unit
    if value == 1 and unit.endswith("s"):
        unit = unit[:-1]
    return f"{value:g} {unit}"


# ----- the schedule --------------------------------------------------------------------------


# A cross-reference as the Word export keeps it live: REF_OPEN id REF_TEXT "clause 3" REF_CLOSE.
# Every other export prints only the words (``plain``); the characters are Unicode private-use ones,
# which no clause or deal text may hold.
REF_OPEN, REF_TEXT, REF_CLOSE = "\ue000", "\ue001", "\ue002"
_REF_MARK = re.compile(f"{REF_OPEN}([^{REF_TEXT}]*){REF_TEXT}([^{REF_CLOSE}]*){REF_CLOSE}")


def plain(text: str) -> str:
    """Text with its marked cross-references as the words they print."""
    return _REF_MARK.sub(lambda m: m.group(2), text)


def ref_parts(text: str) -> list[tuple[str | None, str]]:
    """Marked text as (clause id or None, words) pieces, in order: what the Word export turns into
    plain runs and REF fields."""
    out: list[tuple[str | None, str]] = []
    at = 0
    for m in _REF_MARK.finditer(text):
        if m.start() > at:
            out.append((None, text[at:m.start()]))
        out.append((m.group(1), m.group(2)))
        at = m.end()
    if at < len(text):
        out.append((None, text[at:]))
    return out


def _ref(lib: Library, numbers: dict[str, int], marked: bool = False) -> Any:
    def ref(cid: str) -> str:
        if cid in numbers:
            words = f"clause {numbers[cid]}"
            return f"{REF_OPEN}{cid}{REF_TEXT}{words}{REF_CLOSE}" if marked else words
        return f"the {lib.clauses[cid].title.lower()} clause (not part of this schedule)"

    return ref


def clause_text(lib: Library, clause: Clause, values: dict[str, str], numbers: dict[str, int],
                rubric_name: str = "[rubric: id, version and SHA-256]", tier: dict[str, Any] | None = None,
                marked: bool = False) -> str:
    """Render a clause's text template with display values and cross-references; ``tier`` is the
    rubric's description of the deal's Day-60 tier (None while it is not chosen). ``marked``
    keeps each cross-reference marked for the Word export (see ``ref_parts``)."""
    return _clause_template(clause.text).render(p=values, ref=_ref(lib, numbers, marked), rubric=rubric_name,
                                                tier=tier).strip()


@functools.lru_cache(maxsize=256)
def _clause_template(text: str) -> Any:
    """A clause text compiled once per process (a schedule renders each clause twice, the Word
    export and the demo again), in a sandbox."""
    return SandboxedEnvironment(autoescape=False, keep_trailing_newline=False).from_string(text)


def tier_facts(tier_id: Any, published: Any = None) -> dict[str, Any] | None:
    """What the rubric says a Day-60 tier runs, for the clause text and the deal's checks."""
    from day60 import rubric

    published = published or rubric.load()
    tier = published.tiers.get(tier_id) if isinstance(tier_id, str) else None
    if tier is None:
        return None
    points = sum(line.points for line in published.lines if line.section in tier.sections)
    return {"id": tier_id, **tier.model_dump(), "max_points": points}


def definitions(lib: Library, numbers: dict[str, int], calendar: bool, marked: bool = False) -> dict[str, str]:
    """The schedule's definitions, each rendered for this deal: none cites a clause it left out."""
    env = SandboxedEnvironment(autoescape=False)
    return {term: env.from_string(text).render(included=set(numbers), ref=_ref(lib, numbers, marked),
                                               calendar=calendar)
            for term, text in lib.definitions.items()}


def blanks(clause: Clause) -> dict[str, str]:
    return {p.id: f"[{p.id}: {p.unit}]" for p in clause.parameters}


def _calendar_rows(table: dict[str, Any] | None) -> list[tuple[str, str]]:
    """The deal's calendar as the schedule prints it: timezone, hours per weekday, holidays, closures."""
    if table is None:
        return []
    from day60.clock import WEEKDAYS

    hours = table.get("hours")
    rows = [("Timezone", table["timezone"])]
    if hours == "24x7":
        rows.append(("Working hours", "every hour of every day"))
    else:
        for day in WEEKDAYS:
            spans = hours.get(day, [])
            spans = [spans] if isinstance(spans, str) else spans
            rows.append((day.capitalize(), ", ".join(spans) or "closed"))
    h = table.get("holidays")
    rows.append(("Public holidays", f"{h['country']}{' / ' + h['subdivision'] if h.get('subdivision') else ''}, "
                                    "as the holidays package lists them (observed days included)" if h else "none"))
    rows.append(("Closures", ", ".join(str(c) for c in table.get("closures", [])) or "none"))
    return rows


def schedule(lib: Library, deal: Deal, draft: bool = False) -> dict[str, Any]:
    """The schedule as data: title block, definitions, numbered clauses, parameter table, footer."""
    from day60 import rubric

    published = rubric.load()
    rubric_name = f"{published.id} {published.version} (SHA-256 {published.sha256})"
    numbers = {cid: i for i, cid in enumerate(deal.include, start=1)}
    currency = str(deal.deal.get("currency", ""))
    clauses, table, unfilled = [], [], []
    tier = tier_facts(deal.parameters.get("day60_tier"), published)
    for cid in deal.include:
        clause = lib.clauses[cid]
        values = blanks(clause)
        for p in clause.parameters:
            if p.id in deal.parameters:
                values[p.id] = show_value(p, deal.parameters[p.id], currency)
            elif p.id == "day60_notice_business_days" and tier and tier["unannounced"]:
                values[p.id] = f"not used: tier {tier['id']} is unannounced"
                table.append({"clause": numbers[cid], "id": p.id, "type": p.type, "unit": p.unit,
                              "value": values[p.id], "filled": True, "description": p.description, "fixed": None})
                continue
            else:
                unfilled.append(p.id)
            table.append({"clause": numbers[cid], "id": p.id, "type": p.type, "unit": p.unit,
                          "value": values[p.id], "filled": p.id in deal.parameters, "description": p.description,
                          "fixed": p.fixed_note if p.fixed is not None else None})
        clauses.append({"number": numbers[cid], "id": cid, "title": clause.title, "section": clause.section,
                        "definitions": clause.definitions.model_dump(), "requires": clause.requires,
                        "text": clause_text(lib, clause, values, numbers, rubric_name, tier),
                        "marked": clause_text(lib, clause, values, numbers, rubric_name, tier, marked=True),
                        "documents": [lib.documents[d].term for d in clause.documents]})
    needed = sorted({d for cid in deal.include for d in lib.clauses[cid].documents})
    documents = [{"term": lib.documents[d].term, "what": lib.documents[d].what, "reference": deal.documents.get(d),
                  "clauses": [numbers[c] for c in deal.include if d in lib.clauses[c].documents]} for d in needed]
    unfilled += [lib.documents[d].term for d in needed if d not in deal.documents]
    if deal.calendar is None:
        unfilled.append("business calendar")
    if unfilled and not draft:
        raise InputError("--sow", f"unfilled: {', '.join(unfilled)}", "fill them or export with --draft")
    from day60.resources import report_elements

    elements = [{"id": e["id"], "what": e["what"], "source": f"charter {e.get('section', '')}".strip()}
                for e in report_elements()] + [{"id": k, "what": v, "source": "this deal"}
                                               for k, v in deal.report_elements.items()]
    return {"deal": {k: str(v) for k, v in deal.deal.items()},
            "catch_all": lib.catch_all, "precedence": lib.precedence,
            "definitions": definitions(lib, numbers, deal.calendar is not None),
            "definitions_marked": definitions(lib, numbers, deal.calendar is not None, marked=True),
            "paper": paper_size(deal),
            "calendar": _calendar_rows(deal.calendar), "documents": documents,
            "report_elements": elements if "report-completeness" in numbers else [],
            "report_clause": numbers.get("report-completeness"),
            "report_clause_marked": _ref(lib, numbers, marked=True)("report-completeness")
            if "report-completeness" in numbers else "",
            "clauses": clauses, "parameters": table, "unfilled": unfilled, "draft": draft,
            "synthetic": bool(deal.deal.get("synthetic")),
            "library": {"id": lib.id, "version": lib.version, "charter": lib.charter},
            "sections": [c["section"] for c in clauses], "sow_sha256": deal.sha256}


# ----- compliance ----------------------------------------------------------------------------


# Where Letter paper is the norm (the rest of the world prints contracts on A4).
LETTER_COUNTRIES = {"US", "CA", "MX", "PH", "CL", "CO", "VE", "PR", "GT", "CR", "PA", "DO", "SV", "HN", "NI"}


# Where English is written its own way and Word's spelling checker knows that English by name.
ENGLISHES = {"GB": "en-GB", "UK": "en-GB", "US": "en-US", "IE": "en-IE", "AU": "en-AU", "NZ": "en-NZ",
             "CA": "en-CA", "ZA": "en-ZA", "IN": "en-IN", "SG": "en-SG", "PH": "en-PH"}


def _country(deal: Deal) -> Any:
    """The country whose public holidays the deal's calendar keeps (None without one)."""
    return ((deal.calendar or {}).get("holidays") or {}).get("country")


def paper_size(deal: Deal) -> str:
    """A4 or Letter: as the deal says (deal.paper), else Letter where the deal's calendar keeps a
    Letter country's holidays, else A4."""
    stated = deal.deal.get("paper")
    if stated in ("A4", "Letter"):
        return stated
    return "Letter" if _country(deal) in LETTER_COUNTRIES else "A4"


def language_tag(deal: Deal) -> str:
    """The English the Word schedule is spell-checked in, from the country of the deal's calendar
    (its holidays): that country's own English where it has one (en-GB, en-US, en-IE, en-AU, ...),
    else American English in the other Letter countries and British English everywhere else (and
    with no calendar yet)."""
    country = _country(deal)
    if country in ENGLISHES:
        return ENGLISHES[country]
    return "en-US" if country in LETTER_COUNTRIES else "en-GB"


def check_ids(lib: Library, deal: Deal | None = None) -> list[dict[str, Any]]:
    """Every check a figures file may name: its id, clause, unit, comparator and the deal's threshold."""
    out = []
    for cid in (deal.include if deal else lib.order):
        clause = lib.clauses[cid]
        for check in clause.checks:
            if check.comparator == "report":  # a reporting duty: no parameter, no threshold
                out.append({"check": check.figure, "clause": cid, "unit": TYPES[check.unit], "comparator": "report",
                            "parameter": None, "threshold": None})
                continue
            spec = next(p for p in clause.parameters if p.id == check.parameter)
            out.append({"check": check.figure, "clause": cid, "unit": spec.unit, "comparator": check.comparator,
                        "parameter": spec.id, "threshold": deal.parameters.get(spec.id) if deal else None})
    return out


def comply(lib: Library, deal: Deal, figures: dict[str, Any], source: str,
           scope: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """One row per check of every included clause: met, not met, not run (or, for a reporting
    duty, reported / triggered), on unrounded figures.

    ``scope`` says where journal figures came from (its tier, whether the records are the
    supplier's own): a Day-60 figure from another tier than the deal's, or from supplier-reported
    records, is not run with the reason, never met (charter 4.5).
    """
    import difflib

    known = {c["check"] for c in check_ids(lib)}
    unknown = sorted(set(figures) - known)
    if unknown:
        close = difflib.get_close_matches(unknown[0], sorted(known), n=1)
        hint = f"did you mean {close[0]}? " if close else ""
        raise InputError("--figures", f"{', '.join(k[:40] for k in unknown)} name(s) no check",
                         f"{hint}see 'day60 comply --list-checks'")
    percent = {c["check"] for c in check_ids(lib) if c["unit"] == TYPES["percent"]}
    outside = [f"{k[:40]}.value is {v['value']!r}" for k, v in sorted(figures.items()) if k in percent
               and isinstance(v, dict) and isinstance(v.get("value"), int | float) and not 0 <= v["value"] <= 100]
    if outside:  # a share above 100 percent (or below 0) is a typing error, never a figure to judge
        raise InputError("--figures", f"{'; '.join(outside)}: not a percentage from 0 to 100",
                         "give each rate in percent (23.8 for 23.8 percent)")
    rows = []
    for cid in deal.include:
        clause = lib.clauses[cid]
        for check in clause.checks:
            rows.append(_check(lib, clause, check, deal, figures.get(check.figure), source))
    if scope:
        _scope(rows, deal, scope)
    status = {}
    for row in rows:
        prior = status.get(row["clause"], "met")
        status[row["clause"]] = "not met" if "not met" in (prior, row["status"]) else (
            "not run" if {"not run", "tier not demonstrated"} & {prior, row["status"]} else "met")
    for row in rows:  # paired measures: neither is satisfied without the other
        for needed in lib.clauses[row["clause"]].requires:
            other = status.get(needed)
            if row["status"] != "met" or other == "met":
                continue
            if other is None:
                row.update(status="not run", reason=f"needs {needed}, which this deal does not include")
            else:
                row.update(status="not met" if other == "not met" else "not run",
                           reason=f"met on its own, but {needed} is {other}: the two stand or fall together")
    for row in rows:  # the status column already says "not run": its reason says why, once
        if row["status"] == "not run" and isinstance(row["reason"], str) and row["reason"].startswith("not run: "):
            row["reason"] = row["reason"][len("not run: "):]
    return rows


def _scope(rows: list[dict[str, Any]], deal: Deal, scope: dict[str, Any]) -> None:
    """Day-60 figures count only from the deal's own tier, and never from the supplier's own records."""
    wanted = deal.parameters.get("day60_tier")
    why = None
    if scope.get("records") == "supplier-reported":
        why = "these figures come from the supplier's own records (a self-assessment), not an audited exercise"
    elif wanted and scope.get("tier") != wanted:
        why = f"the journal is a tier {scope.get('tier')} exercise; the deal's Day-60 tier is {wanted}"
    if why is None:
        return
    day60 = {"drift-notice", "restore-sev1", "restore-sev2", "restore-sev3", "restore-sev4", "rollback",
             "day60-score", "day60-tier"}
    for row in rows:
        if row["check"] in day60 and row["status"] != "not run":
            row.update(status="not run", reason=why)


def _check(lib: Library, clause: Clause, check: Check, deal: Deal, figure: Any, source: str) -> dict[str, Any]:
    currency = str(deal.deal.get("currency", ""))
    unit_type = check.unit if check.comparator == "report" else \
        next(p for p in clause.parameters if p.id == check.parameter).type
    threshold = deal.parameters.get(check.parameter) if check.parameter else None
    row = {"clause": clause.id, "check": check.figure, "section": clause.section, "comparator": check.comparator,
           "parameter": check.parameter, "threshold": threshold, "value": None, "display": "not run", "n": None,
           "status": "not run", "reason": None, "source": source}
    if check.comparator == "report":
        return _reported(row, figure, source, unit_type, currency)
    if threshold is None:
        row["reason"] = f"the deal sets no {check.parameter}"
        return row
    if unit_type == "tier":
        threshold = TIERS.index(threshold) + 1
    if isinstance(figure, dict) and figure.get("tier_not_demonstrated"):  # never met: the tier was not run (9.9)
        row.update(status="tier not demonstrated", value=figure.get("value"), n=figure.get("n"),
                   reason=f"the exercise did not show what its tier requires: {figure['tier_not_demonstrated']}",
                   display="tier not demonstrated")
        return row
    if isinstance(figure, dict) and figure.get("breach"):  # broken, whatever the figure (or its absence)
        value = figure.get("value")
        # A breach with no figure is not "not run": it shows what broke, so no reader takes it for untested.
        row.update(status="not met", reason=figure["breach"], n=figure.get("n"), value=value,
                   display=f"no figure: {figure['breach']}" if value is None
                   else _display(unit_type, float(value), currency))
        return row
    if isinstance(figure, dict) and figure.get("pending") and (figure.get("value") is None or (
            check.comparator in ("floor", "ceiling") and isinstance(figure.get("n"), int) and figure["n"] > 0
            and (float(figure["value"]) >= threshold if check.comparator == "floor"
                 else float(figure["value"]) <= threshold))):
        # Met so far, but what is still sealed or open may yet break it: never "met" before it is known.
        row.update(value=figure.get("value"), n=figure.get("n"), reason=f"provisional: {figure['pending']}")
        return row
    if not isinstance(figure, dict) or figure.get("value") is None:
        row["reason"] = (figure or {}).get("reason") if isinstance(figure, dict) else None
        row["reason"] = row["reason"] or f"{source} holds no figure for {check.figure}"
        return row
    n = figure.get("n")
    if not isinstance(n, int | float) or isinstance(n, bool) or n <= 0:
        row.update(value=figure["value"], reason="the figure has no sample size, so it is not evidence")
        return row
    value = float(figure["value"])
    if check.comparator == "trigger":  # a reporting duty: two months running above it trigger the remedy
        months = [float(m) for m in figure.get("months") or [] if isinstance(m, int | float)]
        run = any(a > threshold and b > threshold for a, b in itertools.pairwise(months))
        row.update(value=value, n=n, display=_display(unit_type, value, currency))
        if run:
            row.update(status="triggered", reason=f"above {threshold:g} in two consecutive months: the remedy "
                                                  "applies")
        else:
            row.update(status="reported, not triggered", reason=f"{value!r} reported; the remedy needs two "
                                                                "consecutive months above the trigger"
                       if value > threshold else None)
        return row
    ok = value >= threshold if check.comparator == "floor" else value <= threshold
    display = _display(unit_type, value, currency)
    if not ok and display == _display(unit_type, float(threshold), currency):
        # Rounded, a breach can read as the threshold itself ("95.0 percent" against a floor of 95):
        # the unrounded figure that decided it goes beside it, so the table never contradicts itself.
        display += f" (unrounded {value!r})"
    row.update(value=value, n=n, display=display, status="met" if ok else "not met")
    if not ok:
        word = "below the floor" if check.comparator == "floor" else "above the ceiling"
        row["reason"] = f"{value!r} is {word} of {threshold:g} (judged unrounded)"
    return row


def _reported(row: dict[str, Any], figure: Any, source: str, unit_type: str, currency: str) -> dict[str, Any]:
    """A reporting duty with no threshold: the figure is reported with its sample size, and no
    value of it, 0 or 100 percent, is met or not met. Without a figure, or without a sample size,
    it is not run: the duty's evidence is missing, which says nothing about the figure."""
    if not isinstance(figure, dict) or figure.get("value") is None:
        reason = figure.get("reason") if isinstance(figure, dict) else None
        row["reason"] = reason or f"{source} holds no figure for {row['check']}"
        return row
    n = figure.get("n")
    if not isinstance(n, int | float) or isinstance(n, bool) or n <= 0:
        row.update(value=figure["value"], reason="the figure has no sample size, so it is not evidence")
        return row
    value = float(figure["value"])
    note = figure.get("note")
    row.update(value=value, n=n, display=_display(unit_type, value, currency), status="reported",
               reason="a reporting duty with no ceiling: the figure is reported with its sample size, and no "
                      "value of it is a breach" + (f"; {note}" if note else ""))
    return row


def _display(unit_type: str, value: float, currency: str) -> str:
    if unit_type == "percent":
        return f"{value:.1f} percent"  # rates to one decimal (charter 3.1.5)
    if unit_type == "money":
        return f"{currency} {value:.4g}"
    if unit_type == "tier":
        return f"T{int(value)}"
    if unit_type == "ordinal_business_day":
        return show_value(Parameter(id="figure", type=unit_type, description="the figure"), value)
    return f"{value:.2f} {TYPES[unit_type]}"


def load_figures(path: str | Path) -> dict[str, Any]:
    """A figures file: ``{"<check figure id>": {"value": number, "n": sample size}}``."""
    data = read_json(path, "--figures", "a JSON figures file")
    shape = 'is not {"<id>": {"value": number, "n": count}}'
    if not isinstance(data, dict):
        raise InputError("--figures", shape, "fix the file")
    problems = []
    for fid, fig in data.items():
        if not isinstance(fig, dict):
            problems.append(f"{fid[:40]} is not an object")
            continue
        for key in sorted(set(fig) - {"value", "n", "reason", "note", "months"}):
            problems.append(f"{fid[:40]}.{key[:40]} is not a figure field (value, n, reason, note, months)")
        months = fig.get("months")
        if months is not None and (not isinstance(months, list) or not all(
                isinstance(m, int | float) and not isinstance(m, bool) for m in months)):
            problems.append(f"{fid[:40]}.months is not a list of monthly figures, oldest first")
        for key in ("value", "n"):
            v = fig.get(key)
            if v is not None and (isinstance(v, bool) or not isinstance(v, int | float)):
                problems.append(f"{fid[:40]}.{key} is {str(v)[:30]!r}, not a number")
        n = fig.get("n")
        if isinstance(n, float) or (isinstance(n, int) and not isinstance(n, bool) and n < 0):
            problems.append(f"{fid[:40]}.n is {n!r}, not a whole count")
        for key in ("reason", "note"):
            if fig.get(key) is not None and not isinstance(fig[key], str):
                problems.append(f"{fid[:40]}.{key} is not text")
    if problems:
        raise InputError("--figures", f"{len(problems)} problem(s): " + "; ".join(problems[:10]),
                         'write each figure as {"value": number, "n": count}')
    return data


def journal_figures(journal: Any, deal: Deal) -> dict[str, Any]:
    """The Day-60 figures a journal can supply, keyed by check figure id."""
    from day60 import assess

    done = assess.score_journal(journal, deal_parameters=deal.parameters, deal_elements=list(deal.report_elements))
    s = done.figures.summary
    out: dict[str, Any] = {}
    closed = s["window"]["closed"]
    drift = s["drift"]
    notice = drift["summary"]["notice_business_hours"]
    # Before the close (or while an onset is sealed) a drift not yet notified is not yet a breach, and
    # the drifts notified so far are not yet the whole population: such a figure is never "met".
    waiting = [f"{n} {what}" for n, what in ((drift["sealed"], "injected onset(s) still sealed: reveal them at the "
                                                                "close"),
                                             (drift["open"] + (0 if closed else notice["not_detected"]),
                                              "drift observation(s) not yet notified, and the exercise has not been "
                                              "closed")) if n]
    out["drift-notice"] = {"value": notice["max_of_detected"], "n": notice["count"],
                           "reason": notice.get("reason") if not notice["count"] else None,
                           "breach": f"{notice['not_detected']} of {notice['population']} drift observation(s) not "
                                     "notified within the window" if notice["not_detected"] and closed else None,
                           "pending": "; ".join(waiting) or None}
    inc = s["incidents"]
    by_sev, unclassified = inc["by_severity"], inc["no_severity"]
    for sev, b in by_sev.items():
        business = sev in ("3", "4")
        key = "max_business_hours" if business else "max_hours"
        value, n, breaches = b[key], b["count"], []
        if b["open"]:
            breaches.append(f"{b['open']} severity {sev} incident(s) still open at the close")
        if b["unconfirmed"]:
            breaches.append(f"{b['unconfirmed']} severity {sev} incident(s) closed with no monitoring check "
                            "confirming a restore")
        if sev == "1":  # incidents with no severity, or never detected, are held to the strictest clause
            if unclassified["count"]:
                value = max(v for v in (value, unclassified[key]) if v is not None)
                n += unclassified["count"]
            if unclassified["open"]:
                breaches.append(f"{unclassified['open']} incident(s) with no severity still open at the close")
            unsure = inc["unconfirmed"] - sum(x["unconfirmed"] for x in by_sev.values())
            if unsure:
                breaches.append(f"{unsure} incident(s) with no severity closed with no monitoring check confirming a "
                                "restore")
            if inc["not_detected"]:
                breaches.append(f"{inc['not_detected']} raised incident(s) never detected or notified by the close")
        # Before the close an incident still open may yet be restored: not a breach yet, nor a pass.
        out[f"restore-sev{sev}"] = {"value": value, "n": n, "reason": b["reason"] if value is None else None,
                                    "breach": "; ".join(breaches) or None if closed else None,
                                    "pending": None if closed or not breaches else "; ".join(
                                        b.replace(" at the close", " so far").replace(" by the close", " so far")
                                        for b in breaches) + "; the exercise has not been closed"}
    prod = s["rollbacks"]["production"]
    table = done.figures.tables["rollbacks"]
    # A production rollback decided in the window that never ended in it has no time to compare: it
    # breaks the clause (at the close), or may yet end (before it); it never leaves the figure.
    unfinished = int(((table["kind"] == "production") & (table["status"] == "in the window")
                      & table["decision_minutes"].notna() & table["rollback_minutes"].isna()).sum())
    unended = f"{unfinished} production rollback(s) decided in the window and not ended in it" if unfinished else None
    out["rollback"] = {"value": prod["rollback_minutes"]["max"], "n": prod["rollback_minutes"]["count"],
                       "reason": prod["rollback_minutes"].get("reason"), "breach": unended if closed else None,
                       "pending": None if closed or not unended else f"{unended} yet; the exercise has not been closed"}
    rehearsed = s["rollbacks"]["rehearsal"]["count"]
    needed = deal.parameters.get("rehearsals_per_quarter")
    # The window is a few days of a quarter: rehearsals seen in it are a floor on the quarter's count,
    # so they can show the clause met, never broken (the rest of the quarter is not in the journal).
    out["rollback-rehearsals"] = {"value": rehearsed, "n": rehearsed} if rehearsed and needed is not None \
        and rehearsed >= needed else {"value": None, "n": None, "reason": (
            f"{rehearsed} rollback rehearsal(s) in the window, which covers only part of a quarter: the quarter's "
            "count is not in the journal")}
    rep = s["report"]
    lowest = min((p for p in rep["periods"] if p["completeness_percent"] is not None),
                 key=lambda p: p["completeness_percent"], default=None)
    # The clause binds every report: the lowest period is judged, over its own required elements.
    out["report-completeness"] = {"value": rep["lowest_completeness_percent"],
                                  "n": lowest["required"] if lowest else None, "reason": rep["reason"]}
    if rep["periods"]:
        from day60.clock import BusinessCalendar

        # The deal's calendar decides the Business Day of delivery; the journal's stands in without one.
        cal = BusinessCalendar.from_dict(deal.calendar) if deal.calendar else journal.calendar()
        days = [delivery_business_day(cal, p["period"], dt.date.fromisoformat(p["delivered"]))
                for p in rep["periods"]]
        out["report-timeliness"] = {"value": max(days), "n": len(days)}
    check = done.result["tier_check"]
    score = done.result["score"]
    if done.result["provisional"] and score is not None:  # it may still rise or fall: neither met nor not met
        out["day60-score"] = {"value": None, "n": 1, "reason": f"the score ({score:.1f} so far) is PROVISIONAL: "
                                                             f"{'; '.join(done.result['provisional'])}"}
        return out
    out["day60-score"] = {"value": score, "n": 1, "reason": done.result.get("score_reason"),
                          "tier_not_demonstrated": None if check["met"] or score is None
                          else "; ".join(check["problems"])}
    return out


def _plain_name(text: Any) -> str:
    return " ".join(re.sub(r"[^\w]+", " ", str(text or "")).casefold().split())


def parties_problem(deal: Deal, header: dict[str, Any]) -> str | None:
    """Whether the deal and the journal name the same parties (case, spacing and punctuation
    aside): figures of one supplier are never judged against another's contract unnoticed."""
    pairs = (("partner", deal.deal.get("partner"), header.get("partner")),
             ("provider", deal.deal.get("provider"), header.get("supplier")))
    wrong = [f"the deal's {role} is {str(a)[:60]!r} but the journal's is {str(b)[:60]!r}"
             for role, a, b in pairs if _plain_name(a) != _plain_name(b)]
    return "; ".join(wrong) or None


def floor_verdict(result: dict[str, Any], deal: Deal) -> dict[str, Any] | None:
    """The score against the deal's Day-60 floor, judged on the unrounded score at the deal's tier."""
    floor = deal.parameters.get("day60_score_floor")
    if floor is None:
        return None
    tier = deal.parameters.get("day60_tier")
    out = {"floor": floor, "tier": tier or "not set", "reason": None}
    if result["score"] is None:
        return {**out, "verdict": "not run", "reason": result.get("score_reason")}
    if result.get("provisional"):  # it may still rise or fall: judged once final
        return {**out, "verdict": "not run", "reason": f"the score is PROVISIONAL: {'; '.join(result['provisional'])}"}
    if tier and result["tier"] != tier:
        return {**out, "verdict": "not run",
                "reason": f"the exercise ran at tier {result['tier']}, the deal's is {tier}"}
    if not result["tier_check"]["met"]:
        return {**out, "verdict": "tier not demonstrated", "reason": "; ".join(result["tier_check"]["problems"])}
    met = result["score"] >= floor
    return {**out, "verdict": "met" if met else "not met",
            "reason": None if met else f"{result['score']!r} is below the floor (judged unrounded)"}


def delivery_business_day(cal: Any, period: str, delivered: dt.date) -> int:
    """Which business day of the month after ``period`` (YYYY-MM) a delivery fell on; a day
    that is not a business day counts as the next one, and a delivery before that month as 0."""
    year, month = (int(x) for x in period.split("-"))
    last_of_period = dt.date(year + (month == 12), month % 12 + 1, 1) - dt.timedelta(days=1)
    nth, day = 0, last_of_period
    while day < delivered:
        day = cal.business_day_after(day, 1)
        nth += 1
    return nth

"""The clause library, deal (SOW) files, schedule assembly and compliance checks.

Clauses are YAML files in ``clauses/``. A deal file fills their typed parameters; the schedule
is assembled here as plain data and rendered by ``day60.render``. Compliance compares measured
figures with the deal's thresholds on the unrounded figure.
"""

from __future__ import annotations

import datetime as dt
import difflib
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
    "money": "money, in the schedule's currency", "percentage_points": "percentage points", "points": "points",
    "tier": "tier T1 to T5", "months": "months", "number": "a whole number", "ordinal_day": "day after go-live",
    "date": "date", "choice": "choice", "text": "text",
}
TIERS = ("T1", "T2", "T3", "T4", "T5")
DEAL_KEYS = {"provider", "partner", "agreement", "schedule", "effective_date", "currency"}
# Optional [deal] settings: the paper, the SYNTHETIC mark, and the names the Agreement itself gives
# the two parties (the schedule then uses those names, never a second pair of its own).
DEAL_OPTIONS = {"synthetic", "paper", "provider_term", "partner_term"}
# How long each kind of Measurement Period is, as the Service Level Table says it.
PERIODS = {"month": "calendar month", "quarter": "calendar quarter", "exercise": "each Day-60 Exercise",
           "once": "once, ninety days after acceptance"}
WHOLE = ("count", "ordinal_business_day", "business_days", "days", "months", "number", "ordinal_day")


class Parameter(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: str
    type: Literal[tuple(TYPES)]  # type: ignore[valid-type]
    min: float | None = None
    max: float | None = None
    fixed: float | None = None  # a value the charter fixes: in force when the deal is silent
    fixed_note: str | None = None  # how far, if at all, a deal may tighten it
    choices: dict[str, str] | None = None  # a choice parameter's values, each with what it means
    needs: str | None = None  # a clause this parameter only matters with (required only when included)
    description: str

    @property
    def unit(self) -> str:
        return TYPES[self.type]

    @model_validator(mode="after")
    def _choices(self) -> Parameter:
        if (self.type == "choice") != bool(self.choices):
            raise ValueError("a choice parameter lists its choices, and only a choice parameter does")
        return self


class Check(BaseModel):
    """One figure a clause judges. ``floor`` and ``ceiling`` are promises against a deal
    parameter; ``trigger`` is a reporting duty whose parameter starts a remedy; ``report`` is a
    reporting duty with no threshold at all (false containment, charter 3.10.7): it names the
    figure's ``unit`` instead of a parameter, and is reported, never met or not met.

    Every check says what it is measured from (``source``, a Jinja template that may ask
    ``has(id)``) and by whom; ``period`` is its Measurement Period, ``volume`` the unit a Minimum
    Volume counts (none: no Minimum Volume may be set), and ``deemed`` whether some events under
    it are Deemed Severity 2 Incidents."""

    model_config = ConfigDict(extra="forbid")
    figure: str
    comparator: Literal["floor", "ceiling", "trigger", "report"]
    parameter: str | None = None
    unit: Literal[tuple(TYPES)] | None = None  # type: ignore[valid-type]
    label: str | None = None
    period: Literal[tuple(PERIODS)] = "month"  # type: ignore[valid-type]
    volume: str | None = None
    deemed: bool = False
    source: str
    measured_by: Literal["Provider", "Partner", "Auditor"]

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


class Paragraph(BaseModel):
    """One numbered paragraph of a clause or module: its id (others cite it as ``part.id``) and
    its text, a Jinja template; a paragraph that renders empty is left out."""

    model_config = ConfigDict(extra="forbid")
    id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]{0,24}$")
    text: str


class Clause(BaseModel):
    """A measure: its definitions, parameters and checks, and its wording, either ``text`` (its
    paragraphs separated by blank lines, cited by number) or ``paragraphs`` with ids."""

    model_config = ConfigDict(extra="forbid")
    id: str
    title: str
    section: str
    definitions: Definitions
    parameters: list[Parameter]
    checks: list[Check]
    requires: list[str] = []
    documents: list[str] = []
    text: str | None = None
    paragraphs: list[Paragraph] = []

    @model_validator(mode="after")
    def _wording(self) -> Clause:
        if (self.text is None) == (not self.paragraphs):
            raise ValueError("a clause has either text or paragraphs, not both and not neither")
        if self.text is not None:
            self.paragraphs = [Paragraph(id=str(k), text=t.strip())
                               for k, t in enumerate(re.split(r"\n\s*\n", self.text.strip()), start=1)]
        return self


class Module(BaseModel):
    """A commercial module (clauses/modules/): terms it defines, material it relies on, typed
    parameters and numbered paragraphs. ``always`` modules are in every schedule; the rest are in
    a schedule whose deal lists them under [modules] include."""

    model_config = ConfigDict(extra="forbid")
    id: str
    title: str
    summary: str
    always: bool = False
    terms: dict[str, str] = {}
    documents: list[str] = []
    parameters: list[Parameter] = []
    paragraphs: list[Paragraph]
    volume_sensitive: list[str] = []  # Service Levels (check ids) a volume above forecast can excuse


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
    language: str
    order: list[str]
    modules: list[str]
    catch_all: str
    agreement_terms: list[str] = []
    definitions: dict[str, str]
    documents: dict[str, DocumentSpec]
    precedence: str
    report: dict[str, Any] = {}  # the Monthly Report annex: the charter's elements reworded, and the schedule's own
    clauses: dict[str, Clause] = {}
    parts: dict[str, Module] = {}  # the modules, by id, in the library's order

    def parameter(self, pid: str) -> Parameter | None:
        for part in (*self.clauses.values(), *self.parts.values()):
            for p in part.parameters:
                if p.id == pid:
                    return p
        return None

    def owner(self, pid: str) -> str | None:
        """The clause or module that defines parameter ``pid``."""
        for part in (*self.clauses.values(), *self.parts.values()):
            if any(p.id == pid for p in part.parameters):
                return part.id
        return None

    def check(self, figure: str) -> tuple[Clause, Check] | None:
        """The clause and check that judge ``figure`` (a check id such as ``restore-sev1``)."""
        for clause in self.clauses.values():
            for check in clause.checks:
                if check.figure == figure:
                    return clause, check
        return None


# What a template may cite: ref('id'), has('id'), p.name and v.name.
_CITES = re.compile(r"""\b(ref|has)\(\s*['"]([^'"]+)['"]\s*\)""")
_VALUES = re.compile(r"\b[pv]\.([a-z0-9_]+)")


def load_library(folder: Path | None = None) -> Library:
    """Read ``library.yaml``, every clause file it orders and every module in ``modules/``; checks
    ids, and that every reference a template makes (a clause, module or paragraph it cites, a
    parameter it fills) names something that exists."""
    def untrusted(text: str) -> Any:
        from day60.files import loads_yaml

        return loads_yaml(text, "clauses", "a clause file", str(folder))

    parse = untrusted if folder else shipped_yaml  # the shipped library is read by libyaml, quickly
    folder = folder or data_dir("clauses")
    lib = Library.model_validate(parse((folder / "library.yaml").read_text(encoding="utf-8")))
    for kind, ids, model, where in (("clause", lib.order, Clause, ""), ("module", lib.modules, Module, "modules/")):
        for cid in ids:
            try:
                part = model.model_validate(parse((folder / f"{where}{cid}.yaml").read_text(encoding="utf-8")))
            except ValidationError as exc:
                field, msg = pydantic_problem(exc)
                raise InputError(f"clauses/{where}{cid}.yaml", f"{field}: {msg}", f"fix the {kind} file") from exc
            if part.id != cid:
                raise InputError(f"clauses/{where}{cid}.yaml", f"declares id {part.id!r}",
                                 "make the id match the file name")
            (lib.clauses if kind == "clause" else lib.parts)[cid] = part  # type: ignore[index]
    _check_library(lib)
    return lib


def _check_library(lib: Library) -> None:
    """Every cross-reference in the library resolves: parameter ids are unique, checks name their
    clause's parameters, ``ref``/``has`` name a clause, module or paragraph, ``p.x``/``v.x`` name a
    parameter, documents and volume-sensitive checks exist, and every paragraph's bookmark is unique."""
    parts: dict[str, Clause | Module] = {**lib.clauses, **lib.parts}
    ids = [p.id for part in parts.values() for p in part.parameters]
    if len(ids) != len(set(ids)):
        raise InputError("clauses", "a parameter id is used by two clauses or modules", "make parameter ids unique")
    for clause in lib.clauses.values():
        for check in clause.checks:
            if check.parameter is not None and check.parameter not in {p.id for p in clause.parameters}:
                raise InputError(f"clauses/{clause.id}.yaml", f"check {check.figure} names parameter "
                                 f"{check.parameter}, which the clause does not define", "define it or fix the check")
    known = set(parts) | {f"{pid}.{para.id}" for pid, part in parts.items() for para in part.paragraphs}
    figures = {k.figure for c in lib.clauses.values() for k in c.checks}
    texts: list[tuple[str, str]] = [("library.yaml", t) for t in (*lib.definitions.values(), lib.precedence)]
    for pid, part in parts.items():
        where = f"clauses/{'' if pid in lib.clauses else 'modules/'}{pid}.yaml"
        texts += [(where, para.text) for para in part.paragraphs]
        texts += [(where, t) for t in getattr(part, "terms", {}).values()]
        texts += [(where, k.source) for k in getattr(part, "checks", [])]
        for did in part.documents:
            if did not in lib.documents:
                raise InputError(where, f"names material {did!r}, which library.yaml does not list", "add it there")
        for p in part.parameters:
            if p.needs is not None and p.needs not in parts:
                raise InputError(where, f"parameter {p.id} needs {p.needs!r}, which is no clause or module",
                                 "fix needs")
        for figure in getattr(part, "volume_sensitive", []):
            if figure not in figures:
                raise InputError(where, f"volume_sensitive names {figure!r}, which is no check", "fix the list")
    params = set(ids)
    for where, text in texts:
        for what, target in _CITES.findall(text):
            if target not in known:
                raise InputError(where, f"{what}({target!r}) names no clause, module or paragraph",
                                 "cite an id that exists (a paragraph as clause.paragraph)")
        for name in _VALUES.findall(text):
            if name not in params:
                raise InputError(where, f"fills p.{name}, which no clause or module defines", "fix the name")
    names = [bookmark_name(k) for k in known]
    if len(names) != len(set(names)):
        raise InputError("clauses", "two clauses or paragraphs share a Word bookmark name", "shorten or rename the ids")


def bookmark_name(target: str) -> str:
    """A Word bookmark name for a clause or paragraph id: letters, digits and underscores, at most
    40, a letter first (Word's rules)."""
    return ("clause_" + re.sub(r"[^A-Za-z0-9]", "_", target))[:40]


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
    modules: list[str] = []  # the commercial modules in the schedule, in the library's order (always ones too)
    service_levels: dict[str, dict[str, Any]] = {}  # check id -> critical, minimum_volume, credit_weight

    def has(self, part: str) -> bool:
        """Whether the schedule holds clause or module ``part``."""
        return part in self.include or part in self.modules

    def term(self, role: str) -> str:
        """What the schedule calls the party in ``role`` (provider or partner): the Agreement's own name."""
        return str(self.deal.get(f"{role}_term") or role.capitalize())


# Unicode private-use characters the schedule keeps for its own marks (cross-references, values
# linked in the Word file, bookmarks): no deal may hold them.
MARKS = "\ue000-\ue007"
SERVICE_LEVEL_KEYS = {"critical", "minimum_volume", "credit_weight"}


def load_deal(path: str | Path, lib: Library, extra_parameters: set[str] = frozenset(),
              draft: bool = False) -> Deal:
    """Read and check a deal file. Every problem is named in one message; nothing is guessed.

    ``extra_parameters`` are ids other consumers accept (the rubric's targets).
    """
    data, raw = read_toml(path, "--sow", "a deal TOML file")
    return deal_from_data(data, raw, path, lib, extra_parameters, draft)


def deal_from_data(data: dict[str, Any], raw: bytes, path: str | Path, lib: Library,
                   extra_parameters: set[str] = frozenset(), draft: bool = False) -> Deal:
    """``load_deal`` on a deal file already read: ``data`` its tables, ``raw`` its bytes (hashed),
    ``path`` where it is (a calendar path is read relative to it). ``clauses diff`` runs an edited
    value through this, the deal file's own checks, before it suggests carrying the value back."""
    problems: list[str] = []
    if re.search(f"[{MARKS}]", raw.decode("utf-8", "replace")):
        problems.append("the file holds Unicode private-use characters U+E000 to U+E007, which the schedule keeps "
                        "for its own cross-references and linked values: remove them")
    deal = data.get("deal")
    if not isinstance(deal, dict):
        raise InputError("--sow", "has no [deal] table", "add [deal] with provider, partner, agreement, schedule, "
                                                         "effective_date and currency")
    for key in sorted(DEAL_KEYS - set(deal)):
        problems.append(f"deal.{key} is missing")
    if "paper" in deal and deal["paper"] not in ("A4", "Letter"):
        problems.append(f"deal.paper {str(deal['paper'])[:20]!r} is not A4 or Letter")
    for key in sorted(set(deal) - DEAL_KEYS - DEAL_OPTIONS):
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
    problems += _term_problems(lib, deal)
    for key in sorted(set(data) - {"deal", "clauses", "modules", "parameters", "calendar", "documents", "report",
                                   "service_levels"}):
        problems.append(f"{key} is not a table of a deal file (use [deal], [calendar], [clauses], [modules], "
                        "[parameters], [service_levels], [documents], [report])")
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
    section = data.get("modules", {})
    chosen = section.get("include", []) if isinstance(section, dict) and not set(section) - {"include"} else None
    if not isinstance(chosen, list) or not all(isinstance(m, str) for m in chosen):
        problems.append("modules is not a table holding include, a list of module ids (e.g. include = "
                        "[\"service-credits\"])")
        chosen = []
    meant: set[str] = set()  # modules a misspelt name was probably meant to be: what follows from them is not repeated
    for mid in chosen:
        if mid not in lib.parts:
            close = difflib.get_close_matches(mid, lib.modules, n=1)
            problems.append(f"modules.include names unknown module {mid[:60]!r} ("
                            + (f"did you mean {close[0]}? " if close else "") + f"modules: {', '.join(lib.modules)})")
            if close:
                meant.add(close[0])
    modules = [m for m in lib.modules if lib.parts[m].always or m in chosen]
    parts = [lib.clauses[c] for c in include if c in lib.clauses] + [lib.parts[m] for m in modules]
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
    for part in parts:  # values the charter fixes stand unless the deal tightens them
        for spec in part.parameters:
            if spec.fixed is not None and spec.id not in params:
                params = {**params, spec.id: spec.fixed}
    tier = tier_facts(params.get("day60_tier")) if "day60-exercise" in include else None
    missing = [p.id for part in parts for p in part.parameters
               if p.id not in params and not (p.id == "day60_notice_business_days" and tier and tier["unannounced"])
               and (p.needs is None or p.needs in include or p.needs in modules)]
    if tier is not None:
        problems += _tier_problems(tier, params)
    problems += _module_problems(lib, include, modules, params)
    live, effective = params.get("go_live_date"), deal.get("effective_date")
    if isinstance(live, dt.date) and isinstance(effective, dt.date) and live < effective:
        problems.append(f"parameters.go_live_date {live.isoformat()} is before deal.effective_date "
                        f"{effective.isoformat()}: the System cannot go live before the schedule takes effect (set the "
                        "Go-Live Date on or after it)")
    levels = data.get("service_levels", {})
    problems += _service_level_problems(lib, include, modules, params, levels)
    missing += sorted({d for part in parts for d in part.documents} - set(documents))
    if calendar is None:
        missing.append("calendar")
    if missing and not draft:
        problems.append(f"missing parameters, documents or calendar (or export with --draft): {', '.join(missing)}")
    if meant:
        follow = [p for p in problems if any(f"the {m} module" in p for m in meant)]
        problems = [p for p in problems if p not in follow] + (
            [f"({len(follow)} more problem(s) follow from the misspelt module and go once it is fixed)"]
            if follow else [])
    if problems:
        raise InputError("--sow", f"{len(problems)} problem(s): " + "; ".join(problems),
                         "fix the deal file (see 'day60 clauses list')")
    return Deal(deal=deal, parameters=params, include=include, sha256=hashlib.sha256(raw).hexdigest(),
                path=str(path), calendar=calendar, documents=documents, report_elements=added, raw=raw,
                modules=modules, service_levels={k: v for k, v in levels.items() if (lib.check(k) or (None,))[0]
                                                 is not None and lib.check(k)[0].id in include}  # type: ignore[index]
                if isinstance(levels, dict) else {})


def _term_problems(lib: Library, deal: dict[str, Any]) -> list[str]:
    """The names the Agreement gives the parties, where it gives others than Provider and Partner:
    a capitalised name, not one of this schedule's other defined terms, and not both the same."""
    problems = []
    taken = {t.casefold() for t in (*lib.definitions, *(t for m in lib.parts.values() for t in m.terms),
                                    *(d.term for d in lib.documents.values()))} - {"provider", "partner"}
    names = []
    for role in ("provider", "partner"):
        name = deal.get(f"{role}_term")
        if name is None:
            names.append(role.capitalize())
            continue
        if not isinstance(name, str) or not re.fullmatch(r"[A-Z][A-Za-z]*( [A-Z][A-Za-z]*){0,2}", name) \
                or len(name) > 30:
            problems.append(f"deal.{role}_term {str(name)[:40]!r} is not a capitalised name of up to three words "
                            "(such as \"Supplier\")")
            continue
        if name.casefold() in taken:
            problems.append(f"deal.{role}_term {name!r} is already a defined term of this schedule: the two would "
                            "collide")
        names.append(name)
    if len(names) == 2 and names[0].casefold() == names[1].casefold():
        problems.append("deal.provider_term and deal.partner_term are the same name")
    return problems


def _module_problems(lib: Library, include: list[str], modules: list[str], params: dict[str, Any]) -> list[str]:
    """Values that are each in bounds but do not fit together."""
    problems = []

    def num(pid: str) -> float | None:
        v = params.get(pid)
        return float(v) if isinstance(v, int | float) and not isinstance(v, bool) else None

    pairs = (("credit_missed_share_percent", "credit_critical_share_percent",
              "a figure beyond its Critical Level must not be credited less than a smaller miss"),
             ("repeat_miss_count", "repeat_miss_months", "there cannot be more misses than months"),
             ("day60_opens_day", "day60_closes_day", "the exercise cannot close before it opens"))
    for low, high, why in pairs:
        a, b = num(low), num(high)
        if a is not None and b is not None and a > b:
            problems.append(f"parameters.{low} ({a:g}) is more than parameters.{high} ({b:g}): {why}")
    if params.get("credits_remedy") == "sole-except-critical" and "service-credits" in modules \
            and "critical-failures" not in modules:
        problems.append("parameters.credits_remedy is sole-except-critical, which needs the critical-failures module "
                        "(add it to modules.include, or choose sole or not-sole)")
    return problems


def _service_level_problems(lib: Library, include: list[str], modules: list[str], params: dict[str, Any],
                            levels: Any) -> list[str]:
    """The deal's [service_levels] table: check id = { critical, minimum_volume, credit_weight }.
    A Critical Level lies beyond the target, in the target's unit and bounds, and needs a module
    that gives it a consequence; a Minimum Volume is a whole count of the unit the check names; a
    Credit Weight is a percent and needs the service-credits module."""
    if not isinstance(levels, dict):
        return ["service_levels is not a table of check id = { critical = ..., minimum_volume = ..., "
                "credit_weight = ... }"]
    problems = []
    for figure, entry in levels.items():
        where = f"service_levels.{str(figure)[:40]}"
        found = lib.check(figure)
        if found is None:
            problems.append(f"{where} names no check (see 'day60 comply --list-checks')")
            continue
        clause, check = found
        if clause.id not in include:  # as with its parameters, kept for when the clause comes back
            continue
        if check.comparator not in ("floor", "ceiling"):
            problems.append(f"{where} is a reporting duty, not a Service Level: it takes no critical level, "
                            "minimum volume or credit weight")
            continue
        if not isinstance(entry, dict) or not entry:
            problems.append(f"{where} is not a table such as {{ critical = 90, minimum_volume = 200 }}")
            continue
        for key in sorted(set(entry) - SERVICE_LEVEL_KEYS):
            problems.append(f"{where}.{str(key)[:40]} is not a service level setting (critical, minimum_volume, "
                            "credit_weight)")
        spec = next(p for p in clause.parameters if p.id == check.parameter)
        if "critical" in entry:
            value, target = entry["critical"], params.get(spec.id)
            # A value the charter fixes (100 percent completeness) bounds the target, not the
            # Critical Level beyond it: that is bounded by its unit alone.
            bounds = spec if spec.fixed is None else spec.model_copy(update={
                "min": 0 if spec.type == "percent" else None, "max": 100 if spec.type == "percent" else None})
            problem = "takes no Critical Level (a tier)" if spec.type == "tier" else _check_value(bounds, value)
            if problem:
                problems.append(f"{where}.critical {problem}")
            elif isinstance(target, int | float) and not isinstance(target, bool) and (
                    value >= target if check.comparator == "floor" else value <= target):
                word = "below" if check.comparator == "floor" else "above"
                problems.append(f"{where}.critical {value:g} is not {word} the target {target:g}: a Critical Level "
                                f"lies beyond the target ({word} a {check.comparator})")
            if not {"service-credits", "critical-failures"} & set(modules):
                problems.append(f"{where}.critical has no consequence without the service-credits or "
                                "critical-failures module (add one to modules.include)")
        if "minimum_volume" in entry:
            value = entry["minimum_volume"]
            if check.volume is None:
                problems.append(f"{where}.minimum_volume: this Service Level is not a rate over a volume, so it "
                                "takes no Minimum Volume")
            elif isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 10**9:
                problems.append(f"{where}.minimum_volume {str(value)[:40]!r} is not a whole count of "
                                f"{check.volume} from 1")
        if "credit_weight" in entry:
            value = entry["credit_weight"]
            if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= 100:
                problems.append(f"{where}.credit_weight {str(value)[:40]!r} is not a percent of the At-Risk Amount "
                                "above 0 and at most 100")
            if "service-credits" not in modules:
                problems.append(f"{where}.credit_weight needs the service-credits module (add it to modules.include)")
    return problems


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
    if spec.type == "choice":
        choices = spec.choices or {}
        return None if isinstance(value, str) and value in choices else \
            f"is {str(value)[:40]!r}, not one of {', '.join(choices)}"
    if spec.type == "date":
        if isinstance(value, dt.datetime) or not isinstance(value, dt.date | str):
            return f"is {str(value)[:40]!r}, not a date (YYYY-MM-DD)"
        try:
            dt.date.fromisoformat(value) if isinstance(value, str) else value
        except ValueError:
            return f"is {value[:40]!r}, not a date (YYYY-MM-DD)"
        return None
    if spec.type == "text":
        if not isinstance(value, str) or not value.strip() or len(value) > 200 or re.search(r"[\n\r\t]", value):
            return f"is {str(value)[:40]!r}, not one line of text of up to 200 characters"
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return f"is {str(value)[:40]!r}, not a number of {spec.unit}"
    if spec.type in WHOLE and value != int(value):
        whole = spec.unit if spec.unit.startswith("a whole") else f"a whole number of {spec.unit}"
        return f"is {value!r}, not {whole}"
    if spec.min is not None and value < spec.min:
        return f"is {value:g}, below the least allowed {spec.min:g} {spec.unit}"
    if spec.max is not None and value > spec.max:
        return f"is {value:g}, above the most allowed {spec.max:g} {spec.unit}"
    return None


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def show_value(spec: Parameter, value: Any, currency: str = "") -> str:
    """A parameter value as it reads in a clause (rounded for display only)."""
    if spec.type in ("tier", "text"):
        return str(value)
    if spec.type == "choice":
        return (spec.choices or {}).get(value, str(value))
    if spec.type == "date":
        day = value if isinstance(value, dt.date) else dt.date.fromisoformat(str(value))
        return f"{day.day} {day:%B %Y}"
    if spec.type == "percent":
        return f"{value:g} percent"
    if spec.type == "money":
        return f"{currency} {value:.4g}".strip()
    if spec.type == "count":
        n = int(value)
        return {1: "once", 2: "twice"}.get(n, f"{n} times")
    if spec.type == "number":
        return str(int(value))
    if spec.type == "ordinal_business_day":
        return f"{_ordinal(int(value))} Business Day"
    if spec.type == "ordinal_day":
        return f"{_ordinal(int(value))} day"
    if spec.type == "ratio":
        return f"{value:g}"
    unit = spec.unit
    if value == 1 and unit.endswith("s"):
        unit = unit[:-1]
    return f"{value:g} {unit}"


def read_value(spec: Parameter, shown: str) -> Any:
    """The deal value a displayed parameter stands for (``show_value`` read back), or None where
    ``shown`` is not a value of ``spec``'s kind: what ``clauses diff`` turns an edit into."""
    text = " ".join(shown.split())
    if spec.type == "tier":
        found = re.search(r"\bT[1-5]\b", text)
        return found.group() if found else None
    if spec.type == "text":
        return text or None
    if spec.type == "choice":
        for key, label in (spec.choices or {}).items():
            if text.casefold() in (key.casefold(), label.casefold()):
                return key
        return None
    if spec.type == "date":
        try:
            return dt.datetime.strptime(text, "%d %B %Y").date()
        except ValueError:
            try:
                return dt.date.fromisoformat(text)
            except ValueError:
                return None
    if spec.type == "count":
        words = {"once": 1, "twice": 2}
        if text.casefold() in words:
            return words[text.casefold()]
    found = re.search(r"-?\d+(?:[.,]\d+)*(?:\.\d+)?", text)
    if found is None:
        return None
    number = float(found.group().replace(",", ""))
    return int(number) if spec.type in WHOLE or (number.is_integer() and spec.type != "ratio") else number


# ----- the schedule --------------------------------------------------------------------------


# Marks the Word export turns into live fields; every other export prints only the words (``plain``).
# A cross-reference: REF_OPEN target REF_TEXT "clause 3" REF_CLOSE (a REF field to the target's
# bookmark). A value from the deal: VAL_OPEN name VAL_TEXT "95 percent" VAL_CLOSE (a DOCPROPERTY
# field showing the document property ``name``, so a value edited once changes everywhere it is
# shown). The characters are Unicode private-use ones, which no clause or deal text may hold.
REF_OPEN, REF_TEXT, REF_CLOSE = "\ue000", "\ue001", "\ue002"
VAL_OPEN, VAL_TEXT, VAL_CLOSE = "\ue005", "\ue006", "\ue007"
_MARK = re.compile(f"([{REF_OPEN}{VAL_OPEN}])([^{REF_TEXT}{VAL_TEXT}]*)[{REF_TEXT}{VAL_TEXT}]"
                   f"([^{REF_CLOSE}{VAL_CLOSE}]*)[{REF_CLOSE}{VAL_CLOSE}]")


def plain(text: str) -> str:
    """Text with its marks as the words they print."""
    return _MARK.sub(lambda m: m.group(3), text)


def ref_parts(text: str) -> list[tuple[str | None, str | None, str]]:
    """Marked text as (kind, target, words) pieces in order, kind "ref" (a cross-reference to a
    clause or paragraph), "value" (a value from the deal, by document property name) or None
    (plain words): what the Word export turns into runs and fields."""
    out: list[tuple[str | None, str | None, str]] = []
    at = 0
    for m in _MARK.finditer(text):
        if m.start() > at:
            out.append((None, None, text[at:m.start()]))
        out.append(("ref" if m.group(1) == REF_OPEN else "value", m.group(2), m.group(3)))
        at = m.end()
    if at < len(text):
        out.append((None, None, text[at:]))
    return out


def _value_mark(name: str, words: str) -> str:
    return f"{VAL_OPEN}{name}{VAL_TEXT}{words}{VAL_CLOSE}"


def _ref_mark(target: str, words: str) -> str:
    return f"{REF_OPEN}{target}{REF_TEXT}{words}{REF_CLOSE}"


@functools.lru_cache(maxsize=512)
def _clause_template(text: str) -> Any:
    """A clause text compiled once per process (a schedule renders each paragraph twice, plain and
    marked for Word, and the demo again), in a sandbox."""
    return SandboxedEnvironment(autoescape=False, keep_trailing_newline=False).from_string(text)


def _render(text: str, ctx: dict[str, Any]) -> str:
    return " ".join(_clause_template(text).render(**ctx).split())


def tier_facts(tier_id: Any, published: Any = None) -> dict[str, Any] | None:
    """What the rubric says a Day-60 tier runs, for the clause text and the deal's checks."""
    from day60 import rubric

    published = published or rubric.load()
    tier = published.tiers.get(tier_id) if isinstance(tier_id, str) else None
    if tier is None:
        return None
    points = sum(line.points for line in published.lines if line.section in tier.sections)
    return {"id": tier_id, **tier.model_dump(), "max_points": points}


def blanks(part: Clause | Module) -> dict[str, str]:
    return {p.id: f"[{p.id}: {p.unit}]" for p in part.parameters}


class _Numbers:
    """Where everything in one schedule is: clause numbers (measures first, then modules) and the
    number of each paragraph kept ("3.2", or None where its clause has a single paragraph)."""

    def __init__(self, lib: Library, parts: list[str]) -> None:
        self.lib = lib
        self.clause = {pid: n for n, pid in enumerate(parts, start=1)}
        self.paragraph: dict[str, str | None] = {}

    def ref(self, marked: bool) -> Any:
        def ref(target: str) -> str:
            part, _, para = target.partition(".")
            if part not in self.clause:
                if part in self.lib.clauses and not para:
                    return f"the {self.lib.clauses[part].title.lower()} clause (not part of this schedule)"
                raise ValueError(f"the schedule cites {target}, which it does not hold")
            if para and target not in self.paragraph:
                raise ValueError(f"the schedule cites paragraph {target}, which this deal's schedule leaves out")
            number = self.paragraph.get(target) if para else None
            words = str(number or self.clause[part])
            return "clause " + (_ref_mark(target if number else part, words) if marked else words)

        return ref


def _parties(text: str, deal: Deal) -> str:
    """Library text with the parties under the names the Agreement gives them."""
    names = {"Provider": deal.term("provider"), "Partner": deal.term("partner")}
    if names == {"Provider": "Provider", "Partner": "Partner"}:
        return text
    return re.sub(r"\b(Provider|Partner)\b", lambda m: names[m.group(1)], text)


def _context(lib: Library, deal: Deal, numbers: _Numbers, values: dict[str, str], tier: Any, rubric_name: str,
             marked: bool) -> dict[str, Any]:
    ref = numbers.ref(marked)
    volume = [f"the {c.title.lower()} Service Level ({ref(c.id)})" for m in deal.modules
              for figure in lib.parts[m].volume_sensitive
              for c, _ in [lib.check(figure) or (None, None)] if c is not None and c.id in deal.include]
    return {"p": values, "v": {p: deal.parameters.get(p) for p in values}, "ref": ref, "has": deal.has,
            "tier": tier, "rubric": rubric_name, "included": set(deal.include) | set(deal.modules),
            "calendar": deal.calendar is not None,
            "volume_levels": " and ".join(volume) if volume else "no Service Level of this schedule"}


def _values(parts: list[Clause | Module], deal: Deal, tier: Any, marked: bool) -> tuple[dict[str, str], list[str]]:
    """Each parameter of the schedule's clauses and modules as it reads (a named blank where the
    deal has none, marked for Word where ``marked``), and those left unfilled."""
    currency = str(deal.deal.get("currency", ""))
    values, unfilled = {}, []
    for part in parts:
        for p in part.parameters:
            if p.needs is not None and not deal.has(p.needs):
                continue
            if p.id in deal.parameters:
                shown = _parties(show_value(p, deal.parameters[p.id], currency), deal)
            elif p.id == "day60_notice_business_days" and tier and tier["unannounced"]:
                shown = f"not used: tier {tier['id']} is unannounced"
            else:
                shown = f"[{p.id}: {p.unit}]"
                unfilled.append(p.id)
            values[p.id] = _value_mark(p.id, shown) if marked else shown
    return values, unfilled


def clause_text(lib: Library, clause: Clause | Module, values: dict[str, str], numbers: dict[str, int],
                rubric_name: str = "[rubric: id, version and SHA-256]", tier: dict[str, Any] | None = None) -> str:
    """A clause's or module's wording on its own (``clauses show``): its paragraphs with ``values``
    filled in, numbered as in a schedule holding every clause and module of the library."""
    deal = Deal(deal={}, parameters={}, include=list(lib.order), sha256="", path="", modules=list(lib.modules))
    where = _Numbers(lib, [*lib.order, *lib.modules])
    every = {p.id: f"[{p.id}: {p.unit}]" for part in (*lib.clauses.values(), *lib.parts.values())
             for p in part.parameters}
    ctx = _context(lib, deal, where, {**every, **values}, tier, rubric_name, marked=False)
    for part in (*lib.clauses.values(), *lib.parts.values()):
        kept = [para for para in part.paragraphs if _render(para.text, {**ctx, "ref": lambda target: "clause ?"})]
        for k, para in enumerate(kept, start=1):
            where.paragraph[f"{part.id}.{para.id}"] = f"{where.clause[part.id]}.{k}" if len(kept) > 1 else None
    return "\n\n".join(f"{where.paragraph[f'{clause.id}.{para.id}'] or ''} {_render(para.text, ctx)}".strip()
                       for para in clause.paragraphs if f"{clause.id}.{para.id}" in where.paragraph)


def _calendar_rows(table: dict[str, Any] | None, holidays: list[dict[str, str]] | None = None
                   ) -> list[tuple[str, str]]:
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
    if h and holidays:
        place = f"{h['country']}{' / ' + h['subdivision'] if h.get('subdivision') else ''}"
        years = f"{holidays[0]['date'][:4]} to {holidays[-1]['date'][:4]}"
        rows.append(("Public holidays", f"the {len(holidays)} dates for {place} listed in the public holidays annex "
                                        f"({years}); for a later year, the public holidays officially declared for "
                                        f"{place}, recorded in writing by the parties before that year begins or, "
                                        "failing such a record, as the government of that place declares them"))
    else:
        rows.append(("Public holidays", "none"))
    rows.append(("Closures", ", ".join(str(c) for c in table.get("closures", [])) or "none"))
    return rows


def _holidays(deal: Deal) -> list[dict[str, str]]:
    """The public holidays the schedule lists, fixed as dates: the deal's own resolved dates where
    its calendar holds them, else the holidays package's for the effective date's year and the two
    after it (a later release of the package cannot move a date the parties signed)."""
    if deal.calendar is None or not (deal.calendar.get("holidays") or {}).get("country"):
        return []
    from day60.clock import BusinessCalendar

    cal = BusinessCalendar.from_dict(deal.calendar)
    fixed = (deal.calendar.get("holidays") or {}).get("resolved")
    if not fixed:
        effective = deal.deal.get("effective_date")
        year = effective.year if isinstance(effective, dt.date) else dt.date.today().year
        fixed = cal.with_resolved_holidays(dt.date(year, 1, 1), dt.date(year + 2, 12, 31))["holidays"]["resolved"]
    return [{"date": day, "weekday": f"{dt.date.fromisoformat(day):%A}", "name": name}
            for day, name in sorted(fixed.get("dates", {}).items())]


def _target_words(check: Check, spec: Parameter, shown: str) -> str:
    if spec.type == "ordinal_business_day":
        return f"by the {shown}"
    return f"{'at least' if check.comparator == 'floor' else 'at most'} {shown}"


def _service_level_rows(lib: Library, deal: Deal, numbers: _Numbers, values: dict[str, dict[str, str]],
                        ctx: dict[str, Any]) -> list[dict[str, Any]]:
    """The Service Level Table: one row per floor or ceiling check of the schedule's measures,
    with plain and marked (for Word) forms of every value the deal gives it."""
    currency = str(deal.deal.get("currency", ""))
    rows = []
    for cid in deal.include:
        clause = lib.clauses[cid]
        for check in clause.checks:
            if check.comparator not in ("floor", "ceiling"):
                continue
            spec = next(p for p in clause.parameters if p.id == check.parameter)
            level = deal.service_levels.get(check.figure, {})
            row: dict[str, Any] = {"clause": numbers.clause[cid],
                                   "clause_marked": _ref_mark(cid, str(numbers.clause[cid])),
                                   "check": check.figure, "measure": check.label or clause.title,
                                   "comparator": check.comparator, "period": PERIODS[check.period],
                                   "measured_by": _parties(deal.term(check.measured_by.lower())
                                                           if check.measured_by != "Auditor" else "Auditor", deal),
                                   "source": _parties(_render(check.source, ctx), deal),
                                   "volume_unit": check.volume}
            entries = {"target": (spec.id, values["plain"].get(spec.id, f"[{spec.id}: {spec.unit}]")),
                       "critical": (f"{check.figure}.critical", show_value(spec, level["critical"], currency)
                                    if "critical" in level else None),
                       "minimum_volume": (f"{check.figure}.minimum_volume",
                                          f"{level['minimum_volume']:,} {check.volume}"
                                          if "minimum_volume" in level else None),
                       "credit_weight": (f"{check.figure}.credit_weight", f"{level['credit_weight']:g} percent"
                                         if "credit_weight" in level else None)}
            for key, (name, shown) in entries.items():
                if shown is None:
                    row[key] = row[f"{key}_marked"] = "none"
                    continue
                mark = values["marked"].get(name) if key == "target" else _value_mark(name, shown)
                if key == "target":
                    row[key], row[f"{key}_marked"] = (_target_words(check, spec, shown),
                                                      _target_words(check, spec, mark or shown))
                elif key == "critical":
                    word = "below" if check.comparator == "floor" else "above"
                    row[key], row[f"{key}_marked"] = f"{word} {shown}", f"{word} {mark}"
                else:
                    row[key], row[f"{key}_marked"] = shown, mark
                if key != "target":
                    row.setdefault("linked", {})[name] = shown
            rows.append(row)
    return rows


def _used(term: str, texts: list[str]) -> bool:
    pattern = re.compile(rf"\b{re.escape(term)}(s|es)?\b")
    return any(pattern.search(t) for t in texts)


def schedule(lib: Library, deal: Deal, draft: bool = False) -> dict[str, Any]:
    """The schedule as data: title block, definitions, numbered clauses (the measures, then the
    commercial modules, each paragraph numbered where a clause has several), the Service Level
    Table, the parameter table, the annexes and the provenance. Each text comes plain and, for the
    Word export, ``marked`` (cross-references and deal values as marks ``ref_parts`` reads)."""
    from day60 import rubric

    published = rubric.load()
    rubric_name = f"{published.id} {published.version} (SHA-256 {published.sha256})"
    parts: list[Clause | Module] = [lib.clauses[c] for c in deal.include] + [lib.parts[m] for m in deal.modules]
    numbers = _Numbers(lib, [p.id for p in parts])
    tier = tier_facts(deal.parameters.get("day60_tier"), published)
    shown, unfilled = _values(parts, deal, tier, marked=False)
    marked_values, _ = _values(parts, deal, tier, marked=True)
    ctx = {m: _context(lib, deal, numbers, v, tier, rubric_name, m) for m, v in ((False, shown), (True, marked_values))}
    kept: dict[str, list[Paragraph]] = {}
    for part in parts:  # which paragraphs say anything for this deal, and so how they are numbered
        kept[part.id] = [para for para in part.paragraphs
                         if _render(para.text, {**ctx[False], "ref": lambda target: "clause ?"})]
        for k, para in enumerate(kept[part.id], start=1):
            many = len(kept[part.id]) > 1
            numbers.paragraph[f"{part.id}.{para.id}"] = f"{numbers.clause[part.id]}.{k}" if many else None
    clauses_out, modules_out = [], []
    for part in parts:
        n = numbers.clause[part.id]
        paragraphs = [{"id": f"{part.id}.{para.id}", "number": numbers.paragraph[f"{part.id}.{para.id}"],
                       "text": _parties(_render(para.text, ctx[False]), deal),
                       "marked": _parties(_render(para.text, ctx[True]), deal)} for para in kept[part.id]]
        item = {"number": n, "id": part.id, "title": part.title, "paragraphs": paragraphs,
                "text": "\n\n".join(q["text"] for q in paragraphs),
                "marked": "\n\n".join(q["marked"] for q in paragraphs)}
        if isinstance(part, Clause):
            item.update(section=part.section, requires=part.requires,
                        definitions={k: _parties(v, deal) for k, v in part.definitions.model_dump().items()},
                        documents=[lib.documents[d].term for d in part.documents])
            clauses_out.append(item)
        else:
            modules_out.append(item)
    levels = _service_level_rows(lib, deal, numbers, {"plain": shown, "marked": marked_values}, ctx[False])
    terms = {**lib.definitions, **{t: x for m in deal.modules for t, x in lib.parts[m].terms.items()}}
    defined = {}
    for term, text in terms.items():
        meaning = _render(text, ctx[False])
        if meaning:
            defined[_parties(term, deal)] = (_parties(meaning, deal), _parties(_render(text, ctx[True]), deal))
    body = [q["text"] for c in (*clauses_out, *modules_out) for q in c["paragraphs"]]
    body += [v for c in clauses_out for v in c["definitions"].values()] + [_parties(lib.precedence, deal)]
    body += [r["source"] for r in levels]
    while True:  # a definition no other text uses is left out (its own text does not count)
        kept = ("Agreement", deal.term("provider"), deal.term("partner"))
        unused = [t for t in defined if t not in kept and not _used(
            t, body + [m for u, (m, _) in defined.items() if u != t])]
        if not unused:
            break
        for t in unused:
            del defined[t]
    body += [m for m, _ in defined.values()]
    used_docs = [d for d in lib.documents if any(d in part.documents for part in parts)
                 or _used(lib.documents[d].term, body)]
    said = {c["id"]: c["text"] for c in (*clauses_out, *modules_out)}
    documents = [{"term": lib.documents[d].term, "what": _parties(lib.documents[d].what, deal),
                  "reference": deal.documents.get(d), "supplied": False,
                  "clauses": [numbers.clause[p.id] for p in parts
                              if d in p.documents or _used(lib.documents[d].term, [said[p.id]])]}
                 for d in used_docs]
    if deal.has("day60-exercise"):
        documents.append({"term": "Day-60 Rubric", "supplied": True, "reference": rubric_name,
                          "what": "the published rubric a Day-60 Exercise is scored against: its lines, their points "
                                  "and how a figure earns them, and its tiers",
                          "clauses": [numbers.clause["day60-exercise"]]})
    for d in documents:
        d["clauses_marked"] = ", ".join(_ref_mark(next(p.id for p in parts if numbers.clause[p.id] == n), str(n))
                                        for n in d["clauses"])
    unfilled += [lib.documents[d].term for d in used_docs if d not in deal.documents]
    if deal.calendar is None:
        unfilled.append("business calendar")
    if unfilled and not draft:
        raise InputError("--sow", f"unfilled: {', '.join(unfilled)}", "fill them or export with --draft")
    table = []
    for part in parts:
        for p in part.parameters:
            if p.id not in shown:
                continue
            table.append({"clause": numbers.clause[part.id],
                          "clause_marked": _ref_mark(part.id, str(numbers.clause[part.id])),
                          "id": p.id, "type": p.type, "unit": p.unit, "value": shown[p.id],
                          "value_marked": marked_values[p.id], "filled": p.id not in unfilled,
                          "description": _parties(p.description, deal),
                          "fixed": p.fixed_note if p.fixed is not None else None})
    from day60.resources import report_elements

    wording = lib.report.get("wording", {})
    elements = [{"id": e["id"], "what": _parties(wording.get(e["id"], e["what"]), deal),
                 "source": f"charter {e.get('section', '')}".strip()} for e in report_elements()]
    # What this schedule's own clauses and modules require the Monthly Report to contain.
    elements += [{"id": e["id"], "what": _parties(e["what"], deal), "source": f"clause {numbers.clause[e['needs']]}"}
                 for e in lib.report.get("elements", []) if e["needs"] in numbers.clause]
    elements += [{"id": k, "what": v, "source": "this schedule"} for k, v in deal.report_elements.items()]
    holidays = _holidays(deal)
    linked = {p["id"]: p["value"] for p in table}
    for row in levels:
        linked.update(row.pop("linked", {}))
    return {"deal": {k: str(v) for k, v in deal.deal.items()},
            "parties": [{"role": role, "term": deal.term(role), "name": str(deal.deal.get(role, ""))}
                        for role in ("provider", "partner")],
            "catch_all": lib.catch_all, "precedence": _parties(lib.precedence, deal),
            "agreement_terms": [t for t in lib.agreement_terms if _used(t, body)],
            "definitions": {t: m for t, (m, _) in sorted(defined.items(), key=lambda x: x[0].casefold())},
            "definitions_marked": {t: m for t, (_, m) in sorted(defined.items(), key=lambda x: x[0].casefold())},
            "paper": paper_size(deal), "language": lib.language,
            "calendar": _calendar_rows(deal.calendar, holidays), "holidays": holidays, "documents": documents,
            "report_elements": elements if "report-completeness" in numbers.clause else [],
            "report_clause": numbers.clause.get("report-completeness"),
            "report_clause_marked": numbers.ref(True)("report-completeness")
            if "report-completeness" in numbers.clause else "",
            "clauses": clauses_out, "modules": modules_out, "service_levels": levels,
            "service_levels_clause": numbers.clause.get("service-levels"),
            "credits": deal.has("service-credits"), "parameters": table, "linked": linked,
            "unfilled": unfilled, "draft": draft, "synthetic": bool(deal.deal.get("synthetic")),
            "library": {"id": lib.id, "version": lib.version, "charter": lib.charter},
            "sections": [c["section"] for c in clauses_out], "sow_sha256": deal.sha256}


# ----- compliance ----------------------------------------------------------------------------


# Where Letter paper is the norm (the rest of the world prints contracts on A4).
LETTER_COUNTRIES = {"US", "CA", "MX", "PH", "CL", "CO", "VE", "PR", "GT", "CR", "PA", "DO", "SV", "HN", "NI"}


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


def calendar_differs(deal: Deal | None, header: dict[str, Any]) -> bool:
    """True when a deal's business calendar is not the one a journal's header carries (compared as
    defined: the holiday dates a header resolved for its window are left out). The journal's own
    calendar computes its figures, so the journal alone reproduces them; comply judges business
    hours and report delivery days on the deal's."""
    def plain(table: dict[str, Any]) -> dict[str, Any]:
        holidays = {k: v for k, v in (table.get("holidays") or {}).items() if k != "resolved"}
        return {**table, "holidays": holidays} if holidays else {k: v for k, v in table.items() if k != "holidays"}

    return deal is not None and deal.calendar is not None and plain(deal.calendar) != plain(header["calendar"])


def credit_weights_note(deal: Deal) -> str | None:
    """A note when the deal's Credit Weights add up to more than 100 percent of the At-Risk Amount:
    a month's Service Credits never pass 100 percent of it, so the weights overstate what a month
    missing most Service Levels is credited. None when they add up to 100 or less."""
    weights = sum(float(v.get("credit_weight", 0)) for v in deal.service_levels.values())
    if weights <= 100:
        return None
    return (f"the Credit Weights add up to {weights:g} percent of the At-Risk Amount; a month's Service Credits never "
            "pass 100 percent of it, so a month missing most Service Levels credits less than their weights say")


def listing(lib: Library) -> list[dict[str, Any]]:
    """Every clause, then every commercial module, as ``day60 clauses list`` gives them: id, kind
    (measure, module, or module (always) for one every schedule carries), title, charter section
    (a clause's), a module's summary, and each typed parameter with its unit, bounds, description
    and any choices."""
    rows = [{"id": c.id, "kind": "measure", "title": c.title, "section": c.section,
             "parameters": [{"id": p.id, "type": p.type, "unit": p.unit, "min": p.min, "max": p.max,
                             "description": p.description} for p in c.parameters]}
            for c in lib.clauses.values()]
    rows += [{"id": m.id, "kind": "module" if not m.always else "module (always)", "title": m.title, "section": None,
              "summary": m.summary,
              "parameters": [{"id": p.id, "type": p.type, "unit": p.unit, "min": p.min, "max": p.max,
                              "description": p.description, **({"choices": p.choices} if p.choices else {})}
                             for p in m.parameters]} for m in lib.parts.values()]
    return rows


def duties(lib: Library) -> set[str]:
    """The clauses that are reporting duties only: every check of theirs is reported, none has a
    threshold (so no parameter is theirs to set)."""
    return {c.id for c in lib.clauses.values() if all(k.comparator == "report" for k in c.checks)}


def part(lib: Library, part_id: str) -> Clause | Module:
    """A clause or commercial module by id; an id that is neither is refused, suggesting the
    closest."""
    if part_id not in lib.clauses and part_id not in lib.parts:
        close = difflib.get_close_matches(part_id, [*lib.clauses, *lib.parts], n=1)
        raise InputError("ID", f"{part_id[:60]!r} is not a clause or module",
                         (f"did you mean {close[0]}? " if close else "") + "see 'day60 clauses list'")
    return lib.clauses.get(part_id) or lib.parts[part_id]


def check_ids(lib: Library, deal: Deal | None = None) -> list[dict[str, Any]]:
    """Every check a figures file may name: its id, clause, unit, comparator and the deal's threshold."""
    out = []
    for cid in (deal.include if deal else lib.order):
        clause = lib.clauses[cid]
        for check in clause.checks:
            if check.comparator == "report":  # a reporting duty: no parameter, no threshold
                out.append({"check": check.figure, "clause": cid, "unit": TYPES[check.unit], "comparator": "report",
                            "parameter": None, "threshold": None, "period": check.period, "critical": None,
                            "minimum_volume": None, "credit_weight": None})
                continue
            spec = next(p for p in clause.parameters if p.id == check.parameter)
            level = deal.service_levels.get(check.figure, {}) if deal else {}
            out.append({"check": check.figure, "clause": cid, "unit": spec.unit, "comparator": check.comparator,
                        "parameter": spec.id, "threshold": deal.parameters.get(spec.id) if deal else None,
                        "period": check.period, "critical": level.get("critical"),
                        "minimum_volume": level.get("minimum_volume"), "credit_weight": level.get("credit_weight")})
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
    unknown = sorted(set(figures) - known - {"period"})
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
    deemed = {c.figure for clause in lib.clauses.values() for c in clause.checks if c.deemed}
    wrong = [k for k, v in sorted(figures.items()) if isinstance(v, dict) and v.get("deemed") is not None
             and k not in deemed]
    if wrong:  # a Deemed Severity 2 Incident exists only where a clause says which events are one
        raise InputError("--figures", f"{', '.join(k[:40] for k in wrong)} give(s) a deemed count, but no clause makes "
                                      "an event under that check a Deemed Severity 2 Incident",
                         f"remove deemed there (checks that have them: {', '.join(sorted(deemed))})")
    rows = []
    for cid in deal.include:
        clause = lib.clauses[cid]
        for check in clause.checks:
            rows.append(_check(lib, clause, check, deal, figures.get(check.figure), source))
    if scope:
        _scope(rows, deal, scope)
    _minimum_volumes(lib, deal, rows)
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


def _minimum_volumes(lib: Library, deal: Deal, rows: list[dict[str, Any]]) -> None:
    """A Service Level whose figure rests on fewer units than its Minimum Volume is not judged in
    the period (the service-levels clause): met or not met becomes not run, with the reason."""
    for row in rows:
        least = deal.service_levels.get(row["check"], {}).get("minimum_volume")
        if least is None or row["status"] not in ("met", "not met") or not isinstance(row["n"], int | float):
            continue
        if row["n"] < least:
            unit = lib.check(row["check"])[1].volume  # type: ignore[index]
            row.update(status="not run", reason=f"not judged: {row['n']:g} {unit} measured, fewer than the Minimum "
                                                f"Volume of {least:,} (the figure is still reported)")


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
    if isinstance(figure, dict) and figure.get("ranges") and check.comparator in ("floor", "ceiling"):
        return _ranged(row, figure, check.comparator, float(threshold), unit_type, currency)
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
    # Rounded, a breach could read as the threshold itself ("95.0 percent" against a floor of 95):
    # the figure is shown with as many decimals as keep it on the side of the line it fell (3.1.5).
    display = _display(unit_type, value, currency, line=(float(threshold), check.comparator))
    row.update(value=value, n=n, display=display, status="met" if ok else "not met")
    if not ok:
        word = "below the floor" if check.comparator == "floor" else "above the ceiling"
        row["reason"] = f"{value!r} is {word} of {threshold:g} (judged unrounded)"
    return row


def _ranged(row: dict[str, Any], figure: dict[str, Any], comparator: str, threshold: float, unit_type: str,
            currency: str) -> dict[str, Any]:
    """A worst case (the largest of a ceiling's figures, the smallest of a floor's) where some items
    are known only as a range (``figure["ranges"]``: id, at_least, at_most or None, why): not met
    when even the most favourable reading of one of them breaks the threshold; met only when even
    the least favourable reading of every one of them meets it; otherwise not evidenced, never met."""
    unit = TYPES.get(unit_type, unit_type)

    def shown(v: float) -> str:
        return _display(unit_type, v, currency).removesuffix(f" {unit}")

    def span(r: dict[str, Any]) -> str:
        return (f"{r['id']} at least {shown(r['at_least'])} {unit}" if r["at_most"] is None
                else f"{r['id']} between {shown(r['at_least'])} and {shown(r['at_most'])} {unit}")

    ranges, exact = figure["ranges"], figure.get("value")
    ceiling = comparator == "ceiling"
    broken = [r for r in ranges if (r["at_least"] > threshold if ceiling else
                                    r["at_most"] is not None and r["at_most"] < threshold)]
    exact_ok = exact is None or (float(exact) <= threshold if ceiling else float(exact) >= threshold)
    if broken or not exact_ok:
        worst = max([r["at_least"] for r in broken] + ([float(exact)] if exact is not None else [])) if ceiling \
            else min([r["at_most"] for r in broken] + ([float(exact)] if exact is not None else []))
        side = "above the ceiling" if ceiling else "below the floor"
        why = "; ".join(f"{span(r)}, {side} of {threshold:g} even read in the supplier's favour ({r['why']})"
                        for r in broken)
        row.update(value=worst, n=figure.get("n"), status="not met", display=_display(unit_type, worst, currency),
                   reason="; ".join(filter(None, [why, None if exact_ok else
                                                  f"{float(exact)!r} is {side} of {threshold:g} (judged unrounded)"])))
        return row
    ends = [r["at_most"] if ceiling else r["at_least"] for r in ranges]
    if all(e is not None and (e <= threshold if ceiling else e >= threshold) for e in ends):
        worst = max([*ends, *([float(exact)] if exact is not None else [])]) if ceiling \
            else min([*ends, *([float(exact)] if exact is not None else [])])
        row.update(value=worst, n=figure.get("n"), status="met",
                   display=f"{'at most' if ceiling else 'at least'} {_display(unit_type, worst, currency)}",
                   reason="met however the unrecorded instants fall: " + "; ".join(span(r) for r in ranges))
        return row
    word = figure.get("undecided") or "not evidenced"
    row.update(value=exact, n=figure.get("n"), status="not run", display=word,
               reason=f"{word}: " + "; ".join(f"{span(r)} ({r['why']})" for r in ranges)
               + f": the range lies on both sides of {threshold:g}, so the clause is neither met nor broken")
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


def _display(unit_type: str, value: float, currency: str, line: tuple[float, str] | None = None) -> str:
    """A figure for a person: rates to one decimal, money to four significant figures (charter
    3.1.5), others to two decimals; against a ``line`` (threshold, "floor" or "ceiling"), with as many
    more decimals as keep it on the side of the line it falls (rounding never moves it across)."""
    from day60.display import crosses, sided_digits

    def places(digits: int) -> int:
        return sided_digits(value, line[0], line[1], digits) if line else digits

    if unit_type == "percent":
        return f"{value:.{places(1)}f} percent"  # rates to one decimal (charter 3.1.5)
    if unit_type == "money":
        text = f"{value:.4g}"
        if line and crosses(float(text), value, *line):
            text = f"{value:.{places(2)}f}"  # four figures would cross the line: decimals that do not
        return f"{currency} {text}"
    if unit_type == "tier":
        return f"T{int(value)}"
    if unit_type == "ordinal_business_day":
        return show_value(Parameter(id="figure", type=unit_type, description="the figure"), value)
    return f"{value:.{places(2)}f} {TYPES[unit_type]}"


FIGURE_FIELDS = ("value", "n", "reason", "note", "months", "relief", "deemed", "disputed")
# The Relief Events a figure may claim (the relief module), by the id a figures file names them with.
RELIEF_EVENTS = {"partner-cause": "a Partner Cause", "force-majeure": "force majeure",
                 "upstream-outage": "an Upstream Outage", "volume": "volumes above the Volume Forecast",
                 "instructed-change": "a change the Partner instructed", "exercise": "an Exercise Event"}
PERIOD_FIELDS = {"month": "YYYY-MM", "charges": "a sum of money", "documents": "a count",
                 "documents_forecast": "a count", "contacts": "a count", "contacts_forecast": "a count",
                 "critical_failures_before": "a whole count"}
# The volume relief (relief clause, (d)) counts Documents and Contacts apart: a surge of one never
# relieves a Service Level measured on the other. Each volume-sensitive check's unit, by the volume
# the relief counts it in.
VOLUME_KINDS = {"Documents": "documents", "Agent turns": "contacts", "Contacts": "contacts"}
RELIEF_FIELDS = {"event": "one of " + ", ".join(RELIEF_EVENTS), "agreed": "true or false", "note": "text",
                 "recomputed": "the figure with the relieved Items left out",
                 "inseparable": "true where the relieved Items cannot be told apart from the rest",
                 "accepted_by": "who accepted the claim", "accepted_on": "when (YYYY-MM-DD)"}
_PERIOD_FIX = 'write period as {"month": "YYYY-MM", "charges": number, "documents": count, ...}'


def load_figures(path: str | Path) -> dict[str, Any]:
    """A figures file: ``{"<check figure id>": {"value": number, "n": sample size}}``, each figure
    optionally with ``months`` (earlier Measurement Periods' figures, this one last), ``relief``
    ({"event": ..., "agreed": true|false, "note": ...}), ``deemed`` (Deemed Severity 2 Incidents
    under it) and ``disputed``; and optionally ``"period": {"month", "charges", "volume",
    "forecast", "critical_failures_before"}`` for the commercial modules."""
    data = read_json(path, "--figures", "a JSON figures file")
    shape = 'is not {"<id>": {"value": number, "n": count}}'
    if not isinstance(data, dict):
        raise InputError("--figures", shape, "fix the file")
    problems = _period_problems(data.get("period")) if "period" in data else []
    for fid, fig in data.items():
        if fid == "period":
            continue
        if not isinstance(fig, dict):
            problems.append(f"{fid[:40]} is not an object")
            continue
        for key in sorted(set(fig) - set(FIGURE_FIELDS)):
            problems.append(f"{fid[:40]}.{key[:40]} is not a figure field ({', '.join(FIGURE_FIELDS)})")
        months = fig.get("months")
        if months is not None and (not isinstance(months, list) or not all(
                isinstance(m, int | float) and not isinstance(m, bool) for m in months)):
            problems.append(f"{fid[:40]}.months is not a list of monthly figures, oldest first")
        for key in ("value", "n"):
            v = fig.get(key)
            if v is not None and (isinstance(v, bool) or not isinstance(v, int | float)):
                problems.append(f"{fid[:40]}.{key} is {str(v)[:30]!r}, not a number")
        for key in ("n", "deemed"):
            n = fig.get(key)
            if isinstance(n, float) or (isinstance(n, int) and not isinstance(n, bool) and n < 0) or (
                    key == "deemed" and n is not None and not isinstance(n, int)) or isinstance(n, bool):
                problems.append(f"{fid[:40]}.{key} is {n!r}, not a whole count")
        for key in ("reason", "note"):
            if fig.get(key) is not None and not isinstance(fig[key], str):
                problems.append(f"{fid[:40]}.{key} is not text")
        if fig.get("disputed") is not None and not isinstance(fig["disputed"], bool | str):
            problems.append(f"{fid[:40]}.disputed is not true, false or a note")
        relief = fig.get("relief")
        if relief is not None and (not isinstance(relief, dict) or relief.get("event") not in RELIEF_EVENTS
                                   or not isinstance(relief.get("agreed", False), bool)
                                   or not isinstance(relief.get("inseparable", False), bool)
                                   or set(relief) - set(RELIEF_FIELDS)
                                   or not all(isinstance(relief.get(k, ""), str) for k in ("note", "accepted_by"))
                                   or not _number_or_none(relief.get("recomputed"))
                                   or not _date_or_none(relief.get("accepted_on"))):
            problems.append(f"{fid[:40]}.relief is not {{" + ", ".join(f'"{k}": {v}' for k, v in RELIEF_FIELDS.items())
                            + "}")
        value = fig.get("value")
        if isinstance(months, list) and months and isinstance(value, int | float) and not isinstance(value, bool) \
                and all(isinstance(m, int | float) for m in months) and float(months[-1]) != float(value):
            problems.append(f"{fid[:40]}.months ends with {months[-1]!r}, not this period's value {value!r} (months "
                            "run oldest first, this period last)")
    if problems:
        only_period = all(p.startswith("period") for p in problems)
        raise InputError("--figures", f"{len(problems)} problem(s): " + "; ".join(problems[:10]),
                         _PERIOD_FIX if only_period else 'write each figure as {"value": number, "n": count} (see '
                                                         "docs/clauses.md for months, relief, deemed and period)")
    return data


def _number_or_none(v: Any) -> bool:
    return v is None or (isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v))


def _date_or_none(v: Any) -> bool:
    if v is None:
        return True
    try:
        dt.date.fromisoformat(v)
    except (TypeError, ValueError):
        return False
    return isinstance(v, str)


def _period_problems(period: Any) -> list[str]:
    if not isinstance(period, dict):
        return ['period is not {"month": "YYYY-MM", "charges": number, ...}']
    problems = [f"period.{str(k)[:40]} is not a period field ({', '.join(PERIOD_FIELDS)})"
                for k in sorted(set(period) - set(PERIOD_FIELDS) - {"volume", "forecast"})]
    month = period.get("month")
    if month is not None and not (isinstance(month, str) and re.fullmatch(r"\d{4}-(0[1-9]|1[0-2])", month)):
        problems.append(f"period.month {str(month)[:20]!r} is not YYYY-MM")
    for key in sorted({"volume", "forecast"} & set(period)):
        problems.append(f"period.{key} is no longer read: the volume relief counts Documents and Contacts apart, so "
                        "give period.documents and period.documents_forecast, period.contacts and "
                        "period.contacts_forecast")
    for key in ("charges", "documents", "documents_forecast", "contacts", "contacts_forecast",
                "critical_failures_before"):
        v = period.get(key)
        if v is None:
            continue
        if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v) or v < 0 or v > 1e15:
            problems.append(f"period.{key} is {repr(v)[:30]}, not {PERIOD_FIELDS[key]} from 0")
        elif key == "critical_failures_before" and not isinstance(v, int):
            problems.append(f"period.{key} is {v!r}, not a whole count")
        elif key.endswith("forecast") and v == 0:
            problems.append(f"period.{key} is 0: a forecast volume must be above 0")
    return problems


def journal_figures(journal: Any, deal: Deal) -> dict[str, Any]:
    """The Day-60 figures a journal can supply, keyed by check figure id."""
    from day60 import assess

    # A Business Hour is the deal's (its calendar defines the term): where the deal's calendar is not
    # the journal's, business time is counted on the deal's for its clauses.
    done = assess.score_journal(journal, deal_parameters=deal.parameters, deal_elements=list(deal.report_elements),
                                calendar=deal_calendar(deal, journal))
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
        # Restored, but known only as a range (a stand-in start, a pause with no recorded end, a
        # communication before the start): the clause is judged on the whole range, never on one end.
        ranges = _restore_ranges(done.figures.tables["incidents"], int(sev), business)
        if ranges:
            n += len(ranges)
        # Before the close an incident still open may yet be restored: not a breach yet, nor a pass.
        out[f"restore-sev{sev}"] = {"value": value, "n": n, "ranges": ranges or None,
                                    "reason": b["reason"] if value is None and not ranges else None,
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
                for p in rep["periods"] if p["delivered"]]
        # A report due within the window and never received is a breach, never a gap (3.21.6, 3.21.8).
        never = [f"{p['period']} not received by the close (due {p['due']})" for p in rep["periods"]
                 if not p["delivered"]]
        extra = _due_by_the_deal(journal, deal, cal, {p["period"] for p in rep["periods"]}, closed)
        out["report-timeliness"] = {"value": max(days) if days else None, "n": len(rep["periods"]) + len(extra),
                                    "breach": "; ".join(never + extra) or None}
    elif extra := _due_by_the_deal(journal, deal, None, set(), closed):
        out["report-timeliness"] = {"value": None, "n": len(extra), "breach": "; ".join(extra)}
    elif rep.get("overdue_so_far"):
        out["report-timeliness"] = {"value": None, "n": None, "reason": "; ".join(
            f"{p} not received so far" for p in rep["overdue_so_far"]) + "; the exercise has not been closed"}
    _exercise_events(done.figures.tables, deal, out, closed)
    check = done.result["tier_check"]
    score = done.result["score"]
    if done.result["provisional"] and score is not None:  # it may still rise or fall: neither met nor not met
        out["day60-score"] = {"value": None, "n": 1, "reason": f"the score ({score:.1f} so far) is PROVISIONAL: "
                                                             f"{'; '.join(done.result['provisional'])}"}
        return out
    low, high = disputed_span(done.result) if score is not None else (score, score)
    out["day60-score"] = {"value": score if low == high else None, "n": 1, "reason": done.result.get("score_reason"),
                          "undecided": "under dispute",
                          "tier_not_demonstrated": None if check["met"] or score is None
                          else "; ".join(check["problems"]),
                          # lines under dispute: met or not met only where every resolution agrees
                          "ranges": [{"id": "the score", "at_least": low, "at_most": high,
                                      "why": "lines under dispute: " + ", ".join(done.result["under_dispute_lines"])}]
                          if low != high else None}
    return out


def deal_calendar(deal: Deal, journal: Any) -> Any:
    """The deal's business calendar where it names one that is not the journal's own, else None (the
    journal's stands). Compared as written, the holiday dates a journal resolved for its window
    aside."""
    if deal.calendar is None:
        return None

    def plain(table: dict[str, Any]) -> dict[str, Any]:
        holidays = {k: v for k, v in (table.get("holidays") or {}).items() if k != "resolved"}
        return {**table, "holidays": holidays} if holidays else {k: v for k, v in table.items() if k != "holidays"}

    if plain(deal.calendar) == plain(journal.header["calendar"]):
        return None
    from day60.clock import BusinessCalendar

    return BusinessCalendar.from_dict(deal.calendar)


def _due_by_the_deal(journal: Any, deal: Deal, cal: Any, judged: set[str], closed: bool) -> list[str]:
    """Reports the deal makes due earlier than the charter's fifth business day, due (the whole day)
    within the window, and not received by the close: each breaks the timeliness clause, though the
    charter's own due date may lie past the window (so the figures do not judge it)."""
    nth = deal.parameters.get("report_due_business_day")
    if not closed or not isinstance(nth, int) or nth >= 5 or journal.header.get("records") == "supplier-reported":
        return []
    from day60.clock import BusinessCalendar
    from day60.due import due_within, report_due

    cal = cal or (BusinessCalendar.from_dict(deal.calendar) if deal.calendar else journal.calendar())
    window = journal.header["window"]
    received = {e["id"] for e in journal.events if e["kind"] == "report.received"}
    return [f"{p} not received by the close (due {report_due(cal, p, nth).isoformat()}, the deal's business day "
            f"{nth})" for p in due_within(cal, dt.datetime.fromisoformat(window["start"]),
                                          dt.datetime.fromisoformat(window["end"]), nth)
            if p not in received and p not in judged]


def _restore_ranges(table: Any, severity: int, business: bool) -> list[dict[str, Any]]:
    """The incidents of a severity (severity 1: with those never classified, held to its clause)
    restored in the window whose restore the journal gives only as a range: id, at least, at most
    (None: nothing bounds it above) and why, in the clause's unit."""
    import pandas as pd

    if table.empty or "restore_evidence" not in table:
        return []
    sev = table["severity"] == severity
    if severity == 1:
        sev |= table["severity"].isna()
    mine = table[sev & table["restored_in_window"].astype(bool) & table["restore_evidence"].notna()]
    unit = "restore_business_hours" if business else "restore_hours"
    return [{"id": str(r["id"]), "at_least": float(r[f"{unit}_at_least"]),
             "at_most": None if pd.isna(r[f"{unit}_at_most"]) else float(r[f"{unit}_at_most"]),
             "why": r["restore_evidence"]} for _, r in mine.iterrows()]


def _exercise_events(tables: dict[str, Any], deal: Deal, out: dict[str, Any], closed: bool) -> None:
    """What the commercial modules need from a journal beside its figures: for each Day-60 figure,
    how many of the events behind it the exercise created and how many arose of themselves
    (``sources``: Exercise Events attract no Service Credit), and for drift notice the Deemed
    Severity 2 Incidents (each drift notified late, or not at all by the close)."""
    from day60.metrics import NOT_DETECTED

    drift = tables["drift"]
    scored = drift[drift["status"].isin(["notified", NOT_DETECTED])]
    if "drift-notice" in out:
        out["drift-notice"]["sources"] = {"exercise": int((scored["source"] == "exercise").sum()),
                                          "organic": int((scored["source"] != "exercise").sum())}
        ceiling = deal.parameters.get("drift_notice_business_hours")
        organic = scored["source"] != "exercise"
        _organic_part(out["drift-notice"], scored[organic], "notice_business_hours", NOT_DETECTED)
        if closed and isinstance(ceiling, int | float):
            late = (scored["status"] == NOT_DETECTED) | (scored["notice_business_hours"] > ceiling)
            # Exercise Events attract no Deemed Incident Credit: only drifts that arose of themselves count,
            # each in the month its onset occurred (the service-credits clause charges it to that month).
            out["drift-notice"]["deemed"] = int((late & organic).sum())
            out["drift-notice"]["deemed_exercise"] = int((late & ~organic).sum())
            months = scored[late & organic]["onset"].dropna().astype(str).str[:7]
            out["drift-notice"]["deemed_months"] = {str(k): int(v) for k, v in months.value_counts().items()}
            if int((late & organic).sum()) > len(months):
                out["drift-notice"]["deemed_months"]["unknown"] = int((late & organic).sum()) - len(months)
    incidents = tables["incidents"]
    never = "not detected"
    judged = incidents[incidents["status"].isin(["restored", "unconfirmed", "open", "unclassified", never])]
    # Held to the strictest clause, as restore-sev1 judges them (journal_figures): every incident with
    # no severity (NaN), whatever its status (restored, open, or closed with no monitoring check), and
    # every one never detected, whatever its severity. Each of the others under its own severity.
    strictest = judged["severity"].isna() | (judged["status"] == never)
    for sev in ("1", "2", "3", "4"):
        if f"restore-sev{sev}" not in out:
            continue
        mine = judged[((judged["severity"] == float(sev)) & ~strictest) | (strictest & (sev == "1"))]
        out[f"restore-sev{sev}"]["sources"] = {"exercise": int((mine["source"] == "exercise").sum()),
                                               "organic": int((mine["source"] != "exercise").sum())}
        _organic_part(out[f"restore-sev{sev}"], mine[mine["source"] != "exercise"],
                      "restore_business_hours" if sev in ("3", "4") else "restore_hours", never if sev == "1" else None)
    if "rollback" in out:
        rollbacks = tables["rollbacks"]
        production = int(((rollbacks["kind"] == "production") & (rollbacks["status"] == "in the window")).sum())
        out["rollback"]["sources"] = {"unknown": production}


def _organic_part(figure: dict[str, Any], rows: Any, column: str, never: str | None) -> None:
    """Beside a journal figure, the same figure over only the events that arose of themselves
    (``sources.organic_value``), and whether any of those is a breach with no time to compare (never
    notified, still open or unconfirmed): the part the relief clause leaves judged when an exercise
    mixes Exercise Events with real ones."""
    sources = figure.setdefault("sources", {})
    if rows.empty or column not in rows:
        sources.update(organic_value=None, organic_breach=False)
        return
    times = rows[column].dropna()
    broken = rows["status"].isin(["open", "unconfirmed"] + ([never] if never else []))
    sources.update(organic_value=float(times.max()) if len(times) else None, organic_breach=bool(broken.any()))


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


def parties_allowed(deal: Deal | None, header: dict[str, Any], allowed: bool) -> str | None:
    """A deal naming other parties than the journal is refused (``--sow``) unless ``allowed`` (then
    its problem is returned, for every output to say so); None when the parties agree or no deal."""
    if deal is None:
        return None
    problem = parties_problem(deal, header)
    if problem and not allowed:
        raise InputError("--sow", f"the deal and the journal name different parties: {problem}",
                         "give this exercise's own deal file, or add --parties-differ to go on (every output says so)")
    return problem


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
    low, high = disputed_span(result)
    if low != high and (low < floor <= high):
        # the rest stands (8.4.3), but the verdict turns on the lines under dispute: it waits for them
        return {**out, "verdict": "under dispute",
                "reason": f"the score is {result['score']!r}, from {low!r} to {high!r} as the disputes of "
                          f"{', '.join(result['under_dispute_lines'])} are resolved: the floor lies between"}
    met = result["score"] >= floor
    return {**out, "verdict": "met" if met else "not met",
            "reason": None if met else f"{result['score']!r} is below the floor (judged unrounded)"}


def disputed_span(result: dict[str, Any]) -> tuple[float, float]:
    """The least and the most a score can come to once its lines under dispute are resolved: each
    disputed line from nothing to its full points (an upheld dispute's remedy can raise a line, a
    rejected one leaves it, an exclusion can take its item out). Equal ends where none is disputed."""
    disputed = [ln for ln in result["lines"] if ln["status"] == "under dispute"]
    earned = sum(ln["earned"] for ln in disputed)
    return result["score"] - earned, result["score"] - earned + sum(ln["points"] for ln in disputed)


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

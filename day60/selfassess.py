"""The afternoon self-assessment: its question set, the answers file, and answers to journal.

The question set is data (``selfassess/questions-v1.yaml``). ``walk`` lists the questions that
apply given the answers so far, so the interactive interview and the answers-file twin follow
one path. An answer of ``None`` means "don't know / no record". This module never scores; it
hands a journal to metrics and rubric, and says which lines lack evidence.
"""

from __future__ import annotations

import datetime as dt
import functools
import hashlib
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from day60 import journal as jr
from day60 import timeparse
from day60.clock import BusinessCalendar
from day60.errors import InputError
from day60.files import read_json
from day60.resources import example, load_yaml

FORMAT = "day60.selfassess-answers/1"
QUESTIONS = "questions-v2.yaml"
SHIPPED_CALENDARS = ("uk-office", "us-office", "india-delivery", "service-desk-24x7")
TICKETS = "_tickets"  # not a question: the ticket export the incidents came from, recorded by the CLI
ELEMENT_CHOICES = {
    "passes": {"present": True, "covers_period": True, "supported": True},
    "present, but not for the whole month": {"present": True, "covers_period": False, "supported": True},
    "present, but a figure has no sample size or basis": {"present": True, "covers_period": True,
                                                         "supported": False},
    "absent": {"present": False, "covers_period": False, "supported": False},
    "does not apply, and the report says so": {"present": True, "covers_period": True, "supported": True,
                                               "not_applicable": True},
    "does not apply, but the report is silent": {"present": False, "covers_period": False, "supported": False,
                                                 "not_applicable": True},
}


@dataclass(frozen=True)
class Question:
    key: str
    section: str
    section_title: str
    type: str
    ask: str
    help: str = ""
    choices: tuple[str, ...] = ()
    max: int | None = None
    pattern: str | None = None
    needed_by: tuple[str, ...] = ()
    request: str = ""
    item: str = ""  # e.g. "incident 2 of 3, wait on your team 1 of 2"


@dataclass
class QuestionSet:
    id: str
    version: str
    tier_cap: str
    sections: list[dict[str, Any]]
    gaps: list[dict[str, Any]] = field(default_factory=list)  # what a ticket export can leave unsettled

    @classmethod
    def load(cls) -> QuestionSet:
        data = load_yaml("selfassess", QUESTIONS)
        return cls(data["id"], str(data["version"]), data["tier_cap"], data["sections"], data.get("gaps", []))

    def question(self, key: str) -> Question:
        """A top-level question by key, e.g. "drift.false_alerts"."""
        return next(q for q in walk(self, {}) if q.key == key)


def walk(qs: QuestionSet, answers: dict[str, Any]) -> list[Question]:
    """Every question that applies, in order, given the answers so far."""
    out: list[Question] = []
    for section in qs.sections:
        _expand(out, section["id"], section["questions"], section.get("blocks", {}), answers, section, "")
    return out


def _expand(out: list[Question], prefix: str, questions: list[dict[str, Any]], blocks: dict[str, Any],
            answers: dict[str, Any], section: dict[str, Any], item: str) -> None:
    for q in questions:
        key = f"{prefix}.{q['id']}"
        if q.get("from_tickets") == "skip" and answers.get(TICKETS):
            continue  # the incidents come from a ticket export
        if q["type"] == "elements":
            from day60.resources import report_elements

            for el in report_elements():
                out.append(Question(f"{key}.{el['id']}", section["id"], section["title"], "choice",
                                    f"{el['id']}: {el['what']}", q.get("help", ""), tuple(ELEMENT_CHOICES),
                                    needed_by=tuple(q.get("needed_by", ())), request=q.get("request", ""),
                                    item=item))
            continue
        out.append(Question(key, section["id"], section["title"], q["type"], q["ask"], q.get("help", ""),
                            tuple(str(c) for c in q.get("choices", ())), q.get("max"), q.get("pattern"),
                            tuple(q.get("needed_by", ())), q.get("request", ""), item))
        opens, answer = q.get("opens"), answers.get(key)
        if not opens or answer is None:
            continue
        block = blocks[opens]
        if q["type"] == "count":
            shown = min(int(answer), q["max"])
            for i in range(1, shown + 1):
                _expand(out, f"{prefix}.{opens}.{i}", block["questions"], blocks, answers, section,
                        f"{item}, {block['label']} {i} of {shown}".strip(", "))
        elif answer is True:
            _expand(out, f"{prefix}.{opens}", block["questions"], blocks, answers, section,
                    f"{item}, {block['label']}".strip(", "))


def pending(qs: QuestionSet, answers: dict[str, Any]) -> Question | None:
    """The first question that applies and has no answer yet."""
    return next((q for q in walk(qs, answers) if q.key not in answers), None)


def expected_total(qs: QuestionSet, answers: dict[str, Any]) -> int:
    """About how many questions the interview has, counting one item for each unanswered count."""
    guess = dict(answers)
    while True:
        questions = walk(qs, guess)
        open_counts = [q for q in questions if q.type == "count" and q.key not in guess]
        if not open_counts:
            return len(questions)
        for q in open_counts:
            guess[q.key] = 1


def tz_of(answers: dict[str, Any], deal_calendar: dict[str, Any] | None = None) -> ZoneInfo | None:
    """The timezone answers are read in, once the calendar has been chosen."""
    name = answers.get("deal.calendar")
    return calendar_of(name, deal_calendar).tz if name else None


def calendar_of(answer: str, deal_calendar: dict[str, Any] | None = None) -> BusinessCalendar:
    """The calendar an answer names: a shipped one, "deal" (the deal file's), or a TOML file."""
    if answer == "deal":
        if deal_calendar is None:
            raise InputError("deal.calendar", "the answer is 'deal', but this assessment was started without a deal "
                                              "file that has a [calendar] table",
                             "name a shipped calendar or a calendar file, or start the assessment again with the "
                             "deal file")
        return BusinessCalendar.from_dict(deal_calendar)
    if answer in SHIPPED_CALENDARS:
        return _shipped(answer)
    try:
        return _file_calendar(str(Path(answer).resolve()))
    except InputError as exc:
        raise InputError("deal.calendar", f"{answer[:80]!r} is not a shipped calendar nor a calendar file "
                                          f"({exc.problem})",
                         f"name one of {', '.join(SHIPPED_CALENDARS)}, or give the path of a TOML file with a "
                         "[calendar] table") from None


@functools.lru_cache(maxsize=8)
def _shipped(name: str) -> BusinessCalendar:
    return BusinessCalendar.load(example(f"{name}.toml"))


@functools.lru_cache(maxsize=8)
def _file_calendar(path: str) -> BusinessCalendar:
    return BusinessCalendar.load(path)


def parse_answer(q: Question, raw: Any, tz: ZoneInfo | None, deal_calendar: dict[str, Any] | None = None) -> Any:
    """Check one answer; returns the value to store. ``None`` is "don't know / no record"."""
    if raw is None:
        return None
    text = str(raw).strip()
    field_name = q.key
    if q.type == "yesno":
        if isinstance(raw, bool):
            return raw
        if text.lower() in ("yes", "y", "true"):
            return True
        if text.lower() in ("no", "n", "false"):
            return False
        raise InputError(field_name, f"{text!r} is not yes or no", "answer yes, no, or don't know")
    if q.type == "count":
        if isinstance(raw, bool) or not re.fullmatch(r"[0-9]{1,9}", text):
            raise InputError(field_name, f"{text!r} is not a whole number", "answer 0 or more, or don't know")
        return int(text)
    if q.type == "choice":
        if text not in q.choices:
            raise InputError(field_name, f"{text!r} is not one of the choices",
                             f"answer one of: {', '.join(q.choices)}")
        return text
    if q.type == "instant":
        return timeparse.parse_instant(text, tz, field_name).isoformat()
    if q.type == "calendar":
        calendar_of(text, deal_calendar)  # refuses what is neither shipped, the deal's, nor a calendar file
        return text
    if not text:
        raise InputError(field_name, "is empty", "write an answer, or say don't know")
    if q.pattern and not re.fullmatch(q.pattern, text):
        raise InputError(field_name, f"{text!r} is not in the expected form", "for a month write YYYY-MM")
    return text


# ----- the answers file ----------------------------------------------------------------------


@dataclass
class Answers:
    path: Path | None
    answers: dict[str, Any] = field(default_factory=dict)
    synthetic: bool = False
    deal_calendar: dict[str, Any] | None = None  # from the deal file the assessment runs with; never saved

    def save(self, qs: QuestionSet) -> None:
        """Write the whole file atomically: a crash or Ctrl-C never leaves half an answers file."""
        if self.path is None:
            return
        doc = {"format": FORMAT, "question_set": {"id": qs.id, "version": qs.version},
               "synthetic": self.synthetic, "answers": self.answers}
        tmp = self.path.with_name(self.path.name + ".tmp")
        with tmp.open("w", encoding="utf-8") as fh:
            json.dump(doc, fh, indent=2, ensure_ascii=False)
            fh.write("\n")
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, self.path)

    @property
    def sha256(self) -> str:
        body = json.dumps({"synthetic": self.synthetic, "answers": self.answers}, sort_keys=True)
        return hashlib.sha256(body.encode("utf-8")).hexdigest()


def load_answers(path: str | Path, qs: QuestionSet, field_name: str = "--answers",
                 deal_calendar: dict[str, Any] | None = None) -> Answers:
    """Read an answers file and check every answer in it (and that its keys are questions)."""
    path = Path(path)
    doc = read_json(path, field_name, "a day60 answers file")
    if not isinstance(doc, dict) or doc.get("format") != FORMAT or not isinstance(doc.get("answers"), dict):
        raise InputError(field_name, f"{path} is not a day60 answers file", f'it needs "format": "{FORMAT}"')
    qset = doc.get("question_set")
    version = qset.get("version") if isinstance(qset, dict) else None
    if not isinstance(qset, dict) or not isinstance(version, str):
        raise InputError(f"{field_name} question_set", "is not {\"id\": ..., \"version\": ...}",
                         f'write "question_set": {{"id": "{qs.id}", "version": "{qs.version}"}}')
    if version != qs.version:
        raise InputError(field_name, f"answers are for question set {version[:20]!r}, not {qs.version}",
                         "answer the current question set")
    raw = doc["answers"]
    checked: dict[str, Any] = {}
    if raw.get(TICKETS) is not None:
        checked[TICKETS] = check_tickets_record(raw[TICKETS], f"{field_name} {TICKETS}")
    for _ in range(len(raw) + 1):  # answers open branches; walk until nothing new applies
        known = {q.key: q for q in walk(qs, checked)}
        new = [k for k in raw if k in known and k not in checked]
        if not new:
            break
        for key in new:
            checked[key] = parse_answer(known[key], raw[key], tz_of(checked, deal_calendar), deal_calendar)
    stray = sorted(set(raw) - set(checked) - {TICKETS})
    if stray:
        raise InputError(f"{field_name} {stray[0]}", "answers no question that applies", "remove it or fix its key")
    return Answers(path, checked, bool(doc.get("synthetic")), deal_calendar)


def check_tickets_record(value: Any, field_name: str) -> dict[str, Any]:
    """The record of a ticket export the incidents came from: its format and each file's SHA-256."""
    files = value.get("files") if isinstance(value, dict) else None
    if not isinstance(value, dict) or not isinstance(value.get("format"), str) or not isinstance(files, list) \
            or not files or not all(isinstance(f, dict) and isinstance(f.get("sha256"), str) for f in files):
        raise InputError(field_name, 'is not {"format": ..., "files": [{"file": ..., "sha256": ...}]}',
                         "leave it as the assessment wrote it")
    return value


# ----- answers to journal --------------------------------------------------------------------


def unknown_lines(qs: QuestionSet, answers: dict[str, Any]) -> dict[str, list[str]]:
    """Rubric line id -> what to ask the supplier for, from every "don't know" that line needs."""
    out: dict[str, list[str]] = {}
    for q in walk(qs, answers):
        if q.key in answers and answers[q.key] is None:
            for line in q.needed_by:
                if q.request not in out.setdefault(line, []):
                    out[line].append(q.request)
    return out


# Answers whose "don't know" leaves a drift or an incident in the journal without the event that
# would decide its figure: journal id (from the block's number) -> what the records did not show.
_UNKNOWN_ITEMS = ((r"drift\.notice\.(\d+)\.notice", "drift-{}", "when the written notice was sent"),
                  (r"incidents\.incident\.(\d+)\.restored", "incident-{}",
                   "when a monitoring check confirmed the restore"))


def unknown_items(qs: QuestionSet, answers: dict[str, Any]) -> dict[str, str]:
    """Drifts notified and incidents closed at a time the records do not show: the figures read
    them "not evidenced", never "not detected" or "open" (a notice was sent; the incident closed)."""
    out: dict[str, str] = {}
    for q in walk(qs, answers):
        if q.key not in answers or answers[q.key] is not None:
            continue
        for pattern, ident, missing in _UNKNOWN_ITEMS:
            m = re.fullmatch(pattern, q.key)
            if m:
                out[ident.format(m.group(1))] = missing
    return out


def requests(qs: QuestionSet, answers: dict[str, Any], incidents: Any = None) -> list[str]:
    """The closing list: every missing record, phrased as a request, each once. With the figures'
    incident table (``incidents``), also the record that would settle each gap its judged incidents
    show (the question set's ``gaps``): a ticket export answers no question, so its gaps ask here."""
    seen: list[str] = []
    unknown: set[str] = set()  # the questions answered "don't know", their item numbers left out
    for q in walk(qs, answers):
        if q.key in answers and answers[q.key] is None:
            unknown.add(".".join(p for p in q.key.split(".") if not p.isdigit()))
            if q.request not in seen:
                seen.append(q.request)
    if incidents is None or len(incidents) == 0:
        return seen
    from day60.metrics import JUDGED  # here: metrics loads pandas, which the interview never needs

    judged = incidents[incidents["status"].isin(JUDGED)]
    for gap in qs.gaps:
        if gap.get("same_as") in unknown:
            continue  # asked for already, by the question's own request
        ids = [str(x) for x in judged.loc[GAPS[gap["id"]](judged), "id"]]
        if ids:
            shown = ", ".join(ids[:GAP_IDS_SHOWN]) + (f" and {len(ids) - GAP_IDS_SHOWN} more"
                                                      if len(ids) > GAP_IDS_SHOWN else "")
            seen.append(f"{gap['request']} ({len(ids)} incident(s): {shown})")
    return seen


GAP_IDS_SHOWN = 5
# Each gap of the question set's ``gaps``: which rows of the figures' incident table it holds.
GAPS: dict[str, Any] = {
    "detection-stand-in": lambda t: t["detection_stand_in"].astype(bool),
    "out-of-order": lambda t: t["out_of_order"].notna(),
    "open-wait": lambda t: t["open_waits"] > 0,
    "unconfirmed": lambda t: t["status"] == "unconfirmed",
    "closed-untimed": lambda t: t["status"] == "not evidenced",
    "no-severity": lambda t: t["severity"].isna(),
    "no-communication": lambda t: t["communicated"].isna(),
}


def beyond_limit(qs: QuestionSet, answers: dict[str, Any]) -> list[str]:
    notes = []
    for q in walk(qs, answers):
        if q.type == "count" and q.max is not None and isinstance(answers.get(q.key), int) and answers[q.key] > q.max:
            notes.append(f"{answers[q.key] - q.max} of {answers[q.key]} for '{q.ask}' were beyond the limit of "
                         f"{q.max} and were not assessed")
    return notes


@dataclass
class Tickets:
    """A ticket export the incidents come from (``selfassess --tickets FORMAT:FILE``)."""

    format: str
    files: list[Path]
    settings: Any  # day60.imports.records.Settings


def tickets_record(spec: Tickets) -> dict[str, Any]:
    """What an answers file records of the ticket export its incidents came from: the format and
    each file's name and SHA-256."""
    from day60.imports import sha256_file

    return {"format": spec.format, "files": [{"file": p.name, "sha256": sha256_file(p)} for p in spec.files]}


def match_tickets(ans: Answers, spec: Tickets | None) -> None:
    """Hold answers given with a ticket export to the same export, byte for byte: answers that
    recorded one need it again (its format, files and SHA-256 the same); answers with none take the
    export given now and record it, unless they already hold the incidents answered by hand."""
    recorded = ans.answers.get(TICKETS)
    if recorded is None and spec is not None:
        if ans.path is not None and "incidents.count" in ans.answers:
            raise InputError("--tickets", "these answers already hold the incidents answered by hand",
                             "drop --tickets, or start a new answers file for the export")
        ans.answers[TICKETS] = tickets_record(spec)
        return
    if recorded is not None and spec is None:
        names = ", ".join(f["file"] for f in recorded["files"])
        raise InputError("--tickets", f"these answers took their incidents from a {recorded['format']} export "
                                      f"({names})", f"give it again with --tickets {recorded['format']}:FILE")
    if recorded is not None and recorded != tickets_record(spec):
        raise InputError("--tickets", "the export is not the one these answers were given with (its format, files "
                                      "or SHA-256 differ)", "give the same export files")


def to_journal(qs: QuestionSet, ans: Answers, path: str | Path, tickets: Tickets | None = None) -> jr.Journal:
    """Build the self-assessment's journal: supplier-reported times, tier capped, nothing injected.

    A "don't know" leaves its event out and its rubric lines read "not evidenced"; it never
    becomes a time, a zero or a count. With ``tickets`` the incidents come from the export,
    imported as ``day60 import`` does, before the journal is closed."""
    a = ans.answers
    missing = pending(qs, a)
    if missing is not None:
        raise InputError(missing.key, "has no answer", "answer it (or say don't know) before scoring")
    if a.get("deal.calendar") is None or a.get("deal.start") is None or a.get("deal.end") is None:
        raise InputError("deal", "the calendar and the period are needed for any figure",
                         "find the contract's business hours and choose the period your records cover")
    cal = calendar_of(a["deal.calendar"], ans.deal_calendar)

    def at(key: str) -> dt.datetime | None:
        value = a.get(key)
        return dt.datetime.fromisoformat(value) if value else None

    def text(key: str) -> str:
        return a.get(key) or "not stated in the records"

    def count(key: str) -> int:
        return min(a.get(key) or 0, limits.get(key, 0))

    limits = {q.key: q.max or 0 for q in walk(qs, a) if q.type == "count"}
    end = at("deal.end")
    if end <= at("deal.start"):
        raise InputError("deal.end", f"{a['deal.end']} is not after deal.start {a['deal.start']}",
                         "give the end of the period your records cover, after its start")
    events: list[tuple[str, str, dt.datetime | None, dict[str, Any]]] = []
    for i in range(1, count("drift.count") + 1):
        p = f"drift.notice.{i}"
        if at(f"{p}.onset") is None:
            continue  # no onset, no lead time: the drift lines read "not evidenced"
        ident = f"drift-{i}"
        events.append(("drift.onset", ident, at(f"{p}.onset"), {"source": "organic"}))
        if at(f"{p}.detected"):
            events.append(("drift.detected", ident, at(f"{p}.detected"), {}))
        if at(f"{p}.notice"):
            events.append(("drift.notice", ident, at(f"{p}.notice"),
                           {"affected_class": text(f"{p}.affected_class"), "evidence": text(f"{p}.evidence")}))
    for i in range(1, count("drift.own_count") + 1):
        p = f"drift.own.{i}"
        if at(f"{p}.first_seen") is None:
            continue
        events.append(("drift.onset", f"found-by-you-{i}", at(f"{p}.first_seen"),
                       {"source": "organic", "affected_class": text(f"{p}.affected_class"),
                        "note": "found by the partner's own team and never notified; the onset is taken as when "
                                "the effect was first seen, so its lead time is the shortest it could be"}))
    for i in range(1, count("drift.false_alerts") + 1):
        events.append(("drift.false-alert", f"false-alert-{i}", end,
                       {"note": "counted from the supplier's records; its time was not asked and is not used"}))
    if tickets is None:
        for i in range(1, count("incidents.count") + 1):
            events += _incident_events(a, i, at, text)
    p = "rollbacks.rehearsal"
    if a.get("rollbacks.rehearsed") and at(f"{p}.criterion") and at(f"{p}.decision"):
        events.append(("rollback.criterion-met", "rehearsal", at(f"{p}.criterion"), {"kind": "rehearsal"}))
        events.append(("rollback.decision", "rehearsal", at(f"{p}.decision"), {}))
        pins = [a.get(f"{p}.{k}") for k in ("model_pin", "prompt_version", "threshold_set")]
        if at(f"{p}.smoke") and all(pins):
            events.append(("rollback.smoke-pass", "rehearsal", at(f"{p}.smoke"),
                           dict(zip(("model_pin", "prompt_version", "threshold_set"), pins, strict=True))))
        if at(f"{p}.requeue"):
            events.append(("rollback.requeue-complete", "rehearsal", at(f"{p}.requeue"), {}))
    if a.get("report.period") and at("report.delivered"):
        events.append(("report.received", a["report.period"], at("report.delivered"), {}))
        for q in walk(qs, a):
            if q.key.startswith("report.elements.") and a.get(q.key) is not None:
                events.append(("report.element", q.key.removeprefix("report.elements."), at("report.delivered"),
                               {**ELEMENT_CHOICES[a[q.key]], "note": f"answered: {a[q.key]}"}))
    synthetic = " (SYNTHETIC)" if ans.synthetic else ""
    fields = {"partner": (a.get("deal.partner") or "partner not named") + synthetic,
              "supplier": (a.get("deal.supplier") or "supplier not named") + synthetic,
              "deployment": (a.get("deal.deployment") or "deployment not named") + synthetic,
              "tier": qs.tier_cap, "runner": "self-assessment from the supplier's records",
              "records": "supplier-reported", "synthetic": ans.synthetic, "calendar": cal.to_dict(),
              "window": {"start": a["deal.start"], "end": a["deal.end"]}}
    try:
        built = jr.build(path, fields, events)
    except InputError as exc:
        raise InputError("answers", f"the answers contradict each other: {_in_words(exc.problem)}",
                         "check the times of that item") from exc
    if tickets is not None:
        from day60.imports import run_import

        run_import(tickets.format, tickets.files, built.path, tickets.settings)
        built = jr.read(built.path)
    last = max([end, *(dt.datetime.fromisoformat(e["at"]) for e in built.events if e["at"])],
               key=lambda d: d.timestamp())
    jr.append(built.path, "exercise.close", "self-assessment", last, {})
    return jr.read(built.path)


def _incident_events(a: dict[str, Any], i: int, at: Any, text: Any) -> list[tuple[str, str, Any, dict[str, Any]]]:
    """One incident answered by hand; a severity not known is left out (judged at the strictest)."""
    p = f"incidents.incident.{i}"
    ident = f"incident-{i}"
    if at(f"{p}.detected") is None and at(f"{p}.partner_notice.at") is None:
        return []  # no clock start: the restore lines read "not evidenced"
    severity = a.get(f"{p}.severity")
    sev = {} if severity is None else {"severity": int(severity)}
    out: list[tuple[str, str, Any, dict[str, Any]]] = []
    if at(f"{p}.partner_notice.at"):
        out.append(("incident.partner-notice", ident, at(f"{p}.partner_notice.at"), {**sev, "source": "organic"}))
    if at(f"{p}.detected"):
        out.append(("incident.detected", ident, at(f"{p}.detected"), {**sev, "source": "organic"}))
    if at(f"{p}.communicated"):
        out.append(("incident.communicated", ident, at(f"{p}.communicated"), {}))
    for count, block, kind in (("waits", "wait", "wait"), ("change_windows", "change", "change-window")):
        for n in range(1, (a.get(f"{p}.{count}") or 0) + 1):  # past the question's limit nothing was asked
            start, finish = at(f"{p}.{block}.{n}.start"), at(f"{p}.{block}.{n}.end")
            if start and finish:
                out += [(f"incident.{kind}-start", ident, start, {}), (f"incident.{kind}-end", ident, finish, {})]
    if at(f"{p}.restored"):
        out.append(("incident.restored", ident, at(f"{p}.restored"), {"check": text(f"{p}.check")}))
    return out


def _in_words(problem: str) -> str:
    """A journal rule's message in the interview's words: "incident 2", not "event 7 (...)"."""
    problem = re.sub(r"event \d+ \(([a-z.-]+) (incident|drift|found-by-you)-(\d+)\)",
                     lambda m: f"{m.group(2).replace('found-by-you', 'drift your team found')} {m.group(3)}'s "
                               f"{m.group(1).split('.', 1)[1]}", problem)
    return problem

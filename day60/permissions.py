"""Who may write what in an exercise journal: the access list ``roles/permissions-v1.yaml``
applied to one line before it is written, and the measured party's claims read back out.

The journal's lines come from people with opposite interests, so every front end that writes a
line for a person (``day60 log``, ``live``, ``serve``, ``import``) names who is writing (an
``Actor``) and ``journal.append`` (or an import's batch) asks ``authorise`` under the journal's
lock. Default deny: what the table does not grant is refused with ``NotPermitted`` (exit 2 at the
command line, 403 from the web checklist), and nothing is written. The toolkit's own writers
(``day60 stamp``, ``reveal``, ``notice``) call the journal without an actor.

Identity is the actor's, never the request's: ``by`` is "NAME (ROLE)" (the journal's runner when
no name is given), a dispute's ``raised_by`` and ``organisation`` are filled in here.

A line's role is read back from its ``by``. A line recorded by the measured party under a
``claim`` scope is a claim: it counts in no figure until a role of the table's ``accept`` column
has accepted it (``accept`` / ``reject`` lines naming its seq); ``counted`` gives the lines the
figures read. Below the journal, the engine and the metrics: it imports only the shipped data.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from day60.errors import InputError

TABLE = "permissions-v1.yaml"
RUNNER, TOOLKIT = "runner", "toolkit"
SCOPES = ("any", "real", "claim", "injection", "injection claim")
CLAIM_SCOPES = ("claim", "injection claim")  # a line recorded under these counts once accepted
ACTIONS = ("correction", "dispute", "accept", "reject")  # kinds written under the correct, dispute, accept columns
JUDGEMENTS = ("accept", "reject")
ALIASES = {"supplier contact": "supplier"}  # the web checklist's name for the supplier before version 1
IDENTITY = ("raised_by", "organisation")  # a dispute's, filled in from the actor
# What begins a drift, an incident or a rollback: under a signed-off id, the runner's until begun.
BEGINS = ("drift.onset", "incident.detected", "incident.partner-notice", "rollback.criterion-met")
_ROLE_IN_BY = re.compile(r"\(([^()]*)\)\s*$")
_NAME = re.compile(r"^[^\x00-\x1f\x7f()]*[^\s\x00-\x1f\x7f()][^\x00-\x1f\x7f()]*$")


class NotPermitted(InputError):
    """What the table does not let this role write (exit 2; HTTP 403)."""


@dataclass(frozen=True)
class Table:
    version: str
    roles: dict[str, dict[str, Any]]
    record: dict[str, dict[str, str]]
    correct: dict[str, dict[str, str]]
    dispute: frozenset[str]
    accept: dict[str, tuple[str, ...]]
    toolkit_fields: frozenset[str]
    claim_fields: dict[str, tuple[str, ...]]
    fields: dict[str, dict[str, tuple[str, ...]]]

    def writes(self, role: str, kind: str) -> tuple[str, ...] | None:
        """The data fields ``role`` writes on ``kind``, or None where the table does not limit them
        (the kind's model decides)."""
        limited = self.fields.get(role)
        return None if limited is None else limited.get(kind, ())

    @property
    def people(self) -> tuple[str, ...]:
        """The roles a person joins as (every role but the toolkit's)."""
        return tuple(r for r in self.roles if r != TOOLKIT)

    def toolkit_only(self, kind: str) -> bool:
        return set(self.record.get(kind, {})) == {TOOLKIT}

    def claimants(self) -> frozenset[str]:
        """Roles some of whose lines are claims."""
        return frozenset(r for grants in self.record.values() for r, scope in grants.items()
                         if scope in CLAIM_SCOPES)

    def label(self, role: str) -> str:
        return self.roles.get(role, {}).get("label", role)


@lru_cache(maxsize=1)
def table() -> Table:
    """The shipped access list, checked against the closed set of event kinds."""
    from day60.events import KINDS
    from day60.resources import load_yaml

    raw = load_yaml("roles", TABLE)
    roles = raw["roles"]
    record = {kind: dict(grants) for kind, grants in raw["record"].items()}
    problems = [k for k in record if k not in KINDS or k in ACTIONS]
    problems += [f"{k}: {r}={s}" for k, g in record.items() for r, s in g.items() if r not in roles or s not in SCOPES]
    problems += [k for k in KINDS if k not in record and k not in ACTIONS]
    fields = {r: {k: tuple(v) for k, v in kinds.items()} for r, kinds in (raw.get("fields") or {}).items()}
    problems += [f"fields: {r}" for r in fields if r not in roles]
    problems += [f"fields: {r}: {k}" for r, kinds in fields.items() for k in kinds if k not in KINDS]
    if problems:  # a shipped table that does not cover the kinds exactly is a build fault, never a user's
        raise RuntimeError(f"roles/{TABLE} does not match the event kinds: {', '.join(problems)}")
    return Table(str(raw["version"]), roles, record, {r: dict(v) for r, v in raw["correct"].items()},
                 frozenset(r for r, ok in raw["dispute"].items() if ok),
                 {r: tuple(v) for r, v in raw["accept"].items()}, frozenset(raw["toolkit_fields"]),
                 {k: tuple(v) for k, v in raw["claim_fields"].items()}, fields)


def role_of(by: str | None) -> str | None:
    """The role a line's ``by`` names ("NAME (ROLE)"), or None when it names none (a line written
    at the runner's own machine, or by one of the toolkit's commands)."""
    found = _ROLE_IN_BY.search(by or "")
    if not found:
        return None
    role = ALIASES.get(found.group(1), found.group(1))
    return role if role in table().roles and role != TOOLKIT else None


def check_name(name: Any, field: str = "name") -> str:
    """A person's name as a line carries it ("NAME (ROLE)"): visible text, no control, invisible
    or direction-changing character, no parentheses (so no name can carry a role of its own), at
    most 80 characters."""
    import unicodedata

    if not isinstance(name, str):
        raise InputError(field, "must be text", "give the name of the person")
    name = name.strip()
    if not name or len(name) > 80 or not _NAME.match(name) or any(
            unicodedata.category(c) in ("Cf", "Zl", "Zp", "Co", "Cs", "Cn") for c in name):
        raise InputError(field, f"{name[:40]!r} is not a name this journal can carry",
                         "use 1 to 80 visible characters, with no control, invisible or direction-changing "
                         "characters (such as U+200B, U+202E) and no parentheses")
    # Any bracket at all, and whatever reads as one once normalised (superscript, subscript and
    # fullwidth parentheses): "Sam ⁽runner⁾" would read as a role of its own.
    brackets = sorted({c for c in name if any(unicodedata.category(n) in ("Ps", "Pe")
                                              for n in c + unicodedata.normalize("NFKC", c))})
    if brackets:
        shown = ", ".join(f"U+{ord(c):04X}" for c in brackets if ord(c) > 127) or "ASCII brackets"
        raise InputError(field, f"{name[:40]!r} holds a bracket or a character that reads as one ({shown})",
                         "write the name without brackets of any kind: a name in brackets reads as a role")
    return name


LOOKALIKES = "lookalikes-v1.yaml"


@lru_cache(maxsize=1)
def lookalike_letters() -> dict[str, str]:
    """The shipped table of letters of other scripts that read as Latin ones (roles/lookalikes-v1.yaml)."""
    from day60.resources import load_yaml

    letters = {str(k): str(v) for k, v in load_yaml("roles", LOOKALIKES)["letters"].items()}
    wrong = [k for k, v in letters.items() if len(k) != 1 or not (v.isascii() and v.isalnum())]
    if wrong:  # a shipped table that maps anything but one letter to Latin is a build fault
        raise RuntimeError(f"roles/{LOOKALIKES}: not one letter to a Latin one: {', '.join(wrong)}")
    return letters


def _folded(text: str) -> str:
    import unicodedata

    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def folded(text: str) -> str:
    """``text`` as it reads: NFKC (fullwidth and compatibility forms made plain), casefolded, each
    letter of the lookalike table read as the Latin one it looks like, and spaces and punctuation
    dropped. Two names or ids that fold alike look alike: "Ј. Auditor" (Cyrillic Je), "J．Auditor"
    (fullwidth full stop) and "j. auditor" all read "jauditor"."""
    import unicodedata

    letters = lookalike_letters()
    plain = "".join(letters.get(c, c) for c in unicodedata.normalize("NFKC", text).casefold())
    return "".join(c for c in unicodedata.normalize("NFKC", plain)
                   if not c.isspace() and not unicodedata.category(c).startswith("P"))


def people(lines: list[dict[str, Any]]) -> dict[str, str]:
    """Each person who wrote a line of ``lines`` ("NAME (ROLE)" in ``by``): the whole ``by`` -> name."""
    out: dict[str, str] = {}
    for e in lines:
        by = e.get("by") or ""
        if role_of(by) is not None:
            out.setdefault(by, _ROLE_IN_BY.sub("", by).strip())
    return out


def check_person(name: str, role: str, header: dict[str, Any], field: str = "name",
                 lines: list[dict[str, Any]] | None = None) -> None:
    """Refuse a person's name that reads as the journal's runner's (for anyone but the runner) or
    one of the parties' in its header (partner, supplier, the runner's organisation), or, given the
    journal's ``lines``, as the name of a person who wrote one under another role or another
    spelling. Names are compared as they read (``folded``): a dispute "by J. Auditor" from the
    supplier's contact reads as the runner's, whether typed with a Cyrillic J or a fullwidth stop."""
    parties = {"runner": "runner", "partner": "partner", "supplier": "supplier",
               "runner_organisation": "runner's organisation"}
    mine = folded(name)
    for key, what in parties.items():
        value = header.get(key)
        if not isinstance(value, str) or folded(value) != mine or (key == "runner" and role == RUNNER):
            continue
        raise InputError(field, f"{name[:60]!r} is the name of this journal's {what}" +
                         ("" if _folded(value) == _folded(name) else f" ({value!r}) in other letters"),
                         "act under your own name (a person's name is never the runner's or a party's)")
    for by, other in people(lines or []).items():
        if folded(other) != mine or (other == name and role_of(by) == role):
            continue
        raise InputError(field, f"{name[:60]!r} reads as {other!r}, who is in this journal as {by!r}",
                         "act under your own name, spelled as no one else's in the journal")


def check_ident(ident: str, kind: str, lines: list[dict[str, Any]] | None = None) -> None:
    """Refuse, from a person, an id that begins or ends with a space ("P1 " is a second partner id
    beside "P1" that no page shows apart) and, given the ``lines`` the person may see, an id that
    reads as one already there (``folded``: by case, fullwidth form or lookalike letter) without
    being it ("p1" beside "P1")."""
    if not isinstance(ident, str) or kind == "correction":
        return  # the event's model names it; a correction's id is the seq it corrects, written by the toolkit
    if ident != ident.strip():
        raise InputError("--id", f"{ident[:60]!r} begins or ends with a space, which no page shows",
                         f"write it without the space: {ident.strip()[:60]!r}")
    if lines is None or kind in ACTIONS or kind in ("reveal", "resolve"):
        return  # their id names another line, or a dispute's line: not an id of the exercise
    known = {e["id"] for e in lines if e["kind"] not in ACTIONS and e["kind"] not in ("reveal", "resolve")}
    if ident in known:
        return
    mine = folded(ident)
    same = sorted(k for k in known if folded(k) == mine)
    if same:
        raise InputError("--id", f"{ident[:60]!r} looks like {same[0][:60]!r}, already in the journal",
                         f"use {same[0][:60]!r} for that one, or an id that reads differently for a new one")


def actor_for(as_role: str | None, name: str | None) -> Actor:
    """Who the command line acts as: the runner unless ``--as ROLE`` says otherwise, named by
    ``--by NAME`` (a role other than the runner's needs the name of the person it speaks for)."""
    try:
        role = check_role(as_role or RUNNER)
    except InputError as exc:
        raise InputError("--as", exc.problem, exc.fix) from None
    if name is None:
        if role != RUNNER:
            raise InputError("--by", f"names the person acting as the {table().label(role)}",
                             f"add --by NAME (the person whose line this is) to --as {role}")
        return Actor(RUNNER)
    return Actor(role, check_name(name, "--by"))


def check_role(role: Any) -> str:
    """A role a person may act as, by its name in the table."""
    role = ALIASES.get(role, role) if isinstance(role, str) else role
    people = table().people
    if role not in people:
        why = " (its lines are written by its own commands)" if role == TOOLKIT else ""
        raise InputError("role", f"{str(role)[:40]!r} is not a role a person acts as{why}",
                         f"use one of: {', '.join(people)}")
    return role


@dataclass(frozen=True)
class Actor:
    """Who is writing a line: a role of the table and, for a person, a name.

    ``name`` None is the journal's runner as its header names it (the command line's default);
    for the toolkit, ``name`` is the whole ``by`` its command writes."""

    role: str
    name: str | None = None

    def by(self, header: dict[str, Any]) -> str:
        if self.role == TOOLKIT:
            return self.name or "day60"
        if self.name is None:
            return header["runner"]
        return f"{self.name} ({self.role})"

    def person(self, header: dict[str, Any]) -> str:
        return header["runner"] if self.name is None else self.name


def organisation(role: str, header: dict[str, Any]) -> str:
    """The organisation a role's dispute is filed under: a field of the journal's header."""
    info = table().roles[role]
    source = info.get("organisation")
    value = header.get(source) if source else None
    if value:
        return value
    if source == "runner_organisation":
        return "the runner's organisation (not named in the journal)"
    return f"none stated ({info.get('label', role)})"


def visible(events: list[dict[str, Any]], role: str) -> list[dict[str, Any]]:
    """The lines a role may be shown: all of them for the runner; for anyone else every line but
    a sealed onset not yet revealed."""
    if role == RUNNER:
        return events
    revealed = {e["data"]["target"] for e in events if e["kind"] == "reveal"}
    return [e for e in events if not (e["kind"] == "drift.onset" and e["at"] is None and e["seq"] not in revealed)]


def starts_injection(kind: str, data: dict[str, Any]) -> bool:
    """Whether a line of ``kind`` with ``data`` starts an injection: the injected onset, the
    raised incident, the forced production rollback."""
    injected = data.get("source", "exercise") == "exercise"
    return kind == "incident.raised" or (injected and kind == "drift.onset") or (
        injected and kind == "rollback.criterion-met" and data.get("kind") == "production")


def who_may(kind: str) -> str:
    """The roles that record ``kind``, in words."""
    t = table()
    if kind == "correction":
        roles = list(t.correct)
    elif kind == "dispute":
        roles = sorted(t.dispute)
    elif kind in JUDGEMENTS:
        roles = list(t.accept)
    else:
        roles = list(t.record.get(kind, {}))
    return ", ".join(f"the {t.label(r)}" for r in roles) or "no one"


def may_record(role: str, kind: str) -> bool:
    """Whether ``role`` records ``kind`` at all (its ids and targets are judged by ``authorise``)."""
    t = table()
    if kind == "correction":
        return role in t.correct
    if kind == "dispute":
        return role in t.dispute
    if kind in JUDGEMENTS:
        return role in t.accept
    return role in t.record.get(kind, {})


@dataclass
class Facts:
    """What ``authorise`` needs to know of an id from the lines its actor may see."""

    signed: bool = False  # a safety.agreed names it
    raised: bool = False  # an incident.raised names it


def facts(ident: str, lines: list[dict[str, Any]]) -> Facts:
    return Facts(any(e["kind"] == "safety.agreed" and e["id"] == ident for e in lines),
                 any(e["kind"] == "incident.raised" and e["id"] == ident for e in lines))


def authorise(actor: Actor, kind: str, ident: str, data: dict[str, Any], header: dict[str, Any], *,
              seal: bool = False, about: Facts | None = None,
              lines: list[dict[str, Any]] | None = None) -> tuple[str, dict[str, Any]]:
    """Refuse what ``actor`` may not write; otherwise the ``by`` and the data to write.

    ``lines``: the journal's lines (a correction, a judgement of a claim and a dispute are decided
    from those the actor may see, so that no answer tells of a sealed line); ``about``: the facts of
    ``ident`` when the lines are not at hand (an append decided on the sidecar index)."""
    from day60.events import KINDS

    t = table()
    role = actor.role
    if kind not in KINDS:  # as the journal answers it, whoever asks
        raise InputError("KIND", f"{kind[:60]!r} is not an event kind", "see 'day60 kinds' for the list")
    if role not in t.roles:
        raise NotPermitted("role", f"{role[:40]!r} is not a role of the access list", "see roles/" + TABLE)
    label = t.label(role)
    data = dict(data)
    if role != TOOLKIT and actor.name is not None:
        check_person(actor.name, role, header, lines=lines)
    if role != TOOLKIT:
        check_ident(ident, kind, visible(lines, role) if lines is not None else None)
    if role != TOOLKIT:
        ours = sorted(set(data) & t.toolkit_fields)
        if ours:
            raise NotPermitted(", ".join(f"data.{k}" for k in ours), "is written by the toolkit itself, never by a "
                               "person", "leave it out (a seal is made with --seal, a late press by the page)")
    _may_write_fields(role, kind, data)
    if seal and role != RUNNER:
        raise NotPermitted("seal", "only the runner seals an injected onset", "ask the runner")
    shown = visible(lines, role) if lines is not None else None
    if kind == "correction":
        _may_correct(actor, data, header, shown or [])
    elif kind == "dispute":
        if role not in t.dispute:
            raise NotPermitted("kind", f"the {label} does not raise disputes",
                               f"disputes are raised by {who_may(kind)}")
        given = [k for k in IDENTITY if k in data]
        if given:
            raise NotPermitted(", ".join(f"data.{k}" for k in given), "is taken from who raises the dispute, never "
                               "from the request", "send the rubric line and the reason only")
        data.update(raised_by=actor.person(header), organisation=organisation(role, header))
    elif kind in JUDGEMENTS:
        _may_judge(actor, data, shown or [])
    else:
        _may_record(actor, kind, ident, data, about if about is not None else facts(ident, shown or []))
    return actor.by(header), data


def _may_write_fields(role: str, kind: str, data: dict[str, Any]) -> None:
    """Refuse a data field the table's ``fields`` does not give ``role`` on ``kind`` (a dispute's
    identity is refused by the dispute's own rule, with its own reason)."""
    t = table()
    mine = t.writes(role, kind)
    if mine is None or not may_record(role, kind):  # a kind it may not record is refused as such
        return
    extra = sorted(set(data) - set(mine) - (set(IDENTITY) if kind == "dispute" else set()))
    if extra:
        takes = ", ".join(mine) or "no data field (its instant only)"
        raise NotPermitted(", ".join(f"data.{k}" for k in extra),
                           f"the {t.label(role)} does not set {', '.join(extra)} on {kind}: its line is for "
                           "what it claims, and may move no other figure",
                           f"leave {', '.join(extra)} out; on {kind} the {t.label(role)} writes: {takes}")


def _may_record(actor: Actor, kind: str, ident: str, data: dict[str, Any], about: Facts) -> None:
    t = table()
    role, label = actor.role, t.label(actor.role)
    scope = t.record.get(kind, {}).get(role)
    if scope is None:
        if t.toolkit_only(kind):
            raise NotPermitted("kind", f"{kind} is written only by the toolkit itself, from no client",
                               "it is made by the command that owns it (day60 stamp, reveal, notice)")
        raise NotPermitted("kind", f"the {label} does not record {kind}", f"{kind} is recorded by {who_may(kind)}")
    if scope == "any":
        return
    if scope in ("injection", "injection claim"):
        if not about.signed:
            raise NotPermitted("id", f"{ident[:60]} is not an injection signed off in this journal",
                               f"the {label} records {kind} for a signed-off injection only")
        return
    if starts_injection(kind, data):
        raise NotPermitted("kind", f"{kind} starts an injection, which only the runner does",
                           "ask the runner; a real incident or rollback is recorded with source organic")
    # Under a signed-off injection's id, what begins a drift, an incident or a rollback is the
    # runner's until the runner has begun it: anyone else's would take the id and choose its facts.
    if kind in BEGINS and about.signed and not (kind.startswith("incident.") and about.raised):
        raise NotPermitted("id", f"{ident[:60]} is the id of a signed-off injection, which only the runner starts",
                           "give a real drift, incident or rollback an id of its own")
    if scope == "claim":
        from day60.events import DATA_MODELS

        if "source" in DATA_MODELS[kind].model_fields and "source" not in data:
            # not the claimant's to say: the journal's own word (the runner raised it, or it is real)
            data["source"] = "exercise" if about.raised else "organic"
        missing = [f for f in t.claim_fields.get(kind, ()) if not data.get(f)]
        if missing:
            raise InputError(", ".join(f"--set {f}" for f in missing), f"a claim of {kind} names the {missing[0]} it "
                             "claims", f"add {' '.join(f'--set {f}=...' for f in missing)}")


def _target(data: dict[str, Any], shown: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The line ``data["target"]`` names, read as the event's model reads it (true, 1.0 and " 01 "
    all name seq 1, so no spelling of a seq slips past the checks below); the seq read is written
    back. None when there is no such line among ``shown``, or no seq at all (the model says so)."""
    from pydantic import TypeAdapter, ValidationError

    try:
        target = TypeAdapter(int).validate_python(data.get("target"))
    except ValidationError:
        return None
    data["target"] = target
    return next((e for e in shown if e["seq"] == target), None)


def _may_correct(actor: Actor, data: dict[str, Any], header: dict[str, Any], shown: list[dict[str, Any]]) -> None:
    t = table()
    role, label = actor.role, t.label(actor.role)
    rule = t.correct.get(role)
    if rule is None:
        raise NotPermitted("kind", f"the {label} does not correct lines",
                           f"corrections are made by {who_may('correction')}")
    line = _target(data, shown)
    if line is None:
        if not isinstance(data.get("target"), int):
            return  # no seq at all: the event's model names the fault
        raise InputError("--seq", f"{data['target']} is not an earlier event that carries a time",
                         "name the seq of the event to correct (see 'day60 show')")
    if rule.get("lines") == "own" and line["by"] != actor.by(header):
        raise NotPermitted("--seq", f"line {line['seq']} was recorded by {line['by']}",
                           "ask its author or the runner to correct it")
    if rule.get("until") and any(e["kind"] in ("exercise.close", "reveal") for e in shown):
        raise NotPermitted("--seq", f"the {label} corrects no line once the exercise is closed or an onset revealed "
                           "(the instant it is measured from would be known)", "raise a dispute instead")


def _may_judge(actor: Actor, data: dict[str, Any], shown: list[dict[str, Any]]) -> None:
    t = table()
    whose = t.accept.get(actor.role)
    if not whose:
        raise NotPermitted("kind", f"the {t.label(actor.role)} does not accept or reject claims",
                           f"claims are judged by {who_may('accept')}")
    line = _target(data, shown)
    if line is None:
        if isinstance(data.get("target"), int):
            raise InputError("--seq", f"{data['target']} is not a claim of this journal",
                             "name the seq of a claim (see 'day60 show': lines the supplier recorded)")
        return
    if not is_claim(line):
        raise InputError("--seq", f"line {line['seq']} ({line['kind']} by {line['by'][:80]}) is not a claim of the "
                                  "measured party", "only a claim the supplier recorded is accepted or rejected; the "
                                                    "other lines count as recorded")
    if role_of(line["by"]) not in whose:
        raise NotPermitted("--seq", f"line {line['seq']} is a claim the {t.label(actor.role)} does not judge",
                           f"claims of the {t.label(role_of(line['by']) or '')} are judged by {who_may('accept')}")


def is_claim(line: dict[str, Any]) -> bool:
    """Whether a line is a claim: recorded by a role under a ``claim`` scope, or a correction by
    a role some of whose lines are claims (it would move a claim's instant)."""
    role = role_of(line.get("by"))
    if role is None:
        return False
    t = table()
    if line["kind"] == "correction":
        return role in t.claimants()
    return t.record.get(line["kind"], {}).get(role) in CLAIM_SCOPES


def judgements(events: list[dict[str, Any]]) -> dict[int, dict[str, Any]]:
    """seq of each judged claim -> the accept or reject line that judged it (the first: a claim
    is judged once)."""
    out: dict[int, dict[str, Any]] = {}
    for e in events:
        if e["kind"] in JUDGEMENTS:
            out.setdefault(e["data"]["target"], e)
    return out


def claim_status(line: dict[str, Any], judged: dict[int, dict[str, Any]]) -> str | None:
    """"accepted", "rejected" or "pending" for a claim; None for a line that is not one."""
    if not is_claim(line):
        return None
    verdict = judged.get(line["seq"])
    return "pending" if verdict is None else "accepted" if verdict["kind"] == "accept" else "rejected"


LATE = ("pressed_at", "press_key")  # what the toolkit itself adds to a person's line (a press sent late, its key)


def claimed(line: dict[str, Any]) -> dict[str, Any]:
    """The data a claim carries into the figures: only the fields the table's ``fields`` gives its
    role on its kind (and a late press's browser time), so a severity or a source on the line,
    typed outside the toolkit or filled in by the kind's model, moves no figure."""
    mine = table().writes(role_of(line.get("by")) or "", line["kind"])
    if mine is None:
        return line["data"]
    return {k: v for k, v in line["data"].items() if k in mine or k in LATE}


def claim_rows(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every claim of the measured party in ``events`` and how it stands (accepted, rejected or
    pending), with what accepting it would put into the figures and who judged it, and why."""
    judged = judgements(events)
    rows = []
    for e in events:
        status = claim_status(e, judged)
        if status is None:
            continue
        verdict = judged.get(e["seq"])
        fields = claimed(e)
        rows.append({"seq": e["seq"], "kind": e["kind"], "id": e["id"], "at": e["at"], "by": e["by"],
                     "fields": fields, "accepting": _accepting(e["kind"], e["at"], fields), "status": status,
                     "judged": f"seq {verdict['seq']} by {verdict['by']}: {verdict['data']['reason']}" if verdict
                     else ""})
    return rows


def _accepting(kind: str, at: str | None, fields: dict[str, Any]) -> str:
    """What accepting a claim puts into the figures, every field of it, in words (never None)."""
    if kind == "correction":
        said = f"seq {fields.get('target', '?')} moved to {fields.get('at', '?')}"
    else:
        said = f"{kind} at {at or 'no time'}"
    rest = [f"{k}={v}" for k, v in fields.items() if not (kind == "correction" and k in ("target", "at"))]
    return "; ".join([said, *rest])


def in_force(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every line but a correction that is a claim not (or not yet) accepted: the lines a line's
    time is read from. A correction the supplier claims moves no time, on any page or report, until
    an auditor accepts it; the claim lines themselves stay (they are shown, marked, everywhere)."""
    if not any(e["kind"] == "correction" and is_claim(e) for e in events):
        return events
    judged = judgements(events)
    return [e for e in events if e["kind"] != "correction" or claim_status(e, judged) in (None, "accepted")]


def corrections_claimed(events: list[dict[str, Any]], when: Callable[[str], str]) -> dict[int, list[str]]:
    """seq of a line -> what each correction of it that is claimed and not accepted says, in words,
    its claimed time put by ``when`` (the front end's zone and form): "correction to 03:45:02
    claimed by the supplier (seq 18), awaiting an auditor's acceptance", or "..., rejected by seq 20"."""
    judged = judgements(events)
    out: dict[int, list[str]] = {}
    for e in events:
        if e["kind"] != "correction":
            continue
        status = claim_status(e, judged)
        if status not in ("pending", "rejected"):
            continue
        said = "awaiting an auditor's acceptance" if status == "pending" else \
            f"rejected by seq {judged[e['seq']]['seq']}"
        out.setdefault(e["data"]["target"], []).append(
            f"correction to {when(e['data']['at'])} claimed by the {role_of(e['by'])} "
            f"(seq {e['seq']}), {said}")
    return out


def counted(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The lines the figures read: every line but a claim not (or not yet) accepted, an accepted
    claim holding only the data its role writes (``claimed``). A cheap pass when the journal holds
    no claim."""
    if not any(role_of(e.get("by")) in table().claimants() for e in events):
        return events
    judged = judgements(events)
    out = []
    for e in events:
        status = claim_status(e, judged)
        if status is None:
            out.append(e)
        elif status == "accepted":
            data = claimed(e)
            out.append(e if data == e["data"] else {**e, "data": data})
    return out


def markdown() -> str:
    """The access list as Markdown tables, as docs/serve.md quotes it (a test holds the two equal)."""
    t = table()
    roles = list(t.roles)
    head = "| kind | " + " | ".join(roles) + " |\n| --- |" + " --- |" * len(roles) + "\n"
    rows = [f"| `{kind}` | " + " | ".join(grants.get(r, "-") for r in roles) + " |"
            for kind, grants in t.record.items()]

    def correct(role: str) -> str:
        rule = t.correct.get(role)
        if rule is None:
            return "-"
        return rule["lines"] + (f", until {rule['until']}" if rule.get("until") else "")

    actions = [
        "| `correction` | " + " | ".join(correct(r) for r in roles) + " |",
        "| `dispute` | " + " | ".join("yes" if r in t.dispute else "-" for r in roles) + " |",
        "| `accept`, `reject` | " + " | ".join(", ".join(f"claims of the {w}" for w in t.accept[r])
                                              if r in t.accept else "-" for r in roles) + " |",
    ]
    limits = ["", "| role | kind | the only data fields it writes |", "| --- | --- | --- |"]
    limits += [f"| {r} | `{kind}` | {', '.join(f'`{f}`' for f in fields) or 'none (its instant only)'} |"
               for r, kinds in t.fields.items() for kind, fields in kinds.items()]
    return head + "\n".join(rows + actions + (limits if t.fields else [])) + "\n"

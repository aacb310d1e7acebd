"""What the live checklist offers next: open items of a journal and the fields each kind asks.

Pure data from a journal; the CLI does the asking.
"""

from __future__ import annotations

import typing
from dataclasses import dataclass
from typing import Any

from day60.events import DATA_MODELS
from day60.journal import Effective, effective

_AUTOMATIC = {"note", "commitment", "period", "target", "salt"}
_ALWAYS_ASKED = {"source"}  # injected or organic decides whether a safety sign-off is needed


@dataclass(frozen=True)
class Step:
    label: str
    kind: str
    id: str | None  # None: ask for a new id


@dataclass(frozen=True)
class Ask:
    name: str
    kind: str  # "text" | "bool" | "choice" | "int"
    choices: tuple[str, ...] = ()
    help: str = ""


def fields_for(kind: str) -> list[Ask]:
    """The data fields a person must supply for ``kind``, from its model."""
    out = []
    for name, info in DATA_MODELS[kind].model_fields.items():
        if name in _AUTOMATIC or (not info.is_required() and name not in _ALWAYS_ASKED):
            continue
        annotation = info.annotation
        origin = typing.get_origin(annotation)
        if annotation is bool:
            out.append(Ask(name, "bool", help=info.description or ""))
        elif annotation is int:
            out.append(Ask(name, "choice", ("1", "2", "3", "4"), info.description or ""))
        elif origin is typing.Literal:
            out.append(Ask(name, "choice", tuple(typing.get_args(annotation)), info.description or ""))
        else:
            out.append(Ask(name, "text", help=info.description or ""))
    return out


def _by_id(events: list[Effective]) -> dict[str, set[str]]:
    seen: dict[str, set[str]] = {}
    for e in events:
        seen.setdefault(e.id, set()).add(e.kind)
    return seen


def status(events: list[dict[str, Any]]) -> dict[str, list[str]]:
    """Open items by area, as short sentences, for the header of the live screen."""
    eff = effective(events)
    kinds = _by_id(eff)
    out: dict[str, list[str]] = {"drift": [], "incidents": [], "rollbacks": []}
    for ident, ks in kinds.items():
        if "drift.onset" in ks and "drift.notice" not in ks:
            detected = "" if "drift.detected" in ks else ", not detected"
            out["drift"].append(f"{ident}: no written notice yet{detected}")
        started = {"incident.detected", "incident.partner-notice"} & ks
        if started and not {"incident.restored", "incident.withdrawn", "incident.excluded"} & ks:
            out["incidents"].append(f"{ident}: not restored")
        if "rollback.criterion-met" in ks and "rollback.smoke-pass" not in ks:
            out["rollbacks"].append(f"{ident}: no smoke pass yet")
    return out


def next_steps(events: list[dict[str, Any]]) -> list[Step]:
    """Follow-ups for open items first, then the steps that start something new."""
    eff = effective(events)
    kinds = _by_id(eff)
    open_waits: dict[tuple[str, str], int] = {}
    for e in eff:
        for pause in ("wait", "change-window"):
            if e.kind == f"incident.{pause}-start":
                open_waits[(e.id, pause)] = open_waits.get((e.id, pause), 0) + 1
            elif e.kind == f"incident.{pause}-end":
                open_waits[(e.id, pause)] -= 1
    steps: list[Step] = []
    for ident, ks in kinds.items():
        if "safety.agreed" in ks and not {"drift.onset", "incident.detected", "rollback.criterion-met"} & ks:
            steps += [Step(f"{ident}: start the drift injection (onset)", "drift.onset", ident),
                      Step(f"{ident}: raise the incident", "incident.detected", ident),
                      Step(f"{ident}: rollback criterion met", "rollback.criterion-met", ident)]
        if "drift.onset" in ks and "drift.notice" not in ks:
            if "drift.detected" not in ks:
                steps.append(Step(f"{ident}: supplier detected the drift", "drift.detected", ident))
            steps.append(Step(f"{ident}: written notice received", "drift.notice", ident))
        started = {"incident.detected", "incident.partner-notice"} & ks
        if started and not {"incident.restored", "incident.withdrawn", "incident.excluded"} & ks:
            if "incident.detected" not in ks:
                steps.append(Step(f"{ident}: supplier detected it (gives the severity)", "incident.detected", ident))
            if "incident.partner-notice" not in ks:
                steps.append(Step(f"{ident}: partner notified the supplier", "incident.partner-notice", ident))
            if "incident.communicated" not in ks:
                steps.append(Step(f"{ident}: first communication to the partner", "incident.communicated", ident))
            for pause, label in (("wait", "waiting on partner"), ("change-window", "agreed change window")):
                if open_waits.get((ident, pause), 0) > 0:
                    steps.append(Step(f"{ident}: {label} ends", f"incident.{pause}-end", ident))
                else:
                    steps.append(Step(f"{ident}: {label} starts", f"incident.{pause}-start", ident))
            steps += [Step(f"{ident}: restore confirmed by monitoring", "incident.restored", ident),
                      Step(f"{ident}: withdrawn as not reproducible", "incident.withdrawn", ident)]
        if "rollback.criterion-met" in ks:
            order = ["rollback.decision", "rollback.serving", "rollback.smoke-pass", "rollback.requeue-complete"]
            labels = ["decision recorded", "previous release serving", "smoke set passed", "re-queue complete"]
            for kind, label in zip(order, labels, strict=True):
                if kind not in ks:
                    steps.append(Step(f"{ident}: {label}", kind, ident))
                    if kind == "rollback.decision":
                        break
    steps += [
        Step("new: safety sign-off for an injection", "safety.agreed", None),
        Step("new: incident notified by the partner", "incident.partner-notice", None),
        Step("new: supplier alert withdrawn as false", "drift.false-alert", None),
        Step("new: monthly report received", "report.received", None),
        Step("new: monthly report element checked", "report.element", None),
        Step("close the exercise", "exercise.close", "exercise"),
    ]
    return steps

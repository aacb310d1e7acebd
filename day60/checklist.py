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
# Asked even though optional: injected or organic decides the safety gate and the seal; the class
# an onset shifts is what a notice must name; a partner notice may state the severity.
_ALWAYS_ASKED = {"source", "affected_class", "severity"}
NOT_STATED = "not stated"


@dataclass(frozen=True)
class Step:
    label: str
    kind: str
    id: str | None  # None: ask for a new id


@dataclass(frozen=True)
class Ask:
    name: str
    kind: str  # "text" | "bool" | "choice"
    choices: tuple[str, ...] = ()
    help: str = ""
    required: bool = True


def fields_for(kind: str) -> list[Ask]:
    """The data fields a person must supply for ``kind``, from its model."""
    out = []
    for name, info in DATA_MODELS[kind].model_fields.items():
        if name in _AUTOMATIC or (not info.is_required() and name not in _ALWAYS_ASKED):
            continue
        annotation, required, text = info.annotation, info.is_required(), info.description or ""
        inner = [a for a in typing.get_args(annotation) if a is not type(None)]
        if typing.get_origin(annotation) is not typing.Literal and len(inner) == 1:
            annotation = inner[0]  # "X | None": the optional X
        origin = typing.get_origin(annotation)
        if annotation is bool:
            out.append(Ask(name, "bool", help=text, required=required))
        elif annotation is int:
            choices = ("1", "2", "3", "4") if required else ("1", "2", "3", "4", NOT_STATED)
            out.append(Ask(name, "choice", choices, text, required))
        elif origin is typing.Literal:
            values = typing.get_args(annotation)  # the model's default is offered first
            ordered = sorted(values, key=lambda v: v != info.default)
            out.append(Ask(name, "choice", tuple(ordered), text, required))
        else:
            out.append(Ask(name, "text", help=text, required=required))
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
        started = {"incident.raised", "incident.detected", "incident.partner-notice"} & ks
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
        begun = {"drift.onset", "incident.raised", "incident.detected", "rollback.criterion-met"} & ks
        ended = {"injection.stopped", "injection.not-run"} & ks
        if "safety.agreed" in ks and not begun and not ended:
            steps += [Step(f"{ident}: start the drift injection (onset, sealed)", "drift.onset", ident),
                      Step(f"{ident}: raise the incident (the exercise creates the fault)", "incident.raised", ident),
                      Step(f"{ident}: rollback criterion met", "rollback.criterion-met", ident),
                      Step(f"{ident}: not run: the safety conditions were not met", "injection.not-run", ident)]
        elif "safety.agreed" in ks and begun and not ended:
            steps.append(Step(f"{ident}: injection stopped by its stop condition", "injection.stopped", ident))
        if "drift.onset" in ks and "drift.notice" not in ks:
            if "drift.detected" not in ks:
                steps.append(Step(f"{ident}: supplier detected the drift", "drift.detected", ident))
            steps.append(Step(f"{ident}: written notice received", "drift.notice", ident))
        started = {"incident.raised", "incident.detected", "incident.partner-notice"} & ks
        if started and not {"incident.restored", "incident.withdrawn", "incident.excluded"} & ks:
            if "incident.detected" not in ks:
                steps.append(Step(f"{ident}: supplier detected it (gives the severity)", "incident.detected", ident))
            if "incident.partner-notice" not in ks:
                steps.append(Step(f"{ident}: partner notified the supplier", "incident.partner-notice", ident))
            steps.append(Step(f"{ident}: severity set or changed", "incident.classified", ident))
            if {"incident.detected", "incident.partner-notice"} & ks:  # the restore clock has started
                if "incident.communicated" not in ks:
                    steps.append(Step(f"{ident}: first communication to the partner", "incident.communicated",
                                      ident))
                for pause, label in (("wait", "waiting on partner"), ("change-window", "agreed change window")):
                    if open_waits.get((ident, pause), 0) > 0:
                        steps.append(Step(f"{ident}: {label} ends", f"incident.{pause}-end", ident))
                    else:
                        steps.append(Step(f"{ident}: {label} starts", f"incident.{pause}-start", ident))
                steps.append(Step(f"{ident}: restore confirmed by monitoring", "incident.restored", ident))
            steps.append(Step(f"{ident}: withdrawn as not reproducible", "incident.withdrawn", ident))
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

"""The interactive live checklist: questionary prompts over ``checklist`` and ``journal``.

Every answer is appended at once, so Ctrl-C (or a crash) loses nothing already recorded.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from pathlib import Path
from typing import Annotated
from zoneinfo import ZoneInfo

import questionary
from pydantic import TypeAdapter, ValidationError

from day60 import checklist, journal, timeparse
from day60.errors import InputError, pydantic_problem
from day60.events import DATA_MODELS, Ident


class _Stop(Exception):
    pass


def _ask(question: questionary.Question) -> str:
    answer = question.ask()
    if answer is None:  # Ctrl-C or end of input
        raise _Stop
    return answer


def run_checklist(path: Path, echo: Callable[[str], None], held: Path | None = None) -> int:
    """Loop: show open items, offer next steps, record one event per choice. Returns events written."""
    written = 0
    try:
        while True:
            j = journal.read(path)
            tz = ZoneInfo(j.header["calendar"]["timezone"])
            status = checklist.status(j.events)
            echo(f"\n{j.header['partner']} / {j.header['supplier']}: {len(j.events)} events recorded")
            for area, items in status.items():
                echo(f"  open {area}: " + ("; ".join(items) if items else "none"))
            steps = checklist.next_steps(j.events)
            choices = [questionary.Choice(s.label, value=i) for i, s in enumerate(steps)]
            choices.append(questionary.Choice("quit (everything is already saved)", value=-1))
            picked = _ask(questionary.select("Next step", choices=choices))
            stamp = timeparse.now()  # the keypress that chose the step
            if picked == -1:
                break
            step = steps[picked]
            try:
                event, when = _record(path, step, stamp, tz, held)
            except InputError as exc:
                echo(f"not recorded: {exc}")
                continue
            written += 1
            shown = when.astimezone(tz).isoformat() + ("" if event["at"] else f" (sealed: only {held} holds it)")
            echo(f"recorded seq {event['seq']}: {event['kind']} {event['id']} at {shown}")
            if step.kind == "exercise.close":
                break
    except (_Stop, KeyboardInterrupt):
        echo("stopped; everything recorded so far is in the journal")
    return written


def _checker(check: Callable[[str], object]) -> Callable[[str], bool | str]:
    """A questionary validator: True, or the refusal shown under the prompt while it stays open."""

    def validate(text: str) -> bool | str:
        try:
            check(text)
        except InputError as exc:
            return f"{exc.problem}; {exc.fix}" if exc.fix else exc.problem
        except ValidationError as exc:
            return pydantic_problem(exc)[1]
        return True

    return validate


def _field_adapter(kind: str, name: str) -> TypeAdapter:
    info = DATA_MODELS[kind].model_fields[name]
    return TypeAdapter(Annotated[info.annotation, *info.metadata]) if info.metadata else TypeAdapter(info.annotation)


def _record(path: Path, step: checklist.Step, stamp: dt.datetime, tz: ZoneInfo,
            held: Path | None = None) -> tuple[dict, dt.datetime]:
    ident = step.id or _ask(questionary.text("Id (injection, incident, rollback, period or element)",
                                             validate=_checker(TypeAdapter(Ident).validate_python)))
    pressed: list[dt.datetime] = []

    def when_check(text: str) -> None:
        if not text.strip():
            pressed.append(timeparse.now())  # the instant Enter was pressed on an empty answer
        else:
            timeparse.parse_instant(text, tz, "when")

    when_text = _ask(questionary.text(
        f"When? Enter stamps the moment you press it (now {stamp.astimezone(tz).strftime('%H:%M:%S')}), "
        "or type a time", default="", validate=_checker(when_check)))
    when = (pressed[-1] if pressed else timeparse.now()) if not when_text.strip() \
        else timeparse.parse_instant(when_text, tz, "when")
    data: dict[str, object] = {}
    for ask in checklist.fields_for(step.kind):
        label = ask.name.replace("_", " ") + (f" ({ask.help})" if ask.help else "")
        if ask.kind == "bool":
            data[ask.name] = _ask(questionary.confirm(label, default=True))
        elif ask.kind == "choice":
            picked = _ask(questionary.select(label, choices=list(ask.choices)))
            if picked != checklist.NOT_STATED:
                data[ask.name] = picked
        else:
            adapter = _field_adapter(step.kind, ask.name)

            def check(text: str, adapter: TypeAdapter = adapter, required: bool = ask.required) -> object:
                return adapter.validate_python(text) if text.strip() or required else None

            label += "" if ask.required else " (Enter to leave it out)"
            answer = _ask(questionary.text(label, validate=_checker(check)))
            if answer.strip():
                data[ask.name] = answer
    seal = None
    if step.kind == "drift.onset" and data.get("source", "exercise") == "exercise":
        if held is None:
            raise InputError("--held", "an injected onset is sealed into the runner's held file",
                             "restart with 'day60 live JOURNAL --held FILE' (or record a real drift as organic)")
        seal = held
    return journal.append(path, step.kind, ident, when, data, seal=seal), when

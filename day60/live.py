"""The interactive live checklist: questionary prompts over ``checklist`` and ``journal``.

Every answer is appended at once, so Ctrl-C (or a crash) loses nothing already recorded.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from zoneinfo import ZoneInfo

import questionary

from day60 import checklist, journal, timeparse
from day60.errors import InputError


class _Stop(Exception):
    pass


def _ask(question: questionary.Question) -> str:
    answer = question.ask()
    if answer is None:  # Ctrl-C or end of input
        raise _Stop
    return answer


def run_checklist(path: Path, echo: Callable[[str], None]) -> int:
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
                event = _record(path, step, stamp, tz)
            except InputError as exc:
                echo(f"not recorded: {exc}")
                continue
            written += 1
            echo(f"recorded seq {event['seq']}: {event['kind']} {event['id']} at {event['at']}")
            if step.kind == "exercise.close":
                break
    except (_Stop, KeyboardInterrupt):
        echo("stopped; everything recorded so far is in the journal")
    return written


def _record(path: Path, step: checklist.Step, stamp, tz: ZoneInfo) -> dict:
    ident = step.id or _ask(questionary.text("Id (injection, incident, rollback, period or element)"))
    when_text = _ask(questionary.text(
        f"When? Enter for the keypress ({stamp.astimezone(tz).strftime('%H:%M:%S')}), or type a time",
        default=""))
    when = stamp if not when_text.strip() else timeparse.parse_instant(when_text, tz, "when")
    data: dict[str, object] = {}
    for ask in checklist.fields_for(step.kind):
        label = ask.name.replace("_", " ") + (f" ({ask.help})" if ask.help else "")
        if ask.kind == "bool":
            data[ask.name] = _ask(questionary.confirm(label, default=True))
        elif ask.kind == "choice":
            data[ask.name] = _ask(questionary.select(label, choices=list(ask.choices)))
        else:
            data[ask.name] = _ask(questionary.text(label))
    return journal.append(path, step.kind, ident, when, data)

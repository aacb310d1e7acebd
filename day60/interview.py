"""The self-assessment interview on a terminal: questionary prompts over ``selfassess``.

Each answer is saved before the next question is asked, so Ctrl-C loses nothing; the same
answers file resumes the interview where it stopped.
"""

from __future__ import annotations

from collections.abc import Callable

import questionary

from day60 import selfassess
from day60.errors import InputError

DONT_KNOW = "don't know / no record"


def run_interview(qs: selfassess.QuestionSet, ans: selfassess.Answers, echo: Callable[[str], None]) -> bool:
    """Ask every pending question; returns True when the interview is complete."""
    while True:
        q = selfassess.pending(qs, ans.answers)
        if q is None:
            return True
        number = len([k for k in ans.answers if not k.startswith("_")]) + 1
        total = selfassess.expected_total(qs, ans.answers)
        echo(f"\n[{q.section_title}] question {number} of about {total}" + (f" ({q.item})" if q.item else ""))
        if q.help:
            echo(f"  {q.help}")
        answer = _ask(q)
        if answer is _STOP:
            echo(f"stopped; {len(ans.answers)} answer(s) saved to {ans.path}; resume with --resume {ans.path}")
            return False
        try:
            ans.answers[q.key] = selfassess.parse_answer(q, answer, selfassess.tz_of(ans.answers, ans.deal_calendar),
                                                         ans.deal_calendar)
        except InputError as exc:
            echo(f"not accepted: {exc}")
            continue
        ans.save(qs)


_STOP = object()


def _ask(q: selfassess.Question) -> object:
    if q.type in ("choice", "yesno"):
        choices = list(q.choices) if q.type == "choice" else ["yes", "no"]
        answer = questionary.select(q.ask, choices=[*choices, DONT_KNOW]).ask()
    else:
        hint = " (type ? if you don't know)"
        answer = questionary.text(q.ask + hint).ask()
        if answer is not None and answer.strip() == "?":
            return None
    if answer is None:
        return _STOP
    return None if answer == DONT_KNOW else answer

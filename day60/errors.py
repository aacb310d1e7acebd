"""The project's exception types. The CLI turns them into one-line messages and exit codes."""

from typing import Any


class Day60Error(Exception):
    """Root of every error the toolkit raises on purpose."""

    exit_code = 2


class InputError(Day60Error):
    """Something a person supplied is wrong. Names the field and the fix; exit code 2."""

    def __init__(self, field: str, problem: str, fix: str = "") -> None:
        self.field = field
        self.problem = problem
        self.fix = fix
        text = f"{field}: {problem}"
        if fix:
            text += f"; {fix}"
        super().__init__(text)


class Note(UserWarning):
    """Something the user should know though the command succeeded (what was and was not written);
    the CLI prints each as one 'note:' line."""


def pydantic_problem(exc: Any, prefix: str = "", limit: int = 8) -> tuple[str, str]:
    """Every error of a pydantic ValidationError (up to ``limit``) as (field paths, message), in
    words: one field reads "field", "message"; several read "a, b", "a: ...; b: ...", so a person
    fixes them all at once."""
    found = [_one_problem(err, prefix) for err in exc.errors()]
    found = list(dict.fromkeys(found))
    if len(found) == 1:
        return found[0]
    shown = found[:limit]
    more = f"; and {len(found) - limit} more" if len(found) > limit else ""
    return ", ".join(f for f, _ in shown), "; ".join(f"{f}: {m}" for f, m in shown) + more


def _one_problem(err: dict[str, Any], prefix: str) -> tuple[str, str]:
    loc = ".".join(str(p) for p in err["loc"])
    msg = err["msg"]
    words = {"bool_parsing": "must be true or false", "bool_type": "must be true or false",
             "int_parsing": "must be a whole number", "int_type": "must be a whole number",
             "float_parsing": "must be a number", "missing": "is missing"}
    if err["type"] in words:
        msg = words[err["type"]]
    if err["type"] == "string_pattern_mismatch":
        pattern = str((err.get("ctx") or {}).get("pattern", ""))
        if "Cf" in pattern:
            msg = ("must hold something visible, and no control, invisible (such as U+200B, U+FEFF) or "
                   "direction-changing (such as U+202E) characters")
        elif "{4}-" in pattern:
            msg = "must be a month written YYYY-MM"
        elif "{64}" in pattern or "{32}" in pattern:
            msg = "must be lowercase hexadecimal digits of the right length"
        else:
            msg = "is not in the required form"
    return (f"{prefix}{loc}" if loc else prefix.rstrip(".") or "value"), msg

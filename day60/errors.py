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


def pydantic_problem(exc: Any, prefix: str = "") -> tuple[str, str]:
    """The first error of a pydantic ValidationError as (field path, message), the message in words."""
    err = exc.errors()[0]
    loc = ".".join(str(p) for p in err["loc"])
    msg = err["msg"]
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

"""The ``day60`` command line: parse, call the library, print. One module per command group
(``clock``, ``journal``, ``web``, ``figures``, ``scores``, ``evidence``, ``voice``, ``clauses``, ``selfassess``), each
thin; ``base`` holds the single error path, the apps and the output helpers.
"""

from __future__ import annotations

import os
import sys

# The command line uses no pydantic plugin; looking for them scans every installed package's
# entry points (about 8 ms at start-up). A user who wants plugins can set the variable otherwise.
os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")

# isort: off
# Imported in the order their commands are listed by "day60 --help": a working session's own order.
from day60.cli import clock, journal, web, imports, figures, scores, evidence, portfolio, clauses, selfassess  # noqa: F401
from day60.cli import voice, examples  # noqa: F401
# isort: on
from day60.cli.base import app, app_for

__all__ = ["app", "main"]


def main() -> None:
    """Console-script entry point: the app, built for the command the line names (``app_for``)."""
    app_for(sys.argv[1:])(prog_name="day60")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

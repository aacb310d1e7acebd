"""Where the shipped data lives: rubrics, clauses, question sets, templates, examples.

In a wheel the data folders are copied into ``day60/_data``; in a source checkout (editable
install) they sit beside the package. This module is the only place that knows either.
"""

from pathlib import Path
from typing import Any

_PACKAGE = Path(__file__).resolve().parent


def data_dir(name: str) -> Path:
    """Return the folder holding the shipped data set ``name`` (e.g. ``"rubric"``)."""
    for candidate in (_PACKAGE / "_data" / name, _PACKAGE.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"shipped data folder {name!r} is missing from this installation")


def example(name: str) -> Path:
    """Return a file from the package's own ``examples`` folder (calendars, demo inputs)."""
    return _PACKAGE / "examples" / name


def load_yaml(folder: str, name: str) -> Any:
    """Parse a shipped YAML file, e.g. ``load_yaml("rubric", "day60-v1.yaml")``."""
    import yaml

    with (data_dir(folder) / name).open(encoding="utf-8") as fh:
        return yaml.safe_load(fh)


def report_elements() -> list[dict[str, str]]:
    """The default monthly-report elements (rubric/report-elements-v1.yaml), in order."""
    return load_yaml("rubric", "report-elements-v1.yaml")["elements"]

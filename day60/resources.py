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


def import_rules() -> Path:
    """The state rules of ``day60 import`` (``day60/imports/states.yaml``): which vendor states mean
    a ticket is over, deleted or merged, and which records are not incidents. It ships inside the
    package, beside the import code it governs."""
    return _PACKAGE / "imports" / "states.yaml"


def example(name: str) -> Path:
    """Return a file from the package's own ``examples`` folder (calendars, demo inputs)."""
    return _PACKAGE / "examples" / name


def shipped_yaml(text: str | bytes) -> Any:
    """YAML the toolkit ships (its own rubrics, clauses, question sets), parsed by libyaml where
    PyYAML has it: the same values as ``yaml.safe_load``, about eight times faster. Never for a
    file a user or a report supplies: libyaml recurses in C and a deeply nested forgery crashes
    the process instead of raising."""
    import yaml

    return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


def load_yaml(folder: str, name: str) -> Any:
    """Parse a shipped YAML file, e.g. ``load_yaml("rubric", "day60-v1.yaml")``."""
    return shipped_yaml((data_dir(folder) / name).read_text(encoding="utf-8"))


def report_elements() -> list[dict[str, str]]:
    """The default monthly-report elements (rubric/report-elements-v1.yaml), in order."""
    return load_yaml("rubric", "report-elements-v1.yaml")["elements"]


# ----- shipped examples: what a newcomer can copy from a wheel ----------------------------------

def examples() -> dict[str, dict[str, Any]]:
    """Every shipped example by name: its files and what it is. Calendars are named as
    ``-c NAME`` takes them; the rest are groups of files (an import sample is its export and map)."""
    out: dict[str, dict[str, Any]] = {}
    for path in sorted((_PACKAGE / "examples").glob("*.toml")):
        out[path.stem] = {"kind": "calendar", "files": [path], "what": _first_comment(path)}
    out["synthetic-deal"] = {"kind": "deal", "files": [data_dir("clauses") / "examples" / "synthetic-sow.toml"],
                             "what": "a SYNTHETIC deal (SOW) file: parties, calendar, documents and every parameter"}
    out["synthetic-answers"] = {"kind": "self-assessment answers",
                                "files": [data_dir("selfassess") / "examples" / "synthetic-answers.json"],
                                "what": "a complete SYNTHETIC answers file for 'day60 selfassess --answers'"}
    out["synthetic-drills"] = {"kind": "drill observations",
                               "files": [data_dir("rubric") / "voice" / "examples" / "synthetic-drills.json"],
                               "what": "one SYNTHETIC recorded call's drill observations for 'day60 voice drills'"}
    out["voice-starter"] = {"kind": "voice suite", "files": [data_dir("rubric") / "voice" / "voice_starter.json"],
                            "what": "three SYNTHETIC voice tasks for 'day60 voice bench'"}
    imports = _PACKAGE / "imports" / "examples"
    for fmt, prefix, vendor in (("servicenow", "servicenow", "ServiceNow"),
                                ("jira", "jira", "Jira Service Management"), ("zendesk", "zendesk", "Zendesk"),
                                ("pagerduty", "pagerduty", "PagerDuty"), ("csv", "spreadsheet", "spreadsheet (CSV)")):
        files = sorted(imports.glob(f"{prefix}*"))
        if files:
            out[f"import-{fmt}"] = {"kind": "ticket export", "files": [*files, imports / "README.md"],
                                    "what": f"a SYNTHETIC {vendor} export and its map, for 'day60 import {fmt}'"}
    return out


def shipped_example(name: str) -> dict[str, Any]:
    """One shipped example by name; a name that is none is refused, suggesting the closest."""
    import difflib

    from day60.errors import InputError

    shipped = examples()
    if name not in shipped:
        close = difflib.get_close_matches(name, list(shipped), n=1)
        raise InputError("NAME", f"{name[:60]!r} is not a shipped example",
                         (f"did you mean {close[0]!r}? " if close else "") + f"use one of {', '.join(shipped)}")
    return shipped[name]


def _first_comment(path: Path) -> str:
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            return line.lstrip("# ").strip()
    return ""


def calendar_file(value: str | Path) -> Path:
    """A calendar given as a path, or as the name of a shipped one (``uk-office``): the file."""
    import os

    path = Path(value)
    if os.path.lexists(path):  # never raises: a name too long to be a file is simply not one
        return path
    name = path.name.removesuffix(".toml")
    shipped = _PACKAGE / "examples" / f"{name}.toml"
    if str(value) in (name, f"{name}.toml") and shipped.is_file():
        return shipped
    return path


def shipped_calendars() -> list[str]:
    return [name for name, e in examples().items() if e["kind"] == "calendar"]


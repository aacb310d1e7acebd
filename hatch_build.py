"""Build hook: record the source commit in the wheel, so an installed copy can name it.

Hatchling runs this for every build (``[tool.hatch.build.hooks.custom]`` in pyproject.toml). It
writes ``day60/_build.py`` into the artifact, never into the source tree: the commit hash of the
checkout being built, whether its tree differed from that commit (uncommitted or untracked files,
or files git ignores inside a folder the wheel copies whole), and which paths differed. An sdist
carries the record it was built with, so a wheel built later from that sdist, with no git at
hand, keeps the same record. With neither a checkout nor a record, nothing is written and the
toolkit says the commit is unknown.

It imports nothing from day60: a build environment holds only hatchling.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

RECORD = "day60/_build.py"
HASH = re.compile(r"[0-9a-f]{40}([0-9a-f]{24})?")


def _git(root: Path, *args: str) -> str | None:
    try:
        done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, timeout=30,
                              check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None


def _paths(status: str, ignored: bool = False) -> set[str]:
    """Paths in ``git status --porcelain=v1 -z`` output (a rename's old name, the entry after it,
    skipped); with ``ignored``, only the ignored ones ("!!"), bytecode caches left out."""
    out, skip = set(), False
    for entry in status.split("\0"):
        if skip or len(entry) < 4:
            skip = False
            continue
        skip = entry[0] in "RC"
        if ignored and (not entry.startswith("!!") or "__pycache__/" in entry):
            continue
        out.add(entry[3:])
    return out


def checkout(root: Path, shipped: tuple[str, ...] = ()) -> dict[str, Any] | None:
    """HEAD and the changed paths of ``root`` when it is itself the top of a git checkout that
    tracks this package; None when it is not (an unpacked sdist, or a folder inside some other
    project's repository). ``shipped`` are folders copied whole into the artifact (force-include):
    a file git ignores there still ships, so it counts as a change too."""
    top = _git(root, "rev-parse", "--show-toplevel")
    if top is None or Path(top.strip()).resolve() != root.resolve():
        return None
    if _git(root, "ls-files", "--error-unmatch", "day60/__init__.py") is None:
        return None
    head = (_git(root, "rev-parse", "HEAD") or "").strip()
    status = _git(root, "status", "--porcelain=v1", "-z", "--untracked-files=all")
    if not HASH.fullmatch(head) or status is None:
        return None
    changed = _paths(status)
    if shipped:
        extra = _git(root, "status", "--porcelain=v1", "-z", "--ignored=matching", "--untracked-files=all", "--",
                     *shipped)
        if extra is None:
            return None
        changed |= _paths(extra, ignored=True)
    return {"commit": head, "dirty": bool(changed), "changed": sorted(changed)}


def record_text(found: dict[str, Any]) -> str:
    return ('"""Written by hatch_build.py when this copy was built: the source commit and whether the\n'
            'tree differed from it. Generated, never edited; not in the repository."""\n\n'
            f"COMMIT = {found['commit']!r}\n"
            f"DIRTY = {found['dirty']!r}\n"
            f"CHANGED = {tuple(found['changed'])!r}\n")


class SourceCommitHook(BuildHookInterface):
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        self._tmp = None
        if version == "editable":
            return  # an editable install runs from the checkout, which is read at run time
        root = Path(self.root)
        shipped = tuple(sorted(os.path.relpath(source, root) for source in self.build_config.force_include))
        found = checkout(root, shipped)
        if found is None:
            shipped = root / RECORD
            if shipped.is_file():  # an unpacked sdist: keep the record it was built with
                build_data["force_include"][str(shipped)] = RECORD
            return
        self._tmp = tempfile.mkdtemp(prefix="day60-build-")
        path = Path(self._tmp) / "_build.py"
        path.write_text(record_text(found), encoding="utf-8")
        build_data["force_include"][str(path)] = RECORD

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        if self._tmp:
            shutil.rmtree(self._tmp, ignore_errors=True)

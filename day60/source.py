"""The source commit this toolkit was built from, for every provenance block (charter 5.5, 8.3).

A build (``hatch_build.py``) writes ``day60/_build.py`` into the wheel with the commit hash and
whether the tree had uncommitted changes, so an installed wheel knows where it came from with no
git at hand. Where the package runs from a git checkout of this project, the checkout itself is
read at run time instead (it is the truth there, whatever an old build record says). Anywhere
else the commit is unknown and says so: it is never guessed.
"""

from __future__ import annotations

import functools
import re
import subprocess
from pathlib import Path
from typing import Any

UNKNOWN = "unknown (not built from a git checkout)"
_HASH = re.compile(r"[0-9a-f]{40}([0-9a-f]{24})?")  # SHA-1, or a SHA-256 repository's 64 digits
PACKAGE = Path(__file__).resolve().parent
DATA = ("clauses", "roles", "rubric", "selfassess", "templates")  # shipped whole inside the wheel (pyproject.toml)


def _git(root: Path, *args: str) -> str | None:
    try:
        done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, timeout=10,
                              check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None


def from_checkout(root: Path) -> dict[str, Any] | None:
    """HEAD and the uncommitted changes of ``root``, if it is the top of a git checkout that tracks
    this package; None otherwise (no git, not a checkout, or a checkout of some other project
    that happens to hold an installed copy)."""
    top = _git(root, "rev-parse", "--show-toplevel")
    if top is None or Path(top.strip()).resolve() != root.resolve():
        return None
    if _git(root, "ls-files", "--error-unmatch", "day60/__init__.py") is None:
        return None
    head = (_git(root, "rev-parse", "HEAD") or "").strip()
    status = _git(root, "status", "--porcelain=v1", "-z", "--untracked-files=all")
    ignored = _git(root, "status", "--porcelain=v1", "-z", "--ignored=matching", "--untracked-files=all", "--",
                   *DATA)
    if not _HASH.fullmatch(head) or status is None or ignored is None:
        return None
    changed = sorted(changed_paths(status) | changed_paths(ignored, ignored=True))
    return {"commit": head, "dirty": bool(changed), "changed": changed}


def changed_paths(status: str, ignored: bool = False) -> set[str]:
    """The paths in ``git status --porcelain=v1 -z`` output (a rename's new name; its old name,
    the entry after it, is skipped); with ``ignored``, only files git ignores ("!!"), bytecode
    caches left out. The data folders are read whole, so a file git ignores there counts too."""
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


def describe(commit: str | None, dirty: bool | None, changed: list[str] | tuple[str, ...] = (),
             recorded: str = "") -> dict[str, Any]:
    """The block a provenance carries: the commit, whether the tree differed from it, and in words."""
    if commit is None:
        return {"commit": None, "dirty": None, "changed": [], "recorded": recorded, "text": UNKNOWN}
    text = f"source commit {commit}"
    if dirty:
        shown = ", ".join(list(changed)[:10]) + (f" and {len(changed) - 10} more" if len(changed) > 10 else "")
        text += f" with uncommitted changes to {len(changed)} path(s) ({shown}): the code is not that commit's"
    return {"commit": commit, "dirty": bool(dirty), "changed": list(changed), "recorded": recorded,
            "text": f"{text} ({recorded})" if recorded else text}


@functools.lru_cache(maxsize=1)
def source() -> dict[str, Any]:
    """Where this copy of the toolkit came from: ``commit`` (full hash, or None), ``dirty``,
    ``changed`` (paths that differed from the commit), ``recorded`` (how it is known) and ``text``."""
    live = from_checkout(PACKAGE.parent)
    if live is not None:
        return describe(live["commit"], live["dirty"], live["changed"], "read from the git checkout at run time")
    try:
        from day60 import _build  # type: ignore[attr-defined]
    except ImportError:
        return describe(None, None, recorded="no build record and no git checkout")
    commit = getattr(_build, "COMMIT", None)
    dirty = getattr(_build, "DIRTY", None)
    changed = getattr(_build, "CHANGED", ())
    if not (isinstance(commit, str) and _HASH.fullmatch(commit) and isinstance(dirty, bool)
            and isinstance(changed, list | tuple) and all(isinstance(p, str) for p in changed)):
        return describe(None, None, recorded="the build record is malformed, so it is not used")
    return describe(commit, dirty, list(changed), "recorded when this copy was built")

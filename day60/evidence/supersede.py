"""A score that replaces an earlier one names it (its SHA-256) and says what changed and why."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from day60.errors import InputError


def changelog(old_path: str | Path, new: dict[str, Any], journal: Any) -> dict[str, Any]:
    """The ``supersedes`` and ``changelog`` entries of a new score: the old score's hash and head,
    every line whose points or status changed, and the journal events since the old score that
    explain it (corrections, disputes and their resolutions, with their reasons)."""
    from day60.evidence.provenance import sha256_of
    from day60.files import loads_json, read_bytes

    raw = read_bytes(old_path, "--supersede", "the score JSON written by 'day60 score --out'")
    old = loads_json(raw, "--supersede", "a day60 score JSON", str(old_path))
    if not isinstance(old, dict) or not isinstance(old.get("lines"), list) or "score" not in old \
            or not isinstance(old.get("journal_head"), dict):
        raise InputError("--supersede", f"{old_path} is not a score written by 'day60 score --out'",
                         "name the earlier score JSON file")
    before = {line.get("id"): line for line in old["lines"] if isinstance(line, dict)}
    changed = []
    for line in new["lines"]:
        was = before.get(line["id"], {})
        if (was.get("earned"), was.get("status")) != (line["earned"], line["status"]):
            changed.append({"line": line["id"], "was": {"earned": was.get("earned"), "status": was.get("status")},
                            "now": {"earned": line["earned"], "status": line["status"]}})
    since = int(old["journal_head"].get("seq", 0)) if isinstance(old["journal_head"].get("seq"), int) else 0
    why = [{"seq": e["seq"], "kind": e["kind"], "reason": e["data"].get("reason")}
           for e in journal.events[since:] if e["kind"] in ("correction", "dispute", "resolve")]
    return {"supersedes": {"sha256": sha256_of(raw), "score": old.get("score"), "journal_head": old["journal_head"]},
            "changelog": {"score": {"was": old.get("score"), "now": new["score"]}, "lines": changed,
                          "because": why or [{"reason": "no correction, dispute or resolution since the earlier "
                                                        "score; it was scored again as it stood"}]}}

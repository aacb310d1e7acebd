"""Sealed instants: the salted commitment that stands in the shared journal for an onset's
instant, and the runner's held file (mode 0600) that keeps the clear instant until the reveal."""

from __future__ import annotations

import functools
import json
import os
from pathlib import Path
from typing import Any, Literal

from day60.errors import InputError, pydantic_problem
from day60.journal.line import sha256_hex


def commitment(salt: str, event_id: str, at_iso: str) -> str:
    """The salted SHA-256 that stands in for a sealed onset instant."""
    return sha256_hex(f"{salt}|{event_id}|{at_iso}")


@functools.lru_cache(maxsize=1)
def _held_model() -> Any:
    """The held file's model, built the first time one is read: an append of any other kind, and
    every 'day60 log', never reads a held file, and building the model (its validator, and the
    modules pydantic loads to build one) was a sixth of that command's start-up."""
    from pydantic import BaseModel, ConfigDict, Field

    class _HeldOnset(BaseModel):
        model_config = ConfigDict(extra="forbid")
        id: str
        at: str
        salt: str = Field(pattern=r"^[0-9a-f]{32}$")
        commitment: str = Field(pattern=r"^[0-9a-f]{64}$")
        seq: int = Field(ge=1, le=10**12)

    class _Held(BaseModel):
        model_config = ConfigDict(extra="forbid")
        format: Literal["day60.held/1"]
        journal: str = Field(pattern=r"^[0-9a-f]{64}$")
        onsets: list[_HeldOnset]

    return _Held


def add_held(path: Path, journal_hash: str, entry: dict[str, Any]) -> None:
    """Keep a sealed onset's clear instant in the runner's held file (mode 0600).

    Written before the journal line: a crash between the two leaves a held entry whose
    commitment the journal never received, which ``reveal`` reports as stray and skips; the
    other order could lose the instant itself.
    """
    from day60.files import write_atomic

    if os.path.lexists(path):
        held = load_held(path, "--seal")
        if held["journal"] != journal_hash:
            raise InputError("--seal", f"{path} holds instants for another journal", "use a new held file")
    else:
        held = {"format": "day60.held/1", "journal": journal_hash, "onsets": []}
    held["onsets"].append(entry)
    write_atomic(path, json.dumps(held, indent=2) + "\n", "--seal", mode=0o600)


def load_held(path: str | Path, field: str = "--held") -> dict[str, Any]:
    from pydantic import ValidationError

    from day60.files import read_json

    held = read_json(path, field, "the held file written by --seal")
    try:
        return _held_model().model_validate(held).model_dump()
    except ValidationError as exc:
        name, msg = pydantic_problem(exc)
        raise InputError(field, f"{path} is not a day60 held file ({name}: {msg})",
                         "give the file named with --seal when the onsets were logged") from exc

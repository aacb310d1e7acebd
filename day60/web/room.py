"""The served journal as the pages see it: its lines, followed as they are appended (by this
server, by 'day60 log', by an import), each checked against the line before it; who has joined;
and what each participant may be shown.

A sealed onset's line is shown to the runner's page only until it is revealed: the instant it
was written is, for a press stamped "now", the injection time itself (charter 3.18.3 keeps that
from the team being measured), so no other page receives it, or even a notice that the journal
grew, until the reveal.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import json
import os
import re
import secrets
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from day60 import journal
from day60.errors import InputError

ROLES = ("runner", "observer", "stop owner", "rollback owner", "partner", "supplier contact")
_NAME = re.compile(r"^[^\x00-\x1f\x7f()]*[^\s\x00-\x1f\x7f()][^\x00-\x1f\x7f()]*$")


def _format_chars(text: str) -> bool:
    import unicodedata

    return any(unicodedata.category(c) in ("Cf", "Zl", "Zp", "Co", "Cs", "Cn") for c in text)


def check_name(name: Any) -> str:
    """A participant's name: visible text, no control, invisible or direction-changing character,
    no parentheses (``by`` reads "NAME (ROLE)"), at most 80 characters."""
    if not isinstance(name, str):
        raise InputError("name", "must be text", "give the name of the person joining")
    name = name.strip()
    if not name or len(name) > 80 or not _NAME.match(name) or _format_chars(name):
        raise InputError("name", f"{name[:40]!r} is not a name this journal can carry",
                         "use 1 to 80 visible characters, with no control, invisible or direction-changing "
                         "characters (such as U+200B, U+202E) and no parentheses")
    return name


def check_role(role: Any) -> str:
    if role not in ROLES:
        raise InputError("role", f"{str(role)[:40]!r} is not a role", f"use one of: {', '.join(ROLES)}")
    return role


@dataclass(frozen=True)
class Participant:
    name: str
    role: str

    @property
    def by(self) -> str:
        return f"{self.name} ({self.role})"

    @property
    def runner(self) -> bool:
        return self.role == "runner"


class Keys:
    """Participant keys that outlive a restart: "PAYLOAD.MAC", the payload the participant's name
    and role, the MAC an HMAC-SHA256 under a secret kept beside the journal (mode 0600, never
    served). The runner's join token is derived from the same secret, so it too is stable."""

    def __init__(self, secret: bytes) -> None:
        self._secret = secret

    @classmethod
    def beside(cls, path: Path) -> Keys:
        where = path.with_name(path.name + ".serve-secret")
        try:
            fd = os.open(where, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            raw = where.read_text(encoding="ascii").strip()
            if not re.fullmatch(r"[0-9a-f]{64}", raw):
                raise InputError("JOURNAL", f"{where} is not a secret this server wrote",
                                 "delete it (everyone then joins again) and start the server again") from None
            return cls(bytes.fromhex(raw))
        secret = secrets.token_bytes(32)
        with os.fdopen(fd, "w", encoding="ascii") as fh:
            fh.write(secret.hex() + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        return cls(secret)

    def _mac(self, purpose: str, text: str) -> str:
        return hmac.new(self._secret, f"{purpose}|{text}".encode(), hashlib.sha256).hexdigest()

    @property
    def runner_token(self) -> str:
        return self._mac("runner-token", "")[:24]

    def issue(self, who: Participant) -> str:
        payload = base64.urlsafe_b64encode(json.dumps([who.name, who.role]).encode()).decode().rstrip("=")
        return f"{payload}.{self._mac('key', payload)}"

    def check(self, key: Any) -> Participant | None:
        if not isinstance(key, str) or len(key) > 600 or key.count(".") != 1:
            return None
        payload, mac = key.split(".")
        if not hmac.compare_digest(mac, self._mac("key", payload)):
            return None
        name, role = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
        return Participant(name, role)

    def csrf(self, key: str) -> str:
        return self._mac("csrf", key)[:32]

    def check_csrf(self, key: str, token: Any) -> bool:
        return isinstance(token, str) and hmac.compare_digest(token, self.csrf(key))


class Room:
    """The journal's lines, followed from the file, and the pages waiting to hear of new ones."""

    def __init__(self, path: Path, held: Path | None) -> None:
        self.path = path
        self.held = held
        j = journal.read(path)
        if j.partial is not None:
            raise InputError("JOURNAL", f"{path} ends with a partial line from an interrupted write",
                             f"run 'day60 verify --repair {path}' first")
        self.header = j.header
        self.tz = j.tz
        self.events: list[dict[str, Any]] = list(j.events)
        self._last_line = j.last_line
        self._offset = sum(len(line) for line in _complete(path))
        self._stat = _stat_of(path)
        self.problem: str | None = None  # set when the file stops verifying under us
        self._lock = threading.Lock()
        self._waiting: set[asyncio.Queue[None]] = set()

    # ----- following the file -------------------------------------------------------------

    def refresh(self) -> bool:
        """Take in lines appended since the last look; True when there were any."""
        with self._lock:
            stat = _stat_of(self.path)
            if stat == self._stat or self.problem:
                return False
            with self.path.open("rb") as fh:
                fh.seek(self._offset)
                raw = fh.read()
            cut = raw.rfind(b"\n") + 1
            added = 0
            for chunk in raw[:cut].split(b"\n")[:-1]:
                n = len(self.events) + 2
                try:
                    line = chunk.decode("utf-8")
                except UnicodeDecodeError:
                    self.problem = f"line {n} is not UTF-8 text"
                    break
                obj, problem = journal.check_line(n, line, self._last_line)
                if problem:
                    self.problem = f"line {n}: {problem}"
                    break
                self.events.append(obj)
                self._last_line = line
                self._offset += len(chunk) + 1
                added += 1
            self._stat = stat if not self.problem and cut == len(raw) else None
            return added > 0

    def subscribe(self) -> asyncio.Queue[None]:
        queue: asyncio.Queue[None] = asyncio.Queue(maxsize=1)
        self._waiting.add(queue)
        return queue

    def unsubscribe(self, queue: asyncio.Queue[None]) -> None:
        self._waiting.discard(queue)

    def wake(self) -> None:
        """Tell every waiting page to look again (each decides whether its own view changed)."""
        for queue in list(self._waiting):
            if queue.empty():
                queue.put_nowait(None)

    # ----- what a participant sees ---------------------------------------------------------

    def view(self, who: Participant | None) -> list[dict[str, Any]]:
        """The lines ``who`` may be shown: all of them for the runner; for anyone else, every line
        but a sealed onset not yet revealed."""
        events = self.events
        if who is not None and who.runner:
            return list(events)
        revealed = {e["data"]["target"] for e in events if e["kind"] == "reveal"}
        return [e for e in events if not (e["kind"] == "drift.onset" and e["at"] is None and e["seq"] not in revealed)]

    def head(self, who: Participant | None) -> int:
        shown = self.view(who)
        return shown[-1]["seq"] if shown else 0

    @property
    def closed(self) -> bool:
        return any(e["kind"] == "exercise.close" for e in self.events)


def _complete(path: Path) -> list[bytes]:
    with path.open("rb") as fh:
        raw = fh.read()
    return [line + b"\n" for line in raw[: raw.rfind(b"\n") + 1].split(b"\n")[:-1]]


def _stat_of(path: Path) -> tuple[int, int, int] | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return (info.st_size, info.st_mtime_ns, info.st_ino)

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

from day60 import journal, permissions, reading
from day60.errors import InputError

ROLES = permissions.table().people  # as roles/permissions-v1.yaml names them; the toolkit never joins
check_name = permissions.check_name  # a participant's name: the same rule at the command line


def check_role(role: Any) -> str:
    return permissions.check_role(role)


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

    @property
    def actor(self) -> permissions.Actor:
        """Who this participant is to the access list: what its lines may be is decided there."""
        return permissions.Actor(self.role, self.name)

    @property
    def label(self) -> str:
        return permissions.table().label(self.role)


class Keys:
    """Participant keys that outlive a restart: "PAYLOAD.MAC", the payload the participant's name
    and role, the MAC an HMAC-SHA256 under a secret kept beside the journal (mode 0600, never
    served). The runner's token is derived from the same secret, so it too is stable; so is each
    role's join token, derived from the secret or from ``seed`` ('serve --token')."""

    def __init__(self, secret: bytes, seed: str | None = None) -> None:
        self._secret = secret
        self._seed = seed.encode() if seed is not None else secret

    @classmethod
    def beside(cls, path: Path, seed: str | None = None) -> Keys:
        """The secret beside ``path``, made on first use. One found there is used only if it is
        this user's own regular file that nobody else can read or write: a secret another user of
        the machine planted (or can read) would let them make any key, the runner's included."""
        where = path.with_name(path.name + ".serve-secret")
        try:
            fd = os.open(where, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        except FileExistsError:
            return cls(_own_secret(where), seed)
        except OSError as exc:
            raise InputError("JOURNAL", f"cannot write the server's secret beside it, {where} ({exc.strerror})",
                             "serve a journal in a folder this user can write") from None
        secret = secrets.token_bytes(32)
        with os.fdopen(fd, "w", encoding="ascii") as fh:
            fh.write(secret.hex() + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        return cls(secret, seed)

    def _mac(self, purpose: str, text: str) -> str:
        return hmac.new(self._secret, f"{purpose}|{text}".encode(), hashlib.sha256).hexdigest()

    @property
    def runner_token(self) -> str:
        return self._mac("runner-token", "")[:24]

    def join_token(self, role: str) -> str:
        """The token a person joins with as ``role``: one a role, so that the role a page acts as is
        the one its token was given for, never the one its holder states. It names its role."""
        mac = hmac.new(self._seed, f"join-token|{role}".encode(), hashlib.sha256).hexdigest()[:20]
        return f"{role.replace(' ', '-')}-{mac}"

    def role_of_token(self, token: Any) -> str | None:
        """The role ``token`` was given for, or None."""
        if not isinstance(token, str) or len(token) > 100:
            return None
        return next((r for r in ROLES if r != "runner"
                     and hmac.compare_digest(token.encode(), self.join_token(r).encode())), None)

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
        role = permissions.ALIASES.get(role, role)
        if role not in ROLES:  # a key made for a role this access list no longer has: join again
            return None
        return Participant(name, role)

    def csrf(self, key: str) -> str:
        return self._mac("csrf", key)[:32]

    def check_csrf(self, key: str, token: Any) -> bool:
        return isinstance(token, str) and hmac.compare_digest(token, self.csrf(key))


def _own_secret(where: Path) -> bytes:
    import stat

    fix = "delete it (everyone then joins again) and start the server again"
    try:
        fd = os.open(where, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        raise InputError("JOURNAL", f"{where} is not a secret this server wrote (a link, or unreadable)",
                         fix) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o077:
            raise InputError("JOURNAL", f"{where} is not this user's own secret with mode 0600 (another user "
                                        "could have made or read it, and with it every participant's key)", fix)
        raw = os.read(fd, 200).decode("ascii", "replace").strip()
    finally:
        os.close(fd)
    if not re.fullmatch(r"[0-9a-f]{64}", raw):
        raise InputError("JOURNAL", f"{where} is not a secret this server wrote", fix)
    return bytes.fromhex(raw)


class Room:
    """The journal's lines, followed from the file, and the pages waiting to hear of new ones."""

    def __init__(self, path: Path, held: Path | None) -> None:
        self.path = path
        self.held = held
        for _ in range(20):  # read twice, until no writer slips a line in between the two reads
            j = reading.read(path, events=True)  # under the shared lock: an import under way is seen whole
            if j.partial is not None:
                raise InputError("JOURNAL", f"{path} ends with a partial line from an interrupted write",
                                 f"run 'day60 verify --repair {path}' first")
            complete = b"".join(_complete(path))
            if complete.endswith(j.last_line.encode("utf-8") + b"\n"):
                break
        else:
            raise InputError("JOURNAL", f"{path} is being written too fast to be read", "start the server again")
        self.header = j.header
        self.tz = j.tz
        self._last_line = j.last_line
        self._offset = len(complete)
        self._read = hashlib.sha256(complete)  # of every byte taken in: an edit behind our back changes it
        self._stat = _stat_of(path)
        self.problem: str | None = None  # set when the file stops verifying under us
        self._lock = threading.Lock()
        # One press of this server decided and written at a time, each on a view taken after
        # looking at the file (see press.record); presses wait for the journal's lock anyway.
        self.pressing = threading.Lock()
        self._waiting: set[asyncio.Queue[None]] = set()
        self.closing = False  # the server is stopping: the pages' event streams end
        self._publish(list(j.events))

    def _publish(self, events: list[dict[str, Any]]) -> None:
        """Replace what the pages are shown, at once: every line, the lines a page other than the
        runner's may see, and the head of each. Computed here, once per change, never per page
        (hundreds of open pages each asking again would hold up the server)."""
        public, order = renumbered(events)
        keyed: dict[str, list[dict[str, Any]]] = {}  # a page's press key -> the lines that press wrote
        for e in events:
            if e["data"].get("press_key"):
                keyed.setdefault(e["data"]["press_key"], []).append(e)
        self._keyed = keyed
        self._order = order  # journal seq -> the number every page but the runner's knows the line by
        self._seqs = {n: seq for seq, n in order.items()}
        self._views = (events, public, events[-1]["seq"] if events else 0, public[-1]["seq"] if public else 0)

    def pressed(self, key: str, by: str) -> list[dict[str, Any]]:
        """The lines a press with ``key`` by ``by`` already wrote (the journal's, so found after a
        restart too), or none."""
        return [e for e in self._keyed.get(key, []) if e["by"] == by]

    def journal_seq(self, number: Any) -> Any:
        """The journal's seq of the line a page other than the runner's numbers ``number`` (a
        number no line of its view carries is passed on, for the access list to refuse as such). A
        page's form sends the number as text ("6"), which the journal reads as the seq 6: it is
        translated as the number it is, or a page's own 6 would name the journal's line 6."""
        if isinstance(number, str) and number.strip().isascii() and number.strip().isdigit():
            number = int(number.strip())
        return self._seqs.get(number, number) if isinstance(number, int) and not isinstance(number, bool) \
            else number

    def as_seen(self, who: Participant | None, line: dict[str, Any]) -> dict[str, Any]:
        """``line`` (as the journal holds it) as ``who`` sees it: itself for the runner, otherwise
        numbered as that participant's view numbers it."""
        if who is not None and who.runner:
            return line
        return _renumber(line, self._order) or {**line, "seq": None, "prev": None, "hash": None}

    @property
    def events(self) -> list[dict[str, Any]]:
        return self._views[0]

    # ----- following the file -------------------------------------------------------------

    def refresh(self) -> bool:
        """Take in lines appended since the last look; True when there were any. A file whose lines
        already taken in have changed (edited, truncated or replaced behind the server's back) sets
        ``problem``, as 'day60 log' would refuse it at its next append."""
        with self._lock:
            stat = _stat_of(self.path)
            if stat == self._stat or self.problem:
                return False
            try:
                raw = self._unchanged_then_rest()
            except OSError as exc:
                self.problem = f"it cannot be read ({exc.strerror})"
                return False
            if raw is None:
                try:
                    found = reading.verify(self.path).problem
                except InputError as exc:
                    found = exc.problem
                self.problem = found or "lines this server had already read were changed behind its back"
                return False
            cut = raw.rfind(b"\n") + 1
            events = list(self.events)
            for chunk in raw[:cut].split(b"\n")[:-1]:
                n = len(events) + 2
                try:
                    line = chunk.decode("utf-8")
                except UnicodeDecodeError:
                    self.problem = f"line {n} is not UTF-8 text"
                    break
                obj, problem = journal.check_line(n, line, self._last_line)
                if problem:
                    self.problem = f"line {n}: {problem}"
                    break
                events.append(obj)
                self._last_line = line
                self._offset += len(chunk) + 1
                self._read.update(chunk + b"\n")
            self._stat = stat if not self.problem and cut == len(raw) else None
            added = len(events) - len(self.events)
            if added:
                self._publish(events)
            return added > 0

    def _unchanged_then_rest(self) -> bytes | None:
        """The bytes after those already taken in, or None when those have changed."""
        with self.path.open("rb") as fh:
            seen, left = hashlib.sha256(), self._offset
            while left:
                chunk = fh.read(min(left, 1 << 20))
                if not chunk:
                    return None  # shorter than what was read: truncated or replaced
                seen.update(chunk)
                left -= len(chunk)
            if seen.digest() != self._read.digest():
                return None
            return fh.read()

    def failed(self, exc: InputError) -> None:
        """An append refused because of the file itself (damaged, gone, a partial line): nothing
        more is recorded until the server is restarted on a journal that verifies."""
        if exc.field == "JOURNAL":
            with self._lock:
                self.problem = self.problem or exc.problem

    def subscribe(self) -> asyncio.Queue[None]:
        queue: asyncio.Queue[None] = asyncio.Queue(maxsize=1)
        self._waiting.add(queue)
        return queue

    def unsubscribe(self, queue: asyncio.Queue[None]) -> None:
        self._waiting.discard(queue)

    def close_streams(self) -> None:
        """End every open event stream (the server is stopping)."""
        self.closing = True
        self.wake()

    def wake(self) -> None:
        """Tell every waiting page to look again (each decides whether its own view changed)."""
        for queue in list(self._waiting):
            if queue.empty():
                queue.put_nowait(None)

    # ----- what a participant sees ---------------------------------------------------------

    def seen(self, who: Participant | None) -> tuple[list[dict[str, Any]], int]:
        """The lines ``who`` may be shown and the seq of the last of them, taken from one view: all
        lines for the runner; for anyone else, every line but a sealed onset not yet revealed. The
        list is shared: read it, never change it. Take both from here in one call: a press in another
        thread may publish a new view between two calls, and a page given the new head with the old
        lines would believe itself current and never fetch the line it lacks."""
        views = self._views
        return (views[0], views[2]) if who is not None and who.runner else (views[1], views[3])

    def lines(self, who: Participant | None) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """Every line, and the lines ``who`` may be shown, from one view (shared: never change them)."""
        views = self._views
        return views[0], (views[0] if who is not None and who.runner else views[1])

    def head(self, who: Participant | None) -> int:
        return self.seen(who)[1]


# Whose data names another line by its seq (and the field that does).
_POINTS = {"correction": "target", "accept": "target", "reject": "target", "resolve": "target", "reveal": "target"}


def renumbered(events: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], dict[int, int]]:
    """The lines every page but the runner's is shown, numbered 1, 2, 3... in the journal's order,
    and the journal's seq of each -> that number. A sealed onset not yet revealed is left out, and
    with it any line that names it; the number of each line shown is its place among those, so no
    gap tells of a hidden line, and neither does a hash: ``prev`` and ``hash`` (each a function of
    the real seq and of the line before) are left out, a timestamp token's ``covers_hash`` too, and
    its ``covers_seq`` is the number of the last line shown at or before the line it covers.
    At the reveal the onset takes its place, and every later line's number moves up by one."""
    revealed = {e["data"]["target"] for e in events if e["kind"] == "reveal"}
    hidden = {e["seq"] for e in events if e["kind"] == "drift.onset" and e["at"] is None and e["seq"] not in revealed}
    order: dict[int, int] = {}
    upto: dict[int, int] = {}  # journal seq -> the number of the last line shown at or before it
    for e in events:
        if not (e["seq"] in hidden or (e["kind"] in _POINTS and e["data"].get(_POINTS[e["kind"]]) in hidden)):
            order[e["seq"]] = len(order) + 1
        upto[e["seq"]] = len(order)
    shown = [line for e in events if e["seq"] in order and (line := _renumber(e, order, upto)) is not None]
    return shown, order


def _renumber(e: dict[str, Any], order: dict[int, int], upto: dict[int, int] | None = None) -> dict[str, Any] | None:
    number = order.get(e["seq"])
    if number is None:
        return None
    out = {k: v for k, v in e.items() if k not in ("prev", "hash")}
    out["seq"] = number
    field = _POINTS.get(e["kind"])
    if field is not None and field in e["data"]:
        out["data"] = {**e["data"], field: order.get(e["data"][field], 0)}
        if e["kind"] == "correction" and e["id"] == str(e["data"][field]):
            out["id"] = str(out["data"][field])  # its id is the seq it corrects: said in this view's numbers too
    elif e["kind"] == "timestamp.token":
        covered = (upto or {}).get(e["data"].get("covers_seq", 0), 0)
        out["data"] = {k: v for k, v in e["data"].items() if k != "covers_hash"} | {"covers_seq": covered}
    return out


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

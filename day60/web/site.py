"""The server's explicit state, one object every view reads from ``request.app.state.site``:
the room (the served journal), the participants' keys, the templates, the open streams and the
timestamp settings; and the questions every view asks of a request: who is asking, is the form
theirs, and how a page or the JSON twin says "no"."""

from __future__ import annotations

import hmac
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, select_autoescape
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response

from day60 import permissions
from day60.web import shown, words
from day60.web.guard import Refused, is_local, visible
from day60.web.room import ROLES, Keys, Participant, Room, check_name, check_role
from day60.web.streams import Streams, beat_seconds

HERE = Path(__file__).resolve().parent
COOKIE = "day60_key"
JOIN_COOKIE = "day60_join"


@dataclass
class Site:
    """One served journal and everything the views share about it."""

    room: Room
    keys: Keys
    tsa: str | None = None
    stamp_when: str = "close"
    tsa_roots: list[Any] | None = None
    streams: Streams = field(default_factory=Streams)
    env: Environment = field(init=False)

    def __post_init__(self) -> None:
        self.env = Environment(loader=FileSystemLoader(HERE / "templates"), autoescape=select_autoescape(default=True),
                               trim_blocks=True, lstrip_blocks=True)
        tz = self.room.tz
        self.env.filters["visible"] = visible
        self.env.filters["at"] = lambda text: words.shown_at(text, tz)  # every instant shown: the exercise's zone
        self.env.filters["kindwords"] = words.kind_words
        self.env.filters["readable"] = lambda text: words.readable(text, tz)
        self.env.globals["zone"] = self.zone
        self.env.globals["beat"] = beat_seconds

    @property
    def zone(self) -> str:
        return self.room.header["calendar"]["timezone"]

    def said(self, message: str) -> str:
        """A refusal or a warning made for the command line, in the room's words."""
        return words.plain(message, self.room.tz, self.zone)

    # ----- who is asking -------------------------------------------------------------------

    def from_cookie(self, request: Request) -> tuple[Participant, str] | None:
        key = request.cookies.get(COOKIE)
        who = self.keys.check(key)
        return (who, key) if who else None

    def page_who(self, request: Request) -> tuple[Participant, str]:
        """The participant a page's cookie names, with the key, or a 401."""
        joined = self.from_cookie(request)
        if joined is None:
            raise Refused(401, "not joined: load the page and join with the token")
        return joined

    def from_bearer(self, request: Request) -> Participant:
        """The participant a script's Bearer key names, or a 401."""
        scheme, _, key = request.headers.get("authorization", "").partition(" ")
        who = self.keys.check(key.strip()) if scheme.lower() == "bearer" else None
        if who is None:
            raise Refused(401, "authorization: no valid participant key; join with POST /api/join and send "
                               "'Authorization: Bearer KEY'")
        return who

    def check_csrf(self, joined: tuple[Participant, str], form: dict[str, str]) -> None:
        if not self.keys.check_csrf(joined[1], form.get("csrf")):
            raise Refused(403, "csrf: this form's token is missing or wrong; load the page again")

    def join_as(self, request: Request, token: Any, name: Any, role: Any) -> Participant:
        """The participant a join makes, once its name, role and token are right."""
        role = check_role(role)
        name = check_name(name)
        permissions.check_person(name, role, self.room.header, lines=self.room.events)  # as no one else reads
        expected = self.keys.runner_token if role == "runner" else self.keys.join_token(role)
        if not isinstance(token, str) or not hmac.compare_digest(token.encode(), expected.encode()):
            label = role  # as the join form's list names it (the access list's label is another word)
            hint = "This is not the runner's token; use the runner token the server printed when it started" \
                if role == "runner" else (f"This token is not the one for the {label}: each role has its own; "
                                          f"ask the runner for the {label}'s token")
            raise Refused(403, hint)
        if role == "runner" and not is_local(request):
            raise Refused(403, "role: the runner's page runs on the machine that holds the held file")
        return Participant(name, role)

    # ----- answers -------------------------------------------------------------------------

    def render(self, name: str, status: int = 200, headers: dict[str, str] | None = None,
               **context: Any) -> HTMLResponse:
        return HTMLResponse(self.env.get_template(name).render(**context), status_code=status, headers=headers)

    def page_context(self, request: Request, who: Participant, key: str) -> dict[str, Any]:
        """Everything page.html shows, from one view of the journal (its two parts name one head)."""
        here = is_local(request)
        seen = self.room.seen(who)
        return {"h": self.room.header, "who": who, "csrf": self.keys.csrf(key), "journal": self.room.path.name,
                "state": shown.state(self.room, who, here, seen), "timeline": shown.timeline(self.room, who, seen),
                "local": here, "held": self.room.held is not None, "roles": ROLES}

    def refusal(self, request: Request, status: int, message: str) -> Response:
        """A refusal as the asker reads it: JSON for the twin, a fragment for htmx, else a page."""
        if request.url.path.startswith("/api/"):
            return JSONResponse({"error": message}, status_code=status)
        if request.headers.get("hx-request") == "true":
            return self.render("result.html", status=status, refused=self.said(message), form=None)
        return self.render("error.html", status=status, refused=message, h=self.room.header,
                           journal=self.room.path.name)


def site_of(request: Request) -> Site:
    """The ``Site`` of the app answering ``request``."""
    return request.app.state.site  # type: ignore[no-any-return]

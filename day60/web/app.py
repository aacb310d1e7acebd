"""The ASGI app of ``day60 serve``: pages for people, a JSON twin for scripts, one event stream.

Pages are server-rendered (Jinja2, autoescaped) and enhanced by the vendored htmx and the app's
own script; nothing is loaded from elsewhere, and the Content-Security-Policy says so. Page posts
carry a CSRF token tied to the participant's key (kept in an HttpOnly, SameSite=Strict cookie);
the JSON twin takes the key as a Bearer token. Every body is read to a fixed limit.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import os
import secrets
import sys
import unicodedata
import urllib.parse
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, select_autoescape
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from day60 import checklist, display, permissions, timeparse
from day60.errors import InputError
from day60.web import press as presses
from day60.web import words
from day60.web.room import ROLES, Keys, Participant, Room, check_name, check_role

HERE = Path(__file__).resolve().parent
MAX_BODY = 64 * 1024  # a press is a few hundred bytes; nothing a page or a script sends comes near this
# A press is stamped when its request arrives, before its body is read, so the body must follow at
# once: one that trickled in for an hour would be recorded an hour before it was sent.
BODY_SECONDS = 5.0
KEEPALIVE_SECONDS = 15.0  # a "beat" event on every open stream, on a fixed beat
# The beat can be shortened for a test of a page noticing a stalled stream (it waits two beats).
BEAT_VARIABLE = "DAY60_SERVE_KEEPALIVE"


def beat_seconds() -> float:
    """The keepalive's beat: KEEPALIVE_SECONDS, or a shorter one the environment sets (0.5 s at least)."""
    raw = os.environ.get(BEAT_VARIABLE, "")
    try:
        return max(0.5, min(KEEPALIVE_SECONDS, float(raw))) if raw else KEEPALIVE_SECONDS
    except ValueError:
        return KEEPALIVE_SECONDS
# Open event streams (each holds one of the server's request slots, day60.cli.web.MAX_CONNECTIONS,
# for as long as it is open): a participant's pages and scripts, one role's participants, and all
# but the runner's together; the runner's are not capped, and the slots left over are the room's.
STREAMS_PER_PARTICIPANT = 4
STREAMS_PER_ROLE = 16
STREAMS_NOT_RUNNER = 40
TIMELINE_ROWS = 200  # the page shows the latest lines; 'day60 show' shows them all
COOKIE = "day60_key"
JOIN_COOKIE = "day60_join"
CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
       "form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
HEADERS = {"content-security-policy": CSP, "x-content-type-options": "nosniff", "referrer-policy": "same-origin",
           "x-frame-options": "DENY", "cross-origin-opener-policy": "same-origin",
           "cross-origin-resource-policy": "same-origin", "permissions-policy": "camera=(), microphone=()"}
LOOPBACK = ("127.0.0.1", "::1", "::ffff:127.0.0.1")


class Streams:
    """Who holds how many open event streams; ``take`` refuses one beyond a cap (HTTP 429, or 503
    when the room's share is full) and returns what gives it back."""

    def __init__(self) -> None:
        self.open: dict[tuple[str, ...], int] = {}

    def take(self, who: Participant) -> Any:
        if who.runner:
            return lambda: None
        keys = [("participant", who.role, who.name), ("role", who.role), ("all",)]
        held = [self.open.get(k, 0) for k in keys]
        if held[0] >= STREAMS_PER_PARTICIPANT:
            raise Refused(429, f"{who.name} already has {held[0]} event streams open (at most "
                               f"{STREAMS_PER_PARTICIPANT} a participant); close a page or a script's stream first")
        if held[1] >= STREAMS_PER_ROLE:
            raise Refused(429, f"the {who.label}'s participants already have {held[1]} event streams open (at "
                               f"most {STREAMS_PER_ROLE} a role); close a page first")
        if held[2] >= STREAMS_NOT_RUNNER:
            raise Refused(503, f"{held[2]} event streams are open, as many as this server keeps for pages other "
                               "than the runner's; try again when a page is closed")
        for k in keys:
            self.open[k] = self.open.get(k, 0) + 1

        def release() -> None:
            for k in keys:
                self.open[k] -= 1

        return release


class _Held(StreamingResponse):
    """A stream that gives its place back however it ends (even before its first byte)."""

    def __init__(self, content: Any, release: Any, **kwargs: Any) -> None:
        super().__init__(content, **kwargs)
        self.release = release

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            self.release()


class Refused(Exception):
    """An HTTP refusal: a status and one line."""

    def __init__(self, status: int, message: str) -> None:
        self.status = status
        self.message = message
        super().__init__(message)


def one_line(exc: Exception) -> str:
    """The message 'day60 log' prints after "error: " for the same fault."""
    from day60.cli.base import _one_line

    return _one_line(str(exc))


def _visible(text: Any) -> str:
    """Text as it is, except characters that would hide or reorder what follows (format,
    separator and unassigned characters), which are shown by their code point."""
    return "".join(f"<U+{ord(c):04X}>" if unicodedata.category(c) in ("Cf", "Zl", "Zp", "Cn", "Co", "Cs")
                   else c for c in str(text))


class SecurityHeaders:
    """Every answer carries the security headers; a page answered to a Host this server was not
    asked for (a DNS-rebinding page) is refused when it listens on the loopback only."""

    def __init__(self, app: Any, hosts: set[str] | None) -> None:
        self.app = app
        self.hosts = hosts

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if self.hosts is not None:
            host = dict(scope.get("headers") or []).get(b"host", b"").decode("latin-1").lower()
            if host not in self.hosts:
                await _plain(421, "this server answers only to its own address")(scope, receive, send)
                return

        async def with_headers(message: Any) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                headers += [(k.encode(), v.encode()) for k, v in HEADERS.items()]
                if not scope["path"].startswith("/static/"):
                    headers.append((b"cache-control", b"no-store"))
                message["headers"] = headers
            await send(message)

        await self.app(scope, receive, with_headers)


def _plain(status: int, text: str) -> Response:
    return Response(text + "\n", status_code=status, media_type="text/plain; charset=utf-8")


def create_app(path: Path, held: Path | None, token: str | None, host: str, port: int, tsa: str | None = None,
               stamp_when: str = "close", tsa_roots: list[Any] | None = None) -> Starlette:
    """The web checklist over one journal. ``token``: what each role's join token is derived from
    (None: the server's secret beside the journal). With ``tsa``, a timestamp authority's URL, the server
    stamps the journal's head at the close and after every line after it (``stamp_when``
    "close"), or after every event ("every"), in the background: a press never waits for the TSA,
    and one token covers every line written before it was asked."""
    room = Room(path, held)
    keys = Keys.beside(path, token)
    env = Environment(loader=FileSystemLoader(HERE / "templates"), autoescape=select_autoescape(default=True),
                      trim_blocks=True, lstrip_blocks=True)
    zone = room.header["calendar"]["timezone"]
    env.filters["visible"] = _visible
    env.filters["at"] = lambda text: words.shown_at(text, room.tz)  # every instant a person sees: the exercise's zone
    env.filters["kindwords"] = words.kind_words
    env.filters["readable"] = lambda text: words.readable(text, room.tz)
    env.globals["zone"] = zone
    env.globals["beat"] = beat_seconds

    def said(message: str) -> str:
        """A refusal or a warning made for the command line, in the room's words."""
        return words.plain(message, room.tz, zone)

    # ----- who is asking -------------------------------------------------------------------

    def local(request: Request) -> bool:
        return bool(request.client) and request.client.host in LOOPBACK

    def from_cookie(request: Request) -> tuple[Participant, str] | None:
        key = request.cookies.get(COOKIE)
        who = keys.check(key)
        return (who, key) if who else None

    def from_bearer(request: Request) -> Participant:
        scheme, _, key = request.headers.get("authorization", "").partition(" ")
        who = keys.check(key.strip()) if scheme.lower() == "bearer" else None
        if who is None:
            raise Refused(401, "authorization: no valid participant key; join with POST /api/join and send "
                               "'Authorization: Bearer KEY'")
        return who

    async def read_body(request: Request) -> bytes:
        declared = request.headers.get("content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > MAX_BODY):
            raise Refused(413, f"body: larger than {MAX_BODY} bytes; a press is a few hundred bytes")
        chunks, size = [], 0
        try:
            async with asyncio.timeout(BODY_SECONDS):
                async for chunk in request.stream():
                    size += len(chunk)
                    if size > MAX_BODY:
                        raise Refused(413, f"body: larger than {MAX_BODY} bytes; a press is a few hundred bytes")
                    chunks.append(chunk)
        except TimeoutError:
            raise Refused(408, f"body: did not arrive within {BODY_SECONDS:g} s of the request, which is when a "
                               "press is stamped; nothing was written; send it again") from None
        return b"".join(chunks)

    async def read_json(request: Request) -> Any:
        raw = await read_body(request)
        try:
            return json.loads(raw.decode("utf-8"), parse_constant=_no_constant)
        except RecursionError:
            raise Refused(400, "body: nested too deeply to be an event request") from None
        except (ValueError, UnicodeDecodeError) as exc:
            raise Refused(400, f"body: is not JSON ({str(exc)[:80]})") from None

    async def read_form(request: Request) -> dict[str, str]:
        raw = await read_body(request)
        try:
            pairs = urllib.parse.parse_qsl(raw.decode("ascii"), keep_blank_values=True, strict_parsing=False,
                                           max_num_fields=200, errors="strict")
        except (ValueError, UnicodeDecodeError):
            raise Refused(400, "form: cannot be read") from None
        form: dict[str, str] = {}
        for k, v in pairs:
            if k in form:
                raise Refused(400, f"form: {k[:40]!r} is given twice")
            form[k] = v
        return form

    def same_origin(request: Request) -> None:
        origin = request.headers.get("origin")
        if origin is not None and origin != f"http://{request.headers.get('host', '')}":
            raise Refused(403, "origin: this form was not sent by this server's page")

    # ----- views ---------------------------------------------------------------------------

    def timeline(who: Participant, seen: tuple[list[dict[str, Any]], int] | None = None) -> dict[str, Any]:
        shown, head = seen or room.seen(who)  # one view: the head always names the last row's line
        fixes: dict[int, list[str]] = {}
        opened: dict[int, str] = {}  # a revealed onset's instant, shown where its time belongs
        righted: dict[int, str] = {}  # a corrected line's time now (the latest correction's)
        for e in shown:
            if e["kind"] == "correction":
                righted[e["data"]["target"]] = e["data"]["at"]
                fixes.setdefault(e["data"]["target"], []).append(
                    f"corrected by seq {e['seq']} to {words.shown_at(e['data']['at'], room.tz)}: {e['data']['reason']}")
            elif e["kind"] == "reveal":
                fixes.setdefault(e["data"]["target"], []).append(f"revealed by seq {e['seq']} (sealed when recorded)")
                opened[e["data"]["target"]] = e["data"]["at"]
        judged = permissions.judgements(shown)
        rows = []
        for e in reversed(shown[-TIMELINE_ROWS:]):
            marks = list(fixes.get(e["seq"], []))
            standing = permissions.claim_status(e, judged)
            if standing is not None:  # the measured party's claim: how it stands with the auditors
                verdict = judged.get(e["seq"])
                marks.append("claim: awaiting an auditor's acceptance, counted in no figure" if verdict is None
                             else f"claim {standing} by seq {verdict['seq']}")
            if e["at"] is None and not marks:
                marks.append("sealed until revealed")
            if e["data"].get("pressed_at"):
                marks.insert(0, f"recorded late (pressed at {words.shown_at(e['data']['pressed_at'], room.tz)} on the "
                                "browser's clock)")
            data = "; ".join(_detail(k, v, e, room.tz) for k, v in e["data"].items()
                             if k not in ("commitment", "pressed_at", "press_key", "salt"))
            at = e["at"] or opened.get(e["seq"])
            rows.append({"seq": e["seq"], "at": righted.get(e["seq"], at), "was": at if e["seq"] in righted else None,
                         "kind": e["kind"], "id": e["id"],
                         "by": display.author(e["by"], room.header),  # the runner one way, as the room writes it
                         "data": data, "recorded_at": e["recorded_at"], "marks": marks,
                         "late": bool(e["data"].get("pressed_at"))})
        return {"rows": rows, "hidden": max(0, len(shown) - TIMELINE_ROWS), "head": head}

    def steps_for(who: Participant, is_local: bool, shown: list[dict[str, Any]]) -> list[dict[str, Any]]:
        closed = any(e["kind"] == "exercise.close" for e in shown)
        # After the close the journal takes only judgements of claims, disputes, corrections and
        # the reveal: no step the server would refuse is offered.
        steps = [] if closed else checklist.next_steps(shown, room.header)
        if not who.runner and not closed:
            steps = [s for s in _watch_steps(shown, who) + steps if not _runner_only(s) and
                     presses.may_record(who, s.kind)]
        if presses.may_record(who, "accept"):  # the measured party's claims waiting for an auditor
            steps = checklist.claims_to_judge(shown) + steps
        if closed and presses.may_record(who, "dispute"):
            steps.append(checklist.Step("dispute a figure of the score (with the reason)", "dispute", None,
                                        group="after the close"))
        steps = _in_place(steps, shown)
        out = []
        for s in steps:
            mine = permissions.table().writes(who.role, s.kind)  # a role the table limits is offered only its fields
            fields = [{"name": a.name, "label": a.name.replace("_", " "), "help": a.help, "kind": a.kind,
                       "choices": a.choices, "required": a.required or (a.name == "affected_class"),
                       "attest": a.attest}
                      for a in checklist.fields_for(s.kind, s.data, permissions.table().record.get(s.kind, {})
                                                    .get(who.role) == "claim") if (mine is None or a.name in mine)
                      and a.name not in ("raised_by", "organisation")]  # a dispute's: the participant's own
            sealed = s.kind == "drift.onset" and s.data.get("source") == "exercise"
            pauses = checklist.open_pauses(shown, s.id) if s.kind == "incident.restored" and s.id else {}
            out.append({"label": s.label, "kind": s.kind, "id": s.id, "preset": s.data, "fields": fields,
                        "seal": sealed, "disabled": sealed and (room.held is None or not is_local),
                        "pauses": [("waiting on partner" if p == "wait" else "change window") for p in pauses],
                        "group": s.group,
                        "elements": checklist.element_choices(shown, room.header) if s.kind == "report.element"
                        else [], "periods": checklist.reports_received(shown)})
        return out

    def state(who: Participant, is_local: bool, seen: tuple[list[dict[str, Any]], int] | None = None) -> dict[str, Any]:
        shown, head = seen or room.seen(who)  # one view for every part of the answer (see Room.seen)
        skip = {"correction", "reveal", "dispute", "resolve", "notice.sent"}
        closed = any(e["kind"] == "exercise.close" for e in shown)  # a close is never sealed
        rule = permissions.table().correct.get(who.role)  # what the access list lets this role correct
        stopped = rule is None or (rule.get("until") and (closed or any(e["kind"] == "reveal" for e in shown)))
        correctable = [] if stopped else [
            e for e in reversed(shown) if e["kind"] not in skip and e["at"] is not None
            and (rule.get("lines") == "any" or e["by"] == who.by)]  # every line, newest first: none out of reach
        correctable = [{**e, "what": words.kind_words(e["kind"])} for e in correctable]
        return {"status": checklist.status(shown, seals_hidden=not who.runner, header=room.header),
                "steps": steps_for(who, is_local, shown), "closed": closed,
                "correctable": correctable, "problem": room.problem, "head": head,
                "can_reveal": who.runner and is_local and room.held is not None and closed,
                "sealed": len(checklist.sealed_onsets(shown)) if who.runner else None}

    def page_context(request: Request, who: Participant, key: str) -> dict[str, Any]:
        is_local = local(request)
        seen = room.seen(who)  # the whole page from one view, its two parts naming the same head
        return {"h": room.header, "who": who, "csrf": keys.csrf(key), "journal": room.path.name,
                "state": state(who, is_local, seen), "timeline": timeline(who, seen), "local": is_local,
                "held": room.held is not None, "roles": ROLES}

    def render(name: str, status: int = 200, headers: dict[str, str] | None = None, **context: Any) -> HTMLResponse:
        return HTMLResponse(env.get_template(name).render(**context), status_code=status, headers=headers)

    def json_state(who: Participant, is_local: bool) -> dict[str, Any]:
        s = state(who, is_local)
        return {"journal": room.path.name, "participant": {"name": who.name, "role": who.role, "by": who.by},
                "header": {k: room.header.get(k) for k in ("partner", "supplier", "deployment", "tier", "window",
                                                            "runner", "synthetic", "window_announced")},
                "timezone": room.header["calendar"]["timezone"], "head": s["head"], "closed": s["closed"],
                "open": s["status"], "problem": s["problem"],
                "next": [{k: step[k] for k in ("label", "kind", "id", "preset", "fields", "seal")}
                         for step in s["steps"]]}

    # ----- pages ---------------------------------------------------------------------------

    async def index(request: Request) -> Response:
        joined = from_cookie(request)
        if joined is None:
            nonce = request.cookies.get(JOIN_COOKIE) or secrets.token_urlsafe(18)
            response = render("join.html", h=room.header, csrf=nonce, roles=ROLES, error=None,
                              journal=room.path.name)
            response.set_cookie(JOIN_COOKIE, nonce, httponly=True, samesite="strict")
            return response
        return render("page.html", **page_context(request, *joined))

    def join_as(request: Request, token: Any, name: Any, role: Any) -> Participant:
        role = check_role(role)
        name = check_name(name)
        permissions.check_person(name, role, room.header)
        expected = keys.runner_token if role == "runner" else keys.join_token(role)
        if not isinstance(token, str) or not hmac.compare_digest(token.encode(), expected.encode()):
            hint = "This is not the runner's token; use the runner token the server printed when it started" \
                if role == "runner" else (f"This token is not the one for the {permissions.table().label(role)}: "
                                          "each role has its own; ask the runner for the "
                                          f"{permissions.table().label(role)}'s token")
            raise Refused(403, hint)
        if role == "runner" and not local(request):
            raise Refused(403, "role: the runner's page runs on the machine that holds the held file")
        return Participant(name, role)

    async def join_form(request: Request) -> Response:
        same_origin(request)
        form = await read_form(request)
        nonce = request.cookies.get(JOIN_COOKIE)
        if not nonce or not hmac.compare_digest(form.get("csrf", "").encode(), nonce.encode()):
            raise Refused(403, "csrf: the join form has expired; load the page again")
        try:
            who = join_as(request, form.get("token"), form.get("name"), form.get("role"))
        except (InputError, Refused) as exc:
            message = exc.message if isinstance(exc, Refused) else one_line(exc)
            return render("join.html", status=exc.status if isinstance(exc, Refused) else 422, h=room.header,
                          csrf=nonce, roles=ROLES, error=message, journal=room.path.name,
                          typed={"name": form.get("name", ""), "role": form.get("role", "")})  # kept; the token is not
        response = RedirectResponse("/", status_code=303)
        response.set_cookie(COOKIE, keys.issue(who), httponly=True, samesite="strict", max_age=60 * 60 * 24 * 60)
        response.delete_cookie(JOIN_COOKIE)
        return response

    async def leave(request: Request) -> Response:
        joined = _page_who(request)
        same_origin(request)
        form = await read_form(request)
        _check_csrf(joined, form)
        response = RedirectResponse("/", status_code=303)
        response.delete_cookie(COOKIE)
        return response

    def _page_who(request: Request) -> tuple[Participant, str]:
        joined = from_cookie(request)
        if joined is None:
            raise Refused(401, "not joined: load the page and join with the token")
        return joined

    def _check_csrf(joined: tuple[Participant, str], form: dict[str, str]) -> None:
        if not keys.check_csrf(joined[1], form.get("csrf")):
            raise Refused(403, "csrf: this form's token is missing or wrong; load the page again")

    async def press_form(request: Request) -> Response:
        stamp = timeparse.now()  # the instant the press arrived: before the body is read
        joined = _page_who(request)
        same_origin(request)
        form = await read_form(request)
        _check_csrf(joined, form)
        who = joined[0]
        if form.get("kind") == "correction" and not form.get("id"):
            form["id"] = form.get("f.target", "")
        if form.get("kind") == "dispute" and not form.get("id"):
            form["id"] = f"dispute-{form.get('f.line', '')}"  # as 'day60 dispute' names it
        data = {k[2:]: v for k, v in form.items() if k.startswith("f.") and v != "" and v != checklist.NOT_STATED}
        p = presses.Press(form.get("kind", ""), form.get("id", ""), form.get("at") or None, data,
                          form.get("seal") == "1", form.get("pressed_at") or None, form.get("sent_at") or None,
                          form.get("confirm") == "1",
                          form.get("pause_end_at", "") if form.get("end_pauses") == "1" else None,
                          form.get("press_key") or None, form.get("asked") or None)
        try:
            done = await run_in_threadpool(presses.record, room, who, p, stamp, local(request), True)
        except InputError as exc:
            room.wake()  # a journal found damaged by this press is shown on every page
            return render("result.html", status=403 if isinstance(exc, presses.Forbidden) else 422,
                          refused=said(one_line(exc)), form=None)
        if done.unconfirmed:
            again = {**form, "confirm": "1", "at": done.when.isoformat()}
            if p.kind == "exercise.close":
                # The close is stamped when "Close it" is pressed (unless a time was typed), and
                # the answer names the last line the question was made from.
                again = {**form, "confirm": "1", "asked": done.asked or "0"}
            pending = {"kind": p.kind, "id": p.ident, "at": done.when.isoformat(), "late": p.pressed_at,
                       "typed": bool(p.at and p.at.strip())}
            return render("result.html", warnings=[said(w) for w in done.warnings], form=again, refused=None,
                          pending=pending, changed=[said(c) for c in done.changed])
        room.wake()
        return render("result.html", headers={"hx-trigger": "day60-recorded"}, events=done.events,
                      warnings=[] if p.confirm else [said(w) for w in done.warnings],  # confirmed: seen already
                      held_at=done.held_at, refused=None, form=None,
                      replayed=done.replayed, claims=[permissions.is_claim(e) for e in done.events])

    async def reveal_form(request: Request) -> Response:
        joined = _page_who(request)
        same_origin(request)
        _check_csrf(joined, await read_form(request))
        try:
            done = await run_in_threadpool(presses.reveal, room, joined[0], local(request))
        except InputError as exc:
            return render("result.html", status=403, refused=said(one_line(exc)), form=None)
        room.wake()
        return render("result.html", revealed=done, refused=None, form=None)

    async def fragment_timeline(request: Request) -> Response:
        who, _ = _page_who(request)
        return render("timeline.html", timeline=timeline(who))

    async def fragment_state(request: Request) -> Response:
        who, key = _page_who(request)
        return render("state.html", state=state(who, local(request)), csrf=keys.csrf(key), who=who,
                      local=local(request), held=room.held is not None)

    async def page_stream(request: Request) -> Response:
        who, _ = _page_who(request)
        return _stream(request, who)

    # ----- the JSON twin -------------------------------------------------------------------

    async def api_join(request: Request) -> Response:
        body = await read_json(request)
        if not isinstance(body, dict) or set(body) - {"token", "name", "role"}:
            raise InputError("body", "must be an object with token, name and role", "send exactly those three")
        who = join_as(request, body.get("token"), body.get("name"), body.get("role"))
        return JSONResponse({"key": keys.issue(who), "name": who.name, "role": who.role, "by": who.by})

    async def api_post_event(request: Request) -> Response:
        stamp = timeparse.now()
        who = from_bearer(request)
        p = presses.from_json(await read_json(request))
        try:
            done = await run_in_threadpool(presses.record, room, who, p, stamp, local(request), False)
        finally:
            room.wake()
        answer: dict[str, Any] = {"event": done.events[-1], "warnings": done.warnings}
        if len(done.events) > 1:
            answer["also"] = done.events[:-1]
        if done.held_at is not None:
            answer["held_at"] = done.held_at  # answered to the runner alone, who sealed it
        return JSONResponse(answer, status_code=201)

    async def api_events(request: Request) -> Response:
        who = from_bearer(request)
        after = request.query_params.get("after", "0")
        if not after.isascii() or not after.isdigit() or len(after) > 12:
            raise InputError("after", f"{after[:20]!r} is not a seq", "give a whole number, e.g. after=0")
        lines, head = room.seen(who)
        return JSONResponse({"events": [e for e in lines if e["seq"] > int(after)], "head": head})

    async def api_state(request: Request) -> Response:
        who = from_bearer(request)
        return JSONResponse(json_state(who, local(request)))

    async def api_reveal(request: Request) -> Response:
        who = from_bearer(request)
        done = await run_in_threadpool(presses.reveal, room, who, local(request))
        room.wake()
        return JSONResponse({"revealed": done.events, "stray": done.stray, "unheld": done.unheld})

    async def api_stream(request: Request) -> Response:
        return _stream(request, from_bearer(request))

    streams = Streams()

    def _stream(request: Request, who: Participant) -> Response:
        release = streams.take(who)

        async def events() -> AsyncIterator[str]:
            queue = room.subscribe()
            last, problem = room.head(who), room.problem
            every = beat_seconds()
            beat = asyncio.get_running_loop().time() + every
            try:
                yield f"retry: 1000\nevent: head\ndata: {last}\n\n"
                while True:
                    # The keepalive keeps its own beat: a wake for a line this page may not see
                    # (a sealed onset) must change nothing this page receives, not even when.
                    left = beat - asyncio.get_running_loop().time()
                    if left <= 0:
                        beat += every
                        # an event, not a comment: a page's script sees it, and a page that hears
                        # nothing for two beats knows its stream has stalled
                        yield "event: beat\ndata: still here\n\n"
                        continue
                    try:
                        await asyncio.wait_for(queue.get(), timeout=left)
                    except TimeoutError:
                        continue
                    if room.closing:  # the server is stopping: the reply ends, the page will reconnect
                        return
                    head = room.head(who)
                    if head != last:
                        last = head
                        yield f"event: head\ndata: {head}\n\n"
                    if room.problem != problem:
                        problem = room.problem
                        yield "event: problem\ndata: the journal no longer verifies\n\n"
            finally:
                room.unsubscribe(queue)

        return _Held(events(), release, media_type="text/event-stream", headers={"x-accel-buffering": "no"})

    # ----- errors, lifespan ----------------------------------------------------------------

    def refusal(request: Request, status: int, message: str) -> Response:
        if request.url.path.startswith("/api/"):
            return JSONResponse({"error": message}, status_code=status)
        if request.headers.get("hx-request") == "true":
            return render("result.html", status=status, refused=said(message), form=None)
        return render("error.html", status=status, refused=message, h=room.header, journal=room.path.name)

    async def on_refused(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, Refused)
        return refusal(request, exc.status, exc.message)

    async def on_input(request: Request, exc: Exception) -> Response:
        return refusal(request, 403 if isinstance(exc, presses.Forbidden) else 422, one_line(exc))

    async def on_fault(request: Request, exc: Exception) -> Response:
        message = f"internal fault ({type(exc).__name__}); nothing more was written"
        if request.url.path.startswith("/api/"):
            return JSONResponse({"error": message}, status_code=500)
        return _plain(500, message)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async def follow() -> None:
            while True:
                await asyncio.sleep(0.2)
                problem = room.problem
                if await run_in_threadpool(room.refresh) or room.problem != problem:
                    room.wake()

        async def stamp() -> None:
            from day60.evidence import timestamp

            failed: set[int] = set()  # the line counts a stamp failed at: asked again after a new line
            while True:
                await asyncio.sleep(0.5)
                events = list(room.events)
                if len(events) in failed or room.problem or not timestamp.due(events, stamp_when):
                    continue
                _event, problem = await run_in_threadpool(timestamp.stamp_if_due, path, tsa, stamp_when, tsa_roots)
                if problem:  # the token line, when written, reaches the pages through follow()
                    failed.add(len(events))
                    print(f"note: not timestamped: {problem}; the lines written stand; stamp later with "
                          f"'day60 stamp {path} --tsa {tsa}'", file=sys.stderr, flush=True)

        tasks = [asyncio.create_task(follow())] + ([asyncio.create_task(stamp())] if tsa else [])
        _end_streams_on_exit(room, asyncio.get_running_loop())
        try:
            yield
        finally:
            for task in tasks:
                task.cancel()
            if room.closing:
                print(f"stopped serving {path.name}: every line a page was told of is in the journal; pages "
                      "reconnect by themselves when it is served again", file=sys.stderr, flush=True)

    routes = [
        Route("/", index, methods=["GET"]),
        Route("/join", join_form, methods=["POST"]),
        Route("/leave", leave, methods=["POST"]),
        Route("/press", press_form, methods=["POST"]),
        Route("/reveal", reveal_form, methods=["POST"]),
        Route("/fragment/timeline", fragment_timeline, methods=["GET"]),
        Route("/fragment/state", fragment_state, methods=["GET"]),
        Route("/stream", page_stream, methods=["GET"]),
        Route("/favicon.ico", lambda request: Response(status_code=204), methods=["GET"]),
        Route("/api/join", api_join, methods=["POST"]),
        Route("/api/events", api_post_event, methods=["POST"]),
        Route("/api/events", api_events, methods=["GET"]),
        Route("/api/state", api_state, methods=["GET"]),
        Route("/api/reveal", api_reveal, methods=["POST"]),
        Route("/api/stream", api_stream, methods=["GET"]),
        Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
    ]
    app = Starlette(routes=routes, lifespan=lifespan,
                    exception_handlers={Refused: on_refused, InputError: on_input, Exception: on_fault})
    app.state.room, app.state.keys = room, keys
    hosts = None
    if host in LOOPBACK or host == "localhost":
        names = {"127.0.0.1", "localhost", "[::1]"}
        hosts = {f"{n}:{port}" for n in names} | ({n for n in names} if port == 80 else set())
    return SecurityHeaders(app, hosts)  # type: ignore[return-value]


def _detail(name: str, value: Any, line: dict[str, Any], tz: Any) -> str:
    """One field of a line as the timeline's details say it: names in words, an instant in the
    exercise's zone, a seq named as such."""
    label = name.replace("_", " ")
    if name == "target":
        return f"of seq {value}"
    if isinstance(value, bool):
        return f"{label}: {'yes' if value else 'no'}"
    if isinstance(value, str) and (name == "at" or words.is_instant(value)):
        return f"{'time' if name == 'at' else label}: {words.shown_at(value, tz)}"
    if not isinstance(value, str):
        value = json.dumps(value)
    return f"{label}: {value}"


def _runner_only(step: checklist.Step) -> bool:
    """Steps only the runner's page offers: starting an injection (the sealed onset, the raised
    incident, the forced production rollback), recording one not run, and the close; the
    journal's own rules and ``press.allowed`` decide what is accepted."""
    data = step.data
    if step.kind in ("exercise.close", "incident.raised", "injection.not-run") or \
            step.label.startswith(checklist.FORCED_ROLLBACK):
        return True
    if step.kind == "drift.onset":
        return data.get("source") == "exercise"
    return step.kind == "rollback.criterion-met" and data.get("kind") == "production" and \
        data.get("source") == "exercise"


def _end_streams_on_exit(room: Room, loop: asyncio.AbstractEventLoop) -> None:
    """Have a stop (Ctrl-C, SIGTERM) end every open event stream at once. Uvicorn waits for running
    replies before it stops and then cancels them, each with a traceback: a page's stream is a
    reply that never ends by itself. The handler uvicorn installed is still called, and uvicorn puts
    back the handlers it found when it stops."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        return
    for sig in (signal.SIGINT, signal.SIGTERM):
        previous = signal.getsignal(sig)
        if not callable(previous):
            continue

        def ending(signum: int, frame: Any, previous: Any = previous) -> None:
            loop.call_soon_threadsafe(room.close_streams)
            previous(signum, frame)

        signal.signal(sig, ending)


def _in_place(steps: list[checklist.Step], shown: list[dict[str, Any]]) -> list[checklist.Step]:
    """Steps in an order that does not move as lines arrive: the claims to judge first, then one
    group an id, in the order the ids first appear in the journal, then what starts something new,
    then the close. Within a group, the order the checklist gives."""
    first: dict[str, int] = {}
    for e in shown:
        first.setdefault(e["id"], e["seq"])

    def rank(step: checklist.Step) -> tuple[int, int]:
        if step.group == "claims to accept or reject":
            return (0, 0)
        if step.group == "new":
            return (2, 0)
        if step.group == "close":
            return (3, 0)
        return (1, first.get(step.group, 1 << 60))

    return sorted(steps, key=rank)


def _watch_steps(shown: list[dict[str, Any]], who: Participant) -> list[checklist.Step]:
    """What a watcher stamps on a signed-off injection whose sealed start it cannot see: the
    supplier's detection and its written notice, and the stop. Offered for every signed-off id
    still open, to the roles the access list lets take them; a claim of a detection or a notice
    that names no drift is recorded all the same (a refusal would tell of the seal) and costs the
    supplier a false alert."""
    out = []
    kinds: dict[str, set[str]] = {}
    for e in shown:
        kinds.setdefault(e["id"], set()).add(e["kind"])
    for ident, ks in kinds.items():
        if "safety.agreed" not in ks or ks & {"injection.not-run", "injection.stopped", "drift.onset",
                                              "incident.raised", "rollback.criterion-met", "incident.detected"}:
            continue
        # Worded for what the watcher sees: a signed-off injection whose start it is not shown, which
        # may be a sealed drift; a milestone already recorded is not offered again.
        if "drift.detected" not in ks:
            out.append(checklist.Step(f"{ident}: the supplier says it has detected a drift", "drift.detected",
                                      ident, group=ident))
        if "drift.notice" not in ks:
            out.append(checklist.Step(f"{ident}: a written notice of a drift has arrived", "drift.notice", ident,
                                      group=ident))
        out.append(checklist.Step(f"{ident}: injection stopped by its stop condition", "injection.stopped",
                                  ident, group=ident))
    return out  # steps_for keeps those the participant's role may take


def _no_constant(text: str) -> Any:
    raise ValueError(f"{text} is not a number JSON allows")



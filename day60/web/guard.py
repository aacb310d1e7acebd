"""What every request to ``day60 serve`` passes before a view sees it: bodies read to a fixed
size and time, the same-origin check, the security headers and the Host check, and ``Refused``,
the one way a view answers "no" with a status and one line."""

from __future__ import annotations

import asyncio
import json
import unicodedata
import urllib.parse
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

MAX_BODY = 64 * 1024  # a press is a few hundred bytes; nothing a page or a script sends comes near this
# A press is stamped when its request arrives, before its body is read, so the body must follow at
# once: one that trickled in for an hour would be recorded an hour before it was sent.
BODY_SECONDS = 5.0
CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
       "form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
HEADERS = {"content-security-policy": CSP, "x-content-type-options": "nosniff", "referrer-policy": "same-origin",
           "x-frame-options": "DENY", "cross-origin-opener-policy": "same-origin",
           "cross-origin-resource-policy": "same-origin", "permissions-policy": "camera=(), microphone=()"}
LOOPBACK = ("127.0.0.1", "::1", "::ffff:127.0.0.1")


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


def visible(text: Any) -> str:
    """Text as it is, except characters that would hide or reorder what follows (format,
    separator and unassigned characters), which are shown by their code point."""
    return "".join(f"<U+{ord(c):04X}>" if unicodedata.category(c) in ("Cf", "Zl", "Zp", "Cn", "Co", "Cs")
                   else c for c in str(text))


def is_local(request: Request) -> bool:
    """Whether the request comes from this machine (the runner's page must)."""
    return bool(request.client) and request.client.host in LOOPBACK


async def read_body(request: Request) -> bytes:
    """The request's body, refused past ``MAX_BODY`` bytes or ``BODY_SECONDS`` of waiting."""
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
    """The body as JSON (no NaN or Infinity, a nesting Python can read), or a 400."""
    raw = await read_body(request)
    try:
        return json.loads(raw.decode("utf-8"), parse_constant=_no_constant)
    except RecursionError:
        raise Refused(400, "body: nested too deeply to be an event request") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise Refused(400, f"body: is not JSON ({str(exc)[:80]})") from None


async def read_form(request: Request) -> dict[str, str]:
    """The body as a form, each field given once, or a 400."""
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
    """Refuse a form another site's page sent (its Origin is not this server's)."""
    origin = request.headers.get("origin")
    if origin is not None and origin != f"http://{request.headers.get('host', '')}":
        raise Refused(403, "origin: this form was not sent by this server's page")


def plain(status: int, text: str) -> Response:
    """A one-line text answer."""
    return Response(text + "\n", status_code=status, media_type="text/plain; charset=utf-8")


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
                await plain(421, "this server answers only to its own address")(scope, receive, send)
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


def loopback_hosts(host: str, port: int) -> set[str] | None:
    """The Host headers a server on the loopback answers to; None (any) for one on another address."""
    if host not in LOOPBACK and host != "localhost":
        return None
    names = {"127.0.0.1", "localhost", "[::1]"}
    return {f"{n}:{port}" for n in names} | (names if port == 80 else set())


def _no_constant(text: str) -> Any:
    raise ValueError(f"{text} is not a number JSON allows")

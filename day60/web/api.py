"""The JSON twin of the pages, for scripts: join for a key, post an event, read the events, the
state and the stream, and the reveal. Each takes the participant's key as a Bearer token and
reads the server's state from ``site_of(request)``."""

from __future__ import annotations

from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from day60 import timeparse
from day60.errors import InputError
from day60.web import press as presses
from day60.web import shown, streams
from day60.web.guard import is_local, read_json
from day60.web.site import site_of


async def join(request: Request) -> Response:
    """POST /api/join {token, name, role}: the participant's key."""
    site = site_of(request)
    body = await read_json(request)
    if not isinstance(body, dict) or set(body) - {"token", "name", "role"}:
        raise InputError("body", "must be an object with token, name and role", "send exactly those three")
    who = site.join_as(request, body.get("token"), body.get("name"), body.get("role"))
    return JSONResponse({"key": site.keys.issue(who), "name": who.name, "role": who.role, "by": who.by})


async def post_event(request: Request) -> Response:
    """POST /api/events: one event, stamped when the request arrived; 201 with the line written."""
    stamp = timeparse.now()
    site = site_of(request)
    who = site.from_bearer(request)
    p = presses.from_json(await read_json(request))
    try:
        done = await run_in_threadpool(presses.record, site.room, who, p, stamp, is_local(request), False)
    finally:
        site.room.wake()
    answer: dict[str, Any] = {"event": done.events[-1], "warnings": done.warnings}
    if len(done.events) > 1:
        answer["also"] = done.events[:-1]
    if done.held_at is not None:
        answer["held_at"] = done.held_at  # answered to the runner alone, who sealed it
    return JSONResponse(answer, status_code=201)


async def events(request: Request) -> Response:
    """GET /api/events?after=SEQ: the lines this participant may see after SEQ, and the head."""
    site = site_of(request)
    who = site.from_bearer(request)
    after = request.query_params.get("after", "0")
    if not after.isascii() or not after.isdigit() or len(after) > 12:
        raise InputError("after", f"{after[:20]!r} is not a seq", "give a whole number, e.g. after=0")
    lines, head = site.room.seen(who)
    return JSONResponse({"events": [e for e in lines if e["seq"] > int(after)], "head": head})


async def state(request: Request) -> Response:
    """GET /api/state: what is open and what comes next, for this participant."""
    site = site_of(request)
    return JSONResponse(shown.json_state(site.room, site.from_bearer(request), is_local(request)))


async def reveal(request: Request) -> Response:
    """POST /api/reveal: the runner reveals the sealed onsets after the close."""
    site = site_of(request)
    who = site.from_bearer(request)
    done = await run_in_threadpool(presses.reveal, site.room, who, is_local(request))
    site.room.wake()
    return JSONResponse({"revealed": done.events, "stray": done.stray, "unheld": done.unheld})


async def stream(request: Request) -> Response:
    """GET /api/stream: a script's event stream."""
    site = site_of(request)
    return streams.stream(site.room, site.streams, site.from_bearer(request))

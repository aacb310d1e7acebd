"""The ASGI app of ``day60 serve``: pages for people, a JSON twin for scripts, one event stream.

``create_app`` builds the server's state (``site.Site``) and maps each route to its view, the
pages' in ``pages`` and the twin's in ``api``, as a table a reader finds a route in by its path.
Pages are server-rendered (Jinja2, autoescaped) and enhanced by the vendored htmx and the app's
own script; nothing is loaded from elsewhere, and the Content-Security-Policy says so
(``guard``). Page posts carry a CSRF token tied to the participant's key (kept in an HttpOnly,
SameSite=Strict cookie); the JSON twin takes the key as a Bearer token. Every body is read to a
fixed limit.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from day60.errors import InputError
from day60.web import api, pages
from day60.web import press as presses
from day60.web.guard import Refused, SecurityHeaders, loopback_hosts, one_line, plain
from day60.web.room import Keys, Room
from day60.web.site import HERE, Site, site_of

ROUTES = [
    Route("/", pages.index, methods=["GET"]),
    Route("/join", pages.join, methods=["POST"]),
    Route("/leave", pages.leave, methods=["POST"]),
    Route("/press", pages.press, methods=["POST"]),
    Route("/reveal", pages.reveal, methods=["POST"]),
    Route("/fragment/timeline", pages.fragment_timeline, methods=["GET"]),
    Route("/fragment/state", pages.fragment_state, methods=["GET"]),
    Route("/stream", pages.stream, methods=["GET"]),
    Route("/favicon.ico", pages.no_icon, methods=["GET"]),
    Route("/api/join", api.join, methods=["POST"]),
    Route("/api/events", api.post_event, methods=["POST"]),
    Route("/api/events", api.events, methods=["GET"]),
    Route("/api/state", api.state, methods=["GET"]),
    Route("/api/reveal", api.reveal, methods=["POST"]),
    Route("/api/stream", api.stream, methods=["GET"]),
    Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
]


def create_app(path: Path, held: Path | None, token: str | None, host: str, port: int, tsa: str | None = None,
               stamp_when: str = "close", tsa_roots: list[Any] | None = None) -> Starlette:
    """The web checklist over one journal. ``token``: what each role's join token is derived from
    (None: the server's secret beside the journal). With ``tsa``, a timestamp authority's URL, the server
    stamps the journal's head at the close and after every line after it (``stamp_when``
    "close"), or after every event ("every"), in the background: a press never waits for the TSA,
    and one token covers every line written before it was asked."""
    room = Room(path, held)
    site = Site(room, Keys.beside(path, token), tsa, stamp_when, tsa_roots)
    app = Starlette(routes=ROUTES, lifespan=_lifespan,
                    exception_handlers={Refused: _on_refused, InputError: _on_input, Exception: _on_fault})
    app.state.site, app.state.room, app.state.keys = site, room, site.keys
    return SecurityHeaders(app, loopback_hosts(host, port))  # type: ignore[return-value]


# ----- errors ------------------------------------------------------------------------------------

async def _on_refused(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, Refused)
    return site_of(request).refusal(request, exc.status, exc.message)


async def _on_input(request: Request, exc: Exception) -> Response:
    return site_of(request).refusal(request, 403 if isinstance(exc, presses.Forbidden) else 422, one_line(exc))


async def _on_fault(request: Request, exc: Exception) -> Response:
    message = f"internal fault ({type(exc).__name__}); nothing more was written"
    if request.url.path.startswith("/api/"):
        return JSONResponse({"error": message}, status_code=500)
    return plain(500, message)


# ----- while it serves ---------------------------------------------------------------------------

@contextlib.asynccontextmanager
async def _lifespan(app: Starlette) -> AsyncIterator[None]:
    """Follow the journal as others append to it (every 0.2 s), stamp it in the background when
    a timestamp authority is named, and end every open stream when the server is stopped."""
    site: Site = app.state.site
    room, path, tsa, stamp_when, tsa_roots = site.room, site.room.path, site.tsa, site.stamp_when, site.tsa_roots

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

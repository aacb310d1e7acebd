"""The web checklist: serve."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from day60.cli.base import app


@app.command()
def serve(
    journal: Path = typer.Argument(..., help="The exercise journal to serve."),
    held: Path = typer.Option(None, "--held", help="The runner's held file: the runner's page seals onsets into it."),
    host: str = typer.Option("127.0.0.1", "--host", help="Address to listen on (default: this machine only)."),
    port: int = typer.Option(8060, "--port", help="Port to listen on (0: any free port, printed)."),
    token: str = typer.Option(None, "--token", envvar="DAY60_SERVE_TOKEN", show_envvar=True,
                              help="What every role's join token is derived from (default: the server's own "
                                   "secret beside the journal). Prefer the environment variable: a command line "
                                   "is visible to every user of this machine."),
    tsa: str = typer.Option(None, "--tsa", metavar="URL",
                            help="An RFC 3161 timestamp authority: the server stamps the journal's head at the "
                                 "close (or after every event, with --stamp every), in the background."),
    stamp_when: str = typer.Option("close", "--stamp", metavar="close|every",
                                   help="With --tsa: stamp at the close and every line after it (close), or "
                                        "after every event (every)."),
    tsa_root: list[Path] = typer.Option([], "--tsa-root", metavar="CERT",
                                        help="A root certificate you trust for the TSA. Repeatable."),
) -> None:
    """Serve one journal as a web checklist: every participant joins with a name and the join token
    of its role (one a role, printed here), and stamps lines by the server's clock, as the access
    list (roles/permissions-v1.yaml) lets that role; new lines reach every page within a second.

    Only the runner's page, on this machine, seals and reveals (it joins with the runner token,
    printed here). Refuses a journal that does not verify. Stop with Ctrl-C: every line a page
    was told of is already in the journal.

    Example: day60 serve ex.jsonl --held runner-held.json
    """
    import socket
    import sys

    from day60 import reading
    from day60.errors import InputError

    if token is not None and (len(token) < 8 or len(token) > 200 or not token.isascii() or not token.isprintable()):
        raise InputError("--token", "must be 8 to 200 printable ASCII characters", "choose a longer token, or omit it")
    if not 0 <= port <= 65535:
        raise InputError("--port", f"{port} is not a port", "give 0 to 65535 (0: any free port)")
    from day60.evidence import timestamp

    roots = timestamp.checklist_options(tsa, stamp_when, tsa_root)
    report = reading.verify(journal)
    if not report.ok:
        problem = report.problem or "the last line is partial (an interrupted write)"
        typer.echo(f"error: {journal}: does not verify ({problem}); not serving it; run 'day60 verify {journal}'",
                   err=True)
        raise typer.Exit(1)
    if held is not None:
        _check_held(held, journal)
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    try:
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
    except OSError as exc:
        raise InputError("--host/--port", f"cannot listen on {host}:{port} ({exc.strerror})",
                         "choose another port (or 0 for any free one), or an address of this machine") from None
    except (socket.gaierror, UnicodeError, ValueError):
        raise InputError("--host", f"{host[:60]!r} is not an address of this machine",
                         "give 127.0.0.1 (the default) or an address this machine has") from None
    sock.listen(128)
    sock.set_inheritable(True)
    bound = sock.getsockname()[1]
    import uvicorn

    from day60.web import create_app
    from day60.web.room import ROLES

    asgi = create_app(journal, held, token, host, bound, tsa, stamp_when, roots)
    keys = asgi.app.state.keys
    shown = f"[{host}]" if ":" in host else host
    typer.echo(f"serving {journal} at http://{shown}:{bound}/")
    typer.echo(f"runner token (the runner's page, on this machine only): {keys.runner_token}")
    typer.echo("join tokens, one a role (give each only to the people who act in that role; the role a page "
               "acts as is its token's):")
    for role in ROLES:
        if role != "runner":
            typer.echo(f"  {role}: {keys.join_token(role)}")
    if host not in ("127.0.0.1", "::1", "localhost"):
        typer.echo(f"note: listening on {host}: anyone who can reach it and has a join token can join", err=True)
    if held is None:
        typer.echo("note: no --held: this server cannot seal or reveal onsets", err=True)
    if tsa is not None:
        typer.echo(f"note: the journal's head is timestamped by {tsa} "
                   + ("after every event" if stamp_when == "every" else "at the close and after"), err=True)
    sys.stdout.flush()
    config = uvicorn.Config(asgi, log_level="warning", proxy_headers=False, server_header=False, access_log=False,
                            timeout_graceful_shutdown=2, lifespan="on", **server_limits())
    uvicorn.Server(config).run(sockets=[sock])


# What one client may hold of the server, needing no token to try: a connection that never finishes
# its request (a slowloris), an idle kept-alive connection, many connections, huge headers.
REQUEST_TIMEOUT = 10.0  # seconds from a request's first byte to its last (line, headers and body)
SILENT_TIMEOUT = 20.0  # seconds a new connection may send nothing (a browser opens some ahead of use)
KEEP_ALIVE = 5  # seconds an idle connection is kept open between requests (uvicorn's timeout_keep_alive)
MAX_CONNECTIONS = 64  # requests being answered at once (event streams included); one beyond is answered 503
# Open connections beyond this many: the oldest that has sent nothing yet is closed to make room (a
# new one is closed unread only when every open connection has sent a request).
HARD_CONNECTIONS = 2 * MAX_CONNECTIONS
MAX_HEADER_BYTES = 16 * 1024  # a request line and headers larger than this are refused (h11's limit)


def server_limits() -> dict[str, object]:
    """uvicorn's own limits, and its h11 protocol with a request-read deadline, which uvicorn does
    not have (its keep-alive timer starts only after a first response, so a connection that sends
    half a request line and then a byte a minute is held for ever): REQUEST_TIMEOUT from a
    request's first byte to its last, and SILENT_TIMEOUT for a new connection that sends nothing
    (longer, since browsers open connections ahead of the requests they will carry)."""
    return {"http": _bounded_protocol(), "timeout_keep_alive": KEEP_ALIVE,
            "h11_max_incomplete_event_size": MAX_HEADER_BYTES}


def _over_capacity(app: Any, tasks: set[Any]) -> Any:
    """``app``, answering 503 (JSON under /api/, as every answer there is) while more than
    MAX_CONNECTIONS requests are being answered. uvicorn's own limit_concurrency also counted open
    connections, so connections that never sent a byte (attack 37: 66 of them, reopened every 15 s)
    left every request answered 503; only requests count here."""

    async def limited(scope: Any, receive: Any, send: Any) -> None:
        if scope.get("type") != "http" or len(tasks) <= MAX_CONNECTIONS:
            await app(scope, receive, send)
            return
        api = str(scope.get("path", "")).startswith("/api/")
        body = (b'{"error": "the server is answering as many requests as it takes at once; try again in a moment"}'
                if api else b"Service Unavailable: the server is answering as many requests as it takes at once")
        await send({"type": "http.response.start", "status": 503, "headers": [
            (b"content-type", b"application/json" if api else b"text/plain; charset=utf-8"),
            (b"content-length", str(len(body)).encode()), (b"connection", b"close"), (b"retry-after", b"1")]})
        await send({"type": "http.response.body", "body": body, "more_body": False})

    return limited


def _bounded_protocol() -> type:
    import asyncio

    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    reading = (h11.IDLE, h11.SEND_BODY)  # the client's side of a request still arriving

    class Bounded(H11Protocol):  # type: ignore[misc]
        """uvicorn's h11 protocol, each request read within REQUEST_TIMEOUT of its first byte."""

        deadline: asyncio.TimerHandle | None = None
        started = False  # whether the request being read has sent its first byte
        spoken = False  # whether this connection has sent anything at all

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.limit_concurrency = None  # uvicorn's counts silent connections: requests are counted instead
            self.app = _over_capacity(self.app, self.tasks)
            self.opened = self.loop.time()

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            if len(self.connections) > HARD_CONNECTIONS:
                silent = [c for c in self.connections if c is not self and not getattr(c, "spoken", True)
                          and not c.transport.is_closing()]
                if not silent:
                    transport.close()
                    return
                min(silent, key=lambda c: c.opened).transport.close()
            self._arm(SILENT_TIMEOUT)

        def data_received(self, data: bytes) -> None:
            self.spoken = True
            if not self.started and self.conn.their_state is h11.IDLE:
                # the first byte of a request (on a new connection, or the next on a kept-alive
                # one): it has REQUEST_TIMEOUT from now, however long the connection sat silent
                self.started = True
                self._arm(REQUEST_TIMEOUT)
            super().data_received(data)
            self._settle()

        def handle_events(self) -> None:
            super().handle_events()
            self._settle()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

        def _arm(self, seconds: float) -> None:
            self._disarm()
            self.deadline = self.loop.call_later(seconds, self._expire)

        def _disarm(self) -> None:
            if self.deadline is not None:
                self.deadline.cancel()
                self.deadline = None

        def _settle(self) -> None:
            if self.conn.their_state not in reading:
                self._disarm()
                self.started = False

        def _expire(self) -> None:
            self.deadline = None
            if self.conn.their_state in reading and not self.transport.is_closing():
                self.transport.close()

    return Bounded


def _check_held(held: Path, journal: Path) -> None:
    import os

    from day60 import journal as jr
    from day60.errors import InputError
    from day60.files import check_output

    if os.path.lexists(held):
        data = jr.load_held(held)
        if data["journal"] != jr.read_header(journal)["hash"]:
            raise InputError("--held", f"{held} holds instants for another journal", "give this journal's held file")
    else:
        check_output("--held", held, [("JOURNAL", journal)])

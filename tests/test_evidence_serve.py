"""'day60 serve' against clients that hold it without ever asking anything (issue 37, point 5):
connections that never finish their request line and headers (a slowloris: half a request, then a
byte a second), connections that send nothing, idle kept-alive connections, and headers past the
limit. No join token is needed to do any of these, so each is bounded at the server's start-up
(day60.cli.web.server_limits): a request must arrive whole within REQUEST_TIMEOUT of its first
byte, an idle connection is closed after KEEP_ALIVE, open connections are capped.

The server runs the product's own bounded protocol with its bounds scaled down (LIMITS: the
same order, silent longer than a request, a request longer than a kept-alive idle), so the timed
tests wait seconds where the shipped bounds would take half a minute; the last test holds the
shipped bounds to what uvicorn is started with.

Every socket here is on 127.0.0.1, every loop is bounded in count and time, and the server is
stopped at the end. Without the bounds, the slowloris sockets are still open when the test gives
up waiting, and it fails."""

import contextlib
import os
import re
import select
import socket
import subprocess
import sys
import time
import types
from pathlib import Path

import pytest

from day60.cli import web

ROOT = Path(__file__).resolve().parent.parent

# The bounds the test server runs with, in seconds: web.REQUEST_TIMEOUT, web.SILENT_TIMEOUT and
# web.KEEP_ALIVE scaled down (the shipped 10, 20 and 5 would make these tests wait 40 s).
LIMITS = types.SimpleNamespace(REQUEST_TIMEOUT=4.0, SILENT_TIMEOUT=10.0, KEEP_ALIVE=1)

# `day60 serve` as `python -m day60` runs it, with the bounds above set on day60.cli.web first
# (read where the protocol arms its timers and where uvicorn's limits are made, at start-up).
SERVE = (f"import sys; from day60.cli import web; web.REQUEST_TIMEOUT = {LIMITS.REQUEST_TIMEOUT!r}; "
         f"web.SILENT_TIMEOUT = {LIMITS.SILENT_TIMEOUT!r}; web.KEEP_ALIVE = {LIMITS.KEEP_ALIVE!r}; "
         "sys.argv[0] = 'day60'; from day60.cli import main; main()")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    from day60 import demo

    folder = tmp_path_factory.mktemp("serve-limits")
    journal = folder / "exercise.jsonl"
    demo.build_journal(journal)
    env = dict(os.environ, PYTHONPATH=str(ROOT), XDG_STATE_HOME=str(folder / "state"),
               DAY60_SERVE_TOKEN="a-long-enough-token")
    proc = subprocess.Popen([sys.executable, "-c", SERVE, "serve", str(journal), "--port", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        port = None
        deadline = time.monotonic() + 60
        while port is None and time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            found = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
            port = int(found.group(1)) if found else None
        assert port is not None, proc.stderr.read() if proc.poll() is not None else "no address printed"
        yield port
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


def _connect(port):
    sock = socket.create_connection(("127.0.0.1", port), timeout=5)
    sock.setblocking(False)
    return sock


def _closed(sock) -> bool:
    """Whether the server closed this socket (its end read as end of file, or reset)."""
    ready, _w, _x = select.select([sock], [], [], 0)
    if not ready:
        return False
    try:
        return sock.recv(65536) == b""
    except (ConnectionResetError, BrokenPipeError):
        return True
    except BlockingIOError:
        return False


def _get(port, path="/"):
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode())
        reply = b""
        while chunk := sock.recv(65536):
            reply += chunk
    return reply


def test_connections_that_never_finish_their_headers_are_closed(server):
    """Twenty clients each send half a request and then one header byte a second, and four send
    nothing at all. Each slow one is closed within REQUEST_TIMEOUT of its first byte, each silent
    one within SILENT_TIMEOUT (plus a margin for a busy machine); the first round's server held
    them for as long as they kept sending. Afterwards an ordinary request is answered."""
    slow = [_connect(server) for _ in range(20)]
    silent = [_connect(server) for _ in range(4)]
    for sock in slow:
        sock.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
    started = time.monotonic()
    give_up = LIMITS.REQUEST_TIMEOUT + 15
    open_ = set(range(len(slow)))
    closed_after: dict[int, float] = {}
    while open_ and time.monotonic() - started < give_up:
        for i in sorted(open_):
            with contextlib.suppress(BrokenPipeError, ConnectionResetError, BlockingIOError):
                slow[i].send(b"a")
            if _closed(slow[i]):
                closed_after[i] = time.monotonic() - started
                open_.discard(i)
        time.sleep(1)
    try:
        assert not open_, f"{len(open_)} of {len(slow)} slow connections still open after {give_up:g} s"
        assert max(closed_after.values()) < LIMITS.REQUEST_TIMEOUT + 10
        while not all(_closed(sock) for sock in silent) and time.monotonic() - started < LIMITS.SILENT_TIMEOUT + 10:
            time.sleep(1)
        assert all(_closed(sock) for sock in silent), "a connection that sent nothing is still open"
        assert _get(server).startswith(b"HTTP/1.1 ")
    finally:
        for sock in slow + silent:
            sock.close()
    print(f"slow connections closed after {min(closed_after.values()):.1f} to {max(closed_after.values()):.1f} s")


def test_a_connection_opened_ahead_of_its_request_gets_the_whole_deadline(server):
    """Browsers open connections ahead of the requests they will carry. One that sits silent for
    longer than REQUEST_TIMEOUT and then sends a request in two pieces (its line and headers, then
    its body a second later) is answered: the request's deadline runs from its own first byte,
    not from the connection's opening (the first version of this bound closed such a connection
    in the middle of a press)."""
    with socket.create_connection(("127.0.0.1", server), timeout=LIMITS.SILENT_TIMEOUT + 15) as sock:
        time.sleep(LIMITS.REQUEST_TIMEOUT + 2)
        sock.sendall(b"POST /nowhere HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/plain\r\n"
                     b"Content-Length: 5\r\nConnection: close\r\n\r\n")
        time.sleep(1)
        sock.sendall(b"hello")
        reply = sock.recv(65536)
    assert reply.startswith(b"HTTP/1.1 "), reply[:80]


def test_an_idle_kept_alive_connection_is_closed(server):
    with socket.create_connection(("127.0.0.1", server), timeout=LIMITS.KEEP_ALIVE + 15) as sock:
        sock.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        started = time.monotonic()
        reply = sock.recv(65536)
        assert reply.startswith(b"HTTP/1.1 ")
        while sock.recv(65536):  # the rest of the reply, then the server's end of file
            pass
        assert time.monotonic() - started < LIMITS.KEEP_ALIVE + 10


def test_headers_past_the_limit_are_refused(server):
    with socket.create_connection(("127.0.0.1", server), timeout=15) as sock:
        sock.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + b"a" * (web.MAX_HEADER_BYTES + 1024))
        reply = sock.recv(65536)
    assert reply.startswith(b"HTTP/1.1 4") or reply == b"", reply[:80]


def test_connections_that_send_nothing_take_no_request_slot(server):
    """Attack 37, finding 5: 66 connections that sent nothing (reopened every 15 s) left every
    request answered 503, since uvicorn's limit counted open connections. Requests are counted
    now, not connections: with HARD_CONNECTIONS + 12 = 140 silent connections open, a request is
    answered by the app, and each connection past the 128th closed the oldest silent one to make room
    (140 + 1 - 128 = 13 closed by the time the page is answered, the page's own included in the
    141), the rest left to SILENT_TIMEOUT."""
    silent = []
    try:
        for _ in range(web.HARD_CONNECTIONS + 12):
            silent.append(_connect(server))
        time.sleep(0.5)
        reply = _get(server, "/")  # the app's own answer (421: this helper's Host names no port), not 503
        assert reply.startswith(b"HTTP/1.1 421"), reply[:200]
        time.sleep(0.5)
        closed = [i for i, sock in enumerate(silent) if _closed(sock)]
        assert len(closed) >= 13 and closed[:13] == list(range(13)), closed
    finally:
        for sock in silent:
            sock.close()


def test_a_full_server_answers_503_as_json_under_api():
    """Attack 37, finding 4: the 503 on /api was plain text. Beyond MAX_CONNECTIONS requests at
    once (65 running, this one included), /api/ answers 503 with a JSON error and Retry-After;
    a page gets the same status in text; at 64 the request goes through."""
    import asyncio
    import json

    def ask(path: str, running: int) -> list[dict]:
        sent: list[dict] = []

        async def app(scope, receive, send):
            await send({"type": "http.response.start", "status": 200, "headers": []})

        async def send(message):
            sent.append(message)

        limited = web._over_capacity(app, set(range(running)))
        asyncio.run(limited({"type": "http", "path": path}, None, send))
        return sent

    start, body = ask("/api/state", web.MAX_CONNECTIONS + 1)
    assert start["status"] == 503 and (b"content-type", b"application/json") in start["headers"]
    assert "try again" in json.loads(body["body"])["error"] and (b"retry-after", b"1") in start["headers"]
    assert ask("/", web.MAX_CONNECTIONS + 1)[0]["status"] == 503
    assert ask("/api/state", web.MAX_CONNECTIONS)[0]["status"] == 200


def test_the_limits_are_the_ones_uvicorn_is_started_with():
    limits = web.server_limits()
    # the scaled bounds the timed tests run with keep the shipped ones' order
    assert web.SILENT_TIMEOUT > web.REQUEST_TIMEOUT > web.KEEP_ALIVE
    assert LIMITS.SILENT_TIMEOUT > LIMITS.REQUEST_TIMEOUT + 2 > LIMITS.KEEP_ALIVE
    assert limits["timeout_keep_alive"] == web.KEEP_ALIVE and "limit_concurrency" not in limits
    assert limits["h11_max_incomplete_event_size"] == web.MAX_HEADER_BYTES
    assert issubclass(limits["http"], __import__("asyncio").Protocol)

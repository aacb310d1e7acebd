"""A command server for the docs examples: `day60` started once, each command a fork of it.

The docs examples run about 160 `day60` commands, each in a fresh process that imports typer,
pydantic, Jinja2 and, for every PDF, WeasyPrint before doing any work; that start-up was most of
their time. Here the venv's own Python imports the installed wheel's CLI and the renderer once,
then forks a child per command. The child takes the command's own argv, working folder,
environment and standard input, output and error (passed over a Unix socket as file
descriptors), runs the same entry point the console script runs (``day60.cli:main``) and reports
its exit code. What a command reads and writes, and where, is exactly what a fresh process
would read and write; only the imports are shared.

Two parts: ``serve`` runs in the venv (this file copied there and run by path, so nothing is
imported from the checkout), and ``client_script`` is the text of the `day60` executable that
takes the installed console script's place in the venv. Without the
server's socket in its environment the client runs the real console script, so a command run
outside the examples behaves as installed.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import struct
import sys

SOCKET_VARIABLE = "DAY60_TEST_COMMAND_SERVER"
MAX_MESSAGE = 1 << 20


def _preload() -> None:
    """Import what most commands import, and draw one PDF so fonts are found once."""
    import jinja2  # noqa: F401
    import pypdf  # noqa: F401
    import weasyprint

    import day60.cli  # noqa: F401  (every command module, through the app)

    weasyprint.HTML(string="<p>warm</p>").write_pdf()


def _child(conn: socket.socket, listener: socket.socket, fds: list[int], request: dict) -> int:
    """In the forked child: become the command, run it, report its exit code and return it (the
    caller then exits as a command's process exits, running what is registered to run at exit)."""
    code = 70  # EX_SOFTWARE, if anything below fails before the command has run
    try:
        listener.close()
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
            os.close(fd)
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")  # as day60.cli set it on import
        sys.argv = ["day60", *request["args"]]
        from day60.cli import main

        try:
            main()
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
            if not isinstance(exc.code, int | type(None)):
                print(exc.code, file=sys.stderr)
    except BaseException as exc:  # the report must reach the client whatever happened
        import traceback

        traceback.print_exception(exc, file=sys.stderr)
    finally:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        with contextlib.suppress(OSError):
            conn.sendall(struct.pack("!i", code))
    return code


def serve(path: str) -> None:
    """Listen on the Unix socket ``path`` until killed; fork a child per command."""
    _preload()
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # children are reaped by the kernel
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(16)
    print("ready", flush=True)
    while True:
        conn, _ = listener.accept()
        try:
            message, fds, _flags, _addr = socket.recv_fds(conn, MAX_MESSAGE, 3)
            while more := conn.recv(MAX_MESSAGE):  # the client shuts its side once all is sent
                message += more
            request = json.loads(message)
        except (OSError, ValueError):
            conn.close()
            continue
        if os.fork() == 0:
            sys.exit(_child(conn, listener, fds, request) & 0xFF)
        for fd in fds:
            os.close(fd)
        conn.close()


def client_script(python: str, real: str) -> str:
    """The text of the `day60` the examples call: it hands its command to the server, or runs
    the real console script ``real`` where no server is named."""
    return f"""#!{python} -S
import json, os, socket, struct, sys
path = os.environ.get({SOCKET_VARIABLE!r})
if not path:
    os.execv({python!r}, [{python!r}, {real!r}, *sys.argv[1:]])
conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
conn.connect(path)
request = {{"args": sys.argv[1:], "cwd": os.getcwd(), "env": dict(os.environ)}}
socket.send_fds(conn, [json.dumps(request).encode()], [0, 1, 2])
conn.shutdown(socket.SHUT_WR)
answer = b""
while len(answer) < 4:
    more = conn.recv(4 - len(answer))
    if not more:
        sys.stderr.write("day60 (test command server): the command ended without an exit code\\n")
        sys.exit(70)
    answer += more
sys.exit(struct.unpack("!i", answer)[0] & 0xFF)
"""


if __name__ == "__main__":
    serve(sys.argv[1])

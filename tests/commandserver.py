"""A command server for the docs examples: `day60` started once, each command a fork of it.

The docs examples run about 160 `day60` commands, each in a fresh process that imports typer,
pydantic, Jinja2 and, for every PDF, WeasyPrint before doing any work; that start-up was most of
their time. Here the venv's own Python imports the installed wheel's CLI and the renderer once,
then forks a child per command. The child takes the command's own argv, working folder,
environment and standard input, output and error (passed over a Unix socket as file
descriptors), runs the same entry point the console script runs (``day60.cli:main``) and reports
its exit code. What a command reads and writes, and where, is exactly what a fresh process
would read and write; only the imports are shared. It leaves as a process does (the threads it
left waited for, what is registered at exit run, its streams flushed) but without taking the
interpreter apart, which on a loaded machine cost more than most commands.

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


# What commands import only once they run (typer's parameter adapters on the first parse, the
# holidays package's country tables, pandas, DuckDB, python-docx, pyHanko's signing and validation,
# rich's tables): each a second or more of a forked command's time on a loaded machine if left out.
LAZY_IMPORTS = ("typer._adapters", "pandas", "holidays.countries", "duckdb", "docx", "docxtpl", "rich.table",
                "pyhanko.sign", "pyhanko.sign.validation", "pyhanko.sign.timestamps", "pyhanko.pdf_utils.filters",
                "pypdf.filters")


def _preload() -> None:
    """Import what the commands import, every module of the installed day60 and LAZY_IMPORTS, and
    draw one PDF so fonts are found once. Only imports are shared: no command runs here."""
    import importlib
    import pkgutil

    import jinja2  # noqa: F401
    import pypdf  # noqa: F401
    import weasyprint

    import day60
    import day60.cli  # every command module, through the app

    for module in pkgutil.walk_packages(day60.__path__, "day60."):
        if module.name != "day60.__main__":  # that one runs the CLI
            importlib.import_module(module.name)
    for name in LAZY_IMPORTS:
        importlib.import_module(name)
    weasyprint.HTML(string="<p>warm</p>").write_pdf()


def _child(conn: socket.socket, listener: socket.socket, fds: list[int], request: dict) -> int:
    """In the forked child: become the command, run it, do what a process does as it exits
    (``_exit_work``), report its exit code and return it; the caller then leaves by ``os._exit``."""
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
        _exit_work()  # done before the report, so the next command starts after this one has ended
        with contextlib.suppress(OSError):
            conn.sendall(struct.pack("!i", code))
    return code


def _exit_work() -> None:
    """What the interpreter does at exit before it takes itself apart, in its order: wait for the
    threads the command left running, run what is registered to run at exit (``atexit``, and
    through it ``weakref.finalize`` and temporary folders), flush the standard streams.

    The taking apart is left out (the child leaves by ``os._exit``): freeing every module and
    object the server imported writes to each page of memory the fork shared, which took a second
    to six of every command on a loaded two-core machine, and a command's own files are closed by
    then (one it left open unflushed would lose its end here, which a test would see)."""
    import atexit
    import threading

    with contextlib.suppress(Exception):
        threading._shutdown()  # type: ignore[attr-defined]  (what Py_Finalize calls first)
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()


def serve(path: str) -> None:
    """Listen on the Unix socket ``path`` until killed; fork a child per command."""
    import gc

    _preload()
    gc.freeze()  # what was imported stays out of every child's collections, so they do not write to its pages
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
            os._exit(_child(conn, listener, fds, request) & 0xFF)
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

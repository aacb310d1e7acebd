"""The CLI's shared parts: one error path, the apps, output helpers. No logic lives here.

Heavy libraries (pandas, WeasyPrint, holidays) are imported inside the commands that use
them, so ``day60 --help`` and ``day60 log`` start quickly.
"""

from __future__ import annotations

import contextlib
import functools
import json
import shlex
import sys
from typing import Any

import typer
from typer.core import TyperGroup

from day60.errors import Day60Error

COMMAND_LINE = "day60"  # the command line being run, as every output records it


READER_GONE = 141  # 128 + SIGPIPE, as a shell reports a command whose output pipe was closed


class _ReaderGone(Exception):
    """stdout's reader closed the pipe while a command was still writing to it."""


class _Day60Group(TyperGroup):
    """Turns every failure into one line on stderr and an exit code, in one place.

    The project's own errors carry their exit code (2 bad input, 1 a check failed). A usage
    error (a wrong option type, a missing argument) is bad input too: one line, exit 2, not a
    boxed panel. Anything else is a defect of the toolkit; it still gets one line, never a
    traceback, and exit 2 since no result was produced.
    """

    # A closed output pipe, met while the help is printed (make_context) or while a command runs
    # (invoke): click would exit 1, which here means a check failed.
    def make_context(self, *args: Any, **kwargs: Any) -> Any:
        try:
            return super().make_context(*args, **kwargs)
        except BrokenPipeError as exc:
            raise _ReaderGone from exc

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except BrokenPipeError as exc:
            raise _ReaderGone from exc

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        command = super().get_command(ctx, cmd_name)
        if command is not None:
            _name_metavars(command)
            # its --help is made on demand, with the names the context offers (a sub-context inherits them)
            _plain_coercion([*command.params, *([command.get_help_option(ctx)] if ctx is not None else [])])
        return command

    def get_help_option(self, ctx: Any) -> Any:
        option = super().get_help_option(ctx)
        _plain_coercion([option])
        return option

    def main(self, args: Any = None, prog_name: str | None = None, complete_var: str | None = None,
             standalone_mode: bool = True, **extra: Any) -> Any:
        from typer.exceptions import TyperException

        global COMMAND_LINE
        COMMAND_LINE = shlex.join(["day60", *(sys.argv[1:] if args is None else [str(a) for a in args])])
        _plain_coercion(self.params)  # the group's own options; its --help's and its commands' as they are made
        try:
            with _notes():
                code = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except Day60Error as exc:
            typer.echo(f"error: {_one_line(str(exc))}", err=True)
            code = exc.exit_code
        except TyperException as exc:  # typer's own click: usage errors and bad option values
            if type(exc).__name__ == "NoArgsIsHelpError" and getattr(exc, "ctx", None) is not None:
                typer.echo(exc.ctx.get_help())  # a bare group asks for its help: not an error
                code = 0
            else:
                message = _one_line(exc.format_message()).rstrip(".")
                # the help of the command that was mistyped ('day60 score --help'), not only the list of commands
                ctx = getattr(exc, "ctx", None)
                where = ["day60", *ctx.command_path.split()[1:]] if ctx is not None else ["day60"]
                typer.echo(f"error: {message}; see '{' '.join(where)} --help'", err=True)
                code = exc.exit_code
        except _ReaderGone:
            # The reader of stdout stopped reading (`day60 kinds | head -1`): nothing is wrong with
            # the figures and nobody is left to tell, so no message; the shell's own code for a
            # command stopped by a closed pipe (128 + SIGPIPE), never 1, which says a check failed.
            import os

            with contextlib.suppress(OSError):  # what is still buffered for the closed pipe goes nowhere
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            code = READER_GONE
        except (typer.Abort, KeyboardInterrupt, EOFError):
            typer.echo("stopped: nothing more was written", err=True)
            code = 130
        except Exception as exc:  # a defect: still one line, and no traceback for the user
            typer.echo(f"error: internal fault ({type(exc).__name__}: {_one_line(str(exc))[:200]}); nothing more was "
                       "written; please report it with the command line", err=True)
            code = 2
        code = code if isinstance(code, int) else 0
        if standalone_mode:
            sys.exit(code)
        return code


@contextlib.contextmanager
def _notes() -> Any:
    """The library's notes to the user (day60.errors.Note, e.g. what an append did and did not
    write), each printed as one 'note:' line on stderr; other warnings go where they always went."""
    import warnings

    from day60.errors import Note as IndexNote

    shown = warnings.showwarning

    def show(message: Any, category: Any, *rest: Any, **kwargs: Any) -> None:
        if issubclass(category, IndexNote):
            typer.echo(f"note: {_one_line(str(message))}", err=True)
        else:
            shown(message, category, *rest, **kwargs)

    with warnings.catch_warnings():
        warnings.simplefilter("always", IndexNote)
        warnings.showwarning = show
        yield


# Help shows each value as a word a person understands, not as a Python type.
_METAVARS = {"--at": "TIME", "--set": "KEY=VALUE", "--pause": "START/END", "--format": "table|json",
             "--window-start": "TIME", "--window-end": "TIME", "--tier": "T1..T5", "--expect": "SEQ:HASH",
             "--id": "ID", "--seq": "SEQ", "--require": "WORD"}  # --to is a date in one command, a name in another
_BY_TYPE = {"str": "TEXT", "path": "FILE", "int": "N", "float": "NUMBER"}


def _name_metavars(command: Any) -> None:
    for param in getattr(command, "params", []):
        if param.metavar is not None or getattr(param, "is_flag", False):
            continue
        if param.param_type_name == "argument":
            word = param.name.upper() + ("..." if param.nargs != 1 else "")
            param.metavar = word
            # typer would print "{WORD}" in the usage line and "WORD <str>" in the list
            param._usage_display_name = lambda word=word, required=param.required: word if required else f"[{word}]"
            param.display_type_rich = lambda ctx: None
        else:
            primary = max(param.opts, key=len)
            bare = param.bare_type().removeprefix("list[").removesuffix("]")
            param.metavar = _METAVARS.get(primary) or _BY_TYPE.get(bare, bare.upper())


def _plain_coercion(params: list[Any]) -> None:
    """Convert the plain values of a command's ``params`` (text, a path, a list of either, a flag)
    directly.

    typer (0.2x) checks every value through a pydantic TypeAdapter it builds on a command's first
    parse, one per parameter, and one more per path value: on a short command such as ``log``
    that set-up, and the pydantic modules it loads before any day60 code needs them, cost more
    than the command's own work. For these types the check is a conversion that cannot fail
    (``str``; ``Path(value)``, which is what pydantic does with a text; a flag click has already
    made a bool), so it is done here, with typer's own path checks (``exists``, ``dir_okay``...)
    and messages. Any other type, a custom parser, or a typer without this machinery keeps
    typer's own coercion."""
    from pathlib import Path

    plain = _plain_runtime()
    if plain is None:
        return
    for param in params:
        desc = getattr(param, "type_descriptor", None)
        if desc is None or getattr(param, "_runtime_param", True) is not None or desc.parameter_info.parser:
            continue
        many = desc.is_list
        annotation = desc.annotation.__args__[0] if many and len(getattr(desc.annotation, "__args__", ())) == 1 \
            else desc.annotation
        if annotation in (str, bool) or (annotation is Path and desc.parameter_info.path_type is None):
            param._runtime_param = plain(parameter_info=desc.parameter_info, annotation=desc.annotation,
                                         kind=annotation, many=many)


@functools.cache
def _plain_runtime() -> Any:
    """typer's RuntimeParam for values of type str or Path (or lists of them), or None on a typer
    that has no such class (it then coerces through click's types, with no adapter to save)."""
    try:
        from typer._coercion import RuntimeParam, build_runtime_param, resolve_type_descriptor
        from typer._param_types import coerce_cli_path
    except ImportError:  # pragma: no cover - another typer
        return None
    from dataclasses import dataclass
    from pathlib import Path

    @dataclass(frozen=True)
    class Plain(RuntimeParam):
        kind: type  # str, Path or bool
        many: bool

        def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
            if self.many:
                return [self._one(v, param, ctx) for v in (value if isinstance(value, list | tuple) else [value])]
            return self._one(value, param, ctx)

        def _one(self, value: Any, param: Any, ctx: Any) -> Any:
            if self.kind is bool and isinstance(value, bool):  # a flag: click has made it a bool already
                return value
            if self.kind is not bool and isinstance(value, str | Path):
                if self.kind is str:
                    return str(value)
                return coerce_cli_path(Path(value), self.parameter_info, path_type=Path, param=param, ctx=ctx)
            # bytes, a bool option given as a word, or a value a test passed: typer's own way
            return build_runtime_param(resolve_type_descriptor(self.kind, self.parameter_info)) \
                ._coerce_value(value, param=param, ctx=ctx)

    return Plain


def _one_line(text: str) -> str:
    """A message as one printable line: control characters an input carried are shown escaped."""
    import re

    from day60.display import DIRECTION_CONTROLS

    return re.sub(f"[\\x00-\\x1f\\x7f\\u2028\\u2029{DIRECTION_CONTROLS}]",
                  lambda m: f"\\u{ord(m.group()):04x}" if ord(m.group()) > 0x7f else repr(m.group())[1:-1], text)


def _app(help_text: str) -> typer.Typer:
    return typer.Typer(
        cls=_Day60Group,
        help=help_text,
        no_args_is_help=True,
        pretty_exceptions_enable=False,
        rich_markup_mode=None,  # help is plain text: "[parameters]" must print as written
        add_completion=False,
    )


app = _app("Hold an AI-operations supplier to its contract: Day-60 figures, scores and clauses.")


def _version(value: bool) -> None:
    if value:
        from day60 import __version__
        from day60.source import source

        typer.echo(f"day60 {__version__}, {source()['text']}")
        raise typer.Exit(0)


@app.callback()
def _root(version: bool = typer.Option(False, "--version", is_eager=True, callback=_version,
                                       help="Print the version and the source commit it was built from.")) -> None:
    """Hold an AI-operations supplier to its contract: Day-60 figures, scores and clauses."""
calendar_app = _app("Check a business calendar before relying on it.")
app.add_typer(calendar_app, name="calendar")
voice_app = _app("Score recorded voice-agent episodes against temporal contracts.")
clauses_app = _app("The contract clause library: list, show, and export a deal's schedule.")
app.add_typer(clauses_app, name="clauses")
app.add_typer(voice_app, name="voice")

def app_for(args: list[str]) -> typer.Typer:
    """The app a command line runs: when its first word names one command or group, a copy of
    ``app`` holding that one alone, else ``app`` itself (``--help``, ``--version``, a word that is no
    command: typer then lists or suggests from all of them).

    typer builds the parser of every command it holds before it reads the first word (75 of them,
    each from its function's signature); a run uses one. The copy's command is built from the same
    function, so its options, help, usage and errors are those of the whole app."""
    import copy

    from typer.main import get_command_name

    word = args[0] if args else ""
    commands = [c for c in app.registered_commands
                if c.callback is not None and (c.name or get_command_name(c.callback.__name__)) == word]
    groups = [g for g in app.registered_groups if g.name == word]
    if word.startswith("-") or not (commands or groups):
        return app
    lean = copy.copy(app)
    lean.registered_commands, lean.registered_groups = commands, groups
    return lean


FORMAT_HELP = "table for people (rounded), json for machines (unrounded)."


def _check_format(fmt: str, allowed: tuple[str, ...] = ("table", "json")) -> str:
    if fmt not in allowed:
        from day60.errors import InputError

        raise InputError("--format", f"{fmt!r} is not offered", f"use one of {', '.join(allowed)}")
    return fmt


def _check_compat(compat: str) -> None:
    from day60.errors import InputError
    from day60.voice import COMPAT

    if compat not in COMPAT:
        raise InputError("--compat", f"{compat!r} is not offered", f"use one of {', '.join(COMPAT)}")


def print_json(data: Any) -> None:
    """Valid JSON only: a missing figure is null, never NaN or Infinity. A ``jsonrows.Rows`` inside
    ``data`` is written where it stands as its list of rows, a slice at a time and one row a line,
    so a document with a million rows is never held whole; an import's ``spool.Spool`` likewise,
    laid out as ``json.dumps`` lays out a list."""
    import secrets

    from day60.display import jsonable

    streamed: list[Any] = []
    token = secrets.token_hex(16)  # no text from data can spell it

    def hold(value: Any) -> str:
        # a list written a piece at a time: ``jsonrows.Rows`` (a table's rows), ``imports.spool.Spool``
        if not callable(getattr(value, "chunks", None)):
            raise TypeError(f"{type(value).__name__} is not JSON")
        streamed.append(value)
        return f"{token}:{len(streamed) - 1}"

    text = json.dumps(jsonable(data), indent=2, sort_keys=True, ensure_ascii=False, allow_nan=False, default=hold)
    for n, rows in enumerate(streamed):
        before, text = text.split(f'"{token}:{n}"', 1)
        line = before[before.rfind("\n") + 1:]
        indent = line[:len(line) - len(line.lstrip(" "))]  # the rows one step in from the line naming them
        typer.echo(_escaped(before + "["), nl=False)
        for chunk in rows.chunks(indent + "  "):
            typer.echo(_escaped(chunk), nl=False)
        text = ("\n" + indent if len(rows) else "") + "]" + text
    typer.echo(_escaped(text))


def _escaped(text: str) -> str:
    """The same JSON, with direction controls written as \\uXXXX escapes so a terminal cannot be
    made to draw the text after one backwards (an ASCII text has none: Python knows at once)."""
    import re

    from day60.display import DIRECTION_CONTROLS

    if text.isascii():
        return text
    return re.sub(f"[{DIRECTION_CONTROLS}]", lambda m: f"\\u{ord(m.group()):04x}", text)


def print_table(rows: list[dict[str, Any]], columns: list[str] | None = None) -> None:
    """An aligned table (rich): on a terminal its columns fit the terminal's width, wrapping long
    cells; in a pipe or a file every cell is whole on its line. Wide characters (CJK, emoji) keep
    their columns aligned. Every cell is already a display string."""
    if not rows:
        return
    import shutil

    from rich import box
    from rich.console import Console
    from rich.table import Table

    columns = columns or list(rows[0])
    from day60.display import visible

    terminal = sys.stdout.isatty()
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, header_style="bold" if terminal else "",
                  highlight=False)
    cells = [[visible(str(r.get(c, ""))) for c in columns] for r in rows]
    width = shutil.get_terminal_size().columns if terminal else 100_000
    widths = _column_widths(columns, cells, width) if terminal else [None] * len(columns)
    for c, w in zip(columns, widths or [None] * len(columns), strict=True):
        table.add_column(c, overflow="fold", width=w)
    for row in cells:
        table.add_row(*row)
    console = Console(width=width, force_terminal=terminal, no_color=not terminal, highlight=False,
                      soft_wrap=False, emoji=False, markup=False)
    with console.capture() as captured:
        if terminal and widths == []:
            _print_records(console, columns, rows)
        else:
            console.print(table)
    typer.echo("\n".join(line.rstrip() for line in captured.get().splitlines()))


_GAP = 3  # terminal cells between two columns: padding either side of the (blank) rule


def _column_widths(columns: list[str], cells: list[list[str]], width: int) -> list[int | None]:
    """Each column's width on a terminal ``width`` cells wide: its natural width when the table
    fits; otherwise at least its longest word (so no word is broken: "drift-detect" over "ion"),
    the room left shared in proportion to how much more each column would take. [] when even the
    longest words do not fit side by side: the caller prints one block a row instead."""
    from rich.cells import cell_len

    room = width - _GAP * (len(columns) - 1)
    texts = [[c, *(row[i] for row in cells)] for i, c in enumerate(columns)]
    natural = [max(cell_len(line) for t in col for line in t.splitlines() or [""]) for col in texts]
    least = [max([cell_len(w) for t in col for w in t.split()] or [1]) for col in texts]
    if sum(natural) <= room:
        return [None] * len(columns)
    if sum(least) > room:
        return []
    spare, want = room - sum(least), [n - m for n, m in zip(natural, least, strict=True)]
    extra = [spare * w // sum(want) for w in want]
    for i in sorted(range(len(want)), key=lambda k: -want[k])[:spare - sum(extra)]:
        extra[i] += 1  # the cells the rounding left, to the columns that want most
    return [m + e for m, e in zip(least, extra, strict=True)]


def _print_records(console: Any, columns: list[str], rows: list[dict[str, Any]]) -> None:
    """A table too wide for the terminal even with every cell wrapped at its words (a phone's
    SSH session, a split pane): each row becomes a block of 'column  value' lines, values wrapped
    at words, blocks apart by a blank line. Rich would otherwise squeeze each column to a few
    cells and break every word, headers included, into letters a line."""
    from rich.cells import cell_len
    from rich.padding import Padding
    from rich.table import Table
    from rich.text import Text

    from day60.display import visible

    beside = max(cell_len(c) for c in columns) + 2 <= console.width // 2  # else each name above its value
    for i, r in enumerate(rows):
        if i:
            console.print("")
        if beside:
            grid = Table.grid(padding=(0, 2), expand=True)
            grid.add_column(style="bold", no_wrap=True)
            grid.add_column(overflow="fold", ratio=1)
            for c in columns:
                grid.add_row(c, visible(str(r.get(c, ""))))
            console.print(grid)
            continue
        for c in columns:
            console.print(Text(c, style="bold", overflow="fold"))
            console.print(Padding(Text(visible(str(r.get(c, ""))), overflow="fold"), (0, 0, 0, 2)))


def _interactive() -> bool:
    """True when a person is at a terminal (tests replace this to drive the prompts)."""
    return sys.stdin.isatty() and sys.stdout.isatty()


def _parse_sets(pairs: list[str]) -> dict[str, str]:
    from day60.errors import InputError

    out = {}
    for i, pair in enumerate(pairs):
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise InputError(f"--set[{i}]", f"{pair!r} is not key=value", "write e.g. --set severity=2")
        if key.strip() in out:  # the last would win unseen: a severity given twice decides the target
            raise InputError(f"--set {key.strip()[:40]}", f"is given twice ({out[key.strip()][:40]!r} and "
                             f"{value[:40]!r})", "give each field once")
        out[key.strip()] = value
    return out


def given_options(command: tuple[str, ...], args: list[str]) -> dict[str, bool]:
    """Which long options a day60 command line gives (``("score",)`` and the words after it), as
    the command's own parser reads them; raises on a line that command does not take. For
    verify-report, which holds a report's recorded command line to what its contents call for."""
    import typer.main

    cli: Any = typer.main.get_command(app)
    for name in command:
        cli = cli.commands[name]
    with cli.make_context(" ".join(("day60", *command)), list(args)) as ctx:
        return {opt: ctx.params.get(param.name) not in (None, (), [], False) for param in cli.params
                for opt in getattr(param, "opts", []) if opt.startswith("--")}


def _provenance(inputs: dict[str, Any], **versions: Any) -> dict[str, Any]:
    from day60.evidence.provenance import provenance

    return provenance(inputs, COMMAND_LINE, **versions)


def _footer(trace: dict[str, Any]) -> None:
    from day60.evidence.provenance import footer

    typer.echo(footer(trace))


def _warn_calendar(deal: Any, j: Any) -> None:
    """Say so when the deal's business calendar differs from the journal's
    (``clauses.calendar_differs``)."""
    from day60 import clauses

    if clauses.calendar_differs(deal, j.header):
        typer.echo("note: the deal's business calendar differs from the journal's; the score's figures use the "
                   "journal's, comply judges business hours and report delivery days on the deal's", err=True)


def _warn_partial(j: Any) -> None:
    if j.partial is not None:
        typer.echo(f"note: {j.path} ends with a partial line (an interrupted write), which was left out; "
                   f"run 'day60 verify --repair {j.path}'", err=True)


def _rubric_ids() -> set[str]:
    from day60 import rubric

    return rubric.parameter_ids(rubric.load())


def load_calendar(value: Any, field: str = "--calendar") -> Any:
    """A business calendar from a TOML path or a shipped name (``-c uk-office``)."""
    import os

    from day60.clock import BusinessCalendar
    from day60.errors import InputError
    from day60.resources import calendar_file, shipped_calendars

    if not str(value).strip():  # else read as "." (the current folder) and refused as a folder nobody named
        raise InputError(field, "is empty", f"give a calendar TOML path, or one of {', '.join(shipped_calendars())}")
    path = calendar_file(value)
    if not os.path.lexists(path):
        raise InputError(field, f"{str(value)[:80]!r} is neither a calendar file nor a shipped calendar",
                         f"give a TOML path, or one of {', '.join(shipped_calendars())} ('day60 examples')")
    return BusinessCalendar.load(path)


def write_page(page: str, pdf: Any, html: Any, attachments: Any = None) -> None:
    """A document's HTML to ``html`` and its PDF to ``pdf``, the PDF made in memory before either
    is written (a failed rendering writes nothing)."""
    from day60 import files, render

    body, pages = render.pdf_bytes(page, attachments) if pdf is not None else (b"", 0)
    if html is not None:
        files.write_atomic(html, page, "--html")
        typer.echo(f"wrote {html}", err=True)
    if pdf is not None:
        files.write_atomic(pdf, body, "--pdf")
        typer.echo(f"wrote {pdf} ({pages} pages)", err=True)

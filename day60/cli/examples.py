"""The shipped examples, reachable from a wheel: list them, copy them into a folder."""

from __future__ import annotations

from pathlib import Path

import typer

from day60.cli.base import FORMAT_HELP, _check_format, app, print_json, print_table


@app.command("examples")
def examples(
    name: str = typer.Argument(None, help="An example's name (see the list); with --copy, the one to copy."),
    copy: Path = typer.Option(None, "--copy", metavar="DIR", help="Copy the example's files into this folder."),
    fmt: str = typer.Option("table", "--format", help=FORMAT_HELP),
) -> None:
    """The shipped examples (calendars, the synthetic deal, answers, drill observations, import samples).

    Calendars are also taken by name wherever a command asks for one (-c uk-office).

    Example: day60 examples synthetic-deal --copy .
    """
    from day60 import files, resources
    from day60.errors import InputError

    _check_format(fmt)
    shipped = resources.examples()
    if name is not None and name not in shipped:
        import difflib

        close = difflib.get_close_matches(name, list(shipped), n=1)
        raise InputError("NAME", f"{name[:60]!r} is not a shipped example",
                         (f"did you mean {close[0]!r}? " if close else "") + f"use one of {', '.join(shipped)}")
    if copy is not None:
        if name is None:
            raise InputError("NAME", "is needed with --copy", "name the example to copy (see 'day60 examples')")
        if not copy.is_dir():
            raise InputError("--copy", f"{copy} is not an existing folder", "create the folder first, or name one")
        targets, same = {}, []
        for src in shipped[name]["files"]:
            field, target = f"--copy ({src.name})", copy / src.name
            if target.is_file() and not target.is_symlink() and target.read_bytes() == src.read_bytes():
                same.append(target)  # already there, byte for byte (each import example ships one same README.md)
            elif target.exists() or target.is_symlink():
                raise InputError(field, f"{target} already exists: an example never replaces a file",
                                 "copy into an empty folder")
            else:
                targets[field] = target
        files.check_outputs(targets, [])
        for src in shipped[name]["files"]:
            if copy / src.name in same:
                typer.echo(f"kept {copy / src.name} (already there, the same bytes)", err=True)
                continue
            files.write_atomic(copy / src.name, src.read_bytes(), f"--copy ({src.name})")
            typer.echo(f"wrote {copy / src.name}", err=True)
        return
    chosen = {name: shipped[name]} if name else shipped
    listed = [{"name": n, "kind": e["kind"], "what": e["what"], "files": [p.name for p in e["files"]]}
              for n, e in chosen.items()]
    if fmt == "json":
        print_json(listed if name is None else {**listed[0], "paths": [str(p) for p in shipped[name]["files"]]})
        return
    print_table([{"name": x["name"], "kind": x["kind"], "what": x["what"]} for x in listed])
    if name:
        for path in shipped[name]["files"]:
            typer.echo(str(path))
    else:
        typer.echo("\ncopy one with: day60 examples NAME --copy DIR")

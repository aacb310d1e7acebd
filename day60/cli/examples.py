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
    if name is not None:
        resources.shipped_example(name)
    if copy is not None:
        if name is None:
            raise InputError("NAME", "is needed with --copy", "name the example to copy (see 'day60 examples')")
        for src, target, same in files.copy_plan(shipped[name]["files"], copy):
            if same:
                typer.echo(f"kept {target} (already there, the same bytes)", err=True)
                continue
            files.write_atomic(target, src.read_bytes(), f"--copy ({src.name})")
            typer.echo(f"wrote {target}", err=True)
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

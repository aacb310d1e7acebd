"""The package's shape, read from its source: no import cycles inside ``day60/``, and nothing
outside the journal package reaching into its private names.

The graph is built from the AST of every module, so it sees what the code says it needs, whether
or not a run happens to import it. Every import counts, at module level or inside a function:
an import written inside a function to defer its cost (pandas, DuckDB) is still a dependency,
and a cycle through one is still a cycle a reader must hold in their head, and one that breaks
the day the import moves to the top. Imports under ``if TYPE_CHECKING:`` count too, for the
same reason. What does not count is the implicit import of a parent package that Python makes
before a submodule (``day60.journal.store`` runs ``day60/journal/__init__.py`` first): every
package would otherwise be a cycle with its own ``__init__``.
"""

from __future__ import annotations

import ast
import itertools
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1] / "day60"


def modules(root: Path = ROOT) -> dict[str, Path]:
    """Every module of the package by dotted name (a package by its own name)."""
    out = {}
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root.parent).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def _known(name: str, mods: dict[str, Path]) -> str | None:
    """The module of the package that ``name`` names, or that holds it (``a.b.c`` -> ``a.b``)."""
    while name and name not in mods:
        name = name.rpartition(".")[0]
    return name or None


def imports_of(name: str, path: Path, mods: dict[str, Path]) -> dict[str, int]:
    """The package's modules that module ``name`` imports, each with the first line that does."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: dict[str, int] = {}
    for node in ast.walk(tree):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parts = parts[:len(parts) - (node.level - 1)]
                base = ".".join(parts + ([base] if base else []))
            # ``from a import b``: the submodule a.b if there is one, else the module a itself
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in mods else base for a in node.names]
        for target in targets:
            known = _known(target, mods)
            if known is not None and known != name:
                found.setdefault(known, node.lineno)
    return found


def graph(root: Path = ROOT) -> dict[str, dict[str, int]]:
    mods = modules(root)
    return {name: imports_of(name, path, mods) for name, path in mods.items()}


def circles(edges: dict[str, dict[str, int]]) -> list[list[str]]:
    """Each strongly connected group of two or more modules (Tarjan), sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    groups: list[set[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = set()
            while True:
                w = stack.pop()
                on.discard(w)
                group.add(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(group)

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return [sorted(g) for g in groups]


def cycles(edges: dict[str, dict[str, int]]) -> list[list[str]]:
    """One shortest cycle through each group of ``circles``."""
    return [_one_cycle(g, edges) for g in circles(edges)]


def _one_cycle(group: list[str], edges: dict[str, dict[str, int]]) -> list[str]:
    """A shortest path from the group's first module back to itself, inside the group."""
    start, members = group[0], set(group)
    paths = {start: [start]}
    queue = [start]
    while queue:
        v = queue.pop(0)
        for w in sorted(edges[v]):
            if w == start:
                return paths[v] + [start]
            if w in members and w not in paths:
                paths[w] = paths[v] + [w]
                queue.append(w)
    return group  # unreachable for a strongly connected group


def _shown(cycle: list[str], edges: dict[str, dict[str, int]]) -> str:
    return " -> ".join(f"{a} (line {edges[a][b]})" for a, b in itertools.pairwise(cycle)) \
        + f" -> {cycle[-1]}"


def test_the_cycle_finder_finds_a_cycle(tmp_path: Path) -> None:
    """The finder itself, on a made-up package: a imports b at module level, b imports c inside a
    function, c imports a; d imports a and is outside the cycle. One cycle a -> b -> c -> a."""
    pkg = tmp_path / "day60"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from day60 import b\n")
    (pkg / "b.py").write_text("def f():\n    from day60.c import thing\n")
    (pkg / "c.py").write_text("from . import a\n")
    (pkg / "d.py").write_text("import day60.a\n")
    edges = graph(pkg)
    assert edges["day60.b"] == {"day60.c": 2}
    assert cycles(edges) == [["day60.a", "day60.b", "day60.c", "day60.a"]]
    assert _shown(cycles(edges)[0], edges) == \
        "day60.a (line 1) -> day60.b (line 2) -> day60.c (line 1) -> day60.a"


def test_no_import_cycles_in_the_package() -> None:
    """No exceptions: the last circle (``evidence.documents`` and ``evidence.supersede``, each
    calling the other) was broken by having ``supersede`` score with ``assess.score_journal`` and
    take the report's file names from ``evidence.names``."""
    edges = graph()
    found = circles(edges)
    assert not found, "import cycles: " + "; ".join(
        f"{_shown(_one_cycle(g, edges), edges)} (the circle holds {', '.join(g)})" for g in found)


def test_a_cycle_is_named_by_its_path(tmp_path: Path) -> None:
    """A longer circle, reached through a relative import inside a method and a package's
    ``__init__``, is found and its path printed in the assertion's words."""
    pkg = tmp_path / "day60"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("from day60.sub.inner import x\n")
    (pkg / "sub" / "inner.py").write_text("class C:\n    def m(self):\n        from .. import top\n")
    (pkg / "top.py").write_text("import os\nfrom day60 import leaf\n")
    (pkg / "leaf.py").write_text("if True:\n    import day60.sub\n")
    edges = graph(pkg)
    assert circles(edges) == [["day60.leaf", "day60.sub", "day60.sub.inner", "day60.top"]]
    assert _shown(_one_cycle(circles(edges)[0], edges), edges) == (
        "day60.leaf (line 2) -> day60.sub (line 1) -> day60.sub.inner (line 3) -> day60.top (line 2) -> day60.leaf")


def _journal_aliases(tree: ast.AST, root: Path) -> set[str]:
    """Names a module binds to the journal package or one of its modules."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.asname for a in node.names if a.asname and a.name.startswith("day60.journal")}
        elif isinstance(node, ast.ImportFrom):
            if node.module == "day60":
                names |= {a.asname or a.name for a in node.names if a.name == "journal"}
            elif node.module and node.module.startswith("day60.journal"):
                names |= {a.asname or a.name for a in node.names if not a.name.startswith("_")
                          and a.name[:1].islower() and (root / "journal" / f"{a.name}.py").exists()}
    return names


def private_reaches(root: Path = ROOT, also: tuple[Path, ...] = ()) -> list[str]:
    """Every place outside ``day60/journal/`` that imports or uses one of its private names."""
    found = []
    inside = root / "journal"
    files = [p for p in root.rglob("*.py") if inside not in p.parents]
    for extra in also:
        files += sorted(extra.rglob("*.py"))
    for path in files:
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        aliases = _journal_aliases(tree, root)
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("day60.journal"):
                found += [f"{path.name}:{node.lineno} imports {node.module}.{a.name}" for a in node.names
                          if a.name.startswith("_")]
            elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                    and node.value.id in aliases and node.attr.startswith("_") and not node.attr.startswith("__"):
                found.append(f"{path.name}:{node.lineno} uses {node.value.id}.{node.attr}")
    return found


def test_nothing_outside_the_journal_reaches_into_its_private_names() -> None:
    """The journal package's ``__init__`` is its public face: the library and the benchmarks use
    only what it (or one of its modules) offers without a leading underscore. (The tests may
    replace a private function to simulate a crash; the library may not call one.)"""
    benchmarks = ROOT.parent / "benchmarks"
    assert private_reaches(also=(benchmarks,)) == []


def test_the_private_name_check_sees_both_forms(tmp_path: Path) -> None:
    pkg = tmp_path / "day60"
    (pkg / "journal").mkdir(parents=True)
    (pkg / "journal" / "__init__.py").write_text("")
    (pkg / "journal" / "store.py").write_text("")
    (pkg / "user.py").write_text("from day60 import journal as jr\nfrom day60.journal.store import _locked\n"
                                 "from day60.journal import store\njr._State()\nstore._write_line()\njr.read()\n")
    assert private_reaches(pkg) == ["user.py:2 imports day60.journal.store._locked", "user.py:4 uses jr._State",
                                    "user.py:5 uses store._write_line"]


# ----- the architecture page names every module --------------------------------------------------------

PAGE = ROOT.parent / "docs" / "architecture.md"


def named_on_page(text: str) -> dict[str, str]:
    """The modules the page's module tables name, by dotted name, each with the table it is in.

    The table under "What each module owns" names modules of ``day60`` (``clock``; a package with
    a slash, ``journal/``; the package's own ``__init__``); a table under a heading "Inside
    `day60/X/`" names modules of ``day60.X``. A row's first cell may name several, in backticks."""
    found: dict[str, str] = {}
    package = None
    for line in text.splitlines():
        if line.startswith("#"):
            inside = re.search(r"Inside `day60/([\w/]+)/`", line)
            package = ("day60." + inside.group(1).replace("/", ".")) if inside else \
                ("day60" if "What each module owns" in line else None)
            continue
        if package is None or not line.startswith("| `"):
            continue
        for name in re.findall(r"`([^`]+)`", line.split("|")[1]):
            dotted = package if name == "__init__" else f"{package}.{name.rstrip('/').replace('/', '.')}"
            found[dotted] = package
    return found


def test_the_architecture_page_names_every_module() -> None:
    named = named_on_page(PAGE.read_text(encoding="utf-8"))
    missing = sorted(set(modules()) - set(named))
    assert not missing, f"docs/architecture.md names no row for {', '.join(missing)}: add one line each on what it " \
                        "holds (in the table of its package)"


def test_every_module_the_architecture_page_names_exists() -> None:
    named = named_on_page(PAGE.read_text(encoding="utf-8"))
    ghosts = sorted(f"{name} (in the table of {package})" for name, package in named.items() if name not in modules())
    assert not ghosts, f"docs/architecture.md names modules that do not exist: {', '.join(ghosts)}"


def test_the_page_reader_reads_both_kinds_of_table() -> None:
    text = ("## What each module owns\n\n| module | owns |\n| --- | --- |\n| `__init__`, `__main__` | x |\n"
            "| `journal/` | y |\n| `checklist`, `live`, `web/` | z |\n\n### Inside `day60/journal/`\n\n"
            "| module | owns |\n| --- | --- |\n| `line` | the `canonical` form |\n\n## Where to add things\n\n"
            "| `not_a_module` | outside the tables |\n")
    assert named_on_page(text) == {"day60": "day60", "day60.__main__": "day60", "day60.journal": "day60",
                                   "day60.checklist": "day60", "day60.live": "day60", "day60.web": "day60",
                                   "day60.journal.line": "day60.journal"}

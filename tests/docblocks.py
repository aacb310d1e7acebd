"""The fenced code blocks of the project's Markdown (README.md and docs/), read the way a
CommonMark renderer reads them, so the test that runs the examples runs exactly what a reader sees.

A block's language is the first word of its info string. ``sh`` and ``python`` blocks are
examples and are run; every other block must say what it is (``text`` for a synopsis with
placeholders, a command that needs a terminal, a server or the network; ``toml``, ``json``,
``sql``, ``yaml`` for data)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

RUN = ("sh", "python")
SHOWN = ("text", "toml", "json", "sql", "yaml")

_OPEN = re.compile(r"^(?P<indent> *)(?P<fence>`{3,}|~{3,})(?P<info>.*)$")


@dataclass(frozen=True)
class Block:
    path: Path
    line: int  # 1-based line of the opening fence
    lang: str
    code: str

    @property
    def where(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def markdown_files() -> list[Path]:
    """README.md and every page under docs/, in a stable order."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def blocks(path: Path) -> list[Block]:
    """Every fenced block of one file, in order. A fence closes on a line of the same character,
    at least as long, with nothing after it; the opening fence's indent is taken off each line
    (a block inside a list item); an unclosed fence runs to the end of the file, as CommonMark says."""
    lines = path.read_text(encoding="utf-8").splitlines()
    found: list[Block] = []
    i = 0
    while i < len(lines):
        m = _OPEN.match(lines[i])
        if not m or (m["fence"][0] == "`" and "`" in m["info"]):
            i += 1
            continue
        indent, fence, start = len(m["indent"]), m["fence"], i
        lang = (m["info"].split() or [""])[0]
        body: list[str] = []
        i += 1
        while i < len(lines):
            close = re.match(rf"^ *{re.escape(fence[0])}{{{len(fence)},}} *$", lines[i])
            if close:
                break
            line = lines[i]
            body.append(line[min(indent, len(line) - len(line.lstrip(" "))):])
            i += 1
        found.append(Block(path, start + 1, lang, "\n".join(body) + "\n"))
        i += 1
    return found

"""Reading an edited Word schedule back: what ``day60 clauses diff`` compares with a deal file.

The Word export (``day60.wordfile``) puts every value the deal gives in a custom document property
and shows it through DOCPROPERTY fields, puts a bookmark on each clause title and paragraph, and
records the deal file's SHA-256 it was exported from. A lawyer edits the copy: changes a value in
File > Properties (and updates the fields), overtypes a value in the text, rewords a paragraph,
adds or deletes one. This module reads the copy's properties, fields and bookmarked paragraphs and
says, against the schedule the deal file fills today, what differs and how to bring each changed
value back into the deal file.

Only the copy's XML is read, with a parser that resolves no entities and fetches nothing, and no
part larger than ``LIMIT`` bytes is opened: a Word file is untrusted input.
"""

from __future__ import annotations

import difflib
import json
import re
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from day60 import clauses
from day60.errors import InputError
from day60.wordfile import EXPORT

W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
LIMIT = 32 * 1024 * 1024  # the most any one part may hold once unpacked
_DOCPROPERTY = re.compile(r'^\s*DOCPROPERTY\s+(?:"([^"]+)"|(\S+))', re.I)
_REF = re.compile(r"^\s*REF\s+(\S+)", re.I)


@dataclass
class Paragraph:
    """One paragraph of the copy: its style, the bookmarks that start in it, its text as shown, and
    its text with each field's result replaced by a placeholder (so a value's edit is not also a
    wording edit), and the fields it holds as (kind, target, shown)."""

    style: str
    bookmarks: list[str]
    text: str
    skeleton: str
    fields: list[tuple[str, str, str]] = field(default_factory=list)
    in_table: bool = False


@dataclass
class Copy:
    properties: dict[str, str]
    paragraphs: list[Paragraph]


def _parse(blob: bytes) -> Any:
    from lxml import etree

    parser = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False, load_dtd=False)
    return etree.fromstring(blob, parser)


def read(path: Path) -> Copy:
    """The copy's custom properties and paragraphs (body and table cells, in document order)."""
    if not path.is_file():
        raise InputError("DOCX", f"{path} is not a file", "give the path of the edited .docx")
    try:
        with zipfile.ZipFile(path) as z:
            parts = {}
            for name in ("word/document.xml", "docProps/custom.xml", "word/styles.xml"):
                try:
                    info = z.getinfo(name)
                except KeyError:
                    continue
                if info.file_size > LIMIT:
                    raise InputError("DOCX", f"{path.name}: its part {name} unpacks to {info.file_size} bytes",
                                     "give a Word schedule exported by day60")
                parts[name] = z.read(name)
    except (zipfile.BadZipFile, OSError) as exc:
        raise InputError("DOCX", f"{path.name} is not a Word file ({type(exc).__name__})",
                         "give the .docx a lawyer edited") from None
    if "word/document.xml" not in parts:
        raise InputError("DOCX", f"{path.name} holds no Word document", "give the .docx a lawyer edited")
    try:
        properties = _properties(parts.get("docProps/custom.xml"))
        styles = _style_names(parts.get("word/styles.xml"))
        paragraphs = [_paragraph(p, styles) for p in _parse(parts["word/document.xml"]).iter(f"{W}p")]
    except Exception as exc:  # lxml's errors, and any shape the copy's XML should not have
        if isinstance(exc, InputError):
            raise
        raise InputError("DOCX", f"{path.name}: its XML cannot be read ({type(exc).__name__})",
                         "give the .docx a lawyer edited") from None
    if EXPORT["sha256"] not in properties:
        raise InputError("DOCX", f"{path.name} carries no day60 export properties, so it is not a schedule "
                                 "'day60 clauses export --docx' wrote (or they were deleted)",
                         "compare a copy of an exported schedule")
    return Copy(properties, paragraphs)


def _properties(blob: bytes | None) -> dict[str, str]:
    if blob is None:
        return {}
    out = {}
    for prop in _parse(blob):
        name = prop.get("name")
        if name is not None:
            out[name] = "".join(prop.itertext())
    return out


def _style_names(blob: bytes | None) -> dict[str, str]:
    if blob is None:
        return {}
    out = {}
    for style in _parse(blob).iter(f"{W}style"):
        name = style.find(f"{W}name")
        out[style.get(f"{W}styleId", "")] = name.get(f"{W}val", "") if name is not None else ""
    return out


def _field(instruction: str) -> tuple[str, str] | None:
    found = _DOCPROPERTY.match(instruction)
    if found:
        return "value", found.group(1) or found.group(2)
    found = _REF.match(instruction)
    if found:
        return "ref", found.group(1)
    return None


def _paragraph(p: Any, styles: dict[str, str]) -> Paragraph:
    """Walk a paragraph's runs in order: simple fields (w:fldSimple) and complex ones (begin,
    instruction, separate, result, end) both count, whichever Word saved."""
    style = p.find(f"{W}pPr/{W}pStyle")
    text: list[str] = []
    skeleton: list[str] = []
    fields: list[tuple[str, str, str]] = []
    state = {"instr": None, "result": None}  # a complex field being read

    def close() -> None:
        found = _field("".join(state["instr"] or []))
        shown = "".join(state["result"] or [])
        text.append(shown)
        if found:
            fields.append((found[0], found[1], shown))
            skeleton.append(f"<{found[0]}>")
        else:
            skeleton.append(shown)
        state["instr"] = state["result"] = None

    for el in p.iter():
        if el.tag == f"{W}fldSimple":
            found = _field(el.get(f"{W}instr", ""))
            shown = "".join(t.text or "" for t in el.iter(f"{W}t"))
            text.append(shown)
            if found:
                fields.append((found[0], found[1], shown))
                skeleton.append(f"<{found[0]}>")
            else:
                skeleton.append(shown)
        elif el.tag == f"{W}fldChar":
            kind = el.get(f"{W}fldCharType")
            if kind == "begin":
                state["instr"], state["result"] = [], None
            elif kind == "separate" and state["instr"] is not None:
                state["result"] = []
            elif kind == "end" and state["instr"] is not None:
                close()
        elif el.tag == f"{W}instrText" and state["instr"] is not None and state["result"] is None:
            state["instr"].append(el.text or "")
        elif el.tag in (f"{W}t", f"{W}tab"):
            if any(a.tag == f"{W}fldSimple" for a in el.iterancestors()):
                continue
            piece = "\t" if el.tag == f"{W}tab" else (el.text or "")
            if state["result"] is not None:
                state["result"].append(piece)
            elif state["instr"] is None:
                text.append(piece)
                skeleton.append(piece)
    marks = [b.get(f"{W}name", "") for b in p.iter(f"{W}bookmarkStart")]
    return Paragraph(styles.get(style.get(f"{W}val", ""), "") if style is not None else "", marks,
                     " ".join("".join(text).split()), " ".join("".join(skeleton).split()), fields,
                     any(a.tag == f"{W}tbl" for a in p.iterancestors()))


# ----- the comparison ------------------------------------------------------------------------------


def _toml_value(value: Any) -> str:
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return repr(value)


def _bring_back(lib: clauses.Library, name: str, shown: str, figure_units: dict[str, Any]) -> str:
    """How to put an edited value into the deal file, as a TOML line (or why it cannot be read)."""
    check, _, key = name.partition(".")
    if key:  # a Service Level Table value: check.critical, check.minimum_volume, check.credit_weight
        found = lib.check(check)
        if found is None:
            return "not a value of this library"
        spec = {"critical": figure_units[check], "minimum_volume": clauses.Parameter(
            id=key, type="number", min=1, description="Minimum Volume"), "credit_weight": clauses.Parameter(
            id=key, type="percent", min=0, max=100, description="Credit Weight")}[key]
        value = clauses.read_value(spec, shown)
        if value is None:
            return f"cannot read {shown[:60]!r} as {spec.unit}"
        return f"[service_levels] {check} = {{ ..., {key} = {_toml_value(value)} }}"
    spec = lib.parameter(name)
    if spec is None:
        return "not a parameter of this library"
    value = clauses.read_value(spec, shown)
    if value is None:
        return f"cannot read {shown[:60]!r} as {spec.unit}"
    problem = clauses._check_value(spec, value.isoformat() if hasattr(value, "isoformat") else value)
    return f"[parameters] {name} = {_toml_value(value)}" + (f" (but it {problem})" if problem else "")


def _words(a: str, b: str) -> str:
    """What changed between two wordings, as '- removed + added' runs of words."""
    old, new = a.split(), b.split()
    out = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes():
        if op in ("delete", "replace"):
            out.append("- " + " ".join(old[i1:i2]))
        if op in ("insert", "replace"):
            out.append("+ " + " ".join(new[j1:j2]))
    text = "; ".join(out)
    return text if len(text) <= 300 else text[:299] + "\u2026"


def compare(lib: clauses.Library, deal: clauses.Deal, schedule: dict[str, Any], copy: Copy) -> dict[str, Any]:
    """Every difference between the copy and the schedule ``deal`` fills: values changed in the
    properties, values shown in the text other than their property says (overtyped, or fields not
    updated), wording changed, paragraphs gone or added. Each difference says where it is and, for
    a value, the deal-file line that would carry it back."""
    diffs: list[dict[str, Any]] = []
    units = {r["check"]: lib.parameter(lib.check(r["check"])[1].parameter)  # type: ignore[index]
             for r in schedule["service_levels"]}
    where_shown: dict[str, list[str]] = {}
    numbers = {clauses.bookmark_name(q["id"]): q["number"] or str(c["number"])
               for c in (*schedule["clauses"], *schedule["modules"]) for q in c["paragraphs"]}
    titles = {clauses.bookmark_name(c["id"]): str(c["number"]) for c in (*schedule["clauses"], *schedule["modules"])}
    numbers.update(titles)
    current, section, clause = "the title block", "title block", None
    for para in copy.paragraphs:
        if para.style.casefold() == "heading 1":
            current, section, clause = f"the {para.text} section", para.text, None
        for mark in para.bookmarks:
            if mark in numbers:
                current = f"clause {numbers[mark]}"
            if mark in titles:
                clause = titles[mark]
        here = (f"the table in clause {clause}" if clause else f"the {section} table") if para.in_table else current
        for kind, target, shown in para.fields:
            if kind == "value":
                where_shown.setdefault(target, []).append(here)
                if target in schedule["linked"] and shown != copy.properties.get(target, shown):
                    diffs.append({"kind": "shown differently", "name": target, "where": here,
                                  "expected": copy.properties.get(target), "found": shown,
                                  "bring_back": "the text shows something other than its property: update the "
                                                "fields (F9), or change the property, then compare again"})
    for name, expected in schedule["linked"].items():
        got = copy.properties.get(name)
        if got is None:
            diffs.append({"kind": "property removed", "name": name, "where": "document properties",
                          "expected": expected, "found": None, "bring_back": "restore the property (or re-export)"})
        elif got != expected:
            diffs.append({"kind": "value changed", "name": name, "where": "; ".join(dict.fromkeys(
                where_shown.get(name, []))) or "document properties", "expected": expected, "found": got,
                          "bring_back": _bring_back(lib, name, got, units)})
    order = ("value changed", "property removed", "shown differently")
    diffs.sort(key=lambda d: order.index(d["kind"]))  # what to bring back first, then what the text shows
    diffs += _wording(schedule, copy)
    exported = copy.properties.get(EXPORT["sha256"])
    notes = []
    if exported != deal.sha256:
        notes.append(f"the copy was exported from a deal file with SHA-256 {exported}, not this one "
                     f"({deal.sha256}): the comparison is with this deal file as it is now")
    if copy.properties.get(EXPORT["library"]) != f"{lib.id} {lib.version}":
        notes.append(f"the copy was exported with clause library {copy.properties.get(EXPORT['library'])}; this "
                     f"toolkit has {lib.id} {lib.version}, so wording differences may be the library's")
    return {"differences": diffs, "notes": notes, "exported_from": exported, "deal": deal.sha256}


def _wording(schedule: dict[str, Any], copy: Copy) -> list[dict[str, Any]]:
    """Clause titles and paragraphs, matched by their bookmarks: changed wording (values and
    cross-references set aside), paragraphs gone, paragraphs added among the clauses."""
    expected: dict[str, tuple[str, str]] = {}
    for c in (*schedule["clauses"], *schedule["modules"]):
        expected[clauses.bookmark_name(c["id"])] = (f"clause {c['number']} title", c["title"])
        for q in c["paragraphs"]:
            expected[clauses.bookmark_name(q["id"])] = (f"clause {q['number'] or c['number']}", _skeleton(q["marked"]))
    found: dict[str, Paragraph] = {}
    out = []
    last = None
    for para in copy.paragraphs:
        marks = [m for m in para.bookmarks if m in expected]
        for mark in marks:
            found.setdefault(mark, para)
        if marks:
            last = expected[marks[0]][0]
        elif para.style.startswith(("Clause Paragraph", "Clause Text")) and para.text.strip():
            out.append({"kind": "paragraph added", "name": None, "where": f"after {last or 'the start'}",
                        "expected": None, "found": para.text[:300], "bring_back": "a wording change: agree it by "
                        "Change Note; the deal file holds values, not wording"})
    for mark, (where, text) in expected.items():
        para = found.get(mark)
        if para is None:
            out.append({"kind": "paragraph gone", "name": None, "where": where, "expected": text[:300], "found": None,
                        "bring_back": "deleted, or its bookmark removed: a wording change to agree by Change Note"})
            continue
        got = para.text if where.endswith("title") else para.skeleton
        if " ".join(got.split()) != " ".join(text.split()):
            out.append({"kind": "wording changed", "name": None, "where": where, "expected": text[:300],
                        "found": got[:300], "bring_back": "a wording change (" + _words(text, got) + "): agree it "
                        "by Change Note; the deal file holds values, not wording"})
    return out


def _skeleton(marked: str) -> str:
    """A marked paragraph with each value and cross-reference as the placeholder a copy's field
    reads as (see ``_paragraph``)."""
    return " ".join("".join(f"<{kind}>" if kind else words
                            for kind, _, words in clauses.ref_parts(marked)).split())

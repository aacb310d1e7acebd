"""Reading an edited Word schedule back: what ``day60 clauses diff`` compares with a deal file.

The Word export (``day60.wordfile``) puts every value the deal gives in a custom document property
and shows it through DOCPROPERTY fields, puts a bookmark on each clause title and paragraph, and
records the deal file's SHA-256 it was exported from. A lawyer edits the copy: changes a value in
File > Properties (and updates the fields), overtypes a value in the text, rewords a paragraph,
adds or deletes one. This module reads the copy's properties, fields and bookmarked paragraphs and
says, against a fresh export of the deal file as it is today, what differs and how to bring each
changed value back into the deal file.

The whole binding document is compared, not only the clauses: every paragraph and table cell of
the body, in order (the title block, precedence, calendar, definitions, material, measures, Service
Level Table, parameters and annexes alike), text a run marks hidden (``w:vanish``, which Word
neither shows nor prints) named as such, and every field by its instruction (which property a
DOCPROPERTY field shows, which bookmark a REF field points at) as well as by what it shows. Every
custom property is compared too: a value the deal does not give, or a changed record of the deal
file the copy was exported from, is a difference. A changed value is offered back as a deal-file
line only when the copy's text is exactly what the deal file would show for that value and the
deal file's own checks accept it; otherwise the diff says it cannot read it.

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
_DOCPROPERTY = re.compile(r'^\s*DOCPROPERTY\s+(?:"([^"]+)"|(\S+))(.*)$', re.I | re.S)
_REF = re.compile(r"^\s*REF\s+(\S+)(.*)$", re.I | re.S)
# How a field's result is styled: Word writes MERGEFORMAT, LibreOffice drops it on saving.
_FORMAT_SWITCH = re.compile(r"\\\*\s*(MERGEFORMAT|CHARFORMAT)\b", re.I)
_OFF = {"0", "false", "off"}


@dataclass
class Paragraph:
    """One paragraph of the copy: its style, the bookmarks that start in it, its text as shown, its
    text with each field replaced by a placeholder naming the field's instruction (so a value's edit
    is not also a wording edit, and a field pointed elsewhere is), the fields it holds as (kind,
    target, shown), and any text its runs mark hidden."""

    style: str
    bookmarks: list[str]
    text: str
    skeleton: str
    fields: list[tuple[str, str, str]] = field(default_factory=list)
    in_table: bool = False
    hidden: str = ""

    @property
    def key(self) -> tuple[str, str]:
        """What two paragraphs must share to say the same thing."""
        return self.skeleton, self.hidden


@dataclass
class Copy:
    properties: dict[str, str]
    paragraphs: list[Paragraph]
    revisions: int = 0  # tracked insertions and deletions (w:ins, w:del) not yet accepted or rejected


def _parse(blob: bytes) -> Any:
    from lxml import etree

    parser = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False, load_dtd=False)
    return etree.fromstring(blob, parser)


def read(path: Path) -> Copy:
    """The copy's custom properties and paragraphs (body and table cells, in document order)."""
    if not path.is_file():
        raise InputError("DOCX", f"{path} is not a file", "give the path of the edited .docx")
    copy = read_bytes(path.read_bytes() if path.stat().st_size <= 4 * LIMIT else b"", path.name)
    if EXPORT["sha256"] not in copy.properties:
        raise InputError("DOCX", f"{path.name} carries no day60 export properties, so it is not a schedule "
                                 "'day60 clauses export --docx' wrote (or they were deleted)",
                         "compare a copy of an exported schedule")
    return copy


def read_bytes(blob: bytes, name: str) -> Copy:
    """``read`` on a Word file's bytes (``name`` says which file, in messages)."""
    import io

    try:
        with zipfile.ZipFile(io.BytesIO(blob)) as z:
            parts = {}
            for part in ("word/document.xml", "docProps/custom.xml", "word/styles.xml"):
                try:
                    info = z.getinfo(part)
                except KeyError:
                    continue
                if info.file_size > LIMIT:
                    raise InputError("DOCX", f"{name}: its part {part} unpacks to {info.file_size} bytes",
                                     "give a Word schedule exported by day60")
                parts[part] = z.read(part)
    except (zipfile.BadZipFile, OSError) as exc:
        raise InputError("DOCX", f"{name} is not a Word file ({type(exc).__name__})",
                         "give the .docx a lawyer edited") from None
    if "word/document.xml" not in parts:
        raise InputError("DOCX", f"{name} holds no Word document", "give the .docx a lawyer edited")
    try:
        properties = _properties(parts.get("docProps/custom.xml"))
        styles = _styles(parts.get("word/styles.xml"))
        body = _parse(parts["word/document.xml"])
        paragraphs = [_paragraph(p, styles) for p in body.iter(f"{W}p")]
        revisions = sum(1 for _ in body.iter(f"{W}ins", f"{W}del"))
    except Exception as exc:  # lxml's errors, and any shape the copy's XML should not have
        if isinstance(exc, InputError):
            raise
        raise InputError("DOCX", f"{name}: its XML cannot be read ({type(exc).__name__})",
                         "give the .docx a lawyer edited") from None
    return Copy(properties, paragraphs, revisions)


def _properties(blob: bytes | None) -> dict[str, str]:
    if blob is None:
        return {}
    out = {}
    for prop in _parse(blob):
        name = prop.get("name")
        if name is not None:
            out[name] = "".join(prop.itertext())
    return out


def _on(el: Any) -> bool:
    """Whether a toggle property (such as ``w:vanish``) is switched on."""
    return el is not None and str(el.get(f"{W}val", "true")).casefold() not in _OFF


def _styles(blob: bytes | None) -> dict[str, tuple[str, bool]]:
    """Each style id's name and whether the style hides its text (its own ``w:vanish``)."""
    if blob is None:
        return {}
    out = {}
    for style in _parse(blob).iter(f"{W}style"):
        name = style.find(f"{W}name")
        out[style.get(f"{W}styleId", "")] = (name.get(f"{W}val", "") if name is not None else "",
                                             _on(style.find(f"{W}rPr/{W}vanish")))
    return out


def _field(instruction: str) -> tuple[str, str]:
    """A field's kind and what it names, its formatting switch set aside (LibreOffice drops
    MERGEFORMAT on saving): ("value", property), ("ref", "bookmark switches"), or ("field", the
    instruction) for any other field."""
    text = " ".join(_FORMAT_SWITCH.sub("", instruction).split())
    found = _DOCPROPERTY.match(text)
    if found:
        rest = found.group(3).strip()
        return "value", (found.group(1) or found.group(2)) + (f" {rest}" if rest else "")
    found = _REF.match(text)
    if found:
        switches = sorted(s for s in found.group(2).split() if s.casefold() != "\\h")  # \h: a hyperlink, nothing shown
        return "ref", " ".join([found.group(1), *switches])
    return "field", text


def _paragraph(p: Any, styles: dict[str, tuple[str, bool]]) -> Paragraph:
    """Walk a paragraph's runs in order: simple fields (w:fldSimple) and complex ones (begin,
    instruction, separate, result, end) both count, whichever Word saved. A run hidden by its own
    ``w:vanish``, its character style or the paragraph's style goes to ``hidden``, not ``text``."""
    style = p.find(f"{W}pPr/{W}pStyle")
    style_id = style.get(f"{W}val", "") if style is not None else ""
    style_name, style_hides = styles.get(style_id, ("", False))
    text: list[str] = []
    skeleton: list[str] = []
    hidden: list[str] = []
    fields: list[tuple[str, str, str]] = []
    state: dict[str, Any] = {"instr": None, "result": None}  # a complex field being read

    def add(kind: str, target: str, shown: str) -> None:
        text.append(shown)
        fields.append((kind, target, shown))
        skeleton.append(f"<{kind}:{target}>")

    def close() -> None:
        add(*_field("".join(state["instr"] or [])), "".join(state["result"] or []))
        state["instr"] = state["result"] = None

    def hides(el: Any) -> bool:
        run = next((a for a in el.iterancestors() if a.tag == f"{W}r"), None)
        if run is None:
            return style_hides
        rpr = run.find(f"{W}rPr")
        if rpr is not None and rpr.find(f"{W}vanish") is not None:
            return _on(rpr.find(f"{W}vanish"))
        char = rpr.find(f"{W}rStyle") if rpr is not None else None
        return styles.get(char.get(f"{W}val", ""), ("", False))[1] if char is not None else style_hides

    for el in p.iter():
        if el.tag == f"{W}p" and el is not p:
            break  # a paragraph nested in this one (a text box) is read as a paragraph of its own
        if el.tag == f"{W}fldSimple":
            add(*_field(el.get(f"{W}instr", "")), "".join(t.text or "" for t in el.iter(f"{W}t")))
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
            if hides(el):
                hidden.append(piece)
            elif state["result"] is not None:
                state["result"].append(piece)
            elif state["instr"] is None:
                text.append(piece)
                skeleton.append(piece)
    marks = [b.get(f"{W}name", "") for b in p.iter(f"{W}bookmarkStart")]
    return Paragraph(style_name, marks, " ".join("".join(text).split()), " ".join("".join(skeleton).split()),
                     fields, any(a.tag == f"{W}tbl" for a in p.iterancestors()), " ".join("".join(hidden).split()))


# ----- the comparison ------------------------------------------------------------------------------


def _toml_value(value: Any) -> str:
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return repr(value)


def _bring_back(lib: clauses.Library, deal: clauses.Deal, name: str, shown: str,
                units: dict[str, Any]) -> str:
    """The deal-file line that carries an edited value back, or why there is none. A value is read
    only where the copy's text is exactly what the deal file would show for it (so "2 hours 30
    minutes" is not read as 2 hours, nor "4 Business Hours" as 4 hours), and only where the deal
    file's own checks accept it (a Critical Level on the wrong side of its target is refused)."""
    import tomllib

    check, _, key = name.partition(".")
    text = " ".join(shown.split())
    if key:  # a Service Level Table value: check.critical, check.minimum_volume, check.credit_weight
        if lib.check(check) is None or key not in clauses.SERVICE_LEVEL_KEYS:
            return "not a value of this clause library: remove the property"
        if text.casefold() in ("none", "no", "-", ""):
            value = None
        else:
            spec = {"critical": units.get(check), "minimum_volume": clauses.Parameter(
                id=key, type="number", min=1, description="Minimum Volume"), "credit_weight": clauses.Parameter(
                id=key, type="percent", min=0, max=100, description="Credit Weight")}[key]
            if spec is None:
                return f"{check} is not a Service Level that takes a {key}"
            value = clauses.read_value(spec, text)
            unit = spec.unit
    else:
        spec = lib.parameter(name)
        if spec is None:
            return "not a parameter of this clause library: remove the property"
        value, unit = clauses.read_value(spec, text), spec.unit
    if value is None and not (key and text.casefold() in ("none", "no", "-", "")):
        return f"cannot read {text[:60]!r} as {unit}: put the value in the deal file by hand"
    data = tomllib.loads(deal.raw.decode("utf-8")) if deal.raw else {}
    if key:
        levels = data.setdefault("service_levels", {})
        entry = dict(levels.get(check) or {})
        if value is None:
            entry.pop(key, None)
        else:
            entry[key] = value
        levels[check] = entry
        line = (f"[service_levels] {check} = {{ ..., {key} = {_toml_value(value)} }}" if value is not None else
                f"[service_levels] {check}: remove {key}")
    else:
        data.setdefault("parameters", {})[name] = value
        line = f"[parameters] {name} = {_toml_value(value)}"
    try:
        edited = clauses.deal_from_data(data, deal.raw, deal.path, lib, _rubric_ids(), draft=True)
        shows = clauses.schedule(lib, edited, draft=True)["linked"].get(name)
    except InputError as exc:
        return f"cannot bring {text[:60]!r} back: the deal file would refuse it ({exc.problem[:200]})"
    if value is None and shows is None:
        return line
    if shows is None or " ".join(shows.split()) != text:
        return f"cannot read {text[:60]!r} exactly as {unit} (the deal file would show {shows!r}): put the value in " \
               "the deal file by hand"
    return line


def _rubric_ids() -> set[str]:
    """The rubric's target ids, which a deal file may also set (as ``load_deal`` is told by the CLI)."""
    from day60 import rubric

    return set(rubric.parameter_ids(rubric.load()))


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


def _places(schedule: dict[str, Any], paragraphs: list[Paragraph]) -> list[str]:
    """Where each paragraph is, as a reader finds it: "clause 17.2", "the table in clause 21", "the
    Parameters table", "the title block"."""
    numbers = {clauses.bookmark_name(q["id"]): q["number"] or str(c["number"])
               for c in (*schedule["clauses"], *schedule["modules"]) for q in c["paragraphs"]}
    titles = {clauses.bookmark_name(c["id"]): str(c["number"]) for c in (*schedule["clauses"], *schedule["modules"])}
    numbers.update(titles)
    current, section, clause = "the title block", "title block", None
    out = []
    for para in paragraphs:
        if para.style.casefold() == "heading 1":
            current, section, clause = f"the {para.text} section", para.text, None
        for mark in para.bookmarks:
            if mark in numbers:
                current = f"clause {numbers[mark]}"
            if mark in titles:
                clause = titles[mark]
        out.append((f"the table in clause {clause}" if clause else f"the {section} table") if para.in_table
                   else current)
    return out


def _linked_value_diffs(lib: clauses.Library, deal: clauses.Deal, schedule: dict[str, Any], copy: Copy,
                        places: list[str]) -> list[dict[str, Any]]:
    """Values changed or removed in the properties, properties the export never had, and values the
    text shows other than its property says."""
    diffs: list[dict[str, Any]] = []
    units = {r["check"]: lib.parameter(lib.check(r["check"])[1].parameter)  # type: ignore[index]
             for r in schedule["service_levels"]}
    where_shown: dict[str, list[str]] = {}
    for para, here in zip(copy.paragraphs, places, strict=True):
        for kind, target, shown in para.fields:
            if kind != "value":
                continue
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
                          "bring_back": _bring_back(lib, deal, name, got, units)})
    own = set(schedule["linked"]) | set(EXPORT.values())
    for name in sorted(set(copy.properties) - own):
        diffs.append({"kind": "property added", "name": name[:80], "where": "document properties", "expected": None,
                      "found": copy.properties[name][:300],
                      "bring_back": "the export has no such property: " + (
                          _bring_back(lib, deal, name, copy.properties[name], units)
                          if lib.parameter(name) or "." in name else "remove it (or agree it by Change Note)")})
    exported = copy.properties.get(EXPORT["sha256"])
    if exported != deal.sha256:
        diffs.append({"kind": "another deal file", "name": EXPORT["sha256"], "where": "document properties",
                      "expected": deal.sha256, "found": (exported or "")[:80],
                      "bring_back": "the copy says it was exported from another deal file (or its record was "
                                    "changed): compare it with that deal file, or re-export from this one"})
    library = f"{lib.id} {lib.version}"
    if copy.properties.get(EXPORT["library"]) != library:
        diffs.append({"kind": "another clause library", "name": EXPORT["library"], "where": "document properties",
                      "expected": library, "found": (copy.properties.get(EXPORT["library"]) or "")[:80],
                      "bring_back": "the copy was exported with another clause library (or its record was changed): "
                                    "its wording is that library's; re-export to compare"})
    order = ("value changed", "property removed", "property added", "another deal file", "another clause library",
             "shown differently")
    diffs.sort(key=lambda d: order.index(d["kind"]))  # what to bring back first, then what the text shows
    return diffs


def compare(lib: clauses.Library, deal: clauses.Deal, schedule: dict[str, Any], copy: Copy,
            fresh: Copy | None = None) -> dict[str, Any]:
    """Every difference between the copy and ``fresh``, a new export of the schedule ``deal``
    fills (made here when not given): values changed in the properties, properties added, the
    copy's record of its deal file, values shown other than their property says, and then, paragraph
    by paragraph over the whole body and every table cell, wording changed, fields pointed
    elsewhere, cross-references showing another number, hidden text, paragraphs gone or added.
    Each difference says where it is and, for a value, the deal-file line that would carry it back
    (or that it cannot be read)."""
    if fresh is None:
        fresh = fresh_export(lib, deal)
    places = _places(schedule, copy.paragraphs)
    diffs = _linked_value_diffs(lib, deal, schedule, copy, places)
    diffs += _body(schedule, copy, fresh, places)
    notes = []
    toolkit = copy.properties.get(EXPORT["toolkit"])
    mine = fresh.properties.get(EXPORT["toolkit"])
    if toolkit != mine:
        notes.append(f"the copy was exported with {toolkit}; this is {mine}")
    return {"differences": diffs, "notes": notes, "exported_from": copy.properties.get(EXPORT["sha256"]),
            "deal": deal.sha256}


def fresh_export(lib: clauses.Library, deal: clauses.Deal) -> Copy:
    """The Word schedule ``clauses export --docx`` writes for ``deal`` today (as a draft where the
    deal leaves values unfilled), read back as a copy is."""
    from day60 import render

    try:
        s = clauses.schedule(lib, deal, draft=False)
    except InputError:
        s = clauses.schedule(lib, deal, draft=True)
    return read_bytes(render.docx_bytes(s, language=s["language"]), "the fresh export")


def _body(schedule: dict[str, Any], copy: Copy, fresh: Copy, places: list[str]) -> list[dict[str, Any]]:
    """The copy's body against the fresh export's, paragraph by paragraph (blank ones aside)."""
    mine = [i for i, p in enumerate(copy.paragraphs) if p.text or p.fields or p.hidden]
    theirs = [i for i, p in enumerate(fresh.paragraphs) if p.text or p.fields or p.hidden]
    there = _places(schedule, fresh.paragraphs)
    a = [fresh.paragraphs[i].key for i in theirs]
    b = [copy.paragraphs[i].key for i in mine]
    out: list[dict[str, Any]] = []
    change = "a wording change: agree it by Change Note; the deal file holds values, not wording"

    def paired(i: int, j: int) -> None:
        old, new = fresh.paragraphs[i], copy.paragraphs[j]
        here = places[j]
        if new.hidden and new.hidden != old.hidden:
            out.append({"kind": "hidden text", "name": None, "where": here, "expected": old.hidden or None,
                        "found": new.hidden[:300], "bring_back": "text marked hidden (w:vanish), which Word neither "
                        "shows nor prints: unhide it, or agree its removal by Change Note"})
        if new.skeleton != old.skeleton:
            bare = (_FIELD_TOKEN.sub("<field>", old.skeleton), _FIELD_TOKEN.sub("<field>", new.skeleton))
            if bare[0] == bare[1]:
                out.append({"kind": "field changed", "name": None, "where": here, "expected": old.skeleton[:300],
                            "found": new.skeleton[:300], "bring_back": "a field names another property or bookmark "
                            "than the export's (" + _words(old.skeleton, new.skeleton) + "): restore it, or re-export"})
            else:
                out.append({"kind": "wording changed", "name": None, "where": here, "expected": old.text[:300],
                            "found": new.text[:300], "bring_back": f"{change} ({_words(old.skeleton, new.skeleton)})"})
        for (kind, target, shown), (_, _, expected) in zip(new.fields, old.fields, strict=False):
            if kind == "ref" and shown != expected and new.skeleton == old.skeleton:
                out.append({"kind": "shown differently", "name": target.split()[0], "where": here,
                            "expected": expected, "found": shown, "bring_back": "a cross-reference shows a number its "
                            "bookmark does not have: update the fields (F9), then compare again"})
        lost = [m for m in old.bookmarks if m.startswith("clause_") and m not in new.bookmarks]
        if lost:
            out.append({"kind": "bookmark removed", "name": ", ".join(lost), "where": here, "expected": None,
                        "found": None, "bring_back": "the cross-references to it lose their target: restore the "
                        "bookmark (or re-export)"})

    matcher = difflib.SequenceMatcher(a=a, b=b, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        pairs = list(zip(range(i1, i2), range(j1, j2), strict=False)) if op in ("equal", "replace") else []
        for i, j in pairs:
            paired(theirs[i], mine[j])
        for i in range(i1 + len(pairs), i2):
            old = fresh.paragraphs[theirs[i]]
            out.append({"kind": "paragraph gone", "name": None, "where": there[theirs[i]],
                        "expected": old.text[:300], "found": None,
                        "bring_back": "deleted, or its text removed: a wording change to agree by Change Note"})
        for j in range(j1 + len(pairs), j2):
            new = copy.paragraphs[mine[j]]
            before = places[mine[j - 1]] if j > 0 else "the start"
            out.append({"kind": "paragraph added", "name": None, "where": f"after {before}",
                        "expected": None, "found": (new.text or new.hidden)[:300], "bring_back": change})
            if new.hidden:
                out[-1]["bring_back"] += " (it holds hidden text, which Word neither shows nor prints)"
    return out


_FIELD_TOKEN = re.compile(r"<(value|ref|field):[^>]*>")


def keep_an_edited_copy(lib: clauses.Library, deal: clauses.Deal, schedule: dict[str, Any], docx: Path,
                        force: bool = False) -> None:
    """Refuse to write the schedule over a Word file already at ``docx`` unless it is a clean
    export of this deal (or ``force``): a negotiated copy, edited or holding the other side's
    tracked changes, would be lost, and so would a file day60 did not export. No file there: nothing
    to keep."""
    if force or not docx.exists():
        return
    try:
        copy = read_bytes(docx.read_bytes(), docx.name)
    except (InputError, OSError):
        copy = None
    if copy is None or EXPORT["sha256"] not in copy.properties:
        raise InputError("--docx", f"{docx} exists and is not a Word schedule day60 exported, so writing would lose it",
                         "choose another path, or give --force to replace it")
    found = compare(lib, deal, schedule, copy)["differences"]
    if found or copy.revisions:
        what = (f"{len(found)} difference(s) from a clean export" if found else "") + (
            (" and " if found else "") + f"{copy.revisions} tracked change(s)" if copy.revisions else "")
        raise InputError("--docx", f"{docx} is an edited copy ({what}), which writing would lose",
                         f"compare it with 'day60 clauses diff --sow {deal.path} {docx}', write elsewhere, or give "
                         "--force to replace it")

"""A score that replaces an earlier one names it (its SHA-256) and says what changed and why.

The earlier score must be a score of the same journal: its head is a line of this journal and
its ``journal_sha256`` is the hash of this journal up to that line. When it was scored with the
same rubric and deal, it is computed again from that part of the journal and must agree, so a
made-up or edited score cannot be superseded as if it had been published. Scored under another
rubric or deal, it cannot be computed again here: the new score then says that the earlier
figures it quotes are as that file states them, unchecked, and why. A self-assessment is not a
score of 'day60 score' and is refused.
"""

from __future__ import annotations

import hashlib
import re
import tempfile
from pathlib import Path
from typing import Any

from day60.errors import InputError
from day60.evidence.names import SCORE_JSON

FIELD = "--supersede"


def check_outputs(outputs: dict[str, Path | None], inputs: list[tuple[str, Path | None]], superseding: bool) -> None:
    """Refuse, before any work, an output of ``day60 score`` that would replace a file: a score is
    never silently replaced (an earlier score, or any other plain file, is refused in the score's
    own words, naming the new file and ``--supersede``; a folder, a device, an input, a journal or a
    signed report in ``files.check_outputs``' more precise ones), and ask for an output to keep a
    superseding score in."""
    import os

    from day60 import files

    def refuse(field: str, target: Path) -> InputError:
        return InputError(field, f"{target} already exists: a score is never silently replaced",
                          f"write to a new file, naming the score it replaces: {field} {fresh_name(target)} "
                          f"--supersede {target}")

    for field, target in outputs.items():
        if target is not None and os.path.lexists(target) and os.path.isfile(target) \
                and not any(src is not None and os.path.exists(src) and os.path.samefile(target, src)
                            for _n, src in inputs) \
                and files.protected(target) in (None, files.PUBLISHED, files.REPORT):
            raise refuse(field, target)
    files.check_outputs(outputs, inputs)
    for field, target in outputs.items():
        if target is not None and os.path.lexists(target):  # a dangling link, say: never replaced either
            raise refuse(field, target)
    if superseding and outputs.get("--out") is None and outputs.get("--pdf") is None:
        raise InputError("--out", "is needed with --supersede (or --pdf): the new score must be kept to be read",
                         "write the new score to a new file with --pdf NEW.pdf or --out NEW.json")


def fresh_name(target: Path) -> str:
    """A name beside ``target`` that does not exist yet (score.pdf gives score-2.pdf), for advice."""
    stem = re.sub(r"-[0-9]+$", "", target.stem)  # score-2.pdf gives score-3.pdf, not score-2-2.pdf
    n = 2
    while (candidate := target.with_name(f"{stem}-{n}{target.suffix}")).exists() and n < 1000:
        n += 1
    return str(candidate)


def load(path: str | Path, journal: Any, published: Any, deal: Any) -> bytes:
    """The superseded score's bytes, checked against the journal (see ``check``): the score JSON
    written by ``--out``, or the one a score report PDF embeds (its data, which the PDF's pages are
    a rendering of)."""
    from day60.files import read_bytes

    raw = read_bytes(path, FIELD, "the score JSON written by 'day60 score --out', or the score report PDF")
    if raw.lstrip()[:5].startswith(b"%PDF-"):
        raw = _embedded_score(raw, path)
    check(raw, str(path), journal, published, deal)
    return raw


def _embedded_score(raw: bytes, path: str | Path) -> bytes:
    """The score JSON a report PDF carries; refused by name when the PDF carries none."""
    from day60.evidence import pdf as pdfs

    try:
        embedded = pdfs.guarded(path, pdfs.attachments, pdfs.reader(raw, path))
    except (InputError, pdfs.Departs) as exc:
        reason = exc.problem if isinstance(exc, InputError) else str(exc)
        raise InputError(FIELD, f"{path} is a PDF day60 cannot read a score from: {reason}",
                         "name the score report PDF as 'day60 score --pdf' wrote it, or its score JSON") from None
    if SCORE_JSON not in embedded:
        raise InputError(FIELD, f"{path} is a PDF that carries no score: it is not a report written by 'day60 score'",
                         "name the score report PDF that 'day60 score --pdf' wrote for this journal, or its score JSON")
    return embedded[SCORE_JSON]


def _parse(raw: bytes, name: str) -> dict[str, Any]:
    from day60.files import loads_json

    old = loads_json(raw, FIELD, "a day60 score JSON (or give the score report PDF)", name)
    head = old.get("journal_head") if isinstance(old, dict) else None
    ok = isinstance(old, dict) and isinstance(old.get("lines"), list) and "score" in old \
        and isinstance(head, dict) and isinstance(head.get("seq"), int) and not isinstance(head.get("seq"), bool) \
        and head["seq"] >= 0 and isinstance(head.get("hash"), str) and re.fullmatch(r"[0-9a-f]{64}", head["hash"]) \
        and isinstance(old.get("journal_sha256"), str) and all(isinstance(x, dict) for x in old["lines"])
    if not ok:
        raise InputError(FIELD, f"{name} is not a score written by 'day60 score --out'",
                         "name the earlier score JSON file of this journal")
    return old


def _prefix(journal: Any, seq: int) -> bytes | None:
    """The journal's first ``seq`` + 1 lines (the header and events 1 to seq), or None if shorter."""
    if seq > len(journal.events):
        return None
    out = bytearray()
    with Path(journal.path).open("rb") as fh:
        for _ in range(seq + 1):
            line = fh.readline()
            if not line.endswith(b"\n"):
                return None
            out += line
    return bytes(out)


def check(raw: bytes, name: str, journal: Any, published: Any, deal: Any) -> None:
    """Refuse a superseded file that is not a score of this journal, or that this journal, scored
    with the same rubric and deal, does not give."""
    old = _parse(raw, name)
    head = old["journal_head"]
    fix = "name the score JSON that 'day60 score --out' wrote for this journal"
    if old.get("kind") is not None:
        raise InputError(FIELD, f"{name} is a {str(old.get('kind'))[:40]!r} result, not a score written by 'day60 "
                                "score': a score supersedes only an earlier score", fix)
    prefix = _prefix(journal, head["seq"])
    if prefix is None:
        raise InputError(FIELD, f"{name} is a score of a journal with {head['seq']} events; this one has "
                                f"{len(journal.events)}: it is not a score of this journal", fix)
    actual = journal.events[head["seq"] - 1]["hash"] if head["seq"] else journal.header["hash"]
    if actual != head["hash"] or hashlib.sha256(prefix).hexdigest() != old["journal_sha256"]:
        raise InputError(FIELD, f"{name} is not a score of this journal: its head {head['seq']}:{head['hash'][:12]}... "
                                "and journal SHA-256 are not this journal's", fix)
    if unchecked(old, published.sha256, deal.sha256 if deal is not None else None):
        return  # scored under other rules: it cannot be computed again here (the changelog says so)
    fresh = _score_prefix(prefix, published, deal)
    problems = []
    if fresh["score"] != old.get("score") or fresh["tier"] != old.get("tier"):
        problems.append(f"it records {old.get('score')!r} at tier {old.get('tier')!r}, the journal gives "
                        f"{fresh['score']!r} at tier {fresh['tier']!r}")
    before = {x.get("id"): x for x in old["lines"]}
    for line in fresh["lines"]:
        was = before.get(line["id"], {})
        if any(was.get(k) != line[k] for k in ("earned", "status", "figure")):
            problems.append(f"line {line['id']} records {was.get('earned')!r} ({was.get('status')}), the journal "
                            f"gives {line['earned']!r} ({line['status']})")
            break
    if problems:
        raise InputError(FIELD, f"{name} is not what this journal up to seq {head['seq']} scores to: "
                                f"{'; '.join(problems)}; it was edited or made up", fix)


def _sha(block: Any) -> Any:
    return block.get("sha256") if isinstance(block, dict) else None


def unchecked(old: dict[str, Any], rubric_sha256: str | None, deal_sha256: str | None) -> str | None:
    """Why an earlier score cannot be computed again under this rubric and deal, or None if it can."""
    why = []
    if _sha(old.get("rubric")) != rubric_sha256:
        rubric = old.get("rubric") if isinstance(old.get("rubric"), dict) else {}
        named = " ".join(str(rubric.get(k))[:40] for k in ("id", "version") if rubric.get(k) is not None)
        why.append(f"another rubric ({named + ', ' if named else ''}SHA-256 {str(_sha(rubric))[:16]}...)")
    if _sha(old.get("deal")) != deal_sha256:
        why.append("another deal file" if _sha(old.get("deal")) and deal_sha256 else
                   "a deal file" if _sha(old.get("deal")) else "no deal file")
    if not why:
        return None
    return (f"the earlier score was made with {' and '.join(why)}, which this score was not, so it cannot be "
            "computed again here: the figures quoted from it are as that file states them, not checked")


def _score_prefix(prefix: bytes, published: Any, deal: Any) -> dict[str, Any]:
    """The score, tier and lines of the journal's first lines under this rubric and deal, as
    ``day60 score`` computed them then (``assess.score_journal``, the call its score starts from)."""
    from day60 import assess
    from day60 import journal as jr
    from day60.display import jsonable

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "superseded.jsonl"
        path.write_bytes(prefix)
        return jsonable(assess.score_journal(jr.read(path), published, *assess.deal_terms(deal)).result)


def changelog(raw: bytes, name: str, new: dict[str, Any], journal: Any) -> dict[str, Any]:
    """The ``supersedes`` and ``changelog`` entries of a new score: the old score's hash and head,
    every line whose points or status changed, and the journal events since the old score that
    explain it (corrections, disputes and their resolutions, with their reasons)."""
    old = _parse(raw, name)
    before = {line.get("id"): line for line in old["lines"]}
    changed = []
    for line in new["lines"]:
        was = before.get(line["id"], {})
        if (was.get("earned"), was.get("status")) != (line["earned"], line["status"]):
            changed.append({"line": line["id"], "was": {"earned": was.get("earned"), "status": was.get("status")},
                            "now": {"earned": line["earned"], "status": line["status"]}})
    since = old["journal_head"]["seq"]
    why = [{"seq": e["seq"], "kind": e["kind"], "reason": e["data"].get("reason")}
           for e in journal.events[since:] if e["kind"] in ("correction", "dispute", "resolve")]
    not_checked = unchecked(old, _sha(new.get("rubric")), _sha(new.get("deal")))
    if not_checked:
        why.append({"seq": None, "kind": None, "reason": "it was scored again under other rules than the earlier "
                                                         "score (another rubric or deal)"})
    return {"supersedes": {"sha256": hashlib.sha256(raw).hexdigest(), "score": old.get("score"),
                           "journal_head": old["journal_head"], "computed_again": not not_checked,
                           "not_checked": not_checked},
            "changelog": {"score": {"was": old.get("score"), "now": new["score"]}, "lines": changed,
                          "because": why or [{"seq": None, "kind": None,
                                              "reason": "no correction, dispute or resolution since the earlier "
                                                        "score; it was scored again as it stood"}]}}

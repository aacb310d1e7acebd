"""``verify-report``: a report PDF checked as a forger's work would be.

1. The embedded data agrees with itself: the inputs the PDF carries (journal, rubric, deal,
   answers, observations, the score it supersedes) are computed again with the code that wrote
   the report, from the provenance the report records (so the run date and command line are the
   writer's), and the result must be the embedded data byte for byte: tier, every line, every
   figure, the journal's head.
2. The pages print exactly that data: the document is rendered again from it, and the file must
   be that rendering, page by page: the text of every page (every text object, visible or not,
   compared word by word), then its whole drawing (content streams, fonts, images, boxes), then
   everything outside the pages (catalog, metadata, attachments). The first page and words that
   differ are named.
3. Nothing was added after the toolkit wrote it but signatures and document timestamps, each
   stated with its signer and certificate fingerprint, and compared with the signer recorded in
   the report before signing: a signature removed or replaced is named.

Rendering is deterministic on one toolkit and renderer; a report made with other versions of
them (``document.json`` records which) can only be checked where those are installed, and the
message says so.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from day60.errors import InputError
from day60.evidence import documents as docs
from day60.evidence import pdf as pdfs

KINDS = ("score", "selfassess", "schedule", "drills")
MAX_REPORT = 512 * 1024 * 1024


@dataclass
class Verdict:
    """What verify-report found: problems (any one fails the check), and what it states always."""

    path: str
    kind: str = ""
    problems: list[str] = field(default_factory=list)
    statements: list[str] = field(default_factory=list)
    tail: int = 0  # bytes after the toolkit's own revision (signatures, or an update to refuse)
    head: dict[str, Any] | None = None  # the embedded journal's head (seq and hash), once verified
    parties: str | None = None  # who the verified data names, in words
    deal: dict[str, Any] | None = None  # the embedded deal a score was scored against (name, sha256, floor, targets)
    parse: Any = None  # the CLI's command-line parser, when called from the CLI

    @property
    def ok(self) -> bool:
        return not self.problems


def verify_report(path: str | Path, tsa_roots: list[Any] | None = None, expect: str | None = None,
                  parse: Any = None, expect_deal: str | None = None) -> Verdict:
    """Check a report PDF; InputError (exit 2) only for a file that is not a readable PDF report
    (or one beyond a bound: pages, objects, attachments, decoded bytes). ``expect``: the journal
    head (SEQ:HASH) handed over with the report, which its embedded journal must end at;
    ``parse``: the CLI's parser of a command line (``day60.cli.base.given_options``), with which
    the recorded command is held to what the report carries. ``expect_deal``: the SHA-256 of the
    deal file the parties signed, which a score report's embedded deal must hash to."""
    import re

    from day60.files import read_bytes

    if expect_deal is not None and not re.fullmatch(r"[0-9a-fA-F]{64}", expect_deal.strip()):
        raise InputError("--expect-deal", f"{expect_deal[:40]!r} is not a SHA-256",
                         "give the 64 hex digits of the deal file's SHA-256 (sha256sum DEAL.toml)")
    anchor = None
    if expect is not None:
        from day60.journal.verification import parse_head

        anchor = parse_head(expect)
    raw = read_bytes(path, "REPORT", "a PDF report written by day60", MAX_REPORT)
    with pdfs.bounded(len(raw)):
        verdict = _verify(raw, path, tsa_roots, parse)
    if anchor is not None and not verdict.problems:
        head = verdict.head
        if head is None:
            verdict.problems.append(f"it carries no journal, so it cannot be checked against the head expected "
                                    f"(--expect {anchor[0]}:{anchor[1]})")
        elif (head["seq"], head["hash"]) != anchor:
            verdict.problems.append(f"its journal ends at head {head['seq']}:{head['hash']}, not at the head expected "
                                    f"(--expect {anchor[0]}:{anchor[1]}): it was not scored from the journal that "
                                    "was handed over with that head")
    if expect_deal is not None and not verdict.problems:
        wanted = expect_deal.strip().lower()
        if verdict.deal is None:
            verdict.problems.append(f"it carries no deal (it was scored at the rubric's published targets), so it "
                                    f"was not scored against the deal expected (--expect-deal {wanted})")
        elif verdict.deal["sha256"] != wanted:
            verdict.problems.append(f"its embedded deal hashes to {verdict.deal['sha256']}, not to the deal expected "
                                    f"(--expect-deal {wanted}): it was scored against another deal file")
    return verdict


def _deal_words(deal: Any, published: Any, command: Any) -> dict[str, Any]:
    """The embedded deal as verify-report states it: the file name it was given under (from the
    recorded command line, which is checked), its SHA-256, the score floor and the rubric targets it sets."""
    import shlex

    from day60 import rubric

    given = None
    try:
        words = shlex.split(command) if isinstance(command, str) else []
    except ValueError:
        words = []
    for i, word in enumerate(words):
        if word == "--sow" and i + 1 < len(words):
            given = words[i + 1]
        elif word.startswith("--sow="):
            given = word.split("=", 1)[1]
    ids = rubric.parameter_ids(published)
    targets = {k: deal.parameters[k] for k in sorted(ids) if deal.parameters.get(k) is not None}
    return {"name": docs.SOURCES["deal"], "given_as": given, "sha256": deal.sha256,
            "floor": deal.parameters.get("day60_score_floor"), "targets": targets}


def _verify(raw: bytes, path: str | Path, tsa_roots: list[Any] | None, parse: Any) -> Verdict:
    pdf = pdfs.reader(raw, path)
    verdict = Verdict(str(path))
    verdict.parse = parse
    broken = _broken_signatures(raw, path)
    try:
        try:
            embedded = pdfs.guarded(path, pdfs.attachments, pdf)
        except pdfs.Departs as exc:
            verdict.problems.append(str(exc))
            _signatures(raw, path, verdict, {}, tsa_roots)
            return verdict
        known = {docs.SCORE_JSON, docs.SCHEDULE_JSON, docs.DRILLS_JSON, docs.MANIFEST}
        if not known & set(embedded):
            from day60.display import visible

            carried = ", ".join(sorted(visible(n)[:60] for n in embedded)[:5])
            raise InputError("REPORT", f"{path} is not a score, self-assessment, schedule or drills report: it carries "
                                       + (f"only {carried}" if carried else "no embedded files"),
                             "give a report written with --pdf by 'day60 score', 'selfassess', 'clauses export' or "
                             "'voice drills' (a notice letter is checked by the SHA-256 its journal logs)")
        manifest, problem = _manifest(embedded)
        if problem:
            verdict.problems.append(problem)
            _signatures(raw, path, verdict, {}, tsa_roots)
            return verdict
        verdict.kind = manifest["kind"]
        rebuilt = _rebuild(manifest, embedded, verdict)
        if rebuilt is not None:
            _compare(raw, path, pdf, rebuilt, manifest, verdict)
            _tokens(embedded, verdict, tsa_roots)
    except InputError as exc:
        if not broken:
            raise
        # a signed file whose signed bytes were changed is tampering, even where the change also
        # left it unreadable
        verdict.problems += [*broken, f"and its content cannot be read: {exc.problem}"]
        return verdict
    _signatures(raw, path, verdict, manifest, tsa_roots)
    return verdict


def _broken_signatures(raw: bytes, path: str | Path) -> list[str]:
    """Signatures whose signed bytes were changed (read first: they decide tampering)."""
    from day60.evidence import sign

    try:
        found = sign.inspect(raw, path, None)
    except InputError:
        return []
    return [f"{m.name()}: {p}" for m in found.marks for p in m.problems]


# ----- the manifest --------------------------------------------------------------------------------


def _manifest(embedded: dict[str, bytes]) -> tuple[dict[str, Any], str | None]:
    body = embedded.get(docs.MANIFEST)
    if body is None:
        return {}, (f"it carries no {docs.MANIFEST}: it was written by an earlier day60, or rebuilt by other "
                    "software, and its pages cannot be checked against its data")
    try:
        data = _json(body, docs.MANIFEST)
    except InputError as exc:
        return {}, f"its {docs.MANIFEST} is damaged: {exc.problem}"
    signer = data.get("signer") if isinstance(data, dict) else None
    ok = isinstance(data, dict) and data.get("format") == docs.MANIFEST_FORMAT and data.get("kind") in KINDS \
        and (data.get("title") is None or isinstance(data.get("title"), str)) \
        and (signer is None or (isinstance(signer, dict) and isinstance(signer.get("subject"), str)
                                and isinstance(signer.get("certificate_sha256"), str))) \
        and (data.get("timestamp_authority") is None or isinstance(data.get("timestamp_authority"), str)) \
        and isinstance(data.get("renderer"), dict) and _instant(data.get("written_at"))
    if not ok:
        return {}, f"its {docs.MANIFEST} is not one day60 writes"
    from day60.evidence import provenance

    when = provenance.instant(data["written_at"])
    now = dt.datetime.now(dt.UTC)
    if when is None:
        return {}, f"its {docs.MANIFEST} gives written_at {str(data['written_at'])[:40]!r}, not as day60 writes it"
    if not provenance.EARLIEST <= when <= now + provenance.CLOCK_TOLERANCE:
        return {}, (f"its {docs.MANIFEST} says it was written at {data['written_at']}, "
                    + ("before the toolkit's first line" if when < provenance.EARLIEST else "later than now"))
    return data, None


def _json(body: bytes, name: str) -> Any:
    """Embedded JSON, read as every JSON input is (nesting, numbers and repeated keys checked):
    InputError naming what is wrong, never a RecursionError."""
    from day60.files import loads_json

    return loads_json(body, "REPORT", "JSON as day60 writes it", f"the embedded {name}")


def _instant(value: Any) -> bool:
    import datetime as dt

    try:
        return isinstance(value, str) and dt.datetime.fromisoformat(value).tzinfo is not None
    except ValueError:
        return False


# ----- the data, computed again -----------------------------------------------------------------------


def _rebuild(manifest: dict[str, Any], embedded: dict[str, bytes], verdict: Verdict) -> docs.Document | None:
    """The document as its writer built it, from the embedded inputs; None (with the problem
    recorded) when the inputs cannot be computed again or the embedded data is not their result."""
    kind = manifest["kind"]
    need = {"score": ("journal", "rubric"), "selfassess": ("answers", "journal"), "schedule": ("deal",),
            "drills": ("observations",)}[kind]
    data_name = {"score": docs.SCORE_JSON, "selfassess": docs.SCORE_JSON, "schedule": docs.SCHEDULE_JSON,
                 "drills": docs.DRILLS_JSON}[kind]
    missing = [docs.SOURCES[n] for n in need if docs.SOURCES[n] not in embedded]
    if data_name not in embedded:
        missing.append(data_name)
    if missing:
        verdict.problems.append(f"the {kind} report does not carry {', '.join(missing)}")
        return None
    try:
        recorded = _json(embedded[data_name], data_name)
    except InputError as exc:
        verdict.problems.append(f"the embedded {data_name} is damaged: {exc.problem}")
        return None
    if not isinstance(recorded, dict):
        verdict.problems.append(f"the embedded {data_name} is damaged: it is not a JSON object")
        return None
    builder = {"score": _score, "selfassess": _selfassess, "schedule": _schedule, "drills": _drills}[kind]
    with tempfile.TemporaryDirectory() as tmp:
        try:
            document = builder(Path(tmp), embedded, recorded, manifest, verdict)
        except InputError as exc:
            verdict.problems.append(f"the embedded inputs cannot be computed again: {exc}")
            return None
    if document is None:
        return None
    fresh = next(body for name, body, _what, _rel in document.attachments if name == data_name)
    if fresh != embedded[data_name]:
        where = first_difference(recorded, json.loads(fresh))
        verdict.problems.append(f"the embedded {data_name} is not what its embedded inputs compute to: {where}")
        return None
    return document


def _file(tmp: Path, embedded: dict[str, bytes], name: str) -> Path:
    path = tmp / docs.SOURCES[name]
    path.write_bytes(embedded[docs.SOURCES[name]])
    return path


def _inputs_agree(recorded: dict[str, Any], actual: dict[str, str | None], verdict: Verdict,
                  extra: tuple[str, ...] = ()) -> dict[str, Any] | None:
    """The recorded provenance, if the inputs it names are exactly those embedded (``extra``:
    inputs it may name that a report cannot carry, such as a self-assessment's ticket files)."""
    prov = recorded.get("provenance")
    if not isinstance(prov, dict) or not isinstance(prov.get("inputs_sha256"), dict):
        verdict.problems.append("the embedded data records no provenance")
        return None
    named = prov["inputs_sha256"]
    unknown = sorted(set(named) - set(actual) - set(extra))
    if unknown:
        verdict.problems.append(f"the provenance names input(s) the report does not carry: {', '.join(unknown)[:120]}")
        return None
    for label, digest in actual.items():
        if named.get(label) != digest:
            shown = f"{digest[:16]}..." if digest else "nothing embedded"
            verdict.problems.append(f"the provenance records the {label} as {str(named.get(label))[:16]}..., but the "
                                    f"embedded {label} hashes to {shown}")
            return None
    return prov


def _score(tmp: Path, embedded: dict[str, bytes], recorded: dict[str, Any], manifest: dict[str, Any],
           verdict: Verdict) -> docs.Document | None:
    from day60 import clauses, rubric
    from day60 import journal as jr
    from day60.evidence import supersede

    journal = jr.read(_file(tmp, embedded, "journal"))
    published = rubric.loads(embedded[docs.SOURCES["rubric"]], "the embedded rubric")
    deal = None
    if docs.SOURCES["deal"] in embedded:
        deal = clauses.load_deal(_file(tmp, embedded, "deal"), clauses.load_library(),
                                 rubric.parameter_ids(published), draft=True)
    state, words = rubric.standing(published)
    if state == "changed":
        verdict.problems.append(f"the embedded rubric is refused: {words}")
        return None
    verdict.statements.append(f"scored against {words}")
    prov = _inputs_agree(recorded, {"journal": journal.sha256, "rubric": published.sha256,
                                    "deal": deal.sha256 if deal else None}, verdict)
    if prov is None:
        return None
    superseded = embedded.get(docs.SOURCES["superseded"])
    options = {"--pdf": True, "--sow": deal is not None, "--supersede": superseded is not None,
               **_finish_options(manifest)}
    if published.sha256 != rubric.load().sha256:
        options["--rubric"] = True
    if not _provenance_holds(prov, {"rubric": f"{published.id} {published.version}"}, journal, manifest,
                             ("score",), options, verdict):
        return None
    _state_journal(journal, verdict)
    if deal is not None:
        from day60.display import visible

        verdict.deal = d = _deal_words(deal, published, prov.get("command"))
        floor = "no score floor" if d["floor"] is None else f"score floor {d['floor']:g}"
        sets = ", ".join(f"{k} = {v:g}" if isinstance(v, int | float) else f"{k} = {v}"
                         for k, v in d["targets"].items()) or "none (every target is the rubric's)"
        given = f" (given as --sow {visible(d['given_as'])[:120]})" if d["given_as"] else ""
        verdict.statements.append(f"scored against the deal {d['name']}{given}, SHA-256 {d['sha256']}; {floor}; "
                                  f"the rubric targets it sets: {sets}")
    else:
        verdict.statements.append("scored against no deal: every target is the rubric's published default")
    if superseded is not None:
        try:
            supersede.check(superseded, "the embedded superseded score", journal, published, deal)
        except InputError as exc:
            verdict.problems.append(f"the score it supersedes does not hold: {exc.problem}")
            return None
    elif recorded.get("supersedes"):
        verdict.problems.append("it names a score it supersedes, but does not carry that score")
        return None
    done = docs.score_result(journal, published, deal, prov, superseded, "the embedded superseded score")
    title = manifest.get("title") or ""
    if title not in docs.TITLES["score"]:
        verdict.problems.append(f"its title {title[:80]!r} is not one a day60 score report carries")
        return None
    journal_bytes = embedded[docs.SOURCES["journal"]]
    return docs.score_document(done, journal_bytes, embedded[docs.SOURCES["rubric"]],
                               embedded.get(docs.SOURCES["deal"]), superseded, title, manifest.get("signer"),
                               manifest.get("timestamp_authority"), manifest["written_at"])


def _selfassess(tmp: Path, embedded: dict[str, bytes], recorded: dict[str, Any], manifest: dict[str, Any],
                verdict: Verdict) -> docs.Document | None:
    from day60 import assess, clauses, rubric
    from day60 import journal as jr
    from day60 import selfassess as sa

    deal = None
    if docs.SOURCES["deal"] in embedded:
        deal = clauses.load_deal(_file(tmp, embedded, "deal"), clauses.load_library(),
                                 rubric.parameter_ids(rubric.load()), draft=True)
    qs = sa.QuestionSet.load()
    ans = sa.load_answers(_file(tmp, embedded, "answers"), qs, deal_calendar=deal.calendar if deal else None)
    journal = jr.read(_file(tmp, embedded, "journal"))
    tickets = tuple(f.get("file") for f in (ans.answers.get(sa.TICKETS) or {}).get("files", []))
    prov = _inputs_agree(recorded, {"answers": ans.sha256, "journal": journal.sha256,
                                    "deal": deal.sha256 if deal else None}, verdict, tickets)
    if prov is None:
        return None
    shipped = rubric.load()
    named = {f.get("file"): f.get("sha256") for f in (ans.answers.get(sa.TICKETS) or {}).get("files", [])}
    if any(prov["inputs_sha256"].get(name, digest) != digest for name, digest in named.items()):
        verdict.problems.append("its provenance records a ticket export's hash other than the embedded answers do")
        return None
    versions = {"rubric": f"{shipped.id} {shipped.version}", "question_set": f"{qs.id} {qs.version}"}
    if not _provenance_holds(prov, versions, journal, manifest, ("selfassess",),
                             {"--pdf": True, "--sow": deal is not None, **_finish_options(manifest)}, verdict):
        return None
    _state_journal(journal, verdict)
    if ans.answers.get(sa.TICKETS):
        verdict.statements.append("its incidents came from a ticket export that the report does not carry: the "
                                  "journal built from it is scored again, not built again")
    else:
        problem = _same_build(qs, ans, journal, tmp)
        if problem:
            verdict.problems.append(problem)
            return None
    done = assess.score_assessment(qs, ans, journal, deal.parameters if deal else None)
    done.result["provenance"] = prov
    title = manifest.get("title") or ""
    if title not in docs.TITLES["selfassess"]:
        verdict.problems.append(f"its title {title[:80]!r} is not one a day60 self-assessment report carries")
        return None
    return docs.selfassess_document(done, embedded[docs.SOURCES["answers"]], embedded[docs.SOURCES["journal"]],
                                    embedded.get(docs.SOURCES["deal"]), title, manifest.get("signer"),
                                    manifest.get("timestamp_authority"), manifest["written_at"])


def _same_build(qs: Any, ans: Any, journal: Any, tmp: Path) -> str | None:
    """Whether the embedded journal is the one the embedded answers build (times of writing aside)."""
    from day60 import journal as jr
    from day60 import selfassess as sa

    with jr.working_journal():  # built in verify-report's own temporary folder: no note naming it
        built = sa.to_journal(qs, ans, tmp / "rebuilt.jsonl")

    def plain(event: dict[str, Any]) -> tuple[Any, ...]:
        return event["seq"], event["kind"], event["id"], event["at"], json.dumps(event["data"], sort_keys=True)

    skip = ("created_at", "hash", "toolkit")
    if {k: v for k, v in built.header.items() if k not in skip} != \
            {k: v for k, v in journal.header.items() if k not in skip}:
        return "the embedded journal's header is not the one the embedded answers build"
    for mine, theirs in zip(journal.events, built.events, strict=False):
        if plain(mine) != plain(theirs):
            return f"the embedded journal is not the one the embedded answers build (first at seq {mine['seq']})"
    if len(journal.events) != len(built.events):
        return (f"the embedded journal holds {len(journal.events)} events; the embedded answers build "
                f"{len(built.events)}")
    return None


def _schedule(tmp: Path, embedded: dict[str, bytes], recorded: dict[str, Any], manifest: dict[str, Any],
              verdict: Verdict) -> docs.Document | None:
    from day60 import clauses, rubric

    draft = recorded.get("draft") is True
    lib = clauses.load_library()
    deal = clauses.load_deal(_file(tmp, embedded, "deal"), lib, rubric.parameter_ids(rubric.load()), draft=draft)
    if recorded.get("sow_sha256") != deal.sha256:
        verdict.problems.append(f"the embedded deal file hashes to {deal.sha256[:16]}..., but the schedule records "
                                f"{str(recorded.get('sow_sha256'))[:16]}...")
        return None
    named = [f"{role} {deal.deal.get(role)}" for role in ("provider", "partner")
             if isinstance(deal.deal.get(role), str)]
    verdict.parties = "; ".join(named) or None
    return docs.schedule_document(clauses.schedule(lib, deal, draft=draft), embedded[docs.SOURCES["deal"]],
                                  manifest.get("signer"), manifest.get("timestamp_authority"), manifest["written_at"])


def _drills(tmp: Path, embedded: dict[str, bytes], recorded: dict[str, Any], manifest: dict[str, Any],
            verdict: Verdict) -> docs.Document | None:
    from day60 import drills
    from day60.files import loads_json

    body = embedded[docs.SOURCES["observations"]]
    observations = loads_json(body, "OBSERVATIONS", "drill observations", "the embedded observations")
    prov = _inputs_agree(recorded, {"observations": hashlib.sha256(body).hexdigest()}, verdict)
    if prov is None:
        return None
    result = drills.score_call(observations)
    rules = f"{result['rules']['id']} {result['rules']['version']}"
    if not _provenance_holds(prov, {"drill_rules": rules}, None, manifest, ("voice", "drills"),
                             {"--pdf": True, **_finish_options(manifest)}, verdict):
        return None
    result["provenance"] = prov
    return docs.drills_document(result, body, manifest.get("signer"), manifest.get("timestamp_authority"),
                                manifest["written_at"])


def _finish_options(manifest: dict[str, Any]) -> dict[str, bool]:
    """--sign and --tsa, which the command line must give exactly when the report records a signer
    or a timestamp authority."""
    return {"--sign": bool(manifest.get("signer")), "--tsa": bool(manifest.get("timestamp_authority"))}


def _provenance_holds(prov: dict[str, Any], versions: dict[str, str], journal: Any, manifest: dict[str, Any],
                      command: tuple[str, ...], options: dict[str, bool], verdict: Verdict) -> bool:
    """The recorded provenance, every field typed and checked (evidence.provenance.check): its
    run date not before the journal's first line nor after the document was written, its versions
    those of what the report carries, its command line one that wrote this report."""
    from day60.evidence import provenance

    earliest = dt.datetime.fromisoformat(journal.header["created_at"]) if journal is not None else None
    written = provenance.instant(manifest["written_at"])
    wrong = provenance.check(prov, versions, earliest, written or dt.datetime.now(dt.UTC), command, options,
                             verdict.parse)
    if wrong:
        verdict.problems.append(f"its provenance is not as day60 writes it: {'; '.join(wrong[:4])}")
    return not wrong


def _state_journal(journal: Any, verdict: Verdict) -> None:
    """The verified journal's head and parties, for the report's reader to compare."""
    header = journal.header
    verdict.head = dict(journal.head) if journal.head else {"seq": 0, "hash": header["hash"]}
    runner = header.get("runner")
    org = header.get("runner_organisation")
    verdict.parties = (f"partner {header.get('partner')}; supplier {header.get('supplier')}; deployment "
                       f"{header.get('deployment')}; run by {runner}" + (f" ({org})" if org else ""))


def first_difference(recorded: Any, fresh: Any, where: str = "") -> str:
    """The first place two JSON values differ, as a path with both values."""
    if isinstance(recorded, dict) and isinstance(fresh, dict):
        for key in sorted(set(recorded) | set(fresh)):
            if recorded.get(key, _MISSING) != fresh.get(key, _MISSING):
                return first_difference(recorded.get(key, _MISSING), fresh.get(key, _MISSING),
                                        f"{where}.{key}" if where else key)
    elif isinstance(recorded, list) and isinstance(fresh, list):
        for i, (a, b) in enumerate(zip(recorded, fresh, strict=False)):
            if a != b:
                label = a.get("id") if isinstance(a, dict) and a.get("id") == (b or {}).get("id") else i
                return first_difference(a, b, f"{where}[{label}]")
        if len(recorded) != len(fresh):
            return f"{where} holds {len(recorded)} item(s); computed again it holds {len(fresh)}"
    return f"{where or 'the data'} reads {_shown(recorded)}; computed again it is {_shown(fresh)}"


class _Missing:
    def __repr__(self) -> str:
        return "nothing"


_MISSING = _Missing()


def _shown(value: Any) -> str:
    from day60.display import visible

    text = repr(value) if isinstance(value, _Missing) else json.dumps(value, sort_keys=True, ensure_ascii=False)
    text = visible(text)
    return text if len(text) <= 120 else text[:117] + "..."


# ----- the pages against a fresh rendering ----------------------------------------------------------


def _compare(raw: bytes, path: str | Path, pdf: Any, document: docs.Document, manifest: dict[str, Any],
             verdict: Verdict) -> None:
    """The file, as a viewer shows it, against the document rendered again from its data."""
    rendered, _pages = docs.pdf_bytes(document, note_fonts=False)
    if raw == rendered:
        # Byte for byte what the embedded data renders to, with nothing after it: every page's
        # text, drawing, annotation and form are the fresh rendering's own, so reading both files'
        # pages (half the time of a check) could find nothing. Any other file is read in full.
        verdict.tail = 0
        return
    fresh = pdfs.reader(rendered, "the document rendered again")

    def differences() -> list[str]:
        # The cheap checks first, so that no page is read as text unless it must be: the page count,
        # then each page's drawing (hashed within the file's bounds: an unchanged drawing prints
        # unchanged words), then the words of a page whose drawing differs, read only when its
        # content is within a few times what the embedded data renders on that page.
        found = []
        have, want = len(pdf.pages), len(fresh.pages)
        if have != want:
            return [f"the page count: the file has {have} page(s); the embedded data renders {want}"]
        changed = [n for n, (mine, theirs) in enumerate(zip(pdfs.page_digests(pdf), pdfs.page_digests(fresh),
                                                             strict=True)) if mine != theirs]
        for n in changed:
            theirs = pdfs.drawn_size(fresh.pages[n], pdfs.MAX_STREAM)
            mine = pdfs.drawn_size(pdf.pages[n], 4 * theirs + pdfs.MIB)
            if mine > 4 * theirs + pdfs.MIB:
                return [f"page {n + 1} draws more than {4 * theirs + pdfs.MIB:,} bytes of content (its content "
                        f"streams and the forms they invoke, as often as invoked) where the embedded data renders "
                        f"{theirs:,}; its words are not read"]
        for n in changed:  # the words first: a changed font shared by every page changes every drawing
            text = pdfs.first_text_difference([pdfs.words(pdf.pages[n].extract_text() or "")],
                                              [pdfs.words(fresh.pages[n].extract_text() or "")])
            if text is not None:
                return [f"page {n + 1} {text.detail}"]
        if changed:
            return [f"page {changed[0] + 1} prints the same words but draws something else (its content, a font, "
                    "an image or its boxes differ from what the embedded data renders to)"]
        mine, theirs = pdfs.outside_pages(pdf), pdfs.outside_pages(fresh)
        for part in sorted(set(mine) | set(theirs)):
            if mine.get(part) != theirs.get(part):
                state = "is added" if part not in theirs else "is missing" if part not in mine else "differs"
                found.append(f"{part} {state}: the file departs from what the toolkit writes outside its pages")
                break
        found += pdfs.annotations(pdf) + pdfs.form(pdf)
        return found

    found = pdfs.guarded(path, differences)
    if not found and not raw.startswith(rendered):
        found.append("its first revision is not byte for byte what the embedded data renders to (objects were "
                     "added, removed or rewritten)")
    if not found:
        verdict.tail = len(raw) - len(rendered)
    if found:
        mine, theirs = pdfs.guarded(path, pdfs.font_names, pdf), pdfs.font_names(fresh)
        if theirs - mine:  # this machine draws with a font the file never had: another machine's fonts
            found[-1] += (f" (note: the file draws with {', '.join(sorted(mine)) or 'no fonts'}; this machine renders "
                          f"with {', '.join(sorted(theirs))}: if the fonts installed here differ from the writer's, "
                          "verify it where the writer's are)")
    if found and manifest.get("renderer") != docs.renderer():
        found[-1] += (f" (note: it records renderer {_versions(manifest.get('renderer'))}; this machine has "
                      f"{_versions(docs.renderer())}: verify it where those versions are installed)")
    from day60 import __version__

    if found and manifest.get("toolkit_version") != __version__:
        found[-1] += (f" (note: it was written by day60 {manifest.get('toolkit_version')}; this is day60 "
                      f"{__version__})")
    verdict.problems += found


def _versions(block: Any) -> str:
    if not isinstance(block, dict):
        return "unknown"
    return ", ".join(f"{k} {v}" for k, v in sorted(block.items()))


# ----- the embedded journal's timestamp tokens --------------------------------------------------------


def _tokens(embedded: dict[str, bytes], verdict: Verdict, tsa_roots: list[Any] | None) -> None:
    """Every RFC 3161 token the embedded journal holds, checked as 'day60 verify' checks them and
    stated (what it proves, on whose word); a token that does not hold fails the report, since the
    journal a reader opens from it would claim a third party's time it does not have."""
    from day60.evidence import timestamp

    body = embedded.get(docs.SOURCES["journal"])
    if body is None or f'"kind":"{timestamp.KIND}"'.encode() not in body:
        return
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / docs.SOURCES["journal"]
        path.write_bytes(body)
        proofs, problems = timestamp.check(path, tsa_roots)
    verdict.statements += [f"the embedded journal's {timestamp.describe(p)}" for p in proofs
                           if not any(f"at seq {p.seq}:" in q for q in problems)]
    verdict.problems += [f"the embedded journal: {problem}" for problem in problems]


# ----- signatures ------------------------------------------------------------------------------------


def _signatures(raw: bytes, path: str | Path, verdict: Verdict, manifest: dict[str, Any],
                tsa_roots: list[Any] | None) -> None:
    """State every signature and timestamp, and compare them with what the report recorded."""
    from day60.evidence import sign

    found = sign.inspect(raw, path, tsa_roots)
    wanted = manifest.get("signer")
    tsa = manifest.get("timestamp_authority")
    signatures = [m for m in found.marks if m.kind == "signature"]
    stamps = [m for m in found.marks if m.kind == "document timestamp"]
    if not signatures:
        verdict.statements.append("not signed")
        if wanted:
            verdict.problems.append(f"it was written to be signed by {wanted['subject']} (certificate SHA-256 "
                                    f"{wanted['certificate_sha256']}), but it carries no signature: the signature "
                                    "was removed")
    for mark in signatures:
        if mark.fingerprint is None:  # its data could not be read at all: named among the problems
            verdict.statements.append(f"carries a signature in field {mark.field!r} whose data cannot be read")
            continue
        state = "intact" if mark.intact and mark.valid and not mark.problems else "NOT intact"
        verdict.statements.append(f"signed by {mark.subject} (certificate SHA-256 {mark.fingerprint}); the "
                                  f"signature is {state} and covers {mark.covers}; signer not verified: the "
                                  "certificate is not checked against a trust list (compare its fingerprint with "
                                  "the one the signer gives you)")
        recorded = wanted and mark.fingerprint == wanted["certificate_sha256"]
        if wanted and not recorded and not any(m.fingerprint == wanted["certificate_sha256"] for m in signatures):
            verdict.problems.append(f"the signature is by certificate {mark.fingerprint}, but the report was written "
                                    f"to be signed by {wanted['subject']} (certificate SHA-256 "
                                    f"{wanted['certificate_sha256']}): the signature was replaced")
        elif not recorded:
            verdict.statements.append("that signature was added after the toolkit wrote the report (not the signer "
                                      "recorded in it)" if wanted else "that signature was added after the toolkit "
                                      "wrote the report (no signer was recorded in it)")
        if mark.timestamp:
            verdict.statements.append(_time_words("its signature timestamp", mark.timestamp, "it was signed",
                                                  bool(tsa_roots)))
    for mark in stamps:
        if mark.timestamp:
            verdict.statements.append(_time_words("a document timestamp", mark.timestamp,
                                                  "every byte before it existed", bool(tsa_roots), mark.problems))
    stamped = any(m.timestamp for m in found.marks)
    if tsa and not stamped:
        verdict.problems.append(f"it was written to carry a timestamp from {tsa}, but it carries none: the "
                                "timestamp was removed")
    if tsa_roots and stamped and not all(m.timestamp["trusted"] for m in found.marks if m.timestamp):
        verdict.problems.append("a timestamp in it is not from a TSA the roots given (--tsa-root) trust")
    if not found.marks and verdict.tail > 0:
        verdict.problems.append(f"{verdict.tail:,} bytes were added after the toolkit wrote the report, and they are "
                                "not a signature")
    verdict.problems += found.problems


def _time_words(what: str, stamp: dict[str, Any], claim: str, roots_given: bool,
                problems: list[str] | None = None) -> str:
    """A timestamp in words: what it says, and on whose word; a timestamp that does not verify (its
    own token, or the bytes it covers, changed) is said to prove nothing, its claim not repeated."""
    who = f"{what} from {stamp['tsa']} (certificate SHA-256 {stamp['tsa_certificate_sha256']})"
    if stamp.get("problem") or problems:
        return f"{who} does not verify: the time it names ({stamp['at']}) proves nothing"
    trust = "trusted under the roots given" if stamp["trusted"] else \
        "its TSA does not chain to the roots given (--tsa-root)" if roots_given else \
        "its TSA is not checked against a root you trust (give --tsa-root)"
    return f"{who} says {claim} by {stamp['at']}; {trust}"

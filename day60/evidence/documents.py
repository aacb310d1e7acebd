"""The documents whose PDFs prove themselves, each built by one function that the command, the
demo and ``verify-report`` all call, so that the verifier re-renders a report with exactly the
code that wrote it.

A document is its HTML and what its PDF embeds: the inputs (relationship Source), the result as
data (relationship Data) and ``document.json``, which says what kind of document it is, its title,
the renderer's versions, and, when it is to be signed or timestamped, the signer's certificate
fingerprint and the timestamp authority, written before the signing so that a signature later
removed or replaced shows. Rendering is deterministic: the same data, toolkit and renderer give
the same bytes, which is what ``verify-report`` compares.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from day60.errors import InputError
from day60.evidence.names import DRILLS_JSON, MANIFEST, MANIFEST_FORMAT, SCHEDULE_JSON, SCORE_JSON, SOURCES
from day60.evidence.supersede import changelog

__all__ = ["DRILLS_JSON", "MANIFEST", "MANIFEST_FORMAT", "SCHEDULE_JSON", "SCORE_JSON", "SOURCES", "TITLES",
           "Document", "drills_document", "finish", "manifest", "pdf_bytes", "schedule_document", "score_document",
           "score_result", "selfassess_document"]
# The titles a score report may carry: the cover's heading is one of these, never free text.
TITLES = {"score": ("Day-60 exercise score", "Day-60 exercise score (SYNTHETIC demo)"),
          "selfassess": ("Day-60 self-assessment", "Day-60 self-assessment (SYNTHETIC demo)")}


@dataclass
class Document:
    """A document ready to render: its HTML, its attachments (manifest last) and its data."""

    kind: str
    html: str
    attachments: list[tuple[str, bytes, str, str]]
    result: dict[str, Any]  # the data as computed (what the page shows)
    written_at: str  # when it was written (the attachments' dates), as the manifest records it


def renderer() -> dict[str, str]:
    """The versions that decide a PDF's bytes: a report rendered elsewhere may differ in them."""
    from importlib import metadata

    def version(name: str) -> str:
        try:
            return metadata.version(name)
        except metadata.PackageNotFoundError:
            return "not installed"

    return {name: version(name) for name in ("weasyprint", "pydyf", "fonttools")}


def manifest(kind: str, title: str | None, signer: dict[str, str] | None, tsa: str | None,
             written_at: str) -> bytes:
    """``document.json``: what the file is, when it was written, and what is to be added to it
    (signature, timestamp)."""
    from day60 import __version__

    body = {"format": MANIFEST_FORMAT, "kind": kind, "title": title, "toolkit_version": __version__,
            "renderer": renderer(), "signer": signer, "timestamp_authority": tsa, "written_at": written_at}
    return json.dumps(body, indent=2, sort_keys=True).encode("utf-8")


def now() -> str:
    import datetime as dt

    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


def _data(result: dict[str, Any], default: Any = None) -> bytes:
    from day60.display import jsonable

    return json.dumps(jsonable(result), indent=2, sort_keys=True, allow_nan=False, default=default).encode("utf-8")


def _title(kind: str, title: str) -> str:
    if title not in TITLES[kind]:
        raise InputError("title", f"{title!r} is not a title of a day60 {kind} report", "use one of "
                                                                                       f"{', '.join(TITLES[kind])}")
    return title


# ----- a score -------------------------------------------------------------------------------------


def score_result(journal: Any, published: Any, deal: Any, provenance: dict[str, Any],
                 superseded: bytes | None = None, superseded_name: str = "the superseded score") -> Any:
    """The score of a journal as ``day60 score`` computes it: rubric, deal (targets, report
    elements, parties, floor), provenance, and what it supersedes. Returns assess.Assessed."""
    from day60 import assess, clauses

    done = assess.score_journal(journal, published, *assess.deal_terms(deal))
    if deal is not None:
        done.result["deal"] = {"sha256": deal.sha256, "parties_differ": clauses.parties_problem(deal, journal.header)}
        done.result["deal_floor"] = clauses.floor_verdict(done.result, deal)
    done.result["provenance"] = provenance
    if superseded is not None:
        done.result.update(changelog(superseded, superseded_name, done.result, journal))
    return done


def score_document(done: Any, journal_bytes: bytes, rubric_bytes: bytes, deal_bytes: bytes | None,
                   superseded: bytes | None, title: str, signer: dict[str, str] | None = None,
                   tsa: str | None = None, written_at: str | None = None) -> Document:
    """The score report: cover, timeline, lines, figures; embeds the journal exactly as scored,
    the rubric, the deal, the score it supersedes, the score as data and the manifest."""
    from day60 import render

    html = render.score_html(done.journal, done.figures, done.result, _title("score", title), done.reconciliation())
    out = [(SOURCES["journal"], journal_bytes, "the exercise journal, exactly the lines scored", "Source"),
           (SOURCES["rubric"], rubric_bytes, "the rubric the score was computed against", "Source")]
    if deal_bytes is not None:
        out.append((SOURCES["deal"], deal_bytes, "the deal file whose parameters set the targets", "Source"))
    if superseded is not None:
        out.append((SOURCES["superseded"], superseded, "the earlier score this one replaces", "Source"))
    out.append((SCORE_JSON, _data(done.result), "the score as data, unrounded", "Data"))
    written_at = written_at or now()
    out.append((MANIFEST, manifest("score", title, signer, tsa, written_at), "what this document is and how it was "
                                                                            "made", "Data"))
    return Document("score", html, out, done.result, written_at)


def write_score(done: Any, journal_bytes: bytes | None, published: Any, deal: Any, superseded: bytes | None,
                out: Path | None, html: Path | None, pdf: Path | None, signer: Any, tsa: str | None,
                wrote: Callable[[Path, str], None], title: str = "Day-60 exercise score") -> None:
    """The outputs of ``day60 score``: the score JSON, the report's HTML and its PDF (signed and
    timestamped when asked), every one built in memory first and then written as a new file, so a
    failure on the way writes nothing. ``journal_bytes``: the journal as scored (``reading.read_back``),
    needed only for a report. ``wrote(path, detail)`` is told of each file once written."""
    from day60 import files
    from day60.display import jsonable

    body, pages, document = None, 0, None
    if pdf or html:
        assert journal_bytes is not None, "a report embeds the journal's bytes as scored"
        document = score_document(done, journal_bytes, published.raw, deal.raw if deal else None, superseded,
                                  title, signer.identity() if signer else None, tsa)
        if pdf:
            raw, pages = pdf_bytes(document)
            body = finish(raw, signer, tsa)
    if out is not None:
        files.write_atomic(out, json.dumps(jsonable(done.result), indent=2, sort_keys=True, allow_nan=False) + "\n",
                           "--out", new=True)
        wrote(out, "")
    if html and document is not None:
        files.write_atomic(html, document.html, "--html", new=True)
        wrote(html, "")
    if pdf and body is not None:
        files.write_atomic(pdf, body, "--pdf", new=True)
        done_with = (f", signed by {signer.subject}" if signer else "") + (f", timestamped by {tsa}" if tsa else "")
        wrote(pdf, f" ({pages} pages{done_with})")


# ----- a self-assessment ---------------------------------------------------------------------------


def selfassess_document(done: Any, answers_bytes: bytes, journal_bytes: bytes, deal_bytes: bytes | None,
                        title: str, signer: dict[str, str] | None = None, tsa: str | None = None,
                        written_at: str | None = None) -> Document:
    """The self-assessment report: embeds the answers, the journal built from them, the deal,
    the score as data and the manifest."""
    from day60 import render

    html = render.score_html(done.journal, done.figures, done.result, _title("selfassess", title),
                            done.reconciliation())
    out = [(SOURCES["answers"], answers_bytes, "the answers file the assessment was scored from", "Source"),
           (SOURCES["journal"], journal_bytes, "the journal built from the answers, exactly as scored", "Source")]
    if deal_bytes is not None:
        out.append((SOURCES["deal"], deal_bytes, "the deal file whose parameters set the targets", "Source"))
    out.append((SCORE_JSON, _data(done.result), "the self-assessment score as data, unrounded", "Data"))
    written_at = written_at or now()
    out.append((MANIFEST, manifest("selfassess", title, signer, tsa, written_at), "what this document is and how it "
                                                                                 "was made", "Data"))
    return Document("selfassess", html, out, done.result, written_at)


# ----- a clause schedule ---------------------------------------------------------------------------


def schedule_document(schedule: dict[str, Any], deal_bytes: bytes, signer: dict[str, str] | None = None,
                      tsa: str | None = None, written_at: str | None = None) -> Document:
    """The clause schedule: embeds the deal file, the schedule as data and the manifest."""
    from day60 import render

    html = render.html("schedule.html.j2", {"s": schedule})
    written_at = written_at or now()
    out = [(SOURCES["deal"], deal_bytes, "the deal file the schedule was filled from", "Source"),
           (SCHEDULE_JSON, _data(schedule, default=str), "the schedule as data", "Data"),
           (MANIFEST, manifest("schedule", None, signer, tsa, written_at), "what this document is and how it was made",
            "Data")]
    return Document("schedule", html, out, schedule, written_at)


# ----- a drills sheet --------------------------------------------------------------------------------


def drills_document(result: dict[str, Any], observations_bytes: bytes, signer: dict[str, str] | None = None,
                    tsa: str | None = None, written_at: str | None = None) -> Document:
    """The drills sheet: embeds the observations, the drill scores as data and the manifest."""
    from day60 import render

    html = render.html("drills.html.j2", {"r": result})
    written_at = written_at or now()
    out = [(SOURCES["observations"], observations_bytes, "the drill observations scored", "Source"),
           (DRILLS_JSON, _data(result), "the drill scores as data, unrounded", "Data"),
           (MANIFEST, manifest("drills", None, signer, tsa, written_at), "what this document is and how it was made",
            "Data")]
    return Document("drills", html, out, result, written_at)


# ----- the PDF ---------------------------------------------------------------------------------------


def pdf_bytes(document: Document, note_fonts: bool = True) -> tuple[bytes, int]:
    """The document as PDF/A-3b with its attachments; the bytes and the page count (``note_fonts``:
    tell characters no installed font draws; off when re-rendering to verify, which writes nothing)."""
    import datetime as dt

    from day60 import render

    return render.pdf_bytes(document.html, document.attachments, dt.datetime.fromisoformat(document.written_at),
                            note_fonts=note_fonts)


def finish(raw: bytes, signer: Any = None, tsa: str | None = None) -> bytes:
    """Sign (with a signature timestamp when ``tsa`` is given: PAdES B-T), or with ``tsa`` alone
    add a document timestamp. Any failure raises before anything is written."""
    if signer is None and tsa is None:
        return raw
    from day60.evidence import sign, timestamp

    stamper = timestamp.UrlTimeStamper(tsa) if tsa else None
    try:
        if signer is not None:
            return sign.sign(raw, signer, stamper)
        return sign.timestamp_document(raw, stamper)
    except InputError:
        raise
    except Exception as exc:  # pyHanko's own faults, in one line
        cause = exc.__cause__ if isinstance(exc.__cause__, InputError) else None
        if cause is not None:
            raise cause from None
        raise InputError("--sign" if signer is not None else "--tsa",
                         f"the report could not be signed or timestamped ({type(exc).__name__}: {str(exc)[:100]})",
                         "nothing was written; check the key and the timestamp authority") from None

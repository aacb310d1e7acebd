"""HTML and PDF from the templates in ``templates/``: Jinja2 with autoescaping, WeasyPrint with
a URL fetcher that serves only the toolkit's own template assets.

User text (a partner's name, an element note) can never make the renderer read a file or reach
the network: it is escaped into the HTML, and any URL other than ``day60-asset:`` is refused.
"""

from __future__ import annotations

import functools
import mimetypes
import threading
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup

from day60 import __version__, display, permissions
from day60.resources import data_dir

ASSET_SCHEME = "day60-asset:"


def _html_text(value: Any) -> Any:
    """Every value printed into HTML has its direction controls shown as visible escapes, so a
    name holding U+202E cannot draw the text after it backwards (markup the toolkit built itself,
    such as the timeline's SVG, gets the same, escaped as markup)."""
    if isinstance(value, Markup):
        return Markup(display.visible(str(value), markup=True))
    return display.visible(value) if isinstance(value, str) else value


@functools.cache
def environment(markdown: bool = False) -> jinja2.Environment:
    """The one Jinja2 environment (HTML, or Markdown) of this process: its templates are compiled
    once and kept, and a template file changed on disk is compiled again (Jinja2 checks)."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(data_dir("templates")),
        # HTML is always autoescaped; Markdown gets its own escaping of every printed value.
        autoescape=not markdown,
        finalize=display.markdown_text if markdown else _html_text,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters.update(num=display.num, stat=display.stat, percent=display.percent, parts=display.parts,
                       missing=display.missing, breakable=display.breakable, when=display.when,
                       kindwords=display.kind_words,
                       sided=display.sided, plain_number=display.plain_number)
    env.globals.update(toolkit_version=__version__, line_figure=display.line_figure,
                       line_target=display.line_target, chart_rows=display.chart_rows, pdf_rows=display.PDF_ROWS,
                       trend_chart=display.trend_chart, bar_chart=display.bar_chart,
                       section_summary=display.section_summary, plural=display.plural, missing=display.missing,
                       nothing_earned=display.nothing_earned,
                       drill_sheet=display.drill_sheet, drill_words=display.drill_words, fit=display.fit)
    return env


def html(template: str, context: dict[str, Any]) -> str:
    """Render a template (HTML, or Markdown for ``*.md.j2``) to a string."""
    return environment(markdown=template.endswith(".md.j2")).get_template(template).render(**context)


# The shared libraries WeasyPrint opens (weasyprint/text/ffi.py), each under the soname Linux
# distributions ship it as, with the names WeasyPrint asks ctypes for in turn.
_LIBRARIES = {
    "libgobject-2.0.so.0": ("libgobject-2.0-0", "gobject-2.0-0", "gobject-2.0"),
    "libpango-1.0.so.0": ("libpango-1.0-0", "pango-1.0-0", "pango-1.0"),
    "libharfbuzz.so.0": ("libharfbuzz-0", "harfbuzz", "harfbuzz-0.0"),
    "libharfbuzz-subset.so.0": ("libharfbuzz-subset-0", "harfbuzz-subset", "harfbuzz-subset-0.0"),
    "libharfbuzz-vector.so.0": ("libharfbuzz-vector-0", "harfbuzz-vector", "harfbuzz-vector-0.0"),
    "libfontconfig.so.1": ("libfontconfig-1", "fontconfig-1", "fontconfig"),
    "libpangoft2-1.0.so.0": ("libpangoft2-1.0-0", "pangoft2-1.0-0", "pangoft2-1.0"),
}


_IMPORTING = threading.Lock()  # one swap of ctypes.util.find_library at a time (see _import_weasyprint)


@functools.cache
def _import_weasyprint() -> None:
    """Import WeasyPrint, telling ctypes first where the libraries it needs are.

    WeasyPrint asks ``ctypes.util.find_library`` for each library under names meant for several
    platforms, and on Linux every name not found costs child processes (ldconfig, gcc, ld):
    about fifty before the first page, some 0.3 s of a PDF command. A library the dynamic loader
    opens under its usual soname is answered here, so WeasyPrint loads that same file; any other
    name, and a library not found so, is looked up by ctypes as before.

    The swap is made under a lock: two threads making their first PDF at once would otherwise
    each keep the other's stand-in as "the original", and the last to finish would leave it in
    place for the rest of the process."""
    with _IMPORTING:
        _import_with_sonames()


def _import_with_sonames() -> None:
    import sys

    if "weasyprint" in sys.modules or not sys.platform.startswith("linux"):
        import weasyprint
        return
    import ctypes
    import ctypes.util

    known: dict[str, str] = {}
    for soname, names in _LIBRARIES.items():
        try:
            ctypes.CDLL(soname)
        except OSError:
            continue
        known.update(dict.fromkeys(names, soname))
    original = ctypes.util.find_library
    ctypes.util.find_library = lambda name: known.get(name) or original(name)
    try:
        import weasyprint  # noqa: F401
    finally:
        ctypes.util.find_library = original


def _fetcher() -> Any:
    _import_weasyprint()
    from weasyprint.urls import URLFetcher, URLFetcherResponse

    root = data_dir("templates").resolve()

    class OwnAssets(URLFetcher):
        """Serves files under templates/ for day60-asset: URLs; refuses everything else."""

        def fetch(self, url: str, headers: Any = None) -> Any:
            if not url.startswith(ASSET_SCHEME):
                raise ValueError(f"refused to fetch {url!r}: only the toolkit's own assets are served")
            path = (root / url[len(ASSET_SCHEME):].lstrip("/")).resolve()
            if root not in path.parents or not path.is_file():
                raise ValueError(f"refused to fetch {url!r}: not a toolkit asset")
            mime = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
            return URLFetcherResponse(url, body=path.read_bytes(), headers={"Content-Type": mime})

    return OwnAssets()


def pdf_bytes(html_text: str, attachments: list[tuple[str, bytes, str, str]] | None = None,
              written_at: Any = None, note_fonts: bool = True) -> tuple[bytes, int]:
    """``html_text`` as PDF bytes and its page count. With ``attachments`` ((name, bytes,
    description, relationship) each, relationship Source or Data) the file is PDF/A-3b with them
    embedded as associated files, so the report carries the inputs it was computed from (PDF/A-1
    and A-2 would drop or break them), dated ``written_at`` (an aware datetime; default now). The same
    HTML, attachments and date give the same bytes. With ``note_fonts``, characters no installed
    font can draw are told as a note (day60.errors.Note), since the PDF prints them as boxes."""
    import logging

    if note_fonts:
        _note_fonts(html_text)

    _import_weasyprint()
    from weasyprint import HTML, Attachment

    logging.getLogger("weasyprint").setLevel(logging.ERROR)  # refused fetches are expected, not news
    document = HTML(string=html_text, base_url=ASSET_SCHEME + "/", url_fetcher=_fetcher()).render()
    options: dict[str, Any] = {}
    if attachments:
        options = {"pdf_variant": "pdf/a-3b", "attachments": [
            Attachment(string=body, name=name, description=what, relationship=rel, created=written_at,
                       modified=written_at)
            for name, body, what, rel in attachments]}
    return document.write_pdf(**options), len(document.pages)


def _note_fonts(html_text: str) -> None:
    import warnings

    from day60 import glyphs
    from day60.errors import Note

    text = glyphs.note(html_text)
    if text:
        warnings.warn(Note(text), stacklevel=3)


# Seconds the parent waits for the child beyond twice its own rendering time, before it kills the
# child and renders the child's share itself (a demo's four documents take the child about 1 s).
CHILD_GRACE = 30.0

PdfJob = tuple[str, "list[tuple[str, bytes, str, str]] | None", Any]  # html, attachments, written_at


def pdf_bytes_many(jobs: list[PdfJob]) -> list[tuple[bytes, int]]:
    """Several documents' PDFs, each exactly as ``pdf_bytes`` makes it, in the order given.

    On a Linux machine with two cores or more the work is shared with one forked child process
    (WeasyPrint holds one core per process): the child renders about half, by the size of the
    HTML, and sends its bytes back through a pipe; the parent renders the rest. The bytes are
    the same as rendering one by one. If the child fails for any reason (it cannot be started,
    it dies, it sends anything but its share whole), the parent renders the child's share itself,
    so a failure costs time, never a document: a child that has not sent its share
    ``CHILD_GRACE`` seconds (plus twice the parent's own rendering time) after the parent finished
    is killed, since one that never finishes (a lock another thread held at the fork, say) would
    otherwise keep the parent waiting for ever. A job with attachments but no ``written_at`` is
    dated once, at the start, so its bytes do not depend on which process rendered it, or when.
    Whatever happens to the parent (an error, Ctrl-C, a kill), the child does not outlive it."""
    import os
    import sys
    import time

    for job in jobs:  # told here, once, never from the child
        _note_fonts(job[0])
    if any(attachments and written_at is None for _html, attachments, written_at in jobs):
        now = _now()
        jobs = [(page, attachments, now if attachments and written_at is None else written_at)
                for page, attachments, written_at in jobs]
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1
    if len(jobs) < 2 or cores < 2 or not sys.platform.startswith("linux"):
        return [pdf_bytes(*job, note_fonts=False) for job in jobs]
    mine: list[int] = []
    theirs: list[int] = []
    weight = [0, 0]
    for i in sorted(range(len(jobs)), key=lambda k: -len(jobs[k][0])):  # largest first, to the lighter side
        side = 0 if weight[0] <= weight[1] else 1
        (mine if side == 0 else theirs).append(i)
        weight[side] += len(jobs[i][0])
    child = _Child()
    try:
        child.start(theirs, jobs)
        started = time.monotonic()
        results = {i: pdf_bytes(*jobs[i], note_fonts=False) for i in mine}
        theirs_done = child.collect(within=CHILD_GRACE + 2 * (time.monotonic() - started))
    except BaseException:
        child.stop()
        raise
    results.update(theirs_done or {i: pdf_bytes(*jobs[i], note_fonts=False) for i in theirs})
    return [results[i] for i in range(len(jobs))]


def _now() -> Any:
    """The instant WeasyPrint itself would date an attachment given none (its local time)."""
    import datetime as dt

    return dt.datetime.now()


class _Child:
    """A forked child rendering a share of the jobs, sent back whole through a pipe, and the
    parent's end of it: collected once (``collect``), or stopped (``stop``), and reaped either way,
    exactly once, so that no pid is signalled after it was reaped (it may be another process's
    by then)."""

    def __init__(self) -> None:
        self.pid: int | None = None
        self.read_end: int | None = None
        self.indexes: list[int] = []

    def start(self, indexes: list[int], jobs: list[PdfJob]) -> None:
        """Fork the child rendering ``jobs[i]`` for each of ``indexes``. Where no child can be
        started (no process or memory left for one, no pipe), nothing is: ``collect`` then gives
        None and the parent renders the share itself."""
        import os
        import pickle

        self.indexes = list(indexes)
        try:
            read_end, write_end = os.pipe()
        except OSError:
            return
        parent, prctl = os.getpid(), _parent_death()
        try:
            pid = os.fork()
        except OSError:
            os.close(read_end)
            os.close(write_end)
            return
        if pid:  # the parent: the child is known before anything else can happen
            self.pid, self.read_end = pid, read_end
            os.close(write_end)
            return
        code = 1  # the child: render, send, and leave without running the parent's exit handlers
        try:
            os.close(read_end)
            _die_with(parent, prctl)
            body = pickle.dumps({i: pdf_bytes(*jobs[i], note_fonts=False) for i in indexes})
            with os.fdopen(write_end, "wb") as fh:
                fh.write(body)
            code = 0
        finally:
            os._exit(code)

    def collect(self, within: float | None = None) -> dict[int, tuple[bytes, int]] | None:
        """The child's share ({index: (bytes, pages)}), or None if it failed, sent anything else,
        or did not send it within ``within`` seconds (then it is killed); it is reaped either way."""
        if self.pid is None:
            return None
        body = None
        try:
            body = self._receive(within)
        finally:
            status = self._end(kill=body is None)  # out of time, or interrupted: it must end before it is reaped
        if body is None or status != 0 or not body:
            return None
        return _share(body, self.indexes)

    def stop(self) -> None:
        """Kill and reap the child, if it is still ours (the parent failed or was interrupted)."""
        if self.pid is not None:
            self._end(kill=True)

    def _receive(self, within: float | None) -> bytes | None:
        """Everything the child sends until it closes the pipe, or None once ``within`` seconds
        have passed (poll, not select: the pipe's descriptor may be above select's limit)."""
        import os
        import select
        import time

        deadline = None if within is None else time.monotonic() + within
        waiting = select.poll()
        waiting.register(self.read_end, select.POLLIN)
        parts = []
        while True:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            if not waiting.poll(None if left is None else left * 1000):
                return None
            part = os.read(self.read_end, 1 << 20)
            if not part:
                return b"".join(parts)
            parts.append(part)

    def _end(self, kill: bool) -> int | None:
        """Kill the child if told to, close the pipe and reap it; its wait status (None if it was
        not ours to reap). The kill is SIGKILL, not SIGTERM: a stopped child keeps a SIGTERM
        pending, and the wait would then never end."""
        import contextlib
        import os
        import signal

        pid, self.pid = self.pid, None
        if pid is None:
            return None
        if kill:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        if self.read_end is not None:
            os.close(self.read_end)
            self.read_end = None
        try:
            return os.waitpid(pid, 0)[1]
        except ChildProcessError:
            return None  # reaped by someone else (a handler of SIGCHLD): nothing to wait for
        except KeyboardInterrupt:  # Ctrl-C again while waiting: the child still does not outlive this
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)
            raise


def _share(body: bytes, indexes: list[int]) -> dict[int, tuple[bytes, int]] | None:
    """The child's share from what it sent, or None unless it is exactly that share: a PDF's
    bytes and page count for each index it was given, and nothing else."""
    import pickle

    try:
        found = pickle.loads(body)  # from our own child, over a pipe only the two of us hold
    except Exception:
        return None
    if not isinstance(found, dict) or sorted(found) != sorted(indexes):
        return None
    for value in found.values():
        if not (isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], bytes)
                and isinstance(value[1], int) and not isinstance(value[1], bool)):
            return None
    return found


def _parent_death() -> Any:
    """The system call that has the kernel kill this process when its parent ends, or None;
    looked up before the fork, so that the child does not load a library (and wait on a lock some
    thread of the parent held at the fork)."""
    import ctypes

    try:
        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None


def _die_with(parent: int, prctl: Any) -> None:
    """In the child: be killed when the parent ends, however it ends (SIGKILL and the
    out-of-memory killer run none of its handlers), so that a child that hangs is never left
    behind; and leave at once if the parent is gone already."""
    import os
    import signal

    if prctl is not None:
        prctl(1, int(signal.SIGKILL), 0, 0, 0)  # PR_SET_PDEATHSIG
    if os.getppid() != parent:
        os._exit(1)


def pdf(html_text: str, out: str | Path, field: str = "--pdf",
        attachments: list[tuple[str, bytes, str, str]] | None = None) -> int:
    """Write ``html_text`` as a PDF (to a temporary file, then renamed); returns the page count."""
    from day60.files import write_atomic

    body, pages = pdf_bytes(html_text, attachments)
    write_atomic(out, body, field)
    return pages


def score_html(journal: Any, figures: Any, score: dict[str, Any], title: str = "Day-60 exercise score",
               reconcile: dict[str, Any] | None = None) -> str:
    """The score document: cover, timeline, line table, figures, corrections, inputs, and, given
    ``reconcile`` (``assess.Assessed.reconciliation``), the supplier's own durations beside ours."""
    from day60.timeline import svg

    header = journal.header
    # Who wrote each line, shown beside the times a reader checks (a line the toolkit wrote has no author).
    authors = {e["seq"]: {"kind": e["kind"], "by": display.author(e.get("by"), header)} for e in journal.events}
    drift_authors: dict[str, list[tuple[int, str, str]]] = {}
    for e in journal.events:
        if e["kind"] in ("drift.onset", "drift.detected", "drift.notice") and e.get("by"):
            drift_authors.setdefault(e["id"], []).append((e["seq"], e["kind"].split(".")[1],
                                                          display.author(e["by"], header)))
    return html("score.html.j2", {
        "title": title, "header": header, "score": score, "figures": figures.summary, "authors": authors,
        "drift_authors": drift_authors,
        "synthetic": bool(header.get("synthetic")),
        # a correction claimed and not accepted moves no time on the drawing either (as in the figures)
        "timeline_svg": svg(permissions.in_force(journal.events), journal.calendar(), header["window"]),
        "reconcile": reconcile,
    })


def portfolio_html(rows: list[dict[str, Any]], refused: list[dict[str, Any]], provenance: dict[str, Any]) -> str:
    """Many exercises: a table per supplier and its trends across exercises."""
    from day60.portfolio import words

    suppliers: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        suppliers.setdefault(row["supplier"], []).append(row)
    return html("portfolio.html.j2", {"rows": rows, "suppliers": suppliers, "refused": refused,
                                      "synthetic": sum(1 for r in rows if r["synthetic"]),
                                      "provenance": provenance, "w": words})


def compare_html(comparison: dict[str, Any], provenance: dict[str, Any]) -> str:
    """Two exercises of one deployment side by side."""
    from day60.portfolio import words

    synthetic = comparison["old"]["synthetic"] or comparison["new"]["synthetic"]
    return html("compare.html.j2", {"c": comparison, "synthetic": synthetic, "provenance": provenance, "w": words})


def docx(schedule: dict[str, Any], out: str | Path, field: str = "--docx", *, language: str,
         written_at: str | None = None) -> None:
    """Write the clause schedule as an editable Word file (``docx_bytes``) to ``out``."""
    from day60.files import write_atomic

    write_atomic(out, docx_bytes(schedule, language=language, written_at=written_at), field)


def docx_bytes(schedule: dict[str, Any], *, language: str, written_at: str | None = None) -> bytes:
    """The clause schedule as an editable Word file from templates/schedule.docx (docxtpl).
    Text is XML-escaped; clauses and their paragraphs are numbered by Word's own list numbering.
    ``language`` is the English Word spell-checks it in (the clause library's); ``written_at`` the export's run time
    (ISO 8601 with its offset, as the PDF's manifest records it; default now)."""
    import datetime as dt
    import io

    from docxtpl import DocxTemplate

    from day60.wordfile import finish

    template = DocxTemplate(data_dir("templates") / "schedule.docx")
    # Parameter names go in as they are, with no invisible break points (a search for one must find
    # it): the template's parameter column is wide enough for the longest name the library has.
    shown = display.visible_all(schedule)
    banner = "DRAFT" if schedule["draft"] else ("SYNTHETIC" if schedule["synthetic"] else "")
    template.render({"s": shown, "toolkit_version": __version__, "banner": banner}, autoescape=True)
    when = dt.datetime.fromisoformat(written_at) if written_at else dt.datetime.now(dt.UTC)
    finish(template.docx, shown, language, when if when.tzinfo else when.replace(tzinfo=dt.UTC),
           f"day60 {__version__}")
    buffer = io.BytesIO()
    template.save(buffer)
    return buffer.getvalue()

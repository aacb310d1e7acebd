import contextlib
import fcntl
import gc
import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings
from typer.testing import CliRunner

from day60.cli import app
from tests.budget import PROFILE


def _command_built_once() -> None:
    """typer's CliRunner builds the whole click command tree from ``day60.cli.app`` at every
    ``invoke`` (about 11 ms: every command's signature and type hints read again), and the suite
    invokes the CLI in-process thousands of times. A click command is made to be invoked again and
    again, as the console script's one process does; so the tree is built once a test process and
    every invocation of ``app`` gets it. Any other Typer (the lean app of test_startup) is built
    as before."""
    import typer.testing

    built: list[object] = []
    real = typer.testing._get_command

    def get_command(given):
        if given is not app:
            return real(given)
        if not built:
            built.append(real(given))
        return built[0]

    typer.testing._get_command = get_command


_command_built_once()

# Hypothesis profiles. "ci" (the default, what .ci/run and a plain pytest use) draws the same
# examples on every run, so a red build is reproducible and never a roll of the dice; "explore"
# draws new ones each run, and ten times as many (tests/budget.py), for looking for new failures:
# HYPOTHESIS_PROFILE=explore pytest. No deadline in either: a loaded two-core machine must not
# turn a slow example into a failure.
settings.register_profile("ci", derandomize=True, deadline=None, database=None, print_blob=True)
settings.register_profile("explore", deadline=None, print_blob=True)
settings.load_profile(PROFILE)


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> None:
    """One worker a core and one more (pytest-xdist's ``-n``, work stealing) unless the command
    line says otherwise. The browser tests spend most of their time waiting on a page or a
    server's deadline; with a worker a core, a core sat idle through each wait (measured on two
    cores: 391 s with two workers, 357 s with three, the cores busy throughout). The quick lane
    (``-m "not slow"``) has no browser test and so no such waits: there a third worker only adds
    its start-up (61 s with two workers, 70 s with three), so it keeps a worker a core.

    Set here rather than in ``addopts``, so that ``pytest -p no:xdist`` (no xdist at all),
    ``pytest -n 0`` and ``pytest --pdb`` still run: with ``-n`` in ``addopts`` the first
    stops on an unknown option. This runs before xdist's own hook, which then reads it."""
    if (config.pluginmanager.hasplugin("xdist") and config.getoption("numprocesses", None) is None
            and not config.getoption("usepdb", False) and "PYTEST_XDIST_WORKER" not in os.environ):
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
        quick = "not slow" in (config.getoption("markexpr", "") or "")
        config.option.numprocesses = cores if quick else cores + 1
        if config.getoption("dist", "no") == "no":  # idle workers take tests queued on a busy one:
            config.option.dist = "worksteal"        # the few long tests no longer finish the run alone


# The index key (day60/journal/index.py keeps it in $XDG_STATE_HOME/day60/index.key) lives in a
# folder of the run's own, never in the developer's ~/.local/state: the suite must not write into
# anyone's home, and must pass where HOME cannot be written. The first process of a run (the xdist
# controller, or the only process with -n 0) makes the folder and names it twice in os.environ; its
# workers and every subprocess a test starts inherit both. A worker that finds the two names equal
# keeps the run's folder; an XDG_STATE_HOME set by anyone else (the developer's own) is replaced.
# A test that needs a key of its own, or none, still sets XDG_STATE_HOME with monkeypatch.
_RUN_STATE = "DAY60_TEST_RUN_STATE_HOME"
_made_state: str | None = None


# Python's cyclic garbage collector, as a test process runs it. A test process holds a large heap
# for the whole run (the toolkit, WeasyPrint, pandas, Playwright, every collected test) and makes
# millions of short-lived objects (WeasyPrint's boxes, pandas' frames); with the default thresholds
# it ran about ten thousand collections, each walking that heap, for 9% of the CPU of the heaviest
# modules (measured: 8.5 of 91.8 CPU s in the engine, evidence-attack, Word-schedule, evidence-check
# and clause modules, one process). So a collection waits for 20,000 new objects, not 700, and what
# collection made is frozen out of every later collection: the same modules then took 1.9 s in 167
# collections, and 85.6 CPU s. Garbage is still collected; only the commands a test starts keep
# Python's defaults, as a user's do.
GC_THRESHOLDS = (20_000, 20, 50)


def pytest_configure(config: pytest.Config) -> None:
    global _made_state
    gc.set_threshold(*GC_THRESHOLDS)
    ours = os.environ.get(_RUN_STATE)
    if ours and os.environ.get("XDG_STATE_HOME") == ours and os.path.isdir(ours):
        return
    _made_state = tempfile.mkdtemp(prefix="day60-test-state-")
    os.environ[_RUN_STATE] = os.environ["XDG_STATE_HOME"] = _made_state
    if os.environ.pop("PYTHONDONTWRITEBYTECODE", None):
        # With bytecode writing off, each of the few hundred commands the tests start compiled
        # the toolkit's modules again (a tenth of a second each), and each worker rewrote every
        # test module's asserts. The run's processes keep their bytecode in the run's own folder
        # instead, removed with it: still nothing is written into the checkout.
        os.environ["PYTHONPYCACHEPREFIX"] = os.path.join(_made_state, "pycache")


def pytest_unconfigure(config: pytest.Config) -> None:
    if _made_state is not None:
        shutil.rmtree(_made_state, ignore_errors=True)


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session: pytest.Session) -> None:
    """What collection made (the modules, the tests, their parameters) lives to the end of the
    run: frozen, no later collection walks it again (``GC_THRESHOLDS``)."""
    gc.collect()
    gc.freeze()


def slow_entries() -> set[str]:
    """What tests/slow.txt names: modules (``tests/x.py``) and test functions (``tests/x.py::name``)."""
    lines = (Path(__file__).parent / "slow.txt").read_text(encoding="utf-8").splitlines()
    return {line.strip() for line in lines if line.strip() and not line.startswith("#")}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark ``slow`` what tests/slow.txt names, and every test that drives a browser (the
    ``browser`` fixture), so ``pytest -m "not slow"`` is the quick lane: a new browser module is
    left out of it without anyone remembering to list it (one was not, and the lane grew by 15 s)."""
    slow = slow_entries()
    root = Path(__file__).parent.parent
    for item in items:
        module = item.path.relative_to(root).as_posix() if item.path.is_relative_to(root) else str(item.path)
        if module in slow or f"{module}::{item.originalname}" in slow or "browser" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.slow)
    # The modules that drive a browser go first, each kept whole. Their tests spend most of their
    # time waiting (for a page, a server's deadline, a retry's back-off), and run last, as their
    # names once put them, they ended the run with the cores idle; run first, their waits overlap
    # the tests that need the CPU, and the run ends on short tests any worker can take.
    waiting = {item.path for item in items if "browser" in getattr(item, "fixturenames", ())}
    items.sort(key=lambda item: item.path not in waiting)


@pytest.fixture
def no_key(tmp_path, monkeypatch) -> Path:
    """A home where no index key can be kept (a read-only home, a locked-down service account):
    XDG_STATE_HOME under a regular file, so the key's folder cannot be made, even by root, whom
    a read-only mode does not stop. Appends then keep no index, and say so."""
    from day60.journal import index

    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the state folder would be\n")
    monkeypatch.setenv("XDG_STATE_HOME", str(blocker / "state"))
    assert index._key() is None
    return blocker


@pytest.fixture
def run():
    """Invoke the CLI in-process; returns click's Result (exit_code, stdout, stderr)."""
    runner = CliRunner()

    def _run(*args, **kwargs):
        return runner.invoke(app, [str(a) for a in args], **kwargs)

    return _run


def shared_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One folder for the whole run: under xdist every worker has its own basetemp inside one run
    folder, so the run folder is shared by the workers; without xdist the basetemp is this run's own."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


@contextlib.contextmanager
def made_once(tmp_path_factory: pytest.TempPathFactory, name: str) -> Iterator[tuple[Path, bool]]:
    """``(folder, made)`` for a session artefact the workers of one run share: the first worker to
    get here holds a lock while it makes the artefact in ``folder`` (``made`` is False: make it
    now); the others wait on the lock and get the same folder with ``made`` True. The marker that
    says it is made is written only when the block ends without an exception, so a failed making
    is tried again by the next worker (and fails there too, in its own test) rather than handed
    on half made. The artefacts are read only: what one worker changed another would read."""
    folder = shared_folder(tmp_path_factory) / name
    folder.mkdir(exist_ok=True)
    with open(folder / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        made = (folder / ".made").exists()
        yield folder, made
        if not made:
            (folder / ".made").touch()


@pytest.fixture(scope="session")
def demo_run(tmp_path_factory) -> tuple[Path, str]:
    """What ``day60 demo --out DIR`` writes (the journal, its figures and score, the five PDFs)
    and what it says (its standard output), made once per run and shared by the test processes:
    a test only reads them. A test that writes into the demo's folder (as ``demo`` run again there
    does) copies it first (``demo_copy``)."""
    with made_once(tmp_path_factory, "demo-shared") as (folder, made):
        out = folder / "demo"  # a folder named "demo": see tests/test_letters.py
        said = folder / "demo-stdout.txt"
        if not made:
            result = CliRunner().invoke(app, ["demo", "--out", str(out)])
            assert result.exit_code == 0, result.output
            said.write_text(result.stdout, encoding="utf-8")
    return out, said.read_text(encoding="utf-8")


@pytest.fixture(scope="session")
def demo_folder(demo_run) -> Path:
    """The demo's folder (``demo_run``), to read."""
    return demo_run[0]


@pytest.fixture
def demo_copy(demo_folder, tmp_path) -> Path:
    """This test's own copy of the shared demo folder, to change as it likes."""
    return Path(shutil.copytree(demo_folder, tmp_path / "demo", symlinks=True))


@pytest.fixture
def pipe():
    """A prompt_toolkit pipe input made current, so questionary prompts read from it."""
    from prompt_toolkit.application import create_app_session
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    with create_pipe_input() as inp, create_app_session(input=inp, output=DummyOutput()):
        yield inp


CHROMIUM = "/usr/bin/chromium"  # Debian's Chromium: the tests never download a browser
CHROMIUM_ARGS = ["--no-sandbox", "--disable-background-networking", "--disable-component-update"]
# Chromium 156 makes, for every window (each browser context is one), the address bar's drop-down
# as a web page of its own in a renderer of its own, which no headless test ever opens: measured
# on the browser modules, a hundred such renderers and two fifths of Chromium's CPU (229 CPU s
# for the modules, 162 without). The first two features turn it off. The third stops Chromium
# starting a spare renderer ahead of each navigation, most of which a short test never used
# (renderers 254 -> 152, the modules 162 -> 157 CPU s).
UNUSED_FEATURES = ("WebUIOmniboxPopup", "WebUIOmniboxAimPopup", "SpareRendererForSitePerProcess")


def home_of_its_own(home: Path) -> dict[str, str]:
    """The environment for a program the tests start (Chromium, LibreOffice) that keeps settings,
    caches and crash reports under ``home`` instead of the user's: both wrote into ~/.config and
    ~/.cache (dconf), and the suite writes nothing into anyone's home."""
    home.mkdir(parents=True, exist_ok=True)
    return {**os.environ, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
            "XDG_CACHE_HOME": str(home / ".cache"), "XDG_DATA_HOME": str(home / ".local" / "share")}


@pytest.fixture
def own_home(tmp_path) -> dict[str, str]:
    """``home_of_its_own`` for a program one test starts: a home in the test's own folder."""
    return home_of_its_own(tmp_path / "home")


def _descendants_command_lines(root: int) -> list[list[str]]:
    """The command lines of every process descended from ``root`` (Linux's /proc)."""
    try:
        entries = os.listdir("/proc")
    except OSError:  # no /proc (not Linux): no command line can be read
        return []
    parent: dict[int, int] = {}
    for entry in entries:
        if entry.isdigit():
            with contextlib.suppress(OSError, ValueError, IndexError):
                stat = Path(f"/proc/{entry}/stat").read_text()
                parent[int(entry)] = int(stat[stat.rindex(")") + 2:].split()[1])
    ours, found = {root}, True
    while found:
        found = {pid for pid, up in parent.items() if up in ours and pid not in ours}
        ours |= found
    lines = []
    for pid in sorted(ours - {root}):
        with contextlib.suppress(OSError):
            lines.append(Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace").split("\0"))
    return lines


def _disabled_features(playwright, env: dict[str, str]) -> list[str]:
    """The features Playwright turns off in the Chromium it launches, read off that Chromium's
    command line, and ``UNUSED_FEATURES``. Chromium heeds only the last ``--disable-features``
    it is given, and Playwright passes its own list (search-engine preconnects, HTTPS upgrades,
    the media router...) before a test's arguments; a list of ours alone would switch those back
    on. So a first Chromium is started to read Playwright's list, and the browser the tests use
    is given both. Where the list cannot be read (no /proc), Playwright's stands alone."""
    probe = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS, env=env)
    try:
        given = [arg.split("=", 1)[1].split(",") for line in _descendants_command_lines(os.getpid())
                 if "--remote-debugging-pipe" in line for arg in line if arg.startswith("--disable-features=")]
    finally:
        probe.close()
    return list(dict.fromkeys([*given[-1], *UNUSED_FEATURES])) if given else []


PATIENCE_MS = 60_000  # how long a page may take to show what a test waits for: matters only on a failure


def _patient(make):
    """``make`` (a browser's new_context or new_page), whose context or page waits up to
    ``PATIENCE_MS`` for what it is told to wait for, instead of Playwright's 30 s."""

    def made(*args, **kwargs):
        thing = make(*args, **kwargs)
        thing.set_default_timeout(PATIENCE_MS)
        return thing

    return made


@contextlib.contextmanager
def _browser_loop(browser) -> Iterator[None]:
    """Playwright's asyncio loop marked as this thread's running loop while the block runs.

    Playwright's synchronous API runs its loop in a greenlet and leaves the loop marked as the
    thread's running loop between calls, for as long as the browser is open; the process's browser
    (``chromium``) stays open from the first browser test to the end of the run. Anything else
    that starts an event loop of its own (``asyncio.run``: prompt_toolkit's prompts, pyHanko's
    timestamp client, in a test or in a session fixture made after a browser test) was then refused
    with "cannot be called from a running event loop", as a user's process never is. So the mark is
    taken off once the browser is up, and put back only where the browser is driven: a browser
    test (``browser`` asks for it), the closing of a module's pages and the browser's own end."""
    import asyncio

    before = asyncio._get_running_loop()
    asyncio._set_running_loop(browser.day60_loop)
    try:
        yield
    finally:
        asyncio._set_running_loop(before)


@pytest.fixture(scope="session")
def chromium(tmp_path_factory):
    """Debian's Chromium, headless, driven by Playwright: one a test process, since starting
    Playwright's driver and the browser costs a second or two of CPU each time and a dozen modules
    use it. Every context and page it makes waits up to a minute for an element, a condition or a
    navigation before it fails: on two cores under a load of 8 a page can take longer than
    Playwright's 30 s to show what a test waits for, and the wait ends at the event, so the
    ceiling costs nothing when all is well. Chromium keeps its crash database and settings under
    a home of the run's own (it wrote them into the user's ~/.config and ~/.cache). Tests ask for
    ``browser``, not this."""
    import asyncio

    if not os.path.exists(CHROMIUM):
        pytest.fail(f"{CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium); the browser "
                    "tests never download one")
    from playwright.sync_api import sync_playwright

    env = home_of_its_own(tmp_path_factory.mktemp("chromium-home"))
    with sync_playwright() as p:
        with made_once(tmp_path_factory, "chromium-features") as (folder, made):
            if not made:
                (folder / "disabled").write_text(",".join(_disabled_features(p, env)), encoding="utf-8")
        features = (folder / "disabled").read_text(encoding="utf-8")
        args = [*CHROMIUM_ARGS, f"--disable-features={features}"] if features else CHROMIUM_ARGS
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=args, env=env)
        b.new_context, b.new_page = _patient(b.new_context), _patient(b.new_page)
        b.day60_loop = asyncio._get_running_loop()
        asyncio._set_running_loop(None)
        try:
            yield b
        finally:
            asyncio._set_running_loop(b.day60_loop)
        b.close()


@pytest.fixture(scope="module")
def browser(chromium) -> Iterator[object]:
    """The process's browser (``chromium``) for one module: whatever pages and contexts the
    module leaves open are closed when it ends, so no module sees another's."""
    yield chromium
    with _browser_loop(chromium):
        for context in list(chromium.contexts):
            context.close()


@pytest.fixture(autouse=True)
def _browser_driven(request) -> Iterator[None]:
    """Playwright's loop marked as running through a browser test (``_browser_loop``)."""
    if "browser" not in request.fixturenames:
        yield
        return
    with _browser_loop(request.getfixturevalue("browser")):
        yield


@pytest.fixture
def engine_on_every_size(monkeypatch):
    """The engine tries every journal, however small: ``day60.reading`` gives a journal under
    ``ENGINE_FROM_BYTES`` (1 MiB) to the reference reader at once, so the tests that hold the
    engine to the reference, on journals of a few lines, must lift that size first."""
    from day60 import reading

    monkeypatch.setattr(reading, "ENGINE_FROM_BYTES", 0)


@pytest.fixture(scope="session")
def score_reports(tmp_path_factory):
    """The demo's journal (``exercise.jsonl``) scored by the toolkit's own commands, as the
    evidence and forgery modules all start from it: ``score.json`` and ``score.pdf`` (one ``day60
    score --pdf --out``), the same report signed by a "Test Auditor" (``signed.pdf``, its key
    ``auditor.p12``) and a forger's key ("Someone Else", ``forger.p12``), both under the passphrase
    ``pw``. Made once per run and shared by the test processes (``made_once``), since each render
    costs seconds: a test only reads these files; one that changes a file works on its own copy.
    At the end of each process's session every file is checked unchanged, so a test that wrote
    into them fails the run, not a later test."""
    from day60 import demo
    from tests.pki import p12

    def digests(folder: Path) -> dict[str, str]:
        return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())}

    with made_once(tmp_path_factory, "reports-shared") as (shared, ready):
        folder = shared / "reports"
        journal = folder / "exercise.jsonl"
        if not ready:
            folder.mkdir()
            demo.build_journal(journal)
            p12(folder / "auditor.p12", "Test Auditor", b"pw")
            p12(folder / "forger.p12", "Someone Else", b"pw")
            runner = CliRunner()
            for args, env in [(["score", journal, "--pdf", folder / "score.pdf", "--out", folder / "score.json"], None),
                              (["score", journal, "--pdf", folder / "signed.pdf", "--sign", folder / "auditor.p12"],
                               {"DAY60_SIGN_PASSPHRASE": "pw"})]:
                result = runner.invoke(app, [str(a) for a in args], env=env)
                assert result.exit_code == 0, result.output
            (shared / "digests.json").write_text(json.dumps(digests(folder)), encoding="utf-8")
    made = {"folder": folder, "journal": journal, "score": folder / "score.pdf", "json": folder / "score.json",
            "signed": folder / "signed.pdf", "auditor": folder / "auditor.p12", "forger": folder / "forger.p12"}
    before = json.loads((shared / "digests.json").read_text(encoding="utf-8"))  # as made, whichever process made it
    assert digests(folder) == before, "a test changed the shared score reports (tests/conftest.py): copy them first"
    yield made
    assert digests(folder) == before, "a test changed the shared score reports (tests/conftest.py): copy them first"


def _render_key(html_text: str, attachments: list[tuple[str, bytes, str, str]] | None, written_at: object) -> str:
    """What ``day60.render.pdf_bytes`` promises the same bytes for: the whole HTML, every
    attachment's name, bytes, description and relationship, and the date."""
    digest = hashlib.sha256(html_text.encode("utf-8", "surrogatepass"))
    for name, body, what, relationship in attachments or []:
        digest.update(json.dumps([name, hashlib.sha256(body).hexdigest(), what, relationship]).encode())
    digest.update(repr(written_at).encode())
    return digest.hexdigest()


@pytest.fixture(scope="session")
def _render_store(tmp_path_factory) -> Path:
    folder = shared_folder(tmp_path_factory) / "renders"
    folder.mkdir(exist_ok=True)
    return folder


@pytest.fixture(autouse=True)
def renders_once(request, _render_store, monkeypatch) -> Iterator[None]:
    """Each distinct PDF rendered once a run, however many tests need it. WeasyPrint takes a
    second or more a document, and the suite asked it for the same document (the same HTML,
    attachments and date) a hundred times over: a report verify-report renders again to compare,
    the demo's score in every module that reads it. ``day60.render.pdf_bytes`` promises the same
    bytes for the same inputs (verify-report relies on that promise), so the first rendering of
    given inputs is kept in the run's shared folder, by their SHA-256, and handed to every later
    request, in any test process. The notes of characters no font draws are still told each time.
    A document with attachments and no date (dated now) is always rendered. A test of rendering
    itself (the same bytes from a child, with or without the library answers) is marked
    ``real_renders`` and renders every time."""
    if request.node.get_closest_marker("real_renders"):
        yield
        return
    from day60 import render

    real = render.pdf_bytes

    def pdf_bytes(html_text, attachments=None, written_at=None, note_fonts=True):
        if note_fonts:
            render._note_fonts(html_text)
        if attachments and written_at is None:
            return real(html_text, attachments, written_at, note_fonts=False)
        key = _render_key(html_text, attachments, written_at)
        body, pages = _render_store / f"{key}.pdf", _render_store / f"{key}.pages"
        if pages.exists():  # written last: its presence says the PDF beside it is whole
            return body.read_bytes(), int(pages.read_text())
        made = real(html_text, attachments, written_at, note_fonts=False)
        for path, content in ((body, made[0]), (pages, str(made[1]).encode())):
            partial = path.with_name(f"{path.name}.{os.getpid()}")
            partial.write_bytes(content)
            os.replace(partial, path)
        return made

    monkeypatch.setattr(render, "pdf_bytes", pdf_bytes)
    yield

import contextlib
import fcntl
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
    """One worker a core (pytest-xdist's ``-n auto``, work stealing) unless the command line says
    otherwise.

    Set here rather than in ``addopts``, so that ``pytest -p no:xdist`` (no xdist at all),
    ``pytest -n 0`` and ``pytest --pdb`` still run: with ``-n auto`` in ``addopts`` the first
    stops on an unknown option. This runs before xdist's own hook, which then reads it."""
    if (config.pluginmanager.hasplugin("xdist") and config.getoption("numprocesses", None) is None
            and not config.getoption("usepdb", False) and "PYTEST_XDIST_WORKER" not in os.environ):
        config.option.numprocesses = "auto"
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


def pytest_configure(config: pytest.Config) -> None:
    global _made_state
    ours = os.environ.get(_RUN_STATE)
    if ours and os.environ.get("XDG_STATE_HOME") == ours and os.path.isdir(ours):
        return
    _made_state = tempfile.mkdtemp(prefix="day60-test-state-")
    os.environ[_RUN_STATE] = os.environ["XDG_STATE_HOME"] = _made_state


def pytest_unconfigure(config: pytest.Config) -> None:
    if _made_state is not None:
        shutil.rmtree(_made_state, ignore_errors=True)


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


PATIENCE_MS = 60_000  # how long a page may take to show what a test waits for: matters only on a failure


def _patient(make):
    """``make`` (a browser's new_context or new_page), whose context or page waits up to
    ``PATIENCE_MS`` for what it is told to wait for, instead of Playwright's 30 s."""

    def made(*args, **kwargs):
        thing = make(*args, **kwargs)
        thing.set_default_timeout(PATIENCE_MS)
        return thing

    return made


@pytest.fixture(scope="module")
def browser():
    """Debian's Chromium, headless, driven by Playwright: one a module. Every context and page it
    makes waits up to a minute for an element, a condition or a navigation before it fails: on
    two cores under a load of 8 a page can take longer than Playwright's 30 s to show what a test
    waits for, and the wait ends at the event, so the ceiling costs nothing when all is well."""
    if not os.path.exists(CHROMIUM):
        pytest.fail(f"{CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium); the browser "
                    "tests never download one")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        b.new_context, b.new_page = _patient(b.new_context), _patient(b.new_page)
        yield b
        b.close()


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


@pytest.fixture(scope="module")
def verify_renders_once():
    """``verify-report`` renders each report again from its embedded data and compares the file with
    that rendering. A module that verifies many forgeries of the same few reports gets that
    rendering, after its first one for given inputs, from memory: the re-rendering of identical
    inputs (the whole HTML, every attachment's name, bytes, description and relationship, and the
    date) is kept and handed back. ``day60.render.pdf_bytes`` promises the same bytes for the same
    HTML, attachments and date, and verify-report relies on that promise itself; the first
    verification of each report in the module, and every other module, renders for real. Only
    renders with ``note_fonts=False`` (verify-report's and a forger's) are kept: the commands
    that write a report always render it."""
    from day60.evidence import documents

    original = documents.pdf_bytes
    kept: dict[tuple[object, ...], tuple[bytes, int]] = {}

    def pdf_bytes(document, note_fonts: bool = True):
        if note_fonts:
            return original(document, note_fonts=note_fonts)
        key = (document.html, tuple(document.attachments), document.written_at)
        if key not in kept:
            kept[key] = original(document, note_fonts=False)
        return kept[key]

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(documents, "pdf_bytes", pdf_bytes)
        yield kept

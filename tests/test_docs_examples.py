"""Every example in the README and in docs/ runs as written, for a newcomer who installed the wheel.

The wheel is built once per test session from this checkout and installed into a fresh virtual
environment that also sees the running interpreter's packages (so nothing is downloaded, whether
the suite runs in a venv or in the system Python; the venv's own day60 comes first on its path,
ahead of any editable install of the checkout). Each Markdown file's
``sh`` and ``python`` blocks then run in order, one file to an empty folder, with that venv's
bin first on PATH: ``sh`` blocks under ``bash -e -o pipefail``, ``python`` blocks with the venv's
python. A block that fails fails the test, naming its file and line. Synopses with placeholders,
and commands that need a terminal, a server or the network, are fenced ``text`` and not run."""

from __future__ import annotations

import fcntl
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests import commandserver
from tests.docblocks import ROOT, RUN, SHOWN, blocks, markdown_files

BLOCK_TIMEOUT = 300  # seconds: a generous ceiling for one block on a loaded 2-core machine


def _shared_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One folder for the whole session: under xdist every worker has its own basetemp inside
    one run folder, so the run folder is shared; without xdist the basetemp is this run's own."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


@pytest.fixture(scope="session")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A virtual environment holding the wheel built from this checkout (built once a session,
    whichever worker gets there first; the others wait on the lock and reuse it)."""
    shared = _shared_folder(tmp_path_factory) / "docs-examples"
    shared.mkdir(exist_ok=True)
    env_dir, done = shared / "venv", shared / "ready"
    with open(shared / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not done.exists():
            dist = shared / "dist"
            subprocess.run([sys.executable, "-m", "hatchling", "build", "-t", "wheel", "-d", str(dist)], cwd=ROOT,
                           check=True, capture_output=True)
            [wheel] = dist.glob("day60-*.whl")
            subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env_dir)], check=True,
                           capture_output=True)
            _inherit_packages(env_dir)
            # The running environment's pip, run by the venv's python, installs into the venv.
            subprocess.run([str(env_dir / "bin" / "python"), "-m", "pip", "install", "-q", "--no-deps", "--no-index",
                            str(wheel)], check=True, capture_output=True, env=_clean_env(env_dir))
            _put_the_client_in_front(env_dir)
            done.touch()
    return env_dir


def _put_the_client_in_front(env_dir: Path) -> None:
    """The venv's `day60` becomes the command server's client (tests/commandserver.py), the
    installed console script kept beside it as `day60-installed`, which the client runs as it is
    wherever no server is named."""
    script = env_dir / "bin" / "day60"
    real = script.with_name("day60-installed")
    script.rename(real)
    script.write_text(commandserver.client_script(str(env_dir / "bin" / "python"), str(real)), encoding="utf-8")
    script.chmod(0o755)
    shutil.copy(commandserver.__file__, env_dir / "commandserver.py")


@pytest.fixture(scope="session")
def command_server(venv: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """This worker's command server: the installed CLI imported once, a fork of it per command."""
    folder = tmp_path_factory.mktemp("command-server")
    path = str(folder / "socket")
    proc = subprocess.Popen([str(venv / "bin" / "python"), str(venv / "commandserver.py"), path],
                            cwd=folder, env=_clean_env(venv), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=open(folder / "server.log", "wb"), text=True)  # noqa: SIM115
    try:
        line = proc.stdout.readline()
        if line.strip() != "ready":
            pytest.fail(f"the command server did not start: {(folder / 'server.log').read_text()[-2000:]}")
        yield path
    finally:
        proc.kill()
        proc.wait()


def _inherit_packages(env_dir: Path) -> None:
    """Let the new venv import what the running interpreter imports (typer, WeasyPrint, pip...),
    after its own site-packages, so nothing is downloaded and the installed wheel comes first.

    ``venv --system-site-packages`` would not do: made from inside a virtual environment (the
    README's way), it inherits the base interpreter's packages, not that environment's, and every
    example would fail on a missing typer. A ``.pth`` line runs ``site.addsitedir`` on exactly the
    running interpreter's site folders instead, in a venv or in the system Python alike."""
    import site

    folders = [f for f in [*site.getsitepackages(), site.getusersitepackages()] if Path(f).is_dir()]
    probe = "import sysconfig; print(sysconfig.get_paths()['purelib'])"
    done = subprocess.run([str(env_dir / "bin" / "python"), "-c", probe], check=True, capture_output=True, text=True,
                          env=_clean_env(env_dir))
    own = Path(done.stdout.strip())
    lines = "".join(f"import site; site.addsitedir({f!r})\n" for f in folders)
    (own / "zz-inherited-from-test-runner.pth").write_text(lines, encoding="utf-8")


def _clean_env(env_dir: Path, state: Path | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PYTHON", "DAY60_", "VIRTUAL_ENV", "PIP_"))}
    env["PATH"] = f"{env_dir / 'bin'}{os.pathsep}{os.environ.get('PATH', '/usr/bin:/bin')}"
    env["VIRTUAL_ENV"] = str(env_dir)
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    if state is not None:
        env["XDG_STATE_HOME"] = str(state)  # the index key: this test's own, not the user's
    return env


def test_the_venv_runs_the_wheel_not_the_checkout(venv, tmp_path):
    """The examples would prove nothing if `day60` resolved to the source tree: the venv's
    day60 is the installed copy, with the data folders the wheel ships."""
    code = ("import day60, day60.resources as r, shutil; "
            "print(day60.__file__); print(shutil.which('day60'))")
    done = subprocess.run(["python", "-c", code], cwd=tmp_path, env=_clean_env(venv), capture_output=True,
                          text=True, check=True)
    module, script = done.stdout.split()
    assert Path(module).resolve().is_relative_to(venv.resolve()), module
    assert Path(script).resolve().is_relative_to(venv.resolve()), script


FILES = markdown_files()


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(ROOT)) for p in FILES])
def test_every_fence_says_what_it_is(path):
    """A shell example fenced `bash`, `console` or with no language would escape the run:
    each block is an example that runs (sh, python) or says what it shows instead."""
    wrong = [f"{b.where} is fenced {b.lang or 'with no language'!r}" for b in blocks(path)
             if b.lang not in RUN + SHOWN]
    assert not wrong, "; ".join(wrong) + f": fence examples as {' or '.join(RUN)}, the rest as {', '.join(SHOWN)}"


RUNNABLE = [p for p in FILES if any(b.lang in RUN for b in blocks(p))]


@pytest.mark.parametrize("path", RUNNABLE, ids=[str(p.relative_to(ROOT)) for p in RUNNABLE])
def test_examples_run_as_written(path, venv, command_server, tmp_path):
    """Each page's commands in order in one empty folder. The README's first runnable block (a
    whole exercise from `day60 new` to its score PDF) runs as the newcomer runs it, each `day60` a
    fresh process of the installed console script, so the entry point, the wheel's imports and a
    first PDF are proven in a process of their own; every other block, the README's later ones
    included, runs through this worker's command server (tests/commandserver.py), which runs the
    same installed code and entry point, a fork a command (a fresh start each would add an
    interpreter and its imports to every command and prove nothing the first block does not)."""
    work, state = tmp_path / "work", tmp_path / "state"
    work.mkdir()
    state.mkdir()
    fresh = _clean_env(venv, state)
    served = {**fresh, commandserver.SOCKET_VARIABLE: command_server}
    for n, block in enumerate(b for b in blocks(path) if b.lang in RUN):
        env = fresh if path == ROOT / "README.md" and n == 0 else served
        argv = (["bash", "-e", "-o", "pipefail", "-c", block.code] if block.lang == "sh"
                else ["python", "-c", block.code])
        done = subprocess.run(argv, cwd=work, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                              timeout=BLOCK_TIMEOUT)
        if done.returncode != 0:
            pytest.fail(f"{block.where}: the {block.lang} block exited {done.returncode}\n--- block\n{block.code}"
                        f"--- stdout (last 3000 characters)\n{done.stdout[-3000:]}"
                        f"--- stderr (last 3000 characters)\n{done.stderr[-3000:]}", pytrace=False)


def test_ci_runs_the_readme_first_screen_as_written(tmp_path):
    """The README's first block sets up a newcomer's machine (the Debian packages the tests use,
    then a venv made and activated), its second holds the two commands (the demo, the tests).
    .ci/run reads both blocks out of README.md and runs them as they are, so CI cannot pass where
    a newcomer following the README fails: here .ci/run's own reader is run on the README and
    must give exactly the blocks a reader sees."""
    first, second = blocks(ROOT / "README.md")[:2]
    setup = first.code.splitlines()
    assert setup[0].startswith("sudo apt-get update && sudo apt-get install -y ")
    assert set(setup[0].split()[setup[0].split().index("-y") + 1:]) == {"chromium", "poppler-utils", "openssl"}
    assert setup[1] == "python3 -m venv .venv && . .venv/bin/activate"
    assert second.code.splitlines() == ["pip install . && day60 demo",
                                        "pip install -e '.[test]' && ruff check . && pytest"]
    ci = (ROOT / ".ci" / "run").read_text()
    reader = re.search(r"^readme_block\(\) \{.*?^\}$", ci, re.S | re.M)
    assert reader, ".ci/run no longer reads its commands from README.md with readme_block"
    for n, block in ((1, first), (2, second)):
        done = subprocess.run(["bash", "-c", f"{reader.group(0)}\nreadme_block {n}"], cwd=ROOT, capture_output=True,
                              text=True, check=True)
        assert done.stdout == block.code, f"CI would run other commands than the README's block {n}"
    assert re.search(r'^bash -euo pipefail -c "\$prelude\n\$setup\n\$docs\n\$demo\n\$tests"$', ci, re.M), \
        ".ci/run no longer runs the README's blocks in one shell, in order"
    assert 'tests="$(printf \'%s\\n\' "$lines" | sed -n 2p)"' in ci and "*pytest*)" in ci, \
        ".ci/run no longer runs the README's test command, or no longer checks that it runs pytest"

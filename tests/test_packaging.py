"""The wheel must carry the data folders (so a plain `pip install .` finds them) and the source
commit it was built from (so an installed copy names it in every provenance block, charter 5.5)."""

import json
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def build(root: Path, out: Path, target: str = "wheel") -> Path:
    subprocess.run([sys.executable, "-m", "hatchling", "build", "-t", target, "-d", str(out)],
                   cwd=root, check=True, capture_output=True)
    [artifact] = out.glob("day60-*.whl" if target == "wheel" else "day60-*.tar.gz")
    return artifact


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, text=True).stdout


def is_checkout(root: Path) -> bool:
    try:
        return Path(git(root, "rev-parse", "--show-toplevel").strip()).resolve() == root.resolve()
    except (OSError, subprocess.CalledProcessError):
        return False


needs_git = pytest.mark.skipif(not is_checkout(ROOT), reason="these tests build from the git checkout the suite runs "
                                                             "in; an unpacked sdist has none")


def installed_source(wheel: Path, site: Path) -> dict:
    """Unpack the wheel as pip lays out a pure-Python wheel and ask the installed copy, in a fresh
    interpreter whose path starts with it, where it came from."""
    zipfile.ZipFile(wheel).extractall(site)
    code = ("import json, day60, day60.source as s; "
            "print(json.dumps({'file': day60.__file__, **s.source()}))")
    done = subprocess.run([sys.executable, "-c", code], cwd=site.parent, capture_output=True, text=True, check=True,
                          env={"PYTHONPATH": str(site), "PATH": "/usr/bin:/bin", "HOME": str(site.parent)})
    found = json.loads(done.stdout)
    assert Path(found["file"]).resolve().is_relative_to(site.resolve()), found["file"]  # not the source tree
    return found


def test_wheel_carries_data_folders(tmp_path):
    wheel = build(ROOT, tmp_path)
    names = zipfile.ZipFile(wheel).namelist()
    for folder in ("rubric", "clauses", "selfassess", "templates", "roles"):
        shipped = [n for n in names if n.startswith(f"day60/_data/{folder}/")]
        in_repo = [p for p in (ROOT / folder).rglob("*") if p.is_file()]
        assert len(shipped) == len(in_repo), folder
    assert "day60/examples/uk-office.toml" in names
    assert "day60/imports/states.yaml" in names  # the import's state rules (resources.import_rules)


@needs_git
def test_a_wheel_names_the_commit_of_the_tree_it_was_built_from(tmp_path):
    """Built from the checkout the tests run in: the installed wheel's commit is exactly what
    `git rev-parse HEAD` prints there, and it is marked dirty exactly when `git status` lists a
    changed or untracked path. The build writes no file into the source tree."""
    head = git(ROOT, "rev-parse", "HEAD").strip()
    changed = git(ROOT, "status", "--porcelain=v1", "--untracked-files=all").strip()
    wheel = build(ROOT, tmp_path / "dist")
    found = installed_source(wheel, tmp_path / "site")
    assert found["commit"] == head and found["dirty"] is bool(changed)
    assert found["recorded"] == "recorded when this copy was built"
    assert not (ROOT / "day60" / "_build.py").exists()


@needs_git
def test_a_clean_clone_and_a_dirty_one(tmp_path):
    """A fresh clone is clean: commit = the clone's HEAD, dirty false, nothing changed. One edit
    to a tracked file, one new file, and one file git ignores (*.partial) in a data folder the wheel
    copies whole make the next build dirty, naming the three paths, with the same commit: the
    record never passes a changed tree off as the commit."""
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True, capture_output=True)
    head = git(clone, "rev-parse", "HEAD").strip()
    found = installed_source(build(clone, tmp_path / "clean"), tmp_path / "clean-site")
    assert (found["commit"], found["dirty"], found["changed"]) == (head, False, [])
    assert found["text"] == f"source commit {head} (recorded when this copy was built)"
    rubric = clone / "rubric" / "day60-v1.yaml"
    rubric.write_text(rubric.read_text() + "\n# a local edit\n")
    (clone / "day60" / "extra.py").write_text("X = 1\n")
    (clone / "rubric" / "notes.partial").write_text("shipped, though git ignores it\n")
    wheel = build(clone, tmp_path / "dirty")
    assert "day60/_data/rubric/notes.partial" in zipfile.ZipFile(wheel).namelist()
    found = installed_source(wheel, tmp_path / "dirty-site")
    assert (found["commit"], found["dirty"]) == (head, True)
    assert found["changed"] == ["day60/extra.py", "rubric/day60-v1.yaml", "rubric/notes.partial"]
    assert "with uncommitted changes to 3 path(s)" in found["text"]


@needs_git
def test_a_wheel_built_from_the_sdist_keeps_the_commit(tmp_path):
    """The sdist carries the record made from the clone; unpacked where there is no git, it builds
    a wheel that names the same commit. A copy with neither a checkout nor a record says the
    commit is unknown, never a guess."""
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True, capture_output=True)
    head = git(clone, "rev-parse", "HEAD").strip()
    sdist = build(clone, tmp_path / "sdist", "sdist")
    with tarfile.open(sdist) as tar:
        kwargs = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}  # Python 3.11.4 and later
        tar.extractall(tmp_path / "unpacked", **kwargs)
    [tree] = (tmp_path / "unpacked").iterdir()
    assert not is_checkout(tree) and (tree / "day60" / "_build.py").is_file()
    found = installed_source(build(tree, tmp_path / "from-sdist"), tmp_path / "site")
    assert (found["commit"], found["dirty"]) == (head, False)
    bare = tmp_path / "bare"
    shutil.copytree(tree / "day60", bare / "day60")
    (bare / "day60" / "_build.py").unlink()
    code = "import json, day60.source as s; print(json.dumps(s.source()))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=bare,
                          env={"PYTHONPATH": str(bare), "PATH": "/usr/bin:/bin", "HOME": str(bare)})
    found = json.loads(done.stdout)
    assert found["commit"] is None and found["text"] == "unknown (not built from a git checkout)"

"""WeasyPrint is imported without a search for libraries the dynamic loader opens directly.

Every PDF command pays for the import once; WeasyPrint's own lookup of pango, harfbuzz and
fontconfig under names for several platforms spawns ldconfig, gcc and ld for each name it does
not find. The toolkit answers the names of libraries that open under their usual soname, and
leaves every other name (a library missing here, say) to ctypes, so the same files are loaded
as WeasyPrint would load them itself."""

import subprocess
import sys

from tests.docblocks import ROOT

PROBE = """
import ctypes.util, json, sys
asked = []
real = ctypes.util.find_library
def spy(name):
    asked.append(name)
    return real(name)
ctypes.util.find_library = spy
from day60 import render
render._import_weasyprint()
from weasyprint.text import ffi
restored = ctypes.util.find_library is spy
loaded = {n: bool(getattr(ffi, n)) for n in ("gobject", "pango", "harfbuzz", "fontconfig", "pangoft2")}
opened = [so for so in render._LIBRARIES if so in open("/proc/self/maps").read()]
print(json.dumps({"asked": asked, "restored": restored, "loaded": loaded, "opened": opened}))
"""


def test_weasyprint_loads_its_libraries_without_searching_for_those_the_loader_opens():
    import json

    done = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, capture_output=True, text=True, check=True)
    seen = json.loads(done.stdout)
    assert seen["restored"], "ctypes.util.find_library is left replaced after the import"
    assert all(seen["loaded"].values()), seen["loaded"]
    from day60 import render

    opened = set(seen["opened"])
    # Only names of a library that did not open under its soname were searched for.
    searched_for = {so for so, names in render._LIBRARIES.items() if set(names) & set(seen["asked"])}
    assert not searched_for & opened, f"searched for libraries the loader opened: {searched_for & opened}"
    assert {"libpango-1.0.so.0", "libgobject-2.0.so.0", "libfontconfig.so.1"} <= opened


def _probe(code: str) -> dict:
    import json

    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


RAISES = """
import builtins, ctypes.util, json
real = ctypes.util.find_library
from day60 import render
plain_import = builtins.__import__
def refuse(name, *a, **k):
    if name == "weasyprint":
        raise OSError("cannot load library 'pango-1.0-0'")
    return plain_import(name, *a, **k)
builtins.__import__ = refuse
try:
    render._import_weasyprint()
    raised = False
except OSError:
    raised = True
builtins.__import__ = plain_import
print(json.dumps({"raised": raised, "restored": ctypes.util.find_library is real}))
"""


def test_find_library_is_given_back_when_the_import_of_weasyprint_fails():
    """A machine without pango makes WeasyPrint's import raise; the caller sees that error and
    ctypes.util.find_library is the function it was before, not the toolkit's stand-in."""
    seen = _probe(RAISES)
    assert seen == {"raised": True, "restored": True}


CONCURRENT = """
import ctypes, ctypes.util, json, threading, time
real = ctypes.util.find_library
from day60 import render
slow_open = ctypes.CDLL
def slowly(*a, **k):
    time.sleep(0.02)
    return slow_open(*a, **k)
ctypes.CDLL = slowly
errors = []
def first_pdf():
    try:
        render._import_weasyprint()
    except Exception as exc:
        errors.append(repr(exc))
a = threading.Thread(target=first_pdf)
b = threading.Thread(target=first_pdf)
a.start(); time.sleep(0.01); b.start()
a.join(); b.join()
ctypes.CDLL = slow_open
print(json.dumps({"errors": errors, "restored": ctypes.util.find_library is real}))
"""


def test_two_threads_making_their_first_pdf_at_once_leave_find_library_as_it_was():
    """Two threads importing at once (a server rendering two documents, say): without one lock
    around the swap, the second takes the first's stand-in for the original and puts it back
    last, leaving every later find_library of the process answered by the toolkit. The library
    opens are slowed to 20 ms each so that the two swaps overlap on any machine."""
    seen = _probe(CONCURRENT)
    assert seen == {"errors": [], "restored": True}


RENDER = """
import hashlib, json, sys
from pathlib import Path
from day60 import render
if sys.argv[1] == "plain":
    def plain():
        import weasyprint  # noqa: F401
    render._import_weasyprint = plain
import datetime as dt
written = dt.datetime(2026, 3, 4, 5, 6, 7, tzinfo=dt.UTC)
out = {}
for name in sys.argv[2:]:
    body, pages = render.pdf_bytes(Path(name).read_text(encoding="utf-8"), None, written)
    out[name] = [hashlib.sha256(body).hexdigest(), pages, len(body)]
print(json.dumps(out))
"""


def test_pdfs_are_byte_identical_with_and_without_the_soname_answers(demo_folder, tmp_path):
    """The same HTML and date rendered in two fresh processes, one importing WeasyPrint through
    the toolkit's answers and one letting WeasyPrint search as it does by itself, give the same
    bytes: the answers change how the libraries are found, never which files are loaded. The
    HTML is the demo's score report and a page in several scripts (the shaping harfbuzz does)."""
    pages = [demo_folder / "score.html", tmp_path / "scripts.html"]  # the demo's, made once a run: only read
    pages[1].write_text("<html><body><h1>Wide text</h1><p>كتب العقد 合同 Договор ﬁnal — ½ ✓</p>"
                        "<table><tr><td>a</td><td>b</td></tr></table></body></html>", encoding="utf-8")

    def run(mode: str) -> dict:
        import json

        done = subprocess.run([sys.executable, "-c", RENDER, mode, *map(str, pages)], cwd=ROOT,
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout.strip().splitlines()[-1])

    fast, plain = run("fast"), run("plain")
    assert fast == plain
    assert all(pages_ >= 1 and size > 1000 for _h, pages_, size in fast.values())

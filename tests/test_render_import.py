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
known = {n for names in render._LIBRARIES.values() for n in names}
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

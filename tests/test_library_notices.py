"""What the libraries the toolkit uses print to a user's terminal on their own."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_signing_prints_no_library_deprecation_notice(tmp_path):
    """cryptography 51 (what a fresh ``pip install`` got on 2026-12-05) answers pyHanko's import of
    its DSA key type with "CryptographyDeprecationWarning: DSA is deprecated ...", two lines on
    standard error at every signed score and every check of a signature. A user can do nothing
    about it, so the toolkit's evidence modules silence exactly that notice. Importing the signing
    and checking code as a command does, with every warning shown (``-W always``), writes nothing
    to standard error. (With cryptography 50 or older there is no notice to silence: the test then
    holds trivially.)"""
    code = ("import day60.evidence.sign, day60.evidence.timestamp\n"
            "from pyhanko.sign import signers, validation, timestamps\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-W", "always", "-c", code], cwd=tmp_path, env=env,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""


def test_only_pyhankos_dsa_notice_is_silenced():
    """The filter is narrow: the same words raised from the toolkit's own code (or any module but
    pyHanko's) are still shown, and so is any other warning pyHanko raises."""
    code = ("import warnings, day60.evidence\n"
            "warnings.warn_explicit('DSA is deprecated (a test)', UserWarning, 'x.py', 1, module='day60.x')\n"
            "warnings.warn_explicit('something else', UserWarning, 'y.py', 1, module='pyhanko.sign')\n"
            "warnings.warn_explicit('DSA is deprecated (a test)', UserWarning, 'z.py', 1, module='pyhanko.sign')\n")
    done = subprocess.run([sys.executable, "-W", "default", "-c", code], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert "x.py:1: UserWarning: DSA is deprecated (a test)" in done.stderr
    assert "y.py:1: UserWarning: something else" in done.stderr
    assert "z.py" not in done.stderr


def test_a_dsa_signing_key_is_told_in_the_toolkits_words_not_as_a_python_warning(tmp_path):
    """Signing with a DSA key, cryptography 51 warned from the toolkit's own key loading (two
    "CryptographyDeprecationWarning: DSA is deprecated" lines, each with a source line; found by an
    outside attack after the pyHanko import was silenced). The report is still signed, exit 0, and
    standard error holds exactly two lines: the toolkit's note that the key is DSA (deprecated, sign
    with RSA or EC) and the line saying what was written."""
    import warnings

    from cryptography.hazmat.primitives.asymmetric import dsa

    from day60 import demo
    from tests.pki import p12

    journal = tmp_path / "ex.jsonl"
    demo.build_journal(journal)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the test's own use of DSA
        p12(tmp_path / "dsa.p12", "Test Auditor", b"pw", key=dsa.generate_private_key(2048))
    env = {**os.environ, "PYTHONPATH": str(ROOT), "DAY60_SIGN_PASSPHRASE": "pw"}
    done = subprocess.run([sys.executable, "-m", "day60", "score", str(journal), "--pdf", str(tmp_path / "s.pdf"),
                           "--sign", str(tmp_path / "dsa.p12")], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 2, done.stderr
    assert lines[0].startswith("note: ") and "DSA key" in lines[0] and "RSA or EC" in lines[0]
    assert lines[1].startswith("wrote ") and "signed by" in lines[1]

"""The data folders must ship inside the wheel, so a plain `pip install .` finds them."""

import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_wheel_carries_data_folders(tmp_path):
    subprocess.run([sys.executable, "-m", "hatchling", "build", "-t", "wheel", "-d", str(tmp_path)],
                   cwd=ROOT, check=True, capture_output=True)
    [wheel] = tmp_path.glob("day60-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    for folder in ("rubric", "clauses", "selfassess", "templates"):
        shipped = [n for n in names if n.startswith(f"day60/_data/{folder}/")]
        in_repo = [p for p in (ROOT / folder).rglob("*") if p.is_file()]
        assert len(shipped) == len(in_repo), folder
    assert "day60/examples/uk-office.toml" in names

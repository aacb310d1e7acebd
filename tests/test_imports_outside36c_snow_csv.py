"""What an outside attack on ``day60 import`` (att36c: the supplier's expert witness, with the docs
and the vendors' documentation only) found in the ServiceNow and csv readers and in ``--csv``,
each fixed and held here.

Every export is the attacker's own hand-written SYNTHETIC file in a vendor's real shape, copied
byte for byte into tests/data/imports/ (each with a ``.source.txt``), or written here in the same
shape. Expected figures are worked by hand in each docstring. The journal's window is 2026-03-02
09:00 to 2026-03-13 17:30, uk-office (London is UTC until 29 March 2026).
"""

from pathlib import Path

from tests.imports_common import imported, new_journal, refused

DATA = Path(__file__).parent / "data" / "imports"
SN = DATA / "servicenow"
TAB = DATA / "tabular"


def test_import_csv_never_replaces_a_file_it_did_not_write(run, tmp_path):
    """att36c N11 (charter 3.1: no output replaces a file it should not). ``--csv j/precious.csv``
    named an unrelated file the user kept (two lines of their own notes): the import wrote over it
    and exited 0. Now it is refused: exit 2, one line naming --csv and the file, the journal as it
    was (no event appended) and the file byte for byte as it was, for every format, since the
    check comes before any export is read.

    A file --csv wrote before (it begins ``ticket,ours_hours,vendor_hours,difference_hours,``) is
    that option's own, and a re-run replaces it whole: the sheet has no vendor-hours column, so
    nothing is compared and the file is the header line alone (1 line); a line added to it by hand
    is gone after the re-run. A new path is written as before."""
    precious = tmp_path / "precious.csv"
    kept = b"my own notes, not day60's\nline two\n"
    precious.write_bytes(kept)
    args = ("csv", TAB / "att36c_sheet.csv", "--map", TAB / "att36c_sheet_map.toml")
    j = new_journal(tmp_path)
    line = refused(run, j, *args, "--csv", precious)
    assert "--csv" in line and "precious.csv" in line and "never overwritten" in line
    assert precious.read_bytes() == kept
    line = refused(run, j, "servicenow", SN / "att36c_incident_sla.csv", "--mode", "raw",
                   "--map", SN / "att36c_map_sla.toml", "--csv", precious)
    assert "precious.csv" in line and precious.read_bytes() == kept

    out = tmp_path / "reconciled.csv"
    imported(run, j, *args, "--csv", out)
    first = out.read_text()
    assert first.startswith("ticket,ours_hours,vendor_hours,difference_hours,")
    assert len(first.splitlines()) == 1
    out.write_text(first + "a line added since\n")
    imported(run, j, *args, "--csv", out)  # its own file: replaced whole
    assert out.read_text() == first

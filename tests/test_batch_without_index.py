"""A batch (an import) where no index can be kept: the user's state folder is not writable (a
read-only home, a locked-down service account), so no private key seals an index. The batch's
events are still held to the rules of fact, against a full read of the journal, and refused as
they would be with an index; the lines are written, and the user is told the index was not kept.

Found by a newcomer with a read-only HOME (2026-12-05): the batch then checked no rule at all,
and wrote a second detection of an incident and a second open wait, after which `verify` and
`metrics` refused the journal for good."""

import datetime as dt
import json
import warnings

import pytest

from day60 import journal as jr
from day60.journal import index
from day60.journal.verification import scan
from tests.imports_common import new_journal

AT = dt.datetime(2026, 3, 3, 10, tzinfo=dt.UTC)


def journal_with_detection(tmp_path):
    path = new_journal(tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", index.IndexNote)
        jr.append(path, "incident.detected", "csv:T1", AT, {"severity": 2, "source": "organic"})
    return path


def test_a_second_detection_in_a_batch_is_refused_without_an_index(tmp_path, no_key):
    """csv:T1 is detected at 10:00 by hand; an import then adds a detection of csv:T1 again. The
    rule (an incident is detected once) refuses it as with an index: nothing is appended, the
    journal still ends on the hand-logged detection, and it still verifies."""
    path = journal_with_detection(tmp_path)
    before = path.read_bytes()
    with pytest.raises(jr.InputError, match="csv:T1 is already detected"), jr.batch(path) as b:
        b.add("incident.detected", "csv:T1", "2026-03-03T11:00:00+00:00", "test",
              {"severity": 2, "source": "organic"})
    assert path.read_bytes() == before
    assert scan(path).report.problem is None


def test_a_vouched_wait_is_replayed_on_the_journal_without_an_index(tmp_path, no_key):
    """A wait is opened by hand at 10:30; the import vouches for csv:T1 from an empty state (its
    own check saw no open wait) and adds a wait-start at 11:00. Without an index the journal's
    own facts stand in for the index's rows: a wait is already open, so the batch is refused."""
    path = journal_with_detection(tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", index.IndexNote)
        jr.append(path, "incident.wait-start", "csv:T1", AT + dt.timedelta(minutes=30), {"note": "by hand"})
    with pytest.raises(jr.InputError, match="already open"), jr.batch(path) as b:
        b.add("incident.wait-start", "csv:T1", "2026-03-03T11:00:00+00:00", "test", {"note": "import"})
        b.checked("csv:T1", jr.State())
    assert json.loads(path.read_text().splitlines()[-1])["data"] == {"note": "by hand"}


def test_a_sound_batch_is_written_and_says_the_index_was_not_kept(tmp_path, no_key):
    """A batch breaking no rule (csv:T2 detected and restored) is appended: two lines, the chain
    holds, no index file is left beside the journal, and the note names why none was kept."""
    path = journal_with_detection(tmp_path)
    lines_before = len(path.read_text().splitlines())
    with pytest.warns(index.IndexNote, match="was not kept.*no private key"), jr.batch(path) as b:
        b.add("incident.detected", "csv:T2", "2026-03-03T12:00:00+00:00", "test",
              {"severity": 3, "source": "organic"})
        b.add("incident.restored", "csv:T2", "2026-03-03T13:00:00+00:00", "test", {"check": "synthetic probe"})
    assert len(path.read_text().splitlines()) == lines_before + 2
    assert scan(path).report.problem is None
    assert not index.index_path(path).exists()

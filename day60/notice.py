"""The pre-publication notice (charter 8.3): the supplier's own rows, the command that
reproduces them, the hashes, and the toolkit they were computed with. ``build`` returns the
notice as data and as the text written to its file; the CLI checks its outputs, writes and logs."""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from day60 import assess, reading
from day60.display import jsonable
from day60.metrics import incident_rows, plain_table, records

PURPOSE = ("pre-publication notice (charter 8.3): these are your own rows; reproduce them with the command below "
           "before the score is published")


@dataclass(frozen=True)
class Notice:
    """One notice: ``text`` is the JSON file's content; ``letter`` what the letter template shows."""

    text: str
    built: dict[str, Any]
    letter: dict[str, Any]


def build(journal: Path, to: str, command_line: str) -> Notice:
    """The notice of ``journal``'s rows to ``to``; ``command_line`` is named in its provenance."""
    from day60.evidence.provenance import provenance

    j = reading.read(journal, events=True)
    done = assess.score_journal(j)
    if done.result["score"] is None:
        from day60.errors import InputError

        why = done.result.get("score_reason") or "no line could be scored"
        raise InputError("JOURNAL", f"has no score to give notice of ({why})",
                         "record the exercise first; a notice sends the rows a score is made of")
    summary = done.figures.summary
    built = built_from()
    body = {"notice": PURPOSE,
            "to": to, "exercise": {k: j.header[k] for k in ("partner", "supplier", "deployment", "tier", "window")},
            "toolkit": built,
            "reproduce": f"day60 verify {journal.name} --expect {j.head['seq']}:{j.head['hash']} && "
                         f"day60 score {journal.name} --format json",
            "journal_sha256": j.sha256, "journal_head": j.head, "rubric": done.result["rubric"],
            "score": done.result["score"], "lines": done.result["lines"],
            "provisional": done.result["provisional"],  # why the score may still change: none once final
            "rows": {"drift": summary["drift"]["observations"],
                     "incidents": incident_rows(done.figures),
                     "rollbacks": records(plain_table(done.figures.tables["rollbacks"])),
                     "report": summary["report"]},
            "provenance": provenance({"journal": j.sha256}, command_line)}
    text = json.dumps(jsonable(body), indent=2, sort_keys=True, allow_nan=False, default=str) + "\n"
    runner = j.header["runner"] + (f", {j.header['runner_organisation']}" if j.header.get("runner_organisation")
                                   else "")
    letter = {"n": json.loads(text), "runner": runner, "sent_on": dt.datetime.now(dt.UTC).date().isoformat(),
              "tz": j.header["calendar"]["timezone"], "synthetic": bool(j.header.get("synthetic"))}
    return Notice(text, built, letter)


def built_from() -> dict[str, Any]:
    """The toolkit a notice was made with (charter 8.3 sends the commit hash; 5.5 wants every
    result reproducible from one): its version, the source commit, and whether the figures can be
    reproduced from that commit, which they cannot if the build's tree had uncommitted changes or
    its commit is unknown."""
    from day60 import __version__
    from day60.source import source

    origin = source()
    why_not = None
    if origin["commit"] is None:
        why_not = (f"the toolkit's source commit is {origin['text']}: the supplier cannot rebuild this toolkit "
                   "from a commit; send the notice from a build of a committed tree")
    elif origin["dirty"]:
        why_not = (f"this toolkit was built from {origin['commit']} with uncommitted changes to "
                   f"{len(origin['changed'])} path(s), so that commit alone does not reproduce these rows; "
                   "send the notice from a build of a committed tree")
    return {"version": __version__, "source_commit": origin["commit"], "dirty": origin["dirty"],
            "changed": origin["changed"], "recorded": origin["recorded"],
            "reproduce_with": f"day60 {__version__}, source commit {origin['commit'] or origin['text']}",
            "reproducible_from_commit": why_not is None, "why_not": why_not}

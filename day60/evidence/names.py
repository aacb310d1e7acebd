"""The names of what a day60 report embeds: its manifest, its data files and its sources.

One place for them, below every module that writes a report (``documents``), reads one back
(``pdf``, ``verify``) or takes a score out of one (``supersede``), so none of those needs another
to know what a file inside a report is called.
"""

MANIFEST = "document.json"  # what the file is and how it was made (every report carries one)
MANIFEST_FORMAT = "day60.report/1"
SCORE_JSON = "score.json"  # a score or a self-assessment, as data
SCHEDULE_JSON = "schedule.json"
DRILLS_JSON = "drills.json"
SOURCES = {"journal": "journal.jsonl", "rubric": "rubric.yaml", "deal": "deal.toml", "answers": "answers.json",
           "superseded": "superseded.json", "observations": "observations.json"}

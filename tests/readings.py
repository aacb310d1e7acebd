"""What the verdict tests read back from a journal: its figures, its score and the score's lines,
and the report parts they build journals with. One place, so three test modules read alike."""

from day60 import assess, metrics
from day60 import journal as jr

SMOKE = {"model_pin": "m", "prompt_version": "p", "threshold_set": "t"}
PASS = {"present": True, "covers_period": True, "supported": True}
ELEMENTS = [e["id"] for e in metrics.default_report_elements()]


def figures(path):
    return metrics.compute(jr.read(path))


def scored(path, **kw):
    return assess.score_journal(jr.read(path), **kw)


def line(done, ident):
    return next(x for x in done.result["lines"] if x["id"] == ident)


def rows(table):
    return {r["id"]: r for r in metrics.records(table)}

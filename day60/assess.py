"""From inputs to a scored result, in one call per job: the CLI, the demo and ``comply`` use these.

Each returns the journal, its figures and the score, so callers can print or render them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from day60 import journal as jr
from day60 import metrics, rubric, selfassess


@dataclass
class Assessed:
    journal: jr.Journal
    figures: metrics.Figures
    result: dict[str, Any]
    _reconciled: dict[str, Any] | None = field(default=None, repr=False, compare=False)

    def reconciliation(self) -> dict[str, Any]:
        """Our restore figure beside the supplier's own, per imported ticket that carried one
        (``day60.imports.reconcile``), from this journal and its figures: computed the first time a
        document asks for it, since only the score's pages show it."""
        if self._reconciled is None:
            from day60.imports import reconcile

            self._reconciled = reconcile.from_journal(self.journal, self.figures)
        return self._reconciled


def score_journal(journal: jr.Journal, published: rubric.Rubric | None = None,
                  deal_parameters: dict[str, Any] | None = None, deal_elements: list[str] | None = None,
                  calendar: Any = None) -> Assessed:
    """An auditor's exercise: its figures and its score against the rubric at its own tier, with
    targets from the deal's parameters where it sets them and the monthly report elements the
    deal adds in every period's denominator (``calendar``: business time on that calendar, not the
    journal's)."""
    published = published or rubric.load()
    figures = metrics.compute(journal, report_elements=deal_elements, calendar=calendar)
    result = rubric.score(figures, journal.header, published, rubric.targets(published, deal_parameters))
    return Assessed(journal, figures, result)


def deal_terms(deal: Any) -> tuple[dict[str, Any] | None, list[str] | None]:
    """What ``score_journal`` takes from a deal file (``clauses.Deal``, or None for none): its
    parameters (the targets) and the report elements it adds."""
    if deal is None:
        return None, None
    return deal.parameters, list(deal.report_elements)


def self_assess(qs: selfassess.QuestionSet, ans: selfassess.Answers, journal_path: str | Path,
                tickets: selfassess.Tickets | None = None, deal_parameters: dict[str, Any] | None = None,
                deal_elements: list[str] | None = None) -> Assessed:
    """A BPO's self-assessment: a journal from the answers (and a ticket export), scored at the
    question set's tier cap against the deal's targets where given, with lines that needed a
    missing record marked "not evidenced"."""
    journal = selfassess.to_journal(qs, ans, journal_path, tickets)
    return score_assessment(qs, ans, journal, deal_parameters, deal_elements)


def score_assessment(qs: selfassess.QuestionSet, ans: selfassess.Answers, journal: jr.Journal,
                     deal_parameters: dict[str, Any] | None = None, deal_elements: list[str] | None = None) -> Assessed:
    """Score a self-assessment's journal as ``self_assess`` does (``verify-report`` scores the
    journal a report carries with it again)."""
    figures = metrics.compute(journal, report_elements=deal_elements,
                              unknown=selfassess.unknown_items(qs, ans.answers))
    if ans.answers.get("drift.false_alerts", 0) is None:  # "don't know" is not zero
        figures.summary["drift"].update(false_alerts=None, false_alerts_reason="not evidenced: the supplier's "
                                                                               "log of withdrawn alerts was not seen")
    published = rubric.load()
    result = rubric.score(figures, journal.header, published, rubric.targets(published, deal_parameters),
                          cap=qs.tier_cap, not_evidenced=selfassess.unknown_lines(qs, ans.answers))
    result.update(kind="self-assessment", tier_note=f"self-assessment, {qs.tier_cap} at most",
                  answers_sha256=ans.sha256, question_set_version=qs.version,
                  ask_supplier_for=selfassess.requests(qs, ans.answers, figures.tables["incidents"]),
                  not_assessed=selfassess.beyond_limit(qs, ans.answers))
    return Assessed(journal, figures, result)

"""What ``day60 comply`` decides, as data: which inputs it takes, where the figures come from, the
Measurement Period and the Monthly Charges they are judged for, the verdicts and their counts, and
what follows from them under the deal's commercial modules (or, for a deal with none, what of the
input is ignored). The command prints what ``check`` returns; ``consequence_lines`` gives the words
its table footer and its PDF print for what follows.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from day60.errors import InputError

# Every status a check row can have, in the order the page counts them.
STATUSES = ("met", "not met", "not run", "tier not demonstrated", "reported", "reported, not triggered", "triggered")
SYNTHETIC = "SYNTHETIC: invented data, not a result"


@dataclass
class Compliance:
    """One run of comply: the check rows (``clauses.comply``), the figures they judged and where
    they came from, the period, what follows under the commercial modules (None for a deal with
    none), and the notes on what such a deal ignores."""

    rows: list[dict[str, Any]]
    measured: dict[str, Any]
    source: str
    period: dict[str, Any]
    consequences: dict[str, Any] | None
    synthetic: bool
    ignored: list[str] = field(default_factory=list)

    @property
    def counts(self) -> dict[str, int]:
        """How many rows have each status (every status named, zero included)."""
        return {status: sum(r["status"] == status for r in self.rows) for status in STATUSES}

    @property
    def duties(self) -> int:
        """The reporting duties reported: reporting triggers not reached count as reported duties too."""
        counts = self.counts
        return counts["reported"] + counts["reported, not triggered"]

    @property
    def failed(self) -> bool:
        """True when any check is not met: comply then exits 1."""
        return any(r["status"] == "not met" for r in self.rows)


def check_inputs(sow: Path | None, journal: Path | None, figures: Path | None, charges: float | None,
                 outputs: dict[str, Path | None]) -> float | None:
    """Refuse what comply cannot run on, before any file is read: no deal file, an output that
    would replace one it must not, neither or both sources of figures, charges that are not a sum
    of money. Returns the charges as comply uses them (-0 read as 0)."""
    from day60 import files

    if sow is None:
        raise InputError("--sow", "is missing", "name the deal file the figures are checked against")
    files.check_outputs(outputs, [("--sow", sow), ("--figures", figures), ("JOURNAL", journal)])
    if (journal is None) == (figures is None):
        raise InputError("--figures", "give exactly one of a JOURNAL or --figures", "pass one source of figures")
    if charges is not None and not (0 <= charges <= 1e15):  # also refuses nan and inf
        raise InputError("--charges", f"is {charges!r}, not a sum of money from 0 to 1e15",
                         "give the month's Monthly Charges")
    return None if charges is None else charges + 0.0  # -0 is 0


def journal_period(header: dict[str, Any]) -> dict[str, Any]:
    """The Measurement Period a journal's figures are judged for: the month its exercise window
    ends in (a Service Credit uses the At-Risk Amount of the month a Measurement Period ends in),
    or no month when the header has no window end."""
    return {"month": str((header.get("window") or {}).get("end", ""))[:7] or None}


def period_with_charges(period: dict[str, Any], charges: float | None) -> dict[str, Any]:
    """The period with the month's Monthly Charges from ``--charges``; charges given both there and
    in the figures file's period must agree to the penny, else the run is refused."""
    if charges is None:
        return period
    given = period.get("charges")
    if given is not None and float(given) != charges:
        raise InputError("--charges", f"is {charges:,.2f}, but the figures file's period.charges is "
                                      f"{float(given):,.2f}",
                         "give the month's Monthly Charges once: drop --charges or period.charges")
    return {**period, "charges": charges}


def ignored(measured: dict[str, Any], period: dict[str, Any], charges: float | None) -> list[str]:
    """For a deal with no commercial module, which works out no credit, Critical Failure or relief:
    a note naming whatever the input gave for them, then one note per figure with Deemed Severity 2
    Incidents (the service-levels clause still makes each a Severity 2 Incident)."""
    given = [what for what, present in (
        ("--charges", charges is not None),
        ("period", any(k != "month" for k in period)),
        ("relief claims", any(isinstance(f, dict) and f.get("relief") for f in measured.values())),
        ("months", any(isinstance(f, dict) and f.get("months") for f in measured.values()))) if present]
    notes = []
    if given:
        notes.append(f"the deal includes no commercial module, so {', '.join(given)} "
                     f"{'is' if len(given) == 1 else 'are'} ignored: no Service Credit, Critical Failure or relief "
                     "is worked out")
    for name, f in sorted(measured.items()):
        if isinstance(f, dict) and f.get("deemed"):
            notes.append(f"{name}: {f['deemed']} Deemed Severity 2 Incident(s), each a Severity 2 Incident "
                         "under the schedule")
    return notes


def check(lib: Any, deal: Any, *, journal: Any = None, figures: Path | None = None,
          charges: float | None = None) -> Compliance:
    """Judge the figures of a journal already read (``reading.read``), or of a figures file, against
    ``deal``: the check rows, the period (a figures file's own ``period``, or the month the journal's
    window ends in) with ``charges`` as its Monthly Charges, and what follows under the deal's
    commercial modules. Raises ``InputError`` for a figures file comply cannot read or charges that
    contradict the file's."""
    from day60 import clauses, commercial

    if (journal is None) == (figures is None):
        raise InputError("--figures", "give exactly one of a JOURNAL or --figures", "pass one source of figures")
    scope = None
    if figures is not None:
        measured, source = clauses.load_figures(figures), str(figures)
        period = dict(measured.get("period") or {})
    else:
        measured, source = clauses.journal_figures(journal, deal), str(journal.path)
        scope = {"tier": journal.header["tier"], "records": journal.header.get("records", "auditor-held")}
        period = journal_period(journal.header)
    rows = clauses.comply(lib, deal, measured, source, scope)
    period = period_with_charges(period, charges)
    after = commercial.consequences(lib, deal, rows, measured, period) if len(deal.modules) > 1 else None
    notes = ignored(measured, period, charges) if after is None else []
    synthetic = bool(deal.deal.get("synthetic")) or bool(journal is not None and journal.header.get("synthetic"))
    return Compliance(rows, measured, source, period, after, synthetic, notes)


def consequence_lines(after: dict[str, Any], currency: str) -> dict[str, list[str]]:
    """What follows from the verdicts, as the lines a table footer and the PDF print: the credits,
    the Critical Failures and termination, relief, the Hypercare Period, and what is not computed."""
    from day60.commercial import money

    out: dict[str, list[str]] = {"credits": [], "critical": [], "relief": [], "cannot": list(after["cannot"])}
    credits = after.get("credits")
    if credits:
        for line in credits["lines"]:
            if line["percent_of_at_risk"]:
                out["credits"].append(f"{line['check']}: {line['band']}, weight {line['weight_percent']:g} x share "
                                      f"{line['share_percent']:g} percent = {line['percent_of_at_risk']:g} percent of "
                                      "the At-Risk Amount" + (f" ({line['note']})" if line["note"] else ""))
            elif line["note"] and line["status"] == "not met":
                out["credits"].append(f"{line['check']}: no credit, {line['note']}")
        for d in credits["deemed"]:
            out["credits"].append(f"{d['check']}: {d['count']} Deemed Severity 2 Incident(s) x {d['each_percent']:g} "
                                  f"percent = {d['percent_of_at_risk']:g} percent of the At-Risk Amount"
                                  + (f" ({d['note']})" if d["note"] else ""))
        total = (("conditional, if " + credits["conditional"] + ": ") if credits.get("conditional") else "") + (
                 f"total {credits['percent_of_at_risk']:g} percent of the At-Risk Amount"
                 + (f" (capped from {credits['uncapped_percent_of_at_risk']:g})" if credits["capped"] else "")
                 + f", {credits['percent_of_charges']:g} percent of the Monthly Charges")
        if credits["amount"] is not None:
            total += (f": {money(currency, credits['amount'])} of an At-Risk Amount of "
                      f"{money(currency, credits['at_risk_amount'])}")
        out["credits"].append(total)
    critical = after.get("critical_failures")
    if critical:
        for f in critical["found"]:
            out["critical"].append(f"{f['check']}: {f['kind']} ({f['detail']})")
        if critical["note"]:
            out["critical"].append(critical["note"])
        if critical.get("conditional"):
            out["critical"].append(f"conditional: these count only if {critical['conditional']}")
        term = critical["termination"]
        out["critical"].append(f"{critical['counted']} Critical Failure(s) counted this period; termination right: "
                               + {True: "arises", False: "does not arise", None: "cannot tell"}[term["arises"]]
                               + f" ({term['why']})")
    for r in after["relief"]:
        out["relief"].append(f"{r['check']}: {'applied' if r['applied'] else 'not applied'}: {r['why']}")
    if after.get("hypercare"):
        h = after["hypercare"]
        out["relief"].append(f"period {h['month']}: " + ("before" if h["before_credit_start"] else "on or after")
                             + f" the Credit Start Date {h['credit_start']}")
    return out


def consequence_titles(after: dict[str, Any]) -> dict[str, str]:
    """The heading of each part of what follows, naming the clause that says so."""
    n = after["clauses"]
    where = {k: f" (clause {n[m]})" if n.get(m) else "" for k, m in (("credits", "service-credits"),
                                                                    ("critical", "critical-failures"),
                                                                    ("relief", "relief"))}
    return {"credits": f"Service Credits{where['credits']}", "critical": f"Critical Failures{where['critical']}",
            "relief": f"Relief and hypercare{where['relief']}", "cannot": "Not computed"}

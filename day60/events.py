"""The closed set of journal line types: the header and one pydantic model per event kind.

Each model validates a whole line. ``day60 schema`` exports their JSON Schemas so other tools
can write journals this toolkit reads.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Mapping
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, create_model

from day60.timeparse import parse_iso

FORMAT = "day60.journal/1"


def _aware_iso(value: str) -> str:
    parsed = parse_iso(value)  # ASCII digits, inside the accepted range
    if parsed.tzinfo is None:
        raise ValueError("must carry its UTC offset")
    return value


Instant = Annotated[str, Field(max_length=40), AfterValidator(_aware_iso)]
# Printable text with at least one visible character; Text may hold tabs and line breaks.
# Ids also refuse invisible and direction-changing characters (Unicode format characters such
# as U+200B, U+FEFF, U+202E), so that no look-alike id can pass for another.
_VISIBLE = r"[^\s\x00-\x1f\x7f\p{Cf}]"
Text = Annotated[str, Field(min_length=1, max_length=2000,
                            pattern=rf"^[^\x00-\x08\x0b-\x1f\x7f]*{_VISIBLE}[^\x00-\x08\x0b-\x1f\x7f]*$")]
Ident = Annotated[str, Field(min_length=1, max_length=120,
                             pattern=rf"^[^\x00-\x1f\x7f\p{{Cf}}]*{_VISIBLE}[^\x00-\x1f\x7f\p{{Cf}}]*$")]
Source = Literal["exercise", "organic"]


# defer_build: each model's validator is built the first time it validates, not at import, so
# that 'day60 log' builds the two it uses (the header's and its kind's), not forty (about a
# third of this module's import time); what a model accepts is the same either way.
class _Data(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)
    note: Text | None = None
    pressed_at: Instant | None = Field(
        None, description="Recorded late: the instant of the press on the clock of the browser that made it "
                          "while it had lost its connection ('day60 serve'); the line's recorded_at is when the "
                          "server received it.")
    press_key: Text | None = Field(
        None,
        description="The key the page of 'day60 serve' gave this press: a press sent again because its "
                    "answer was lost is answered from the line that holds its key, never written twice.")


class _DataModels(Mapping[str, type["_Data"]]):
    """kind -> its data model, each class made the first time it is asked for (its builder is
    cached, so kinds that share a model share one class): 'day60 log' makes the one its kind
    needs, not all twenty-four, which were a fifth of its start-up. Which kinds there are is
    known without making any (``KINDS``, ``in``)."""

    def __init__(self, builders: dict[str, Callable[[], type[_Data]]]) -> None:
        self._builders = builders

    def __getitem__(self, kind: str) -> type[_Data]:
        return self._builders[kind]()

    def __contains__(self, kind: object) -> bool:
        return kind in self._builders

    def __iter__(self) -> Iterator[str]:
        return iter(self._builders)

    def __len__(self) -> int:
        return len(self._builders)


@functools.cache
def _build_Empty() -> type[_Data]:
    class Empty(_Data):
        pass
    return Empty


def _attested(value: bool) -> bool:
    if value is not True:
        raise ValueError("must be true: an injection that could expose live personal data is never run "
                         "(charter 4.5.1)")
    return value


@functools.cache
def _build_SafetyAgreed() -> type[_Data]:
    class SafetyAgreed(_Data):
        agreement: Text = Field(description="Reference of the written agreement to run the injection.")
        stop_owner: Text = Field(description="The named person who can stop the injection.")
        stop_condition: Text = Field(description="The stop owner's condition on which the injection is stopped.")
        rollback_owner: Text = Field(description="The named person on call to roll back while it runs.")
        no_live_personal_data: Annotated[bool, AfterValidator(_attested)] | None = Field(
            None, description="Attests (true) that the injection exposes, exfiltrates or breaches no live personal "
                              "data; required for every new sign-off.")
    return SafetyAgreed


@functools.cache
def _build_DriftOnset() -> type[_Data]:
    class DriftOnset(_Data):
        source: Source = Field("exercise", description="exercise: injected by the runner; organic: a real drift.")
        affected_class: Text | None = Field(None, description="The input class the injection shifts; a notice must "
                                                              "name it to count (required for an injected onset).")
        commitment: str | None = Field(None, pattern=r"^[0-9a-f]{64}$",
                                       description="Sealed onsets only: salted SHA-256 of the held instant.")
    return DriftOnset


@functools.cache
def _build_DriftDetected() -> type[_Data]:
    class DriftDetected(_Data):
        affected_class: Text | None = Field(None, description="The input class the detection names; the supplier's own "
                                                              "claim of a detection must name it.")
    return DriftDetected


@functools.cache
def _build_DriftNotice() -> type[_Data]:
    class DriftNotice(_Data):
        affected_class: Text = Field(description="The input class the supplier names as affected.")
        evidence: Text = Field(description="The evidence the notice cites.")
    return DriftNotice


@functools.cache
def _build_DriftExclusion() -> type[_Data]:
    class DriftExclusion(_Data):
        reason: Text | None = None
    return DriftExclusion


@functools.cache
def _build_IncidentDetected() -> type[_Data]:
    class IncidentDetected(_Data):
        severity: int | None = Field(None, ge=1, le=4, description="Severity 1 (worst) to 4, as the supplier classed "
                                                                  "it; absent when its records give none (then judged "
                                                                  "at the strictest target).")
        source: Source = Field("exercise", description="exercise: an incident the exercise created; organic: a real "
                                                       "incident.")
        clock_start: Literal["ticket-opened"] | None = Field(
            None, description="ticket-opened: the instant is the ticket's opening, standing in for a detection time "
                              "the supplier's records do not hold (counted and named beside every restore figure).")
    return IncidentDetected


@functools.cache
def _build_PartnerNotice() -> type[_Data]:
    class PartnerNotice(_Data):
        severity: int | None = Field(None, ge=1, le=4, description="Severity 1 (worst) to 4, where the notice states "
                                                                   "it.")
        source: Source = Field("organic", description="exercise: an incident the exercise created; organic: a real "
                                                      "incident.")
    return PartnerNotice


@functools.cache
def _build_Classified() -> type[_Data]:
    class Classified(_Data):
        severity: int = Field(ge=1, le=4, description="The severity the incident is now classed at.")
        reason: Text = Field(description="Why it is set or changed, and on whose word.")
    return Classified


@functools.cache
def _build_VendorClock() -> type[_Data]:
    class _VendorClock(_Data):
        """The vendor's own clock for the ticket, as its export gives it (an import writes these on
        the ticket's last resolution, or on its restore where the records hold no resolution), so
        that a report can set ours beside theirs from the journal alone."""

        vendor_measure: Text | None = Field(None, description="Which of the vendor's fields the duration is.")
        vendor_wall_ms: int | None = Field(None, ge=0, le=10**13,
                                           description="The vendor's elapsed calendar (24x7) time, in ms.")
        vendor_business_ms: int | None = Field(None, ge=0, le=10**13,
                                               description="The vendor's time on its own business schedule, in ms.")
        vendor_paused_ms: int | None = Field(None, ge=0, le=10**13,
                                             description="Calendar time the vendor's clock stood paused, in ms.")
        vendor_from: Instant | None = Field(None, description="When the vendor's clock started.")
        vendor_to: Instant | None = Field(None, description="When the vendor's clock stopped.")
        vendor_schedule: Text | None = Field(None, description="The vendor's business schedule, where named.")
        vendor_elapsed_ms: int | None = Field(None, ge=0, le=10**13,
                                              description="The vendor's own figure for its clock's whole span, start "
                                                          "to stop, not paused, in ms (Zendesk full_resolution_time), "
                                                          "where its main figure is a paused one.")
        vendor_waits_ms: int | None = Field(None, ge=0, le=10**13,
                                            description="The vendor's own total of time waiting on the partner, in ms "
                                                        "(Zendesk agent_wait_time: the time pending).")
    return _VendorClock


@functools.cache
def _build_IncidentRestored() -> type[_Data]:
    class IncidentRestored(_build_VendorClock()):
        check: Text = Field(description="The monitoring check that confirmed the restore.")
    return IncidentRestored


@functools.cache
def _build_TicketClosed() -> type[_Data]:
    class TicketClosed(_build_VendorClock()):
        state: Text = Field(description="The ticket's state in the supplier's records, e.g. Resolved or Closed.")
        resolved: bool = Field(description="true: the ticket records a resolution; false: it was closed without one.")
        instant: Literal["not-evidenced"] | None = Field(
            None, description="not-evidenced: the supplier's records say the ticket is closed but hold no time for it; "
                              "the line's instant then stands in for that time, the earliest the closure can have been "
                              "(its clock start or its last re-open), and the figures read the incident 'not "
                              "evidenced', never open, unconfirmed or restored.")
    return TicketClosed


@functools.cache
def _build_Reasoned() -> type[_Data]:
    class Reasoned(_Data):
        reason: Text
    return Reasoned


@functools.cache
def _build_RollbackCriterion() -> type[_Data]:
    class RollbackCriterion(_Data):
        kind: Literal["production", "rehearsal"]
        source: Source = "exercise"
    return RollbackCriterion


@functools.cache
def _build_SmokePass() -> type[_Data]:
    class SmokePass(_Data):
        model_pin: Text = Field(description="The model pin restored.")
        prompt_version: Text = Field(description="The prompt version restored.")
        threshold_set: Text = Field(description="The threshold set restored.")
    return SmokePass


@functools.cache
def _build_ReportReceived() -> type[_Data]:
    class ReportReceived(_Data):
        pass
    return ReportReceived


@functools.cache
def _build_ReportElement() -> type[_Data]:
    class ReportElement(_Data):
        present: bool
        covers_period: bool
        supported: bool
        not_applicable: bool = False
        period: Annotated[str, Field(pattern=r"^[0-9]{4}-(0[1-9]|1[0-2])$")] | None = Field(
            None, description="The report period (YYYY-MM); defaults to the only report received.")
    return ReportElement


@functools.cache
def _build_Dispute() -> type[_Data]:
    class Dispute(_Data):
        line: Ident = Field(description="The rubric line disputed, e.g. restore.")
        reason: Text = Field(description="What is disputed and why.")
        raised_by: Text = Field(description="Who raises it.")
        organisation: Text = Field(description="The organisation they speak for.")
    return Dispute


@functools.cache
def _build_Resolve() -> type[_Data]:
    class Resolve(_Data):
        target: int = Field(ge=1, description="seq of the dispute being resolved.")
        outcome: Literal["upheld", "rejected"]
        reason: Text
        exclude: list[Ident] | None = Field(
            None, max_length=200, description="Upheld only: the drifts, incidents or rollbacks the resolution "
                                              "excludes from the disputed line's figures (charter 8.4: the remedy "
                                              "is recorded, the dispute stays visible).")
    return Resolve


@functools.cache
def _build_Judgement() -> type[_Data]:
    class Judgement(_Data):
        target: int = Field(ge=1, description="seq of the measured party's claim being accepted or rejected.")
        reason: Text = Field(description="What the claim was checked against, or why it does not stand.")
    return Judgement


@functools.cache
def _build_NoticeSent() -> type[_Data]:
    class NoticeSent(_Data):
        to: Text = Field(description="Who received the pre-publication notice.")
        sha256: str = Field(pattern=r"^[0-9a-f]{64}$", description="SHA-256 of the notice file sent.")
    return NoticeSent


@functools.cache
def _build_TimestampToken() -> type[_Data]:
    class TimestampToken(_Data):
        covers_seq: int = Field(ge=0, description="seq of the event the token stamps (0: the header alone).")
        covers_hash: str = Field(pattern=r"^[0-9a-f]{64}$", description="That event's own hash: the token's imprint.")
        tsa: Text = Field(description="The URL of the timestamp authority that signed the token.")
        token: str = Field(max_length=65536, pattern=r"^[A-Za-z0-9+/]+={0,2}$",
                           description="The RFC 3161 token (DER, base64), as the authority sent it.")
    return TimestampToken


@functools.cache
def _build_Correction() -> type[_Data]:
    class Correction(_Data):
        target: int = Field(ge=1, description="seq of the event whose instant is corrected.")
        at: Instant = Field(description="The corrected instant.")
        reason: Text
    return Correction


@functools.cache
def _build_Reveal() -> type[_Data]:
    class Reveal(_Data):
        target: int = Field(ge=1, description="seq of the sealed onset being opened.")
        at: Instant = Field(description="The held instant, in clear.")
        salt: str = Field(pattern=r"^[0-9a-f]{32}$")
    return Reveal


DATA_MODELS: Mapping[str, type[_Data]] = _DataModels({
    "safety.agreed": _build_SafetyAgreed,
    "injection.stopped": _build_Reasoned,
    "injection.not-run": _build_Reasoned,
    "drift.onset": _build_DriftOnset,
    "drift.detected": _build_DriftDetected,
    "drift.notice": _build_DriftNotice,
    "drift.false-alert": _build_Empty,
    "drift.announced": _build_DriftExclusion,
    "drift.told": _build_DriftExclusion,
    "incident.raised": _build_Empty,
    "incident.detected": _build_IncidentDetected,
    "incident.partner-notice": _build_PartnerNotice,
    "incident.classified": _build_Classified,
    "incident.communicated": _build_Empty,
    "incident.wait-start": _build_Empty,
    "incident.wait-end": _build_Empty,
    "incident.change-window-start": _build_Empty,
    "incident.change-window-end": _build_Empty,
    "incident.restored": _build_IncidentRestored,
    "incident.ticket-closed": _build_TicketClosed,
    "incident.reopened": _build_Reasoned,
    "incident.withdrawn": _build_Reasoned,
    "incident.excluded": _build_Reasoned,
    "rollback.criterion-met": _build_RollbackCriterion,
    "rollback.decision": _build_Empty,
    "rollback.serving": _build_Empty,
    "rollback.smoke-pass": _build_SmokePass,
    "rollback.requeue-complete": _build_Empty,
    "rollback.data-restore": _build_Empty,
    "report.received": _build_ReportReceived,
    "report.element": _build_ReportElement,
    "exercise.close": _build_Empty,
    "correction": _build_Correction,
    "reveal": _build_Reveal,
    "dispute": _build_Dispute,
    "resolve": _build_Resolve,
    "accept": _build_Judgement,
    "reject": _build_Judgement,
    "notice.sent": _build_NoticeSent,
    "timestamp.token": _build_TimestampToken,
})
KINDS = tuple(DATA_MODELS)


def __getattr__(name: str) -> Any:
    """A data model by its class name (``events.IncidentDetected``), made on first use."""
    build = globals().get(f"_build_{name.lstrip('_')}") if name != "_Data" else None
    if build is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return build()


class _Envelope(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)
    seq: int = Field(ge=1)
    id: Ident = Field(description="What the event is about: injection, incident, rollback, report period, element.")
    at: Instant | None = Field(description="When it happened (null only for a sealed onset).")
    recorded_at: Instant = Field(description="When the toolkit wrote the line.")
    by: Text = Field(description="Who recorded it.")
    prev: str = Field(pattern=r"^[0-9a-f]{64}$", description="SHA-256 of the previous line's bytes.")
    hash: str = Field(pattern=r"^[0-9a-f]{64}$", description="SHA-256 of this event without this field.")


class _EventModels(Mapping[str, type[BaseModel]]):
    """kind -> the model of a whole event line, each built the first time it is needed, so that
    logging one event builds one model, not all of them (about 20 ms at start-up)."""

    def __init__(self) -> None:
        self._built: dict[str, type[BaseModel]] = {}

    def __getitem__(self, kind: str) -> type[BaseModel]:
        model = self._built.get(kind)
        if model is None:
            model = self._built[kind] = create_model(
                "Event_" + kind.replace(".", "_").replace("-", "_"),
                __base__=_Envelope,
                kind=(Literal[kind], ...),  # type: ignore[valid-type]
                data=(DATA_MODELS[kind], ...),
            )
        return model

    def __contains__(self, kind: object) -> bool:
        return kind in DATA_MODELS

    def __iter__(self) -> Iterator[str]:
        return iter(DATA_MODELS)

    def __len__(self) -> int:
        return len(DATA_MODELS)


EVENT_MODELS = _EventModels()


class Window(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)
    start: Instant
    end: Instant


class Header(BaseModel):
    """Line 1: everything needed to reproduce the figures without any other file."""

    model_config = ConfigDict(extra="forbid", defer_build=True)
    format: Literal["day60.journal/1"] = FORMAT
    partner: Text
    supplier: Text
    deployment: Text
    tier: Literal["T1", "T2", "T3", "T4", "T5"]
    window: Window
    calendar: dict[str, Any] = Field(description="The full [calendar] table, not a path.")
    runner: Text
    records: Literal["auditor-held", "supplier-reported"] = Field(
        "auditor-held", description="supplier-reported: built from the supplier's own records.")
    window_announced: bool = Field(True, description="Whether the supplier was told the exercise window (T3); "
                                                     "T4 and T5 run unannounced.")
    synthetic: bool = Field(False, description="True when the data is invented, e.g. the demo.")
    runner_organisation: Text | None = Field(None, description="The organisation the runner works for (1.6).")
    conflict_statement: Text | None = Field(None, description="The runner's statement of any conflict of "
                                                                "interest with the supplier or the partner.")
    report_elements: list[Ident] = Field(default_factory=list,
                                         description="Report elements this exercise adds to the default list.")
    toolkit: str
    created_at: Instant
    hash: str = Field(pattern=r"^[0-9a-f]{64}$")


def json_schemas() -> dict[str, Any]:
    """JSON Schema of the header and every event kind, keyed by name."""
    out: dict[str, Any] = {"header": Header.model_json_schema()}
    for kind, model in EVENT_MODELS.items():
        out[kind] = model.model_json_schema()
    return out


_INTERNAL = {"commitment", "token"}  # written by the toolkit itself (--seal), never with --set


def _field_type(info: Any) -> str:
    from typing import get_args, get_origin

    ann = info.annotation
    args = [a for a in get_args(ann) if a is not type(None)] if get_origin(ann) is not Literal else []
    if len(args) == 1:
        ann = args[0]
    if get_origin(ann) is Literal:
        return "one of " + "|".join(str(v) for v in get_args(ann))
    if ann is bool:
        return "true|false"
    if ann is int:
        bounds = {type(m).__name__: getattr(m, type(m).__name__.lower(), None) for m in info.metadata}
        lo, hi = bounds.get("Ge"), bounds.get("Le")
        return f"whole number {lo}-{hi}" if lo is not None and hi is not None else "whole number"
    if info.description and "(YYYY-MM)" in info.description:
        return "YYYY-MM"
    return "time" if "instant" in (info.description or "").lower() else "text"


def set_fields() -> dict[str, list[dict[str, Any]]]:
    """For each event kind, the ``--set`` fields it takes: name, type, required, description."""
    out: dict[str, list[dict[str, Any]]] = {}
    for kind, model in DATA_MODELS.items():
        out[kind] = [{"name": name, "type": _field_type(info), "required": info.is_required(),
                      "description": info.description or ""}
                     for name, info in model.model_fields.items() if name not in _INTERNAL]
    return out


def allowed_fields(kind: str) -> list[str]:
    return [name for name in DATA_MODELS[kind].model_fields if name not in _INTERNAL]

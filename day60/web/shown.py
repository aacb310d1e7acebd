"""What a page shows, built from the journal as one participant may see it: the timeline's rows
(corrections, reveals and claims marked where they belong), the steps this participant may take
next, what is still open, and the JSON twin's state. Plain data: the templates and the JSON twin
say it; nothing here reads a request."""

from __future__ import annotations

import json
from typing import Any

from day60 import checklist, display, permissions
from day60.web import press as presses
from day60.web import words
from day60.web.room import Participant, Room

TIMELINE_ROWS = 200  # the page shows the latest lines; 'day60 show' shows them all
Seen = tuple[list[dict[str, Any]], int]  # one view of the journal (Room.seen): the lines and the head


def timeline(room: Room, who: Participant, seen: Seen | None = None) -> dict[str, Any]:
    """The latest ``TIMELINE_ROWS`` lines ``who`` may see, newest first, each with its marks."""
    shown, head = seen or room.seen(who)  # one view: the head always names the last row's line
    fixes: dict[int, list[str]] = {}
    opened: dict[int, str] = {}  # a revealed onset's instant, shown where its time belongs
    righted: dict[int, str] = {}  # a corrected line's time now (the latest correction's)
    # A correction the supplier claims moves no time until an auditor accepts it: the recorded
    # time stays the line's, and the claim is said beside it (pending or rejected).
    for target, said in permissions.corrections_claimed(shown, lambda at: words.shown_at(at, room.tz)).items():
        fixes.setdefault(target, []).extend(said)
    for e in permissions.in_force(shown):
        if e["kind"] == "correction":
            righted[e["data"]["target"]] = e["data"]["at"]
            fixes.setdefault(e["data"]["target"], []).append(
                f"corrected by seq {e['seq']} to {words.shown_at(e['data']['at'], room.tz)}: {e['data']['reason']}")
        elif e["kind"] == "reveal":
            fixes.setdefault(e["data"]["target"], []).append(f"revealed by seq {e['seq']} (sealed when recorded)")
            opened[e["data"]["target"]] = e["data"]["at"]
    judged = permissions.judgements(shown)
    rows = []
    for e in reversed(shown[-TIMELINE_ROWS:]):
        marks = list(fixes.get(e["seq"], []))
        standing = permissions.claim_status(e, judged)
        if standing is not None:  # the measured party's claim: how it stands with the auditors
            verdict = judged.get(e["seq"])
            marks.append("claim: awaiting an auditor's acceptance, counted in no figure" if verdict is None
                         else f"claim {standing} by seq {verdict['seq']}")
        if e["at"] is None and not marks:
            marks.append("sealed until revealed")
        if e["data"].get("pressed_at"):
            marks.insert(0, f"recorded late (pressed at {words.shown_at(e['data']['pressed_at'], room.tz)} on the "
                            "browser's clock)")
        data = "; ".join(_detail(k, v, e, room.tz) for k, v in e["data"].items()
                         if k not in ("commitment", "pressed_at", "press_key", "salt"))
        at = e["at"] or opened.get(e["seq"])
        rows.append({"seq": e["seq"], "at": righted.get(e["seq"], at), "was": at if e["seq"] in righted else None,
                     "kind": e["kind"], "id": e["id"],
                     "by": display.author(e["by"], room.header),  # the runner one way, as the room writes it
                     "data": data, "recorded_at": e["recorded_at"], "marks": marks,
                     "late": bool(e["data"].get("pressed_at"))})
    return {"rows": rows, "hidden": max(0, len(shown) - TIMELINE_ROWS), "head": head}

def steps_for(room: Room, who: Participant, is_local: bool, shown: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The steps ``who`` may take next, in an order that does not move as lines arrive, each with
    the fields its role may fill."""
    closed = any(e["kind"] == "exercise.close" for e in shown)
    # After the close the journal takes only judgements of claims, disputes, corrections and
    # the reveal: no step the server would refuse is offered.
    steps = [] if closed else checklist.next_steps(shown, room.header)
    if not who.runner and not closed:
        steps = [s for s in _watch_steps(shown, who) + steps if not _runner_only(s) and
                 presses.may_record(who, s.kind)]
    if presses.may_record(who, "accept"):  # the measured party's claims waiting for an auditor
        steps = checklist.claims_to_judge(shown) + steps
    if closed and presses.may_record(who, "dispute"):
        steps.append(checklist.Step("dispute a figure of the score (with the reason)", "dispute", None,
                                    group="after the close"))
    steps = _in_place(steps, shown)
    out = []
    for s in steps:
        mine = permissions.table().writes(who.role, s.kind)  # a role the table limits is offered only its fields
        fields = [{"name": a.name, "label": a.name.replace("_", " "), "help": a.help, "kind": a.kind,
                   "choices": a.choices, "required": a.required or (a.name == "affected_class"),
                   "attest": a.attest}
                  for a in checklist.fields_for(s.kind, s.data, permissions.table().record.get(s.kind, {})
                                                .get(who.role) == "claim") if (mine is None or a.name in mine)
                  and a.name not in ("raised_by", "organisation")]  # a dispute's: the participant's own
        sealed = s.kind == "drift.onset" and s.data.get("source") == "exercise"
        pauses = checklist.open_pauses(shown, s.id) if s.kind == "incident.restored" and s.id else {}
        # A field the step fixes that the role does not write is left for the server to set (the
        # supplier's real incident: its source is the journal's own word); sent, it was refused
        # as the supplier's own choice, so the step could never be recorded.
        preset = {k: v for k, v in s.data.items() if mine is None or k in mine}
        out.append({"label": s.label, "kind": s.kind, "id": s.id, "preset": preset, "fields": fields,
                    "seal": sealed, "disabled": sealed and (room.held is None or not is_local),
                    "pauses": [("waiting on partner" if p == "wait" else "change window") for p in pauses],
                    "group": s.group,
                    "elements": checklist.element_choices(shown, room.header) if s.kind == "report.element"
                    else [], "periods": checklist.reports_received(shown)})
    return out

def state(room: Room, who: Participant, is_local: bool, seen: Seen | None = None) -> dict[str, Any]:
    """What is open, the next steps, the lines ``who`` may still correct, and the room's problem."""
    shown, head = seen or room.seen(who)  # one view for every part of the answer (see Room.seen)
    skip = {"correction", "reveal", "dispute", "resolve", "notice.sent"}
    closed = any(e["kind"] == "exercise.close" for e in shown)  # a close is never sealed
    rule = permissions.table().correct.get(who.role)  # what the access list lets this role correct
    stopped = rule is None or (rule.get("until") and (closed or any(e["kind"] == "reveal" for e in shown)))
    correctable = [] if stopped else [
        e for e in reversed(shown) if e["kind"] not in skip and e["at"] is not None
        and (rule.get("lines") == "any" or e["by"] == who.by)]  # every line, newest first: none out of reach
    correctable = [{**e, "what": words.kind_words(e["kind"])} for e in correctable]
    status = checklist.status(shown, seals_hidden=not who.runner, header=room.header)
    return {"status": status, "open_items": _id_apart(status, {str(e["id"]) for e in shown}),
            "steps": steps_for(room, who, is_local, shown), "closed": closed,
            "correctable": correctable, "problem": room.problem, "head": head,
            "can_reveal": who.runner and is_local and room.held is not None and closed,
            "sealed": len(checklist.sealed_onsets(shown)) if who.runner else None}


def _id_apart(status: dict[str, list[str]], ids: set[str]) -> dict[str, list[tuple[str, str]]]:
    """Each open item as (the id it starts with, the rest): the page isolates the id, so one
    written right to left (\u05d0\u05d11) does not carry the words after it into its own direction."""
    out: dict[str, list[tuple[str, str]]] = {}
    for area, items in status.items():
        out[area] = []
        for item in items:
            ident = max((i for i in ids if item.startswith(f"{i}: ")), key=len, default="")
            out[area].append((ident, item[len(ident):] if ident else item))
    return out


def json_state(room: Room, who: Participant, is_local: bool) -> dict[str, Any]:
    """The state as the JSON twin answers it (GET /api/state)."""
    s = state(room, who, is_local)
    return {"journal": room.path.name, "participant": {"name": who.name, "role": who.role, "by": who.by},
            "header": {k: room.header.get(k) for k in ("partner", "supplier", "deployment", "tier", "window",
                                                        "runner", "synthetic", "window_announced")},
            "timezone": room.header["calendar"]["timezone"], "head": s["head"], "closed": s["closed"],
            "open": s["status"], "problem": s["problem"],
            "next": [{k: step[k] for k in ("label", "kind", "id", "preset", "fields", "seal")}
                     for step in s["steps"]]}


def _detail(name: str, value: Any, line: dict[str, Any], tz: Any) -> str:
    """One field of a line as the timeline's details say it: names in words, an instant in the
    exercise's zone, a seq named as such."""
    label = name.replace("_", " ")
    if name == "target":
        return f"of seq {value}"
    if isinstance(value, bool):
        return f"{label}: {'yes' if value else 'no'}"
    if isinstance(value, str) and (name == "at" or words.is_instant(value)):
        return f"{'time' if name == 'at' else label}: {words.shown_at(value, tz)}"
    if not isinstance(value, str):
        value = json.dumps(value)
    return f"{label}: {value}"


def _runner_only(step: checklist.Step) -> bool:
    """Steps only the runner's page offers: starting an injection (the sealed onset, the raised
    incident, the forced production rollback), recording one not run, and the close; the
    journal's own rules and ``press.allowed`` decide what is accepted."""
    data = step.data
    if step.kind in ("exercise.close", "incident.raised", "injection.not-run") or \
            step.label.startswith(checklist.FORCED_ROLLBACK):
        return True
    if step.kind == "drift.onset":
        return data.get("source") == "exercise"
    return step.kind == "rollback.criterion-met" and data.get("kind") == "production" and \
        data.get("source") == "exercise"


def _in_place(steps: list[checklist.Step], shown: list[dict[str, Any]]) -> list[checklist.Step]:
    """Steps in an order that does not move as lines arrive: the claims to judge first, then one
    group an id, in the order the ids first appear in the journal, then what starts something new,
    then the close. Within a group, the order the checklist gives."""
    first: dict[str, int] = {}
    for e in shown:
        first.setdefault(e["id"], e["seq"])

    def rank(step: checklist.Step) -> tuple[int, int]:
        if step.group == "claims to accept or reject":
            return (0, 0)
        if step.group == "new":
            return (2, 0)
        if step.group == "close":
            return (3, 0)
        return (1, first.get(step.group, 1 << 60))

    return sorted(steps, key=rank)


def _watch_steps(shown: list[dict[str, Any]], who: Participant) -> list[checklist.Step]:
    """What a watcher stamps on a signed-off injection whose sealed start it cannot see: the
    supplier's detection and its written notice, and the stop. Offered for every signed-off id
    still open, to the roles the access list lets take them; a claim of a detection or a notice
    that names no drift is recorded all the same (a refusal would tell of the seal) and costs the
    supplier a false alert."""
    out = []
    kinds: dict[str, set[str]] = {}
    for e in shown:
        kinds.setdefault(e["id"], set()).add(e["kind"])
    for ident, ks in kinds.items():
        if "safety.agreed" not in ks or ks & {"injection.not-run", "injection.stopped", "drift.onset",
                                              "incident.raised", "rollback.criterion-met", "incident.detected"}:
            continue
        # Worded for what the watcher sees: a signed-off injection whose start it is not shown, which
        # may be a sealed drift; a milestone already recorded is not offered again.
        if "drift.detected" not in ks:
            out.append(checklist.Step(f"{ident}: the supplier says it has detected a drift", "drift.detected",
                                      ident, group=ident))
        if "drift.notice" not in ks:
            out.append(checklist.Step(f"{ident}: a written notice of a drift has arrived", "drift.notice", ident,
                                      group=ident))
        out.append(checklist.Step(f"{ident}: injection stopped by its stop condition", "injection.stopped",
                                  ident, group=ident))
    return out  # steps_for keeps those the participant's role may take

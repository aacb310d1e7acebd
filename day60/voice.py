"""Voice episodes on a temporal contract: the episode scorer, the suite runner, and time to
first token (charter 3.13).

The episode scorer takes its rules from the reference harness: turns keep their given order,
speakers other than caller and agent are ignored, missing times count as 0, sub-scores are
rounded to six decimals and the pass floor is judged on those. Where the toolkit chooses
differently (a dialogue with nothing to score, text or fractional times, reversed turns,
aggregate rounding), ``compat="reference"`` reproduces the reference; docs/voice.md lists each.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from decimal import MAX_EMAX, MAX_PREC, MIN_EMIN, Context, Decimal, Inexact, InvalidOperation, Overflow
from pathlib import Path
from typing import Any

from day60.errors import InputError
from day60.files import MAX_NUMBER, read_json
from day60.stats import nearest_rank

DEFAULT_MAX_LATENCY_MS = 1200
YIELD_WINDOW_MS = 600
PASS_FLOOR = 0.75
COMPONENTS = ("latency", "turn_taking", "barge_in", "content")
SUITE_KIND = "agent-learning.bench-suite.v1"


COMPAT = ("day60", "reference")  # "reference": reproduce the reference harness's coercions (docs/voice.md)

# ----- exact durations -----------------------------------------------------------------------
# A time is read as the decimal number its file wrote (an int as itself, a float by the shortest
# digits that give it back, which are the digits JSON held), and durations are differences of
# those decimals with no rounding at all: 2048.03 - 848.03 is 1200 exactly, where subtracting the
# floats gives 1200.0000000000002 and loses a boundary (and 600.1 - 600 gives 0.10000000000002274,
# not 0.1). The context traps any step that would not be exact.
_EXACT = Context(prec=MAX_PREC, Emax=MAX_EMAX, Emin=MIN_EMIN, traps=[Inexact, InvalidOperation, Overflow])


def exact_ms(value: float | int | Decimal) -> Decimal:
    """A finite time (or budget) in milliseconds as the exact decimal it was written as."""
    if type(value) is float:
        return Decimal(repr(value))
    if isinstance(value, Decimal):
        return value
    if isinstance(value, int):
        return Decimal(value)
    return Decimal(repr(float(value)))


def elapsed_ms(start: float | int | Decimal, end: float | int | Decimal) -> Decimal:
    """``end - start`` in milliseconds, exactly."""
    return _EXACT.subtract(exact_ms(end), exact_ms(start))


def sum_ms(values: Iterable[float | int | Decimal]) -> Decimal:
    """The exact total of several durations in milliseconds."""
    total = Decimal(0)
    for value in values:
        total = _EXACT.add(total, exact_ms(value))
    return total


def plain(value: float | int | Decimal) -> str:
    """A number in plain digits at any size, never in exponent notation: 1234567.0 reads 1234567,
    0.5 reads 0.5 (an exact decimal keeps every digit it has)."""
    d = exact_ms(value)
    if d == d.to_integral_value():
        return str(int(d))
    return format(d.normalize(), "f")


def _ms(turn: dict[str, Any], key: str, where: str, compat: str = "day60") -> int | float:
    value = turn.get(key)
    if value is None:
        return 0
    if compat == "reference":  # the reference reads times with int(): "1500" and 1500.9 both give 1500
        try:
            return int(value)
        except (TypeError, ValueError, OverflowError) as exc:
            raise InputError(f"{where}.{key}", f"{str(value)[:40]!r} is not a number of milliseconds",
                             "give a number") from exc
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InputError(f"{where}.{key}", f"{str(value)[:40]!r} is not a number of milliseconds",
                         "give a number (or score with --compat reference, which reads it with int())")
    if not math.isfinite(value) or abs(value) > MAX_NUMBER:
        raise InputError(f"{where}.{key}", f"{str(value)[:40]!r} is not a finite time within ±10^15 ms",
                         "give the time in milliseconds")
    return value


def turns_of(dialogue: Any, where: str = "dialogue", compat: str = "day60") -> list[dict[str, Any]]:
    """Check a dialogue's turns; returns caller and agent turns in their given order."""
    if isinstance(dialogue, dict) and "turns" in dialogue:
        dialogue = dialogue["turns"]
    if not isinstance(dialogue, list):
        raise InputError(where, "is not a list of turns", 'give [{"speaker": "caller", "start_ms": 0, ...}, ...]')
    out = []
    for i, turn in enumerate(dialogue):
        here = f"{where}[{i}]"
        if not isinstance(turn, dict):
            raise InputError(here, "is not a turn object", "give speaker, start_ms, end_ms, text")
        for key, kinds, what in (("speaker", str, "text such as caller or agent"), ("text", str, "text"),
                                 ("interrupt", bool, "true or false"), ("filler", bool, "true or false")):
            if turn.get(key) is not None and not isinstance(turn[key], kinds):
                raise InputError(f"{here}.{key}", f"{str(turn[key])[:40]!r} is not {what}", f"give {what}")
        if turn.get("tool_ms") is not None:
            check_budget(turn["tool_ms"], f"{here}.tool_ms")
        start, end = _ms(turn, "start_ms", here, compat), _ms(turn, "end_ms", here, compat)
        if end < start and compat != "reference":
            raise InputError(f"{here}.end_ms", f"{plain(end)} is before start_ms {plain(start)}",
                             "fix the turn's times (--compat reference scores such a turn as the reference does)")
        speaker = turn.get("speaker")
        if speaker in ("caller", "agent"):
            out.append({**turn, "start_ms": start, "end_ms": end, "index": i})
        elif compat != "reference" and isinstance(speaker, str) and speaker.strip().lower() in ("caller", "agent"):
            # The harness matches speakers exactly and ignores every other one, so "Agent" would drop
            # the agent's turns without a word and the episode would read as one the agent never spoke in.
            wanted = speaker.strip().lower()
            raise InputError(f"{here}.speaker", f"{speaker!r} is not {wanted!r}: speakers are matched exactly and any "
                             "other speaker's turns are ignored",
                             f"write {wanted!r} (or score with --compat reference, which ignores such a turn)")
    return out


class _Counter:
    """Counts of inserted points at or below a rank (a Fenwick tree): log-time insert and query."""

    def __init__(self, size: int) -> None:
        self.tree = [0] * (size + 1)

    def add(self, rank: int) -> None:
        rank += 1
        while rank < len(self.tree):
            self.tree[rank] += 1
            rank += rank & -rank

    def below(self, rank: int) -> int:
        """How many inserted ranks are < ``rank``."""
        total = 0
        while rank > 0:
            total += self.tree[rank]
            rank -= rank & -rank
        return total


def _overlap_counts(callers: list[dict[str, Any]], agents: list[dict[str, Any]]) -> list[tuple[int, int, int]]:
    """For each agent turn: how many caller turns overlap it (touching is not overlap), how many of
    those are interruptions, and how many of those the agent yielded to within the yield window.

    A caller turn c overlaps agent turn a when c.start < a.end and c.end > a.start. Agent turns
    are taken in falling order of start while caller turns are added in falling order of end,
    so each query counts, among callers already added (c.end > a.start), those whose start lies
    in a range: n log n overall, where comparing every pair took a minute at 40,000 turns.

    The yield test, a.end - c.start <= 600, is made on exact decimals (``elapsed_ms``): an
    interrupt at 0.1 ms and an agent end at 600.1 ms are exactly 600 ms apart, inside the window.
    """
    import bisect

    exact_starts = [exact_ms(c["start_ms"]) for c in callers]
    starts = sorted(set(exact_starts))
    rank_of = {s: r for r, s in enumerate(starts)}
    every, interrupts = _Counter(len(starts)), _Counter(len(starts))
    by_end = sorted(range(len(callers)), key=lambda j: callers[j]["end_ms"], reverse=True)
    out: list[tuple[int, int, int]] = [(0, 0, 0)] * len(agents)
    window_ms = Decimal(YIELD_WINDOW_MS)
    k = 0
    for i in sorted(range(len(agents)), key=lambda i: agents[i]["start_ms"], reverse=True):
        a = agents[i]
        while k < len(by_end) and callers[by_end[k]]["end_ms"] > a["start_ms"]:
            rank = rank_of[exact_starts[by_end[k]]]
            every.add(rank)
            if callers[by_end[k]].get("interrupt"):
                interrupts.add(rank)
            k += 1
        end = exact_ms(a["end_ms"])
        before_end = bisect.bisect_left(starts, end)  # ranks of starts < a.end
        window = bisect.bisect_left(starts, _EXACT.subtract(end, window_ms))  # starts < a.end - 600, exactly
        n_int = interrupts.below(before_end)
        out[i] = (every.below(before_end), n_int, n_int - interrupts.below(window))
    return out


def score_episode(dialogue: Any, max_latency_ms: float = DEFAULT_MAX_LATENCY_MS, required_content: Iterable[str] = (),
                  where: str = "DIALOGUE", compat: str = "day60") -> dict[str, Any]:
    """Four sub-scores in [0, 1], their mean, and the all-or-nothing verdict.

    A dialogue with no caller and no agent turn has nothing to score: every sub-score would be
    vacuous, so it is "not scored" (components and verdict null, with the reason), never a pass
    and never a fail. So is one where the agent never spoke and no content was required. With
    ``compat="reference"`` the reference harness's readings are kept: an empty transcript (no turn
    at all) is a fail with scalar 0.0 and no sub-scores, and one whose turns are all other speakers
    (or the caller alone) passes with every sub-score a vacuous 1.0.
    """
    max_latency_ms = check_budget(max_latency_ms, "--max-latency-ms")
    if compat == "reference":  # the reference reads the budget with int(): 1200.9 gives 1200
        max_latency_ms = float(int(max_latency_ms))
    turns = turns_of(dialogue, where, compat)
    keywords = [k.lower() for k in required_content]
    listed = dialogue["turns"] if isinstance(dialogue, dict) else dialogue  # turns_of has checked the shape
    if compat == "reference" and not listed:
        return {"scalar": 0.0, "components": {}, "pass_fail": {"voice": False}, "raw": {
            "turns": 0, "budget_ms": max_latency_ms,
            "note": "empty transcript: the reference fails it with scalar 0.0 and no sub-scores"}}
    if not turns and compat != "reference":
        return {"scalar": None, "components": dict.fromkeys(COMPONENTS), "pass_fail": {
            "voice": None, **{f"{k}_floor": None for k in COMPONENTS}}, "raw": {
            "turns": 0, "budget_ms": max_latency_ms, "other_speaker_turns": len(listed),
            "note": f"not scored: no caller or agent turn to score ({_others(len(listed))})"}}
    callers = [t for t in turns if t["speaker"] == "caller"]
    agents = [t for t in turns if t["speaker"] == "agent"]
    if not agents and not keywords and compat != "reference":  # every sub-score would be vacuous again
        return {"scalar": None, "components": dict.fromkeys(COMPONENTS), "pass_fail": {
            "voice": None, **{f"{k}_floor": None for k in COMPONENTS}}, "raw": {
            "turns": len(turns), "budget_ms": max_latency_ms, "agent_turns": 0,
            "other_speaker_turns": len(listed) - len(turns),
            "note": "not scored: the agent never spoke and nothing was required, so no sub-score has anything to "
                    f"count ({_others(len(listed) - len(turns))})"}}

    counted = inside = 0
    last_caller = None
    last_end: tuple[Any, Decimal] = (None, Decimal(0))
    budget = exact_ms(max_latency_ms)
    for t in turns:
        if t["speaker"] == "caller":
            last_caller = t
        elif last_caller is not None:
            counted += 1
            if last_caller is not last_end[0]:
                last_end = (last_caller, exact_ms(last_caller["end_ms"]))
            gap = _EXACT.subtract(exact_ms(t["start_ms"]), last_end[1])  # exact: 2048.03 after 848.03 is 1200
            inside += 0 <= gap <= budget
    latency = inside / counted if counted else 1.0

    harmful = 0
    pairs = handled = 0
    for n_over, n_interrupts, n_handled in _overlap_counts(callers, agents):
        if n_over and not n_interrupts:
            harmful += 1
        pairs += n_interrupts
        handled += n_handled
    turn_taking = 1 - harmful / len(agents) if agents else 1.0
    barge_in = handled / pairs if pairs else 1.0

    said = " ".join(str(a.get("text") or "") for a in agents).lower()
    hits = [k for k in keywords if k in said]
    content = len(hits) / len(keywords) if keywords else 1.0

    components = {"latency": latency, "turn_taking": turn_taking, "barge_in": barge_in, "content": content}
    raw_info = {"turns": len(turns), "budget_ms": max_latency_ms, "agent_turns": len(agents),
                "latency_counted": counted, "latency_inside": inside, "harmful_overlaps": harmful,
                "barge_in_pairs": pairs, "barge_in_handled": handled,
                "keywords_required": len(keywords), "keywords_missing": [k for k in keywords if k not in said]}
    if compat != "reference":  # turns by anyone else are ignored, as the harness says, and counted here
        raw_info["other_speaker_turns"] = len(listed) - len(turns)
    return _result(components, raw_info)


def _others(n: int) -> str:
    return ("no turn by any other speaker" if n == 0 else
            f"{n} turn{' by another speaker' if n == 1 else 's by other speakers'} ignored: only 'caller' and 'agent' "
            "are scored")


def _result(components: dict[str, float], raw: dict[str, Any]) -> dict[str, Any]:
    rounded = {k: round(v, 6) for k, v in components.items()}
    scalar = round(sum(rounded.values()) / len(rounded), 6)
    floors = {f"{k}_floor": v >= PASS_FLOOR for k, v in rounded.items()}
    passed = all(floors.values())  # the verdict is exactly the floors it reports
    return {"scalar": scalar, "components": rounded, "pass_fail": {"voice": passed, **floors}, "raw": raw}


# ----- suites --------------------------------------------------------------------------------


def load_json(path: str | Path, field: str) -> Any:
    """A dialogue, suite, submission or drill observations file; a key named twice is refused."""
    return read_json(path, field, "a voice JSON file")


def check_suite(suite: Any, compat: str = "day60") -> list[dict[str, Any]]:
    if not isinstance(suite, dict) or suite.get("kind") != SUITE_KIND:
        raise InputError("SUITE", f"is not an {SUITE_KIND} document", f'set "kind": "{SUITE_KIND}"')
    if suite.get("control") != "voice":
        raise InputError("SUITE.control", f"is {suite.get('control')!r}", 'this runner scores "voice" suites')
    tasks = suite.get("tasks")
    if not isinstance(tasks, list) or not tasks:
        raise InputError("SUITE.tasks", "is missing or empty", "list the tasks")
    seen = set()
    for i, task in enumerate(tasks):
        where = f"SUITE.tasks[{i}]"
        if not isinstance(task, dict):
            raise InputError(where, "is not a task object", "give id, budgets, required_content, reference_dialogue")
        ident = task.get("id")
        if isinstance(ident, bool) or not isinstance(ident, str | int) or ident == "":
            raise InputError(f"{where}.id", f"{str(ident)[:40]!r} is not a task id", "give every task a text id")
        if str(ident) in seen:
            raise InputError(f"{where}.id", f"{str(ident)[:40]!r} appears twice", "make task ids unique")
        seen.add(str(ident))
        budget_of(task, where, compat)
        keywords_of(task, where, compat)
    return tasks


def budget_of(task: dict[str, Any], where: str, compat: str = "day60") -> float:
    """The task's reply budget in milliseconds: a finite number, not negative."""
    budgets = task.get("budgets")
    if budgets is None:
        return DEFAULT_MAX_LATENCY_MS
    if not isinstance(budgets, dict):
        raise InputError(f"{where}.budgets", "is not an object", 'write {"max_latency_ms": 1200}')
    value = budgets.get("max_latency_ms", DEFAULT_MAX_LATENCY_MS)
    if compat == "reference" and isinstance(value, str):
        try:
            value = int(value)  # the reference reads the budget with int()
        except ValueError as exc:
            raise InputError(f"{where}.budgets.max_latency_ms", f"{value[:40]!r} is not a whole number",
                             "give a number of milliseconds") from exc
    return check_budget(value, f"{where}.budgets.max_latency_ms")


def check_budget(value: Any, field: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or value < 0 \
            or value > MAX_NUMBER:
        raise InputError(field, f"{str(value)[:40]!r} is not a number of milliseconds from 0 to 10^15",
                         "give a whole or decimal number such as 1200")
    return float(value)


def keywords_of(task: dict[str, Any], where: str, compat: str = "day60") -> list[str]:
    words = task.get("required_content")
    if words is None:
        return []
    if compat == "reference" and isinstance(words, list) and all(
            isinstance(w, str | int | float) and not isinstance(w, bool) for w in words):
        return [str(w) for w in words]  # the reference reads each keyword with str()
    if not isinstance(words, list) or not all(isinstance(w, str) for w in words):
        raise InputError(f"{where}.required_content", "is not a list of text keywords",
                         'write e.g. ["refund", "30 day"]')
    return words


def run_suite(suite: dict[str, Any], submission: dict[str, Any] | None, reference: bool = False,
              compat: str = "day60") -> dict[str, Any]:
    """Score each task's dialogue (the submission's, or with ``reference`` the task's own).

    A submission's keys are task ids as text, so task 1 is found under "1" (as the reference
    looks it up). A dialogue with nothing to score makes its row void, with the reason.
    """
    tasks = check_suite(suite, compat)
    if not reference and not isinstance(submission, dict):
        raise InputError("--submission", "is not a {task_id: dialogue} object", "give a JSON object")
    submission = submission or {}
    for key in submission:
        if not isinstance(key, str):
            raise InputError(f"--submission.{str(key)[:40]}", f"the key {str(key)[:40]!r} is not text",
                             f'give task ids as text keys, e.g. "{str(key)[:40]}"')
    rows = []
    for i, task in enumerate(tasks):  # by place: looking each task up again was n² comparisons
        where = f"SUITE.tasks[{i}]"
        budget = budget_of(task, where, compat)
        dialogue = task.get("reference_dialogue") if reference else submission.get(str(task["id"]))
        row: dict[str, Any] = {"task_id": task["id"], "world_kind": _world_kind(task, suite),
                               "execution_class": "artifact_in"}
        if dialogue is None:
            row.update(verdict="void", result=None,
                       reason="no reference dialogue in the task" if reference else "no dialogue in the submission")
        else:
            result = score_episode(dialogue, budget, keywords_of(task, where, compat), f"{where}.reference_dialogue"
                                   if reference else f"--submission.{str(task['id'])[:40]}", compat)
            if result["pass_fail"]["voice"] is None:
                row.update(verdict="void", result=result, reason=result["raw"]["note"])
            elif not result["components"]:  # --compat reference: an empty transcript fails, with no sub-score
                row.update(verdict="fail", result=result, reason=result["raw"]["note"])
            else:
                row.update(verdict="pass" if result["pass_fail"]["voice"] else "fail", result=result)
        rows.append(row)
    scored = [r for r in rows if r["verdict"] != "void"]
    passed = [r for r in scored if r["verdict"] == "pass"]

    def rollup(key: str) -> dict[str, dict[str, int]]:
        out: dict[str, dict[str, int]] = {}
        for r in scored:
            slot = out.setdefault(r[key], {"count": 0, "passed": 0})
            slot["count"] += 1
            slot["passed"] += r["verdict"] == "pass"
        return out

    unknown = sorted(set(submission) - {str(t["id"]) for t in tasks}) if not reference else []
    pass_rate = len(passed) / len(scored) if scored else None  # no scored task: no rate, never 0%
    mean_score = sum(r["result"]["scalar"] for r in scored) / len(scored) if scored else None
    if compat == "reference":  # six decimals, and 0.0 rather than null when nothing was scored
        pass_rate, mean_score = round(pass_rate or 0.0, 6), round(mean_score or 0.0, 6)
    return {
        **({"synthetic": "SYNTHETIC: the suite is invented, not a result"} if suite.get("synthetic") else {}),
        "compat": compat,
        "suite": {"name": suite.get("name"), "version": suite.get("version")},
        "modalities": ["voice"],
        "per_task": [{k: v for k, v in r.items() if k not in ("world_kind", "execution_class")} for r in rows],
        "unknown_submission_keys": unknown,
        "aggregate": {
            "count": len(rows), "scored": len(scored), "void": len(rows) - len(scored), "passed": len(passed),
            "pass_rate": pass_rate,
            "mean_score": mean_score,
            "by_modality": {"voice": {"count": len(scored), "passed": len(passed)}} if scored else {},
            "by_world_kind": rollup("world_kind"),
            "by_execution_class": rollup("execution_class"),
            "honesty": {
                "evidence_class": "reference dialogues (the suite's own gold transcripts)" if reference
                else "submitted transcripts",
                "any_live": False,
                "fixture_only": reference,
                "note": "void tasks are excluded from pass_rate and never passed; pass_rate and mean_score are "
                        "over scored tasks and null when none was scored" + (
                            " (--compat reference: 0.0, as the reference gives)" if compat == "reference" else ""),
            },
        },
    }


def _world_kind(task: dict[str, Any], suite: dict[str, Any]) -> str:
    world = task.get("world") or suite.get("world") or {}
    return str(world.get("kind", "simulated-caller")) if isinstance(world, dict) else str(world)


# ----- time to first token (charter 3.13) ----------------------------------------------------


def ttft(dialogues: list[tuple[str, Any]]) -> dict[str, Any]:
    """Caller end to agent reply, over the replies in every dialogue, by nearest rank.

    A reply is the first agent turn after a caller turn. The opening agent turn of each
    dialogue, replies carrying ``tool_ms`` (a tool call) and replies that overlap the caller
    (negative gaps) are reported apart. Where a reply is a ``filler`` (a holding phrase, with or
    without a tool running behind it), the time to the first substantive agent turn is reported
    beside it, and a filler no answer followed before the caller spoke again is counted. Each gap
    is the exact decimal difference of the two times (2048.03 after 848.03 is 1200, not
    1200.0000000000002), given as a float.

    The caller's end comes from the platform's endpointing or from voice-activity detection, and
    the two are not comparable (3.13.1): each source's figures are in ``by_endpointing``, and the
    pooled figures are given only where every dialogue states one and the same source; otherwise
    they read not run, with the reason.
    """
    groups: dict[str, list[tuple[str, Any]]] = {}
    for name, dialogue in dialogues:
        stated = dialogue.get("endpointing", "not stated") if isinstance(dialogue, dict) else "not stated"
        if stated not in ("platform", "vad", "not stated"):
            raise InputError(f"{name}.endpointing", f"{str(stated)[:40]!r} is not platform or vad",
                             'write "endpointing": "platform" or "vad", or leave it out')
        groups.setdefault(stated, []).append((name, dialogue))
    parts = {source: _ttft_of(mine) for source, mine in sorted(groups.items())}
    out: dict[str, Any] = {"unit": "ms", "endpointing": sorted(parts), "dialogues": len(dialogues),
                           "by_endpointing": parts}
    if len(parts) == 1:
        return {**out, **next(iter(parts.values()))}
    why = (f"the dialogues' caller ends come from {' and '.join(sorted(parts))}, which are not comparable (3.13.1): "
           "each source's figures are in by_endpointing")
    return {**out, "replies": _dist([], why), "opening_turns": [o for p in parts.values() for o in p["opening_turns"]],
            "tool_calls": {**_dist([], why), "tool_ms_mean": None},
            "filler": {"ttft": _dist([], why), "first_substantive": _dist([], why),
                       "during_tool": sum(p["filler"]["during_tool"] for p in parts.values()),
                       "unanswered": sum(p["filler"]["unanswered"] for p in parts.values())},
            "excluded": {k: sum(p["excluded"][k] for p in parts.values()) for k in ("overlapping_replies",
                                                                                   "continuations")},
            "pooled": False, "pooled_reason": why}


def _ttft_of(dialogues: list[tuple[str, Any]]) -> dict[str, Any]:
    """``ttft``'s figures over dialogues whose caller ends come from one source."""
    main, opening, tools, overlapping, fillers, first_substantive = [], [], [], [], [], []
    continuations = during_tool = unanswered = 0
    for name, dialogue in dialogues:
        turns = turns_of(dialogue, name)
        seen_agent = False
        last_caller = None
        replied = False
        waiting_substance: float | None = None
        for t in turns:
            if t["speaker"] == "caller":
                if waiting_substance is not None:  # the holding phrase was never followed by an answer
                    unanswered += 1
                last_caller, replied, waiting_substance = t, False, None
                continue
            if waiting_substance is not None and not t.get("filler"):
                first_substantive.append(float(elapsed_ms(waiting_substance, t["start_ms"])))
                waiting_substance = None
                continue  # the answer a filler stood in for: counted there, not as a continuation
            if not seen_agent:
                seen_agent = True
                gap = float(elapsed_ms(last_caller["end_ms"], t["start_ms"])) if last_caller else None
                opening.append({"dialogue": name, "ms": gap})
                replied = True
                continue
            if last_caller is None or replied:
                continuations += 1
                continue
            replied = True
            gap = float(elapsed_ms(last_caller["end_ms"], t["start_ms"]))  # exact, then shown as a float
            if gap < 0:
                overlapping.append(gap)
                continue
            if t.get("tool_ms") is not None:
                tools.append((gap, float(t["tool_ms"])))
            else:
                main.append(gap)
            if t.get("filler"):  # a holding phrase, while a tool runs or not: the real wait is reported too
                fillers.append(gap)
                during_tool += t.get("tool_ms") is not None
                waiting_substance = last_caller["end_ms"]
        if waiting_substance is not None:
            unanswered += 1
    return {
        "pooled": True,
        "replies": _dist(main, "no agent reply to a caller turn"),
        "opening_turns": opening,
        "tool_calls": {**_dist([g for g, _ in tools], "no reply carried a tool call"),
                       "tool_ms_mean": sum(t for _, t in tools) / len(tools) if tools else None},
        "filler": {"ttft": _dist(fillers, "no reply was a filler"),
                   "first_substantive": _dist(first_substantive, "no substantive turn followed a filler"),
                   "during_tool": during_tool, "unanswered": unanswered},
        "excluded": {"overlapping_replies": len(overlapping), "continuations": continuations},
    }


def _dist(values: list[float], reason: str) -> dict[str, Any]:
    if not values:
        return {"count": 0, "p50": None, "p95": None, "p99": None, "mean": None, "max": None, "reason": reason}
    return {"count": len(values), "p50": nearest_rank(values, 50), "p95": nearest_rank(values, 95),
            "p99": nearest_rank(values, 99), "mean": sum(values) / len(values), "max": max(values)}

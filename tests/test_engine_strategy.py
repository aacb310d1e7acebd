"""The incident journals that tests/test_engine.py's property test draws, and a check that the
drawing does what it says.

A journal drawn at random from the incident kinds is nearly always refused by the first rule of
fact (an event before any detection or notice): of the old draws, 26 of the 30 the ci profile
made were refused (97% of 1,000), so the engine's figures were compared on four small journals.
Here each incident is told step by step: a detection or a notice, then one of the ways an
incident ends (ENDINGS: restored, restored after re-opens, closed unrestored, left open,
withdrawn...) with steps the rules allow drawn between, at instants mostly moving forward, some
written wrong and corrected; so most journals are read for figures. A minority break exactly one
rule at one step (each rule has its turn), and a few are the old free draw, kinds in any order.

The window is ``make_journal``'s (Mon 2 Mar 09:00 to Fri 13 Mar 17:30, GMT): an incident's story
starts near either end of it, so clocks before the window, restores after its end and re-opens
past it all come up.
"""

from __future__ import annotations

import collections
import datetime as dt
from dataclasses import dataclass, field

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from day60 import journal as jr
from day60.errors import InputError

UTC = dt.UTC
W0 = dt.datetime(2026, 3, 2, 9, tzinfo=UTC)  # make_journal's window, in GMT (= UTC in March)
W1 = dt.datetime(2026, 3, 13, 17, 30, tzinfo=UTC)
_W1_MIN = int((W1 - W0).total_seconds() // 60)

# The old free draw: kinds (the restore and detection twice, to weight them), ids and hours.
INCIDENT_KINDS = ["incident.detected", "incident.partner-notice", "incident.classified", "incident.communicated",
                  "incident.wait-start", "incident.wait-end", "incident.change-window-start",
                  "incident.change-window-end", "incident.restored", "incident.ticket-closed", "incident.reopened",
                  "incident.restored", "incident.detected+stand-in"]
DATA = {"incident.detected+stand-in": {"source": "organic", "clock_start": "ticket-opened"},
        "incident.detected": {"source": "organic"}, "incident.partner-notice": {"source": "organic"},
        "incident.classified": {"severity": 2, "reason": "r"}, "incident.restored": {"check": "c"},
        "incident.ticket-closed": {"state": "Closed", "resolved": True}, "incident.reopened": {"reason": "relapse"},
        "incident.withdrawn": {"reason": "duplicate"}, "incident.excluded": {"reason": "out of scope"}}

# The rules of fact on incidents a draw can break, each with the words of the reference's refusal
# (day60/journal/rules.py) that name it.
RULES = {
    "no clock": ("has been raised, detected or notified", "has no clock yet"),
    "second detection": ("is already detected",),
    "end before the clock": ("before the incident's clock started",),
    "second restore": ("is already restored",),
    "re-open of a live incident": ("is neither restored nor closed",),
    "re-open before its end": ("it re-opens",),
    "end before the re-open": ("before the incident was re-opened",),
    "notice after a standing restore": ("comes after the incident was restored",),
    "pause opened twice": ("is already open for",),
    "pause end with no start": ("has no wait-start", "has no change-window-start"),
    "pause end before its start": ("is before its wait-start", "is before its change-window-start"),
}


def rule_broken(message: str) -> str:
    """Which of RULES a refusal names ("other" for none of them)."""
    return next((rule for rule, words in RULES.items() if any(w in message for w in words)), "other")


Event = tuple[str, str, str, dict]  # kind, id, instant as written (ISO), data


@dataclass(frozen=True)
class Drawn:
    """One journal's incident events in seq order, then its corrections, each naming an event by
    its place in ``events`` and giving the instant it is corrected to. ``meant``: what the draw
    set out to make ("lawful", a rule of RULES it breaks once, or "any order")."""

    events: tuple[Event, ...]
    corrections: tuple[tuple[int, str], ...] = ()
    meant: str = "lawful"

    @classmethod
    def free(cls, steps: list[tuple[str, str, int]]) -> Drawn:
        """The old free form: (kind, id, hours from the window's start), no corrections."""
        return cls(tuple((kind.split("+")[0], ident, (W0 + dt.timedelta(hours=hours)).isoformat(), DATA.get(kind, {}))
                         for kind, ident, hours in steps), meant="any order")

    def raw_events(self) -> list[dict]:
        """The events as the journal holds them (seq from 1, corrections last), without the line
        fields the rules do not read."""
        out = [{"seq": n, "kind": kind, "id": ident, "at": at, "data": data}
               for n, (kind, ident, at, data) in enumerate(self.events, start=1)]
        for target, at in self.corrections:
            seq = len(out) + 1
            out.append({"seq": seq, "kind": "correction", "id": str(target + 1), "at": "2026-12-01T00:00:00+00:00",
                        "data": {"target": target + 1, "at": at, "reason": "the log, read again"}})
        return out


@dataclass
class _Story:
    """One incident as the rules of fact see it so far (journal.rules.State and Ending, for one id)."""

    ident: str
    t: int  # minutes from W0 the story has reached: most steps come at or after it
    clock: int | None = None  # the earliest detection or notice so far
    detected: bool = False
    last: str | None = None  # "restored" or "reopened": the latest of the two
    last_at: int = 0
    closed_at: int | None = None
    closed_after: bool = False  # the latest closure came after the latest restore or re-open
    open: dict[str, int] = field(default_factory=dict)  # "wait"/"change-window" -> its start

    @property
    def state(self) -> str:
        if self.last == "restored":
            return "restored"
        return "closed" if self.closed_at is not None and self.closed_after else "live"

    def lawful(self) -> dict[str, tuple[int | None, int | None]]:
        """The kinds the rules allow next, each with the earliest and latest instant allowed."""
        if self.clock is None:
            return {"incident.detected": (None, None), "incident.partner-notice": (None, None)}
        after_reopen = self.last_at if self.last == "reopened" else None
        floor = max(self.clock, after_reopen) if after_reopen is not None else self.clock
        moves: dict[str, tuple[int | None, int | None]] = {
            "incident.classified": (None, None), "incident.communicated": (None, None),
            "incident.partner-notice": (None, self.last_at if self.state == "restored" else None),
            "incident.ticket-closed": (floor, None)}
        if not self.detected:
            moves["incident.detected"] = (None, None)
        for pause in ("wait", "change-window"):
            if pause in self.open:
                moves[f"incident.{pause}-end"] = (self.open[pause], None)
            else:
                moves[f"incident.{pause}-start"] = (None, None)
        if self.state != "restored":
            moves["incident.restored"] = (floor, None)
        else:
            moves["incident.reopened"] = (self.last_at, None)
        if self.state == "closed":
            moves["incident.reopened"] = (self.closed_at, None)
        return moves

    def breaks(self) -> dict[str, tuple[str, int]]:
        """One way to break each rule that can be broken next: rule -> (kind, instant)."""
        if self.clock is None:
            return {"no clock": ("incident.restored", self.t + 60)}
        out = {}
        if self.detected:
            out["second detection"] = ("incident.detected", self.t + 10)
        floor_kind = "incident.restored" if self.state != "restored" else "incident.ticket-closed"
        out["end before the clock"] = (floor_kind, self.clock - 30)
        if self.state == "restored":
            out["second restore"] = ("incident.restored", self.t + 30)
            out["notice after a standing restore"] = ("incident.partner-notice", self.last_at + 15)
            out["re-open before its end"] = ("incident.reopened", self.last_at - 1)
        elif self.state == "live":
            out["re-open of a live incident"] = ("incident.reopened", self.t + 30)
        else:
            out["re-open before its end"] = ("incident.reopened", self.closed_at - 1)
        if self.last == "reopened" and self.last_at > self.clock:
            kind = "incident.restored" if self.state != "restored" else "incident.ticket-closed"
            out["end before the re-open"] = (kind, self.last_at - 1)
        for pause in ("wait", "change-window"):
            if pause in self.open:
                out["pause opened twice"] = (f"incident.{pause}-start", self.t + 5)
                out["pause end before its start"] = (f"incident.{pause}-end", self.open[pause] - 20)
            else:
                out["pause end with no start"] = (f"incident.{pause}-end", self.t + 5)
        return out

    def step(self, kind: str, at: int) -> None:
        """What the rules remember of an event (kept even for a rule-breaking one: what follows it
        is never read by the reference, which stops at the break)."""
        self.t = max(self.t, at)
        if kind in ("incident.detected", "incident.partner-notice"):
            self.clock = at if self.clock is None else min(self.clock, at)
            self.detected |= kind == "incident.detected"
        elif kind == "incident.ticket-closed":
            self.closed_at, self.closed_after = at, True
        elif kind in ("incident.restored", "incident.reopened"):
            self.last, self.last_at, self.closed_after = kind.split(".")[1], at, False
        elif kind.endswith("-start"):
            self.open[kind.removeprefix("incident.").removesuffix("-start")] = at
        elif kind.endswith("-end"):
            self.open.pop(kind.removeprefix("incident.").removesuffix("-end"), None)


SEVERITY = st.sampled_from([None, 1, 2, 3, 4])
# where an incident's story starts, in minutes from W0: at the window's opening, inside it, a few
# hours before it opens, the day before, late on its last day and just after it ends
ANCHORS = st.sampled_from([0, 2 * 24 * 60 + 90, -3 * 60, 6 * 24 * 60 + 30, -26 * 60, _W1_MIN - 3 * 60,
                           _W1_MIN + 30])
# the gap to the next step, in minutes: mostly forward, sometimes back or none (a step is then
# moved to the earliest or latest instant the rules allow it, so equal instants come up too)
GAP = st.one_of(st.integers(1, 8 * 60), st.integers(1, 8 * 60), st.sampled_from([0, 1, 30, 26 * 60]),
                st.integers(-4 * 60, 0))


def _data(draw, kind: str) -> dict:
    data = dict(DATA.get(kind, {}))
    if kind in ("incident.detected", "incident.partner-notice"):
        severity = draw(SEVERITY)
        if severity is not None:
            data["severity"] = severity
        if kind == "incident.detected" and draw(st.integers(0, 4)) == 0:
            data["clock_start"] = "ticket-opened"
    elif kind == "incident.classified":
        data["severity"] = draw(st.integers(1, 4))
    elif kind == "incident.ticket-closed":
        data = {"state": draw(st.sampled_from(["Closed", "Resolved"])), "resolved": draw(st.booleans())}
    return data


def _iso(minutes: int) -> str:
    return (W0 + dt.timedelta(minutes=minutes)).isoformat()


_ENDS = ("incident.restored", "incident.reopened", "incident.ticket-closed")  # only where a plan puts them
# How an incident's story ends, as the restores, closures and re-opens it takes in order; the
# steps between them are drawn from what else the rules allow then (notices, severities, waits,
# change windows, communications).
ENDINGS = [("incident.restored",),
           ("incident.restored", "incident.reopened", "incident.restored"),
           (),  # never restored: open
           ("incident.ticket-closed",),  # closed with no restore: unconfirmed
           ("incident.restored", "incident.ticket-closed"),
           ("incident.restored", "incident.reopened", "incident.restored", "incident.reopened", "incident.restored"),
           ("incident.ticket-closed", "incident.reopened", "incident.restored"),
           ("incident.restored", "incident.reopened"),  # relapsed and still open
           ("incident.restored", "incident.withdrawn"), ("incident.excluded",)]
# The steps between, by weight: waits and change windows (the figures turn on them) and severities
# come up more often than the rest; an open pause's end most often once the incident is restored,
# so that pauses running on past the restore (clipped to it, counted open) are common.
_BETWEEN = {"incident.wait-start": 2, "incident.change-window-start": 2, "incident.classified": 2}


def _weight(story: _Story, kind: str) -> int:
    """How often a step between is drawn, against 1 for the plainest (see _BETWEEN)."""
    if kind.endswith("-end"):
        return 6 if story.state == "restored" else 2
    return _BETWEEN.get(kind, 1)


# The steps between that lead to where a rule can be broken, drawn four times as often while a
# draw aims at that rule and has not yet broken it (the endings reach the rest).
TOWARDS = {"second detection": ("incident.detected",),
           "pause opened twice": ("incident.wait-start", "incident.change-window-start"),
           "pause end before its start": ("incident.wait-start", "incident.change-window-start")}


@st.composite
def _plan(draw) -> list[str]:
    """One incident's steps: "start" (a detection or a notice), its ending's kinds, and "between"
    (a step drawn when it comes) before, among and after them."""
    plan = ["start"]
    for kind in draw(st.sampled_from(ENDINGS)):
        plan += ["between"] * draw(st.integers(0, 3)) + [kind]
    return plan + ["between"] * draw(st.integers(0, 3))


@st.composite
def lawful_or_broken(draw, broken: bool = False, aim: str | None = None) -> Drawn:
    """Up to four incidents, each told step by step (``_plan``), interleaved. If ``broken``, one
    step breaks one rule: ``aim`` (a rule of RULES, drawn if not given), at the first step from a
    drawn place on where it can be broken (or, if none can, whichever rule the last step can
    break); the step is written as it breaks the rule, or written at another instant and
    corrected to it."""
    idents = ["A", "B", "C", "D"][:draw(st.integers(1, 4))]
    stories = {i: _Story(i, t=draw(ANCHORS) + draw(st.integers(-90, 90))) for i in idents}
    plans = {i: draw(_plan()) for i in idents}
    order = draw(st.permutations([i for i in idents for _ in plans[i]]))
    aim = (aim or draw(st.sampled_from(sorted(RULES)))) if broken else None
    earliest = draw(st.integers(0, len(order) - 1)) if broken else len(order)
    meant = "lawful"
    events: list[Event] = []
    corrections: list[tuple[int, str]] = []
    for n, ident in enumerate(order):
        story, planned = stories[ident], plans[ident].pop(0)
        breaks = story.breaks() if meant == "lawful" and n >= earliest else {}
        if aim in breaks or (breaks and n == len(order) - 1):
            meant = aim if aim in breaks else draw(st.sampled_from(sorted(breaks)))
            kind, at = breaks[meant]
            fixed = not kind.endswith("detected") and meant != "no clock" and draw(st.integers(0, 2)) == 0
        else:
            moves = story.lawful()
            if planned in ("incident.withdrawn", "incident.excluded"):
                moves = {planned: (None, None)}
            elif planned in moves and planned != "start":
                moves = {planned: moves[planned]}
            else:  # a step between (or a planned end the story cannot take now, after a break)
                moves = {k: v for k, v in moves.items() if k not in _ENDS or story.clock is None}
            towards = TOWARDS.get(aim, ()) if meant == "lawful" else ()
            kind = draw(st.sampled_from([k for k in sorted(moves)
                                         for _ in range(_weight(story, k) * (4 if k in towards else 1))]))
            low, high = moves[kind]
            at = story.t + draw(GAP)
            at = max(at, low) if low is not None else at
            at = min(at, high) if high is not None else at
            fixed = draw(st.integers(0, 7)) == 0  # written wrong and corrected (once, or twice)
        if fixed:
            if draw(st.booleans()):
                corrections.append((len(events), _iso(at + draw(st.integers(-600, 600)))))
            corrections.append((len(events), _iso(at)))
            written = at + draw(st.integers(1, 3000)) * draw(st.sampled_from([1, -1]))
        events.append((kind, ident, _iso(written if fixed else at), _data(draw, kind)))
        story.step(kind, at)
    if corrections:  # the corrections come after every event, in a drawn order (the last of each wins)
        corrections = _keep_order_per_target(draw(st.permutations(corrections)), corrections)
    return Drawn(tuple(events), tuple(corrections), meant)


def _keep_order_per_target(shuffled: list, original: list) -> list:
    """``shuffled``, but each target's own corrections in their original order (the last stands)."""
    queues = collections.defaultdict(collections.deque)
    for target, at in original:
        queues[target].append(at)
    return [(target, queues[target].popleft()) for target, _ in shuffled]


FREE = st.lists(st.tuples(st.sampled_from(INCIDENT_KINDS), st.sampled_from(["A", "B"]), st.integers(-40, 40)),
                min_size=1, max_size=14).map(Drawn.free)


# Seven in ten lawful, two breaking one rule, one in any order (Hypothesis repeats and varies its
# draws, so the shares drift: 72% of 1,000 derandomized draws are read, measured).
MODES = ["lawful", "broken", "lawful", "lawful", "any order", "lawful", "broken", "lawful", "lawful", "lawful"]


def incident_journals() -> st.SearchStrategy[Drawn]:
    """Mostly lawful journals, some breaking one rule once, a few in any order (MODES)."""
    return st.sampled_from(MODES).flatmap(
        lambda mode: FREE if mode == "any order" else lawful_or_broken(broken=mode == "broken"))


def verdict_of_rules(drawn: Drawn) -> str:
    """"read", or the rule of RULES the reference's replay of the rules of fact refuses it by."""
    try:
        jr.check_rules(drawn.raw_events())
    except InputError as exc:
        return rule_broken(str(exc))
    return "read"


def _draws(strategy: st.SearchStrategy[Drawn], count: int) -> list[Drawn]:
    """``count`` draws, the same on every run."""
    drawn: list[Drawn] = []

    @settings(max_examples=count, derandomize=True, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=[HealthCheck.too_slow])
    @given(strategy)
    def take(d: Drawn) -> None:
        drawn.append(d)

    take()
    return drawn


def test_most_draws_are_lawful_and_every_lawful_one_is_read():
    """100 draws replayed by the reference's rules of fact: each lawful one is read, each meant to
    break a rule is refused by that rule and no other, and at least half are read (72% over
    1,000 draws, measured, and 64 of these 100: Hypothesis draws in clusters)."""
    verdicts = collections.Counter((d.meant, verdict_of_rules(d)) for d in _draws(incident_journals(), 100))
    for (meant, got), n in verdicts.items():
        if meant == "lawful":
            assert got == "read", f"{n} lawful draw(s) refused by {got!r}"
        elif meant != "any order":
            assert got == meant, f"{n} draw(s) meant to break {meant!r} refused by {got!r} instead"
    read = sum(n for (_, got), n in verdicts.items() if got == "read")
    assert read >= 0.5 * sum(verdicts.values()), verdicts


@pytest.mark.parametrize("rule", sorted(RULES))
def test_each_rule_can_be_broken_alone(rule):
    """Aimed at one rule, the draws break that rule in at least a quarter of 10 journals (4 of 10
    for the rarest, an end dated before the re-open, measured), and every one of them is refused
    (by the rule the draw says it broke, where the aim could not be met)."""
    drawn = _draws(lawful_or_broken(broken=True, aim=rule), 10)
    verdicts = [(d.meant, verdict_of_rules(d)) for d in drawn]
    assert all(meant == got for meant, got in verdicts), verdicts
    assert sum(got == rule for _, got in verdicts) >= 3, verdicts

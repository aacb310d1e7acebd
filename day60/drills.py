"""Live-call drills: scoring recorded observations of fifteen drills for voice and video agents.

The call is captured elsewhere; this module scores what was observed. Thresholds, the homophone
table and every decision where the reference is silent are in ``rubric/voice/drills-v1.yaml``.
Each drill is scored 0 to 100 and says what it was built from; a drill with no observation
reads ``not run``; one that could not be measured says so rather than pretending to fail.
"""

from __future__ import annotations

import math
import re
import unicodedata
from decimal import Decimal
from functools import lru_cache
from typing import Annotated, Any, Literal

import regex
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, model_validator

from day60.curve import slide
from day60.errors import InputError, pydantic_problem
from day60.resources import load_yaml
from day60.voice import elapsed_ms, exact_ms, plain, sum_ms

RULES_FILE = "drills-v1.yaml"
DRILLS = ("turn_taking", "read_back", "barge_in", "hold_tongue", "exact_string", "noise", "stay_out",
          "speaker_binding", "cocktail_party", "vision_card", "text_chat", "screen_share", "mute", "camera",
          "object_recognition")
_UNITS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
          "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"]
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80,
         "ninety": 90}

def _ms(optional: bool = False) -> Any:
    """A time in milliseconds from the drill's own reference point."""
    return Field(None if optional else ..., ge=0, description="milliseconds from the drill's own reference point")


class _In(BaseModel):
    # strict: "10000" is not a time, 1 is not true, and no NaN or infinity is ever a time
    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False)


Word = int | str


@lru_cache(maxsize=1)
def _table() -> dict[str, int]:
    return rules()["homophones"]


def _a_number(value: Word) -> Word:
    """What he dictates is a number: digits, number words, or a homophone from the published table."""
    if number(value, _table()) is None:
        raise ValueError(f"{str(value)[:40]!r} is not a number (digits, number words or a published homophone), "
                         "so nothing could be checked against it")
    return value


Number = Annotated[Word, AfterValidator(_a_number)]  # a number he dictated (what came back may be anything)


class Round(_In):
    expected: int
    heard: Word | None = Field(None, description="what the recogniser heard (a word or digits), null for none")
    latency_ms: float | None = _ms(optional=True)
    talk_over_ms: float | None = Field(None, ge=0, description="evidence kept, not scored: how long the reply "
                                                               "overlapped his speech")
    repeated_ms: float | None = Field(None, ge=0, description="evidence kept, not scored: when a turn that arrived "
                                                              "twice arrived again")


class ReadBack(_In):
    said: list[Number] = Field(min_length=1)
    heard: list[Word | None] | None = Field(None, description="read back in order; null for no reply")
    latency_ms: float | None = _ms(optional=True)


class BargeIn(_In):
    speech_heard: bool
    speech_end_ms: float | None = Field(None, ge=0, description="when far-end speech finished, if it did")
    interrupt_ms: float = _ms()
    stopped_ms: float | None = Field(None, ge=0)


class HoldTongue(_In):
    reply: str | None = Field(None, description="the recogniser's text of the reply to NOW, null for none")
    word_start_ms: float | None = Field(None, ge=0, description="from NOW")
    word_end_ms: float | None = Field(None, ge=0)
    next_speech_ms: float | None = Field(None, ge=0, description="the agent's next speech, null if it held")
    silence_ms: float = Field(gt=0, description="the silence drawn for the run")

    @model_validator(mode="after")
    def _word_forwards(self) -> HoldTongue:
        if self.word_start_ms is not None and self.word_end_ms is not None and self.word_end_ms < self.word_start_ms:
            raise ValueError(f"word_end_ms {plain(self.word_end_ms)} is before word_start_ms "
                             f"{plain(self.word_start_ms)}: a word cannot end before it begins")
        return self


class NoiseRound(ReadBack):
    noise_db: float | None = None
    voice_db: float | None = None


class Noise(_In):
    rounds: list[NoiseRound] = Field(min_length=3, max_length=3)


class Hole(_In):
    start_ms: float = _ms()
    end_ms: float = _ms()

    @model_validator(mode="after")
    def _forwards(self) -> Hole:
        if self.end_ms < self.start_ms:
            raise ValueError(f"a listening hole ends ({plain(self.end_ms)} ms) before it starts "
                             f"({plain(self.start_ms)} ms)")
        return self


class StayOut(_In):
    addressed_ms: float = Field(gt=0, description="when he addressed the agent by name: the end of the stretch")
    first_speech_ms: float | None = Field(None, ge=0, description="the agent's first speech, null if none")
    answered: bool = Field(description="whether it answered once addressed")
    holes: list[Hole] = Field(default_factory=list, description="stretches the listener did not hear")


def _named(value: str) -> str:
    if not words(value):
        raise ValueError(f"{value[:40]!r} holds no letters or digits: a rank and a name are words an answer can say")
    return value


class Member(_In):
    rank: Annotated[str, AfterValidator(_named)]
    name: Annotated[str, AfterValidator(_named)]


class BindingTurn(_In):
    half: Literal["facing", "back"]
    speaker: int = Field(ge=0, description="index of the true speaker in the roster")
    answer: str | None = None


class SpeakerBinding(_In):
    roster: list[Member] = Field(min_length=4, max_length=4)
    turns: list[BindingTurn] = Field(min_length=16, max_length=16)

    @model_validator(mode="after")
    def _halves(self) -> SpeakerBinding:
        seen = [(fold(m.rank), fold(m.name)) for m in self.roster]
        for i, key in enumerate(seen):
            if key in seen[:i]:
                raise ValueError(f"roster[{i}] is {self.roster[i].rank} {self.roster[i].name} twice: no answer could "
                                 "tell the two apart")
        for i, turn in enumerate(self.turns):
            if turn.speaker >= len(self.roster):
                raise ValueError(f"turns[{i}].speaker {turn.speaker} is outside the roster of {len(self.roster)}")
        facing = sum(1 for t in self.turns if t.half == "facing")
        if facing != 8:
            raise ValueError(f"turns: {facing} facing and {16 - facing} back; the drill has eight of each")
        return self


class Cocktail(_In):
    his: list[Number] = Field(min_length=5, max_length=5)
    theirs: list[Number]
    heard: list[Word | None] | None = None

    @model_validator(mode="after")
    def _apart(self) -> Cocktail:
        h = _table()
        shared = {number(x, h) for x in self.his} & {number(x, h) for x in self.theirs}
        if shared:
            raise ValueError(f"his numbers and theirs share {', '.join(map(str, sorted(shared)))}; the two sets are "
                             "drawn so that they never share a number")
        return self


class TextChat(_In):
    said: list[Number] = Field(min_length=1)
    written: list[Word | None] | None = Field(None, description="numbers in the posted message; null if none came")
    latency_ms: float | None = _ms(optional=True)
    no_message_reason: str | None = None


class ScreenShare(_In):
    ready_ms: float | None = Field(None, ge=0, description="READY said, from the end of the order")
    share_observed_ms: float | None = Field(None, ge=0, description="sharing seen at the transport")
    code: str
    code_read: str | None = None
    frames_readable: bool = True
    stop_order_ms: float | None = Field(None, ge=0)
    stopped_ms: float | None = Field(None, ge=0)
    code_in_frames: bool | None = Field(None, description="evidence: whether the code was found in the frames the "
                                                          "far end received")


class Change(_In):
    ready: bool = Field(description="the opposite state held when the order came (a change was possible)")
    order_ms: float = _ms()
    changed_ms: float | None = Field(None, ge=0)
    frame_age_ms: float | None = Field(None, ge=0, description="camera only: age of the newest frame seen")


class Mute(_In):
    mute: Change
    unmute: Change


class Camera(_In):
    on: Change
    off: Change


class ObjectRound(_In):
    choices: list[str] = Field(min_length=4, max_length=4)
    answer: str
    reply: str | None = None
    latency_ms: float | None = _ms(optional=True)

    @model_validator(mode="after")
    def _answer_offered(self) -> ObjectRound:
        named = [words(c) for c in self.choices]
        if not all(named):
            raise ValueError("every choice must name an object in letters or digits")
        if len({tuple(n) for n in named}) != len(named):
            raise ValueError("two of the four choices name the same object")
        if words(self.answer) not in named:
            raise ValueError(f"answer {self.answer!r} is not among the choices offered")
        return self


def _counting(rounds: list[Round] | None) -> list[Round] | None:
    """He counts in twos whatever the agent says: the expected numbers rise by two a round."""
    if rounds:
        for i in range(1, len(rounds)):
            if rounds[i].expected != rounds[i - 1].expected + 2:
                raise ValueError(f"round {i + 1} expects {rounds[i].expected}, but the count runs in twos from "
                                 f"{rounds[0].expected}")
    return rounds


class Drills(_In):
    turn_taking: Annotated[list[Round] | None, AfterValidator(_counting)] = Field(None, min_length=5, max_length=5)
    read_back: ReadBack | None = None
    barge_in: BargeIn | None = None
    hold_tongue: HoldTongue | None = None
    exact_string: ReadBack | None = None
    noise: Noise | None = None
    stay_out: StayOut | None = None
    speaker_binding: SpeakerBinding | None = None
    cocktail_party: Cocktail | None = None
    vision_card: ReadBack | None = None
    text_chat: TextChat | None = None
    screen_share: ScreenShare | None = None
    mute: Mute | None = None
    camera: Camera | None = None
    object_recognition: list[ObjectRound] | None = Field(None, min_length=10, max_length=10)


class Observations(_In):
    synthetic: bool = False
    call: dict[str, Any] = Field(description="id, agent, date and anything else that names the call")
    drills: Drills


def json_schema() -> dict[str, Any]:
    return Observations.model_json_schema()


# ----- helpers -------------------------------------------------------------------------------


def rules() -> dict[str, Any]:
    return load_yaml("rubric", f"voice/{RULES_FILE}")


def number(value: Word | None, homophones: dict[str, int]) -> int | None:
    """A heard number: digits, number words ("twenty one"), or a one-word homophone."""
    if value is None:
        return None
    if isinstance(value, int):
        return value
    text = re.sub(r"[.,!?]+$", "", fold(value).strip()).replace("-", " ")  # read as replies are: "ｔｗｏ" is two
    if re.fullmatch(r"\d+", text):  # beyond 20 digits it is no number anyone dictated (and int() would refuse it)
        return int(text) if len(text) <= 20 else None
    words = text.split()
    if len(words) == 1:
        w = words[0]
        if w in _UNITS:
            return _UNITS.index(w)
        if w in _TENS:
            return _TENS[w]
        return homophones.get(w)
    if len(words) == 2 and words[0] in _TENS and words[1] in _UNITS[1:10]:
        return _TENS[words[0]] + _UNITS.index(words[1])
    return None


def _curve(ms: float | Decimal | None, c: dict[str, Any]) -> float:
    """0 to 100 on the drill's slide. The boundaries (full marks, 60, the end of the window) are
    judged on the exact decimal duration; only the slope between them is worked in floats."""
    if ms is None:
        return 0.0
    d = exact_ms(ms)
    if d <= exact_ms(c["full_ms"]):
        return 100.0
    if d > exact_ms(c["sixty_ms"]):
        return 60.0 if c["beyond"] == "sixty" else 0.0
    return 100 * slide(float(d), c["full_ms"], c["sixty_ms"])


# Characters that join the letters of one word: hyphens and apostrophes in their common forms,
# the Catalan middle dot, and the Hebrew geresh and gershayim. Anything else that is not a letter,
# mark or digit ends a word. Invisible characters (zero-width joiners, soft hyphen, word joiner,
# BOM, variation selectors: Unicode's Default_Ignorable_Code_Point) are gone before words are cut.
_JOIN_AS = {"\u2010": "-", "\u2011": "-", "\u2019": "'", "\u02bc": "'"}
_JOINERS = frozenset("-'\u00b7\u05f3\u05f4")
_IGNORABLE = regex.compile(r"\p{Default_Ignorable_Code_Point}+")


def fold(text: str) -> str:
    """Text for comparing, as Unicode's NFKC_Casefold reads it: invisible (default-ignorable)
    characters removed, compatibility-normalised and case-folded, so "Piñata" typed with a combined
    or a separate tilde, "PIÑATA", full-width "ｐｉñａｔａ" and "pi\u2060ñata" all read "piñata"."""
    text = _IGNORABLE.sub("", text)
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold())
    return "".join(_JOIN_AS.get(ch, ch) for ch in _IGNORABLE.sub("", folded))


def words(text: str | None) -> list[str]:
    """The words of a reply, folded. A word is a run of letters, marks and digits in any script;
    hyphens and apostrophes inside it keep it whole ("yo-yo", "jack-o'-lantern" are one word each),
    while spaces and other punctuation separate words and are dropped."""
    out: list[str] = []
    word: list[str] = []
    held = ""  # joiners seen after the last letter; kept only if another letter follows
    for ch in fold(text or ""):
        if unicodedata.category(ch)[0] in "LMN":
            if held and word:
                word.append(held)
            held = ""
            word.append(ch)
        elif ch in _JOINERS and word:
            held += ch
        else:
            if word:
                out.append("".join(word))
            word, held = [], ""
    if word:
        out.append("".join(word))
    return out


def _in_place(said: list[Word], heard: list[Word | None] | None, h: dict[str, int]) -> tuple[int, list[bool]]:
    if heard is None:
        return 0, [False] * len(said)
    # what he said is always a number (the model checks it); a reply word that names none is never in place
    marks = [i < len(heard) and number(heard[i], h) is not None and number(heard[i], h) == number(s, h)
             for i, s in enumerate(said)]
    return sum(marks), marks


def _result(score: float | None, parts: dict[str, Any], notes: list[str], status: str = "scored") -> dict[str, Any]:
    return {"score": score, "status": status, "parts": parts, "notes": notes}


# ----- the drills ----------------------------------------------------------------------------


def turn_taking(rounds: list[Round], r: dict[str, Any], h: dict[str, int]) -> dict[str, Any]:
    scored = []
    for i, rd in enumerate(rounds, start=1):
        heard = number(rd.heard, h)
        if heard is None or heard != rd.expected:
            scored.append({"round": i, "score": 0.0, "why": "no number heard" if rd.heard is None and heard is None
                           else f"heard {rd.heard!r}, expected {rd.expected}"})
        elif rd.latency_ms is None:
            scored.append({"round": i, "score": 0.0, "why": "reply time not recorded: not shown to land within "
                                                            "5,000 ms"})
        elif rd.latency_ms > r["no_reply_ms"]:
            scored.append({"round": i, "score": 0.0, "why": "no reply within 5,000 ms"})
        else:
            scored.append({"round": i, "score": _curve(rd.latency_ms, r["curve"]), "latency_ms": rd.latency_ms})
    notes = []
    for i, rd in enumerate(rounds, start=1):  # kept as evidence, never scored
        kept = [f"{label} {plain(value)} ms" for label, value in (("talk-over", rd.talk_over_ms),
                                                            ("turn repeated at", rd.repeated_ms)) if value is not None]
        if kept:
            notes.append(f"round {i}: evidence kept, not scored: {', '.join(kept)}")
    return _result(sum(s["score"] for s in scored) / len(scored), {"rounds": scored}, notes)


def read_back(obs: ReadBack, r: dict[str, Any], h: dict[str, int]) -> dict[str, Any]:
    if obs.heard is None:
        return _result(0.0, {"correct": 0, "of": len(obs.said)}, ["no reply: nothing read back"])
    correct, marks = _in_place(obs.said, obs.heard, h)
    notes = [f"timing recorded, not scored: {plain(obs.latency_ms)} ms"] if obs.latency_ms is not None else []
    return _result(100 * correct / len(obs.said), {"correct": correct, "of": len(obs.said), "in_place": marks}, notes)


def barge_in(obs: BargeIn, r: dict[str, Any], h: dict[str, int]) -> dict[str, Any]:
    """Speech that was never heard, or had already finished when he cut in, leaves nothing to
    interrupt. Finished is read from both records, in either order: a speech end or a stop at or
    before the interrupt each mean the speech was over, whatever the other says. Otherwise the
    silence he times begins at the first recorded end after the interrupt, the stop or the speech
    end (a speech end after the interrupt is the speech stopping); with neither, it never stopped."""
    unmeasured = "; unmeasured, not failed, and scored as zero"
    if not obs.speech_heard:
        return _result(0.0, {}, ["nothing to interrupt: no far-end speech was heard" + unmeasured],
                       status="unmeasured")
    ends = [(label, value) for label, value in (("speech ended", obs.speech_end_ms), ("stopped", obs.stopped_ms))
            if value is not None]
    over = [f"{label} at {plain(value)} ms" for label, value in ends if value <= obs.interrupt_ms]
    if over:
        return _result(0.0, {}, [f"nothing to interrupt: the speech had already finished ({', '.join(over)}, at or "
                                 f"before the interrupt at {plain(obs.interrupt_ms)} ms)" + unmeasured],
                       status="unmeasured")
    if not ends:
        return _result(0.0, {"yield_ms": None}, ["never stopped"])
    end = min((value for _, value in ends), key=exact_ms)
    notes = []
    if len(ends) == 2 and exact_ms(ends[0][1]) != exact_ms(ends[1][1]):
        notes.append(f"the two records differ (speech ended at {plain(obs.speech_end_ms)} ms, stopped at "
                     f"{plain(obs.stopped_ms)} ms): the silence is timed from the earlier, {plain(end)} ms")
    yield_ms = elapsed_ms(obs.interrupt_ms, end)  # exact, and above zero here
    return _result(_curve(yield_ms, r["curve"]), {"yield_ms": float(yield_ms)}, notes)


def hold_tongue(obs: HoldTongue, r: dict[str, Any], h: dict[str, int]) -> dict[str, Any]:
    said = words(re.sub(r"(?<=[a-z])\.(?=[a-z])|(?<=\b[a-z])\.", "", fold(obs.reply or "")))  # O.K. is OK
    if said and obs.word_start_ms is not None and obs.word_start_ms > r["word_within_ms"]:
        return _result(0.0, {"reply": obs.reply}, [f"the word began {plain(obs.word_start_ms)} ms after NOW, later "
                                                   "than the 5,000 ms it had"])
    if not said or obs.word_start_ms is None:
        why = "no word" if not said else "a word with no start time recorded, so not shown"
        return _result(0.0, {"reply": obs.reply}, [f"{why} within 5,000 ms of NOW: silence is not restraint"])
    if len(said) != 1 or said[0] not in [fold(w) for w in r["words"]]:
        return _result(0.0, {"reply": obs.reply}, ["the reply was not exactly one of OK or Understood"])
    end = obs.word_end_ms if obs.word_end_ms is not None else obs.word_start_ms
    silence = exact_ms(obs.silence_ms)
    gap = None if obs.next_speech_ms is None else elapsed_ms(end, obs.next_speech_ms)
    held = silence if gap is None or gap >= silence else max(gap, Decimal(0))  # exact: holding to time is full
    # the share first, then the points: 100 * held overflows before the division for a huge silence
    return _result(100 * (float(held) / obs.silence_ms), {"held_ms": float(held), "silence_ms": obs.silence_ms,
                                                        "reply": obs.reply}, [])


def exact_string(obs: ReadBack, r: dict[str, Any], h: dict[str, int]) -> dict[str, Any]:
    if obs.heard is None:
        return _result(0.0, {"exact": False}, ["no reply"])
    exact = len(obs.heard) == len(obs.said) and _in_place(obs.said, obs.heard, h)[0] == len(obs.said)
    return _result(100.0 if exact else 0.0, {"exact": exact}, [] if exact else ["the string came back changed"])


def _accuracy_and_latency(obs: ReadBack, curve: dict[str, Any], h: dict[str, int]) -> dict[str, Any]:
    if obs.heard is None:
        return {"score": 0.0, "accuracy": 0.0, "latency": 0.0, "why": "no reply"}
    correct, _ = _in_place(obs.said, obs.heard, h)
    accuracy = 100 * correct / len(obs.said)
    latency = _curve(obs.latency_ms, curve)
    return {"score": (accuracy + latency) / 2, "accuracy": accuracy, "latency": latency,
            "latency_ms": obs.latency_ms, **({"why": _NO_TIME} if obs.latency_ms is None else {})}


_NO_TIME = "reply time not recorded: the latency half scores nothing"


def noise(obs: Noise, r: dict[str, Any], h: dict[str, int]) -> dict[str, Any]:
    rounds = []
    for i, rd in enumerate(obs.rounds, start=1):
        rounds.append({"round": i, **_accuracy_and_latency(rd, r["curve"], h), "noise_db": rd.noise_db,
                       "voice_db": rd.voice_db})
    notes = [f"round {x['round']}: noise {plain(x['noise_db'])} dB, voice {plain(x['voice_db'])} dB"
             if x["noise_db"] is not None and x["voice_db"] is not None
             else f"round {x['round']}: noise and voice levels not recorded" for x in rounds]
    notes += [f"round {x['round']}: {x['why']}" for x in rounds if x.get("why") == _NO_TIME]
    return _result(sum(x["score"] for x in rounds) / len(rounds), {"rounds": rounds}, notes)


def stay_out(obs: StayOut, r: dict[str, Any], h: dict[str, int]) -> dict[str, Any]:
    if not obs.answered:
        return _result(0.0, {}, ["no answer once addressed: silence from an agent that cannot speak is not "
                                 "restraint"])
    held_end = exact_ms(obs.addressed_ms if obs.first_speech_ms is None else min(obs.first_speech_ms,
                                                                                   obs.addressed_ms))
    from day60.clock import merge_spans

    # overlapping holes are one hole: never subtracted twice; each is named in plain milliseconds
    holes = merge_spans(((exact_ms(h.start_ms), exact_ms(h.end_ms)) for h in obs.holes), Decimal(0), held_end)
    spans = [elapsed_ms(a, b) for a, b in holes]
    notes = [f"listening hole {plain(a)}-{plain(b)} ms counted as zero ({plain(span)} ms)"
             for (a, b), span in zip(holes, spans, strict=True)]
    lost = sum_ms(spans)
    held = max(elapsed_ms(lost, held_end), Decimal(0))
    return _result(100 * (float(held) / obs.addressed_ms), {"held_ms": float(held), "stretch_ms": obs.addressed_ms,
                                                          "holes_ms": float(lost)}, notes)


def speaker_binding(obs: SpeakerBinding, r: dict[str, Any], h: dict[str, int]) -> dict[str, Any]:
    correct = {"facing": 0, "back": 0}
    counts = {"facing": 0, "back": 0}
    notes = []
    for i, turn in enumerate(obs.turns, start=1):
        counts[turn.half] += 1
        verdict = bind(turn.answer, obs.roster)
        if verdict == "unverified":
            notes.append(f"turn {i}: a single person named in wording that cannot be verified ({turn.answer!r}); "
                         "scored nothing, reported as unverified, not wrong")
        elif isinstance(verdict, int) and verdict == turn.speaker:
            correct[turn.half] += 1
    share = {k: 100 * correct[k] / counts[k] if counts[k] else None for k in correct}
    gap = share["facing"] - share["back"] if None not in share.values() else None
    chance = r["chance"]
    notes.insert(0, f"chance level is {100 * chance:g}%; on a half of eight turns, "
                    f"{100 * binomial_at_most(8, chance, 4):.0f}% of pure guessers score 50% or below")
    return _result(100 * sum(correct.values()) / len(obs.turns),
                   {"correct": sum(correct.values()), "of": len(obs.turns), "facing_percent": share["facing"],
                    "back_percent": share["back"], "gap_points": gap, "chance_percent": 100 * chance}, notes)


def bind(answer: str | None, roster: list[Member]) -> int | Literal["none", "several", "unverified"]:
    """Which roster member an answer names by rank and name, if exactly one. A rank and name said
    together name that member and nobody else (a rank two members share does not make it several);
    any other rank or name left in the answer is another candidate."""
    text = fold(answer or "")  # composed and case-folded, so "Zoë" typed either way is one name

    def whole(rank: str, name: str) -> str:
        return rf"\b{re.escape(fold(rank))}\s+{re.escape(fold(name))}\b"

    def said(name: str, where: str) -> bool:  # whole words only: "Sammy" is not Sam, "Maggies" is not Maggie
        return re.search(rf"\b{re.escape(fold(name))}\b", where) is not None

    full = [i for i, m in enumerate(roster) if re.search(whole(m.rank, m.name), text)]
    rest = text
    for i in full:
        rest = re.sub(whole(roster[i].rank, roster[i].name), " ", rest)
    mentioned = set(full) | {i for i, m in enumerate(roster) if said(m.name, rest) or said(m.rank, rest)}
    if len(mentioned) > 1 or len(full) > 1:
        return "several"  # several candidates earn nothing
    if len(full) == 1:
        return full[0]
    return "unverified" if mentioned else "none"


def binomial_at_most(n: int, p: float, k: int) -> float:
    return sum(math.comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(k + 1))


def cocktail_party(obs: Cocktail, r: dict[str, Any], h: dict[str, int]) -> dict[str, Any]:
    if obs.heard is None:
        return _result(0.0, {}, ["no reply"])
    his, _ = _in_place(obs.his, obs.heard, h)
    theirs = {number(x, h) for x in obs.theirs}
    taken = sum(1 for x in obs.heard if x is not None and number(x, h) in theirs)
    raw = r["per_item"] * (his - taken)
    return _result(max(raw, 0.0), {"his_in_place": his, "theirs_read_back": taken}, [] if raw >= 0 else
                   ["more of their numbers than his: floored at nothing"])


def vision_card(obs: ReadBack, r: dict[str, Any], h: dict[str, int]) -> dict[str, Any]:
    part = _accuracy_and_latency(obs, r["curve"], h)
    return _result(part["score"], part, [part["why"]] if part.get("why") else [])


def text_chat(obs: TextChat, r: dict[str, Any], h: dict[str, int]) -> dict[str, Any]:
    if obs.written is None:
        return _result(0.0, {}, [f"no message arrived: {obs.no_message_reason or 'no reason recorded'}"])
    correct, _ = _in_place(obs.said, obs.written, h)
    accuracy, speed = 100 * correct / len(obs.said), _curve(obs.latency_ms, r["curve"])
    notes = ["message time not recorded: the speed half scores nothing"] if obs.latency_ms is None else []
    return _result((accuracy + speed) / 2, {"accuracy": accuracy, "speed": speed, "latency_ms": obs.latency_ms},
                   notes)


def screen_share(obs: ScreenShare, r: dict[str, Any], h: dict[str, int]) -> dict[str, Any]:
    if obs.ready_ms is None or obs.ready_ms > r["ready_within_ms"] or obs.share_observed_ms is None \
            or obs.share_observed_ms > r["share_within_ms"]:
        return _result(0.0, {}, ["no READY, or no share observed within the 30-second window: the whole drill "
                                 "scores nothing"])
    notes = []
    sharing = _curve(obs.share_observed_ms, r["share_curve"])
    if not obs.frames_readable:
        code = 0.0
        notes.append("the shared frames could not be read: an instrument fault, not the agent's")
    else:
        code = 100.0 if fold(obs.code_read or "").strip() == fold(obs.code).strip() else 0.0  # read as replies are
    if obs.code_in_frames is not None:
        notes.append("the code was " + ("" if obs.code_in_frames else "not ") + "found in the frames the far end "
                     "received")
    if obs.stop_order_ms is None:
        stopping = 0.0
        notes.append("no order to stop was recorded, so stopping could not be timed: that third scores nothing")
    elif obs.stopped_ms is None:
        stopping = 0.0
        notes.append("never stopped sharing when told")
    elif obs.stopped_ms <= obs.stop_order_ms:  # at the order's own instant is not after it
        stopping = 0.0
        notes.append("stopped at or before the order to stop: only a change after the order counts")
    else:
        stopping = _curve(elapsed_ms(obs.stop_order_ms, obs.stopped_ms), r["stop_curve"])
    return _result((sharing + code + stopping) / 3, {"sharing": sharing, "code": code, "stopping": stopping}, notes)


def _half(change: Change, curve: dict[str, Any], label: str, still_after: float | None = None) -> tuple[float, str]:
    if not change.ready:
        return 0.0, f"{label}: the state was already changed and not set back when ordered"
    if change.changed_ms is None:
        return 0.0, f"{label}: never happened"
    if change.changed_ms <= change.order_ms:  # "only a change he sees after the order counts"
        return 0.0, f"{label}: changed at or before the order, which earns nothing"
    if still_after is not None and change.frame_age_ms is not None and change.frame_age_ms > still_after:
        return 0.0, f"{label}: the newest frame was {plain(change.frame_age_ms)} ms old: a still, not a live camera"
    return _curve(elapsed_ms(change.order_ms, change.changed_ms), curve), ""


def mute(obs: Mute, r: dict[str, Any], h: dict[str, int]) -> dict[str, Any]:
    if not obs.mute.ready:  # already muted, and not lifted when told to unmute first
        return _result(0.0, {"mute": 0.0, "unmute": 0.0}, ["a mute already in place was not lifted when ordered: "
                                                           "the whole drill scores nothing"])
    a, na = _half(obs.mute, r["curve"], "mute")
    b, nb = _half(obs.unmute, r["curve"], "unmute")
    return _result((a + b) / 2, {"mute": a, "unmute": b}, [n for n in (na, nb) if n])


def camera(obs: Camera, r: dict[str, Any], h: dict[str, int]) -> dict[str, Any]:
    if not obs.on.ready:  # already on, and not turned off when told to first
        return _result(0.0, {"on": 0.0, "off": 0.0}, ["a camera already on was not turned off when ordered: "
                                                      "the whole drill scores nothing"])
    a, na = _half(obs.on, r["curve"], "camera on", r["still_after_ms"])
    b, nb = _half(obs.off, r["curve"], "camera off")
    return _result((a + b) / 2, {"on": a, "off": b}, [n for n in (na, nb) if n])


def object_recognition(rounds: list[ObjectRound], r: dict[str, Any], h: dict[str, int]) -> dict[str, Any]:
    """A round is right when the reply's words are exactly the answer's words (one word for a
    one-word name, whatever its script, hyphens or apostrophes), within the reply window."""
    per = 100 / len(rounds)
    marks = []
    for i, rd in enumerate(rounds, start=1):
        if rd.reply is None:
            why = "no reply"
        elif words(rd.reply) != words(rd.answer):
            why = "not the answer alone (a wrong candidate or extra words)"
        elif rd.latency_ms is None:
            why = "reply time not recorded: not shown to come within 10,000 ms"
        elif rd.latency_ms > r["reply_within_ms"]:
            why = "later than 10,000 ms"
        else:
            why = ""
        marks.append({"round": i, "correct": not why, "reply": rd.reply, **({"why": why} if why else {})})
    return _result(per * sum(m["correct"] for m in marks), {"rounds": marks}, [])


SCORERS = {name: globals()[name] for name in DRILLS}


def score_call(doc: Any) -> dict[str, Any]:
    """Score every drill of one call; absent drills read "not run". No mean hides a missing drill."""
    try:
        obs = Observations.model_validate(doc)
    except ValidationError as exc:
        field, msg = pydantic_problem(exc)
        raise InputError(field, msg, "see 'day60 schema drills'") from exc
    r = rules()
    h = r["homophones"]
    out: dict[str, Any] = {}
    for name in DRILLS:
        data = getattr(obs.drills, name)
        if data is None:
            out[name] = _result(None, {}, ["not run: no observation for this drill"], status="not run")
        else:
            result = SCORERS[name](data, r["drills"][name], h)
            result["decisions"] = r["drills"][name].get("decisions", [])
            out[name] = result
    # An unmeasured drill (nothing to interrupt) is the same zero as any other, as the rules say,
    # so it is in the mean; a drill with no observation at all is not run and stays out of it.
    scored = [n for n in DRILLS if out[n]["status"] in ("scored", "unmeasured")]
    return {"call": obs.call, "synthetic": obs.synthetic, "rules": {"id": r["id"], "version": r["version"]},
            "drills": out,
            "summary": {"mean_of_scored": sum(out[n]["score"] for n in scored) / len(scored) if scored else None,
                        "covers": scored, "not_covered": [n for n in DRILLS if n not in scored],
                        "unmeasured_as_zero": [n for n in scored if out[n]["status"] == "unmeasured"]}}

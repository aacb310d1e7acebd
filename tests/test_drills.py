"""Live-call drills: every rule at and around its boundaries, the reference's own worked
statements, and each decision taken where the reference is silent."""

import json
import unicodedata
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pypdf import PdfReader

from day60 import drills
from day60.errors import InputError
from day60.resources import data_dir
from tests.budget import examples

EXAMPLE = data_dir("rubric") / "voice" / "examples" / "synthetic-drills.json"


def one(name, observation):
    """Score a call holding only this drill."""
    return drills.score_call({"call": {"id": "t"}, "drills": {name: observation}})["drills"][name]


def rounds(*specs):
    """Five rounds of a count in twos from the first spec's number; a later spec's heard value that
    named its own expected number is moved along with it, so "right" stays right."""
    first = specs[0][0]
    out = []
    for i, (e, h, ms) in enumerate(specs):
        expected = first + 2 * i
        out.append({"expected": expected, "heard": str(expected) if i and h == str(e) else h, "latency_ms": ms})
    return out


# ----- turn-taking ---------------------------------------------------------------------------


@pytest.mark.parametrize(("ms", "score"), [(800, 100), (2400, 80), (4000, 60), (4999, 60), (5000, 60),
                                           (5001, 0), (None, 0)])
def test_turn_taking_round_curve(ms, score):
    got = one("turn_taking", rounds((4, "4", ms), *[(6, "6", 0)] * 4))
    assert got["parts"]["rounds"][0]["score"] == pytest.approx(score)
    assert got["score"] == pytest.approx((score + 400) / 5)  # the drill is the mean of five


@pytest.mark.parametrize(("heard", "counts"), [("two", True), ("to", True), ("too", True), ("2", True),
                                               ("Two.", True), ("tutu", False), ("two please", False),
                                               ("three", False), (None, False)])
def test_turn_taking_homophones_one_word_only(heard, counts):
    got = one("turn_taking", rounds((2, heard, 500), *[(4, "4", 0)] * 4))
    assert (got["parts"]["rounds"][0]["score"] == 100) is counts


def test_homophone_table_is_published():
    table = drills.rules()["homophones"]
    assert table["to"] == table["too"] == 2 and table["for"] == 4 and table["won"] == 1 and table["ate"] == 8


def test_turn_taking_needs_five_rounds():
    with pytest.raises(InputError) as err:
        drills.score_call({"call": {}, "drills": {"turn_taking": rounds((2, "2", 100))}})
    assert err.value.field == "drills.turn_taking"


# ----- read back, exact string, cocktail party ----------------------------------------------------


def test_read_back_share_in_place_and_no_reply():
    said = [7, 3, 9, 1, 5, 8]
    assert one("read_back", {"said": said, "heard": [7, 3, 9, 1, 5, 8]})["score"] == 100
    assert one("read_back", {"said": said, "heard": [3, 9, 1, 5, 8]})["score"] == 0  # shifted: none in place
    assert one("read_back", {"said": said, "heard": [7, 3, 9, 1, 5, "ate"]})["score"] == 100
    assert one("read_back", {"said": said, "heard": [7, 3, 9, 1, 5, 6]})["score"] == pytest.approx(500 / 6)
    assert one("read_back", {"said": said, "heard": None})["score"] == 0


def test_exact_string_all_or_nothing():
    said = [2, 0, 4, 6, 1, 9]
    assert one("exact_string", {"said": said, "heard": said})["score"] == 100
    assert one("exact_string", {"said": said, "heard": [2, 0, 4, 6, 1, 8]})["score"] == 0
    assert one("exact_string", {"said": said, "heard": [*said, 3]})["score"] == 0  # something added
    assert one("exact_string", {"said": said, "heard": None})["score"] == 0


def test_cocktail_party_penalty_and_floor():
    base = {"his": [4, 9, 2, 7, 5], "theirs": [1, 6, 8]}
    assert one("cocktail_party", {**base, "heard": [4, 9, 2, 7, 5]})["score"] == 100
    assert one("cocktail_party", {**base, "heard": [4, 9, 6, 7, 5]})["score"] == 60  # 4 x 20 - 20
    assert one("cocktail_party", {**base, "heard": [1, 6, 8, 1, 6]})["score"] == 0  # never below nothing
    assert one("cocktail_party", {**base, "heard": None})["score"] == 0


# ----- barge-in -----------------------------------------------------------------------------


@pytest.mark.parametrize(("stop", "score"), [(1000, 100), (1500, 80), (2000, 60), (9000, 60), (None, 0)])
def test_barge_in_yield_and_decision_later_stop_keeps_60(stop, score):
    got = one("barge_in", {"speech_heard": True, "interrupt_ms": 10000,
                           "stopped_ms": None if stop is None else 10000 + stop})
    assert got["score"] == pytest.approx(score) and got["status"] == "scored"


def test_barge_in_nothing_to_interrupt_is_unmeasured():
    for obs in ({"speech_heard": False, "interrupt_ms": 10000},
                {"speech_heard": True, "speech_end_ms": 9000, "interrupt_ms": 10000, "stopped_ms": None}):
        got = one("barge_in", obs)
        assert got["score"] == 0 and got["status"] == "unmeasured"
        assert "nothing to interrupt" in got["notes"][0]


# ----- hold your tongue -----------------------------------------------------------------------


def test_hold_tongue_reference_statement_one_second_of_twenty_is_five_points():
    got = one("hold_tongue", {"reply": "OK", "word_start_ms": 800, "word_end_ms": 1200, "next_speech_ms": 2200,
                              "silence_ms": 20000})
    assert got["score"] == pytest.approx(5)


@pytest.mark.parametrize(("reply", "start", "score"), [
    ("Understood.", 4999, 100), ("okay", 1000, 100), ("OK", 5001, 0), ("OK, understood", 1000, 0),
    ("Sure", 1000, 0), (None, None, 0)])
def test_hold_tongue_word_rules(reply, start, score):
    got = one("hold_tongue", {"reply": reply, "word_start_ms": start, "word_end_ms": None if start is None
                              else start + 300, "next_speech_ms": None, "silence_ms": 15000})
    assert got["score"] == score


def test_hold_tongue_held_is_capped_at_the_silence():
    got = one("hold_tongue", {"reply": "OK", "word_start_ms": 500, "word_end_ms": 900, "next_speech_ms": 60000,
                              "silence_ms": 12000})
    assert got["score"] == 100


# ----- noise, vision card, text chat --------------------------------------------------------------


def test_noise_round_halves_and_decision_60_beyond():
    said = [5, 2, 8, 3, 6, 1]
    late = {"said": said, "heard": said, "latency_ms": 9000, "noise_db": -20, "voice_db": -20}
    silent = {"said": said, "heard": None, "latency_ms": None}
    got = one("noise", {"rounds": [late, late, silent]})
    assert got["parts"]["rounds"][0]["score"] == 80  # accuracy 100, latency 60
    assert got["parts"]["rounds"][2]["score"] == 0  # no reply: nothing on both halves
    assert got["score"] == pytest.approx(160 / 3)
    assert "noise -20 dB, voice -20 dB" in got["notes"][0]


def test_vision_card_and_text_chat():
    words = ["seven", "two", "nine", "four", "one", "six"]
    assert one("vision_card", {"said": words, "heard": words, "latency_ms": 800})["score"] == 100
    assert one("vision_card", {"said": words, "heard": None})["score"] == 0
    said = [3, 8, 1, 4, 9, 2]
    assert one("text_chat", {"said": said, "written": said, "latency_ms": 5000})["score"] == 100
    assert one("text_chat", {"said": said, "written": said, "latency_ms": 32500})["score"] == pytest.approx(90)
    assert one("text_chat", {"said": said, "written": said, "latency_ms": 600000})["score"] == 80  # decision
    got = one("text_chat", {"said": said, "written": None, "no_message_reason": "nothing reached the chat"})
    assert got["score"] == 0 and "nothing reached the chat" in got["notes"][0]


# ----- stay out -------------------------------------------------------------------------------


def test_stay_out_proportional_with_holes_named():
    got = one("stay_out", {"addressed_ms": 100000, "first_speech_ms": 50000, "answered": True,
                           "holes": [{"start_ms": 10000, "end_ms": 15000}, {"start_ms": 70000, "end_ms": 80000}]})
    # Held 0-50 s, less the 5 s hole inside it; the hole after its first speech is not in the held part.
    assert got["score"] == 45
    assert len(got["notes"]) == 1 and "10000-15000" in got["notes"][0]
    assert one("stay_out", {"addressed_ms": 100000, "answered": True})["score"] == 100
    assert one("stay_out", {"addressed_ms": 100000, "answered": False})["score"] == 0


# ----- speaker binding ------------------------------------------------------------------------

ROSTER = [{"rank": "Major", "name": "Maggie"}, {"rank": "Lieutenant", "name": "Lottie"},
          {"rank": "Corporal", "name": "Charlie"}, {"rank": "Sergeant", "name": "Sam"}]


def binding(answers_facing, answers_back):
    turns = [{"half": "facing", "speaker": 0, "answer": a} for a in answers_facing]
    turns += [{"half": "back", "speaker": 0, "answer": a} for a in answers_back]
    return one("speaker_binding", {"roster": ROSTER, "turns": turns})


def test_speaker_binding_halves_gap_and_chance():
    got = binding(["Major Maggie"] * 8, ["Major Maggie"] * 4 + ["Sergeant Sam"] * 4)
    assert got["score"] == 75
    assert got["parts"]["facing_percent"] == 100 and got["parts"]["back_percent"] == 50
    assert got["parts"]["gap_points"] == 50 and got["parts"]["chance_percent"] == 25


def test_half_of_eight_at_chance_reference_statement():
    # "on a half of eight turns 97% of pure guessers score 50% or below"
    assert round(100 * drills.binomial_at_most(8, 0.25, 4)) == 97
    assert "97% of pure guessers" in binding(["Major Maggie"] * 8, ["Major Maggie"] * 8)["notes"][0]


@pytest.mark.parametrize(("answer", "verdict"), [
    ("Major Maggie", 0), ("it was major maggie, I think", 0), ("Major Maggie or Sergeant Sam", "several"),
    ("Maggie", "unverified"), ("the Major", "unverified"), ("Major Lottie", "several"), ("nobody", "none"),
    (None, "none")])
def test_binding_parser(answer, verdict):
    from day60.drills import Member

    assert drills.bind(answer, [Member(**m) for m in ROSTER]) == verdict


def test_unverified_answers_score_nothing_and_are_named():
    got = binding(["Maggie"] + ["Major Maggie"] * 7, ["Major Maggie"] * 8)
    assert got["score"] == pytest.approx(100 * 15 / 16)
    assert any("unverified" in n and "'Maggie'" in n for n in got["notes"])


# ----- screen share, mute, camera ---------------------------------------------------------------


def share(**kw):
    base = {"ready_ms": 5000, "share_observed_ms": 6000, "code": "QX47", "code_read": "qx47",
            "frames_readable": True, "stop_order_ms": 40000, "stopped_ms": 40400}
    return one("screen_share", {**base, **kw})


def test_screen_share_thirds():
    assert share()["score"] == 100
    assert share(share_observed_ms=20000)["parts"]["sharing"] == pytest.approx(80)
    assert share(code_read="QX74")["score"] == pytest.approx(200 / 3)  # misreading keeps the sharing credit
    assert share(stopped_ms=None)["parts"]["stopping"] == 0  # a share that never stops loses only that third
    assert share(stopped_ms=50000)["parts"]["stopping"] == 60
    assert share(stopped_ms=50001)["parts"]["stopping"] == 0  # decision: outside the window
    fault = share(frames_readable=False)
    assert fault["parts"]["code"] == 0 and "instrument fault" in fault["notes"][0]


def test_screen_share_no_ready_or_no_share_scores_nothing():
    assert share(ready_ms=None)["score"] == 0
    assert share(ready_ms=20001)["score"] == 0
    assert share(share_observed_ms=30001)["score"] == 0
    assert share(share_observed_ms=30000)["parts"]["sharing"] == 60


def change(order, changed, ready=True, **kw):
    return {"ready": ready, "order_ms": order, "changed_ms": changed, **kw}


def test_mute_halves_and_before_the_order_rules():
    assert one("mute", {"mute": change(1000, 1500), "unmute": change(5000, 5500)})["score"] == 100
    got = one("mute", {"mute": change(1000, 11000), "unmute": change(5000, None)})
    assert got["parts"] == {"mute": 60, "unmute": 0}
    # The rules: a mute already in place that is not lifted when ordered scores nothing, for the
    # whole drill, even with a perfect unmute; unmuting before the order costs only that half.
    got = one("mute", {"mute": change(1000, 1200, ready=False), "unmute": change(5000, 5100)})
    assert got["score"] == 0 and "whole drill scores nothing" in got["notes"][0]
    got = one("mute", {"mute": change(1000, 1500), "unmute": change(5000, 4000)})
    assert got["parts"] == {"mute": 100, "unmute": 0} and any("before the order" in n for n in got["notes"])
    assert one("mute", {"mute": change(0, 10501), "unmute": change(0, 100)})["parts"]["mute"] == 0  # decision


def test_camera_still_frame_is_not_a_live_camera():
    live = one("camera", {"on": change(0, 2000, frame_age_ms=100), "off": change(0, 6000)})
    assert live["parts"] == {"on": 100, "off": 80}
    still = one("camera", {"on": change(0, 1000, frame_age_ms=2500), "off": change(0, 1000)})
    assert still["parts"]["on"] == 0 and "a still" in still["notes"][0]


# ----- object recognition and the whole call ---------------------------------------------------------


def test_object_recognition_one_word_in_time():
    base = {"choices": ["banana", "baseball", "camera", "headphones"], "answer": "banana"}
    good = {**base, "reply": "Banana", "latency_ms": 10000}
    bad = [{**base, "reply": "a banana", "latency_ms": 500}, {**base, "reply": "camera", "latency_ms": 500},
           {**base, "reply": "banana", "latency_ms": 10001}, {**base, "reply": None, "latency_ms": None}]
    assert one("object_recognition", [good] * 10)["score"] == 100
    assert one("object_recognition", [good] * 6 + bad)["score"] == 60


def test_absent_drills_read_not_run_and_no_mean_hides_them():
    result = drills.score_call({"call": {"id": "x"}, "drills": {"read_back": {"said": [1], "heard": [1]}}})
    assert result["drills"]["camera"] == {"score": None, "status": "not run", "parts": {},
                                          "notes": ["not run: no observation for this drill"]}
    assert result["summary"]["covers"] == ["read_back"] and len(result["summary"]["not_covered"]) == 14
    assert len(result["drills"]) == 15


def test_shipped_example_is_complete_and_cli(run, tmp_path):
    r = run("voice", "drills", EXAMPLE, "--format", "json")
    assert r.exit_code == 0
    result = json.loads(r.stdout)
    assert result["synthetic"] and all(d["status"] != "not run" for d in result["drills"].values())
    r = run("voice", "drills", EXAMPLE, "--pdf", tmp_path / "d.pdf")
    assert r.exit_code == 0 and "mean of the 15 scored drill(s)" in r.stdout
    text = PdfReader(tmp_path / "d.pdf").pages[0].extract_text()
    assert "SYNTHETIC" in text and "Telling speakers apart" in text
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"call": {}, "drills": {"mute": {"mute": {}}}}))
    r = run("voice", "drills", bad)
    assert r.exit_code == 2 and "drills.mute" in r.stderr
    schema = json.loads(run("schema", "drills").stdout)
    assert "drills" in schema["properties"]


def test_table_and_pdf_say_what_each_score_was_built_from(run, tmp_path):
    r = run("voice", "drills", EXAMPLE, "--pdf", tmp_path / "d.pdf")
    read_back = next(line for line in r.stdout.splitlines() if line.startswith("read_back"))
    assert "correct 5, of 6" in read_back and "in place" not in read_back
    assert "held ms 8,000, silence ms 16,000" in r.stdout
    pdf_text = " ".join(PdfReader(tmp_path / "d.pdf").pages[0].extract_text().split())
    assert "5 of 6 digits read back in place" in pdf_text and "Read-back of digits" in pdf_text


# ----- rules read again (each from its minimal input) ------------------------------------------


def test_overlapping_listening_holes_are_counted_once():
    """Two copies of the hole 40,000-43,000 ms lose 3,000 ms, not 6,000: held 97,000 of 100,000."""
    hole = {"start_ms": 40000, "end_ms": 43000}
    got = one("stay_out", {"addressed_ms": 100000, "first_speech_ms": None, "answered": True, "holes": [hole, hole]})
    assert got["parts"]["holes_ms"] == 3000 and got["score"] == pytest.approx(97.0)


@pytest.mark.parametrize("answer", ["Major Maggie or maybe Charlie", "Sergeant Samuel", "Sammy", "Major Maggies",
                                    "Major Maggie and Corporal Charlie"])
def test_speaker_binding_credits_one_whole_rank_and_name_only(answer):
    roster = [{"rank": "Major", "name": "Maggie"}, {"rank": "Lieutenant", "name": "Lottie"},
              {"rank": "Corporal", "name": "Charlie"}, {"rank": "Sergeant", "name": "Sam"}]
    members = [drills.Member(**m) for m in roster]
    assert not isinstance(drills.bind(answer, members), int)
    assert drills.bind("That was Major Maggie.", members) == 0 and drills.bind("sergeant sam", members) == 3


def test_a_stop_before_the_interrupt_is_unmeasured_and_scored_as_zero_in_the_mean():
    got = one("barge_in", {"speech_heard": True, "speech_end_ms": None, "interrupt_ms": 12000, "stopped_ms": 11500})
    assert got["status"] == "unmeasured" and got["score"] == 0
    result = drills.score_call({"call": {}, "drills": {
        "barge_in": {"speech_heard": False, "interrupt_ms": 100},
        "exact_string": {"said": [1, 2], "heard": [1, 2]}}})
    assert result["summary"]["mean_of_scored"] == 50  # (0 + 100) / 2: the unmeasured zero counts
    assert result["summary"]["unmeasured_as_zero"] == ["barge_in"]


def test_stopping_a_share_before_the_order_earns_nothing_for_that_third():
    got = one("screen_share", {"ready_ms": 1000, "share_observed_ms": 2000, "code": "K7", "code_read": "K7",
                               "stop_order_ms": 30000, "stopped_ms": 29000, "code_in_frames": True})
    assert got["parts"]["stopping"] == 0 and any("before the order" in n for n in got["notes"])
    assert any("found in the frames" in n for n in got["notes"])


def test_ok_with_stops_and_oh_for_zero():
    got = one("hold_tongue", {"reply": "O.K.", "word_start_ms": 500, "word_end_ms": 900, "next_speech_ms": None,
                              "silence_ms": 10000})
    assert got["score"] == 100
    assert one("read_back", {"said": [1, 0, 2], "heard": ["one", "oh", "two"]})["score"] == 100


def test_talk_over_and_repeated_turns_are_kept_as_evidence_not_scored():
    specs = rounds((4, "4", 500), *[(6, "6", 500)] * 4)
    specs[0]["talk_over_ms"] = 300
    specs[1]["repeated_ms"] = 2100
    got = one("turn_taking", specs)
    assert got["score"] == 100 and len(got["notes"]) == 2 and "talk-over 300 ms" in got["notes"][0]


@pytest.mark.parametrize("edit, needle", [
    (lambda d: d["drills"]["object_recognition"][0].update(answer="spoon"), "not among the choices"),
    (lambda d: d["drills"]["speaker_binding"]["turns"][0].update(speaker=7), "outside the roster"),
    (lambda d: d["drills"]["speaker_binding"]["turns"][0].update(half="back"), "eight of each"),
    (lambda d: d["drills"]["turn_taking"][2].update(expected=99), "count runs in twos"),
])
def test_observations_that_cannot_be_true_are_refused(edit, needle, tmp_path, run):
    doc = json.loads(EXAMPLE.read_text())
    edit(doc)
    path = tmp_path / "obs.json"
    path.write_text(json.dumps(doc))
    r = run("voice", "drills", path)
    assert r.exit_code == 2 and needle in r.stderr and r.stderr.count("\n") == 1


# ----- issue 28: the last readings of the rules --------------------------------------------------
# Exact values here are decimals, as a JSON file writes them; each is handed to the scorer as the
# float that JSON text parses to (json.loads(str(d))), so no test ever subtracts two floats itself.


def _float(d):
    """The float a JSON file holding the decimal ``d`` parses to (None stays None)."""
    return None if d is None else json.loads(str(d))


def barge(speech_end, interrupt, stopped):
    return one("barge_in", {"speech_heard": True, "speech_end_ms": speech_end, "interrupt_ms": interrupt,
                            "stopped_ms": stopped})


@pytest.mark.parametrize(("speech_end", "stopped"), [(10500, 9500), (9500, 10500)],
                         ids=["stop before, speech end after", "speech end before, stop after"])
def test_barge_in_speech_already_over_is_unmeasured_in_either_order(speech_end, stopped):
    """The rules: speech "that had already finished" when he cut in leaves the drill unmeasured,
    not failed. With the interrupt at 10,000 ms, a stop at 9,500 ms (500 ms before it) says the
    speech was over whatever the speech end says, and so does a speech end at 9,500 ms whatever
    the stop says. Before this reading the first order scored 100 on a yield of -500 ms."""
    got = barge(speech_end, 10000, stopped)
    assert got["status"] == "unmeasured" and got["score"] == 0 and "yield_ms" not in got["parts"]
    assert "already finished" in got["notes"][0] and "9500 ms" in got["notes"][0]
    assert "interrupt at 10000 ms" in got["notes"][0]


def test_barge_in_stop_at_the_interrupt_is_unmeasured_and_both_after_is_scored():
    """At or before counts as over (the rules file): a stop at exactly 10,000 ms has nothing to
    yield. With both records after the interrupt the drill is scored on the stop: 10,700 - 10,000
    = 700 ms, within a second, so 100; 11,500 ms stop is 1,500 ms, 100 - 40 * 500 / 1000 = 80."""
    assert barge(None, 10000, 10000)["status"] == "unmeasured"
    assert barge(10000, 10000, 10700)["status"] == "unmeasured"
    got = barge(10800, 10000, 10700)
    assert got["status"] == "scored" and got["parts"]["yield_ms"] == 700 and got["score"] == 100
    assert barge(12000, 10000, 11500)["score"] == pytest.approx(80)


ms_decimal = st.decimals(min_value=0, max_value=100000, places=3, allow_nan=False, allow_infinity=False)


@settings(max_examples=examples(300), deadline=None)
@given(speech_end=st.none() | ms_decimal, interrupt=ms_decimal, stopped=st.none() | ms_decimal)
def test_barge_in_is_unmeasured_exactly_when_a_record_says_the_speech_was_over(speech_end, interrupt, stopped):
    """Unmeasured iff a recorded speech end or stop is at or before the interrupt; otherwise the
    yield is the first recorded end after it less the interrupt (exactly, compared as decimals),
    never negative, and "never stopped" (0) only when neither end is recorded."""
    got = barge(_float(speech_end), _float(interrupt), _float(stopped))
    recorded = [v for v in (speech_end, stopped) if v is not None]
    over = any(v <= interrupt for v in recorded)
    assert (got["status"] == "unmeasured") is over
    if not over and recorded:
        assert Decimal(repr(got["parts"]["yield_ms"])) == min(recorded) - interrupt > 0
    if not over and not recorded:
        assert got["score"] == 0 and got["notes"] == ["never stopped"]


@settings(max_examples=examples(300), deadline=None)
@given(interrupt=st.decimals(min_value=Decimal("0.001"), max_value=50000, places=3),
       offset=st.integers(-5, 5), step=st.sampled_from([Decimal("0.001"), Decimal("0.1")]))
def test_barge_in_full_marks_boundary_is_exact_with_fractional_times(interrupt, offset, step):
    """Full marks for a yield within a second: a stop at interrupt + 1,000 ms + offset * step earns
    100 exactly when offset <= 0 (2190.943 after 1190.943 is 1,000 ms, not 1000.0000000000002), and
    less than 100 past it: 100 - 40 * (yield - 1000) / 1000."""
    yield_ms = 1000 + offset * step
    got = barge(None, _float(interrupt), _float(interrupt + yield_ms))
    if offset <= 0:
        assert got["score"] == 100
    else:
        assert got["score"] < 100
        assert got["score"] == pytest.approx(100 - 40 * float(yield_ms - 1000) / 1000)


def test_barge_in_fractional_yield_at_the_boundary():
    """Interrupt at 1190.943 ms, stop at 2190.943 ms: 2190.943 - 1190.943 = 1,000 ms exactly, full
    marks; subtracted as floats it is 1000.0000000000002, just past the boundary (99.99999999999999)."""
    got = barge(None, 1190.943, 2190.943)
    assert got["parts"]["yield_ms"] == 1000 and got["score"] == 100


def objects(choices, answer, reply, latency_ms=1200):
    """Round 1 as given, rounds 2-10 with no reply: 10 points exactly when round 1 is right."""
    first = {"choices": choices, "answer": answer, "reply": reply, "latency_ms": latency_ms}
    rest = {"choices": ["mug", "stapler", "torch", "wallet"], "answer": "mug", "reply": None, "latency_ms": None}
    return one("object_recognition", [first] + [rest] * 9)


@pytest.mark.parametrize(("choices", "answer", "reply", "right"), [
    (["yo-yo", "kite", "marble", "top"], "yo-yo", "Yo-yo.", True),
    (["yo-yo", "kite", "marble", "top"], "yo-yo", "yo\u2011yo", True),  # a non-breaking hyphen
    (["yo-yo", "kite", "marble", "top"], "yo-yo", "yo yo", False),  # two words
    (["yo-yo", "kite", "marble", "top"], "yo-yo", "a yo-yo", False),  # an extra word
    (["yo-yo", "kite", "marble", "top"], "yo-yo", "yo", False),
    (["jack-o'-lantern", "kite", "marble", "top"], "jack-o'-lantern", "Jack-o\u2019-lantern", True),
    (["piñata", "kite", "marble", "top"], "piñata", "Piñata!", True),
    (["piñata", "kite", "marble", "top"], "piñata", "pin\u0303ata", True),  # the tilde as a separate mark
    (["piñata", "kite", "marble", "top"], "piñata", "PIÑATA", True),
    (["piñata", "kite", "marble", "top"], "piñata", "pinata", False),  # another spelling
    (["crème-brûlée", "kite", "marble", "top"], "crème-brûlée", "Crème-Brûlée", True),
    (["банан", "мяч", "камера", "наушники"], "банан", "Банан!", True),
    (["μπανάνα", "μπάλα", "κάμερα", "ακουστικά"], "μπανάνα", "ΜΠΑΝΆΝΑ", True),
    (["हाथी", "केला", "गेंद", "कैमरा"], "हाथी", "हाथी।", True),  # vowel signs are marks, not breaks
    (["バナナ", "ボール", "カメラ", "ヘッドホン"], "バナナ", "バナナ", True),
    (["موز", "كرة", "كاميرا", "سماعات"], "موز", "موز.", True),
    (["ג׳ירפה", "כדור", "מצלמה", "אוזניות"], "ג׳ירפה", "ג׳ירפה", True),  # the geresh keeps one word
    (["banana", "baseball", "camera", "headphones"], "banana", "banana camera", False),
])
def test_object_recognition_one_naming_word_whatever_its_letters(choices, answer, reply, right):
    """The rules: the agent "says the one word that names what it sees"; a wrong candidate or
    extra words score nothing; ten rounds share 100 points, so one right round is 100 / 10 = 10.
    A naming word is one word whatever its letters: a hyphen or apostrophe between letters does
    not split it, nor does an accent or a vowel sign, in any script."""
    assert objects(choices, answer, reply)["score"] == (10 if right else 0)


def test_object_recognition_the_reply_window_still_holds():
    """Right but later than ten seconds scores nothing: 10,000 ms is in, 10,001 ms is out."""
    assert objects(["yo-yo", "kite", "marble", "top"], "yo-yo", "yo-yo", 10000)["score"] == 10
    assert objects(["yo-yo", "kite", "marble", "top"], "yo-yo", "yo-yo", 10001)["score"] == 0


def test_object_choices_compare_as_the_replies_do():
    """The answer is found among the choices the way replies are read ("PIÑATA" is the choice
    "piñata"); four names that are not four different objects cannot be true and are refused."""
    assert objects(["piñata", "kite", "marble", "top"], "PIÑATA", "piñata")["score"] == 10
    for choices, needle in ((["kite", "Kite", "marble", "top"], "same object"),
                            (["kite", "!!", "marble", "top"], "in letters or digits")):
        with pytest.raises(InputError, match=needle):
            objects(choices, "kite", "kite")


def test_hold_tongue_reads_words_in_any_script():
    """A reply in another script is a word, just not OK or Understood: it scores nothing as the
    wrong word, never as silence ("no word within 5,000 ms" would misstate what happened)."""
    got = one("hold_tongue", {"reply": "Хорошо", "word_start_ms": 800, "word_end_ms": 1200, "next_speech_ms": None,
                              "silence_ms": 10000})
    assert got["score"] == 0 and "not exactly one of OK or Understood" in got["notes"][0]


def test_speaker_names_compare_composed_and_folded():
    """"Zoë" with a separate diaeresis names Zoë, and does not name a Zoe who is not on the roster."""
    members = [drills.Member(rank="Major", name="Zoë"), drills.Member(rank="Lieutenant", name="Lottie"),
               drills.Member(rank="Corporal", name="Charlie"), drills.Member(rank="Sergeant", name="Sam")]
    assert drills.bind("Major Zoe\u0308", members) == 0
    assert drills.bind("Major Zoe", members) == "unverified"  # the rank alone is named


@pytest.mark.parametrize(("hole", "addressed", "note", "held"), [
    ((1234567, 1240000), 2000000, "listening hole 1234567-1240000 ms counted as zero (5433 ms)", 1994567),
    ((0.5, 1.75), 100, "listening hole 0.5-1.75 ms counted as zero (1.25 ms)", 98.75),
    ((123456789012345, 123456789012346), 999999999999999,
     "listening hole 123456789012345-123456789012346 ms counted as zero (1 ms)", 999999999999998),
])
def test_stay_out_names_holes_in_plain_milliseconds(hole, addressed, note, held):
    """The hole is named in plain milliseconds at any length: 1,240,000 - 1,234,567 = 5,433 ms, so
    the agent held 2,000,000 - 5,433 = 1,994,567 ms of a 2,000,000 ms stretch; a fractional hole
    keeps its digits (1.75 - 0.5 = 1.25 ms, held 100 - 1.25 = 98.75 of 100)."""
    got = one("stay_out", {"addressed_ms": addressed, "answered": True,
                           "holes": [{"start_ms": hole[0], "end_ms": hole[1]}]})
    assert got["notes"] == [note] and "e+" not in note
    assert got["parts"]["held_ms"] == held and got["score"] == pytest.approx(100 * held / addressed)


def test_other_drill_notes_never_use_exponents():
    """Evidence and timing notes print plain milliseconds too: talk-over 1,234,567 ms, a frame
    1,234,567 ms old."""
    specs = rounds((4, "4", 500), *[(6, "6", 500)] * 4)
    specs[0]["talk_over_ms"] = 1234567
    assert "talk-over 1234567 ms" in one("turn_taking", specs)["notes"][0]
    got = one("camera", {"on": change(0, 1000, frame_age_ms=1234567), "off": change(0, 1000)})
    assert "1234567 ms old" in got["notes"][0]
    assert "1234567 ms" in one("read_back", {"said": [1], "heard": [1], "latency_ms": 1234567})["notes"][0]


def test_a_hole_ending_before_it_starts_is_refused():
    with pytest.raises(InputError, match=r"ends .* before it starts"):
        one("stay_out", {"addressed_ms": 100, "answered": True, "holes": [{"start_ms": 50, "end_ms": 40}]})


def test_drill_cli_json_and_table_say_how_each_case_was_read(run, tmp_path):
    """Through the CLI: the barge-in read from both records comes back unmeasured in the JSON and
    the table; the stay-out hole is in plain milliseconds in both; the rules version is stated."""
    path = tmp_path / "obs.json"
    path.write_text(json.dumps({"call": {"id": "c"}, "drills": {
        "barge_in": {"speech_heard": True, "speech_end_ms": 10500, "interrupt_ms": 10000, "stopped_ms": 9500},
        "stay_out": {"addressed_ms": 2000000, "answered": True,
                     "holes": [{"start_ms": 1234567, "end_ms": 1240000}]}}}))
    r = run("voice", "drills", path, "--format", "json")
    assert r.exit_code == 0, r.output
    result = json.loads(r.stdout)
    assert result["drills"]["barge_in"]["status"] == "unmeasured"
    assert result["summary"]["unmeasured_as_zero"] == ["barge_in"] and result["rules"]["version"] == "1.3.0"
    assert "1234567-1240000 ms" in result["drills"]["stay_out"]["notes"][0]
    table = run("voice", "drills", path).stdout
    stay_out = next(line for line in table.splitlines() if line.startswith("stay_out"))
    assert "listening hole 1234567-1240000 ms counted as zero (5433 ms)" in stay_out
    assert next(line for line in table.splitlines() if line.startswith("barge_in")).split()[1] == "unmeasured"


def test_table_built_from_column_prints_plain_milliseconds(run, tmp_path):
    """held 2,000,000 - 5,433 = 1,994,567 ms should read as that number, not 1.99457e+06."""
    path = tmp_path / "obs.json"
    path.write_text(json.dumps({"call": {"id": "c"}, "drills": {"stay_out": {
        "addressed_ms": 2000000, "answered": True, "holes": [{"start_ms": 1234567, "end_ms": 1240000}]}}}))
    stay_out = next(line for line in run("voice", "drills", path).stdout.splitlines() if line.startswith("stay_out"))
    assert "e+0" not in stay_out and "1,994,567" in stay_out


def test_pdf_says_never_stopped_rather_than_nothing_to_interrupt(run, tmp_path):
    """A barge-in that never stopped is scored (zero); the sheet must not word it as nothing to
    interrupt, which is the unmeasured case."""
    path = tmp_path / "obs.json"
    path.write_text(json.dumps({"call": {"id": "c"}, "drills": {
        "barge_in": {"speech_heard": True, "interrupt_ms": 10000, "stopped_ms": None}}}))
    r = run("voice", "drills", path, "--pdf", tmp_path / "d.pdf")
    assert r.exit_code == 0, r.output
    text = " ".join(PdfReader(tmp_path / "d.pdf").pages[0].extract_text().split())
    assert "never stopped after the interrupt" in text and "no speech was interrupted" not in text


@pytest.mark.parametrize(("drill", "obs", "field"), [
    ("barge_in", {"speech_heard": True, "interrupt_ms": "10000", "stopped_ms": 10500}, "interrupt_ms"),
    ("barge_in", {"speech_heard": True, "interrupt_ms": 100, "stopped_ms": "inf"}, "stopped_ms"),
    ("barge_in", {"speech_heard": True, "interrupt_ms": 100, "stopped_ms": "NaN"}, "stopped_ms"),
    ("barge_in", {"speech_heard": "yes", "interrupt_ms": 100, "stopped_ms": 200}, "speech_heard"),
    ("barge_in", {"speech_heard": 1, "interrupt_ms": 100, "stopped_ms": 200}, "speech_heard"),
    ("barge_in", {"speech_heard": True, "interrupt_ms": 100, "stopped_ms": True}, "stopped_ms"),
    ("barge_in", {"speech_heard": True, "interrupt_ms": -0.5, "stopped_ms": 200}, "interrupt_ms"),
    ("stay_out", {"addressed_ms": 100, "answered": True, "holes": [{"start_ms": 50, "end_ms": 40}]}, "holes"),
    ("object_recognition", [], "object_recognition"),
])
def test_hostile_drill_values_are_one_line_and_exit_2(run, tmp_path, drill, obs, field):
    """Text, true, NaN and infinity are not times (before, "inf" as text was read as an
    infinite stop and credited 60); each bad value is named on one line, exit 2."""
    path = tmp_path / "obs.json"
    path.write_text(json.dumps({"call": {"id": "c"}, "drills": {drill: obs}}))
    r = run("voice", "drills", path)
    assert r.exit_code == 2 and field in r.stderr and r.stderr.count("\n") == 1 and "Traceback" not in r.stderr


# ----- attack 28: each reading checked against the rules' own words ----------------------------


@pytest.mark.parametrize(("drill", "obs"), [
    ("hold_tongue", {"reply": "OK", "word_start_ms": 100, "word_end_ms": 200, "next_speech_ms": None,
                     "silence_ms": 1e308}),
    ("stay_out", {"addressed_ms": 1e308, "answered": True}),
])
def test_holding_the_whole_silence_is_full_marks_at_any_length(drill, obs):
    """Hold your tongue: "holding until time earns full marks"; stay out: "the whole of it earns
    full marks". Held is the whole drawn silence (or stretch) here, so the share is 1 and the score
    100 however long it was: 100 * 1e308 / 1e308 overflowed to infinity before the division and
    scored inf (the library takes any finite time; only the CLI's reader caps at 10^15)."""
    assert one(drill, obs)["score"] == 100


@pytest.mark.parametrize(("drill", "obs"), [
    ("read_back", {"said": ["alpha", "beta"], "heard": [None, "gamma"]}),
    ("exact_string", {"said": ["alpha"], "heard": [None]}),
    ("text_chat", {"said": ["alpha"], "written": ["beta"], "latency_ms": 1000}),
    ("vision_card", {"said": ["alpha"], "heard": ["beta"], "latency_ms": 500}),
    ("cocktail_party", {"his": [1, 2, 3, 4, "five-ish"], "theirs": [6], "heard": [1, 2, 3, 4, None]}),
    ("cocktail_party", {"his": [1, 2, 3, 4, 5], "theirs": ["xx"], "heard": [1, 2, 3, 4, 5]}),
])
def test_what_he_said_must_be_numbers_or_nothing_can_be_checked_in_place(drill, obs, tmp_path, run):
    """He dictates numbers and each is "checked in its own position": a dictated word that is not
    a number (digits, number words, a published homophone) cannot be checked against anything.
    Before, such a word read as "no number" on both sides, so a missing or garbled reply matched
    it: said ["alpha", "beta"], heard [null, "gamma"] scored 2 of 2 in place, 100."""
    path = tmp_path / "obs.json"
    path.write_text(json.dumps({"call": {"id": "c"}, "drills": {drill: obs}}))
    r = run("voice", "drills", path)
    assert r.exit_code == 2 and "is not a number" in r.stderr and r.stderr.count("\n") == 1


def test_a_heard_word_that_is_no_number_is_never_in_place():
    """Nothing heard (null) or a word that names no number never counts as a number in place."""
    got = one("read_back", {"said": [1, "two", "to"], "heard": [None, "um", "two"]})
    assert got["parts"]["in_place"] == [False, False, True] and got["score"] == pytest.approx(100 / 3)


def test_his_numbers_and_theirs_never_share_one():
    """The rules: "Both sets are drawn fresh for every call and never share a number." With a
    shared 5 the scorer took his own 5, read back in place, as theirs too: 5 x 20 - 20 = 80 for a
    perfect read-back. An observation where they share one cannot be true, and is refused."""
    with pytest.raises(InputError, match="share"):
        one("cocktail_party", {"his": [1, 2, 3, 4, 5], "theirs": ["five", 6], "heard": [1, 2, 3, 4, 5]})


@pytest.mark.parametrize(("text", "expected"), [
    ("banana", ["banana"]),
    ("ba\u2060nana", ["banana"]),  # WORD JOINER: by its name, it joins
    ("ba\u00adnana", ["banana"]),  # a soft hyphen is a line-break hint, invisible in the word
    ("ba\u200dnana", ["banana"]),  # ZERO WIDTH JOINER
    ("ba\u200cnana", ["banana"]),  # ZERO WIDTH NON-JOINER
    ("\ufeffbanana", ["banana"]),  # a byte-order mark at the start of a transcript
    ("yo\u200d-yo", ["yo-yo"]),
    ("क्\u200dष", ["क्ष"]),  # a half-form asked for with ZWJ is the same conjunct spelt the same way
])
def test_invisible_characters_neither_split_nor_change_a_word(text, expected):
    """fold() says it is NFKC case folding. Unicode's NFKC_Casefold removes every
    Default_Ignorable_Code_Point (soft hyphen, zero-width joiners, word joiner, BOM, variation
    selectors, ...), because they are invisible and carry no letter. Before, a WORD JOINER or a
    soft hyphen split "banana" in two (so a right answer had "extra words" and scored nothing),
    and a ZWJ kept it one word that was not "banana"."""
    assert drills.words(text) == expected


def test_an_invisible_joiner_in_a_right_answer_still_names_the_object():
    """Object recognition: "the one word that names what it sees" is one word whatever invisible
    marks a recogniser leaves in it: one right round of ten is 100 / 10 = 10 points."""
    assert objects(["banana", "baseball", "camera", "headphones"], "banana", "Ba\u2060nana")["score"] == 10
    assert objects(["banana", "baseball", "camera", "headphones"], "banana", "ba\u00adnana")["score"] == 10


def test_ok_with_a_zero_width_joiner_is_still_ok():
    """Hold your tongue: "O\u200dK" prints as OK; it is the one word OK, so holding the whole 10 s
    silence earns 100."""
    got = one("hold_tongue", {"reply": "O\u200dK", "word_start_ms": 500, "word_end_ms": 900, "next_speech_ms": None,
                              "silence_ms": 10000})
    assert got["score"] == 100


@pytest.mark.parametrize(("heard", "value"), [
    ("ｔｗｏ", 2), ("ＴＯＯ", 2), ("ｆｏｒ", 4), ("t\u200dwo", 2), ("\ufefftwo", 2), ("Ｔｗｅｎｔｙ－ｏｎｅ", 21),
    ("１２", 12), ("ate", 8), ("OH", 0), ("WON!", 1),
])
def test_numbers_and_homophones_are_read_in_any_letter_form(heard, value):
    """A number word or a published homophone is read the way replies are read everywhere else
    (NFKC case folding): full-width "ｔｗｏ" is two, as full-width "１２" already was twelve."""
    assert drills.number(heard, drills.rules()["homophones"]) == value


# U+02BC is a letter by category, but it is written for an apostrophe and read as one
_letters = st.characters(categories=["Lu", "Ll", "Lt", "Lm", "Lo"], exclude_characters="\u02bc").filter(
    lambda ch: all(unicodedata.category(x)[0] in "LMN" for x in unicodedata.normalize("NFKC", ch).casefold()))
_marks = st.characters(categories=["Mn", "Mc"])
_piece = st.builds(lambda first, rest: first + "".join(rest), _letters, st.lists(_letters | _marks, max_size=5))
_invisible = st.sampled_from(["\u200d", "\u200c", "\u2060", "\u00ad", "\ufeff", "\u200b", "\u034f"])


@settings(max_examples=examples(400), deadline=None)
@given(pieces=st.lists(_piece, min_size=1, max_size=3), joiner=st.sampled_from(["-", "'", "\u2011", "\u2019"]),
       noise=st.lists(st.tuples(st.integers(0, 40), _invisible), max_size=4), end=st.sampled_from(["", ".", "!", "?"]))
def test_one_naming_word_stays_one_word_in_any_script(pieces, joiner, noise, end):
    """The issue: "a single naming word is one token whatever its letters". Letters of any script,
    with marks after them, joined by a hyphen or apostrophe (in their common forms), are one word;
    written decomposed (NFD), with invisible characters anywhere and closing punctuation, it is
    still that same one word."""
    word = joiner.join(pieces)
    variant = unicodedata.normalize("NFD", word)
    for at, ch in sorted(noise, reverse=True):
        at = min(at, len(variant))
        variant = variant[:at] + ch + variant[at:]
    got = drills.words(variant + end)
    assert got == drills.words(word) and len(got) == 1


@pytest.mark.parametrize(("speech_end", "stopped", "yield_ms", "score"), [
    (10500, None, 500, 100),  # the speech ended 500 ms after he cut in, and no other stop is recorded
    (11500, None, 1500, 80),  # 100 - 40 * (1500 - 1000) / 1000 = 80
    (10300, 11500, 300, 100),  # the silence began at the earlier end: 300 ms
    (11500, 10300, 300, 100),  # in either order
    (11000, 11000, 1000, 100),  # both records agree: 1,000 ms is within a second
])
def test_barge_in_yield_runs_to_the_first_recorded_end_after_the_interrupt(speech_end, stopped, yield_ms, score):
    """The rules: he "interrupts and times the silence"; only "speech that never stops scores
    nothing". A speech end after the interrupt is the speech stopping, so the yield is the
    interrupt (10,000 ms) to the first recorded end after it, the stop or the speech end. Before,
    a speech end at 10,500 ms with no stop recorded read "never stopped" and scored 0, and with
    both recorded the later stop was used whatever the speech end said."""
    got = barge(speech_end, 10000, stopped)
    assert got["status"] == "scored" and got["parts"]["yield_ms"] == yield_ms
    assert got["score"] == pytest.approx(score) and not any("never stopped" in n for n in got["notes"])
    if stopped is not None and stopped != speech_end:
        assert any(f"{min(stopped, speech_end)} ms" in n for n in got["notes"])  # which record was used


@pytest.mark.parametrize(("drill", "obs", "part"), [
    ("mute", {"mute": change(5000, 5000), "unmute": change(15000, 15300)}, "mute"),
    ("mute", {"mute": change(5000, 5300), "unmute": change(15000, 15000)}, "unmute"),
    ("camera", {"on": change(3000, 3000, frame_age_ms=100), "off": change(20000, 20800)}, "on"),
    ("camera", {"on": change(3000, 4000, frame_age_ms=100), "off": change(20000, 20000)}, "off"),
])
def test_a_change_at_the_instant_of_the_order_is_not_after_it(drill, obs, part):
    """Mute and camera: "Only a change he sees after the order counts." A change recorded at the
    very millisecond of the order is not after it (and nothing reacts in 0 ms: it was under way
    already), so that half earns nothing, as a barge-in stop at the interrupt's instant is read as
    over rather than yielded. Before, it scored 0 ms: full marks. The other half here is 300 ms
    (mute: within 500, 100), or 800 ms / 1,000 ms (camera: within 2,000, 100); the mean is 50."""
    got = one(drill, obs)
    assert got["parts"][part] == 0 and got["score"] == 50
    assert any("at or before the order" in n for n in got["notes"])


def test_a_share_stopped_at_the_instant_of_the_order_to_stop_earns_nothing_for_that_third():
    """Screen share, the rules file's own decision: "only a change after the order counts". A stop
    recorded at the order's own millisecond is not after it: stopping 0; sharing 9,100 ms (within
    10 s, 100) and the code read right (100) keep theirs: (100 + 100 + 0) / 3."""
    got = one("screen_share", {"ready_ms": 8200, "share_observed_ms": 9100, "code": "QX47", "code_read": "QX47",
                               "stop_order_ms": 40000, "stopped_ms": 40000})
    assert got["parts"] == {"sharing": 100, "code": 100, "stopping": 0}
    assert got["score"] == pytest.approx(200 / 3) and any("at or before the order" in n for n in got["notes"])


def test_a_share_with_no_order_to_stop_recorded_does_not_say_it_was_told():
    """The rules time stopping from "he orders it to stop". With no order recorded the third
    cannot be timed: it scores nothing, and the note says the order was not recorded instead of
    "never stopped sharing when told" (nobody recorded telling it). Sharing 100, code 100, so
    (100 + 100 + 0) / 3."""
    base = {"ready_ms": 1000, "share_observed_ms": 2000, "code": "QX47", "code_read": "QX47"}
    for extra in ({}, {"stopped_ms": 5000}):
        got = one("screen_share", {**base, **extra})
        assert got["parts"]["stopping"] == 0 and got["score"] == pytest.approx(200 / 3)
        assert not any("when told" in n for n in got["notes"])
        assert any("no order to stop was recorded" in n for n in got["notes"])
    got = one("screen_share", {**base, "stop_order_ms": 4000})
    assert any("never stopped sharing when told" in n for n in got["notes"])


def test_the_code_on_the_page_is_read_as_replies_are():
    """The code read back is compared as every reply is (NFKC case folding): full-width
    "ｑｘ４７" is the code QX47, so the code third is 100 and all three are: 100."""
    got = one("screen_share", {"ready_ms": 1000, "share_observed_ms": 2000, "code": "QX47", "code_read": "ｑｘ４７",
                               "stop_order_ms": 5000, "stopped_ms": 5100})
    assert got["parts"]["code"] == 100 and got["score"] == 100


def test_a_reply_whose_time_was_not_recorded_says_so():
    """Turn-taking: a right number with no time recorded cannot be shown to have landed within
    five seconds, so the round scores nothing; the reason says the time is missing, not that no
    reply came. Object recognition: each round says why it earned nothing."""
    specs = rounds((4, "4", None), *[(6, "6", 500)] * 4)
    got = one("turn_taking", specs)
    assert got["parts"]["rounds"][0]["score"] == 0 and "not recorded" in got["parts"]["rounds"][0]["why"]
    marks = objects(["banana", "kite", "top", "mug"], "banana", "banana", latency_ms=None)["parts"]["rounds"]
    assert marks[0]["correct"] is False and "not recorded" in marks[0]["why"]
    marks = objects(["banana", "kite", "top", "mug"], "banana", "a banana")["parts"]["rounds"]
    assert "not the answer" in marks[0]["why"] and marks[1]["why"] == "no reply"
    late = objects(["banana", "kite", "top", "mug"], "banana", "banana", latency_ms=10001)["parts"]["rounds"]
    assert "10,000 ms" in late[0]["why"]


def test_a_rank_two_people_hold_does_not_make_a_full_answer_several():
    """The rules: "An answer must identify a speaker by rank and name"; several candidates earn
    nothing. With two lieutenants on the roster, "Lieutenant Lottie" names exactly one of them by
    rank and name; before, the shared rank counted as naming Larry too, so it read "several" and
    a right answer scored nothing. Naming the rank alone, or a second person, is still several."""
    members = [drills.Member(rank="Major", name="Maggie"), drills.Member(rank="Lieutenant", name="Lottie"),
               drills.Member(rank="Lieutenant", name="Larry"), drills.Member(rank="Corporal", name="Charlie")]
    assert drills.bind("That was Lieutenant Lottie.", members) == 1
    assert drills.bind("lieutenant larry", members) == 2
    assert drills.bind("Lieutenant Lottie, or Charlie", members) == "several"
    assert drills.bind("Lieutenant Lottie or the other lieutenant", members) == "several"
    assert drills.bind("a lieutenant", members) == "several"
    two_sams = [drills.Member(rank="Major", name="Sam"), drills.Member(rank="Sergeant", name="Sam"), *members[2:]]
    assert drills.bind("Major Sam", two_sams) == 0


@pytest.mark.parametrize(("roster", "needle"), [
    ([{"rank": "", "name": "Maggie"}, *ROSTER[1:]], "roster"),
    ([{"rank": "Major", "name": "!!"}, *ROSTER[1:]], "roster"),
    ([ROSTER[0], {"rank": "MAJOR", "name": "maggie"}, *ROSTER[2:]], "twice"),
])
def test_a_roster_that_cannot_tell_people_apart_is_refused(roster, needle):
    """Each of the four reads "their rank and name", and an answer is credited by rank and name:
    an empty rank (it matched every answer, so each read "several") or a member listed twice
    leaves nothing to bind a voice to, and is refused naming the roster."""
    obs = {"roster": roster, "turns": [{"half": "facing" if i < 8 else "back", "speaker": 0, "answer": None}
                                       for i in range(16)]}
    with pytest.raises(InputError, match=needle) as err:
        one("speaker_binding", obs)
    assert "roster" in str(err.value)


def test_a_word_that_ends_before_it_begins_is_refused():
    """Hold your tongue: "the clock starts at the end of the word". A word recorded as ending
    (0 ms) before it began (3,000 ms) cannot be true, and it started the clock 3 s early: with the
    next speech at 10,000 ms it was credited 10,000 of a 10,000 ms silence (100), where the word
    ending at 3,000 ms or later gives 7,000 ms at most (70). It is refused, naming the field."""
    with pytest.raises(InputError, match="word_end_ms") as err:
        one("hold_tongue", {"reply": "OK", "word_start_ms": 3000, "word_end_ms": 0, "next_speech_ms": 10000,
                            "silence_ms": 10000})
    assert "before" in str(err.value)
    assert one("hold_tongue", {"reply": "OK", "word_start_ms": 3000, "word_end_ms": 3000, "next_speech_ms": 10000,
                               "silence_ms": 10000})["score"] == 70


def test_a_key_written_twice_is_refused(run, tmp_path):
    """A JSON object that names a key twice reads as one value or the other depending on the
    reader (Python keeps the last, others keep the first): a stop at 900 ms and at 13,000 ms in
    one observation. Which one scored was invisible; it is refused, naming the key, exit 2."""
    path = tmp_path / "obs.json"
    path.write_text('{"call": {"id": "c"}, "drills": {"barge_in": {"speech_heard": true, "interrupt_ms": 12400, '
                    '"stopped_ms": 12900, "stopped_ms": 25400}}}')
    r = run("voice", "drills", path)
    assert r.exit_code == 2 and "stopped_ms" in r.stderr and "twice" in r.stderr and r.stderr.count("\n") == 1


def _expected_curve(d, full, sixty, beyond):
    """The rules' curve worked by hand on the exact duration ``d`` (a Decimal): full marks at or
    within ``full``, a straight line down to 60 at ``sixty``, then 60 or nothing beyond."""
    if d <= full:
        return 100.0
    if d <= sixty:
        return 100 - 40 * float((d - full) / (sixty - full))
    return 60.0 if beyond == "sixty" else 0.0


_CURVED = {  # drill: (its observation for an order at t0 and a change at t0 + d, the part that holds the score)
    "barge_in": (lambda t0, t1: {"speech_heard": True, "interrupt_ms": t0, "stopped_ms": t1}, None),
    "mute": (lambda t0, t1: {"mute": change(t0, t1), "unmute": change(t0, t1)}, "mute"),
    "camera": (lambda t0, t1: {"on": change(t0, t1, frame_age_ms=0), "off": change(t0, t1)}, "on"),
    "screen_share": (lambda t0, t1: {"ready_ms": 100, "share_observed_ms": 100, "code": "K", "code_read": "K",
                                     "stop_order_ms": t0, "stopped_ms": t1}, "stopping"),
}


@settings(max_examples=examples(400), deadline=None)
@given(drill=st.sampled_from(sorted(_CURVED)), which=st.sampled_from(["full_ms", "sixty_ms"]),
       t0=st.decimals(min_value=Decimal("0.001"), max_value=10**9, places=3),
       offset=st.integers(-3, 3), step=st.sampled_from([Decimal("0.001"), Decimal("0.1"), Decimal(1)]))
def test_every_timed_change_follows_its_own_curve_exactly_at_its_boundaries(drill, which, t0, offset, step):
    """Each drill's curve, from the rules file (barge-in 1,000 / 2,000 ms and 60 after; mute
    500 / 10,000 ms and nothing after; camera 2,000 / 10,000 ms; share stop 500 / 10,000 ms), is
    judged on the exact difference of the two recorded decimals, at a boundary and a few
    thousandths or tenths either side, whatever the instant the order came at."""
    curve = drills.rules()["drills"][drill]["curve" if drill != "screen_share" else "stop_curve"]
    d = Decimal(curve[which]) + offset * step
    build, part = _CURVED[drill]
    got = one(drill, build(_float(t0), _float(t0 + d)))
    score = got["score"] if part is None else got["parts"][part]
    assert score == pytest.approx(_expected_curve(d, curve["full_ms"], curve["sixty_ms"], curve["beyond"]), abs=1e-9)


@settings(max_examples=examples(300), deadline=None)
@given(ms=st.decimals(min_value=0, max_value=70000, places=3) | st.sampled_from(
           [Decimal(v) + o for v in (800, 4000, 5000, 60000) for o in (Decimal("-0.001"), 0, Decimal("0.001"))]))
def test_latencies_follow_their_curves_and_cut_offs(ms):
    """Turn-taking: the curve 800 / 4,000 ms, 60 up to five seconds and nothing after ("a turn
    that does not land within five seconds ... scores nothing"); noise and vision card: the same
    curve on the latency half, 60 after (decision), accuracy 100 here; text chat: 5 s / a minute."""
    t = _float(ms)
    turn = one("turn_taking", rounds((4, "4", t), *[(6, "6", 0)] * 4))["parts"]["rounds"][0]["score"]
    want = 0.0 if ms > 5000 else _expected_curve(ms, 800, 4000, "sixty")
    assert turn == pytest.approx(want, abs=1e-9)
    said = [1, 2, 3, 4, 5, 6]
    vision = one("vision_card", {"said": said, "heard": said, "latency_ms": t})["parts"]["latency"]
    assert vision == pytest.approx(_expected_curve(ms, 800, 4000, "sixty"), abs=1e-9)
    chat = one("text_chat", {"said": said, "written": said, "latency_ms": t})["parts"]["speed"]
    assert chat == pytest.approx(_expected_curve(ms, 5000, 60000, "sixty"), abs=1e-9)


def test_a_latency_half_with_no_time_recorded_says_so():
    """Noise, vision card and text chat score a latency (or speed) half; a reply with no time
    recorded earns nothing on it, and the note says the time was not recorded rather than leaving
    a silent zero: accuracy 100, latency 0, so (100 + 0) / 2 = 50."""
    said = [1, 2, 3, 4, 5, 6]
    vision = one("vision_card", {"said": said, "heard": said, "latency_ms": None})
    chat = one("text_chat", {"said": said, "written": said, "latency_ms": None})
    noise = one("noise", {"rounds": [{"said": said, "heard": said, "latency_ms": None}] * 3})
    for got in (vision, chat, noise):
        assert got["score"] == 50 and any("time not recorded" in n for n in got["notes"])


def test_a_late_word_is_not_called_silence():
    """Hold your tongue: a word that began 6,000 ms after NOW is not "within five seconds", so it
    scores nothing, but it was a word: the note says when it began, not "silence"."""
    got = one("hold_tongue", {"reply": "OK", "word_start_ms": 6000, "silence_ms": 10000})
    assert got["score"] == 0 and "6000 ms" in got["notes"][0] and "silence" not in got["notes"][0]
    assert "silence is not restraint" in one("hold_tongue", {"reply": None, "silence_ms": 10000})["notes"][0]


def test_a_reply_of_thousands_of_digits_is_a_wrong_number_not_a_fault(run, tmp_path):
    """A reply written as 5,000 digits names no number he dictated (six numbers read aloud): it is
    a wrong word in its place, scored as such. Before, reading it stopped the command with an
    internal fault (Python's 4,300-digit limit); as a dictated number it is refused in words."""
    path = tmp_path / "obs.json"
    long_reply = {"read_back": {"said": [1, 2], "heard": ["9" * 5000, 2]}}
    path.write_text(json.dumps({"call": {"id": "c"}, "drills": long_reply}))
    r = run("voice", "drills", path, "--format", "json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["drills"]["read_back"]["parts"]["in_place"] == [False, True]
    path.write_text(json.dumps({"call": {"id": "c"}, "drills": {"read_back": {"said": ["9" * 5000], "heard": [1]}}}))
    r = run("voice", "drills", path)
    assert r.exit_code == 2 and "is not a number" in r.stderr and "4300" not in r.stderr

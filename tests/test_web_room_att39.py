"""What an outside run of a whole exercise by a team of three found in 'day60 serve' (issue 39,
second attack report), each as a test on a real server on 127.0.0.1 in Debian's Chromium.

One server serves the tests that only add lines of their own ids; a test that closes the
exercise, stops the server or shortens its beat starts its own. axe-core runs on every page state
changed here (tests.test_web_room.check_axe, which writes tests/output/web/axe-room/<state>.json).
"""

import datetime as dt
import os
import re
import signal

import pytest

from day60 import journal as jr
from tests.test_web import Server, join, post, request
from tests.test_web_room import DESKTOP, NOW, NY, PHONE, SHOTS, check_axe, make_journal, open_page, shot, step


@pytest.fixture(scope="module")
def room(tmp_path_factory):
    folder = tmp_path_factory.mktemp("room39")
    s = Server(make_journal(folder / "ex.jsonl"), folder / "held.json")
    yield s
    s.stop()


def lines(server, ident: str) -> list[dict]:
    return [e for e in jr.read(server.journal).events if e["id"] == ident]


# ----- finding 1: a press sent again is answered, never written twice ---------------------------


def test_a_press_sent_again_with_its_key_is_answered_from_its_line_even_after_a_restart(tmp_path):
    """A press whose answer was lost (the server was killed just after writing it) is sent again by
    the page with the same key: the server answers with the line already written, and writes
    nothing (before: a second line "recorded late", or, for a milestone written once, a refusal
    saying it was already restored). After a SIGKILL and a restart the key is found in the journal
    (the line's press_key)."""
    path = make_journal(tmp_path / "key.jsonl")
    server = Server(path, None)
    try:
        auditor = join(server, "Ann Key", "auditor")
        assert post(server, auditor, kind="incident.partner-notice", id="I1")[0] == 201
        first = post(server, auditor, kind="incident.restored", id="I1", press_key="k" * 20,
                     data={"check": "dashboard green"})
        assert first[0] == 201, first
        again = post(server, auditor, kind="incident.restored", id="I1", press_key="k" * 20,
                     data={"check": "dashboard green"})
        assert again[0] == 201 and again[1]["event"] == first[1]["event"], again
        server.proc.send_signal(signal.SIGKILL)
        server.proc.wait()
        server = Server(path, None)
        auditor = join(server, "Ann Key", "auditor")
        after = post(server, auditor, kind="incident.restored", id="I1", press_key="k" * 20,
                     data={"check": "dashboard green"}, pressed_at=NOW.isoformat(), sent_at=NOW.isoformat())
        assert after[0] == 201 and after[1]["event"]["seq"] == first[1]["event"]["seq"], after
        assert [e["kind"] for e in lines(server, "I1")] == ["incident.partner-notice", "incident.restored"]
        assert jr.read(path).events[-1]["data"]["press_key"] == "k" * 20
        # someone else's press with the same key is theirs: decided on its own
        other = post(server, join(server, "Bo Other", "auditor"), kind="drift.false-alert", id="FA-K",
                      press_key="k" * 20)
        assert other[0] == 201 and other[1]["event"]["id"] == "FA-K"
        # a key is the toolkit's field: typed as data it is refused
        assert post(server, auditor, kind="drift.false-alert", id="FA-X", data={"press_key": "x" * 10})[0] in (403, 422)
    finally:
        server.stop()


def test_a_page_whose_answer_was_lost_sends_the_press_again_and_it_is_recorded_once(room, browser):
    """The server writes the press but its answer never reaches the page (the connection drops):
    the page queues the press with its key and sends it again; the server answers from the line
    already written, and the page says so. One line in the journal."""
    page = open_page(browser, room, "Cy Lost", "auditor")
    dropped = []

    def drop_answer(route):
        if not dropped:
            route.fetch()  # reaches the server, which writes the line
            dropped.append(1)
            route.abort("connectionreset")  # the answer is lost
        else:
            route.continue_()

    page.route("**/press", drop_answer)
    details = step(page, "new: supplier alert withdrawn as false")
    details.locator("input[name=id]").fill("FA-LOST")
    details.locator("button[type=submit]").click()
    page.wait_for_selector("#result .ok", timeout=60000)
    assert "recorded once" in page.inner_text("#result")
    assert len(lines(room, "FA-LOST")) == 1
    assert "pressed_at" not in lines(room, "FA-LOST")[0]["data"]  # the first send is the line
    check_axe(page, "press sent again, answered once (desktop)")
    shot(page, "replayed-desktop")
    page.context.close()


# ----- finding 4 and 9: the close ----------------------------------------------------------------


def test_a_close_confirmed_after_a_new_line_asks_again_and_is_stamped_when_confirmed(browser, tmp_path):
    """The runner asks to close; before "Close it" the supplier records a new detection: the
    confirmation writes nothing and asks again, naming the new line (before: the close was written
    after it, stamped at the question, and the score counted the new incident as open at the
    close). Confirmed again, the close is stamped at the confirmation. After it the auditor's page
    offers no step the journal would refuse (before: "injection stopped"), and offers a dispute."""
    server = Server(make_journal(tmp_path / "close.jsonl"), tmp_path / "held.json")
    try:
        runner_key = join(server, "J. Auditor", "runner", server.tokens["runner"])
        post(server, runner_key, kind="safety.agreed", id="D1", data={
            "agreement": "SOW annex", "stop_owner": "Kim", "stop_condition": "errors", "rollback_owner": "Lee",
            "no_live_personal_data": True})
        page = open_page(browser, server, "J. Auditor", "runner")
        details = step(page, "close the exercise")
        details.locator("button[type=submit]").click()
        page.wait_for_selector("#result form.confirm")
        assert "stamped when you press" in page.inner_text("#result")
        status, _ = post(server, join(server, "Sam Seller", "supplier"), kind="incident.detected", id="I3")
        assert status == 201
        new_at = lines(server, "I3")[0]["at"]
        page.click("#result form.confirm button[type=submit]")
        page.wait_for_selector("#result .changed")
        text = page.inner_text("#result")
        assert "Not closed" in text and "I3" in text and "Sam Seller (supplier)" in text, text
        assert not [e for e in jr.read(server.journal).events if e["kind"] == "exercise.close"]
        check_axe(page, "close asked again (desktop)")
        shot(page, "close-asked-again")
        page.click("#result form.confirm button[type=submit]")
        page.wait_for_selector("#result .ok")
        close = jr.read(server.journal).events[-1]
        assert close["kind"] == "exercise.close" and close["at"] >= new_at, (close, new_at)
        page.context.close()

        auditor = open_page(browser, server, "Ana After", "auditor")
        text = auditor.inner_text("#state")
        assert "injection stopped" not in text and "dispute a figure" in text, text
        check_axe(auditor, "closed, auditor (desktop)")
        shot(auditor, "closed-auditor")
        auditor.context.close()
    finally:
        server.stop()


# ----- findings 2, 3 and 10: someone else's line while you work; your own press ------------------


@pytest.mark.parametrize("where", ["desktop", "phone"])
def test_a_step_recorded_by_someone_else_while_typing_keeps_the_draft_and_says_who(room, browser, where):
    """Dee is typing in "I-V…: first communication to the partner" when the runner records it: the
    step goes, and the page says, on screen, that J. Auditor just recorded it and shows Dee's draft;
    the focus is on that message, not on a step that slid into its place (before: the step and the
    text vanished silently and the next Enter opened another step)."""
    phone = where == "phone"
    ident = f"I-V{where}"
    runner = join(room, "J. Auditor", "runner", room.tokens["runner"])
    post(room, runner, kind="incident.partner-notice", id=ident)
    page = open_page(browser, room, f"Dee {where}", "auditor", PHONE if phone else DESKTOP, phone)
    details = step(page, f"{ident}: first communication to the partner")
    details.locator("input[name=at]").fill("dashboard green at 01:0")
    details.locator("input[name=at]").focus()
    post(room, runner, kind="incident.communicated", id=ident)
    page.wait_for_selector("#result .draft")
    text = page.inner_text("#answer")
    assert "J. Auditor (runner) just recorded" in text and "dashboard green at 01:0" in text, text
    box = page.locator("#answer").bounding_box()
    assert box["y"] >= 0 and box["y"] + box["height"] <= page.viewport_size["height"], box
    assert page.evaluate("() => document.activeElement.id") == "result"
    check_axe(page, f"draft kept after another's line ({where})")
    shot(page, f"draft-kept-{where}")
    page.context.close()


@pytest.mark.parametrize("where", ["desktop", "phone"])
def test_a_question_whose_step_is_recorded_by_someone_else_stays_on_screen(room, browser, where):
    """Eli is asked to confirm a time outside the window on "I-Q…: severity…"'s sibling step, then
    the runner records that step: the question is pinned to the bottom of the screen, saying which
    step it is about (before: it sat under another heading, or above the screen)."""
    phone = where == "phone"
    ident = f"I-Q{where}"
    runner = join(room, "J. Auditor", "runner", room.tokens["runner"])
    post(room, runner, kind="incident.partner-notice", id=ident)
    page = open_page(browser, room, f"Eli {where}", "auditor", PHONE if phone else DESKTOP, phone)
    details = step(page, f"{ident}: first communication to the partner")
    details.locator("input[name=at]").fill((NOW + dt.timedelta(days=30)).astimezone(NY).strftime("%Y-%m-%d %H:%M"))
    details.locator("button[type=submit]").click()
    page.wait_for_selector("#result form.confirm")
    post(room, runner, kind="incident.communicated", id=ident)
    page.wait_for_selector("#answer.pinned")
    about = page.inner_text("#about")
    assert f"{ident}: first communication to the partner" in about, about
    box = page.locator("#answer").bounding_box()
    assert box["y"] >= 0 and box["y"] + box["height"] <= page.viewport_size["height"], box
    check_axe(page, f"question pinned ({where})")
    shot(page, f"question-pinned-{where}")
    page.click("#result button.dismiss")  # "Do not record": the pinned box says nothing was recorded
    page.wait_for_function("() => /you chose not to record/.test(document.getElementById('result').innerText)")
    page.click("#result button.dismiss")  # and its OK lets it go
    page.wait_for_function("() => !document.getElementById('answer').classList.contains('pinned')")
    page.context.close()


def focus_lands_on(page, tags: tuple[str, ...]) -> None:
    """Wait for the page's script to move the focus onto one of ``tags`` (it does so once the
    answer and the refreshed steps are in, a moment after the answer shows: reading the focus at
    once read the field just typed in, under load); fail with the focused element if it never does."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        page.wait_for_function(f"() => {list(tags)}.includes(document.activeElement.tagName)")
    except PlaywrightTimeout:
        raise AssertionError(page.evaluate("() => document.activeElement.outerHTML.slice(0, 120)")) from None


def test_after_your_own_press_by_keyboard_the_focus_is_on_a_step_never_the_page(room, browser):
    """Fay records a false alert with Enter in its id field (a step that stays) and a partner's
    notice of an incident whose next step is then done: each time the focus is on a step's summary
    or the answer, never the page's body (before: BODY, and the next Tab went to the timeline)."""
    page = open_page(browser, room, "Fay Keys", "auditor")
    details = step(page, "new: supplier alert withdrawn as false")
    details.locator("input[name=id]").fill("FA-FOCUS")
    details.locator("input[name=id]").press("Enter")
    page.wait_for_selector("#result .ok")
    page.wait_for_function("() => document.getElementById('timeline').innerText.includes('FA-FOCUS')")
    focus_lands_on(page, ("SUMMARY", "SECTION"))
    runner = join(room, "J. Auditor", "runner", room.tokens["runner"])
    post(room, runner, kind="incident.partner-notice", id="I-FOCUS")
    page.wait_for_function("() => document.getElementById('state').innerText.includes('I-FOCUS: first communication')")
    details = step(page, "I-FOCUS: first communication to the partner")
    details.locator("button[type=submit]").focus()
    page.keyboard.press("Enter")
    page.wait_for_selector("#result .ok")
    page.wait_for_function("() => !document.getElementById('state').innerText.includes('I-FOCUS: first communication')")
    focus_lands_on(page, ("SUMMARY", "SECTION", "H2"))
    page.context.close()


# ----- finding 13: a stalled stream ----------------------------------------------------------------


def test_a_page_whose_stream_stalls_says_so_and_reconnects(browser, tmp_path):
    """The stream stalls without closing (here the server is frozen with SIGSTOP: its connections stay
    open, nothing arrives): with the server's beat at 1 s, within two beats the page says it is not
    connected (before: "connected" for as long as nobody pressed), and once the server goes on,
    connected again."""
    os.environ["DAY60_SERVE_KEEPALIVE"] = "1"
    try:
        server = Server(make_journal(tmp_path / "beat.jsonl"), None)
    finally:
        del os.environ["DAY60_SERVE_KEEPALIVE"]
    try:
        page = open_page(browser, server, "Gus Phone", "auditor", PHONE, True)
        server.proc.send_signal(signal.SIGSTOP)
        page.wait_for_function("() => document.getElementById('conn').textContent.startsWith('not connected')",
                               timeout=20000)
        check_axe(page, "stalled stream (phone)")
        shot(page, "stalled-phone")
        server.proc.send_signal(signal.SIGCONT)
        page.wait_for_function("() => document.getElementById('conn').textContent === 'connected'", timeout=60000)
        page.context.close()
    finally:
        server.proc.send_signal(signal.SIGCONT)
        server.stop()


# ----- findings 11, 12, 14, 7, 8: corrections and words -------------------------------------------


def test_the_runner_corrects_any_line_and_the_timeline_shows_the_new_time_with_the_old_struck(tmp_path, browser):
    """Fifteen lines in: the runner's "correct a line" reaches the first (before: the latest 12 only).
    Corrected, the timeline's time column shows the new time, the old one struck through; the answer
    names the line and its new time. A supplier's claim is answered as a claim awaiting an auditor;
    a claim judged twice is refused naming who judged it and when; open items carry no ISO instant."""
    server = Server(make_journal(tmp_path / "fix.jsonl"), None)
    try:
        runner = join(server, "J. Auditor", "runner", server.tokens["runner"])
        for n in range(15):
            post(server, runner, kind="drift.false-alert", id=f"FA{n}")
        first = lines(server, "FA0")[0]
        page = open_page(browser, server, "J. Auditor", "runner")
        fix = step(page, "correct a line")
        fix.locator("select[name='f.target']").select_option(str(first["seq"]))
        fix.locator("input[name='f.at']").fill((NOW - dt.timedelta(hours=5)).astimezone(NY).strftime("%Y-%m-%d %H:%M"))
        fix.locator("input[name='f.reason']").fill("clock was wrong")
        fix.locator("button[type=submit]").click()
        page.wait_for_selector("#result .ok")
        assert f"correction of seq {first['seq']}: its time is now" in page.inner_text("#result")
        row = page.locator(f"#timeline tr[data-seq='{first['seq']}']")
        row.locator("del.was").wait_for()
        assert "corrected; was" in row.inner_text()
        check_axe(page, "corrected line (desktop)")
        shot(page, "corrected-desktop")
        page.context.close()

        supplier = open_page(browser, server, "Sam Seller", "supplier", PHONE, True)
        post(server, runner, kind="incident.partner-notice", id="I7")
        supplier.wait_for_function("() => document.getElementById('state').innerText.includes('I7')")
        details = step(supplier, "I7: first communication")
        details.locator("button[type=submit]").click()
        supplier.wait_for_selector("#result .ok")
        assert "This is a claim: it counts once an auditor accepts it" in supplier.inner_text("#result")
        check_axe(supplier, "claim recorded (phone)")
        shot(supplier, "claim-phone")
        supplier.context.close()
        claim = lines(server, "I7")[-1]["seq"]
        assert post(server, runner, kind="accept", id="I7", data={"target": claim, "reason": "seen"})[0] == 201
        auditor = join(server, "Ana Judge", "auditor")
        status, answer, _ = request(server, "POST", "/api/events", {"kind": "reject", "id": "I7", "data": {
            "target": claim, "reason": "late"}}, key=auditor)
        assert status == 422 and "J. Auditor (runner) already accepted this claim at" in answer["error"], answer
    finally:
        server.stop()


# ----- what the outside attacks left (issue 39): words, the forced rollback, repeats, claims ---------


def test_a_time_the_clocks_repeat_or_skip_is_refused_in_the_rooms_words(room, browser):
    """New York's clocks go back at 02:00 on 2026-11-01, so 01:30 happens twice (first at -04:00,
    then at -05:00), and jump from 02:00 to 03:00 on 2026-03-08, so 02:30 never happens (the times
    an hour either side are 01:30 -05:00 and 03:30 -04:00). A time typed without an offset there is
    refused under the step pressed, naming the field as the page labels it and what to type, each
    time as the page shows times (before: "2026-11-01T01:30 ... give the offset", the ISO the
    command line reads). Nothing is written."""
    from zoneinfo import ZoneInfo

    from day60 import timeparse
    from day60.errors import InputError
    from day60.web import words

    for field, label in (("--at", "When"), ("--set at", "The right time"), ("pause end", "Ended at")):
        for typed, says in (("2026-11-01 01:30", "2026-11-01 01:30 happens twice in America/New_York (the clocks go "
                             "back an hour then); type it with its offset: 2026-11-01 01:30:00 -04:00 for the first "
                             "time, or 2026-11-01 01:30:00 -05:00 for the second"),
                            ("2026-03-08 02:30", "2026-03-08 02:30 does not exist in America/New_York (the clocks "
                             "jump past it); type a time that exists, with its offset, such as 2026-03-08 01:30:00 "
                             "-05:00 or 2026-03-08 03:30:00 -04:00")):
            with pytest.raises(InputError) as refused:
                timeparse.parse_instant(typed, ZoneInfo("America/New_York"), field)
            assert words.plain(str(refused.value), NY, "America/New_York") == f"{label}: {says}"
    page = open_page(browser, room, "Flo Fold", "auditor")
    details = step(page, "new: incident notified by the partner")
    details.locator("input[name=id]").fill("I-FOLD")
    details.locator("input[name=at]").fill("2026-11-01 01:30")
    details.locator("button[type=submit]").click()
    page.wait_for_selector("#result .refused")
    text = page.inner_text("#result")
    assert "When: 2026-11-01 01:30 happens twice" in text and "2026-11-01 01:30:00 -05:00 for the second" in text, text
    assert "T01:30" not in text and "--at" not in text and "give the offset" not in text, text
    assert not lines(room, "I-FOLD")
    check_axe(page, "refusal: a time the clocks repeat (desktop)")
    shot(page, "refusal-fold")
    page.context.close()


def test_the_forced_rollback_is_offered_among_the_new_steps_once_other_injections_have_begun(browser, tmp_path):
    """An incident injection is under way (I1 signed off and raised), so I1's group, with its
    follow-ups, stands above "start something new", where the runner looks for a new start (attack
    finding 15: the forced rollback was only in its own id's group, far down). The new steps now
    offer it: first its sign-off, then, once R1 is signed off, its start under R1; pressed there, it
    records R1's forced production rollback. Only the runner's page offers either."""
    from day60.checklist import FORCED_ROLLBACK

    server = Server(make_journal(tmp_path / "forced.jsonl"), tmp_path / "held.json")
    sign_off = {"agreement": "SOW annex", "stop_owner": "Kim", "stop_condition": "errors", "rollback_owner": "Lee",
                "no_live_personal_data": True}
    try:
        runner = join(server, "J. Auditor", "runner", server.tokens["runner"])
        assert post(server, runner, kind="safety.agreed", id="I1", data=sign_off)[0] == 201
        assert post(server, runner, kind="incident.raised", id="I1")[0] == 201

        def offered(key: str) -> list[dict]:
            return [s for s in request(server, "GET", "/api/state", key=key)[1]["next"]
                    if s["label"].startswith(FORCED_ROLLBACK)]

        [first] = offered(runner)
        assert first["kind"] == "safety.agreed" and "its safety sign-off first" in first["label"]
        auditor = join(server, "Ana Look", "auditor")
        assert offered(auditor) == []
        assert post(server, runner, kind="safety.agreed", id="R1", data=sign_off)[0] == 201
        [start] = offered(runner)
        assert (start["kind"], start["id"], start["preset"]) == ("rollback.criterion-met", "R1",
                                                                 {"kind": "production", "source": "exercise"})
        assert offered(auditor) == []
        page = open_page(browser, server, "J. Auditor", "runner")
        details = step(page, f"{FORCED_ROLLBACK}, under R1")
        headings = page.locator("#state h3").all_text_contents()
        assert headings.index("start something new") > headings.index("I1"), headings
        details.scroll_into_view_if_needed()
        check_axe(page, "runner: the forced rollback among the new steps (desktop)")
        shot(page, "forced-rollback")
        details.locator("button[type=submit]").click()
        page.wait_for_selector("#result .ok")
        [line] = [e for e in lines(server, "R1") if e["kind"] == "rollback.criterion-met"]
        assert line["data"]["kind"] == "production" and line["data"]["source"] == "exercise", line
        assert line["by"] == "J. Auditor (runner)"
        page.context.close()
    finally:
        server.stop()


def test_a_confirmed_press_is_not_warned_again_and_a_failed_join_keeps_name_and_role(room, browser):
    """A time two hours ahead is asked first; "Record it anyway" records it and the answer says so
    without listing the warning again (before: the same warning a second time, as if something
    else were wrong). A join with a wrong token keeps the name and role typed, and only the token
    is cleared (before: all three were cleared)."""
    page = open_page(browser, room, "Gil Ahead", "auditor")
    details = step(page, "new: incident notified by the partner")
    details.locator("input[name=id]").fill("I-AHEAD")
    details.locator("input[name=at]").fill((NOW + dt.timedelta(hours=2)).astimezone(NY).strftime("%Y-%m-%d %H:%M"))
    details.locator("button[type=submit]").click()
    page.wait_for_selector("#result form.confirm")
    assert page.locator("#result li").count() >= 1
    page.click("#result form.confirm button[type=submit]")
    page.wait_for_selector("#result .ok")
    assert "Recorded seq" in page.inner_text("#result")
    assert page.locator("#result .warn").count() == 0, page.inner_text("#result")
    assert len(lines(room, "I-AHEAD")) == 1
    check_axe(page, "recorded after confirming (desktop)")
    page.context.close()

    context = browser.new_context(viewport=DESKTOP)
    join_page = context.new_page()
    join_page.goto(room.url)
    join_page.fill("input[name=name]", "Hana Typed")
    join_page.select_option("select[name=role]", "partner")
    join_page.fill("input[name=token]", "not-the-token")
    join_page.click("button[type=submit]")
    join_page.wait_for_selector(".refused")
    assert join_page.input_value("input[name=name]") == "Hana Typed"
    assert join_page.input_value("select[name=role]") == "partner"
    assert join_page.input_value("input[name=token]") == ""
    check_axe(join_page, "join refused, name and role kept (desktop)")
    shot(join_page, "join-refused")
    context.close()


def test_a_drift_stays_open_until_the_suppliers_claim_is_accepted(room):
    """The runner records an organic drift; the supplier claims its detection, then its written
    notice. Each is a claim, counted in no figure until accepted, so the runner's open items keep
    the drift open and say what waits (before: "not detected" vanished at the supplier's claim,
    and the whole item at its claimed notice). Accepted, each settles; both accepted, the drift's
    item is gone. Open items name lines in the reader's own numbering (the runner's: the journal's)."""
    runner = join(room, "J. Auditor", "runner", room.tokens["runner"])
    supplier = join(room, "Sam Claims", "supplier")

    def drift_items() -> list[str]:
        return [i for i in request(room, "GET", "/api/state", key=runner)[1]["open"]["drift"] if i.startswith("D-C1")]

    assert post(room, runner, kind="drift.onset", id="D-C1", data={"source": "organic",
                                                                   "affected_class": "invoices"})[0] == 201
    assert drift_items() == ["D-C1: no written notice yet, not detected"]
    assert post(room, supplier, kind="drift.detected", id="D-C1", data={"affected_class": "invoices"})[0] == 201
    found = lines(room, "D-C1")[-1]["seq"]
    assert drift_items() == [f"D-C1: no written notice yet, detection claimed by the supplier (seq {found}), "
                             "not yet accepted"]
    assert post(room, supplier, kind="drift.notice", id="D-C1", data={"affected_class": "invoices",
                                                                     "evidence": "alert 9"})[0] == 201
    told = lines(room, "D-C1")[-1]["seq"]
    assert drift_items() == [f"D-C1: written notice claimed by the supplier (seq {told}), not yet accepted, "
                             f"detection claimed by the supplier (seq {found}), not yet accepted"]
    assert post(room, runner, kind="accept", id="D-C1", data={"target": found, "reason": "seen in its console"})[0] \
        == 201
    assert drift_items() == [f"D-C1: written notice claimed by the supplier (seq {told}), not yet accepted"]
    assert post(room, runner, kind="accept", id="D-C1", data={"target": told, "reason": "email 9"})[0] == 201
    assert drift_items() == []


def test_the_score_pdf_names_kinds_in_words_unbroken_and_the_runner_one_way(tmp_path):
    """The runner's lines written at the command line carry the bare name "J. Auditor"; the room
    writes "J. Auditor (runner)": the same person, shown one way ("J. Auditor (runner)") by 'day60
    show', the page's timeline and the PDF. The PDF's corrections table gives each corrected line's
    kind in words ("restore confirmed", "written notice of the drift"), not "incident.restored"
    (which broke as "incident.restore d" in its narrow column), and no word breaks across lines.
    The page is rendered to tests/output/web/pdf-corrections.png to be looked at."""
    import subprocess

    from typer.testing import CliRunner

    from day60 import assess, render
    from day60.cli import app
    from day60.display import author

    path = tmp_path / "words.jsonl"
    run = CliRunner().invoke
    assert run(app, ["new", str(path), "--partner", "Acme BPO", "--supplier", "Nimbus AI", "--deployment",
                     "claims intake", "--tier", "T3", "-c", "us-office", "--window-start", "2026-03-02T09:00",
                     "--window-end", "2026-03-13T17:30", "--runner", "J. Auditor", "--synthetic",
                     "--announced"]).exit_code == 0
    for args in (["drift.onset", "--id", "D1", "--at", "2026-03-03T20:00:00+00:00", "--set", "source=organic",
                  "--set", "affected_class=invoices"],
                 ["drift.notice", "--id", "D1", "--at", "2026-03-04T00:10:02+00:00", "--set",
                  "affected_class=invoices", "--set", "evidence=alert 7", "--as", "auditor", "--by", "Ann Diaz"],
                 ["incident.partner-notice", "--id", "I-LONG-NAMED-INCIDENT", "--at", "2026-03-04T14:00:00+00:00"],
                 ["incident.restored", "--id", "I-LONG-NAMED-INCIDENT", "--at", "2026-03-04T15:00:00+00:00", "--set",
                  "check=dashboard green"]):
        r = run(app, ["log", str(path), *args])
        assert r.exit_code == 0, r.output
    for seq, at in ((2, "2026-03-04T00:10:00+00:00"), (4, "2026-03-04T15:30:00+00:00")):
        r = run(app, ["correct", str(path), "--seq", str(seq), "--at", at, "--reason", "clock"])
        assert r.exit_code == 0, r.output
    assert jr.read(path).events[0]["by"] == "J. Auditor"  # the command line's runner: the bare name
    assert author("J. Auditor", {"runner": "J. Auditor"}) == "J. Auditor (runner)"
    assert author("J. Auditor (runner)", {"runner": "J. Auditor"}) == "J. Auditor (runner)"
    assert author("Ann Diaz (auditor)", {"runner": "J. Auditor"}) == "Ann Diaz (auditor)"
    shown = run(app, ["show", str(path)]).output
    onset = next(line for line in shown.splitlines() if "drift.onset" in line)
    assert "J. Auditor (runner)" in onset, onset
    done = assess.score_journal(jr.read(path))
    html = render.score_html(done.journal, done.figures, done.result)
    table = html[html.index("Corrections made"):html.index("<h2>Inputs")]
    assert "restore confirmed" in table and "written notice of the drift" in table, table
    assert "incident.restored" not in table and "drift.notice" not in table, table
    assert ">J. Auditor<" not in table and "J. Auditor (runner)" in table, table
    pdf = tmp_path / "score.pdf"
    pdf.write_bytes(render.pdf_bytes(html)[0])
    text = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    page = next(p for p in text.split("\f") if "Corrections made" in p)
    assert "restore d" not in page and "confirme d" not in page, page
    for phrase in ("restore", "confirmed", "written", "notice", "drift"):
        assert re.search(rf"\b{phrase}\b", page), (phrase, page)
    number = text.split("\f").index(page) + 1
    SHOTS.mkdir(parents=True, exist_ok=True)
    subprocess.run(["pdftoppm", "-png", "-r", "80", "-f", str(number), "-l", str(number), "-singlefile", str(pdf),
                    str(SHOTS / "pdf-corrections")], check=True)


def test_refusals_the_command_line_words_read_in_the_rooms_words(tmp_path):
    """Refusals made for 'day60 log' (which the room shows for the same press) as the page says
    them: no flag ("--set check=..."), no command ("see 'day60 kinds'"), no field name with an
    underscore, no ISO instant, no seq of a line not yet written ("event 4 (...)"); each names
    the field as the form labels it and what to do."""
    from typer.testing import CliRunner

    from day60.cli import app
    from day60.web import words

    path = make_journal(tmp_path / "words.jsonl")
    run = CliRunner().invoke
    assert run(app, ["log", str(path), "incident.partner-notice", "--id", "I1", "--at", "now"]).exit_code == 0
    said = {}
    for name, args, expected in (
        ("restore", ["incident.restored", "--id", "I1"], "'check': restore confirmed needs 'check': fill it in"),
        ("severity", ["incident.classified", "--id", "I1", "--set", "severity=7", "--set", "reason=x"],
         "'severity': should be 4 or less"),
        ("wait end", ["incident.wait-end", "--id", "I1"], "has no start of waiting on the partner; record start "
                                                           "of waiting on the partner first"),
        ("rollback", ["rollback.decision", "--id", "R9"], "Id: rollback R9 has no rollback criterion met; record "
                                                          "rollback criterion met first"),
        ("notice", ["drift.notice", "--id", "D9", "--set", "affected_class=invoices"],
         "'evidence': written notice of the drift needs 'evidence': fill it in"),
    ):
        r = run(app, ["log", str(path), *args, "--at", "now"])
        assert r.exit_code == 2, r.output
        line = r.output.strip().splitlines()[-1].removeprefix("error: ")
        said[name] = words.plain(line, NY, "America/New_York")
        assert expected in said[name], (line, said[name])
    for name, text in said.items():
        assert not re.search(r"--|=\.\.\.|day60 |[a-z]_[a-z]|\d{4}-\d\d-\d\dT|event \d", text), (name, text)

"""What an outside attack on the room found on the page side (issue 39, third report), each as a
test on a real 'day60 serve' on 127.0.0.1 in Debian's Chromium, or, for wording, on the function
that words it.

One server serves the tests that only add lines of their own ids. axe-core runs on every page
state changed here (tests.test_web_room.check_axe, which writes tests/output/web/axe-room/).
"""

import datetime as dt

import pytest

from day60 import journal as jr
from day60.web import words
from tests.test_web import Server, join, post
from tests.test_web_room import NOW, check_axe, make_journal, open_page, shot, step


@pytest.fixture(scope="module")
def room(tmp_path_factory):
    folder = tmp_path_factory.mktemp("room39b")
    s = Server(make_journal(folder / "ex.jsonl"), folder / "held.json")
    yield s
    s.stop()


def lines(server, ident: str, kind: str | None = None) -> list[dict]:
    return [e for e in jr.read(server.journal).events if e["id"] == ident and kind in (None, e["kind"])]


def notified(server, ident: str) -> None:
    """An incident the partner notified through the JSON twin, so its clock runs and its waits
    are offered."""
    key = join(server, "Pat Setup", "partner")
    status, answer = post(server, key, kind="incident.partner-notice", id=ident)
    assert status == 201, answer


# ----- finding 1: a double click is one press ------------------------------------------------------


def test_a_double_click_on_record_is_one_press_answered_recorded(room, browser):
    """The attack: a double click on "M2: waiting on partner starts" wrote one line and the page
    said "Not recorded: a wait is already open". Now the second click of a press still on its way
    is not sent: one line, and the answer is "Recorded seq N", with no refusal."""
    notified(room, "DC2")
    page = open_page(browser, room, "Pia Double", "partner")
    details = step(page, "DC2: waiting on partner starts")
    details.locator("button[type=submit]").dblclick()
    page.wait_for_selector("#result .ok", timeout=60000)
    page.wait_for_timeout(1500)  # a second press, had one gone out, would have been answered by now
    said = page.inner_text("#result")
    assert "Recorded seq" in said and "Not recorded" not in said, said
    assert len(lines(room, "DC2", "incident.wait-start")) == 1
    page.context.close()


def test_a_double_click_on_a_step_that_stays_listed_is_answered_recorded(room, browser):
    """The attack's second case: "new: incident notified by the partner" stays on the list after
    it is recorded; a double click wrote one line and left the page with no answer at all. Now:
    one line, and "Recorded seq N" under the step."""
    page = open_page(browser, room, "Pia Listed", "partner")
    details = step(page, "new: incident notified by the partner")
    details.locator("input[name=id]").fill("DCL")
    details.locator("button[type=submit]").dblclick()
    page.wait_for_selector("#result .ok", timeout=60000)
    page.wait_for_timeout(1500)  # a second press, had one gone out, would have been answered by now
    said = page.inner_text("#result")
    assert "Recorded seq" in said and "DCL" in said and "Not recorded" not in said, said
    assert len(lines(room, "DCL", "incident.partner-notice")) == 1
    page.context.close()


def test_a_second_click_after_the_first_answer_is_answered_from_the_line_written(room, browser):
    """The second click lands after the first press's answer came back, before the step left the
    page (a human double click on a fast server): it carries the first press's key, so the server
    answers "recorded once" from the line written. One line; no refusal on the page."""
    notified(room, "DC3")
    page = open_page(browser, room, "Pia Twice", "partner")
    details = step(page, "DC3: waiting on partner starts")
    details.locator("button[type=submit]").evaluate("""b => new Promise(done => {
        const result = document.getElementById('result');
        new MutationObserver((m, o) => {
            if (result.querySelector('.ok')) { o.disconnect(); b.click(); done(); }
        }).observe(result, {childList: true, subtree: true});
        b.click();
    })""")
    page.wait_for_function("() => /recorded once/.test(document.getElementById('result').innerText)", timeout=60000)
    said = page.inner_text("#result")
    assert "Recorded seq" in said and "Not recorded" not in said, said
    assert len(lines(room, "DC3", "incident.wait-start")) == 1
    check_axe(page, "second click answered from the line written (desktop)")
    shot(page, "att39b-double-click")
    page.context.close()


# ----- finding 2: the supplier's real incident ---------------------------------------------------


def test_the_supplier_records_a_real_incident_it_detected_from_its_page(room):
    """The step "new: incident the supplier detected (a real one)" sent a hidden source=organic,
    which the access list refuses from the supplier. The page now leaves out what the step fixes
    and the supplier does not write; the server sets the source (organic: the runner raised no
    such id). A supplier that sends a source itself through the JSON twin is still refused (403)."""
    from tests.test_web import request

    key = join(room, "Sam Supplier", "supplier")
    status, state, _ = request(room, "GET", "/api/state", key=key)
    offered = next(s for s in state["next"] if s["label"] == "new: incident the supplier detected (a real one)")
    assert offered["preset"] == {}
    status, answer = post(room, key, kind="incident.detected", id="SUP1", data={"source": "organic"})
    assert status == 403 and "source" in answer["error"], answer


def test_the_suppliers_page_records_the_real_incident_step(room, browser):
    page = open_page(browser, room, "Sue Supplier", "supplier")
    details = step(page, "new: incident the supplier detected (a real one)")
    details.locator("input[name=id]").fill("SUP2")
    details.locator("button[type=submit]").click()
    page.wait_for_selector("#result .ok", timeout=60000)
    assert "Recorded seq" in page.inner_text("#result")
    line, = lines(room, "SUP2")
    assert line["kind"] == "incident.detected" and line["data"]["source"] == "organic"
    assert line["by"] == "Sue Supplier (supplier)"
    # answered: the press is no longer kept as on its way (a reload now would send nothing again)
    assert page.evaluate("() => Object.keys(localStorage).filter(k => k.startsWith('day60-sending|'))"
                         ".map(k => Object.keys(JSON.parse(localStorage.getItem(k))).length)") in ([], [0])
    page.context.close()


# ----- finding 3: "Do not record" says so ----------------------------------------------------------


def test_do_not_record_says_nothing_was_recorded(room, browser):
    """A time in the future is asked about; "Do not record" used to leave the answer box blank.
    It says, where the question was, that nothing was recorded and what; a refusal given under
    another step before stays there, until its own OK."""
    page = open_page(browser, room, "Dot Nought", "auditor")
    other = step(page, "new: incident notified by the partner")
    other.locator("input[name=id]").fill("BADTIME")
    other.locator("input[name=at]").fill("half past never")
    other.locator("button[type=submit]").click()
    page.wait_for_selector("#result .refused")
    refusal = page.inner_text("#result .refused").replace("OK", "").strip()
    details = step(page, "new: supplier alert withdrawn as false")
    details.locator("input[name=id]").fill("FUT1")
    at = (NOW + dt.timedelta(days=3)).astimezone(dt.UTC).strftime("%Y-%m-%d %H:%M:%S+00:00")
    details.locator("input[name=at]").fill(at)
    details.locator("button[type=submit]").click()
    page.wait_for_selector("#result .warning form.confirm", timeout=60000)
    page.click("#result button.dismiss")
    page.wait_for_selector("#result .warning")
    said = page.inner_text("#result")
    assert "Not recorded: you chose not to record the false alert for FUT1." in said, said
    assert lines(room, "FUT1") == []
    kept = page.locator("details.step:has(summary:has-text('new: incident notified by the partner')) + .kept")
    assert kept.inner_text().replace("OK", "").strip() == refusal
    check_axe(page, "do not record says so (desktop)")
    shot(page, "att39b-do-not-record")
    page.click("#result button.dismiss")  # its OK clears it
    page.wait_for_function("() => document.getElementById('result').innerText.trim() === ''")
    kept.locator("button").click()  # and the earlier refusal's its own
    assert page.locator(".kept").count() == 0
    page.context.close()


# ----- finding 4: a reload just after Record ----------------------------------------------------


@pytest.mark.parametrize("reached", [False, True])
def test_a_reload_just_after_record_sends_the_press_once(room, browser, reached):
    """The page is reloaded while its press is on its way. Not reached: the press never got to the
    server; the page, reloaded, sends it from its queue (recorded late, with the browser's time of
    the press). Reached: the server wrote it but the answer was lost to the reload; sent again
    with its key, it is answered from the line written. Either way one line, an answer on the
    page, and the draft it was sent from gone."""
    ident = f"RL{int(reached)}"
    page = open_page(browser, room, f"Rae Load{int(reached)}", "auditor")
    held = []

    def hold(route):
        if held:  # after the reload: through
            route.continue_()
            return
        if reached:
            route.fetch()  # the server writes it; the answer never reaches the page
        held.append(route)  # never answered: the reload cuts it off

    page.route("**/press", hold)
    details = step(page, "new: supplier alert withdrawn as false")
    details.locator("input[name=id]").fill(ident)
    details.locator("button[type=submit]").click()
    page.wait_for_function("() => Object.keys(JSON.parse(localStorage.getItem(Object.keys(localStorage)"
                           ".find(k => k.startsWith('day60-sending|')) || '{}') || '{}')).length === 1")
    while not held:
        page.wait_for_timeout(50)
    page.reload()
    page.wait_for_selector("#timeline")
    page.wait_for_function("() => /Recorded seq/.test(document.getElementById('result').innerText)", timeout=60000)
    said = page.inner_text("#result")
    assert ("recorded once" in said) == reached, said
    assert ("sent when the connection was back" in said) != reached, said
    written = lines(room, ident)
    assert len(written) == 1, written
    assert ("pressed_at" in written[0]["data"]) != reached
    again = step(page, "new: supplier alert withdrawn as false")
    assert again.locator("input[name=id]").input_value() == ""  # the draft went with its press
    page.wait_for_timeout(2500)  # the queue's next round: nothing more is sent
    assert len(lines(room, ident)) == 1
    if reached:
        check_axe(page, "press on its way at a reload, answered after it (desktop)")
        shot(page, "att39b-reload")
    page.context.close()


# ----- finding 5: words ----------------------------------------------------------------------------


def test_a_pause_already_open_is_refused_in_words():
    """The journal's refusal ends "log wait-end first" (rules.py); the page said "record wait-end
    first". Worked by hand: wait-end is "end of waiting on the partner", change-window-end "end of
    the change window" (display.KIND_WORDS)."""
    said = words.plain("KIND: incident.wait-start M2: a wait is already open for M2; log wait-end first")
    assert said.endswith("a wait is already open for M2; record end of waiting on the partner first"), said
    said = words.plain("KIND: incident.change-window-start M2: a change-window is already open for M2; "
                       "log change-window-end first")
    assert said.endswith("a change window is already open for M2; record end of the change window first"), said
    assert "-end" not in said


def test_a_token_of_another_role_is_refused_in_the_dropdowns_word(room, browser):
    """The supplier's token with "auditor" chosen: the refusal names the auditor, as the list says."""
    page = browser.new_context().new_page()
    page.goto(room.url)
    page.fill("input[name=name]", "Ann Wrong")
    page.select_option("select[name=role]", "auditor")
    page.fill("input[name=token]", room.tokens["supplier"])
    page.click("button[type=submit]")
    said = page.inner_text(".refused")
    assert "not the one for the auditor" in said and "second auditor" not in said, said
    page.context.close()


def test_every_queued_press_keeps_its_recorded_answer(room, browser):
    """Two presses queued while /press could not be reached are sent when it is back: the page
    shows both "Recorded" answers, not only the last one's."""
    page = open_page(browser, room, "Quin Queue", "auditor")
    page.route("**/press", lambda route: route.abort("connectionrefused"))
    for n, ident in enumerate(("Q1", "Q2"), 1):
        details = step(page, "new: supplier alert withdrawn as false")
        details.locator("input[name=id]").fill(ident)
        details.locator("button[type=submit]").click()
        page.wait_for_function(f"() => document.getElementById('queued').textContent.startsWith('{n} press(es)')")
    page.unroute("**/press")
    page.wait_for_function("() => (document.getElementById('result').innerText.match(/Recorded seq/g) || [])"
                           ".length === 2", timeout=60000)
    said = page.inner_text("#result")
    assert "Q1" in said and "Q2" in said, said
    assert len(lines(room, "Q1")) == 1 and len(lines(room, "Q2")) == 1
    check_axe(page, "queued presses all answered (desktop)")
    page.context.close()


# ----- finding 6: right-to-left ids and the timeline's width -----------------------------------


def test_a_right_to_left_id_in_the_open_list_is_isolated(room, browser):
    """An incident id written right to left (\u05d0\u05d11) carried the words after it into its own
    direction ("not restored :1\u05d0\u05d1;"): the id is isolated in its own <bdi>."""
    notified(room, "\u05d0\u05d11")
    page = open_page(browser, room, "Rita Rtl", "auditor")
    isolated = page.evaluate("""() => Array.from(document.querySelectorAll('.open bdi bdi'))
        .map(b => b.textContent)""")
    assert "\u05d0\u05d11" in isolated, isolated
    page.context.close()


def test_the_timelines_details_fit_at_1280_px(room, browser):
    """At 1280 px wide the timeline's last column (details) ran past its box and was cut off, once
    a line was corrected: its "corrected; was TIME" was kept on one line, which widened the column
    of times (296 px instead of 190 before this fix; the table 789 px in a 760 px box). It wraps
    now, so the table is no wider than its box."""
    key = join(room, "Wid Th", "auditor")
    status, answer = post(room, key, kind="drift.false-alert", id="WIDE1", data={"note": "a note of some length " * 6})
    seq = answer["event"]["seq"]
    status, answer = post(room, key, kind="correction", id=str(seq),
                          data={"target": seq, "at": "2026-12-04T09:00:00-05:00", "reason": "the time was mistyped"})
    assert status == 201, answer
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.goto(room.url)
    page.fill("input[name=name]", "Wanda Wide")
    page.select_option("select[name=role]", "auditor")
    page.fill("input[name=token]", room.tokens["auditor"])
    page.click("button[type=submit]")
    page.wait_for_selector("#timeline tr[data-id='WIDE1']")
    over = page.evaluate("() => { const s = document.querySelector('.scroller'); "
                         "return s.scrollWidth - s.clientWidth; }")
    assert over <= 0, over
    shot(page, "att39b-timeline-1280")
    context.close()

"""The room as the people in it see it (issue 39): 'day60 serve' in Debian's Chromium at a desktop
(1366x768) and a phone (390x844), several people at once, on an exercise run in New York time.

Every server is a real 'day60 serve' on 127.0.0.1, started here; one serves the tests that only add
lines nobody else reads, and a test that changes the exercise for good (the close) starts its own.
axe-core, vendored in tests/vendor/axe-core (never fetched), is run on every page state a test
reaches; each state's violations must be none, and are written to tests/output/web/axe-room/<state>.json.
"""

import datetime as dt
import http.client
import json
import os
import re
import signal
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from day60 import journal as jr
from tests.shots import screenshot
from tests.test_web import Server, join, post, verify, wait_or_say_why

ROOT = Path(__file__).resolve().parents[1]
SHOTS = ROOT / "tests" / "output" / "web"
AXE = (ROOT / "tests" / "vendor" / "axe-core" / "axe.min.js").read_text(encoding="utf-8")
NY = ZoneInfo("America/New_York")
NOW = dt.datetime.now(dt.UTC)
DESKTOP = {"width": 1366, "height": 768}
PHONE = {"width": 390, "height": 844}


def make_journal(path: Path) -> Path:
    """An exercise on the New York office calendar, its window typed in New York time."""
    from typer.testing import CliRunner

    from day60.cli import app

    start = (NOW - dt.timedelta(days=2)).astimezone(NY).replace(tzinfo=None, microsecond=0)
    end = (NOW + dt.timedelta(days=10)).astimezone(NY).replace(tzinfo=None, microsecond=0)
    r = CliRunner().invoke(app, ["new", str(path), "--partner", "Acme BPO", "--supplier", "Nimbus AI",
                                 "--deployment", "claims intake", "--tier", "T3", "-c", "us-office",
                                 "--window-start", start.isoformat(), "--window-end", end.isoformat(),
                                 "--runner", "J. Auditor", "--synthetic", "--announced"])
    assert r.exit_code == 0, r.output
    return path


@pytest.fixture(scope="module")
def room(tmp_path_factory):
    folder = tmp_path_factory.mktemp("room")
    s = Server(make_journal(folder / "ex.jsonl"), folder / "held.json")
    yield s
    s.stop()


def open_page(browser, server, name: str, role: str, viewport: dict = DESKTOP, mobile: bool = False):
    context = browser.new_context(viewport=viewport, is_mobile=mobile, has_touch=mobile,
                                  timezone_id="Europe/Berlin")  # the browser's own zone is never the one shown
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(server.url)
    check_axe(page, f"join ({'phone' if mobile else 'desktop'})")
    page.fill("input[name=name]", name)
    page.select_option("select[name=role]", role)
    page.fill("input[name=token]", server.tokens[role])
    page.click("button[type=submit]")
    page.wait_for_selector("#timeline")
    page.wait_for_function("() => document.getElementById('conn').textContent === 'connected'")
    page.errors = errors  # type: ignore[attr-defined]
    return page


def check_axe(page, state: str) -> None:
    """axe-core's WCAG 2.x A/AA and best-practice rules on the page as it is: no violation."""
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.evaluate(AXE)  # evaluated by the test's browser connection: the page's own policy allows no script
    found = page.evaluate("""async () => (await axe.run(document, {resultTypes: ['violations']})).violations
        .map(v => ({id: v.id, impact: v.impact, nodes: v.nodes.slice(0, 3).map(n => n.target.join(' '))}))""")
    record_axe(state, found)
    assert found == [], f"{state}: {found}"


def record_axe(state: str, found: list) -> None:
    """One file a state under tests/output/web/axe-room/, written whole and then renamed into
    place: the suite's workers run browser tests at once, and a shared file read while another
    worker rewrote it read empty (CI, 2026-12-05)."""
    folder = SHOTS / "axe-room"
    folder.mkdir(parents=True, exist_ok=True)
    slug = re.sub(r"[^a-z0-9]+", "-", state.lower()).strip("-")
    part = folder / f".{slug}.{os.getpid()}.part"
    part.write_text(json.dumps({"state": state, "violations": found}, indent=1))
    os.replace(part, folder / f"{slug}.json")


def shot(page, name: str) -> None:
    screenshot(page, SHOTS / f"room-{name}.png")


def step(page, label: str):
    details = page.locator("details.step", has=page.locator("summary", has_text=label)).first
    if not details.evaluate("d => d.open"):
        details.locator("summary").click()
    return details


def ny(instant: str) -> str:
    """An instant as the page must show it: New York wall time and offset, to the second."""
    t = dt.datetime.fromisoformat(instant).astimezone(NY)
    offset = t.strftime("%z")
    return f"{t:%Y-%m-%d %H:%M:%S} {offset[:3]}:{offset[3:]}"


# ----- 1. times ---------------------------------------------------------------------------------


def test_a_press_stamped_now_shows_in_the_exercises_zone_with_its_offset(room, browser):
    """Ana records a false alert "now". The server stamps it in UTC (the journal keeps it so);
    the page shows it, in the answer and in the timeline, in New York time with New York's
    offset: for a stamp 2026-03-04T00:10:02+00:00 that is "2026-03-03 19:10:02 -05:00", never the
    next day in UTC. Worked out here with zoneinfo from the stamp the journal holds."""
    page = open_page(browser, room, "Ana Diaz", "auditor")
    details = step(page, "new: supplier alert withdrawn as false")
    details.locator("input[name=id]").fill("FA-NOW")
    details.locator("button[type=submit]").click()
    page.wait_for_selector("#result .ok")
    line = next(e for e in jr.read(room.journal).events if e["id"] == "FA-NOW")
    assert line["at"].endswith("+00:00")  # stored as the server stamped it
    expected = ny(line["at"])
    assert expected[-6:] in ("-05:00", "-04:00")
    assert f"at {expected}" in page.inner_text("#result")
    row = page.locator("#timeline tr", has_text="FA-NOW")
    assert expected in row.inner_text() and "+00:00" not in row.inner_text()
    assert "+00:00" not in page.inner_text("header.top")  # the window too
    check_axe(page, "recorded (desktop)")
    shot(page, "recorded-desktop")
    page.context.close()


def test_show_and_the_pdf_name_the_zone_and_the_author_of_each_line(tmp_path):
    """'day60 show' prints each instant in New York time with its offset and a "by" column; the
    score document's corrections table gives the times in New York time and who recorded and who
    corrected the line. Line: a notice by "Ann Diaz (auditor)" at 2026-03-04T00:10:02+00:00,
    corrected by the runner to 2026-03-04T00:10:00+00:00: shown 2026-03-03 19:10:02 -05:00 and
    2026-03-03 19:10 -05:00 (seconds only when not zero)."""
    from typer.testing import CliRunner

    from day60 import assess, render
    from day60.cli import app

    path = tmp_path / "pdf.jsonl"
    run = CliRunner().invoke
    r = run(app, ["new", str(path), "--partner", "Acme BPO", "--supplier", "Nimbus AI", "--deployment", "claims intake",
                  "--tier", "T3", "-c", "us-office", "--window-start", "2026-03-02T09:00", "--window-end",
                  "2026-03-13T17:30", "--runner", "J. Auditor", "--synthetic", "--announced"])
    assert r.exit_code == 0, r.output
    for args in (["drift.onset", "--id", "D1", "--at", "2026-03-03T20:00:00+00:00", "--set", "source=organic",
                  "--set", "affected_class=invoices"],
                 ["drift.notice", "--id", "D1", "--at", "2026-03-04T00:10:02+00:00", "--set",
                  "affected_class=invoices", "--set", "evidence=alert 7", "--as", "auditor", "--by", "Ann Diaz"]):
        r = run(app, ["log", str(path), *args])
        assert r.exit_code == 0, r.output
    r = run(app, ["correct", str(path), "--seq", "2", "--at", "2026-03-04T00:10:00+00:00", "--reason", "clock"])
    assert r.exit_code == 0, r.output
    r = run(app, ["show", str(path)])
    assert r.exit_code == 0, r.output
    assert "times in America/New_York" in r.output and " by " in r.output.splitlines()[2]
    notice = next(line for line in r.output.splitlines() if "drift.notice" in line)
    assert "2026-03-03 19:10 -05:00" in notice and "Ann Diaz (auditor)" in notice
    assert "was 2026-03-03 19:10:02 -05:00" in notice
    done = assess.score_journal(jr.read(path))
    html = render.score_html(done.journal, done.figures, done.result)
    assert "Recorded by" in html and "Corrected by" in html
    assert "2026-03-03 19:10:02 -05:00" in html and "2026-03-03 19:10 -05:00" in html
    assert "Ann Diaz (auditor)" in html and "J. Auditor" in html
    assert "2026-03-04 00:10" not in html
    assert "seq 2 notice: Ann Diaz (auditor)" in html  # the drift table names its lines' authors


# ----- 2. answers where the person looks ------------------------------------------------------


@pytest.mark.parametrize("where", ["desktop", "phone"])
def test_the_answer_to_a_press_appears_beside_the_button_and_the_connection_stays_in_view(room, browser, where):
    """The last step of the list (a monthly report) is pressed with a wrong id, far down the page:
    the refusal shows just below that step, inside the screen, not at the top of the page (before,
    it landed above the fold: 24 of 30 answers in the run were off-screen). The bar saying
    "connected" stays on screen however far the page is scrolled."""
    phone = where == "phone"
    page = open_page(browser, room, f"Bo {where}", "auditor", PHONE if phone else DESKTOP, phone)
    details = step(page, "new: monthly report received")
    details.locator("input[name=id]").fill("March")
    button = details.locator("button[type=submit]")
    button.scroll_into_view_if_needed()
    assert page.evaluate("() => window.scrollY") > 200  # the step is well below the top of the page
    button.click()
    page.wait_for_selector("#result .refused")
    box, pressed = page.locator("#result").bounding_box(), button.bounding_box()
    height = page.viewport_size["height"]
    assert box["y"] >= 0 and box["y"] + box["height"] <= height, box
    assert 0 <= box["y"] - (pressed["y"] + pressed["height"]) < 80, (box, pressed)  # right under the step
    conn = page.locator("#conn").bounding_box()
    assert 0 <= conn["y"] < height and page.inner_text("#conn") == "connected"
    check_axe(page, f"refused ({where})")
    shot(page, f"refused-{where}")
    page.context.close()


# ----- 3. closing asks first -----------------------------------------------------------------


def test_closing_from_the_page_is_confirmed_with_what_is_still_open_listed(browser, tmp_path):
    """The runner presses "close the exercise" while incident I9 is not restored: the page asks
    first, says a close cannot be undone and lists "I9: not restored"; "Keep it open" writes
    nothing; "Close it" writes the close."""
    server = Server(make_journal(tmp_path / "close.jsonl"), tmp_path / "held.json")
    try:
        post(server, join(server, "Pat Lee", "partner"), kind="incident.partner-notice", id="I9")
        page = open_page(browser, server, "J. Auditor", "runner")
        details = step(page, "close the exercise")
        before = server.journal.read_bytes()
        details.locator("button[type=submit]").click()
        page.wait_for_selector("#result .warning")
        text = page.inner_text("#result")
        assert "cannot be undone" in text and "Still open: I9: not restored" in text, text
        assert server.journal.read_bytes() == before
        check_axe(page, "close confirm (desktop)")
        shot(page, "close-confirm")
        page.click("#result button.dismiss")
        assert server.journal.read_bytes() == before
        details.locator("button[type=submit]").click()
        page.wait_for_selector("#result form.confirm")
        page.click("#result form.confirm button[type=submit]")
        page.wait_for_selector("#result .ok")
        assert jr.read(server.journal).events[-1]["kind"] == "exercise.close"
        page.wait_for_function("() => document.getElementById('state').innerText.includes('The exercise is closed')")
        check_axe(page, "closed (desktop)")
        page.context.close()
    finally:
        server.stop()


# ----- 4. the same milestone twice -----------------------------------------------------------


def test_two_people_pressing_the_same_milestone_at_once_record_it_once(room, browser):
    """An auditor and a partner both press "D7: written notice received" together. The presses
    are decided one at a time: the first is recorded; the second is asked to confirm, naming the
    first line's seq and author, and writes nothing. Once the notice is in, neither page offers
    the step again."""
    post(room, join(room, "J. Auditor", "runner", room.tokens["runner"]), kind="drift.onset", id="D7",
         data={"source": "organic", "affected_class": "invoices"})
    pages = [open_page(browser, room, "Ann Twin", "auditor"), open_page(browser, room, "Pat Twin", "partner")]
    buttons = []
    for page in pages:
        details = step(page, "D7: written notice received")
        details.locator("input[name='f.affected_class']").fill("invoices")
        ev = details.locator("input[name='f.evidence']")
        if ev.count():
            ev.fill("mail 12")
        buttons.append(details.locator("button[type=submit]"))
    # Both buttons go down before either comes up (a page holds its refresh while a button is down),
    # as two people pressing together: neither page has heard of the other's line when it presses.
    for page, b in zip(pages, buttons, strict=True):
        b.scroll_into_view_if_needed()
        box = b.bounding_box()
        page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        page.mouse.down()
    for page in pages:
        page.mouse.up()
    for page in pages:
        page.wait_for_selector("#result .ok, #result .warning")
    notices = [e for e in jr.read(room.journal).events if e["kind"] == "drift.notice" and e["id"] == "D7"]
    assert len(notices) == 1, notices
    asked = [p for p in pages if p.locator("#result .warning").count()]
    assert len(asked) == 1
    said = asked[0].inner_text("#result")
    assert f"Seq {notices[0]['seq']} already records the written notice of the drift for D7, by {notices[0]['by']}" \
        in said, said
    check_axe(asked[0], "repeated milestone confirm (desktop)")
    shot(asked[0], "repeated-milestone")
    for page in pages:
        page.wait_for_function("() => !document.getElementById('state').innerText.includes('D7: written notice')")
        page.context.close()


# ----- 5. keyboard and screen readers ----------------------------------------------------------


def test_focus_stays_put_when_someone_else_stamps_and_the_keys_reach_the_steps(room, browser):
    """Cy reaches a step by keyboard: the skip link first, then "n" twice. Then Dee records a
    line: Cy's focus is still on that step's summary (before, it fell to the page's body and the
    next Tab reached "leave"), and a screen reader hears Dee's line from the live region."""
    page = open_page(browser, room, "Cy Keys", "auditor")
    page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement.className") == "skip"
    page.keyboard.press("Enter")
    # the skip link's focus lands once the page has handled the key: wait for it, not a fixed time
    page.wait_for_function("() => document.activeElement && document.activeElement.id === 'steps'")
    page.keyboard.press("n")
    page.keyboard.press("n")
    key = page.evaluate("() => document.activeElement.closest('details.step').getAttribute('data-key')")
    post(room, join(room, "Dee Other", "auditor"), kind="drift.false-alert", id="FA-DEE")
    wait_or_say_why(page, room, "document.getElementById('timeline').innerText.includes('FA-DEE')")
    page.wait_for_function("() => document.getElementById('said').textContent.includes('Dee Other (auditor)')")
    assert page.evaluate("() => document.activeElement.tagName") == "SUMMARY"
    assert page.evaluate("() => document.activeElement.closest('details.step').getAttribute('data-key')") == key
    page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement.textContent") != "leave"
    check_axe(page, "after another's line (desktop)")
    page.context.close()


def test_the_skip_links_heading_keeps_the_focus_when_someone_else_stamps(room, browser):
    """Gus takes the skip link: the focus is on the "Next steps" heading. Before he presses a
    key, Hal records a line and the open items are redrawn. Gus's focus is still on the heading
    (before, a redraw moved it to the last step's summary, so his next "n" skipped every step;
    CI, 2026-12-05, caught it when another test's line arrived between the two)."""
    page = open_page(browser, room, "Gus Skip", "auditor")
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    page.wait_for_function("() => document.activeElement && document.activeElement.id === 'steps'")
    post(room, join(room, "Hal Other", "auditor"), kind="drift.false-alert", id="FA-HAL")
    wait_or_say_why(page, room, "document.getElementById('timeline').innerText.includes('FA-HAL')")
    page.wait_for_function("() => document.getElementById('said').textContent.includes('Hal Other (auditor)')")
    assert page.evaluate("() => document.activeElement.id") == "steps"
    page.keyboard.press("n")
    first = page.evaluate("() => document.querySelector('#state details.step summary') === document.activeElement")
    assert first, "n from the heading reaches the first step"
    page.context.close()


def test_the_phones_timeline_is_reachable_by_keyboard_and_shows_who(room, browser):
    """At 390 px the timeline scrolls sideways: its scrolling box takes the focus (axe's
    scrollable-region-focusable) and the "by" column starts inside the screen."""
    post(room, join(room, "Eve Phone", "partner"), kind="incident.partner-notice", id="I-PHONE")
    page = open_page(browser, room, "Flo Phone", "auditor", PHONE, True)
    page.locator(".scroller").focus()
    assert page.evaluate("() => document.activeElement.className") == "scroller"
    page.wait_for_function("() => document.getElementById('timeline').innerText.includes('I-PHONE')")
    # Found, scrolled to and measured in one turn of the page's script: other tests' lines reach
    # this shared server's pages and replace the timeline's rows, so a cell found in one call may
    # be gone by the next (CI, 2026-12-05: "Element is not attached to the DOM").
    cell = page.evaluate("""() => {
        const row = [...document.querySelectorAll('#timeline tr')].find(r => r.innerText.includes('I-PHONE'));
        const by = row.querySelector('td.by');
        by.scrollIntoView({block: 'nearest', inline: 'nearest'});
        return {x: by.getBoundingClientRect().x, text: by.innerText};
    }""")
    assert cell["x"] < PHONE["width"] - 20, cell
    assert "Eve Phone (partner)" in cell["text"]
    check_axe(page, "page (phone)")
    shot(page, "timeline-phone")
    page.context.close()


# ----- 6. corrections ------------------------------------------------------------------------


def test_an_auditor_corrects_its_own_line_from_the_page_before_the_close(room, browser):
    """Gil (a second auditor) records an alert, then corrects its time from the page: the
    correction is Gil's own line naming Gil's seq (before, only the runner's page offered it,
    and the runner had to correct it in the runner's name)."""
    page = open_page(browser, room, "Gil Second", "auditor")
    details = step(page, "new: supplier alert withdrawn as false")
    details.locator("input[name=id]").fill("FA-GIL")
    details.locator("button[type=submit]").click()
    page.wait_for_selector("#result .ok")
    seq = next(e["seq"] for e in jr.read(room.journal).events if e["id"] == "FA-GIL")
    page.wait_for_function(f"() => !!document.querySelector('#state select[name=\"f.target\"] "
                           f"option[value=\"{seq}\"]')")
    fix = step(page, "correct a line you recorded")
    fix.locator("select[name='f.target']").select_option(str(seq))
    fix.locator("input[name='f.at']").fill((NOW - dt.timedelta(hours=1)).astimezone(NY).strftime("%Y-%m-%d %H:%M"))
    fix.locator("input[name='f.reason']").fill("pressed late")
    fix.locator("button[type=submit]").click()
    page.wait_for_selector("#result .ok")
    last = jr.read(room.journal).events[-1]
    assert last["kind"] == "correction" and last["data"]["target"] == seq and last["by"] == "Gil Second (auditor)"
    page.context.close()


# ----- 7. words --------------------------------------------------------------------------------


def test_refusals_and_questions_speak_the_rooms_words(room, browser):
    """A time the page cannot read is refused naming the "when" field, never '--at'; a time
    outside the window is questioned with the times in New York time, never a raw ISO instant."""
    page = open_page(browser, room, "Hal Words", "auditor")
    details = step(page, "new: supplier alert withdrawn as false")
    details.locator("input[name=id]").fill("FA-W")
    details.locator("input[name=at]").fill("25:99")
    details.locator("button[type=submit]").click()
    page.wait_for_selector("#result .refused")
    text = page.inner_text("#result")
    assert text.startswith("Not recorded: When:") and "--at" not in text and "ISO" not in text, text
    details.locator("input[name=at]").fill((NOW + dt.timedelta(days=30)).astimezone(NY).strftime("%Y-%m-%d %H:%M"))
    details.locator("button[type=submit]").click()
    page.wait_for_selector("#result .warning")
    text = page.inner_text("#result")
    assert "after the exercise window closes" in text and "T" not in text.split("closes")[1][:40], text
    assert "supplier alert withdrawn" not in text and "drift.false-alert" not in text
    check_axe(page, "question (desktop)")
    page.click("#result button.dismiss")
    page.context.close()


def test_groups_keep_their_order_and_a_watchers_steps_are_worded_for_what_it_sees(room, browser):
    """A partner sees an incident (I-FIRST, recorded first) and then a signed-off injection
    (R-LATER) whose start it is not shown: the groups are listed in the order their ids first
    appeared (before, the injection's steps were put above everything else), and no step reads
    "(if R-LATER is a drift injection)"."""
    runner = join(room, "J. Auditor", "runner", room.tokens["runner"])
    post(room, runner, kind="incident.partner-notice", id="I-FIRST", data={"severity": 2})
    post(room, runner, kind="safety.agreed", id="R-LATER", data={
        "agreement": "SOW annex", "stop_owner": "Kim", "stop_condition": "errors", "rollback_owner": "Lee",
        "no_live_personal_data": True})
    page = open_page(browser, room, "Ivy Partner", "partner")
    headings = page.eval_on_selector_all("#state h3", "hs => hs.map(h => h.textContent)")
    assert headings.index("I-FIRST") < headings.index("R-LATER"), headings
    assert "drift injection)" not in page.inner_text("#state")
    page.context.close()


def test_what_is_half_typed_survives_a_reload(room, browser):
    page = open_page(browser, room, "Jo Reload", "auditor")
    details = step(page, "new: incident notified by the partner")
    details.locator("input[name=id]").fill("I-HALF")
    page.reload()
    page.wait_for_function("() => document.getElementById('conn').textContent === 'connected'")
    details = page.locator("details.step", has=page.locator("summary", has_text="new: incident notified")).first
    assert details.evaluate("d => d.open")
    assert details.locator("input[name=id]").input_value() == "I-HALF"
    page.context.close()


# ----- 8. stopping -----------------------------------------------------------------------------


def test_ctrl_c_with_pages_open_stops_cleanly(tmp_path):
    """Three pages' event streams are open when Ctrl-C (SIGINT) arrives: the server stops within
    seconds with one line saying so and no traceback (before: 169 lines, one traceback a page),
    and the journal still verifies."""
    server = Server(make_journal(tmp_path / "stop.jsonl"), None)
    key = join(server, "Kay", "auditor")
    post(server, key, kind="drift.false-alert", id="FA-STOP")
    conns = []
    for _ in range(3):
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
        conn.request("GET", "/api/stream", headers={"Authorization": f"Bearer {key}"})
        stream = conn.getresponse()
        assert stream.readline().startswith(b"retry")
        conns.append(conn)
    server.proc.send_signal(signal.SIGINT)
    _out, err = server.proc.communicate(timeout=30)
    for conn in conns:
        conn.close()
    assert "Traceback" not in err and "ERROR" not in err, err
    assert len(err.strip().splitlines()) <= 3, err
    assert "stopped serving stop.jsonl" in err
    verify(server.journal)



"""day60 serve in a real browser (Playwright driving Debian's Chromium) and through its JSON twin.

Every server here is a real 'day60 serve' subprocess on 127.0.0.1 and a free port, started by
the test; one serves the whole module, and the kill-and-restart test starts its own. Screenshots
of every page are saved in tests/output/web/.
"""

import datetime as dt
import http.client
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from day60 import journal as jr
from tests.shots import screenshot

ROOT = Path(__file__).resolve().parents[1]
SHOTS = ROOT / "tests" / "output" / "web"
TOKEN = "team-token-2026"
UTC = dt.UTC
NOW = dt.datetime.now(UTC)


# ----- servers and clients --------------------------------------------------------------------


def make_journal(path: Path) -> Path:
    from typer.testing import CliRunner

    from day60.cli import app

    r = CliRunner().invoke(app, ["new", str(path), "--partner", "Acme BPO", "--supplier", "Nimbus AI",
                                 "--deployment", "claims intake", "--tier", "T3", "-c", "uk-office",
                                 "--window-start", (NOW - dt.timedelta(days=2)).isoformat(),
                                 "--window-end", (NOW + dt.timedelta(days=10)).isoformat(),
                                 "--runner", "J. Auditor", "--not-synthetic", "--announced"])
    assert r.exit_code == 0, r.output
    return path


class Server:
    def __init__(self, journal: Path, held: Path | None, port: int = 0) -> None:
        self.journal, self.held = journal, held
        args = [sys.executable, "-m", "day60", "serve", str(journal), "--port", str(port), "--token", TOKEN]
        if held is not None:
            args += ["--held", str(held)]
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        self.proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        read_banner(self)
        self.wait_ready()

    def wait_ready(self) -> None:
        deadline = time.time() + 15
        while time.time() < deadline:
            try:
                if request(self, "GET", "/")[0] == 200:
                    return
            except OSError:
                time.sleep(0.05)
        raise AssertionError("serve did not answer")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def read_banner(server) -> None:
    """What 'day60 serve' prints first, taken into ``server``: its address, the runner token, and
    the join token of each role, one a line ("  ROLE: TOKEN")."""
    from day60.web.room import ROLES

    lines = [server.proc.stdout.readline() for _ in range(2 + len(ROLES))]
    if not lines[0].startswith("serving"):
        server.proc.kill()
        raise AssertionError(f"serve did not start: {lines} {server.proc.stderr.read()}")
    server.url = lines[0].split(" at ")[1].strip()
    server.port = int(server.url.rsplit(":", 1)[1].strip("/"))
    server.runner_token = lines[1].rsplit(": ", 1)[1].strip()
    assert lines[2].startswith("join tokens, one a role"), lines
    server.tokens = dict(line.strip().rsplit(": ", 1) for line in lines[3:])
    assert set(server.tokens) == set(ROLES) - {"runner"}, lines
    server.tokens["runner"] = server.runner_token


def request(server: Server, method: str, path: str, body=None, key: str | None = None,
            headers: dict | None = None, raw: bytes | None = None) -> tuple[int, object, dict]:
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=20)
    hdrs = dict(headers or {})
    if key is not None:
        hdrs["Authorization"] = f"Bearer {key}"
    payload = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
    if payload is not None and "Content-Type" not in hdrs:
        hdrs["Content-Type"] = "application/json"
    conn.request(method, path, body=payload, headers=hdrs)
    response = conn.getresponse()
    text = response.read().decode("utf-8")
    conn.close()
    answer_headers = {k.lower(): v for k, v in response.getheaders()}
    try:
        return response.status, json.loads(text), answer_headers
    except ValueError:
        return response.status, text, answer_headers


def join(server: Server, name: str, role: str = "observer", token: str | None = None) -> str:
    """A participant's key: ``name`` joined as ``role`` with that role's join token (or ``token``)."""
    token = token or server.tokens[role]
    status, answer, _ = request(server, "POST", "/api/join", {"token": token, "name": name, "role": role})
    assert status == 200, answer
    return answer["key"]


def post(server: Server, key: str, **fields) -> tuple[int, dict]:
    status, answer, _ = request(server, "POST", "/api/events", fields, key=key)
    return status, answer


def verify(path: Path) -> str:
    r = subprocess.run([sys.executable, "-m", "day60", "verify", str(path)], capture_output=True, text=True,
                       env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout


def serving(folder: Path):
    """A server on a new journal in ``folder``, stopped when the fixture using it ends."""
    s = Server(make_journal(folder / "ex.jsonl"), folder / "held.json")
    yield s
    s.stop()


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    yield from serving(tmp_path_factory.mktemp("serve"))



def shot(page, name: str) -> None:
    """The page from its top, at most 2400 pixels of it (the module's journal grows long)."""
    height = min(2400, page.evaluate("() => document.documentElement.scrollHeight"))
    screenshot(page, SHOTS / f"{name}.png", full_page=True, clip={"x": 0, "y": 0, "width": 1280, "height": height})


def open_page(browser, server: Server, name: str, role: str = "observer", token: str | None = None):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(server.url)
    page.fill("input[name=name]", name)
    page.select_option("select[name=role]", role)
    page.fill("input[name=token]", token or server.tokens[role])
    page.click("button[type=submit]")
    page.wait_for_selector("#timeline")
    page.wait_for_function("() => document.getElementById('conn').textContent === 'connected'")
    page.errors = errors  # type: ignore[attr-defined]
    return page


def open_step(page, label: str):
    """Open a step of the checklist by the start of its label; returns its form."""
    details = page.locator("details.step", has=page.locator("summary", has_text=label)).first
    if not details.evaluate("d => d.open"):
        details.locator("summary").click()
    return details.locator("form")


def wait_or_say_why(page, server: Server, condition: str, timeout: int = 60000) -> None:
    """Wait until ``condition`` holds on the page; if it never does, fail with what the page
    shows (its timeline, its answer box, its connection line, its head) beside the journal's
    own lines, so a failure on a loaded CI machine says whether the page or the server fell
    behind. The time allowed is generous: how fast is measured in benchmarks/serve.py."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        page.wait_for_function(f"() => {condition}", timeout=timeout)
    except PlaywrightTimeout:
        seen = page.evaluate("() => ({timeline: document.getElementById('timeline').innerText.slice(0, 1500), "
                             "result: document.getElementById('result').innerText, "
                             "conn: document.getElementById('conn').textContent, "
                             "head: (document.getElementById('head') || {}).outerHTML || null, "
                             "state_head: (document.getElementById('state-head') || {}).outerHTML || null})")
        lines = [f"{e['seq']} {e['kind']} {e['id']} by {e['by']}" for e in jr.read(server.journal).events]
        pytest.fail(f"the page never showed it: {condition}\npage: {seen}\njournal: {lines}\n"
                    f"console: {page.errors}")  # type: ignore[attr-defined]


def rows_with(page, text: str) -> int:
    return page.locator("#timeline tr", has_text=text).count()


# ----- the browser ------------------------------------------------------------------------------


def test_two_people_stamp_at_once_and_both_pages_show_both_lines(server, browser):
    """Both presses leave before either answer returns; each page then shows both lines, each
    signed by its own person. How fast is measured in benchmarks/serve.py, not asserted here."""
    ana = open_page(browser, server, "Ana Ruiz", "auditor")
    ben = open_page(browser, server, "Ben Okafor", "partner")
    shot(ana, "checklist-observer")
    forms = []
    for page, ident in ((ana, "I-ANA"), (ben, "I-BEN")):
        form = open_step(page, "new: incident notified by the partner")
        form.locator("input[name=id]").fill(ident)
        forms.append(form)
    for form in forms:  # both presses leave before either answer comes back
        form.locator("button[type=submit]").click(no_wait_after=True)
    for page in (ana, ben):
        wait_or_say_why(page, server, "['I-ANA', 'I-BEN'].every(t => document.getElementById('timeline')"
                                      ".innerText.includes(t))")
    shot(ana, "two-people-ana")
    shot(ben, "two-people-ben")
    events = {e["id"]: e for e in jr.read(server.journal).events}
    assert events["I-ANA"]["by"] == "Ana Ruiz (auditor)" and events["I-BEN"]["by"] == "Ben Okafor (partner)"
    for page in (ana, ben):
        assert rows_with(page, "Ana Ruiz (auditor)") == 1 and rows_with(page, "Ben Okafor (partner)") == 1
        assert not page.errors, page.errors  # type: ignore[attr-defined]
    verify(server.journal)
    ana.context.close()
    ben.context.close()


def test_the_step_being_typed_in_stays_under_the_pointer_when_another_press_adds_steps_above(server, browser):
    """Ben has a step open and its id typed when Ana's press lands: a new incident, whose
    follow-up steps are listed above the steps that start something new. The page must not
    slide them in under Ben's pointer: his Record button is where it was on the screen (it moved
    412 px down before, so a press aimed at it opened one of Ana's steps instead), what he typed
    is kept, and his press records his incident."""
    ben = open_page(browser, server, "Ben Shift", "partner")
    form = open_step(ben, "new: incident notified by the partner")
    form.locator("input[name=id]").fill("I-SHIFT-BEN")
    form.locator("button[type=submit]").scroll_into_view_if_needed()  # a partner's page is short: it may sit low
    before = form.locator("button[type=submit]").bounding_box()
    post(server, join(server, "Ana Shift", "auditor"), kind="incident.partner-notice", id="I-SHIFT-ANA")
    wait_or_say_why(ben, server, "document.getElementById('timeline').innerText.includes('I-SHIFT-ANA')")
    ben.wait_for_function("() => document.getElementById('state').innerText.includes('I-SHIFT-ANA')")
    after = form.locator("button[type=submit]").bounding_box()
    assert abs(after["y"] - before["y"]) < 1, (before, after)
    assert form.locator("input[name=id]").input_value() == "I-SHIFT-BEN"
    # Pressed where the button was, before any screenshot: a full-page capture may leave the page
    # scrolled elsewhere, which would move the button itself.
    ben.mouse.click(before["x"] + before["width"] / 2, before["y"] + before["height"] / 2)
    wait_or_say_why(ben, server, "document.getElementById('timeline').innerText.includes('I-SHIFT-BEN')")
    shot(ben, "step-stays-put")
    assert not ben.errors, ben.errors  # type: ignore[attr-defined]
    ben.context.close()


def test_a_button_aimed_at_before_another_press_lands_is_still_the_one_pressed(server, browser):
    """The lost press of two people stamping at once, made to happen every time: Eve finds her
    Record button (as a finger or Playwright's click does: where it is, and that it is the
    element there), then Fay's press lands and Eve's page fetches the open items again before
    the press itself goes down. The page used to replace every step with a fresh copy, so the
    button aimed at was no longer in the page: the click reached a detached button and nothing
    was sent (Playwright's no_wait_after click dropped it without a word, 1 run in 4 under load).
    Now a step still offered is the same element after the refresh, at the same place on the
    screen, and the press records Eve's incident."""
    eve = open_page(browser, server, "Eve Aim", "partner")
    form = open_step(eve, "new: incident notified by the partner")
    form.locator("input[name=id]").fill("I-AIM-EVE")
    button = form.locator("button[type=submit]")
    button.scroll_into_view_if_needed()
    aimed = button.element_handle()
    box = aimed.bounding_box()
    point = {"x": box["x"] + box["width"] / 2, "y": box["y"] + box["height"] / 2}
    post(server, join(server, "Fay Aim", "auditor"), kind="incident.partner-notice", id="I-AIM-FAY")
    eve.wait_for_function("() => document.getElementById('state').innerText.includes('I-AIM-FAY')")
    still = aimed.evaluate("(b, p) => b.isConnected && document.elementFromPoint(p.x, p.y) === b", point)
    assert still, "the button aimed at was replaced or moved by the refresh"
    aimed.click(no_wait_after=True)
    wait_or_say_why(eve, server, "document.getElementById('timeline').innerText.includes('I-AIM-EVE')")
    assert not eve.errors, eve.errors  # type: ignore[attr-defined]
    eve.context.close()


def test_a_press_on_its_way_when_another_press_lands_is_answered_on_its_step(server, browser):
    """Gus presses Record; his request is held on its way (a slow server), and meanwhile Hal's
    press lands and Gus's page fetches the open items again. The answer to Gus's press must
    still reach his step: "recorded" shown, what he typed cleared and the step closed. When the
    refresh replaced the step while the press was on its way, the answer's "recorded" went to
    the detached copy: the fresh copy kept "I-WAY-GUS" typed and open, ready to be sent twice."""
    gus = open_page(browser, server, "Gus Way", "partner")
    held: list = []
    gus.route("**/press", lambda route: held.append(route))
    form = open_step(gus, "new: incident notified by the partner")
    form.locator("input[name=id]").fill("I-WAY-GUS")
    form.locator("button[type=submit]").click(no_wait_after=True)
    gus.wait_for_function("() => document.querySelector('#state form.press[data-press-key]') !== null")
    while not held:
        gus.wait_for_timeout(50)
    before = gus.evaluate("() => performance.getEntriesByType('resource').length")
    post(server, join(server, "Hal Way", "auditor"), kind="incident.partner-notice", id="I-WAY-HAL")
    gus.wait_for_function("n => performance.getEntriesByType('resource').slice(n).filter(e => "
                          "e.name.endsWith('/fragment/state') && e.responseEnd > 0).length > 0", arg=before)
    held[0].continue_()
    wait_or_say_why(gus, server, "['I-WAY-GUS', 'I-WAY-HAL'].every(t => document.getElementById('timeline')"
                                 ".innerText.includes(t))")
    gus.wait_for_function("() => document.getElementById('result').innerText.includes('Recorded')")
    label = gus.locator("summary", has_text="new: incident notified by the partner")
    step = gus.locator("details.step", has=label).first
    assert step.locator("input[name=id]").input_value() == ""
    assert not step.evaluate("d => d.open")
    assert sum(1 for e in jr.read(server.journal).events if e["id"] == "I-WAY-GUS") == 1
    assert not gus.errors, gus.errors  # type: ignore[attr-defined]
    gus.context.close()


def test_a_press_the_page_could_not_hand_on_says_it_was_not_recorded(server, browser):
    """A step's form without its handler (a fresh copy not yet given one) would be submitted by
    the browser itself: a plain reload of the page with what was typed in its address, and
    nothing recorded, nothing said. The page stops it and says, under the step, that nothing was
    recorded; what was typed stays, and the journal holds no such line."""
    ivy = open_page(browser, server, "Ivy Bare", "partner")
    form = open_step(ivy, "new: incident notified by the partner")
    form.locator("input[name=id]").fill("I-BARE-IVY")
    form.evaluate("f => f.replaceWith(f.cloneNode(true))")  # the copy has no htmx handler
    url = ivy.url
    form.locator("button[type=submit]").click()
    ivy.wait_for_selector("#result.refused")
    assert "Not recorded" in ivy.inner_text("#result") and "press again" in ivy.inner_text("#result")
    assert ivy.url == url
    assert form.locator("input[name=id]").input_value() == "I-BARE-IVY"
    assert not [e for e in jr.read(server.journal).events if e["id"] == "I-BARE-IVY"]
    ivy.context.close()


def test_a_press_held_down_while_another_press_lands_still_records(server, browser):
    """Cy presses Record and, while the button is down, Di's press lands and the page fetches the
    new open items. Swapping the step for a fresh copy then would put a different button under
    Cy's pointer when it comes up, and the browser sends no click at all: the press would be
    lost without a word. The page holds the swap until the pointer is up, so Cy's incident is
    recorded, and the page then shows both."""
    cy = open_page(browser, server, "Cy Hold", "partner")
    form = open_step(cy, "new: incident notified by the partner")
    form.locator("button[type=submit]").scroll_into_view_if_needed()  # a partner's page is short: it may sit low
    form.locator("input[name=id]").fill("I-HOLD-CY")
    box = form.locator("button[type=submit]").bounding_box()
    cy.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    cy.mouse.down()
    post(server, join(server, "Di Hold", "auditor"), kind="incident.partner-notice", id="I-HOLD-DI")
    cy.wait_for_timeout(2000)  # the stream tells the page and it fetches the fragments meanwhile
    cy.mouse.up()
    wait_or_say_why(cy, server, "['I-HOLD-CY', 'I-HOLD-DI'].every(t => document.getElementById('timeline')"
                                ".innerText.includes(t))")
    assert not cy.errors, cy.errors  # type: ignore[attr-defined]
    cy.context.close()


def test_a_refusal_is_shown_to_the_person_who_pressed_and_nothing_is_written(server, browser):
    page = open_page(browser, server, "Cy Park", "auditor")
    before = server.journal.read_bytes()
    form = open_step(page, "new: monthly report received")
    form.locator("input[name=id]").fill("March")  # a report's id is the month, YYYY-MM
    form.locator("button[type=submit]").click()
    page.wait_for_selector("#result .refused")
    text = page.inner_text("#result")
    assert "Not recorded:" in text and "a report's id is the month it covers" in text
    shot(page, "refusal")
    time.sleep(0.3)
    assert server.journal.read_bytes() == before
    page.context.close()


def test_what_is_being_typed_survives_another_persons_press(server, browser):
    page = open_page(browser, server, "Jo Typist", "auditor")
    form = open_step(page, "new: supplier alert withdrawn as false")
    form.locator("input[name=id]").fill("KEEP-1")
    form.locator("input[name=id]").focus()
    post(server, join(server, "Lu Other", "auditor"), kind="drift.false-alert", id="OTHER-1")
    page.wait_for_function("() => document.getElementById('timeline').innerText.includes('OTHER-1')")
    time.sleep(0.2)
    details = page.locator("details.step", has=page.locator("summary", has_text="new: supplier alert withdrawn"))
    assert details.first.evaluate("d => d.open")  # the refresh kept it open
    assert details.first.locator("input[name=id]").input_value() == "KEEP-1"
    assert page.evaluate("() => document.activeElement.name") == "id"
    page.context.close()


def test_a_time_in_the_future_is_confirmed_before_it_is_recorded(server, browser):
    page = open_page(browser, server, "Di Moss", "auditor")
    form = open_step(page, "new: supplier alert withdrawn as false")
    form.locator("input[name=id]").fill("FA-1")
    form.locator("input[name=at]").fill((NOW + dt.timedelta(days=3)).isoformat())
    before = server.journal.read_bytes()
    form.locator("button[type=submit]").click()
    page.wait_for_selector("#result .warning")
    assert "is in the future" in page.inner_text("#result")
    shot(page, "warning")
    assert server.journal.read_bytes() == before
    page.click("#result button[type=submit]")  # record it anyway
    page.wait_for_selector("#result .ok")
    assert jr.read(server.journal).events[-1]["id"] == "FA-1"
    page.context.close()


def test_hostile_text_in_the_journal_renders_as_text(server, browser):
    from typer.testing import CliRunner

    from day60.cli import app

    r = CliRunner().invoke(app, ["log", str(server.journal), "drift.false-alert", "--id", "FA-<b>x</b>", "--at", "now",
                                 "--set", "note=<script>window.pwned=1</script> \u202eevil", "--by",
                                 "<img src=x onerror=window.pwned=2>"])
    assert r.exit_code == 0, r.output
    page = open_page(browser, server, "Eve <script>x</script>", "auditor")
    page.wait_for_function("() => document.getElementById('timeline').innerText.includes('window.pwned=1')")
    assert page.evaluate("window.pwned") is None
    assert page.locator("#timeline script, #timeline img, #timeline b").count() == 0
    text = page.inner_text("#timeline")
    assert "<script>window.pwned=1</script> <U+202E>evil" in text and "<img src=x onerror=window.pwned=2>" in text
    assert "Eve <script>x</script>" in page.inner_text(".who")
    shot(page, "hostile-text")
    page.context.close()


def test_a_press_made_while_the_server_is_down_is_queued_and_recorded_late(browser, tmp_path):
    """The server is killed (SIGKILL) while pages are open and restarted on the same port: nothing
    acknowledged is lost; a press made while it was down is queued with the browser's time, sent
    when the page reconnects, and recorded late with that time kept; the page says so."""
    path = make_journal(tmp_path / "ex.jsonl")
    first = Server(path, None)
    key = join(first, "Script", "auditor")
    acked: list[int] = []
    stop = threading.Event()

    def writer() -> None:
        k = 0
        while not stop.is_set():
            try:
                status, answer = post(first, key, kind="drift.false-alert", id=f"W{k}")
            except OSError:
                return
            if status == 201:
                acked.append(answer["event"]["seq"])
            k += 1

    page = open_page(browser, first, "Fay Lim", "auditor")
    thread = threading.Thread(target=writer)
    thread.start()
    while len(acked) < 20:
        time.sleep(0.01)
    first.proc.send_signal(signal.SIGKILL)  # mid-run: the writer is between requests or inside one
    first.proc.wait()
    stop.set()
    thread.join()
    page.wait_for_function("() => document.getElementById('conn').textContent.startsWith('not connected')")
    form = open_step(page, "new: supplier alert withdrawn as false")
    form.locator("input[name=id]").fill("LATE-1")
    pressed = time.time()
    form.locator("button[type=submit]").click()
    page.wait_for_function("() => document.getElementById('queued').textContent.includes('1 press(es) queued')")
    shot(page, "queued-while-down")
    j = jr.read(path)
    if j.partial is not None:  # a line cut by the kill was never acknowledged; it is moved aside
        jr.repair(path)
    seqs = {e["seq"] for e in jr.read(path).events}
    assert set(acked) <= seqs, "an acknowledged line was lost"
    time.sleep(1.0)  # the press waits in the browser's queue
    second = Server(path, None, port=first.port)
    try:
        page.wait_for_function("() => document.getElementById('queued').textContent === ''", timeout=10000)
        page.wait_for_function("() => document.getElementById('timeline').innerText.includes('LATE-1')")
        late = next(e for e in jr.read(path).events if e["id"] == "LATE-1")
        pressed_at = dt.datetime.fromisoformat(late["data"]["pressed_at"]).timestamp()
        assert abs(pressed_at - pressed) < 1.0  # the browser's clock at the press, kept
        at = dt.datetime.fromisoformat(late["at"]).timestamp()
        assert abs(at - pressed) < 1.0  # the server's clock, less the wait the browser measured
        assert dt.datetime.fromisoformat(late["recorded_at"]).timestamp() - pressed > 0.9  # recorded when received
        assert late["by"] == "Fay Lim (auditor)"
        assert page.locator("#timeline tr.late", has_text="LATE-1").count() == 1
        assert "recorded late" in page.locator("#timeline tr", has_text="LATE-1").inner_text()
        shot(page, "recorded-late")
        verify(path)
    finally:
        page.context.close()
        second.stop()


def test_the_json_twin_takes_8_clients_at_50_events_each_at_once(server):
    """400 events from 8 clients at once: every one lands, the chain verifies, each line carries its
    author, and each stamp lies inside its own request's interval (client and server share this
    machine's clock)."""
    keys = [join(server, f"Client {i}", "auditor") for i in range(8)]
    results: list[tuple[float, float, int, dict]] = []
    lock = threading.Lock()

    def client(i: int) -> None:
        for k in range(50):
            sent = time.time()
            status, answer = post(server, keys[i], kind="drift.false-alert", id=f"C{i}-{k}")
            back = time.time()
            with lock:
                results.append((sent, back, status, answer))

    threads = [threading.Thread(target=client, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [r[2] for r in results] == [201] * 400, next(r[3] for r in results if r[2] != 201)
    events = {e["id"]: e for e in jr.read(server.journal).events}
    for sent, back, _, answer in results:
        line = events[answer["event"]["id"]]
        # the answer is the line as written, without the chain's hashes (a page other than the
        # runner's is never sent them: a hash would tell of a sealed line before it)
        assert {k: v for k, v in line.items() if k not in ("prev", "hash")} == answer["event"]
        at = dt.datetime.fromisoformat(line["at"]).timestamp()
        assert sent - 0.001 <= at <= back + 0.001
        assert sent - 0.001 <= dt.datetime.fromisoformat(line["recorded_at"]).timestamp() <= back + 0.001
    for i in range(8):
        assert sum(1 for e in events.values() if e["by"] == f"Client {i} (auditor)") == 50
    assert "ok," in verify(server.journal)


def test_the_json_twin_answers_as_log_does(server, run):
    """A refusal is HTTP 422 with the line 'day60 log' prints after "error: ", and nothing is written."""
    key = join(server, "Gil Roy", "auditor")
    cases = [({"kind": "drift.nonsense", "id": "x"}, ["drift.nonsense", "--id", "x", "--at", "now"]),
             ({"kind": "incident.partner-notice", "id": "I-GAP", "at": "2026-03-29T01:30"},
              ["incident.partner-notice", "--id", "I-GAP", "--at", "2026-03-29T01:30"]),
             ({"kind": "incident.restored", "id": "NOPE", "data": {"check": "x"}},
              ["incident.restored", "--id", "NOPE", "--at", "now", "--set", "check=x"]),
             ({"kind": "incident.detected", "id": "I-SEV", "data": {"severity": 9, "source": "organic"}},
              ["incident.detected", "--id", "I-SEV", "--at", "now", "--set", "severity=9", "--set", "source=organic"])]
    for body, args in cases:
        before = server.journal.read_bytes()
        status, answer = post(server, key, **body)
        assert status == 422, answer
        r = run("log", server.journal, *args)
        assert r.exit_code == 2
        assert r.stderr.strip() == f"error: {answer['error']}"
        assert server.journal.read_bytes() == before
    status, answer = post(server, key, kind="incident.partner-notice", id="I-TYPED", at="2026-03-02T09:00+05:30")
    assert status == 201 and answer["event"]["at"] == "2026-03-02T09:00:00+05:30"  # as typed


def test_get_events_after_and_state(server):
    key = join(server, "Hal Ng", "auditor")
    status, first = request(server, "GET", "/api/events?after=0", key=key)[:2]
    assert status == 200 and [e["seq"] for e in first["events"]] == list(range(1, first["head"] + 1))
    status, answer = post(server, key, kind="drift.false-alert", id="H-1")
    seq = answer["event"]["seq"]
    status, later = request(server, "GET", f"/api/events?after={seq - 1}", key=key)[:2]
    assert [e["seq"] for e in later["events"]] == [seq] and later["events"][0]["by"] == "Hal Ng (auditor)"
    status, state = request(server, "GET", "/api/state", key=key)[:2]
    assert status == 200 and state["head"] == seq and state["participant"]["by"] == "Hal Ng (auditor)"
    assert "incidents" in state["open"] and state["next"]
    assert request(server, "GET", "/api/events?after=-1", key=key)[0] == 422


# ----- a hostile participant ----------------------------------------------------------------


def test_a_hostile_participant_is_refused(server, browser):
    key = join(server, "Mal Ory", "auditor")
    before = server.journal.read_bytes()
    payload, mac = key.split(".")
    import base64

    forged_payload = base64.urlsafe_b64encode(json.dumps(["Mal Ory", "runner"]).encode()).decode().rstrip("=")
    for bad in (f"{forged_payload}.{mac}", f"{payload}.{'0' * 64}", "", "x" * 5000, "a.b.c"):
        assert request(server, "POST", "/api/events", {"kind": "drift.false-alert", "id": "F"}, key=bad)[0] == 401
    assert request(server, "GET", "/api/state", headers={"Authorization": "Basic abc"})[0] == 401
    # The runner's role needs the runner token; the join token does not give it.
    assert request(server, "POST", "/api/join", {"token": TOKEN, "name": "Mal", "role": "runner"})[0] == 403
    assert request(server, "POST", "/api/join", {"token": "guess", "name": "Mal", "role": "observer"})[0] == 403
    # An observer cannot seal, reveal, close, or post a reveal line.
    status, answer = post(server, key, kind="drift.onset", id="D9", seal=True, data={"affected_class": "x"})
    assert status == 403 and "only the runner's page" in answer["error"]
    assert request(server, "POST", "/api/reveal", {}, key=key)[0] == 403
    assert post(server, key, kind="exercise.close", id="exercise")[0] == 403
    assert post(server, key, kind="reveal", id="D9", data={"target": 1, "at": "x", "salt": "0" * 32})[0] == 403
    # The held file and the server's secret are never served.
    for path in ("/held.json", "/static/../held.json", "/static/%2e%2e/held.json", "/ex.jsonl.serve-secret",
                 "/static/..%2fex.jsonl"):
        status, _text, _ = request(server, "GET", path, key=key)
        assert status == 404, path
    # Oversized, deep, NaN, wrong shapes, unknown fields.
    assert request(server, "POST", "/api/events", raw=b"{" + b" " * (1 << 20) + b"}", key=key)[0] == 413
    assert request(server, "POST", "/api/events", raw=b"[" * 50_000 + b"]" * 50_000, key=key)[0] in (400, 413)
    assert request(server, "POST", "/api/events", raw=b"[" * 20_000 + b"]" * 20_000, key=key)[0] == 400
    assert request(server, "POST", "/api/events", raw=b'{"kind": NaN}', key=key)[0] == 400
    assert request(server, "POST", "/api/events", raw=b"\xff\xfe", key=key)[0] == 400
    for body in ([], {"kind": 1, "id": "x"}, {"kind": "drift.false-alert", "id": "x", "extra": 1},
                 {"kind": "drift.false-alert", "id": "x", "data": []},
                 {"kind": "drift.false-alert", "id": "x", "data": {"note": {"deep": 1}}},
                 {"kind": "drift.false-alert", "id": "x\u202e"}, {"kind": "drift.false-alert", "id": "x", "seal": "no"},
                 {"kind": "drift.false-alert", "id": "x", "pressed_at": "2026-01-01T00:00Z"},
                 {"kind": "drift.false-alert", "id": "x", "pressed_at": "2026-01-01T00:00Z",
                  "sent_at": "2025-01-01T00:00Z"},
                 {"kind": "drift.false-alert", "id": "x", "at": "2026-03-02T09:00" + "0" * 5000}):
        status, answer = post(server, key, **body) if isinstance(body, dict) else \
            request(server, "POST", "/api/events", body, key=key)[:2]
        assert status in (400, 422), (body, answer)
        assert "Traceback" not in json.dumps(answer)
    # Names: a script tag is text; a direction override is refused.
    assert request(server, "POST", "/api/join", {"token": TOKEN, "name": "R\u202eevil", "role": "observer"})[0] == 422
    assert request(server, "POST", "/api/join", {"token": TOKEN, "name": "x" * 81, "role": "observer"})[0] == 422
    assert request(server, "POST", "/api/join", {"token": TOKEN, "name": "Al", "role": "admin"})[0] == 422
    assert server.journal.read_bytes() == before
    # Page posts: no CSRF token, a wrong one, another site's origin, another host name.
    page = open_page(browser, server, "Mal Form", "auditor")
    cookie = {c["name"]: c["value"] for c in page.context.cookies()}["day60_key"]
    form = "kind=drift.false-alert&id=CSRF-1"
    for extra, headers in (("", {}), ("&csrf=0000", {}), ("&csrf=" + page.get_attribute("meta[name=day60-csrf]",
                                                                                       "content"),
                                                            {"Origin": "http://evil.example"})):
        status = request(server, "POST", "/press", raw=(form + extra).encode(),
                         headers={"Cookie": f"day60_key={cookie}", "Content-Type":
                                  "application/x-www-form-urlencoded", **headers})[0]
        assert status == 403
    status = request(server, "GET", "/", headers={"Host": "evil.example"})[0]
    assert status == 421
    assert server.journal.read_bytes() == before
    page.context.close()


def test_a_line_is_corrected_by_its_author_or_the_runner_only(server):
    author, other = join(server, "Ivy Author", "auditor"), join(server, "Otto Other", "partner")
    status, answer = post(server, author, kind="incident.partner-notice", id="I-FIX")
    seq = answer["event"]["seq"]
    fix = {"kind": "correction", "id": str(seq), "data": {"target": seq, "at": NOW.isoformat(), "reason": "typo"}}
    status, answer = post(server, other, **fix)
    assert status == 403 and "recorded by Ivy Author (auditor)" in answer["error"]
    status, answer = post(server, author, **fix)
    assert status == 201 and answer["event"]["by"] == "Ivy Author (auditor)"
    # What the toolkit writes itself is never taken from a request.
    for data in ({"commitment": "0" * 64}, {"pressed_at": NOW.isoformat()}):
        status, answer = post(server, author, kind="drift.false-alert", id="FA-X", data=data)
        assert status == 403 and "is written by the toolkit itself" in answer["error"]


def test_a_journal_changed_behind_the_server_stops_every_append(tmp_path):
    from day60.web.room import Room

    path = make_journal(tmp_path / "ex.jsonl")
    jr.append(path, "drift.false-alert", "F1", NOW)
    room = Room(path, None)
    assert [e["id"] for e in room.events] == ["F1"]
    jr.append(path, "drift.false-alert", "F2", NOW)  # 'day60 log' writing at the same time
    assert room.refresh() and [e["id"] for e in room.events] == ["F1", "F2"]
    with path.open("a") as fh:
        fh.write('{"seq": 3, "kind": "drift.false-alert"}\n')  # a line no toolkit wrote
    assert not room.refresh() and "line 4" in room.problem
    from day60.web import press
    from day60.web.room import Participant

    with pytest.raises(jr.InputError, match="no longer verifies"):
        press.record(room, Participant("A", "auditor"), press.Press("drift.false-alert", "F3"), NOW, True)


def test_the_wheel_ships_the_web_assets(tmp_path):
    import zipfile

    subprocess.run([sys.executable, "-m", "hatchling", "build", "-t", "wheel", "-d", str(tmp_path)], cwd=ROOT,
                   check=True, capture_output=True)
    [wheel] = tmp_path.glob("day60-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    shipped = {f"day60/web/{p.relative_to(ROOT / 'day60' / 'web').as_posix()}"
               for p in (ROOT / "day60" / "web").rglob("*") if p.is_file() and "__pycache__" not in p.parts}
    assert shipped <= names
    assert {"day60/web/static/htmx.min.js", "day60/web/static/htmx-LICENSE.txt"} <= names


def test_concurrent_presses_of_the_same_step_are_one_line_and_one_refusal(server):
    """Two people press "supplier detected it" for the same incident at once: the journal's lock
    and rules take one; the other is refused, with log's message."""
    keys = [join(server, f"Twin {i}", "auditor") for i in range(2)]
    post(server, keys[0], kind="incident.partner-notice", id="I-TWIN")
    answers: list[tuple[int, dict]] = []
    barrier = threading.Barrier(2)

    def press(k: str) -> None:
        barrier.wait()
        answers.append(post(server, k, kind="incident.detected", id="I-TWIN", data={"severity": 2,
                                                                                  "source": "organic"}))

    threads = [threading.Thread(target=press, args=(k,)) for k in keys]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(s for s, _ in answers) == [201, 422]
    assert "is already detected" in next(a for s, a in answers if s == 422)["error"]
    assert sum(1 for e in jr.read(server.journal).events if e["kind"] == "incident.detected"
               and e["id"] == "I-TWIN") == 1


def test_a_second_finger_down_outside_the_open_items_never_stops_the_page_refreshing(server, browser):
    """Eve rests a finger on the open items (the swap waits for it, as above) and, before lifting
    it, taps the page's header with another. The second press is not on the open items, and it
    once cleared the 'held' mark while the waiting swap was still queued: no release after that
    (nor the 3 s cap) ran the queue again, the refresh never finished, and the page showed no
    line anyone recorded from then on, without a word. (A mouse does the same when its release
    outside the window is lost and the next click lands outside the open items.) The page must
    show Fa's line within the cap, and a later one too."""
    eve = open_page(browser, server, "Eve Touch", "auditor")

    def press(kind: str, where: str, finger: int) -> None:
        eve.evaluate("([kind, where, finger]) => document.querySelector(where).dispatchEvent(new PointerEvent("
                     "kind, {bubbles: true, composed: true, pointerId: finger, pointerType: 'touch', "
                     "isPrimary: finger === 1}))", [kind, where, finger])

    observer = join(server, "Fa Tap", "auditor")
    press("pointerdown", "#state", 1)
    post(server, observer, kind="drift.false-alert", id="TAP-1")
    eve.wait_for_timeout(1500)  # the stream tells the page; the fetched fragments wait for the finger
    assert "TAP-1" not in eve.inner_text("#timeline")  # held, as the press-held test expects
    press("pointerdown", "body", 2)
    press("pointerup", "body", 2)
    press("pointerup", "#state", 1)
    wait_or_say_why(eve, server, "document.getElementById('timeline').innerText.includes('TAP-1')", timeout=10000)
    post(server, observer, kind="drift.false-alert", id="TAP-2")
    wait_or_say_why(eve, server, "document.getElementById('timeline').innerText.includes('TAP-2')", timeout=10000)
    assert not eve.errors, eve.errors  # type: ignore[attr-defined]
    eve.context.close()


# ----- the runner, the seal and the close ------------------------------------------------------


@pytest.fixture
def own_server(tmp_path):
    """A server on a journal of this test's own. The close cannot share the module's journal: a
    closed journal refuses the stamps of every test that ran after it, and under xdist's work
    stealing a worker may take the close before tests written above it (seen: two failures in
    twenty runs, "comes after exercise.close")."""
    yield from serving(tmp_path)


def test_a_sealed_onset_never_reaches_an_observer_and_the_runner_closes_and_reveals(own_server, browser):
    server = own_server
    runner = open_page(browser, server, "J. Auditor", "runner", server.runner_token)
    watcher = open_page(browser, server, "Kim Ode", "supplier")
    watcher_key = join(server, "Kim Script", "supplier")
    form = open_step(runner, "new: safety sign-off")
    form.locator("input[name=id]").fill("D1")
    for name, value in (("agreement", "SOW-7 annex B"), ("stop_owner", "Kim Ode"),
                        ("stop_condition", "error rate above 5%"), ("rollback_owner", "Lee Park")):
        form.locator(f"input[name='f.{name}']").fill(value)
    form.locator("select[name='f.no_live_personal_data']").select_option("yes")
    form.locator("input[name=at]").fill((NOW - dt.timedelta(hours=2)).isoformat())
    form.locator("button[type=submit]").click()
    runner.wait_for_selector("#result .ok")
    watcher.wait_for_function("() => document.getElementById('timeline').innerText.includes('safety sign-off')")
    watched_head = watcher.get_attribute("#head", "data-head")
    # The sign-off's own recorded_at is public; seal in a later second, or the two stamps could
    # coincide and the check below would mistake the sign-off's time for the held instant.
    time.sleep(1.1)
    form = open_step(runner, "D1: start the drift injection")
    form.locator("input[name='f.affected_class']").fill("invoices")
    shot(runner, "runner-seal")
    form.locator("button[type=submit]").click()
    runner.wait_for_selector("#result .ok")
    shot(runner, "runner-sealed")
    held = json.loads(server.held.read_text())["onsets"][0]["at"]
    assert "held instant" in runner.inner_text("#result")
    seal_seq = next(e["seq"] for e in jr.read(server.journal).events if e["kind"] == "drift.onset")
    time.sleep(1.2)  # longer than any page takes to hear of a line it may see
    secret = held_forms(held)
    answers = [watcher.content(),
               request(server, "GET", "/api/state", key=watcher_key)[1],
               request(server, "GET", "/api/events?after=0", key=watcher_key)[1],
               request(server, "GET", f"/api/events?after={seal_seq - 1}", key=watcher_key)[1]]
    cookie = {c["name"]: c["value"] for c in watcher.context.cookies()}["day60_key"]
    for path in ("/", "/fragment/timeline", "/fragment/state"):
        answers.append(request(server, "GET", path, headers={"Cookie": f"day60_key={cookie}"})[1])
    answers.append(_first_stream_event(server, watcher_key))
    for answer in answers:
        text = answer if isinstance(answer, str) else json.dumps(answer)
        for form_of_secret in secret:
            assert form_of_secret not in text
        assert "<td>drift.onset" not in text and f'data-seq="{seal_seq}"' not in text  # no line, until revealed
        if isinstance(answer, dict):
            assert all(e["seq"] != seal_seq for e in answer.get("events", []))
            assert answer.get("head", 0) < seal_seq
    assert watcher.get_attribute("#head", "data-head") == watched_head  # no page was told the journal grew
    shot(watcher, "observer-while-sealed")
    # A press stamped by the watcher still lands; the runner closes and reveals.
    assert post(server, watcher_key, kind="drift.detected", id="D1", data={"affected_class": "invoices"})[0] == 201
    form = open_step(runner, "close the exercise")
    form.locator("button[type=submit]").click()
    runner.wait_for_selector("#result form.confirm")  # a close cannot be undone: it is asked first
    runner.click("#result form.confirm button[type=submit]")
    runner.wait_for_selector("#result .ok")
    runner.wait_for_selector("form.reveal button")
    shot(runner, "runner-closed")
    runner.click("form.reveal button")
    runner.wait_for_selector("#result .ok:has-text('Revealed 1 sealed onset')")
    watcher.wait_for_function("() => document.getElementById('timeline').innerText.includes('revealed')")
    shot(watcher, "observer-after-reveal")
    kinds = [e["kind"] for e in jr.read(server.journal).events[-4:]]
    assert kinds == ["drift.onset", "drift.detected", "exercise.close", "reveal"]
    by = {e["kind"]: e["by"] for e in jr.read(server.journal).events}
    assert by["reveal"] == by["drift.onset"] == by["exercise.close"] == "J. Auditor (runner)"
    verify(server.journal)
    for page in (runner, watcher):
        assert not page.errors, page.errors  # type: ignore[attr-defined]
        page.context.close()


def held_forms(at: str) -> list[str]:
    """The held instant in every form a page or an answer could show it."""
    value = dt.datetime.fromisoformat(at)
    return [at, value.isoformat(), value.strftime("%Y-%m-%d %H:%M:%S"), value.strftime("%H:%M:%S.%f"),
            value.astimezone(dt.UTC).isoformat(), value.strftime("%Y-%m-%dT%H:%M:%S")]


def _first_stream_event(server: Server, key: str) -> str:
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
    conn.request("GET", "/api/stream", headers={"Authorization": f"Bearer {key}"})
    response = conn.getresponse()
    text = response.fp.readline().decode() + response.fp.readline().decode() + response.fp.readline().decode()
    conn.close()
    return text


# ----- serve's own refusals -------------------------------------------------------------------


def test_serve_refuses_a_journal_that_does_not_verify_and_bad_options(run, tmp_path):
    path = make_journal(tmp_path / "ex.jsonl")
    jr.append(path, "drift.false-alert", "F1", NOW)
    lines = path.read_text().splitlines()
    path.write_text("\n".join([lines[0], lines[1].replace("F1", "F2")]) + "\n")
    r = run("serve", path, "--port", "0")
    assert r.exit_code == 1 and "does not verify" in r.stderr
    good = make_journal(tmp_path / "good.jsonl")
    r = run("serve", good, "--token", "short")
    assert r.exit_code == 2 and "--token" in r.stderr
    r = run("serve", good, "--port", "70000")
    assert r.exit_code == 2 and "--port" in r.stderr
    r = run("serve", good, "--host", "203.0.113.77", "--port", "0")
    assert r.exit_code == 2 and "cannot listen" in r.stderr
    other = make_journal(tmp_path / "other.jsonl")
    jr.append(other, "safety.agreed", "D1", NOW - dt.timedelta(hours=1),
              {"agreement": "a", "stop_owner": "b", "stop_condition": "c", "rollback_owner": "d",
               "no_live_personal_data": True})
    jr.append(other, "drift.onset", "D1", NOW, {"affected_class": "x"}, seal=tmp_path / "other-held.json")
    r = run("serve", good, "--held", tmp_path / "other-held.json", "--port", "0")
    assert r.exit_code == 2 and "another journal" in r.stderr


@pytest.mark.usefixtures("engine_on_every_size")  # a journal of two incident lines: lift the size
def test_the_engine_reads_a_late_press_as_the_reference_does(tmp_path):
    """pressed_at on incident lines: in the form the toolkit writes the engine's fast path takes it;
    in another form the models accept, the engine hands the file to journal.read; the figures agree."""
    from tests.test_engine import same_figures

    for form, on_engine in (("2026-03-02T10:00:00.250000+00:00", True), ("2026-03-02T10:00Z", False)):
        path = make_journal(tmp_path / f"late-{len(form)}.jsonl")
        jr.append(path, "incident.detected", "I1", dt.datetime(2026, 3, 2, 10, tzinfo=UTC),
                  {"source": "organic", "severity": 2, "pressed_at": form})
        jr.append(path, "incident.restored", "I1", dt.datetime(2026, 3, 2, 11, tzinfo=UTC),
                  {"check": "canary", "pressed_at": form})
        assert (same_figures(path).incidents is not None) is on_engine, form


def test_show_marks_a_line_recorded_late(run, tmp_path):
    path = make_journal(tmp_path / "ex.jsonl")
    jr.append(path, "drift.false-alert", "F1", NOW, {"pressed_at": "2026-03-02T10:00:00+00:00"}, "Ana (auditor)")
    r = run("show", path)
    assert r.exit_code == 0 and "recorded late (pressed 2026-03-02 10:00 +00:00 on the browser's clock)" in r.stdout

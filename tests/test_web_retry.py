"""A page that cannot be answered waits longer each time it asks again, and stops when its key
is refused: it never hammers a server that is away, nor fills the console.

Before the fix a failed fetch of the page's fragments was tried again every second for as long
as the page stayed open, whatever the failure (a key refused because the person left on another
tab, a server stopped for good), while the browser's own stream retried every second beside it.
Servers are real 'day60 serve' processes on 127.0.0.1; the browser is Debian's Chromium.
"""

import itertools
import signal
import time

from tests.test_web import Server, join, make_journal, open_page, post, shot


def _to_server(page, port: int) -> list[float]:
    """The times of every request ``page`` makes to the server on ``port`` (failed ones too)."""
    seen: list[float] = []
    page.on("request", lambda r: seen.append(time.monotonic()) if f":{port}/" in r.url else None)
    return seen


def test_a_page_whose_key_is_refused_stops_asking_and_says_to_join_again(browser, tmp_path):
    """Two tabs share one browser's cookie; the person leaves in one. The other's stream is still
    open, so the next line makes it fetch its fragments, which the server refuses (401): it then
    says to join again and sends nothing more. The old page fetched both fragments again every
    second, each a console error, until the tab was closed."""
    server = Server(make_journal(tmp_path / "ex.jsonl"), None)
    try:
        page = open_page(browser, server, "Ana Ruiz", "auditor")
        other = page.context.new_page()
        other.goto(server.url)
        other.wait_for_selector("#timeline")
        other.click("form[action='/leave'] button")
        other.wait_for_selector("input[name=token]")  # the join form: the cookie is gone
        other.close()
        seen = _to_server(page, server.port)
        key = join(server, "Script", "auditor")
        assert post(server, key, kind="drift.false-alert", id="F-1")[0] == 201
        page.wait_for_function("() => document.getElementById('conn').textContent.startsWith('not joined')",
                               timeout=10000)
        settled = time.monotonic()
        assert post(server, key, kind="drift.false-alert", id="F-2")[0] == 201
        page.wait_for_timeout(6000)  # pumps the page's events, as time.sleep would not
        shot(page, "key-refused")
        assert [t for t in seen if t > settled + 0.5] == [], f"{len(seen)} requests after the refusal"
        assert len(seen) <= 3, f"{len(seen)} requests in all after the key was refused"
        assert "load the page to join again" in page.locator("#conn").inner_text()
        assert len(page.errors) <= 3, page.errors  # type: ignore[attr-defined]
        page.context.close()
    finally:
        server.stop()


def test_a_page_waits_longer_each_time_for_a_server_stopped_for_good(browser, tmp_path):
    """The page's fragment fetches fail (aborted here) while a line lands, so it is trying
    again when its server is killed and never comes back. Over the next 12 s it asks at 1, 2, 3,
    5 and 9 s (once each: a plain request, then the stream only when that is answered), beside
    the one refresh already waiting; the old page asked three times a second (two fragments and
    the browser's own stream retry, 35 requests and 40 console errors in 12 s) for as long as it
    stayed open. One console error per request at most."""
    server = Server(make_journal(tmp_path / "ex.jsonl"), None)
    try:
        page = open_page(browser, server, "Fay Lim", "auditor")
        page.route("**/fragment/**", lambda route: route.abort())
        key = join(server, "Script", "auditor")
        assert post(server, key, kind="drift.false-alert", id="F-1")[0] == 201
        page.wait_for_timeout(1500)  # the refresh has failed and is being tried again
        seen = _to_server(page, server.port)
        server.proc.send_signal(signal.SIGKILL)
        server.proc.wait()
        killed, errors = time.monotonic(), len(page.errors)  # type: ignore[attr-defined]
        page.unroute("**/fragment/**")
        page.wait_for_timeout(12000)
        asked = [round(t - killed, 1) for t in seen if t >= killed]
        shot(page, "server-gone")
        assert page.locator("#conn").inner_text().startswith("not connected")
        assert len(asked) <= 8, asked
        gaps = [b - a for a, b in itertools.pairwise(asked)]
        assert not gaps or max(gaps) >= 3.5, asked  # the waits grow
        assert len(page.errors) - errors <= len(asked) + 1, page.errors[errors:]  # type: ignore[attr-defined]
        page.context.close()
    finally:
        server.stop()

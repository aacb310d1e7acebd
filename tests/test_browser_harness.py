"""The Chromium the browser tests drive (tests/conftest.py, ``chromium``) is Debian's, launched by
Playwright with Playwright's own settings kept and the address bar's hidden pages turned off."""

from __future__ import annotations


def test_no_window_makes_a_hidden_address_bar_page(browser):
    """Chromium 156 made, for each window, the address bar's drop-down as a WebUI page in a renderer
    of its own (``chrome://omnibox-popup.top-chrome/``); no test opens it and a hundred of them took
    two fifths of the browser modules' CPU. With two windows open, the browser's targets are the
    two pages and their tabs, and no chrome:// page at all."""
    contexts = [browser.new_context() for _ in range(2)]
    for context in contexts:
        context.new_page().set_content("<p>a page</p>")
    targets = browser.new_browser_cdp_session().send("Target.getTargets", {"filter": [{}]})["targetInfos"]
    for context in contexts:
        context.close()
    assert [t["url"] for t in targets if t["url"].startswith("chrome://")] == []
    assert sum(t["type"] == "page" for t in targets) == 2


def test_playwrights_own_disabled_features_still_hold(browser):
    """Chromium heeds only the last --disable-features it is given; the suite's list must carry
    Playwright's as well as its own. One of Playwright's is HttpsUpgrades: with it off, going to
    ``http://example.com/`` asks for exactly that address, where Chromium's default would first ask
    for ``https://example.com/``. The request is answered by the test (``route``), so nothing
    leaves the machine."""
    context = browser.new_context()
    page = context.new_page()
    asked: list[str] = []

    def answer(route):
        asked.append(route.request.url)
        route.fulfill(body="<p>answered here</p>", content_type="text/html")

    page.route("**/*", answer)
    page.goto("http://example.com/")
    context.close()
    assert asked == ["http://example.com/"]

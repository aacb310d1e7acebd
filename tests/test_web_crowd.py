"""Many people pressing at once: every page ends showing every line it may see, and no page but
the runner's ever holds a sealed onset, even for a moment.

Four browser pages (the runner's and three watchers') each send a burst of presses from the page
itself while four scripts post through the JSON twin and the runner seals an onset with 'day60
log --seal' from another process, all at once, against a real 'day60 serve' on 127.0.0.1 and
Debian's Chromium. Each watcher page records every row it ever shows (a MutationObserver), so a
sealed row shown and then replaced would still be caught.
"""

import datetime as dt
import os
import subprocess
import sys
import threading

from day60 import journal as jr
from tests.builders import SIGN_OFF
from tests.test_web import (
    NOW,
    ROOT,
    Server,
    join,
    make_journal,
    open_page,
    post,
    shot,
    verify,
)

WATCH = """() => {
  window.seenSeqs = new Set();
  const note = () => document.querySelectorAll('#timeline tr[data-seq]').forEach(
    r => window.seenSeqs.add(r.getAttribute('data-seq') + '|' + r.innerText));
  note();
  new MutationObserver(note).observe(document.getElementById('timeline'), {childList: true, subtree: true});
}"""

BURST = """async ([prefix, n, kind]) => {
  const csrf = document.querySelector('meta[name="day60-csrf"]').getAttribute('content');
  const sends = [];
  for (let k = 0; k < n; k++) {
    const form = new URLSearchParams({csrf: csrf, kind: kind, id: prefix + '-' + k});
    sends.push(fetch('/press', {method: 'POST', body: form, credentials: 'same-origin',
                                headers: {'HX-Request': 'true'}}).then(r => r.status));
  }
  return Promise.all(sends);
}"""


def test_every_page_ends_showing_every_line_it_may_see_and_no_watcher_a_sealed_onset(browser, tmp_path):
    path = make_journal(tmp_path / "ex.jsonl")
    held = tmp_path / "held.json"
    jr.append(path, "safety.agreed", "D1", NOW - dt.timedelta(hours=1), SIGN_OFF, "J. Auditor (runner)")
    server = Server(path, held)
    try:
        runner = open_page(browser, server, "J. Auditor", "runner", server.runner_token)
        watchers = [open_page(browser, server, name, role) for name, role in
                    (("Ana Ruiz", "auditor"), ("Ben Okafor", "partner"), ("Sam Seller", "supplier"))]
        pages = [runner, *watchers]
        for page in pages:
            page.evaluate(WATCH)
        keys = [join(server, f"Script {k}", "auditor") for k in range(4)]
        answers: list[int] = []

        def script(k: int) -> None:
            for n in range(20):
                answers.append(post(server, keys[k], kind="drift.false-alert", id=f"S{k}-{n}")[0])

        def seal() -> None:
            done = subprocess.run([sys.executable, "-m", "day60", "log", str(path), "drift.onset", "--id", "D1",
                                   "--at", "now", "--set", "affected_class=invoices", "--seal", str(held),
                                   "--as", "runner", "--by", "J. Auditor"],
                                  capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
            assert done.returncode == 0, done.stderr

        threads = [threading.Thread(target=script, args=(k,)) for k in range(4)] + [threading.Thread(target=seal)]
        for t in threads:
            t.start()
        # each page presses a kind its role records (roles/permissions-v1.yaml): the partner announces
        kinds = ["drift.false-alert", "drift.false-alert", "drift.announced", "drift.false-alert"]
        bursts = [page.evaluate_handle(BURST, [f"P{i}", 10, kinds[i]]) for i, page in enumerate(pages)]
        for t in threads:
            t.join()
        statuses = [s for handle in bursts for s in handle.json_value()]
        assert statuses == [200] * 40 and answers == [201] * 80, (statuses, answers)

        events = jr.read(path).events
        sealed = next(e for e in events if e["kind"] == "drift.onset")
        public = [e["seq"] for e in events if e is not sealed]
        assert len(events) == 1 + 80 + 40 + 1
        # A watcher's page numbers the lines it sees 1, 2, 3... (no gap where the sealed onset is).
        for page in pages:
            expected = sorted(str(e["seq"]) for e in events) if page is runner else \
                sorted(str(n) for n in range(1, len(public) + 1))
            page.wait_for_function("want => JSON.stringify([...document.querySelectorAll('#timeline tr[data-seq]')]"
                                   ".map(r => r.getAttribute('data-seq')).sort()) === JSON.stringify(want)",
                                   arg=expected, timeout=15000)
        for page in watchers:
            seen = page.evaluate("() => [...window.seenSeqs]")
            assert not [s for s in seen if "drift.onset" in s], "a watcher was shown the sealed onset"
            timeline = page.inner_html("#timeline")
            assert "drift.onset" not in timeline and "sealed" not in timeline
            assert page.get_attribute("#head", "data-head") == str(len(public))
            assert page.get_attribute("#state-head", "data-head") == str(len(public))
            shot(page, f"crowd-{page.locator('.who strong').inner_text().split()[0].lower()}")
        assert runner.get_attribute("#head", "data-head") == str(events[-1]["seq"])
        for page in pages:
            assert not page.errors, page.errors  # type: ignore[attr-defined]
            page.context.close()
        verify(path)
    finally:
        server.stop()

"""Make the README's screenshots of `day60 live` and `day60 serve` from real runs on a SYNTHETIC
exercise (run by hand: python docs/img/make_screenshots.py; needs pyte and Debian's chromium).

live: the command runs on a real pseudo-terminal, the screen is kept by a terminal emulator
(pyte) and drawn as text in the browser. serve: a real server, two participants' pages."""

import datetime as dt
import html
import json
import os
import pty
import select
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pyte
from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[2]
OUT = Path(__file__).resolve().parent
ENV = {**os.environ, "PYTHONPATH": str(ROOT), "TERM": "xterm", "PROMPT_TOOLKIT_NO_CPR": "1"}
NOW = dt.datetime.now(dt.UTC).replace(microsecond=0)


def day60(*args: str) -> str:
    return subprocess.run([sys.executable, "-m", "day60", *args], env=ENV, check=True, capture_output=True,
                          text=True).stdout


def new(path: Path, calendar: str = "uk-office") -> None:
    day60("new", str(path), "--partner", "Acme BPO", "--supplier", "Nimbus AI", "--deployment", "claims intake",
          "--tier", "T3", "-c", calendar, "--window-start", (NOW - dt.timedelta(days=1)).isoformat(),
          "--window-end", (NOW + dt.timedelta(days=10)).isoformat(), "--runner", "J. Auditor", "--synthetic",
          "--announced")


def live_screen(folder: Path) -> str:
    path = folder / "live.jsonl"
    new(path)
    t = lambda m: (NOW - dt.timedelta(hours=6) + dt.timedelta(minutes=m)).isoformat()  # noqa: E731
    day60("log", str(path), "safety.agreed", "--id", "D1", "--at", t(0), "--set", "agreement=SOW-7 annex B",
          "--set", "stop_owner=Kim Ode", "--set", "stop_condition=error rate above 5%", "--set",
          "rollback_owner=Lee Park", "--set", "no_live_personal_data=true")
    day60("log", str(path), "drift.onset", "--id", "D1", "--at", t(30), "--set", "affected_class=invoices",
          "--seal", str(folder / "held.json"))
    day60("log", str(path), "incident.partner-notice", "--id", "I4", "--at", t(60), "--set", "severity=2")
    screen, stream = pyte.Screen(104, 46), None
    stream = pyte.ByteStream(screen)
    fd, slave = pty.openpty()
    import fcntl
    import struct
    import termios

    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 46, 104, 0, 0))
    proc = subprocess.Popen([sys.executable, "-m", "day60", "live", str(path), "--held", str(folder / "held.json")],
                            stdin=slave, stdout=slave, stderr=slave, env=ENV, start_new_session=True)
    os.close(slave)

    def pump(seconds: float) -> None:
        end = time.time() + seconds
        while time.time() < end:
            if select.select([fd], [], [], 0.1)[0]:
                try:
                    stream.feed(os.read(fd, 65536))
                except OSError:  # the program has ended
                    return

    pump(3)
    pump(0.5)
    text = "\n".join(line.rstrip() for line in screen.display).rstrip()
    os.write(fd, b"\x03")
    pump(0.5)
    os.write(fd, b"\x03")
    proc.wait(timeout=10)
    return text


def terminal_png(text: str, out: Path, browser) -> None:
    page = browser.new_page(viewport={"width": 900, "height": 560})
    page.set_content("<body style='margin:0;background:#1e1f22'><pre style=\"margin:0;padding:14px;color:#e6e6e6;"
                     "font:13px/1.35 'DejaVu Sans Mono',monospace\">" + html.escape(text) + "</pre></body>")
    page.screenshot(path=str(out), full_page=True)
    page.close()


def serve_shots(folder: Path, browser) -> None:
    """The room as its people see it, in New York time: the runner's desktop, an auditor's desktop with
    an answer beside the button pressed, the forced rollback among the runner's new steps, the close
    being confirmed, and a partner's phone."""
    path = folder / "serve.jsonl"
    new(path, "us-office")
    held = folder / "serve-held.json"
    proc = subprocess.Popen([sys.executable, "-m", "day60", "serve", str(path), "--held", str(held), "--port", "0",
                             "--token", "team-token-2026"], env=ENV, stdout=subprocess.PIPE, text=True)
    url = proc.stdout.readline().split(" at ")[1].strip()
    tokens = {"runner": proc.stdout.readline().rsplit(": ", 1)[1].strip()}
    proc.stdout.readline()
    while len(tokens) < 7:
        role, token = proc.stdout.readline().strip().rsplit(": ", 1)
        tokens[role] = token
    desktop, phone = {"width": 1366, "height": 768}, {"width": 390, "height": 844}
    try:
        def join(name: str, role: str, viewport: dict = desktop):
            context = browser.new_context(viewport=viewport, is_mobile=viewport is phone, has_touch=viewport is phone)
            page = context.new_page()
            for _ in range(50):  # the server answers within a moment of printing its address
                try:
                    page.goto(url)
                    break
                except Exception:
                    page.wait_for_timeout(100)
            page.fill("input[name=name]", name)
            page.select_option("select[name=role]", role)
            page.fill("input[name=token]", tokens[role])
            page.click("button[type=submit]")
            page.wait_for_function("() => document.getElementById('conn').textContent === 'connected'")
            return page

        runner = join("J. Auditor", "runner")
        ana = join("Ana Diaz", "auditor")

        def step(page, label: str):
            details = page.locator("details.step", has=page.locator("summary", has_text=label)).first
            if not details.evaluate("d => d.open"):
                details.locator("summary").click()
            return details

        def press(page, label: str, fields: dict | None = None, selects: dict | None = None, answer: str = ".ok"):
            details = step(page, label)
            for name, value in (fields or {}).items():
                details.locator(f"[name='{name}']").fill(value)
            for name, value in (selects or {}).items():
                details.locator(f"[name='{name}']").select_option(value)
            details.locator("button[type=submit]").click()
            page.wait_for_selector(f"#result {answer}")

        def settled(page, text: str) -> None:
            page.wait_for_function(f"() => document.getElementById('timeline').innerText.includes({text!r})")

        press(runner, "new: safety sign-off", {"id": "D1", "f.agreement": "SOW-7 annex B", "f.stop_owner": "Kim Ode",
                                               "f.stop_condition": "error rate above 5%",
                                               "f.rollback_owner": "Lee Park",
                                               "at": (NOW - dt.timedelta(hours=3)).isoformat()},
              {"f.no_live_personal_data": "yes"})
        press(runner, "D1: start the drift injection", {"f.affected_class": "invoices"})
        press(ana, "new: incident notified by the partner", {"id": "I4"}, {"f.severity": "2"})
        settled(runner, "I4")
        press(ana, "new: drift found in the records", {"id": "D2", "f.affected_class": "refunds"})
        press(ana, "D2: written notice received", {"f.affected_class": "refunds", "f.evidence": "mail 4411"})
        settled(runner, "mail 4411")
        press(runner, "new: supplier alert withdrawn as false", {"id": "FA1"})
        settled(ana, "FA1")
        press(ana, "I4: supplier detected it", {}, {"f.severity": "2", "f.source": "organic"})
        draft = step(ana, "I4: first communication to the partner")  # Ana types; the runner records it first
        draft.locator("[name='at']").fill("call with Pat at 10:1")
        press(runner, "I4: first communication to the partner")
        ana.wait_for_selector("#result .draft")
        ana.screenshot(path=str(OUT / "serve-draft.png"))
        ana.click("#result button.dismiss")
        press(ana, "new: monthly report received", {"id": "March"}, answer=".refused")
        ana.screenshot(path=str(OUT / "serve-answer.png"))
        # A second injection signed off while D1 runs: its forced rollback is offered among the new steps.
        press(runner, "new: safety sign-off", {"id": "R1", "f.agreement": "SOW-7 annex C", "f.stop_owner": "Kim Ode",
                                               "f.stop_condition": "smoke set fails twice",
                                               "f.rollback_owner": "Lee Park"},
              {"f.no_live_personal_data": "yes"})
        forced = step(runner, "new: production rollback forced by the exercise, under R1")
        runner.evaluate("d => window.scrollTo(0, d.getBoundingClientRect().top + window.scrollY - 260)",
                        forced.element_handle())
        runner.mouse.move(1000, 700)  # the pointer away from the steps: no hover shading in the picture
        runner.screenshot(path=str(OUT / "serve-forced-rollback.png"))
        press(runner, "close the exercise", answer=".warning")
        runner.screenshot(path=str(OUT / "serve-close.png"))
        runner.click("#result button.dismiss")
        runner.evaluate("() => window.scrollTo(0, 0)")
        runner.screenshot(path=str(OUT / "serve-runner.png"))
        pat = join("Pat Okafor", "partner", phone)
        press(pat, "I4: waiting on partner starts")
        pat.screenshot(path=str(OUT / "serve-phone.png"))
        pat.evaluate("() => window.scrollTo(0, document.querySelector('.timeline').offsetTop - 40)")
        pat.screenshot(path=str(OUT / "serve-phone-timeline.png"))
    finally:
        proc.terminate()
        proc.wait()


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", headless=True,
                                    args=["--no-sandbox", "--disable-background-networking",
                                          "--disable-component-update"])
        terminal_png(live_screen(Path(tmp)), OUT / "live.png", browser)
        serve_shots(Path(tmp), browser)
        browser.close()
    print(json.dumps(sorted(p.name for p in OUT.glob("*.png"))))


if __name__ == "__main__":
    main()

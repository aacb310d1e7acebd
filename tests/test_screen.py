"""Every HTML file the toolkit writes, as a reader sees it in a browser (Playwright driving Debian's
Chromium), on a desktop window 1280 pixels wide and on a phone 390 pixels wide; and the proof that
the screen's styles leave the PDFs alone.

Each file is made the way a user makes it, through the CLI. Screenshots of every page at both widths
are saved in tests/output/screen/ to be looked at.
"""

import json
import re
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from day60 import render
from day60.cli import app
from day60.resources import data_dir
from tests.shots import screenshot

ROOT = Path(__file__).resolve().parents[1]
SHOTS = ROOT / "tests" / "output" / "screen"
DESKTOP, PHONE = 1280, 390
MEASURE = 46 * 16  # the longest line of running text on a desktop: 46rem, about 80 characters of 16 px type
SOW = data_dir("clauses") / "examples" / "synthetic-sow.toml"
# the documents of SYNTHETIC data (the gaps journal is not; the portfolio holds the demo beside it)
SYNTHETIC = {"score-demo", "selfassess", "schedule", "comply", "notice", "portfolio", "compare", "drills"}


def _cli(*args) -> None:
    r = CliRunner().invoke(app, [str(a) for a in args])
    assert r.exit_code in (0, 1), r.output  # comply exits 1 when a check is not met, and still writes


@pytest.fixture(scope="module")
def pages(demo_folder, tmp_path_factory):
    """name -> the HTML file, each written by the command a user runs: the demo's score report
    from the demo's folder (``day60 demo``, made once a run: tests/conftest.py, only
    read here), the others by their commands from a copy of the demo's journal."""
    from tests.test_clauses import FROM_SCRATCH
    from tests.test_documents import _gaps_journal

    folder = tmp_path_factory.mktemp("screen")
    journal = Path(shutil.copy(demo_folder / "exercise.jsonl", folder / "exercise.jsonl"))
    gaps = _gaps_journal(folder / "gaps.jsonl")
    shutil.copy(journal, folder / "second.jsonl")
    deal = folder / "draft.toml"
    deal.write_text(FROM_SCRATCH)
    out = {"score-demo": demo_folder / "score.html"}
    runs = {
        "score-gaps": ["score", gaps, "--html"],
        "selfassess": ["selfassess", "--answers", data_dir("selfassess") / "examples" / "synthetic-answers.json",
                       "--html"],
        "schedule": ["clauses", "export", "--sow", SOW, "--html"],
        "schedule-draft": ["clauses", "export", "--sow", deal, "--draft", "--html"],
        "comply": ["comply", journal, "--sow", SOW, "--html"],
        "notice": ["notice", folder / "second.jsonl", "--to", "Example AI Operations Ltd", "--out",
                   folder / "notice.json", "--html"],
        "portfolio": ["portfolio", journal, gaps, "--html"],
        "compare": ["compare", journal, folder / "second.jsonl", "--html"],
        "drills": ["voice", "drills", data_dir("rubric") / "voice" / "examples" / "synthetic-drills.json", "--html"],
    }
    for name, args in runs.items():
        out[name] = folder / f"{name}.html"
        _cli(*args, out[name])
    return out



MEASURES = """() => {
  const box = e => e.getBoundingClientRect();
  const body = box(document.body);
  const text = [...document.querySelectorAll('p, li, dd')];
  return {
    scrollWidth: document.documentElement.scrollWidth,
    bodyLeft: body.left, bodyRight: document.documentElement.clientWidth - body.right,
    widestText: Math.max(...text.map(e => box(e).width)),
    fontSize: parseFloat(getComputedStyle(document.body).fontSize),
    tables: document.querySelectorAll('table').length,
    tablesInScroll: document.querySelectorAll('.scroll > table').length,
    banner: getComputedStyle(document.body, '::before').content,
    bannerPosition: getComputedStyle(document.body, '::before').position,
  };
}"""


def _open(browser, path: Path, width: int, name: str):
    page = browser.new_page(viewport={"width": width, "height": 900})
    page.goto(path.as_uri())
    # The page from its top, at most 6000 pixels of it: a whole long schedule at 390 px is some
    # 30,000 pixels tall, past what headless Chromium reliably captures in one image on a busy machine.
    height = min(6000, page.evaluate("() => document.documentElement.scrollHeight"))
    screenshot(page, SHOTS / f"{name}-{width}.png", full_page=True,
               clip={"x": 0, "y": 0, "width": width, "height": height})
    return page


NAMES = ["score-demo", "score-gaps", "selfassess", "schedule", "schedule-draft", "comply", "notice", "portfolio",
         "compare", "drills"]


@pytest.mark.parametrize("name", NAMES)
def test_on_a_desktop_the_text_is_a_readable_centred_column(pages, browser, name):
    """At 1280 px: nothing runs off the side, the body is a column centred with margins either side,
    no paragraph runs longer than about 80 characters, and the type is at least 15 px."""
    page = _open(browser, pages[name], DESKTOP, name)
    m = page.evaluate(MEASURES)
    page.close()
    assert m["scrollWidth"] <= DESKTOP
    assert m["bodyLeft"] >= 100 and abs(m["bodyLeft"] - m["bodyRight"]) <= 2, m
    assert m["widestText"] <= MEASURE, m
    assert m["fontSize"] >= 15


@pytest.mark.parametrize("name", NAMES)
def test_on_a_phone_the_page_never_scrolls_sideways(pages, browser, name):
    """At 390 px: the page is no wider than the phone (a wide table or chart scrolls inside its own
    box instead: every table sits in one), and the type stays at least 15 px."""
    page = _open(browser, pages[name], PHONE, name)
    m = page.evaluate(MEASURES)
    # An HTML file carries no inputs: on screen it never tells its reader "this PDF carries the
    # inputs" or to run verify-report "on this file", sentences true only of the PDF it was printed to.
    shown = " ".join(page.inner_text("body").split())
    page.close()
    assert not re.search(r"this PDF|embedded in this|on this file alone", shown, flags=re.I), name
    assert m["scrollWidth"] <= PHONE, m
    assert m["tables"] == m["tablesInScroll"], m
    assert m["fontSize"] >= 15


@pytest.mark.parametrize("name", NAMES)
def test_synthetic_and_draft_stay_in_sight_while_reading(pages, browser, name):
    """The printed pages carry SYNTHETIC or DRAFT in every page's header; on a screen a banner
    stuck to the top of the window says it however far down the reader has scrolled (the
    screenshot is the window after scrolling). A document of real data has no banner."""
    page = browser.new_page(viewport={"width": DESKTOP, "height": 900})
    page.goto(pages[name].as_uri())
    page.mouse.wheel(0, 3000)  # scrolled as far as the wheel takes it, or to the end of a shorter page
    page.wait_for_function("() => window.scrollY >= Math.min(3000, document.documentElement.scrollHeight"
                           " - window.innerHeight) - 1")
    screenshot(page, SHOTS / f"{name}-scrolled.png")
    m = page.evaluate(MEASURES)
    page.close()
    if name in SYNTHETIC or name == "schedule-draft":
        word = "DRAFT" if name == "schedule-draft" else "SYNTHETIC"
        assert word in m["banner"] and m["bannerPosition"] == "sticky", m
    else:
        assert m["banner"] == "none", m


def test_a_wide_table_on_a_phone_scrolls_in_its_box_and_stays_legible(pages, browser):
    """The score's line table is wider than a phone: its box scrolls sideways (scrollWidth beyond its
    width), the page does not, and its text is not squeezed below 12 px."""
    page = browser.new_page(viewport={"width": PHONE, "height": 900})
    page.goto(pages["score-demo"].as_uri())
    box = page.evaluate("""() => {
      const t = [...document.querySelectorAll('.scroll > table.wide')][0];
      const s = t.parentElement;
      return {inner: s.scrollWidth, outer: s.clientWidth, page: document.documentElement.scrollWidth,
              font: parseFloat(getComputedStyle(t).fontSize)};
    }""")
    page.close()
    assert box["inner"] > box["outer"] and box["outer"] <= PHONE and box["page"] <= PHONE, box
    assert box["font"] >= 12, box


def test_printing_from_the_browser_uses_the_printed_page(pages, browser):
    """The screen's styles are for the screen only: emulating print, the body is the PDF's 9 pt
    (12 px) type in its 180 mm column, and no banner is drawn (the page header says SYNTHETIC)."""
    page = browser.new_page(viewport={"width": DESKTOP, "height": 900})
    page.goto(pages["score-demo"].as_uri())
    page.emulate_media(media="print")
    m = page.evaluate("""() => ({font: getComputedStyle(document.body).fontSize,
                                 width: getComputedStyle(document.body).maxWidth,
                                 banner: getComputedStyle(document.body, '::before').content})""")
    page.close()
    assert m["font"] == "12px" and m["banner"] == "none", m
    assert abs(float(m["width"].removesuffix("px")) - 180 * 96 / 25.4) < 0.5, m  # 180 mm at 96 px an inch


# ----- the PDFs are the printed page, untouched by the screen's styles -----------------------------


def _without_screen_rules(html: str) -> str:
    """``html`` with every ``@media screen ... { ... }`` block removed (braces matched)."""
    out, at = [], 0
    for match in re.finditer(r"@media screen[^{]*\{", html):
        if match.start() < at:
            continue
        depth, i = 1, match.end()
        while depth:
            depth += {"{": 1, "}": -1}.get(html[i], 0)
            i += 1
        out.append(html[at:match.start()])
        at = i
    return "".join(out) + html[at:]


@pytest.mark.parametrize("name", ["score-demo", "selfassess", "schedule", "schedule-draft", "portfolio", "drills"])
def test_the_screen_styles_leave_every_pdf_byte_for_byte_alone(pages, name):
    """WeasyPrint renders for print: the same HTML with and without its @media screen rules makes
    the same PDF bytes, so the browser's layout can change without moving a glyph on paper."""
    html = pages[name].read_text(encoding="utf-8")
    bare = _without_screen_rules(html)
    assert "@media screen" in html and "@media screen" not in bare and len(bare) < len(html) - 1000
    assert render.pdf_bytes(bare) == render.pdf_bytes(html)


def test_every_html_output_is_listed_here():
    """A command that gains --html must be screenshotted here too: every --html option of the CLI is
    one of the commands this module runs."""
    import typer.main

    from day60.cli.base import app as root

    click_app = typer.main.get_command(root)
    found = set()

    def walk(group, prefix):
        for name, command in getattr(group, "commands", {}).items():
            if any("--html" in (p.opts or []) for p in command.params):
                found.add(" ".join([*prefix, name]))
            walk(command, [*prefix, name])

    walk(click_app, [])
    assert found == {"score", "selfassess", "clauses export", "comply", "notice", "portfolio", "compare",
                     "voice drills"}, json.dumps(sorted(found))

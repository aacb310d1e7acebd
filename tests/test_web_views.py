"""What a page or a script is given is one view of the journal, even while presses land.

A press is recorded in a worker thread, and publishing its line can fall between two reads the
server makes while answering someone else. These tests call the app in this process (a bare
ASGI call, no network) over a room that publishes a new line between any two reads of its view,
the worst a busy server can do, and check that every answer still describes one moment.
"""

import asyncio
import datetime as dt
import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from day60.cli import app as cli
from day60.web import app as webapp
from day60.web import site
from day60.web.room import Keys, Participant, Room
from tests.builders import SIGN_OFF, during_a_half_written_append
from tests.test_web import NOW, make_journal


class RacingRoom(Room):
    """A room whose view gains a line after each read, as if a press landed just then."""

    armed = False

    @property
    def _views(self) -> tuple:
        views = self.__dict__["_v"]
        if RacingRoom.armed:
            events, public = views[0], views[1]
            last = dict(events[-1])
            last["seq"] = views[2] + 1
            last["id"] = f"LANDED-{last['seq']}"
            self.__dict__["_v"] = ([*events, last], [*public, last], last["seq"], last["seq"])
        return views

    @_views.setter
    def _views(self, value: tuple) -> None:
        self.__dict__["_v"] = value


def call(app: Any, path: str, headers: dict[str, str], method: str = "GET",
         body: bytes = b"") -> tuple[int, str]:
    """One request through the ASGI app, as uvicorn would make it from 127.0.0.1, without its
    lifespan: the room then takes in a line written by another process only when a press makes
    it look."""
    sent: list[dict] = []

    async def receive() -> dict:
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: dict) -> None:
        sent.append(message)

    route, _, query = path.partition("?")
    every = {"host": "127.0.0.1:8060", **headers, **({"content-length": str(len(body))} if body else {})}
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": method, "scheme": "http",
             "path": route, "raw_path": route.encode(), "query_string": query.encode(), "root_path": "",
             "headers": [(k.lower().encode(), v.encode()) for k, v in every.items()],
             "client": ("127.0.0.1", 50000), "server": ("127.0.0.1", 8060)}
    asyncio.run(app(scope, receive, send))
    status = next(m["status"] for m in sent if m["type"] == "http.response.start")
    answer = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return status, answer.decode("utf-8")


@pytest.fixture
def racing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    journal = make_journal(tmp_path / "ex.jsonl")
    r = CliRunner().invoke(cli, ["log", str(journal), "incident.partner-notice", "--id", "I-1",
                                 "--at", NOW.isoformat()])
    assert r.exit_code == 0, r.output
    monkeypatch.setattr(webapp, "Room", RacingRoom)
    application = webapp.create_app(journal, None, "team-token", "127.0.0.1", 8060)
    key = Keys.beside(journal).issue(Participant("Ana Ruiz", "auditor"))
    RacingRoom.armed = True
    yield application, key
    RacingRoom.armed = False


def test_the_json_twin_never_names_a_head_past_the_lines_it_gives(racing):
    """A script polls GET /api/events?after=N and asks next from the head it was given. A head
    one past the last line given would make it skip that line for good, so the head must be the
    seq of the last line in the same answer."""
    application, key = racing
    status, text = call(application, "/api/events?after=0", {"authorization": f"Bearer {key}"})
    assert status == 200, text
    answer = json.loads(text)
    assert answer["head"] == answer["events"][-1]["seq"]


def test_a_page_fragment_never_names_a_head_past_its_rows(racing):
    """The page compares the head in its timeline with the head the event stream announces and
    fetches again only when they differ, so a timeline fragment that names a head newer than its
    rows would leave the page one line behind until somebody pressed again. Its head is the seq
    of its newest row; the open-items fragment names the head it was made from, too, so the page
    can tell when its two fragments were made at different moments."""
    application, key = racing
    cookie = {"cookie": f"{site.COOKIE}={key}", "hx-request": "true"}
    status, timeline = call(application, "/fragment/timeline", cookie)
    assert status == 200, timeline
    newest_row = re.search(r"<tr[^>]*>\s*<td[^>]*>(\d+)</td>", timeline)
    head = re.search(r'id="head" data-head="(\d+)"', timeline)
    assert newest_row and head, timeline
    assert head.group(1) == newest_row.group(1)
    status, state = call(application, "/fragment/state", cookie)
    assert status == 200, state
    assert re.search(r'id="state-head" data-head="\d+"', state)


# ----- a press decided on the lines the journal holds, not on a view a moment old ----------------

def post(app: Any, path: str, body: dict, key: str) -> tuple[int, dict]:
    """One JSON POST through the ASGI app (see ``call``)."""
    status, text = call(app, path, {"authorization": f"Bearer {key}", "content-type": "application/json"}, "POST",
                        json.dumps(body).encode())
    return status, json.loads(text)


@pytest.fixture
def quiet(tmp_path: Path):
    """A served journal (held file beside it) whose follower is not running, as in the 0.2 s
    between two looks; the D1 injection is signed off."""
    from day60 import journal as jr

    path = make_journal(tmp_path / "ex.jsonl")
    jr.append(path, "safety.agreed", "D1", NOW - dt.timedelta(hours=1), SIGN_OFF, "J. Auditor (runner)")
    application = webapp.create_app(path, tmp_path / "held.json", "team-token", "127.0.0.1", 8060)
    keys = Keys.beside(path)
    return application, path, tmp_path / "held.json", keys


def test_a_correction_aimed_at_a_line_just_sealed_elsewhere_is_answered_as_for_no_line(quiet):
    """The runner seals D1's onset with 'day60 log --seal' while the server's view is a moment
    old. A supplier contact who sends a correction of the next seq over and over must get the
    same answer after the seal as before it: "event N is sealed" (what the journal says) tells
    them the injection has begun, and within 0.2 s when. Before the fix the press reached the
    journal with the server's stale view, and the journal's answer named the sealed line."""
    from day60 import journal as jr

    application, path, held, keys = quiet
    seller = keys.issue(Participant("Sam Seller", "supplier"))
    onset = jr.read(path).events[-1]["seq"] + 1
    probe = {"kind": "correction", "id": str(onset), "data": {"target": onset, "at": NOW.isoformat(),
                                                              "reason": "probe"}}
    before = post(application, "/api/events", probe, seller)
    jr.append(path, "drift.onset", "D1", NOW - dt.timedelta(minutes=5), {"affected_class": "invoices"},
              "J. Auditor (runner)", held)
    written = path.read_bytes()
    after = post(application, "/api/events", probe, seller)
    assert after == before, (before, after)
    assert after[0] == 422 and "sealed" not in after[1]["error"]
    assert path.read_bytes() == written


def test_a_line_just_written_is_corrected_only_by_its_author_or_the_runner(quiet):
    """Ana's detection is written (by another press, or by 'day60 log --by') and the server has
    not yet looked. Bo, who did not write it, corrects it at once: refused as it is once the
    server has looked (the author or the runner corrects a line). Before the fix the ownership
    check ran over the stale view, found no such line, and left the journal to accept Bo's
    correction of Ana's line."""
    from day60 import journal as jr

    application, path, _held, keys = quiet
    bo = keys.issue(Participant("Bo Lind", "auditor"))
    seq = jr.append(path, "incident.partner-notice", "I-9", NOW - dt.timedelta(minutes=3), {},
                    "Ana Ruiz (auditor)")["seq"]
    written = path.read_bytes()
    status, answer = post(application, "/api/events",
                          {"kind": "correction", "id": str(seq),
                           "data": {"target": seq, "at": (NOW - dt.timedelta(minutes=4)).isoformat(),
                                    "reason": "mine now"}}, bo)
    assert status == 403 and "Ana Ruiz (auditor)" in answer["error"], answer
    assert path.read_bytes() == written


def test_nobody_but_the_runner_begins_an_injection_signed_off_a_moment_ago(quiet):
    """The runner signs off I2 with 'day60 log' and, before the server looks, a supplier
    stamps "detected, severity 4" under I2: that took the id and its severity (the runner's raise
    is then refused as a second incident). Refused as it is once the server has looked."""
    from day60 import journal as jr

    application, path, _held, keys = quiet
    seller = keys.issue(Participant("Sam Seller", "supplier"))
    jr.append(path, "safety.agreed", "I2", NOW - dt.timedelta(minutes=30), SIGN_OFF, "J. Auditor (runner)")
    written = path.read_bytes()
    status, answer = post(application, "/api/events", {"kind": "incident.detected", "id": "I2",
                                                        "data": {}}, seller)
    assert status == 403 and "signed-off injection" in answer["error"], answer
    assert path.read_bytes() == written


@pytest.mark.parametrize("target", [True, 1.0, "1.0", " 01 "])
def test_a_seq_written_another_way_is_still_the_same_line_to_its_owner_check(quiet, target):
    """The journal reads a correction's target as a whole number, so true, 1.0, "1.0" and " 01 "
    all name seq 1, the runner's sign-off. The ownership check compared the text "True" or "1.0"
    with "1", found no line, and let an observer correct the runner's line."""
    application, path, _held, keys = quiet
    bo = keys.issue(Participant("Bo Lind", "auditor"))
    written = path.read_bytes()
    status, answer = post(application, "/api/events",
                          {"kind": "correction", "id": "1",
                           "data": {"target": target, "at": (NOW - dt.timedelta(hours=2)).isoformat(),
                                    "reason": "not the runner's"}}, bo)
    assert status == 403 and "J. Auditor (runner)" in answer["error"], answer
    assert path.read_bytes() == written


def test_the_whole_page_is_made_from_one_view(racing):
    """The page first loaded carries both parts, each naming the head it was made from; made from
    two reads, a line landing between them gave a page whose open items were a line ahead of its
    timeline until the stream's first refresh."""
    application, key = racing
    status, page = call(application, "/", {"cookie": f"{site.COOKIE}={key}"})
    assert status == 200, page
    heads = re.findall(r'id="(?:state-)?head" data-head="(\d+)"', page)
    assert len(heads) == 2 and heads[0] == heads[1], heads


def test_a_server_started_during_an_append_waits_for_it_and_starts(tmp_path):
    """'day60 serve' reads the journal when it starts. An import writes its batch under the
    journal's exclusive lock, a megabyte at a time; a server that read without the shared lock
    could see half a line and refuse to start ("ends with a partial line ... run 'day60 verify
    --repair'"), though nothing was wrong. Here an append is held with 40 bytes of its line
    written: the room is still waiting half a second later, and once the line is finished it
    starts, the appended false alert its last line."""
    from day60 import journal as jr

    path = make_journal(tmp_path / "ex.jsonl")
    before = jr.read(path)
    event = jr.new_event(before.head["seq"] + 1, jr.sha256_hex(before.last_line), "drift.false-alert", "F-9",
                         "2026-09-14T10:00:00+00:00", "Ana (auditor)", {})
    line = (jr.canonical(event) + "\n").encode("utf-8")
    made: dict = {}

    def start() -> None:
        try:
            made["room"] = Room(path, None)
        except Exception as exc:  # the failure is the finding
            made["error"] = exc

    waited = during_a_half_written_append(path, line, start)
    assert "error" not in made, made.get("error")
    assert waited, "the room read the journal while an append was half written"
    assert made["room"]._last_line == line.decode("utf-8").rstrip("\n")


def test_every_route_is_a_named_view_that_says_its_method_and_path():
    """Issue 41: a reader finds a route by its name. Every route of the app is a module-level view
    in day60.web.pages (people's pages) or day60.web.api (the JSON twin, every path under /api/),
    whose docstring opens with the method and path it answers, e.g. "POST /press"."""
    from starlette.routing import Route

    from day60.web import api, pages

    routes = [r for r in webapp.ROUTES if isinstance(r, Route)]
    assert len(routes) == 15
    for r in routes:
        (method,) = r.methods - {"HEAD"}
        home = api if r.path.startswith("/api/") else pages
        assert getattr(home, r.endpoint.__name__) is r.endpoint, r.path
        assert r.endpoint.__doc__.startswith(f"{method} {r.path}"), (r.path, r.endpoint.__doc__)

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
from day60.web.room import Keys, Participant, Room

NOW = dt.datetime.now(dt.UTC)


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


def call(app: Any, path: str, headers: dict[str, str]) -> tuple[int, str]:
    """One GET through the ASGI app, as uvicorn would make it from 127.0.0.1."""
    sent: list[dict] = []

    async def receive() -> dict:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict) -> None:
        sent.append(message)

    route, _, query = path.partition("?")
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET", "scheme": "http",
             "path": route, "raw_path": route.encode(), "query_string": query.encode(), "root_path": "",
             "headers": [(k.lower().encode(), v.encode()) for k, v in {"host": "127.0.0.1:8060", **headers}.items()],
             "client": ("127.0.0.1", 50000), "server": ("127.0.0.1", 8060)}
    asyncio.run(app(scope, receive, send))
    status = next(m["status"] for m in sent if m["type"] == "http.response.start")
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return status, body.decode("utf-8")


@pytest.fixture
def racing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    journal = tmp_path / "ex.jsonl"
    r = CliRunner().invoke(cli, ["new", str(journal), "--partner", "Acme BPO", "--supplier", "Nimbus AI",
                                 "--deployment", "claims intake", "--tier", "T3", "-c", "uk-office",
                                 "--window-start", (NOW - dt.timedelta(days=2)).isoformat(),
                                 "--window-end", (NOW + dt.timedelta(days=10)).isoformat(),
                                 "--runner", "J. Auditor", "--not-synthetic", "--announced"])
    assert r.exit_code == 0, r.output
    r = CliRunner().invoke(cli, ["log", str(journal), "incident.partner-notice", "--id", "I-1",
                                 "--at", NOW.isoformat()])
    assert r.exit_code == 0, r.output
    monkeypatch.setattr(webapp, "Room", RacingRoom)
    application = webapp.create_app(journal, None, "team-token", "127.0.0.1", 8060)
    key = Keys.beside(journal).issue(Participant("Ana Ruiz", "observer"))
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
    cookie = {"cookie": f"{webapp.COOKIE}={key}", "hx-request": "true"}
    status, timeline = call(application, "/fragment/timeline", cookie)
    assert status == 200, timeline
    newest_row = re.search(r"<tr[^>]*>\s*<td[^>]*>(\d+)</td>", timeline)
    head = re.search(r'id="head" data-head="(\d+)"', timeline)
    assert newest_row and head, timeline
    assert head.group(1) == newest_row.group(1)
    status, state = call(application, "/fragment/state", cookie)
    assert status == 200, state
    assert re.search(r'id="state-head" data-head="\d+"', state)

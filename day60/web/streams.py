"""The event stream a page (or a script) holds open: a ``head`` event when a line it may see
is written, a ``beat`` on a fixed beat so a page knows its stream is alive, a ``problem`` event
when the journal stops verifying; and the caps on how many streams each participant, each role
and the room may hold."""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator
from typing import Any

from starlette.responses import StreamingResponse

from day60.web.guard import Refused
from day60.web.room import Participant, Room

KEEPALIVE_SECONDS = 15.0  # a "beat" event on every open stream, on a fixed beat
# The beat can be shortened for a test of a page noticing a stalled stream (it waits two beats).
BEAT_VARIABLE = "DAY60_SERVE_KEEPALIVE"
# Open event streams (each holds one of the server's request slots, day60.cli.web.MAX_CONNECTIONS,
# for as long as it is open): a participant's pages and scripts, one role's participants, and all
# but the runner's together; the runner's are not capped, and the slots left over are the room's.
STREAMS_PER_PARTICIPANT = 4
STREAMS_PER_ROLE = 16
STREAMS_NOT_RUNNER = 40


def beat_seconds() -> float:
    """The keepalive's beat: KEEPALIVE_SECONDS, or a shorter one the environment sets (0.5 s at least)."""
    raw = os.environ.get(BEAT_VARIABLE, "")
    try:
        return max(0.5, min(KEEPALIVE_SECONDS, float(raw))) if raw else KEEPALIVE_SECONDS
    except ValueError:
        return KEEPALIVE_SECONDS


class Streams:
    """Who holds how many open event streams; ``take`` refuses one beyond a cap (HTTP 429, or 503
    when the room's share is full) and returns what gives it back."""

    def __init__(self) -> None:
        self.open: dict[tuple[str, ...], int] = {}

    def take(self, who: Participant) -> Any:
        if who.runner:
            return lambda: None
        keys = [("participant", who.role, who.name), ("role", who.role), ("all",)]
        held = [self.open.get(k, 0) for k in keys]
        if held[0] >= STREAMS_PER_PARTICIPANT:
            raise Refused(429, f"{who.name} already has {held[0]} event streams open (at most "
                               f"{STREAMS_PER_PARTICIPANT} a participant); close a page or a script's stream first")
        if held[1] >= STREAMS_PER_ROLE:
            raise Refused(429, f"the {who.label}'s participants already have {held[1]} event streams open (at "
                               f"most {STREAMS_PER_ROLE} a role); close a page first")
        if held[2] >= STREAMS_NOT_RUNNER:
            raise Refused(503, f"{held[2]} event streams are open, as many as this server keeps for pages other "
                               "than the runner's; try again when a page is closed")
        for k in keys:
            self.open[k] = self.open.get(k, 0) + 1

        def release() -> None:
            for k in keys:
                self.open[k] -= 1

        return release


class _Held(StreamingResponse):
    """A stream that gives its place back however it ends (even before its first byte)."""

    def __init__(self, content: Any, release: Any, **kwargs: Any) -> None:
        super().__init__(content, **kwargs)
        self.release = release

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            self.release()


def stream(room: Room, streams: Streams, who: Participant) -> StreamingResponse:
    """One open event stream for ``who``, counted against the caps until it ends."""
    release = streams.take(who)
    return _Held(_events(room, who), release, media_type="text/event-stream", headers={"x-accel-buffering": "no"})


async def _events(room: Room, who: Participant) -> AsyncIterator[str]:
    queue = room.subscribe()
    last, problem = room.head(who), room.problem
    every = beat_seconds()
    beat = asyncio.get_running_loop().time() + every
    try:
        yield f"retry: 1000\nevent: head\ndata: {last}\n\n"
        while True:
            # The keepalive keeps its own beat: a wake for a line this page may not see (a sealed
            # onset) must change nothing this page receives, not even when.
            left = beat - asyncio.get_running_loop().time()
            if left <= 0:
                beat += every
                # an event, not a comment: a page's script sees it, and a page that hears nothing
                # for two beats knows its stream has stalled
                yield "event: beat\ndata: still here\n\n"
                continue
            try:
                await asyncio.wait_for(queue.get(), timeout=left)
            except TimeoutError:
                continue
            if room.closing:  # the server is stopping: the reply ends, the page will reconnect
                return
            head = room.head(who)
            if head != last:
                last = head
                yield f"event: head\ndata: {head}\n\n"
            if room.problem != problem:
                problem = room.problem
                yield "event: problem\ndata: the journal no longer verifies\n\n"
    finally:
        room.unsubscribe(queue)

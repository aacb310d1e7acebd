"""The views people's pages call: the page itself, joining and leaving, a press, the reveal, the
two fragments a page refreshes, and the page's event stream. Each reads the server's state from
``site_of(request)`` and answers HTML (htmx swaps the fragments in)."""

from __future__ import annotations

import hmac
import secrets

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from day60 import checklist, permissions, timeparse
from day60.errors import InputError
from day60.web import press as presses
from day60.web import shown, streams
from day60.web.guard import Refused, is_local, one_line, read_form, same_origin
from day60.web.room import ROLES
from day60.web.site import COOKIE, JOIN_COOKIE, site_of


async def index(request: Request) -> Response:
    """GET /: the join form, or the page of the participant the cookie names."""
    site = site_of(request)
    joined = site.from_cookie(request)
    if joined is None:
        nonce = request.cookies.get(JOIN_COOKIE) or secrets.token_urlsafe(18)
        response = site.render("join.html", h=site.room.header, csrf=nonce, roles=ROLES, error=None,
                               journal=site.room.path.name)
        response.set_cookie(JOIN_COOKIE, nonce, httponly=True, samesite="strict")
        return response
    return site.render("page.html", **site.page_context(request, *joined))


async def join(request: Request) -> Response:
    """POST /join: a name, a role and the role's token make a participant, kept in a cookie."""
    site = site_of(request)
    same_origin(request)
    form = await read_form(request)
    nonce = request.cookies.get(JOIN_COOKIE)
    if not nonce or not hmac.compare_digest(form.get("csrf", "").encode(), nonce.encode()):
        raise Refused(403, "csrf: the join form has expired; load the page again")
    try:
        who = site.join_as(request, form.get("token"), form.get("name"), form.get("role"))
    except (InputError, Refused) as exc:
        message = exc.message if isinstance(exc, Refused) else one_line(exc)
        return site.render("join.html", status=exc.status if isinstance(exc, Refused) else 422, h=site.room.header,
                           csrf=nonce, roles=ROLES, error=message, journal=site.room.path.name,
                           typed={"name": form.get("name", ""), "role": form.get("role", "")})  # kept; not the token
    response = RedirectResponse("/", status_code=303)
    response.set_cookie(COOKIE, site.keys.issue(who), httponly=True, samesite="strict", max_age=60 * 60 * 24 * 60)
    response.delete_cookie(JOIN_COOKIE)
    return response


async def leave(request: Request) -> Response:
    """POST /leave: the cookie is dropped; the lines written stand."""
    site = site_of(request)
    joined = site.page_who(request)
    same_origin(request)
    site.check_csrf(joined, await read_form(request))
    response = RedirectResponse("/", status_code=303)
    response.delete_cookie(COOKIE)
    return response


async def press(request: Request) -> Response:
    """POST /press: one step's form, stamped when the request arrived, appended or refused."""
    stamp = timeparse.now()  # the instant the press arrived: before the body is read
    site = site_of(request)
    joined = site.page_who(request)
    same_origin(request)
    form = await read_form(request)
    site.check_csrf(joined, form)
    who = joined[0]
    if form.get("kind") == "correction" and not form.get("id"):
        form["id"] = form.get("f.target", "")
    if form.get("kind") == "dispute" and not form.get("id"):
        form["id"] = f"dispute-{form.get('f.line', '')}"  # as 'day60 dispute' names it
    data = {k[2:]: v for k, v in form.items() if k.startswith("f.") and v != "" and v != checklist.NOT_STATED}
    p = presses.Press(form.get("kind", ""), form.get("id", ""), form.get("at") or None, data,
                      form.get("seal") == "1", form.get("pressed_at") or None, form.get("sent_at") or None,
                      form.get("confirm") == "1",
                      form.get("pause_end_at", "") if form.get("end_pauses") == "1" else None,
                      form.get("press_key") or None, form.get("asked") or None)
    try:
        done = await run_in_threadpool(presses.record, site.room, who, p, stamp, is_local(request), True)
    except InputError as exc:
        site.room.wake()  # a journal found damaged by this press is shown on every page
        return site.render("result.html", status=403 if isinstance(exc, presses.Forbidden) else 422,
                           refused=site.said(one_line(exc)), form=None)
    if done.unconfirmed:
        again = {**form, "confirm": "1", "at": done.when.isoformat()}
        if p.kind == "exercise.close":
            # The close is stamped when "Close it" is pressed (unless a time was typed), and the
            # answer names the last line the question was made from.
            again = {**form, "confirm": "1", "asked": done.asked or "0"}
        pending = {"kind": p.kind, "id": p.ident, "at": done.when.isoformat(), "late": p.pressed_at,
                   "typed": bool(p.at and p.at.strip())}
        return site.render("result.html", warnings=[site.said(w) for w in done.warnings], form=again, refused=None,
                           pending=pending, changed=[site.said(c) for c in done.changed])
    site.room.wake()
    return site.render("result.html", headers={"hx-trigger": "day60-recorded"}, events=done.events,
                       warnings=[] if p.confirm else [site.said(w) for w in done.warnings],  # confirmed: seen
                       held_at=done.held_at, refused=None, form=None, replayed=done.replayed,
                       claims=[permissions.is_claim(e) for e in done.events])


async def reveal(request: Request) -> Response:
    """POST /reveal: the runner's page reveals the sealed onsets after the close."""
    site = site_of(request)
    joined = site.page_who(request)
    same_origin(request)
    site.check_csrf(joined, await read_form(request))
    try:
        done = await run_in_threadpool(presses.reveal, site.room, joined[0], is_local(request))
    except InputError as exc:
        return site.render("result.html", status=403, refused=site.said(one_line(exc)), form=None)
    site.room.wake()
    return site.render("result.html", revealed=done, refused=None, form=None)


async def fragment_timeline(request: Request) -> Response:
    """GET /fragment/timeline: the timeline, for a page to swap in."""
    site = site_of(request)
    who, _ = site.page_who(request)
    return site.render("timeline.html", timeline=shown.timeline(site.room, who))


async def fragment_state(request: Request) -> Response:
    """GET /fragment/state: what is open and the next steps, for a page to swap in."""
    site = site_of(request)
    who, key = site.page_who(request)
    here = is_local(request)
    return site.render("state.html", state=shown.state(site.room, who, here), csrf=site.keys.csrf(key), who=who,
                       local=here, held=site.room.held is not None)


async def stream(request: Request) -> Response:
    """GET /stream: the page's event stream."""
    site = site_of(request)
    who, _ = site.page_who(request)
    return streams.stream(site.room, site.streams, who)


async def no_icon(request: Request) -> Response:
    """GET /favicon.ico: nothing, and no 404 in a browser's console."""
    return Response(status_code=204)

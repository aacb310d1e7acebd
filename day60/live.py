"""The interactive live checklist: questionary prompts over ``checklist`` and ``journal``.

Every step appends at once, so quitting (or a crash) loses nothing already recorded. Inside a
step, Ctrl-C or Esc cancels it and returns to the menu with nothing written; at the menu it
leaves. The menu's highlighted first item only reads the journal again, so a stray Enter
records nothing. ``ask_new`` is the interview ``day60 new`` runs for answers not given as options.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any
from zoneinfo import ZoneInfo

import questionary
from prompt_toolkit.key_binding import KeyBindings, merge_key_bindings
from pydantic import TypeAdapter, ValidationError

from day60 import checklist, journal, permissions, reading, timeparse
from day60.errors import InputError, pydantic_problem
from day60.events import DATA_MODELS, Ident, Text

RUNNER = permissions.Actor(permissions.RUNNER)  # whoever runs 'live' at the journal's machine is its runner

REFRESH, CORRECT, QUIT = "refresh", "correct", "quit"
CANCEL_HINT = "(Esc or Ctrl-C: back to the menu)"


class _Stop(Exception):
    """Leave the checklist (Ctrl-C or Esc at the menu, end of input)."""


class _Cancel(Exception):
    """Leave the step being asked; nothing of it is written."""


_ESCAPE = KeyBindings()


@_ESCAPE.add("escape", eager=False)
def _escape(event: Any) -> None:
    event.app.exit(exception=KeyboardInterrupt, style="class:aborting")


def _wrap_refusals(app: Any) -> None:
    """Show a refusal under the prompt whole, on as many lines as it takes. prompt_toolkit gives it
    one line and cuts the rest: on an 80-column terminal the candidates of a time in the clock
    change were cut off, and at 40 columns most of every refusal."""
    from prompt_toolkit.filters import to_filter
    from prompt_toolkit.layout import Window
    from prompt_toolkit.layout.controls import FormattedTextControl

    for item in app.layout.walk():
        if isinstance(item, Window) and isinstance(item.content, FormattedTextControl) and \
                getattr(item.content.text, "__qualname__", "").startswith("ValidationToolbar."):
            item.height = None
            item.wrap_lines = to_filter(True)


def _ask(question: questionary.Question) -> Any:
    """The answer, or _Cancel on Ctrl-C or Esc, or _Stop at the end of input."""
    app = question.application
    app.key_bindings = merge_key_bindings([app.key_bindings, _ESCAPE]) if app.key_bindings else _ESCAPE
    _wrap_refusals(app)
    try:
        return question.unsafe_ask()
    except KeyboardInterrupt:
        raise _Cancel from None
    except EOFError:
        raise _Stop from None


def _plain(exc: InputError) -> str:
    """A refusal in the words of the checklist: the prompt's name, never an option to type."""
    names = {"--at": "time", "--id": "id", "id": "id", "KIND": "step", "--seq": "entry", "--reason": "reason",
             "--set target": "entry", "--set at": "time", "--calendar": "calendar", "--window-start": "window start",
             "--window-end": "window end"}
    where = names.get(exc.field, exc.field.removeprefix("--set "))
    fix = re.sub(r"(?:add )?--set (\w+)=\S*", r"answer \1", exc.fix or "")
    fix = fix.replace("'day60 correct'", "'correct an entry' from the menu")
    fix = re.sub(r"\blog ([a-z]+\.[a-z-]+)", r"record \1", fix)
    if "--" in fix:
        fix = ""
    return f"{where}: {exc.problem}" + (f"; {fix}" if fix else "")


def _checker(check: Callable[[str], object]) -> Callable[[str], bool | str]:
    """A questionary validator: True, or the refusal shown under the prompt while it stays open."""

    def validate(text: str) -> bool | str:
        try:
            check(text)
        except InputError as exc:
            return _plain(exc)
        except ValidationError as exc:
            return pydantic_problem(exc)[1]
        except ValueError as exc:
            return str(exc)
        return True

    return validate


def _yes_or_no(text: str) -> bool | str:
    return text.strip().lower() in ("y", "yes", "n", "no") or "type yes or no (there is no default here)"


def _field_adapter(kind: str, name: str) -> TypeAdapter:
    info = DATA_MODELS[kind].model_fields[name]
    return TypeAdapter(Annotated[info.annotation, *info.metadata]) if info.metadata else TypeAdapter(info.annotation)


def _held(held: Path | None) -> dict[str, Any] | None:
    if held is None or not held.exists():
        return None
    return journal.load_held(held)


# ----- the loop -----------------------------------------------------------------------------


def _stamp(path: Path, tsa: str | None, when: str, roots: list[Any] | None, echo: Callable[[str], None],
           failed: set[int]) -> int:
    """With a timestamp authority, ask it for a token over the head when one is due (at the close
    and after, or after every event); a failing TSA leaves the events written as they are, and is
    not asked again until another line is written (``failed``: the journal sizes it failed at)."""
    if tsa is None:
        return 0
    import os

    from day60.evidence import timestamp

    size = os.path.getsize(path)
    if size in failed:
        return 0
    event, problem = timestamp.stamp_if_due(path, tsa, when, roots)
    if problem:
        failed.add(size)
        echo(f"not timestamped: {problem}; the events recorded stand; stamp later with: day60 stamp {path} "
             f"--tsa {tsa}")
        return 0
    if event is None:
        return 0
    echo(f"timestamped: seq {event['seq']}, a token from {tsa} over the head {event['data']['covers_seq']}, "
         f"at {event['at']}")
    return 1


def run_checklist(path: Path, echo: Callable[[str], None], held: Path | None = None, tsa: str | None = None,
                  stamp_when: str = "close", tsa_roots: list[Any] | None = None) -> int:
    """Loop: show open items, offer next steps, record one event per choice. Returns events written.

    With ``tsa`` (a timestamp authority's URL), the head is stamped after the close and every line
    after it (``stamp_when`` "close") or after every event ("every")."""
    written = 0
    offered = False  # the reveal is offered once, when the checklist first finds the exercise closed
    failed: set[int] = set()
    try:
        while True:
            written += _stamp(path, tsa, stamp_when, tsa_roots, echo, failed)
            j = reading.read(path, events=True)  # under the shared lock: an import under way is seen whole
            tz = ZoneInfo(j.header["calendar"]["timezone"])
            _show_status(j, echo, held)
            steps = checklist.next_steps(j.events, j.header)
            if not steps:
                echo("the exercise is closed: only corrections and reveals can be recorded")
                if not offered:
                    offered = True
                    revealed = _offer_reveal(path, j, held, echo)
                    if revealed:
                        written += revealed
                        continue
                if not _correctable(j.events) and not checklist.claims_to_judge(j.events):
                    break
            steps = checklist.claims_to_judge(j.events) + steps  # judged at any time, the close included
            try:
                picked = _ask(questionary.select(
                    "Next step", choices=_menu(steps, j), use_search_filter=True, use_jk_keys=False,
                    instruction="(type to filter, arrows to move, Enter to choose, Esc or Ctrl-C to leave)"))
            except _Cancel:
                break
            stamp = timeparse.now()  # the keypress that chose the step
            if picked == QUIT:
                break
            if picked == REFRESH:
                continue
            try:
                if picked == CORRECT:
                    written += _correct(path, j, tz, echo)
                    continue
                step = steps[picked]
                if step.kind == "exercise.close":
                    written += _close(path, j, tz, held, echo)
                    continue
                written += _record(path, j, step, stamp, tz, held, echo)
            except _Cancel:
                echo("cancelled: nothing was recorded for that step")
            except InputError as exc:
                echo(f"not recorded: {_plain(exc)}")
    except (_Stop, KeyboardInterrupt):
        pass
    try:
        written += _stamp(path, tsa, stamp_when, tsa_roots, echo, failed)  # the last step's, before leaving
    except KeyboardInterrupt:
        echo("not timestamped: stopped while asking the timestamp authority")
    echo("stopped; everything recorded so far is in the journal")
    return written


def _show_status(j: journal.Journal, echo: Callable[[str], None], held: Path | None) -> None:
    status = checklist.status(j.events, header=j.header)
    sealed = checklist.sealed_onsets(j.events)
    echo(f"\n{j.header['partner']} / {j.header['supplier']} ({j.header['tier']}): {len(j.events)} events recorded"
         + (f"; {len(sealed)} onset(s) sealed" + (f" in {held}" if held else "") if sealed else ""))
    for area, items in status.items():
        echo(f"  open {area}: " + ("; ".join(items) if items else "none"))


def _menu(steps: list[checklist.Step], j: journal.Journal) -> list[Any]:
    choices: list[Any] = [questionary.Choice("refresh: read the journal again (records nothing)", value=REFRESH)]
    group = None
    for i, step in enumerate(steps):
        if step.group != group:
            group = step.group
            heading = {"new": "start something new", "close": "finish"}.get(group, group)
            if group == "close" and _correctable(j.events):
                choices.append(questionary.Separator("-- corrections --"))
                choices.append(questionary.Choice("correct an entry (a correction, with its reason)", value=CORRECT))
            choices.append(questionary.Separator(f"-- {heading} --"))
        choices.append(questionary.Choice(step.label, value=i))
    if not steps and _correctable(j.events):  # closed: what remains is to correct
        choices.append(questionary.Separator("-- corrections --"))
        choices.append(questionary.Choice("correct an entry (a correction, with its reason)", value=CORRECT))
    choices.append(questionary.Choice("quit (everything is already saved)", value=QUIT))
    return choices


def _correctable(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Events a correction can name, the latest first: timed, not sealed, not themselves fixes."""
    skip = {"correction", "reveal", "dispute", "resolve", "notice.sent", "accept", "reject"}
    return [e for e in reversed(events) if e["kind"] not in skip and e["at"] is not None]


# ----- asking one step ----------------------------------------------------------------------


def _ask_when(label: str, tz: ZoneInfo, stamp: dt.datetime, j: journal.Journal, kind: str, ident: str,
              held_at: dict[str, str], echo: Callable[[str], None]) -> dt.datetime:
    """The instant: Enter stamps the moment it is pressed; a typed time is read in the exercise's
    zone. Warnings (in the future, outside the window, before the sealed onset) are confirmed."""
    while True:
        pressed: list[dt.datetime] = []

        def when_check(text: str, pressed: list[dt.datetime] = pressed) -> None:
            if not text.strip():
                pressed.append(timeparse.now())  # the instant Enter was pressed on an empty answer
            else:
                timeparse.parse_instant(text, tz, "--at")

        text = _ask(questionary.text(
            f"{label}? Enter stamps the moment you press it (now {stamp.astimezone(tz).strftime('%H:%M:%S')}), "
            f"or type a time {CANCEL_HINT}", default="", validate=_checker(when_check)))
        when = (pressed[-1] if pressed else timeparse.now()) if not text.strip() \
            else timeparse.parse_instant(text, tz, "--at")
        warned = checklist.warnings(j.header, kind, ident, when, timeparse.now(), held_at)
        if not warned:
            return when
        for w in warned:
            echo(f"  warning: {w}")
        if _ask(questionary.confirm("Record this time anyway?", default=False)):
            return when


def _ask_fields(step: checklist.Step, j: journal.Journal) -> dict[str, Any]:
    data: dict[str, Any] = step.data
    if step.kind == "report.element":
        received = checklist.reports_received(j.events)
        if len(received) > 1:
            data["period"] = _ask(questionary.select("Which report (period)?", choices=received))
        elif received:
            data["period"] = received[0]
    for ask in checklist.fields_for(step.kind, data):
        label = ask.name.replace("_", " ") + (f" ({ask.help})" if ask.help else "")
        if ask.kind == "bool":
            if ask.attest:  # typed, never taken from a stray Enter
                answer = _ask(questionary.text(f"{label}: yes or no? {CANCEL_HINT}", validate=_yes_or_no))
                data[ask.name] = answer.strip().lower() in ("y", "yes")
            else:
                data[ask.name] = _ask(questionary.confirm(label, default=ask.name != "not_applicable"))
        elif ask.kind == "choice":
            picked = _ask(questionary.select(label, choices=list(ask.choices)))
            if picked != checklist.NOT_STATED:
                data[ask.name] = picked
        else:
            adapter = _field_adapter(step.kind, ask.name)
            required = ask.required or (ask.name == "affected_class" and data.get("source") == "exercise")

            def check(text: str, adapter: TypeAdapter = adapter, required: bool = required) -> object:
                if not text.strip() and required:
                    raise ValueError("an answer is needed here")
                return adapter.validate_python(text) if text.strip() else None

            label += "" if required else " (Enter to leave it out)"
            answer = _ask(questionary.text(label, validate=_checker(check)))
            if answer.strip():
                data[ask.name] = answer
    if step.kind == "safety.agreed" and data.get("no_live_personal_data") is not True:
        raise InputError("no live personal data", "a sign-off must attest that the injection exposes, exfiltrates "
                                                  "or breaches no live personal data (charter 4.5.1)",
                         "nothing was recorded; record the injection as not run if it cannot be made safe")
    return data


def _ask_id(step: checklist.Step, j: journal.Journal) -> str:
    if step.id is not None:
        return step.id
    if step.kind == "report.element":
        choices = [questionary.Choice(label, value=ident) for ident, label in checklist.element_choices(j.events,
                                                                                                        j.header)]
        return _ask(questionary.select("Which element?", choices=choices, use_search_filter=True,
                                       use_jk_keys=False))
    hint = {"report.received": "the month the report covers, YYYY-MM",
            "safety.agreed": "the injection's id, e.g. D1, I1 or R1",
            "injection.not-run": "the injection's id, e.g. D1"}.get(step.kind, "e.g. I7, D2 or R2")

    def check(text: str) -> None:
        TypeAdapter(Ident).validate_python(text)
        if step.kind == "report.received" and not re.fullmatch(r"[0-9]{4}-(0[1-9]|1[0-2])", text):
            raise ValueError("a report's id is the month it covers, written YYYY-MM")

    return _ask(questionary.text(f"Id ({hint}) {CANCEL_HINT}", validate=_checker(check)))


def _dry_run(j: journal.Journal, kind: str, ident: str, when: dt.datetime, data: dict[str, Any],
             sealed: bool, before: list[tuple[str, dt.datetime]] = ()) -> None:
    """The journal's own rules over the journal with this event added (after ``before``: the ends
    of pauses to be written first, with no data), before anything is written."""
    try:
        typed = DATA_MODELS[kind].model_validate(data).model_dump(mode="json", exclude_none=True)
    except ValidationError as exc:
        name, msg = pydantic_problem(exc)
        raise InputError(name, msg) from None
    seq = len(j.events)
    ahead = [{"seq": seq + n, "kind": k, "id": ident, "at": at.isoformat(), "data": {}}
             for n, (k, at) in enumerate(before, start=1)]
    candidate = {"seq": seq + len(ahead) + 1, "kind": kind, "id": ident, "at": when.isoformat(), "data": typed}
    journal.check_rules([*j.events, *ahead, candidate])
    journal.check_new(kind, typed, sealed)


def _record(path: Path, j: journal.Journal, step: checklist.Step, stamp: dt.datetime, tz: ZoneInfo,
            held: Path | None, echo: Callable[[str], None]) -> int:
    """Ask one step and write it. Nothing is written until every answer is in and the journal's
    rules accept them all, so a step cancelled at any prompt leaves the journal as it was."""
    sealed = step.kind == "drift.onset" and step.data.get("source", "exercise") == "exercise"
    if sealed and held is None:
        raise InputError("held file", "an injected onset is sealed into the runner's held file, and this "
                                      "checklist was started without one",
                         "quit and start it again with the held file (day60 live JOURNAL --held FILE)")
    ident = _ask_id(step, j)
    held_at = checklist.held_instants(_held(held), j.events)
    ends = _ask_pause_ends(j, ident, tz, held_at, echo) if step.kind == "incident.restored" else []
    label = "When did it happen" if step.kind != "safety.agreed" else "When was it signed"
    # a claim is accepted or rejected when the runner judges it: the keypress
    when = stamp if step.kind in ("accept", "reject") else _ask_when(label, tz, stamp, j, step.kind, ident, held_at,
                                                                        echo)
    data = _ask_fields(step, j)
    while True:
        try:
            _dry_run(j, step.kind, ident, when, data, sealed, ends)
            break
        except InputError as exc:
            if exc.field != "--at":
                raise
            echo(f"not recorded: {_plain(exc)}")
            if not _ask(questionary.confirm("Give another time (the other answers are kept)?", default=True)):
                raise _Cancel from None
            when = _ask_when("When did it happen", tz, timeparse.now(), j, step.kind, ident, held_at, echo)
    for kind, at in ends:
        event = journal.append(path, kind, ident, at, {}, actor=RUNNER)
        echo(f"recorded seq {event['seq']}: {kind} {ident} at {at.astimezone(tz).isoformat()}")
    event = journal.append(path, step.kind, ident, when, data, seal=held if sealed else None, actor=RUNNER)
    shown = when.astimezone(tz).isoformat() + ("" if event["at"] else f" (sealed: only {held} holds it)")
    echo(f"recorded seq {event['seq']}: {event['kind']} {event['id']} at {shown}")
    return len(ends) + 1


def _ask_pause_ends(j: journal.Journal, ident: str, tz: ZoneInfo, held_at: dict[str, str],
                    echo: Callable[[str], None]) -> list[tuple[str, dt.datetime]]:
    """Before a restore: offer to record the end of each wait or change window still open, each
    with its own instant (a pause left open runs on to the restore in the figures). Each end is
    checked against the journal's rules as it is given; all are written with the restore."""
    ends: list[tuple[str, dt.datetime]] = []
    for pause, opened in checklist.open_pauses(j.events, ident).items():
        what = "waiting on partner" if pause == "wait" else "agreed change window"
        since = opened.at.astimezone(tz).isoformat(timespec="minutes") if opened.at else "an unknown time"
        choice = _ask(questionary.select(
            f"{ident} has a {what} open since {since}. Record its end first?",
            choices=[questionary.Choice("yes: record when it ended (its own time)", value="end"),
                     questionary.Choice("no: record the restore and leave it open", value="leave"),
                     questionary.Choice("cancel: back to the menu", value="cancel")]))
        if choice == "cancel":
            raise _Cancel
        if choice == "leave":
            continue
        kind = f"incident.{pause}-end"
        while True:
            when = _ask_when(f"When did the {what} end", tz, timeparse.now(), j, kind, ident, held_at, echo)
            try:
                _dry_run(j, kind, ident, when, {}, False, ends)
                break
            except InputError as exc:
                if exc.field != "--at":
                    raise
                echo(f"not recorded: {_plain(exc)}")
        ends.append((kind, when))
    return ends


def _correct(path: Path, j: journal.Journal, tz: ZoneInfo, echo: Callable[[str], None]) -> int:
    entries = _correctable(j.events)[:12]
    if not entries:
        echo("nothing to correct yet")
        return 0
    choices = [questionary.Choice(
        f"seq {e['seq']}: {e['kind']} {e['id']} at "
        f"{dt.datetime.fromisoformat(e['at']).astimezone(tz).isoformat(timespec='seconds')}", value=e["seq"])
        for e in entries]
    choices.append(questionary.Choice("cancel: back to the menu", value=None))
    seq = _ask(questionary.select("Which entry? (the last one is first)", choices=choices))
    if seq is None:
        raise _Cancel
    target = next(e for e in entries if e["seq"] == seq)
    when = _ask_when("The right time", tz, timeparse.now(), j, target["kind"], target["id"], {}, echo)
    reason = _ask(questionary.text(f"Why was it wrong (shown in every report)? {CANCEL_HINT}",
                                   validate=_checker(TypeAdapter(Text).validate_python)))
    event = journal.correct(path, seq, when, reason, actor=RUNNER)
    echo(f"recorded seq {event['seq']}: correction of seq {seq} to {when.astimezone(tz).isoformat()}")
    return 1


def _close(path: Path, j: journal.Journal, tz: ZoneInfo, held: Path | None, echo: Callable[[str], None]) -> int:
    """Record the close after showing what is still open (and, with sealed onsets, whether the held
    file is at hand to reveal them); the reveal is offered next, by the loop."""
    status = checklist.status(j.events, header=j.header)
    still = [f"{area}: {item}" for area, items in status.items() for item in items]
    sealed = checklist.sealed_onsets(j.events)
    echo("before the close:")
    for line in still or ["nothing is open"]:
        echo(f"  open {line}")
    if sealed:
        echo(f"  {len(sealed)} onset(s) sealed: " + ", ".join(f"{e.id} (seq {e.seq})" for e in sealed))
        if held is None or not held.exists():
            echo("  the held file is not at hand here: after the close they stay sealed, with no lead time "
                 "figured for them, until they are revealed where it is")
    if not _ask(questionary.confirm("Close the exercise now? Afterwards only corrections and reveals can be "
                                    "recorded", default=False)):
        raise _Cancel
    when = _ask_when("When does it close", tz, timeparse.now(), j, "exercise.close", "exercise", {}, echo)
    event = journal.append(path, "exercise.close", "exercise", when, {}, actor=RUNNER)
    echo(f"recorded seq {event['seq']}: exercise.close at {when.astimezone(tz).isoformat()}")
    return 1


def _offer_reveal(path: Path, j: journal.Journal, held: Path | None, echo: Callable[[str], None]) -> int:
    sealed = checklist.sealed_onsets(j.events)
    if not sealed:
        return 0
    if held is None or not held.exists():
        echo(f"{len(sealed)} onset(s) remain sealed; reveal them where the held file is: "
             f"day60 reveal {path} --held FILE")
        return 0
    try:
        if not _ask(questionary.confirm(f"Reveal the {len(sealed)} sealed onset(s) now from {held}?",
                                        default=True)):
            echo(f"{len(sealed)} onset(s) remain sealed; reveal them later with: day60 reveal {path} --held {held}")
            return 0
    except _Cancel:
        return 0
    done = journal.reveal(path, held)
    echo(f"revealed {len(done.events)} sealed onset(s)")
    for entry in done.stray:
        echo(f"note: the held file has an entry the journal never received: {entry}")
    for onset in done.unheld:
        echo(f"note: this held file cannot open the sealed onset {onset}")
    return len(done.events)


# ----- day60 new ----------------------------------------------------------------------------

ASKED = ("partner", "supplier", "deployment", "tier", "calendar", "window_start", "window_end", "runner")
OPTIONAL = ("synthetic", "unannounced", "runner_org", "conflict_statement")


def ask_new(values: dict[str, Any], echo: Callable[[str], None]) -> dict[str, Any]:
    """Ask for every missing answer of ``day60 new``, each checked as it is typed: texts, the tier
    (with what each demonstrates), the calendar (a shipped name or a file), the window in the
    calendar's zone (the end after the start); then the optional fields not given. Raises
    _Stop on Ctrl-C or Esc (nothing has been written)."""
    from day60 import rubric, selfassess

    out = dict(values)
    text = TypeAdapter(Text)

    def ask(question: questionary.Question) -> Any:
        try:
            return _ask(question)
        except _Cancel:
            raise _Stop from None

    for key in ASKED:
        if out.get(key):
            continue
        if key == "tier":
            tiers = rubric.load().tiers
            out[key] = ask(questionary.select("Tier", choices=[
                questionary.Choice(f"{tid}: {t.name}. {t.checks.split('. ')[0].rstrip('.')}."[:118], value=tid)
                for tid, t in tiers.items()]))
        elif key == "calendar":
            out[key] = ask(questionary.text(
                f"Business calendar: a shipped one ({', '.join(selfassess.SHIPPED_CALENDARS)}) or a TOML file",
                validate=_checker(lambda t: _calendar(t))))
        elif key in ("window_start", "window_end"):
            tz = _calendar(out["calendar"]).tz

            def check(t: str, key: str = key, tz: ZoneInfo = tz) -> None:
                when = timeparse.parse_instant(t, tz, f"--{key.replace('_', '-')}")
                if key == "window_end" and when <= timeparse.parse_instant(out["window_start"], tz):
                    raise ValueError("the window must end after it starts")

            out[key] = ask(questionary.text(f"Window {key.split('_')[1]} (local time in {tz.key}, or with an "
                                            "offset)", validate=_checker(check)))
        else:
            label = {"runner": "Runner (who runs the exercise and holds the injection times)"}.get(
                key, key.capitalize())
            out[key] = ask(questionary.text(label, validate=_checker(text.validate_python)))
    if out.get("synthetic") is None:
        out["synthetic"] = ask(questionary.confirm("Is the data invented (synthetic)?", default=False))
    if out.get("unannounced") is None:
        out["unannounced"] = ask(questionary.confirm(
            "Was the supplier kept from knowing the exercise window (unannounced; T4 and T5 need it)?",
            default=out["tier"] in ("T4", "T5")))
    for key, label in (("runner_org", "The runner's organisation"),
                       ("conflict_statement", "The runner's statement of any conflict of interest")):
        if out.get(key) is None:
            def optional(t: str) -> None:
                if t.strip():
                    text.validate_python(t)

            answer = ask(questionary.text(f"{label} (Enter to leave it out)", validate=_checker(optional)))
            out[key] = answer if answer.strip() else None
    return out


def _calendar(answer: str) -> Any:
    from day60 import selfassess

    try:
        return selfassess.calendar_of(answer.strip())
    except InputError as exc:
        raise InputError("--calendar", exc.problem, exc.fix) from None

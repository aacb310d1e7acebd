"""Time a third party can check: RFC 3161 timestamp tokens over a journal's head.

An auditor's own times (``recorded_at``, the instants typed) are only as good as the auditor's
word. A timestamp authority (TSA) signs a token saying that a given SHA-256 existed at its
clock's time. ``stamp`` asks a TSA for a token over the journal's head (the last event's own
hash, which chains back through every line before it) and appends the token as a
``timestamp.token`` event; ``check`` verifies every token a journal holds against the chain it
covers, and says which events were proven to exist by which time.

What a token proves: every line up to the stamped seq existed, exactly as it is now, no later
than the token's time, on the word of the TSA whose certificate signed it (checked against the
roots you trust, ``--tsa-root``). What it does not prove: that the events happened when their
``at`` says, that nothing was left out before the stamp, or anything about lines after it.

For the live checklist and the web checklist: call ``stamp(journal, url)`` after an event, or
at the close, when the runner gave ``--tsa``; it appends under the journal's own lock and
returns the event written (it blocks on the network for up to ``timeout`` seconds: from an
event loop, run it in a thread, e.g. ``await asyncio.to_thread(stamp, path, url)``).
"""

from __future__ import annotations

import base64
import datetime as dt
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from day60.errors import InputError

KIND = "timestamp.token"
TOKEN_FORMAT = "day60.timestamp/1"
MAX_RESPONSE = 1024 * 1024
TIMEOUT = 15.0


# ----- asking a TSA --------------------------------------------------------------------------------


def check_url(url: str, field: str = "--tsa") -> str:
    """An http(s) URL with a host; anything else is refused before any work."""
    from urllib.parse import urlsplit

    parts = urlsplit(url or "")
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise InputError(field, f"{str(url)[:80]!r} is not an http or https URL", "give the timestamp authority's "
                                                                                  "URL, e.g. https://tsa.example/tsr")
    return url


def _post(url: str, body: bytes, timeout: float) -> bytes:
    """POST a timestamp query; the reply's bytes (bounded in size and in total time: a server that
    sends one byte every few seconds is given up after ``timeout`` seconds in all, not after each
    byte), or InputError naming the TSA."""
    import threading

    outcome: dict[str, Any] = {}

    def work() -> None:
        try:
            outcome["data"] = _exchange(url, body, timeout)
        except BaseException as exc:  # handed to the caller's thread below
            outcome["error"] = exc

    worker = threading.Thread(target=work, name="day60-tsa", daemon=True)
    worker.start()
    worker.join(timeout)
    if worker.is_alive():  # left to end on its own; a daemon thread never holds the process open
        raise InputError("--tsa", f"the timestamp authority at {url} did not answer within {timeout:g} seconds",
                         "check the URL and the network; nothing was written")
    if "error" in outcome:
        raise outcome["error"]
    return outcome["data"]


def _exchange(url: str, body: bytes, timeout: float) -> bytes:
    import ipaddress
    import urllib.error
    import urllib.request
    from urllib.parse import urlsplit

    host = urlsplit(url).hostname or ""
    try:
        loopback = ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = host == "localhost"
    # A TSA on this machine is reached directly, whatever proxy the environment names.
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({})) if loopback \
        else urllib.request.build_opener()
    request = urllib.request.Request(url, data=body, method="POST", headers={
        "Content-Type": "application/timestamp-query", "Accept": "application/timestamp-reply"})
    fix = "check the URL and the network; nothing was written"
    try:
        with opener.open(request, timeout=timeout) as reply:
            kind = reply.headers.get("Content-Type", "")
            data = reply.read(MAX_RESPONSE + 1)
    except urllib.error.HTTPError as exc:
        raise InputError("--tsa", f"the timestamp authority at {url} answered HTTP {exc.code}", fix) from exc
    except (urllib.error.URLError, OSError, ValueError) as exc:
        reason = getattr(exc, "reason", exc)
        raise InputError("--tsa", f"the timestamp authority at {url} could not be reached ({reason})", fix) from exc
    if len(data) > MAX_RESPONSE:
        raise InputError("--tsa", f"the timestamp authority at {url} sent more than {MAX_RESPONSE:,} bytes", fix)
    if not kind.startswith("application/timestamp-reply"):
        raise InputError("--tsa", f"the timestamp authority at {url} did not send a timestamp reply "
                                  f"(Content-Type {kind[:60]!r})", fix)
    return data


def request_token(url: str, digest: bytes, timeout: float = TIMEOUT) -> Any:
    """An RFC 3161 token (asn1crypto ContentInfo) over a SHA-256 ``digest``, nonce checked."""
    from asn1crypto import core, tsp
    from pyhanko.sign.timestamps import TimeStamper
    from pyhanko.sign.timestamps.common_utils import handle_tsp_response

    from day60.evidence.pdf import quiet

    nonce, query = TimeStamper().request_cms(digest, "sha256")
    raw = _post(check_url(url), query.dump(), timeout)
    fix = "check the URL; nothing was written"
    try:
        with quiet():
            status = tsp.PKIStatusInfo.load(core.Sequence.load(raw)[0].dump())
            granted = status["status"].native in ("granted", "granted_with_mods")
            words = "; ".join(status["status_string"].native or []) if not granted else ""
    except Exception as exc:  # not an RFC 3161 reply at all
        raise InputError("--tsa", f"the timestamp authority at {url} sent a reply that is not RFC 3161 "
                                  f"({str(exc).splitlines()[0][:100]})", fix) from exc
    if not granted:
        raise InputError("--tsa", f"the timestamp authority at {url} refused the request "
                                  f"({status['status'].native}{': ' + words if words else ''})", fix)
    try:
        with quiet():
            token = handle_tsp_response(tsp.TimeStampResp.load(raw), nonce)
            _ = token.dump()
    except Exception as exc:  # a malformed token, or a nonce that is not ours
        raise InputError("--tsa", f"the timestamp authority at {url} gave no usable token "
                                  f"({str(exc).splitlines()[0][:120]})", fix) from exc
    return token


def checked_token(url: str, digest: bytes, timeout: float = TIMEOUT) -> Any:
    """``request_token``, the token then checked before it is used: over ``digest``, its signature
    holding, its TSA's certificate valid at its time (a PDF is never written with a token that
    ``verify-report`` would then refuse)."""
    token = request_token(url, digest, timeout)
    checked = check_token(token, digest, None)
    if checked.problems:
        raise InputError("--tsa", f"the token from {url} was refused: {'; '.join(checked.problems)}",
                         "nothing was written; check the timestamp authority")
    return token


class UrlTimeStamper:
    """pyHanko's TimeStamper over ``checked_token`` (standard library HTTP, no proxies for a TSA on
    this machine), for signature and document timestamps in PDFs."""

    def __new__(cls, url: str, timeout: float = TIMEOUT) -> Any:
        from pyhanko.sign.timestamps import TimeStamper

        class _Stamper(TimeStamper):
            async def async_timestamp(self, message_digest: bytes, md_algorithm: str) -> Any:
                import asyncio

                if md_algorithm != "sha256":
                    raise InputError("--tsa", f"asked for a {md_algorithm} token", "day60 asks for SHA-256 only")
                return await asyncio.to_thread(checked_token, url, message_digest, timeout)

        return _Stamper()


# ----- one token, checked ---------------------------------------------------------------------------


@dataclass
class TokenCheck:
    """What one token proves, or why it proves nothing."""

    at: dt.datetime | None = None
    tsa: str | None = None
    tsa_certificate_sha256: str | None = None
    trusted: bool = False
    trust_checked: bool = False
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _run(coro: Any) -> Any:
    """Run a coroutine to its end, from plain code or from inside a running event loop."""
    import asyncio

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    import concurrent.futures

    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()


_TRUST_WORDS = {"NO_CERTIFICATE_CHAIN_FOUND": "its certificate does not chain to a root you trust",
                "OUT_OF_BOUNDS_NO_POE": "its certificate was not valid at the token's time (expired or not yet "
                                        "valid)",
                "EXPIRED": "its certificate had expired at the token's time",
                "NOT_YET_VALID": "its certificate was not yet valid at the token's time",
                "REVOKED_NO_POE": "its certificate is revoked",
                "CHAIN_CONSTRAINTS_FAILURE": "its certificate may not be used for timestamps",
                "CERTIFICATE_CHAIN_GENERAL_FAILURE": "its certificate chain does not validate"}


def check_token(token: Any, digest: bytes, roots: list[Any] | None) -> TokenCheck:
    """Check a token's signature, that its imprint is ``digest`` (SHA-256), and with ``roots`` that
    the TSA's certificate chains to one of them and was valid at the token's time."""
    from pyhanko.sign.validation.generic_cms import validate_tst_signed_data
    from pyhanko_certvalidator import ValidationContext

    from day60.evidence.pdf import quiet

    out = TokenCheck()
    try:
        with quiet():
            signed = token["content"]
            info = signed["encap_content_info"]["content"].parsed
            out.at = info["gen_time"].native
            imprint = info["message_imprint"]
            algorithm = imprint["hash_algorithm"]["algorithm"].native
            hashed = imprint["hashed_message"].native
            context = ValidationContext(trust_roots=list(roots or []), allow_fetching=False,
                                        revocation_mode="soft-fail", moment=out.at)
            status = _run(validate_tst_signed_data(signed, context, lambda _algo: digest))
    except Exception as exc:
        out.problems.append(f"the token cannot be read as an RFC 3161 token ({type(exc).__name__}: "
                            f"{str(exc)[:80]})")
        return out
    cert = status.get("signing_cert")
    if cert is not None:
        out.tsa, out.tsa_certificate_sha256 = cert.subject.human_friendly, cert.sha256.hex()
    if algorithm != "sha256" or hashed != digest:
        out.problems.append(f"the token is over another hash ({algorithm} {bytes(hashed).hex()[:16]}...), not over "
                            f"{digest.hex()[:16]}...")
    elif not status.get("intact") or not status.get("valid"):
        out.problems.append("the TSA's signature on the token does not verify")
    if cert is not None and out.at is not None:
        validity = cert["tbs_certificate"]["validity"]
        start, end = validity["not_before"].native, validity["not_after"].native
        if not start <= out.at <= end:
            out.problems.append(f"the TSA's certificate was not valid at the token's time (valid from "
                                f"{start.isoformat()} to {end.isoformat()})")
            return out
    problem = status.get("trust_problem_indic")
    out.trust_checked = bool(roots)
    if roots:
        if problem is None and status.get("validation_path") is not None and not out.problems:
            out.trusted = True
        else:
            name = getattr(problem, "name", str(problem))
            out.problems.append(f"the TSA is not trusted: {_TRUST_WORDS.get(name, name or 'no trusted chain')}")
    else:
        out.notes.append("the TSA's certificate was not checked against a root you trust (give --tsa-root)")
    return out


def load_roots(paths: list[Path] | None) -> list[Any]:
    """Trusted root certificates (PEM or DER files) for TSAs; every bad file named."""
    from asn1crypto import pem
    from asn1crypto import x509 as asn1_x509

    from day60.files import read_bytes

    roots = []
    for path in paths or []:
        raw = read_bytes(path, "--tsa-root", "a certificate file (PEM or DER)", 1024 * 1024)
        try:
            blobs = [der for _t, _h, der in pem.unarmor(raw, multiple=True)] if pem.detect(raw) else [raw]
            for der in blobs:
                cert = asn1_x509.Certificate.load(der)
                _ = cert.subject.human_friendly
                roots.append(cert)
        except Exception as exc:
            raise InputError("--tsa-root", f"{path} is not a certificate ({str(exc)[:60]})",
                             "give the TSA's root certificate as PEM or DER") from exc
    return roots


def _encode(token: Any) -> str:
    return base64.b64encode(token.dump()).decode("ascii")


def _decode(text: str) -> Any:
    from asn1crypto import (
        cms,
        tsp,  # noqa: F401  (registers TSTInfo, so the token's content parses as one)
    )

    token = cms.ContentInfo.load(base64.b64decode(text, validate=True))
    _ = token["content"]["encap_content_info"]
    return token


# ----- stamping a journal -----------------------------------------------------------------------------


def stamp(journal: str | Path, url: str, *, roots: list[Any] | None = None, by: str | None = None,
          timeout: float = TIMEOUT) -> dict[str, Any]:
    """Ask the TSA at ``url`` for a token over the journal's head and append it as a
    ``timestamp.token`` event (at the token's time); returns the event written.

    The token is checked before anything is written: it must be over the head asked for, its
    signature must hold and, with ``roots``, its TSA must be trusted. The head is read again
    under the append lock: if another event arrived meanwhile, the token still covers the head
    it was asked for, which the event names.
    """
    from day60 import journal as jr

    journal = Path(journal)
    head = _head(journal)
    digest = bytes.fromhex(head["hash"])
    asked = dt.datetime.now(dt.UTC)
    token = request_token(url, digest, timeout)
    answered = dt.datetime.now(dt.UTC)
    checked = check_token(token, digest, roots)
    if checked.problems:
        raise InputError("--tsa", f"the token from {url} was refused: {'; '.join(checked.problems)}",
                         "nothing was written; check the TSA and its root certificate")
    problem = clock_problem(checked.at, _accuracy(token), asked, answered, head)
    if problem:
        raise InputError("--tsa", f"the token from {url} was refused: {problem}",
                         "nothing was written; a token the journal's own clock contradicts would make 'day60 "
                         "verify' fail for ever: set this machine's clock right (or use a TSA whose clock is), "
                         "then stamp again")
    data = {"covers_seq": head["seq"], "covers_hash": head["hash"], "tsa": url[:2000], "token": _encode(token)}
    return jr.append(journal, KIND, f"head-{head['seq']}", checked.at.astimezone(dt.UTC), data, by)


def clock_problem(at: dt.datetime, accuracy: dt.timedelta, asked: dt.datetime, answered: dt.datetime,
                  head: dict[str, Any]) -> str | None:
    """Why a token's time cannot stand beside this journal's clock, or None. The TSA issued it
    between the moment it was asked (``asked``) and the moment it answered (``answered``), by this
    machine's clock, which writes the journal's recorded times; and the line it stamps already
    existed. Beyond the token's stated accuracy plus CLOCK_SLACK either way, the two clocks
    disagree, and the token's event (recorded by this clock) would contradict the token for ever."""
    slack = accuracy + CLOCK_SLACK
    words = f"its time accurate to {accuracy.total_seconds():g} s, plus {CLOCK_SLACK.total_seconds():g} s allowed"
    if at < asked - slack or at > answered + slack:
        side = "behind" if at < asked - slack else "ahead of"
        return (f"the TSA says {at.isoformat()}, but this machine's clock read {asked.isoformat()} when it asked "
                f"and {answered.isoformat()} when it answered: the TSA's clock is {side} this machine's by more "
                f"than the token allows ({words})")
    recorded = head.get("recorded_at")
    if recorded is not None and recorded > at + slack:
        return (f"the line it stamps (seq {head['seq']}) says it was recorded at {recorded.isoformat()}, later than "
                f"the TSA says it existed ({at.isoformat()}; {words})")
    return None


STAMP_WHEN = ("close", "every")


def checklist_options(tsa: str | None, when: str, root_paths: list[Path]) -> list[Any]:
    """``--tsa``, ``--stamp`` and ``--tsa-root`` as ``live`` and ``serve`` take them, checked before
    anything starts; returns the trusted roots loaded."""
    if when not in STAMP_WHEN:
        raise InputError("--stamp", f"{when!r} is not offered", "use close or every")
    if tsa is not None:
        check_url(tsa)
    elif when != "close" or root_paths:
        raise InputError("--stamp/--tsa-root", "only apply with --tsa", "add --tsa URL, or drop them")
    return load_roots(root_paths)


def due(events: list[dict[str, Any]], when: str) -> bool:
    """Whether a checklist stamping at the close (``when`` "close": the close and every line after
    it, reveals and corrections) or after every event ("every") owes a stamp now: the last line
    is not itself a token, and with "close" the exercise is closed."""
    if not events or events[-1].get("kind") == KIND:
        return False
    return when == "every" or any(e.get("kind") == "exercise.close" for e in events)


def stamp_if_due(journal: str | Path, url: str, when: str, roots: list[Any] | None = None,
                 timeout: float = TIMEOUT) -> tuple[dict[str, Any] | None, str | None]:
    """For ``live`` and ``serve`` with ``--tsa``: stamp the head if ``due``; returns the token
    event written (or None) and, when the TSA failed, why (the events already written stand)."""
    from day60 import journal as jr

    if not due(jr.read(journal).events, when):
        return None, None
    try:
        return stamp(journal, url, roots=roots, timeout=timeout), None
    except InputError as exc:
        return None, exc.problem


def _head(path: Path) -> dict[str, Any]:
    """The journal's head: the seq and own hash of its last complete line, read from the tail (its
    own hash checked; the chain before it is ``verify``'s to check)."""
    import os

    from day60 import journal as jr
    from day60.files import MAX_JOURNAL_BYTES, open_regular

    fd = open_regular(path, "JOURNAL", "a journal made by 'day60 new'", MAX_JOURNAL_BYTES)
    try:
        size = os.fstat(fd).st_size
        chunk, start = b"", size
        while start > 0 and chunk.count(b"\n") < 2:
            start = max(0, start - 65536)
            chunk = os.pread(fd, size - start, start)
    finally:
        os.close(fd)
    if not chunk.endswith(b"\n"):
        raise InputError("JOURNAL", f"{path} is empty or ends with a partial line",
                         f"run 'day60 verify --repair {path}' first")
    line = chunk[:-1].rsplit(b"\n", 1)[-1].decode("utf-8", "replace")
    try:
        obj = json.loads(line)
        ok = isinstance(obj, dict) and jr.own_hash(line, obj) == obj.get("hash")
    except ValueError:
        ok = False
    if not ok:
        raise InputError("JOURNAL", f"{path}: its last line is not as day60 wrote it", f"run 'day60 verify {path}'")
    recorded = obj.get("recorded_at", obj.get("created_at"))
    try:
        when = dt.datetime.fromisoformat(recorded) if isinstance(recorded, str) else None
    except ValueError:
        when = None
    return {"seq": obj.get("seq", 0) if "seq" in obj else 0, "hash": obj["hash"],
            "recorded_at": when if when is not None and when.tzinfo is not None else None}


def token_file(event: dict[str, Any], header_hash: str) -> dict[str, Any]:
    """The token as a file to keep apart from the journal (``stamp --out``)."""
    return {"format": TOKEN_FORMAT, "journal_header": header_hash, "covers_seq": event["data"]["covers_seq"],
            "covers_hash": event["data"]["covers_hash"], "tsa": event["data"]["tsa"], "at": event["at"],
            "token": event["data"]["token"], "appended_as_seq": event["seq"]}


# ----- checking a journal's tokens ----------------------------------------------------------------------


@dataclass
class Proof:
    """One token and what it showed."""

    seq: int | None  # the token's own event, or None for a token held apart
    covers_seq: int
    covers_hash: str
    tsa_url: str
    check: TokenCheck


def _lines(path: Path, numbers: set[int]) -> dict[int, bytes]:
    found: dict[int, bytes] = {}
    if not numbers:
        return found
    with path.open("rb") as fh:
        for n, raw in enumerate(fh):
            if n in numbers:
                found[n] = raw.rstrip(b"\n")
                if len(found) == len(numbers):
                    break
    return found


def _seq_of(path: Path, digest: str) -> int | None:
    """The seq of the line whose own hash is ``digest`` (0 for the header), or None."""
    member = f'"hash":"{digest}"'.encode()
    with path.open("rb") as fh:
        for n, raw in enumerate(fh):
            if member in raw and raw.endswith(b"\n"):
                try:
                    if json.loads(raw).get("hash") == digest:
                        return n
                except (ValueError, AttributeError):
                    return None
    return None


def _token_events(path: Path) -> tuple[list[dict[str, Any]], int, str]:
    """Every timestamp.token event (found by its kind in the canonical line), the last seq and the header hash."""
    marker = f'"kind":"{KIND}"'.encode()
    events, last, header = [], 0, ""
    with path.open("rb") as fh:
        for n, raw in enumerate(fh):
            if not raw.endswith(b"\n"):
                break
            if n == 0:
                header = json.loads(raw).get("hash", "")
                continue
            last = n
            if marker in raw:
                obj = json.loads(raw)
                if obj.get("kind") == KIND:
                    events.append(obj)
    return events, last, header


CLOCK_SLACK = dt.timedelta(seconds=2)  # beyond a token's own stated accuracy, for two clocks' drift


def _accuracy(token: Any) -> dt.timedelta:
    """The accuracy a token states for its time (RFC 3161 accuracy), or one second when it states none."""
    try:
        info = token["content"]["encap_content_info"]["content"].parsed
        acc = info["accuracy"]
        if acc.native is None:
            return dt.timedelta(seconds=1)
        parts = acc.native
        return dt.timedelta(seconds=parts.get("seconds") or 0, milliseconds=parts.get("millis") or 0,
                            microseconds=parts.get("micros") or 0)
    except Exception:
        return dt.timedelta(seconds=1)


def _imprint(token: Any) -> str | None:
    """The SHA-256 hash a token is over, as hex (None if it names another algorithm or cannot be read)."""
    try:
        imprint = token["content"]["encap_content_info"]["content"].parsed["message_imprint"]
        if imprint["hash_algorithm"]["algorithm"].native != "sha256":
            return None
        return bytes(imprint["hashed_message"].native).hex()
    except Exception:
        return None


def _recorded(line: bytes) -> dt.datetime | None:
    try:
        value = json.loads(line).get("recorded_at")
        return dt.datetime.fromisoformat(value) if isinstance(value, str) else None
    except (ValueError, AttributeError):
        return None


def check(path: str | Path, roots: list[Any] | None = None, held: list[dict[str, Any]] | None = None,
          found: tuple[list[dict[str, Any]], int, str] | None = None) -> tuple[list[Proof], list[str]]:
    """Every token in a journal (that ``verify`` has found whole) and every token file in ``held``,
    checked against the line it covers. Returns the proofs and the problems (a problem is a
    failed check: exit 1).

    A token's own imprint (signed by the TSA) decides who is at fault when the line differs: a
    token over the hash its event or file names, where the journal's line now has another, means
    the journal was rewritten; a token over another hash than its event or file names means the
    event or file was edited. A line whose recorded time is later than the token proves it existed
    (beyond the token's accuracy and two seconds), or a token event recorded before the TSA issued
    the token, means the journal's recorded times were not its clock's.

    ``found``: the token events, the last seq and the header's hash, where ``verify`` has them
    already (the engine parsed every line that is not an incident's), as ``_token_events`` would
    find them in the file; without it they are looked for in the file."""
    path = Path(path)
    events, last, header = found if found is not None else _token_events(path)
    problems: list[str] = []
    wanted = []
    for e in events:
        d = e["data"]
        wanted.append((e["seq"], d["covers_seq"], d["covers_hash"], d["tsa"], d["token"], e["at"], e["recorded_at"]))
    for i, item in enumerate(held or []):
        where = f"token file {i + 1}"
        if item.get("journal_header") != header:
            problems.append(f"{where} was made for another journal, or for this one before it was rewritten from "
                            f"its first line (the file names header {item['journal_header'][:16]}...; this journal's "
                            f"header hashes to {header[:16]}...)")
            continue
        if item["covers_seq"] > last:
            problems.append(f"{where} proves that seq {item['covers_seq']} existed, but the journal now ends at seq "
                            f"{last}: it was cut short below a stamped head")
            continue
        wanted.append((None, item["covers_seq"], item["covers_hash"], item["tsa"], item["token"], item["at"], None))
    lines = _lines(path, {w[1] for w in wanted})
    proofs = []
    checkpoints: list[tuple[int, dt.datetime, dt.timedelta, str]] = []
    for seq, covers, digest, url, text, at, recorded_at in wanted:
        where = f"the token at seq {seq}" if seq is not None else "the token held apart"
        named = "its event" if seq is not None else "its file"
        try:
            token = _decode(text)
        except Exception:
            problems.append(f"{where} holds no readable token")
            continue
        imprint = _imprint(token)
        if imprint is not None and imprint != digest:
            problems.append(f"{where} is over another hash ({imprint[:16]}...) than {named} names (seq {covers}, "
                            f"{digest[:16]}...): {named} was edited")
            continue
        line = lines.get(covers)
        actual = json.loads(line).get("hash") if line else None
        if actual != digest:
            elsewhere = _seq_of(path, digest)
            if elsewhere is not None:
                problems.append(f"{where}: {named} says it covers seq {covers}, but the hash it covers is the one of "
                                f"seq {elsewhere}: {named} was edited")
            else:
                problems.append(f"{where} covers seq {covers} with hash {digest[:16]}..., but the journal's line "
                                f"{covers + 1} has {str(actual)[:16]}...: the journal was rewritten after it was "
                                "stamped")
            continue
        result = check_token(token, bytes.fromhex(digest), roots)
        if result.at is not None and dt.datetime.fromisoformat(at) != result.at:
            result.problems.append(f"{named} says {at}, but the token's own time is {result.at.isoformat()}")
        if result.at is not None and not result.problems:
            slack = _accuracy(token) + CLOCK_SLACK
            written = _recorded(line)
            if written is not None and written > result.at + slack:
                result.problems.append(f"the line it stamps (seq {covers}) says it was recorded at "
                                       f"{written.isoformat()}, later than the token proves it existed "
                                       f"({result.at.isoformat()}): the journal's recorded times are not its clock's "
                                       "(set ahead, or typed)")
            if recorded_at is not None and dt.datetime.fromisoformat(recorded_at) < result.at - slack:
                result.problems.append(f"its event says it was recorded at {recorded_at}, before the TSA issued the "
                                       f"token ({result.at.isoformat()}): the journal's recorded times are not its "
                                       "clock's (set back, or typed)")
        if result.at is not None and not result.problems:
            checkpoints.append((covers, result.at, _accuracy(token) + CLOCK_SLACK, where))
        problems += [f"{where}: {p}" for p in result.problems]
        proofs.append(Proof(seq, covers, digest, url, result))
    problems += _later_than_proven(path, checkpoints)
    return proofs, problems


def _later_than_proven(path: Path, checkpoints: list[tuple[int, dt.datetime, dt.timedelta, str]]) -> list[str]:
    """Lines that name an instant (when it happened, or when it was recorded) later than a token
    proves the line already existed, beyond the token's accuracy and CLOCK_SLACK: a line cannot
    hold a time that had not yet come when a third party saw it. One pass over the journal for all
    the tokens, keeping the latest instant seen so far; for each token the line holding the latest
    instant it covers is named (the stamped line's own recorded time is named by ``check``)."""
    if not checkpoints:
        return []
    order = sorted(checkpoints, key=lambda c: c[0])
    problems: list[str] = []
    latest: tuple[dt.datetime, int, str, str] | None = None  # instant, line, field, kind
    at_checkpoint = 0
    with path.open("rb") as fh:
        for n, raw in enumerate(fh):
            if not raw.endswith(b"\n"):
                break
            obj = json.loads(raw)
            kind = str(obj.get("kind", "header"))
            own = [(when, n, name, kind) for name in (("created_at",) if n == 0 else ("at", "recorded_at"))
                   if (when := _when(obj.get(name))) is not None]
            while at_checkpoint < len(order) and order[at_checkpoint][0] == n:
                _covers, at, slack, where = order[at_checkpoint]
                candidates = [x for x in own if x[2] != "recorded_at"] + ([latest] if latest else [])
                late = max(candidates, default=None, key=lambda x: x[0])
                if late is not None and late[0] > at + slack:
                    when, line, name, kind_of = late
                    said = "happened" if name == "at" else "was recorded" if name == "recorded_at" else "was created"
                    problems.append(f"{where}: line {line + 1} ({kind_of}, seq {line}) says it {said} at "
                                    f"{when.isoformat()}, later than the token proves it already existed "
                                    f"({at.isoformat()}): the journal's times are not its clock's (set ahead, "
                                    "typed, or the line was written before the instant it names)")
                at_checkpoint += 1
            if at_checkpoint == len(order):
                break
            for item in own:
                if latest is None or item[0] > latest[0]:
                    latest = item
    return problems


def _when(value: Any) -> dt.datetime | None:
    if not isinstance(value, str):
        return None
    try:
        when = dt.datetime.fromisoformat(value)
    except ValueError:
        return None
    return when if when.tzinfo is not None else None


def read_token_file(path: str | Path) -> dict[str, Any]:
    """A token file written by ``stamp --out``, its fields checked."""
    import re

    from day60.files import read_json

    data = read_json(path, "--token", "a token file written by 'day60 stamp --out'")
    fix = "give the file 'day60 stamp --out' wrote, unchanged"
    if not isinstance(data, dict) or data.get("format") != TOKEN_FORMAT:
        raise InputError("--token", f"{path} is not a token file written by 'day60 stamp --out' (it names no format "
                                    f"{TOKEN_FORMAT})", fix)
    wrong = []
    seq = data.get("covers_seq")
    if not isinstance(seq, int) or isinstance(seq, bool) or seq < 0:
        wrong.append("covers_seq (a seq: a whole number, 0 or more)")
    for key in ("journal_header", "covers_hash"):
        if not isinstance(data.get(key), str) or not re.fullmatch(r"[0-9a-f]{64}", data[key]):
            wrong.append(f"{key} (a SHA-256: 64 lowercase hex digits)")
    if not isinstance(data.get("tsa"), str):
        wrong.append("tsa (the authority's URL)")
    if not _instant(data.get("at")):
        wrong.append("at (an ISO 8601 instant with its offset)")
    token = data.get("token")
    if not isinstance(token, str) or len(token) > 65536 or not re.fullmatch(r"[A-Za-z0-9+/]+={0,2}", token):
        wrong.append("token (the RFC 3161 token, base64)")
    if wrong:
        raise InputError("--token", f"{path} is not as 'day60 stamp --out' writes it: wrong or missing "
                                    f"{'; '.join(wrong)}", fix)
    return data


def _instant(value: Any) -> bool:
    try:
        return isinstance(value, str) and dt.datetime.fromisoformat(value).tzinfo is not None
    except ValueError:
        return False


def uncovered(proofs: list[Proof], events: int) -> tuple[int, list[int]]:
    """How far the tokens reach in a journal of ``events`` events: the highest seq a token covers,
    and the seqs after it that no token covers (a token's own event is not counted: it cannot cover
    itself). ``proofs`` must not be empty."""
    covered = max(p.covers_seq for p in proofs)
    stamps = {p.seq for p in proofs if p.seq is not None}
    return covered, [seq for seq in range(covered + 1, events + 1) if seq not in stamps]


def describe(proof: Proof) -> str:
    """What one token proves, in a sentence."""
    c = proof.check
    who = f"{c.tsa} (certificate SHA-256 {c.tsa_certificate_sha256[:16]}...)" if c.tsa else "an unnamed TSA"
    source = f"token at seq {proof.seq}" if proof.seq is not None else "token held apart"
    trust = "trusted under the roots given" if c.trusted else "; ".join(c.notes) or "not trusted"
    span = "the header" if proof.covers_seq == 0 else f"the header and events 1 to {proof.covers_seq}"
    return (f"{source}: {span} (head {proof.covers_seq}:{proof.covers_hash[:16]}...) existed by "
            f"{c.at.isoformat() if c.at else 'an unknown time'}, on the word of {who}, {proof.tsa_url}; {trust}")

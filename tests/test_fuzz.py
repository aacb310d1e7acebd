"""Bounded fuzzing: a valid input with one value replaced (or dropped), fed to its command with a
good or a hostile output path. Whatever the input, the command must answer as the README says:
exit 0, 1 or 2; never a traceback; one stderr line for exit 2; no input changed; no output
written when it refuses; valid JSON (no NaN) when it prints JSON.
"""

import hashlib
import json
import os
import tempfile
import tomllib
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import example as pinned  # day60.resources has an example() too
from hypothesis import strategies as st
from typer.testing import CliRunner

from day60 import demo
from day60 import journal as jr
from day60.cli import app
from day60.resources import data_dir, example
from tests.budget import examples
from tests.mutate import NASTY, drop, paths, replace, to_json, to_toml

SOW = data_dir("clauses") / "examples" / "synthetic-sow.toml"

# name: (document, file suffix, command taking IN and OUT paths)
DOCUMENTS = {
    "deal": (tomllib.loads(SOW.read_text()), "toml", lambda i, o: ["clauses", "export", "--sow", i, "--md", o]),
    "calendar": (tomllib.loads(example("uk-office.toml").read_text()), "toml",
                 lambda i, o: ["hours", "-c", i, "2026-03-27T16:00", "2026-03-30T10:00", "--format", "json"]),
    "answers": (json.loads((data_dir("selfassess") / "examples" / "synthetic-answers.json").read_text()), "json",
                lambda i, o: ["selfassess", "--answers", i, "--format", "json", "--html", o]),
    "suite": (json.loads((data_dir("rubric") / "voice" / "voice_starter.json").read_text()), "json",
              lambda i, o: ["voice", "bench", i, "--reference", "--out", o]),
    "drills": (json.loads((data_dir("rubric") / "voice" / "examples" / "synthetic-drills.json").read_text()), "json",
               lambda i, o: ["voice", "drills", i, "--format", "json"]),
    "dialogue": (json.loads((data_dir("rubric") / "voice" / "voice_starter.json").read_text())["tasks"][0]
                 ["reference_dialogue"], "json", lambda i, o: ["voice", "score", i, "--format", "json"]),
    "figures": ({"drift-notice": {"value": 3.5, "n": 2}, "rollback": {"value": 20, "n": 1},
                 "report-completeness": {"value": 90, "n": 10}}, "json",
                lambda i, o: ["comply", "--sow", str(SOW), "--figures", i, "--format", "json"]),
}
CHOICES = [(name, p) for name, (doc, _, _) in DOCUMENTS.items() for p in paths(doc)]
OUTPUTS = ["good", "missing-folder", "the-input", "a-folder", "/dev/full", "through-a-file"]
VALUES = st.one_of(st.sampled_from(NASTY), st.none(), st.booleans(), st.integers(),
                   st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=30),
                   st.lists(st.integers(), max_size=3), st.dictionaries(st.text(max_size=5), st.integers(), max_size=2))

runner = CliRunner()


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def check(result, inputs: dict[Path, str], folder: Path, before: set[str], wrote_json: bool) -> None:
    err = result.stderr
    assert result.exit_code in (0, 1, 2), (result.exit_code, result.output)
    assert "Traceback" not in result.output and "internal fault" not in err, err
    if result.exit_code == 2:
        assert err.count("\n") == 1 and err.startswith("error: "), err
        assert {p.name for p in folder.iterdir()} == before, "a refused command wrote something"
    for path, digest in inputs.items():
        assert sha(path) == digest, f"{path.name} changed"
    assert not [p for p in folder.iterdir() if p.name.endswith(".tmp")], "a temporary file was left behind"
    if result.exit_code in (0, 1) and wrote_json and result.stdout.strip():
        constants: list[str] = []
        json.loads(result.stdout, parse_constant=constants.append)
        assert not constants, constants


# 300 in ci: at 150 the drawn values missed a turn time given as text (the voice check of a
# time's type dropped: an internal fault), which 300 caught; the two examples pin that case.
@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@pinned(choice=("suite", ("tasks", 0, "reference_dialogue", 0, "start_ms")), value="", dropped=False, output="good")
@pinned(choice=("dialogue", (0, "end_ms")), value=[1], dropped=False, output="good")
@given(choice=st.sampled_from(CHOICES), value=VALUES, dropped=st.booleans(), output=st.sampled_from(OUTPUTS))
def test_documents_with_one_strange_value(choice, value, dropped, output):
    name, where = choice
    doc, suffix, command = DOCUMENTS[name]
    changed = drop(doc, where) if dropped else replace(doc, where, value)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        source = folder / f"input.{suffix}"
        source.write_text(to_json(changed) if suffix == "json" else to_toml(changed))
        (folder / "sub").mkdir()
        (folder / "plain").write_text("x")
        out = {"good": folder / "out.txt", "missing-folder": folder / "nope" / "out.txt", "the-input": source,
               "a-folder": folder / "sub", "/dev/full": Path("/dev/full"),
               "through-a-file": folder / "plain" / "out.txt"}[output]
        args = [str(a) for a in command(str(source), str(out))]
        before = {p.name for p in folder.iterdir()}
        inputs = {source: sha(source), folder / "plain": sha(folder / "plain")}
        result = runner.invoke(app, args)
        check(result, inputs, folder, before, "json" in args)


_LINES: list[dict] = []


def _demo_lines() -> list[dict]:
    if not _LINES:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "exercise.jsonl"
            demo.build_journal(path)
            _LINES.extend(json.loads(line) for line in path.read_text().splitlines())
    return _LINES


def _rechain(lines: list) -> str:
    out, prev = [], None
    for i, obj in enumerate(lines):
        if isinstance(obj, dict):
            if i:
                obj = {**obj, "prev": hashlib.sha256(prev.encode()).hexdigest()}
            obj = jr.with_hash(obj)
        prev = jr.canonical(obj) if isinstance(obj, dict) else to_json(obj)
        out.append(prev)
    return "\n".join(out) + "\n"


JOURNAL_COMMANDS = [["show", "J", "--format", "json"], ["metrics", "J", "--format", "json"],
                    ["score", "J", "--format", "json"], ["verify", "J"], ["comply", "J", "--sow", str(SOW)],
                    ["log", "J", "incident.communicated", "--id", "X1", "--at", "2026-10-01T10:00+00:00"]]


@settings(max_examples=examples(120), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), value=VALUES, command=st.sampled_from(JOURNAL_COMMANDS), cut=st.booleans())
def test_forged_journals_with_one_strange_value(data, value, command, cut):
    """A forger edits one value and re-chains every hash; or a file is cut anywhere."""
    lines = _demo_lines()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        journal = folder / "j.jsonl"
        text = _rechain(lines)
        if cut:
            journal.write_bytes(text.encode()[: data.draw(st.integers(0, len(text.encode())))])
        else:
            index = data.draw(st.integers(0, len(lines) - 1))
            where = data.draw(st.sampled_from(paths(lines[index])))
            changed = list(lines)
            changed[index] = replace(lines[index], where, value)
            try:
                journal.write_text(_rechain(changed))
            except (TypeError, ValueError, OverflowError):
                journal.write_text(text)  # a value JSON cannot even hold; the original stands
        args = [str(journal) if a == "J" else a for a in command]
        before = {p.name for p in folder.iterdir()}
        digest = sha(journal)
        result = runner.invoke(app, args)
        if command[0] != "log" or result.exit_code != 0:
            check(result, {journal: digest}, folder, before, "json" in args)
        else:
            assert os.path.getsize(journal) > 0 and jr.verify(journal).ok


def test_a_forged_null_instant_is_refused_on_every_kind_but_a_sealed_onset():
    """A forger sets one event's "at" to null and re-chains every hash. Only a sealed drift.onset
    may have no instant; on any other kind the journal is refused with one line naming the fault
    (exit 2). The property test above draws this edit about once in 500 examples (measured), and
    with the check dropped some kinds crash ('<' between None and a datetime) while others (a
    communication, a report element, the close) are read as if the event had no time at all."""
    lines = _demo_lines()
    for kind in sorted({line["kind"] for line in lines[1:]} - {"drift.onset"}):  # 23 kinds
        index = next(i for i, line in enumerate(lines) if i and line["kind"] == kind)
        changed = list(lines)
        changed[index] = replace(lines[index], ("at",), None)
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp)
            journal = folder / "j.jsonl"
            journal.write_text(_rechain(changed))
            digest, before = sha(journal), {p.name for p in folder.iterdir()}
            result = runner.invoke(app, ["metrics", str(journal), "--format", "json"])
            check(result, {journal: digest}, folder, before, True)
            assert result.exit_code == 2 and f"line {index + 1}: at is null" in result.stderr, (kind, result.stderr)

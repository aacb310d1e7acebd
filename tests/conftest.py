import pytest
from typer.testing import CliRunner

from day60.cli import app


@pytest.fixture
def run():
    """Invoke the CLI in-process; returns click's Result (exit_code, stdout, stderr)."""
    runner = CliRunner()

    def _run(*args, **kwargs):
        return runner.invoke(app, [str(a) for a in args], **kwargs)

    return _run


@pytest.fixture
def pipe():
    """A prompt_toolkit pipe input made current, so questionary prompts read from it."""
    from prompt_toolkit.application import create_app_session
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    with create_pipe_input() as inp, create_app_session(input=inp, output=DummyOutput()):
        yield inp

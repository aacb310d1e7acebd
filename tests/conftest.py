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

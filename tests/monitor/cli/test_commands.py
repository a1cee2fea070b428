"""Every command is registered once, in the order `sumwatch --help` lists them, and answers --help."""

import pytest
import typer
from typer.testing import CliRunner

from sumwatch.monitor.cli import app

COMMANDS = ["up", "worker", "ingest", "sample", "scores", "cluster", "calibrate", "demo", "doctor", "judges",
            "db", "traces", "corpus", "issues"]
SUBCOMMANDS = {"db": ["migrate", "ddl"], "traces": ["show"], "corpus": ["list", "label", "export", "import"],
               "issues": ["show"]}


def test_the_command_tree():
    root = typer.main.get_command(app)
    assert list(root.commands) == COMMANDS
    assert {name: list(root.commands[name].commands) for name in SUBCOMMANDS} == SUBCOMMANDS


@pytest.mark.parametrize("path", [[]] + [[c] for c in COMMANDS] + [[g, c] for g, cs in SUBCOMMANDS.items() for c in cs])
def test_every_command_answers_help(path):
    result = CliRunner().invoke(app, [*path, "--help"])
    assert result.exit_code == 0 and "Usage:" in result.stdout and "--help" in result.stdout

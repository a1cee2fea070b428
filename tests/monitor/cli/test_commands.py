"""Every command is registered once, in the order `sumwatch --help` lists them, and answers --help."""

import pytest
import typer
from typer.testing import CliRunner

from sumwatch.monitor.cli import app

COMMANDS = ["up", "worker", "ingest", "sample", "rescore", "scores", "cluster", "calibrate", "demo", "doctor", "config",
            "judges", "export", "send-scores", "db", "traces", "corpus", "dataset", "issues", "judge", "alerts",
            "experiment"]
SUBCOMMANDS = {"db": ["migrate", "ddl"], "traces": ["unsure", "show"],
               "corpus": ["list", "label", "add", "agreement", "resolve", "export", "import"],
               "dataset": ["import", "list", "show", "export", "from-issue", "from-traces", "from-corpus"],
               "issues": ["show", "resolve", "reopen", "ignore", "unignore", "mute", "unmute", "merge", "unmerge",
                          "assign", "comment"], "judge": ["list", "show", "diff", "history", "test", "promote"],
               "alerts": ["check"], "experiment": ["run", "score", "list", "show", "compare", "compare-live"]}


def test_the_command_tree():
    root = typer.main.get_command(app)
    assert list(root.commands) == COMMANDS
    assert {name: list(root.commands[name].commands) for name in SUBCOMMANDS} == SUBCOMMANDS


@pytest.mark.parametrize("path", [[]] + [[c] for c in COMMANDS] + [[g, c] for g, cs in SUBCOMMANDS.items() for c in cs])
def test_every_command_answers_help(path):
    result = CliRunner().invoke(app, [*path, "--help"])
    assert result.exit_code == 0 and "Usage:" in result.stdout and "--help" in result.stdout


def _commands(command, path=()):
    yield path, command
    for name, sub in getattr(command, "commands", {}).items():
        yield from _commands(sub, (*path, name))


def test_every_command_argument_and_option_says_what_it_does():
    missing = [(" ".join(path), p.opts[0]) for path, command in _commands(typer.main.get_command(app))
               for p in command.params if not (p.help or "").strip()]
    assert missing == []
    assert all((command.help or "").strip() for _, command in _commands(typer.main.get_command(app)))


def test_flags_take_no_value_so_help_shows_no_bool_type():
    flags = [(" ".join(path), p.opts[0]) for path, command in _commands(typer.main.get_command(app))
             for p in command.params if getattr(p, "is_flag", False)]
    assert ("up", "--worker") in flags and ("ingest", "--allow-partial") in flags and ("traces", "--json") in flags
    for path, _ in _commands(typer.main.get_command(app)):
        shown = CliRunner().invoke(app, [*path, "--help"], terminal_width=200).stdout
        rows = [line for line in shown.splitlines() if "<bool>" in line]
        assert [row.split()[1] for row in rows] == ["--help"], (path, rows)  # only click's own help flag

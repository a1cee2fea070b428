"""`sumwatch demo` away from a terminal (a log, CI, a pipe): a line per stage as it goes, then how to open the
dashboard on what it stored."""

import io
import re

from typer.testing import CliRunner

from sumwatch.monitor.cli import app
from sumwatch.monitor.cli.demo import StageLines

runner = CliRunner()


def test_each_stage_is_one_line_with_its_count_and_time_and_sub_stages_fold_into_clustering():
    ticks = iter([0.0, 2.4, 14.6, 35.0])
    stream = io.StringIO()
    lines = StageLines(stream, 400, 3, clock=lambda: next(ticks))
    for done in (1, 200):
        lines("summarizing", done, 400)
    assert stream.getvalue() == "[1/3] summarizing 400 calls ..."  # started, visible before the stage ends
    lines("summarizing", 400, 400)  # ends with its last call, not when the next stage first reports
    lines("scoring", 10, 400)
    lines("scoring", 400, 400)
    for stage in ("clustering: embed", "clustering: reduce", "clustering"):
        lines(stage, 1, 2)
    lines.finish()
    assert stream.getvalue().splitlines() == [
        "[1/3] summarizing 400 calls ... done in 2 s",
        "[2/3] scoring 400 spans ... done in 12 s",
        "[3/3] clustering the failing spans ... done in 20 s",
    ]


def test_demo_off_a_terminal_prints_its_stages_and_ends_with_the_dashboard_command(cli_env, store):
    result = runner.invoke(app, ["demo", "--n", "8", "--no-score"], env={**cli_env, "SUMWATCH_EMBEDDINGS": "false"},
                           catch_exceptions=False)
    assert result.exit_code == 0, result.stderr
    assert re.fullmatch(r"\[1/1\] summarizing 8 calls \.\.\. done in \d+ s\n", result.stderr)
    last = result.stdout.strip().splitlines()[-1]
    assert last.startswith("open the dashboard: `sumwatch up` and browse http://127.0.0.1:4318/"), last
    assert "`sumwatch demo --serve`" in last

"""Terminal views at 80 columns: every line fits, issue titles and fixes wrap between words instead of being
cut, and each listing still prints JSON with --json."""

import json
import re
from datetime import datetime, timezone

import numpy as np
import pytest
from typer.testing import CliRunner

from sumwatch.monitor.cli import _shared, app
from sumwatch.monitor.store.exports import FAILED, SYNCED, ExportRow, save_export
from sumwatch.monitor.store.issue_members import REPRESENTATIVE, MemberRow, save_members
from sumwatch.monitor.store.issues import IssueState, save_states
from sumwatch.monitor.store.runs import RunRow, save_run

runner = CliRunner()
NOW = datetime(2026, 11, 20, 12, 0, tzinfo=timezone.utc)
TITLES = ["Summaries invent quarterly revenue figures that the [source] never states",
          "Named executives are swapped for competitors mentioned elsewhere in the filing"]
GITHUB_URL = "https://github.com/example-org/summaries-service/issues/4242"
FIXES = ["Copy every figure verbatim from the source document", "Quote names exactly as the source spells them"]


@pytest.fixture
def narrow_store(store, rules_cascade, monkeypatch):
    """Demo traces scored by the rules and a clustering run with two long-titled issues; output 80 wide."""
    from sumwatch.monitor.demo.run import run_demo
    from sumwatch.monitor.scoring.sampler import Sampler

    demo = run_demo(store, n=6)
    Sampler(store, rules_cascade).run_pass()
    trace_ids = [e["trace_id"] for e in demo.examples]
    states = [IssueState(n, f"SW-{n}", title, "Figures differ from the source.", "The model rewrites them.", fix,
                         "critical", "groundedness", "number_mismatch", ["number"], "regressed", 1234, 1234, 0.12, 0,
                         NOW, NOW, np.ones(4, dtype=np.float32) / 2, "all-MiniLM-L6-v2", "KeywordNamer")
              for n, title, fix in zip((11, 12), TITLES, FIXES)]
    save_states(store, states, "run-1", NOW)
    save_members(store, [MemberRow("run-1", 11, trace_ids[0], "0" * 16, NOW, service_name="svc",
                                   rubric="groundedness", verdict="contradicted", failure_mode="number_mismatch",
                                   membership=0.9, role=REPRESENTATIVE, evidence='summary: "21%" | source: "12%"',
                                   failure_text="groundedness contradicted", run_at=NOW)])
    save_run(store, RunRow("run-1", NOW, NOW, NOW, NOW, failures=6, clustered=2, noise=4, issues=2, new_issues=2,
                           embedded=0, promoted=0, namer="KeywordNamer", embedding_model="all-MiniLM-L6-v2",
                           seconds=1.5))
    save_export(store, ExportRow(11, "github", "4242", GITHUB_URL, SYNCED, "closed"))
    save_export(store, ExportRow(11, "jira", phase=FAILED, error="jira: 401 unauthorized: check SUMWATCH_JIRA_EMAIL "
                                                                 "and SUMWATCH_JIRA_TOKEN"))
    save_export(store, ExportRow(11, "slack", url="https://hooks.slack.com/services/T0/B0/secret-part", phase=SYNCED))
    monkeypatch.setattr(_shared.out, "width", 80)
    return trace_ids


def _words(text):
    return [w for w in re.split(r"\s+", text) if w]


@pytest.mark.parametrize("args", [["issues"], ["issues", "show", "SW-11"], ["traces"], ["scores"],
                                  ["corpus", "list", "--status", "labelled", "-n", "5"]])
def test_every_view_fits_80_columns(narrow_store, cli_env, args):
    result = runner.invoke(app, args, env=cli_env, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines and max(len(line) for line in lines) <= 80, "\n".join(line for line in lines if len(line) > 80)
    cropped = [line for line in lines if line[:1] in "┏┃┡│└" and line.rstrip()[-1:] not in "┓┃┩│┘"]
    assert not cropped, "\n".join(cropped)  # the table's right edge is on screen
    if args[0] != "traces":  # (traces cuts its summary previews on purpose, at 140 characters)
        assert "…" not in result.stdout  # nothing cut short
    for trace_id in narrow_store if args[0] in ("traces", "scores") else ():
        assert trace_id in result.stdout  # ids whole, on one line


def test_issue_titles_and_fixes_wrap_between_words_at_80_columns(narrow_store, cli_env):
    shown = runner.invoke(app, ["issues"], env=cli_env, catch_exceptions=False).stdout
    cells = " ".join(line.split("│")[-2] for line in shown.splitlines() if line.count("│") >= 6)
    for text in TITLES + FIXES:  # each title's words appear whole and in order in the title column
        assert " ".join(_words(cells)).find(" ".join(_words(text))) >= 0, text
    assert "SW-11" in shown and "regressed" in shown and "number_mismatch" in shown and "12%" in shown


@pytest.mark.parametrize("args", [["issues"], ["traces"], ["scores"], ["corpus", "list"]])
def test_every_listing_keeps_json(narrow_store, cli_env, args):
    result = runner.invoke(app, [*args, "--json"], env=cli_env, catch_exceptions=False)
    assert result.exit_code == 0 and json.loads(result.stdout)


def test_an_issues_tickets_fit_80_columns_with_their_state_and_error_and_no_alert_secret(narrow_store, cli_env):
    shown = runner.invoke(app, ["issues", "show", "SW-11"], env=cli_env, catch_exceptions=False).stdout
    tickets = shown[shown.index("Tickets"):]
    rows = {line.split("│")[1].strip(): line for line in tickets.splitlines() if line.count("│") == 4
            and line.split("│")[1].strip()}
    assert set(rows) == {"github", "jira", "slack"}
    assert "closed" in rows["github"] and "failed" in rows["jira"]
    cells = "".join(line.split("│")[3].strip() for line in tickets.splitlines() if line.count("│") == 4)
    assert GITHUB_URL in cells  # folded at 80 columns, whole when read back
    assert "401 unauthorized" in tickets and "hooks.slack" not in shown and "secret" not in shown

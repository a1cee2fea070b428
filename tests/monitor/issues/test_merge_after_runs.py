"""A merge across the clustering runs after it: the merged issue stays in the hidden list, the issue it joined
has one trend everywhere, and ``unmerge`` gives the merged issue back (to the list, its page and the next run)."""

from __future__ import annotations

import pytest
from issue_runs import issue_state as _state
from issue_runs import write_run as _run
from typer.testing import CliRunner

from sumwatch.monitor.cli import app
from sumwatch.monitor.issues.job import build_clusterer, run_clustering
from sumwatch.monitor.issues.reads import get_issue, issue_list
from sumwatch.monitor.issues.triage import TriageError, act
from sumwatch.monitor.store.issues import issue_states


@pytest.fixture
def merged_then_run(store):
    """Run 1: SW-1 (6), SW-2 (4), SW-3 (3); SW-2 merged into SW-1; run 2 (as the job writes the run after a merge:
    no snapshot of SW-2, its failures in SW-1's 13)."""
    _run(store, 1, [_state(1, members=6), _state(2, members=4), _state(3, members=3)])
    act(store, "SW-2", "merge", by="ana", value="SW-1")
    _run(store, 2, [_state(1, members=13), _state(3, members=3)])
    return store


def test_after_the_next_run_a_merged_issue_is_still_in_the_hidden_list(merged_then_run):
    hidden = {r.issue_id: r for r in issue_list(merged_then_run, include_hidden=True).issues}
    assert "SW-2" in hidden and hidden["SW-2"].triage.hidden == "merged into SW-1"
    assert hidden["SW-2"].members == 0  # the run gave its failures to SW-1, which counts them once
    assert hidden["SW-1"].members == 13 and hidden["SW-1"].triage.merged == ["SW-2"]
    assert "SW-2" not in {r.issue_id for r in issue_list(merged_then_run).issues}


def test_the_issue_it_joined_has_one_trend_in_the_list_on_its_page_and_in_show(merged_then_run, cli_env):
    listed = {r.issue_id: r for r in issue_list(merged_then_run).issues}["SW-1"]
    shown = get_issue(merged_then_run, "SW-1")
    assert listed.trend == shown.trend == [6 + 4, 13]
    runner = CliRunner()
    table = runner.invoke(app, ["issues"], env=cli_env, terminal_width=160)
    detail = runner.invoke(app, ["issues", "show", "SW-1"], env=cli_env, terminal_width=160)
    assert "+3" in table.stdout and "+3" in detail.stdout, (table.output, detail.output)


def test_the_cli_lists_a_merged_issue_with_all_after_the_next_run(merged_then_run, cli_env):
    listing = CliRunner().invoke(app, ["issues", "--all"], env=cli_env, terminal_width=160)
    assert listing.exit_code == 0 and "SW-2" in listing.stdout and "merged" in listing.stdout, listing.output


def test_unmerge_before_a_run_gives_the_issue_back_with_its_members(store):
    _run(store, 1, [_state(1, members=6), _state(2, members=4)])
    act(store, "SW-2", "merge", by="ana", value="SW-1")
    assert get_issue(store, "SW-1").members == 10
    event = act(store, "SW-2", "unmerge", by="ben")
    assert (event.action, event.by, event.value) == ("unmerge", "ben", "1")
    rows = {r.issue_id: r for r in issue_list(store).issues}
    assert rows["SW-1"].members == 6 and rows["SW-2"].members == 4 and rows["SW-2"].triage.hidden == ""
    assert rows["SW-1"].triage.merged == []
    detail = get_issue(store, "SW-2")
    assert detail.issue_id == "SW-2" and detail.asked_as == "" and detail.members == 4
    assert [(e.action, e.by) for e in detail.timeline if e.action != "run"] == [("merge", "ana"), ("unmerge", "ben")]


def test_unmerge_after_a_run_and_the_next_run_carries_the_issue_again(merged_then_run, settings):
    act(merged_then_run, "SW-2", "unmerge", by="ben")
    rows = {r.issue_id: r for r in issue_list(merged_then_run).issues}
    assert "SW-2" in rows and rows["SW-2"].triage.hidden == "" and rows["SW-1"].triage.merged == []
    detail = get_issue(merged_then_run, "SW-2")
    # the run after the merge gave its failures to SW-1; its examples are those of the last run that saw it
    assert detail.issue_id == "SW-2" and detail.members == 0 and detail.seen_in_run == "run-1"
    # the next run starts from it again: with no failures in its window it is carried, not lost
    report = run_clustering(merged_then_run, settings, clusterer=build_clusterer(settings), embedder=object())
    assert 2 in {s.number for s in issue_states(merged_then_run, report.run_id)}


@pytest.mark.parametrize(("issue_id", "message"), [
    ("SW-1", "SW-1 is not merged into another issue"),
    ("SW-3", "SW-3 is not merged into another issue"),
])
def test_unmerging_an_issue_that_is_not_merged_is_refused_in_one_line(merged_then_run, issue_id, message):
    with pytest.raises(TriageError, match=message):
        act(merged_then_run, issue_id, "unmerge", by="ana")


def test_the_cli_unmerges(merged_then_run, cli_env):
    runner = CliRunner()
    result = runner.invoke(app, ["issues", "unmerge", "SW-2", "--by", "ana"], env=cli_env)
    assert result.exit_code == 0 and "SW-2 unmerged from SW-1 by ana" in result.stdout, result.output
    again = runner.invoke(app, ["issues", "unmerge", "SW-2"], env=cli_env)
    assert again.exit_code == 2 and again.output.strip().endswith("SW-2 is not merged into another issue")
    assert again.output.count("\n") == 1

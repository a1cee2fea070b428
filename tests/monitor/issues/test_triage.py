"""Triage on chDB: every action and what it does to the list, the issue and its history; refusals in one line;
the tracking step a clustering run takes from the triaged state; the API and the CLI."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import numpy as np
import pytest
from issue_runs import T0
from issue_runs import issue_state as _state
from issue_runs import unit as _unit
from issue_runs import write_run as _run
from starlette.testclient import TestClient
from typer.testing import CliRunner

from sumwatch.clustering.track import IssueTracker, KnownIssue
from sumwatch.monitor.cli import app
from sumwatch.monitor.issues.job import _merged_centroids, apply_triage
from sumwatch.monitor.issues.reads import get_issue, issue_list
from sumwatch.monitor.issues.triage import TriageError, UnknownIssue, act
from sumwatch.monitor.runtime import Runtime
from sumwatch.monitor.store.issue_events import events_of
from sumwatch.monitor.store.issues import issue_states
from sumwatch.monitor.store.runs import latest_run_id
from sumwatch.monitor.views.app import create_app


@pytest.fixture
def issues(store):
    """Run 1: SW-1, SW-2 and SW-3, ongoing."""
    _run(store, 1, [_state(1, members=6), _state(2, members=4), _state(3, members=3)])
    return store


def _listed(store, **kw) -> dict[str, tuple[str, str]]:
    return {r.issue_id: (r.status, r.triage.hidden) for r in issue_list(store, **kw).issues}


def test_resolve_and_reopen_change_the_status_people_see(issues):
    act(issues, "SW-1", "resolve", by="ana")
    assert _listed(issues)["SW-1"] == ("resolved", "")
    assert "SW-1" not in _listed(issues, include_resolved=False)
    act(issues, "sw-1", "reopen", by="ben")
    assert _listed(issues)["SW-1"] == ("ongoing", "")
    assert [(e.action, e.by, e.source) for e in events_of(issues, [1])] == [("resolve", "ana", "api"),
                                                                            ("reopen", "ben", "api")]


def test_ignore_and_mute_hide_an_issue_until_undone_or_over(issues):
    act(issues, "SW-2", "ignore", by="ana")
    act(issues, "SW-3", "mute", by="ana", value="1h")
    assert set(_listed(issues)) == {"SW-1"}
    assert _listed(issues, include_hidden=True) == {"SW-1": ("ongoing", ""), "SW-2": ("ongoing", "ignored"),
                                                    "SW-3": ("ongoing", "muted")}
    later = issue_list(issues).run  # the mute's hour passes
    assert later is not None
    from sumwatch.monitor.issues.reads import list_issues

    _, rows = list_issues(issues, include_hidden=False, now=datetime.now(timezone.utc) + timedelta(hours=2))
    assert {r.issue_id for r in rows} == {"SW-1", "SW-3"}
    act(issues, "SW-2", "unignore", by="ana")
    act(issues, "SW-3", "unmute", by="ana")
    assert set(_listed(issues)) == {"SW-1", "SW-2", "SW-3"}


def test_mute_until_it_regresses_shows_the_issue_again_when_a_run_finds_it_regressed(issues):
    act(issues, "SW-3", "mute", by="ana")
    _run(issues, 2, [_state(1), _state(2), _state(3, "resolved", members=0)])
    assert "SW-3" not in _listed(issues)
    _run(issues, 3, [_state(1), _state(2), _state(3, "regressed", members=4)])
    assert _listed(issues)["SW-3"] == ("regressed", "")


def test_assign_comment_and_the_history_beside_the_runs(issues):
    act(issues, "SW-1", "assign", by="ana", value="ben")
    act(issues, "SW-1", "comment", by="ben", value="padding comes from the v3 prompt")
    _run(issues, 2, [_state(1, members=8), _state(2), _state(3)])
    act(issues, "SW-1", "resolve", by="ben")
    detail = get_issue(issues, "SW-1")
    assert detail is not None and detail.triage.assignee == "ben" and detail.triage.comments == 1
    assert detail.status == "resolved"
    assert [(e.action, e.by) for e in detail.timeline] == [("run", ""), ("assign", "ana"), ("comment", "ben"),
                                                           ("run", ""), ("resolve", "ben")]
    assert detail.timeline[2].text == "padding comes from the v3 prompt"
    assert [e.at for e in detail.timeline] == sorted(e.at for e in detail.timeline)


def test_merge_keeps_one_id_and_counts_the_merged_issues_failures(issues):
    act(issues, "SW-2", "merge", by="ana", value="SW-1")
    rows = {r.issue_id: r for r in issue_list(issues).issues}
    assert "SW-2" not in rows and rows["SW-1"].members == 10 and rows["SW-1"].triage.merged == ["SW-2"]
    detail = get_issue(issues, "SW-2")
    assert detail is not None and detail.issue_id == "SW-1" and detail.asked_as == "SW-2" and detail.members == 10
    assert ("merge", "SW-2 into SW-1") in [(e.action, e.text) for e in detail.timeline]
    act(issues, "SW-3", "merge", by="ana", value="SW-2")  # into SW-2 means into what SW-2 joined
    assert get_issue(issues, "SW-1").triage.merged == ["SW-2", "SW-3"]


def test_a_merged_issues_description_gives_the_figures_of_all_its_parts(store):
    from dataclasses import replace

    from sumwatch.monitor.store.issue_members import MEMBER, MemberRow, save_members

    own = "6 failing summaries on conciseness with failure mode padded (100%). Filler opens all 6 summaries."
    other = "4 failing summaries mostly on conciseness with failure mode filler_phrase (50%)."
    _run(store, 1, [replace(_state(1, members=6), description=own), replace(_state(2, members=4), description=other)])
    modes = {1: ["padded"] * 6, 2: ["filler_phrase", "filler_phrase", "padded", "hedged"]}
    save_members(store, [MemberRow("run-1", n, f"{n}{i:031x}", f"{i:016x}", T0, "svc", "conciseness", "padded", mode,
                                   0.9, MEMBER, "", "", T0) for n, ms in modes.items() for i, mode in enumerate(ms)])
    act(store, "SW-2", "merge", by="ana", value="SW-1")
    merged = "10 failing summaries mostly on conciseness with failure mode padded (70%). Filler opens all 10 summaries."
    listed = {r.issue_id: r for r in issue_list(store).issues}["SW-1"]
    detail = get_issue(store, "SW-2")
    assert listed.members == detail.members == 10 and listed.description == detail.description == merged
    # its history and trend count the merged issue too, as its counts do (the page's chart beside its header)
    assert [h["members"] for h in detail.history] == [10] and detail.trend[-1] == listed.trend[-1] == 10
    assert "10 failures" in [e.text for e in detail.timeline if e.action == "run"][0]
    assert get_issue(store, "SW-1").description == merged
    assert {r.issue_id: r for r in issue_list(store, include_hidden=True).issues}["SW-2"].description == other


@pytest.mark.parametrize(("issue_id", "action", "value", "message"), [
    ("SW-9", "resolve", "", "no issue SW-9 (see `sumwatch issues`)"),
    ("SW-1", "merge", "SW-1", "cannot merge SW-1 into itself"),
    ("SW-1", "merge", "SW-7", "no issue SW-7 to merge into"),
    ("SW-1", "merge", "", "merge needs the issue to merge SW-1 into"),
    ("SW-1", "mute", "soon", "mute: a duration is a positive number with a unit"),
    ("SW-1", "comment", " ", "a comment needs some text"),
    ("SW-1", "shout", "", "action must be one of resolve, reopen"),
    ("nope", "resolve", "", "an issue id looks like SW-12"),
])
def test_refusals_are_one_clear_line(issues, issue_id, action, value, message):
    with pytest.raises(TriageError) as caught:
        act(issues, issue_id, action, by="ana", value=value)
    assert message in str(caught.value) and "\n" not in str(caught.value)
    assert events_of(issues) == []


def test_a_merged_issue_is_triaged_through_the_one_it_joined(issues):
    act(issues, "SW-2", "merge", by="ana", value="SW-1")
    with pytest.raises(TriageError, match="SW-2 was merged into SW-1: triage that issue instead"):
        act(issues, "SW-2", "resolve", by="ana")
    with pytest.raises(UnknownIssue):
        act(issues, "SW-4", "resolve", by="ana")


def _known(store) -> list[KnownIssue]:
    previous = apply_triage(store, issue_states(store, latest_run_id(store)), latest_run_id(store))
    also = _merged_centroids(store, [p.number for p in previous], "m")
    return [KnownIssue(p.number, p.centroid, p.status, p.missed_runs, also=also.get(p.number, ())) for p in previous]


def test_a_resolved_issue_that_comes_back_in_the_next_run_is_regressed(issues):
    act(issues, "SW-1", "resolve", by="ana")
    outcome = IssueTracker(threshold=0.9).track(_known(issues), np.stack([_unit(1), _unit(2)]))
    assert [(a.issue_id, a.status) for a in outcome.assignments] == [("SW-1", "regressed"), ("SW-2", "ongoing")]
    assert [(k.number, k.status) for k in outcome.unmatched] == [(3, "ongoing")]


def test_after_a_merge_a_cluster_near_either_centroid_matches_the_merged_issue(issues):
    act(issues, "SW-2", "merge", by="ana", value="SW-1")
    _run(issues, 2, [_state(1), _state(3)])  # the run after the merge carries SW-1 and SW-3 only
    known = _known(issues)
    assert [k.number for k in known] == [1, 3] and len(known[0].also) == 1
    # a new cluster where SW-2 used to be, and one where SW-3 is
    outcome = IssueTracker(threshold=0.9).track(known, np.stack([_unit(2), _unit(3)]))
    assert [(a.issue_id, a.status) for a in outcome.assignments] == [("SW-1", "ongoing"), ("SW-3", "ongoing")]
    without = IssueTracker(threshold=0.9).track([KnownIssue(k.number, k.centroid) for k in known], _unit(2)[None])
    assert without.assignments[0].issue_id == "SW-4"  # the merged centroid is what made the match


def test_the_api_records_who_and_refuses_in_one_line(issues, settings):
    client = TestClient(create_app(Runtime.build(settings, issues)), base_url="http://localhost")
    auth = {"authorization": "Bearer t"}
    answer = client.post("/api/issues/SW-1/triage", json={"action": "assign", "value": "ben"}, headers=auth)
    assert answer.status_code == 200 and answer.json()["by"] == "api" and answer.json()["assignee"] == "ben"
    answer = client.post("/api/issues/SW-2/triage", json={"action": "ignore", "by": "ana"}, headers=auth)
    assert answer.json()["hidden"] == "ignored"
    assert [i["issue_id"] for i in client.get("/api/issues").json()["issues"]] == ["SW-1", "SW-3"]
    assert len(client.get("/api/issues", params={"hidden": "true"}).json()["issues"]) == 3
    for path, body, status, message in (
            ("SW-9", {"action": "resolve"}, 404, "no issue SW-9"),
            ("SW-1", {"action": "merge", "value": "1"}, 422, "cannot merge SW-1 into itself"),
            ("SW-1", {"action": "mute", "value": "7 days"}, 422, "mute: a duration is"),
            ("SW-1", {"action": "explode"}, 400, "action must be one of")):
        answer = client.post(f"/api/issues/{path}/triage", json=body, headers=auth)
        assert answer.status_code == status and message in answer.json()["error"], answer.text


def test_the_cli_triages_through_the_api_with_by(issues, cli_env):
    runner = CliRunner()
    result = runner.invoke(app, ["issues", "merge", "SW-3", "--into", "SW-1", "--by", "ana"], env=cli_env)
    assert result.exit_code == 0 and "SW-3 merged into SW-1 by ana" in result.stdout, result.output
    result = runner.invoke(app, ["issues", "comment", "SW-1", "same root cause", "--by", "ana"], env=cli_env)
    assert result.exit_code == 0, result.output
    result = runner.invoke(app, ["issues", "mute", "SW-2", "--for", "soon"], env=cli_env)
    assert result.exit_code == 2 and result.output.count("\n") == 1 and "mute: a duration" in result.output
    result = runner.invoke(app, ["issues", "resolve", "SW-8"], env=cli_env)
    assert result.exit_code == 1 and "no issue SW-8" in result.output
    result = runner.invoke(app, ["issues", "resolve", "SW-2"], env=cli_env)
    assert result.exit_code == 0 and "SW-2 resolved by " in result.stdout
    listing = runner.invoke(app, ["issues"], env=cli_env, terminal_width=120).stdout
    assert "SW-3" not in listing and "resolved" in listing
    assert "SW-3" in runner.invoke(app, ["issues", "--all"], env=cli_env, terminal_width=120).stdout
    shown = runner.invoke(app, ["issues", "show", "SW-1"], env=cli_env, terminal_width=160).stdout
    assert "merged in: SW-3" in shown and "same root cause" in shown and "History" in shown

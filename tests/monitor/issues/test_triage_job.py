"""Triage across real clustering runs on chDB (the demo workload scored by the rules tier, embedded by the packaged
model, UMAP and HDBSCAN): an issue resolved by hand that the next run finds again is regressed; after a merge
the next run gives the merged issue's failures to the issue it joined, through its centroid set."""

from __future__ import annotations

import pytest

from sumwatch.monitor.demo.run import run_demo, score_demo
from sumwatch.monitor.issues.job import run_clustering
from sumwatch.monitor.issues.reads import get_issue, issue_list
from sumwatch.monitor.issues.triage import act
from sumwatch.monitor.store.issues import issue_states

pytestmark = [pytest.mark.slow, pytest.mark.integration]


@pytest.fixture
def first_run(store, settings, rules_cascade):
    """The demo workload scored and clustered once; its issues, largest first."""
    demo = run_demo(store, n=120, seed=11)
    score_demo(store, rules_cascade, demo.run_id)
    report = run_clustering(store, settings)
    assert len(report.issues) >= 3
    return report


def test_resolved_by_hand_then_found_again_is_regressed(store, settings, first_run):
    top = first_run.issues[0]
    act(store, top.issue_id, "resolve", by="ana")
    assert get_issue(store, top.issue_id).status == "resolved"
    again = run_clustering(store, settings)  # the same failures: the issue comes back
    seen = {i.issue_id: i.status for i in again.issues}
    assert seen[top.issue_id] == "regressed"
    assert get_issue(store, top.issue_id).status == "regressed"
    assert all(status != "regressed" for issue_id, status in seen.items() if issue_id != top.issue_id)


def test_after_a_merge_the_next_run_matches_the_merged_issues_failures_to_the_one_it_joined(store, settings,
                                                                                            first_run):
    into, merged = first_run.issues[0], first_run.issues[1]
    act(store, merged.issue_id, "merge", by="ana", value=into.issue_id)
    listed = {r.issue_id: r for r in issue_list(store).issues}
    assert merged.issue_id not in listed and listed[into.issue_id].members == into.members + merged.members
    again = run_clustering(store, settings)
    numbers = {s.number for s in issue_states(store, again.run_id)}
    assert merged.number not in numbers  # one id from now on
    assert max(s.number for s in issue_states(store, again.run_id)) == max(i.number for i in first_run.issues)
    now = {i.issue_id: i for i in again.issues}
    assert now[into.issue_id].members >= into.members + merged.members - 2  # both centroids' failures
    assert now[into.issue_id].status == "ongoing"

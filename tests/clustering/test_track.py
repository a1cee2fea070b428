"""Issue tracking across runs: Hungarian matching on centroids, the threshold, numbering and statuses."""

import numpy as np
import pytest

from sumwatch.clustering.track import NEW, ONGOING, REGRESSED, RESOLVED, IssueTracker, KnownIssue


def _unit(*rows):
    X = np.asarray(rows, dtype=np.float64)
    return X / np.linalg.norm(X, axis=1, keepdims=True)


def test_first_run_numbers_every_cluster_in_order():
    outcome = IssueTracker().track([], _unit([1, 0, 0], [0, 1, 0]))
    assert [(a.issue_id, a.status, a.previous_status) for a in outcome.assignments] == [
        ("SW-1", NEW, ""), ("SW-2", NEW, "")]
    assert outcome.unmatched == []


def test_assignment_is_one_to_one_and_maximises_total_similarity():
    # greedy matching would give cluster 0 to issue 1 (0.99) and leave cluster 1 with nothing above the
    # threshold; the Hungarian assignment pairs 0-2 and 1-1, both above it
    known = [KnownIssue(1, _unit([1, 0.12, 0])[0]), KnownIssue(2, _unit([1, -0.1, 0.0])[0])]
    clusters = _unit([1, 0.0, 0], [1, 0.2, 0])
    outcome = IssueTracker(threshold=0.95).track(known, clusters)
    assert [a.number for a in outcome.assignments] == [2, 1]
    assert all(a.status == ONGOING for a in outcome.assignments)
    assert all(a.similarity >= 0.95 for a in outcome.assignments)


def test_below_threshold_opens_a_new_issue_after_the_highest_number():
    known = [KnownIssue(7, _unit([1, 0, 0])[0], ONGOING)]
    outcome = IssueTracker(threshold=0.9).track(known, _unit([0, 1, 0]))
    assert outcome.assignments[0].issue_id == "SW-8" and outcome.assignments[0].status == NEW
    assert outcome.unmatched[0].number == 7 and outcome.unmatched[0].missed_runs == 1


def test_absent_issues_resolve_after_the_configured_runs_and_come_back_regressed():
    tracker = IssueTracker(resolve_after=2)
    issue = KnownIssue(3, _unit([0, 0, 1])[0], ONGOING)
    empty = np.zeros((0, 3))
    issue = tracker.track([issue], empty).unmatched[0]
    assert (issue.status, issue.missed_runs) == (ONGOING, 1)
    issue = tracker.track([issue], empty).unmatched[0]
    assert (issue.status, issue.missed_runs) == (RESOLVED, 2)
    back = tracker.track([issue], _unit([0, 0.05, 1])).assignments[0]
    assert (back.issue_id, back.status, back.previous_status) == ("SW-3", REGRESSED, RESOLVED)
    # still regressed while it keeps appearing; a new issue stays new only on its first run
    again = tracker.track([KnownIssue(3, issue.centroid, REGRESSED)], _unit([0, 0.05, 1])).assignments[0]
    assert again.status == REGRESSED
    assert tracker.track([KnownIssue(4, issue.centroid, NEW)], _unit([0, 0, 1])).assignments[0].status == ONGOING


def test_centroids_of_another_model_are_refused_with_a_reason():
    with pytest.raises(ValueError, match="another embedding model"):
        IssueTracker().track([KnownIssue(1, np.ones(384))], np.ones((1, 768)))


@pytest.mark.parametrize("kwargs", [{"threshold": 1.5}, {"resolve_after": 0}])
def test_bad_settings_are_rejected(kwargs):
    with pytest.raises(ValueError):
        IssueTracker(**kwargs)


def test_a_coarser_cluster_is_split_back_along_known_issues():
    rng = np.random.default_rng(0)
    a, b = _unit([1, 0, 0, 0], [0, 1, 0, 0])
    members = _unit(*(np.vstack([a + 0.05 * rng.normal(size=(6, 4)), b + 0.05 * rng.normal(size=(4, 4))])))
    tracker = IssueTracker(threshold=0.9)
    parts = tracker.split([KnownIssue(1, a), KnownIssue(2, b)], members)
    assert [sorted(p.tolist()) for p in parts] == [[0, 1, 2, 3, 4, 5], [6, 7, 8, 9]]
    assert len(tracker.split([KnownIssue(1, a)], members)) == 1  # one known issue: nothing to split along


def test_a_finer_split_of_a_known_issue_joins_it():
    known = [KnownIssue(5, _unit([1, 0, 0])[0], ONGOING)]
    outcome = IssueTracker(threshold=0.9).track(known, _unit([1, 0.1, 0], [1, -0.1, 0]))
    assert [a.issue_id for a in outcome.assignments] == ["SW-5", "SW-5"] and outcome.unmatched == []

"""Representatives: distinct texts from the cluster's core, boundary cases labelled; figures from the run."""

import numpy as np

from sumwatch.clustering.name import ClusterName, KeywordNamer, with_figures
from sumwatch.clustering.represent import Representer, is_core


def _vectors() -> np.ndarray:
    rng = np.random.default_rng(3)
    base = rng.standard_normal(16)
    same = [base + 0.001 * rng.standard_normal(16) for _ in range(4)]  # one summary failing four times
    others = [base + 0.9 * rng.standard_normal(16) for _ in range(4)]
    return np.asarray(same + others, dtype=np.float32)


def test_representatives_are_distinct_texts_from_the_core():
    vectors = _vectors()
    members = np.arange(8)
    membership = np.array([0.99, 0.98, 0.97, 0.96, 0.9, 0.8, 0.7, 0.05])
    reps, boundary = Representer(n_representatives=3, n_boundary=2).select(vectors, members, membership)
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    assert len(reps) == 3
    assert sum(1 for i in reps if i < 4) == 1  # the four copies are shown once
    shown = reps + boundary
    sims = unit[shown] @ unit[shown].T
    assert (sims[~np.eye(len(shown), dtype=bool)] <= 0.95).all()
    assert all(is_core(membership[i]) for i in reps)


def test_a_low_membership_member_is_not_a_confident_representative():
    vectors = _vectors()[[0, 4, 5, 6, 7]]
    membership = np.array([0.9, 0.3, 0.02, 0.01, 0.01])  # median 0.02: the old pool took 0.3 and 0.02 too
    reps, _ = Representer(n_representatives=3).select(vectors, np.arange(5), membership)
    assert reps == [0]


def test_without_any_core_the_best_are_shown_and_marked_as_boundary_cases():
    membership = np.array([0.2, 0.1, 0.05, 0.01])
    reps, _ = Representer(n_representatives=2).select(_vectors()[4:], np.arange(4), membership)
    assert reps and not any(is_core(membership[i]) for i in reps)


def test_a_description_carries_this_runs_figures():
    namer = KeywordNamer()
    first = namer.name(["x"] * 13, {"factuality": 13}, {"numerically_wrong": 13}, keywords=["revenue"])
    assert first.description.startswith("13 failing summaries on factuality")
    later = with_figures(first, 26, {"factuality": 26}, {"numerically_wrong": 20, "entity_wrong": 6})
    assert later.description.startswith("26 failing summaries mostly on factuality with failure mode "
                                        "numerically_wrong (77%).") and "13" not in later.description
    llm = ClusterName("t", "Across 13 failing summaries numbers change. Seen in 13 traces of 5% growth.",
                      "r", "f", "high")
    assert with_figures(llm, 26, {}, {}).description == (
        "Across 26 failing summaries numbers change. Seen in 26 summaries of 5% growth.")


def test_a_tie_in_the_figures_names_the_issues_own_kind():
    name = ClusterName("Stacked hedges", "14 failing summaries on conciseness with failure mode hedging (100%).",
                       "r", "f", "low")
    tied = {"filler_phrases": 7, "hedging": 7}
    own = with_figures(name, 14, {"conciseness": 14}, tied, ("conciseness", "hedging"))
    assert own.description == "14 failing summaries mostly on conciseness with failure mode hedging (50%)."
    first = with_figures(name, 14, {"conciseness": 14}, tied)  # no kind of its own: the first by name
    assert "failure mode filler_phrases (50%)" in first.description

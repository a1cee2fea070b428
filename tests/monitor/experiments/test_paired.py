"""The paired comparison the CI gate reads: a planted regression fails it, noise does not."""

from __future__ import annotations

import random

from sumwatch.monitor.experiments.paired import bootstrap_interval, mcnemar_exact, paired_difference


def _pairs(n: int, regressed: int, fixed: int, base_fail: int = 0) -> dict[str, tuple[bool, bool]]:
    pairs = {}
    for i in range(n):
        if i < regressed:
            pairs[f"i{i:03d}"] = (True, False)
        elif i < regressed + fixed:
            pairs[f"i{i:03d}"] = (False, True)
        elif i < regressed + fixed + base_fail:
            pairs[f"i{i:03d}"] = (False, False)
        else:
            pairs[f"i{i:03d}"] = (True, True)
    return pairs


def test_a_tenth_of_the_items_broken_is_a_regression_with_those_items_named():
    diff = paired_difference("factuality", _pairs(200, regressed=20, fixed=0, base_fail=30))
    assert diff.paired == 200 and diff.base_passed == 170 and diff.candidate_passed == 150
    assert diff.delta == -0.1 and diff.high < 0 < -diff.low
    assert diff.p_value < 1e-5
    assert diff.is_regression and not diff.is_improvement
    assert diff.regressed == [f"i{i:03d}" for i in range(20)] and diff.fixed == []


def test_two_runs_that_differ_a_little_both_ways_are_not_a_regression():
    diff = paired_difference("factuality", _pairs(200, regressed=4, fixed=3, base_fail=20))
    assert diff.low < 0 < diff.high and diff.p_value == 1.0
    assert not diff.is_regression and not diff.is_improvement


def test_identical_runs_compare_as_no_change():
    diff = paired_difference("groundedness", _pairs(50, regressed=0, fixed=0, base_fail=5))
    assert (diff.delta, diff.low, diff.high, diff.p_value) == (0.0, 0.0, 0.0, 1.0)
    assert not diff.is_regression


def test_items_either_side_did_not_judge_are_counted_apart_never_as_a_verdict():
    pairs = {"a": (True, None), "b": (None, False), "c": (True, False), "d": (True, True)}
    diff = paired_difference("coverage", pairs)
    assert diff.paired == 2 and diff.unpaired == 2 and diff.regressed == ["c"]
    empty = paired_difference("coverage", {"a": (None, None)})
    assert empty.paired == 0 and empty.unpaired == 1 and not empty.is_regression and empty.base_rate is None


def test_the_interval_is_the_same_for_the_same_runs():
    assert bootstrap_interval(12, 3, 150) == bootstrap_interval(12, 3, 150)


def test_mcnemar_exact_matches_the_binomial_tails():
    assert mcnemar_exact(0, 0) == 1.0
    assert mcnemar_exact(5, 0) == 2 * 0.5 ** 5
    assert mcnemar_exact(3, 3) == 1.0
    assert abs(mcnemar_exact(2, 8) - 0.109375) < 1e-12  # 2 * P(X <= 2), X ~ Bin(10, 1/2)


def test_the_gate_calls_few_regressions_on_random_noise():
    """The same nondeterministic summarizer twice: each item passes with its own chance in both runs, drawn
    independently, so the runs differ on some items both ways. The gate stays quiet (precision first)."""
    rng = random.Random(5)
    alarms = 0
    for trial in range(200):
        chances = [0.97 if rng.random() < 0.8 else 0.3 for _ in range(200)]  # most items pass almost always
        pairs = {f"{trial}-{i}": (rng.random() < q, rng.random() < q) for i, q in enumerate(chances)}
        alarms += paired_difference("factuality", pairs, seed=trial).is_regression
    assert alarms <= 5  # a one-sided drop at a 5% two-sided level: about 2.5% of 200 trials, here fewer

"""The score a target gets orders every passing verdict above every failing one, on each built-in rubric and from
each tier of the cascade, whatever finer score the tier gave; within a band the judge's order is kept."""

from __future__ import annotations

import pytest

from sumwatch.monitor.exports.score_targets import FAIL_CEILING, PASS_FLOOR, Langfuse, Phoenix, sent_score
from sumwatch.monitor.rubrics.verdicts import HUMAN, PASSING, RUBRICS, TIERS, VERDICTS
from sumwatch.monitor.store.score_sends import Verdict

GRID = [i / 100 for i in range(101)]


def _verdict(rubric: str, verdict: str, score: float, tier: str) -> Verdict:
    return Verdict("0" * 32, "1" * 16, rubric, "cascade-1/test", 0, 0, verdict, score, verdict in PASSING[rubric], "",
                   tier, "", "m", "svc")


@pytest.mark.parametrize("rubric", RUBRICS)
def test_every_pass_scores_above_every_fail(rubric):
    sent: dict[bool, list[float]] = {True: [], False: []}
    for tier in (*TIERS, HUMAN):
        for verdict, default in VERDICTS[rubric].items():
            for score in (default, *GRID):  # the verdict's own score, and any finer one a tier may give
                v = _verdict(rubric, verdict, score, tier)
                sent[v.passed].append(sent_score(v))
    assert sent[True] and sent[False]
    assert min(sent[True]) >= PASS_FLOOR > 0.5 > FAIL_CEILING >= max(sent[False])
    assert min(sent[True]) > max(sent[False])


def test_within_a_band_the_judges_order_is_kept_and_the_ends_stay():
    passing = [sent_score(_verdict("groundedness", "supported", s, "embeddings")) for s in GRID]
    failing = [sent_score(_verdict("groundedness", "partial", s, "embeddings")) for s in GRID]
    assert passing == sorted(passing) and failing == sorted(failing)
    assert (passing[0], passing[-1], failing[0], failing[-1]) == (0.55, 1.0, 0.0, 0.45)
    # the case: a failing verdict scored 0.42 by the tier was sent above passing ones scored 0.39
    assert sent_score(_verdict("groundedness", "supported", 0.39, "embeddings")) > \
        sent_score(_verdict("groundedness", "partial", 0.42, "embeddings"))


def test_the_requests_carry_the_sent_score_and_the_judges_own():
    v = _verdict("completeness", "approximate", 0.7, "llm")
    assert Langfuse.body(v)["value"] == Phoenix.annotation(v)["result"]["score"] == sent_score(v) == 0.865
    assert Langfuse.body(v)["metadata"]["judge_score"] == Phoenix.annotation(v)["metadata"]["judge_score"] == 0.7

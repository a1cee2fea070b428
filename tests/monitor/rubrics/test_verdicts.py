"""Verdicts: which ones pass is defined once, and every result's passed flag follows it."""

from __future__ import annotations

from sumwatch.monitor.rubrics.verdicts import CLEAN, ERROR, PASSING, PASSING_ANY, RUBRICS, VERDICTS, RubricResult


def test_passing_detail_rows_come_from_the_one_definition_of_passing():
    assert {"supported", "present", "approximate", "correct", "concise"} == PASSING_ANY
    assert all(v <= PASSING_ANY for v in PASSING.values())


def test_passed_follows_the_passing_set_for_every_verdict():
    for rubric in RUBRICS:
        assert PASSING[rubric] <= set(VERDICTS[rubric])
        for verdict in VERDICTS[rubric]:
            assert RubricResult.make(rubric, verdict).passed == (verdict in PASSING[rubric])
        assert not RubricResult.failed_judge(rubric, "timeout").passed
        assert RubricResult.failed_judge(rubric, "timeout").verdict == ERROR


def test_a_failed_judge_of_a_teams_own_rubric_is_an_error_too():
    # an LLM judge of a custom definition that cannot answer returns this, never raises
    result = RubricResult.failed_judge("tone", "timeout", tier="llm")
    assert (result.rubric, result.verdict, result.passed, result.error, result.score) == (
        "tone", ERROR, False, "timeout", 0.0)


def test_the_clean_verdict_of_each_rubric_passes_with_full_score():
    assert CLEAN == {"groundedness": "supported", "completeness": "present", "factuality": "correct",
                     "conciseness": "concise"}
    for rubric in RUBRICS:
        result = RubricResult.make(rubric, CLEAN[rubric])
        assert result.passed and result.score == 1.0

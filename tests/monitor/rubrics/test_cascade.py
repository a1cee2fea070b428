"""The cascade's escalation policy, with small tiers plugged in (each stage is swappable)."""

import pytest

from sumwatch.monitor.rubrics.cascade import Cascade
from sumwatch.monitor.rubrics.verdicts import RUBRICS, RubricResult, SummaryCase

PASS = {"groundedness": "supported", "completeness": "present", "factuality": "correct", "conciseness": "concise"}


class Rules:
    version = "r"

    def __init__(self, confident=(), failing=()):
        self.confident, self.failing = set(confident), set(failing)

    def judge(self, rubric, case):
        if rubric in self.failing:
            fail = {"groundedness": "partial", "completeness": "absent", "factuality": "numerically_wrong",
                    "conciseness": "padded"}[rubric]
            return RubricResult.make(rubric, fail, tier="rules", confident=True)
        return RubricResult.make(rubric, PASS[rubric], tier="rules",
                                 confident=rubric in self.confident or rubric == "conciseness")


class Embeddings:
    version = "e"

    def __init__(self, confident=()):
        self.confident = set(confident)

    def judge_batch(self, cases):
        return [{r: RubricResult.make(r, PASS[r], tier="embeddings", confident=r in self.confident)
                 for r in ("groundedness", "completeness")} for _ in cases]


class LLM:
    version = "l"

    def __init__(self, error=False):
        self.asked, self.error = [], error

    async def ajudge_many(self, items):
        self.asked.extend(items)
        return [RubricResult.failed_judge(r, "timeout", tier="llm") if self.error
                else RubricResult.make(r, PASS[r], tier="llm") for r, _ in items]


CASE = SummaryCase("source text here", "summary")


def asked_rubrics(llm):
    return sorted(r for r, _ in llm.asked)


def test_off_never_calls_the_llm_and_answers_every_rubric():
    out = Cascade(Rules(), Embeddings(confident={"completeness"})).score(CASE)
    assert set(out) == set(RUBRICS)
    assert out["completeness"].tier == "embeddings"  # a confident embedding result settles an unsure pass
    # neither tier sure: the rules verdict stays, marked unsettled
    assert out["groundedness"].tier == "rules" and not out["groundedness"].confident
    assert out["factuality"].tier == "rules"


class UnsureFailingRules(Rules):
    def judge(self, rubric, case):
        if rubric == "groundedness":
            return RubricResult.make(rubric, "partial", tier="rules", confident=False)
        return super().judge(rubric, case)


def test_an_embedding_pass_never_overturns_a_rules_failure():
    out = Cascade(UnsureFailingRules(), Embeddings(confident={"groundedness"})).score(CASE)
    assert out["groundedness"].verdict == "partial" and out["groundedness"].tier == "rules"


def test_ambiguous_sends_only_unsettled_pairs():
    llm = LLM()
    out = Cascade(Rules(confident={"factuality"}), Embeddings(confident={"groundedness"}), llm).score(CASE)
    assert asked_rubrics(llm) == ["completeness"]
    assert out["completeness"].tier == "llm" and out["groundedness"].tier == "embeddings"


def test_always_sends_all_but_conciseness_and_deterministic_failures():
    llm = LLM()
    out = Cascade(Rules(failing={"factuality"}), Embeddings(), llm, mode="always").score(CASE)
    assert asked_rubrics(llm) == ["completeness", "groundedness"]
    assert out["factuality"].verdict == "numerically_wrong" and out["factuality"].tier == "rules"


def test_llm_errors_are_final_and_never_pass():
    out = Cascade(Rules(), Embeddings(), LLM(error=True)).score(CASE)
    assert out["completeness"].verdict == "error" and not out["completeness"].passed


def test_rubric_subset_and_bad_configuration():
    llm = LLM()
    out = Cascade(Rules(), None, llm).score_batch([CASE], rubrics=["factuality"])[0]
    assert list(out) == ["factuality"] and asked_rubrics(llm) == ["factuality"]
    with pytest.raises(ValueError, match="needs an LLM"):
        Cascade(Rules(), mode="always")
    with pytest.raises(ValueError, match="judge mode must be one of"):
        Cascade(Rules(), llm=LLM(), mode="sometimes")
    assert Cascade(Rules(), Embeddings(), LLM()).version == "cascade-1/r/e/l@ambiguous"

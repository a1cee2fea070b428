"""The reference rubrics' one entry point: every rubric of a case, offline where it must be, never a silent pass."""

import asyncio

import pytest
from reference_fakes import GOOD, REFERENCE, SOURCE, BagOfWords, ScriptedModel, system_text, user_text

from sumwatch.monitor.rubrics.llm import LLMConfig, LLMJudge
from sumwatch.monitor.rubrics.reference import (
    REFERENCE_RUBRICS,
    UNJUDGED,
    ReferenceCase,
    areference_results,
    missed_questions,
    missing_facts,
    reference_results,
    tri_gate_score,
)

QUESTIONS = ("Did the council approve the library budget?", "Did two council members vote against the plan?")
CASE = ReferenceCase(SOURCE, GOOD, reference=REFERENCE, questions=QUESTIONS)


def by_name(results):
    return {r.rubric: r for r in results}


def unjudged_reasons(results):
    return {r.rubric: r.details[0]["unjudged"] for r in results if r.verdict == UNJUDGED}


def model_playing_both():
    """Answers ref_recall with one fact missing, and the questions: the source yes to both, the summary to one."""

    def reply(conversation):
        if "Rubric: ref_recall" in system_text(conversation):
            return {"claims": [
                {"claim": "Budget approved on Tuesday", "verdict": "recalled", "failure_mode": "",
                 "evidence_quote": "The city council approved a 4.2 million dollar library budget on Tuesday",
                 "summary_quote": "the city council approved a 4.2 million dollar budget"},
                {"claim": "Construction starts in March", "verdict": "missing", "failure_mode": "",
                 "evidence_quote": "Construction starts in March", "summary_quote": ""}],
                "verdict": "missing", "failure_mode": "missing_reference_fact", "explanation": "One fact is missing."}
        if "<source>" in user_text(conversation):
            return {"answers": [{"question": 1, "answer": "yes", "quote": "The city council approved"},
                                {"question": 2, "answer": "yes", "quote": "Two council members voted against"}]}
        return {"answers": [{"question": 1, "answer": "yes", "quote": "the city council approved"},
                            {"question": 2, "answer": "unknown", "quote": ""}]}

    return ScriptedModel(reply)


def test_offline_the_cheap_gates_judge_and_the_rest_say_why_not():
    results = reference_results(CASE)
    assert [r.rubric for r in results] == list(REFERENCE_RUBRICS) == [
        "ref_length", "ref_format", "ref_drift", "ref_tri_gate", "ref_recall", "ref_coverage"]
    named = by_name(results)
    assert named["ref_length"].verdict == "in_range" and named["ref_format"].verdict == "clean"
    assert unjudged_reasons(results) == {"ref_drift": "no_embedder", "ref_tri_gate": "gate_unjudged",
                                         "ref_recall": "no_llm", "ref_coverage": "no_llm"}
    assert not any(r.passed for r in results if r.verdict == UNJUDGED)
    assert tri_gate_score(results) is None


def test_with_an_embedder_the_tri_gate_is_scored():
    results = reference_results(CASE, embedder=BagOfWords())
    named = by_name(results)
    assert named["ref_drift"].verdict == "aligned" and named["ref_tri_gate"].verdict == "pass"
    assert tri_gate_score(results) == pytest.approx(named["ref_tri_gate"].score) and tri_gate_score(results) >= 0.5
    assert set(unjudged_reasons(results)) == {"ref_recall", "ref_coverage"}


def test_without_a_reference_only_coverage_can_be_judged():
    model = model_playing_both()
    results = reference_results(ReferenceCase(SOURCE, GOOD, questions=QUESTIONS), embedder=BagOfWords(),
                                llm=LLMJudge(LLMConfig("openai/scripted"), client=model))
    assert unjudged_reasons(results) == {"ref_length": "no_reference", "ref_format": "no_reference",
                                         "ref_drift": "no_reference", "ref_tri_gate": "gate_unjudged",
                                         "ref_recall": "no_reference"}
    assert by_name(results)["ref_coverage"].verdict == "covered"
    assert not any("Rubric: ref_recall" in system_text(m) for m in model.asked)


def test_with_an_llm_every_rubric_is_judged_and_the_misses_are_listed():
    model = model_playing_both()
    judge = LLMJudge(LLMConfig("openai/scripted"), client=model)
    results = reference_results(CASE, embedder=BagOfWords(), llm=judge)
    named = by_name(results)
    assert unjudged_reasons(results) == {}
    assert (named["ref_recall"].verdict, named["ref_recall"].passed) == ("missing", False)
    assert missing_facts(results) == ("Construction starts in March",)
    assert (named["ref_coverage"].verdict, named["ref_coverage"].score) == ("covered", 0.5)
    assert missed_questions(results) == (QUESTIONS[1],)
    assert judge.calls == model.calls == 3  # recall once, the questions once per text


def test_the_async_form_is_the_same_and_the_sync_one_refuses_a_running_loop():
    async def both():
        awaited = await areference_results(CASE, embedder=BagOfWords())
        with pytest.raises(RuntimeError, match="await areference_results"):
            reference_results(CASE)
        return awaited

    assert asyncio.run(both()) == reference_results(CASE, embedder=BagOfWords())


def test_an_llm_tier_that_is_not_the_llm_judge_is_refused_in_one_line():
    class Tier:
        version = "llm-stand-in"

        async def ajudge_many(self, items):
            return []

    with pytest.raises(TypeError, match="^the reference rubrics need an LLMJudge .*, not Tier$"):
        reference_results(CASE, llm=Tier())

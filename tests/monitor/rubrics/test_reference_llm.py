"""The reference rubrics end to end: recall and coverage through litellm's HTTP path against a scripted
OpenAI-compatible server on loopback, and drift with the real sentence model."""

import json

import pytest
from fakes.openai_server import FakeOpenAI, chat_completion, error
from reference_fakes import GOOD, REFERENCE, SOURCE

from sumwatch.monitor.rubrics.llm import LLMConfig, LLMJudge
from sumwatch.monitor.rubrics.reference import DRIFT_THRESHOLD, ReferenceCase, missing_facts, reference_results
from sumwatch.monitor.rubrics.verdicts import ERROR

pytestmark = pytest.mark.integration

QUESTIONS = ("Did the council approve the library budget?", "Did two council members vote against the plan?")
CASE = ReferenceCase(SOURCE, GOOD.rsplit(" It will", 1)[0], reference=REFERENCE, questions=QUESTIONS)
RECALL_REPLY = {"claims": [
    {"claim": "Budget approved on Tuesday", "verdict": "recalled", "failure_mode": "",
     "evidence_quote": "The city council approved a 4.2 million dollar library budget on Tuesday",
     "summary_quote": "the city council approved a 4.2 million dollar budget for the library"},
    {"claim": "A children's wing and a makerspace", "verdict": "missing", "failure_mode": "missing_reference_fact",
     "evidence_quote": "The library will include a children's wing and a makerspace", "summary_quote": ""}],
    "verdict": "missing", "failure_mode": "missing_reference_fact", "explanation": "The wing is not mentioned."}


def _user(request):
    return next(m["content"] for m in request["messages"] if m["role"] == "user")


def responder(request):
    """ref_recall gets RECALL_REPLY; the questions get yes twice from the source, yes once from the summary."""
    system = next(m["content"] for m in request["messages"] if m["role"] == "system")
    if "Rubric: ref_recall" in system:
        reply = RECALL_REPLY
    elif "<source>" in _user(request):
        reply = {"answers": [{"question": 1, "answer": "yes", "quote": "The city council approved"},
                             {"question": 2, "answer": "yes", "quote": "Two council members voted against the plan"}]}
    else:
        reply = {"answers": [{"question": 1, "answer": "yes", "quote": "the city council approved"},
                             {"question": 2, "answer": "unknown", "quote": ""}]}
    return 200, chat_completion(request, json.dumps(reply)), {}, 0.0


def make_judge(fake):
    return LLMJudge(LLMConfig("openai/judge-test", api_base=fake.base_url, api_key="test-key", backoff_s=0.01,
                              timeout_s=5, max_retries=1))


def test_recall_and_coverage_through_litellm():
    with FakeOpenAI(responder) as fake:
        results = reference_results(CASE, llm=make_judge(fake))
    recall, coverage = results[4], results[5]
    assert (recall.rubric, recall.verdict, recall.passed, recall.failure_mode) == (
        "ref_recall", "missing", False, "missing_reference_fact")
    assert missing_facts(results) == ("A children's wing and a makerspace",)
    assert recall.model == "openai/judge-test" and recall.input_tokens > 0
    assert (coverage.rubric, coverage.verdict, coverage.score) == ("ref_coverage", "covered", 0.5)
    assert len(fake.requests) == 3
    for received in fake.requests:
        assert received.body["temperature"] == 0.0 and received.body["response_format"] == {"type": "json_object"}
    recall_request = next(r for r in fake.requests if "<reference>" in _user(r.body))
    assert f"<reference>\n{REFERENCE}\n</reference>" in _user(recall_request.body)


def test_a_provider_that_refuses_gives_errors_never_passes():
    with FakeOpenAI(error(401, "bad key")) as fake:
        results = reference_results(CASE, llm=make_judge(fake))
    assert [(r.rubric, r.verdict, r.passed) for r in results[4:]] == [
        ("ref_recall", ERROR, False), ("ref_coverage", ERROR, False)]
    assert "401" in results[4].error and "401" in results[5].error


def test_drift_with_the_sentence_model():
    from sumwatch.clustering.sentence_model.embedder import Embedder

    embedder = Embedder()
    aligned = reference_results(ReferenceCase(SOURCE, GOOD, reference=REFERENCE), embedder=embedder)
    off_topic = ("Ticket prices for the cup final doubled overnight. Fans queued outside the stadium for hours.")
    drifted = reference_results(ReferenceCase(SOURCE, off_topic, reference=REFERENCE), embedder=embedder)
    assert aligned[2].verdict == "aligned" and aligned[2].score > 0.8 and aligned[3].verdict == "pass"
    assert drifted[2].verdict == "drifted" and drifted[2].score < DRIFT_THRESHOLD
    assert aligned[2].model == "all-MiniLM-L6-v2" and aligned[2].judge_version.startswith("ref-gates-1:all-MiniLM")

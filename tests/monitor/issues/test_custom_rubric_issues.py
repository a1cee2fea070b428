"""A team's own rubric from failing scores to an issue to a Markdown ticket: the clustering job (real embedding
model, UMAP, HDBSCAN) groups failing "tone" scores into an issue, the namer is told what the rubric asks and
what its failure mode means, the representatives wait in the tone corpus with the judge's verdict proposed, and
the exported ticket carries the rubric's question and the failure mode's line from the promoted definition."""

import json
from dataclasses import replace

import pytest
from tone_rubric import SARCASM_MEANS, TONE_QUESTION, promote_tone, sarcastic, summarization_spans, write_tone_scores

from sumwatch.monitor.contract.calibration import NEEDS_LABEL
from sumwatch.monitor.demo.run import run_demo
from sumwatch.monitor.exports import export_issues
from sumwatch.monitor.exports.config import ExportConfig
from sumwatch.monitor.issues.job import run_clustering
from sumwatch.monitor.store.corpus import load_items
from sumwatch.monitor.store.scores import ScoredSpan, write_scores

pytestmark = pytest.mark.integration

CHEERS = "the summary praises or hypes what it reports beyond what the source says"


@pytest.fixture
def tone_failures(store):
    """36 demo spans on a promoted tone rubric: 20 mocked (sarcasm), 12 hyped (cheerleading), 4 neutral."""
    run_demo(store, n=36, seed=5)
    definition = promote_tone(store)
    spans = summarization_spans(store, 36)
    write_tone_scores(store, definition, spans[:20], spans[32:])
    hyped = [ScoredSpan(ref, {"tone": replace(
        sarcastic(definition, i), failure_mode="cheerleading",
        evidence=f'summary: "an incredible, game-changing win for everyone involved #{i}"',
        explanation="The summary cheers the announcement with superlatives the source never uses.")})
        for i, ref in enumerate(spans[20:32])]
    write_scores(store, hyped, definition.judge_version)
    return store


def _tone_issue(report, mode):
    found = [i for i in report.issues if i.rubric == "tone" and i.failure_mode == mode]
    assert found, [(i.rubric, i.failure_mode, i.members) for i in report.issues]
    return found[0]


def test_failing_tone_scores_become_an_issue_named_from_the_definition_and_a_markdown_ticket(
        tone_failures, settings, tmp_path):
    store = tone_failures
    report = run_clustering(store, settings)
    assert report.failures == 32 and {i.rubric for i in report.issues} == {"tone"}
    issue = _tone_issue(report, "sarcasm")
    # the keyword namer has no remedy of its own for a team's failure mode: the definition says what it is
    assert SARCASM_MEANS in issue.description
    assert "tone check" in issue.root_cause and TONE_QUESTION[:-1] in issue.root_cause
    promoted = load_items(store, rubric="tone", status=NEEDS_LABEL)
    assert promoted and {(i.proposed_verdict, i.origin) for i in promoted} == {("slanted", "promoted")}
    assert "sarcasm" in {i.bucket for i in promoted}

    config = ExportConfig(markdown_dir=str(tmp_path))
    (exported,) = export_issues(store, config, "markdown", [issue.issue_id])
    assert exported.action == "created"
    ticket = (tmp_path / f"{issue.issue_id}.md").read_text()
    assert "tone / sarcasm" in ticket
    assert f"**Rubric tone:** {TONE_QUESTION}" in ticket
    assert f"**Failure mode sarcasm:** {SARCASM_MEANS}" in ticket


def test_an_llm_namer_is_told_what_a_custom_rubric_and_its_failure_mode_mean(tone_failures, settings):
    from fakes.openai_server import FakeOpenAI, chat_completion

    def namer(request):
        # answers by what the request says, as a model would: it can only name the failure if it is told
        user = request["messages"][-1]["content"]
        told = TONE_QUESTION in user and (SARCASM_MEANS in user or CHEERS in user)
        name = {"title": "Summaries mock or hype the news" if told else "Tone problems",
                "description": "The summaries take a side. They editorialise.", "root_cause": "The prompt allows it.",
                "fix": "Ask for a neutral voice.", "severity": "medium"}
        return 200, chat_completion(request, json.dumps(name)), {}, 0.0

    with FakeOpenAI(namer) as fake:
        llm_settings = settings.with_(llm_model="openai/namer-test", llm_api_base=fake.base_url,
                                      llm_api_key="test-key")
        report = run_clustering(tone_failures, llm_settings)
    assert report.namer == "llm:openai/namer-test" and fake.requests
    assert {i.title for i in report.issues} == {"Summaries mock or hype the news"}
    user = fake.requests[0].body["messages"][-1]["content"]
    assert "What they mean (from the rubric definitions):" in user and f"- tone: {TONE_QUESTION}" in user


def test_a_span_judged_on_a_promoted_rubric_by_the_llm_ends_as_a_markdown_ticket(store, settings, tmp_path):
    """The whole way: demo spans, a sampler pass with a loopback LLM judge (it finds every summary sarcastic on
    tone, and judges the built-in rubrics as the default fake judge does), a clustering run, an export."""
    import re

    from fakes.openai_server import FakeOpenAI, chat_completion, judge_responder

    from sumwatch.monitor.scoring.judges import build_cascade
    from sumwatch.monitor.scoring.sampler import Sampler

    def judge(request):
        system = next(m["content"] for m in request["messages"] if m["role"] == "system")
        if "Rubric: tone." not in system:
            return judge_responder(request)
        user = next(m["content"] for m in request["messages"] if m["role"] == "user")
        words = re.search(r"<summary>\n(.*?)\n</summary>", user, re.S).group(1).split()
        reply = {"claims": [{"claim": " ".join(words), "evidence_quote": " ".join(words[:4]), "verdict": "slanted",
                             "failure_mode": "sarcasm"}], "verdict": "slanted", "failure_mode": "sarcasm",
                 "explanation": f"It mocks what it reports: '{' '.join(words[:6])}' reads as a sneer."}
        return 200, chat_completion(request, json.dumps(reply)), {}, 0.0

    run_demo(store, n=40, seed=5)
    definition = promote_tone(store)
    with FakeOpenAI(judge) as fake:
        judged = settings.with_(llm_model="openai/judge-test", llm_api_base=fake.base_url, llm_api_key="test-key")
        scoring = Sampler(store, build_cascade(judged, embeddings=False, mode="always")).run_pass()
    assert scoring.scored_spans == 40
    tone = store.query_rows("SELECT Verdict, FailureMode, JudgeVersion FROM sumwatch_scores FINAL "
                            "WHERE Rubric = 'tone' GROUP BY Verdict, FailureMode, JudgeVersion")
    assert len(tone) == 1 and tone[0][:2] == ("slanted", "sarcasm") and definition.judge_version in tone[0][2]

    report = run_clustering(store, settings)
    issue = _tone_issue(report, "sarcasm")
    (exported,) = export_issues(store, ExportConfig(markdown_dir=str(tmp_path)), "markdown", [issue.issue_id])
    ticket = (tmp_path / exported.external_id).read_text()
    assert "tone / sarcasm" in ticket and f"**Failure mode sarcasm:** {SARCASM_MEANS}" in ticket
    assert "### Example 1: tone / slanted" in ticket and "**Summary:**" in ticket  # a representative, with its text

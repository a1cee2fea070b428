"""A team's own rubric, judged like the built-ins: its checks first, then the LLM; keyed by its own version;
a promotion read from the store by every sampler on it, which judges new spans with it and re-judges stored
ones only when asked (a rescore of that rubric alone)."""

from __future__ import annotations

import json
import re

import pytest
from tone_rubric import CHECKED_TONE as TONE

from sumwatch.monitor.demo.run import run_demo
from sumwatch.monitor.rubrics.definition import BUILTIN, parse_definition
from sumwatch.monitor.rubrics.verdicts import SummaryCase
from sumwatch.monitor.scoring.judges import build_cascade
from sumwatch.monitor.scoring.sampler import Rescore, Sampler
from sumwatch.monitor.settings import Settings
from sumwatch.monitor.store.connection import Store
from sumwatch.monitor.store.judges import JudgeRecord, active_definitions, record_promotion
from tests.fakes.openai_server import FakeOpenAI, chat_completion, judge_responder

SOURCE = "Revenue rose 4% in the quarter. The board approved a dividend of 12 cents."


def _system(request: dict) -> str:
    return next(m["content"] for m in request["messages"] if m["role"] == "system")


def tone_judge(request: dict):
    """Judges tone by the summary's words; any other rubric as the default fake judge does."""
    system = _system(request)
    if "Rubric: tone." not in system:
        return judge_responder(request)
    user = next(m["content"] for m in request["messages"] if m["role"] == "user")
    summary = re.search(r"<summary>\n(.*?)\n</summary>", user, re.S).group(1)
    loud = re.search(r"\b(amazing|terrible)\b", summary, re.I)
    quote = loud.group(0) if loud else summary[:30]
    reply = {"claims": [{"claim": summary, "evidence_quote": quote, "verdict": "loaded" if loud else "neutral",
                         "failure_mode": "emotive_wording" if loud else ""}],
             "verdict": "loaded" if loud else "neutral", "failure_mode": "emotive_wording" if loud else "",
             "explanation": "judged on its wording"}
    return 200, chat_completion(request, json.dumps(reply)), {}, 0.0


def tone_requests(fake: FakeOpenAI) -> list[dict]:
    return [r.body for r in fake.requests if "Rubric: tone." in _system(r.body)]


def llm_settings(fake: FakeOpenAI) -> Settings:
    return Settings.from_env(env={}, llm_model="openai/judge-test", llm_api_base=fake.base_url, llm_api_key="k")


@pytest.mark.integration
def test_a_custom_rubric_is_judged_by_its_checks_then_the_llm():
    tone = parse_definition(TONE, origin="tone.toml")
    with FakeOpenAI(tone_judge) as fake:
        cascade = build_cascade(llm_settings(fake), embeddings=False, definitions={**BUILTIN, "tone": tone})
        assert cascade.rubrics[-1] == "tone"
        banned, loud, calm = cascade.score_batch(
            [SummaryCase(SOURCE, "Guaranteed returns: revenue rose 4%."),
             SummaryCase(SOURCE, "Amazing quarter: revenue rose 4%."),
             SummaryCase(SOURCE, "Revenue rose 4% and a dividend was approved.")], rubrics=["tone"])
    # the listed phrase decides alone, with certainty: the LLM never saw that summary
    assert (banned["tone"].verdict, banned["tone"].failure_mode, banned["tone"].tier) == ("loaded", "banned_phrase",
                                                                                        "rules")
    assert banned["tone"].evidence == 'summary "Guaranteed returns"' and not banned["tone"].passed
    asked = tone_requests(fake)
    assert len(asked) == 2 and not any("Guaranteed" in json.dumps(r) for r in asked)
    assert "Cheering or mocking wording fails." in _system(asked[0])  # the definition's criteria reach the LLM
    assert (loud["tone"].verdict, loud["tone"].failure_mode, loud["tone"].tier) == ("loaded", "emotive_wording", "llm")
    assert loud["tone"].score == 0.0 and calm["tone"].passed and calm["tone"].score == 1.0
    assert loud["tone"].judge_version == cascade.version_for("tone")
    assert f"/{tone.judge_version}/llm-" in cascade.version_for("tone")


def test_without_an_llm_only_rubrics_with_checks_are_judged_and_a_miss_is_unsure(rules_cascade):
    tone = parse_definition(TONE)
    plain = parse_definition(re.sub(r"\[\[checks\]\].*", "", TONE, flags=re.S).replace('"tone"', '"plain"'))
    cascade = rules_cascade.with_definitions({**BUILTIN, "tone": tone, "plain": plain})
    assert cascade.rubrics == (*BUILTIN, "tone")  # nothing here can judge "plain"
    (out,) = cascade.score_batch([SummaryCase(SOURCE, "Revenue rose 4%.")])
    assert out["tone"].passed and not out["tone"].confident and "no LLM" in out["tone"].explanation
    assert "plain" not in out


@pytest.mark.integration
def test_a_promotion_in_the_store_reaches_another_sampler_which_rejudges_that_rubric_alone_when_asked(
        store, settings):
    run_demo(store, n=6, seed=3)
    with FakeOpenAI(tone_judge) as fake:
        first = Sampler(store, build_cascade(llm_settings(fake), embeddings=False))
        record_promotion(store, JudgeRecord.of(parse_definition(TONE), promoted_by="test"))
        report = first.run_pass()
        assert report.scored_spans == 6 and report.score_rows == 6 * 5
        assert len(tone_requests(fake)) == 6

        # another process on the same database promotes an edit; a sampler that never saw it uses it
        edited = parse_definition(TONE.replace('version = "v1"', 'version = "v2"')
                                  .replace("Cheering or mocking", "Cheering, mocking or gloomy"))
        other = Store.open(settings)
        try:
            record_promotion(other, JudgeRecord.of(edited, promoted_by="other process"))
        finally:
            other.close()
        assert active_definitions(store)["tone"].version == "v2"
        before = len(fake.requests)
        second = Sampler(store, build_cascade(llm_settings(fake), embeddings=False)).run_pass()
        assert second.scored_spans == 0 and len(fake.requests) == before  # stored spans: not judged again unasked
        third = Sampler(store, build_cascade(llm_settings(fake), embeddings=False),
                        rescore=Rescore(rubrics=("tone",))).run_pass()
        asked = [r.body for r in fake.requests[before:]]
    assert third.scored_spans == 6 and third.score_rows == 6  # tone alone: the built-ins' scores stand
    assert asked and all("Rubric: tone." in _system(r) and "Cheering, mocking or gloomy" in _system(r) for r in asked)
    versions = dict(store.query_rows(
        "SELECT JudgeVersion, count() FROM sumwatch_scores FINAL WHERE Rubric = 'tone' GROUP BY JudgeVersion"))
    assert sorted(v.split("/")[1] for v in versions) == [parse_definition(TONE).judge_version, edited.judge_version]
    assert set(versions.values()) == {6}  # old and new verdicts kept apart, keyed by their judge version


def test_a_stored_definition_that_no_longer_parses_never_becomes_active(store):
    good = parse_definition(TONE)
    record_promotion(store, JudgeRecord.of(good))
    broken = JudgeRecord.of(parse_definition(TONE.replace('"v1"', '"v2"')))
    record_promotion(store, JudgeRecord(**{**broken.__dict__, "definition": broken.definition + "\nbogus = 1\n"}))
    assert active_definitions(store)["tone"].version == "v1"


@pytest.mark.parametrize("rubric", list(BUILTIN))
def test_each_builtin_keeps_its_rubric_version_apart(rubric, rules_cascade):
    assert f"/{BUILTIN[rubric].judge_version}" in rules_cascade.version_for(rubric)

"""Verdicts back out: OTLP gen_ai.evaluation.result log records, Langfuse scores, Phoenix span annotations, against
loopback fakes that check each API's documented request shape; sent once, retried, failures kept for the next pass."""

from __future__ import annotations

import os
import time
from datetime import datetime, timezone

import pytest
from fakes.score_targets import LANGFUSE_SECRET, OTLP_TOKEN, PHOENIX_KEY, Fault

from sumwatch.monitor.exports.score_sends import MAX_SEND_ATTEMPTS, after_sampling, score_rule_problems, send_scores
from sumwatch.monitor.exports.score_targets import MAX_INGESTION_BYTES, Langfuse, verdict_id
from sumwatch.monitor.rubrics.verdicts import RubricResult
from sumwatch.monitor.settings import SettingsError
from sumwatch.monitor.store.score_sends import FAILED, GIVEN_UP, SENT, Verdict, load_sends, unsent_scores
from sumwatch.monitor.store.scores import ScoredSpan, SpanRef, write_scores
from sumwatch.tracer import semconv

pytestmark = pytest.mark.integration

JUDGE = "cascade-1/test"


def _span() -> SpanRef:
    return SpanRef(os.urandom(16).hex(), os.urandom(8).hex(), time.time_ns(), "svc")


def _score(store, *, failing: bool = False) -> SpanRef:
    """One span judged on two rubrics: factuality (passing or not) and conciseness (passing)."""
    ref = _span()
    fact = (RubricResult.make("factuality", "numerically_wrong", failure_mode="number_mismatch", tier="llm",
                              explanation='"21%" where the source says "12%"') if failing
            else RubricResult.make("factuality", "correct", tier="rules", explanation="every number matches"))
    write_scores(store, [ScoredSpan(ref, {"factuality": fact,
                                          "conciseness": RubricResult.make("conciseness", "concise")})], JUDGE)
    return ref



def test_otlp_sends_gen_ai_evaluation_result_events_on_the_evaluated_span(store, targets):
    ref = _score(store, failing=True)
    [result] = send_scores(store, targets.config(), ["otlp"])
    assert (result.sent, result.failed) == (2, 0) and not targets.problems
    assert {(s.trace_id, s.span_id) for s in targets.otlp} == {(ref.trace_id, ref.span_id)}
    fact = next(s for s in targets.otlp if s.attributes[semconv.EVALUATION_NAME] == "factuality")
    assert fact.event_name == semconv.EVALUATION_EVENT == "gen_ai.evaluation.result"
    assert fact.attributes[semconv.EVALUATION_SCORE_LABEL] == "numerically_wrong"
    assert fact.attributes[semconv.EVALUATION_SCORE_VALUE] == 0.0
    assert "21%" in fact.attributes[semconv.EVALUATION_EXPLANATION]
    assert fact.attributes[semconv.JUDGE_VERSION] == JUDGE and fact.service == "sumwatch"
    assert fact.attributes[semconv.EVALUATION_PASSED] is False


def test_langfuse_scores_name_the_trace_and_observation_by_their_otel_ids(store, targets):
    ref = _score(store)
    [result] = send_scores(store, targets.config(), ["langfuse"])
    assert result.sent == 2 and not targets.problems and len(targets.langfuse) == 2
    score = next(s for s in targets.langfuse.values() if s["name"] == "factuality")
    assert (score["traceId"], score["observationId"]) == (ref.trace_id, ref.span_id)
    assert score["dataType"] == "NUMERIC" and score["value"] == 1.0
    assert score["comment"].startswith("correct") and score["metadata"]["judge_version"] == JUDGE
    assert score["id"] in targets.langfuse  # the id sent is the one Langfuse keys the score on


def test_phoenix_annotations_carry_label_score_explanation_and_an_upsert_identifier(store, targets):
    ref = _score(store, failing=True)
    [result] = send_scores(store, targets.config(), ["phoenix"])
    assert result.sent == 2 and not targets.problems
    note = targets.phoenix[(ref.span_id, "factuality", f"sumwatch:{JUDGE}")]
    assert note["annotator_kind"] == "LLM"  # the LLM tier decided it
    assert note["result"] == {"label": "numerically_wrong", "score": 0.0,
                              "explanation": '"21%" where the source says "12%"'}
    assert targets.phoenix[(ref.span_id, "conciseness", f"sumwatch:{JUDGE}")]["annotator_kind"] == "CODE"


def test_a_second_pass_sends_nothing_again_and_a_new_verdict_once(store, targets):
    _score(store)
    config = targets.config()
    first = send_scores(store, config, ["otlp", "langfuse", "phoenix"])
    assert [r.sent for r in first] == [2, 2, 2]
    calls = len(targets.calls)
    again = send_scores(store, config, ["otlp", "langfuse", "phoenix"])
    assert [r.sent for r in again] == [0, 0, 0] and len(targets.calls) == calls  # not even a request
    _score(store)
    third = send_scores(store, config, ["otlp", "langfuse", "phoenix"])
    assert [r.sent for r in third] == [2, 2, 2]
    assert len(targets.otlp) == 4 and len(targets.langfuse) == 4 and len(targets.phoenix) == 4
    assert {r.phase for r in load_sends(store)} == {SENT} and len(load_sends(store)) == 12


def test_5xx_and_429_are_retried_within_the_pass(store, targets):
    _score(store)
    answers = {"otlp": [Fault(503), Fault(429, retry_after="0")], "langfuse": [Fault(502), Fault(429, retry_after="0")],
               "phoenix": [Fault(500)]}
    targets.fault = lambda target: answers[target].pop(0) if answers[target] else None
    results = send_scores(store, targets.config(), ["otlp", "langfuse", "phoenix"])
    assert [(r.sent, r.failed) for r in results] == [(2, 0), (2, 0), (2, 0)]
    assert [t for t, _ in targets.calls].count("otlp") == 3  # two refusals, then taken
    assert targets.langfuse_posts == 1 and len(targets.langfuse) == 2  # the batch, taken once after two refusals
    assert {r.phase for r in load_sends(store)} == {SENT}


def test_a_failed_send_is_recorded_and_sent_on_the_next_pass_not_in_a_loop(store, targets):
    ref = _score(store, failing=True)
    targets.fault = lambda target: Fault(503, echo=True)
    [failed] = send_scores(store, targets.config(export_max_attempts=2), ["phoenix"])
    assert (failed.sent, failed.failed) == (0, 2) and "503" in failed.errors[0]
    assert PHOENIX_KEY not in failed.errors[0]  # the echoed header is scrubbed
    rows = load_sends(store, "phoenix")
    assert {r.phase for r in rows} == {FAILED} and {r.attempts for r in rows} == {1}
    assert PHOENIX_KEY not in rows[0].error and [t for t, _ in targets.calls].count("phoenix") == 2
    targets.fault = None
    [retried] = send_scores(store, targets.config(), ["phoenix"], since="1s")  # failed ones, whatever their age
    assert retried.sent == 2 and (ref.span_id, "factuality", f"sumwatch:{JUDGE}") in targets.phoenix
    rows = load_sends(store, "phoenix")
    assert {r.phase for r in rows} == {SENT} and {r.attempts for r in rows} == {2}


def test_langfuse_takes_a_batch_and_records_each_events_result(store, targets):
    refs = [_score(store, failing=True) for _ in range(3)]
    bad, busy = refs[0].span_id, refs[1].span_id

    def refuse(score):
        if (score["observationId"], score["name"]) == (bad, "factuality"):
            return 400, f"invalid score config (key {LANGFUSE_SECRET})"  # a server echoing a secret
        if (score["observationId"], score["name"]) == (busy, "conciseness"):
            return 500, "internal error"
        return None

    targets.langfuse_refuse = refuse
    [result] = send_scores(store, targets.config(), ["langfuse"])
    assert targets.langfuse_posts == 1 and targets.langfuse_events == 6  # one request for the six verdicts
    assert (result.sent, result.failed, result.gave_up, result.given_up) == (4, 2, 1, 1)
    rows = {(r.span_id, r.rubric): r for r in load_sends(store, "langfuse")}
    assert rows[(bad, "factuality")].phase == GIVEN_UP and "400" in rows[(bad, "factuality")].error
    assert rows[(busy, "conciseness")].phase == FAILED and "500" in rows[(busy, "conciseness")].error
    assert LANGFUSE_SECRET not in repr(result) and LANGFUSE_SECRET not in repr(rows)
    assert sum(r.phase == SENT for r in rows.values()) == 4 and len(targets.langfuse) == 4
    targets.langfuse_refuse = None
    [again] = send_scores(store, targets.config(), ["langfuse"])
    assert (again.sent, again.failed) == (1, 0) and targets.langfuse_events == 7  # only the failed one, no duplicate
    assert len(targets.langfuse) == 5 and (bad, "factuality") not in {(s["observationId"], s["name"])
                                                                      for s in targets.langfuse.values()}
    [third] = send_scores(store, targets.config(), ["langfuse"])
    assert (third.sent, third.failed, third.given_up) == (0, 0, 1) and targets.langfuse_posts == 2  # no request


def test_a_verdict_failing_every_pass_is_given_up_after_the_cap_and_sent_when_asked(store, targets):
    ref = _score(store)
    targets.langfuse_refuse = lambda s: (503, "overloaded") if s["name"] == "factuality" else None
    config = targets.config()
    for attempt in range(1, MAX_SEND_ATTEMPTS + 1):
        [result] = send_scores(store, config, ["langfuse"], since="1s")
        assert result.failed == 1 and result.gave_up == (attempt == MAX_SEND_ATTEMPTS)
        [row] = [r for r in load_sends(store, "langfuse") if r.rubric == "factuality"]
        assert row.attempts == attempt and row.phase == (GIVEN_UP if attempt == MAX_SEND_ATTEMPTS else FAILED)
    posts = targets.langfuse_posts
    [idle] = send_scores(store, config, ["langfuse"])
    assert (idle.sent, idle.failed, idle.given_up) == (0, 0, 1) and targets.langfuse_posts == posts
    targets.langfuse_refuse = None
    [retried] = send_scores(store, config, ["langfuse"], retry_given_up=True)
    assert (retried.sent, retried.given_up) == (1, 0)
    assert (ref.span_id, "factuality") in {(s["observationId"], s["name"]) for s in targets.langfuse.values()}


def test_an_outage_fails_passes_but_gives_up_nothing(store, targets):
    _score(store)
    targets.fault = lambda target: Fault(503)
    config = targets.config(export_max_attempts=1)
    for _ in range(MAX_SEND_ATTEMPTS + 1):
        [result] = send_scores(store, config, ["phoenix"])
        assert (result.failed, result.gave_up) == (2, 0)
    rows = load_sends(store, "phoenix")
    assert {r.phase for r in rows} == {FAILED} and {r.attempts for r in rows} == {MAX_SEND_ATTEMPTS + 1}
    targets.fault = None
    assert send_scores(store, config, ["phoenix"])[0].sent == 2


def test_a_lone_verdict_refused_as_a_request_is_given_up(store, targets):
    _score(store)
    _score(store)
    targets.fault = lambda target: Fault(422)
    [result] = send_scores(store, targets.config(), ["phoenix"], limit=1)
    assert (result.failed, result.gave_up) == (1, 1)
    [result] = send_scores(store, targets.config(), ["phoenix"])  # three in the request: which one is unknown
    assert (result.failed, result.gave_up, result.given_up) == (3, 0, 1)


def test_langfuse_batches_stay_under_the_size_and_count_limits():
    def verdict(i: int, explanation: str) -> Verdict:
        return Verdict(f"{i:032x}", f"{i:016x}", "factuality", JUDGE, 0, 0, "correct", 1.0, True, "", "llm",
                       explanation, "m", "svc")

    target = Langfuse.__new__(Langfuse)
    big = [verdict(i, "x" * 400_000) for i in range(20)]
    batches = target.batches(big)
    assert len(batches) == 3 and sum(len(b) for b in batches) == 20
    assert all(len(str(target.requests(b)[0]).encode()) < MAX_INGESTION_BYTES for b in batches)
    assert [len(b) for b in target.batches([verdict(i, "") for i in range(250)])] == [100, 100, 50]


def test_a_refused_key_stops_the_target_for_this_pass_with_a_scrubbed_reason(store, targets):
    for _ in range(3):
        _score(store)
    config = targets.config(langfuse_secret_key="sk-lf-wrong-secret-999")
    [result] = send_scores(store, config, ["langfuse"])
    assert (result.sent, result.failed, result.gave_up) == (0, 6, 0) and "401" in result.errors[0]
    assert targets.langfuse_posts == 0 and [t for t, _ in targets.calls].count("langfuse") == 1
    assert LANGFUSE_SECRET not in repr(result) and "sk-lf-wrong-secret-999" not in repr(result)


def test_failing_only_sends_only_failing_verdicts(store, targets):
    ref = _score(store, failing=True)
    [result] = send_scores(store, targets.config(scores_verdicts="all,langfuse=failing"), ["langfuse"])
    assert result.sent == 1
    [score] = targets.langfuse.values()
    assert score["name"] == "factuality" and score["observationId"] == ref.span_id


def test_dry_run_shows_the_requests_and_sends_nothing(store, targets):
    ref = _score(store)
    results = send_scores(store, targets.config(), ["otlp", "langfuse", "phoenix"], dry_run=True)
    assert [r.would_send for r in results] == [2, 2, 2] and not targets.calls and not load_sends(store)
    otlp, langfuse, phoenix = (r.requests for r in results)
    assert otlp and "gen_ai.evaluation.result" in str(otlp[0])
    assert langfuse and langfuse[0]["batch"][0]["type"] == "score-create"
    assert langfuse[0]["batch"][0]["body"]["traceId"] == ref.trace_id
    assert phoenix and phoenix[0]["data"][0]["span_id"] == ref.span_id
    assert OTLP_TOKEN not in str(results)


def test_judge_errors_are_not_sent(store, targets):
    ref = _span()
    write_scores(store, [ScoredSpan(ref, {"factuality": RubricResult.make("factuality", "error", error="timeout")})],
                 JUDGE)
    [result] = send_scores(store, targets.config(), ["langfuse"])
    assert result.sent == 0 and not targets.calls


def test_ids_on_the_wire_are_stable_per_verdict(store, targets):
    _score(store)
    config = targets.config()
    send_scores(store, config, ["langfuse"])
    ids = set(targets.langfuse)
    verdicts = unsent_scores(store, "otlp", since=datetime(2000, 1, 1, tzinfo=timezone.utc))
    assert {verdict_id(v) for v in verdicts} == ids


def test_the_worker_hook_sends_to_the_configured_targets_only(store, targets):
    _score(store)
    assert after_sampling(store, targets.config()) == []  # off by default
    results = after_sampling(store, targets.config(scores_targets="phoenix"))
    assert [(r.target, r.sent) for r in results] == [("phoenix", 2)] and not targets.otlp


def test_bad_settings_give_one_line(store):
    from sumwatch.monitor.exports.config import ExportConfig

    with pytest.raises(ValueError, match="^no score target is configured"):
        send_scores(store, ExportConfig(), None)
    with pytest.raises(ValueError, match="^langfuse: set SUMWATCH_LANGFUSE_HOST"):
        send_scores(store, ExportConfig(), ["langfuse"])
    with pytest.raises(ValueError, match="^unknown score target 'datadog'"):
        send_scores(store, ExportConfig(), ["datadog"])
    config = ExportConfig(phoenix_endpoint="http://127.0.0.1:9")
    with pytest.raises(ValueError, match="^--since: a duration"):
        send_scores(store, config, ["phoenix"], since="yesterday")
    assert score_rule_problems(ExportConfig(scores_targets="otlp")) == [
        "otlp: set SUMWATCH_SCORES_OTLP_ENDPOINT (the OTLP/HTTP endpoint)"]
    for env, line in [
            ({"SUMWATCH_PHOENIX_ENDPOINT": "localhost:6006"}, "SUMWATCH_PHOENIX_ENDPOINT must be an http(s)"),
            ({"SUMWATCH_SCORES_VERDICTS": "bad"}, "SUMWATCH_SCORES_VERDICTS entry 'bad'"),
            ({"SUMWATCH_SCORES_OTLP_HEADERS": "Bearer sekrit-token"}, "SUMWATCH_SCORES_OTLP_HEADERS an entry")]:
        with pytest.raises(SettingsError) as caught:
            ExportConfig.from_env(env=env)
        assert str(caught.value).startswith(line) and "\n" not in str(caught.value)
        assert "sekrit" not in str(caught.value)

"""Score sends count what the target acknowledged: Phoenix with sync=true (its 404 names the spans it does not hold),
a verdict waiting for its span attaches once the span arrives, the worker backs off, a wait has an end,
SUMWATCH_SCORES_SERVICES picks each target's services, and the score sent puts every pass above every fail."""

from __future__ import annotations

import os
import time
from datetime import datetime, timedelta, timezone

import pytest

from sumwatch.monitor.exports.score_sends import SPAN_WAIT_DAYS, after_sampling, score_rule_problems, send_scores
from sumwatch.monitor.rubrics.verdicts import RubricResult
from sumwatch.monitor.settings import SettingsError
from sumwatch.monitor.store.score_sends import GIVEN_UP, SENT, WAITING, load_sends
from sumwatch.monitor.store.scores import ScoredSpan, SpanRef, write_scores
from sumwatch.tracer import semconv

pytestmark = pytest.mark.integration

JUDGE = "cascade-1/test"


def _score(store, service: str = "svc", results: dict[str, RubricResult] | None = None) -> SpanRef:
    ref = SpanRef(os.urandom(16).hex(), os.urandom(8).hex(), time.time_ns(), service)
    write_scores(store, [ScoredSpan(ref, results or {
        "factuality": RubricResult.make("factuality", "correct", tier="rules"),
        "conciseness": RubricResult.make("conciseness", "concise")})], JUDGE)
    return ref



def _phases(store, target: str) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for row in load_sends(store, target):
        out.setdefault(row.span_id, set()).add(row.phase)
    return out


def test_phoenix_counts_sent_only_the_annotations_it_inserted(store, targets):
    held, absent = _score(store), _score(store)
    targets.phoenix_spans = {held.span_id}
    [result] = send_scores(store, targets.config(), ["phoenix"])
    assert (result.sent, result.failed, result.waiting, result.given_up) == (2, 0, 2, 0)
    assert targets.phoenix_dropped == 0  # asked with sync=true: nothing was taken and silently dropped
    assert {span for span, _, _ in targets.phoenix} == {held.span_id}
    assert _phases(store, "phoenix") == {held.span_id: {SENT}, absent.span_id: {WAITING}}
    assert [t for t, _ in targets.calls].count("phoenix") == 2  # the 404 named the span; the rest posted again


def test_a_waiting_verdict_attaches_when_its_span_reaches_phoenix(store, targets):
    ref = _score(store)
    targets.phoenix_spans = set()
    config = targets.config()
    [first] = send_scores(store, config, ["phoenix"])
    assert (first.sent, first.waiting) == (0, 2) and not targets.phoenix
    targets.phoenix_spans.add(ref.span_id)  # the span is exported to Phoenix later
    [later] = send_scores(store, config, ["phoenix"], since="1s")  # waiting ones, whatever their age
    assert (later.sent, later.waiting, later.failed) == (2, 0, 0)
    assert {(s, n) for s, n, _ in targets.phoenix} == {(ref.span_id, "factuality"), (ref.span_id, "conciseness")}
    assert _phases(store, "phoenix") == {ref.span_id: {SENT}}


def test_the_worker_tries_a_waiting_verdict_again_only_after_its_back_off(store, targets):
    _score(store)
    targets.phoenix_spans = set()
    config = targets.config(scores_targets="phoenix")
    [first] = after_sampling(store, config)
    assert first.waiting == 2
    calls = len(targets.calls)
    now = datetime.now(timezone.utc)
    [early] = send_scores(store, config, ["phoenix"], due_only=True, now=now + timedelta(seconds=30))
    assert (early.sent, early.waiting) == (0, 2) and len(targets.calls) == calls  # not even a request
    [due] = send_scores(store, config, ["phoenix"], due_only=True, now=now + timedelta(seconds=90))
    assert due.waiting == 2 and len(targets.calls) == calls + 1
    assert {r.attempts for r in load_sends(store, "phoenix")} == {2}
    # the second try was made after ``now``, and its wait is twice the first: ``now`` + 90 s is too early now
    send_scores(store, config, ["phoenix"], due_only=True, now=now + timedelta(seconds=90))
    assert len(targets.calls) == calls + 1
    send_scores(store, config, ["phoenix"], due_only=True, now=now + timedelta(seconds=300))
    assert len(targets.calls) == calls + 2
    send_scores(store, config, ["phoenix"])  # a send by hand tries it at once
    assert len(targets.calls) == calls + 3


def test_a_verdict_waiting_past_its_limit_is_given_up_and_sent_when_asked(store, targets):
    ref = _score(store)
    targets.phoenix_spans = set()
    config = targets.config()
    send_scores(store, config, ["phoenix"])
    later = datetime.now(timezone.utc) + timedelta(days=SPAN_WAIT_DAYS, minutes=1)
    [old] = send_scores(store, config, ["phoenix"], now=later)
    assert (old.gave_up, old.given_up, old.waiting) == (2, 2, 0)
    assert {r.phase for r in load_sends(store, "phoenix")} == {GIVEN_UP}
    assert "does not hold span" in load_sends(store, "phoenix")[0].error
    targets.phoenix_spans.add(ref.span_id)
    [idle] = send_scores(store, config, ["phoenix"])
    assert idle.sent == 0
    [retried] = send_scores(store, config, ["phoenix"], retry_given_up=True)
    assert (retried.sent, retried.given_up) == (2, 0) and len(targets.phoenix) == 2


def test_a_wrong_phoenix_endpoint_fails_the_pass_and_waits_for_nothing(store, targets):
    _score(store)
    [result] = send_scores(store, targets.config(phoenix_endpoint=f"{targets.base}/elsewhere"), ["phoenix"])
    assert (result.sent, result.failed, result.waiting, result.gave_up) == (0, 2, 0, 0) and "404" in result.errors[0]


def test_scores_services_chooses_whose_verdicts_go_where(store, targets):
    a, b = _score(store, "svc-a"), _score(store, "svc-b")
    config = targets.config(scores_services="svc-b;phoenix=svc-a;langfuse=*")
    results = {r.target: r.sent for r in send_scores(store, config, ["otlp", "langfuse", "phoenix"])}
    assert results == {"otlp": 2, "langfuse": 4, "phoenix": 2}
    assert {s for s, _, _ in targets.phoenix} == {a.span_id}
    assert {s.span_id for s in targets.otlp} == {b.span_id}
    assert {s["observationId"] for s in targets.langfuse.values()} == {a.span_id, b.span_id}
    assert score_rule_problems(config) == []


def test_scores_services_is_checked_when_the_settings_load():
    from sumwatch.monitor.exports.config import ExportConfig

    for value, line in [("datadog=svc", "SUMWATCH_SCORES_SERVICES entry 'datadog=svc' names 'datadog', not a score "
                                        "target"),
                        ("phoenix=", "SUMWATCH_SCORES_SERVICES entry 'phoenix=' names no service"),
                        ("phoenix=a;phoenix=b", "SUMWATCH_SCORES_SERVICES names 'phoenix' twice"),
                        ("Phoenix=svc", "SUMWATCH_SCORES_SERVICES entry 'Phoenix=svc' names 'Phoenix', not a score")]:
        with pytest.raises(SettingsError) as caught:
            ExportConfig.from_env(env={"SUMWATCH_SCORES_SERVICES": value})
        assert str(caught.value).startswith(line) and "\n" not in str(caught.value)


def test_every_target_gets_a_passing_verdict_scored_above_a_failing_one(store, targets):
    # the cheap tiers' ranked scores: a failing groundedness verdict 0.42, a passing one 0.39
    failing = _score(store, results={"groundedness": RubricResult.make("groundedness", "partial", score=0.42,
                                                                        tier="embeddings")})
    passing = _score(store, results={"groundedness": RubricResult.make("groundedness", "supported", score=0.39,
                                                                        tier="embeddings")})
    send_scores(store, targets.config(), ["otlp", "langfuse", "phoenix"])
    otlp = {s.span_id: s.attributes[semconv.EVALUATION_SCORE_VALUE] for s in targets.otlp}
    langfuse = {s["observationId"]: s["value"] for s in targets.langfuse.values()}
    phoenix = {s: a["result"]["score"] for (s, _, _), a in targets.phoenix.items()}
    for sent in (otlp, langfuse, phoenix):
        assert sent[passing.span_id] >= 0.55 > 0.45 >= sent[failing.span_id]
    judged = {s["observationId"]: s["metadata"]["judge_score"] for s in targets.langfuse.values()}
    assert judged == {failing.span_id: 0.42, passing.span_id: 0.39}  # the judge's own score is kept beside it


def test_send_scores_prints_the_verdicts_waiting_for_their_span(store, targets, cli_env):
    from typer.testing import CliRunner

    from sumwatch.monitor.cli import app

    _score(store)
    targets.phoenix_spans = set()
    result = CliRunner().invoke(app, ["send-scores", "--to", "phoenix"], env={**cli_env, **targets.env()})
    assert result.exit_code == 0, result.output  # waiting is no failure
    assert "waiting" in result.stdout and "2 verdicts wait for their span" in result.stdout


def test_a_worker_pass_with_nothing_due_builds_no_client(store, targets, monkeypatch):
    _score(store)
    targets.phoenix_spans = set()
    config = targets.config(scores_targets="phoenix")
    assert after_sampling(store, config)[0].waiting == 2
    built = []
    monkeypatch.setattr("sumwatch.monitor.exports.score_sends.build_score_target", lambda *a: built.append(a))
    [idle] = after_sampling(store, config)  # within the back-off: nothing to send
    assert (idle.sent, idle.waiting, idle.given_up) == (0, 2, 0) and built == []

"""Retries in one place: the wait the remote asks for, the ceiling, the last attempt, and the three callers
(the judge, the cluster namer, the tracker exports) that go through it."""

import logging
import re
import time

import pytest
from fakes.openai_server import FakeOpenAI, answer, error, judge_responder, sequence
from fakes.trackers import FakeTrackers, Fault

from sumwatch.clustering import LLMNamer, NameRequest
from sumwatch.monitor.remote.llm import LitellmModel, LLMConnection
from sumwatch.monitor.remote.retry import GaveUp, RetryPolicy, Transient
from sumwatch.monitor.rubrics.llm import LLMConfig, LLMJudge
from sumwatch.monitor.rubrics.verdicts import SummaryCase


def script(*outcomes):
    """An attempt that raises or returns each outcome in turn, and the list of calls it saw."""
    left = list(outcomes)

    def attempt():
        outcome = left.pop(0)
        if isinstance(outcome, BaseException):
            raise outcome
        return outcome
    return attempt


def test_a_transient_failure_waits_what_the_remote_asked_then_succeeds():
    sleeps = []
    retried = []
    result = RetryPolicy(attempts=3, backoff_s=5).call(script(Transient("429 slow down", 0.2), "ok"), what="t",
                                                       sleep=sleeps.append, on_retry=lambda p, w: retried.append(w))
    assert result == "ok" and sleeps == [0.2] and retried == [0.2]


def test_without_retry_after_the_wait_doubles_with_jitter():
    sleeps = []
    with pytest.raises(GaveUp) as caught:
        RetryPolicy(attempts=4, backoff_s=1.0, max_wait_s=60).call(
            script(*[Transient("503 unavailable")] * 4), what="t", sleep=sleeps.append)
    assert len(sleeps) == 3 and all(0.5 * 2 ** i <= s <= 2 ** i for i, s in enumerate(sleeps))
    assert str(caught.value) == "503 unavailable (gave up after 4 attempts)" and caught.value.attempts == 4


def test_a_wait_beyond_the_ceiling_is_not_waited_for_and_the_setting_is_named():
    sleeps = []
    policy = RetryPolicy(attempts=5, max_wait_s=120, setting="SUMWATCH_EXPORT_MAX_WAIT_S")
    with pytest.raises(GaveUp) as caught:
        policy.call(script(Transient("github: 429 rate limited", 600)), what="t", sleep=sleeps.append)
    assert sleeps == [] and caught.value.attempts == 1
    assert str(caught.value) == ("github: 429 rate limited (Retry-After 600s is beyond SUMWATCH_EXPORT_MAX_WAIT_S "
                                 "(120s))")


def test_any_other_error_ends_the_call_at_once():
    sleeps = []
    with pytest.raises(KeyError):
        RetryPolicy(attempts=5).call(script(KeyError("bad"), "never"), what="t", sleep=sleeps.append)
    assert sleeps == []


async def test_the_async_form_waits_with_the_same_rules():
    async def attempt(outcomes=[Transient("429", 0.05), "ok"]):  # noqa: B006 - the script, consumed in turn
        outcome = outcomes.pop(0)
        if isinstance(outcome, BaseException):
            raise outcome
        return outcome
    started = time.monotonic()
    assert await RetryPolicy(attempts=2).acall(attempt, what="t") == "ok"
    assert time.monotonic() - started >= 0.05


GROUNDED_CASE = SummaryCase(source="Revenue rose 12% to $4.2 million in the third quarter.",
                            summary="Revenue rose 12% to $4.2 million.")
NAME = {"title": "Growth figures changed", "severity": "high",
        "description": "Summaries change growth figures. The wrong number is recomputed.",
        "root_cause": "The model recomputes figures.", "fix": "Copy every figure verbatim."}


@pytest.mark.integration
async def test_the_judge_the_namer_and_the_exports_wait_out_a_429_in_the_one_policy(caplog):
    caplog.set_level(logging.INFO, logger="sumwatch.retry")
    connection = {"api_key": "test-key", "timeout_s": 5, "backoff_s": 5.0}  # a backoff would log 2.5-5 s
    with FakeOpenAI(sequence(error(429, retry_after=0.3), then=judge_responder)) as fake:
        judge = LLMJudge(LLMConfig("openai/judge-test", api_base=fake.base_url, **connection))
        started = time.monotonic()
        verdict = await judge.ajudge("groundedness", GROUNDED_CASE)
        judge_took, judge_requests = time.monotonic() - started, len(fake.requests)
    with FakeOpenAI(sequence(error(429, retry_after=0.3), then=answer(NAME))) as fake:
        model = LitellmModel(LLMConnection("openai/namer-test", fake.base_url, **connection), name="LLM namer")
        namer = LLMNamer(model)
        named = await namer.aname_all([NameRequest(["12% became 21%"], {"factuality": 1}, {"numerically_wrong": 1})])
        namer_requests = len(fake.requests)
    with FakeTrackers() as trackers:
        from sumwatch.monitor.exports.github import GitHub

        faults = iter([Fault(429, retry_after="0.3")])
        trackers.fault = lambda target, op: next(faults, None) if op == "create" else None
        github = GitHub(trackers.config(export_backoff_s=5.0))
        created = github.http.request("POST", f"{trackers.base}/github/repos/acme/summaries/issues", creates=True,
                                      json={"title": "SW-1 numbers changed", "body": "sumwatch:SW-1", "labels": []})
        export_requests, export_retries = len(trackers.requests), github.http.retries
    assert verdict.passed and judge_requests == 2 and judge_took >= 0.3
    assert named[0].title == "Growth figures changed" and namer_requests == 2 and namer.calls == 2
    assert created.status_code == 201 and export_requests == 2 and export_retries == 1
    waits = [r.getMessage() for r in caplog.records if r.name == "sumwatch.retry"]
    assert [w.split(" (")[0].split(":")[0] for w in waits] == ["LLM judge", "LLM namer", "export"], waits
    assert all(re.search(r"429.*; retry 1 of \d in 0\.30s$", w) for w in waits), waits

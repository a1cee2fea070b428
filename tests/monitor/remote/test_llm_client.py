"""The one LLM connection every model caller shares: its defaults, its checks, and how long it waits."""

import pytest

from sumwatch.clustering import JsonModel, LLMNamer
from sumwatch.monitor.remote.llm import LitellmModel, LLMConnection, describe_error


def test_model_endpoint_and_key_may_be_positional_the_rest_are_keywords():
    connection = LLMConnection("openai/gpt-4o-mini", "http://127.0.0.1:9/v1", "sk-secret-key-123")
    assert (connection.model, connection.api_base, connection.api_key) == (
        "openai/gpt-4o-mini", "http://127.0.0.1:9/v1", "sk-secret-key-123")
    assert (connection.timeout_s, connection.max_retries, connection.backoff_s, connection.max_backoff_s,
            connection.concurrency) == (30.0, 3, 0.5, 30.0, 16)
    with pytest.raises(TypeError):
        LLMConnection("openai/gpt-4o-mini", None, None, 10.0)  # a bare number could be any of five fields
    assert "sk-secret-key-123" not in repr(connection) and "gpt-4o-mini" in repr(connection)


@pytest.mark.parametrize("bad", [dict(model=""), dict(concurrency=0), dict(max_retries=-1), dict(timeout_s=0)])
def test_an_unusable_connection_is_refused(bad):
    with pytest.raises(ValueError):
        LLMConnection(**{"model": "openai/x", **bad})


def test_the_connection_retries_through_the_one_retry_policy():
    policy = LLMConnection("openai/x", max_retries=2, backoff_s=0.5, max_backoff_s=10.0).retry_policy
    assert (policy.attempts, policy.backoff_s, policy.max_wait_s) == (3, 0.5, 10.0)
    assert policy.wait_s(1, 2.0) == 2.0 and policy.wait_s(1, 0.25) == 0.25  # what the provider asked
    for retry in range(1, 4):
        delays = [policy.wait_s(retry, None) for _ in range(50)]
        assert all(0.5 * 2 ** (retry - 1) * 0.5 <= d <= 0.5 * 2 ** (retry - 1) for d in delays)
        assert len(set(delays)) > 1  # jittered, so clients that failed together do not retry together
    assert policy.wait_s(10, None) == 10.0


def test_the_litellm_client_is_the_model_the_namer_asks():
    connection = LLMConnection("openai/x", "http://127.0.0.1:9/v1", "sk-secret-key-123", concurrency=3)
    model = LitellmModel(connection)
    namer = LLMNamer(model, max_examples=4)
    assert isinstance(model, JsonModel) and namer.llm is model and namer.model == "openai/x"
    assert "concurrency=3" in repr(namer) and "sk-secret-key-123" not in repr(namer) + repr(model)


def test_a_refused_connection_reads_connection_refused_not_a_server_error():
    try:
        raise ConnectionError("Connection error.") from ConnectionRefusedError(111, "Connection refused")
    except ConnectionError as exc:
        text = describe_error(exc, "http://user:pw@127.0.0.1:9/v1")
    assert text == "connection refused by 127.0.0.1:9 (ConnectionError)"


async def test_a_refused_connection_is_retried_then_reported_as_refused_never_as_a_500():
    import socket

    from sumwatch.monitor.rubrics.llm import LLMConfig, LLMJudge
    from sumwatch.monitor.rubrics.verdicts import ERROR, SummaryCase

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again before the call: nothing listens there
    judge = LLMJudge(LLMConfig("openai/x", f"http://127.0.0.1:{port}/v1", "sk-secret-key-123", max_retries=1,
                               backoff_s=0.01, timeout_s=5))
    result = await judge.ajudge("groundedness", SummaryCase("Revenue rose 12%.", "Revenue rose 12%."))
    assert result.verdict == ERROR and judge.calls == 2  # a refused connection is worth one more try
    assert result.error.startswith(f"connection refused by 127.0.0.1:{port}")
    assert result.error.endswith("(gave up after 2 attempts)")
    said = result.error.replace(f"127.0.0.1:{port}", "127.0.0.1:PORT")  # the free port itself may contain "500"
    assert "500" not in said and "sk-secret-key-123" not in said

"""The one LLM connection every model caller shares: its defaults, its checks, and how long it waits."""

import pytest

from sumwatch.clustering import LLMConnection, LLMNamer


class _Limited(Exception):
    """A provider error carrying response headers, as litellm's exceptions do."""

    def __init__(self, headers: dict[str, str]) -> None:
        super().__init__("rate limited")
        self.headers = headers


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


def test_the_wait_before_a_retry_is_what_the_provider_asked_capped_or_jittered_backoff():
    connection = LLMConnection("openai/x", backoff_s=0.5, max_backoff_s=10.0)
    assert connection.retry_delay(0, _Limited({"retry-after": "2"})) == pytest.approx(2.0)
    assert connection.retry_delay(0, _Limited({"retry-after-ms": "250"})) == pytest.approx(0.25)
    assert connection.retry_delay(0, _Limited({"retry-after": "600"})) == 10.0  # a provider asking for minutes
    for attempt in range(3):
        delays = [connection.retry_delay(attempt, TimeoutError()) for _ in range(50)]
        assert all(0.5 * 2 ** attempt * 0.5 <= d <= 0.5 * 2 ** attempt for d in delays)
        assert len(set(delays)) > 1  # jittered, so clients that failed together do not retry together
    assert connection.retry_delay(10, TimeoutError()) == 10.0


def test_a_namer_keeps_the_connection_it_is_given_and_a_model_name_means_the_defaults():
    connection = LLMConnection("openai/x", "http://127.0.0.1:9/v1", "sk-secret-key-123", concurrency=3)
    namer = LLMNamer(connection, max_examples=4)
    assert namer.connection is connection and namer.model == "openai/x" and namer.max_examples == 4
    assert "concurrency=3" in repr(namer) and "sk-secret-key-123" not in repr(namer)
    assert LLMNamer("openai/x").connection == LLMConnection("openai/x")

"""The read API `sumwatch up` serves: clear errors over real HTTP on loopback, and open reads without a token."""

import httpx
import pytest
from starlette.testclient import TestClient

from sumwatch.monitor.runtime import Runtime
from sumwatch.monitor.views.app import create_app


def get(server, path, token="s3cret-token", **params):
    headers = {"authorization": f"Bearer {token}"} if token else {}
    return httpx.get(server.endpoint + path, params=params, headers=headers, timeout=10)


@pytest.mark.parametrize("path, params, status, message", [
    ("/api/traces", {"limit": "abc"}, 400, "limit must be a whole number, got 'abc'"),
    ("/api/traces", {"limit": "0"}, 400, "limit must be at least 1, got '0'"),
    ("/api/traces", {"limit": "-1"}, 400, "limit must be at least 1, got '-1'"),
    ("/api/traces", {"limit": "4294967296"}, 400, "limit must be at most 10000, got '4294967296'"),
    ("/api/traces", {"limit": "9" * 5000}, 400, "limit must be a whole number, got '999"),
    ("/api/traces", {"limit": "1.5"}, 400, "limit must be a whole number"),
    ("/api/traces", {"since": "yesterday"}, 400, "since must be an ISO 8601 time like 2026-11-20T12:00:00Z"),
    ("/api/issues", {"resolved": "maybe"}, 400, "resolved must be true or false (or 1, 0), got 'maybe'"),
    ("/api/scores", {"rubric": "tone"}, 404, "rubric must be one of 'groundedness', 'completeness'"),
    ("/api/traces/not-a-trace", {}, 400, "trace id must be 32 hex characters"),
    ("/api/traces/" + "ab" * 16, {}, 404, "no trace"),
    ("/api/issues/nope", {}, 400, "looks like SW-12"),
    ("/api/issues/SW-404", {}, 404, "no issue SW-404"),
])
def test_bad_requests_get_a_clear_status_and_reason(served, path, params, status, message):
    server, _ = served
    answer = get(server, path, **params)
    assert answer.status_code == status and message in answer.json()["error"]


@pytest.mark.parametrize("token", [None, "wrong"])
def test_every_route_wants_the_token_when_one_is_set(served, token):
    server, trace_ids = served
    for path in ("/api/traces", f"/api/traces/{trace_ids[0]}", "/api/issues", "/api/issues/SW-1"):
        answer = get(server, path, token=token)
        assert answer.status_code == 401 and answer.json()["error"].startswith("unauthorized")


def test_limits_in_range_are_served(served):
    server, _ = served
    assert len(get(server, "/api/traces", limit="10000").json()) == 4
    assert len(get(server, "/api/traces", limit="2").json()) == 2
    assert get(server, "/api/issues", resolved="false").status_code == 200


def test_the_right_token_opens_every_route(served):
    server, trace_ids = served
    for path in ("/api/traces", f"/api/traces/{trace_ids[0]}", "/api/issues", "/api/issues/SW-1"):
        assert get(server, path).status_code == 200, path


def test_without_a_token_setting_reads_are_open_and_an_empty_store_answers_empty(store, settings):
    assert settings.receiver.ingest_token is None
    client = TestClient(create_app(Runtime.build(settings, store)), base_url="http://localhost")
    assert client.get("/api/traces").json() == []
    assert client.get("/api/issues").json() == {"run": None, "issues": []}
    assert client.get("/api/issues/SW-1").status_code == 404
    assert client.get("/api/traces", headers={"authorization": "Bearer anything"}).status_code == 200


def test_a_body_the_schema_refuses_is_a_400_naming_the_field_never_a_500(served):
    server, _ = served
    headers = {"authorization": "Bearer s3cret-token"}
    for body, message in (({"mode": "AAA"}, "mode must be one of 'off', 'ambiguous' or 'always', got 'AAA'"),
                          ({"rate": 2}, "rate must be at most 1"), ({"extra": 1}, "unknown field extra"),
                          ({"shard": "3/x"}, "shard must match")):
        answer = httpx.post(server.endpoint + "/api/actions/score", json=body, headers=headers, timeout=30)
        assert answer.status_code == 400 and message in answer.json()["error"], (body, answer.text)
    # a shard the schema's form allows but JSON Schema cannot compare: well formed, unusable
    answer = httpx.post(server.endpoint + "/api/actions/score", json={"shard": "3/2"}, headers=headers, timeout=30)
    assert answer.status_code == 422 and answer.json() == {"error": "shard must be i/N with 0 <= i < N (e.g. 0/4), "
                                                                    "got '3/2'"}
    answer = httpx.post(server.endpoint + "/api/actions/score", content=b"{", headers=headers, timeout=30)
    assert answer.status_code == 400 and "JSON" in answer.json()["error"]


def test_a_score_send_without_configured_targets_is_a_409_and_a_longer_since_is_capped(store, settings):
    from sumwatch.monitor.views.routers.params import capped_duration

    client = TestClient(create_app(Runtime.build(settings, store)), base_url="http://localhost")
    headers = {"authorization": "Bearer anything"}
    for body in ({}, {"to": ["langfuse"]}, {"since": "99999d"}):
        answer = client.post("/api/scores/send", json=body, headers=headers)
        assert answer.status_code == 409 and "\n" not in answer.json()["error"], (body, answer.text)
    assert client.post("/api/scores/send", json={"since": "7 days"}, headers=headers).status_code == 400
    assert [capped_duration(d) for d in ("7d", " 1.5h ", "99999d", "36501d")] == ["7d", " 1.5h ", "36500d", "36500d"]

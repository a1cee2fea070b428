"""The read API `sumwatch up` serves, over real HTTP on loopback: answers, errors, and the same records
the CLI reads from the store itself."""

from datetime import datetime, timezone

import httpx
import numpy as np
import pytest

from sumwatch.monitor.cli.issues import issue_table
from sumwatch.monitor.demo.run import run_demo
from sumwatch.monitor.ingest.receiver import ReceiverServer
from sumwatch.monitor.issues.reads import IssueDetail, IssueList
from sumwatch.monitor.store.issue_members import MEMBER, REPRESENTATIVE, save_members
from sumwatch.monitor.store.issues import IssueState, save_states
from sumwatch.monitor.store.runs import CLUSTER_RUNS_TABLE, RUN_COLUMNS
from sumwatch.monitor.views.api import api_routes
from sumwatch.monitor.views.readers import Reader, RemoteReader, StoreReader

NOW = datetime(2026, 11, 20, 12, 0, tzinfo=timezone.utc)


def _one_run_with_an_issue(store, trace_ids):
    """A finished clustering run that found one issue, written as the clustering job writes it."""
    state = IssueState(1, "SW-1", "Numbers changed in the summary", "Figures differ from the source.",
                       "The model rounds and rewrites numbers.", "Copy figures verbatim.", "high", "factuality",
                       "number_mismatch", ["number", "percent"], "new", len(trace_ids), len(trace_ids), 0.5, 0,
                       NOW, NOW, np.ones(4, dtype=np.float32) / 2, "all-MiniLM-L6-v2", "KeywordNamer")
    save_states(store, [state], "run-1", NOW)
    save_members(store, [("run-1", 1, tid, "0" * 16, NOW, "svc", "factuality", "numerically_wrong",
                          "number_mismatch", 0.9 - i / 10, REPRESENTATIVE if i == 0 else MEMBER,
                          'summary: "21%" | source: "12%"', "factuality numerically wrong", NOW)
                         for i, tid in enumerate(trace_ids)])
    store.insert(CLUSTER_RUNS_TABLE, [("run-1", NOW, NOW, NOW, NOW, 4, 2, 2, 1, 1, 2, 0, "KeywordNamer",
                                       "all-MiniLM-L6-v2", 1.5)], RUN_COLUMNS)


@pytest.fixture
def served(store, settings):
    demo = run_demo(store, n=4)
    trace_ids = [e["trace_id"] for e in demo.examples][:2]
    _one_run_with_an_issue(store, trace_ids)
    secured = settings.with_(ingest_token="s3cret")
    server = ReceiverServer(secured, store, extra_routes=api_routes(store, secured)).start()
    yield server, trace_ids
    server.stop()


def get(server, path, token="s3cret", **params):
    headers = {"authorization": f"Bearer {token}"} if token else {}
    return httpx.get(server.endpoint + path, params=params, headers=headers, timeout=10)


@pytest.mark.parametrize("path, params, status, message", [
    ("/api/traces", {"limit": "abc"}, 400, "invalid literal"),
    ("/api/traces", {"limit": "0"}, 400, "limit must be at least 1"),
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
        assert answer.status_code == 401 and answer.json() == {"error": "unauthorized"}


def test_the_server_and_the_store_give_the_same_records(served, store):
    server, trace_ids = served
    local: Reader = StoreReader(store)
    remote: Reader = RemoteReader(server.endpoint, "s3cret")
    assert remote.list_traces(limit=10) == local.list_traces(limit=10) and len(local.list_traces()) == 4
    assert remote.get_trace(trace_ids[0]) == local.get_trace(trace_ids[0])

    here, there = local.issues(), remote.issues()
    assert isinstance(there, IssueList) and there.to_json() == here.to_json()
    assert there.run.run_id == "run-1" and there.run.finished_at == NOW
    assert [r.issue_id for r in there.issues] == ["SW-1"] and there.issues[0].state.first_seen == NOW
    assert len(there.issues[0].state.centroid) == 0  # the centroid stays behind the API
    assert str(issue_table("t", there.issues).columns[0]._cells) == str(issue_table("t", here.issues).columns[0]._cells)

    detail, shown = local.issue("SW-1"), remote.issue("sw-1")
    assert isinstance(shown, IssueDetail) and shown.to_json() == detail.to_json()
    assert shown.representatives[0].trace_id == trace_ids[0] and shown.trace_ids == trace_ids
    assert remote.issue("SW-9") is None and local.issue("SW-9") is None

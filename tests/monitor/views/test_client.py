"""The one client: the same records through a server and in process, pages followed by their links, whole
exports, and a server that stops answering ending in one error instead of a hang."""

import io
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pyarrow.parquet as pq
import pytest

from sumwatch.monitor.runtime import Runtime
from sumwatch.monitor.views.app import create_app
from sumwatch.monitor.views.client import ApiClient, ClientError, ScoreRequest

TOKEN = "s3cret-token"


@pytest.fixture
def both(served, store, settings):
    """(the client of the server, a client of the same app in this process)."""
    server, trace_ids = served
    remote = ApiClient.remote(server.endpoint, TOKEN)
    local = ApiClient.in_process(create_app(Runtime.build(settings.with_(api_token=TOKEN), store)), TOKEN)
    yield remote, local, trace_ids
    remote.close()
    local.close()


def test_the_same_records_through_a_server_and_in_process(both):
    remote, local, trace_ids = both
    assert remote.traces(limit=10) == local.traces(limit=10) and len(remote.traces(limit=10)) == 4
    assert remote.trace(trace_ids[0]) == local.trace(trace_ids[0]) != []
    assert remote.issues() == local.issues() and remote.issues().issues[0].issue_id == "SW-1"
    detail = remote.issue("SW-1")
    assert detail == local.issue("sw-1") and detail is not None and detail.trace_ids == trace_ids
    assert remote.issue("SW-9") is None and local.trace("ab" * 16) == []
    assert remote.status().spans == local.status().spans == 4
    assert remote.corpus(rubric="factuality", limit=2) == local.corpus(rubric="factuality", limit=2)


def test_a_listing_is_walked_by_its_links_each_span_once(served):
    server, _ = served
    seen, url = [], "/api/traces?limit=1"
    with httpx.Client(base_url=server.endpoint, headers={"authorization": f"Bearer {TOKEN}"}) as http:
        for _ in range(10):  # four spans: four pages, then one without a next link
            answer = http.get(url)
            seen += [t["span_id"] for t in answer.json()]
            link = answer.headers.get("link")
            if link is None:
                break
            assert answer.headers["x-next-cursor"] in link and link.endswith('>; rel="next"')
            url = link[1:link.index(">")]
        bad = http.get("/api/traces", params={"cursor": "not-a-cursor"})
    assert len(seen) == len(set(seen)) == 4
    assert bad.status_code == 422 and bad.json()["error"].startswith("cursor is not one this server gave")


@pytest.mark.parametrize("where", ["remote", "local"])
def test_every_span_and_score_comes_out_whole_as_jsonl_and_parquet(both, where):
    client = both[0] if where == "remote" else both[1]
    lines, table = io.BytesIO(), io.BytesIO()
    client.download("traces", "jsonl", lines)
    client.download("traces", "parquet", table)
    spans = [json.loads(line) for line in lines.getvalue().splitlines()]
    parquet = pq.read_table(io.BytesIO(table.getvalue()))
    assert len(spans) == parquet.num_rows == 4
    assert sorted(s["span_id"] for s in spans) == sorted(parquet.column("span_id").to_pylist())
    assert all("input.value" in s["attributes"] for s in spans)  # whole spans: the source is there
    with pytest.raises(ClientError) as refused:
        client.download("traces", "xml", io.BytesIO())
    assert refused.value.status == 400 and "format must be one of 'jsonl' or 'parquet'" in refused.value.reason


class _Stalling(BaseHTTPRequestHandler):
    """Starts an action, then hangs up on every question about how it goes."""

    def do_POST(self):
        body = json.dumps({"action": "score", "running": True, "started_at": "2026-11-20T12:00:00+00:00"}).encode()
        self.send_response(202)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):  # hang up without an answer: what a stopped or restarting server looks like to a poll
        self.close_connection = True

    def log_message(self, *args):
        pass


def test_a_server_that_stops_answering_during_an_action_ends_in_one_error():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Stalling)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    # no request races a clock (30 s is far beyond a loopback answer); polls that get no answer for a second end it
    client = ApiClient.remote(f"http://127.0.0.1:{server.server_address[1]}", timeout=30, stall_s=1)
    try:
        with pytest.raises(ClientError) as stopped:
            client.score(ScoreRequest(mode="off"))
        assert "stopped answering while the scoring ran" in str(stopped.value) and "\n" not in str(stopped.value)
    finally:
        client.close()
        server.shutdown()

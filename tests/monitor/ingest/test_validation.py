"""Spans the store cannot hold are dropped before the group commit, with OTLP partial success; bodies
that are not OTLP exports get 400, never 500; a database failure is a 503 that tells nothing internal."""

import gzip
import json
import uuid
import zlib

import httpx
import pytest
from google.rpc import status_pb2
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from test_receiver import PB, make_spans, settle, started, stored

from sumwatch.monitor.ingest.receiver import ReceiverServer
from sumwatch.monitor.ingest.validate import MAX_TIME_NS, MIN_TIME_NS
from sumwatch.monitor.ingest.writer import GroupWriter
from sumwatch.monitor.settings import Settings
from sumwatch.monitor.store.connection import Store
from sumwatch.monitor.store.migrations import migrate

pytestmark = pytest.mark.integration

JS = {"content-type": "application/json"}
TRACE, SPAN = "0102030405060708090a0b0c0d0e0f10", "0102030405060708"
NOW_NS = "1767225600000000000"  # 2026-01-01


@pytest.fixture(scope="module")
def served(sw_home):
    """One database and receiver for the module (tests here only add rows; each starts from an empty table)."""
    settings = Settings.from_env(env={}, home=sw_home, database=f"t_{uuid.uuid4().hex[:10]}", port=0)
    store = Store.open(settings)
    migrate(store)
    server = started(ReceiverServer(settings.with_(retry_after_seconds=1), store))
    yield settings, store, server
    server.stop()
    try:
        store.command(f"DROP DATABASE IF EXISTS `{settings.store.database}`")
    finally:
        store.close()


@pytest.fixture
def settings(served):
    return served[0]


@pytest.fixture
def store(served):
    settle()  # what an earlier test's requests were acknowledged for lands before the table is emptied
    served[1].command("TRUNCATE TABLE otel_traces")
    return served[1]


@pytest.fixture
def receiver(served, store):
    return served[2]


def span(n=0, **fields):
    return {"traceId": TRACE, "spanId": f"{n + 1:016x}", "name": f"s{n}", "startTimeUnixNano": NOW_NS, **fields}


def export(*spans) -> bytes:
    return json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": list(spans)}]}]}).encode()


def post(receiver, body, headers=JS):
    return httpx.post(receiver.endpoint + "/v1/traces", content=body, headers=headers, timeout=10)


def test_the_issue_body_with_a_zero_start_time_gets_400_naming_the_field(receiver, store):
    body = (b'{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"0102030405060708090a0b0c0d0e0f10",'
            b'"spanId":"0102030405060708","name":"s","startTimeUnixNano":"0"}]}]}]}')
    r = post(receiver, body)
    assert r.status_code == 400
    message = r.json()["message"]
    assert message.startswith("1 of 1 spans rejected: resourceSpans[0].scopeSpans[0].spans[0].startTimeUnixNano: 0")
    assert "DB::Exception" not in message and "/tmp" not in message
    assert stored(store) == []


@pytest.mark.parametrize("start", ["0", "1", "1000000000", str(MIN_TIME_NS - 1), str(2**63), str(2**64 - 1)])
def test_start_times_outside_what_the_store_holds_are_rejected(receiver, store, start):
    r = post(receiver, export(span(0), span(1, startTimeUnixNano=start)))
    assert r.status_code == 200
    partial = r.json()["partialSuccess"]
    assert partial["rejectedSpans"] == "1"
    assert f"spans[1].startTimeUnixNano: {start} " in partial["errorMessage"]
    assert [row["SpanName"] for row in stored(store)] == ["s0"]


def test_the_edges_of_the_range_are_stored_exactly(receiver, store):
    r = post(receiver, export(span(0, startTimeUnixNano=str(MIN_TIME_NS)), span(1, startTimeUnixNano=str(MAX_TIME_NS))))
    assert r.status_code == 200 and r.json() == {}
    settle()
    rows = store.query_rows("SELECT toUnixTimestamp64Nano(Timestamp) FROM otel_traces ORDER BY Timestamp")
    assert rows == [(MIN_TIME_NS,), (MAX_TIME_NS,)]


@pytest.mark.parametrize("fields,reason", [
    ({"traceId": "00000000000000000000000000000000"}, "traceId: 00000000000000000000000000000000 is all zeros"),
    ({"spanId": "0000000000000000"}, "spanId: 0000000000000000 is all zeros"),
    ({"traceId": ""}, "traceId: must be 16 bytes, got 0"),
    ({"spanId": "0102"}, "spanId: must be 8 bytes, got 2"),
    ({"spanId": "zz02030405060708"}, "spanId: must be a hex string"),
    ({"parentSpanId": "010203"}, "parentSpanId: must be 8 bytes, got 3"),
    ({"events": [{"timeUnixNano": NOW_NS, "name": "a"}, {"timeUnixNano": "0", "name": "b"}]},
     "events[1].timeUnixNano: 0 (unset)"),
    ({"links": [{"traceId": TRACE, "spanId": "01"}]}, "links[0].spanId: must be 8 bytes, got 1"),
    ({"name": "ok \ud800"}, "name: not valid text"),
    ({"attributes": [{"key": "k", "value": {"stringValue": "\udfff"}}]}, "attributes[0].value.stringValue: not valid"),
])
def test_bad_values_drop_their_span_and_keep_the_rest(receiver, store, fields, reason):
    body = json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [span(0), span(1, **fields), span(2)]}]}]})
    r = post(receiver, body.encode())
    assert r.status_code == 200
    partial = r.json()["partialSuccess"]
    assert partial["rejectedSpans"] == "1"
    assert partial["errorMessage"].startswith("1 of 3 spans rejected: resourceSpans[0].scopeSpans[0].spans[1].")
    assert reason in partial["errorMessage"]
    assert [row["SpanName"] for row in stored(store)] == ["s0", "s2"]


def test_all_zero_parent_and_link_ids_are_stored_empty_as_the_collector_does(receiver, store):
    body = export(span(0, parentSpanId="0000000000000000",
                       links=[{"traceId": "00000000000000000000000000000000", "spanId": "0000000000000000"}]))
    assert post(receiver, body).status_code == 200
    row = stored(store)[0]
    assert row["ParentSpanId"] == "" and row["Links.TraceId"] == [""] and row["Links.SpanId"] == [""]


def test_protobuf_partial_success_counts_every_rejected_span_and_names_the_first(receiver, store):
    request = encode_spans(make_spans(3))  # 6 spans: three summaries, each with a child, in two scopes
    scope = request.resource_spans[0].scope_spans
    scope[0].spans.extend(scope[1].spans)
    del scope[1]
    spans = scope[0].spans
    assert len(spans) == 6
    for k in (1, 3, 4, 5):
        spans[k].start_time_unix_nano = 0 if k != 4 else 2**64 - 1
    r = post(receiver, request.SerializeToString(), PB)
    assert r.status_code == 200 and r.headers["content-type"] == "application/x-protobuf"
    partial = ExportTraceServiceResponse.FromString(r.content).partial_success
    assert partial.rejected_spans == 4
    assert partial.error_message.startswith("4 of 6 spans rejected: resourceSpans[0].scopeSpans[0].spans[1]")
    assert "spans[4].startTimeUnixNano: 18446744073709551615 is after 2262" in partial.error_message
    assert partial.error_message.endswith("; and 1 more")
    assert len(stored(store)) == 2


def test_all_spans_rejected_in_protobuf_gets_a_400_status(receiver, store):
    request = encode_spans(make_spans(1))
    for ss in request.resource_spans[0].scope_spans:
        for s in ss.spans:
            s.trace_id = bytes(16)
    r = post(receiver, request.SerializeToString(), PB)
    status = status_pb2.Status.FromString(r.content)
    assert r.status_code == 400 and status.code == 3
    assert "2 of 2 spans rejected" in status.message and "traceId: 000" in status.message
    assert stored(store) == []


@pytest.mark.parametrize("body,reason", [
    (b'{"resourceSpans":5}', "resourceSpans: repeated field resourceSpans must be in []"),
    (b"[" * 2000, "nested too deeply"),
    (b'{"resourceSpans":[{"\\ud800":1}]}', "resourceSpans[0] key '\\ud800': not valid text"),
    (b'{"resourceSpans":[{"resource":{"attributes":[{"key":"k","value":{"stringValue":"\\ud800"}}]}}]}',
     "resourceSpans[0].resource.attributes[0].value.stringValue: not valid text"),
    (b'{"resourceSpans":[{"scopeSpans":{"spans":[]}}]}', "resourceSpans[0].scopeSpans: repeated field"),
    (b'{"resourceSpans":[{"scopeSpans":[{"scope":{"name":5}}]}]}', "resourceSpans[0].scopeSpans[0].scope.name"),
    (b'{"resourceSpans":[{"scopeSpans":[{"spans":[7]}]}]}', "resourceSpans[0].scopeSpans[0].spans[0]"),
    (export(span(0, name=5)), "resourceSpans[0].scopeSpans[0].spans[0].name: expected string"),
    (export(span(0, startTimeUnixNano="-1")), "spans[0].startTimeUnixNano: Value out of range: -1"),
    (export(span(0, startTimeUnixNano=str(2**64))), "spans[0].startTimeUnixNano: Value out of range"),
    (export(span(0, attributes={"k": "v"})), "spans[0].attributes: repeated field"),
    (export(span(0, traceId=5)), "spans[0].traceId"),
    (b'{"resourceSpans":[{"scopeSpans":[{"spans":[{"name":"\xff"}]}]}]}', "not valid JSON"),
    (b'{"resourceSpans":[]', "not valid JSON"),
    (b"null", "must be an object"),
])
def test_bodies_that_are_not_otlp_exports_get_400_with_the_place(receiver, store, body, reason):
    r = post(receiver, body)
    assert r.status_code == 400, r.text
    assert reason in r.json()["message"]
    assert stored(store) == []


@pytest.mark.parametrize("body", [
    b"\x0a\xff\xff\xff\xff",
    b"\x0a\x05\x12\x03\x12\x01\xff",  # resourceSpans > scopeSpans > spans with a truncated field
    bytes([0x0A, 0x08, 0x12, 0x06, 0x12, 0x04, 0x2A, 0x02, 0xC3, 0x28]),  # span name that is not UTF-8
    b"\x0a" * 64,
])
def test_protobuf_bodies_that_do_not_parse_get_400(receiver, store, body):
    r = post(receiver, body, PB)
    assert r.status_code == 400
    assert "not a valid OTLP protobuf" in status_pb2.Status.FromString(r.content).message
    assert stored(store) == []


def test_every_gzip_member_is_decoded(receiver, store):
    first, second = encode_spans(make_spans(1)), encode_spans(make_spans(2))
    body = gzip.compress(first.SerializeToString()) + gzip.compress(second.SerializeToString())
    r = post(receiver, body, {**PB, "content-encoding": "gzip"})
    assert r.status_code == 200
    assert len(stored(store)) == 2 + 4


@pytest.mark.parametrize("body,encoding,status,reason", [
    (gzip.compress(b"") + b"garbage", "gzip", 400, "not valid gzip (member 2)"),
    (gzip.compress(b"") * 1001, "gzip", 400, "more than 1000 members"),
    (gzip.compress(b"x" * 30_000) + gzip.compress(b"x" * 30_000), "gzip", 413, "decompressed body exceeds"),
    (zlib.compress(b"") + b"tail", "deflate", 400, "4 bytes after the end of its stream"),
    (gzip.compress(b"abc")[:-3], "gzip", 400, "truncated"),
])
def test_gzip_members_are_bounded_together(settings, store, body, encoding, status, reason):
    server = started(ReceiverServer(settings.with_(max_body_bytes=50_000), store))
    try:
        r = httpx.post(server.endpoint + "/v1/traces", content=body,
                       headers={**PB, "content-encoding": encoding}, timeout=10)
        assert r.status_code == status
        assert reason in status_pb2.Status.FromString(r.content).message
    finally:
        server.stop()


def test_a_failing_database_answers_503_without_its_error_text(settings, store, caplog):
    receiver = started(ReceiverServer(settings.with_(receiver_log=False), store))  # acknowledged once stored
    store.command("RENAME TABLE otel_traces TO otel_traces_away")
    try:
        r = post(receiver, export(span(0)))
    finally:
        store.command("RENAME TABLE otel_traces_away TO otel_traces")
        receiver.stop()
    assert r.status_code == 503 and r.json()["message"] == "database unavailable, retry later"
    assert "UNKNOWN_TABLE" in caplog.text or "does not exist" in caplog.text  # logged on the server


def test_rows_the_database_refuses_fail_only_the_request_that_sent_them(store):
    """Should a value pass the checks and still be refused, the writer retries each request alone."""
    writer = GroupWriter(store, linger_ms=300).start()
    try:
        good = encode_spans(make_spans(1))
        from sumwatch.monitor.ingest.otlp import request_to_rows

        rows = request_to_rows(ExportTraceServiceRequest.FromString(good.SerializeToString())).rows
        poison = [(0,) + rows[0][1:]]  # a time the engine cannot read, submitted past the checks
        futures = []
        with writer.incoming() as a, writer.incoming() as b, writer.incoming() as c:  # one batch: all announced
            for ticket, batch in ((a, rows), (b, poison), (c, rows)):
                futures.append(writer.submit(batch))
                ticket.done()
        assert futures[0].result(10) == futures[2].result(10) == 2
        with pytest.raises(Exception, match="Cannot read DateTime"):
            futures[1].result(10)
    finally:
        writer.stop()
    assert len(stored(store)) == 4

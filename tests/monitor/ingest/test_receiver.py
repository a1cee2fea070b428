"""The OTLP/HTTP receiver, fed by the real OpenTelemetry exporter over loopback."""

import base64
import gzip
import json
import threading
import time
import weakref

import httpx
import pytest
from fakes.tracing import memory_provider
from google.protobuf import json_format
from google.rpc import status_pb2
from hang_guard import HANG_GUARD_S
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.exporter.otlp.proto.http import Compression
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.trace.export import SpanExportResult
from opentelemetry.trace import SpanKind

from sumwatch.monitor.ingest.receiver import ReceiverServer
from sumwatch.tracer import semconv, summarization

pytestmark = pytest.mark.integration

PB = {"content-type": "application/x-protobuf"}
SOURCE = "Quarterly revenue rose 12% to $4.2 million while costs fell 3%, the company said on Tuesday."


# Receivers started by these tests: with the write-ahead log (the default) a 200 comes before the INSERT, so a
# test that reads the table directly first waits for what they acknowledged (the server's own reads wait alone)
LIVE: weakref.WeakSet[ReceiverServer] = weakref.WeakSet()


def started(server: ReceiverServer) -> ReceiverServer:
    """``server``, started and known to :func:`settle`."""
    LIVE.add(server)
    return server.start()


def settle() -> None:
    """Wait until every live receiver stored what it acknowledged."""
    for server in list(LIVE):
        assert server.writer.wait_stored(HANG_GUARD_S)


@pytest.fixture
def receiver(settings, store):
    server = started(ReceiverServer(settings.with_(retry_after_seconds=1), store))
    yield server
    server.stop()


def make_spans(n=3, service="checkout-digest"):
    """Real SDK spans from the decorator, with an event and a link, captured in memory."""
    provider, memory = memory_provider(service)
    tracer = provider.get_tracer("test")

    @summarization(band="tldr", domain="finance", tracer_provider=provider)
    def summarize(text: str) -> str:
        with tracer.start_as_current_span("llm.call", kind=SpanKind.CLIENT) as span:
            span.add_event("retry", {"attempt": 2, "ok": True, "ratio": 0.5})
        return "Revenue up 12% to $4.2M; costs down 3%."

    for i in range(n):
        summarize(f"{SOURCE} Item {i}.")
    return memory.get_finished_spans()


def stored(store, where="1"):
    settle()
    # every column but when the row arrived, which differs between two requests however alike
    return store.query_dicts(f"SELECT * EXCEPT (InsertedAt) FROM otel_traces WHERE {where} "
                             f"ORDER BY Timestamp, SpanName")


def otlp_json(spans) -> bytes:
    """The OTLP/JSON encoding of spans: protobuf JSON mapping with ids as hex, as the spec requires."""
    payload = json_format.MessageToDict(encode_spans(spans))
    for rs in payload["resourceSpans"]:
        for ss in rs["scopeSpans"]:
            for span in ss["spans"]:
                for key in ("traceId", "spanId", "parentSpanId"):
                    if key in span:
                        span[key] = base64.b64decode(span[key]).hex()
    return json.dumps(payload).encode()


def test_real_exporter_protobuf_gzip_lands_in_otel_traces(receiver, store):
    spans = make_spans(3)
    exporter = OTLPSpanExporter(endpoint=receiver.endpoint + "/v1/traces", compression=Compression.Gzip)
    assert exporter.export(spans) is SpanExportResult.SUCCESS
    rows = stored(store)
    assert len(rows) == 6
    summ = [r for r in rows if r["SpanName"] == "summarize"]
    llm = [r for r in rows if r["SpanName"] == "llm.call"]
    assert len(summ) == 3 and len(llm) == 3
    s = summ[0]
    assert s["ServiceName"] == "checkout-digest"
    assert s["SpanKind"] == "Internal" and s["StatusCode"] == "Unset"
    assert s["SpanAttributes"][semconv.TASK] == "summarization"
    assert s["SpanAttributes"][semconv.INPUT_VALUE].startswith("Quarterly revenue")
    assert s["SpanAttributes"][semconv.SOURCE_WORDS] == str(len(f"{SOURCE} Item 0.".split()))
    assert s["ScopeName"] == "sumwatch.tracer"
    child = next(r for r in llm if r["TraceId"] == s["TraceId"])
    assert child["ParentSpanId"] == s["SpanId"] and child["SpanKind"] == "Client"
    assert child["Events.Name"] == ["retry"]
    assert child["Events.Attributes"] == [{"attempt": "2", "ok": "true", "ratio": "0.5"}]


def test_json_and_protobuf_paths_store_identical_rows(receiver, store):
    spans = make_spans(2)
    r = httpx.post(receiver.endpoint + "/v1/traces", content=otlp_json(spans),
                   headers={"content-type": "application/json"})
    assert r.status_code == 200 and r.json() == {}
    via_json = stored(store)
    store.command("TRUNCATE TABLE otel_traces")
    r = httpx.post(receiver.endpoint + "/v1/traces", content=encode_spans(spans).SerializeToString(), headers=PB)
    assert r.status_code == 200 and r.headers["content-type"] == "application/x-protobuf"
    via_pb = stored(store)
    assert len(via_json) == 4
    assert via_json == via_pb


def test_uncompressed_gzip_and_deflate_bodies(receiver, store):
    body = encode_spans(make_spans(1)).SerializeToString()
    url = receiver.endpoint + "/v1/traces"
    assert httpx.post(url, content=body, headers=PB).status_code == 200
    assert httpx.post(url, content=gzip.compress(body), headers={**PB, "content-encoding": "gzip"}).status_code == 200
    assert len(stored(store)) == 4


@pytest.mark.parametrize("body,ctype,reason", [
    (b"\x0a\xff\xff\xff\xff", "application/x-protobuf", "not a valid OTLP protobuf"),
    (b"{not json", "application/json", "not valid JSON"),
    (b"[1, 2]", "application/json", "must be an object"),
    (b'{"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "xyz"}]}]}]}', "application/json",
     "spans[0].traceId: must be a hex string"),
    (b'{"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "abcd", "spanId": "0102030405060708"}]}]}]}',
     "application/json", "spans[0].traceId: must be 16 bytes, got 2"),
    (b'{"resourceSpans": "many"}', "application/json", "not a valid OTLP/JSON"),
])
def test_malformed_bodies_get_400_with_the_reason_and_store_nothing(receiver, store, body, ctype, reason):
    r = httpx.post(receiver.endpoint + "/v1/traces", content=body, headers={"content-type": ctype})
    assert r.status_code == 400
    if ctype == "application/json":
        assert reason in r.json()["message"]
    else:
        status = status_pb2.Status.FromString(r.content)
        assert reason in status.message and status.code == 3
    assert stored(store) == []


def test_bad_gzip_and_unknown_content_type(receiver):
    url = receiver.endpoint + "/v1/traces"
    r = httpx.post(url, content=b"not gzip", headers={"content-type": "application/json", "content-encoding": "gzip"})
    assert r.status_code == 400 and "not valid gzip" in r.json()["message"]
    r = httpx.post(url, content=b"x", headers={"content-type": "text/plain"})
    assert r.status_code == 415 and "application/x-protobuf" in r.json()["message"]


def test_oversize_bodies_get_413(settings, store):
    server = started(ReceiverServer(settings.with_(max_body_bytes=2048), store))
    try:
        url = server.endpoint + "/v1/traces"
        body = encode_spans(make_spans(5)).SerializeToString()
        assert len(body) > 2048
        r = httpx.post(url, content=body, headers=PB)
        assert r.status_code == 413
        # a small gzip body that inflates past the limit is refused too
        bomb = gzip.compress(b"\x00" * 100_000)
        r = httpx.post(url, content=bomb, headers={**PB, "content-encoding": "gzip"})
        assert len(bomb) < 2048 and r.status_code == 413
        assert "decompressed body exceeds" in status_pb2.Status.FromString(r.content).message
        assert stored(store) == []
    finally:
        server.stop()


def test_ingest_token_is_required_when_set(settings, store):
    server = started(ReceiverServer(settings.with_(ingest_token="s3cret-token"), store))
    try:
        url = server.endpoint + "/v1/traces"
        body = encode_spans(make_spans(1)).SerializeToString()
        r = httpx.post(url, content=body, headers=PB)
        assert r.status_code == 401 and "missing bearer token" in status_pb2.Status.FromString(r.content).message
        r = httpx.post(url, content=body, headers={**PB, "authorization": "Bearer nope"})
        assert r.status_code == 401 and "s3cret" not in r.text
        assert stored(store) == []
        exporter = OTLPSpanExporter(endpoint=url, headers={"authorization": "Bearer s3cret-token"})
        assert exporter.export(make_spans(1)) is SpanExportResult.SUCCESS
        assert len(stored(store)) == 2
    finally:
        server.stop()


@pytest.fixture
def receiver_without_log(settings, store):
    """Each request acknowledged after the INSERT holding it (``SUMWATCH_RECEIVER_LOG=off``)."""
    server = started(ReceiverServer(settings.with_(retry_after_seconds=1, receiver_log=False), store))
    yield server
    server.stop()


def test_database_failure_answers_503_and_the_exporter_retries_until_stored(receiver_without_log, store):
    url = receiver_without_log.endpoint + "/v1/traces"
    store.command("RENAME TABLE otel_traces TO otel_traces_away")  # the database loses the table
    r = httpx.post(url, content=encode_spans(make_spans(1)).SerializeToString(), headers=PB)
    assert r.status_code == 503 and r.headers["retry-after"] == "1"
    assert "database unavailable" in status_pb2.Status.FromString(r.content).message

    spans = make_spans(2)
    exporter = OTLPSpanExporter(endpoint=url, timeout=20)
    result = {}
    worker = threading.Thread(target=lambda: result.setdefault("r", exporter.export(spans)))
    worker.start()
    time.sleep(0.5)
    assert "r" not in result  # still retrying: nothing acknowledged yet
    store.command("RENAME TABLE otel_traces_away TO otel_traces")
    worker.join(30)
    assert result["r"] is SpanExportResult.SUCCESS
    assert len(stored(store)) == 4  # only what was acknowledged, exactly once


def test_concurrent_requests_are_grouped_into_fewer_inserts(receiver, store):
    bodies = [encode_spans(make_spans(2)).SerializeToString() for _ in range(24)]
    with httpx.Client() as client:
        threads = [threading.Thread(target=client.post, args=(receiver.endpoint + "/v1/traces",),
                                    kwargs={"content": b, "headers": PB}) for b in bodies]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert len(stored(store)) == 24 * 4
    assert receiver.writer.rows_written == 24 * 4
    assert receiver.writer.inserts < 24


APP = '''
import sys
from sumwatch.tracer import configure, summarization, record_usage

configure(endpoint=sys.argv[1], service_name="support-digest")

@summarization(band="exec_summary", domain="support")
def summarize(ticket: str) -> str:
    record_usage(model="small-model", input_tokens=40, output_tokens=9)
    return "Customer cannot log in after the update; reset fixed it."

for i in range(5):
    summarize(f"Ticket {i}: the customer reports login failures since the update; a password reset worked.")
'''


def test_an_app_process_configured_with_the_endpoint_reaches_the_store(receiver, store, tmp_path):
    import subprocess
    import sys

    script = tmp_path / "app.py"
    script.write_text(APP)
    # the app exits normally: the SDK flushes its batch processor at shutdown
    subprocess.run([sys.executable, str(script), receiver.endpoint], check=True, timeout=HANG_GUARD_S)
    rows = stored(store)
    assert len(rows) == 5
    assert {r["ServiceName"] for r in rows} == {"support-digest"}
    attrs = rows[0]["SpanAttributes"]
    assert attrs[semconv.SUMMARIZATION_BAND] == "exec_summary"
    assert attrs[semconv.GEN_AI_REQUEST_MODEL] == "small-model"
    assert attrs[semconv.OUTPUT_VALUE].startswith("Customer cannot log in")

"""``POST /v1/logs``: the GenAI content records the contrib instrumentations log, joined to their spans."""

import base64
import json

import httpx
import pytest
from fakes.tracing import memory_provider
from google.protobuf import json_format
from google.rpc import status_pb2
from opentelemetry.exporter.otlp.proto.common._log_encoder import encode_logs
from opentelemetry.exporter.otlp.proto.http import Compression
from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk._logs import LoggerProvider
from opentelemetry.sdk._logs.export import InMemoryLogRecordExporter, SimpleLogRecordProcessor
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace.export import SpanExportResult
from opentelemetry.trace import SpanKind
from test_receiver import PB

from sumwatch.monitor.ingest.receiver import LOGS_PATH, ReceiverServer
from sumwatch.monitor.scoring.sampler import Sampler
from sumwatch.monitor.store.genai_events import GENAI_EVENTS_TABLE, genai_events
from tests.monitor.scoring.chat_calls import OTHERS, SUMMARIES, gen_ai_events, gen_ai_span_without_content

JSON_TYPE = {"content-type": "application/json"}


@pytest.fixture
def receiver(settings, store):
    server = ReceiverServer(settings, store).start()
    yield server
    server.stop()


def contrib_calls(calls, *, attribute_names=False):
    """Spans and log records as opentelemetry-instrumentation-openai-v2 writes them in its default mode: the
    span without content, the messages as log records in the span's context (the event name in the record's
    EventName field, or in the ``event.name`` attribute as older SDKs write it)."""
    provider, spans = memory_provider("digest-bot")
    logs = InMemoryLogRecordExporter()
    loggers = LoggerProvider(resource=Resource.create({"service.name": "digest-bot"}))
    loggers.add_log_record_processor(SimpleLogRecordProcessor(logs))
    tracer, logger = provider.get_tracer("openai-v2"), loggers.get_logger("opentelemetry.instrumentation.openai_v2")
    ids = []
    for call in calls:
        with tracer.start_as_current_span("chat gpt-4o-mini", kind=SpanKind.CLIENT,
                                          attributes=gen_ai_span_without_content(call)) as span:
            for event in gen_ai_events(call):
                name = event["event.name"]
                attributes = {"gen_ai.system": "openai", **({"event.name": name} if attribute_names else {})}
                logger.emit(body=json.loads(event["body"]), attributes=attributes,
                            event_name=None if attribute_names else name)
            context = span.get_span_context()
            ids.append((f"{context.trace_id:032x}", f"{context.span_id:016x}"))
    return spans.get_finished_spans(), logs.get_finished_logs(), ids


def otlp_json_logs(records) -> bytes:
    """OTLP/JSON of log records: the protobuf JSON mapping with ids as hex, as the spec requires."""
    payload = json_format.MessageToDict(encode_logs(records))
    for rl in payload["resourceLogs"]:
        for sl in rl["scopeLogs"]:
            for record in sl["logRecords"]:
                for key in ("traceId", "spanId"):
                    if key in record:
                        record[key] = base64.b64decode(record[key]).hex()
    return json.dumps(payload).encode()


def test_logged_content_is_joined_to_its_span_and_the_summary_is_scored(receiver, store, rules_cascade):
    summary, other, unlogged = SUMMARIES[1], OTHERS[0], SUMMARIES[0]
    spans, records, ids = contrib_calls([summary, other])
    extra_spans, _, extra_ids = contrib_calls([unlogged])
    exporter = OTLPLogExporter(endpoint=receiver.endpoint + LOGS_PATH, compression=Compression.Gzip)
    assert exporter.export(records).name == "SUCCESS"
    assert OTLPSpanExporter(endpoint=receiver.endpoint + "/v1/traces").export(
        list(spans) + list(extra_spans)) is SpanExportResult.SUCCESS

    stored = genai_events(store, ids)
    assert [e["event.name"] for e in stored[ids[0]]] == ["gen_ai.system.message", "gen_ai.user.message",
                                                        "gen_ai.choice"]
    assert json.loads(stored[ids[0]][1]["body"]) == {"content": summary.users[0]}
    assert stored[ids[0]][0]["gen_ai.system"] == "openai"

    sampler = Sampler(store, rules_cascade)
    assert sampler.recognise_pending() == 1
    # a call that is not a summary is left alone with its content joined; one without its records too
    pending = {(p.ref.trace_id, p.ref.span_id): p for p in sampler._fetch(0, (0, ""), 100)}
    assert set(pending) == {ids[0]}
    case = pending[ids[0]].case
    assert case is not None and (case.source, case.summary) == (summary.document, summary.answer)
    report = sampler.run_pass()
    assert report.scored_spans == 1
    scored = store.query_rows("SELECT DISTINCT TraceId, SpanId FROM sumwatch_scores")
    assert scored == [ids[0]]


def test_json_records_naming_their_event_in_an_attribute_are_kept(receiver, store, rules_cascade):
    call = SUMMARIES[0]
    spans, records, ids = contrib_calls([call], attribute_names=True)
    r = httpx.post(receiver.endpoint + LOGS_PATH, content=otlp_json_logs(records), headers=JSON_TYPE)
    assert r.status_code == 200 and r.json() == {}
    r = httpx.post(receiver.endpoint + LOGS_PATH, content=otlp_json_logs(records), headers=JSON_TYPE)  # resent
    assert OTLPSpanExporter(endpoint=receiver.endpoint + "/v1/traces").export(spans) is SpanExportResult.SUCCESS
    assert [e["event.name"] for e in genai_events(store, ids)[ids[0]]] == ["gen_ai.user.message", "gen_ai.choice"]
    sampler = Sampler(store, rules_cascade)
    assert sampler.recognise_pending() == 1
    case = sampler._fetch(0, (0, ""), 10)[0].case
    assert case is not None and (case.source, case.summary) == (call.document, call.answer)


def rows(store):
    return store.query_rows(f"SELECT EventName FROM {GENAI_EVENTS_TABLE}")


@pytest.mark.parametrize("body,ctype,reason", [
    (b"\x0a\xff\xff\xff\xff", "application/x-protobuf", "not a valid OTLP protobuf ExportLogsServiceRequest"),
    (b"{not json", "application/json", "not valid JSON"),
    (b"[1, 2]", "application/json", "must be an object with resourceLogs"),
    (b'{"resourceLogs": "many"}', "application/json", "not a valid OTLP/JSON log export"),
    (b'{"resourceLogs": [{"scopeLogs": [{"logRecords": [{"eventName": "gen_ai.choice", "traceId": "xyz"}]}]}]}',
     "application/json", "1 of 1 log records rejected: resourceLogs[0].scopeLogs[0].logRecords[0].traceId: "
                         "must be a hex string"),
    (b'{"resourceLogs": [{"scopeLogs": [{"logRecords": [{"eventName": "gen_ai.choice", "traceId": "abcd", '
     b'"spanId": "0102030405060708"}]}]}]}', "application/json", "logRecords[0].traceId: must be 16 bytes, got 2"),
])
def test_malformed_log_exports_get_400_with_the_reason_and_store_nothing(receiver, store, body, ctype, reason):
    r = httpx.post(receiver.endpoint + LOGS_PATH, content=body, headers={"content-type": ctype})
    assert r.status_code == 400
    message = r.json()["message"] if ctype == "application/json" else status_pb2.Status.FromString(r.content).message
    assert reason in message and "Traceback" not in message
    assert rows(store) == []


def test_other_log_records_are_accepted_and_not_kept_and_the_ingest_token_applies(settings, store):
    server = ReceiverServer(settings.with_(ingest_token="s3cret-token"), store).start()
    try:
        url = server.endpoint + LOGS_PATH
        body = (b'{"resourceLogs": [{"scopeLogs": [{"logRecords": [{"body": {"stringValue": "GET /health 200"}, '
                b'"traceId": "0102030405060708090a0b0c0d0e0f10", "spanId": "0102030405060708"}]}]}]}')
        r = httpx.post(url, content=body, headers=JSON_TYPE)
        assert r.status_code == 401 and r.json()["message"] == "unauthorized: missing bearer token"
        r = httpx.post(url, content=body, headers={**JSON_TYPE, "authorization": "Bearer s3cret-token"})
        assert r.status_code == 200 and r.json() == {}
        r = httpx.post(url, content=b"not gzip", headers={**PB, "authorization": "Bearer s3cret-token",
                                                     "content-encoding": "gzip"})
        assert r.status_code == 400 and "not valid gzip" in status_pb2.Status.FromString(r.content).message
        assert rows(store) == []
    finally:
        server.stop()

"""``POST /v1/logs``: the GenAI content records the contrib instrumentations log, joined to their spans."""

import base64
import copy
import json
import random
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

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
from test_fuzz import SEED, mutate_bytes, mutate_json
from test_receiver import PB

from sumwatch.monitor.ingest.logs import decode_logs
from sumwatch.monitor.ingest.receiver import LOGS_PATH, ReceiverServer
from sumwatch.monitor.scoring.sampler import Sampler
from sumwatch.monitor.store.genai_events import GENAI_EVENTS_TABLE, GenAiEvent, genai_events
from tests.monitor.scoring.chat_calls import OTHERS, SUMMARIES, gen_ai_events, gen_ai_span_without_content

pytestmark = pytest.mark.integration

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


def small_log_export(n: int) -> bytes:
    """One gen_ai.choice record of its own call, as a batch log processor flushing one record sends it."""
    record = {"eventName": "gen_ai.choice", "timeUnixNano": str(1_700_000_000_000_000_000 + n),
              "traceId": f"{n + 1:032x}", "spanId": f"{n + 1:016x}",
              "body": {"stringValue": f'{{"message": {{"content": "answer {n}"}}}}'}}
    return json.dumps({"resourceLogs": [{"scopeLogs": [{"logRecords": [record]}]}]}).encode()


def test_concurrent_log_requests_are_grouped_into_fewer_inserts_and_each_record_is_stored_once(settings, store):
    # a linger as under load, so the group is certain in the test, not left to thread timing
    server = ReceiverServer(settings.with_(insert_batch_wait_ms=200), store).start()
    try:
        with httpx.Client() as client:
            answers: list[int] = []
            threads = [threading.Thread(target=lambda n=n: answers.append(client.post(
                server.endpoint + LOGS_PATH, content=small_log_export(n), headers=JSON_TYPE).status_code))
                for n in range(24)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
        assert answers == [200] * 24
        assert server.log_writer.rows_written == 24 and server.log_writer.inserts < 24
        assert server.writer.inserts == 0  # the spans' group commit is another one
    finally:
        server.stop()
    stored = store.query_rows(f"SELECT TraceId, count() FROM {GENAI_EVENTS_TABLE} GROUP BY TraceId")
    assert sorted(stored) == [(f"{n + 1:032x}", 1) for n in range(24)]


def test_database_failure_answers_503_with_retry_after_and_the_exporter_retries_until_stored(settings, store):
    server = ReceiverServer(settings.with_(retry_after_seconds=1), store).start()
    try:
        url = server.endpoint + LOGS_PATH
        store.command(f"RENAME TABLE {GENAI_EVENTS_TABLE} TO genai_away")  # the database loses the table
        r = httpx.post(url, content=small_log_export(1), headers=JSON_TYPE)
        assert r.status_code == 503 and r.headers["retry-after"] == "1"
        assert r.json()["message"] == "database unavailable, retry later"

        _, records, ids = contrib_calls([SUMMARIES[0]])
        result = {}
        worker = threading.Thread(target=lambda: result.setdefault(
            "r", OTLPLogExporter(endpoint=url, timeout=20).export(records)))
        worker.start()
        time.sleep(0.5)
        assert "r" not in result  # still retrying: nothing acknowledged yet
        store.command(f"RENAME TABLE genai_away TO {GENAI_EVENTS_TABLE}")
        worker.join(30)
        assert result["r"].name == "SUCCESS"
    finally:
        server.stop()
    # only what was acknowledged, exactly once: not the record answered 503, each of the exporter's once
    assert len(genai_events(store, ids)[ids[0]]) == len(rows(store)) == len(records)


def test_stopping_the_receiver_writes_the_records_it_queued(settings, store):
    server = ReceiverServer(settings.with_(insert_batch_wait_ms=300), store).start()
    with httpx.Client() as client:
        r = client.post(server.endpoint + LOGS_PATH, content=small_log_export(7), headers=JSON_TYPE)
    futures = [server.log_writer.submit([GenAiEvent(1_700_000_000_000_000_000, f"{n:032x}", f"{n:016x}",
                                                    "gen_ai.choice", "{}")]) for n in range(100, 110)]
    server.stop()  # before the linger is over: queued records are written, not dropped
    assert r.status_code == 200 and [f.exception(timeout=0) for f in futures] == [None] * 10
    assert len(rows(store)) == 11


def test_mutated_log_exports_never_get_a_5xx_and_the_store_holds_exactly_what_was_acknowledged(receiver, store):
    """Seeded mutations of real exports (protobuf bytes, JSON structure), four clients at once, so requests share
    INSERTs: a refused body stores nothing, an acknowledged one all of its kept records."""
    rng = random.Random(SEED)
    _, records, _ = contrib_calls(SUMMARIES[:2] + OTHERS[:1])
    pb_seed, json_seed = encode_logs(records).SerializeToString(), json.loads(otlp_json_logs(records))
    bodies = []
    for _ in range(400):
        if rng.random() < 0.5:
            bodies.append((mutate_bytes(rng, pb_seed), PB["content-type"]))
        else:
            payload = copy.deepcopy(json_seed)
            mutate_json(rng, payload)
            bodies.append((json.dumps(payload).encode(), JSON_TYPE["content-type"]))

    def send(body: bytes, ctype: str) -> int:
        return client.post(LOGS_PATH, content=body, headers={"content-type": ctype}).status_code

    with httpx.Client(base_url=receiver.endpoint, timeout=20) as client, ThreadPoolExecutor(4) as pool:
        answers = list(pool.map(lambda b: send(*b), bodies))
    assert set(answers) <= {200, 400} and answers.count(200) > 40 and answers.count(400) > 40, Counter(answers)
    # what each acknowledged body holds, read again with the receiver's decoder, is what the store gained (the
    # same record sent by several bodies is one row once merged: compared by the table's key, less the time, which
    # is the time of decoding for a record that has none)
    kept = [r for (body, ctype), status in zip(bodies, answers) if status == 200
            for r in decode_logs(body, content_type=ctype, content_encoding=None, max_bytes=1 << 20).rows]
    assert len(kept) == receiver.log_writer.rows_written
    held = store.query_rows(f"SELECT DISTINCT TraceId, SpanId, Position, EventName FROM {GENAI_EVENTS_TABLE}")
    assert {tuple(k) for k in held} == {(r.trace_id, r.span_id, r.position, r.name) for r in kept}

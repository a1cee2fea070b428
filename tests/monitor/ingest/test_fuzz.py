"""Thousands of mutated OTLP bodies (a seeded mutator: reproducible, no extra dependency) against the real
receiver: never a 5xx, never a hang, and the stored rows change by exactly the spans acknowledged; and a
client sending poisoned timestamps while good clients send theirs costs the good clients nothing."""

import copy
import gzip
import json
import random
import threading
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest
from hang_guard import HANG_GUARD_S
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from test_receiver import make_spans, otlp_json, started
from test_validation import served  # noqa: F401  (the module's database and receiver)

from sumwatch.monitor.ingest.receiver import ReceiverServer
from sumwatch.monitor.ingest.validate import MAX_TIME_NS, MIN_TIME_NS

SEED = 20260110
BODIES = 2000
PB = "application/x-protobuf"
JS = "application/json"
TIMES = [0, 1, 10**9, 10**17 - 1, MIN_TIME_NS - 1, MIN_TIME_NS, 1_767_225_600 * 10**9, MAX_TIME_NS, MAX_TIME_NS + 1,
         2**63, 2**64 - 1]
JSON_VALUES = [None, True, 0, -1, 5, 1.5, 2**64, -(2**63), "", "x", "\ud800", "a\udfffb", "zz", "0" * 32, "0" * 16,
               "ff" * 20, "18446744073709551616", "-1", [], [1], [[]], {}, {"a": 1}, {"stringValue": 5}]
JSON_KEYS = ["\ud800", "", "traceId", "spans", "resourceSpans", "scopeSpans", "startTimeUnixNano", "kvlistValue",
             "resource_spans", "value"]


def mutate_bytes(rng: random.Random, data: bytes) -> bytes:
    out = bytearray(data or b"\x0a")
    for _ in range(rng.randint(1, 4)):
        i = rng.randrange(len(out)) if out else 0
        op = rng.randrange(6)
        if op == 0 and out:
            out[i] ^= 1 << rng.randrange(8)
        elif op == 1:
            del out[i:i + rng.randint(1, 16)]
        elif op == 2:
            out[i:i] = rng.randbytes(rng.randint(1, 8))
        elif op == 3 and out:
            out[i] = rng.choice([0x00, 0x7F, 0x80, 0xFF, 0x0A, 0x12])
        elif op == 4 and out:
            j = rng.randrange(len(out))
            out[i:i] = out[j:j + rng.randint(1, 64)]
        else:
            del out[i:]
    return bytes(out)


def mutate_message(rng: random.Random, request: ExportTraceServiceRequest) -> None:
    """Values the store may not hold, put where a real exporter puts them."""
    spans = [s for rs in request.resource_spans for ss in rs.scope_spans for s in ss.spans]
    for _ in range(rng.randint(1, 3)):
        span = rng.choice(spans)
        op = rng.randrange(11)
        if op == 0:
            span.start_time_unix_nano = rng.choice(TIMES)
        elif op == 1:
            span.end_time_unix_nano = rng.choice(TIMES)
        elif op in (2, 3, 4):
            value = rng.choice([b"", bytes(16), bytes(8), rng.randbytes(rng.randrange(20))])
            setattr(span, ("trace_id", "span_id", "parent_span_id")[op - 2], value)
        elif op == 5:
            span.events.add(time_unix_nano=rng.choice(TIMES), name=rng.choice(["e", "", "\u2603"]))
        elif op == 6:
            span.links.add(trace_id=rng.randbytes(rng.choice([0, 3, 16])), span_id=rng.randbytes(rng.choice([0, 8, 9])))
        elif op == 7:
            span.kind = rng.randrange(-(2**31), 2**31)
        elif op == 8:
            span.status.code = rng.randrange(-(2**31), 2**31)
        elif op == 9:
            attr = span.attributes.add(key=rng.choice(["k", "", "\x00"]))
            value = attr.value
            for _ in range(rng.randrange(60)):
                value = value.kvlist_value.values.add(key="n").value
            choice = rng.randrange(4)
            if choice == 0:
                value.double_value = rng.choice([float("nan"), float("inf"), -0.0, 1e308])
            elif choice == 1:
                value.bytes_value = rng.randbytes(5)
            elif choice == 2:
                value.int_value = rng.choice([-(2**63), 2**63 - 1])
            else:
                value.array_value.values.add().string_value = "x"
        else:
            span.name = "".join(chr(rng.choice([0, 0x41, 0xE9, 0x2603, 0x1F600, 0xFFFF])) for _ in range(4))


def _nodes(value, out):
    if isinstance(value, dict):
        for key, child in value.items():
            out.append((value, key))
            _nodes(child, out)
    elif isinstance(value, list):
        for k, child in enumerate(value):
            out.append((value, k))
            _nodes(child, out)
    return out


def mutate_json(rng: random.Random, payload: dict) -> None:
    for _ in range(rng.randint(1, 3)):
        nodes = _nodes(payload, [])
        if not nodes:
            return
        parent, key = rng.choice(nodes)
        op = rng.randrange(5)
        if op == 0:
            parent[key] = copy.deepcopy(rng.choice(JSON_VALUES))
        elif op == 1:
            del parent[key]
        elif op == 2:
            parent[key] = rng.choice([[parent[key]], {"x": parent[key]}])
        elif op == 3 and isinstance(parent, dict):
            parent[rng.choice(JSON_KEYS)] = parent.pop(key)
        elif isinstance(parent[key], str) and key in ("startTimeUnixNano", "endTimeUnixNano", "timeUnixNano"):
            parent[key] = str(rng.choice(TIMES))
        else:
            parent[key] = copy.deepcopy(rng.choice(JSON_VALUES))


def spans_in(body: bytes, ctype: str, encoding: str | None) -> int | None:
    """Span objects in a body, read independently of the receiver; None when it is not an OTLP export."""
    try:
        if encoding == "gzip":
            body = gzip.decompress(body)
        if ctype == PB:
            request = ExportTraceServiceRequest.FromString(body)
            return sum(len(ss.spans) for rs in request.resource_spans for ss in rs.scope_spans)
        payload = json.loads(body)
    except Exception:
        return None

    def lists(obj, *keys):
        if not isinstance(obj, dict):
            return []
        return next((obj[k] for k in keys if isinstance(obj.get(k), list)), [])
    return sum(len(lists(ss, "spans")) for rs in lists(payload, "resourceSpans", "resource_spans")
               for ss in lists(rs, "scopeSpans", "scope_spans"))


def make_body(rng: random.Random, pb_seeds, json_seeds) -> tuple[bytes, str, str | None]:
    """(body, content type, content encoding): a seed export, mutated."""
    if rng.random() < 0.5:
        request = ExportTraceServiceRequest()
        request.CopyFrom(rng.choice(pb_seeds))
        mutate_message(rng, request)
        body = request.SerializeToString()
        if rng.random() < 0.3:
            body = mutate_bytes(rng, body)
        ctype = PB
    else:
        payload = copy.deepcopy(rng.choice(json_seeds))
        mutate_json(rng, payload)
        body = json.dumps(payload).encode()
        if rng.random() < 0.2:
            body = mutate_bytes(rng, body)
        ctype = JS
    encoding = None
    if rng.random() < 0.15:
        encoding = "gzip"
        body = gzip.compress(body)
        if rng.random() < 0.3:
            cut = rng.randrange(len(body))
            body = body[:cut] + gzip.compress(body[cut:]) if rng.random() < 0.5 else mutate_bytes(rng, body)
    return body, ctype, encoding


def send(client: httpx.Client, body: bytes, ctype: str, encoding: str | None) -> tuple[int, int, str]:
    """(status, spans rejected, start of the answer) for one body; a hang raises httpx's timeout."""
    headers = {"content-type": ctype, **({"content-encoding": encoding} if encoding else {})}
    r = client.post("/v1/traces", content=body, headers=headers)
    rejected = 0
    if r.status_code == 200:
        if ctype == PB:
            rejected = ExportTraceServiceResponse.FromString(r.content).partial_success.rejected_spans
        else:
            rejected = int(r.json().get("partialSuccess", {}).get("rejectedSpans", 0))
    return r.status_code, rejected, r.text[:300]


@pytest.mark.slow
def test_mutated_bodies_never_get_a_5xx_and_change_the_store_only_by_what_was_acknowledged(served):  # noqa: F811
    """Four clients at once, so requests share INSERTs as they do in production."""
    settings, store, server = served
    store.command("TRUNCATE TABLE otel_traces")
    rng = random.Random(SEED)
    pb_seeds = [encode_spans(make_spans(n)) for n in (1, 2, 3)]
    json_seeds = [json.loads(otlp_json(make_spans(n))) for n in (1, 2)]
    bodies = [make_body(rng, pb_seeds, json_seeds) for _ in range(BODIES)]
    with httpx.Client(base_url=server.endpoint, timeout=20) as client, ThreadPoolExecutor(4) as pool:
        answers = list(pool.map(lambda b: send(client, *b), bodies))
    expected, seen = 0, Counter()
    for n, ((body, ctype, encoding), (status, rejected, text)) in enumerate(zip(bodies, answers)):
        seen["partial" if status == 200 and rejected else status] += 1
        assert status in (200, 400, 413), (n, status, text)
        if status == 200:
            spans = spans_in(body, ctype, encoding)
            assert spans is not None and spans >= rejected, (n, text)
            expected += spans - rejected
    # nothing stored for a refused body or a rejected span, everything stored that was acknowledged (the log
    # acknowledges before the INSERT: wait for it)
    assert server.writer.wait_stored(HANG_GUARD_S)
    assert store.query_rows("SELECT count() FROM otel_traces")[0][0] == expected == server.writer.rows_written
    # the mutations reach every kind of answer: stored, partly rejected, refused
    assert min(seen[200], seen["partial"], seen[400]) > BODIES // 20, seen


@pytest.mark.integration
@pytest.mark.slow
def test_good_clients_all_get_200_while_a_bad_client_sends_poisoned_timestamps(served):  # noqa: F811
    settings, store, _ = served
    store.command("TRUNCATE TABLE otel_traces")
    # a linger makes concurrent requests share INSERTs, which is where a poisoned span used to fail everyone
    server = started(ReceiverServer(settings.with_(insert_batch_wait_ms=5), store))
    good_body = encode_spans(make_spans(2)).SerializeToString()  # 4 spans
    poison = ExportTraceServiceRequest.FromString(good_body)
    for rs in poison.resource_spans:
        for ss in rs.scope_spans:
            for k, span in enumerate(ss.spans):
                span.start_time_unix_nano = (0, 1_000_000_000, 2**63, 2**64 - 1)[k % 4]
    partly = ExportTraceServiceRequest.FromString(good_body)
    partly.resource_spans[0].scope_spans[0].spans[0].start_time_unix_nano = 0  # 1 of 4 bad
    bad_bodies = [poison.SerializeToString(), partly.SerializeToString()]
    results: dict[str, list[int]] = {"good": [], "bad": []}
    lock, stop = threading.Lock(), threading.Event()

    def good_client() -> None:
        with httpx.Client(timeout=20) as client:
            for _ in range(25):
                r = client.post(server.endpoint + "/v1/traces", content=good_body, headers={"content-type": PB})
                ok = r.status_code == 200 and not ExportTraceServiceResponse.FromString(r.content).HasField(
                    "partial_success")
                with lock:
                    results["good"].append(200 if ok else r.status_code)

    def bad_client() -> None:
        with httpx.Client(timeout=20) as client:
            k = 0
            while not stop.is_set():
                r = client.post(server.endpoint + "/v1/traces", content=bad_bodies[k % 2], headers={"content-type": PB})
                with lock:
                    results["bad"].append(r.status_code)
                k += 1

    try:
        bad = [threading.Thread(target=bad_client) for _ in range(2)]
        good = [threading.Thread(target=good_client) for _ in range(4)]
        for t in bad + good:
            t.start()
        for t in good:
            t.join(60)
        stop.set()
        for t in bad:
            t.join(30)
        inserts, requests = server.writer.inserts, len(results["good"]) + results["bad"].count(200)
    finally:
        server.stop()
    assert results["good"] == [200] * 100
    assert set(results["bad"]) == {200, 400}  # partly bad: 200 with partial success; all bad: 400
    stored = store.query_rows("SELECT count() FROM otel_traces")[0][0]
    assert stored == 100 * 4 + results["bad"].count(200) * 3
    assert inserts < requests  # requests did share INSERTs

"""SIGKILL of `sumwatch up` while a real OTLP exporter sends: after a restart on the same port and database,
the exporter's retries deliver everything, and every reader sees each span once.

Copies are certain in this test, not left to the timing of the kill: the exporter's HTTP session loses the
answer of some requests after the server stored them (as a killed server or a dropped connection does),
so the exporter's own retry logic sends those batches again. Two of them are answered by the restarted server,
which then stores both deliveries: those copies are certain. One lost before the kill may be stored once (its
first delivery still in the receiver's log at the kill, the resend reaching the restarted server first: the
log's replay skips spans already stored). The SIGKILL itself lands mid-stream, between batches or during one.
"""

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest
import requests
from fakes.tracing import memory_provider
from hang_guard import HANG_GUARD_S
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExportResult

from sumwatch.tracer import summarization

pytestmark = pytest.mark.integration

SUMWATCH = str(Path(sys.executable).with_name("sumwatch"))
SPANS = 1500
LOSE_ANSWER_OF = {3, 9, 25}  # answered requests whose answer the client "never gets"
LOSE_AFTER_RESTART = {3, 10}  # and these, counted from the restart: both deliveries reach one server

# Every reader, run in a process of its own once the server is stopped (chDB: one engine per process).
READERS = r"""
import json, sys
from sumwatch.monitor.issues.failures import load_failures
from sumwatch.monitor.scoring.judges import build_cascade
from sumwatch.monitor.scoring.sampler import Sampler
from sumwatch.monitor.settings import Settings
from sumwatch.monitor.store.connection import Store
from sumwatch.monitor.store.traces import get_trace, span_texts
from sumwatch.monitor.store.listing import list_traces
from sumwatch.tracer import semconv
from sumwatch.tracer.otel_traces import TRACES_TABLE

settings = Settings.from_env(env={}, clickhouse_url=sys.argv[1], home=sys.argv[2])
with Store.open(settings) as store:
    raw, distinct = store.query_rows(f"SELECT count(), uniqExact(TraceId, SpanId) FROM {TRACES_TABLE}")[0]
    copied = [t for (t,) in store.query_rows(
        f"SELECT DISTINCT TraceId FROM {TRACES_TABLE} GROUP BY TraceId, SpanId HAVING count() > 1")]
    listed = [(r.trace_id, r.span_id) for r in list_traces(store, limit=100_000)]
    shown = [(s.trace_id, s.span_id) for t in copied for s in get_trace(store, t)]
    texts = span_texts(store, listed)
    cascade = build_cascade(settings, mode="off", embeddings=False)
    report = Sampler(store, cascade, batch=64).run_pass()
    score_rows = store.query_rows("SELECT count() FROM sumwatch_scores")[0][0]
    failures = [(f.trace_id, f.span_id) for f in load_failures(store, 0, 2**63 - 1)]
print(json.dumps({"raw": raw, "distinct": distinct, "copied_traces": copied, "listed": listed,
                  "shown": shown, "texts": len(texts), "considered": report.considered,
                  "scored": report.scored_spans, "score_rows": score_rows, "failures": failures}))
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_up(command: list[str], env: dict[str, str], port: int) -> subprocess.Popen:
    proc = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + HANG_GUARD_S
    while True:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                return proc
        except httpx.TransportError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            raise AssertionError(f"sumwatch up did not start: {proc.communicate()[1][-2000:]}")
        time.sleep(0.05)


class LosingSession(requests.Session):
    """Sends each request; for the chosen attempts, drops the server's answer as a broken connection would."""

    def __init__(self) -> None:
        super().__init__()
        self.answered = 0
        self.restarted_at: int | None = None  # ``answered`` when the server came back
        self.lost: list[bytes] = []
        self.lost_after_restart: list[bytes] = []

    def request(self, method, url, *args, **kwargs):  # type: ignore[override]
        response = super().request(method, url, *args, **kwargs)
        self.answered += 1
        after = None if self.restarted_at is None else self.answered - self.restarted_at
        if response.status_code == 200 and (self.answered in LOSE_ANSWER_OF or after in LOSE_AFTER_RESTART):
            self.lost.append(kwargs["data"])
            if after in LOSE_AFTER_RESTART:
                self.lost_after_restart.append(kwargs["data"])
            raise requests.exceptions.ConnectionError("connection reset before the answer was read")
        return response


def trace_ids(bodies: list[bytes]) -> set[str]:
    return {span.trace_id.hex() for body in bodies for rs in ExportTraceServiceRequest.FromString(body).resource_spans
            for ss in rs.scope_spans for span in ss.spans}


class CountingExporter(OTLPSpanExporter):
    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.ok = self.failed = 0

    def export(self, spans):
        result = super().export(spans)
        if result is SpanExportResult.SUCCESS:
            self.ok += 1
        else:
            self.failed += 1
        return result


@pytest.mark.slow
def test_sigkill_mid_stream_then_restart_loses_nothing_and_readers_see_each_span_once(tmp_path):
    port = free_port()
    (tmp_path / "db").mkdir()
    db = f"chdb://{tmp_path / 'db'}"
    home = str(tmp_path / "home")
    env = {**os.environ, "SUMWATCH_HOME": home}
    env.pop("SUMWATCH_INGEST_TOKEN", None)
    command = [SUMWATCH, "up", "--no-worker", "--port", str(port), "--db", db]

    server = start_up(command, env, port)
    session = LosingSession()
    exporter = CountingExporter(endpoint=f"http://127.0.0.1:{port}/v1/traces", timeout=40, session=session)
    provider, memory = memory_provider("kill-test")
    provider.add_span_processor(BatchSpanProcessor(exporter, max_queue_size=SPANS * 2, max_export_batch_size=50,
                                                   schedule_delay_millis=20))

    @summarization(band="tldr", tracer_provider=provider)
    def summarize(text: str) -> str:
        return f"Revenue rose {text.split()[1]}% in May."

    def produce() -> None:
        for i in range(SPANS):
            summarize(f"Document {i}: revenue rose {i % 90}% in May, the company said on Tuesday, and margins held.")
            time.sleep(0.002)

    producer = threading.Thread(target=produce)
    try:
        producer.start()
        deadline = time.monotonic() + HANG_GUARD_S
        while exporter.ok < 8:  # mid-stream: some batches stored, more queued and on the wire
            assert time.monotonic() < deadline, "the exporter made no progress"
            time.sleep(0.005)
        server.send_signal(signal.SIGKILL)
        server.wait(timeout=HANG_GUARD_S)
        exported_before_kill = exporter.ok
        server = start_up(command, env, port)  # same port, same database; the exporter is backing off
        session.restarted_at = session.answered
        producer.join(timeout=60)
        assert provider.force_flush(timeout_millis=60_000)
        provider.shutdown()
        assert exporter.failed == 0  # every batch was delivered in the end: nothing dropped by the exporter
        assert exporter.ok > exported_before_kill  # the stream went on after the restart

        made = {(format(s.context.trace_id, "032x"), format(s.context.span_id, "016x"))
                for s in memory.get_finished_spans()}
        assert len(made) == SPANS and len(session.lost_after_restart) == len(LOSE_AFTER_RESTART)
        assert len(LOSE_AFTER_RESTART) < len(session.lost) <= len(LOSE_ANSWER_OF) + len(LOSE_AFTER_RESTART)

        # through the restarted server: the `traces` command (it reads through the API) and trace detail
        listed = subprocess.run([SUMWATCH, "traces", "--json", "-n", str(SPANS * 3), "--db", db], env=env,
                                capture_output=True, text=True, timeout=HANG_GUARD_S)
        assert listed.returncode == 0, listed.stderr
        keys = [(r["trace_id"], r["span_id"]) for r in json.loads(listed.stdout)]
        assert len(keys) == len(set(keys)) == SPANS and set(keys) == made
        resent = trace_ids(session.lost)
        for trace_id in sorted(resent)[:40]:
            detail = httpx.get(f"http://127.0.0.1:{port}/api/traces/{trace_id}", timeout=10).json()
            assert len(detail) == 1 and detail[0]["trace_id"] == trace_id
    finally:
        producer.join(timeout=60)
        server.send_signal(signal.SIGTERM)
        _, stderr = server.communicate(timeout=HANG_GUARD_S)
    assert server.returncode == 0, stderr

    readers = subprocess.run([sys.executable, "-c", READERS, db, home], env=env, capture_output=True, text=True,
                             timeout=HANG_GUARD_S)
    assert readers.returncode == 0, readers.stderr
    seen = json.loads(readers.stdout)
    assert seen["distinct"] == SPANS and seen["raw"] > SPANS  # copies are stored ...
    copied = set(seen["copied_traces"])
    assert trace_ids(session.lost_after_restart) <= copied
    # ... and no reader sees one: listing, trace detail, the sampler, the clustering job's reads
    assert len(seen["listed"]) == SPANS and {tuple(k) for k in seen["listed"]} == made
    assert len(seen["shown"]) == len({tuple(k) for k in seen["shown"]}) == len(copied)
    assert seen["texts"] == SPANS
    assert seen["considered"] == seen["scored"] == SPANS and seen["score_rows"] == 4 * SPANS
    assert len(seen["failures"]) == len({tuple(k) for k in seen["failures"]})

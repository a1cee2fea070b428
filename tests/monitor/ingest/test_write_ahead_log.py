"""The receiver's write-ahead log: what it acknowledged is stored exactly once, whatever point the process died at.

The known points are set by the writer's held drain (acknowledged, logged, not inserted) and by an INSERT made
before the log's offset was written, not by the timing of a kill.
"""

import json
import os
import signal
import subprocess
import sys

import httpx
from fakes.tracing import memory_provider
from hang_guard import HANG_GUARD_S
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans

from sumwatch.monitor.ingest.otlp import PROTOBUF, decode_traces
from sumwatch.monitor.ingest.write_ahead_log import WriteAheadLog
from sumwatch.monitor.ingest.writer import SPANS, GroupWriter, pack_record
from sumwatch.tracer import summarization
from sumwatch.tracer.otel_traces import COLUMNS, INSERT_FORMAT, TRACES_TABLE, join_columns

REQUESTS, SPANS_PER_REQUEST = 6, 40

# A receiver on its own process (chDB: one engine per process); "hold" keeps its drain held, so every
# acknowledged span is in the log only when the test kills it.
RECEIVER = r"""
import json, sys
from sumwatch.monitor.ingest.receiver import ReceiverServer
from sumwatch.monitor.settings import Settings
from sumwatch.monitor.store.connection import Store
from sumwatch.monitor.store.migrations import migrate
from sumwatch.tracer.otel_traces import TRACES_TABLE

settings = Settings.from_env(env={"SUMWATCH_RECEIVER_LOG": "on"}, clickhouse_url=sys.argv[1], home=sys.argv[2],
                             port=0)
store = Store.open(settings)
migrate(store)
server = ReceiverServer(settings, store)
if sys.argv[3] == "hold":
    server.writer.hold()
server.start()
if sys.argv[3] == "hold":
    print(json.dumps({"port": server.port, "log": str(settings.receiver_log_path)}), flush=True)
    sys.stdin.read()  # until killed
server.stop()
raw, distinct = store.query_rows(f"SELECT count(), uniqExact(TraceId, SpanId) FROM {TRACES_TABLE}")[0]
keys = sorted([t, s] for t, s in store.query_rows(f"SELECT TraceId, SpanId FROM {TRACES_TABLE}"))
print(json.dumps({"raw": raw, "distinct": distinct, "keys": keys}))
"""


def request_bodies(requests: int, per_request: int) -> list[bytes]:
    provider, memory = memory_provider("wal-test")

    @summarization(band="tldr", tracer_provider=provider)
    def summarize(text: str) -> str:
        return "Revenue rose in May."

    for i in range(requests * per_request):
        summarize(f"Document {i}: revenue rose {i % 90}% in May, the company said on Tuesday.")
    spans = memory.get_finished_spans()
    return [encode_spans(spans[i:i + per_request]).SerializeToString() for i in range(0, len(spans), per_request)]


def keys_of(bodies: list[bytes]) -> list[list[str]]:
    rows = [row for body in bodies for row in decode(body)]
    trace, span = COLUMNS.index("TraceId"), COLUMNS.index("SpanId")
    return sorted([row[trace], row[span]] for row in rows)


def decode(body: bytes):
    return decode_traces(body, content_type=PROTOBUF, content_encoding=None, max_bytes=1 << 24).rows


def test_spans_acknowledged_then_sigkilled_before_the_drain_are_stored_once_after_restart(tmp_path):
    db, home = f"chdb://{tmp_path / 'db'}", str(tmp_path / "home")
    (tmp_path / "db").mkdir()
    bodies = request_bodies(REQUESTS, SPANS_PER_REQUEST)
    held = subprocess.Popen([sys.executable, "-c", RECEIVER, db, home, "hold"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        started = json.loads(held.stdout.readline() or "{}")
        assert "port" in started, held.stderr.read() if held.poll() is not None else "no port"
        for body in bodies:
            answer = httpx.post(f"http://127.0.0.1:{started['port']}/v1/traces", content=body,
                                headers={"content-type": PROTOBUF}, timeout=HANG_GUARD_S)
            assert answer.status_code == 200, answer.text
        log = os.path.join(started["log"], "spans.log")
        assert os.path.getsize(log) > sum(map(len, bodies)) // 2  # acknowledged from the log, not the table
    finally:
        held.send_signal(signal.SIGKILL)
        held.wait(timeout=HANG_GUARD_S)
    # a record torn by the kill was never acknowledged: it is dropped, not stored or fatal
    with open(log, "ab") as fh:
        fh.write(b"\x10\x00\x00\x00\xde\xad")

    restarted = subprocess.run([sys.executable, "-c", RECEIVER, db, home, "run"], capture_output=True, text=True,
                               timeout=HANG_GUARD_S)
    assert restarted.returncode == 0, restarted.stderr
    seen = json.loads(restarted.stdout)
    assert seen["raw"] == seen["distinct"] == REQUESTS * SPANS_PER_REQUEST
    assert seen["keys"] == keys_of(bodies)
    assert os.path.getsize(log) == 0  # drained and emptied

    again = subprocess.run([sys.executable, "-c", RECEIVER, db, home, "run"], capture_output=True, text=True,
                           timeout=HANG_GUARD_S)
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["raw"] == REQUESTS * SPANS_PER_REQUEST  # a second start replays nothing


def test_a_replay_skips_records_an_insert_stored_before_the_offset_was_written(tmp_path, store):
    bodies = request_bodies(3, 5)
    encoded = [SPANS.encode(decode(body)) for body in bodies]
    log = WriteAheadLog(tmp_path / "spans")
    assert log.open() == []
    for blocks in encoded:
        log.append(pack_record(blocks, 5))
    # the crash came after the INSERT of the first two records and before their offset was written
    store.insert_encoded(TRACES_TABLE, COLUMNS, join_columns(encoded[:2]), INSERT_FORMAT)
    log.close()

    writer = GroupWriter(store, SPANS, log=WriteAheadLog(tmp_path / "spans")).start()
    writer.stop()

    stored = sorted(list(k) for k in store.query_rows(f"SELECT TraceId, SpanId FROM {TRACES_TABLE}"))
    assert stored == keys_of(bodies)  # each span once: the third record inserted, the first two not again
    assert writer.rows_written == 5
    assert (tmp_path / "spans.log").stat().st_size == 0


def test_a_second_writer_on_the_same_log_is_refused_with_one_line(tmp_path):
    first = WriteAheadLog(tmp_path / "spans")
    first.open()
    try:
        second = WriteAheadLog(tmp_path / "spans")
        try:
            second.open()
        except RuntimeError as exc:
            assert str(exc) == f"the receiver log {tmp_path / 'spans.log'} is in use by another process"
        else:
            raise AssertionError("a second writer opened the log")
    finally:
        first.close()

"""The receiver's write-ahead log: what it acknowledged is stored exactly once, whatever point the process died at.

The known points are set by the writer's held drain (acknowledged, logged, not inserted) and by an INSERT made
before the log's offset was written, not by the timing of a kill.
"""

import json
import os
import signal
import subprocess
import sys
import threading
import time

import httpx
import pytest
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


@pytest.mark.integration
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


def test_writers_sharing_a_home_take_a_log_each_and_the_next_start_drains_one_left_behind(tmp_path, store):
    first = WriteAheadLog(tmp_path / "spans")
    first.open()
    second = WriteAheadLog(tmp_path / "spans")
    second.open()  # another receiver on the same home and database
    assert (first.path.name, second.path.name) == ("spans.log", "spans-1.log")
    bodies = request_bodies(2, 5)
    for body in bodies:  # acknowledged by the second receiver, which then dies
        second.append(pack_record(SPANS.encode(decode(body)), 5))
    second.close()
    first.close()

    writer = GroupWriter(store, SPANS, log=WriteAheadLog(tmp_path / "spans")).start()  # one receiver comes back
    writer.stop()
    stored = sorted(list(k) for k in store.query_rows(f"SELECT TraceId, SpanId FROM {TRACES_TABLE}"))
    assert stored == keys_of(bodies)
    assert (tmp_path / "spans-1.log").stat().st_size == 0  # drained and committed


def test_every_slot_in_use_is_named_in_one_line(tmp_path, monkeypatch):
    monkeypatch.setattr("sumwatch.monitor.ingest.write_ahead_log.MAX_SLOTS", 2)
    held = [WriteAheadLog(tmp_path / "spans"), WriteAheadLog(tmp_path / "spans")]
    for log in held:
        log.open()
    try:
        try:
            WriteAheadLog(tmp_path / "spans").open()
        except RuntimeError as exc:
            assert str(exc) == f"all 2 receiver logs under {tmp_path} are in use"
        else:
            raise AssertionError("a third writer opened a log")
    finally:
        for log in held:
            log.close()


@pytest.mark.integration
def test_the_servers_reads_wait_for_what_the_log_acknowledged(settings, store):
    """With the log, a 200 comes before the INSERT; a read through the server then waits for that INSERT, so a
    client told its spans were received finds them (the drain is held until the read has been sent)."""
    from served import serve

    server = serve(settings.with_(receiver_log=True), store)
    try:
        server.writer.hold()
        (body,) = request_bodies(1, 3)
        assert httpx.post(f"{server.endpoint}/v1/traces", content=body,
                          headers={"content-type": PROTOBUF}).status_code == 200
        assert server.writer.backlog == 3  # acknowledged, in the log, not in the table
        listed: list[dict] = []
        reader = threading.Thread(target=lambda: listed.append(
            httpx.get(f"{server.endpoint}/api/traces", timeout=HANG_GUARD_S).json()))
        reader.start()
        server.writer.release()
        reader.join(HANG_GUARD_S)
        assert server.writer.backlog == 0
        assert len(listed[0]) == 3
    finally:
        server.stop()


@pytest.mark.integration
def test_while_the_table_is_missing_logged_spans_wait_and_new_requests_get_503(settings, store):
    """The log acknowledged the first request; its INSERT then fails until the table is back, and is retried (not
    dropped as refused rows), while new requests are refused so exporters keep them."""
    from served import serve

    server = serve(settings.with_(receiver_log=True, retry_after_seconds=1), store)
    first, second = request_bodies(2, 3)
    url, headers = f"{server.endpoint}/v1/traces", {"content-type": PROTOBUF}
    try:
        store.command("RENAME TABLE otel_traces TO otel_traces_away")
        try:
            assert httpx.post(url, content=first, headers=headers).status_code == 200  # in the log
            deadline = time.monotonic() + HANG_GUARD_S  # a hang guard, not a test limit
            while not server.writer.failing:
                assert time.monotonic() < deadline
                time.sleep(0.01)
            refused = httpx.post(url, content=second, headers=headers)
            assert refused.status_code == 503 and refused.headers["retry-after"] == "1"
        finally:
            store.command("RENAME TABLE otel_traces_away TO otel_traces")
        assert server.writer.wait_stored(HANG_GUARD_S)
    finally:
        server.stop()
    stored = sorted(list(k) for k in store.query_rows(f"SELECT TraceId, SpanId FROM {TRACES_TABLE}"))
    assert stored == keys_of([first])  # once, and only what was acknowledged

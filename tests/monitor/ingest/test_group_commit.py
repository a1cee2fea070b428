"""The group commit waits for requests already on their way, and for nothing else.

Exporters wait for their acknowledgement before sending again, so one wave of requests arrives together: a batch
that waits for the rest of its wave makes one INSERT (each has a large fixed cost in the engine), and a batch
that waited when nothing was coming would only add latency. The linger here is far beyond the hang guard, so a
writer that waited for it would fail these tests instead of passing slowly.
"""

from hang_guard import HANG_GUARD_S
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from test_receiver import make_spans, stored

from sumwatch.monitor.ingest.otlp import request_to_rows
from sumwatch.monitor.ingest.writer import GroupWriter

FOREVER_MS = 2 * HANG_GUARD_S * 1000


def rows(n=1):
    request = ExportTraceServiceRequest.FromString(encode_spans(make_spans(n)).SerializeToString())
    return request_to_rows(request).rows


def test_announced_requests_join_one_insert(store):
    writer = GroupWriter(store, linger_ms=FOREVER_MS).start()
    try:
        futures = []
        with writer.incoming() as first, writer.incoming() as second, writer.incoming() as third:
            for ticket in (first, second, third):
                futures.append(writer.submit(rows()))
                ticket.done()
        assert [f.result(HANG_GUARD_S) for f in futures] == [6, 6, 6]  # each learns the size of its INSERT
        assert writer.inserts == 1
    finally:
        writer.stop()
    assert len(stored(store)) == 6


def test_a_batch_does_not_wait_when_nothing_is_on_its_way(store):
    writer = GroupWriter(store, linger_ms=FOREVER_MS).start()
    try:
        assert writer.submit(rows()).result(HANG_GUARD_S) == 2
        assert writer.submit(rows()).result(HANG_GUARD_S) == 2
        assert writer.inserts == 2
    finally:
        writer.stop()


def test_a_request_that_fails_before_submitting_does_not_hold_the_batch(store):
    writer = GroupWriter(store, linger_ms=FOREVER_MS).start()
    try:
        with writer.incoming() as sent, writer.incoming():  # the second request never submits (a bad body)
            future = writer.submit(rows())
            sent.done()
        assert future.result(HANG_GUARD_S) == 2
    finally:
        writer.stop()
    assert writer.rows_written == 2

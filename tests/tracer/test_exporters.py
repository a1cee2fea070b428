"""The direct ClickHouse exporter on the real engine: stored rows, failures counted not raised,
bounded memory under a slow database, and a shutdown that stores what it was handed."""

import logging
import threading

from fakes.tracing import memory_provider
from opentelemetry.sdk.trace.export import SpanExportResult

from sumwatch.tracer import ClickHouseSpanExporter, summarization


def finished_spans(n, text="A source text with enough words to count."):
    provider, memory = memory_provider("exporter-test")

    @summarization(band="tldr", tracer_provider=provider)
    def summarize(source: str) -> str:
        return "a summary"

    for _ in range(n):
        summarize(text)
    return memory.get_finished_spans()


def stored(store):
    return store.query_rows("SELECT count() FROM otel_traces")[0][0]


class Gated:
    """The store's real client, held at a gate before each insert: a database that is slow to answer."""

    def __init__(self, client):
        self._client, self.gate, self.entered = client, threading.Event(), threading.Event()

    def raw_insert(self, *args, **kwargs):
        self.entered.set()
        assert self.gate.wait(30), "the test never opened the gate"
        return self._client.raw_insert(*args, **kwargs)


def test_exported_spans_are_stored_once_each(store, settings):
    exporter = ClickHouseSpanExporter(store.client, database=settings.database)
    assert exporter.export(finished_spans(3)) is SpanExportResult.SUCCESS
    assert exporter.force_flush(10_000)
    assert stored(store) == 3 and exporter.exported_spans == 3 and exporter.failed_spans == 0
    exporter.shutdown()


def test_a_failing_insert_is_counted_and_logged_never_raised(store, caplog):
    spans = finished_spans(2)
    synchronous = ClickHouseSpanExporter(store.client, database="no_such_database", in_flight=0)
    with caplog.at_level(logging.ERROR, logger="sumwatch.tracer._exporters"):
        assert synchronous.export(spans) is SpanExportResult.FAILURE
    assert synchronous.failed_spans == 2 and "insert of 2 spans failed" in caplog.text

    pipelined = ClickHouseSpanExporter(store.client, database="no_such_database")
    assert pipelined.export(spans) is SpanExportResult.SUCCESS  # handed over; the writer finds out
    assert pipelined.force_flush(10_000) and pipelined.failed_spans == 2 and pipelined.exported_spans == 0
    pipelined.shutdown()
    assert stored(store) == 0


def test_a_slow_database_blocks_export_after_in_flight_batches_instead_of_growing_memory(store, settings):
    gated = Gated(store.client)
    exporter = ClickHouseSpanExporter(gated, database=settings.database, in_flight=1)
    batches = [finished_spans(2) for _ in range(3)]
    assert exporter.export(batches[0]) is SpanExportResult.SUCCESS  # the writer takes it and waits at the gate
    assert gated.entered.wait(10)
    assert exporter.export(batches[1]) is SpanExportResult.SUCCESS  # queued: one batch in flight

    third_done = threading.Event()
    threading.Thread(target=lambda: (exporter.export(batches[2]), third_done.set()), daemon=True).start()
    assert not third_done.wait(0.5), "a third batch was accepted while two were waiting"
    gated.gate.set()
    assert third_done.wait(10)
    assert exporter.force_flush(10_000) and stored(store) == 6 and exporter.exported_spans == 6
    exporter.shutdown()


def test_shutdown_stores_what_was_handed_over_then_refuses_more(store, settings):
    gated = Gated(store.client)
    exporter = ClickHouseSpanExporter(gated, database=settings.database, in_flight=2)
    exporter.export(finished_spans(2))
    exporter.export(finished_spans(3))
    assert gated.entered.wait(10)
    closing = threading.Thread(target=exporter.shutdown)
    closing.start()
    gated.gate.set()
    closing.join(30)
    assert not closing.is_alive() and stored(store) == 5
    assert exporter.export(finished_spans(1)) is SpanExportResult.FAILURE
    assert stored(store) == 5
    exporter.shutdown()  # a second shutdown is harmless

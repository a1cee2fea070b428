"""The direct ClickHouse exporter, on the real engine and over HTTP to a loopback fake of a server:
stored rows, failures counted and logged never raised, bounded memory under a slow database, and a
shutdown that stores what it was handed (within a bound) and refuses the rest."""

import json
import logging
import queue
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

import pytest
from fakes.tracing import memory_provider
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SpanExportResult

from sumwatch.tracer import ClickHouseSpanExporter, configure, semconv, summarization
from sumwatch.tracer.otel_traces import COLUMNS

PASSWORD = "s3cret-pw"


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
    exporter = ClickHouseSpanExporter(store.client, database=settings.store.database)
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
    exporter = ClickHouseSpanExporter(gated, database=settings.store.database, in_flight=1)
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
    exporter = ClickHouseSpanExporter(gated, database=settings.store.database, in_flight=2)
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


# -- over HTTP, against a loopback fake of a ClickHouse server ------------------------------------


class FakeClickHouse(ThreadingHTTPServer):
    """Enough of ClickHouse's HTTP interface for clickhouse-connect, on 127.0.0.1: the version and
    settings queries it sends when it connects, and INSERTs, whose rows it keeps.

    ``fail_with`` answers every INSERT with that HTTP status, as ClickHouse answers a failed query;
    while ``gate`` is clear each INSERT is held before it is answered: a database slow to answer.
    ``arrived`` gets one item per INSERT received (held or not).
    """

    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _ClickHouseHandler)
        self.url = f"http://default:{PASSWORD}@127.0.0.1:{self.server_port}"
        self.fail_with: int | None = None
        self.gate = threading.Event()
        self.gate.set()
        self.arrived: queue.Queue[str] = queue.Queue()
        self.requests = 0
        self.inserts: list[tuple[str, list[list]]] = []  # (target table, columns) per stored INSERT
        self._lock = threading.Lock()

    @property
    def stored_rows(self) -> int:
        with self._lock:
            return sum(len(columns[0]) for _, columns in self.inserts)

    def attributes(self) -> list[dict]:
        at = COLUMNS.index("SpanAttributes")
        with self._lock:
            return [attrs for _, columns in self.inserts for attrs in columns[at]]


class _ClickHouseHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: FakeClickHouse

    def log_message(self, *args):
        pass

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        query = parse_qs(urlsplit(self.path).query).get("query", [""])[0] or body.decode("utf-8", "replace")
        with self.server._lock:
            self.server.requests += 1
        if not query.startswith("INSERT"):
            # the connect-time queries: "SELECT version(), timezone()" as text; an empty Native result
            # for the settings and protocol probes, which clickhouse-connect takes as "nothing special"
            return self._answer(200, b"24.8.1.1\tUTC\n" if "version()" in query else b"")
        self.server.arrived.put(query[:40])
        assert self.server.gate.wait(30), "the test never opened the gate"
        if self.server.fail_with is not None:
            return self._answer(self.server.fail_with, b"Code: 60. DB::Exception: Unknown table expression "
                                b"identifier 'otel.otel_traces'. (UNKNOWN_TABLE)", code="60")
        head, _, data = body.partition(b"\n")
        target = head.decode().split()[2]
        with self.server._lock:
            self.server.inserts.append((target, json.loads(data)))
        self._answer(200, b"")

    do_GET = do_POST

    def _answer(self, status, body, code=None):
        self.send_response(status)
        if code:
            self.send_header("X-ClickHouse-Exception-Code", code)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture
def clickhouse():
    server = FakeClickHouse()
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    yield server
    server.gate.set()
    server.shutdown()
    server.server_close()


def closed_port_url():
    with socket.socket() as sock:  # a port nothing listens on: connections are refused at once
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://default:{PASSWORD}@127.0.0.1:{port}"


def traced_calls(provider, n):
    @summarization(band="tldr", tracer_provider=provider)
    def summarize(source: str) -> str:
        return "a summary"

    for _ in range(n):
        assert summarize("A source text with enough words to count.") == "a summary"


def test_configure_with_a_clickhouse_url_connects_late_and_inserts_over_http(clickhouse):
    provider = TracerProvider()
    configure(clickhouse=clickhouse.url, provider=provider, database="otel")
    assert clickhouse.requests == 0  # configure() does not touch the network: an app starts with ClickHouse down
    traced_calls(provider, 3)
    provider.shutdown()  # flushes the batch processor, then the exporter
    assert clickhouse.stored_rows == 3
    assert {target for target, _ in clickhouse.inserts} == {"`otel`.`otel_traces`"}
    assert all(a[semconv.TASK] == "summarization" for a in clickhouse.attributes())


def test_an_error_answer_is_counted_and_logged_once_per_outage_never_raised(clickhouse, caplog):
    clickhouse.fail_with = 500
    exporter = ClickHouseSpanExporter(clickhouse.url, in_flight=0)
    with caplog.at_level(logging.DEBUG, logger="sumwatch.tracer._exporters"):
        assert exporter.export(finished_spans(2)) is SpanExportResult.FAILURE
        assert exporter.export(finished_spans(1)) is SpanExportResult.FAILURE
        errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
        assert len(errors) == 1 and "insert of 2 spans failed" in errors[0].getMessage()
        assert "UNKNOWN_TABLE" in errors[0].getMessage()
        assert exporter.failed_spans == 3 and exporter.exported_spans == 0

        clickhouse.fail_with = None
        assert exporter.export(finished_spans(2)) is SpanExportResult.SUCCESS
        assert "succeed again" in caplog.text
    assert exporter.exported_spans == 2 and clickhouse.stored_rows == 2
    assert PASSWORD not in caplog.text
    exporter.shutdown()


def test_an_unreachable_server_never_reaches_the_app(caplog):
    url = closed_port_url()
    provider = TracerProvider()
    with caplog.at_level(logging.DEBUG):
        configure(clickhouse=url, provider=provider)  # no connection attempt yet, so nothing to fail
        traced_calls(provider, 2)  # the app's calls run and return as usual
        provider.shutdown()
        assert "insert of 2 spans failed" in caplog.text

        exporter = ClickHouseSpanExporter(url, in_flight=0)
        assert exporter.export(finished_spans(1)) is SpanExportResult.FAILURE
        assert exporter.failed_spans == 1
        exporter.shutdown()
    assert PASSWORD not in caplog.text


def test_a_slow_server_blocks_export_after_in_flight_batches(clickhouse):
    clickhouse.gate.clear()
    exporter = ClickHouseSpanExporter(clickhouse.url, in_flight=1)
    assert exporter.export(finished_spans(2)) is SpanExportResult.SUCCESS  # the writer sends it and waits
    clickhouse.arrived.get(timeout=10)
    assert exporter.export(finished_spans(2)) is SpanExportResult.SUCCESS  # queued: one batch in flight

    third_done = threading.Event()
    threading.Thread(target=lambda: (exporter.export(finished_spans(2)), third_done.set()), daemon=True).start()
    assert not third_done.wait(0.5), "a third batch was accepted while two were waiting"
    assert exporter.force_flush(100) is False  # a flush gives up at its timeout
    clickhouse.gate.set()
    assert third_done.wait(10)
    assert exporter.force_flush(10_000) and clickhouse.stored_rows == 6 and exporter.exported_spans == 6
    exporter.shutdown()


def test_a_slow_server_never_makes_the_app_wait_spans_past_the_queue_are_dropped(clickhouse):
    clickhouse.gate.clear()
    provider = TracerProvider()
    configure(clickhouse=clickhouse.url, provider=provider, max_export_batch_size=50, schedule_delay_millis=10)
    calls = 3000  # more than the batch processor's queue (2048) plus the exporter's batches (3 of 50)
    done = threading.Event()
    threading.Thread(target=lambda: (traced_calls(provider, calls), done.set()), daemon=True).start()
    assert done.wait(60), "the app waited on a ClickHouse that does not answer"
    clickhouse.gate.set()
    provider.shutdown()
    assert 0 < clickhouse.stored_rows <= 2048 + 3 * 50


def test_shutdown_over_http_stores_what_was_handed_over_then_refuses_more(clickhouse):
    clickhouse.gate.clear()
    exporter = ClickHouseSpanExporter(clickhouse.url, in_flight=2)
    assert exporter.export(finished_spans(2)) is SpanExportResult.SUCCESS
    assert exporter.export(finished_spans(3)) is SpanExportResult.SUCCESS
    clickhouse.arrived.get(timeout=10)
    closing = threading.Thread(target=exporter.shutdown)
    closing.start()
    closing.join(0.2)
    assert closing.is_alive(), "shutdown returned before the handed-over batches were stored"
    clickhouse.gate.set()
    closing.join(30)
    assert not closing.is_alive() and clickhouse.stored_rows == 5
    sent = clickhouse.requests
    assert exporter.export(finished_spans(1)) is SpanExportResult.FAILURE
    assert clickhouse.requests == sent and exporter.exported_spans == 5 and exporter.failed_spans == 1
    exporter.shutdown()  # a second shutdown is harmless


def test_shutdown_gives_up_on_a_server_that_never_answers_within_its_timeout(clickhouse, caplog):
    clickhouse.gate.clear()
    exporter = ClickHouseSpanExporter(clickhouse.url, in_flight=1)
    exporter.export(finished_spans(2))
    clickhouse.arrived.get(timeout=10)
    exporter.export(finished_spans(3))  # waits behind the held INSERT
    started = time.monotonic()
    with caplog.at_level(logging.ERROR, logger="sumwatch.tracer._exporters"):
        exporter.shutdown(timeout_millis=200)
    assert time.monotonic() - started < 5
    assert exporter.failed_spans == 3 and "did not take 3 spans" in caplog.text
    assert exporter.export(finished_spans(1)) is SpanExportResult.FAILURE

    clickhouse.gate.set()  # the INSERT already sent still completes
    assert exporter.force_flush(10_000) and exporter.exported_spans == 2 and clickhouse.stored_rows == 2

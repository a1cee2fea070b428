"""A span exporter that writes straight into ClickHouse's ``otel_traces`` (no Collector in between).

    exporter = ClickHouseSpanExporter("http://default:pw@clickhouse:8123", database="otel")
    provider.add_span_processor(BatchSpanProcessor(exporter, max_export_batch_size=8192))

It needs ``clickhouse-connect`` (installed by ``sumwatch[server]``); it is imported only when this
exporter is built, so the tracer itself stays OpenTelemetry-only.

Writes are pipelined: ``export()`` converts and encodes a batch, then hands it to a writer thread
and returns while the previous INSERT may still run (ClickHouse works without the GIL, so encoding
and inserting overlap). At most ``in_flight`` batches wait; beyond that ``export()`` blocks, so memory
stays bounded. ``force_flush()`` and ``shutdown()`` wait until every handed-over batch is stored.
A failed INSERT is logged and counted in ``failed_spans``. ``in_flight=0`` makes every export
synchronous.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Sequence
from typing import Any

from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult

from .otel_traces import COLUMNS, INSERT_FORMAT, TRACES_TABLE, encode_rows, spans_to_rows

_log = logging.getLogger(__name__)
_STOP = object()


class ClickHouseSpanExporter(SpanExporter):
    """Insert each exported batch into ``otel_traces`` as one INSERT.

    ``client`` is a clickhouse-connect client, or a URL to build one from (``http(s)://...`` for a
    server, ``chdb:///dir`` for the embedded engine). The table must exist: ``sumwatch db migrate``.
    """

    def __init__(self, client: Any, *, database: str = "otel", table: str = TRACES_TABLE,
                 in_flight: int = 1) -> None:
        if isinstance(client, str):
            import clickhouse_connect  # deferred: only this exporter needs it

            client = clickhouse_connect.get_client(dsn=client)
        self._client = client
        self._target = f"`{database}`.`{table}`"
        self._columns = list(COLUMNS)
        self._in_flight = in_flight
        self._queue: queue.Queue[Any] = queue.Queue(maxsize=max(in_flight, 1))
        self._pending = 0
        self._cond = threading.Condition()
        self._thread: threading.Thread | None = None
        self._closed = False
        self.exported_spans = 0
        self.failed_spans = 0

    def _insert(self, body: bytes, count: int) -> bool:
        try:
            self._client.raw_insert(self._target, column_names=self._columns, insert_block=body, fmt=INSERT_FORMAT)
        except Exception as exc:  # never raise into the SDK's worker thread
            _log.error("sumwatch: ClickHouse insert of %d spans failed: %s", count, exc)
            self.failed_spans += count
            return False
        self.exported_spans += count
        return True

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        if self._closed:
            return SpanExportResult.FAILURE
        if not spans:
            return SpanExportResult.SUCCESS
        try:
            body = encode_rows(spans_to_rows(spans))
        except Exception as exc:
            _log.error("sumwatch: could not encode %d spans: %s", len(spans), exc)
            self.failed_spans += len(spans)
            return SpanExportResult.FAILURE
        if self._in_flight == 0:
            return SpanExportResult.SUCCESS if self._insert(body, len(spans)) else SpanExportResult.FAILURE
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="sumwatch-ch-exporter", daemon=True)
            self._thread.start()
        with self._cond:
            self._pending += 1
        self._queue.put((body, len(spans)))  # blocks while the writer is `in_flight` batches behind
        return SpanExportResult.SUCCESS

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if item is _STOP:
                return
            self._insert(*item)
            with self._cond:
                self._pending -= 1
                self._cond.notify_all()

    def force_flush(self, timeout_millis: int | None = 30_000) -> bool:
        """Wait until every batch handed to the writer is stored (or failed)."""
        deadline = time.monotonic() + (timeout_millis or 30_000) / 1000
        with self._cond:
            while self._pending:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(left)
        return True

    def shutdown(self) -> None:
        if self._closed:
            return
        self.force_flush()
        self._closed = True
        if self._thread is not None:
            self._queue.put(_STOP)
            self._thread.join(10)

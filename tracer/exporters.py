"""A span exporter that writes straight into ClickHouse's ``otel_traces`` (no Collector in between).

    exporter = ClickHouseSpanExporter("http://default:pw@clickhouse:8123", database="otel")
    provider.add_span_processor(BatchSpanProcessor(exporter, max_export_batch_size=2048))

It needs ``clickhouse-connect`` (installed by ``sumwatch[server]``); it is imported only when this
exporter is built, so the tracer itself stays OpenTelemetry-only.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from typing import Any, Optional

from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult

from .otel_traces import COLUMNS, TRACES_TABLE, spans_to_rows

_log = logging.getLogger(__name__)


class ClickHouseSpanExporter(SpanExporter):
    """Insert each exported batch as one ClickHouse INSERT.

    ``client`` is a clickhouse-connect client, or a URL to build one from (``http(s)://...`` for a
    server, ``chdb:///dir`` for the embedded engine). The table must exist: ``sumwatch db migrate``.
    """

    def __init__(self, client: Any, *, database: str = "otel", table: str = TRACES_TABLE) -> None:
        if isinstance(client, str):
            import clickhouse_connect  # deferred: only this exporter needs it

            client = clickhouse_connect.get_client(dsn=client)
        self._client = client
        self._database = database
        self._table = table
        self._lock = threading.Lock()  # one INSERT at a time on a shared client
        self._closed = False

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        if self._closed:
            return SpanExportResult.FAILURE
        try:
            rows = spans_to_rows(spans)
            with self._lock:
                self._client.insert(self._table, rows, column_names=COLUMNS, database=self._database)
            return SpanExportResult.SUCCESS
        except Exception as exc:  # the SDK logs and drops on FAILURE; never raise into its worker
            _log.error("sumwatch: ClickHouse export of %d spans failed: %s", len(spans), exc)
            return SpanExportResult.FAILURE

    def shutdown(self) -> None:
        self._closed = True

    def force_flush(self, timeout_millis: Optional[int] = None) -> bool:
        return True

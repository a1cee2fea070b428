"""A span exporter that writes straight into ClickHouse's ``otel_traces`` (no Collector in between).

    exporter = ClickHouseSpanExporter("http://default:pw@clickhouse:8123", database="otel")
    provider.add_span_processor(BatchSpanProcessor(exporter, max_export_batch_size=8192))

It needs ``clickhouse-connect`` (installed by ``sumwatch[server]``); it is imported only when this
exporter is built, so the tracer itself stays OpenTelemetry-only. A URL is connected on the first
export, not when the exporter is built, so an app starts while its ClickHouse is down.

Writes are pipelined: ``export()`` converts and encodes a batch, then hands it to a writer thread
and returns while the previous INSERT may still run (ClickHouse works without the GIL, so encoding
and inserting overlap). At most ``in_flight`` batches wait; beyond that ``export()`` blocks, so memory
stays bounded (the SDK's BatchSpanProcessor in front of it then drops spans once its own queue is
full, and the app never waits). ``force_flush()`` and ``shutdown()`` wait until every handed-over
batch is stored. A failed INSERT, or a failed connection, is logged and counted in ``failed_spans``,
never raised. ``in_flight=0`` makes every export synchronous.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult

from .otel_traces import COLUMNS, INSERT_FORMAT, TRACES_TABLE, encode_rows, spans_to_rows

_log = logging.getLogger(__name__)

_Batch = tuple[bytes, int]  # an encoded INSERT body and how many spans it holds


def _without_password(url: str) -> str:
    """``http://user:pw@host:8123`` -> ``http://user@host:8123``: secrets never reach a log line."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.netloc.rpartition("@")[2]
    user = f"{parts.username}@" if parts.username else ""
    return urlunsplit((parts.scheme, user + host, parts.path, parts.query, parts.fragment))


class ClickHouseSpanExporter(SpanExporter):
    """Insert each exported batch into ``otel_traces`` as one INSERT.

    ``client`` is a clickhouse-connect client, or a URL to build one from (``http(s)://...`` for a
    server, ``chdb:///dir`` for the embedded engine). The table must exist: ``sumwatch db migrate``.
    ``exported_spans`` and ``failed_spans`` count what was stored and what was not.
    """

    def __init__(self, client: Any, *, database: str = "otel", table: str = TRACES_TABLE,
                 in_flight: int = 1) -> None:
        if in_flight < 0:
            raise ValueError(f"in_flight must be >= 0, got {in_flight}")
        if isinstance(client, str):
            import clickhouse_connect  # noqa: PLC0415, F401 - deferred, and checked here: only this exporter needs it

            self._url: str | None = client
            self._client: Any = None
        else:
            self._url, self._client = None, client
        self._target = f"`{database}`.`{table}`"
        self._columns = list(COLUMNS)
        self._in_flight = in_flight
        self._waiting: deque[_Batch] = deque()
        self._writing = False  # the writer thread holds a batch it took from _waiting
        self._cond = threading.Condition()
        self._insert_lock = threading.Lock()  # one INSERT at a time on the client (synchronous mode)
        self._thread: threading.Thread | None = None
        self._closed = False
        self._failing = False
        self.exported_spans = 0
        self.failed_spans = 0

    def _connected(self) -> Any:
        if self._client is None and self._url is not None:
            import clickhouse_connect  # noqa: PLC0415 - the SDK and exporters load in configure()

            self._client = clickhouse_connect.get_client(dsn=self._url)
        return self._client

    def _insert(self, body: bytes, count: int) -> bool:
        with self._insert_lock:
            try:
                self._connected().raw_insert(self._target, column_names=self._columns, insert_block=body,
                                             fmt=INSERT_FORMAT)
            except Exception as exc:  # never raise into the SDK's worker thread or the app
                self._failed(count, exc)
                return False
        with self._cond:
            self.exported_spans += count
            recovered, self._failing = self._failing, False
        if recovered:
            _log.info("sumwatch: ClickHouse inserts succeed again")
        return True

    def _failed(self, count: int, exc: BaseException) -> None:
        with self._cond:
            self.failed_spans += count
            first, self._failing = not self._failing, True
        # one error per outage, not one per batch: a down database must not flood the app's log
        where = f" ({_without_password(self._url)})" if self._url else ""
        _log.log(logging.ERROR if first else logging.DEBUG, "sumwatch: ClickHouse insert of %d spans failed%s: %s",
                 count, where, exc)

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        if self._closed:
            self._refused(len(spans))
            return SpanExportResult.FAILURE
        if not spans:
            return SpanExportResult.SUCCESS
        try:
            body = encode_rows(spans_to_rows(spans))
        except Exception as exc:
            _log.error("sumwatch: could not encode %d spans: %s", len(spans), exc)
            with self._cond:
                self.failed_spans += len(spans)
            return SpanExportResult.FAILURE
        if self._in_flight == 0:
            return SpanExportResult.SUCCESS if self._insert(body, len(spans)) else SpanExportResult.FAILURE
        with self._cond:
            if self._thread is None and not self._closed:
                self._thread = threading.Thread(target=self._run, name="sumwatch-ch-exporter", daemon=True)
                self._thread.start()
            # back-pressure: wait while the writer is `in_flight` batches behind
            while len(self._waiting) >= self._in_flight and not self._closed:
                self._cond.wait()
            if self._closed:
                self.failed_spans += len(spans)
                return SpanExportResult.FAILURE
            self._waiting.append((body, len(spans)))
            self._cond.notify_all()
        return SpanExportResult.SUCCESS

    def _refused(self, count: int) -> None:
        with self._cond:
            self.failed_spans += count
        _log.debug("sumwatch: exporter is shut down; %d spans not exported", count)

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._waiting and not self._closed:
                    self._cond.wait()
                if not self._waiting:  # closed, and everything handed over is done
                    return
                batch = self._waiting.popleft()
                self._writing = True
                self._cond.notify_all()
            try:
                self._insert(*batch)
            finally:
                with self._cond:
                    self._writing = False
                    self._cond.notify_all()

    def _wait_idle(self, deadline: float) -> bool:
        with self._cond:
            while self._waiting or self._writing:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(left)
        return True

    def force_flush(self, timeout_millis: int | None = 30_000) -> bool:
        """Wait until every batch handed to the writer is stored (or failed); False on timeout."""
        return self._wait_idle(time.monotonic() + (30_000 if timeout_millis is None else timeout_millis) / 1000)

    def shutdown(self, timeout_millis: float = 30_000) -> None:
        """Refuse further exports, store what was handed over, and stop the writer.

        Waits at most ``timeout_millis``; batches still waiting then are dropped (counted in
        ``failed_spans``), so a database that never answers cannot hang the app's exit.
        """
        with self._cond:
            if self._closed:
                return
            self._closed = True
            self._cond.notify_all()
        deadline = time.monotonic() + timeout_millis / 1000
        if not self._wait_idle(deadline):
            with self._cond:
                dropped = sum(count for _, count in self._waiting)
                self._waiting.clear()
                self.failed_spans += dropped
                self._cond.notify_all()
            if dropped:
                _log.error("sumwatch: ClickHouse did not take %d spans before shutdown; dropped", dropped)
        if self._thread is not None:
            self._thread.join(max(deadline - time.monotonic(), 0))
        if self._url is not None and self._client is not None and not self._writing:
            try:
                self._client.close()
            except Exception:
                _log.debug("sumwatch: could not close the ClickHouse client", exc_info=True)

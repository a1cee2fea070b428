"""Group-commit writer: spans from concurrent requests go into ClickHouse as one INSERT.

    writer = SpanWriter(store).start()
    writer.submit(rows).result()     # returns once the rows are stored; raises if the INSERT failed

A submitter's future resolves only after the INSERT holding its rows succeeded, so nothing is
acknowledged that was not stored. Submitters encode their own rows (in their thread), the writer only
joins the encoded blocks and inserts; the engine releases the GIL while it works, so decoding the
next requests overlaps the current INSERT. While one INSERT runs, new submissions queue and form the
next one.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from concurrent.futures import Future
from typing import Any

from sumwatch.tracer.otel_traces import COLUMNS, INSERT_FORMAT, TRACES_TABLE, encode_columns, join_columns

from ..store.connection import Store, StoreError

_log = logging.getLogger(__name__)
_STOP = object()


class WriterStopped(StoreError):
    """The writer is shutting down and takes no more rows."""


class SpanWriter:
    def __init__(self, store: Store, *, max_rows: int = 20_000, linger_ms: int = 0) -> None:
        self._store = store
        self._max_rows, self._linger = max_rows, linger_ms / 1000.0
        self._queue: queue.Queue[Any] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._stopping = False
        self.inserts = 0  # INSERT statements issued, for tests and stats
        self.rows_written = 0

    def start(self) -> SpanWriter:
        self._thread = threading.Thread(target=self._run, name="sumwatch-writer", daemon=True)
        self._thread.start()
        return self

    def submit(self, rows: list[tuple]) -> Future:
        """Queue rows (``otel_traces`` order); the future resolves when they are stored."""
        fut: Future = Future()
        if self._stopping:
            fut.set_exception(WriterStopped("the receiver is shutting down"))
        elif not rows:
            fut.set_result(0)
        else:
            self._queue.put((encode_columns(rows), len(rows), fut))
        return fut

    def stop(self, timeout: float = 30.0) -> None:
        """Write what is queued, then stop."""
        self._stopping = True
        self._queue.put(_STOP)
        if self._thread is not None:
            self._thread.join(timeout)

    def _take_batch(self, first: Any) -> tuple[list[list[bytes]], int, list[Future], bool]:
        parts, count, futures = [first[0]], first[1], [first[2]]
        stop = False
        deadline = time.monotonic() + self._linger
        while count < self._max_rows:
            try:
                wait = deadline - time.monotonic()
                item = self._queue.get(timeout=wait) if wait > 0 else self._queue.get_nowait()
            except queue.Empty:
                break
            if item is _STOP:
                stop = True
                break
            parts.append(item[0])
            count += item[1]
            futures.append(item[2])
        return parts, count, futures, stop

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if item is _STOP:
                return
            parts, count, futures, stop = self._take_batch(item)
            try:
                self._store.insert_encoded(TRACES_TABLE, COLUMNS, join_columns(parts), INSERT_FORMAT)
            except Exception as exc:
                _log.error("insert of %d spans failed: %s", count, exc)
                for fut in futures:
                    fut.set_exception(exc)
            else:
                self.inserts += 1
                self.rows_written += count
                for fut in futures:
                    fut.set_result(count)
            if stop:
                return

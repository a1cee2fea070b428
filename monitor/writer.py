"""Group-commit writer: rows from concurrent requests go into ClickHouse as one INSERT.

    writer = BatchWriter(store, "otel_traces", COLUMNS).start()
    writer.submit(rows).result()     # returns once the rows are stored; raises if the INSERT failed

A submitter's future resolves only after the INSERT holding its rows succeeded, so nothing is
acknowledged that was not stored. While one INSERT runs, new submissions queue and form the next.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Sequence
from concurrent.futures import Future
from typing import Any, Optional

from .store.connection import Store, StoreError

_log = logging.getLogger(__name__)
_STOP = object()


class WriterStopped(StoreError):
    """The writer is shutting down and takes no more rows."""


class BatchWriter:
    def __init__(self, store: Store, table: str, columns: Sequence[str], *, max_rows: int = 20_000,
                 linger_ms: int = 0) -> None:
        self._store, self._table, self._columns = store, table, tuple(columns)
        self._max_rows, self._linger = max_rows, linger_ms / 1000.0
        self._queue: queue.Queue[Any] = queue.Queue()
        self._thread: Optional[threading.Thread] = None
        self._stopping = False
        self.inserts = 0  # INSERT statements issued, for tests and stats
        self.rows_written = 0

    def start(self) -> "BatchWriter":
        self._thread = threading.Thread(target=self._run, name="sumwatch-writer", daemon=True)
        self._thread.start()
        return self

    def submit(self, rows: list[tuple]) -> Future:
        fut: Future = Future()
        if self._stopping:
            fut.set_exception(WriterStopped("the receiver is shutting down"))
        elif not rows:
            fut.set_result(0)
        else:
            self._queue.put((rows, fut))
        return fut

    def stop(self, timeout: float = 30.0) -> None:
        """Write what is queued, then stop."""
        self._stopping = True
        self._queue.put(_STOP)
        if self._thread is not None:
            self._thread.join(timeout)

    def _take_batch(self, first: Any) -> tuple[list[tuple], list[Future], bool]:
        rows, futures = list(first[0]), [first[1]]
        stop = False
        deadline = time.monotonic() + self._linger
        while len(rows) < self._max_rows:
            try:
                wait = deadline - time.monotonic()
                item = self._queue.get(timeout=wait) if wait > 0 else self._queue.get_nowait()
            except queue.Empty:
                break
            if item is _STOP:
                stop = True
                break
            rows.extend(item[0])
            futures.append(item[1])
        return rows, futures, stop

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if item is _STOP:
                return
            rows, futures, stop = self._take_batch(item)
            try:
                self._store.insert(self._table, rows, self._columns)
            except Exception as exc:
                _log.error("insert of %d rows into %s failed: %s", len(rows), self._table, exc)
                for fut in futures:
                    fut.set_exception(exc)
            else:
                self.inserts += 1
                self.rows_written += len(rows)
                for fut in futures:
                    fut.set_result(len(rows))
            if stop:
                return

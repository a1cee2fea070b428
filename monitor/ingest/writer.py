"""Group-commit writer: rows from concurrent requests go into ClickHouse as one INSERT.

    writer = GroupWriter(store).start()                 # spans into otel_traces
    writer.submit(rows).result()     # returns once the rows are stored; raises if the INSERT failed
    logs = GroupWriter(store, GENAI_EVENTS).start()     # GenAI log records into sumwatch_genai_events

A submitter's future resolves only after the INSERT holding its rows succeeded, so nothing is
acknowledged that was not stored. Submitters encode their own rows (in their thread), the writer only
joins the encoded blocks and inserts; the engine releases the GIL while it works, so decoding the
next requests overlaps the current INSERT. While one INSERT runs, new submissions queue and form the
next one. The receiver validates spans before submitting them; should the database still refuse a
batch, each request's rows are retried alone, so one request's rows never fail another's.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any

from sumwatch.tracer.otel_traces import COLUMNS, INSERT_FORMAT, TRACES_TABLE, encode_columns, join_columns

from ..store.connection import Store, StoreError, StoreUnavailableError
from ..store.genai_events import GENAI_EVENT_COLUMNS, GENAI_EVENTS_TABLE, encode_genai_events

_log = logging.getLogger(__name__)
_STOP = object()


class WriterStopped(StoreError):
    """The writer is shutting down and takes no more rows."""


class RowEncodeError(ValueError):
    """Rows that cannot be encoded for an INSERT (a value the validation let through)."""


@dataclass(frozen=True)
class InsertTable:
    """Where a writer's rows go: the table, its columns, and how a request's rows become one JSON array per
    column (``JSONCompactColumns``), so blocks from several requests join into one INSERT body."""

    table: str
    columns: tuple[str, ...]
    encode: Callable[[Sequence[Any]], list[bytes]]
    noun: str


SPANS = InsertTable(TRACES_TABLE, COLUMNS, encode_columns, "spans")
GENAI_EVENTS = InsertTable(GENAI_EVENTS_TABLE, GENAI_EVENT_COLUMNS, encode_genai_events, "GenAI log records")


class GroupWriter:
    def __init__(self, store: Store, into: InsertTable = SPANS, *, max_rows: int = 20_000,
                 linger_ms: int = 0) -> None:
        self._store, self._into = store, into
        self._max_rows, self._linger = max_rows, linger_ms / 1000.0
        self._queue: queue.Queue[Any] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._stopping = False
        self.noun = into.noun
        self.inserts = 0  # INSERT statements issued, for tests and stats
        self.rows_written = 0

    def start(self) -> GroupWriter:
        self._thread = threading.Thread(target=self._run, name=f"sumwatch-writer-{self._into.table}", daemon=True)
        self._thread.start()
        return self

    def submit(self, rows: Sequence[Any]) -> Future[int]:
        """Queue rows (as the table's ``encode`` takes them); the future resolves when they are stored.
        Raises :class:`RowEncodeError` at once for rows that cannot be encoded."""
        fut: Future[int] = Future()
        if self._stopping:
            fut.set_exception(WriterStopped("the receiver is shutting down"))
        elif not rows:
            fut.set_result(0)
        else:
            try:
                encoded = self._into.encode(rows)
            except Exception as exc:  # orjson's and the formatter's errors: the rows, not the database
                raise RowEncodeError(f"{self._into.noun} could not be encoded: {exc}") from exc
            self._queue.put((encoded, len(rows), fut))
        return fut

    def stop(self, timeout: float = 30.0) -> None:
        """Write what is queued, then stop."""
        self._stopping = True
        self._queue.put(_STOP)
        if self._thread is not None:
            self._thread.join(timeout)

    def _take_batch(self, first: Any) -> tuple[list[Any], bool]:
        batch, count = [first], first[1]
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
            batch.append(item)
            count += item[1]
        return batch, stop

    def _insert(self, batch: list[Any]) -> None:
        """One INSERT for the batch; if the database refuses it (and is not down), each submitter's rows
        again on their own, so rows the engine cannot take fail only the request that sent them."""
        try:
            into = self._into
            self._store.insert_encoded(into.table, into.columns, join_columns([b[0] for b in batch]), INSERT_FORMAT)
        except Exception as exc:
            if len(batch) > 1 and not isinstance(exc, StoreUnavailableError):
                _log.warning("insert of %d requests refused, inserting them one by one: %s", len(batch), exc)
                for item in batch:
                    self._insert([item])
                return
            _log.error("insert of %d %s failed: %s", sum(b[1] for b in batch), self._into.noun, exc)
            for item in batch:
                item[2].set_exception(exc)
        else:
            count = sum(b[1] for b in batch)
            self.inserts += 1
            self.rows_written += count
            for item in batch:
                item[2].set_result(count)

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if item is _STOP:
                return
            batch, stop = self._take_batch(item)
            self._insert(batch)
            if stop:
                return

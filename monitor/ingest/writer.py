"""Group-commit writer: rows from concurrent requests go into ClickHouse as one INSERT.

    writer = GroupWriter(store).start()                 # spans into otel_traces
    writer.submit(rows).result()     # returns once the rows are stored; raises if the INSERT failed
    logs = GroupWriter(store, GENAI_EVENTS).start()     # GenAI log records into sumwatch_genai_events

A submitter's future resolves only after the INSERT holding its rows succeeded, so nothing is
acknowledged that was not stored. Submitters encode their own rows (in their thread), the writer only
joins the encoded blocks and inserts; the engine releases the GIL while it works, so decoding the
next requests overlaps the current INSERT. While one INSERT runs, new submissions queue and form the
next one. A batch also waits (up to ``linger_ms``) for requests announced with :meth:`GroupWriter.incoming`,
those the receiver is still reading or decoding, and for nothing else: an exporter sends its next batch only
once acknowledged, so a wave of requests arrives together, and one INSERT for the wave costs far less than one
per request (the engine's fixed cost per INSERT is about that of a thousand 2 KB spans).

The receiver validates spans before submitting them; should the database still refuse a batch, each request's
rows are retried alone, so one request's rows never fail another's.

With a write-ahead log (``GroupWriter(store, SPANS, log=WriteAheadLog(path))``; the receiver's with
``SUMWATCH_RECEIVER_LOG=on``), a submission is acknowledged once its encoded rows are appended to the log, and
the writer drains the log into INSERTs as large as ``max_rows``, which cost the engine far less per row than one
INSERT per few requests. Each
INSERT is followed by the log's committed offset; at start the records after it are inserted again, except those
whose spans are all in the table already (an INSERT that landed just before a crash), so a replay never stores a
record twice. While the database fails, logged rows are retried and new submissions are refused (503), and
beyond ``max_backlog_rows`` not yet stored, acknowledgements wait for the INSERTs (memory stays bounded).
"""

from __future__ import annotations

import logging
import queue
import struct
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any

import orjson

from sumwatch.tracer.otel_traces import COLUMNS, INSERT_FORMAT, TRACES_TABLE, encode_columns, join_columns

from ..store.connection import Store, StoreError, StoreUnavailableError
from ..store.genai_events import GENAI_EVENT_COLUMNS, GENAI_EVENTS_TABLE, encode_genai_events
from .write_ahead_log import LogRecord, WriteAheadLog

_log = logging.getLogger(__name__)
_STOP = object()
# ClickHouse's names for a table or database that is not there: logged rows wait for it (a restore, a migration)
# instead of being dropped as rows the database refuses
_TABLE_MISSING = ("UNKNOWN_TABLE", "UNKNOWN_DATABASE")
_RECHECK_S = 0.005  # how often a waiting batch looks whether the requests it waits for are still on their way


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
    # the two columns naming a row, so a log replay can tell which records an INSERT already stored
    keys: tuple[str, str] | None = None


SPANS = InsertTable(TRACES_TABLE, COLUMNS, encode_columns, "spans", ("TraceId", "SpanId"))
GENAI_EVENTS = InsertTable(GENAI_EVENTS_TABLE, GENAI_EVENT_COLUMNS, encode_genai_events, "GenAI log records")


def pack_record(encoded: Sequence[bytes], rows: int) -> bytes:
    """A log record: the row count, each column block's length, then the blocks."""
    return struct.pack(f"<I{len(encoded)}I", rows, *map(len, encoded)) + b"".join(encoded)


def unpack_record(payload: bytes, columns: int) -> tuple[list[bytes], int]:
    """:func:`pack_record` undone: (column blocks, row count)."""
    rows, *lengths = struct.unpack_from(f"<I{columns}I", payload)
    blocks, at = [], 4 * (columns + 1)
    for length in lengths:
        blocks.append(payload[at:at + length])
        at += length
    return blocks, rows


class GroupWriter:
    def __init__(self, store: Store, into: InsertTable = SPANS, *, max_rows: int = 20_000,
                 linger_ms: int = 0, log: WriteAheadLog | None = None, max_backlog_rows: int = 65_536) -> None:
        self._store, self._into = store, into
        self._max_rows, self._linger = max_rows, linger_ms / 1000.0
        self._queue: queue.Queue[Any] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._stopping = False
        self._log = log
        self._appending = threading.Lock()  # one order for the log's records and the queue's items
        self._draining = threading.Event()
        self._draining.set()
        self._appended = self._settled = 0  # rows appended to the log, and of those stored or refused for good
        self._settled_changed = threading.Condition(self._appending)
        self._max_backlog = max_backlog_rows
        self._waiting: deque[tuple[int, Future[int]]] = deque()  # acknowledgements held back by the backlog
        self._failing: Exception | None = None  # the database's last error while logged rows wait for it
        self._arriving = 0  # requests being read or decoded that will submit here (see incoming)
        self._arriving_lock = threading.Lock()
        self.noun = into.noun
        self.inserts = 0  # INSERT statements issued, for tests and stats
        self.rows_written = 0

    def start(self) -> GroupWriter:
        """Start the writer thread; with a log, first store what it holds from before (a crash, a held drain)."""
        if self._log is not None:
            self._replay(self._log, self._log.open())
            for orphan, records in self._log.orphans():
                try:
                    self._replay(orphan, records)
                finally:
                    orphan.close()
        self._thread = threading.Thread(target=self._run, name=f"sumwatch-writer-{self._into.table}", daemon=True)
        self._thread.start()
        return self

    def hold(self) -> None:
        """Keep logged rows in the log (acknowledged, not inserted) until :meth:`release`: maintenance of the
        database, and the crash tests' known point."""
        self._draining.clear()

    def release(self) -> None:
        self._draining.set()

    def incoming(self) -> Incoming:
        """Announce a request whose rows will come (``with writer.incoming() as ticket: ... ticket.done()``, done
        right after :meth:`submit` or when the request fails): a batch waits for announced requests, up to
        ``linger_ms``, and for nothing else."""
        return Incoming(self)

    def _count_arriving(self, change: int) -> None:
        with self._arriving_lock:
            self._arriving += change

    @property
    def backlog(self) -> int:
        """Rows acknowledged (from the write-ahead log) and not yet stored; always 0 without a log."""
        return self._appended - self._settled

    @property
    def failing(self) -> bool:
        """Whether the last INSERT of logged rows failed for want of the database (new submissions get refused)."""
        return self._failing is not None

    def wait_stored(self, timeout: float) -> bool:
        """Wait until every row acknowledged before this call is stored (or refused for good by the database):
        readers in the same process then see what their clients were told was received. True when so, False
        after ``timeout`` seconds (the database failing). Returns at once without a log or a backlog."""
        if self._log is None:
            return True
        with self._settled_changed:
            target = self._appended
            return self._settled_changed.wait_for(lambda: self._settled >= target, timeout)

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
            if self._log is None:
                self._queue.put((encoded, len(rows), fut, 0))
            elif self._failing is not None:
                fut.set_exception(self._failing)
            else:
                self._append(encoded, len(rows), fut)
        return fut

    def _append(self, encoded: list[bytes], count: int, fut: Future[int]) -> None:
        assert self._log is not None
        payload = pack_record(encoded, count)
        with self._appending:
            end = self._log.append(payload)
            self._queue.put((encoded, count, None, end))
            self._appended += count
            if self.backlog <= self._max_backlog and not self._waiting:
                fut.set_result(count)
            else:
                self._waiting.append((count, fut))

    def stop(self, timeout: float = 30.0) -> None:
        """Write what is queued, then stop (with a held drain, what is logged stays for the next start)."""
        self._stopping = True
        self._queue.put(_STOP)
        self._draining.set()
        if self._thread is not None:
            self._thread.join(timeout)
        if self._log is not None:
            self._log.close()

    def _replay(self, log: WriteAheadLog, records: list[LogRecord]) -> None:
        """Insert ``log``'s uncommitted records, less those an INSERT stored before the offset was written."""
        if not records:
            return
        columns = len(self._into.columns)
        items = [(*unpack_record(r.payload, columns), None, r.end) for r in records]
        stored = self._stored_keys(items)
        todo = [item for item in items if not self._keys(item[0]) <= stored]
        _log.warning("receiver log %s: %d records not committed before the last stop, %d of them already stored",
                     log.path, len(items), len(items) - len(todo))
        batch: list[Any] = []
        for item in todo:
            batch.append(item)
            if sum(b[1] for b in batch) >= self._max_rows:
                self._insert_logged(batch)
                batch = []
        if batch:
            self._insert_logged(batch)
        with self._appending:
            log.commit(records[-1].end)

    def _keys(self, encoded: list[bytes]) -> set[tuple[Any, Any]]:
        if self._into.keys is None:
            return set()
        first, second = (orjson.loads(encoded[self._into.columns.index(k)]) for k in self._into.keys)
        return set(zip(first, second, strict=True))

    def _stored_keys(self, items: list[Any]) -> set[tuple[Any, Any]]:
        if self._into.keys is None:
            return set()
        first_key, second_key = self._into.keys
        wanted = sorted({k[0] for item in items for k in self._keys(item[0])})
        rows = self._store.query_rows(f"SELECT DISTINCT {first_key}, {second_key} FROM {self._into.table} "
                                      f"WHERE {first_key} IN {{ids:Array(String)}}", {"ids": wanted})
        return {(a, b) for a, b in rows}

    def _take_batch(self, first: Any) -> tuple[list[Any], bool]:
        """``first`` and what is queued behind it, up to ``max_rows``; while requests announced by
        :meth:`incoming` are still on their way, up to ``linger_ms`` more for them. Exporters wait for their
        acknowledgement before sending the next batch, so the requests of one wave arrive together: waiting for
        the rest of the wave makes one large INSERT (each has a large fixed cost) instead of several, and waiting
        when nothing is on its way would only add latency."""
        batch, count = [first], first[1]
        stop = False
        deadline = time.monotonic() + self._linger
        while count < self._max_rows:
            try:
                wait = deadline - time.monotonic() if self._arriving > 0 else 0.0
                item = self._queue.get(timeout=min(wait, _RECHECK_S)) if wait > 0 else self._queue.get_nowait()
            except queue.Empty:
                if self._arriving > 0 and time.monotonic() < deadline:
                    continue  # an announced request failed or is slow: look again until the deadline
                break
            if item is _STOP:
                stop = True
                break
            batch.append(item)
            count += item[1]
        return batch, stop

    def _insert_logged(self, batch: list[Any]) -> None:
        """One INSERT for logged records, retried while the database is unavailable (the rows are acknowledged);
        records the database refuses are dropped with an error in the log, after trying each alone."""
        delay = 0.1
        while True:
            try:
                try:
                    self._insert_encoded(batch)
                except StoreUnavailableError:
                    raise
                except Exception as exc:  # clickhouse-connect's DatabaseError: the engine answered
                    if any(code in str(exc) for code in _TABLE_MISSING):  # the schema, not the rows: wait for it
                        raise StoreUnavailableError(str(exc)) from exc
                    raise
            except StoreUnavailableError as exc:
                self._failing = exc
                if self._stopping:
                    raise
                _log.error("insert of %d logged %s failed, retrying: %s", sum(b[1] for b in batch), self.noun, exc)
                time.sleep(delay)
                delay = min(delay * 2, 5.0)
                continue
            except Exception as exc:
                if len(batch) > 1:
                    _log.warning("insert of %d logged requests refused, inserting them one by one: %s", len(batch), exc)
                    for item in batch:
                        self._insert_logged([item])
                    return
                _log.error("dropping %d acknowledged %s the database refused: %s", batch[0][1], self.noun, exc)
                return
            self._failing = None
            return

    def _insert_encoded(self, batch: list[Any]) -> None:
        into = self._into
        self._store.insert_encoded(into.table, into.columns, join_columns([b[0] for b in batch]), INSERT_FORMAT)
        self.inserts += 1
        self.rows_written += sum(b[1] for b in batch)

    def _commit(self, batch: list[Any]) -> None:
        """The log's offset past ``batch``, and the acknowledgements the backlog held back."""
        assert self._log is not None
        with self._appending:
            self._log.commit(batch[-1][3])
            self._settled += sum(b[1] for b in batch)
            self._settled_changed.notify_all()
            while self._waiting and self.backlog <= self._max_backlog:
                count, fut = self._waiting.popleft()
                fut.set_result(count)

    def _insert(self, batch: list[Any]) -> None:
        """One INSERT for the batch; if the database refuses it (and is not down), each submitter's rows
        again on their own, so rows the engine cannot take fail only the request that sent them."""
        try:
            self._insert_encoded(batch)
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
            for item in batch:
                item[2].set_result(count)

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if item is _STOP:
                return
            self._draining.wait()
            batch, stop = self._take_batch(item)
            if self._log is None:
                self._insert(batch)
            else:
                try:
                    self._insert_logged(batch)
                except StoreUnavailableError:
                    return  # stopping with the database down: the log keeps the rows for the next start
                self._commit(batch)
            if stop:
                return


class Incoming:
    """A request announced to a :class:`GroupWriter` (see :meth:`GroupWriter.incoming`)."""

    def __init__(self, writer: GroupWriter) -> None:
        self._writer: GroupWriter | None = writer

    def __enter__(self) -> Incoming:
        assert self._writer is not None
        self._writer._count_arriving(1)  # noqa: SLF001 - the writer's helper
        return self

    def done(self) -> None:
        """The request submitted its rows or will not: idempotent."""
        if self._writer is not None:
            self._writer._count_arriving(-1)  # noqa: SLF001
            self._writer = None

    def __exit__(self, *exc: object) -> None:
        self.done()

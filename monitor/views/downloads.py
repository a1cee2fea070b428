"""Every row out through the API: a bulk export written on the server, streamed to the client as it goes.

    return download(lambda stream: export_spans(store, stream, fmt), fmt, "spans")   # in a route

The export runs in a thread and writes into a bounded queue that the response reads, so the server holds a
page or two, never the table, however many rows the client takes.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterator
from typing import IO, Any

from starlette.responses import StreamingResponse

from ..store.bulk_export import ExportFormat

_MEDIA = {ExportFormat.JSONL: "application/x-ndjson", ExportFormat.PARQUET: "application/vnd.apache.parquet"}
_DONE = object()
# what the OpenAPI document says such a route answers
DOWNLOAD_RESPONSES: dict[int | str, dict[str, Any]] = {200: {
    "description": "Every matching row: JSON lines, or one Parquet file (a row group per page)",
    "content": {media: {"schema": {"type": "string", "format": "binary"}} for media in _MEDIA.values()}}}


class _QueueWriter:
    """A binary stream whose writes go into a queue (waiting while it is full); once the reader has gone,
    a write raises, which ends the export instead of leaving its thread blocked for ever."""

    def __init__(self, chunks: queue.Queue[Any], gone: threading.Event) -> None:
        self._chunks, self._gone = chunks, gone

    def write(self, data: bytes) -> int:
        while data and not self._gone.is_set():
            try:
                self._chunks.put(bytes(data), timeout=0.5)
                return len(data)
            except queue.Full:
                continue
        if self._gone.is_set():
            raise BrokenPipeError("the client stopped reading the download")
        return 0

    def flush(self) -> None:
        pass

    def tell(self) -> int:  # pyarrow asks a sink where it is; a stream that only appends need not know
        raise OSError("not seekable")

    @property
    def closed(self) -> bool:
        return self._gone.is_set()


def stream(write: Callable[[IO[bytes]], int], name: str) -> Iterator[bytes]:
    """The bytes ``write(stream)`` writes, as it writes them, from a thread of its own. An error after the first
    bytes has no status left to change: the stream ends early, and the client sees a file that is cut short
    (Parquet without its footer does not open), never a whole-looking one. Closing the iterator early (the
    client went away) stops the export."""
    chunks: queue.Queue[Any] = queue.Queue(maxsize=8)
    gone = threading.Event()

    def run() -> None:
        try:
            write(_QueueWriter(chunks, gone))  # type: ignore[arg-type]
        except BaseException as exc:  # ends the response; the error is the client's to see as a short file
            item: Any = exc
        else:
            item = _DONE
        while not gone.is_set():
            try:
                chunks.put(item, timeout=0.5)
                return
            except queue.Full:
                continue

    worker = threading.Thread(target=run, name=f"sumwatch-download-{name}", daemon=True)
    worker.start()
    try:
        while True:
            item = chunks.get()
            if item is _DONE:
                return
            if isinstance(item, BaseException):
                raise item
            yield item
    finally:
        gone.set()


def download(write: Callable[[IO[bytes]], int], fmt: ExportFormat, name: str) -> StreamingResponse:
    """A response streaming what ``write(stream)`` writes (see :func:`stream`)."""
    suffix = "parquet" if fmt is ExportFormat.PARQUET else "jsonl"
    return StreamingResponse(stream(write, name), media_type=_MEDIA[fmt],
                             headers={"Content-Disposition": f'attachment; filename="{name}.{suffix}"'})

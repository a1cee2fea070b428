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
    """A binary stream whose writes go into a queue (and wait while it is full)."""

    def __init__(self, chunks: queue.Queue[Any]) -> None:
        self._chunks = chunks

    def write(self, data: bytes) -> int:
        if data:
            self._chunks.put(bytes(data))
        return len(data)

    def flush(self) -> None:
        pass

    def tell(self) -> int:  # pyarrow asks a sink where it is; a stream that only appends need not know
        raise OSError("not seekable")

    @property
    def closed(self) -> bool:
        return False


def download(write: Callable[[IO[bytes]], int], fmt: ExportFormat, name: str) -> StreamingResponse:
    """A response streaming what ``write(stream)`` writes. An error after the first bytes has no status left
    to change: the stream ends early, and the client sees a file that is cut short (Parquet without its
    footer does not open), never a whole-looking one."""
    chunks: queue.Queue[Any] = queue.Queue(maxsize=8)

    def run() -> None:
        try:
            write(_QueueWriter(chunks))  # type: ignore[arg-type]
        except BaseException as exc:  # ends the response; the error is the client's to see as a short file
            chunks.put(exc)
        else:
            chunks.put(_DONE)

    def body() -> Iterator[bytes]:
        threading.Thread(target=run, name=f"sumwatch-download-{name}", daemon=True).start()
        while True:
            item = chunks.get()
            if item is _DONE:
                return
            if isinstance(item, BaseException):
                raise item
            yield item

    suffix = "parquet" if fmt is ExportFormat.PARQUET else "jsonl"
    return StreamingResponse(body(), media_type=_MEDIA[fmt],
                             headers={"Content-Disposition": f'attachment; filename="{name}.{suffix}"'})

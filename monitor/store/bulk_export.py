"""Every summarization span and every score out of the store, page by page, as JSON lines or Parquet.

    written = export_spans(store, "spans.parquet", ExportFormat.PARQUET, service="digest", on_progress=print)
    export_scores(store, sys.stdout.buffer, ExportFormat.JSONL, rubric="factuality")

The listings bound what one answer holds; these walk them with their cursors (the same filters, the same
order, each span and each score key once) and write each page as it comes: memory holds one page, never
the table. Parquet gets one row group per page.

What is written:

- spans: the whole stored span, one per (trace id, span id), newest first: every column of ``otel_traces``
  (in :class:`StoredSpan`'s names: ``name`` is SpanName, ``service`` ServiceName, ``status`` StatusCode,
  ``attributes`` SpanAttributes, ...). Parquet types: ``timestamp`` timestamp[ns, UTC], ``duration_ns``
  int64, ``attributes`` and ``resource_attributes`` map<string, string>, ``events`` and ``links`` lists of
  structs (an event's ``timestamp`` timestamp[ns, UTC], its ``attributes`` a map). JSON lines: the same
  names, timestamps as ISO 8601 UTC with nanoseconds (``2026-05-28T20:26:40.123456789Z``), maps as objects.
- scores: the score record of the listings (:class:`ScoreRecord`), in key order (trace, span, rubric, judge
  version; see :func:`scores_by_key`: newest first, each page would merge the whole table). Parquet types: ``score``,
  ``cost_usd``, ``latency_ms`` float64, ``passed`` bool, ``scored_at`` timestamp[us, UTC], the rest strings.
  JSON lines: the listing's JSON of each record.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from enum import Enum
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import orjson

from ..contract.scores import ScoreRecord
from ..contract.values import choice_error
from ..settings import MAX_LIST_LIMIT
from .connection import Store
from .listing import list_stored_spans, next_traces_cursor
from .scores import next_scores_key_cursor, scores_by_key
from .traces import StoredSpan

if TYPE_CHECKING:
    import pyarrow as pa

# Spans a page, by default sized to hold about SPAN_PAGE_BYTES of attribute text (a span carries its
# source): the first page takes FIRST_SPAN_PAGE, each later one as many as the last page's spans averaged.
# Small pages cost more than their rows: the table is sorted by service first, so each page reads at least
# a granule (up to 8,192 rows or 10 MB) of every service; over 100k spans with 1 KB sources, pages of 10,000
# took half the time of pages of 2,000.
SPAN_PAGE_BYTES = 16 * 2**20
FIRST_SPAN_PAGE = 1000
SCORE_PAGE = MAX_LIST_LIMIT  # a score row is small (about 0.5 KB): a page is a few MB


class ExportFormat(str, Enum):
    JSONL = "jsonl"
    PARQUET = "parquet"


Progress = Callable[[int], None]  # rows written so far, after each page
Sink = str | os.PathLike[str] | IO[bytes]


# the columns of a span export, in order, as both formats name them
SPAN_FIELDS = ("timestamp", "trace_id", "span_id", "parent_span_id", "trace_state", "name", "kind", "service",
               "resource_attributes", "scope_name", "scope_version", "attributes", "duration_ns", "status",
               "status_message", "events", "links")


def span_json(span: StoredSpan) -> dict[str, Any]:
    """A span as its JSON line holds it."""
    # by hand, not asdict: its deep copy of every map was half an export's time
    return {"timestamp": iso_ns(span.timestamp_ns), "trace_id": span.trace_id, "span_id": span.span_id,
            "parent_span_id": span.parent_span_id, "trace_state": span.trace_state, "name": span.name,
            "kind": span.kind, "service": span.service, "resource_attributes": span.resource_attributes,
            "scope_name": span.scope_name, "scope_version": span.scope_version, "attributes": span.attributes,
            "duration_ns": span.duration_ns, "status": span.status, "status_message": span.status_message,
            "events": [{"timestamp": iso_ns(e.timestamp_ns), "name": e.name, "attributes": e.attributes}
                       for e in span.events],
            "links": [{"trace_id": k.trace_id, "span_id": k.span_id, "trace_state": k.trace_state,
                       "attributes": k.attributes} for k in span.links]}


def iso_ns(ns: int) -> str:
    """Nanoseconds since the epoch as ISO 8601 UTC with all nine digits: ``2026-05-28T20:26:40.123456789Z``."""
    seconds, frac = divmod(ns, 1_000_000_000)
    return f"{datetime.fromtimestamp(seconds, timezone.utc):%Y-%m-%dT%H:%M:%S}.{frac:09d}Z"


def span_pages(store: Store, *, page_size: int | None = None, service: str | None = None,
               domain: str | None = None, band: str | None = None, since: datetime | None = None
               ) -> Iterator[list[StoredSpan]]:
    """The spans :func:`list_traces` lists with these filters, whole, a page at a time, newest first;
    ``page_size`` spans a page, or pages of about SPAN_PAGE_BYTES when None."""
    if page_size is not None:
        _check_page_size(page_size)
    limit, cursor = page_size or FIRST_SPAN_PAGE, None
    while True:
        page = list_stored_spans(store, limit=limit, service=service, domain=domain, band=band, since=since,
                                 cursor=cursor)
        if page:
            yield page
        cursor = next_traces_cursor(page, limit)
        if cursor is None:
            return
        if page_size is None:
            limit = _spans_for_bytes(page)


def _spans_for_bytes(page: Sequence[StoredSpan]) -> int:
    """How many spans like these hold about SPAN_PAGE_BYTES of attribute text, within the listing's bounds."""
    text = sum(len(v) for s in page for v in s.attributes.values()) + 256 * len(page)  # 256: ids, names, ...
    return max(100, min(MAX_LIST_LIMIT, SPAN_PAGE_BYTES * len(page) // text))


def score_pages(store: Store, *, page_size: int = SCORE_PAGE, trace_id: str | None = None, rubric: str | None = None,
                judge_version: str | None = None, failing_only: bool = False) -> Iterator[list[ScoreRecord]]:
    """The scores :func:`list_scores` lists with these filters, a page at a time, in key order."""
    _check_page_size(page_size)
    cursor = None
    while True:
        page = scores_by_key(store, trace_id=trace_id, rubric=rubric, judge_version=judge_version,
                             failing_only=failing_only, limit=page_size, cursor=cursor)
        if page:
            yield page
        cursor = next_scores_key_cursor(page, page_size)
        if cursor is None:
            return


def _check_page_size(page_size: int) -> None:
    if not 1 <= page_size <= MAX_LIST_LIMIT:
        raise ValueError(f"page size must be 1 to {MAX_LIST_LIMIT:,}, got {page_size}")


def export_spans(store: Store, sink: Sink, fmt: ExportFormat | str, *, page_size: int | None = None,
                 on_progress: Progress | None = None, service: str | None = None, domain: str | None = None,
                 band: str | None = None, since: datetime | None = None) -> int:
    """Write every span the trace listing gives with these filters to ``sink`` (a path, or a binary stream
    left open); the number written.

        export_spans(store, "spans.parquet", "parquet", since=datetime(2026, 5, 1, tzinfo=timezone.utc))
    """
    fmt = _format(fmt)
    pages = span_pages(store, page_size=page_size, service=service, domain=domain, band=band, since=since)
    return _write(sink, fmt, pages, _Encoding(span_json, _span_table), on_progress)


def export_scores(store: Store, sink: Sink, fmt: ExportFormat | str, *, page_size: int = SCORE_PAGE,
                  on_progress: Progress | None = None, trace_id: str | None = None, rubric: str | None = None,
                  judge_version: str | None = None, failing_only: bool = False) -> int:
    """Write every score the score listing gives with these filters to ``sink`` (a path, or a binary stream
    left open); the number written.

        export_scores(store, sys.stdout.buffer, "jsonl", failing_only=True)
    """
    fmt = _format(fmt)
    pages = score_pages(store, page_size=page_size, trace_id=trace_id, rubric=rubric, judge_version=judge_version,
                        failing_only=failing_only)
    return _write(sink, fmt, pages, _Encoding(ScoreRecord.to_json, _score_table), on_progress)


def _format(fmt: ExportFormat | str) -> ExportFormat:
    try:
        return ExportFormat(fmt)
    except ValueError:
        raise ValueError(choice_error("format", fmt, (f.value for f in ExportFormat))) from None


@dataclass(frozen=True)
class _Encoding:
    """How one kind of row is written: a JSON line's object, a page's Arrow table."""

    json: Callable[[Any], dict[str, Any]]
    table: Callable[[Sequence[Any]], pa.Table]


def _write(sink: Sink, fmt: ExportFormat, pages: Iterator[Sequence[Any]], encoding: _Encoding,
           on_progress: Progress | None) -> int:
    """Pages to the sink, one at a time. A path is written beside itself and moved into place at the end,
    so a failed export leaves no half file under the name asked for."""
    if isinstance(sink, (str, os.PathLike)):
        path = Path(sink)
        part = path.with_name(path.name + ".part")
        try:
            part.touch()
        except OSError as exc:
            raise ValueError(f"cannot write the export to {path}: {exc.strerror}") from None
        try:
            with part.open("wb") as stream:
                written = _write_stream(stream, fmt, pages, encoding, on_progress)
            part.replace(path)
        finally:
            part.unlink(missing_ok=True)
        return written
    return _write_stream(sink, fmt, pages, encoding, on_progress)


def _write_stream(stream: IO[bytes], fmt: ExportFormat, pages: Iterator[Sequence[Any]], encoding: _Encoding,
                  on_progress: Progress | None) -> int:
    written = 0
    if fmt is ExportFormat.JSONL:
        for page in pages:
            stream.write(b"".join(orjson.dumps(encoding.json(row)) + b"\n" for row in page))
            written += len(page)
            if on_progress:
                on_progress(written)
        stream.flush()
        return written
    # pyarrow only here: importing it costs about half a second, which no other command should pay
    import pyarrow.parquet as pq  # noqa: PLC0415 - heavy: loaded on first use

    writer = None
    try:
        for page in pages:
            table = encoding.table(page)
            if writer is None:
                writer = pq.ParquetWriter(stream, table.schema, compression="zstd")
            writer.write_table(table)  # one row group per page
            written += len(page)
            if on_progress:
                on_progress(written)
        if writer is None:  # nothing matched: a file with the schema and no rows
            writer = pq.ParquetWriter(stream, encoding.table([]).schema, compression="zstd")
    finally:
        if writer is not None:
            writer.close()
    return written


def span_schema() -> pa.Schema:
    """The Parquet schema of a span export."""
    import pyarrow as pa  # noqa: PLC0415 - heavy: loaded on first use

    text, ts = pa.string(), pa.timestamp("ns", tz="UTC")
    attrs = pa.map_(pa.string(), pa.string())
    types = {"timestamp": ts, "resource_attributes": attrs, "attributes": attrs, "duration_ns": pa.int64(),
             "events": pa.list_(pa.struct([("timestamp", ts), ("name", text), ("attributes", attrs)])),
             "links": pa.list_(pa.struct([("trace_id", text), ("span_id", text), ("trace_state", text),
                                          ("attributes", attrs)]))}
    return pa.schema([(name, types.get(name, text)) for name in SPAN_FIELDS])


def score_schema() -> pa.Schema:
    """The Parquet schema of a score export."""
    import pyarrow as pa  # noqa: PLC0415 - heavy: loaded on first use

    types = {"score": pa.float64(), "passed": pa.bool_(), "cost_usd": pa.float64(), "latency_ms": pa.float64(),
             "scored_at": pa.timestamp("us", tz="UTC")}
    return pa.schema([(name, types.get(name, pa.string())) for name in ScoreRecord.__dataclass_fields__])


def _span_table(page: Sequence[StoredSpan]) -> pa.Table:
    import pyarrow as pa  # noqa: PLC0415 - heavy: loaded on first use

    columns: dict[str, list[Any]] = {
        "timestamp": [s.timestamp_ns for s in page],
        "resource_attributes": [list(s.resource_attributes.items()) for s in page],
        "attributes": [list(s.attributes.items()) for s in page],
        "events": [[{"timestamp": e.timestamp_ns, "name": e.name, "attributes": list(e.attributes.items())}
                    for e in s.events] for s in page],
        "links": [[{"trace_id": k.trace_id, "span_id": k.span_id, "trace_state": k.trace_state,
                    "attributes": list(k.attributes.items())} for k in s.links] for s in page],
    }
    schema = span_schema()
    arrays = [pa.array(columns[f.name] if f.name in columns else [getattr(s, f.name) for s in page], type=f.type)
              for f in schema]
    return pa.Table.from_arrays(arrays, schema=schema)


def _score_table(page: Sequence[ScoreRecord]) -> pa.Table:
    import pyarrow as pa  # noqa: PLC0415 - heavy: loaded on first use

    schema = score_schema()
    arrays = [pa.array([datetime.fromisoformat(r.scored_at) for r in page] if f.name == "scored_at"
                       else [getattr(r, f.name) for r in page], type=f.type) for f in schema]
    return pa.Table.from_arrays(arrays, schema=schema)

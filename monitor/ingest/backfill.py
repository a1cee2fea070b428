"""Backfill: turn a JSONL file of (source, summary) records into summarization spans in ``otel_traces``.

One JSON object per line::

    {"source": "...", "summary": "...", "band": "tldr", "document_id": "doc-17", "domain": "finance",
     "service": "digest", "timestamp": "2026-03-01T12:00:00Z", "metadata": {"customer": "acme"}}

``source`` and ``summary`` are required. A bad line is reported with its number and skipped; the good
lines are stored. Spans are built by the tracer's own attribute code, so backfilled and live spans
carry the same attributes.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, SpanProcessor, TracerProvider

from sumwatch.tracer import Usage, semconv, summarization_attributes
from sumwatch.tracer.otel_traces import spans_to_rows

from ..settings.user_files import MAX_DEPTH  # how deep a line's metadata may nest, as a user's TOML file
from ..store.connection import Store
from .validate import MAX_TIME_NS, MAX_TIME_TEXT, MIN_TIME_NS, MIN_TIME_TEXT

DEFAULT_SERVICE = "sumwatch-ingest"
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
REQUIRED = ("source", "summary")
OPTIONAL = ("band", "document_id", "domain", "service", "timestamp", "metadata", "prompt_version",
            "expected_facts", "model", "input_tokens", "output_tokens")


@dataclass(frozen=True)
class IngestRecord:
    source: str
    summary: str
    timestamp_ns: int
    service: str = DEFAULT_SERVICE
    band: str | None = None
    document_id: str | None = None
    domain: str | None = None
    prompt_version: str | None = None
    expected_facts: tuple[str, ...] | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    usage: Usage | None = None


@dataclass(frozen=True)
class BadLine:
    line: int
    reason: str


@dataclass
class IngestReport:
    path: str
    stored: int = 0
    bad: list[BadLine] = field(default_factory=list)


def parse_timestamp(value: Any) -> int:
    """ISO 8601 text (naive means UTC) or Unix seconds -> nanoseconds since the epoch."""
    if isinstance(value, bool):
        raise ValueError("timestamp must be ISO 8601 text or Unix seconds, got a boolean")
    if isinstance(value, (int, float)):
        if not 0 <= value < 1e11:
            raise ValueError(f"timestamp {value} is not Unix seconds (expected 0..1e11)")
        return _storable(int(value * 1_000_000_000), value)
    if isinstance(value, str):
        try:
            parsed = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        except ValueError:
            raise ValueError(f"timestamp {value!r} is not ISO 8601 (e.g. 2026-03-01T12:00:00Z)") from None
        if parsed.tzinfo is None:
            parsed = parsed.replace(tzinfo=timezone.utc)
        return _storable(int(parsed.timestamp()) * 1_000_000_000 + parsed.microsecond * 1000, value)
    raise ValueError(f"timestamp must be ISO 8601 text or Unix seconds, got {type(value).__name__}")


def _storable(ns: int, value: Any) -> int:
    """``ns`` when the store can hold it as a span time; ValueError naming the range otherwise."""
    if ns < MIN_TIME_NS or ns > MAX_TIME_NS:
        raise ValueError(f"timestamp {value!r} is outside the times the store holds ({MIN_TIME_TEXT} to "
                         f"{MAX_TIME_TEXT})")
    return ns


def _text(obj: dict[str, Any], key: str, required: bool) -> str | None:
    value = obj.get(key)
    if value is None:
        if required:
            raise ValueError(f"missing required field {key!r}")
        return None
    if not isinstance(value, str):
        raise ValueError(f"field {key!r} must be a string, got {type(value).__name__}")
    if required and not value.strip():
        raise ValueError(f"field {key!r} is empty")
    return value


def _check_values(value: Any, where: str, depth: int) -> None:
    """ValueError naming the field when ``value`` nests deeper than the store keeps or holds a lone surrogate
    (JSON may escape one, ``"\\ud800"``, but it is not Unicode text and no UTF-8 column can take it)."""
    if depth > MAX_DEPTH:
        top = where.split("[", 1)[0].split(".", 1)[0]
        raise ValueError(f"field {top!r} nests more than {MAX_DEPTH} levels deep")
    if isinstance(value, str):
        bad = _LONE_SURROGATE.search(value)
        if bad:
            raise ValueError(f"field {where!r} holds a lone surrogate (\\u{ord(bad.group()):04x} at character "
                             f"{bad.start()}), which is not Unicode text")
    elif isinstance(value, dict):
        for key, item in value.items():
            path = f"{where}.{key}" if where else key
            if _LONE_SURROGATE.search(key):
                _check_values(key, path, depth)  # raises, naming the key
            _check_values(item, path, depth + 1)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            _check_values(item, f"{where}[{i}]", depth + 1)


def parse_record(line: str, now_ns: int) -> IngestRecord:
    """One JSONL line -> a record; raises ValueError saying what is wrong."""
    try:
        obj = json.loads(line)
    except ValueError as exc:
        raise ValueError(f"not valid JSON ({exc})") from None
    except RecursionError:
        raise ValueError("JSON nested too deeply to read") from None
    if not isinstance(obj, dict):
        raise ValueError(f"expected a JSON object, got {type(obj).__name__}")
    _check_values(obj, "", 0)
    unknown = sorted(set(obj) - set(REQUIRED) - set(OPTIONAL))
    if unknown:
        raise ValueError(f"unknown field(s) {', '.join(map(repr, unknown))}; put extra data under 'metadata' "
                         f"(known fields: {', '.join(REQUIRED + OPTIONAL)})")
    band = _text(obj, "band", False)
    if band is not None and band not in semconv.BANDS:
        raise ValueError(f"band {band!r} is not one of {', '.join(semconv.BANDS)}")
    metadata = obj.get("metadata") or {}
    if not isinstance(metadata, dict):
        raise ValueError(f"field 'metadata' must be an object, got {type(metadata).__name__}")
    facts = obj.get("expected_facts")
    if facts is not None and not (isinstance(facts, list) and all(isinstance(f, str) for f in facts)):
        raise ValueError("field 'expected_facts' must be a list of strings")
    usage = None
    if any(k in obj for k in ("model", "input_tokens", "output_tokens")):
        for key in ("input_tokens", "output_tokens"):
            if key in obj and (not isinstance(obj[key], int) or isinstance(obj[key], bool) or obj[key] < 0):
                raise ValueError(f"field {key!r} must be a non-negative integer")
        usage = Usage(model=_text(obj, "model", False), input_tokens=obj.get("input_tokens"),
                      output_tokens=obj.get("output_tokens"))
    document_id = obj.get("document_id")
    return IngestRecord(
        source=_text(obj, "source", True),  # type: ignore[arg-type]
        summary=_text(obj, "summary", True),  # type: ignore[arg-type]
        timestamp_ns=parse_timestamp(obj["timestamp"]) if obj.get("timestamp") is not None else now_ns,
        service=_text(obj, "service", False) or DEFAULT_SERVICE,
        band=band,
        document_id=None if document_id is None else str(document_id),
        domain=_text(obj, "domain", False),
        prompt_version=_text(obj, "prompt_version", False),
        expected_facts=tuple(facts) if facts is not None else None,
        metadata=metadata,
        usage=usage,
    )


class _Collect(SpanProcessor):
    def __init__(self) -> None:
        self.spans: list[ReadableSpan] = []

    def on_end(self, span: ReadableSpan) -> None:
        self.spans.append(span)


class SpanBuilder:
    """Builds SDK spans for records, one Resource per service, and hands back rows."""

    def __init__(self) -> None:
        self._collect = _Collect()
        self._tracers: dict[str, Any] = {}

    def _tracer(self, service: str) -> Any:
        tracer = self._tracers.get(service)
        if tracer is None:
            provider = TracerProvider(resource=Resource.create({"service.name": service}))
            provider.add_span_processor(self._collect)
            tracer = self._tracers[service] = provider.get_tracer(semconv.INSTRUMENTATION_NAME)
        return tracer

    def add(self, record: IngestRecord, extra: dict[str, Any] | None = None) -> None:
        attrs = summarization_attributes(
            record.source, record.summary, band=record.band, document_id=record.document_id,
            domain=record.domain, prompt_version=record.prompt_version, expected_facts=record.expected_facts,
            metadata=record.metadata, usage=record.usage)
        if extra:
            attrs.update(extra)
        span = self._tracer(record.service).start_span(semconv.SPAN_NAME, attributes=attrs,
                                                       start_time=record.timestamp_ns)
        span.end(end_time=record.timestamp_ns)

    def take_rows(self) -> list[tuple[Any, ...]]:
        rows = spans_to_rows(self._collect.spans)
        self._collect.spans = []
        return rows


def _numbered_lines(path: Path) -> Iterator[tuple[int, bytes]]:
    with path.open("rb") as fh:
        yield from enumerate(fh, start=1)


def ingest_lines(store: Store, lines: Iterable[tuple[int, str | bytes]], *, path: str = "<lines>",
                 batch_size: int = 5000, on_progress: Callable[[int, int], None] | None = None) -> IngestReport:
    """Parse, build and insert in batches; bad lines are collected in the report, never stored."""
    report = IngestReport(path=path)
    builder = SpanBuilder()
    now_ns = time.time_ns()
    pending = 0

    def flush() -> None:
        nonlocal pending
        rows = builder.take_rows()
        store.insert_spans(rows)
        report.stored += len(rows)
        pending = 0
        if on_progress:
            on_progress(report.stored, len(report.bad))

    for line_no, line in lines:
        if not line.strip():
            continue
        try:
            if isinstance(line, bytes):
                try:
                    line = line.decode("utf-8")
                except UnicodeDecodeError as exc:
                    raise ValueError(f"not UTF-8 text ({exc.reason} at byte {exc.start})") from None
            builder.add(parse_record(line, now_ns))
        except ValueError as exc:
            report.bad.append(BadLine(line_no, str(exc)))
            continue
        pending += 1
        if pending >= batch_size:
            flush()
    if pending:
        flush()
    elif on_progress:
        on_progress(report.stored, len(report.bad))
    return report


def ingest_file(store: Store, path: Path, **kwargs: Any) -> IngestReport:
    if not path.is_file():
        raise FileNotFoundError(f"no such file: {path}")
    return ingest_lines(store, _numbered_lines(path), path=str(path), **kwargs)

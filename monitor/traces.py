"""Read summarization spans back out of ``otel_traces``.

    recent = list_traces(store, limit=20)       # newest first, one row per summarization span
    spans = get_trace(store, "5b8efff798038103d269b633813fc60c")
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from typing import Any

from sumwatch.tracer import semconv
from sumwatch.tracer.otel_traces import TRACES_TABLE

from .store.connection import Store


@dataclass(frozen=True)
class TraceRow:
    timestamp: str
    trace_id: str
    span_id: str
    service: str
    band: str
    domain: str
    document_id: str
    source_words: int
    summary_words: int
    status: str
    duration_ms: float
    summary_preview: str

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class SpanDetail:
    timestamp: str
    trace_id: str
    span_id: str
    parent_span_id: str
    name: str
    kind: str
    service: str
    status: str
    status_message: str
    duration_ms: float
    attributes: dict[str, str]
    resource_attributes: dict[str, str]
    events: list[dict[str, Any]]

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def _iso(value: datetime) -> str:
    if value.tzinfo is None:
        value = value.replace(tzinfo=timezone.utc)
    return value.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _is_summarization() -> str:
    return f"SpanAttributes['{semconv.TASK}'] = '{semconv.TASK_SUMMARIZATION}'"


def list_traces(store: Store, limit: int = 20, service: str | None = None) -> list[TraceRow]:
    if limit < 1:
        raise ValueError(f"limit must be at least 1, got {limit}")
    where = _is_summarization() + (" AND ServiceName = {service:String}" if service else "")
    a = "SpanAttributes"
    rows = store.query_rows(
        f"""SELECT toTimeZone(Timestamp, 'UTC'), TraceId, SpanId, ServiceName,
               {a}['{semconv.SUMMARIZATION_BAND}'], {a}['{semconv.DOMAIN}'], {a}['{semconv.DOCUMENT_ID}'],
               toUInt32OrZero({a}['{semconv.SOURCE_WORDS}']), toUInt32OrZero({a}['{semconv.SUMMARY_WORDS}']),
               StatusCode, Duration, substring({a}['{semconv.OUTPUT_VALUE}'], 1, 200)
        FROM {TRACES_TABLE} WHERE {where}
        ORDER BY Timestamp DESC LIMIT {{limit:UInt32}}""",
        {"limit": limit, "service": service or ""},
    )
    return [TraceRow(_iso(ts), tid, sid, svc, band, domain, doc, int(sw), int(mw), status,
                     round(dur / 1e6, 3), " ".join(preview.split()))
            for ts, tid, sid, svc, band, domain, doc, sw, mw, status, dur, preview in rows]


def normalize_trace_id(trace_id: str) -> str:
    """A trace id as stored (32 lowercase hex); ValueError for anything else."""
    tid = trace_id.strip().lower()
    if len(tid) != 32 or any(c not in "0123456789abcdef" for c in tid):
        raise ValueError(f"trace id must be 32 hex characters, got {trace_id!r}")
    return tid


def get_trace(store: Store, trace_id: str) -> list[SpanDetail]:
    trace_id = normalize_trace_id(trace_id)
    rows = store.query_rows(
        f"""SELECT toTimeZone(Timestamp, 'UTC'), TraceId, SpanId, ParentSpanId, SpanName, SpanKind, ServiceName,
               StatusCode, StatusMessage, Duration, SpanAttributes, ResourceAttributes,
               Events.Timestamp, Events.Name, Events.Attributes
        FROM {TRACES_TABLE} WHERE TraceId = {{tid:String}} ORDER BY Timestamp""",
        {"tid": trace_id},
    )
    return [SpanDetail(_iso(ts), tid, sid, parent, name, kind, svc, status, msg, round(dur / 1e6, 3),
                       dict(attrs), dict(res),
                       [{"timestamp": _iso(t), "name": n, "attributes": dict(a)} for t, n, a in zip(ets, ens, eas)])
            for ts, tid, sid, parent, name, kind, svc, status, msg, dur, attrs, res, ets, ens, eas in rows]


class StoreReader:
    """Trace and issue reads on an open store; the CLI's other reader is ``api.RemoteReader``."""

    def __init__(self, store: Store) -> None:
        self._store = store

    def list_traces(self, limit: int = 20, service: str | None = None) -> list[TraceRow]:
        return list_traces(self._store, limit=limit, service=service)

    def get_trace(self, trace_id: str) -> list[SpanDetail]:
        return get_trace(self._store, trace_id)

    def issues(self, include_resolved: bool = True) -> dict:
        from .issues import issues_document

        return issues_document(self._store, include_resolved=include_resolved)

    def issue(self, issue_id: str) -> dict | None:
        from .issues import issue_document

        return issue_document(self._store, issue_id)

"""``sumwatch_genai_events``: the GenAI content log records of OTLP log exports, kept to join with their spans.

    write_genai_events(store, records)                   # from POST /v1/logs
    events = genai_events(store, [(trace_id, span_id)])  # {(trace_id, span_id): [{"event.name": ..., "body": ...}]}

The OpenTelemetry contrib instrumentations, by default, put a chat call's messages in log records
(``gen_ai.user.message``, ``gen_ai.choice`` ...) tied to the call's span by trace and span id, not on the span.
Only those records are kept (not a log store); a record sent twice (an exporter resending after a lost answer)
is one row after a merge, and read once before it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from .connection import Store, quote_ident
from .ddl import Table, Target

GENAI_EVENTS_TABLE = "sumwatch_genai_events"
EVENT_NAME, EVENT_BODY = "event.name", "body"  # the keys recognise() reads an event's name and body under


@dataclass(frozen=True)
class GenAiEvent:
    """One log record of a GenAI call: its span, its name, its body as text (JSON for structured bodies)."""

    timestamp_ns: int
    trace_id: str  # hex, as otel_traces holds it
    span_id: str
    name: str
    body: str
    position: int = 0  # its place in the export, which orders records of one call logged in the same nanosecond
    service: str = ""
    attributes: dict[str, str] = field(default_factory=dict)

    def as_event(self) -> dict[str, str]:
        """The event as :func:`sumwatch.monitor.scoring.recognise.recognise` takes it."""
        return {**self.attributes, EVENT_NAME: self.name, EVENT_BODY: self.body}


COLUMNS = ("Timestamp", "TraceId", "SpanId", "EventName", "Body", "Position", "ServiceName", "Attributes")


def _create(t: Target) -> str:
    return f"""CREATE TABLE IF NOT EXISTS {t.name(GENAI_EVENTS_TABLE)}{t.on_cluster} (
    Timestamp DateTime64(9) CODEC(Delta(8), ZSTD(1)),
    TraceId String CODEC(ZSTD(1)),
    SpanId String CODEC(ZSTD(1)),
    EventName LowCardinality(String),
    Body String CODEC(ZSTD(1)),
    Position UInt32,
    ServiceName LowCardinality(String),
    Attributes Map(LowCardinality(String), String) CODEC(ZSTD(1))
) ENGINE = {t.engine("ReplacingMergeTree")}
PARTITION BY toYYYYMM(Timestamp)
ORDER BY (TraceId, SpanId, Timestamp, Position, EventName)"""


# sharded by trace, so a span's records are read from the shard that holds them all
GENAI_EVENTS = Table(GENAI_EVENTS_TABLE, "cityHash64(TraceId)", _create)


def write_genai_events(store: Store, records: Sequence[GenAiEvent]) -> None:
    """One INSERT; raw nanoseconds, as a datetime would round them to microseconds."""
    store.insert(GENAI_EVENTS_TABLE, [(r.timestamp_ns, r.trace_id, r.span_id, r.name, r.body, r.position,
                                       r.service, r.attributes) for r in records], COLUMNS)


def genai_events(store: Store, spans: Iterable[tuple[str, str]]) -> dict[tuple[str, str], list[dict[str, str]]]:
    """The records of each (trace id, span id), in the order they were logged, as recognise() takes them."""
    wanted = sorted(set(spans))
    if not wanted:
        return {}
    rows = store.query_rows(
        f"SELECT TraceId, SpanId, EventName, Body, Attributes FROM {quote_ident(GENAI_EVENTS_TABLE)} FINAL "
        f"WHERE TraceId IN {{tids:Array(String)}} AND (TraceId, SpanId) IN {{pairs:Array(Tuple(String, String))}} "
        f"ORDER BY TraceId, SpanId, Timestamp, Position",
        {"tids": sorted({t for t, _ in wanted}), "pairs": wanted})
    out: dict[tuple[str, str], list[dict[str, str]]] = {}
    for tid, sid, name, body, attributes in rows:
        out.setdefault((tid, sid), []).append({**attributes, EVENT_NAME: name, EVENT_BODY: body})
    return out

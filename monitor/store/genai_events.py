"""``sumwatch_genai_events``: the GenAI content log records of OTLP log exports, kept to join with their spans.

    write_genai_events(store, records)                   # one INSERT (the receiver group-commits encode_genai_events)
    events = genai_events(store, [(trace_id, span_id)])  # {(trace_id, span_id): [{"event.name": ..., "body": ...}]}
    sql = f"(TraceId, SpanId) IN ({spans_with_records_arrived('since')})"  # records stored after {since:Int64}

The OpenTelemetry contrib instrumentations, by default, put a chat call's messages in log records
(``gen_ai.user.message``, ``gen_ai.choice`` ...) tied to the call's span by trace and span id, not on the span.
Only those records are kept (not a log store); a record sent twice (an exporter resending after a lost answer)
is one row after a merge, and read once before it. ``InsertedAt`` is when a record arrived, which for a record an
exporter sends late (a batch log processor flushing after the span's export, a retry after an outage) is long
after its own time: the sampler looks for content logged late by it (migration 14).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import orjson

from sumwatch.tracer.otel_traces import INSERT_FORMAT, join_columns

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


# the columns a writer fills; InsertedAt is left to its default, the store's clock on arrival
GENAI_EVENT_COLUMNS = ("Timestamp", "TraceId", "SpanId", "EventName", "Body", "Position", "ServiceName",
                       "Attributes")


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


def genai_events_arrival_ddl(t: Target) -> list[str]:
    """When each record arrived (added after the table was made; on a cluster, to the local tables and to the
    Distributed front). Rows stored before it read the migration's time, which only makes them look late."""
    column = "ADD COLUMN IF NOT EXISTS InsertedAt DateTime64(3) DEFAULT now64(3)"
    out = [f"ALTER TABLE {t.name(GENAI_EVENTS_TABLE)}{t.on_cluster} {column}"]
    if t.cluster:
        out.append(f"ALTER TABLE {quote_ident(t.database)}.{quote_ident(GENAI_EVENTS_TABLE)}{t.on_cluster} {column}")
    return out


def encode_genai_events(records: Sequence[GenAiEvent]) -> list[bytes]:
    """Records -> one JSON array per column of ``GENAI_EVENT_COLUMNS`` (JSONCompactColumns, as the span writer
    sends); times as "seconds.nanos" text, as a bare number would be read as seconds."""
    return [orjson.dumps(column) for column in (
        [f"{r.timestamp_ns // 1_000_000_000}.{r.timestamp_ns % 1_000_000_000:09d}" for r in records],
        [r.trace_id for r in records], [r.span_id for r in records], [r.name for r in records],
        [r.body for r in records], [r.position for r in records], [r.service for r in records],
        [r.attributes for r in records])]


def write_genai_events(store: Store, records: Sequence[GenAiEvent]) -> None:
    """One INSERT of ``records``."""
    if records:
        store.insert_encoded(GENAI_EVENTS_TABLE, GENAI_EVENT_COLUMNS, join_columns([encode_genai_events(records)]),
                             INSERT_FORMAT)


def spans_with_records_arrived(param: str) -> str:
    """A subquery: (TraceId, SpanId) of the spans with a record stored after the Int64 nanoseconds ``param``."""
    return (f"SELECT TraceId, SpanId FROM {quote_ident(GENAI_EVENTS_TABLE)} "
            f"WHERE InsertedAt > fromUnixTimestamp64Nano({{{param}:Int64}})")


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

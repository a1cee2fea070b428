"""``otel_traces``: the OpenTelemetry Collector's traces table, and summarization spans read back out of it.

    recent = list_traces(store, limit=20)       # newest first, one row per summarization span
    spans = get_trace(store, "5b8efff798038103d269b633813fc60c")

The table is exactly the one the Collector's ClickHouse exporter creates, so a stock Collector can write
into it; its column list and row encoding live in :mod:`sumwatch.tracer.otel_traces`, because the
tracer's direct exporter writes rows too.

Each span once, as readers see it. An exporter that never got its answer (the receiver was killed after
storing the batch, a proxy timed out) sends the same spans again, and the table, a plain MergeTree like
the Collector's, keeps both copies. Changing what is written cannot fix that without breaking the
Collector's schema: a ReplacingMergeTree or a deduplication window is a different table, insert
deduplication only matches byte-identical blocks (group commit mixes requests), and a Collector writing
beside us retries the same way without taking part. So every read of ``otel_traces`` takes one row per (TraceId, SpanId):
whole-set reads add ``ONE_PER_SPAN`` (``LIMIT 1 BY TraceId, SpanId``), and ordered reads with a limit
(the trace listing, the sampler's fetch) go through :func:`first_spans`, which reads a slightly longer
prefix of the same order and keeps the first row of each span, so the engine still sorts only the top
rows instead of every span. Over 1M stored spans the listing and the sampler's fetch take 0.8-1.1x the
time of the plain query, with or without 1% copies; ``LIMIT 1 BY`` alone took 19-21x for the listing
(``tests/bench/dedup_reads.py``). Copies of a span are the same bytes sent twice, so which is kept does
not matter.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from typing import Any

from sumwatch.tracer import semconv
from sumwatch.tracer.otel_traces import TRACE_ID_TS_TABLE, TRACE_ID_TS_VIEW, TRACES_TABLE

from ..contract.traces import SpanDetail, normalize_trace_id
from .connection import Store, quote_ident
from .ddl import Target
from .recognised import RECOGNISED_TABLE, read_recognised
from .score_facts import SPAN_KEY

ONE_PER_SPAN = "LIMIT 1 BY TraceId, SpanId"  # appended to a read of otel_traces: each span once

# where each convention puts a span's model and token counts, in the order they are read: the OTel GenAI names
# (and their older token names, which OpenLLMetry writes), then OpenInference's
MODEL_KEYS = (semconv.GEN_AI_REQUEST_MODEL, semconv.GEN_AI_RESPONSE_MODEL, "llm.model_name")
INPUT_TOKEN_KEYS = (semconv.GEN_AI_INPUT_TOKENS, "gen_ai.usage.prompt_tokens", "llm.token_count.prompt")
OUTPUT_TOKEN_KEYS = (semconv.GEN_AI_OUTPUT_TOKENS, "gen_ai.usage.completion_tokens", "llm.token_count.completion")


def first_value(attributes: Mapping[str, str], keys: Sequence[str]) -> str:
    """The first non-empty value of ``keys``: ``first_value(span.attributes, MODEL_KEYS)``."""
    return next((attributes[k] for k in keys if attributes.get(k)), "")


def token_count(attributes: Mapping[str, str], keys: Sequence[str]) -> int | None:
    """A token count under any of ``keys``; None when none holds a whole number."""
    value = first_value(attributes, keys).strip()
    return int(value) if value.isdigit() else None


_A = "SpanAttributes"


def _first_sql(keys: Sequence[str]) -> str:
    """:func:`first_value` in SQL over ``SpanAttributes``."""
    *first, last = keys
    tests = ", ".join(f"{_A}['{k}'] != '', {_A}['{k}']" for k in first)
    return f"multiIf({tests}, {_A}['{last}'])"


def first_spans(store: Store, sql: str, params: Mapping[str, Any], limit: int, *, fill: bool = True,
                spare: float = 1.0) -> list[tuple[Any, ...]]:
    """The first ``limit`` rows of an ordered read of ``otel_traces``, one row per span.

        rows = first_spans(store, "SELECT TraceId, SpanId, ... FROM otel_traces WHERE ... "
                                  "ORDER BY Timestamp DESC LIMIT {prefix:UInt64}", {}, limit=20)

    ``sql`` selects TraceId and SpanId first and ends in ``LIMIT {prefix:UInt64}``. A span's first row in
    the order is the one kept; every row before it belongs to a span that comes earlier, so the first
    ``limit`` spans of a prefix are the first ``limit`` of the whole read. When copies crowd the prefix
    it is read again, longer, until it holds ``limit`` spans or the rows run out; with ``fill=False`` the
    spans of the first prefix are the answer (fewer than ``limit`` then), for a caller that reads on
    from its last row anyway. ``spare``: the share of rows the first prefix reads beyond ``limit``.
    """
    if limit < 1:
        return []
    # by default room for each span twice: the engine's top-N sort costs about the same for twice the rows
    prefix = int(limit * (1 + spare)) + 8
    while True:
        rows = store.query_rows(sql, {**params, "prefix": prefix})
        seen: set[tuple[str, str]] = set()
        out = []
        for row in rows:
            key = (row[0], row[1])
            if key not in seen:
                seen.add(key)
                out.append(row)
                if len(out) == limit:
                    return out
        if len(rows) < prefix or not fill:
            return out
        # grow by the share of copies seen so far, at least doubling
        prefix = max(2 * prefix, int(prefix * limit / max(len(out), 1) * 1.25) + 1)


def otel_traces_ddl(t: Target) -> list[str]:
    """The Collector's traces table, its trace-id time range table, and the view that fills it."""
    traces = f"""CREATE TABLE IF NOT EXISTS {t.name(TRACES_TABLE)}{t.on_cluster} (
    Timestamp DateTime64(9) CODEC(Delta(8), ZSTD(1)),
    TraceId String CODEC(ZSTD(1)),
    SpanId String CODEC(ZSTD(1)),
    ParentSpanId String CODEC(ZSTD(1)),
    TraceState String CODEC(ZSTD(1)),
    SpanName LowCardinality(String) CODEC(ZSTD(1)),
    SpanKind LowCardinality(String) CODEC(ZSTD(1)),
    ServiceName LowCardinality(String) CODEC(ZSTD(1)),
    ResourceAttributes Map(LowCardinality(String), String) CODEC(ZSTD(1)),
    ScopeName String CODEC(ZSTD(1)),
    ScopeVersion String CODEC(ZSTD(1)),
    SpanAttributes Map(LowCardinality(String), String) CODEC(ZSTD(1)),
    Duration UInt64 CODEC(T64, ZSTD(1)),
    StatusCode LowCardinality(String) CODEC(ZSTD(1)),
    StatusMessage String CODEC(ZSTD(1)),
    Events Nested (
        Timestamp DateTime64(9),
        Name LowCardinality(String),
        Attributes Map(LowCardinality(String), String)
    ) CODEC(ZSTD(1)),
    Links Nested (
        TraceId String,
        SpanId String,
        TraceState String,
        Attributes Map(LowCardinality(String), String)
    ) CODEC(ZSTD(1)),
    ResourceAttributeItems Array(String) ALIAS arrayMap(kv -> concat(kv.1, '=', kv.2), CAST(ResourceAttributes, 'Array(Tuple(String, String))')),
    SpanAttributeItems Array(String) ALIAS arrayMap(kv -> concat(kv.1, '=', kv.2), CAST(SpanAttributes, 'Array(Tuple(String, String))')),
    INDEX idx_trace_id TraceId TYPE bloom_filter(0.001) GRANULARITY 1,
    INDEX idx_res_attr_key mapKeys(ResourceAttributes) TYPE bloom_filter(0.01) GRANULARITY 1,
    INDEX idx_res_attr_value mapValues(ResourceAttributes) TYPE bloom_filter(0.01) GRANULARITY 1,
    INDEX idx_span_attr_key mapKeys(SpanAttributes) TYPE bloom_filter(0.01) GRANULARITY 1,
    INDEX idx_span_attr_value mapValues(SpanAttributes) TYPE bloom_filter(0.01) GRANULARITY 1,
    INDEX idx_duration Duration TYPE minmax GRANULARITY 1,
    INDEX idx_lower_span_name lower(SpanName) TYPE tokenbf_v1(32768, 3, 0) GRANULARITY 8
) ENGINE = {t.engine("MergeTree")}
PARTITION BY toDate(Timestamp)
PRIMARY KEY (ServiceName, SpanName, toDateTime(Timestamp))
ORDER BY (ServiceName, SpanName, toDateTime(Timestamp), Timestamp)
SETTINGS index_granularity = 8192, ttl_only_drop_parts = 1"""

    id_ts = f"""CREATE TABLE IF NOT EXISTS {t.name(TRACE_ID_TS_TABLE)}{t.on_cluster} (
    TraceId String CODEC(ZSTD(1)),
    Start SimpleAggregateFunction(min, DateTime) CODEC(ZSTD(1)),
    End SimpleAggregateFunction(max, DateTime) CODEC(ZSTD(1))
) ENGINE = {t.engine("MergeTree")}
PARTITION BY toStartOfWeek(Start)
ORDER BY (TraceId)
SETTINGS index_granularity = 8192, ttl_only_drop_parts = 1"""

    view = f"""CREATE MATERIALIZED VIEW IF NOT EXISTS {quote_ident(t.database)}.{quote_ident(t.local(TRACE_ID_TS_VIEW))}{t.on_cluster}
TO {t.name(TRACE_ID_TS_TABLE)}
AS SELECT
    TraceId,
    min(Timestamp) AS Start,
    max(Timestamp) AS End
FROM {t.name(TRACES_TABLE)}
WHERE TraceId != ''
GROUP BY TraceId"""

    return ([traces, id_ts, view]
            + t.distributed(TRACES_TABLE, "cityHash64(TraceId)")
            + t.distributed(TRACE_ID_TS_TABLE, "cityHash64(TraceId)"))


ARRIVED_AT = "InsertedAt"  # when the store received a span (its clock), whatever the span's own time


def traces_arrival_ddl(t: Target) -> list[str]:
    """When each span arrived, added after the Collector's schema (writers name their columns, so the default
    fills it, the Collector's exporter's included); on a cluster, to the local tables and the Distributed front.
    Spans stored before it take their own time, written once (MATERIALIZE): that is when the sampler took them
    to arrive until now, and a default that is not written would read a new ``now`` on every query. Then new
    spans take the store's clock on arrival. The sampler scores by arrival as well as by span time, so a
    backfill of old spans is scored."""
    table = f"ALTER TABLE {t.name(TRACES_TABLE)}{t.on_cluster}"
    column = f"{ARRIVED_AT} DateTime64(3) DEFAULT toDateTime64(Timestamp, 3) CODEC(Delta(8), ZSTD(1))"
    out = [f"{table} ADD COLUMN IF NOT EXISTS {column}",
           f"{table} MATERIALIZE COLUMN {ARRIVED_AT} SETTINGS mutations_sync = 2",
           f"{table} MODIFY COLUMN {ARRIVED_AT} DEFAULT now64(3)"]
    if t.cluster:  # the front's column as the local tables have it, so inserts through it stamp the arrival
        front = f"ALTER TABLE {quote_ident(t.database)}.{quote_ident(TRACES_TABLE)}{t.on_cluster}"
        out += [f"{front} ADD COLUMN IF NOT EXISTS {column}", f"{front} MODIFY COLUMN {ARRIVED_AT} DEFAULT now64(3)"]
    return out


@dataclass(frozen=True)
class SpanEvent:
    timestamp_ns: int
    name: str
    attributes: dict[str, str]


@dataclass(frozen=True)
class SpanLink:
    trace_id: str
    span_id: str
    trace_state: str
    attributes: dict[str, str]


@dataclass(frozen=True)
class StoredSpan:
    """A span as ``otel_traces`` holds it, every column (timestamps in ns since the epoch)."""

    timestamp_ns: int
    trace_id: str
    span_id: str
    parent_span_id: str
    trace_state: str
    name: str
    kind: str
    service: str
    resource_attributes: dict[str, str]
    scope_name: str
    scope_version: str
    attributes: dict[str, str]
    duration_ns: int
    status: str
    status_message: str
    events: tuple[SpanEvent, ...]
    links: tuple[SpanLink, ...]


def _iso(value: datetime) -> str:
    if value.tzinfo is None:
        value = value.replace(tzinfo=timezone.utc)
    return value.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _is_summarization() -> str:
    return f"SpanAttributes['{semconv.TASK}'] = '{semconv.TASK_SUMMARIZATION}'"


def count_spans(store: Store) -> int:
    """Spans stored, each once: a batch an exporter sent again after a lost answer is not counted twice.
    Spans are told apart by one 64-bit number each (``SPAN_KEY``, as the score facts key them): over 1M
    spans a third of the time of the two strings, and two spans share a number with odds of about 1e-8."""

    return int(store.query_rows(f"SELECT uniqExact({SPAN_KEY}) FROM {TRACES_TABLE}")[0][0])


def get_trace(store: Store, trace_id: str) -> list[SpanDetail]:
    """A trace's spans as a tree, depth first (a parent before its children, siblings oldest first), each
    with its model and tokens from either convention and, when recognised, its recognised row.

        for span in get_trace(store, "5b8efff798038103d269b633813fc60c"): print("  " * span.depth, span.name)
    """
    trace_id = normalize_trace_id(trace_id)
    rows = store.query_rows(
        f"""SELECT toTimeZone(Timestamp, 'UTC'), TraceId, SpanId, ParentSpanId, SpanName, SpanKind, ServiceName,
               StatusCode, StatusMessage, Duration, SpanAttributes, ResourceAttributes,
               Events.Timestamp, Events.Name, Events.Attributes
        FROM {TRACES_TABLE} WHERE TraceId = {{tid:String}} ORDER BY Timestamp, SpanId {ONE_PER_SPAN}""",
        {"tid": trace_id},
    )
    found = read_recognised(store, [(trace_id, r[2]) for r in rows]) if rows else {}
    spans = []
    for ts, tid, sid, parent, name, kind, svc, status, msg, dur, attrs, res, ets, ens, eas in rows:
        attributes = dict(attrs)
        r = found.get((tid, sid))
        spans.append(SpanDetail(
            _iso(ts), tid, sid, parent, name, kind, svc, status, msg, round(dur / 1e6, 3), attributes, dict(res),
            [{"timestamp": _iso(t), "name": n, "attributes": dict(a)} for t, n, a in zip(ets, ens, eas)],
            model=(r.model if r else "") or first_value(attributes, MODEL_KEYS),
            input_tokens=_either(r.input_tokens if r else None, token_count(attributes, INPUT_TOKEN_KEYS)),
            output_tokens=_either(r.output_tokens if r else None, token_count(attributes, OUTPUT_TOKEN_KEYS)),
            summarization=r is not None or attributes.get(semconv.TASK) == semconv.TASK_SUMMARIZATION,
            recognised=r))
    return _as_tree(spans)


def _either(first: int | None, second: int | None) -> int | None:
    return first if first is not None else second


def _as_tree(spans: Sequence[SpanDetail]) -> list[SpanDetail]:
    """``spans`` (oldest first) depth first with their depth and children; a span whose parent is missing
    (not exported, or another trace's) is a root, and so is one in a cycle of parents (bad data)."""
    ids = {s.span_id for s in spans}
    children: dict[str, list[SpanDetail]] = {}
    for s in spans:
        if s.parent_span_id in ids and s.parent_span_id != s.span_id:
            children.setdefault(s.parent_span_id, []).append(s)
    out: list[SpanDetail] = []
    placed: set[str] = set()

    def visit(span: SpanDetail, depth: int) -> None:
        placed.add(span.span_id)
        kids = [c for c in children.get(span.span_id, []) if c.span_id not in placed]
        out.append(replace(span, depth=depth, children=[c.span_id for c in kids]))
        for child in kids:
            if child.span_id not in placed:
                visit(child, depth + 1)

    for s in spans:
        if s.span_id not in placed and (s.parent_span_id not in ids or s.parent_span_id == s.span_id):
            visit(s, 0)
    for s in spans:  # in a cycle: no root reaches it
        if s.span_id not in placed:
            visit(s, 0)
    return out


def parse_expected_facts(raw: str) -> tuple[str, ...]:
    """The span's expected-facts attribute (a JSON list) as a tuple; anything malformed reads as none."""
    if not raw:
        return ()
    try:
        facts = json.loads(raw)
    except ValueError:
        return ()
    return tuple(str(f) for f in facts) if isinstance(facts, list) else ()


def span_texts(store: Store, keys: Sequence[tuple[str, str]]
               ) -> dict[tuple[str, str], tuple[str, str, str, tuple[str, ...]]]:
    """Source, summary, band and expected facts of the given (trace id, span id) spans that recorded text:
    a recognised span's document and answer from its recognised row, a tagged span's from its attributes.

        source, summary, band, facts = span_texts(store, [(trace_id, span_id)])[(trace_id, span_id)]
    """
    if not keys:
        return {}
    out: dict[tuple[str, str], tuple[str, str, str, tuple[str, ...]]] = {}
    for key, r in read_recognised(store, keys).items():
        if r.source.strip() and r.summary.strip():
            out[key] = (r.source, r.summary, r.band, ())
    a = "SpanAttributes"
    rows = store.query_rows(
        f"""SELECT TraceId, SpanId, {a}['{semconv.INPUT_VALUE}'], {a}['{semconv.OUTPUT_VALUE}'],
               {a}['{semconv.SUMMARIZATION_BAND}'], {a}['{semconv.EXPECTED_FACTS}']
        FROM {TRACES_TABLE} WHERE TraceId IN {{tids:Array(String)}} AND {_is_summarization()} {ONE_PER_SPAN}""",
        {"tids": sorted({t for t, _ in keys if (t, _) not in out})})
    wanted = set(keys)
    for tid, sid, source, summary, band, facts in rows:
        if (tid, sid) in wanted and (tid, sid) not in out and source.strip() and summary.strip():
            out[(tid, sid)] = (source, summary, band, parse_expected_facts(facts))
    return out


def source_digests(store: Store, keys: Sequence[tuple[str, str]], chunk: int = 5_000) -> dict[tuple[str, str], str]:
    """A digest of the source document of each (trace id, span id), computed by the engine (the texts never
    leave it): equal digests, the same source text. A recognised span's source is its recognised row's; a
    tagged span's is its input text, or the SHA-256 its tracer kept when text capture was off. Spans with
    neither are absent. Read ``chunk`` spans a query: their ids travel as query parameters, which a ClickHouse
    server takes in the URL (at most 1 MiB by default).

        source_digests(store, [(trace_id, span_id)]) == {(trace_id, span_id): "9f0c1a..."}
    """
    wanted = sorted(set(keys))
    out: dict[tuple[str, str], str] = {}
    for start in range(0, len(wanted), chunk):
        part = wanted[start:start + chunk]
        tids = sorted({t for t, _ in part})
        pairs = {"tids": tids, "pairs": part}
        for tid, sid, digest in store.query_rows(
                f"SELECT TraceId, SpanId, lower(hex(cityHash64(argMax(Source, RecognisedAt)))) "
                f"FROM {quote_ident(RECOGNISED_TABLE)} WHERE TraceId IN {{tids:Array(String)}} "
                f"AND (TraceId, SpanId) IN {{pairs:Array(Tuple(String, String))}} "
                f"GROUP BY TraceId, SpanId HAVING notEmpty(argMax(Source, RecognisedAt))", pairs):
            out[(tid, sid)] = digest
        a = "SpanAttributes"
        for tid, sid, digest in store.query_rows(
                f"""SELECT TraceId, SpanId, if(notEmpty({a}['{semconv.INPUT_VALUE}']),
                       lower(hex(cityHash64({a}['{semconv.INPUT_VALUE}']))), {a}['{semconv.SOURCE_HASH}'])
                FROM {TRACES_TABLE} WHERE TraceId IN {{tids:Array(String)}}
                  AND (TraceId, SpanId) IN {{pairs:Array(Tuple(String, String))}} {ONE_PER_SPAN}""", pairs):
            if digest and (tid, sid) not in out:
                out[(tid, sid)] = digest
    return out

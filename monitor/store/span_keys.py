"""``sumwatch_span_keys``: each summarization span's model and prompt version under its one-number key.

    span_keys_ddl(target)    # the table, the view that fills it from otel_traces, and the backfill

The score facts key each judgement by ``SPAN_KEY`` (a hash of trace and span id). Comparing pass rates by
model or prompt version, or filtering the rates by them, joins the score facts with each span's model and
prompt version; read from the span facts, that meant hashing 1M pairs of id strings on every call before
the join (65 ms of compare's 200 over 1M spans on 2 cores). This table holds the key ready-made, ordered by
it, beside the two values, filled by a view as spans are inserted (from any writer) like the span facts.
A span stored twice is here twice until a merge; readers join with ANY, so it counts once.
"""

from __future__ import annotations

from sumwatch.tracer import semconv
from sumwatch.tracer.otel_traces import TRACES_TABLE

from .connection import quote_ident
from .ddl import Table, Target
from .score_facts import SPAN_KEY
from .span_facts import SPAN_FACTS_TABLE

SPAN_KEYS_TABLE = "sumwatch_span_keys"
SPAN_KEYS_VIEW = "sumwatch_span_keys_mv"


def _create(t: Target) -> str:
    return f"""CREATE TABLE IF NOT EXISTS {t.name(SPAN_KEYS_TABLE)}{t.on_cluster} (
    SpanKey UInt64,
    TraceHash UInt64,
    Timestamp DateTime64(9) CODEC(Delta(8), ZSTD(1)),
    Model LowCardinality(String),
    PromptVersion LowCardinality(String)
) ENGINE = {t.engine("ReplacingMergeTree")}
PARTITION BY toYYYYMM(Timestamp)
ORDER BY SpanKey"""


# sharded like the score facts (TraceHash), so a span's key and its judgements live on the same shard
SPAN_KEYS = Table(SPAN_KEYS_TABLE, "TraceHash", _create)

_A = "SpanAttributes"
_FROM_SPANS = f"""SELECT {SPAN_KEY} AS SpanKey, cityHash64(TraceId) AS TraceHash, Timestamp,
    if({_A}['{semconv.GEN_AI_REQUEST_MODEL}'] != '', {_A}['{semconv.GEN_AI_REQUEST_MODEL}'],
       {_A}['{semconv.GEN_AI_RESPONSE_MODEL}']) AS Model,
    {_A}['{semconv.PROMPT_VERSION}'] AS PromptVersion"""
_WHERE = f"WHERE {_A}['{semconv.TASK}'] = '{semconv.TASK_SUMMARIZATION}'"


def span_keys_ddl(t: Target) -> list[str]:
    """The view filling the table from each insert into otel_traces (the local tables on a cluster), then
    a backfill from the span facts (the same spans, the same values, without reading the attributes map)
    through the canonical names."""
    db = quote_ident(t.database)
    view = (f"CREATE MATERIALIZED VIEW IF NOT EXISTS {db}.{quote_ident(t.local(SPAN_KEYS_VIEW))}{t.on_cluster}\n"
            f"TO {t.name(SPAN_KEYS_TABLE)}\nAS {_FROM_SPANS}\nFROM {t.name(TRACES_TABLE)}\n{_WHERE}")
    backfill = (f"INSERT INTO {db}.{quote_ident(SPAN_KEYS_TABLE)}\n"
                f"SELECT {SPAN_KEY} AS SpanKey, cityHash64(TraceId) AS TraceHash, Timestamp, Model, PromptVersion\n"
                f"FROM {db}.{quote_ident(SPAN_FACTS_TABLE)}")
    return [view, backfill]

"""``sumwatch_span_facts``: one narrow row per summarization span, for the dashboard's counts and filters.

    facts_ddl(target)    # the table, the view that fills it from otel_traces, and the backfill

Counting spans by hour, service, model or prompt version in ``otel_traces`` reads ``SpanAttributes``,
a map that holds the source and the summary: over 1M spans that is gigabytes per chart. A materialized
view copies the few values the dashboard filters on into this table as spans are inserted (by our
receiver, the direct exporter or a stock Collector alike), so the charts read a few bytes per span.
An exporter's retried batch lands here twice too; readers count ``uniqExact(TraceId, SpanId)``.
"""

from __future__ import annotations

from sumwatch.tracer import semconv
from sumwatch.tracer.otel_traces import TRACES_TABLE

from .connection import quote_ident
from .ddl import Table, Target

SPAN_FACTS_TABLE = "sumwatch_span_facts"
SPAN_FACTS_VIEW = "sumwatch_span_facts_mv"


def _create(t: Target) -> str:
    return f"""CREATE TABLE IF NOT EXISTS {t.name(SPAN_FACTS_TABLE)}{t.on_cluster} (
    Timestamp DateTime64(9) CODEC(Delta(8), ZSTD(1)),
    TraceId String CODEC(ZSTD(1)),
    SpanId String CODEC(ZSTD(1)),
    ServiceName LowCardinality(String),
    Model LowCardinality(String),
    PromptVersion LowCardinality(String)
) ENGINE = {t.engine("ReplacingMergeTree")}
PARTITION BY toYYYYMM(Timestamp)
ORDER BY (toStartOfHour(Timestamp), ServiceName, TraceId, SpanId)"""


SPAN_FACTS = Table(SPAN_FACTS_TABLE, "cityHash64(TraceId)", _create)

_A = "SpanAttributes"
_SELECT = f"""SELECT Timestamp, TraceId, SpanId, ServiceName,
    if({_A}['{semconv.GEN_AI_REQUEST_MODEL}'] != '', {_A}['{semconv.GEN_AI_REQUEST_MODEL}'],
       {_A}['{semconv.GEN_AI_RESPONSE_MODEL}']) AS Model,
    {_A}['{semconv.PROMPT_VERSION}'] AS PromptVersion"""
_WHERE = f"WHERE {_A}['{semconv.TASK}'] = '{semconv.TASK_SUMMARIZATION}'"


def facts_view_ddl(t: Target) -> list[str]:
    """The view filling the table from each insert into otel_traces (the local tables on a cluster, which
    share the sharding key), then a backfill of the spans stored before it existed. The backfill goes
    through the canonical names, so on a cluster it reads every shard and writes through the Distributed
    front; a span inserted while it runs is stored twice, which readers already allow for."""
    db = quote_ident(t.database)
    view = (f"CREATE MATERIALIZED VIEW IF NOT EXISTS {db}.{quote_ident(t.local(SPAN_FACTS_VIEW))}{t.on_cluster}\n"
            f"TO {t.name(SPAN_FACTS_TABLE)}\nAS {_SELECT}\nFROM {t.name(TRACES_TABLE)}\n{_WHERE}")
    backfill = (f"INSERT INTO {db}.{quote_ident(SPAN_FACTS_TABLE)}\n{_SELECT}\n"
                f"FROM {db}.{quote_ident(TRACES_TABLE)}\n{_WHERE}")
    return [view, backfill]


FILTER_OPTIONS_PROJECTION = "filter_options"


def filter_options_ddl(t: Target) -> list[str]:
    """An aggregate projection of the facts holding each (service, model, prompt version) once, so the
    filter choices every page shows read a few rows per part instead of every span's (over 1M spans
    100-400 ms on two shared cores, a few ms with it); built for the parts already stored too. Merges of
    the ReplacingMergeTree rebuild it, which it must allow for a projection at all."""
    table = f"ALTER TABLE {t.name(SPAN_FACTS_TABLE)}{t.on_cluster}"
    return [f"{table} MODIFY SETTING deduplicate_merge_projection_mode = 'rebuild'",
            f"{table} ADD PROJECTION IF NOT EXISTS {FILTER_OPTIONS_PROJECTION} "
            "(SELECT ServiceName, Model, PromptVersion GROUP BY ServiceName, Model, PromptVersion)",
            f"{table} MATERIALIZE PROJECTION {FILTER_OPTIONS_PROJECTION} SETTINGS mutations_sync = 1"]

"""DDL for the tables sumwatch owns or shares, for one node or for a cluster.

``otel_traces`` is exactly the table the OpenTelemetry Collector's ClickHouse exporter creates, so a
stock Collector can write into it. With a cluster name, every table becomes a ``<name>_local``
Replicated table created ON CLUSTER, fronted by a Distributed table under the canonical name, which
is what readers and writers use.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from sumwatch.tracer.otel_traces import TRACE_ID_TS_TABLE, TRACE_ID_TS_VIEW, TRACES_TABLE

from .connection import quote_ident

MIGRATIONS_TABLE = "sumwatch_migrations"
LOCAL_SUFFIX = "_local"


@dataclass(frozen=True)
class Target:
    """Where DDL goes: the database and, optionally, the cluster."""

    database: str
    cluster: Optional[str] = None

    def name(self, table: str) -> str:
        """Fully qualified name of the table that stores rows (the local one on a cluster)."""
        return f"{quote_ident(self.database)}.{quote_ident(self.local(table))}"

    def local(self, table: str) -> str:
        return table + LOCAL_SUFFIX if self.cluster else table

    @property
    def on_cluster(self) -> str:
        return f" ON CLUSTER {quote_ident(self.cluster)}" if self.cluster else ""

    def engine(self, family: str, args: str = "") -> str:
        """``MergeTree`` / ``ReplacingMergeTree(v)`` here, their Replicated form on a cluster."""
        if not self.cluster:
            return f"{family}({args})"
        path = "'/clickhouse/tables/{shard}/{database}/{table}', '{replica}'"
        return f"Replicated{family}({path}{', ' + args if args else ''})"

    def distributed(self, table: str, sharding_key: str) -> list[str]:
        """The Distributed front table on a cluster; nothing on one node."""
        if not self.cluster:
            return []
        db = quote_ident(self.database)
        return [
            f"CREATE TABLE IF NOT EXISTS {db}.{quote_ident(table)}{self.on_cluster} "
            f"AS {self.name(table)} "
            f"ENGINE = Distributed({quote_ident(self.cluster)}, {db}, {quote_ident(self.local(table))}, {sharding_key})"
        ]


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


def migrations_table_ddl(t: Target) -> list[str]:
    return [f"""CREATE TABLE IF NOT EXISTS {t.name(MIGRATIONS_TABLE)}{t.on_cluster} (
    version UInt32,
    name String,
    checksum String,
    applied_at DateTime64(3) DEFAULT now64(3)
) ENGINE = {t.engine("ReplacingMergeTree", "applied_at")}
ORDER BY version"""] + t.distributed(MIGRATIONS_TABLE, "version")


SCORES_TABLE = "sumwatch_scores"
WATERMARKS_TABLE = "sumwatch_watermarks"
CORPUS_TABLE = "sumwatch_corpus"
BASELINES_TABLE = "sumwatch_calibration_baselines"


def scoring_ddl(t: Target) -> list[str]:
    """Scores (one row per trace, span, rubric and judge version), job watermarks, calibration corpora
    and calibration baselines. ReplacingMergeTree on the natural key: a rerun replaces, never adds."""
    scores = f"""CREATE TABLE IF NOT EXISTS {t.name(SCORES_TABLE)}{t.on_cluster} (
    TraceId String CODEC(ZSTD(1)),
    SpanId String CODEC(ZSTD(1)),
    Rubric LowCardinality(String),
    JudgeVersion LowCardinality(String),
    SpanTimestamp DateTime64(9) CODEC(Delta(8), ZSTD(1)),
    ScoredAt DateTime64(6) CODEC(Delta(8), ZSTD(1)),
    ServiceName LowCardinality(String),
    Verdict LowCardinality(String),
    Score Float32,
    Passed UInt8,
    FailureMode LowCardinality(String),
    Tier LowCardinality(String),
    Evidence String CODEC(ZSTD(1)),
    Explanation String CODEC(ZSTD(1)),
    Model LowCardinality(String),
    InputTokens UInt32,
    OutputTokens UInt32,
    CostUsd Float64,
    LatencyMs Float32,
    Error String CODEC(ZSTD(1)),
    Details String CODEC(ZSTD(3)),
    INDEX idx_verdict Verdict TYPE set(32) GRANULARITY 4,
    INDEX idx_scored ScoredAt TYPE minmax GRANULARITY 1
) ENGINE = {t.engine("ReplacingMergeTree", "ScoredAt")}
PARTITION BY toYYYYMM(SpanTimestamp)
ORDER BY (TraceId, SpanId, Rubric, JudgeVersion)"""

    watermarks = f"""CREATE TABLE IF NOT EXISTS {t.name(WATERMARKS_TABLE)}{t.on_cluster} (
    Name String,
    Position DateTime64(9),
    Processed UInt64,
    UpdatedAt DateTime64(6)
) ENGINE = {t.engine("ReplacingMergeTree", "UpdatedAt")}
ORDER BY Name"""

    corpus = f"""CREATE TABLE IF NOT EXISTS {t.name(CORPUS_TABLE)}{t.on_cluster} (
    ItemId String,
    Rubric LowCardinality(String),
    Source String CODEC(ZSTD(3)),
    Summary String CODEC(ZSTD(3)),
    Claim String CODEC(ZSTD(1)),
    HumanVerdict LowCardinality(String),
    ProposedVerdict LowCardinality(String),
    Bucket LowCardinality(String),
    Origin LowCardinality(String),
    Status LowCardinality(String),
    Band LowCardinality(String),
    ExpectedFacts Array(String),
    TraceId String,
    Note String,
    UpdatedAt DateTime64(6)
) ENGINE = {t.engine("ReplacingMergeTree", "UpdatedAt")}
ORDER BY (Rubric, ItemId)"""

    baselines = f"""CREATE TABLE IF NOT EXISTS {t.name(BASELINES_TABLE)}{t.on_cluster} (
    Rubric LowCardinality(String),
    JudgeVersion String,
    Kappa Float64,
    BucketKappas Map(String, Float64),
    Items UInt32,
    CorpusHash String,
    RecordedAt DateTime64(6)
) ENGINE = {t.engine("ReplacingMergeTree", "RecordedAt")}
ORDER BY (Rubric, JudgeVersion)"""

    return ([scores, watermarks, corpus, baselines]
            + t.distributed(SCORES_TABLE, "cityHash64(TraceId)")
            + t.distributed(WATERMARKS_TABLE, "cityHash64(Name)")
            + t.distributed(CORPUS_TABLE, "cityHash64(ItemId)")
            + t.distributed(BASELINES_TABLE, "cityHash64(Rubric)"))


EMBEDDINGS_TABLE = "sumwatch_embeddings"
CLUSTER_RUNS_TABLE = "sumwatch_cluster_runs"
ISSUES_TABLE = "sumwatch_issues"
ISSUE_MEMBERS_TABLE = "sumwatch_issue_members"


def clustering_ddl(t: Target) -> list[str]:
    """Failure-text embeddings (computed once per text and model), clustering runs, the state of every issue
    as of each run, and the members of each issue in each run.

    A run writes its issue and member rows first and its ``sumwatch_cluster_runs`` row last; readers only
    look at runs that have that row, so a run killed half way leaves nothing anyone sees."""
    embeddings = f"""CREATE TABLE IF NOT EXISTS {t.name(EMBEDDINGS_TABLE)}{t.on_cluster} (
    Model LowCardinality(String),
    TextHash String,
    Vector Array(Float32) CODEC(ZSTD(1)),
    CreatedAt DateTime64(6)
) ENGINE = {t.engine("ReplacingMergeTree", "CreatedAt")}
ORDER BY (Model, TextHash)"""

    runs = f"""CREATE TABLE IF NOT EXISTS {t.name(CLUSTER_RUNS_TABLE)}{t.on_cluster} (
    RunId String,
    StartedAt DateTime64(6),
    FinishedAt DateTime64(6),
    WindowStart DateTime64(9),
    WindowEnd DateTime64(9),
    Failures UInt32,
    Clustered UInt32,
    Noise UInt32,
    Issues UInt32,
    NewIssues UInt32,
    Embedded UInt32,
    Promoted UInt32,
    Namer LowCardinality(String),
    EmbeddingModel LowCardinality(String),
    Seconds Float32
) ENGINE = {t.engine("ReplacingMergeTree", "FinishedAt")}
ORDER BY RunId"""

    issues = f"""CREATE TABLE IF NOT EXISTS {t.name(ISSUES_TABLE)}{t.on_cluster} (
    Number UInt32,
    RunId String,
    RunAt DateTime64(6),
    IssueId String,
    Title String,
    Description String,
    RootCause String,
    Fix String,
    Severity LowCardinality(String),
    Rubric LowCardinality(String),
    FailureMode LowCardinality(String),
    Keywords Array(String),
    Status LowCardinality(String),
    Members UInt32,
    Traces UInt32,
    Share Float32,
    MissedRuns UInt32,
    FirstSeen DateTime64(6),
    LastSeen DateTime64(6),
    Centroid Array(Float32) CODEC(ZSTD(1)),
    EmbeddingModel LowCardinality(String),
    Namer LowCardinality(String)
) ENGINE = {t.engine("ReplacingMergeTree", "RunAt")}
ORDER BY (Number, RunId)"""

    members = f"""CREATE TABLE IF NOT EXISTS {t.name(ISSUE_MEMBERS_TABLE)}{t.on_cluster} (
    RunId String,
    Number UInt32,
    TraceId String,
    SpanId String,
    SpanTimestamp DateTime64(9),
    ServiceName LowCardinality(String),
    Rubric LowCardinality(String),
    Verdict LowCardinality(String),
    FailureMode LowCardinality(String),
    Membership Float32,
    Role LowCardinality(String),
    Evidence String CODEC(ZSTD(1)),
    FailureText String CODEC(ZSTD(1)),
    RunAt DateTime64(6)
) ENGINE = {t.engine("ReplacingMergeTree", "RunAt")}
ORDER BY (RunId, Number, TraceId, SpanId)"""

    return ([embeddings, runs, issues, members]
            + t.distributed(EMBEDDINGS_TABLE, "cityHash64(TextHash)")
            + t.distributed(CLUSTER_RUNS_TABLE, "cityHash64(RunId)")
            + t.distributed(ISSUES_TABLE, "Number")
            + t.distributed(ISSUE_MEMBERS_TABLE, "cityHash64(RunId)"))

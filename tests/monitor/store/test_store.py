"""The store: Collector-compatible schema, migrations, cluster DDL, the embedded-directory lock."""

import subprocess
import sys
import textwrap

import pytest
from hang_guard import HANG_GUARD_S

from sumwatch.monitor.store.connection import Store
from sumwatch.monitor.store.ddl import Target
from sumwatch.monitor.store.migrations import MIGRATIONS, MigrationError, migrate, pending
from sumwatch.monitor.store.traces import otel_traces_ddl
from sumwatch.tracer.otel_traces import COLUMNS

# The OpenTelemetry Collector ClickHouse exporter's otel_traces, as the engine reports it:
# (name, type, codec, default kind).
COLLECTOR_COLUMNS = [
    ("Timestamp", "DateTime64(9)", "CODEC(Delta(8), ZSTD(1))", ""),
    ("TraceId", "String", "CODEC(ZSTD(1))", ""),
    ("SpanId", "String", "CODEC(ZSTD(1))", ""),
    ("ParentSpanId", "String", "CODEC(ZSTD(1))", ""),
    ("TraceState", "String", "CODEC(ZSTD(1))", ""),
    ("SpanName", "LowCardinality(String)", "CODEC(ZSTD(1))", ""),
    ("SpanKind", "LowCardinality(String)", "CODEC(ZSTD(1))", ""),
    ("ServiceName", "LowCardinality(String)", "CODEC(ZSTD(1))", ""),
    ("ResourceAttributes", "Map(LowCardinality(String), String)", "CODEC(ZSTD(1))", ""),
    ("ScopeName", "String", "CODEC(ZSTD(1))", ""),
    ("ScopeVersion", "String", "CODEC(ZSTD(1))", ""),
    ("SpanAttributes", "Map(LowCardinality(String), String)", "CODEC(ZSTD(1))", ""),
    ("Duration", "UInt64", "CODEC(T64, ZSTD(1))", ""),
    ("StatusCode", "LowCardinality(String)", "CODEC(ZSTD(1))", ""),
    ("StatusMessage", "String", "CODEC(ZSTD(1))", ""),
    ("Events.Timestamp", "Array(DateTime64(9))", "CODEC(ZSTD(1))", ""),
    ("Events.Name", "Array(LowCardinality(String))", "CODEC(ZSTD(1))", ""),
    ("Events.Attributes", "Array(Map(LowCardinality(String), String))", "CODEC(ZSTD(1))", ""),
    ("Links.TraceId", "Array(String)", "CODEC(ZSTD(1))", ""),
    ("Links.SpanId", "Array(String)", "CODEC(ZSTD(1))", ""),
    ("Links.TraceState", "Array(String)", "CODEC(ZSTD(1))", ""),
    ("Links.Attributes", "Array(Map(LowCardinality(String), String))", "CODEC(ZSTD(1))", ""),
    ("ResourceAttributeItems", "Array(String)", "", "ALIAS"),
    ("SpanAttributeItems", "Array(String)", "", "ALIAS"),
]
COLLECTOR_INDEXES = [
    ("idx_trace_id", "bloom_filter(0.001)", "TraceId", 1),
    ("idx_res_attr_key", "bloom_filter(0.01)", "mapKeys(ResourceAttributes)", 1),
    ("idx_res_attr_value", "bloom_filter(0.01)", "mapValues(ResourceAttributes)", 1),
    ("idx_span_attr_key", "bloom_filter(0.01)", "mapKeys(SpanAttributes)", 1),
    ("idx_span_attr_value", "bloom_filter(0.01)", "mapValues(SpanAttributes)", 1),
    ("idx_duration", "minmax", "Duration", 1),
    ("idx_lower_span_name", "tokenbf_v1(32768, 3, 0)", "lower(SpanName)", 8),
]


def test_otel_traces_matches_the_collector_schema_column_by_column(store):
    got = store.query_rows(
        "SELECT name, type, compression_codec, default_kind FROM system.columns "
        "WHERE database = currentDatabase() AND table = 'otel_traces' ORDER BY position")
    # the Collector's columns, then sumwatch's one addition: when each span arrived (migration 19), filled by
    # its default, so the Collector's exporter writes the same columns as before
    assert len(got) == len(COLLECTOR_COLUMNS) + 1
    for expected, actual in zip(COLLECTOR_COLUMNS, got):
        assert tuple(actual) == expected
    assert tuple(got[-1]) == ("InsertedAt", "DateTime64(3)", "CODEC(Delta(8), ZSTD(1))", "DEFAULT")
    insertable = [name for name, _, _, kind in COLLECTOR_COLUMNS if kind == ""]
    assert list(COLUMNS) == insertable and len(COLUMNS) == 22


def test_otel_traces_keys_partitioning_and_indexes(store):
    (engine, partition, sorting, primary), = store.query_rows(
        "SELECT engine, partition_key, sorting_key, primary_key FROM system.tables "
        "WHERE database = currentDatabase() AND name = 'otel_traces'")
    assert engine == "MergeTree"
    assert partition == "toDate(Timestamp)"
    assert sorting == "ServiceName, SpanName, toDateTime(Timestamp), Timestamp"
    assert primary == "ServiceName, SpanName, toDateTime(Timestamp)"
    indexes = store.query_rows(
        "SELECT name, type_full, expr, granularity FROM system.data_skipping_indices "
        "WHERE database = currentDatabase() AND table = 'otel_traces'")
    assert sorted(map(tuple, indexes)) == sorted(COLLECTOR_INDEXES)


def test_trace_id_time_table_is_filled_by_its_view(store):
    store.insert("otel_traces", [
        (1_700_000_000_000_000_000, "a" * 32, "b" * 16, "", "", "summarize", "Internal", "svc", {}, "", "", {},
         5, "Unset", "", [], [], [], [], [], [], []),
        (1_700_000_100_000_000_000, "a" * 32, "c" * 16, "b" * 16, "", "llm", "Client", "svc", {}, "", "", {},
         5, "Unset", "", [], [], [], [], [], [], []),
    ], COLUMNS)
    cols = store.query_rows("SELECT name, type FROM system.columns WHERE database = currentDatabase() "
                            "AND table = 'otel_traces_trace_id_ts' ORDER BY position")
    assert cols == [("TraceId", "String"), ("Start", "SimpleAggregateFunction(min, DateTime)"),
                    ("End", "SimpleAggregateFunction(max, DateTime)")]
    (start, end), = store.query_rows(
        "SELECT toUnixTimestamp(min(Start)), toUnixTimestamp(max(End)) FROM otel_traces_trace_id_ts "
        "WHERE TraceId = {t:String}", {"t": "a" * 32})
    assert (start, end) == (1_700_000_000, 1_700_000_100)


def test_migrations_are_recorded_and_running_twice_changes_nothing(store):
    assert migrate(store) == []  # the fixture already migrated
    assert pending(store) == []
    recorded = store.query_rows("SELECT version, name FROM sumwatch_migrations FINAL ORDER BY version")
    assert [v for v, _ in recorded] == [m.version for m in MIGRATIONS]
    tables = {r[0] for r in store.query_rows("SHOW TABLES")}
    assert {"otel_traces", "otel_traces_trace_id_ts", "otel_traces_trace_id_ts_mv", "sumwatch_migrations"} <= tables


def test_a_changed_migration_is_refused(store):
    store.insert("sumwatch_migrations", [(1, "otel_traces", "0000000000000000")], ["version", "name", "checksum"])
    with pytest.raises(MigrationError, match="migration 1 .* checksum"):
        migrate(store)


def test_cluster_ddl_uses_on_cluster_replicated_engines_and_distributed_tables():
    statements = otel_traces_ddl(Target("otel", "prod"))
    local = statements[0]
    assert local.startswith("CREATE TABLE IF NOT EXISTS `otel`.`otel_traces_local` ON CLUSTER `prod`")
    assert "ENGINE = ReplicatedMergeTree('/clickhouse/tables/{shard}/{database}/{table}', '{replica}')" in local
    assert "ORDER BY (ServiceName, SpanName, toDateTime(Timestamp), Timestamp)" in local
    assert all(" ON CLUSTER `prod`" in s for s in statements)
    view = next(s for s in statements if "MATERIALIZED VIEW" in s)
    assert "TO `otel`.`otel_traces_trace_id_ts_local`" in view and "FROM `otel`.`otel_traces_local`" in view
    distributed = [s for s in statements if "ENGINE = Distributed" in s]
    assert [d.split("`")[3] for d in distributed] == ["otel_traces", "otel_traces_trace_id_ts"]
    assert "Distributed(`prod`, `otel`, `otel_traces_local`, cityHash64(TraceId))" in distributed[0]
    # one node: plain engines, no cluster clause, no Distributed table
    single = otel_traces_ddl(Target("otel"))
    assert not any("ON CLUSTER" in s or "Replicated" in s or "Distributed" in s for s in single)


@pytest.mark.integration
def test_second_process_gets_a_plain_busy_error(settings, store):
    code = textwrap.dedent(f"""
        from pathlib import Path
        from sumwatch.monitor.settings import Settings
        from sumwatch.monitor.store.connection import Store, StoreBusyError
        try:
            Store.open(Settings.from_env(env={{}}, home=Path({str(settings.store.home)!r})))
        except StoreBusyError as exc:
            print("BUSY", exc)
        else:
            print("OPENED")
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=HANG_GUARD_S)
    assert out.stdout.startswith("BUSY"), out.stdout + out.stderr
    assert "is in use by process" in out.stdout and str(settings.embedded_path) in out.stdout


def test_same_process_shares_the_engine(settings, store):
    with Store.open(settings) as second:
        assert second.query_rows("SELECT count() FROM otel_traces") == [(0,)]
    # closing the second handle must not release the first one's lock
    assert store.query_rows("SELECT 1") == [(1,)]


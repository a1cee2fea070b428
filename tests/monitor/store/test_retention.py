"""Retention: SUMWATCH_RETENTION_DAYS becomes a TTL on spans and what is derived from them, set by migrate."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from sumwatch.monitor.store.ddl import Target
from sumwatch.monitor.store.migrations import MIGRATIONS, migrate
from sumwatch.monitor.store.retention import RETAINED, apply_retention, current_ttls


def _create(store, table: str) -> str:
    return store.query_rows(f"SHOW CREATE TABLE `{store.database}`.`{table}`")[0][0]


def test_without_a_setting_nothing_expires(store):
    assert store.settings.store.retention_days == 0
    assert all(ttl is None for ttl in current_ttls(store, Target(store.database)).values())
    assert "TTL" not in _create(store, "otel_traces").split("ENGINE")[1]


def test_migrate_sets_the_ttl_shown_by_show_create_table_and_changes_it_only_when_it_differs(store):
    store.settings = store.settings.with_(retention_days=30)
    assert migrate(store) == []  # no version pending: the TTL is not a migration
    for table, column in (("otel_traces", "toDateTime(Timestamp)"), ("sumwatch_scores", "toDateTime(SpanTimestamp)"),
                          ("otel_traces_trace_id_ts", "toDateTime(Start)")):
        assert f"TTL {column} + toIntervalDay(30)" in _create(store, table)
    assert "TTL" not in _create(store, "sumwatch_corpus")  # calibration corpora are never expired
    assert apply_retention(store) == []  # same value: no ALTER
    assert set(apply_retention(store, 7)) >= {"otel_traces", "sumwatch_scores", "sumwatch_issue_members"}
    assert "toIntervalDay(7)" in _create(store, "otel_traces")
    assert "otel_traces" in apply_retention(store, 0)
    assert "TTL" not in _create(store, "otel_traces").split("ENGINE")[1]


def test_expired_spans_are_dropped_by_the_ttl(store):
    old = datetime.now(timezone.utc) - timedelta(days=40)
    new = datetime.now(timezone.utc) - timedelta(days=1)
    for when, trace in ((old, "a" * 32), (new, "b" * 32)):
        store.command(f"INSERT INTO otel_traces (Timestamp, TraceId, SpanId, SpanName) VALUES "
                      f"('{when:%Y-%m-%d %H:%M:%S}', '{trace}', '{'1' * 16}', 'summarize')")
    apply_retention(store, 30)
    store.command("OPTIMIZE TABLE otel_traces FINAL")
    assert store.query_rows("SELECT TraceId FROM otel_traces") == [("b" * 32,)]


def test_migration_6_is_pinned_and_the_retained_tables_exist_in_the_schema(store):
    m6 = next(m for m in MIGRATIONS if m.version == 6)
    assert not any("toIntervalDay" in sql for sql in m6.statements(Target("db")))  # its checksum never varies
    assert "ttl_only_drop_parts = 1" in _create(store, "sumwatch_scores")
    existing = {r[0] for r in store.query_rows("SHOW TABLES")}
    assert {t for t in RETAINED if not t.endswith(("_facts", "_projections"))} <= existing

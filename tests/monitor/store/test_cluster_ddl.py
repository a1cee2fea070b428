"""The ON CLUSTER form of every migration (those added later included): Replicated engines, Distributed fronts."""

from __future__ import annotations

import re

import pytest

from sumwatch.monitor.store.ddl import Target
from sumwatch.monitor.store.migrations import MIGRATIONS

CLUSTERED = Target("otel", "prod")


@pytest.mark.parametrize("migration", MIGRATIONS, ids=lambda m: f"v{m.version}")
def test_each_statement_of_the_cluster_form_goes_on_cluster_to_replicated_local_tables(migration):
    statements = migration.statements(CLUSTERED)
    assert statements == migration.statements(CLUSTERED)  # the same every time: replicas agree
    fronts = {m[1] for sql in statements
              for m in [re.search(r"CREATE TABLE IF NOT EXISTS `otel`\.`(\w+)` ON CLUSTER `prod` AS ", sql)] if m}
    for sql in statements:
        if sql.startswith(("CREATE", "ALTER")):
            assert " ON CLUSTER `prod`" in sql, sql[:120]
            assert "IF NOT EXISTS" in sql or sql.startswith("ALTER"), sql[:120]
        if "MergeTree" in sql:
            engine = re.search(r"ENGINE = (\w+)\(", sql)[1]
            assert engine.startswith("Replicated"), sql[:120]
            assert "'/clickhouse/tables/{shard}/{database}/{table}', '{replica}'" in sql
            created = re.search(r"`otel`\.`(\w+)`", sql)[1]
            assert created.endswith("_local") and created.removesuffix("_local") in fronts, created
        if "Distributed(" in sql:
            assert "Distributed(`prod`, `otel`, `" in sql and "_local`, " in sql
        if sql.startswith("ALTER"):
            # a new column goes to the local tables, and to the Distributed front that reads them
            altered = re.match(r"ALTER TABLE `otel`\.`(\w+)` ON CLUSTER `prod` (.*)", sql)
            assert altered, sql
            if not altered[1].endswith("_local"):
                assert f"ALTER TABLE `otel`.`{altered[1]}_local` ON CLUSTER `prod` {altered[2]}" in statements, sql
        if sql.startswith("INSERT"):  # a backfill goes through the Distributed fronts
            assert "_local" not in sql


def test_single_node_form_has_no_cluster_parts():
    for m in MIGRATIONS:
        text = "\n".join(m.statements(Target("otel")))
        assert "ON CLUSTER" not in text and "Replicated" not in text and "Distributed" not in text
        assert "_local" not in text

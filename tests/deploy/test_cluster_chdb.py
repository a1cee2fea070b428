"""sumwatch on the ON CLUSTER schema: migrate from two replicas at once, then the demo's whole loop (trace,
score, cluster, views, every Grafana panel) through real Distributed tables in chDB (tests/deploy/cluster_chdb.py).

What this does not cover: Keeper, replication between replicas, ON CLUSTER execution, and more than one shard.
Those need a ClickHouse server; the README says so.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hang_guard import HANG_GUARD_S

HARNESS = Path(__file__).with_name("cluster_chdb.py")
pytestmark = [pytest.mark.slow, pytest.mark.integration]


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> dict:
    out = tmp_path_factory.mktemp("cluster") / "out.json"
    proc = subprocess.run([sys.executable, str(HARNESS), str(out.parent / "data"), str(out), "--n", "120"],
                          capture_output=True, text=True, timeout=HANG_GUARD_S)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(out.read_text())


def test_the_cluster_has_a_local_replica_so_distributed_tables_are_real(run):
    assert run["clusters"] == [[1]]


def test_two_replicas_migrating_at_once_both_succeed_and_every_version_is_recorded(run):
    assert run["migrate_errors"] == []
    assert run["versions"] == run["expected_versions"] and run["again"] == []


def test_every_table_is_a_local_table_behind_a_distributed_one(run):
    tables = run["tables"]
    local = {n for n in tables if n.endswith("_local") and tables[n].endswith("MergeTree")}
    assert len(local) >= 12
    for name in local:
        assert tables[name.removesuffix("_local")] == "Distributed", name
    # rows replaced by a rerun: ReplacingMergeTree here, ReplicatedReplacingMergeTree on a server
    assert tables["sumwatch_scores_local"] == "ReplacingMergeTree"
    assert run["ttl_local"]  # retention goes on the table that holds the rows


def test_the_demo_loop_writes_and_reads_through_the_distributed_tables_only(run):
    assert run["stored"] == run["spans"] == run["local_rows"] == 120
    assert run["scored"] == 120 and run["traces_listed"] == 20 and run["scores_listed"] == 50
    assert run["failures"] > 0 and run["issues"] > 0
    assert [sql for _, sql in run["work"] if "_local" in sql] == []
    inserted = {table.split(".")[-1].strip("`") for kind, table in run["work"] if kind == "insert"}
    assert {"otel_traces", "sumwatch_scores", "sumwatch_issues", "sumwatch_cluster_runs"} <= inserted


def test_every_grafana_panel_returns_rows_from_the_demo_data(run):
    assert run["panels"] and all(rows > 0 for rows in run["panels"].values()), run["panels"]

"""sumwatch on its cluster DDL, in chDB: run as a subprocess by the tests (a fresh engine with a config).

    python tests/deploy/cluster_chdb.py DATA_DIR OUT.json [--n 120]

chDB loads a server config naming a cluster ``sw`` of one shard whose replica is this engine (its
``tcp_port`` matches the replica's port, so the Distributed engine reads and writes locally). Every
statement sumwatch sends goes through a client proxy that records it; DDL is rewritten for one node the
way a server without Keeper needs: ``ON CLUSTER`` dropped, ``Replicated*MergeTree(path, replica, ...)``
as ``*MergeTree(...)``. The Distributed tables stay as generated and are real: every row the demo writes
and every read (sampler, clustering job, views, the Grafana panels) goes through them.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import threading
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

CLUSTER = "sw"
CONFIG = f"""<clickhouse>
  <tcp_port>9000</tcp_port>
  <remote_servers><{CLUSTER}><shard><replica><host>localhost</host><port>9000</port></replica></shard></{CLUSTER}>
  </remote_servers>
  <macros><shard>01</shard><replica>r1</replica></macros>
</clickhouse>
"""
_REPLICATED = re.compile(r"Replicated(\w*MergeTree)\('/clickhouse/tables/\{shard\}/\{database\}/\{table\}', "
                         r"'\{replica\}'(?:, )?")


def single_node(sql: str) -> str:
    """A cluster statement as one node without Keeper runs it."""
    return _REPLICATED.sub(r"\1(", re.sub(r" ON CLUSTER (`[^`]+`|\w+)", "", sql))


class RecordingClient:
    """A clickhouse-connect client that records what it is sent and rewrites cluster DDL."""

    def __init__(self, client: Any, log: list[tuple[str, str]]) -> None:
        self._client, self._log = client, log

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)

    def __setattr__(self, name: str, value: Any) -> None:
        if name.startswith("_"):
            object.__setattr__(self, name, value)
        else:
            setattr(self._client, name, value)

    def command(self, cmd: str, *args: Any, **kwargs: Any) -> Any:
        self._log.append(("command", cmd))
        return self._client.command(single_node(cmd), *args, **kwargs)

    def query(self, sql: str, *args: Any, **kwargs: Any) -> Any:
        self._log.append(("query", sql))
        return self._client.query(sql, *args, **kwargs)

    def insert(self, table: str, *args: Any, **kwargs: Any) -> Any:
        self._log.append(("insert", table))
        return self._client.insert(table, *args, **kwargs)

    def raw_insert(self, table: str, *args: Any, **kwargs: Any) -> Any:
        self._log.append(("insert", table))
        return self._client.raw_insert(table, *args, **kwargs)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("data", type=Path)
    ap.add_argument("out", type=Path)
    ap.add_argument("--n", type=int, default=120)
    args = ap.parse_args()

    from clickhouse_connect.driver._chdbclient import ChdbClient
    from grafana_sql import expand, panel_queries

    from sumwatch.monitor.demo.run import run_demo, score_demo
    from sumwatch.monitor.issues.reads import issue_list
    from sumwatch.monitor.runtime import Runtime
    from sumwatch.monitor.settings import Settings
    from sumwatch.monitor.store.connection import Store
    from sumwatch.monitor.store.listing import list_traces
    from sumwatch.monitor.store.migrations import MIGRATIONS, applied_versions, migrate
    from sumwatch.monitor.store.scores import list_scores
    from sumwatch.monitor.store.traces import count_spans

    args.data.mkdir(parents=True, exist_ok=True)
    config = args.data / "config.xml"
    config.write_text(CONFIG)
    log: list[tuple[str, str]] = []
    settings = Settings.from_env(env={}, home=args.data, clickhouse_url=f"chdb://{args.data / 'engine'}",
                                 database="otel", cluster=CLUSTER, retention_days=30, cluster_namer="keywords")
    clients = [RecordingClient(ChdbClient(path=str(args.data / "engine"), chdb_options={"config-file": str(config)}),
                               log) for _ in range(2)]
    clients[0].command(f"CREATE DATABASE IF NOT EXISTS otel ON CLUSTER {CLUSTER}")
    for c in clients:
        c.database = "otel"
    clusters = clients[0].query("SELECT is_local FROM system.clusters WHERE cluster = {c:String}",
                                parameters={"c": CLUSTER}).result_rows

    # two replicas migrate at once
    stores = [Store(c, settings) for c in clients]
    applied: list[list[int]] = [[], []]
    errors: list[str] = []

    def run(i: int) -> None:
        try:
            applied[i] = migrate(stores[i])
        except Exception as exc:  # reported, and the test fails on it
            errors.append(repr(exc))

    threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    store = stores[0]
    result: dict[str, Any] = {
        "clusters": clusters, "migrate_errors": errors, "applied": applied,
        "versions": sorted(applied_versions(store)), "expected_versions": sorted(m.version for m in MIGRATIONS),
        "again": migrate(store),
        "tables": {name: engine for name, engine in store.query_rows(
            "SELECT name, engine FROM system.tables WHERE database = 'otel'")},
        "ttl_local": "toIntervalDay(30)" in store.query_rows("SHOW CREATE TABLE otel.otel_traces_local")[0][0],
    }
    log_start = len(log)
    demo = run_demo(store, n=args.n, service="checkout")
    runtime = Runtime.build(settings, store)  # one sentence model for the scoring and the clustering
    scoring = score_demo(store, runtime.cascade("off"), demo.run_id)
    report = runtime.cluster()
    now = datetime.now(timezone.utc)
    result.update({
        "stored": demo.stored, "spans": count_spans(store), "scored": scoring.scored,
        "traces_listed": len(list_traces(store, limit=20)), "scores_listed": len(list_scores(store, limit=50)),
        "failures": report.failures, "issues": len(issue_list(store).issues),
        "local_rows": clients[1]._client.query("SELECT count() FROM otel.otel_traces_local").result_rows[0][0],
        "panels": {title: len(store.query_rows(expand(sql, now - timedelta(hours=1), now + timedelta(minutes=5), 60)))
                   for title, sql in panel_queries()},
        "work": log[log_start:],
    })
    args.out.write_text(json.dumps(result, default=str))


if __name__ == "__main__":
    main()

"""Every Grafana panel's SQL, macros expanded as grafana-clickhouse-datasource expands them, on one node: the demo
traced and scored (rules tier) into chDB, and one clustering run's issue written through the store's own code.
The slow cluster test (test_cluster_chdb.py) runs the same panels after a real clustering run."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import numpy as np
import pytest
from grafana_sql import expand, panel_queries

from sumwatch.monitor.demo.run import run_demo, score_demo
from sumwatch.monitor.store.issues import IssueState, save_states
from sumwatch.monitor.store.runs import RunRow, save_run


@pytest.fixture
def demo_store(store, rules_cascade):
    demo = run_demo(store, n=40, service="checkout")
    score_demo(store, rules_cascade, demo.run_id)
    now = datetime.now(timezone.utc)
    save_states(store, [IssueState(1, "SW-1", "Numbers that differ from the source", "d", "rc", "fix", "high",
                                   "factuality", "numerically_wrong", ["revenue"], "new", 5, 5, 0.1, 0, now, now,
                                   np.zeros(4, dtype=np.float32))], "run-1", now)
    save_run(store, RunRow("run-1", now, now, now - timedelta(days=1), now, failures=5, clustered=5, noise=0,
                           issues=1, new_issues=1, embedded=0, promoted=0, namer="keywords",
                           embedding_model="all-MiniLM-L6-v2", seconds=1.0))
    return store


def test_every_panel_returns_rows(demo_store):
    now = datetime.now(timezone.utc)
    counts = {title: len(demo_store.query_rows(expand(sql, now - timedelta(hours=1), now + timedelta(minutes=5), 60)))
              for title, sql in panel_queries()}
    assert len(counts) >= 8 and all(counts.values()), counts


def test_the_time_range_filters(demo_store):
    past = datetime.now(timezone.utc) - timedelta(days=30)
    title, sql = panel_queries()[0]
    assert demo_store.query_rows(expand(sql, past - timedelta(hours=1), past, 60)) == []


def test_an_unknown_macro_is_not_silently_sent():
    with pytest.raises(ValueError, match="macro"):
        expand("SELECT $__timeGroup(Timestamp, '1m')", datetime.now(timezone.utc), datetime.now(timezone.utc), 60)


def test_rates_match_the_scores_counted_directly(demo_store):
    now = datetime.now(timezone.utc)
    panels = dict(panel_queries())

    def panel(title: str) -> list[tuple]:
        return demo_store.query_rows(expand(panels[title], now - timedelta(hours=1), now + timedelta(minutes=5), 60))

    direct = demo_store.query_rows(
        "SELECT ServiceName, Rubric, count(), round(avg(Passed), 3) FROM sumwatch_scores FINAL "
        "WHERE Error = '' GROUP BY ServiceName, Rubric ORDER BY ServiceName, Rubric")
    assert panel("Pass rate per service and rubric") == direct
    failing = demo_store.query_rows(
        "SELECT count(), round(avg(f), 3) FROM (SELECT TraceId, SpanId, max(NOT Passed) AS f "
        "FROM sumwatch_scores FINAL WHERE Error = '' GROUP BY TraceId, SpanId)")[0]
    assert [row[2:] for row in panel("Failing share by prompt version and model")] == [failing]
    assert [row[:2] for row in panel("Failing share by prompt version and model")] == [("demo-v1", "demo-summarizer-1")]

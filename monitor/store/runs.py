"""Clustering runs: ``sumwatch_cluster_runs``, one row per finished run, written last.

    latest_run(store)         # RunInfo of the last finished run, or None
    latest_run_id(store)      # its id

A run writes its issue and member rows first and this row last; readers only look at runs that have
it, so a run killed half way leaves nothing anyone sees.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from ..contract.issues import RunInfo
from .connection import Store, as_utc, quote_ident
from .ddl import Table, TableRow, Target

CLUSTER_RUNS_TABLE = "sumwatch_cluster_runs"
FINISHED_RUNS = f"SELECT RunId FROM {quote_ident(CLUSTER_RUNS_TABLE)} FINAL"  # a subquery: the runs readers see


def _create(t: Target) -> str:
    return f"""CREATE TABLE IF NOT EXISTS {t.name(CLUSTER_RUNS_TABLE)}{t.on_cluster} (
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


CLUSTER_RUNS = Table(CLUSTER_RUNS_TABLE, "cityHash64(RunId)", _create)


@dataclass(frozen=True)
class RunRow(TableRow):
    """A finished clustering run, as the job writes it last (see :func:`save_run`).

        save_run(store, RunRow("run-1", started, finished, start_ns, end_ns, failures=40, clustered=31, noise=9,
                               issues=3, new_issues=1, embedded=40, promoted=6, namer="KeywordNamer",
                               embedding_model="all-MiniLM-L6-v2", seconds=2.5))
    """

    run_id: str
    started_at: datetime
    finished_at: datetime
    window_start: datetime | int  # a datetime, or nanoseconds since the epoch: DateTime64(9) takes either
    window_end: datetime | int
    failures: int
    clustered: int
    noise: int
    issues: int
    new_issues: int
    embedded: int  # failure texts embedded in this run (the rest came from the store)
    promoted: int
    namer: str
    embedding_model: str
    seconds: float


RUN_COLUMNS = RunRow.columns()


def save_run(store: Store, run: RunRow) -> None:
    """Write the run's row: the last write of a run, after which readers see it."""
    store.insert(CLUSTER_RUNS_TABLE, [run.row()], RUN_COLUMNS)


def latest_run_id(store: Store) -> str | None:
    rows = store.query_rows(f"SELECT RunId FROM {quote_ident(CLUSTER_RUNS_TABLE)} FINAL "
                            f"ORDER BY FinishedAt DESC, RunId DESC LIMIT 1")
    return rows[0][0] if rows else None


def last_run_ids(store: Store, runs: int) -> list[str]:
    """The ids of the last ``runs`` finished runs, oldest first."""
    return [r for (r,) in store.query_rows(
        f"SELECT RunId FROM {quote_ident(CLUSTER_RUNS_TABLE)} FINAL ORDER BY FinishedAt DESC, RunId DESC "
        f"LIMIT {{n:UInt32}}", {"n": runs})][::-1]


def latest_run(store: Store) -> RunInfo | None:
    runs = list_runs(store, limit=1)
    return runs[0] if runs else None


def list_runs(store: Store, *, limit: int = 20, run_id: str | None = None) -> list[RunInfo]:
    """Finished clustering runs, newest first (or the one run ``run_id``)."""
    where = "RunId = {run:String}" if run_id is not None else "1"
    rows = store.query_rows(
        f"""SELECT RunId, FinishedAt, WindowStart, WindowEnd, Failures, Clustered, Noise, Issues, NewIssues,
               Promoted, Namer, Seconds
        FROM {quote_ident(CLUSTER_RUNS_TABLE)} FINAL WHERE {where}
        ORDER BY FinishedAt DESC, RunId DESC LIMIT {{limit:UInt32}}""", {"limit": limit, "run": run_id or ""})
    return [RunInfo(rid, as_utc(fin), as_utc(ws), as_utc(we), int(failures), int(clustered), int(noise),
                    int(issues), int(new), int(promoted), namer, round(float(seconds), 2))
            for rid, fin, ws, we, failures, clustered, noise, issues, new, promoted, namer, seconds in rows]

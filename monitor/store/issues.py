"""Issues as of each run: ``sumwatch_issues``, one row per (issue number, run).

    issue_states(store, run_id)          # every issue as that run left it
    issue_states(store, run_id, 3)       # just SW-3

Every run stores a snapshot of every known issue, so history and trends are plain reads.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any

import numpy as np

from .connection import Store, as_utc, quote_ident
from .ddl import Table, Target

ISSUES_TABLE = "sumwatch_issues"
ISSUE_COLUMNS = ("Number", "RunId", "RunAt", "IssueId", "Title", "Description", "RootCause", "Fix", "Severity",
                 "Rubric", "FailureMode", "Keywords", "Status", "Members", "Traces", "Share", "MissedRuns",
                 "FirstSeen", "LastSeen", "Centroid", "EmbeddingModel", "Namer")


def _create(t: Target) -> str:
    return f"""CREATE TABLE IF NOT EXISTS {t.name(ISSUES_TABLE)}{t.on_cluster} (
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


ISSUES = Table(ISSUES_TABLE, "Number", _create)


@dataclass
class IssueState:
    """An issue as of one run: what it is called, what to do, and how much of the window it covers."""

    number: int
    issue_id: str
    title: str
    description: str
    root_cause: str
    fix: str
    severity: str
    rubric: str
    failure_mode: str
    keywords: list[str]
    status: str
    members: int
    traces: int
    share: float
    missed_runs: int
    first_seen: datetime
    last_seen: datetime
    centroid: np.ndarray = field(repr=False)
    embedding_model: str = ""
    namer: str = ""

    def row(self, run_id: str, run_at: datetime) -> tuple[Any, ...]:
        return (self.number, run_id, run_at, self.issue_id, self.title, self.description, self.root_cause,
                self.fix, self.severity, self.rubric, self.failure_mode, list(self.keywords), self.status,
                self.members, self.traces, float(self.share), self.missed_runs, self.first_seen, self.last_seen,
                np.asarray(self.centroid, dtype=np.float32).tolist(), self.embedding_model, self.namer)

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data.pop("centroid")
        data["first_seen"] = self.first_seen.isoformat()
        data["last_seen"] = self.last_seen.isoformat()
        data["share"] = round(self.share, 4)
        return data


def save_states(store: Store, states: list[IssueState], run_id: str, run_at: datetime) -> None:
    store.insert(ISSUES_TABLE, [s.row(run_id, run_at) for s in states], ISSUE_COLUMNS)


def issue_states(store: Store, run_id: str, number: int | None = None) -> list[IssueState]:
    """Every issue (or issue ``number``) as the given run left it."""
    params: dict[str, Any] = {"run": run_id}
    only = ""
    if number is not None:
        params["n"], only = number, " AND Number = {n:UInt32}"
    rows = store.query_rows(
        f"SELECT {_STATE_COLUMNS} FROM {quote_ident(ISSUES_TABLE)} FINAL WHERE RunId = {{run:String}}{only} "
        f"ORDER BY Number", params)
    return _states(rows)


def last_states(store: Store, numbers: list[int], finished_runs: str) -> list[IssueState]:
    """Each of ``numbers`` as the last finished run that has a snapshot of it left it: an issue merged into
    another has none in the runs after the merge, and is read (and unmerged) from this one."""
    if not numbers:
        return []
    rows = store.query_rows(
        f"SELECT {_STATE_COLUMNS} FROM {quote_ident(ISSUES_TABLE)} FINAL WHERE Number IN {{ns:Array(UInt32)}} "
        f"AND RunId IN ({finished_runs}) ORDER BY Number, RunAt DESC, RunId DESC LIMIT 1 BY Number",
        {"ns": numbers})
    return _states(rows)


_STATE_COLUMNS = ("Number, IssueId, Title, Description, RootCause, Fix, Severity, Rubric, FailureMode, Keywords, "
                  "Status, Members, Traces, Share, MissedRuns, FirstSeen, LastSeen, Centroid, EmbeddingModel, Namer")


def _states(rows: Any) -> list[IssueState]:
    return [IssueState(int(n), iid, title, desc, cause, fix, sev, rubric, mode, list(kw), status, int(members),
                       int(traces), float(share), int(missed), as_utc(first), as_utc(last),
                       np.asarray(centroid, dtype=np.float32), model, namer)
            for (n, iid, title, desc, cause, fix, sev, rubric, mode, kw, status, members, traces, share, missed,
                 first, last, centroid, model, namer) in rows]


def member_counts(store: Store, run_ids: list[str], numbers: list[int]) -> dict[tuple[int, str], int]:
    """Members of each (issue number, run) among those asked for."""
    return {(n, r): int(m) for n, r, m in store.query_rows(
        f"SELECT Number, RunId, Members FROM {quote_ident(ISSUES_TABLE)} FINAL "
        f"WHERE RunId IN {{runs:Array(String)}} AND Number IN {{numbers:Array(UInt32)}}",
        {"runs": run_ids, "numbers": numbers})}


def issue_history(store: Store, number: int, finished_runs: str) -> list[dict[str, Any]]:
    """The issue in every finished run (``finished_runs`` is a subquery of run ids): run, time, members, status."""
    return [{"run_id": r, "run_at": as_utc(at).isoformat(), "members": int(m), "status": st}
            for r, at, m, st in store.query_rows(
                f"SELECT RunId, RunAt, Members, Status FROM {quote_ident(ISSUES_TABLE)} FINAL "
                f"WHERE Number = {{n:UInt32}} AND RunId IN ({finished_runs}) ORDER BY RunAt, RunId", {"n": number})]


def run_time(store: Store, run_id: str) -> datetime | None:
    """When the run's snapshots were taken (their ``RunAt``): triage after it is not in them yet."""
    rows = store.query_rows(f"SELECT max(RunAt), count() FROM {quote_ident(ISSUES_TABLE)} "
                            f"WHERE RunId = {{run:String}}", {"run": run_id})
    return as_utc(rows[0][0]) if rows and rows[0][1] else None


def regressed_at(store: Store, numbers: list[int], finished_runs: str) -> dict[int, datetime]:
    """The last finished run in which each of ``numbers`` was regressed (none: left out)."""
    if not numbers:
        return {}
    return {int(n): as_utc(at) for n, at in store.query_rows(
        f"SELECT Number, max(RunAt) FROM {quote_ident(ISSUES_TABLE)} FINAL WHERE Number IN {{numbers:Array(UInt32)}} "
        f"AND Status = 'regressed' AND Members > 0 AND RunId IN ({finished_runs}) GROUP BY Number",
        {"numbers": numbers})}


def last_centroids(store: Store, numbers: list[int], model: str) -> dict[int, np.ndarray]:
    """Each issue's centroid in its last snapshot made with embedding ``model``: a merged issue keeps matching
    through it after it stopped having snapshots of its own."""
    if not numbers:
        return {}
    return {int(n): np.asarray(c, dtype=np.float32) for n, c in store.query_rows(
        f"SELECT Number, argMax(Centroid, RunAt) FROM {quote_ident(ISSUES_TABLE)} FINAL "
        f"WHERE Number IN {{numbers:Array(UInt32)}} AND EmbeddingModel = {{model:String}} AND length(Centroid) > 0 "
        f"GROUP BY Number", {"numbers": numbers, "model": model})}


def known_numbers(store: Store, finished_runs: str) -> set[int]:
    """Every issue number some finished run has a snapshot of."""
    return {int(n) for (n,) in store.query_rows(
        f"SELECT DISTINCT Number FROM {quote_ident(ISSUES_TABLE)} WHERE RunId IN ({finished_runs})")}

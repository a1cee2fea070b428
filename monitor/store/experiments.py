"""``sumwatch_experiments`` and ``sumwatch_experiment_items``: a summarizer run on a pinned dataset version, and
what each item's call did.

    experiment = create_experiment(store, ExperimentRow.new("prompt-v3", "regressions-sw3", 2, "app:summarize"))
    record_item(store, ItemRow(experiment.experiment_id, "item-1", trace_id, span_id, latency_ms=812.0))
    done = finished_items(store, experiment.experiment_id)         # {"item-1"}: a resumed run skips these
    verdicts = item_verdicts(store, experiment.experiment_id)      # item -> rubric -> the standing verdict

An experiment's calls are ordinary spans in ``otel_traces`` carrying ``sumwatch.experiment.id`` and
``sumwatch.experiment.item``; the items table maps each item to its span (or to the error its call raised), so a
killed run resumes without calling finished items again, and the scores table holds their verdicts like any
span's. Both tables keep the latest row per key (ReplacingMergeTree on ``UpdatedAt``): an item run again replaces
its row.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from ..contract.experiments import EXPERIMENT_ATTR as EXPERIMENT_ATTR  # the span attributes, for readers here
from ..contract.experiments import ITEM_ATTR as ITEM_ATTR
from ..rubrics.verdicts import ERROR
from .connection import Store, as_utc, quote_ident
from .ddl import Table, TableRow, Target
from .scores import SCORES_TABLE, STRENGTH_SQL

EXPERIMENTS_TABLE = "sumwatch_experiments"
EXPERIMENT_ITEMS_TABLE = "sumwatch_experiment_items"
RUNNING, FINISHED = "running", "finished"
# a condition on a table with TraceId: not a trace an experiment made (the sampler and the clustering job leave an
# experiment's calls to the experiment: it judges them itself, and its failures are not production issues)
NOT_EXPERIMENT = f"TraceId NOT IN (SELECT TraceId FROM {quote_ident(EXPERIMENT_ITEMS_TABLE)})"


def _create_experiments(t: Target) -> str:
    return f"""CREATE TABLE IF NOT EXISTS {t.name(EXPERIMENTS_TABLE)}{t.on_cluster} (
    ExperimentId String,
    Name String,
    Dataset String,
    DatasetVersion UInt32,
    Task String,
    Items UInt32,
    Status LowCardinality(String),
    CreatedAt DateTime64(6),
    UpdatedAt DateTime64(6)
) ENGINE = {t.engine("ReplacingMergeTree", "UpdatedAt")}
ORDER BY ExperimentId"""


def _create_items(t: Target) -> str:
    return f"""CREATE TABLE IF NOT EXISTS {t.name(EXPERIMENT_ITEMS_TABLE)}{t.on_cluster} (
    ExperimentId String,
    ItemId String,
    TraceId String,
    SpanId String,
    Summary String CODEC(ZSTD(1)),
    Error String CODEC(ZSTD(1)),
    LatencyMs Float64,
    UpdatedAt DateTime64(6)
) ENGINE = {t.engine("ReplacingMergeTree", "UpdatedAt")}
ORDER BY (ExperimentId, ItemId)"""


EXPERIMENTS = Table(EXPERIMENTS_TABLE, "cityHash64(ExperimentId)", _create_experiments)
EXPERIMENT_ITEMS = Table(EXPERIMENT_ITEMS_TABLE, "cityHash64(ExperimentId)", _create_items)


def _now() -> datetime:
    return datetime.now(timezone.utc)


@dataclass(frozen=True)
class ExperimentRow(TableRow):
    experiment_id: str
    name: str
    dataset: str
    dataset_version: int
    task: str
    items: int
    status: str = RUNNING
    created_at: datetime = field(default_factory=_now)
    updated_at: datetime = field(default_factory=_now)

    @classmethod
    def new(cls, name: str, dataset: str, dataset_version: int, task: str, items: int) -> ExperimentRow:
        experiment_id = "exp-" + uuid.uuid4().hex[:10]
        return cls(experiment_id, name or experiment_id, dataset, dataset_version, task, items)


@dataclass(frozen=True)
class ItemRow(TableRow):
    """One item's call: its span, or the error the task raised (then no span, or one marked as an error)."""

    experiment_id: str
    item_id: str
    trace_id: str = ""
    span_id: str = ""
    summary: str = ""
    error: str = ""
    latency_ms: float = 0.0
    updated_at: datetime = field(default_factory=_now)


def save_experiment(store: Store, row: ExperimentRow) -> ExperimentRow:
    store.insert(EXPERIMENTS_TABLE, [row.row()], ExperimentRow.columns())
    return row


def _experiments(store: Store, where: str, params: dict[str, Any]) -> list[ExperimentRow]:
    cols = ", ".join(f"argMax({c}, UpdatedAt)" for c in ExperimentRow.columns()[1:-1])
    rows = store.query_rows(
        f"SELECT ExperimentId, {cols}, max(UpdatedAt) FROM {quote_ident(EXPERIMENTS_TABLE)} "
        f"GROUP BY ExperimentId HAVING {where} ORDER BY min(CreatedAt) DESC, ExperimentId", params)
    return [ExperimentRow(eid, name, dataset, int(version), task, int(items), status, as_utc(created),
                          as_utc(updated))
            for eid, name, dataset, version, task, items, status, created, updated in rows]


def list_experiments(store: Store, *, dataset: str | None = None) -> list[ExperimentRow]:
    """Every experiment, newest first (of one dataset when given)."""
    if dataset is None:
        return _experiments(store, "1", {})
    return _experiments(store, "argMax(Dataset, UpdatedAt) = {d:String}", {"d": dataset})


def find_experiment(store: Store, key: str) -> ExperimentRow | None:
    """The experiment with this id, or the newest one with this name."""
    found = _experiments(store, "ExperimentId = {k:String} OR argMax(Name, UpdatedAt) = {k:String}", {"k": key})
    by_id = [e for e in found if e.experiment_id == key]
    chosen = by_id or found
    return chosen[0] if chosen else None


def record_items(store: Store, rows: list[ItemRow]) -> None:
    if rows:
        store.insert(EXPERIMENT_ITEMS_TABLE, [r.row() for r in rows], ItemRow.columns())


def item_rows(store: Store, experiment_id: str) -> dict[str, ItemRow]:
    """Each recorded item's latest row, by item id."""
    cols = ", ".join(f"argMax({c}, UpdatedAt)" for c in ItemRow.columns()[2:-1])
    rows = store.query_rows(
        f"SELECT ItemId, {cols}, max(UpdatedAt) FROM {quote_ident(EXPERIMENT_ITEMS_TABLE)} "
        f"WHERE ExperimentId = {{e:String}} GROUP BY ItemId ORDER BY ItemId", {"e": experiment_id})
    return {item: ItemRow(experiment_id, item, tid, sid, summary, error, float(ms), as_utc(at))
            for item, tid, sid, summary, error, ms, at in rows}


def finished_items(store: Store, experiment_id: str) -> set[str]:
    """Items whose call finished (with a span or with the task's error): a resumed run does not call them."""
    return set(item_rows(store, experiment_id))


@dataclass(frozen=True)
class ItemVerdict:
    """The standing verdict of one item on one rubric: the strongest source's latest, as every view reads it."""

    verdict: str
    passed: bool
    score: float
    failure_mode: str
    evidence: str
    explanation: str
    tier: str
    judge_version: str
    input_tokens: int
    output_tokens: int
    cost_usd: float


def item_verdicts(store: Store, experiment_id: str) -> dict[str, dict[str, ItemVerdict]]:
    """item -> rubric -> its standing verdict (judge errors left out: an item a judge failed on is unjudged)."""
    rows = store.query_rows(
        f"""SELECT i.ItemId, s.Rubric,
               argMax((s.Verdict, s.Passed, s.Score, s.FailureMode, s.Evidence, s.Explanation, s.Tier, s.JudgeVersion,
                       s.InputTokens, s.OutputTokens, s.CostUsd), ({STRENGTH_SQL.replace('Tier', 's.Tier')},
                       s.ScoredAt))
            FROM (SELECT ItemId, argMax(TraceId, UpdatedAt) AS TraceId, argMax(SpanId, UpdatedAt) AS SpanId
                  FROM {quote_ident(EXPERIMENT_ITEMS_TABLE)} WHERE ExperimentId = {{e:String}} GROUP BY ItemId) AS i
            INNER JOIN (SELECT * FROM {quote_ident(SCORES_TABLE)} FINAL
                        WHERE TraceId IN (SELECT TraceId FROM {quote_ident(EXPERIMENT_ITEMS_TABLE)}
                                          WHERE ExperimentId = {{e:String}}) AND Verdict != {{err:String}}) AS s
                ON s.TraceId = i.TraceId AND s.SpanId = i.SpanId
            GROUP BY i.ItemId, s.Rubric""", {"e": experiment_id, "err": ERROR})
    out: dict[str, dict[str, ItemVerdict]] = {}
    for item, rubric, best in rows:
        verdict, passed, score, mode, evidence, explanation, tier, version, tin, tout, cost = best
        out.setdefault(item, {})[rubric] = ItemVerdict(verdict, bool(passed), float(score), mode, evidence,
                                                       explanation, tier, version, int(tin), int(tout), float(cost))
    return out

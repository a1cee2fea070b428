"""The cluster map: ``sumwatch_projections``, one 2D point per clustered failure and run.

    save_projection(store, run_id, run_at, points)       # written by the clustering job, before the run's row
    points = load_projection(store)                       # the latest finished run, at most 20,000 points
    points[0].x, points[0].y, points[0].issue_id          # issue_id is None for noise

Points are numbered within their run (``Seq``, the table's sort key after the run), so a map of a run
larger than the limit reads every k-th point straight from the index: an even subsample, not the first
ones.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any

from .connection import Store, quote_ident
from .ddl import Table, Target
from .runs import latest_run_id

PROJECTIONS_TABLE = "sumwatch_projections"
PROJECTION_COLUMNS = ("RunId", "Seq", "TraceId", "SpanId", "Rubric", "X", "Y", "IssueId", "Text", "RunAt")
TEXT_CHARS = 280  # failure text kept per point: what a hover shows


def _create(t: Target) -> str:
    return f"""CREATE TABLE IF NOT EXISTS {t.name(PROJECTIONS_TABLE)}{t.on_cluster} (
    RunId String,
    Seq UInt32,
    TraceId String CODEC(ZSTD(1)),
    SpanId String CODEC(ZSTD(1)),
    Rubric LowCardinality(String),
    X Float32,
    Y Float32,
    IssueId LowCardinality(String),
    Text String CODEC(ZSTD(3)),
    RunAt DateTime64(6)
) ENGINE = {t.engine("ReplacingMergeTree", "RunAt")}
ORDER BY (RunId, Seq)"""


PROJECTIONS = Table(PROJECTIONS_TABLE, "cityHash64(RunId)", _create)


@dataclass(frozen=True)
class ProjectionPoint:
    """One failure on the map; ``issue_id`` is None for a failure no cluster took (noise)."""

    trace_id: str
    span_id: str
    rubric: str
    x: float
    y: float
    issue_id: str | None
    text: str

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def save_projection(store: Store, run_id: str, run_at: datetime, points: Sequence[ProjectionPoint]) -> None:
    """Store a run's points in the given order (their ``Seq``); texts are cut to ``TEXT_CHARS``."""
    store.insert(PROJECTIONS_TABLE, [
        (run_id, i, p.trace_id, p.span_id, p.rubric, float(p.x), float(p.y), p.issue_id or "",
         p.text[:TEXT_CHARS], run_at) for i, p in enumerate(points)], PROJECTION_COLUMNS)


def projection_size(store: Store, run_id: str) -> int:
    return int(store.query_rows(
        f"SELECT uniqExact(Seq) FROM {quote_ident(PROJECTIONS_TABLE)} WHERE RunId = {{run:String}}",
        {"run": run_id})[0][0])


def load_projection(store: Store, run_id: str | None = None, limit: int = 20_000) -> list[ProjectionPoint]:
    """The points of ``run_id`` (default: the latest finished run), every k-th beyond ``limit``."""
    if limit < 1:
        raise ValueError(f"limit must be at least 1, got {limit}")
    run = run_id or latest_run_id(store)
    if run is None:
        return []
    size = projection_size(store, run)
    step = max(1, -(-size // limit))
    rows = store.query_rows(
        f"""SELECT TraceId, SpanId, Rubric, X, Y, IssueId, Text FROM {quote_ident(PROJECTIONS_TABLE)} FINAL
        WHERE RunId = {{run:String}} AND Seq % {{step:UInt32}} = 0 ORDER BY Seq LIMIT {{limit:UInt32}}""",
        {"run": run, "step": step, "limit": limit})
    return [ProjectionPoint(t, s, r, float(x), float(y), issue or None, text) for t, s, r, x, y, issue, text in rows]

"""Rubric scores attached to traces: ``sumwatch_scores``, one row per (trace, span, rubric, judge version).

    write_scores(store, [ScoredSpan(ref, results)], judge_version="cascade-1/...")
    list_scores(store, trace_id="5b8e...")        # newest judgement per key (FINAL)

The table is a ReplacingMergeTree on that key, and reads use FINAL, so scoring a span again with the
same judge replaces its row instead of adding one.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from typing import Any, Optional

from .rubrics.verdicts import RubricResult
from .store.connection import Store, equals_filter
from .store.schema import SCORES_TABLE

SCORE_COLUMNS = ("TraceId", "SpanId", "Rubric", "JudgeVersion", "SpanTimestamp", "ScoredAt", "ServiceName",
                 "Verdict", "Score", "Passed", "FailureMode", "Tier", "Evidence", "Explanation", "Model",
                 "InputTokens", "OutputTokens", "CostUsd", "LatencyMs", "Error", "Details")


@dataclass(frozen=True)
class SpanRef:
    """The span a score belongs to."""

    trace_id: str
    span_id: str
    timestamp_ns: int
    service: str = ""


@dataclass(frozen=True)
class ScoredSpan:
    ref: SpanRef
    results: dict[str, RubricResult]


@dataclass(frozen=True)
class ScoreRecord:
    trace_id: str
    span_id: str
    rubric: str
    judge_version: str
    verdict: str
    score: float
    passed: bool
    failure_mode: str
    tier: str
    evidence: str
    explanation: str
    model: str
    cost_usd: float
    latency_ms: float
    error: str
    service: str
    scored_at: str

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def score_rows(scored: Sequence[ScoredSpan], judge_version: str, scored_at: Optional[datetime] = None) -> list[tuple]:
    at = scored_at or datetime.now(timezone.utc)
    rows = []
    for item in scored:
        for rubric, r in item.results.items():
            rows.append((
                item.ref.trace_id, item.ref.span_id, rubric, judge_version,
                datetime.fromtimestamp(item.ref.timestamp_ns / 1e9, timezone.utc), at, item.ref.service,
                r.verdict, float(r.score), int(r.passed), r.failure_mode, r.tier, r.evidence, r.explanation,
                r.model, int(r.input_tokens), int(r.output_tokens), float(r.cost_usd), float(r.latency_ms), r.error,
                json.dumps(list(r.details), ensure_ascii=False, default=str),
            ))
    return rows


def write_scores(store: Store, scored: Sequence[ScoredSpan], judge_version: str) -> int:
    rows = score_rows(scored, judge_version)
    store.insert(SCORES_TABLE, rows, SCORE_COLUMNS)
    return len(rows)


def list_scores(store: Store, *, trace_id: Optional[str] = None, rubric: Optional[str] = None,
                judge_version: Optional[str] = None, failing_only: bool = False, limit: int = 100) -> list[ScoreRecord]:
    params: dict[str, Any] = {"limit": limit}
    where = equals_filter(params, TraceId=trace_id.strip().lower() if trace_id else None, Rubric=rubric,
                          JudgeVersion=judge_version) + (" AND Passed = 0" if failing_only else "")
    rows = store.query_rows(
        f"""SELECT TraceId, SpanId, Rubric, JudgeVersion, Verdict, Score, Passed, FailureMode, Tier, Evidence,
               Explanation, Model, CostUsd, LatencyMs, Error, ServiceName, toTimeZone(ScoredAt, 'UTC')
        FROM {SCORES_TABLE} FINAL WHERE {where}
        ORDER BY ScoredAt DESC, TraceId, Rubric LIMIT {{limit:UInt32}}""", params)
    return [ScoreRecord(tid, sid, rub, jv, verdict, round(float(score), 4), bool(passed), fm, tier, ev, ex, model,
                        float(cost), float(lat), err, svc, at.replace(tzinfo=timezone.utc).isoformat())
            for tid, sid, rub, jv, verdict, score, passed, fm, tier, ev, ex, model, cost, lat, err, svc, at in rows]

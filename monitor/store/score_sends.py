"""``sumwatch_score_sends``: which verdicts went back out to which score target, so each is sent once.

    todo = unsent_scores(store, "langfuse", since=datetime(...), failing_only=False, limit=500)
    save_sends(store, [SendRow("langfuse", v.trace_id, v.span_id, v.rubric, v.judge_version, v.span_ns, SENT)])

One row per (target, trace, span, rubric, judge version), the key of a verdict in ``sumwatch_scores``; the latest
state wins (ReplacingMergeTree on ``UpdatedAt``). A verdict with a ``sent`` row is never picked again; one whose
send ``failed`` is picked again on the next pass, whatever its age, with its attempts counted; one ``given_up``
(refused for itself, or failing too often) only when asked (``retry_given_up``). Rows expire with the scores they
describe (``retention.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from typing import Any

from ..rubrics.verdicts import ERROR
from .connection import Store, quote_ident
from .ddl import Table, Target
from .scores import SCORES_TABLE

SCORE_SENDS_TABLE = "sumwatch_score_sends"
SENT, FAILED, WAITING, GIVEN_UP = "sent", "failed", "waiting", "given_up"
# a waiting verdict's next try in the worker's passes: 1 minute after the first, doubling to at most 1 hour
WAIT_FIRST_S, WAIT_MOST_S = 60, 3600

COLUMNS = ("Target", "TraceId", "SpanId", "Rubric", "JudgeVersion", "SpanTimestamp", "Phase", "Error", "Attempts",
           "UpdatedAt")


def _create(t: Target) -> str:
    return f"""CREATE TABLE IF NOT EXISTS {t.name(SCORE_SENDS_TABLE)}{t.on_cluster} (
    Target LowCardinality(String),
    TraceId String CODEC(ZSTD(1)),
    SpanId String CODEC(ZSTD(1)),
    Rubric LowCardinality(String),
    JudgeVersion LowCardinality(String),
    SpanTimestamp DateTime64(9) CODEC(Delta(8), ZSTD(1)),
    Phase LowCardinality(String),
    Error String CODEC(ZSTD(1)),
    Attempts UInt32,
    UpdatedAt DateTime64(6)
) ENGINE = {t.engine("ReplacingMergeTree", "UpdatedAt")}
PARTITION BY toYYYYMM(SpanTimestamp)
ORDER BY (Target, TraceId, SpanId, Rubric, JudgeVersion)"""


# sharded by trace like the scores, so a shard's anti-join with its scores stays on that shard
SCORE_SENDS = Table(SCORE_SENDS_TABLE, "cityHash64(TraceId)", _create)


@dataclass(frozen=True)
class SendRow:
    """The latest state of one verdict's send to one target; ``error`` holds no secret (scrubbed)."""

    target: str
    trace_id: str
    span_id: str
    rubric: str
    judge_version: str
    span_ns: int
    phase: str  # sent | failed | waiting | given_up
    error: str = ""
    attempts: int = 1


@dataclass(frozen=True)
class Verdict:
    """One stored verdict as the score targets send it."""

    trace_id: str
    span_id: str
    rubric: str
    judge_version: str
    span_ns: int
    scored_ns: int
    verdict: str
    score: float
    passed: bool
    failure_mode: str
    tier: str
    explanation: str
    model: str
    service: str
    attempts: int = 0  # sends tried before (failed ones)

    @property
    def key(self) -> tuple[str, str, str, str]:
        return self.trace_id, self.span_id, self.rubric, self.judge_version


def save_sends(store: Store, rows: Sequence[SendRow]) -> None:
    """One INSERT; each row becomes the latest state of its key."""
    if not rows:
        return
    now = datetime.now(timezone.utc)
    store.insert(SCORE_SENDS_TABLE, [(r.target, r.trace_id, r.span_id, r.rubric, r.judge_version, r.span_ns, r.phase,
                                      r.error[:2000], r.attempts, now) for r in rows], COLUMNS)


def unsent_scores(store: Store, target: str, *, since: datetime, failing_only: bool = False,
                  retry_given_up: bool = False, services: Sequence[str] | None = None, due_only: bool = False,
                  now: datetime | None = None, limit: int = 1000) -> list[Verdict]:
    """Verdicts not sent to ``target`` yet, oldest first: those scored since ``since``, and every one whose last
    send failed or is waiting for its span (or was given up, with ``retry_given_up``); with ``due_only`` (the
    worker's passes) a waiting one only once its back-off is over at ``now``. ``services``: only their verdicts
    (None: every service's). A judge error is no verdict (it is judged again later under the same key), so it is
    left out."""
    key = "(TraceId, SpanId, Rubric, JudgeVersion)"
    ledger = quote_ident(SCORE_SENDS_TABLE)
    again, done = ((FAILED, GIVEN_UP), (SENT,)) if retry_given_up else ((FAILED,), (SENT, GIVEN_UP))
    again_in, done_in = (", ".join(f"'{p}'" for p in phases) for phases in (again, done))
    backoff = f"least({WAIT_MOST_S}, {WAIT_FIRST_S} * pow(2, greatest(0, least(Attempts, 7) - 1)))"
    due = (f"(Phase = '{WAITING}' AND UpdatedAt <= {{now:DateTime64(6)}} - toIntervalSecond(toUInt32({backoff})))"
           if due_only else f"Phase = '{WAITING}'")
    where = ["ScoredAt >= {since:DateTime64(6)} OR " + key + " IN failed", f"Verdict != '{ERROR}'"]
    if failing_only:
        where.append("Passed = 0")
    if services is not None:
        where.append("ServiceName IN {services:Array(String)}")
    params: dict[str, Any] = {"target": target, "since": since.astimezone(timezone.utc).replace(tzinfo=None),
                              "now": (now or datetime.now(timezone.utc)).astimezone(timezone.utc).replace(tzinfo=None),
                              "services": list(services or []), "limit": limit}
    rows = store.query_rows(
        f"""WITH failed AS (SELECT TraceId, SpanId, Rubric, JudgeVersion FROM {ledger} FINAL
                            WHERE Target = {{target:String}} AND (Phase IN ({again_in}) OR {due})),
                 done AS (SELECT TraceId, SpanId, Rubric, JudgeVersion FROM {ledger} FINAL
                          WHERE Target = {{target:String}}
                            AND (Phase IN ({done_in}) OR (Phase = '{WAITING}' AND NOT {due})))
        SELECT TraceId, SpanId, Rubric, JudgeVersion, toUnixTimestamp64Nano(SpanTimestamp),
               toUnixTimestamp64Nano(ScoredAt), Verdict, Score, Passed, FailureMode, Tier, Explanation, Model,
               ServiceName
        FROM {quote_ident(SCORES_TABLE)} FINAL
        WHERE ({') AND ('.join(where)}) AND {key} NOT IN done
        ORDER BY ScoredAt, TraceId, SpanId, Rubric, JudgeVersion LIMIT {{limit:UInt32}}""", params)
    verdicts = [Verdict(tid, sid, rub, jv, int(span_ns), int(scored_ns), verdict, round(float(score), 4), bool(passed),
                        fm, tier, ex, model, svc)
                for tid, sid, rub, jv, span_ns, scored_ns, verdict, score, passed, fm, tier, ex, model, svc in rows]
    tried = _attempts(store, target, verdicts)
    return [replace(v, attempts=tried.get(v.key, 0)) for v in verdicts]


def _attempts(store: Store, target: str, verdicts: Sequence[Verdict]) -> dict[tuple[str, str, str, str], int]:
    if not verdicts:
        return {}
    rows = store.query_rows(
        f"SELECT TraceId, SpanId, Rubric, JudgeVersion, Attempts FROM {quote_ident(SCORE_SENDS_TABLE)} FINAL "
        f"WHERE Target = {{target:String}} AND TraceId IN {{tids:Array(String)}} "
        f"AND (TraceId, SpanId, Rubric, JudgeVersion) IN {{keys:Array(Tuple(String, String, String, String))}}",
        {"target": target, "tids": sorted({v.trace_id for v in verdicts}), "keys": [v.key for v in verdicts]})
    return {(t, s, r, j): int(n) for t, s, r, j, n in rows}


def phase_counts(store: Store, target: str) -> dict[str, int]:
    """How many of ``target``'s verdicts are in each phase now (``GIVEN_UP``: not sent again unless asked;
    ``WAITING``: for their span to reach it), in one read."""
    rows = store.query_rows(f"SELECT Phase, count() FROM {quote_ident(SCORE_SENDS_TABLE)} FINAL "
                            f"WHERE Target = {{target:String}} GROUP BY Phase", {"target": target})
    return {str(phase): int(n) for phase, n in rows}


def load_sends(store: Store, target: str | None = None) -> list[SendRow]:
    """Every ledger row (the latest state of each key), optionally of one target: for tests and inspection."""
    where, params = ("Target = {target:String}", {"target": target}) if target else ("1", {})
    rows = store.query_rows(
        f"SELECT Target, TraceId, SpanId, Rubric, JudgeVersion, toUnixTimestamp64Nano(SpanTimestamp), Phase, Error, "
        f"Attempts FROM {quote_ident(SCORE_SENDS_TABLE)} FINAL WHERE {where} "
        f"ORDER BY Target, TraceId, SpanId, Rubric, JudgeVersion", params)
    return [SendRow(t, tid, sid, r, jv, int(ns), phase, err, int(n)) for t, tid, sid, r, jv, ns, phase, err, n in rows]

"""Rubric scores attached to traces: ``sumwatch_scores``, one row per (trace, span, rubric, judge version).

    write_scores(store, [ScoredSpan(ref, results)], judge_version="cascade-1/...")
    list_scores(store, trace_id="5b8e...")        # newest judgement per key (FINAL)

The table is a ReplacingMergeTree on that key, and reads use FINAL, so scoring a span again with the
same judge replaces its row instead of adding one.

Precedence: of a (span, rubric), a person's label outranks the LLM, which outranks the cheap tiers
(:data:`..rubrics.verdicts.TIER_STRENGTH`). :func:`write_scores` never stores a verdict over a stronger one of
the same span and rubric, nor a judge error over a verdict, so the newest stored verdict, which every view,
count, issue and export reads, is the strongest.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any

from ..contract.scores import Agreement, ScoreRecord
from ..rubrics.verdicts import ERROR, TIER_STRENGTH, RubricResult, strength
from .connection import Store, equals_filter
from .ddl import Table, Target
from .paging import SCORES_CURSOR, SCORES_KEY_CURSOR, decode_cursor, encode_cursor

SCORES_TABLE = "sumwatch_scores"

SCORE_COLUMNS = ("TraceId", "SpanId", "Rubric", "JudgeVersion", "SpanTimestamp", "ScoredAt", "ServiceName",
                 "Verdict", "Score", "Passed", "FailureMode", "Tier", "Evidence", "Explanation", "Model",
                 "InputTokens", "OutputTokens", "CostUsd", "LatencyMs", "Error", "Details")



def _create(t: Target) -> str:
    return f"""CREATE TABLE IF NOT EXISTS {t.name(SCORES_TABLE)}{t.on_cluster} (
    TraceId String CODEC(ZSTD(1)),
    SpanId String CODEC(ZSTD(1)),
    Rubric LowCardinality(String),
    JudgeVersion LowCardinality(String),
    SpanTimestamp DateTime64(9) CODEC(Delta(8), ZSTD(1)),
    ScoredAt DateTime64(6) CODEC(Delta(8), ZSTD(1)),
    ServiceName LowCardinality(String),
    Verdict LowCardinality(String),
    Score Float32,
    Passed UInt8,
    FailureMode LowCardinality(String),
    Tier LowCardinality(String),
    Evidence String CODEC(ZSTD(1)),
    Explanation String CODEC(ZSTD(1)),
    Model LowCardinality(String),
    InputTokens UInt32,
    OutputTokens UInt32,
    CostUsd Float64,
    LatencyMs Float32,
    Error String CODEC(ZSTD(1)),
    Details String CODEC(ZSTD(3)),
    INDEX idx_verdict Verdict TYPE set(32) GRANULARITY 4,
    INDEX idx_scored ScoredAt TYPE minmax GRANULARITY 1
) ENGINE = {t.engine("ReplacingMergeTree", "ScoredAt")}
PARTITION BY toYYYYMM(SpanTimestamp)
ORDER BY (TraceId, SpanId, Rubric, JudgeVersion)"""


SCORES = Table(SCORES_TABLE, "cityHash64(TraceId)", _create)


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


def score_rows(scored: Sequence[ScoredSpan], judge_version: str | Callable[[str], str],
               scored_at: datetime | None = None) -> list[tuple[Any, ...]]:
    """Rows for ``scored``; ``judge_version`` is one version for every rubric, or the version of each."""
    at = scored_at or datetime.now(timezone.utc)
    version_of = judge_version if callable(judge_version) else (lambda _rubric: judge_version)
    rows = []
    for item in scored:
        for rubric, r in item.results.items():
            rows.append((
                item.ref.trace_id, item.ref.span_id, rubric, version_of(rubric),
                datetime.fromtimestamp(item.ref.timestamp_ns / 1e9, timezone.utc), at, item.ref.service,
                r.verdict, float(r.score), int(r.passed), r.failure_mode, r.tier, r.evidence, r.explanation,
                r.model, int(r.input_tokens), int(r.output_tokens), float(r.cost_usd), float(r.latency_ms), r.error,
                json.dumps(list(r.details), ensure_ascii=False, default=str),
            ))
    return rows


# a stored row's strength, as :func:`..rubrics.verdicts.strength` ranks its tier
STRENGTH_SQL = "multiIf(" + "".join(f"Tier = '{tier}', {rank}, " for tier, rank in sorted(TIER_STRENGTH.items())
                                    if rank != 1) + "1)"


UNJUDGED_CAP_SQL = "position(Details, '\"unjudged\": \"cap\"') > 0"  # the cascade's CAP_ROW in a stored result


@dataclass(frozen=True)
class Standing:
    """What a (span, rubric) already has: its strongest stored verdict's rank, and the judge versions that
    gave it a verdict (judge errors are no verdict, nor is a cheap verdict kept at the spending cap)."""

    strength: int
    versions: frozenset[str]


def standing_verdicts(store: Store, spans: Sequence[tuple[str, str]]) -> dict[tuple[str, str, str], Standing]:
    """(trace, span, rubric) -> its :class:`Standing`, for the spans given; a rubric never judged is absent."""
    if not spans:
        return {}
    wanted = set(spans)
    rows = store.query_rows(
        f"SELECT TraceId, SpanId, Rubric, max({STRENGTH_SQL}), "
        f"groupUniqArrayIf(JudgeVersion, NOT {UNJUDGED_CAP_SQL}) "
        f"FROM {SCORES_TABLE} FINAL WHERE TraceId IN {{tids:Array(String)}} AND Verdict != {{err:String}} "
        f"GROUP BY TraceId, SpanId, Rubric", {"tids": sorted({t for t, _ in wanted}), "err": ERROR})
    return {(tid, sid, rubric): Standing(int(rank), frozenset(versions))
            for tid, sid, rubric, rank, versions in rows if (tid, sid) in wanted}


def outranked(result: RubricResult, standing: Standing | None) -> bool:
    """True when ``result`` must not be stored over what its span and rubric already have: a judge error over
    any verdict, or a verdict from a weaker source than the strongest stored (``strength``)."""
    if standing is None:
        return False
    return result.verdict == ERROR or strength(result.tier) < standing.strength


def write_scores(store: Store, scored: Sequence[ScoredSpan], judge_version: str | Callable[[str], str], *,
                 standing: dict[tuple[str, str, str], Standing] | None = None) -> int:
    """Store the results, leaving out each one :func:`outranked` by what is stored (``standing``, read here
    when not given); the number of rows written."""
    if standing is None:
        standing = standing_verdicts(store, [(s.ref.trace_id, s.ref.span_id) for s in scored])
    kept = []
    for item in scored:
        results = {rubric: r for rubric, r in item.results.items()
                   if not outranked(r, standing.get((item.ref.trace_id, item.ref.span_id, rubric)))}
        if results:
            kept.append(ScoredSpan(item.ref, results))
    rows = score_rows(kept, judge_version)
    if rows:
        store.insert(SCORES_TABLE, rows, SCORE_COLUMNS)
    return len(rows)


def list_scores(store: Store, *, trace_id: str | None = None, rubric: str | None = None,
                judge_version: str | None = None, failing_only: bool = False, limit: int = 100,
                cursor: str | None = None) -> list[ScoreRecord]:
    """The latest judgement of each (trace, span, rubric, judge version), newest first; with ``cursor``
    (from :func:`next_scores_cursor`), the page after the one it came from.

        page = list_scores(store, rubric="factuality", limit=500)
        more = list_scores(store, rubric="factuality", limit=500, cursor=next_scores_cursor(page, 500))

    Rows go by ScoredAt descending, then trace id, rubric, span id and judge version, so a walk of pages
    gives each key once. A key judged again during a walk moves to the front: it is not repeated, and if
    the walk had not reached it yet, it is not shown (its older judgement is replaced).
    """
    if limit < 1:
        raise ValueError(f"limit must be at least 1, got {limit}")
    params: dict[str, Any] = {"limit": limit}
    where = equals_filter(params, TraceId=trace_id.strip().lower() if trace_id else None, Rubric=rubric,
                          JudgeVersion=judge_version) + (" AND Passed = 0" if failing_only else "")
    if cursor is not None:
        c_at, c_tid, c_rub, c_sid, c_jv = decode_cursor(SCORES_CURSOR, cursor, (int, str, str, str, str))
        params.update(c_at=c_at, c_tid=c_tid, c_rub=c_rub, c_sid=c_sid, c_jv=c_jv)
        where += f" AND {_AFTER_CURSOR}"
    final = f"""SELECT TraceId, SpanId, Rubric, JudgeVersion, Verdict, Score, Passed, FailureMode, Tier, Evidence,
               Explanation, Model, CostUsd, LatencyMs, Error, ServiceName, toTimeZone(ScoredAt, 'UTC'),
               toUnixTimestamp64Micro(ScoredAt)
        FROM {SCORES_TABLE} FINAL WHERE {where}@TRACES@
        ORDER BY {_ORDER} LIMIT {{limit:UInt32}}"""
    if trace_id:  # the trace id is the key's prefix: FINAL reads that trace's granules only
        rows = store.query_rows(final.replace("@TRACES@", ""), params)
    else:
        rows = _newest_scores(store, final.replace("@TRACES@", " AND TraceId IN {traces:Array(String)}"), where,
                              params, limit)
    return [ScoreRecord(tid, sid, rub, jv, verdict, round(float(score), 4), bool(passed), fm, tier, ev, ex, model,
                        float(cost), float(lat), err, svc, at.replace(tzinfo=timezone.utc).isoformat())
            for tid, sid, rub, jv, verdict, score, passed, fm, tier, ev, ex, model, cost, lat, err, svc, at, _ in rows]


def next_scores_cursor(page: Sequence[ScoreRecord], limit: int) -> str | None:
    """The cursor of the page after ``page`` (read with ``limit``), or None when it was the last page.
    A page that came back full may be followed by an empty one: the listing reads no row beyond it."""
    if len(page) < limit or not page:
        return None
    last = page[-1]
    at = datetime.fromisoformat(last.scored_at)
    micros = (at - _EPOCH) // timedelta(microseconds=1)  # exact: ScoredAt is stored in µs
    return encode_cursor(SCORES_CURSOR, (micros, last.trace_id, last.rubric, last.span_id, last.judge_version))


def scores_by_key(store: Store, *, trace_id: str | None = None, rubric: str | None = None,
                  judge_version: str | None = None, failing_only: bool = False, limit: int = 100,
                  cursor: str | None = None) -> list[ScoreRecord]:
    """The scores :func:`list_scores` gives with these filters, in the table's key order (trace, span,
    rubric, judge version) instead of newest first; with ``cursor`` (from :func:`next_scores_key_cursor`),
    the page after the one it came from.

        page = scores_by_key(store, limit=10_000)
        more = scores_by_key(store, limit=10_000, cursor=next_scores_key_cursor(page, 10_000))

    For walks over every score (exports): a page of the newest first order merges the granules of every
    trace it names, which are spread over the whole table, so such a walk reads the table once a page;
    in key order a page reads its own granules. A key judged again during a walk is given once, as its
    newest judgement when the walk reaches it; a key stored during a walk is given if it sorts after the
    cursor.
    """
    if limit < 1:
        raise ValueError(f"limit must be at least 1, got {limit}")
    params: dict[str, Any] = {"limit": limit}
    where = equals_filter(params, TraceId=trace_id.strip().lower() if trace_id else None, Rubric=rubric,
                          JudgeVersion=judge_version) + (" AND Passed = 0" if failing_only else "")
    if cursor is not None:
        c_tid, c_sid, c_rub, c_jv = decode_cursor(SCORES_KEY_CURSOR, cursor, (str, str, str, str))
        params.update(c_tid=c_tid, c_sid=c_sid, c_rub=c_rub, c_jv=c_jv)
        # the plain bound on the key's first column is what the primary index prunes with
        where += (" AND TraceId >= {c_tid:String} AND (TraceId, SpanId, Rubric, JudgeVersion) > "
                  "({c_tid:String}, {c_sid:String}, {c_rub:String}, {c_jv:String})")
    rows = store.query_rows(
        f"""SELECT TraceId, SpanId, Rubric, JudgeVersion, Verdict, Score, Passed, FailureMode, Tier, Evidence,
               Explanation, Model, CostUsd, LatencyMs, Error, ServiceName, toTimeZone(ScoredAt, 'UTC')
        FROM {SCORES_TABLE} FINAL WHERE {where}
        ORDER BY TraceId, SpanId, Rubric, JudgeVersion LIMIT {{limit:UInt32}}""", params)
    return [ScoreRecord(tid, sid, rub, jv, verdict, round(float(score), 4), bool(passed), fm, tier, ev, ex, model,
                        float(cost), float(lat), err, svc, at.replace(tzinfo=timezone.utc).isoformat())
            for tid, sid, rub, jv, verdict, score, passed, fm, tier, ev, ex, model, cost, lat, err, svc, at in rows]


def next_scores_key_cursor(page: Sequence[ScoreRecord], limit: int) -> str | None:
    """The cursor of the page after ``page`` of :func:`scores_by_key` (read with ``limit``), or None when it
    was the last page."""
    if len(page) < limit or not page:
        return None
    last = page[-1]
    return encode_cursor(SCORES_KEY_CURSOR, (last.trace_id, last.span_id, last.rubric, last.judge_version))


_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
# newest first; the ids after ScoredAt make the order total over the table's key, which a cursor needs
_ORDER = "ScoredAt DESC, TraceId, Rubric, SpanId, JudgeVersion"
# the rows after the cursor's in that order; the plain bound on ScoredAt lets its minmax index skip granules
_AFTER_CURSOR = ("ScoredAt <= fromUnixTimestamp64Micro({c_at:Int64}) AND (ScoredAt < fromUnixTimestamp64Micro("
                 "{c_at:Int64}) OR (TraceId, Rubric, SpanId, JudgeVersion) > "
                 "({c_tid:String}, {c_rub:String}, {c_sid:String}, {c_jv:String}))")


def _rank(micros: int, trace_id: str, rubric: str, span_id: str, judge_version: str) -> tuple[int, str, str, str, str]:
    """A row's place in ``_ORDER`` as a Python sort key (strings compare as the engine's bytes do, by code
    point in UTF-8)."""
    return -micros, trace_id, rubric, span_id, judge_version


def _newest_scores(store: Store, final: str, where: str, params: dict[str, Any], limit: int) -> list[tuple[Any, ...]]:
    """The newest ``limit`` rows of FINAL without merging every score: the newest ``prefix`` stored rows
    (older judgements of a key included) name the candidate traces, and FINAL over those traces' granules
    gives the answer. A true answer row missing from the candidates ranks after every stored row read, so
    the FINAL rows up to the last stored row read are certain: with ``limit`` of them (or every stored row
    read) that is the answer; else the prefix grows. Over 2M scores 20-40 ms instead of 120-240.

    Only rows up to that last stored row count, because a stored row read may be a judgement since
    replaced (after a cursor, its newer judgement lies before the cursor; with ``failing_only``, it may pass
    now): its trace's other rows then come back from FINAL too, and may rank after rows not read yet."""
    prefix = 2 * limit + 8
    while True:
        newest = store.query_rows(
            f"SELECT TraceId, Rubric, SpanId, JudgeVersion, toUnixTimestamp64Micro(ScoredAt) FROM {SCORES_TABLE} "
            f"WHERE {where} ORDER BY {_ORDER} LIMIT {{prefix:UInt64}}", {**params, "prefix": prefix})
        if not newest:
            return []
        rows = store.query_rows(final, {**params, "traces": list(dict.fromkeys(t for t, *_ in newest))})
        if len(newest) < prefix:  # every stored row was a candidate
            return rows
        tid, rub, sid, jv, at = newest[-1]
        edge = _rank(at, tid, rub, sid, jv)
        certain = [r for r in rows if _rank(r[17], r[0], r[2], r[1], r[3]) <= edge]
        if len(certain) >= limit:
            return certain[:limit]
        prefix *= 4


@dataclass(frozen=True)
class DailySpend:
    """LLM judging today (UTC): what it cost, the cap (None: no cap), and the rubric results the cap kept from
    the LLM (judged by the cheap tiers, marked ``unjudged: cap``)."""

    spent_usd: float
    cap_usd: float | None
    unjudged_cap: int
    day: str  # YYYY-MM-DD, UTC

    @property
    def capped(self) -> bool:
        return self.cap_usd is not None and self.spent_usd >= self.cap_usd

    @property
    def left_usd(self) -> float | None:
        return None if self.cap_usd is None else max(0.0, self.cap_usd - self.spent_usd)




def _midnight(now: datetime | None) -> datetime:
    return (now or datetime.now(timezone.utc)).astimezone(timezone.utc).replace(hour=0, minute=0, second=0,
                                                                                 microsecond=0)


def spent_today(store: Store, now: datetime | None = None) -> float:
    """LLM judging's spend since midnight UTC: every stored judgement's cost, judge errors and results judged
    again included (each request cost money). One read of today's rows: the sampler asks before each batch."""
    (spent,), = store.query_rows(
        f"SELECT sumIf(CostUsd, Tier = 'llm') FROM {SCORES_TABLE} WHERE ScoredAt >= {{midnight:DateTime64(6)}}",
        {"midnight": _midnight(now).replace(tzinfo=None)})
    return round(float(spent or 0.0), 6)


def daily_spend(store: Store, cap_usd: float | None, now: datetime | None = None) -> DailySpend:
    """Today's spend (:func:`spent_today`) against ``cap_usd``, with the results the cap left to the cheap
    tiers that still stand (one judged again on purpose is replaced): what people are shown."""
    midnight = _midnight(now)
    (unjudged,), = store.query_rows(
        f"SELECT count() FROM {SCORES_TABLE} FINAL WHERE ScoredAt >= {{midnight:DateTime64(6)}} "
        f"AND {UNJUDGED_CAP_SQL}", {"midnight": midnight.replace(tzinfo=None)})
    return DailySpend(spent_today(store, midnight), cap_usd, int(unjudged or 0), midnight.date().isoformat())


def judge_agreement(store: Store, *, judge_version: str | None = None) -> list[Agreement]:
    """Cheap tiers against the LLM, from the cheap verdict each LLM result keeps as its last detail row."""
    params: dict[str, Any] = {}
    where = equals_filter(params, JudgeVersion=judge_version) + " AND Tier = 'llm'"
    rows = store.query_rows(
        f"""SELECT Rubric, JSONExtractString(Details, -1, 'route') AS route,
               JSONExtractString(Details, -1, 'cheap_failure_mode') AS kind, count(),
               countIf(JSONExtractBool(Details, -1, 'cheap_passed') = (Passed = 1)), sum(CostUsd)
        FROM {SCORES_TABLE} FINAL WHERE {where} AND route != '' AND Verdict != 'error'
        GROUP BY Rubric, route, kind ORDER BY Rubric, route, kind""", params)
    return [Agreement(r, route, kind, int(n), int(agreed), float(cost), round(int(agreed) / int(n), 4) if n else None)
            for r, route, kind, n, agreed, cost in rows]


@dataclass(frozen=True)
class VersionPassRate:
    """How one judge version of a rubric judged: passed and judged spans, and when it first and last scored."""

    rubric: str
    judge_version: str
    passed: int
    total: int
    first_scored: datetime
    last_scored: datetime


def pass_rates_by_judge_version(store: Store, rubric: str | None = None) -> list[VersionPassRate]:
    """Per rubric and judge version, its verdicts' pass rate (a judge error is no verdict), oldest first.

        pass_rates_by_judge_version(store, "tone")   # [VersionPassRate("tone", "cascade-3/tone@1~...", 40, 52, ...)]
    """
    params: dict[str, Any] = {"error": ERROR}
    where = equals_filter(params, Rubric=rubric)
    rows = store.query_rows(
        f"""SELECT Rubric, JudgeVersion, sum(Passed), count(), min(ScoredAt) AS first, max(ScoredAt)
        FROM {SCORES_TABLE} FINAL WHERE {where} AND Verdict != {{error:String}}
        GROUP BY Rubric, JudgeVersion ORDER BY Rubric, first, JudgeVersion""", params)
    return [VersionPassRate(r, jv, int(passed), int(total), _aware(first), _aware(last))
            for r, jv, passed, total, first, last in rows]


def _aware(value: datetime) -> datetime:
    return value if value.tzinfo else value.replace(tzinfo=timezone.utc)

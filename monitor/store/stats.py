"""What the dashboard charts: counts and rates read straight from the store, as small typed records.

    f = Filters(start=datetime(2026, 1, 1, tzinfo=timezone.utc), service="digest", prompt_version="v4")
    filter_options(store).models                  # ["gpt-4o-mini", ...]: what the filters can pick
    volume_series(store, f, bucket_s=3600)        # [(bucket_start, spans), ...]
    pass_rate_series(store, f, 3600)["factuality"]    # [(bucket_start, passed, total), ...]
    judge_cost(store, f).llm_calls                # and tokens, cost, per tier and judge model
    compare(store, f, by="prompt_version")        # CompareRow(group, rubric, passed, total, rate, low, high)
    compare_all(store, f)["model"]                # both groupings from one read
    issue_sparklines(store, ["SW-1", "SW-4"])     # {"SW-1": [traces in each of the last runs], ...}

Spans are counted from ``sumwatch_span_facts`` (service, model and prompt version of each summarization
span, copied out of ``otel_traces`` by a view), each span once. Rates read ``sumwatch_score_facts``: the
latest judgement of each (span, rubric) across judge versions, kept by a view; an unsure result (not
confident) is stored as passed and counts as passed, and a judge error is not a judgement. Model and prompt
version filter scores through ``sumwatch_span_keys`` (each span's model and prompt version under one number
per span, ``SPAN_KEY``, the score facts' key), joined on that number.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from typing import Any, Literal

from ..rubrics.verdicts import HUMAN, LLM
from .connection import Store, as_utc, quote_ident
from .issues import ISSUES_TABLE
from .runs import last_run_ids
from .score_facts import SCORE_FACTS_TABLE, SPAN_KEY
from .scores import SCORES_TABLE
from .span_facts import SPAN_FACTS_TABLE
from .span_keys import SPAN_KEYS_TABLE

CompareBy = Literal["prompt_version", "model"]
COMPARE_BY: dict[str, str] = {"prompt_version": "PromptVersion", "model": "Model"}
_Z95 = 1.959963984540054


@dataclass(frozen=True)
class Filters:
    """What the dashboard's filter bar picked; None (or "") means any. Times are span times, [start, end)."""

    start: datetime | None = None
    end: datetime | None = None
    service: str | None = None
    model: str | None = None
    prompt_version: str | None = None


@dataclass(frozen=True)
class FilterOptions:
    services: list[str]
    models: list[str]
    prompt_versions: list[str]

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class CostRow:
    tier: str
    model: str  # the judge's model ("" for the rules and embedding tiers)
    calls: int  # judgements stored (for the LLM tier: LLM calls)
    input_tokens: int
    output_tokens: int
    cost_usd: float


@dataclass(frozen=True)
class JudgeCost:
    llm_calls: int
    input_tokens: int
    output_tokens: int
    cost_usd: float
    rows: list[CostRow]  # per tier and judge model

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class CompareRow:
    group: str  # the prompt version or model ("" when the span did not record one)
    rubric: str
    passed: int
    total: int
    rate: float
    low: float  # Wilson 95% interval of the pass rate
    high: float

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def wilson(passed: int, total: int, z: float = _Z95) -> tuple[float, float]:
    """Wilson score interval of a pass rate (95% by default); (0, 1) for no observations."""
    if total <= 0:
        return 0.0, 1.0
    p = passed / total
    denom = 1 + z * z / total
    centre = (p + z * z / (2 * total)) / denom
    half = z * math.sqrt(p * (1 - p) / total + z * z / (4 * total * total)) / denom
    # at 0 or all passed the bound is exact; the formula leaves a rounding crumb there
    return (0.0 if passed <= 0 else max(0.0, centre - half)), (1.0 if passed >= total else min(1.0, centre + half))


# -- WHERE clauses ----------------------------------------------------------------------------------

def _ns(value: datetime) -> int:
    return int(as_utc(value).timestamp() * 1_000_000) * 1000


def _facts_where(f: Filters, params: dict[str, Any], ts: str = "Timestamp") -> str:
    clauses = ["1"]
    if f.start is not None:
        params["start"] = _ns(f.start)
        clauses.append(f"{ts} >= fromUnixTimestamp64Nano({{start:Int64}})")
    if f.end is not None:
        params["end"] = _ns(f.end)
        clauses.append(f"{ts} < fromUnixTimestamp64Nano({{end:Int64}})")
    if f.service:
        params["service"] = f.service
        clauses.append("ServiceName = {service:String}")
    if f.model:
        params["model"] = f.model
        clauses.append("Model = {model:String}")
    if f.prompt_version:
        params["pv"] = f.prompt_version
        clauses.append("PromptVersion = {pv:String}")
    return " AND ".join(clauses)


def _spans_of(f: Filters, params: dict[str, Any], key: str) -> str:
    """`` AND SpanKey IN (...)``: the spans of the model and prompt version asked for ("" when neither is)."""
    if not (f.model or f.prompt_version):
        return ""
    spans = _facts_where(Filters(model=f.model, prompt_version=f.prompt_version), params)
    return f" AND {key} IN (SELECT SpanKey FROM {quote_ident(SPAN_KEYS_TABLE)} WHERE {spans})"


def _judged(f: Filters, params: dict[str, Any]) -> str:
    """A subquery: the latest judgement of each filtered (span, rubric), from the score facts."""
    where = _facts_where(Filters(f.start, f.end, f.service), params, ts="SpanTimestamp")
    return (f"SELECT SpanKey, Rubric, Passed, SpanTimestamp FROM {quote_ident(SCORE_FACTS_TABLE)} FINAL "
            f"WHERE {where}{_spans_of(f, params, 'SpanKey')}")


def _bucket(column: str) -> str:
    return f"toStartOfInterval({column}, INTERVAL {{bucket:UInt32}} SECOND)"


def _check_bucket(bucket_s: int) -> int:
    if int(bucket_s) < 1:
        raise ValueError(f"bucket_s must be at least 1 second, got {bucket_s}")
    return int(bucket_s)


def _utc(value: datetime) -> datetime:
    return value.replace(tzinfo=timezone.utc) if value.tzinfo is None else value


# -- readers ----------------------------------------------------------------------------------------

def filter_options(store: Store) -> FilterOptions:
    """Services, models and prompt versions seen on summarization spans, sorted (empty values left out)."""
    # grouped by the three, as the facts' projection is (migration 17): it is read instead of every span
    rows = store.query_rows(
        f"SELECT groupUniqArray(ServiceName), groupUniqArray(Model), groupUniqArray(PromptVersion) FROM "
        f"(SELECT ServiceName, Model, PromptVersion FROM {quote_ident(SPAN_FACTS_TABLE)} "
        f"GROUP BY ServiceName, Model, PromptVersion)")
    services, models, versions = rows[0] if rows else ([], [], [])
    return FilterOptions(*(sorted(v for v in values if v) for values in (services, models, versions)))


def volume_series(store: Store, filters: Filters, bucket_s: int) -> list[tuple[datetime, int]]:
    """Summarization spans per time bucket (each span once), oldest first; empty buckets left out."""
    params: dict[str, Any] = {"bucket": _check_bucket(bucket_s)}
    rows = store.query_rows(
        f"""SELECT {_bucket("Timestamp")} AS b, count() FROM {quote_ident(SPAN_FACTS_TABLE)} FINAL
        WHERE {_facts_where(filters, params)} GROUP BY b ORDER BY b""", params)
    return [(_utc(b), int(n)) for b, n in rows]


def pass_rate_series(store: Store, filters: Filters, bucket_s: int
                     ) -> dict[str, list[tuple[datetime, int, int]]]:
    """Per rubric, (bucket start, passed, judged) per span-time bucket, oldest first."""
    params: dict[str, Any] = {"bucket": _check_bucket(bucket_s)}
    rows = store.query_rows(
        f"""SELECT Rubric, {_bucket("SpanTimestamp")} AS b, sum(Passed), count() FROM ({_judged(filters, params)})
        GROUP BY Rubric, b ORDER BY Rubric, b""", params)
    out: dict[str, list[tuple[datetime, int, int]]] = {}
    for rubric, b, passed, total in rows:
        out.setdefault(rubric, []).append((_utc(b), int(passed), int(total)))
    return out


def judge_cost(store: Store, filters: Filters) -> JudgeCost:
    """What judging the filtered spans cost, per tier and judge model: every stored judgement, errors
    included (a judgement retried after an error counts both calls, which both cost, until ClickHouse
    merges the replaced row away); a person's label stored as a span's verdict is no judgement."""
    params: dict[str, Any] = {}
    where = _facts_where(Filters(filters.start, filters.end, filters.service), params, ts="SpanTimestamp")
    rows = store.query_rows(
        f"""SELECT Tier, Model, count(), sum(InputTokens), sum(OutputTokens), sum(CostUsd)
        FROM {quote_ident(SCORES_TABLE)} WHERE {where} AND Tier != '{HUMAN}'{_spans_of(filters, params, SPAN_KEY)}
        GROUP BY Tier, Model ORDER BY Tier, Model""", params)
    out = [CostRow(tier, model, int(n), int(i), int(o), round(float(c), 6)) for tier, model, n, i, o, c in rows]
    return JudgeCost(sum(r.calls for r in out if r.tier == LLM), sum(r.input_tokens for r in out),
                     sum(r.output_tokens for r in out), round(sum(r.cost_usd for r in out), 6), out)


def compare(store: Store, filters: Filters, by: CompareBy) -> list[CompareRow]:
    """Pass rate per rubric for each prompt version (or model), with counts and Wilson 95% intervals."""
    if by not in COMPARE_BY:
        raise ValueError(f"compare by one of {sorted(COMPARE_BY)}, got {by!r}")
    return compare_all(store, filters, (by,))[by]


def compare_all(store: Store, filters: Filters, by: Sequence[CompareBy] = ("prompt_version", "model")
                ) -> dict[str, list[CompareRow]]:
    """:func:`compare` for several groupings from one read: ``compare_all(store, f)["model"]``."""
    unknown = [b for b in by if b not in COMPARE_BY]
    if unknown or not by:
        raise ValueError(f"compare by one of {sorted(COMPARE_BY)}, got {list(by)!r}")
    params: dict[str, Any] = {}
    columns = [COMPARE_BY[b] for b in by]
    facts = _facts_where(Filters(model=filters.model, prompt_version=filters.prompt_version), params)
    # LEFT ANY: one row of keys per judgement, though a span stored twice (an exporter's retry) has two
    # (INNER ANY would also use each row of keys once, dropping a span's other rubrics); the hash table of
    # 1M spans' keys is built on every core (parallel_hash); the keys are stored, not hashed from the ids
    groups = ", ".join(f"f.{c}" for c in columns)
    rows = store.query_rows(
        f"""SELECT {groups}, s.Rubric, sum(s.Passed), count()
        FROM ({_judged(Filters(filters.start, filters.end, filters.service), params)}) AS s
        LEFT ANY JOIN (SELECT SpanKey, {", ".join(columns)}, 1 AS found
                       FROM {quote_ident(SPAN_KEYS_TABLE)} WHERE {facts}) AS f USING (SpanKey)
        WHERE f.found = 1 GROUP BY {groups}, s.Rubric
        SETTINGS join_algorithm = 'parallel_hash'""", params)
    out: dict[str, list[CompareRow]] = {}
    for i, b in enumerate(by):
        counts: dict[tuple[str, str], list[int]] = {}
        for row in rows:
            pair = counts.setdefault((row[i], row[-3]), [0, 0])
            pair[0] += int(row[-2])
            pair[1] += int(row[-1])
        out[b] = [_compare_row(group, rubric, passed, total)
                  for (group, rubric), (passed, total) in sorted(counts.items())]
    return out


def _compare_row(group: str, rubric: str, passed: int, total: int) -> CompareRow:
    low, high = wilson(passed, total)
    return CompareRow(group, rubric, passed, total, round(passed / total, 4), round(low, 4), round(high, 4))


def issue_sparklines(store: Store, issue_ids: Sequence[str], runs: int = 12) -> dict[str, list[int]]:
    """Traces of each issue in each of the last ``runs`` finished runs, oldest first (0 where absent)."""
    wanted = list(dict.fromkeys(issue_ids))
    last = last_run_ids(store, runs)
    if not wanted or not last:
        return {i: [] for i in wanted}
    counts = {(iid, run): int(n) for iid, run, n in store.query_rows(
        f"SELECT IssueId, RunId, Traces FROM {quote_ident(ISSUES_TABLE)} FINAL "
        f"WHERE RunId IN {{runs:Array(String)}} AND IssueId IN {{ids:Array(String)}}",
        {"runs": last, "ids": wanted})}
    return {i: [counts.get((i, run), 0) for run in last] for i in wanted}

"""What a pass would judge and spend, said before it runs: ``sumwatch rescore`` and ``sample --all`` state it
and ask on a terminal.

    estimate = estimate_pass(Sampler(store, cascade, rescore=Rescore(since_ns=...)))
    estimate.spans, estimate.llm_requests, estimate.cost_usd     # 120, 96, 0.048

Nothing is written: recognition (which stores what it finds) does not run, so calls of other instrumentations
not yet recognised are not counted. LLM requests are estimated from what this store's LLM judge did over the
last week in the same mode (its share of rubric results per pair judged with an LLM in that mode, and the mean
cost of a request), or from the mode and budget when there is no such history; pairs judged offline, at the daily
cap or by a person say nothing about how often the LLM is asked. ``llm_requests_max`` is the bound: every pair
asked.
"""

from __future__ import annotations

from ..contract.scores import PassEstimate
from ..settings import JudgeMode
from ..store.scores import SCORES_TABLE, UNJUDGED_CAP_SQL, daily_spend
from .sampler import Sampler

_HISTORY = "ScoredAt >= now64() - INTERVAL 7 DAY"
_MIN_HISTORY = 20  # judged pairs: fewer say too little about this store's share of LLM requests


def estimate_pass(sampler: Sampler, *, all_spans: bool = False, limit: int | None = None) -> PassEstimate:
    """What ``sampler.run_pass(all_spans=..., limit=...)`` would judge now, and what it would ask of the LLM."""
    store, cascade = sampler.store, sampler.cascade
    since, recognised_since, arrived_since = sampler.window(all_spans)
    union, params = sampler.pending_sql(since, (0, ""), recognised_since, arrived_since)
    (spans,), = store.query_rows(f"SELECT uniqExact(TraceId, SpanId) FROM ({union})", params)
    spans = min(int(spans), limit) if limit is not None else int(spans)
    rubrics = list(sampler.judged_rubrics)
    pairs = int(spans) * len(rubrics)
    spend = daily_spend(store, sampler.daily_cap_usd)
    if cascade.llm is None or cascade.mode == JudgeMode.OFF:
        return PassEstimate(int(spans), pairs, rubrics, cascade.version, 0, 0, None, "offline judges",
                            spend.spent_usd, spend.cap_usd)
    (judged, asked, priced, cost), = store.query_rows(
        f"SELECT count(), countIf(Tier = 'llm'), countIf(Tier = 'llm' AND CostUsd > 0), sumIf(CostUsd, Tier = 'llm') "
        f"FROM {SCORES_TABLE} WHERE {_HISTORY} AND Rubric IN {{rubs:Array(String)}} AND Tier != 'human' "
        f"AND position(JudgeVersion, '/llm-') > 0 AND endsWith(JudgeVersion, {{mode:String}}) "
        f"AND NOT {UNJUDGED_CAP_SQL}", {"rubs": rubrics, "mode": f"@{cascade.mode}"})
    if cascade.mode == JudgeMode.ALWAYS:
        requests, basis = pairs, "every pair, in always mode"
    elif int(judged) >= _MIN_HISTORY:
        requests = round(pairs * int(asked) / int(judged))
        basis = f"{int(asked) / int(judged):.0%} of pairs went to the LLM in {cascade.mode} mode over the last 7 days"
    elif cascade.budget is not None:
        requests = min(pairs, round(int(spans) * (cascade.budget + cascade.audit_rate * len(rubrics))))
        basis = f"the budget of {cascade.budget:g} requests per span"
    else:
        requests, basis = pairs, "no history yet: every pair counted"
    per_request = float(cost) / int(priced) if int(priced) else None
    return PassEstimate(int(spans), pairs, rubrics, cascade.version, int(requests), pairs,
                        None if per_request is None else round(requests * per_request, 6), basis,
                        spend.spent_usd, spend.cap_usd)

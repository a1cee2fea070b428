"""What an experiment scored, and how a candidate compares with its base, item by item.

    report = experiment_report(store, row)                  # pass rate per rubric, cost, tokens, latency
    comparison = compare(store, base_row, candidate_row)    # ComparisonRefused: other datasets or judge versions
    comparison.regression                                   # a rubric dropped beyond noise: the CI gate fails

Both read the standing verdict of each item and rubric (the strongest source's latest, as every view does). A
comparison pairs items by id, so it holds across two versions of a dataset for the items both have; it refuses,
rather than mixes, verdicts of different judge versions of a rubric (rescore one side, or compare the others).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import datetime, timedelta, timezone

import numpy as np

from sumwatch.tracer.otel_traces import TRACES_TABLE

from ..contract.datasets import DatasetItem
from ..contract.experiments import (
    Comparison,
    ExperimentReport,
    ItemDiff,
    ItemVerdictView,
    LiveComparison,
    LiveRubric,
    RubricComparison,
    RubricRate,
    SideFigures,
)
from ..store.connection import Store
from ..store.experiments import ExperimentRow, ItemRow, ItemVerdict, item_rows, item_verdicts
from ..store.stats import Filters, compare_all, wilson
from .items import dataset_items
from .paired import paired_difference
from .run import info

TRI_GATE = "ref_tri_gate"  # its score is the Tri-Gate composite of the item's gates
MAX_DIFFS = 200  # item diffs a comparison carries (each rubric's regressed first, then its fixed)
_TOKENS_IN, _TOKENS_OUT = "gen_ai.usage.input_tokens", "gen_ai.usage.output_tokens"


class ComparisonRefused(ValueError):
    """Two experiments that cannot be compared as they are (one line: why, and what to do)."""


def experiment_report(store: Store, row: ExperimentRow, *, judged_now: int = 0, llm_requests: int = 0
                      ) -> ExperimentReport:
    calls = item_rows(store, row.experiment_id)
    verdicts = item_verdicts(store, row.experiment_id)
    summarized = [c for c in calls.values() if not c.error]
    rates = _rates(verdicts, len(summarized))
    figures = side_figures(store, calls, verdicts)
    composite = [item[TRI_GATE].score for item in verdicts.values() if TRI_GATE in item]
    return ExperimentReport(info(store, row), rates, judged_now=judged_now, llm_requests=llm_requests,
                            judge_cost_usd=figures.judge_cost_usd, task_input_tokens=figures.task_input_tokens,
                            task_output_tokens=figures.task_output_tokens, latency_ms_p50=figures.latency_ms_p50,
                            latency_ms_p95=_percentile([c.latency_ms for c in summarized], 95),
                            tri_gate=round(float(np.mean(composite)), 4) if composite else None)


def _rates(verdicts: dict[str, dict[str, ItemVerdict]], summarized: int) -> list[RubricRate]:
    by_rubric: dict[str, list[ItemVerdict]] = {}
    for item in verdicts.values():
        for rubric, verdict in item.items():
            by_rubric.setdefault(rubric, []).append(verdict)
    return [RubricRate(rubric, len(vs), sum(1 for v in vs if v.passed), max(0, summarized - len(vs)),
                       sorted({v.judge_version for v in vs}))
            for rubric, vs in sorted(by_rubric.items())]


def _percentile(values: Sequence[float], q: float) -> float | None:
    return round(float(np.percentile(values, q)), 1) if values else None


def side_figures(store: Store, calls: dict[str, ItemRow], verdicts: dict[str, dict[str, ItemVerdict]]
                 ) -> SideFigures:
    """The task's own token use (what its spans report), its latency, and what judging it cost."""
    tids = sorted({c.trace_id for c in calls.values() if c.trace_id})
    tokens_in = tokens_out = 0
    if tids:
        rows = store.query_rows(
            f"SELECT sum(toUInt64OrZero(SpanAttributes['{_TOKENS_IN}'])), "
            f"sum(toUInt64OrZero(SpanAttributes['{_TOKENS_OUT}'])) FROM {TRACES_TABLE} "
            f"WHERE TraceId IN {{tids:Array(String)}}", {"tids": tids})
        tokens_in, tokens_out = (int(v or 0) for v in rows[0]) if rows else (0, 0)
    summarized = [c.latency_ms for c in calls.values() if not c.error]
    cost = sum(v.cost_usd for item in verdicts.values() for v in item.values())
    return SideFigures(tokens_in, tokens_out, _percentile(summarized, 50), round(cost, 6),
                       sum(1 for c in calls.values() if c.error))


def compare(store: Store, base: ExperimentRow, candidate: ExperimentRow, *, rubrics: Sequence[str] = ()
            ) -> Comparison:
    """Per rubric (both experiments', or ``rubrics``), paired on the items both judged."""
    if base.dataset != candidate.dataset:
        raise ComparisonRefused(f"{base.name} ran dataset {base.dataset!r} and {candidate.name} ran "
                                f"{candidate.dataset!r}: an experiment compares with one on the same dataset")
    base_v, cand_v = item_verdicts(store, base.experiment_id), item_verdicts(store, candidate.experiment_id)
    base_calls, cand_calls = item_rows(store, base.experiment_id), item_rows(store, candidate.experiment_id)
    shared = sorted(set(_rubrics(base_v)) & set(_rubrics(cand_v)))
    chosen = [r for r in shared if not rubrics or r in rubrics]
    for rubric in chosen:
        mine, theirs = _versions(base_v, rubric), _versions(cand_v, rubric)
        if mine != theirs:
            raise ComparisonRefused(
                f"{rubric} was judged by {', '.join(sorted(mine))} in {base.name} and by "
                f"{', '.join(sorted(theirs))} in {candidate.name}: run the older one again under a new --name, so both "
                f"are judged by the active version, or leave the rubric out (--rubric names the others)")
    items = {i.item_id: i for i in dataset_items(store, candidate.dataset, candidate.dataset_version) or ()}
    results, diffs = [], []
    for rubric in chosen:
        pairs = {item: (_passed(base_v, item, rubric), _passed(cand_v, item, rubric))
                 for item in set(base_calls) | set(cand_calls)}
        d = paired_difference(rubric, pairs)
        results.append(RubricComparison(rubric, d.paired, d.base_rate, d.candidate_rate, round(d.delta, 4),
                                        round(d.low, 4), round(d.high, 4), d.p_value, d.is_regression,
                                        d.is_improvement, d.regressed, d.fixed, d.unpaired))
        for change, ids in (("regressed", d.regressed), ("fixed", d.fixed)):
            diffs += [_diff(item, rubric, change, items.get(item), base_calls[item], cand_calls[item],
                            base_v[item][rubric], cand_v[item][rubric]) for item in ids]
    return Comparison(info(store, base), info(store, candidate), results, diffs[:MAX_DIFFS],
                      side_figures(store, base_calls, base_v), side_figures(store, cand_calls, cand_v))


def _rubrics(verdicts: dict[str, dict[str, ItemVerdict]]) -> set[str]:
    return {rubric for item in verdicts.values() for rubric in item}


def _versions(verdicts: dict[str, dict[str, ItemVerdict]], rubric: str) -> set[str]:
    return {item[rubric].judge_version for item in verdicts.values() if rubric in item}


def _passed(verdicts: dict[str, dict[str, ItemVerdict]], item: str, rubric: str) -> bool | None:
    found = verdicts.get(item, {}).get(rubric)
    return None if found is None else found.passed


def _view(v: ItemVerdict) -> ItemVerdictView:
    return ItemVerdictView(v.verdict, v.passed, v.evidence, v.failure_mode)


def _diff(item: str, rubric: str, change: str, dataset_item: DatasetItem | None, base: ItemRow, cand: ItemRow,
          base_v: ItemVerdict, cand_v: ItemVerdict) -> ItemDiff:
    return ItemDiff(item, rubric, change, dataset_item.source if dataset_item else "", base.summary, cand.summary,
                    _view(base_v), _view(cand_v), base.trace_id, cand.trace_id)



def newcombe(passed_a: int, total_a: int, passed_b: int, total_b: int) -> tuple[float, float, float]:
    """(rate a - rate b, and the 95% interval of that difference by Newcombe's hybrid score method, from each
    rate's Wilson interval)."""
    if not total_a or not total_b:
        return 0.0, -1.0, 1.0
    a, b = passed_a / total_a, passed_b / total_b
    (la, ua), (lb, ub) = wilson(passed_a, total_a), wilson(passed_b, total_b)
    delta = a - b
    return delta, delta - math.sqrt((a - la) ** 2 + (ub - b) ** 2), delta + math.sqrt((ua - a) ** 2 + (b - lb) ** 2)


def compare_live(store: Store, candidate: ExperimentRow, prompt_version: str, *, service: str = "",
                 since: timedelta = timedelta(days=7)) -> LiveComparison:
    """The candidate's pass rate per rubric against production's spans of ``prompt_version`` in the window (of
    ``service`` when given: an experiment's own spans are service ``sumwatch-experiment``, or the task's)."""
    start = datetime.now(timezone.utc) - since
    live = compare_all(store, Filters(start=start, service=service or None, prompt_version=prompt_version),
                       by=("prompt_version",))["prompt_version"]
    rates = {r.rubric: r for r in _rates(item_verdicts(store, candidate.experiment_id), 0)}
    rows = []
    for row in live:
        mine = rates.get(row.rubric)
        if mine is None or not mine.judged:
            continue
        delta, low, high = newcombe(mine.passed, mine.judged, row.passed, row.total)
        rows.append(LiveRubric(row.rubric, row.passed, row.total, mine.passed, mine.judged, round(delta, 4),
                               round(low, 4), round(high, 4), high < 0))
    return LiveComparison(info(store, candidate), prompt_version, service, f"{since.total_seconds() / 3600:g}h", rows)

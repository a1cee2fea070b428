"""The Experiments pages: the list, one experiment's report with each item's verdicts, and the comparison of two.

    context = experiments_index(store, dataset="sw3")
    context = experiment_page(store, "prompt-v4", page=1)             # None when there is no such experiment
    context = comparison_page(store, "prompt-v3", "prompt-v4")        # ComparisonRefused: other datasets, judges

The report and the comparison are the API's (:mod:`sumwatch.monitor.experiments.report`), so a page shows what
``sumwatch experiment show`` and ``compare`` print. A comparison's regressed and fixed items show the source and
both summaries side by side, each summary with its judge's evidence marked where it occurs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

from markupsafe import Markup
from pydantic import Field

from ...contract.experiments import Comparison, ItemDiff, RubricComparison
from ...experiments.report import compare, experiment_report
from ...experiments.run import info
from ...store.connection import Store
from ...store.datasets import latest_versions, version_items
from ...store.experiments import ExperimentRow, ItemRow, ItemVerdict, find_experiment, item_rows, item_verdicts
from ...store.experiments import list_experiments as experiment_rows
from ..errors import ApiError
from .datasets import clip
from .evidence import evidence_phrases, highlight
from .query import BadRequest, PageQuery

ITEMS_PAGE = 100  # items a page of the experiment page lists
SUMMARY_CHARS = 180
REGRESSION, BETTER, NO_CHANGE = "REGRESSION", "better", "no change"


class ExperimentQuery(PageQuery):
    page: Annotated[int, Field(ge=1)] = 1


class ExperimentsQuery(PageQuery):
    dataset: Annotated[str, Field(max_length=64)] = ""


class CompareWith(PageQuery):
    """The experiment page's compare form: the candidate to compare this experiment with."""

    candidate: Annotated[str, Field(min_length=1, max_length=200)]


def find(store: Store, key: str) -> ExperimentRow | None:
    return find_experiment(store, key.strip())


def _found(store: Store, key: str) -> ExperimentRow:
    row = find(store, key)
    if row is None:
        raise ApiError(404, f"There is no experiment {key}.")
    return row


def experiments_index(store: Store, dataset: str = "") -> dict[str, Any]:
    """Every experiment, newest first (of one dataset when given), with its dataset and progress."""
    rows = experiment_rows(store, dataset=dataset or None)
    return {"experiments": [info(store, row) for row in rows], "dataset": dataset,
            "datasets": [v.name for v in latest_versions(store)]}


@dataclass(frozen=True)
class ItemLine:
    """One item of an experiment: its call (None: not run yet) and its standing verdict on each rubric."""

    position: int
    item_id: str
    call: ItemRow | None
    verdicts: dict[str, ItemVerdict]
    summary: str


def experiment_page(store: Store, key: str, page: int = 1) -> dict[str, Any] | None:
    """One experiment's report (pass rate per rubric, tokens, latency, errors) and a page of its items, each with
    every rubric's verdict and a link to its trace; the others of its dataset to compare it with."""
    row = find(store, key)
    if row is None:
        return None
    report = experiment_report(store, row)
    calls, verdicts = item_rows(store, row.experiment_id), item_verdicts(store, row.experiment_id)
    ids = [i.item_id for i in version_items(store, row.dataset, row.dataset_version)]
    ids += sorted(set(calls) - set(ids))  # an item the version no longer lists still shows what it did
    pages = max(1, -(-len(ids) // ITEMS_PAGE))
    if page > pages:
        raise BadRequest(f"page must be between 1 and {pages}, got {page}")
    start = (page - 1) * ITEMS_PAGE
    lines = [ItemLine(start + n + 1, item, calls.get(item), verdicts.get(item, {}),
                      clip(calls[item].summary, SUMMARY_CHARS) if item in calls else "")
             for n, item in enumerate(ids[start:start + ITEMS_PAGE])]
    others = [e for e in experiment_rows(store, dataset=row.dataset) if e.experiment_id != row.experiment_id]
    return {"row": row, "report": report, "rubrics": [r.rubric for r in report.rates], "lines": lines,
            "page": page, "pages": pages, "total": len(ids), "others": others}


@dataclass(frozen=True)
class DiffView:
    """A regressed or fixed item on one rubric: the source marked with both evidences, each summary with its own."""

    diff: ItemDiff
    source: Markup | None
    base_summary: Markup
    candidate_summary: Markup


def verdict_of(r: RubricComparison) -> str:
    return REGRESSION if r.regression else BETTER if r.improvement else NO_CHANGE


def _diff_view(d: ItemDiff) -> DiffView:
    base, cand = evidence_phrases(d.base.evidence), evidence_phrases(d.candidate.evidence)
    return DiffView(d, highlight(d.source, (*base, *cand)) if d.source else None,
                    highlight(d.base_summary, base), highlight(d.candidate_summary, cand))


def comparison_page(store: Store, base_key: str, candidate_key: str) -> dict[str, Any]:
    """The candidate against its base per rubric, and each regressed and fixed item side by side; ApiError 404
    when either experiment is not there, ComparisonRefused (one line) for two that cannot be compared."""
    result: Comparison = compare(store, _found(store, base_key), _found(store, candidate_key))
    views = [_diff_view(d) for d in result.diffs]
    shown = len(result.diffs)
    counted = sum(len(r.regressed) + len(r.fixed) for r in result.rubrics)
    return {"c": result, "verdicts": {r.rubric: verdict_of(r) for r in result.rubrics},
            "regressed": [v for v in views if v.diff.change == "regressed"],
            "fixed": [v for v in views if v.diff.change == "fixed"], "shown": shown, "counted": counted}

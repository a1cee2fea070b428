"""Experiments: a team's summarizer run on a pinned dataset version, judged, and compared item by item.

    POST /api/experiments {"dataset": "sw3", "name": "prompt-v4", "task": "app:summarize"}  -> StartAnswer
    POST /api/experiments/prompt-v4/items {"items": [ItemOutcome, ...]}                    -> ItemsAnswer
    POST /api/experiments/prompt-v4/score?wait=false                                        -> 202; poll the action
    GET  /api/experiments?dataset=sw3                                                       -> [ExperimentInfo]
    GET  /api/experiments/prompt-v4                                                          -> ExperimentReport
    GET  /api/experiments/prompt-v3/compare/prompt-v4?rubric=factuality                     -> Comparison

The runner (``sumwatch experiment run``) calls the task in its own process and sends each item's spans here; an
experiment is named by its id or its name. Judging stores verdicts like any span's, so the evidence pages and the
trace view read them unchanged; it judges only what has no verdict yet, so a resumed run pays once.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Annotated

from fastapi import APIRouter, Path, Query
from pydantic import BaseModel, ConfigDict, Field

from ...contract.experiments import (
    Comparison,
    ExperimentInfo,
    ExperimentReport,
    ItemOutcome,
    ItemsAnswer,
    LiveComparison,
    StartAnswer,
    StartExperiment,
)
from ...experiments.report import ComparisonRefused, compare, compare_live, experiment_report
from ...experiments.run import (
    ExperimentError,
    accept_items,
    experiment,
    info,
    judge_experiment,
    reference_judge,
    start_experiment,
)
from ...settings import parse_duration
from ...store.experiments import list_experiments
from ..errors import ApiError, error_responses
from ..services import Progress, ServicesDep
from .actions import _ACCEPTED, Wait, _run
from .params import DURATION_PATTERN, JudgeModeName, Rubric, capped_duration

router = APIRouter(prefix="/api", tags=["experiments"], responses=error_responses(400, 401, 403, 404, 409, 422))
Key = Annotated[str, Path(max_length=200, description="an experiment's id or name")]
MAX_ITEMS_PER_REQUEST = 500


class ItemsBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    items: list[ItemOutcome] = Field(max_length=MAX_ITEMS_PER_REQUEST)


class ExperimentScoreBody(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    mode: JudgeModeName | None = Field(None, description="judge mode (default: the server's)")


def _refused(exc: ExperimentError | ComparisonRefused) -> ApiError:
    return ApiError(getattr(exc, "status", 409), str(exc))


@router.post("/experiments", summary="Start an experiment on a dataset version, or resume the one of that name")
def start(s: ServicesDep, body: StartExperiment) -> StartAnswer:
    try:
        return start_experiment(s.store, body)
    except ExperimentError as exc:
        raise _refused(exc) from None


@router.get("/experiments", summary="Experiments, newest first")
def experiments(s: ServicesDep, dataset: Annotated[str | None, Query(max_length=200)] = None) -> list[ExperimentInfo]:
    return [info(s.store, row) for row in list_experiments(s.store, dataset=dataset)]


@router.post("/experiments/{key}/items", summary="Store items' calls: their spans (OTLP protobuf, base64) or errors",
             responses=error_responses(413))
def items(s: ServicesDep, key: Key, body: ItemsBody) -> ItemsAnswer:
    try:
        return accept_items(s.store, experiment(s.store, key), body.items,
                            max_bytes=s.settings.receiver.max_body_bytes)
    except ExperimentError as exc:
        raise _refused(exc) from None


@router.post("/experiments/{key}/score", summary="Judge every item not judged yet; the experiment's report",
             responses=_ACCEPTED)
def score(s: ServicesDep, key: Key, body: ExperimentScoreBody | None = None, wait: Wait = True) -> ExperimentReport:
    try:
        row = experiment(s.store, key)
    except ExperimentError as exc:
        raise _refused(exc) from None
    cascade = s.judges(body.mode if body else None)
    embedder = s.runtime.embedder if s.settings.judge.embeddings else None
    reference = reference_judge(embedder, cascade.llm)

    def work(progress: Progress) -> ExperimentReport:
        before = cascade.llm_requests
        written = judge_experiment(s.store, cascade, row, reference=reference, progress=progress)
        return experiment_report(s.store, experiment(s.store, row.experiment_id), judged_now=written,
                                 llm_requests=cascade.llm_requests - before)

    result: ExperimentReport = _run(s, "experiment_score", work, wait)
    return result


@router.get("/experiments/{key}", summary="One experiment: pass rate per rubric, cost, tokens and latency")
def report(s: ServicesDep, key: Key) -> ExperimentReport:
    try:
        return experiment_report(s.store, experiment(s.store, key))
    except ExperimentError as exc:
        raise _refused(exc) from None


@router.get("/experiments/{base}/compare/{candidate}",
            summary="A candidate against its base, paired on items: per rubric, the difference with its interval")
def comparison(s: ServicesDep, base: Key, candidate: Key,
               rubric: Annotated[list[Rubric] | None, Query(max_length=64)] = None) -> Comparison:
    try:
        return compare(s.store, experiment(s.store, base), experiment(s.store, candidate), rubrics=rubric or ())
    except (ExperimentError, ComparisonRefused) as exc:
        raise _refused(exc) from None


@router.get("/experiments/{key}/compare-live",
            summary="A candidate against production's spans of the prompt version it replaces (independent rates)")
def comparison_live(s: ServicesDep, key: Key,
                    prompt_version: Annotated[str, Query(min_length=1, max_length=200)],
                    service: Annotated[str, Query(max_length=200)] = "",
                    since: Annotated[str, Query(max_length=40, pattern=DURATION_PATTERN)] = "7d") -> LiveComparison:
    try:
        window = timedelta(seconds=parse_duration(capped_duration(since)))
        return compare_live(s.store, experiment(s.store, key), prompt_version, service=service, since=window)
    except ExperimentError as exc:
        raise _refused(exc) from None
    except ValueError as exc:
        raise ApiError(422, f"since: {exc}") from None

"""Actions: score now (one sampler pass), cluster now, calibrate now, and backfill, one at a time.

    POST /api/actions/score {"limit": 500, "mode": "off"}          -> PassReport, when the pass is done
    POST /api/actions/score?wait=false {...}                         -> 202 ActionState; then poll
    GET  /api/actions/score                                          -> ActionState with its progress

While an action runs, another answers 409 naming it. Each action holds its job's store-wide lock
(store/job_locks.py), the one the scheduled sampler pass and clustering run hold.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from fastapi import APIRouter, Path, Query, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter
from starlette.concurrency import run_in_threadpool

from ...calibration.corpus import seed_starter_corpora
from ...calibration.gate import calibrate
from ...contract.actions import ActionState, IngestAnswer, SkippedLine
from ...contract.calibration import CalibrationReport
from ...contract.issues import ClusterRunReport
from ...contract.scores import PassReport
from ...ingest.backfill import ingest_file
from ...scoring.sampler import Sampler
from ...settings.values import MAX_WORKERS
from ..errors import ApiError, error_responses
from ..services import ACTION_LOCKS, Progress, Services, ServicesDep
from .params import DURATION_PATTERN, WHOLE, JudgeModeName, Rubric, capped_duration, known_rubric
from .uploads import NDJSON_BODY, as_file, read_upload

router = APIRouter(prefix="/api", tags=["actions"], responses=error_responses(400, 401, 403, 409))
Wait = Annotated[bool, Query(description="Answer when the action is done (true), or at once with its state (202), "
                                         "to poll GET /api/actions/{action} for progress")]
_ACCEPTED: dict[int | str, dict[str, Any]] = {202: {"model": ActionState, "description": "Started (wait=false)"}}
ACTION_PATTERN = f"^({'|'.join(ACTION_LOCKS)})$"  # every action the server runs, from the one list of them


class ScoreBody(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)  # JSON types as the schema says: 0 is no boolean
    all: bool | None = Field(None, description="ignore the watermark: consider every stored span")
    rate: float | None = Field(None, ge=0, le=1, description="share of traces to score")
    shard: str | None = Field(None, pattern=r"^[0-9]{1,6}/[0-9]{1,6}$",
                              description="i/N: this pass's share of the work, with i < N (422 otherwise)")
    limit: Annotated[int, Field(ge=1, le=2**31), WHOLE] | None = Field(None, description="stop after this many "
                                                                                          "spans")
    mode: JudgeModeName | None = Field(None, description="judge mode (default: the server's)")
    events: bool | None = Field(None, description="also write gen_ai.evaluation.result events")
    workers: Annotated[int, Field(ge=0, le=MAX_WORKERS), WHOLE] | None = Field(None,
                                description="processes that run the sentence model, 0 for one per usable CPU "
                                            "(default: the server's SUMWATCH_SAMPLER_WORKERS)")


class ClusterBody(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)  # JSON types as the schema says: 0 is no boolean
    window: str | None = Field(None, max_length=40, pattern=DURATION_PATTERN,
                               description="how far back to look, like 24h or 7d (a longer one than 36500d is "
                                           "read as 36500d)")


class CalibrateBody(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)  # JSON types as the schema says: 0 is no boolean
    rubric: Rubric
    mode: JudgeModeName | None = None
    judge_version: str | None = Field(None, max_length=200, description="label for this judge")
    record: bool | None = Field(None, description="store a passing run as the baseline (default true)")


class ActionList(BaseModel):
    running: str | None
    last: dict[str, ActionState]


def _run(s: Services, action: str, work: Callable[[Progress], Any], wait: bool) -> Any:
    state = s.actions.start(action, work)
    if not wait:
        return JSONResponse(TypeAdapter(ActionState).dump_python(state, mode="json"), status_code=202)
    s.actions.wait(state)
    if state.error is not None:
        raise ApiError(state.status or 500, state.error)
    return state.result


def _shard(value: str | None) -> tuple[int, int]:
    if not value:
        return (0, 1)
    index, count = (int(p) for p in value.split("/"))
    if not 0 <= index < count:  # JSON Schema cannot compare the two numbers
        raise ApiError(422, f"shard must be i/N with 0 <= i < N (e.g. 0/4), got {value!r}")
    return index, count


@router.post("/actions/score", summary="Score now: one sampler pass", responses={**_ACCEPTED, **error_responses(422)})
def score(s: ServicesDep, body: ScoreBody, wait: Wait = True) -> PassReport:
    shard = _shard(body.shard)

    def work(progress: Progress) -> PassReport:
        sampler = Sampler.from_settings(s.store, s.judges(body.mode), s.settings, rate=body.rate, shard=shard,
                                        eval_events=body.events, workers=body.workers)
        return sampler.run_pass(all_spans=bool(body.all), limit=body.limit,
                                on_progress=lambda seen, scored: progress("scoring", scored, None))

    result: PassReport = _run(s, "score", work, wait)
    return result


@router.post("/actions/cluster", summary="Cluster now: one clustering run", responses=_ACCEPTED)
def cluster(s: ServicesDep, body: ClusterBody, wait: Wait = True) -> ClusterRunReport:
    window = capped_duration(body.window) if body.window is not None else None
    try:
        clusterer = s.runtime.clusterer()
    except ValueError as exc:
        raise ApiError(400, str(exc)) from None

    def work(progress: Progress) -> ClusterRunReport:
        return s.runtime.cluster(progress, window=window, clusterer=clusterer)

    result: ClusterRunReport = _run(s, "cluster", work, wait)
    return result


@router.post("/actions/calibrate", summary="Calibrate now; a passing run is recorded as the baseline",
             responses={**_ACCEPTED, **error_responses(404)})
def calibrate_now(s: ServicesDep, body: CalibrateBody, wait: Wait = True) -> CalibrationReport:
    known_rubric(s.store, body.rubric)

    def work(progress: Progress) -> CalibrationReport:
        progress("calibrating", 0, None)
        seed_starter_corpora(s.store, [body.rubric])
        return calibrate(s.store, s.judges(body.mode), body.rubric, judge_version=body.judge_version,
                         record=body.record if body.record is not None else True)

    result: CalibrationReport = _run(s, "calibrate", work, wait)
    return result


@router.post("/ingest", summary="Backfill: each JSON line becomes a summarization span (bad lines are skipped "
                                "and reported by number)", openapi_extra=NDJSON_BODY,
             responses={**_ACCEPTED, **error_responses(413)})
async def ingest(s: ServicesDep, request: Request, wait: Wait = True) -> IngestAnswer:
    body = await read_upload(request, s.settings.receiver.max_body_bytes)

    def work(progress: Progress) -> IngestAnswer:
        with as_file(body) as path:
            try:
                report = ingest_file(s.store, path, on_progress=lambda stored, bad: progress("ingest", stored, None))
            except RecursionError:
                raise ApiError(400, "a line is JSON nested too deeply to parse (lines before it may be "
                                    "stored)") from None
        return IngestAnswer(stored=report.stored, skipped=[SkippedLine(line=b.line, reason=b.reason)
                                                           for b in report.bad])

    result: IngestAnswer = await run_in_threadpool(_run, s, "ingest", work, wait)
    return result


# the two reads below touch only memory: async, so FastAPI calls them and checks their answer on the event loop
# instead of in two thread-pool hops (over loopback 0.8 ms of CPU a request instead of 3.4)
@router.get("/actions", summary="The action running now and the last run of each")
async def actions(s: ServicesDep) -> ActionList:
    return ActionList(running=s.actions.running_now(), last=s.actions.last)


@router.get("/actions/{action}", summary="One action's last or current run, with its progress",
            responses=error_responses(404))
async def action(s: ServicesDep, action: Annotated[
        str, Path(pattern=ACTION_PATTERN)]) -> ActionState:
    found = s.actions.last.get(action)
    if found is None:
        raise ApiError(404, f"{action} has not run since the server started")
    return found

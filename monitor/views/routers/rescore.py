"""Judge stored spans again, on purpose: the estimate first, then the pass (``sumwatch rescore``).

    POST /api/actions/rescore/estimate {"rubrics": ["tone"], "since": "7d"}   -> PassEstimate (nothing runs)
    POST /api/actions/rescore {"rubrics": ["tone"], "since": "7d"}            -> PassReport, when done
    POST /api/actions/score/estimate {"all": true}                            -> what `sample --all` would do

A new judge version judges new spans only; stored ones are judged again here, with the judges active now, and
a verdict from a weaker source never replaces a stronger one (see :mod:`...scoring.sampler`). The estimate
states the spans and the LLM requests and cost to expect, and today's spend against the daily cap.
"""

from __future__ import annotations

import time

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict, Field

from ...contract.scores import PassEstimate, PassReport
from ...scoring.estimate import estimate_pass
from ...scoring.sampler import Rescore, Sampler
from ...settings import parse_duration
from ..errors import ApiError, error_responses
from ..services import Progress, Services, ServicesDep
from .actions import _ACCEPTED, ScoreBody, Wait, _run, _shard
from .params import DURATION_PATTERN, JudgeModeName, Rubric, capped_duration, known_rubric

router = APIRouter(prefix="/api", tags=["actions"], responses=error_responses(400, 401, 403, 404, 409))


class RescoreBody(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)  # JSON types as the schema says: 0 is no boolean
    rubrics: list[Rubric] | None = Field(None, max_length=64,
                                         description="the rubrics to judge again (default: every judged rubric)")
    since: str | None = Field(None, max_length=40, pattern=DURATION_PATTERN,
                              description="only spans of this recent window, like 24h or 7d (default: all)")
    service: str | None = Field(None, min_length=1, max_length=200, description="only this service's spans")
    mode: JudgeModeName | None = Field(None, description="judge mode (default: the server's)")


def _sampler(s: Services, body: RescoreBody) -> Sampler:
    rubrics = tuple(dict.fromkeys(known_rubric(s.store, r) for r in body.rubrics or ()))
    since_ns = 0
    if body.since is not None:
        try:
            since_ns = time.time_ns() - int(parse_duration(capped_duration(body.since)) * 1e9)
        except ValueError as exc:
            raise ApiError(400, f"since: {exc}") from None
    cascade = s.judges(body.mode)
    unjudged = [r for r in rubrics if r not in cascade.rubrics]
    if unjudged:
        raise ApiError(409, f"nothing here can judge {', '.join(unjudged)}: a custom rubric without checks needs an "
                            f"LLM (SUMWATCH_LLM_MODEL)")
    return Sampler.from_settings(s.store, cascade, s.settings,
                                 rescore=Rescore(rubrics, max(0, since_ns), body.service or ""))


@router.post("/actions/rescore/estimate", summary="What a rescore would judge and spend; nothing runs")
def rescore_estimate(s: ServicesDep, body: RescoreBody) -> PassEstimate:
    sampler = _sampler(s, body)
    sampler.refresh()
    return estimate_pass(sampler)


@router.post("/actions/rescore", summary="Judge stored spans again with the active judges", responses=_ACCEPTED)
def rescore(s: ServicesDep, body: RescoreBody, wait: Wait = True) -> PassReport:
    sampler = _sampler(s, body)

    def work(progress: Progress) -> PassReport:
        return sampler.run_pass(on_progress=lambda seen, scored: progress("rescoring", scored, None))

    result: PassReport = _run(s, "rescore", work, wait)
    return result


@router.post("/actions/score/estimate", summary="What a sampler pass would judge and spend; nothing runs",
             responses=error_responses(422))
def score_estimate(s: ServicesDep, body: ScoreBody) -> PassEstimate:
    sampler = Sampler.from_settings(s.store, s.judges(body.mode), s.settings, rate=body.rate,
                                    shard=_shard(body.shard))
    sampler.refresh()
    return estimate_pass(sampler, all_spans=bool(body.all), limit=body.limit)

"""Rubric scores, and how often the cheap tiers agree with the LLM."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from ...store.scores import Agreement, ScoreRecord, judge_agreement, list_scores
from ..errors import error_responses
from ..services import ServicesDep
from .params import TRACE_ID_PATTERN, RubricQuery, limit_query

router = APIRouter(prefix="/api", tags=["scores"], responses=error_responses(400, 401))


@router.get("/scores", summary="Rubric scores, newest first")
def scores(s: ServicesDep,
           trace: Annotated[str | None, Query(pattern=TRACE_ID_PATTERN, description="Only this trace")] = None,
           rubric: RubricQuery = None,
           failing: Annotated[bool, Query(description="Only failing scores")] = False,
           judge_version: Annotated[str | None, Query(description="Only this judge version")] = None,
           limit: int = limit_query(50, "scores")) -> list[ScoreRecord]:
    return list_scores(s.store, trace_id=trace.lower() if trace else None, rubric=rubric,
                       judge_version=judge_version, failing_only=failing, limit=limit)


@router.get("/judges", summary="Agreement of the cheap tiers with the LLM, per rubric, route and finding")
def judges(s: ServicesDep, judge_version: Annotated[str | None, Query(description="Only this judge version")] = None
           ) -> list[Agreement]:
    return judge_agreement(s.store, judge_version=judge_version)

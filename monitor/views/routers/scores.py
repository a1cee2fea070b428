"""Rubric scores, and how often the cheap tiers agree with the LLM."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request, Response
from starlette.responses import StreamingResponse

from ...contract.scores import Agreement, ScoreRecord
from ...store.bulk_export import ExportFormat, export_scores
from ...store.scores import judge_agreement, list_scores, next_scores_cursor
from ..downloads import DOWNLOAD_RESPONSES, download
from ..errors import error_responses
from ..services import ServicesDep
from .params import PAGED, TRACE_ID_PATTERN, CursorQuery, FormatQuery, RubricQuery, limit_query, page

router = APIRouter(prefix="/api", tags=["scores"], responses=error_responses(400, 401, 404))


Trace = Annotated[str | None, Query(pattern=TRACE_ID_PATTERN, description="Only this trace")]
Failing = Annotated[bool, Query(description="Only failing scores")]
JudgeVersion = Annotated[str | None, Query(description="Only this judge version")]


@router.get("/scores", summary="Rubric scores, newest first; the next page's link in `Link`", responses=PAGED)
def scores(s: ServicesDep, request: Request, response: Response, trace: Trace = None, rubric: RubricQuery = None,
           failing: Failing = False, judge_version: JudgeVersion = None, limit: int = limit_query(50, "scores"),
           cursor: CursorQuery = None) -> list[ScoreRecord]:
    return page(request, response, lambda: list_scores(s.store, trace_id=trace.lower() if trace else None,
                                                       rubric=rubric, judge_version=judge_version,
                                                       failing_only=failing, limit=limit, cursor=cursor),
                next_scores_cursor, limit)


@router.get("/scores/export", summary="Every matching score (in key order) as JSON lines or Parquet",
            response_class=StreamingResponse, responses=DOWNLOAD_RESPONSES)
def export(s: ServicesDep, format: FormatQuery = ExportFormat.JSONL, trace: Trace = None, rubric: RubricQuery = None,
           failing: Failing = False, judge_version: JudgeVersion = None) -> StreamingResponse:
    return download(lambda stream: export_scores(s.store, stream, format, trace_id=trace.lower() if trace else None,
                                                 rubric=rubric, judge_version=judge_version, failing_only=failing),
                    format, "scores")


@router.get("/judges", summary="Agreement of the cheap tiers with the LLM, per rubric, route and finding")
def judges(s: ServicesDep, judge_version: Annotated[str | None, Query(description="Only this judge version")] = None
           ) -> list[Agreement]:
    return judge_agreement(s.store, judge_version=judge_version)

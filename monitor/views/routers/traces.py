"""Summarization spans: the listing, one trace's spans, and one trace's scores."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from fastapi import APIRouter, Query

from ...store.scores import ScoreRecord, list_scores
from ...store.traces import SpanDetail, TraceRow, get_trace, list_traces
from ..errors import ApiError, error_responses
from ..services import ServicesDep
from .params import RubricQuery, TraceIdPath, limit_query

router = APIRouter(prefix="/api/traces", tags=["traces"], responses=error_responses(400, 401))


@router.get("", summary="Recent summarization spans, newest first")
def traces(s: ServicesDep, limit: int = limit_query(20, "spans"),
           service: Annotated[str | None, Query(description="Only this service")] = None,
           domain: Annotated[str | None, Query(description="Only this domain (summarization.domain)")] = None,
           band: Annotated[str | None, Query(description="Only this length band (tldr, ...)")] = None,
           since: Annotated[datetime | None, Query(description="Only spans from this time on (ISO 8601)")] = None,
           ) -> list[TraceRow]:
    return list_traces(s.store, limit=limit, service=service, domain=domain, band=band, since=since)


@router.get("/{trace_id}", summary="One trace's spans with every attribute and event",
            responses=error_responses(404))
def trace(s: ServicesDep, trace_id: TraceIdPath) -> list[SpanDetail]:
    spans = get_trace(s.store, trace_id)
    if not spans:
        raise ApiError(404, f"no trace {trace_id}")
    return spans


@router.get("/{trace_id}/scores", summary="The rubric scores of one trace, newest first", tags=["scores"])
def trace_scores(s: ServicesDep, trace_id: TraceIdPath, rubric: RubricQuery = None,
                 limit: int = limit_query(100, "scores")) -> list[ScoreRecord]:
    return list_scores(s.store, trace_id=trace_id.lower(), rubric=rubric, limit=limit)

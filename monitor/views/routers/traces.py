"""Summarization spans: the listing, one trace's spans, and one trace's scores."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request, Response
from starlette.responses import StreamingResponse

from ...store.bulk_export import ExportFormat, export_spans
from ...store.scores import ScoreRecord, list_scores
from ...store.traces import SpanDetail, TraceRow, get_trace, list_traces, next_traces_cursor
from ..downloads import DOWNLOAD_RESPONSES, download
from ..errors import ApiError, error_responses
from ..services import ServicesDep
from .params import PAGED, CursorQuery, FormatQuery, IsoTime, RubricQuery, TraceIdPath, limit_query, page

router = APIRouter(prefix="/api/traces", tags=["traces"], responses=error_responses(400, 401))


Service = Annotated[str | None, Query(description="Only this service")]
Domain = Annotated[str | None, Query(description="Only this domain (summarization.domain)")]
Band = Annotated[str | None, Query(description="Only this length band (tldr, ...)")]
Since = Annotated[IsoTime | None, Query(description="Only spans from this time on (ISO 8601)")]


@router.get("", summary="Recent summarization spans, newest first; the next page's link in `Link`",
            responses=PAGED)
def traces(s: ServicesDep, request: Request, response: Response, limit: int = limit_query(20, "spans"),
           service: Service = None, domain: Domain = None, band: Band = None, since: Since = None,
           cursor: CursorQuery = None) -> list[TraceRow]:
    return page(request, response, lambda: list_traces(s.store, limit=limit, service=service, domain=domain,
                                                       band=band, since=since, cursor=cursor),
                next_traces_cursor, limit)


@router.get("/export", summary="Every matching span, whole (every column), as JSON lines or Parquet",
            response_class=StreamingResponse, responses=DOWNLOAD_RESPONSES)
def export(s: ServicesDep, format: FormatQuery = ExportFormat.JSONL, service: Service = None,
           domain: Domain = None, band: Band = None, since: Since = None) -> StreamingResponse:
    return download(lambda stream: export_spans(s.store, stream, format, service=service, domain=domain, band=band,
                                                since=since), format, "spans")


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

"""Summarization spans: the listing, one trace's spans, and one trace's scores."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request, Response
from starlette.responses import StreamingResponse

from ...contract.listing import TraceFilters
from ...contract.scores import ScoreRecord
from ...contract.traces import SpanDetail, TraceRow
from ...contract.values import IsoTime
from ...store.bulk_export import ExportFormat, export_spans
from ...store.listing import list_traces, next_traces_cursor
from ...store.scores import list_scores
from ...store.traces import get_trace
from ..downloads import DOWNLOAD_RESPONSES, download
from ..errors import ApiError, error_responses
from ..services import ServicesDep
from .params import PAGED, CursorQuery, FormatQuery, RubricQuery, TraceIdPath, known_rubric, limit_query, page

router = APIRouter(prefix="/api/traces", tags=["traces"], responses=error_responses(400, 401, 404))

# the listing's filters, from the one model the store, the client, the CLI and the Traces page use
Filters = Annotated[TraceFilters, Query()]
_FIELDS = TraceFilters.model_fields
Service = Annotated[str | None, Query(description=_FIELDS["service"].description)]
Domain = Annotated[str | None, Query(description=_FIELDS["domain"].description)]
Band = Annotated[str | None, Query(description=_FIELDS["band"].description)]
Since = Annotated[IsoTime | None, Query(description=_FIELDS["since"].description)]


@router.get("", summary="Recent summarization spans, newest first, searched and filtered; the next page's link "
                        "in `Link`", responses=PAGED)
def traces(s: ServicesDep, request: Request, response: Response, filters: Filters,
           limit: int = limit_query(20, "spans"), cursor: CursorQuery = None) -> list[TraceRow]:
    if filters.rubric is not None:
        known_rubric(s.store, filters.rubric)
    return page(request, response, lambda: list_traces(s.store, limit=limit, cursor=cursor, filters=filters),
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

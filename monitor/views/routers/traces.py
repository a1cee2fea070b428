"""Summarization spans: the listing, one trace's spans, and one trace's scores."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Literal, TypeAlias

from fastapi import APIRouter, Query, Request, Response
from starlette.responses import StreamingResponse

from ...contract.issues import parse_issue_id
from ...contract.scores import ScoreRecord
from ...contract.traces import SpanDetail, TraceRow
from ...store.bulk_export import ExportFormat, export_spans
from ...store.listing import (
    CERTAINTY_CHOICES,
    CONFIDENT,
    FAIL,
    PASS,
    UNSURE,
    VERDICT_CHOICES,
    TraceFilters,
    choice_flag,
    list_traces,
    next_traces_cursor,
)
from ...store.scores import list_scores
from ...store.traces import get_trace
from ..downloads import DOWNLOAD_RESPONSES, download
from ..errors import ApiError, error_responses
from ..services import ServicesDep
from .params import (
    ISSUE_ID_PATTERN,
    PAGED,
    CursorQuery,
    FormatQuery,
    IsoTime,
    RubricQuery,
    TraceIdPath,
    limit_query,
    page,
)

router = APIRouter(prefix="/api/traces", tags=["traces"], responses=error_responses(400, 401, 404))


Service = Annotated[str | None, Query(description="Only this service")]
Domain = Annotated[str | None, Query(description="Only this domain (summarization.domain)")]
Band = Annotated[str | None, Query(description="Only this length band (tldr, ...)")]
Since = Annotated[IsoTime | None, Query(description="Only spans from this time on (ISO 8601)")]
Until = Annotated[IsoTime | None, Query(description="Only spans before this time (ISO 8601)")]
Model = Annotated[str | None, Query(max_length=200, description="Only spans of this model")]
PromptVersion = Annotated[str | None, Query(max_length=200, description="Only spans of this prompt version")]
Text = Annotated[str | None, Query(max_length=200, description="Only spans whose source or summary holds this text "
                                                                 "(case aside)")]
IssueQuery = Annotated[str | None, Query(pattern=ISSUE_ID_PATTERN, max_length=40,
                                         description="Only the members of this issue in the latest run, like SW-3")]
if TYPE_CHECKING:
    VerdictName: TypeAlias = str
    CertaintyName: TypeAlias = str
else:  # the choices as the OpenAPI document states them, from the one place each is defined
    VerdictName = Literal[VERDICT_CHOICES]
    CertaintyName = Literal[CERTAINTY_CHOICES]
Verdict = Annotated[VerdictName | None, Query(description="Only spans whose latest judgement passed or failed "
                                                          "(of `rubric`, or of any rubric)")]
Certainty = Annotated[CertaintyName | None, Query(description="unsure: spans with a judgement recorded as unsure; "
                                                              "confident: judged spans with none")]


@router.get("", summary="Recent summarization spans, newest first, searched and filtered; the next page's link "
                        "in `Link`", responses=PAGED)
def traces(s: ServicesDep, request: Request, response: Response, limit: int = limit_query(20, "spans"),
           service: Service = None, domain: Domain = None, band: Band = None, since: Since = None,
           until: Until = None, model: Model = None, prompt_version: PromptVersion = None, q: Text = None,
           rubric: RubricQuery = None, verdict: Verdict = None, certainty: Certainty = None,
           issue: IssueQuery = None, cursor: CursorQuery = None) -> list[TraceRow]:
    f = TraceFilters(service=service, domain=domain, band=band, since=since, until=until, model=model,
                     prompt_version=prompt_version, text=q or None, rubric=rubric,
                     passed=choice_flag(verdict, PASS, FAIL, "verdict"),
                     unsure=choice_flag(certainty, UNSURE, CONFIDENT, "certainty"),
                     issue=parse_issue_id(issue) if issue else None)
    return page(request, response, lambda: list_traces(s.store, limit=limit, cursor=cursor, filters=f),
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

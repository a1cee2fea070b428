"""Issues to trackers: the issue page's Export button, its ticket list, and export by filters.

    POST /api/issues/SW-3/export {"to": "github"}                         -> ExportAnswer
    POST /api/exports {"to": "linear", "statuses": ["new"], "min_severity": "high"}   -> ExportAnswer

A tracker's refusal is a result with action ``failed``, not an error status; a tracker whose settings this
server lacks answers 409 naming them. One export runs at a time: two clicks must not race to create the same
ticket.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeAlias

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict, Field

from ...contract.exports import ExportAnswer, TicketList
from ...contract.values import ISSUE_ID_PATTERN
from ...exports.config import SEVERITIES, STATUSES
from ...exports.registry import TARGETS, target_problems
from ...exports.sync import export_issues, issue_exports
from ...issues.reads import issue_ticket
from ..errors import ApiError, error_responses
from ..services import Services, ServicesDep
from .params import WHOLE, IssueIdPath

router = APIRouter(prefix="/api", tags=["exports"], responses=error_responses(400, 401, 403, 409))

if TYPE_CHECKING:
    Target: TypeAlias = str
    Severity: TypeAlias = str
    Status: TypeAlias = str
else:  # the choices as the OpenAPI document states them, from the one place each is defined
    Target, Severity, Status = Literal[tuple(TARGETS)], Literal[SEVERITIES], Literal[STATUSES]
IssueId = Annotated[str, Field(pattern=ISSUE_ID_PATTERN, max_length=40)]


class ExportOne(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)  # JSON types as the schema says: 0 is no boolean
    to: Target
    dry_run: bool = Field(False, description="Answer what would be sent; send nothing")


class ExportMany(ExportOne):
    issue_ids: list[IssueId] | None = Field(None, description="These issues (like SW-3) instead of filters")
    statuses: list[Status] | None = Field(None, description="Only issues with these statuses")
    min_severity: Severity | None = None
    min_traces: Annotated[int, Field(ge=0, le=2**31), WHOLE] = 0


def _export(s: Services, to: str, issue_ids: list[str] | None, **filters: Any) -> ExportAnswer:
    try:
        with s.export_lock:
            results = export_issues(s.store, s.export_config, to, issue_ids, **filters)
    except ValueError as exc:
        if str(exc).startswith("no issue"):
            raise ApiError(404, str(exc)) from None
        # the tracker's credentials are the server's settings: a conflict with its configuration, not a bad request
        raise ApiError(409 if target_problems(to, s.export_config) else 400, str(exc)) from None
    return ExportAnswer(results=results)


@router.post("/issues/{issue_id}/export", summary="Create or update the issue's ticket, or send an alert",
             responses=error_responses(404))
def export(s: ServicesDep, issue_id: IssueIdPath, body: ExportOne) -> ExportAnswer:
    return _export(s, body.to, [issue_id.strip()], dry_run=body.dry_run)


@router.post("/exports", summary="Export the issues of the last run that the filters (or issue_ids) pick",
             responses=error_responses(404))
def export_many(s: ServicesDep, body: ExportMany) -> ExportAnswer:
    return _export(s, body.to, body.issue_ids or None, statuses=body.statuses, min_severity=body.min_severity,
                   min_traces=body.min_traces, dry_run=body.dry_run)


@router.get("/issues/{issue_id}/exports", summary="The issue's tickets: link, state in the tracker, last error")
def exports(s: ServicesDep, issue_id: IssueIdPath) -> TicketList:
    return TicketList(exports=[issue_ticket(r) for r in issue_exports(s.store, issue_id)])

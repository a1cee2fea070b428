"""Issues as the last clustering run left them, and one issue with its examples, history and tickets."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from ...contract.issues import IssueDetail, IssueList
from ...issues.reads import get_issue, issue_list
from ..errors import ApiError, error_responses
from ..services import ServicesDep
from .params import IssueIdPath

router = APIRouter(prefix="/api/issues", tags=["issues"], responses=error_responses(400, 401))


@router.get("", summary="Issues as the last clustering run left them")
def issues(s: ServicesDep, resolved: Annotated[bool, Query(description="Include resolved issues")] = True,
           hidden: Annotated[bool, Query(description="Include ignored, muted and merged issues")] = False
           ) -> IssueList:
    return issue_list(s.store, include_resolved=resolved, include_hidden=hidden)


@router.head("/{issue_id}", include_in_schema=False)
@router.get("/{issue_id}", responses=error_responses(404),
            summary="One issue: description, cause, fix, examples, history, tickets")
def issue(s: ServicesDep, issue_id: IssueIdPath) -> IssueDetail:
    found = get_issue(s.store, issue_id)
    if found is None:
        raise ApiError(404, f"no issue {issue_id.strip()}")
    return found

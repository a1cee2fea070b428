"""Triage: resolve, reopen, ignore, mute, merge, assign and comment on an issue, recorded with who and when.

    POST /api/issues/SW-3/triage {"action": "resolve", "by": "ana"}              -> TriageAnswer
    POST /api/issues/SW-5/triage {"action": "merge", "value": "SW-3"}
    POST /api/issues/SW-4/triage {"action": "mute", "value": "7d"}               # "" or none: until it regresses

``by`` names who did it; without it the event is the API token's (``api``). Refusals are one line: 404 for
an issue that is not there, 422 for an action that cannot be taken as asked (merge into itself, a comment with
no text, a mute for something that is not a duration): the body's form is the schema's, its meaning per action
is checked here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, TypeAlias

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict, Field

from ...contract.issues import TriageAnswer, issue_label
from ...issues.reads import get_issue
from ...issues.triage import MAX_NAME, MAX_TEXT, TriageAction, TriageError, UnknownIssue, act
from ...store.connection import Store
from ..errors import ApiError, error_responses
from ..services import ServicesDep
from .params import IssueIdPath

router = APIRouter(prefix="/api/issues", tags=["issues"], responses=error_responses(400, 401, 403, 404, 422))
API_ACTOR = "api"  # who an event is by when a request names nobody: the holder of the API token

if TYPE_CHECKING:
    Action: TypeAlias = str
else:  # the choices as the OpenAPI document states them, from the one place they are defined
    Action = Literal[TriageAction.values()]


class TriageBody(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)  # JSON types as the schema says
    action: Action
    by: str | None = Field(None, max_length=MAX_NAME, description="who does it (default: the API token, 'api')")
    value: str | None = Field(None, max_length=MAX_TEXT, description=(
        "merge: the issue to merge into (SW-3); assign: the name (empty unassigns); comment: the text; "
        "mute: a duration like 7d (empty: until it regresses)"))


def triage_issue(store: Store, issue_id: str, action: str, by: str, value: str, source: str) -> TriageAnswer:
    """Store the event and answer with the issue's new state; TriageError / UnknownIssue as :func:`act`."""
    event = act(store, issue_id, action, by=by, value=value, source=source)
    detail = get_issue(store, issue_label(event.number))
    status = detail.status if detail else ""
    hidden = detail.triage.hidden if detail else ""
    if detail is not None and detail.number != event.number:  # merged: it now reads as the issue it joined
        hidden = f"merged into {detail.issue_id}"
    return TriageAnswer(issue_label(event.number), event.action, event.by, event.at, event.value, status, hidden,
                        detail.triage.assignee if detail else "")


@router.post("/{issue_id}/triage", summary="Triage an issue: resolve, reopen, ignore, unignore, mute, unmute, "
                                           "merge, assign or comment")
def triage(s: ServicesDep, issue_id: IssueIdPath, body: TriageBody) -> TriageAnswer:
    try:
        return triage_issue(s.store, issue_id, body.action, body.by or API_ACTOR, body.value or "", "api")
    except UnknownIssue as exc:
        raise ApiError(404, str(exc)) from None
    except TriageError as exc:
        raise ApiError(422, str(exc)) from None

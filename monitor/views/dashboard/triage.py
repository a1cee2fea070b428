"""The issue page's triage: the form that resolves, ignores, mutes, merges, assigns and comments, and what it
posts to.

    context = triage_context(store, request, detail)       # the other issues to merge into, who you are
    answer = triage_from_form(store, "SW-3", fields, request)   # through routers.triage.triage_issue

Who did it is the name typed in the form, kept for the browser session in a cookie (the dashboard has one
token for everyone, so the name is what tells people apart).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote, unquote

from starlette.requests import Request

from ...contract.issues import IssueDetail, TriageAnswer
from ...issues.reads import issue_list
from ...issues.triage import MAX_NAME, TriageError
from ...store.connection import Store
from ..routers.triage import triage_issue

NAME_COOKIE = "sumwatch_name"
DASHBOARD_ACTOR = "dashboard"  # who an event is by when the form names nobody
MUTE_CHOICES = (("", "until it regresses"), ("1h", "1 hour"), ("1d", "1 day"), ("7d", "7 days"), ("30d", "30 days"))
# the form field that carries each action's value
VALUE_FIELD = {"merge": "into", "assign": "assignee", "comment": "comment", "mute": "mute_for"}


def actor(request: Request) -> str:
    """The name this browser gave on its last triage, or ""."""
    return unquote(request.cookies.get(NAME_COOKIE) or "")[:MAX_NAME]


def triage_context(store: Store, request: Request, detail: IssueDetail) -> dict[str, Any]:
    """What the issue page's triage form needs besides the issue."""
    others = [r for r in issue_list(store, include_hidden=False).issues if r.number != detail.number]
    return {"merge_choices": others, "actor": actor(request), "mute_choices": MUTE_CHOICES}


def triage_from_form(store: Store, issue_id: str, fields: dict[str, str], request: Request) -> TriageAnswer:
    """The form's action on ``issue_id``; TriageError (one line) as the API's."""
    action = fields.get("action", "")
    by = (fields.get("by") or actor(request) or DASHBOARD_ACTOR).strip()
    if len(by) > MAX_NAME:
        raise TriageError(f"a name is at most {MAX_NAME} characters")
    field = VALUE_FIELD.get(action)
    return triage_issue(store, issue_id, action, by, fields.get(field, "") if field else "", "dashboard")


def name_cookie(name: str) -> str:
    """The Set-Cookie value that remembers the name for this browser session."""
    return f"{NAME_COOKIE}={quote(name[:MAX_NAME])}; Path=/; SameSite=Strict; HttpOnly"

"""The issue page's triage: the form that resolves, ignores, mutes, merges, assigns and comments, and what it
posts to.

    context = triage_context(store, request, detail, export_config)  # issues to merge into, trackers, who you are
    confirm = merge_confirmation(store, "SW-5", fields)      # a merge's confirm page first (None: go ahead)
    answer = triage_from_form(store, "SW-3", fields, request)   # through routers.triage.triage_issue

Who did it is the name typed in the form, kept for the browser session in a cookie (the dashboard has one
token for everyone, so the name is what tells people apart).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote, unquote

from starlette.requests import Request

from ...contract.issues import IssueDetail, TriageAnswer, issue_label
from ...exports.config import ExportConfig
from ...exports.registry import TARGETS, target_problems
from ...exports.tracker import ALERT
from ...issues.reads import get_issue, issue_list
from ...issues.triage import MAX_NAME, TriageError, UnknownIssue, merge_target
from ...store.connection import Store
from ..routers.triage import triage_issue

NAME_COOKIE = "sumwatch_name"
DASHBOARD_ACTOR = "dashboard"  # who an event is by when the form names nobody
MUTE_CHOICES = (("", "until it regresses"), ("1h", "1 hour"), ("1d", "1 day"), ("7d", "7 days"), ("30d", "30 days"))
# the form field that carries each action's value
VALUE_FIELD = {"merge": "into", "assign": "assignee", "comment": "comment", "mute": "mute_for"}
CONFIRM_FIELD = "confirm"  # "yes" on the merge confirm page's form: a merge without it is asked about first


def actor(request: Request) -> str:
    """The name this browser gave on its last triage, or ""."""
    return unquote(request.cookies.get(NAME_COOKIE) or "")[:MAX_NAME]


def triage_context(store: Store, request: Request, detail: IssueDetail, config: ExportConfig) -> dict[str, Any]:
    """What the issue page's triage form needs besides the issue: the issues to merge into, the trackers this
    server can export to (the Export menu offers no other), who you are."""
    others = [r for r in issue_list(store, include_hidden=False).issues if r.number != detail.number]
    return {"merge_choices": others, "actor": actor(request), "mute_choices": MUTE_CHOICES,
            "export_targets": export_targets(config)}


def export_targets(config: ExportConfig) -> list[str]:
    """The ticket trackers whose settings are all there, in the registry's order."""
    return [name for name, kind in TARGETS.items() if kind.kind != ALERT and not target_problems(name, config)]


def merge_confirmation(store: Store, issue_id: str, fields: dict[str, str]) -> dict[str, Any] | None:
    """A merge the form has not confirmed: what its confirm page shows (both issues, the fields to post again);
    None for any other action, or a merge confirmed. TriageError / UnknownIssue (one line) for a merge that
    cannot be asked about."""
    if fields.get("action") != "merge" or fields.get(CONFIRM_FIELD) == "yes":
        return None
    number, into_number = merge_target(store, issue_id, fields.get(VALUE_FIELD["merge"]) or "")  # act's checks
    issue, into = get_issue(store, issue_label(number)), get_issue(store, issue_label(into_number))
    if issue is None or into is None:  # known to an earlier run only: not in the last one
        raise UnknownIssue(f"no issue {issue_label(number if issue is None else into_number)} in the last "
                           f"clustering run (see `sumwatch issues`)")
    return {"issue": issue, "into": into, "by": (fields.get("by") or "").strip()[:MAX_NAME]}


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

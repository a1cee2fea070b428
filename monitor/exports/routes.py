"""The dashboard's export button and the issue page's ticket list, over HTTP.

    POST /api/issues/{issue_id}/export  {"to": "github", "dry_run": false}  -> {"results": [ExportResult...]}
    GET  /api/issues/{issue_id}/exports                                  -> {"exports": [ExportRow...]}
    POST /api/exports  {"to": "linear", "statuses": ["new"], "min_severity": "high", "min_traces": 0,
                        "issue_ids": null, "dry_run": false}            -> {"results": [ExportResult...]}

Mounted by ``sumwatch up`` behind the same API token and CSRF check as every other state-changing route.
"""

from __future__ import annotations

import threading
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from ..issues.reads import parse_issue_id
from ..settings import Settings
from ..store.connection import Store
from .config import SEVERITIES, STATUSES, ExportConfig
from .registry import TARGETS
from .sync import export_issues, issue_exports


def export_routes(store: Store, settings: Settings, config: ExportConfig | None = None) -> list[Route]:
    """The routes; ``config`` defaults to the environment's (read once, here)."""
    config = config or ExportConfig.from_env()
    lock = threading.Lock()  # one export at a time: two clicks must not race to create the same ticket

    async def export(request: Request) -> JSONResponse:
        """Export the issue: create or update its ticket in a tracker, or send an alert."""
        issue_id = request.path_params["issue_id"]
        try:
            parse_issue_id(issue_id)
            body: Any = await request.json()
        except ValueError as exc:
            return JSONResponse({"error": str(exc) if "issue id" in str(exc) else "the body must be JSON"}, 400)
        if not isinstance(body, dict) or not isinstance(body.get("to"), str):
            return JSONResponse({"error": 'the body must be {"to": "<target>"}'}, 400)

        def run() -> list[dict[str, Any]]:
            with lock:
                results = export_issues(store, config, body["to"], [issue_id], dry_run=bool(body.get("dry_run")))
            return [r.to_json() for r in results]
        try:
            results = await run_in_threadpool(run)
        except ValueError as exc:
            status = 404 if str(exc).startswith("no issue") else 400
            return JSONResponse({"error": str(exc)}, status)
        return JSONResponse({"results": results})

    async def export_many(request: Request) -> JSONResponse:
        """Export the issues of the last clustering run that the filters pick (``sumwatch export --status``)."""
        try:
            body: Any = await request.json()
        except ValueError:
            return JSONResponse({"error": "the body must be JSON"}, 400)
        problem = _batch_problem(body)
        if problem:
            return JSONResponse({"error": problem}, 400)

        def run() -> list[dict[str, Any]]:
            with lock:
                results = export_issues(store, config, body["to"], body.get("issue_ids") or None,
                                        statuses=body.get("statuses"), min_severity=body.get("min_severity"),
                                        min_traces=int(body.get("min_traces") or 0),
                                        dry_run=bool(body.get("dry_run")))
            return [r.to_json() for r in results]
        try:
            results = await run_in_threadpool(run)
        except ValueError as exc:
            status = 404 if str(exc).startswith("no issue") else 400
            return JSONResponse({"error": str(exc)}, status)
        return JSONResponse({"results": results})

    async def exports(request: Request) -> JSONResponse:
        """The issue's tickets in every tracker: link, state there, last error."""
        try:
            rows = await run_in_threadpool(issue_exports, store, request.path_params["issue_id"])
        except ValueError as exc:
            return JSONResponse({"error": str(exc)}, 400)
        return JSONResponse({"exports": [r.to_json() for r in rows]})

    export.openapi = {  # type: ignore[attr-defined]  # read by the API's OpenAPI document
        "description": "Answers {\"results\": [{target, issue_id, action, external_id, url, tracker_state, error}]}; "
                       "a tracker's refusal is a result with action failed, not an error status.",
        "requestBody": {"required": True, "content": {"application/json": {"schema": {
            "type": "object", "required": ["to"], "properties": {
                "to": {"type": "string", "enum": list(TARGETS)},
                "dry_run": {"type": "boolean", "description": "Answer what would be sent; send nothing."}}}}}}}
    export_many.openapi = {  # type: ignore[attr-defined]
        "description": "Answers {\"results\": [...]} as the single export does, one result per issue the filters "
                       "(or issue_ids) pick; no filter picks every issue of the last run.",
        "requestBody": {"required": True, "content": {"application/json": {"schema": {
            "type": "object", "required": ["to"], "additionalProperties": False, "properties": {
                "to": {"type": "string", "enum": list(TARGETS)},
                "issue_ids": {"type": ["array", "null"], "items": {"type": "string"},
                              "description": "These issues (like SW-3) instead of filters"},
                "statuses": {"type": ["array", "null"], "items": {"type": "string", "enum": list(STATUSES)},
                             "description": "Only issues with these statuses"},
                "min_severity": {"type": ["string", "null"], "enum": [*SEVERITIES, None]},
                "min_traces": {"type": "integer", "minimum": 0},
                "dry_run": {"type": "boolean", "description": "Answer what would be sent; send nothing."}}}}}}}
    return [Route("/api/exports", export_many, methods=["POST"]),
            Route("/api/issues/{issue_id}/export", export, methods=["POST"]),
            Route("/api/issues/{issue_id}/exports", exports, methods=["GET"])]


def _batch_problem(body: Any) -> str | None:
    """Why a batch export's body cannot be run, in the words ``sumwatch export`` uses; None when it can."""
    if not isinstance(body, dict) or not isinstance(body.get("to"), str):
        return 'the body must be {"to": "<target>", ...}'
    unknown = sorted(set(body) - {"to", "issue_ids", "statuses", "min_severity", "min_traces", "dry_run"})
    if unknown:
        return f"unknown field {unknown[0]!r}"
    ids, statuses = body.get("issue_ids"), body.get("statuses")
    if ids is not None and not (isinstance(ids, list) and all(isinstance(i, str) for i in ids)):
        return "issue_ids must be a list of issue ids like SW-3"
    for issue_id in ids or []:
        try:
            parse_issue_id(issue_id)
        except ValueError as exc:
            return str(exc)
    if statuses is not None and not (isinstance(statuses, list) and all(s in STATUSES for s in statuses)):
        return f"statuses takes {', '.join(STATUSES)}"
    if body.get("min_severity") is not None and body["min_severity"] not in SEVERITIES:
        return f"min_severity takes {', '.join(SEVERITIES)}, got {body['min_severity']!r}"
    traces = body.get("min_traces", 0)
    if not isinstance(traces, int) or isinstance(traces, bool) or traces < 0:
        return "min_traces must be a whole number, 0 or more"
    return None

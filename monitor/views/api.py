"""Read API served by ``sumwatch up``, so the CLI works while that process holds the embedded database.

    GET /api/traces?limit=20&service=svc     -> [TraceRow, ...]     (limit 1 to 10,000)
    GET /api/traces/{trace_id}               -> [SpanDetail, ...]   (404 when absent)
    GET /api/issues?resolved=1               -> {"run": RunInfo, "issues": [IssueRow, ...]}   (resolved 1 or 0)
    GET /api/issues/{issue_id}               -> IssueDetail         (404 when absent)

A query parameter out of its range or of the wrong form answers 400 with the reason.

:mod:`.auth` protects it with the API token (``SUMWATCH_API_TOKEN``) when one is set.
:class:`~.readers.RemoteReader` is the client the CLI uses when the lock file names a running server.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from ..issues.reads import get_issue, issue_list
from ..settings import MAX_LIST_LIMIT, Settings
from ..store.connection import Store
from ..store.traces import get_trace, list_traces


def api_routes(store: Store, settings: Settings) -> list[Route]:
    def traces(request: Request) -> JSONResponse:  # sync: Starlette runs it in its thread pool
        try:
            limit = _int_param(request, "limit", 20, 1, MAX_LIST_LIMIT)
            rows = list_traces(store, limit=limit, service=request.query_params.get("service") or None)
        except ValueError as exc:
            return JSONResponse({"error": str(exc)}, status_code=400)
        return JSONResponse([r.to_json() for r in rows])

    def trace(request: Request) -> JSONResponse:
        try:
            spans = get_trace(store, request.path_params["trace_id"])
        except ValueError as exc:
            return JSONResponse({"error": str(exc)}, status_code=400)
        if not spans:
            return JSONResponse({"error": f"no trace {request.path_params['trace_id']}"}, status_code=404)
        return JSONResponse([s.to_json() for s in spans])

    def issues(request: Request) -> JSONResponse:
        resolved = request.query_params.get("resolved", "1").lower()
        if resolved not in _YES + _NO:
            return JSONResponse({"error": f"resolved must be 1 or 0 (or true, false), got {resolved[:40]!r}"},
                                status_code=400)
        return JSONResponse(issue_list(store, include_resolved=resolved in _YES).to_json())

    def issue(request: Request) -> JSONResponse:
        issue_id = request.path_params["issue_id"]
        try:
            found = get_issue(store, issue_id)
        except ValueError as exc:
            return JSONResponse({"error": str(exc)}, status_code=400)
        if found is None:
            return JSONResponse({"error": f"no issue {issue_id}"}, status_code=404)
        return JSONResponse(found.to_json())

    return [Route("/api/traces", traces), Route("/api/traces/{trace_id}", trace),
            Route("/api/issues", issues), Route("/api/issues/{issue_id}", issue)]


_YES, _NO = ("1", "true", "yes"), ("0", "false", "no")


def _int_param(request: Request, name: str, default: int, low: int, high: int) -> int:
    """A whole-number query parameter within [low, high]; ValueError says what is wrong."""
    raw = request.query_params.get(name)
    if raw is None:
        return default
    if not (raw.isascii() and raw.isdigit()) or len(raw) > 20:
        raise ValueError(f"{name} must be a whole number from {low} to {high}, got {raw[:40]!r}")
    value = int(raw)
    if not low <= value <= high:
        raise ValueError(f"{name} must be a whole number from {low} to {high}, got {value}")
    return value

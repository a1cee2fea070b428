"""Read API served by ``sumwatch up``, so the CLI works while that process holds the embedded database.

    GET /api/traces?limit=20&service=svc     -> [TraceRow, ...]
    GET /api/traces/{trace_id}               -> [SpanDetail, ...]   (404 when absent)
    GET /api/issues?resolved=1               -> {"run": RunInfo, "issues": [IssueRow, ...]}
    GET /api/issues/{issue_id}               -> IssueDetail         (404 when absent)

The same bearer token as ingest protects it when one is set. :class:`RemoteReader` is the client the
CLI uses when the lock file names a running server.
"""

from __future__ import annotations

import hmac
from dataclasses import fields
from typing import Any, Optional

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from .settings import Settings
from .store.connection import Store
from .traces import SpanDetail, TraceRow, get_trace, list_traces, normalize_trace_id


def api_routes(store: Store, settings: Settings) -> list[Route]:
    expected = f"Bearer {settings.ingest_token}".encode() if settings.ingest_token else None

    def authorized(request: Request) -> bool:
        return expected is None or hmac.compare_digest(request.headers.get("authorization", "").encode(), expected)

    def traces(request: Request) -> JSONResponse:  # sync: Starlette runs it in its thread pool
        if not authorized(request):
            return JSONResponse({"error": "unauthorized"}, status_code=401)
        try:
            limit = int(request.query_params.get("limit", "20"))
            rows = list_traces(store, limit=limit, service=request.query_params.get("service") or None)
        except ValueError as exc:
            return JSONResponse({"error": str(exc)}, status_code=400)
        return JSONResponse([r.to_json() for r in rows])

    def trace(request: Request) -> JSONResponse:
        if not authorized(request):
            return JSONResponse({"error": "unauthorized"}, status_code=401)
        try:
            spans = get_trace(store, request.path_params["trace_id"])
        except ValueError as exc:
            return JSONResponse({"error": str(exc)}, status_code=400)
        if not spans:
            return JSONResponse({"error": f"no trace {request.path_params['trace_id']}"}, status_code=404)
        return JSONResponse([s.to_json() for s in spans])

    def issues(request: Request) -> JSONResponse:
        from .issues import issues_document

        if not authorized(request):
            return JSONResponse({"error": "unauthorized"}, status_code=401)
        resolved = request.query_params.get("resolved", "1") not in ("0", "false", "no")
        return JSONResponse(issues_document(store, include_resolved=resolved))

    def issue(request: Request) -> JSONResponse:
        from .issues import issue_document

        if not authorized(request):
            return JSONResponse({"error": "unauthorized"}, status_code=401)
        issue_id = request.path_params["issue_id"]
        try:
            found = issue_document(store, issue_id)
        except ValueError as exc:
            return JSONResponse({"error": str(exc)}, status_code=400)
        if found is None:
            return JSONResponse({"error": f"no issue {issue_id}"}, status_code=404)
        return JSONResponse(found)

    return [Route("/api/traces", traces), Route("/api/traces/{trace_id}", trace),
            Route("/api/issues", issues), Route("/api/issues/{issue_id}", issue)]


class RemoteError(RuntimeError):
    """The running server answered with an error."""


class RemoteReader:
    """Reads traces and issues from a running ``sumwatch up`` instead of opening the database."""

    def __init__(self, base_url: str, token: Optional[str] = None, timeout: float = 30.0) -> None:
        import httpx

        headers = {"authorization": f"Bearer {token}"} if token else {}
        self._client = httpx.Client(base_url=base_url, headers=headers, timeout=timeout)
        self.base_url = base_url

    def _get(self, path: str, params: Optional[dict] = None) -> Any:
        import httpx

        try:
            response = self._client.get(path, params=params)
        except httpx.TransportError as exc:
            raise RemoteError(f"cannot reach the sumwatch server at {self.base_url}: {exc}") from None
        if response.status_code == 404:
            return None
        if response.status_code != 200:
            raise RemoteError(f"{self.base_url}{path}: {response.status_code} {response.text[:200]}")
        return response.json()

    def list_traces(self, limit: int = 20, service: Optional[str] = None) -> list[TraceRow]:
        data = self._get("/api/traces", {"limit": limit, **({"service": service} if service else {})})
        return [_record(TraceRow, d) for d in data]

    def get_trace(self, trace_id: str) -> list[SpanDetail]:
        data = self._get(f"/api/traces/{normalize_trace_id(trace_id)}")
        return [_record(SpanDetail, d) for d in data or []]

    def issues(self, include_resolved: bool = True) -> dict:
        return self._get("/api/issues", {"resolved": "1" if include_resolved else "0"})

    def issue(self, issue_id: str) -> Optional[dict]:
        from .issues import parse_issue_id

        return self._get(f"/api/issues/{parse_issue_id(issue_id)}")


def _record(cls: type, data: dict) -> Any:
    return cls(**{f.name: data[f.name] for f in fields(cls)})

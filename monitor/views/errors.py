"""How the API says no: every answer other than 200 is ``{"error": "<one line>"}`` with its status.

    raise ApiError(404, "no issue SW-9")         # in a route
    install_error_handlers(app)                   # once, in create_app

A parameter or body field pydantic refused answers 400 (not FastAPI's 422) with one line that names the
field and what it must be, e.g. ``limit must be a whole number from 1 to 10000, got 'abc'``: 400 says the
request breaks the OpenAPI document. What the document cannot state answers a status that says what happened:
404 a named thing the server does not have (an issue, a trace, a rubric it does not know), 409 a conflict with
its state or configuration (a job already running, a tracker without credentials), 422 content it cannot use
(a TOML definition that does not parse, a cursor it did not give, a shard i/N with i >= N, a verdict that is not
one of the item's rubric).

A dashboard page says no the same way, from the same handlers: a page's route is a :class:`PageRoute`, and a
refusal there (``ApiError``, a parameter pydantic refused, a path the server does not have) answers the
dashboard's error page with the same status and message, or the JSON to a request that asks for JSON.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Coroutine
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.routing import APIRoute
from pydantic import BaseModel
from starlette.exceptions import HTTPException
from starlette.responses import Response

from ..contract.values import validation_message


class ApiError(Exception):
    """An answer other than 200: ``raise ApiError(409, "score now is already running")``."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status, self.message = status, message


class ErrorBody(BaseModel):
    """What every refusal answers."""

    error: str


def error_responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI ``responses`` entries for the refusals a route can answer."""
    text = {400: "The request breaks this document: the reason is in `error`", 401: "No or wrong API token",
            403: "Cross-site request without the CSRF token", 404: "Not found: a named thing (an issue, a trace, "
                                                                   "a rubric, ...) this server does not have",
            409: "In conflict with the server's state or configuration: the same job is already running, or a "
                 "tracker or target it names is not configured",
            413: "The body is over SUMWATCH_MAX_BODY_BYTES",
            422: "Well formed, but its content cannot be used (what JSON Schema cannot state): the reason is in "
                 "`error`"}
    return {s: {"model": ErrorBody, "description": text.get(s, "Refused")} for s in statuses}


class PageRoute(APIRoute):
    """The route of a dashboard page: a refusal answers an HTML page, and a ValueError its page's builders raise
    (a value the page cannot use, an id of the wrong form from the store's readers) answers 400 with its
    message."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def page_handler(request: Request) -> Response:
            try:
                return await handler(request)
            except ValueError as exc:
                raise ApiError(400, str(exc)) from None

        return page_handler


# What answers a refusal on a page: (request, status, message) to the dashboard's error page
PageProblem = Callable[[Request, int, str], Response]
# paths that are never a page, for a request no route matched (an unknown path under /api answers JSON)
_NOT_PAGES = ("/api/", "/v1/", "/static/", "/healthz", "/readyz")


def wants_page(request: Request) -> bool:
    """Whether a refusal answers an HTML page: on a page's route, or on a path no route has outside the API,
    OTLP, probes and static assets; unless the request asks for JSON (the labelling keys do)."""
    if "application/json" in request.headers.get("accept", ""):
        return False
    route = request.scope.get("route")
    if route is not None:
        return isinstance(route, PageRoute)
    path = request.url.path
    return path != "/api" and not path.startswith(_NOT_PAGES)


def install_error_handlers(app: FastAPI, page: PageProblem | None = None) -> None:
    """Every refusal as ``{"error": ...}``, or as ``page`` renders it where :func:`wants_page` says so."""

    def answer(request: Request, status: int, message: str, headers: dict[str, str] | None = None) -> Response:
        if page is None or not wants_page(request):
            return JSONResponse({"error": message}, status_code=status, headers=headers)
        shown = page(request, status, message)
        shown.headers.update(headers or {})
        return shown

    async def api_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, ApiError)
        return answer(request, exc.status, exc.message)

    async def invalid(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, RequestValidationError)
        return answer(request, 400, validation_message(list(exc.errors())))

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        detail = exc.detail if isinstance(exc.detail, str) else "refused"
        headers = getattr(exc, "headers", None)
        if exc.status_code == 405:  # every method the path takes, not only the first route's that matched it
            allow = allowed_methods(request, (headers or {}).get("Allow"))
            headers = {**(headers or {}), **({"Allow": allow} if allow else {})}
        if page is not None and wants_page(request):
            return answer(request, exc.status_code, _page_detail(request, exc.status_code, detail), headers)
        return answer(request, exc.status_code, detail.lower() if detail == "Not Found" else detail, headers)

    app.add_exception_handler(ApiError, api_error)
    app.add_exception_handler(RequestValidationError, invalid)
    app.add_exception_handler(HTTPException, http_error)


def _page_detail(request: Request, status: int, detail: str) -> str:
    """What a page says for Starlette's own refusals (an unknown path, a method the route does not take)."""
    if status == 404 and detail == "Not Found":
        return f"There is no page {request.url.path}."
    if status == 405 and detail == "Method Not Allowed":
        return f"{request.url.path} does not take {request.method}."
    return detail


_METHODS = ("delete", "get", "head", "patch", "post", "put")


def allowed_methods(request: Request, given: str | None) -> str | None:
    """The methods the API's document gives the request's path, as a 405's Allow header lists them: the path's
    own entry (``/api/experiments``: GET and POST) before one with parameters that also matches it
    (``/api/actions/{action}`` does not speak for ``/api/actions/score``). Starlette names only the first
    matching route's methods, and a path may have a GET and a POST route. A path the document lacks (a page)
    keeps ``given``."""
    best: tuple[int, dict[str, Any]] | None = None
    for template, operations in request.app.openapi().get("paths", {}).items():
        pattern = re.sub(r"\\\{[^/]+?\\\}", "[^/]+", re.escape(template))
        if re.fullmatch(pattern, request.url.path) and (best is None or template.count("{") < best[0]):
            best = (template.count("{"), operations)
    if best is None:
        return given
    return ", ".join(m.upper() for m in _METHODS if m in best[1])

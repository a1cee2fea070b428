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
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel
from starlette.exceptions import HTTPException

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


def install_error_handlers(app: FastAPI) -> None:
    async def api_error(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, ApiError)
        return JSONResponse({"error": exc.message}, status_code=exc.status)

    async def invalid(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, RequestValidationError)
        return JSONResponse({"error": validation_message(list(exc.errors()))}, status_code=400)

    async def http_error(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, HTTPException)
        detail = exc.detail if isinstance(exc.detail, str) else "refused"
        headers = getattr(exc, "headers", None)
        return JSONResponse({"error": detail.lower() if detail == "Not Found" else detail},
                            status_code=exc.status_code, headers=headers)

    app.add_exception_handler(ApiError, api_error)
    app.add_exception_handler(RequestValidationError, invalid)
    app.add_exception_handler(HTTPException, http_error)

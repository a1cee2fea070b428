"""Parameters several routers take, declared once so the OpenAPI document states what the server checks."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeAlias, TypeVar

from fastapi import Depends, Path, Query, Request, Response
from pydantic import BeforeValidator, Field
from pydantic_core import PydanticCustomError

from ...rubrics.definition import BUILTIN_NAMES, RUBRIC_NAME
from ...settings import JUDGE_MODES, MAX_LIST_LIMIT
from ...store.bulk_export import ExportFormat
from ...store.connection import Store
from ...store.judges import check_rubric
from ..errors import PATTERN_MEANS, ApiError
from ..services import ServicesDep

if TYPE_CHECKING:
    JudgeModeName: TypeAlias = str
else:  # the choices as the OpenAPI document states them, from the one place each is defined
    JudgeModeName = Literal[JUDGE_MODES]
TRACE_ID_PATTERN = "^[0-9a-fA-F]{32}$"
ISSUE_ID_PATTERN = r"^\s*(?:[A-Za-z]+-)?\d+\s*$"

Row = TypeVar("Row")

PATTERN_MEANS[TRACE_ID_PATTERN] = "trace id must be 32 hex characters"
PATTERN_MEANS[ISSUE_ID_PATTERN] = "an issue id looks like SW-12 (or just 12)"

TraceIdPath = Annotated[str, Path(pattern=TRACE_ID_PATTERN, description="32-hex trace id")]
IssueIdPath = Annotated[str, Path(pattern=ISSUE_ID_PATTERN, max_length=40, description="Issue id, like SW-3")]

# A rubric is a built-in one or one a team promoted into this database, so the schema can only state its
# form; which names exist is checked against the store (400 naming the known ones).
RUBRIC_PATTERN = f"^{RUBRIC_NAME.pattern}$"
PATTERN_MEANS[RUBRIC_PATTERN] = "rubric must be a rubric name (lower-case letters, digits and _), like factuality"
Rubric = Annotated[str, Field(pattern=RUBRIC_PATTERN, max_length=40, examples=list(BUILTIN_NAMES),
                              description="A built-in rubric or one promoted into this database")]


def known_rubric(store: Store, rubric: str) -> str:
    """``rubric`` when the database knows it, else the API's 400: ``known_rubric(s.store, body.rubric)``."""
    try:
        return check_rubric(store, rubric)
    except ValueError as exc:
        raise ApiError(400, str(exc)) from None


def _rubric_query(s: ServicesDep, rubric: Annotated[str | None, Query(
        pattern=RUBRIC_PATTERN, max_length=40, examples=list(BUILTIN_NAMES),
        description="Only this rubric: a built-in one or one promoted into this database")] = None) -> str | None:
    return None if rubric is None else known_rubric(s.store, rubric)


def _rubric_path(s: ServicesDep, rubric: Annotated[str, Path(
        pattern=RUBRIC_PATTERN, max_length=40, examples=list(BUILTIN_NAMES),
        description="A built-in rubric or one promoted into this database")]) -> str:
    return known_rubric(s.store, rubric)


RubricQuery = Annotated[str | None, Depends(_rubric_query)]
RubricPath = Annotated[str, Depends(_rubric_path)]
_NUMBER = re.compile(r"\s*[+-]?[0-9]+(\.[0-9]*)?\s*")


def _not_a_number(value: Any) -> Any:
    # pydantic reads a number as Unix seconds; the schema says ISO 8601 (date-time), so that is what is taken
    if isinstance(value, int | float) or (isinstance(value, str) and _NUMBER.fullmatch(value)):
        raise PydanticCustomError("datetime_from_number", "a time must be ISO 8601, not a number")
    return value


IsoTime = Annotated[datetime, BeforeValidator(_not_a_number)]


def limit_query(default: int, what: str) -> Any:
    return Query(default, ge=1, le=MAX_LIST_LIMIT, description=f"How many {what} (at most {MAX_LIST_LIMIT:,})")


CursorQuery = Annotated[str | None, Query(max_length=400, description="The page after the one whose `X-Next-Cursor` "
                                                                      "(or `Link: rel=next`) gave this")]
FormatQuery = Annotated[ExportFormat, Query(description="jsonl or parquet")]
# the answer of a listing that pages: its next page, when there is one
PAGED: dict[int | str, dict[str, Any]] = {200: {"description": "One page, newest first", "headers": {
    "X-Next-Cursor": {"description": "Pass as `cursor` for the next page; absent on the last page",
                      "schema": {"type": "string"}},
    "Link": {"description": "The next page's URL, as `<url>; rel=\"next\"` (RFC 8288)", "schema": {"type": "string"}}}}}


def page(request: Request, response: Response, read: Callable[[], list[Row]],
         next_cursor: Callable[[list[Row], int], str | None], limit: int) -> list[Row]:
    """One page of a listing (a cursor the server did not give answers 400), with the next page's place in
    ``X-Next-Cursor`` and ``Link`` (the same query with ``cursor``) when there is one."""
    try:
        rows = read()
    except ValueError as exc:
        raise ApiError(400, str(exc)) from None
    cursor = next_cursor(rows, limit)
    if cursor is not None:
        url = request.url.include_query_params(cursor=cursor)
        response.headers["X-Next-Cursor"] = cursor
        response.headers["Link"] = f'<{url.path}?{url.query}>; rel="next"'
    return rows

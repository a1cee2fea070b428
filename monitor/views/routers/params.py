"""Parameters several routers take, declared once so the OpenAPI document states what the server checks."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeAlias, TypeVar

from fastapi import Depends, Path, Query, Request, Response
from pydantic import BeforeValidator, Field

from ...contract.values import CURSOR_PATTERN, ISSUE_ID_PATTERN, PATTERN_MEANS, RUBRIC_PATTERN
from ...rubrics.definition import BUILTIN_NAMES
from ...settings import JUDGE_MODES, MAX_LIST_LIMIT, parse_duration
from ...store.bulk_export import ExportFormat
from ...store.connection import Store
from ...store.judges import check_rubric
from ..errors import ApiError, error_responses
from ..services import ServicesDep

if TYPE_CHECKING:
    JudgeModeName: TypeAlias = str
else:  # the choices as the OpenAPI document states them, from the one place each is defined
    JudgeModeName = Literal[JUDGE_MODES]
TRACE_ID_PATTERN = "^[0-9a-fA-F]{32}$"

Row = TypeVar("Row")

PATTERN_MEANS[TRACE_ID_PATTERN] = "trace id must be 32 hex characters"

TraceIdPath = Annotated[str, Path(pattern=TRACE_ID_PATTERN, description="32-hex trace id")]
IssueIdPath = Annotated[str, Path(pattern=ISSUE_ID_PATTERN, max_length=40, description="Issue id, like SW-3")]

# A rubric is a built-in one or one a team promoted into this database, so the schema can only state its
# form; a name the database does not know is a missing resource (404 naming the known ones).
Rubric = Annotated[str, Field(pattern=RUBRIC_PATTERN, max_length=40, examples=list(BUILTIN_NAMES),
                              description="A built-in rubric or one promoted into this database (404 for another)")]


def known_rubric(store: Store, rubric: str) -> str:
    """``rubric`` when the database knows it, else the API's 404: ``known_rubric(s.store, body.rubric)``."""
    try:
        return check_rubric(store, rubric)
    except ValueError as exc:
        raise ApiError(404, str(exc)) from None


def _rubric_query(s: ServicesDep, rubric: Annotated[str | None, Query(
        pattern=RUBRIC_PATTERN, max_length=40, examples=list(BUILTIN_NAMES),
        description="Only this rubric: a built-in one or one promoted into this database (404 for another)")] = None
                  ) -> str | None:
    return None if rubric is None else known_rubric(s.store, rubric)


def _rubric_path(s: ServicesDep, rubric: Annotated[str, Path(
        pattern=RUBRIC_PATTERN, max_length=40, examples=list(BUILTIN_NAMES),
        description="A built-in rubric or one promoted into this database (404 for another)")]) -> str:
    return known_rubric(s.store, rubric)


RubricQuery = Annotated[str | None, Depends(_rubric_query)]
RubricPath = Annotated[str, Depends(_rubric_path)]
def limit_query(default: int, what: str) -> Any:
    return Query(default, ge=1, le=MAX_LIST_LIMIT, description=f"How many {what} (at most {MAX_LIST_LIMIT:,})")


# a cursor of the form CURSOR_PATTERN that the server did not give answers 422


def _cursor(cursor: Annotated[str | None, Query(
        pattern=CURSOR_PATTERN, max_length=400, description="The page after the one whose `X-Next-Cursor` (or "
                                                            "`Link: rel=next`) gave this; empty: the first page")]
            = None) -> str | None:
    return cursor or None


CursorQuery = Annotated[str | None, Depends(_cursor)]
FormatQuery = Annotated[ExportFormat, Query(description="jsonl or parquet")]
# the answer of a listing that pages: its next page, when there is one
PAGED: dict[int | str, dict[str, Any]] = {200: {"description": "One page, newest first", "headers": {
    "X-Next-Cursor": {"description": "Pass as `cursor` for the next page; absent on the last page",
                      "schema": {"type": "string"}},
    "Link": {"description": "The next page's URL, as `<url>; rel=\"next\"` (RFC 8288)", "schema": {"type": "string"}}}},
    **error_responses(422)}


def page(request: Request, response: Response, read: Callable[[], list[Row]],
         next_cursor: Callable[[list[Row], int], str | None], limit: int) -> list[Row]:
    """One page of a listing (a well-formed cursor the server did not give answers 422), with the next page's
    place in ``X-Next-Cursor`` and ``Link`` (the same query with ``cursor``) when there is one."""
    try:
        rows = read()
    except ValueError as exc:
        raise ApiError(422, str(exc)) from None
    cursor = next_cursor(rows, limit)
    if cursor is not None:
        url = request.url.include_query_params(cursor=cursor)
        response.headers["X-Next-Cursor"] = cursor
        response.headers["Link"] = f'<{url.path}?{url.query}>; rel="next"'
    return rows


def _whole(value: Any) -> Any:
    return int(value) if isinstance(value, float) and value.is_integer() else value


# JSON Schema's integer is any number with no fraction, 20.0 included, where a strict model takes only 20: a body's
# whole number is ``Annotated[int, Field(ge=1), WHOLE]`` (its bounds before WHOLE, so the schema states them)
WHOLE = BeforeValidator(_whole)

# settings.parse_duration's syntax as the schema states it: a number more than 0 (digits, no exponent) and a unit,
# spaces around; spaces only, as JSON Schema's \s and Python's differ. The pattern is checked before the value is
# read, so the server takes exactly what it says. A duration longer than the longest one kept (36500d) is read
# as that longest one.
DURATION_PATTERN = r"^ *(0*[1-9][0-9]*(\.[0-9]+)?|0+\.[0-9]*[1-9][0-9]*) *[smhdwSMHDW] *$"
PATTERN_MEANS[DURATION_PATTERN] = "{name}: a duration is a positive number with a unit s, m, h, d or w (like 24h or 7d)"
LONGEST_DURATION = "36500d"


def capped_duration(text: str) -> str:
    """``text`` (a field DURATION_PATTERN checked), or the longest duration kept when it is longer:
    ``capped_duration("99999d") == "36500d"``."""
    try:
        parse_duration(text)
    except ValueError:  # the pattern holds, so its length is all parse_duration can refuse
        return LONGEST_DURATION
    return text

"""The forms of values both sides check, each written once: a choice among names, a rubric's name, an issue id,
a cursor, a time.

    one_of("verdict", "maybe", ("pass", "fail"))     # ValueError: verdict must be one of pass, fail, got 'maybe'
    RUBRIC_NAME.fullmatch("factuality")              # a rubric's name: lower-case letters, digits and _

The API states the patterns in its OpenAPI document; the CLI and the dashboard refuse the same values with the
same words before anything is asked.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import datetime
from typing import Annotated, Any

from pydantic import BeforeValidator
from pydantic_core import PydanticCustomError


def choice_error(name: str, value: object, choices: Iterable[object]) -> str:
    """The one line that refuses a value outside its choices: ``verdict must be one of pass, fail, got 'x'``
    (without a name where the caller names the value itself: ``must be one of ...``)."""
    shown = repr(value[:40] + ("…" if len(value) > 40 else "")) if isinstance(value, str) else repr(value)
    return f"{name} must be one of {', '.join(str(c) for c in choices)}, got {shown}".lstrip()


def one_of(name: str, value: str, choices: Iterable[str]) -> str:
    """``value`` when it is one of ``choices``, else ValueError with :func:`choice_error`'s line."""
    listed = tuple(choices)
    if value not in listed:
        raise ValueError(choice_error(name, value, listed))
    return value


RUBRIC_NAME_PATTERN = r"[a-z][a-z0-9_]{0,39}"
RUBRIC_NAME = re.compile(RUBRIC_NAME_PATTERN)
RUBRIC_PATTERN = f"^{RUBRIC_NAME_PATTERN}$"  # anchored, as JSON Schema reads a pattern
ISSUE_ID_PATTERN = r"^\s*(?:[A-Za-z]+-)?\d+\s*$"
# a cursor is URL-safe base64 (store/paging.py writes it)
CURSOR_PATTERN = "^[A-Za-z0-9_-]*$"
_NUMBER = re.compile(r"\s*[+-]?[0-9]+(\.[0-9]*)?\s*")


def _not_a_number(value: Any) -> Any:
    # pydantic reads a number as Unix seconds; the schema says ISO 8601 (date-time), so that is what is taken
    if isinstance(value, int | float) or (isinstance(value, str) and _NUMBER.fullmatch(value)):
        raise PydanticCustomError("datetime_from_number", "a time must be ISO 8601, not a number")
    return value


IsoTime = Annotated[datetime, BeforeValidator(_not_a_number)]


# what a pattern means, for the refusal of a value that does not match it (the API's routers register their own)
PATTERN_MEANS: dict[str, str] = {
    ISSUE_ID_PATTERN: "an issue id looks like SW-12 (or just 12)",
    RUBRIC_PATTERN: "rubric must be a rubric name (lower-case letters, digits and _), like factuality",
    CURSOR_PATTERN: "cursor is not one this server gave: it holds characters other than A-Z a-z 0-9 - _",
}


def _shown(value: Any) -> str:
    text = repr(value) if isinstance(value, str) else str(value)
    return text[:40] + ("…" if len(text) > 40 else "")


def validation_message(errors: list[Any]) -> str:
    """The first problem pydantic found, as a person would say it."""
    if not errors:
        return "bad request"
    first = errors[0]
    loc = [p for p in first.get("loc", ()) if p not in ("query", "path", "body", "header")]
    name = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in loc).lstrip(".") or "the body"
    kind, ctx, given = first.get("type", ""), first.get("ctx") or {}, first.get("input")
    got = f", got {_shown(given)}" if given is not None and kind != "missing" else ""
    if kind == "missing":
        return f"{name} is required"
    if kind == "extra_forbidden":
        return f"unknown field {name}"
    if kind in ("json_invalid", "json_type"):
        return "the body must be JSON"
    if kind in ("model_attributes_type", "dict_type", "model_type") and not loc:
        return "the body must be a JSON object"
    if kind in ("int_parsing", "int_from_float", "int_type", "int_parsing_size"):
        return f"{name} must be a whole number{got}"
    if kind in ("float_parsing", "float_type"):
        return f"{name} must be a number{got}"
    if kind in ("bool_parsing", "bool_type"):
        return f"{name} must be true or false (or 1, 0){got}"
    if kind in ("greater_than_equal", "greater_than"):
        low = ctx.get("ge", ctx.get("gt"))
        return f"{name} must be {'at least' if kind.endswith('equal') else 'more than'} {low}{got}"
    if kind in ("less_than_equal", "less_than"):
        high = ctx.get("le", ctx.get("lt"))
        return f"{name} must be {'at most' if kind.endswith('equal') else 'less than'} {high}{got}"
    if kind in ("literal_error", "enum"):
        return f"{name} must be one of {ctx.get('expected', '')}{got}"
    if kind == "string_pattern_mismatch":
        meaning = PATTERN_MEANS.get(str(ctx.get("pattern")))
        return f"{meaning.format(name=name)}{got}" if meaning else f"{name} must match {ctx.get('pattern')}{got}"
    if kind in ("string_type", "list_type"):
        return f"{name} must be a {'string' if kind == 'string_type' else 'list'}{got}"
    if kind.startswith("datetime"):
        return f"{name} must be an ISO 8601 time like 2026-11-20T12:00:00Z{got}"
    if kind == "value_error":
        return f"{name}: {str(first.get('msg', '')).removeprefix('Value error, ')}"
    return f"{name}: {first.get('msg', 'invalid')}{got}"

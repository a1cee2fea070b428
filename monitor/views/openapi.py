"""The API's route table and its OpenAPI 3.1 document, made from the same records.

    schemas = Schemas()
    Endpoint("GET", "/api/traces", "List spans", list_traces, schemas.array(TraceRow),
             params=(Param("limit", integer(1, 10_000), "How many", default=20),))
    routes = [e.route() for e in endpoints]; document = openapi_document(endpoints, schemas)

A record's schema is read from its dataclass fields and their types, so a field added to a record shows
up in the document by itself; a test checks real answers against it.
"""

from __future__ import annotations

import dataclasses
import json
import types
import typing
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal, Union, get_args, get_origin

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

Schema = dict[str, Any]
OPENAPI_PATH = "/api/openapi.json"
_YES, _NO = ("1", "true", "yes"), ("0", "false", "no")
_ERROR: Schema = {"$ref": "#/components/schemas/Error"}
_STATUS_TEXT = {400: "Bad request: the reason is in `error`", 401: "No or wrong API token",
                403: "Cross-site request without the CSRF token", 404: "Not found",
                409: "The same action is already running"}


class ApiError(Exception):
    """An answer other than 200: ``raise ApiError(404, "no issue SW-9")``."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status, self.message = status, message


def integer(low: int, high: int) -> Schema:
    return {"type": "integer", "minimum": low, "maximum": high}


def string(*choices: str, pattern: str | None = None) -> Schema:
    schema: Schema = {"type": "string"}
    if choices:
        schema["enum"] = list(choices)
    if pattern:
        schema["pattern"] = pattern
    return schema


BOOLEAN: Schema = {"type": "boolean"}
NUMBER: Schema = {"type": "number"}


@dataclass(frozen=True)
class Param:
    """A query parameter (or a path parameter, when its name is in the path)."""

    name: str
    schema: Schema
    description: str
    default: Any = None
    required: bool = False


@dataclass(frozen=True)
class Endpoint:
    """One route: how it is called, what it answers, and the function that answers it.

    ``handler(request, args)`` gets the parameters (and the JSON body's fields) parsed and checked, and
    returns a record, a list of records or plain JSON data; ApiError for another status."""

    method: str
    path: str
    summary: str
    handler: Callable[[Request, dict[str, Any]], Any]
    response: Schema
    params: tuple[Param, ...] = ()
    body: Schema | None = None
    errors: tuple[int, ...] = (400,)
    tag: str = ""
    description: str = ""
    head: bool = False  # also documents HEAD (Starlette answers it for every GET): 200 or 404, no body
    # a body that is not JSON (JSON Lines, say): the handler gets its bytes as args["body"]
    raw_body: str | None = None

    def path_params(self) -> list[str]:
        return [p.strip("{}") for p in self.path.split("/") if p.startswith("{")]

    def route(self) -> Route:
        async def endpoint(request: Request) -> Response:
            try:
                args = {p.name: parse_param(p, request.path_params.get(p.name, request.query_params.get(p.name)))
                        for p in self.params}
                if self.raw_body is not None:
                    args["body"] = await request.body()
                elif self.body is not None:
                    args.update(check_body(self.body, await _json_body(request)))
                result = await run_in_threadpool(self.handler, request, args)
            except ApiError as exc:
                return JSONResponse({"error": exc.message}, status_code=exc.status)
            except ValueError as exc:  # a value the store or a record refused: the request's fault
                return JSONResponse({"error": str(exc)}, status_code=400)
            return JSONResponse(to_jsonable(result))

        return Route(self.path, endpoint, methods=[self.method])


async def _json_body(request: Request) -> Any:
    raw = await request.body()
    if not raw.strip():
        return {}
    try:
        return json.loads(raw)
    except (ValueError, RecursionError):
        raise ApiError(400, "the body must be a JSON object") from None


def to_jsonable(value: Any) -> Any:
    if hasattr(value, "to_json"):
        return value.to_json()
    if isinstance(value, list):
        return [to_jsonable(v) for v in value]
    return value


def parse_param(param: Param, raw: str | None) -> Any:
    """A parameter's text as its schema's type; ApiError(400) saying what is wrong."""
    if raw is None or raw == "":
        if param.required:
            raise ApiError(400, f"{param.name} is required")
        return param.default
    kind = param.schema.get("type")
    if kind == "integer":
        low, high = param.schema["minimum"], param.schema["maximum"]
        if not (raw.isascii() and raw.isdigit()) or len(raw) > 20:
            raise ApiError(400, f"{param.name} must be a whole number from {low} to {high}, got {raw[:40]!r}")
        value = int(raw)
        if not low <= value <= high:
            raise ApiError(400, f"{param.name} must be a whole number from {low} to {high}, got {value}")
        return value
    if kind == "boolean":
        if raw.lower() not in _YES + _NO:
            raise ApiError(400, f"{param.name} must be 1 or 0 (or true, false), got {raw[:40]!r}")
        return raw.lower() in _YES
    _check_string(param.name, param.schema, raw)
    return raw


def _check_string(name: str, schema: Schema, value: str) -> None:
    choices = schema.get("enum")
    if choices and value not in choices:
        raise ApiError(400, f"{name} must be one of {', '.join(choices)}, got {value[:40]!r}")


def check_body(schema: Schema, data: Any) -> dict[str, Any]:
    """The fields of a JSON body checked against an object schema of plain fields (no nesting)."""
    if not isinstance(data, dict):
        raise ApiError(400, "the body must be a JSON object")
    props: dict[str, Schema] = schema.get("properties", {})
    unknown = sorted(set(data) - set(props))
    if unknown:
        raise ApiError(400, f"unknown field(s) {', '.join(unknown)[:200]} (known: {', '.join(props)})")
    missing = [k for k in schema.get("required", []) if k not in data]
    if missing:
        raise ApiError(400, f"missing field(s) {', '.join(missing)}")
    checked: dict[str, Any] = {}
    for name, sub in props.items():
        value = data.get(name)
        if value is None:
            checked[name] = None
            continue
        kinds = sub.get("type")
        kinds = kinds if isinstance(kinds, list) else [kinds]
        ok = any(_is(kind, value) for kind in kinds)
        if not ok:
            raise ApiError(400, f"{name} must be {' or '.join(k for k in kinds if k != 'null')}, got {value!r:.40}")
        if isinstance(value, str):
            _check_string(name, sub, value)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            low, high = sub.get("minimum"), sub.get("maximum")
            if (low is not None and value < low) or (high is not None and value > high):
                raise ApiError(400, f"{name} must be from {low} to {high}, got {value!r}")
        checked[name] = value
    return checked


def _is(kind: str, value: Any) -> bool:
    if kind == "string":
        return isinstance(value, str)
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    return kind == "null" and value is None


@dataclass
class Schemas:
    """The named schemas of the document (``components.schemas``), read from records on first use."""

    named: dict[str, Schema] = field(default_factory=dict)

    def ref(self, cls: type) -> Schema:
        """``{"$ref": ...}`` to a dataclass's schema: its fields as JSON properties, all required."""
        name = cls.__name__
        if name not in self.named:
            self.named[name] = {}  # a placeholder while the fields are read (records that nest themselves)
            self.named[name] = self.fields(cls)
        return {"$ref": f"#/components/schemas/{name}"}

    def define(self, name: str, schema: Schema) -> Schema:
        self.named[name] = schema
        return {"$ref": f"#/components/schemas/{name}"}

    def array(self, cls: type) -> Schema:
        return {"type": "array", "items": self.ref(cls)}

    def fields(self, cls: type, *, leave_out: Sequence[str] = (), **more: Schema) -> Schema:
        """An object schema of a dataclass's fields (less ``leave_out``), plus ``more`` properties (which
        replace fields of the same name)."""
        hints = typing.get_type_hints(cls)
        props = {f.name: self.of(hints[f.name]) if f.name not in more else more[f.name]
                 for f in dataclasses.fields(cls) if f.name not in leave_out}
        props.update(more)
        return {"type": "object", "properties": props, "required": list(props), "additionalProperties": False}

    def of(self, hint: Any) -> Schema:
        """The JSON schema of a type as ``to_json`` writes it (datetimes as ISO text)."""
        origin = get_origin(hint)
        if origin in (Union, types.UnionType):
            options = [self.of(a) for a in get_args(hint)]
            return {"anyOf": options}
        if hint is type(None):
            return {"type": "null"}
        if origin is Literal:
            return string(*get_args(hint))
        if hint is bool:
            return {"type": "boolean"}
        if hint is int:
            return {"type": "integer"}
        if hint is float:
            return {"type": "number"}
        if hint is str:
            return {"type": "string"}
        if hint is datetime:
            return {"type": "string", "format": "date-time"}
        if origin in (list, tuple, Sequence) or hint in (list, tuple):
            args = [a for a in get_args(hint) if a is not Ellipsis]
            return {"type": "array", "items": self.of(args[0])} if args else {"type": "array"}
        if origin is dict or hint is dict:
            pair = get_args(hint)
            return {"type": "object", "additionalProperties": self.of(pair[1])} if pair else {"type": "object"}
        if dataclasses.is_dataclass(hint) and isinstance(hint, type):
            return self.ref(hint)
        if typing.is_typeddict(hint):
            hints = typing.get_type_hints(hint)
            return {"type": "object", "properties": {k: self.of(v) for k, v in hints.items()},
                    "required": list(hints)}
        if hint is Any:
            return {}
        raise TypeError(f"no JSON schema for {hint!r}")


def openapi_document(endpoints: Sequence[Endpoint], schemas: Schemas, *, version: str = "") -> dict[str, Any]:
    """The OpenAPI 3.1 document of ``endpoints``."""
    paths: dict[str, dict[str, Any]] = {}
    for e in endpoints:
        in_path = set(e.path_params())
        operation: dict[str, Any] = {
            "summary": e.summary, "operationId": _operation_id(e), "tags": [e.tag] if e.tag else [],
            "parameters": [{"name": p.name, "in": "path" if p.name in in_path else "query",
                            "required": p.name in in_path or p.required, "description": p.description,
                            "schema": {**p.schema, **({"default": p.default} if p.default is not None else {})}}
                           for p in e.params],
            "responses": {"200": {"description": "OK", "content": {"application/json": {"schema": e.response}}},
                          **{str(code): {"description": _STATUS_TEXT.get(code, "Error"),
                                         "content": {"application/json": {"schema": _ERROR}}}
                             for code in sorted({*e.errors, 401} | ({403} if e.method != "GET" else set()))}},
        }
        if e.description:
            operation["description"] = e.description
        if e.raw_body is not None:
            operation["requestBody"] = {"required": True, "content": {e.raw_body: {"schema": {"type": "string"}}}}
        elif e.body is not None:
            operation["requestBody"] = {"required": bool(e.body.get("required")),
                                        "content": {"application/json": {"schema": e.body}}}
        paths.setdefault(e.path, {})[e.method.lower()] = operation
        if e.head:
            paths[e.path]["head"] = {
                "summary": f"Whether it exists ({e.summary.lower()}, no body)",
                "operationId": "head_" + _operation_id(e).removeprefix("get_"), "tags": operation["tags"],
                "parameters": operation["parameters"],
                "responses": {"200": {"description": "It exists"}, "404": {"description": "It does not"},
                              "401": {"description": _STATUS_TEXT[401]}}}
    paths[OPENAPI_PATH] = {"get": {"summary": "This document", "operationId": "get_openapi", "tags": ["meta"],
                                   "responses": {"200": {"description": "OpenAPI 3.1", "content": {
                                       "application/json": {"schema": {"type": "object"}}}}}}}
    return {
        "openapi": "3.1.0",
        "info": {"title": "sumwatch API", "version": version or "1",
                 "description": "Served by `sumwatch up`. Send `Authorization: Bearer <SUMWATCH_API_TOKEN>` "
                                "when the server has a token; errors answer `{\"error\": reason}`."},
        "paths": paths,
        "components": {"schemas": {"Error": {"type": "object", "properties": {"error": {"type": "string"}},
                                             "required": ["error"]}, **schemas.named},
                       "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}}},
        "security": [{"bearer": []}],
    }


def _operation_id(e: Endpoint) -> str:
    return _op_id(e.method, e.path)


def _op_id(method: str, path: str) -> str:
    words = [w.strip("{}") for w in path.removeprefix("/api/").split("/") if w]
    return method.lower() + "_" + "_".join(words).replace("-", "_").replace(".", "_")


def with_app_routes(document: dict[str, Any], routes: Sequence[Any]) -> dict[str, Any]:
    """The document plus every /api route of the running app that the route table does not hold (routes
    another room mounts), so the document always lists them all. Such a route's endpoint may carry an
    ``openapi`` dict (an OpenAPI operation); without one it is described from its docstring, answering JSON."""
    paths = {path: dict(ops) for path, ops in document["paths"].items()}
    for route in routes:
        if not isinstance(route, Route) or not route.path.startswith("/api/"):
            continue
        for method in sorted((route.methods or set()) - {"HEAD"}):
            ops = paths.setdefault(route.path, {})
            if method.lower() not in ops:
                ops[method.lower()] = _app_operation(route, method)
    return {**document, "paths": paths}


def _app_operation(route: Route, method: str) -> dict[str, Any]:
    given = getattr(route.endpoint, "openapi", None)
    doc = (route.endpoint.__doc__ or "").strip().splitlines()
    errors = [400, 401, 404] + ([403] if method != "GET" else [])
    operation: dict[str, Any] = {
        "summary": doc[0] if doc else f"{method} {route.path}", "operationId": _op_id(method, route.path),
        "parameters": [{"name": name, "in": "path", "required": True, "schema": {"type": "string"}}
                       for name in route.param_convertors],
        "responses": {"200": {"description": "OK", "content": {"application/json": {"schema": {}}}},
                      **{str(code): {"description": _STATUS_TEXT[code],
                                     "content": {"application/json": {"schema": _ERROR}}} for code in errors}}}
    return {**operation, **given} if isinstance(given, dict) else operation

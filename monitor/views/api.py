"""The HTTP API served by ``sumwatch up``: traces, scores, clustering runs, issues (here), corpus, labels and
calibration (:mod:`.api_corpus`), and the score-now / cluster-now actions (:mod:`.api_actions`).

    GET  /api/openapi.json                    the OpenAPI 3.1 document, made from the route table below
    GET  /api/traces?limit=20&service=svc     -> [TraceRow, ...]
    GET  /api/traces/{trace_id}               -> [SpanDetail, ...]   (404 when absent)
    GET  /api/issues?resolved=0               -> {"run": RunInfo | null, "issues": [IssueRow, ...]}
    POST /api/actions/score {"limit": 100}    -> PassReport   (409 while an action runs)

A parameter out of its range or of the wrong form answers 400 ``{"error": reason}``. :mod:`.auth` protects
every route with the API token (``SUMWATCH_API_TOKEN``) when one is set. :class:`~.readers.RemoteReader` is the
client the CLI uses when the lock file names a running server.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from ..issues.reads import IssueDetail, IssueRunCount, IssueTicket, IssueView, get_issue, issue_list
from ..rubrics.verdicts import RUBRICS
from ..settings import MAX_LIST_LIMIT, Settings
from ..store.connection import Store
from ..store.issue_members import Example
from ..store.runs import RunInfo, list_runs
from ..store.scores import Agreement, ScoreRecord, judge_agreement, list_scores
from ..store.traces import SpanDetail, TraceRow, get_trace, list_traces, normalize_trace_id
from .openapi import (
    BOOLEAN,
    OPENAPI_PATH,
    ApiError,
    Endpoint,
    Param,
    Schemas,
    integer,
    openapi_document,
    string,
    with_app_routes,
)
from .readers import StoreStatus, store_status

if TYPE_CHECKING:
    from ..rubrics.cascade import Cascade

# the judges the actions and calibration use, by mode (None: the settings'); tests pass offline ones
Judges = Callable[[str | None], "Cascade"]


def limit_param(default: int, what: str) -> Param:
    return Param("limit", integer(1, MAX_LIST_LIMIT), f"How many {what} (at most {MAX_LIST_LIMIT:,})", default)


RUBRIC = string(*RUBRICS)
TRACE_ID = string(pattern="^[0-9a-fA-F]{32}$")


def api_routes(store: Store, settings: Settings, *, judges: Judges | None = None) -> list[Route]:
    """Every /api route, the OpenAPI document among them."""
    endpoints, schemas = api_endpoints(store, settings, judges=judges)
    document = openapi_document(endpoints, schemas, version=_version())
    served: list[dict[str, Any]] = []

    def openapi(request: Request) -> JSONResponse:
        # the routes of the app this runs in, read once: other rooms mount /api routes too (exports)
        if not served:
            served.append(with_app_routes(document, request.app.routes))
        return JSONResponse(served[0])

    return [Route(OPENAPI_PATH, openapi)] + [e.route() for e in endpoints]


def api_endpoints(store: Store, settings: Settings, *, judges: Judges | None = None
                  ) -> tuple[list[Endpoint], Schemas]:
    """The route table: what each route takes and answers, and the function that answers it."""
    from .api_actions import action_endpoints
    from .api_corpus import corpus_endpoints

    schemas = Schemas()
    judges = judges or _settings_judges(settings)
    endpoints = (read_endpoints(store, schemas) + corpus_endpoints(store, schemas, judges)
                 + action_endpoints(store, settings, schemas, judges))
    return endpoints, schemas


def _settings_judges(settings: Settings) -> Judges:
    """The cascade of each mode, built once (loading the embedding model takes seconds)."""
    import threading

    from ..scoring.judges import build_cascade

    built: dict[str | None, Cascade] = {}
    lock = threading.Lock()

    def judges(mode: str | None) -> Cascade:
        with lock:
            if mode not in built:
                built[mode] = build_cascade(settings, mode=mode)
            return built[mode]

    return judges


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("sumwatch")
    except PackageNotFoundError:
        return "0"


def parse_time(name: str, text: str | None) -> datetime | None:
    """An ISO 8601 time parameter (``Z`` or an offset; UTC when it names none); ApiError(400) otherwise."""
    if not text:
        return None
    try:
        value = datetime.fromisoformat(text.strip().replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        raise ApiError(400, f"{name} must be an ISO 8601 time like 2026-11-20T12:00:00Z, got {text[:40]!r}") from None
    return value if value.tzinfo else value.replace(tzinfo=timezone.utc)


def issue_schemas(schemas: Schemas) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """(IssueRow, IssueList, IssueDetail) refs: an issue's JSON is its view's fields plus what each adds."""
    trend = {"type": "array", "items": {"type": "integer"},
             "description": "members in each of the last runs, oldest first"}
    row = schemas.define("IssueRow", schemas.fields(IssueView, trend=trend))
    listing = schemas.define("IssueList", {
        "type": "object", "additionalProperties": False, "required": ["run", "issues"],
        "properties": {"run": {"anyOf": [schemas.ref(RunInfo), {"type": "null"}]},
                       "issues": {"type": "array", "items": row}}})
    examples = {"type": "array", "items": schemas.ref(Example)}
    detail = schemas.define(IssueDetail.__name__, schemas.fields(
        IssueView, trend=trend, seen_in_run={"type": ["string", "null"]}, representatives=examples,
        boundary=examples, trace_ids={"type": "array", "items": {"type": "string"}},
        history={"type": "array", "items": schemas.of(IssueRunCount)},
        exports={"type": "array", "items": schemas.ref(IssueTicket),
                 "description": "its tickets, one per target (an alert channel shows its target name alone)"}))
    return row, listing, detail


def read_endpoints(store: Store, schemas: Schemas) -> list[Endpoint]:
    def traces(request: Request, args: dict[str, Any]) -> Any:
        return list_traces(store, limit=args["limit"], service=args["service"], domain=args["domain"],
                           band=args["band"], since=parse_time("since", args["since"]))

    def trace(request: Request, args: dict[str, Any]) -> Any:
        spans = get_trace(store, args["trace_id"])
        if not spans:
            raise ApiError(404, f"no trace {args['trace_id']}")
        return spans

    def scores(request: Request, args: dict[str, Any]) -> Any:
        trace_id = normalize_trace_id(args["trace"]) if args.get("trace") else None
        return list_scores(store, trace_id=trace_id, rubric=args["rubric"], judge_version=args["judge_version"],
                           failing_only=bool(args["failing"]), limit=args["limit"])

    def trace_scores(request: Request, args: dict[str, Any]) -> Any:
        return list_scores(store, trace_id=normalize_trace_id(args["trace_id"]), rubric=args["rubric"],
                           limit=args["limit"])

    def runs(request: Request, args: dict[str, Any]) -> Any:
        return list_runs(store, limit=args["limit"])

    def run(request: Request, args: dict[str, Any]) -> Any:
        found = list_runs(store, limit=1, run_id=args["run_id"])
        if not found:
            raise ApiError(404, f"no clustering run {args['run_id'][:80]}")
        return found[0]

    def issues(request: Request, args: dict[str, Any]) -> Any:
        return issue_list(store, include_resolved=args["resolved"])

    def issue(request: Request, args: dict[str, Any]) -> Any:
        found = get_issue(store, args["issue_id"])
        if found is None:
            raise ApiError(404, f"no issue {args['issue_id']}")
        return found

    def agreement(request: Request, args: dict[str, Any]) -> Any:
        return judge_agreement(store, judge_version=args["judge_version"])

    def status(request: Request, args: dict[str, Any]) -> Any:
        return store_status(store)

    row, listing, detail = issue_schemas(schemas)
    del row
    trace_id = Param("trace_id", TRACE_ID, "32-hex trace id")
    rubric = Param("rubric", RUBRIC, "Only this rubric")
    return [
        Endpoint("GET", "/api/traces", "Recent summarization spans, newest first", traces,
                 schemas.array(TraceRow),
                 (limit_param(20, "spans"), Param("service", string(), "Only this service"),
                  Param("domain", string(), "Only this domain (sumwatch.domain)"),
                  Param("band", string(), "Only this length band (tldr, short, ...)"),
                  Param("since", {"type": "string", "format": "date-time"},
                        "Only spans from this time on (ISO 8601; UTC when it names no zone)")), tag="traces"),
        Endpoint("GET", "/api/traces/{trace_id}", "One trace's spans with every attribute and event", trace,
                 schemas.array(SpanDetail), (trace_id,), errors=(400, 404), tag="traces"),
        Endpoint("GET", "/api/traces/{trace_id}/scores", "The rubric scores of one trace, newest first",
                 trace_scores, schemas.array(ScoreRecord), (trace_id, rubric, limit_param(100, "scores")),
                 tag="scores"),
        Endpoint("GET", "/api/scores", "Rubric scores, newest first", scores, schemas.array(ScoreRecord),
                 (Param("trace", TRACE_ID, "Only this trace (32-hex id)"), rubric,
                  Param("failing", BOOLEAN, "Only failing scores", False),
                  Param("judge_version", string(), "Only this judge version"), limit_param(50, "scores")),
                 tag="scores"),
        Endpoint("GET", "/api/runs", "Finished clustering runs, newest first", runs, schemas.array(RunInfo),
                 (limit_param(20, "runs"),), tag="runs"),
        Endpoint("GET", "/api/runs/{run_id}", "One clustering run", run, schemas.ref(RunInfo),
                 (Param("run_id", string(), "Run id"),), errors=(404,), tag="runs"),
        Endpoint("GET", "/api/issues", "Issues as the last clustering run left them", issues, listing,
                 (Param("resolved", BOOLEAN, "Include resolved issues", True),), tag="issues"),
        Endpoint("GET", "/api/judges", "Agreement of the cheap tiers with the LLM, per rubric, route and finding",
                 agreement, {"type": "array", "items": schemas.define(Agreement.__name__, schemas.fields(
                     Agreement, agreement={"type": ["number", "null"]}))},
                 (Param("judge_version", string(), "Only this judge version"),), tag="scores"),
        Endpoint("GET", "/api/status", "The database's schema version and the spans stored", status,
                 schemas.ref(StoreStatus), errors=(), tag="meta"),
        Endpoint("GET", "/api/issues/{issue_id}", "One issue: description, cause, fix, examples, history", issue,
                 detail, (Param("issue_id", string(), "Issue id, like SW-3"),), errors=(400, 404), tag="issues",
                 head=True),
    ]

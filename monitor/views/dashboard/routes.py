"""The dashboard's routes: pages rendered with Jinja2 from the store in this process, its static assets,
and plotly.js from the installed ``plotly`` package (nothing from the internet, no build step).

    include_dashboard(app)      # create_app: the pages' router (outside the OpenAPI document) and the assets

The pages are FastAPI routes like the API's: the same services dependency (``ServicesDep``), path and query
parameters checked by pydantic, forms read with ``auth.form_fields``, and refusals answered by the handlers
``errors.install_error_handlers`` installs: a query or path value a page cannot use answers a 400 page saying
why, an issue, trace or item that is not there a 404 page (:func:`problem_page`).
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import threading
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Annotated, Any, TypeVar
from urllib.parse import quote

from fastapi import APIRouter, Depends, FastAPI, Query
from jinja2 import Environment, FileSystemLoader, select_autoescape
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.staticfiles import StaticFiles

from ...contract.values import one_of
from ...experiments.report import ComparisonRefused
from ...exports.alerts import rule_statuses
from ...issues.triage import MAX_NAME, UnknownIssue
from ...rubrics.definition import BUILTIN_NAMES
from ...store.judges import known_rubrics
from ..auth import DASHBOARD_STATIC, FAVICON, csrf_token, form_fields
from ..errors import ApiError, PageRoute
from ..routers.datasets import NamePath as DatasetNamePath
from ..routers.experiments import Key as ExperimentKey
from ..routers.params import IssueIdPath, TraceIdPath
from ..services import ServicesDep
from . import datasets, experiments, explorer, judges, pages, triage
from .figures import figure_json
from .labelling import (
    QueueQuery,
    calibration_rows,
    label,
    label_from_trace,
    queue_page,
    refuse_unknown,
    resolve,
    trace_label_context,
    waiting_count,
)
from .query import FilterBarQuery, IssueQuery, MapQuery

HERE = Path(__file__).parent
STATIC_PREFIX = DASHBOARD_STATIC
PLOTLY_PATH = "/static/plotly.min.js"  # revalidated by ETag; pages load the versioned URL below
IMMUTABLE = "public, max-age=31536000, immutable"
NAV = (("/", "Overview"), ("/issues", "Issues"), ("/traces", "Traces"), ("/unsure", "Unsure"),
       ("/map", "Cluster map"), ("/labelling", "Labelling"),
       ("/compare", "Compare"), ("/datasets", "Datasets"), ("/experiments", "Experiments"), ("/judges", "Judges"),
       ("/alerts", "Alerts"))


def plotly_js() -> Path:
    """plotly.js as the ``plotly`` package ships it."""
    import plotly  # noqa: PLC0415 - heavy: loaded on first use

    path = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
    if not path.is_file():
        raise RuntimeError(f"plotly.js is missing from the installed plotly package ({path}); reinstall plotly")
    return path


def plotly_url() -> str:
    """Where pages load plotly.js from: a URL per installed plotly version, cached by browsers for good."""
    import plotly  # noqa: PLC0415 - heavy: loaded on first use

    return f"/static/plotly-{plotly.__version__}.min.js"


GZIP_PAGE_BYTES = 32 * 1024  # pages above this go gzipped to a client that takes it (the 20,000-point map: 4.8 MB)


def accepts_gzip(request: Request) -> bool:
    """Whether the request's Accept-Encoding lists gzip (or ``*``) without ``q=0``."""
    for part in request.headers.get("accept-encoding", "").split(","):
        name, *params = part.split(";")
        if name.strip().lower() not in ("gzip", "*"):
            continue
        quality = 1.0
        for param in params:
            key, _, value = param.partition("=")
            if key.strip().lower() == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        return quality > 0
    return False


class Asset:
    """A file served from memory with a strong ETag (304 to a browser that has it) and gzip to a client that
    takes it, compressed once in a background thread (plotly.js: 4.8 MB, 1.4 MB gzipped, about 0.3 s to
    compress on one core; a request before that waits for it)."""

    def __init__(self, path: Path, media_type: str) -> None:
        self.body, self.media_type = path.read_bytes(), media_type
        self.etag = '"' + hashlib.sha256(self.body).hexdigest()[:20] + '"'
        self._gzipped: bytes | None = None
        self._lock = threading.Lock()
        threading.Thread(target=self.gzipped, name="gzip-asset", daemon=True).start()

    def gzipped(self) -> bytes:
        with self._lock:
            if self._gzipped is None:
                self._gzipped = gzip.compress(self.body, compresslevel=6, mtime=0)
            return self._gzipped

    def response(self, request: Request, cache_control: str) -> Response:
        headers = {"ETag": self.etag, "Cache-Control": cache_control, "Vary": "Accept-Encoding"}
        if self.etag in request.headers.get("if-none-match", ""):
            return Response(status_code=304, headers=headers)
        if accepts_gzip(request):
            return Response(self.gzipped(), media_type=self.media_type, headers={**headers, "Content-Encoding": "gzip"})
        return Response(self.body, media_type=self.media_type, headers=headers)


@functools.cache
def plotly_asset_file() -> Asset:
    """plotly.js in memory, one copy (and one compression) per process."""
    return Asset(plotly_js(), "text/javascript")


@functools.cache
def _environment() -> Environment:
    env = Environment(loader=FileSystemLoader(HERE / "templates"), autoescape=select_autoescape(default=True),
                      trim_blocks=True, lstrip_blocks=True)
    env.globals.update(csrf_token=csrf_token, nav=NAV, static=STATIC_PREFIX, plotly=plotly_url())
    env.filters.update(pct=_pct, usd=_usd, num=_num, when=_when, duration=_duration, figure=figure_json)
    return env


def _pct(value: float | None, places: int = 1) -> str:
    return "–" if value is None else f"{value * 100:.{places}f}%"


def _usd(value: float) -> str:
    if not value:
        return "$0"
    return f"${value:,.4f}" if value < 1 else f"${value:,.2f}"


def _num(value: float | int | None) -> str:
    if value is None:
        return "–"
    return f"{value:,}" if isinstance(value, int) else f"{value:,.3f}".rstrip("0").rstrip(".")


def _when(value: datetime | str | None) -> str:
    if value is None:
        return "–"
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return str(value)
    if value.tzinfo is None:
        value = value.replace(tzinfo=timezone.utc)
    return value.astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")


def _duration(seconds: int) -> str:
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size and seconds % size == 0:
            return f"{seconds // size} {unit}"
    return f"{seconds} s"


def render(request: Request, template: str, code: int = 200, **context: Any) -> HTMLResponse:
    """``template`` with ``context`` as a page: never cached, gzipped above GZIP_PAGE_BYTES to a client that takes
    it."""
    body = _environment().get_template(template).render(request=request, path=request.url.path,
                                                          **context).encode()
    headers = {"Cache-Control": "no-store", "Vary": "Accept-Encoding"}
    if len(body) > GZIP_PAGE_BYTES and accepts_gzip(request):
        # level 1: about 10 ms a megabyte on one core, and page data (JSON, text) still shrinks 3-4x
        body, headers["Content-Encoding"] = gzip.compress(body, compresslevel=1, mtime=0), "gzip"
    return HTMLResponse(body, status_code=code, headers=headers)


TITLES = {400: "Bad request", 404: "Not found", 405: "Method not allowed", 409: "Conflict", 422: "Cannot be used"}


def problem_page(request: Request, status: int, message: str) -> Response:
    """The error page: what ``errors.install_error_handlers`` answers a page's refusal with."""
    return render(request, "error.html", status, title=TITLES.get(status, "Error"), status=status, message=message)


router = APIRouter(route_class=PageRoute)
Endpoint = TypeVar("Endpoint", bound=Callable[..., Any])


def _get(path: str) -> Callable[[Endpoint], Endpoint]:
    """A page at ``path``: GET, and HEAD as Starlette's routes answer it."""
    return router.api_route(path, methods=["GET", "HEAD"])


def _found(context: dict[str, Any] | None, missing: str) -> dict[str, Any]:
    """``context``, or the 404 page saying ``missing`` when the page's builder found nothing."""
    if context is None:
        raise ApiError(404, missing)
    return context


async def _map_cache(request: Request) -> pages.MapCache:
    # async: FastAPI runs a plain def dependency in the thread pool, a hop of its own on every request
    cache: pages.MapCache = request.app.state.map_cache
    return cache


@_get("/")
def overview(request: Request, s: ServicesDep, bar: FilterBarQuery) -> HTMLResponse:
    return render(request, "overview.html", **pages.overview(s.store, bar.choice(), s.settings.judge.llm_daily_cap_usd))


@_get("/issues")
def issues(request: Request, s: ServicesDep, q: Annotated[IssueQuery, Query()]) -> HTMLResponse:
    rubrics = known_rubrics(s.store)
    if q.rubric:
        one_of("rubric", q.rubric, rubrics)
    return render(request, "issues.html", **pages.issues_page(s.store, q, rubrics, hidden=q.hidden))


@_get("/issues/{issue_id}")
def issue(request: Request, s: ServicesDep, issue_id: IssueIdPath) -> HTMLResponse:
    context = _found(pages.issue_page(s.store, s.settings, issue_id), f"There is no issue {issue_id} in the last run.")
    context.update(triage.triage_context(s.store, request, context["detail"], s.export_config))
    return render(request, "issue.html", **context)


@router.post("/issues/{issue_id}/triage")
async def triage_action(request: Request, s: ServicesDep, issue_id: str) -> Response:
    """The issue page's form (the CSRF check ran in the auth middleware): back to the issue, or to the one it was
    merged into; a TriageError answers 400."""
    fields = await form_fields(request)
    try:
        confirm = await run_in_threadpool(triage.merge_confirmation, s.store, issue_id, fields)
        if confirm is not None:  # a merge is asked about first, naming both issues
            return render(request, "merge_confirm.html", **confirm)
        answer = await run_in_threadpool(triage.triage_from_form, s.store, issue_id, fields, request)
    except UnknownIssue as exc:
        raise ApiError(404, str(exc)) from None
    target = f"SW-{answer.value}" if answer.action == "merge" else answer.issue_id
    back = RedirectResponse(f"/issues/{target}", status_code=303)
    back.headers.append("set-cookie", triage.name_cookie(answer.by))
    return back


@_get("/map")
def cluster_map(request: Request, s: ServicesDep, q: Annotated[MapQuery, Query()],
                cache: Annotated[pages.MapCache, Depends(_map_cache)]) -> HTMLResponse:
    return render(request, "map.html", **pages.map_page(s.store, q.run, cache))


@_get("/traces")
def traces(request: Request, s: ServicesDep) -> HTMLResponse:
    # the filters of TraceFilters, the one model the API, the CLI and the client read them with
    return render(request, "traces.html", **explorer.traces_page(s.store, request.query_params))


@_get("/traces/{trace_id}")
def trace(request: Request, s: ServicesDep, trace_id: TraceIdPath, labelled: str | None = None) -> HTMLResponse:
    context = _found(pages.trace_page(s.store, trace_id), f"There is no trace {trace_id}.")
    context.update(trace_label_context(s.store, labelled), actor=triage.actor(request))
    return render(request, "trace.html", **context)


@router.post("/traces/{trace_id}/label")
async def trace_label_action(request: Request, s: ServicesDep, trace_id: str) -> Response:
    """The trace page's label form: the span into a rubric's corpus, labelled by the name given (kept in the
    session's cookie); back to the trace, saying so."""
    fields = await form_fields(request)
    by = (fields.get("by") or triage.actor(request) or triage.DASHBOARD_ACTOR).strip()
    try:
        item = await run_in_threadpool(label_from_trace, s.store, trace_id, fields, by)
    except KeyError as exc:
        raise ApiError(404, str(exc.args[0] if exc.args else exc)) from None
    back = RedirectResponse(f"/traces/{item.trace_id}?labelled={item.item_id}#span-{item.span_id}",
                            status_code=303)
    back.headers.append("set-cookie", triage.name_cookie(by))
    return back


@_get("/unsure")
def unsure(request: Request, s: ServicesDep, q: Annotated[explorer.UnsureQuery, Query()]) -> HTMLResponse:
    return render(request, "unsure.html", **explorer.unsure_page(s.store, q))


@_get("/labelling")
def labelling(request: Request, s: ServicesDep, q: Annotated[QueueQuery, Query()]) -> HTMLResponse:
    refuse_unknown(request.query_params)
    context = queue_page(s.store, q.rubric or None, q.show, q.page)
    return render(request, "labelling.html", **context, actor=triage.actor(request))


@_get("/labelling/table")
def calibration_table(request: Request, s: ServicesDep) -> HTMLResponse:
    # a page like the others; the queue's script takes the table out of it after each label
    return render(request, "calibration_page.html", calibration=calibration_rows(s.store))


@router.post("/labelling/{item_id}")
@router.post("/labelling/{item_id}/resolve")
async def label_action(request: Request, s: ServicesDep, item_id: str) -> Response:
    """``verdict`` from the queue (the CSRF check ran in the auth middleware): JSON for the page's keyboard
    labelling (``Accept: application/json``, which its refusals answer in too), else back to the queue."""
    fields = await form_fields(request)
    wants_json = "application/json" in request.headers.get("accept", "")
    by = (fields.get("by") or triage.actor(request) or triage.DASHBOARD_ACTOR).strip()
    resolving = request.url.path.endswith("/resolve")
    try:
        item = await run_in_threadpool(resolve if resolving else label, s.store, item_id, fields.get("verdict", ""),
                                       by)
    except KeyError:
        raise ApiError(404, f"no corpus item {item_id}" if wants_json
                       else f"There is no corpus item {item_id}.") from None
    answer: Response
    rubric = fields.get("rubric", "")
    if rubric and rubric not in BUILTIN_NAMES and rubric not in known_rubrics(s.store):  # a built-in needs no read
        rubric = ""
    if wants_json:  # the queue's count as the page would now say it, for the page's one count to show
        waiting = await run_in_threadpool(waiting_count, s.store, rubric or None)
        answer = JSONResponse({"item_id": item.item_id, "status": item.status, "verdict": item.human_verdict,
                               "waiting": waiting})
    else:
        answer = RedirectResponse("/labelling" + (f"?rubric={rubric}" if rubric else ""), status_code=303)
    if len(by) <= MAX_NAME:
        answer.headers.append("set-cookie", triage.name_cookie(by))
    return answer


@_get("/compare")
def compare(request: Request, s: ServicesDep, bar: FilterBarQuery) -> HTMLResponse:
    return render(request, "compare.html", **pages.compare_page(s.store, bar.choice()))


@_get("/datasets")
def datasets_list(request: Request, s: ServicesDep) -> HTMLResponse:
    return render(request, "datasets.html", **datasets.datasets_index(s.store))


@_get("/datasets/{name}")
def dataset_detail(request: Request, s: ServicesDep, name: DatasetNamePath,
                   q: Annotated[datasets.DatasetQuery, Query()]) -> HTMLResponse:
    context = _found(datasets.dataset_page(s.store, name, q), f"There is no dataset {name}.")
    return render(request, "dataset.html", **context)


@router.post("/issues/{issue_id}/dataset")
async def issue_dataset_action(request: Request, s: ServicesDep, issue_id: IssueIdPath) -> Response:
    """The issue page's Make a dataset form (the CSRF check ran in the auth middleware): a version of the named
    dataset made of the issue's members, then that dataset's page saying whether a version was made."""
    fields = await form_fields(request)
    answer = await run_in_threadpool(datasets.dataset_from_issue, s.store, issue_id, fields.get("name", ""))
    made = "new" if answer.created else "same"
    return RedirectResponse(f"/datasets/{answer.dataset.name}?version={answer.dataset.version}&made={made}",
                            status_code=303)


@_get("/experiments")
def experiments_list(request: Request, s: ServicesDep,
                     q: Annotated[experiments.ExperimentsQuery, Query()]) -> HTMLResponse:
    return render(request, "experiments.html", **experiments.experiments_index(s.store, q.dataset))


@_get("/experiments/{key}")
def experiment_detail(request: Request, s: ServicesDep, key: ExperimentKey,
                      q: Annotated[experiments.ExperimentQuery, Query()]) -> HTMLResponse:
    context = _found(experiments.experiment_page(s.store, key, q.page), f"There is no experiment {key}.")
    return render(request, "experiment.html", **context)


@_get("/experiments/{key}/compare")
def experiment_compare_form(key: ExperimentKey, q: Annotated[experiments.CompareWith, Query()]) -> Response:
    """The experiment page's compare form: on to the comparison's own address."""
    return RedirectResponse(f"/experiments/{quote(key, safe='')}/compare/{quote(q.candidate, safe='')}",
                            status_code=303)


@_get("/experiments/{base}/compare/{candidate}")
def experiment_compare(request: Request, s: ServicesDep, base: ExperimentKey, candidate: ExperimentKey
                       ) -> HTMLResponse:
    try:
        context = experiments.comparison_page(s.store, base, candidate)
    except ComparisonRefused as exc:  # as the API answers it: other datasets, or other judge versions
        raise ApiError(409, str(exc)) from None
    return render(request, "experiment_compare.html", **context)


@_get("/alerts")
def alerts(request: Request, s: ServicesDep) -> HTMLResponse:
    # what `sumwatch alerts` and GET /api/alerts read: the rates now, nothing sent
    return render(request, "alerts.html", rules=rule_statuses(s.store, s.export_config))


@_get("/judges")
def judges_index(request: Request, s: ServicesDep) -> HTMLResponse:
    return render(request, "judges.html", **judges.judges_index(s.store))


@_get("/judges/{rubric}/diff")
def judge_diff(request: Request, s: ServicesDep, rubric: str, old: Annotated[str, Query(alias="from")] = "",
               new: Annotated[str, Query(alias="to")] = "") -> HTMLResponse:
    context = _found(judges.judge_diff(s.store, rubric, old, new),
                     f"There is no rubric {rubric}, or it has no such version.")
    return render(request, "judge_diff.html", **context)


@_get("/judges/{rubric}")
def judge(request: Request, s: ServicesDep, rubric: str) -> HTMLResponse:
    return render(request, "judge.html", **_found(judges.judge_page(s.store, rubric), f"There is no rubric {rubric}."))


@functools.cache
def _favicon_file() -> Asset:
    """The icon in memory, read once per process."""
    return Asset(HERE / "static" / FAVICON, "image/svg+xml")


@_get("/favicon.ico")
def favicon(request: Request) -> Response:
    """The icon where a browser looks for it unasked (an answer that is not a page: JSON, a plain refusal)."""
    return _favicon_file().response(request, "public, max-age=86400")


@_get(plotly_url())
def plotly_asset(request: Request) -> Response:  # the versioned URL never changes its content
    return plotly_asset_file().response(request, IMMUTABLE)


@_get(PLOTLY_PATH)
def plotly_unversioned(request: Request) -> Response:
    return plotly_asset_file().response(request, "no-cache")


def include_dashboard(app: FastAPI) -> None:
    """The pages (``/``, ``/issues``, ``/issues/{issue_id}``, ``/map``, ``/traces``, ``/traces/{trace_id}``,
    ``/unsure``, ``/labelling``, ``/compare``, ``/datasets``, ``/datasets/{name}``, ``/experiments``,
    ``/experiments/{key}``, ``/experiments/{base}/compare/{candidate}``, ``/judges``, ``/judges/{rubric}``,
    ``/judges/{rubric}/diff``, ``/alerts``), the forms they post to, plotly.js and the static assets, on ``app``;
    the pages stay out of its OpenAPI document, which is the API's."""
    app.state.map_cache = pages.MapCache()  # the latest run's map, drawn once per app
    plotly_asset_file()  # read (and compressed, in the background) at start-up, not on a page's first request
    app.include_router(router, include_in_schema=False)
    app.mount(STATIC_PREFIX, StaticFiles(directory=HERE / "static"), name="dashboard-static")

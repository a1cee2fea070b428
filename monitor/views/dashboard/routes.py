"""The dashboard's routes: pages rendered with Jinja2 from the store in this process, its static assets,
and plotly.js from the installed ``plotly`` package (nothing from the internet, no build step).

    routes = dashboard_routes(store, settings)   # what `sumwatch up` serves at /

A query or path value a page cannot use answers a 400 page saying why; an issue, trace or item that is
not there answers a 404 page.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import threading
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, select_autoescape
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from ...exports.alerts import rule_statuses
from ...exports.config import ExportConfig
from ...issues.triage import MAX_NAME, TriageError, UnknownIssue
from ...settings import Settings
from ...store.connection import Store
from ...store.judges import known_rubrics
from ..auth import csrf_token, form_fields
from . import explorer, judges, pages, triage
from .figures import figure_json
from .labelling import label, label_from_trace, queue_page, queue_query, resolve, trace_label_context
from .query import BadRequest, filter_choice, issue_query, run_id_param

HERE = Path(__file__).parent
STATIC_PREFIX = "/static/dashboard"
PLOTLY_PATH = "/static/plotly.min.js"  # revalidated by ETag; pages load the versioned URL below
IMMUTABLE = "public, max-age=31536000, immutable"
NAV = (("/", "Overview"), ("/issues", "Issues"), ("/traces", "Traces"), ("/unsure", "Unsure"),
       ("/map", "Cluster map"), ("/labelling", "Labelling"),
       ("/compare", "Compare"), ("/judges", "Judges"), ("/alerts", "Alerts"))


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


def dashboard_routes(store: Store, settings: Settings, export_config: ExportConfig | None = None) -> list[BaseRoute]:
    """The pages (``/``, ``/issues``, ``/issues/{issue_id}``, ``/map``, ``/traces``, ``/traces/{trace_id}``,
    ``/unsure``, ``/labelling``,
    ``/compare``, ``/judges``, ``/judges/{rubric}``, ``/judges/{rubric}/diff``, ``/alerts``), the label action, and
    the static assets. ``export_config`` is the API's (the alert rules the alerts page shows); the settings' by
    default."""
    exports = export_config if export_config is not None else settings.exports
    env = _environment()
    map_cache = pages.MapCache()

    def render(request: Request, template: str, code: int = 200, **context: Any) -> HTMLResponse:
        body = env.get_template(template).render(request=request, path=request.url.path, **context).encode()
        headers = {"Cache-Control": "no-store", "Vary": "Accept-Encoding"}
        if len(body) > GZIP_PAGE_BYTES and accepts_gzip(request):
            # level 1: about 10 ms a megabyte on one core, and page data (JSON, text) still shrinks 3-4x
            body, headers["Content-Encoding"] = gzip.compress(body, compresslevel=1, mtime=0), "gzip"
        return HTMLResponse(body, status_code=code, headers=headers)

    def problem(request: Request, status: int, message: str) -> HTMLResponse:
        title = {400: "Bad request", 404: "Not found"}.get(status, "Error")
        return render(request, "error.html", status, title=title, status=status, message=message)

    def page(template: str, build: Callable[[Request], dict[str, Any] | None], missing: str = "") -> Any:
        def handler(request: Request) -> Response:  # sync: Starlette runs it in its thread pool
            try:
                context = build(request)
            except BadRequest as exc:
                return problem(request, 400, str(exc))
            except ValueError as exc:  # an id of the wrong form, from the store's readers
                return problem(request, 400, str(exc))
            if context is None:
                return problem(request, 404, missing.format(**request.path_params))
            return render(request, template, **context)

        return handler

    def overview(request: Request) -> dict[str, Any]:
        return pages.overview(store, filter_choice(request.query_params), settings.judge.llm_daily_cap_usd)

    def issues(request: Request) -> dict[str, Any]:
        rubrics = known_rubrics(store)
        return pages.issues_page(store, issue_query(request.query_params, rubrics), rubrics,
                                 hidden=request.query_params.get("hidden") == "1")

    def issue(request: Request) -> dict[str, Any] | None:
        context = pages.issue_page(store, settings, request.path_params["issue_id"])
        if context is not None:
            context.update(triage.triage_context(store, request, context["detail"]))
        return context

    async def triage_action(request: Request) -> Response:
        """POST /issues/{issue_id}/triage from the issue page's form (the CSRF check ran in the auth middleware):
        back to the issue, or to the one it was merged into."""
        fields = await form_fields(request)
        try:
            answer = await run_in_threadpool(triage.triage_from_form, store, request.path_params["issue_id"],
                                             fields, request)
        except UnknownIssue as exc:
            return problem(request, 404, str(exc))
        except TriageError as exc:
            return problem(request, 400, str(exc))
        target = f"SW-{answer.value}" if answer.action == "merge" else answer.issue_id
        back = RedirectResponse(f"/issues/{target}", status_code=303)
        back.headers.append("set-cookie", triage.name_cookie(answer.by))
        return back

    def cluster_map(request: Request) -> dict[str, Any]:
        return pages.map_page(store, run_id_param(request.query_params), map_cache)

    def trace(request: Request) -> dict[str, Any] | None:
        context = pages.trace_page(store, request.path_params["trace_id"])
        if context is not None:
            context.update(trace_label_context(store, request.query_params.get("labelled")),
                           actor=triage.actor(request))
        return context

    async def trace_label_action(request: Request) -> Response:
        """POST /traces/{trace_id}/label from the trace page's form: the span into a rubric's corpus, labelled by
        the name given (kept in the session's cookie); back to the trace, saying so."""
        fields = await form_fields(request)
        by = (fields.get("by") or triage.actor(request) or triage.DASHBOARD_ACTOR).strip()
        trace_id = request.path_params["trace_id"]
        try:
            item = await run_in_threadpool(label_from_trace, store, trace_id, fields, by)
        except BadRequest as exc:
            return problem(request, 400, str(exc))
        except KeyError as exc:
            return problem(request, 404, str(exc.args[0] if exc.args else exc))
        back = RedirectResponse(f"/traces/{item.trace_id}?labelled={item.item_id}#span-{item.span_id}",
                                status_code=303)
        back.headers.append("set-cookie", triage.name_cookie(by))
        return back

    def traces(request: Request) -> dict[str, Any]:
        return explorer.traces_page(store, request.query_params)

    def unsure(request: Request) -> dict[str, Any]:
        return explorer.unsure_page(store, request.query_params)

    def alerts(request: Request) -> dict[str, Any]:
        # what `sumwatch alerts` and GET /api/alerts read: the rates now, nothing sent
        return {"rules": rule_statuses(store, exports)}

    def compare(request: Request) -> dict[str, Any]:
        return pages.compare_page(store, filter_choice(request.query_params))

    def judges_index(request: Request) -> dict[str, Any]:
        return judges.judges_index(store)

    def judge(request: Request) -> dict[str, Any] | None:
        return judges.judge_page(store, request.path_params["rubric"])

    def judge_diff(request: Request) -> dict[str, Any] | None:
        q = request.query_params
        return judges.judge_diff(store, request.path_params["rubric"], q.get("from", ""), q.get("to", ""))

    def labelling(request: Request) -> dict[str, Any]:
        context = queue_page(store, *queue_query(request.query_params))
        return {**context, "actor": triage.actor(request)}

    def calibration_table(request: Request) -> dict[str, Any]:
        return {"calibration": queue_page(store, None)["calibration"]}

    async def label_action(request: Request) -> Response:
        """POST /labelling/{item_id} with ``verdict`` (the CSRF check ran in the auth middleware): JSON for
        the page's keyboard labelling (``Accept: application/json``), else back to the queue."""
        item_id = request.path_params["item_id"]
        fields = await form_fields(request)
        wants_json = "application/json" in request.headers.get("accept", "")
        by = (fields.get("by") or triage.actor(request) or triage.DASHBOARD_ACTOR).strip()
        resolving = request.url.path.endswith("/resolve")
        try:
            item = await run_in_threadpool(resolve if resolving else label, store, item_id, fields.get("verdict", ""),
                                           by)
        except BadRequest as exc:
            if wants_json:
                return JSONResponse({"error": str(exc)}, status_code=400)
            return problem(request, 400, str(exc))
        except KeyError:
            if wants_json:
                return JSONResponse({"error": f"no corpus item {item_id}"}, status_code=404)
            return problem(request, 404, f"There is no corpus item {item_id}.")
        answer: Response
        if wants_json:
            answer = JSONResponse({"item_id": item.item_id, "status": item.status, "verdict": item.human_verdict})
        else:
            rubric = fields.get("rubric", "")
            answer = RedirectResponse("/labelling" + (f"?rubric={rubric}" if rubric in known_rubrics(store) else ""),
                                      status_code=303)
        if len(by) <= MAX_NAME:
            answer.headers.append("set-cookie", triage.name_cookie(by))
        return answer

    plotly = plotly_asset_file()

    def plotly_asset(request: Request) -> Response:  # the versioned URL never changes its content
        return plotly.response(request, IMMUTABLE)

    def plotly_unversioned(request: Request) -> Response:
        return plotly.response(request, "no-cache")

    return [
        Route("/", page("overview.html", overview)),
        Route("/issues", page("issues.html", issues)),
        Route("/issues/{issue_id}", page("issue.html", issue, "There is no issue {issue_id} in the last run.")),
        Route("/issues/{issue_id}/triage", triage_action, methods=["POST"]),
        Route("/map", page("map.html", cluster_map)),
        Route("/traces", page("traces.html", traces)),
        Route("/unsure", page("unsure.html", unsure)),
        Route("/traces/{trace_id}", page("trace.html", trace, "There is no trace {trace_id}.")),
        Route("/traces/{trace_id}/label", trace_label_action, methods=["POST"]),
        Route("/labelling", page("labelling.html", labelling)),
        Route("/labelling/table", page("calibration.html", calibration_table)),
        Route("/labelling/{item_id}", label_action, methods=["POST"]),
        Route("/labelling/{item_id}/resolve", label_action, methods=["POST"]),
        Route("/compare", page("compare.html", compare)),
        Route("/alerts", page("alerts.html", alerts)),
        Route("/judges", page("judges.html", judges_index)),
        Route("/judges/{rubric}/diff", page("judge_diff.html", judge_diff,
                                            "There is no rubric {rubric}, or it has no such version.")),
        Route("/judges/{rubric}", page("judge.html", judge, "There is no rubric {rubric}.")),
        Route(plotly_url(), plotly_asset),
        Route(PLOTLY_PATH, plotly_unversioned),
        Mount(STATIC_PREFIX, StaticFiles(directory=HERE / "static"), name="dashboard-static"),
    ]


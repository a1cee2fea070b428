"""The one composition root: ``create_app(runtime)`` builds the whole server ``sumwatch up`` runs.

    app = create_app(Runtime.build(settings, store))   # receiver, API, dashboard, login, auth and CSRF
    ReceiverServer(settings, app=app).serve_forever()  # on uvicorn, its span writer started and drained
    client = ApiClient.in_process(app)                 # the same app, for a command that opened the store

Pieces, in the order a request meets them: the client's address as trusted proxies name it (:mod:`.proxies`); the
auth and CSRF middleware (:mod:`.auth`); the OTLP receiver and probes (plain Starlette routes: the hot path stays
as fast as it was); the API, one FastAPI router per resource with its records as the OpenAPI schema
(``/api/openapi.json``); the login routes and the dashboard pages.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator
from importlib.metadata import PackageNotFoundError, version
from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi
from starlette.routing import BaseRoute

from ..ingest.receiver import ReadsSeeAcknowledged, log_writer, receiver_routes, span_writer
from ..runtime import Runtime
from .auth import auth_middleware, login_routes
from .dashboard import include_dashboard, problem_page
from .errors import install_error_handlers
from .proxies import ForwardedHeaders, TrustedProxies
from .routers import ROUTERS
from .services import ActionRunner, Services

OPENAPI_PATH = "/api/openapi.json"


def create_app(runtime: Runtime) -> FastAPI:
    """The server on ``runtime``: its settings, store, tracker settings, judge cascades and job locks (the
    worker of the same runtime takes the same locks)."""
    settings, store = runtime.settings, runtime.store
    app = FastAPI(title="sumwatch", version=_version(), openapi_url=OPENAPI_PATH, docs_url="/api/docs",
                  redoc_url=None, description=_DESCRIPTION)
    writer, logs = span_writer(settings, store), log_writer(settings, store)
    app.state.writer, app.state.log_writer = writer, logs
    app.state.runtime = runtime
    app.state.services = Services(settings, store, runtime.cascade, ActionRunner(runtime.locks), runtime.exports,
                                  threading.Lock(), runtime)
    install_error_handlers(app, problem_page)  # JSON for the API, the error page for the dashboard's pages
    app.router.routes.extend(receiver_routes(settings, writer, store, logs))
    for router in ROUTERS:
        app.include_router(router)
    app.router.routes.extend(login_routes(settings))
    include_dashboard(app)  # the pages' router with include_in_schema=False: the document stays the API's
    app.add_middleware(ReadsSeeAcknowledged, (writer, logs))
    layer = auth_middleware(settings)
    app.add_middleware(layer.cls, *layer.args, **layer.kwargs)  # a refused request never waits
    proxies = TrustedProxies.from_settings(settings)
    if proxies.networks:  # none trusted (the default): no layer, the peer is the client
        app.add_middleware(ForwardedHeaders, proxies=proxies)  # the client auth sees
    app.openapi = lambda: _openapi(app)  # type: ignore[method-assign]
    return app


_DESCRIPTION = ("Traces, scores, clustering runs and issues of sumwatch, and its actions. Send "
                "`Authorization: Bearer <SUMWATCH_API_TOKEN>` when the server has a token; every refusal answers "
                "`{\"error\": reason}`. OTLP/HTTP spans go to `POST /v1/traces` (protobuf or JSON).")


def _openapi(app: FastAPI) -> dict[str, Any]:
    """The document FastAPI derives from the routers, with the bearer token as the security scheme."""
    if app.openapi_schema is None:
        document = get_openapi(title=app.title, version=app.version, description=app.description,
                               routes=app.routes)
        document.setdefault("components", {})["securitySchemes"] = {
            "bearer": {"type": "http", "scheme": "bearer", "description": "SUMWATCH_API_TOKEN"}}
        document["security"] = [{"bearer": []}]
        app.openapi_schema = document
    return app.openapi_schema


def served_routes(routes: Iterable[BaseRoute]) -> Iterator[BaseRoute]:
    """Every route an app serves, the routers' own included (FastAPI keeps an included router as one entry)."""
    for route in routes:
        included = getattr(route, "original_router", None)
        if included is not None:
            yield from served_routes(included.routes)
        else:
            yield route


def _version() -> str:
    try:
        return version("sumwatch")
    except PackageNotFoundError:
        return "0"

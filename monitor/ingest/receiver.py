"""OTLP/HTTP receiver: ``POST /v1/traces`` in protobuf or JSON, gzip or not, into ``otel_traces``; ``/v1/logs``.

    server = ReceiverServer(settings, store).start()      # background thread, port 0 picks one
    ...                                                    # exporters send to server.endpoint
    server.stop()

Every span is checked before it joins a group commit (:mod:`.validate`), so one client's bad values
never fail another request's INSERT. Answers:

- 200 once the spans are in the receiver's write-ahead log (``receiver_log``, on by default), which the writer
  inserts in large batches and replays after a crash; requests to the server itself (API, dashboard) wait for
  those INSERTs (:class:`ReadsSeeAcknowledged`). With ``receiver_log`` off, once stored. When some spans were
  dropped for values the store cannot hold (a time of 0, before 1973-03-03 or after 2262-04-11, a missing or
  all-zero trace or span id, an id of the wrong length, text that is not valid Unicode), the rest are stored and
  the answer carries OTLP's partial success: ``rejected_spans`` and an ``error_message`` naming the field and
  place of the first ones, e.g. ``1 of 4 spans rejected:
  resourceSpans[0].scopeSpans[0].spans[3].startTimeUnixNano: 0 (unset) is before 1973-03-03T09:46:40Z, the
  earliest time the store holds``. Exporters do not resend those.
- 400 with the reason when the body is not an OTLP trace export (not protobuf or JSON, wrong types at
  any level, too deeply nested, bad gzip), and when every span of the request was rejected.
- 401 when an ingest token is set and the request does not carry it (:func:`ingest_token_problem`);
  408 (connection closed) when the body takes longer than ``body_timeout_s`` to arrive; 413 over the body
  limit (gzip members inflated together count); 415 for another content type.
- 503 (with Retry-After) when the database fails, so OTLP exporters retry; its body says only that, the
  error itself goes to the log.

``POST /api/public/otel/v1/traces``, where the Langfuse SDK exports (``LANGFUSE_HOST`` pointed at sumwatch),
is the same route with the same token rules. ``POST /v1/logs`` takes OTLP log exports with the same checks and
answers, and keeps their GenAI content records (``gen_ai.user.message``, ``gen_ai.choice`` ...), which the
contrib instrumentations log instead of putting on the span, for the sampler to join to their spans
(:mod:`.logs`, :mod:`..store.genai_events`); they go through a group commit of their own, with the spans'
guarantees (acknowledged once stored, 503 with Retry-After when the database fails, drained on shutdown).

Connections whose request headers take longer than ``header_timeout_s`` are closed. Beyond
``max_connections`` open connections the longest idle are closed; beyond ``max_connections`` requests in
progress new ones get 503, but ``/healthz`` and ``/readyz`` are always answered (:mod:`.timeouts`).
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import contextlib
import hmac
import logging
import signal
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

from starlette.applications import Starlette
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from ..settings import Settings, reveal
from ..store.connection import Store
from .logs import decode_logs, encode_logs_response
from .otlp import (
    JSON,
    PROTOBUF,
    OtlpDecodeError,
    PayloadTooLarge,
    decode_traces,
    encode_response,
    media_type,
    safe_text,
)
from .timeouts import BodyTimeout, guarded_protocol, read_body
from .write_ahead_log import WriteAheadLog
from .writer import GENAI_EVENTS, SPANS, GroupWriter, Incoming, RowEncodeError

_log = logging.getLogger(__name__)
_D = TypeVar("_D")
TRACES_PATH = "/v1/traces"
LOGS_PATH = "/v1/logs"
LANGFUSE_TRACES_PATH = "/api/public/otel/v1/traces"  # the Langfuse SDK's OTLP exporter: <LANGFUSE_HOST> + this
# google.rpc.Code values, used in the Status body OTLP clients expect on errors
_RPC_CODE = {400: 3, 401: 16, 408: 4, 413: 8, 415: 3, 503: 14}


def _status_body(status: int, message: str, content_type: str | None, retry_after: int = 5) -> Response:
    """An OTLP error response: google.rpc.Status in the request's encoding."""
    code = _RPC_CODE.get(status, 2)
    message = safe_text(message)
    headers = {"Retry-After": str(retry_after)} if status == 503 else {}
    if status == 401:
        headers["WWW-Authenticate"] = 'Bearer realm="sumwatch"'
    if status == 408:
        headers["Connection"] = "close"  # the rest of the body may still be on its way
    if media_type(content_type) == PROTOBUF:
        from google.rpc import status_pb2  # noqa: PLC0415 - heavy: loaded on first use

        body = status_pb2.Status(code=code, message=message).SerializeToString()
        return Response(body, status_code=status, media_type=PROTOBUF, headers=headers)
    return JSONResponse({"code": code, "message": message}, status_code=status, headers=headers)


def authorization_parts(authorization: str) -> tuple[str, str]:
    """(the scheme in lower case, the credentials) of an ``Authorization`` header; schemes are case-insensitive
    (RFC 9110): ``authorization_parts("BEARER abc") == ("bearer", "abc")``."""
    scheme, _, credentials = authorization.strip().partition(" ")
    return scheme.lower(), credentials.strip()


def ingest_token_problem(authorization: str, token: str) -> str | None:
    """Why an ``Authorization`` header does not carry the ingest token, or None when it does.

    ``Bearer <token>``, as OTLP exporters are configured; or Basic credentials, which the Langfuse SDK sends
    as ``public_key:secret_key``: the token is then its secret key (``LANGFUSE_SECRET_KEY=<token>``, any public
    key), or the whole ``public_key:secret_key`` pair (a token set to the pair a team already uses)."""
    if not authorization:
        return "missing bearer token"
    scheme, credentials = authorization_parts(authorization)
    if scheme == "bearer":
        return None if hmac.compare_digest(credentials.encode(), token.encode()) else "wrong bearer token"
    if scheme != "basic":
        return "wrong bearer token"
    try:
        pair = base64.b64decode(credentials, validate=True)
    except (binascii.Error, ValueError):
        return "basic credentials are not base64"
    secret = pair.partition(b":")[2]
    whole, part = hmac.compare_digest(pair, token.encode()), hmac.compare_digest(secret, token.encode())
    return None if whole or part else "wrong basic credentials"


def receiver_routes(settings: Settings, writer: GroupWriter, store: Store, log_writer: GroupWriter) -> list[Route]:
    """``POST /v1/traces`` (and its Langfuse path) into ``writer``, ``POST /v1/logs`` into ``log_writer``,
    ``/healthz`` and ``/readyz``: plain Starlette routes, so the OTLP hot path pays no parameter parsing or
    validation of the API's framework."""
    token = reveal(settings.receiver.ingest_token)
    limit, body_timeout = settings.receiver.max_body_bytes, settings.receiver.body_timeout_s

    async def decoded(request: Request, decode: Callable[..., _D], what: str) -> _D | Response:
        """The request's body decoded by ``decode``, or the error answer: the same checks on every OTLP path."""
        content_type = request.headers.get("content-type")
        if token:
            reason = ingest_token_problem(request.headers.get("authorization", ""), token)
            if reason is not None:
                return _status_body(401, f"unauthorized: {reason}", content_type)
        if media_type(content_type) not in (PROTOBUF, JSON):
            return _status_body(415, f"unsupported Content-Type {content_type!r}: use {PROTOBUF} or {JSON}",
                                content_type)
        try:
            body = await read_body(request, limit, body_timeout)
            return decode(body, content_type=content_type, content_encoding=request.headers.get("content-encoding"),
                          max_bytes=limit)
        except PayloadTooLarge as exc:
            return _status_body(413, str(exc), content_type)
        except OtlpDecodeError as exc:
            return _status_body(400, str(exc), content_type)
        except BodyTimeout as exc:
            return _status_body(408, str(exc), content_type)
        except ClientDisconnect:
            return Response(status_code=400)
        except Exception:  # a body the decoder did not foresee is still the body's fault, not a 500
            _log.exception("answering 400: decoding an OTLP body failed")
            return _status_body(400, f"body could not be decoded as an OTLP {what} export", content_type)

    def unavailable(exc: Exception, content_type: str | None) -> Response:
        _log.warning("answering 503: %s", exc)
        return _status_body(503, "database unavailable, retry later", content_type,
                            settings.receiver.retry_after_seconds)

    async def stored(into: GroupWriter, rows: Sequence[Any], content_type: str | None,
                     ticket: Incoming) -> Response | None:
        """None once ``rows`` are stored by a group commit, else the error answer."""
        if not rows:
            return None
        try:
            done = into.submit(rows)
        except RowEncodeError as exc:
            _log.warning("answering 400: %s", exc)
            return _status_body(400, f"{into.noun} could not be encoded for the store", content_type)
        finally:
            ticket.done()  # submitted (or refused): the batch need not wait for this request any longer
        try:
            await asyncio.wrap_future(done)
        except Exception as exc:  # nothing acknowledged that was not stored
            return unavailable(exc, content_type)
        return None

    async def traces(request: Request) -> Response:
        with writer.incoming() as ticket:
            return await traces_into(request, ticket)

    async def traces_into(request: Request, ticket: Incoming) -> Response:
        content_type = request.headers.get("content-type")
        spans = await decoded(request, decode_traces, "trace")
        if isinstance(spans, Response):
            return spans
        if spans.rejected.count and not spans.rows:
            return _status_body(400, spans.rejected.message(spans.total), content_type)
        failed = await stored(writer, spans.rows, content_type, ticket)
        if failed is not None:
            return failed
        body, out_type = encode_response(content_type, spans)
        return Response(body, media_type=out_type)

    async def logs(request: Request) -> Response:
        with log_writer.incoming() as ticket:
            return await logs_into(request, ticket)

    async def logs_into(request: Request, ticket: Incoming) -> Response:
        content_type = request.headers.get("content-type")
        records = await decoded(request, decode_logs, "log")
        if isinstance(records, Response):
            return records
        if records.rejected.count and not records.rows and not records.skipped:
            return _status_body(400, records.rejected.message(records.total), content_type)
        failed = await stored(log_writer, records.rows, content_type, ticket)
        if failed is not None:
            return failed
        body, out_type = encode_logs_response(content_type, records)
        return Response(body, media_type=out_type)

    async def health(request: Request) -> Response:
        return JSONResponse({"status": "ok", "rows_written": writer.rows_written, "inserts": writer.inserts})

    return [Route(TRACES_PATH, traces, methods=["POST"]), Route(LANGFUSE_TRACES_PATH, traces, methods=["POST"]),
            Route(LOGS_PATH, logs, methods=["POST"]), Route("/healthz", health),
            Route("/readyz", _readiness(store))]


class ReadsSeeAcknowledged:
    """ASGI middleware for a server that holds the receiver: before any request but ingest and the probes, wait
    until what the writers acknowledged is stored, so a client that was told its spans were received reads them
    (``sumwatch traces`` right after an export). Only the write-ahead log acknowledges before storing, and only
    a backlog makes a request wait; at most ``timeout_s``, after which the request is answered from what is
    stored (the database is failing, and the writer says so in the log)."""

    def __init__(self, app: Any, writers: Sequence[GroupWriter], timeout_s: float = 30.0) -> None:
        self.app, self._writers, self._timeout = app, tuple(writers), timeout_s

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["path"] not in _NO_WAIT and any(w.backlog for w in self._writers):
            loop = asyncio.get_running_loop()
            for writer in self._writers:
                await loop.run_in_executor(None, writer.wait_stored, self._timeout)
        await self.app(scope, receive, send)


_NO_WAIT = frozenset({TRACES_PATH, LANGFUSE_TRACES_PATH, LOGS_PATH, "/healthz", "/readyz"})


def _readiness(store: Store) -> Any:
    """``/readyz``: 200 when the database answers ``SELECT 1`` (a load balancer's readiness probe), else 503;
    ``/healthz`` stays a liveness check that does not depend on the database."""

    async def ready(request: Request) -> Response:
        try:
            await asyncio.wait_for(asyncio.to_thread(store.query_rows, "SELECT 1"), timeout=5)
        except Exception as exc:
            _log.warning("not ready: %s", exc)
            return JSONResponse({"status": "database unavailable"}, status_code=503)
        return JSONResponse({"status": "ready"})

    return ready


def _uvicorn_server(config: Any) -> Any:
    import uvicorn  # noqa: PLC0415 - heavy: loaded on first use

    class _Server(uvicorn.Server):
        """uvicorn, minus its signal handling: it re-raises SIGTERM after shutting down, which would
        kill the process before the writer drains and the store is closed. serve_forever handles
        signals itself."""

        @contextlib.contextmanager
        def capture_signals(self) -> Iterator[None]:
            yield

    return _Server(config)


def span_writer(settings: Settings, store: Store) -> GroupWriter:
    """The spans' group commit; with ``receiver_log`` on, through the write-ahead log (opened at ``start()``)."""
    receiver = settings.receiver
    log = WriteAheadLog(settings.receiver_log_path / "spans", fsync=receiver.receiver_log_fsync) \
        if receiver.receiver_log else None
    return GroupWriter(store, SPANS, max_rows=receiver.insert_batch_rows, linger_ms=receiver.insert_batch_wait_ms,
                       log=log)


def log_writer(settings: Settings, store: Store) -> GroupWriter:
    """GenAI log records' group commit: the spans' batch settings (a request's records are fewer than its spans)."""
    receiver = settings.receiver
    return GroupWriter(store, GENAI_EVENTS, max_rows=receiver.insert_batch_rows,
                       linger_ms=receiver.insert_batch_wait_ms)


def receiver_app(settings: Settings, store: Store) -> Starlette:
    """The receiver alone (OTLP and probes), for a process that serves nothing else; ``app.state.writer`` and
    ``app.state.log_writer``."""
    writer, logs = span_writer(settings, store), log_writer(settings, store)
    app = Starlette(routes=receiver_routes(settings, writer, store, logs))
    app.state.writer, app.state.log_writer = writer, logs
    return app


class ReceiverServer:
    """An app on uvicorn, in a background thread or in the foreground, with its span and log writers started and
    drained around it: the whole server (``views.app.create_app``), or the receiver alone when no app is given.

        ReceiverServer(runtime.settings, app=create_app(runtime)).start()
    """

    def __init__(self, settings: Settings, store: Store | None = None, *, app: Any = None,
                 keep_alive_s: int = 5) -> None:
        """``keep_alive_s``: how long an idle connection stays open between requests (uvicorn's default)."""
        import uvicorn  # noqa: PLC0415 - heavy: loaded on first use

        if app is None:
            assert store is not None, "the receiver alone needs the store"
            app = receiver_app(settings, store)
        self.settings = settings
        self.app = app
        self.writer: GroupWriter = app.state.writer
        self.log_writer: GroupWriter = app.state.log_writer
        config = uvicorn.Config(app, host=settings.receiver.host, port=settings.receiver.port, log_level="warning",
                                access_log=False, lifespan="off", timeout_keep_alive=keep_alive_s,
                                # uvicorn believes X-Forwarded-For from 127.0.0.1 by default: the app decides whom
                                # to believe (views.proxies, SUMWATCH_TRUSTED_PROXIES)
                                proxy_headers=False,
                                http=guarded_protocol(settings.receiver.header_timeout_s,
                                                      settings.receiver.max_connections))
        self._server = _uvicorn_server(config)
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return int(self._server.servers[0].sockets[0].getsockname()[1])

    @property
    def endpoint(self) -> str:
        host = self.settings.receiver.host if self.settings.receiver.host not in ("0.0.0.0", "::") else "127.0.0.1"
        return f"http://{host}:{self.port}"

    def start(self, timeout: float = 15.0) -> ReceiverServer:
        self.writer.start()
        self.log_writer.start()
        self._thread = threading.Thread(target=self._server.run, name="sumwatch-receiver", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + timeout
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                where = f"{self.settings.receiver.host}:{self.settings.receiver.port}"
                raise RuntimeError(f"the receiver did not start on {where}")
            time.sleep(0.01)
        return self

    def serve_forever(self, on_started: Callable[[], None] | None = None) -> None:
        """Run in the foreground until SIGINT/SIGTERM, then write what is queued and return. ``on_started`` runs
        once the socket listens (from a helper thread): what it prints about the address holds when read."""

        def stop(signum: int, frame: Any) -> None:
            if self._server.should_exit and signum == signal.SIGINT:
                self._server.force_exit = True  # a second Ctrl-C: do not wait for open connections
            self._server.should_exit = True

        previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM)}
        self.writer.start()
        self.log_writer.start()
        if on_started is not None:
            threading.Thread(target=self._when_started, args=(on_started,), name="sumwatch-started",
                             daemon=True).start()
        try:
            self._server.run()
        finally:
            self.writer.stop()
            self.log_writer.stop()
            for sig, handler in previous.items():
                signal.signal(sig, handler)

    def _when_started(self, callback: Callable[[], None]) -> None:
        while not self._server.started:
            if self._server.should_exit:
                return
            time.sleep(0.01)
        callback()

    def stop(self) -> None:
        self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(10)
        self.writer.stop()
        self.log_writer.stop()

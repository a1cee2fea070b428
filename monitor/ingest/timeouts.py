"""Connection handling for the receiver: read timeouts, so a slow or stuck client cannot hold a connection,
and a connection cap that sheds idle connections before it refuses work and never refuses the probes.

    config = uvicorn.Config(app, http=guarded_protocol(header_timeout_s=10.0, max_connections=1000))
    body = await read_body(request, limit=20 << 20, timeout=30.0)    # raises BodyTimeout

uvicorn times out idle keep-alive connections but not a request whose headers arrive a byte a
second, nor one whose body does: the first is closed by the protocol below when its headers are not
complete in time (counted from the connection's first byte or the previous response's end), the second
is answered 408 by the app when its body has not arrived in time.

uvicorn's own ``limit_concurrency`` counts idle connections as load and answers 503 to every request, the
health probes included, while one client holds that many connections open doing nothing. Instead: when a
connection opens beyond ``max_connections``, the connections idle longest (no request in progress) are
closed to make room; only when more than ``max_connections`` requests are in progress does a new one get
503 with Retry-After, and ``/healthz`` and ``/readyz`` are answered even then.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from starlette.requests import Request

from .otlp import PayloadTooLarge

# answered whatever the load: a load balancer that cannot reach them would take the server out of service
PROBE_PATHS = frozenset({"/healthz", "/readyz"})
_BUSY_RETRY_AFTER_S = 1

ASGIApp = Callable[[MutableMapping[str, Any], Callable[[], Awaitable[Any]], Callable[[Any], Awaitable[None]]],
                   Awaitable[None]]


class BodyTimeout(Exception):
    """The request body did not arrive within the body timeout."""


async def read_body(request: Request, limit: int, timeout: float) -> bytes:
    """The whole body, refusing more than ``limit`` bytes (:class:`PayloadTooLarge`) or more than
    ``timeout`` seconds to receive it (:class:`BodyTimeout`)."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise PayloadTooLarge(f"body of {declared} bytes exceeds the {limit}-byte limit")

    async def receive() -> bytes:
        chunks, size = [], 0
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                raise PayloadTooLarge(f"body exceeds the {limit}-byte limit")
            chunks.append(chunk)
        return b"".join(chunks)

    try:
        return await asyncio.wait_for(receive(), timeout)
    except TimeoutError:
        raise BodyTimeout(f"request body not received within {timeout:g} s") from None


def busy_gate(app: ASGIApp, tasks: set[Any], max_requests: int) -> ASGIApp:
    """``app``, answering 503 (Retry-After, Connection: close) to a request that finds more than
    ``max_requests`` in progress (``tasks``: uvicorn's set of request tasks, this one included), except the
    probes."""

    async def gated(scope: MutableMapping[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http" and len(tasks) > max_requests and scope["path"] not in PROBE_PATHS:
            body = b"server busy: too many requests in progress, retry later"
            await send({"type": "http.response.start", "status": 503,
                        "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                                    (b"content-length", str(len(body)).encode()),
                                    (b"retry-after", str(_BUSY_RETRY_AFTER_S).encode()), (b"connection", b"close")]})
            await send({"type": "http.response.body", "body": body})
            return
        await app(scope, receive, send)

    return gated


def guarded_protocol(header_timeout_s: float, max_connections: int | None = None,
                     base: type | None = None) -> type[asyncio.Protocol]:
    """uvicorn's HTTP protocol (``base``: the one it would pick), closing a connection whose request
    headers take longer than ``header_timeout_s`` seconds, and keeping at most ``max_connections`` idle
    connections open (oldest idle first to go) and ``max_connections`` requests in progress (503 beyond,
    probes excepted). Give uvicorn no ``limit_concurrency`` beside it."""
    if base is None:
        from uvicorn.protocols.http.auto import AutoHTTPProtocol  # noqa: PLC0415 - heavy: loaded on first use

        base = AutoHTTPProtocol

    class GuardedProtocol(base):  # type: ignore[misc, valid-type]
        _header_timer: asyncio.TimerHandle | None = None
        _idle_since = 0.0  # loop time the connection opened or last finished a response
        app: ASGIApp  # set by uvicorn's protocol

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            if max_connections is not None:
                self.app = busy_gate(self.app, self.tasks, max_connections)

        def _in_request(self) -> bool:
            cycle = getattr(self, "cycle", None)  # set by uvicorn once a request's headers are complete
            return cycle is not None and not cycle.response_complete

        def _arm(self) -> None:
            if self._header_timer is None:
                self._header_timer = self.loop.call_later(header_timeout_s, self._headers_too_slow)

        def _disarm(self) -> None:
            if self._header_timer is not None:
                self._header_timer.cancel()
                self._header_timer = None

        def _headers_too_slow(self) -> None:
            self._header_timer = None
            if not self._in_request() and not self.transport.is_closing():
                self.transport.close()

        def _shed_idle(self) -> None:
            """Close the connections idle longest until at most ``max_connections`` stay open."""
            assert max_connections is not None
            open_ = [c for c in self.connections if not c.transport.is_closing()]
            excess = len(open_) - max_connections
            if excess <= 0:
                return
            idle = sorted((c for c in open_ if c is not self and isinstance(c, GuardedProtocol)
                           and not c._in_request()), key=lambda c: c._idle_since)
            for conn in idle[:excess]:
                conn.transport.close()

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            self._idle_since = self.loop.time()
            if max_connections is not None:
                self._shed_idle()
            self._arm()

        def data_received(self, data: bytes) -> None:
            if not self._in_request():
                self._arm()  # the first bytes of a request: its headers are due within the timeout
            super().data_received(data)
            if self._in_request():
                self._disarm()

        def on_response_complete(self) -> None:
            self._idle_since = self.loop.time()
            super().on_response_complete()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

    return GuardedProtocol

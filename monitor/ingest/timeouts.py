"""Read timeouts for the receiver's connections, so a slow or stuck client cannot hold one open.

    config = uvicorn.Config(app, http=header_timeout_protocol(10.0), limit_concurrency=1000)
    body = await read_body(request, limit=20 << 20, timeout=30.0)    # raises BodyTimeout

uvicorn times out idle keep-alive connections but not a request whose headers arrive a byte a
second, nor one whose body does: the first is closed by the protocol below when its headers are not
complete in time (counted from the connection's first byte or the previous response's end), the second
is answered 408 by the app when its body has not arrived in time.
"""

from __future__ import annotations

import asyncio
from typing import Any

from starlette.requests import Request

from .otlp import PayloadTooLarge


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
    except asyncio.TimeoutError:
        raise BodyTimeout(f"request body not received within {timeout:g} s") from None


def header_timeout_protocol(timeout: float, base: type | None = None) -> type[asyncio.Protocol]:
    """uvicorn's HTTP protocol (``base``: the one it would pick), closing a connection whose request
    headers take longer than ``timeout`` seconds."""
    if base is None:
        from uvicorn.protocols.http.auto import AutoHTTPProtocol

        base = AutoHTTPProtocol

    class HeaderTimeoutProtocol(base):  # type: ignore[misc, valid-type]
        _header_timer: asyncio.TimerHandle | None = None

        def _in_request(self) -> bool:
            cycle = getattr(self, "cycle", None)  # set by uvicorn once a request's headers are complete
            return cycle is not None and not cycle.response_complete

        def _arm(self) -> None:
            if self._header_timer is None:
                self._header_timer = self.loop.call_later(timeout, self._headers_too_slow)

        def _disarm(self) -> None:
            if self._header_timer is not None:
                self._header_timer.cancel()
                self._header_timer = None

        def _headers_too_slow(self) -> None:
            self._header_timer = None
            if not self._in_request() and not self.transport.is_closing():
                self.transport.close()

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            self._arm()

        def data_received(self, data: bytes) -> None:
            if not self._in_request():
                self._arm()  # the first bytes of a request: its headers are due within the timeout
            super().data_received(data)
            if self._in_request():
                self._disarm()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

    return HeaderTimeoutProtocol

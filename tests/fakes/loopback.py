"""A Starlette app served by uvicorn on 127.0.0.1 in a background thread: the part every loopback fake shares.

    class FakeThing(LoopbackServer):
        def __init__(self):
            super().__init__("the fake thing")
            self.app = Starlette(routes=[...])

    with FakeThing() as fake:
        httpx.get(f"{fake.base}/...")
"""

from __future__ import annotations

import socket
import threading
import time
from typing import Any, TypeVar

import uvicorn

_S = TypeVar("_S", bound="LoopbackServer")


class LoopbackServer:
    """Start, stop and the base URL of ``self.app`` on a free loopback port."""

    app: Any

    def __init__(self, label: str, *, host: str = "127.0.0.1", port: int = 0, backlog: int = 2048) -> None:
        self._label, self._host, self._port, self._backlog = label, host, port, backlog
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self._socket: socket.socket | None = None

    @property
    def base(self) -> str:
        assert self._socket is not None, "not started"
        return f"http://{self._host}:{self._socket.getsockname()[1]}"

    def start(self: _S) -> _S:
        self._socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._socket.bind((self._host, self._port))
        config = uvicorn.Config(self.app, log_level="warning", access_log=False, lifespan="off",
                                timeout_graceful_shutdown=1, backlog=self._backlog)
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, kwargs={"sockets": [self._socket]},
                                        name=self._label, daemon=True)
        self._thread.start()
        # a start-up guard, not a test limit: a server that never starts fails the fixture with a message
        deadline = time.monotonic() + 10
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"{self._label} did not start")
            time.sleep(0.005)
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=5)
        if self._socket is not None:
            self._socket.close()
        self._server = self._thread = self._socket = None

    def __enter__(self: _S) -> _S:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

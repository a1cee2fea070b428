"""The server as `sumwatch up` builds it, started on loopback: the one way tests serve the app.

    server = serve(settings, store, judges=lambda mode: rules_cascade)   # server.endpoint, server.stop()
    server = serve_runtime(runtime)                                       # a runtime its worker shares too
    with up_process(env, "--no-worker") as endpoint: ...                  # the real command, in its own process
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
from hang_guard import HANG_GUARD_S

from sumwatch.monitor.exports.config import ExportConfig
from sumwatch.monitor.ingest.receiver import ReceiverServer
from sumwatch.monitor.runtime import Runtime
from sumwatch.monitor.views.app import create_app


def serve(settings, store, *, judges=None, export_config=None) -> ReceiverServer:
    """``create_app`` on uvicorn in a thread (port 0 picks a free one); tracker settings empty unless given."""
    return serve_runtime(Runtime.build(settings, store, exports=export_config or ExportConfig(), judges=judges))


def serve_runtime(runtime: Runtime) -> ReceiverServer:
    """The app of ``runtime`` on uvicorn in a thread, as `sumwatch up` serves it."""
    return ReceiverServer(runtime.settings, app=create_app(runtime)).start()


SUMWATCH = str(Path(sys.executable).with_name("sumwatch"))


@contextmanager
def up_process(env: dict[str, str], *args: str) -> Iterator[str]:
    """``sumwatch up --port 0 ARGS`` in a process of its own, with ``env``: its endpoint once it answers its health
    probe; SIGTERM and a clean exit afterwards."""
    proc = subprocess.Popen([SUMWATCH, "up", "--port", "0", *args], env=env, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stderr is not None
        endpoint = proc.stderr.readline().split(" on ", 1)[1].split("/v1/traces", 1)[0]
        deadline = time.monotonic() + HANG_GUARD_S  # a hang guard, not a test limit
        while True:
            try:
                if httpx.get(f"{endpoint}/healthz").status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert proc.poll() is None and time.monotonic() < deadline, "sumwatch up did not start"
            time.sleep(0.2)
        yield endpoint
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=HANG_GUARD_S)

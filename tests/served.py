"""The server as `sumwatch up` builds it, started on loopback: the one way tests serve the app.

    server = serve(settings, store, judges=lambda mode: rules_cascade)   # server.endpoint, server.stop()
"""

from __future__ import annotations

from sumwatch.monitor.exports.config import ExportConfig
from sumwatch.monitor.ingest.receiver import ReceiverServer
from sumwatch.monitor.views.app import create_app


def serve(settings, store, *, judges=None, export_config=None) -> ReceiverServer:
    """``create_app`` on uvicorn in a thread (port 0 picks a free one); tracker settings empty unless given."""
    app = create_app(settings, store, judges=judges, export_config=export_config or ExportConfig())
    return ReceiverServer(settings, app=app).start()

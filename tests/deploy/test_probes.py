"""The probes the compose file and the Kubernetes manifests use: /healthz (alive) and /readyz (database)."""

from __future__ import annotations

import httpx
import pytest

from sumwatch.monitor.ingest.receiver import ReceiverServer
from sumwatch.monitor.store.connection import StoreUnavailableError

pytestmark = pytest.mark.integration


def test_readyz_answers_200_while_the_database_answers_and_503_when_it_fails(settings, store, monkeypatch):
    server = ReceiverServer(settings, store).start()
    try:
        assert httpx.get(f"{server.endpoint}/readyz", timeout=10).json() == {"status": "ready"}

        def down(*args, **kwargs):
            raise StoreUnavailableError("ClickHouse at http://ch:8123 failed: connection refused")

        monkeypatch.setattr(store, "query_rows", down)
        ready = httpx.get(f"{server.endpoint}/readyz", timeout=10)
        assert ready.status_code == 503 and "refused" not in ready.text
        assert httpx.get(f"{server.endpoint}/healthz", timeout=10).status_code == 200  # alive: no restart
    finally:
        server.stop()

"""A served dashboard over a small real dataset, and headless Chromium to drive it.

The dataset is the demo's: 80 traced summarizations of two services, scored by the rules tier and
clustered by the real pipeline (UMAP, HDBSCAN, keyword names, promotion into the corpora) over a
word-count embedding, so no model loads; built once per module in a database of its own and served by
the real server on 127.0.0.1.
"""

from __future__ import annotations

import hashlib
import re
import uuid
from pathlib import Path

import numpy as np
import pytest

CHROMIUM = Path("/usr/bin/chromium")


class WordEmbedder:
    """Texts as unit vectors of hashed word counts: texts that share words sit close, no model needed."""

    def encode(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), 64), dtype=np.float32)
        for i, text in enumerate(texts):
            for word in re.findall(r"[a-z]+", text.lower()):
                out[i, int(hashlib.md5(word.encode()).hexdigest(), 16) % 64] += 1
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.where(norms == 0, 1, norms)


SERVICES = {"digest": 60, "alerts": 20}  # demo spans per service: the service filter has something to split


def build_dataset(store, settings, cascade, services: dict[str, int] = SERVICES, seed: int = 11):
    """Demo spans of each service, scored and clustered; returns the clustering report."""
    from sumwatch.monitor.demo.run import run_demo, score_demo
    from sumwatch.monitor.issues.job import run_clustering

    for i, (service, n) in enumerate(services.items()):
        result = run_demo(store, n=n, seed=seed + i, service=service)
        score_demo(store, cascade, result.run_id)
    return run_clustering(store, settings, embedder=WordEmbedder())


def serve(store, settings):
    """The server as `sumwatch up` builds it: receiver, API, login, dashboard, auth and CSRF middleware."""
    from sumwatch.monitor.ingest.receiver import ReceiverServer
    from sumwatch.monitor.views.api import api_routes
    from sumwatch.monitor.views.auth import auth_middleware, login_routes
    from sumwatch.monitor.views.dashboard import dashboard_routes

    routes = api_routes(store, settings) + login_routes(settings) + dashboard_routes(store, settings)
    return ReceiverServer(settings, store, extra_routes=routes, middleware=[auth_middleware(settings)]).start()


@pytest.fixture(scope="module")
def dataset(sw_home, rules_cascade):
    """(settings, store, clustering report) of a module's own database."""
    from sumwatch.monitor.settings import Settings
    from sumwatch.monitor.store.connection import Store
    from sumwatch.monitor.store.migrations import migrate

    settings = Settings.from_env(env={}, home=sw_home, database=f"dash_{uuid.uuid4().hex[:8]}", port=0)
    store = Store.open(settings)
    migrate(store)
    report = build_dataset(store, settings, rules_cascade)
    yield settings, store, report
    store.command(f"DROP DATABASE IF EXISTS `{settings.database}`")
    store.close()


@pytest.fixture(scope="module")
def server(dataset):
    settings, store, _ = dataset
    running = serve(store, settings)
    yield running
    running.stop()


@pytest.fixture(scope="module")
def browser(server):
    """Headless Chromium from Debian's package (Playwright's own download is not used). Started after the
    server: Playwright's sync API keeps an event loop running, and the dataset's scoring runs its own."""
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: the dashboard's browser tests need Debian's chromium package "
                    f"(apt-get install -y chromium; .ci/run installs it)", pytrace=False)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox", "--disable-gpu"])
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser, server):
    context = browser.new_context(base_url=server.endpoint, viewport={"width": 1400, "height": 1000})
    tab = context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda exc: errors.append(str(exc)))
    yield tab
    context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"

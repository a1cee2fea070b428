"""A served dashboard over a small real dataset, and headless Chromium to drive it.

The dataset is the demo's: 80 traced summarizations of two services, scored by the rules tier and
clustered by the real pipeline (UMAP, HDBSCAN, keyword names, promotion into the corpora) over a
word-count embedding, so no model loads; built once in a database of its own and served by the real
server on 127.0.0.1.
"""

from __future__ import annotations

import uuid

import pytest
from served_dashboard import CHROMIUM, build_dataset, serve


@pytest.fixture(scope="session")
def dataset(sw_home, rules_cascade):
    """(settings, store, clustering report) in a database of its own, shared by the dashboard's tests."""
    from sumwatch.monitor.settings import Settings
    from sumwatch.monitor.store.connection import Store
    from sumwatch.monitor.store.migrations import migrate

    settings = Settings.from_env(env={}, home=sw_home, database=f"dash_{uuid.uuid4().hex[:8]}", port=0)
    store = Store.open(settings)
    migrate(store)
    report = build_dataset(store, settings, rules_cascade)
    yield settings, store, report
    store.command(f"DROP DATABASE IF EXISTS `{settings.store.database}`")
    store.close()


@pytest.fixture(scope="session")
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
    # what the Content-Security-Policy blocks, Chromium reports on the console
    tab.on("console", lambda msg: errors.append(msg.text) if "Content Security Policy" in msg.text else None)
    yield tab
    context.close()
    assert not errors, f"JavaScript errors or Content-Security-Policy violations on the page: {errors}"

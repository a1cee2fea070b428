"""The dashboard's test data and server, for its tests and for tests/screenshots.py.

    report = build_dataset(store, settings, cascade)    # the demo workload, scored and clustered
    server = serve(store, settings)                      # as `sumwatch up` builds it, on port 0
"""

from __future__ import annotations

import hashlib
import re
import uuid
from contextlib import contextmanager
from pathlib import Path

import numpy as np

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


def serve(store, settings, export_config=None):
    """The server as `sumwatch up` builds it: receiver, API, login, dashboard, tracker exports, auth and CSRF
    middleware."""
    from served import serve as serve_app

    return serve_app(settings, store, export_config=export_config)


@contextmanager
def database_of_its_own(home, prefix: str):
    """(settings, store) of a fresh, migrated database in ``home``, dropped afterwards: for tests whose writes
    (labels, triage) would change what the shared dataset's tests expect."""
    from sumwatch.monitor.settings import Settings
    from sumwatch.monitor.store.connection import Store
    from sumwatch.monitor.store.migrations import migrate

    settings = Settings.from_env(env={}, home=home, database=f"{prefix}_{uuid.uuid4().hex[:8]}", port=0)
    store = Store.open(settings)
    migrate(store)
    try:
        yield settings, store
    finally:
        store.command(f"DROP DATABASE IF EXISTS `{settings.store.database}`")
        store.close()

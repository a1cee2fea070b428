"""Shared fixtures.

chDB hosts one engine (one data directory) per process, so the whole test session shares one
directory and every test gets a database of its own in it, dropped afterwards.
"""

from __future__ import annotations

import os
import uuid
from pathlib import Path

import pytest

# Tests never reach a model hub or an LLM provider.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


@pytest.fixture(scope="session")
def sw_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("sumwatch-home")


@pytest.fixture
def settings(sw_home: Path):
    from sumwatch.monitor.settings import Settings

    return Settings.from_env(env={}, home=sw_home, database=f"t_{uuid.uuid4().hex[:10]}", port=0)


@pytest.fixture
def store(settings):
    from sumwatch.monitor.store.connection import Store
    from sumwatch.monitor.store.migrations import migrate

    st = Store.open(settings)
    migrate(st)
    yield st
    try:
        st.command(f"DROP DATABASE IF EXISTS `{settings.store.database}`")
    finally:
        st.close()


@pytest.fixture
def cli_env(settings) -> dict[str, str]:
    """Environment for in-process CLI runs against the test's database."""
    return {"SUMWATCH_HOME": str(settings.store.home), "SUMWATCH_DATABASE": settings.store.database}


@pytest.fixture(scope="session")
def offline_cascade():
    """Rules + embeddings (the packaged all-MiniLM-L6-v2), no LLM: built once per session."""
    from sumwatch.monitor.scoring.judges import build_cascade
    from sumwatch.monitor.settings import Settings

    return build_cascade(Settings.from_env(env={}), mode="off")


@pytest.fixture(scope="session")
def rules_cascade():
    from sumwatch.monitor.scoring.judges import build_cascade
    from sumwatch.monitor.settings import Settings

    return build_cascade(Settings.from_env(env={}), mode="off", embeddings=False)

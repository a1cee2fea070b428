"""Shared fixtures.

chDB hosts one engine (one data directory) per process, so the whole test session shares one
directory and every test gets a database of its own in it, dropped afterwards.

Tests come in two tiers. A test that starts a server, a subprocess, a browser or the sentence model is in the
integration tier (marked ``integration``: by its module's ``pytestmark``, by its own mark, or by using one of
``INTEGRATION_FIXTURES``); the rest is the fast tier, ``pytest -m "not integration"``. tests/test_layout.py
fails when a test module starts one of those without the mark.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

# Tests never reach a model hub or an LLM provider.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

TESTS = Path(__file__).resolve().parent

# Shared fixtures that start something, named where they are defined (path under tests/ :: name), so a
# fixture of the same name elsewhere is not taken for them: a test that uses one, directly or through other
# fixtures, is marked ``integration``.
INTEGRATION_FIXTURES = {
    "conftest.py::offline_cascade": "loads the sentence model (the embeddings tier)",
    "monitor/views/conftest.py::served": "serves the app on uvicorn",
    "monitor/views/conftest.py::api": "serves the app on uvicorn",
    "monitor/views/dashboard/conftest.py::server": "serves the dashboard on uvicorn",
    "monitor/views/dashboard/conftest.py::browser": "launches headless Chromium",
    "monitor/exports/conftest.py::fake": "runs the fake trackers' HTTP server on loopback",
    "monitor/exports/conftest.py::targets": "runs the fake score targets' HTTP server on loopback",
}


def _defined_at(fixturedef) -> str:
    path = Path(fixturedef.func.__code__.co_filename).resolve()
    return f"{path.relative_to(TESTS).as_posix() if path.is_relative_to(TESTS) else path}::{fixturedef.argname}"


def _used(defs) -> Iterator:
    """The definitions of one name a test gets: the closest, and the one it overrides while it asks for its own
    name, and so on."""
    for fixturedef in reversed(defs):
        yield fixturedef
        if fixturedef.argname not in fixturedef.argnames:
            break


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        info = getattr(item, "_fixtureinfo", None)  # pytest's own record of the fixtures a test function uses
        used = {_defined_at(d) for defs in info.name2fixturedefs.values() for d in _used(defs)} if info else set()
        if used & INTEGRATION_FIXTURES.keys():
            item.add_marker(pytest.mark.integration)


@pytest.fixture(scope="session")
def sw_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("sumwatch-home")


@pytest.fixture
def settings(sw_home: Path):
    from sumwatch.monitor.settings import Settings

    return Settings.from_env(env={}, home=sw_home, database=f"t_{uuid.uuid4().hex[:10]}", port=0)


@pytest.fixture(scope="session")
def migrated_template(sw_home: Path):
    """One database migrated once per session, empty of spans and scores: each test's ``store`` is made as a
    copy of it (its tables' DDL, its migration records and whatever rows the migrations wrote), which costs a
    fifth of running the migrations again. Its connection stays open for the session, which keeps the process's
    chDB engine started: with no connection open, chDB shuts the engine down and each test's store would start it
    again (seconds a test). chDB runs one folder per process while any connection is open, so a test that needs
    its own data opens a database of its own in ``sw_home``, not another folder."""
    from sumwatch.monitor.settings import Settings
    from sumwatch.monitor.store.connection import Store
    from sumwatch.monitor.store.migrations import migrate

    with Store.open(Settings.from_env(env={}, home=sw_home, database=TEMPLATE_DATABASE, port=0)) as st:
        migrate(st)
        tables = st.client.query(
            "SELECT name, engine LIKE '%View' AS view, create_table_query, total_rows FROM system.tables "
            "WHERE database = {db:String} ORDER BY view, name", parameters={"db": TEMPLATE_DATABASE}).result_rows
        yield [(name, bool(view), query, int(rows or 0)) for name, view, query, rows in tables]


TEMPLATE_DATABASE = "t_migrated_template"


def _copy_template(st, template) -> None:
    """Make ``st``'s database a copy of the migrated template: tables first, then the views that write into them."""
    database = st.database
    for name, view, query, rows in template:
        st.command(query.replace(f"{TEMPLATE_DATABASE}.", f"{database}."))
        if rows and not view:
            st.command(f"INSERT INTO `{database}`.`{name}` SELECT * FROM `{TEMPLATE_DATABASE}`.`{name}`")


@pytest.fixture
def store(settings, migrated_template):
    """The test's own database, at the latest schema (a copy of the session's migrated template)."""
    from sumwatch.monitor.store.connection import Store

    st = Store.open(settings)
    database = settings.store.database
    _copy_template(st, migrated_template)
    yield st
    try:
        st.command(f"DROP DATABASE IF EXISTS `{database}`")
    finally:
        st.close()


SEEDED_DATABASE = "t_seeded"


def _fingerprint(st, tables: list[str]) -> dict[str, tuple[int, int]]:
    """Each table's row count and a hash of its rows, in any order."""
    return {name: tuple(st.query_rows(f"SELECT count(), sum(cityHash64(*)) FROM `{name}`")[0]) for name in tables}


@pytest.fixture(scope="session")
def seeded_store(sw_home, migrated_template):
    """One database per session, in the session's folder, holding tests/seeded.py's workload: written once through
    the store's own write functions, then only read by the tests that take it. The handle's client runs with
    ClickHouse's ``readonly`` setting, so a write through it fails in the test that tries; and the session's
    end fails if any table's rows changed all the same (through another connection). Merges are stopped on its
    tables, so copies of a span stay as they were stored, however long the session runs."""
    from seeded import seed

    from sumwatch.monitor.settings import Settings
    from sumwatch.monitor.store.connection import Store

    settings = Settings.from_env(env={}, home=sw_home, database=SEEDED_DATABASE, port=0)
    tables = [name for name, view, _, _ in migrated_template if not view]
    merging = [name for name, view, query, _ in migrated_template if not view and "MergeTree" in query]
    with Store.open(settings) as st:
        _copy_template(st, migrated_template)
        for name in merging:
            st.command(f"SYSTEM STOP MERGES `{SEEDED_DATABASE}`.`{name}`")
        seed(st)
        before = _fingerprint(st, tables)
    reader = Store.open(settings, create_database=False)
    reader.client.set_client_setting("readonly", "2")  # reads, and settings of a read; no write of any kind
    yield reader
    try:
        after = _fingerprint(reader, tables)
    finally:
        reader.close()
    changed = sorted(name for name in tables if after[name] != before[name])
    assert not changed, f"tests wrote to the shared seeded store (tables {changed}): give them the `store` fixture"


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

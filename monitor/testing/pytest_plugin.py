"""A pytest plugin: a dataset's items as parametrized tests.

    @pytest.mark.sumwatch_dataset("regressions-sw3")            # the latest version; version=2 pins one
    def test_each_item(sumwatch_item):                           # one test per item, named by its id
        summary = summarize(sumwatch_item.source)
        assert_summary(sumwatch_item.source, summary, reference=sumwatch_item.reference)

Enabled with ``-p sumwatch.monitor.testing.pytest_plugin`` (or ``pytest_plugins = [...]`` in a conftest). The items
are read through the running server, or the app in this process, with the settings of the environment.
"""

from __future__ import annotations

from typing import Any

import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "sumwatch_dataset(name, version=None): one test per item of the dataset, "
                                       "given as the sumwatch_item argument")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    marker = metafunc.definition.get_closest_marker("sumwatch_dataset")
    if marker is None or "sumwatch_item" not in metafunc.fixturenames:
        return
    if not marker.args:
        raise pytest.UsageError("sumwatch_dataset needs the dataset's name: @pytest.mark.sumwatch_dataset('news')")
    name, version = marker.args[0], marker.kwargs.get("version")
    items = _items(name, version)
    metafunc.parametrize("sumwatch_item", items, ids=[i.item_id for i in items])


def _items(name: str, version: int | None) -> list[Any]:
    from ..views.client import ClientError  # noqa: PLC0415 - the client only for a test that asks for a dataset
    from ..views.experiment_runner import all_items  # noqa: PLC0415 - as above
    from .api import api_client  # noqa: PLC0415 - as above

    try:
        with api_client() as client:
            chosen = version or client.dataset_versions(name)[0].version
            return all_items(client, name, chosen)
    except ClientError as exc:
        raise pytest.UsageError(f"sumwatch_dataset({name!r}): {exc.reason or exc}") from None

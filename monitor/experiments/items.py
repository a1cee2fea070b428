"""A dataset version's items as an experiment reads them (every item, in the dataset's order).

    version = latest_version(store, "sw3")            # 4, or None when there is no such dataset
    items = dataset_items(store, "sw3", 2)            # [DatasetItem, ...], or None when there is no version 2
"""

from __future__ import annotations

from ..contract.datasets import DatasetItem
from ..store.connection import Store
from ..store.datasets import find_version, version_items


def latest_version(store: Store, name: str) -> int | None:
    found = find_version(store, name)
    return None if found is None else found.version


def dataset_items(store: Store, name: str, version: int) -> list[DatasetItem] | None:
    if find_version(store, name, version) is None:
        return None
    return list(version_items(store, name, version))

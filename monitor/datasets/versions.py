"""Saving a dataset: a new version when the items differ from the latest version's, none when they are the same.

    answer = save_dataset(store, "news", items, origin="file:news.jsonl", description="first cut")
    answer.created, answer.dataset.version, answer.added      # True, 1, 120

The items are compared by their digest (a hash of every item in order, ids included): the same items in the same
order make no new version, and the answer says so. Versions are written one at a time in this process (the server
that holds the database is the one writer).
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Sequence
from datetime import datetime, timezone

from ..contract.actions import SkippedLine
from ..contract.datasets import DatasetAnswer, DatasetItem, DatasetVersion, check_dataset_name
from ..store.connection import Store
from ..store.datasets import find_version, version_items, write_version

_WRITING = threading.Lock()  # two edits of one name must not both take the next version number


class EmptyDataset(ValueError):
    """There is nothing to store: no item came of the file, the issue, the traces or the corpus."""


def content_digest(items: Sequence[DatasetItem]) -> str:
    """A hash of the items in order: two versions with equal digests hold the same items."""
    h = hashlib.sha256()
    for item in items:
        h.update(json.dumps(item.model_dump(mode="json"), sort_keys=True, ensure_ascii=False).encode("utf-8"))
        h.update(b"\n")
    return h.hexdigest()[:32]


def save_dataset(store: Store, name: str, items: Sequence[DatasetItem], *, origin: str, description: str = "",
                 skipped: Sequence[tuple[int, str]] = (), notes: Sequence[str] = ()) -> DatasetAnswer:
    """Store ``items`` as the next version of ``name`` (the first when there is none), unless they equal the latest
    version's; ValueError for a name that cannot name a dataset, EmptyDataset for no items."""
    check_dataset_name(name)
    if not items:
        raise EmptyDataset(f"nothing to store in dataset {name!r}: no items")
    digest = content_digest(items)
    told = list(notes)
    with _WRITING:
        latest = find_version(store, name)
        if latest is not None and latest.digest == digest:
            if description and description != latest.description:
                told.append(f"the description was not changed: the items are the same as version "
                            f"{latest.version}'s, so no version was made")
            return DatasetAnswer(dataset=latest, created=False, previous=latest.version, items=latest.items,
                                 skipped=_skipped(skipped), notes=told)
        before = {} if latest is None else {i.item_id: i for i in version_items(store, name, latest.version)}
        made = DatasetVersion(name=name, version=1 if latest is None else latest.version + 1,
                              created_at=datetime.now(timezone.utc), origin=origin, description=description,
                              items=len(items), digest=digest)
        write_version(store, made, items)
    ids = {i.item_id for i in items}
    return DatasetAnswer(dataset=made, created=True, previous=None if latest is None else latest.version,
                         items=len(items), added=sum(1 for i in items if i.item_id not in before),
                         removed=sum(1 for key in before if key not in ids),
                         changed=sum(1 for i in items if i.item_id in before and before[i.item_id] != i),
                         skipped=_skipped(skipped), notes=told)


def _skipped(skipped: Sequence[tuple[int, str]]) -> list[SkippedLine]:
    return [SkippedLine(line=line, reason=reason) for line, reason in skipped]

"""Datasets: ``sumwatch_dataset_versions``, one row per (name, version), and ``sumwatch_dataset_items``, one row per
item of each version (every version holds all its items: copy on write). The records are
:class:`~sumwatch.monitor.contract.datasets.DatasetVersion` and
:class:`~sumwatch.monitor.contract.datasets.DatasetItem`.

    version = find_version(store, "news", 3)            # None when there is no such version
    items = version_items(store, "news", 3)             # every item of version 3, in its order
    page = version_items(store, "news", 3, limit=500)   # a page; next_items_cursor(page, ...) gives the next
    write_version(store, DatasetVersion(...), items)    # its items first, then the row that makes it readable

A version is readable once its row is written, and its row is written after its items: a write cut short leaves
items no version row points to, which readers never see and a retry of the same version replaces. Versions are
only added, never changed or removed, so an experiment that pinned (name, version) reads the same items later.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..contract.datasets import DatasetItem, DatasetVersion
from .connection import Store, as_utc, quote_ident
from .ddl import Table, Target
from .paging import DATASET_ITEMS_CURSOR, decode_cursor, encode_cursor

DATASET_VERSIONS_TABLE = "sumwatch_dataset_versions"
DATASET_ITEMS_TABLE = "sumwatch_dataset_items"
VERSION_COLUMNS = ("Name", "Version", "CreatedAt", "Origin", "Description", "Items", "Digest")
ITEM_COLUMNS = ("Name", "Version", "Position", "ItemId", "Source", "Reference", "ExpectedFacts", "Questions", "Band",
                "Metadata")


def _create_versions(t: Target) -> str:
    return f"""CREATE TABLE IF NOT EXISTS {t.name(DATASET_VERSIONS_TABLE)}{t.on_cluster} (
    Name String,
    Version UInt32,
    CreatedAt DateTime64(6),
    Origin String,
    Description String,
    Items UInt32,
    Digest String
) ENGINE = {t.engine("ReplacingMergeTree", "CreatedAt")}
ORDER BY (Name, Version)"""


def _create_items(t: Target) -> str:
    return f"""CREATE TABLE IF NOT EXISTS {t.name(DATASET_ITEMS_TABLE)}{t.on_cluster} (
    Name String,
    Version UInt32,
    Position UInt32,
    ItemId String,
    Source String CODEC(ZSTD(3)),
    Reference String CODEC(ZSTD(3)),
    ExpectedFacts Array(String),
    Questions Array(String),
    Band LowCardinality(String),
    Metadata Map(String, String)
) ENGINE = {t.engine("ReplacingMergeTree")}
ORDER BY (Name, Version, Position)"""


# by name: a dataset's versions and items live on one shard, where FINAL sees every copy of a row
DATASET_VERSIONS = Table(DATASET_VERSIONS_TABLE, "cityHash64(Name)", _create_versions)
DATASET_ITEMS = Table(DATASET_ITEMS_TABLE, "cityHash64(Name)", _create_items)


def write_version(store: Store, version: DatasetVersion, items: Sequence[DatasetItem]) -> None:
    """Store a new version: its items, then its row (after which readers see it)."""
    store.insert(DATASET_ITEMS_TABLE, [
        (version.name, version.version, position, i.item_id, i.source, i.reference, list(i.expected_facts),
         list(i.questions), i.band, dict(i.metadata)) for position, i in enumerate(items)], ITEM_COLUMNS)
    store.insert(DATASET_VERSIONS_TABLE, [(version.name, version.version, version.created_at, version.origin,
                                           version.description, version.items, version.digest)], VERSION_COLUMNS)


def _versions(store: Store, where: str, params: dict[str, Any], tail: str = "") -> list[DatasetVersion]:
    rows = store.query_rows(
        f"SELECT {', '.join(VERSION_COLUMNS)} FROM {quote_ident(DATASET_VERSIONS_TABLE)} FINAL WHERE {where} "
        f"ORDER BY Name, Version DESC{tail}", params)
    return [DatasetVersion(name=name, version=int(v), created_at=as_utc(at), origin=origin, description=text,
                           items=int(n), digest=digest) for name, v, at, origin, text, n, digest in rows]


def latest_versions(store: Store) -> list[DatasetVersion]:
    """Every dataset's latest version, by name."""
    return _versions(store, "1", {}, " LIMIT 1 BY Name")


def dataset_versions(store: Store, name: str) -> list[DatasetVersion]:
    """Every version of ``name``, newest first (empty: no such dataset)."""
    return _versions(store, "Name = {name:String}", {"name": name})


def find_version(store: Store, name: str, version: int | None = None) -> DatasetVersion | None:
    """Version ``version`` of ``name`` (None: the latest), or None when there is none."""
    if version is None:
        found = _versions(store, "Name = {name:String}", {"name": name}, " LIMIT 1")
    else:
        found = _versions(store, "Name = {name:String} AND Version = {v:UInt32}", {"name": name, "v": version})
    return found[0] if found else None


def version_items(store: Store, name: str, version: int, *, limit: int | None = None, cursor: str | None = None
                  ) -> list[DatasetItem]:
    """The items of a version in their order: all, or with ``limit`` a page, and with ``cursor`` (from
    :func:`next_items_cursor`) the page after the one it came from. A cursor of another version is a ValueError."""
    if limit is not None and limit < 1:
        raise ValueError(f"limit must be at least 1, got {limit}")
    params: dict[str, Any] = {"name": name, "v": version, "after": -1}
    if cursor is not None:
        c_name, c_version, params["after"] = decode_cursor(DATASET_ITEMS_CURSOR, cursor, (str, int, int))
        if (c_name, c_version) != (name, version):
            raise ValueError("cursor is not one this server gave: it pages another dataset version")
    tail = ""
    if limit is not None:
        params["limit"], tail = limit, " LIMIT {limit:UInt32}"
    # only the positions the version row counts: rows of a write cut short beyond them are not the version's
    rows = store.query_rows(
        f"""SELECT ItemId, Source, Reference, ExpectedFacts, Questions, Band, Metadata
        FROM {quote_ident(DATASET_ITEMS_TABLE)} FINAL
        WHERE Name = {{name:String}} AND Version = {{v:UInt32}} AND Position > {{after:Int64}}
          AND Position < (SELECT max(Items) FROM {quote_ident(DATASET_VERSIONS_TABLE)}
                          WHERE Name = {{name:String}} AND Version = {{v:UInt32}})
        ORDER BY Position{tail}""", params)
    return [DatasetItem(item_id=iid, source=src, reference=ref, expected_facts=tuple(facts), questions=tuple(qs),
                        band=band, metadata=dict(meta)) for iid, src, ref, facts, qs, band, meta in rows]


def next_items_cursor(name: str, version: int, cursor: str | None, page: Sequence[DatasetItem], limit: int
                      ) -> str | None:
    """The cursor of the page after ``page`` (read with ``limit`` and ``cursor``), or None when it was the last
    page. A version's positions run from 0 without a gap, so the page ends at its start plus its length."""
    if len(page) < limit or not page:
        return None
    after = -1 if cursor is None else int(decode_cursor(DATASET_ITEMS_CURSOR, cursor, (str, int, int))[2])
    return encode_cursor(DATASET_ITEMS_CURSOR, (name, version, after + len(page)))

"""Where DDL goes, for one node or a cluster, and the table that records migrations.

Each table's DDL lives in the store module named after it (``store/scores.py`` ...), with its column
list and its row <-> record mapping. With a cluster name, every table becomes a ``<name>_local``
Replicated table created ON CLUSTER, fronted by a Distributed table under the canonical name, which
is what readers and writers use.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any

from .connection import quote_ident

MIGRATIONS_TABLE = "sumwatch_migrations"
LOCAL_SUFFIX = "_local"


@dataclass(frozen=True)
class Target:
    """Where DDL goes: the database and, optionally, the cluster."""

    database: str
    cluster: str | None = None

    def name(self, table: str) -> str:
        """Fully qualified name of the table that stores rows (the local one on a cluster)."""
        return f"{quote_ident(self.database)}.{quote_ident(self.local(table))}"

    def local(self, table: str) -> str:
        return table + LOCAL_SUFFIX if self.cluster else table

    @property
    def on_cluster(self) -> str:
        return f" ON CLUSTER {quote_ident(self.cluster)}" if self.cluster else ""

    def engine(self, family: str, args: str = "") -> str:
        """``MergeTree`` / ``ReplacingMergeTree(v)`` here, their Replicated form on a cluster."""
        if not self.cluster:
            return f"{family}({args})"
        path = "'/clickhouse/tables/{shard}/{database}/{table}', '{replica}'"
        return f"Replicated{family}({path}{', ' + args if args else ''})"

    def distributed(self, table: str, sharding_key: str) -> list[str]:
        """The Distributed front table on a cluster; nothing on one node."""
        if not self.cluster:
            return []
        db = quote_ident(self.database)
        return [
            f"CREATE TABLE IF NOT EXISTS {db}.{quote_ident(table)}{self.on_cluster} "
            f"AS {self.name(table)} "
            f"ENGINE = Distributed({quote_ident(self.cluster)}, {db}, {quote_ident(self.local(table))}, {sharding_key})"
        ]


def migrations_table_ddl(t: Target) -> list[str]:
    return [f"""CREATE TABLE IF NOT EXISTS {t.name(MIGRATIONS_TABLE)}{t.on_cluster} (
    version UInt32,
    name String,
    checksum String,
    applied_at DateTime64(3) DEFAULT now64(3)
) ENGINE = {t.engine("ReplacingMergeTree", "applied_at")}
ORDER BY version"""] + t.distributed(MIGRATIONS_TABLE, "version")


@dataclass(frozen=True)
class Table:
    """One table's DDL: its name, how a Distributed front shards it, and its CREATE statement."""

    name: str
    sharding_key: str
    create: Callable[[Target], str]


def tables_ddl(t: Target, *tables: Table) -> list[str]:
    """The CREATE statements of ``tables``, then their Distributed fronts (on a cluster), in that order:
    migrations are checksummed on this order, so it must not change."""
    return [table.create(t) for table in tables] + [
        sql for table in tables for sql in t.distributed(table.name, table.sharding_key)]


class TableRow:
    """Base of a frozen dataclass that is one row of a table: its fields are the table's columns, in order,
    each named as its column in snake case (``run_id`` is ``RunId``), so the column list is written once.

        MEMBER_COLUMNS = MemberRow.columns()
        store.insert(ISSUE_MEMBERS_TABLE, [m.row() for m in members], MEMBER_COLUMNS)
    """

    @classmethod
    def columns(cls) -> tuple[str, ...]:
        return tuple("".join(part.capitalize() for part in f.name.split("_")) for f in fields(cls))  # type: ignore[arg-type]

    def row(self) -> tuple[Any, ...]:
        """The insert row, in ``columns()`` order."""
        return tuple(getattr(self, f.name) for f in fields(self))  # type: ignore[arg-type]


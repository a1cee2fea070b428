"""`sumwatch db`: bring the schema up to date, or render the DDL that does it.

    applied, version = migrate_schema(settings)      # ([3, 4], 4); ([], 4) when already there
    for sql in ddl_statements("otel", cluster="prod"): print(sql)
"""

from __future__ import annotations

from ..settings import Settings
from ..store.ddl import Target, migrations_table_ddl
from ..store.migrations import MIGRATIONS, migrate
from . import EngineError
from .local import open_store


def migrate_schema(settings: Settings) -> tuple[list[int], int]:
    """(the migrations applied now, the schema's version after them)."""
    with open_store(settings, migrate=False) as store:
        applied = migrate(store)
    return applied, max(m.version for m in MIGRATIONS)


def ddl_statements(database: str, cluster: str | None = None) -> list[str]:
    """Every statement `db migrate` runs, for review (no database needed)."""
    if not database.strip() or (cluster is not None and not cluster.strip()):
        raise EngineError("--database and --cluster must not be empty")
    target = Target(database, cluster)
    return migrations_table_ddl(target) + [s for m in MIGRATIONS for s in m.statements(target)]

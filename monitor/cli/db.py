"""`sumwatch db`: create or upgrade the schema, print the DDL."""

from __future__ import annotations

from pathlib import Path

import typer

from ._shared import DbOption, HomeOption, JsonOption, fail, load_settings, open_store, out, print_json

db_app = typer.Typer(no_args_is_help=True, help="Database schema.")


@db_app.command("migrate")
def db_migrate(db: str | None = DbOption, home: Path | None = HomeOption, json_: bool = JsonOption) -> None:
    """Create or upgrade the schema (idempotent)."""
    from ..store.migrations import MIGRATIONS, migrate  # noqa: PLC0415 - start-up: a command imports what it runs

    settings = load_settings(db, home)
    with open_store(settings, migrate=False) as store:
        applied = migrate(store)
    latest = max(m.version for m in MIGRATIONS)
    if json_:
        print_json({"applied": applied, "version": latest, "database": settings.store.database})
    elif applied:
        out.print(f"applied migration(s) {', '.join(map(str, applied))}; schema at version {latest} "
                  f"in {settings.store.database} on {settings.safe_url}")
    else:
        out.print(f"schema already at version {latest} in {settings.store.database} on {settings.safe_url}")


@db_app.command("ddl")
def db_ddl(cluster: str | None = typer.Option(None, "--cluster", help="Render ON CLUSTER DDL for this cluster."),
           database: str = typer.Option("otel", "--database", help="Database the DDL creates tables in.")) -> None:
    """Print the DDL that `db migrate` runs, for review (no database needed)."""
    from ..store.ddl import Target, migrations_table_ddl  # noqa: PLC0415 - start-up: a command imports what it runs
    from ..store.migrations import MIGRATIONS  # noqa: PLC0415 - start-up: a command imports what it runs

    if not database.strip() or (cluster is not None and not cluster.strip()):
        fail("--database and --cluster must not be empty")

    target = Target(database, cluster)
    for sql in migrations_table_ddl(target) + [s for m in MIGRATIONS for s in m.statements(target)]:
        out.print(sql + ";\n", markup=False, highlight=False)

"""`sumwatch db`: create or upgrade the schema, print the DDL."""

from __future__ import annotations

from pathlib import Path

import typer

from ._shared import DbOption, HomeOption, JsonOption, engine_errors, load_settings, out, print_json

db_app = typer.Typer(no_args_is_help=True, help="Database schema.")


@db_app.command("migrate")
def db_migrate(db: str | None = DbOption, home: Path | None = HomeOption, json_: bool = JsonOption) -> None:
    """Create or upgrade the schema (idempotent)."""
    settings = load_settings(db, home)
    with engine_errors():
        from ..engine.schema import migrate_schema  # noqa: PLC0415 - start-up: a command imports what it runs

        applied, latest = migrate_schema(settings)
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
    with engine_errors():
        from ..engine.schema import ddl_statements  # noqa: PLC0415 - start-up: a command imports what it runs

        statements = ddl_statements(database, cluster)
    for sql in statements:
        out.print(sql + ";\n", markup=False, highlight=False)

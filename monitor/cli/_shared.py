"""What every command shares: options, settings and store opening, readers, JSON, tables and progress."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from ..settings import Settings
from ..store.connection import Store, StoreError

if TYPE_CHECKING:
    from ..rubrics.cascade import Cascade
    from ..views.readers import Reader

out = Console(width=None if sys.stdout.isatty() else 220)


err = Console(stderr=True, soft_wrap=True)


DbOption = typer.Option(None, "--db", help="ClickHouse URL (http://user:pass@host:8123 or chdb:///dir); "
                                           "default: embedded chDB under SUMWATCH_HOME.")


HomeOption = typer.Option(None, "--home", help="Data directory (default ./.sumwatch, env SUMWATCH_HOME).")


JsonOption = typer.Option(False, "--json", help="Print one JSON document on stdout, for scripts.")


def load_settings(db: str | None, home: Path | None, **more: Any) -> Settings:
    try:
        return Settings.from_env(clickhouse_url=db, home=home, **more)
    except ValueError as exc:
        err.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(2) from None


@contextmanager
def open_store(settings: Settings, *, migrate: bool = True, api: str | None = None,
           busy_to_caller: bool = False) -> Iterator[Store]:
    """Open the store (and bring the schema up to date), turning store errors into a plain message.
    ``busy_to_caller`` lets a StoreBusyError naming a serving process through, for readers to use it."""
    from ..store.connection import StoreBusyError
    from ..store.migrations import migrate as run_migrations

    try:
        store = Store.open(settings, api=api)
    except StoreError as exc:
        if busy_to_caller and isinstance(exc, StoreBusyError) and exc.api:
            raise
        err.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(3) from None
    try:
        if migrate:
            run_migrations(store)
        yield store
    except StoreError as exc:
        err.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(3) from None
    finally:
        store.close()


@contextmanager
def open_reader(settings: Settings) -> Iterator[Reader]:
    """The store, or the running `sumwatch up` that holds it: the same calls and records either way."""
    from ..store.connection import StoreBusyError
    from ..views.readers import RemoteReader, StoreReader

    with ExitStack() as stack:
        reader: Reader
        try:
            reader = StoreReader(stack.enter_context(open_store(settings, busy_to_caller=True)))
        except StoreBusyError as exc:
            err.print(f"(the database is held by the sumwatch server at {exc.api}; reading through it)")
            remote = RemoteReader(exc.api or "", settings.ingest_token)
            stack.callback(remote.close)
            reader = remote
        yield reader


def print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=None, default=str) + "\n")


def table(title: str, columns: Sequence[str], rows: Sequence[Sequence[Any]], *, caption: str = "") -> Table:
    """A table whose last column wraps and whose other columns (ids, numbers) never do."""
    table = Table(title=title, caption=caption or None, show_lines=False, header_style="bold")
    for i, col in enumerate(columns):
        last = i == len(columns) - 1
        table.add_column(col, overflow="fold" if last else "ellipsis", no_wrap=not last)
    for row in rows:
        table.add_row(*("" if v is None else str(v) for v in row))
    return table


def progress_bars() -> Progress:
    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                    console=err, transient=False, disable=not err.is_terminal)


def build_judges(settings: Settings, mode: str | None = None) -> Cascade:
    from ..scoring.judges import build_cascade

    try:
        return build_cascade(settings, mode=mode)
    except ValueError as exc:
        err.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(2) from None

"""The store and the app in this process: what a command opens when no server holds the database.

    with open_store(settings) as store: ...       # opened, migrated, closed; store errors as EngineError(3)
    api, app = local_app(stack, settings)          # (None, app) on a store opened here, or (url, None) when a
                                                   # server took the database between the lock read and the open
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import TYPE_CHECKING

from clickhouse_connect.driver.exceptions import ClickHouseError

from ..settings import Settings
from ..store.connection import Store, StoreBusyError, StoreError
from ..store.migrations import migrate as run_migrations
from . import EngineError

if TYPE_CHECKING:
    from fastapi import FastAPI

    from ..runtime import Runtime


@contextmanager
def open_store(settings: Settings, *, migrate: bool = True, api: str | None = None,
               busy_to_caller: bool = False) -> Iterator[Store]:
    """The store (its schema brought up to date), closed on leaving; a store error is an :class:`EngineError`
    with status 3. ``busy_to_caller`` lets a StoreBusyError naming a serving process through, for readers to go
    through that server instead."""
    try:
        store = Store.open(settings, api=api)
    except StoreError as exc:
        if busy_to_caller and isinstance(exc, StoreBusyError) and exc.api:
            raise
        raise EngineError(str(exc), 3) from None
    try:
        if migrate:
            run_migrations(store)
        yield store
    except StoreError as exc:
        raise EngineError(str(exc), 3) from None
    except ClickHouseError as exc:  # a statement ClickHouse refused (a value out of a column's range, ...)
        raise EngineError(f"ClickHouse at {settings.safe_url} refused the request: {clickhouse_reason(exc)}",
                          3) from None
    finally:
        store.close()


def clickhouse_reason(exc: Exception) -> str:
    """ClickHouse's message on one line, without the repeated code prefix and temporary file paths."""
    text = " ".join(str(exc).split())
    text = re.sub(r"\(in file/uri [^)]*\):? ?", "", text)
    text = re.sub(r"^(Code: \d+\. DB::Exception: )(?=Code: )", "", text)
    return text[:300] + ("…" if len(text) > 300 else "")


def build_runtime(settings: Settings, store: Store) -> Runtime:
    """The runtime of these settings on ``store``; settings it cannot use are an :class:`EngineError`."""
    from ..runtime import Runtime  # noqa: PLC0415 - `db migrate` opens a store and runs nothing else

    try:
        return Runtime.build(settings, store)
    except ValueError as exc:
        raise EngineError(str(exc)) from None


def local_app(stack: ExitStack, settings: Settings) -> tuple[str | None, FastAPI | None]:
    """The app on a store opened in this process and kept open by ``stack``, or the API of a server that took
    the database between the lock file's read and the opening (then the app is None)."""
    from ..views.app import create_app  # noqa: PLC0415 - the web framework only when this process serves

    try:
        store = stack.enter_context(open_store(settings, busy_to_caller=True))
    except StoreBusyError as exc:
        return exc.api or "", None
    return None, create_app(build_runtime(settings, store))



"""Open the ClickHouse store: embedded chDB on disk, or a server, through one client library.

    store = Store.open(Settings.from_env())
    store.query_rows("SELECT count() FROM otel_traces")

chDB hosts one engine per process and must not be opened by two processes at once, so the embedded
directory carries a lock file naming its holder; a second process gets :class:`StoreBusyError` that
says who holds it.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import shlex
import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import parse_qsl, unquote, urlencode, urlsplit, urlunsplit

from sumwatch.tracer.otel_traces import COLUMNS, INSERT_FORMAT, TRACES_TABLE, encode_rows

from ..contract.server import LOCK_NAME, read_holder
from ..settings import Settings, redact_url

_T = TypeVar("_T")


class StoreError(RuntimeError):
    """The store could not be opened or used."""


class StoreBusyError(StoreError):
    """Another process holds the embedded database; ``api`` is its read API when it serves one."""

    def __init__(self, message: str, api: str | None = None) -> None:
        super().__init__(message)
        self.api = api


class StoreUnavailableError(StoreError):
    """The database did not answer (server down, disk full, ...): callers should retry later."""


@dataclass
class _Lock:
    fd: int
    users: int


_locks: dict[Path, _Lock] = {}
_locks_guard = threading.Lock()


def _describe_holder(info: dict[str, Any]) -> str:
    if not info:
        return "another process"
    what = f"process {info.get('pid', '?')}"
    if info.get("command"):
        what += f" (`{info['command']}`)"
    if info.get("api"):
        what += f", serving {info['api']}"
    return what


def _acquire(path: Path, purpose: str, api: str | None) -> None:
    with _locks_guard:
        held = _locks.get(path)
        if held is not None:  # same process: chDB shares its engine between clients
            held.users += 1
            return
        lock_path = path / LOCK_NAME
        try:
            fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise StoreError(f"cannot open the embedded database at {path}: {exc.strerror}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            os.close(fd)
            if exc.errno in (errno.EAGAIN, errno.EACCES):
                holder = read_holder(path)
                raise StoreBusyError(
                    f"The embedded database at {path} is in use by {_describe_holder(holder)}. "
                    f"chDB allows one process per data directory: stop that process, run this command "
                    f"inside it, or point SUMWATCH_CLICKHOUSE_URL / --db at a ClickHouse server.",
                    api=holder.get("api"),
                ) from None
            raise
        os.ftruncate(fd, 0)
        os.write(fd, json.dumps({"pid": os.getpid(), "command": purpose, "api": api}).encode())
        _locks[path] = _Lock(fd, 1)


def _make_embedded_folder(settings: Settings) -> Path:
    """The embedded database's folder, made if missing. Only the last folder is made (for the default, the
    home folder and its ``chdb``): a mistyped path stops here instead of growing a tree of new folders."""
    path = settings.embedded_path
    top = path if settings.store.clickhouse_url else settings.store.home.resolve()
    for folder in (top.parent, top, path):
        if folder.exists() and not folder.is_dir():
            raise StoreError(f"cannot use {path} for the embedded database: {folder} is a file, not a folder")
    if not top.parent.exists():
        raise StoreError(f"cannot create the embedded database at {path}: the folder {top.parent} does not exist "
                         f"(sumwatch creates only {top.name}/ in an existing folder); create it or fix the path")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StoreError(f"cannot create the embedded database at {path}: {exc.strerror}") from None
    return path


def _release(path: Path) -> None:
    with _locks_guard:
        held = _locks.get(path)
        if held is None:
            return
        held.users -= 1
        if held.users == 0:
            os.ftruncate(held.fd, 0)
            fcntl.flock(held.fd, fcntl.LOCK_UN)
            os.close(held.fd)
            del _locks[path]


def _purpose() -> str:
    """The holder's whole command line, as a person would type it again (a --token value left out)."""
    if not sys.argv or not sys.argv[0]:
        return "python"
    words, hide = [Path(sys.argv[0]).name], False
    for word in sys.argv[1:]:
        words.append("***" if hide else "--token=***" if word.startswith("--token=") else word)
        hide = word == "--token"
    return shlex.join(words)


class Store:
    """A clickhouse-connect client bound to sumwatch's database, plus the cluster setting for DDL."""

    def __init__(self, client: Any, settings: Settings, lock_path: Path | None = None) -> None:
        self.client = client
        self.settings = settings
        self.database = settings.store.database
        self.cluster = settings.store.cluster
        self._lock_path = lock_path
        self._io = threading.Lock()  # one call at a time per client (chDB handles are not re-entrant)

    @classmethod
    def open(cls, settings: Settings, *, api: str | None = None, create_database: bool = True) -> Store:
        """Connect, create the database if needed. Raises StoreBusyError / StoreUnavailableError, or
        StoreError when the embedded folder cannot be made (its parent folder must exist)."""
        import clickhouse_connect  # noqa: PLC0415 - heavy: loaded on first use

        lock_path = None
        if settings.is_embedded:
            lock_path = _make_embedded_folder(settings)
            _acquire(lock_path, _purpose(), api)
        try:
            if settings.is_embedded:
                client = clickhouse_connect.get_client(dsn=settings.url)
            else:
                dsn, username, password = server_dsn(settings.url)
                client = clickhouse_connect.get_client(dsn=dsn, username=username, password=password,
                                                       connect_timeout=5, send_receive_timeout=60)
            if create_database:
                on_cluster = f" ON CLUSTER {quote_ident(settings.store.cluster)}" if settings.store.cluster else ""
                client.command(f"CREATE DATABASE IF NOT EXISTS {quote_ident(settings.store.database)}{on_cluster}")
            client.database = settings.store.database
        except StoreError:
            raise
        except Exception as exc:
            if lock_path is not None:
                _release(lock_path)
            raise StoreUnavailableError(f"cannot open ClickHouse at {redact_url(settings.url)}: {exc}") from exc
        return cls(client, settings, lock_path)

    def close(self) -> None:
        try:
            self.client.close()
        finally:
            if self._lock_path is not None:
                _release(self._lock_path)
                self._lock_path = None

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # -- I/O, serialized per client ------------------------------------------------------
    def command(self, sql: str, parameters: dict[str, Any] | None = None) -> Any:
        with self._io:
            return self._wrap(lambda: self.client.command(sql, parameters=parameters))

    def query_rows(self, sql: str, parameters: dict[str, Any] | None = None) -> list[tuple[Any, ...]]:
        with self._io:
            rows: list[tuple[Any, ...]] = self._wrap(lambda: self.client.query(sql, parameters=parameters).result_rows)
            return rows

    def query_dicts(self, sql: str, parameters: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        with self._io:
            result = self._wrap(lambda: self.client.query(sql, parameters=parameters))
            return [dict(zip(result.column_names, row)) for row in result.result_rows]

    def insert(self, table: str, rows: Sequence[Sequence[Any]], columns: Sequence[str]) -> None:
        if not rows:
            return
        with self._io:
            self._wrap(lambda: self.client.insert(table, rows, column_names=list(columns), database=self.database))

    def insert_encoded(self, table: str, columns: Sequence[str], body: bytes, fmt: str) -> None:
        """Insert a block already encoded in ``fmt`` (the fast path for spans)."""
        with self._io:
            self._wrap(lambda: self.client.raw_insert(f"{quote_ident(self.database)}.{quote_ident(table)}",
                                                      column_names=list(columns), insert_block=body, fmt=fmt))

    def insert_spans(self, rows: Sequence[tuple[Any, ...]]) -> None:
        """Rows in ``otel_traces`` column order, as one INSERT."""

        if rows:
            self.insert_encoded(TRACES_TABLE, COLUMNS, encode_rows(rows), INSERT_FORMAT)

    def _wrap(self, call: Callable[[], _T]) -> _T:
        try:
            return call()
        except Exception as exc:
            from clickhouse_connect.driver.exceptions import DatabaseError, OperationalError  # noqa: PLC0415 - heavy: loaded on first use

            if isinstance(exc, OperationalError) or not isinstance(exc, DatabaseError):
                raise StoreUnavailableError(f"ClickHouse at {redact_url(self.settings.url)} failed: {exc}") from exc
            raise


def server_dsn(url: str) -> tuple[str, str | None, str]:
    """A server URL as (the DSN clickhouse-connect reads, user, password), the credentials taken from the query
    when it carries them.

    ClickHouse takes ``?user=u&password=p`` as well as ``u:p@host``; clickhouse-connect reads only the latter
    and passes a query's ``password`` on a second time, so such a URL could not connect.

        server_dsn("http://h:8123/db?user=u&password=p")   # ("http://h:8123/db", "u", "p")
    """
    parts = urlsplit(url)
    username = unquote(parts.username) if parts.username is not None else None
    password = unquote(parts.password) if parts.password is not None else ""
    kept = []
    for name, value in parse_qsl(parts.query, keep_blank_values=True):
        if name in ("user", "user_name"):
            username = value
        elif name == "password":
            password = value
        else:
            kept.append((name, value))
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit((parts.scheme, host, parts.path, urlencode(kept), parts.fragment)), username, password


def equals_filter(params: dict[str, Any], **columns: str | None) -> str:
    """``Column = {param}`` for each column given a value (None skips it), joined with AND; fills params.

        where = equals_filter(params, Rubric=rubric, Status=status)   # "Rubric = {f_Rubric:String} AND ..."
    """
    clauses = ["1"]
    for column, value in columns.items():
        if value is not None and value != "":
            params[f"f_{column}"] = value
            clauses.append(f"{quote_ident(column)} = {{f_{column}:String}}")
    return " AND ".join(clauses)


def quote_ident(name: str) -> str:
    """A ClickHouse identifier, back-quoted."""
    return "`" + name.replace("\\", "\\\\").replace("`", "\\`") + "`"


def as_utc(value: datetime) -> datetime:
    """A datetime read from ClickHouse (naive, in UTC) made aware."""
    return value if value.tzinfo else value.replace(tzinfo=timezone.utc)

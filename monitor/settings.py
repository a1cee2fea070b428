"""The one settings object: read from the environment once, overridden by command-line flags.

    settings = Settings.from_env()                       # SUMWATCH_* variables
    settings = Settings.from_env(clickhouse_url="http://ch:8123", port=4319)   # flags win
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Optional
from urllib.parse import urlsplit, urlunsplit

ENV_PREFIX = "SUMWATCH_"


@dataclass(frozen=True)
class Settings:
    home: Path = Path(".sumwatch")
    clickhouse_url: Optional[str] = None  # None: embedded chDB under home
    database: str = "otel"
    cluster: Optional[str] = None  # ClickHouse cluster name: ON CLUSTER DDL, Replicated + Distributed
    host: str = "127.0.0.1"
    port: int = 4318
    ingest_token: Optional[str] = field(default=None, repr=False)
    max_body_bytes: int = 20 * 1024 * 1024
    insert_batch_rows: int = 20_000
    insert_batch_wait_ms: int = 0  # linger before an INSERT; 0 = group whatever is queued
    retry_after_seconds: int = 5  # told to exporters with a 503
    service_name: str = "sumwatch-demo"

    # environment variable -> field; the names users set
    _ENV = {
        "HOME": "home",
        "CLICKHOUSE_URL": "clickhouse_url",
        "DATABASE": "database",
        "CLICKHOUSE_CLUSTER": "cluster",
        "HOST": "host",
        "PORT": "port",
        "INGEST_TOKEN": "ingest_token",
        "MAX_BODY_BYTES": "max_body_bytes",
        "INSERT_BATCH_ROWS": "insert_batch_rows",
        "INSERT_BATCH_WAIT_MS": "insert_batch_wait_ms",
        "RETRY_AFTER_SECONDS": "retry_after_seconds",
        "SERVICE_NAME": "service_name",
    }

    @classmethod
    def from_env(cls, env: Optional[Mapping[str, str]] = None, **overrides: Any) -> "Settings":
        """Settings from ``SUMWATCH_*`` variables, then ``overrides`` (flags; None means not given)."""
        env = os.environ if env is None else env
        types = {f.name: f.type for f in fields(cls)}
        values: dict[str, Any] = {}
        for suffix, name in cls._ENV.items():
            raw = env.get(ENV_PREFIX + suffix)
            if raw is None or raw == "":
                continue
            values[name] = _coerce(name, raw, types[name], ENV_PREFIX + suffix)
        values.update({k: v for k, v in overrides.items() if v is not None})
        unknown = set(values) - set(types)
        if unknown:
            raise TypeError(f"unknown settings: {', '.join(sorted(unknown))}")
        if "home" in values:
            values["home"] = Path(values["home"])
        return cls(**values)

    def with_(self, **changes: Any) -> "Settings":
        return replace(self, **{k: v for k, v in changes.items() if v is not None})

    @property
    def embedded_path(self) -> Path:
        return (self.home / "chdb").resolve()

    @property
    def url(self) -> str:
        """The ClickHouse URL in force: the configured one or embedded chDB under ``home``."""
        return self.clickhouse_url or f"chdb://{self.embedded_path}"

    @property
    def is_embedded(self) -> bool:
        return self.url.startswith("chdb:")

    @property
    def safe_url(self) -> str:
        return redact_url(self.url)


def _coerce(name: str, raw: str, typ: Any, var: str) -> Any:
    if "int" in str(typ):
        try:
            return int(raw)
        except ValueError:
            raise ValueError(f"{var} must be an integer, got {raw!r}") from None
    return raw


def redact_url(url: str) -> str:
    """The URL with any password replaced, for logs and error messages."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.rpartition("@")
    user = (parts.username or "") + ":***"
    return urlunsplit((parts.scheme, f"{user}@{netloc[2]}", parts.path, parts.query, parts.fragment))

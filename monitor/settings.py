"""The one settings object: read from the environment once, overridden by command-line flags.

    settings = Settings.from_env()                       # SUMWATCH_* variables
    settings = Settings.from_env(clickhouse_url="http://ch:8123", port=4319)   # flags win
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

ENV_PREFIX = "SUMWATCH_"


@dataclass(frozen=True)
class Settings:
    home: Path = Path(".sumwatch")
    clickhouse_url: str | None = field(default=None, repr=False)  # None: embedded chDB under home; may hold a password
    database: str = "otel"
    cluster: str | None = None  # ClickHouse cluster name: ON CLUSTER DDL, Replicated + Distributed
    host: str = "127.0.0.1"
    port: int = 4318
    ingest_token: str | None = field(default=None, repr=False)
    max_body_bytes: int = 20 * 1024 * 1024
    insert_batch_rows: int = 20_000
    insert_batch_wait_ms: int = 0  # linger before an INSERT; 0 = group whatever is queued
    retry_after_seconds: int = 5  # told to exporters with a 503
    service_name: str = "sumwatch-demo"
    # judges
    judge_mode: str | None = None  # off | ambiguous | always; default: ambiguous with an LLM, else off
    llm_model: str | None = None  # litellm model string, e.g. openai/gpt-4o-mini
    llm_api_base: str | None = None
    llm_api_key: str | None = field(default=None, repr=False)
    llm_concurrency: int = 16
    llm_timeout_s: float = 30.0
    llm_max_spend_usd: float | None = None  # per sampler run
    embedding_model: str = "all-MiniLM-L6-v2"
    embeddings: bool = True
    # sampler
    sample_rate: float = 1.0
    service_rates: str | None = None  # "checkout=0.1,support=1"
    sample_batch: int = 64
    eval_events: bool = False  # also write gen_ai.evaluation.result events into otel_traces
    span_filter: str | None = None  # other instrumentations: "span_name=ChatCompletion,attr:gen_ai.operation.name=chat"
    source_key: str = "input.value"
    summary_key: str = "output.value"
    # clustering job and worker
    cluster_window: str = "24h"  # failing scores of spans this recent are clustered
    cluster_match_threshold: float = 0.85  # centroid cosine similarity to keep an issue's id
    cluster_resolve_after: int = 3  # runs absent before an issue is resolved
    cluster_max_fit_points: int = 20_000  # above this, fit on a sample and assign the rest
    cluster_namer: str = "auto"  # auto (LLM when configured) | llm | keywords
    promote_per_issue: int = 3  # representatives promoted to the calibration corpus per issue and run
    sampler_interval_s: float = 60.0
    cluster_cron: str = "*/30 * * * *"

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
        "JUDGE_MODE": "judge_mode",
        "LLM_MODEL": "llm_model",
        "LLM_API_BASE": "llm_api_base",
        "LLM_API_KEY": "llm_api_key",
        "LLM_CONCURRENCY": "llm_concurrency",
        "LLM_TIMEOUT_S": "llm_timeout_s",
        "LLM_MAX_SPEND_USD": "llm_max_spend_usd",
        "EMBEDDING_MODEL": "embedding_model",
        "EMBEDDINGS": "embeddings",
        "SAMPLE_RATE": "sample_rate",
        "SERVICE_RATES": "service_rates",
        "SAMPLE_BATCH": "sample_batch",
        "EVAL_EVENTS": "eval_events",
        "SPAN_FILTER": "span_filter",
        "SOURCE_KEY": "source_key",
        "SUMMARY_KEY": "summary_key",
        "CLUSTER_WINDOW": "cluster_window",
        "CLUSTER_MATCH_THRESHOLD": "cluster_match_threshold",
        "CLUSTER_RESOLVE_AFTER": "cluster_resolve_after",
        "CLUSTER_MAX_FIT_POINTS": "cluster_max_fit_points",
        "CLUSTER_NAMER": "cluster_namer",
        "PROMOTE_PER_ISSUE": "promote_per_issue",
        "SAMPLER_INTERVAL_S": "sampler_interval_s",
        "CLUSTER_CRON": "cluster_cron",
    }

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **overrides: Any) -> Settings:
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

    def with_(self, **changes: Any) -> Settings:
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

    def service_rate_map(self) -> dict[str, float]:
        """Per-service sampling rates from ``service_rates`` ("svc=0.1,other=1")."""
        rates: dict[str, float] = {}
        for part in filter(None, (p.strip() for p in (self.service_rates or "").split(","))):
            service, sep, value = part.partition("=")
            try:
                rate = float(value)
            except ValueError:
                rate = -1.0
            if not sep or not service.strip() or not 0.0 <= rate <= 1.0:
                raise ValueError(f"SUMWATCH_SERVICE_RATES entry {part!r} must be service=rate with 0 <= rate <= 1")
            rates[service.strip()] = rate
        return rates


_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhdw])\s*$")
_UNIT_S = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}


def parse_duration(text: str) -> float:
    """Seconds in a duration like ``90s``, ``15m``, ``24h``, ``7d`` or ``2w``."""
    match = _DURATION.match(str(text).lower())
    if not match or float(match.group(1)) <= 0:
        raise ValueError(f"a duration is a positive number with a unit s, m, h, d or w (like 24h or 7d), "
                         f"got {text!r}")
    return float(match.group(1)) * _UNIT_S[match.group(2)]


def _coerce(name: str, raw: str, typ: Any, var: str) -> Any:
    kind = str(typ).replace("Optional[", "").rstrip("]").removesuffix(" | None")
    if kind == "bool":
        value = raw.strip().lower()
        if value in ("1", "true", "yes", "on"):
            return True
        if value in ("0", "false", "no", "off"):
            return False
        raise ValueError(f"{var} must be true or false, got {raw!r}")
    if kind in ("int", "float"):
        try:
            return int(raw) if kind == "int" else float(raw)
        except ValueError:
            article = "an integer" if kind == "int" else "a number"
            raise ValueError(f"{var} must be {article}, got {raw!r}") from None
    return raw


def redact_url(url: str) -> str:
    """The URL with any password replaced, for logs and error messages."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.rpartition("@")
    user = (parts.username or "") + ":***"
    return urlunsplit((parts.scheme, f"{user}@{netloc[2]}", parts.path, parts.query, parts.fragment))

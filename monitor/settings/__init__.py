"""The one settings object: read from the environment once, overridden by command-line flags, checked once.

    settings = Settings.from_env()                       # SUMWATCH_* variables
    settings = Settings.from_env(clickhouse_url="http://ch:8123", port=4319)   # flags win
    settings.receiver.port, settings.store.database, settings.judge.judge_mode, settings.exports.github_repo
    Settings.from_env(env={"SUMWATCH_CLUSTER_NAMER": "gpt"})
    # SettingsError: SUMWATCH_CLUSTER_NAMER must be one of auto, llm, keywords, got 'gpt'

The settings are nested per concern (store, receiver, judge, sampler, clustering, exports), but the variables
stay flat: a field's variable is ``SUMWATCH_`` + its name in capitals, wherever it sits (``cluster`` reads
``SUMWATCH_CLICKHOUSE_CLUSTER``), and ``from_env``/``with_`` take the same flat names, so flags and
variables keep the names users know. Each value is parsed and checked when the settings are made, so a bad
value stops a command before it starts, with one line naming the variable (and the flag that sets it).
Secrets are ``SecretStr``: never in a repr, a log line or an error. An unknown ``SUMWATCH_*`` variable is
warned about once, with the closest known name (a typo must not be silently ignored).
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from contextvars import ContextVar
from pathlib import Path
from typing import Any, ClassVar
from urllib.parse import urlsplit

from pydantic import (
    Field,
    PrivateAttr,
    SecretStr,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from sumwatch.clustering.sentence_model.backend import ModelBackend
from sumwatch.tracer.vocabulary import Severity

from ..contract.limits import MAX_LIST_LIMIT
from .alert_rules import parse_alert_rules
from .concern import _FLAT, _Concern, _model_of, _one_line, _raw, _setting, register_concerns, reveal, warn_unknown
from .selectors import SELECTOR_VARIABLE_PREFIX, SelectorEntry, SelectorError, read_selectors
from .values import (
    CLICKHOUSE_SCHEMES,
    MAX_DURATION_S,
    check_clickhouse_url,
    crontab_fields,
    parse_allowed_hosts,
    parse_assignees,
    parse_duration,
    parse_headers,
    parse_pace,
    parse_score_verdicts,
    parse_service_rates,
    parse_span_filter,
    parse_trusted_proxies,
    parse_workers,
    redact_url,
)
from .vocabulary import ENV_PREFIX, ISSUE_STATUSES, JUDGE_MODES, NAMERS, SEVERITIES, JudgeMode, Namer, SettingsError

__all__ = [
    "CLICKHOUSE_SCHEMES", "ENV_PREFIX", "ISSUE_STATUSES", "JUDGE_MODES", "MAX_DURATION_S", "MAX_LIST_LIMIT", "NAMERS",
    "SEVERITIES", "ClusteringSettings", "ExportSettings", "JudgeMode", "JudgeSettings", "Namer", "ReceiverSettings",
    "SamplerSettings", "SelectorEntry",
    "SelectorError", "Settings", "SettingsError", "StoreSettings", "check_clickhouse_url", "crontab_fields",
    "parse_allowed_hosts", "parse_duration", "parse_pace", "parse_service_rates",
    "parse_span_filter", "parse_trusted_proxies", "redact_url", "reveal",
]


class StoreSettings(_Concern):
    """Where the data lives."""

    home: Path = _setting(Path(".sumwatch"), flag="--home")
    # None: embedded chDB under home; may hold a password, so it stays out of repr (safe_url shows it redacted)
    clickhouse_url: str | None = _setting(None, flag="--db", repr=False)
    database: str = "otel"
    # ClickHouse cluster name: ON CLUSTER DDL, Replicated + Distributed
    cluster: str | None = _setting(None, env="CLICKHOUSE_CLUSTER")
    # days spans, scores and issue members are kept (a TTL set by `db migrate`); 0 keeps everything
    retention_days: int = 0


class ReceiverSettings(_Concern):
    """The server: OTLP receiver, API and dashboard."""

    host: str = _setting("127.0.0.1", flag="--host")
    port: int = _setting(4318, flag="--port")
    ingest_token: SecretStr | None = None
    # protects the HTTP API and the dashboard (Bearer header or the /login session); the ingest token stays
    # for /v1/traces alone
    api_token: SecretStr | None = None
    max_body_bytes: int = 20 * 1024 * 1024
    insert_batch_rows: int = 20_000
    # group commit: the most a batch waits for requests the receiver is already reading or decoding to join its
    # INSERT (it never waits when none is on its way; 0: only what is already queued). Each chDB INSERT has a large
    # fixed cost, so fewer, bigger ones cost less CPU per span; measured with tests/bench/ingest.py --commit-wait-ms
    insert_batch_wait_ms: int = 50
    # acknowledge a request once its rows are in a write-ahead log under home (receiver-log/<database>), and
    # insert the log in batches up to insert_batch_rows: bigger INSERTs cost the engine less per span (the receiver
    # stores 0.65 of the direct exporter's spans/s with it, 0.45 without, tests/bench/ingest.py --receiver-log
    # off,on). Replayed at start, so a killed process loses nothing. The server's own reads (API, dashboard, the
    # CLI through them) wait for what was acknowledged; a reader that queries ClickHouse itself may see spans up
    # to one INSERT later. Off: each request is acknowledged after the INSERT holding it.
    receiver_log: bool = True
    # fsync each record before acknowledging: survives power loss, not only a killed process, at a disk flush
    # per request (a write() alone is in the page cache, which outlives the process)
    receiver_log_fsync: bool = False
    retry_after_seconds: int = 5  # told to exporters with a 503
    # the receiver closes a connection whose request headers take longer than this, and answers 408 to a
    # body that takes longer to arrive (slow or stuck clients must not hold connections)
    header_timeout_s: float = 10.0
    body_timeout_s: float = 30.0
    # open connections beyond this close the longest idle; requests in progress beyond it get 503 (not probes)
    max_connections: int = 1000
    # where users reach the dashboard and API (http(s)://name[:port]); its host joins the allowed Host names
    public_url: str | None = None
    # more Host names the API and dashboard answer to, comma-separated ("*": any; DNS rebinding unchecked)
    allowed_hosts: str | None = None
    # reverse proxies (IPs or CIDRs, comma-separated) whose X-Forwarded-For / Forwarded name the client; none by
    # default: from any other peer those headers are ignored (the sign-in limit keys on the peer's address)
    trusted_proxies: str | None = None
    service_name: str = "sumwatch-demo"  # the service the demo's spans come from


class JudgeSettings(_Concern):
    """The judge cascade and its LLM."""

    judge_mode: JudgeMode | None = None  # default: ambiguous with an LLM, else off
    # share of confident cheap-tier results the LLM re-judges in ambiguous mode, to measure agreement
    judge_audit_rate: float = 0.05
    # LLM requests per span in ambiguous mode, spent on the rubric results the cheap tiers are least sure
    # of (the audit sample comes on top); none: every suspicion and unsure pass, however many
    judge_budget: float | None = None
    llm_model: str | None = None  # litellm model string, e.g. openai/gpt-4o-mini
    llm_api_base: str | None = None
    llm_api_key: SecretStr | None = None
    llm_concurrency: int = 16
    llm_timeout_s: float = 30.0
    llm_max_spend_usd: float | None = None  # per sampler run
    # LLM judging's spend per UTC day, of every process on the store together (each judgement's cost is
    # stored with it). At the cap the judges go on with the cheap tiers, the pairs the LLM would have judged
    # marked "unjudged: cap" (``sumwatch rescore`` judges them again on purpose); "off": no daily cap
    llm_daily_cap_usd: float | None = 10.0

    @field_validator("llm_daily_cap_usd", mode="before")
    @classmethod
    def _no_cap(cls, value: Any) -> Any:
        return None if isinstance(value, str) and value.strip().lower() in ("off", "none") else value
    embedding_model: str = "all-MiniLM-L6-v2"
    # what runs the sentence model (embedding tier, learned tier, clustering): int8 ONNX Runtime, exported under
    # home/models on first use, costs about a third of torch's CPU per sentence with the same verdicts; torch is
    # the reference and the fallback
    model_backend: ModelBackend = ModelBackend.ONNX
    # intra-op threads of the sentence model in each process: one per process, and more processes (shards) for
    # more cores, since a second thread mostly waits (torch does ~2.2x more work per CPU-second with one)
    model_threads: int = 1
    # a folder of models exported ahead (the image's, made at build time), read-only: used when its manifest
    # matches the model's files, so a pod with an empty home does not export again; else home/models as usual
    model_prebuilt_dir: Path | None = None
    embeddings: bool = True
    # the learned faithfulness tier (monitor/rubrics/learned); it reads the embedding tier's vectors, so it
    # runs only with embeddings on
    learned: bool = True


class SamplerSettings(_Concern):
    """Which spans are scored, and how often."""

    sample_rate: float = 1.0
    service_rates: str | None = None  # "checkout=0.1,support=1"
    sample_batch: int = 64
    eval_events: bool = False  # also write gen_ai.evaluation.result events into otel_traces
    # configured selectors (monitor/settings/selectors.py): a TOML file of [[selector]] entries, and one entry
    # per SUMWATCH_SELECTOR_<NAME> variable (JSON); they add to sumwatch's own tag and the built-in recognition
    selectors: str | None = None
    selector_variables: dict[str, str] | None = _setting(None, env=SELECTOR_VARIABLE_PREFIX[len(ENV_PREFIX):] + "*")
    # the older single selector: one more entry, named span_filter ("span_name=X,attr:KEY=V"), whose texts are
    # under these keys (without a filter: where sumwatch's own spans keep them)
    span_filter: str | None = None
    source_key: str = "input.value"
    summary_key: str = "output.value"
    sampler_interval_s: float = _setting(60.0, flag="--interval")
    # the worker's sampler waits this long after each stored batch: spreads its load on the database and the
    # judge model over a pass (a SIGTERM still stops it at once)
    sampler_batch_pause_s: float = 0.0
    # processes that run the sentence model in a pass: this one and helpers (clustering/sentence_model/
    # model_pool.py); 0 or "auto": the usable CPUs over SUMWATCH_MODEL_THREADS, so a 2-core box runs two. A pass
    # whose sentences fit one model batch starts no helper, and the scores are the same whatever the number
    sampler_workers: int = 0

    @field_validator("sampler_workers", mode="before")
    @classmethod
    def _workers(cls, value: Any) -> Any:
        return parse_workers(value) if isinstance(value, str) else value

    _entries: tuple[SelectorEntry, ...] = PrivateAttr(default=())

    @model_validator(mode="after")
    def _read_selectors(self) -> SamplerSettings:
        # read once, here, so a bad file or entry stops the command with one line before it starts
        try:
            self._entries = read_selectors(self.selectors, self.selector_variables,
                                           legacy=(self.span_filters(), self.source_key, self.summary_key))
        except SelectorError as exc:
            raise ValueError(str(exc)) from None
        return self

    def selector_entries(self) -> tuple[SelectorEntry, ...]:
        """The configured selectors, in order: the file's, the variables' (by name), the legacy filter's."""
        return self._entries

    def service_rate_map(self) -> dict[str, float]:
        """Per-service sampling rates from ``service_rates`` ("svc=0.1,other=1")."""
        return parse_service_rates(self.service_rates)

    def span_filters(self) -> tuple[tuple[str, str], ...]:
        """``span_filter`` as (key, value) pairs: span_name, service or attr:KEY."""
        return parse_span_filter(self.span_filter)


class ClusteringSettings(_Concern):
    """The clustering job and what it promotes."""

    # failing scores of spans this recent are clustered
    cluster_window: str = _setting("24h", flag="--window")
    cluster_match_threshold: float = 0.85  # centroid cosine similarity to keep an issue's id
    cluster_resolve_after: int = 3  # runs absent before an issue is resolved
    cluster_max_fit_points: int = 20_000  # above this, fit on a sample and assign the rest
    cluster_namer: Namer = Namer.AUTO  # auto: the LLM when one is configured
    promote_per_issue: int = 3  # representatives promoted to the calibration corpus per issue and run
    cluster_cron: str = _setting("*/30 * * * *", flag="--cron")


class ExportSettings(_Concern):
    """Where issues go and how (``sumwatch.monitor.exports`` calls it ``ExportConfig``). Empty means "not
    configured"."""

    github_token: SecretStr | None = None
    github_repo: str = ""  # owner/name
    github_api_url: str = "https://api.github.com"
    linear_api_key: SecretStr | None = None
    linear_team: str = ""  # the team's id
    linear_api_url: str = "https://api.linear.app/graphql"
    jira_url: str = ""  # https://your-site.atlassian.net
    jira_email: str = ""
    jira_token: SecretStr | None = None
    jira_project: str = ""  # project key, like OPS
    jira_issue_type: str = "Bug"
    # who an assignment in sumwatch assigns in each tracker: "name=account,..." (a GitHub login, a Linear user id,
    # a Jira accountId); a name not listed is named in a comment only
    github_assignees: str = ""
    linear_assignees: str = ""
    jira_assignees: str = ""
    slack_webhook_url: SecretStr | None = None  # the URL is the secret
    webhook_url: SecretStr | None = None
    webhook_secret: SecretStr | None = None
    markdown_dir: str = ""
    # the dashboard's base URL for back-links (the same variable as the receiver's, checked there)
    public_url: str | None = None
    # what leaves sumwatch
    export_source_text: bool = True  # false: no source excerpt at all (summaries and evidence only)
    export_redact: str = ""  # a regular expression; every match in exported text becomes [redacted]
    export_excerpt_chars: int = 600  # per source or summary excerpt
    export_representatives: int = 3
    # automatic exports after each clustering run: comma-separated targets, and which issues
    export_targets: str = ""
    export_statuses: str = "new,regressed"
    export_min_severity: Severity = Severity.HIGH
    export_min_traces: int = 1
    export_close_resolved: bool = False  # close the ticket when its issue resolves (a comment is always added)
    export_close_ignored: bool = False  # close the ticket when its issue is ignored (a comment is always added)
    # a ticket closed in the tracker resolves its issue (recorded as the tracker's triage event): "true" for every
    # target, or the targets that may, like "github,jira"; "" or "false": none
    export_sync_closed: str = ""

    def sync_closed(self, target: str) -> bool:
        """Whether closing a ticket in ``target`` resolves its issue (``SUMWATCH_EXPORT_SYNC_CLOSED``)."""
        names = {n.strip().lower() for n in self.export_sync_closed.split(",") if n.strip()}
        return bool(names & {"true", "1", "yes", "all"}) or target.lower() in names
    # alerts (slack, webhook) after each run: new and regressed issues at or above this severity
    alert_targets: str = ""
    alert_min_severity: Severity = Severity.HIGH
    alert_rules: str = ""  # threshold alerts after each sampler pass: "groundedness<90%/1h/min50@slack"
    # pacing and faults
    export_pace: str = ""  # content-creating requests per minute per target: "github=80,jira=100"
    export_timeout_s: float = 10.0
    export_max_attempts: int = 5
    export_backoff_s: float = 1.0  # first retry's wait, doubled each time (Retry-After wins when longer)
    export_max_wait_s: float = 120.0  # a longer Retry-After is a failure for this run, retried on the next
    # scores back out (sumwatch.monitor.exports.score_sends): verdicts as OTel gen_ai.evaluation.result log
    # records to any OTLP/HTTP endpoint, as Langfuse scores, as Phoenix span annotations. Off by default
    scores_targets: str = ""  # sent after each sampler pass: comma-separated otlp, langfuse, phoenix
    scores_verdicts: str = "all"  # all | failing, or per target: "failing,phoenix=all"
    scores_window: str = "24h"  # the worker's pass looks back this far for verdicts not sent yet
    scores_otlp_endpoint: str = ""  # base URL (/v1/logs is added) or the full /v1/logs URL
    scores_otlp_headers: SecretStr | None = None  # "authorization=Bearer abc,x-team=ml" (values may be secrets)
    langfuse_host: str = ""  # https://cloud.langfuse.com, or a self-hosted Langfuse
    langfuse_public_key: str = ""
    langfuse_secret_key: SecretStr | None = None
    phoenix_endpoint: str = ""  # http://localhost:6006, or https://app.phoenix.arize.com/s/your-space
    phoenix_api_key: SecretStr | None = None

    @field_validator("scores_otlp_endpoint", "langfuse_host", "phoenix_endpoint")
    @classmethod
    def _score_endpoint(cls, value: str) -> str:
        parts = urlsplit(value)
        if value and (parts.scheme not in ("http", "https") or not parts.hostname):
            raise ValueError(f"must be an http(s):// URL, got {value!r}")
        return value.rstrip("/")

    @field_validator("github_assignees", "linear_assignees", "jira_assignees")
    @classmethod
    def _assignees(cls, value: str) -> str:
        parse_assignees(value)
        return value

    @field_validator("scores_verdicts")
    @classmethod
    def _score_verdicts(cls, value: str) -> str:
        parse_score_verdicts(value)
        return value

    @field_validator("scores_window", "alert_rules")
    @classmethod
    def _parsed(cls, value: str, info: ValidationInfo) -> str:
        (parse_alert_rules if info.field_name == "alert_rules" else parse_duration)(value)
        return value

    @field_validator("scores_otlp_headers")
    @classmethod
    def _score_headers(cls, value: SecretStr | None) -> SecretStr | None:
        parse_headers(reveal(value))
        return value

    def statuses(self) -> list[str]:
        return [s.strip() for s in self.export_statuses.split(",") if s.strip()]

    def pace(self) -> dict[str, float]:
        """Requests per minute per target from ``export_pace`` ("github=80,jira=100")."""
        return parse_pace(self.export_pace)

    def assignees(self, target: str) -> dict[str, str]:
        """``target``'s accounts by sumwatch name (``SUMWATCH_GITHUB_ASSIGNEES`` ...); {} when none is set."""
        return parse_assignees(getattr(self, f"{target}_assignees", ""))

    def secrets(self) -> list[str]:
        """Every secret value set, for scrubbing from messages (longest first)."""
        values = [reveal(getattr(self, name)) for name in type(self).model_fields if self.secret(name)]
        # a server may echo one header; short values ("ml") are names, not secrets, and would garble every message
        values += [v for v in parse_headers(reveal(self.scores_otlp_headers)).values() if len(v) >= 8]
        return sorted({v for v in values if v}, key=len, reverse=True)

    def dashboard_link(self, path: str) -> str:
        """A link to a dashboard path (``/issues/SW-3``), or "" without ``SUMWATCH_PUBLIC_URL``."""
        return self.public_url.rstrip("/") + path if self.public_url else ""


# what from_env reads: set by Settings.from_env for the source below (None: the process environment)
_ENVIRONMENT: ContextVar[Mapping[str, str] | None] = ContextVar("sumwatch_settings_env", default=None)


class _FlatEnvironment(PydanticBaseSettingsSource):
    """The flat ``SUMWATCH_*`` variables as the nested concerns: ``SUMWATCH_PORT`` -> ``receiver.port``."""

    def get_field_value(self, field: FieldInfo, field_name: str) -> tuple[Any, str, bool]:
        return None, field_name, False  # the whole mapping is built in __call__

    def __call__(self) -> dict[str, Any]:
        env = _ENVIRONMENT.get()
        env = os.environ if env is None else env
        warn_unknown(env)
        nested: dict[str, dict[str, Any]] = {}
        for name, concerns in _FLAT.items():
            raw = _raw(env, Settings.env_var(name))
            if raw is not None:
                for concern in concerns:
                    nested.setdefault(concern, {})[name] = raw
        return nested


class Settings(BaseSettings):
    """Every setting of sumwatch, one concern per attribute; every value is checked when the object is made.

    Reads go through the concerns (``settings.receiver.port``); ``from_env`` and ``with_`` take flat names.
    """

    model_config = SettingsConfigDict(frozen=True, extra="forbid")

    store: StoreSettings = Field(default_factory=StoreSettings)
    receiver: ReceiverSettings = Field(default_factory=ReceiverSettings)
    judge: JudgeSettings = Field(default_factory=JudgeSettings)
    sampler: SamplerSettings = Field(default_factory=SamplerSettings)
    clustering: ClusteringSettings = Field(default_factory=ClusteringSettings)
    exports: ExportSettings = Field(default_factory=ExportSettings)

    CONCERNS: ClassVar[tuple[str, ...]] = ("store", "receiver", "judge", "sampler", "clustering", "exports")

    def __init__(self, **values: Any) -> None:
        flat = sorted(set(values) - set(self.CONCERNS))
        if flat:
            raise TypeError(f"Settings takes concerns ({', '.join(self.CONCERNS)}); flat names such as "
                            f"{flat[0]} go through Settings.from_env(env, {flat[0]}=...) or settings.with_(...)")
        try:
            super().__init__(**values)
        except ValidationError as exc:
            raise SettingsError(_one_line(exc)) from None

    @classmethod
    def settings_customise_sources(cls, settings_cls: type[BaseSettings], init_settings: PydanticBaseSettingsSource,
                                   env_settings: PydanticBaseSettingsSource,
                                   dotenv_settings: PydanticBaseSettingsSource,
                                   file_secret_settings: PydanticBaseSettingsSource,
                                   ) -> tuple[PydanticBaseSettingsSource, ...]:
        # flags (init) win over the flat variables; no .env or secrets files are read behind the user's back
        return init_settings, _FlatEnvironment(settings_cls)

    @staticmethod
    def names() -> tuple[str, ...]:
        """Every flat setting name (``port``, ``llm_model``, ``github_token``, ...)."""
        return tuple(_FLAT)

    @staticmethod
    def concern_of(name: str) -> str:
        """The concern a flat name belongs to: ``concern_of("port") == "receiver"``."""
        try:
            return _FLAT[name][0]
        except KeyError:
            raise TypeError(f"unknown settings: {name}") from None

    @classmethod
    def env_var(cls, name: str) -> str:
        """The environment variable of a flat name: ``env_var("cluster") == "SUMWATCH_CLICKHOUSE_CLUSTER"``."""
        return _model_of(name).env_var(name)

    @classmethod
    def label(cls, name: str) -> str:
        """How errors name a setting: its variable, and its flag where one sets it."""
        return _model_of(name).label(name)

    @classmethod
    def secret(cls, name: str) -> bool:
        return _model_of(name).secret(name)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **overrides: Any) -> Settings:
        """Settings from ``SUMWATCH_*`` variables, then ``overrides`` by flat name (flags; None means not given).
        Raises :class:`SettingsError` naming the variable of the first bad value."""
        nested = _nest(overrides)
        token = _ENVIRONMENT.set(env)
        try:
            return cls(**nested)
        finally:
            _ENVIRONMENT.reset(token)

    @classmethod
    def explicit(cls, env: Mapping[str, str] | None = None) -> set[str]:
        """The flat names given a value in the environment (not left at their defaults)."""
        env = os.environ if env is None else env
        return {name for name in _FLAT if _raw(env, cls.env_var(name)) is not None}

    def with_(self, **changes: Any) -> Settings:
        """A copy with ``changes`` by flat name (None means unchanged), checked like the original."""
        nested = _nest(changes)
        values: dict[str, Any] = {}
        for concern in self.CONCERNS:
            current = getattr(self, concern)
            values[concern] = current.with_(**nested[concern]) if concern in nested else current
        try:
            return type(self).model_validate(values)
        except ValidationError as exc:
            raise SettingsError(_one_line(exc)) from None

    def flat(self) -> Iterator[tuple[str, Any]]:
        """(flat name, value) for every setting, secrets as ``SecretStr``."""
        for name, concerns in _FLAT.items():
            yield name, getattr(getattr(self, concerns[0]), name)

    @property
    def embedded_path(self) -> Path:
        """The embedded database's folder: a ``chdb:///dir`` URL's, else ``chdb`` under ``home``."""
        url = self.store.clickhouse_url
        if url and url.startswith("chdb:"):
            return Path(urlsplit(url).path).resolve()
        return (self.store.home / "chdb").resolve()

    @property
    def receiver_log_path(self) -> Path:
        """The receiver's write-ahead log folder for this database: ``receiver-log/<database>`` under ``home``."""
        return (self.store.home / "receiver-log" / self.store.database).resolve()

    @property
    def models_path(self) -> Path:
        """Where sentence models exported for ONNX Runtime are kept: ``models`` under ``home``."""
        return (self.store.home / "models").resolve()

    @property
    def url(self) -> str:
        """The ClickHouse URL in force: the configured one or embedded chDB under ``home``."""
        return self.store.clickhouse_url or f"chdb://{self.embedded_path}"

    @property
    def is_embedded(self) -> bool:
        return self.url.startswith("chdb:")

    @property
    def safe_url(self) -> str:
        return redact_url(self.url)

    def service_rate_map(self) -> dict[str, float]:
        """Per-service sampling rates from ``service_rates`` ("svc=0.1,other=1")."""
        return self.sampler.service_rate_map()

    def span_filters(self) -> tuple[tuple[str, str], ...]:
        """``span_filter`` as (key, value) pairs: span_name, service or attr:KEY."""
        return self.sampler.span_filters()


def _concerns() -> dict[str, type[_Concern]]:
    """Settings' concerns by attribute, in order: the ones concern.py looks every variable up in."""
    models = {}
    for name in Settings.CONCERNS:
        model = Settings.model_fields[name].annotation
        assert isinstance(model, type) and issubclass(model, _Concern)
        models[name] = model
    return models


register_concerns(_concerns())


def _nest(flat: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Flat names with values (None dropped) as {concern: {name: value}}; TypeError for an unknown name."""
    unknown = set(flat) - set(_FLAT)
    if unknown:
        raise TypeError(f"unknown settings: {', '.join(sorted(unknown))}")
    nested: dict[str, dict[str, Any]] = {}
    for name, value in flat.items():
        if value is not None:
            for concern in _FLAT[name]:
                nested.setdefault(concern, {})[name] = value
    return nested

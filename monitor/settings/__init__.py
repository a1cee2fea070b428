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

import math
import os
from collections.abc import Iterator, Mapping
from contextvars import ContextVar
from pathlib import Path
from typing import Any, ClassVar
from urllib.parse import urlsplit

from pydantic import Field, PrivateAttr, SecretStr, ValidationError, field_validator, model_validator
from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from sumwatch.clustering.sentence_model.backend import ModelBackend

from ..contract.limits import MAX_LIST_LIMIT
from .concern import _FLAT, _Concern, _model_of, _one_line, _raw, _setting, register_concerns, reveal, warn_unknown
from .export_settings import ExportSettings
from .selectors import SELECTOR_VARIABLE_PREFIX, SelectorEntry, SelectorError, read_selectors
from .values import (
    CLICKHOUSE_SCHEMES,
    MAX_DURATION_S,
    MAX_WORKERS,
    Check,
    _allowed_hosts,
    _between,
    _clickhouse_url,
    _cron,
    _database,
    _duration,
    _one_of,
    _positive,
    _public_url,
    _seconds,
    _service_rates,
    _span_filter,
    _text,
    _token,
    _trusted_proxies,
    check_clickhouse_url,
    crontab_fields,
    parse_allowed_hosts,
    parse_duration,
    parse_pace,
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

    home: Path = _setting(
        Path(".sumwatch"), flag="--home",
        description="The data directory: the embedded database, the receiver's write-ahead log and the exported "
                    "sentence models live under it (made if missing, inside a folder that exists).")
    clickhouse_url: str | None = _setting(
        None, flag="--db", repr=False, check=_clickhouse_url,
        description="The ClickHouse server, like http(s)://user:pass@host:8123, or chdb:///absolute/dir for the "
                    "embedded engine in a folder of your choice; unset: embedded chDB under the data directory. "
                    "Shown without its password.")
    database: str = _setting("otel", check=_database,
                             description="The database that holds otel_traces and sumwatch's tables.")
    cluster: str | None = _setting(
        None, env="CLICKHOUSE_CLUSTER",
        description="A ClickHouse cluster's name: the DDL goes ON CLUSTER, with Replicated and Distributed tables.")
    retention_days: int = _setting(
        0, check=_between(0, 36500, "a number of days"),
        description="Days spans, scores and issue members are kept, as a TTL that sumwatch db migrate (and every "
                    "start) sets or changes; 0 keeps everything.")


class ReceiverSettings(_Concern):
    """The server: OTLP receiver, API and dashboard."""

    host: str = _setting("127.0.0.1", flag="--host", check=_text,
                         description="The address the server (receiver, API and dashboard) listens on.")
    port: int = _setting(4318, flag="--port", check=_between(0, 65535, "a port number"),
                         description="The port the server (receiver, API and dashboard) listens on.")
    ingest_token: SecretStr | None = _setting(
        None, description="When set, the receiver's paths (/v1/traces, /v1/logs, the Langfuse path) require it as "
                          "Authorization: Bearer <token>.")
    api_token: SecretStr | None = _setting(
        None, check=_token,
        description="When set, the API and the dashboard require it, as Authorization: Bearer <token> or the "
                    "session the /login page sets; the ingest token stays for the receiver's paths alone.")
    max_body_bytes: int = _setting(
        20 * 1024 * 1024, check=_positive("number of bytes"),
        description="The largest OTLP body the receiver takes, as sent and once inflated; a larger one gets 413.")
    insert_batch_rows: int = _setting(
        20_000, check=_positive("number of rows"),
        description="The most rows in one INSERT of the receiver: a group commit, or a batch of its write-ahead log.")
    insert_batch_wait_ms: int = _setting(
        50, check=_between(0, math.inf, "a number of milliseconds"),
        description="Group commit: the most a batch waits for requests the receiver is already reading or decoding "
                    "to join its INSERT (never when none is on its way; 0: only what is queued). Fewer, bigger "
                    "INSERTs cost less CPU per span.")
    receiver_log: bool = _setting(
        True, description="Acknowledge a request once its rows are in a write-ahead log under the data directory, "
                          "replayed at start so a killed process loses nothing, and insert the log in big batches, "
                          "which costs less per span. Off: a request is acknowledged after the INSERT holding it.")
    receiver_log_fsync: bool = _setting(
        False, description="Flush each write-ahead log record to disk before acknowledging: survives power loss, not "
                           "only a killed process, at a disk flush per request.")
    retry_after_seconds: int = _setting(
        5, check=_between(0, math.inf, "a number of seconds"),
        description="The Retry-After the receiver tells exporters with a 503, when the database fails.")
    header_timeout_s: float = _setting(
        10.0, check=_seconds(),
        description="A connection whose request headers take longer than this is closed, so slow or stuck clients "
                    "do not hold connections.")
    body_timeout_s: float = _setting(
        30.0, check=_seconds(), description="A request body that takes longer than this to arrive is answered 408.")
    max_connections: int = _setting(
        1000, check=_positive("number of connections"),
        description="Open connections beyond this close the longest idle; requests in progress beyond it get 503 "
                    "(health probes are always answered).")
    public_url: str | None = _setting(
        None, check=_public_url,
        description="Where users reach the dashboard and API, like https://sumwatch.example.com: its host joins the "
                    "names the server answers to, and exported issues link back to it.")
    allowed_hosts: str | None = _setting(
        None, check=_allowed_hosts,
        description="More host names the API and dashboard answer to, comma-separated; * is any, which leaves DNS "
                    "rebinding unchecked.")
    trusted_proxies: str | None = _setting(
        None, check=_trusted_proxies,
        description="Reverse proxies (IPs or CIDRs, comma-separated) whose X-Forwarded-For or Forwarded headers name "
                    "the client; from any other peer they are ignored. Set it behind nginx, a load balancer or an "
                    "ingress, or every user shares the peer's sign-in limit.")
    service_name: str = _setting("sumwatch-demo", check=_text,
                                 description="The service the demo's spans come from.")


class JudgeSettings(_Concern):
    """The judge cascade and its LLM."""

    AFFECTS: ClassVar[tuple[str, ...]] = ("sample", "calibrate")  # every one changes how a span is scored

    judge_mode: JudgeMode | None = _setting(
        None, check=_one_of(JUDGE_MODES),
        description="When the LLM judge is asked: off, ambiguous (what the cheap tiers leave unsure, plus an audit "
                    "share) or always; unset: ambiguous with an LLM configured, else off.",
        travels={"sample": "mode", "calibrate": "mode"})
    judge_audit_rate: float = _setting(
        0.05, check=_between(0, 1, "a share"),
        description="The share of confident cheap-tier results the LLM judges again in ambiguous mode, to measure "
                    "how often the tiers agree.")
    judge_budget: float | None = _setting(
        None, check=_between(0, 16, "a number of requests per span"),
        description="LLM requests per span in ambiguous mode, spent on the results the cheap tiers are least sure "
                    "of (the audit sample comes on top); unset: every suspicion and unsure pass, however many.")
    llm_model: str | None = _setting(
        None, description="The LLM judge's model as litellm names it, like openai/gpt-4o-mini; unset: no LLM tier.",
        affects=("cluster",))
    llm_api_base: str | None = _setting(
        None, description="The LLM provider's endpoint, where it is not the model's usual one (a proxy, a local "
                          "server).", affects=("cluster",))
    llm_api_key: SecretStr | None = _setting(None, description="The API key sent to the LLM provider.",
        affects=("cluster",))
    llm_concurrency: int = _setting(16, check=_positive("number of requests"),
                                    description="LLM requests in flight at once.")
    llm_timeout_s: float = _setting(30.0, check=_seconds(), description="How long one LLM request may take.")
    llm_max_spend_usd: float | None = _setting(
        None, check=_between(0, math.inf, "an amount in USD"),
        description="A cap on LLM spend per process and sampler run, in USD, on top of the daily cap.")
    llm_daily_cap_usd: float | None = _setting(
        10.0, check=Check("at least 0, or off", _between(0, math.inf, "an amount in USD")),
        description="LLM judging's spend per UTC day in USD, of every process on the store together. At the cap "
                    "the cheap tiers go on alone, marking what the LLM would have judged (sumwatch rescore judges it "
                    "later); off: no daily cap.")

    @field_validator("llm_daily_cap_usd", mode="before")
    @classmethod
    def _no_cap(cls, value: Any) -> Any:
        return None if isinstance(value, str) and value.strip().lower() in ("off", "none") else value
    embedding_model: str = _setting(
        "all-MiniLM-L6-v2", check=_text,
        description="The sentence model of the embedding tier, the learned tier and clustering: the packaged "
                    "all-MiniLM-L6-v2 or any sentence-transformers model.", affects=("cluster",))
    model_backend: ModelBackend = _setting(
        ModelBackend.ONNX,
        description="What runs the sentence model: onnx (int8 ONNX Runtime, exported under the data directory on "
                    "first use, a fraction of torch's CPU with the same verdicts) or torch (the reference).")
    model_threads: int = _setting(
        1, check=_between(1, 256, "a number of threads"),
        description="The sentence model's intra-op threads in each process; run more processes for more cores, "
                    "since a second thread mostly waits.")
    model_prebuilt_dir: Path | None = _setting(
        None, description="A read-only folder of models exported ahead (the image's, made at build time), used when "
                          "its manifest matches the model's files; else the model is exported under the data "
                          "directory.")
    embeddings: bool = _setting(
        True, description="Run the embedding tier (support and coverage from sentence embeddings); false: rules "
                          "only, without the learned tier either.")
    learned: bool = _setting(
        True, description="Run the learned faithfulness tier, which reads the embedding tier's vectors and so needs "
                          "SUMWATCH_EMBEDDINGS on.")


class SamplerSettings(_Concern):
    """Which spans are scored, and how often."""

    sample_rate: float = _setting(1.0, check=_between(0, 1, "a share"), description="The share of traces scored.",
        travels={"sample": "rate"})
    service_rates: str | None = _setting(
        None, check=_service_rates,
        description="Sampling rates of some services instead of SUMWATCH_SAMPLE_RATE, like checkout=0.1,support=1.",
        affects=("sample",))
    sample_batch: int = _setting(64, check=_positive("number of spans"),
                                 description="Spans read and scored together, one batch of a pass.",
        affects=("sample",))
    eval_events: bool = _setting(
        False, description="Also write each score as a gen_ai.evaluation.result event into otel_traces.",
        travels={"sample": "events"})
    selectors: str | None = _setting(
        None, description="A TOML file of [[selector]] entries: more spans to read as summarizations, besides "
                          "sumwatch's own tag and the built-in recognition.", affects=("sample",))
    selector_variables: dict[str, str] | None = _setting(
        None, env=SELECTOR_VARIABLE_PREFIX[len(ENV_PREFIX):] + "*",
        description="One more selector entry per SUMWATCH_SELECTOR_<NAME> variable, as a JSON object.",
        affects=("sample",))
    span_filter: str | None = _setting(
        None, check=_span_filter,
        description="The older single selector, one more entry named span_filter, like "
                    "span_name=summarize,attr:llm.request.type=chat; its texts are under SUMWATCH_SOURCE_KEY and "
                    "SUMWATCH_SUMMARY_KEY.", affects=("sample",))
    source_key: str = _setting(
        "input.value", check=_text,
        description="The attribute holding the source text of the spans SUMWATCH_SPAN_FILTER picks (without a "
                    "filter: where sumwatch's own spans keep it).", affects=("sample",))
    summary_key: str = _setting(
        "output.value", check=_text,
        description="The attribute holding the summary of the spans SUMWATCH_SPAN_FILTER picks (without a filter: "
                    "where sumwatch's own spans keep it).", affects=("sample",))
    sampler_interval_s: float = _setting(60.0, flag="--interval", check=_seconds(),
                                         description="The worker's wait between two sampler passes.")
    sampler_batch_pause_s: float = _setting(
        0.0, check=_seconds(zero=True),
        description="The worker's sampler waits this long after each stored batch, spreading its load on the "
                    "database and the judge model over a pass (SIGTERM still stops it at once).")
    sampler_workers: int = _setting(
        0, check=Check(f"0 to {MAX_WORKERS}, or auto (0)", _between(0, MAX_WORKERS, "a number of processes (0: auto)")),
        description="Processes that run the sentence model in a pass, this one and helpers; 0 or auto: the usable "
                    "CPUs over SUMWATCH_MODEL_THREADS. The scores are the same whatever the number.",
        travels={"sample": "workers"})

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

    cluster_window: str = _setting(
        "24h", flag="--window", check=_duration,
        description="How far back a clustering run looks: failing scores of spans this recent are clustered.",
        travels={"cluster": "window"})
    cluster_match_threshold: float = _setting(
        0.85, check=_between(0, 1, "a similarity"),
        description="The centroid cosine similarity at which a cluster keeps an earlier issue's id.",
        affects=("cluster",))
    cluster_resolve_after: int = _setting(3, check=_positive("number of runs"),
                                          description="Runs an issue may be absent before it is resolved.",
        affects=("cluster",))
    cluster_max_fit_points: int = _setting(
        20_000, check=_positive("number of points"),
        description="Above this many points, UMAP and HDBSCAN fit on a sample and assign the rest.",
        affects=("cluster",))
    cluster_namer: Namer = _setting(
        Namer.AUTO, check=_one_of(NAMERS),
        description="Who names a cluster: llm, keywords, or auto (the LLM when one is configured, else keywords).",
        affects=("cluster",))
    promote_per_issue: int = _setting(
        3, check=_between(0, math.inf, "a number of examples"),
        description="Representatives promoted to the calibration corpus per issue and run.", affects=("cluster",))
    cluster_cron: str = _setting(
        "*/30 * * * *", flag="--cron", check=_cron,
        description="When the worker runs clustering, as a crontab (weekdays count from Sunday = 0).")


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
    def affects(cls, name: str) -> tuple[str, ...]:
        """The commands whose work a setting changes, in every concern that holds it:
        ``affects("sample_rate") == ("sample",)``."""
        cls.concern_of(name)  # TypeError for a name that is no setting
        models = [cls.model_fields[concern].annotation for concern in _FLAT[name]]
        return tuple(dict.fromkeys(c for model in models if isinstance(model, type) and issubclass(model, _Concern)
                                   for c in model.affects(name)))

    @classmethod
    def travels(cls, name: str) -> Mapping[str, str]:
        """{command: request field} for the commands that carry a setting to a server:
        ``travels("judge_mode") == {"sample": "mode", "calibrate": "mode"}``."""
        return _model_of(name).travels(name)

    @classmethod
    def rule(cls, name: str) -> str:
        """What a setting's value may be, in words: ``rule("port") == "0 to 65535"``."""
        return _model_of(name).rule(name)

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

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

import difflib
import logging
import math
import os
import re
from collections.abc import Callable, Iterator, Mapping
from contextvars import ContextVar
from enum import Enum
from pathlib import Path
from typing import Any, ClassVar, TypeVar, Union, get_args, get_origin
from urllib.parse import urlsplit, urlunsplit

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError, ValidationInfo, field_validator
from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from sumwatch.clustering.vocabulary import Choice, IssueStatus, Severity

ENV_PREFIX = "SUMWATCH_"
_log = logging.getLogger(__name__)


class JudgeMode(Choice):
    """When the LLM judge is asked: never, for what the cheap tiers leave unsure (plus an audit share), always."""

    OFF = "off"
    AMBIGUOUS = "ambiguous"
    ALWAYS = "always"


class Namer(Choice):
    """Who names a cluster: ``auto`` is the LLM when one is configured, else keywords."""

    AUTO = "auto"
    LLM = "llm"
    KEYWORDS = "keywords"


JUDGE_MODES: tuple[str, ...] = JudgeMode.values()
NAMERS: tuple[str, ...] = Namer.values()
SEVERITIES: tuple[str, ...] = Severity.values()
ISSUE_STATUSES: tuple[str, ...] = IssueStatus.values()


class SettingsError(ValueError):
    """A setting with a value sumwatch cannot use; the message names its variable."""


def reveal(secret: SecretStr | None) -> str:
    """A secret's text where it is used (a header, a client), "" when not set:
    ``reveal(settings.receiver.api_token)``."""
    return secret.get_secret_value() if secret is not None else ""


def _setting(default: Any = None, *, flag: str | None = None, env: str | None = None, **kw: Any) -> Any:
    """A field with the flag that sets it and, where it differs from the field's name, its variable's name."""
    extra: dict[str, Any] = {k: v for k, v in (("flag", flag), ("env", env)) if v}
    return Field(default, json_schema_extra=extra or None, **kw)


def _extra(info: FieldInfo) -> Mapping[str, Any]:
    extra = info.json_schema_extra
    return extra if isinstance(extra, Mapping) else {}


_Concern_T = TypeVar("_Concern_T", bound="_Concern")


class _Concern(BaseModel):
    """One concern's settings: text from the environment is parsed to each field's type, then checked."""

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)

    def __init__(self, **values: Any) -> None:
        try:
            super().__init__(**values)
        except ValidationError as exc:
            raise SettingsError(_one_line(exc)) from None

    @field_validator("*", mode="before")
    @classmethod
    def _parse_text(cls, value: Any, info: ValidationInfo) -> Any:
        if not isinstance(value, str) or info.field_name is None:
            return value
        return _parse(value, cls.model_fields[info.field_name].annotation)

    @field_validator("*", mode="after")
    @classmethod
    def _check(cls, value: Any, info: ValidationInfo) -> Any:
        check = _CHECKS.get(info.field_name or "")
        if check is not None and value is not None:
            plain = value.get_secret_value() if isinstance(value, SecretStr) else value
            check(plain.value if isinstance(plain, Enum) else plain)
        return value

    @classmethod
    def env_var(cls, name: str) -> str:
        """The environment variable of a field: ``SUMWATCH_`` + its name, or the one its metadata names."""
        return ENV_PREFIX + str(_extra(cls.model_fields[name]).get("env", name.upper()))

    @classmethod
    def label(cls, name: str) -> str:
        """How errors name a field: its variable, and its flag where one sets it."""
        flag = _extra(cls.model_fields[name]).get("flag")
        return cls.env_var(name) + (f" ({flag})" if flag else "")

    @classmethod
    def secret(cls, name: str) -> bool:
        """Whether a field holds a secret (shown only as set or not)."""
        info = cls.model_fields[name]
        return not info.repr or SecretStr in (info.annotation, *get_args(info.annotation))

    @classmethod
    def from_env(cls: type[_Concern_T], env: Mapping[str, str] | None = None, **overrides: Any) -> _Concern_T:
        """This concern alone from ``SUMWATCH_*`` variables, then ``overrides`` (None means not given)."""
        env = os.environ if env is None else env
        warn_unknown(env)
        values = {name: raw for name in cls.model_fields if (raw := _raw(env, cls.env_var(name))) is not None}
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)

    @classmethod
    def explicit(cls, env: Mapping[str, str] | None = None) -> set[str]:
        """The fields given a value in the environment (not left at their defaults)."""
        env = os.environ if env is None else env
        return {name for name in cls.model_fields if _raw(env, cls.env_var(name)) is not None}

    def with_(self: _Concern_T, **changes: Any) -> _Concern_T:
        """A copy with ``changes`` (None means unchanged), checked like the original."""
        values = {name: getattr(self, name) for name in type(self).model_fields}
        values.update({k: v for k, v in changes.items() if v is not None})
        return type(self)(**values)


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
    insert_batch_wait_ms: int = 0  # linger before an INSERT; 0 = group whatever is queued
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
    service_name: str = "sumwatch-demo"  # the service the demo's spans come from


class JudgeSettings(_Concern):
    """The judge cascade and its LLM."""

    judge_mode: JudgeMode | None = None  # default: ambiguous with an LLM, else off
    # share of confident cheap-tier results the LLM re-judges in ambiguous mode, to measure agreement
    judge_audit_rate: float = 0.05
    llm_model: str | None = None  # litellm model string, e.g. openai/gpt-4o-mini
    llm_api_base: str | None = None
    llm_api_key: SecretStr | None = None
    llm_concurrency: int = 16
    llm_timeout_s: float = 30.0
    llm_max_spend_usd: float | None = None  # per sampler run
    embedding_model: str = "all-MiniLM-L6-v2"
    embeddings: bool = True


class SamplerSettings(_Concern):
    """Which spans are scored, and how often."""

    sample_rate: float = 1.0
    service_rates: str | None = None  # "checkout=0.1,support=1"
    sample_batch: int = 64
    eval_events: bool = False  # also write gen_ai.evaluation.result events into otel_traces
    span_filter: str | None = None  # other instrumentations: "span_name=ChatCompletion,attr:gen_ai.operation.name=chat"
    source_key: str = "input.value"
    summary_key: str = "output.value"
    sampler_interval_s: float = _setting(60.0, flag="--interval")
    # the worker's sampler waits this long after each stored batch: spreads its load on the database and the
    # judge model over a pass (a SIGTERM still stops it at once)
    sampler_batch_pause_s: float = 0.0

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
    # alerts (slack, webhook) after each run: new and regressed issues at or above this severity
    alert_targets: str = ""
    alert_min_severity: Severity = Severity.HIGH
    # pacing and faults
    export_pace: str = ""  # content-creating requests per minute per target: "github=80,jira=100"
    export_timeout_s: float = 10.0
    export_max_attempts: int = 5
    export_backoff_s: float = 1.0  # first retry's wait, doubled each time (Retry-After wins when longer)
    export_max_wait_s: float = 120.0  # a longer Retry-After is a failure for this run, retried on the next

    def statuses(self) -> list[str]:
        return [s.strip() for s in self.export_statuses.split(",") if s.strip()]

    def pace(self) -> dict[str, float]:
        """Requests per minute per target from ``export_pace`` ("github=80,jira=100")."""
        return parse_pace(self.export_pace)

    def secrets(self) -> list[str]:
        """Every secret value set, for scrubbing from messages (longest first)."""
        values = [reveal(getattr(self, name)) for name in type(self).model_fields if self.secret(name)]
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
    def _model_of(cls, name: str) -> type[_Concern]:
        model = cls.model_fields[cls.concern_of(name)].annotation
        assert isinstance(model, type) and issubclass(model, _Concern)
        return model

    @classmethod
    def env_var(cls, name: str) -> str:
        """The environment variable of a flat name: ``env_var("cluster") == "SUMWATCH_CLICKHOUSE_CLUSTER"``."""
        return cls._model_of(name).env_var(name)

    @classmethod
    def label(cls, name: str) -> str:
        """How errors name a setting: its variable, and its flag where one sets it."""
        return cls._model_of(name).label(name)

    @classmethod
    def secret(cls, name: str) -> bool:
        return cls._model_of(name).secret(name)

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


# flat name -> the concerns holding a field of that name (public_url: the receiver's and the exports')
_FLAT: dict[str, tuple[str, ...]] = {}
for _concern in Settings.CONCERNS:
    _model = Settings.model_fields[_concern].annotation
    assert isinstance(_model, type) and issubclass(_model, _Concern)
    for _name in _model.model_fields:
        _FLAT[_name] = _FLAT.get(_name, ()) + (_concern,)


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


def _raw(env: Mapping[str, str], var: str) -> str | None:
    """A variable's text, stripped; None when unset or empty (empty means "not configured")."""
    raw = env.get(var)
    return raw.strip() if raw else None


def known_variables() -> frozenset[str]:
    """Every ``SUMWATCH_*`` variable sumwatch reads."""
    return frozenset(Settings.env_var(name) for name in _FLAT)


_warned: set[str] = set()


def warn_unknown(env: Mapping[str, str]) -> list[str]:
    """Warn once per variable about a ``SUMWATCH_*`` name sumwatch does not read (a typo would otherwise be
    silently ignored), naming the closest known one; returns the lines warned this time."""
    known = known_variables()
    lines = []
    for var in sorted(v for v in env if v.startswith(ENV_PREFIX) and v not in known and v not in _warned):
        _warned.add(var)
        # compared without the shared prefix, which would make every name look alike
        close = difflib.get_close_matches(var.removeprefix(ENV_PREFIX), [k.removeprefix(ENV_PREFIX) for k in known],
                                          n=1, cutoff=0.6)
        line = f"{var} is not a sumwatch setting" + (f" (did you mean {ENV_PREFIX}{close[0]}?)" if close else "")
        _log.warning("%s", line)
        lines.append(line)
    return lines


def _one_line(exc: ValidationError) -> str:
    """The first error of a validation as one line naming the variable (and flag): never the secret's value."""
    error = exc.errors()[0]
    name = next((str(p) for p in reversed(error["loc"]) if isinstance(p, str) and p in _FLAT), None)
    if error["type"] == "value_error":
        message = str(error.get("ctx", {}).get("error", error["msg"]))
    else:
        message = error["msg"][:1].lower() + error["msg"][1:]
    message = " ".join(message.split())
    if name is None:
        return message
    return f"{Settings.label(name)} {message}"


def _parse(raw: str, hint: Any) -> Any:
    """A variable's text as the field's type (``int | None`` reads as int; a secret stays text)."""
    if get_origin(hint) is Union or (get_origin(hint) is not None and type(None) in get_args(hint)):
        hint = next(a for a in get_args(hint) if a is not type(None))
    if isinstance(hint, type) and issubclass(hint, Choice):
        value = raw.strip()
        if value not in hint.values():
            raise ValueError(f"must be one of {', '.join(hint.values())}, got {raw!r}")
        return hint(value)
    if hint is bool:
        value = raw.strip().lower()
        if value in ("1", "true", "yes", "on"):
            return True
        if value in ("0", "false", "no", "off"):
            return False
        raise ValueError(f"must be true or false, got {raw!r}")
    if hint is int:
        try:
            return int(raw)
        except ValueError:
            raise ValueError(f"must be an integer, got {raw!r}") from None
    if hint is float:
        try:
            return float(raw)
        except ValueError:
            raise ValueError(f"must be a number, got {raw!r}") from None
    if hint is Path:
        return Path(raw)
    return raw


# -- checks, one per field that has a rule --------------------------------------------------------------

def _between(low: float, high: float, what: str = "") -> Callable[[Any], None]:
    def check(value: Any) -> None:
        if value is None:
            return
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
                or not low <= value <= high:
            top = "" if high == math.inf else f" and {high:g}"
            raise ValueError(f"must be {what or 'a number'} between {low:g}{top}, got {value!r}"
                             if top else f"must be {what or 'a number'} of at least {low:g}, got {value!r}")
    return check


def _positive(what: str) -> Callable[[Any], None]:
    def check(value: Any) -> None:
        if value is None:
            return
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
            raise ValueError(f"must be a positive {what}, got {value!r}")
    return check


def _seconds(*, zero: bool = False) -> Callable[[Any], None]:
    """A wait or timeout: positive (or zero) and at most 100 years, which every timer can hold."""
    def check(value: Any) -> None:
        if value is None:
            return
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
                or value < 0 or (value == 0 and not zero) or value > MAX_DURATION_S:
            raise ValueError(f"must be a {'' if zero else 'positive '}number of seconds of at most 100 years "
                             f"({MAX_DURATION_S}), got {value!r}")
    return check


def _one_of(choices: tuple[str, ...]) -> Callable[[Any], None]:
    def check(value: Any) -> None:
        if value is not None and value not in choices:
            raise ValueError(f"must be one of {', '.join(choices)}, got {value!r}")
    return check


def _text(value: Any) -> None:
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"must not be empty, got {value!r}")


_SYSTEM_DATABASES = ("system", "information_schema")


def _token(value: Any) -> None:
    # sent in an Authorization header and a form: visible ASCII without spaces, so it survives both
    if value is not None and (not isinstance(value, str) or not re.fullmatch(r"[\x21-\x7e]{8,512}", value)):
        raise ValueError("must be 8 to 512 visible ASCII characters without spaces (like the output of "
                         "`openssl rand -hex 24`), got a value that is not")


def _public_url(value: Any) -> None:
    if value is None:
        return
    parts = urlsplit(value)
    try:
        parts.port  # noqa: B018 - raises ValueError on a port that is not a number or out of range
    except ValueError:
        parts = parts._replace(netloc="")
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.username or parts.password:
        raise ValueError(f"must be an http(s) URL naming a host, like https://sumwatch.example.com, "
                         f"got {redact_url(value)!r}")


def _allowed_hosts(value: Any) -> None:
    parse_allowed_hosts(value)


def _database(value: Any) -> None:
    if not isinstance(value, str) or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]{0,63}", value):
        raise ValueError(f"must be a database name of letters, digits and _ (like otel), got {value!r}")
    if value.lower() in _SYSTEM_DATABASES:
        raise ValueError(f"{value!r} is ClickHouse's own database; name one for sumwatch's tables (like otel)")


def _duration(value: Any) -> None:
    try:
        parse_duration(value)
    except ValueError:
        raise ValueError(f"must be a positive duration of at most 100 years with a unit s, m, h, d or w "
                         f"(like 24h or 7d), got {value!r}") from None


def _clickhouse_url(value: Any) -> None:
    if value:
        check_clickhouse_url(value)


def _span_filter(value: Any) -> None:
    try:
        parse_span_filter(value)
    except ValueError as exc:
        raise ValueError(f"has a bad {exc}") from None


def _issue_statuses(value: Any) -> None:
    bad = [s.strip() for s in str(value).split(",") if s.strip() and s.strip() not in ISSUE_STATUSES]
    if bad:
        raise ValueError(f"must list {', '.join(ISSUE_STATUSES)}, got {bad[0]!r}")


def _wait_s(value: Any) -> None:
    if not 0 <= value <= 86400:
        raise ValueError("must be a number of seconds from 0 to 86400")


def _at_least_one(value: Any) -> None:
    if value < 1:
        raise ValueError(f"must be a positive integer, got {value}")


def _regex(value: Any) -> None:
    if value:
        try:
            re.compile(value)
        except re.error as exc:
            raise ValueError(f"is not a regular expression: {exc}") from None


def _cron(value: Any) -> None:
    try:
        crontab_fields(value)
    except ValueError as exc:
        raise ValueError(f"{value!r} is not a 5-field crontab: {exc}") from None




# -- value grammars, shared with the code that uses the values --------------------------------------------

_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhdw])\s*$")
_UNIT_S = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}
# a window reaching further back than ClickHouse's DateTime64 (1900) cannot be queried or stored
MAX_DURATION_S = 100 * 365 * 86400
# the most rows one listing returns (CLI --limit, the read API's ?limit=): ClickHouse reads LIMIT as UInt32,
# so a larger number would wrap around
MAX_LIST_LIMIT = 10_000
CLICKHOUSE_SCHEMES = ("chdb", "http", "https")


def parse_duration(text: str) -> float:
    """Seconds in a duration like ``90s``, ``15m``, ``24h``, ``7d`` or ``2w``, at most 100 years."""
    match = _DURATION.match(str(text).lower())
    if not match or float(match.group(1)) <= 0:
        raise ValueError(f"a duration is a positive number with a unit s, m, h, d or w (like 24h or 7d), "
                         f"got {text!r}")
    seconds = float(match.group(1)) * _UNIT_S[match.group(2)]
    if seconds > MAX_DURATION_S:
        raise ValueError(f"a duration is at most 100 years (36500d), got {text!r}")
    return seconds


def check_clickhouse_url(url: str) -> None:
    """A ClickHouse URL sumwatch can open: ``http(s)://[user:pass@]host[:port]`` or ``chdb:///absolute/dir``.

        check_clickhouse_url("postgres://db")   # ValueError: must start with chdb://, http:// or https:// ...
    """
    scheme, sep, _ = url.partition("://")
    if not sep or scheme not in CLICKHOUSE_SCHEMES:
        raise ValueError(f"must start with chdb://, http:// or https://, got {redact_url(url)!r}")
    parts = urlsplit(url)
    if scheme == "chdb":
        if parts.netloc or not parts.path.startswith("/"):
            raise ValueError(f"must name an absolute folder for the embedded database, like "
                             f"chdb:///var/lib/sumwatch, got {redact_url(url)!r}")
        return
    try:
        parts.port  # noqa: B018 - raises ValueError on a port that is not a number or out of range
    except ValueError:
        raise ValueError(f"has a bad port: {redact_url(url)!r}") from None
    if not parts.hostname:
        raise ValueError(f"names no host, like {scheme}://localhost:8123, got {redact_url(url)!r}")


def parse_service_rates(text: str | None) -> dict[str, float]:
    """``"checkout=0.1,support=1"`` -> ``{"checkout": 0.1, "support": 1.0}``."""
    rates: dict[str, float] = {}
    for part in filter(None, (p.strip() for p in (text or "").split(","))):
        service, sep, value = part.partition("=")
        try:
            rate = float(value)
        except ValueError:
            rate = -1.0
        if not sep or not service.strip() or not 0.0 <= rate <= 1.0:
            raise ValueError(f"entry {part!r} must be service=rate with 0 <= rate <= 1")
        rates[service.strip()] = rate
    return rates


_HOST_NAME = re.compile(r"[a-z0-9_][a-z0-9_-]{0,62}(\.[a-z0-9_][a-z0-9_-]{0,62})*\.?|\[[0-9a-f:.]+\]")


def parse_allowed_hosts(text: str | None) -> tuple[str, ...]:
    """``"dash.example.com, 10.0.0.5"`` -> ``("dash.example.com", "10.0.0.5")``: host names without ports,
    lower case (``*`` alone allows any)."""
    hosts = tuple(h.strip().lower() for h in (text or "").split(",") if h.strip())
    for host in hosts:
        if host != "*" and not _HOST_NAME.fullmatch(host):
            raise ValueError(f"entry {host!r} must be a host name or address without a port or scheme, "
                             f"like dash.example.com or [::1] (or * for any)")
    return hosts


def parse_pace(text: str | None) -> dict[str, float]:
    """Requests per minute per target: ``"github=80,jira=100"`` -> ``{"github": 80.0, "jira": 100.0}``."""
    out: dict[str, float] = {}
    for part in filter(None, (p.strip() for p in (text or "").split(","))):
        name, sep, value = part.partition("=")
        try:
            rate = float(value)
        except ValueError:
            rate = -1.0
        if not sep or not name.strip() or rate <= 0:
            raise ValueError(f"entry {part!r} must be target=requests_per_minute, like github=80")
        out[name.strip()] = rate
    return out


def parse_span_filter(spec: str | None) -> tuple[tuple[str, str], ...]:
    """``"span_name=ChatCompletion,attr:gen_ai.operation.name=chat"`` -> (key, value) pairs."""
    filters = []
    for part in filter(None, (p.strip() for p in (spec or "").split(","))):
        key, sep, value = part.partition("=")
        key = key.strip()
        if not sep or not (key in ("span_name", "service") or (key.startswith("attr:") and len(key) > 5)):
            raise ValueError(f"span filter {part!r}: use span_name=V, service=V or attr:KEY=V")
        filters.append((key, value.strip()))
    return tuple(filters)


_WEEKDAYS = ("sun", "mon", "tue", "wed", "thu", "fri", "sat")  # crontab numbering: 0 (and 7) is Sunday
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_CRON_FIELDS = (("minute", 0, 59, ()), ("hour", 0, 23, ()), ("day", 1, 31, ()), ("month", 1, 12, _MONTHS))


def crontab_fields(expr: str) -> tuple[str, str, str, str, str]:
    """The five fields of a crontab, checked, with the weekday field written as names.

    APScheduler 3 reads the weekday numbers 0-6 as Monday-Sunday and crontab as Sunday-Saturday, so "1-5"
    would silently mean Tuesday to Saturday; names mean the same to both.
        crontab_fields("0 9 * * 1-5")   # ("0", "9", "*", "*", "mon,tue,wed,thu,fri")
    """
    parts = str(expr).split()
    if len(parts) != 5:
        raise ValueError(f"got {len(parts)} field(s), expected minute hour day month weekday")
    for value, (name, low, high, names) in zip(parts[:4], _CRON_FIELDS):
        _cron_values(value, name, low, high, names)
    days = {d % 7 for d in _cron_values(parts[4], "weekday", 0, 7, _WEEKDAYS)}
    weekday = parts[4] if parts[4] in ("*", "?") else ",".join(_WEEKDAYS[d] for d in sorted(days))
    return parts[0], parts[1], parts[2], parts[3], weekday


def _cron_values(value: str, name: str, low: int, high: int, names: tuple[str, ...]) -> set[int]:
    def number(token: str) -> int:
        if token.isdigit() and low <= int(token) <= high:
            return int(token)
        if token in names:
            return names.index(token) + (1 if name == "month" else 0)
        raise ValueError(f"{name} {token!r} in {value!r} is not {low}-{high}"
                         + (f" or {names[0]}-{names[-1]}" if names else ""))

    if value == "?" and name in ("day", "weekday"):
        return set(range(low, high + 1))
    chosen: set[int] = set()
    for part in value.lower().split(","):
        base, slash, step = part.partition("/")
        if slash and (not step.isdigit() or int(step) == 0):
            raise ValueError(f"{name} step {step!r} in {value!r} is not a positive number")
        first_text, dash, last_text = base.partition("-")
        if base == "*":
            first, last = low, (6 if name == "weekday" else high)
        else:
            first = number(first_text)
            last = number(last_text) if dash else (high if slash else first)
        if last < first:
            raise ValueError(f"{name} range {base!r} in {value!r} runs backwards")
        chosen.update(range(first, last + 1, int(step or 1)))
    return chosen


def redact_url(url: str) -> str:
    """The URL with any password replaced, for logs and error messages: in the user part
    (``http://u:***@host``) and in the query, where ClickHouse also takes one (``?user=u&password=***``)."""
    parts = urlsplit(url)
    netloc, query = parts.netloc, _QUERY_SECRET.sub(r"\1***", parts.query)
    if parts.password is not None:
        netloc = (parts.username or "") + ":***@" + netloc.rpartition("@")[2]
    if (netloc, query) == (parts.netloc, parts.query):
        return url
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


_QUERY_SECRET = re.compile(r"(?i)((?:^|[&;])(?:password|passwd|pwd|access_token|token)=)[^&;#]*")


# checked when a concern is made, by field name; a field without an entry takes any value of its type
_CHECKS: dict[str, Callable[[Any], object]] = {
    "clickhouse_url": _clickhouse_url, "database": _database, "host": _text, "service_name": _text,
    "api_token": _token, "embedding_model": _text, "source_key": _text, "summary_key": _text,
    "port": _between(0, 65535, "a port number"),
    "retention_days": _between(0, 36500, "a number of days"),
    "max_body_bytes": _positive("number of bytes"), "insert_batch_rows": _positive("number of rows"),
    "insert_batch_wait_ms": _between(0, math.inf, "a number of milliseconds"),
    "retry_after_seconds": _between(0, math.inf, "a number of seconds"),
    "header_timeout_s": _seconds(), "body_timeout_s": _seconds(),
    "max_connections": _positive("number of connections"), "public_url": _public_url,
    "allowed_hosts": _allowed_hosts,
    "judge_mode": _one_of(JUDGE_MODES), "cluster_namer": _one_of(NAMERS),
    "judge_audit_rate": _between(0, 1, "a share"),
    "llm_concurrency": _positive("number of requests"), "llm_timeout_s": _seconds(),
    "llm_max_spend_usd": _between(0, math.inf, "an amount in USD"),
    "sample_rate": _between(0, 1, "a share"), "service_rates": parse_service_rates,
    "sample_batch": _positive("number of spans"), "span_filter": _span_filter,
    "cluster_window": _duration, "cluster_match_threshold": _between(0, 1, "a similarity"),
    "cluster_resolve_after": _positive("number of runs"), "cluster_max_fit_points": _positive("number of points"),
    "promote_per_issue": _between(0, math.inf, "a number of examples"),
    "sampler_interval_s": _seconds(), "sampler_batch_pause_s": _seconds(zero=True), "cluster_cron": _cron,
    # exports
    "export_statuses": _issue_statuses, "export_redact": _regex, "export_pace": parse_pace,
    "export_timeout_s": _wait_s, "export_backoff_s": _wait_s, "export_max_wait_s": _wait_s,
    "export_max_attempts": _at_least_one, "export_excerpt_chars": _at_least_one,
    "export_representatives": _at_least_one,
}

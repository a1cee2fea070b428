"""Tracker settings: one typed object read from the environment once, beside the main Settings.

    config = ExportConfig.from_env()                    # SUMWATCH_GITHUB_TOKEN, SUMWATCH_LINEAR_API_KEY, ...
    config.problems("github")                           # ["SUMWATCH_GITHUB_REPO is not set (owner/name)"]
    ExportConfig.from_env(env={"SUMWATCH_EXPORT_MIN_SEVERITY": "huge"})
    # SettingsError: SUMWATCH_EXPORT_MIN_SEVERITY must be one of low, medium, high, critical, got 'huge'

Kept out of ``Settings`` (shared and near its size limit) but read the same way: each field's variable is
``SUMWATCH_`` + its name in capitals, parsed and checked when the object is made. Secrets are left out of
``repr`` and never written anywhere by sumwatch.
"""

from __future__ import annotations

import os
import re
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any

from ..settings import ENV_PREFIX, SettingsError, _parse

SEVERITIES = ("low", "medium", "high", "critical")
STATUSES = ("new", "ongoing", "regressed", "resolved")


def severity_rank(severity: str) -> int:
    """Order of a severity (an unknown one ranks lowest)."""
    return SEVERITIES.index(severity) if severity in SEVERITIES else -1


@dataclass(frozen=True)
class ExportConfig:
    """Where issues go and how. Empty strings mean "not configured"."""

    github_token: str = field(default="", repr=False)
    github_repo: str = ""  # owner/name
    github_api_url: str = "https://api.github.com"
    linear_api_key: str = field(default="", repr=False)
    linear_team: str = ""  # the team's id
    linear_api_url: str = "https://api.linear.app/graphql"
    jira_url: str = ""  # https://your-site.atlassian.net
    jira_email: str = ""
    jira_token: str = field(default="", repr=False)
    jira_project: str = ""  # project key, like OPS
    jira_issue_type: str = "Bug"
    slack_webhook_url: str = field(default="", repr=False)  # the URL is the secret
    webhook_url: str = field(default="", repr=False)
    webhook_secret: str = field(default="", repr=False)
    markdown_dir: str = ""
    public_url: str = ""  # the dashboard's base URL for back-links, like https://sumwatch.example.com
    # what leaves sumwatch
    export_source_text: bool = True  # false: no source excerpt at all (summaries and evidence only)
    export_redact: str = ""  # a regular expression; every match in exported text becomes [redacted]
    export_excerpt_chars: int = 600  # per source or summary excerpt
    export_representatives: int = 3
    # automatic exports after each clustering run: comma-separated targets, and which issues
    export_targets: str = ""
    export_statuses: str = "new,regressed"
    export_min_severity: str = "high"
    export_min_traces: int = 1
    export_close_resolved: bool = False  # close the ticket when its issue resolves (a comment is always added)
    # alerts (slack, webhook) after each run: new and regressed issues at or above this severity
    alert_targets: str = ""
    alert_min_severity: str = "high"
    # pacing and faults
    export_pace: str = ""  # content-creating requests per minute per target: "github=80,jira=100"
    export_timeout_s: float = 10.0
    export_max_attempts: int = 5
    export_backoff_s: float = 1.0  # first retry's wait, doubled each time (Retry-After wins when longer)
    export_max_wait_s: float = 120.0  # a longer Retry-After is a failure for this run, retried on the next

    def __post_init__(self) -> None:
        for name in ("export_min_severity", "alert_min_severity"):
            if getattr(self, name) not in SEVERITIES:
                raise SettingsError(f"{self.env_var(name)} must be one of {', '.join(SEVERITIES)}, "
                                    f"got {getattr(self, name)!r}")
        bad = [s for s in self.statuses() if s not in STATUSES]
        if bad:
            raise SettingsError(f"{self.env_var('export_statuses')} must list {', '.join(STATUSES)}, got {bad[0]!r}")
        for name in ("export_timeout_s", "export_backoff_s", "export_max_wait_s"):
            if not 0 <= getattr(self, name) <= 86400:
                raise SettingsError(f"{self.env_var(name)} must be a number of seconds from 0 to 86400")
        for name in ("export_max_attempts", "export_excerpt_chars", "export_representatives"):
            if getattr(self, name) < 1:
                raise SettingsError(f"{self.env_var(name)} must be a positive integer, got {getattr(self, name)}")
        if self.export_redact:
            try:
                re.compile(self.export_redact)
            except re.error as exc:
                raise SettingsError(f"{self.env_var('export_redact')} is not a regular expression: {exc}") from None
        try:
            self.pace()
        except ValueError as exc:
            raise SettingsError(f"{self.env_var('export_pace')} {exc}") from None

    @staticmethod
    def env_var(name: str) -> str:
        return ENV_PREFIX + name.upper()

    @classmethod
    def explicit(cls, env: Mapping[str, str] | None = None) -> set[str]:
        """The settings given a value in the environment (not left at their defaults)."""
        env = os.environ if env is None else env
        return {f.name for f in fields(cls) if env.get(cls.env_var(f.name))}

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **overrides: Any) -> ExportConfig:
        """The config from ``SUMWATCH_*`` variables (the process environment by default), then ``overrides``."""
        env = os.environ if env is None else env
        hints = typing.get_type_hints(cls)
        values: dict[str, Any] = {}
        for f in fields(cls):
            raw = env.get(cls.env_var(f.name))
            if raw is None or raw.strip() == "":
                continue
            try:
                values[f.name] = _parse(raw, hints[f.name])
            except ValueError as exc:
                raise SettingsError(f"{cls.env_var(f.name)} {exc}") from None
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)

    def with_(self, **changes: Any) -> ExportConfig:
        return replace(self, **{k: v for k, v in changes.items() if v is not None})

    def statuses(self) -> list[str]:
        return [s.strip() for s in self.export_statuses.split(",") if s.strip()]

    def pace(self) -> dict[str, float]:
        """Requests per minute per target from ``export_pace`` ("github=80,jira=100")."""
        out: dict[str, float] = {}
        for part in filter(None, (p.strip() for p in self.export_pace.split(","))):
            name, sep, value = part.partition("=")
            try:
                rate = float(value)
            except ValueError:
                rate = -1.0
            if not sep or not name.strip() or rate <= 0:
                raise ValueError(f"entry {part!r} must be target=requests_per_minute, like github=80")
            out[name.strip()] = rate
        return out

    def secrets(self) -> list[str]:
        """Every secret value set, for scrubbing from messages (longest first)."""
        values = [self.github_token, self.linear_api_key, self.jira_token, self.slack_webhook_url,
                  self.webhook_url, self.webhook_secret]
        return sorted({v for v in values if v}, key=len, reverse=True)

    def dashboard_link(self, path: str) -> str:
        """A link to a dashboard path (``/issues/SW-3``), or "" without ``SUMWATCH_PUBLIC_URL``."""
        return self.public_url.rstrip("/") + path if self.public_url else ""

"""The settings' vocabulary: the judge modes and namers (with the issue words every room shares, from the tracer), and
the one error a bad value raises."""

from __future__ import annotations

from sumwatch.tracer.vocabulary import Choice, IssueStatus, Severity

ENV_PREFIX = "SUMWATCH_"


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


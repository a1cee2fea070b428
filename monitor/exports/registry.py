"""Every export target by name: the one place a new tracker is added.

    tracker = build_target("github", config)       # a Tracker, or ValueError with one line per problem
    TARGETS["linear"].kind                         # "ticket" or "alert"
"""

from __future__ import annotations

from .config import ExportConfig
from .github import GitHub
from .jira import Jira
from .linear import Linear
from .markdown import Markdown
from .slack import Slack
from .tracker import ALERT, Tracker
from .webhook import Webhook

TARGETS: dict[str, type[Tracker]] = {t.name: t for t in (GitHub, Linear, Jira, Markdown, Slack, Webhook)}


def target_names() -> list[str]:
    return list(TARGETS)


def target_problems(name: str, config: ExportConfig) -> list[str]:
    """One line per problem with ``name`` or its settings; empty when it can be used."""
    if name not in TARGETS:
        return [f"unknown export target {name!r}: use one of {', '.join(TARGETS)}"]
    return TARGETS[name].problems(config)


def build_target(name: str, config: ExportConfig) -> Tracker:
    problems = target_problems(name, config)
    if problems:
        raise ValueError("; ".join(problems))
    return TARGETS[name](config)


def rule_problems(config: ExportConfig) -> list[str]:
    """Problems with the automatic export and alert rules' targets (checked when the worker starts)."""
    names = [n.strip() for n in f"{config.export_targets},{config.alert_targets}".split(",") if n.strip()]
    lines = [p for name in dict.fromkeys(names) for p in target_problems(name, config)]
    lines += [f"SUMWATCH_ALERT_TARGETS: {n} keeps tickets; alerts go to slack or webhook"
              for n in _names(config.alert_targets) if n in TARGETS and TARGETS[n].kind != ALERT]
    return lines


def _names(text: str) -> list[str]:
    return [n.strip() for n in text.split(",") if n.strip()]

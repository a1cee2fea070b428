"""Tracker settings: the ``exports`` concern of the one settings object, under the name exporters know.

    config = settings.exports                           # SUMWATCH_GITHUB_TOKEN, ..., read with every other setting
    config = ExportConfig.from_env()                    # this concern alone (tests, tools); a running server or
                                                        # command never reads it again: it uses runtime.exports
    ExportConfig.from_env(env={"SUMWATCH_EXPORT_MIN_SEVERITY": "huge"})
    # SettingsError: SUMWATCH_EXPORT_MIN_SEVERITY must be one of low, medium, high, critical, got 'huge'

Severity and issue status are the words every room shares (``sumwatch.tracer.vocabulary``); the tuples here
are derived from those enums for the code that checks a choice.
"""

from __future__ import annotations

from ..settings import ISSUE_STATUSES, SEVERITIES, reveal
from ..settings import ExportSettings as ExportConfig

STATUSES = ISSUE_STATUSES

__all__ = ["SEVERITIES", "STATUSES", "ExportConfig", "reveal", "severity_rank"]


def severity_rank(severity: str) -> int:
    """Order of a severity (an unknown one ranks lowest)."""
    return SEVERITIES.index(severity) if severity in SEVERITIES else -1

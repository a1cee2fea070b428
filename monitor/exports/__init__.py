"""Issues out of sumwatch: tickets in Linear, GitHub Issues, Jira or Markdown files, kept in sync, and alerts to
Slack or a signed webhook.

    config = runtime.exports                                           # settings.exports: SUMWATCH_GITHUB_TOKEN, ...
    export_issues(store, config, "github", ["SW-3"])                   # [ExportResult(action="created", ...)]
    issue_exports(store, "SW-3")                                       # its tickets: link, state, last error

Each target is one module behind :class:`~sumwatch.monitor.exports.tracker.Tracker`, listed in ``registry.py``.
"""

from .config import ExportConfig
from .registry import TARGETS, build_target, target_problems
from .sync import after_clustering, export_issues, exports_by_issue, issue_exports, triage_to_tickets

__all__ = ["TARGETS", "ExportConfig", "after_clustering", "build_target", "export_issues",
           "exports_by_issue", "issue_exports", "target_problems",
           "triage_to_tickets"]

"""Exports as the API serves them: what an export to a tracker did, each threshold alert rule as checked, and
what a pass of score sends did.

    client.export("github", ["SW-3"], dry_run=True)     # [ExportResult(action="would-create", request={...})]
    client.alerts()                                       # [RuleStatus(rule=..., state="ok", ...)]

Exports (:mod:`sumwatch.monitor.exports.sync`, :mod:`~sumwatch.monitor.exports.alerts`,
:mod:`~sumwatch.monitor.exports.score_sends`) make the results; the routes wrap lists of them in an answer.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from pydantic import BaseModel

from .issues import IssueTicket

# the trackers an issue exports to, and the places verdicts are sent as scores, by the names commands and requests
# use; each name is a class in sumwatch.monitor.exports (registry.TARGETS, score_targets.SCORE_TARGETS)
TARGET_NAMES = ("github", "linear", "jira", "markdown", "slack", "webhook")
SCORE_TARGET_NAMES = ("otlp", "langfuse", "phoenix")


@dataclass
class ExportResult:
    """What one export did: ``action`` is created, updated, reopened, resolved, closed, alerted, skipped,
    failed or would-create / would-update / would-alert (``--dry-run``, with ``request``)."""

    target: str
    issue_id: str
    action: str
    external_id: str = ""
    url: str = ""
    tracker_state: str = ""
    error: str = ""
    request: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        if data["request"] is None:
            del data["request"]
        return data


@dataclass
class RuleStatus:
    """One rule as checked now: the rate over its window (None when nothing was judged), the ``state`` that rate
    means (firing, ok, not enough data), the state last ``sent`` ("" before its first alert), and what this
    check did (``action``: fired, resolved, failed with ``error``; with dry run, the ``request`` it would send)."""

    rule: str
    description: str
    rubric: str
    target: str
    threshold: float
    window: str
    min_judged: int
    service: str
    model: str
    passed: int
    judged: int
    rate: float | None
    state: str
    sent: str = ""
    action: str = ""
    error: str = ""
    request: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class ScoreSendResult:
    """What one pass did for one target: verdicts ``sent`` and ``failed`` (with the first ``errors``; ``gave_up`` of
    the failed ones will not be tried again unasked), ``given_up`` on the ledger after the pass, ``waiting`` for their
    span to reach the target (tried again later), or, with ``--dry-run``, ``would_send`` and the first
    ``requests``; ``services``: whose verdicts the target gets (SUMWATCH_SCORES_SERVICES in force where the pass
    ran), None for every service's."""

    target: str
    sent: int = 0
    failed: int = 0
    gave_up: int = 0
    given_up: int = 0
    waiting: int = 0
    would_send: int = 0
    errors: list[str] = field(default_factory=list)
    requests: list[dict[str, Any]] | None = None
    services: list[str] | None = None

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        if data["requests"] is None:
            del data["requests"]
        return data


class ExportAnswer(BaseModel):
    results: list[ExportResult]


class TicketList(BaseModel):
    exports: list[IssueTicket]


class AlertAnswer(BaseModel):
    results: list[RuleStatus]


class ScoreSendAnswer(BaseModel):
    results: list[ScoreSendResult]

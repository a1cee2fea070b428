"""Issues as the API serves them: the list with trends, one issue with its examples and history, a clustering
run's report, and the answer to a triage event.

    listing = client.issues()                 # IssueList(run=RunInfo(...), issues=[IssueRow(...)])
    detail = client.issue("SW-3")             # IssueDetail(...): description, fix, examples, trace ids, history
    parse_issue_id("SW-3"), issue_label(3)    # 3, "SW-3"

Issues (:mod:`sumwatch.monitor.issues.reads`, :mod:`~sumwatch.monitor.issues.job`) and the store
(:mod:`~sumwatch.monitor.store.runs`, :mod:`~sumwatch.monitor.store.issue_members`) make them; the records hold
an issue as people read it, without the centroid the clustering job matches on.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, fields
from datetime import datetime

from typing_extensions import TypedDict  # pydantic reads a TypedDict from here on Python 3.11

_ISSUE_ID = re.compile(r"^\s*(?:([A-Za-z]+)-)?(\d+)\s*$")


def parse_issue_id(text: str) -> int:
    """The number in ``SW-12`` (or plain ``12``)."""
    match = _ISSUE_ID.match(text or "")
    if not match:
        raise ValueError(f"an issue id looks like SW-12 (or just 12), got {text!r}")
    return int(match.group(2))


def issue_label(number: int) -> str:
    return f"SW-{number}"


@dataclass(frozen=True)
class RunInfo:
    run_id: str
    finished_at: datetime
    window_start: datetime
    window_end: datetime
    failures: int
    clustered: int
    noise: int
    issues: int
    new_issues: int
    promoted: int
    namer: str
    seconds: float


@dataclass
class Example:
    trace_id: str
    span_id: str
    rubric: str
    verdict: str
    failure_mode: str
    membership: float
    role: str
    evidence: str
    failure_text: str
    core: bool = True  # membership reaches the core; a shown example that does not is a boundary case


@dataclass
class IssueView:
    """An issue as a run left it, without the centroid: ``issue_view(state)`` (:mod:`sumwatch.monitor.issues.reads`).
    Same fields and order as :class:`~sumwatch.monitor.store.issues.IssueState` otherwise; ``share`` is kept as
    served (4 places)."""

    number: int
    issue_id: str
    title: str
    description: str
    root_cause: str
    fix: str
    severity: str
    rubric: str
    failure_mode: str
    keywords: list[str]
    status: str
    members: int
    traces: int
    share: float
    missed_runs: int
    first_seen: datetime
    last_seen: datetime
    embedding_model: str = ""
    namer: str = ""


@dataclass
class TriageView:
    """What people decided about an issue (see :mod:`sumwatch.monitor.issues.triage`); ``hidden`` says why the
    list leaves it out by default (ignored, muted, merged), empty when shown."""

    assignee: str = ""
    ignored: bool = False
    muted: bool = False
    muted_until: datetime | None = None  # None while muted: until it regresses
    merged_into: str = ""  # the issue it was merged into
    merged: list[str] = field(default_factory=list)  # issues merged into it
    comments: int = 0
    hidden: str = ""


@dataclass
class IssueRow(IssueView):
    """An issue in the list: its view, its trend, and its triage."""

    trend: list[int] = field(default_factory=list)  # members in each of the last runs, oldest first
    triage: TriageView = field(default_factory=TriageView)

    @classmethod
    def of_view(cls, view: IssueView, trend: list[int] | None = None) -> IssueRow:
        return cls(**{f.name: getattr(view, f.name) for f in fields(IssueView)}, trend=trend or [])


@dataclass
class IssueList:
    """The issues of the last finished run (``run`` is None before the first run)."""

    run: RunInfo | None
    issues: list[IssueRow]


@dataclass
class TimelineEntry:
    """One line of an issue's history: a clustering run (``action`` ``run``) or a triage event, in time order."""

    at: datetime
    action: str  # run, or a triage action (resolve, merge, comment ...)
    by: str = ""  # who (a triage event); a tracker that closed the ticket is named by its source
    text: str = ""  # the run's members and status, the comment, the assignee, the issue merged into ...
    source: str = ""  # api, cli, dashboard, tracker:<target>; empty for a run


class IssueRunCount(TypedDict):
    """The issue in one finished run (a dict on the wire and in Python alike)."""

    run_id: str
    run_at: str  # ISO time
    members: int
    status: str


@dataclass
class IssueTicket:
    """The issue's ticket in one tracker, as shown wherever the issue is: ``issue_ticket(export_row)``
    (:mod:`sumwatch.monitor.issues.reads`). An alert channel (Slack, webhook) shows its target name alone:
    nothing of its row could hold a secret."""

    target: str
    external_id: str = ""
    url: str = ""
    tracker_state: str = ""  # open or closed, as the tracker last said
    phase: str = ""  # pending, synced or failed
    error: str = ""


@dataclass
class IssueDetail(IssueRow):
    """One issue: its row, the run its examples come from, representatives and boundary cases, its trace ids,
    its history run by run and its tickets."""

    seen_in_run: str | None = None  # the last run with members (the examples below come from it)
    representatives: list[Example] = field(default_factory=list)
    boundary: list[Example] = field(default_factory=list)
    trace_ids: list[str] = field(default_factory=list)
    history: list[IssueRunCount] = field(default_factory=list)
    exports: list[IssueTicket] = field(default_factory=list)  # its tickets, by target
    timeline: list[TimelineEntry] = field(default_factory=list)  # runs and triage events, oldest first
    asked_as: str = ""  # the id asked for when it was merged into this one


@dataclass
class ClusterRunReport:
    run_id: str
    window_start: datetime
    window_end: datetime
    failures: int
    embedded: int  # failure texts embedded in this run (the rest came from the store)
    clustered: int
    noise: int
    issues: list[IssueRow]  # issues seen in this run, largest first, as `sumwatch issues` lists them
    new_issues: int
    resolved: list[str]  # issue ids that became resolved in this run
    promoted: int
    namer: str
    seconds: float
    map_seconds: float = 0.0  # of those, laying out the cluster map (2D UMAP)


@dataclass
class TriageAnswer:
    """The event stored and the issue as it now reads."""

    issue_id: str
    action: str
    by: str
    at: datetime
    value: str
    status: str  # the issue's status now
    hidden: str  # why the issue list leaves it out by default (ignored, muted, merged into ...), or ""
    assignee: str


_BARS = "▁▂▃▄▅▆▇█"


def sparkline(values: list[int]) -> str:
    """Members per run as bars, scaled to the largest: ``▁▃█``."""
    top = max(values, default=0)
    if top <= 0:
        return _BARS[0] * len(values)
    return "".join(_BARS[min(len(_BARS) - 1, round(v / top * (len(_BARS) - 1)))] for v in values)


def trend_label(values: list[int]) -> str:
    """Sparkline and change since the previous run, like ``▂▅█ +7``: how the command line and the pages show an
    issue's members over the last runs."""
    if len(values) < 2:
        return sparkline(values) + " new" if values else ""
    delta = values[-1] - values[-2]
    return f"{sparkline(values)} {'+' if delta > 0 else ''}{delta if delta else '='}"

"""Issues as people read them: the list with trends, and one issue with its examples.

    listing = issue_list(store)                      # as the last finished clustering run left them
    listing.run.run_id, listing.issues[0].issue_id, listing.issues[0].trend   # ..., "SW-3", [4, 9, 12]
    detail = get_issue(store, "SW-3")                # description, fix, representatives, trace ids, history

The records here are what the CLI prints and the API serves (its schema comes from them). They hold an
issue as people read it (:class:`IssueView`): the centroid the clustering job matches on stays in
the store's :class:`~sumwatch.monitor.store.issues.IssueState`.

Only finished runs count (a run's row in ``sumwatch_cluster_runs`` is written last), so a run that is
still going, or was killed, never shows half its issues.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from datetime import datetime, timezone
from typing import Any

from typing_extensions import TypedDict

from sumwatch.clustering.name import ClusterName, with_figures

from ..store.connection import Store
from ..store.exports import ALERT_TARGETS, ExportRow, exports_of
from ..store.issue_events import IssueEvent, events_of
from ..store.issue_members import BOUNDARY, REPRESENTATIVE, Example, kind_counts, members_of
from ..store.issues import IssueState, issue_history, issue_states, member_counts, regressed_at, run_time
from ..store.runs import FINISHED_RUNS, RunInfo, last_run_ids, latest_run, latest_run_id
from .triage import Triage, fold, issue_label, merged_numbers, root
from .triage import parse_issue_id as parse_issue_id  # where the views and exports have always read it

_BARS = "▁▂▃▄▅▆▇█"
_SHARE_DIGITS = 4  # as IssueState.to_json serves it


@dataclass
class IssueView:
    """An issue as a run left it, without the centroid: ``IssueView.of(state)``. Same fields and order as
    :class:`~sumwatch.monitor.store.issues.IssueState` otherwise; ``share`` is kept as served (4 places)."""

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

    @classmethod
    def of(cls, state: IssueState) -> IssueView:
        values = {f.name: getattr(state, f.name) for f in fields(cls)}
        values["keywords"] = list(state.keywords)
        values["share"] = round(float(state.share), _SHARE_DIGITS)
        return cls(**values)


@dataclass
class TriageView:
    """What people decided about an issue (see :mod:`.triage`); ``hidden`` says why the list leaves it out by
    default (ignored, muted, merged), empty when shown."""

    assignee: str = ""
    ignored: bool = False
    muted: bool = False
    muted_until: datetime | None = None  # None while muted: until it regresses
    merged_into: str = ""  # the issue it was merged into
    merged: list[str] = field(default_factory=list)  # issues merged into it
    comments: int = 0
    hidden: str = ""

    @classmethod
    def of(cls, t: Triage | None, now: datetime, regressed: datetime | None) -> TriageView:
        if t is None:
            return cls()
        muted = t.muted(now, regressed)
        hidden = (f"merged into {issue_label(t.merged_into)}" if t.merged_into is not None
                  else "ignored" if t.ignored else "muted" if muted else "")
        return cls(t.assignee, t.ignored, muted, t.muted_until if muted else None,
                   issue_label(t.merged_into) if t.merged_into is not None else "",
                   [issue_label(n) for n in sorted(t.merged)], t.comments, hidden)


@dataclass
class IssueRow(IssueView):
    """An issue in the list: its view, its trend, and its triage."""

    trend: list[int] = field(default_factory=list)  # members in each of the last runs, oldest first
    triage: TriageView = field(default_factory=TriageView)

    @classmethod
    def with_trend(cls, state: IssueState, trend: list[int]) -> IssueRow:
        return cls.of_view(IssueView.of(state), trend)

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

    @classmethod
    def of_event(cls, e: IssueEvent) -> TimelineEntry:
        text = (f"{issue_label(e.number)} into {issue_label(int(e.value))}" if e.action == "merge" and e.value.isdigit()
                else e.value)
        if e.action == "mute":
            text = f"until {e.value[:16].replace('T', ' ')} UTC" if e.value else "until it regresses"
        return cls(e.at, e.action, e.by, text, e.source)


class IssueRunCount(TypedDict):
    """The issue in one finished run (a dict on the wire and in Python alike)."""

    run_id: str
    run_at: str  # ISO time
    members: int
    status: str


@dataclass
class IssueTicket:
    """The issue's ticket in one tracker, as shown wherever the issue is: ``IssueTicket.of(export_row)``.
    An alert channel (Slack, webhook) shows its target name alone: nothing of its row could hold a secret."""

    target: str
    external_id: str = ""
    url: str = ""
    tracker_state: str = ""  # open or closed, as the tracker last said
    phase: str = ""  # pending, synced or failed
    error: str = ""

    @classmethod
    def of(cls, row: ExportRow) -> IssueTicket:
        if row.target in ALERT_TARGETS:
            return cls(row.target)
        return cls(row.target, row.external_id, row.url, row.tracker_state, row.phase, row.error)


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


def _run_count(data: dict[str, Any]) -> IssueRunCount:
    return IssueRunCount(run_id=data["run_id"], run_at=data["run_at"], members=data["members"],
                         status=data["status"])


def _trends(store: Store, numbers: list[int], runs: int) -> dict[int, list[int]]:
    if not numbers:
        return {}
    last_runs = last_run_ids(store, runs)
    counts = member_counts(store, last_runs, numbers)
    return {n: [counts.get((n, r), 0) for r in last_runs] for n in numbers}


def list_issues(store: Store, *, include_resolved: bool = True, include_hidden: bool = True, trend_runs: int = 8,
                now: datetime | None = None) -> tuple[RunInfo | None, list[IssueRow]]:
    """Issues of the last finished run with their triage: seen ones by size, then the rest by number. A merged
    issue's members count in the issue it was merged into; ``include_hidden=False`` leaves out ignored, muted
    and merged ones."""
    run = latest_run(store)
    if run is None:
        return None, []
    states = issue_states(store, run.run_id)
    triaged = fold(events_of(store))
    snapshot_at = run_time(store, run.run_id)
    now = now or datetime.now(timezone.utc)
    regressed = regressed_at(store, [n for n, t in triaged.items() if t.muted_at is not None], FINISHED_RUNS)
    trends = _trends(store, [s.number for s in states], trend_runs)
    by_number = {s.number: s for s in states}
    parts: dict[int, list[int]] = {}
    for t in triaged.values():  # a merged issue still in this run: its counts go to the one it is part of
        if t.merged_into is None or t.number not in by_number:
            continue
        into = by_number.get(root(triaged, t.number))
        if into is not None:
            merged = by_number[t.number]
            into.members, into.traces, into.share = (into.members + merged.members, into.traces + merged.traces,
                                                     into.share + merged.share)
            trends[into.number] = [a + b for a, b in zip(trends.get(into.number, []), trends.get(t.number, []))]
            parts.setdefault(into.number, [into.number]).append(t.number)
    for number, part_of in parts.items():
        by_number[number].description = _described(store, run.run_id, by_number[number], part_of)
    rows = []
    for s in states:
        found = triaged.get(s.number)
        row = IssueRow.with_trend(s, trends.get(s.number, []))
        if found is not None:
            row.status = found.status(s.status, snapshot_at)
            row.triage = TriageView.of(found, now, regressed.get(s.number))
        if (include_resolved or row.status != "resolved") and (include_hidden or not row.triage.hidden):
            rows.append(row)
    rows.sort(key=lambda r: (-r.members, r.number))
    return run, rows


def issue_list(store: Store, *, include_resolved: bool = True, include_hidden: bool = False) -> IssueList:
    """:func:`list_issues` as one record: what the CLI prints and the read API serves (ignored, muted and merged
    issues only with ``include_hidden``)."""
    run, rows = list_issues(store, include_resolved=include_resolved, include_hidden=include_hidden)
    return IssueList(run, rows)


def get_issue(store: Store, issue_id: str, *, trend_runs: int = 8, max_traces: int = 200,
              now: datetime | None = None) -> IssueDetail | None:
    """One issue as the last finished run left it, with its triage; an issue merged into another answers as
    that one (``asked_as`` names the one asked for)."""
    asked = parse_issue_id(issue_id)
    run_id = latest_run_id(store)
    if run_id is None:
        return None
    triaged = fold(events_of(store))
    number = root(triaged, asked)
    found = issue_states(store, run_id, number)
    if not found:
        return None
    own = issue_history(store, number, FINISHED_RUNS)
    seen = [h["run_id"] for h in own if h["members"] > 0]
    seen_in = seen[-1] if seen else None
    examples = members_of(store, seen_in, number) if seen_in else []
    trace_ids = list(dict.fromkeys(e.trace_id for e in examples))[:max_traces]
    part_of = [number, *merged_numbers(triaged, number)]
    # the issues merged into it count in its history and trend, as they do in its counts
    history = [_run_count(h) for h in _summed_history(own, [issue_history(store, m, FINISHED_RUNS)
                                                            for m in part_of[1:]])]
    trends = _trends(store, part_of, trend_runs)
    trend = [sum(counts) for counts in zip(*(trends[n] for n in part_of))]
    row = IssueRow.with_trend(found[0], trend)
    t = triaged.get(number)
    if t is not None:
        row.status = t.status(row.status, run_time(store, run_id))
        regressed = regressed_at(store, [number], FINISHED_RUNS).get(number) if t.muted_at else None
        row.triage = TriageView.of(t, now or datetime.now(timezone.utc), regressed)
    for merged in issue_states(store, run_id, None) if len(part_of) > 1 else []:
        if merged.number in part_of[1:]:  # still in the last run: its failures count as this issue's, as listed
            row.members, row.traces = row.members + merged.members, row.traces + merged.traces
            row.share = round(row.share + float(merged.share), _SHARE_DIGITS)
    if len(part_of) > 1:
        row.description = _described(store, run_id, row, part_of)
    timeline = sorted([TimelineEntry(datetime.fromisoformat(h["run_at"]), "run", "",
                                     f"{h['members']} failures, {h['status']} (run {h['run_id']})")
                       for h in history] + [TimelineEntry.of_event(e) for e in events_of(store, part_of)],
                      key=lambda e: e.at)
    return IssueDetail(**{f.name: getattr(row, f.name) for f in fields(IssueRow)}, seen_in_run=seen_in,
                       representatives=lead_with_kind([e for e in examples if e.role == REPRESENTATIVE], row),
                       boundary=[e for e in examples if e.role == BOUNDARY], trace_ids=trace_ids, history=history,
                       exports=[IssueTicket.of(r) for r in exports_of(store, number)], timeline=timeline,
                       asked_as=issue_label(asked) if asked != number else "")


def _summed_history(own: list[dict[str, Any]], parts: list[list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """An issue's runs with the members of the issues merged into it added run by run (a run where only a merged
    issue was seen appears with its status)."""
    by_run = {h["run_id"]: dict(h) for h in own}
    for history in parts:
        for h in history:
            if h["run_id"] in by_run:
                by_run[h["run_id"]]["members"] += h["members"]
            else:
                by_run[h["run_id"]] = dict(h)
    return sorted(by_run.values(), key=lambda h: (h["run_at"], h["run_id"]))


def _described(store: Store, run_id: str, issue: Any, part_of: list[int]) -> str:
    """The description of an issue that others were merged into, its figures those of all its parts in the run
    (its counts add theirs, so its own figures alone would disagree with them)."""
    rubrics, modes = kind_counts(store, run_id, part_of)
    if not rubrics:
        return str(issue.description)
    name = ClusterName(issue.title, issue.description, issue.root_cause, issue.fix, issue.severity)
    # a tie names the issue's own kind, which its title names
    return with_figures(name, int(issue.members), rubrics, modes, (issue.rubric, issue.failure_mode)).description


def lead_with_kind(examples: list[Example], issue: IssueView) -> list[Example]:
    """Examples of the issue's own rubric and failure mode first, then by membership: the lead example shows
    the kind the issue is named after (the order the clustering job chose, read back the same way)."""
    return sorted(examples, key=lambda e: ((e.rubric, e.failure_mode) != (issue.rubric, issue.failure_mode),
                                           -e.membership, e.trace_id))


def sparkline(values: list[int]) -> str:
    """Members per run as bars, scaled to the largest: ``▁▃█``."""
    top = max(values, default=0)
    if top <= 0:
        return _BARS[0] * len(values)
    return "".join(_BARS[min(len(_BARS) - 1, round(v / top * (len(_BARS) - 1)))] for v in values)


def trend_label(values: list[int]) -> str:
    """Sparkline and change since the previous run, like ``▂▅█ +7``."""
    if len(values) < 2:
        return sparkline(values) + " new" if values else ""
    delta = values[-1] - values[-2]
    return f"{sparkline(values)} {'+' if delta > 0 else ''}{delta if delta else '='}"

"""Issues as people read them: the list with trends, and one issue with its examples.

    listing = issue_list(store)                      # as the last finished clustering run left them
    listing.run.run_id, listing.issues[0].issue_id, listing.issues[0].trend   # ..., "SW-3", [4, 9, 12]
    detail = get_issue(store, "SW-3")                # description, fix, representatives, trace ids, history

The records (:mod:`sumwatch.monitor.contract.issues`) are what the CLI prints and the API serves (its schema
comes from them). They hold an issue as people read it (:class:`~sumwatch.monitor.contract.issues.IssueView`):
the centroid the clustering job matches on stays in the store's :class:`~sumwatch.monitor.store.issues.IssueState`.

Only finished runs count (a run's row in ``sumwatch_cluster_runs`` is written last), so a run that is
still going, or was killed, never shows half its issues.
"""

from __future__ import annotations

from dataclasses import fields, replace
from datetime import datetime, timezone
from typing import Any

from sumwatch.clustering.name import ClusterName, with_figures

from ..contract.issues import (
    Example,
    IssueDetail,
    IssueList,
    IssueRow,
    IssueRunCount,
    IssueTicket,
    IssueView,
    RunInfo,
    TimelineEntry,
    TriageView,
    issue_label,
    parse_issue_id,
)
from ..store.connection import Store
from ..store.exports import ALERT_TARGETS, ExportRow, exports_of
from ..store.issue_events import IssueEvent, events_of
from ..store.issue_members import BOUNDARY, REPRESENTATIVE, kind_counts, members_of
from ..store.issues import (
    IssueState,
    issue_history,
    issue_states,
    last_states,
    member_counts,
    regressed_at,
    run_time,
)
from ..store.runs import FINISHED_RUNS, last_run_ids, latest_run, latest_run_id
from .triage import Triage, fold, merged_numbers, root

_SHARE_DIGITS = 4  # as IssueState.to_json serves it


def issue_view(state: IssueState) -> IssueView:
    """The issue as ``state``'s run left it, without the centroid; ``share`` as served (4 places)."""
    values = {f.name: getattr(state, f.name) for f in fields(IssueView)}
    values["keywords"] = list(state.keywords)
    values["share"] = round(float(state.share), _SHARE_DIGITS)
    return IssueView(**values)


def issue_row(state: IssueState, trend: list[int]) -> IssueRow:
    """The issue in the list, with its members in each of the last runs (``trend``, oldest first)."""
    return IssueRow.of_view(issue_view(state), trend)


def triage_view(t: Triage | None, now: datetime, regressed: datetime | None) -> TriageView:
    """What people decided about the issue, as of ``now`` (a mute ends when it regressed, at ``regressed``)."""
    if t is None:
        return TriageView()
    muted = t.muted(now, regressed)
    hidden = (f"merged into {issue_label(t.merged_into)}" if t.merged_into is not None
              else "ignored" if t.ignored else "muted" if muted else "")
    return TriageView(t.assignee, t.ignored, muted, t.muted_until if muted else None,
                      issue_label(t.merged_into) if t.merged_into is not None else "",
                      [issue_label(n) for n in sorted(t.merged)], t.comments, hidden)


def timeline_entry(e: IssueEvent) -> TimelineEntry:
    """A triage event as a line of the issue's history."""
    text = (f"{issue_label(e.number)} into {issue_label(int(e.value))}" if e.action == "merge" and e.value.isdigit()
            else f"{issue_label(e.number)} out of {issue_label(int(e.value))}"
            if e.action == "unmerge" and e.value.isdigit() else e.value)
    if e.action == "mute":
        text = f"until {e.value[:16].replace('T', ' ')} UTC" if e.value else "until it regresses"
    return TimelineEntry(e.at, e.action, e.by, text, e.source)


def issue_ticket(row: ExportRow) -> IssueTicket:
    """The issue's ticket in ``row``'s tracker; an alert channel (Slack, webhook) by its target name alone."""
    if row.target in ALERT_TARGETS:
        return IssueTicket(row.target)
    return IssueTicket(row.target, row.external_id, row.url, row.tracker_state, row.phase, row.error)


def _run_count(data: dict[str, Any]) -> IssueRunCount:
    return IssueRunCount(run_id=data["run_id"], run_at=data["run_at"], members=data["members"],
                         status=data["status"])


def issue_trends(store: Store, triaged: dict[int, Triage], numbers: list[int], runs: int) -> dict[int, list[int]]:
    """Each issue's members in each of the last ``runs`` finished runs (oldest first), the members of the issues
    merged into it added run by run: the one trend the list, the issue page, ``issues show`` and tickets show."""
    if not numbers:
        return {}
    parts = {n: [n, *merged_numbers(triaged, n)] for n in numbers}
    last_runs = last_run_ids(store, runs)
    counts = member_counts(store, last_runs, sorted({m for ms in parts.values() for m in ms}))
    return {n: [sum(counts.get((m, r), 0) for m in ms) for r in last_runs] for n, ms in parts.items()}


def run_states(store: Store, run_id: str, triaged: dict[int, Triage], number: int | None = None
               ) -> list[IssueState]:
    """The issues of a run, and those triage knows that the run has no snapshot of (merged into another before
    it, or unmerged since): as their last snapshot left them, with no members of this run (its failures went
    to the issue they were merged into)."""
    states = issue_states(store, run_id, number)
    present = {s.number for s in states}
    missing = [n for n in triaged if n not in present and (number is None or n == number)]
    return states + [replace(s, members=0, traces=0, share=0.0)
                     for s in last_states(store, sorted(missing), FINISHED_RUNS)]


def list_issues(store: Store, *, include_resolved: bool = True, include_hidden: bool = True, trend_runs: int = 8,
                now: datetime | None = None) -> tuple[RunInfo | None, list[IssueRow]]:
    """Issues of the last finished run with their triage: seen ones by size, then the rest by number. A merged
    issue's members count in the issue it was merged into; ``include_hidden=False`` leaves out ignored, muted
    and merged ones."""
    run = latest_run(store)
    if run is None:
        return None, []
    triaged = fold(events_of(store))
    states = run_states(store, run.run_id, triaged)
    snapshot_at = run_time(store, run.run_id)
    now = now or datetime.now(timezone.utc)
    regressed = regressed_at(store, [n for n, t in triaged.items() if t.muted_at is not None], FINISHED_RUNS)
    trends = issue_trends(store, triaged, [s.number for s in states], trend_runs)
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
            parts.setdefault(into.number, [into.number]).append(t.number)
    for number, part_of in parts.items():
        by_number[number].description = _described(store, run.run_id, by_number[number], part_of)
    rows = []
    for s in states:
        found = triaged.get(s.number)
        row = issue_row(s, trends.get(s.number, []))
        if found is not None:
            row.status = found.status(s.status, snapshot_at)
            row.triage = triage_view(found, now, regressed.get(s.number))
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
    found = run_states(store, run_id, triaged, number)
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
    row = issue_row(found[0], issue_trends(store, triaged, [number], trend_runs)[number])
    t = triaged.get(number)
    if t is not None:
        row.status = t.status(row.status, run_time(store, run_id))
        regressed = regressed_at(store, [number], FINISHED_RUNS).get(number) if t.muted_at else None
        row.triage = triage_view(t, now or datetime.now(timezone.utc), regressed)
    for merged in issue_states(store, run_id, None) if len(part_of) > 1 else []:
        if merged.number in part_of[1:]:  # still in the last run: its failures count as this issue's, as listed
            row.members, row.traces = row.members + merged.members, row.traces + merged.traces
            row.share = round(row.share + float(merged.share), _SHARE_DIGITS)
    if len(part_of) > 1:
        row.description = _described(store, run_id, row, part_of)
    timeline = sorted([TimelineEntry(datetime.fromisoformat(h["run_at"]), "run", "",
                                     f"{h['members']} failures, {h['status']} (run {h['run_id']})")
                       for h in history] + [timeline_entry(e) for e in events_of(store, part_of)],
                      key=lambda e: e.at)
    return IssueDetail(**{f.name: getattr(row, f.name) for f in fields(IssueRow)}, seen_in_run=seen_in,
                       representatives=lead_with_kind([e for e in examples if e.role == REPRESENTATIVE], row),
                       boundary=[e for e in examples if e.role == BOUNDARY], trace_ids=trace_ids, history=history,
                       exports=[issue_ticket(r) for r in exports_of(store, number)], timeline=timeline,
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

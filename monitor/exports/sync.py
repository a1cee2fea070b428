"""Export issues to a target and keep their tickets in sync; alerts for new and regressed issues.

    results = export_issues(store, config, "github", ["SW-3"])                 # by hand
    results = export_issues(store, config, "linear", statuses=["new", "regressed"], min_severity="high")
    results = after_clustering(store, config, run_id)                          # the rules, after each run

One ticket per (issue, target), recorded in ``sumwatch_exports``. A ticket that exists is read back (closed in
the tracker?), then: a regressed issue reopens it with a comment, a resolved one comments (and closes it with
``SUMWATCH_EXPORT_CLOSE_RESOLVED``), other triage events become comments (``triage_sends``), and counts and
trend are updated. A failed request is recorded on the row with its reason and tried again on the next export,
never in a loop.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from ..contract.exports import ExportResult
from ..contract.issues import IssueDetail, IssueRow, parse_issue_id
from ..issues.reads import get_issue, list_issues
from ..issues.triage import TriageAction, act
from ..store.connection import Store
from ..store.event_sends import event_sends
from ..store.exports import FAILED, PENDING, SYNCED, ExportRow, exports_of, load_exports, save_export
from ..store.issue_events import IssueEvent, events_of
from .config import ExportConfig, severity_rank
from .payload import IssuePayload, build_payload
from .registry import build_target, target_problems
from .tracker import ALERT, CLOSED, OPEN, Ticket, Tracker
from .transport import ExportError, PermanentError, Uncertain, scrubber
from .triage_sends import pending, resolved_text, send_triage

_log = logging.getLogger("sumwatch.exports")
ALERT_EVENTS = ("new", "regressed")


def select_issues(rows: Sequence[IssueRow], *, issue_ids: Sequence[str] | None = None,
                  statuses: Sequence[str] | None = None, min_severity: str | None = None,
                  min_traces: int = 0) -> list[IssueRow]:
    """The issues a command or rule names: by id, or by status, severity and traces (pure)."""
    if issue_ids:
        wanted = {parse_issue_id(i) for i in issue_ids}
        return [r for r in rows if r.number in wanted]
    floor = severity_rank(min_severity) if min_severity else -1
    return [r for r in rows if (not statuses or r.status in statuses)
            and severity_rank(r.severity) >= floor and r.traces >= min_traces]


def export_issues(store: Store, config: ExportConfig, target: str, issue_ids: Sequence[str] | None = None, *,
                  statuses: Sequence[str] | None = None, min_severity: str | None = None, min_traces: int = 0,
                  dry_run: bool = False, tracker: Tracker | None = None, event: str = "export",
                  keep_in_sync: bool = False) -> list[ExportResult]:
    """Export the chosen issues of the last clustering run to ``target`` (ValueError: a bad target or
    settings, or an issue id that is not there). ``keep_in_sync`` adds every issue that already has a ticket
    there, whatever the filters say: counts, trend, reopening and resolving follow it."""
    own = tracker is None
    tracker = tracker or build_target(target, config)
    run, rows = list_issues(store)
    chosen = select_issues(rows, issue_ids=issue_ids, statuses=statuses, min_severity=min_severity,
                           min_traces=min_traces)
    if issue_ids:
        found = {r.number for r in chosen}
        missing = [i for i in issue_ids if parse_issue_id(i) not in found]
        if missing:
            raise ValueError(f"no issue {', '.join(missing)} in the last clustering run (see `sumwatch issues`)")
    if keep_in_sync and tracker.kind != ALERT:
        ticketed = {n for (n, _), row in load_exports(store, target=target).items() if row.external_id}
        picked = {r.number for r in chosen}
        chosen += [r for r in rows if r.number in ticketed and r.number not in picked]
    known = load_exports(store, numbers=[r.number for r in chosen], target=target) if chosen else {}
    run_id = run.run_id if run else ""
    results = []
    try:
        for row in chosen:
            detail = get_issue(store, row.issue_id)
            if detail is None:
                continue
            payload = build_payload(store, detail, config)
            record = known.get((payload.number, target)) or ExportRow(payload.number, target)
            results.append(_export_one(store, tracker, config, detail, payload, record, run_id, dry_run, event))
    finally:
        if own:
            tracker.close()
    return results


def _export_one(store: Store, tracker: Tracker, config: ExportConfig, detail: IssueDetail, payload: IssuePayload,
                record: ExportRow, run_id: str, dry_run: bool, event: str) -> ExportResult:
    result = ExportResult(tracker.name, payload.issue_id, "", record.external_id, record.url, record.tracker_state)
    if tracker.kind == ALERT:
        if record.run_id == run_id and record.phase == SYNCED:
            result.action = "skipped"  # already told about this issue in this run
            return result
        if dry_run:
            result.action, result.request = "would-alert", tracker.preview(payload, event)
            return result
    elif dry_run:
        result.action = "would-update" if record.external_id else "would-create"
        result.request = tracker.preview(payload, event)
        return result
    scrub = scrubber(config)
    try:
        if tracker.kind == ALERT:
            tracker.send(payload, payload.status if event == "alert" else event)
            result.action = "alerted"
        else:
            ticket, result.action = _sync_ticket(store, tracker, detail, payload, record)
            record.external_id, record.url, record.tracker_state = ticket.external_id, ticket.url, ticket.state
            result.external_id, result.url, result.tracker_state = ticket.external_id, ticket.url, ticket.state
        record.phase, record.error = SYNCED, ""
    except ExportError as exc:
        record.phase, record.error = FAILED, scrub(str(exc))
        result.action, result.error = "failed", record.error
        _log.warning("export of %s to %s failed: %s", payload.issue_id, tracker.name, record.error)
    record.issue_status, record.run_id, record.members = payload.status, run_id, payload.members
    save_export(store, record)
    return result


def _sync_ticket(store: Store, tracker: Tracker, detail: IssueDetail, payload: IssuePayload, record: ExportRow
                 ) -> tuple[Ticket, str]:
    if not record.external_id:
        # triage from before the ticket existed (an assignment, comments, an ignore) follows it as comments
        ticket = _create_once(store, tracker, payload, record)
        try:
            ticket, _ = send_triage(store, tracker, payload.issue_id, ticket, issue_url=payload.issue_url,
                                    resolved=payload.status == "resolved")
        except ExportError as exc:  # the ticket is made: the refused comment is on its row, sent with the next sync
            _log.warning("triage of %s to its new %s ticket failed: %s", payload.issue_id, tracker.name,
                         scrubber(tracker.config)(str(exc)))
        return ticket, "created"
    ticket = tracker.fetch(Ticket(record.external_id, record.url, record.tracker_state))
    action = "updated"
    if (ticket.state == CLOSED and record.tracker_state != CLOSED and payload.status != "resolved"
            and tracker.config.sync_closed(tracker.name)):
        # closed there since the last sync: the team resolved it in the tracker, so it is resolved here, by the
        # tracker; if it comes back it regresses and the ticket reopens
        act(store, payload.issue_id, TriageAction.RESOLVE.value, by=tracker.name, source=f"tracker:{tracker.name}")
        payload.status, record.issue_status = "resolved", "resolved"
        return tracker.update(ticket, payload), "resolved"
    if payload.status == "regressed" and record.issue_status != "regressed":
        if ticket.state == CLOSED:
            ticket = tracker.set_open(ticket, True)
        tracker.comment(ticket, f"sumwatch: {payload.issue_id} regressed: {payload.counts_line()}. "
                                f"{payload.issue_url}".strip())
        action = "reopened"
    elif payload.status == "resolved" and record.issue_status != "resolved":
        said = resolved_text(detail, events_of(store, [payload.number]))  # the detail the payload was built from
        tracker.comment(ticket, f"{said} {payload.issue_url}".strip())
        action = "resolved"
        if tracker.config.export_close_resolved and ticket.state != CLOSED:
            ticket, action = tracker.set_open(ticket, False), "closed"
    ticket, sent = send_triage(store, tracker, payload.issue_id, ticket, issue_url=payload.issue_url,
                               resolved=payload.status == "resolved")
    if sent and action == "updated":
        action = "triage-sent"
    return tracker.update(ticket, payload), action


def _create_once(store: Store, tracker: Tracker, payload: IssuePayload, record: ExportRow) -> Ticket:
    """Create the ticket, or find the one an earlier attempt made: a row left ``pending`` (a create that was
    sent and never confirmed) or a create that timed out is looked up by the marker before it is sent again."""
    if record.phase == PENDING and record.attempts:
        found = tracker.find(payload)
        if found is not None:
            return found
    for _ in range(tracker.config.export_max_attempts):
        record.phase, record.attempts = PENDING, record.attempts + 1
        save_export(store, record)
        try:
            return tracker.create(payload)
        except Uncertain as exc:
            _log.info("%s; looking for the ticket before creating it again", exc)
            found = tracker.find(payload)
            if found is not None:
                return found
    raise PermanentError(f"{tracker.name}: creating {payload.issue_id} timed out "
                         f"{tracker.config.export_max_attempts} times")


def after_clustering(store: Store, config: ExportConfig) -> list[ExportResult]:
    """The automatic exports and alerts of the rules in ``config``, after a clustering run. A target whose
    settings are missing is logged and skipped; the others still run."""
    results: list[ExportResult] = []
    jobs = [(t, "export") for t in _names(config.export_targets)] + [(t, "alert") for t in _names(config.alert_targets)]
    for name, kind in jobs:
        try:
            if kind == "export":
                results += export_issues(store, config, name, statuses=config.statuses(),
                                         min_severity=config.export_min_severity, min_traces=config.export_min_traces,
                                         keep_in_sync=True)
            else:
                results += export_issues(store, config, name, statuses=list(ALERT_EVENTS),
                                         min_severity=config.alert_min_severity, event="alert")
        except ValueError as exc:
            _log.warning("automatic %s to %s skipped: %s", kind, name, exc)
    return results


def triage_to_tickets(store: Store, config: ExportConfig) -> list[ExportResult]:
    """Every ticket gets its issue's unsent triage events, without a full sync: after each sampler pass, so a
    comment reaches the ticket within a pass, whether the ticket came from ``SUMWATCH_EXPORT_TARGETS`` or an export
    by hand. Two reads when nothing waits (the tickets, their issues' events), one more per tracker whose tickets
    have events; a tracker is built only when one of its tickets has something to send. A tracker whose settings
    this process lacks is skipped (logged where it is an export target). A failure is on the rows and in the log."""
    tickets: dict[str, list[ExportRow]] = {}
    for row in load_exports(store).values():
        if row.external_id:
            tickets.setdefault(row.target, []).append(row)
    events: dict[int, list[IssueEvent]] = {}
    for e in events_of(store, sorted({r.number for rows in tickets.values() for r in rows})):
        events.setdefault(e.number, []).append(e)
    targets = _names(config.export_targets)
    results: list[ExportResult] = []
    for name in targets + sorted(t for t in tickets if t not in targets and not target_problems(t, config)):
        records = [r for r in tickets.get(name, []) if r.number in events]
        done = event_sends(store, numbers=[r.number for r in records], target=name) if records else {}
        records = [r for r in records if pending(events[r.number], done, name)]
        if not records:
            continue
        try:
            tracker = build_target(name, config)
        except ValueError as exc:
            _log.warning("triage to %s skipped: %s", name, exc)
            continue
        try:
            if tracker.kind != ALERT:
                results += _to_tickets(store, tracker, records)
        finally:
            tracker.close()
    return results


def _to_tickets(store: Store, tracker: Tracker, records: list[ExportRow]) -> list[ExportResult]:
    results = []
    for record in records:
        ticket = Ticket(record.external_id, record.url, record.tracker_state or OPEN)
        result = ExportResult(tracker.name, record.issue_id, "triage-sent", record.external_id, record.url)
        try:
            ticket, _ = send_triage(store, tracker, record.issue_id, ticket,
                                    issue_url=tracker.config.dashboard_link(f"/issues/{record.issue_id}"),
                                    resolved=record.issue_status == "resolved")
            record.tracker_state, record.phase, record.error = ticket.state, SYNCED, ""
        except ExportError as exc:
            record.phase, record.error = FAILED, scrubber(tracker.config)(str(exc))
            result.action, result.error = "failed", record.error
            _log.warning("triage of %s to %s failed: %s", record.issue_id, tracker.name, record.error)
        result.tracker_state = record.tracker_state
        save_export(store, record)
        results.append(result)
    return results


def _names(text: str) -> list[str]:
    return [n.strip() for n in text.split(",") if n.strip()]


def issue_exports(store: Store, issue_id: str) -> list[ExportRow]:
    """Every external ticket of one issue, with its link, tracker state (closed there?) and last error: for
    ``sumwatch issues show`` and the dashboard's issue page."""
    return exports_of(store, parse_issue_id(issue_id))


def exports_by_issue(store: Store) -> dict[str, list[ExportRow]]:
    """Every issue's tickets, keyed by issue id (``SW-3``): for issue lists."""
    out: dict[str, list[ExportRow]] = {}
    for row in load_exports(store).values():
        out.setdefault(row.issue_id, []).append(row)
    return out

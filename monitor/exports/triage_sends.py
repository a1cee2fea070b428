"""An issue's triage goes to its tickets: reopen, ignore, mute, merge, unmerge, assign and comment each become a
comment on every ticket of the issue (ignore also closes it with ``SUMWATCH_EXPORT_CLOSE_IGNORED``),
sent once per ticket.

    ticket = send_triage(store, tracker, payload.issue_id, ticket)  # inside a sync
    results = triage_to_tickets(store, config)      # after a sampler pass: every ticket with events to send

Resolving is not sent from here: a resolved status, whether a person or a run resolved it, is what the ticket
sync comments on (``resolved_text``: who resolved it and what the runs saw; closed with close-resolved). Events the
tracker itself caused (a ticket closed there) are not echoed back; triage from before a ticket existed follows its
creation as comments, in time order.
An assignee is a sumwatch name. Where ``SUMWATCH_<TRACKER>_ASSIGNEES`` maps it to an account of the tracker
(``"ben=ben-gh"``), assigning sets the ticket's assignee to that account and unassigning clears it; a name it does
not map, or a tracker with no map, gets the comment only, naming the person.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime

from ..contract.issues import IssueDetail, issue_label, parse_issue_id
from ..issues.triage import TriageAction
from ..store.connection import Store
from ..store.event_sends import FAILED, SENT, UNCERTAIN, EventSend, event_sends, save_event_send
from ..store.issue_events import IssueEvent, events_of
from .tracker import CLOSED, Ticket, Tracker
from .transport import ExportError, Uncertain, scrubber

SENT_ACTIONS = (TriageAction.REOPEN, TriageAction.IGNORE, TriageAction.UNIGNORE, TriageAction.MUTE,
                TriageAction.UNMUTE, TriageAction.MERGE, TriageAction.UNMERGE, TriageAction.ASSIGN,
                TriageAction.COMMENT)


def triage_text(event: IssueEvent, tracker_name: str, issue_url: str = "", account: str = "") -> str:
    """The ticket comment one triage event becomes (pure); ``account``: the tracker account an assignment set."""
    issue, who = issue_label(event.number), event.by or "someone"
    action = TriageAction(event.action)
    if action == TriageAction.REOPEN:
        text = f"sumwatch: {issue} was reopened by {who}."
    elif action == TriageAction.IGNORE:
        text = f"sumwatch: {issue} is ignored by {who}: it no longer alerts or shows in sumwatch's lists."
    elif action == TriageAction.UNIGNORE:
        text = f"sumwatch: {issue} is no longer ignored ({who})."
    elif action == TriageAction.MUTE:
        until = f"until {event.value[:16].replace('T', ' ')} UTC" if event.value else "until it regresses"
        text = f"sumwatch: {issue} is muted by {who} {until}."
    elif action == TriageAction.UNMUTE:
        text = f"sumwatch: {issue} is no longer muted ({who})."
    elif action == TriageAction.MERGE:
        into = issue_label(int(event.value))
        text = f"sumwatch: {issue} was merged into {into} by {who}; its failures count as {into}'s from now on."
    elif action == TriageAction.UNMERGE:
        left = issue_label(int(event.value)) if event.value.isdigit() else "the issue it was merged into"
        text = f"sumwatch: {issue} was unmerged from {left} by {who}; it is its own issue again."
    elif action == TriageAction.ASSIGN and event.value and account:
        text = f"sumwatch: {issue} is assigned to {event.value} ({tracker_name} account {account}) by {who}."
    elif action == TriageAction.ASSIGN:
        text = (f"sumwatch: {issue} is assigned to {event.value} by {who} (a sumwatch name, not a {tracker_name} "
                f"account)." if event.value else f"sumwatch: {issue} is unassigned by {who}.")
    else:  # the link before the comment, so the comment ends as written
        return f"sumwatch: {who} commented on {issue}{f' ({issue_url})' if issue_url else ''}:\n\n{event.value}"
    return f"{text} {issue_url}".strip() if issue_url else text


def resolved_text(detail: IssueDetail, events: list[IssueEvent]) -> str:
    """The ticket comment when ``detail`` became resolved (pure): who resolved it, and what the clustering runs saw of
    it. A person's resolve that no run has contradicted since names them and the last run's count (which may still be
    failures); otherwise the runs resolved it, and the comment counts the runs in a row that found none of it."""
    issue, history = detail.issue_id, list(detail.history)
    resolve = next((e for e in reversed(events) if e.action in (TriageAction.RESOLVE, TriageAction.REOPEN)), None)
    if resolve is not None and resolve.action == TriageAction.RESOLVE:
        since = [h for h in history if datetime.fromisoformat(h["run_at"]) > resolve.at]
        if not any(h["members"] for h in since):  # no run found it again after the person resolved it
            text = f"sumwatch: {issue} was resolved by {resolve.by or 'someone'} at {_when(resolve.at)}."
            before = [h for h in history if h not in since]
            if before:
                last = before[-1]
                text += (f" The last clustering run before that ({last['run_id']}, {_when(last['run_at'])}) "
                         + (f"still counted {last['members']} failures in it." if last["members"]
                            else "counted no failures of it."))
            if since:
                text += f" {_runs(len(since))} since found no failures of it."
            return text + " A run that finds it again marks it regressed."
    quiet = 0
    for h in reversed(history):
        if h["members"]:
            break
        quiet += 1
    if not history:
        return f"sumwatch: {issue} is resolved."
    last = history[-1]
    return (f"sumwatch: {issue} is resolved by the clustering runs: no failures of it in the last {_runs(quiet)}"
            f" (the last {last['run_id']}, {_when(last['run_at'])}).")


def _runs(n: int) -> str:
    return f"{n} clustering run{'s' if n != 1 else ''}"


def _when(at: datetime | str) -> str:
    moment = datetime.fromisoformat(at) if isinstance(at, str) else at
    return f"{moment:%Y-%m-%d %H:%M} UTC"


def unsent(store: Store, tracker: Tracker, number: int) -> list[IssueEvent]:
    """The events of issue ``number`` still to go to ``tracker``'s ticket (never sent, or refused last time),
    oldest first: those from before the ticket existed too (the ledger, not the ticket's age, says what went)."""
    return pending(events_of(store, [number]), event_sends(store, numbers=[number], target=tracker.name),
                   tracker.name)


def pending(events: Iterable[IssueEvent], done: Mapping[tuple[int, str, str], EventSend], target: str
            ) -> list[IssueEvent]:
    """Of ``events``, those still to go to ``target``'s tickets given its ledger rows ``done`` (pure): one read of
    each for many tickets, as after a sampler pass."""
    return [e for e in events if e.action in SENT_ACTIONS and e.source != f"tracker:{target}"
            and ((row := done.get((e.number, target, e.event_id))) is None or row.phase == FAILED)]


def send_triage(store: Store, tracker: Tracker, issue_id: str, ticket: Ticket, *, issue_url: str = "",
                resolved: bool = False) -> tuple[Ticket, int]:
    """Send ``issue_id``'s unsent triage events to ``ticket``, in time order: the ticket as it is after them and how
    many went. A refusal is recorded on the event's row and raised (later events wait, keeping the order)."""
    number, sent = parse_issue_id(issue_id), 0
    scrub = scrubber(tracker.config)
    for event in unsent(store, tracker, number):
        action = TriageAction(event.action)
        try:
            if action == TriageAction.REOPEN and ticket.state == CLOSED:
                ticket = tracker.set_open(ticket, True)
            account = _assigned(tracker, ticket, event) if action == TriageAction.ASSIGN else ""
            tracker.comment(ticket, triage_text(event, tracker.name, issue_url, account))
        except Uncertain as exc:  # the tracker may hold the comment: never sent twice
            save_event_send(store, EventSend(number, event.event_id, tracker.name, UNCERTAIN, scrub(str(exc))))
            continue
        except ExportError as exc:
            save_event_send(store, EventSend(number, event.event_id, tracker.name, FAILED, scrub(str(exc))))
            raise
        save_event_send(store, EventSend(number, event.event_id, tracker.name, SENT))
        sent += 1
        ticket = _follow(tracker, ticket, action, resolved)
    return ticket, sent


def _assigned(tracker: Tracker, ticket: Ticket, event: IssueEvent) -> str:
    """Where the tracker maps sumwatch names to its accounts, the ticket's assignee set to ``event``'s (cleared for
    an unassignment): the account it set, or "" (no map, or a name it does not list: nothing is changed)."""
    accounts = tracker.accounts()
    account = accounts.get(event.value, "") if event.value else ""
    if accounts and (account or not event.value):  # setting the same assignee again changes nothing
        tracker.assign(ticket, account or None)
    return account


def _follow(tracker: Tracker, ticket: Ticket, action: TriageAction, resolved: bool) -> Ticket:
    """Ignoring closes the ticket where configured, and un-ignoring opens it again unless the issue is resolved."""
    if not tracker.config.export_close_ignored:
        return ticket
    if action == TriageAction.IGNORE and ticket.state != CLOSED:
        return tracker.set_open(ticket, False)
    if action == TriageAction.UNIGNORE and ticket.state == CLOSED and not resolved:
        return tracker.set_open(ticket, True)
    return ticket

"""Triage of issues: ``sumwatch_issue_events``, one row per thing a person (or a tracker) did to an issue.

    save_event(store, IssueEvent(3, "resolve", by="ana"))        # SW-3 resolved by ana, now
    events_of(store, [3])                                          # SW-3's events, oldest first

Append-only: what an issue's triage state is comes from folding its events in time order
(:mod:`sumwatch.monitor.issues.triage`), so who did what and when is never overwritten. Rows are keyed by
their event id, so a retried write stores one event.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from .connection import Store, as_utc, quote_ident
from .ddl import Table, Target

ISSUE_EVENTS_TABLE = "sumwatch_issue_events"
ISSUE_EVENT_COLUMNS = ("Number", "EventId", "At", "Action", "Actor", "Source", "Value")


def _create(t: Target) -> str:
    return f"""CREATE TABLE IF NOT EXISTS {t.name(ISSUE_EVENTS_TABLE)}{t.on_cluster} (
    Number UInt32,
    EventId String,
    At DateTime64(6),
    Action LowCardinality(String),
    Actor String,
    Source LowCardinality(String),
    Value String
) ENGINE = {t.engine("ReplacingMergeTree", "At")}
ORDER BY (Number, EventId)"""


ISSUE_EVENTS = Table(ISSUE_EVENTS_TABLE, "Number", _create)


def _now() -> datetime:
    return datetime.now(timezone.utc)


def _event_id() -> str:
    return uuid.uuid4().hex


@dataclass(frozen=True)
class IssueEvent:
    """One triage event. ``value`` is what the action needs: the assignee, the comment, the issue number merged
    into, a mute's end as ISO time (empty: until it regresses); ``source`` says where it came from (api,
    cli, dashboard, or the tracker that closed the ticket)."""

    number: int
    action: str
    by: str = ""
    value: str = ""
    source: str = "api"
    at: datetime = field(default_factory=_now)
    event_id: str = field(default_factory=_event_id)

    def row(self) -> tuple[Any, ...]:
        return (self.number, self.event_id, self.at, self.action, self.by, self.source, self.value)


def save_event(store: Store, event: IssueEvent) -> None:
    store.insert(ISSUE_EVENTS_TABLE, [event.row()], ISSUE_EVENT_COLUMNS)


def events_of(store: Store, numbers: list[int] | None = None) -> list[IssueEvent]:
    """The events of the given issues (all issues: None), oldest first."""
    where, params = "", {}
    if numbers is not None:
        if not numbers:
            return []
        where, params = " WHERE Number IN {numbers:Array(UInt32)}", {"numbers": numbers}
    rows = store.query_rows(
        f"SELECT Number, Action, Actor, Value, Source, At, EventId FROM {quote_ident(ISSUE_EVENTS_TABLE)} FINAL"
        f"{where} ORDER BY At, EventId", params)
    return [IssueEvent(int(n), action, by, value, source, as_utc(at), eid)
            for n, action, by, value, source, at, eid in rows]

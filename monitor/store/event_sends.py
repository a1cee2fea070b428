"""``sumwatch_event_sends``: which triage events went to which ticket, so each is sent once.

    sends = event_sends(store, numbers=[3], target="github")    # {(3, "github", event id): EventSend(...)}
    save_event_send(store, EventSend(3, event.event_id, "github", SENT))

One row per (issue number, target, event id), the latest kept (ReplacingMergeTree on ``UpdatedAt``). A row is
``sent`` only after the tracker answered; ``failed`` holds the reason and is tried again on the next sync;
``uncertain`` is a comment whose request timed out (the tracker may hold it), never sent again.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone

from .connection import Store, as_utc, quote_ident
from .ddl import Table, TableRow, Target
from .exports import issue_target_where

EVENT_SENDS_TABLE = "sumwatch_event_sends"
SENT, FAILED, UNCERTAIN = "sent", "failed", "uncertain"


def _create(t: Target) -> str:
    return f"""CREATE TABLE IF NOT EXISTS {t.name(EVENT_SENDS_TABLE)}{t.on_cluster} (
    Number UInt32,
    EventId String,
    Target LowCardinality(String),
    Phase LowCardinality(String),
    Error String,
    UpdatedAt DateTime64(6)
) ENGINE = {t.engine("ReplacingMergeTree", "UpdatedAt")}
ORDER BY (Number, Target, EventId)"""


EVENT_SENDS = Table(EVENT_SENDS_TABLE, "Number", _create)


def _now() -> datetime:
    return datetime.now(timezone.utc)


@dataclass(frozen=True)
class EventSend(TableRow):
    """What became of one triage event in one target's ticket."""

    number: int
    event_id: str
    target: str
    phase: str
    error: str = ""
    updated_at: datetime = field(default_factory=_now)


def save_event_send(store: Store, send: EventSend) -> None:
    store.insert(EVENT_SENDS_TABLE, [send.row()], EventSend.columns())


def event_sends(store: Store, *, numbers: list[int] | None = None, target: str | None = None
                ) -> dict[tuple[int, str, str], EventSend]:
    """The latest row of each (issue number, target, event id), optionally of some issues or one target."""
    where, params = issue_target_where(numbers, target)
    rows = store.query_rows(
        f"SELECT Number, EventId, Target, Phase, Error, UpdatedAt FROM {quote_ident(EVENT_SENDS_TABLE)} FINAL "
        f"WHERE {' AND '.join(where)}", params)
    return {(int(n), tgt, eid): EventSend(int(n), eid, tgt, phase, error, as_utc(at))
            for n, eid, tgt, phase, error, at in rows}

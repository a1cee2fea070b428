"""``sumwatch_alert_states``: what each threshold alert rule last told its target, so a breach is sent once.

    states = alert_states(store)                   # rule key -> AlertState (absent: never fired)
    save_alert_state(store, AlertState("groundedness<0.9/1h/min50@slack", FIRING, 0.84, 212))

One row per rule (its canonical text), the latest kept (ReplacingMergeTree on ``UpdatedAt``). The state is
written only after the message went out: a send that failed leaves the old state, so the next pass tries again.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone

from .connection import Store, as_utc, quote_ident
from .ddl import Table, TableRow, Target

ALERT_STATES_TABLE = "sumwatch_alert_states"
FIRING, OK = "firing", "ok"


def _create(t: Target) -> str:
    return f"""CREATE TABLE IF NOT EXISTS {t.name(ALERT_STATES_TABLE)}{t.on_cluster} (
    RuleKey String,
    State LowCardinality(String),
    Rate Float64,
    Judged UInt64,
    UpdatedAt DateTime64(6)
) ENGINE = {t.engine("ReplacingMergeTree", "UpdatedAt")}
ORDER BY RuleKey"""


ALERT_STATES = Table(ALERT_STATES_TABLE, "cityHash64(RuleKey)", _create)


def _now() -> datetime:
    return datetime.now(timezone.utc)


@dataclass(frozen=True)
class AlertState(TableRow):
    """A rule's last notified state (firing or ok) with the rate and judged count it was sent with."""

    rule_key: str
    state: str
    rate: float
    judged: int
    updated_at: datetime = field(default_factory=_now)


def save_alert_state(store: Store, state: AlertState) -> None:
    store.insert(ALERT_STATES_TABLE, [state.row()], AlertState.columns())


def alert_states(store: Store) -> dict[str, AlertState]:
    """The latest state of every rule that ever fired, by rule key."""
    rows = store.query_rows(
        f"SELECT RuleKey, argMax(State, UpdatedAt), argMax(Rate, UpdatedAt), argMax(Judged, UpdatedAt), "
        f"max(UpdatedAt) FROM {quote_ident(ALERT_STATES_TABLE)} GROUP BY RuleKey")
    return {key: AlertState(key, state, float(rate), int(judged), as_utc(at))
            for key, state, rate, judged, at in rows}

"""External tickets of issues: ``sumwatch_exports``, one row per (issue number, target), the latest kept.

    save_export(store, ExportRow(3, "github", external_id="41", url="https://github.com/o/r/issues/41", ...))
    load_exports(store, numbers=[3])          # {(3, "github"): ExportRow(...)}

A row is written before a ticket is created (phase ``pending``) and again once the tracker answered, so a
create that timed out after the tracker stored it is looked up by its marker instead of being sent twice.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from typing import Any

from .connection import Store, as_utc, quote_ident
from .ddl import Table, Target

EXPORTS_TABLE = "sumwatch_exports"
EXPORT_COLUMNS = ("Number", "Target", "ExternalId", "Url", "Phase", "TrackerState", "IssueStatus", "RunId",
                  "Members", "Error", "Attempts", "CreatedAt", "UpdatedAt")
PENDING, SYNCED, FAILED = "pending", "synced", "failed"
ALERT_TARGETS = ("slack", "webhook")  # alert channels: their rows are never shown beyond the target's name


def _create(t: Target) -> str:
    return f"""CREATE TABLE IF NOT EXISTS {t.name(EXPORTS_TABLE)}{t.on_cluster} (
    Number UInt32,
    Target LowCardinality(String),
    ExternalId String,
    Url String,
    Phase LowCardinality(String),
    TrackerState LowCardinality(String),
    IssueStatus LowCardinality(String),
    RunId String,
    Members UInt32,
    Error String,
    Attempts UInt32,
    CreatedAt DateTime64(6),
    UpdatedAt DateTime64(6)
) ENGINE = {t.engine("ReplacingMergeTree", "UpdatedAt")}
ORDER BY (Number, Target)"""


EXPORTS = Table(EXPORTS_TABLE, "Number", _create)


def _now() -> datetime:
    return datetime.now(timezone.utc)


@dataclass
class ExportRow:
    """The ticket of one issue in one target, as last synced. ``phase``: pending (a create was sent and not yet
    confirmed), synced, failed (``error`` says why; a permanent error is not retried until the next export)."""

    number: int
    target: str
    external_id: str = ""
    url: str = ""
    phase: str = PENDING
    tracker_state: str = ""  # open or closed, as the tracker last said
    issue_status: str = ""  # the sumwatch status at the last sync (new, ongoing, regressed, resolved)
    run_id: str = ""  # the clustering run of the last sync (alerts: at most one per issue per run)
    members: int = 0
    error: str = ""
    attempts: int = 0
    created_at: datetime = field(default_factory=_now)
    updated_at: datetime = field(default_factory=_now)

    @property
    def issue_id(self) -> str:
        return f"SW-{self.number}"

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["issue_id"] = self.issue_id
        data["created_at"] = self.created_at.isoformat()
        data["updated_at"] = self.updated_at.isoformat()
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ExportRow:
        values = {k: data[k] for k in cls.__dataclass_fields__}
        values["created_at"] = datetime.fromisoformat(values["created_at"])
        values["updated_at"] = datetime.fromisoformat(values["updated_at"])
        return cls(**values)

    def row(self) -> tuple[Any, ...]:
        return (self.number, self.target, self.external_id, self.url, self.phase, self.tracker_state,
                self.issue_status, self.run_id, self.members, self.error[:2000], self.attempts, self.created_at,
                self.updated_at)


def save_export(store: Store, row: ExportRow) -> None:
    """Store ``row`` as the latest state of its (issue, target); its ``updated_at`` becomes now."""
    row.updated_at = max(_now(), row.updated_at)
    store.insert(EXPORTS_TABLE, [row.row()], EXPORT_COLUMNS)


def issue_target_where(numbers: list[int] | None, target: str | None) -> tuple[list[str], dict[str, Any]]:
    """The WHERE terms and parameters of a per-ticket table's read: some issues, one target, or all
    (``issue_target_where([3], None)`` is ``(["1", "Number IN ..."], {"numbers": [3]})``)."""
    where: list[str] = ["1"]
    params: dict[str, Any] = {}
    if numbers is not None:
        where.append("Number IN {numbers:Array(UInt32)}")
        params["numbers"] = numbers
    if target is not None:
        where.append("Target = {target:String}")
        params["target"] = target
    return where, params


def load_exports(store: Store, *, numbers: list[int] | None = None, target: str | None = None
                 ) -> dict[tuple[int, str], ExportRow]:
    """The latest row of each (issue number, target), optionally of some issues or one target."""
    where, params = issue_target_where(numbers, target)
    rows = store.query_rows(
        f"SELECT {', '.join(EXPORT_COLUMNS)} FROM {quote_ident(EXPORTS_TABLE)} FINAL "
        f"WHERE {' AND '.join(where)} ORDER BY Number, Target", params)
    out: dict[tuple[int, str], ExportRow] = {}
    for (n, tgt, ext, url, phase, state, status, run, members, error, attempts, created, updated) in rows:
        out[(int(n), tgt)] = ExportRow(int(n), tgt, ext, url, phase, state, status, run, int(members), error,
                                       int(attempts), as_utc(created), as_utc(updated))
    return out


def exports_of(store: Store, number: int) -> list[ExportRow]:
    """The tickets of issue ``number`` (SW-3 -> 3) in every target: link, tracker state and last error, for the
    issue views (``issues show``, the API's issue detail, the dashboard's issue page)."""
    return [row for (n, _), row in load_exports(store, numbers=[number]).items() if n == number]

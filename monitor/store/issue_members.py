"""Members of each issue in each run: ``sumwatch_issue_members``, one row per (run, issue, span).

    members_of(store, run_id, 3)     # SW-3's members in that run, most central first, with their roles
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from .connection import Store, quote_ident
from .ddl import Table, Target

ISSUE_MEMBERS_TABLE = "sumwatch_issue_members"
MEMBER_COLUMNS = ("RunId", "Number", "TraceId", "SpanId", "SpanTimestamp", "ServiceName", "Rubric", "Verdict",
                  "FailureMode", "Membership", "Role", "Evidence", "FailureText", "RunAt")
REPRESENTATIVE, BOUNDARY, MEMBER = "representative", "boundary", "member"


def _create(t: Target) -> str:
    return f"""CREATE TABLE IF NOT EXISTS {t.name(ISSUE_MEMBERS_TABLE)}{t.on_cluster} (
    RunId String,
    Number UInt32,
    TraceId String,
    SpanId String,
    SpanTimestamp DateTime64(9),
    ServiceName LowCardinality(String),
    Rubric LowCardinality(String),
    Verdict LowCardinality(String),
    FailureMode LowCardinality(String),
    Membership Float32,
    Role LowCardinality(String),
    Evidence String CODEC(ZSTD(1)),
    FailureText String CODEC(ZSTD(1)),
    RunAt DateTime64(6)
) ENGINE = {t.engine("ReplacingMergeTree", "RunAt")}
ORDER BY (RunId, Number, TraceId, SpanId)"""


ISSUE_MEMBERS = Table(ISSUE_MEMBERS_TABLE, "cityHash64(RunId)", _create)


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

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Example:
        return cls(**{k: data[k] for k in cls.__dataclass_fields__})


def save_members(store: Store, rows: list[tuple]) -> None:
    """Rows in ``MEMBER_COLUMNS`` order."""
    store.insert(ISSUE_MEMBERS_TABLE, rows, MEMBER_COLUMNS)


def members_of(store: Store, run_id: str, number: int) -> list[Example]:
    rows = store.query_rows(
        f"""SELECT TraceId, SpanId, Rubric, Verdict, FailureMode, Membership, Role, Evidence, FailureText
        FROM {quote_ident(ISSUE_MEMBERS_TABLE)} FINAL WHERE RunId = {{run:String}} AND Number = {{n:UInt32}}
        ORDER BY Membership DESC, TraceId""", {"run": run_id, "n": number})
    return [Example(t, s, r, v, m, round(float(p), 3), role, ev, text) for t, s, r, v, m, p, role, ev, text in rows]

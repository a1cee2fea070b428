"""Members of each issue in each run: ``sumwatch_issue_members``, one row per (run, issue, span).

    members_of(store, run_id, 3)     # SW-3's members in that run, most central first, with their roles
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sumwatch.clustering.represent import is_core

from ..contract.issues import Example
from .connection import Store, quote_ident
from .ddl import Table, TableRow, Target

ISSUE_MEMBERS_TABLE = "sumwatch_issue_members"
REPRESENTATIVE, BOUNDARY, MEMBER = "representative", "boundary", "member"


@dataclass(frozen=True)
class MemberRow(TableRow):
    """One failing span in one issue of one run, as the clustering job writes it.

        save_members(store, [MemberRow("run-1", 3, trace_id, span_id, at, "svc", "factuality", "entity_wrong",
                                       "entity_swap", 0.93, REPRESENTATIVE, evidence, text, run_at)])
    """

    run_id: str
    number: int
    trace_id: str
    span_id: str
    span_timestamp: datetime
    service_name: str
    rubric: str
    verdict: str
    failure_mode: str
    membership: float  # the clusterer's soft membership, 0..1
    role: str  # REPRESENTATIVE, BOUNDARY or MEMBER
    evidence: str
    failure_text: str
    run_at: datetime


MEMBER_COLUMNS = MemberRow.columns()


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


def save_members(store: Store, members: Sequence[MemberRow]) -> None:
    store.insert(ISSUE_MEMBERS_TABLE, [m.row() for m in members], MEMBER_COLUMNS)


def kind_counts(store: Store, run_id: str, numbers: Sequence[int]) -> tuple[dict[str, int], dict[str, int]]:
    """Members of the issues ``numbers`` in a run, counted by rubric and by failure mode (what a description's
    figures sentence is written from)."""
    rubrics: dict[str, int] = {}
    modes: dict[str, int] = {}
    for rubric, mode, n in store.query_rows(
            f"SELECT Rubric, FailureMode, count() FROM {quote_ident(ISSUE_MEMBERS_TABLE)} FINAL "
            f"WHERE RunId = {{run:String}} AND Number IN {{ns:Array(UInt32)}} GROUP BY Rubric, FailureMode",
            {"run": run_id, "ns": list(numbers)}):
        rubrics[rubric] = rubrics.get(rubric, 0) + int(n)
        modes[mode] = modes.get(mode, 0) + int(n)
    return rubrics, modes


def members_of(store: Store, run_id: str, number: int) -> list[Example]:
    rows = store.query_rows(
        f"""SELECT TraceId, SpanId, Rubric, Verdict, FailureMode, Membership, Role, Evidence, FailureText
        FROM {quote_ident(ISSUE_MEMBERS_TABLE)} FINAL WHERE RunId = {{run:String}} AND Number = {{n:UInt32}}
        ORDER BY Membership DESC, TraceId""", {"run": run_id, "n": number})
    return [Example(t, s, r, v, m, round(float(p), 3), role, ev, text, is_core(float(p)))
            for t, s, r, v, m, p, role, ev, text in rows]

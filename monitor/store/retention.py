"""How long spans and what is derived from them are kept: a TTL per table, from ``SUMWATCH_RETENTION_DAYS``.

    apply_retention(store)        # after the migrations; returns the tables whose TTL it changed

The number of days varies by deployment, and a migration's statements are pinned by a checksum, so the
TTL is not a migration: ``migrate`` calls this after the versioned steps, and it compares each table's TTL
with the wanted one and runs ``ALTER TABLE ... MODIFY TTL`` (or ``REMOVE TTL`` for 0, keep everything)
only where they differ. Several replicas running it at once issue the same ALTER, which is idempotent.
On a cluster the TTL goes on each ``_local`` table (ON CLUSTER); a Distributed table holds no rows.

Calibration corpora, baselines, watermarks, issues, runs and exports are never expired: they are small
and they are the product's memory.
"""

from __future__ import annotations

import re

from sumwatch.tracer.otel_traces import TRACE_ID_TS_TABLE, TRACES_TABLE

from .connection import Store, quote_ident
from .ddl import Target
from .genai_events import GENAI_EVENTS_TABLE
from .issue_members import ISSUE_MEMBERS_TABLE
from .recognised import RECOGNISED_TABLE
from .score_sends import SCORE_SENDS_TABLE
from .scores import SCORES_TABLE

# table -> the time its rows age by. A table that does not exist (yet) is skipped; the last four are the
# dashboard's tables (store/span_facts.py, score_facts.py, projections.py, span_keys.py), named here so
# this module stays below them.
RETAINED: dict[str, str] = {
    TRACES_TABLE: "toDateTime(Timestamp)",
    TRACE_ID_TS_TABLE: "toDateTime(Start)",
    SCORES_TABLE: "toDateTime(SpanTimestamp)",
    ISSUE_MEMBERS_TABLE: "toDateTime(RunAt)",
    GENAI_EVENTS_TABLE: "toDateTime(Timestamp)",  # the calls' messages: they go with their spans
    RECOGNISED_TABLE: "toDateTime(Timestamp)",  # the texts read from those spans, likewise
    SCORE_SENDS_TABLE: "toDateTime(SpanTimestamp)",  # which verdicts went out: they go with the scores
    "sumwatch_span_facts": "toDateTime(Timestamp)",
    "sumwatch_score_facts": "toDateTime(SpanTimestamp)",
    "sumwatch_projections": "toDateTime(RunAt)",
    "sumwatch_span_keys": "toDateTime(Timestamp)",
}

_TTL = re.compile(r"\bTTL\s+(.+?)(?:\s+SETTINGS\s|\s*$)", re.S)


def ttl_clause(column: str, days: int) -> str:
    """The TTL expression as ClickHouse prints it back in SHOW CREATE TABLE."""
    return f"{column} + toIntervalDay({days})"


def current_ttls(store: Store, t: Target) -> dict[str, str | None]:
    """Table -> its table TTL expression (None without one), for the retained tables that exist."""
    names = {t.local(table): table for table in RETAINED}
    rows = store.query_rows(
        "SELECT name, create_table_query FROM system.tables "
        "WHERE database = {db:String} AND name IN {names:Array(String)}",
        {"db": t.database, "names": list(names)})
    out: dict[str, str | None] = {}
    for name, create in rows:
        found = _TTL.search(create.split(" ENGINE = ", 1)[-1])
        out[names[name]] = found.group(1).strip() if found else None
    return out


def apply_retention(store: Store, days: int | None = None) -> list[str]:
    """Set (or remove, for 0) the TTL of every retained table; return the tables changed."""
    days = store.settings.store.retention_days if days is None else days
    t = Target(store.database, store.cluster)
    changed = []
    for table, current in current_ttls(store, t).items():
        wanted = ttl_clause(RETAINED[table], days) if days else None
        if current == wanted:
            continue
        action = f"MODIFY TTL {wanted}" if wanted else "REMOVE TTL"
        store.command(f"ALTER TABLE {quote_ident(t.database)}.{quote_ident(t.local(table))}{t.on_cluster} {action}")
        changed.append(table)
    return changed


def retention_ddl(t: Target) -> list[str]:
    """Migration 6: the scores table (partitioned by month) drops a partition once all its rows expired,
    instead of rewriting parts row by row; otel_traces has had this setting from the start."""
    return [f"ALTER TABLE {t.name(SCORES_TABLE)}{t.on_cluster} MODIFY SETTING ttl_only_drop_parts = 1"]

"""Job progress kept in ClickHouse, so a restarted job resumes where the last one stopped.

    position = read_watermark(store, "sampler/cascade-1/0of1")     # 0 when the job never ran
    advance_watermark(store, "sampler/cascade-1/0of1", position_ns, processed=200)

A watermark only moves after the work it covers is stored (callers write results first).
"""

from __future__ import annotations

from datetime import datetime, timezone

from .connection import Store
from .ddl import Table, Target

WATERMARKS_TABLE = "sumwatch_watermarks"


def _create(t: Target) -> str:
    return f"""CREATE TABLE IF NOT EXISTS {t.name(WATERMARKS_TABLE)}{t.on_cluster} (
    Name String,
    Position DateTime64(9),
    Processed UInt64,
    UpdatedAt DateTime64(6)
) ENGINE = {t.engine("ReplacingMergeTree", "UpdatedAt")}
ORDER BY Name"""


WATERMARKS = Table(WATERMARKS_TABLE, "cityHash64(Name)", _create)


def read_watermark(store: Store, name: str) -> int:
    """Position in nanoseconds since the epoch (0 when unset)."""
    rows = store.query_rows(
        f"SELECT toUnixTimestamp64Nano(argMax(Position, UpdatedAt)), count() FROM {WATERMARKS_TABLE} "
        f"WHERE Name = {{name:String}}", {"name": name})
    position, present = rows[0]
    return int(position) if present else 0


def advance_watermark(store: Store, name: str, position_ns: int, processed: int) -> None:
    """Move forward only: a lower position than the stored one is ignored."""
    if position_ns <= read_watermark(store, name):
        return
    # raw nanoseconds: a datetime would round the position to microseconds
    store.insert(WATERMARKS_TABLE, [(name, position_ns, processed, datetime.now(timezone.utc))],
                 ["Name", "Position", "Processed", "UpdatedAt"])

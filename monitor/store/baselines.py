"""Calibration baselines: ``sumwatch_calibration_baselines``, one row per (rubric, judge version).

    record_baseline(store, "factuality", "cascade-1/...", kappa=0.71, bucket_kappas={"pass": 0.8}, items=120,
                    corpus_hash="ab12...")
    latest_baseline(store, "factuality")     # ("cascade-1/...", 0.71, {"pass": 0.8}) or None
"""

from __future__ import annotations

from datetime import datetime, timezone

from .connection import Store
from .ddl import Table, Target

BASELINES_TABLE = "sumwatch_calibration_baselines"


def _create(t: Target) -> str:
    return f"""CREATE TABLE IF NOT EXISTS {t.name(BASELINES_TABLE)}{t.on_cluster} (
    Rubric LowCardinality(String),
    JudgeVersion String,
    Kappa Float64,
    BucketKappas Map(String, Float64),
    Items UInt32,
    CorpusHash String,
    RecordedAt DateTime64(6)
) ENGINE = {t.engine("ReplacingMergeTree", "RecordedAt")}
ORDER BY (Rubric, JudgeVersion)"""


BASELINES = Table(BASELINES_TABLE, "cityHash64(Rubric)", _create)


def latest_baseline(store: Store, rubric: str) -> tuple[str, float, dict[str, float]] | None:
    """The newest baseline of the rubric, any judge version: (judge version, kappa, kappa per bucket)."""
    rows = store.query_rows(
        f"SELECT JudgeVersion, Kappa, BucketKappas FROM {BASELINES_TABLE} FINAL WHERE Rubric = {{r:String}} "
        f"ORDER BY RecordedAt DESC LIMIT 1", {"r": rubric})
    return (rows[0][0], float(rows[0][1]), dict(rows[0][2])) if rows else None


def record_baseline(store: Store, rubric: str, judge_version: str, *, kappa: float, bucket_kappas: dict[str, float],
                    items: int, corpus_hash: str) -> None:
    store.insert(BASELINES_TABLE, [(rubric, judge_version, kappa, bucket_kappas, items, corpus_hash,
                                    datetime.now(timezone.utc))],
                 ["Rubric", "JudgeVersion", "Kappa", "BucketKappas", "Items", "CorpusHash", "RecordedAt"])

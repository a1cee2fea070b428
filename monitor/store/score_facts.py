"""``sumwatch_score_facts``: the latest judgement of each (span, rubric), narrow, for the dashboard's rates.

    score_facts_ddl(target)    # the table, the view that fills it from sumwatch_scores, and the backfill

Pass rates count each (span, rubric) once, by its latest judgement across judge versions. Over 2M stored
scores that is a GROUP BY on two strings per row: 1.4 s, against a goal of 300 ms per dashboard call
(``tests/bench/dashboard.py``). A view copies each judgement into this table keyed by one number per span
(``SpanKey``, a hash of trace and span id) and the rubric, a ReplacingMergeTree on ``ScoredAt``, so the
newest judgement is the row kept, whatever the judge version; judge errors are not copied (they are not
judgements, and would replace the last real one). ``TraceHash`` shards it like the scores on a cluster.
"""

from __future__ import annotations

from ..rubrics.verdicts import ERROR
from .connection import quote_ident
from .ddl import Table, Target
from .scores import SCORES_TABLE

SCORE_FACTS_TABLE = "sumwatch_score_facts"
SCORE_FACTS_VIEW = "sumwatch_score_facts_mv"
SPAN_KEY = "cityHash64(TraceId, SpanId)"  # the same number for a span in every table that has the ids


def _create(t: Target) -> str:
    return f"""CREATE TABLE IF NOT EXISTS {t.name(SCORE_FACTS_TABLE)}{t.on_cluster} (
    SpanKey UInt64,
    Rubric LowCardinality(String),
    TraceHash UInt64,
    SpanTimestamp DateTime64(9) CODEC(Delta(8), ZSTD(1)),
    ServiceName LowCardinality(String),
    Passed UInt8,
    ScoredAt DateTime64(6) CODEC(Delta(8), ZSTD(1))
) ENGINE = {t.engine("ReplacingMergeTree", "ScoredAt")}
PARTITION BY toYYYYMM(SpanTimestamp)
ORDER BY (SpanKey, Rubric)"""


SCORE_FACTS = Table(SCORE_FACTS_TABLE, "TraceHash", _create)

_SELECT = (f"SELECT {SPAN_KEY} AS SpanKey, Rubric, cityHash64(TraceId) AS TraceHash, SpanTimestamp, ServiceName, "
           f"Passed, ScoredAt")
_WHERE = f"WHERE Verdict != '{ERROR}'"


def score_facts_view_ddl(t: Target) -> list[str]:
    """The view filling the table from each insert into the scores (local tables on a cluster), then a
    backfill of the scores stored before it, through the canonical names."""
    db = quote_ident(t.database)
    view = (f"CREATE MATERIALIZED VIEW IF NOT EXISTS {db}.{quote_ident(t.local(SCORE_FACTS_VIEW))}{t.on_cluster}\n"
            f"TO {t.name(SCORE_FACTS_TABLE)}\nAS {_SELECT}\nFROM {t.name(SCORES_TABLE)}\n{_WHERE}")
    backfill = (f"INSERT INTO {db}.{quote_ident(SCORE_FACTS_TABLE)}\n{_SELECT}\n"
                f"FROM {db}.{quote_ident(SCORES_TABLE)}\n{_WHERE}")
    return [view, backfill]

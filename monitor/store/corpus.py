"""Calibration corpora: ``sumwatch_corpus``, one row per (rubric, item), and the checks of an item's rubric and
verdicts (the record is :class:`~sumwatch.monitor.contract.calibration.CorpusItem`).

    save_items(store, [CorpusItem(rubric="factuality", source=..., summary=..., human_verdict="correct")])
    load_items(store, rubric="factuality", status=LABELLED)

A corpus item is (rubric, source, summary or claim, human verdict, failure-mode bucket, origin, status).
Only ``labelled`` items count in calibration; promoted examples wait as ``needs_label`` until a person
labels them, and an item whose labellers disagree waits as ``disputed`` until someone resolves it (the
labels themselves are in :mod:`.corpus_labels`). The table is a ReplacingMergeTree on (rubric, item id):
saving an item again replaces it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime, timezone
from typing import Any

from ..contract.calibration import LABELLED, CorpusItem
from ..contract.values import RUBRIC_NAME
from ..rubrics.verdicts import RUBRICS, VERDICTS, SummaryCase
from .connection import Store, equals_filter, quote_ident
from .ddl import Table, Target
from .paging import CORPUS_CURSOR, decode_cursor, encode_cursor

CORPUS_TABLE = "sumwatch_corpus"
CORPUS_COLUMNS = ("ItemId", "Rubric", "Source", "Summary", "Claim", "HumanVerdict", "ProposedVerdict", "Bucket",
                  "Origin", "Status", "Band", "ExpectedFacts", "TraceId", "SpanId", "Note", "Example", "UpdatedAt")


def _create(t: Target) -> str:
    return f"""CREATE TABLE IF NOT EXISTS {t.name(CORPUS_TABLE)}{t.on_cluster} (
    ItemId String,
    Rubric LowCardinality(String),
    Source String CODEC(ZSTD(3)),
    Summary String CODEC(ZSTD(3)),
    Claim String CODEC(ZSTD(1)),
    HumanVerdict LowCardinality(String),
    ProposedVerdict LowCardinality(String),
    Bucket LowCardinality(String),
    Origin LowCardinality(String),
    Status LowCardinality(String),
    Band LowCardinality(String),
    ExpectedFacts Array(String),
    TraceId String,
    Note String,
    UpdatedAt DateTime64(6)
) ENGINE = {t.engine("ReplacingMergeTree", "UpdatedAt")}
ORDER BY (Rubric, ItemId)"""


CORPUS = Table(CORPUS_TABLE, "cityHash64(ItemId)", _create)


def corpus_example_ddl(t: Target) -> list[str]:
    """The column marking a labelled hard case as a few-shot example (added after the table was made; on a
    cluster, to the local tables and to the Distributed front)."""
    column = "ADD COLUMN IF NOT EXISTS Example Bool DEFAULT false AFTER Note"
    out = [f"ALTER TABLE {t.name(CORPUS_TABLE)}{t.on_cluster} {column}"]
    if t.cluster:
        out.append(f"ALTER TABLE {quote_ident(t.database)}.{quote_ident(CORPUS_TABLE)}{t.on_cluster} {column}")
    return out


def check_item(item: CorpusItem) -> CorpusItem:
    """``item`` when its rubric is built in or a rubric name and its verdicts are its built-in rubric's; ValueError
    otherwise (the item checks its own shape when it is made). A custom rubric's verdicts are checked against its
    definition when a judge is tested on them."""
    if item.rubric not in RUBRICS and not RUBRIC_NAME.fullmatch(item.rubric):
        raise ValueError(f"rubric {item.rubric!r} is neither built in ({', '.join(RUBRICS)}) nor a rubric name "
                         f"(lower-case letters, digits and _)")
    for name, verdict in (("human_verdict", item.human_verdict), ("proposed_verdict", item.proposed_verdict)):
        if verdict and item.rubric in VERDICTS and verdict not in VERDICTS[item.rubric]:
            raise ValueError(f"{name} {verdict!r} is not a {item.rubric} verdict "
                             f"(one of {', '.join(VERDICTS[item.rubric])})")
    return item


def item_case(item: CorpusItem) -> SummaryCase:
    """The item as a case a judge scores."""
    return SummaryCase(item.source, item.text, item.band or None, item.expected_facts)


def _row(item: CorpusItem, at: datetime) -> tuple[Any, ...]:
    return (item.item_id, item.rubric, item.source, item.summary, item.claim, item.human_verdict,
            item.proposed_verdict, item.bucket, item.origin, item.status, item.band, list(item.expected_facts),
            item.trace_id, item.span_id, item.note, item.example, at)


def save_items(store: Store, items: Sequence[CorpusItem]) -> int:
    """Store ``items`` (each replaces the item of its id); ValueError, before any is stored, for one that
    :func:`check_item` refuses."""
    for item in items:
        check_item(item)
    at = datetime.now(timezone.utc)
    store.insert(CORPUS_TABLE, [_row(i, at) for i in items], CORPUS_COLUMNS)
    return len(items)


def load_items(store: Store, rubric: str | None = None, status: str | None = None,
               item_id: str | None = None, *, limit: int | None = None, cursor: str | None = None
               ) -> list[CorpusItem]:
    """Items by rubric, bucket and id; every match, or with ``limit`` a page, and with ``cursor`` (from
    :func:`next_corpus_cursor`) the page after the one it came from.

        page = load_items(store, rubric="factuality", limit=500)
        more = load_items(store, rubric="factuality", limit=500, cursor=next_corpus_cursor(page, 500))

    An item relabelled into another bucket during a walk moves: it may be given twice or not at all.
    """
    if limit is not None and limit < 1:
        raise ValueError(f"limit must be at least 1, got {limit}")
    params: dict[str, Any] = {}
    where = equals_filter(params, Rubric=rubric, Status=status, ItemId=item_id)
    if cursor is not None:
        params["c_r"], params["c_b"], params["c_i"] = decode_cursor(CORPUS_CURSOR, cursor, (str, str, str))
        where += " AND (Rubric, Bucket, ItemId) > ({c_r:String}, {c_b:String}, {c_i:String})"
    if limit is not None:
        params["limit"] = limit
    rows = store.query_rows(
        f"SELECT {', '.join(CORPUS_COLUMNS[:-1])} FROM {CORPUS_TABLE} FINAL WHERE {where} "
        f"ORDER BY Rubric, Bucket, ItemId{' LIMIT {limit:UInt32}' if limit is not None else ''}", params)
    return _items(rows)


def count_items(store: Store, rubric: str | None = None, status: str | None = None) -> int:
    """How many items :func:`load_items` would give with these filters and no limit."""
    params: dict[str, Any] = {}
    where = equals_filter(params, Rubric=rubric, Status=status)
    rows = store.query_rows(f"SELECT count() FROM {CORPUS_TABLE} FINAL WHERE {where}", params)
    return int(rows[0][0]) if rows else 0


def _items(rows: Sequence[Sequence[Any]]) -> list[CorpusItem]:
    return [CorpusItem(rubric=r, source=src, summary=summ, claim=claim, human_verdict=hv, proposed_verdict=pv,
                       bucket=bucket, origin=origin, status=status_, band=band, expected_facts=tuple(facts),
                       trace_id=tid, span_id=sid, note=note, item_id=iid, example=bool(example))
            for iid, r, src, summ, claim, hv, pv, bucket, origin, status_, band, facts, tid, sid, note, example in rows]


def next_corpus_cursor(page: Sequence[CorpusItem], limit: int) -> str | None:
    """The cursor of the page after ``page`` (read with ``limit``), or None when it was the last page."""
    if len(page) < limit or not page:
        return None
    last = page[-1]
    return encode_cursor(CORPUS_CURSOR, (last.rubric, last.bucket, last.item_id))


def existing_ids(store: Store, ids: Iterable[str]) -> set[str]:
    ids = list(ids)
    if not ids:
        return set()
    rows = store.query_rows(f"SELECT DISTINCT ItemId FROM {CORPUS_TABLE} WHERE ItemId IN {{ids:Array(String)}}",
                            {"ids": ids})
    return {r[0] for r in rows}


def example_items(store: Store, rubric: str) -> list[CorpusItem]:
    """The labelled items of ``rubric`` marked as few-shot example candidates (``corpus label ... --example``)."""
    return _items(store.query_rows(
        f"SELECT {', '.join(CORPUS_COLUMNS[:-1])} FROM {CORPUS_TABLE} FINAL "
        f"WHERE Rubric = {{r:String}} AND Example AND Status = {{s:String}} ORDER BY ItemId",
        {"r": rubric, "s": LABELLED}))

"""Labels of calibration items: ``sumwatch_corpus_labels``, one row per (item, labeller) and the resolutions.

    save_label(store, CorpusLabel("3f2a...", "factuality", "ana", "numerically_wrong"))
    labels_of(store, ["3f2a..."])          # {"3f2a...": [the latest label of each labeller, oldest first]}

Every labeller's label is kept (a second label by the same person replaces their first), so the agreement
between people can be measured; a ``resolution`` row is the final word on an item they disagree on, with
who gave it. What an item's verdict is comes from folding these rows
(:mod:`sumwatch.monitor.calibration.labels`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from sumwatch.tracer.vocabulary import Choice

from .connection import Store, as_utc, quote_ident
from .corpus import CORPUS_TABLE
from .ddl import Table, Target

CORPUS_LABELS_TABLE = "sumwatch_corpus_labels"
LABEL_COLUMNS = ("ItemId", "Rubric", "Kind", "Labeller", "Verdict", "Note", "At")


class LabelKind(Choice):
    """A person's label of an item, or the resolution of a disagreement between labellers."""

    LABEL = "label"
    RESOLUTION = "resolution"


LABEL, RESOLUTION = LabelKind.values()


def _create(t: Target) -> str:
    return f"""CREATE TABLE IF NOT EXISTS {t.name(CORPUS_LABELS_TABLE)}{t.on_cluster} (
    ItemId String,
    Rubric LowCardinality(String),
    Kind LowCardinality(String),
    Labeller String,
    Verdict LowCardinality(String),
    Note String,
    At DateTime64(6)
) ENGINE = {t.engine("ReplacingMergeTree", "At")}
ORDER BY (Rubric, ItemId, Kind, Labeller)"""


CORPUS_LABELS = Table(CORPUS_LABELS_TABLE, "cityHash64(ItemId)", _create)


def corpus_span_ddl(t: Target) -> list[str]:
    """The span an item was labelled from (its provenance beside the trace id), added after the table was made;
    on a cluster, to the local tables and to the Distributed front."""
    column = "ADD COLUMN IF NOT EXISTS SpanId String DEFAULT '' AFTER TraceId"
    out = [f"ALTER TABLE {t.name(CORPUS_TABLE)}{t.on_cluster} {column}"]
    if t.cluster:
        out.append(f"ALTER TABLE {quote_ident(t.database)}.{quote_ident(CORPUS_TABLE)}{t.on_cluster} {column}")
    return out


def _now() -> datetime:
    return datetime.now(timezone.utc)


@dataclass(frozen=True)
class CorpusLabel:
    """One person's verdict on one item (``kind`` label), or the verdict that settles a disagreement."""

    item_id: str
    rubric: str
    labeller: str
    verdict: str
    kind: str = LABEL
    note: str = ""
    at: datetime = field(default_factory=_now)

    def row(self) -> tuple[Any, ...]:
        return (self.item_id, self.rubric, self.kind, self.labeller, self.verdict, self.note, self.at)


def save_label(store: Store, label: CorpusLabel) -> None:
    store.insert(CORPUS_LABELS_TABLE, [label.row()], LABEL_COLUMNS)


def labels_of(store: Store, item_ids: Sequence[str] | None = None, *, rubric: str | None = None
              ) -> dict[str, list[CorpusLabel]]:
    """The labels and resolutions of the given items (every item: None), per item, oldest first."""
    where: list[str] = ["1"]
    params: dict[str, Any] = {}
    if item_ids is not None:
        if not item_ids:
            return {}
        where.append("ItemId IN {ids:Array(String)}")
        params["ids"] = list(item_ids)
    if rubric is not None:
        where.append("Rubric = {rubric:String}")
        params["rubric"] = rubric
    rows = store.query_rows(
        f"SELECT ItemId, Rubric, Labeller, Verdict, Kind, Note, At FROM {quote_ident(CORPUS_LABELS_TABLE)} FINAL "
        f"WHERE {' AND '.join(where)} ORDER BY At, Labeller", params)
    out: dict[str, list[CorpusLabel]] = {}
    for iid, r, labeller, verdict, kind, note, at in rows:
        out.setdefault(iid, []).append(CorpusLabel(iid, r, labeller, verdict, kind, note, as_utc(at)))
    return out

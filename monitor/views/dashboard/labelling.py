"""The labelling queue and the calibration table, and the label a person gives from the page.

    context = queue_page(store, rubric=None)     # needs_label items, the verdicts to pick from, the table
    item = label(store, item_id, "entity_wrong") # through calibration.corpus.label_item

The calibration table has two parts per rubric: the judge's proposals against the labels people gave
here (Cohen's kappa overall and per failure-mode bucket, from :func:`calibration.gate.agreement`, so it
moves as items are labelled), and the last baseline ``sumwatch calibrate`` recorded over the whole corpus.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...calibration.corpus import label_item
from ...calibration.gate import CalibrationReport, agreement
from ...rubrics.definition import JudgeDefinition
from ...store.baselines import latest_baseline
from ...store.connection import Store
from ...store.corpus import LABELLED, NEEDS_LABEL, REJECTED, CorpusItem, load_items
from ...store.judges import active_definitions
from .query import BadRequest

QUEUE_PAGE = 100  # items on the page at once (each carries its source); the next ones come after a reload
LIVE_VERSION = "proposals"  # the judge version a live report names: the proposed verdicts themselves


@dataclass(frozen=True)
class QueueItem:
    item: CorpusItem
    verdicts: list[str]  # this rubric's verdicts, passing first: the number keys pick them in this order
    fail_verdict: str  # what the f key gives: the proposal when it fails, else the first failing verdict


@dataclass(frozen=True)
class CalibrationRow:
    rubric: str
    labelled: int
    waiting: int
    rejected: int
    live: CalibrationReport | None  # proposals vs people's labels, None before any promoted item is labelled
    baseline: tuple[str, float, dict[str, float]] | None  # the last `sumwatch calibrate` that held


def _queue_item(item: CorpusItem, definition: JudgeDefinition) -> QueueItem:
    verdicts = list(definition.overall)
    failing = [v for v in verdicts if v not in definition.passing]
    proposal = item.proposed_verdict
    return QueueItem(item, verdicts, proposal if proposal in failing else failing[0])


def calibration_rows(store: Store, definitions: dict[str, JudgeDefinition] | None = None) -> list[CalibrationRow]:
    """Per rubric the database knows: corpus counts, the live agreement of the judge's proposals with
    people, the baseline."""
    definitions = active_definitions(store) if definitions is None else definitions
    labelled = load_items(store, status=LABELLED)
    waiting = load_items(store, status=NEEDS_LABEL)
    rejected = load_items(store, status=REJECTED)
    rows = []
    for rubric, definition in definitions.items():
        proposed = [i for i in labelled if i.rubric == rubric and i.proposed_verdict]
        live = (agreement(rubric, proposed, [i.proposed_verdict for i in proposed], LIVE_VERSION,
                          passing=definition.passing) if proposed else None)
        rows.append(CalibrationRow(rubric, sum(i.rubric == rubric for i in labelled),
                                   sum(i.rubric == rubric for i in waiting), sum(i.rubric == rubric for i in rejected),
                                   live, latest_baseline(store, rubric)))
    return rows


def queue_page(store: Store, rubric: str | None) -> dict[str, Any]:
    """The waiting items, each with its rubric's verdicts as its active definition lists them."""
    definitions = active_definitions(store)
    if rubric is not None and rubric not in definitions:
        raise BadRequest(f"rubric must be one of {', '.join(definitions)}, got {rubric[:40]!r}")
    # an item of a rubric with no definition here (imported before its judge was promoted) cannot be offered
    items = [i for i in load_items(store, rubric=rubric, status=NEEDS_LABEL) if i.rubric in definitions]
    return {"items": [_queue_item(i, definitions[i.rubric]) for i in items[:QUEUE_PAGE]], "waiting": len(items),
            "rubric": rubric or "", "rubrics": tuple(definitions), "calibration": calibration_rows(store, definitions)}


def label(store: Store, item_id: str, verdict: str) -> CorpusItem:
    """A person's verdict (or ``rejected``) on a waiting item. KeyError: no such item; BadRequest: a
    verdict the item's rubric does not have."""
    if not item_id or len(item_id) > 64 or not item_id.isalnum():
        raise BadRequest("an item id is letters and digits (as `sumwatch corpus list` shows it)")
    found = load_items(store, item_id=item_id)
    if not found:
        raise KeyError(item_id)
    rubric = found[0].rubric
    definition = active_definitions(store).get(rubric)
    verdicts = definition.overall if definition is not None else ()
    if verdict != REJECTED and verdict not in verdicts:
        raise BadRequest(f"verdict must be one of {', '.join(verdicts)} (or rejected) for {rubric}, "
                         f"got {verdict[:40]!r}")
    return label_item(store, item_id, verdict)

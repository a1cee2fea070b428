"""The labelling queue and the calibration table, and the label a person gives from the page.

    context = queue_page(store, rubric=None, show="waiting", page=1)   # a page of items, the table, agreement
    item = label(store, item_id, "entity_wrong", by="ana")             # through calibration.corpus.label_item

Each item shows the judge's explanation of its span (when the span was judged) with the evidence marked in
source and summary as the trace and issue pages mark it, and every labeller's label. Who labels is the name
given on the page, kept for the browser session in the triage form's cookie.

The calibration table has two parts per rubric: the judge's proposals against the labels people gave
here (Cohen's kappa overall and per failure-mode bucket, from :func:`calibration.gate.agreement`, so it
moves as items are labelled), and the last baseline ``sumwatch calibrate`` recorded over the whole corpus.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from markupsafe import Markup
from pydantic import Field

from ...calibration.corpus import label_item
from ...calibration.gate import agreement
from ...calibration.labels import ItemLabels, LabelError, item_labels, label_trace, labeller_agreement, resolve_item
from ...contract.calibration import DISPUTED, LABELLED, NEEDS_LABEL, REJECTED, CalibrationReport, CorpusItem
from ...contract.scores import ScoreRecord
from ...contract.values import choice_error
from ...rubrics.definition import JudgeDefinition
from ...rubrics.verdicts import HUMAN
from ...store.baselines import latest_baseline
from ...store.connection import Store
from ...store.corpus import count_items, load_items
from ...store.judges import active_definitions, known_rubrics
from ...store.scores import list_scores
from .evidence import evidence_phrases, highlight
from .query import BadRequest, PageQuery, PageText

QUEUE_PAGE = 10  # items on a page (each carries its source and summary)
# what the queue lists: the statuses of each view
VIEWS = {"waiting": (NEEDS_LABEL,), "disputed": (DISPUTED,), "labelled": (LABELLED,), "rejected": (REJECTED,),
         "all": (NEEDS_LABEL, DISPUTED, LABELLED, REJECTED)}
LIVE_VERSION = "proposals"  # the judge version a live report names: the proposed verdicts themselves


@dataclass(frozen=True)
class QueueItem:
    item: CorpusItem
    verdicts: list[str]  # this rubric's verdicts, passing first: the number keys pick them in this order
    fail_verdict: str  # what the f key gives: the proposal when it fails, else the first failing verdict
    labels: ItemLabels | None = None  # every labeller's label, None before anyone labelled it here
    judged: ScoreRecord | None = None  # the judge's latest verdict on the item's span, when it has one
    source: Markup | None = None  # the texts with the judge's evidence marked
    summary: Markup | None = None


@dataclass(frozen=True)
class CalibrationRow:
    rubric: str
    labelled: int
    waiting: int
    rejected: int
    live: CalibrationReport | None  # proposals vs people's labels, None before any promoted item is labelled
    baseline: tuple[str, float, dict[str, float]] | None  # the last `sumwatch calibrate` that held


def _judged(store: Store, item: CorpusItem) -> ScoreRecord | None:
    if not item.trace_id:
        return None
    scores = list_scores(store, trace_id=item.trace_id, rubric=item.rubric, limit=50)  # newest first
    # the judges' verdict: a person's label stored as the span's verdict is not the judge's
    return next((s for s in scores if (not item.span_id or s.span_id == item.span_id) and s.tier != HUMAN), None)


def _queue_item(store: Store, item: CorpusItem, definition: JudgeDefinition, labels: ItemLabels | None
                ) -> QueueItem:
    verdicts = list(definition.overall)
    failing = [v for v in verdicts if v not in definition.passing]
    proposal = item.proposed_verdict
    judged = _judged(store, item)
    phrases = evidence_phrases(judged.evidence) if judged else ()
    return QueueItem(item, verdicts, proposal if proposal in failing else failing[0], labels, judged,
                     highlight(item.source, phrases), highlight(item.text, phrases))


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


_EPOCH = datetime.min.replace(tzinfo=timezone.utc)


def _last_labelled(labels: ItemLabels | None) -> datetime:
    if labels is None or not labels.labels:
        return _EPOCH
    return max(x.at for x in (*labels.labels, *([labels.resolution] if labels.resolution else [])))


def queue_page(store: Store, rubric: str | None, show: str = "waiting", page: int = 1) -> dict[str, Any]:
    """A page of the items ``show`` lists (waiting ones in corpus order, the others most recently labelled
    first), each with its rubric's verdicts as its active definition lists them, the judge's explanation and
    evidence, and its labels; the calibration table and the agreement between labellers."""
    definitions = active_definitions(store)
    if rubric is not None and rubric not in definitions:
        raise BadRequest(choice_error("rubric", rubric, definitions))
    if show not in VIEWS:
        raise BadRequest(choice_error("show", show, VIEWS))
    # an item of a rubric with no definition here (imported before its judge was promoted) cannot be offered
    items = [i for status in VIEWS[show] for i in load_items(store, rubric=rubric, status=status)
             if i.rubric in definitions]
    labels = item_labels(store, [i.item_id for i in items]) if items else {}
    if show != "waiting":
        items.sort(key=lambda i: _last_labelled(labels.get(i.item_id)), reverse=True)
    pages = max(1, -(-len(items) // QUEUE_PAGE))
    if page < 1 or page > pages:
        raise BadRequest(f"page must be between 1 and {pages}, got {page}")
    shown = items[(page - 1) * QUEUE_PAGE:page * QUEUE_PAGE]
    waiting = len(items) if show == "waiting" else waiting_count(store, rubric, definitions)
    return {"items": [_queue_item(store, i, definitions[i.rubric], labels.get(i.item_id)) for i in shown],
            "waiting": waiting, "total": len(items), "show": show, "views": tuple(VIEWS), "page": page,
            "pages": pages, "rubric": rubric or "", "rubrics": tuple(definitions),
            "calibration": calibration_rows(store, definitions), "agreement": labeller_agreement(store, rubric),
            "definitions": definitions}


def waiting_count(store: Store, rubric: str | None, definitions: dict[str, JudgeDefinition] | None = None) -> int:
    """The items the waiting view lists (of ``rubric``, or of every rubric): what the queue's header says, on the
    page and after each label from the keyboard. An item of a rubric with no definition here is not offered, so
    not counted."""
    definitions = active_definitions(store) if definitions is None else definitions
    return sum(count_items(store, r, NEEDS_LABEL) for r in definitions if rubric in (None, r))  # counts, no texts


class QueueQuery(PageQuery):
    """The queue's query string: which items (``show``), of which rubric, which page of them."""

    show: str = "waiting"
    rubric: PageText = ""
    page: int = Field(1, ge=1, le=999_999)


def refuse_unknown(names: Iterable[str]) -> None:
    """BadRequest for a query parameter the queue does not take: refused, not a filter silently ignored."""
    unknown = sorted(set(names) - set(QueueQuery.model_fields))
    if unknown:
        raise BadRequest(f"the labelling queue takes {', '.join(QueueQuery.model_fields)} (show one of "
                         f"{', '.join(VIEWS)}), not {unknown[0][:40]!r}")


def _check_id(item_id: str) -> None:
    if not item_id or len(item_id) > 64 or not item_id.isalnum():
        raise BadRequest("an item id is letters and digits (as `sumwatch corpus list` shows it)")


def label(store: Store, item_id: str, verdict: str, by: str = "") -> CorpusItem:
    """``by``'s verdict (or ``rejected``) on an item. KeyError: no such item; BadRequest: a verdict the item's
    rubric does not have."""
    _check_id(item_id)
    found = load_items(store, item_id=item_id)
    if not found:
        raise KeyError(item_id)
    rubric = found[0].rubric
    definition = active_definitions(store).get(rubric)
    verdicts = definition.overall if definition is not None else ()
    if verdict != REJECTED and verdict not in verdicts:
        raise BadRequest(f"verdict must be one of {', '.join(verdicts)} (or rejected) for {rubric}, "
                         f"got {verdict[:40]!r}")
    try:
        return label_item(store, item_id, verdict, by=by)
    except LabelError as exc:
        raise BadRequest(str(exc)) from None


def resolve(store: Store, item_id: str, verdict: str, by: str) -> CorpusItem:
    """``by`` settles a disagreement from the page. KeyError: no such item; BadRequest: a bad verdict."""
    _check_id(item_id)
    try:
        return resolve_item(store, item_id, verdict, by=by)
    except LabelError as exc:
        raise BadRequest(str(exc)) from None


def label_from_trace(store: Store, trace_id: str, fields: dict[str, str], by: str) -> CorpusItem:
    """The trace page's label form: ``span_id``, ``rubric``, ``verdict`` (pass or fail), ``note``. KeyError: no
    such trace or span; BadRequest: a bad rubric or verdict."""
    try:
        return label_trace(store, trace_id, fields.get("rubric", ""), fields.get("verdict", ""), by=by,
                           span_id=fields.get("span_id") or None, note=fields.get("note") or None,
                           failure_mode=fields.get("failure_mode") or None)
    except LabelError as exc:
        raise BadRequest(str(exc)) from None


def trace_label_context(store: Store, labelled: str | None) -> dict[str, Any]:
    """What the trace page's label form needs: the rubrics to pick from, and the item just labelled (the
    ``labelled`` query value after the form's post), if any."""
    item = None
    if labelled and labelled.isalnum() and len(labelled) <= 64:
        found = load_items(store, item_id=labelled)
        item = found[0] if found else None
    return {"label_rubrics": known_rubrics(store), "labelled_item": item,
            "label_failures": failure_choices(active_definitions(store))}


def failure_choices(definitions: dict[str, JudgeDefinition]) -> list[tuple[str, str]]:
    """The failures the label form offers beside ``fail``: (value, the rubrics naming it) for each rubric's failing
    verdicts and failure modes, so a person picks one instead of typing it."""
    owners: dict[str, list[str]] = {}
    for rubric, definition in sorted(definitions.items()):
        failing = [v for v in definition.overall if v not in definition.passing]
        for value in [*failing, *definition.mode_names]:
            if rubric not in owners.setdefault(value, []):
                owners[value].append(rubric)
    return [(value, ", ".join(rubrics)) for value, rubrics in sorted(owners.items())]

"""Labelling as a team: every labeller's verdict on an item, their agreement, and resolving disagreements.

    record_label(store, "3f2a...", "numerically_wrong", by="ana")      # ana's label; the item's status follows
    label_trace(store, trace_id, "factuality", "fail", by="ana")         # a trace's span becomes a labelled item
    report = labeller_agreement(store)        # Cohen's kappa per pair of labellers, and the open disagreements
    resolve_item(store, "3f2a...", "correct", by="lead")                # settles a disagreement

An item's verdict folds its labels (the latest of each labeller): a resolution, when there is one, is the final
word; else the labellers' verdict when they agree; else the item is ``disputed`` and calibration leaves it out.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone

from ..contract.calibration import (
    DISPUTED,
    LABELLED,
    PASS_BUCKET,
    REJECTED,
    CorpusItem,
    Disagreement,
    LabellerAgreement,
    PairAgreement,
)
from ..contract.scores import ScoreRecord
from ..contract.traces import normalize_trace_id
from ..rubrics.definition import JudgeDefinition
from ..rubrics.verdicts import HUMAN, RubricResult
from ..store.connection import Store
from ..store.corpus import load_items, save_items
from ..store.corpus_labels import LABEL, RESOLUTION, CorpusLabel, labels_of, save_label
from ..store.judges import active_definitions, check_rubric
from ..store.scores import ScoredSpan, SpanRef, list_scores, write_scores
from ..store.traces import get_trace, span_texts
from .gate import cohen_kappa

TRACE_ORIGIN = "trace"  # an item a person labelled from a trace's page
PASS, FAIL = "pass", "fail"  # shorthands for a rubric's passing verdict and the failing verdict the judge gave
UNNAMED = "unnamed"  # who a label is by when nobody was named
MAX_LABELLER = 100


class LabelError(ValueError):
    """A label that cannot be given; the message is one line naming what was wrong."""


class UnknownItem(KeyError):
    """No such corpus item, or no such trace to label."""


@dataclass(frozen=True)
class ItemLabels:
    """The latest label of each labeller of an item, oldest first, and its latest resolution."""

    labels: tuple[CorpusLabel, ...]
    resolution: CorpusLabel | None = None

    @property
    def verdicts(self) -> set[str]:
        return {label.verdict for label in self.labels}

    @property
    def verdict(self) -> str | None:
        """The item's verdict: the resolution's, else the one every labeller gave; None while they disagree."""
        if self.resolution is not None:
            return self.resolution.verdict
        return next(iter(self.verdicts)) if len(self.verdicts) == 1 else None

    @property
    def disputed(self) -> bool:
        return self.resolution is None and len(self.verdicts) > 1


def fold(rows: Iterable[CorpusLabel]) -> ItemLabels:
    """One item's rows (oldest first) as its labels: a labeller's later label replaces their earlier one."""
    latest: dict[str, CorpusLabel] = {}
    resolution = None
    for row in rows:
        if row.kind == RESOLUTION:
            resolution = row
        else:
            latest.pop(row.labeller, None)
            latest[row.labeller] = row
    return ItemLabels(tuple(latest.values()), resolution)


def pair_agreement(items: dict[str, ItemLabels]) -> list[PairAgreement]:
    """Cohen's kappa between each pair of labellers over the items both labelled (pure).

        pair_agreement({"i1": fold([CorpusLabel("i1", "factuality", "ana", "correct"), ...]), ...})
    """
    by_labeller: dict[str, dict[str, str]] = {}
    for item_id, labels in items.items():
        for label in labels.labels:
            by_labeller.setdefault(label.labeller, {})[item_id] = label.verdict
    out = []
    for a, b in itertools.combinations(sorted(by_labeller), 2):
        common = sorted(set(by_labeller[a]) & set(by_labeller[b]))
        if not common:
            continue
        va, vb = [by_labeller[a][i] for i in common], [by_labeller[b][i] for i in common]
        kappa = cohen_kappa(va, vb)
        out.append(PairAgreement(a, b, len(common), sum(x == y for x, y in zip(va, vb)),
                                 None if kappa is None else round(kappa, 4)))
    return out


def labeller_agreement(store: Store, rubric: str | None = None) -> LabellerAgreement:
    """Agreement between the people who labelled ``rubric``'s items (every rubric: None), and the items they
    disagree on, unresolved first."""
    if rubric is not None:
        check_rubric(store, rubric)
    rows = labels_of(store, rubric=rubric)
    folded = {item_id: fold(labels) for item_id, labels in rows.items()}
    disagreements = [Disagreement(item_id, labels.labels[0].rubric, {x.labeller: x.verdict for x in labels.labels},
                                  labels.resolution.verdict if labels.resolution else "",
                                  labels.resolution.labeller if labels.resolution else "")
                     for item_id, labels in folded.items() if len(labels.verdicts) > 1]
    disagreements.sort(key=lambda d: (bool(d.resolved), d.rubric, d.item_id))
    return LabellerAgreement(pair_agreement(folded), disagreements)


# -- giving labels ------------------------------------------------------------------------------------

def _labeller(by: str) -> str:
    name = " ".join((by or "").split())
    if len(name) > MAX_LABELLER:
        raise LabelError(f"a labeller's name is at most {MAX_LABELLER} characters")
    return name or UNNAMED


def _item(store: Store, item_id: str) -> CorpusItem:
    found = load_items(store, item_id=item_id)
    if not found:
        raise UnknownItem(f"no corpus item {item_id[:80]!r}")
    return found[0]


def _check_verdict(item: CorpusItem, verdict: str, definition: JudgeDefinition | None) -> None:
    if verdict != REJECTED and definition is not None and verdict not in definition.overall:
        raise LabelError(f"{verdict[:40]!r} is not a {item.rubric} verdict (one of {', '.join(definition.overall)}, "
                         f"or {REJECTED})")


def verdict_bucket(definition: JudgeDefinition | None, verdict: str, bucket: str) -> str:
    """The failure-mode bucket of an item labelled ``verdict`` whose bucket was ``bucket``: ``pass`` for a passing
    verdict; for a failing one ``bucket`` while it is a failure bucket, else the verdict's own failure mode (what
    the rubric's file names for it) or the verdict itself. A resolution never leaves a failing item in ``pass``.

        verdict_bucket(BUILTIN["factuality"], "entity_wrong", "pass")   # "entity_swap"
    """
    if definition is None:
        return bucket
    if verdict in definition.passing:
        return PASS_BUCKET
    if bucket and bucket != PASS_BUCKET:
        return bucket
    found = definition.verdict(verdict)
    return (found.failure_mode if found is not None else "") or verdict


def _settle(store: Store, item: CorpusItem, labels: ItemLabels, active: JudgeDefinition | None,
            definition: JudgeDefinition | None = None, *, named_bucket: bool = False, **changes: object) -> CorpusItem:
    """Store ``item`` with the status and verdict its labels give it, and the bucket that verdict has in
    ``definition`` (else ``active``, the rubric's active one): a failure bucket changes only with a new verdict, or
    when a label named one (``named_bucket``). Only ``active`` makes the label the span's verdict."""
    verdict = labels.verdict
    if verdict is None:
        status, human = DISPUTED, ""
    elif verdict == REJECTED:
        status, human = REJECTED, item.human_verdict
    else:
        status, human = LABELLED, verdict
        bucket = str(changes.get("bucket") or item.bucket)
        if human != item.human_verdict and not named_bucket:
            bucket = PASS_BUCKET  # the old verdict's bucket does not describe the new one
        changes["bucket"] = verdict_bucket(definition or active, human, bucket)
    data = {**item.to_json(), "expected_facts": item.expected_facts, **changes, "status": status,
            "human_verdict": human}
    if status != LABELLED:
        data["example"] = False
    settled = CorpusItem(**data)
    save_items(store, [settled])
    if status == LABELLED:
        _span_verdict(store, settled, labels, active)
    return settled


def _span_verdict(store: Store, item: CorpusItem, labels: ItemLabels, definition: JudgeDefinition | None) -> None:
    """A labelled item that came from a span is that span's verdict too, from the strongest source (tier
    ``human``): every view, count and issue reads it over the judges' (a label given again replaces it)."""
    if not (item.trace_id and item.span_id) or definition is None or item.human_verdict not in definition.scores:
        return
    span = next((s for s in get_trace(store, item.trace_id) if s.span_id == item.span_id), None)
    if span is None:
        return
    at = datetime.fromisoformat(span.timestamp)
    at = at if at.tzinfo else at.replace(tzinfo=timezone.utc)
    failing = item.human_verdict not in definition.passing
    people = [labels.resolution] if labels.resolution is not None else list(labels.labels)
    who = ", ".join(sorted({label.labeller for label in people})) or "a person"
    result = RubricResult.judged(definition, item.human_verdict, tier=HUMAN, judge_version=HUMAN,
                                 failure_mode=(item.bucket or item.human_verdict) if failing else "",
                                 explanation=f"Labelled {item.human_verdict} by {who} (corpus item {item.item_id}).")
    ref = SpanRef(item.trace_id, item.span_id, int(at.timestamp() * 1e9), span.service)
    write_scores(store, [ScoredSpan(ref, {item.rubric: result})], HUMAN)


def record_label(store: Store, item_id: str, verdict: str, *, by: str = "", bucket: str | None = None,
                 note: str | None = None, example: bool | None = None,
                 definition: JudgeDefinition | None = None) -> CorpusItem:
    """``by``'s verdict (or ``rejected``) on an item, kept beside the other labellers'; the item becomes
    ``labelled`` when they agree (or it was resolved) and ``disputed`` when they do not. ``definition``: a new
    rubric's, not promoted yet, whose verdicts give the item's bucket. UnknownItem, LabelError."""
    labeller = _labeller(by)
    item = _item(store, item_id)
    active = active_definitions(store).get(item.rubric)
    _check_verdict(item, verdict, active)
    if example and verdict == REJECTED:
        raise LabelError("a rejected item cannot be a few-shot example: give it a verdict")
    save_label(store, CorpusLabel(item.item_id, item.rubric, labeller, verdict, LABEL, note or ""))
    labels = fold(labels_of(store, [item.item_id]).get(item.item_id, []))
    changes: dict[str, object] = {"bucket": bucket or item.bucket, "note": note or item.note}
    if example is not None:
        changes["example"] = example
    return _settle(store, item, labels, active, definition, named_bucket=bool(bucket), **changes)


def resolve_item(store: Store, item_id: str, verdict: str, *, by: str = "") -> CorpusItem:
    """``by`` settles what the labellers disagree on: ``verdict`` becomes the item's, whatever they said."""
    labeller = _labeller(by)
    item = _item(store, item_id)
    active = active_definitions(store).get(item.rubric)
    _check_verdict(item, verdict, active)
    save_label(store, CorpusLabel(item.item_id, item.rubric, labeller, verdict, RESOLUTION))
    return _settle(store, item, fold(labels_of(store, [item.item_id]).get(item.item_id, [])), active)


def item_labels(store: Store, item_ids: Sequence[str]) -> dict[str, ItemLabels]:
    return {item_id: fold(rows) for item_id, rows in labels_of(store, list(item_ids)).items()}


# -- labelling a trace ------------------------------------------------------------------------------

def _latest_score(store: Store, trace_id: str, span_id: str, rubric: str) -> ScoreRecord | None:
    """The judges' latest verdict on the span (a person's label stored as its verdict is not one)."""
    return next((s for s in list_scores(store, trace_id=trace_id, rubric=rubric, limit=100)
                 if s.span_id == span_id and s.tier != HUMAN), None)


def _failing_choice(definition: JudgeDefinition, failure_mode: str) -> tuple[str, str]:
    """(verdict, bucket) a named failure gives: a failing verdict (its bucket is the verdict's failure mode) or
    one of the rubric's failure modes (its verdict is the one failing verdict that names it, if exactly one)."""
    failing = [v for v in definition.overall if v not in definition.passing]
    if failure_mode in failing:
        return failure_mode, verdict_bucket(definition, failure_mode, "")
    if failure_mode not in definition.mode_names:
        raise LabelError(f"failure mode must be one of {', '.join(definition.mode_names)} or a failing "
                         f"{definition.name} verdict ({', '.join(failing)}), got {failure_mode[:40]!r}")
    owners = [v for v in failing if (found := definition.verdict(v)) is not None and found.failure_mode == failure_mode]
    return (owners[0] if len(owners) == 1 else ""), failure_mode


def _pick_verdict(verdict: str, definition: JudgeDefinition, failure_mode: str | None) -> tuple[str, str]:
    """(verdict, bucket) of a person's label: ``pass``, ``fail`` or a verdict, and the failure they named. A bare
    ``fail`` on a rubric with several failing verdicts is refused: a failure nobody named is never stored."""
    failing = [v for v in definition.overall if v not in definition.passing]
    if verdict == PASS or verdict in definition.passing:
        if failure_mode:
            raise LabelError(f"a passing label has no failure mode (got {failure_mode[:40]!r})")
        return (definition.overall[0] if verdict == PASS else verdict), PASS_BUCKET
    if verdict != FAIL and verdict not in definition.overall:
        raise LabelError(f"verdict must be pass, fail or a {definition.name} verdict "
                         f"({', '.join(definition.overall)}), got {verdict[:40]!r}")
    named, bucket = _failing_choice(definition, failure_mode) if failure_mode else ("", "")
    if verdict != FAIL:
        if named and named != verdict and failure_mode in failing:
            raise LabelError(f"{verdict} and {failure_mode} are two different verdicts: give one")
        return verdict, bucket or verdict_bucket(definition, verdict, "")
    if named:
        return named, bucket
    if failure_mode:
        raise LabelError(f"failure mode {failure_mode} belongs to no single {definition.name} verdict: give the "
                         f"verdict instead of fail ({', '.join(failing)})")
    if len(failing) == 1:
        return failing[0], verdict_bucket(definition, failing[0], "")
    raise LabelError(f"fail does not say which {definition.name} failure: name its failure mode "
                     f"({', '.join(definition.mode_names)}) or give a failing verdict ({', '.join(failing)})")


def label_trace(store: Store, trace_id: str, rubric: str, verdict: str, *, by: str = "", span_id: str | None = None,
                note: str | None = None, failure_mode: str | None = None,
                definition: JudgeDefinition | None = None) -> CorpusItem:
    """A trace's summarization span (the only one, or ``span_id``) becomes an item of ``rubric``'s corpus with
    ``by``'s label; ``verdict`` is ``pass``, ``fail`` or one of the rubric's verdicts, and ``failure_mode`` names
    the failure (one of the rubric's failure modes or failing verdicts; ``fail`` needs it when the rubric has
    several failing verdicts). Labelling the same span again adds a label to the same item. ``definition``: a new
    rubric's, not promoted yet (its corpus is what gates the promotion), whose verdicts the label takes."""
    labeller = _labeller(by)
    try:
        tid = normalize_trace_id(trace_id)
        if definition is None:
            check_rubric(store, rubric)
        elif definition.name != rubric:
            raise ValueError(f"the definition is of {definition.name!r}, not {rubric!r}")
    except ValueError as exc:
        raise LabelError(str(exc)) from None
    definition = definition or active_definitions(store).get(rubric)
    if definition is None:
        raise LabelError(f"no active {rubric} definition can be read by this version of sumwatch")
    spans = [s for s in get_trace(store, tid) if s.summarization or s.recognised]
    if not spans:
        raise UnknownItem(f"no trace {tid} with a summarization span")
    if span_id is None:
        if len(spans) > 1:
            raise LabelError(f"trace {tid} has {len(spans)} summarization spans: name one with a span id "
                             f"({', '.join(s.span_id for s in spans[:5])})")
        span_id = spans[0].span_id
    if span_id not in {s.span_id for s in spans}:
        raise UnknownItem(f"trace {tid} has no summarization span {span_id[:40]!r}")
    texts = span_texts(store, [(tid, span_id)]).get((tid, span_id))
    if texts is None:
        raise LabelError(f"span {span_id} of trace {tid} recorded no source or summary (text capture off)")
    source, summary, band, facts = texts
    chosen, bucket = _pick_verdict(verdict, definition, failure_mode)
    judged = _latest_score(store, tid, span_id, rubric)
    fresh = CorpusItem(rubric=rubric, source=source, summary=summary, status=LABELLED, human_verdict=chosen,
                       proposed_verdict=judged.verdict if judged and judged.verdict in definition.overall else "",
                       bucket=bucket, origin=TRACE_ORIGIN, band=band, expected_facts=facts, trace_id=tid,
                       span_id=span_id, note=note or "")
    if not load_items(store, item_id=fresh.item_id):
        save_items(store, [fresh])
    return record_label(store, fresh.item_id, chosen, by=labeller, note=note, bucket=bucket if failure_mode else None,
                        definition=definition)

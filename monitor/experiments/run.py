"""The server's side of an experiment: start or resume it, store the calls the runner sends, judge them.

    answer = start_experiment(store, StartExperiment(dataset="sw3", name="prompt-v4", task="app:summarize"))
    accept_items(store, experiment, [ItemOutcome(...)], max_bytes=...)   # spans into otel_traces, items recorded
    report = judge_experiment(store, cascade, experiment, reference=..., progress=...)

The runner (:mod:`sumwatch.monitor.views.experiment_runner`) calls the team's task in its own process and sends
each item's spans; they are stored as they came, once each item's spans are checked to carry this experiment and
that item. Judging is resumable: an item and rubric with a standing verdict is not judged again, so a killed run
(or a second ``score``) pays only for what is missing.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
from collections.abc import Callable, Sequence
from typing import Any

from sumwatch.tracer.otel_traces import TRACES_TABLE

from ..contract.actions import Progress
from ..contract.datasets import DatasetItem
from ..contract.experiments import (
    EXPERIMENT_ATTR,
    ITEM_ATTR,
    ExperimentInfo,
    ItemOutcome,
    ItemsAnswer,
    StartAnswer,
    StartExperiment,
)
from ..ingest.otlp import OtlpDecodeError, decode_traces
from ..rubrics.reference import ReferenceCase, areference_results
from ..rubrics.reference_verdicts import UNJUDGED
from ..rubrics.verdicts import ERROR, SummaryCase
from ..store.connection import Store
from ..store.experiments import (
    FINISHED,
    ExperimentRow,
    ItemRow,
    find_experiment,
    item_rows,
    record_items,
    save_experiment,
)
from ..store.scores import ScoredSpan, SpanRef, standing_verdicts, write_scores
from .items import dataset_items, latest_version

BATCH = 32  # items judged together: the cascade's LLM calls within a batch run concurrently
ATTRS = 11  # SpanAttributes' place in an otel_traces row
# [(item, summary)] -> for each, rubric -> RubricResult: the reference rubrics of a batch of items
ReferenceJudge = Callable[[Sequence[tuple[DatasetItem, str]]], list[dict[str, Any]]]


class ExperimentError(ValueError):
    """A request about an experiment that cannot be done; ``status`` is the HTTP answer: 404 a dataset, version or
    experiment the server does not have, 409 a name taken by another run, 422 content it cannot use (an item the
    dataset lacks, spans that are not OTLP or not this experiment's)."""

    def __init__(self, message: str, status: int = 422) -> None:
        super().__init__(message)
        self.status = status


def info(store: Store, row: ExperimentRow) -> ExperimentInfo:
    items = item_rows(store, row.experiment_id)
    return ExperimentInfo(row.experiment_id, row.name, row.dataset, row.dataset_version, row.task, row.items,
                          row.status, row.created_at, done=len(items), errors=sum(1 for i in items.values() if i.error))


def experiment(store: Store, key: str) -> ExperimentRow:
    """The experiment of this id or name, or ExperimentError(404)."""
    found = find_experiment(store, key)
    if found is None:
        raise ExperimentError(f"no experiment {key!r} (see `sumwatch experiment list`)", 404)
    return found


def start_experiment(store: Store, body: StartExperiment) -> StartAnswer:
    """A new experiment on the dataset version, or the one of ``body.name`` resumed (its finished items listed,
    so the runner skips them). A name already used for another dataset or version is refused (409)."""
    version = body.version or latest_version(store, body.dataset)
    if version is None:
        raise ExperimentError(f"no dataset {body.dataset!r} (see `sumwatch dataset list`)", 404)
    items = dataset_items(store, body.dataset, version)
    if items is None:
        raise ExperimentError(f"dataset {body.dataset!r} has no version {version}", 404)
    existing = find_experiment(store, body.name) if body.name else None
    if existing is not None:
        if (existing.dataset, existing.dataset_version) != (body.dataset, version):
            raise ExperimentError(f"experiment {body.name!r} ran dataset {existing.dataset!r} version "
                                  f"{existing.dataset_version}, not {body.dataset!r} version {version}: pick another "
                                  f"--name", 409)
        done = sorted(item_rows(store, existing.experiment_id))
        return StartAnswer(info(store, existing), resumed=True, done=done)
    row = save_experiment(store, ExperimentRow.new(body.name or "", body.dataset, version, body.task, len(items)))
    return StartAnswer(info(store, row), resumed=False, done=[])


def accept_items(store: Store, row: ExperimentRow, outcomes: Sequence[ItemOutcome], *, max_bytes: int
                 ) -> ItemsAnswer:
    """Store each outcome's spans and record the item; an outcome for an item the dataset version lacks, or whose
    spans do not carry this experiment and that item, refuses the whole request (nothing stored)."""
    items = {i.item_id for i in dataset_items(store, row.dataset, row.dataset_version) or ()}
    spans, recorded = [], []
    for outcome in outcomes:
        if outcome.item_id not in items:
            raise ExperimentError(f"item {outcome.item_id!r} is not in dataset {row.dataset!r} version "
                                  f"{row.dataset_version}")
        rows = _spans(outcome, max_bytes)
        for span in rows:
            attrs = span[ATTRS]
            if attrs.get(EXPERIMENT_ATTR) != row.experiment_id or attrs.get(ITEM_ATTR) != outcome.item_id:
                raise ExperimentError(f"a span of item {outcome.item_id!r} does not carry {EXPERIMENT_ATTR}="
                                      f"{row.experiment_id} and {ITEM_ATTR}={outcome.item_id}")
        if not outcome.error and not any(s[1] == outcome.trace_id and s[2] == outcome.span_id for s in rows):
            raise ExperimentError(f"item {outcome.item_id!r} names span {outcome.trace_id}/{outcome.span_id}, which "
                                  f"is not among its spans")
        spans += rows
        recorded.append(ItemRow(row.experiment_id, outcome.item_id, outcome.trace_id, outcome.span_id,
                                outcome.summary, outcome.error, outcome.latency_ms))
    if spans:
        store.insert_spans(spans)
    record_items(store, recorded)  # after the spans: an item recorded is an item whose spans are stored
    return ItemsAnswer(recorded=len(recorded), spans=len(spans))


def _spans(outcome: ItemOutcome, max_bytes: int) -> list[tuple[Any, ...]]:
    if not outcome.spans:
        return []
    try:
        body = base64.b64decode(outcome.spans, validate=True)
        decoded = decode_traces(body, content_type="application/x-protobuf", content_encoding=None,
                                max_bytes=max_bytes)
    except (binascii.Error, OtlpDecodeError, ValueError) as exc:
        raise ExperimentError(f"the spans of item {outcome.item_id!r} are not base64 OTLP protobuf: {exc}") from None
    if decoded.rejected.count:
        raise ExperimentError(f"{decoded.rejected.count} span(s) of item {outcome.item_id!r} could not be stored: "
                              f"{decoded.rejected.message(decoded.total)}")
    return decoded.rows


def judge_experiment(store: Store, cascade: Any, row: ExperimentRow, *, reference: ReferenceJudge | None = None,
                     progress: Progress | None = None) -> int:
    """Judge every item's summary on the cascade's rubrics (and the reference rubrics, where the item has what
    they need) that it has no standing verdict for; the verdicts written. Marks the experiment finished once
    every item has run."""
    items = {i.item_id: i for i in dataset_items(store, row.dataset, row.dataset_version) or ()}
    calls = [r for r in item_rows(store, row.experiment_id).values() if not r.error and r.span_id]
    standing = standing_verdicts(store, [(r.trace_id, r.span_id) for r in calls])
    refs = span_refs(store, calls)
    written, done = 0, 0
    report = progress or (lambda stage, n, total: None)
    report("judging", 0, len(calls))
    for start in range(0, len(calls), BATCH):
        chunk = calls[start:start + BATCH]
        groups: dict[tuple[str, ...], list[ItemRow]] = {}
        for call in chunk:
            needed = tuple(r for r in cascade.rubrics if (call.trace_id, call.span_id, r) not in standing)
            groups.setdefault(needed, []).append(call)
        scored: list[ScoredSpan] = []
        for rubrics, members in groups.items():
            if rubrics:
                results = cascade.score_batch([_case(items[m.item_id], m.summary) for m in members], rubrics=rubrics)
                scored += [ScoredSpan(refs[m.item_id], r) for m, r in zip(members, results)]
        if scored:
            written += write_scores(store, scored, cascade.version_for, standing=standing)
        if reference is not None:
            extra = []
            for call, results in zip(chunk, reference([(items[c.item_id], c.summary) for c in chunk])):
                kept = {k: v for k, v in results.items() if (call.trace_id, call.span_id, k) not in standing}
                if kept:
                    extra.append(ScoredSpan(refs[call.item_id], kept))
            if extra:
                versions = {rubric: _reference_version(extra, rubric) for s in extra for rubric in s.results}
                written += write_scores(store, extra, versions.__getitem__, standing=standing)
        done += len(chunk)
        report("judging", done, len(calls))
    if len(item_rows(store, row.experiment_id)) >= row.items and row.status != FINISHED:
        save_experiment(store, ExperimentRow(row.experiment_id, row.name, row.dataset, row.dataset_version, row.task,
                                             row.items, FINISHED, row.created_at))
    return written


def _reference_version(scored: list[ScoredSpan], rubric: str) -> str:
    for s in scored:
        if rubric in s.results and s.results[rubric].judge_version:
            return str(s.results[rubric].judge_version)
    return f"{rubric}@reference"


def _case(item: DatasetItem, summary: str) -> SummaryCase:
    return SummaryCase(item.source, summary, item.band or None, tuple(item.expected_facts), None)


def span_refs(store: Store, calls: Sequence[ItemRow]) -> dict[str, SpanRef]:
    """item -> the span its call made (its time and service, as a score of it is filed)."""
    if not calls:
        return {}
    rows = store.query_rows(
        f"SELECT TraceId, SpanId, toUnixTimestamp64Nano(any(Timestamp)), any(ServiceName) FROM {TRACES_TABLE} "
        f"WHERE TraceId IN {{tids:Array(String)}} GROUP BY TraceId, SpanId",
        {"tids": sorted({c.trace_id for c in calls})})
    found = {(tid, sid): (int(ts), service) for tid, sid, ts, service in rows}
    out = {}
    for call in calls:
        ts, service = found.get((call.trace_id, call.span_id), (int(call.updated_at.timestamp() * 1e9), ""))
        out[call.item_id] = SpanRef(call.trace_id, call.span_id, ts, service)
    return out


def reference_judge(embedder: Any, llm: Any) -> ReferenceJudge:
    """The reference rubrics (:mod:`..rubrics.reference`) of a batch, its items' LLM calls at once; an item
    without a reference or questions gets none, and a rubric that could not judge an item (no LLM, no embedder)
    stores nothing, so the report counts it unjudged rather than failed."""

    async def batch(pairs: Sequence[tuple[DatasetItem, str]]) -> list[dict[str, Any]]:
        cases = [ReferenceCase(source=item.source, summary=summary, reference=item.reference,
                               questions=tuple(item.questions), band=item.band or None)
                 for item, summary in pairs]
        judged = await asyncio.gather(*(areference_results(c, embedder=embedder, llm=llm) for c in cases
                                        if c.has_reference or c.questions))
        found = iter(judged)
        return [{r.rubric: r for r in next(found) if r.verdict not in (UNJUDGED, ERROR)}
                if c.has_reference or c.questions else {} for c in cases]

    return lambda pairs: asyncio.run(batch(pairs))

"""Datasets made from what the store already holds: an issue's failing spans, the spans a listing's filters
select, a calibration corpus.

    built = from_issue(store, "SW-3")          # Built(items=[...], notes=["2 members ... left out"])
    built = from_traces(store, TraceFilters(service="digest", verdict="fail"), limit=200)
    built = from_corpus(store, "factuality")

Each item's id is a hash of its source text (one item per distinct source: a document summarized twice is one
item), and its metadata says where it came from: the trace and span, and the summary it had then
(``summary_before``), so an experiment can show what a new summarizer changed.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from sumwatch.tracer import semconv

from ..contract.calibration import LABELLED, PASS_BUCKET, REJECTED, CorpusItem
from ..contract.datasets import DatasetItem, ItemLine
from ..contract.issues import issue_label, parse_issue_id
from ..contract.listing import TraceFilters
from ..store.connection import Store
from ..store.corpus import load_items
from ..store.issue_members import members_of
from ..store.issues import issue_history
from ..store.listing import list_traces
from ..store.runs import FINISHED_RUNS
from ..store.traces import span_texts

SUMMARY_BEFORE = "summary_before"  # the metadata key of the summary a span (or a corpus item) had
_MAX_ISSUE = 2**32 - 1


class UnknownIssue(LookupError):
    """No finished clustering run knows the issue."""


@dataclass
class Built:
    items: list[DatasetItem] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _item(source: str, *, expected_facts: Sequence[str] = (), band: str = "", reference: str = "",
          metadata: dict[str, str]) -> DatasetItem:
    """An item as a dataset file would give it (the same checks and trimming), so exporting it and importing the
    file again gives the same item. A band the tracer does not name stays in the metadata only."""
    known = band if band in semconv.BANDS else ""
    if band and not known:
        metadata = {**metadata, "band": band}
    return ItemLine.model_validate({"source": source, "reference": reference, "expected_facts": list(expected_facts),
                                    "band": known, "metadata": {k: v for k, v in metadata.items() if v}}).item()


def _distinct(items: Iterable[DatasetItem], built: Built, what: str) -> None:
    """Add ``items`` to ``built``, one per source, saying how many repeated one."""
    seen = {i.item_id for i in built.items}
    repeated = 0
    for item in items:
        if item.item_id in seen:
            repeated += 1
            continue
        seen.add(item.item_id)
        built.items.append(item)
    if repeated:
        built.notes.append(f"{repeated} {what} repeat a source already taken: one item per source")


def from_issue(store: Store, issue_id: str) -> Built:
    """The sources of an issue's members in the last finished run that had any, most central first, with the
    failing summary in the metadata; UnknownIssue when no run knows it. Issues merged into it are not followed."""
    number = parse_issue_id(issue_id)
    label = issue_label(number)
    history = issue_history(store, number, FINISHED_RUNS) if number <= _MAX_ISSUE else []  # issue numbers are UInt32
    if not history:
        raise UnknownIssue(f"no issue {label}")
    seen = [h["run_id"] for h in history if h["members"] > 0]
    built = Built()
    if not seen:
        built.notes.append(f"{label} has no members in any finished clustering run")
        return built
    members = members_of(store, seen[-1], number)
    texts = span_texts(store, [(m.trace_id, m.span_id) for m in members])
    items = []
    for m in members:
        found = texts.get((m.trace_id, m.span_id))
        if found is None:
            continue
        source, summary, band, facts = found
        items.append(_item(source, expected_facts=facts, band=band, metadata={
            SUMMARY_BEFORE: summary, "issue": label, "trace_id": m.trace_id, "span_id": m.span_id,
            "rubric": m.rubric, "verdict": m.verdict, "failure_mode": m.failure_mode}))
    _without_text(built, len(members) - len(items), "members")
    _distinct(items, built, "members")
    return built


def _without_text(built: Built, missing: int, what: str) -> None:
    if missing:
        built.notes.append(f"{missing} {what} left out: their spans recorded no source or summary text "
                           f"(text capture off, or the spans were removed)")


def from_traces(store: Store, filters: TraceFilters, limit: int) -> Built:
    """The sources of the newest ``limit`` summarization spans ``filters`` select (as `sumwatch traces` lists
    them), with each span's summary in the metadata."""
    rows = list_traces(store, limit=limit, filters=filters)
    texts = span_texts(store, [(r.trace_id, r.span_id) for r in rows])
    items = []
    for r in rows:
        found = texts.get((r.trace_id, r.span_id))
        if found is None:
            continue
        source, summary, band, facts = found
        items.append(_item(source, expected_facts=facts, band=band or r.band, metadata={
            SUMMARY_BEFORE: summary, "trace_id": r.trace_id, "span_id": r.span_id, "service": r.service,
            "model": r.model, "prompt_version": r.prompt_version, "domain": r.domain}))
    built = Built()
    _without_text(built, len(rows) - len(items), "spans")
    _distinct(items, built, "spans")
    return built


def from_corpus(store: Store, rubric: str, status: str | None = None) -> Built:
    """One item per distinct source of ``rubric``'s corpus (items of ``status``; by default all but rejected
    ones): a labelled passing summary is the item's reference, another one its ``summary_before``."""
    found = [i for i in load_items(store, rubric=rubric, status=status) if status is not None or i.status != REJECTED]
    by_source: dict[str, list[CorpusItem]] = {}
    for corpus_item in found:
        by_source.setdefault(corpus_item.source, []).append(corpus_item)
    built = Built()
    for source, group in by_source.items():
        good = [i for i in group if i.status == LABELLED and i.bucket == PASS_BUCKET and i.summary and not i.claim]
        other = next((i for i in group if i not in good), None)
        metadata: dict[str, Any] = {"rubric": rubric, "corpus_items": " ".join(i.item_id for i in group)}
        if other is not None:
            metadata |= {SUMMARY_BEFORE: other.text, "human_verdict": other.human_verdict, "bucket": other.bucket}
        built.items.append(_item(source, reference=good[0].summary if good else "",
                                 expected_facts=next((i.expected_facts for i in group if i.expected_facts), ()),
                                 band=next((i.band for i in group if i.band), ""), metadata=metadata))
    shared = len(found) - len(by_source)
    if shared:
        built.notes.append(f"{shared} corpus items share a source with another: one item per source")
    return built

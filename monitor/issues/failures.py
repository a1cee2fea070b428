"""Failing scores in a window, one failure per span, with its text and its embedding (stored once).

    failures = load_failures(store, start_ns, end_ns)          # one Failure per failing span
    failures[0].text        # "factuality numerically_wrong (number_mismatch): In "A 95-minute ..." ..."
    failures[0].document    # a digest of the span's source text: failures of one document share it
    vectors, computed = embed_failures(store, embedder, failures)   # cached in sumwatch_embeddings

A span can fail several rubrics at once (a changed number fails factuality and groundedness). Clustering
works on spans, so each span gets one primary failure: the most trusted tier first (LLM, then rules, then
embeddings), then the lowest score, then a team's own rubrics (by name) before the built-in ones in the order
factuality, groundedness, conciseness, completeness: a team writes a rubric for the failure it wants to track,
and a built-in rubric failing beside it is mostly the general form of the same fault (a ``negations`` rubric
and factuality's polarity_wrong), so the issue is named after the team's.
The others are named at the end of the text. Only the latest judgement of each (span, rubric) counts, and
error verdicts are not failures (the sampler retries them).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from sumwatch.clustering.name import clip

from ..rubrics.verdicts import COMPLETENESS, CONCISENESS, ERROR, FACTUALITY, GROUNDEDNESS, LLM, PASSING_ANY, RULES
from ..store.connection import Store, quote_ident
from ..store.embeddings import cached_vectors, save_vectors, text_hash
from ..store.experiments import NOT_EXPERIMENT
from ..store.judges import active_definitions
from ..store.scores import SCORES_TABLE
from ..store.traces import source_digests

_TIER_RANK = {LLM: 0, RULES: 1}  # anything else (embeddings) after these
_RUBRIC_RANK = {FACTUALITY: 0, GROUNDEDNESS: 1, CONCISENESS: 2, COMPLETENESS: 3}  # a custom rubric: -1
_PASSING_ITEM = PASSING_ANY | {""}  # a detail row that flags nothing
_SUMMARY_QUOTE = re.compile(r'summary: "([^"]+)"')
_MAX_PART = 240  # characters of evidence and sentence in a failure text (the model reads 256 tokens)


@dataclass(frozen=True)
class FailingScore:
    rubric: str
    verdict: str
    score: float
    failure_mode: str
    tier: str
    evidence: str
    explanation: str
    sentence: str  # the offending summary sentence, when the judge named one


@dataclass(frozen=True)
class Failure:
    """One failing span: its primary failing score, the others, and the text that is embedded."""

    trace_id: str
    span_id: str
    timestamp_ns: int
    service: str
    primary: FailingScore
    others: tuple[FailingScore, ...] = ()
    text: str = field(default="", compare=False)
    document: str = field(default="", compare=False)  # a digest of the span's source text ("" when unknown)

    @property
    def rubric(self) -> str:
        return self.primary.rubric

    @property
    def failure_mode(self) -> str:
        return self.primary.failure_mode


def _rank(s: FailingScore) -> tuple[Any, ...]:
    return (_TIER_RANK.get(s.tier, 2), s.score, _RUBRIC_RANK.get(s.rubric, -1), s.rubric)


def failure_text(primary: FailingScore, others: Sequence[FailingScore] = ()) -> str:
    """What gets embedded: rubric, verdict and failure mode, the judge's explanation, evidence and sentence.

    The label comes first in words and then again as the judge wrote it: said twice, the kind of failure
    outweighs what the document was about (names, numbers and topics vary within a failure mode)."""
    mode = primary.failure_mode
    in_words = f"{primary.rubric} {primary.verdict.replace('_', ' ')}"
    parts = [in_words + (f" ({mode.replace('_', ' ')})." if mode else "."),
             f"{primary.rubric} {primary.verdict}" + (f" ({mode})" if mode else "") + ":",
             clip(primary.explanation, 2 * _MAX_PART)]
    if primary.evidence:
        parts.append(f"Evidence: {clip(primary.evidence, _MAX_PART)}")
    if primary.sentence and primary.sentence not in primary.evidence:
        parts.append(f"Sentence: {clip(primary.sentence, _MAX_PART)}")
    if others:
        parts.append("Also failing: " + ", ".join(f"{o.rubric} {o.failure_mode or o.verdict}" for o in others) + ".")
    return " ".join(p for p in parts if p)


def offending_sentence(details: str, evidence: str, passing: frozenset[str] = _PASSING_ITEM) -> str:
    """The summary sentence a judge blamed: a failing claim or sentence in its details, else the quote
    from the summary in its evidence. ``passing``: the item verdicts that flag nothing (a custom rubric's
    come from its definition)."""
    try:
        items = json.loads(details) if details else []
    except ValueError:
        items = []
    for item in items if isinstance(items, list) else []:
        if not isinstance(item, dict):
            continue
        status = str(item.get("status", ""))
        failing = status not in passing or bool(item.get("issue"))
        if "support" in item and not status:  # embedding-tier sentences carry a support figure
            failing = float(item.get("support") or 0.0) < 0.5
        text = item.get("claim") or item.get("sentence")
        if failing and isinstance(text, str) and text.strip():
            return " ".join(text.split())
    match = _SUMMARY_QUOTE.search(evidence or "")
    return match.group(1) if match else ""


def load_failures(store: Store, start_ns: int, end_ns: int, *, limit: int | None = None) -> list[Failure]:
    """Spans with a failing latest score whose span time is in [start, end), oldest first."""
    params: dict[str, Any] = {"start": start_ns, "end": end_ns, "err": ERROR}
    rows = store.query_rows(
        f"""SELECT TraceId, SpanId, Rubric, toUnixTimestamp64Nano(max(SpanTimestamp)) AS ts,
               any(ServiceName), argMax(Verdict, ScoredAt) AS verdict, argMax(Passed, ScoredAt) AS passed,
               argMax(Score, ScoredAt), argMax(FailureMode, ScoredAt), argMax(Tier, ScoredAt),
               argMax(Evidence, ScoredAt), argMax(Explanation, ScoredAt), argMax(Details, ScoredAt)
        FROM {quote_ident(SCORES_TABLE)} FINAL
        WHERE SpanTimestamp >= fromUnixTimestamp64Nano({{start:Int64}})
          AND SpanTimestamp < fromUnixTimestamp64Nano({{end:Int64}}) AND {NOT_EXPERIMENT}
        GROUP BY TraceId, SpanId, Rubric
        HAVING passed = 0 AND verdict != {{err:String}}
        ORDER BY ts, TraceId, SpanId, Rubric""", params)
    spans: dict[tuple[str, str], list[FailingScore]] = {}
    where: dict[tuple[str, str], tuple[int, str]] = {}
    custom = {name: _PASSING_ITEM | {v.name for v in d.verdicts if v.passes}
              for name, d in active_definitions(store).items() if not d.builtin} if rows else {}
    for tid, sid, rubric, ts, service, verdict, _, score, mode, tier, evidence, explanation, details in rows:
        key = (tid, sid)
        spans.setdefault(key, []).append(FailingScore(
            rubric, verdict, float(score), mode, tier, evidence, explanation,
            offending_sentence(details, evidence, custom.get(rubric, _PASSING_ITEM))))
        where[key] = (int(ts), service)
    out = []
    for key, scores in spans.items():
        ordered = sorted(scores, key=_rank)
        ts, service = where[key]
        out.append(Failure(key[0], key[1], ts, service, ordered[0], tuple(ordered[1:]),
                           failure_text(ordered[0], ordered[1:])))
        if limit is not None and len(out) >= limit:
            break
    documents = source_digests(store, [(f.trace_id, f.span_id) for f in out]) if out else {}
    return [replace(f, document=documents.get((f.trace_id, f.span_id), "")) for f in out]


def embed_failures(store: Store, embedder: Any, failures: Sequence[Failure], *, model: str,
                   batch: int = 512, on_progress: Callable[[int, int], None] | None = None
                   ) -> tuple[np.ndarray, int]:
    """A unit vector per failure, read from ``sumwatch_embeddings`` when this model embedded the same text
    before, otherwise computed and stored. Returns the vectors and how many were computed now."""
    hashes = [text_hash(f.text) for f in failures]
    unique = list(dict.fromkeys(hashes))
    known = cached_vectors(store, model, unique)
    text_of = {h: f.text for h, f in zip(hashes, failures)}
    todo = [h for h in unique if h not in known]
    done = 0
    if on_progress:
        on_progress(0, len(todo))
    for i in range(0, len(todo), batch):
        chunk = todo[i:i + batch]
        vectors = np.asarray(embedder.encode([text_of[h] for h in chunk]), dtype=np.float32)
        fresh = dict(zip(chunk, vectors))
        save_vectors(store, model, fresh)
        known.update(fresh)
        done += len(chunk)
        if on_progress:
            on_progress(done, len(todo))
    if not failures:
        return np.zeros((0, 0), dtype=np.float32), 0
    return np.stack([known[h] for h in hashes]), len(todo)

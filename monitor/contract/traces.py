"""Summarization spans as the API serves them: a listing's rows, one trace's spans, the unsure results.

    rows = client.traces(limit=20)         # [TraceRow(...)], newest first
    spans = client.trace(normalize_trace_id(" 5B8EFFF798038103D269B633813FC60C "))   # [SpanDetail(...)]

The store makes them (:mod:`sumwatch.monitor.store.listing`, :mod:`~sumwatch.monitor.store.traces`,
:mod:`~sumwatch.monitor.store.recognised`, :mod:`~sumwatch.monitor.store.unsure`); the client parses them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

TAGGED = "sumwatch"  # what a listing names as the instrumentation of a span carrying sumwatch's own tag


def normalize_trace_id(trace_id: str) -> str:
    """A trace id as stored (32 lowercase hex); ValueError for anything else."""
    tid = trace_id.strip().lower()
    if len(tid) != 32 or any(c not in "0123456789abcdef" for c in tid):
        raise ValueError(f"trace id must be 32 hex characters, got {trace_id!r}")
    return tid


@dataclass(frozen=True)
class TraceRow:
    timestamp: str
    trace_id: str
    span_id: str
    service: str
    band: str
    domain: str
    document_id: str
    source_words: int
    summary_words: int
    status: str
    duration_ms: float
    summary_preview: str
    timestamp_ns: int = 0  # the stored timestamp exactly (``timestamp`` is rounded to ms): a cursor's key
    source_preview: str = ""
    model: str = ""
    input_tokens: int | None = None
    output_tokens: int | None = None
    # "sumwatch" for a span carrying sumwatch's tag, else the instrumentation (or selector) it was recognised in
    instrumentation: str = TAGGED
    prompt_version: str = ""
    # rubric -> "pass", "fail" or "unsure": the latest judgement of each (judge errors are not judgements)
    verdicts: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class RecognisedSpan:
    """One span recognised as a summarization call, with what the judge and the dashboard read from it."""

    timestamp_ns: int
    trace_id: str
    span_id: str
    service: str
    span_name: str
    # openinference, gen_ai(-events), openllmetry, logfire, langfuse, litellm, pydantic-ai, vercel-ai (the span's
    # scope first, see scoring/instrumentation_names.py), or a selector's name
    instrumentation: str
    source: str
    summary: str
    model: str = ""
    prompt_version: str = ""
    input_tokens: int | None = None
    output_tokens: int | None = None
    band: str = ""
    document_id: str = ""
    how: str = ""  # the rule that found the request and the cut that took the document out


@dataclass(frozen=True)
class SpanDetail:
    timestamp: str
    trace_id: str
    span_id: str
    parent_span_id: str
    name: str
    kind: str
    service: str
    status: str
    status_message: str
    duration_ms: float
    attributes: dict[str, str]
    resource_attributes: dict[str, str]
    events: list[dict[str, Any]]
    depth: int = 0  # in the trace's tree of spans: 0 for a span whose parent is not in the trace
    children: list[str] = field(default_factory=list)  # span ids of the spans whose parent this is, oldest first
    model: str = ""  # from whichever convention the span uses (MODEL_KEYS), or its recognised row
    input_tokens: int | None = None
    output_tokens: int | None = None
    summarization: bool = False  # tagged with sumwatch's tag, or recognised
    recognised: RecognisedSpan | None = None  # the document and answer found in another instrumentation's span


@dataclass(frozen=True)
class UnsureSpan:
    trace_id: str
    span_id: str
    rubric: str
    verdict: str  # what the cheap tier would have said (contradicted, padded, ...)
    tier: str
    evidence: str
    explanation: str
    service: str
    span_time: str
    judge_version: str


@dataclass(frozen=True)
class UnsureKind:
    kind: str  # what was suspected: a failure mode or a contradiction's kind
    count: int  # unsure results of this kind (span and rubric each once)
    spans: list[UnsureSpan] = field(default_factory=list)  # the newest ones, at most ``per_kind``

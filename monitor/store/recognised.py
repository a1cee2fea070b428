"""``sumwatch_recognised``: the summarization calls found in other instrumentations' spans, read once.

    write_recognised(store, [RecognisedSpan(...)])               # by the sampler's recognition step
    texts = recognised_texts(store, [(trace_id, span_id)])       # {(trace_id, span_id): (source, summary)}

A span from OpenInference, the OTel GenAI conventions, OpenLLMetry, Logfire or Langfuse (or one a configured
selector matches) holds its document and answer inside message lists, JSON or log records. Reading them
takes Python (:mod:`sumwatch.monitor.scoring.recognise`), so it is done once per span, when the sampler first
sees it, and the result is kept here: the document and the answer as the judge reads them, the model, tokens,
band, document id and prompt version from whichever convention the span uses, and which instrumentation and
rule found it. Every read that lists or counts summarization spans takes these beside the spans carrying
sumwatch's own tag. A span read again with newer rules replaces its row (``RecognisedAt`` decides).
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .connection import Store, quote_ident
from .ddl import Table, Target

RECOGNISED_TABLE = "sumwatch_recognised"


@dataclass(frozen=True)
class RecognisedSpan:
    """One span recognised as a summarization call, with what the judge and the dashboard read from it."""

    timestamp_ns: int
    trace_id: str
    span_id: str
    service: str
    span_name: str
    instrumentation: str  # openinference, gen_ai, gen_ai-events, openllmetry, logfire, langfuse, or a selector's name
    source: str
    summary: str
    model: str = ""
    prompt_version: str = ""
    input_tokens: int | None = None
    output_tokens: int | None = None
    band: str = ""
    document_id: str = ""
    how: str = ""  # the rule that found the request and the cut that took the document out


COLUMNS = ("Timestamp", "TraceId", "SpanId", "ServiceName", "SpanName", "Instrumentation", "Source", "Summary",
           "Model", "PromptVersion", "InputTokens", "OutputTokens", "Band", "DocumentId", "How", "RecognisedAt")


def _create(t: Target) -> str:
    return f"""CREATE TABLE IF NOT EXISTS {t.name(RECOGNISED_TABLE)}{t.on_cluster} (
    Timestamp DateTime64(9) CODEC(Delta(8), ZSTD(1)),
    TraceId String CODEC(ZSTD(1)),
    SpanId String CODEC(ZSTD(1)),
    ServiceName LowCardinality(String),
    SpanName LowCardinality(String),
    Instrumentation LowCardinality(String),
    Source String CODEC(ZSTD(1)),
    Summary String CODEC(ZSTD(1)),
    Model LowCardinality(String),
    PromptVersion LowCardinality(String),
    InputTokens Nullable(UInt32),
    OutputTokens Nullable(UInt32),
    Band LowCardinality(String),
    DocumentId String CODEC(ZSTD(1)),
    How LowCardinality(String),
    RecognisedAt DateTime64(3)
) ENGINE = {t.engine("ReplacingMergeTree", "RecognisedAt")}
PARTITION BY toYYYYMM(Timestamp)
ORDER BY (TraceId, SpanId)"""


# sharded by trace like the spans, the events and the scores
RECOGNISED = Table(RECOGNISED_TABLE, "cityHash64(TraceId)", _create)


def write_recognised(store: Store, rows: Sequence[RecognisedSpan]) -> None:
    """One INSERT; raw nanoseconds, as a datetime would round them to microseconds."""
    if not rows:
        return
    now_ms = time.time_ns() // 1_000_000
    store.insert(RECOGNISED_TABLE, [
        (r.timestamp_ns, r.trace_id, r.span_id, r.service, r.span_name, r.instrumentation, r.source, r.summary,
         r.model, r.prompt_version, r.input_tokens, r.output_tokens, r.band, r.document_id, r.how, now_ms)
        for r in rows], COLUMNS)


def recognised_texts(store: Store, spans: Iterable[tuple[str, str]]) -> dict[tuple[str, str], tuple[str, str]]:
    """(source, summary) of each recognised (trace id, span id); spans not recognised are absent."""
    wanted = sorted(set(spans))
    if not wanted:
        return {}
    rows = store.query_rows(
        f"SELECT TraceId, SpanId, argMax(Source, RecognisedAt), argMax(Summary, RecognisedAt) "
        f"FROM {quote_ident(RECOGNISED_TABLE)} WHERE TraceId IN {{tids:Array(String)}} "
        f"AND (TraceId, SpanId) IN {{pairs:Array(Tuple(String, String))}} GROUP BY TraceId, SpanId",
        {"tids": sorted({t for t, _ in wanted}), "pairs": wanted})
    return {(tid, sid): (source, summary) for tid, sid, source, summary in rows}

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
from typing import Any

from ..contract.traces import RecognisedSpan
from .connection import Store, quote_ident
from .ddl import Table, Target
from .score_facts import SPAN_KEY
from .span_facts import SPAN_FACTS_TABLE
from .span_keys import SPAN_KEYS_TABLE

RECOGNISED_TABLE = "sumwatch_recognised"


COLUMNS = ("Timestamp", "TraceId", "SpanId", "ServiceName", "SpanName", "Instrumentation", "Source", "Summary",
           "Model", "PromptVersion", "InputTokens", "OutputTokens", "Band", "DocumentId", "How", "RecognisedAt")
_FACT_COLUMNS = ("Timestamp", "TraceId", "SpanId", "ServiceName", "Model", "PromptVersion")


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
    """One INSERT each into this table, the span facts and the span keys; raw nanoseconds, as a datetime
    would round them to microseconds.

    The facts and keys of tagged spans are filled by views on ``otel_traces``; a recognised span is found
    later, by the sampler, so its rows go in here: then the overview, the charts, the filters and the
    comparisons by model and prompt version count it like a tagged span. A span written again (read anew,
    or by two samplers) adds copies their readers already allow for (``FINAL``, ``uniqExact``, ANY joins).
    """
    if not rows:
        return
    now_ms = time.time_ns() // 1_000_000
    store.insert(RECOGNISED_TABLE, [
        (r.timestamp_ns, r.trace_id, r.span_id, r.service, r.span_name, r.instrumentation, r.source, r.summary,
         r.model, r.prompt_version, r.input_tokens, r.output_tokens, r.band, r.document_id, r.how, now_ms)
        for r in rows], COLUMNS)
    store.insert(SPAN_FACTS_TABLE, [(r.timestamp_ns, r.trace_id, r.span_id, r.service, r.model, r.prompt_version)
                                    for r in rows], _FACT_COLUMNS)
    # the keys are hashes of the ids: computed by the engine, the same function the views use
    store.command(
        f"INSERT INTO {quote_ident(SPAN_KEYS_TABLE)} (SpanKey, TraceHash, Timestamp, Model, PromptVersion) "
        f"SELECT {SPAN_KEY}, cityHash64(TraceId), fromUnixTimestamp64Nano(Ns), Model, PromptVersion FROM "
        f"(SELECT r.1 AS TraceId, r.2 AS SpanId, r.3 AS Ns, r.4 AS Model, r.5 AS PromptVersion "
        f"FROM (SELECT arrayJoin({{rows:Array(Tuple(String, String, Int64, String, String))}}) AS r))",
        {"rows": [(r.trace_id, r.span_id, r.timestamp_ns, r.model, r.prompt_version) for r in rows]})


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


@dataclass(frozen=True)
class RecognisedFacts:
    """What a listing shows of a recognised span: previews and word counts of its texts, not the texts."""

    instrumentation: str
    source_preview: str
    summary_preview: str
    source_words: int
    summary_words: int
    model: str
    input_tokens: int | None
    output_tokens: int | None
    band: str
    document_id: str
    prompt_version: str


# each span's latest row as one tuple ``r``: r.1 ns, r.2 service, r.3 span name, r.4 instrumentation, r.5 source,
# r.6 summary, r.7 model, r.8 prompt version, r.9 input tokens, r.10 output tokens, r.11 band, r.12 document id,
# r.13 how
_LATEST = ("argMax(tuple(toUnixTimestamp64Nano(Timestamp), ServiceName, SpanName, Instrumentation, Source, Summary, "
           "Model, PromptVersion, InputTokens, OutputTokens, Band, DocumentId, How), RecognisedAt)")


def _latest(store: Store, columns: str, spans: Iterable[tuple[str, str]], params: dict[str, Any] | None = None
            ) -> list[tuple[Any, ...]]:
    """TraceId, SpanId and ``columns`` (of ``r``, the latest row) of the recognised spans among ``spans``."""
    wanted = sorted(set(spans))
    if not wanted:
        return []
    return store.query_rows(
        f"SELECT TraceId, SpanId, {columns} FROM (SELECT TraceId, SpanId, {_LATEST} AS r "
        f"FROM {quote_ident(RECOGNISED_TABLE)} WHERE TraceId IN {{tids:Array(String)}} "
        f"AND (TraceId, SpanId) IN {{pairs:Array(Tuple(String, String))}} GROUP BY TraceId, SpanId)",
        {**(params or {}), "tids": sorted({t for t, _ in wanted}), "pairs": wanted})


def recognised_facts(store: Store, spans: Iterable[tuple[str, str]], preview: int = 200
                     ) -> dict[tuple[str, str], RecognisedFacts]:
    """What a listing shows of each recognised (trace id, span id): ``preview`` characters of each text and
    its words (whitespace-separated, as the tracer counts them)."""
    rows = _latest(store, "r.4, substring(r.5, 1, {preview:UInt32}), substring(r.6, 1, {preview:UInt32}), "
                          "length(splitByWhitespace(r.5)), length(splitByWhitespace(r.6)), r.7, r.9, r.10, r.11, "
                          "r.12, r.8", spans, {"preview": preview})
    return {(tid, sid): RecognisedFacts(inst, src, summ, int(sw), int(mw), model, _int(i), _int(o), band, doc, pv)
            for tid, sid, inst, src, summ, sw, mw, model, i, o, band, doc, pv in rows}


def read_recognised(store: Store, spans: Iterable[tuple[str, str]]) -> dict[tuple[str, str], RecognisedSpan]:
    """The latest row of each recognised (trace id, span id), whole; spans not recognised are absent.

        found = read_recognised(store, [(trace_id, span_id)]).get((trace_id, span_id))
    """
    rows = _latest(store, "r.1, r.2, r.3, r.4, r.5, r.6, r.7, r.8, r.9, r.10, r.11, r.12, r.13", spans)
    return {(tid, sid): RecognisedSpan(int(ns), tid, sid, svc, name, inst, src, summ, model, pv, _int(i), _int(o),
                                       band, doc, how)
            for tid, sid, ns, svc, name, inst, src, summ, model, pv, i, o, band, doc, how in rows}


def _int(value: Any) -> int | None:
    return None if value is None else int(value)

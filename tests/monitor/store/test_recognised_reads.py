"""Spans recognised in another instrumentation's trace are read like tagged ones: listed, paged, counted,
filtered, compared, their texts the document and the answer, their trace a tree with model and tokens."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from fakes.genai_trace import ANSWER, DOCUMENT, MODEL, SERVICE, openinference_trace

from sumwatch.monitor.rubrics.verdicts import RubricResult
from sumwatch.monitor.store import stats
from sumwatch.monitor.store.listing import list_stored_spans, list_traces, next_traces_cursor
from sumwatch.monitor.store.recognised import write_recognised
from sumwatch.monitor.store.scores import ScoredSpan, SpanRef, write_scores
from sumwatch.monitor.store.traces import get_trace, source_digests, span_texts
from sumwatch.tracer import semconv

T0 = datetime(2026, 3, 2, 10, 0, tzinfo=timezone.utc)


def _ns(at: datetime) -> int:
    return int(at.timestamp() * 1e9)


def span_row(i: int, at: datetime) -> tuple:
    """A span carrying sumwatch's tag, as the tracer writes it (service digest, model gpt-4o-mini)."""
    attrs = {semconv.TASK: semconv.TASK_SUMMARIZATION, semconv.INPUT_VALUE: f"source {i}",
             semconv.OUTPUT_VALUE: f"summary {i}", semconv.GEN_AI_REQUEST_MODEL: "gpt-4o-mini",
             semconv.PROMPT_VERSION: "v3"}
    return (_ns(at), f"{i:032x}", f"{i:016x}", "", "", semconv.SPAN_NAME, "Internal", "digest",
            {"service.name": "digest"}, semconv.INSTRUMENTATION_NAME, "", attrs, 1_000_000, "Unset", "",
            (), (), (), (), (), (), ())


def mixed(store, recognised: int = 3, tagged: int = 3):
    """``tagged`` spans with sumwatch's tag (service digest), then ``recognised`` OpenInference traces, each
    written twice to the recognised table (read again by a second sampler pass); newest last."""
    store.insert_spans([span_row(i, T0 + timedelta(minutes=i)) for i in range(tagged)])
    found = []
    for i in range(recognised):
        rows, r = openinference_trace(_ns(T0 + timedelta(minutes=10 + i)))
        store.insert_spans(rows)
        found.append(r)
    write_recognised(store, found)
    write_recognised(store, found)
    return found


def test_the_listing_shows_recognised_spans_with_their_document_answer_model_and_tokens(store):
    found = mixed(store)
    listed = list_traces(store, limit=20)
    assert [(t.trace_id, t.span_id) for t in listed[:3]] == [(r.trace_id, r.span_id) for r in reversed(found)]
    assert len(listed) == 6  # each recognised span once, its parent span (not a summarization) not at all
    top = listed[0]
    assert (top.instrumentation, top.service, top.model, top.input_tokens, top.output_tokens) == (
        "openinference", SERVICE, MODEL, 41, 15)
    assert (top.source_preview, top.summary_preview, top.band) == (DOCUMENT, ANSWER, "tldr")
    assert (top.source_words, top.summary_words) == (len(DOCUMENT.split()), len(ANSWER.split()))
    assert top.status == "Ok" and top.duration_ms > 0
    tagged = listed[-1]
    assert (tagged.instrumentation, tagged.model, tagged.summary_preview) == ("sumwatch", "gpt-4o-mini", "summary 0")


def test_filters_and_cursors_walk_tagged_and_recognised_spans_together(store):
    found = mixed(store, recognised=4, tagged=5)
    assert {t.span_id for t in list_traces(store, service=SERVICE, limit=50)} == {r.span_id for r in found}
    assert len(list_traces(store, band="tldr", limit=50)) == 4  # the tagged spans record no band here
    assert list_traces(store, domain="finance", limit=50) == []  # a recognised span has no domain
    assert len(list_traces(store, since=T0 + timedelta(minutes=11), limit=50)) == 3
    walked, cursor = [], None
    while True:
        page = list_traces(store, limit=2, cursor=cursor)
        walked += [(t.trace_id, t.span_id) for t in page]
        cursor = next_traces_cursor(page, 2)
        if cursor is None:
            break
    assert len(walked) == len(set(walked)) == 9
    whole = list_stored_spans(store, limit=50, service=SERVICE)
    assert {s.name for s in whole} == {"ChatCompletion"} and len(whole) == 4
    assert whole[0].attributes["llm.model_name"] == MODEL


def test_recognised_spans_are_counted_once_in_the_overview_filters_and_comparisons(store):
    found = mixed(store, recognised=2, tagged=3)
    everything = stats.Filters()
    assert sum(n for _, n in stats.volume_series(store, everything, 3600)) == 5  # written twice, counted once
    assert sum(n for _, n in stats.volume_series(store, stats.Filters(model=MODEL), 3600)) == 2
    options = stats.filter_options(store)
    assert SERVICE in options.services and MODEL in options.models
    for i, r in enumerate(found):
        result = RubricResult.make("factuality", "correct" if i == 0 else "numerically_wrong", tier="rules")
        write_scores(store, [ScoredSpan(SpanRef(r.trace_id, r.span_id, r.timestamp_ns, SERVICE),
                                        {"factuality": result})], judge_version="cascade-1")
    by_model = {row.group: row for row in stats.compare(store, everything, "model")}
    assert (by_model[MODEL].passed, by_model[MODEL].total) == (1, 2)
    narrowed = stats.pass_rate_series(store, stats.Filters(model=MODEL), 3600)["factuality"]
    assert sum(t for _, _, t in narrowed) == 2


def test_span_texts_are_the_recognised_document_and_answer_not_the_message_json(store):
    (r,) = mixed(store, recognised=1, tagged=1)
    texts = span_texts(store, [(r.trace_id, r.span_id), (f"{0:032x}", f"{0:016x}"), ("f" * 32, "f" * 16)])
    assert texts[(r.trace_id, r.span_id)] == (DOCUMENT, ANSWER, "tldr", ())
    assert texts[(f"{0:032x}", f"{0:016x}")][:2] == ("source 0", "summary 0")
    assert len(texts) == 2
    parent = next(s for s in get_trace(store, r.trace_id) if s.name == "summarize_article")
    assert span_texts(store, [(r.trace_id, parent.span_id)]) == {}  # not a summarization: no texts


def test_a_trace_reads_as_a_tree_with_model_and_tokens_from_either_convention(store):
    (r,) = mixed(store, recognised=1, tagged=0)
    root, llm = get_trace(store, r.trace_id)
    assert (root.name, root.depth, root.children, root.summarization) == (
        "summarize_article", 0, [llm.span_id], False)
    assert (llm.name, llm.depth, llm.parent_span_id, llm.children) == ("ChatCompletion", 1, root.span_id, [])
    assert (llm.model, llm.input_tokens, llm.output_tokens, llm.summarization) == (MODEL, 41, 15, True)
    assert llm.recognised is not None and llm.recognised.source == DOCUMENT
    assert (root.model, root.input_tokens, root.recognised) == ("", None, None)


def test_the_older_gen_ai_token_names_and_the_response_model_are_read_too(store):
    row = span_row(7, T0)
    attrs = {k: v for k, v in row[11].items() if k != "gen_ai.request.model"}
    attrs |= {"gen_ai.response.model": "claude-3-5-haiku", "gen_ai.usage.prompt_tokens": "300",
              "gen_ai.usage.completion_tokens": "40"}
    store.insert_spans([(*row[:11], attrs, *row[12:])])
    (span,) = get_trace(store, row[1])
    assert (span.model, span.input_tokens, span.output_tokens) == ("claude-3-5-haiku", 300, 40)
    (listed,) = list_traces(store, limit=5)
    assert (listed.model, listed.input_tokens, listed.output_tokens) == ("claude-3-5-haiku", 300, 40)


def test_a_source_digest_is_shared_by_spans_of_the_same_document_and_only_by_them(store):
    found = mixed(store, recognised=2, tagged=2)
    same = span_row(7, T0 + timedelta(minutes=30))
    same[11][semconv.INPUT_VALUE] = "source 0"  # a later summary of span 0's document
    blind = span_row(8, T0 + timedelta(minutes=31))
    del blind[11][semconv.INPUT_VALUE]  # text capture off: the tracer kept the source's SHA-256
    blind[11][semconv.SOURCE_HASH] = "ab" * 32
    store.insert_spans([same, blind])
    keys = [(f"{i:032x}", f"{i:016x}") for i in (0, 1, 7, 8, 9)] + [(r.trace_id, r.span_id) for r in found]
    digests = source_digests(store, keys, chunk=3)  # chunks smaller than the keys: every chunk is read
    assert digests[keys[0]] == digests[keys[2]] != digests[keys[1]]
    assert digests[keys[3]] == "ab" * 32 and keys[4] not in digests  # a span never stored has no digest
    # recognised spans: their document (the same one in both traces), not their request's message JSON
    assert digests[keys[5]] == digests[keys[6]] not in (digests[keys[0]], digests[keys[1]])
    assert digests[keys[5]] == store.query_rows("SELECT lower(hex(cityHash64({d:String})))", {"d": DOCUMENT})[0][0]

"""Spans recognised in another instrumentation's trace are read like tagged ones: listed, paged, counted,
filtered, compared, their texts the document and the answer, their trace a tree with model and tokens. They read
the shared seeded store's recognised part (tests/seeded.py)."""

from __future__ import annotations

from datetime import timedelta

from fakes.genai_trace import ANSWER, DOCUMENT, MODEL, SERVICE
from seeded import LEGACY, RECOGNISED_END, RECOGNISED_T0, recognised, wire_key

from sumwatch.monitor.contract.listing import TraceFilters
from sumwatch.monitor.store import stats
from sumwatch.monitor.store.listing import list_stored_spans, list_traces, next_traces_cursor
from sumwatch.monitor.store.traces import get_trace, source_digests, span_texts

# the seeded store's recognised part: tagged wire spans 0-4 (10:00-10:04, no band), then four OpenInference
# traces (10:10-10:13), each recognised twice (a second sampler pass); later wire spans 7 and 8 and the legacy span
WINDOW = TraceFilters(since=RECOGNISED_T0, until=RECOGNISED_END)


def found():
    return [r for _, r in recognised()]


def test_the_listing_shows_recognised_spans_with_their_document_answer_model_and_tokens(seeded_store):
    listed = list_traces(seeded_store, limit=20, filters=WINDOW)
    assert [(t.trace_id, t.span_id) for t in listed[:4]] == [(r.trace_id, r.span_id) for r in reversed(found())]
    assert len(listed) == 9  # each recognised span once, its parent span (not a summarization) not at all
    top = listed[0]
    assert (top.instrumentation, top.service, top.model, top.input_tokens, top.output_tokens) == (
        "openinference", SERVICE, MODEL, 41, 15)
    assert (top.source_preview, top.summary_preview, top.band) == (DOCUMENT, ANSWER, "tldr")
    assert (top.source_words, top.summary_words) == (len(DOCUMENT.split()), len(ANSWER.split()))
    assert top.status == "Ok" and top.duration_ms > 0
    tagged = listed[-1]
    assert (tagged.instrumentation, tagged.model, tagged.summary_preview) == ("sumwatch", "gpt-4o-mini", "summary 0")


def test_filters_and_cursors_walk_tagged_and_recognised_spans_together(seeded_store):
    store = seeded_store
    assert {t.span_id for t in list_traces(store, service=SERVICE, limit=50)} == {r.span_id for r in found()}
    assert len(list_traces(store, band="tldr", limit=50, filters=WINDOW)) == 4  # the tagged spans record no band
    assert list_traces(store, service=SERVICE, domain="finance", limit=50) == []  # a recognised span has no domain
    assert len(list_traces(store, since=RECOGNISED_T0 + timedelta(minutes=11), limit=50,
                           filters=TraceFilters(until=RECOGNISED_END))) == 3
    walked, cursor = [], None
    while True:
        page = list_traces(store, limit=2, cursor=cursor, filters=WINDOW)
        walked += [(t.trace_id, t.span_id) for t in page]
        cursor = next_traces_cursor(page, 2)
        if cursor is None:
            break
    assert len(walked) == len(set(walked)) == 9
    whole = list_stored_spans(store, limit=50, service=SERVICE)
    assert {s.name for s in whole} == {"ChatCompletion"} and len(whole) == 4
    assert whole[0].attributes["llm.model_name"] == MODEL


def test_recognised_spans_are_counted_once_in_the_overview_filters_and_comparisons(seeded_store):
    store = seeded_store
    window = stats.Filters(start=RECOGNISED_T0, end=RECOGNISED_END)
    assert sum(n for _, n in stats.volume_series(store, window, 3600)) == 9  # recognised twice, counted once
    assert sum(n for _, n in stats.volume_series(store, stats.Filters(model=MODEL), 3600)) == 4
    options = stats.filter_options(store)
    assert SERVICE in options.services and MODEL in options.models
    # factuality passed on the first recognised span and failed on the second
    by_model = {row.group: row for row in stats.compare(store, stats.Filters(), "model")}
    assert (by_model[MODEL].passed, by_model[MODEL].total) == (1, 2)
    narrowed = stats.pass_rate_series(store, stats.Filters(model=MODEL), 3600)["factuality"]
    assert sum(t for _, _, t in narrowed) == 2


def test_span_texts_are_the_recognised_document_and_answer_not_the_message_json(seeded_store):
    r = found()[0]
    texts = span_texts(seeded_store, [(r.trace_id, r.span_id), wire_key(0), ("f" * 32, "f" * 16)])
    assert texts[(r.trace_id, r.span_id)] == (DOCUMENT, ANSWER, "tldr", ())
    assert texts[wire_key(0)][:2] == ("source 0", "summary 0")
    assert len(texts) == 2
    parent = next(s for s in get_trace(seeded_store, r.trace_id) if s.name == "summarize_article")
    assert span_texts(seeded_store, [(r.trace_id, parent.span_id)]) == {}  # not a summarization: no texts


def test_a_trace_reads_as_a_tree_with_model_and_tokens_from_either_convention(seeded_store):
    r = found()[0]
    root, llm = get_trace(seeded_store, r.trace_id)
    assert (root.name, root.depth, root.children, root.summarization) == (
        "summarize_article", 0, [llm.span_id], False)
    assert (llm.name, llm.depth, llm.parent_span_id, llm.children) == ("ChatCompletion", 1, root.span_id, [])
    assert (llm.model, llm.input_tokens, llm.output_tokens, llm.summarization) == (MODEL, 41, 15, True)
    assert llm.recognised is not None and llm.recognised.source == DOCUMENT
    assert (root.model, root.input_tokens, root.recognised) == ("", None, None)


def test_the_older_gen_ai_token_names_and_the_response_model_are_read_too(seeded_store):
    # the legacy span: no request model, the response's model and the older token names
    (span,) = get_trace(seeded_store, LEGACY[1])
    assert (span.model, span.input_tokens, span.output_tokens) == ("claude-3-5-haiku", 300, 40)
    (listed,) = list_traces(seeded_store, service="legacy", limit=5)
    assert (listed.model, listed.input_tokens, listed.output_tokens) == ("claude-3-5-haiku", 300, 40)


def test_a_source_digest_is_shared_by_spans_of_the_same_document_and_only_by_them(seeded_store):
    # wire span 7 summarizes span 0's document again; span 8 was stored with text capture off (the tracer kept
    # the source's SHA-256, "ab" * 32); span 9 was never stored
    traces = found()[:2]
    keys = [wire_key(i) for i in (0, 1, 7, 8, 9)] + [(r.trace_id, r.span_id) for r in traces]
    digests = source_digests(seeded_store, keys, chunk=3)  # chunks smaller than the keys: every chunk is read
    assert digests[keys[0]] == digests[keys[2]] != digests[keys[1]]
    assert digests[keys[3]] == "ab" * 32 and keys[4] not in digests  # a span never stored has no digest
    # recognised spans: their document (the same one in both traces), not their request's message JSON
    assert digests[keys[5]] == digests[keys[6]] not in (digests[keys[0]], digests[keys[1]])
    assert digests[keys[5]] == seeded_store.query_rows("SELECT lower(hex(cityHash64({d:String})))",
                                                       {"d": DOCUMENT})[0][0]

"""Reads of otel_traces see each span once, however many times it was stored (an exporter's retry)."""

from fakes.tracing import memory_provider

from sumwatch.monitor.store.listing import list_traces
from sumwatch.monitor.store.traces import count_spans, first_spans, get_trace
from sumwatch.tracer import summarization
from sumwatch.tracer.otel_traces import TRACES_TABLE, spans_to_rows


def summarization_rows(n: int, service: str = "digest") -> list[tuple]:
    """``n`` summarization spans as the receiver stores them, oldest first, 1 ms apart."""
    provider, memory = memory_provider(service)

    @summarization(band="tldr", tracer_provider=provider)
    def summarize(text: str) -> str:
        return "A short summary."

    for i in range(n):
        summarize(f"Document {i}: revenue rose {i}% in May, the company said.")
    rows = spans_to_rows(memory.get_finished_spans())
    base = rows[0][0]
    return [(base + i * 1_000_000, *row[1:]) for i, row in enumerate(rows)]


def stored_rows(store) -> int:
    return store.query_rows(f"SELECT count() FROM {TRACES_TABLE}")[0][0]


def test_the_listing_shows_a_span_stored_twice_once_and_keeps_its_limit(store):
    rows = summarization_rows(30)
    store.insert_spans(rows)
    store.insert_spans(rows[15:])  # the newest batch again: stored, then retried after a lost answer
    assert stored_rows(store) == 45

    newest = [(r[1], r[2]) for r in reversed(rows)]
    listed = list_traces(store, limit=20)
    assert [(t.trace_id, t.span_id) for t in listed] == newest[:20]
    assert [(t.trace_id, t.span_id) for t in list_traces(store, limit=100)] == newest


def test_the_listing_reads_further_when_copies_fill_what_it_first_read(store):
    rows = summarization_rows(40)
    for _ in range(4):  # every span four times: the first prefix read holds a quarter of the spans asked for
        store.insert_spans(rows)
    newest = [(r[1], r[2]) for r in reversed(rows)]
    assert [(t.trace_id, t.span_id) for t in list_traces(store, limit=12)] == newest[:12]
    assert len(list_traces(store, limit=40)) == 40
    assert [(t.trace_id, t.span_id) for t in list_traces(store, service="digest", limit=50)] == newest


def test_first_spans_keeps_the_order_and_stops_when_the_rows_run_out(store):
    rows = summarization_rows(10)
    store.insert_spans(rows)
    store.insert_spans(rows[::2])
    sql = (f"SELECT TraceId, SpanId, toUnixTimestamp64Nano(Timestamp) AS ts FROM {TRACES_TABLE} "
           "WHERE ts >= {since:Int64} ORDER BY ts LIMIT {prefix:UInt64}")
    got = first_spans(store, sql, {"since": rows[3][0]}, limit=5)
    assert [(t, s) for t, s, _ in got] == [(r[1], r[2]) for r in rows[3:8]]
    assert len(first_spans(store, sql, {"since": 0}, limit=1000)) == 10
    assert first_spans(store, sql, {"since": 0}, limit=0) == []


def test_a_trace_shows_each_of_its_spans_once(store):
    provider, memory = memory_provider("digest")
    tracer = provider.get_tracer("test")

    @summarization(band="tldr", tracer_provider=provider)
    def summarize(text: str) -> str:
        return "Short."

    with tracer.start_as_current_span("request"):
        summarize("The first document, long enough to summarize.")
        summarize("The second document, long enough to summarize.")
    rows = spans_to_rows(memory.get_finished_spans())
    store.insert_spans(rows)
    store.insert_spans(rows)
    store.insert_spans(rows[:1])
    trace_id = rows[0][1]
    spans = get_trace(store, trace_id)
    assert sorted(s.span_id for s in spans) == sorted(r[2] for r in rows)
    assert [s.name for s in spans].count("request") == 1



def test_first_spans_without_fill_answers_from_one_read(store):
    rows = summarization_rows(10)
    for _ in range(8):
        store.insert_spans(rows)
    sql = (f"SELECT TraceId, SpanId, toUnixTimestamp64Nano(Timestamp) AS ts FROM {TRACES_TABLE} "
           "ORDER BY ts LIMIT {prefix:UInt64}")
    oldest = [(r[1], r[2]) for r in rows]
    short = [(t, s) for t, s, _ in first_spans(store, sql, {}, limit=5, fill=False)]
    assert 1 <= len(short) < 5 and short == oldest[:len(short)]  # a sampler batch may come short; it reads on
    assert [(t, s) for t, s, _ in first_spans(store, sql, {}, limit=5)] == oldest[:5]


def test_the_span_count_counts_a_span_stored_twice_once(store):
    before = count_spans(store)
    rows = summarization_rows(4, service="counted")
    store.insert_spans(rows)
    store.insert_spans(rows[:3])  # a retried batch
    assert count_spans(store) == before + 4

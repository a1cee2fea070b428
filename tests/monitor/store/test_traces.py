"""Reads of otel_traces see each span once, however many times it was stored (an exporter's retry): the shared
seeded store's copies (tests/seeded.py), and a count of spans written here."""

from seeded import desk_rows, feed_rows, gateway_rows, relay_rows, summarization_rows

from sumwatch.monitor.store.listing import list_traces
from sumwatch.monitor.store.traces import count_spans, first_spans, get_trace
from sumwatch.tracer.otel_traces import TRACES_TABLE


def stored_rows(store, service: str) -> int:
    sql = f"SELECT count() FROM {TRACES_TABLE} WHERE ServiceName = {{s:String}}"
    return store.query_rows(sql, {"s": service})[0][0]


def newest_first(rows) -> list[tuple[str, str]]:
    return [(r[1], r[2]) for r in reversed(rows)]


def test_the_listing_shows_a_span_stored_twice_once_and_keeps_its_limit(seeded_store):
    # the seeded desk: 30 spans, the newest in the store, the newest 15 stored again (a retried batch)
    rows = desk_rows()
    assert stored_rows(seeded_store, "desk") == 45
    newest = newest_first(rows)
    listed = list_traces(seeded_store, limit=20)
    assert [(t.trace_id, t.span_id) for t in listed] == newest[:20]
    assert [(t.trace_id, t.span_id) for t in list_traces(seeded_store, limit=100)][:30] == newest
    assert [(t.trace_id, t.span_id) for t in list_traces(seeded_store, service="desk", limit=100)] == newest


def test_the_listing_reads_further_when_copies_fill_what_it_first_read(seeded_store):
    # the seeded relay: every span four times, so the first prefix read holds a quarter of the spans asked for
    rows = relay_rows()
    assert stored_rows(seeded_store, "relay") == 4 * 40
    newest = newest_first(rows)
    assert [(t.trace_id, t.span_id) for t in list_traces(seeded_store, service="relay", limit=12)] == newest[:12]
    assert len(list_traces(seeded_store, service="relay", limit=40)) == 40
    assert [(t.trace_id, t.span_id) for t in list_traces(seeded_store, service="relay", limit=50)] == newest


FEED_SQL = (f"SELECT TraceId, SpanId, toUnixTimestamp64Nano(Timestamp) AS ts FROM {TRACES_TABLE} "
            "WHERE ServiceName = 'feed' AND ts >= {since:Int64} ORDER BY ts LIMIT {prefix:UInt64}")


def test_first_spans_keeps_the_order_and_stops_when_the_rows_run_out(seeded_store):
    rows = feed_rows()  # 10 spans, each stored eight times
    got = first_spans(seeded_store, FEED_SQL, {"since": rows[3][0]}, limit=5)
    assert [(t, s) for t, s, _ in got] == [(r[1], r[2]) for r in rows[3:8]]
    assert len(first_spans(seeded_store, FEED_SQL, {"since": 0}, limit=1000)) == 10
    assert first_spans(seeded_store, FEED_SQL, {"since": 0}, limit=0) == []


def test_a_trace_shows_each_of_its_spans_once(seeded_store):
    rows = gateway_rows()  # a request that summarized two documents, stored twice, its first row a third time
    assert stored_rows(seeded_store, "gateway") == 7
    spans = get_trace(seeded_store, rows[0][1])
    assert sorted(s.span_id for s in spans) == sorted(r[2] for r in rows)
    assert [s.name for s in spans].count("request") == 1


def test_first_spans_without_fill_answers_from_one_read(seeded_store):
    rows = feed_rows()
    oldest = [(r[1], r[2]) for r in rows]
    short = [(t, s) for t, s, _ in first_spans(seeded_store, FEED_SQL, {"since": 0}, limit=5, fill=False)]
    assert 1 <= len(short) < 5 and short == oldest[:len(short)]  # a sampler batch may come short; it reads on
    assert [(t, s) for t, s, _ in first_spans(seeded_store, FEED_SQL, {"since": 0}, limit=5)] == oldest[:5]


def test_the_span_count_counts_a_span_stored_twice_once(store):
    before = count_spans(store)
    rows = summarization_rows(4, service="counted")
    store.insert_spans(rows)
    store.insert_spans(rows[:3])  # a retried batch
    assert count_spans(store) == before + 4

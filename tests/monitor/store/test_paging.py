"""Listings page with a cursor: a walk of pages gives every row once, in order, under ties, copies and inserts."""

import random
from datetime import datetime, timedelta, timezone

import pytest

from sumwatch.monitor.contract.calibration import CorpusItem
from sumwatch.monitor.store.corpus import load_items, next_corpus_cursor, save_items
from sumwatch.monitor.store.listing import list_stored_spans, list_traces, next_traces_cursor
from sumwatch.monitor.store.paging import SCORES_CURSOR, TRACES_CURSOR, decode_cursor, encode_cursor
from sumwatch.monitor.store.scores import (
    SCORE_COLUMNS,
    SCORES_TABLE,
    list_scores,
    next_scores_cursor,
    next_scores_key_cursor,
    scores_by_key,
)
from sumwatch.tracer import semconv

BASE_NS = 1_780_000_000_000_000_000  # 2026-05-28


def span_rows(n: int, rng: random.Random, *, tie: int = 4, start: int = 0, service: str = "digest",
              domain: str = "news") -> list[tuple]:
    """``n`` summarization spans in otel_traces column order; each ``tie`` of them share one timestamp."""
    rows = []
    for i in range(start, start + n):
        rows.append((
            BASE_NS + (i // tie) * 1_000_000, rng.getrandbits(128).to_bytes(16, "big").hex(),
            rng.getrandbits(64).to_bytes(8, "big").hex(), "", "", semconv.SPAN_NAME, "Internal", service,
            {"service.name": service}, semconv.INSTRUMENTATION_NAME, "0.1",
            {semconv.TASK: semconv.TASK_SUMMARIZATION, semconv.OUTPUT_VALUE: f"summary {i}",
             semconv.SUMMARIZATION_BAND: "tldr", semconv.DOMAIN: domain},
            1_000_000, "Unset", "", (), (), (), (), (), (), (),
        ))
    return rows


def newest_first(rows: list[tuple]) -> list[tuple[str, str]]:
    return [(r[1], r[2]) for r in sorted(rows, key=lambda r: (r[0], r[1], r[2]), reverse=True)]


def walk_traces(store, limit: int, between=None, **filters) -> list[tuple[str, str]]:
    seen, cursor, pages = [], None, 0
    while True:
        page = list_traces(store, limit=limit, cursor=cursor, **filters)
        assert len(page) <= limit
        seen += [(t.trace_id, t.span_id) for t in page]
        pages += 1
        if between is not None:
            between(pages)
        cursor = next_traces_cursor(page, limit)
        if cursor is None:
            return seen


def test_a_walk_of_trace_pages_gives_each_span_once_in_order_with_ties_and_copies(store):
    rows = span_rows(53, random.Random(1))
    store.insert_spans(rows)
    store.insert_spans(rows[10:30])  # a retried batch: stored twice
    store.insert_spans(rows[40:41] * 3)
    expected = newest_first(rows)
    assert [(t.trace_id, t.span_id) for t in list_traces(store, limit=7)] == expected[:7]  # the first page
    for limit in (1, 4, 7, 53, 100):
        assert walk_traces(store, limit) == expected
    # a domain filter reads without the span facts' bound: it pages the same way
    assert walk_traces(store, 5, domain="news") == expected
    assert walk_traces(store, 6, service="digest", since=datetime.fromtimestamp(BASE_NS / 1e9, timezone.utc)
                       ) == expected


def test_whole_spans_page_like_the_listing_when_copies_crowd_their_short_prefix(store):
    rows = span_rows(45, random.Random(8), tie=2)
    for _ in range(3):  # every span three times: a prefix 5% longer than a page holds a third of it
        store.insert_spans(rows)
    seen, cursor = [], None
    while True:
        page = list_stored_spans(store, limit=10, cursor=cursor)
        seen += [(s.trace_id, s.span_id) for s in page]
        assert [s.attributes[semconv.OUTPUT_VALUE] for s in page] == [
            t.summary_preview for t in list_traces(store, limit=10, cursor=cursor)]
        cursor = next_traces_cursor(page, 10)
        if cursor is None:
            break
    assert seen == newest_first(rows)


def test_whole_spans_read_only_their_window_when_every_span_is_stored_twice(store, monkeypatch):
    rows = span_rows(60, random.Random(9), tie=1)
    store.insert_spans(rows)
    store.insert_spans(rows)  # the span facts hold both copies until a merge
    reads: list[tuple[str, dict]] = []
    query_rows = store.query_rows
    monkeypatch.setattr(store, "query_rows",
                        lambda sql, params=None: reads.append((sql, params or {})) or query_rows(sql, params))
    page = list_stored_spans(store, limit=10)
    more = list_stored_spans(store, limit=10, cursor=next_traces_cursor(page, 10))
    assert [(s.trace_id, s.span_id) for s in page + more] == newest_first(rows)[:20]
    spans = [params for sql, params in reads if "FROM otel_traces" in sql]
    # never the read of every span: each begins where the span facts' window of recent spans does
    assert spans and all(params["start"] >= min(r[0] for r in rows[30:]) for params in spans)


def test_spans_stored_during_a_walk_are_not_in_its_later_pages_and_copies_are_not_repeated(store):
    rng = random.Random(2)
    rows = span_rows(40, rng, tie=3)
    store.insert_spans(rows)
    expected = newest_first(rows)

    def insert(pages: int) -> None:
        if pages == 1:
            store.insert_spans(span_rows(9, rng, start=100))  # newer spans
            store.insert_spans(rows[-6:])  # copies of spans the first page gave
        if pages == 2:
            store.insert_spans(rows[:5])  # copies of spans a later page gives
            store.insert_spans(span_rows(4, rng, start=200, tie=1, domain="other"))

    assert walk_traces(store, 6, between=insert) == expected
    assert len(walk_traces(store, 6)) == 40 + 9 + 4


def score_row(trace_id: str, span_id: str, rubric: str, at: datetime, *, judge: str = "j-1", passed: bool = True
              ) -> tuple:
    values = {"TraceId": trace_id, "SpanId": span_id, "Rubric": rubric, "JudgeVersion": judge,
              "SpanTimestamp": at, "ScoredAt": at, "ServiceName": "digest", "Verdict": "ok", "Score": 1.0,
              "Passed": int(passed), "FailureMode": "", "Tier": "rules", "Evidence": "", "Explanation": "",
              "Model": "", "InputTokens": 0, "OutputTokens": 0, "CostUsd": 0.0, "LatencyMs": 1.0, "Error": "",
              "Details": "[]"}
    return tuple(values[c] for c in SCORE_COLUMNS)


def score_keys(n: int, rng: random.Random, at0: datetime, *, tie: int = 5) -> list[tuple]:
    rows = []
    for i in range(n):
        tid = rng.getrandbits(128).to_bytes(16, "big").hex()
        for rubric in ("factuality", "conciseness"):
            rows.append(score_row(tid, rng.getrandbits(64).to_bytes(8, "big").hex(), rubric,
                                  at0 + timedelta(milliseconds=i // tie)))
    return rows


def score_order(rows: list[tuple]) -> list[tuple[str, str, str, str]]:
    """(trace, span, rubric, judge) newest first, as the listing orders them."""
    ordered = sorted(rows, key=lambda r: (-r[5].timestamp(), r[0], r[2], r[1], r[3]))
    return [(r[0], r[1], r[2], r[3]) for r in ordered]


def walk_scores(store, limit: int, between=None, **filters) -> list[tuple[str, str, str, str]]:
    seen, cursor, pages = [], None, 0
    while True:
        page = list_scores(store, limit=limit, cursor=cursor, **filters)
        seen += [(s.trace_id, s.span_id, s.rubric, s.judge_version) for s in page]
        pages += 1
        if between is not None:
            between(pages)
        cursor = next_scores_cursor(page, limit)
        if cursor is None:
            return seen


def test_a_walk_of_score_pages_gives_each_key_once_in_order_with_ties_and_rescoring(store):
    at0 = datetime(2026, 5, 1, tzinfo=timezone.utc)
    rows = score_keys(30, random.Random(3), at0)
    store.insert(SCORES_TABLE, rows, SCORE_COLUMNS)
    # older judgements of ten keys, stored later: FINAL keeps the newer ones already there
    store.insert(SCORES_TABLE, [r[:5] + (at0 - timedelta(days=1),) + r[6:] for r in rows[:10]], SCORE_COLUMNS)
    expected = score_order(rows)
    assert [(s.trace_id, s.span_id, s.rubric, s.judge_version) for s in list_scores(store, limit=9)] == expected[:9]
    for limit in (1, 4, 9, 60, 100):
        assert walk_scores(store, limit) == expected
    assert walk_scores(store, 7, rubric="factuality") == [k for k in expected if k[2] == "factuality"]
    one = rows[0][0]
    assert walk_scores(store, 1, trace_id=one) == [k for k in expected if k[0] == one]


def test_scores_stored_during_a_walk_are_not_in_its_later_pages(store):
    rng = random.Random(4)
    at0 = datetime(2026, 5, 1, tzinfo=timezone.utc)
    rows = score_keys(25, rng, at0, tie=3)
    store.insert(SCORES_TABLE, rows, SCORE_COLUMNS)
    expected = score_order(rows)
    newest = max(r[5] for r in rows)

    def insert(pages: int) -> None:
        if pages == 1:
            store.insert(SCORES_TABLE, score_keys(6, rng, newest + timedelta(seconds=1)), SCORE_COLUMNS)
            # a key the first page gave, judged again: it moves to the front, before the cursor
            store.insert(SCORES_TABLE, [rows_by_key[expected[0]][:5] + (newest + timedelta(seconds=5),)
                                        + rows_by_key[expected[0]][6:]], SCORE_COLUMNS)

    rows_by_key = {(r[0], r[1], r[2], r[3]): r for r in rows}
    assert walk_scores(store, 8, between=insert) == expected
    assert len(walk_scores(store, 8)) == 50 + 12


def test_a_walk_of_scores_in_key_order_gives_each_key_once_as_its_newest_judgement(store):
    at0 = datetime(2026, 5, 1, tzinfo=timezone.utc)
    rng = random.Random(6)
    rows = score_keys(20, rng, at0)
    store.insert(SCORES_TABLE, rows, SCORE_COLUMNS)
    keys = sorted((r[0], r[1], r[2], r[3]) for r in rows)
    later = max(r[5] for r in rows) + timedelta(minutes=1)
    seen, verdicts, cursor, pages = [], {}, None, 0
    while True:
        page = scores_by_key(store, limit=6, cursor=cursor)
        seen += [(s.trace_id, s.span_id, s.rubric, s.judge_version) for s in page]
        verdicts.update({(s.trace_id, s.span_id, s.rubric, s.judge_version): s.verdict for s in page})
        pages += 1
        if pages == 1:  # judged again: one key the walk gave, one it has not reached
            again = [r for r in rows if (r[0], r[1], r[2], r[3]) in (keys[0], keys[-1])]
            store.insert(SCORES_TABLE, [r[:5] + (later,) + r[6:7] + ("rejudged",) + r[8:] for r in again],
                         SCORE_COLUMNS)
        cursor = next_scores_key_cursor(page, 6)
        if cursor is None:
            break
    assert seen == keys
    assert verdicts[keys[0]] == "ok" and verdicts[keys[-1]] == "rejudged"
    failing = [(s.trace_id, s.rubric) for s in scores_by_key(store, failing_only=True, limit=100)]
    assert failing == []
    with pytest.raises(ValueError, match="it pages 'scores', not 'scores-by-key'"):
        scores_by_key(store, cursor=encode_cursor(SCORES_CURSOR, (1, "a", "b", "c", "d")))


def test_a_failing_listing_is_right_when_replaced_failures_fill_what_it_first_read(store):
    """Old failing judgements since replaced by passes crowd the newest stored failing rows: the rows the
    listing gives are the newest live failures, not later rows of the same traces."""
    at0 = datetime(2026, 5, 1, tzinfo=timezone.utc)
    rng = random.Random(5)
    tid = rng.getrandbits(128).to_bytes(16, "big").hex()
    # one trace: 30 failing judgements, each replaced by a pass, and three live failures far older
    old = [score_row(tid, f"{i:016x}", "factuality", at0 + timedelta(hours=10, seconds=i), passed=False)
           for i in range(30)]
    passes = [r[:5] + (at0 + timedelta(hours=20),) + r[6:9] + (1,) + r[10:] for r in old]
    buried = [score_row(tid, f"f{i:015x}", "factuality", at0 + timedelta(seconds=i), passed=False) for i in range(3)]
    others = [score_row(rng.getrandbits(128).to_bytes(16, "big").hex(), "a" * 16, "factuality",
                        at0 + timedelta(hours=5, seconds=i), passed=False) for i in range(3)]
    store.insert(SCORES_TABLE, old + buried + others, SCORE_COLUMNS)
    store.insert(SCORES_TABLE, passes, SCORE_COLUMNS)
    got = [(s.trace_id, s.span_id) for s in list_scores(store, failing_only=True, limit=3)]
    assert got == [(r[0], r[1]) for r in reversed(others)]
    assert [k[1] for k in walk_scores(store, 2, failing_only=True)] == ["a" * 16] * 3 + [r[1] for r in buried[::-1]]


def test_a_walk_of_corpus_pages_gives_each_item_once_in_order(store):
    items = [CorpusItem(rubric=rubric, source=f"Source {i}.", summary=f"Summary {i}.", human_verdict=verdict,
                        bucket=("pass", "numbers", "entities")[i % 3])
             for i in range(23) for rubric, verdict in (("factuality", "correct"), ("completeness", "present"))]
    save_items(store, items)
    save_items(store, items[:5])  # saved again: replaced, not added
    everything = [i.item_id for i in load_items(store)]
    assert len(everything) == 46
    for limit in (1, 4, 46):
        seen, cursor = [], None
        while True:
            page = load_items(store, limit=limit, cursor=cursor)
            seen += [i.item_id for i in page]
            cursor = next_corpus_cursor(page, limit)
            if cursor is None:
                break
        assert seen == everything
    first = load_items(store, rubric="factuality", limit=5)
    rest = load_items(store, rubric="factuality", limit=100, cursor=next_corpus_cursor(first, 5))
    assert [i.item_id for i in first + rest] == [i.item_id for i in load_items(store, rubric="factuality")]


def test_a_cursor_this_server_did_not_give_is_refused_in_one_line(store):
    rows = span_rows(6, random.Random(6))
    store.insert_spans(rows)
    good = next_traces_cursor(list_traces(store, limit=3), 3)
    assert good is not None and good.replace("-", "").replace("_", "").isalnum()
    scores_cursor = encode_cursor(SCORES_CURSOR, (1, "a", "b", "c", "d"))
    tampered = good[:-3] + ("A" if good[-3] != "A" else "B") + good[-2:]
    for bad in ("", "not a cursor!", "AAAA", good[:-4], tampered, scores_cursor, "x" * 5000,
                encode_cursor(TRACES_CURSOR, ("1", "a", "b")), encode_cursor(TRACES_CURSOR, (True, "a", "b")),
                encode_cursor(TRACES_CURSOR, (2**64, "a", "b"))):
        with pytest.raises(ValueError) as err:
            list_traces(store, limit=3, cursor=bad)
        message = str(err.value)
        assert message.startswith("cursor is not one this server gave: ") and "\n" not in message
    with pytest.raises(ValueError, match="cursor is not one this server gave: it pages 'traces', not 'scores'"):
        list_scores(store, cursor=good)
    with pytest.raises(ValueError, match="cursor is not one this server gave: it pages 'traces', not 'corpus'"):
        load_items(store, limit=5, cursor=good)
    assert decode_cursor(TRACES_CURSOR, good, (int, str, str))[1:] == newest_first(rows)[2]


def test_the_last_page_has_no_next_cursor():
    assert next_traces_cursor([], 5) is None and next_scores_cursor([], 5) is None

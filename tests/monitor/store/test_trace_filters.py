"""The trace explorer's reads: the listing searched and filtered (text, model, prompt version, verdicts,
unsure, issue, time), each row's verdicts, and the unsure results grouped by what was suspected."""

from __future__ import annotations

from datetime import datetime, timezone

from fakes.tracing import memory_provider

from sumwatch.monitor.contract.listing import TraceFilters
from sumwatch.monitor.rubrics.cascade import unsure
from sumwatch.monitor.rubrics.verdicts import RubricResult
from sumwatch.monitor.store.issue_members import MemberRow, save_members
from sumwatch.monitor.store.listing import list_traces, next_traces_cursor
from sumwatch.monitor.store.runs import CLUSTER_RUNS_TABLE
from sumwatch.monitor.store.scores import ScoredSpan, SpanRef, write_scores
from sumwatch.monitor.store.unsure import unsure_kinds
from sumwatch.tracer import semconv, summarization_attributes
from sumwatch.tracer.otel_traces import spans_to_rows

T0 = 1_772_445_600_000_000_000  # 2026-03-02 10:00 UTC, in ns


def explorer_rows(n: int) -> list[tuple]:
    """``n`` summarization spans 1 s apart, oldest first: span i on model m{i % 2}, prompt v{i % 3}, a source
    naming "Zanzibar" when i % 5 == 0."""
    provider, memory = memory_provider("digest")
    tracer = provider.get_tracer("test")
    for i in range(n):
        place = "Zanzibar" if i % 5 == 0 else "Lisbon"
        attrs = summarization_attributes(f"Document {i}: revenue in {place} rose {i}% in May.",
                                         f"Revenue rose {i}%.", band="tldr", prompt_version=f"v{i % 3}")
        tracer.start_span("summarize", attributes={**attrs, semconv.GEN_AI_REQUEST_MODEL: f"m{i % 2}"}).end()
    rows = spans_to_rows(memory.get_finished_spans())
    return [(T0 + i * 1_000_000_000, *row[1:]) for i, row in enumerate(rows)]


def judge(store, rows, i: int, rubric: str, result: RubricResult) -> None:
    ref = SpanRef(rows[i][1], rows[i][2], rows[i][0], "digest")
    write_scores(store, [ScoredSpan(ref, {rubric: result})], "cascade-test")


def keys(listed) -> list[int]:
    return [int(r.summary_preview.split()[-1].rstrip("%.")) for r in listed]


def test_search_and_filters_pick_the_matching_spans_newest_first(store):
    rows = explorer_rows(30)
    store.insert_spans(rows)
    failing = RubricResult.make("factuality", "numerically_wrong", failure_mode="number_mismatch",
                                evidence='"7%"', explanation="The figure differs.")
    judge(store, rows, 7, "factuality", failing)
    judge(store, rows, 8, "factuality", RubricResult.make("factuality", "correct"))
    judge(store, rows, 9, "factuality", unsure(failing, "number_mismatch"))

    assert keys(list_traces(store, limit=50, filters=TraceFilters(q="zanZIBAR"))) == [25, 20, 15, 10, 5, 0]
    assert keys(list_traces(store, limit=50, filters=TraceFilters(q="zanzibar", model="m1"))) == [25, 15, 5]
    assert keys(list_traces(store, limit=50, filters=TraceFilters(prompt_version="v2", model="m0"))) == [26, 20, 14,
                                                                                                          8, 2]
    until = datetime.fromtimestamp((T0 + 4_500_000_000) / 1e9, timezone.utc)
    since = datetime.fromtimestamp((T0 + 2_000_000_000) / 1e9, timezone.utc)
    assert keys(list_traces(store, limit=50, filters=TraceFilters(since=since, until=until))) == [4, 3, 2]
    assert keys(list_traces(store, limit=50, filters=TraceFilters(rubric="factuality", verdict="fail"))) == [7]
    assert keys(list_traces(store, limit=50, filters=TraceFilters(rubric="factuality", verdict="pass"))) == [9, 8]
    assert keys(list_traces(store, limit=50, filters=TraceFilters(certainty="unsure"))) == [9]
    assert keys(list_traces(store, limit=50, filters=TraceFilters(certainty="confident"))) == [8, 7]
    assert list_traces(store, limit=50, filters=TraceFilters(q="no such words")) == []

    by_key = {k: r for k, r in zip(keys(list_traces(store, limit=50)), list_traces(store, limit=50))}
    assert by_key[7].verdicts == {"factuality": "fail"} and by_key[9].verdicts == {"factuality": "unsure"}
    assert by_key[8].verdicts == {"factuality": "pass"} and by_key[10].verdicts == {}
    assert (by_key[10].model, by_key[10].prompt_version) == ("m0", "v1")


def test_each_rubric_shows_its_latest_judgement_across_judge_versions_and_errors_left_out(store):
    rows = explorer_rows(4)
    store.insert_spans(rows)
    failing = RubricResult.make("factuality", "numerically_wrong", failure_mode="number_mismatch",
                                evidence='"7%"', explanation="The figure differs.")
    correct = RubricResult.make("factuality", "correct")
    for i, results in ((0, (unsure(failing, "number_mismatch"), correct)),  # unsure, then judged sure
                       (1, (correct, unsure(failing, "number_mismatch"))),
                       (2, (unsure(failing, "number_mismatch"), RubricResult.failed_judge("factuality", "timeout"))),
                       (3, (unsure(failing, "number_mismatch"), failing))):
        for version, result in enumerate(results):
            judge_version = f"cascade-{version}"
            ref = SpanRef(rows[i][1], rows[i][2], rows[i][0], "digest")
            write_scores(store, [ScoredSpan(ref, {"factuality": result})], judge_version)

    verdicts = {k: r.verdicts["factuality"] for k, r in zip(keys(list_traces(store, limit=10)),
                                                            list_traces(store, limit=10))}
    assert verdicts == {0: "pass", 1: "unsure", 2: "unsure", 3: "fail"}


def test_a_search_pages_by_cursor_through_matches_older_than_the_recent_window(store):
    rows = explorer_rows(200)
    store.insert_spans(rows)
    # matches are one in five: a page of 4 needs a window wider than the newest facts of one page
    wanted = TraceFilters(q="Zanzibar")
    seen, cursor = [], None
    while True:
        page = list_traces(store, limit=4, cursor=cursor, filters=wanted)
        seen += keys(page)
        cursor = next_traces_cursor(page, 4)
        if cursor is None:
            break
    assert seen == list(range(195, -1, -5))


def test_an_issue_filter_lists_its_members_in_the_latest_run(store):
    rows = explorer_rows(10)
    store.insert_spans(rows)
    store.command(f"INSERT INTO {CLUSTER_RUNS_TABLE} (RunId, StartedAt, FinishedAt) VALUES "
                  "('run-1', now() - 60, now() - 30), ('run-2', now() - 20, now())")
    save_members(store, [_member("run-1", 4, rows[1]), _member("run-2", 4, rows[3]), _member("run-2", 4, rows[6]),
                         _member("run-2", 5, rows[2])])
    assert keys(list_traces(store, limit=50, filters=TraceFilters(issue="SW-4"))) == [6, 3]


def _member(run: str, number: int, row: tuple) -> MemberRow:
    at = datetime.fromtimestamp(row[0] / 1e9, timezone.utc)
    return MemberRow(run, number, row[1], row[2], at, "digest", "factuality", "numerically_wrong", "number_mismatch",
                     0.9, "member", "", "", datetime.now(timezone.utc))


def test_unsure_results_group_by_what_was_suspected(store):
    rows = explorer_rows(6)
    store.insert_spans(rows)
    wrong = RubricResult.make("factuality", "numerically_wrong", failure_mode="number_mismatch", evidence='"3%"')
    padded = RubricResult.make("conciseness", "padded", failure_mode="filler_phrase", evidence='"in conclusion"')
    for i in (1, 2, 3):
        judge(store, rows, i, "factuality", unsure(wrong, "number_mismatch"))
    judge(store, rows, 3, "conciseness", unsure(padded, "filler_phrase"))
    judge(store, rows, 4, "factuality", wrong)  # confirmed: a failure, not a suspicion
    judge(store, rows, 5, "factuality", RubricResult.make("factuality", "correct"))

    kinds = unsure_kinds(store)
    assert [(k.kind, k.count) for k in kinds] == [("number_mismatch", 3), ("filler_phrase", 1)]
    first = kinds[0].spans[0]
    assert (first.trace_id, first.rubric, first.verdict, first.evidence) == (
        rows[3][1], "factuality", "numerically_wrong", '"3%"')
    assert [len(k.spans) for k in unsure_kinds(store, per_kind=2)] == [2, 1]
    assert [k.kind for k in unsure_kinds(store, rubric="conciseness")] == ["filler_phrase"]
    # spans 1 and 3 are on model m1, span 2 on m0 and prompt v2
    assert [(k.kind, k.count) for k in unsure_kinds(store, model="m1")] == [("number_mismatch", 2),
                                                                             ("filler_phrase", 1)]
    assert [(k.kind, k.count) for k in unsure_kinds(store, model="m0", prompt_version="v2")] == [
        ("number_mismatch", 1)]

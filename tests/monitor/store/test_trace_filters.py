"""The trace explorer's reads: the listing searched and filtered (text, model, prompt version, verdicts,
unsure, issue, time), each row's verdicts, and the unsure results grouped by what was suspected. They read the
shared seeded store (tests/seeded.py: its briefs, archive and runs), but for the one that writes judgements in turn."""

from __future__ import annotations

from datetime import datetime, timezone

from seeded import BRIEFS_T0_NS, briefs_rows, explorer_rows

from sumwatch.monitor.contract.listing import TraceFilters
from sumwatch.monitor.rubrics.cascade import unsure
from sumwatch.monitor.rubrics.verdicts import RubricResult
from sumwatch.monitor.store.listing import list_traces, next_traces_cursor
from sumwatch.monitor.store.scores import ScoredSpan, SpanRef, write_scores
from sumwatch.monitor.store.unsure import unsure_kinds

BRIEFS = "briefs"


def keys(listed) -> list[int]:
    return [int(r.summary_preview.split()[-1].rstrip("%.")) for r in listed]


def test_search_and_filters_pick_the_matching_spans_newest_first(seeded_store):
    # the seeded briefs: span i on model m{i % 2}, prompt v{i % 3}, Zanzibar in its source when i % 5 == 0
    # (the only spans that name it); factuality fails on 4 and 7, passes on 5 and 8, passes unsure on 1, 2, 3
    # and 9; conciseness passes unsure on 3; groundedness fails on 11; completeness passes on 12
    store = seeded_store

    def listed(**filters) -> list[int]:
        return keys(list_traces(store, limit=50, filters=TraceFilters(**filters)))

    assert listed(q="zanZIBAR") == [25, 20, 15, 10, 5, 0]
    assert listed(q="zanzibar", model="m1") == [25, 15, 5]
    assert listed(prompt_version="v2", model="m0", service=BRIEFS) == [26, 20, 14, 8, 2]
    until = datetime.fromtimestamp((BRIEFS_T0_NS + 4_500_000_000) / 1e9, timezone.utc)
    since = datetime.fromtimestamp((BRIEFS_T0_NS + 2_000_000_000) / 1e9, timezone.utc)
    assert listed(since=since, until=until) == [4, 3, 2]
    assert listed(rubric="factuality", verdict="fail", service=BRIEFS) == [7, 4]
    assert listed(rubric="factuality", verdict="pass", service=BRIEFS) == [9, 8, 5, 3, 2, 1]
    assert listed(verdict="fail", service=BRIEFS) == [11, 7, 4]
    assert listed(certainty="unsure", service=BRIEFS) == [9, 3, 2, 1]
    assert listed(certainty="confident", service=BRIEFS) == [12, 11, 8, 7, 5, 4]  # 13's only judge erred
    assert listed(q="no such words") == []

    everything = list_traces(store, limit=50, service=BRIEFS)
    by_key = dict(zip(keys(everything), everything))
    assert len(by_key) == 30
    assert by_key[7].verdicts == {"factuality": "fail"} and by_key[9].verdicts == {"factuality": "unsure"}
    assert by_key[8].verdicts == {"factuality": "pass"} and by_key[10].verdicts == {}
    assert by_key[3].verdicts == {"conciseness": "unsure", "factuality": "unsure"}
    assert by_key[11].verdicts == {"groundedness": "fail"} and by_key[12].verdicts == {"completeness": "pass"}
    assert by_key[13].verdicts == {}  # a judge error is no verdict
    assert (by_key[10].model, by_key[10].prompt_version, by_key[10].domain) == ("m0", "v1", "finance")


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


def test_a_search_pages_by_cursor_through_matches_older_than_the_recent_window(seeded_store):
    # the seeded archive: 200 spans, one in five naming Mombasa, a day older than the store's newest spans;
    # a page of 4 needs a window wider than the newest facts of one page
    wanted = TraceFilters(q="Mombasa")
    seen, cursor = [], None
    while True:
        page = list_traces(seeded_store, limit=4, cursor=cursor, filters=wanted)
        assert {r.service for r in page} <= {"archive"}
        seen += keys(page)
        cursor = next_traces_cursor(page, 4)
        if cursor is None:
            break
    assert seen == list(range(195, -1, -5))


def test_an_issue_filter_lists_its_members_in_the_latest_run(seeded_store):
    # SW-4 had briefs span 1 in run-1, then spans 3 and 6 in run-3 (the latest); SW-5 had span 2 in run-3
    assert keys(list_traces(seeded_store, limit=50, filters=TraceFilters(issue="SW-4"))) == [6, 3]
    assert keys(list_traces(seeded_store, limit=50, filters=TraceFilters(issue="SW-5"))) == [2]


def test_unsure_results_group_by_what_was_suspected(seeded_store):
    # the store's unsure results with a suspicion are the briefs': a number mismatch on 1, 2, 3 and 9, filler on 3
    rows = briefs_rows()
    kinds = unsure_kinds(seeded_store)
    assert [(k.kind, k.count) for k in kinds] == [("number_mismatch", 4), ("filler_phrase", 1)]
    first = kinds[0].spans[0]  # the newest
    assert (first.trace_id, first.rubric, first.verdict, first.evidence) == (
        rows[9][1], "factuality", "numerically_wrong", '"7%"')
    assert [s.trace_id for s in kinds[0].spans] == [rows[i][1] for i in (9, 3, 2, 1)]
    assert [len(k.spans) for k in unsure_kinds(seeded_store, per_kind=2)] == [2, 1]
    assert [k.kind for k in unsure_kinds(seeded_store, rubric="conciseness")] == ["filler_phrase"]
    # spans 1, 3 and 9 are on model m1, span 2 on m0 and prompt v2
    assert [(k.kind, k.count) for k in unsure_kinds(seeded_store, model="m1")] == [("number_mismatch", 3),
                                                                                    ("filler_phrase", 1)]
    assert [(k.kind, k.count) for k in unsure_kinds(seeded_store, model="m0", prompt_version="v2")] == [
        ("number_mismatch", 1)]
    assert unsure_kinds(seeded_store, service="archive") == []

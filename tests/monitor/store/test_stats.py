"""The dashboard's readers on real chDB: spans written into otel_traces reach the span facts through the
view, and volume, pass rates, judge cost, comparisons and sparklines count what was stored."""

from datetime import timedelta

import pytest
from seeded import HOURS_END, HOURS_T0, seed_hours, span_row

from sumwatch.monitor.store import stats
from sumwatch.monitor.store.migrations import migrate
from sumwatch.monitor.store.span_facts import FILTER_OPTIONS_PROJECTION, SPAN_FACTS_TABLE

T0 = HOURS_T0
DAY0 = T0.replace(hour=0)
HOURS = stats.Filters(start=HOURS_T0, end=HOURS_END)  # the shared store's part of the dashboard's four hours


@pytest.fixture
def workload(store):
    """The seeded store's hours (40 spans, cascade-1's verdicts) in the test's own database, for a test that
    changes them."""
    seed_hours(store)
    return store


def test_span_facts_hold_each_summarization_span_with_its_model_and_prompt_version(seeded_store):
    opts = stats.filter_options(seeded_store)
    assert opts.services == ["alerts", "archive", "briefs", "desk", "digest", "feed", "gateway", "legacy",
                             "newsroom", "relay", "wire"]
    assert opts.models == ["claude-3-5-haiku", "gpt-4.1", "gpt-4o-mini", "gpt-4o-mini-2024-07-18", "m0", "m1"]
    assert opts.prompt_versions == ["v0", "v1", "v2", "v3", "v4"]
    # the retried span is stored twice in the facts too, and counted once; the chat span is in neither
    facts = seeded_store.query_rows(f"SELECT count() FROM {SPAN_FACTS_TABLE} WHERE Timestamp >= {{s:DateTime64(9)}} "
                                    "AND Timestamp < {e:DateTime64(9)}", {"s": HOURS_T0, "e": HOURS_END})
    assert facts[0][0] == 41
    assert sum(n for _, n in stats.volume_series(seeded_store, HOURS, 3600)) == 40


def test_volume_buckets_by_span_time_and_follows_every_filter(seeded_store):
    series = stats.volume_series(seeded_store, HOURS, 3600)
    assert series == [(T0 + timedelta(hours=h), 10) for h in range(4)]
    f = stats.Filters(start=T0 + timedelta(hours=1), end=T0 + timedelta(hours=3))
    assert stats.volume_series(seeded_store, f, 3600) == [(T0 + timedelta(hours=1), 10),
                                                          (T0 + timedelta(hours=2), 10)]
    everything = stats.volume_series(seeded_store, stats.Filters(), 86400)  # a bucket a day, one day a part
    assert everything == [(DAY0, 40), (DAY0 + timedelta(days=1), 30), (DAY0 + timedelta(days=2), 200),
                          (DAY0 + timedelta(days=3), 12), (DAY0 + timedelta(days=4), 82)]
    assert sum(n for _, n in stats.volume_series(seeded_store, stats.Filters(model="gpt-4.1"), 60)) == 20
    assert sum(n for _, n in stats.volume_series(seeded_store, stats.Filters(prompt_version="v3", service="digest"),
                                                 600)) == 20
    assert stats.volume_series(seeded_store, stats.Filters(prompt_version="v3", service="alerts"), 600) == []
    with pytest.raises(ValueError):
        stats.volume_series(seeded_store, stats.Filters(), 0)


def test_pass_rates_per_rubric_use_the_latest_judgement_and_count_unsure_as_passed(seeded_store):
    series = stats.pass_rate_series(seeded_store, HOURS, 3600)
    assert sorted(series) == ["conciseness", "factuality"]
    # cascade-1: hours 0-1 are v3 (5 of 10 fail), hours 2-3 are v4 (2 of 10 fail); then a later judge passed
    # span 0 unsure (passed, not confident: 6 of 10)
    assert series["factuality"] == [(T0, 6, 10), (T0 + timedelta(hours=1), 5, 10),
                                    (T0 + timedelta(hours=2), 8, 10), (T0 + timedelta(hours=3), 8, 10)]
    assert all(p == t == 10 for _, p, t in series["conciseness"])
    only_v4 = stats.pass_rate_series(seeded_store, stats.Filters(prompt_version="v4"), 7200)["factuality"]
    assert only_v4 == [(T0 + timedelta(hours=2), 16, 20)]
    assert stats.pass_rate_series(seeded_store, stats.Filters(model="none"), 3600) == {}
    # of the briefs' groundedness, span 11 failed and span 13's judge timed out: an error is no judgement
    briefs = stats.pass_rate_series(seeded_store, stats.Filters(service="briefs"), 86400)
    assert briefs["groundedness"] == [(DAY0 + timedelta(days=1), 0, 1)]


def test_compare_gives_counts_rates_and_wilson_intervals_per_group(seeded_store):
    rows = {(r.group, r.rubric): r for r in stats.compare(seeded_store, stats.Filters(), by="prompt_version")}
    v3, v4 = rows[("v3", "factuality")], rows[("v4", "factuality")]
    assert (v3.passed, v3.total, v3.rate) == (11, 20, 0.55)  # span 0 passed by the later judge
    assert (v4.passed, v4.total, v4.rate) == (16, 20, 0.8)
    for row, (passed, total) in ((v3, (11, 20)), (v4, (16, 20))):
        low, high = stats.wilson(passed, total)
        assert (row.low, row.high) == (round(low, 4), round(high, 4))
    assert 0.34 < v3.low < v3.rate < v3.high < 0.75 and 0.58 < v4.low < v4.high < 0.92
    by_model = stats.compare(seeded_store, stats.Filters(service="alerts"), by="model")
    assert {(r.group, r.rubric, r.total) for r in by_model} == {("gpt-4.1", "factuality", 20),
                                                                ("gpt-4.1", "conciseness", 20)}
    both = stats.compare_all(seeded_store, stats.Filters(service="alerts"))
    assert both["model"] == by_model
    assert both["prompt_version"] == stats.compare(seeded_store, stats.Filters(service="alerts"), by="prompt_version")
    assert [(r.group, r.total) for r in both["prompt_version"]] == [("v4", 20), ("v4", 20)]
    with pytest.raises(ValueError):
        stats.compare(seeded_store, stats.Filters(), by="service")  # type: ignore[arg-type]


def test_wilson_interval_matches_the_textbook_values():
    low, high = stats.wilson(8, 10)
    assert round(low, 3) == 0.490 and round(high, 3) == 0.943
    assert stats.wilson(0, 0) == (0.0, 1.0)
    low, high = stats.wilson(0, 50)
    assert low == 0.0 and 0.06 < high < 0.08


def test_judge_cost_counts_llm_calls_tokens_and_cost_per_tier_and_model(seeded_store):
    # cascade-1's rules judged two rubrics of 40 spans; later cascade-2's rules once, its LLM three times
    cost = stats.judge_cost(seeded_store, HOURS)
    assert cost.llm_calls == 3
    assert (cost.input_tokens, cost.output_tokens) == (300, 60)
    assert cost.cost_usd == pytest.approx(0.006)
    tiers = {(r.tier, r.model): r.calls for r in cost.rows}
    assert tiers == {("llm", "judge-mini"): 3, ("rules", ""): 81}
    assert stats.judge_cost(seeded_store, stats.Filters(prompt_version="v4")).llm_calls == 3
    assert stats.judge_cost(seeded_store, stats.Filters(prompt_version="v3")).llm_calls == 0
    # the briefs' rules judged eleven times; an LLM call that timed out is a call too, and cost nothing
    briefs = stats.judge_cost(seeded_store, stats.Filters(service="briefs"))
    assert {(r.tier, r.model): r.calls for r in briefs.rows} == {("llm", ""): 1, ("rules", ""): 11}
    assert (briefs.llm_calls, briefs.cost_usd) == (1, 0.0)


def test_issue_sparklines_give_traces_per_run_oldest_first(seeded_store):
    # three runs: SW-1 in the first two, SW-2 in the last two, SW-4 in the first and the last
    assert stats.issue_sparklines(seeded_store, ["SW-1", "SW-2", "SW-4", "SW-7"]) == {
        "SW-1": [4, 6, 0], "SW-2": [0, 3, 9], "SW-4": [1, 0, 2], "SW-7": [0, 0, 0]}
    assert stats.issue_sparklines(seeded_store, ["SW-2"], runs=2) == {"SW-2": [3, 9]}
    assert stats.issue_sparklines(seeded_store, []) == {}


def test_span_keys_follow_inserts_and_the_backfill_rebuilds_them_from_the_span_facts(workload):
    from sumwatch.monitor.store.migrations import target
    from sumwatch.monitor.store.score_facts import SPAN_KEY
    from sumwatch.monitor.store.span_keys import SPAN_KEYS_TABLE, span_keys_ddl

    def keys():
        return sorted(workload.query_rows(f"SELECT SpanKey, Model, PromptVersion, Timestamp FROM {SPAN_KEYS_TABLE}"))

    facts = sorted(workload.query_rows(
        f"SELECT {SPAN_KEY}, Model, PromptVersion, Timestamp FROM {SPAN_FACTS_TABLE}"))
    assert keys() == facts and len(facts) == 41  # the view: each insert, the retried copy included
    by_model = stats.compare_all(workload, stats.Filters(prompt_version="v4"))["model"]
    assert {(r.group, r.rubric, r.passed, r.total) for r in by_model} == {
        ("gpt-4.1", "conciseness", 20, 20), ("gpt-4.1", "factuality", 16, 20)}
    workload.command(f"TRUNCATE TABLE {SPAN_KEYS_TABLE}")  # spans stored before migration 8 existed
    assert stats.compare_all(workload, stats.Filters())["model"] == []
    workload.command(span_keys_ddl(target(workload))[1])
    assert set(keys()) == set(facts)  # one insert: its copies of a span may be merged into one row
    assert stats.compare_all(workload, stats.Filters(prompt_version="v4"))["model"] == by_model


def test_migration_17_builds_the_filter_choices_projection_for_facts_stored_before_it(store):
    # as a store made before migration 17: facts stored, no projection, the migration not recorded
    store.command(f"ALTER TABLE {SPAN_FACTS_TABLE} DROP PROJECTION IF EXISTS {FILTER_OPTIONS_PROJECTION}")
    store.command("ALTER TABLE sumwatch_migrations DELETE WHERE version = 17 SETTINGS mutations_sync = 1")
    store.insert_spans([span_row(1, T0, "digest", "m-a", "v1"), span_row(2, T0, "recap", "m-b", ""),
                        span_row(3, T0, "digest", "m-a", "v2")])

    assert migrate(store) == [17]

    parts = store.query_rows("SELECT count() FROM system.projection_parts WHERE database = currentDatabase() "
                             "AND table = {t:String} AND name = {p:String} AND active",
                             {"t": SPAN_FACTS_TABLE, "p": FILTER_OPTIONS_PROJECTION})[0][0]
    assert parts >= 1  # built for the part stored before the migration
    store.insert_spans([span_row(4, T0, "notes", "m-c", "v3")])
    assert stats.filter_options(store) == stats.FilterOptions(["digest", "notes", "recap"], ["m-a", "m-b", "m-c"],
                                                              ["v1", "v2", "v3"])
    plan = "\n".join(r[0] for r in store.query_rows(
        f"EXPLAIN SELECT ServiceName, Model, PromptVersion FROM {SPAN_FACTS_TABLE} "
        "GROUP BY ServiceName, Model, PromptVersion"))
    assert f"ReadFromMergeTree ({FILTER_OPTIONS_PROJECTION})" in plan

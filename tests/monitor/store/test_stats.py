"""The dashboard's readers on real chDB: spans written into otel_traces reach the span facts through the
view, and volume, pass rates, judge cost, comparisons and sparklines count what was stored."""

from datetime import datetime, timedelta, timezone

import pytest

from sumwatch.monitor.rubrics.verdicts import RubricResult
from sumwatch.monitor.store import stats
from sumwatch.monitor.store.issues import ISSUE_COLUMNS, ISSUES_TABLE
from sumwatch.monitor.store.migrations import migrate
from sumwatch.monitor.store.runs import RunRow, save_run
from sumwatch.monitor.store.scores import ScoredSpan, SpanRef, write_scores
from sumwatch.monitor.store.span_facts import FILTER_OPTIONS_PROJECTION, SPAN_FACTS_TABLE
from sumwatch.tracer import semconv

T0 = datetime(2026, 3, 2, 10, 0, tzinfo=timezone.utc)


def span_row(i: int, at: datetime, service: str = "digest", model: str = "gpt-4o-mini", prompt: str = "v3",
             task: str = semconv.TASK_SUMMARIZATION) -> tuple:
    attrs = {semconv.TASK: task, semconv.INPUT_VALUE: f"source {i}", semconv.OUTPUT_VALUE: f"summary {i}",
             semconv.GEN_AI_REQUEST_MODEL: model, semconv.PROMPT_VERSION: prompt}
    ns = int(at.timestamp() * 1e9)
    return (ns, f"{i:032x}", f"{i:016x}", "", "", semconv.SPAN_NAME, "Internal", service,
            {"service.name": service}, semconv.INSTRUMENTATION_NAME, "", attrs, 1_000_000, "Unset", "",
            (), (), (), (), (), (), ())


def score(store, i: int, at: datetime, passed: dict[str, bool], service: str = "digest", tier: str = "rules",
          judge: str = "cascade-1", cost: float = 0.0, confident: bool = True) -> None:
    results = {}
    for rubric, ok in passed.items():
        verdict = {"factuality": "correct" if ok else "numerically_wrong",
                   "conciseness": "concise" if ok else "padded"}[rubric]
        r = RubricResult.make(rubric, verdict, tier=tier, confident=confident)
        if cost:
            r = r.with_(cost_usd=cost, input_tokens=100, output_tokens=20, model="judge-mini")
        results[rubric] = r
    ref = SpanRef(f"{i:032x}", f"{i:016x}", int(at.timestamp() * 1e9), service)
    write_scores(store, [ScoredSpan(ref, results)], judge_version=judge)


@pytest.fixture
def workload(store):
    """40 spans over 4 hours: prompt v3 (gpt-4o-mini, service digest) then v4 (gpt-4.1, service alerts);
    one span stored twice and one span of another task."""
    rows = []
    for i in range(40):
        at = T0 + timedelta(minutes=6 * i)
        v4 = i >= 20
        rows.append(span_row(i, at, "alerts" if v4 else "digest", "gpt-4.1" if v4 else "gpt-4o-mini",
                             "v4" if v4 else "v3"))
    store.insert_spans(rows)
    store.insert_spans(rows[5:6])  # an exporter's retry
    store.insert_spans([span_row(99, T0, task="chat")])
    for i in range(40):
        at = T0 + timedelta(minutes=6 * i)
        v4 = i >= 20
        # v3 fails factuality on every other span, v4 on every fifth; conciseness always passes
        fails = (i % 2 == 0) if not v4 else (i % 5 == 0)
        score(store, i, at, {"factuality": not fails, "conciseness": True}, "alerts" if v4 else "digest")
    return store


def test_span_facts_hold_each_summarization_span_with_its_model_and_prompt_version(workload):
    opts = stats.filter_options(workload)
    assert opts.services == ["alerts", "digest"]
    assert opts.models == ["gpt-4.1", "gpt-4o-mini"]
    assert opts.prompt_versions == ["v3", "v4"]
    # the retried span is stored twice in the facts too, and counted once
    assert workload.query_rows(f"SELECT count() FROM {SPAN_FACTS_TABLE}")[0][0] == 41
    assert sum(n for _, n in stats.volume_series(workload, stats.Filters(), 3600)) == 40


def test_volume_buckets_by_span_time_and_follows_every_filter(workload):
    series = stats.volume_series(workload, stats.Filters(), 3600)
    assert series == [(T0 + timedelta(hours=h), 10) for h in range(4)]
    f = stats.Filters(start=T0 + timedelta(hours=1), end=T0 + timedelta(hours=3))
    assert stats.volume_series(workload, f, 3600) == [(T0 + timedelta(hours=1), 10), (T0 + timedelta(hours=2), 10)]
    assert sum(n for _, n in stats.volume_series(workload, stats.Filters(model="gpt-4.1"), 60)) == 20
    assert sum(n for _, n in stats.volume_series(workload, stats.Filters(prompt_version="v3", service="digest"),
                                                 600)) == 20
    assert stats.volume_series(workload, stats.Filters(prompt_version="v3", service="alerts"), 600) == []
    with pytest.raises(ValueError):
        stats.volume_series(workload, stats.Filters(), 0)


def test_pass_rates_per_rubric_use_the_latest_judgement_and_count_unsure_as_passed(workload):
    series = stats.pass_rate_series(workload, stats.Filters(), 3600)
    assert sorted(series) == ["conciseness", "factuality"]
    # hours 0-1 are v3 (5 of 10 fail), hours 2-3 are v4 (2 of 10 fail)
    assert series["factuality"] == [(T0, 5, 10), (T0 + timedelta(hours=1), 5, 10),
                                    (T0 + timedelta(hours=2), 8, 10), (T0 + timedelta(hours=3), 8, 10)]
    assert all(p == t == 10 for _, p, t in series["conciseness"])
    # a later judge passes span 0 (unsure: passed, not confident), an error verdict is no judgement
    score(workload, 0, T0, {"factuality": True}, judge="cascade-2", confident=False)
    err = RubricResult.make("factuality", "error", tier="llm", error="timeout")
    write_scores(workload, [ScoredSpan(SpanRef(f"{2:032x}", f"{2:016x}", int(T0.timestamp() * 1e9), "digest"),
                                       {"factuality": err})], judge_version="cascade-3")
    first = stats.pass_rate_series(workload, stats.Filters(), 3600)["factuality"][0]
    assert first == (T0, 6, 10)
    only_v4 = stats.pass_rate_series(workload, stats.Filters(prompt_version="v4"), 7200)["factuality"]
    assert only_v4 == [(T0 + timedelta(hours=2), 16, 20)]
    assert stats.pass_rate_series(workload, stats.Filters(model="none"), 3600) == {}


def test_compare_gives_counts_rates_and_wilson_intervals_per_group(workload):
    rows = {(r.group, r.rubric): r for r in stats.compare(workload, stats.Filters(), by="prompt_version")}
    v3, v4 = rows[("v3", "factuality")], rows[("v4", "factuality")]
    assert (v3.passed, v3.total, v3.rate) == (10, 20, 0.5)
    assert (v4.passed, v4.total, v4.rate) == (16, 20, 0.8)
    low, high = stats.wilson(16, 20)
    assert (v4.low, v4.high) == (round(low, 4), round(high, 4))
    assert v3.low < v3.rate < v3.high and v3.high < 0.72 and v4.low > 0.58
    by_model = stats.compare(workload, stats.Filters(service="alerts"), by="model")
    assert {(r.group, r.rubric, r.total) for r in by_model} == {("gpt-4.1", "factuality", 20),
                                                                ("gpt-4.1", "conciseness", 20)}
    both = stats.compare_all(workload, stats.Filters(service="alerts"))
    assert both["model"] == by_model
    assert both["prompt_version"] == stats.compare(workload, stats.Filters(service="alerts"), by="prompt_version")
    assert [(r.group, r.total) for r in both["prompt_version"]] == [("v4", 20), ("v4", 20)]
    with pytest.raises(ValueError):
        stats.compare(workload, stats.Filters(), by="service")  # type: ignore[arg-type]


def test_wilson_interval_matches_the_textbook_values():
    low, high = stats.wilson(8, 10)
    assert round(low, 3) == 0.490 and round(high, 3) == 0.943
    assert stats.wilson(0, 0) == (0.0, 1.0)
    low, high = stats.wilson(0, 50)
    assert low == 0.0 and 0.06 < high < 0.08


def test_judge_cost_counts_llm_calls_tokens_and_cost_per_tier_and_model(workload):
    for i in range(3):
        score(workload, i, T0, {"factuality": True}, tier="llm", judge="cascade-2", cost=0.002)
    cost = stats.judge_cost(workload, stats.Filters())
    assert cost.llm_calls == 3
    assert (cost.input_tokens, cost.output_tokens) == (300, 60)
    assert cost.cost_usd == pytest.approx(0.006)
    tiers = {(r.tier, r.model): r.calls for r in cost.rows}
    assert tiers == {("llm", "judge-mini"): 3, ("rules", ""): 80}
    assert stats.judge_cost(workload, stats.Filters(prompt_version="v4")).llm_calls == 0


def test_issue_sparklines_give_traces_per_run_oldest_first(store):
    runs = [("r1", T0), ("r2", T0 + timedelta(hours=1)), ("r3", T0 + timedelta(hours=2))]
    traces = {"r1": {1: 4}, "r2": {1: 6, 2: 3}, "r3": {2: 9}}
    for run, at in runs:
        rows = [(n, run, at, f"SW-{n}", "t", "", "", "", "low", "factuality", "", [], "ongoing", t, t, 0.1, 0,
                 T0, at, [0.0], "m", "keywords") for n, t in traces[run].items()]
        store.insert(ISSUES_TABLE, rows, ISSUE_COLUMNS)
        save_run(store, RunRow(run, at, at, 0, 0, failures=1, clustered=1, noise=0, issues=1, new_issues=0,
                               embedded=0, promoted=0, namer="keywords", embedding_model="m", seconds=1.0))
    assert stats.issue_sparklines(store, ["SW-1", "SW-2", "SW-7"]) == {
        "SW-1": [4, 6, 0], "SW-2": [0, 3, 9], "SW-7": [0, 0, 0]}
    assert stats.issue_sparklines(store, ["SW-2"], runs=2) == {"SW-2": [3, 9]}
    assert stats.issue_sparklines(store, []) == {}


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

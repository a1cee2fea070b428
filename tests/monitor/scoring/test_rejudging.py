"""Re-judging only on purpose, tier precedence and backfills: what a judge configuration change does to the
spans already stored (nothing, until a rescore), and which verdict of a span counts (the strongest source,
then the newest)."""

from __future__ import annotations

import json
import time

from sumwatch.monitor.demo.run import run_demo, score_demo
from sumwatch.monitor.ingest.backfill import SpanBuilder, parse_record
from sumwatch.monitor.scoring.judges import build_cascade
from sumwatch.monitor.scoring.sampler import Rescore, Sampler
from sumwatch.monitor.settings import Settings
from sumwatch.monitor.store.listing import latest_verdicts
from sumwatch.monitor.store.scores import STRENGTH_SQL
from sumwatch.monitor.store.stats import Filters, pass_rate_series
from tests.fakes.openai_server import FakeOpenAI


def llm_settings(fake: FakeOpenAI) -> Settings:
    return Settings.from_env(env={}, llm_model="openai/judge-test", llm_api_base=fake.base_url, llm_api_key="k")


def llm_cascade(fake: FakeOpenAI):
    # every pair but the certain failures goes to the LLM: each judged span costs requests
    return build_cascade(llm_settings(fake), mode="always", embeddings=False)


def tiers(store) -> dict[str, int]:
    """Stored verdicts (judge errors aside) by tier, one per (span, rubric): the strongest, then the newest."""
    rows = store.query_rows(
        f"SELECT t, count() FROM (SELECT TraceId, SpanId, Rubric, argMax(Tier, ({STRENGTH_SQL}, ScoredAt)) AS t "
        f"FROM sumwatch_scores FINAL WHERE Verdict != 'error' GROUP BY TraceId, SpanId, Rubric) GROUP BY t")
    return {tier: int(n) for tier, n in rows}


def test_a_server_restarting_with_an_llm_judges_no_stored_span_again_and_judges_new_ones(store, rules_cascade):
    run_demo(store, n=8, seed=11)
    offline = Sampler(store, rules_cascade).run_pass()
    assert offline.scored_spans == 8
    with FakeOpenAI() as fake:
        restarted = Sampler(store, llm_cascade(fake)).run_pass()
        assert restarted.scored_spans == 0 and restarted.llm_requests == 0 and not fake.requests
        run_demo(store, n=3, seed=12)
        fresh = Sampler(store, llm_cascade(fake)).run_pass()
    assert fresh.scored_spans == 3 and fresh.llm_requests > 0 and len(fake.requests) == fresh.llm_requests
    assert tiers(store).get("llm", 0) > 0


def test_a_weaker_tier_never_replaces_a_stronger_verdict_even_when_asked(store, rules_cascade):
    run_demo(store, n=6, seed=13)
    with FakeOpenAI() as fake:
        Sampler(store, llm_cascade(fake)).run_pass()
    before = tiers(store)
    verdicts = latest_verdicts(store, store.query_rows("SELECT DISTINCT TraceId, SpanId FROM sumwatch_scores"))
    assert before.get("llm", 0) > 0
    # a rescore with the offline judges: every span is judged again, and no LLM verdict is replaced
    report = Sampler(store, rules_cascade, rescore=Rescore()).run_pass()
    assert report.scored_spans == 6 and report.kept_stronger == before["llm"]
    assert report.score_rows == 6 * 4 - before["llm"]
    assert tiers(store)["llm"] == before["llm"]
    after = latest_verdicts(store, list(verdicts))
    llm_keys = store.query_rows("SELECT TraceId, SpanId, Rubric FROM sumwatch_scores FINAL WHERE Tier = 'llm'")
    assert all(after[(t, s)][r] == verdicts[(t, s)][r] for t, s, r in llm_keys)


def test_an_llm_error_in_a_rescore_is_not_stored_over_a_verdict(store, rules_cascade):
    run_demo(store, n=4, seed=14)
    Sampler(store, rules_cascade).run_pass()
    stored = store.query_rows("SELECT count() FROM sumwatch_scores FINAL WHERE Verdict != 'error'")[0][0]
    with FakeOpenAI(lambda request: (500, {"error": {"message": "down"}}, {}, 0.0)) as fake:
        report = Sampler(store, llm_cascade(fake), rescore=Rescore()).run_pass()
    assert report.errors > 0 and report.kept_stronger >= report.errors
    assert store.query_rows("SELECT count() FROM sumwatch_scores FINAL WHERE Verdict = 'error'")[0][0] == 0
    assert store.query_rows("SELECT count() FROM sumwatch_scores FINAL WHERE Verdict != 'error'")[0][0] == stored


def test_the_demo_run_offline_in_the_same_store_leaves_the_llm_verdicts_and_their_pass_rates(store, rules_cascade):
    """The report: `sumwatch demo` in a shell without the LLM variables re-scored the whole store offline,
    and its verdicts replaced the LLM's."""
    run_demo(store, n=10, seed=15)
    with FakeOpenAI() as fake:
        Sampler(store, llm_cascade(fake)).run_pass()
    rates = pass_rate_series(store, Filters(), 365 * 86400)
    before = tiers(store)
    demo = run_demo(store, n=5, seed=16)
    scoring = score_demo(store, rules_cascade, demo.run_id)
    assert scoring.scored == 5  # the demo's own spans, and no others
    after = tiers(store)
    assert after["llm"] == before["llm"]
    assert sum(after.values()) == sum(before.values()) + 5 * 4
    again = pass_rate_series(store, Filters(), 365 * 86400)
    for rubric, series in rates.items():
        passed, judged = sum(p for _, p, _ in series), sum(n for _, _, n in series)
        now_passed, now_judged = sum(p for _, p, _ in again[rubric]), sum(n for _, _, n in again[rubric])
        assert now_judged == judged + 5 and passed <= now_passed <= passed + 5


def test_a_rescore_is_bounded_by_rubric_time_and_service(store, rules_cascade):
    builder = SpanBuilder()
    now = int(time.time())
    for i in range(6):
        builder.add(parse_record(json.dumps({
            "source": f"Revenue rose {i}% in May, the company said.", "summary": f"Revenue up {i}% in May.",
            "service": "checkout" if i % 2 else "support", "timestamp": now - (7200 if i < 2 else 60)}), i))
    store.insert_spans(builder.take_rows())
    assert Sampler(store, rules_cascade).run_pass().scored_spans == 6
    changed = build_cascade(Settings.from_env(env={}), mode="off", embeddings=False)
    changed.rules.version += "-edited"  # an edited rules judge: every rubric's version is new
    scoped = Sampler(store, changed, rescore=Rescore(rubrics=("conciseness",), since_ns=(now - 3600) * 10**9,
                                                     service="checkout")).run_pass()
    # spans 2..5 are in the last hour; of those, 3 and 5 are checkout's: one rubric each
    assert scoped.scored_spans == 2 and scoped.score_rows == 2


def test_a_backfilled_span_with_a_past_timestamp_is_scored_by_the_next_pass(store, rules_cascade):
    run_demo(store, n=3, seed=17)
    sampler = Sampler(store, rules_cascade)
    assert sampler.run_pass().scored_spans == 3
    builder = SpanBuilder()
    builder.add(parse_record(json.dumps({"source": "Sales fell 3% in June, the retailer said.",
                                         "summary": "Sales fell 3% in June.",
                                         "timestamp": time.time() - 3600}), 0))
    store.insert_spans(builder.take_rows())
    report = sampler.run_pass()
    assert report.scored_spans == 1 and report.score_rows == 4
    assert sampler.run_pass().scored_spans == 0  # once

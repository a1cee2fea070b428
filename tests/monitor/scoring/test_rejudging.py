"""Re-judging only on purpose, tier precedence and backfills: what a judge configuration change does to the
spans already stored (nothing, until a rescore), and which verdict of a span counts (the strongest source,
then the newest)."""

from __future__ import annotations

import json
import time

import pytest

from sumwatch.monitor.calibration.labels import label_trace
from sumwatch.monitor.demo.run import run_demo, score_demo
from sumwatch.monitor.ingest.backfill import SpanBuilder, parse_record
from sumwatch.monitor.issues.failures import load_failures
from sumwatch.monitor.rubrics.llm import LLMConfig, LLMJudge
from sumwatch.monitor.rubrics.verdicts import RubricResult
from sumwatch.monitor.scoring.judges import build_cascade
from sumwatch.monitor.scoring.sampler import Rescore, Sampler, SpanSelector
from sumwatch.monitor.scoring.selectors import Selectors
from sumwatch.monitor.settings import Settings
from sumwatch.monitor.settings.selectors import Condition, Match, SelectorEntry
from sumwatch.monitor.store.listing import latest_verdicts
from sumwatch.monitor.store.scores import STRENGTH_SQL, UNJUDGED_CAP_SQL, ScoredSpan, SpanRef, daily_spend, write_scores
from sumwatch.monitor.store.stats import Filters, judge_cost, pass_rate_series
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


@pytest.mark.integration
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


@pytest.mark.integration
def test_a_weaker_tier_never_replaces_a_stronger_verdict_even_when_asked(store, rules_cascade):
    run_demo(store, n=6, seed=13)
    with FakeOpenAI() as fake:
        Sampler(store, llm_cascade(fake)).run_pass()
    before = tiers(store)
    verdicts = latest_verdicts(store, store.query_rows("SELECT DISTINCT TraceId, SpanId FROM sumwatch_scores"))
    assert before.get("llm", 0) > 0
    # a rescore with the offline judges: what the LLM judged is left alone (the rules could not replace it,
    # so they are not run on it), the rest is judged again, and no LLM verdict is replaced
    cheap_spans = store.query_rows("SELECT uniqExact(TraceId, SpanId) FROM sumwatch_scores FINAL "
                                   "WHERE Tier != 'llm' AND Verdict != 'error'")[0][0]
    report = Sampler(store, rules_cascade, rescore=Rescore()).run_pass()
    assert report.considered == 6 and report.scored_spans == cheap_spans and report.kept_stronger == 0
    assert report.score_rows == 6 * 4 - before["llm"]
    assert tiers(store)["llm"] == before["llm"]
    after = latest_verdicts(store, list(verdicts))
    llm_keys = store.query_rows("SELECT TraceId, SpanId, Rubric FROM sumwatch_scores FINAL WHERE Tier = 'llm'")
    assert all(after[(t, s)][r] == verdicts[(t, s)][r] for t, s, r in llm_keys)


@pytest.mark.integration
def test_an_llm_error_in_a_rescore_is_not_stored_over_a_verdict(store, rules_cascade):
    run_demo(store, n=4, seed=14)
    Sampler(store, rules_cascade).run_pass()
    stored = store.query_rows("SELECT count() FROM sumwatch_scores FINAL WHERE Verdict != 'error'")[0][0]
    with FakeOpenAI(lambda request: (500, {"error": {"message": "down"}}, {}, 0.0)) as fake:
        report = Sampler(store, llm_cascade(fake), rescore=Rescore()).run_pass()
    assert report.errors > 0 and report.kept_stronger >= report.errors
    assert store.query_rows("SELECT count() FROM sumwatch_scores FINAL WHERE Verdict = 'error'")[0][0] == 0
    assert store.query_rows("SELECT count() FROM sumwatch_scores FINAL WHERE Verdict != 'error'")[0][0] == stored


@pytest.mark.integration
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


def priced_cascade(fake: FakeOpenAI):
    """Every pair to an LLM whose every request costs about $0.2 (its own prices: litellm does not know it)."""
    judge = LLMJudge(LLMConfig("openai/judge-test", api_base=fake.base_url, api_key="k",
                               input_cost_per_mtok=400.0, output_cost_per_mtok=400.0))
    return build_cascade(Settings.from_env(env={}), mode="always", embeddings=False, llm=judge)


@pytest.mark.integration
def test_at_the_daily_cap_judging_goes_on_with_the_cheap_tiers_marked_and_a_rescore_takes_them_up(store):
    run_demo(store, n=6, seed=18)
    with FakeOpenAI() as fake:
        report = Sampler(store, priced_cascade(fake), batch=2, daily_cap_usd=1.0).run_pass()
        sent = len(fake.requests)
    assert report.scored_spans == 6 and report.errors == 0  # nothing dropped, nothing failed
    assert report.unjudged_cap > 0 and report.llm_requests == sent > 0
    assert report.spent_today_usd >= 1.0 and report.daily_cap_usd == 1.0
    # the overshoot is at most the requests in flight when the cap was reached: one batch, 2 spans x 4 rubrics
    (dearest,), = store.query_rows("SELECT max(CostUsd) FROM sumwatch_scores WHERE Tier = 'llm'")
    assert report.spent_today_usd < 1.0 + 8 * dearest
    spend = daily_spend(store, 1.0)
    assert spend.capped and spend.unjudged_cap == report.unjudged_cap and spend.left_usd == 0.0
    marked = store.query_rows(f"SELECT Tier, Explanation FROM sumwatch_scores FINAL WHERE {UNJUDGED_CAP_SQL}")
    assert len(marked) == report.unjudged_cap and all(t != "llm" for t, _ in marked)
    assert all("daily LLM spending cap" in e for _, e in marked)
    # the next pass sends nothing (the cap holds across passes and processes: it is read from the store)
    with FakeOpenAI() as fake:
        assert Sampler(store, priced_cascade(fake), daily_cap_usd=1.0).run_pass().scored_spans == 0
        run_demo(store, n=2, seed=19)
        later = Sampler(store, priced_cascade(fake), daily_cap_usd=1.0).run_pass()
        assert later.scored_spans == 2 and later.llm_requests == 0 and not fake.requests
        # on purpose, with room to spend: the marked results are judged again by the LLM
        again = Sampler(store, priced_cascade(fake), rescore=Rescore()).run_pass()
    marked_spans = {(t, s) for t, s in store.query_rows(
        f"SELECT DISTINCT TraceId, SpanId FROM sumwatch_scores WHERE {UNJUDGED_CAP_SQL}")}
    assert again.scored_spans == len(marked_spans) and again.llm_requests > 0 and again.unjudged_cap == 0
    left = store.query_rows(
        "SELECT count() FROM (SELECT TraceId, SpanId, Rubric, argMax(Details, ScoredAt) AS d FROM sumwatch_scores "
        "FINAL GROUP BY TraceId, SpanId, Rubric) WHERE position(d, 'unjudged') > 0")[0][0]
    assert left == 0


def test_the_daily_cap_is_on_by_default_and_off_only_when_asked():
    assert Settings.from_env(env={}).judge.llm_daily_cap_usd == 10.0
    assert Settings.from_env(env={"SUMWATCH_LLM_DAILY_CAP_USD": "off"}).judge.llm_daily_cap_usd is None
    assert Settings.from_env(env={"SUMWATCH_LLM_DAILY_CAP_USD": "2.5"}).judge.llm_daily_cap_usd == 2.5


def test_a_selector_the_database_refuses_is_left_out_and_tagged_spans_are_still_scored(store, rules_cascade, caplog):
    """The report: a selector regex Python accepted but ClickHouse's RE2 refused failed every sampler pass, and
    even tagged spans got no score. The settings now check with RE2 at load; the database is asked too."""
    run_demo(store, n=3, seed=24)
    bad = SelectorEntry("legacy", Match((Condition("span_name", "regex", "(?>ab)c"),)), "in", "out")
    good = SelectorEntry("rag", Match((Condition("span_name", "eq", "rag.answer"),)), "in", "out")
    sampler = Sampler(store, rules_cascade, SpanSelector(selectors=Selectors.of([bad, good])))
    report = sampler.run_pass()
    assert report.scored_spans == 3
    assert sampler.selector.selectors.names == ("rag",)
    assert any("selector legacy is left out" in r.getMessage() for r in caplog.records)


@pytest.mark.integration
def test_a_persons_label_of_a_span_is_its_verdict_and_no_judge_replaces_it(store, rules_cascade):
    run_demo(store, n=4, seed=25)
    Sampler(store, rules_cascade).run_pass()
    tid, sid = store.query_rows("SELECT TraceId, SpanId FROM sumwatch_scores FINAL WHERE Rubric = 'conciseness' "
                                "AND Passed = 1 ORDER BY TraceId LIMIT 1")[0]
    label_trace(store, tid, "conciseness", "fail", by="ana", failure_mode="padded")
    assert latest_verdicts(store, [(tid, sid)])[(tid, sid)]["conciseness"] == "fail"
    (tier, explanation), = store.query_rows(
        "SELECT Tier, Explanation FROM sumwatch_scores FINAL WHERE TraceId = {t:String} AND Rubric = 'conciseness' "
        "AND JudgeVersion = 'human'", {"t": tid})
    assert tier == "human" and "by ana" in explanation
    assert "human" not in {row.tier for row in judge_cost(store, Filters()).rows}  # a label is no judge's cost
    with FakeOpenAI() as fake:
        report = Sampler(store, llm_cascade(fake), rescore=Rescore(rubrics=("conciseness",))).run_pass()
    # the LLM is not paid for what it could not replace: the labelled span is left out, the other three judged
    assert report.considered == 4 and report.scored_spans == 3 and report.kept_stronger == 0
    # and an LLM verdict written anyway is kept back from the label
    llm_verdict = RubricResult.make("conciseness", "concise", tier="llm", model="openai/judge-test")
    assert write_scores(store, [ScoredSpan(SpanRef(tid, sid, time.time_ns()), {"conciseness": llm_verdict})],
                        "llm-late") == 0
    assert latest_verdicts(store, [(tid, sid)])[(tid, sid)]["conciseness"] == "fail"
    failures = load_failures(store, 0, 2**62)
    labelled = [s for f in failures if f.trace_id == tid for s in (f.primary, *f.others) if s.rubric == "conciseness"]
    assert [s.tier for s in labelled] == ["human"]

"""The sampler: selection, deterministic sampling, shards, idempotent reruns, watermarks, eval events, copies."""

import json

import pytest

from sumwatch.monitor.demo.run import run_demo
from sumwatch.monitor.ingest.backfill import SpanBuilder, parse_record
from sumwatch.monitor.issues.failures import load_failures
from sumwatch.monitor.scoring import sampler as sampler_module
from sumwatch.monitor.scoring.sampler import Sampler, SamplingPolicy, SpanSelector
from sumwatch.monitor.store.scores import ScoredSpan, list_scores, write_scores
from sumwatch.monitor.store.watermarks import read_watermark
from sumwatch.tracer import semconv
from sumwatch.tracer.otel_traces import COLUMNS, TRACES_TABLE


def score_count(store, final=True):
    return store.query_rows(f"SELECT count() FROM sumwatch_scores{' FINAL' if final else ''}")[0][0]


def scored_spans(store):
    return {(t, s) for t, s in store.query_rows("SELECT DISTINCT TraceId, SpanId FROM sumwatch_scores")}


def test_a_pass_scores_every_rubric_once_and_a_rerun_adds_nothing(store, rules_cascade):
    run_demo(store, n=24, seed=5)
    sampler = Sampler(store, rules_cascade, batch=10)
    first = sampler.run_pass()
    assert first.scored_spans == 24 and first.score_rows == 96
    assert read_watermark(store, sampler.watermark_name) == first.watermark_ns > 0
    again = sampler.run_pass()
    assert again.scored_spans == 0
    again_all = sampler.run_pass(all_spans=True)  # even ignoring the watermark
    assert again_all.scored_spans == 0
    assert score_count(store) == score_count(store, final=False) == 96
    rubrics = {r.rubric for r in list_scores(store, limit=200)}
    assert rubrics == {"groundedness", "completeness", "factuality", "conciseness"}


def test_crash_after_scores_before_watermark_repeats_nothing(store, rules_cascade, monkeypatch):
    run_demo(store, n=12, seed=6)
    sampler = Sampler(store, rules_cascade, batch=12)

    advance = sampler_module.advance_watermark

    def crash(store, name, *args, **kwargs):
        # the scoring watermark only: the recognition step before it moves its own
        if name == sampler.watermark_name:
            raise RuntimeError("killed between writing scores and moving the watermark")
        return advance(store, name, *args, **kwargs)

    monkeypatch.setattr(sampler_module, "advance_watermark", crash)
    with pytest.raises(RuntimeError, match="killed"):
        sampler.run_pass()
    assert score_count(store, final=False) == 48
    assert read_watermark(store, sampler.watermark_name) == 0
    monkeypatch.undo()
    report = sampler.run_pass()
    assert report.scored_spans == 0  # already scored: skipped, not rescored
    assert score_count(store, final=False) == 48


def test_crash_while_scoring_stores_nothing_and_the_next_pass_does_it_all(store, rules_cascade, monkeypatch):
    run_demo(store, n=12, seed=6)
    sampler = Sampler(store, rules_cascade, batch=12)
    monkeypatch.setattr(rules_cascade, "score_batch", lambda *a, **k: (_ for _ in ()).throw(MemoryError("oom")))
    with pytest.raises(MemoryError):
        sampler.run_pass()
    assert score_count(store, final=False) == 0 and read_watermark(store, sampler.watermark_name) == 0
    monkeypatch.undo()
    assert sampler.run_pass().scored_spans == 12


def test_sampling_is_deterministic_by_trace_id_and_agrees_with_python(store, rules_cascade):
    run_demo(store, n=60, seed=8)
    policy = SamplingPolicy(rate=0.4)
    report = Sampler(store, rules_cascade, policy=policy).run_pass()
    spans = store.query_rows("SELECT TraceId, SpanId, ServiceName, StatusCode FROM otel_traces "
                             "WHERE SpanAttributes['sumwatch.task'] = 'summarization'")
    expected = {(t, s) for t, s, svc, st in spans if policy.takes(t, svc, st)}
    assert scored_spans(store) == expected
    assert 0 < report.scored_spans == len(expected) < 60
    assert Sampler(store, rules_cascade, policy=policy).run_pass(all_spans=True).scored_spans == 0


def test_error_spans_are_always_scored_and_services_have_their_own_rates(store, rules_cascade):
    builder = SpanBuilder()
    for i in range(30):
        service = "checkout" if i % 2 else "support"
        builder.add(parse_record(json.dumps({"source": f"Revenue rose {i}% in May, the company said.",
                                             "summary": f"Revenue up {i}% in May.", "service": service,
                                             "timestamp": 1767225600 + i}), 0))
    rows = builder.take_rows()
    status_at = 13  # StatusCode column
    rows = [r[:status_at] + (("Error",) if k < 3 else (r[status_at],)) + r[status_at + 1:] for k, r in enumerate(rows)]
    store.insert_spans(rows)
    policy = SamplingPolicy(rate=0.0, service_rates={"checkout": 1.0})
    Sampler(store, rules_cascade, policy=policy).run_pass()
    scored = scored_spans(store)
    by_span = {(r[1], r[2]): (r[7], r[status_at]) for r in rows}
    assert {k for k, (svc, st) in by_span.items() if svc == "checkout" or st == "Error"} == scored


def test_shards_split_the_work_without_overlap(store, rules_cascade):
    run_demo(store, n=30, seed=9)
    seen = []
    for index in range(3):
        Sampler(store, rules_cascade, policy=SamplingPolicy(shard=(index, 3))).run_pass()
        seen.append(scored_spans(store) - set().union(*seen) if seen else scored_spans(store))
    assert sum(len(s) for s in seen) == 30 == len(set().union(*seen))
    assert all(len(s) > 0 for s in seen)


def test_spans_from_another_instrumentation_are_scored_by_filter_and_keys(store, rules_cascade):
    row = (1767225600 * 10**9, "ab" * 16, "cd" * 8, "", "", "ChatCompletion", "Client", "bot", {"service.name": "bot"},
           "openllmetry", "", {"gen_ai.operation.name": "chat", "gen_ai.prompt.0.content": "The board did not approve "
                               "the merger on Monday, citing a 12% drop in profit.",
                               "gen_ai.completion.0.content": "The board approved the merger."},
           10, "Unset", "", (), (), (), (), (), (), ())
    store.insert_spans([row])
    selector = SpanSelector.parse("span_name=ChatCompletion,attr:gen_ai.operation.name=chat",
                                  source_key="gen_ai.prompt.0.content", summary_key="gen_ai.completion.0.content")
    report = Sampler(store, rules_cascade, selector=selector).run_pass()
    assert report.scored_spans == 1
    factuality = list_scores(store, rubric="factuality")[0]
    # read from the other instrumentation's keys: the dropped "not" is found (offline it stays a suspicion)
    assert factuality.verdict == "correct" and "negation_flip" in factuality.explanation
    assert "not" in factuality.evidence
    with pytest.raises(ValueError, match="span filter"):
        SpanSelector.parse("spanname=x")


def test_evaluation_events_are_written_as_child_spans(store, rules_cascade):
    run_demo(store, n=4, seed=10)
    Sampler(store, rules_cascade, eval_events=True).run_pass()
    rows = store.query_dicts(
        f"SELECT * FROM otel_traces WHERE SpanName = '{semconv.EVALUATION_SPAN_NAME}' ORDER BY TraceId")
    assert len(rows) == 4
    parents = {(t, s) for t, s in store.query_rows(
        "SELECT TraceId, SpanId FROM otel_traces WHERE SpanName = 'summarize'")}
    for r in rows:
        assert (r["TraceId"], r["ParentSpanId"]) in parents
        assert r["Events.Name"] == [semconv.EVALUATION_EVENT] * 4
        names = {a[semconv.EVALUATION_NAME] for a in r["Events.Attributes"]}
        assert names == {"groundedness", "completeness", "factuality", "conciseness"}
        assert all(a[semconv.EVALUATION_SCORE_LABEL] for a in r["Events.Attributes"])


@pytest.mark.integration
def test_llm_failures_are_recorded_as_errors_then_retried_on_the_next_pass(store):
    from fakes.openai_server import FakeOpenAI, error, judge_responder

    from sumwatch.monitor.rubrics.llm import LLMConfig, LLMJudge
    from sumwatch.monitor.scoring.judges import build_cascade
    from sumwatch.monitor.settings import Settings

    run_demo(store, n=3, seed=12)
    provider_down = {"value": True}

    def responder(request):
        return error(503, "overloaded")(request) if provider_down["value"] else judge_responder(request)

    with FakeOpenAI(responder) as fake:
        llm = LLMJudge(LLMConfig("openai/gpt-4o-mini", api_base=fake.base_url, api_key="k", max_retries=1,
                                 backoff_s=0.01))
        cascade = build_cascade(Settings.from_env(env={}), mode="always", embeddings=False, llm=llm)
        sampler = Sampler(store, cascade)
        first = sampler.run_pass()
        assert first.scored_spans == 3 and first.errors > 0
        errors = [s for s in list_scores(store, limit=100) if s.verdict == "error"]
        assert errors and all(not s.passed and "503" in s.error for s in errors)

        provider_down["value"] = False
        second = sampler.run_pass()  # the watermark has moved past these spans: errors are fetched anyway
        assert second.scored_spans == 3 and second.errors == 0
    final = list_scores(store, limit=100)
    assert len(final) == 12 and not any(s.verdict == "error" for s in final)
    assert score_count(store) == 12  # replaced, not added (FINAL)


def copy_spans(store, where="1"):
    """Store the matching spans again, as a receiver does when an exporter retries a batch it stored."""
    columns = ", ".join(f"`{c}`" for c in COLUMNS)
    store.command(f"INSERT INTO {TRACES_TABLE} ({columns}) SELECT {columns} FROM {TRACES_TABLE} WHERE {where}")


def test_a_span_stored_twice_is_judged_once_and_fails_once_for_clustering(store, rules_cascade):
    run_demo(store, n=24, seed=5)
    copy_spans(store)
    copy_spans(store, "cityHash64(SpanId) % 3 = 0")  # some spans three times
    assert store.query_rows(f"SELECT count() > 48 FROM {TRACES_TABLE}")[0][0]
    report = Sampler(store, rules_cascade, batch=5).run_pass()
    assert report.considered == report.scored_spans == 24 and report.score_rows == 96
    assert score_count(store, final=False) == 96  # no copy judged, paid for or stored twice, even before merges
    failures = load_failures(store, 0, 2**63 - 1)
    assert failures and len({(f.trace_id, f.span_id) for f in failures}) == len(failures) == report.failing


def test_scores_written_twice_for_one_span_count_once(store, rules_cascade):
    # what a sampler that judged both copies of a span left: two rows per (span, rubric, judge version)
    run_demo(store, n=6, seed=5)
    copy_spans(store)
    pending = Sampler(store, rules_cascade)._fetch(0, (0, ""), 100)
    scored = [ScoredSpan(p.ref, rules_cascade.score_batch([p.case])[0]) for p in pending if p.case]
    write_scores(store, scored, rules_cascade.version)
    write_scores(store, scored, rules_cascade.version)
    assert score_count(store, final=False) == 48
    assert score_count(store) == len(list_scores(store, limit=1000)) == 24  # sumwatch_scores is keyed per span
    failing = {(s.ref.trace_id, s.ref.span_id) for s in scored if any(not r.passed for r in s.results.values())}
    assert sorted((f.trace_id, f.span_id) for f in load_failures(store, 0, 2**63 - 1)) == sorted(failing)


def test_the_demo_report_counts_a_span_stored_twice_once(store, rules_cascade):
    from sumwatch.monitor.demo.run import read_back, score_demo

    result = run_demo(store, n=12, seed=5)
    copy_spans(store)
    assert read_back(store, result.run_id, 12).stored == 12
    scoring = score_demo(store, rules_cascade, result.run_id)
    assert sum(d["spans"] for d in scoring.detection.values()) == 12


def _untagged_span(i, name, attributes, events=()):
    """A span another instrumentation stored: no sumwatch tag, its own attributes and span events."""
    return (1767225600 * 10**9 + i, f"{i:032x}", f"{i:016x}", "", "", name, "Client", "bot",
            {"service.name": "bot"}, "other", "", attributes, 10, "Unset", "",
            tuple(1767225600 * 10**9 + i for _ in events), tuple(n for n, _ in events),
            tuple(a for _, a in events), (), (), (), ())


def test_untagged_summarization_calls_are_recognised_and_other_calls_left_alone(store, rules_cascade):
    from tests.monitor.scoring.chat_calls import CALLS, SPAN_SHAPES, SUMMARIES, gen_ai_span_without_content

    rows, expected = [], {}
    shapes = sorted(SPAN_SHAPES)
    for i, call in enumerate(CALLS):
        name, render = SPAN_SHAPES[shapes[i % len(shapes)]]
        rows.append(_untagged_span(i + 1, name, render(call)))
        if call.document is not None:
            expected[f"{i + 1:016x}"] = (call.document, call.answer)
    # the older contrib instrumentation: the messages as JSON in span events
    call = SUMMARIES[0]
    prompt = json.dumps([{"role": "user", "content": call.users[0]}])
    completion = json.dumps([{"role": "assistant", "content": call.answer}])
    rows.append(_untagged_span(100, "chat gpt-4o-mini", gen_ai_span_without_content(call),
                               [("gen_ai.content.prompt", {"gen_ai.prompt": prompt}),
                                ("gen_ai.content.completion", {"gen_ai.completion": completion})]))
    expected[f"{100:016x}"] = (call.document, call.answer)
    # the OpenInference chain around a call is not a candidate
    rows.append(_untagged_span(101, "RunnableSequence", {semconv.OPENINFERENCE_SPAN_KIND: "CHAIN",
                                                         semconv.INPUT_VALUE: call.users[0],
                                                         semconv.OUTPUT_VALUE: call.answer}))
    store.insert_spans(rows)

    sampler = Sampler(store, rules_cascade, eval_events=True)
    assert sampler.recognise_pending() == len(expected) == 26
    read = store.query_rows("SELECT SpanId, Source, Summary FROM sumwatch_recognised FINAL")
    assert {sid: (source, summary) for sid, source, summary in read} == expected  # not the chain, not others
    assert sampler.recognise_pending() == 0  # each span is recognised once

    report = sampler.run_pass()
    assert report.scored_spans == len(expected) == 26 and report.skipped_no_text == 0
    assert scored_spans(store) == {(f"{int(sid, 16):032x}", sid) for sid in expected}
    assert sampler.run_pass().scored_spans == 0
    # the evaluation spans written back are sumwatch's own: never read as calls
    evaluations = f"SELECT count() FROM otel_traces WHERE SpanName = '{semconv.EVALUATION_SPAN_NAME}'"
    assert store.query_rows(evaluations)[0][0] == 26
    assert sampler.recognise_pending(all_spans=True) == 0
    assert store.query_rows("SELECT count() FROM sumwatch_recognised")[0][0] == 26
    # recognition off and no selector: only the tag selects
    off = Sampler(store, rules_cascade, SpanSelector(recognised=False))
    assert off.selector.candidates({}) == "" and off.recognise_pending(all_spans=True) == 0

"""The workload of the session's shared seeded store (``seeded_store`` in tests/conftest.py): a small, realistic
store written once per test run through the store's own write functions, then only read.

Each part has its own day and services, so a test reads its part by service, issue or time, and a test of the
whole store (filter choices, unsure kinds, comparisons) counts every part. Ids, span times and durations are
fixed, the same every run; only the times rows were written at (a score's ScoredAt) are the clock's.

- hours (2026-03-02 10:00-14:00, a span every 6 min): 40 spans of digest (gpt-4o-mini, prompt v3) then alerts
  (gpt-4.1, v4), span 5 stored twice, a chat span; factuality and conciseness judged, some judged again (an
  LLM's passes, an unsure pass).
- briefs (03-03 10:00, 1 s apart): 30 spans (models m0, m1; prompts v0-v2; domain finance) with verdicts on the
  four rubrics: pass, fail, unsure, a judge error.
- archive (03-04 10:00, 1 s apart): 200 spans like the briefs' (domain news), unjudged.
- recognised (03-05 10:00-10:40): four OpenInference traces (newsroom) recognised twice, eight tagged spans
  (wire, legacy).
- copies (03-06 10:00-13:00): spans an exporter stored again (relay, feed, gateway, desk, the newest).
- runs: three clustering runs (03-02 10:00, 11:00, 12:00) that found SW-1, SW-2, SW-4 and SW-5.
- corpus: the starter corpora sumwatch ships (a server loads them on its first corpus read), and seven
  factuality items that need a label.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta, timezone
from functools import cache

import numpy as np
from fakes.genai_trace import openinference_trace
from fakes.tracing import memory_provider

from sumwatch.monitor.calibration.corpus import seed_starter_corpora
from sumwatch.monitor.contract.calibration import CorpusItem
from sumwatch.monitor.contract.traces import RecognisedSpan
from sumwatch.monitor.rubrics.cascade import unsure
from sumwatch.monitor.rubrics.verdicts import RubricResult
from sumwatch.monitor.store.corpus import save_items
from sumwatch.monitor.store.issue_members import MEMBER, REPRESENTATIVE, MemberRow, save_members
from sumwatch.monitor.store.issues import IssueState, save_states
from sumwatch.monitor.store.recognised import write_recognised
from sumwatch.monitor.store.runs import RunRow, save_run
from sumwatch.monitor.store.scores import ScoredSpan, SpanRef, write_scores
from sumwatch.tracer import semconv, summarization, summarization_attributes
from sumwatch.tracer.otel_traces import spans_to_rows

UTC = timezone.utc


def ns(at: datetime) -> int:
    return int(at.timestamp() * 1e9)


def fixed(rows: list[tuple], part: int) -> list[tuple]:
    """``rows`` with trace and span ids numbered in order of first sight (each id begins with ``part``) and a
    fixed duration, so a generated trace is the same every run."""
    traces: dict[str, str] = {}
    spans: dict[str, str] = {}

    def trace(tid: str) -> str:
        return traces.setdefault(tid, f"{part:04x}{len(traces):028x}")

    def span(sid: str) -> str:
        return spans.setdefault(sid, f"{part:04x}{len(spans):012x}") if sid else sid

    return [(r[0], trace(r[1]), span(r[2]), span(r[3]), *r[4:12], 1_000_000 if r[3] else 2_000_000, *r[13:])
            for r in rows]


# -- hours: the dashboard's four hours ------------------------------------------------------------------------
HOURS_T0 = datetime(2026, 3, 2, 10, 0, tzinfo=UTC)
HOURS_END = HOURS_T0 + timedelta(hours=4)


def span_row(i: int, at: datetime, service: str = "digest", model: str = "gpt-4o-mini", prompt: str = "v3",
             task: str = semconv.TASK_SUMMARIZATION) -> tuple:
    """A tagged span as the receiver stores it, trace id ``i`` (32 hex digits) and span id ``i`` (16)."""
    attrs = {semconv.TASK: task, semconv.INPUT_VALUE: f"source {i}", semconv.OUTPUT_VALUE: f"summary {i}",
             semconv.GEN_AI_REQUEST_MODEL: model, semconv.PROMPT_VERSION: prompt}
    return (ns(at), f"{i:032x}", f"{i:016x}", "", "", semconv.SPAN_NAME, "Internal", service,
            {"service.name": service}, semconv.INSTRUMENTATION_NAME, "", attrs, 1_000_000, "Unset", "",
            (), (), (), (), (), (), ())


def scored(i: int, at: datetime, passed: dict[str, bool], service: str = "digest", tier: str = "rules",
           cost: float = 0.0, confident: bool = True) -> ScoredSpan:
    """Span ``i`` (of :func:`span_row`) judged: each rubric given passes or fails."""
    results = {}
    for rubric, ok in passed.items():
        verdict = {"factuality": "correct" if ok else "numerically_wrong",
                   "conciseness": "concise" if ok else "padded"}[rubric]
        r = RubricResult.make(rubric, verdict, tier=tier, confident=confident)
        if cost:
            r = r.with_(cost_usd=cost, input_tokens=100, output_tokens=20, model="judge-mini")
        results[rubric] = r
    return ScoredSpan(SpanRef(f"{i:032x}", f"{i:016x}", ns(at), service), results)


def seed_hours(store) -> None:
    """40 spans over 4 hours: prompt v3 (gpt-4o-mini, service digest) then v4 (gpt-4.1, service alerts); one
    span stored twice and one span of another task. cascade-1's rules fail factuality on every other v3 span
    and on every fifth v4 span; conciseness always passes."""
    rows = []
    for i in range(40):
        v4 = i >= 20
        rows.append(span_row(i, HOURS_T0 + timedelta(minutes=6 * i), "alerts" if v4 else "digest",
                             "gpt-4.1" if v4 else "gpt-4o-mini", "v4" if v4 else "v3"))
    store.insert_spans(rows)
    store.insert_spans(rows[5:6])  # an exporter's retry
    store.insert_spans([span_row(99, HOURS_T0, task="chat")])
    judged = []
    for i in range(40):
        v4 = i >= 20
        fails = (i % 2 == 0) if not v4 else (i % 5 == 0)
        judged.append(scored(i, HOURS_T0 + timedelta(minutes=6 * i), {"factuality": not fails, "conciseness": True},
                             "alerts" if v4 else "digest"))
    write_scores(store, judged, judge_version="cascade-1")


def rejudge_hours(store) -> None:
    """Later judgements by cascade-2: its rules pass span 0 unsure (not confident), its LLM passes spans 21-23
    at $0.002 each (100 tokens in, 20 out, judge-mini)."""
    write_scores(store, [scored(0, HOURS_T0, {"factuality": True}, confident=False)] + [
        scored(i, HOURS_T0 + timedelta(minutes=6 * i), {"factuality": True}, "alerts", tier="llm", cost=0.002)
        for i in (21, 22, 23)], judge_version="cascade-2")


# -- briefs and archive: the trace explorer's searches ----------------------------------------------------------
BRIEFS_T0_NS = ns(datetime(2026, 3, 3, 10, 0, tzinfo=UTC))
ARCHIVE_T0_NS = ns(datetime(2026, 3, 4, 10, 0, tzinfo=UTC))
EXPLORER_T0_NS = 1_772_445_600_000_000_000  # 2026-03-02 10:00 UTC, for a test's own store


def explorer_rows(n: int, t0_ns: int = EXPLORER_T0_NS, *, service: str = "digest", place: str = "Zanzibar",
                  domain: str | None = None, part: int = 1) -> list[tuple]:
    """``n`` summarization spans 1 s apart from ``t0_ns``, oldest first: span i on model m{i % 2}, prompt
    v{i % 3}, its summary "Revenue rose {i}%.", its source naming ``place`` when i % 5 == 0, else Lisbon."""
    provider, memory = memory_provider(service)
    tracer = provider.get_tracer("test")
    for i in range(n):
        where = place if i % 5 == 0 else "Lisbon"
        attrs = summarization_attributes(f"Document {i}: revenue in {where} rose {i}% in May.",
                                         f"Revenue rose {i}%.", band="tldr", prompt_version=f"v{i % 3}",
                                         domain=domain)
        tracer.start_span("summarize", attributes={**attrs, semconv.GEN_AI_REQUEST_MODEL: f"m{i % 2}"}).end()
    rows = fixed(spans_to_rows(memory.get_finished_spans()), part)
    return [(t0_ns + i * 1_000_000_000, *row[1:]) for i, row in enumerate(rows)]


@cache
def briefs_rows() -> tuple[tuple, ...]:
    return tuple(explorer_rows(30, BRIEFS_T0_NS, service="briefs", domain="finance", part=2))


@cache
def archive_rows() -> tuple[tuple, ...]:
    return tuple(explorer_rows(200, ARCHIVE_T0_NS, service="archive", place="Mombasa", domain="news", part=3))


def judged(rows, i: int, rubric: str, result: RubricResult) -> ScoredSpan:
    return ScoredSpan(SpanRef(rows[i][1], rows[i][2], rows[i][0], rows[i][7]), {rubric: result})


FAILING = RubricResult.make("factuality", "numerically_wrong", failure_mode="number_mismatch", evidence='"7%"',
                            explanation="The figure differs.")
WRONG = RubricResult.make("factuality", "numerically_wrong", failure_mode="number_mismatch", evidence='"3%"')
PADDED = RubricResult.make("conciseness", "padded", failure_mode="filler_phrase", evidence='"in conclusion"')


def seed_briefs(store) -> None:
    """Factuality: 4 and 7 fail, 5 and 8 pass, 1, 2, 3 and 9 pass unsure (a suspected number mismatch);
    conciseness: 3 passes unsure (suspected filler); groundedness: 11 fails (a contradicted claim), 13's LLM
    judge timed out; completeness: 12 passes. The rest is unjudged."""
    rows = briefs_rows()
    store.insert_spans(list(rows))
    write_scores(store, [
        judged(rows, 7, "factuality", FAILING),
        judged(rows, 8, "factuality", RubricResult.make("factuality", "correct")),
        judged(rows, 9, "factuality", unsure(FAILING, "number_mismatch")),
        *(judged(rows, i, "factuality", unsure(WRONG, "number_mismatch")) for i in (1, 2, 3)),
        judged(rows, 3, "conciseness", unsure(PADDED, "filler_phrase")),
        judged(rows, 4, "factuality", WRONG),  # confirmed: a failure, not a suspicion
        judged(rows, 5, "factuality", RubricResult.make("factuality", "correct")),
        judged(rows, 11, "groundedness", RubricResult.make("groundedness", "contradicted",
                                                           failure_mode="contradicted_claim", evidence='"rose"')),
        judged(rows, 12, "completeness", RubricResult.make("completeness", "present")),
        judged(rows, 13, "groundedness", RubricResult.make("groundedness", "error", tier="llm", error="timeout")),
    ], "cascade-test")
    store.insert_spans(list(archive_rows()))


# -- recognised: another instrumentation's traces beside tagged spans -------------------------------------------
RECOGNISED_T0 = datetime(2026, 3, 5, 10, 0, tzinfo=UTC)
RECOGNISED_END = RECOGNISED_T0 + timedelta(minutes=20)  # the tagged wire spans 0-4 and the recognised traces
WIRE_PART = 4


def wire_key(i: int) -> tuple[str, str]:
    return f"{WIRE_PART:04x}{i:028x}", f"{WIRE_PART:04x}{i:012x}"


def wire_row(i: int, at: datetime, service: str = "wire") -> tuple:
    """A span carrying sumwatch's tag (model gpt-4o-mini, prompt v3, no band), its ids :func:`wire_key`."""
    tid, sid = wire_key(i)
    attrs = {semconv.TASK: semconv.TASK_SUMMARIZATION, semconv.INPUT_VALUE: f"source {i}",
             semconv.OUTPUT_VALUE: f"summary {i}", semconv.GEN_AI_REQUEST_MODEL: "gpt-4o-mini",
             semconv.PROMPT_VERSION: "v3"}
    return (ns(at), tid, sid, "", "", semconv.SPAN_NAME, "Internal", service, {"service.name": service},
            semconv.INSTRUMENTATION_NAME, "", attrs, 1_000_000, "Unset", "", (), (), (), (), (), (), ())


@cache
def recognised() -> tuple[tuple[list[tuple], RecognisedSpan], ...]:
    """Four OpenInference traces (service newsroom) at 10:10-10:13, oldest first: (rows, recognised row)."""
    out = []
    for i in range(4):
        rows, r = openinference_trace(ns(RECOGNISED_T0 + timedelta(minutes=10 + i)))
        rows = fixed(rows, 5 + i)
        llm = next(row for row in rows if row[5] == "ChatCompletion")
        out.append((rows, replace(r, timestamp_ns=llm[0], trace_id=llm[1], span_id=llm[2])))
    return tuple(out)


LEGACY = wire_row(20, RECOGNISED_T0 + timedelta(minutes=40), service="legacy")
LEGACY[11].pop(semconv.GEN_AI_REQUEST_MODEL)
LEGACY[11].update({"gen_ai.response.model": "claude-3-5-haiku", "gen_ai.usage.prompt_tokens": "300",
                   "gen_ai.usage.completion_tokens": "40"})


def seed_recognised(store) -> None:
    """Tagged wire spans 0-4 (10:00-10:04), the recognised traces (each recognised twice: a second sampler pass)
    with factuality judged on the first two (pass, fail), wire span 7 (10:30) summarizing span 0's document
    again, wire span 8 (10:31) with only its source's hash, and the legacy span (10:40): older token names,
    the response's model."""
    store.insert_spans([wire_row(i, RECOGNISED_T0 + timedelta(minutes=i)) for i in range(5)])
    found = recognised()
    for rows, _ in found:
        store.insert_spans(rows)
    write_recognised(store, [r for _, r in found])
    write_recognised(store, [r for _, r in found])
    for i, (_, r) in enumerate(found[:2]):
        result = RubricResult.make("factuality", "correct" if i == 0 else "numerically_wrong", tier="rules")
        write_scores(store, [ScoredSpan(SpanRef(r.trace_id, r.span_id, r.timestamp_ns, r.service),
                                        {"factuality": result})], judge_version="cascade-1")
    same = wire_row(7, RECOGNISED_T0 + timedelta(minutes=30))
    same[11][semconv.INPUT_VALUE] = "source 0"
    blind = wire_row(8, RECOGNISED_T0 + timedelta(minutes=31))
    del blind[11][semconv.INPUT_VALUE]  # text capture off: the tracer kept the source's SHA-256
    blind[11][semconv.SOURCE_HASH] = "ab" * 32
    store.insert_spans([same, blind, LEGACY])


# -- copies: exporters that stored spans again ------------------------------------------------------------------
COPIES_T0_NS = ns(datetime(2026, 3, 6, 10, 0, tzinfo=UTC))
HOUR_NS = 3_600_000_000_000


def summarization_rows(n: int, service: str = "digest", t0_ns: int | None = None, part: int = 1) -> list[tuple]:
    """``n`` summarization spans as the receiver stores them, oldest first, 1 ms apart (from ``t0_ns``, else
    from now)."""
    provider, memory = memory_provider(service)

    @summarization(band="tldr", tracer_provider=provider)
    def summarize(text: str) -> str:
        return "A short summary."

    for i in range(n):
        summarize(f"Document {i}: revenue rose {i}% in May, the company said.")
    rows = fixed(spans_to_rows(memory.get_finished_spans()), part)
    base = rows[0][0] if t0_ns is None else t0_ns
    return [(base + i * 1_000_000, *row[1:]) for i, row in enumerate(rows)]


@cache
def relay_rows() -> tuple[tuple, ...]:
    """40 spans at 10:00, every one stored four times."""
    return tuple(summarization_rows(40, "relay", COPIES_T0_NS, part=9))


@cache
def feed_rows() -> tuple[tuple, ...]:
    """10 spans at 11:00, every one stored eight times."""
    return tuple(summarization_rows(10, "feed", COPIES_T0_NS + HOUR_NS, part=10))


@cache
def gateway_rows() -> tuple[tuple, ...]:
    """A request (12:00) that summarized two documents: stored twice, its first row a third time."""
    provider, memory = memory_provider("gateway")
    tracer = provider.get_tracer("test")

    @summarization(band="tldr", tracer_provider=provider)
    def summarize(text: str) -> str:
        return "Short."

    with tracer.start_as_current_span("request"):
        summarize("The first document, long enough to summarize.")
        summarize("The second document, long enough to summarize.")
    rows = fixed(spans_to_rows(memory.get_finished_spans()), 11)
    return tuple((COPIES_T0_NS + 2 * HOUR_NS + i * 1_000, *row[1:]) for i, row in enumerate(rows))


@cache
def desk_rows() -> tuple[tuple, ...]:
    """30 spans at 13:00, the newest in the store; the newest 15 stored twice (a retried batch)."""
    return tuple(summarization_rows(30, "desk", COPIES_T0_NS + 3 * HOUR_NS, part=12))


def seed_copies(store) -> None:
    """Each service's copies in one insert (where they are stored does not change a read)."""
    store.insert_spans(list(relay_rows()) * 4)
    store.insert_spans(list(feed_rows()) * 8)
    rows = list(gateway_rows())
    store.insert_spans(rows * 2 + rows[:1])
    store.insert_spans(list(desk_rows()) + list(desk_rows()[15:]))


# -- runs: three clustering runs, and the issues they found -----------------------------------------------------
RUNS = (("run-1", HOURS_T0), ("run-2", HOURS_T0 + timedelta(hours=1)), ("run-3", HOURS_T0 + timedelta(hours=2)))
# run -> {issue number: traces}; SW-4's members are briefs spans 1 (run-1), 3 and 6 (run-3), SW-5's span 2 (run-3)
ISSUE_TRACES = {"run-1": {1: 4, 4: 1}, "run-2": {1: 6, 2: 3}, "run-3": {2: 9, 4: 2, 5: 1}}
ISSUE_MEMBERS = {"run-1": {4: (1,)}, "run-3": {4: (3, 6), 5: (2,)}}


def _state(n: int, traces: int, at: datetime) -> IssueState:
    title, mode = {1: ("Numbers changed in the summary", "number_mismatch"),
                   2: ("Entities swapped", "entity_swap"),
                   4: ("Revenue figures rewritten", "number_mismatch"),
                   5: ("Regional figures rewritten", "number_mismatch")}[n]
    return IssueState(n, f"SW-{n}", title, "Figures differ from the source.", "The model rewrites numbers.",
                      "Copy figures verbatim.", "high" if n == 2 else "low", "factuality", mode, ["revenue"],
                      "ongoing", traces, traces, 0.1, 0, HOURS_T0, at, np.full(4, 0.5, dtype=np.float32),
                      "all-MiniLM-L6-v2", "KeywordNamer")


def seed_runs(store) -> None:
    rows = briefs_rows()
    for run, at in RUNS:
        issues = ISSUE_TRACES[run]
        save_states(store, [_state(n, t, at) for n, t in issues.items()], run, at)
        members = [(n, i) for n, spans in ISSUE_MEMBERS.get(run, {}).items() for i in spans]
        save_members(store, [
            MemberRow(run, n, rows[i][1], rows[i][2], datetime.fromtimestamp(rows[i][0] / 1e9, UTC), "briefs",
                      "factuality", "numerically_wrong", "number_mismatch", 0.9, REPRESENTATIVE if k == 0 else MEMBER,
                      '"3%"', "factuality numerically wrong", at) for k, (n, i) in enumerate(members)])
        save_run(store, RunRow(run, at, at + timedelta(seconds=30), ns(at - timedelta(days=1)), ns(at),
                               failures=sum(issues.values()), clustered=sum(issues.values()), noise=0,
                               issues=len(issues), new_issues=0, embedded=sum(issues.values()), promoted=0,
                               namer="KeywordNamer", embedding_model="all-MiniLM-L6-v2", seconds=1.5))


CORPUS_ITEMS = 7


def seed(store) -> None:
    """Every part, in the order above."""
    seed_hours(store)
    rejudge_hours(store)
    seed_briefs(store)
    seed_recognised(store)
    seed_copies(store)
    seed_runs(store)
    seed_starter_corpora(store)
    save_items(store, [CorpusItem("factuality", f"Revenue rose {q}% in quarter {q}.", f"Revenue rose {q + 1}%.",
                                  status="needs_label", proposed_verdict="numerically_wrong", origin="promoted")
                       for q in range(CORPUS_ITEMS)])

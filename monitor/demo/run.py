"""The demo: a decorated summarizer over the generated workload, traced into the store.

    result = run_demo(store, n=200, seed=7, service="sumwatch-demo")

It is an ordinary user of the tracer: ``@summarization`` on a function, ``configure`` with the
direct ClickHouse exporter. The planted failure mode goes on each span under
``sumwatch.demo.planted_mode``, which scorers never read; benchmarks use it as ground truth.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from opentelemetry import trace
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider

from sumwatch.tracer import configure, from_arg, record_usage, semconv, summarization
from sumwatch.tracer.otel_traces import TRACES_TABLE

from ..scoring.sampler import Sampler
from ..store.connection import Store
from ..store.scores import SCORES_TABLE
from ..store.traces import ONE_PER_SPAN
from . import PLANTED_DETAIL_ATTR, PLANTED_MODE_ATTR, DemoCase, generate_workload

RUN_KEY = "demo_run"  # metadata key: summarization.metadata.demo_run
DEMO_MODEL = "demo-summarizer-1"


@dataclass
class DemoResult:
    run_id: str
    generated: int
    stored: int
    by_mode: dict[str, int] = field(default_factory=dict)
    by_domain: dict[str, int] = field(default_factory=dict)
    examples: list[dict[str, str]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"run_id": self.run_id, "generated": self.generated, "stored": self.stored,
                "by_mode": self.by_mode, "by_domain": self.by_domain, "examples": self.examples}


def _tokens(text: str) -> int:
    return max(1, round(len(text.split()) * 4 / 3))  # about 0.75 words per token in English


def build_summarizer(provider: TracerProvider, run_id: str) -> Callable[..., str]:
    """The app code under observation: a summarizer that 'calls an LLM' (replays the workload)."""

    @summarization(band=from_arg("band"), document_id=from_arg("document_id"), domain=from_arg("domain"),
                   expected_facts=from_arg("expected_facts"), prompt_version="demo-v1",
                   metadata={RUN_KEY: run_id}, tracer_provider=provider)
    def summarize(source: str, band: str, document_id: str, domain: str, expected_facts: list[str],
                  case: DemoCase) -> str:
        summary = case.summary  # stands in for the model's answer
        record_usage(model=DEMO_MODEL, input_tokens=_tokens(source), output_tokens=_tokens(summary))
        span = trace.get_current_span()
        span.set_attribute(PLANTED_MODE_ATTR, case.planted_mode)
        span.set_attribute(PLANTED_DETAIL_ATTR, json.dumps(case.planted_detail, sort_keys=True))
        return summary

    return summarize


def run_demo(store: Store, *, n: int = 200, seed: int = 7, service: str = "sumwatch-demo",
             on_progress: Callable[[int, int], None] | None = None) -> DemoResult:
    """Generate, summarize under tracing, flush into ClickHouse, and read back what was stored."""
    cases = generate_workload(n, seed=seed)
    run_id = uuid.uuid4().hex[:12]
    provider = TracerProvider(resource=Resource.create({"service.name": service}))
    configure(provider=provider, clickhouse=store.client, database=store.database, set_global=False)
    summarize = build_summarizer(provider, run_id)
    for i, case in enumerate(cases, start=1):
        summarize(case.source, case.band, case.document_id, case.domain, list(case.expected_facts), case=case)
        if on_progress:
            on_progress(i, len(cases))
    provider.force_flush()
    provider.shutdown()
    return read_back(store, run_id, generated=len(cases))


def read_back(store: Store, run_id: str, generated: int) -> DemoResult:
    a = "SpanAttributes"
    run_filter = f"{a}['{semconv.METADATA_PREFIX}{RUN_KEY}'] = {{run:String}}"
    params = {"run": run_id}
    by_mode = dict(store.query_rows(
        f"SELECT {a}['{PLANTED_MODE_ATTR}'] AS m, uniqExact(TraceId, SpanId) FROM {TRACES_TABLE} WHERE {run_filter} "
        f"GROUP BY m ORDER BY m", params))
    by_domain = dict(store.query_rows(
        f"SELECT {a}['{semconv.DOMAIN}'] AS d, uniqExact(TraceId, SpanId) FROM {TRACES_TABLE} WHERE {run_filter} "
        f"GROUP BY d ORDER BY d", params))
    examples = [
        {"trace_id": tid, "domain": dom, "band": band, "planted_mode": mode, "summary": " ".join(s.split())[:160]}
        for tid, dom, band, mode, s in store.query_rows(
            f"SELECT TraceId, {a}['{semconv.DOMAIN}'], {a}['{semconv.SUMMARIZATION_BAND}'], "
            f"{a}['{PLANTED_MODE_ATTR}'], {a}['{semconv.OUTPUT_VALUE}'] FROM {TRACES_TABLE} "
            f"WHERE {run_filter} ORDER BY Timestamp LIMIT 1 BY {a}['{PLANTED_MODE_ATTR}'] LIMIT 4", params)
    ]
    return DemoResult(run_id=run_id, generated=generated, stored=sum(by_mode.values()),
                      by_mode={k: int(v) for k, v in by_mode.items()},
                      by_domain={k: int(v) for k, v in by_domain.items()}, examples=examples)


@dataclass
class DemoScoring:
    judge_version: str
    scored: int
    seconds: float
    pass_rates: dict[str, float]  # rubric -> share of this run's spans passing
    detection: dict[str, dict[str, Any]]  # planted mode -> spans, flagged share, rubrics that caught it

    def to_json(self) -> dict[str, Any]:
        return {"judge_version": self.judge_version, "scored": self.scored, "seconds": self.seconds,
                "pass_rates": self.pass_rates, "detection": self.detection}


def score_demo(store: Store, cascade: Any, run_id: str, on_progress: Callable[[int, int], None] | None = None,
               *, daily_cap_usd: float | None = None) -> DemoScoring:
    """Score the run's spans with the sampler (within the daily LLM cap) and measure detection against the
    planted modes."""

    sampler = Sampler(store, cascade, daily_cap_usd=daily_cap_usd)
    report = sampler.run_pass(on_progress=on_progress)
    cascade = sampler.cascade  # with the definitions active in the store
    a = "SpanAttributes"
    rows = store.query_rows(
        f"""SELECT t.TraceId, t.SpanId, t.{a}['{PLANTED_MODE_ATTR}'], s.Rubric, s.Passed,
               s.Passed AND position(s.Details, '"suspicion"') > 0
        FROM (SELECT TraceId, SpanId, {a} FROM {TRACES_TABLE}
              WHERE {a}['{semconv.METADATA_PREFIX}{RUN_KEY}'] = {{run:String}} {ONE_PER_SPAN}) AS t
        INNER JOIN (SELECT TraceId, SpanId, Rubric, Passed, Details FROM {SCORES_TABLE} FINAL
                    WHERE JudgeVersion IN {{jvs:Array(String)}}) AS s
            ON t.TraceId = s.TraceId AND t.SpanId = s.SpanId""",
        {"jvs": [cascade.version_for(r) for r in cascade.rubrics], "run": run_id})
    modes: dict[tuple[str, str], str] = {}
    failing: dict[tuple[str, str], list[str]] = {}
    suspected: set[tuple[str, str]] = set()  # recorded as unsure: a suspicion no LLM was there to confirm
    passed: dict[str, list[int]] = {}
    for trace_id, span_id, mode, rubric, ok, unsure in rows:
        key = (trace_id, span_id)
        modes[key] = mode
        failing.setdefault(key, [])
        if not ok:
            failing[key].append(rubric)
        if unsure:
            suspected.add(key)
        passed.setdefault(rubric, []).append(int(ok))
    detection: dict[str, dict[str, Any]] = {}
    for key, mode in modes.items():
        d = detection.setdefault(mode, {"spans": 0, "flagged": 0, "unsure": 0, "caught_by": {}})
        d["spans"] += 1
        d["flagged"] += bool(failing[key])
        d["unsure"] += key in suspected and not failing[key]
        for rubric in failing[key]:
            d["caught_by"][rubric] = d["caught_by"].get(rubric, 0) + 1
    for d in detection.values():
        d["flagged_share"] = round(d["flagged"] / d["spans"], 3)
    return DemoScoring(cascade.version, report.scored_spans, report.seconds,
                       {r: round(sum(v) / len(v), 3) for r, v in sorted(passed.items())},
                       dict(sorted(detection.items())))

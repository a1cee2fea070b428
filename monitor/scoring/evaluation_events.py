"""Scores as OpenTelemetry evaluation events, for tools that read them from the traces (``--events``).

    write_evaluation_events(store, cascade.version, scored)   # a child span per scored span, an event per rubric

Each scored span gets a child span named ``semconv.EVALUATION_SPAN_NAME`` in ``otel_traces`` carrying one
``gen_ai.evaluation.result`` event per rubric (name, label, score, explanation, passed, failure mode, tier).
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from typing import Any

from sumwatch.tracer import semconv
from sumwatch.tracer.otel_traces import SERVICE_NAME_KEY

from ..rubrics.verdicts import RubricResult
from ..store.connection import Store
from ..store.scores import ScoredSpan


def write_evaluation_events(store: Store, judge_version: str, scored: Sequence[ScoredSpan]) -> None:
    """One INSERT of a child span per scored span, its events the rubrics' results."""
    now = time.time_ns()
    rows: list[tuple[Any, ...]] = []
    for item in scored:
        names, attrs = [], []
        for rubric, r in item.results.items():
            names.append(semconv.EVALUATION_EVENT)
            attrs.append(event_attributes(rubric, r))
        rows.append((
            now, item.ref.trace_id, os.urandom(8).hex(), item.ref.span_id, "", semconv.EVALUATION_SPAN_NAME,
            "Internal", "sumwatch", {SERVICE_NAME_KEY: "sumwatch"}, "sumwatch.monitor", "",
            {semconv.JUDGE_VERSION: judge_version, "gen_ai.operation.name": "evaluate"}, 0, "Unset", "",
            [now] * len(names), names, attrs, [], [], [], [],
        ))
    store.insert_spans(rows)


def event_attributes(rubric: str, r: RubricResult) -> dict[str, str]:
    return {
        semconv.EVALUATION_NAME: rubric,
        semconv.EVALUATION_SCORE_LABEL: r.verdict,
        semconv.EVALUATION_SCORE_VALUE: f"{r.score:.4g}",
        semconv.EVALUATION_EXPLANATION: r.explanation,
        semconv.EVALUATION_PASSED: "true" if r.passed else "false",
        semconv.EVALUATION_FAILURE_MODE: r.failure_mode,
        semconv.EVALUATION_TIER: r.tier,
    }

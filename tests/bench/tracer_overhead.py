"""Per-call cost of ``@summarization`` against a bare OpenTelemetry span with the same attributes.

    python tests/bench/tracer_overhead.py [--calls 20000] [--rounds 7]

Both paths end in the same BatchSpanProcessor and the same exporter (one that counts and drops, so
the figure is the instrumentation's, not an export's), in the same process, in interleaved rounds;
the median per-call time of each is compared. The bare baseline is what a hand-instrumented app
writes: a span with the same attribute values, hash and word counts computed inline. A second ratio
against a bare span whose attribute values are precomputed constants bounds the cost from above.
Target: decorated <= 1.25x the bare span.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import time

from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult

from sumwatch.tracer import semconv, summarization

SOURCE = ("The regional transit authority reported that weekday ridership rose 14% in the third quarter to "
          "412,000 trips, driven by the reopening of the Harbor Line, while weekend ridership was flat. ") * 11
SOURCE = SOURCE[:2048]
SUMMARY = "Weekday ridership rose 14% to 412,000 trips in Q3 as the Harbor Line reopened; weekends were flat."


class CountingExporter(SpanExporter):
    def __init__(self) -> None:
        self.count = 0

    def export(self, spans) -> SpanExportResult:
        self.count += len(spans)
        return SpanExportResult.SUCCESS


def llm(text: str) -> str:  # the summarizer's own work is the same on both paths
    return SUMMARY


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--calls", type=int, default=20_000, help="calls per round per path")
    ap.add_argument("--rounds", type=int, default=7)
    args = ap.parse_args()

    exporter = CountingExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": "bench"}))
    provider.add_span_processor(BatchSpanProcessor(exporter, max_queue_size=65_536, max_export_batch_size=2048))
    tracer = provider.get_tracer("bench")

    @summarization(band="tldr", domain="transit", prompt_version="v1", tracer_provider=provider)
    def decorated(text: str) -> str:
        return llm(text)

    def bare(text: str) -> str:
        attrs = {
            semconv.TASK: semconv.TASK_SUMMARIZATION,
            semconv.OPENINFERENCE_SPAN_KIND: semconv.OPENINFERENCE_KIND_CHAIN,
            semconv.SUMMARIZATION_BAND: "tldr", semconv.DOMAIN: "transit", semconv.PROMPT_VERSION: "v1",
            semconv.SOURCE_HASH: hashlib.sha256(text.encode()).hexdigest(),
            semconv.SOURCE_WORDS: len(text.split()), semconv.SOURCE_CHARS: len(text),
            semconv.TEXT_CAPTURED: True, semconv.INPUT_VALUE: text,
        }
        with tracer.start_as_current_span(semconv.SPAN_NAME, attributes=attrs) as span:
            summary = llm(text)
            span.set_attributes({semconv.SUMMARY_WORDS: len(summary.split()), semconv.OUTPUT_VALUE: summary})
        return summary

    constant = {
        semconv.TASK: semconv.TASK_SUMMARIZATION, semconv.OPENINFERENCE_SPAN_KIND: semconv.OPENINFERENCE_KIND_CHAIN,
        semconv.SUMMARIZATION_BAND: "tldr", semconv.DOMAIN: "transit", semconv.PROMPT_VERSION: "v1",
        semconv.SOURCE_HASH: hashlib.sha256(SOURCE.encode()).hexdigest(), semconv.SOURCE_WORDS: len(SOURCE.split()),
        semconv.SOURCE_CHARS: len(SOURCE), semconv.TEXT_CAPTURED: True, semconv.INPUT_VALUE: SOURCE,
    }
    end_attrs = {semconv.SUMMARY_WORDS: len(SUMMARY.split()), semconv.OUTPUT_VALUE: SUMMARY}

    def bare_precomputed(text: str) -> str:
        with tracer.start_as_current_span(semconv.SPAN_NAME, attributes=constant) as span:
            summary = llm(text)
            span.set_attributes(end_attrs)
        return summary

    def plain(text: str) -> str:
        return llm(text)

    paths = {"plain function": plain, "bare span": bare, "bare span, constants": bare_precomputed,
             "@summarization": decorated}
    per_call: dict[str, list[float]] = {name: [] for name in paths}
    for fn in paths.values():  # warm up
        for _ in range(500):
            fn(SOURCE)
    provider.force_flush()
    for _ in range(args.rounds):
        for name, fn in paths.items():
            t0 = time.perf_counter()
            for _ in range(args.calls):
                fn(SOURCE)
            per_call[name].append((time.perf_counter() - t0) / args.calls * 1e6)
            provider.force_flush()  # each round pays for its own span processing before the next starts
    provider.shutdown()

    med = {name: statistics.median(v) for name, v in per_call.items()}
    ratio = med["@summarization"] / med["bare span"]
    ratio_const = med["@summarization"] / med["bare span, constants"]
    print(f"{'path':<24}{'median us/call':>16}{'min':>8}{'max':>8}{'vs bare span':>14}")
    for name in paths:
        values = per_call[name]
        print(f"{name:<24}{med[name]:>16.2f}{min(values):>8.2f}{max(values):>8.2f}"
              f"{med[name] / med['bare span']:>14.2f}")
    print(json.dumps({
        "bench": "tracer_overhead", "calls_per_round": args.calls, "rounds": args.rounds, "source_chars": len(SOURCE),
        "plain_us": round(med["plain function"], 3), "bare_span_us": round(med["bare span"], 3),
        "bare_span_constants_us": round(med["bare span, constants"], 3),
        "decorated_us": round(med["@summarization"], 3),
        "ratio_vs_bare": round(ratio, 3), "ratio_vs_bare_constants": round(ratio_const, 3), "target_ratio": 1.25,
        "spans_exported": exporter.count, "pass": ratio <= 1.25,
    }))


if __name__ == "__main__":
    main()

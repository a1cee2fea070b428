"""Recognition with the real instrumentation packages: each chat call of the test corpus sent through the
OpenAI client to a loopback fake, the span (and log records) the instrumentation writes read by recognise().

    python tests/bench/genai_recognition.py openinference     # openinference-instrumentation-openai
    python tests/bench/genai_recognition.py contrib           # opentelemetry-instrumentation-openai-v2
    python tests/bench/genai_recognition.py openllmetry       # opentelemetry-instrumentation-openai (Traceloop)

The packages are not dependencies of sumwatch: install the one to measure (``pip install --target DIR``
and ``PYTHONPATH=DIR`` keep them out of the project's environment). Prints the misses and false recognitions,
then one JSON line: summaries recognised with the exact document and answer, and other calls recognised.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import openai  # noqa: E402
from fakes.openai_server import FakeOpenAI, answer  # noqa: E402
from opentelemetry.sdk.trace import TracerProvider  # noqa: E402
from opentelemetry.sdk.trace.export import SimpleSpanProcessor  # noqa: E402
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter  # noqa: E402

from sumwatch.monitor.scoring.recognise import Recognised, recognise  # noqa: E402
from tests.monitor.scoring.chat_calls import OTHERS, SUMMARIES, ChatCall  # noqa: E402


def _instrument(which: str, provider: TracerProvider):
    """The instrumentor, and a function returning the log records it wrote since the last call."""
    if which == "openinference":
        from openinference.instrumentation.openai import OpenAIInstrumentor
        OpenAIInstrumentor().instrument(tracer_provider=provider)
        return lambda: []
    if which == "openllmetry":
        from opentelemetry.instrumentation.openai import OpenAIInstrumentor as TraceloopInstrumentor
        TraceloopInstrumentor().instrument(tracer_provider=provider)
        return lambda: []
    os.environ.setdefault("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "true")
    from opentelemetry.instrumentation.openai_v2 import OpenAIInstrumentor as ContribInstrumentor
    from opentelemetry.sdk._logs import LoggerProvider
    from opentelemetry.sdk._logs.export import InMemoryLogExporter, SimpleLogRecordProcessor
    logs = InMemoryLogExporter()
    logger_provider = LoggerProvider()
    logger_provider.add_log_record_processor(SimpleLogRecordProcessor(logs))
    ContribInstrumentor().instrument(tracer_provider=provider, logger_provider=logger_provider)

    def drain() -> list[dict[str, str]]:
        out = []
        for item in logs.get_finished_logs():
            record = item.log_record
            attrs = {k: str(v) for k, v in (record.attributes or {}).items()}
            name = getattr(record, "event_name", None) or attrs.get("event.name", "")
            body = record.body if isinstance(record.body, str) else json.dumps(record.body)
            out.append({**attrs, "event.name": name, "body": body})
        logs.clear()
        return out
    return drain


def _attribute(value: object) -> str:
    """A span attribute as the store keeps it: a string (lists as JSON)."""
    if isinstance(value, list | tuple):
        return json.dumps(list(value))
    return value if isinstance(value, str) else str(value)


def main() -> None:
    which = sys.argv[1] if len(sys.argv) > 1 else "openinference"
    spans = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(spans))
    drain = _instrument(which, provider)
    exact = recognised = false = 0
    calls: list[ChatCall] = [*SUMMARIES, *OTHERS]
    for call in calls:
        spans.clear()
        messages = ([{"role": "system", "content": call.system}] if call.system else []) + [
            {"role": "user", "content": u} for u in call.users]
        with FakeOpenAI(answer(call.answer)) as fake:
            openai.OpenAI(base_url=fake.base_url, api_key="k").chat.completions.create(
                model="gpt-4o-mini", messages=messages)  # type: ignore[arg-type]
        [span] = spans.get_finished_spans()
        found = recognise(span.name, {k: _attribute(v) for k, v in (span.attributes or {}).items()}, drain())
        if call.document is None:
            if isinstance(found, Recognised):
                false += 1
                print(f"false recognition: {call.name}")
        elif isinstance(found, Recognised):
            recognised += 1
            if (found.source, found.summary) == (call.document, call.answer):
                exact += 1
            else:
                print(f"inexact: {call.name}: {found.source[:60]!r} / {found.summary[:40]!r}")
        else:
            print(f"missed: {call.name}: {found.reason}")
    print(json.dumps({"instrumentation": which, "summaries": len(SUMMARIES), "recognised": recognised,
                      "exact": exact, "other_calls": len(OTHERS), "false_recognitions": false}))


if __name__ == "__main__":
    main()

"""The real GenAI instrumentation packages (the ``instrumentations`` extra), each set up as its users do, around
one OpenAI client. Shared by the end-to-end tests (which export over OTLP to a running sumwatch) and the
recognition bench (which keeps the spans in memory).

    live = instrument("logfire", span_exporter, log_exporter)
    with live.call() as trace_id:           # one trace per chat call: the call's span is its parent's child
        live.client(base_url).chat.completions.create(...)
    live.flush()

Each instrumentor patches the ``openai`` module for the whole process: use one per process.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass

import openai
from opentelemetry import trace
from opentelemetry.sdk._logs import LoggerProvider
from opentelemetry.sdk._logs.export import LogRecordExporter, SimpleLogRecordProcessor
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter

# contrib-events: opentelemetry-instrumentation-openai-v2 with the content in log records; contrib-span: the
# same package with the content in span attributes (gen_ai.input.messages / gen_ai.output.messages)
INSTRUMENTATIONS = ("openinference", "contrib-events", "contrib-span", "openllmetry", "logfire", "langfuse")
# the Langfuse SDK's public key: any value; its secret key is sumwatch's ingest token (README, "Langfuse")
LANGFUSE_PUBLIC_KEY = "pk-lf-sumwatch-test"


@dataclass
class Instrumented:
    """An instrumented process: a client maker, a parent span per call (yielding its trace id), a flush."""

    client: Callable[[str], openai.OpenAI]
    call: Callable[[], AbstractContextManager[str]]
    flush: Callable[[], None]


def _tracer_call(tracer: trace.Tracer) -> Callable[[], AbstractContextManager[str]]:
    @contextmanager
    def call() -> Iterator[str]:
        with tracer.start_as_current_span("handle request") as span:
            yield f"{span.get_span_context().trace_id:032x}"
    return call


def _plain_client(base_url: str) -> openai.OpenAI:
    return openai.OpenAI(base_url=base_url, api_key="test-key", max_retries=0)


def instrument(which: str, spans: SpanExporter | None, logs: LogRecordExporter | None = None, *,
               langfuse_url: str = "http://127.0.0.1:9", langfuse_secret: str = "sk-lf-unused") -> Instrumented:
    """Set up ``which``; its spans go to ``spans`` (Langfuse: None lets its SDK export to ``langfuse_url``)."""
    if which == "logfire":
        import logfire

        assert spans is not None
        logfire.configure(send_to_logfire=False, console=False, service_name="digest-bot",
                          additional_span_processors=[SimpleSpanProcessor(spans)])
        logfire.instrument_openai()
        tracer = trace.get_tracer("digest-bot")

        @contextmanager
        def logfire_call() -> Iterator[str]:
            with logfire.span("handle request"):
                yield f"{trace.get_current_span().get_span_context().trace_id:032x}"
        return Instrumented(_plain_client, logfire_call, lambda: logfire.force_flush())
    if which == "langfuse":
        from langfuse import Langfuse
        from langfuse.openai import OpenAI as LangfuseOpenAI

        client = Langfuse(public_key=LANGFUSE_PUBLIC_KEY, secret_key=langfuse_secret, base_url=langfuse_url,
                          span_exporter=spans, flush_at=1)

        @contextmanager
        def langfuse_call() -> Iterator[str]:
            with client.start_as_current_observation(as_type="span", name="handle request") as parent:
                yield parent.trace_id

        def langfuse_client(base_url: str) -> openai.OpenAI:
            return LangfuseOpenAI(base_url=base_url, api_key="test-key", max_retries=0)
        return Instrumented(langfuse_client, langfuse_call, client.flush)

    provider = TracerProvider()
    assert spans is not None
    provider.add_span_processor(SimpleSpanProcessor(spans))
    tracer = provider.get_tracer("digest-bot")
    if which == "openinference":
        from openinference.instrumentation.openai import OpenAIInstrumentor

        OpenAIInstrumentor().instrument(tracer_provider=provider)
        return Instrumented(_plain_client, _tracer_call(tracer), lambda: provider.force_flush())
    if which == "openllmetry":
        from opentelemetry.instrumentation.openai import OpenAIInstrumentor as TraceloopInstrumentor

        TraceloopInstrumentor().instrument(tracer_provider=provider)
        return Instrumented(_plain_client, _tracer_call(tracer), lambda: provider.force_flush())
    if which not in ("contrib-events", "contrib-span"):
        raise SystemExit(f"unknown instrumentation {which!r}; one of {', '.join(INSTRUMENTATIONS)}")
    # the package's current releases always write the newest conventions; this chooses where the content goes
    os.environ["OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"] = (
        "EVENT_ONLY" if which == "contrib-events" else "SPAN_ONLY")
    from opentelemetry.instrumentation.openai_v2 import OpenAIInstrumentor as ContribInstrumentor

    loggers = LoggerProvider()
    if logs is not None:
        loggers.add_log_record_processor(SimpleLogRecordProcessor(logs))
    ContribInstrumentor().instrument(tracer_provider=provider, logger_provider=loggers)

    def flush() -> None:
        provider.force_flush()
        loggers.force_flush()
    return Instrumented(_plain_client, _tracer_call(tracer), flush)

import pytest
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from sumwatch.tracer import configure, semconv, summarization
from sumwatch.tracer._provider import otlp_traces_url


def test_configure_joins_an_existing_provider():
    provider = TracerProvider(resource=Resource.create({"service.name": "app"}))
    exporter = InMemorySpanExporter()
    assert configure(provider=provider, exporter=exporter, batch=False) is provider

    @summarization(tracer_provider=provider)
    def summarize(text: str) -> str:
        return "s"

    summarize("a long text")
    (span,) = exporter.get_finished_spans()
    assert span.resource.attributes["service.name"] == "app"
    assert span.attributes[semconv.TASK] == "summarization"


def test_configure_rejects_two_destinations():
    with pytest.raises(ValueError, match="one of endpoint=, clickhouse= or exporter="):
        configure(endpoint="http://127.0.0.1:4318", exporter=InMemorySpanExporter(), provider=TracerProvider())


def test_endpoint_gets_the_traces_path_once():
    assert otlp_traces_url("http://h:4318") == "http://h:4318/v1/traces"
    assert otlp_traces_url("http://h:4318/") == "http://h:4318/v1/traces"
    assert otlp_traces_url("http://h:4318/v1/traces") == "http://h:4318/v1/traces"

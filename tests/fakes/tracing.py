"""Real OpenTelemetry SDK tracing into memory, for tests that need finished spans to look at or send on.

    provider, exporter = memory_provider(service="checkout-digest")
    ...; exporter.get_finished_spans()
"""

from __future__ import annotations

from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter


def memory_provider(service: str | None = None) -> tuple[TracerProvider, InMemorySpanExporter]:
    """A provider (not registered globally) whose spans land in the returned exporter as they end."""
    exporter = InMemorySpanExporter()
    resource = Resource.create({"service.name": service}) if service else None
    provider = TracerProvider(resource=resource) if resource else TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return provider, exporter

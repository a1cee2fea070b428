"""``configure``: wire summarization spans to an OTLP endpoint, to ClickHouse, or into an app's provider.

    configure(endpoint="http://localhost:4318", service_name="support-bot")     # OTLP/HTTP
    configure(clickhouse="http://default:pw@ch:8123", database="otel")          # direct, batched
    configure(provider=existing_provider, endpoint="http://collector:4318")     # join the app's provider
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from opentelemetry import trace

from ._capture import CapturePolicy, set_policy

if TYPE_CHECKING:  # the SDK loads when configure() runs, not when an app imports sumwatch.tracer
    from opentelemetry.sdk.trace import SpanProcessor, TracerProvider
    from opentelemetry.sdk.trace.export import SpanExporter

OTLP_TRACES_PATH = "/v1/traces"


def otlp_traces_url(endpoint: str) -> str:
    """``http://host:4318`` -> ``http://host:4318/v1/traces``; a full ``.../v1/traces`` URL is kept."""
    endpoint = endpoint.rstrip("/")
    return endpoint if endpoint.endswith(OTLP_TRACES_PATH) else endpoint + OTLP_TRACES_PATH


def configure(*, endpoint: str | None = None, headers: Mapping[str, str] | None = None,
              clickhouse: Any = None, database: str = "otel",
              provider: TracerProvider | None = None, service_name: str | None = None,
              exporter: SpanExporter | None = None, capture: CapturePolicy | None = None,
              batch: bool = True, max_export_batch_size: int = 2048,
              schedule_delay_millis: int = 1000, set_global: bool = True) -> TracerProvider:
    """Set up tracing for summarization spans and return the provider in use.

    Exactly one destination among ``endpoint`` (OTLP/HTTP), ``clickhouse`` (a URL or a
    clickhouse-connect client) and ``exporter`` (any SpanExporter), or none when ``provider``
    already exports. Without ``provider``, an SDK provider that the app registered globally is
    joined; otherwise a new one is created (and registered globally when ``set_global``).

    No destination is contacted here: a ClickHouse URL is connected on the first export, so an app
    starts while its database is down, and export failures are logged, never raised.
    """
    from opentelemetry.sdk.resources import Resource  # noqa: PLC0415 - the SDK and exporters load in configure()
    from opentelemetry.sdk.trace import TracerProvider  # noqa: PLC0415 - the SDK and exporters load in configure()
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, SimpleSpanProcessor  # noqa: PLC0415 - the SDK and exporters load in configure()

    destinations = [d for d in (endpoint, clickhouse, exporter) if d is not None]
    if len(destinations) > 1:
        raise ValueError("configure(): give one of endpoint=, clickhouse= or exporter=, not several")
    if capture is not None:
        set_policy(capture)

    if provider is None:
        current = trace.get_tracer_provider()
        if isinstance(current, TracerProvider):
            provider = current
        else:
            attrs = {"service.name": service_name} if service_name else {}
            provider = TracerProvider(resource=Resource.create(attrs))
            if set_global:
                trace.set_tracer_provider(provider)
    elif not destinations and service_name:
        raise ValueError("configure(): service_name= applies to a provider sumwatch creates; "
                         "set it on your own provider's Resource")

    if endpoint is not None:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter  # noqa: PLC0415 - the SDK and exporters load in configure()

        exporter = OTLPSpanExporter(endpoint=otlp_traces_url(endpoint), headers=dict(headers or {}))
    elif clickhouse is not None:
        from ._exporters import ClickHouseSpanExporter  # noqa: PLC0415 - the SDK and exporters load in configure()

        exporter = ClickHouseSpanExporter(clickhouse, database=database)

    if exporter is not None:
        processor: SpanProcessor = (BatchSpanProcessor(exporter, max_export_batch_size=max_export_batch_size,
                                                        schedule_delay_millis=schedule_delay_millis)
                                     if batch else SimpleSpanProcessor(exporter))
        provider.add_span_processor(processor)
    return provider

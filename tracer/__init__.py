"""sumwatch's tracer: make every summarizing call an OpenTelemetry span.

    from sumwatch.tracer import configure, summarization

    configure(endpoint="http://localhost:4318", service_name="digest-service")

    @summarization(band="tldr", domain="news")
    def summarize(text: str) -> str:
        return call_my_llm(text)

Importing it loads the OpenTelemetry API only: the SDK and an exporter load when :func:`configure` runs,
and numpy, torch or ClickHouse never do. ``semconv`` holds the attribute names and ``otel_traces`` the
Collector's table layout; every other module is private.
"""

from __future__ import annotations

from importlib import metadata as _metadata
from typing import TYPE_CHECKING, Any

from ._capture import CapturePolicy, word_count
from ._decorator import (
    SummarizationSpan,
    Usage,
    from_arg,
    record_usage,
    summarization,
    summarization_attributes,
    summarization_span,
)
from ._provider import configure

if TYPE_CHECKING:
    from ._exporters import ClickHouseSpanExporter

try:
    __version__ = _metadata.version("sumwatch")
except _metadata.PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.1.0"

__all__ = [
    "CapturePolicy",
    "ClickHouseSpanExporter",
    "SummarizationSpan",
    "Usage",
    "__version__",
    "configure",
    "from_arg",
    "record_usage",
    "summarization",
    "summarization_attributes",
    "summarization_span",
    "word_count",
]


def __getattr__(name: str) -> Any:
    # the ClickHouse exporter needs the SDK and clickhouse-connect: loaded on first use only
    if name == "ClickHouseSpanExporter":
        from ._exporters import ClickHouseSpanExporter

        return ClickHouseSpanExporter
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

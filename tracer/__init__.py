"""sumwatch's tracer: make every summarizing call an OpenTelemetry span.

    from sumwatch.tracer import configure, from_arg, record_usage, summarization

    configure(endpoint="http://localhost:4318", service_name="digest-service")

    @summarization(band="tldr", domain="news", document_id=from_arg("doc_id"))
    def summarize(text: str, doc_id: str) -> str:
        reply = call_my_llm(text)
        record_usage(model="gpt-4o-mini", provider="openai", input_tokens=reply.tokens_in)
        return reply.text

    summarize(article, doc_id="a-17")   # one span: source, summary, band, model, tokens

Async functions and (async) generators that stream the summary in pieces are traced the same way,
and a decorated function keeps its type. Code that is not one function uses ``summarization_span``.

Importing it loads the OpenTelemetry API only: the SDK and an exporter load when :func:`configure` runs,
and numpy, torch or ClickHouse never do. Public modules: ``semconv`` (attribute names), ``otel_traces``
(the Collector's ``otel_traces`` table layout, for code that writes rows) and ``vocabulary`` (the words every
room shares: an issue's severity and status); every other module is private.
"""

from __future__ import annotations

from importlib import metadata as _metadata
from typing import TYPE_CHECKING, Any

from . import semconv
from ._attributes import Usage, from_arg, summarization_attributes
from ._capture import CapturePolicy, word_count
from ._decorator import SummarizationSpan, record_usage, summarization, summarization_span
from ._provider import configure

if TYPE_CHECKING:
    from ._exporters import ClickHouseSpanExporter

_SOURCE_VERSION = "0.1.0"  # pyproject's version, for a source tree that was never installed

try:
    __version__ = _metadata.version("sumwatch")
except _metadata.PackageNotFoundError:
    __version__ = _SOURCE_VERSION

__all__ = [
    "CapturePolicy",
    "ClickHouseSpanExporter",
    "SummarizationSpan",
    "Usage",
    "__version__",
    "configure",
    "from_arg",
    "record_usage",
    "semconv",
    "summarization",
    "summarization_attributes",
    "summarization_span",
    "word_count",
]


def __getattr__(name: str) -> Any:
    # the ClickHouse exporter needs the SDK and clickhouse-connect: loaded on first use only
    if name == "ClickHouseSpanExporter":
        from ._exporters import ClickHouseSpanExporter  # noqa: PLC0415 - the SDK and exporters load in configure()

        return ClickHouseSpanExporter
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

"""sumwatch's tracer: make every summarizing call an OpenTelemetry span.

    from sumwatch.tracer import configure, summarization

    configure(endpoint="http://localhost:4318", service_name="digest-service")

    @summarization(band="tldr", domain="news")
    def summarize(text: str) -> str:
        return call_my_llm(text)

Depends on OpenTelemetry only; never imports numpy, torch or ClickHouse at import time.
"""

from .capture import CapturePolicy, word_count
from .decorator import (
    SummarizationSpan,
    Usage,
    from_arg,
    record_usage,
    summarization,
    summarization_attributes,
    summarization_span,
)
from .provider import configure

__all__ = [
    "CapturePolicy",
    "SummarizationSpan",
    "Usage",
    "configure",
    "from_arg",
    "record_usage",
    "summarization",
    "summarization_attributes",
    "summarization_span",
    "word_count",
]

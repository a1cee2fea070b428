"""Tagged summarization spans with their texts, as the receiver stores them, for the dataset tests.

    store.insert_spans([span_row(0, "The council approved ...", "summary 0")])   # trace id trace_id(0)
"""

from datetime import datetime, timedelta, timezone

from sumwatch.tracer import semconv

T0 = datetime(2026, 3, 2, 10, 0, tzinfo=timezone.utc)
SOURCES = ["The council approved a 12% rise in the parks budget on Tuesday.",
           "Shares of Acme fell 3% after the quarterly report on Monday.",
           "The river flooded two villages; 40 people were moved to safety.",
           "The council approved a 12% rise in the parks budget on Tuesday."]  # span 3 summarizes span 0's source again


def span_row(i: int, source: str, summary: str, *, service: str = "digest", band: str = "tldr",
             facts: str = "") -> tuple:
    """A tagged span as the receiver stores it: trace id ``i`` (32 hex digits), span id ``i`` (16)."""
    attrs = {semconv.TASK: semconv.TASK_SUMMARIZATION, semconv.INPUT_VALUE: source, semconv.OUTPUT_VALUE: summary,
             semconv.GEN_AI_REQUEST_MODEL: "gpt-4o-mini", semconv.PROMPT_VERSION: "v3",
             semconv.SUMMARIZATION_BAND: band}
    if facts:
        attrs[semconv.EXPECTED_FACTS] = facts
    at = T0 + timedelta(minutes=i)
    return (int(at.timestamp() * 1e9), f"{i + 1:032x}", f"{i + 1:016x}", "", "", semconv.SPAN_NAME, "Internal", service,
            {"service.name": service}, semconv.INSTRUMENTATION_NAME, "", attrs, 1_000_000, "Unset", "",
            (), (), (), (), (), (), ())


def trace_id(i: int) -> str:
    return f"{i + 1:032x}"

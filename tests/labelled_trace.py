"""A trace with one tagged summarization span, stored as the receiver stores it: what labelling from a trace reads.

    trace_id, span_id = store_trace(store)
"""

from fakes.tracing import memory_provider

from sumwatch.tracer import summarization
from sumwatch.tracer.otel_traces import spans_to_rows

SOURCE = "The city council approved a 12% increase in the parks budget on Tuesday, the mayor said."
WRONG_SUMMARY = "The council raised the parks budget by 21%."


def store_trace(store, summary: str = WRONG_SUMMARY) -> tuple[str, str]:
    """One tagged summarization span of ``SOURCE`` in the store: its (trace id, span id)."""
    provider, memory = memory_provider("digest")

    @summarization(band="tldr", tracer_provider=provider)
    def summarize(text: str) -> str:
        return summary

    summarize(SOURCE)
    rows = spans_to_rows(memory.get_finished_spans())
    store.insert_spans(rows)
    return rows[0][1], rows[0][2]

"""A trace as another instrumentation exports it, and the row the sampler's recognition step writes for it.

    rows, recognised = openinference_trace(at_ns=1_772_445_600_000_000_000)
    store.insert_spans(rows); write_recognised(store, [recognised])

The trace is a decorated function (``summarize_article``, a plain span) with the OpenAI call inside it, as
OpenInference's instrumentor records it: ``llm.model_name``, ``llm.token_count.*`` and the chat messages as
JSON in ``input.value``. The recognised row holds what recognition takes out of it: the document without the
instruction, and the answer.
"""

from __future__ import annotations

import json

from opentelemetry.trace import Status, StatusCode

from fakes.tracing import memory_provider
from sumwatch.monitor.contract.traces import RecognisedSpan
from sumwatch.tracer.otel_traces import spans_to_rows

DOCUMENT = "The harbour authority said cargo volume rose 12% in March, led by container traffic from Rotterdam."
ANSWER = "Cargo volume rose 12% in March, driven by containers from Rotterdam."
INSTRUCTION = "Summarize the following article in one sentence:"
MODEL = "gpt-4o-mini-2024-07-18"
SERVICE = "newsroom"


def openinference_trace(at_ns: int, service: str = SERVICE) -> tuple[list[tuple], RecognisedSpan]:
    """(rows of a two-span trace starting at ``at_ns``, the recognised row of its LLM span)."""
    provider, memory = memory_provider(service)
    tracer = provider.get_tracer("openinference.instrumentation.openai")
    with tracer.start_as_current_span("summarize_article"), tracer.start_as_current_span("ChatCompletion") as llm:
        llm.set_attributes({
            "openinference.span.kind": "LLM", "llm.model_name": MODEL, "llm.provider": "openai",
            "llm.token_count.prompt": 41, "llm.token_count.completion": 15, "llm.token_count.total": 56,
            "input.value": json.dumps({"model": MODEL, "messages": [
                {"role": "user", "content": f"{INSTRUCTION}\n\n{DOCUMENT}"}]}),
            "input.mime_type": "application/json",
            "output.value": json.dumps({"choices": [{"message": {"role": "assistant", "content": ANSWER}}]}),
            "output.mime_type": "application/json"})
        llm.set_status(Status(StatusCode.OK))
    rows = spans_to_rows(memory.get_finished_spans())
    shift = at_ns - min(r[0] for r in rows)
    rows = [(r[0] + shift, *r[1:]) for r in rows]
    llm_row = next(r for r in rows if r[5] == "ChatCompletion")
    return rows, RecognisedSpan(llm_row[0], llm_row[1], llm_row[2], service, "ChatCompletion", "openinference",
                                DOCUMENT, ANSWER, model=MODEL, input_tokens=41, output_tokens=15, band="tldr",
                                how="instruction: summarize; cut: after the instruction sentence")

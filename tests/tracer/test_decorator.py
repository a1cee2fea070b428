import asyncio
import json
import re

import pytest
from fakes.tracing import memory_provider
from opentelemetry.trace import StatusCode

from sumwatch.tracer import (
    CapturePolicy,
    Usage,
    from_arg,
    record_usage,
    semconv,
    summarization,
    summarization_attributes,
    summarization_span,
)

SOURCE = "The council approved a budget of $4.2 million on Monday. Spending on parks rises 12% next year."


@pytest.fixture
def spans():
    return memory_provider()


def only(exporter):
    finished = exporter.get_finished_spans()
    assert len(finished) == 1, finished
    return finished[0]


def test_sync_call_records_source_summary_and_metadata(spans):
    provider, exporter = spans

    @summarization(band="tldr", domain="civic", prompt_version="p3", document_id=from_arg("doc_id"),
                   expected_facts=["budget is $4.2 million"], metadata={"tenant": "acme", "tier": 2},
                   tracer_provider=provider)
    def summarize(text: str, doc_id: str) -> str:
        return "Council approved a $4.2M budget; parks spending up 12%."

    assert summarize(SOURCE, doc_id="doc-9") == "Council approved a $4.2M budget; parks spending up 12%."
    attrs = only(exporter).attributes
    assert attrs[semconv.TASK] == "summarization"
    assert attrs[semconv.INPUT_VALUE] == SOURCE
    assert attrs[semconv.OUTPUT_VALUE].startswith("Council approved")
    assert attrs[semconv.SUMMARIZATION_BAND] == "tldr"
    assert attrs[semconv.DOMAIN] == "civic"
    assert attrs[semconv.PROMPT_VERSION] == "p3"
    assert attrs[semconv.DOCUMENT_ID] == "doc-9"
    assert json.loads(attrs[semconv.EXPECTED_FACTS]) == ["budget is $4.2 million"]
    assert attrs[semconv.METADATA_PREFIX + "tenant"] == "acme"
    assert attrs[semconv.METADATA_PREFIX + "tier"] == 2
    assert attrs[semconv.SOURCE_WORDS] == len(SOURCE.split())
    assert attrs[semconv.SUMMARY_WORDS] == 9
    assert re.fullmatch(r"[0-9a-f]{64}", attrs[semconv.SOURCE_HASH])
    assert attrs[semconv.OPENINFERENCE_SPAN_KIND] == "CHAIN"


def test_async_function_is_traced_and_awaited(spans):
    provider, exporter = spans

    @summarization(source="document", band="abstract", tracer_provider=provider)
    async def summarize(prefix: str, document: str) -> dict:
        await asyncio.sleep(0)
        record_usage(model="m-1", input_tokens=30, output_tokens=7)
        return {"summary": prefix + " summary"}

    result = asyncio.run(summarize("short", document=SOURCE))
    assert result == {"summary": "short summary"}
    attrs = only(exporter).attributes
    assert attrs[semconv.INPUT_VALUE] == SOURCE
    assert attrs[semconv.OUTPUT_VALUE] == "short summary"
    assert attrs[semconv.GEN_AI_REQUEST_MODEL] == "m-1"
    assert attrs[semconv.GEN_AI_INPUT_TOKENS] == 30
    assert attrs[semconv.GEN_AI_OUTPUT_TOKENS] == 7


def test_failing_function_records_error_and_reraises_same_exception(spans):
    provider, exporter = spans
    boom = KeyError("quota")

    @summarization(tracer_provider=provider)
    def summarize(text: str) -> str:
        raise boom

    with pytest.raises(KeyError) as caught:
        summarize(SOURCE)
    assert caught.value is boom
    span = only(exporter)
    assert span.status.status_code is StatusCode.ERROR
    assert "KeyError" in span.status.description
    assert [e.name for e in span.events] == ["exception"]
    assert semconv.OUTPUT_VALUE not in span.attributes


def test_failing_async_function_reraises(spans):
    provider, exporter = spans

    @summarization(tracer_provider=provider)
    async def summarize(text: str) -> str:
        raise TimeoutError("llm timed out")

    with pytest.raises(TimeoutError, match="llm timed out"):
        asyncio.run(summarize(SOURCE))
    assert only(exporter).status.status_code is StatusCode.ERROR


def test_instrumentation_failure_never_reaches_the_caller(spans):
    provider, exporter = spans

    def bad_extractor(result):
        raise RuntimeError("extractor bug")

    def bad_source(bound):
        raise RuntimeError("source bug")

    @summarization(summary=bad_extractor, tracer_provider=provider)
    def one(text: str) -> str:
        return "fine"

    @summarization(source=bad_source, tracer_provider=provider)
    def two(text: str) -> str:
        return "also fine"

    assert one(SOURCE) == "fine"
    assert two(SOURCE) == "also fine"
    # the first span still ended (without a summary); the second never started
    assert len(exporter.get_finished_spans()) == 1


def test_capture_off_keeps_hash_and_counts_but_no_text(spans):
    provider, exporter = spans

    @summarization(capture=CapturePolicy(enabled=False), tracer_provider=provider)
    def summarize(text: str) -> str:
        return "secret summary"

    summarize(SOURCE)
    attrs = only(exporter).attributes
    assert semconv.INPUT_VALUE not in attrs and semconv.OUTPUT_VALUE not in attrs
    assert attrs[semconv.TEXT_CAPTURED] is False
    assert attrs[semconv.SOURCE_WORDS] == len(SOURCE.split())
    assert len(attrs[semconv.SOURCE_HASH]) == 64


def test_redaction_runs_before_text_is_recorded_and_truncation_marks_span(spans):
    provider, exporter = spans
    seen = []

    def redact(text: str) -> str:
        seen.append(text)
        return re.sub(r"\$[\d.]+ million", "<amount>", text)

    policy = CapturePolicy(redact=redact, max_chars=50)

    @summarization(capture=policy, tracer_provider=provider)
    def summarize(text: str) -> str:
        return "Budget of $4.2 million approved."

    summarize(SOURCE)
    attrs = only(exporter).attributes
    assert "$4.2 million" not in attrs[semconv.INPUT_VALUE]
    assert "<amount>" in attrs[semconv.INPUT_VALUE]
    assert len(attrs[semconv.INPUT_VALUE]) == 50
    assert attrs[semconv.OUTPUT_VALUE] == "Budget of <amount> approved."
    assert attrs[semconv.TEXT_TRUNCATED] is True
    assert len(seen) == 2  # source and summary


def test_context_manager_covers_code_that_is_not_one_function(spans):
    provider, exporter = spans
    with summarization_span(SOURCE, band="exec_summary", document_id="d-1", tracer_provider=provider) as s:
        s.record_summary("Budget approved.")
        s.record_usage(model="m-2", input_tokens=10, output_tokens=3)
        s.set("reviewer", "kim")
    attrs = only(exporter).attributes
    assert attrs[semconv.OUTPUT_VALUE] == "Budget approved."
    assert attrs[semconv.DOCUMENT_ID] == "d-1"
    assert attrs[semconv.GEN_AI_REQUEST_MODEL] == "m-2"
    assert attrs[semconv.METADATA_PREFIX + "reviewer"] == "kim"


def test_context_manager_records_and_propagates_errors(spans):
    provider, exporter = spans
    with pytest.raises(ValueError, match="bad doc"), summarization_span(SOURCE, tracer_provider=provider):
        raise ValueError("bad doc")
    assert only(exporter).status.status_code is StatusCode.ERROR


def test_usage_extractor_and_nested_spans_share_the_trace(spans):
    provider, exporter = spans
    tracer = provider.get_tracer("app")

    @summarization(usage=lambda r: Usage(model="m-3", input_tokens=r["in"], output_tokens=r["out"]),
                   tracer_provider=provider)
    def summarize(text: str) -> dict:
        with tracer.start_as_current_span("llm.call"):
            pass
        return {"summary": "ok", "in": 11, "out": 2}

    summarize(SOURCE)
    inner, outer = exporter.get_finished_spans()
    assert inner.context.trace_id == outer.context.trace_id
    assert inner.parent.span_id == outer.context.span_id
    assert outer.attributes[semconv.GEN_AI_INPUT_TOKENS] == 11


def test_decorating_with_unknown_argument_fails_at_import_time():
    with pytest.raises(TypeError, match="no argument named 'body'"):
        @summarization(source="body")
        def summarize(text: str) -> str:
            return text
    with pytest.raises(TypeError, match=r"from_arg\('doc'\)"):
        @summarization(document_id=from_arg("doc"))
        def summarize2(text: str) -> str:
            return text


def test_summarization_attributes_matches_decorator_output(spans):
    provider, exporter = spans

    @summarization(band="tldr", domain="news", tracer_provider=provider)
    def summarize(text: str) -> str:
        return "short"

    summarize(SOURCE)
    assert dict(only(exporter).attributes) == summarization_attributes(SOURCE, "short", band="tldr", domain="news")

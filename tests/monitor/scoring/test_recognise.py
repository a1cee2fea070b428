"""Summarization calls recognised in other instrumentations' spans, with no configuration.

Precision on the corpus in chat_calls.py (25 summarization calls, 30 other chat calls, each written as every
instrumentation below writes it; test_precision_per_instrumentation checks these figures):

    instrumentation               summaries recognised   other calls recognised (false)
    openinference                 25/25                  0/30
    openinference (values only)   25/25                  0/30
    gen_ai                        25/25                  0/30
    gen_ai-events (log records)   25/25                  0/30
    openllmetry                   25/25                  0/30
    logfire                       25/25                  0/30
    logfire (older)               25/25                  0/30
    pydantic-ai events            25/25                  0/30
    langfuse                      25/25                  0/30

and every recognised source is exactly the document (no instruction words), every summary exactly the answer.
The corpus was written while the rules were shaped, so these are in-sample figures. Twice, new calls were
first run against the rules unchanged. First 18: 5 of 7 summaries recognised ("Explain the following article
in 3 sentences", "I need a one-paragraph recap" missed) and 1 of 11 other calls taken for a summary ("Is this
summary accurate? Source: ... Summary: ..."). Then 20: 9 of 10 summaries recognised, 8 exactly (a system
prompt saying "summarizing" was missed; "Here's an email thread:" stayed in one source), 0 of 10 other calls
taken. The rules were fixed for each of these, and most of those calls joined the corpus.
"""

from __future__ import annotations

import json

import pytest

from sumwatch.monitor.scoring.recognise import Recognised, Refusal, recognise
from sumwatch.tracer import semconv
from tests.monitor.scoring.chat_calls import (
    CALLS,
    COUNCIL,
    IN_TOKENS,
    MODEL,
    OTHERS,
    OUT_TOKENS,
    SPAN_SHAPES,
    SUMMARIES,
    TRIAL,
    ChatCall,
    gen_ai,
    gen_ai_events,
    gen_ai_span_without_content,
    langfuse,
    logfire_current,
    openinference,
    openllmetry,
)

INSTRUMENTATION = {"openinference": "openinference", "openinference (values only)": "openinference",
                   "gen_ai": "gen_ai", "openllmetry": "openllmetry", "logfire": "logfire",
                   "logfire (older)": "logfire", "pydantic-ai events": "logfire", "langfuse": "langfuse"}
COLON = SUMMARIES[0]


def _recognise(shape: str, call: ChatCall) -> Recognised | Refusal:
    span_name, render = SPAN_SHAPES[shape]
    return recognise(span_name, render(call))


@pytest.mark.parametrize("shape", sorted(SPAN_SHAPES))
@pytest.mark.parametrize("call", SUMMARIES, ids=[c.name for c in SUMMARIES])
def test_a_summarization_call_gives_the_document_and_the_answer(shape, call):
    found = _recognise(shape, call)
    assert isinstance(found, Recognised), found
    assert found.source == call.document
    assert found.summary == call.answer
    assert found.instrumentation == INSTRUMENTATION[shape]
    assert found.how


@pytest.mark.parametrize("shape", sorted(SPAN_SHAPES))
@pytest.mark.parametrize("call", OTHERS, ids=[c.name for c in OTHERS])
def test_other_chat_calls_are_refused_with_a_reason(shape, call):
    found = _recognise(shape, call)
    assert isinstance(found, Refusal), found
    assert found.instrumentation == INSTRUMENTATION[shape]
    assert found.reason and "\n" not in found.reason


@pytest.mark.parametrize("call", CALLS, ids=[c.name for c in CALLS])
def test_the_event_form_reads_the_log_records_joined_to_the_span(call):
    found = recognise("chat gpt-4o-mini", gen_ai_span_without_content(call), gen_ai_events(call))
    if call.document is None:
        assert isinstance(found, Refusal) and found.instrumentation == "gen_ai-events"
    else:
        assert isinstance(found, Recognised) and found.instrumentation == "gen_ai-events", found
        assert (found.source, found.summary) == (call.document, call.answer)
        assert (found.model, found.input_tokens, found.output_tokens) == (MODEL, IN_TOKENS, OUT_TOKENS)


def test_events_alone_name_the_event_form():
    found = recognise("chat", {}, gen_ai_events(COLON))
    assert isinstance(found, Recognised) and found.instrumentation == "gen_ai-events"
    assert found.source == COUNCIL


def test_a_span_whose_content_is_elsewhere_says_so():
    found = recognise("chat gpt-4o-mini", gen_ai_span_without_content(COLON))
    assert found == Refusal("gen_ai", "no user message text (content capture off, or not yet joined)")
    # the contrib instrumentation with capture off still emits its events, with a null body
    events = [{"event.name": "gen_ai.user.message", "body": "null", "gen_ai.system": "openai"},
              {"event.name": "gen_ai.choice", "body": '{"index": 0, "message": {"role": "assistant"}}'}]
    found = recognise("chat gpt-4o-mini", gen_ai_span_without_content(COLON), events)
    assert found == Refusal("gen_ai-events", "no user message text (content capture off, or not yet joined)")


@pytest.mark.parametrize("shape", sorted(SPAN_SHAPES))
def test_model_and_tokens_are_read_from_each_convention(shape):
    found = _recognise(shape, COLON)
    assert isinstance(found, Recognised)
    assert found.model in (MODEL, "gpt-4o-mini")
    if shape != "logfire (older)" or found.input_tokens is not None:
        assert (found.input_tokens, found.output_tokens) == (IN_TOKENS, OUT_TOKENS)


def test_the_instruction_is_never_part_of_the_source():
    for shape in SPAN_SHAPES:
        for call in SUMMARIES:
            found = _recognise(shape, call)
            assert isinstance(found, Recognised)
            for words in ("ummari", "TL;DR", "key points", "Condense", "sum this up", "recap", "Article:", "Email:",
                          "Text:", "<document>", "<report>", "```", "---", '"""', "takeaways", "abstract for",
                          "Context information", "Query:", "Please produce", "Here's", "CONCISE", "Sum up"):
                assert words not in found.source, (shape, call.name, words)


@pytest.mark.parametrize("shape, key, render", [
    ("gen_ai", "gen_ai.input.messages", gen_ai),
    ("gen_ai", "gen_ai.output.messages", gen_ai),
    ("gen_ai", "gen_ai.system_instructions", gen_ai),
    ("logfire", "request_data", logfire_current),
    ("langfuse", "langfuse.observation.input", langfuse),
    ("langfuse", "langfuse.observation.usage_details", langfuse),
])
def test_malformed_json_is_refused_with_the_attribute_named(shape, key, render):
    attrs = render(SUMMARIES[1])  # has a system instruction, so every key above is present
    if key == "request_data":
        attrs = {k: v for k, v in attrs.items() if not k.startswith("gen_ai.input")}
    attrs[key] = attrs[key][:25]
    found = recognise("chat", attrs)
    assert isinstance(found, Refusal)
    assert found.instrumentation == shape
    assert ("not valid JSON" in found.reason or "looks like JSON" in found.reason), found.reason
    if "looks like" not in found.reason:
        assert key in found.reason


def test_openinference_input_value_marked_json_but_broken_is_refused():
    attrs = {k: v for k, v in openinference(COLON).items() if not k.startswith("llm.input_messages")}
    attrs[semconv.INPUT_VALUE] = '{"messages": [{"role": "user", "content": "Summarize'
    found = recognise("ChatCompletion", attrs)
    assert isinstance(found, Refusal) and found.reason.startswith("input.value is not valid JSON")


def test_no_shape_of_bad_value_raises():
    """Every attribute of every shape replaced by odd values: always a record back, never an exception."""
    odd = ("", "null", "42", "[]", "{}", '{"role": 3}', "[1, 2]", '[{"parts": 5}]', '{"choices": "x"}', "[[[",
           '"just a string"', "[null]", '{"messages": {"role": "user"}}')
    for shape, (name, render) in SPAN_SHAPES.items():
        base = render(COLON)
        for key in base:
            for value in odd:
                found = recognise(name, {**base, key: value}, [{"event.name": "gen_ai.choice", "body": value}])
                assert isinstance(found, Recognised | Refusal), (shape, key, value)
                if isinstance(found, Refusal):
                    assert found.reason and "\n" not in found.reason


def test_spans_that_are_not_llm_calls_are_left_alone():
    chain = {semconv.OPENINFERENCE_SPAN_KIND: "CHAIN", semconv.INPUT_VALUE: "Summarize: " + COUNCIL,
             semconv.OUTPUT_VALUE: "A bridge closes."}
    assert recognise("RunnableSequence", chain) == Refusal("openinference", "span kind CHAIN, not an LLM call")
    embeddings = {**gen_ai(COLON), "gen_ai.operation.name": "embeddings"}
    assert recognise("embeddings", embeddings) == Refusal("gen_ai", "operation embeddings, not a chat call")
    span = {**langfuse(COLON), "langfuse.observation.type": "span"}
    assert recognise("pipeline", span) == Refusal("langfuse", "observation type span, not a generation")
    ours = {semconv.TASK: semconv.TASK_SUMMARIZATION, semconv.OPENINFERENCE_SPAN_KIND: "CHAIN",
            semconv.GEN_AI_REQUEST_MODEL: MODEL, semconv.INPUT_VALUE: COUNCIL, semconv.OUTPUT_VALUE: "x"}
    assert recognise("summarize", ours) == Refusal("", "sumwatch's own span: selected by its tag, not recognised")
    assert recognise("GET /health", {"http.request.method": "GET"}).instrumentation == ""


def test_an_operation_that_says_summarize_needs_no_wording():
    call = ChatCall("bare document", "", (TRIAL,), "A migraine drug worked in a trial.", TRIAL)
    assert recognise("chat", gen_ai(call)) == Refusal("gen_ai", "not a summarization request")
    found = recognise("summarize_document", {**gen_ai(call), "gen_ai.operation.name": "summarize"})
    assert isinstance(found, Recognised) and found.source == TRIAL and found.how.startswith("operation")


def test_the_answer_is_text_never_json():
    preamble = ChatCall("preamble", "", COLON.users, "Here is a one-sentence summary of the article:\n\nThe bridge "
                        "closes from March to June.", COUNCIL)
    found = recognise("chat", gen_ai(preamble))
    assert isinstance(found, Recognised) and found.summary == "The bridge closes from March to June."
    structured = ChatCall("json field", "", COLON.users, json.dumps({"summary": "The bridge closes."}), COUNCIL)
    found = recognise("chat", openllmetry(structured))
    assert isinstance(found, Recognised) and found.summary == "The bridge closes."
    opaque = ChatCall("json", "", COLON.users, json.dumps({"bridge": "closed", "months": 4}), COUNCIL)
    assert recognise("chat", langfuse(opaque)) == Refusal(
        "langfuse", "the answer is a JSON object without a summary field, not summary text")


def test_openinference_multipart_contents_and_openllmetry_content_parts():
    attrs = {semconv.OPENINFERENCE_SPAN_KIND: "LLM", "llm.model_name": MODEL,
             "llm.input_messages.0.message.role": "user",
             "llm.input_messages.0.message.contents.0.message_content.type": "text",
             "llm.input_messages.0.message.contents.0.message_content.text": "Summarize in one sentence:",
             "llm.input_messages.0.message.contents.1.message_content.type": "text",
             "llm.input_messages.0.message.contents.1.message_content.text": COUNCIL,
             "llm.output_messages.0.message.role": "assistant",
             "llm.output_messages.0.message.content": "The bridge closes for repairs."}
    found = recognise("ChatCompletion", attrs)
    assert isinstance(found, Recognised) and found.source == COUNCIL
    parts = {**openllmetry(COLON), "gen_ai.prompt.0.content": json.dumps(
        [{"type": "text", "text": COLON.users[0]}, {"type": "image_url", "image_url": {"url": "x"}}])}
    found = recognise("openai.chat", parts)
    assert isinstance(found, Recognised) and found.source == COUNCIL


def test_langfuse_plain_text_input_and_output():
    attrs = {"langfuse.observation.type": "generation", "langfuse.observation.input":
             json.dumps(f"Summarize this: {TRIAL}"), "langfuse.observation.output": json.dumps("Drug cut migraines.")}
    found = recognise("generation", attrs)
    assert isinstance(found, Recognised) and (found.source, found.summary) == (TRIAL, "Drug cut migraines.")


def test_precision_per_instrumentation():
    """The figures in this module's docstring."""
    shapes = {shape: (lambda c, name=name, render=render: recognise(name, render(c)))
              for shape, (name, render) in SPAN_SHAPES.items()}
    shapes["gen_ai-events"] = lambda c: recognise("chat", gen_ai_span_without_content(c), gen_ai_events(c))
    for shape, run in shapes.items():
        hits = [c.name for c in SUMMARIES if isinstance(found := run(c), Recognised) and found.source == c.document
                and found.summary == c.answer]
        false = [c.name for c in OTHERS if isinstance(run(c), Recognised)]
        assert (len(hits), len(false)) == (len(SUMMARIES), 0), (shape, hits, false)
    assert (len(SUMMARIES), len(OTHERS)) == (25, 30)


def test_logfire_reads_the_response_usage_when_gen_ai_has_none():
    attrs = {k: v for k, v in logfire_current(COLON).items() if not k.startswith("gen_ai.usage")}
    found = recognise("Chat Completion with 'gpt-4o-mini'", attrs)
    assert isinstance(found, Recognised) and (found.input_tokens, found.output_tokens) == (IN_TOKENS, OUT_TOKENS)


def test_an_assistant_that_can_summarize_is_not_always_summarizing():
    system = "You are a helpful assistant. You can answer questions, summarize documents and write code."
    for user in (f"Translate this to French: {COUNCIL}", f"What was the operating margin in this report? {TRIAL}",
                 f"Fix the grammar:\n{COUNCIL}"):
        found = recognise("chat", gen_ai(ChatCall("other", system, (user,), "...", None)))
        assert found == Refusal("gen_ai", "not a summarization request"), user
    for user in (f"Summarize this: {TRIAL}", TRIAL):
        found = recognise("chat", gen_ai(ChatCall("summary", system, (user,), "A drug worked.", TRIAL)))
        assert isinstance(found, Recognised) and found.source == TRIAL


def test_logfire_reads_a_streamed_answer():
    attrs = {k: v for k, v in logfire_current(COLON).items() if k != "gen_ai.output.messages"}
    attrs["response_data"] = json.dumps({"combined_chunk_content": COLON.answer, "chunk_count": 14})
    found = recognise("Chat Completion with 'gpt-4o-mini'", attrs)
    assert isinstance(found, Recognised) and found.summary == COLON.answer

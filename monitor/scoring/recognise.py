"""Summarization calls in spans from the common GenAI instrumentations, recognised without configuration.

    found = recognise("ChatCompletion", span_attributes, log_events)
    if isinstance(found, Recognised):
        case = SummaryCase(found.source, found.summary)
    else:
        print(found.instrumentation, found.reason)   # one line: why it is not scored

Each instrumentation writes the chat call its own way (OpenInference's flattened messages, the OTel GenAI
JSON messages or log events, OpenLLMetry's indexed prompts, Logfire's request and response data, Langfuse's
observation input and output); each is read into one :class:`_Call`, and one decision follows: the call is a
summarization only when the request says so (its operation, or its instruction's wording), and the source
is the document alone, cut from the instruction around it (see :mod:`.instruction`). Pure: no I/O, and bad
input is a :class:`Refusal` with a reason, never an exception.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sumwatch.tracer import semconv

from .instruction import SUMMARY_OPERATION, answer_text, find_request

# -- names the instrumentations write (sumwatch's own and the shared GenAI ones are in semconv) ----------------
OI_INPUT_MESSAGES = "llm.input_messages"
OI_OUTPUT_MESSAGES = "llm.output_messages"
OI_MODEL = "llm.model_name"
OI_PROMPT_TOKENS = "llm.token_count.prompt"
OI_COMPLETION_TOKENS = "llm.token_count.completion"
OI_KIND_LLM = "LLM"
GEN_AI_INPUT_MESSAGES = "gen_ai.input.messages"
GEN_AI_OUTPUT_MESSAGES = "gen_ai.output.messages"
GEN_AI_SYSTEM_INSTRUCTIONS = "gen_ai.system_instructions"
TRACELOOP_PROMPT = "gen_ai.prompt"  # gen_ai.prompt.{i}.role/content; also the older contrib event attribute
TRACELOOP_COMPLETION = "gen_ai.completion"
TRACELOOP_REQUEST_TYPE = "llm.request.type"
TRACELOOP_PROMPT_TOKENS = "gen_ai.usage.prompt_tokens"
TRACELOOP_COMPLETION_TOKENS = "gen_ai.usage.completion_tokens"
LOGFIRE_REQUEST = "request_data"
LOGFIRE_RESPONSE = "response_data"
LOGFIRE_EVENTS = "events"  # Pydantic AI's events as one JSON attribute
LOGFIRE_MARKERS = ("logfire.msg_template", "logfire.span_type", "logfire.msg")
LANGFUSE_TYPE = "langfuse.observation.type"
LANGFUSE_INPUT = "langfuse.observation.input"
LANGFUSE_OUTPUT = "langfuse.observation.output"
LANGFUSE_MODEL = "langfuse.observation.model.name"
LANGFUSE_USAGE = "langfuse.observation.usage_details"
VERCEL_OPERATION = "ai.operationId"  # the Vercel AI SDK's telemetry (experimental_telemetry)
VERCEL_MESSAGES = "ai.prompt.messages"  # on its provider call (ai.generateText.doGenerate, ai.streamText.doStream)
VERCEL_PROMPT = "ai.prompt"  # on the outer call: {system, prompt | messages}
VERCEL_ANSWERS = ("ai.response.text", "ai.response.object", "ai.result.text", "ai.result.object")
VERCEL_MODELS = ("ai.response.model", "ai.model.id")
VERCEL_FUNCTION = "ai.telemetry.functionId"
VERCEL_INPUT_TOKENS = ("ai.usage.inputTokens", "ai.usage.promptTokens")
VERCEL_OUTPUT_TOKENS = ("ai.usage.outputTokens", "ai.usage.completionTokens")
VERCEL_OUTER = frozenset({"ai.generateText", "ai.streamText", "ai.generateObject", "ai.streamObject"})
EVENT_NAME_KEYS = ("event.name", "EventName", "name")
EVENT_BODY_KEYS = ("body", "Body")

# operations that are chat or completion calls; others (embeddings, tools, agents) are never summaries here
CHAT_OPERATIONS = frozenset({"", "chat", "text_completion", "completion", "generate_content", "invoke_model"})

# a span ``recognise`` can read carries one of these keys (or is an OpenInference LLM span): the sampler's
# cheap first cut in SQL, before the spans it keeps are read here
CANDIDATE_KEYS = (semconv.GEN_AI_OPERATION_NAME, GEN_AI_INPUT_MESSAGES, f"{TRACELOOP_PROMPT}.0.content",
                  TRACELOOP_REQUEST_TYPE, LOGFIRE_REQUEST, LOGFIRE_EVENTS, LANGFUSE_TYPE, LANGFUSE_INPUT,
                  VERCEL_MESSAGES)
CANDIDATE_EQUALS = ((semconv.OPENINFERENCE_SPAN_KIND, OI_KIND_LLM),)

OPENINFERENCE, GEN_AI, GEN_AI_EVENTS = "openinference", "gen_ai", "gen_ai-events"
OPENLLMETRY, LOGFIRE, LANGFUSE, VERCEL_AI = "openllmetry", "logfire", "langfuse", "vercel-ai"
# roles whose turns are not the user's; a tool's answer (an agent fetched the document) is read apart
NOT_USER = frozenset({"system", "developer", "assistant", "model", "tool"})
_TOOL_ROLES = {"function": "tool", "function_call_output": "tool", "ipython": "tool"}
_TOOL_PARTS = frozenset({"tool_result", "tool-result", "tool_call_response", "function_call_output"})


@dataclass(frozen=True)
class Recognised:
    """A summarization call: the document, the answer, and what the span says about the call."""

    instrumentation: str
    source: str
    summary: str
    model: str = ""
    input_tokens: int | None = None
    output_tokens: int | None = None
    how: str = ""  # which rule found the request and which cut the document out
    band: str = ""  # what a configured selector reads besides (sumwatch's own keys otherwise)
    document_id: str = ""
    prompt_version: str = ""


@dataclass(frozen=True)
class Refusal:
    """Not scored: why, in one line."""

    instrumentation: str
    reason: str


@dataclass(frozen=True)
class _Message:
    role: str
    text: str


@dataclass
class _Call:
    """One chat call as any instrumentation describes it."""

    instrumentation: str
    operation: str = ""
    system: list[str] = field(default_factory=list)
    messages: list[_Message] = field(default_factory=list)  # the request's turns, system ones included
    answer: list[str] = field(default_factory=list)
    model: str = ""
    input_tokens: int | None = None
    output_tokens: int | None = None


class _Unreadable(Exception):
    """The span is of a known instrumentation but its content cannot be read; the message says why."""


def recognise(span_name: str, attributes: Mapping[str, str],
              events: Sequence[Mapping[str, str]] = ()) -> Recognised | Refusal:
    """The summarization case a span holds, or why it holds none."""
    instrumentation = _instrumentation(attributes, events)
    try:
        call = _read(instrumentation, attributes, events)
        if isinstance(call, Refusal):
            return call
        return _decide(span_name, call)
    except _Unreadable as e:
        return Refusal(instrumentation, str(e))
    except (TypeError, ValueError, AttributeError, KeyError, IndexError, RecursionError) as e:
        # a shape no rule expected: still one line, never a traceback
        return Refusal(instrumentation, f"unreadable content ({type(e).__name__}: {str(e)[:80]})")


# -- which instrumentation wrote the span -------------------------------------------------------------------

def _instrumentation(attributes: Mapping[str, str], events: Sequence[Mapping[str, str]]) -> str:
    if LANGFUSE_TYPE in attributes or LANGFUSE_INPUT in attributes or LANGFUSE_OUTPUT in attributes:
        return LANGFUSE
    if semconv.OPENINFERENCE_SPAN_KIND in attributes:
        return OPENINFERENCE
    if any(k in attributes for k in (LOGFIRE_REQUEST, LOGFIRE_RESPONSE, *LOGFIRE_MARKERS)):
        return LOGFIRE
    if VERCEL_OPERATION in attributes or VERCEL_MESSAGES in attributes:
        return VERCEL_AI
    if TRACELOOP_REQUEST_TYPE in attributes or any(
            k.startswith((f"{TRACELOOP_PROMPT}.", f"{TRACELOOP_COMPLETION}.")) for k in attributes):
        return OPENLLMETRY
    if GEN_AI_INPUT_MESSAGES in attributes or GEN_AI_OUTPUT_MESSAGES in attributes:
        return GEN_AI
    if any(_event_name(e).startswith("gen_ai.") for e in events):
        return GEN_AI_EVENTS
    if any(k.startswith("gen_ai.") for k in attributes):
        return GEN_AI
    return ""


def _read(instrumentation: str, attributes: Mapping[str, str],
          events: Sequence[Mapping[str, str]]) -> _Call | Refusal:
    if semconv.TASK in attributes:  # our tracer's spans carry OpenInference and GenAI names too
        return Refusal("", "sumwatch's own span: selected by its tag, not recognised")
    if instrumentation == LANGFUSE:
        return _read_langfuse(attributes)
    if instrumentation == OPENINFERENCE:
        return _read_openinference(attributes)
    if instrumentation == LOGFIRE:
        return _read_logfire(attributes)
    if instrumentation == OPENLLMETRY:
        return _read_openllmetry(attributes)
    if instrumentation == VERCEL_AI:
        return _read_vercel_ai(attributes)
    if instrumentation == GEN_AI:
        call = _read_gen_ai(attributes, GEN_AI)
        if not call.messages and not call.answer and events:
            return _read_events(attributes, events)
        return call
    if instrumentation == GEN_AI_EVENTS:
        return _read_events(attributes, events)
    return Refusal("", "no GenAI instrumentation's attributes on this span")


# -- readers, one per instrumentation ------------------------------------------------------------------------

def _read_openinference(attributes: Mapping[str, str]) -> _Call | Refusal:
    kind = attributes.get(semconv.OPENINFERENCE_SPAN_KIND, "")
    if kind.upper() != OI_KIND_LLM:
        return Refusal(OPENINFERENCE, f"span kind {kind or '(empty)'}, not an LLM call")
    call = _Call(OPENINFERENCE, model=attributes.get(OI_MODEL, ""),
                 input_tokens=_int(attributes.get(OI_PROMPT_TOKENS)),
                 output_tokens=_int(attributes.get(OI_COMPLETION_TOKENS)))
    call.messages = _flattened_messages(attributes, OI_INPUT_MESSAGES, "message.role", "message.content",
                                        "message.contents")
    call.answer = [m.text for m in _flattened_messages(attributes, OI_OUTPUT_MESSAGES, "message.role",
                                                       "message.content", "message.contents")
                   if m.role in ("assistant", "model", "ai", "")]
    if not call.messages and semconv.INPUT_VALUE in attributes:
        call.messages = _request_messages(_value(attributes, semconv.INPUT_VALUE, semconv.INPUT_MIME_TYPE))
    if not call.answer and semconv.OUTPUT_VALUE in attributes:
        call.answer = _response_texts(_value(attributes, semconv.OUTPUT_VALUE, semconv.OUTPUT_MIME_TYPE))
    _take_gen_ai_usage(call, attributes)
    return call


def _read_gen_ai(attributes: Mapping[str, str], instrumentation: str) -> _Call:
    call = _Call(instrumentation, operation=attributes.get(semconv.GEN_AI_OPERATION_NAME, ""))
    if GEN_AI_SYSTEM_INSTRUCTIONS in attributes:
        call.system = [t for t in (_text(p) for p in _as_list(_json(attributes, GEN_AI_SYSTEM_INSTRUCTIONS))) if t]
    if GEN_AI_INPUT_MESSAGES in attributes:
        call.messages = _request_messages(_json(attributes, GEN_AI_INPUT_MESSAGES))
    if GEN_AI_OUTPUT_MESSAGES in attributes:
        call.answer = _response_texts(_json(attributes, GEN_AI_OUTPUT_MESSAGES))
    _take_gen_ai_usage(call, attributes)
    return call


def _read_openllmetry(attributes: Mapping[str, str]) -> _Call:
    call = _read_gen_ai(attributes, OPENLLMETRY)
    call.operation = call.operation or attributes.get(TRACELOOP_REQUEST_TYPE, "")
    if not call.messages:
        call.messages = _flattened_messages(attributes, TRACELOOP_PROMPT, "role", "content")
    if not call.answer:
        call.answer = [m.text for m in _flattened_messages(attributes, TRACELOOP_COMPLETION, "role", "content")
                       if m.role in ("assistant", "model", "")]
    if call.input_tokens is None:
        call.input_tokens = _int(attributes.get(TRACELOOP_PROMPT_TOKENS))
    if call.output_tokens is None:
        call.output_tokens = _int(attributes.get(TRACELOOP_COMPLETION_TOKENS))
    return call


def _read_logfire(attributes: Mapping[str, str]) -> _Call:
    call = _read_gen_ai(attributes, LOGFIRE)
    if not call.messages and LOGFIRE_REQUEST in attributes:
        call.messages = _request_messages(_json(attributes, LOGFIRE_REQUEST))
    if not call.answer and LOGFIRE_RESPONSE in attributes:
        call.answer = _response_texts(_json(attributes, LOGFIRE_RESPONSE))
    if (not call.messages or not call.answer) and LOGFIRE_EVENTS in attributes:
        listed = _as_list(_json(attributes, LOGFIRE_EVENTS))
        from_events = _events_call(attributes, [e for e in listed if isinstance(e, dict)], LOGFIRE)
        call.messages = call.messages or from_events.messages
        call.answer = call.answer or from_events.answer
    if LOGFIRE_REQUEST in attributes and not call.model:
        request = _json(attributes, LOGFIRE_REQUEST)
        call.model = str(request.get("model") or "") if isinstance(request, dict) else ""
    if call.input_tokens is None and LOGFIRE_RESPONSE in attributes:
        response = _json(attributes, LOGFIRE_RESPONSE)
        usage = response.get("usage") if isinstance(response, dict) else None
        if isinstance(usage, dict):
            call.input_tokens, call.output_tokens = _usage(usage)
    return call


def _read_langfuse(attributes: Mapping[str, str]) -> _Call | Refusal:
    kind = attributes.get(LANGFUSE_TYPE, "")
    if kind and kind != "generation":
        return Refusal(LANGFUSE, f"observation type {kind}, not a generation")
    call = _read_gen_ai(attributes, LANGFUSE)
    call.model = attributes.get(LANGFUSE_MODEL, "") or call.model
    if LANGFUSE_INPUT in attributes:
        call.messages = _request_messages(_json_or_text(attributes[LANGFUSE_INPUT]))
    if LANGFUSE_OUTPUT in attributes:
        call.answer = _response_texts(_json_or_text(attributes[LANGFUSE_OUTPUT]))
    if LANGFUSE_USAGE in attributes:
        usage = _json(attributes, LANGFUSE_USAGE)
        if isinstance(usage, dict):
            call.input_tokens, call.output_tokens = _usage(usage)
    return call


def _read_vercel_ai(attributes: Mapping[str, str]) -> _Call | Refusal:
    """The Vercel AI SDK's provider call: ``ai.prompt.messages`` (its own message parts, tool results included)
    and ``ai.response.text``. The outer ``ai.generateText`` span repeats the call's prompt and answer, so only
    the provider call is read, once; the function id counts as the operation when it says summarize."""
    operation = attributes.get(VERCEL_OPERATION, "")
    if operation in VERCEL_OUTER:
        return Refusal(VERCEL_AI, f"{operation} is the outer span; its provider call (.doGenerate/.doStream) is read")
    if operation and not operation.endswith((".doGenerate", ".doStream")):
        return Refusal(VERCEL_AI, f"operation {operation}, not a chat call")
    function_id = attributes.get(VERCEL_FUNCTION, "")
    call = _Call(VERCEL_AI, operation=function_id if SUMMARY_OPERATION.search(function_id.lower()) else "")
    if VERCEL_MESSAGES in attributes:
        call.messages = _request_messages(_json(attributes, VERCEL_MESSAGES))
    elif VERCEL_PROMPT in attributes:
        prompt = _json_or_text(attributes[VERCEL_PROMPT])
        if isinstance(prompt, dict) and isinstance(prompt.get("system"), str):
            call.system = [prompt["system"]]
        call.messages = _request_messages(prompt)
    # the text, or the object's JSON as written (answer_text takes its summary field)
    call.answer = next(([attributes[k]] for k in VERCEL_ANSWERS if attributes.get(k, "").strip()), [])
    call.model = next((attributes[k] for k in VERCEL_MODELS if attributes.get(k)), "")
    call.input_tokens, call.output_tokens = (_first_int(attributes, VERCEL_INPUT_TOKENS),
                                             _first_int(attributes, VERCEL_OUTPUT_TOKENS))
    _take_gen_ai_usage(call, attributes)
    return call


def _read_events(attributes: Mapping[str, str], events: Sequence[Mapping[str, str]]) -> _Call:
    decoded: list[dict[str, Any]] = []
    for event in events:
        item: dict[str, Any] = {k: v for k, v in event.items() if k not in EVENT_BODY_KEYS}
        item["event.name"] = _event_name(event)
        body = next((event[k] for k in EVENT_BODY_KEYS if k in event), None)
        if body not in (None, "", "null"):  # capture off: the events come, their content does not
            parsed = _json_or_text(body) if isinstance(body, str) else body
            item.update(parsed if isinstance(parsed, dict) else {"content": parsed})
        decoded.append(item)
    return _events_call(attributes, decoded, GEN_AI_EVENTS)


def _events_call(attributes: Mapping[str, str], events: Sequence[dict[str, Any]], instrumentation: str) -> _Call:
    """The OTel GenAI event form (gen_ai.{system,user,assistant}.message, gen_ai.choice), the older contrib
    events holding a JSON list (gen_ai.content.prompt/completion), and the newest single details event."""
    call = _read_gen_ai(attributes, instrumentation)
    for event in events:
        name = str(event.get("event.name") or event.get("name") or "")
        if GEN_AI_INPUT_MESSAGES in event or GEN_AI_OUTPUT_MESSAGES in event:
            nested = _read_gen_ai({k: v if isinstance(v, str) else json.dumps(v) for k, v in event.items()},
                                  instrumentation)
            call.system += nested.system
            call.messages += nested.messages
            call.answer += nested.answer
        elif name == "gen_ai.choice":
            message = event.get("message", event)
            call.answer += _response_texts(message)
        elif name.startswith("gen_ai.") and name.endswith(".message"):
            role = name[len("gen_ai."):-len(".message")]
            text = _text(event.get("content", ""))
            if text:
                call.messages.append(_Message(str(event.get("role") or role), text))
        elif TRACELOOP_PROMPT in event:
            call.messages += _request_messages(_json_or_text(str(event[TRACELOOP_PROMPT])))
        elif TRACELOOP_COMPLETION in event:
            call.answer += _response_texts(_json_or_text(str(event[TRACELOOP_COMPLETION])))
    return call


# -- the decision ---------------------------------------------------------------------------------------------

def _decide(span_name: str, call: _Call) -> Recognised | Refusal:
    operation = call.operation.strip().lower()
    said_by_operation = SUMMARY_OPERATION.search(operation) or SUMMARY_OPERATION.search(span_name.lower())
    if operation not in CHAT_OPERATIONS and not said_by_operation:
        return Refusal(call.instrumentation, f"operation {call.operation}, not a chat call")
    system = call.system + [m.text for m in call.messages if m.role in ("system", "developer")]
    turns = [m.text for m in call.messages if m.role not in NOT_USER]
    if not turns:
        return Refusal(call.instrumentation, "no user message text (content capture off, or not yet joined)")
    last_user = max(i for i, m in enumerate(call.messages) if m.role not in NOT_USER)
    tool_results = [m.text for m in call.messages[last_user + 1:] if m.role == "tool"]
    request = find_request(system, turns, bool(said_by_operation), tool_results)
    if isinstance(request, str):
        return Refusal(call.instrumentation, request)
    summary, problem = answer_text(call.answer)
    if problem:
        return Refusal(call.instrumentation, problem)
    return Recognised(call.instrumentation, request.document, summary, call.model, call.input_tokens,
                      call.output_tokens, request.how)


# -- reading values ---------------------------------------------------------------------------------------------

def request_text(raw: str) -> str:
    """The text a value holds as a request: the user turns of a JSON message list or request, else the value
    itself (``request_text('[{"role": "user", "content": "Summarize: ..."}]') == "Summarize: ..."``)."""
    try:
        messages = _request_messages(_json_or_text(raw))
    except _Unreadable:
        return raw
    turns = [m.text for m in messages if m.role not in NOT_USER]
    return "\n\n".join(turns) if turns else raw


def response_text(raw: str) -> str:
    """The answer a value holds: the assistant's text of a JSON message list or response, else the value."""
    try:
        texts = _response_texts(_json_or_text(raw))
    except _Unreadable:
        return raw
    summary, problem = answer_text(texts)
    return raw if problem else summary


def _event_name(event: Mapping[str, Any]) -> str:
    return next((str(event[k]) for k in EVENT_NAME_KEYS if event.get(k)), "")


def _json(attributes: Mapping[str, str], key: str) -> Any:
    raw = attributes[key]
    if not isinstance(raw, str):
        return raw
    try:
        return json.loads(raw)
    except json.JSONDecodeError as e:
        raise _Unreadable(f"{key} is not valid JSON ({e.msg} at character {e.pos})") from None


def _json_or_text(raw: str) -> Any:
    """A value that may be JSON or plain text (Langfuse serialises whatever the caller passed)."""
    stripped = raw.strip()
    if stripped[:1] in ("{", "[", '"'):
        try:
            return json.loads(stripped)
        except json.JSONDecodeError as e:
            raise _Unreadable(f"content looks like JSON but is not ({e.msg} at character {e.pos})") from None
    return raw


def _value(attributes: Mapping[str, str], key: str, mime_key: str) -> Any:
    if "json" in attributes.get(mime_key, "").lower():
        return _json(attributes, key)
    return _json_or_text(attributes[key])


def _int(raw: Any) -> int | None:
    try:
        return int(float(raw)) if raw not in (None, "") else None
    except (TypeError, ValueError):
        return None


def _first_int(values: Mapping[str, Any], names: Sequence[str]) -> int | None:
    """The first of ``names`` whose value reads as a whole number."""
    return next((v for v in (_int(values.get(n)) for n in names) if v is not None), None)


def _usage(usage: Mapping[str, Any]) -> tuple[int | None, int | None]:
    """Token counts from a usage object under any of the usual names."""
    return (_first_int(usage, ("input", "input_tokens", "prompt_tokens", "promptTokens")),
            _first_int(usage, ("output", "output_tokens", "completion_tokens", "completionTokens")))


def _take_gen_ai_usage(call: _Call, attributes: Mapping[str, str]) -> None:
    call.model = (call.model or attributes.get(semconv.GEN_AI_RESPONSE_MODEL, "")
                  or attributes.get(semconv.GEN_AI_REQUEST_MODEL, ""))
    if call.input_tokens is None:
        call.input_tokens = _int(attributes.get(semconv.GEN_AI_INPUT_TOKENS))
    if call.output_tokens is None:
        call.output_tokens = _int(attributes.get(semconv.GEN_AI_OUTPUT_TOKENS))


def _as_list(value: Any) -> list[Any]:
    if isinstance(value, list):
        return value
    return [] if value is None else [value]


def _text(value: Any) -> str:
    """The text of a message content: a string, a list of parts (OpenAI's {type: text, text}, GenAI's
    {type: text, content}), or a JSON string of such a list (newer OpenLLMetry); other parts are left out."""
    if isinstance(value, str):
        stripped = value.strip()
        if stripped.startswith("[{") and stripped.endswith("}]"):
            try:
                return _text(json.loads(stripped))
            except ValueError:
                return value
        return value
    if isinstance(value, list):
        return "\n".join(t for t in (_text(v) for v in value) if t)
    if isinstance(value, dict):
        kind = value.get("type", "text")
        if kind not in ("text", "input_text", "output_text"):
            return ""
        for key in ("content", "text", "parts"):
            if key in value:
                return _text(value[key])
    return ""


def _messages(value: Any) -> list[_Message]:
    """One message's turns: its text, and apart, as ``tool`` turns, the tool results it carries (Anthropic's
    ``tool_result`` blocks in a user message, GenAI's ``tool_call_response`` parts, the AI SDK's ``tool-result``)."""
    if not isinstance(value, dict):
        return [_Message("user", value)] if isinstance(value, str) and value.strip() else []
    role = str(value.get("role") or value.get("type") or "")
    role = {"human": "user", "ai": "assistant", "model": "assistant", **_TOOL_ROLES}.get(role, role)
    if role == "tool" and "output" in value and "content" not in value:  # an OpenAI Responses function output
        text = _tool_text(value["output"])
        return [_Message("tool", text)] if text.strip() else []
    content = value.get("parts", value.get("content", value.get("text", "")))
    parts = content if isinstance(content, list) else []
    tools = [_tool_text(p) for p in parts if isinstance(p, dict) and p.get("type") in _TOOL_PARTS]
    out = [_Message("tool", t) for t in tools if t.strip()]
    text = _text(content)
    if text.strip():
        out.insert(0, _Message(role, text))
    return out


def _tool_text(part: Any) -> str:
    """The text a tool answered with: a string, text blocks, {type: text, value}, or JSON as written."""
    if isinstance(part, dict) and (part.get("type") in _TOOL_PARTS or "value" in part):
        body = next((part[k] for k in ("content", "response", "result", "output", "value") if k in part), "")
        return _tool_text(body)
    if isinstance(part, str):
        return part
    text = _text(part)
    return text if text.strip() else ("" if part is None else json.dumps(part, ensure_ascii=False))


def _request_messages(value: Any) -> list[_Message]:
    """A request's turns from a message list, an OpenAI-style request, a {messages|input|prompt} wrapper or a
    bare prompt string."""
    if isinstance(value, dict):
        for key in ("messages", "input", "prompt", "inputs"):
            if key in value:
                return _request_messages(value[key])
        return _messages(value)
    if isinstance(value, list):
        if value and all(isinstance(v, list) for v in value):  # LangChain: one list of messages per prompt
            value = value[0]
        return [m for v in value for m in _messages(v)]
    if isinstance(value, str) and value.strip():
        return [_Message("user", value)]
    return []


def _response_texts(value: Any) -> list[str]:
    """The answer's text from an output message list, an OpenAI-style response ({choices: [{message}]}),
    Logfire's {message}, a single message or a bare string."""
    if isinstance(value, str):
        return [value] if value.strip() else []
    if isinstance(value, list):
        return [t for v in value for t in _response_texts(v)]
    if isinstance(value, dict):
        if "choices" in value:
            return _response_texts(value["choices"])
        if "combined_chunk_content" in value:  # Logfire's record of a streamed answer
            return _response_texts(value["combined_chunk_content"])
        if "message" in value:
            return _response_texts(value["message"])
        if "output" in value and "role" not in value:
            return _response_texts(value["output"])
        role = str(value.get("role") or "assistant")
        if role not in ("assistant", "model", "ai"):
            return []
        text = _text(value.get("parts", value.get("content", value.get("text", ""))))
        return [text] if text.strip() else []
    return []


def _flattened_messages(attributes: Mapping[str, str], prefix: str, role_key: str, content_key: str,
                        contents_key: str = "") -> list[_Message]:
    """Messages written one attribute per field: ``{prefix}.{i}.{role_key}`` and ``{prefix}.{i}.{content_key}``
    (or, for OpenInference's multi-part form, ``{prefix}.{i}.{contents_key}.{j}.message_content.text``)."""
    indices: set[int] = set()
    start = prefix + "."
    for key in attributes:
        if key.startswith(start):
            head = key[len(start):].split(".", 1)[0]
            if head.isdigit():
                indices.add(int(head))
    out = []
    for i in sorted(indices):
        role = attributes.get(f"{start}{i}.{role_key}", "")
        text = _text(attributes.get(f"{start}{i}.{content_key}", ""))
        if not text and contents_key:
            part_prefix = f"{start}{i}.{contents_key}."
            parts = sorted((k for k in attributes if k.startswith(part_prefix)
                            and k.endswith("message_content.text")),
                           key=lambda k: int(k[len(part_prefix):].split(".", 1)[0] or 0))
            text = "\n".join(attributes[k] for k in parts)
        if text.strip():
            out.append(_Message(role, text))
    return out

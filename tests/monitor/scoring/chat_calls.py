"""A corpus of chat calls, summaries and other tasks, and the span attributes each instrumentation writes for
one, as their current versions do (the shapes were read from each project's conventions and sources)."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

COUNCIL = ("The Ashbury city council voted 7-2 on Tuesday to close the Mill Street bridge for repairs from "
           "March to June. Engineers found corrosion in two of the four support beams last autumn. Buses will "
           "be rerouted over the Canal Road crossing, adding about ten minutes to the 14 and 22 routes.")
TRIAL = ("Vantor Medicines said its drug oriluzumab cut migraine days by 40 percent in a trial of 590 adults "
         "with chronic migraine. Side effects were mild, mostly nausea. The company plans to file for approval "
         "in Europe next year and expects a decision in 2028.")
MEMO = ("Starting next month the support team moves to a follow-the-sun rota. The Lisbon office covers 06:00 to "
        "14:00 UTC, Austin covers 14:00 to 22:00 and Singapore covers the night. On-call pay stays the same, and "
        "each office keeps one weekend shift a month. Questions go to Priya Raman before the 15th.")
EARNINGS = ("Northwind Traders reported third-quarter revenue of 2.1 billion dollars, up 6 percent from a year "
            "earlier, as online orders grew faster than store sales. Operating margin fell to 8.4 percent because "
            "of higher freight costs. The board kept the dividend at 12 cents a share and lowered its full-year "
            "outlook.")
OUTAGE = ("At 09:12 UTC a configuration change to the payment gateway's rate limiter rejected about 18 percent of "
          "card payments for 47 minutes. The change was rolled back at 09:59. No payments were charged twice. "
          "The team will add a canary stage to rate limiter changes and alert on rejection rates above 2 percent.")
LIBRARY = ("The public library on Elm Avenue will reopen on 3 May after a two-year renovation that added a "
           "children's wing, a makerspace with three 3D printers and longer opening hours on weekends. The work "
           "cost 6.5 million dollars, of which the state paid half. Members keep their old cards.")
STANDUP = ("Ana finished the export retry logic and opened a pull request. Ben is blocked on the staging database, "
           "which ran out of disk overnight; ops are resizing it. Chen will pair with Ana on the flaky login test "
           "this afternoon. The demo moves from Thursday to Friday because the client asked for it.")
REVIEW = ("I bought this kettle in June. In summary, it boils fast and looks nice, but the lid hinge snapped "
          "after two months and the customer service never answered my emails. I would not buy it again and I "
          "would not recommend it to anyone who needs something that lasts.")
TRANSLATED_NOTE = ("The committee was asked to summarize its findings before the end of the month, and the "
                   "chair agreed to circulate a draft on Friday so that members can comment before the vote.")


@dataclass(frozen=True)
class ChatCall:
    """One call: its messages, the answer, and the document a summarizer would be judged against (None: not
    a summarization to score)."""

    name: str
    system: str
    users: tuple[str, ...]
    answer: str
    document: str | None


SUMMARIES = (
    ChatCall("colon instruction", "", (f"Summarize the following article in one sentence: {COUNCIL}",),
             "The council will close the Mill Street bridge from March to June for repairs.", COUNCIL),
    ChatCall("system instruction", "You are a helpful assistant that summarizes news articles in two sentences.",
             (TRIAL,), "Oriluzumab cut migraine days by 40% in a 590-person trial. Approval filing is next year.",
             TRIAL),
    ChatCall("tldr first", "", (f"TL;DR:\n\n{EARNINGS}",),
             "Revenue up 6% to $2.1B, margin down on freight, outlook cut.", EARNINGS),
    ChatCall("tldr last", "", (f"{OUTAGE}\n\nTL;DR:",),
             "A rate-limiter change rejected 18% of card payments for 47 minutes.", OUTAGE),
    ChatCall("document tags", "",
             (f"Give me the key points of this memo as bullets.\n<document>\n{MEMO}\n</document>",),
             "- Follow-the-sun rota from next month\n- On-call pay unchanged", MEMO),
    ChatCall("fenced block", "", (f"Condense this report into three bullet points:\n```\n{OUTAGE}\n```",),
             "- 18% of payments rejected\n- rolled back after 47 minutes\n- canary stage added", OUTAGE),
    ChatCall("separator lines", "", (f"Please write a brief summary of the text below.\n---\n{LIBRARY}\n---",),
             "The Elm Avenue library reopens on 3 May with a children's wing and a makerspace.", LIBRARY),
    ChatCall("article label", "", (f"Article: {TRIAL}\n\nSummary:",),
             "A migraine drug cut migraine days by 40 percent in a trial.", TRIAL),
    ChatCall("email label", "",
             (f"Summarise this email for a busy executive in 2 sentences.\n\nEmail: {MEMO}",),
             "Support moves to a follow-the-sun rota next month. Pay is unchanged.", MEMO),
    ChatCall("closing instruction", "", (f"{STANDUP}\n\nSummarize the above in two sentences.",),
             "Ana's retry work is in review while Ben waits on staging. The demo moves to Friday.", STANDUP),
    ChatCall("earlier turn", "", (EARNINGS, "Can you sum this up for me?"),
             "Sales grew 6% but margins fell and the outlook was lowered.", EARNINGS),
    ChatCall("triple quotes", "", (f'What are the main points of this incident report? """{OUTAGE}"""',),
             "A bad rate limiter change, rolled back in 47 minutes, no double charges.", OUTAGE),
    ChatCall("system rule, labelled text", "Summarize the user's text in one short paragraph.",
             (f"Text: {LIBRARY}",), "The library reopens on 3 May after a renovation.", LIBRARY),
    ChatCall("here is, then ask", "", (f"Here is a stand-up transcript. Give a quick recap of it:\n{STANDUP}",),
             "Retry logic in review, staging blocked, demo on Friday.", STANDUP),
    ChatCall("explain in n sentences", "", (f"Explain the following article in 3 sentences: {EARNINGS}",),
             "Sales rose 6%. Freight costs cut the margin. The outlook was lowered.", EARNINGS),
    ChatCall("abstract", "", (f"Write an abstract for this paper: {TRIAL}",),
             "A trial of oriluzumab in 590 adults cut migraine days by 40 percent.", TRIAL),
    ChatCall("question, blank line", "", (f"Can you give me a short summary of this?\n\n{LIBRARY}",),
             "The library reopens in May with new rooms.", LIBRARY),
    ChatCall("closing question", "", (f"{COUNCIL}\n\nWhat are the key takeaways?",),
             "The bridge closes March to June; buses take Canal Road.", COUNCIL),
    ChatCall("i need", "", (f"I need a one-paragraph recap of the meeting notes below.\n\n{STANDUP}",),
             "The team is close on retries, blocked on staging, and the demo is on Friday.", STANDUP),
    ChatCall("system rule, tagged report", "You write concise executive summaries.",
             (f"<report>{OUTAGE}</report>",), "Payments failed for 47 minutes after a bad change.", OUTAGE),
    ChatCall("langchain stuff prompt", "",
             (f'Write a concise summary of the following:\n\n\n"{EARNINGS}"\n\n\nCONCISE SUMMARY:',),
             "Revenue grew, margins fell, the outlook was cut.", EARNINGS),
    ChatCall("llamaindex tree summarize", "",
             ("Context information from multiple sources is below.\n---------------------\n"
              f"{OUTAGE}\n---------------------\nGiven the information from multiple sources and not prior "
              "knowledge, answer the query.\nQuery: Summarize the documents\nAnswer: ",),
             "A rate limiter change rejected card payments for 47 minutes.", OUTAGE),
    ChatCall("system, label, closing request", "You are an expert at summarizing meeting transcripts.",
             (f"Transcript:\n{STANDUP}\n\nPlease produce action items and a short summary.",),
             "Ana: retries in review. Ben: blocked on staging.", STANDUP),
    ChatCall("lead-in, closing question", "", (f"Here's an email thread:\n\n{MEMO}\n\nWhat are the main points?",),
             "Follow-the-sun rota, same pay, questions to Priya.", MEMO),
    ChatCall("summary words inside", "", (f"Sum up this review in one line: {REVIEW}",),
             "Fast and pretty, but it broke in two months.", REVIEW),
)

OTHERS = (
    ChatCall("translate", "", (f"Translate this to French: {COUNCIL}",), "Le conseil municipal ...", None),
    ChatCall("capital", "", ("What is the capital of France?",), "Paris.", None),
    ChatCall("haiku", "You are a poet.", ("Write a haiku about autumn leaves.",), "Red leaves drift ...", None),
    ChatCall("sentiment", "", (f"Classify the sentiment of this review as positive or negative: {REVIEW}",),
             "negative", None),
    ChatCall("translate a summary", "",
             (f"Translate the following summary into Spanish:\n\n{MEMO}",), "A partir del mes ...", None),
    ChatCall("judge", "You are a strict judge. Score whether the summary is faithful to the source, 1 to 5.",
             (f"Source: {COUNCIL}\nSummary: The bridge closes in March.",), '{"score": 5}', None),
    ChatCall("no document", "", ("Summarize the plot of Hamlet.",), "A prince avenges his father ...", None),
    ChatCall("grammar", "", (f"Fix the grammar in this paragraph: {STANDUP}",), "Ana finished ...", None),
    ChatCall("code", "", ("Write Python code to reverse a list.",), "items[::-1]", None),
    ChatCall("extract emails", "", (f"Extract every date mentioned in this text: {LIBRARY}",), "3 May", None),
    ChatCall("explain", "", ("Explain how photosynthesis works in simple terms.",), "Plants use light ...", None),
    ChatCall("rag answer", "Answer using only the context.",
             (f"Context: {EARNINGS}\n\nQuestion: What was the operating margin?",), "8.4 percent.", None),
    ChatCall("rewrite", "", (f"Rewrite this paragraph to sound more formal:\n\n{STANDUP}",), "Ana has ...", None),
    ChatCall("headline", "", (f"Write a headline for this article: {TRIAL}",), "Migraine drug works", None),
    ChatCall("overview, no document", "", ("Give a short overview of quantum computing.",), "Qubits ...", None),
    ChatCall("translate, summarize inside", "", (f"Translate into German:\n\n{TRANSLATED_NOTE}",),
             "Der Ausschuss ...", None),
    ChatCall("rewrite in n sentences", "", (f"Rewrite the following in 3 sentences: {EARNINGS}",), "...", None),
    ChatCall("rag, brief overview asked", "Use the context to answer. Be brief.",
             (f"Context: {EARNINGS}\n\nQuestion: Give me a brief overview of the outlook.",), "Lowered.", None),
    ChatCall("support bot", "You are a customer support bot. Keep answers brief.", (REVIEW,), "Sorry ...", None),
    ChatCall("list risks", "", (f"Please review this text and list any risks:\n\n{EARNINGS}",), "- freight", None),
    ChatCall("limerick", "", (f"Write a limerick about this news: {COUNCIL}",), "A bridge in Ashbury ...", None),
    ChatCall("is this summary accurate", "",
             (f"Is this summary accurate? Source: {EARNINGS} Summary: Revenue fell.",), "No.", None),
    ChatCall("quiz", "", (f"Generate three quiz questions from this text: {LIBRARY}",), "1. When ...", None),
    ChatCall("tweet", "", (f"Turn this into a tweet: {TRIAL}",), "Big news for migraine ...", None),
    ChatCall("bullets of ideas", "", ("Give me 3 bullet points of ideas for a birthday party",), "- cake", None),
    ChatCall("conversation so far", "You are a helpful assistant.", ("Can you summarize our conversation so far?",),
             "We talked about ...", None),
    ChatCall("proofread a summary", "", (f"Proofread this summary: {EARNINGS}",), "Northwind ...", None),
    ChatCall("sql that summarizes", "You are a SQL assistant.",
             ("Write a query that summarizes sales by region from the orders table with columns region, amount, "
              "date.",), "SELECT region, sum(amount) ...", None),
    ChatCall("risks in bullets", "", (f"Name three risks mentioned in the following report, in 3 bullets: {OUTAGE}",),
             "- config changes", None),
    ChatCall("to json", "", (f"Convert this to JSON with fields company, revenue, margin: {EARNINGS}",), "{}", None),
)

CALLS = SUMMARIES + OTHERS

MODEL, IN_TOKENS, OUT_TOKENS = "gpt-4o-mini-2024-07-18", 312, 41


def _openai_messages(call: ChatCall) -> list[dict[str, str]]:
    system = [{"role": "system", "content": call.system}] if call.system else []
    return system + [{"role": "user", "content": u} for u in call.users]


def openinference(call: ChatCall) -> dict[str, str]:
    """openinference-instrumentation-openai: flattened messages, input.value holding the request JSON."""
    attrs = {"openinference.span.kind": "LLM", "llm.model_name": MODEL, "llm.provider": "openai",
             "llm.token_count.prompt": str(IN_TOKENS), "llm.token_count.completion": str(OUT_TOKENS),
             "llm.token_count.total": str(IN_TOKENS + OUT_TOKENS), "input.mime_type": "application/json",
             "input.value": json.dumps({"messages": _openai_messages(call), "model": "gpt-4o-mini"}),
             "output.mime_type": "application/json",
             "output.value": json.dumps({"id": "chatcmpl-1", "object": "chat.completion", "model": MODEL,
                                         "choices": [{"index": 0, "finish_reason": "stop", "message": {
                                             "role": "assistant", "content": call.answer}}]}),
             "llm.invocation_parameters": '{"temperature": 0}',
             "llm.output_messages.0.message.role": "assistant",
             "llm.output_messages.0.message.content": call.answer}
    for i, m in enumerate(_openai_messages(call)):
        attrs[f"llm.input_messages.{i}.message.role"] = m["role"]
        attrs[f"llm.input_messages.{i}.message.content"] = m["content"]
    return attrs


def openinference_values_only(call: ChatCall) -> dict[str, str]:
    """An OpenInference LLM span carrying only input.value/output.value (LangChain's with message capture
    trimmed, or a hand-made span)."""
    return {k: v for k, v in openinference(call).items() if not k.startswith(("llm.input_", "llm.output_"))}


def gen_ai(call: ChatCall) -> dict[str, str]:
    """The OTel GenAI conventions' current form (v1.37+): JSON messages with parts, system instructions apart."""
    attrs = {"gen_ai.operation.name": "chat", "gen_ai.provider.name": "openai", "gen_ai.request.model": "gpt-4o-mini",
             "gen_ai.response.model": MODEL, "gen_ai.usage.input_tokens": str(IN_TOKENS),
             "gen_ai.usage.output_tokens": str(OUT_TOKENS), "gen_ai.response.finish_reasons": '["stop"]',
             "gen_ai.input.messages": json.dumps([{"role": "user", "parts": [{"type": "text", "content": u}]}
                                                  for u in call.users]),
             "gen_ai.output.messages": json.dumps([{"role": "assistant", "finish_reason": "stop",
                                                    "parts": [{"type": "text", "content": call.answer}]}])}
    if call.system:
        attrs["gen_ai.system_instructions"] = json.dumps([{"type": "text", "content": call.system}])
    return attrs


def gen_ai_span_without_content(call: ChatCall) -> dict[str, str]:
    """opentelemetry-instrumentation-openai-v2 in its default event mode: the span has no text at all."""
    return {k: v for k, v in gen_ai(call).items()
            if k not in ("gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.system_instructions")}


def gen_ai_events(call: ChatCall) -> list[dict[str, str]]:
    """The log records the contrib instrumentation emits for one call, as ``recognise`` takes them."""
    events = [{"event.name": "gen_ai.system.message", "body": json.dumps({"content": call.system})}] \
        if call.system else []
    events += [{"event.name": "gen_ai.user.message", "body": json.dumps({"content": u})} for u in call.users]
    events.append({"event.name": "gen_ai.choice", "body": json.dumps(
        {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": call.answer}})})
    return events


def openllmetry(call: ChatCall) -> dict[str, str]:
    """opentelemetry-instrumentation-openai (Traceloop): indexed prompt and completion attributes."""
    attrs = {"llm.request.type": "chat", "gen_ai.system": "openai", "gen_ai.request.model": "gpt-4o-mini",
             "gen_ai.response.model": MODEL, "gen_ai.usage.prompt_tokens": str(IN_TOKENS),
             "gen_ai.usage.completion_tokens": str(OUT_TOKENS), "llm.usage.total_tokens": str(IN_TOKENS + OUT_TOKENS),
             "gen_ai.completion.0.role": "assistant", "gen_ai.completion.0.content": call.answer,
             "gen_ai.completion.0.finish_reason": "stop", "llm.is_streaming": "false"}
    for i, m in enumerate(_openai_messages(call)):
        attrs[f"gen_ai.prompt.{i}.role"] = m["role"]
        attrs[f"gen_ai.prompt.{i}.content"] = m["content"]
    return attrs


def logfire_current(call: ChatCall) -> dict[str, str]:
    """logfire.instrument_openai(): request_data and response_data JSON beside the GenAI messages."""
    attrs = gen_ai(call)
    attrs.update({"logfire.msg_template": "Chat Completion with {request_data[model]!r}",
                  "logfire.span_type": "span",
                  "request_data": json.dumps({"messages": _openai_messages(call), "model": "gpt-4o-mini"}),
                  "response_data": json.dumps({"message": {"role": "assistant", "content": call.answer},
                                               "usage": {"prompt_tokens": IN_TOKENS,
                                                         "completion_tokens": OUT_TOKENS}})})
    return attrs


def logfire_older(call: ChatCall) -> dict[str, str]:
    """Older Logfire releases: only request_data and response_data hold the text."""
    return {"logfire.msg_template": "Chat Completion with {request_data[model]!r}", "gen_ai.system": "openai",
            "gen_ai.request.model": "gpt-4o-mini", "gen_ai.response.model": MODEL,
            "request_data": json.dumps({"messages": _openai_messages(call), "model": "gpt-4o-mini"}),
            "response_data": json.dumps({"message": {"role": "assistant", "content": call.answer},
                                         "usage": {"prompt_tokens": IN_TOKENS, "completion_tokens": OUT_TOKENS}})}


def pydantic_ai_events(call: ChatCall) -> dict[str, str]:
    """Pydantic AI under Logfire (events mode): the messages as one JSON ``events`` attribute."""
    events = [{"event.name": "gen_ai.system.message", "content": call.system, "role": "system"}] \
        if call.system else []
    events += [{"event.name": "gen_ai.user.message", "content": u, "role": "user"} for u in call.users]
    events.append({"event.name": "gen_ai.choice", "index": 0,
                   "message": {"role": "assistant", "content": call.answer}})
    return {"logfire.msg_template": "chat gpt-4o-mini", "gen_ai.operation.name": "chat",
            "gen_ai.request.model": "gpt-4o-mini", "gen_ai.usage.input_tokens": str(IN_TOKENS),
            "gen_ai.usage.output_tokens": str(OUT_TOKENS), "events": json.dumps(events)}


def langfuse(call: ChatCall) -> dict[str, str]:
    """The Langfuse Python SDK (v3, OTel based): a generation observation with JSON input and output."""
    return {"langfuse.observation.type": "generation", "langfuse.observation.model.name": MODEL,
            "langfuse.observation.input": json.dumps(_openai_messages(call)),
            "langfuse.observation.output": json.dumps({"role": "assistant", "content": call.answer}),
            "langfuse.observation.usage_details": json.dumps({"input": IN_TOKENS, "output": OUT_TOKENS,
                                                              "total": IN_TOKENS + OUT_TOKENS}),
            "langfuse.observation.model.parameters": '{"temperature": 0}'}


SPAN_SHAPES: dict[str, tuple[str, Callable[[ChatCall], dict[str, str]]]] = {
    "openinference": ("ChatCompletion", openinference),
    "openinference (values only)": ("ChatOpenAI", openinference_values_only),
    "gen_ai": ("chat gpt-4o-mini", gen_ai),
    "openllmetry": ("openai.chat", openllmetry),
    "logfire": ("Chat Completion with 'gpt-4o-mini'", logfire_current),
    "logfire (older)": ("Chat Completion with 'gpt-4o-mini'", logfire_older),
    "pydantic-ai events": ("chat gpt-4o-mini", pydantic_ai_events),
    "langfuse": ("OpenAI-generation", langfuse),
}

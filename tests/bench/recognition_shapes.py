"""Recognition precision and recall per language and shape, on calls written after the rules were frozen.

    python tests/bench/recognition_shapes.py

The calls are tests/bench/heldout_shapes_calls.py. A language group, the labelled-instruction group and the
judge-prompt group are written the way each instrumentation of tests/monitor/scoring/chat_calls.py writes a chat
call (nine span shapes, and the GenAI log records); the tool-result group as four transports carry a tool's
answer (an OpenAI tool message, an Anthropic tool_result block, a GenAI tool_call_response part, the Vercel AI
SDK's tool-result); the vercel-ai group as the AI SDK's provider-call span. Recall counts a summarization
recognised; "exact" also needs the source to be exactly the document. Prints the misses and false
recognitions, a table, then one JSON line.
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from sumwatch.monitor.scoring.recognise import Recognised, Refusal, recognise  # noqa: E402
from tests.bench.heldout_shapes_calls import CALLS, HeldoutCall  # noqa: E402
from tests.monitor.scoring.chat_calls import (  # noqa: E402
    SPAN_SHAPES,
    ChatCall,
    gen_ai_events,
    gen_ai_span_without_content,
)

Render = Callable[[HeldoutCall], Recognised | Refusal]


def _chat(call: HeldoutCall) -> ChatCall:
    return ChatCall(call.group, call.system, call.users, call.answer, call.document)


def _span_shapes() -> dict[str, Render]:
    shapes: dict[str, Render] = {
        shape: (lambda c, name=name, render=render: recognise(name, render(_chat(c))))
        for shape, (name, render) in SPAN_SHAPES.items()}
    shapes["gen_ai-events"] = lambda c: recognise("chat", gen_ai_span_without_content(_chat(c)),
                                                  gen_ai_events(_chat(c)))
    return shapes


def _openai_tool(c: HeldoutCall) -> Recognised | Refusal:
    messages = [{"role": "user", "content": c.users[-1]},
                {"role": "assistant", "content": None, "tool_calls": [
                    {"id": "call_9", "type": "function", "function": {"name": "fetch", "arguments": "{}"}}]},
                {"role": "tool", "tool_call_id": "call_9", "content": c.tool}]
    return recognise("ChatCompletion", {"openinference.span.kind": "LLM", "input.mime_type": "application/json",
                                        "input.value": json.dumps({"messages": messages}), "output.value": c.answer})


def _anthropic_tool(c: HeldoutCall) -> Recognised | Refusal:
    messages = [{"role": "user", "content": c.users[-1]},
                {"role": "assistant", "content": [{"type": "tool_use", "id": "t9", "name": "fetch", "input": {}}]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t9", "content": c.tool}]}]
    return recognise("anthropic.messages", {
        "langfuse.observation.type": "generation", "langfuse.observation.input": json.dumps(messages),
        "langfuse.observation.output": json.dumps({"role": "assistant", "content": c.answer})})


def _gen_ai_tool(c: HeldoutCall) -> Recognised | Refusal:
    messages = [{"role": "user", "parts": [{"type": "text", "content": c.users[-1]}]},
                {"role": "assistant", "parts": [{"type": "tool_call", "id": "c9", "name": "fetch", "arguments": {}}]},
                {"role": "tool", "parts": [{"type": "tool_call_response", "id": "c9", "response": c.tool}]}]
    return recognise("chat", {"gen_ai.operation.name": "chat", "gen_ai.input.messages": json.dumps(messages),
                              "gen_ai.output.messages": json.dumps(
                                  [{"role": "assistant", "parts": [{"type": "text", "content": c.answer}]}])})


def _vercel(c: HeldoutCall) -> Recognised | Refusal:
    messages: list[dict[str, object]] = [{"role": "user", "content": [{"type": "text", "text": c.users[-1]}]}]
    if c.tool:
        messages += [{"role": "assistant", "content": [{"type": "tool-call", "toolCallId": "v9", "toolName": "fetch",
                                                        "input": {}}]},
                     {"role": "tool", "content": [{"type": "tool-result", "toolCallId": "v9", "toolName": "fetch",
                                                   "output": {"type": "text", "value": c.tool}}]}]
    return recognise("ai.generateText.doGenerate", {
        "ai.operationId": "ai.generateText.doGenerate", "operation.name": "ai.generateText.doGenerate",
        "ai.model.id": "gpt-4o-mini", "ai.prompt.format": "messages", "ai.prompt.messages": json.dumps(messages),
        "ai.response.text": c.answer, "ai.usage.inputTokens": "120", "ai.usage.outputTokens": "20",
        "gen_ai.system": "openai.chat", "gen_ai.request.model": "gpt-4o-mini"})


def _renderings(group: str) -> dict[str, Render]:
    if group == "tool-result":
        return {"openai tool message": _openai_tool, "anthropic tool_result": _anthropic_tool,
                "gen_ai tool_call_response": _gen_ai_tool, "vercel tool-result": _vercel}
    if group == "vercel-ai":
        return {"vercel-ai doGenerate": _vercel}
    return _span_shapes()


def main() -> None:
    groups: dict[str, list[HeldoutCall]] = defaultdict(list)
    for call in CALLS:
        groups[call.group].append(call)
    figures: dict[str, dict[str, float | int]] = {}
    for group, calls in groups.items():
        renders = _renderings(group)
        tp = fp = exact = pos = neg = 0
        reported: set[str] = set()
        for call in calls:
            for shape, run in renders.items():
                found = run(call)
                if call.document is None:
                    neg += 1
                    if isinstance(found, Recognised):
                        fp += 1
                        _once(reported, f"false recognition [{group}/{shape}]: {call.users[-1][:70]!r}")
                else:
                    pos += 1
                    if isinstance(found, Recognised):
                        tp += 1
                        if found.source == call.document:
                            exact += 1
                        else:
                            _once(reported, f"inexact [{group}/{shape}]: {call.users[-1][:50]!r} -> "
                                            f"{found.source[:50]!r}")
                    else:
                        _once(reported, f"missed [{group}/{shape}]: {call.users[-1][:70]!r}: {found.reason}")
        figures[group] = {
            "calls_pos": sum(c.document is not None for c in calls),
            "calls_neg": sum(c.document is None for c in calls),
            "renderings": len(renders), "precision": round(tp / (tp + fp), 3) if tp + fp else 1.0,
            "recall": round(tp / pos, 3) if pos else 1.0, "exact_recall": round(exact / pos, 3) if pos else 1.0,
            "recognised": tp, "positives": pos, "false": fp, "negatives": neg}
    print(f"{'group':<22}{'pos':>5}{'neg':>5}{'shapes':>8}{'precision':>11}{'recall':>8}{'exact':>8}{'false':>7}")
    for group, f in figures.items():
        print(f"{group:<22}{f['calls_pos']:>5}{f['calls_neg']:>5}{f['renderings']:>8}{f['precision']:>11.3f}"
              f"{f['recall']:>8.3f}{f['exact_recall']:>8.3f}{f['false']:>7}")
    print(json.dumps({"bench": "recognition_shapes", "groups": figures}))


def _once(seen: set[str], line: str) -> None:
    key = line.split("]:", 1)[1]
    if key not in seen:
        seen.add(key)
        print(line)


if __name__ == "__main__":
    main()

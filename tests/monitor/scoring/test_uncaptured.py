"""A refusal that blames content capture is checked against the text the span carries under other keys."""

import json

from sumwatch.monitor.scoring.recognise import Refusal, recognise
from sumwatch.monitor.scoring.uncaptured import content_elsewhere, text_keys
from tests.monitor.scoring.chat_calls import SUMMARIES, gen_ai_span_without_content

CALL = SUMMARIES[0]
CAPTURE_OFF = "no user message text (content capture off, or not yet joined)"


def test_text_under_keys_no_reader_reads_is_not_blamed_on_capture():
    messages = [{"role": "user", "content": [{"type": "text", "text": u}]} for u in CALL.users]
    span = {**gen_ai_span_without_content(CALL), "ai.prompt.messages": json.dumps(messages),
            "ai.response.text": CALL.answer, "ai.model.id": "gpt-4o-mini", "ai.operationId": "ai.generateText"}
    found = recognise("ai.generateText.doGenerate", span)
    reason = content_elsewhere(found.reason, span) if isinstance(found, Refusal) else ""
    assert "capture off" not in reason
    assert text_keys(span) == ["ai.prompt.messages", "ai.response.text"]  # not the model id or operation
    said = content_elsewhere(CAPTURE_OFF, span)
    assert said.startswith("no user message text where this instrumentation keeps it")
    assert "ai.prompt.messages, ai.response.text" in said and "selector" in said


def test_capture_off_is_said_when_the_span_carries_no_text():
    span = {**gen_ai_span_without_content(CALL), "http.user_agent": "Mozilla/5.0 (X11; Linux x86_64) Gecko/20100101",
            "gen_ai.request.model": "gpt-4o-mini", "server.address": "api.openai.com"}
    assert recognise("chat gpt-4o-mini", span) == Refusal("gen_ai", CAPTURE_OFF)
    assert content_elsewhere(CAPTURE_OFF, span) == CAPTURE_OFF
    assert content_elsewhere("operation embeddings, not a chat call", {"x": CALL.answer}) == \
        "operation embeddings, not a chat call"

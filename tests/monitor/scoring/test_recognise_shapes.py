"""Recognition beyond English single-message calls: instructions in French, German, Spanish and Portuguese, the
agent pattern (the document arrives as a tool result), a header label on the instruction's line, the Vercel AI
SDK's ``ai.*`` attributes, and the judge prompt that hands a summary over to be graded (refused)."""

from __future__ import annotations

import json

import pytest

from sumwatch.monitor.scoring.recognise import Recognised, Refusal, recognise
from tests.monitor.scoring.chat_calls import COUNCIL, SPAN_SHAPES, ChatCall, gen_ai

FR_DOC = ("La mairie de Lyon a annoncé mardi la fermeture du pont Wilson pendant quatre mois pour des travaux de "
          "renforcement. Les bus des lignes 27 et 31 seront déviés par le pont Lafayette.")
DE_DOC = ("Die Stadtwerke Bremen erhöhen den Strompreis zum ersten März um acht Prozent. Als Grund nennt der "
          "Versorger gestiegene Netzentgelte; Kunden mit Festpreisvertrag sind bis Jahresende nicht betroffen.")
ES_DOC = ("El ayuntamiento de Valencia aprobó el jueves un plan para plantar doce mil árboles antes de 2027. La "
          "medida costará nueve millones de euros y se financiará en parte con fondos europeos.")
PT_DOC = ("A prefeitura de Curitiba vai ampliar o horário das bibliotecas públicas a partir de maio. As unidades "
          "passarão a abrir aos sábados e domingos, e a contratação de vinte novos funcionários já foi aprovada.")

LANGUAGE_SUMMARIES = {
    "fr": [f"Résume ce texte en deux phrases : {FR_DOC}", f"Peux-tu me faire un résumé de cet article ?\n\n{FR_DOC}",
           f"{FR_DOC}\n\nRésumez le texte ci-dessus en une phrase.", f"Donne-moi les points clés :\n{FR_DOC}"],
    "de": [f"Fasse den folgenden Artikel zusammen:\n\n{DE_DOC}",
           f"Kannst du diesen Text kurz zusammenfassen?\n\n{DE_DOC}",
           f"{DE_DOC}\n\nFasse das in zwei Sätzen zusammen.", f"Schreibe eine kurze Zusammenfassung: {DE_DOC}"],
    "es": [f"Resume el siguiente texto: {ES_DOC}", f"¿Puedes hacerme un resumen de esta noticia?\n\n{ES_DOC}",
           f"{ES_DOC}\n\nResume lo anterior en una frase.", f"Dame los puntos clave de este artículo:\n{ES_DOC}"],
    "pt": [f"Resuma o texto a seguir: {PT_DOC}", f"Você pode fazer um resumo desta notícia?\n\n{PT_DOC}",
           f"{PT_DOC}\n\nResuma o texto acima em duas frases.", f"Faça um resumo em três tópicos:\n{PT_DOC}"],
}
LANGUAGE_DOCS = {"fr": FR_DOC, "de": DE_DOC, "es": ES_DOC, "pt": PT_DOC}
LANGUAGE_OTHERS = {
    "fr": [f"Traduis ce texte en anglais : {FR_DOC}", f"Quelle ligne de bus est déviée ? {FR_DOC}",
           f"Classe ce texte par thème : {FR_DOC}"],
    "de": [f"Übersetze den folgenden Text ins Englische:\n\n{DE_DOC}",
           f"Um wie viel Prozent steigt der Preis? {DE_DOC}",
           f"Übersetze diese Zusammenfassung ins Spanische: {DE_DOC}"],
    "es": [f"Traduce el siguiente texto al inglés: {ES_DOC}", f"¿Cuánto costará la medida? {ES_DOC}",
           f"Corrige la ortografía de este texto: {ES_DOC}"],
    "pt": [f"Traduza o texto a seguir para o inglês: {PT_DOC}", f"Quantos funcionários serão contratados? {PT_DOC}",
           f"Classifique o sentimento deste texto: {PT_DOC}"],
}


@pytest.mark.parametrize("shape", sorted(SPAN_SHAPES))
@pytest.mark.parametrize("lang", sorted(LANGUAGE_SUMMARIES))
def test_summarization_instructions_in_other_languages_are_recognised(shape, lang):
    name, render = SPAN_SHAPES[shape]
    for user in LANGUAGE_SUMMARIES[lang]:
        found = recognise(name, render(ChatCall(lang, "", (user,), "Un résumé.", LANGUAGE_DOCS[lang])))
        assert isinstance(found, Recognised), (user, found)
        assert found.source == LANGUAGE_DOCS[lang], user


@pytest.mark.parametrize("lang", sorted(LANGUAGE_OTHERS))
def test_other_tasks_in_other_languages_are_refused(lang):
    for user in LANGUAGE_OTHERS[lang]:
        found = recognise("chat", gen_ai(ChatCall(lang, "", (user,), "Some answer text here.", None)))
        assert isinstance(found, Refusal), user


# -- the agent pattern: "summarize it", the document in a tool result -----------------------------------------

ASK = "Fetch https://news.example/bridge and summarize it."
ANSWER = "The council will close the Mill Street bridge from March to June."
CALL_ID = "call_1"


def _openai_tool_turns() -> list[dict]:
    return [{"role": "user", "content": ASK},
            {"role": "assistant", "content": None, "tool_calls": [
                {"id": CALL_ID, "type": "function", "function": {"name": "fetch", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": CALL_ID, "content": COUNCIL}]


def test_an_openai_tool_message_is_the_document():
    attrs = {"openinference.span.kind": "LLM", "input.mime_type": "application/json",
             "input.value": json.dumps({"messages": _openai_tool_turns()}), "output.value": ANSWER}
    found = recognise("ChatCompletion", attrs)
    assert isinstance(found, Recognised) and (found.source, found.summary) == (COUNCIL, ANSWER), found
    assert "tool result" in found.how
    flat = {"openinference.span.kind": "LLM", "llm.output_messages.0.message.role": "assistant",
            "llm.output_messages.0.message.content": ANSWER}
    for i, (role, text) in enumerate((("user", ASK), ("tool", COUNCIL))):
        flat[f"llm.input_messages.{i}.message.role"] = role
        flat[f"llm.input_messages.{i}.message.content"] = text
    found = recognise("ChatCompletion", flat)
    assert isinstance(found, Recognised) and found.source == COUNCIL


def test_anthropic_tool_result_blocks_are_the_document():
    messages = [{"role": "user", "content": "Summarize this"},
                {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "read", "input": {}}]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1",
                                              "content": [{"type": "text", "text": COUNCIL}]}]}]
    attrs = {"langfuse.observation.type": "generation", "langfuse.observation.input": json.dumps(messages),
             "langfuse.observation.output": json.dumps({"role": "assistant", "content": ANSWER})}
    found = recognise("anthropic.messages", attrs)
    assert isinstance(found, Recognised) and (found.source, found.summary) == (COUNCIL, ANSWER), found


def test_gen_ai_tool_call_response_parts_and_tool_events_are_the_document():
    attrs = {"gen_ai.operation.name": "chat", "gen_ai.input.messages": json.dumps([
        {"role": "user", "parts": [{"type": "text", "content": "summarize it"}]},
        {"role": "assistant", "parts": [{"type": "tool_call", "id": "c1", "name": "fetch", "arguments": {}}]},
        {"role": "tool", "parts": [{"type": "tool_call_response", "id": "c1", "response": COUNCIL}]}]),
        "gen_ai.output.messages": json.dumps([{"role": "assistant", "parts": [{"type": "text", "content": ANSWER}]}])}
    found = recognise("chat", attrs)
    assert isinstance(found, Recognised) and found.source == COUNCIL, found
    events = [{"event.name": "gen_ai.user.message", "body": json.dumps({"content": "Summarize this"})},
              {"event.name": "gen_ai.tool.message", "body": json.dumps({"content": COUNCIL, "id": "c1"})},
              {"event.name": "gen_ai.choice",
               "body": json.dumps({"message": {"role": "assistant", "content": ANSWER}})}]
    found = recognise("chat", {"gen_ai.operation.name": "chat"}, events)
    assert isinstance(found, Recognised) and found.source == COUNCIL, found


def test_a_tool_result_for_another_question_is_not_a_summary():
    turns = _openai_tool_turns()
    turns[0] = {"role": "user", "content": "What time does the council meet on Tuesday?"}
    attrs = {"openinference.span.kind": "LLM", "input.value": json.dumps({"messages": turns}),
             "input.mime_type": "application/json", "output.value": "At 7 pm."}
    assert recognise("ChatCompletion", attrs) == Refusal("openinference", "not a summarization request")


# -- a header label on the instruction's line stays with the document -------------------------------------------

@pytest.mark.parametrize("label", ["From: alice@example.com", "Subject: Mill Street bridge", "Title: Bridge closure",
                                   "Date: 3 March"])
def test_a_label_on_the_instruction_line_is_kept_in_the_document(label):
    document = f"{label}\n\n{COUNCIL}"
    found = recognise("chat", gen_ai(ChatCall("label", "", (f"Summarize this email. {document}",), ANSWER, document)))
    assert isinstance(found, Recognised) and found.source == document, found


# -- the Vercel AI SDK -----------------------------------------------------------------------------------------

def _vercel(**extra: str) -> dict[str, str]:
    messages = [{"role": "system", "content": "You write short news digests."},
                {"role": "user", "content": [{"type": "text", "text": f"Summarize in one sentence: {COUNCIL}"}]}]
    return {"ai.operationId": "ai.generateText.doGenerate", "operation.name": "ai.generateText.doGenerate",
            "ai.model.id": "gpt-4o-mini", "ai.model.provider": "openai.chat", "ai.prompt.format": "messages",
            "ai.prompt.messages": json.dumps(messages), "ai.response.text": ANSWER,
            "ai.response.model": "gpt-4o-mini-2024-07-18", "ai.usage.promptTokens": "90",
            "ai.usage.completionTokens": "14", "gen_ai.system": "openai.chat", **extra}


def test_the_vercel_ai_sdk_provider_call_is_read():
    found = recognise("ai.generateText.doGenerate", _vercel())
    assert isinstance(found, Recognised), found
    assert (found.instrumentation, found.source, found.summary) == ("vercel-ai", COUNCIL, ANSWER)
    assert (found.model, found.input_tokens, found.output_tokens) == ("gpt-4o-mini-2024-07-18", 90, 14)
    v5 = {k: v for k, v in _vercel(**{"ai.usage.inputTokens": "91", "ai.usage.outputTokens": "15"}).items()
          if not k.endswith(("promptTokens", "completionTokens"))}
    found = recognise("ai.streamText.doStream", {**v5, "ai.operationId": "ai.streamText.doStream"})
    assert isinstance(found, Recognised) and (found.input_tokens, found.output_tokens) == (91, 15)


def test_the_vercel_ai_sdk_tool_result_and_object_answer():
    messages = [{"role": "user", "content": [{"type": "text", "text": "Summarize this page"}]},
                {"role": "assistant", "content": [{"type": "tool-call", "toolCallId": "a", "toolName": "fetch",
                                                   "args": {}}]},
                {"role": "tool", "content": [{"type": "tool-result", "toolCallId": "a", "toolName": "fetch",
                                              "output": {"type": "text", "value": COUNCIL}}]}]
    attrs = {**_vercel(), "ai.prompt.messages": json.dumps(messages)}
    found = recognise("ai.generateText.doGenerate", attrs)
    assert isinstance(found, Recognised) and found.source == COUNCIL, found
    attrs = {k: v for k, v in _vercel(**{"ai.operationId": "ai.generateObject.doGenerate",
                                         "ai.response.object": json.dumps({"summary": ANSWER})}).items()
             if k != "ai.response.text"}
    found = recognise("ai.generateObject.doGenerate", attrs)
    assert isinstance(found, Recognised) and found.summary == ANSWER


def test_the_vercel_ai_sdk_outer_span_and_tool_calls_are_not_read_twice():
    outer = {"ai.operationId": "ai.generateText", "ai.prompt": json.dumps({"prompt": f"Summarize: {COUNCIL}"}),
             "ai.response.text": ANSWER}
    found = recognise("ai.generateText", outer)
    assert isinstance(found, Refusal) and found.instrumentation == "vercel-ai" and "outer span" in found.reason
    tool = {"ai.operationId": "ai.toolCall", "ai.toolCall.name": "fetch", "ai.toolCall.result": COUNCIL}
    assert recognise("ai.toolCall", tool) == Refusal("vercel-ai", "operation ai.toolCall, not a chat call")


# -- the judge prompt ----------------------------------------------------------------------------------------

JUDGE_PROMPTS = [
    f"Here is a summary I wrote: 'The council closed a bridge.' Is it accurate compared to this article?\n\n{COUNCIL}",
    f"Here is a summary I wrote: \"The bridge closes in March.\" Is it accurate compared to this article? {COUNCIL}",
    f"{COUNCIL}\n\nMy summary: the bridge closes for good. Did I get anything wrong?",
    f"Voici un résumé que j'ai écrit : « Le pont ferme. » Est-il exact par rapport à cet article ? {FR_DOC}",
    f"Hier ist meine Zusammenfassung: Der Strom wird teurer. Ist sie korrekt? Artikel: {DE_DOC}",
    f"Aquí está mi resumen: se plantarán árboles. ¿Es correcto según este texto? {ES_DOC}",
    f"Este resumo está correto? Resumo: as bibliotecas abrem aos sábados. Texto: {PT_DOC}",
]


@pytest.mark.parametrize("shape", sorted(SPAN_SHAPES))
def test_a_judge_prompt_is_not_taken_for_a_summarization(shape):
    name, render = SPAN_SHAPES[shape]
    for user in JUDGE_PROMPTS:
        found = recognise(name, render(ChatCall("judge", "", (user,), "Mostly, but the dates are missing.", None)))
        assert isinstance(found, Refusal), (user, found)


def test_a_yes_no_verdict_is_never_scored_as_a_summary():
    call = ChatCall("verdict", "", (f"Summarize this article: {COUNCIL}",), "Yes, it is accurate.", None)
    assert recognise("chat", gen_ai(call)) == Refusal("gen_ai", "the answer is a yes/no verdict, not a summary")

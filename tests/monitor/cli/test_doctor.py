"""`sumwatch doctor`: one small call to the configured model, reported plainly, against a loopback fake."""

import json
import socket

import pytest
from fakes.openai_server import FakeOpenAI, answer, error, judge_responder
from typer.testing import CliRunner

from sumwatch.monitor.cli import app

runner = CliRunner()


def doctor(env, *args):
    return runner.invoke(app, ["doctor", *args], env=env)


def test_without_an_llm_it_says_the_offline_tiers_judge_alone(cli_env, store):
    result = doctor(cli_env)
    assert result.exit_code == 0 and "schema version" in result.stdout and "none configured" in result.stdout


def model(judge_reply=judge_responder):
    """Answers the one-word call with OK and a judge request with ``judge_reply``."""
    ok = answer("OK", prompt_tokens=12, completion_tokens=1)
    return lambda request: ok(request) if "single word OK" in json.dumps(request) else judge_reply(request)


@pytest.mark.integration
def test_a_working_model_reports_latency_tokens_and_cost(cli_env, store):
    with FakeOpenAI(model()) as fake:
        env = {**cli_env, "SUMWATCH_LLM_MODEL": "openai/doctor-test", "SUMWATCH_LLM_API_BASE": fake.base_url,
               "SUMWATCH_LLM_API_KEY": "sk-doctor-secret"}
        shown = doctor(env)
        report = json.loads(doctor(env, "--json").stdout)
    assert shown.exit_code == 0 and "openai/doctor-test answered in" in shown.stdout and "12 + 1 tokens" in shown.stdout
    assert report["llm"]["ok"] and report["llm"]["reply"] == "OK" and report["llm"]["input_tokens"] == 12
    assert report["judge"] == {**report["judge"], "ok": True, "rubric": "groundedness", "verdict": "supported"}
    assert "judge: the groundedness prompt came back as a valid verdict (supported)" in shown.stdout
    assert len(fake.requests) == 4  # per run: the one-word call and one judge request, no retries
    judged = fake.requests[1].body["messages"]
    assert "<source>" in json.dumps(judged) and fake.requests[1].body["response_format"] == {"type": "json_object"}


@pytest.mark.integration
def test_a_model_that_answers_json_but_not_a_verdict_fails_in_one_line(cli_env, store):
    with FakeOpenAI(model(answer({"answer": "OK"}))) as fake:
        env = {**cli_env, "SUMWATCH_LLM_MODEL": "openai/doctor-test", "SUMWATCH_LLM_API_BASE": fake.base_url,
               "SUMWATCH_LLM_API_KEY": "sk-doctor-secret"}
        result = doctor(env)
    assert result.exit_code == 1 and "openai/doctor-test answered in" in result.stdout
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("judge: the groundedness prompt got no usable verdict: ")
    assert '"claims" must be a non-empty list' in lines[0] and "Traceback" not in result.output
    assert len(fake.requests) == 3  # the one-word call, the judge request and its one repair turn


def test_a_refused_connection_is_not_reported_as_a_server_error(cli_env, store):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again before the call: nothing listens there
    env = {**cli_env, "SUMWATCH_LLM_MODEL": "openai/doctor-test", "SUMWATCH_LLM_API_BASE": f"http://127.0.0.1:{port}/v1",
           "SUMWATCH_LLM_API_KEY": "sk-doctor-secret", "SUMWATCH_LLM_TIMEOUT_S": "5"}
    result = doctor(env)
    said = result.stderr.replace(f"127.0.0.1:{port}", "127.0.0.1:PORT")  # the free port itself may contain "500"
    assert result.exit_code == 1 and "connection refused" in said and "500" not in said
    assert "Traceback" not in result.output and "sk-doctor-secret" not in result.output


@pytest.mark.integration
def test_a_server_error_says_so(cli_env, store):
    with FakeOpenAI(error(500, "upstream exploded")) as fake:
        env = {**cli_env, "SUMWATCH_LLM_MODEL": "openai/doctor-test", "SUMWATCH_LLM_API_BASE": fake.base_url,
               "SUMWATCH_LLM_API_KEY": "sk-doctor-secret"}
        result = doctor(env)
    assert result.exit_code == 1 and "500" in result.stderr and "connection refused" not in result.stderr
    assert "sk-doctor-secret" not in result.output


def test_it_reports_spans_per_instrumentation_recognised_or_not_with_the_reasons(cli_env, store):
    import time

    from tests.monitor.scoring.chat_calls import OTHERS, SUMMARIES, openinference

    now = time.time_ns()

    def span(i, name, attributes):
        return (now - i * 10**9, f"{i:032x}", f"{i:016x}", "", "", name, "Client", "bot", {"service.name": "bot"},
                "x", "", attributes, 10, "Unset", "", (), (), (), (), (), (), ())

    store.insert_spans([span(1, "ChatCompletion", openinference(SUMMARIES[0])),
                        span(2, "ChatCompletion", openinference(SUMMARIES[1])),
                        span(3, "ChatCompletion", openinference(OTHERS[0])),
                        span(4, "rag.answer", {"doc": "", "ans": "x"}),
                        span(5, "GET /health", {"http.method": "GET"}),
                        span(7200, "ChatCompletion", openinference(SUMMARIES[2]))])  # older than the hour
    env = {**cli_env, "SUMWATCH_SELECTOR_RAG": json.dumps({"span_name": "rag.answer", "source": "doc",
                                                           "summary": "ans"})}
    shown = doctor(env)
    report = json.loads(doctor(env, "--json").stdout)["recognition"]
    assert shown.exit_code == 0, shown.output
    rows = {r["instrumentation"]: r for r in report["rows"]}
    assert rows["openinference"] == {**rows["openinference"], "spans": 3, "recognised": 2, "not_recognised": 1}
    assert rows["openinference"]["reasons"][0]["spans"] == 1
    assert rows["rag"]["reasons"] == [{"reason": "no text under doc (the selector's source)", "spans": 1}]
    assert rows["other"]["spans"] == 1 and rows["sumwatch"]["spans"] == 0
    assert "openinference: 3 spans, 2 recognised, 1 not" in shown.stdout
    assert "1 × no text under doc (the selector's source)" in shown.stdout
    assert "other: 1 spans, 0 recognised, 1 not" in shown.stdout


def _vercel_ai(call):
    """The Vercel AI SDK's generateText call span (ai.generateText.doGenerate): its content under ai.* keys."""
    from tests.monitor.scoring.chat_calls import MODEL

    messages = [{"role": "user", "content": [{"type": "text", "text": u}]} for u in call.users]
    # the SDK writes gen_ai.* names beside its own ai.* keys; the content is under ai.prompt.messages
    return {"gen_ai.operation.name": "chat", "ai.operationId": "ai.generateText.doGenerate",
            "operation.name": "ai.generateText.doGenerate", "ai.model.id": "gpt-4o-mini",
            "ai.model.provider": "openai.chat", "ai.prompt.format": "messages",
            "ai.prompt.messages": json.dumps(messages), "ai.response.text": call.answer,
            "ai.response.finishReason": "stop", "gen_ai.system": "openai.chat", "gen_ai.request.model": "gpt-4o-mini",
            "gen_ai.response.model": MODEL, "gen_ai.usage.input_tokens": "312", "gen_ai.usage.output_tokens": "41"}


def test_it_reports_each_service_apart_names_instrumentations_by_scope_and_blames_capture_only_when_off(
        cli_env, store):
    import time

    from tests.monitor.scoring.chat_calls import SUMMARIES, gen_ai_span_without_content, openllmetry, pydantic_ai_events

    now = time.time_ns()

    def span(i, service, scope, attributes):
        return (now - i * 10**9, f"{i:032x}", f"{i:016x}", "", "", "chat gpt-4o-mini", "Client", service,
                {"service.name": service}, scope, "1.0", attributes, 10, "Unset", "", (), (), (), (), (), (), ())

    store.insert_spans([span(1, "proxy", "litellm", openllmetry(SUMMARIES[0])),
                        span(2, "proxy", "litellm", openllmetry(SUMMARIES[1])),
                        span(3, "agent", "pydantic-ai", pydantic_ai_events(SUMMARIES[2])),
                        span(4, "web", "ai", _vercel_ai(SUMMARIES[3])),
                        span(5, "bot", "opentelemetry.instrumentation.openai_v2",
                             gen_ai_span_without_content(SUMMARIES[4]))])
    shown = doctor(cli_env)
    report = json.loads(doctor(cli_env, "--json").stdout)["recognition"]
    assert shown.exit_code == 0, shown.output
    rows = {(r["service"], r["instrumentation"]): r for r in report["rows"] if r["spans"]}
    assert set(rows) == {("proxy", "litellm"), ("agent", "pydantic-ai"), ("web", "vercel-ai"), ("bot", "gen_ai")}
    assert rows["proxy", "litellm"]["recognised"] == 2 and rows["agent", "pydantic-ai"]["recognised"] == 1
    capture_off = rows["bot", "gen_ai"]["reasons"]
    assert len(capture_off) == 1 and "content capture off" in capture_off[0]["reason"]
    # the Vercel AI SDK's span carries its text under ai.* keys, which the built-in rules read: never capture off
    web = rows["web", "vercel-ai"]
    assert (web["spans"], web["recognised"], web["reasons"]) == (1, 1, [])
    assert all("capture off" not in r["reason"] for r in web["reasons"])
    lines = shown.stdout.splitlines()
    sections = [line.strip() for line in lines if line.startswith("  service ")]
    assert sections == ["service agent:", "service bot:", "service proxy:", "service web:"]
    proxy = lines.index("  service proxy:")
    assert lines[proxy + 1].strip() == "litellm: 2 spans, 2 recognised, 0 not"

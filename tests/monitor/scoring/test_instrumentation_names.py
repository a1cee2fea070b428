"""The instrumentation a recognised call is shown under comes from its span's scope, then from the attributes
only one instrumentation writes, then from the convention its content was read in; `traces` and the trace page
show it."""

import json

import pytest
from starlette.testclient import TestClient
from typer.testing import CliRunner

from sumwatch.monitor.cli import app
from sumwatch.monitor.runtime import Runtime
from sumwatch.monitor.scoring.recognise import Recognised
from sumwatch.monitor.scoring.sampler import Sampler
from sumwatch.monitor.scoring.selectors import Selectors
from sumwatch.monitor.views.app import create_app
from tests.monitor.scoring.chat_calls import SUMMARIES, gen_ai, openinference, openllmetry, pydantic_ai_events

CALL = SUMMARIES[0]

SHAPES = {
    # newer OpenLLMetry writes the GenAI message attributes: its scope names it, not the convention
    "openllmetry, GenAI attributes": ("opentelemetry.instrumentation.openai.v1", gen_ai(CALL), "openllmetry"),
    "openllmetry, no scope": ("", {**gen_ai(CALL), "traceloop.workflow.name": "digest"}, "openllmetry"),
    "openllmetry, indexed prompts": ("opentelemetry.instrumentation.anthropic", openllmetry(CALL), "openllmetry"),
    # litellm's OpenTelemetry callback writes OpenLLMetry's indexed keys under its own scope
    "litellm callback": ("litellm", openllmetry(CALL), "litellm"),
    # Pydantic AI writes Logfire's message template beside the GenAI names, under its own scope
    "pydantic-ai agent": ("pydantic-ai", pydantic_ai_events(CALL), "pydantic-ai"),
    "pydantic-ai, no scope": ("", {**pydantic_ai_events(CALL), "model_request_parameters": "{}"}, "pydantic-ai"),
    # the OpenTelemetry contrib instrumentation is the GenAI convention itself
    "contrib openai-v2": ("opentelemetry.instrumentation.openai_v2", gen_ai(CALL), "gen_ai"),
    "openinference": ("openinference.instrumentation.openai", openinference(CALL), "openinference"),
    "an app's own scope": ("acme.billing", gen_ai(CALL), "gen_ai"),
}


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_the_scope_names_the_instrumentation_before_the_convention(shape):
    scope, attributes, expected = SHAPES[shape]
    found = Selectors().recognise("chat gpt-4o-mini", "bot", attributes, (), scope)
    assert isinstance(found, Recognised) and found.source == CALL.document
    assert found.instrumentation == expected


def test_a_span_no_convention_reads_is_named_by_none_whatever_its_scope():
    found = Selectors().recognise("GET /health", "bot", {"http.method": "GET"}, (), "litellm")
    assert found.instrumentation == ""


def _span(i, scope, attributes, service="bot"):
    return (1767225600 * 10**9 + i, f"{i:032x}", f"{i:016x}", "", "", "chat gpt-4o-mini", "Client", service,
            {"service.name": service}, scope, "1.0", attributes, 10, "Unset", "", (), (), (), (), (), (), ())


def test_traces_and_the_trace_page_name_the_instrumentation_of_the_scope(store, rules_cascade, cli_env, settings):
    store.insert_spans([_span(1, "litellm", openllmetry(CALL)),
                        _span(2, "pydantic-ai", pydantic_ai_events(SUMMARIES[1])),
                        _span(3, "opentelemetry.instrumentation.openai.v1", gen_ai(SUMMARIES[2]))])
    assert Sampler(store, rules_cascade).recognise_pending() == 3
    result = CliRunner().invoke(app, ["traces", "--json"], env=cli_env)
    assert result.exit_code == 0, result.output
    shown = {r["span_id"]: r["instrumentation"] for r in json.loads(result.stdout)}
    assert shown == {f"{1:016x}": "litellm", f"{2:016x}": "pydantic-ai", f"{3:016x}": "openllmetry"}
    page = TestClient(create_app(Runtime.build(settings, store)), base_url="http://localhost").get(f"/traces/{1:032x}")
    assert page.status_code == 200 and "recognised in this litellm span" in page.text
    assert "openllmetry" not in page.text

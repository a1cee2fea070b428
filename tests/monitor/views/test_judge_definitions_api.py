"""The judge definitions API: a broken candidate is a 400 with its one-line problem, before any action starts;
the test action runs without waiting and is polled like the others; `/api/judges` still answers agreement."""

import pytest
from fakes.judge_by_prompt import factuality_by_prompt, factuality_corpus
from fakes.openai_server import FakeOpenAI

from sumwatch.monitor.rubrics.definition import BUILTIN
from sumwatch.monitor.runtime import Runtime
from sumwatch.monitor.store.corpus import save_items
from sumwatch.monitor.views.app import create_app
from sumwatch.monitor.views.client import ApiClient, ClientError

pytestmark = pytest.mark.integration


@pytest.fixture
def client(store, settings):
    with FakeOpenAI(factuality_by_prompt) as fake:
        with_llm = settings.with_(llm_model="openai/judge-test", llm_api_base=fake.base_url, llm_api_key="k",
                                  embeddings=False, judge_mode="always")
        with ApiClient.in_process(create_app(Runtime.build(with_llm, store))) as api:
            yield api


def test_a_broken_definition_is_a_422_with_its_one_line_problem(client):
    broken = BUILTIN["factuality"].text.replace("[verdicts.correct]\npasses = true", "[verdicts.correct]\npasses = 1")
    for call in (client.judge_test, client.judge_promote):
        with pytest.raises(ClientError) as raised:
            call("factuality", broken, origin="mine.toml")
        assert raised.value.status == 422
        assert raised.value.reason == "mine.toml: verdicts.correct: passes and item_only are true or false"
    assert client._http.get("/api/actions/judge_test").status_code == 404  # refused before it started


def test_the_test_action_is_polled_and_reads_answer_as_records(client, store):
    save_items(store, factuality_corpus())
    edited = BUILTIN["factuality"].text.replace('version = "1"', 'version = "2"')
    started = client._http.post("/api/actions/judge_test", params={"wait": "false"},
                                json={"rubric": "factuality", "definition": edited})
    assert started.status_code == 202 and started.json()["action"] == "judge_test"
    state = started.json()
    while state["running"]:
        state = client._http.get("/api/actions/judge_test").json()
    assert state["error"] is None and state["result"]["gate"]["passed"] is True
    result = state["result"]
    assert result["items"] == 10 + 129  # with the packaged starter corpus, seeded as calibrate seeds it
    assert result["candidate"]["kappa"] == result["active"]["kappa"] and result["changed"] == []
    report = client.judge_test("factuality", edited)  # the client starts it without waiting and polls
    assert report.gate.passed and report.changed == [] and report.candidate_version.startswith("factuality@2~")
    assert client.judge_definition("factuality").shipped
    assert [r.rubric for r in client.judge_definitions()][:4] == list(BUILTIN)
    assert client.judge_agreement() == []  # GET /api/judges: the cheap tiers' agreement, as before
    assert client.judge_diff("factuality", "shipped", "shipped").diff == ""

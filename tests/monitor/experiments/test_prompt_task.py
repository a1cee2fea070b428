"""`sumwatch experiment run --prompt FILE --model M`: a prompt template through litellm to a loopback
OpenAI-compatible server, each call a span with the prompt's version."""

from __future__ import annotations

import json

import pytest
from fakes.openai_server import FakeOpenAI, answer
from typer.testing import CliRunner

from sumwatch.monitor.cli import app
from sumwatch.monitor.contract.datasets import DatasetItem
from sumwatch.monitor.datasets.versions import save_dataset
from sumwatch.tracer.otel_traces import TRACES_TABLE

pytestmark = pytest.mark.integration  # the loopback LLM server
runner = CliRunner()


def test_a_prompt_template_runs_on_the_model_as_the_task(cli_env, store, tmp_path):
    save_dataset(store, "notes", [DatasetItem(item_id=f"n{i}", source=f"Meeting {i}: the team shipped release {i}.",
                                              reference=f"Release {i} shipped.") for i in range(5)], origin="test")
    prompt = tmp_path / "digest.txt"
    prompt.write_text("Summarize in one sentence, like {reference}:\n{source}\nJSON like {\"a\": 1} stays as it is.")
    with FakeOpenAI(answer("The team shipped a release.")) as fake:
        env = {**cli_env, "SUMWATCH_EMBEDDINGS": "false", "SUMWATCH_LLM_API_BASE": fake.base_url,
               "SUMWATCH_LLM_API_KEY": "test-key"}
        result = runner.invoke(app, ["experiment", "run", "notes", "--prompt", str(prompt), "--model", "openai/house",
                                     "--name", "digest-v1", "--mode", "off", "--json"], env=env)
        assert result.exit_code == 0, result.output
        sent = [r.body["messages"][0]["content"] for r in fake.requests]
    body = json.loads(result.stdout)
    assert body["ran"] == 5 and not body["errors"]
    assert body["report"]["experiment"]["task"].startswith("prompt:digest.txt (digest@")
    assert sorted(sent)[0] == ("Summarize in one sentence, like Release 0 shipped.:\nMeeting 0: the team shipped "
                               "release 0.\nJSON like {\"a\": 1} stays as it is.")
    rows = store.query_rows(f"SELECT SpanAttributes['summarization.prompt.version'], SpanAttributes['output.value'], "
                            f"SpanAttributes['gen_ai.usage.input_tokens'] FROM {TRACES_TABLE} "
                            f"WHERE SpanAttributes['sumwatch.experiment.item'] != ''")
    assert len(rows) == 5 and all(r[0].startswith("digest@") and r[1] == "The team shipped a release." and int(r[2])
                                  for r in rows)


def test_prompt_mistakes_are_one_line(cli_env, store, tmp_path):
    save_dataset(store, "notes", [DatasetItem(item_id="n1", source="Text.")], origin="test")
    bare = tmp_path / "bare.txt"
    bare.write_text("Summarize this.")

    def run(*args: str) -> str:
        result = runner.invoke(app, ["experiment", "run", "notes", *args], env=cli_env)
        assert result.exit_code == 2, result.output
        return result.stderr.strip()

    assert run("--prompt", str(bare), "--model", "openai/x") == (
        f"error: --prompt: {bare} has no {{source}}: the template needs a place for the item's text")
    assert run("--prompt", str(bare)).startswith("error: --prompt needs --model")
    assert run("--prompt", str(tmp_path / "none.txt"), "--model", "openai/x") == (
        f"error: --prompt: no such file {tmp_path / 'none.txt'}")
    assert run("--task", "a:b", "--prompt", str(bare)) == (
        "error: give --task module:function, or --prompt FILE with --model (one of them)")

"""`sumwatch judges`: the cheap tiers against the LLM, from real LLM judgements over loopback."""

import json

import pytest
from fakes.openai_server import FakeOpenAI
from typer.testing import CliRunner

from sumwatch.monitor.cli import app
from sumwatch.monitor.demo.run import run_demo
from sumwatch.monitor.scoring.judges import build_cascade
from sumwatch.monitor.scoring.sampler import Sampler

runner = CliRunner()


@pytest.mark.integration
def test_agreement_per_rubric_route_and_finding(store, settings, cli_env):
    run_demo(store, n=8, seed=3)
    with FakeOpenAI() as fake:  # a competent fake judge
        with_llm = settings.with_(llm_model="openai/judge-test", llm_api_base=fake.base_url, llm_api_key="k",
                                  judge_audit_rate=1.0)
        cascade = build_cascade(with_llm, embeddings=False)
        Sampler.from_settings(store, cascade, with_llm).run_pass()
    llm_rows = store.query_rows("SELECT count() FROM sumwatch_scores FINAL WHERE Tier = 'llm'")[0][0]
    rows = json.loads(runner.invoke(app, ["judges", "--json"], env=cli_env).stdout)
    assert llm_rows == 32 and sum(r["judged"] for r in rows) == llm_rows  # audit rate 1: every pair asked
    assert {r["route"] for r in rows} <= {"suspicion", "unsure", "audit"} and "audit" in {r["route"] for r in rows}
    assert all(0 <= r["agreed"] <= r["judged"] and 0.0 <= r["agreement"] <= 1.0 for r in rows)
    shown = runner.invoke(app, ["judges"], env=cli_env)
    assert shown.exit_code == 0 and "cheap tiers against the LLM" in shown.stdout
    assert "32 LLM judgements" in shown.stdout


def test_no_llm_judgements_yet_says_what_to_do(store, cli_env):
    shown = runner.invoke(app, ["judges"], env=cli_env)
    assert shown.exit_code == 0 and "no LLM judgements yet" in shown.stdout

"""`sumwatch rescore` and `sample --all`: stored spans are judged again only when asked, after the command has
said how many spans and LLM requests that is, and asked."""

from __future__ import annotations

import json
import time

import pytest
from typer.testing import CliRunner

from sumwatch.monitor.cli import app
from sumwatch.monitor.demo.run import run_demo
from sumwatch.monitor.scoring.sampler import Sampler
from tests.fakes.openai_server import FakeOpenAI

runner = CliRunner()


def run(env, *args):
    return runner.invoke(app, list(args), env=env, catch_exceptions=False)


def with_llm(env, fake, mode="always"):
    base_url = fake if isinstance(fake, str) else fake.base_url
    return {**env, "SUMWATCH_LLM_MODEL": "openai/judge-test", "SUMWATCH_LLM_API_BASE": base_url,
            "SUMWATCH_LLM_API_KEY": "k", "SUMWATCH_JUDGE_MODE": mode, "SUMWATCH_EMBEDDINGS": "false"}


@pytest.mark.integration
def test_rescore_states_the_spans_and_requests_asks_and_judges_only_with_yes(cli_env, store, rules_cascade):
    run_demo(store, n=5, seed=21)
    Sampler(store, rules_cascade).run_pass()
    with FakeOpenAI() as fake:
        env = with_llm(cli_env, fake)
        # a new judge (an LLM added) judges no stored span by itself
        sampled = run(env, "sample")
        assert sampled.exit_code == 0 and "scored 0 spans" in sampled.stdout and not fake.requests

        looked = run(env, "rescore", "--rubric", "factuality", "--dry-run")
        assert looked.exit_code == 0, looked.output
        assert "rescore would judge: 5 spans (factuality)" in looked.stdout
        assert "about 5 LLM requests (at most 5; every pair, in always mode)" in looked.stdout
        assert "daily cap" in looked.stdout and not fake.requests

        refused = run(env, "rescore", "--rubric", "factuality")  # no terminal, no --yes
        assert refused.exit_code == 2 and not fake.requests
        assert "add --yes to go on without a terminal" in refused.stderr
        assert len(refused.stderr.strip().splitlines()) == 1

        done = run(env, "rescore", "--rubric", "factuality", "--yes", "--json")
        assert done.exit_code == 0, done.output
        report = json.loads(done.stdout)
        assert report["rescore"] and report["scored_spans"] == 5 and report["llm_requests"] == 5
        assert len(fake.requests) == 5

        again = run(env, "rescore", "--rubric", "factuality", "--dry-run", "--json")
        assert json.loads(again.stdout)["spans"] == 0  # judged by the current version: nothing left


def test_a_history_judged_offline_says_nothing_about_how_often_the_llm_is_asked(cli_env, store, rules_cascade):
    run_demo(store, n=24, seed=24)
    Sampler(store, rules_cascade).run_pass()  # 24 offline verdicts a rubric (20 make a history)
    env = with_llm(cli_env, "http://127.0.0.1:9/v1", "ambiguous")  # a dry run sends nothing: no server needed
    looked = run(env, "rescore", "--rubric", "groundedness", "--dry-run", "--json")
    assert looked.exit_code == 0, looked.output
    estimate = json.loads(looked.stdout)
    assert estimate["spans"] == 24 and estimate["llm_requests_max"] == 24
    assert estimate["llm_requests"] == 24 and estimate["basis"] == "no history yet: every pair counted"


def test_rescore_bad_values_are_one_line_and_exit_2(cli_env, store):
    for args, said in ((["--since", "soon"], "--since"), (["--rubric", "Bad Name"], "rubric"),
                       (["--service", " "], "--service")):
        result = run(cli_env, "rescore", *args, "--dry-run")
        assert result.exit_code == 2, result.output
        assert said in result.stderr and len(result.stderr.strip().splitlines()) == 1


@pytest.mark.integration
def test_sample_all_states_what_it_would_spend_and_asks_only_then(cli_env, store):
    run_demo(store, n=3, seed=22)
    offline = run(cli_env, "sample", "--all", "--mode", "off")  # spends nothing: says so, asks nothing
    assert offline.exit_code == 0, offline.output
    assert "no LLM requests (offline judges)" in offline.stdout and "scored 3 spans" in offline.stdout
    run_demo(store, n=2, seed=23)
    with FakeOpenAI() as fake:
        env = with_llm(cli_env, fake)
        refused = run(env, "sample", "--all")
        assert refused.exit_code == 2 and "add --yes" in refused.stderr and not fake.requests
        limited = run(env, "sample", "--all", "--limit", "1")  # the estimate counts what the pass would take
        assert limited.exit_code == 2 and "sample --all: 1 span (" in limited.stdout and not fake.requests
        done = run(env, "sample", "--all", "--yes")
        assert done.exit_code == 0 and "scored 2 spans" in done.stdout and fake.requests


def test_ingest_says_when_the_backfill_is_scored_and_the_next_pass_scores_it(cli_env, store, tmp_path):
    recent, old = tmp_path / "recent.jsonl", tmp_path / "old.jsonl"
    recent.write_text(json.dumps({"source": "Sales rose 4% in May, the retailer said.", "summary": "Sales rose 4%.",
                                  "timestamp": time.time()}) + "\n")
    old.write_text(json.dumps({"source": "Sales fell 3% in June, the retailer said.", "summary": "Sales fell 3%.",
                               "timestamp": "2025-06-30T10:00:00Z"}) + "\n")
    assert run(cli_env, "ingest", str(recent)).exit_code == 0
    assert "scored 1 spans" in run(cli_env, "sample", "--mode", "off").stdout  # the mark is now past 2025
    said = run(cli_env, "ingest", str(old))
    assert said.exit_code == 0, said.output
    assert "the next sampler pass scores them" in said.stdout and "whatever their timestamps" in said.stdout
    scored = run(cli_env, "sample", "--mode", "off")
    assert "scored 1 spans" in scored.stdout  # the year-old span, by its arrival

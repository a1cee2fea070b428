"""`sumwatch send-scores` in process (through the API route, as every command goes), and the worker sending after
each sampler pass without ever failing it."""

import json

import pytest
from fakes.score_targets import PHOENIX_KEY, Fault
from typer.testing import CliRunner

from sumwatch.monitor.cli import app
from sumwatch.monitor.demo.run import run_demo
from sumwatch.monitor.jobs.worker import SAMPLER_JOB, Worker
from sumwatch.monitor.runtime import Runtime
from sumwatch.monitor.scoring.judges import build_cascade
from sumwatch.monitor.store.score_sends import FAILED, SENT, load_sends

pytestmark = pytest.mark.integration

NEVER = "0 0 1 1 *"


def _scored(store, settings, n=3):
    """``n`` demo spans scored by the rules (4 rubrics each)."""
    from sumwatch.monitor.scoring.sampler import Sampler

    run_demo(store, n=n)
    Sampler.from_settings(store, build_cascade(settings.with_(embeddings=False), mode="off"), settings).run_pass()


def test_send_scores_sends_once_and_prints_json(store, settings, targets, cli_env):
    _scored(store, settings)
    env = {**cli_env, **targets.env()}
    first = CliRunner().invoke(app, ["send-scores", "--to", "langfuse", "--to", "phoenix", "--json"], env=env)
    assert first.exit_code == 0, first.output
    assert [(r["target"], r["sent"], r["failed"]) for r in json.loads(first.stdout)] == [
        ("langfuse", 12, 0), ("phoenix", 12, 0)]
    assert len(targets.langfuse) == 12 and len(targets.phoenix) == 12 and not targets.problems
    again = CliRunner().invoke(app, ["send-scores", "--json"], env=env)  # every configured target
    assert [(r["target"], r["sent"]) for r in json.loads(again.stdout)] == [
        ("otlp", 12), ("langfuse", 0), ("phoenix", 0)]
    assert len(targets.otlp) == 12 and targets.langfuse_posts == 1 and targets.langfuse_events == 12


def test_given_up_verdicts_are_counted_and_sent_again_when_asked(store, settings, targets, cli_env):
    _scored(store, settings, n=1)
    env = {**cli_env, **targets.env()}
    targets.langfuse_refuse = lambda score: (400, "score config mismatch") if score["name"] == "factuality" else None
    refused = CliRunner().invoke(app, ["send-scores", "--to", "langfuse"], env=env)
    assert refused.exit_code == 1 and "score config mismatch" in refused.stdout
    assert "1 verdicts given up" in refused.stdout and "--retry-given-up" in refused.stdout
    quiet = CliRunner().invoke(app, ["send-scores", "--to", "langfuse", "--json"], env=env)
    assert [(r["sent"], r["failed"], r["given_up"]) for r in json.loads(quiet.stdout)] == [(0, 0, 1)]
    targets.langfuse_refuse = None
    again = CliRunner().invoke(app, ["send-scores", "--to", "langfuse", "--retry-given-up", "--json"], env=env)
    assert again.exit_code == 0, again.output
    assert [(r["sent"], r["given_up"]) for r in json.loads(again.stdout)] == [(1, 0)] and len(targets.langfuse) == 4


def test_dry_run_prints_the_first_request_and_sends_nothing(store, settings, targets, cli_env):
    _scored(store, settings, n=1)
    dry = CliRunner().invoke(app, ["send-scores", "--to", "phoenix", "--dry-run"], env={**cli_env, **targets.env()})
    assert dry.exit_code == 0, dry.output
    assert "would send 4 verdicts" in dry.stdout and '"annotator_kind"' in dry.stdout and not targets.calls
    assert dry.stdout.startswith("phoenix for every service: would send 4 verdicts")
    # the services SUMWATCH_SCORES_SERVICES chose are said, and a target with nothing to send prints no request
    other = CliRunner().invoke(app, ["send-scores", "--to", "phoenix", "--dry-run"],
                               env={**cli_env, **targets.env(), "SUMWATCH_SCORES_SERVICES": "phoenix=checkout"})
    assert other.exit_code == 0, other.output
    assert other.stdout.strip() == "phoenix for checkout (SUMWATCH_SCORES_SERVICES): would send 0 verdicts"
    sent = CliRunner().invoke(app, ["send-scores", "--to", "phoenix"],
                              env={**cli_env, **targets.env(), "SUMWATCH_SCORES_SERVICES": "phoenix=checkout"})
    assert "checkout (SUMWATCH_SCORES_SERVICES)" in sent.stdout and not targets.calls


def test_a_failed_send_exits_1_with_a_scrubbed_reason(store, settings, targets, cli_env):
    _scored(store, settings, n=1)
    targets.fault = lambda target: Fault(503, echo=True)
    env = {**cli_env, **targets.env(), "SUMWATCH_EXPORT_MAX_ATTEMPTS": "2"}
    failed = CliRunner().invoke(app, ["send-scores", "--to", "phoenix"], env=env)
    assert failed.exit_code == 1 and "503" in failed.stdout and PHOENIX_KEY not in failed.output


def test_bad_input_is_one_line(store, cli_env, targets):
    def run(*args, **env):
        result = CliRunner().invoke(app, ["send-scores", *args], env={**cli_env, **env})
        assert result.exit_code == 2 and "Traceback" not in result.output, result.output
        [line] = [x for x in result.stderr.splitlines() if x.strip()]
        return line

    assert run().startswith("error: no score target is configured")
    assert run("--to", "datadog") == "error: --to must be one of otlp, langfuse, phoenix, got 'datadog'"
    assert run("--to", "langfuse", SUMWATCH_LANGFUSE_HOST="https://cloud.langfuse.com").startswith(
        "error: langfuse: set SUMWATCH_LANGFUSE_PUBLIC_KEY and SUMWATCH_LANGFUSE_SECRET_KEY")
    assert run("--since", "later", **targets.env()).startswith("error: --since: a duration")
    assert run(SUMWATCH_SCORES_VERDICTS="sometimes").startswith("error: SUMWATCH_SCORES_VERDICTS entry 'sometimes'")


def test_the_worker_sends_after_each_pass_and_a_failure_never_fails_the_pass(store, settings, targets):
    run_demo(store, n=3)
    cascade = build_cascade(settings.with_(embeddings=False), mode="off")
    targets.fault = lambda target: Fault(503)
    config = targets.config(scores_targets="phoenix", export_max_attempts=2)
    worker = Worker(Runtime.build(settings.with_(cluster_cron=NEVER), store, exports=config), cascade=cascade)
    worker._run_sampler()
    stats = worker.stats[SAMPLER_JOB]
    assert stats.failures == 0 and "scored 3 spans" in stats.last_summary
    assert "scores to phoenix: 0 sent, 12 failed" in stats.last_summary
    assert {r.phase for r in load_sends(store, "phoenix")} == {FAILED} and not targets.phoenix
    targets.fault = None
    worker._run_sampler()  # nothing new to score: the failed sends go again
    assert "scores to phoenix: 12 sent" in worker.stats[SAMPLER_JOB].last_summary
    assert {r.phase for r in load_sends(store, "phoenix")} == {SENT} and len(targets.phoenix) == 12


def test_the_worker_refuses_to_start_with_a_bad_score_target(store, settings, targets):
    cascade = build_cascade(settings.with_(embeddings=False), mode="off")
    with pytest.raises(ValueError, match="unknown score target 'datadog'"):
        Worker(Runtime.build(settings.with_(cluster_cron=NEVER), store,
                             exports=targets.config(scores_targets="datadog")), cascade=cascade)

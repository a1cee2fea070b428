"""`sumwatch export` in process against the fake trackers, the HTTP route behind the API token, and the worker's
rules after a clustering run."""

import json

import httpx
from typer.testing import CliRunner

from sumwatch.monitor.cli import app
from sumwatch.monitor.settings import reveal


def _env(cli_env, fake, tmp_path, **more):
    config = fake.config(markdown_dir=str(tmp_path))
    env = {**cli_env, "SUMWATCH_GITHUB_TOKEN": reveal(config.github_token), "SUMWATCH_GITHUB_REPO": config.github_repo,
           "SUMWATCH_GITHUB_API_URL": config.github_api_url, "SUMWATCH_JIRA_URL": config.jira_url,
           "SUMWATCH_JIRA_EMAIL": config.jira_email, "SUMWATCH_JIRA_TOKEN": reveal(config.jira_token),
           "SUMWATCH_JIRA_PROJECT": "OPS", "SUMWATCH_PUBLIC_URL": "https://sumwatch.example.com",
           "SUMWATCH_EXPORT_BACKOFF_S": "0.001"}
    return {**env, **more}


def test_export_by_id_prints_json_and_a_second_run_updates(issues, fake, tmp_path, cli_env):
    env = _env(cli_env, fake, tmp_path)
    first = CliRunner().invoke(app, ["export", "SW-1", "--to", "github", "--json"], env=env)
    assert first.exit_code == 0, first.output
    (item,) = json.loads(first.stdout)
    assert (item["target"], item["issue_id"], item["action"], item["external_id"]) == ("github", "SW-1", "created", "1")
    assert item["url"] == "https://github.com/acme/summaries/issues/1"
    second = json.loads(CliRunner().invoke(app, ["export", "SW-1", "--to", "github", "--json"], env=env).stdout)
    assert second[0]["action"] == "updated" and len(fake.github) == 1


def test_export_by_filters_and_dry_run(issues, fake, tmp_path, cli_env):
    env = _env(cli_env, fake, tmp_path)
    dry = CliRunner().invoke(app, ["export", "--status", "new,regressed", "--min-severity", "high", "--to", "jira",
                                   "--dry-run"], env=env)
    assert dry.exit_code == 0 and "SW-1" in dry.stdout and "SW-2" not in dry.stdout and '"type": "doc"' in dry.stdout
    assert not fake.requests
    done = CliRunner().invoke(app, ["export", "--status", "new,ongoing", "--min-severity", "low", "--to", "jira",
                                    "--json"], env=env)
    assert sorted(d["issue_id"] for d in json.loads(done.stdout)) == ["SW-1", "SW-2"] and len(fake.jira) == 2


def test_missing_settings_and_bad_values_are_one_line_each(issues, cli_env, fake, tmp_path):
    missing = CliRunner().invoke(app, ["export", "SW-1", "--to", "linear"], env=cli_env)
    assert missing.exit_code == 2 and "Traceback" not in missing.output
    lines = [line for line in missing.stderr.splitlines() if line.strip()]
    assert lines == ["error: SUMWATCH_LINEAR_API_KEY is not set (needed for --to linear)",
                     "error: SUMWATCH_LINEAR_TEAM is not set (needed for --to linear)"]
    unknown = CliRunner().invoke(app, ["export", "SW-1", "--to", "trello"], env=cli_env)
    assert unknown.exit_code == 2
    assert "--to must be one of github, linear, jira, markdown, slack, webhook, got 'trello'" in unknown.stderr
    bad = CliRunner().invoke(app, ["export", "SW-1", "--to", "github"],
                             env=_env(cli_env, fake, tmp_path, SUMWATCH_EXPORT_MAX_ATTEMPTS="many"))
    assert bad.exit_code == 2 and bad.stderr.strip() == "error: SUMWATCH_EXPORT_MAX_ATTEMPTS must be an integer, " \
                                                        "got 'many'"
    gone = CliRunner().invoke(app, ["export", "SW-9", "--to", "github"], env=_env(cli_env, fake, tmp_path))
    assert gone.exit_code == 1 and "no issue SW-9" in gone.stderr


def test_a_refused_export_exits_1_and_shows_the_reason_without_the_token(issues, fake, tmp_path, cli_env):
    from fakes.trackers import GITHUB_TOKEN, Fault

    fake.fault = lambda target, op: Fault(401)
    result = CliRunner().invoke(app, ["export", "SW-1", "--to", "github"], env=_env(cli_env, fake, tmp_path))
    assert result.exit_code == 1 and "401" in result.stdout and GITHUB_TOKEN not in result.output


def test_the_export_route_wants_the_api_token_and_exports(issues, fake, tmp_path, settings):
    from served import serve

    secured = settings.with_(api_token="route-token-123")
    server = serve(secured, issues, export_config=fake.config(markdown_dir=str(tmp_path)))
    try:
        url = server.endpoint + "/api/issues/SW-1/export"
        assert httpx.post(url, json={"to": "github"}, timeout=10).status_code == 401
        answer = httpx.post(url, json={"to": "github"}, headers={"authorization": "Bearer route-token-123"},
                            timeout=10)
        assert answer.status_code == 200 and answer.json()["results"][0]["action"] == "created"
        listed = httpx.get(server.endpoint + "/api/issues/SW-1/exports",
                           headers={"authorization": "Bearer route-token-123"}, timeout=10).json()["exports"]
        assert [(e["target"], e["external_id"], e["phase"]) for e in listed] == [("github", "1", "synced")]
        bad = httpx.post(url, json={"to": "trello"}, headers={"authorization": "Bearer route-token-123"}, timeout=10)
        assert bad.status_code == 400 and "to must be one of 'github'" in bad.json()["error"]
        missing = httpx.post(server.endpoint + "/api/issues/SW-9/export", json={"to": "github"},
                             headers={"authorization": "Bearer route-token-123"}, timeout=10)
        assert missing.status_code == 404
        batch = server.endpoint + "/api/exports"
        token = {"authorization": "Bearer route-token-123"}
        assert httpx.post(batch, json={"to": "github"}, timeout=10).status_code == 401
        planned = httpx.post(batch, json={"to": "github", "statuses": ["new", "regressed"], "min_severity": "high",
                                          "dry_run": True}, headers=token, timeout=10)
        assert planned.status_code == 200
        assert [(r["issue_id"], r["action"]) for r in planned.json()["results"]] == [("SW-1", "would-update")]
        for body, says in (({"to": "github", "statuses": ["sleeping"]}, "statuses[0] must be one of 'new'"),
                           ({"to": "github", "min_severity": "huge"}, "min_severity must be one of 'low'"),
                           ({"to": "github", "min_traces": -1}, "min_traces must be at least 0"),
                           ({"to": "github", "issue_ids": ["SW-x"]}, "an issue id looks like"),
                           ({"to": "github", "colour": "red"}, "unknown field colour"), ([], "the body must be")):
            refused = httpx.post(batch, json=body, headers=token, timeout=10)
            assert refused.status_code == 400 and says in refused.json()["error"], (body, refused.text)
    finally:
        server.stop()


def test_the_worker_refuses_rules_it_cannot_run(store, settings, rules_cascade):
    import pytest

    from sumwatch.monitor.exports.config import ExportConfig
    from sumwatch.monitor.jobs.worker import Worker
    from sumwatch.monitor.runtime import Runtime

    with pytest.raises(ValueError, match="SUMWATCH_GITHUB_TOKEN is not set"):
        Worker(Runtime.build(settings, store, exports=ExportConfig(export_targets="github")), cascade=rules_cascade,
               clusterer=object())


def test_the_worker_exports_by_its_rules_after_each_clustering_run(issues, fake, tmp_path, settings, rules_cascade,
                                                                    monkeypatch):
    from types import SimpleNamespace

    from sumwatch.monitor.issues import job as clustering_job
    from sumwatch.monitor.jobs import worker as worker_module
    from sumwatch.monitor.runtime import Runtime

    report = SimpleNamespace(failures=10, issues=[1, 2], new_issues=1, resolved=[], promoted=0, run_id="run-1",
                             seconds=0.1)
    monkeypatch.setattr(clustering_job, "run_clustering", lambda *a, **k: report)
    config = fake.config(markdown_dir=str(tmp_path), export_targets="markdown", alert_targets="slack")
    jobs = worker_module.Worker(Runtime.build(settings, issues, exports=config), cascade=rules_cascade,
                                clusterer=object())
    jobs._run_clustering()
    summary = jobs.stats["clustering"].last_summary
    assert "exports: 2 sent" in summary, summary
    assert (tmp_path / "SW-1.md").is_file() and not (tmp_path / "SW-2.md").exists()  # SW-2 is low and ongoing
    assert len(fake.slack) == 1


def test_export_without_ids_or_statuses_takes_every_open_issue(issues, fake, tmp_path, cli_env, runs, issue):
    runs(2, [issue(1, "ongoing"), issue(2, "resolved", members=0), issue(3, "regressed", "low")])
    done = CliRunner().invoke(app, ["export", "--to", "markdown", "--json"],
                              env={**cli_env, "SUMWATCH_MARKDOWN_DIR": str(tmp_path)})
    assert done.exit_code == 0, done.output
    assert sorted(d["issue_id"] for d in json.loads(done.stdout)) == ["SW-1", "SW-3"]
    assert sorted(p.name for p in tmp_path.glob("SW-*.md")) == ["SW-1.md", "SW-3.md"]

"""The command line, run in-process (it shares the test's embedded engine) with --json for scripts."""

import json

import pytest
from typer.testing import CliRunner

from sumwatch.monitor.cli import app

runner = CliRunner()


def run(env, *args):
    result = runner.invoke(app, list(args), env=env, catch_exceptions=False)
    return result


def ingest_sample(env, tmp_path, n=3):
    path = tmp_path / "sample.jsonl"
    path.write_text("\n".join(json.dumps({
        "source": f"Shipments rose {10 + i}% in May after the port reopened on May {i + 2}.",
        "summary": f"May shipments up {10 + i}%.", "band": "tldr", "domain": "logistics",
        "document_id": f"doc-{i}", "timestamp": f"2026-05-0{i + 1}T10:00:00Z"}) for i in range(n)) + "\nbad\n")
    return run(env, "ingest", str(path), "--json")


def test_db_migrate_json_reports_version(cli_env, store):
    result = run(cli_env, "db", "migrate", "--json")
    assert result.exit_code == 0
    from sumwatch.monitor.store.migrations import MIGRATIONS

    latest = max(m.version for m in MIGRATIONS)
    assert json.loads(result.stdout) == {"applied": [], "version": latest, "database": cli_env["SUMWATCH_DATABASE"]}


def test_ingest_json_lists_skipped_lines(cli_env, store, tmp_path):
    result = ingest_sample(cli_env, tmp_path)
    assert result.exit_code == 1  # a line was skipped (--allow-partial accepts that)
    report = json.loads(result.stdout)
    assert report["stored"] == 3
    assert report["skipped"] == [{"line": 4, "reason": report["skipped"][0]["reason"]}]
    assert "not valid JSON" in report["skipped"][0]["reason"]


def test_traces_json_is_one_array_newest_first(cli_env, store, tmp_path):
    ingest_sample(cli_env, tmp_path)
    result = run(cli_env, "traces", "--json", "--limit", "2")
    assert result.exit_code == 0
    rows = json.loads(result.stdout)
    assert isinstance(rows, list) and len(rows) == 2
    assert [r["document_id"] for r in rows] == ["doc-2", "doc-1"]
    assert rows[0]["summary_preview"] == "May shipments up 12%."
    assert rows[0]["source_words"] == 12 and rows[0]["band"] == "tldr"


def test_traces_table_and_show(cli_env, store, tmp_path):
    ingest_sample(cli_env, tmp_path, n=1)
    table = run(cli_env, "traces")
    assert table.exit_code == 0 and "May shipments up 10%." in table.stdout
    trace_id = json.loads(run(cli_env, "traces", "--json").stdout)[0]["trace_id"]
    assert trace_id in table.stdout
    shown = run(cli_env, "traces", "show", trace_id, "--json")
    assert shown.exit_code == 0
    (span,) = json.loads(shown.stdout)
    assert span["trace_id"] == trace_id
    assert span["attributes"]["input.value"].startswith("Shipments rose 10%")
    assert span["attributes"]["summarization.document.id"] == "doc-0"
    human = run(cli_env, "traces", "show", trace_id)
    assert "summarization.source.sha256" in human.stdout


@pytest.mark.parametrize("args,code,message", [
    (("traces", "show", "xyz"), 2, "trace id must be 32 hex characters"),
    (("traces", "show", "0" * 32), 1, "no trace"),
    (("ingest", "/nonexistent/file.jsonl"), 2, "no such file"),
])
def test_errors_are_plain_messages_with_exit_codes(cli_env, store, args, code, message):
    result = run(cli_env, *args)
    assert result.exit_code == code
    assert message in result.stderr


def test_empty_store_says_how_to_get_data(cli_env, store):
    result = run(cli_env, "traces")
    assert result.exit_code == 0 and "sumwatch demo" in result.stdout
    assert json.loads(run(cli_env, "traces", "--json").stdout) == []


def test_bad_setting_is_reported(cli_env, store):
    result = run({**cli_env, "SUMWATCH_PORT": "eighty"}, "traces")
    assert result.exit_code == 2 and "SUMWATCH_PORT (--port) must be an integer" in result.stderr


def test_ddl_renders_cluster_statements_without_a_database():
    result = run({}, "db", "ddl", "--cluster", "prod")
    assert result.exit_code == 0
    assert "ON CLUSTER `prod`" in result.stdout and "ENGINE = Distributed(`prod`" in result.stdout


@pytest.mark.integration
@pytest.mark.slow
def test_demo_runs_the_whole_loop(cli_env, store):
    result = run(cli_env, "demo", "--n", "50", "--json")
    assert result.exit_code == 0
    report = json.loads(result.stdout)
    assert report["generated"] == report["stored"] == 50
    assert report["scoring"]["scored"] == 50
    clustering = report["clustering"]
    assert clustering["failures"] > 0 and clustering["issues"] and clustering["promoted"] > 0
    assert report["by_mode"]["none"] == 20  # 40% good, 6% per planted mode
    assert sum(report["by_mode"].values()) == 50 and len(report["by_mode"]) == 11
    listed = json.loads(run(cli_env, "traces", "--json", "--limit", "100").stdout)
    assert len(listed) == 50
    assert {r["domain"] for r in listed} == {"finance", "healthcare", "meetings", "news", "technology"}
    (span,) = json.loads(run(cli_env, "traces", "show", listed[0]["trace_id"], "--json").stdout)
    attrs = span["attributes"]
    assert attrs["sumwatch.demo.planted_mode"] in report["by_mode"]
    assert attrs["gen_ai.request.model"] == "demo-summarizer-1"
    assert int(attrs["summarization.source.word_count"]) >= 200


def test_sample_and_scores_json(cli_env, store):
    env = {**cli_env, "SUMWATCH_EMBEDDINGS": "false"}
    run(env, "demo", "--n", "8", "--no-score")
    sampled = run(env, "sample", "--json")
    assert sampled.exit_code == 0, sampled.stderr
    report = json.loads(sampled.stdout)
    assert report["scored_spans"] == 8 and report["score_rows"] == 32
    assert report["judge_version"].startswith("cascade-3/")
    assert json.loads(run(env, "sample", "--json").stdout)["scored_spans"] == 0
    listed = json.loads(run(env, "scores", "--json", "--limit", "100").stdout)
    assert len(listed) == 32 and {r["rubric"] for r in listed} == {"groundedness", "completeness", "factuality",
                                                                   "conciseness"}
    failing = json.loads(run(env, "scores", "--failing", "--json").stdout)
    assert all(not r["passed"] for r in failing)
    one = json.loads(run(env, "scores", "--trace", listed[0]["trace_id"], "--json").stdout)
    assert len(one) == 4
    bad = run(env, "sample", "--shard", "3/2")
    assert bad.exit_code == 2 and "--shard must be i/N" in bad.stderr
    bad_mode = run(env, "sample", "--mode", "always")
    assert bad_mode.exit_code == 2 and "needs an LLM" in bad_mode.stderr

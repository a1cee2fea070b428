"""`sumwatch config`: every setting in force with where its value came from; a secret never shows."""

import json

from typer.testing import CliRunner

from sumwatch.monitor.cli import app

runner = CliRunner()


def rows(env, *args):
    result = runner.invoke(app, ["config", "--json", *args], env=env, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return {row["name"]: row for row in json.loads(result.stdout)}


def test_each_value_says_whether_a_flag_the_environment_or_the_default_gave_it(tmp_path):
    env = {"SUMWATCH_PORT": "4400", "SUMWATCH_HOME": ""}
    found = rows(env, "--home", str(tmp_path))
    assert found["home"]["value"] == str(tmp_path) and found["home"]["source"] == "flag --home"
    assert found["port"]["value"] == 4400 and found["port"]["source"] == "environment"
    assert found["port"]["variable"] == "SUMWATCH_PORT" and found["port"]["flag"] == "--port"
    assert found["sample_rate"]["value"] == 1.0 and found["sample_rate"]["source"] == "default"
    assert found["cluster"]["variable"] == "SUMWATCH_CLICKHOUSE_CLUSTER"  # a variable named apart from its field
    # each row says what the setting does, the rule its value follows and its default
    assert found["port"]["rule"] == "0 to 65535" and found["port"]["default"] == 4318
    assert found["port"]["description"].startswith("The port the server")
    assert found["home"]["default"] == ".sumwatch" and found["judge_mode"]["default"] is None


def test_a_secret_shows_as_set_and_a_url_without_its_password(tmp_path):
    env = {"SUMWATCH_LLM_API_KEY": "sk-very-secret", "SUMWATCH_HOME": str(tmp_path)}
    result = runner.invoke(app, ["config", "--db", "http://ops:hunter2@db.internal:8123"], env=env,
                           catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert "sk-very-secret" not in result.output and "hunter2" not in result.output
    found = rows(env, "--db", "http://ops:hunter2@db.internal:8123")
    assert found["llm_api_key"] == found["llm_api_key"] | {"value": "(set)", "source": "environment", "secret": True}
    assert found["github_token"]["value"] is None
    assert found["llm_api_key"]["default"] is None and found["clickhouse_url"]["default"] is None
    assert found["clickhouse_url"]["value"] == "http://ops:***@db.internal:8123"


def test_set_and_concern_narrow_the_rows(tmp_path):
    env = {"SUMWATCH_JUDGE_AUDIT_RATE": "0.2", "SUMWATCH_HOME": str(tmp_path)}
    assert set(rows(env, "--set")) == {"judge_audit_rate", "home"}
    judge = rows(env, "--concern", "judge")
    assert "judge_audit_rate" in judge and "port" not in judge
    assert {row["concern"] for row in judge.values()} == {"judge"}


def test_a_bad_concern_or_value_is_one_line(tmp_path):
    result = runner.invoke(app, ["config", "--concern", "llm"], env={"SUMWATCH_HOME": str(tmp_path)})
    assert result.exit_code == 2
    assert result.stderr.strip() == ("error: --concern must be one of store, receiver, judge, sampler, clustering, "
                                     "exports, got 'llm'")
    result = runner.invoke(app, ["config"], env={"SUMWATCH_PORT": "many", "SUMWATCH_HOME": str(tmp_path)})
    assert result.exit_code == 2
    assert len(result.stderr.strip().splitlines()) == 1 and "SUMWATCH_PORT" in result.stderr

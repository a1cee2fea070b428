"""Settings: read once from the environment, flags win, every value checked when the settings load."""

import re
from pathlib import Path

import pytest

from sumwatch.monitor.settings import Settings, SettingsError, crontab_fields, parse_duration

ROOT = Path(__file__).resolve().parents[2]


def test_defaults_load_from_an_empty_environment():
    s = Settings.from_env(env={})
    assert (s.port, s.database, s.judge_mode, s.cluster_namer, s.cluster_cron) == (4318, "otel", None, "auto",
                                                                                   "*/30 * * * *")
    assert s.is_embedded and s.url.startswith("chdb://")


def test_each_variable_is_named_after_its_field_and_parsed_to_the_fields_type():
    env = {"SUMWATCH_PORT": "4319", "SUMWATCH_SAMPLE_RATE": "0.25", "SUMWATCH_EVAL_EVENTS": "yes",
           "SUMWATCH_LLM_MAX_SPEND_USD": "1.5", "SUMWATCH_JUDGE_MODE": "always", "SUMWATCH_HOME": "/tmp/sw",
           "SUMWATCH_CLICKHOUSE_CLUSTER": "prod", "SUMWATCH_CLUSTER_NAMER": "keywords",
           "SUMWATCH_SERVICE_RATES": "checkout=0.1, support=1", "SUMWATCH_SPAN_FILTER": "span_name=Chat,attr:a.b=c"}
    s = Settings.from_env(env=env)
    assert (s.port, s.sample_rate, s.eval_events, s.llm_max_spend_usd, s.judge_mode) == (4319, 0.25, True, 1.5,
                                                                                          "always")
    assert s.home == Path("/tmp/sw") and s.cluster == "prod" and s.cluster_namer == "keywords"
    assert s.service_rate_map() == {"checkout": 0.1, "support": 1.0}
    assert s.span_filters() == (("span_name", "Chat"), ("attr:a.b", "c"))
    assert Settings.env_var("cluster") == "SUMWATCH_CLICKHOUSE_CLUSTER"
    assert Settings.env_var("llm_timeout_s") == "SUMWATCH_LLM_TIMEOUT_S"


def test_flags_override_the_environment_and_none_means_not_given():
    s = Settings.from_env(env={"SUMWATCH_PORT": "4319", "SUMWATCH_HOST": "0.0.0.0"}, port=9000, host=None)
    assert s.port == 9000 and s.host == "0.0.0.0"
    with pytest.raises(TypeError, match="unknown settings: colour"):
        Settings.from_env(env={}, colour="red")


@pytest.mark.parametrize("env, message", [
    ({"SUMWATCH_JUDGE_MODE": "sometimes"}, "SUMWATCH_JUDGE_MODE must be one of off, ambiguous, always, got 'some"),
    ({"SUMWATCH_CLUSTER_NAMER": "gpt"}, "SUMWATCH_CLUSTER_NAMER must be one of auto, llm, keywords, got 'gpt'"),
    ({"SUMWATCH_CLUSTER_WINDOW": "3x"}, "SUMWATCH_CLUSTER_WINDOW (--window) must be a positive duration"),
    ({"SUMWATCH_CLUSTER_WINDOW": "0h"}, "SUMWATCH_CLUSTER_WINDOW (--window) must be a positive duration"),
    ({"SUMWATCH_CLUSTER_CRON": "every half hour"}, "SUMWATCH_CLUSTER_CRON (--cron) 'every half hour' is not a 5-field"),
    ({"SUMWATCH_CLUSTER_CRON": "61 * * * *"}, "minute '61' in '61' is not 0-59"),
    ({"SUMWATCH_CLUSTER_CRON": "0 0 * * 8"}, "weekday '8' in '8' is not 0-7 or sun-sat"),
    ({"SUMWATCH_CLUSTER_CRON": "0 0 * * 5-1"}, "weekday range '5-1' in '5-1' runs backwards"),
    ({"SUMWATCH_CLUSTER_CRON": "0 0 32 * *"}, "day '32' in '32' is not 1-31"),
    ({"SUMWATCH_CLUSTER_CRON": "*/0 * * * *"}, "minute step '0' in '*/0' is not a positive number"),
    ({"SUMWATCH_SAMPLE_RATE": "1.5"}, "SUMWATCH_SAMPLE_RATE must be a share between 0 and 1, got 1.5"),
    ({"SUMWATCH_CLUSTER_MATCH_THRESHOLD": "-0.1"}, "SUMWATCH_CLUSTER_MATCH_THRESHOLD must be a similarity between"),
    ({"SUMWATCH_SERVICE_RATES": "checkout=2"}, "SUMWATCH_SERVICE_RATES entry 'checkout=2' must be service=rate"),
    ({"SUMWATCH_SERVICE_RATES": "checkout"}, "SUMWATCH_SERVICE_RATES entry 'checkout' must be service=rate"),
    ({"SUMWATCH_SPAN_FILTER": "model=gpt"}, "SUMWATCH_SPAN_FILTER has a bad span filter 'model=gpt'"),
    ({"SUMWATCH_PORT": "eighty"}, "SUMWATCH_PORT (--port) must be an integer, got 'eighty'"),
    ({"SUMWATCH_PORT": "70000"}, "SUMWATCH_PORT (--port) must be a port number between 0 and 65535, got 70000"),
    ({"SUMWATCH_LLM_TIMEOUT_S": "0"}, "SUMWATCH_LLM_TIMEOUT_S must be a positive number of seconds of at most 100"),
    ({"SUMWATCH_SAMPLER_INTERVAL_S": "1e300"}, "SUMWATCH_SAMPLER_INTERVAL_S (--interval) must be a positive number of "
                                               "seconds of at most 100 years (3153600000), got 1e+300"),
    ({"SUMWATCH_SAMPLER_BATCH_PAUSE_S": "-1"}, "SUMWATCH_SAMPLER_BATCH_PAUSE_S must be a number of seconds of at most"),
    ({"SUMWATCH_SAMPLE_BATCH": "0"}, "SUMWATCH_SAMPLE_BATCH must be a positive number of spans, got 0"),
    ({"SUMWATCH_EMBEDDINGS": "maybe"}, "SUMWATCH_EMBEDDINGS must be true or false, got 'maybe'"),
    ({"SUMWATCH_DATABASE": " "}, "SUMWATCH_DATABASE must be a database name"),
])
def test_a_bad_value_is_one_error_naming_its_variable(env, message):
    with pytest.raises(SettingsError) as caught:
        Settings.from_env(env=env)
    assert message in str(caught.value) and "\n" not in str(caught.value)


def test_values_given_as_flags_or_changes_are_checked_too():
    with pytest.raises(SettingsError, match=r"SUMWATCH_SAMPLER_INTERVAL_S \(--interval\) must be a positive"):
        Settings.from_env(env={}, sampler_interval_s=0.0)
    with pytest.raises(SettingsError, match=r"SUMWATCH_CLUSTER_CRON \(--cron\) '\*/30 \* \* \*' is not"):
        Settings.from_env(env={}).with_(cluster_cron="*/30 * * *")


def test_crontab_weekdays_are_written_as_names_counting_from_sunday():
    assert crontab_fields("0 9 * * 1-5") == ("0", "9", "*", "*", "mon,tue,wed,thu,fri")
    assert crontab_fields("0 0 1 jan 0,7")[3:] == ("jan", "sun")
    assert crontab_fields("*/15 * * * *")[4] == "*"


def test_every_variable_the_readme_documents_is_a_setting():
    documented = set(re.findall(r"`(SUMWATCH_[A-Z_]+)`", (ROOT / "README.md").read_text()))
    known = {Settings.env_var(name) for name in Settings.names()}  # the tracker settings among them
    assert documented and documented <= known, f"documented but unknown: {sorted(documented - known)}"


@pytest.mark.parametrize("url, message", [
    ("htp://x", "must start with chdb://, http:// or https://, got 'htp://x'"),
    ("postgres://me:secret@db/otel", "must start with chdb://, http:// or https://, got 'postgres://me:***@db/otel'"),
    ("localhost:8123", "must start with chdb://, http:// or https://"),
    ("http://", "names no host, like http://localhost:8123"),
    ("http://ch:99999", "has a bad port"),
    ("chdb://memory", "must name an absolute folder for the embedded database"),
])
def test_only_chdb_and_http_urls_are_accepted(url, message):
    with pytest.raises(SettingsError) as caught:
        Settings.from_env(env={"SUMWATCH_CLICKHOUSE_URL": url})
    assert str(caught.value).startswith("SUMWATCH_CLICKHOUSE_URL (--db) ") and message in str(caught.value)
    assert "secret" not in str(caught.value)


def test_a_chdb_url_names_the_embedded_folder(tmp_path):
    for url in ("http://ch:8123", "https://user:pw@ch.example.com"):
        assert not Settings.from_env(env={}, clickhouse_url=url).is_embedded
    s = Settings.from_env(env={}, clickhouse_url=f"chdb://{tmp_path}/db")
    assert s.is_embedded and s.embedded_path == tmp_path.resolve() / "db"
    assert Settings.from_env(env={}, home=tmp_path).embedded_path == tmp_path.resolve() / "chdb"


def test_durations_are_bounded_at_100_years():
    assert parse_duration("36500d") == 36500 * 86400 and parse_duration("90s") == 90
    for text in ("36501d", "99999999999999999999d", "1" * 400 + "s"):
        with pytest.raises(ValueError, match="at most 100 years"):
            parse_duration(text)
    with pytest.raises(SettingsError, match=r"SUMWATCH_CLUSTER_WINDOW \(--window\) must be a positive duration of "
                                            r"at most 100 years .*got '99999999999999999999d'"):
        Settings.from_env(env={}, cluster_window="99999999999999999999d")


@pytest.mark.parametrize("name, message", [
    ("system", "is ClickHouse's own database"),
    ("INFORMATION_SCHEMA", "is ClickHouse's own database"),
    ("otel; DROP TABLE x", "must be a database name of letters, digits and _"),
])
def test_the_database_must_be_a_plain_name_of_our_own(name, message):
    with pytest.raises(SettingsError, match="SUMWATCH_DATABASE") as caught:
        Settings.from_env(env={"SUMWATCH_DATABASE": name})
    assert message in str(caught.value)
    assert Settings.from_env(env={"SUMWATCH_DATABASE": "team_a"}).database == "team_a"

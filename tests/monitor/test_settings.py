"""Settings: read once from the environment, flags win, every value checked when the settings load."""

import logging
import re
from pathlib import Path

import pytest

from sumwatch.monitor.exports.config import ExportConfig
from sumwatch.monitor.settings import JudgeMode, Settings, SettingsError, crontab_fields, parse_duration
from sumwatch.monitor.settings.concern import warn_unknown
from sumwatch.tracer.vocabulary import IssueStatus, Severity

ROOT = Path(__file__).resolve().parents[2]


def test_defaults_load_from_an_empty_environment():
    s = Settings.from_env(env={})
    assert (s.receiver.port, s.store.database, s.judge.judge_mode, s.clustering.cluster_namer,
            s.clustering.cluster_cron) == (4318, "otel", None, "auto", "*/30 * * * *")
    assert s.is_embedded and s.url.startswith("chdb://")


def test_each_variable_is_named_after_its_field_and_parsed_to_the_fields_type():
    env = {"SUMWATCH_PORT": "4319", "SUMWATCH_SAMPLE_RATE": "0.25", "SUMWATCH_EVAL_EVENTS": "yes",
           "SUMWATCH_LLM_MAX_SPEND_USD": "1.5", "SUMWATCH_JUDGE_MODE": "always", "SUMWATCH_HOME": "/tmp/sw",
           "SUMWATCH_CLICKHOUSE_CLUSTER": "prod", "SUMWATCH_CLUSTER_NAMER": "keywords",
           "SUMWATCH_SERVICE_RATES": "checkout=0.1, support=1", "SUMWATCH_SPAN_FILTER": "span_name=Chat,attr:a.b=c"}
    s = Settings.from_env(env=env)
    assert (s.receiver.port, s.sampler.sample_rate, s.sampler.eval_events, s.judge.llm_max_spend_usd,
            s.judge.judge_mode) == (4319, 0.25, True, 1.5, "always")
    assert s.store.home == Path("/tmp/sw") and s.store.cluster == "prod" and s.clustering.cluster_namer == "keywords"
    assert s.service_rate_map() == {"checkout": 0.1, "support": 1.0}
    assert s.span_filters() == (("span_name", "Chat"), ("attr:a.b", "c"))
    assert Settings.env_var("cluster") == "SUMWATCH_CLICKHOUSE_CLUSTER"
    assert Settings.env_var("llm_timeout_s") == "SUMWATCH_LLM_TIMEOUT_S"


def test_flags_override_the_environment_and_none_means_not_given():
    s = Settings.from_env(env={"SUMWATCH_PORT": "4319", "SUMWATCH_HOST": "0.0.0.0"}, port=9000, host=None)
    assert s.receiver.port == 9000 and s.receiver.host == "0.0.0.0"
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
    ({"SUMWATCH_JUDGE_BUDGET": "-1"},
     "SUMWATCH_JUDGE_BUDGET must be a number of requests per span between 0 and 16, got -1.0"),
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


def test_every_variable_the_readme_and_the_docs_document_is_a_setting():
    texts = [(ROOT / "README.md").read_text(), *(p.read_text() for p in (ROOT / "docs").rglob("*.md"))]
    documented = {name for text in texts for name in re.findall(r"`(SUMWATCH_[A-Z_]+)`", text)}
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
    assert Settings.from_env(env={"SUMWATCH_DATABASE": "team_a"}).store.database == "team_a"


def test_each_concern_reads_its_fields_from_the_flat_variables():
    env = {"SUMWATCH_CLICKHOUSE_URL": "http://ch:8123", "SUMWATCH_RETENTION_DAYS": "30",
           "SUMWATCH_MAX_CONNECTIONS": "9",
           "SUMWATCH_LLM_MODEL": "openai/gpt-4o-mini", "SUMWATCH_SAMPLE_BATCH": "8", "SUMWATCH_CLUSTER_NAMER": "llm",
           "SUMWATCH_GITHUB_REPO": "acme/app", "SUMWATCH_EXPORT_MIN_SEVERITY": "critical",
           "SUMWATCH_PUBLIC_URL": "https://sw.example.com"}
    s = Settings.from_env(env=env)
    assert (s.store.clickhouse_url, s.store.retention_days) == ("http://ch:8123", 30)
    assert (s.receiver.max_connections, s.judge.llm_model, s.sampler.sample_batch) == (9, "openai/gpt-4o-mini", 8)
    assert s.clustering.cluster_namer == "llm" and s.exports.github_repo == "acme/app"
    assert s.exports.export_min_severity is Severity.CRITICAL and f"{s.exports.export_min_severity}" == "critical"
    # one variable, two concerns: the receiver's allowed host and the exports' back-links
    assert s.receiver.public_url == s.exports.public_url == "https://sw.example.com"
    assert s.exports.dashboard_link("/issues/SW-1") == "https://sw.example.com/issues/SW-1"
    # the tracker settings alone read the same variables
    assert ExportConfig.from_env(env=env) == s.exports
    # flat names still set values (flags) and say where they belong
    changed = s.with_(port=9000, judge_mode="always", github_repo="acme/other")
    assert (changed.receiver.port, changed.judge.judge_mode, changed.exports.github_repo) == (9000, JudgeMode.ALWAYS,
                                                                                             "acme/other")
    assert (Settings.concern_of("port"), Settings.concern_of("github_token")) == ("receiver", "exports")
    assert s.receiver.port == 4318  # the original is unchanged (frozen)


SECRETS = {"SUMWATCH_INGEST_TOKEN": "ingest-secret-1", "SUMWATCH_API_TOKEN": "api-secret-22",
           "SUMWATCH_LLM_API_KEY": "llm-secret-333", "SUMWATCH_GITHUB_TOKEN": "gh-secret-4444",
           "SUMWATCH_LINEAR_API_KEY": "lin-secret-5", "SUMWATCH_JIRA_TOKEN": "jira-secret-6",
           "SUMWATCH_SLACK_WEBHOOK_URL": "https://hooks.slack.com/services/T0/B0/slack-secret-7",
           "SUMWATCH_WEBHOOK_URL": "https://example.com/hook/webhook-secret-8",
           "SUMWATCH_WEBHOOK_SECRET": "sign-secret-9",
           "SUMWATCH_CLICKHOUSE_URL": "http://u:ch-secret-10@ch:8123"}


def test_secrets_never_show_in_repr_str_or_errors():
    s = Settings.from_env(env=SECRETS)
    shown = repr(s) + str(s) + repr(s.exports) + str(s.receiver) + repr(s.judge) + repr(s.store)
    for var, value in SECRETS.items():
        assert "secret" in value and value.rpartition("/")[2] not in shown and "ch-secret-10" not in shown, var
    assert s.receiver.api_token is not None and s.receiver.api_token.get_secret_value() == "api-secret-22"
    assert sorted(s.exports.secrets()) == sorted(v for k, v in SECRETS.items()
                                                 if k.startswith(("SUMWATCH_GITHUB", "SUMWATCH_LINEAR", "SUMWATCH_JIRA",
                                                                  "SUMWATCH_SLACK", "SUMWATCH_WEBHOOK")))
    assert s.safe_url == "http://u:***@ch:8123"
    # a secret with a bad value: the error names the variable, never the value
    with pytest.raises(SettingsError) as caught:
        Settings.from_env(env={**SECRETS, "SUMWATCH_API_TOKEN": "short secret"})
    message = str(caught.value)
    assert message.startswith("SUMWATCH_API_TOKEN must be 8 to 512") and "short secret" not in message


def test_an_unknown_sumwatch_variable_is_warned_about_once_with_the_closest_name(caplog):
    env = {"SUMWATCH_JUDGE_MOED": "always", "SUMWATCH_ZZZ_QQQ_TEST_ONLY": "1", "OTHER_THING": "x"}
    with caplog.at_level(logging.WARNING, logger="sumwatch.monitor.settings"):
        s = Settings.from_env(env=env)
        Settings.from_env(env=env)  # the second reading says nothing new
    lines = [r.getMessage() for r in caplog.records]
    assert lines == ["SUMWATCH_JUDGE_MOED is not a sumwatch setting (did you mean SUMWATCH_JUDGE_MODE?)",
                     "SUMWATCH_ZZZ_QQQ_TEST_ONLY is not a sumwatch setting"]
    assert s.judge.judge_mode is None  # the typo is not read as the setting it resembles
    assert warn_unknown({"SUMWATCH_PORT": "1", "SUMWATCH_HOME": "/x", "SUMWATCH_GITHUB_TOKEN": "t"}) == []


def test_the_test_suites_own_variables_are_all_settings():
    import os

    assert warn_unknown({k: v for k, v in os.environ.items() if k.startswith("SUMWATCH_")}) == []


@pytest.mark.parametrize("env, flags, line", [
    ({"SUMWATCH_PORT": "x"}, {}, "SUMWATCH_PORT (--port) must be an integer, got 'x'"),
    ({}, {"port": 70000}, "SUMWATCH_PORT (--port) must be a port number between 0 and 65535, got 70000"),
    ({"SUMWATCH_HOME": ""}, {"clickhouse_url": "ftp://x\ny"}, "SUMWATCH_CLICKHOUSE_URL (--db) must start with chdb://"),
    ({"SUMWATCH_EXPORT_MIN_SEVERITY": "huge"}, {},
     "SUMWATCH_EXPORT_MIN_SEVERITY must be one of low, medium, high, critical, got 'huge'"),
    ({"SUMWATCH_EXPORT_STATUSES": "new,closed"}, {},
     "SUMWATCH_EXPORT_STATUSES must list new, ongoing, regressed, resolved, got 'closed'"),
    ({"SUMWATCH_EXPORT_REDACT": "("}, {}, "SUMWATCH_EXPORT_REDACT is not a regular expression"),
    ({"SUMWATCH_EXPORT_PACE": "github=fast"}, {}, "SUMWATCH_EXPORT_PACE entry 'github=fast' must be target="),
])
def test_every_error_is_one_line_naming_the_variable_and_its_flag(env, flags, line):
    with pytest.raises(SettingsError) as caught:
        Settings.from_env(env=env, **flags)
    assert str(caught.value).startswith(line) and "\n" not in str(caught.value)
    assert isinstance(caught.value, ValueError)


def test_the_tracker_settings_alone_give_the_same_one_line_errors():
    with pytest.raises(SettingsError, match=r"^SUMWATCH_EXPORT_MAX_ATTEMPTS must be a positive integer, got 0$"):
        ExportConfig.from_env(env={"SUMWATCH_EXPORT_MAX_ATTEMPTS": "0"})
    with pytest.raises(SettingsError, match=r"^SUMWATCH_EXPORT_TIMEOUT_S must be a number of seconds from 0 to 86400"):
        ExportConfig(export_timeout_s=-1)


def test_each_vocabulary_is_one_enum_and_the_old_tuples_come_from_it():
    from sumwatch.clustering import track
    from sumwatch.monitor.contract.calibration import STATUSES as CORPUS_STATUSES
    from sumwatch.monitor.contract.calibration import CorpusStatus
    from sumwatch.monitor.exports.config import SEVERITIES, STATUSES
    from sumwatch.monitor.rubrics.cascade import MODES
    from sumwatch.monitor.rubrics.verdicts import RUBRICS, VERDICTS, Rubric
    from sumwatch.monitor.views.dashboard.query import ISSUE_STATUSES

    assert MODES == tuple(JudgeMode) == ("off", "ambiguous", "always")
    assert tuple(Severity) == SEVERITIES and Severity.CRITICAL.rank > Severity.HIGH.rank
    assert STATUSES == track.STATUSES == tuple(IssueStatus) and ISSUE_STATUSES[2:] == STATUSES
    assert tuple(Rubric) == RUBRICS and tuple(CorpusStatus) == CORPUS_STATUSES
    # a member is its text everywhere: printed, formatted, and as a key of tables keyed by text
    assert (str(JudgeMode.ALWAYS), f"{Rubric.FACTUALITY}", VERDICTS[Rubric.FACTUALITY]["correct"]) == (
        "always", "factuality", 1.0)

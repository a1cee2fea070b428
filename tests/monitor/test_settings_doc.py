"""The settings describe themselves: every field says what it does and carries its check's rule, and the docs'
settings reference is the table generated from the fields at each build."""

import importlib.util
from pathlib import Path

import pytest

from sumwatch.monitor.settings import Settings, SettingsError
from sumwatch.monitor.settings.describe import START, settings_markdown

ROOT = Path(__file__).resolve().parents[2]


def _fields():
    for concern in Settings.CONCERNS:
        model = Settings.model_fields[concern].annotation
        for name, info in model.model_fields.items():
            yield f"{concern}.{name}", info


def test_every_setting_says_what_it_does_in_a_line_or_two():
    fields = dict(_fields())
    assert len(fields) > 100
    missing = [name for name, info in fields.items() if not (info.description or "").strip()]
    assert not missing, f"settings without a description: {missing}"
    unfinished = [name for name, info in fields.items() if "\n" in info.description
                  or not info.description.endswith(".") or len(info.description) > 400]
    assert not unfinished, f"a description is one or two sentences on one line: {unfinished}"


def test_a_fields_check_sits_on_the_field_with_its_rule_in_words():
    port = Settings.model_fields["receiver"].annotation.model_fields["port"]
    assert port.json_schema_extra == {"flag": "--port", "rule": "0 to 65535"}
    assert Settings.rule("port") == "0 to 65535"
    assert Settings.rule("judge_mode") == "one of off, ambiguous, always"
    assert Settings.rule("sampler_interval_s") == "a positive number of seconds, at most 100 years"
    assert Settings.rule("sampler_workers") == "0 to 256, or auto (0)"
    assert Settings.rule("eval_events") == "true or false"  # from the type, where no check is declared
    assert Settings.rule("export_min_severity") == "one of low, medium, high, critical"
    assert Settings.rule("llm_model") == ""  # any text
    # the check runs wherever the value comes from, a secret checked as its text and None left alone
    with pytest.raises(SettingsError, match=r"^SUMWATCH_API_TOKEN must be 8 to 512 visible ASCII"):
        Settings.from_env(env={}, api_token="short")
    assert Settings.from_env(env={}).receiver.api_token is None


def test_the_docs_settings_reference_is_generated_from_the_fields_at_each_build():
    hook = ROOT / "docs" / "hooks" / "reference.py"
    spec = importlib.util.spec_from_file_location("docs_reference_hook", hook)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert settings_markdown() in module.settings_reference()
    # no copy to go stale: the table lives only in the built site
    for page in [ROOT / "README.md", *(ROOT / "docs").rglob("*.md")]:
        assert START not in page.read_text(), f"{page.name} holds a copy of the settings table"


def test_the_table_lists_each_variable_once_with_flag_default_and_rule():
    table = settings_markdown()
    rows = [line for line in table.splitlines() if line.startswith("| `SUMWATCH_")]
    assert len(rows) == len(Settings.names())
    assert "| `SUMWATCH_PORT` | `--port` | `4318` | 0 to 65535 | " in table
    assert "| `SUMWATCH_LLM_API_KEY` |  | none |  | " in table
    assert "| `SUMWATCH_CLUSTER_CRON` | `--cron` | `*/30 * * * *` | " in table
    assert "(\\* for any)" in table  # markdown's own characters in a cell are escaped

"""SUMWATCH_EXPORT_REDACT is a pattern a user writes: it runs on RE2 like rubric checks, so no text makes an export
stall, and a pattern RE2 refuses is one line naming the variable when the settings are read."""

from __future__ import annotations

import logging
import time
from dataclasses import replace

import pytest
from shouting_rubric import HOSTILE_PATTERN
from typer.testing import CliRunner

from sumwatch.monitor.cli import app
from sumwatch.monitor.exports.config import ExportConfig
from sumwatch.monitor.exports.payload import build_payload
from sumwatch.monitor.issues.reads import get_issue
from sumwatch.monitor.settings import SettingsError


def test_a_hostile_redact_pattern_on_long_texts_finishes_fast_and_redacts(issues, store):
    detail = get_issue(store, "SW-1")
    assert detail is not None
    # the description cannot match (it ends in "!"), the root cause can: a million a's at its end
    hostile = replace(detail, description="a" * 1_000_000 + "!", root_cause="The model shouts " + "a" * 1_000_000,
                      fix="a" * 27 + "!")
    # the payload's own reads from the store take a few hundred milliseconds on a loaded machine: what redaction
    # adds to them is what is timed
    started = time.perf_counter()
    build_payload(store, hostile, ExportConfig())
    plain = time.perf_counter() - started
    started = time.perf_counter()
    payload = build_payload(store, hostile, ExportConfig(export_redact=HOSTILE_PATTERN))
    took = time.perf_counter() - started
    assert payload.description == hostile.description and payload.fix == "a" * 27 + "!"
    assert payload.root_cause == "The model shouts [redacted]"
    assert payload.representatives and payload.title == detail.title
    # RE2 is linear: tens of milliseconds here; a backtracking engine never finishes the description
    assert took - plain < 1.0, f"{took:.2f} s with the pattern, {plain:.2f} s without"


def test_redaction_replaces_every_hit_literally_and_leaves_empty_texts_empty(issues, store):
    detail = replace(get_issue(store, "SW-1"), title="rose 21% then 4%", fix="")
    payload = build_payload(store, detail, ExportConfig(export_redact=r"(\d+)%"))
    assert payload.title == "rose [redacted] then [redacted]" and payload.fix == ""


def test_a_text_the_pattern_cannot_finish_in_time_is_exported_redacted_whole(issues, store, caplog):
    # each hit of a(.*z)? looks to the end of the text for a z: quadratic even on RE2, 4e10 steps here
    detail = replace(get_issue(store, "SW-1"), description="a" * 200_000)
    with caplog.at_level(logging.WARNING, logger="sumwatch.monitor.exports.payload"):
        payload = build_payload(store, detail, ExportConfig(export_redact="a(.*z)?"))
    assert payload.description == "[redacted]"
    (warning,) = [r.getMessage() for r in caplog.records]
    assert warning.startswith("SUMWATCH_EXPORT_REDACT: the pattern 'a(.*z)?' took longer than 2 s") and \
        "\n" not in warning


@pytest.mark.parametrize(("pattern", "reason"), [
    ("a*+", "bad repetition operator: *+"),  # Python's re reads these three; RE2 does not
    ("(?>secret)", "invalid perl operator: (?>"),
    (r"(?<=key=)\w+", "invalid perl operator: (?<="),
    ("(unclosed", "missing ): (unclosed"),
])
def test_a_pattern_re2_refuses_is_one_line_naming_the_variable(pattern, reason):
    with pytest.raises(SettingsError) as caught:
        ExportConfig.from_env(env={"SUMWATCH_EXPORT_REDACT": pattern})
    assert str(caught.value) == ("SUMWATCH_EXPORT_REDACT is not a regular expression RE2 (the database's engine) "
                                 f"can run: {reason}")


def test_sumwatch_export_with_a_refused_pattern_exits_2_with_one_line(issues, cli_env, tmp_path):
    result = CliRunner().invoke(app, ["export", "SW-1", "--to", "markdown"],
                                env={**cli_env, "SUMWATCH_MARKDOWN_DIR": str(tmp_path),
                                     "SUMWATCH_EXPORT_REDACT": "(?>secret)"})
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert result.stderr.strip() == ("error: SUMWATCH_EXPORT_REDACT is not a regular expression RE2 (the database's "
                                     "engine) can run: invalid perl operator: (?>")
    assert not list(tmp_path.iterdir())

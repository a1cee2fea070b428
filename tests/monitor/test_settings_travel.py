"""A judge setting of a command's own is never dropped when the command goes through a server."""

from __future__ import annotations

import pytest

from sumwatch.monitor.exports.config import ExportConfig
from sumwatch.monitor.settings import JudgeSettings, Settings
from sumwatch.monitor.settings.travel import RELEVANT, SettingsRefused, own_settings, shown_settings, travel


def test_every_judge_setting_matters_to_sample_and_calibrate() -> None:
    for command in ("sample", "calibrate"):
        assert set(JudgeSettings.model_fields) <= set(RELEVANT[command])


def test_the_learned_tier_switched_off_here_is_refused_by_a_server_that_runs_it() -> None:
    mine = Settings.from_env(env={"SUMWATCH_LEARNED": "false"})
    server = shown_settings(Settings.from_env(env={}), ExportConfig())
    own = own_settings(mine, ExportConfig(), {"learned"})
    with pytest.raises(SettingsRefused, match=r"SUMWATCH_LEARNED is False here, but the sumwatch server at "
                                              r"http://h:1 applies its own \(True\)"):
        travel("sample", own, server, "http://h:1")
    # the same value as the server's travels silently
    assert travel("sample", own_settings(Settings.from_env(env={}), ExportConfig(), {"learned"}), server,
                  "http://h:1") == ({}, [])


def test_what_travels_is_declared_at_the_setting_and_names_a_field_the_request_has():
    import dataclasses
    import inspect

    from sumwatch.monitor.settings import Settings
    from sumwatch.monitor.views.client import ApiClient, ScoreRequest

    assert Settings.travels("judge_mode") == {"sample": "mode", "calibrate": "mode"}
    assert Settings.affects("llm_model") == ("sample", "calibrate", "cluster")  # its concern's, then its own
    assert "public_url" in RELEVANT["export"]  # held by the receiver and the exports: both concerns count
    bodies = {"sample": {f.name for f in dataclasses.fields(ScoreRequest)},
              "calibrate": set(inspect.signature(ApiClient.calibrate).parameters),
              "cluster": set(inspect.signature(ApiClient.cluster).parameters)}
    for command, keys in bodies.items():
        for name in RELEVANT[command]:
            key = Settings.travels(name).get(command)
            assert key is None or key in keys, (command, name, key)


def test_a_setting_the_server_leaves_empty_is_named_as_none_set():
    """SUMWATCH_SCORES_SERVICES here, none on the server: the refusal says the server has none, not '()'."""
    mine = ExportConfig.from_env(env={"SUMWATCH_SCORES_SERVICES": "phoenix=digest"})
    server = shown_settings(Settings.from_env(env={}), ExportConfig())
    own = own_settings(Settings.from_env(env={}), mine, {"scores_services"})
    with pytest.raises(SettingsRefused, match=r"SUMWATCH_SCORES_SERVICES is phoenix=digest here, but the sumwatch "
                                              r"server at http://h:1 applies its own \(none set\)"):
        travel("export", own, server, "http://h:1")

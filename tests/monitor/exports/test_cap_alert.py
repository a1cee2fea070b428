"""The daily LLM cap, reached: the alert channels hear it once a day (Slack's hook and the signed webhook on
loopback), and not before the cap is reached."""

from __future__ import annotations

from sumwatch.monitor.exports.cap_alert import EVENT, cap_alert, cap_channels
from sumwatch.monitor.store.scores import DailySpend

REACHED = DailySpend(10.02, 10.0, 37, "2026-12-02")


def test_a_reached_cap_is_said_once_a_day_to_each_alert_channel(store, fake):
    config = fake.config(alert_rules="groundedness<90%/1h@slack; factuality<95%/6h@webhook")
    assert cap_channels(config) == ["slack", "webhook"]
    assert cap_alert(store, config, DailySpend(9.5, 10.0, 0, "2026-12-02")) == ""  # not reached: nothing
    assert not fake.slack and not fake.webhook
    assert cap_alert(store, config, REACHED) == "cap alert sent to slack, cap alert sent to webhook"
    assert cap_alert(store, config, REACHED) == ""  # once a day
    (slack,), (hook,) = fake.slack, fake.webhook
    assert "daily cap of $10.00" in slack["text"] and "37 rubric results" in slack["text"]
    assert hook["body"]["event"] == EVENT and hook["body"]["cap"]["unjudged_cap"] == 37 and not fake.problems
    next_day = DailySpend(10.5, 10.0, 2, "2026-12-03")
    assert cap_alert(store, config, next_day) == "cap alert sent to slack, cap alert sent to webhook"


def test_without_rules_the_configured_channels_hear_it(store, fake):
    config = fake.config(alert_rules="", webhook_url=None)
    assert cap_channels(config) == ["slack"]
    assert cap_alert(store, config, REACHED) == "cap alert sent to slack" and len(fake.slack) == 1

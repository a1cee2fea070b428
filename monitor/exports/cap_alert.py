"""The daily LLM spending cap, reached: said once a day to the alert channels, after the sampler pass that hit it.

    action = cap_alert(store, config, daily_spend(store, 10.0))   # "sent to slack", "" when nothing to send

The channels are the targets the alert rules name (``SUMWATCH_ALERT_RULES``), else whichever of Slack and the
webhook is configured. What was sent is kept in ``sumwatch_alert_states`` under ``llm-daily-cap/<day>``, written
after the send, so each channel hears of a day's cap once and a failed send is tried after the next pass.
"""

from __future__ import annotations

import logging
from typing import Any

from ..settings.alert_rules import ALERT_RULE_TARGETS, parse_alert_rules
from ..store.alert_states import FIRING, AlertState, alert_states, save_alert_state
from ..store.connection import Store
from ..store.scores import DailySpend
from .config import ExportConfig
from .payload import clip
from .registry import build_target, target_problems
from .slack import HEADER_LIMIT, SECTION_LIMIT, Slack
from .transport import ExportError, now_iso, scrubber
from .webhook import Webhook, delivery_id

_log = logging.getLogger("sumwatch.exports")
EVENT = "llm.daily_cap_reached"


def cap_channels(config: ExportConfig) -> list[str]:
    """Where a reached cap is said: the alert rules' targets, else the configured alert channels."""
    named = list(dict.fromkeys(rule.target for rule in parse_alert_rules(config.alert_rules)))
    return named or [name for name in ALERT_RULE_TARGETS if not target_problems(name, config)]


def cap_text(spend: DailySpend) -> str:
    return (f"LLM judging reached its daily cap of ${spend.cap_usd or 0:.2f} on {spend.day} (UTC): "
            f"${spend.spent_usd:.4f} spent; {spend.unjudged_cap} rubric results kept the cheap tiers' verdict "
            f"(unjudged: cap). Judging goes on offline until midnight UTC; `sumwatch rescore` judges them again, "
            f"SUMWATCH_LLM_DAILY_CAP_USD raises the cap.")


def slack_message(spend: DailySpend) -> dict[str, Any]:
    head = "LLM judging reached its daily cap"
    return {"text": clip(cap_text(spend), SECTION_LIMIT),
            "blocks": [{"type": "header", "text": {"type": "plain_text", "text": clip(head, HEADER_LIMIT),
                                                    "emoji": False}},
                       {"type": "section", "text": {"type": "mrkdwn", "text": clip(cap_text(spend), SECTION_LIMIT)}}]}


def webhook_message(spend: DailySpend) -> dict[str, Any]:
    return {"event": EVENT, "cap": {"day": spend.day, "daily_cap_usd": spend.cap_usd, "spent_usd": spend.spent_usd,
                                    "unjudged_cap": spend.unjudged_cap, "text": cap_text(spend)},
            "sent_at": now_iso()}


def cap_alert(store: Store, config: ExportConfig, spend: DailySpend) -> str:
    """Say a reached cap to each channel that has not heard of today's; what was done, as a few words."""
    if not spend.capped:
        return ""
    done = []
    sent = alert_states(store)
    for name in cap_channels(config):
        key = f"llm-daily-cap/{spend.day}@{name}"
        if sent.get(key) is not None and sent[key].state == FIRING:
            continue
        target = build_target(name, config)
        try:
            if isinstance(target, Webhook):
                target.post(webhook_message(spend), delivery_id(f"alert:{key}"))
            elif isinstance(target, Slack):
                target.post(slack_message(spend))
        except ExportError as exc:
            _log.warning("the daily cap alert to %s failed: %s", name, scrubber(config)(str(exc)))
            done.append(f"cap alert to {name} failed")
            continue
        finally:
            target.close()
        save_alert_state(store, AlertState(key, FIRING, spend.spent_usd, spend.unjudged_cap))
        done.append(f"cap alert sent to {name}")
    return ", ".join(done)

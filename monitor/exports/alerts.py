"""Threshold alerts: a rubric's pass rate below a share over a window, to Slack or the webhook, once per breach.

    statuses = rule_statuses(store, config)                  # each rule's rate, judged count and state; sends nothing
    statuses = check_alerts(store, config)                   # and sends what changed: fired, resolved
    statuses = check_alerts(store, config, dry_run=True)     # what would be sent, nothing sent or stored
    statuses = after_sampling(store, config)                 # SUMWATCH_ALERT_RULES, after each sampler pass

Rules come from ``SUMWATCH_ALERT_RULES`` (:mod:`sumwatch.monitor.settings.alert_rules`). Rates are the
dashboard's: the latest judgement of each (span, rubric) in the score facts, over spans whose time is within the
window, narrowed by service and model the way the dashboard's filters narrow them (one read per distinct window
and scope, through :func:`~sumwatch.monitor.store.stats.pass_rate_series`). A rule fires when at least its minimum
of spans were judged and the rate is below its threshold; it is sent once, and again only after a "resolved"
message, sent when the rate is back at or above the threshold. Too few judgements change nothing: a firing rule
stays firing until enough spans say it recovered. The state sent is kept in ``sumwatch_alert_states`` and written
after the send, so a send that failed is tried again on the next check.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable
from datetime import datetime, timedelta, timezone
from typing import Any

from ..contract.exports import RuleStatus
from ..settings.alert_rules import AlertRule, parse_alert_rules
from ..store.alert_states import FIRING, OK, AlertState, alert_states, save_alert_state
from ..store.connection import Store
from ..store.stats import Filters, pass_rate_series
from .config import ExportConfig
from .payload import clip
from .registry import build_target, target_problems
from .slack import HEADER_LIMIT, SECTION_LIMIT, Slack, mrkdwn
from .tracker import Tracker
from .transport import ExportError, now_iso, scrubber
from .webhook import Webhook, delivery_id

_log = logging.getLogger("sumwatch.exports")
NOT_ENOUGH_DATA = "not enough data"
FIRED, RESOLVED, FAILED = "fired", "resolved", "failed"
# one check at a time in this process: the worker's and a manual one must not both send a breach
_checking = threading.Lock()


def configured_rules(config: ExportConfig) -> list[AlertRule]:
    return parse_alert_rules(config.alert_rules)


def alert_rule_problems(config: ExportConfig) -> list[str]:
    """One line per target a rule names that is not configured (checked when the worker starts)."""
    names = dict.fromkeys(rule.target for rule in configured_rules(config))
    return [f"SUMWATCH_ALERT_RULES: {p}" for name in names for p in target_problems(name, config)]


def rule_statuses(store: Store, config: ExportConfig, now: datetime | None = None) -> list[RuleStatus]:
    """Every rule's rate, judged count and state now, beside the state it last sent; nothing is sent."""
    return _evaluate(store, configured_rules(config), now or datetime.now(timezone.utc))


def check_alerts(store: Store, config: ExportConfig, *, dry_run: bool = False,
                 now: datetime | None = None) -> list[RuleStatus]:
    """Evaluate every rule and send a breach that was not sent yet, or a recovery of one that was. ValueError,
    one line, when a rule's target is not configured."""
    problems = alert_rule_problems(config)
    if problems:
        raise ValueError("; ".join(problems))
    with _checking:
        statuses = rule_statuses(store, config, now)
        targets: dict[str, Tracker] = {}
        try:
            for status in statuses:
                event = _event(status)
                if event is None:
                    continue
                target = targets.get(status.target) or targets.setdefault(
                    status.target, build_target(status.target, config))
                if dry_run:
                    status.action, status.request = f"would {event}", _preview(target, status, event)
                else:
                    _send(store, config, target, status, event)
        finally:
            for target in targets.values():
                target.close()
    return statuses


def after_sampling(store: Store, config: ExportConfig) -> list[RuleStatus]:
    """The worker's check after each sampler pass (nothing when no rule is set)."""
    if not config.alert_rules.strip():
        return []
    return check_alerts(store, config)


# -- evaluation ---------------------------------------------------------------------------------

def _evaluate(store: Store, rules: Iterable[AlertRule], now: datetime) -> list[RuleStatus]:
    rules = list(rules)
    if not rules:
        return []
    sent = alert_states(store)
    counts: dict[tuple[float, str, str], dict[str, tuple[int, int]]] = {}
    out = []
    for rule in rules:
        scope = (rule.window_s, rule.service, rule.model)
        if scope not in counts:  # rules sharing a window and scope share one read
            counts[scope] = _window_counts(store, rule, now)
        passed, judged = counts[scope].get(rule.rubric, (0, 0))
        rate = passed / judged if judged else None
        state = _state(rate, judged, rule)
        last = sent.get(rule.key)
        out.append(RuleStatus(rule.key, rule.describe(), rule.rubric, rule.target, rule.threshold, rule.window,
                              rule.min_judged, rule.service, rule.model, passed, judged,
                              None if rate is None else round(rate, 4), state, last.state if last else ""))
    return out


def _state(rate: float | None, judged: int, rule: AlertRule) -> str:
    if rate is None or judged < rule.min_judged:
        return NOT_ENOUGH_DATA
    return FIRING if rate < rule.threshold else OK


def _window_counts(store: Store, rule: AlertRule, now: datetime) -> dict[str, tuple[int, int]]:
    """Per rubric, (passed, judged) over spans of the rule's window and scope: the dashboard's pass-rate read,
    in buckets as long as the window (so at most two), summed."""
    filters = Filters(start=now - timedelta(seconds=rule.window_s), end=now, service=rule.service or None,
                      model=rule.model or None)
    series = pass_rate_series(store, filters, max(1, int(rule.window_s)))
    return {rubric: (sum(p for _, p, _ in points), sum(n for _, _, n in points)) for rubric, points in series.items()}


def _event(status: RuleStatus) -> str | None:
    """What to send: "fire" on a breach not sent yet, "resolve" on the recovery of one sent; else nothing."""
    if status.state == FIRING and status.sent != FIRING:
        return "fire"
    if status.state == OK and status.sent == FIRING:
        return "resolve"
    return None


# -- messages -----------------------------------------------------------------------------------

def _figures(status: RuleStatus) -> str:
    scope = ", ".join(f"{name} {value}" for name, value in (("service", status.service), ("model", status.model))
                      if value)
    rate = "-" if status.rate is None else f"{status.rate:.1%}"
    return (f"{rate} of {status.judged} judged spans passed {status.rubric} over the last {status.window}"
            + (f" ({scope})" if scope else ""))


def slack_message(status: RuleStatus, event: str) -> dict[str, Any]:
    """The Block Kit message of a breach (``fire``) or a recovery (``resolve``)."""
    head = (f"Alert: {status.rubric} pass rate below {status.threshold:.0%}" if event == "fire" else
            f"Resolved: {status.rubric} pass rate back to {status.threshold:.0%} or more")
    body = f"*{_figures(status)}*\nRule: `{status.rule}`"
    return {"text": clip(f"{head}: {_figures(status)}", SECTION_LIMIT),
            "blocks": [{"type": "header", "text": {"type": "plain_text", "text": clip(head, HEADER_LIMIT),
                                                    "emoji": False}},
                       {"type": "section", "text": {"type": "mrkdwn", "text": clip(mrkdwn(body), SECTION_LIMIT)}}]}


def webhook_message(status: RuleStatus, event: str) -> dict[str, Any]:
    """The webhook's JSON: ``{"event": "alert.firing" | "alert.resolved", "alert": {...}, "sent_at": ...}``."""
    alert = {k: v for k, v in status.to_json().items() if k not in ("sent", "action", "error", "request")}
    alert["state"] = FIRING if event == "fire" else OK
    return {"event": "alert.firing" if event == "fire" else "alert.resolved", "alert": alert, "sent_at": now_iso()}


def _preview(target: Tracker, status: RuleStatus, event: str) -> dict[str, Any]:
    if isinstance(target, Slack):
        return {"method": "POST", "url": "$SUMWATCH_SLACK_WEBHOOK_URL", "json": slack_message(status, event)}
    return {"method": "POST", "url": "$SUMWATCH_WEBHOOK_URL", "json": webhook_message(status, event)}


def _send(store: Store, config: ExportConfig, target: Tracker, status: RuleStatus, event: str) -> None:
    try:
        if isinstance(target, Slack):
            target.post(slack_message(status, event))
        elif isinstance(target, Webhook):
            target.post(webhook_message(status, event), delivery_id(f"alert:{status.rule}:{event}"))
        else:  # parse_alert_rules admits only the two alert channels
            raise ExportError(f"{status.target} takes no threshold alerts")
    except ExportError as exc:
        status.action, status.error = FAILED, scrubber(config)(str(exc))
        _log.warning("alert %s to %s failed: %s", status.rule, status.target, status.error)
        return
    # stored after the send: a lost write means one repeated message, a failed send one more try
    state = FIRING if event == "fire" else OK
    save_alert_state(store, AlertState(status.rule, state, status.rate or 0.0, status.judged))
    status.sent, status.action = state, FIRED if event == "fire" else RESOLVED

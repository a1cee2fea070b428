"""Slack incoming webhook: one Block Kit message per new or regressed issue (an alert, not a ticket).

    POST $SUMWATCH_SLACK_WEBHOOK_URL   {"text": fallback, "blocks": [header, section, section, context, actions]}

Slack answers ``ok`` as text, 400 ``invalid_blocks``, 403/404/410 for a revoked hook, 429 with Retry-After.
A message that timed out is not sent again (Slack has no idempotency key and nothing to look it up by): an
alert is sent at most once.
"""

from __future__ import annotations

from typing import Any

from .config import reveal
from .payload import IssuePayload, clip
from .tracker import ALERT, Tracker
from .transport import Http

HEADER_LIMIT = 150
SECTION_LIMIT = 3000
_EVENTS = {"new": "New issue", "regressed": "Regressed", "export": "Issue", "resolved": "Resolved"}


def mrkdwn(text: str) -> str:
    # Slack mrkdwn needs &, < and > escaped; links are written <url|label> by us only
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def blocks(payload: IssuePayload, event: str) -> list[dict[str, Any]]:
    heading = clip(f"{_EVENTS.get(event, event)}: {payload.issue_id} {payload.title}", HEADER_LIMIT)
    out: list[dict[str, Any]] = [
        {"type": "header", "text": {"type": "plain_text", "text": heading, "emoji": False}},
        {"type": "section", "text": {"type": "mrkdwn", "text": clip(mrkdwn(
            f"*{payload.severity}* · {payload.rubric} / {payload.failure_mode} · {payload.counts_line()}\n"
            f"{payload.description}"), SECTION_LIMIT)}},
        {"type": "section", "text": {"type": "mrkdwn", "text": clip(mrkdwn(
            f"*Root cause:* {payload.root_cause}\n*Fix:* {payload.fix}"), SECTION_LIMIT)}},
    ]
    if payload.representatives:
        rep = payload.representatives[0]
        out.append({"type": "context", "elements": [{"type": "mrkdwn", "text": clip(mrkdwn(
            f"{rep.rubric} / {rep.verdict}: {rep.evidence}"), SECTION_LIMIT)}]})
    if payload.issue_url:
        out.append({"type": "actions", "elements": [{"type": "button", "text": {"type": "plain_text",
                                                                                "text": "Open in sumwatch"},
                                                     "url": payload.issue_url}]})
    return out


class Slack(Tracker):
    name = "slack"
    kind = ALERT
    required = ("slack_webhook_url",)
    default_pace = 60.0  # Slack takes about one message a second per hook

    def make_http(self) -> Http:
        return Http(self.name, self.config, default_pace=self.default_pace,
                    headers={"content-type": "application/json"})

    def preview(self, payload: IssuePayload, event: str = "export") -> dict[str, Any]:
        text = clip(f"{_EVENTS.get(event, event)}: {payload.issue_id} {payload.title} ({payload.severity})", 3000)
        return {"method": "POST", "url": "$SUMWATCH_SLACK_WEBHOOK_URL",
                "json": {"text": text, "blocks": blocks(payload, event)}}

    def send(self, payload: IssuePayload, event: str) -> None:
        self.post(self.preview(payload, event)["json"])

    def post(self, message: dict[str, Any]) -> None:
        """One message (``{"text": ..., "blocks": [...]}``) to the hook: issue alerts and threshold alerts alike."""
        self.http.request("POST", reveal(self.config.slack_webhook_url), creates=True, json=message)

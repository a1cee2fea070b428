"""A generic webhook: the issue as JSON, signed with HMAC-SHA256 over the timestamp and the body.

    POST $SUMWATCH_WEBHOOK_URL
    X-Sumwatch-Timestamp: 1764048000
    X-Sumwatch-Delivery: 6f1c...           (the same for every attempt of one message: drop repeats)
    X-Sumwatch-Signature: sha256=<hex of HMAC-SHA256(secret, "1764048000." + body)>

Verify on the receiving side (reject a timestamp more than five minutes old, against replays):

    expected = "sha256=" + hmac.new(secret, f"{ts}.".encode() + body, hashlib.sha256).hexdigest()
    ok = hmac.compare_digest(expected, signature) and abs(time.time() - int(ts)) < 300
"""

from __future__ import annotations

import hashlib
import hmac
import json
import time
import uuid
from typing import Any

from .config import reveal
from .payload import IssuePayload
from .tracker import ALERT, Tracker
from .transport import now_iso

SIGNATURE_HEADER = "X-Sumwatch-Signature"
TIMESTAMP_HEADER = "X-Sumwatch-Timestamp"
DELIVERY_HEADER = "X-Sumwatch-Delivery"
_NAMESPACE = uuid.UUID("5b2f7d1e-3a9c-4e61-8d0a-7c4f2e9b1a33")


def signature(secret: str, timestamp: str, body: bytes) -> str:
    return "sha256=" + hmac.new(secret.encode(), timestamp.encode() + b"." + body, hashlib.sha256).hexdigest()


def delivery_id(about: str) -> str:
    """A new delivery id for one message about ``about`` (like ``sumwatch:SW-3:new``)."""
    return str(uuid.uuid5(_NAMESPACE, f"{about}:{time.time_ns()}"))


def message(payload: IssuePayload, event: str) -> dict[str, Any]:
    return {"event": event, "issue": payload.to_json(), "sent_at": now_iso()}


class Webhook(Tracker):
    name = "webhook"
    kind = ALERT
    required = ("webhook_url", "webhook_secret")

    def preview(self, payload: IssuePayload, event: str = "export") -> dict[str, Any]:
        return {"method": "POST", "url": "$SUMWATCH_WEBHOOK_URL", "json": message(payload, event)}

    def send(self, payload: IssuePayload, event: str, delivery: str = "") -> None:
        self.post(message(payload, event), delivery or delivery_id(f"{payload.marker}:{event}"))

    def post(self, data: dict[str, Any], delivery: str) -> None:
        """``data`` as signed JSON, under one delivery id for every attempt: issue and threshold alerts alike."""
        body = json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode()
        # the timestamp is signed once per message, so a receiver can tell a retry (same delivery) from a replay
        ts = str(int(time.time()))
        headers = {"content-type": "application/json", TIMESTAMP_HEADER: ts, DELIVERY_HEADER: delivery,
                   SIGNATURE_HEADER: signature(reveal(self.config.webhook_secret), ts, body)}
        self.http.request("POST", reveal(self.config.webhook_url), creates=True, content=body, headers=headers)

"""Threshold alert rules (``SUMWATCH_ALERT_RULES``): each rule's rate and state, and a check by hand.

    GET  /api/alerts                          -> AlertAnswer   (rates now; nothing sent)
    POST /api/alerts/check {"dry_run": true}  -> AlertAnswer   (what a check would send)

A target's refusal is a rule with ``action`` "failed" and its reason, not an error status; a rule whose target
is not configured answers 400 with one line.
"""

from __future__ import annotations

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict, Field

from ...contract.exports import AlertAnswer
from ...exports.alerts import check_alerts, rule_statuses
from ..errors import ApiError, error_responses
from ..services import ServicesDep

router = APIRouter(prefix="/api", tags=["alerts"], responses=error_responses(400, 401, 403))


class CheckAlerts(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    dry_run: bool = Field(False, description="Answer what would be sent; send and store nothing")


@router.get("/alerts", summary="Each threshold alert rule with its pass rate, judged spans and state")
def list_alerts(s: ServicesDep) -> AlertAnswer:
    return AlertAnswer(results=rule_statuses(s.store, s.export_config))


@router.post("/alerts/check", summary="Check the threshold alert rules now: send breaches and recoveries")
def check(s: ServicesDep, body: CheckAlerts) -> AlertAnswer:
    try:
        results = check_alerts(s.store, s.export_config, dry_run=body.dry_run)
    except ValueError as exc:
        raise ApiError(400, str(exc)) from None
    return AlertAnswer(results=results)

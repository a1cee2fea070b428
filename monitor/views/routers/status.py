"""The server's state: schema version, spans stored, and the settings a client's own cannot override."""

from __future__ import annotations

from fastapi import APIRouter, Query

from ...contract.scores import RecognitionReport
from ...contract.status import LlmSpend, Shown, StoreStatus
from ...scoring.recognition_report import MAX_SAMPLE, recognition_report
from ...scoring.sampler import SpanSelector
from ...settings.travel import shown_settings
from ...store.migrations import MIGRATIONS
from ...store.scores import daily_spend
from ...store.traces import count_spans
from ..errors import error_responses
from ..services import Services, ServicesDep

router = APIRouter(prefix="/api", tags=["meta"], responses=error_responses(400, 401))


def llm_spend(s: Services) -> LlmSpend:
    spend = daily_spend(s.store, s.settings.judge.llm_daily_cap_usd)
    return LlmSpend(spend.day, spend.spent_usd, spend.cap_usd, spend.capped, spend.unjudged_cap)


@router.get("/status", summary="The database's schema version, the spans stored, today's LLM spend against its "
                               "daily cap, and the server's settings")
def status(s: ServicesDep) -> StoreStatus:
    return StoreStatus(max(m.version for m in MIGRATIONS), count_spans(s.store), server_settings(s), llm_spend(s))


@router.get("/status/recognition", summary="Recent spans per instrumentation, recognised or not, with the reasons")
def recognition(s: ServicesDep, window_s: int = Query(3600, ge=60, le=7 * 86400),
                sample: int = Query(1000, ge=1, le=MAX_SAMPLE)) -> RecognitionReport:
    return recognition_report(s.store, SpanSelector.from_settings(s.settings), window_s=window_s, sample=sample)


def server_settings(s: Services) -> Shown:
    return shown_settings(s.settings, s.export_config)

"""Suspicions no LLM confirmed (unsure results), grouped by what was suspected."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from ...contract.traces import UnsureKind
from ...contract.values import IsoTime
from ...store.unsure import unsure_kinds
from ..errors import error_responses
from ..services import ServicesDep
from .params import RubricQuery

router = APIRouter(prefix="/api/unsure", tags=["scores"], responses=error_responses(400, 401, 404))


@router.get("", summary="Unsure results by what the cheap tiers suspected, most first, with the newest spans of each")
def unsure(s: ServicesDep, since: Annotated[IsoTime | None, Query(description="Only spans from this time on")] = None,
           rubric: RubricQuery = None,
           service: Annotated[str | None, Query(max_length=200, description="Only this service")] = None,
           per_kind: Annotated[int, Query(ge=1, le=1000, description="Spans listed under each kind")] = 20,
           ) -> list[UnsureKind]:
    return unsure_kinds(s.store, since=since, rubric=rubric, service=service, per_kind=per_kind)

"""Finished clustering runs."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path

from ...contract.issues import RunInfo
from ...store.runs import list_runs
from ..errors import ApiError, error_responses
from ..services import ServicesDep
from .params import limit_query

router = APIRouter(prefix="/api/runs", tags=["runs"], responses=error_responses(400, 401))


@router.get("", summary="Finished clustering runs, newest first")
def runs(s: ServicesDep, limit: int = limit_query(20, "runs")) -> list[RunInfo]:
    return list_runs(s.store, limit=limit)


@router.get("/{run_id}", summary="One clustering run", responses=error_responses(404))
def run(s: ServicesDep, run_id: Annotated[str, Path(max_length=200, description="Run id")]) -> RunInfo:
    found = list_runs(s.store, limit=1, run_id=run_id)
    if not found:
        raise ApiError(404, f"no clustering run {run_id[:80]}")
    return found[0]
